// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim DMA engines: the UDMA queues of a simulated device execute the
 * descriptors the driver writes.
 *
 * Register writes land in BAR 0's sparse RAM as before; the few that act
 * are also handed here: a queue's tail increment (the doorbell), its
 * software-reset bit, its cfg (enabling it) and an engine half's
 * change-state register.  Head, tail, completion head and state are read
 * from the state kept here.  On a doorbell the engine walks the queue's
 * M2S ring from its head to its tail, pairing the bytes of each source
 * descriptor with the next destination descriptors of the S2M ring (a
 * source packet ends its destination descriptor), and copies them.
 *
 * Addresses are device-view: with the generation's host bit set the rest
 * is a DMA address the driver got from the DMA API for this device
 * (dma-direct: the physical address), which must be RAM; below it, device
 * memory, mapped onto the BAR 4 RAM window the way the core slices it
 * (HBM region i owns the i-th of hbm_count equal page-aligned slices).
 * Sources in the B0 neighbour windows of the neighbour engines read the
 * MiscRAM of the device at the far end of the link (pod.c).
 * Anything else is an engine error: the engine aborts, nothing is written.
 *
 * Fault switches (debugfs): dma_abort fails the next descriptor, dma_stall
 * holds every queue back, and dma_busy_after_disable makes a half that is
 * told to stop keep running what it has (nsim_dma_set_busy_after_disable()),
 * as an engine with transfers outstanding would.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/dma-direct.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>
#include <neuron/udma.h>

#include "sim.h"

/* Module parameter dma_mode: run descriptors in the doorbell write or later. */
static bool nsim_dma_async;

static int nsim_dma_mode_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "sync"))
		WRITE_ONCE(nsim_dma_async, false);
	else if (sysfs_streq(val, "async"))
		WRITE_ONCE(nsim_dma_async, true);
	else
		return -EINVAL;
	return 0;
}

static int nsim_dma_mode_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", READ_ONCE(nsim_dma_async) ? "async" : "sync");
}

static const struct kernel_param_ops nsim_dma_mode_ops = {
	.set = nsim_dma_mode_set,
	.get = nsim_dma_mode_get,
};

module_param_cb(dma_mode, &nsim_dma_mode_ops, NULL, 0644);
MODULE_PARM_DESC(dma_mode,
		 "When simulated DMA engines run: sync (in the doorbell write, default) or async (from a work item)");

/**
 * struct nsim_dma_geom - where a generation's engines and memory are
 * @gen: generation number
 * @groups: engine groups
 * @group_engines: engines per group
 * @group_base: BAR 0 offset of each group's first engine
 * @stride: distance between engines of a group
 * @extra: engines after the groups
 * @extra_base: their BAR 0 offsets
 * @host_bit: the bit marking a host address
 * @hbm_count: HBM regions
 * @hbm_base: device address of each region
 */
struct nsim_dma_geom {
	u8 gen;
	u32 groups;
	u32 group_engines;
	u64 group_base[4];
	u64 stride;
	u32 extra;
	u64 extra_base[4];
	u64 host_bit;
	u32 hbm_count;
	u64 hbm_base[4];
};

#define NSIM_DMA_GEOM_V3(g) {						\
	.gen = (g),								\
	.groups = 4,								\
	.group_engines = 32,							\
	.group_base = { 0x82000000, 0x94000000, 0xa2000000, 0xb4000000 },	\
	.stride = 0x100000,							\
	.extra = 4,								\
	.extra_base = { 0x06800000, 0x06900000, 0x46800000, 0x46900000 },	\
	.host_bit = BIT_ULL(46),						\
	.hbm_count = 4,								\
	.hbm_base = { 0, 0x4000000000ULL, 0x800000000000ULL, 0x804000000000ULL },	\
}

static const struct nsim_dma_geom nsim_dma_geoms[] = {
	{
		.gen = 2,
		.groups = 2,
		.group_engines = 16,
		.group_base = { 0x30000000, 0x30700000 },
		.stride = 0x40000,
		.extra = 2,
		.extra_base = { 0x30600000, 0x30d00000 },
		.host_bit = BIT_ULL(44),
		.hbm_count = 2,
		.hbm_base = { 0, 0x1000000000ULL },
	},
	/* Trn3 keeps Trn2's engine and memory map. */
	NSIM_DMA_GEOM_V3(3),
	NSIM_DMA_GEOM_V3(4),
};

/* State register values of an engine half. */
#define NSIM_DMA_STATE_NORMAL	0x1111
#define NSIM_DMA_STATE_ABORTED	0x2222
#define NSIM_DMA_STATE_IDLE	0x0000

/**
 * struct nsim_dma_half - one half (M2S or S2M) of a queue
 * @head: offset of the next descriptor to execute
 * @tail: offset past the last descriptor the driver announced
 * @head_id: ring id the descriptor at @head must carry
 * @tail_id: ring id of @tail
 * @pos: bytes of the descriptor at @head already moved
 */
