// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_core: module entry points.
 *
 * At load the core reserves the char-device region for /dev/neuronN (one
 * minor per routing id), registers the neuron_device class, starts the
 * device layer and registers the "neuron-driver" PCI driver.  Devices are
 * added through the device layer, by the PCI driver or by neuron_sim;
 * until one is, no node exists.
 *
 * The "neuron" module is a soft dependency loaded after this one, so that
 * /sys/module/neuron/version, which the Neuron runtime reads, exists
 * however the driver was loaded (Documentation/architecture.rst).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/stat.h>
#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/version.h>

#include "core.h"
#include "ioctl.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

bool neuron_wc_enable = true;
module_param_named(wc_enable, neuron_wc_enable, bool, 0444);
MODULE_PARM_DESC(wc_enable, "Map the device-memory BAR write-combined (default: Y)");

unsigned int neuron_rid_timeout_ms = 20000;
module_param_named(rid_timeout_ms, neuron_rid_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rid_timeout_ms,
		 "How long to wait for firmware to report the routing id (ms, default 20000)");

unsigned int neuron_reset_timeout_ms;
module_param_named(reset_timeout_ms, neuron_reset_timeout_ms, uint, 0644);
MODULE_PARM_DESC(reset_timeout_ms,
		 "Device reset timeout in ms; 0 (default) uses the generation's own");

unsigned int neuron_host_mem_limit_mb;
module_param_named(host_mem_limit_mb, neuron_host_mem_limit_mb, uint, 0644);
MODULE_PARM_DESC(host_mem_limit_mb,
		 "Host memory one process may hold in chunks of one device (MiB); 0 (default): half of RAM");

static dev_t neuron_devt;

/* Mode of /dev/neuronN before udev applies the packaged rule: rw for owner and group. */
#define NEURON_DEVNODE_MODE	0660

/*
 * /dev/neuronN is created 0660 root:root by devtmpfs, never world-writable,
 * even where no udev rule runs (a container, an initramfs).  The packaged
 * udev rule then gives it the "neuron" group (Documentation/install.rst).
 * The node keeps its default name.
 */
static char *neuron_devnode(NEURON_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = NEURON_DEVNODE_MODE;
	return NULL;
}

static struct class neuron_class = {
	.name = NEURON_CLASS_NAME,
	.class_groups = neuron_class_groups,
	.devnode = neuron_devnode,
};

/**
 * neuron_core_devt() - first dev_t of the /dev/neuronN region
 *
 * Return: the dev_t of minor 0; minor N is routing id N.
 */
dev_t neuron_core_devt(void)
{
	return neuron_devt;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_core_devt);

/**
 * neuron_core_class() - the neuron_device class
 *
 * Return: the class every /dev/neuronN node belongs to.
 */
struct class *neuron_core_class(void)
{
	return &neuron_class;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_core_class);

static int __init neuron_core_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&neuron_devt, 0, NEURON_MAX_DEVICES,
				  NEURON_CHRDEV_NAME);
	if (ret) {
		pr_err("cannot reserve %d char-device minors: %d\n",
		       NEURON_MAX_DEVICES, ret);
		return ret;
	}

	ret = class_register(&neuron_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n", NEURON_CLASS_NAME, ret);
		goto err_region;
	}

	neuron_ioctl_init();
	ret = neuron_device_layer_init();
	if (ret)
		goto err_class;
	neuron_mem_debugfs_init();

	ret = neuron_pci_init();
	if (ret) {
		pr_err("cannot register the PCI driver: %d\n", ret);
		goto err_layer;
	}

	pr_info("version %s loaded (char major %d)\n", NEURON_DRIVER_VERSION,
		MAJOR(neuron_devt));
	return 0;

err_layer:
	neuron_mem_debugfs_exit();
	neuron_device_layer_exit();
err_class:
	class_unregister(&neuron_class);
err_region:
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
	return ret;
}

static void __exit neuron_core_exit(void)
{
	neuron_pci_exit();
	neuron_device_layer_exit();
	neuron_mem_debugfs_exit();
	class_unregister(&neuron_class);
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
}

module_init(neuron_core_init);
module_exit(neuron_core_exit);

MODULE_SOFTDEP("post: neuron");
MODULE_DESCRIPTION("AWS Neuron accelerator driver: core");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
