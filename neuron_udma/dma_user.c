// SPDX-License-Identifier: GPL-2.0
/*
 * Queues user space programs: DMA_QUEUE_INIT[_BATCH], DMA_COPY_DESCRIPTORS,
 * DMA_QUEUE_COPY_START, DMA_ACK_COMPLETED, DMA_DESCRIPTOR_COPYOUT,
 * DMA_QUEUE_RELEASE and DMA_ENG_INIT.
 *
 * The runtime writes descriptors into rings in its own chunks and tells
 * the driver how many to start.  The engine never reads those chunks: each
 * queue has a shadow ring in driver memory, and DMA_QUEUE_COPY_START copies
 * the descriptors it starts from the runtime's ring into the shadow,
 * checking on the way that each one only addresses the calling process's
 * chunks.  Changing the runtime's ring afterwards (through a mapping or a
 * copy) therefore changes nothing the engine does.  Every chunk a started
 * descriptor addresses is held until the queue is released, so its memory
 * cannot be given to anyone else while the engine may still use it.
 *
 * A queue belongs to the process that initialised it; another process gets
 * -EBUSY.  Engines of the host-to-device group are the driver's own.  A
 * process's queues are parked (pointed at no ring) and released when it
 * detaches.  A queue is let go only once the engine has completed what it
 * started (or runs nothing): one whose transfers are still in flight
 * NEURON_UDMA_QUIESCE_MS later dies instead, keeping its memory until the
 * device goes, when its engine is stopped first.  A reset of the device,
 * or of a NeuronCore an engine belongs to, makes the queues on the engines
 * it touched stale: parked and dropped at once, refused with -ESTALE until
 * their owner releases them or initialises them again; the engines are
 * programmed again on next use.  See Documentation/dma.rst.
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dma.h"

/* The engine's half of a queue type (TX: M2S, RX: S2M). */
#define UQ_TX	0
#define UQ_RX	1

/* The queue's engine, made on first use when @create, or an ERR_PTR. */
static struct neuron_dma_ueng *neuron_uq_engine(struct neuron_dma *dma, u32 eng_id, bool create)
{
	struct neuron_dma_ueng *ue;
	int ret;

	ret = neuron_dma_engine_check(dma, eng_id);
	if (ret)
		return ERR_PTR(ret);
	/* The host engines are the driver's copy channels. */
	if (eng_id >= dma->gen->groups * dma->gen->group_engines)
		return ERR_PTR(-EBUSY);
	ue = xa_load(&dma->uengs, eng_id);
	if (ue || !create)
		return ue ? ue : ERR_PTR(-ENOENT);

	mutex_lock(&dma->lock);
	ue = xa_load(&dma->uengs, eng_id);
	if (!ue) {
		ue = kzalloc(sizeof(*ue), GFP_KERNEL);
		if (!ue) {
			ue = ERR_PTR(-ENOMEM);
		} else {
			unsigned int q;

			mutex_init(&ue->lock);
			ue->id = eng_id;
			for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++)
				xa_init(&ue->q[q].refs);
			ret = xa_err(xa_store(&dma->uengs, eng_id, ue, GFP_KERNEL));
			if (ret) {
				mutex_destroy(&ue->lock);
				kfree(ue);
				ue = ERR_PTR(ret);
			}
		}
	}
	mutex_unlock(&dma->lock);
	return ue;
}

/*
 * -EACCES when engine @eng_id belongs to a NeuronCore another process
 * holds (reserved it, or reset it: Documentation/state.rst): like the
 * core's registers, its engines are out of reach then.  Looked at once per
 * call, before the engine's lock is taken (the holds lock is a leaf).
 */
static int neuron_uq_core_check(struct neuron_device *nd, u32 eng_id)
{
	u32 ncs = neuron_device_dhal(nd)->layout->nc_count;

	if (neuron_dma_engine_cores(neuron_dma_of(nd)->gen, ncs, eng_id) &
	    neuron_process_foreign_cores(nd))
		return -EACCES;
	return 0;
}

/* Program the engine if it never was, or was before the last device reset. */
static int neuron_uq_engine_ready(struct neuron_dma *dma, struct neuron_dma_ueng *ue)
{
	int epoch = atomic_read(&dma->epoch);
	int ret;

	lockdep_assert_held(&ue->lock);
	if (ue->programmed && ue->epoch == epoch)
		return 0;
	ret = neuron_udma_engine_init(&ue->eng, dma->nd, dma->gen, ue->id);
	if (ret)
		return ret;
	neuron_udma_engine_error_setup(&ue->eng);
	ret = neuron_udma_engine_set_state(&ue->eng, NEURON_UDMA_NORMAL);
	if (ret)
		return ret;
	ue->programmed = true;
	ue->epoch = epoch;
	return 0;
}

static void neuron_uq_half_free(struct neuron_dma *dma, struct neuron_dma_uhalf *h)
{
	if (h->shadow) {
		dma_free_coherent(neuron_device_parent(dma->nd), h->size * sizeof(*h->shadow),
				  h->shadow, h->shadow_dma);
		atomic64_sub(h->size * sizeof(*h->shadow), &dma->shadow_bytes);
	}
	neuron_mem_put(h->mc);
	memset(h, 0, sizeof(*h));
}

