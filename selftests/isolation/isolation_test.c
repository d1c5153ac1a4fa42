// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: isolation between two processes attached to one device, on
 * simulated v2, v3 and v4 devices (Documentation/testing.rst, "Isolation").
 *
 * Process A, the owner (the test itself), makes one of everything a process
 * can own: a device chunk and a host chunk, both mapped and filled with
 * random bytes; a reservation of some cores (CRWL_NC_RANGE_MARK) and a core
 * it holds by reset (NC_RESET), with values in those cores' registers
 * (BAR_WRITE) and semaphores; a model lock held for writing and one held
 * for reading; a core initialisation it started (CINIT STARTED); its
 * datastore entry, mapped and filled; a host notification queue of one of
 * its cores, mapped and filled; a user DMA queue on an engine of that core
 * with a copy run through it; a copy queue of the core's host engine
 * (H2T_DMA_ALLOC_QUEUES) and its completion queue; an asynchronous copy.
 *
 * Process B, the intruder, attached on its own file, receives every
 * identifier over a socket (handles, device addresses and mmap offsets,
 * mapping addresses, cores, engine and queue, the copy queues, A's pid
 * and model ids) and tries every command and mapping that could read,
 * write, free, reset or map each object; each must fail with the errno
 * Documentation/ names.  An HBM scrub of the channel of A's device chunk
 * must leave A's bytes alone.  Afterwards, and again once B has exited, A
 * checks that everything is as it was: chunk bytes (through the mappings
 * and with MEM_BUF_COPY64), registers, semaphores, holds, locks,
 * initialisation, datastore, notification queue (its slot registers too),
 * the DMA queue's state, descriptors and engine states, and that each
 * object still works.
 *
 * - intruder: B on its own file.
 * - passed_files: B first receives A's two files over SCM_RIGHTS; the
 *   attach gate refuses them until B attaches on a file of its own, and
 *   then every command through them acts as B, not as A: the same attempts
 *   fail the same way, and what B allocates through A's file is B's.
 *
 * A check that finds a known isolation defect (listed in defect_name[])
 * does not fail the test: it prints "SKIP check ..." with the defect, so
 * the run shows the hole and the rest of the suite stays meaningful.  A
 * known defect's check that passes prints "FIXED", so the list is kept
 * honest.
 *
 * The setup loads the driver (kept from an earlier suite when it was
 * loaded the same way) and makes one simulated device; the teardown checks
 * that the device's memory counters are back where they started.
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures, print them on stderr and report the count as their exit status.
 */
#include <endian.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
/* Simulator id of the device under test: its routing id and index. */
#define DEV		6
#define CHUNK		(64 * 1024)
#define NQ_BYTES	4096
#define NQUEUES		16
/* Completion queue of a copy queue: header and 1024 entries of 24 bytes. */
#define CQ_BYTES	(16 + 1024 * 24)
/* Registers of a held core B tries: the core's, and its TOP_SPs' (at most 3). */
#define MAX_REGS	16

/* User DMA queues (Documentation/dma.rst), as queue_test lays them out. */
#define TX		NEURON_DMA_QUEUE_TYPE_TX
#define RX		NEURON_DMA_QUEUE_TYPE_RX
#define RING		32U
#define DESC_SIZE	16
#define DESC_FIRST	0x04000000U
#define DESC_LAST	0x08000000U
#define DESC_RING_ID(id)	(((id) & 3U) << 24)
#define META_COPY	0x01080003U
/* Engine registers (include/neuron/udma.h). */
#define UDMA_S2M	0x20000
#define UDMA_QUEUE(q)	(0x1000 + (q) * 0x1000)
#define UDMA_Q_BASE_LO	0x28
#define UDMA_Q_BASE_HI	0x2c

/* Where the copy through A's queue lands in A's device chunk, and A's async copy. */
#define QCOPY_OFF	8192
#define QCOPY_LEN	256
#define ACOPY_OFF	16384
#define ACOPY_LEN	4096

static size_t pg;

/* ---- Known defects ------------------------------------------------------- */

enum defect {
	D_NONE,
	D_BAR_RING_BASE,
	D_ENG_HELD_CORE,
	NDEFECTS,
};

static const char * const defect_name[NDEFECTS] = {
	[D_NONE] = "",
	[D_BAR_RING_BASE] =
		"issue 17 defect 2 (kernel addresses): BAR_READ of the APB windows reads a DMA queue's ring base registers, which hold the driver's shadow rings (a user queue) or channel rings (host engines)",
	[D_ENG_HELD_CORE] =
		"issue 17 defect 1 (engines of held cores): DMA_ENG_SET_STATE and DMA_ENG_INIT reach an engine of a core another process holds",
};

/*
 * Defects still open: their checks print SKIP instead of failing.  Empty
 * once the driver is fixed; a check of a defect not listed here fails.
 */
static const enum defect open_defects[] = {
};

static int defect_open(enum defect d)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(open_defects); i++)
		if (open_defects[i] == d)
			return 1;
	return 0;
}

/* ---- What A sends B -------------------------------------------------------- */

/* Every identifier of A's objects; all 64-bit, sent as they are. */
struct ids {
	__u64 pid;
	__u64 dc_h, dc_pa, dc_va;	/* device chunk on channel 0 */
	__u64 hc_h, hc_pa, hc_va;	/* host chunk */
	__u64 ring_h[2], ring_pa[2];	/* the queue's rings (host chunks) */
	__u64 nq_h, nq_off;		/* notification queue: handle, mmap offset */
	__u64 ds_off;			/* datastore entry's mmap offset */
	__u64 ds_crc;			/* what it holds (crc()) */
	__u64 cq_off;			/* completion queue of the copy queue */
	__u64 h2t_bmap;			/* A's copy queues of core mark_first */
	__u64 h2t_def;			/* that core's default queue; A made its completion queue */
	__u64 eng, qid, eng2;		/* A's queue, and an engine of its core without one */
	__u64 lock_core, rlock_core, init_core;
	__u64 held;			/* bit per core A holds */
	__u64 uuid[2][4];		/* model ids of the write- and the read-held lock */
};

#define NIDS	(sizeof(struct ids) / sizeof(__u64))

/* FNV-1a of @len bytes: what a process may read of another's datastore. */
static __u64 crc(const void *p, size_t len)
{
	return nt_fnv(0xcbf29ce484222325ULL, p, len);
}

/* ---- Fixture ---------------------------------------------------------------- */

FIXTURE(iso) {
	int fd;		/* A's normal file (O_RDWR): A is attached */
	int wfd;	/* A's free-access file: reservations */
	int index;
	__u64 bar;	/* BAR 0's base, as DEVICE_INFO gives it */
	int counted;
	struct mcount start;
	struct undo undo;
	long t0;
};

/*
 * The generation's layout: register windows (Documentation/ioctl.rst),
 * notific blocks (nq_test), engines (Documentation/dma.rst), and which
 * cores A reserves, resets and leaves free.
 */
FIXTURE_VARIANT(iso) {
	const struct nt_gen *g;
	__u64 nc_win;		/* core 0's register window; core n's is n * 64 MiB on */
	__u64 ts_win[2];	/* TOP_SPs 0-7 and 8-15, 4 MiB each */
	unsigned int ts_per_nc;
	__u64 eng_group[4];
	__u64 eng_stride;
	unsigned int group_engines;
	__u64 host_eng;		/* the first host engine's registers */
	__u64 nc_block[8];	/* notific block of each core */
	unsigned int mark_first, mark_count, reset_core, free_core;
};

FIXTURE_VARIANT_ADD(iso, v2) {
	.g = &nt_gen_v2, .nc_win = 0, .ts_win = { 0x10000000 }, .ts_per_nc = 3,
	.eng_group = { 0x30000000, 0x30700000 }, .eng_stride = 0x40000, .group_engines = 16,
	.host_eng = 0x30600000,
	.nc_block = { 0x30535000, 0x30c35000 },
	/* Two cores: A reserves core 0 and resets it too; core 1 stays free. */
	.mark_first = 0, .mark_count = 1, .reset_core = 0, .free_core = 1,
};

FIXTURE_VARIANT_ADD(iso, v3) {
	.g = &nt_gen_v3, .nc_win = 0xd0000000, .ts_win = { 0xf0000000, 0xf2800000 },
	.ts_per_nc = 2,
	.eng_group = { 0x82000000, 0x94000000, 0xa2000000, 0xb4000000 },
	.eng_stride = 0x100000, .group_engines = 32, .host_eng = 0x06800000,
	.nc_block = { 0x06001000, 0x06181000, 0x06401000, 0x06581000,
		      0x46001000, 0x46181000, 0x46401000, 0x46581000 },
	.mark_first = 1, .mark_count = 2, .reset_core = 5, .free_core = 3,
};

