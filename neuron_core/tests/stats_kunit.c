// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the statistics monitoring tools read (stats.c): the counter
 * operations, the category of every allocation type, where a datastore
 * keeps each core's counters, what a released datastore adds, resets,
 * clearing a field, and the change listener.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <neuron/compat.h>

#include "../base/core.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

static void stats_ops(struct kunit *test)
{
	struct neuron_stat s = { 0 };

	neuron_stat_inc(&s, 10);
	neuron_stat_inc(&s, 5);
	KUNIT_EXPECT_EQ(test, 15ULL, s.total);
	KUNIT_EXPECT_EQ(test, 5ULL, s.present);
	KUNIT_EXPECT_EQ(test, 15ULL, s.peak);
	neuron_stat_dec(&s, 12);
	KUNIT_EXPECT_EQ(test, 3ULL, s.total);
	KUNIT_EXPECT_EQ(test, 12ULL, s.present);
	KUNIT_EXPECT_EQ(test, 15ULL, s.peak);
	/* Never below 0 (a write may have cleared the total). */
	neuron_stat_dec(&s, 4);
	KUNIT_EXPECT_EQ(test, 0ULL, s.total);
	KUNIT_EXPECT_EQ(test, 4ULL, s.present);
	neuron_stat_set(&s, 7);
	KUNIT_EXPECT_EQ(test, 7ULL, s.total);
	KUNIT_EXPECT_EQ(test, 7ULL, s.present);
	KUNIT_EXPECT_EQ(test, 15ULL, s.peak);
	neuron_stat_set(&s, 20);
	KUNIT_EXPECT_EQ(test, 20ULL, s.peak);
}

/* Every allocation type lands in the reference's category. */
static void stats_categories(struct kunit *test)
{
	static const struct {
		u32 type;
		unsigned int cat;
	} map[] = {
		{ NEURON_MEMALLOC_TYPE_UNKNOWN_HOST, NEURON_STATS_HOST_UNCATEGORIZED },
		{ NEURON_MEMALLOC_TYPE_CODE_HOST, NEURON_STATS_HOST_DMA_BUFFERS },
		{ NEURON_MEMALLOC_TYPE_TENSORS_HOST, NEURON_STATS_HOST_TENSORS },
		{ NEURON_MEMALLOC_TYPE_CONSTANTS_HOST, NEURON_STATS_HOST_CONSTANTS },
		{ NEURON_MEMALLOC_TYPE_MISC_HOST, NEURON_STATS_HOST_APPLICATION_MEMORY },
		{ NEURON_MEMALLOC_TYPE_NCDEV_HOST, NEURON_STATS_HOST_DRIVER_MEMORY },
		{ NEURON_MEMALLOC_TYPE_NOTIFICATION_HOST, NEURON_STATS_HOST_NOTIFICATIONS },
		{ NEURON_MEMALLOC_TYPE_DMA_RINGS_HOST, NEURON_STATS_HOST_DMA_RINGS },
		{ NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE, NEURON_STATS_DEV_UNCATEGORIZED },
		{ NEURON_MEMALLOC_TYPE_CODE_DEVICE, NEURON_STATS_DEV_MODEL_CODE },
		{ NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, NEURON_STATS_DEV_TENSORS },
		{ NEURON_MEMALLOC_TYPE_CONSTANTS_DEVICE, NEURON_STATS_DEV_CONSTANTS },
		{ NEURON_MEMALLOC_TYPE_SCRATCHPAD_DEVICE,
		  NEURON_STATS_DEV_MODEL_SHARED_SCRATCHPAD },
		{ NEURON_MEMALLOC_TYPE_MISC_DEVICE, NEURON_STATS_DEV_RUNTIME_MEMORY },
		{ NEURON_MEMALLOC_TYPE_NCDEV_DEVICE, NEURON_STATS_DEV_DRIVER_MEMORY },
		{ NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE, NEURON_STATS_DEV_COLLECTIVES },
		{ NEURON_MEMALLOC_TYPE_SCRATCHPAD_NONSHARED_DEVICE,
		  NEURON_STATS_DEV_NONSHARED_SCRATCHPAD },
		{ NEURON_MEMALLOC_TYPE_NOTIFICATION_DEVICE, NEURON_STATS_DEV_NOTIFICATIONS },
		{ NEURON_MEMALLOC_TYPE_DMA_RINGS_DEVICE, NEURON_STATS_DEV_DMA_RINGS },
		{ NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE,
		  NEURON_STATS_DEV_MODEL_SHARED_SCRATCHPAD },
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, (size_t)NEURON_MEMALLOC_TYPE_MAX, ARRAY_SIZE(map));
	for (i = 0; i < ARRAY_SIZE(map); i++)
		KUNIT_EXPECT_EQ_MSG(test, map[i].cat, neuron_stats_mem_cat(map[i].type),
				    "type %u", map[i].type);
	KUNIT_EXPECT_EQ(test, (unsigned int)NEURON_STATS_DEV_UNCATEGORIZED,
			neuron_stats_mem_cat(NEURON_MEMALLOC_TYPE_MAX));
}

