// SPDX-License-Identifier: GPL-2.0
/*
 * The datastore: per device, up to NEURON_DS_ENTRIES buffers of host
 * memory in which a runtime process publishes its counters for monitoring
 * tools (Documentation/state.rst).  The layout belongs to user space; the
 * driver hands out, maps and frees the buffers, and reads the per-core
 * counters of one when its owner releases it (stats.c).
 *
 * An entry belongs to the process that acquired it and is released by it
 * or when it detaches from the device.  A monitor that acquires another
 * process's entry by pid (same user, or CAP_SYS_PTRACE) may map it
 * read-only through the file it asked through, for as long as that
 * process keeps the entry.  Buffers are allocated on first acquire and
 * freed on release, so a new owner never sees an old one's counters;
 * mappings keep their pages until they go.
 *
 * Entries live in &neuron_nc_state under its lock; chunk allocation and
 * puts happen outside it.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/ds.h>

#include "cores/cores.h"
#include "memory/mem.h"

/* Bytes of one entry, as the reference and the runtime's layout have it. */
#define NEURON_DS_SIZE		SZ_256K

/* The caller's entry on @nd, or -1; nc_state.lock held. */
static int neuron_ds_find_locked(struct neuron_device *nd, struct pid *owner)
{
	int i;

	for (i = 0; i < NEURON_DS_ENTRIES; i++)
		if (nd->cores->ds[i].mc && nd->cores->ds[i].owner == owner)
			return i;
	return -1;
}

/* A free entry: never used first, else the one released longest ago; or -1. */
static int neuron_ds_free_locked(struct neuron_device *nd)
{
	int i, best = -1;

	for (i = 0; i < NEURON_DS_ENTRIES; i++) {
		struct neuron_ds_entry *e = &nd->cores->ds[i];

		if (e->mc)
			continue;
		if (best < 0 || e->released < nd->cores->ds[best].released)
			best = i;
	}
	return best;
}

/* The memory of entry chunk @mc, or NULL once the device gave it back. */
static const void *neuron_ds_buf(struct neuron_mem_chunk *mc)
{
	return mc && mc->dma_mapped ? mc->va : NULL;
}

/* Add the per-core counters of @buf, over the device's cores, to @sums. */
static void neuron_ds_sum(struct neuron_device *nd, const void *buf, u64 *sums)
{
	unsigned long cores = nd->dhal.dhal ? nd->dhal.dhal->layout->nc_map : 0;
	unsigned int nc, id;

	for_each_set_bit(nc, &cores, NDS_MAX_NEURONCORE_COUNT + NDS_EXT_MAX_NEURONCORE_COUNT)
		for (id = 0; id < NEURON_DS_NC_SUMS; id++)
			sums[id] += neuron_nds_nc_counter(buf, nc, id);
}

/* The per-device counters of @buf into @row. */
static void neuron_ds_row(const void *buf, u64 *row)
{
	const __le64 *nd = buf + NDS_ND_COUNTERS_START;
	unsigned int id;

	for (id = 0; id < NEURON_DS_ND_KEPT; id++)
		row[id] = le64_to_cpu(READ_ONCE(nd[id]));
}

/*
 * Keep what entry @e holds before it is emptied: its per-core counters
 * join the released entries' sums, its per-device counters are the last
 * released ones (telemetry posts them; neuron_ds_counters()).
 */
static void neuron_ds_fold_locked(struct neuron_device *nd, struct neuron_ds_entry *e)
{
	const void *buf = neuron_ds_buf(e->mc);

	lockdep_assert_held(&nd->cores->lock);
	if (!buf)
		return;
	neuron_ds_sum(nd, buf, nd->cores->ds_nc_freed);
	neuron_ds_row(buf, nd->cores->ds_nd_freed);
	nd->cores->ds_released++;
}

/**
 * neuron_nds_nc_counter() - a per-core counter of a datastore
 * @nds: the datastore's NDS_EXT_NEURONCORE_NC_DATA_START +
 *	NDS_EXT_NEURONCORE_NC_DATA_SIZE bytes or more
 * @nc: the core (below NDS_MAX_NEURONCORE_COUNT +
 *	NDS_EXT_MAX_NEURONCORE_COUNT)
 * @id: the counter (below NDS_TOTAL_NC_COUNTER_COUNT)
 *
 * The layout (include/uapi/neuron/neuron_driver_shared.h): cores 0-3 have
 * their base counters in one area and their extended ones in another;
 * cores 4-15 have all of theirs in one block each.
 *
 * Return: the counter's value.
 */