FIXTURE_VARIANT_ADD(iso, v4) {
	.g = &nt_gen_v4, .nc_win = 0xd0000000, .ts_win = { 0xf0000000, 0xf2800000 },
	.ts_per_nc = 2,
	.eng_group = { 0x82000000, 0x94000000, 0xa2000000, 0xb4000000 },
	.eng_stride = 0x100000, .group_engines = 32, .host_eng = 0x06800000,
	.nc_block = { 0x06001000, 0x06181000, 0x06401000, 0x06581000,
		      0x46001000, 0x46181000, 0x46401000, 0x46581000 },
	.mark_first = 1, .mark_count = 2, .reset_core = 5, .free_core = 3,
};

#define iso_self	_test_data_iso
#define iso_variant	_fixture_variant_iso

FIXTURE_SETUP(iso)
{
	memset(self, 0, sizeof(*self));
	self->fd = -1;
	self->wfd = -1;
	self->t0 = nt_now_ms();
	pg = sysconf(_SC_PAGESIZE);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());

	self->index = sim_device_up(_metadata, DEV, variant->g->gen, "", SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->wfd = open_node(self->index, O_WRONLY);
	ASSERT_LE(0, self->wfd);
	ASSERT_EQ(0, bar_base(self->fd, &self->bar));
	self->counted = !mcount_read(self->index, &self->start);
	ASSERT_TRUE(self->counted);
}

FIXTURE_TEARDOWN(iso)
{
	struct mcount now;

	kill_kids(&self->undo);
	unmap_all(&self->undo);
	if (self->fd >= 0)
		close(self->fd);
	if (self->wfd >= 0)
		close(self->wfd);
	/* A's last close released its queues, claims, entry and memory. */
	if (self->counted && !mcount_reach(self->index, &self->start, 5000)) {
		EXPECT_EQ(0, mcount_read(self->index, &now));
		expect_counts(_metadata, &self->start, &now);
	}
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/* ---- Commands ---------------------------------------------------------------- */

static long mem_copy(int fd, int wide, __u64 src, __u64 dst, __u64 size)
{
	struct neuron_ioctl_mem_copy64 c64 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = size,
	};
	struct neuron_ioctl_mem_copy c32 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = (__u32)size,
	};

	return wide ? xioctl(fd, NEURON_IOCTL_MEM_COPY64, &c64) :
		      xioctl(fd, NEURON_IOCTL_MEM_COPY, &c32);
}

static long mem_set(int fd, int wide, __u64 h, __u32 value, __u64 size)
{
	struct neuron_ioctl_memset64 s64 = { .mem_handle = h, .value = value, .size = size };
	struct neuron_ioctl_memset s32 = { .mem_handle = h, .value = value, .size = (__u32)size };

	return wide ? xioctl(fd, NEURON_IOCTL_MEMSET64, &s64) :
		      xioctl(fd, NEURON_IOCTL_MEMSET, &s32);
}

/* MEM_COPY_ASYNC(64) of @size bytes, @src at @soff to @dst at @doff; its handle in *@wait. */
static long copy_async(int fd, int wide, __u64 src, __u64 dst, __u64 size, __u64 soff,
		       __u64 doff, __u32 *wait)
{
	struct neuron_ioctl_mem_copy_async64 a64 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = size,
		.src_offset = soff, .dst_offset = doff,
		.pwait_handle = NEURON_DMA_H2T_CTX_HANDLE_NONE, .wait_handle = 0xa5a5a5a5,
	};
	struct neuron_ioctl_mem_copy_async a32 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = (__u32)size,
		.src_offset = (__u32)soff, .dst_offset = (__u32)doff,
		.pwait_handle = NEURON_DMA_H2T_CTX_HANDLE_NONE, .wait_handle = 0xa5a5a5a5,
	};
	long ret;

	if (wide) {
		ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC64, &a64);
		*wait = a64.wait_handle;
	} else {
		ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC, &a32);
		*wait = a32.wait_handle;
	}
	return ret;
}

static long async_wait(int fd, __u32 handle)
{
	struct neuron_ioctl_mem_copy_async_wait a = { .pwait_handle = handle };

	return xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC_WAIT, &a);
}

static long mem_info(int fd, __u64 h)
{
	__u64 off = 0, pa = 0;
	struct neuron_ioctl_mem_get_info a = { .mem_handle = h, .mmap_offset = &off, .pa = &pa };

	return xioctl(fd, NEURON_IOCTL_MEM_GET_INFO, &a);
}

/* MEM_MC_GET_INFO (@v2 0) or MEM_MC_GET_INFO_V2 of address @pa. */
static long mc_info(int fd, int v2, __u64 pa)
{
	struct neuron_ioctl_mem_get_mc_mmap_info a = { .pa = pa };
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 b = { .pa = pa };

	return v2 ? xioctl(fd, NEURON_IOCTL_MEM_MC_GET_INFO_V2, &b) :
		    xioctl(fd, NEURON_IOCTL_MEM_MC_GET_INFO, &a);
}

static long zerocopy(int fd, __u64 h, void *buf, __u64 len, int to_dev, int qid)
{
	struct neuron_ioctl_mem_buf_copy64zc a = {
		.mem_handle = h, .buffer = buf, .size = len, .is_copy_to_device = to_dev,
		.h2t_qid = qid,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64, &a);
}

/* MEM_BUF_ZEROCOPY64_BATCHES of one operation of @len bytes into @h. */
static long zc_batch(int fd, __u64 h, void *buf, __u64 len, int to_dev, int qid)
{
	nrt_tensor_batch_op_t op = { .offset = 0, .size = len, .buffer = buf };
	neuron_memcpy_batch_t b = { .mem_handle = h, .ops_ptr = &op, .num_ops = 1 };
	struct neuron_ioctl_mem_buf_copy64zc_batches a = {
		.batches_ptr = &b, .num_batches = 1, .is_copy_to_device = to_dev, .h2t_qid = qid,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES, &a);
}

/* PROGRAM_ENGINE (@form 0), _NC (1) or _NC64 (2) of @size bytes to device address @dst. */
static long program(int fd, int form, __u64 dst, const void *buf, __u64 size)
{
	struct neuron_ioctl_program_engine p = { .dst = dst, .buffer = (void *)buf, .size = size };
	struct neuron_ioctl_program_engine_nc n = {
		.dst = dst, .buffer = (void *)buf, .size = size,
	};
	struct neuron_ioctl_program_engine_nc64 w = {
		.dst = dst, .buffer = (void *)buf, .size = size,
	};

	if (form == 0)
		return xioctl(fd, NEURON_IOCTL_PROGRAM_ENGINE, &p);
	if (form == 1)
		return xioctl(fd, NEURON_IOCTL_PROGRAM_ENGINE_NC, &n);
	return xioctl(fd, NEURON_IOCTL_PROGRAM_ENGINE_NC64, &w);
}

static long dmabuf_fd(int fd, __u64 va, __u64 size)
{
	__s32 got = -1;
	struct neuron_ioctl_dmabuf_fd a = { .va = va, .size = size, .fd = &got };
	long ret = xioctl(fd, NEURON_IOCTL_DMABUF_FD, &a);

	if (!ret && got >= 0)
		close(got);
	return ret;
}

static long va_placement(int fd, __u64 va)
{
	struct neuron_ioctl_get_va_placement a = { .va = va };

	return xioctl(fd, NEURON_IOCTL_GET_VA_PLACEMENT, &a);
}

/* MEM_ALLOC_V2 of device memory on channel 0 for core @nc. */
static long alloc_dev_nc(int fd, __u64 size, __u32 nc, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2 a = { .size = size, .nc_id = nc, .mem_handle = h };

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a);
}

/* A host notification queue of core @nc (@ts: TOP_SP @nc): NOTIFY, engine 0. */
static long nq_init(int fd, int ts, __u32 nc, int force, __u64 *off, __u64 *h)
{
	struct neuron_ioctl_notifications_init_with_realloc_v2 r = {
		.nq_dev_id = nc, .nq_dev_type = ts ? NQ_DEVICE_TYPE_TOPSP :
						     NQ_DEVICE_TYPE_NEURON_CORE,
		.nq_type = NQ_TYPE_NOTIFY, .size = NQ_BYTES, .on_host_memory = 1,
		.force_alloc_mem = 1,
	};
	struct neuron_ioctl_notifications_init_v2 a = {
		.nq_dev_id = r.nq_dev_id, .nq_dev_type = r.nq_dev_type, .nq_type = r.nq_type,
		.size = NQ_BYTES, .on_host_memory = 1,
	};
	long ret;

	if (force) {
		ret = xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, &r);
		*off = r.mmap_offset;
		*h = r.mem_handle;
	} else {
		ret = xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, &a);
		*off = a.mmap_offset;
		*h = a.mem_handle;
	}
	return ret;
}

static long nq_init_v1(int fd, __u32 nc)
{
	struct neuron_ioctl_notifications_init_v1 a = {
		.nc_id = nc, .nq_type = NQ_TYPE_NOTIFY, .size = NQ_BYTES,
	};

	return xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V1, &a);
}

static long nq_destroy(int fd, __u64 off)
{
	struct neuron_ioctl_notifications_destroy a = { .mmap_offset = off };

	return xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1, &a);
}

