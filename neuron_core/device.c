// SPDX-License-Identifier: GPL-2.0
/*
 * The bus-agnostic device layer: creation, asynchronous bring-up (bind the
 * DHAL, map, identify, reset, publish), the registry of routing ids, and
 * removal in mirror order.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <neuron/compat.h>

#include "core.h"

/* Every device, for DHAL registration to find the unbound ones. */
static LIST_HEAD(neuron_devices);
/* Protects neuron_devices. */
static DEFINE_MUTEX(neuron_devices_lock);

/* Routing id -> device that owns /dev/neuron<id>. */
static struct neuron_device *neuron_registry[NEURON_MAX_DEVICES];
/* Protects neuron_registry. */
static DEFINE_MUTEX(neuron_registry_lock);

/* Runs bring-up and reset work; unbound, so devices come up in parallel. */
static struct workqueue_struct *neuron_wq;

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

void neuron_device_set_state(struct neuron_device *nd, enum neuron_device_state state)
{
	mutex_lock(&nd->lock);
	if (nd->state != NEURON_STATE_GONE)
		WRITE_ONCE(nd->state, state);
	mutex_unlock(&nd->lock);
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

	ret = nd->bus.map_bar(nd->bus.ctx, l->apb_bar, false, &nd->bars[l->apb_bar]);
	if (ret) {
		dev_err(nd->bus.parent, "cannot map register BAR%u: %d\n", l->apb_bar, ret);
		return ret;
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
	ret = neuron_sysfs_add(nd);
	if (ret) {
		cdev_device_del(&nd->cdev, &nd->dev);
		return ret;
	}
	neuron_mem_debugfs_add(nd);
	neuron_dma_debugfs_add(nd);
	dev_set_uevent_suppress(&nd->dev, false);
	kobject_uevent(&nd->dev.kobj, KOBJ_ADD);
	mutex_lock(&nd->lock);
	nd->published = true;
	mutex_unlock(&nd->lock);
	return 0;
}

/* Fail bring-up: the state says so and the log says why. */
static void neuron_device_fail(struct neuron_device *nd, const char *what, int err)
{
	if (err != -EINTR)
		dev_err(nd->bus.parent, "%s failed: %d; device is FAILED\n", what, err);
	neuron_device_set_state(nd, NEURON_STATE_FAILED);
}

/* Reset; return the state it leads to. */
static enum neuron_device_state neuron_device_do_reset(struct neuron_device *nd)
{
	int ret = neuron_fw_reset(nd);

	if (ret && ret != -EINTR)
		dev_err(nd->bus.parent, "reset failed: %d; device is FAILED\n", ret);
	return ret ? NEURON_STATE_FAILED : NEURON_STATE_READY;
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
			neuron_device_fail(nd, "mapping BARs", ret);
			return;
		}
		ret = neuron_mem_setup(nd);
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
	next = neuron_device_do_reset(nd);

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
	}
	neuron_device_set_state(nd, next);
	/* Device resets processes asked for end with it (reset.c). */
	neuron_reset_device_done(nd, next == NEURON_STATE_READY ? 0 : -EIO);
}

/**
 * neuron_device_request_reset() - reset a device that no process uses
 * @nd: the device
 *
 * The reset runs asynchronously; the state is RESETTING until it ends in
 * READY or FAILED.
 *
 * Return: 0 when queued; -EBUSY if a process is attached or a reset or
 * bring-up is under way; -ENODEV if the device is being removed.
 */
int neuron_device_request_reset(struct neuron_device *nd)
{
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
	for (i = 0; i < NEURON_MAX_ATTACH; i++) {
		if (nd->attach[i].tgid) {
			ret = -EBUSY;
			goto out;
		}
	}
	WRITE_ONCE(nd->state, NEURON_STATE_RESETTING);
	queue_work(neuron_wq, &nd->work);
out:
	mutex_unlock(&nd->lock);
	if (!ret)
		wake_up_all(&nd->state_wq);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_request_reset, NEURON_NS);

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

	neuron_dma_fini(nd);
	neuron_mem_fini(nd);
	mutex_destroy(&nd->lock);
	kfree(nd);
}

