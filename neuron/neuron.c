// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the name hosts, images and scripts know the driver by.
 *
 * The driver is split into neuron_core, one DHAL module per generation and
 * the DMA and telemetry planes.  This module holds nothing but the name:
 *
 *   /sys/module/neuron/version   the driver version the Neuron runtime reads;
 *   modprobe neuron              loads the whole driver (soft dependencies);
 *   modprobe -r neuron           unloads it again (the same, in reverse);
 *   lsmod | grep neuron          lists it.
 *
 * neuron_core names this module as a soft dependency to load after it, so
 * the version file exists however the driver was loaded: by name, by udev
 * for a PCI function (modprobe of the modalias), or by the core loading a
 * DHAL on demand.  kmod follows soft dependencies recursively, so that
 * also loads every DHAL and plane: each is small, and each can still be
 * unloaded on its own (Documentation/architecture.rst).
 *
 * modprobe -r removes "pre" soft dependencies in reverse order: listed in
 * load order below, the planes and DHALs go first; the last of them takes
 * neuron_core along, as a dependency nothing uses any more.  neuron_core
 * is not listed: it names this module, and kmod would remove it twice.
 *
 * Some hosts copy only neuron.ko, the reference's one file (Bottlerocket's
 * driverdog does).  Loaded alone it drives nothing, so at init it asks
 * for neuron_core (request_module(): a no-op when the core is loaded, as
 * it is when the soft dependencies were followed) and, when that fails,
 * names in the kernel log the modules it needs.  It still loads: the
 * name and the version file stay.  It uses no symbol of neuron_core, so
 * that it loads (and modinfo reads it) without it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/printk.h>

#include <neuron/version.h>

#define NEURON_NEEDED_MODULES \
	"neuron_core, neuron_dhal_v2, neuron_dhal_v3, neuron_dhal_v4, neuron_udma, neuron_telemetry"

static int __init neuron_init(void)
{
	int ret = request_module("neuron_core");

	if (ret)
		pr_warn("neuron_core could not be loaded (%d): neuron.ko alone drives no device; install the driver's modules (%s) with it, e.g. all of the DKMS build's updates/dkms/*.ko (Documentation/packaging.rst)\n",
			ret, NEURON_NEEDED_MODULES);
	return 0;
}

static void __exit neuron_exit(void)
{
}

module_init(neuron_init);
module_exit(neuron_exit);

MODULE_SOFTDEP("pre: neuron_dhal_v2 neuron_dhal_v3 neuron_dhal_v4 neuron_udma neuron_telemetry");
MODULE_DESCRIPTION("AWS Neuron accelerator driver (loads neuron_core, the DHALs and the planes)");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