static long h2t_alloc(int fd, __u32 nc, __u32 count, __u32 *bmap, __u32 *def)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a = {
		.sz = sizeof(a), .nc_id = nc, .copy_queue_cnt = count,
	};
	long ret = xioctl(fd, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, &a);

	*bmap = a.copy_queue_bmap;
	if (def)
		*def = a.copy_default_queue;
	return ret;
}

static long h2t_free(int fd, __u32 nc, __u32 bmap)
{
	struct neuron_ioctl_h2t_dma_free_queues a = { .sz = sizeof(a), .nc_id = nc,
						      .queue_bmap = bmap };

	return xioctl(fd, NEURON_IOCTL_H2T_DMA_FREE_QUEUES, &a);
}

/* GET_ASYNC_H2T_DMA_COMPL_QUEUES of queue @q of core @nc; its mmap offset in *@off. */
static long cq_get(int fd, __u32 nc, __u32 q, __u64 *off)
{
	struct neuron_ioctl_get_async_h2t_dma_compl_queues a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.nc_id = nc;
	a.qid_bitmap = 1U << q;
	ret = xioctl(fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, &a);
	*off = a.compl_queue_info[q].mmap_offset;
	return ret;
}

static long scrub(int fd, __u32 hbm, __u32 val)
{
	struct neuron_ioctl_hbm_scrub_start s = { .nc_id = 0, .hbm_index = hbm, .init_val = val };
	struct neuron_ioctl_hbm_scrub_wait w = { .nc_id = 0, .hbm_index = hbm };
	long ret = xioctl(fd, NEURON_IOCTL_HBM_SCRUB_START, &s);

	return ret ? ret : xioctl(fd, NEURON_IOCTL_HBM_SCRUB_WAIT, &w);
}

/* ---- DMA queues ---- */

struct desc {
	__u32 ctrl;
	__u32 meta;
	__u64 addr;
};

static struct desc desc(int tx, __u64 addr, __u32 len, __u32 flags)
{
	struct desc d = {
		.ctrl = htole32((len & 0xffff) | DESC_RING_ID(1) | flags),
		.meta = htole32(tx ? META_COPY : 0),
		.addr = htole64(addr),
	};

	return d;
}

static long q_init(int fd, __u32 eng, __u32 qid, __u64 txh, __u64 rxh)
{
	struct neuron_ioctl_dma_queue_init a = {
		.eng_id = eng, .qid = qid, .tx_desc_count = RING, .rx_desc_count = RING,
		.tx_handle = txh, .rx_handle = rxh,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_INIT, &a);
}

static long q_init_batch(int fd, __u32 eng, __u32 qid, __u64 txh, __u64 rxh)
{
	struct neuron_ioctl_dma_queue_init_batch *b = calloc(1, sizeof(*b));
	long ret;

	if (!b)
		return -ENOMEM;
	b->count = 1;
	b->entries[0] = (struct neuron_ioctl_dma_queue_init){
		.eng_id = eng, .qid = qid, .tx_desc_count = RING, .rx_desc_count = RING,
		.tx_handle = txh, .rx_handle = rxh,
	};
	ret = xioctl(fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b);
	free(b);
	return ret;
}

static long q_start(int fd, __u32 eng, __u32 qid, __u32 txn, __u32 rxn)
{
	struct neuron_ioctl_dma_queue_copy_start a = {
		.eng_id = eng, .qid = qid, .tx_desc_count = txn, .rx_desc_count = rxn,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_COPY_START, &a);
}

static long q_ack(int fd, __u32 eng, __u32 qid, __u32 count)
{
	struct neuron_ioctl_dma_ack_completed a = { .eng_id = eng, .qid = qid, .count = count };

	return xioctl(fd, NEURON_IOCTL_DMA_ACK_COMPLETED, &a);
}

static long q_release(int fd, __u32 eng, __u32 qid)
{
	struct neuron_ioctl_dma_queue_release a = { .eng_id = eng, .qid = qid };

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_RELEASE, &a);
}

static long q_copyout(int fd, __u32 eng, __u32 qid, __u32 type, __u32 count, void *buf)
{
	struct neuron_ioctl_dma_descriptor_copyout a = {
		.eng_id = eng, .qid = qid, .type = type, .start_index = 0, .count = count,
		.buffer = buf,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT, &a);
}

static long q_state(int fd, __u32 eng, __u32 qid, struct neuron_dma_queue_state *st)
{
	struct neuron_ioctl_dma_queue_get_state a = {
		.eng_id = eng, .qid = qid, .tx = &st[TX], .rx = &st[RX],
	};

	memset(st, 0xa5, 2 * sizeof(*st));
	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_GET_STATE, &a);
}

static long put_descs(int fd, int wide, __u64 h, const struct desc *d, __u32 n, __u32 type)
{
	struct neuron_ioctl_dma_copy_descriptors64 w = {
		.mem_handle = h, .buffer = (void *)d, .num_descs = n, .queue_type = type,
	};
	struct neuron_ioctl_dma_copy_descriptors s = {
		.mem_handle = h, .buffer = (void *)d, .num_descs = n, .queue_type = type,
	};

	return wide ? xioctl(fd, NEURON_IOCTL_DMA_COPY_DESCRIPTORS64, &w) :
		      xioctl(fd, NEURON_IOCTL_DMA_COPY_DESCRIPTORS, &s);
}

static long eng_init(int fd, __u32 eng)
{
	struct neuron_ioctl_dma_eng_init a = { .eng_id = eng };

	return xioctl(fd, NEURON_IOCTL_DMA_ENG_INIT, &a);
}

static long eng_set(int fd, __u32 eng, __u32 state)
{
	struct neuron_ioctl_dma_eng_set_state a = { .eng_id = eng, .state = state };

	return xioctl(fd, NEURON_IOCTL_DMA_ENG_SET_STATE, &a);
}

static long eng_get(int fd, __u32 eng, struct neuron_dma_eng_state *st)
{
	struct neuron_ioctl_dma_eng_get_state a = { .eng_id = eng, .state = st };

	memset(st, 0xa5, sizeof(*st));
	return xioctl(fd, NEURON_IOCTL_DMA_ENG_GET_STATE, &a);
}

/* ---- Register layout ---- */

static __u64 core_reg(const struct iso_variant *v, unsigned int c, unsigned int idx)
{
	return v->nc_win + c * 0x4000000ULL + 0x2700000 + 4 * idx;
}

static __u64 ts_reg(const struct iso_variant *v, unsigned int t, unsigned int idx)
{
	return v->ts_win[t / 8] + (t % 8) * 0x400000ULL + 4 * idx;
}

/* The registers of core @c's windows that the test uses: its own and its TOP_SPs'. */
static unsigned int core_regs(const struct iso_variant *v, unsigned int c, __u64 *offs)
{
	unsigned int n = 0, k;

	offs[n++] = core_reg(v, c, 20 + c);
	for (k = 0; k < v->ts_per_nc; k++)
		offs[n++] = ts_reg(v, c * v->ts_per_nc + k, 40 + c);
	return n;
}

/* The registers of every core in @held. */
static unsigned int held_regs(const struct iso_variant *v, __u32 held, __u64 *offs)
{
	unsigned int n = 0, c;

	for (c = 0; c < v->g->ncs; c++)
		if (held & (1U << c))
			n += core_regs(v, c, offs + n);
	return n;
}

static __u64 eng_base(const struct iso_variant *v, unsigned int e)
{
	return v->eng_group[e / v->group_engines] + (e % v->group_engines) * v->eng_stride;
}

/* The cores A holds: its reservation and its reset. */
static __u32 held_cores(const struct iso_variant *v)
{
	return ((1U << v->mark_count) - 1) << v->mark_first | 1U << v->reset_core;
}

/* ---- Process B --------------------------------------------------------------- */

static int b_fails;

/* In B: @expr must be @want (a return value or -errno). */
#define B_EXPECT(want, expr) do {						\
	long __got = (expr), __want = (want);					\
	if (__got != __want) {							\
		fprintf(stderr, "# B (line %d): %s = %ld, want %ld\n", __LINE__, #expr, \
			__got, __want);						\
		b_fails++;							\
	}									\
} while (0)

/*
 * In B, or in A after it: a check whose failure is known defect @d.  It
 * fails only while @d is not listed in open_defects[].  Whether it failed.
 */
static int defect_check(int ok, enum defect d, const char *what, int line)
{
	if (ok) {
		if (defect_open(d))
			fprintf(stderr, "# FIXED (line %d): %s: %s\n", line, what, defect_name[d]);
		return 0;
	}
	if (defect_open(d)) {
		fprintf(stderr, "# SKIP check (line %d): %s: known defect: %s\n", line, what,
			defect_name[d]);
		return 0;
	}
	fprintf(stderr, "# line %d: %s: %s\n", line, what, defect_name[d]);
	return 1;
}

#define B_DEFECT(d, want, expr) do {						\
	long __got = (expr), __want = (want);					\
	char __what[256];							\
	snprintf(__what, sizeof(__what), "B: %s = %ld, want %ld", #expr, __got, __want); \
	b_fails += defect_check(__got == __want, d, __what, __LINE__);	\
} while (0)

