// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_fuzz: random and mutated input to the user ABI of /dev/neuronN
 * (Documentation/testing.rst, "Fuzzer").
 *
 * Several worker processes issue every command of the ABI with generated
 * and mutated arguments, unknown numbers and wrong encodings, handles and
 * ids taken from earlier answers, mmap()s of offsets from earlier answers
 * and of random ones, accesses to what they mapped (SIGBUS and SIGSEGV are
 * expected there), closes and reopens, and forked children that do a few
 * operations and exit or are killed.  They run on simulated devices of
 * every generation while a controller process adds, resets and removes
 * devices and flips the simulator's DMA switches.  A supervisor (the
 * calling process) watches every process: one that dies of a signal, exits
 * with an error or stays in one operation longer than the hang limit is a
 * failure, reported with its last operations and its kernel stack.
 *
 * Each operation of each worker draws its random numbers from its own
 * stream, seeded from (seed, worker, operation index): the same seed and
 * operation count give every worker the same sequence of operations and
 * arguments (what the kernel answers, and so the handles reused, depends on
 * timing and on the controller).
 *
 * Environment: NEURON_FUZZ_SEED (default 1), NEURON_FUZZ_OPS (total
 * worker operations, default 20000), NEURON_FUZZ_WORKERS (default 4),
 * NEURON_FUZZ_DEVICES (simulated devices, default 4: v2 v3 v4 v4),
 * NEURON_FUZZ_CONTROLLER (0: no device churn), NEURON_FUZZ_ALARM_S (alarm
 * of one operation, default 5), NEURON_FUZZ_HANG_S (default 60),
 * NEURON_FUZZ_TRACE (1: every operation on stderr), NEURON_FUZZ_WORKER (run
 * only this worker's sequence), NEURON_FUZZ_SKIP and NEURON_FUZZ_ONLY
 * (comma-separated names: commands without the NEURON_IOCTL_ prefix, or
 * operation classes: raw mmap munmap touch vm reopen switch fork dmabuf).
 *
 * Built standalone (it then loads the driver itself, as the kselftest
 * does) with the gcc line of Documentation/testing.rst, and included by
 * selftests/fuzz/fuzz_test.c with NEURON_FUZZ_NO_MAIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#include "neuron_test.h"

#define NF_MAXW		16	/* workers */
#define NF_MAXDEV	8	/* simulated devices */
#define NF_RING		32	/* operations remembered per process */
#define NF_MAXARG	16384	/* largest argument (DMA_QUEUE_INIT_BATCH: 12296) */
#define NF_LAST		512	/* bytes of the last accepted argument kept */
#define NF_SCRATCH	(4 << 20)
#define NF_ARGAREA	(64 << 10)
#define NF_GUARD	(64 << 10)
#define NF_POOL		32
#define NF_MAXLIVE	16	/* live memory handles per worker */
#define NF_MAXMAPS	12
#define NF_MAXFDS	4	/* dma-buf descriptors kept */
#define NF_PAGE		4096ULL
#ifndef NF_DEV_FMT
#define NF_DEV_FMT	"/dev/neuron%d"
#endif

/* Columns of the result table: errno 0..NF_EMAX-1, then these. */
#define NF_EMAX		134
#define NF_C_POS	134	/* positive return value */
#define NF_C_BIG	135	/* errno >= NF_EMAX: a kernel-internal code leaked */
#define NF_C_SIGBUS	136
#define NF_C_SIGSEGV	137
#define NF_C_KILLED	138	/* forked child killed on purpose */
#define NF_C_SLOW	139	/* took longer than the alarm */
#define NF_NCOL		140

/* Field kinds: how a generator fills a field. */
enum nf_kind {
	K_RAW, K_ZERO, K_HANDLE, K_HANDLE0, K_NC, K_NCG, K_HBM, K_ENG, K_QID, K_ASIZE,
	K_ALIGN, K_CSIZE, K_OFF, K_PIN, K_POUT, K_MOFF, K_PA, K_VA, K_VSIZE, K_BOOL,
	K_PID, K_SZ, K_CNT, K_NCMAP, K_REQ, K_WAITH, K_H2TQ, K_SMALL, K_POW2, K_BYTES,
	K_UUID, K_DEVIDX, K_STATE, K_FLAGS, K_CAP, K_IDX, K_DCNT, K_MEMTYPE, K_NCBITS,
	K_QBMAP, K_NQT, K_BAR,
};

struct nf_fld {
	unsigned short off;
	unsigned short size;
	unsigned char kind;
};

/* Field @m of struct @s, of kind @k: its offset and size from a pointer to it. */
#define F(s, m, k)	NF_FLD(&NF_NULL(struct s)[0].m, k)
#define NF_NULL(t)	((typeof(t) *)0)
#define NF_FLD(p, k)	{ (unsigned long)(p), sizeof((p)[0]), k }
#define FEND		{ 0, 0, 0 }

/* Gates, as Documentation/ioctl.rst names them. */
#define G_ANY	0
#define G_ATT	1

struct nf_cmd {
	unsigned int cmd;
	const char *name;
	unsigned short argsz;
	unsigned char gate;
	unsigned char weight;
	const struct nf_fld *f;
};

#define C(c, s, g, w, ...)						\
	{ NEURON_IOCTL_##c, #c, sizeof(s), g, w, (const struct nf_fld[]){ __VA_ARGS__, FEND } }
#define C0(c, s, g, w)							\
	{ NEURON_IOCTL_##c, #c, sizeof(s), g, w, (const struct nf_fld[]){ FEND } }

/* Every command of the ABI; the argument size is that of what it points to. */
static const struct nf_cmd nf_cmds[] = {
	C0(DEVICE_RESET, __u64, G_ATT, 1),
	C0(DEVICE_READY, __u8, G_ATT, 2),
	C0(DEVICE_INFO, struct neuron_ioctl_device_info, G_ATT, 4),
	C(DEVICE_INIT, struct neuron_ioctl_device_init, G_ATT, 2,
	  F(neuron_ioctl_device_init, mem_regions, K_RAW)),
	C0(DEVICE_RELEASE, __u64, G_ATT, 2),
	C0(DEVICE_APP_PID, __s32, G_ATT, 3),
	C(DEVICE_GET_ALL_APPS_INFO, struct neuron_ioctl_get_apps_info, G_ATT, 4,
	  F(neuron_ioctl_get_apps_info, apps_info_flags, K_FLAGS),
	  F(neuron_ioctl_get_apps_info, capacity, K_CAP)),
	C(BAR_READ, struct neuron_ioctl_bar_rw, G_ATT, 8,
	  F(neuron_ioctl_bar_rw, bar, K_BAR),
	  F(neuron_ioctl_bar_rw, address, K_PIN),
	  F(neuron_ioctl_bar_rw, data, K_POUT),
	  F(neuron_ioctl_bar_rw, count, K_CNT)),
	C(BAR_WRITE, struct neuron_ioctl_bar_rw, G_ATT, 8,
	  F(neuron_ioctl_bar_rw, bar, K_BAR),
	  F(neuron_ioctl_bar_rw, address, K_PIN),
	  F(neuron_ioctl_bar_rw, data, K_PIN),
	  F(neuron_ioctl_bar_rw, count, K_CNT)),
	C(POST_METRIC, struct neuron_ioctl_post_metric, G_ATT, 1,
	  F(neuron_ioctl_post_metric, data, K_PIN),
	  F(neuron_ioctl_post_metric, data_size, K_CSIZE)),
	C(MEM_ALLOC, struct neuron_ioctl_mem_alloc, G_ATT, 8,
	  F(neuron_ioctl_mem_alloc, size, K_ASIZE),
	  F(neuron_ioctl_mem_alloc, host_memory, K_BOOL),
	  F(neuron_ioctl_mem_alloc, dram_channel, K_HBM),
	  F(neuron_ioctl_mem_alloc, dram_region, K_ZERO),
	  F(neuron_ioctl_mem_alloc, nc_id, K_NC),
	  F(neuron_ioctl_mem_alloc, mem_handle, K_POUT)),
	C(MEM_FREE, struct neuron_ioctl_mem_free, G_ATT, 12,
	  F(neuron_ioctl_mem_free, mem_handle, K_HANDLE)),
	C(MEM_COPY, struct neuron_ioctl_mem_copy, G_ATT, 5,
	  F(neuron_ioctl_mem_copy, src_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy, dst_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy, size, K_CSIZE),
	  F(neuron_ioctl_mem_copy, src_offset, K_OFF),
	  F(neuron_ioctl_mem_copy, dst_offset, K_OFF)),
	C(MEM_COPY64, struct neuron_ioctl_mem_copy64, G_ATT, 5,
	  F(neuron_ioctl_mem_copy64, src_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy64, dst_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy64, size, K_CSIZE),
	  F(neuron_ioctl_mem_copy64, src_offset, K_OFF),
	  F(neuron_ioctl_mem_copy64, dst_offset, K_OFF)),
	C(MEM_BUF_COPY, struct neuron_ioctl_mem_buf_copy, G_ATT, 6,
	  F(neuron_ioctl_mem_buf_copy, mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_buf_copy, buffer, K_PIN),
	  F(neuron_ioctl_mem_buf_copy, size, K_CSIZE),
	  F(neuron_ioctl_mem_buf_copy, offset, K_OFF),
	  F(neuron_ioctl_mem_buf_copy, copy_to_mem_handle, K_BOOL)),
	C(MEM_BUF_COPY64, struct neuron_ioctl_mem_buf_copy64, G_ATT, 6,
	  F(neuron_ioctl_mem_buf_copy64, mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_buf_copy64, buffer, K_PIN),
	  F(neuron_ioctl_mem_buf_copy64, size, K_CSIZE),
	  F(neuron_ioctl_mem_buf_copy64, offset, K_OFF),
	  F(neuron_ioctl_mem_buf_copy64, copy_to_mem_handle, K_BOOL)),
	C(MEM_GET_PA, struct neuron_ioctl_mem_get_pa, G_ATT, 4,
	  F(neuron_ioctl_mem_get_pa, mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_get_pa, pa, K_POUT)),
	C(MEM_GET_INFO, struct neuron_ioctl_mem_get_info, G_ATT, 6,
	  F(neuron_ioctl_mem_get_info, mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_get_info, mmap_offset, K_POUT),
	  F(neuron_ioctl_mem_get_info, pa, K_POUT)),
	C(PROGRAM_ENGINE, struct neuron_ioctl_program_engine, G_ATT, 3,
	  F(neuron_ioctl_program_engine, dst, K_PA),
	  F(neuron_ioctl_program_engine, buffer, K_PIN),
	  F(neuron_ioctl_program_engine, size, K_CSIZE),
	  F(neuron_ioctl_program_engine, offset, K_OFF)),
	C(MEMSET, struct neuron_ioctl_memset, G_ATT, 4,
	  F(neuron_ioctl_memset, mem_handle, K_HANDLE),
	  F(neuron_ioctl_memset, offset, K_OFF),
	  F(neuron_ioctl_memset, value, K_RAW),
	  F(neuron_ioctl_memset, size, K_CSIZE)),
	C(MEMSET64, struct neuron_ioctl_memset64, G_ATT, 4,
	  F(neuron_ioctl_memset64, mem_handle, K_HANDLE),
	  F(neuron_ioctl_memset64, offset, K_OFF),
	  F(neuron_ioctl_memset64, value, K_RAW),
	  F(neuron_ioctl_memset64, size, K_CSIZE)),
	C(MEM_GET_EXTENDED_INFO, struct neuron_ioctl_mem_get_extended_info, G_ATT, 5,
	  F(neuron_ioctl_mem_get_extended_info, mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_get_extended_info, version, K_SMALL)),
	C(DMA_ENG_INIT, struct neuron_ioctl_dma_eng_init, G_ATT, 2,
	  F(neuron_ioctl_dma_eng_init, eng_id, K_ENG)),
	C(DMA_ENG_SET_STATE, struct neuron_ioctl_dma_eng_set_state, G_ATT, 2,
	  F(neuron_ioctl_dma_eng_set_state, eng_id, K_ENG),
	  F(neuron_ioctl_dma_eng_set_state, state, K_STATE)),
	C(DMA_ENG_GET_STATE, struct neuron_ioctl_dma_eng_get_state, G_ATT, 3,
	  F(neuron_ioctl_dma_eng_get_state, eng_id, K_ENG),
	  F(neuron_ioctl_dma_eng_get_state, state, K_POUT)),
	C(DMA_QUEUE_INIT, struct neuron_ioctl_dma_queue_init, G_ATT, 4,
	  F(neuron_ioctl_dma_queue_init, eng_id, K_ENG),
	  F(neuron_ioctl_dma_queue_init, qid, K_QID),
	  F(neuron_ioctl_dma_queue_init, tx_desc_count, K_DCNT),
	  F(neuron_ioctl_dma_queue_init, rx_desc_count, K_DCNT),
	  F(neuron_ioctl_dma_queue_init, tx_handle, K_HANDLE),
	  F(neuron_ioctl_dma_queue_init, rx_handle, K_HANDLE),
	  F(neuron_ioctl_dma_queue_init, rxc_handle, K_HANDLE0),
	  F(neuron_ioctl_dma_queue_init, axi_port, K_SMALL)),
	C(DMA_QUEUE_RELEASE, struct neuron_ioctl_dma_queue_release, G_ATT, 3,
	  F(neuron_ioctl_dma_queue_release, eng_id, K_ENG),
	  F(neuron_ioctl_dma_queue_release, qid, K_QID)),
	C(DMA_QUEUE_COPY_START, struct neuron_ioctl_dma_queue_copy_start, G_ATT, 3,
	  F(neuron_ioctl_dma_queue_copy_start, eng_id, K_ENG),
	  F(neuron_ioctl_dma_queue_copy_start, qid, K_QID),
	  F(neuron_ioctl_dma_queue_copy_start, tx_desc_count, K_CNT),
	  F(neuron_ioctl_dma_queue_copy_start, rx_desc_count, K_CNT)),
	C(DMA_ACK_COMPLETED, struct neuron_ioctl_dma_ack_completed, G_ATT, 2,
	  F(neuron_ioctl_dma_ack_completed, eng_id, K_ENG),
	  F(neuron_ioctl_dma_ack_completed, qid, K_QID),
	  F(neuron_ioctl_dma_ack_completed, count, K_CNT)),
	C(DMA_QUEUE_GET_STATE, struct neuron_ioctl_dma_queue_get_state, G_ATT, 3,
	  F(neuron_ioctl_dma_queue_get_state, eng_id, K_ENG),
	  F(neuron_ioctl_dma_queue_get_state, qid, K_QID),
	  F(neuron_ioctl_dma_queue_get_state, tx, K_POUT),
	  F(neuron_ioctl_dma_queue_get_state, rx, K_POUT)),
	C(DMA_COPY_DESCRIPTORS, struct neuron_ioctl_dma_copy_descriptors, G_ATT, 3,
	  F(neuron_ioctl_dma_copy_descriptors, mem_handle, K_HANDLE),
	  F(neuron_ioctl_dma_copy_descriptors, buffer, K_PIN),
	  F(neuron_ioctl_dma_copy_descriptors, num_descs, K_CNT),
	  F(neuron_ioctl_dma_copy_descriptors, offset, K_OFF),
	  F(neuron_ioctl_dma_copy_descriptors, queue_type, K_SMALL)),
	C(DMA_COPY_DESCRIPTORS64, struct neuron_ioctl_dma_copy_descriptors64, G_ATT, 3,
	  F(neuron_ioctl_dma_copy_descriptors64, mem_handle, K_HANDLE),
	  F(neuron_ioctl_dma_copy_descriptors64, buffer, K_PIN),
	  F(neuron_ioctl_dma_copy_descriptors64, num_descs, K_CNT),
	  F(neuron_ioctl_dma_copy_descriptors64, offset, K_OFF),
	  F(neuron_ioctl_dma_copy_descriptors64, queue_type, K_SMALL)),
	C(DMA_DESCRIPTOR_COPYOUT, struct neuron_ioctl_dma_descriptor_copyout, G_ATT, 3,
	  F(neuron_ioctl_dma_descriptor_copyout, eng_id, K_ENG),
	  F(neuron_ioctl_dma_descriptor_copyout, qid, K_QID),
	  F(neuron_ioctl_dma_descriptor_copyout, type, K_SMALL),
	  F(neuron_ioctl_dma_descriptor_copyout, start_index, K_SMALL),
	  F(neuron_ioctl_dma_descriptor_copyout, count, K_CNT),
	  F(neuron_ioctl_dma_descriptor_copyout, buffer, K_POUT)),
	C0(DMA_QUIESCE_QUEUES, __u64, G_ATT, 1),
	C(SEMAPHORE_INCREMENT, struct neuron_ioctl_semaphore, G_ATT, 2,
	  F(neuron_ioctl_semaphore, nc_id, K_NC),
	  F(neuron_ioctl_semaphore, semaphore_index, K_IDX),
	  F(neuron_ioctl_semaphore, value, K_RAW)),
	C(SEMAPHORE_DECREMENT, struct neuron_ioctl_semaphore, G_ATT, 2,
	  F(neuron_ioctl_semaphore, nc_id, K_NC),
	  F(neuron_ioctl_semaphore, semaphore_index, K_IDX),
	  F(neuron_ioctl_semaphore, value, K_RAW)),
	C(SEMAPHORE_READ, struct neuron_ioctl_semaphore, G_ATT, 2,
	  F(neuron_ioctl_semaphore, nc_id, K_NC),
	  F(neuron_ioctl_semaphore, semaphore_index, K_IDX)),
	C(SEMAPHORE_WRITE, struct neuron_ioctl_semaphore, G_ATT, 2,
	  F(neuron_ioctl_semaphore, nc_id, K_NC),
	  F(neuron_ioctl_semaphore, semaphore_index, K_IDX),
	  F(neuron_ioctl_semaphore, value, K_RAW)),
	C(EVENT_SET, struct neuron_ioctl_semaphore, G_ATT, 2,
	  F(neuron_ioctl_semaphore, nc_id, K_NC),
	  F(neuron_ioctl_semaphore, semaphore_index, K_IDX),
	  F(neuron_ioctl_semaphore, value, K_RAW)),
	C(EVENT_GET, struct neuron_ioctl_semaphore, G_ATT, 2,
	  F(neuron_ioctl_semaphore, nc_id, K_NC),
	  F(neuron_ioctl_semaphore, semaphore_index, K_IDX)),
	C(NOTIFICATIONS_INIT_V1, struct neuron_ioctl_notifications_init_v1, G_ATT, 3,
	  F(neuron_ioctl_notifications_init_v1, nc_id, K_NC),
	  F(neuron_ioctl_notifications_init_v1, nq_type, K_NQT),
	  F(neuron_ioctl_notifications_init_v1, engine_index, K_SMALL),
	  F(neuron_ioctl_notifications_init_v1, size, K_POW2)),
	C(NOTIFICATIONS_DESTROY_V1, struct neuron_ioctl_notifications_destroy, G_ATT, 2,
	  F(neuron_ioctl_notifications_destroy, mmap_offset, K_MOFF)),
	C(NOTIFICATIONS_INIT_V2, struct neuron_ioctl_notifications_init_v2, G_ATT, 3,
	  F(neuron_ioctl_notifications_init_v2, nq_dev_id, K_NC),
	  F(neuron_ioctl_notifications_init_v2, nq_dev_type, K_BOOL),
	  F(neuron_ioctl_notifications_init_v2, nq_type, K_NQT),
	  F(neuron_ioctl_notifications_init_v2, engine_index, K_SMALL),
	  F(neuron_ioctl_notifications_init_v2, size, K_POW2),
	  F(neuron_ioctl_notifications_init_v2, on_host_memory, K_BOOL),
	  F(neuron_ioctl_notifications_init_v2, dram_channel, K_HBM),
	  F(neuron_ioctl_notifications_init_v2, dram_region, K_ZERO)),
	C(NOTIFICATIONS_INIT_WITH_REALLOC_V2,
	  struct neuron_ioctl_notifications_init_with_realloc_v2, G_ATT, 3,
	  F(neuron_ioctl_notifications_init_with_realloc_v2, nq_dev_id, K_NC),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, nq_dev_type, K_BOOL),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, nq_type, K_NQT),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, engine_index, K_SMALL),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, size, K_POW2),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, on_host_memory, K_BOOL),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, dram_channel, K_HBM),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, dram_region, K_ZERO),
	  F(neuron_ioctl_notifications_init_with_realloc_v2, force_alloc_mem, K_BOOL)),
	C(NOTIFICATIONS_QUEUE_INFO, struct neuron_ioctl_notifications_queue_info, G_ATT, 1,
	  F(neuron_ioctl_notifications_queue_info, nq_dev_id, K_SMALL),
	  F(neuron_ioctl_notifications_queue_info, nq_type, K_SMALL)),
	C(READ_HW_COUNTERS, struct neuron_ioctl_read_hw_counters, G_ATT, 1,
	  F(neuron_ioctl_read_hw_counters, address, K_PIN),
	  F(neuron_ioctl_read_hw_counters, data, K_POUT),
	  F(neuron_ioctl_read_hw_counters, count, K_CNT)),
	C(ACQUIRE_NEURON_DS, struct neuron_ioctl_neuron_ds_info, G_ATT, 3,
	  F(neuron_ioctl_neuron_ds_info, pid, K_PID)),
	C(RELEASE_NEURON_DS, struct neuron_ioctl_neuron_ds_info, G_ATT, 2,
	  F(neuron_ioctl_neuron_ds_info, pid, K_PID)),
	C(CRWL_READER_ENTER, struct neuron_ioctl_crwl, G_ATT, 1,
	  F(neuron_ioctl_crwl, nc_id, K_NC),
	  F(neuron_ioctl_crwl, uuid, K_UUID)),
	C(CRWL_READER_EXIT, struct neuron_ioctl_crwl, G_ATT, 2,
	  F(neuron_ioctl_crwl, nc_id, K_NC),
	  F(neuron_ioctl_crwl, uuid, K_UUID)),
	C(CRWL_WRITER_ENTER, struct neuron_ioctl_crwl, G_ATT, 1,
	  F(neuron_ioctl_crwl, nc_id, K_NC),
	  F(neuron_ioctl_crwl, uuid, K_UUID)),
	C(CRWL_WRITER_DOWNGRADE, struct neuron_ioctl_crwl, G_ATT, 2,
	  F(neuron_ioctl_crwl, nc_id, K_NC),
	  F(neuron_ioctl_crwl, uuid, K_UUID)),
	C(CRWL_NC_RANGE_MARK, struct neuron_ioctl_crwl_nc_map, G_ANY, 3,
	  F(neuron_ioctl_crwl_nc_map, nc_count, K_CNT),
	  F(neuron_ioctl_crwl_nc_map, start_nc_index, K_NCG),
	  F(neuron_ioctl_crwl_nc_map, end_nc_index, K_NCG)),
	C(CRWL_NC_RANGE_MARK_EXT0, struct neuron_ioctl_crwl_nc_map_ext, G_ANY, 3,
	  F(neuron_ioctl_crwl_nc_map_ext, nc_count, K_CNT),
	  F(neuron_ioctl_crwl_nc_map_ext, start_nc_index, K_NCG),
	  F(neuron_ioctl_crwl_nc_map_ext, end_nc_index, K_NCG)),
	C(CRWL_NC_RANGE_UNMARK, struct neuron_ioctl_crwl_nc_map, G_ANY, 2,
	  F(neuron_ioctl_crwl_nc_map, bitmap, K_NCBITS)),
	C(CRWL_NC_RANGE_UNMARK_EXT0, struct neuron_ioctl_crwl_nc_map_ext, G_ANY, 2,
	  F(neuron_ioctl_crwl_nc_map_ext, bitmap, K_NCBITS)),
	C(CINIT_SET_STATE, struct neuron_ioctl_cinit_set, G_ATT, 2,
	  F(neuron_ioctl_cinit_set, nc_id, K_NC),
	  F(neuron_ioctl_cinit_set, state, K_STATE)),
	C(NC_MODEL_STARTED_COUNT, struct neuron_ioctl_nc_model_started_count, G_ATT, 2,
	  F(neuron_ioctl_nc_model_started_count, nc_id, K_NC)),
	C0(COMPATIBLE_VERSION, struct neuron_ioctl_compatible_version, G_ANY, 2),
	C0(DEVICE_BASIC_INFO, struct neuron_ioctl_device_basic_info, G_ANY, 2),
	C0(DEVICE_BDF, struct neuron_ioctl_device_bdf, G_ATT, 2),
	C(MEM_ALLOC_V2, struct neuron_ioctl_mem_alloc_v2, G_ATT, 10,
	  F(neuron_ioctl_mem_alloc_v2, size, K_ASIZE),
	  F(neuron_ioctl_mem_alloc_v2, align, K_ALIGN),
	  F(neuron_ioctl_mem_alloc_v2, host_memory, K_BOOL),
	  F(neuron_ioctl_mem_alloc_v2, dram_channel, K_HBM),
	  F(neuron_ioctl_mem_alloc_v2, dram_region, K_ZERO),
	  F(neuron_ioctl_mem_alloc_v2, nc_id, K_NC),
	  F(neuron_ioctl_mem_alloc_v2, mem_handle, K_POUT)),
	C(MEM_ALLOC_V2MT, struct neuron_ioctl_mem_alloc_v2_mem_type, G_ATT, 8,
	  F(neuron_ioctl_mem_alloc_v2_mem_type, size, K_ASIZE),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, align, K_ALIGN),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, host_memory, K_BOOL),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, dram_channel, K_HBM),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, dram_region, K_ZERO),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, nc_id, K_NC),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, mem_type, K_MEMTYPE),
	  F(neuron_ioctl_mem_alloc_v2_mem_type, mem_handle, K_POUT)),
	C(MEM_ALLOC_V2MT64, struct neuron_ioctl_mem_alloc_v2_mem_type64, G_ATT, 8,
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, size, K_ASIZE),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, align, K_ALIGN),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, host_memory, K_BOOL),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, dram_channel, K_HBM),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, dram_region, K_ZERO),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, nc_id, K_NC),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, mem_type, K_MEMTYPE),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, mem_handle, K_POUT),
	  F(neuron_ioctl_mem_alloc_v2_mem_type64, pad, K_ZERO)),
	C(NC_RESET, struct neuron_ioctl_device_reset, G_ATT, 2,
	  F(neuron_ioctl_device_reset, nc_map, K_NCMAP)),
	C(NC_RESET_READY, struct neuron_ioctl_device_ready, G_ATT, 2,
	  F(neuron_ioctl_device_ready, request_id, K_REQ)),
	C(PROGRAM_ENGINE_NC, struct neuron_ioctl_program_engine_nc, G_ATT, 3,
	  F(neuron_ioctl_program_engine_nc, nc_id, K_NC),
	  F(neuron_ioctl_program_engine_nc, dst, K_PA),
	  F(neuron_ioctl_program_engine_nc, buffer, K_PIN),
	  F(neuron_ioctl_program_engine_nc, size, K_CSIZE),
	  F(neuron_ioctl_program_engine_nc, offset, K_OFF)),
	C(PROGRAM_ENGINE_NC64, struct neuron_ioctl_program_engine_nc64, G_ATT, 3,
	  F(neuron_ioctl_program_engine_nc64, nc_id, K_NC),
	  F(neuron_ioctl_program_engine_nc64, dst, K_PA),
	  F(neuron_ioctl_program_engine_nc64, buffer, K_PIN),
	  F(neuron_ioctl_program_engine_nc64, size, K_CSIZE),
	  F(neuron_ioctl_program_engine_nc64, offset, K_OFF)),
	C0(DEVICE_RESET_STATUS, __u8, G_ANY, 2),
	C(DEVICE_BDF_EXT, struct neuron_ioctl_device_bdf_ext, G_ANY, 2,
	  F(neuron_ioctl_device_bdf_ext, nd_index, K_DEVIDX)),
	C(DMABUF_FD, struct neuron_ioctl_dmabuf_fd, G_ANY, 4,
	  F(neuron_ioctl_dmabuf_fd, va, K_VA),
	  F(neuron_ioctl_dmabuf_fd, size, K_VSIZE),
	  F(neuron_ioctl_dmabuf_fd, fd, K_POUT)),
	C(MEM_COPY_ASYNC, struct neuron_ioctl_mem_copy_async, G_ATT, 4,
	  F(neuron_ioctl_mem_copy_async, src_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy_async, dst_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy_async, size, K_CSIZE),
	  F(neuron_ioctl_mem_copy_async, src_offset, K_OFF),
	  F(neuron_ioctl_mem_copy_async, dst_offset, K_OFF),
	  F(neuron_ioctl_mem_copy_async, host_prefetch_addr, K_ZERO),
	  F(neuron_ioctl_mem_copy_async, pwait_handle, K_WAITH)),
	C(MEM_COPY_ASYNC64, struct neuron_ioctl_mem_copy_async64, G_ATT, 4,
	  F(neuron_ioctl_mem_copy_async64, src_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy_async64, dst_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy_async64, size, K_CSIZE),
	  F(neuron_ioctl_mem_copy_async64, src_offset, K_OFF),
	  F(neuron_ioctl_mem_copy_async64, dst_offset, K_OFF),
	  F(neuron_ioctl_mem_copy_async64, host_prefetch_addr, K_ZERO),
	  F(neuron_ioctl_mem_copy_async64, pwait_handle, K_WAITH)),
	C(MEM_COPY_ASYNC_WAIT, struct neuron_ioctl_mem_copy_async_wait, G_ATT, 3,
	  F(neuron_ioctl_mem_copy_async_wait, src_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy_async_wait, dst_mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_copy_async_wait, pwait_handle, K_WAITH)),
	C0(DRIVER_INFO_GET, struct neuron_ioctl_device_driver_info, G_ANY, 2),
	C(DRIVER_INFO_SET, struct neuron_ioctl_device_driver_info, G_ANY, 1,
	  F(neuron_ioctl_device_driver_info, feature_flags1, K_RAW)),
	C(MEM_MC_GET_INFO, struct neuron_ioctl_mem_get_mc_mmap_info, G_ATT, 3,
	  F(neuron_ioctl_mem_get_mc_mmap_info, pa, K_PA)),
	C(MEM_MC_GET_INFO_V2, struct neuron_ioctl_mem_get_mc_mmap_info_v2, G_ATT, 3,
	  F(neuron_ioctl_mem_get_mc_mmap_info_v2, pa, K_PA)),
	C(RESOURCE_MMAP_INFO, struct neuron_ioctl_resource_mmap_info, G_ATT, 4,
	  F(neuron_ioctl_resource_mmap_info, block, K_SMALL),
	  F(neuron_ioctl_resource_mmap_info, block_id, K_SMALL),
	  F(neuron_ioctl_resource_mmap_info, resource, K_SMALL)),
	C(PRINTK, struct neuron_ioctl_printk, G_ANY, 1,
	  F(neuron_ioctl_printk, buffer, K_PIN),
	  F(neuron_ioctl_printk, size, K_SMALL),
	  F(neuron_ioctl_printk, action, K_ZERO)),
	C0(HOST_DEVICE_ID, struct neuron_ioctl_host_device_id, G_ATT, 2),
	C0(HOST_DEVICE_ID_TO_RID_MAP, struct neuron_ioctl_host_device_id_to_rid_map, G_ANY, 2),
	C(DUMP_MEM_CHUNKS, struct neuron_ioctl_dump_mem_chunks, G_ATT, 3,
	  F(neuron_ioctl_dump_mem_chunks, hbm_index, K_HBM),
	  F(neuron_ioctl_dump_mem_chunks, num_entries_in, K_CAP),
	  F(neuron_ioctl_dump_mem_chunks, data, K_POUT)),
	C(NC_PID_STATE_DUMP, struct neuron_ioctl_nc_pid_state_dump, G_ANY, 1,
	  F(neuron_ioctl_nc_pid_state_dump, size, K_SZ),
	  F(neuron_ioctl_nc_pid_state_dump, nc_id, K_NCG),
	  F(neuron_ioctl_nc_pid_state_dump, filter_log_owner, K_BOOL),
	  F(neuron_ioctl_nc_pid_state_dump, log_dump_limit, K_SMALL)),
	C(HBM_SCRUB_START, struct neuron_ioctl_hbm_scrub_start, G_ATT, 1,
	  F(neuron_ioctl_hbm_scrub_start, nc_id, K_NC),
	  F(neuron_ioctl_hbm_scrub_start, hbm_index, K_HBM),
	  F(neuron_ioctl_hbm_scrub_start, axi_port, K_SMALL),
	  F(neuron_ioctl_hbm_scrub_start, init_val, K_RAW)),
	C(HBM_SCRUB_WAIT, struct neuron_ioctl_hbm_scrub_wait, G_ATT, 2,
	  F(neuron_ioctl_hbm_scrub_wait, nc_id, K_NC),
	  F(neuron_ioctl_hbm_scrub_wait, hbm_index, K_HBM)),
	C(GET_LOGICAL_TO_PHYSICAL_NC_MAP, struct neuron_ioctl_get_logical_to_physical_nc_map,
	  G_ANY, 2,
	  F(neuron_ioctl_get_logical_to_physical_nc_map, map, K_POUT),
	  F(neuron_ioctl_get_logical_to_physical_nc_map, max_map_entries, K_CAP),
	  F(neuron_ioctl_get_logical_to_physical_nc_map, mapping_version, K_ZERO)),
	C(POD_INFO, struct neuron_ioctl_pod_info, G_ANY, 1,
	  F(neuron_ioctl_pod_info, sz, K_SZ)),
	C(POD_STATUS, struct neuron_ioctl_pod_status, G_ANY, 1,
	  F(neuron_ioctl_pod_status, sz, K_SZ)),
	C(POD_STATUS_V2, struct neuron_ioctl_pod_status_v2, G_ANY, 1,
	  F(neuron_ioctl_pod_status_v2, v1.sz, K_SZ)),
	C(POD_CTRL, struct neuron_ioctl_pod_ctrl, G_ANY, 1,
	  F(neuron_ioctl_pod_ctrl, sz, K_SZ),
	  F(neuron_ioctl_pod_ctrl, ctrl, K_SMALL),
	  F(neuron_ioctl_pod_ctrl, timeout, K_SMALL)),
	C(POD_CTRL_V2, struct neuron_ioctl_pod_ctrl_v2, G_ANY, 1,
	  F(neuron_ioctl_pod_ctrl_v2, v1.sz, K_SZ),
	  F(neuron_ioctl_pod_ctrl_v2, v1.ctrl, K_SMALL),
	  F(neuron_ioctl_pod_ctrl_v2, v1.timeout, K_SMALL),
	  F(neuron_ioctl_pod_ctrl_v2, mode, K_SMALL)),
	C(MEM_BUF_ZEROCOPY64, struct neuron_ioctl_mem_buf_copy64zc, G_ATT, 5,
	  F(neuron_ioctl_mem_buf_copy64zc, mem_handle, K_HANDLE),
	  F(neuron_ioctl_mem_buf_copy64zc, buffer, K_PIN),
	  F(neuron_ioctl_mem_buf_copy64zc, size, K_CSIZE),
	  F(neuron_ioctl_mem_buf_copy64zc, offset, K_OFF),
	  F(neuron_ioctl_mem_buf_copy64zc, is_copy_to_device, K_BOOL),
	  F(neuron_ioctl_mem_buf_copy64zc, bar4_wr_threshold, K_SMALL),
	  F(neuron_ioctl_mem_buf_copy64zc, h2t_qid, K_H2TQ),
	  F(neuron_ioctl_mem_buf_copy64zc, dummy, K_ZERO)),
	C(H2T_DMA_ALLOC_QUEUES, struct neuron_ioctl_h2t_dma_alloc_queues, G_ATT, 3,
	  F(neuron_ioctl_h2t_dma_alloc_queues, sz, K_SZ),
	  F(neuron_ioctl_h2t_dma_alloc_queues, nc_id, K_NC),
	  F(neuron_ioctl_h2t_dma_alloc_queues, copy_queue_cnt, K_CNT),
	  F(neuron_ioctl_h2t_dma_alloc_queues, service_queue_cnt, K_ZERO)),
	C(H2T_DMA_FREE_QUEUES, struct neuron_ioctl_h2t_dma_free_queues, G_ATT, 2,
	  F(neuron_ioctl_h2t_dma_free_queues, sz, K_SZ),
	  F(neuron_ioctl_h2t_dma_free_queues, nc_id, K_NC),
	  F(neuron_ioctl_h2t_dma_free_queues, fill0, K_ZERO),
	  F(neuron_ioctl_h2t_dma_free_queues, queue_bmap, K_QBMAP)),
	C(POWER_PROFILE, struct neuron_ioctl_power_profile, G_ATT, 1,
	  F(neuron_ioctl_power_profile, sz, K_SZ),
	  F(neuron_ioctl_power_profile, ctrl, K_BOOL),
	  F(neuron_ioctl_power_profile, profile, K_SMALL)),
	C(METRICS_CTRL, struct neuron_ioctl_metrics_ctrl, G_ATT, 1,
	  F(neuron_ioctl_metrics_ctrl, mode, K_SMALL)),
	C(MEM_BUF_ZEROCOPY64_BATCHES, struct neuron_ioctl_mem_buf_copy64zc_batches, G_ATT, 5,
	  F(neuron_ioctl_mem_buf_copy64zc_batches, sequence_num, K_SMALL),
	  F(neuron_ioctl_mem_buf_copy64zc_batches, batches_ptr, K_PIN),
	  F(neuron_ioctl_mem_buf_copy64zc_batches, num_batches, K_CNT),
	  F(neuron_ioctl_mem_buf_copy64zc_batches, is_copy_to_device, K_BOOL),
	  F(neuron_ioctl_mem_buf_copy64zc_batches, h2t_qid, K_H2TQ),
	  F(neuron_ioctl_mem_buf_copy64zc_batches, flags, K_ZERO)),
	C(THROTTLING_NOTIFICATIONS, struct neuron_ioctl_throttling_notifications, G_ATT, 1,
	  F(neuron_ioctl_throttling_notifications, enable, K_BOOL)),
	C(GET_VA_PLACEMENT, struct neuron_ioctl_get_va_placement, G_ANY, 3,
	  F(neuron_ioctl_get_va_placement, va, K_VA)),
	C(GET_PERFORMANCE_PROFILE, struct neuron_ioctl_power_profile, G_ATT, 1,
	  F(neuron_ioctl_power_profile, sz, K_SZ),
	  F(neuron_ioctl_power_profile, ctrl, K_BOOL)),
	C(DMA_QUEUE_INIT_BATCH, struct neuron_ioctl_dma_queue_init_batch, G_ATT, 2,
	  F(neuron_ioctl_dma_queue_init_batch, count, K_CNT)),
	C(AVAILABLE_PERF_PROFILES, struct neuron_ioctl_available_perf_profiles, G_ATT, 1,
	  F(neuron_ioctl_available_perf_profiles, requested_feature, K_SMALL)),
	C(GET_ASYNC_H2T_DMA_COMPL_QUEUES, struct neuron_ioctl_get_async_h2t_dma_compl_queues,
	  G_ATT, 3,
	  F(neuron_ioctl_get_async_h2t_dma_compl_queues, nc_id, K_NC),
	  F(neuron_ioctl_get_async_h2t_dma_compl_queues, qid_bitmap, K_QBMAP)),
};

