// SPDX-License-Identifier: GPL-2.0
/*
 * Resets that processes ask for through ioctls: a whole device, or some of
 * its NeuronCores.
 *
 * A process attached to a device has at most one request in flight there.
 * Its id is the process id as the process sees it, so a waiter can only
 * ever find its own request.  Requests are carried out by the device's
 * worker (device.c), one at a time with bring-up and sysfs resets:
 *
 * - a device reset moves the device to RESETTING (new opens wait), and is
 *   refused while any other process is attached;
 * - core resets queued together are merged into one firmware request, and
 *   leave the device state alone.
 *
 * A process holds the cores it reset (a device reset holds them all) until
 * it detaches; no other process may reset a core it holds, or a core
 * another process reserved (state.c).  held_ncs changes only under both
 * neuron_device.lock and the state plane's holds lock, so that the state
 * plane can read it under its own lock.
 *
 * Everything here is under neuron_device.lock; waiters sleep on the
 * device's state_wq without it and look their request up again when
 * neuron_device.reset_seq moves.
 */

#include <linux/bitops.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/neuron_driver_shared.h>

#include "core.h"

/**
 * enum neuron_reset_state - progress of a reset request
 * @NEURON_RESET_QUEUED: waiting for the worker
 * @NEURON_RESET_RUNNING: the worker is carrying it out
 * @NEURON_RESET_DONE: finished; &neuron_reset_req.result holds the outcome
 */
enum neuron_reset_state {
	NEURON_RESET_QUEUED,
	NEURON_RESET_RUNNING,
	NEURON_RESET_DONE,
};

/**
 * struct neuron_reset_req - a reset a process asked for
 * @node: entry in &neuron_device.resets
 * @owner: the process; NULL once it detached while the worker ran the
 *	request (the worker then frees it)
 * @id: the id the process was given
 * @nc_map: cores to reset, or NEURON_NC_MAP_DEVICE for the whole device
 * @state: progress
 * @result: 0 or a negative errno, once @state is NEURON_RESET_DONE
 */
struct neuron_reset_req {
	struct hlist_node node;
	struct pid *owner;
	u32 id;
	u32 nc_map;
	enum neuron_reset_state state;
	int result;
};

static bool neuron_reset_is_device(const struct neuron_reset_req *req)
{
	return req->nc_map == NEURON_NC_MAP_DEVICE;
}

static struct neuron_attach *neuron_attach_of_locked(struct neuron_device *nd,
						     struct pid *tgid)
{
	int i;

	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		if (nd->attach[i].tgid == tgid)
			return &nd->attach[i];
	return NULL;
}

static struct neuron_reset_req *neuron_reset_find_locked(struct neuron_device *nd,
							 struct pid *tgid)
{
	struct neuron_reset_req *req;

	hlist_for_each_entry(req, &nd->resets, node)
		if (req->owner == tgid)
			return req;
	return NULL;
}

static void neuron_reset_free_locked(struct neuron_reset_req *req)
{
	hlist_del(&req->node);
	kfree(req);
}

/* Cores held by attached processes other than @self. */
static u32 neuron_cores_held_by_others_locked(struct neuron_device *nd,
					      const struct neuron_attach *self)
{
	u32 held = 0;
	int i;

	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		if (&nd->attach[i] != self && nd->attach[i].tgid)
			held |= nd->attach[i].held_ncs;
	return held;
}

static bool neuron_others_attached_locked(struct neuron_device *nd,
					  const struct neuron_attach *self)
{
	int i;

	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		if (&nd->attach[i] != self && nd->attach[i].tgid)
			return true;
	return false;
}

/**
 * neuron_reset_request() - queue a reset for a process
 * @nd: the device
 * @tgid: the process; it must be attached to @nd
 * @id: the id the process will wait with
 * @nc_map: a non-empty subset of the device's cores, or NEURON_NC_MAP_DEVICE
 *
 * A request of the process that finished but was never waited for is
 * dropped.  On success the process holds the cores of @nc_map.
 *
 * Context: process context; takes neuron_device.lock.
 * Return: 0 when queued; -EINVAL for a map with cores the device does not
 * have; -EOPNOTSUPP when the generation cannot reset single cores; -EBUSY
 * when the process has a reset in flight, another process holds one of the
 * cores, or (device reset) another process is attached; -EIO when the
 * device is not ready for a core reset; -EACCES when @tgid is not attached;
 * -ENODEV when the device is being removed; -ENOMEM.
 */
