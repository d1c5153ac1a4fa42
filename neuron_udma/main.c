// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_udma: the DMA plane of the Neuron driver.  See
 * include/neuron/udma.h and Documentation/dma.rst.
 *
 * It holds the UDMA engine library (engine.c, desc.c) and the DMA layer
 * built on it (dma*.c), and serves the DMA command families, which it
 * registers with neuron_core at load time (include/neuron/plane.h).  The
 * core loads it on the first call of one of them (alias neuron-plane-dma);
 * it can be unloaded with devices present: calls in flight end first, then
 * every file's and device's DMA state is released.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <neuron/compat.h>
#include <neuron/plane.h>
#include <neuron/udma.h>
#include <neuron/version.h>

#include "dma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define F1(g, type, fn)			NEURON_IOCTL_F1(g, type, fn)
#define F2(g, type, fn, ...)		NEURON_IOCTL_F2(g, type, fn, __VA_ARGS__)
#define ATT				NEURON_GATE_ATTACHED

/* The DMA command families; all need an attached process. */
static const struct neuron_ioctl_family neuron_dma_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	F2(ATT, NEURON_IOCTL_MEM_COPY, neuron_ioctl_mem_copy,
	   NEURON_IOCTL_MEM_COPY64, neuron_ioctl_mem_copy64),
	F2(ATT, NEURON_IOCTL_MEM_BUF_COPY, neuron_ioctl_mem_buf_copy,
	   NEURON_IOCTL_MEM_BUF_COPY64, neuron_ioctl_mem_buf_copy64),
	F1(ATT, NEURON_IOCTL_PROGRAM_ENGINE, neuron_ioctl_program_engine),
	F2(ATT, NEURON_IOCTL_MEMSET, neuron_ioctl_memset,
	   NEURON_IOCTL_MEMSET64, neuron_ioctl_memset64),
	F1(ATT, NEURON_IOCTL_DMA_ENG_INIT, neuron_ioctl_dma_eng_init),
	F1(ATT, NEURON_IOCTL_DMA_ENG_SET_STATE, neuron_ioctl_dma_eng_set_state),
	F1(ATT, NEURON_IOCTL_DMA_ENG_GET_STATE, neuron_ioctl_dma_eng_get_state),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_INIT, neuron_ioctl_dma_queue_init),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_RELEASE, neuron_ioctl_dma_queue_release),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_COPY_START, neuron_ioctl_dma_queue_copy_start),
	F1(ATT, NEURON_IOCTL_DMA_ACK_COMPLETED, neuron_ioctl_dma_ack_completed),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_GET_STATE, neuron_ioctl_dma_queue_get_state),
	F2(ATT, NEURON_IOCTL_DMA_COPY_DESCRIPTORS, neuron_ioctl_dma_copy_descriptors,
	   NEURON_IOCTL_DMA_COPY_DESCRIPTORS64, neuron_ioctl_dma_copy_descriptors64),
	F1(ATT, NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT, neuron_ioctl_dma_descriptor_copyout),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, neuron_ioctl_dma_queue_init_batch),
	F2(ATT, NEURON_IOCTL_PROGRAM_ENGINE_NC, neuron_ioctl_program_engine_nc,
	   NEURON_IOCTL_PROGRAM_ENGINE_NC64, neuron_ioctl_program_engine_nc64),
	F2(ATT, NEURON_IOCTL_MEM_COPY_ASYNC, neuron_ioctl_mem_copy_async,
	   NEURON_IOCTL_MEM_COPY_ASYNC64, neuron_ioctl_mem_copy_async64),
	F1(ATT, NEURON_IOCTL_MEM_COPY_ASYNC_WAIT, neuron_ioctl_mem_copy_async_wait),
	F1(ATT, NEURON_IOCTL_HBM_SCRUB_START, neuron_ioctl_hbm_scrub_start),
	F1(ATT, NEURON_IOCTL_HBM_SCRUB_WAIT, neuron_ioctl_hbm_scrub_wait),
	F2(ATT, NEURON_IOCTL_MEM_BUF_ZEROCOPY64, neuron_ioctl_mem_buf_zerocopy64,
	   NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED, neuron_ioctl_mem_buf_zerocopy64_48),
	F1(ATT, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, neuron_ioctl_h2t_alloc_queues),
	F1(ATT, NEURON_IOCTL_H2T_DMA_FREE_QUEUES, neuron_ioctl_h2t_free_queues),
	F1(ATT, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES, neuron_ioctl_mem_buf_zerocopy64_batches),
	F1(ATT, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, neuron_ioctl_h2t_compl_queues),
};

static const struct neuron_plane neuron_dma_plane = {
	.owner = THIS_MODULE,
	.name = "dma",
	.id = NEURON_PLANE_DMA,
	.ioctls = neuron_dma_ioctls,
	.device_attach = neuron_dma_attach,
	.device_publish = neuron_dma_publish,
	.device_detach = neuron_dma_detach_device,
	.file_release = neuron_dma_file_release,
	.process_detach = neuron_dma_process_detach,
	.cores_reset = neuron_dma_cores_reset,
	.device_reset = neuron_dma_device_reset,
	.dma_read = neuron_dma_read,
};

static int __init neuron_udma_init(void)
{
	return neuron_plane_register(&neuron_dma_plane);
}
module_init(neuron_udma_init);

/*
 * Transfers in flight end at their next piece before the plane waits for
 * the calls in flight, so unloading never waits for a long user transfer.
 */
static void __exit neuron_udma_exit(void)
{
	neuron_dma_stop();
	neuron_plane_unregister(&neuron_dma_plane);
}
module_exit(neuron_udma_exit);

NEURON_PLANE_ALIAS("dma");
NEURON_IMPORT_NS();
MODULE_DESCRIPTION("AWS Neuron accelerator driver: DMA plane (UDMA engines, copies, queues)");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