#define NF_NCMDS	((int)ARRAY_SIZE(nf_cmds))

/* Operations that are not a command of the ABI: the other rows of the table. */
enum nf_op {
	OP_RAW_N,	/* type 'N', an encoding the ABI does not have */
	OP_RAW_X,	/* another type */
	OP_MMAP,
	OP_MUNMAP,
	OP_TOUCH,
	OP_MPROTECT,
	OP_MADVISE,
	OP_MREMAP,
	OP_OPEN,
	OP_CLOSE,
	OP_FORK,
	OP_DMABUF_MMAP,
	OP_CTL_ADD,
	OP_CTL_DEL,
	OP_CTL_RESET,
	OP_CTL_SYSFS_RESET,
	OP_CTL_STALL,
	OP_CTL_ABORT,
	OP_CTL_MODE,
	OP_CTL_FAULT,
	OP_N
};

static const char * const nf_op_names[OP_N] = {
	"raw 'N' encodings", "raw other types", "mmap", "munmap", "touch mapping",
	"mprotect", "madvise", "mremap", "open", "close", "fork child", "mmap dma-buf",
	"ctl new_device", "ctl del_device", "ctl debugfs reset", "ctl sysfs reset",
	"ctl dma_stall", "ctl dma_abort", "ctl dma_mode", "ctl reset fault",
};

