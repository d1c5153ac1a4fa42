// SPDX-License-Identifier: GPL-2.0
/*
 * Plane registration (include/neuron/plane.h): the modules that serve
 * command families and keep per-device and per-file state register here.
 *
 * Registering attaches the plane to every device, then publishes its
 * families in the dispatcher's table (ioctl.c).  Unregistering withdraws
 * the families, waits for calls in flight (ioctl.c's SRCU, with no lock
 * held: a call may be waiting for a removal that waits for the planes'
 * lock), and detaches the plane from every device: first each open file's
 * state, then the device's.  A device created while a plane is registered
 * gets it attached before it exists for anyone; a device that goes
 * detaches it once no handler runs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmod.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include <neuron/compat.h>

#include "core.h"
#include "dispatch.h"

/* Registered planes, by id. */
static const struct neuron_plane *neuron_planes[NEURON_PLANES];
/* Devices planes attach to: from creation until they go. */
static LIST_HEAD(neuron_plane_devices);
/*
 * Protects neuron_planes[] and neuron_plane_devices, and serialises
 * attaching and detaching planes to devices.  Taken before any device lock.
 */
static DEFINE_MUTEX(neuron_planes_lock);

/*
 * The built-in planes (the core's memory layer and NeuronCore state
 * plane), by id: set once when they register at the core's load, before
 * any device exists, and cleared at its unload, after every device went.
 * Read without a lock: the base calls their built-in-only callbacks
 * through it.
 */
static const struct neuron_plane *neuron_builtin[NEURON_PLANES];

static const char * const neuron_plane_names[NEURON_PLANES] = {
	[NEURON_PLANE_DEVICE] = "device",
	[NEURON_PLANE_MEM] = "memory",
	[NEURON_PLANE_NC] = "nc",
	[NEURON_PLANE_DMA] = "dma",
	[NEURON_PLANE_TELEMETRY] = "telemetry",
};

/**
 * neuron_plane_priv() - a plane's state for a device
 * @nd: the device
 * @id: the plane
 *
 * For the plane's own handlers and callbacks: while they run the state
 * exists.
 *
 * Return: what the plane's &neuron_plane.device_attach stored.
 */
void *neuron_plane_priv(struct neuron_device *nd, enum neuron_plane_id id)
{
	return nd->plane_priv[id];
}
EXPORT_SYMBOL_NS_GPL(neuron_plane_priv, NEURON_NS);

/*
 * Load the module of plane @id for a command it serves.  Return: 0 when
 * it is registered afterwards, else -EOPNOTSUPP.
 */
int neuron_plane_load(enum neuron_plane_id id)
{
	bool there;

	if (id <= NEURON_PLANE_CORE || id >= NEURON_PLANES)
		return -EOPNOTSUPP;
	if (neuron_builtin[id])
		return 0;
	request_module(NEURON_PLANE_ALIAS_FMT, neuron_plane_names[id]);
	mutex_lock(&neuron_planes_lock);
	there = neuron_planes[id];
	mutex_unlock(&neuron_planes_lock);
	return there ? 0 : -EOPNOTSUPP;
}

/*
 * Tell plane @id that @nd is published, once, if it is.  Called with the
 * device's plane lock held.
 */
static void neuron_plane_publish_locked(struct neuron_device *nd, enum neuron_plane_id id)
{
	const struct neuron_plane *p = nd->planes[id];

	lockdep_assert_held(&nd->plane_lock);
	if (!p || !READ_ONCE(nd->published) || test_bit(id, &nd->plane_published))
		return;
	__set_bit(id, &nd->plane_published);
	if (p->device_publish)
		p->device_publish(nd, nd->plane_priv[id]);
}

/* The device's node exists now: tell the planes attached to it. */
void neuron_planes_publish(struct neuron_device *nd)
{
	unsigned int id;

	mutex_lock(&nd->plane_lock);
	for (id = 0; id < NEURON_PLANES; id++)
		neuron_plane_publish_locked(nd, id);
	mutex_unlock(&nd->plane_lock);
}

