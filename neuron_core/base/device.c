// SPDX-License-Identifier: GPL-2.0
/*
 * The bus-agnostic device layer: creation, asynchronous bring-up (bind the
 * DHAL, map, identify, reset, publish), the registry of routing ids, and
 * removal in mirror order.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include <neuron/compat.h>

#include "core.h"
#include "trace.h"

/* Every device, for DHAL registration to find the unbound ones. */
static LIST_HEAD(neuron_devices);
/* Protects neuron_devices. */
static DEFINE_MUTEX(neuron_devices_lock);

/* Routing id -> device that owns /dev/neuron<id>. */
static struct neuron_device *neuron_registry[NEURON_MAX_DEVICES];
/* Protects neuron_registry. */
static DEFINE_MUTEX(neuron_registry_lock);

/**
 * struct neuron_bus_device - a device as its bus added it
 * @desc: the bus's description
 * @nd: the device's current incarnation, or NULL
 * @node: entry in neuron_bus_devices
 *
 * A bus holds this handle from neuron_device_create() to
 * neuron_device_destroy(); the Neuron device behind it is made anew each
 * time its DHAL comes back after being withdrawn.
 */
struct neuron_bus_device {
	struct neuron_bus_desc desc;
	struct neuron_device *nd;
	struct list_head node;
};

/* Every bus device. */
static LIST_HEAD(neuron_bus_devices);
/*
 * Protects neuron_bus_devices and each one's @nd, and serialises tearing
 * incarnations down (removal, DHAL withdrawal).  Outermost device lock.
 */
static DEFINE_MUTEX(neuron_bus_lock);

/* Runs bring-up and reset work; unbound, so devices come up in parallel. */
static struct workqueue_struct *neuron_wq;
/* /sys/kernel/debug/neuron, or NULL: set at load, cleared at unload. */
static struct dentry *neuron_debugfs_dir;

static void neuron_device_debugfs_add(struct neuron_device *nd);

static const char * const neuron_state_names[] = {
	[NEURON_STATE_NEW] = "new",
	[NEURON_STATE_WAIT_DHAL] = "waiting-for-dhal",
	[NEURON_STATE_INIT] = "initializing",
	[NEURON_STATE_RESETTING] = "resetting",
	[NEURON_STATE_READY] = "ready",
	[NEURON_STATE_FAILED] = "failed",
	[NEURON_STATE_GONE] = "removed",
};

/**
 * neuron_device_state_name() - a state as a word
 * @state: the state
 *
 * Return: a static string, "unknown" for values out of range.
 */
const char *neuron_device_state_name(enum neuron_device_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(neuron_state_names))
		return "unknown";
	return neuron_state_names[state];
}
EXPORT_SYMBOL_NS_GPL(neuron_device_state_name, NEURON_NS);

/**
 * neuron_device_state() - current lifecycle state of a device
 * @nd: the device
 *
 * Return: the state; it may change as soon as this returns.
 */
enum neuron_device_state neuron_device_state(struct neuron_device *nd)
{
	return READ_ONCE(nd->state);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_state, NEURON_NS);

/**
 * neuron_device_index() - the device's index (its routing id)
 * @nd: the device
 *
 * Return: N of /dev/neuronN, or -1 while the device has none.
 */
int neuron_device_index(struct neuron_device *nd)
{
	return READ_ONCE(nd->index);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_index, NEURON_NS);

/*
 * After a change of @nd's state: wake its waiters, and whoever polls a file
 * that shows the state (the bus device's; the node's once it exists).
 */
static void neuron_device_state_changed(struct neuron_device *nd)
{
	struct kernfs_node *kn;
	unsigned int i;

	wake_up_all(&nd->state_wq);
	if (nd->bus.state_attr)
		sysfs_notify(&nd->bus.parent->kobj, NULL, nd->bus.state_attr);
	for (i = 0; i < ARRAY_SIZE(nd->state_kn); i++) {
		kn = READ_ONCE(nd->state_kn[i]);
		if (kn)
			sysfs_notify_dirent(kn);
	}
}

void neuron_device_set_state(struct neuron_device *nd, enum neuron_device_state state)
{
	bool changed;

	mutex_lock(&nd->lock);
	changed = nd->state != NEURON_STATE_GONE && nd->state != state;
	if (changed)
		WRITE_ONCE(nd->state, state);
	mutex_unlock(&nd->lock);
	if (changed)
		neuron_device_state_changed(nd);
	else
		wake_up_all(&nd->state_wq);
}