#define NF_ROWS		(NF_NCMDS + OP_N)

/* Operation classes that NEURON_FUZZ_SKIP and NEURON_FUZZ_ONLY name. */
enum nf_class { CL_IOCTL, CL_RAW, CL_MMAP, CL_MUNMAP, CL_TOUCH, CL_VM, CL_REOPEN, CL_SWITCH,
	CL_FORK, CL_DMABUF, CL_N };

static const char * const nf_class_names[CL_N] = {
	"ioctl", "raw", "mmap", "munmap", "touch", "vm", "reopen", "switch", "fork", "dmabuf",
};

/* Weight of each class, per 1000 operations. */
static const unsigned int nf_class_weight[CL_N] = {
	800, 40, 40, 15, 40, 15, 20, 8, 7, 15,
};

/* One operation, remembered for the report of a process that fails. */
struct nf_rec {
	__u64 idx;
	int row;
	unsigned int cmd;
	int ret;
	int err;
	unsigned char arg[40];
};

/* What the supervisor sees of one process (a worker or the controller). */
struct nf_proc {
	int pid;
	int busy;		/* in an operation */
	long start_ms;		/* when it started */
	__u64 idx;		/* its index */
	__u64 done;
	__u64 child_ops;
	unsigned int pos;
	struct nf_rec ring[NF_RING];
};

struct nf_shared {
	int stop;		/* the controller should finish */
	int failures;
	__u64 stats[NF_ROWS][NF_NCOL];
	struct nf_proc proc[NF_MAXW + 1];	/* the last one is the controller */
};

struct nf_cfg {
	__u64 seed;
	__u64 ops;
	int workers;
	int devices;
	int controller;
	int alarm_s;
	int hang_s;
	int trace;
	int only_worker;
	unsigned char skip_cmd[NF_NCMDS];
	unsigned char skip_class[CL_N];
};

struct nf_chunk {
	__u64 h;
	__u64 size;
	__u64 pa;
	int host;
	int pa_known;
};

struct nf_pool {
	__u64 v[NF_POOL];
	__u64 len[NF_POOL];
	unsigned int n;
	unsigned int pos;
};

struct nf_map {
	unsigned char *p;
	size_t len;
	int prot;
};

/* One worker (or a forked child of one). */
struct nf_w {
	int id;
	int child;		/* a forked child: no fork, no reports of its own */
	__u64 rs;		/* random state of the current operation */
	__u64 opi;
	int slot;
	int fd;			/* normal (attached) file */
	int wfd;		/* free-access file */
	int fd2;		/* a second normal file, maybe of another device */
	int gen;
	int index;
	unsigned int ncs;
	unsigned int nhbm;
	unsigned int engines;
	unsigned int user_engines;
	__u64 bar_base;
	__u64 bar_size;
	struct nf_chunk live[NF_MAXLIVE];
	int nlive;
	struct nf_pool stale;	/* handles freed, of closed files, of others */
	struct nf_pool pas;
	struct nf_pool moffs;	/* mmap offsets, with their sizes */
	struct nf_pool qids;	/* host-to-device queues claimed */
	struct nf_pool reqs;	/* reset request ids */
	struct nf_pool waits;	/* asynchronous copy wait handles */
	struct nf_pool engq;	/* (engine << 16 | queue) initialised */
	struct nf_pool marks;	/* core bitmaps reserved */
	struct nf_map maps[NF_MAXMAPS];
	int bufs[NF_MAXFDS];	/* dma-buf descriptors */
	unsigned char *scr;	/* NF_SCRATCH bytes, guards on both sides */
	unsigned char *argarea;	/* NF_ARGAREA bytes, a guard after */
	unsigned char *ro;	/* a read-only page */
	unsigned char *hole;	/* an address with nothing mapped */
	unsigned char last[NF_NCMDS][NF_LAST];
	unsigned char have_last[NF_NCMDS];
};

static struct nf_cfg nf_cfg;
static struct nf_shared *nf_sh;
static const char * const nf_gens[] = { "v2", "v3", "v4", "v4", "v3", "v2", "v4", "v3" };

/* Where the SIGSEGV and SIGBUS handler returns to while a mapping is touched. */
static sigjmp_buf nf_jb;
static int nf_in_touch;

/* ---------------------------------------------------------------------- */

static __u64 nf_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static __u64 rnd(struct nf_w *w)
{
	w->rs += 0x9e3779b97f4a7c15ULL;
	return nf_mix(w->rs);
}

/* A number below @n (0 when @n is 0). */
static __u64 rn(struct nf_w *w, __u64 n)
{
	return n ? rnd(w) % n : 0;
}

/* True one time in @n. */
static int one_in(struct nf_w *w, unsigned int n)
{
	return rn(w, n) == 0;
}

/* The random stream of operation @opi of worker @id (of child @sub, or 0). */
static void nf_seed_op(struct nf_w *w, __u64 opi, __u64 sub)
{
	w->opi = opi;
	w->rs = nf_mix(nf_mix(nf_cfg.seed) ^ nf_mix((__u64)w->id << 48 ^ opi) ^ nf_mix(sub));
}

static long now_ms(void)
{
	return nt_now_ms();
}

static void count(int row, int col)
{
	__atomic_fetch_add(&nf_sh->stats[row][col], 1, __ATOMIC_RELAXED);
}

/* Random bytes that never contain an upper-case letter: the kernel may print them. */
static void fill_rand(struct nf_w *w, void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;
	__u64 r = 0;

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			r = rnd(w);
		b[i] = r >> (8 * (i & 7));
		if (b[i] >= 'A' && b[i] <= 'Z')
			b[i] += 32;
	}
}

static __u64 boundary(struct nf_w *w)
{
	static const __u64 v[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 511, 512,
		4095, 4096, 4097, 8192, 65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 1,
		~0ULL - 4095, 1ULL << 40, 1ULL << 44, 1ULL << 46, 1ULL << 47, 1ULL << 63 | 1,
		0xdeadbeef, 0xa5a5a5a5a5a5a5a5ULL, 4ULL << 20, (4ULL << 20) + 1, 16ULL << 20,
	};

	if (one_in(w, 8))
		return rnd(w);
	return v[rn(w, ARRAY_SIZE(v))];
}

/* ------------------------------------------------------------------ pools */

static void pool_add(struct nf_pool *p, __u64 v, __u64 len)
{
	unsigned int i;

	for (i = 0; i < p->n; i++)
		if (p->v[i] == v) {
			p->len[i] = len;
			return;
		}
	p->v[p->pos] = v;
	p->len[p->pos] = len;
	p->pos = (p->pos + 1) % NF_POOL;
	if (p->n < NF_POOL)
		p->n++;
}

/* An entry of @p (its length in *@len if set), or -1 when it is empty. */
static int pool_pick(struct nf_w *w, struct nf_pool *p, __u64 *v, __u64 *len)
{
	unsigned int i;

	if (!p->n)
		return -1;
	i = rn(w, p->n);
	*v = p->v[i];
	if (len)
		*len = p->len[i];
	return 0;
}

