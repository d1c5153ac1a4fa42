// SPDX-License-Identifier: GPL-2.0
/*
 * Default generation knobs of the UDMA engines.
 *
 * TO BE MOVED: these tables belong in the DHAL modules (each DHAL gives
 * its &struct neuron_udma_gen to the core with the rest of its data).
 * Until the DHALs carry them, neuron_udma keeps one instance per
 * generation here, found by generation number.
 */

#include <linux/kernel.h>
#include <linux/module.h>

#include <neuron/compat.h>
#include <neuron/udma.h>

/* v2 (Trn1, Inf2): one group of 16 engines per NeuronCore, then 2 host engines. */
static const u64 udma_v2_group_base[] = { 0x30000000, 0x30700000 };
static const u64 udma_v2_extra_base[] = { 0x30600000, 0x30d00000 };

/* v3, v4: one group of 32 engines per SENG, then 4 host engines. */
static const u64 udma_v3_group_base[] = { 0x82000000, 0x94000000, 0xa2000000, 0xb4000000 };
static const u64 udma_v3_extra_base[] = { 0x06800000, 0x06900000, 0x46800000, 0x46900000 };
static const u64 udma_v3_fis_base[] = { 0x8c000000, 0x9c400000, 0xac000000, 0xbc400000 };

/* The engine geometry and settings v3 and v4 share. */
#define UDMA_V3_KNOBS						\
	.bar = 0,						\
	.engines = 132,						\
	.groups = ARRAY_SIZE(udma_v3_group_base),		\
	.group_engines = 32,					\
	.group_base = udma_v3_group_base,			\
	.stride = 0x100000,					\
	.extra_base = udma_v3_extra_base,			\
	.queues = 16,						\
	.num_beats = 2296,					\
	.m2s_axi_outstanding = 0x20808080,			\
	.s2m_rd_outstanding = 0x00400080,			\
	.max_descs_per_pkt = 65,				\
	.mask_ring_id_error = true,				\
	.fis_base = udma_v3_fis_base,				\
	.fis_stride = 0x20000,					\
	.sow = true

static const struct neuron_udma_gen udma_gens[] = {
	{
		.generation = 2,
		.bar = 0,
		.engines = 34,
		.groups = ARRAY_SIZE(udma_v2_group_base),
		.group_engines = 16,
		.group_base = udma_v2_group_base,
		.stride = 0x40000,
		.extra_base = udma_v2_extra_base,
		.queues = 16,
		.num_beats = 1024,
		.m2s_axi_outstanding = 0x0000086f,
		.s2m_rd_outstanding = 0x00400008,
		.max_descs_per_pkt = 65,
		.axi_error_abort = true,
	},
	{
		.generation = 3,
		UDMA_V3_KNOBS,
	},
	{
		/* v4 is v3 with a second S2M write-outstanding limit. */
		.generation = 4,
		UDMA_V3_KNOBS,
		.s2m_wr_outstanding2 = 256,
	},
};

/**
 * neuron_udma_gen_default() - built-in knobs of a generation
 * @generation: 2, 3 or 4
 *
 * Return: the knobs, or NULL for an unknown generation.
 */
const struct neuron_udma_gen *neuron_udma_gen_default(unsigned int generation)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(udma_gens); i++)
		if (udma_gens[i].generation == generation)
			return &udma_gens[i];
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(neuron_udma_gen_default, NEURON_NS);

/**
 * neuron_udma_engine_base() - register offset of an engine
 * @gen: the generation's knobs
 * @index: engine id
 * @base: where the BAR offset of the engine's register block goes
 *
 * Return: 0, or -EINVAL when @gen has no engine @index.
 */
int neuron_udma_engine_base(const struct neuron_udma_gen *gen, unsigned int index, u64 *base)
{
	u32 grouped = gen->groups * gen->group_engines;

	if (index >= gen->engines)
		return -EINVAL;
	if (index < grouped)
		*base = gen->group_base[index / gen->group_engines] +
			(index % gen->group_engines) * gen->stride;
	else
		*base = gen->extra_base[index - grouped];
	return 0;
}
EXPORT_SYMBOL_NS_GPL(neuron_udma_engine_base, NEURON_NS);
