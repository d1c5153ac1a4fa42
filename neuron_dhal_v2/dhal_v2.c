// SPDX-License-Identifier: GPL-2.0
/*
 * DHAL for the second Neuron generation: Trainium1 (Trn1) and
 * Inferentia2 (Inf2).  Data only; the core implements the logic.
 */

#include <linux/bits.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/neuron_driver_shared.h>
#include <neuron/udma.h>
#include <neuron/version.h>

/* Trn1: a 4x4 torus of 16 devices (and 32 as two of them). */
static const u8 trn1_links[16 * 4] = {
	12, 3, 4, 1,	13, 0, 5, 2,	14, 1, 6, 3,	15, 2, 7, 0,
	0, 7, 8, 5,	1, 4, 9, 6,	2, 5, 10, 7,	3, 6, 11, 4,
	4, 11, 12, 9,	5, 8, 13, 10,	6, 9, 14, 11,	7, 10, 15, 8,
	8, 15, 0, 13,	9, 12, 1, 14,	10, 13, 2, 15,	11, 14, 3, 12,
};

static const struct neuron_dhal_topology trn1_topology[] = {
	{ .devices = 16, .periodic = true, .links = 4, .table = trn1_links },
};

/* Inf2: a ring of 12 (inf2.48xlarge) or a chain of 6 (inf2.24xlarge). */
static const u8 inf2_ring[12 * 2] = {
	11, 1,	0, 2,	1, 3,	2, 4,	3, 5,	4, 6,
	5, 7,	6, 8,	7, 9,	8, 10,	9, 11,	10, 0,
};

static const u8 inf2_chain[6 * 2] = {
	1, NEURON_NO_LINK,	0, 2,	1, 3,	2, 4,	3, 5,	4, NEURON_NO_LINK,
};

static const struct neuron_dhal_topology inf2_topology[] = {
	{ .devices = 12, .links = 2, .table = inf2_ring },
	{ .devices = 6, .links = 2, .table = inf2_chain },
};

static const struct neuron_dhal_arch v2_archs[] = {
	{
		.pci_device = 0x7164,
		.arch_type = "NDv2",
		.nc_arch_type = "NCv2",
		.instance_type = "Trn1",
		.device_name = "Trainium1",
		.topology = trn1_topology,
		.n_topology = ARRAY_SIZE(trn1_topology),
	},
	{
		.pci_device = 0x7264,
		/* Inf2 has always reported NDv3 here; tools rely on it. */
		.arch_type = "NDv3",
		.nc_arch_type = "NCv2",
		.instance_type = "Inf2",
		.device_name = "Inferentia2",
		.topology = inf2_topology,
		.n_topology = ARRAY_SIZE(inf2_topology),
	},
};

static const struct neuron_dhal_layout v2_layout = {
	.apb_bar = 0,
	.dram_bar = 4,
	.misc_ram_offset = 0x30fa0000,
	.pci_host_base = 0x0000100000000000ULL,
	.nc_count = 2,
	.nc_map = 0x3,
	.dice = 1,
	.ts_count = 6,
	.nc_block_base = 0,
	.nc_block_stride = SZ_64M,
};

/* DMA engines: a group of 16 per NeuronCore, then one host engine per core. */
static const u64 v2_udma_group_base[] = { 0x30000000, 0x30700000 };
static const u64 v2_udma_extra_base[] = { 0x30600000, 0x30d00000 };

static const struct neuron_udma_gen v2_udma = {
	.generation = 2,
	.bar = 0,
	.engines = 34,
	.groups = ARRAY_SIZE(v2_udma_group_base),
	.group_engines = 16,
	.group_base = v2_udma_group_base,
	.stride = 0x40000,
	.extra_base = v2_udma_extra_base,
	.queues = 16,
	.num_beats = 1024,
	.m2s_axi_outstanding = 0x0000086f,
	.s2m_rd_outstanding = 0x00400008,
	.max_descs_per_pkt = 65,
	.axi_error_abort = true,
};

static const u64 v2_hbm_base[] = { 0, 0x1000000000ULL };

static const struct neuron_dhal_mem v2_mem = {
	.hbm_count = ARRAY_SIZE(v2_hbm_base),
	.hbm_base = v2_hbm_base,
	.hbm_size = { 16ULL * SZ_1G, 16ULL * SZ_1G },
	.carveout = 16 * SZ_1M,
};

/*
 * Partial-reset map: bit n resets NeuronCore n, bits 8 + 3n .. 10 + 3n the
 * three TOP_SP blocks that core owns.
 */
static const u32 v2_nc_reset_units[] = {
	BIT(0) | BIT(8) | BIT(9) | BIT(10),
	BIT(1) | BIT(11) | BIT(12) | BIT(13),
};

static const struct neuron_dhal_fw v2_fw = {
	.reset_poll_ms = 100,
	.reset_timeout_ms = 120000,
	.reset_resend_ms = 30000,
	.rt_compat_min = 5,
	.rt_compat_max = 7,
	.nc_reset_units = v2_nc_reset_units,
	/* The firmware sees the whole register BAR at the TPB window's address. */
	.csr_dev_base = 0xfffc0000000ULL,
	.csr_dev_size = SZ_1G,
	.perf_profiles = false,
	/* Trn1 counts no repairable HBM errors: its words keep one count. */
	.hbm_ecc_split_api = 0,
};