struct nsim_dma_half {
	u32 head;
	u32 tail;
	u8 head_id;
	u8 tail_id;
	u32 pos;
};

/**
 * struct nsim_dma_engine - execution state of one engine
 * @idx: its engine id
 * @base: BAR 0 offset of its registers
 * @state: state register of each half (0 M2S, 1 S2M)
 * @disabling: per half: told to stop while dma_busy_after_disable was set
 *	and it had descriptors to run; it keeps running (@state reads
 *	running) until it has run them or the switch is cleared
 * @pending: per queue: descriptors may wait to be executed
 * @doorbells: writes to the tail-increment register of any of its queues,
 *	either half (debugfs dma_doorbells)
 * @q: per queue, per half
 */
struct nsim_dma_engine {
	unsigned int idx;
	u64 base;
	u32 state[2];
	bool disabling[2];
	DECLARE_BITMAP(pending, NEURON_UDMA_MAX_QUEUES);
	u64 doorbells;
	struct nsim_dma_half q[NEURON_UDMA_MAX_QUEUES][2];
};

static const struct nsim_dma_geom *nsim_dma_geom(struct nsim_dev *sd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nsim_dma_geoms); i++)
		if (nsim_dma_geoms[i].gen == sd->gen->gen)
			return &nsim_dma_geoms[i];
	return NULL;
}

/* Engine whose register block holds BAR 0 offset @off; @rel gets the offset in it. */
static int nsim_dma_decode(struct nsim_dev *sd, u64 off, u64 *base, u32 *rel)
{
	const struct nsim_dma_geom *g = nsim_dma_geom(sd);
	unsigned int i;

	if (!g)
		return -1;
	for (i = 0; i < g->groups; i++) {
		u64 span = (u64)g->group_engines * g->stride, d;

		if (off < g->group_base[i] || off - g->group_base[i] >= span)
			continue;
		d = off - g->group_base[i];
		if (d % g->stride >= NEURON_UDMA_BLOCK_SIZE)
			return -1;
		*base = g->group_base[i] + rounddown(d, g->stride);
		*rel = d % g->stride;
		return i * g->group_engines + d / g->stride;
	}
	for (i = 0; i < g->extra; i++) {
		if (off >= g->extra_base[i] && off - g->extra_base[i] < NEURON_UDMA_BLOCK_SIZE) {
			*base = g->extra_base[i];
			*rel = off - g->extra_base[i];
			return g->groups * g->group_engines + i;
		}
	}
	return -1;
}

static u32 nsim_dma_reg(struct nsim_dev *sd, u64 off)
{
	void *entry = xa_load(&sd->regs, off / 4);

	return entry ? xa_to_value(entry) : 0;
}

/* Register @reg of queue @qid's half @h of the engine at @base. */
static u64 nsim_dma_qreg(u64 base, unsigned int h, unsigned int qid, u32 reg)
{
	return base + (h ? NEURON_UDMA_S2M : NEURON_UDMA_M2S) + NEURON_UDMA_QUEUE(qid) + reg;
}

static void nsim_dma_half_reset(struct nsim_dma_half *hq)
{
	hq->head = 0;
	hq->tail = 0;
	hq->pos = 0;
	hq->head_id = NEURON_UDMA_RING_ID_INIT;
	hq->tail_id = NEURON_UDMA_RING_ID_INIT;
}

/* The engine with index @idx, created on first use.  Called with dma_lock held. */
static struct nsim_dma_engine *nsim_dma_engine(struct nsim_dev *sd, unsigned int idx, u64 base)
{
	struct nsim_dma_engine *e;
	unsigned int q;

	lockdep_assert_held(&sd->dma_lock);

	e = xa_load(&sd->dma_engines, idx);
	if (e)
		return e;
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return NULL;
	e->idx = idx;
	e->base = base;
	e->state[0] = NSIM_DMA_STATE_NORMAL;
	e->state[1] = NSIM_DMA_STATE_NORMAL;
	for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++) {
		nsim_dma_half_reset(&e->q[q][0]);
		nsim_dma_half_reset(&e->q[q][1]);
	}
	if (xa_is_err(xa_store(&sd->dma_engines, idx, e, GFP_ATOMIC))) {
		kfree(e);
		return NULL;
	}
	return e;
}

/* Stop the engine with an error.  Called with dma_lock held. */
static void nsim_dma_fail(struct nsim_dev *sd, struct nsim_dma_engine *e, const char *why,
			  u64 addr)
{
	lockdep_assert_held(&sd->dma_lock);

	e->state[0] = NSIM_DMA_STATE_ABORTED;
	e->state[1] = NSIM_DMA_STATE_ABORTED;
	e->disabling[0] = false;
	e->disabling[1] = false;
	sd->dma_errors++;
	dev_info_ratelimited(&sd->dev, "DMA engine at 0x%llx aborted: %s (0x%llx)\n",
			     e->base, why, addr);
}

