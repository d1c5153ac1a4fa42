/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_udma private: the DMA layer (dma*.c) and the commands built on it
 * (ioctl_dma.c, ioctl_buf.c).  See Documentation/dma.rst.
 */
#ifndef _NEURON_UDMA_DMA_H
#define _NEURON_UDMA_DMA_H

#include <linux/atomic.h>
#include <linux/dma-direction.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/mem.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/plane.h>
#include <neuron/udma.h>

struct dentry;
struct mm_struct;

/* Most host-engine channels a device uses for driver copies. */
#define NEURON_DMA_MAX_CHANS	4
/* Descriptors in each ring of a channel (a power of two). */
#define NEURON_DMA_RING_DESCS	2048
/* Bytes of a channel's host bounce buffer (small copies, memset pattern). */
#define NEURON_DMA_BOUNCE_SIZE	SZ_64K
/*
 * User copies up to this size go through the bounce buffer; larger ones
 * pin the user's pages instead, which costs less than copying them once
 * more with the CPU.
 */
#define NEURON_DMA_BOUNCE_MAX	SZ_4K
/* Pages of a user buffer pinned at a time by a zero-copy transfer. */
#define NEURON_DMA_PIN_PAGES	512
/* User buffers up to this size are checked by touching each page. */
#define NEURON_DMA_TOUCH_MAX	(16 * PAGE_SIZE)
/* Largest threshold of the CPU copies (dma_cpu.c), in bytes. */
#define NEURON_DMA_CPU_LIMIT	SZ_64K
/* Largest ring of a user queue, and most descriptors one upload carries. */
#define NEURON_DMA_UQ_MAX_DESCS	SZ_64K

/**
 * struct neuron_dma_pinned - user pages a transfer was using, pinned and
 *	mapped for the device
 * @pages: the pages (a kvmalloc()ed array), NULL when there are none
 * @npages: how many are pinned
 * @sgt: their DMA mapping
 * @dir: its direction
 */
struct neuron_dma_pinned {
	struct page **pages;
	unsigned int npages;
	struct sg_table sgt;
	enum dma_data_direction dir;
};

/**
 * struct neuron_dma_chan - one driver-owned copy queue: queue 0 of a host
 *	engine, with host rings, a completion marker and a bounce buffer
 * @dma: the device's DMA state
 * @eng: the engine (the channel owns it whole)
 * @q: its queue 0
 * @ring: coherent host memory: M2S ring, S2M ring, then the marker
 * @ring_dma: DMA address of @ring
 * @marker: completion marker words (source, destination)
 * @marker_pa: device-view address of @marker
 * @bounce: coherent host bounce buffer, NEURON_DMA_BOUNCE_SIZE bytes
 * @bounce_dma: its DMA address
 * @bounce_pa: its device-view address
 * @epoch: &neuron_dma.epoch when the engine was last programmed
 * @broken: the engine could not be programmed (nothing was written to it,
 *	so it runs nothing of ours); try again on next use
 * @dead: a transfer failed and the engine was still running
 *	NEURON_UDMA_QUIESCE_MS after it was told to stop, so it may still
 *	read and write what the transfer named.  The channel is never handed
 *	out again, never reprogrammed, and keeps its rings, bounce buffer,
 *	@hold and @pinned until the device goes (neuron_dma_detach_device())
 * @inflight: descriptor pairs submitted and not yet acknowledged
 * @queued: bytes the descriptors of the piece being queued or in flight
 *	move (the tracepoints' field, trace.h)
 * @submit_ns: ktime_get_ns() at the piece's submit, when the
 *	neuron_dma_complete tracepoint was on then; else 0
 * @use: chunks the transfer in flight uses, borrowed from the holder (no
 *	references); when the channel dies, @hold takes references on them
 * @hold: chunks an asynchronous copy in flight uses, or a dead channel
 *	keeps (references)
 * @pinned: user pages a dead channel keeps pinned and mapped
 *
 * A channel is used by one holder at a time (the bit in &neuron_dma.busy);
 * the holder alone touches the fields after @epoch, without a lock.  A
 * dead channel keeps its bit (nobody holds it); only the device's teardown
 * touches it then, once no DMA command runs.
 */
struct neuron_dma_chan {
	struct neuron_dma *dma;
	struct neuron_udma_engine eng;
	struct neuron_udma_queue *q;
	void *ring;
	dma_addr_t ring_dma;
	__le32 *marker;
	u64 marker_pa;
	void *bounce;
	dma_addr_t bounce_dma;
	u64 bounce_pa;
	int epoch;
	bool broken;
	bool dead;
	u32 inflight;
	u64 queued;
	u64 submit_ns;
	struct neuron_mem_chunk *use[2];
	struct neuron_mem_chunk *hold[2];
	struct neuron_dma_pinned pinned;
};