static struct nf_chunk *live_find(struct nf_w *w, __u64 h)
{
	int i;

	for (i = 0; i < w->nlive; i++)
		if (w->live[i].h == h)
			return &w->live[i];
	return NULL;
}

static void live_drop(struct nf_w *w, __u64 h)
{
	struct nf_chunk *c = live_find(w, h);

	if (!c)
		return;
	pool_add(&w->stale, h, c->size);
	*c = w->live[--w->nlive];
}

/* The file closed: its handles are stale now. */
static void live_forget(struct nf_w *w)
{
	while (w->nlive)
		live_drop(w, w->live[0].h);
}

/* ---------------------------------------------------------------- pointers */

/* A pointer to @len bytes the kernel may read or write, in the scratch area. */
static __u64 ptr_ok(struct nf_w *w, size_t len)
{
	size_t room = len < NF_SCRATCH ? NF_SCRATCH - len : 0;
	size_t off = rn(w, room + 1);

	if (!one_in(w, 8))
		off &= ~(size_t)7;
	return (__u64)(unsigned long)(w->scr + off);
}

/* A pointer of any class for @len bytes; a good one unless @bad. */
static __u64 ptr_any(struct nf_w *w, size_t len, int bad)
{
	if (!bad)
		return ptr_ok(w, len);
	switch (rn(w, 13)) {
	case 0:
		return 0;
	case 1:
		return (__u64)(unsigned long)w->hole;
	case 2:
		return (__u64)(unsigned long)w->ro;
	case 3:	/* runs into the guard after the scratch area */
		return (__u64)(unsigned long)(w->scr + NF_SCRATCH - (len > 1 ? rn(w, len) : 0));
	case 4:
		return (__u64)(unsigned long)(w->scr + NF_SCRATCH);
	case 5:
		return 0xffff888000000000ULL + rn(w, 1 << 20) * 8;
	case 6:
		return 0x8000000000000000ULL;
	case 7:
		return ptr_ok(w, len + 8) + 1 + rn(w, 7);
	case 8: {
		struct nf_map *m = &w->maps[rn(w, NF_MAXMAPS)];

		if (m->p)
			return (__u64)(unsigned long)(m->p + rn(w, m->len));
		return ptr_ok(w, len);
	}
	case 9:
		return 0x7ffffffff000ULL;
	case 10:
		return ~0ULL - rn(w, 64);
	case 11:
		return (__u64)(unsigned long)(w->argarea + NF_ARGAREA);
	default:
		return boundary(w);
	}
}

/* ----------------------------------------------------------------- fields */

static __u64 gen_handle(struct nf_w *w, int bad)
{
	__u64 v;

	if (w->nlive && (!bad || one_in(w, 2)))
		return w->live[rn(w, w->nlive)].h;
	if (!pool_pick(w, &w->stale, &v, NULL) && !one_in(w, 4))
		return v;
	return one_in(w, 2) ? boundary(w) : rnd(w);
}

static __u64 gen_core(struct nf_w *w, int bad)
{
	if (bad)
		return one_in(w, 2) ? w->ncs + rn(w, 4) : boundary(w);
	/* Mostly a core of its own, so that workers collide only now and then. */
	if (one_in(w, 4))
		return rn(w, w->ncs);
	return w->id % w->ncs;
}

static __u64 gen_size(struct nf_w *w)
{
	static const __u64 s[] = { 4096, 8192, 16384, 65536, 262144, 1 << 20 };

	if (one_in(w, 3))
		return 1 + rn(w, 16384);
	return s[rn(w, ARRAY_SIZE(s))];
}

/* The value of a field of kind @k; one that looks right unless @bad. */
static __u64 gen(struct nf_w *w, const struct nf_cmd *c, int k, int bad)
{
	__u64 v, len;

	if (bad && k != K_PIN && k != K_POUT && one_in(w, 3))
		return boundary(w);
	switch (k) {
	case K_RAW:
		return one_in(w, 2) ? rn(w, 256) : rnd(w);
	case K_ZERO:
		return bad ? rnd(w) : 0;
	case K_HANDLE:
		return gen_handle(w, bad);
	case K_HANDLE0:
		return one_in(w, 4) ? gen_handle(w, bad) : 0;
	case K_NC:
		return gen_core(w, bad);
	case K_NCG:
		return (__u64)w->index * w->ncs + gen_core(w, bad);
	case K_HBM:
		return bad ? w->nhbm + rn(w, 3) : rn(w, w->nhbm);
	case K_ENG:
		if (!pool_pick(w, &w->engq, &v, NULL) && one_in(w, 2))
			return v >> 16;
		if (bad)
			return w->user_engines + rn(w, w->engines - w->user_engines + 3);
		return rn(w, w->user_engines);
	case K_QID:
		if (!pool_pick(w, &w->engq, &v, NULL) && one_in(w, 2))
			return v & 0xffff;
		return rn(w, bad ? 32 : 16);
	case K_ASIZE:
		return bad ? boundary(w) : gen_size(w);
	case K_ALIGN:
		return one_in(w, 2) ? 0 : 1ULL << rn(w, bad ? 64 : 22);
	case K_CSIZE:
		return bad ? boundary(w) : 1 + rn(w, one_in(w, 4) ? 65536 : 4096);
	case K_OFF:
		return one_in(w, 2) ? 0 : rn(w, bad ? 1 << 24 : 4096) & ~15ULL;
	case K_PIN:
	case K_POUT:
		return ptr_any(w, 64, bad && one_in(w, 2));
	case K_MOFF:
		if (!pool_pick(w, &w->moffs, &v, NULL) && !bad)
			return v;
		return rn(w, 1ULL << 47) & ~(NF_PAGE - 1);
	case K_PA:
		if (!pool_pick(w, &w->pas, &v, NULL) && !bad)
			return v + (one_in(w, 2) ? 0 : rn(w, 4096));
		return rnd(w) >> rn(w, 64);
	case K_VA: {
		struct nf_map *m = &w->maps[rn(w, NF_MAXMAPS)];

		if (m->p && !bad)
			return (__u64)(unsigned long)m->p + (one_in(w, 2) ? 0 : rn(w, m->len));
		return ptr_any(w, 64, 1);
	}
	case K_VSIZE:
		return bad ? boundary(w) : NF_PAGE * (1 + rn(w, 4));
	case K_BOOL:
		return bad ? rnd(w) : rn(w, 2);
	case K_PID:
		switch (rn(w, 5)) {
		case 0:
			return getpid();
		case 1:
			return getppid();
		case 2:
			return bad ? boundary(w) : 1;
		default:
			return 0;
		}
	case K_SZ:
		return bad ? rn(w, 1024) : c->argsz;
	case K_CNT:
		return bad ? boundary(w) : 1 + rn(w, one_in(w, 4) ? 64 : 4);
	case K_NCMAP:
		if (!bad && one_in(w, 8))
			return NEURON_NC_MAP_DEVICE;
		return bad ? rnd(w) : 1ULL << gen_core(w, 0);
	case K_REQ:
		if (!pool_pick(w, &w->reqs, &v, NULL) && !bad)
			return v;
		return bad ? rnd(w) : (__u64)getpid();
	case K_WAITH:
		return bad ? boundary(w) : rn(w, 4) - 1;
	case K_H2TQ:
		if (!bad && !pool_pick(w, &w->qids, &v, NULL) && one_in(w, 2))
			return v;
		return bad ? rn(w, 40) - 4 : (__u64)-1;
	case K_SMALL:
		return rn(w, bad ? 1024 : 5);
	case K_POW2:
		return bad ? boundary(w) : 1ULL << (12 + rn(w, 5));
	case K_DEVIDX:
		return rn(w, bad ? 128 : 8);
	case K_STATE:
		return rn(w, bad ? 16 : 5);
	case K_FLAGS:
		return rn(w, bad ? 65536 : 16);
	case K_CAP:
		return bad ? boundary(w) : rn(w, 20);
	case K_IDX:
		return rn(w, bad ? 4096 : 256);
	case K_DCNT:
		return bad ? boundary(w) : 32ULL << rn(w, 3);
	case K_MEMTYPE:
		return rn(w, bad ? 64 : NEURON_MEMALLOC_TYPE_MAX);
	case K_NCBITS:
		if (!pool_pick(w, &w->marks, &v, &len) && !bad)
			return v;
		return bad ? rnd(w) : 1ULL << gen_core(w, 0);
	case K_QBMAP:
		if (!pool_pick(w, &w->qids, &v, NULL) && !bad)
			return 1ULL << (v & 31);
		return bad ? rnd(w) : 1ULL << rn(w, 16);
	case K_NQT:
		return rn(w, bad ? 64 : NQ_TYPE_MAX);
	case K_BAR:
		return bad ? rn(w, 8) : 0;
	default:
		return rnd(w);
	}
}

static void put_field(unsigned char *a, const struct nf_fld *f, __u64 v)
{
	switch (f->size) {
	case 1:
		a[f->off] = v;
		break;
	case 2: {
		__u16 x = v;

		memcpy(a + f->off, &x, 2);
		break;
	}
	case 4: {
		__u32 x = v;

		memcpy(a + f->off, &x, 4);
		break;
	}
	case 8:
		memcpy(a + f->off, &v, 8);
		break;
	}
}

static __u64 get_field(const unsigned char *a, size_t off, size_t size)
{
	__u64 v = 0;

	memcpy(&v, a + off, size);
	return v;
}

/* Fill field @f of @a (arrays: uuids, bitmaps and byte strings get bytes). */
static void fill_field(struct nf_w *w, const struct nf_cmd *c, unsigned char *a,
		       const struct nf_fld *f, int bad)
{
	static const unsigned char uuids[3] = { 0x11, 0x22, 0x33 };

	if (f->kind == K_UUID) {
		if (bad)
			fill_rand(w, a + f->off, f->size);
		else
			memset(a + f->off, uuids[rn(w, 3)], f->size);
		return;
	}
	if (f->size > 8) {
		memset(a + f->off, 0, f->size);
		if (bad) {
			fill_rand(w, a + f->off, f->size);
		} else {
			__u64 v = gen(w, c, f->kind, 0);

			memcpy(a + f->off, &v, 8);
		}
		return;
	}
	put_field(a, f, gen(w, c, f->kind, bad));
}

/* ----------------------------------------------- nested and sized arguments */

/* BAR_READ and BAR_WRITE: @count register addresses in a window of this generation. */
static void fix_bar(struct nf_w *w, unsigned char *a, int bad)
{
	struct neuron_ioctl_bar_rw *b = (void *)a;
	unsigned int n = b->count, i;
	__u64 *addr;

	if (n > 4096 || !n || (!bad && n > 16))
		n = bad ? 16 : 1 + rn(w, 16);
	addr = (void *)(w->scr + ((rn(w, NF_SCRATCH / 2) & ~7ULL)));
	for (i = 0; i < n; i++) {
		__u64 off;

		if (w->gen == 2) {
			switch (rn(w, 3)) {
			case 0:
				off = rn(w, 2) * 0x4000000 + 0x2700000 + rn(w, 0x1000);
				break;
			case 1:
				off = 0x10000000 + rn(w, 6) * 0x400000 + rn(w, 0x2000);
				break;
			default:
				off = 0x30000000 + rn(w, 0x10000000);
				break;
			}
		} else {
			switch (rn(w, 4)) {
			case 0:
				off = 0xd0000000 + rn(w, 8) * 0x4000000 + 0x2700000 + rn(w, 0x1000);
				break;
			case 1:
				off = 0xf0000000 + rn(w, 8) * 0x400000 + rn(w, 0x2000);
				break;
			case 2:
				off = rn(w, 0x20000000);
				break;
			default:
				off = 0x80000000 + rn(w, 0x40000000);
				break;
			}
		}
		off &= ~3ULL;
		if (bad && one_in(w, 4))
			off = one_in(w, 2) ? off + 1 + rn(w, 3) : w->bar_size + rn(w, 1 << 20);
		addr[i] = (bad && one_in(w, 8) ? rnd(w) : w->bar_base) + off;
	}
	b->address = (__u64 *)addr;
	if (!bad || one_in(w, 2))
		b->data = (__u32 *)(unsigned long)ptr_ok(w, 4 * n);
	if (!bad)
		b->count = n;
}

/* The handle at offset @off of @a, if it is a live one of ours. */
static struct nf_chunk *chunk_at(struct nf_w *w, const unsigned char *a, size_t off)
{
	return live_find(w, get_field(a, off, 8));
}

/* Keep a copy of @size bytes at @offp (and @offp2) inside the chunk @ch. */
static void clamp_copy(struct nf_w *w, unsigned char *a, struct nf_chunk *ch, size_t sizeoff,
		       size_t sizesz, size_t offoff, size_t offsz)
{
	__u64 size, off;

	if (!ch)
		return;
	size = get_field(a, sizeoff, sizesz);
	off = get_field(a, offoff, offsz);
	if (off >= ch->size)
		off = 0;
	if (!size || size > ch->size - off)
		size = 1 + rn(w, ch->size - off);
	if (size > 65536)
		size = 65536;
	put_field(a, &(struct nf_fld){ sizeoff, sizesz, 0 }, size);
	put_field(a, &(struct nf_fld){ offoff, offsz, 0 }, off);
}

static void fix_batches(struct nf_w *w, unsigned char *a, int bad)
{
	struct neuron_ioctl_mem_buf_copy64zc_batches *z = (void *)a;
	unsigned int nb = z->num_batches, i, j;
	struct neuron_memcpy_batch *b;
	struct nrt_tensor_batch_op *op;

	if (!nb || nb > 8)
		nb = 1 + rn(w, 4);
	b = (void *)(w->scr + (rn(w, NF_SCRATCH / 4) & ~7ULL));
	for (i = 0; i < nb; i++) {
		struct nf_chunk *ch = w->nlive ? &w->live[rn(w, w->nlive)] : NULL;
		unsigned int no = 1 + rn(w, 4);

		memset(&b[i], 0, sizeof(b[i]));
		b[i].mem_handle = ch ? ch->h : gen_handle(w, 1);
		b[i].num_ops = bad && one_in(w, 4) ? boundary(w) : no;
		op = (void *)(w->scr + NF_SCRATCH / 4 + (rn(w, NF_SCRATCH / 4) & ~7ULL));
		b[i].ops_ptr = bad && one_in(w, 8) ? (void *)(unsigned long)ptr_any(w, 24, 1) : op;
		b[i].context = (void *)(unsigned long)rnd(w);
		for (j = 0; j < no; j++) {
			__u64 max = ch ? ch->size : 4096;

			op[j].size = 1 + rn(w, max < 16384 ? max : 16384);
			op[j].offset = rn(w, max - op[j].size + 1) & ~3ULL;
			op[j].buffer = (void *)(unsigned long)ptr_any(w, op[j].size,
								     bad && one_in(w, 3));
			if (bad && one_in(w, 6))
				op[j].size = boundary(w);
		}
	}
	z->batches_ptr = b;
	if (!bad)
		z->num_batches = nb;
}

static void fix_queue_batch(struct nf_w *w, unsigned char *a, int bad)
{
	struct neuron_ioctl_dma_queue_init_batch *q = (void *)a;
	unsigned int n = q->count, i;

	if (!bad || n > MAX_DMA_QUEUE_INIT_BATCH)
		n = rn(w, 5);
	for (i = 0; i < n && i < MAX_DMA_QUEUE_INIT_BATCH; i++) {
		struct neuron_ioctl_dma_queue_init *e = &q->entries[i];

		e->eng_id = gen(w, NULL, K_ENG, bad);
		e->qid = gen(w, NULL, K_QID, bad);
		e->tx_desc_count = gen(w, NULL, K_DCNT, bad);
		e->rx_desc_count = gen(w, NULL, K_DCNT, bad);
		e->tx_handle = gen_handle(w, bad);
		e->rx_handle = gen_handle(w, bad);
		e->rxc_handle = gen(w, NULL, K_HANDLE0, bad);
		e->axi_port = 0;
	}
	if (!bad)
		q->count = n;
}