u64 neuron_nds_nc_counter(const void *nds, unsigned int nc, unsigned int id)
{
	size_t slot;

	if (nc >= NDS_MAX_NEURONCORE_COUNT)
		slot = NDS_EXT_NEURONCORE_NC_DATA_START / 8 +
		       (nc - NDS_MAX_NEURONCORE_COUNT) * NDS_EXT_NEURONCORE_NC_DATA_COUNT + id;
	else if (id < NDS_NC_COUNTER_COUNT)
		slot = NDS_NEURONCORE_COUNTERS_START / 8 + nc * NDS_NEURONCORE_COUNTERS_COUNT + id;
	else
		slot = NDS_EXT_NEURONCORE_COUNTERS_START / 8 +
		       nc * NDS_EXT_NEURONCORE_COUNTERS_COUNT + id - NDS_NC_COUNTER_COUNT;
	return le64_to_cpu(READ_ONCE(((const __le64 *)nds)[slot]));
}
EXPORT_SYMBOL_IF_KUNIT(neuron_nds_nc_counter);

/* Per status counter, the datastore counter it adds up. */
static const u8 neuron_stats_status_nds[NEURON_STATS_STATUSES] = {
	[NEURON_STATS_STATUS_SUCCESS] = NDS_NC_COUNTER_INFER_COMPLETED,
	[NEURON_STATS_STATUS_FAILURE] = NDS_NC_COUNTER_GENERIC_FAIL,
	[NEURON_STATS_STATUS_TIMEOUT] = NDS_NC_COUNTER_INFER_TIMED_OUT,
	[NEURON_STATS_STATUS_EXEC_BAD_INPUT] = NDS_NC_COUNTER_INFER_INCORRECT_INPUT,
	[NEURON_STATS_STATUS_HW_ERROR] = NDS_NC_COUNTER_ERR_HW,
	[NEURON_STATS_STATUS_EXECUTE_COMPLETED_WITH_ERROR] =
		NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR,
	[NEURON_STATS_STATUS_EXECUTE_COMPLETED_WITH_NUM_ERROR] =
		NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR,
	[NEURON_STATS_STATUS_GENERIC_ERROR] = NDS_NC_COUNTER_ERR_GENERIC,
	[NEURON_STATS_STATUS_RESOURCE_ERROR] = NDS_NC_COUNTER_ERR_RESOURCE,
	[NEURON_STATS_STATUS_RESOURCE_NC_ERROR] = NDS_NC_COUNTER_ERR_RESOURCE_NC,
	[NEURON_STATS_STATUS_EXECUTE_FAILED_TO_QUEUE] = NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE,
	[NEURON_STATS_STATUS_INVALID_ERROR] = NDS_NC_COUNTER_ERR_INVALID,
	[NEURON_STATS_STATUS_UNSUPPORTED_NEFF_VERSION] =
		NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION,
	[NEURON_STATS_STATUS_OOB_ERROR] = NDS_NC_COUNTER_OOB,
	[NEURON_STATS_STATUS_HW_COLLECTIVES_ERROR] = NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES,
	[NEURON_STATS_STATUS_HW_HBM_UE_ERROR] = NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE,
	[NEURON_STATS_STATUS_HW_NC_UE_ERROR] = NDS_EXT_NC_COUNTER_HW_ERR_NC_UE,
	[NEURON_STATS_STATUS_HW_DMA_ABORT_ERROR] = NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT,
	[NEURON_STATS_STATUS_EXECUTE_SW_NQ_OVERFLOW] = NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW,
	[NEURON_STATS_STATUS_EXECUTE_SW_SEMAPHORE_ERROR] =
		NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR,
	[NEURON_STATS_STATUS_EXECUTE_SW_EVENT_ERROR] = NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR,
	[NEURON_STATS_STATUS_EXECUTE_SW_PSUM_COLLISION] = NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION,
	[NEURON_STATS_STATUS_EXECUTE_SW_SEQUENCER_FATAL] =
		NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL,
	[NEURON_STATS_STATUS_HW_REPAIRABLE_HBM_UE_ERROR] =
		NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE,
};

