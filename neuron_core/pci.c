// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue: the "neuron-driver" PCI driver hands each Neuron function to
 * the device layer, mapping BARs when the device layer asks for them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "core.h"

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

static int neuron_pci_map_bar(void *ctx, unsigned int bar, bool wc, struct neuron_bar *out)
{
	struct pci_dev *pdev = ctx;
	void __iomem *va = NULL;
	int ret;

	if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) || !pci_resource_len(pdev, bar))
		return -ENODEV;
	ret = pci_request_region(pdev, bar, "neuron");
	if (ret)
		return ret;
	if (wc)
		va = pci_iomap_wc(pdev, bar, 0);
	/* Write-combining is an optimisation: fall back to an uncached mapping. */
	if (!va)
		va = pci_iomap(pdev, bar, 0);
	if (!va) {
		pci_release_region(pdev, bar);
		return -ENOMEM;
	}
	out->iomem = va;
	out->size = pci_resource_len(pdev, bar);
	out->phys = pci_resource_start(pdev, bar);
	return 0;
}

static void neuron_pci_unmap_bar(void *ctx, unsigned int bar, struct neuron_bar *b)
{
	struct pci_dev *pdev = ctx;

	pci_iounmap(pdev, b->iomem);
	pci_release_region(pdev, bar);
}

static int neuron_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct neuron_bus_desc desc = {
		.parent = &pdev->dev,
		.id = {
			.vendor = pdev->vendor,
			.device = pdev->device,
			.revision = pdev->revision,
			.domain = pci_domain_nr(pdev->bus),
			.bus = pdev->bus->number,
			.devfn = pdev->devfn,
		},
		.map_bar = neuron_pci_map_bar,
		.unmap_bar = neuron_pci_unmap_bar,
		.ctx = pdev,
	};
	struct neuron_device *nd;
	int ret;

	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret)
		goto err_disable;

	nd = neuron_device_create(&desc);
	if (IS_ERR(nd)) {
		ret = PTR_ERR(nd);
		goto err_disable;
	}
	pci_set_drvdata(pdev, nd);
	return 0;

err_disable:
	pci_clear_master(pdev);
	pci_disable_device(pdev);
	return ret;
}

static void neuron_pci_remove(struct pci_dev *pdev)
{
	neuron_device_destroy(pci_get_drvdata(pdev));
	pci_clear_master(pdev);
	pci_disable_device(pdev);
}

static struct pci_driver neuron_pci_driver = {
	.name = "neuron-driver",
	.id_table = neuron_pci_ids,
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
};

int neuron_pci_init(void)
{
	return pci_register_driver(&neuron_pci_driver);
}

void neuron_pci_exit(void)
{
	pci_unregister_driver(&neuron_pci_driver);
}