/*
 * Sleep for @ms unless the device is being removed.
 * Return: 0 after the full sleep, -EINTR when removal started.
 */
int neuron_device_sleep(struct neuron_device *nd, unsigned int ms)
{
	if (wait_event_timeout(nd->state_wq, READ_ONCE(nd->stopping),
			       msecs_to_jiffies(ms)))
		return -EINTR;
	return 0;
}

static int neuron_registry_claim(struct neuron_device *nd, u32 rid)
{
	struct neuron_device *other;
	int ret = 0;

	if (rid >= NEURON_MAX_DEVICES) {
		dev_err(nd->bus.parent,
			"routing id %u out of range (0..%d); device not registered\n",
			rid, NEURON_MAX_DEVICES - 1);
		return -ERANGE;
	}
	mutex_lock(&neuron_registry_lock);
	other = neuron_registry[rid];
	if (other) {
		dev_err(nd->bus.parent,
			"routing id %u already used by %s; device not registered\n",
			rid, dev_name(other->bus.parent));
		ret = -EEXIST;
	} else {
		neuron_registry[rid] = nd;
		WRITE_ONCE(nd->index, rid);
	}
	mutex_unlock(&neuron_registry_lock);
	return ret;
}

/**
 * neuron_device_count() - devices present on the host
 *
 * Return: how many devices have an index (of any generation).
 */
unsigned int neuron_device_count(void)
{
	unsigned int i, n = 0;

	mutex_lock(&neuron_registry_lock);
	for (i = 0; i < NEURON_MAX_DEVICES; i++)
		if (neuron_registry[i])
			n++;
	mutex_unlock(&neuron_registry_lock);
	return n;
}

/**
 * neuron_device_links() - the devices a device is linked to
 * @nd: the device, with a DHAL
 * @out: where their indices go
 * @max: room in @out
 *
 * From the generation's topology tables, chosen by how many devices are
 * present, as the reference does; none when no table fits the count.
 *
 * Return: the number of indices written.
 */
unsigned int neuron_device_links(struct neuron_device *nd, u32 *out, unsigned int max)
{
	const struct neuron_dhal_arch *arch = nd->dhal.arch;
	unsigned int count = neuron_device_count(), i, j, n = 0, row, base;
	int d = READ_ONCE(nd->index);

	if (!arch || d < 0 || !count)
		return 0;
	for (i = 0; i < arch->n_topology; i++) {
		const struct neuron_dhal_topology *t = &arch->topology[i];

		if (t->periodic ? count % t->devices : count != t->devices)
			continue;
		if (!t->periodic && d >= t->devices)
			return 0;
		row = d % t->devices;
		base = d - row;
		for (j = 0; j < t->links && n < max; j++) {
			u8 link = t->table[row * t->links + j];

			if (link != NEURON_NO_LINK)
				out[n++] = base + link;
		}
		break;
	}
	return n;
}

static void neuron_registry_release(struct neuron_device *nd)
{
	if (nd->index < 0)
		return;
	mutex_lock(&neuron_registry_lock);
	if (neuron_registry[nd->index] == nd)
		neuron_registry[nd->index] = NULL;
	mutex_unlock(&neuron_registry_lock);
}

/**
 * neuron_reg_read32() - read a 32-bit device register
 * @nd: the device
 * @bar: BAR index
 * @off: byte offset in the BAR
 *
 * Return: the value; all ones when the offset is outside the mapped BAR.
 */
u32 neuron_reg_read32(struct neuron_device *nd, unsigned int bar, u64 off)
{
	const struct neuron_bar *b;

	if (unlikely(bar >= NEURON_NUM_BARS || (off & 3) ||
		     off + 4 > nd->bars[bar].size)) {
		dev_err_ratelimited(nd->bus.parent, "register read outside BAR%u\n", bar);
		return ~0U;
	}
	b = &nd->bars[bar];
	if (nd->bus.reg_ops)
		return nd->bus.reg_ops->read32(nd->bus.ctx, bar, off);
	return readl(b->iomem + off);
}
EXPORT_SYMBOL_NS_GPL(neuron_reg_read32, NEURON_NS);