/* The span over which pfn_valid() gives one answer. */
#ifdef CONFIG_SPARSEMEM
#define NSIM_RAM_STEP	((phys_addr_t)PAGES_PER_SUBSECTION << PAGE_SHIFT)
#else
#define NSIM_RAM_STEP	((phys_addr_t)PAGE_SIZE)
#endif

/**
 * nsim_host_ptr() - kernel address of host memory the device is given
 * @sd: the simulated device
 * @addr: device-view address of the memory (with the host bit)
 * @len: bytes
 *
 * Return: the kernel address of @len bytes of host RAM at @addr, or NULL
 * when @addr is no host address or the range is not RAM.
 */
void *nsim_host_ptr(struct nsim_dev *sd, u64 addr, u32 len)
{
	const struct nsim_dma_geom *g = nsim_dma_geom(sd);
	phys_addr_t phys, p;
	u64 end;

	if (!len || !(addr & g->host_bit) || check_add_overflow(addr, (u64)len - 1, &end))
		return NULL;
	phys = dma_to_phys(&sd->dev, addr & ~g->host_bit);
	if ((end & ~g->host_bit) - (addr & ~g->host_bit) != len - 1 || phys + len - 1 < phys)
		return NULL;
	/*
	 * Every page RAM.  With SPARSEMEM that is known per subsection (2 MiB
	 * on x86), so one page of each is looked at: a 64 KiB descriptor
	 * costs one or two lookups rather than sixteen.
	 */
	for (p = phys & PAGE_MASK; p < phys + len; p = (p | (NSIM_RAM_STEP - 1)) + 1)
		if (!pfn_valid(PHYS_PFN(p)))
			return NULL;
	return phys_to_virt(phys);
}

/*
 * Kernel address of @len bytes at device-view address @addr, or NULL.
 * Called with dma_lock held, which keeps sd->mem mapped.
 */
static void *nsim_dma_resolve(struct nsim_dev *sd, u64 addr, u32 len)
{
	const struct nsim_dma_geom *g = nsim_dma_geom(sd);
	u64 end, share;
	unsigned int i;

	lockdep_assert_held(&sd->dma_lock);

	if (!len || check_add_overflow(addr, (u64)len - 1, &end))
		return NULL;
	if (addr & g->host_bit)
		return nsim_host_ptr(sd, addr, len);
	if (!sd->mem)
		return NULL;
	share = round_down(sd->mem_size / g->hbm_count, PAGE_SIZE);
	for (i = 0; i < g->hbm_count; i++) {
		u64 off = addr - g->hbm_base[i];

		if (addr < g->hbm_base[i] || off >= share)
			continue;
		if (off + len > share)
			return NULL;
		return sd->mem + i * share + off;
	}
	return NULL;
}

static bool nsim_dma_queue_enabled(struct nsim_dev *sd, struct nsim_dma_engine *e,
				   unsigned int qid)
{
	unsigned int h;

	for (h = 0; h < 2; h++) {
		u32 cfg = nsim_dma_reg(sd, nsim_dma_qreg(e->base, h, qid, NEURON_UDMA_Q_CFG));

		if ((cfg & NEURON_UDMA_Q_CFG_ENABLE) != NEURON_UDMA_Q_CFG_ENABLE)
			return false;
	}
	return true;
}

/*
 * One half of a queue while it runs: its ring, resolved once, and the
 * descriptor at its head once fetched.
 */
struct nsim_dma_cursor {
	struct nsim_dma_half *hq;
	const struct neuron_udma_desc *ring;	/* NULL: the ring does not resolve */
	u64 ring_addr;
	u32 size;
	unsigned int h;
	bool have;
	struct neuron_udma_desc d;
};

static void nsim_dma_cursor_init(struct nsim_dev *sd, struct nsim_dma_engine *e,
				 unsigned int qid, unsigned int h, struct nsim_dma_cursor *c)
{
	c->hq = &e->q[qid][h];
	c->h = h;
	c->have = false;
	c->size = nsim_dma_reg(sd, nsim_dma_qreg(e->base, h, qid, NEURON_UDMA_Q_LEN));
	c->ring_addr = nsim_dma_reg(sd, nsim_dma_qreg(e->base, h, qid, NEURON_UDMA_Q_BASE_LO)) |
		       (u64)nsim_dma_reg(sd, nsim_dma_qreg(e->base, h, qid,
							   NEURON_UDMA_Q_BASE_HI)) << 32;
	c->ring = NULL;
	if (c->size && c->size <= U32_MAX / NEURON_UDMA_DESC_SIZE)
		c->ring = nsim_dma_resolve(sd, c->ring_addr, c->size * NEURON_UDMA_DESC_SIZE);
}

/* Read and check the descriptor at the head of @c; false: engine failed. */
static bool nsim_dma_fetch(struct nsim_dev *sd, struct nsim_dma_engine *e,
			   struct nsim_dma_cursor *c)
{
	struct nsim_dma_half *hq = c->hq;
	u64 addr = c->ring_addr + (u64)hq->head * NEURON_UDMA_DESC_SIZE;
	u32 err_bit = c->h ? NEURON_UDMA_S2M_ERR_RING_ID : NEURON_UDMA_M2S_ERR_RING_ID;
	u32 half = c->h ? NEURON_UDMA_S2M : NEURON_UDMA_M2S;
	u32 id;

