// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the device-memory range allocator (extent.c): argument checks,
 * placement (first fit, absolute alignment), rounding, coalescing,
 * exhaustion, overflow, the validation a free does, node accounting, a
 * walk over the free space a piece at a time, and random operations
 * checked against a bitmap model.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include <neuron/compat.h>

#include "../memory/extent.h"

#define SZ_G	0x1000ULL	/* the granule most tests use */

/**
 * struct range_fixture - the pool under test, destroyed after each case
 * @pool: the pool
 * @ready: @pool was initialised and not yet destroyed
 */
struct range_fixture {
	struct neuron_extent_pool pool;
	bool ready;
};

static int range_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct range_fixture), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void range_test_exit(struct kunit *test)
{
	struct range_fixture *fx = test->priv;

	if (fx && fx->ready)
		neuron_extent_destroy(&fx->pool);
}

/* (Re)initialise the fixture's pool; the case fails if that fails. */
static struct neuron_extent_pool *range_setup(struct kunit *test, u64 base, u64 size,
					      u64 granule)
{
	struct range_fixture *fx = test->priv;

	if (fx->ready)
		neuron_extent_destroy(&fx->pool);
	fx->ready = false;
	KUNIT_ASSERT_EQ(test, neuron_extent_init(&fx->pool, base, size, granule), 0);
	fx->ready = true;
	return &fx->pool;
}

static u64 range_alloc_ok(struct kunit *test, struct neuron_extent_pool *p, u64 size,
			  u64 align)
{
	u64 addr = 0;

	KUNIT_ASSERT_EQ_MSG(test, neuron_extent_alloc(p, size, align, &addr), 0,
			    "size %llx align %llx", size, align);
	return addr;
}

static void range_expect_consistent(struct kunit *test, const struct neuron_extent_pool *p)
{
	const char *why = neuron_extent_check_tree(p);

	KUNIT_EXPECT_NULL_MSG(test, why, "%s", why);
}

/* The pool is back to a single free extent covering all of it. */
static void range_expect_full(struct kunit *test, const struct neuron_extent_pool *p,
			      u64 size)
{
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), size);
	range_expect_consistent(test, p);
}

/* Start of the lowest free extent (U64_MAX when there is none). */
static u64 range_first_start(const struct neuron_extent_pool *p)
{
	struct rb_node *n = rb_first(&p->root);

	return n ? rb_entry(n, struct neuron_extent, rb)->start : U64_MAX;
}

static void range_init_errors(struct kunit *test)
{
	struct neuron_extent_pool p;

	/* Granule: a power of two. */
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0, SZ_G, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0, 3 * 3000, 3000), -EINVAL);
	/* Size: not 0, a multiple of the granule. */
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0, 0, SZ_G), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0, SZ_G + 1, SZ_G), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0, SZ_G / 2, SZ_G), -EINVAL);
	/* Base: a multiple of the granule. */
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0x800, SZ_G, SZ_G), -EINVAL);
	/* End: no wrap past 2^64. */
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0ULL - SZ_G, SZ_G, SZ_G), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_extent_init(&p, 0ULL - 2 * SZ_G, 4 * SZ_G, SZ_G), -EINVAL);
	/* A failed init leaves an empty pool: destroying it is harmless. */
	KUNIT_EXPECT_EQ(test, p.nodes, 0UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(&p), 0ULL);
	neuron_extent_destroy(&p);

	/* The highest pool that does not wrap, and a granule of one byte. */
	KUNIT_ASSERT_EQ(test, neuron_extent_init(&p, 0ULL - 2 * SZ_G, SZ_G, SZ_G), 0);
	range_expect_full(test, &p, SZ_G);
	neuron_extent_destroy(&p);
	KUNIT_ASSERT_EQ(test, neuron_extent_init(&p, 7, 13, 1), 0);
	range_expect_full(test, &p, 13);
	neuron_extent_destroy(&p);
}

