// SPDX-License-Identifier: GPL-2.0
/*
 * DHAL for the fourth Neuron generation: Trainium3 (Trn3).  It is Trn2's
 * address map and firmware interface (include/neuron/dhal_v3_base.h, of
 * which this module has its own copy) with its own identity and larger HBM
 * regions.  The register windows user space may reach, the core reset map
 * and the NeuronCore numbering are v3's too.
 */

#include <linux/module.h>
#include <linux/sizes.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/dhal_v3_base.h>
#include <neuron/version.h>

static const struct neuron_dhal_arch v4_archs[] = {
	{
		.pci_device = 0x7564,
		.arch_type = "NDv4",
		.nc_arch_type = "NCv4",
		.instance_type = "Trn3",
		.device_name = "Trainium3",
		.topology = neuron_dhal_v3_topology,
		.n_topology = ARRAY_SIZE(neuron_dhal_v3_topology),
	},
	{
		.pci_device = 0x7565,
		.arch_type = "NDv4",
		.nc_arch_type = "NCv4",
		.instance_type = "Trn3",
		.device_name = "Trainium3",
		.topology = neuron_dhal_v3_topology,
		.n_topology = ARRAY_SIZE(neuron_dhal_v3_topology),
	},
};

static const struct neuron_dhal_mem v4_mem = {
	.hbm_count = ARRAY_SIZE(neuron_dhal_v3_hbm_base),
	.hbm_base = neuron_dhal_v3_hbm_base,
	.hbm_size = { 36ULL * SZ_1G, 36ULL * SZ_1G, 36ULL * SZ_1G, 36ULL * SZ_1G },
	.carveout = 16 * SZ_1M,
};

/* v4's DMA engines are v3's with a second S2M write-outstanding limit. */
static const struct neuron_udma_gen v4_udma = {
	.generation = 4,
	NEURON_DHAL_V3_UDMA,
	.s2m_wr_outstanding2 = 256,
};

/*
 * DMI product names of hosts that are not standard ones (the reference
 * 2.29's map, and trn3s): trn3e hosts are switched pods of one node each
 * (the reference's platform type MAX, whose class files are the PDS set).
 */
static const struct neuron_dhal_platform v4_platforms[] = {
	{ "trn3s.48xlarge", false, NEURON_PLATFORM_PDS },
	{ "trn3.48xlarge", false, NEURON_PLATFORM_PDS },
	{ "trn3p.48xlarge", false, NEURON_PLATFORM_ULTRASERVER },
	{ "trn3e.24xlarge", false, NEURON_PLATFORM_PDS, 1 },
	{ "trn3e-dev0", true, NEURON_PLATFORM_PDS, 1 },
	{ "trn3-dev0", true, NEURON_PLATFORM_PDS },
	{ "trn3-dev1", true, NEURON_PLATFORM_PDS },
};

/*
 * The election is v3's with other neighbour engines; only force_userver
 * makes a v4 node an UltraServer.  No die flip is known for v4.
 */
static const struct neuron_dhal_pod v4_pod = {
	.platforms = v4_platforms,
	.n_platforms = ARRAY_SIZE(v4_platforms),
	.electable = true,
	.nbr_engines = { { 40, 72 }, { 8, 104 } },
	NEURON_DHAL_V3_NBR_WINDOWS,
};

const struct neuron_dhal neuron_dhal_v4 = {
	.owner = THIS_MODULE,
	.name = KBUILD_MODNAME,
	.generation = 4,
	.archs = v4_archs,
	.n_archs = ARRAY_SIZE(v4_archs),
	.layout = &neuron_dhal_v3_layout,
	.mem = &v4_mem,
	.fw = &neuron_dhal_v3_fw,
	.user = &neuron_dhal_v3_user,
	.udma = &v4_udma,
	.nq = &neuron_dhal_v3_nq,
	.pe = &neuron_dhal_v3_pe,
	.pod = &v4_pod,
};
EXPORT_SYMBOL_IF_KUNIT(neuron_dhal_v4);

module_neuron_dhal(neuron_dhal_v4);

NEURON_DHAL_ALIAS(7564);
NEURON_DHAL_PCI_ALIAS(7564);
NEURON_DHAL_ALIAS(7565);
NEURON_DHAL_PCI_ALIAS(7565);
MODULE_IMPORT_NS(NEURON_NS);
MODULE_DESCRIPTION("AWS Neuron driver: Trainium3 hardware abstraction");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