/* What B owns, to pair with A's objects in its attempts. */
struct bkit {
	__u64 dc, dc_pa;	/* device chunk of core mark_first, channel 0 */
	__u64 hc, hc_pa;	/* host chunk */
	__u64 ring[2], ring_pa[2];	/* a host page for each ring of a queue */
};

/*
 * Before B maps anything of its own: A's mapping addresses are nothing in
 * B (mappings are not inherited), so DMABUF_FD and GET_VA_PLACEMENT of
 * them find nothing.  Later B's own mappings could land there.
 */
static void b_addresses(int via, const struct ids *a)
{
	B_EXPECT(-EINVAL, dmabuf_fd(via, a->dc_va, CHUNK));
	B_EXPECT(-EINVAL, dmabuf_fd(via, a->dc_va, pg));
	B_EXPECT(-EINVAL, dmabuf_fd(via, a->hc_va, pg));
	B_EXPECT(-ENXIO, va_placement(via, a->dc_va));
}

/* Every memory command on A's handles and addresses. */
static void b_memory(int via, const struct ids *a, const struct bkit *k)
{
	const __u64 hs[] = { a->dc_h, a->hc_h, a->ring_h[TX], a->ring_h[RX], a->nq_h };
	const __u64 chunk[2][2] = { { a->dc_h, a->dc_pa }, { a->hc_h, a->hc_pa } };
	unsigned char buf[256];
	struct neuron_ioctl_mem_get_extended_info ei;
	__u32 wh = 0;
	__u64 pa;
	unsigned int i;
	int w, d;

	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < ARRAY_SIZE(hs); i++) {
		B_EXPECT(-EINVAL, get_pa(via, hs[i], &pa));
		B_EXPECT(-EINVAL, mem_info(via, hs[i]));
		B_EXPECT(-EINVAL, ext_info(via, hs[i], &ei));
		/* Handles differ in their tag above bit 32 only: still not B's. */
		B_EXPECT(-EINVAL, get_pa(via, hs[i] ^ (1ULL << 40), &pa));
	}
	for (i = 0; i < 2; i++) {
		__u64 h = chunk[i][0], p = chunk[i][1];
		__u64 mine = i ? k->hc : k->dc;

		for (w = 0; w < 2; w++) {
			B_EXPECT(-EINVAL, mem_copy(via, w, h, mine, 64));
			B_EXPECT(-EINVAL, mem_copy(via, w, mine, h, 64));
			B_EXPECT(-EINVAL, mem_copy(via, w, h, h, 64));
			for (d = 0; d < 2; d++)
				B_EXPECT(-EINVAL, buf_copy(via, w, h, buf, 64, 0, d));
			B_EXPECT(-EINVAL, mem_set(via, w, h, 0xff, 64));
			B_EXPECT(-EINVAL, copy_async(via, w, h, mine, 64, 0, 0, &wh));
			B_EXPECT(-EINVAL, copy_async(via, w, mine, h, 64, 0, 0, &wh));
			B_EXPECT(-EINVAL, zerocopy(via, h, buf, 64, w, -1));
			B_EXPECT(-EINVAL, zc_batch(via, h, buf, 64, w, -1));
			B_EXPECT(-ENOMEM, mc_info(via, w, p));
			B_EXPECT(-ENOMEM, mc_info(via, w, p + pg));
		}
		for (w = 0; w < 3; w++)
			B_EXPECT(-EOPNOTSUPP, program(via, w, p, buf, 64));
		B_EXPECT(-EINVAL, map_fails(via, p, CHUNK, RW, MAP_SHARED));
		B_EXPECT(-EINVAL, map_fails(via, p, pg, PROT_READ, MAP_SHARED));
		B_EXPECT(-EINVAL, map_fails(via, p + pg, pg, PROT_READ, MAP_SHARED));
	}
	/* A's rings are not B's to fill. */
	for (w = 0; w < 2; w++) {
		struct desc dd = desc(1, a->hc_pa, 16, DESC_FIRST | DESC_LAST);

		B_EXPECT(-EINVAL, put_descs(via, w, a->ring_h[TX], &dd, 1, TX));
		B_EXPECT(-EINVAL, put_descs(via, w, a->ring_h[RX], &dd, 1, RX));
	}
	B_EXPECT(-EINVAL, map_fails(via, a->ring_pa[TX], pg, PROT_READ, MAP_SHARED));
	/* Freed last: nothing above worked on a freed chunk. */
	for (i = 0; i < ARRAY_SIZE(hs); i++)
		B_EXPECT(-EINVAL, mem_free(via, hs[i]));
}

/* Registers, semaphores and events of A's cores; resets; reservations. */
static void b_cores(int via, int wvia, const struct iso_variant *v, const struct ids *a)
{
	static const struct named_cmd sems[] = {
		NAMED_CMD(NEURON_IOCTL_SEMAPHORE_READ), NAMED_CMD(NEURON_IOCTL_SEMAPHORE_WRITE),
		NAMED_CMD(NEURON_IOCTL_SEMAPHORE_INCREMENT),
		NAMED_CMD(NEURON_IOCTL_SEMAPHORE_DECREMENT),
		NAMED_CMD(NEURON_IOCTL_EVENT_GET), NAMED_CMD(NEURON_IOCTL_EVENT_SET),
	};
	__u64 offs[MAX_REGS], one[2];
	__u32 vals[MAX_REGS], v1[2];
	struct neuron_ioctl_resource_mmap_info ri;
	unsigned int n, i, c;
	struct span s;

	for (c = 0; c < v->g->ncs; c++) {
		if (!(a->held & (1U << c)))
			continue;
		n = core_regs(v, c, offs);
		for (i = 0; i < n; i++) {
			vals[i] = 0xbad00000 + i;
			B_EXPECT(-EACCES,
				 regs_rw(via, NEURON_IOCTL_BAR_READ, &offs[i], &vals[i], 1));
			B_EXPECT(0xbad00000 + i, vals[i]);
			B_EXPECT(-EACCES,
				 regs_rw(via, NEURON_IOCTL_BAR_WRITE, &offs[i], &vals[i], 1));
			/* Behind a register B may reach, the call is refused whole. */
			one[0] = core_reg(v, v->free_core, 3);
			one[1] = offs[i];
			v1[0] = 0x600d;
			v1[1] = 0xbad;
			B_EXPECT(-EACCES, regs_rw(via, NEURON_IOCTL_BAR_WRITE, one, v1, 2));
			B_EXPECT(-EACCES, regs_rw(via, NEURON_IOCTL_BAR_READ, one, v1, 2));
		}
		for (i = 0; i < ARRAY_SIZE(sems); i++) {
			__u32 val = 1;

			if (sem(via, sems[i].cmd, c, 7, &val) != -EACCES) {
				fprintf(stderr, "# B: %s of core %u: not EACCES\n", sems[i].name,
					c);
				b_fails++;
			}
		}
		B_EXPECT(-EBUSY, nc_reset(via, 1U << c, NULL));
		B_EXPECT(-EBUSY, nc_reset(via, 1U << c | 1U << v->free_core, NULL));
		/* Its special resources (on simulated devices never mappable anyway). */
		memset(&ri, 0, sizeof(ri));
		ri.block = NEURON_DM_BLOCK_TPB;
		ri.block_id = c;
		ri.resource = NEURON_DM_RESOURCE_SEMAPHORE;
		B_EXPECT(0, xioctl(via, NEURON_IOCTL_RESOURCE_MMAP_INFO, &ri));
		B_EXPECT(-EACCES, map_fails(via, ri.offset, ri.size, RW, MAP_SHARED));
		/* Not B's to reserve; B's unmark of them changes nothing. */
		B_EXPECT(-EBUSY, mark(wvia, 0, 1, c, c, &s));
		B_EXPECT(0, unmark_run(wvia, 0, c, 1));
		B_EXPECT(0, unmark_run(wvia, 1, c, 1));
		B_EXPECT(-EBUSY, mark(wvia, 1, 1, c, c, &s));
	}
	/* The free core is B's to reach: the refusals above are about holding. */
	offs[0] = core_reg(v, v->free_core, 3);
	B_EXPECT(0, regs_rw(via, NEURON_IOCTL_BAR_READ, offs, vals, 1));
	B_EXPECT(0, mark(wvia, 0, 1, v->free_core, v->free_core, &s));
	B_EXPECT(0, unmark_run(wvia, 0, v->free_core, 1));
	B_EXPECT(-EBUSY, nc_reset(via, NEURON_NC_MAP_DEVICE, NULL));
	B_EXPECT(-EBUSY, xioctl(via, NEURON_IOCTL_DEVICE_RESET, NULL));
}