static void range_alloc_free_simple(struct kunit *test)
{
	const u64 base = 0x100000, size = 0x100000;
	struct neuron_extent_pool *p = range_setup(test, base, size, SZ_G);
	u64 a, b;

	range_expect_full(test, p, size);

	a = range_alloc_ok(test, p, SZ_G, 0);
	KUNIT_EXPECT_EQ(test, a, base);
	b = range_alloc_ok(test, p, 3 * SZ_G, 0);
	KUNIT_EXPECT_EQ(test, b, base + SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - 4 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), size - 4 * SZ_G);
	range_expect_consistent(test, p);

	neuron_extent_free(p, a, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - 3 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 2UL);
	neuron_extent_free(p, b, 3 * SZ_G);
	range_expect_full(test, p, size);

	/* The same range comes back. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, size, 0), base);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 0UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 0ULL);
	neuron_extent_free(p, base, size);
	range_expect_full(test, p, size);
}

static void range_alloc_bad_args(struct kunit *test)
{
	struct neuron_extent_pool *p = range_setup(test, 0x10000, 0x10000, SZ_G);
	static const u64 bad_align[] = { 3, 6, 0x1800, SZ_G + 1, U64_MAX, (1ULL << 63) + 1 };
	u64 addr = 0x1234;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, 0, 0, &addr), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad_align); i++)
		KUNIT_EXPECT_EQ_MSG(test, neuron_extent_alloc(p, SZ_G, bad_align[i], &addr),
				    -EINVAL, "align %llx", bad_align[i]);
	/* Nothing changed, not even *addr. */
	KUNIT_EXPECT_EQ(test, addr, 0x1234ULL);
	range_expect_full(test, p, 0x10000);
}

static void range_alignment(struct kunit *test)
{
	/* A base on no alignment above 4 KiB: alignment is of the address. */
	const u64 base = 0x11000, size = 0x100000;
	struct neuron_extent_pool *p = range_setup(test, base, size, SZ_G);
	u64 a, addr = 0;

	a = range_alloc_ok(test, p, SZ_G, 0x10000);
	KUNIT_EXPECT_EQ(test, a, 0x20000ULL);
	/* Alignment 0, 1 and below the granule: the granule. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 1), base + SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0x800), base + 2 * SZ_G);
	/* Free: [0x14000, 0x20000) and [0x21000, 0x111000). */
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 2UL);
	/* 8 KiB at 8 KiB: the first extent has such a place, at 0x14000. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 2 * SZ_G, 0x2000), 0x14000ULL);
	/* 8 KiB at 128 KiB: none in the first extent; 0x40000 in the second. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 2 * SZ_G, 0x20000), 0x40000ULL);
	/* 64 KiB at 64 KiB: 0x30000 fits exactly below 0x40000. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 0x10000, 0x10000), 0x30000ULL);
	range_expect_consistent(test, p);

	/* No address of the pool is aligned to 2 MiB or more. */
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 0x200000, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 1ULL << 40, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 1ULL << 63, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, addr, 0ULL);

	/* Exactly one 2 MiB-aligned 2 MiB range: the whole pool. */
	p = range_setup(test, 0x200000, 0x200000, SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 0x200000, 0x200000), 0x200000ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
	neuron_extent_free(p, 0x200000, 0x200000);
	range_expect_full(test, p, 0x200000);

	/* An alignment larger than the pool is met by a base at 0. */
	p = range_setup(test, 0, 0x10000, SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 1ULL << 40), 0ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 1ULL << 40, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0x8000), 0x8000ULL);
	range_expect_consistent(test, p);
}

/* Fill a pool of @n granules with one-granule allocations; check their order. */
static void range_fill(struct kunit *test, struct neuron_extent_pool *p, u64 base,
		       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + i * SZ_G);
	KUNIT_ASSERT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
}