/*
 * Per other counter, the datastore counter it adds up and its factor (0:
 * not from the datastore).
 */
static const struct {
	u8 nds;
	u8 factor;
} neuron_stats_other_nds[NEURON_STATS_OTHERS] = {
	[NEURON_STATS_OTHER_MODEL_LOAD_COUNT] = { NDS_NC_COUNTER_MODEL_LOAD_COUNT, 1 },
	[NEURON_STATS_OTHER_INFERENCE_COUNT] = { NDS_NC_COUNTER_INFERENCE_COUNT, 1 },
	[NEURON_STATS_OTHER_FLOP_COUNT] = { NDS_NC_COUNTER_MAC_COUNT, 2 },
	[NEURON_STATS_OTHER_NC_TIME_IN_USE] = { NDS_NC_COUNTER_TIME_IN_USE, 1 },
};

/**
 * neuron_stats_add_nds() - add a datastore's per-core counters
 * @st: the statistics
 * @nds: the datastore (NEURON_NDS_NC_END bytes or more)
 * @ncs: cores of the device
 *
 * Context: the caller keeps @nds's memory; takes the statistics lock.
 */
void neuron_stats_add_nds(struct neuron_stats *st, const void *nds, unsigned int ncs)
{
	u64 status[NEURON_STATS_STATUSES], other[NEURON_STATS_OTHERS];
	unsigned int nc, i;

	for (nc = 0; nc < min_t(unsigned int, ncs, NEURON_MAX_NC); nc++) {
		for (i = 0; i < NEURON_STATS_STATUSES; i++)
			status[i] = neuron_nds_nc_counter(nds, nc, neuron_stats_status_nds[i]);
		for (i = 0; i < NEURON_STATS_OTHERS; i++)
			other[i] = neuron_stats_other_nds[i].factor *
				   neuron_nds_nc_counter(nds, nc, neuron_stats_other_nds[i].nds);
		neuron_stats_nc_add(st, nc, status, other);
	}
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stats_add_nds);

/*
 * neuron_stats_ds_release() - its owner released a datastore entry
 * @nd: the device
 * @mc: the entry's chunk, no longer in the entry (the caller's reference)
 *
 * Adds the owner's final counters.  The chunk's memory may have gone with
 * the device already: then there is nothing to add.
 *
 * Context: may sleep; takes &neuron_mem.lock.
 */
static void neuron_stats_ds_release(struct neuron_device *nd, struct neuron_mem_chunk *mc)
{
	struct neuron_mem *m = nd->mem;

	mutex_lock(&m->lock);
	if (mc->dma_mapped && mc->size >= NEURON_NDS_NC_END)
		neuron_stats_add_nds(&nd->stats, mc->va, m->nc_count);
	mutex_unlock(&m->lock);
}

/**
 * neuron_ds_counters() - the datastore counters of a device
 * @nd: the device
 * @out: where they go (struct neuron_ds_counters)
 *
 * Context: process context; takes the datastore's lock.
 * Return: 0, or -ENODEV while the device has no DHAL.
 */
int neuron_ds_counters(struct neuron_device *nd, struct neuron_ds_counters *out)
{
	struct neuron_cores *st = nd->cores;
	int i;

	memset(out, 0, sizeof(*out));
	if (!nd->dhal.dhal)
		return -ENODEV;
	mutex_lock(&st->lock);
	memcpy(out->nc, st->ds_nc_freed, sizeof(out->nc));
	for (i = 0; i < NEURON_DS_ENTRIES; i++) {
		const void *buf = neuron_ds_buf(st->ds[i].mc);

		if (!buf)
			continue;
		neuron_ds_sum(nd, buf, out->nc);
		neuron_ds_row(buf, out->nd[out->rows++]);
	}
	out->released = st->ds_released;
	if (out->released)
		memcpy(out->nd[out->rows++], st->ds_nd_freed, sizeof(st->ds_nd_freed));
	mutex_unlock(&st->lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(neuron_ds_counters, NEURON_NS);

/* Empty entry @i; the caller puts the returned chunk and pid after unlocking. */
static struct neuron_mem_chunk *neuron_ds_clear_locked(struct neuron_device *nd, int i,
						       struct pid **owner)
{
	struct neuron_ds_entry *e = &nd->cores->ds[i];
	struct neuron_mem_chunk *mc = e->mc;

	neuron_ds_fold_locked(nd, e);
	*owner = e->owner;
	e->mc = NULL;
	e->owner = NULL;
	e->released = ++nd->cores->ds_clock;
	return mc;
}

/* Whether the caller may read the datastore of @pid: same user or CAP_SYS_PTRACE. */
static bool neuron_ds_may_read(struct pid *pid)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_TGID);
	bool ok = false;

	if (!task)
		return false;
	rcu_read_lock();
	ok = uid_eq(current_euid(), __task_cred(task)->euid) ||
	     uid_eq(current_euid(), __task_cred(task)->uid);
	rcu_read_unlock();
	put_task_struct(task);
	return ok || capable(CAP_SYS_PTRACE);
}