/* Model locks, core initialisation, datastore, notification queue. */
static void b_state(int via, int own, const struct iso_variant *v, const struct ids *a,
		    int timed)
{
	struct neuron_uuid u[2];
	__u64 off, h;
	__u32 ns;
	void *p;

	memcpy(u, a->uuid, sizeof(u));
	B_EXPECT(-ENOENT, crwl(via, W_DOWN, a->lock_core, &u[0]));
	B_EXPECT(-ENOENT, crwl(via, R_EXIT, a->lock_core, &u[0]));
	B_EXPECT(-ENOENT, crwl(via, R_EXIT, a->rlock_core, &u[1]));
	B_EXPECT(-EINVAL, crwl(via, W_DOWN, a->rlock_core, &u[1]));
	B_EXPECT(-ENOENT, crwl(via, R_ENTER, a->rlock_core, &u[1]));
	if (timed) {
		/* They wait their bound (1 s, 2 s) for A's write hold, then give up. */
		B_EXPECT(-EBUSY, crwl(via, R_ENTER, a->lock_core, &u[0]));
		B_EXPECT(-EBUSY, crwl(via, W_ENTER, a->lock_core, &u[0]));
	}
	B_EXPECT(-EPERM, cinit(via, a->init_core, CI_COMPLETED, &ns));

	/* The datastore: A's entry may be read by pid (a monitor), never written or freed. */
	B_EXPECT(-EINVAL, map_fails(via, a->ds_off, DS_SIZE, PROT_READ, MAP_SHARED));
	B_EXPECT(-EPERM, ds_release(via, a->pid));
	B_EXPECT(-ENOENT, ds_release(via, 0));
	/* A grant is the asking file's opener's: not through A's file. */
	B_EXPECT(via == own ? 0 : -EACCES, ds_acquire(via, a->pid, &off));
	if (via == own)
		B_EXPECT(a->ds_off, off);
	/* B maps through its own file. */
	B_EXPECT(0, ds_acquire(own, a->pid, &off));
	B_EXPECT(-EACCES, map_fails(own, a->ds_off, DS_SIZE, RW, MAP_SHARED));
	if (via != own)
		B_EXPECT(-EINVAL, map_fails(via, a->ds_off, DS_SIZE, PROT_READ, MAP_SHARED));
	p = mmap(NULL, DS_SIZE, PROT_READ, MAP_SHARED, own, a->ds_off);
	B_EXPECT(1, p != MAP_FAILED);
	if (p != MAP_FAILED) {
		B_EXPECT(-1, mprotect(p, DS_SIZE, RW));
		B_EXPECT(a->ds_crc, crc(p, DS_SIZE));
		munmap(p, DS_SIZE);
	}
	B_EXPECT(-EPERM, ds_release(via, a->pid));
	/* B's own entry is another one. */
	B_EXPECT(0, ds_acquire(via, 0, &off));
	B_EXPECT(1, off != a->ds_off);
	B_EXPECT(0, ds_release(via, 0));

	/* The notification queue of A's core. */
	B_EXPECT(-EPERM, nq_destroy(via, a->nq_off));
	B_EXPECT(-EACCES, nq_init(via, 0, v->mark_first, 0, &off, &h));
	B_EXPECT(-EACCES, nq_init(via, 0, v->mark_first, 1, &off, &h));
	B_EXPECT(-EACCES, nq_init(via, 1, v->mark_first * v->ts_per_nc, 0, &off, &h));
	B_EXPECT(-EACCES, nq_init_v1(via, v->mark_first));
	B_EXPECT(-EINVAL, map_fails(via, a->nq_off, NQ_BYTES, PROT_READ, MAP_SHARED));
}

/*
 * B's own queue, on an engine of the free core: descriptors naming A's
 * memory are refused by DMA_COPY_DESCRIPTORS, and when written into B's
 * rings through a mapping, by DMA_QUEUE_COPY_START, which starts nothing.
 * B's device chunk still holds what B wrote (checked at the end), so no
 * byte of A's reached it either.
 */
static void b_smuggle(int via, int own, const struct iso_variant *v, const struct ids *a,
		      const struct bkit *k)
{
	const struct desc bad[2][2] = {
		/* From B's host chunk into A's device chunk. */
		{ desc(1, k->hc_pa, 64, DESC_FIRST | DESC_LAST), desc(0, a->dc_pa, 64, 0) },
		/* From A's host chunk into B's device chunk. */
		{ desc(1, a->hc_pa, 64, DESC_FIRST | DESC_LAST), desc(0, k->dc_pa, 64, 0) },
	};
	__u32 e = v->free_core * 16 + 5;
	struct desc *ring[2];
	int i, t;

	B_EXPECT(0, q_init(via, e, 0, k->ring[TX], k->ring[RX]));
	for (t = 0; t < 2; t++) {
		ring[t] = mmap(NULL, pg, RW, MAP_SHARED, own, k->ring_pa[t]);
		B_EXPECT(1, ring[t] != MAP_FAILED);
		if (ring[t] == MAP_FAILED)
			return;
	}
	for (i = 0; i < 2; i++) {
		for (t = 0; t < 2; t++)
			B_EXPECT(i != t ? -EINVAL : 0,
				 put_descs(via, t, k->ring[t], &bad[i][t], 1, t));
		for (t = 0; t < 2; t++)
			memcpy(&ring[t][0], &bad[i][t], sizeof(bad[i][t]));
		B_EXPECT(-EINVAL, q_start(via, e, 0, 1, 1));
	}
	B_EXPECT(0, q_release(via, e, 0));
	for (t = 0; t < 2; t++)
		munmap(ring[t], pg);
}

/* A's DMA queue, its engines, its copy queues. */
static void b_dma(int via, int own, const struct iso_variant *v, const struct ids *a,
		  const struct bkit *k)
{
	struct neuron_dma_queue_state st[2];
	__u64 offs[8], qb;
	__u32 vals[8], bmap;
	struct desc d[2];
	unsigned char buf[64];
	unsigned int i, t;
	__u64 off;

	/* Engines of a core A holds are A's (EACCES, before the queue's owner is looked at). */
	B_EXPECT(-EACCES, q_init(via, a->eng, a->qid, k->ring[TX], k->ring[RX]));
	B_EXPECT(-EACCES, q_init_batch(via, a->eng, a->qid, k->ring[TX], k->ring[RX]));
	B_EXPECT(-EBUSY, q_start(via, a->eng, a->qid, 0, 0));
	B_EXPECT(-EBUSY, q_start(via, a->eng, a->qid, 1, 1));
	B_EXPECT(-EBUSY, q_ack(via, a->eng, a->qid, 0));
	B_EXPECT(-EBUSY, q_ack(via, a->eng, a->qid, 1));
	B_EXPECT(-EBUSY, q_copyout(via, a->eng, a->qid, TX, 2, d));
	B_EXPECT(-EBUSY, q_copyout(via, a->eng, a->qid, RX, 2, d));
	B_EXPECT(-EBUSY, q_release(via, a->eng, a->qid));
	B_EXPECT(-EACCES, eng_init(via, a->eng));
	B_EXPECT(-EACCES, eng_set(via, a->eng, NEURON_DMA_ENG_DISABLE));
	B_EXPECT(-EACCES, eng_set(via, a->eng, NEURON_DMA_ENG_ABORT));
	B_EXPECT(-EACCES, eng_set(via, a->eng, NEURON_DMA_ENG_NORMAL));
	/* Its state shows B no address of A's or of the driver's. */
	B_EXPECT(0, q_state(via, a->eng, a->qid, st));
	for (t = 0; t < 2; t++) {
		B_EXPECT(0, st[t].base_addr);
		B_EXPECT(0, st[t].completion_base_addr);
	}
	/* Nor do the ring base registers read with BAR_READ. */
	for (t = 0; t < 2; t++) {
		qb = eng_base(v, a->eng) + (t ? UDMA_S2M : 0) + UDMA_QUEUE(a->qid);
		offs[2 * t] = qb + UDMA_Q_BASE_LO;
		offs[2 * t + 1] = qb + UDMA_Q_BASE_HI;
	}
	/* Queue 0 of the first host engine: a channel of the driver's, used by A's copies. */
	for (t = 0; t < 2; t++) {
		qb = v->host_eng + (t ? UDMA_S2M : 0) + UDMA_QUEUE(0);
		offs[4 + 2 * t] = qb + UDMA_Q_BASE_LO;
		offs[4 + 2 * t + 1] = qb + UDMA_Q_BASE_HI;
	}
	for (i = 0; i < 8; i++) {
		long ret = regs_rw(via, NEURON_IOCTL_BAR_READ, &offs[i], &vals[i], 1);
		char what[160];

		snprintf(what, sizeof(what),
			 "B: BAR_READ of %s engine %u %s ring base %s register (%#llx): %ld, value %#x",
			 i < 4 ? "A's" : "host", i < 4 ? (unsigned int)a->eng : v->g->user,
			 i % 4 < 2 ? "TX" : "RX", i % 2 ? "high" : "low",
			 (unsigned long long)offs[i], ret, ret ? 0 : vals[i]);
		b_fails += defect_check(ret || !vals[i], D_BAR_RING_BASE, what, __LINE__);
	}
	/* An engine of A's core without A's queue: A's core's all the same. */
	B_DEFECT(D_ENG_HELD_CORE, -EACCES, eng_set(via, a->eng2, NEURON_DMA_ENG_DISABLE));
	B_DEFECT(D_ENG_HELD_CORE, -EACCES, eng_set(via, a->eng2, NEURON_DMA_ENG_ABORT));
	B_DEFECT(D_ENG_HELD_CORE, -EACCES, eng_set(via, a->eng2, NEURON_DMA_ENG_NORMAL));
	B_DEFECT(D_ENG_HELD_CORE, -EACCES, eng_init(via, a->eng2));
	/* Nor a queue of B's on the engines of A's core, which would lock A out of them. */
	for (i = 0; i < 2; i++) {
		__u32 e = i ? a->eng2 : a->eng, q = i ? 0 : a->qid + 1;
		long ret = q_init(via, e, q, k->ring[TX], k->ring[RX]);

		B_DEFECT(D_ENG_HELD_CORE, -EACCES, ret);
		if (!ret)
			B_EXPECT(0, q_release(via, e, q));
	}

	b_smuggle(via, own, v, a, k);

	/* A's copy queues. */
	B_EXPECT(-EINVAL, h2t_free(via, v->mark_first, a->h2t_bmap));
	B_EXPECT(-EINVAL, cq_get(via, v->mark_first, __builtin_ctzll(a->h2t_bmap), &off));
	B_EXPECT(-EINVAL, map_fails(via, a->cq_off, (CQ_BYTES + pg - 1) / pg * pg, RW,
				    MAP_SHARED));
	memset(buf, 0x77, sizeof(buf));
	B_EXPECT(-ENOENT, zerocopy(via, k->dc, buf, sizeof(buf), 1,
				   __builtin_ctzll(a->h2t_bmap)));
	B_EXPECT(-ENOENT, zc_batch(via, k->dc, buf, sizeof(buf), 1,
				   __builtin_ctzll(a->h2t_bmap)));
	/*
	 * Completion queues are the file's: through A's file, the one A made
	 * for the default queue is A's (-EACCES); B's own file gets its own.
	 */
	B_EXPECT(via == own ? 0 : -EACCES, cq_get(via, v->mark_first, a->h2t_def, &off));
	/* B may claim a queue of its own there, never one of A's. */
	B_EXPECT(0, h2t_alloc(via, v->mark_first, 1, &bmap, NULL));
	B_EXPECT(0, bmap & a->h2t_bmap);
	B_EXPECT(0, h2t_free(via, v->mark_first, bmap));
}