/*
 * BAR 0 as user space may reach it: the two NeuronCore windows (64 MiB each:
 * state buffer, events, semaphores) and the six TOP_SP blocks (4 MiB each;
 * core n owns TOP_SPs 3n to 3n + 2) read and write; the APB register space
 * read only, without the firmware MiscRAM block (mailbox, reset and
 * doorbell registers).  Engine and queue programming registers live in the
 * APB space, so they are never writable.
 */
static const struct neuron_dhal_reg_window v2_reg_windows[] = {
	{ .offset = 0x00000000, .size = 2 * SZ_64M, .access = NEURON_REG_READ | NEURON_REG_WRITE,
	  .unit_size = SZ_64M, .units_per_nc = 1 },
	{ .offset = 0x10000000, .size = 6 * SZ_4M, .access = NEURON_REG_READ | NEURON_REG_WRITE,
	  .unit_size = SZ_4M, .units_per_nc = 3 },
	{ .offset = 0x30000000, .size = 0x00fa0000, .access = NEURON_REG_READ },
	{ .offset = 0x30fa1000, .size = 0x0f05f000, .access = NEURON_REG_READ },
};

/*
 * Special resources: each core's semaphore window and state buffer, each
 * TOP_SP's semaphore window and whole block (read only), at the mmap
 * offsets the runtime knows them by.  No HBM window.
 */
static const struct neuron_dhal_resource v2_resources[] = {
	{ .block = NEURON_DM_BLOCK_TPB, .resource = NEURON_DM_RESOURCE_SEMAPHORE,
	  .count = 2, .per_group = 2, .offset = 0xfffc2700000ULL, .stride = SZ_64M,
	  .size = 0x2000, .bar_offset = 0x2700000, .bar_stride = SZ_64M },
	{ .block = NEURON_DM_BLOCK_TPB, .resource = NEURON_DM_RESOURCE_SBUF,
	  .count = 2, .per_group = 2, .offset = 0xfffc0000000ULL, .stride = SZ_64M,
	  .size = SZ_32M, .bar_offset = 0, .bar_stride = SZ_64M },
	{ .block = NEURON_DM_BLOCK_TOPSP, .resource = NEURON_DM_RESOURCE_SEMAPHORE,
	  .count = 6, .per_group = 6, .offset = 0xfffd0000000ULL, .stride = SZ_4M,
	  .size = 0x2000, .bar_offset = 0x10000000, .bar_stride = SZ_4M },
	{ .block = NEURON_DM_BLOCK_TOPSP, .resource = NEURON_DM_RESOURCE_ALL, .rdonly = true,
	  .count = 6, .per_group = 6, .offset = 0xfffd0000000ULL, .stride = SZ_4M,
	  .size = SZ_4M, .bar_offset = 0x10000000, .bar_stride = SZ_4M },
};

static const struct neuron_dhal_user v2_user = {
	.reg_windows = v2_reg_windows,
	.n_reg_windows = ARRAY_SIZE(v2_reg_windows),
	.resources = v2_resources,
	.n_resources = ARRAY_SIZE(v2_resources),
};

/* Notification-queue blocks: per core, per TOP_SP, per DMA engine. */
static const u64 v2_nq_nc_base[] = { 0x30535000, 0x30c35000 };
static const u64 v2_nq_trace_base[] = { 0x30401000, 0x30b01000 };

static const struct neuron_dhal_nq v2_nq = {
	.nc_base = v2_nq_nc_base,
	.ts_base = 0x30e04000,
	.ts_stride = 0x40000,
	.ts_per_group = 6,
	.trace_base = v2_nq_trace_base,
	.trace_stride = 0x7000,
};

/*
 * PE activity counters: each core's sequencer-cluster performance block
 * (0x305b1100, 0x30cb1100), groups of 0x40 bytes; matmul-active and idle
 * in group 4, fast weight-load in group 0 (+8).  Trn1 counts fast weight
 * loads only.
 */
static const u64 v2_pe_mm[] = { 0x305b1200, 0x30cb1200 };
static const u64 v2_pe_fast_wl[] = { 0x305b1108, 0x30cb1108 };
static const u64 v2_pe_idle[] = { 0x305b1210, 0x30cb1210 };

static const struct neuron_dhal_pe v2_pe = {
	.xbus_count = 5,
	.row_groups = 4,
	.col_groups = 4,
	.grp_size = 0x40,
	.mm = v2_pe_mm,
	.fast_wl = v2_pe_fast_wl,
	.idle = v2_pe_idle,
};

const struct neuron_dhal neuron_dhal_v2 = {
	.owner = THIS_MODULE,
	.name = KBUILD_MODNAME,
	.generation = 2,
	.archs = v2_archs,
	.n_archs = ARRAY_SIZE(v2_archs),
	.layout = &v2_layout,
	.mem = &v2_mem,
	.fw = &v2_fw,
	.user = &v2_user,
	.udma = &v2_udma,
	.nq = &v2_nq,
	.pe = &v2_pe,
};
EXPORT_SYMBOL_IF_KUNIT(neuron_dhal_v2);

module_neuron_dhal(neuron_dhal_v2);

NEURON_DHAL_ALIAS(7164);
NEURON_DHAL_PCI_ALIAS(7164);
NEURON_DHAL_ALIAS(7264);
NEURON_DHAL_PCI_ALIAS(7264);
MODULE_IMPORT_NS(NEURON_NS);
MODULE_DESCRIPTION("AWS Neuron driver: Trainium1 / Inferentia2 hardware abstraction");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