/*
 * Park queue @qid (with @hw, on an engine that was programmed) and drop what
 * it holds: its shadow rings and the chunks its descriptors address.  Its
 * owner stays.
 */
static void neuron_uq_drop_locked(struct neuron_dma *dma, struct neuron_dma_ueng *ue,
				  unsigned int qid, bool hw)
{
	static const struct neuron_udma_ring_cfg none = {};
	struct neuron_dma_uq *uq = &ue->q[qid];
	struct neuron_mem_chunk *mc;
	unsigned long idx;

	lockdep_assert_held(&ue->lock);
	/* The engine lets go of the shadow rings before they are freed. */
	if (hw && ue->programmed)
		neuron_udma_queue_init(&ue->eng, qid, &none, &none);
	neuron_uq_half_free(dma, &uq->half[UQ_TX]);
	neuron_uq_half_free(dma, &uq->half[UQ_RX]);
	xa_for_each(&uq->refs, idx, mc) {
		xa_erase(&uq->refs, idx);
		neuron_mem_put(mc);
	}
}

/*
 * Park queue @qid, drop what it holds and forget its owner.  With @hw, on
 * an engine that was programmed, the descriptors the queue started and the
 * engine has not completed are waited for first (NEURON_UDMA_QUIESCE_MS at
 * most, unless the engine runs nothing at all: neuron_udma_queue_idle()).
 * If they are still in flight then, the queue dies instead: it keeps its
 * shadow rings and chunks, which the engine may still use, and nobody can
 * initialise it again until the device goes (neuron_dma_user_gone()).
 */
static void neuron_uq_release_locked(struct neuron_dma *dma, struct neuron_dma_ueng *ue,
				     unsigned int qid, bool hw)
{
	struct neuron_dma_uq *uq = &ue->q[qid];

	lockdep_assert_held(&ue->lock);
	if (!uq->owner)
		return;
	/* A stale queue was parked and dropped by the reset. */
	if (!uq->stale && hw && ue->programmed &&
	    neuron_udma_queue_quiesce(&ue->eng.queue[qid], NEURON_UDMA_QUIESCE_MS)) {
		uq->dead = true;
		atomic64_inc(&dma->dead_queues);
		dev_warn_ratelimited(neuron_device_parent(dma->nd),
				     "DMA engine %u queue %u: released with transfers in flight after %d ms; its memory is kept until the device goes\n",
				     ue->id, qid, NEURON_UDMA_QUIESCE_MS);
	} else if (!uq->stale) {
		neuron_uq_drop_locked(dma, ue, qid, hw);
	}
	put_pid(uq->owner);
	uq->owner = NULL;
	uq->stale = false;
}

/*
 * A ring for one half: a chunk of the caller's holding @count descriptors,
 * and its shadow, within the device's budget for shadows.
 */
static int neuron_uq_half_setup(struct neuron_dma *dma, struct neuron_dma_uhalf *h, u64 handle,
				u32 count)
{
	u64 bytes = (u64)count * sizeof(*h->shadow);
	struct neuron_device *nd = dma->nd;

	if (count < NEURON_UDMA_RING_MIN || count > NEURON_DMA_UQ_MAX_DESCS ||
	    count % (NEURON_UDMA_RING_ALIGN / NEURON_UDMA_DESC_SIZE))
		return -EINVAL;
	h->mc = neuron_mem_get(nd, handle);
	if (!h->mc)
		return -EINVAL;
	if ((u64)count * NEURON_UDMA_DESC_SIZE > h->mc->size)
		return -EINVAL;
	if (atomic64_add_return(bytes, &dma->shadow_bytes) >
	    (u64)READ_ONCE(neuron_dma_shadow_max_kb) * SZ_1K) {
		atomic64_sub(bytes, &dma->shadow_bytes);
		dev_warn_ratelimited(neuron_device_parent(nd),
				     "neuron%d: user DMA rings need more than dma_shadow_max_kb (%u KiB)\n",
				     neuron_device_index(nd), READ_ONCE(neuron_dma_shadow_max_kb));
		return -ENOMEM;
	}
	h->size = count;
	h->shadow = dma_alloc_coherent(neuron_device_parent(nd), bytes, &h->shadow_dma, GFP_KERNEL);
	if (!h->shadow) {
		atomic64_sub(bytes, &dma->shadow_bytes);
		return -ENOMEM;
	}
	return 0;
}

/* A DMA_QUEUE_INIT request checked, with its rings set up but not in use. */
struct neuron_uq_prep {
	struct neuron_dma_ueng *ue;
	unsigned int qid;
	struct neuron_dma_uhalf half[2];
};

static void neuron_uq_prep_free(struct neuron_dma *dma, struct neuron_uq_prep *p)
{
	neuron_uq_half_free(dma, &p->half[UQ_TX]);
	neuron_uq_half_free(dma, &p->half[UQ_RX]);
}

