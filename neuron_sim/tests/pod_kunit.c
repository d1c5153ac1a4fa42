// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: how the simulated DMA engines decode the B0 neighbour windows
 * (nsim_pod_window()): which link an engine's read reaches, per generation.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "nsim_kunit.h"

#define MISC	0x8006c84000ULL

/* Each neighbour engine reads its link through its own group's window. */
static void sim_pod_window_links(struct kunit *test)
{
	static const struct {
		u8 gen;
		unsigned int eng[2][2];
	} gens[] = {
		{ 3, { { 36, 68 }, { 4, 100 } } },
		{ 4, { { 40, 72 }, { 8, 104 } } },
	};
	static const u64 window[4] = { 0x10ULL << 48, 0x14ULL << 48, 0x18ULL << 48,
				       0x1cULL << 48 };
	unsigned int g, link, k;
	u32 off;

	for (g = 0; g < ARRAY_SIZE(gens); g++) {
		for (link = 0; link < 2; link++) {
			for (k = 0; k < 2; k++) {
				unsigned int e = gens[g].eng[link][k];

				off = 0;
				KUNIT_EXPECT_EQ_MSG(test, (int)link,
						    nsim_pod_window(gens[g].gen, e,
								    window[e / 32] + MISC + 0x190,
								    4, &off),
						    "v%u engine %u", gens[g].gen, e);
				KUNIT_EXPECT_EQ(test, 0x190U, off);
				/* Another group's window is no window of this engine's. */
				KUNIT_EXPECT_EQ(test, -EINVAL,
						nsim_pod_window(gens[g].gen, e,
								window[(e / 32 + 1) % 4] + MISC,
								4, &off));
			}
		}
		/* A group engine that is no neighbour engine. */
		KUNIT_EXPECT_EQ(test, -EINVAL,
				nsim_pod_window(gens[g].gen, 37, window[1] + MISC, 4, &off));
	}
}

static void sim_pod_window_bounds(struct kunit *test)
{
	u64 w = 0x14ULL << 48;
	u32 off;

	/* Last word of MiscRAM; one byte more, and past it. */
	KUNIT_EXPECT_EQ(test, 0, nsim_pod_window(3, 36, w + MISC + 0xffc, 4, &off));
	KUNIT_EXPECT_EQ(test, -EINVAL, nsim_pod_window(3, 36, w + MISC + 0xffc, 5, &off));
	KUNIT_EXPECT_EQ(test, -ENOENT, nsim_pod_window(3, 36, w + MISC + 0x1000, 4, &off));
	KUNIT_EXPECT_EQ(test, -ENOENT, nsim_pod_window(3, 36, w + MISC - 4, 4, &off));
	/* Device memory and host memory are no windows. */
	KUNIT_EXPECT_EQ(test, -ENOENT, nsim_pod_window(3, 36, 0x1000, 4, &off));
	KUNIT_EXPECT_EQ(test, -ENOENT, nsim_pod_window(3, 36, BIT_ULL(46) | 0x1000, 4, &off));
	KUNIT_EXPECT_EQ(test, -ENOENT, nsim_pod_window(3, 36, (0x12ULL << 48) + MISC, 4, &off));
	/* v2 has no neighbour engines. */
	KUNIT_EXPECT_EQ(test, -EINVAL, nsim_pod_window(2, 36, w + MISC, 4, &off));
}

static struct kunit_case sim_pod_cases[] = {
	KUNIT_CASE(sim_pod_window_links),
	KUNIT_CASE(sim_pod_window_bounds),
	{}
};

static struct kunit_suite sim_pod_suite = {
	.name = "neuron_sim_pod",
	.test_cases = sim_pod_cases,
};

kunit_test_suite(sim_pod_suite);
