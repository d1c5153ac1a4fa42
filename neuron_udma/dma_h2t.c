// SPDX-License-Identifier: GPL-2.0
/*
 * Host-to-device copy queues: H2T_DMA_ALLOC_QUEUES, H2T_DMA_FREE_QUEUES,
 * and the queue a zero-copy transfer names (h2t_qid).
 *
 * Each NeuronCore has a host engine (v2: one per core; v3 and v4: one per
 * pair of cores), and on it a default queue per core sharing the engine:
 * queues 0..(cores per engine - 1).  A process claims the engine's other
 * queues as copy queues and names one in MEM_BUF_ZEROCOPY64[_BATCHES].
 *
 * The driver moves the bytes of every copy on whichever of its channels is
 * free (dma.c), so a copy queue is a claim the driver checks, not a ring of
 * its own: copies through it are exactly as ordered and as fast as copies
 * through the default queue.  Claims are released by H2T_DMA_FREE_QUEUES,
 * at the claiming process's last close, and by a reset of their core.
 * Service queues (rings the runtime programs on the host engine) are not
 * provided: asking for one fails with -EOPNOTSUPP.  See Documentation/dma.rst.
 *
 * A claim is never left to a process that is not attached: the ioctl gate
 * checks attachment only as a call starts, and a process calling through
 * a file another process opened can close its own last attached file from
 * another thread while H2T_DMA_ALLOC_QUEUES runs, so that the plane's
 * process_detach callback has already dropped its claims when the call
 * records new ones.  The call therefore records its claims, then asks
 * neuron_process_attached(): release clears the attachment before it calls
 * process_detach, so either that callback finds the claims or the call
 * finds the process detached and drops them itself (-EACCES).
 */

#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "dma.h"

/*
 * Where core @nc's copy queues are: *@eng, the index of its host engine,
 * and *@per, the cores sharing that engine (its queues 0..*@per-1 are
 * their default queues).
 */
static int neuron_h2t_where(struct neuron_device *nd, u32 nc, unsigned int *eng,
			    unsigned int *per)
{
	const struct neuron_udma_gen *gen = neuron_device_dhal(nd)->udma;
	u32 ncs = neuron_device_dhal(nd)->layout->nc_count;
	unsigned int hosts;

	if (!gen)
		return -EOPNOTSUPP;
	if (nc >= ncs)
		return -EINVAL;
	/* @nc comes from user space; *@eng indexes &neuron_dma.h2t. */
	nc = array_index_nospec(nc, ncs);
	hosts = gen->engines - gen->groups * gen->group_engines;
	if (!hosts || hosts > NEURON_DMA_MAX_CHANS || ncs % hosts ||
	    ncs / hosts >= gen->queues)
		return -EOPNOTSUPP;
	*per = ncs / hosts;
	*eng = nc / *per;
	return 0;
}

static void neuron_h2t_drop(struct neuron_dma_h2t *h, unsigned int q)
{
	put_pid(h->owner[q]);
	h->owner[q] = NULL;
	h->nc[q] = 0;
}

/*
 * Drop the queues of @bmap on @h that @tgid still holds for @nc: a claim
 * just recorded by a process found detached (its process_detach ran).
 */
static void neuron_h2t_unclaim(struct neuron_dma *dma, struct neuron_dma_h2t *h, u32 bmap,
			       u32 nc, struct pid *tgid)
{
	unsigned int q;

	mutex_lock(&dma->h2t_lock);
	for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++)
		if ((bmap & BIT(q)) && h->owner[q] == tgid && h->nc[q] == nc)
			neuron_h2t_drop(h, q);
	mutex_unlock(&dma->h2t_lock);
}

/**
 * neuron_dma_h2t_alloc() - H2T_DMA_ALLOC_QUEUES: claim copy queues
 * @nd: the device
 * @nc: NeuronCore
 * @count: copy queues wanted
 * @bmap: set to the queues claimed
 * @def: set to @nc's default queue
 *
 * All or nothing, for the calling process, which must still be attached
 * once the claim is recorded (see the top of the file).
 *
 * Return: 0; -EINVAL for a bad core; -E2BIG for more queues than the engine
 * has besides its default queues; -ENOSPC when too few are free;
 * -EOPNOTSUPP on a device without host engines; -EACCES when the caller
 * detached from @nd while the call ran (nothing stays claimed).
 */
int neuron_dma_h2t_alloc(struct neuron_device *nd, u32 nc, u32 count, u32 *bmap, u32 *def)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	const struct neuron_udma_gen *gen = neuron_device_dhal(nd)->udma;
	unsigned int eng, per, q, nq = gen ? gen->queues : 0;
	struct pid *self = task_tgid(current);
	struct neuron_dma_h2t *h;
	u32 free = 0;
	int ret;

	ret = neuron_h2t_where(nd, nc, &eng, &per);
	if (ret)
		return ret;
	if (count > nq - per)
		return -E2BIG;
	h = &dma->h2t[eng];
	mutex_lock(&dma->h2t_lock);
	for (q = per; q < nq && hweight32(free) < count; q++)
		if (!h->owner[q])
			free |= BIT(q);
	if (hweight32(free) < count) {
		ret = -ENOSPC;
	} else {
		for (q = per; q < nq; q++) {
			if (!(free & BIT(q)))
				continue;
			h->owner[q] = get_pid(self);
			h->nc[q] = nc;
		}
	}
	mutex_unlock(&dma->h2t_lock);
	if (ret)
		return ret;
	/* Recorded, then rechecked: the top of the file says why. */
	if (!neuron_process_attached(nd, self)) {
		neuron_h2t_unclaim(dma, h, free, nc, self);
		return -EACCES;
	}
	*bmap = free;
	*def = nc % per;
	return 0;
}

