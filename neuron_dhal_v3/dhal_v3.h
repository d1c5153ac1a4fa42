/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The third generation's tables (v3_base.c), shared with the fourth.
 */
#ifndef _NEURON_DHAL_V3_H
#define _NEURON_DHAL_V3_H

#include <neuron/dhal.h>
#include <neuron/udma.h>

extern const struct neuron_dhal_layout neuron_dhal_v3_layout;
extern const struct neuron_dhal_fw neuron_dhal_v3_fw;
extern const struct neuron_dhal_user neuron_dhal_v3_user;
extern const struct neuron_dhal_nq neuron_dhal_v3_nq;
extern const struct neuron_dhal_pe neuron_dhal_v3_pe;
extern const struct neuron_dhal_topology neuron_dhal_v3_topology[1];
extern const u64 neuron_dhal_v3_hbm_base[4];
extern const u64 neuron_dhal_v3_udma_group_base[4];
extern const u64 neuron_dhal_v3_udma_extra_base[4];
extern const u64 neuron_dhal_v3_udma_fis_base[4];

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

#endif /* _NEURON_DHAL_V3_H */
