// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the test harness, never shipped.
 *
 * Loaded without parameters it runs one passing KUnit case, which shows
 * that `make check` finds, runs and counts KUnit suites.  The harness test
 * (tools/test/harness-selftest) loads it with plant=fail, plant=warn or
 * plant=leak and expects the run to fail in each case: a failing KUnit
 * case, a kernel WARNING and a kmemleak report must each be caught.
 */

#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <neuron/version.h>

static char *plant = "";
module_param(plant, charp, 0444);
MODULE_PARM_DESC(plant, "Plant a fault for the harness test: fail, warn or leak");

/* Leaked on purpose with plant=leak; only the (lost) pointer lives here. */
static void harness_leak(void)
{
	char *p = kmalloc(96, GFP_KERNEL);

	if (p)
		strscpy(p, "neuron harness planted leak", 96);
	/* p goes out of scope without kfree(): kmemleak must report it. */
}

static void harness_case(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, 16, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	strscpy(buf, "neuron", 16);
	KUNIT_EXPECT_STREQ(test, buf, "neuron");

	if (!strcmp(plant, "fail"))
		KUNIT_FAIL(test, "planted failure (plant=fail)");
	else if (!strcmp(plant, "warn"))
		WARN_ON(1);
	else if (!strcmp(plant, "leak"))
		harness_leak();
}

static struct kunit_case harness_cases[] = {
	KUNIT_CASE(harness_case),
	{}
};

static struct kunit_suite harness_suite = {
	.name = "neuron_harness",
	.test_cases = harness_cases,
};

kunit_test_suite(harness_suite);

MODULE_DESCRIPTION("Neuron test-harness self-test (plants failures on request)");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