/**
 * neuron_dma_h2t_free() - H2T_DMA_FREE_QUEUES: release copy queues
 * @nd: the device
 * @nc: NeuronCore
 * @bmap: queues; @nc's default queue may be among them (it stays)
 *
 * All or nothing.
 *
 * Return: 0; -EINVAL for a bad core, or a queue in @bmap that is not one
 * the calling process claimed for @nc; -EOPNOTSUPP as neuron_dma_h2t_alloc().
 */
int neuron_dma_h2t_free(struct neuron_device *nd, u32 nc, u32 bmap)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	const struct neuron_udma_gen *gen = neuron_device_dhal(nd)->udma;
	unsigned int eng, per, q, nq = gen ? gen->queues : 0;
	struct pid *self = task_tgid(current);
	struct neuron_dma_h2t *h;
	int ret;

	ret = neuron_h2t_where(nd, nc, &eng, &per);
	if (ret)
		return ret;
	bmap &= ~BIT(nc % per);
	if (bmap & ~GENMASK(nq - 1, per))
		return -EINVAL;
	h = &dma->h2t[eng];
	mutex_lock(&dma->h2t_lock);
	for (q = per; q < nq; q++)
		if ((bmap & BIT(q)) && (h->owner[q] != self || h->nc[q] != nc))
			ret = -EINVAL;
	if (!ret)
		for (q = per; q < nq; q++)
			if (bmap & BIT(q))
				neuron_h2t_drop(h, q);
	mutex_unlock(&dma->h2t_lock);
	return ret;
}

/**
 * neuron_dma_h2t_queue() - the queue a copy of core @nc through @qid uses
 * @nd: the device
 * @nc: the NeuronCore of the chunk copied to or from
 * @qid: NEURON_DMA_H2T_DEFAULT_QID, @nc's default queue, or a copy queue
 *	the calling process claimed for @nc
 * @eng: set to the index of @nc's host engine
 * @q: set to the queue on it (@qid, or @nc's default queue)
 *
 * Return: 0, or -ENOENT when the caller may not use @qid for @nc.
 */
int neuron_dma_h2t_queue(struct neuron_device *nd, u32 nc, s32 qid, unsigned int *eng,
			 unsigned int *q)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	unsigned int per;
	int ret = 0;

	if (neuron_h2t_where(nd, nc, eng, &per))
		return -ENOENT;
	if (qid == NEURON_DMA_H2T_DEFAULT_QID)
		qid = nc % per;
	if (qid < 0 || qid >= neuron_device_dhal(nd)->udma->queues)
		return -ENOENT;
	/* @qid comes from user space. */
	*q = array_index_nospec((u32)qid, neuron_device_dhal(nd)->udma->queues);
	if (*q == nc % per)
		return 0;
	mutex_lock(&dma->h2t_lock);
	if (dma->h2t[*eng].owner[*q] != task_tgid(current) || dma->h2t[*eng].nc[*q] != nc)
		ret = -ENOENT;
	mutex_unlock(&dma->h2t_lock);
	return ret;
}

/**
 * neuron_dma_h2t_check() - may the caller copy through queue @qid of core @nc?
 * @nd: the device
 * @nc: the NeuronCore of the chunk copied to or from
 * @qid: as for neuron_dma_h2t_queue()
 *
 * The default queue is accepted even on a device without host engines:
 * copies never need one of their own.
 *
 * Return: 0, or -ENOENT.
 */
int neuron_dma_h2t_check(struct neuron_device *nd, u32 nc, s32 qid)
{
	unsigned int eng, q;

	if (qid == NEURON_DMA_H2T_DEFAULT_QID)
		return 0;
	return neuron_dma_h2t_queue(nd, nc, qid, &eng, &q);
}

/*
 * Release the claims that @tgid made (any process when NULL) for a core in
 * @cores.
 */
static void neuron_h2t_release(struct neuron_device *nd, struct pid *tgid, u32 cores)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	unsigned int e, q;

	mutex_lock(&dma->h2t_lock);
	for (e = 0; e < NEURON_DMA_MAX_CHANS; e++) {
		struct neuron_dma_h2t *h = &dma->h2t[e];

		for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++)
			if (h->owner[q] && (!tgid || h->owner[q] == tgid) &&
			    (cores & BIT(h->nc[q])))
				neuron_h2t_drop(h, q);
	}
	mutex_unlock(&dma->h2t_lock);
}

/**
 * neuron_dma_h2t_detach() - a process detached: release its copy queues
 * @nd: the device
 * @tgid: the process
 */
void neuron_dma_h2t_detach(struct neuron_device *nd, struct pid *tgid)
{
	neuron_h2t_release(nd, tgid, U32_MAX);
}

/**
 * neuron_dma_h2t_reset() - cores were reset: their copy queues are released
 * @nd: the device
 * @cores: bitmap of the cores (U32_MAX: the device)
 */
void neuron_dma_h2t_reset(struct neuron_device *nd, u32 cores)
{
	neuron_h2t_release(nd, NULL, cores);
}
