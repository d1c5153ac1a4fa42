// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the register windows of BAR_READ and BAR_WRITE (ioctl_bar.c).
 * The lookup of a register's window and core, on hand-made tables, and
 * then on every generation's own tables: each NeuronCore block and each
 * TOP_SP block the DHAL lets user space map must belong to the core that
 * owns it, and every writable register to some core.  (The DHAL modules'
 * descriptors are exported for KUnit; loading the tests loads them, with
 * PCI ids no test device uses.)
 */

#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/sizes.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/neuron_driver_shared.h>

#include "../device/device.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

#define RW	(NEURON_REG_READ | NEURON_REG_WRITE)

/* Whether @off is refused for @access; *@nc untouched then. */
static void expect_refused(struct kunit *test, const struct neuron_dhal_user *u, u64 off,
			   u32 access)
{
	int nc = 12345;

	KUNIT_EXPECT_EQ_MSG(test, -EPERM, neuron_reg_window_lookup(u, off, access, &nc),
			    "offset %#llx, access %u", off, access);
	KUNIT_EXPECT_EQ(test, 12345, nc);
}

/* @off is reachable for @access and belongs to core @want (-1: none). */
static void expect_core(struct kunit *test, const struct neuron_dhal_user *u, u64 off,
			u32 access, int want)
{
	int nc = 12345;

	KUNIT_EXPECT_EQ_MSG(test, 0, neuron_reg_window_lookup(u, off, access, &nc),
			    "offset %#llx, access %u", off, access);
	KUNIT_EXPECT_EQ_MSG(test, want, nc, "offset %#llx", off);
}

/* Windows with and without cores, a window starting at a later block, bad data. */
static void bar_lookup_rules(struct kunit *test)
{
	static const struct neuron_dhal_reg_window w[] = {
		/* No core: read only. */
		{ .offset = 0x0, .size = 0x1000, .access = NEURON_REG_READ },
		/* Four cores, one 64 KiB block each. */
		{ .offset = 0x100000, .size = 4 * SZ_64K, .access = RW,
		  .unit_size = SZ_64K, .units_per_nc = 1 },
		/* TOP_SPs 6-11 of 4 KiB, three per core: cores 2 and 3. */
		{ .offset = 0x200000, .size = 6 * SZ_4K, .access = RW,
		  .unit_size = SZ_4K, .first_unit = 6, .units_per_nc = 3 },
		/* Malformed: blocks of no core, or of cores no device has. */
		{ .offset = 0x300000, .size = SZ_4K, .access = RW, .unit_size = SZ_4K },
		{ .offset = 0x400000, .size = 2 * SZ_4K, .access = RW,
		  .unit_size = SZ_4K, .first_unit = NEURON_MAX_NC - 1, .units_per_nc = 1 },
	};
	static const struct neuron_dhal_user u = { .reg_windows = w, .n_reg_windows = 5 };

	expect_core(test, &u, 0x0, NEURON_REG_READ, -1);
	expect_core(test, &u, 0xffc, NEURON_REG_READ, -1);
	expect_refused(test, &u, 0x0, NEURON_REG_WRITE);
	expect_refused(test, &u, 0x1000, NEURON_REG_READ);

	expect_core(test, &u, 0x100000, RW, 0);
	expect_core(test, &u, 0x100000 + SZ_64K - 4, NEURON_REG_WRITE, 0);
	expect_core(test, &u, 0x100000 + SZ_64K, NEURON_REG_READ, 1);
	expect_core(test, &u, 0x100000 + 2 * SZ_64K + 0x2700, NEURON_REG_WRITE, 2);
	expect_core(test, &u, 0x100000 + 4 * SZ_64K - 4, NEURON_REG_READ, 3);
	expect_refused(test, &u, 0x100000 + 4 * SZ_64K, NEURON_REG_READ);
	expect_refused(test, &u, 0x100000 - 4, NEURON_REG_READ);

	expect_core(test, &u, 0x200000, NEURON_REG_READ, 2);
	expect_core(test, &u, 0x200000 + 3 * SZ_4K - 4, NEURON_REG_READ, 2);
	expect_core(test, &u, 0x200000 + 3 * SZ_4K, NEURON_REG_WRITE, 3);
	expect_core(test, &u, 0x200000 + 6 * SZ_4K - 4, NEURON_REG_WRITE, 3);

	/* Refused rather than left open. */
	expect_refused(test, &u, 0x300000, NEURON_REG_READ);
	expect_core(test, &u, 0x400000, NEURON_REG_READ, NEURON_MAX_NC - 1);
	expect_refused(test, &u, 0x400000 + SZ_4K, NEURON_REG_READ);

	/* A generation without windows reaches nothing. */
	expect_refused(test, NULL, 0x0, NEURON_REG_READ);
}