/*
 * Check @a and set up its rings, changing no queue: what fails here leaves
 * every queue as it was.  neuron_uq_install() or neuron_uq_prep_free() next.
 */
static int neuron_uq_prepare(struct neuron_device *nd, const struct neuron_ioctl_dma_queue_init *a,
			     struct neuron_uq_prep *p)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_dma_uq *uq;
	int ret;

	memset(p, 0, sizeof(*p));
	p->ue = neuron_uq_engine(dma, a->eng_id, true);
	if (IS_ERR(p->ue))
		return PTR_ERR(p->ue);
	if (a->qid >= dma->gen->queues || a->rxc_handle)
		return -EINVAL;
	ret = neuron_uq_core_check(nd, a->eng_id);
	if (ret)
		return ret;
	/* @a->qid comes from user space. */
	p->qid = array_index_nospec(a->qid, dma->gen->queues);
	/* Checked again when committing; here so that a refusal changes nothing. */
	mutex_lock(&p->ue->lock);
	uq = &p->ue->q[p->qid];
	ret = uq->dead || (uq->owner && uq->owner != task_tgid(current)) ? -EBUSY : 0;
	mutex_unlock(&p->ue->lock);
	if (ret)
		return ret;
	ret = neuron_uq_half_setup(dma, &p->half[UQ_TX], a->tx_handle, a->tx_desc_count);
	if (!ret)
		ret = neuron_uq_half_setup(dma, &p->half[UQ_RX], a->rx_handle, a->rx_desc_count);
	if (ret)
		neuron_uq_prep_free(dma, p);
	return ret;
}

/*
 * Put prepared rings in place of the queue's, and start it.  @p's rings are
 * the queue's afterwards, or freed.
 */
static int neuron_uq_install(struct neuron_device *nd, struct neuron_uq_prep *p)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_dma_ueng *ue = p->ue;
	struct neuron_udma_ring_cfg ring[2];
	struct neuron_dma_uq *uq;
	unsigned int t;
	int ret;

	mutex_lock(&ue->lock);
	uq = &ue->q[p->qid];
	ret = -EBUSY;
	if (uq->dead || (uq->owner && uq->owner != task_tgid(current)))
		goto out;
	neuron_uq_release_locked(dma, ue, p->qid, true);
	if (uq->dead)
		goto out;
	ret = neuron_uq_engine_ready(dma, ue);
	if (ret)
		goto out;
	uq->owner = get_pid(task_tgid(current));
	for (t = UQ_TX; t <= UQ_RX; t++) {
		uq->half[t] = p->half[t];
		memset(&p->half[t], 0, sizeof(p->half[t]));
		ring[t] = (struct neuron_udma_ring_cfg) {
			.addr = uq->half[t].shadow_dma | neuron_device_host_base(nd),
			.size = uq->half[t].size,
		};
	}
	ret = neuron_udma_queue_init(&ue->eng, p->qid, &ring[UQ_TX], &ring[UQ_RX]);
	if (ret)
		neuron_uq_release_locked(dma, ue, p->qid, false);
out:
	mutex_unlock(&ue->lock);
	neuron_uq_prep_free(dma, p);
	if (ret)
		return ret;
	/*
	 * Recorded, then rechecked (neuron_process_attached()): a process
	 * that detached meanwhile must not own a queue no detach will free.
	 */
	if (!neuron_process_attached(nd, task_tgid(current))) {
		mutex_lock(&ue->lock);
		if (uq->owner == task_tgid(current))
			neuron_uq_release_locked(dma, ue, p->qid, true);
		mutex_unlock(&ue->lock);
		return -EACCES;
	}
	return 0;
}

/**
 * neuron_dma_queue_init() - DMA_QUEUE_INIT and DMA_QUEUE_INIT_BATCH
 * @nd: the device
 * @a: the requests, copied in
 * @count: how many
 *
 * Both rings are required (rx_desc_count descriptors in rx_handle's chunk,
 * likewise tx), 32..NEURON_DMA_UQ_MAX_DESCS descriptors and a multiple of
 * 16; completion rings (rxc_handle) are not supported; the AXI port is
 * ignored (every generation has one).  Initialising one's own queue again
 * starts it over, a queue a reset made stale included (its engine is
 * programmed again first): it is released as DMA_QUEUE_RELEASE does, and
 * if its transfers do not complete, the queue dies (-EBUSY).
 *
 * Every request is checked and its rings set up before any queue changes,
 * so a bad request (an id, a count, a ring, a queue of another process's)
 * changes nothing; the new rings count against dma_shadow_max_kb alongside
 * the ones they replace until then.  After that the queues are started in
 * order, and what fails then (a queue that dies, the hardware, a detach)
 * stops there: the queues before it are started.
 *
 * Return: 0; -EINVAL for a bad id, count, ring or a completion ring;
 * -EACCES for an engine of a core another process holds, or when the
 * caller detached; -EBUSY for a host engine, another process's queue or a
 * dead one (see neuron_dma_queue_release()); -ENOMEM.
 */