int neuron_reset_request(struct neuron_device *nd, struct pid *tgid, u32 id, u32 nc_map)
{
	const struct neuron_dhal *dhal;
	struct neuron_reset_req *req, *old;
	struct neuron_attach *self;
	bool device = nc_map == NEURON_NC_MAP_DEVICE;
	u32 all;
	int ret = 0;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;

	mutex_lock(&nd->lock);
	dhal = nd->dhal.dhal;
	if (nd->state == NEURON_STATE_GONE || !dhal) {
		ret = -ENODEV;
		goto out;
	}
	all = dhal->layout->nc_map;
	if (!device) {
		if (!nc_map || (nc_map & ~all)) {
			ret = -EINVAL;
			goto out;
		}
		if (!dhal->fw->nc_reset_units) {
			ret = -EOPNOTSUPP;
			goto out;
		}
	}
	self = neuron_attach_of_locked(nd, tgid);
	if (!self) {
		ret = -EACCES;
		goto out;
	}
	old = neuron_reset_find_locked(nd, tgid);
	if (old && old->state != NEURON_RESET_DONE) {
		ret = -EBUSY;
		goto out;
	}
	if (device) {
		if (nd->state != NEURON_STATE_READY && nd->state != NEURON_STATE_FAILED) {
			ret = -EBUSY;
			goto out;
		}
		if (neuron_others_attached_locked(nd, self)) {
			ret = -EBUSY;
			goto out;
		}
	} else {
		if (nd->state != NEURON_STATE_READY) {
			ret = nd->state == NEURON_STATE_FAILED ? -EIO : -EBUSY;
			goto out;
		}
		if (nc_map & neuron_cores_held_by_others_locked(nd, self)) {
			ret = -EBUSY;
			goto out;
		}
	}

	/* Cores another process reserved are held by it too. */
	neuron_holds_lock();
	if ((device ? all : nc_map) & neuron_planes_cores_held_locked(nd, tgid)) {
		neuron_holds_unlock();
		ret = -EBUSY;
		goto out;
	}
	WRITE_ONCE(self->held_ncs, self->held_ncs | (device ? all : nc_map));
	neuron_holds_unlock();
	if (old)
		neuron_reset_free_locked(old);
	req->owner = tgid;
	req->id = id;
	req->nc_map = nc_map;
	req->state = NEURON_RESET_QUEUED;
	hlist_add_head(&req->node, &nd->resets);
	if (device)
		WRITE_ONCE(nd->state, NEURON_STATE_RESETTING);
	req = NULL;
	neuron_device_kick(nd);
out:
	mutex_unlock(&nd->lock);
	kfree(req);
	if (!ret && device)
		wake_up_all(&nd->state_wq);
	return ret;
}

/**
 * neuron_reset_wait() - wait for a process's reset to finish
 * @nd: the device
 * @tgid: the process
 * @any_id: wait for whatever request the process has, ignoring @id
 * @id: the id the request was made with
 * @result: set to 0 or the negative errno the reset ended with
 *
 * The request is consumed: a second wait finds nothing.  The sleep ends
 * early on a signal (the request stays, so the wait can be repeated) and
 * when the device is removed.
 *
 * Context: process context; takes neuron_device.lock.
 * Return: 0 with @result set; -ENOENT when the process has no request
 * (with that id); -ERESTARTSYS on a signal; -ENODEV when the device is
 * removed.
 */
int neuron_reset_wait(struct neuron_device *nd, struct pid *tgid, bool any_id, u32 id,
		      int *result)
{
	struct neuron_reset_req *req;
	u32 seq;
	int ret;

	for (;;) {
		mutex_lock(&nd->lock);
		req = neuron_reset_find_locked(nd, tgid);
		if (!req || (!any_id && req->id != id)) {
			mutex_unlock(&nd->lock);
			return -ENOENT;
		}
		if (req->state == NEURON_RESET_DONE) {
			*result = req->result;
			neuron_reset_free_locked(req);
			mutex_unlock(&nd->lock);
			return 0;
		}
		seq = nd->reset_seq;
		mutex_unlock(&nd->lock);

		ret = wait_event_interruptible(nd->state_wq,
					       READ_ONCE(nd->reset_seq) != seq ||
					       READ_ONCE(nd->state) == NEURON_STATE_GONE);
		if (ret)
			return ret;
		if (READ_ONCE(nd->state) == NEURON_STATE_GONE)
			return -ENODEV;
	}
}