/* B's own objects, through @via (acting as B whatever file it is). */
static void b_kit(int via, const struct iso_variant *v, struct bkit *k)
{
	int t;

	B_EXPECT(0, alloc_dev_nc(via, CHUNK, v->mark_first, &k->dc));
	B_EXPECT(0, get_pa(via, k->dc, &k->dc_pa));
	B_EXPECT(0, alloc_host(via, CHUNK, &k->hc));
	B_EXPECT(0, get_pa(via, k->hc, &k->hc_pa));
	for (t = 0; t < 2; t++) {
		B_EXPECT(0, alloc_host(via, pg, &k->ring[t]));
		B_EXPECT(0, get_pa(via, k->ring[t], &k->ring_pa[t]));
	}
}

static void b_kit_free(int own, struct bkit *k)
{
	B_EXPECT(0, mem_free(own, k->dc));
	B_EXPECT(0, mem_free(own, k->hc));
	B_EXPECT(0, mem_free(own, k->ring[TX]));
	B_EXPECT(0, mem_free(own, k->ring[RX]));
}

/*
 * B's attempts through @via (its own normal file, or A's) and @wvia (a
 * free-access file), attached through @own.  An HBM scrub of channel 0
 * runs last.
 */
static void b_attempts(int via, int wvia, int own, const struct iso_variant *v,
		       const struct ids *a, int timed)
{
	struct bkit k;
	unsigned char mine[256], got[256];

	b_addresses(via, a);
	memset(&k, 0, sizeof(k));
	b_kit(via, v, &k);
	/* What B allocated through @via is B's, also through its own file. */
	rnd_fill(mine, sizeof(mine));
	B_EXPECT(0, buf_copy(own, 1, k.dc, mine, sizeof(mine), 0, 1));
	b_memory(via, a, &k);
	b_cores(via, wvia, v, a);
	b_state(via, own, v, a, timed);
	b_dma(via, own, v, a, &k);
	/* Free memory of A's chunk's channel, filled: A's chunk (and B's) keep their bytes. */
	B_EXPECT(0, scrub(via, 0, 0xdeadbeef));
	B_EXPECT(0, buf_copy(own, 1, k.dc, got, sizeof(got), 0, 0));
	B_EXPECT(0, memcmp(mine, got, sizeof(got)));
	b_kit_free(own, &k);
}

static int send_fds(int sock, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fds(int sock, int *fds, int n)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))], b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *c;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(n * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(c), n * sizeof(int));
	return 0;
}

/*
 * Process B.  @passed: it receives A's two files and uses them; else its
 * own.  It tells A it is done with one byte, and exits with its failures.
 */
static int intruder(int sock, int index, const struct iso_variant *v, int passed)
{
	int fd = -1, wfd = -1, afd[2] = { -1, -1 };
	struct ids a;
	__u64 pa;

	if (!passed) {
		fd = open_node(index, O_RDWR);
		wfd = open_node(index, O_WRONLY);
		B_EXPECT(1, fd >= 0 && wfd >= 0);
	}
	if (get_u64s(sock, (__u64 *)&a, NIDS))
		return 100;
	if (passed) {
		if (recv_fds(sock, afd, 2))
			return 101;
		/* Not attached: A's file is refused to B by the gate. */
		B_EXPECT(-EACCES, get_pa(afd[0], a.dc_h, &pa));
		B_EXPECT(-EACCES, mem_free(afd[0], a.dc_h));
		B_EXPECT(-EACCES, nc_reset(afd[0], 1U << v->mark_first, NULL));
		B_EXPECT(-EACCES, q_release(afd[0], a.eng, a.qid));
		fd = open_node(index, O_RDWR);
		wfd = open_node(index, O_WRONLY);
		B_EXPECT(1, fd >= 0 && wfd >= 0);
		b_attempts(afd[0], afd[1], fd, v, &a, 0);
	} else {
		b_attempts(fd, wfd, fd, v, &a, 1);
	}
	if (signal_byte(sock))
		b_fails++;
	return child_status(b_fails);
}

/* ---- Process A --------------------------------------------------------------- */

struct chunk {
	__u64 h, pa;
	unsigned char *map;
	unsigned char *shadow;
};

/* What A made, and what it must still find. */
struct owner {
	struct ids ids;
	struct chunk dc, hc, ring[2];
	__u64 offs[MAX_REGS];
	__u32 regs[MAX_REGS];
	unsigned int nregs;
	__u32 semval[8];
	unsigned char *ds, *ds_shadow;
	unsigned char *nq, *nq_shadow;
	__u32 nq_slot[4];
	struct neuron_dma_queue_state qst[2];
	struct desc qdesc[2][2];
	struct neuron_dma_eng_state est[2];
	__u32 async;
};

/* A host chunk, or a device chunk of core @nc on channel 0; mapped, random bytes. */
static void chunk_new(struct __test_metadata *_metadata, struct iso_self *self,
		      struct chunk *c, int host, __u64 size, __u32 nc)
{
	memset(c, 0, sizeof(*c));
	ASSERT_EQ(0, host ? alloc_host(self->fd, size, &c->h) :
			    alloc_dev_nc(self->fd, size, nc, &c->h));
	ASSERT_EQ(0, get_pa(self->fd, c->h, &c->pa));
	c->map = map(&self->undo, self->fd, c->pa, size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, c->map) TH_LOG("mapping A's chunk: %s", strerror(errno));
	c->shadow = malloc(size);
	ASSERT_NE(NULL, c->shadow);
	rnd_fill(c->shadow, size);
	memcpy(c->map, c->shadow, size);
}

