// SPDX-License-Identifier: GPL-2.0
/*
 * The device's own sysfs attributes in /sys/devices/virtual/neuron_device/
 * neuronN/ (its state, reset, core count and links), at the reference
 * driver's paths, plus what users lack there (documented in
 * Documentation/ABI/testing/sysfs-class-neuron_device).  The info/
 * directory is the device plane's (device/sysfs.c).
 */

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include <neuron/neuron_ioctl.h>

#include "core.h"

static struct neuron_device *to_nd(struct device *dev)
{
	return container_of(dev, struct neuron_device, dev);
}

/* Reference encoding of the state: 0 in reset, 1 ready, 2 invalid. */
static int neuron_state_code(enum neuron_device_state s)
{
	switch (s) {
	case NEURON_STATE_READY:
		return 1;
	case NEURON_STATE_FAILED:
	case NEURON_STATE_GONE:
		return 2;
	default:
		return 0;
	}
}

static ssize_t reset_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", neuron_state_code(READ_ONCE(to_nd(dev)->state)));
}

/*
 * Any value asks for a reset of a device no process uses; "force" resets
 * it even while processes are attached (all 16 attach slots may be taken
 * by processes that never let go), for CAP_SYS_ADMIN only.
 */
static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	bool force = sysfs_streq(buf, "force");
	int ret;

	if (force && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = neuron_device_request_reset(to_nd(dev), force);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(reset);

static ssize_t state_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", neuron_device_state_name(READ_ONCE(to_nd(dev)->state)));
}
static DEVICE_ATTR_RO(state);

/*
 * Deliberately without a newline: the reference prints the count so, and
 * keeps it so for the parsers of older plugins (its text is the ABI).
 */
static ssize_t core_count_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	int len = sysfs_emit(buf, "%u", to_nd(dev)->dhal.dhal->layout->nc_count);

	return len;
}
static DEVICE_ATTR_RO(core_count);

/* The linked devices, "a, b, c, d", from the generation's topology tables. */
static ssize_t connected_devices_show(struct device *dev, struct device_attribute *attr,
				      char *buf)
{
	u32 links[NEURON_IOCTL_MAX_CONNECTED_DEVICES];
	unsigned int i, n;
	int len = 0;

	n = neuron_device_links(to_nd(dev), links, ARRAY_SIZE(links));
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, "%s%u", i ? ", " : "", links[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(connected_devices);

static struct attribute *neuron_dev_attrs[] = {
	&dev_attr_reset.attr,
	&dev_attr_state.attr,
	&dev_attr_core_count.attr,
	&dev_attr_connected_devices.attr,
	NULL
};

static const struct attribute_group neuron_dev_group = {
	.attrs = neuron_dev_attrs,
};

const struct attribute_group *neuron_dev_groups[] = {
	&neuron_dev_group,
	NULL
};

