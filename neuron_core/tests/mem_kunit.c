// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: chunks and the handle table (mem.c) on a device built by hand:
 * one 1 MiB device-memory pool, the test's process attached.  Handles are
 * checked for uniqueness and opacity, and stale, forged and foreign handles
 * for refusal; references keep a freed chunk's memory; detach frees
 * exactly the process's chunks; bad requests change nothing; the
 * statistics follow the chunks.
 */

#include <kunit/test.h>
#include <linux/device.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <neuron/compat.h>

#include "../base/core.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

#define POOL_BASE	0x40000000ULL
#define POOL_SIZE	SZ_1M

static void mem_test_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct neuron_device, dev));
}

static int mem_test_init(struct kunit *test)
{
	struct neuron_device *nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	struct neuron_mem *m;

	KUNIT_ASSERT_NOT_NULL(test, nd);
	mutex_init(&nd->lock);
	device_initialize(&nd->dev);
	nd->dev.release = mem_test_dev_release;
	neuron_stats_init(nd);
	KUNIT_ASSERT_EQ(test, neuron_mem_init(nd), 0);
	m = nd->mem;
	m->nc_count = 2;
	m->hbm_count = 1;
	m->hbm[0].base = POOL_BASE;
	m->hbm[0].size = POOL_SIZE;
	KUNIT_ASSERT_EQ(test, 0, neuron_extent_init(&m->hbm[0].range, POOL_BASE, POOL_SIZE,
						    PAGE_SIZE));
	m->ready = true;
	nd->attach[0].tgid = get_pid(task_tgid(current));
	nd->attach[0].files = 1;
	test->priv = nd;
	return 0;
}

static void mem_test_exit(struct kunit *test)
{
	struct neuron_device *nd = test->priv;

	mutex_lock(&nd->lock);
	neuron_mem_detach_locked(nd, nd->attach[0].tgid);
	mutex_unlock(&nd->lock);
	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->chunks);
	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->nr_handles);
	KUNIT_EXPECT_EQ(test, (u64)POOL_SIZE, neuron_extent_free_bytes(&nd->mem->hbm[0].range));
	put_pid(nd->attach[0].tgid);
	neuron_mem_fini(nd);
	put_device(&nd->dev);
}

static const struct neuron_mem_request dev_req = {
	.size = PAGE_SIZE,
	.mem_type = NEURON_MEMALLOC_TYPE_TENSORS_DEVICE,
};

/* Allocate with @req; return the chunk with the caller's reference dropped. */
static struct neuron_mem_chunk *mem_alloc(struct kunit *test, const struct neuron_mem_request *req)
{
	struct neuron_mem_chunk *mc = NULL;

	KUNIT_ASSERT_EQ(test, 0, neuron_mem_alloc(test->priv, req, &mc));
	KUNIT_ASSERT_NOT_NULL(test, mc);
	neuron_mem_put(mc);
	return mc;
}

static void mem_handles_unique_and_opaque(struct kunit *test)
{
	struct neuron_device *nd = test->priv;
	u64 h[64];
	int i, j, seq = 0;

	for (i = 0; i < ARRAY_SIZE(h); i++) {
		struct neuron_mem_chunk *mc = mem_alloc(test, &dev_req);

		h[i] = mc->handle;
		KUNIT_EXPECT_NE(test, 0ULL, h[i]);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, h[i], h[j]);
		if (i && h[i] - h[i - 1] == h[1] - h[0])
			seq++;
		/* Each handle finds its own chunk. */
		mc = neuron_mem_get(nd, h[i]);
		KUNIT_EXPECT_NOT_NULL(test, mc);
		if (mc) {
			KUNIT_EXPECT_EQ(test, h[i], mc->handle);
			neuron_mem_put(mc);
		}
	}
	/* Not an arithmetic sequence (a random tag sits above the index). */
	KUNIT_EXPECT_LT(test, seq, (int)ARRAY_SIZE(h) / 2);
	KUNIT_EXPECT_EQ(test, 64UL, nd->mem->nr_handles);
	KUNIT_EXPECT_EQ(test, 64ULL * PAGE_SIZE, nd->mem->bytes[NEURON_MEM_DEVICE - 1]);
	KUNIT_EXPECT_EQ(test, 64ULL * PAGE_SIZE,
			nd->mem->type_bytes[NEURON_MEMALLOC_TYPE_TENSORS_DEVICE]);
}

static void mem_stale_and_forged_handles(struct kunit *test)
{
	struct neuron_device *nd = test->priv;
	struct neuron_mem_chunk *mc = mem_alloc(test, &dev_req);
	u64 h = mc->handle, h2;

	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, 0));
	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, h ^ BIT_ULL(40)));
	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, h + 1));
	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, lower_32_bits(h)));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_mem_free_handle(nd, h ^ BIT_ULL(63)));

	KUNIT_EXPECT_EQ(test, 0, neuron_mem_free_handle(nd, h));
	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, h));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_mem_free_handle(nd, h));
	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->chunks);

	/* The index is reused, the handle is not. */
	mc = mem_alloc(test, &dev_req);
	h2 = mc->handle;
	KUNIT_EXPECT_EQ(test, lower_32_bits(h), lower_32_bits(h2));
	KUNIT_EXPECT_NE(test, h, h2);
	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, h));
}