/*
 * @n DMA descriptors of ring type @type (0 M2S, 1 S2M) at @p, each copying
 * a piece of one of the worker's chunks whose address it learnt: what a
 * user queue accepts (Documentation/dma.rst), so that its copies run.
 */
static void fill_descs(struct nf_w *w, void *p, unsigned int n, unsigned int type)
{
	__u32 *d = p;
	unsigned int i;

	for (i = 0; i < n; i++, d += 4) {
		struct nf_chunk *c = w->nlive ? &w->live[rn(w, w->nlive)] : NULL;
		__u64 len, off, addr;

		if (!c || !c->pa_known) {
			fill_rand(w, d, 16);
			continue;
		}
		len = 1 + rn(w, c->size < 4096 ? c->size : 4096);
		off = rn(w, c->size - len + 1);
		addr = c->pa + off;
		/* Length, ring id 1, first and last of a packet of its own. */
		d[0] = (len & 0xffff) | 1U << 24 | 1U << 26 | 1U << 27;
		d[1] = type ? 0 : 0x01080003;
		d[2] = addr;
		d[3] = addr >> 32;
	}
}

/*
 * The commands whose argument points to more memory, or has a size of its
 * own: make the pointers point to enough good memory (unless @bad), fill
 * what the kernel reads.  The argument's length in *@len.
 */
static void fixup(struct nf_w *w, const struct nf_cmd *c, unsigned char *a, size_t *len, int bad)
{
	switch (c->cmd) {
	case NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO: {
		struct neuron_ioctl_get_apps_info *ai = (void *)a;
		__u32 cap = ai->capacity > 40 ? 40 : ai->capacity;

		*len = sizeof(*ai) + cap * sizeof(struct neuron_app_info);
		if (bad && one_in(w, 2))
			*len -= rn(w, *len);
		break;
	}
	case NEURON_IOCTL_BAR_READ:
	case NEURON_IOCTL_BAR_WRITE:
		fix_bar(w, a, bad);
		break;
	case NEURON_IOCTL_MEM_BUF_COPY: {
		struct neuron_ioctl_mem_buf_copy *b = (void *)a;

		if (!bad)
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*b), size), 4,
				   offsetof(typeof(*b), offset), 4);
		if (!bad || one_in(w, 2))
			b->buffer = (void *)(unsigned long)ptr_ok(w, b->size);
		break;
	}
	case NEURON_IOCTL_MEM_BUF_COPY64: {
		struct neuron_ioctl_mem_buf_copy64 *b = (void *)a;

		if (!bad)
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*b), size), 8,
				   offsetof(typeof(*b), offset), 8);
		if (!bad || one_in(w, 2))
			b->buffer = (void *)(unsigned long)ptr_ok(w, b->size);
		break;
	}
	case NEURON_IOCTL_MEM_BUF_ZEROCOPY64: {
		struct neuron_ioctl_mem_buf_copy64zc *b = (void *)a;

		if (!bad)
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*b), size), 8,
				   offsetof(typeof(*b), offset), 8);
		if (!bad || one_in(w, 2))
			b->buffer = (void *)(unsigned long)ptr_ok(w, b->size);
		break;
	}
	case NEURON_IOCTL_MEMSET: {
		struct neuron_ioctl_memset *m = (void *)a;

		if (!bad)
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*m), size), 4,
				   offsetof(typeof(*m), offset), 8);
		break;
	}
	case NEURON_IOCTL_MEMSET64: {
		struct neuron_ioctl_memset64 *m = (void *)a;

		if (!bad)
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*m), size), 8,
				   offsetof(typeof(*m), offset), 8);
		break;
	}
	case NEURON_IOCTL_MEM_COPY:
	case NEURON_IOCTL_MEM_COPY_ASYNC: {
		struct neuron_ioctl_mem_copy *m = (void *)a;

		if (!bad) {
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*m), size), 4,
				   offsetof(typeof(*m), src_offset), 4);
			clamp_copy(w, a, chunk_at(w, a, 8), offsetof(typeof(*m), size), 4,
				   offsetof(typeof(*m), dst_offset), 4);
		}
		break;
	}
	case NEURON_IOCTL_MEM_COPY64:
	case NEURON_IOCTL_MEM_COPY_ASYNC64: {
		struct neuron_ioctl_mem_copy64 *m = (void *)a;

		if (!bad) {
			clamp_copy(w, a, chunk_at(w, a, 0), offsetof(typeof(*m), size), 8,
				   offsetof(typeof(*m), src_offset), 8);
			clamp_copy(w, a, chunk_at(w, a, 8), offsetof(typeof(*m), size), 8,
				   offsetof(typeof(*m), dst_offset), 8);
		}
		break;
	}
	case NEURON_IOCTL_PROGRAM_ENGINE:
	case NEURON_IOCTL_PROGRAM_ENGINE_NC:
	case NEURON_IOCTL_PROGRAM_ENGINE_NC64: {
		size_t off = c->cmd == NEURON_IOCTL_PROGRAM_ENGINE ? 8 : 16;
		size_t sz = c->cmd == NEURON_IOCTL_PROGRAM_ENGINE_NC64 ? 8 : 4;
		__u64 size = get_field(a, off + 8, sz);

		if (!bad) {
			if (size > 4096)
				size = 1 + rn(w, 4096);
			put_field(a, &(struct nf_fld){ off + 8, sz, 0 }, size);
			put_field(a, &(struct nf_fld){ off + 8 + sz, sz, 0 }, 0);
		}
		if (!bad || one_in(w, 2))
			put_field(a, &(struct nf_fld){ off, 8, 0 }, ptr_ok(w, size));
		break;
	}
	case NEURON_IOCTL_DMA_COPY_DESCRIPTORS:
	case NEURON_IOCTL_DMA_COPY_DESCRIPTORS64: {
		struct neuron_ioctl_dma_copy_descriptors *d = (void *)a;

		if (!bad || one_in(w, 2))
			d->buffer = (void *)(unsigned long)ptr_ok(w, 16 * (d->num_descs & 0xffff));
		if (!bad) {
			d->queue_type = rn(w, 2);
			fill_descs(w, d->buffer, d->num_descs & 0xffff, d->queue_type);
		}
		break;
	}
	case NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT: {
		struct neuron_ioctl_dma_descriptor_copyout *d = (void *)a;

		if (!bad || one_in(w, 2))
			d->buffer = (void *)(unsigned long)ptr_ok(w, 16 * (d->count & 0xffff));
		break;
	}
	case NEURON_IOCTL_DUMP_MEM_CHUNKS: {
		struct neuron_ioctl_dump_mem_chunks *d = (void *)a;

		if (!bad || one_in(w, 2))
			d->data = (void *)(unsigned long)ptr_ok(w, 24 * (d->num_entries_in &
									   0xffff));
		break;
	}
	case NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP: {
		struct neuron_ioctl_get_logical_to_physical_nc_map *m = (void *)a;

		if (!bad || one_in(w, 2))
			m->map = (void *)(unsigned long)ptr_ok(w, 4 + 8 * (m->max_map_entries &
									     0xff));
		break;
	}
	case NEURON_IOCTL_PRINTK: {
		struct neuron_ioctl_printk *p = (void *)a;
		unsigned int n = bad ? p->size : 1 + rn(w, 80);
		unsigned int m = n > 4096 ? 4096 : n ? n : 1;
		char *s;

		if (!bad || one_in(w, 2)) {
			s = (char *)(unsigned long)ptr_ok(w, m);
			fill_rand(w, s, m);
			if (!bad || one_in(w, 2))
				s[m - 1] = 0;
			p->buffer = s;
		}
		if (!bad)
			p->size = n;
		break;
	}
	case NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES:
		fix_batches(w, a, bad);
		break;
	case NEURON_IOCTL_DMA_QUEUE_INIT_BATCH:
		fix_queue_batch(w, a, bad);
		break;
	case NEURON_IOCTL_CRWL_NC_RANGE_MARK:
	case NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0: {
		struct neuron_ioctl_crwl_nc_map *m = (void *)a;

		if (!bad) {
			m->start_nc_index = w->index * w->ncs;
			m->end_nc_index = m->start_nc_index + w->ncs - 1;
			m->nc_count = 1 + rn(w, 2);
		}
		break;
	}
	case NEURON_IOCTL_DMA_QUEUE_INIT: {
		struct neuron_ioctl_dma_queue_init *q = (void *)a;

		if (!bad && w->nlive) {
			q->eng_id = rn(w, w->user_engines);
			q->qid = rn(w, 16);
		}
		break;
	}
	}
}

/* ------------------------------------------------------------- harvesting */

/* Read a __u64 the kernel wrote at user address @p, if it is in our scratch area. */
static int scr_u64(struct nf_w *w, __u64 p, __u64 *v)
{
	if (p < (unsigned long)w->scr || p + 8 > (unsigned long)(w->scr + NF_SCRATCH))
		return -1;
	memcpy(v, (void *)(unsigned long)p, 8);
	return 0;
}

static void add_chunk(struct nf_w *w, __u64 h, __u64 size, int host)
{
	struct nf_chunk *c;

	if (w->nlive == NF_MAXLIVE || live_find(w, h))
		return;
	c = &w->live[w->nlive++];
	c->h = h;
	c->size = (size + NF_PAGE - 1) & ~(NF_PAGE - 1);
	c->host = host;
	c->pa = 0;
	c->pa_known = 0;
}

static void learn_pa(struct nf_w *w, __u64 h, __u64 pa, __u64 moff)
{
	struct nf_chunk *c = live_find(w, h);
	__u64 size = c ? c->size : NF_PAGE;

	if (c) {
		c->pa = pa;
		c->pa_known = 1;
	}
	pool_add(&w->pas, pa, size);
	pool_add(&w->moffs, moff, size);
}

/*
 * Where a chunk just allocated is, as a runtime asks next, half the time:
 * its mmap offset then serves later mmaps (not counted as an operation).
 */
static void learn_new_chunk(struct nf_w *w, int fd)
{
	struct neuron_ioctl_mem_get_info gi;
	__u64 pa = 0, moff = 0;

	if (!w->nlive || one_in(w, 2))
		return;
	memset(&gi, 0, sizeof(gi));
	gi.mem_handle = w->live[w->nlive - 1].h;
	gi.pa = &pa;
	gi.mmap_offset = &moff;
	if (!ioctl(fd, NEURON_IOCTL_MEM_GET_INFO, &gi))
		learn_pa(w, gi.mem_handle, pa, moff);
}

/* What a successful command answered: handles, offsets and ids for later operations. */
static void harvest(struct nf_w *w, const struct nf_cmd *c, const unsigned char *a)
{
	__u64 v, v2;
	unsigned int i;

	switch (c->cmd) {
	case NEURON_IOCTL_MEM_ALLOC: {
		const struct neuron_ioctl_mem_alloc *m = (const void *)a;

		if (!scr_u64(w, (unsigned long)m->mem_handle, &v))
			add_chunk(w, v, m->size, !!m->host_memory);
		break;
	}
	case NEURON_IOCTL_MEM_ALLOC_V2:
	case NEURON_IOCTL_MEM_ALLOC_V2MT:
	case NEURON_IOCTL_MEM_ALLOC_V2MT64: {
		const struct neuron_ioctl_mem_alloc_v2 *m = (const void *)a;
		__u64 p = get_field(a, c->cmd == NEURON_IOCTL_MEM_ALLOC_V2 ? 32 : 40, 8);

		if (!scr_u64(w, p, &v))
			add_chunk(w, v, m->size, !!m->host_memory);
		break;
	}
	case NEURON_IOCTL_MEM_FREE:
		live_drop(w, get_field(a, 0, 8));
		break;
	case NEURON_IOCTL_MEM_GET_PA: {
		const struct neuron_ioctl_mem_get_pa *m = (const void *)a;

		if (!scr_u64(w, (unsigned long)m->pa, &v))
			learn_pa(w, m->mem_handle, v, v);
		break;
	}
	case NEURON_IOCTL_MEM_GET_INFO: {
		const struct neuron_ioctl_mem_get_info *m = (const void *)a;

		if (!scr_u64(w, (unsigned long)m->pa, &v) &&
		    !scr_u64(w, (unsigned long)m->mmap_offset, &v2))
			learn_pa(w, m->mem_handle, v, v2);
		break;
	}
	case NEURON_IOCTL_MEM_GET_EXTENDED_INFO: {
		const struct neuron_ioctl_mem_get_extended_info *m = (const void *)a;

		learn_pa(w, m->mem_handle, m->pa, m->mmap_offset);
		break;
	}
	case NEURON_IOCTL_MEM_MC_GET_INFO:
	case NEURON_IOCTL_MEM_MC_GET_INFO_V2: {
		const struct neuron_ioctl_mem_get_mc_mmap_info *m = (const void *)a;

		pool_add(&w->moffs, m->mmap_offset, m->size);
		break;
	}
	case NEURON_IOCTL_NOTIFICATIONS_INIT_V1: {
		const struct neuron_ioctl_notifications_init_v1 *n = (const void *)a;

		pool_add(&w->moffs, n->mmap_offset, n->size);
		break;
	}
	case NEURON_IOCTL_NOTIFICATIONS_INIT_V2: {
		const struct neuron_ioctl_notifications_init_v2 *n = (const void *)a;

		pool_add(&w->moffs, n->mmap_offset, n->size);
		pool_add(&w->stale, n->mem_handle, n->size);
		break;
	}
	case NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2: {
		const struct neuron_ioctl_notifications_init_with_realloc_v2 *n = (const void *)a;

		pool_add(&w->moffs, n->mmap_offset, n->size);
		pool_add(&w->stale, n->mem_handle, n->size);
		break;
	}
	case NEURON_IOCTL_ACQUIRE_NEURON_DS: {
		const struct neuron_ioctl_neuron_ds_info *d = (const void *)a;

		pool_add(&w->moffs, d->mmap_offset, d->size);
		break;
	}
	case NEURON_IOCTL_RESOURCE_MMAP_INFO: {
		const struct neuron_ioctl_resource_mmap_info *r = (const void *)a;

		pool_add(&w->moffs, r->offset, r->size);
		break;
	}
	case NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES: {
		const struct neuron_ioctl_get_async_h2t_dma_compl_queues *q = (const void *)a;

		for (i = 0; i < 16; i++)
			if (q->compl_queue_info[i].mmap_size)
				pool_add(&w->moffs, q->compl_queue_info[i].mmap_offset,
					 q->compl_queue_info[i].mmap_size);
		break;
	}
	case NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES: {
		const struct neuron_ioctl_h2t_dma_alloc_queues *q = (const void *)a;

		for (i = 0; i < 32; i++)
			if (q->copy_queue_bmap & (1U << i))
				pool_add(&w->qids, i, 0);
		break;
	}
	case NEURON_IOCTL_NC_RESET: {
		const struct neuron_ioctl_device_reset *r = (const void *)a;

		pool_add(&w->reqs, r->request_id, 0);
		break;
	}
	case NEURON_IOCTL_MEM_COPY_ASYNC:
	case NEURON_IOCTL_MEM_COPY_ASYNC64: {
		size_t off = c->cmd == NEURON_IOCTL_MEM_COPY_ASYNC ?
			offsetof(struct neuron_ioctl_mem_copy_async, wait_handle) :
			offsetof(struct neuron_ioctl_mem_copy_async64, wait_handle);

		pool_add(&w->waits, get_field(a, off, 4), 0);
		break;
	}
	case NEURON_IOCTL_DMA_QUEUE_INIT: {
		const struct neuron_ioctl_dma_queue_init *q = (const void *)a;

		pool_add(&w->engq, (__u64)q->eng_id << 16 | q->qid, 0);
		break;
	}
	case NEURON_IOCTL_CRWL_NC_RANGE_MARK:
	case NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0: {
		const struct neuron_ioctl_crwl_nc_map *m = (const void *)a;

		pool_add(&w->marks, m->bitmap, 0);
		break;
	}
	case NEURON_IOCTL_DMABUF_FD: {
		const struct neuron_ioctl_dmabuf_fd *d = (const void *)a;
		int fd;

		if (scr_u64(w, (unsigned long)d->fd, &v))
			break;
		fd = (int)(__u32)v;
		i = rn(w, NF_MAXFDS);
		if (w->bufs[i] >= 0)
			close(w->bufs[i]);
		w->bufs[i] = fd;
		break;
	}
	case NEURON_IOCTL_DEVICE_INFO: {
		const struct neuron_ioctl_device_info *d = (const void *)a;

		w->bar_base = d->bar_address[0];
		w->bar_size = d->bar_size[0];
		break;
	}
	case NEURON_IOCTL_DUMP_MEM_CHUNKS: {
		const struct neuron_ioctl_dump_mem_chunks *d = (const void *)a;
		const struct neuron_ioctl_mem_chunk_info *ci = d->data;
		unsigned long p = (unsigned long)ci;

		if (p < (unsigned long)w->scr || p + 24 * 4 > (unsigned long)(w->scr + NF_SCRATCH))
			break;
		for (i = 0; i < d->num_entries_out && i < d->num_entries_in && i < 4; i++)
			pool_add(&w->pas, ci[i].pa, ci[i].size);
		break;
	}
	}
}