#define NDS_BYTES	(NDS_EXT_NEURONCORE_NC_DATA_START + NDS_EXT_NEURONCORE_NC_DATA_SIZE)

/* Slot i of a datastore holds i + 1: the byte offset each counter comes from. */
static void stats_nds_layout(struct kunit *test)
{
	__le64 *nds = kunit_kzalloc(test, NDS_BYTES, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, nds);
	for (i = 0; i < NDS_BYTES / 8; i++)
		nds[i] = cpu_to_le64(i + 1);
	/* Cores 0-3: base area at 256, 31 slots per core. */
	KUNIT_EXPECT_EQ(test, 256 / 8 + 1ULL, neuron_nds_nc_counter(nds, 0, 0));
	KUNIT_EXPECT_EQ(test, 256 / 8 + 2 * 31 + 29 + 1ULL,
			neuron_nds_nc_counter(nds, 2, NDS_NC_COUNTER_MAC_COUNT));
	/* Their extended counters: 55936, 64 slots per core. */
	KUNIT_EXPECT_EQ(test, 55936 / 8 + 3 * 64 + 9 + 1ULL,
			neuron_nds_nc_counter(nds, 3,
					      NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE));
	/* Cores 4-15: everything at 57984, 96 slots per core. */
	KUNIT_EXPECT_EQ(test, 57984 / 8 + 1 * 96 + 28 + 1ULL,
			neuron_nds_nc_counter(nds, 5, NDS_NC_COUNTER_INFERENCE_COUNT));
	KUNIT_EXPECT_EQ(test, 57984 / 8 + 11 * 96 + 40 + 1ULL,
			neuron_nds_nc_counter(nds, 15,
					      NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE));
}

