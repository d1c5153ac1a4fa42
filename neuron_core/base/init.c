// SPDX-License-Identifier: GPL-2.0
/*
 * The base layer's start and end: the module parameters of the device
 * layer, the char-device region for /dev/neuronN (one minor per routing
 * id), the neuron_device class, the dispatcher's table and the device
 * layer.  The PCI driver registers last, from ../main.c, once the layers
 * above have registered their planes.
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
#include "dispatch.h"

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

/**
 * neuron_base_init() - start the base layer
 *
 * Return: 0 or a negative errno, with nothing left behind.
 */
int neuron_base_init(void)
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
	return 0;

err_class:
	class_unregister(&neuron_class);
err_region:
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
	return ret;
}

/** neuron_base_exit() - end the base layer, in the mirror order of its start */
void neuron_base_exit(void)
{
	neuron_device_layer_exit();
	class_unregister(&neuron_class);
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
}
