// SPDX-License-Identifier: GPL-2.0
/*
 * The device plane as a built-in plane of neuron_core: the commands that
 * work on the device as a whole (identity and information, resets,
 * register access, logging), the firmware mailboxes and the info/
 * directories, with the callbacks through which the base layer tells it
 * of devices (include/neuron/plane.h gives the order of the calls).  The
 * table of every command number and its owner is the base's
 * (base/dispatch.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/module.h>

#include "device/device.h"

/* Families of one or two commands, as in base/dispatch.c. */
#define F1(g, type, fn)		NEURON_IOCTL_F1(g, type, fn)
#define F2(g, type, fn, ...)	NEURON_IOCTL_F2(g, type, fn, __VA_ARGS__)
#define ID1(g, type, fn)	NEURON_IOCTL_ID1(g, type, fn)
#define ID2(g, type, fn, ...)	NEURON_IOCTL_ID2(g, type, fn, __VA_ARGS__)
#define ANY		NEURON_GATE_ANY
#define ATT		NEURON_GATE_ATTACHED

/* The device's commands, by number; each handler is beside its object. */
static const struct neuron_ioctl_family neuron_device_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	F1(ATT, NEURON_IOCTL_DEVICE_RESET, neuron_ioctl_device_reset),
	F1(ATT, NEURON_IOCTL_DEVICE_READY, neuron_ioctl_device_ready),
	F1(ATT, NEURON_IOCTL_DEVICE_INFO, neuron_ioctl_device_info),
	F1(ATT, NEURON_IOCTL_DEVICE_INIT, neuron_ioctl_device_noop),
	F1(ATT, NEURON_IOCTL_DEVICE_RELEASE, neuron_ioctl_device_noop),
	F1(ANY, NEURON_IOCTL_DEVICE_APP_PID, neuron_ioctl_app_pid),
	F1(ANY, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, neuron_ioctl_all_apps_info),
	F1(ATT, NEURON_IOCTL_BAR_READ, neuron_ioctl_bar_read),
	F1(ATT, NEURON_IOCTL_BAR_WRITE, neuron_ioctl_bar_write),
	ID1(ANY, NEURON_IOCTL_COMPATIBLE_VERSION, neuron_ioctl_compatible_version),
	ID1(ANY, NEURON_IOCTL_DEVICE_BASIC_INFO, neuron_ioctl_basic_info),
	F1(ATT, NEURON_IOCTL_DEVICE_BDF, neuron_ioctl_bdf),
	F1(ATT, NEURON_IOCTL_NC_RESET, neuron_ioctl_nc_reset),
	F1(ATT, NEURON_IOCTL_NC_RESET_READY, neuron_ioctl_nc_reset_ready),
	F2(ANY, NEURON_IOCTL_DEVICE_RESET_STATUS, neuron_ioctl_reset_status,
	   NEURON_IOCTL_DEVICE_BDF_EXT, neuron_ioctl_bdf_ext),
	ID2(ANY, NEURON_IOCTL_DRIVER_INFO_GET, neuron_ioctl_driver_info_get,
	    NEURON_IOCTL_DRIVER_INFO_SET, neuron_ioctl_rejected),
	F1(ANY, NEURON_IOCTL_PRINTK, neuron_ioctl_printk),
	F1(ATT, NEURON_IOCTL_HOST_DEVICE_ID, neuron_ioctl_host_device_id),
	F1(ANY, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, neuron_ioctl_rid_map),
};

/* Attach: the mailboxes' lock and state, before anyone can use the device. */
static int neuron_device_plane_attach(struct neuron_device *nd, void **priv)
{
	neuron_fw_mbox_init(nd);
	return 0;
}

/*
 * Published: the info/ directories, before the device is announced.  A
 * device whose directories could not be made works without them.
 */
static void neuron_device_plane_publish(struct neuron_device *nd, void *priv)
{
	int ret = neuron_sysfs_add(nd);

	if (ret)
		dev_warn(&nd->dev, "no firmware attributes and info/ directory: %d\n", ret);
}

/* Detached (removal): the info/ directories go before the node. */
static void neuron_device_plane_detach(struct neuron_device *nd, void *priv)
{
	neuron_sysfs_remove(nd);
}

static const struct neuron_plane neuron_device_plane = {
	.owner = THIS_MODULE,
	.name = "device",
	.id = NEURON_PLANE_DEVICE,
	.ioctls = neuron_device_ioctls,
	.builtin = true,
	.device_attach = neuron_device_plane_attach,
	.device_publish = neuron_device_plane_publish,
	.device_detach = neuron_device_plane_detach,
	/* No handler runs: the firmware loses its mailbox buffers, then they go. */
	.device_remove = neuron_fw_mbox_teardown,
	.device_free = neuron_fw_mbox_fini,
};

/**
 * neuron_device_plane_init() - register the device plane
 *
 * Return: 0 or what neuron_plane_register_builtin() returns.
 */
int neuron_device_plane_init(void)
{
	return neuron_plane_register_builtin(&neuron_device_plane);
}

/** neuron_device_plane_exit() - withdraw it, once every device went */
void neuron_device_plane_exit(void)
{
	neuron_plane_unregister_builtin(&neuron_device_plane);
}
