/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device hardware abstraction layer (DHAL): what a per-generation module
 * (neuron_dhal_v2, _v3, _v4) registers with neuron_core.
 *
 * A DHAL is a const descriptor made mostly of data: identity strings per
 * PCI device id, the address-map facts bring-up needs, counts and memory
 * layout, and firmware timing.  The core implements the logic once
 * (routing-id read, reset handshake) from that data; a DHAL supplies an op
 * only where a generation really behaves differently.  A later generation
 * reuses an earlier one by pointing at its exported sub-tables and
 * overriding the ones that differ.
 *
 * Each bound device holds its own instance (&struct neuron_dhal_instance),
 * so devices of different generations coexist.
 */
#ifndef _NEURON_DHAL_H
#define _NEURON_DHAL_H

#include <linux/device/driver.h>
#include <linux/module.h>
#include <linux/types.h>

struct module;
struct neuron_device;
struct neuron_udma_gen;

/* Most HBM regions any generation has. */
#define NEURON_MAX_HBM		4

/**
 * struct neuron_dhal_arch - identity of one PCI device id
 * @pci_device: PCI device id (vendor is always 0x1d0f)
 * @arch_type: sysfs info/architecture/arch_type of the device ("NDv2")
 * @nc_arch_type: arch_type of each NeuronCore ("NCv2")
 * @instance_type: sysfs info/architecture/instance_type ("Trn1")
 * @device_name: sysfs info/architecture/device_name ("Trainium1")
 */
struct neuron_dhal_arch {
	u16 pci_device;
	const char *arch_type;
	const char *nc_arch_type;
	const char *instance_type;
	const char *device_name;
};

/**
 * struct neuron_dhal_layout - address map and geometry
 * @apb_bar: BAR index of the register space
 * @dram_bar: BAR index of the device-memory window
 * @misc_ram_offset: offset of the firmware MiscRAM block in @apb_bar
 * @pci_host_base: bit the device needs in host addresses it is given
 * @nc_count: NeuronCores per device
 * @nc_map: bitmap of NeuronCores present
 * @dice: dies per device
 * @ts_count: TOP_SP (sequencer) blocks per device
 *
 * The DMA engines' geometry is in &neuron_dhal.udma.
 */
struct neuron_dhal_layout {
	u8 apb_bar;
	u8 dram_bar;
	u64 misc_ram_offset;
	u64 pci_host_base;
	u32 nc_count;
	u32 nc_map;
	u32 dice;
	u32 ts_count;
};

/**
 * struct neuron_dhal_mem - device memory (HBM) layout
 * @hbm_count: HBM regions
 * @hbm_base: device address of each region (@hbm_count entries)
 * @hbm_size: usable size of each region
 * @carveout: bytes reserved for firmware at the start of each region
 */
struct neuron_dhal_mem {
	u32 hbm_count;
	const u64 *hbm_base;
	u64 hbm_size[NEURON_MAX_HBM];
	u64 carveout;
};

/**
 * struct neuron_dhal_fw - firmware interface facts and timing
 * @reset_poll_ms: period of the reset-acknowledge poll
 * @reset_timeout_ms: how long a device reset may take before it fails
 * @reset_resend_ms: period after which an unacknowledged reset is re-sent
 * @rt_compat_min: oldest runtime compatibility version supported
 * @rt_compat_max: newest runtime compatibility version supported
 * @nc_reset_units: per NeuronCore (&neuron_dhal_layout.nc_count entries),
 *	the bits of the firmware's partial-reset map that reset the core and
 *	the blocks it owns; NULL when only whole-device resets exist
 */
struct neuron_dhal_fw {
	u32 reset_poll_ms;
	u32 reset_timeout_ms;
	u32 reset_resend_ms;
	u32 rt_compat_min;
	u32 rt_compat_max;
	const u32 *nc_reset_units;
};

/* Access a register window gives user space (&neuron_dhal_reg_window.access). */
#define NEURON_REG_READ		0x1
#define NEURON_REG_WRITE	0x2

/**
 * struct neuron_dhal_reg_window - registers user space may reach
 * @offset: start, in bytes from the start of the register BAR; 4-aligned
 * @size: length in bytes; a multiple of 4
 * @access: NEURON_REG_READ, optionally with NEURON_REG_WRITE
 */
