// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue: the "neuron-driver" PCI driver hands each Neuron function to
 * the device layer, mapping BARs when the device layer asks for them.
 *
 * The driver is registered by the neuron module (neuron/neuron.c), which
 * carries the PCI id table, so PCI hotplug loads the whole driver by its
 * old name and "modprobe -r neuron" first lets go of the devices, which
 * releases the DHAL modules they pin.  neuron_core alone (with
 * neuron_sim) never touches PCI.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pci.h>

#include <neuron/compat.h>

#include "core.h"

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

/*
 * Map device memory into a process, write-combined when the BAR is
 * prefetchable (as the kernel mapping is), uncached otherwise.
 */
static int neuron_pci_mmap_bar(void *ctx, unsigned int bar, u64 off, struct vm_area_struct *vma)
{
	struct pci_dev *pdev = ctx;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 end;

	if (!PAGE_ALIGNED(off) || check_add_overflow(off, (u64)len, &end) ||
	    end > pci_resource_len(pdev, bar))
		return -EINVAL;
	if (pci_resource_flags(pdev, bar) & IORESOURCE_PREFETCH)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	else
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	return io_remap_pfn_range(vma, vma->vm_start,
				  (pci_resource_start(pdev, bar) + off) >> PAGE_SHIFT,
				  len, vma->vm_page_prot);
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
		.mmap_bar = neuron_pci_mmap_bar,
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

/* Written only by the (serialised) module init and exit of neuron. */
static struct pci_driver neuron_pci_driver = {
	.name = "neuron-driver",
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
};

/**
 * neuron_pci_register() - start driving the Neuron PCI functions
 * @ids: the PCI ids to bind, zero-terminated; must outlive the
 *	registration
 *
 * Called by the neuron module's init.  Every function already present is
 * probed before this returns; bring-up continues asynchronously.
 *
 * Return: 0, or the error of pci_register_driver().
 */
int neuron_pci_register(const struct pci_device_id *ids)
{
	neuron_pci_driver.id_table = ids;
	return pci_register_driver(&neuron_pci_driver);
}
EXPORT_SYMBOL_NS_GPL(neuron_pci_register, NEURON_NS);

/**
 * neuron_pci_unregister() - let go of every Neuron PCI function
 *
 * Called by the neuron module's exit: removes every PCI device the core
 * added (waiting out their bring-up and open files' operations) and
 * releases the DHAL modules they held.
 */
void neuron_pci_unregister(void)
{
	pci_unregister_driver(&neuron_pci_driver);
}
EXPORT_SYMBOL_NS_GPL(neuron_pci_unregister, NEURON_NS);