int neuron_dma_queue_init(struct neuron_device *nd, const struct neuron_ioctl_dma_queue_init *a,
			  unsigned int count)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_uq_prep one, *p = &one;
	unsigned int i, n = 0;
	int ret = 0;

	if (count > 1) {
		p = kvcalloc(count, sizeof(*p), GFP_KERNEL_ACCOUNT);
		if (!p)
			return -ENOMEM;
	}
	for (; n < count && !ret; n++)
		ret = neuron_uq_prepare(nd, &a[n], &p[n]);
	if (ret)
		n--;	/* p[n - 1] failed and holds nothing. */
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = neuron_uq_install(nd, &p[i]);
		else
			neuron_uq_prep_free(dma, &p[i]);
	}
	if (p != &one)
		kvfree(p);
	return ret;
}

/*
 * The engine of the caller's queue @qid, returned with its lock held, which
 * the caller releases; or an ERR_PTR, with no lock held.  No __acquires():
 * sparse cannot express a lock taken only on success, and tracks no mutex.
 */
static struct neuron_dma_ueng *neuron_uq_get(struct neuron_device *nd, u32 eng_id, u32 qid)
{
	struct neuron_dma_ueng *ue = neuron_uq_engine(neuron_dma_of(nd), eng_id, false);
	struct pid *owner;

	if (ue == ERR_PTR(-ENOENT))
		return ERR_PTR(-EINVAL);
	if (IS_ERR(ue))
		return ue;
	if (qid >= neuron_dma_of(nd)->gen->queues)
		return ERR_PTR(-EINVAL);
	/* @qid comes from user space; the callers clamp their copy too. */
	qid = array_index_nospec(qid, neuron_dma_of(nd)->gen->queues);
	mutex_lock(&ue->lock);
	owner = ue->q[qid].owner;
	if (owner != task_tgid(current)) {
		mutex_unlock(&ue->lock);
		/* Nobody's queue: not initialised; someone else's: busy. */
		return ERR_PTR(owner ? -EBUSY : -EINVAL);
	}
	return ue;
}

/*
 * neuron_uq_get() for the commands that use the queue's rings: a queue a
 * reset made stale is -ESTALE, with no lock held.  Otherwise the engine's
 * lock, held until the command is done, keeps a reset from making the
 * queue stale meanwhile: the reset waits for it.
 */
static struct neuron_dma_ueng *neuron_uq_get_live(struct neuron_device *nd, u32 eng_id, u32 qid)
{
	struct neuron_dma_ueng *ue = neuron_uq_get(nd, eng_id, qid);

	if (IS_ERR(ue))
		return ue;
	/* @qid was checked by neuron_uq_get(). */
	if (ue->q[array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES)].stale) {
		mutex_unlock(&ue->lock);
		return ERR_PTR(-ESTALE);
	}
	return ue;
}

/**
 * neuron_dma_queue_release() - DMA_QUEUE_RELEASE
 * @nd: the device
 * @eng_id: engine
 * @qid: queue
 *
 * A queue a reset made stale is released too.  Descriptors the queue
 * started that the engine has not completed are waited for, at most
 * NEURON_UDMA_QUIESCE_MS (not at all when the engine runs nothing); if
 * they are still in flight then, the queue is released all the same but
 * dies: its shadow rings and the chunks its descriptors address are kept
 * (the engine may still use them) until the device goes, and nobody can
 * initialise it again (-EBUSY) until then.
 *
 * Return: 0; -EINVAL for a bad id or a queue that is not initialised;
 * -EBUSY for another process's queue.
 */
int neuron_dma_queue_release(struct neuron_device *nd, u32 eng_id, u32 qid)
{
	struct neuron_dma_ueng *ue = neuron_uq_get(nd, eng_id, qid);

	if (IS_ERR(ue))
		return PTR_ERR(ue);
	qid = array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES);	/* checked */
	neuron_uq_release_locked(neuron_dma_of(nd), ue, qid, true);
	mutex_unlock(&ue->lock);
	return 0;
}

/**
 * neuron_dma_queue_bases() - the ring bases DMA_QUEUE_GET_STATE reports
 * @nd: the device
 * @eng_id: engine, checked by the caller
 * @qid: queue, checked by the caller
 * @tx: set to the address of the caller's TX ring, or 0
 * @rx: likewise for the RX ring
 *
 * The engine's base registers never hold an address user space gave: the
 * host engines run the driver's channels, on rings in driver memory, and
 * every user queue runs on shadow rings in driver memory.  No process may
 * learn those addresses.  So for a queue the calling process initialised
 * with DMA_QUEUE_INIT the bases are those of the rings it named there
 * (the device-view addresses of its own chunks, which MEM_GET_PA tells
 * it), and for every other queue (the driver's, another process's, one
 * nobody initialised, one a reset made stale, whose rings are let go) they
 * are 0.
 */
