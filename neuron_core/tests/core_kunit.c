// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what neuron_core sets up at load, before any device exists.
 */

#include <kunit/test.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/string.h>

#include <neuron/compat.h>
#include <neuron/version.h>

#include "../base/core.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

/* The region spans exactly NEURON_MAX_DEVICES minors and nobody else can take them. */
static void core_chrdev_region_reserved(struct kunit *test)
{
	dev_t base = neuron_core_devt();
	dev_t past = MKDEV(MAJOR(base), MINOR(base) + NEURON_MAX_DEVICES);
	int ret;

	KUNIT_ASSERT_NE(test, MAJOR(base), 0);
	KUNIT_EXPECT_EQ(test, MINOR(base), 0);

	/* First and last minor are taken. */
	KUNIT_EXPECT_EQ(test, register_chrdev_region(base, 1, "neuron-kunit"), -EBUSY);
	KUNIT_EXPECT_EQ(test,
			register_chrdev_region(base + NEURON_MAX_DEVICES - 1, 1,
					       "neuron-kunit"),
			-EBUSY);

	/* The minor just past the region is free: the region is not larger. */
	ret = register_chrdev_region(past, 1, "neuron-kunit");
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret)
		unregister_chrdev_region(past, 1);
}

static void core_class_registered(struct kunit *test)
{
	const struct class *cls = neuron_core_class();

	KUNIT_ASSERT_NOT_NULL(test, cls);
	KUNIT_EXPECT_STREQ(test, cls->name, "neuron_device");
	KUNIT_EXPECT_TRUE(test, class_is_registered(cls));
}

static int match_any(struct device *dev, const void *data)
{
	return 1;
}

/* With no device added, the class holds no device: no /dev/neuronN exists. */
static void core_no_device_without_hardware(struct kunit *test)
{
	struct device *dev;

	dev = class_find_device(neuron_core_class(), NULL, NULL, match_any);
	if (dev) {
		KUNIT_FAIL(test, "unexpected device %s in class", dev_name(dev));
		put_device(dev);
	}
}

static struct kunit_case core_module_cases[] = {
	KUNIT_CASE(core_chrdev_region_reserved),
	KUNIT_CASE(core_class_registered),
	KUNIT_CASE(core_no_device_without_hardware),
	{}
};

static struct kunit_suite core_module_suite = {
	.name = "neuron_core_module",
	.test_cases = core_module_cases,
};

kunit_test_suite(core_module_suite);

MODULE_DESCRIPTION("KUnit tests for neuron_core module setup");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
NEURON_IMPORT_TESTS_NS();
MODULE_IMPORT_NS(NEURON_NS);