/**
 * struct neuron_dma_uhalf - one ring (TX or RX) of a user queue
 * @mc: the runtime's ring: the chunk it writes descriptors into
 * @size: descriptors in the ring
 * @tail: next slot to start (what the engine's tail will reach next)
 * @shadow: the ring the engine reads: checked copies of started slots
 * @shadow_dma: its DMA address
 */
struct neuron_dma_uhalf {
	struct neuron_mem_chunk *mc;
	u32 size;
	u32 tail;
	struct neuron_udma_desc *shadow;
	dma_addr_t shadow_dma;
};

/**
 * struct neuron_dma_uq - a queue user space programmed
 * @owner: the process that initialised it (a reference), NULL when free
 * @stale: a reset touched the queue's engine since it was initialised: the
 *	queue is parked, its rings and chunks are dropped, and it only
 *	waits for its owner to release it or initialise it again
 * @half: TX (M2S) and RX (S2M) rings
 * @refs: chunks the started descriptors address, one reference each,
 *	indexed by the chunk's address; held until the queue is released
 *	(or a reset makes it stale)
 * @dead: it was released (or its owner detached) while descriptors it
 *	started were still in flight NEURON_UDMA_QUIESCE_MS later on a running
 *	engine: it has no owner, is not parked, keeps @half and @refs (the
 *	engine may still use them) and cannot be initialised again; all of it
 *	is freed when the device goes (neuron_dma_user_gone()), after the
 *	engine stopped
 */
struct neuron_dma_uq {
	struct pid *owner;
	/* Read and written under the engine's &neuron_dma_ueng.lock. */
	bool dead;
	/*
	 * Set by the plane's reset callbacks, cleared by release and init;
	 * read and written only under the engine's &neuron_dma_ueng.lock,
	 * which COPY_START holds up to and including its doorbell.
	 */
	bool stale;
	struct neuron_dma_uhalf half[2];
	struct xarray refs;
};

/**
 * struct neuron_dma_ueng - an engine whose queues user space programs
 * @lock: protects everything below and the engine's registers
 * @id: engine id
 * @programmed: @eng was initialised, in device-reset epoch @epoch, and no
 *	reset of a core it belongs to came since
 * @epoch: see @programmed
 * @eng: the engine
 * @q: its queues
 */
struct neuron_dma_ueng {
	/* Protects the fields below and the engine's registers. */
	struct mutex lock;
	u32 id;
	bool programmed;
	int epoch;
	struct neuron_udma_engine eng;
	struct neuron_dma_uq q[NEURON_UDMA_MAX_QUEUES];
};

/**
 * struct neuron_dma_h2t - copy queues claimed on one host engine
 * @owner: per queue, the process that claimed it (a reference), or NULL
 * @nc: per queue, the NeuronCore it was claimed for
 */
struct neuron_dma_h2t {
	struct pid *owner[NEURON_UDMA_MAX_QUEUES];
	u8 nc[NEURON_UDMA_MAX_QUEUES];
};

/**
 * struct neuron_dma - a device's DMA state
 * @nd: the device
 * @lock: protects @gen, @ready, @gone, @nr_chans and the channels'
 *	memory (set up once, torn down when the device goes)
 * @gen: the DHAL's engine knobs
 * @ready: channels set up
 * @gone: the device was removed: no more DMA
 * @nr_chans: channels in @chans
 * @chans: the channels
 * @free: counts channels nobody holds
 * @busy_lock: protects @busy
 * @busy: bitmap of held channels
 * @async_held: channels held by asynchronous copies (at most
 *	@nr_chans - 1, so synchronous copies always find one)
 * @epoch: bumped by every device reset; a channel programmed before it is
 *	programmed again on its next use
 * @reinit: bitmap of channels whose engine a core reset touched since they
 *	were last programmed: programmed again on their next use (atomic
 *	bit operations, no lock)
 * @copies: transfers completed
 * @bytes: bytes they moved
 * @cpu_copies: copies the CPU did instead of the engine (dma_cpu.c)
 * @cpu_bytes: bytes they moved
 * @timeouts: waits that timed out
 * @errors: transfers the engine aborted
 * @interrupted: waits a fatal signal ended
 * @dead: channels that are dead (&neuron_dma_chan.dead); when it reaches
 *	@nr_chans one count of @free is given back for good, which every
 *	taker passes on after failing with -EIO
 * @dead_pages: user pages the dead channels keep pinned
 * @dead_queues: user queues that are dead (&neuron_dma_uq.dead)
 * @zc_queued: asynchronous zero-copy transfers queued (dma_zc.c)
 * @zc_done: of those, ended well
 * @zc_failed: ended with an error (their entry says which)
 * @zc_dropped: dropped unstarted because their file went
 * @uengs: engine id -> &struct neuron_dma_ueng, made on first use (under
 *	@lock), freed when the device goes
 * @shadow_bytes: bytes of user queues' shadow rings (at most
 *	neuron_dma_shadow_max_kb KiB)
 * @h2t_lock: protects @h2t
 * @h2t: copy queues claimed on each host engine (dma_h2t.c)
 * @scrub_lock: protects @scrub_busy and @scrub_done
 * @scrub_busy: bitmap of HBM channels an HBM_SCRUB_START is filling
 * @scrub_done: per HBM channel, the process (a reference) whose scrub
 *	finished and awaits its HBM_SCRUB_WAIT, or NULL (dma_scrub.c)
 * @debugfs: the device's dma file in debugfs
 */