static struct neuron_device *stats_dev(struct kunit *test)
{
	struct neuron_device *nd = kunit_kzalloc(test, sizeof(*nd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nd);
	neuron_stats_init(nd);
	return nd;
}

static u64 nc_total(struct neuron_device *nd, int nc, unsigned int id)
{
	struct neuron_stat s;

	if (neuron_stats_read(nd, nc, id, &s))
		return U64_MAX;
	return s.total;
}

static void nds_put(__le64 *nds, unsigned int nc, unsigned int id, u64 v)
{
	/* Cores 0-3 only here: base or extended area. */
	if (id < NDS_NC_COUNTER_COUNT)
		nds[256 / 8 + nc * 31 + id] = cpu_to_le64(v);
	else
		nds[55936 / 8 + nc * 64 + id - 31] = cpu_to_le64(v);
}

/* A released datastore adds each core's final counters, flop_count twice the MACs. */
static void stats_nds_added(struct kunit *test)
{
	struct neuron_device *nd = stats_dev(test);
	__le64 *nds = kunit_kzalloc(test, NDS_BYTES, GFP_KERNEL);
	const unsigned int other = NEURON_STATS_NC_OTHER, status = NEURON_STATS_NC_STATUS;
	struct neuron_stat s;

	KUNIT_ASSERT_NOT_NULL(test, nds);
	nds_put(nds, 0, NDS_NC_COUNTER_INFER_COMPLETED, 5);
	nds_put(nds, 0, NDS_NC_COUNTER_MAC_COUNT, 7);
	nds_put(nds, 1, NDS_NC_COUNTER_GENERIC_FAIL, 3);
	nds_put(nds, 1, NDS_NC_COUNTER_MODEL_LOAD_COUNT, 2);
	nds_put(nds, 1, NDS_NC_COUNTER_INFERENCE_COUNT, 9);
	nds_put(nds, 1, NDS_NC_COUNTER_TIME_IN_USE, 1000);
	nds_put(nds, 1, NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE, 4);
	/* A core the device does not have: not counted. */
	nds_put(nds, 2, NDS_NC_COUNTER_INFER_COMPLETED, 100);

	neuron_stats_add_nds(&nd->stats, nds, 2);
	nds_put(nds, 0, NDS_NC_COUNTER_INFER_COMPLETED, 1);
	neuron_stats_add_nds(&nd->stats, nds, 2);

	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, 0, status + NEURON_STATS_STATUS_SUCCESS,
						   &s));
	KUNIT_EXPECT_EQ(test, 6ULL, s.total);
	KUNIT_EXPECT_EQ(test, 1ULL, s.present);
	KUNIT_EXPECT_EQ(test, 28ULL, nc_total(nd, 0, other + NEURON_STATS_OTHER_FLOP_COUNT));
	KUNIT_EXPECT_EQ(test, 6ULL, nc_total(nd, 1, status + NEURON_STATS_STATUS_FAILURE));
	KUNIT_EXPECT_EQ(test, 8ULL,
			nc_total(nd, 1, status + NEURON_STATS_STATUS_HW_REPAIRABLE_HBM_UE_ERROR));
	KUNIT_EXPECT_EQ(test, 4ULL, nc_total(nd, 1, other + NEURON_STATS_OTHER_MODEL_LOAD_COUNT));
	KUNIT_EXPECT_EQ(test, 18ULL, nc_total(nd, 1, other + NEURON_STATS_OTHER_INFERENCE_COUNT));
	KUNIT_EXPECT_EQ(test, 2000ULL, nc_total(nd, 1, other + NEURON_STATS_OTHER_NC_TIME_IN_USE));
	/* Not from the datastore. */
	KUNIT_EXPECT_EQ(test, 0ULL, nc_total(nd, 1, other + NEURON_STATS_OTHER_RESET_REQ_COUNT));
	KUNIT_EXPECT_EQ(test, 0ULL, nc_total(nd, 2, status + NEURON_STATS_STATUS_SUCCESS));
}

static void stats_resets(struct kunit *test)
{
	struct neuron_device *nd = stats_dev(test);
	const unsigned int req = NEURON_STATS_NC_OTHER + NEURON_STATS_OTHER_RESET_REQ_COUNT;
	const unsigned int fail = NEURON_STATS_NC_OTHER + NEURON_STATS_OTHER_RESET_FAIL_COUNT;

	neuron_stats_reset_start(nd, 0x5);
	neuron_stats_reset_start(nd, 0x4);
	KUNIT_EXPECT_EQ(test, 1ULL, nc_total(nd, 0, req));
	KUNIT_EXPECT_EQ(test, 0ULL, nc_total(nd, 1, req));
	KUNIT_EXPECT_EQ(test, 2ULL, nc_total(nd, 2, req));
	/* Bits past the last core are ignored. */
	neuron_stats_reset_start(nd, ~0U);
	KUNIT_EXPECT_EQ(test, 1ULL, nc_total(nd, NEURON_MAX_NC - 1, req));
	/* A failure counts on every core of the device, and only there. */
	neuron_stats_reset_failed(nd, 3);
	KUNIT_EXPECT_EQ(test, 1ULL, nc_total(nd, 0, fail));
	KUNIT_EXPECT_EQ(test, 1ULL, nc_total(nd, 2, fail));
	KUNIT_EXPECT_EQ(test, 0ULL, nc_total(nd, 3, fail));
}

