// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the text of stats/hardware/health_status/unhealthy_components
 * (neuron_telemetry/health.c): the names of the bits set, in bit order,
 * comma-separated, a bit without a name as bit<N>, an empty line when
 * every component is healthy.
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "../telemetry.h"

static void components_text(struct kunit *test)
{
	static const char * const names[] = {
		"hbm", "sram", "firmware_service_api", "firmware_service_processor",
		"link_intraserver", "link_host", "link_efa", "link_interserver", "link_switch",
		"axi_fabric",
	};
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char want[256];
	unsigned int i;
	int len, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = neuron_tel_health_components(0, buf);
	KUNIT_EXPECT_EQ(test, 1, len);
	KUNIT_EXPECT_STREQ(test, "\n", buf);

	len = neuron_tel_health_components(BIT(0), buf);
	KUNIT_EXPECT_STREQ(test, "hbm\n", buf);
	KUNIT_EXPECT_EQ(test, 4, len);

	neuron_tel_health_components(BIT(1) | BIT(5) | BIT(9), buf);
	KUNIT_EXPECT_STREQ(test, "sram,link_host,axi_fabric\n", buf);

	/* Bits 0-9, all named, in bit order. */
	len = neuron_tel_health_components(0x3ff, buf);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		n += scnprintf(want + n, sizeof(want) - n, "%s%s", i ? "," : "", names[i]);
	n += scnprintf(want + n, sizeof(want) - n, "\n");
	KUNIT_EXPECT_STREQ(test, want, buf);
	KUNIT_EXPECT_EQ(test, n, len);

	/* Bits without a name keep their number. */
	neuron_tel_health_components(BIT(6) | BIT(10) | BIT(31), buf);
	KUNIT_EXPECT_STREQ(test, "link_efa,bit10,bit31\n", buf);

	/* Every bit set still fits a page. */
	len = neuron_tel_health_components(U32_MAX, buf);
	KUNIT_EXPECT_LT(test, len, (int)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, '\n', buf[len - 1]);
}

static struct kunit_case health_cases[] = {
	KUNIT_CASE(components_text),
	{}
};

static struct kunit_suite health_suite = {
	.name = "neuron_telemetry_health",
	.test_cases = health_cases,
};

kunit_test_suite(health_suite);