/**
 * neuron_reg_write32() - write a 32-bit device register
 * @nd: the device
 * @bar: BAR index
 * @off: byte offset in the BAR
 * @val: value
 *
 * A write outside the mapped BAR is dropped and logged.
 */
void neuron_reg_write32(struct neuron_device *nd, unsigned int bar, u64 off, u32 val)
{
	const struct neuron_bar *b;

	if (unlikely(bar >= NEURON_NUM_BARS || (off & 3) ||
		     off + 4 > nd->bars[bar].size)) {
		dev_err_ratelimited(nd->bus.parent, "register write outside BAR%u\n", bar);
		return;
	}
	b = &nd->bars[bar];
	if (nd->bus.reg_ops)
		nd->bus.reg_ops->write32(nd->bus.ctx, bar, off, val);
	else
		writel(val, b->iomem + off);
}
EXPORT_SYMBOL_NS_GPL(neuron_reg_write32, NEURON_NS);

static int neuron_device_map(struct neuron_device *nd)
{
	const struct neuron_dhal_layout *l = nd->dhal.dhal->layout;
	int ret;

	u64 need = l->misc_ram_offset + NEURON_FW_MISC_SIZE;
	struct neuron_bar *apb = &nd->bars[l->apb_bar];

	ret = nd->bus.map_bar(nd->bus.ctx, l->apb_bar, false, apb);
	if (ret) {
		dev_err(nd->bus.parent, "cannot map register BAR%u: %d\n", l->apb_bar, ret);
		return ret;
	}
	/* Bring-up reaches the firmware block: the BAR must hold it. */
	if (apb->size < need) {
		dev_err(nd->bus.parent,
			"register BAR%u is too small for %s: %llu bytes, %llu needed; device refused\n",
			l->apb_bar, nd->dhal.arch->device_name, (u64)apb->size, need);
		if (nd->bus.unmap_bar)
			nd->bus.unmap_bar(nd->bus.ctx, l->apb_bar, apb);
		memset(apb, 0, sizeof(*apb));
		return -ENOSPC;
	}
	/* Without device memory the device still works for everything else. */
	ret = nd->bus.map_bar(nd->bus.ctx, l->dram_bar, neuron_wc_enable,
			      &nd->bars[l->dram_bar]);
	if (ret) {
		dev_warn(nd->bus.parent, "cannot map device-memory BAR%u: %d\n",
			 l->dram_bar, ret);
		memset(&nd->bars[l->dram_bar], 0, sizeof(nd->bars[l->dram_bar]));
	}
	nd->mapped = true;
	return 0;
}

static void neuron_device_unmap(struct neuron_device *nd)
{
	unsigned int i;

	if (!nd->mapped)
		return;
	for (i = NEURON_NUM_BARS; i-- > 0;) {
		if (!nd->bars[i].size)
			continue;
		if (nd->bus.unmap_bar)
			nd->bus.unmap_bar(nd->bus.ctx, i, &nd->bars[i]);
		memset(&nd->bars[i], 0, sizeof(nd->bars[i]));
	}
	nd->mapped = false;
}

static int neuron_device_publish(struct neuron_device *nd)
{
	struct kernfs_node *kn[ARRAY_SIZE(nd->state_kn)];
	unsigned int i;
	int ret;

	nd->dev.devt = MKDEV(MAJOR(neuron_core_devt()), nd->index);
	ret = dev_set_name(&nd->dev, "neuron%d", nd->index);
	if (ret)
		return ret;
	/* Announce the device only once info/ exists under it. */
	dev_set_uevent_suppress(&nd->dev, true);
	ret = cdev_device_add(&nd->cdev, &nd->dev);
	if (ret)
		return ret;
	neuron_device_debugfs_add(nd);
	/* The files showing the state, notified from now on (found or not). */
	kn[0] = sysfs_get_dirent(nd->dev.kobj.sd, "state");
	kn[1] = sysfs_get_dirent(nd->dev.kobj.sd, "reset");
	mutex_lock(&nd->lock);
	nd->published = true;
	for (i = 0; i < ARRAY_SIZE(kn); i++)
		WRITE_ONCE(nd->state_kn[i], kn[i]);
	mutex_unlock(&nd->lock);
	neuron_planes_publish(nd);
	dev_set_uevent_suppress(&nd->dev, false);
	kobject_uevent(&nd->dev.kobj, KOBJ_ADD);
	return 0;
}