static void range_first_fit_lowest(struct kunit *test)
{
	const u64 base = 0x40000;
	struct neuron_extent_pool *p = range_setup(test, base, 16 * SZ_G, SZ_G);
	u64 addr = 0;
	unsigned int i;
	int ret;

	range_fill(test, p, base, 16);
	/* Holes of 1 (at 2), 2 (at 5) and 3 (at 10) granules. */
	neuron_extent_free(p, base + 2 * SZ_G, SZ_G);
	for (i = 5; i < 7; i++)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	for (i = 10; i < 13; i++)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 3UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 3 * SZ_G);

	/* Each request lands in the lowest hole big enough for it. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 2 * SZ_G, 0), base + 5 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 2 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 10 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 11 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 12 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 0UL);

	/* With alignment.  Holes: 3..4 (odd start) and 8..9 (32 KiB-aligned). */
	for (i = 3; i < 5; i++)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	for (i = 8; i < 10; i++)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	/* The first 8 KiB-aligned granule: 4, in the lowest hole. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0x2000), base + 4 * SZ_G);
	/* Two granules at 32 KiB: the lowest hole of two holds them at 8. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 2 * SZ_G, 0x8000), base + 8 * SZ_G);

	/*
	 * Holes: 3, and 12..15 (16 KiB-aligned).  One granule at 16 KiB:
	 * the lowest hole of one granule does not hold it, the lowest hole of
	 * 1 + 4 - 1 granules does, at 12.
	 */
	for (i = 12; i < 16; i++)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0x4000), base + 12 * SZ_G);

	/*
	 * Holes: 3, 8 (32 KiB-aligned), 13..15.  One granule at 32 KiB: no
	 * hole is 8 granules long and the lowest of one granule does not hold
	 * it, so -ENOMEM is what is documented; 8 would do, and is allowed.
	 */
	neuron_extent_free(p, base + 8 * SZ_G, SZ_G);
	ret = neuron_extent_alloc(p, SZ_G, 0x8000, &addr);
	KUNIT_EXPECT_TRUE_MSG(test, ret == -ENOMEM || (!ret && addr == base + 8 * SZ_G),
			      "ret %d addr %llx", ret, addr);
	if (!ret)
		neuron_extent_free(p, addr, SZ_G);

	/* Unaligned requests take the holes in address order. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 3 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 8 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 3 * SZ_G, 0), base + 13 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 0UL);
	range_expect_consistent(test, p);
}

static void range_exhaustion(struct kunit *test)
{
	const u64 base = 0x7000;
	struct neuron_extent_pool *p = range_setup(test, base, 8 * SZ_G, SZ_G);
	u64 addr = 0;

	range_fill(test, p, base, 8);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, 1, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, addr, 0ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 0UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 0ULL);
	range_expect_consistent(test, p);

	neuron_extent_free(p, base + 3 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, 2 * SZ_G, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base + 3 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 0, &addr), -ENOMEM);

	/* One allocation of the whole pool, then nothing. */
	p = range_setup(test, base, 8 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, 9 * SZ_G, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 8 * SZ_G, 0), base);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 0, &addr), -ENOMEM);
	neuron_extent_free(p, base, 8 * SZ_G);
	range_expect_full(test, p, 8 * SZ_G);
}

static void range_fragmentation(struct kunit *test)
{
	const u64 base = 0x100000;
	const unsigned int n = 32;
	struct neuron_extent_pool *p = range_setup(test, base, n * SZ_G, SZ_G);
	u64 addr = 0;
	unsigned int i;

	range_fill(test, p, base, n);
	for (i = 0; i < n; i += 2)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), (unsigned long)n / 2);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), n / 2 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), SZ_G);
	range_expect_consistent(test, p);

	/* Half the pool is free, but not two granules in a row. */
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, 2 * SZ_G, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G + 1, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), (unsigned long)n / 2);

	for (i = 1; i < n; i += 2) {
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
		/* One run from 0 to i, and the even holes above it. */
		KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p),
				(unsigned long)max(n / 2 - (i + 1) / 2, 1U));
	}
	range_expect_full(test, p, n * SZ_G);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 2 * SZ_G, 0), base);
}