/* Check one generation's windows against its layout and resources. */
static void bar_check_dhal(struct kunit *test, const struct neuron_dhal *d)
{
	const struct neuron_dhal_layout *l = d->layout;
	const struct neuron_dhal_user *u = d->user;
	unsigned int i, id, n, ts_seen = 0;
	u64 off, last;
	int nc;

	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_GT(test, l->nc_count, 0U);
	KUNIT_ASSERT_NE(test, l->nc_block_stride, 0ULL);
	KUNIT_ASSERT_EQ(test, l->ts_count % l->nc_count, 0U);

	/* Core n's block belongs to core n, first register to last. */
	for (n = 0; n < l->nc_count; n++) {
		off = l->nc_block_base + n * l->nc_block_stride;
		expect_core(test, u, off, RW, n);
		expect_core(test, u, off + 0x2700000, RW, n);
		expect_core(test, u, off + l->nc_block_stride - 4, RW, n);
	}

	/* Each TOP_SP's whole block belongs to its core. */
	for (i = 0; i < u->n_resources; i++) {
		const struct neuron_dhal_resource *e = &u->resources[i];

		if (e->block != NEURON_DM_BLOCK_TOPSP || e->resource != NEURON_DM_RESOURCE_ALL)
			continue;
		KUNIT_ASSERT_EQ(test, (u32)e->count, l->ts_count);
		for (id = 0; id < e->count; id++) {
			off = e->bar_offset + id / e->per_group * e->bar_group_stride +
			      id % e->per_group * e->bar_stride;
			n = id / (l->ts_count / l->nc_count);
			expect_core(test, u, off, RW, n);
			expect_core(test, u, off + e->size - 4, RW, n);
			ts_seen++;
		}
	}
	KUNIT_EXPECT_EQ(test, ts_seen, l->ts_count);

	/* Every writable register belongs to a core the device has. */
	for (i = 0; i < u->n_reg_windows; i++) {
		const struct neuron_dhal_reg_window *w = &u->reg_windows[i];

		if (!(w->access & NEURON_REG_WRITE)) {
			KUNIT_EXPECT_EQ_MSG(test, 0ULL, w->unit_size, "window %#llx", w->offset);
			expect_core(test, u, w->offset, NEURON_REG_READ, -1);
			continue;
		}
		KUNIT_ASSERT_NE_MSG(test, 0ULL, w->unit_size, "window %#llx", w->offset);
		KUNIT_EXPECT_EQ(test, w->size, div64_u64(w->size, w->unit_size) * w->unit_size);
		last = w->offset + w->size - 4;
		for (off = w->offset; off <= last; off += w->unit_size) {
			KUNIT_ASSERT_EQ(test, 0, neuron_reg_window_lookup(u, off, RW, &nc));
			KUNIT_EXPECT_LT_MSG(test, nc, (int)l->nc_count, "offset %#llx", off);
			KUNIT_EXPECT_GE(test, nc, 0);
		}
	}
}

static void bar_v2_windows(struct kunit *test)
{
	bar_check_dhal(test, &neuron_dhal_v2);
	/* TOP_SPs 0-2 are core 0's, 3-5 core 1's. */
	expect_core(test, neuron_dhal_v2.user, 0x10000000 + 3 * SZ_4M - 4, RW, 0);
	expect_core(test, neuron_dhal_v2.user, 0x10000000 + 3 * SZ_4M, RW, 1);
}

static void bar_v3_windows(struct kunit *test)
{
	bar_check_dhal(test, &neuron_dhal_v3);
	/* The second group starts at TOP_SP 8, core 4's. */
	expect_core(test, neuron_dhal_v3.user, 0xf2000000 - 4, RW, 3);
	expect_refused(test, neuron_dhal_v3.user, 0xf2000000, NEURON_REG_READ);
	expect_core(test, neuron_dhal_v3.user, 0xf2800000, RW, 4);
	expect_core(test, neuron_dhal_v3.user, 0xf2800000 + 8 * SZ_4M - 4, RW, 7);
}

static void bar_v4_windows(struct kunit *test)
{
	bar_check_dhal(test, &neuron_dhal_v4);
}

static struct kunit_case bar_cases[] = {
	KUNIT_CASE(bar_lookup_rules),
	KUNIT_CASE(bar_v2_windows),
	KUNIT_CASE(bar_v3_windows),
	KUNIT_CASE(bar_v4_windows),
	{}
};

static struct kunit_suite bar_suite = {
	.name = "neuron_core_bar",
	.test_cases = bar_cases,
};

kunit_test_suite(bar_suite);