	if (c->have)
		return true;
	if (!c->ring || hq->head >= c->size) {
		nsim_dma_fail(sd, e, "descriptor address", addr);
		return false;
	}
	memcpy(&c->d, &c->ring[hq->head], sizeof(c->d));
	id = FIELD_GET(NEURON_UDMA_DESC_RING_ID, le32_to_cpu(c->d.ctrl));
	/* A ring-id mismatch is an error unless its error-log bit masks it. */
	if (id != hq->head_id &&
	    !(nsim_dma_reg(sd, e->base + half + NEURON_UDMA_ERR_LOG_MASK) & err_bit)) {
		nsim_dma_fail(sd, e, "descriptor ring id", addr);
		return false;
	}
	c->have = true;
	return true;
}

static void nsim_dma_advance(struct nsim_dma_half *hq, u32 size)
{
	hq->pos = 0;
	if (++hq->head >= size) {
		hq->head = 0;
		hq->head_id = (hq->head_id + 1) & NEURON_UDMA_RING_ID_MASK;
	}
}

static u32 nsim_dma_desc_len(const struct neuron_udma_desc *d)
{
	u32 len = FIELD_GET(NEURON_UDMA_DESC_LEN, le32_to_cpu(d->ctrl));

	return len ? len : NEURON_UDMA_MAX_DESC_LEN;
}

/*
 * memmove() for the engines.  The kernel's memmove() is one "rep movsb" on
 * a CPU that advertises fast string moves, as QEMU's "max" model does, and
 * QEMU's TCG carries that out a byte at a time: several times slower than
 * the word loop here.  The loop takes the common case (8-byte aligned starts,
 * no overlap); anything else goes to memmove().  The accesses are
 * READ_ONCE()/WRITE_ONCE() so that the compiler keeps the loop rather than
 * turning it back into a call to memcpy().
 */
static void nsim_dma_move(void *dst, const void *src, size_t n)
{
	const u64 *s = src;
	size_t words = n / 8, i;
	u64 *d = dst;

	if ((((uintptr_t)dst | (uintptr_t)src) & 7) ||
	    ((uintptr_t)dst < (uintptr_t)src + n && (uintptr_t)src < (uintptr_t)dst + n)) {
		memmove(dst, src, n);
		return;
	}
	for (i = 0; i + 4 <= words; i += 4) {
		WRITE_ONCE(d[i], READ_ONCE(s[i]));
		WRITE_ONCE(d[i + 1], READ_ONCE(s[i + 1]));
		WRITE_ONCE(d[i + 2], READ_ONCE(s[i + 2]));
		WRITE_ONCE(d[i + 3], READ_ONCE(s[i + 3]));
	}
	for (; i < words; i++)
		WRITE_ONCE(d[i], READ_ONCE(s[i]));
	memcpy(d + words, s + words, n & 7);
}

/* Whether half @h of @e has descriptors it has not run, on any queue. */
static bool nsim_dma_half_busy(const struct nsim_dma_engine *e, unsigned int h)
{
	unsigned int qid;

	for (qid = 0; qid < NEURON_UDMA_MAX_QUEUES; qid++)
		if (e->q[qid][h].head != e->q[qid][h].tail)
			return true;
	return false;
}

/*
 * A stop that dma_busy_after_disable held off takes effect once the half
 * has run everything it had, or the switch is cleared.  Called with
 * dma_lock held.
 */
static void nsim_dma_settle(struct nsim_dev *sd, struct nsim_dma_engine *e)
{
	unsigned int h;

	lockdep_assert_held(&sd->dma_lock);

	for (h = 0; h < 2; h++) {
		if (!e->disabling[h] || (sd->dma_busy_after_disable && nsim_dma_half_busy(e, h)))
			continue;
		e->disabling[h] = false;
		e->state[h] = NSIM_DMA_STATE_IDLE;
	}
}

/*
 * Execute what queue @qid has.  Called with dma_lock held.  A descriptor
 * is read once, when it reaches the head of its ring.
 */
