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

/* dmabuf.c: dma-buf export */
long neuron_ioctl_dmabuf_fd(struct neuron_file *nf, void __user *arg);

/* state.c: reservations, model locks, core init, semaphores, pods */
long neuron_ioctl_range_mark(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_range_mark_ext(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_range_unmark(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_range_unmark_ext(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_reader_enter(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_reader_exit(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_writer_enter(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_writer_downgrade(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_cinit_set_state(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_model_started_count(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_increment(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_decrement(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_read(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_write(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_event_set(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_event_get(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_status(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_status_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_ctrl(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_ctrl_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_resource_mmap_info(struct neuron_file *nf, void __user *arg);

/* nq.c */
long neuron_ioctl_nq_init_v1(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nq_destroy(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nq_init_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nq_init_realloc(struct neuron_file *nf, void __user *arg);

/* datastore.c */
long neuron_ioctl_acquire_ds(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_release_ds(struct neuron_file *nf, void __user *arg);

/* ioctl.c: the dispatcher's table (plane.c publishes planes' families) */
void neuron_ioctl_init(void);
int neuron_ioctl_check_plane(const struct neuron_plane *p);
void neuron_ioctl_publish(const struct neuron_plane *p);
void neuron_ioctl_withdraw(const struct neuron_plane *p);
void neuron_ioctl_sync(void);

/* ioctl_bar.c: register access */
void neuron_ioctl_bar_describe(struct neuron_device *nd, struct neuron_ioctl_device_info *info);
long neuron_ioctl_bar_read(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bar_write(struct neuron_file *nf, void __user *arg);
int neuron_reg_window_lookup(const struct neuron_dhal_user *user, u64 off, u32 access, int *nc);
int neuron_reg_user_check(struct neuron_device *nd, u64 off, u32 access, int *nc);

#endif /* _NEURON_CORE_IOCTL_H */
