// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the pure rules of pods (pod.c): node ids from the neighbours'
 * serial numbers, the modes a pod supports, the modal views, the
 * platform a DMI product name means, and where each generation reads a
 * neighbour's MiscRAM.
 */

#include <kunit/test.h>
#include <linux/kernel.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/neuron_driver_shared.h>

#include "../cores/pod.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

/*
 * A four-node ring: left links pair A-B and C-D, right links A-D and B-C.
 * Each node's diagonal is its left neighbour's right neighbour.
 */
static void pod_four_node_ids(struct kunit *test)
{
	/* Serials of A, B, C, D; C leads. */
	static const u64 s[4] = { 0x50, 0x40, 0x10, 0x30 };
	static const int left[4] = { 1, 0, 3, 2 }, right[4] = { 3, 2, 1, 0 };
	static const int want[4] = { 2, 3, 0, 1 };
	u64 serial;
	u32 cnt;
	int n, id;

	for (n = 0; n < 4; n++) {
		int diag = right[left[n]];

		KUNIT_ASSERT_EQ(test, 0, neuron_pod_node_id(s[n], s[left[n]], s[right[n]],
							    s[diag], NEURON_POD_BOTH,
							    &id, &cnt, &serial));
		KUNIT_EXPECT_EQ_MSG(test, want[n], id, "node %d", n);
		KUNIT_EXPECT_EQ(test, 4U, cnt);
		KUNIT_EXPECT_EQ(test, 0x10ULL, serial);
	}
}

static void pod_two_node_ids(struct kunit *test)
{
	u64 serial;
	u32 cnt;
	int id;

	/* Both links to the same node. */
	KUNIT_ASSERT_EQ(test, 0, neuron_pod_node_id(0x20, 0x30, 0x30, 0, NEURON_POD_BOTH,
						    &id, &cnt, &serial));
	KUNIT_EXPECT_EQ(test, 0, id);
	KUNIT_EXPECT_EQ(test, 2U, cnt);
	KUNIT_EXPECT_EQ(test, 0x20ULL, serial);
	/* Lame duck on the right link: the left one is ignored. */
	KUNIT_ASSERT_EQ(test, 0, neuron_pod_node_id(0x20, 0x5, 0x10, 0x7, NEURON_POD_RIGHT,
						    &id, &cnt, &serial));
	KUNIT_EXPECT_EQ(test, 1, id);
	KUNIT_EXPECT_EQ(test, 0x10ULL, serial);
	KUNIT_ASSERT_EQ(test, 0, neuron_pod_node_id(0x20, 0x5, 0x10, 0x7, NEURON_POD_LEFT,
						    &id, &cnt, &serial));
	KUNIT_EXPECT_EQ(test, 1, id);
	KUNIT_EXPECT_EQ(test, 0x5ULL, serial);
	/* Not a pod: a neighbour with our own serial, no links, a repeated serial. */
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_pod_node_id(0x20, 0x20, 0x20, 0, NEURON_POD_BOTH,
							  &id, &cnt, &serial));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_pod_node_id(0x20, 0x30, 0x40, 0x50, 0,
							  &id, &cnt, &serial));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_pod_node_id(0x20, 0x30, 0x40, 0x30,
							  NEURON_POD_BOTH, &id, &cnt, &serial));
}

static void pod_modes(struct kunit *test)
{
	struct neuron_pod_view v = { .node_cnt = 4, .lr_mask = NEURON_POD_BOTH };
	u32 x1 = BIT(NEURON_ULTRASERVER_MODE_X1), x4 = BIT(NEURON_ULTRASERVER_MODE_X4);
	u32 x2h = BIT(NEURON_ULTRASERVER_MODE_X2H), x2v = BIT(NEURON_ULTRASERVER_MODE_X2V);

	KUNIT_EXPECT_EQ(test, x4 | x2v | x1, neuron_pod_modes_supported(&v));
	v.node_cnt = 2;
	KUNIT_EXPECT_EQ(test, x2h | x2v | x1, neuron_pod_modes_supported(&v));
	v.lr_mask = NEURON_POD_RIGHT;
	KUNIT_EXPECT_EQ(test, x2h | x1, neuron_pod_modes_supported(&v));
	v.lr_mask = NEURON_POD_LEFT;
	KUNIT_EXPECT_EQ(test, x2v | x1, neuron_pod_modes_supported(&v));
	v.node_cnt = 0;
	KUNIT_EXPECT_EQ(test, x1, neuron_pod_modes_supported(&v));
}