/* The name of @nd's bus device, for the tracepoints. */
static const char *neuron_device_parent_name(struct neuron_device *nd)
{
	return nd->bus.parent ? dev_name(nd->bus.parent) : "";
}

/* The end of @nd's bring-up, @err 0 for ready, for the tracepoint. */
static void neuron_device_bringup_done(struct neuron_device *nd, int err)
{
	trace_neuron_bringup_done(neuron_device_parent_name(nd), READ_ONCE(nd->index), err,
				  ktime_get_ns() - nd->bringup_ns);
}

/* Fail bring-up: the state says so and the log says why (unless @what is NULL). */
static void neuron_device_fail(struct neuron_device *nd, const char *what, int err)
{
	if (what && err != -EINTR)
		dev_err(nd->bus.parent, "%s failed: %d; device is FAILED\n", what, err);
	neuron_device_set_state(nd, NEURON_STATE_FAILED);
	neuron_device_bringup_done(nd, err);
}

/* Reset; return its error, 0 when it leads to READY. */
static int neuron_device_do_reset(struct neuron_device *nd)
{
	u32 ncs = nd->dhal.dhal->layout->nc_count;
	int ret;

	/* A device reset covers every core. */
	neuron_stats_reset_start(nd, ncs >= 32 ? U32_MAX : (u32)BIT(ncs) - 1);
	ret = neuron_fw_reset(nd);
	if (ret && ret != -EINTR) {
		dev_err(nd->bus.parent, "reset failed: %d; device is FAILED\n", ret);
		neuron_stats_reset_failed(nd, ncs);
	}
	return ret;
}

/*
 * The worker: each step is done once, so the same work item brings the
 * device up, resumes when its DHAL appears, and runs later resets.
 */
static void neuron_device_work(struct work_struct *work)
{
	struct neuron_device *nd = container_of(work, struct neuron_device, work);
	enum neuron_device_state next;
	u32 rid;
	int ret;

	if (READ_ONCE(nd->stopping))
		return;

	if (!nd->dhal.dhal) {
		ret = neuron_dhal_bind(nd);
		if (ret == -EPROBE_DEFER) {
			neuron_device_set_state(nd, NEURON_STATE_WAIT_DHAL);
			return;
		}
		if (ret) {
			neuron_device_fail(nd, "binding a DHAL", ret);
			return;
		}
		neuron_device_set_state(nd, NEURON_STATE_INIT);
	}

	if (!nd->mapped) {
		ret = neuron_device_map(nd);
		if (ret) {
			/* A refused function was reported in one line already. */
			neuron_device_fail(nd, ret == -ENOSPC ? NULL : "mapping BARs", ret);
			return;
		}
		/* The layers above: the memory pools. */
		ret = neuron_planes_setup(nd);
		if (ret) {
			neuron_device_fail(nd, "setting up memory pools", ret);
			return;
		}
	}

	if (nd->index < 0) {
		ret = neuron_fw_read_identity(nd, &rid);
		if (ret) {
			neuron_device_fail(nd, "reading the routing id", ret);
			return;
		}
		ret = neuron_registry_claim(nd, rid);
		if (ret) {
			neuron_device_fail(nd, "claiming the routing id", ret);
			return;
		}
		neuron_device_set_state(nd, NEURON_STATE_RESETTING);
	}

	if (READ_ONCE(nd->state) != NEURON_STATE_RESETTING) {
		/* Core resets processes asked for (reset.c). */
		neuron_reset_run_cores(nd);
		return;
	}
	ret = neuron_device_do_reset(nd);
	next = ret ? NEURON_STATE_FAILED : NEURON_STATE_READY;

	/*
	 * At bring-up the node is published before the state leaves
	 * RESETTING, so whoever sees READY or FAILED also finds the node.
	 */
	if (!nd->published && !READ_ONCE(nd->stopping)) {
		ret = neuron_device_publish(nd);
		if (ret) {
			neuron_device_fail(nd, "creating the device node", ret);
			return;
		}
		dev_info(nd->bus.parent, "neuron%d: %s (%s), %s\n", nd->index,
			 nd->dhal.arch->device_name, nd->dhal.dhal->name,
			 neuron_device_state_name(next));
		neuron_device_bringup_done(nd, ret);
	}
	/*
	 * The planes' post-reset hook (the pod election's), before the state
	 * says READY: whoever sees READY finds the device in its node's pod.
	 */
	if (next == NEURON_STATE_READY && !READ_ONCE(nd->stopping))
		neuron_planes_ready(nd);
	neuron_device_set_state(nd, next);
	/* Device resets processes asked for end with it (reset.c). */
	neuron_reset_device_done(nd, next == NEURON_STATE_READY ? 0 : -EIO);
}