static void __nsim_dma_run_queue(struct nsim_dev *sd, struct nsim_dma_engine *e,
				 unsigned int qid)
{
	struct nsim_dma_cursor mc, sc;
	struct nsim_dma_half *m = &e->q[qid][0], *s = &e->q[qid][1];

	lockdep_assert_held(&sd->dma_lock);

	/*
	 * Nothing to pair yet (the first of a pair of doorbells): nothing can
	 * run until the next doorbell, which marks the queue pending again.
	 */
	if (m->head == m->tail || s->head == s->tail) {
		clear_bit(qid, e->pending);
		return;
	}
	/* Held back: stays pending until the stall clears or the engine runs again. */
	if (sd->dma_stopped || sd->dma_stall ||
	    e->state[0] != NSIM_DMA_STATE_NORMAL || e->state[1] != NSIM_DMA_STATE_NORMAL ||
	    !nsim_dma_queue_enabled(sd, e, qid))
		return;
	clear_bit(qid, e->pending);
	nsim_dma_cursor_init(sd, e, qid, 0, &mc);
	nsim_dma_cursor_init(sd, e, qid, 1, &sc);

	while (m->head != m->tail && s->head != s->tail) {
		const struct neuron_udma_desc *md = &mc.d, *dd = &sc.d;
		u32 mlen, slen, chunk;
		void *src, *dst;
		bool mdone, sdone;
		int ret;

		if (!nsim_dma_fetch(sd, e, &mc) || !nsim_dma_fetch(sd, e, &sc))
			return;
		if (sd->dma_abort) {
			sd->dma_abort = false;
			nsim_dma_fail(sd, e, "dma_abort fault", le64_to_cpu(md->addr));
			return;
		}
		mlen = nsim_dma_desc_len(md);
		slen = nsim_dma_desc_len(dd);
		chunk = min(mlen - m->pos, slen - s->pos);
		src = nsim_dma_resolve(sd, le64_to_cpu(md->addr) + m->pos, chunk);
		dst = nsim_dma_resolve(sd, le64_to_cpu(dd->addr) + s->pos, chunk);
		/* A neighbour window reads another device's MiscRAM (pod.c). */
		ret = -ENOENT;
		if (!src && dst)
			ret = nsim_pod_dma_read(sd, e->idx, le64_to_cpu(md->addr) + m->pos, dst,
						chunk);
		if (ret && ret != -ENOENT) {
			nsim_dma_fail(sd, e, "neighbour link", le64_to_cpu(md->addr));
			return;
		}
		if (ret && (!src || !dst)) {
			nsim_dma_fail(sd, e, src ? "destination address" : "source address",
				      le64_to_cpu(src ? dd->addr : md->addr));
			return;
		}
		if (src)
			nsim_dma_move(dst, src, chunk);
		sd->dma_bytes += chunk;
		m->pos += chunk;
		s->pos += chunk;
		mdone = m->pos == mlen;
		sdone = s->pos == slen ||
			(mdone && (le32_to_cpu(md->ctrl) & NEURON_UDMA_DESC_LAST));
		if (mdone) {
			if (le32_to_cpu(md->meta) & NEURON_UDMA_META_WR_BARRIER)
				sd->dma_barriers++;
			nsim_dma_advance(m, mc.size);
			mc.have = false;
			sd->dma_descs++;
		}
		if (sdone) {
			nsim_dma_advance(s, sc.size);
			sc.have = false;
			sd->dma_descs++;
		}
	}
}

static void nsim_dma_run_queue(struct nsim_dev *sd, struct nsim_dma_engine *e, unsigned int qid)
{
	__nsim_dma_run_queue(sd, e, qid);
	nsim_dma_settle(sd, e);
}

static void nsim_dma_run_pending(struct nsim_dev *sd)
{
	struct nsim_dma_engine *e;
	unsigned long idx;
	unsigned int qid;

	lockdep_assert_held(&sd->dma_lock);

	xa_for_each(&sd->dma_engines, idx, e)
		for_each_set_bit(qid, e->pending, NEURON_UDMA_MAX_QUEUES)
			nsim_dma_run_queue(sd, e, qid);
}

static void nsim_dma_work(struct work_struct *work)
{
	struct nsim_dev *sd = container_of(work, struct nsim_dev, dma_work);

	spin_lock(&sd->dma_lock);
	nsim_dma_run_pending(sd);
	spin_unlock(&sd->dma_lock);
}

/* Run queue @qid now or from the work item.  Called with dma_lock held. */
static void nsim_dma_kick(struct nsim_dev *sd, struct nsim_dma_engine *e, unsigned int qid)
{
	set_bit(qid, e->pending);
	if (READ_ONCE(nsim_dma_async)) {
		if (!sd->dma_stopped)
			queue_work(system_unbound_wq, &sd->dma_work);
	} else {
		nsim_dma_run_queue(sd, e, qid);
	}
}

static void nsim_dma_doorbell(struct nsim_dev *sd, struct nsim_dma_engine *e,
			      unsigned int qid, unsigned int h, u32 n)
{
	struct nsim_dma_half *hq = &e->q[qid][h];
	u32 size = nsim_dma_reg(sd, nsim_dma_qreg(e->base, h, qid, NEURON_UDMA_Q_LEN));

	if (!n)
		return;
	if (!size || n >= size) {
		nsim_dma_fail(sd, e, "tail increment past the ring", n);
		return;
	}
	hq->tail += n;
	if (hq->tail >= size) {
		hq->tail -= size;
		hq->tail_id = (hq->tail_id + 1) & NEURON_UDMA_RING_ID_MASK;
	}
	nsim_dma_kick(sd, e, qid);
}

