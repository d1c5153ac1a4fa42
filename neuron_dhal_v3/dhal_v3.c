// SPDX-License-Identifier: GPL-2.0
/*
 * DHAL for the third Neuron generation: Trainium2 (Trn2).  Its address
 * map and firmware tables are exported for the fourth generation, which
 * shares them.
 */

#include <linux/module.h>
#include <linux/sizes.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>

#include "dhal_v3.h"

static const struct neuron_dhal_arch v3_archs[] = {
	{
		.pci_device = 0x7364,
		.arch_type = "NDv3",
		.nc_arch_type = "NCv3",
		.instance_type = "Trn2",
		.device_name = "Trainium2",
	},
};

const struct neuron_dhal_layout neuron_dhal_v3_layout = {
	.apb_bar = 0,
	.dram_bar = 4,
	.misc_ram_offset = 0x06c84000,
	.pci_host_base = 0x0000400000000000ULL,
	.nc_count = 8,
	.nc_map = 0xff,
	.dice = 2,
	.ts_count = 16,
	.dma_engines = 132,
	.dma_queues = 16,
};
EXPORT_SYMBOL_NS_GPL(neuron_dhal_v3_layout, NEURON_NS);

/* Device addresses of the four HBM regions. */
const u64 neuron_dhal_v3_hbm_base[4] = {
	0, 0x4000000000ULL, 0x800000000000ULL, 0x804000000000ULL
};
EXPORT_SYMBOL_NS_GPL(neuron_dhal_v3_hbm_base, NEURON_NS);

static const struct neuron_dhal_mem v3_mem = {
	.hbm_count = ARRAY_SIZE(neuron_dhal_v3_hbm_base),
	.hbm_base = neuron_dhal_v3_hbm_base,
	.hbm_size = { 24ULL * SZ_1G, 24ULL * SZ_1G, 24ULL * SZ_1G, 24ULL * SZ_1G },
	.carveout = 16 * SZ_1M,
};

const struct neuron_dhal_fw neuron_dhal_v3_fw = {
	.reset_poll_ms = 100,
	.reset_timeout_ms = 480000,
	.reset_resend_ms = 30000,
	.rt_compat_min = 10,
	.rt_compat_max = 11,
};
EXPORT_SYMBOL_NS_GPL(neuron_dhal_v3_fw, NEURON_NS);

static const struct neuron_dhal neuron_dhal_v3 = {
	.owner = THIS_MODULE,
	.name = KBUILD_MODNAME,
	.generation = 3,
	.archs = v3_archs,
	.n_archs = ARRAY_SIZE(v3_archs),
	.layout = &neuron_dhal_v3_layout,
	.mem = &v3_mem,
	.fw = &neuron_dhal_v3_fw,
};
module_neuron_dhal(neuron_dhal_v3);

NEURON_DHAL_ALIAS(7364);
MODULE_IMPORT_NS(NEURON_NS);
MODULE_DESCRIPTION("AWS Neuron driver: Trainium2 hardware abstraction");
MODULE_LICENSE("GPL");