/* ----------------------------------------------------------------- records */

static struct nf_proc *me(struct nf_w *w)
{
	return &nf_sh->proc[w->id];
}

static void begin(struct nf_w *w, int row, unsigned int cmd, const void *arg, size_t len)
{
	struct nf_proc *p = me(w);
	struct nf_rec *r;

	if (w->child)
		return;
	r = &p->ring[p->pos % NF_RING];
	memset(r, 0, sizeof(*r));
	r->idx = w->opi;
	r->row = row;
	r->cmd = cmd;
	r->ret = 1;		/* still running */
	if (arg && len)
		memcpy(r->arg, arg, len < sizeof(r->arg) ? len : sizeof(r->arg));
	__atomic_store_n(&p->start_ms, now_ms(), __ATOMIC_RELEASE);
	__atomic_store_n(&p->idx, w->opi, __ATOMIC_RELEASE);
	__atomic_store_n(&p->busy, 1, __ATOMIC_RELEASE);
}

static const char *row_name(int row)
{
	return row < NF_NCMDS ? nf_cmds[row].name : nf_op_names[row - NF_NCMDS];
}

/* The end of an operation: @ret (<0: failed with @err), its column in the table. */
static void end(struct nf_w *w, int row, long ret, int err, long t0)
{
	struct nf_proc *p = me(w);
	int col;

	if (ret < 0)
		col = err < NF_EMAX ? err : NF_C_BIG;
	else
		col = ret > 0 ? NF_C_POS : 0;
	count(row, col);
	if (now_ms() - t0 > nf_cfg.alarm_s * 1000L)
		count(row, NF_C_SLOW);
	if (col == NF_C_BIG) {
		fprintf(stderr, "# FAIL: worker %d op %llu: %s: kernel-internal errno %d\n", w->id,
			(unsigned long long)w->opi, row_name(row), err);
		__atomic_fetch_add(&nf_sh->failures, 1, __ATOMIC_RELAXED);
	}
	if (nf_cfg.trace)
		fprintf(stderr, "# w%d%s op %llu: %s -> %ld%s%s\n", w->id, w->child ? "c" : "",
			(unsigned long long)w->opi, row_name(row), ret < 0 ? -1L : ret,
			ret < 0 ? " " : "", ret < 0 ? strerror(err) : "");
	if (w->child)
		return;
	p->ring[p->pos % NF_RING].ret = ret < 0 ? -1 : (int)ret;
	p->ring[p->pos % NF_RING].err = ret < 0 ? err : 0;
	p->pos++;
	__atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
}

static void arm(void)
{
	alarm(nf_cfg.alarm_s);
}

/* ------------------------------------------------------------ device files */

static void gen_info(struct nf_w *w, int gen)
{
	w->gen = gen;
	w->ncs = gen == 2 ? 2 : 8;
	w->nhbm = gen == 2 ? 2 : 4;
	w->user_engines = gen == 2 ? 32 : 128;
	w->engines = gen == 2 ? 34 : 132;
}

/* Device index of simulated device @slot, or the slot when it is not known. */
static int slot_index(int slot)
{
	char buf[32];

	if (nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", slot) ||
	    atoi(buf) < 0)
		return slot;
	return atoi(buf);
}

static int open_dev(struct nf_w *w, int index, int flags)
{
	char path[64];
	long t0 = now_ms();
	int fd, err;

	snprintf(path, sizeof(path), NF_DEV_FMT, index);
	begin(w, NF_NCMDS + OP_OPEN, flags, path, strlen(path));
	arm();
	fd = open(path, flags);
	err = errno;
	alarm(0);
	end(w, NF_NCMDS + OP_OPEN, fd < 0 ? -1 : 0, err, t0);
	return fd;
}

static void close_fd(struct nf_w *w, int *fd)
{
	long t0 = now_ms();
	int ret, err;

	if (*fd < 0)
		return;
	begin(w, NF_NCMDS + OP_CLOSE, *fd, NULL, 0);
	arm();
	ret = close(*fd);
	err = errno;
	alarm(0);
	end(w, NF_NCMDS + OP_CLOSE, ret, err, t0);
	*fd = -1;
}

/* Learn what the device open as w->fd is: generation, index, register base. */
static void probe(struct nf_w *w)
{
	struct neuron_ioctl_device_basic_info bi;
	struct neuron_ioctl_host_device_id hid;
	struct neuron_ioctl_device_info di;
	int fd = w->fd >= 0 ? w->fd : w->wfd;

	if (fd < 0)
		return;
	arm();
	if (!ioctl(fd, NEURON_IOCTL_DEVICE_BASIC_INFO, &bi) && bi.architecture >= 2 &&
	    bi.architecture <= 4)
		gen_info(w, bi.architecture);
	if (w->fd >= 0 && !ioctl(w->fd, NEURON_IOCTL_HOST_DEVICE_ID, &hid))
		w->index = hid.host_device_id;
	memset(&di, 0, sizeof(di));
	if (w->fd >= 0 && !ioctl(w->fd, NEURON_IOCTL_DEVICE_INFO, &di)) {
		w->bar_base = di.bar_address[0];
		w->bar_size = di.bar_size[0];
	}
	alarm(0);
}

/* (Re)open the device of slot @slot on both lanes. */
static void attach(struct nf_w *w, int slot)
{
	int gen = nf_gens[slot][1] - '0';

	close_fd(w, &w->fd);
	close_fd(w, &w->wfd);
	live_forget(w);
	w->slot = slot;
	w->index = slot_index(slot);
	gen_info(w, gen);
	/* O_RDWR as the runtime opens it, so that shared mappings can be writable. */
	w->fd = open_dev(w, w->index, one_in(w, 4) ? O_RDONLY : O_RDWR);
	w->wfd = open_dev(w, w->index, O_WRONLY | (one_in(w, 4) ? O_NONBLOCK : 0));
	probe(w);
}

/* ---------------------------------------------------------------- ioctls */

static int pick_cmd(struct nf_w *w)
{
	unsigned int total = 0, r;
	int i;

	for (i = 0; i < NF_NCMDS; i++)
		if (!nf_cfg.skip_cmd[i])
			total += nf_cmds[i].weight;
	if (!total)
		return -1;
	r = rn(w, total);
	for (i = 0; i < NF_NCMDS; i++) {
		if (nf_cfg.skip_cmd[i])
			continue;
		if (r < nf_cmds[i].weight)
			return i;
		r -= nf_cmds[i].weight;
	}
	return -1;
}

static int is_alloc(unsigned int cmd)
{
	return cmd == NEURON_IOCTL_MEM_ALLOC || cmd == NEURON_IOCTL_MEM_ALLOC_V2 ||
	       cmd == NEURON_IOCTL_MEM_ALLOC_V2MT || cmd == NEURON_IOCTL_MEM_ALLOC_V2MT64;
}

static int cmd_row(unsigned int cmd)
{
	int i;

	for (i = 0; i < NF_NCMDS; i++)
		if (nf_cmds[i].cmd == cmd)
			return i;
	return -1;
}

/*
 * Place @len bytes of @a where the ioctl will find them: in the argument
 * area, ending right before its guard page or a little earlier; when @bad,
 * sometimes across the guard, in a read-only page, or nowhere.
 */
static unsigned long place(struct nf_w *w, const unsigned char *a, size_t len, int bad)
{
	size_t tail = one_in(w, 2) ? 0 : rn(w, 64) * 8;
	unsigned char *p;

	if (bad) {
		switch (rn(w, 10)) {
		case 0:
			return 0;
		case 1:
			return ptr_any(w, len, 1);
		case 2:
			if (len > NF_PAGE)
				break;
			if (mprotect(w->ro, NF_PAGE, PROT_READ | PROT_WRITE))
				break;
			memcpy(w->ro + NF_PAGE - len, a, len);
			mprotect(w->ro, NF_PAGE, PROT_READ);
			return (unsigned long)(w->ro + NF_PAGE - len);
		case 3: {	/* its last @k bytes fall in the guard page */
			size_t k = len ? 1 + rn(w, len) : 0;

			p = w->argarea + NF_ARGAREA - len + k;
			memcpy(p, a, len - k);
			return (unsigned long)p;
		}
		case 4:
			tail += 1 + rn(w, 7);
			break;
		}
	}
	if (len + tail > NF_ARGAREA)
		tail = 0;
	p = w->argarea + NF_ARGAREA - len - tail;
	memcpy(p, a, len);
	return (unsigned long)p;
}

static int pick_fd(struct nf_w *w, const struct nf_cmd *c)
{
	unsigned int r = rn(w, 100);

	if (r < 8 || (c->gate == G_ANY && r < 30))
		return w->wfd;
	if (r < 12 && w->fd2 >= 0)
		return w->fd2;
	return w->fd;
}

static void op_ioctl(struct nf_w *w)
{
	static unsigned char a[NF_MAXARG];
	const struct nf_cmd *c;
	int i, row, bad, fd, err;
	unsigned long arg;
	size_t len;
	long ret, t0;

	row = pick_cmd(w);
	if (row < 0)
		return;
	c = &nf_cmds[row];
	/* Keep the memory a worker holds bounded: free before allocating more. */
	if (is_alloc(c->cmd) && w->nlive >= NF_MAXLIVE - 2) {
		row = cmd_row(NEURON_IOCTL_MEM_FREE);
		c = &nf_cmds[row];
	}
	/* 3 in 8 look right, 3 in 8 have one field wrong, 1 in 4 are wild. */
	bad = rn(w, 8);
	bad = bad < 3 ? 0 : bad < 6 ? 1 : 2;
	len = c->argsz;
	memset(a, 0, len);
	if (bad && w->have_last[row] && len <= NF_LAST && one_in(w, 2)) {
		/* Mutate the last argument that was accepted. */
		memcpy(a, w->last[row], len);
		for (i = 0; i < 1 + (int)rn(w, 3); i++) {
			if (c->f[0].size && one_in(w, 2)) {
				int nf = 0;

				while (c->f[nf].size)
					nf++;
				fill_field(w, c, a, &c->f[rn(w, nf)], 1);
			} else if (len) {
				a[rn(w, len)] ^= 1 << rn(w, 8);
			}
		}
	} else {
		if (bad == 2)
			fill_rand(w, a, len);
		for (i = 0; c->f[i].size; i++)
			fill_field(w, c, a, &c->f[i], bad == 2 || (bad == 1 && one_in(w, 3)));
		fixup(w, c, a, &len, bad == 2);
	}
	if (c->cmd == NEURON_IOCTL_MEM_FREE && !bad && w->nlive)
		memcpy(a, &w->live[0].h, 8);
	arg = place(w, a, len, bad == 2 && one_in(w, 4));
	fd = pick_fd(w, c);
	if (nf_cfg.trace) {
		fprintf(stderr, "# w%d%s op %llu: %s fd %d arg %#lx len %zu:", w->id,
			w->child ? "c" : "", (unsigned long long)w->opi, c->name, fd, arg, len);
		for (i = 0; i < (int)len && i < 64; i++)
			fprintf(stderr, "%s%02x", i % 8 ? "" : " ", a[i]);
		fprintf(stderr, "\n");
	}
	begin(w, row, c->cmd, a, len);
	t0 = now_ms();
	arm();
	ret = ioctl(fd, c->cmd, arg);
	err = errno;
	alarm(0);
	end(w, row, ret, err, t0);
	if (ret)
		return;
	if (arg >= (unsigned long)w->argarea && arg < (unsigned long)w->argarea + NF_ARGAREA &&
	    arg + len <= (unsigned long)w->argarea + NF_ARGAREA) {
		harvest(w, c, (const unsigned char *)arg);
		if (is_alloc(c->cmd))
			learn_new_chunk(w, fd);
	}
	if (len <= NF_LAST) {
		memcpy(w->last[row], a, len);
		w->have_last[row] = 1;
	}
}

/* An encoding the ABI does not have: another size, direction or number, or another type. */
static void op_raw(struct nf_w *w)
{
	static unsigned char a[NF_MAXARG];
	unsigned int cmd, dir, size, nr, type;
	int row, err, fd;
	unsigned long arg;
	long ret, t0;

	do {
		const struct nf_cmd *c = &nf_cmds[rn(w, NF_NCMDS)];

		dir = _IOC_DIR(c->cmd);
		size = _IOC_SIZE(c->cmd);
		nr = _IOC_NR(c->cmd);
		type = 'N';
		switch (rn(w, 6)) {
		case 0:
			size = rn(w, 1 << 14);
			break;
		case 1:
			dir = rn(w, 4);
			break;
		case 2:
			nr = rn(w, 256);
			break;
		case 3:
			size = size + 1 - 2 * rn(w, 2);
			break;
		case 4:
			dir = rn(w, 4);
			size = rn(w, 64);
			nr = rn(w, 256);
			break;
		default:
			/* Not a type the VFS answers itself (FIFREEZE, FICLONE, FIONBIO, ...). */
			do {
				type = rn(w, 256);
			} while (type == 'N' || type == 0 || type == 0x15 || type == 'T' ||
				 type == 'X' || type == 'f' || type == 0x94);
			break;
		}
		cmd = _IOC(dir, type, nr, size & _IOC_SIZEMASK);
	} while (cmd_row(cmd) >= 0);
	row = NF_NCMDS + (type == 'N' ? OP_RAW_N : OP_RAW_X);
	fill_rand(w, a, 512);
	arg = one_in(w, 4) ? ptr_any(w, 64, 1) : place(w, a, 512, 0);
	fd = one_in(w, 4) ? w->wfd : w->fd;
	begin(w, row, cmd, NULL, 0);
	t0 = now_ms();
	arm();
	ret = ioctl(fd, cmd, arg);
	err = errno;
	alarm(0);
	end(w, row, ret, err, t0);
	/* The dispatcher answers ENOTTY to every encoding it does not have. */
	if (fd >= 0 && !(ret < 0 && (err == ENOTTY || err == EBADF))) {
		fprintf(stderr, "# FAIL: worker %d op %llu: command %#x (not in the ABI): %ld %s\n",
			w->id, (unsigned long long)w->opi, cmd, ret, ret < 0 ? strerror(err) : "");
		__atomic_fetch_add(&nf_sh->failures, 1, __ATOMIC_RELAXED);
	}
}

/* ---------------------------------------------------------------- mappings */

static struct nf_map *map_slot(struct nf_w *w)
{
	int i = rn(w, NF_MAXMAPS);

	if (w->maps[i].p) {
		munmap(w->maps[i].p, w->maps[i].len);
		w->maps[i].p = NULL;
	}
	return &w->maps[i];
}