static void nsim_dma_change_state(struct nsim_dev *sd, struct nsim_dma_engine *e,
				  unsigned int h, u32 val)
{
	unsigned int qid;

	switch (val) {
	case NEURON_UDMA_CHANGE_NORMAL:
		e->disabling[h] = false;
		e->state[h] = NSIM_DMA_STATE_NORMAL;
		for (qid = 0; qid < NEURON_UDMA_MAX_QUEUES; qid++)
			if (test_bit(qid, e->pending))
				nsim_dma_kick(sd, e, qid);
		break;
	case NEURON_UDMA_CHANGE_DISABLE:
		/* dma_busy_after_disable: a running half finishes its work first. */
		if (e->state[h] == NSIM_DMA_STATE_NORMAL && sd->dma_busy_after_disable &&
		    nsim_dma_half_busy(e, h)) {
			e->disabling[h] = true;
			break;
		}
		e->disabling[h] = false;
		e->state[h] = NSIM_DMA_STATE_IDLE;
		break;
	case NEURON_UDMA_CHANGE_ABORT:
		e->disabling[h] = false;
		e->state[h] = NSIM_DMA_STATE_ABORTED;
		break;
	default:
		break;
	}
}

/**
 * nsim_dma_write() - act on a BAR 0 register write, if it is a DMA one
 * @sd: the simulated device
 * @off: BAR 0 offset, already stored in the sparse registers
 * @val: value written
 */
void nsim_dma_write(struct nsim_dev *sd, u64 off, u32 val)
{
	struct nsim_dma_engine *e;
	unsigned int h, qid;
	u32 rel, reg;
	u64 base;
	int idx;

	idx = nsim_dma_decode(sd, off, &base, &rel);
	if (idx < 0 || rel >= NEURON_UDMA_GEN)
		return;
	h = rel >= NEURON_UDMA_S2M;
	rel -= h ? NEURON_UDMA_S2M : NEURON_UDMA_M2S;

	spin_lock(&sd->dma_lock);
	e = nsim_dma_engine(sd, idx, base);
	if (!e) {
		dev_warn_ratelimited(&sd->dev, "DMA engine %d: out of memory\n", idx);
		goto out;
	}
	if (rel < NEURON_UDMA_QUEUE(0)) {
		if (rel == NEURON_UDMA_CHANGE_STATE)
			nsim_dma_change_state(sd, e, h, val);
		goto out;
	}
	qid = (rel - NEURON_UDMA_QUEUE(0)) / NEURON_UDMA_QUEUE_SIZE;
	reg = rel % NEURON_UDMA_QUEUE_SIZE;
	if (qid >= NEURON_UDMA_MAX_QUEUES)
		goto out;
	if (reg == NEURON_UDMA_Q_TAIL_INC) {
		e->doorbells++;
		nsim_dma_doorbell(sd, e, qid, h, val);
	} else if (reg == (h ? NEURON_UDMA_S2M_Q_SW_CTRL : NEURON_UDMA_M2S_Q_SW_CTRL) &&
		   (val & NEURON_UDMA_Q_SW_CTRL_RESET)) {
		/* A half still running off a stop keeps what its queue was given. */
		if (!e->disabling[h] || e->q[qid][h].head == e->q[qid][h].tail)
			nsim_dma_half_reset(&e->q[qid][h]);
	} else if (reg == NEURON_UDMA_Q_CFG && (val & NEURON_UDMA_Q_CFG_ENABLE)) {
		nsim_dma_kick(sd, e, qid);
	}
out:
	spin_unlock(&sd->dma_lock);
}

/**
 * nsim_dma_read() - the value of a DMA register kept by the engine model
 * @sd: the simulated device
 * @off: BAR 0 offset
 * @val: where the value goes
 *
 * Return: true if @off is such a register (head, tail, completion head,
 * state), false if it reads from the sparse registers.
 */
bool nsim_dma_read(struct nsim_dev *sd, u64 off, u32 *val)
{
	struct nsim_dma_engine *e;
	struct nsim_dma_half *hq;
	unsigned int h, qid;
	u32 rel, reg;
	u64 base;
	int idx;

	idx = nsim_dma_decode(sd, off, &base, &rel);
	if (idx < 0 || rel >= NEURON_UDMA_GEN)
		return false;
	h = rel >= NEURON_UDMA_S2M;
	rel -= h ? NEURON_UDMA_S2M : NEURON_UDMA_M2S;
	if (rel < NEURON_UDMA_QUEUE(0)) {
		if (rel != NEURON_UDMA_STATE)
			return false;
		reg = NEURON_UDMA_STATE;
		qid = 0;
	} else {
		qid = (rel - NEURON_UDMA_QUEUE(0)) / NEURON_UDMA_QUEUE_SIZE;
		reg = rel % NEURON_UDMA_QUEUE_SIZE;
		if (qid >= NEURON_UDMA_MAX_QUEUES ||
		    (reg != NEURON_UDMA_Q_HEAD && reg != NEURON_UDMA_Q_TAIL &&
		     reg != NEURON_UDMA_Q_CMPL_HEAD))
			return false;
	}

	spin_lock(&sd->dma_lock);
	e = xa_load(&sd->dma_engines, idx);
	if (reg == NEURON_UDMA_STATE) {
		*val = e ? e->state[h] : NSIM_DMA_STATE_NORMAL;
	} else if (!e) {
		*val = FIELD_PREP(NEURON_UDMA_Q_PTR_RING_ID, NEURON_UDMA_RING_ID_INIT);
	} else {
		hq = &e->q[qid][h];
		if (reg == NEURON_UDMA_Q_TAIL)
			*val = FIELD_PREP(NEURON_UDMA_Q_PTR_OFF, hq->tail) |
			       FIELD_PREP(NEURON_UDMA_Q_PTR_RING_ID, hq->tail_id);
		else
			*val = FIELD_PREP(NEURON_UDMA_Q_PTR_OFF, hq->head) |
			       FIELD_PREP(NEURON_UDMA_Q_PTR_RING_ID, hq->head_id);
	}
	spin_unlock(&sd->dma_lock);
	return true;
}

