// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: where the datastore's per-core counters are (datastore.c,
 * neuron_nds_nc_counter()), against the uapi layout: cores 0-3 with their
 * base and extended counters in two arrays, cores 4-15 in one block each.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <neuron/compat.h>
#include <neuron/neuron_driver_shared.h>

#include "../base/core.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

/* Byte offset of counter @id of core @nc, written out from the layout. */
static size_t slot_of(unsigned int nc, unsigned int id)
{
	if (nc >= 4)
		return 57984 + ((nc - 4) * 96 + id) * 8;
	if (id < 31)
		return 256 + (nc * 31 + id) * 8;
	return 55936 + (nc * 64 + id - 31) * 8;
}

static void ds_counter_layout(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, SZ_256K, GFP_KERNEL);
	unsigned int nc, id;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, NDS_EXT_NEURONCORE_NC_DATA_START + NDS_EXT_NEURONCORE_NC_DATA_SIZE,
			67200);
	/* Each counter its own value: a wrong slot reads another one's. */
	for (nc = 0; nc < 16; nc++)
		for (id = 0; id < NDS_EXT_NC_COUNTER_LAST; id++) {
			__le64 v = cpu_to_le64((u64)nc << 32 | id | 0x1000);

			memcpy(buf + slot_of(nc, id), &v, sizeof(v));
		}
	for (nc = 0; nc < 16; nc++)
		for (id = 0; id < NDS_EXT_NC_COUNTER_LAST; id++)
			KUNIT_EXPECT_EQ_MSG(test, neuron_nds_nc_counter(buf, nc, id),
					    (u64)nc << 32 | id | 0x1000,
					    "core %u counter %u", nc, id);
}

static struct kunit_case ds_cases[] = {
	KUNIT_CASE(ds_counter_layout),
	{}
};

static struct kunit_suite ds_suite = {
	.name = "neuron_core_ds",
	.test_cases = ds_cases,
};

kunit_test_suite(ds_suite);