/**
 * neuron_device_request_reset() - reset a device that no process uses
 * @nd: the device
 * @force: reset it even while processes are attached (an administrator's
 *	request): their user queues go stale and their core holds go, as
 *	after any device reset; their files and memory stay theirs
 *
 * The reset runs asynchronously; the state is RESETTING until it ends in
 * READY or FAILED.
 *
 * Return: 0 when queued; -EBUSY if a process is attached (and not @force)
 * or a reset or bring-up is under way; -ENODEV if the device is being
 * removed.
 */
int neuron_device_request_reset(struct neuron_device *nd, bool force)
{
	unsigned int users = 0;
	int ret = 0;
	int i;

	mutex_lock(&nd->lock);
	switch (nd->state) {
	case NEURON_STATE_READY:
	case NEURON_STATE_FAILED:
		break;
	case NEURON_STATE_GONE:
		ret = -ENODEV;
		goto out;
	default:
		ret = -EBUSY;
		goto out;
	}
	/* A reset needs a device that completed identification. */
	if (!nd->mapped || nd->index < 0) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		users += !!nd->attach[i].tgid;
	if (users && !force) {
		ret = -EBUSY;
		goto out;
	}
	WRITE_ONCE(nd->state, NEURON_STATE_RESETTING);
	queue_work(neuron_wq, &nd->work);
out:
	mutex_unlock(&nd->lock);
	if (!ret)
		neuron_device_state_changed(nd);
	if (!ret && users)
		dev_warn(nd->bus.parent, "reset forced by an administrator with %u processes attached\n",
			 users);
	return ret;
}

/**
 * neuron_device_kick() - run a device's worker
 * @nd: the device
 *
 * For reset requests made outside device.c; the worker picks up whatever
 * is pending.
 */
void neuron_device_kick(struct neuron_device *nd)
{
	queue_work(neuron_wq, &nd->work);
}

/**
 * neuron_device_get_by_index() - look a device up by its index
 * @index: N of /dev/neuronN
 *
 * Return: the device with a reference (drop it with put_device() on
 * &neuron_device.dev), or NULL when no device has that index.
 */
struct neuron_device *neuron_device_get_by_index(unsigned int index)
{
	struct neuron_device *nd;

	if (index >= NEURON_MAX_DEVICES)
		return NULL;
	/* @index may come from user space. */
	index = array_index_nospec(index, NEURON_MAX_DEVICES);
	mutex_lock(&neuron_registry_lock);
	nd = neuron_registry[index];
	if (nd)
		get_device(&nd->dev);
	mutex_unlock(&neuron_registry_lock);
	return nd;
}

static void neuron_device_release(struct device *dev)
{
	struct neuron_device *nd = container_of(dev, struct neuron_device, dev);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nd->state_kn); i++)
		sysfs_put(nd->state_kn[i]);
	neuron_planes_free(nd);
	neuron_evlog_fini(nd);
	mutex_destroy(&nd->plane_lock);
	mutex_destroy(&nd->lock);
	kfree(nd);
}

/*
 * A new incarnation of @bd's device, its bring-up queued.  @waiting: its
 * DHAL was just withdrawn, so it waits for the DHAL to register again
 * rather than asking for its module.
 */
