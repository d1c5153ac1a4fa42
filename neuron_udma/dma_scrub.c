// SPDX-License-Identifier: GPL-2.0
/*
 * HBM scrub: HBM_SCRUB_START fills the free memory of one HBM channel with
 * a 32-bit pattern through the DMA engine, HBM_SCRUB_WAIT collects the
 * result.
 *
 * Only free memory is written, a piece at a time: the lowest free piece of
 * the channel at or above where the last one ended, at most
 * NEURON_SCRUB_PIECE bytes, is taken aside in the allocator
 * (neuron_mem_hold_next()), filled, and given back before the next one is
 * taken (unless the engine would not stop: then the piece stays taken
 * aside until the device goes).  No chunk can be made in a piece while
 * the engine writes it, and chunks that exist, this process's or any
 * other's, keep their contents; other processes' allocations on the
 * channel go on meanwhile and fail only when nothing but the piece held
 * at the moment would hold them.
 * Memory allocated by someone else before the walk reaches it is not free
 * then and is not written; memory freed behind the walk is not written
 * either.  What is guaranteed is that memory free for the whole scrub ends
 * up filled.  No lock is held while the engine writes.
 *
 * START does the whole fill before it returns; WAIT then reports that the
 * caller's scrub of that channel finished.  One scrub runs per channel at
 * a time.
 *
 * A result is never left to a process that is not attached: the ioctl gate
 * checks attachment only as a call starts, and a process calling through a
 * file another process opened can close its own last attached file from
 * another thread while its fill runs, after which the plane's
 * process_detach callback (neuron_dma_scrub_detach()) has nothing to
 * forget yet.  START therefore records the result, then asks
 * neuron_process_attached(): release clears the attachment before it calls
 * process_detach, so either that callback finds the result or START finds
 * the process detached and forgets it itself (-EACCES).  See
 * Documentation/dma.rst.
 */

#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "dma.h"

/* Most free memory a scrub holds aside at once (a multiple of any page size). */
#define NEURON_SCRUB_PIECE	(4ULL << 20)

/* Check the core and HBM channel; *@hbm, from user space, indexes arrays. */
static int neuron_scrub_check(struct neuron_device *nd, u32 nc_id, u32 *hbm)
{
	if (nc_id >= neuron_device_dhal(nd)->layout->nc_count || *hbm >= neuron_mem_hbm_count(nd) ||
	    *hbm >= NEURON_MAX_HBM)
		return -EINVAL;
	*hbm = array_index_nospec(*hbm, NEURON_MAX_HBM);
	return 0;
}

/*
 * Fill the free memory of channel @hbm with @pattern, a piece at a time.
 * Return: 0, or the first error (a piece already filled stays filled).
 */