void neuron_dma_queue_bases(struct neuron_device *nd, u32 eng_id, u32 qid, u64 *tx, u64 *rx)
{
	struct neuron_dma_ueng *ue = neuron_uq_engine(neuron_dma_of(nd), eng_id, false);
	struct neuron_dma_uq *uq;

	*tx = 0;
	*rx = 0;
	if (IS_ERR(ue) || qid >= NEURON_UDMA_MAX_QUEUES)
		return;
	/* @qid comes from user space. */
	uq = &ue->q[array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES)];
	mutex_lock(&ue->lock);
	if (uq->owner == task_tgid(current) && uq->half[UQ_TX].mc && uq->half[UQ_RX].mc) {
		*tx = uq->half[UQ_TX].mc->pa;
		*rx = uq->half[UQ_RX].mc->pa;
	}
	mutex_unlock(&ue->lock);
}

/*
 * A chunk that the start in progress began to hold carries this mark in the
 * queue's refs until the start either commits (mark cleared) or fails
 * (entry erased), so a failed start is undone without a list of its own.
 */
#define NEURON_UQ_NEW	XA_MARK_0

/*
 * Check that descriptor @d of a @type ring addresses only a chunk of the
 * caller's: its whole length.  With @refs, the chunk is kept there (one
 * reference per chunk), and a chunk not held before is marked NEURON_UQ_NEW.
 */
static int neuron_uq_check_desc(struct neuron_device *nd, const struct neuron_udma_desc *d,
				struct xarray *refs)
{
	u32 len = le32_to_cpu(d->ctrl) & NEURON_UDMA_DESC_LEN;
	u64 addr = le64_to_cpu(d->addr), off;
	struct neuron_mem_chunk *mc;
	int ret;

	if (!len)
		len = NEURON_UDMA_MAX_DESC_LEN;
	mc = neuron_mem_get_by_pa(nd, addr);
	if (!mc)
		return -EINVAL;
	off = addr - mc->pa;
	if (off + len > mc->size) {
		neuron_mem_put(mc);
		return -EINVAL;
	}
	if (!refs) {
		neuron_mem_put(mc);
		return 0;
	}
	ret = xa_insert(refs, (unsigned long)mc, mc, GFP_KERNEL);
	if (ret) {
		neuron_mem_put(mc);	/* -EBUSY: held already */
		return ret == -EBUSY ? 0 : ret;
	}
	xa_set_mark(refs, (unsigned long)mc, NEURON_UQ_NEW);
	return 0;
}

/*
 * The start in progress ends: on success keep the chunks it began to hold,
 * else let go of them.  The queue's engine lock is held throughout.
 */
static void neuron_uq_settle(struct neuron_dma_uq *uq, bool keep)
{
	struct neuron_mem_chunk *mc;
	unsigned long idx;

	xa_for_each_marked(&uq->refs, idx, mc, NEURON_UQ_NEW) {
		if (keep) {
			xa_clear_mark(&uq->refs, idx, NEURON_UQ_NEW);
		} else {
			xa_erase(&uq->refs, idx);
			neuron_mem_put(mc);
		}
	}
}

/* Descriptors from a chunk's [off, off + n * 16) into @buf, or back. */
static int neuron_uq_chunk_io(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			      void *buf, u32 n, bool to_chunk)
{
	return neuron_dma_chunk_io(nd, mc, off, buf, (u64)n * NEURON_UDMA_DESC_SIZE, to_chunk);
}

/*
 * Read the @n descriptors of half @t that the next start hands over (from
 * the runtime's ring, at the tail) into @d, and check each.
 */
static int neuron_uq_fetch(struct neuron_device *nd, struct neuron_dma_uhalf *h,
			   struct neuron_udma_desc *d, u32 n)
{
	u32 first = min(n, h->size - h->tail), i;
	int ret;

	ret = neuron_uq_chunk_io(nd, h->mc, (u64)h->tail * NEURON_UDMA_DESC_SIZE, d, first, false);
	if (!ret && n > first)
		ret = neuron_uq_chunk_io(nd, h->mc, 0, d + first, n - first, false);
	for (i = 0; i < n && !ret; i++)
		ret = neuron_uq_check_desc(nd, &d[i], NULL);
	return ret;
}

/* Put @n checked descriptors into the shadow at the tail, holding their chunks. */
static int neuron_uq_commit(struct neuron_device *nd, struct neuron_dma_uq *uq,
			    struct neuron_dma_uhalf *h, const struct neuron_udma_desc *d, u32 n)
{
	u32 first = min(n, h->size - h->tail), i;
	int ret;

	for (i = 0; i < n; i++) {
		/* A chunk freed since the check makes this fail: nothing is started. */
		ret = neuron_uq_check_desc(nd, &d[i], &uq->refs);
		if (ret)
			return ret;
	}
	memcpy(&h->shadow[h->tail], d, first * sizeof(*d));
	memcpy(h->shadow, d + first, (n - first) * sizeof(*d));
	return 0;
}

/**
 * neuron_dma_queue_start() - DMA_QUEUE_COPY_START
 * @nd: the device
 * @eng_id: engine
 * @qid: queue
 * @tx_n: descriptors to start on the TX ring, after those started before
 * @rx_n: likewise on the RX ring
 *
 * Either count may be 0; each must leave the ring's 16 reserved slots.
 *
 * Return: 0; -EINVAL for a bad id or count, or a descriptor that addresses
 * anything but the caller's chunks (nothing is started then); -EBUSY for
 * another process's queue; -ESTALE for a queue a reset made stale (nothing
 * is started, no doorbell rings).
 */