static void do_mmap(struct nf_w *w, int fd, __u64 off, size_t len, int row)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	int prot = prots[rn(w, ARRAY_SIZE(prots))];
	int flags = one_in(w, 10) ? MAP_PRIVATE : MAP_SHARED;
	struct nf_map *m = map_slot(w);
	long t0 = now_ms();
	void *p;
	int err;

	if (one_in(w, 20))
		flags |= MAP_POPULATE;
	begin(w, row, fd, &off, sizeof(off));
	arm();
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	err = errno;
	alarm(0);
	end(w, row, p == MAP_FAILED ? -1 : 0, err, t0);
	if (p == MAP_FAILED)
		return;
	m->p = p;
	m->len = len;
	m->prot = prot;
}

static void op_mmap(struct nf_w *w)
{
	__u64 off, len;
	int fd = one_in(w, 12) ? w->wfd : w->fd;

	if (pool_pick(w, &w->moffs, &off, &len) || one_in(w, 6)) {
		off = one_in(w, 2) ? rn(w, 1ULL << 40) : boundary(w);
		off &= ~(NF_PAGE - 1);
		len = NF_PAGE * (1 + rn(w, 4));
	}
	if (!len || len > (64ULL << 20))
		len = NF_PAGE;
	/* One in four mutated: one page, a page more, shifted a page, a byte more. */
	switch (rn(w, 8) + 4 * one_in(w, 2)) {
	case 0:
		len = NF_PAGE;
		break;
	case 1:
		len += NF_PAGE;
		break;
	case 2:
		off += NF_PAGE;
		break;
	case 3:
		len = len + 1;
		break;
	}
	len = (len + NF_PAGE - 1) & ~(NF_PAGE - 1);
	do_mmap(w, fd, off, len, NF_NCMDS + OP_MMAP);
}

static void op_dmabuf(struct nf_w *w)
{
	int i = rn(w, NF_MAXFDS);

	if (w->bufs[i] < 0)
		return;
	if (one_in(w, 3)) {
		close(w->bufs[i]);
		w->bufs[i] = -1;
		return;
	}
	do_mmap(w, w->bufs[i], one_in(w, 4) ? NF_PAGE : 0, NF_PAGE * (1 + rn(w, 2)),
		NF_NCMDS + OP_DMABUF_MMAP);
}

static void op_munmap(struct nf_w *w)
{
	struct nf_map *m = &w->maps[rn(w, NF_MAXMAPS)];
	long t0 = now_ms();
	int ret, err;

	if (!m->p)
		return;
	begin(w, NF_NCMDS + OP_MUNMAP, 0, NULL, 0);
	arm();
	if (m->len > NF_PAGE && one_in(w, 3)) {
		/* A part: the first page; the rest stays mapped. */
		ret = munmap(m->p, NF_PAGE);
		err = errno;
		if (!ret) {
			m->p += NF_PAGE;
			m->len -= NF_PAGE;
		}
	} else {
		ret = munmap(m->p, m->len);
		err = errno;
		m->p = NULL;
	}
	alarm(0);
	end(w, NF_NCMDS + OP_MUNMAP, ret, err, t0);
}

static void nf_segv(int sig, siginfo_t *si, void *uc)
{
	char msg[128];
	int n;

	if (__atomic_load_n(&nf_in_touch, __ATOMIC_ACQUIRE))
		siglongjmp(nf_jb, sig);
	/* Not expected here: say where (we die of it anyway), then die of it. */
	n = snprintf(msg, sizeof(msg), "# pid %d: signal %d at address %p, code %d\n", getpid(),
		     sig, si->si_addr, si->si_code);
	if (write(2, msg, n) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void op_touch(struct nf_w *w)
{
	struct nf_map *m = &w->maps[rn(w, NF_MAXMAPS)];
	unsigned int i, n = 1 + rn(w, 8);
	long t0 = now_ms();
	int sig, col;
	size_t off[8];
	int wr[8];

	if (!m->p)
		return;
	for (i = 0; i < n; i++) {
		off[i] = rn(w, m->len) & ~7UL;
		wr[i] = one_in(w, 2);
	}
	begin(w, NF_NCMDS + OP_TOUCH, m->prot, NULL, 0);
	arm();
	sig = sigsetjmp(nf_jb, 1);
	if (!sig) {
		__atomic_store_n(&nf_in_touch, 1, __ATOMIC_RELEASE);
		for (i = 0; i < n; i++) {
			__u64 *p = (__u64 *)(m->p + off[i]);

			if (wr[i])
				__atomic_store_n(p, 0x5a5a5a5a5a5a5a5aULL, __ATOMIC_RELAXED);
			else
				(void)__atomic_load_n(p, __ATOMIC_RELAXED);
		}
	}
	__atomic_store_n(&nf_in_touch, 0, __ATOMIC_RELEASE);
	alarm(0);
	col = sig == SIGBUS ? NF_C_SIGBUS : sig == SIGSEGV ? NF_C_SIGSEGV : 0;
	end(w, NF_NCMDS + OP_TOUCH, 0, 0, t0);
	if (col) {
		/* end() counted it as a success; move it to the signal's column. */
		__atomic_fetch_sub(&nf_sh->stats[NF_NCMDS + OP_TOUCH][0], 1, __ATOMIC_RELAXED);
		count(NF_NCMDS + OP_TOUCH, col);
	}
}

static void op_vm(struct nf_w *w)
{
	static const int advice[] = {
		MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED,
		MADV_DOFORK, MADV_DONTFORK, MADV_DONTDUMP, MADV_DODUMP, MADV_COLD, MADV_PAGEOUT,
		MADV_FREE, MADV_REMOVE,
	};
	struct nf_map *m = &w->maps[rn(w, NF_MAXMAPS)];
	long ret, t0 = now_ms();
	int row, err;
	void *p;

	if (!m->p)
		return;
	switch (rn(w, 3)) {
	case 0:
		row = NF_NCMDS + OP_MPROTECT;
		begin(w, row, 0, NULL, 0);
		arm();
		ret = mprotect(m->p, m->len, one_in(w, 2) ? PROT_READ | PROT_WRITE : PROT_READ);
		err = errno;
		break;
	case 1:
		row = NF_NCMDS + OP_MADVISE;
		begin(w, row, 0, NULL, 0);
		arm();
		ret = madvise(m->p, m->len, advice[rn(w, ARRAY_SIZE(advice))]);
		err = errno;
		break;
	default:
		row = NF_NCMDS + OP_MREMAP;
		begin(w, row, 0, NULL, 0);
		arm();
		p = mremap(m->p, m->len, one_in(w, 2) ? m->len * 2 : m->len, MREMAP_MAYMOVE);
		err = errno;
		ret = p == MAP_FAILED ? -1 : 0;
		if (p != MAP_FAILED)
			m->p = p;
		break;
	}
	alarm(0);
	end(w, row, ret, err, t0);
	if (row == NF_NCMDS + OP_MPROTECT && !ret)
		m->prot = PROT_READ | PROT_WRITE;
}

/* ------------------------------------------------------------ files, forks */

static void op_reopen(struct nf_w *w)
{
	switch (rn(w, 4)) {
	case 0:
		close_fd(w, &w->fd);
		live_forget(w);
		w->fd = open_dev(w, w->index, one_in(w, 4) ? O_RDONLY : O_RDWR);
		probe(w);
		break;
	case 1:
		close_fd(w, &w->wfd);
		w->wfd = open_dev(w, w->index, O_WRONLY);
		break;
	case 2:
		close_fd(w, &w->fd2);
		w->fd2 = open_dev(w, slot_index(rn(w, nf_cfg.devices)), O_RDWR);
		break;
	default:
		close_fd(w, &w->fd);
		live_forget(w);
		if (one_in(w, 2))
			close_fd(w, &w->wfd);
		break;
	}
}

static void one_op(struct nf_w *w);
static void print_file(const char *what, int pid, const char *file);

/* A child that does a few operations and exits, or is killed partway. */
static void op_fork(struct nf_w *w)
{
	unsigned int n = 1 + rn(w, 6), i;
	int kill_it = one_in(w, 2), st, col = 0;
	long delay = rn(w, 30000), t0 = now_ms(), deadline;
	pid_t pid;

	begin(w, NF_NCMDS + OP_FORK, 0, NULL, 0);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		end(w, NF_NCMDS + OP_FORK, -1, errno, t0);
		return;
	}
	if (!pid) {
		__u64 opi = w->opi;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		w->child = 1;
		for (i = 0; i < n; i++) {
			nf_seed_op(w, opi, i + 1);
			one_op(w);
			__atomic_fetch_add(&nf_sh->proc[w->id].child_ops, 1, __ATOMIC_RELAXED);
		}
		_exit(0);
	}
	if (kill_it) {
		usleep(delay);
		kill(pid, SIGKILL);
	}
	/* Half the hang limit, so that this is reported before the worker's own hang. */
	deadline = now_ms() + nf_cfg.hang_s * 500L;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			fprintf(stderr, "# FAIL: worker %d op %llu: child %d runs after %d s\n",
				w->id, (unsigned long long)w->opi, pid, nf_cfg.hang_s / 2);
			__atomic_fetch_add(&nf_sh->failures, 1, __ATOMIC_RELAXED);
			print_file("stuck child", pid, "stack");
			print_file("stuck child", pid, "wchan");
			kill(pid, SIGKILL);
			deadline = now_ms() + 10000;
			while (waitpid(pid, &st, WNOHANG) == 0 && now_ms() < deadline)
				usleep(10000);
			end(w, NF_NCMDS + OP_FORK, -1, ETIMEDOUT, t0);
			return;
		}
		usleep(1000);
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && kill_it) {
		col = NF_C_KILLED;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "# FAIL: worker %d op %llu: forked child %d ended with %s %d\n",
			w->id, (unsigned long long)w->opi, pid,
			WIFSIGNALED(st) ? "signal" : "status",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		__atomic_fetch_add(&nf_sh->failures, 1, __ATOMIC_RELAXED);
	}
	end(w, NF_NCMDS + OP_FORK, 0, 0, t0);
	if (col) {
		__atomic_fetch_sub(&nf_sh->stats[NF_NCMDS + OP_FORK][0], 1, __ATOMIC_RELAXED);
		count(NF_NCMDS + OP_FORK, col);
	}
}

/* One operation of worker @w, from the random stream nf_seed_op() set. */
static void one_op(struct nf_w *w)
{
	unsigned int total = 0, r, cl;

	for (cl = 0; cl < CL_N; cl++)
		if (!nf_cfg.skip_class[cl] && !(w->child && cl == CL_FORK))
			total += nf_class_weight[cl];
	if (!total)
		return;
	r = rn(w, total);
	for (cl = 0; cl < CL_N; cl++) {
		if (nf_cfg.skip_class[cl] || (w->child && cl == CL_FORK))
			continue;
		if (r < nf_class_weight[cl])
			break;
		r -= nf_class_weight[cl];
	}
	/* Without a normal file, most operations would only meet EBADF. */
	if (w->fd < 0 && !w->child && !one_in(w, 8))
		cl = one_in(w, 3) ? CL_REOPEN : CL_SWITCH;
	switch (cl) {
	case CL_IOCTL:
		op_ioctl(w);
		break;
	case CL_RAW:
		op_raw(w);
		break;
	case CL_MMAP:
		op_mmap(w);
		break;
	case CL_MUNMAP:
		op_munmap(w);
		break;
	case CL_TOUCH:
		op_touch(w);
		break;
	case CL_VM:
		op_vm(w);
		break;
	case CL_REOPEN:
		if (w->fd < 0 && !w->child) {
			w->fd = open_dev(w, slot_index(w->slot), O_RDWR);
			if (w->wfd < 0)
				w->wfd = open_dev(w, slot_index(w->slot), O_WRONLY);
			w->index = slot_index(w->slot);
			probe(w);
		} else {
			op_reopen(w);
		}
		break;
	case CL_SWITCH:
		attach(w, rn(w, nf_cfg.devices));
		break;
	case CL_FORK:
		op_fork(w);
		break;
	case CL_DMABUF:
		op_dmabuf(w);
		break;
	}
}

static void *guarded(size_t len, size_t guard)
{
	unsigned char *p = mmap(NULL, len + 2 * guard, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + guard, len, PROT_READ | PROT_WRITE))
		return NULL;
	return p + guard;
}

static void nf_alarm(int sig)
{
}

static void nf_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nf_alarm;	/* no SA_RESTART: the wait ends with EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_sigaction = nf_segv;
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int worker(int id, __u64 ops)
{
	static struct nf_w w;
	__u64 i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	nf_signals();
	memset(&w, 0, sizeof(w));
	w.id = id;
	w.fd = -1;
	w.wfd = -1;
	w.fd2 = -1;
	memset(w.bufs, -1, sizeof(w.bufs));
	w.scr = guarded(NF_SCRATCH, NF_GUARD);
	w.argarea = guarded(NF_ARGAREA, NF_GUARD);
	w.ro = guarded(NF_PAGE, NF_GUARD);
	w.hole = guarded(NF_PAGE, 0);
	if (!w.scr || !w.argarea || !w.ro || !w.hole) {
		fprintf(stderr, "# process %d: cannot map its buffers\n", id);
		return 2;
	}
	munmap(w.hole, NF_PAGE);
	mprotect(w.ro, NF_PAGE, PROT_READ);
	nf_seed_op(&w, ~0ULL, 0);
	fill_rand(&w, w.scr, NF_SCRATCH);
	attach(&w, id % nf_cfg.devices);
	for (i = 0; i < ops; i++) {
		nf_seed_op(&w, i, 0);
		one_op(&w);
		__atomic_store_n(&nf_sh->proc[id].done, i + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* ------------------------------------------------------------- controller */

static int ctl_write(const char *path, const char *val)
{
	return nt_write(path, "%s", val);
}

static int sim_dbg(int slot, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron_sim/neuron_sim%d/%s", slot, file);
	return ctl_write(path, val);
}

#define DMA_MODE	"/sys/module/neuron_sim/parameters/dma_mode"

static int controller(void)
{
	struct nf_w w;
	int id = NF_MAXW, slot, row, ret;
	char path[128], mode[32];
	__u64 i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	nf_signals();
	memset(&w, 0, sizeof(w));
	w.id = id;
	if (nt_read(mode, sizeof(mode), DMA_MODE))
		snprintf(mode, sizeof(mode), "sync");
	for (i = 0; !__atomic_load_n(&nf_sh->stop, __ATOMIC_ACQUIRE); i++) {
		long t0;
		int present;

		nf_seed_op(&w, i, 0);
		usleep(50000 + rn(&w, 250000));
		slot = rn(&w, nf_cfg.devices);
		present = nt_exists(SIM_BUS "/devices/neuron_sim%d", slot);
		t0 = now_ms();
		switch (rn(&w, 20)) {
		case 0 ... 5:
			row = NF_NCMDS + (present ? OP_CTL_DEL : OP_CTL_ADD);
			begin(&w, row, slot, NULL, 0);
			ret = present ? nt_sim_del(slot) : nt_sim_add(slot, nf_gens[slot]);
			break;
		case 6 ... 9:
			row = NF_NCMDS + OP_CTL_RESET;
			begin(&w, row, slot, NULL, 0);
			ret = sim_dbg(slot, "reset", "1");
			break;
		case 10 ... 11:
			row = NF_NCMDS + OP_CTL_SYSFS_RESET;
			begin(&w, row, slot, NULL, 0);
			snprintf(path, sizeof(path), CLASS_DIR "/neuron%d/reset", slot_index(slot));
			ret = ctl_write(path, "1");
			break;
		case 12 ... 13:
			row = NF_NCMDS + OP_CTL_STALL;
			begin(&w, row, slot, NULL, 0);
			ret = sim_dbg(slot, "dma_stall", "1");
			usleep(20000 + rn(&w, 150000));
			if (!ret)
				ret = sim_dbg(slot, "dma_stall", "0");
			break;
		case 14:
			row = NF_NCMDS + OP_CTL_ABORT;
			begin(&w, row, slot, NULL, 0);
			ret = sim_dbg(slot, "dma_abort", "1");
			break;
		case 15:
			row = NF_NCMDS + OP_CTL_MODE;
			begin(&w, row, slot, NULL, 0);
			ret = ctl_write(DMA_MODE, one_in(&w, 2) ? "async" : "sync");
			break;
		case 16:
			row = NF_NCMDS + OP_CTL_FAULT;
			begin(&w, row, slot, NULL, 0);
			ret = sim_dbg(slot, "fault", one_in(&w, 2) ? "reset_fail" : "reset_hang");
			if (!ret)
				ret = sim_dbg(slot, "reset", "1");
			usleep(50000 + rn(&w, 200000));
			sim_dbg(slot, "fault", "none");
			break;
		default:
			if (present)
				continue;
			row = NF_NCMDS + OP_CTL_ADD;
			begin(&w, row, slot, NULL, 0);
			ret = nt_sim_add(slot, nf_gens[slot]);
			break;
		}
		end(&w, row, ret < 0 ? -1 : 0, -ret, t0);
		__atomic_store_n(&nf_sh->proc[id].done, i + 1, __ATOMIC_RELEASE);
	}
	for (slot = 0; slot < nf_cfg.devices; slot++) {
		if (!nt_exists(SIM_BUS "/devices/neuron_sim%d", slot))
			continue;
		sim_dbg(slot, "fault", "none");
		sim_dbg(slot, "dma_stall", "0");
	}
	ctl_write(DMA_MODE, mode);
	return 0;
}

