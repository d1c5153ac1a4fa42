// SPDX-License-Identifier: GPL-2.0
/*
 * The device's firmware attributes (fw_api_version, fw_build) and its
 * info/ and info/architecture/ directories in
 * /sys/devices/virtual/neuron_device/neuronN/ (documented in
 * Documentation/ABI/testing/sysfs-class-neuron_device), made when the
 * device is published, before it is announced, and removed before its
 * node goes.
 */

#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include <neuron/neuron_ioctl.h>

#include "device/device.h"

/* info/ lives on a kobject under the device; its parent is the device. */
static struct neuron_device *to_nd(struct device *dev)
{
	return container_of(dev, struct neuron_device, dev);
}

/* MiscRAM words of the firmware's identity, and what a word not filled in holds. */
#define SYSFS_MISC_FW_API	0x000
#define SYSFS_MISC_FW_BUILD	0x074
#define SYSFS_MISC_NOT_READY	0xdeadbeef

/*
 * A firmware word, read when the file is read: "busy" while the firmware
 * has not filled it in (during a reset), as in the reference.  The file
 * goes before the BARs do.
 */
static ssize_t neuron_fw_word_show(struct device *dev, char *buf, u32 reg)
{
	u32 v = neuron_misc_read(to_nd(dev), reg);

	if (v == SYSFS_MISC_NOT_READY)
		return sysfs_emit(buf, "busy\n");
	return sysfs_emit(buf, "%u\n", v);
}

static ssize_t fw_api_version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return neuron_fw_word_show(dev, buf, SYSFS_MISC_FW_API);
}
static DEVICE_ATTR_RO(fw_api_version);

static ssize_t fw_build_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return neuron_fw_word_show(dev, buf, SYSFS_MISC_FW_BUILD);
}
static DEVICE_ATTR_RO(fw_build);

static struct attribute *neuron_fw_attrs[] = {
	&dev_attr_fw_api_version.attr,
	&dev_attr_fw_build.attr,
	NULL
};

static const struct attribute_group neuron_fw_group = {
	.attrs = neuron_fw_attrs,
};

static struct neuron_device *info_nd(struct kobject *kobj)
{
	return to_nd(kobj_to_dev(kobj->parent));
}

static struct neuron_device *arch_nd(struct kobject *kobj)
{
	return to_nd(kobj_to_dev(kobj->parent->parent));
}

static ssize_t serial_number_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%016llx\n", info_nd(kobj)->serial);
}

static ssize_t pci_device_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", info_nd(kobj)->bus.id.device);
}

static ssize_t generation_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "v%u\n", info_nd(kobj)->dhal.dhal->generation);
}

static ssize_t dhal_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", info_nd(kobj)->dhal.dhal->name);
}

static ssize_t simulated_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", info_nd(kobj)->bus.simulated);
}

static ssize_t bus_device_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_name(info_nd(kobj)->bus.parent));
}

static ssize_t firmware_api_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", info_nd(kobj)->fw_api);
}

static struct kobj_attribute info_serial = __ATTR_RO(serial_number);
static struct kobj_attribute info_pci_device = __ATTR_RO(pci_device);
static struct kobj_attribute info_generation = __ATTR_RO(generation);
static struct kobj_attribute info_dhal = __ATTR_RO(dhal);
static struct kobj_attribute info_simulated = __ATTR_RO(simulated);
static struct kobj_attribute info_bus_device = __ATTR_RO(bus_device);
static struct kobj_attribute info_firmware_api = __ATTR_RO(firmware_api);

static struct attribute *info_attrs[] = {
	&info_serial.attr,
	&info_pci_device.attr,
	&info_generation.attr,
	&info_dhal.attr,
	&info_simulated.attr,
	&info_bus_device.attr,
	&info_firmware_api.attr,
	NULL
};

static const struct attribute_group info_group = {
	.attrs = info_attrs,
};

static ssize_t arch_type_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", arch_nd(kobj)->dhal.arch->arch_type);
}

static ssize_t instance_type_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", arch_nd(kobj)->dhal.arch->instance_type);
}

static ssize_t device_name_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", arch_nd(kobj)->dhal.arch->device_name);
}

static struct kobj_attribute arch_arch_type = __ATTR_RO(arch_type);
static struct kobj_attribute arch_instance_type = __ATTR_RO(instance_type);
static struct kobj_attribute arch_device_name = __ATTR_RO(device_name);

static struct attribute *arch_attrs[] = {
	&arch_arch_type.attr,
	&arch_instance_type.attr,
	&arch_device_name.attr,
	NULL
};

static const struct attribute_group arch_group = {
	.attrs = arch_attrs,
};

/**
 * neuron_sysfs_add() - make a published device's firmware attributes and
 *	info/ directories
 * @nd: the device
 *
 * Return: 0 or a negative errno, with nothing left behind.
 */
int neuron_sysfs_add(struct neuron_device *nd)
{
	int ret;

	ret = sysfs_create_group(&nd->dev.kobj, &neuron_fw_group);
	if (ret)
		return ret;
	nd->info_kobj = kobject_create_and_add("info", &nd->dev.kobj);
	if (!nd->info_kobj) {
		ret = -ENOMEM;
		goto err_fw;
	}
	ret = sysfs_create_group(nd->info_kobj, &info_group);
	if (ret)
		goto err_info;
	nd->arch_kobj = kobject_create_and_add("architecture", nd->info_kobj);
	if (!nd->arch_kobj) {
		ret = -ENOMEM;
		goto err_info_group;
	}
	ret = sysfs_create_group(nd->arch_kobj, &arch_group);
	if (ret)
		goto err_arch;
	return 0;

err_arch:
	kobject_put(nd->arch_kobj);
	nd->arch_kobj = NULL;
err_info_group:
	sysfs_remove_group(nd->info_kobj, &info_group);
err_info:
	kobject_put(nd->info_kobj);
	nd->info_kobj = NULL;
err_fw:
	sysfs_remove_group(&nd->dev.kobj, &neuron_fw_group);
	return ret;
}

/**
 * neuron_sysfs_remove() - remove them (nothing when they were not made)
 * @nd: the device
 */
void neuron_sysfs_remove(struct neuron_device *nd)
{
	if (nd->arch_kobj) {
		sysfs_remove_group(nd->arch_kobj, &arch_group);
		kobject_put(nd->arch_kobj);
		nd->arch_kobj = NULL;
	}
	if (nd->info_kobj) {
		sysfs_remove_group(nd->info_kobj, &info_group);
		kobject_put(nd->info_kobj);
		nd->info_kobj = NULL;
		sysfs_remove_group(&nd->dev.kobj, &neuron_fw_group);
	}
}