int neuron_dma_queue_start(struct neuron_device *nd, u32 eng_id, u32 qid, u32 tx_n, u32 rx_n)
{
	struct neuron_dma_ueng *ue = neuron_uq_get_live(nd, eng_id, qid);
	struct neuron_udma_desc *d = NULL;
	struct neuron_dma_uhalf *tx, *rx;
	struct neuron_dma_uq *uq;
	int ret = -EINVAL;

	if (IS_ERR(ue))
		return PTR_ERR(ue);
	qid = array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES);	/* checked */
	uq = &ue->q[qid];
	tx = &uq->half[UQ_TX];
	rx = &uq->half[UQ_RX];
	if (tx_n > tx->size - NEURON_UDMA_RING_RESERVED ||
	    rx_n > rx->size - NEURON_UDMA_RING_RESERVED)
		goto out;
	ret = 0;
	if (!tx_n && !rx_n)
		goto out;
	ret = -ENOMEM;
	d = kvmalloc_array(tx_n + rx_n, sizeof(*d), GFP_KERNEL);
	if (!d)
		goto out;
	/* Everything is read and checked before anything reaches the shadow. */
	ret = neuron_uq_fetch(nd, tx, d, tx_n);
	if (!ret)
		ret = neuron_uq_fetch(nd, rx, d + tx_n, rx_n);
	if (!ret)
		ret = neuron_uq_commit(nd, uq, tx, d, tx_n);
	if (!ret)
		ret = neuron_uq_commit(nd, uq, rx, d + tx_n, rx_n);
	neuron_uq_settle(uq, !ret);
	if (ret)
		goto out;
	tx->tail = (tx->tail + tx_n) % tx->size;
	rx->tail = (rx->tail + rx_n) % rx->size;
	neuron_udma_doorbell(&ue->eng.queue[qid], tx_n, rx_n);
out:
	mutex_unlock(&ue->lock);
	kvfree(d);
	return ret;
}

/**
 * neuron_dma_queue_ack() - DMA_ACK_COMPLETED
 * @nd: the device
 * @eng_id: engine
 * @qid: queue
 * @count: descriptors the caller has seen complete
 *
 * The driver keeps no per-descriptor state for these queues, so this only
 * checks the request.
 *
 * Return: 0; -EINVAL for a bad id or a count larger than the ring; -EBUSY
 * for another process's queue; -ESTALE for a queue a reset made stale.
 */
int neuron_dma_queue_ack(struct neuron_device *nd, u32 eng_id, u32 qid, u32 count)
{
	struct neuron_dma_ueng *ue = neuron_uq_get_live(nd, eng_id, qid);
	int ret = 0;

	if (IS_ERR(ue))
		return PTR_ERR(ue);
	qid = array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES);	/* checked */
	if (count > ue->q[qid].half[UQ_RX].size)
		ret = -EINVAL;
	mutex_unlock(&ue->lock);
	return ret;
}

/**
 * neuron_dma_copy_descriptors() - DMA_COPY_DESCRIPTORS[64]
 * @nd: the device
 * @handle: the ring's chunk, the caller's
 * @buf: user address of the descriptors
 * @num: how many, 1..NEURON_DMA_UQ_MAX_DESCS
 * @off: byte offset in the chunk, a multiple of 16
 * @type: NEURON_DMA_QUEUE_TYPE_TX or _RX
 *
 * Every descriptor must address only the caller's chunks; they are all
 * checked before any is written.  (They are checked again when started.)
 *
 * Return: 0; -EFAULT; -EINVAL for a bad handle, type, count or range, or a
 * descriptor addressing anything else; -ENOMEM.
 */
int neuron_dma_copy_descriptors(struct neuron_device *nd, u64 handle, const void __user *buf,
				u32 num, u64 off, u32 type)
{
	struct neuron_udma_desc *d;
	struct neuron_mem_chunk *mc;
	u64 bytes;
	u32 i;
	int ret;

	if ((type != NEURON_DMA_QUEUE_TYPE_TX && type != NEURON_DMA_QUEUE_TYPE_RX) || !num ||
	    num > NEURON_DMA_UQ_MAX_DESCS || off % NEURON_UDMA_DESC_SIZE)
		return -EINVAL;
	ret = neuron_dma_setup(neuron_dma_of(nd));
	if (ret)
		return ret;
	mc = neuron_mem_get(nd, handle);
	if (!mc)
		return -EINVAL;
	bytes = (u64)num * NEURON_UDMA_DESC_SIZE;
	ret = -EINVAL;
	if (!neuron_mem_range_ok(mc, off, bytes))
		goto out;
	ret = -ENOMEM;
	d = kvmalloc(bytes, GFP_KERNEL);
	if (!d)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(d, buf, bytes))
		goto free;
	for (i = 0; i < num; i++) {
		ret = neuron_uq_check_desc(nd, &d[i], NULL);
		if (ret)
			goto free;
	}
	ret = neuron_uq_chunk_io(nd, mc, off, d, num, true);