/* Make one of everything; fill in what B is sent. */
static void owner_up(struct __test_metadata *_metadata, struct iso_self *self,
		     const struct iso_variant *v, struct owner *o)
{
	struct ids *id = &o->ids;
	struct desc d[2];
	struct span s;
	__u32 ns, bmap, def;
	__u64 h;
	unsigned int c, i;

	memset(o, 0, sizeof(*o));
	id->pid = getpid();
	id->held = held_cores(v);

	/* Cores: a reservation and a reset. */
	ASSERT_EQ(0, mark(self->wfd, 0, v->mark_count, v->mark_first,
			  v->mark_first + v->mark_count - 1, &s));
	ASSERT_EQ(((1ULL << v->mark_count) - 1) << v->mark_first, s.bits[0]);
	ASSERT_EQ(0, reset_cores(self->fd, 1U << v->reset_core));
	for (c = 0; c < v->g->ncs; c++)
		EXPECT_EQ(id->held & (1U << c) ? 0 : -ENOENT,
			  pid_dump(self->wfd, self->index * v->g->ncs + c)) TH_LOG("core %u", c);

	/* Registers and semaphores of A's cores, which only A may reach now. */
	o->nregs = held_regs(v, id->held, o->offs);
	ASSERT_GE(MAX_REGS, o->nregs);
	for (i = 0; i < o->nregs; i++)
		o->regs[i] = (__u32)rnd();
	ASSERT_EQ(0, regs_rw(self->fd, NEURON_IOCTL_BAR_WRITE, o->offs, o->regs, o->nregs));
	for (c = 0; c < v->g->ncs; c++) {
		o->semval[c] = 0x1000 + c;
		if (id->held & (1U << c))
			ASSERT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_WRITE, c, 7,
					    o->semval[c]));
	}

	/* Memory. */
	chunk_new(_metadata, self, &o->dc, 0, CHUNK, v->mark_first);
	chunk_new(_metadata, self, &o->hc, 1, CHUNK, 0);
	id->dc_h = o->dc.h;
	id->dc_pa = o->dc.pa;
	id->dc_va = (uintptr_t)o->dc.map;
	id->hc_h = o->hc.h;
	id->hc_pa = o->hc.pa;
	id->hc_va = (uintptr_t)o->hc.map;

	/* Model locks: one held for writing, one downgraded to a read hold. */
	id->lock_core = v->mark_first;
	id->rlock_core = v->free_core;
	id->init_core = v->mark_first;
	rnd_fill(id->uuid, sizeof(id->uuid));
	ASSERT_EQ(0, crwl(self->fd, W_ENTER, id->lock_core, (void *)id->uuid[0]));
	ASSERT_EQ(0, crwl(self->fd, W_ENTER, id->rlock_core, (void *)id->uuid[1]));
	ASSERT_EQ(0, crwl(self->fd, W_DOWN, id->rlock_core, (void *)id->uuid[1]));
	ASSERT_EQ(0, cinit(self->fd, id->init_core, CI_STARTED, &ns));
	ASSERT_EQ(CI_STARTED, ns);

	/* Datastore. */
	ASSERT_EQ(0, ds_acquire(self->fd, 0, &id->ds_off));
	o->ds = map(&self->undo, self->fd, id->ds_off, DS_SIZE, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, o->ds);
	o->ds_shadow = malloc(DS_SIZE);
	ASSERT_NE(NULL, o->ds_shadow);
	rnd_fill(o->ds_shadow, DS_SIZE);
	memcpy(o->ds, o->ds_shadow, DS_SIZE);
	id->ds_crc = crc(o->ds_shadow, DS_SIZE);

	/* A notification queue of its first core. */
	ASSERT_EQ(0, nq_init(self->fd, 0, v->mark_first, 0, &id->nq_off, &id->nq_h));
	o->nq = map(&self->undo, self->fd, id->nq_off, NQ_BYTES, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, o->nq);
	o->nq_shadow = malloc(NQ_BYTES);
	ASSERT_NE(NULL, o->nq_shadow);
	rnd_fill(o->nq_shadow, NQ_BYTES);
	memcpy(o->nq, o->nq_shadow, NQ_BYTES);
	ASSERT_EQ(0, nq_slot(self->fd, self->bar, v->nc_block[v->mark_first], 0, o->nq_slot));
	EXPECT_EQ(NQ_BYTES, o->nq_slot[2]) TH_LOG("the queue's slot");

	/* A user DMA queue on an engine of its first core, with one copy through it. */
	id->eng = v->mark_first * 16 + 3;
	id->eng2 = v->mark_first * 16 + 4;
	id->qid = 2;
	for (i = 0; i < 2; i++) {
		chunk_new(_metadata, self, &o->ring[i], 1, pg, 0);
		id->ring_h[i] = o->ring[i].h;
		id->ring_pa[i] = o->ring[i].pa;
	}
	ASSERT_EQ(0, q_init(self->fd, id->eng, id->qid, id->ring_h[TX], id->ring_h[RX]));
	d[TX] = desc(1, o->hc.pa, QCOPY_LEN, DESC_FIRST | DESC_LAST);
	d[RX] = desc(0, o->dc.pa + QCOPY_OFF, QCOPY_LEN, 0);
	ASSERT_EQ(0, put_descs(self->fd, 1, id->ring_h[TX], &d[TX], 1, TX));
	ASSERT_EQ(0, put_descs(self->fd, 0, id->ring_h[RX], &d[RX], 1, RX));
	ASSERT_EQ(0, q_start(self->fd, id->eng, id->qid, 1, 1));
	ASSERT_EQ(0, q_ack(self->fd, id->eng, id->qid, 1));
	memcpy(o->dc.shadow + QCOPY_OFF, o->hc.shadow, QCOPY_LEN);
	ASSERT_EQ(0, q_state(self->fd, id->eng, id->qid, o->qst));
	EXPECT_EQ(id->ring_pa[TX], o->qst[TX].base_addr);
	EXPECT_EQ(1, o->qst[TX].tail_pointer);
	ASSERT_EQ(0, q_copyout(self->fd, id->eng, id->qid, TX, 2, o->qdesc[TX]));
	ASSERT_EQ(0, q_copyout(self->fd, id->eng, id->qid, RX, 2, o->qdesc[RX]));
	EXPECT_EQ(0, memcmp(&d[TX], &o->qdesc[TX][0], sizeof(d[TX])));
	ASSERT_EQ(0, eng_get(self->fd, id->eng, &o->est[0]));
	ASSERT_EQ(0, eng_get(self->fd, id->eng2, &o->est[1]));
	EXPECT_EQ(NEURON_DMA_ENG_NORMAL, o->est[0].tx_state);
	EXPECT_EQ(NEURON_DMA_ENG_NORMAL, o->est[0].rx_state);

	/* A copy queue of its first core, with its completion queue. */
	ASSERT_EQ(0, h2t_alloc(self->fd, v->mark_first, 1, &bmap, &def));
	ASSERT_EQ(1, __builtin_popcount(bmap));
	id->h2t_bmap = bmap;
	id->h2t_def = def;
	ASSERT_EQ(0, cq_get(self->fd, v->mark_first, __builtin_ctz(bmap), &id->cq_off));
	ASSERT_EQ(0, cq_get(self->fd, v->mark_first, def, &h));

	/* An asynchronous copy, waited for only at the end. */
	ASSERT_EQ(0, copy_async(self->fd, 1, o->hc.h, o->dc.h, ACOPY_LEN, pg, ACOPY_OFF,
				&o->async));
	memcpy(o->dc.shadow + ACOPY_OFF, o->hc.shadow + pg, ACOPY_LEN);

	/* A handle of another of A's to the queue's memory stays A's. */
	h = 0;
	EXPECT_EQ(0, get_pa(self->fd, id->nq_h, &h));
	EXPECT_EQ(id->nq_off, h);
}

/* DEVICE_GET_ALL_APPS_INFO with lock info: the entry of @pid. */
static long app_info_of(int fd, pid_t pid, struct neuron_app_info *out)
{
	size_t size = sizeof(struct neuron_ioctl_get_apps_info) +
		      NEURON_MAX_PROCESS_PER_DEVICE * sizeof(struct neuron_app_info);
	struct neuron_ioctl_get_apps_info *ai = calloc(1, size);
	unsigned int i;
	long ret;

	if (!ai)
		return -ENOMEM;
	ai->apps_info_flags = APP_INFO_PID_NC_LOCK_INFO;
	ai->capacity = NEURON_MAX_PROCESS_PER_DEVICE;
	ret = xioctl(fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, ai);
	if (!ret) {
		ret = -ENOENT;
		for (i = 0; i < ai->size && i < NEURON_MAX_PROCESS_PER_DEVICE; i++) {
			if (ai->app_data[i].pid == pid) {
				*out = ai->app_data[i];
				ret = 0;
			}
		}
	}
	free(ai);
	return ret;
}

