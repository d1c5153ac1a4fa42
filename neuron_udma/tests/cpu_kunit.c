// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which copies the CPU does instead of the engine
 * (neuron_dma_cpu_threshold(), dma_cpu.c): each direction by its own
 * parameter and the bus's cap, a copy within device memory by both, 0
 * turning either off, and never above NEURON_DMA_CPU_LIMIT.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include <neuron/compat.h>

#include "../dma.h"

static void udma_cpu_threshold(struct kunit *test)
{
	/* Into device memory: the write parameter and cap only. */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 0, 0, U32_MAX, false, true), 4096);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 9, 9, 8192, false, true), 4096);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(16384, 9, 9, 8192, false, true), 8192);
	/* Out of it: the read ones. */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(0, 2048, U32_MAX, 0, true, false), 2048);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(9, 2048, 64, 9, true, false), 64);
	/* Within it: the smallest of the four. */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 2048, U32_MAX, U32_MAX, true, true),
			2048);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 8192, 64, 8192, true, true), 64);
	/* 0 turns a direction off, and a copy within device memory with it. */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(0, 4096, U32_MAX, U32_MAX, false, true), 0);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 0, U32_MAX, U32_MAX, true, false), 0);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(0, 4096, U32_MAX, U32_MAX, true, true), 0);
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 4096, U32_MAX, 0, true, true), 0);
	/* A bus without CPU access (cap 0). */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 4096, 0, 0, false, true), 0);
	/* No device memory involved: not the CPU path's business. */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(4096, 4096, U32_MAX, U32_MAX, false, false),
			0);
	/* Never above the limit, whatever the inputs. */
	KUNIT_EXPECT_EQ(test, neuron_dma_cpu_threshold(U32_MAX, U32_MAX, U32_MAX, U32_MAX, true,
						       true), NEURON_DMA_CPU_LIMIT);
}

static struct kunit_case udma_cpu_cases[] = {
	KUNIT_CASE(udma_cpu_threshold),
	{}
};

static struct kunit_suite udma_cpu_suite = {
	.name = "neuron_udma_cpu",
	.test_cases = udma_cpu_cases,
};

kunit_test_suite(udma_cpu_suite);