/* Acquire (or find) the caller's own entry. */
static long neuron_ds_acquire_own(struct neuron_file *nf, u64 *pa)
{
	struct neuron_device *nd = nf->nd;
	struct pid *me = task_tgid(current);
	const struct neuron_mem_request req = {
		.size = NEURON_DS_SIZE,
		.host = true,
		.mem_type = NEURON_MEMALLOC_TYPE_NCDEV_HOST,
		.driver = true,
	};
	struct neuron_mem_chunk *mc = NULL;
	int i, ret;

	mutex_lock(&nd->cores->lock);
	i = neuron_ds_find_locked(nd, me);
	if (i >= 0)
		goto found;
	mutex_unlock(&nd->cores->lock);

	/* Allocated unlocked: it takes the device lock. */
	ret = neuron_mem_alloc(nd, &req, &mc);
	if (ret)
		return ret;

	mutex_lock(&nd->cores->lock);
	i = neuron_ds_find_locked(nd, me);	/* another thread was quicker */
	if (i >= 0)
		goto found;
	i = neuron_ds_free_locked(nd);
	if (i < 0) {
		mutex_unlock(&nd->cores->lock);
		neuron_mem_put(mc);
		return -ENOMEM;
	}
	nd->cores->ds[i].mc = mc;
	nd->cores->ds[i].owner = get_pid(me);
	nd->cores->ds[i].gen++;
	mc = NULL;
found:
	*pa = nd->cores->ds[i].mc->pa;
	mutex_unlock(&nd->cores->lock);
	neuron_mem_put(mc);
	return 0;
}

/* Find the entry of @vpid (in the caller's pid namespace) for monitoring. */
static long neuron_ds_acquire_other(struct neuron_file *nf, pid_t vpid, u64 *pa)
{
	struct neuron_device *nd = nf->nd;
	struct pid *pid;
	long ret = 0;
	int i;

	/*
	 * The grant is kept in the file and mapping checks it for the file's
	 * opener: through a file another process opened it would be of use
	 * to that process, not to the caller.
	 */
	if (nf->tgid != task_tgid(current))
		return -EACCES;
	pid = find_get_pid(vpid);
	if (!pid)
		return -ENOENT;
	if (pid != task_tgid(current) && !neuron_ds_may_read(pid)) {
		put_pid(pid);
		return -EPERM;
	}
	mutex_lock(&nd->cores->lock);
	i = neuron_ds_find_locked(nd, pid);
	if (i < 0) {
		ret = -ENOENT;
	} else {
		*pa = nd->cores->ds[i].mc->pa;
		nf->ds_grant[i] = nd->cores->ds[i].gen;
	}
	mutex_unlock(&nd->cores->lock);
	put_pid(pid);
	return ret;
}

/**
 * neuron_ioctl_acquire_ds() - NEURON_IOCTL_ACQUIRE_NEURON_DS
 * @nf: the file
 * @arg: struct neuron_ioctl_neuron_ds_info
 *
 * Return: 0 with the entry's mmap offset and size; -ENOMEM when every entry
 * is in use or memory is short; -ENOENT when @pid has no entry (or does not
 * exist in the caller's namespace); -EPERM when the caller may not read
 * it; -EACCES for another process's entry through a file the caller did
 * not open; -EINVAL for a negative pid; -EFAULT.
 */
