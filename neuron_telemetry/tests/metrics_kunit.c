// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the metrics blob of neuron_telemetry (metrics.c): the record
 * encoder's format and its 128-byte bound, the delta rule, the two most
 * used versions, and which records each tick carries, decoded back.
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <neuron/compat.h>
#include <neuron/ds.h>
#include <neuron/version.h>

#include "../telemetry.h"

/* Decoded records of a blob: value of record @id as a string, or NULL. */
struct rec {
	u8 id;
	char val[NEURON_TEL_BLOB_SIZE];
};

/* Decode @b into @r (at most @max); -1 if the records do not tile the blob. */
static int decode(const struct neuron_tel_blob *b, struct rec *r, int max)
{
	u32 off = 0;
	int n = 0;

	while (off < b->len) {
		u8 len;

		if (off + 2 > b->len || n == max)
			return -1;
		len = b->data[off + 1];
		if (off + 2 + len > b->len)
			return -1;
		r[n].id = b->data[off];
		memcpy(r[n].val, b->data + off + 2, len);
		r[n].val[len] = 0;
		n++;
		off += 2 + len;
	}
	return n;
}

static const char *find(const struct rec *r, int n, u8 id)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i].id == id)
			return r[i].val;
	return NULL;
}

static void blob_format_and_bound(struct kunit *test)
{
	struct neuron_tel_blob b = { 0 };
	char big[200];
	int i;

	KUNIT_EXPECT_TRUE(test, neuron_tel_blob_add(&b, 12, "0", 1));
	KUNIT_EXPECT_TRUE(test, neuron_tel_blob_add(&b, 200, "12345", 5));
	KUNIT_ASSERT_EQ(test, b.len, 10U);
	KUNIT_EXPECT_EQ(test, b.data[0], 12);
	KUNIT_EXPECT_EQ(test, b.data[1], 1);
	KUNIT_EXPECT_EQ(test, b.data[2], '0');
	KUNIT_EXPECT_EQ(test, b.data[3], 200);
	KUNIT_EXPECT_EQ(test, b.data[4], 5);
	KUNIT_EXPECT_EQ(test, memcmp(b.data + 5, "12345", 5), 0);
	/* A record that does not fit is left out, the next smaller one still goes. */
	memset(big, 'x', sizeof(big));
	KUNIT_EXPECT_FALSE(test, neuron_tel_blob_add(&b, 13, big, NEURON_TEL_BLOB_SIZE - 10 - 1));
	KUNIT_EXPECT_EQ(test, b.len, 10U);
	KUNIT_EXPECT_TRUE(test, neuron_tel_blob_add(&b, 13, big, NEURON_TEL_BLOB_SIZE - 10 - 2));
	KUNIT_EXPECT_EQ(test, b.len, (u32)NEURON_TEL_BLOB_SIZE);
	KUNIT_EXPECT_FALSE(test, neuron_tel_blob_add(&b, 14, "", 0));
	/* Longer than a length byte holds. */
	b.len = 0;
	KUNIT_EXPECT_FALSE(test, neuron_tel_blob_add(&b, 1, big, 256));
	for (i = 0; i < NEURON_TEL_BLOB_SIZE / 2; i++)
		KUNIT_EXPECT_TRUE(test, neuron_tel_blob_add(&b, i, "", 0));
	KUNIT_EXPECT_FALSE(test, neuron_tel_blob_add(&b, 99, "", 0));
}

static void delta_rule(struct kunit *test)
{
	u64 prev = 10, d = 0xdead;

	KUNIT_EXPECT_FALSE(test, neuron_tel_delta(10, &prev, &d));
	KUNIT_EXPECT_FALSE(test, neuron_tel_delta(9, &prev, &d));
	KUNIT_EXPECT_EQ(test, d, 0xdeadULL);
	KUNIT_EXPECT_TRUE(test, neuron_tel_delta(17, &prev, &d));
	KUNIT_EXPECT_EQ(test, d, 7ULL);
	/* The caller moves @prev when it posts: the delta is not consumed here. */
	KUNIT_EXPECT_EQ(test, prev, 10ULL);
	/* Across the 2^64 wrap. */
	prev = U64_MAX - 1;
	KUNIT_EXPECT_TRUE(test, neuron_tel_delta(3, &prev, &d));
	KUNIT_EXPECT_EQ(test, d, 5ULL);
}