/* A write clears one field; bad counters are refused and change nothing. */
static void stats_clear(struct kunit *test)
{
	struct neuron_device *nd = stats_dev(test);
	struct neuron_stat s;

	const int dev = NEURON_STATS_DEVICE;
	const unsigned int t = NEURON_STATS_HOST_TENSORS;

	neuron_stat_inc(&nd->stats.host[t], 8);
	KUNIT_EXPECT_EQ(test, 0, neuron_stats_clear(nd, dev, t, NEURON_STAT_PRESENT));
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, dev, t, &s));
	KUNIT_EXPECT_EQ(test, 8ULL, s.total);
	KUNIT_EXPECT_EQ(test, 0ULL, s.present);
	KUNIT_EXPECT_EQ(test, 8ULL, s.peak);
	KUNIT_EXPECT_EQ(test, 0, neuron_stats_clear(nd, dev, t, NEURON_STAT_PEAK));
	KUNIT_EXPECT_EQ(test, 0, neuron_stats_clear(nd, dev, t, NEURON_STAT_TOTAL));
	KUNIT_ASSERT_EQ(test, 0, neuron_stats_read(nd, dev, t, &s));
	KUNIT_EXPECT_EQ(test, 0ULL, s.total + s.present + s.peak);

	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_stats_read(nd, NEURON_STATS_DEVICE,
							 NEURON_STATS_HOST_CATS, &s));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_stats_read(nd, NEURON_MAX_NC, 0, &s));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_stats_read(nd, -2, 0, &s));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_stats_read(nd, 0, NEURON_STATS_NC_COUNT, &s));
	neuron_stat_inc(&nd->stats.nc[0][0], 1);
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_stats_clear(nd, 0, 0, NEURON_STAT_FIELDS));
	KUNIT_EXPECT_EQ(test, 1ULL, nc_total(nd, 0, 0));
}

struct stats_seen {
	unsigned int calls;
	int nc[4];
	unsigned int id[4];
};

static void stats_listener(void *ctx, int nc, unsigned int id)
{
	struct stats_seen *seen = ctx;

	if (seen->calls < ARRAY_SIZE(seen->nc)) {
		seen->nc[seen->calls] = nc;
		seen->id[seen->calls] = id;
	}
	seen->calls++;
}

/* The listener hears each change once, with the counter's place, until removed. */
static void stats_notify(struct kunit *test)
{
	struct neuron_device *nd = stats_dev(test);
	struct neuron_mem_chunk mc = {
		.location = NEURON_MEM_HOST, .nc_id = 1, .size = PAGE_SIZE,
		.acct_type = NEURON_MEMALLOC_TYPE_MISC_HOST,
	};
	struct stats_seen seen = { 0 };

	neuron_stats_set_notify(nd, stats_listener, &seen);
	/* Listeners are not called until enabled. */
	neuron_stats_mem(nd, &mc, true);
	KUNIT_EXPECT_EQ(test, 0U, seen.calls);
	neuron_stats_mem(nd, &mc, false);
	neuron_stats_notify_enable(true);
	neuron_stats_mem(nd, &mc, true);
	neuron_stats_notify_enable(false);
	KUNIT_ASSERT_EQ(test, 2U, seen.calls);
	KUNIT_EXPECT_EQ(test, 1, seen.nc[0]);
	KUNIT_EXPECT_EQ(test, (unsigned int)NEURON_STATS_NC_HOST_MEM, seen.id[0]);
	KUNIT_EXPECT_EQ(test, NEURON_STATS_DEVICE, seen.nc[1]);
	KUNIT_EXPECT_EQ(test, (unsigned int)NEURON_STATS_HOST_APPLICATION_MEMORY, seen.id[1]);
	KUNIT_EXPECT_EQ(test, (u64)PAGE_SIZE, nc_total(nd, 1, NEURON_STATS_NC_HOST_MEM));
	KUNIT_EXPECT_EQ(test, (u64)PAGE_SIZE,
			nc_total(nd, NEURON_STATS_DEVICE, NEURON_STATS_HOST_APPLICATION_MEMORY));

	neuron_stats_notify_enable(true);
	neuron_stats_set_notify(nd, NULL, NULL);
	neuron_stats_mem(nd, &mc, false);
	neuron_stats_notify_enable(false);
	KUNIT_EXPECT_EQ(test, 2U, seen.calls);
	KUNIT_EXPECT_EQ(test, 0ULL, nc_total(nd, 1, NEURON_STATS_NC_HOST_MEM));
}

static struct kunit_case stats_cases[] = {
	KUNIT_CASE(stats_ops),
	KUNIT_CASE(stats_categories),
	KUNIT_CASE(stats_nds_layout),
	KUNIT_CASE(stats_nds_added),
	KUNIT_CASE(stats_resets),
	KUNIT_CASE(stats_clear),
	KUNIT_CASE(stats_notify),
	{}
};

static struct kunit_suite stats_suite = {
	.name = "neuron_core_stats",
	.test_cases = stats_cases,
};

kunit_test_suite(stats_suite);
