/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address map and firmware tables of the third Neuron generation
 * (Trn2), which the fourth (Trn3) shares: the data both neuron_dhal_v3 and
 * neuron_dhal_v4 point their descriptors at.
 *
 * Data only, and every object is static: each of the two modules that
 * includes this header gets its own copy, so neither links against the
 * other and each can be unloaded alone (modprobe -r neuron_dhal_v3 with
 * Trn3 devices bound to neuron_dhal_v4).  What differs between the two
 * generations stays in each module's own descriptor.  Include it from one
 * file per module; every table is used by both, so none is left unused.
 */
#ifndef _NEURON_DHAL_V3_BASE_H
#define _NEURON_DHAL_V3_BASE_H

#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <neuron/dhal.h>
#include <neuron/neuron_driver_shared.h>
#include <neuron/udma.h>

static const struct neuron_dhal_layout neuron_dhal_v3_layout = {
	.apb_bar = 0,
	.dram_bar = 4,
	.misc_ram_offset = 0x06c84000,
	.pci_host_base = 0x0000400000000000ULL,
	.nc_count = 8,
	.nc_map = 0xff,
	.dice = 2,
	.ts_count = 16,
	.nc_block_base = 0xd0000000,
	.nc_block_stride = SZ_64M,
};

/*
 * DMA engines: a group of 32 per SENG (engine block), then four host
 * engines; each group's first engine has its user interrupt block at
 * neuron_dhal_v3_udma_fis_base[group].
 */
static const u64 neuron_dhal_v3_udma_group_base[4] = {
	0x82000000, 0x94000000, 0xa2000000, 0xb4000000
};

static const u64 neuron_dhal_v3_udma_extra_base[4] = {
	0x06800000, 0x06900000, 0x46800000, 0x46900000
};

static const u64 neuron_dhal_v3_udma_fis_base[4] = {
	0x8c000000, 0x9c400000, 0xac000000, 0xbc400000
};

/* Device addresses of the four HBM regions. */
static const u64 neuron_dhal_v3_hbm_base[4] = {
	0, 0x4000000000ULL, 0x800000000000ULL, 0x804000000000ULL
};

/*
 * Partial-reset map: for NeuronCore n, bit n (the core), bit 8 + n (its
 * group of DMA engines) and bit 16 + n (its group of TOP_SP blocks).
 */
static const u32 v3_nc_reset_units[] = {
	0x010101, 0x020202, 0x040404, 0x080808,
	0x101010, 0x202020, 0x404040, 0x808080,
};

static const struct neuron_dhal_fw neuron_dhal_v3_fw = {
	.reset_poll_ms = 100,
	.reset_timeout_ms = 480000,
	.reset_resend_ms = 30000,
	.rt_compat_min = 10,
	.rt_compat_max = 11,
	.nc_reset_units = v3_nc_reset_units,
	/* The firmware sees only the first APB I/O space (512 MiB). */
	.csr_dev_base = 0x8000000000ULL,
	.csr_dev_size = SZ_512M,
	.perf_profiles = true,
	.hbm_repair = true,
	/* Firmware API 6 re-encodes the HBM ECC words. */
	.hbm_ecc_split_api = 6,
	/* stats/hardware/health_status (2.28). */
	.health_status = true,
};

/*
 * BAR 0 as user space may reach it.  Read only: the two APB I/O spaces
 * (without the firmware MiscRAM block: mailbox, reset and doorbell
 * registers) and the four APB SE spaces, which hold every engine and queue
 * programming register.  Read and write: the eight NeuronCore windows
 * (64 MiB each) and the two groups of eight TOP_SP blocks (4 MiB each:
 * TOP_SPs 0-7, then 8-15; core n owns TOP_SPs 2n and 2n + 1).
 */
