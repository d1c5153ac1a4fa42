/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core private: the ioctl handlers the dispatcher table (ioctl.c)
 * names.  Every handler runs with the device's usage lock held for read,
 * on a device that is not removed, after its family's gate passed; @arg is
 * the ioctl argument, unchecked.
 */
#ifndef _NEURON_CORE_IOCTL_H
#define _NEURON_CORE_IOCTL_H

#include <linux/compiler_types.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include <neuron/neuron_ioctl.h>

#include "core.h"

/*
 * A pointer field of a uapi struct (declared as a plain pointer for ABI
 * compatibility) as the user pointer it is.
 */
static inline void __user *neuron_user_ptr(const void *p)
{
	return u64_to_user_ptr((u64)(uintptr_t)p);
}

/* ioctl_device.c: identity and information */
long neuron_ioctl_device_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_device_noop(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_app_pid(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_all_apps_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_compatible_version(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_basic_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bdf(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bdf_ext(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_driver_info_get(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_host_device_id(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_rid_map(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_map(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_pid_state_dump(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_printk(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_va_placement(struct neuron_file *nf, void __user *arg);

/* ioctl_reset.c: resets */
long neuron_ioctl_device_reset(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_device_ready(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_reset_status(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_reset(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_reset_ready(struct neuron_file *nf, void __user *arg);

/* ioctl_mem.c: memory */
long neuron_ioctl_mem_alloc(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2mt(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2mt64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_free(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_get_pa(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_get_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_get_extended_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_mc_get_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_mc_get_info_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dump_mem_chunks(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_copy(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_copy64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_zerocopy64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_zerocopy64_batches(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_program_engine(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_program_engine_nc(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_program_engine_nc64(struct neuron_file *nf, void __user *arg);

/* ioctl_dma.c: DMA copies and engine state */
long neuron_ioctl_mem_copy(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_copy64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_memset(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_memset64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_copy_async(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_copy_async64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_copy_async_wait(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_eng_set_state(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_h2t_alloc_queues(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_h2t_free_queues(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_hbm_scrub_start(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_hbm_scrub_wait(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_h2t_compl_queues(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_eng_get_state(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_queue_get_state(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_eng_init(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_queue_init(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_queue_init_batch(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_queue_release(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_queue_copy_start(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_ack_completed(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_copy_descriptors(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_copy_descriptors64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dma_descriptor_copyout(struct neuron_file *nf, void __user *arg);

/* dmabuf.c: dma-buf export */
long neuron_ioctl_dmabuf_fd(struct neuron_file *nf, void __user *arg);

/* ioctl_bar.c: register access */
void neuron_ioctl_bar_describe(struct neuron_device *nd, struct neuron_ioctl_device_info *info);
long neuron_ioctl_bar_read(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bar_write(struct neuron_file *nf, void __user *arg);

#endif /* _NEURON_CORE_IOCTL_H */