/**
 * neuron_reset_in_flight() - whether a process has a reset not yet finished
 * @nd: the device
 * @tgid: the process
 *
 * Context: process context; takes neuron_device.lock.
 * Return: true while a request of @tgid is queued or running.
 */
bool neuron_reset_in_flight(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_reset_req *req;
	bool busy;

	mutex_lock(&nd->lock);
	req = neuron_reset_find_locked(nd, tgid);
	busy = req && req->state != NEURON_RESET_DONE;
	mutex_unlock(&nd->lock);
	return busy;
}

/**
 * neuron_reset_core_holder() - the process that holds a core
 * @nd: the device
 * @nc: the core
 *
 * Context: process context; takes neuron_device.lock.
 * Return: a reference to the holder's pid (put_pid() it), or NULL.
 */
struct pid *neuron_reset_core_holder(struct neuron_device *nd, unsigned int nc)
{
	struct pid *holder = NULL;
	int i;

	if (nc >= 32)
		return NULL;
	mutex_lock(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH; i++) {
		if (nd->attach[i].tgid && (nd->attach[i].held_ncs & BIT(nc))) {
			holder = get_pid(nd->attach[i].tgid);
			break;
		}
	}
	mutex_unlock(&nd->lock);
	return holder;
}

/* Mark every running request of one kind done with @result. */
static void neuron_reset_complete(struct neuron_device *nd, bool device,
				  enum neuron_reset_state from, int result)
{
	struct neuron_reset_req *req;
	struct hlist_node *tmp;

	mutex_lock(&nd->lock);
	hlist_for_each_entry_safe(req, tmp, &nd->resets, node) {
		if (neuron_reset_is_device(req) != device || req->state != from)
			continue;
		if (!req->owner) {
			neuron_reset_free_locked(req);
			continue;
		}
		req->state = NEURON_RESET_DONE;
		req->result = result;
	}
	nd->reset_seq++;
	mutex_unlock(&nd->lock);
	wake_up_all(&nd->state_wq);
}

/**
 * neuron_reset_run_cores() - carry out the queued core resets
 * @nd: the device
 *
 * Called by the device's worker when the device is not in a device reset.
 * All requests queued at that point become one firmware request; requests
 * queued meanwhile make another round.
 *
 * Context: the device's worker; sleeps.
 */
void neuron_reset_run_cores(struct neuron_device *nd)
{
	const struct neuron_dhal *dhal = nd->dhal.dhal;
	struct neuron_reset_req *req;
	u32 cores, units;
	unsigned int nc;
	int ret;

	for (;;) {
		cores = 0;
		mutex_lock(&nd->lock);
		hlist_for_each_entry(req, &nd->resets, node) {
			if (neuron_reset_is_device(req) || req->state != NEURON_RESET_QUEUED)
				continue;
			req->state = NEURON_RESET_RUNNING;
			cores |= req->nc_map;
		}
		mutex_unlock(&nd->lock);
		if (!cores)
			return;

		units = 0;
		for (nc = 0; nc < dhal->layout->nc_count && nc < 32; nc++)
			if (cores & BIT(nc))
				units |= dhal->fw->nc_reset_units[nc];
		neuron_stats_reset_start(nd, cores);
		ret = READ_ONCE(nd->stopping) ? -ENODEV : neuron_fw_reset_ncs(nd, units);
		/* -EINTR and -ENODEV: the device is being removed. */
		if (ret && ret != -EINTR && ret != -ENODEV) {
			dev_err(nd->bus.parent, "neuron%d: reset of cores %#x failed: %d\n",
				nd->index, cores, ret);
			neuron_stats_reset_failed(nd, dhal->layout->nc_count);
		}
		neuron_planes_reset(nd, cores, false);
		neuron_reset_complete(nd, false, NEURON_RESET_RUNNING, ret);
	}
}

/**
 * neuron_reset_device_done() - a device reset ended
 * @nd: the device
 * @result: 0 or the negative errno it ended with
 *
 * Completes the device resets processes asked for (a device reset started
 * for another reason completes them too: the device was reset).
 *
 * Context: the device's worker.
 */