static const struct neuron_dhal_reg_window v3_reg_windows[] = {
	{ .offset = 0x00000000, .size = 0x06c84000, .access = NEURON_REG_READ },
	{ .offset = 0x06c85000, .size = 0x1937b000, .access = NEURON_REG_READ },
	{ .offset = 0x40000000, .size = 0x20000000, .access = NEURON_REG_READ },
	{ .offset = 0x80000000, .size = 0x40000000, .access = NEURON_REG_READ },
	{ .offset = 0xd0000000, .size = 8 * SZ_64M, .access = NEURON_REG_READ | NEURON_REG_WRITE,
	  .unit_size = SZ_64M, .units_per_nc = 1 },
	{ .offset = 0xf0000000, .size = 8 * SZ_4M, .access = NEURON_REG_READ | NEURON_REG_WRITE,
	  .unit_size = SZ_4M, .units_per_nc = 2 },
	{ .offset = 0xf2800000, .size = 8 * SZ_4M, .access = NEURON_REG_READ | NEURON_REG_WRITE,
	  .unit_size = SZ_4M, .first_unit = 8, .units_per_nc = 2 },
};

/*
 * Logical NeuronCore n of a 16-device host lives on device n / 8, at a
 * position within the device given by one of four permutations of the
 * device's cores (rows A to D), chosen by the device index.
 */
static const struct neuron_dhal_nc_location v3_nc_map[] = {
	/* device 0: row A */
	{ 0, 4 }, { 0, 5 }, { 0, 6 }, { 0, 7 }, { 0, 2 }, { 0, 3 }, { 0, 0 }, { 0, 1 },
	/* device 1: row B */
	{ 1, 2 }, { 1, 3 }, { 1, 0 }, { 1, 1 }, { 1, 4 }, { 1, 5 }, { 1, 6 }, { 1, 7 },
	/* device 2: row A */
	{ 2, 4 }, { 2, 5 }, { 2, 6 }, { 2, 7 }, { 2, 2 }, { 2, 3 }, { 2, 0 }, { 2, 1 },
	/* device 3: row B */
	{ 3, 2 }, { 3, 3 }, { 3, 0 }, { 3, 1 }, { 3, 4 }, { 3, 5 }, { 3, 6 }, { 3, 7 },
	/* device 4: row C */
	{ 4, 0 }, { 4, 1 }, { 4, 2 }, { 4, 3 }, { 4, 6 }, { 4, 7 }, { 4, 4 }, { 4, 5 },
	/* device 5: row D */
	{ 5, 6 }, { 5, 7 }, { 5, 4 }, { 5, 5 }, { 5, 0 }, { 5, 1 }, { 5, 2 }, { 5, 3 },
	/* device 6: row C */
	{ 6, 0 }, { 6, 1 }, { 6, 2 }, { 6, 3 }, { 6, 6 }, { 6, 7 }, { 6, 4 }, { 6, 5 },
	/* device 7: row D */
	{ 7, 6 }, { 7, 7 }, { 7, 4 }, { 7, 5 }, { 7, 0 }, { 7, 1 }, { 7, 2 }, { 7, 3 },
	/* device 8: row A */
	{ 8, 4 }, { 8, 5 }, { 8, 6 }, { 8, 7 }, { 8, 2 }, { 8, 3 }, { 8, 0 }, { 8, 1 },
	/* device 9: row B */
	{ 9, 2 }, { 9, 3 }, { 9, 0 }, { 9, 1 }, { 9, 4 }, { 9, 5 }, { 9, 6 }, { 9, 7 },
	/* device 10: row A */
	{ 10, 4 }, { 10, 5 }, { 10, 6 }, { 10, 7 }, { 10, 2 }, { 10, 3 }, { 10, 0 }, { 10, 1 },
	/* device 11: row B */
	{ 11, 2 }, { 11, 3 }, { 11, 0 }, { 11, 1 }, { 11, 4 }, { 11, 5 }, { 11, 6 }, { 11, 7 },
	/* device 12: row C */
	{ 12, 0 }, { 12, 1 }, { 12, 2 }, { 12, 3 }, { 12, 6 }, { 12, 7 }, { 12, 4 }, { 12, 5 },
	/* device 13: row D */
	{ 13, 6 }, { 13, 7 }, { 13, 4 }, { 13, 5 }, { 13, 0 }, { 13, 1 }, { 13, 2 }, { 13, 3 },
	/* device 14: row C */
	{ 14, 0 }, { 14, 1 }, { 14, 2 }, { 14, 3 }, { 14, 6 }, { 14, 7 }, { 14, 4 }, { 14, 5 },
	/* device 15: row D */
	{ 15, 6 }, { 15, 7 }, { 15, 4 }, { 15, 5 }, { 15, 0 }, { 15, 1 }, { 15, 2 }, { 15, 3 },
};