free:
	kvfree(d);
out:
	neuron_mem_put(mc);
	return ret;
}

/**
 * neuron_dma_descriptor_copyout() - DMA_DESCRIPTOR_COPYOUT
 * @nd: the device
 * @eng_id: engine
 * @qid: queue
 * @type: NEURON_DMA_QUEUE_TYPE_TX or _RX
 * @start: first descriptor
 * @count: how many, at least 1
 * @buf: user address they go to
 *
 * Copies what the engine was given (the shadow ring), not the runtime's
 * ring; slots never started read as zeros.
 *
 * Return: 0; -EFAULT; -EINVAL for a bad id, type or range; -EBUSY for
 * another process's queue; -ESTALE for a queue a reset made stale.
 */
int neuron_dma_descriptor_copyout(struct neuron_device *nd, u32 eng_id, u32 qid, u32 type,
				  u32 start, u32 count, void __user *buf)
{
	struct neuron_udma_desc *copy;
	struct neuron_dma_ueng *ue;
	struct neuron_dma_uhalf *h;
	u64 end, bytes;
	int ret = -EINVAL;

	if (type != NEURON_DMA_QUEUE_TYPE_TX && type != NEURON_DMA_QUEUE_TYPE_RX)
		return -EINVAL;
	if (!count || count > NEURON_DMA_UQ_MAX_DESCS)
		return -EINVAL;
	/*
	 * Copied out of the engine's lock: a fault on @buf may take as long as
	 * user space wants, and would stall everyone using the engine.
	 */
	bytes = (u64)count * sizeof(*copy);
	copy = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!copy)
		return -ENOMEM;
	ue = neuron_uq_get_live(nd, eng_id, qid);
	if (IS_ERR(ue)) {
		kvfree(copy);
		return PTR_ERR(ue);
	}
	qid = array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES);	/* checked */
	h = &ue->q[qid].half[type == NEURON_DMA_QUEUE_TYPE_TX ? UQ_TX : UQ_RX];
	if (!check_add_overflow((u64)start, (u64)count, &end) && end <= h->size) {
		/* @start comes from user space. */
		start = array_index_nospec(start, h->size);
		memcpy(copy, &h->shadow[start], bytes);
		ret = 0;
	}
	mutex_unlock(&ue->lock);
	if (!ret && copy_to_user(buf, copy, bytes))
		ret = -EFAULT;
	kvfree(copy);
	return ret;
}

/*
 * Run @fn on engine @eng_id, programmed, while no other process has a
 * queue on it.
 */
static int neuron_uq_engine_op(struct neuron_device *nd, u32 eng_id,
			       int (*fn)(struct neuron_dma *dma, struct neuron_dma_ueng *ue,
					 enum neuron_udma_state state),
			       enum neuron_udma_state state)
{
	struct neuron_dma_ueng *ue = neuron_uq_engine(neuron_dma_of(nd), eng_id, true);
	unsigned int q;
	int ret = 0;

	if (IS_ERR(ue))
		return PTR_ERR(ue);
	ret = neuron_uq_core_check(nd, eng_id);
	if (ret)
		return ret;
	mutex_lock(&ue->lock);
	for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++)
		if (ue->q[q].owner && ue->q[q].owner != task_tgid(current))
			ret = -EBUSY;
	if (!ret)
		ret = fn(neuron_dma_of(nd), ue, state);
	mutex_unlock(&ue->lock);
	return ret;
}

static int neuron_uq_reinit(struct neuron_dma *dma, struct neuron_dma_ueng *ue,
			    enum neuron_udma_state state)
{
	ue->programmed = false;
	return neuron_uq_engine_ready(dma, ue);
}

static int neuron_uq_set_state(struct neuron_dma *dma, struct neuron_dma_ueng *ue,
			       enum neuron_udma_state state)
{
	int ret = neuron_uq_engine_ready(dma, ue);

	return ret ? ret : neuron_udma_engine_set_state(&ue->eng, state);
}

/**
 * neuron_dma_eng_init() - DMA_ENG_INIT: program an engine again
 * @nd: the device
 * @eng_id: engine
 *
 * Only while no other process has a queue on it.
 *
 * Return: 0; -EINVAL for a bad id; -EACCES for an engine of a core another
 * process holds; -EBUSY for a host engine or one another process uses;
 * -ENOMEM.
 */
int neuron_dma_eng_init(struct neuron_device *nd, u32 eng_id)
{
	return neuron_uq_engine_op(nd, eng_id, neuron_uq_reinit, NEURON_UDMA_NORMAL);
}