/* Attach @p to @nd.  Called with neuron_planes_lock held. */
static int neuron_plane_attach_dev(struct neuron_device *nd, const struct neuron_plane *p)
{
	void *priv = NULL;
	int ret;

	lockdep_assert_held(&neuron_planes_lock);
	if (p->device_attach) {
		ret = p->device_attach(nd, &priv);
		if (ret)
			return ret;
	}
	mutex_lock(&nd->plane_lock);
	nd->plane_priv[p->id] = priv;
	nd->planes[p->id] = p;
	neuron_plane_publish_locked(nd, p->id);
	mutex_unlock(&nd->plane_lock);
	return 0;
}

/*
 * Whether plane @p is told of file @nf's release: a module plane when it
 * keeps state in the file, a built-in plane always (the NeuronCore state
 * plane drops the reservations made through any file, which keep no
 * state there).
 */
static bool neuron_plane_has_file(const struct neuron_plane *p, const struct neuron_file *nf)
{
	return p->file_release && (nf->plane[p->id] || p->builtin);
}

/*
 * Detach @p from @nd: release every open file's state, then the device's.
 * No handler of @p runs on @nd (the plane's families are withdrawn and
 * waited for, or the device is gone with its usage lock held for write).
 */
static void neuron_plane_detach_dev(struct neuron_device *nd, const struct neuron_plane *p)
{
	struct neuron_file *nf;

	mutex_lock(&nd->plane_lock);
	if (nd->planes[p->id] != p) {
		mutex_unlock(&nd->plane_lock);
		return;
	}
	list_for_each_entry(nf, &nd->files, node) {
		if (neuron_plane_has_file(p, nf))
			p->file_release(nf, nf->plane[p->id]);
		nf->plane[p->id] = NULL;
	}
	/* The plane may still look its state up while it frees it. */
	if (p->device_detach)
		p->device_detach(nd, nd->plane_priv[p->id]);
	__clear_bit(p->id, &nd->plane_published);
	nd->planes[p->id] = NULL;
	nd->plane_priv[p->id] = NULL;
	mutex_unlock(&nd->plane_lock);
}

/* A new device: attach every registered plane, before anyone can use it. */
int neuron_planes_attach(struct neuron_device *nd)
{
	unsigned int id;
	int ret = 0;

	mutex_lock(&neuron_planes_lock);
	for (id = 0; id < NEURON_PLANES; id++) {
		if (!neuron_planes[id])
			continue;
		ret = neuron_plane_attach_dev(nd, neuron_planes[id]);
		if (ret)
			break;
	}
	if (ret) {
		while (id-- > 0)
			if (neuron_planes[id])
				neuron_plane_detach_dev(nd, neuron_planes[id]);
	} else {
		list_add_tail(&nd->plane_node, &neuron_plane_devices);
	}
	mutex_unlock(&neuron_planes_lock);
	return ret;
}

/*
 * The device goes (no handler runs on it any more): detach every plane.
 * Idempotent: a device whose creation failed half-way may come here.
 */
void neuron_planes_detach(struct neuron_device *nd)
{
	unsigned int id;

	mutex_lock(&neuron_planes_lock);
	for (id = NEURON_PLANES; id-- > 0;)
		if (neuron_planes[id])
			neuron_plane_detach_dev(nd, neuron_planes[id]);
	list_del_init(&nd->plane_node);
	mutex_unlock(&neuron_planes_lock);
}

/* A file opens: list it, so that a plane that goes finds its state. */
void neuron_planes_file_open(struct neuron_file *nf)
{
	struct neuron_device *nd = nf->nd;

	mutex_lock(&nd->plane_lock);
	list_add_tail(&nf->node, &nd->files);
	mutex_unlock(&nd->plane_lock);
}

/**
 * neuron_files_zap() - remove every user mapping of a device
 * @nd: the device, removed
 *
 * A mapping holds its file open, so each one is in an open file's address
 * space; accesses afterwards get SIGBUS (the mappings have no fault
 * handler).
 */