static struct neuron_device *neuron_device_new(const struct neuron_bus_desc *desc,
					       bool waiting)
{
	struct neuron_device *nd;
	int ret;

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);

	nd->bus = *desc;
	nd->index = -1;
	nd->state = NEURON_STATE_NEW;
	nd->module_requested = waiting;
	mutex_init(&nd->lock);
	init_rwsem(&nd->usage);
	init_waitqueue_head(&nd->state_wq);
	INIT_WORK(&nd->work, neuron_device_work);
	INIT_LIST_HEAD(&nd->node);
	/* Memory is what the statistics count first: they start here. */
	neuron_stats_init(nd);
	mutex_init(&nd->plane_lock);
	INIT_LIST_HEAD(&nd->files);
	INIT_LIST_HEAD(&nd->plane_node);

	device_initialize(&nd->dev);
	nd->dev.class = neuron_core_class();
	nd->dev.groups = neuron_dev_groups;
	nd->dev.release = neuron_device_release;
	cdev_init(&nd->cdev, &neuron_fops);
	nd->cdev.owner = THIS_MODULE;
	ret = neuron_evlog_init(nd);
	if (!ret)
		ret = neuron_planes_attach(nd);
	if (ret) {
		put_device(&nd->dev);
		return ERR_PTR(ret);
	}
	get_device(nd->bus.parent);

	mutex_lock(&neuron_devices_lock);
	list_add_tail(&nd->node, &neuron_devices);
	nd->bringup_ns = ktime_get_ns();
	trace_neuron_bringup_start(neuron_device_parent_name(nd), nd->bus.simulated);
	queue_work(neuron_wq, &nd->work);
	mutex_unlock(&neuron_devices_lock);
	return nd;
}

/*
 * Tear an incarnation down: stop bring-up or a reset wherever it is, wait
 * out file operations in progress, release the planes' state, remove the
 * node and every user mapping, release the hardware.  Files still open
 * keep the structure alive and fail with -ENODEV; a process waiting in
 * open() wakes with -ENODEV.  Called with neuron_bus_lock held.
 */
static void neuron_device_teardown(struct neuron_device *nd)
{
	bool published;

	lockdep_assert_held(&neuron_bus_lock);
	mutex_lock(&nd->lock);
	nd->stopping = true;
	WRITE_ONCE(nd->state, NEURON_STATE_GONE);
	mutex_unlock(&nd->lock);
	neuron_device_state_changed(nd);

	mutex_lock(&neuron_devices_lock);
	list_del_init(&nd->node);
	mutex_unlock(&neuron_devices_lock);
	cancel_work_sync(&nd->work);

	/* The worker is done: nothing changes @published any more. */
	published = nd->published;

	/*
	 * Wait out file operations that passed their state check, then let
	 * the planes go: their state in open files (copies in flight), then
	 * their state for the device.
	 */
	down_write(&nd->usage);
	neuron_planes_detach(nd);
	up_write(&nd->usage);

	if (published) {
		debugfs_remove(nd->debugfs);
		nd->debugfs = NULL;
		cdev_device_del(&nd->cdev, &nd->dev);
	}
	/*
	 * The layers above let go of what processes may still reach: driver
	 * chunks kept for them, the pod, then every mapping and peer-direct
	 * registration (before the BARs go), the host chunks' memory (while
	 * the bus device exists) and the firmware mailboxes' buffers.
	 */
	neuron_planes_remove(nd);
	neuron_registry_release(nd);
	neuron_device_unmap(nd);
	neuron_dhal_unbind(nd);
	put_device(nd->bus.parent);
	put_device(&nd->dev);
}

/**
 * neuron_device_create() - add a device found by a bus
 * @desc: the bus's description; copied
 *
 * Bring-up continues asynchronously; /dev/neuronN appears once the device
 * is identified and reset.  The returned handle outlives the Neuron
 * device's incarnations: when the device's DHAL unregisters, the device is
 * torn down and waits, under the same handle, for the DHAL to come back.
 *
 * Context: process context; may sleep.
 * Return: the handle, or an ERR_PTR() on bad input or allocation failure.
 */
struct neuron_bus_device *neuron_device_create(const struct neuron_bus_desc *desc)
{
	struct neuron_bus_device *bd;
	struct neuron_device *nd;

	if (!desc || !desc->parent || !desc->map_bar)
		return ERR_PTR(-EINVAL);
	bd = kzalloc(sizeof(*bd), GFP_KERNEL);
	if (!bd)
		return ERR_PTR(-ENOMEM);
	bd->desc = *desc;