static void pod_modal_views(struct kunit *test)
{
	static const int x2h[4] = { 0, 0, 1, 1 }, x2v[4] = { 0, 1, 0, 1 };
	struct neuron_pod_view v = { .node_cnt = 4, .serial = 0x100 };
	u64 serial;
	u32 cnt;
	int id, n;

	for (n = 0; n < 4; n++) {
		v.node_id = n;
		neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_X4, &id, &cnt, &serial);
		KUNIT_EXPECT_EQ(test, n, id);
		KUNIT_EXPECT_EQ(test, 4U, cnt);
		KUNIT_EXPECT_EQ(test, 0x100ULL, serial);
		neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_X2H, &id, &cnt, &serial);
		KUNIT_EXPECT_EQ(test, x2h[n], id);
		KUNIT_EXPECT_EQ(test, 2U, cnt);
		KUNIT_EXPECT_EQ(test, n == 1 || n == 3 ? 0xffULL : 0x100ULL, serial);
		neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_X2V, &id, &cnt, &serial);
		KUNIT_EXPECT_EQ(test, x2v[n], id);
		KUNIT_EXPECT_EQ(test, n >= 2 ? 0xffULL : 0x100ULL, serial);
		neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_X1, &id, &cnt, &serial);
		KUNIT_EXPECT_EQ(test, -1, id);
		KUNIT_EXPECT_EQ(test, 0U, cnt);
		KUNIT_EXPECT_EQ(test, 0ULL, serial);
		neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_UNSET, &id, &cnt, &serial);
		KUNIT_EXPECT_EQ(test, n, id);
		KUNIT_EXPECT_EQ(test, 4U, cnt);
	}
	/* A two-node pod: X4 sees nothing, the two-node modes see it as it is. */
	v.node_cnt = 2;
	v.node_id = 1;
	neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_X4, &id, &cnt, &serial);
	KUNIT_EXPECT_EQ(test, -1, id);
	KUNIT_EXPECT_EQ(test, 0U, cnt);
	KUNIT_EXPECT_EQ(test, 0ULL, serial);
	neuron_pod_modal(&v, NEURON_ULTRASERVER_MODE_X2H, &id, &cnt, &serial);
	KUNIT_EXPECT_EQ(test, 1, id);
	KUNIT_EXPECT_EQ(test, 2U, cnt);
	KUNIT_EXPECT_EQ(test, 0x100ULL, serial);
}