void neuron_files_zap(struct neuron_device *nd)
{
	struct neuron_file *nf;

	mutex_lock(&nd->plane_lock);
	list_for_each_entry(nf, &nd->files, node)
		unmap_mapping_range(nf->mapping, 0, 0, 1);
	mutex_unlock(&nd->plane_lock);
}

/* A file is released: the planes' state in it. */
void neuron_planes_file_release(struct neuron_file *nf)
{
	struct neuron_device *nd = nf->nd;
	const struct neuron_plane *p;
	unsigned int id;

	mutex_lock(&nd->plane_lock);
	list_del_init(&nf->node);
	/* From the top down: what a plane above started ends first. */
	for (id = NEURON_PLANES; id-- > 0;) {
		p = nd->planes[id];
		if (p && neuron_plane_has_file(p, nf))
			p->file_release(nf, nf->plane[id]);
		nf->plane[id] = NULL;
	}
	mutex_unlock(&nd->plane_lock);
}

/* Process @tgid detached from @nd (its last attached file went). */
void neuron_planes_process_detach(struct neuron_device *nd, struct pid *tgid)
{
	const struct neuron_plane *p;
	unsigned int id;

	mutex_lock(&nd->plane_lock);
	for (id = 0; id < NEURON_PLANES; id++) {
		p = nd->planes[id];
		if (p && p->process_detach)
			p->process_detach(nd, nd->plane_priv[id], tgid);
	}
	mutex_unlock(&nd->plane_lock);
}

/* Cores @cores were reset (U32_MAX and @device: the whole device). */
void neuron_planes_reset(struct neuron_device *nd, u32 cores, bool device)
{
	const struct neuron_plane *p;
	unsigned int id;

	mutex_lock(&nd->plane_lock);
	for (id = 0; id < NEURON_PLANES; id++) {
		p = nd->planes[id];
		if (!p)
			continue;
		if (device && p->device_reset)
			p->device_reset(nd, nd->plane_priv[id]);
		else if (!device && p->cores_reset)
			p->cores_reset(nd, nd->plane_priv[id], cores);
	}
	mutex_unlock(&nd->plane_lock);
}

/**
 * neuron_plane_dma_read() - read device addresses into host memory through
 *	the DMA plane (&neuron_plane.dma_read)
 * @nd: the device, held by the caller (neuron_device_enter_try())
 * @rd: the read
 *
 * Runs under the device's plane lock, which keeps the plane registered
 * (and its module in memory) for the call; the plane's wait is bounded
 * by %NEURON_PLANE_DMA_READ_MS.  The plane is not loaded for it.
 *
 * Return: what &neuron_plane.dma_read returns; -EOPNOTSUPP when no DMA
 * plane is registered.
 */
int neuron_plane_dma_read(struct neuron_device *nd, const struct neuron_plane_dma_read *rd)
{
	const struct neuron_plane *p;
	int ret = -EOPNOTSUPP;

	mutex_lock(&nd->plane_lock);
	p = nd->planes[NEURON_PLANE_DMA];
	if (p && p->dma_read)
		ret = p->dma_read(nd, nd->plane_priv[NEURON_PLANE_DMA], rd);
	mutex_unlock(&nd->plane_lock);
	return ret;
}

/* The built-in plane at step @i of a walk in id order (@up) or from the top down. */
static const struct neuron_plane *neuron_builtin_at(unsigned int i, bool up)
{
	return neuron_builtin[up ? i : NEURON_PLANES - 1 - i];
}

/**
 * neuron_planes_setup() - a device is bound to its DHAL and mapped
 * @nd: the device
 *
 * Return: 0, or the first built-in plane's error.
 */
int neuron_planes_setup(struct neuron_device *nd)
{
	const struct neuron_plane *p;
	unsigned int i;
	int ret;

	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, true);
		if (!p || !p->device_setup)
			continue;
		ret = p->device_setup(nd);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * neuron_planes_ready() - a reset left a device ready
 * @nd: the device
 */
void neuron_planes_ready(struct neuron_device *nd)
{
	const struct neuron_plane *p;
	unsigned int i;

	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, true);
		if (p && p->device_ready)
			p->device_ready(nd);
	}
}