	mutex_lock(&neuron_bus_lock);
	nd = neuron_device_new(&bd->desc, false);
	if (!IS_ERR(nd)) {
		bd->nd = nd;
		list_add_tail(&bd->node, &neuron_bus_devices);
	}
	mutex_unlock(&neuron_bus_lock);
	if (IS_ERR(nd)) {
		kfree(bd);
		return ERR_CAST(nd);
	}
	return bd;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_create, NEURON_NS);

/**
 * neuron_device_destroy() - remove a device
 * @bd: the handle from neuron_device_create(); freed
 *
 * Tears the device down (see neuron_device_create()).  After this returns
 * the core makes no more calls to the bus callbacks.
 *
 * Context: process context; may sleep.
 */
void neuron_device_destroy(struct neuron_bus_device *bd)
{
	if (IS_ERR_OR_NULL(bd))
		return;
	mutex_lock(&neuron_bus_lock);
	list_del(&bd->node);
	if (bd->nd)
		neuron_device_teardown(bd->nd);
	bd->nd = NULL;
	mutex_unlock(&neuron_bus_lock);
	kfree(bd);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_destroy, NEURON_NS);

/*
 * DHAL @dhal is being withdrawn: every device bound to it is torn down (its
 * open files get -ENODEV, its mappings go) and starts again, waiting for a
 * DHAL.  @dhal is no longer found by binding.
 */
void neuron_devices_dhal_gone(const struct neuron_dhal *dhal)
{
	struct neuron_bus_device *bd;
	struct neuron_device *nd;

	mutex_lock(&neuron_bus_lock);
	list_for_each_entry(bd, &neuron_bus_devices, node) {
		if (!bd->nd || READ_ONCE(bd->nd->dhal.dhal) != dhal)
			continue;
		neuron_device_teardown(bd->nd);
		nd = neuron_device_new(&bd->desc, true);
		if (IS_ERR(nd)) {
			dev_err(bd->desc.parent, "cannot start the device again: %ld\n",
				PTR_ERR(nd));
			nd = NULL;
		}
		bd->nd = nd;
	}
	mutex_unlock(&neuron_bus_lock);
}

/**
 * neuron_bus_device_state() - where a bus's device is
 * @bd: the handle
 *
 * Return: the state of its current incarnation (GONE when it has none).
 */
enum neuron_device_state neuron_bus_device_state(struct neuron_bus_device *bd)
{
	enum neuron_device_state s = NEURON_STATE_GONE;

	mutex_lock(&neuron_bus_lock);
	if (bd->nd)
		s = READ_ONCE(bd->nd->state);
	mutex_unlock(&neuron_bus_lock);
	return s;
}
EXPORT_SYMBOL_NS_GPL(neuron_bus_device_state, NEURON_NS);

/**
 * neuron_bus_device_index() - a bus's device's index (its routing id)
 * @bd: the handle
 *
 * Return: N of /dev/neuronN, or -1 while the device has none.
 */
int neuron_bus_device_index(struct neuron_bus_device *bd)
{
	int index = -1;

	mutex_lock(&neuron_bus_lock);
	if (bd->nd)
		index = READ_ONCE(bd->nd->index);
	mutex_unlock(&neuron_bus_lock);
	return index;
}
EXPORT_SYMBOL_NS_GPL(neuron_bus_device_index, NEURON_NS);

/**
 * neuron_bus_device_reset() - reset a bus's device that no process uses
 * @bd: the handle
 *
 * Return: as neuron_device_request_reset(); -ENODEV without an incarnation.
 */
