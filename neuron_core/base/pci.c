// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue: the "neuron-driver" PCI driver, registered by neuron_core when
 * it loads, hands each Neuron function to the device layer and maps BARs
 * when the device layer asks for them.
 *
 * The id table is the module's device table, so udev (at boot and on
 * hotplug) loads neuron_core for a Neuron function; each DHAL module
 * carries pci: aliases for its own ids, so the same modprobe loads the
 * generation's module too.  Each entry's driver_data is the Neuron device
 * id, which lets a test bind a foreign function (a QEMU ivshmem or VGA
 * function) as a given generation through new_id:
 *
 *   echo "1af4 1110 ffffffff ffffffff 0 0 7364" > .../neuron-driver/new_id
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/sysfs.h>

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

#define PCI_VENDOR_ID_AMAZON_ANNAPURNA	0x1d0f

/* driver_data: the Neuron device id the function is driven as. */
static const struct pci_device_id neuron_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7164), .driver_data = 0x7164 }, /* Trn1 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7264), .driver_data = 0x7264 }, /* Inf2 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7364), .driver_data = 0x7364 }, /* Trn2 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7564), .driver_data = 0x7564 }, /* Trn3 */
	{ PCI_DEVICE(PCI_VENDOR_ID_AMAZON_ANNAPURNA, 0x7565), .driver_data = 0x7565 }, /* Trn3 */
	{ }
};
MODULE_DEVICE_TABLE(pci, neuron_pci_ids);

/*
 * CPU copies through the kernel mapping of the device-memory BAR:
 * write-combined when wc_enable is set (flushed before the return, so the
 * engine, started later, sees the bytes), uncached otherwise.  Reads go
 * through the same mapping: x86 never caches a write-combined mapping, so
 * a read reaches the device as an uncached one would, and a second,
 * uncached mapping of the BAR would conflict with the first (PAT).  Only
 * 4-byte aligned ranges, as the device takes them; others go to the
 * engine.
 */
static int neuron_pci_mem_io(void *ctx, unsigned int bar, const struct neuron_bar *b, u64 off,
			     void *buf, size_t len, bool to_bar)
{
	if (!b->iomem || !IS_ALIGNED(off | len, 4) || off > b->size || len > b->size - off)
		return -EOPNOTSUPP;
	if (to_bar) {
		memcpy_toio(b->iomem + off, buf, len);
		/* Out of the write-combining buffers before anything else. */
		wmb();
	} else {
		/* After whatever told the caller that the device is done. */
		rmb();
		memcpy_fromio(buf, b->iomem + off, len);
	}
	return 0;
}

/*
 * Not measured on hardware (Documentation/dma.rst, "CPU copies"): writes
 * up to two pages, as the reference does for zero-copy writes; reads only
 * a cache line, since each read crosses the bus and waits.
 */
#define NEURON_PCI_MEM_IO_READ_MAX	64
#define NEURON_PCI_MEM_IO_WRITE_MAX	SZ_8K

/*
 * The Neuron device id to drive @pdev as: the id entry's driver_data (a
 * dynamic id added through new_id names one of the five), or the
 * function's own id for an Annapurna function.  0 when there is none: a
 * function bound through driver_override that is not a Neuron device.
 */
static u16 neuron_pci_device_id(struct pci_dev *pdev, const struct pci_device_id *id)
{
	if (id && id->driver_data)
		return id->driver_data;
	if (pdev->vendor == PCI_VENDOR_ID_AMAZON_ANNAPURNA)
		return pdev->device;
	return 0;
}

static int neuron_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	u16 device = neuron_pci_device_id(pdev, id);
	struct neuron_bus_desc desc = {
		.parent = &pdev->dev,
		.id = {
			.vendor = pdev->vendor,
			.device = device,
			.revision = pdev->revision,
			.domain = pci_domain_nr(pdev->bus),
			.bus = pdev->bus->number,
			.devfn = pdev->devfn,
		},
		.map_bar = neuron_pci_map_bar,
		.unmap_bar = neuron_pci_unmap_bar,
		.mmap_bar = neuron_pci_mmap_bar,
		.mem_io = neuron_pci_mem_io,
		.mem_io_max = { NEURON_PCI_MEM_IO_READ_MAX, NEURON_PCI_MEM_IO_WRITE_MAX },
		.state_attr = "neuron_state",
		.ctx = pdev,
	};
	struct neuron_bus_device *bd;
	int ret;

	if (!device) {
		dev_err(&pdev->dev,
			"not a Neuron function (%04x:%04x); bind it through new_id with a Neuron device id as driver_data\n",
			pdev->vendor, pdev->device);
		return -ENODEV;
	}
	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret)
		goto err_disable;

	bd = neuron_device_create(&desc);
	if (IS_ERR(bd)) {
		ret = PTR_ERR(bd);
		goto err_disable;
	}
	pci_set_drvdata(pdev, bd);
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

/* /sys/bus/pci/devices/.../neuron_state: where bring-up is, node or not. */
static ssize_t neuron_state_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct neuron_bus_device *bd = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", neuron_device_state_name(neuron_bus_device_state(bd)));
}
static DEVICE_ATTR_RO(neuron_state);

static struct attribute *neuron_pci_attrs[] = {
	&dev_attr_neuron_state.attr,
	NULL
};
ATTRIBUTE_GROUPS(neuron_pci);

/* Registered and unregistered only by the module's (serialised) init and exit. */
static struct pci_driver neuron_pci_driver = {
	.name = "neuron-driver",
	.id_table = neuron_pci_ids,
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
	.dev_groups = neuron_pci_groups,
};

/*
 * Start driving the Neuron PCI functions, from neuron_core's init.  Every
 * function already present is probed before this returns; bring-up
 * continues asynchronously.
 */
int neuron_pci_init(void)
{
	return pci_register_driver(&neuron_pci_driver);
}

/*
 * Let go of every Neuron PCI function, from neuron_core's exit: removes the
 * devices (waiting out their bring-up and open files' operations).
 */
void neuron_pci_exit(void)
{
	pci_unregister_driver(&neuron_pci_driver);
}