/*
 * Special resources: each core's semaphore window and state buffer, each
 * TOP_SP's semaphore window and whole block (read only; two groups of
 * eight, one per die), and each HBM stack whole (its size comes from the
 * generation's memory layout).
 */
static const struct neuron_dhal_resource v3_resources[] = {
	{ .block = NEURON_DM_BLOCK_TPB, .resource = NEURON_DM_RESOURCE_SEMAPHORE,
	  .count = 8, .per_group = 8, .offset = 0x2002700000ULL, .stride = SZ_64M,
	  .size = 0x2000, .bar_offset = 0xd2700000, .bar_stride = SZ_64M },
	{ .block = NEURON_DM_BLOCK_TPB, .resource = NEURON_DM_RESOURCE_SBUF,
	  .count = 8, .per_group = 8, .offset = 0x2000000000ULL, .stride = SZ_64M,
	  .size = SZ_32M, .bar_offset = 0xd0000000, .bar_stride = SZ_64M },
	{ .block = NEURON_DM_BLOCK_TOPSP, .resource = NEURON_DM_RESOURCE_SEMAPHORE,
	  .count = 16, .per_group = 8, .offset = 0x8280000000ULL, .stride = SZ_1G,
	  .group_stride = 0x800000000000ULL, .size = 0x2000,
	  .bar_offset = 0xf0000000, .bar_stride = SZ_4M, .bar_group_stride = 0x2800000 },
	{ .block = NEURON_DM_BLOCK_TOPSP, .resource = NEURON_DM_RESOURCE_ALL, .rdonly = true,
	  .count = 16, .per_group = 8, .offset = 0x8280000000ULL, .stride = SZ_1G,
	  .group_stride = 0x800000000000ULL, .size = SZ_4M,
	  .bar_offset = 0xf0000000, .bar_stride = SZ_4M, .bar_group_stride = 0x2800000 },
	{ .block = NEURON_DM_BLOCK_HBM, .resource = NEURON_DM_RESOURCE_DMEM, .hbm = true,
	  .per_group = 4, .bar = 4, .bar_stride = 0x1000000000ULL },
};

static const struct neuron_dhal_user neuron_dhal_v3_user = {
	.reg_windows = v3_reg_windows,
	.n_reg_windows = ARRAY_SIZE(v3_reg_windows),
	.nc_map = v3_nc_map,
	.nc_map_entries = ARRAY_SIZE(v3_nc_map),
	.resources = v3_resources,
	.n_resources = ARRAY_SIZE(v3_resources),
};

/*
 * Notification-queue blocks: per core (two dies of four), per TOP_SP (two
 * groups of eight).  Where each DMA engine's trace block is, the published
 * sources do not say, so trace-DMA queues are not offered.
 */
static const u64 v3_nq_nc_base[] = {
	0x06001000, 0x06181000, 0x06401000, 0x06581000,
	0x46001000, 0x46181000, 0x46401000, 0x46581000,
};

static const struct neuron_dhal_nq neuron_dhal_v3_nq = {
	.nc_base = v3_nq_nc_base,
	.ts_base = 0x06a00000,
	.ts_stride = 0x40000,
	.ts_per_group = 8,
	.ts_group_stride = 0x40000000,
};