static void top2_versions(struct kunit *test)
{
	struct neuron_ds_counters *ds = kunit_kzalloc(test, sizeof(*ds), GFP_KERNEL);
	static const u64 vals[] = { 5, 7, 7, 0, 9, 9, 9, 5 };
	u64 out[2] = { 0, 0 };
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ds);
	KUNIT_EXPECT_EQ(test, neuron_tel_top2(ds, 0, out), 0U);
	ds->rows = ARRAY_SIZE(vals);
	for (i = 0; i < ARRAY_SIZE(vals); i++)
		ds->nd[i][1] = vals[i];
	KUNIT_ASSERT_EQ(test, neuron_tel_top2(ds, 1, out), 2U);
	KUNIT_EXPECT_EQ(test, out[0], 9ULL);
	/* 5 and 7 tie: the first seen. */
	KUNIT_EXPECT_EQ(test, out[1], 5ULL);
	ds->rows = 1;
	KUNIT_EXPECT_EQ(test, neuron_tel_top2(ds, 1, out), 1U);
	KUNIT_EXPECT_EQ(test, out[0], 5ULL);
}

#define VER(maj, min, build)	((u64)(maj) << 40 | (u64)(min) << 32 | (build))

static void build_ticks(struct kunit *test)
{
	struct neuron_ds_counters *ds = kunit_kzalloc(test, sizeof(*ds), GFP_KERNEL);
	u64 *prev = kunit_kcalloc(test, NEURON_DS_NC_SUMS, sizeof(u64), GFP_KERNEL);
	struct rec *r = kunit_kcalloc(test, 64, sizeof(*r), GFP_KERNEL);
	struct neuron_tel_snap snap = { .instance = "i-0abc", .profile = 3, .fw_errors = 2 };
	struct neuron_tel_blob b;
	int n;

	KUNIT_ASSERT_NOT_NULL(test, ds);
	KUNIT_ASSERT_NOT_NULL(test, prev);
	KUNIT_ASSERT_NOT_NULL(test, r);
	snap.ds = ds;
	ds->rows = 2;
	ds->nd[0][NDS_ND_COUNTER_RUNTIME_VERSION] = VER(2, 20, 1234);
	ds->nd[1][NDS_ND_COUNTER_RUNTIME_VERSION] = VER(2, 19, 7);
	ds->nd[0][NDS_ND_COUNTER_FRAMEWORK_VERSION] = VER(1, 13, 1) | 2ULL << 48;
	ds->nd[1][NDS_ND_COUNTER_FEATURE_BITMAP] = 0x5;
	ds->nd[0][NDS_ND_COUNTER_FEATURE_BITMAP] = 0x2;
	ds->nd[1][NDS_ND_COUNTER_DEVICE_CLUSTER_ID] = 44;
	ds->nc[NDS_NC_COUNTER_INFER_COMPLETED] = 8;
	ds->nc[NDS_NC_COUNTER_ERR_HW] = 2;
	ds->nc[NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE] = 4;

	/* Tick 0: ids, profile, runtime versions, core counters, fw-io errors. */
	neuron_tel_build(&b, &snap, 0, prev);
	n = decode(&b, r, 64);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_STREQ(test, find(r, n, 12), "i-0abc");
	KUNIT_EXPECT_STREQ(test, find(r, n, 13), NEURON_DRIVER_VERSION);
	KUNIT_EXPECT_STREQ(test, find(r, n, 56), "3");
	KUNIT_EXPECT_STREQ(test, find(r, n, 180), "2.20.1234");
	KUNIT_EXPECT_STREQ(test, find(r, n, 181), "2.19.7");
	KUNIT_EXPECT_STREQ(test, find(r, n, 200), "8");
	KUNIT_EXPECT_STREQ(test, find(r, n, 206), "2");
	KUNIT_EXPECT_STREQ(test, find(r, n, 11), "2");
	KUNIT_EXPECT_NULL(test, find(r, n, 201));
	KUNIT_EXPECT_NULL(test, find(r, n, 222));
	KUNIT_EXPECT_NULL(test, find(r, n, 250));
	KUNIT_EXPECT_EQ(test, prev[NDS_NC_COUNTER_INFER_COMPLETED], 8ULL);

	/* Tick 1: versions, extended counters, features, cluster; no tick-0 records. */
	neuron_tel_build(&b, &snap, 1, prev);
	n = decode(&b, r, 64);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_STREQ(test, find(r, n, 12), "i-0abc");
	KUNIT_EXPECT_STREQ(test, find(r, n, 190), "1.13.1");
	KUNIT_EXPECT_STREQ(test, find(r, n, 191), "2");
	KUNIT_EXPECT_STREQ(test, find(r, n, 222), "4");
	KUNIT_EXPECT_STREQ(test, find(r, n, 250), "7");
	KUNIT_EXPECT_STREQ(test, find(r, n, 252), "44");
	KUNIT_EXPECT_NULL(test, find(r, n, 56));
	KUNIT_EXPECT_NULL(test, find(r, n, 200));
	KUNIT_EXPECT_NULL(test, find(r, n, 11));

	/* Nothing new: no counter record; then a delta of what grew only. */
	neuron_tel_build(&b, &snap, 0, prev);
	n = decode(&b, r, 64);
	KUNIT_EXPECT_NULL(test, find(r, n, 200));
	ds->nc[NDS_NC_COUNTER_INFER_COMPLETED] = 11;
	neuron_tel_build(&b, &snap, 0, prev);
	n = decode(&b, r, 64);
	KUNIT_EXPECT_STREQ(test, find(r, n, 200), "3");
	KUNIT_EXPECT_NULL(test, find(r, n, 206));
}