static void range_coalesce(struct kunit *test)
{
	const u64 base = 0x80000;
	struct neuron_extent_pool *p = range_setup(test, base, 8 * SZ_G, SZ_G);

	range_fill(test, p, base, 8);

	neuron_extent_free(p, base + 2 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	/* 3 joins 2, its left neighbour. */
	neuron_extent_free(p, base + 3 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 2 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_first_start(p), base + 2 * SZ_G);

	neuron_extent_free(p, base + 5 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 2UL);
	/* 4 joins both 2..3 and 5. */
	neuron_extent_free(p, base + 4 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 4 * SZ_G);
	range_expect_consistent(test, p);

	neuron_extent_free(p, base + 7 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 2UL);
	/* 6 joins both again; the pool's last granule is free. */
	neuron_extent_free(p, base + 6 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 6 * SZ_G);

	/* 1 joins 2..7, its right neighbour: the extent now starts at 1. */
	neuron_extent_free(p, base + 1 * SZ_G, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 1UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 7 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_first_start(p), base + 1 * SZ_G);
	range_expect_consistent(test, p);

	/* 0, the pool's first granule, joins from the left end. */
	neuron_extent_free(p, base, SZ_G);
	range_expect_full(test, p, 8 * SZ_G);
	KUNIT_EXPECT_EQ(test, range_first_start(p), base);
}

/* neuron_extent_take() of @from and @most gets [base + @g, +@n granules). */
static void range_take_ok(struct kunit *test, struct neuron_extent_pool *p, u64 base, u64 from,
			  u64 most, u64 g, u64 n)
{
	u64 addr = 0, size = 0;

	KUNIT_ASSERT_EQ_MSG(test, neuron_extent_take(p, from, most, &addr, &size), 0,
			    "from %llx most %llx", from, most);
	KUNIT_EXPECT_EQ_MSG(test, addr, base + g * SZ_G, "from %llx most %llx", from, most);
	KUNIT_EXPECT_EQ_MSG(test, size, n * SZ_G, "from %llx most %llx", from, most);
}

/*
 * A walk over the free space a piece at a time (the HBM scrub): pieces at
 * or above an address, at most a size, split off the middle of an extent,
 * rounded arguments, the end of the pool, and every piece returned.
 */
static void range_take_walk(struct kunit *test)
{
	const u64 base = 0x100000;
	struct neuron_extent_pool *p = range_setup(test, base, 16 * SZ_G, SZ_G);
	u64 addr, size, pos;
	unsigned int i;

	/* Free: granules 3..5, 9 and 12..15. */
	range_fill(test, p, base, 16);
	for (i = 0; i < 16; i++)
		if ((i >= 3 && i <= 5) || i == 9 || i >= 12)
			neuron_extent_free(p, base + i * SZ_G, SZ_G);
	KUNIT_ASSERT_EQ(test, neuron_extent_free_extents(p), 3UL);

	KUNIT_EXPECT_EQ(test, neuron_extent_take(p, 0, SZ_G - 1, &addr, &size), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_extent_take(p, U64_MAX - 5, SZ_G, &addr, &size), -ENOENT);
	KUNIT_EXPECT_EQ(test, neuron_extent_take(p, base + 16 * SZ_G, SZ_G, &addr, &size),
			-ENOENT);
	range_expect_consistent(test, p);

	/* The walk: below the pool, then where each piece ended. */
	range_take_ok(test, p, base, 0, 2 * SZ_G + 5, 3, 2);
	range_take_ok(test, p, base, base + 5 * SZ_G, 2 * SZ_G, 5, 1);
	range_take_ok(test, p, base, base + 6 * SZ_G, 2 * SZ_G, 9, 1);
	range_take_ok(test, p, base, base + 10 * SZ_G, 2 * SZ_G, 12, 2);
	range_take_ok(test, p, base, base + 14 * SZ_G, 8 * SZ_G, 14, 2);
	KUNIT_EXPECT_EQ(test, neuron_extent_take(p, base + 16 * SZ_G, SZ_G, &addr, &size),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
	range_expect_consistent(test, p);

	/* Each piece is an allocation of its own. */
	neuron_extent_free(p, base + 3 * SZ_G, 2 * SZ_G);
	neuron_extent_free(p, base + 5 * SZ_G, SZ_G);
	neuron_extent_free(p, base + 9 * SZ_G, SZ_G);
	neuron_extent_free(p, base + 12 * SZ_G, 2 * SZ_G);
	neuron_extent_free(p, base + 14 * SZ_G, 2 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 3UL);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 8 * SZ_G);

	/* From inside an extent (rounded up to a granule): split off its middle. */
	range_take_ok(test, p, base, base + 3 * SZ_G + 1, SZ_G, 4, 1);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 4UL);
	range_expect_consistent(test, p);
	/* Not the extent below @from, even though it is free. */
	range_take_ok(test, p, base, base + 5 * SZ_G, 64 * SZ_G, 5, 1);
	neuron_extent_free(p, base + 4 * SZ_G, SZ_G);
	neuron_extent_free(p, base + 5 * SZ_G, SZ_G);
	range_expect_consistent(test, p);

	/* Everything a walk can take, a granule at a time. */
	for (pos = 0, i = 0; !neuron_extent_take(p, pos, SZ_G, &addr, &size); i++)
		pos = addr + size;
	KUNIT_EXPECT_EQ(test, i, 8U);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
	for (i = 0; i < 16; i++)
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
	range_expect_full(test, p, 16 * SZ_G);
}