int neuron_bus_device_reset(struct neuron_bus_device *bd)
{
	int ret = -ENODEV;

	mutex_lock(&neuron_bus_lock);
	if (bd->nd)
		ret = neuron_device_request_reset(bd->nd, false);
	mutex_unlock(&neuron_bus_lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_bus_device_reset, NEURON_NS);

/**
 * neuron_device_parent() - the device's bus device
 * @nd: the device
 *
 * For the DMA API and for messages: the PCI function or simulated device.
 *
 * Return: the bus device; valid as long as @nd.
 */
struct device *neuron_device_parent(struct neuron_device *nd)
{
	return nd->bus.parent;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_parent, NEURON_NS);

/**
 * neuron_device_dhal() - the DHAL a device is bound to
 * @nd: the device
 *
 * Return: the descriptor, or NULL while the device has none.  A plane's
 * handler always sees one: ioctls reach only bound devices.
 */
const struct neuron_dhal *neuron_device_dhal(struct neuron_device *nd)
{
	return READ_ONCE(nd->dhal.dhal);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_dhal, NEURON_NS);

/**
 * neuron_device_arch() - the identity of a device's PCI id
 * @nd: the device
 *
 * Return: its entry in its DHAL, or NULL while the device has none;
 * published devices always have one.
 */
const struct neuron_dhal_arch *neuron_device_arch(struct neuron_device *nd)
{
	return READ_ONCE(nd->dhal.arch);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_arch, NEURON_NS);

/**
 * neuron_device_debugfs() - the device's debugfs directory
 * @nd: the device
 *
 * Return: /sys/kernel/debug/neuron/neuronN once the device is published,
 * else NULL (or an error pointer when debugfs is unavailable).
 */
struct dentry *neuron_device_debugfs(struct neuron_device *nd)
{
	return nd->debugfs;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_debugfs, NEURON_NS);

/**
 * neuron_device_kobj() - the device's node in sysfs
 * @nd: the device
 *
 * /sys/class/neuron_device/neuronN, for a plane's files under it.
 *
 * Return: its kobject; valid from the plane's &neuron_plane.device_publish
 * to its &neuron_plane.device_detach.
 */
struct kobject *neuron_device_kobj(struct neuron_device *nd)
{
	return &nd->dev.kobj;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_kobj, NEURON_NS);

/**
 * neuron_device_info_kobj() - the device's info/ directory in sysfs
 * @nd: the device
 *
 * Return: its kobject, valid as neuron_device_kobj()'s.
 */
struct kobject *neuron_device_info_kobj(struct neuron_device *nd)
{
	return nd->info_kobj;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_info_kobj, NEURON_NS);

/**
 * neuron_device_enter_try() - hold off the device's removal, if it is free
 * @nd: the device
 *
 * For plane work that runs outside an ioctl (a worker): it then holds the
 * device like an ioctl handler does.  Never waits, so a worker that an
 * ioctl waits for cannot deadlock behind a removal.
 *
 * Return: true when held (end with neuron_device_leave()); false when the
 * device is busy being removed or reset by another path, or gone.
 */
bool neuron_device_enter_try(struct neuron_device *nd)
{
	if (!down_read_trylock(&nd->usage))
		return false;
	if (READ_ONCE(nd->state) == NEURON_STATE_GONE) {
		up_read(&nd->usage);
		return false;
	}
	return true;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_enter_try, NEURON_NS);

/**
 * neuron_device_leave() - end neuron_device_enter_try()
 * @nd: the device
 */
void neuron_device_leave(struct neuron_device *nd)
{
	up_read(&nd->usage);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_leave, NEURON_NS);

/* A DHAL registered: devices without one try again. */
void neuron_devices_kick_unbound(void)
{
	struct neuron_device *nd;

	mutex_lock(&neuron_devices_lock);
	list_for_each_entry(nd, &neuron_devices, node)
		if (!READ_ONCE(nd->stopping) && !READ_ONCE(nd->dhal.dhal))
			queue_work(neuron_wq, &nd->work);
	mutex_unlock(&neuron_devices_lock);
}

/**
 * neuron_device_layer_init() - start the device layer
 *
 * Its workqueue, and /sys/kernel/debug/neuron (optional: without debugfs
 * devices have no directory there).
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_device_layer_init(void)
{
	neuron_wq = alloc_workqueue("neuron", WQ_UNBOUND, 0);
	if (!neuron_wq)
		return -ENOMEM;
	neuron_debugfs_dir = debugfs_create_dir("neuron", NULL);
	if (IS_ERR(neuron_debugfs_dir))
		neuron_debugfs_dir = NULL;
	return 0;
}

/** neuron_device_layer_exit() - end it, once every device went */
void neuron_device_layer_exit(void)
{
	debugfs_remove(neuron_debugfs_dir);
	neuron_debugfs_dir = NULL;
	destroy_workqueue(neuron_wq);
}

/* A published device's debugfs directory, neuron/neuronN (optional). */
static void neuron_device_debugfs_add(struct neuron_device *nd)
{
	char name[16];

	if (!neuron_debugfs_dir)
		return;
	snprintf(name, sizeof(name), "neuron%d", nd->index);
	nd->debugfs = debugfs_create_dir(name, neuron_debugfs_dir);
}