/**
 * neuron_planes_remove() - a removed device's node is gone
 * @nd: the device, every plane detached
 */
void neuron_planes_remove(struct neuron_device *nd)
{
	const struct neuron_plane *p;
	unsigned int i;

	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, false);
		if (p && p->device_remove)
			p->device_remove(nd);
	}
}

/**
 * neuron_planes_free() - a device structure's last reference went
 * @nd: the device
 */
void neuron_planes_free(struct neuron_device *nd)
{
	const struct neuron_plane *p;
	unsigned int i;

	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, false);
		if (p && p->device_free)
			p->device_free(nd);
	}
}

/**
 * neuron_planes_process_gone_locked() - a process's attach slot empties
 * @nd: the device, its lock held
 * @tgid: the process
 */
void neuron_planes_process_gone_locked(struct neuron_device *nd, struct pid *tgid)
{
	const struct neuron_plane *p;
	unsigned int i;

	lockdep_assert_held(&nd->lock);
	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, true);
		if (p && p->process_gone_locked)
			p->process_gone_locked(nd, tgid);
	}
}

/**
 * neuron_planes_cores_held_locked() - cores other processes hold in the planes
 * @nd: the device
 * @tgid: the process asking
 *
 * Context: neuron_holds_lock() held.
 * Return: bit per core of @nd.
 */
u32 neuron_planes_cores_held_locked(struct neuron_device *nd, struct pid *tgid)
{
	const struct neuron_plane *p;
	unsigned int i;
	u32 held = 0;

	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, true);
		if (p && p->cores_held)
			held |= p->cores_held(nd, tgid);
	}
	return held;
}

/**
 * neuron_planes_app_info() - what the planes know of one attached process
 * @nd: the device, its lock held
 * @tgid: the process
 * @flags: APP_INFO_* asked for
 * @app: filled in
 */
void neuron_planes_app_info(struct neuron_device *nd, struct pid *tgid, u16 flags,
			    struct neuron_app_info *app)
{
	const struct neuron_plane *p;
	unsigned int i;

	lockdep_assert_held(&nd->lock);
	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, true);
		if (p && p->app_info)
			p->app_info(nd, tgid, flags, app);
	}
}

/**
 * neuron_planes_mmap() - map part of a device's mmap space
 * @nf: the file
 * @vma: the mapping
 * @start: first byte of the range (the mapping's offset)
 * @len: its length; @start + @len does not overflow
 *
 * Return: the first built-in plane's answer that is not -ENOENT; -EINVAL
 * when the range is no plane's.
 */
int neuron_planes_mmap(struct neuron_file *nf, struct vm_area_struct *vma, u64 start, u64 len)
{
	const struct neuron_plane *p;
	unsigned int i;
	int ret;

	for (i = 0; i < NEURON_PLANES; i++) {
		p = neuron_builtin_at(i, true);
		if (!p || !p->mmap)
			continue;
		ret = p->mmap(nf, vma, start, len);
		if (ret != -ENOENT)
			return ret;
	}
	return -EINVAL;
}

/* Whether @p's shape is one a plane may register with (@builtin: the core's own). */
static bool neuron_plane_valid(const struct neuron_plane *p, bool builtin)
{
	bool mine = p->id == NEURON_PLANE_DEVICE || p->id == NEURON_PLANE_MEM ||
		    p->id == NEURON_PLANE_NC;

	if (!p->name || p->id <= NEURON_PLANE_CORE || p->id >= NEURON_PLANES ||
	    !p->ioctls || (p->device_detach && !p->device_attach))
		return false;
	if (builtin)
		return p->builtin && mine;
	return !p->builtin && !mine && !p->device_setup && !p->device_ready &&
	       !p->device_remove && !p->device_free && !p->process_gone_locked &&
	       !p->cores_held && !p->app_info && !p->mmap;
}

/**
 * neuron_plane_register() - make a plane available
 * @p: the plane; must stay valid until neuron_plane_unregister()
 *
 * Attaches the plane to every device, then publishes its command families.
 *
 * Return: 0; -EINVAL for a malformed plane or one that claims a command
 * number of another; -EEXIST when the plane is already registered; the
 * error of a device attach (nothing stays attached then).
 */