static void range_size_rounding(struct kunit *test)
{
	const u64 base = 0x10000, size = 0x10000;
	struct neuron_extent_pool *p = range_setup(test, base, size, SZ_G);
	u64 a, b, c;

	a = range_alloc_ok(test, p, 1, 0);
	KUNIT_EXPECT_EQ(test, a, base);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - SZ_G);
	b = range_alloc_ok(test, p, SZ_G + 1, 0);
	KUNIT_EXPECT_EQ(test, b, base + SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - 3 * SZ_G);
	c = range_alloc_ok(test, p, 2 * SZ_G - 1, 0);
	KUNIT_EXPECT_EQ(test, c, base + 3 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - 5 * SZ_G);

	/* Frees round the same way: the sizes as passed to alloc. */
	neuron_extent_free(p, b, SZ_G + 1);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - 3 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), size - 5 * SZ_G);
	neuron_extent_free(p, a, 1);
	neuron_extent_free(p, c, 2 * SZ_G - 1);
	range_expect_full(test, p, size);

	/* A granule of one byte does not round. */
	p = range_setup(test, 5, 100, 1);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 3, 0), 5ULL);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 1, 0), 8ULL);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 7, 8), 16ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 100ULL - 11);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 2UL);
	neuron_extent_free(p, 5, 3);
	neuron_extent_free(p, 16, 7);
	neuron_extent_free(p, 8, 1);
	range_expect_full(test, p, 100);
}

static void range_overflow(struct kunit *test)
{
	/* A pool just below the top of the address space. */
	const u64 base = 0ULL - 0x200000, size = 0x100000;
	struct neuron_extent_pool *p = range_setup(test, base, size, SZ_G);
	static const u64 sizes[] = {
		U64_MAX, U64_MAX - SZ_G + 2, U64_MAX - SZ_G + 1, U64_MAX - SZ_G,
		1ULL << 63, size + 1, 0ULL - base,
	};
	u64 addr = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ret = neuron_extent_alloc(p, sizes[i], 0, &addr);
		KUNIT_EXPECT_TRUE_MSG(test, ret == -EINVAL || ret == -ENOMEM,
				      "size %llx: %d", sizes[i], ret);
		ret = neuron_extent_alloc(p, sizes[i], 1ULL << 63, &addr);
		KUNIT_EXPECT_TRUE_MSG(test, ret == -EINVAL || ret == -ENOMEM,
				      "size %llx aligned: %d", sizes[i], ret);
	}
	/* Sizes that cannot be rounded are invalid, not just too big. */
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, U64_MAX, 0, &addr), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, U64_MAX - SZ_G + 2, 0, &addr), -EINVAL);
	/* Aligned addresses past 2^64 do not wrap to 0. */
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 0x400000, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, SZ_G, 1ULL << 63, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, addr, 0ULL);
	range_expect_full(test, p, size);

	/* The base is 2 MiB-aligned: that one works, and so does the rest. */
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0x200000), base);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, size - SZ_G, 0), base + SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
	neuron_extent_free(p, base + SZ_G, size - SZ_G);
	neuron_extent_free(p, base, SZ_G);
	range_expect_full(test, p, size);

	/* Half the address space from 0: 2^63 fits once, never more. */
	p = range_setup(test, 0, 1ULL << 63, SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, (1ULL << 63) + 1, 0, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 1ULL << 62, 1ULL << 63), 0ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_alloc(p, 1ULL << 62, 1ULL << 63, &addr), -ENOMEM);
	KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, 1ULL << 62, 1ULL << 62), 1ULL << 62);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
}

static void range_free_validation(struct kunit *test)
{
	const u64 base = 0x20000, size = 16 * SZ_G, end = base + size;
	struct neuron_extent_pool *p = range_setup(test, base, size, SZ_G);
	u64 a, b;

	/* Nothing allocated: nothing can be freed. */
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, base, SZ_G));

	a = range_alloc_ok(test, p, 2 * SZ_G, 0);
	b = range_alloc_ok(test, p, 2 * SZ_G, 0);
	KUNIT_EXPECT_TRUE(test, neuron_extent_free_check(p, a, 2 * SZ_G));
	KUNIT_EXPECT_TRUE(test, neuron_extent_free_check(p, b, 2 * SZ_G - 5));

	/* Outside the pool, or wrapping. */
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, base - SZ_G, SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, base - SZ_G, 2 * SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, end, SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, 0, SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, a, U64_MAX));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, a, 0ULL - a));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, U64_MAX - SZ_G + 1, SZ_G));
	/* Off the granule, or empty. */
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, a + 1, SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, a, 0));
	/* Free space: inside it, reaching into it, covering it. */
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, base + 4 * SZ_G, SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, end - SZ_G, SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, b + SZ_G, 2 * SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, base, size));

	/* With a hole below: reaching down into it is refused too. */
	neuron_extent_free(p, a, 2 * SZ_G);
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, base + SZ_G, 2 * SZ_G));
	KUNIT_EXPECT_FALSE(test, neuron_extent_free_check(p, a, 2 * SZ_G));
	KUNIT_EXPECT_TRUE(test, neuron_extent_free_check(p, b, 2 * SZ_G));

	/* The checks changed nothing. */
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), size - 2 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 2UL);
	range_expect_consistent(test, p);
	neuron_extent_free(p, b, 2 * SZ_G);
	range_expect_full(test, p, size);
}