struct neuron_dma {
	struct neuron_device *nd;
	/* Protects setup and teardown: gen, ready, gone, channel memory. */
	struct mutex lock;
	const struct neuron_udma_gen *gen;
	bool ready;
	bool gone;
	unsigned int nr_chans;
	struct neuron_dma_chan chans[NEURON_DMA_MAX_CHANS];
	struct semaphore free;
	/* Protects busy. */
	spinlock_t busy_lock;
	unsigned long busy;
	atomic_t async_held;
	atomic_t epoch;
	unsigned long reinit;
	atomic64_t copies;
	atomic64_t bytes;
	atomic64_t cpu_copies;
	atomic64_t cpu_bytes;
	atomic64_t timeouts;
	atomic64_t errors;
	atomic64_t interrupted;
	atomic_t dead;
	atomic64_t dead_pages;
	atomic64_t dead_queues;
	atomic64_t zc_queued;
	atomic64_t zc_done;
	atomic64_t zc_failed;
	atomic64_t zc_dropped;
	struct xarray uengs;
	atomic64_t shadow_bytes;
	/* Protects h2t. */
	struct mutex h2t_lock;
	struct neuron_dma_h2t h2t[NEURON_DMA_MAX_CHANS];
	/* Protects scrub_busy and scrub_done. */
	struct mutex scrub_lock;
	unsigned long scrub_busy;
	struct pid *scrub_done[NEURON_MAX_HBM];
	struct dentry *debugfs;
};

/* Entries of a zero-copy completion queue (a power of two). */
#define NEURON_ZC_CQ_ENTRIES	1024
/* Bytes of one, as GET_ASYNC_H2T_DMA_COMPL_QUEUES reports them. */
#define NEURON_ZC_CQ_BYTES	(sizeof(neuron_h2d_dma_compl_queue_t) + \
				 NEURON_ZC_CQ_ENTRIES * sizeof(neuron_h2d_dma_compl_queue_entry_t))
/* Operations one MEM_BUF_ZEROCOPY64_BATCHES call, or a file's queued ones, hold at most. */
#define NEURON_ZC_MAX_OPS	SZ_64K

/**
 * struct neuron_zc_batch - one batch of MEM_BUF_ZEROCOPY64_BATCHES, read in
 * @mc: its chunk (a reference)
 * @base: mem_handle_offset
 * @uops: where its operations are in user memory
 * @ops: its operations, read in and checked
 * @num_ops: how many
 */
struct neuron_zc_batch {
	struct neuron_mem_chunk *mc;
	u64 base;
	const void __user *uops;
	const nrt_tensor_batch_op_t *ops;
	u32 num_ops;
};

/**
 * struct neuron_zc_cq - a completion queue: a host chunk of the process,
 *	mapped by user space, that the driver appends an entry to when an
 *	asynchronous zero-copy transfer ends
 * @mc: the chunk (the queue's reference)
 * @ring: its memory
 * @tail: entries written; the copy in @ring is for user space, never read
 * @pending: transfers queued whose entry is still to come
 */
struct neuron_zc_cq {
	struct neuron_mem_chunk *mc;
	neuron_h2d_dma_compl_queue_t *ring;
	u32 tail;
	u32 pending;
};

