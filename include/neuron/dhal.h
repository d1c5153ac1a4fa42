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

/* A &neuron_dhal_topology table entry for no link. */
#define NEURON_NO_LINK	0xff

/**
 * struct neuron_dhal_topology - how the devices of a host are linked, for
 * one count of devices present
 * @devices: the count the table is for; with @periodic, its period
 * @periodic: the table applies when the count is a multiple of @devices:
 *	device d uses row d % @devices, each link offset by d - d % @devices
 * @links: columns of the table
 * @table: @devices rows of @links device indices (NEURON_NO_LINK: none)
 */
struct neuron_dhal_topology {
	u8 devices;
	bool periodic;
	u8 links;
	const u8 *table;
};

/**
 * struct neuron_dhal_arch - identity of one PCI device id
 * @pci_device: PCI device id (vendor is always 0x1d0f)
 * @arch_type: sysfs info/architecture/arch_type of the device ("NDv2")
 * @nc_arch_type: arch_type of each NeuronCore ("NCv2")
 * @instance_type: sysfs info/architecture/instance_type ("Trn1")
 * @device_name: sysfs info/architecture/device_name ("Trainium1")
 * @topology: the device's links, by count of devices present
 * @n_topology: entries in @topology
 */
struct neuron_dhal_arch {
	u16 pci_device;
	const char *arch_type;
	const char *nc_arch_type;
	const char *instance_type;
	const char *device_name;
	const struct neuron_dhal_topology *topology;
	unsigned int n_topology;
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
 * @nc_block_base: offset in @apb_bar of NeuronCore 0's block (events,
 *	semaphores); core n's is at @nc_block_base + n * @nc_block_stride
 * @nc_block_stride: distance between core blocks; 0 when the generation
 *	has none user space may reach
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
	u64 nc_block_base;
	u64 nc_block_stride;
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
 * @reset_poll_ms: longest wait between two reads of the reset-acknowledge
 *	poll (the waits start at 2 ms and double up to it)
 * @reset_timeout_ms: how long a device reset may take before it fails
 * @reset_resend_ms: period after which an unacknowledged reset is re-sent
 * @rt_compat_min: oldest runtime compatibility version supported
 * @rt_compat_max: newest runtime compatibility version supported
 * @nc_reset_units: per NeuronCore (&neuron_dhal_layout.nc_count entries),
 *	the bits of the firmware's partial-reset map that reset the core and
 *	the blocks it owns; NULL when only whole-device resets exist
 * @csr_dev_base: device-physical address at which the firmware's READ
 *	command (NEURON_IOCTL_READ_HW_COUNTERS) sees offset 0 of the
 *	register BAR; READ reaches only the BAR's readable windows
 *	(&neuron_dhal_user.reg_windows) inside the first @csr_dev_size bytes
 * @csr_dev_size: bytes of the register BAR READ may reach from
 *	@csr_dev_base; 0 when READ reaches nothing
 * @perf_profiles: the firmware has performance profiles (the new mailbox's
 *	SET_POWER_PROFILE and GET_DATA); without them the profile commands
 *	succeed and do nothing (profile 0, none available)
 * @hbm_repair: the firmware reports the HBM repair state (MiscRAM 0x64):
 *	uncorrected HBM errors count as repairable while it says so (sysfs
 *	stats/hardware); without it they are all uncorrected
 * @hbm_ecc_split_api: the firmware API version (MiscRAM 0x00) from which
 *	each HBM ECC word holds both counts: uncorrected errors in bits
 *	15:12, repairable ones in bits 11:0 (the repair state no longer
 *	matters); 0 when the firmware never encodes them so
 * @health_status: the firmware's health registers (the ECC and repair
 *	words of MiscRAM, in the @hbm_ecc_split_api encoding) are shown in
 *	sysfs stats/hardware/health_status
 */
struct neuron_dhal_fw {
	u32 reset_poll_ms;
	u32 reset_timeout_ms;
	u32 reset_resend_ms;
	u32 rt_compat_min;
	u32 rt_compat_max;
	const u32 *nc_reset_units;
	u64 csr_dev_base;
	u64 csr_dev_size;
	bool perf_profiles;
	bool hbm_repair;
	u32 hbm_ecc_split_api;
	bool health_status;
};

/* Access a register window gives user space (&neuron_dhal_reg_window.access). */
#define NEURON_REG_READ		0x1
#define NEURON_REG_WRITE	0x2