/**
 * neuron_dma_eng_set_state() - DMA_ENG_SET_STATE: run, stop or abort an engine
 * @nd: the device
 * @eng_id: engine
 * @state: NEURON_UDMA_NORMAL, NEURON_UDMA_DISABLED or NEURON_UDMA_ABORTED
 *
 * Both halves change.  Only while no other process has a queue on the
 * engine; an engine never programmed is programmed first.
 *
 * Return: 0; -EINVAL for a bad id or state; -EACCES for an engine of a
 * core another process holds; -EBUSY for a host engine or one another
 * process uses; -ENOMEM.
 */
int neuron_dma_eng_set_state(struct neuron_device *nd, u32 eng_id, enum neuron_udma_state state)
{
	if (state != NEURON_UDMA_NORMAL && state != NEURON_UDMA_DISABLED &&
	    state != NEURON_UDMA_ABORTED)
		return -EINVAL;
	return neuron_uq_engine_op(nd, eng_id, neuron_uq_set_state, state);
}

/**
 * neuron_dma_detach() - a process detached: release its queues
 * @nd: the device
 * @tgid: the process
 */
void neuron_dma_detach(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_dma_ueng *ue;
	unsigned long id;
	unsigned int q;

	/* The plane lock keeps the device's DMA state from going meanwhile. */
	xa_for_each(&dma->uengs, id, ue) {
		mutex_lock(&ue->lock);
		for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++)
			if (ue->q[q].owner == tgid)
				neuron_uq_release_locked(dma, ue, q, true);
		mutex_unlock(&ue->lock);
	}
}

/**
 * neuron_dma_user_reset() - cores or the device were reset: stale queues
 * @dma: the device's DMA state
 * @cores: the NeuronCores reset (bit n: core n); U32_MAX for the device
 *
 * Every queue on an engine the reset touched (neuron_dma_engine_cores())
 * becomes stale: it is parked and its shadow rings and chunks are let go
 * now, while its owner keeps it until DMA_QUEUE_RELEASE, DMA_QUEUE_INIT or
 * its detach; COPY_START, ACK_COMPLETED and DESCRIPTOR_COPYOUT refuse it
 * with -ESTALE.  Those engines, with or without queues, are programmed
 * again (error handling included) on their next use.
 *
 * Called from the plane's reset callbacks, with the plane lock held (so
 * the engines cannot go meanwhile).  Each engine's lock is taken, so a
 * command holding it (COPY_START up to its doorbell) ends first, and none
 * reaches a stale queue's rings or doorbell once this returned.
 */
void neuron_dma_user_reset(struct neuron_dma *dma, u32 cores)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(dma->nd);
	u32 ncs = dhal && dhal->layout ? dhal->layout->nc_count : 0;
	const struct neuron_udma_gen *gen;
	struct neuron_dma_ueng *ue;
	unsigned long id;
	unsigned int q;

	/* User engines exist only once DMA is set up, which sets @gen for good. */
	mutex_lock(&dma->lock);
	gen = dma->ready ? dma->gen : NULL;
	mutex_unlock(&dma->lock);
	if (!gen)
		return;
	xa_for_each(&dma->uengs, id, ue) {
		if (!(neuron_dma_engine_cores(gen, ncs, id) & cores))
			continue;
		mutex_lock(&ue->lock);
		for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++) {
			if (!ue->q[q].owner || ue->q[q].stale)
				continue;
			neuron_uq_drop_locked(dma, ue, q, true);
			ue->q[q].stale = true;
		}
		ue->programmed = false;
		mutex_unlock(&ue->lock);
	}
}

/**
 * neuron_dma_user_gone() - the device goes: stop and free every user queue
 * @nd: the device; no DMA command runs on it
 *
 * Each engine is stopped and waited for until it moves no data
 * (neuron_udma_engine_quiesce(), NEURON_UDMA_QUIESCE_MS at most); only then
 * are its queues' shadow rings and chunks let go, dead queues' included.
 * Those of an engine that still runs are leaked, with a warning: nothing
 * else is safe.
 */
void neuron_dma_user_gone(struct neuron_device *nd)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_dma_ueng *ue;
	unsigned int q, running = 0;
	unsigned long id;

	xa_for_each(&dma->uengs, id, ue) {
		bool quiet = true;

		mutex_lock(&ue->lock);
		if (ue->programmed)
			quiet = !neuron_udma_engine_quiesce(&ue->eng, NEURON_UDMA_QUIESCE_MS);
		for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++) {
			struct neuron_dma_uq *uq = &ue->q[q];

			if (!quiet) {
				/* Leaked: the rings, and the chunks' references. */
				put_pid(uq->owner);
				uq->owner = NULL;
			} else {
				neuron_uq_release_locked(dma, ue, q, false);
				if (uq->dead) {
					neuron_uq_drop_locked(dma, ue, q, false);
					uq->dead = false;
					atomic64_dec(&dma->dead_queues);
				}
			}
			xa_destroy(&uq->refs);
		}
		running += !quiet;
		mutex_unlock(&ue->lock);
		xa_erase(&dma->uengs, id);
		mutex_destroy(&ue->lock);
		kfree(ue);
	}
	if (running)
		dev_warn_ratelimited(neuron_device_parent(nd),
				     "%u DMA engines still running as the device goes: the memory of their queues is leaked\n",
				     running);
}