/**
 * struct neuron_zc_file - a file's asynchronous zero-copy transfers
 * @nd: the device
 * @lock: protects @cq, @reqs and @ops
 * @cq: completion queues made so far, by host engine and queue
 * @reqs: transfers queued and not yet started, oldest first
 * @ops: operations they and the one running hold
 * @stop: the file goes: end the running transfer early, start no other
 * @work: runs the transfers, one at a time, in order
 */
struct neuron_zc_file {
	struct neuron_device *nd;
	/* Protects cq, reqs and ops. */
	struct mutex lock;
	struct neuron_zc_cq *cq[NEURON_DMA_MAX_CHANS][NEURON_UDMA_MAX_QUEUES];
	struct list_head reqs;
	u32 ops;
	bool stop;
	struct work_struct work;
};

/**
 * struct neuron_dma_async - a file's asynchronous copies
 * @lock: protects @chan and serialises the file's async commands
 * @chan: channel of the copy in flight behind handle ASYNC1 (index 0) and
 *	ASYNC2 (index 1), or NULL
 */
struct neuron_dma_async {
	/* Protects chan[] and serialises this file's async copies and waits. */
	struct mutex lock;
	struct neuron_dma_chan *chan[2];
};

/**
 * struct neuron_dma_file - a file's DMA state (&neuron_file.plane entry)
 * @async: its asynchronous copies
 * @zc: its asynchronous zero-copy transfers
 */
struct neuron_dma_file {
	struct neuron_dma_async async;
	struct neuron_zc_file zc;
};

extern unsigned int neuron_dma_timeout_ms;
extern unsigned int neuron_dma_shadow_max_kb;

/* The device's DMA state, while the plane is attached to it. */
static inline struct neuron_dma *neuron_dma_of(struct neuron_device *nd)
{
	return neuron_plane_priv(nd, NEURON_PLANE_DMA);
}

struct neuron_dma_file *neuron_dma_file(struct neuron_file *nf);
void neuron_dma_file_drain(struct neuron_file *nf);

/* The plane's callbacks (dma.c). */
int neuron_dma_attach(struct neuron_device *nd, void **priv);
void neuron_dma_publish(struct neuron_device *nd, void *priv);
void neuron_dma_detach_device(struct neuron_device *nd, void *priv);
void neuron_dma_stop(void);
int neuron_dma_stopped(struct neuron_dma *dma);
void neuron_dma_file_release(struct neuron_file *nf, void *fpriv);
void neuron_dma_process_detach(struct neuron_device *nd, void *priv, struct pid *tgid);
void neuron_dma_cores_reset(struct neuron_device *nd, void *priv, u32 cores);
void neuron_dma_device_reset(struct neuron_device *nd, void *priv);

/* dma_read.c */
int neuron_dma_read(struct neuron_device *nd, void *priv, const struct neuron_plane_dma_read *rd);

int neuron_dma_setup(struct neuron_dma *dma);
int neuron_dma_engine_check(struct neuron_dma *dma, u32 eng_id);
u32 neuron_dma_engine_cores(const struct neuron_udma_gen *gen, u32 ncs, u32 eng_id);
int neuron_dma_chunk_io(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			void *buf, u64 len, bool to_chunk);

void neuron_dma_async_init(struct neuron_dma_async *as);
void neuron_dma_async_release(struct neuron_device *nd, struct neuron_dma_async *as);

int neuron_dma_copy(struct neuron_device *nd, struct neuron_mem_chunk *src, u64 src_off,
		    struct neuron_mem_chunk *dst, u64 dst_off, u64 size);
int neuron_dma_fill(struct neuron_device *nd, u64 dst, u32 pattern, u64 size, bool *stuck);
int neuron_dma_scrub_start(struct neuron_device *nd, u32 nc_id, u32 hbm, u32 pattern);
int neuron_dma_scrub_wait(struct neuron_device *nd, u32 nc_id, u32 hbm);
void neuron_dma_scrub_detach(struct neuron_device *nd, struct pid *tgid);
void neuron_dma_scrub_fini(struct neuron_device *nd);
int neuron_dma_memset(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off, u8 value,
		      u64 size);
int neuron_dma_user_copy(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			 void __user *buf, u64 size, bool to_chunk);
int neuron_dma_user_readable(const void __user *buf, u64 size);
int neuron_dma_copy_async(struct neuron_device *nd, struct neuron_dma_async *as,
			  struct neuron_mem_chunk *src, u64 src_off,
			  struct neuron_mem_chunk *dst, u64 dst_off, u64 size, u32 pwait,
			  u32 *wait_handle);
