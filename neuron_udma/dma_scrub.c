// SPDX-License-Identifier: GPL-2.0
/*
 * HBM scrub: HBM_SCRUB_START fills the free memory of one HBM channel with
 * a 32-bit pattern through the DMA engine, HBM_SCRUB_WAIT collects the
 * result.
 *
 * Only free memory is written.  Every free range of the channel is taken
 * aside in the allocator first (neuron_mem_hold_free()), so no chunk can be
 * made in it while the engine writes, and chunks that exist, this
 * process's or any other's, keep their contents.  The ranges are given
 * back when the fill ends, however it ends.
 *
 * START does the whole fill before it returns; WAIT then reports that the
 * caller's scrub of that channel finished.  One scrub runs per channel at
 * a time.  See Documentation/dma.rst.
 */

#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "dma.h"

/* Check the core and HBM channel; *@hbm, from user space, indexes arrays. */
static int neuron_scrub_check(struct neuron_device *nd, u32 nc_id, u32 *hbm)
{
	if (nc_id >= neuron_device_dhal(nd)->layout->nc_count || *hbm >= neuron_mem_hbm_count(nd) ||
	    *hbm >= NEURON_MAX_HBM)
		return -EINVAL;
	*hbm = array_index_nospec(*hbm, NEURON_MAX_HBM);
	return 0;
}

/**
 * neuron_dma_scrub_start() - HBM_SCRUB_START: fill an HBM's free memory
 * @nd: the device
 * @nc_id: the calling core (checked; the engines are the driver's)
 * @hbm: the channel
 * @pattern: the 32-bit pattern, repeated from each free range's start
 *
 * Return: 0, after which HBM_SCRUB_WAIT of the caller on @hbm succeeds once;
 * -EINVAL for a bad core or channel; -EBUSY while a scrub of @hbm runs;
 * -ENOMEM; -ENODEV after removal; the DMA errors of neuron_dma_fill()
 * (-EINTR for a fatal signal).  Free memory may be partly filled then.
 */
int neuron_dma_scrub_start(struct neuron_device *nd, u32 nc_id, u32 hbm, u32 pattern)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_mem_hold *holds;
	unsigned int n, i;
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

	ret = neuron_mem_hold_free(nd, hbm, &holds, &n);
	if (!ret) {
		for (i = 0; i < n && !ret; i++)
			ret = neuron_dma_fill(nd, holds[i].pa, pattern, holds[i].size);
		neuron_mem_unhold(nd, hbm, holds, n);
	}

	mutex_lock(&dma->scrub_lock);
	__clear_bit(hbm, &dma->scrub_busy);
	if (!ret) {
		put_pid(dma->scrub_done[hbm]);
		dma->scrub_done[hbm] = get_pid(task_tgid(current));
	}
	mutex_unlock(&dma->scrub_lock);
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