int neuron_plane_register(const struct neuron_plane *p)
{
	struct neuron_device *nd, *failed = NULL;
	int ret;

	if (!p || !neuron_plane_valid(p, false))
		return -EINVAL;
	ret = neuron_ioctl_check_plane(p);
	if (ret)
		return ret;

	mutex_lock(&neuron_planes_lock);
	if (neuron_planes[p->id]) {
		ret = -EEXIST;
		goto unlock;
	}
	list_for_each_entry(nd, &neuron_plane_devices, plane_node) {
		ret = neuron_plane_attach_dev(nd, p);
		if (ret) {
			failed = nd;
			break;
		}
	}
	if (failed) {
		list_for_each_entry(nd, &neuron_plane_devices, plane_node) {
			if (nd == failed)
				break;
			neuron_plane_detach_dev(nd, p);
		}
	}
	if (ret)
		goto unlock;
	neuron_planes[p->id] = p;
	neuron_ioctl_publish(p);
unlock:
	mutex_unlock(&neuron_planes_lock);
	if (!ret)
		pr_info("plane %s registered\n", p->name);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_plane_register, NEURON_NS);

/**
 * neuron_plane_unregister() - withdraw a plane
 * @p: what neuron_plane_register() was given
 *
 * Withdraws its families, waits for their calls in flight, then releases
 * its state in every open file and every device.  Later calls of its
 * commands load the module again.
 */
void neuron_plane_unregister(const struct neuron_plane *p)
{
	struct neuron_device *nd;

	mutex_lock(&neuron_planes_lock);
	if (neuron_planes[p->id] != p) {
		mutex_unlock(&neuron_planes_lock);
		return;
	}
	neuron_ioctl_withdraw(p);
	mutex_unlock(&neuron_planes_lock);

	/*
	 * Wait for the calls in flight without the lock: a call may wait for
	 * a removal that waits for the lock.  Devices made meanwhile still
	 * get the plane attached, and lose it below.
	 */
	neuron_ioctl_sync();

	mutex_lock(&neuron_planes_lock);
	list_for_each_entry(nd, &neuron_plane_devices, plane_node)
		neuron_plane_detach_dev(nd, p);
	neuron_planes[p->id] = NULL;
	mutex_unlock(&neuron_planes_lock);
	pr_info("plane %s unregistered\n", p->name);
}
EXPORT_SYMBOL_NS_GPL(neuron_plane_unregister, NEURON_NS);

/**
 * neuron_plane_register_builtin() - register one of the core's own planes
 * @p: the plane (&neuron_plane.builtin set)
 *
 * At the core's load, before any device exists.
 *
 * Return: 0; -EINVAL for a malformed plane; -EEXIST.
 */
int neuron_plane_register_builtin(const struct neuron_plane *p)
{
	int ret;

	if (!neuron_plane_valid(p, true))
		return -EINVAL;
	ret = neuron_ioctl_check_plane(p);
	if (ret)
		return ret;
	mutex_lock(&neuron_planes_lock);
	if (neuron_planes[p->id] || !list_empty(&neuron_plane_devices)) {
		ret = -EEXIST;
	} else {
		neuron_planes[p->id] = p;
		neuron_builtin[p->id] = p;
		neuron_ioctl_publish(p);
	}
	mutex_unlock(&neuron_planes_lock);
	return ret;
}

/**
 * neuron_plane_unregister_builtin() - withdraw one of the core's own planes
 * @p: what neuron_plane_register_builtin() was given
 *
 * At the core's unload, once every device went.
 */
void neuron_plane_unregister_builtin(const struct neuron_plane *p)
{
	mutex_lock(&neuron_planes_lock);
	WARN_ON(!list_empty(&neuron_plane_devices));
	if (neuron_builtin[p->id] == p) {
		neuron_ioctl_withdraw(p);
		neuron_planes[p->id] = NULL;
		neuron_builtin[p->id] = NULL;
	}
	mutex_unlock(&neuron_planes_lock);
	neuron_ioctl_sync();
}