/**
 * neuron_device_create() - add a device found by a bus
 * @desc: the bus's description; copied
 *
 * Bring-up continues asynchronously; /dev/neuronN appears once the device
 * is identified and reset.
 *
 * Context: process context; may sleep.
 * Return: the device, or an ERR_PTR() on bad input or allocation failure.
 */
struct neuron_device *neuron_device_create(const struct neuron_bus_desc *desc)
{
	struct neuron_device *nd;

	if (!desc || !desc->parent || !desc->map_bar)
		return ERR_PTR(-EINVAL);

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);

	nd->bus = *desc;
	nd->index = -1;
	nd->state = NEURON_STATE_NEW;
	mutex_init(&nd->lock);
	init_rwsem(&nd->usage);
	init_waitqueue_head(&nd->state_wq);
	INIT_WORK(&nd->work, neuron_device_work);
	INIT_LIST_HEAD(&nd->node);
	neuron_mem_init(nd);
	neuron_dma_init(nd);

	device_initialize(&nd->dev);
	nd->dev.class = neuron_core_class();
	nd->dev.groups = neuron_dev_groups;
	nd->dev.release = neuron_device_release;
	cdev_init(&nd->cdev, &neuron_fops);
	nd->cdev.owner = THIS_MODULE;
	get_device(nd->bus.parent);

	mutex_lock(&neuron_devices_lock);
	list_add_tail(&nd->node, &neuron_devices);
	queue_work(neuron_wq, &nd->work);
	mutex_unlock(&neuron_devices_lock);
	return nd;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_create, NEURON_NS);

/**
 * neuron_device_destroy() - remove a device
 * @nd: the device, from neuron_device_create()
 *
 * Stops bring-up or a reset wherever it is, removes the node, waits for
 * file operations in progress, and releases the hardware.  Files still open
 * keep the structure alive and fail with -ENODEV; a process waiting in
 * open() wakes with -ENODEV.  After this returns the core makes no more
 * calls to the bus callbacks.
 *
 * Context: process context; may sleep.
 */
void neuron_device_destroy(struct neuron_device *nd)
{
	bool published;

	if (IS_ERR_OR_NULL(nd))
		return;

	mutex_lock(&nd->lock);
	nd->stopping = true;
	WRITE_ONCE(nd->state, NEURON_STATE_GONE);
	mutex_unlock(&nd->lock);
	wake_up_all(&nd->state_wq);

	mutex_lock(&neuron_devices_lock);
	list_del_init(&nd->node);
	mutex_unlock(&neuron_devices_lock);
	cancel_work_sync(&nd->work);

	/* The worker is done: nothing changes @published any more. */
	published = nd->published;

	/*
	 * Wait out file operations that passed their state check, then stop
	 * DMA (copies in flight belong to files that may outlive this).
	 */
	down_write(&nd->usage);
	neuron_dma_device_gone(nd);
	up_write(&nd->usage);

	if (published) {
		neuron_mem_debugfs_remove(nd);
		neuron_sysfs_remove(nd);
		cdev_device_del(&nd->cdev, &nd->dev);
	}
	neuron_mem_device_gone(nd);
	neuron_registry_release(nd);
	neuron_device_unmap(nd);
	neuron_dhal_unbind(nd);
	put_device(nd->bus.parent);
	put_device(&nd->dev);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_destroy, NEURON_NS);

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

int neuron_device_layer_init(void)
{
	neuron_wq = alloc_workqueue("neuron", WQ_UNBOUND, 0);
	return neuron_wq ? 0 : -ENOMEM;
}

void neuron_device_layer_exit(void)
{
	destroy_workqueue(neuron_wq);
}