/**
 * struct neuron_dhal_reg_window - registers user space may reach
 * @offset: start, in bytes from the start of the register BAR; 4-aligned
 * @size: length in bytes; a multiple of 4
 * @access: NEURON_REG_READ, optionally with NEURON_REG_WRITE
 * @unit_size: 0 when the window belongs to no NeuronCore; else the window
 *	is an array of blocks of @unit_size bytes (one per NeuronCore or per
 *	TOP_SP), each belonging to one core: while a process holds that
 *	core, no other process reaches the block's registers
 * @first_unit: number of the window's first block among the device's
 *	blocks of its kind (8 for a window of TOP_SPs 8-15)
 * @units_per_nc: blocks of the kind each core owns: block u belongs to
 *	core u / @units_per_nc (1 for NeuronCores, the device's TOP_SP count
 *	over its core count for TOP_SPs); not 0 when @unit_size is not
 *
 * The DHAL states which core each block belongs to as data; the core
 * computes a register's core once, for every generation, from these three.
 */
struct neuron_dhal_reg_window {
	u64 offset;
	u64 size;
	u32 access;
	u64 unit_size;
	u32 first_unit;
	u32 units_per_nc;
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
 * struct neuron_dhal_resource - a family of special resources user space
 * may map (NEURON_IOCTL_RESOURCE_MMAP_INFO, then mmap() at its offset)
 * @block: enum neuron_dm_block_type
 * @resource: enum neuron_dm_resource_type
 * @count: blocks of this kind (block ids 0 .. @count - 1); 0 for the
 *	device's HBM count
 * @per_group: blocks per group (ids id / @per_group, id % @per_group)
 * @rdonly: mapped read-only
 * @hbm: the offset of block n is HBM n's base and the size its usable
 *	size (&neuron_dhal_mem), not @offset and @size
 * @bar: BAR the resource is in
 * @offset: mmap offset of block 0's resource
 * @stride: distance between blocks of a group, in mmap offsets
 * @group_stride: distance between groups, in mmap offsets
 * @size: bytes
 * @bar_offset: offset of block 0's resource in @bar
 * @bar_stride: distance between blocks of a group in @bar
 * @bar_group_stride: distance between groups in @bar
 */
struct neuron_dhal_resource {
	u8 block;
	u8 resource;
	u8 count;
	u8 per_group;
	bool rdonly;
	bool hbm;
	u8 bar;
	u64 offset;
	u64 stride;
	u64 group_stride;
	u64 size;
	u64 bar_offset;
	u64 bar_stride;
	u64 bar_group_stride;
};

/**
 * struct neuron_dhal_user - what a generation lets user space reach directly
 * @reg_windows: the only ranges of the register BAR that
 *	NEURON_IOCTL_BAR_READ and NEURON_IOCTL_BAR_WRITE accept, each with the
 *	access it allows and the cores its registers belong to; firmware
 *	mailbox, reset and DMA-programming registers are never writable
 * @n_reg_windows: entries in @reg_windows
 * @nc_map: logical-to-physical NeuronCore numbering of a full host, indexed
 *	by logical core; NULL when the generation has none
 * @nc_map_entries: entries in @nc_map
 * @resources: the special resources user space may map
 * @n_resources: entries in @resources
 */
struct neuron_dhal_user {
	const struct neuron_dhal_reg_window *reg_windows;
	unsigned int n_reg_windows;
	const struct neuron_dhal_nc_location *nc_map;
	unsigned int nc_map_entries;
	const struct neuron_dhal_resource *resources;
	unsigned int n_resources;
};

/**
 * struct neuron_dhal_nq - where notification queues are programmed
 * @nc_base: per NeuronCore, offset in the register BAR of its notific
 *	block (queue slot i's registers at +0x100 + i * 0x28)
 * @ts_base: offset of TOP_SP 0's notific block
 * @ts_stride: distance between the blocks of one group of TOP_SPs
 * @ts_per_group: TOP_SPs per group
 * @ts_group_stride: distance between groups
 * @trace_base: per NeuronCore, offset of the notific block of its DMA
 *	engine 0, which carries the engine's trace-DMA queue in slot 0; NULL
 *	when the generation's engine blocks are not known
 * @trace_stride: distance between the engines' blocks
 */
struct neuron_dhal_nq {
	const u64 *nc_base;
	u64 ts_base;
	u64 ts_stride;
	u32 ts_per_group;
	u64 ts_group_stride;
	const u64 *trace_base;
	u64 trace_stride;
};

/**
 * struct neuron_dhal_pe - where a core's PE-array activity counters are
 * @xbus_count: register groups of one row group
 * @row_groups: row groups (one line each of sysfs tensor_engine/pe_cntrs)
 * @col_groups: column groups whose fast weight-load counters add up
 * @grp_size: bytes between register groups
 * @mm: per NeuronCore, the register-BAR offset of row group 0's
 *	matmul-active cycle counter
 * @wl: per NeuronCore, row group 0's weight-load cycle counter, added to
 *	the fast ones; NULL where only fast weight loads are counted
 * @fast_wl: per NeuronCore, row group 0's, column group 0's fast
 *	weight-load cycle counter
 * @idle: per NeuronCore, row group 0's idle cycle counter
 *
 * Each counter is 64 bits: the low word at its offset, the high word 4
 * bytes above.  Row group r's counter is at the offset plus
 * r * @xbus_count * @grp_size, column group c's fast weight-load counter
 * c * @grp_size above its row group's.
 */
struct neuron_dhal_pe {
	u32 xbus_count;
	u32 row_groups;
	u32 col_groups;
	u64 grp_size;
	const u64 *mm;
	const u64 *wl;
	const u64 *fast_wl;
	const u64 *idle;
};

/**
 * enum neuron_platform - the kind of host a node is (pod.c)
 * @NEURON_PLATFORM_STD: a standard host, never part of a pod
 * @NEURON_PLATFORM_ULTRASERVER: an UltraServer node: its pod is elected
 *	over the neighbour links
 * @NEURON_PLATFORM_PDS: a node of a switched pod (PDS): the pod is not
 *	elected but configured (module parameters, MiscRAM server info)
 */
enum neuron_platform {
	NEURON_PLATFORM_STD,
	NEURON_PLATFORM_ULTRASERVER,
	NEURON_PLATFORM_PDS,
};

/**
 * struct neuron_dhal_platform - a DMI product name and the platform it means
 * @product: the DMI product name, or its beginning when @prefix
 * @prefix: @product matches every name that starts with it
 * @platform: the platform such a host is
 * @node_cnt: with NEURON_PLATFORM_PDS, the nodes of the pod every such host
 *	is in (a trn3e host: 1, the reference's platform type MAX); 0 for the
 *	module parameter userver_pds_node_cnt
 */
struct neuron_dhal_platform {
	const char *product;
	bool prefix;
	enum neuron_platform platform;
	u32 node_cnt;
};

/**
 * struct neuron_dhal_pod - what a generation knows about pods (pod.c)
 * @platforms: DMI product names that are not standard hosts
 * @n_platforms: entries in @platforms
 * @electable: a node of this generation may pose as an UltraServer
 *	(module parameter force_userver) and run the election, or as a PDS
 *	node (force_pds)
 * @die_flip: on nodes 1 and 3 of an UltraServer, logical core i is the
 *	entry i ^ @die_flip of &neuron_dhal_user.nc_map; 0 for no flip
 * @nbr_engines: the DMA engines of the two neighbour links (left, right),
 *	two per link, whose queue 0 reads a neighbour's MiscRAM
 * @nbr_window: device address of the B0 window through which engine e
 *	reaches the neighbour at the far end of its link: entry
 *	e / %NEURON_POD_NBR_WINDOW_ENGINES; 0 for none
 * @nbr_misc: offset of the neighbour's MiscRAM in such a window
 */
struct neuron_dhal_pod {
	const struct neuron_dhal_platform *platforms;
	unsigned int n_platforms;
	bool electable;
	u32 die_flip;
	u8 nbr_engines[2][2];
	u64 nbr_window[4];
	u64 nbr_misc;
};

/* Engines that share one B0 neighbour window (&neuron_dhal_pod.nbr_window). */
#define NEURON_POD_NBR_WINDOW_ENGINES	32

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
 * @nq: notification-queue blocks; NULL when queues are not supported
 * @pe: PE-array activity counters (&neuron_dhal_layout.nc_count entries
 *	per table); NULL when their place is not known
 * @pod: platform detection and pod facts; NULL for a generation that is
 *	always a standard host (v2)
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
	const struct neuron_dhal_nq *nq;
	const struct neuron_dhal_pe *pe;
	const struct neuron_dhal_pod *pod;
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