int neuron_dma_async_wait(struct neuron_device *nd, struct neuron_dma_async *as, u32 handle);
int neuron_dma_engine_state(struct neuron_device *nd, u32 eng_id,
			    enum neuron_udma_state *tx, enum neuron_udma_state *rx);
int neuron_dma_queue_state(struct neuron_device *nd, u32 eng_id, u32 qid,
			   struct neuron_udma_queue_state *st);

/* dma_user.c: queues user space programs */
int neuron_dma_queue_init(struct neuron_device *nd, const struct neuron_ioctl_dma_queue_init *a,
			  unsigned int count);
int neuron_dma_queue_release(struct neuron_device *nd, u32 eng_id, u32 qid);
void neuron_dma_queue_bases(struct neuron_device *nd, u32 eng_id, u32 qid, u64 *tx, u64 *rx);
int neuron_dma_queue_start(struct neuron_device *nd, u32 eng_id, u32 qid, u32 tx_n, u32 rx_n);
int neuron_dma_queue_ack(struct neuron_device *nd, u32 eng_id, u32 qid, u32 count);
int neuron_dma_copy_descriptors(struct neuron_device *nd, u64 handle, const void __user *buf,
				u32 num, u64 off, u32 type);
int neuron_dma_descriptor_copyout(struct neuron_device *nd, u32 eng_id, u32 qid, u32 type,
				  u32 start, u32 count, void __user *buf);
int neuron_dma_eng_init(struct neuron_device *nd, u32 eng_id);
int neuron_dma_h2t_alloc(struct neuron_device *nd, u32 nc, u32 count, u32 *bmap, u32 *def);
int neuron_dma_h2t_free(struct neuron_device *nd, u32 nc, u32 bmap);
int neuron_dma_h2t_check(struct neuron_device *nd, u32 nc, s32 qid);
int neuron_dma_h2t_queue(struct neuron_device *nd, u32 nc, s32 qid, unsigned int *eng,
			 unsigned int *q);
void neuron_dma_h2t_detach(struct neuron_device *nd, struct pid *tgid);
void neuron_dma_h2t_reset(struct neuron_device *nd, u32 cores);
int neuron_dma_eng_set_state(struct neuron_device *nd, u32 eng_id, enum neuron_udma_state state);
void neuron_dma_detach(struct neuron_device *nd, struct pid *tgid);
void neuron_dma_user_reset(struct neuron_dma *dma, u32 cores);
void neuron_dma_user_gone(struct neuron_device *nd);

/* dma_cpu.c: small copies without the engine */
int neuron_dma_cpu_user(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			void __user *buf, u64 size, bool to_chunk);
int neuron_dma_cpu_copy(struct neuron_device *nd, struct neuron_mem_chunk *src, u64 src_off,
			struct neuron_mem_chunk *dst, u64 dst_off, u64 size);
#if IS_ENABLED(CONFIG_KUNIT)
u32 neuron_dma_cpu_threshold(u32 h2d, u32 d2h, u32 bus_rd, u32 bus_wr, bool src_dev,
			     bool dst_dev);
#endif

/* dma_zc.c: asynchronous zero-copy transfers and their completion queues */
int neuron_mem_buf_copy(struct neuron_device *nd, struct neuron_mem_chunk *mc,
			void __user *buf, u64 size, u64 offset, bool to_chunk);
int neuron_zc_batches_run(struct neuron_device *nd, const struct neuron_zc_batch *b, u32 n,
			  bool to_dev, const bool *stop, struct mm_struct *mm);
void neuron_zc_init(struct neuron_zc_file *zf, struct neuron_device *nd);
void neuron_zc_release(struct neuron_zc_file *zf);
void neuron_zc_drain(struct neuron_zc_file *zf);
int neuron_zc_queues(struct neuron_zc_file *zf, u32 nc, u32 bmap,
		     struct neuron_ioctl_get_async_h2t_dma_compl_queues *out);
int neuron_zc_submit(struct neuron_zc_file *zf, s32 qid, struct neuron_zc_batch *b, u32 nb,
		     nrt_tensor_batch_op_t *ops, u32 nops, bool to_dev, u64 seq, u64 ctx);

/* ioctl_dma.c, ioctl_buf.c: the command handlers */
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
long neuron_ioctl_mem_buf_copy(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_copy64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_zerocopy64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_zerocopy64_48(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_buf_zerocopy64_batches(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_program_engine(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_program_engine_nc(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_program_engine_nc64(struct neuron_file *nf, void __user *arg);

#endif /* _NEURON_UDMA_DMA_H */