/* Counters left out for room are posted by a later blob, whole. */
static void build_overflow_keeps_deltas(struct kunit *test)
{
	struct neuron_ds_counters *ds = kunit_kzalloc(test, sizeof(*ds), GFP_KERNEL);
	u64 *prev = kunit_kcalloc(test, NEURON_DS_NC_SUMS, sizeof(u64), GFP_KERNEL);
	struct rec *r = kunit_kcalloc(test, 64, sizeof(*r), GFP_KERNEL);
	struct neuron_tel_snap snap = { .instance = "0" };
	struct neuron_tel_blob b;
	unsigned int id, posted = 0, round;
	int n, i;

	KUNIT_ASSERT_NOT_NULL(test, ds);
	KUNIT_ASSERT_NOT_NULL(test, prev);
	KUNIT_ASSERT_NOT_NULL(test, r);
	snap.ds = ds;
	/* Every counter at 19 digits: far more than 128 bytes. */
	for (id = 0; id < NEURON_DS_NC_SUMS; id++)
		ds->nc[id] = 1000000000000000000ULL;
	for (round = 0; round < 20; round++) {
		neuron_tel_build(&b, &snap, 0, prev);
		KUNIT_EXPECT_LE(test, b.len, (u32)NEURON_TEL_BLOB_SIZE);
		n = decode(&b, r, 64);
		KUNIT_ASSERT_GE(test, n, 0);
		for (i = 0; i < n; i++) {
			if (r[i].id < 200)
				continue;
			KUNIT_EXPECT_STREQ(test, r[i].val, "1000000000000000000");
			posted++;
		}
	}
	/* The 18 tick-0 counters, each once. */
	KUNIT_EXPECT_EQ(test, posted, 18U);
}

static struct kunit_case metrics_cases[] = {
	KUNIT_CASE(blob_format_and_bound),
	KUNIT_CASE(delta_rule),
	KUNIT_CASE(top2_versions),
	KUNIT_CASE(build_ticks),
	KUNIT_CASE(build_overflow_keeps_deltas),
	{}
};

static struct kunit_suite metrics_suite = {
	.name = "neuron_telemetry_metrics",
	.test_cases = metrics_cases,
};

kunit_test_suite(metrics_suite);

MODULE_DESCRIPTION("KUnit tests for neuron_telemetry's metrics blob");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
NEURON_IMPORT_TESTS_NS();