/**
 * nsim_dma_doorbells_list() - list the engines' doorbell counts
 * @m: where the listing goes
 * @sd: the simulated device
 *
 * One line "ENGINE COUNT" (decimal) per engine whose tail-increment
 * registers were ever written, in engine order.
 */
void nsim_dma_doorbells_list(struct seq_file *m, struct nsim_dev *sd)
{
	struct nsim_dma_engine *e;
	unsigned long idx;

	spin_lock(&sd->dma_lock);
	xa_for_each(&sd->dma_engines, idx, e)
		if (e->doorbells)
			seq_printf(m, "%lu %llu\n", idx, e->doorbells);
	spin_unlock(&sd->dma_lock);
}

/**
 * nsim_dma_set_fault() - set or clear a DMA fault switch
 * @sd: the simulated device
 * @stall: the dma_stall switch, else dma_abort
 * @on: new position
 *
 * Clearing dma_stall runs whatever the engines were holding back.
 */
void nsim_dma_set_fault(struct nsim_dev *sd, bool stall, bool on)
{
	struct nsim_dma_engine *e;
	unsigned long idx;

	spin_lock(&sd->dma_lock);
	if (!stall) {
		sd->dma_abort = on;
	} else {
		sd->dma_stall = on;
		if (!on) {
			xa_for_each(&sd->dma_engines, idx, e) {
				unsigned int qid;

				for (qid = 0; qid < NEURON_UDMA_MAX_QUEUES; qid++)
					if (test_bit(qid, e->pending))
						nsim_dma_kick(sd, e, qid);
			}
		}
	}
	spin_unlock(&sd->dma_lock);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_dma_set_fault);

/**
 * nsim_dma_get_fault() - position of a DMA fault switch
 * @sd: the simulated device
 * @stall: the dma_stall switch, else dma_abort
 *
 * Return: whether it is set.
 */
bool nsim_dma_get_fault(struct nsim_dev *sd, bool stall)
{
	bool on;

	spin_lock(&sd->dma_lock);
	on = stall ? sd->dma_stall : sd->dma_abort;
	spin_unlock(&sd->dma_lock);
	return on;
}

/**
 * nsim_dma_set_busy_after_disable() - set or clear dma_busy_after_disable
 * @sd: the simulated device
 * @on: new position
 *
 * While set, an engine half told to stop while it has descriptors to run
 * keeps running them (its state reads running) and stops only once it has
 * run them all; its queues that still have descriptors ignore software
 * resets meanwhile.  With dma_stall set, that is never.  Clearing the
 * switch stops such halves at once (what they still had stays pending,
 * as on any stopped engine).
 */
void nsim_dma_set_busy_after_disable(struct nsim_dev *sd, bool on)
{
	struct nsim_dma_engine *e;
	unsigned long idx;

	spin_lock(&sd->dma_lock);
	sd->dma_busy_after_disable = on;
	if (!on)
		xa_for_each(&sd->dma_engines, idx, e)
			nsim_dma_settle(sd, e);
	spin_unlock(&sd->dma_lock);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_dma_set_busy_after_disable);

/**
 * nsim_dma_get_busy_after_disable() - position of dma_busy_after_disable
 * @sd: the simulated device
 *
 * Return: whether it is set.
 */
bool nsim_dma_get_busy_after_disable(struct nsim_dev *sd)
{
	bool on;

	spin_lock(&sd->dma_lock);
	on = sd->dma_busy_after_disable;
	spin_unlock(&sd->dma_lock);
	return on;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_dma_get_busy_after_disable);

/**
 * nsim_dma_copy_bench() - time the engines' own copy, for benchmarks
 * @sd: the simulated device
 * @size: bytes, at most the device memory
 * @to_dev: into device memory, else out of it
 * @ns: the time it took
 *
 * Copies the first @size bytes of device memory into freshly allocated,
 * separate pages, or back, a page at a time, the way the engines copy
 * between device memory and a user buffer pinned by the driver.  Into the
 * device, the pages first get (untimed) what device memory holds, so the
 * timed copy writes every byte back unchanged.  This is the floor any DMA
 * transfer of @size bytes in that direction costs here: benchmarks compare
 * the driver against it (tools/bench/dma).
 *
 * Return: 0, -EINVAL for a bad @size or no device memory, -ENOMEM.
 */
