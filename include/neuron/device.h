/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bus-agnostic Neuron device layer: what a bus (the PCI glue in
 * neuron_core, or neuron_sim) gives the core to add a device, and the
 * register accessors every BAR access goes through.
 *
 * A bus describes its device with struct neuron_bus_desc and calls
 * neuron_device_create(), which returns the handle it keeps.  The core
 * binds the DHAL registered for the PCI device id (loading it on demand,
 * waiting for it if needed), asks the bus to map the BARs the DHAL names,
 * reads the routing id, resets the device and only then publishes
 * /dev/neuronN.  All of it happens asynchronously; neuron_device_destroy()
 * stops it wherever it is and tears down in mirror order.  When the DHAL
 * unregisters, the device is torn down the same way and starts again
 * under the same handle, waiting for the DHAL.  The core never asks which
 * bus it has.
 */
#ifndef _NEURON_DEVICE_H
#define _NEURON_DEVICE_H

#include <linux/io.h>
#include <linux/types.h>

struct dentry;
struct device;
struct kobject;
struct neuron_dhal;
struct neuron_dhal_arch;
struct neuron_device;
struct vm_area_struct;

/* Number of BAR slots a device can have (PCI standard BARs). */
#define NEURON_NUM_BARS		6

/**
 * enum neuron_device_state - where a device is in its lifecycle
 * @NEURON_STATE_NEW: created, bring-up not started
 * @NEURON_STATE_WAIT_DHAL: waiting for the DHAL module of its PCI id
 * @NEURON_STATE_INIT: BARs mapped, reading the routing id
 * @NEURON_STATE_RESETTING: a device reset is in progress
 * @NEURON_STATE_READY: usable
 * @NEURON_STATE_FAILED: bring-up or the last reset failed; see the log
 * @NEURON_STATE_GONE: being removed; every file operation fails with -ENODEV
 */
enum neuron_device_state {
	NEURON_STATE_NEW,
	NEURON_STATE_WAIT_DHAL,
	NEURON_STATE_INIT,
	NEURON_STATE_RESETTING,
	NEURON_STATE_READY,
	NEURON_STATE_FAILED,
	NEURON_STATE_GONE,
};

/**
 * struct neuron_bar - one mapped BAR
 * @iomem: kernel mapping, or NULL when the bus emulates the BAR through
 *	   &neuron_bus_desc.reg_ops
 * @size: size in bytes (0: not mapped)
 * @phys: bus address of the BAR, 0 for emulated BARs
 */
struct neuron_bar {
	void __iomem *iomem;
	resource_size_t size;
	phys_addr_t phys;
};

/**
 * struct neuron_reg_ops - register access for buses that emulate registers
 * @read32: read the 32-bit register at byte offset @off of BAR @bar
 * @write32: write it
 *
 * Offsets passed here are always inside the BAR's size and 4-byte aligned:
 * the core checks them first.
 */
struct neuron_reg_ops {
	u32 (*read32)(void *ctx, unsigned int bar, u64 off);
	void (*write32)(void *ctx, unsigned int bar, u64 off, u32 val);
};

/**
 * struct neuron_pci_identity - what the device says it is
 * @vendor: PCI vendor id (0x1d0f)
 * @device: PCI device id; selects the DHAL
 * @revision: PCI revision id
 * @domain: PCI domain of the device's address
 * @bus: PCI bus number
 * @devfn: PCI device and function (PCI_DEVFN)
 */
struct neuron_pci_identity {
	u16 vendor;
	u16 device;
	u8 revision;
	u32 domain;
	u8 bus;
	u8 devfn;
};