/* ------------------------------------------------------------- supervisor */

static void print_file(const char *what, int pid, const char *file)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "r");
	if (!f)
		return;
	fprintf(stderr, "# %s %d %s:\n", what, pid, file);
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "#   %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
}

/* The last operations of process @i, oldest first. */
static void print_ring(int i)
{
	struct nf_proc *p = &nf_sh->proc[i];
	unsigned int k, j, start = p->pos > NF_RING ? p->pos - NF_RING : 0;

	fprintf(stderr, "# last operations of %s %d (pid %d), oldest first:\n",
		i == NF_MAXW ? "controller" : "worker", i, p->pid);
	for (k = start; k <= p->pos; k++) {
		struct nf_rec *r = &p->ring[k % NF_RING];

		if (k == p->pos && !p->busy)
			break;
		fprintf(stderr, "#   op %llu %s (%#x) -> %s%s:", (unsigned long long)r->idx,
			row_name(r->row), r->cmd, r->ret == 1 ? "(running)" : r->ret ? "-1 " : "0",
			r->ret == -1 ? strerror(r->err) : "");
		for (j = 0; j < sizeof(r->arg); j++)
			fprintf(stderr, "%s%02x", j % 8 ? "" : " ", r->arg[j]);
		fprintf(stderr, "\n");
	}
}

static void fail_proc(int i, const char *why)
{
	struct nf_proc *p = &nf_sh->proc[i];

	fprintf(stderr, "# FAIL: %s %d (pid %d) %s, at its operation %llu\n",
		i == NF_MAXW ? "controller" : "worker", i, p->pid, why,
		(unsigned long long)p->idx);
	print_ring(i);
	__atomic_fetch_add(&nf_sh->failures, 1, __ATOMIC_RELAXED);
}

/* Kill process @i, stuck in an operation; whether it died. */
static int kill_stuck(int i)
{
	struct nf_proc *p = &nf_sh->proc[i];
	long end_ms;
	int st;

	print_file("stuck process", p->pid, "stack");
	print_file("stuck process", p->pid, "wchan");
	kill(p->pid, SIGKILL);
	end_ms = now_ms() + 10000;
	while (now_ms() < end_ms) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid)
			return 1;
		usleep(20000);
	}
	fprintf(stderr, "# FAIL: pid %d does not die of SIGKILL within 10 s\n", p->pid);
	print_file("unkillable process", p->pid, "stack");
	return 0;
}

static void print_table(void)
{
	int row, col;

	fprintf(stderr, "# answers (count per errno; ok = 0 returned):\n");
	for (row = 0; row < NF_ROWS; row++) {
		char line[1024];
		int n = 0;
		__u64 total = 0;

		for (col = 0; col < NF_NCOL; col++)
			if (col != NF_C_SLOW)
				total += nf_sh->stats[row][col];
		if (!total)
			continue;
		n += snprintf(line + n, sizeof(line) - n, "#   %-34s %7llu:", row_name(row),
			      (unsigned long long)total);
		for (col = 0; col < NF_NCOL && n < (int)sizeof(line) - 40; col++) {
			__u64 v = nf_sh->stats[row][col];
			const char *name;

			if (!v)
				continue;
			switch (col) {
			case 0:
				name = "ok";
				break;
			case NF_C_POS:
				name = "positive";
				break;
			case NF_C_BIG:
				name = "INTERNAL";
				break;
			case NF_C_SIGBUS:
				name = "sigbus";
				break;
			case NF_C_SIGSEGV:
				name = "sigsegv";
				break;
			case NF_C_KILLED:
				name = "killed";
				break;
			case NF_C_SLOW:
				name = "slow";
				break;
			default:
				name = strerrorname_np(col);
				break;
			}
			n += snprintf(line + n, sizeof(line) - n, " %s %llu", name ? name : "?",
				      (unsigned long long)v);
		}
		fprintf(stderr, "%s\n", line);
	}
}

static int names_match(const char *list, const char *name)
{
	const char *p = list;
	size_t n = strlen(name);

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* Commands and classes left out of every run unless NEURON_FUZZ_SKIP says otherwise. */
static const char nf_default_skip[] = "";

static void nf_config(void)
{
	const char *skip = getenv("NEURON_FUZZ_SKIP");
	const char *only = getenv("NEURON_FUZZ_ONLY");
	int i;

	memset(&nf_cfg, 0, sizeof(nf_cfg));
	nf_cfg.seed = nt_env_num("NEURON_FUZZ_SEED", 1);
	nf_cfg.ops = nt_env_num("NEURON_FUZZ_OPS", 20000);
	nf_cfg.workers = nt_env_num("NEURON_FUZZ_WORKERS", 4);
	nf_cfg.devices = nt_env_num("NEURON_FUZZ_DEVICES", 4);
	nf_cfg.controller = nt_env_num("NEURON_FUZZ_CONTROLLER", 1);
	nf_cfg.alarm_s = nt_env_num("NEURON_FUZZ_ALARM_S", 5);
	nf_cfg.hang_s = nt_env_num("NEURON_FUZZ_HANG_S", 60);
	nf_cfg.trace = nt_env_num("NEURON_FUZZ_TRACE", 0);
	nf_cfg.only_worker = nt_env_num("NEURON_FUZZ_WORKER", ~0ULL);
	if (nf_cfg.workers < 1)
		nf_cfg.workers = 1;
	if (nf_cfg.workers > NF_MAXW)
		nf_cfg.workers = NF_MAXW;
	if (nf_cfg.devices < 1)
		nf_cfg.devices = 1;
	if (nf_cfg.devices > NF_MAXDEV)
		nf_cfg.devices = NF_MAXDEV;
	if (nf_cfg.alarm_s < 1)
		nf_cfg.alarm_s = 1;
	if (nf_cfg.hang_s < 2 * nf_cfg.alarm_s)
		nf_cfg.hang_s = 2 * nf_cfg.alarm_s;
	if (!skip)
		skip = nf_default_skip;
	for (i = 0; i < NF_NCMDS; i++)
		nf_cfg.skip_cmd[i] = names_match(skip, nf_cmds[i].name) ||
				     (only && !names_match(only, nf_cmds[i].name));
	for (i = 0; i < CL_N; i++)
		nf_cfg.skip_class[i] = names_match(skip, nf_class_names[i]) ||
				       (only && !names_match(only, nf_class_names[i]));
	/* A command named in NEURON_FUZZ_ONLY needs its class. */
	for (i = 0; only && i < NF_NCMDS; i++)
		if (!nf_cfg.skip_cmd[i])
			nf_cfg.skip_class[CL_IOCTL] = names_match(skip, "ioctl");
}

/* Bring up the simulated devices the run uses; 0 when all are ready. */
static int nf_devices_up(void)
{
	char buf[64];
	int slot, ret = 0;

	for (slot = 0; slot < nf_cfg.devices; slot++)
		if (!nt_exists(SIM_BUS "/devices/neuron_sim%d", slot) &&
		    nt_sim_add(slot, nf_gens[slot])) {
			fprintf(stderr, "# cannot add simulated device %d (%s)\n", slot,
				nf_gens[slot]);
			ret = -1;
		}
	for (slot = 0; slot < nf_cfg.devices; slot++)
		if (strcmp(nt_sim_settle(slot, buf, sizeof(buf), 20000), "ready")) {
			fprintf(stderr, "# simulated device %d: %s\n", slot, buf);
			ret = -1;
		}
	return ret;
}

/*
 * After the run: with every device removed and one added afresh, a new
 * process allocates, copies and frees.  0 when it worked.
 */
static int nf_after(void)
{
	struct neuron_ioctl_mem_alloc_v2 a;
	struct neuron_ioctl_mem_buf_copy64 b;
	struct neuron_ioctl_mem_free f;
	unsigned char buf[4096], back[4096];
	__u64 h = 0;
	char st[64];
	int fd, ret = -1, i;

	if (nt_driver_down()) {
		fprintf(stderr, "# FAIL: simulated devices left after deleting them all\n");
		return -1;
	}
	if (nt_sim_add(0, "v3") || strcmp(nt_sim_settle(0, st, sizeof(st), 20000), "ready")) {
		fprintf(stderr, "# FAIL: a new device after the run: %s\n", st);
		return -1;
	}
	fd = open("/dev/neuron0", O_RDONLY);
	if (fd < 0)
		goto out;
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = i * 7;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(buf);
	a.mem_handle = &h;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(buf);
	b.copy_to_mem_handle = 1;
	b.buffer = buf;
	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a))
		goto out_close;
	b.mem_handle = h;
	if (ioctl(fd, NEURON_IOCTL_MEM_BUF_COPY64, &b))
		goto out_close;
	b.buffer = back;
	b.copy_to_mem_handle = 0;
	if (ioctl(fd, NEURON_IOCTL_MEM_BUF_COPY64, &b) || memcmp(buf, back, sizeof(buf)))
		goto out_close;
	f.mem_handle = h;
	if (ioctl(fd, NEURON_IOCTL_MEM_FREE, &f))
		goto out_close;
	ret = 0;
out_close:
	close(fd);
out:
	if (ret)
		fprintf(stderr, "# FAIL: a new process after the run: %s\n", strerror(errno));
	if (nt_driver_down())
		ret = -1;
	return ret;
}

/*
 * The whole run, in the calling process (root, driver loaded with
 * neuron_sim): 0 when nothing failed.  Prints the seed, the rate and the
 * table of answers.
 */
static int nf_run(void)
{
	int i, st, left, failures;
	__u64 per, done = 0, child_ops = 0, ctl_ops;
	long t0, t1, last_print;
	pid_t pid;

	nf_config();
	nf_sh = mmap(NULL, sizeof(*nf_sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (nf_sh == MAP_FAILED)
		return -1;
	memset(nf_sh, 0, sizeof(*nf_sh));
	fprintf(stderr, "# neuron_fuzz: seed %#llx, %llu operations, %d workers, %d devices (",
		(unsigned long long)nf_cfg.seed, (unsigned long long)nf_cfg.ops, nf_cfg.workers,
		nf_cfg.devices);
	for (i = 0; i < nf_cfg.devices; i++)
		fprintf(stderr, "%s%s", i ? " " : "", nf_gens[i]);
	fprintf(stderr, "), controller %s, alarm %d s, hang %d s\n",
		nf_cfg.controller ? "on" : "off", nf_cfg.alarm_s, nf_cfg.hang_s);
	fprintf(stderr, "# replay: NEURON_FUZZ_SEED=%#llx NEURON_FUZZ_OPS=%llu %s=%d\n",
		(unsigned long long)nf_cfg.seed, (unsigned long long)nf_cfg.ops,
		"NEURON_FUZZ_WORKERS", nf_cfg.workers);
	if (nf_devices_up())
		return -1;
	fflush(stderr);
	t0 = now_ms();
	per = nf_cfg.ops / nf_cfg.workers;
	for (i = 0; i < nf_cfg.workers; i++) {
		__u64 ops = per + (i < (int)(nf_cfg.ops % nf_cfg.workers));

		if (nf_cfg.only_worker >= 0 && i != nf_cfg.only_worker)
			continue;
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid)
			_exit(worker(i, ops));
		nf_sh->proc[i].pid = pid;
	}
	if (nf_cfg.controller) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid)
			_exit(controller());
		nf_sh->proc[NF_MAXW].pid = pid;
	}
	last_print = t0;
	for (;;) {
		left = 0;
		for (i = 0; i <= NF_MAXW; i++) {
			struct nf_proc *p = &nf_sh->proc[i];

			if (!p->pid)
				continue;
			if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
				if (WIFSIGNALED(st))
					fail_proc(i, "died of a signal");
				else if (WEXITSTATUS(st))
					fail_proc(i, "exited with an error");
				if (WIFSIGNALED(st))
					fprintf(stderr, "#   signal %d (%s)\n", WTERMSIG(st),
						strsignal(WTERMSIG(st)));
				p->pid = 0;
				continue;
			}
			if (i < NF_MAXW)
				left++;
			if (__atomic_load_n(&p->busy, __ATOMIC_ACQUIRE) &&
			    now_ms() - __atomic_load_n(&p->start_ms, __ATOMIC_ACQUIRE) >
			    nf_cfg.hang_s * 1000L) {
				fail_proc(i, "is stuck in one operation (hang)");
				kill_stuck(i);
				p->pid = 0;
			}
		}
		if (!left) {
			__atomic_store_n(&nf_sh->stop, 1, __ATOMIC_RELEASE);
			if (!nf_sh->proc[NF_MAXW].pid)
				break;
		}
		if (now_ms() - last_print >= 10000) {
			for (done = 0, i = 0; i < NF_MAXW; i++)
				done += nf_sh->proc[i].done;
			last_print = now_ms();
			fprintf(stderr, "# %llu operations after %ld s\n", (unsigned long long)done,
				(last_print - t0) / 1000);
		}
		usleep(50000);
	}
	t1 = now_ms();
	for (i = 0; i < NF_MAXW; i++)
		child_ops += nf_sh->proc[i].child_ops;
	for (done = 0, i = 0; i < NF_MAXW; i++)
		done += nf_sh->proc[i].done;
	ctl_ops = nf_sh->proc[NF_MAXW].done;
	print_table();
	fprintf(stderr, "# seed %#llx: %llu operations (+ %llu in forked children) in %.1f s\n",
		(unsigned long long)nf_cfg.seed, (unsigned long long)done,
		(unsigned long long)child_ops, (t1 - t0) / 1000.0);
	fprintf(stderr, "# %.0f operations/s; %llu device actions of the controller\n",
		(done + child_ops) * 1000.0 / (t1 - t0 > 0 ? t1 - t0 : 1),
		(unsigned long long)ctl_ops);
	if (nf_after())
		__atomic_fetch_add(&nf_sh->failures, 1, __ATOMIC_RELAXED);
	failures = nf_sh->failures;
	fprintf(stderr, "# failures: %d\n", failures);
	munmap(nf_sh, sizeof(*nf_sh));
	return failures ? 1 : 0;
}

/* The driver as the run needs it: the reset timeout short, small simulated memories. */
#define NF_CORE_ARGS	"reset_timeout_ms=2000"
#define NF_SIM_ARGS	"mem_size=16M"

#ifndef NEURON_FUZZ_NO_MAIN
int main(void)
{
	int ret;

	if (nt_driver_up(NF_CORE_ARGS, NF_SIM_ARGS)) {
		fprintf(stderr, "neuron_fuzz: cannot load the driver\n");
		return 2;
	}
	ret = nf_run();
	nt_driver_down();
	return ret ? 1 : 0;
}
#endif