/*
 * PE activity counters: each core's sequencer-cluster performance block
 * (per die, SENG and TPB: 0x06141100, 0x062c1100, 0x06541100, 0x066c1100,
 * then the same 0x40000000 above), groups of 0x30 bytes; matmul-active
 * and idle in group 4 (+0, +0x10), weight-load in group 8 (+8), fast
 * weight-load in group 0 (+8).
 */
static const u64 v3_pe_mm[] = {
	0x061411c0, 0x062c11c0, 0x065411c0, 0x066c11c0,
	0x461411c0, 0x462c11c0, 0x465411c0, 0x466c11c0,
};

static const u64 v3_pe_wl[] = {
	0x06141288, 0x062c1288, 0x06541288, 0x066c1288,
	0x46141288, 0x462c1288, 0x46541288, 0x466c1288,
};

static const u64 v3_pe_fast_wl[] = {
	0x06141108, 0x062c1108, 0x06541108, 0x066c1108,
	0x46141108, 0x462c1108, 0x46541108, 0x466c1108,
};

static const u64 v3_pe_idle[] = {
	0x061411d0, 0x062c11d0, 0x065411d0, 0x066c11d0,
	0x461411d0, 0x462c11d0, 0x465411d0, 0x466c11d0,
};

static const struct neuron_dhal_pe neuron_dhal_v3_pe = {
	.xbus_count = 9,
	.row_groups = 4,
	.col_groups = 4,
	.grp_size = 0x30,
	.mm = v3_pe_mm,
	.wl = v3_pe_wl,
	.fast_wl = v3_pe_fast_wl,
	.idle = v3_pe_idle,
};

/* Trn2 and Trn3: 16 devices, each linked through its four SENGs. */
static const u8 v3_links[16 * 4] = {
	12, 1, 3, 4,	0, 13, 5, 2,	14, 3, 1, 6,	2, 15, 7, 0,
	8, 5, 7, 0,	4, 9, 1, 6,	10, 7, 5, 2,	6, 11, 3, 4,
	4, 9, 11, 12,	8, 5, 13, 10,	6, 11, 9, 14,	10, 7, 15, 8,
	0, 13, 15, 8,	12, 1, 9, 14,	2, 15, 13, 10,	14, 3, 11, 12,
};

static const struct neuron_dhal_topology neuron_dhal_v3_topology[1] = {
	{ .devices = 16, .periodic = true, .links = 4, .table = v3_links },
};

/*
 * The DMA engine geometry and settings of v3, which v4 shares: the fields
 * of a &struct neuron_udma_gen but its generation.
 */
#define NEURON_DHAL_V3_UDMA						\
	.bar = 0,							\
	.engines = 132,							\
	.groups = ARRAY_SIZE(neuron_dhal_v3_udma_group_base),		\
	.group_engines = 32,						\
	.group_base = neuron_dhal_v3_udma_group_base,			\
	.stride = 0x100000,						\
	.extra_base = neuron_dhal_v3_udma_extra_base,			\
	.queues = 16,							\
	.num_beats = 2296,						\
	.m2s_axi_outstanding = 0x20808080,				\
	.s2m_rd_outstanding = 0x00400080,				\
	.max_descs_per_pkt = 65,					\
	.mask_ring_id_error = true,					\
	.fis_base = neuron_dhal_v3_udma_fis_base,			\
	.fis_stride = 0x20000,						\
	.sow = true

/*
 * The neighbour windows of v3, which v4 shares: the B0 base of each group
 * of 32 engines, and MiscRAM's offset in a window (fields of a &struct
 * neuron_dhal_pod).
 */
#define NEURON_DHAL_V3_NBR_WINDOWS					\
	.nbr_window = { 0x10ULL << 48, 0x14ULL << 48, 0x18ULL << 48,	\
			0x1cULL << 48 },				\
	.nbr_misc = 0x8006c84000ULL

#endif /* _NEURON_DHAL_V3_BASE_H */