long neuron_ioctl_acquire_ds(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_neuron_ds_info info;
	pid_t vpid;
	u64 pa = 0;
	long ret;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	vpid = info.pid;
	if (vpid < 0)
		return -EINVAL;
	/* Fail a struct that cannot be written back before changing anything. */
	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	if (vpid == 0 || vpid == task_tgid_vnr(current))
		ret = neuron_ds_acquire_own(nf, &pa);
	else
		ret = neuron_ds_acquire_other(nf, vpid, &pa);
	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	info.pid = vpid;
	info.mmap_offset = pa;
	info.size = NEURON_DS_SIZE;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_release_ds() - NEURON_IOCTL_RELEASE_NEURON_DS
 * @nf: the file
 * @arg: struct neuron_ioctl_neuron_ds_info, read
 *
 * Only the owner releases its entry (@pid 0 or its own pid); its per-core
 * counters are added to the device's statistics (stats.c).
 *
 * Return: 0; -ENOENT when the caller has no entry; -EPERM for another
 * process's pid; -EINVAL for a negative pid; -EFAULT.
 */
long neuron_ioctl_release_ds(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_neuron_ds_info info;
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_chunk *mc = NULL;
	struct pid *owner = NULL;
	long ret = 0;
	int i;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	if (info.pid < 0)
		return -EINVAL;
	if (info.pid && info.pid != task_tgid_vnr(current))
		return -EPERM;
	mutex_lock(&nd->cores->lock);
	i = neuron_ds_find_locked(nd, task_tgid(current));
	if (i < 0)
		ret = -ENOENT;
	else
		mc = neuron_ds_clear_locked(nd, i, &owner);
	mutex_unlock(&nd->cores->lock);
	if (mc)
		neuron_stats_ds_release(nd, mc);
	neuron_mem_put(mc);
	put_pid(owner);
	return ret;
}

/**
 * neuron_ds_release_all() - release entries of a device
 * @nd: the device
 * @tgid: the process whose entry goes, or NULL for all of them
 *
 * For a process's detach (which adds its per-core counters to the
 * device's statistics) and for the device's teardown (the chunks hold the
 * device).  Mappings keep their pages until they go.
 */
void neuron_ds_release_all(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_mem_chunk *mcs[NEURON_DS_ENTRIES];
	struct pid *owners[NEURON_DS_ENTRIES];
	int i, n = 0;

	mutex_lock(&nd->cores->lock);
	for (i = 0; i < NEURON_DS_ENTRIES; i++) {
		struct neuron_ds_entry *e = &nd->cores->ds[i];

		if (e->mc && (!tgid || e->owner == tgid)) {
			mcs[n] = neuron_ds_clear_locked(nd, i, &owners[n]);
			n++;
		}
	}
	mutex_unlock(&nd->cores->lock);
	while (n--) {
		/* The owner's detach adds its counters; the device's teardown does not. */
		if (tgid)
			neuron_stats_ds_release(nd, mcs[n]);
		neuron_mem_put(mcs[n]);
		put_pid(owners[n]);
	}
}

/**
 * neuron_nc_mmap_get() - a driver chunk the caller may map: a datastore
 * entry (its own, or one it acquired by pid, read-only) or a host
 * notification queue it owns
 * @nf: the file being mapped
 * @pa: device-view address of the mapping's first byte
 * @rdonly: set when the caller may map it only read-only
 *
 * Context: the mmap lock is held.
 * Return: the chunk with a reference, or NULL.
 */
struct neuron_mem_chunk *neuron_nc_mmap_get(struct neuron_file *nf, u64 pa, bool *rdonly)
{
	struct neuron_device *nd = nf->nd;
	struct pid *me = task_tgid(current);
	struct neuron_mem_chunk *mc = NULL;
	int i;

	mutex_lock(&nd->cores->lock);
	for (i = 0; i < NEURON_DS_ENTRIES; i++) {
		struct neuron_ds_entry *e = &nd->cores->ds[i];

		if (!e->mc || pa < e->mc->pa || pa - e->mc->pa >= e->mc->size)
			continue;
		/* The caller's own; or granted to it, through this file. */
		if (e->owner == me)
			*rdonly = false;
		else if (nf->tgid == me && nf->ds_grant[i] == e->gen)
			*rdonly = true;
		else
			break;
		mc = e->mc;
		kref_get(&mc->ref);
		break;
	}
	mutex_unlock(&nd->cores->lock);
	if (!mc) {
		/* A host notification queue the caller owns: read-write. */
		mc = neuron_nq_mmap_get(nf, pa);
		*rdonly = false;
	}
	return mc;
}