static void pod_platform_names(struct kunit *test)
{
	static const struct neuron_dhal_platform names[] = {
		{ "trn2u.48xlarge", false, NEURON_PLATFORM_ULTRASERVER },
		{ "trn2es.48xlarge", false, NEURON_PLATFORM_PDS },
		{ "trn3-dev0", true, NEURON_PLATFORM_PDS },
	};
	static const struct neuron_dhal_pod dp = {
		.platforms = names, .n_platforms = ARRAY_SIZE(names),
	};

	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_ULTRASERVER,
			neuron_pod_platform_lookup(&dp, "trn2u.48xlarge"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_STD,
			neuron_pod_platform_lookup(&dp, "trn2u.48xlarge2"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_PDS,
			neuron_pod_platform_lookup(&dp, "trn2es.48xlarge"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_PDS,
			neuron_pod_platform_lookup(&dp, "trn3-dev0.foo"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_STD,
			neuron_pod_platform_lookup(&dp, "Standard PC (i440FX + PIIX, 1996)"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_STD, neuron_pod_platform_lookup(&dp, NULL));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_STD, neuron_pod_platform_lookup(NULL, "x"));
}

/* trn3e: a switched pod of one node, whatever userver_pds_node_cnt says. */
static void pod_platform_trn3e(struct kunit *test)
{
	static const struct neuron_dhal_platform names[] = {
		{ "trn3e.24xlarge", false, NEURON_PLATFORM_PDS, 1 },
		{ "trn3e-dev0", true, NEURON_PLATFORM_PDS, 1 },
		{ "trn3-dev0", true, NEURON_PLATFORM_PDS },
	};
	static const struct neuron_dhal_pod dp = {
		.platforms = names, .n_platforms = ARRAY_SIZE(names),
	};

	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_PDS,
			neuron_pod_platform_lookup(&dp, "trn3e.24xlarge"));
	KUNIT_EXPECT_EQ(test, 1U, neuron_pod_platform_nodes(&dp, "trn3e.24xlarge"));
	KUNIT_EXPECT_EQ(test, 1U, neuron_pod_platform_nodes(&dp, "trn3e-dev0.x"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_PDS, neuron_pod_platform_lookup(&dp, "trn3-dev0"));
	KUNIT_EXPECT_EQ(test, 0U, neuron_pod_platform_nodes(&dp, "trn3-dev0"));
	KUNIT_EXPECT_EQ(test, 0U, neuron_pod_platform_nodes(&dp, "trn3e.48xlarge"));
	KUNIT_EXPECT_EQ(test, NEURON_PLATFORM_STD,
			neuron_pod_platform_lookup(&dp, "trn3e.48xlarge"));
	KUNIT_EXPECT_EQ(test, 0U, neuron_pod_platform_nodes(NULL, "trn3e.24xlarge"));
	KUNIT_EXPECT_EQ(test, 0U, neuron_pod_platform_nodes(&dp, NULL));
}

/*
 * The neighbour reads of v3 and v4, from the DHALs' data: the engine of
 * each link and its B0 window (0x10, 0x14, 0x18, 0x1c << 48 for engines
 * 0-31, 32-63, 64-95, 96-127), then MiscRAM at 0x8006c84000.
 */
static void pod_nbr_windows(struct kunit *test)
{
	static const struct {
		const struct neuron_dhal *dhal;
		u32 eng[2][2];
	} gens[] = {
		{ &neuron_dhal_v3, { { 36, 68 }, { 4, 100 } } },
		{ &neuron_dhal_v4, { { 40, 72 }, { 8, 104 } } },
	};
	static const u64 window[4] = {
		0x0010000000000000ULL, 0x0014000000000000ULL,
		0x0018000000000000ULL, 0x001c000000000000ULL,
	};
	unsigned int g, link, k;
	u32 eng;
	u64 addr;

	for (g = 0; g < ARRAY_SIZE(gens); g++) {
		const struct neuron_dhal_pod *dp = gens[g].dhal->pod;

		KUNIT_ASSERT_NOT_NULL(test, dp);
		for (link = 0; link < 2; link++) {
			for (k = 0; k < 2; k++) {
				u32 want = gens[g].eng[link][k];

				KUNIT_ASSERT_EQ(test, 0, neuron_pod_nbr_addr(dp, link, k, 0x38,
									     &eng, &addr));
				KUNIT_EXPECT_EQ_MSG(test, want, eng, "v%u link %u engine %u",
						    g + 3, link, k);
				KUNIT_EXPECT_EQ_MSG(test, window[want / 32] + 0x8006c84038ULL, addr,
						    "v%u link %u engine %u", g + 3, link, k);
			}
		}
		/* Status word of the right link's second engine. */
		KUNIT_ASSERT_EQ(test, 0, neuron_pod_nbr_addr(dp, 1, 1, 0x190, &eng, &addr));
		KUNIT_EXPECT_EQ(test, 0x001c008006c84190ULL, addr);
		KUNIT_EXPECT_EQ(test, -EINVAL, neuron_pod_nbr_addr(dp, 2, 0, 0x38, &eng, &addr));
		KUNIT_EXPECT_EQ(test, -EINVAL, neuron_pod_nbr_addr(dp, 0, 2, 0x38, &eng, &addr));
		KUNIT_EXPECT_EQ(test, -EINVAL, neuron_pod_nbr_addr(dp, 0, 0, 0x3a, &eng, &addr));
	}
}

/* A generation without windows cannot read its neighbours. */
static void pod_nbr_no_window(struct kunit *test)
{
	static const struct neuron_dhal_pod dp = {
		.nbr_engines = { { 36, 68 }, { 4, 200 } },
		.nbr_window = { 0x10ULL << 48 },
	};
	u32 eng;
	u64 addr;

	KUNIT_EXPECT_EQ(test, 0, neuron_pod_nbr_addr(&dp, 1, 0, 0, &eng, &addr));
	KUNIT_EXPECT_EQ(test, 0x10ULL << 48, addr);
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, neuron_pod_nbr_addr(&dp, 0, 0, 0, &eng, &addr));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, neuron_pod_nbr_addr(&dp, 1, 1, 0, &eng, &addr));
}

static struct kunit_case pod_cases[] = {
	KUNIT_CASE(pod_four_node_ids),
	KUNIT_CASE(pod_two_node_ids),
	KUNIT_CASE(pod_modes),
	KUNIT_CASE(pod_modal_views),
	KUNIT_CASE(pod_platform_names),
	KUNIT_CASE(pod_platform_trn3e),
	KUNIT_CASE(pod_nbr_windows),
	KUNIT_CASE(pod_nbr_no_window),
	{}
};

static struct kunit_suite pod_suite = {
	.name = "neuron_core_pod",
	.test_cases = pod_cases,
};

kunit_test_suite(pod_suite);
