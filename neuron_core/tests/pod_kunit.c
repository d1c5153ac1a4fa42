// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the pure rules of pods (pod.c): node ids from the neighbours'
 * serial numbers, the modes a pod supports, the modal views, and the
 * platform a DMI product name means.
 */

#include <kunit/test.h>
#include <linux/kernel.h>

#include <neuron/compat.h>
#include <neuron/neuron_driver_shared.h>

#include "../pod.h"

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

static struct kunit_case pod_cases[] = {
	KUNIT_CASE(pod_four_node_ids),
	KUNIT_CASE(pod_two_node_ids),
	KUNIT_CASE(pod_modes),
	KUNIT_CASE(pod_modal_views),
	KUNIT_CASE(pod_platform_names),
	{}
};

static struct kunit_suite pod_suite = {
	.name = "neuron_core_pod",
	.test_cases = pod_cases,
};

kunit_test_suite(pod_suite);
