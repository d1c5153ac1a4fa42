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
#include <neuron/udma.h>

static const struct neuron_dhal_arch v2_archs[] = {
	{
		.pci_device = 0x7164,
		.arch_type = "NDv2",
		.nc_arch_type = "NCv2",
		.instance_type = "Trn1",
		.device_name = "Trainium1",
	},
	{
		.pci_device = 0x7264,
		/* Inf2 has always reported NDv3 here; tools rely on it. */
		.arch_type = "NDv3",
		.nc_arch_type = "NCv2",
		.instance_type = "Inf2",
		.device_name = "Inferentia2",
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
};

/*
 * BAR 0 as user space may reach it: the two NeuronCore windows (64 MiB each:
 * state buffer, events, semaphores) and the six TOP_SP blocks (4 MiB each)
 * read and write; the APB register space read only, without the firmware
 * MiscRAM block (mailbox, reset and doorbell registers).  Engine and queue
 * programming registers live in the APB space, so they are never writable.
 */
static const struct neuron_dhal_reg_window v2_reg_windows[] = {
	{ 0x00000000, 2 * SZ_64M, NEURON_REG_READ | NEURON_REG_WRITE },
	{ 0x10000000, 6 * SZ_4M, NEURON_REG_READ | NEURON_REG_WRITE },
	{ 0x30000000, 0x00fa0000, NEURON_REG_READ },
	{ 0x30fa1000, 0x0f05f000, NEURON_REG_READ },
};

static const struct neuron_dhal_user v2_user = {
	.reg_windows = v2_reg_windows,
	.n_reg_windows = ARRAY_SIZE(v2_reg_windows),
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
};
EXPORT_SYMBOL_IF_KUNIT(neuron_dhal_v2);

module_neuron_dhal(neuron_dhal_v2);

NEURON_DHAL_ALIAS(7164);
NEURON_DHAL_PCI_ALIAS(7164);
NEURON_DHAL_ALIAS(7264);
NEURON_DHAL_PCI_ALIAS(7264);
MODULE_IMPORT_NS(NEURON_NS);
MODULE_DESCRIPTION("AWS Neuron driver: Trainium1 / Inferentia2 hardware abstraction");
MODULE_LICENSE("GPL");