/*
 * Free never allocates: it only ever lowers the pool's node count, and a
 * free that must add an extent finds a spare.  Spares above the reserve go
 * back to the slab.
 */
static void range_free_uses_reserve(struct kunit *test)
{
	const unsigned int n = 200;
	const u64 base = 0x1000000;
	struct neuron_extent_pool *p = range_setup(test, base, n * SZ_G, SZ_G);
	unsigned long nodes;
	unsigned int i;

	range_fill(test, p, base, n);
	KUNIT_EXPECT_GE(test, p->nodes, p->live + 1);
	KUNIT_EXPECT_LE(test, p->nodes, p->live + 1 + NEURON_EXTENT_SPARE_SLACK);

	/* Every other one first: each of these frees adds an extent. */
	for (i = 1; i < n; i += 2) {
		nodes = p->nodes;
		KUNIT_ASSERT_NOT_NULL(test, p->spare);
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
		KUNIT_EXPECT_LE(test, p->nodes, nodes);
		KUNIT_EXPECT_GE(test, p->nodes, p->live + 1);
	}
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), (unsigned long)n / 2);
	range_expect_consistent(test, p);
	for (i = 0; i < n; i += 2) {
		nodes = p->nodes;
		neuron_extent_free(p, base + i * SZ_G, SZ_G);
		KUNIT_EXPECT_LE(test, p->nodes, nodes);
	}
	range_expect_full(test, p, n * SZ_G);
	KUNIT_EXPECT_LE(test, p->nodes, 1UL + NEURON_EXTENT_SPARE_SLACK);

	/* A loop of alloc and free settles without growing. */
	for (i = 0; i < 100; i++) {
		KUNIT_EXPECT_EQ(test, range_alloc_ok(test, p, SZ_G, 0), base);
		neuron_extent_free(p, base, SZ_G);
	}
	KUNIT_EXPECT_LE(test, p->nodes, 1UL + NEURON_EXTENT_SPARE_SLACK);
}

/* Destroy frees every node the pool owned, whatever was still allocated. */
static void range_destroy_frees_all(struct kunit *test)
{
	struct range_fixture *fx = test->priv;
	const u64 base = 0x400000;
	struct neuron_extent_pool *p = range_setup(test, base, 300 * SZ_G, SZ_G);
	unsigned int i;

	for (i = 0; i < 100; i++)
		range_alloc_ok(test, p, 3 * SZ_G, 0);
	for (i = 0; i < 100; i += 3)
		neuron_extent_free(p, base + 3 * i * SZ_G, 3 * SZ_G);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_extents(p), 34UL);
	/* The checker counts the tree and the spares against p->nodes. */
	range_expect_consistent(test, p);
	KUNIT_EXPECT_GT(test, p->nodes, 34UL);

	fx->ready = false;
	neuron_extent_destroy(p);
	KUNIT_EXPECT_EQ(test, p->nodes, 0UL);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&p->root));
	KUNIT_EXPECT_NULL(test, p->spare);
	KUNIT_EXPECT_EQ(test, neuron_extent_free_bytes(p), 0ULL);
	KUNIT_EXPECT_EQ(test, neuron_extent_largest_free(p), 0ULL);

	/* A fresh pool holds one node, and gives it back. */
	KUNIT_ASSERT_EQ(test, neuron_extent_init(p, base, SZ_G, SZ_G), 0);
	KUNIT_EXPECT_EQ(test, p->nodes, 1UL);
	neuron_extent_destroy(p);
	KUNIT_EXPECT_EQ(test, p->nodes, 0UL);
}

/*
 * Random operations against a bitmap of granules.  Each allocation is
 * checked against the placement neuron_extent_alloc() documents:
 * exact when the lowest extent of the size holds it, else at most at the
 * first aligned address of the lowest extent of size + align - granule,
 * else -ENOMEM.
 */

struct range_model {
	u64 base;
	u64 granule;
	unsigned int nbits;
	unsigned long *used;
};