/**
 * struct neuron_bus_desc - a bus's description of one device
 * @parent: the bus device (a PCI function or a simulated device); the core
 *	    holds a reference to it while the Neuron device exists
 * @id: identity
 * @map_bar: map BAR @bar (write-combined if @wc and the bus can) into @out;
 *	     return 0 or a negative errno
 * @unmap_bar: undo @map_bar for BAR @bar, mapped as @mapping
 * @mmap_bar: map @vma->vm_end - @vma->vm_start bytes of BAR @bar from byte
 *	      @off (page aligned, inside the BAR) into @vma, which is a
 *	      shared mapping; NULL if the bus cannot (device memory is then
 *	      not mappable).  Called in mmap() with the mmap lock held.
 * @mem_phys: for a bus whose BARs have no bus address (&neuron_bar.phys
 *	      0), the physical address of the page at byte @off (page
 *	      aligned, inside the BAR) of BAR @bar, for peer-direct users;
 *	      NULL if there is none.  Called only while the BAR is mapped.
 * @mem_io: copy @len bytes between kernel memory @buf and byte @off of BAR
 *	    @bar, mapped as @mapping, with the CPU: into the BAR if @to_bar
 *	    (done and visible to the device when it returns), else out of it
 *	    (after everything the device finished before the call).  The
 *	    range lies inside the BAR.  Return 0, or -EOPNOTSUPP when the bus
 *	    cannot copy that range this way (the caller then uses the DMA
 *	    engine, nothing having changed).  NULL if the bus cannot at all.
 *	    Called only while the BAR is mapped; may sleep.
 * @mem_user_io: as @mem_io, between user memory @ubuf (checked with
 *	    access_ok()) and the BAR, with page faults disabled: return 0;
 *	    -EFAULT when a page of @ubuf was not there (or not writable for
 *	    a copy out of the BAR), with *@done at most the bytes copied
 *	    from the start of the range, every one of them copied; or
 *	    -EOPNOTSUPP as @mem_io (nothing changed).  NULL if the bus cannot
 *	    (the DMA layer then pins the user's pages and uses @mem_io).
 *	    Called only while the BAR is mapped; does not sleep.
 * @mem_io_max: the largest copy @mem_io is worth, in bytes, for reads
 *	    (index 0) and writes (index 1) of device memory: a cap on what
 *	    the DMA layer's thresholds ask (Documentation/dma.rst)
 * @reg_ops: register emulation, or NULL for readl()/writel() on the mapping
 * @state_attr: the name of @parent's sysfs attribute that shows the
 *	    device's state (neuron_bus_device_state()), or NULL: the core
 *	    calls sysfs_notify() on it at every state change, so that
 *	    poll() on it wakes
 * @ctx: passed back to every callback
 * @simulated: the device is simulated (reported to user space only)
 *
 * @map_bar and @unmap_bar are called from the core's bring-up worker and
 * from neuron_device_destroy(), never concurrently for one device;
 * @mmap_bar only while the BAR is mapped.
 */
struct neuron_bus_desc {
	struct device *parent;
	struct neuron_pci_identity id;
	int (*map_bar)(void *ctx, unsigned int bar, bool wc, struct neuron_bar *out);
	void (*unmap_bar)(void *ctx, unsigned int bar, struct neuron_bar *mapping);
	int (*mmap_bar)(void *ctx, unsigned int bar, u64 off, struct vm_area_struct *vma);
	int (*mem_phys)(void *ctx, unsigned int bar, u64 off, phys_addr_t *phys);
	int (*mem_io)(void *ctx, unsigned int bar, const struct neuron_bar *mapping, u64 off,
		      void *buf, size_t len, bool to_bar);
	int (*mem_user_io)(void *ctx, unsigned int bar, const struct neuron_bar *mapping, u64 off,
			   void __user *ubuf, size_t len, bool to_bar, size_t *done);
	u32 mem_io_max[2];
	const struct neuron_reg_ops *reg_ops;
	const char *state_attr;
	void *ctx;
	bool simulated;
};

/* What a bus holds for its device (device.c): outlives DHAL withdrawals. */
struct neuron_bus_device;

struct neuron_bus_device *neuron_device_create(const struct neuron_bus_desc *desc);
void neuron_device_destroy(struct neuron_bus_device *bd);
enum neuron_device_state neuron_bus_device_state(struct neuron_bus_device *bd);
int neuron_bus_device_index(struct neuron_bus_device *bd);
int neuron_bus_device_reset(struct neuron_bus_device *bd);

/* For planes: a Neuron device (one incarnation of a bus's device). */
enum neuron_device_state neuron_device_state(struct neuron_device *nd);
const char *neuron_device_state_name(enum neuron_device_state state);
int neuron_device_index(struct neuron_device *nd);
unsigned int neuron_pod_node_devices(void);

struct device *neuron_device_parent(struct neuron_device *nd);
const struct neuron_dhal *neuron_device_dhal(struct neuron_device *nd);
const struct neuron_dhal_arch *neuron_device_arch(struct neuron_device *nd);
u64 neuron_device_host_base(struct neuron_device *nd);
struct dentry *neuron_device_debugfs(struct neuron_device *nd);
struct kobject *neuron_device_kobj(struct neuron_device *nd);
struct kobject *neuron_device_info_kobj(struct neuron_device *nd);
bool neuron_device_enter_try(struct neuron_device *nd);
void neuron_device_leave(struct neuron_device *nd);

u32 neuron_reg_read32(struct neuron_device *nd, unsigned int bar, u64 off);
void neuron_reg_write32(struct neuron_device *nd, unsigned int bar, u64 off, u32 val);

#endif /* _NEURON_DEVICE_H */