static void mem_foreign_handle(struct kunit *test)
{
	struct neuron_device *nd = test->priv;
	struct neuron_mem_chunk *mc = mem_alloc(test, &dev_req);
	struct pid *other = find_get_pid(1), *mine;

	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_PTR_NE(test, other, task_tgid(current));
	mutex_lock(&nd->mem->lock);
	mine = mc->owner;
	mc->owner = other;
	mutex_unlock(&nd->mem->lock);

	KUNIT_EXPECT_NULL(test, neuron_mem_get(nd, mc->handle));
	KUNIT_EXPECT_NULL(test, neuron_mem_get_by_pa(nd, mc->pa));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_mem_free_handle(nd, mc->handle));
	/* Our detach leaves the other process's chunk alone. */
	mutex_lock(&nd->lock);
	neuron_mem_detach_locked(nd, mine);
	mutex_unlock(&nd->lock);
	KUNIT_EXPECT_EQ(test, 1UL, nd->mem->chunks);

	mutex_lock(&nd->mem->lock);
	mc->owner = mine;
	mutex_unlock(&nd->mem->lock);
	put_pid(other);
	KUNIT_EXPECT_EQ(test, 0, neuron_mem_free_handle(nd, mc->handle));
}

static void mem_reference_keeps_memory(struct kunit *test)
{
	struct neuron_device *nd = test->priv;
	struct neuron_mem_request req = dev_req;
	struct neuron_mem_chunk *mc, *again;
	u64 pa;

	req.size = 3 * PAGE_SIZE;
	mc = mem_alloc(test, &req);
	pa = mc->pa;
	again = neuron_mem_get_by_pa(nd, pa + PAGE_SIZE + 5);
	KUNIT_ASSERT_PTR_EQ(test, mc, again);
	KUNIT_EXPECT_NULL(test, neuron_mem_get_by_pa(nd, pa + 3 * PAGE_SIZE));

	/* Freed while referenced (as by a mapping): the memory stays taken. */
	KUNIT_EXPECT_EQ(test, 0, neuron_mem_free_handle(nd, mc->handle));
	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->nr_handles);
	KUNIT_EXPECT_EQ(test, 1UL, nd->mem->chunks);
	KUNIT_EXPECT_EQ(test, (u64)POOL_SIZE - 3 * PAGE_SIZE,
			neuron_extent_free_bytes(&nd->mem->hbm[0].range));
	KUNIT_EXPECT_NULL(test, neuron_mem_get_by_pa(nd, pa));
	mc = mem_alloc(test, &req);
	KUNIT_EXPECT_NE(test, pa, mc->pa);

	neuron_mem_put(again);
	KUNIT_EXPECT_EQ(test, 1UL, nd->mem->chunks);
	KUNIT_EXPECT_EQ(test, (u64)POOL_SIZE - 3 * PAGE_SIZE,
			neuron_extent_free_bytes(&nd->mem->hbm[0].range));
}

static void mem_detach_frees_everything(struct kunit *test)
{
	struct neuron_device *nd = test->priv;
	struct neuron_mem_request req = dev_req;
	int i;

	/* More than one batch of the detach walk. */
	for (i = 0; i < 100; i++) {
		req.mem_type = i % 2 ? NEURON_MEMALLOC_TYPE_CODE_DEVICE :
			NEURON_MEMALLOC_TYPE_UNKNOWN_HOST;
		mem_alloc(test, &req);
	}
	/* A host category on device memory is counted as unknown device memory. */
	KUNIT_EXPECT_EQ(test, 50ULL * PAGE_SIZE,
			nd->mem->type_bytes[NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE]);
	KUNIT_EXPECT_EQ(test, 0ULL, nd->mem->type_bytes[NEURON_MEMALLOC_TYPE_UNKNOWN_HOST]);
	mutex_lock(&nd->lock);
	neuron_mem_detach_locked(nd, nd->attach[0].tgid);
	mutex_unlock(&nd->lock);
	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->chunks);
	KUNIT_EXPECT_EQ(test, 0ULL, nd->mem->bytes[NEURON_MEM_DEVICE - 1]);
	KUNIT_EXPECT_EQ(test, 0ULL, nd->mem->type_bytes[NEURON_MEMALLOC_TYPE_CODE_DEVICE]);
	KUNIT_EXPECT_EQ(test, (u64)POOL_SIZE, neuron_extent_free_bytes(&nd->mem->hbm[0].range));
}

