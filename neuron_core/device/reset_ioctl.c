// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl handlers: device and NeuronCore resets.  The rules (who may reset
 * what, one request in flight per process, ids) are in reset.c.
 */

#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "device/device.h"

/* The request id a process is given: its pid, as it sees it. */
static u32 neuron_reset_id(void)
{
	return task_tgid_vnr(current);
}

/**
 * neuron_ioctl_device_reset() - NEURON_IOCTL_DEVICE_RESET
 * @nf: the file
 * @arg: not used
 *
 * Queues a reset of the whole device for the caller; NEURON_IOCTL_DEVICE_READY
 * waits for it.
 *
 * Return: 0 when queued; -EBUSY when another process is attached or the
 * caller has a reset in flight; other errors of neuron_reset_request().
 */
long neuron_ioctl_device_reset(struct neuron_file *nf, void __user *arg)
{
	return neuron_reset_request(nf->nd, task_tgid(current), neuron_reset_id(),
				    NEURON_NC_MAP_DEVICE);
}

/**
 * neuron_ioctl_device_ready() - NEURON_IOCTL_DEVICE_READY
 * @nf: the file
 * @arg: __u8, written: 1 when the caller's reset succeeded, 0 when it failed
 *
 * Waits for the caller's reset (device or cores), interruptibly.  Without
 * one, reports whether the device is ready.
 *
 * Return: 0; -EINTR (restarted when the handler allows) on a signal;
 * -ENODEV when the device is removed meanwhile; -EFAULT.
 */
long neuron_ioctl_device_ready(struct neuron_file *nf, void __user *arg)
{
	struct neuron_device *nd = nf->nd;
	int ret, result;
	u8 ready;

	ret = neuron_reset_wait(nd, task_tgid(current), true, 0, &result);
	if (ret == -ENOENT)
		ready = READ_ONCE(nd->state) == NEURON_STATE_READY;
	else if (!ret)
		ready = result == 0;
	else
		return ret;
	return put_user(ready, (u8 __user *)arg);
}

/**
 * neuron_ioctl_reset_status() - NEURON_IOCTL_DEVICE_RESET_STATUS
 * @nf: the file
 * @arg: __u8, written: 1 when the device is ready and the caller has no
 *	reset in flight, else 0
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_reset_status(struct neuron_file *nf, void __user *arg)
{
	struct neuron_device *nd = nf->nd;
	u8 ready;

	ready = READ_ONCE(nd->state) == NEURON_STATE_READY &&
		!neuron_reset_in_flight(nd, task_tgid(current));
	return put_user(ready, (u8 __user *)arg);
}

/**
 * neuron_ioctl_nc_reset() - NEURON_IOCTL_NC_RESET
 * @nf: the file
 * @arg: struct neuron_ioctl_device_reset; @nc_map read, @request_id written
 *
 * Queues a reset of the cores in @nc_map (NEURON_NC_MAP_DEVICE: the whole
 * device) for the caller.
 *
 * Return: 0 when queued; -EINVAL for a map naming cores the device does
 * not have; -EBUSY when another process holds one of the cores (any core
 * and any attached process for a device reset) or the caller has a reset
 * in flight; other errors of neuron_reset_request(); -EFAULT.
 */
long neuron_ioctl_nc_reset(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_device_reset req;
	u32 map;
	int ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	map = req.nc_map;
	memset(&req, 0, sizeof(req));
	req.nc_map = map;
	req.request_id = neuron_reset_id();
	ret = neuron_reset_request(nf->nd, task_tgid(current), req.request_id, map);
	if (ret)
		return ret;
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_nc_reset_ready() - NEURON_IOCTL_NC_RESET_READY
 * @nf: the file
 * @arg: struct neuron_ioctl_device_ready; @request_id read, @result
 *	written: 0 when the reset succeeded, 1 when it failed
 *
 * Waits, interruptibly, for the caller's reset with that id.
 *
 * Return: 0; -EINVAL when the caller has no reset with that id; -EINTR
 * (restarted when the handler allows) on a signal; -ENODEV when the device
 * is removed meanwhile; -EFAULT.
 */
long neuron_ioctl_nc_reset_ready(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_device_ready req;
	int ret, result;
	u32 id;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	id = req.request_id;
	ret = neuron_reset_wait(nf->nd, task_tgid(current), false, id, &result);
	if (ret == -ENOENT)
		return -EINVAL;
	if (ret)
		return ret;
	memset(&req, 0, sizeof(req));
	req.request_id = id;
	req.result = result ? 1 : 0;
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}