void neuron_reset_device_done(struct neuron_device *nd, int result)
{
	neuron_planes_reset(nd, U32_MAX, true);
	neuron_reset_complete(nd, true, NEURON_RESET_QUEUED, result);
}

/**
 * neuron_reset_detach_locked() - a process detached from a device
 * @nd: the device
 * @a: the process's attach slot, still filled in
 *
 * Its cores are released and its requests dropped; a request the worker
 * is carrying out is left to the worker, which frees it.
 *
 * Context: neuron_device.lock held.
 */
void neuron_reset_detach_locked(struct neuron_device *nd, struct neuron_attach *a)
{
	struct neuron_reset_req *req;
	struct hlist_node *tmp;

	lockdep_assert_held(&nd->lock);
	neuron_holds_lock();
	WRITE_ONCE(a->held_ncs, 0);
	neuron_holds_unlock();
	hlist_for_each_entry_safe(req, tmp, &nd->resets, node) {
		if (req->owner != a->tgid)
			continue;
		if (req->state == NEURON_RESET_RUNNING)
			req->owner = NULL;
		else
			neuron_reset_free_locked(req);
	}
}

/*
 * What processes hold of the cores, host-wide: &neuron_attach.held_ncs of
 * every device (cores held by a reset a process asked for, changed with
 * the device's lock held too) and what the planes record (the NeuronCore
 * state plane's reservations).  Taken inside neuron_device.lock; a leaf
 * but for the planes' records it guards.
 */
static DEFINE_MUTEX(neuron_holds_mutex);

/** neuron_holds_lock() - take the lock of what processes hold of the cores */
void neuron_holds_lock(void)
{
	mutex_lock(&neuron_holds_mutex);
}

/** neuron_holds_unlock() - release it */
void neuron_holds_unlock(void)
{
	mutex_unlock(&neuron_holds_mutex);
}

/** neuron_holds_assert_held() - lockdep: the holds lock is held */
void neuron_holds_assert_held(void)
{
	lockdep_assert_held(&neuron_holds_mutex);
}

/**
 * neuron_reset_held_by_others_locked() - cores others hold by reset
 * @nd: the device
 * @tgid: the process asking
 *
 * Context: the holds lock held.
 * Return: bit per core of @nd that processes other than @tgid hold by a
 * reset they asked for.
 */
u32 neuron_reset_held_by_others_locked(struct neuron_device *nd, struct pid *tgid)
{
	u32 held = 0;
	int i;

	neuron_holds_assert_held();
	for (i = 0; i < NEURON_MAX_ATTACH; i++) {
		u32 ncs = READ_ONCE(nd->attach[i].held_ncs);

		/* A slot's tgid is stable while its held_ncs is not 0. */
		if (ncs && READ_ONCE(nd->attach[i].tgid) != tgid)
			held |= ncs;
	}
	return held;
}

/**
 * neuron_foreign_cores() - cores another process holds
 * @nd: the device
 * @tgid: the process asking
 *
 * The cores of @nd that a process other than @tgid reserved, or holds by
 * a reset it asked for (an attach slot of another process).  A snapshot:
 * what processes hold may change as soon as this returns.
 *
 * Context: process context; takes the holds lock alone (the caller may
 * hold neuron_device.lock, never the holds lock).
 * Return: bit per core of @nd.
 */
u32 neuron_foreign_cores(struct neuron_device *nd, struct pid *tgid)
{
	u32 map;

	neuron_holds_lock();
	map = neuron_planes_cores_held_locked(nd, tgid) |
	      neuron_reset_held_by_others_locked(nd, tgid);
	neuron_holds_unlock();
	return map;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_foreign_cores);

/**
 * neuron_process_foreign_cores() - cores of a device other processes hold
 * @nd: the device
 *
 * For a plane whose commands reach a NeuronCore's hardware (the DMA
 * engines of a core): the cores of @nd that a process other than the
 * caller reserved or holds by reset (Documentation/state.rst), which the
 * caller must keep out of.  A snapshot, as neuron_foreign_cores().
 *
 * Context: process context; takes a leaf mutex.
 * Return: bit per core of @nd.
 */
u32 neuron_process_foreign_cores(struct neuron_device *nd)
{
	return neuron_foreign_cores(nd, task_tgid(current));
}
EXPORT_SYMBOL_NS_GPL(neuron_process_foreign_cores, NEURON_NS);