struct neuron_dhal_reg_window {
	u64 offset;
	u64 size;
	u32 access;
};

/**
 * struct neuron_dhal_nc_location - where one logical NeuronCore lives
 * @device: device index on the host
 * @nc: NeuronCore within that device
 */
struct neuron_dhal_nc_location {
	u8 device;
	u8 nc;
};

/**
 * struct neuron_dhal_user - what a generation lets user space reach directly
 * @reg_windows: the only ranges of the register BAR that
 *	NEURON_IOCTL_BAR_READ and NEURON_IOCTL_BAR_WRITE accept, each with the
 *	access it allows; firmware mailbox, reset and DMA-programming
 *	registers are never writable
 * @n_reg_windows: entries in @reg_windows
 * @nc_map: logical-to-physical NeuronCore numbering of a full host, indexed
 *	by logical core; NULL when the generation has none
 * @nc_map_entries: entries in @nc_map
 */
struct neuron_dhal_user {
	const struct neuron_dhal_reg_window *reg_windows;
	unsigned int n_reg_windows;
	const struct neuron_dhal_nc_location *nc_map;
	unsigned int nc_map_entries;
};

/**
 * struct neuron_dhal - a DHAL module's descriptor
 * @owner: the module (THIS_MODULE)
 * @name: module name, shown in sysfs (info/dhal)
 * @generation: 2, 3 or 4
 * @archs: one entry per PCI device id this DHAL drives
 * @n_archs: entries in @archs
 * @layout: address map and geometry
 * @mem: device memory layout
 * @fw: firmware facts
 * @user: what user space may reach directly; NULL for nothing
 * @udma: where the DMA engines are and the generation's engine settings
 *	(include/neuron/udma.h); NULL when the generation has no DMA support
 */
struct neuron_dhal {
	struct module *owner;
	const char *name;
	unsigned int generation;
	const struct neuron_dhal_arch *archs;
	unsigned int n_archs;
	const struct neuron_dhal_layout *layout;
	const struct neuron_dhal_mem *mem;
	const struct neuron_dhal_fw *fw;
	const struct neuron_dhal_user *user;
	const struct neuron_udma_gen *udma;
};

/**
 * struct neuron_dhal_instance - a device's binding to its DHAL
 * @dhal: the descriptor
 * @arch: the entry of @dhal matching the device's PCI id
 */
struct neuron_dhal_instance {
	const struct neuron_dhal *dhal;
	const struct neuron_dhal_arch *arch;
};

int neuron_dhal_register(const struct neuron_dhal *dhal);
void neuron_dhal_unregister(const struct neuron_dhal *dhal);

/* The DHAL modules' descriptors, exported only for the KUnit tests. */
extern const struct neuron_dhal neuron_dhal_v2;
extern const struct neuron_dhal neuron_dhal_v3;
extern const struct neuron_dhal neuron_dhal_v4;

/*
 * Aliases every DHAL module carries for each PCI device id it drives: the
 * PCI modalias, so that udev's "modprobe $MODALIAS" for a Neuron function
 * loads the generation's module along with neuron_core (which has the PCI
 * device table), and a fixed alias the core loads it by with
 * request_module() when a device of that id appears without its DHAL.
 * @id is four hex digits without 0x (digits only, as every Neuron id is).
 */
#define NEURON_DHAL_ALIAS_FMT	"neuron-dhal-1d0f-%04x"
#define NEURON_DHAL_ALIAS(id)		MODULE_ALIAS("neuron-dhal-1d0f-" #id)
#define NEURON_DHAL_PCI_ALIAS(id)	MODULE_ALIAS("pci:v00001D0Fd0000" #id "sv*sd*bc*sc*i*")

/**
 * module_neuron_dhal() - a DHAL module's init and exit
 * @desc: the module's &struct neuron_dhal
 *
 * Registers @desc at load and unregisters it at unload; a DHAL module needs
 * nothing else.
 */
#define module_neuron_dhal(desc) \
	module_driver(desc, neuron_dhal_register, neuron_dhal_unregister)

#endif /* _NEURON_DHAL_H */