static void mem_bad_requests_change_nothing(struct kunit *test)
{
	static const struct {
		u64 size, align;
		u32 hbm, region, nc_id, mem_type;
		int err;
	} bad[] = {
		{ 0, 0, 0, 0, 0, 0, -EINVAL },				/* size 0 */
		{ PAGE_SIZE, 0, 0, 1, 0, 0, -EINVAL },			/* region */
		{ PAGE_SIZE, 0, 0, 0, 2, 0, -EINVAL },			/* core */
		{ PAGE_SIZE, 0, 1, 0, 0, 0, -EINVAL },			/* channel */
		{ PAGE_SIZE, 0, 0xffffffff, 0, 0, 0, -EINVAL },		/* channel */
		{ PAGE_SIZE, 0, 0, 0, 0, NEURON_MEMALLOC_TYPE_MAX, -EINVAL },
		{ PAGE_SIZE, 3 * PAGE_SIZE, 0, 0, 0, 0, -EINVAL },	/* align */
		{ PAGE_SIZE, 2 * POOL_BASE, 0, 0, 0, 0, -ENOMEM },	/* align */
		{ POOL_SIZE + 1, 0, 0, 0, 0, 0, -ENOMEM },
		{ U64_MAX, 0, 0, 0, 0, 0, -ENOMEM },
		{ U64_MAX - PAGE_SIZE + 2, 0, 0, 0, 0, 0, -ENOMEM },
	};
	struct neuron_device *nd = test->priv;
	struct neuron_mem_chunk *mc;
	struct pid *me;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct neuron_mem_request req = {
			.size = bad[i].size, .align = bad[i].align, .hbm = bad[i].hbm,
			.region = bad[i].region, .nc_id = bad[i].nc_id,
			.mem_type = bad[i].mem_type,
		};

		mc = NULL;
		KUNIT_EXPECT_EQ_MSG(test, bad[i].err, neuron_mem_alloc(nd, &req, &mc),
				    "case %d", i);
		KUNIT_EXPECT_NULL(test, mc);
	}
	/* Not attached: refused. */
	me = nd->attach[0].tgid;
	nd->attach[0].tgid = NULL;
	KUNIT_EXPECT_EQ(test, -EACCES, neuron_mem_alloc(nd, &dev_req, &mc));
	nd->attach[0].tgid = me;

	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->chunks);
	KUNIT_EXPECT_EQ(test, 0UL, nd->mem->nr_handles);
	KUNIT_EXPECT_EQ(test, (u64)POOL_SIZE, neuron_extent_free_bytes(&nd->mem->hbm[0].range));
	/* The whole pool is still there to take. */
	{
		struct neuron_mem_request all = dev_req;

		all.size = POOL_SIZE;
		mc = mem_alloc(test, &all);
		KUNIT_EXPECT_EQ(test, POOL_BASE, mc->pa);
	}
}

/* The statistics follow each chunk by its core and category, to its last reference. */
static void mem_stats_follow_chunks(struct kunit *test)
{
	const unsigned int cat = NEURON_STATS_NC_DEV_CAT + NEURON_STATS_DEV_COLLECTIVES;
	struct neuron_mem_request req = dev_req;
	struct neuron_device *nd = test->priv;
	struct neuron_mem_chunk *mc = NULL;
	struct neuron_stat s;

	req.nc_id = 1;
	req.size = 3 * PAGE_SIZE;
	req.mem_type = NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE;
	KUNIT_ASSERT_EQ(test, 0, neuron_mem_alloc(nd, &req, &mc));
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, 1, cat, &s));
	KUNIT_EXPECT_EQ(test, 3 * PAGE_SIZE, (unsigned long)s.total);
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, 1, NEURON_STATS_NC_DEVICE_MEM, &s));
	KUNIT_EXPECT_EQ(test, 3 * PAGE_SIZE, (unsigned long)s.total);
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, 0, NEURON_STATS_NC_DEVICE_MEM, &s));
	KUNIT_EXPECT_EQ(test, 0ULL, s.total);
	/* Freed but still referenced: still counted. */
	KUNIT_EXPECT_EQ(test, 0, neuron_mem_free_handle(nd, mc->handle));
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, 1, cat, &s));
	KUNIT_EXPECT_EQ(test, 3 * PAGE_SIZE, (unsigned long)s.total);
	neuron_mem_put(mc);
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, 1, cat, &s));
	KUNIT_EXPECT_EQ(test, 0ULL, s.total);
	KUNIT_EXPECT_EQ(test, 3 * PAGE_SIZE, (unsigned long)s.present);
	KUNIT_EXPECT_EQ(test, 3 * PAGE_SIZE, (unsigned long)s.peak);
}

static struct kunit_case mem_cases[] = {
	KUNIT_CASE(mem_handles_unique_and_opaque),
	KUNIT_CASE(mem_stale_and_forged_handles),
	KUNIT_CASE(mem_foreign_handle),
	KUNIT_CASE(mem_reference_keeps_memory),
	KUNIT_CASE(mem_detach_frees_everything),
	KUNIT_CASE(mem_bad_requests_change_nothing),
	KUNIT_CASE(mem_stats_follow_chunks),
	{}
};

static struct kunit_suite mem_suite = {
	.name = "neuron_core_mem",
	.init = mem_test_init,
	.exit = mem_test_exit,
	.test_cases = mem_cases,
};

kunit_test_suite(mem_suite);