int nsim_dma_copy_bench(struct nsim_dev *sd, u64 size, bool to_dev, u64 *ns)
{
	unsigned long n = DIV_ROUND_UP(size, PAGE_SIZE), i;
	struct page **pages;
	int ret = 0;
	ktime_t t;

	if (!size || size > sd->mem_size)
		return -EINVAL;
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	spin_lock(&sd->dma_lock);
	if (!sd->mem) {
		ret = -EINVAL;
	} else {
		for (i = 0; to_dev && i < n; i++)
			nsim_dma_move(page_address(pages[i]), sd->mem + i * PAGE_SIZE,
				      min_t(u64, PAGE_SIZE, size - i * PAGE_SIZE));
		t = ktime_get();
		for (i = 0; i < n; i++) {
			void *dev = sd->mem + i * PAGE_SIZE, *host = page_address(pages[i]);

			nsim_dma_move(to_dev ? dev : host, to_dev ? host : dev,
				      min_t(u64, PAGE_SIZE, size - i * PAGE_SIZE));
		}
		*ns = ktime_to_ns(ktime_sub(ktime_get(), t));
	}
	spin_unlock(&sd->dma_lock);
out:
	for (i = 0; i < n && pages[i]; i++)
		__free_page(pages[i]);
	kvfree(pages);
	return ret;
}

/**
 * nsim_dma_ring_write() - write words into a ring, as the device does
 * @sd: the simulated device
 * @base: device-view address of the ring
 * @size: ring size in bytes, a power of two of at least 4 * @n
 * @pos: byte offset in the ring of the first word, 4-aligned, below @size
 * @words: the words, written little-endian
 * @n: how many
 *
 * Word k goes to @base + ((@pos + 4k) mod @size).  Every word's address is
 * resolved as the DMA engines resolve theirs, under the DMA lock, before
 * anything is written, so a failure writes nothing and device memory cannot
 * be unmapped while it is written.
 *
 * Return: 0; -EINVAL for arguments breaking the rules above; -EFAULT when
 * an address does not resolve; -ENODEV once the device is stopped.
 */
int nsim_dma_ring_write(struct nsim_dev *sd, u64 base, u32 size, u32 pos,
			const u32 *words, unsigned int n)
{
	u32 len, first;
	u8 *p[2] = { NULL, NULL };
	unsigned int k;
	__le32 w;
	u64 addr;
	int ret = 0;

	if (!n || n > size / 4 || pos >= size)
		return -EINVAL;
	/* The ring end splits the words into two runs: from @pos, and from 0. */
	len = n * 4;
	first = min(len, size - pos);
	if (check_add_overflow(base, (u64)pos, &addr))
		return -EFAULT;
	spin_lock(&sd->dma_lock);
	if (sd->dma_stopped) {
		ret = -ENODEV;
		goto out;
	}
	p[0] = nsim_dma_resolve(sd, addr, first);
	if (first < len)
		p[1] = nsim_dma_resolve(sd, base, len - first);
	if (!p[0] || (first < len && !p[1])) {
		ret = -EFAULT;
		goto out;
	}
	for (k = 0; k < n; k++) {
		w = cpu_to_le32(words[k]);
		/* memcpy(): a ring's base need not be aligned. */
		if (k * 4 < first)
			memcpy(p[0] + k * 4, &w, sizeof(w));
		else
			memcpy(p[1] + k * 4 - first, &w, sizeof(w));
	}
out:
	spin_unlock(&sd->dma_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_dma_ring_write);

/**
 * nsim_dma_init() - set up the DMA engine model of a new device
 * @sd: the simulated device
 *
 * Engines are allocated on first use.
 */
void nsim_dma_init(struct nsim_dev *sd)
{
	spin_lock_init(&sd->dma_lock);
	xa_init(&sd->dma_engines);
	INIT_WORK(&sd->dma_work, nsim_dma_work);
}

/**
 * nsim_dma_stop() - stop the engines for good
 * @sd: the simulated device, no longer known to the core
 *
 * Later doorbells execute nothing; waits for the work item.
 */
void nsim_dma_stop(struct nsim_dev *sd)
{
	spin_lock(&sd->dma_lock);
	sd->dma_stopped = true;
	spin_unlock(&sd->dma_lock);
	cancel_work_sync(&sd->dma_work);
}

/**
 * nsim_dma_fini() - free the DMA engine model
 * @sd: the simulated device, stopped with nsim_dma_stop()
 */
void nsim_dma_fini(struct nsim_dev *sd)
{
	struct nsim_dma_engine *e;
	unsigned long idx;

	xa_for_each(&sd->dma_engines, idx, e)
		kfree(e);
	xa_destroy(&sd->dma_engines);
}