struct range_live {
	u64 addr;
	u64 size;
};

/* The next free run at or after granule @from: [*s, *e). */
static bool model_run(const struct range_model *m, unsigned int from, unsigned int *s,
		      unsigned int *e)
{
	*s = find_next_zero_bit(m->used, m->nbits, from);
	if (*s >= m->nbits)
		return false;
	*e = find_next_bit(m->used, m->nbits, *s);
	return true;
}

static u64 model_addr(const struct range_model *m, unsigned int bit)
{
	return m->base + bit * m->granule;
}

/* First @align-aligned address in run [s, e) with @size bytes, or U64_MAX. */
static u64 model_fit(const struct range_model *m, unsigned int s, unsigned int e, u64 size,
		     u64 align)
{
	u64 start = model_addr(m, s), end = model_addr(m, e);
	u64 a = round_up(start, align);

	return a < end && end - a >= size ? a : U64_MAX;
}

static void model_check_pool(struct kunit *test, const struct range_model *m,
			     const struct neuron_extent_pool *p)
{
	unsigned int s, e = 0, runs = 0;
	u64 largest = 0;
	struct rb_node *n = rb_first(&p->root);
	const char *why = neuron_extent_check_tree(p);

	KUNIT_ASSERT_NULL_MSG(test, why, "%s", why);
	while (model_run(m, e, &s, &e)) {
		const struct neuron_extent *x;

		KUNIT_ASSERT_NOT_NULL_MSG(test, n, "run %u..%u missing", s, e);
		x = rb_entry(n, struct neuron_extent, rb);
		KUNIT_ASSERT_EQ(test, x->start, model_addr(m, s));
		KUNIT_ASSERT_EQ(test, x->size, (e - s) * m->granule);
		largest = max_t(u64, largest, x->size);
		runs++;
		n = rb_next(n);
	}
	KUNIT_ASSERT_NULL(test, n);
	KUNIT_ASSERT_EQ(test, neuron_extent_free_extents(p), (unsigned long)runs);
	KUNIT_ASSERT_EQ(test, neuron_extent_largest_free(p), largest);
	KUNIT_ASSERT_EQ(test, neuron_extent_free_bytes(p),
			(m->nbits - bitmap_weight(m->used, m->nbits)) * m->granule);
}

static void model_alloc(struct kunit *test, struct range_model *m,
			struct neuron_extent_pool *p, struct range_live *live,
			unsigned int *nlive, u64 size, u64 align)
{
	u64 g = m->granule, rsize = round_up(size, g), eff = max(align, g);
	u64 exact = U64_MAX, bound = U64_MAX, addr = U64_MAX;
	unsigned int s, e = 0, first, last;
	bool seen_r = false;
	int ret;

	/* R: the lowest run of rsize; L: the lowest of rsize + eff - g. */
	while (model_run(m, e, &s, &e)) {
		u64 len = (e - s) * g;

		if (!seen_r && len >= rsize) {
			seen_r = true;
			exact = model_fit(m, s, e, rsize, eff);
			if (exact != U64_MAX)
				break;
		}
		if (len >= rsize + eff - g) {
			bound = model_fit(m, s, e, rsize, eff);
			break;
		}
	}

	ret = neuron_extent_alloc(p, size, align, &addr);
	if (exact == U64_MAX && bound == U64_MAX) {
		KUNIT_ASSERT_EQ_MSG(test, ret, -ENOMEM, "size %llx align %llx", size, align);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "size %llx align %llx", size, align);
	if (exact != U64_MAX)
		KUNIT_ASSERT_EQ(test, addr, exact);
	KUNIT_ASSERT_LE(test, addr, bound);
	KUNIT_ASSERT_EQ(test, addr & (eff - 1), 0ULL);
	KUNIT_ASSERT_GE(test, addr, m->base);

	/* Inside the pool, on free granules only, first aligned of its run. */
	first = div64_u64(addr - m->base, g);
	last = first + div64_u64(rsize, g);
	KUNIT_ASSERT_LE(test, last, m->nbits);
	KUNIT_ASSERT_GE(test, find_next_bit(m->used, m->nbits, first), (unsigned long)last);
	s = first;
	while (s > 0 && !test_bit(s - 1, m->used))
		s--;
	KUNIT_ASSERT_EQ(test, round_up(model_addr(m, s), eff), addr);

	bitmap_set(m->used, first, last - first);
	live[*nlive].addr = addr;
	live[*nlive].size = size;
	(*nlive)++;
}

