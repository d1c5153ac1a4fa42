// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_core: module entry points, above its layers (see
 * Documentation/architecture.rst, "Layers of neuron_core").
 *
 * At load the base layer starts (char-device region, class, dispatcher,
 * device layer), then the device plane, the memory layer and the
 * NeuronCore state plane register as the core's built-in planes, and only then the
 * "neuron-driver" PCI driver registers, so that every device finds both
 * planes from its creation on.  Devices are added through the device
 * layer, by the PCI driver or by neuron_sim; until one is, no node exists.
 *
 * The "neuron" module is a soft dependency loaded after this one, so that
 * /sys/module/neuron/version, which the Neuron runtime reads, exists
 * however the driver was loaded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>

#include <neuron/version.h>

#include "base/core.h"
#include "cores/cores.h"
#include "device/device.h"
#include "memory/mem.h"

static int __init neuron_core_init(void)
{
	int ret;

	ret = neuron_base_init();
	if (ret)
		return ret;
	ret = neuron_device_plane_init();
	if (ret)
		goto err_base;
	ret = neuron_mem_layer_init();
	if (ret)
		goto err_device;
	ret = neuron_cores_init();
	if (ret)
		goto err_mem;
	ret = neuron_pci_init();
	if (ret) {
		pr_err("cannot register the PCI driver: %d\n", ret);
		goto err_cores;
	}

	pr_info("version %s loaded (char major %d)\n", NEURON_DRIVER_VERSION,
		MAJOR(neuron_core_devt()));
	return 0;

err_cores:
	neuron_cores_exit();
err_mem:
	neuron_mem_layer_exit();
err_device:
	neuron_device_plane_exit();
err_base:
	neuron_base_exit();
	return ret;
}

static void __exit neuron_core_exit(void)
{
	neuron_pci_exit();
	neuron_cores_exit();
	neuron_mem_layer_exit();
	neuron_device_plane_exit();
	neuron_base_exit();
}

module_init(neuron_core_init);
module_exit(neuron_core_exit);

MODULE_SOFTDEP("post: neuron");
MODULE_DESCRIPTION("AWS Neuron accelerator driver: core");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