/* Everything of A's is as it was, and works.  @where names the moment. */
static void owner_check(struct __test_metadata *_metadata, struct iso_self *self,
			const struct iso_variant *v, struct owner *o, const char *where)
{
	struct ids *id = &o->ids;
	struct neuron_dma_queue_state st[2];
	struct neuron_dma_eng_state est;
	struct desc dd[2][2];
	struct neuron_app_info ai;
	__u32 regs[MAX_REGS], slot[4], ns, val, c;
	__u64 off, h;
	unsigned char *got = malloc(CHUNK);
	const struct chunk *ch[2] = { &o->dc, &o->hc };
	unsigned int i;

	ASSERT_NE(NULL, got);
	/* Chunks: through the mappings and read back. */
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, memcmp(ch[i]->map, ch[i]->shadow, CHUNK))
			TH_LOG("%s: A's %s chunk through its mapping", where,
			       i ? "host" : "device");
		memset(got, 0, CHUNK);
		EXPECT_EQ(0, buf_copy(self->fd, 1, ch[i]->h, got, CHUNK, 0, 0));
		EXPECT_EQ(0, memcmp(got, ch[i]->shadow, CHUNK))
			TH_LOG("%s: A's %s chunk read back", where, i ? "host" : "device");
	}
	free(got);

	/* Registers and semaphores. */
	for (i = 0; i < o->nregs; i++)
		regs[i] = 0xa5a5a5a5;
	EXPECT_EQ(0, regs_rw(self->fd, NEURON_IOCTL_BAR_READ, o->offs, regs, o->nregs));
	for (i = 0; i < o->nregs; i++)
		EXPECT_EQ(o->regs[i], regs[i]) TH_LOG("%s: register %#llx", where,
						      (unsigned long long)o->offs[i]);
	for (c = 0; c < v->g->ncs; c++) {
		if (!(id->held & (1U << c)))
			continue;
		val = 0;
		EXPECT_EQ(0, sem(self->fd, NEURON_IOCTL_SEMAPHORE_READ, c, 7, &val));
		EXPECT_EQ(o->semval[c], val) TH_LOG("%s: semaphore 7 of core %u", where, c);
		EXPECT_EQ(0, pid_dump(self->wfd, self->index * v->g->ncs + c))
			TH_LOG("%s: core %u held", where, c);
	}

	/* Locks and initialisation: A still records them. */
	ASSERT_EQ(0, app_info_of(self->fd, id->pid, &ai));
	EXPECT_EQ((1U << id->lock_core | 1U << id->rlock_core) & 0xf, ai.nc_lock_map)
		TH_LOG("%s: A's model locks", where);
	EXPECT_EQ(0, memcmp(&ai.uuid_data[id->lock_core], id->uuid[0], sizeof(id->uuid[0])));
	EXPECT_EQ(0, memcmp(&ai.uuid_data[id->rlock_core], id->uuid[1], sizeof(id->uuid[1])));
	EXPECT_EQ(0, cinit(self->fd, id->init_core, CI_STARTED, &ns));
	EXPECT_EQ(CI_STARTED, ns) TH_LOG("%s: A's initialisation", where);

	/* Datastore: same entry, same bytes. */
	EXPECT_EQ(0, memcmp(o->ds, o->ds_shadow, DS_SIZE)) TH_LOG("%s: A's datastore", where);
	EXPECT_EQ(0, ds_acquire(self->fd, 0, &off));
	EXPECT_EQ(id->ds_off, off);

	/* Notification queue: memory, slot registers, handle. */
	EXPECT_EQ(0, memcmp(o->nq, o->nq_shadow, NQ_BYTES)) TH_LOG("%s: A's queue", where);
	EXPECT_EQ(0, nq_slot(self->fd, self->bar, v->nc_block[v->mark_first], 0, slot));
	EXPECT_EQ(0, memcmp(slot, o->nq_slot, sizeof(slot))) TH_LOG("%s: the queue's slot", where);
	EXPECT_EQ(0, nq_init(self->fd, 0, v->mark_first, 0, &off, &h));
	EXPECT_EQ(id->nq_off, off);
	EXPECT_EQ(id->nq_h, h);

	/* The DMA queue and its engines. */
	EXPECT_EQ(0, q_state(self->fd, id->eng, id->qid, st));
	EXPECT_EQ(0, memcmp(st, o->qst, sizeof(st))) TH_LOG("%s: A's DMA queue state", where);
	memset(dd, 0xa5, sizeof(dd));
	EXPECT_EQ(0, q_copyout(self->fd, id->eng, id->qid, TX, 2, dd[TX]));
	EXPECT_EQ(0, q_copyout(self->fd, id->eng, id->qid, RX, 2, dd[RX]));
	EXPECT_EQ(0, memcmp(dd, o->qdesc, sizeof(dd))) TH_LOG("%s: A's descriptors", where);
	EXPECT_EQ(0, eng_get(self->fd, id->eng, &est));
	EXPECT_EQ(0, memcmp(&est, &o->est[0], sizeof(est))) TH_LOG("%s: A's engine", where);
	EXPECT_EQ(0, eng_get(self->fd, id->eng2, &est));
	EXPECT_EQ(0, defect_check(!memcmp(&est, &o->est[1], sizeof(est)), D_ENG_HELD_CORE,
				  "A: the engine of A's core without a queue changed", __LINE__))
		TH_LOG("%s", where);

	/* The copy queue is A's: a zero-copy through it works. */
	{
		unsigned char in[512], out[512];

		rnd_fill(in, sizeof(in));
		ASSERT_EQ(0, zerocopy(self->fd, o->dc.h, in, sizeof(in), 1,
				      __builtin_ctzll(id->h2t_bmap))) TH_LOG("%s", where);
		/* The mapping shows the new bytes by itself. */
		memcpy(o->dc.shadow, in, sizeof(in));
		EXPECT_EQ(0, zerocopy(self->fd, o->dc.h, out, sizeof(out), 0,
				      __builtin_ctzll(id->h2t_bmap)));
		EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	}
}

/* Let go of everything, checking on the way that A's holds were A's alone. */
static void owner_down(struct __test_metadata *_metadata, struct iso_self *self,
		       const struct iso_variant *v, struct owner *o)
{
	struct ids *id = &o->ids;
	__u32 ns;
	int i;

	/* The copy queued before B came ended well, and is A's to wait for. */
	EXPECT_EQ(0, async_wait(self->fd, o->async));
	/* A is still the writer; the read hold is A's one and only. */
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, id->lock_core, (void *)id->uuid[0]));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, id->lock_core, (void *)id->uuid[0]));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, id->rlock_core, (void *)id->uuid[1]));
	EXPECT_EQ(-EINVAL, crwl(self->fd, R_EXIT, id->rlock_core, (void *)id->uuid[1]));
	EXPECT_EQ(0, cinit(self->fd, id->init_core, CI_COMPLETED, &ns));
	EXPECT_EQ(CI_COMPLETED, ns);
	EXPECT_EQ(0, h2t_free(self->fd, v->mark_first, id->h2t_bmap));
	EXPECT_EQ(0, q_release(self->fd, id->eng, id->qid));
	EXPECT_EQ(0, unmap(&self->undo, o->nq, NQ_BYTES));
	EXPECT_EQ(0, nq_destroy(self->fd, id->nq_off));
	EXPECT_EQ(0, mem_free(self->fd, id->nq_h));
	EXPECT_EQ(0, unmap(&self->undo, o->ds, DS_SIZE));
	EXPECT_EQ(0, ds_release(self->fd, 0));
	EXPECT_EQ(0, unmap(&self->undo, o->dc.map, CHUNK));
	EXPECT_EQ(0, unmap(&self->undo, o->hc.map, CHUNK));
	EXPECT_EQ(0, mem_free(self->fd, o->dc.h));
	EXPECT_EQ(0, mem_free(self->fd, o->hc.h));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, unmap(&self->undo, o->ring[i].map, pg));
		EXPECT_EQ(0, mem_free(self->fd, o->ring[i].h));
		free(o->ring[i].shadow);
	}
	EXPECT_EQ(0, unmark_run(self->wfd, 0, v->mark_first, v->mark_count));
	free(o->dc.shadow);
	free(o->hc.shadow);
	free(o->ds_shadow);
	free(o->nq_shadow);
}

/*
 * A makes its objects, B (forked first, so it inherits no mapping) tries
 * them through its own files or, with @passed, through A's files passed to
 * it; A checks them with B still attached and again once B has exited.
 */
static void owner_and_intruder(struct __test_metadata *_metadata, struct iso_self *self,
			       const struct iso_variant *v, int passed)
{
	struct owner *o = calloc(1, sizeof(*o));
	int sv[2], fds[2];
	long t;
	pid_t b;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	b = spawn(_metadata, &self->undo);
	if (b == 0) {
		close(sv[0]);
		close(self->fd);
		close(self->wfd);
		_exit(intruder(sv[1], self->index, v, passed));
	}
	close(sv[1]);
	owner_up(_metadata, self, v, o);
	ASSERT_EQ(0, put_u64s(sv[0], (__u64 *)&o->ids, NIDS));
	if (passed) {
		fds[0] = self->fd;
		fds[1] = self->wfd;
		ASSERT_EQ(0, send_fds(sv[0], fds, 2));
	}
	t = nt_now_ms();
	EXPECT_EQ(0, wait_byte(sv[0])) TH_LOG("B did not get to the end");
	TH_LOG("B's attempts: %.1f s", (nt_now_ms() - t) / 1000.0);
	owner_check(_metadata, self, v, o, "B done");
	EXPECT_EQ(0, reap(&self->undo, b)) TH_LOG("B's failed checks (its messages above)");
	close(sv[0]);
	owner_check(_metadata, self, v, o, "B exited");
	owner_down(_metadata, self, v, o);
	free(o);
}

/* B attached through its own files. */
TEST_F_TIMEOUT(iso, intruder, 300)
{
	owner_and_intruder(_metadata, self, variant, 0);
}

/* B using A's files, received over SCM_RIGHTS: it acts as B. */
TEST_F_TIMEOUT(iso, passed_files, 300)
{
	owner_and_intruder(_metadata, self, variant, 1);
}

TEST_HARNESS_MAIN
