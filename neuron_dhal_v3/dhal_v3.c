// SPDX-License-Identifier: GPL-2.0
/*
 * DHAL for the third Neuron generation: Trainium2 (Trn2).  Its address
 * map and firmware tables (include/neuron/dhal_v3_base.h) are shared with
 * the fourth generation by source, not by linking.
 */

#include <linux/bits.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/dhal_v3_base.h>
#include <neuron/version.h>

static const struct neuron_dhal_arch v3_archs[] = {
	{
		.pci_device = 0x7364,
		.arch_type = "NDv3",
		.nc_arch_type = "NCv3",
		.instance_type = "Trn2",
		.device_name = "Trainium2",
		.topology = neuron_dhal_v3_topology,
		.n_topology = ARRAY_SIZE(neuron_dhal_v3_topology),
	},
};

static const struct neuron_udma_gen v3_udma = {
	.generation = 3,
	NEURON_DHAL_V3_UDMA,
};

static const struct neuron_dhal_mem v3_mem = {
	.hbm_count = ARRAY_SIZE(neuron_dhal_v3_hbm_base),
	.hbm_base = neuron_dhal_v3_hbm_base,
	.hbm_size = { 24ULL * SZ_1G, 24ULL * SZ_1G, 24ULL * SZ_1G, 24ULL * SZ_1G },
	.carveout = 16 * SZ_1M,
};

/* DMI product names of hosts that are not standard ones. */
static const struct neuron_dhal_platform v3_platforms[] = {
	{ "trn2p.48xlarge", false, NEURON_PLATFORM_ULTRASERVER },
	{ "trn2eu.48xlarge", false, NEURON_PLATFORM_ULTRASERVER },
	{ "trn2u.48xlarge", false, NEURON_PLATFORM_ULTRASERVER },
	{ "trn2u-ac.24xlarge", false, NEURON_PLATFORM_ULTRASERVER },
	{ "trn2es.48xlarge", false, NEURON_PLATFORM_PDS },
};

static const struct neuron_dhal_pod v3_pod = {
	.platforms = v3_platforms,
	.n_platforms = ARRAY_SIZE(v3_platforms),
	.electable = true,
	.die_flip = 0x6,
	.nbr_engines = { { 36, 68 }, { 4, 100 } },
	NEURON_DHAL_V3_NBR_WINDOWS,
};

const struct neuron_dhal neuron_dhal_v3 = {
	.owner = THIS_MODULE,
	.name = KBUILD_MODNAME,
	.generation = 3,
	.archs = v3_archs,
	.n_archs = ARRAY_SIZE(v3_archs),
	.layout = &neuron_dhal_v3_layout,
	.mem = &v3_mem,
	.fw = &neuron_dhal_v3_fw,
	.user = &neuron_dhal_v3_user,
	.udma = &v3_udma,
	.nq = &neuron_dhal_v3_nq,
	.pe = &neuron_dhal_v3_pe,
	.pod = &v3_pod,
};
EXPORT_SYMBOL_IF_KUNIT(neuron_dhal_v3);
module_neuron_dhal(neuron_dhal_v3);

NEURON_DHAL_ALIAS(7364);
NEURON_DHAL_PCI_ALIAS(7364);
MODULE_IMPORT_NS(NEURON_NS);
MODULE_DESCRIPTION("AWS Neuron driver: Trainium2 hardware abstraction");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