static int neuron_scrub_fill(struct neuron_device *nd, u32 hbm, u32 pattern)
{
	struct neuron_mem_hold piece;
	u64 from = 0;
	bool stuck;
	int ret;

	for (;;) {
		ret = neuron_mem_hold_next(nd, hbm, from, NEURON_SCRUB_PIECE, &piece);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		stuck = false;
		ret = neuron_dma_fill(nd, piece.pa, pattern, piece.size, &stuck);
		/*
		 * An engine that did not stop may still write the piece: it
		 * stays taken aside for good (until the device goes), so no
		 * chunk is ever made in it.
		 */
		if (!stuck)
			neuron_mem_unhold(nd, hbm, &piece);
		if (ret)
			return ret;
		/* Strictly upwards: the walk ends at the top of the channel. */
		from = piece.pa + piece.size;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/* Forget @tgid's finished scrub of @hbm, if it is still there. */
static void neuron_scrub_unrecord(struct neuron_dma *dma, u32 hbm, struct pid *tgid)
{
	mutex_lock(&dma->scrub_lock);
	if (dma->scrub_done[hbm] == tgid) {
		put_pid(dma->scrub_done[hbm]);
		dma->scrub_done[hbm] = NULL;
	}
	mutex_unlock(&dma->scrub_lock);
}

/**
 * neuron_dma_scrub_start() - HBM_SCRUB_START: fill an HBM's free memory
 * @nd: the device
 * @nc_id: the calling core (checked; the engines are the driver's)
 * @hbm: the channel
 * @pattern: the 32-bit pattern, in every aligned word of free memory
 *
 * Return: 0, after which HBM_SCRUB_WAIT of the caller on @hbm succeeds once;
 * -EINVAL for a bad core or channel; -EBUSY while a scrub of @hbm runs;
 * -ENOMEM; -ENODEV after removal; the DMA errors of neuron_dma_fill()
 * (-EINTR for a fatal signal), after which free memory may be partly
 * filled; -EACCES when the caller detached from @nd while the fill ran
 * (it was done, but there is nothing to wait for).
 */
int neuron_dma_scrub_start(struct neuron_device *nd, u32 nc_id, u32 hbm, u32 pattern)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct pid *self = task_tgid(current);
	int ret;

	ret = neuron_scrub_check(nd, nc_id, &hbm);
	if (ret)
		return ret;
	mutex_lock(&dma->scrub_lock);
	if (test_bit(hbm, &dma->scrub_busy)) {
		mutex_unlock(&dma->scrub_lock);
		return -EBUSY;
	}
	__set_bit(hbm, &dma->scrub_busy);
	mutex_unlock(&dma->scrub_lock);

	ret = neuron_scrub_fill(nd, hbm, pattern);

	mutex_lock(&dma->scrub_lock);
	__clear_bit(hbm, &dma->scrub_busy);
	if (!ret) {
		put_pid(dma->scrub_done[hbm]);
		dma->scrub_done[hbm] = get_pid(self);
	}
	mutex_unlock(&dma->scrub_lock);
	/* Recorded, then rechecked: the top of the file says why. */
	if (!ret && !neuron_process_attached(nd, self)) {
		neuron_scrub_unrecord(dma, hbm, self);
		ret = -EACCES;
	}
	return ret;
}

/**
 * neuron_dma_scrub_wait() - HBM_SCRUB_WAIT: collect a finished scrub
 * @nd: the device
 * @nc_id: the calling core (checked)
 * @hbm: the channel
 *
 * Return: 0 when the caller's last HBM_SCRUB_START on @hbm succeeded and
 * was not collected yet; -EINVAL for a bad core or channel, or when there
 * is no such scrub (none started, it failed, already collected, or another
 * process's).
 */
int neuron_dma_scrub_wait(struct neuron_device *nd, u32 nc_id, u32 hbm)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	int ret;

	ret = neuron_scrub_check(nd, nc_id, &hbm);
	if (ret)
		return ret;
	mutex_lock(&dma->scrub_lock);
	if (dma->scrub_done[hbm] == task_tgid(current)) {
		put_pid(dma->scrub_done[hbm]);
		dma->scrub_done[hbm] = NULL;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&dma->scrub_lock);
	return ret;
}

/* Forget the finished scrubs of @tgid (of everyone when NULL). */
static void neuron_scrub_forget(struct neuron_dma *dma, struct pid *tgid)
{
	unsigned int i;

	mutex_lock(&dma->scrub_lock);
	for (i = 0; i < NEURON_MAX_HBM; i++) {
		if (tgid && dma->scrub_done[i] != tgid)
			continue;
		put_pid(dma->scrub_done[i]);
		dma->scrub_done[i] = NULL;
	}
	mutex_unlock(&dma->scrub_lock);
}

/**
 * neuron_dma_scrub_detach() - a process detached: its scrubs go uncollected
 * @nd: the device
 * @tgid: the process
 */
void neuron_dma_scrub_detach(struct neuron_device *nd, struct pid *tgid)
{
	neuron_scrub_forget(neuron_dma_of(nd), tgid);
}

/**
 * neuron_dma_scrub_fini() - drop what scrubs left behind
 * @nd: the device, at its release
 */
void neuron_dma_scrub_fini(struct neuron_device *nd)
{
	neuron_scrub_forget(neuron_dma_of(nd), NULL);
	mutex_destroy(&neuron_dma_of(nd)->scrub_lock);
}
