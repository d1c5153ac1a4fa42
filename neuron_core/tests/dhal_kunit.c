// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DHAL registration rules and the state names the device layer
 * reports.  Descriptors here use PCI ids no Neuron device has (0xfffx), so
 * no real device ever binds to them.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/dhal.h>

static const struct neuron_dhal_arch test_archs[] = {
	{ 0xfff0, "NDt", "NCt", "Test", "Testium" },
	{ 0xfff1, "NDt", "NCt", "Test", "Testium" },
};

static const u64 test_hbm_base[] = { 0 };

static const struct neuron_dhal_layout test_layout = {
	.apb_bar = 0,
	.dram_bar = 4,
	.misc_ram_offset = 0x1000,
	.nc_count = 1,
	.nc_map = 0x1,
};

static const struct neuron_dhal_mem test_mem = {
	.hbm_count = 1,
	.hbm_base = test_hbm_base,
	.hbm_size = { 0x100000 },
};

static const struct neuron_dhal_fw test_fw = {
	.reset_poll_ms = 10,
	.reset_timeout_ms = 100,
};

/* A valid descriptor for the PCI ids of @archs_ (an array, named once). */
#define TEST_DHAL(archs_) {				\
	.owner = THIS_MODULE,				\
	.name = "neuron_dhal_kunit",			\
	.generation = 99,				\
	.archs = archs_,				\
	.n_archs = sizeof(archs_) / sizeof(test_archs[0]), \
	.layout = &test_layout,				\
	.mem = &test_mem,				\
	.fw = &test_fw,					\
}

static void dhal_register_and_unregister(struct kunit *test)
{
	static const struct neuron_dhal good = TEST_DHAL(test_archs);

	KUNIT_ASSERT_EQ(test, neuron_dhal_register(&good), 0);
	/* The same PCI ids cannot be claimed twice. */
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&good), -EEXIST);
	neuron_dhal_unregister(&good);
	/* Once withdrawn, they can be registered again. */
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&good), 0);
	neuron_dhal_unregister(&good);
}

static void dhal_overlapping_ids_refused(struct kunit *test)
{
	static const struct neuron_dhal_arch other_archs[] = {
		{ 0xfff2, "NDt", "NCt", "Test", "Testium" },
		{ 0xfff1, "NDt", "NCt", "Test", "Testium" },	/* taken by @first */
	};
	static const struct neuron_dhal first = TEST_DHAL(test_archs);
	static const struct neuron_dhal second = TEST_DHAL(other_archs);

	KUNIT_ASSERT_EQ(test, neuron_dhal_register(&first), 0);
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&second), -EEXIST);
	neuron_dhal_unregister(&first);
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&second), 0);
	neuron_dhal_unregister(&second);
}

static void dhal_malformed_refused(struct kunit *test)
{
	static const struct neuron_dhal_arch no_name[] = {
		{ 0xfff3, "NDt", "NCt", "Test", NULL },
	};
	static const struct neuron_dhal_layout same_bar = {
		.apb_bar = 4, .dram_bar = 4, .nc_count = 1,
	};
	static const struct neuron_dhal_layout bad_bar = {
		.apb_bar = 6, .dram_bar = 4, .nc_count = 1,
	};
	static const struct neuron_dhal_layout no_cores = {
		.apb_bar = 0, .dram_bar = 4, .nc_count = 0,
	};
	static const struct neuron_dhal_mem too_many_hbm = {
		.hbm_count = NEURON_MAX_HBM + 1, .hbm_base = test_hbm_base,
	};
	static const struct neuron_dhal_mem no_bases = { .hbm_count = 1 };
	static const struct neuron_dhal_fw no_timeout = { .reset_poll_ms = 10 };
	struct neuron_dhal d;

	KUNIT_EXPECT_EQ(test, neuron_dhal_register(NULL), -EINVAL);

	d = (struct neuron_dhal)TEST_DHAL(no_name);
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);

	d = (struct neuron_dhal)TEST_DHAL(test_archs);
	d.n_archs = 0;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);

	d = (struct neuron_dhal)TEST_DHAL(test_archs);
	d.name = NULL;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);

	d = (struct neuron_dhal)TEST_DHAL(test_archs);
	d.layout = &same_bar;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);
	d.layout = &bad_bar;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);
	d.layout = &no_cores;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);
	d.layout = NULL;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);

	d = (struct neuron_dhal)TEST_DHAL(test_archs);
	d.mem = &too_many_hbm;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);
	d.mem = &no_bases;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);

	d = (struct neuron_dhal)TEST_DHAL(test_archs);
	d.fw = &no_timeout;
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), -EINVAL);

	/* None of the refused descriptors left anything behind. */
	d = (struct neuron_dhal)TEST_DHAL(test_archs);
	KUNIT_EXPECT_EQ(test, neuron_dhal_register(&d), 0);
	neuron_dhal_unregister(&d);
}

static void device_state_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(NEURON_STATE_READY), "ready");
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(NEURON_STATE_FAILED), "failed");
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(NEURON_STATE_RESETTING), "resetting");
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(NEURON_STATE_WAIT_DHAL),
			   "waiting-for-dhal");
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(NEURON_STATE_GONE), "removed");
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(NEURON_STATE_GONE + 1), "unknown");
	KUNIT_EXPECT_STREQ(test, neuron_device_state_name(-1), "unknown");
}

static void device_create_rejects_bad_descriptions(struct kunit *test)
{
	struct neuron_bus_desc desc = {};

	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_device_create(NULL)), -EINVAL);
	/* No parent device, no BAR mapping callback. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_device_create(&desc)), -EINVAL);
}

static struct kunit_case dhal_cases[] = {
	KUNIT_CASE(dhal_register_and_unregister),
	KUNIT_CASE(dhal_overlapping_ids_refused),
	KUNIT_CASE(dhal_malformed_refused),
	KUNIT_CASE(device_state_names),
	KUNIT_CASE(device_create_rejects_bad_descriptions),
	{}
};

static struct kunit_suite dhal_suite = {
	.name = "neuron_core_dhal",
	.test_cases = dhal_cases,
};

kunit_test_suite(dhal_suite);
