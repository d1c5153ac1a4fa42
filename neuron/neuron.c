// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the module hosts, images and scripts know the driver by.
 *
 * The driver is split into neuron_core and one DHAL module per generation;
 * this module ties them together under the old name.  It uses a symbol of
 * each DHAL module (which in turn use neuron_core), so
 *
 *   modprobe neuron      loads the whole driver,
 *   modprobe -r neuron   unloads it again,
 *   lsmod | grep neuron  lists it,
 *
 * (neuron_udma, the DMA engine library, comes with it as a soft
 * dependency: the core would load it on first use anyway),
 * and /sys/module/neuron/version holds the driver version the Neuron
 * runtime checks.  It also carries the PCI id table, so PCI hotplug and
 * boot load it, and registers neuron_core's PCI driver for those ids: on
 * unload it lets go of the PCI devices first, which unpins their DHAL
 * modules so that modprobe -r can remove them next.
 *
 * modprobe -r removes the dependencies of a module in their load order,
 * which leaves those another dependency still uses (neuron_dhal_v3 under
 * neuron_dhal_v4, neuron_core under them all).  It then removes the "pre"
 * soft dependencies in reverse order: listed in load order below, that is
 * an order that unloads the rest.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pci.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/version.h>

#define PCI_VENDOR_ID_AMAZON_ANNAPURNA	0x1d0f

static const struct pci_device_id neuron_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7164) },	/* Trn1 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7264) },	/* Inf2 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7364) },	/* Trn2 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7564) },	/* Trn3 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7565) },	/* Trn3 */
	{ }
};
MODULE_DEVICE_TABLE(pci, neuron_pci_ids);

static int __init neuron_init(void)
{
	int ret;

	ret = neuron_pci_register(neuron_pci_ids);
	if (ret) {
		pr_err("cannot register the PCI driver: %d\n", ret);
		return ret;
	}
	pr_info("driver %s: %s, %s, %s\n", NEURON_DRIVER_VERSION,
		neuron_dhal_v2.name, neuron_dhal_v3.name, neuron_dhal_v4.name);
	return 0;
}

static void __exit neuron_exit(void)
{
	neuron_pci_unregister();
}

module_init(neuron_init);
module_exit(neuron_exit);

MODULE_SOFTDEP("pre: neuron_core neuron_dhal_v2 neuron_dhal_v3 neuron_dhal_v4 neuron_udma");
MODULE_IMPORT_NS(NEURON_NS);
MODULE_DESCRIPTION("AWS Neuron accelerator driver (loads neuron_core and the DHAL modules)");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