static void model_free(struct range_model *m, struct neuron_extent_pool *p,
		       struct range_live *live, unsigned int *nlive, unsigned int i)
{
	unsigned int first = div64_u64(live[i].addr - m->base, m->granule);
	unsigned int count = div64_u64(round_up(live[i].size, m->granule), m->granule);

	neuron_extent_free(p, live[i].addr, live[i].size);
	bitmap_clear(m->used, first, count);
	live[i] = live[--(*nlive)];
}

struct range_stress_cfg {
	u64 base;
	u64 granule;
	unsigned int nbits;
	unsigned int max_granules;	/* largest request, in granules */
	u64 aligns[8];			/* 0 ends the list after the first */
	u64 seed;
};

static const struct range_stress_cfg range_stress_cfgs[] = {
	/* 512 KiB at an odd granule: 256 KiB alignment has one place. */
	{ 0x5000, 0x1000, 128, 8, { 0, 1, 0x1000, 0x2000, 0x4000, 0x10000, 0x40000 }, 1 },
	/* Byte granule. */
	{ 3, 1, 97, 9, { 0, 1, 2, 4, 8, 16, 128 }, 2 },
	/* 64 KiB granule, 4 MiB in [0x30000, 0x430000): 4 MiB fits near the end. */
	{ 0x30000, 0x10000, 64, 6, { 0, 0x10000, 0x20000, 0x100000, 0x400000 }, 3 },
};

static void range_random_vs_model(struct kunit *test)
{
	unsigned int c, op, naligns, nlive;
	struct rnd_state rnd;

	for (c = 0; c < ARRAY_SIZE(range_stress_cfgs); c++) {
		const struct range_stress_cfg *cfg = &range_stress_cfgs[c];
		struct range_model m = {
			.base = cfg->base,
			.granule = cfg->granule,
			.nbits = cfg->nbits,
		};
		struct neuron_extent_pool *p;
		struct range_live *live;

		m.used = kunit_kcalloc(test, BITS_TO_LONGS(m.nbits), sizeof(long), GFP_KERNEL);
		live = kunit_kcalloc(test, m.nbits, sizeof(*live), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, m.used);
		KUNIT_ASSERT_NOT_NULL(test, live);
		for (naligns = 1; naligns < ARRAY_SIZE(cfg->aligns) && cfg->aligns[naligns];)
			naligns++;

		p = range_setup(test, m.base, m.nbits * m.granule, m.granule);
		prandom_seed_state(&rnd, cfg->seed);
		nlive = 0;
		for (op = 0; op < 2000; op++) {
			u32 r = prandom_u32_state(&rnd);

			if (!nlive || (r % 100 < 55 && nlive < m.nbits)) {
				u64 size = 1 + prandom_u32_state(&rnd) %
					   (cfg->max_granules * m.granule);
				u64 align = cfg->aligns[prandom_u32_state(&rnd) % naligns];

				model_alloc(test, &m, p, live, &nlive, size, align);
			} else {
				model_free(&m, p, live, &nlive,
					   prandom_u32_state(&rnd) % nlive);
			}
			model_check_pool(test, &m, p);
		}
		while (nlive) {
			model_free(&m, p, live, &nlive, nlive - 1);
			model_check_pool(test, &m, p);
		}
		range_expect_full(test, p, m.nbits * m.granule);
	}
}

static struct kunit_case range_cases[] = {
	KUNIT_CASE(range_init_errors),
	KUNIT_CASE(range_alloc_free_simple),
	KUNIT_CASE(range_alloc_bad_args),
	KUNIT_CASE(range_alignment),
	KUNIT_CASE(range_first_fit_lowest),
	KUNIT_CASE(range_exhaustion),
	KUNIT_CASE(range_fragmentation),
	KUNIT_CASE(range_coalesce),
	KUNIT_CASE(range_take_walk),
	KUNIT_CASE(range_size_rounding),
	KUNIT_CASE(range_overflow),
	KUNIT_CASE(range_free_validation),
	KUNIT_CASE(range_free_uses_reserve),
	KUNIT_CASE(range_destroy_frees_all),
	KUNIT_CASE(range_random_vs_model),
	{}
};

static struct kunit_suite range_suite = {
	.name = "neuron_core_extent",
	.init = range_test_init,
	.exit = range_test_exit,
	.test_cases = range_cases,
};

kunit_test_suite(range_suite);
