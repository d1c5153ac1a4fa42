// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the device layer's bring-up state machine, driven through a fake
 * bus whose registers are a small array in this file: bind, map, identify,
 * reset, publish; a failing and a hanging reset; waiting for a DHAL that
 * registers later; removal in the middle of a reset.  Routing ids 60..63
 * and PCI ids 0xfffx keep clear of simulated devices.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/dhal.h>

#define FAKE_MISC		0x1000
#define FAKE_BAR0_SIZE		0x2000
#define REG_ROUTING_ID		(FAKE_MISC + 0x024)
#define REG_RESET_TYPE		(FAKE_MISC + 0x1ec)
#define REG_DOORBELL		(FAKE_MISC + 0x800)
#define REG_FW_STATUS		(FAKE_MISC + 0x808)
#define FW_STATUS_BUSY		0x8

enum fake_mode { FAKE_OK, FAKE_FAIL, FAKE_HANG };

/**
 * struct fake_dev - a device whose firmware is this file
 * @lock: protects @regs and @resets
 * @regs: register BAR contents
 * @mode: how the fake firmware answers a reset
 * @resets: resets it completed
 * @parent: the KUnit device it hangs off (its DMA mask is checked)
 */
struct fake_dev {
	/* Protects regs and resets. */
	spinlock_t lock;
	u32 regs[FAKE_BAR0_SIZE / 4];
	enum fake_mode mode;
	unsigned int resets;
	struct device *parent;
};

static u32 fake_read32(void *ctx, unsigned int bar, u64 off)
{
	struct fake_dev *f = ctx;
	u32 v = 0;

	if (bar == 0) {
		spin_lock(&f->lock);
		v = f->regs[off / 4];
		spin_unlock(&f->lock);
	}
	return v;
}

static void fake_write32(void *ctx, unsigned int bar, u64 off, u32 val)
{
	struct fake_dev *f = ctx;

	if (bar != 0)
		return;
	spin_lock(&f->lock);
	f->regs[off / 4] = val;
	if (off == REG_DOORBELL && val == 1 && f->regs[REG_RESET_TYPE / 4]) {
		switch (f->mode) {
		case FAKE_OK:
			f->regs[REG_FW_STATUS / 4] &= ~FW_STATUS_BUSY;
			f->regs[REG_RESET_TYPE / 4] = 0;
			f->resets++;
			break;
		case FAKE_FAIL:
			f->regs[REG_FW_STATUS / 4] |= FW_STATUS_BUSY;
			f->regs[REG_RESET_TYPE / 4] = 0;
			break;
		case FAKE_HANG:
			break;
		}
	}
	spin_unlock(&f->lock);
}

static const struct neuron_reg_ops fake_reg_ops = {
	.read32 = fake_read32,
	.write32 = fake_write32,
};

static int fake_map_bar(void *ctx, unsigned int bar, bool wc, struct neuron_bar *out)
{
	out->iomem = NULL;
	out->phys = 0;
	out->size = bar == 0 ? FAKE_BAR0_SIZE : 0x1000;
	return 0;
}

static const struct neuron_dhal_arch fake_archs[] = {
	{ 0xfff8, "NDt", "NCt", "Test", "Testium" },
};

static const struct neuron_dhal_arch late_archs[] = {
	{ 0xfff9, "NDt", "NCt", "Test", "Testium" },
};

static const u64 fake_hbm_base[] = { 0 };

static const struct neuron_dhal_layout fake_layout = {
	.apb_bar = 0,
	.dram_bar = 4,
	.misc_ram_offset = FAKE_MISC,
	.nc_count = 1,
	.nc_map = 0x1,
	.pci_host_base = 1ULL << 44,
};

static const struct neuron_dhal_mem fake_mem = {
	.hbm_count = 1,
	.hbm_base = fake_hbm_base,
	.hbm_size = { 0x1000 },
};

static const struct neuron_dhal_fw fake_fw = {
	.reset_poll_ms = 10,
	.reset_timeout_ms = 300,
};

static const struct neuron_dhal fake_dhal = {
	.owner = THIS_MODULE,
	.name = "neuron_dhal_kunit_fake",
	.generation = 99,
	.archs = fake_archs,
	.n_archs = ARRAY_SIZE(fake_archs),
	.layout = &fake_layout,
	.mem = &fake_mem,
	.fw = &fake_fw,
};

static const struct neuron_dhal late_dhal = {
	.owner = THIS_MODULE,
	.name = "neuron_dhal_kunit_late",
	.generation = 99,
	.archs = late_archs,
	.n_archs = ARRAY_SIZE(late_archs),
	.layout = &fake_layout,
	.mem = &fake_mem,
	.fw = &fake_fw,
};

static void fake_destroy(void *nd)
{
	neuron_device_destroy(nd);
}

/* A fake device reporting routing id @rid, answering resets per @mode. */
static struct neuron_bus_device *fake_create(struct kunit *test, struct fake_dev **fp,
					     u16 pci_device, u32 rid, enum fake_mode mode)
{
	struct neuron_bus_desc desc = {
		.id = { .vendor = 0x1d0f, .device = pci_device },
		.map_bar = fake_map_bar,
		.reg_ops = &fake_reg_ops,
		.simulated = true,
	};
	static atomic_t seq = ATOMIC_INIT(0);
	struct neuron_bus_device *nd;
	struct device *parent;
	struct fake_dev *f;
	char name[32];

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	spin_lock_init(&f->lock);
	f->regs[REG_ROUTING_ID / 4] = rid;
	f->mode = mode;
	/* Each registration also registers a driver: names must differ. */
	snprintf(name, sizeof(name), "neuron-kunit-fake%d", atomic_inc_return(&seq));
	parent = kunit_device_register(test, name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(parent));
	/* As wide as a PCI function's after probe: bring-up narrows it. */
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(parent, DMA_BIT_MASK(64)), 0);
	f->parent = parent;
	desc.parent = parent;
	desc.ctx = f;
	nd = neuron_device_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(nd));
	/* Removed at the end of the test, or earlier by fake_remove(). */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fake_destroy, nd), 0);
	*fp = f;
	return nd;
}

static void fake_remove(struct kunit *test, struct neuron_bus_device *nd)
{
	kunit_release_action(test, fake_destroy, nd);
}

/* Wait up to @ms for @nd to reach @want; return the state it has then. */
static enum neuron_device_state wait_state(struct neuron_bus_device *nd,
					   enum neuron_device_state want, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (neuron_bus_device_state(nd) != want && time_before(jiffies, end))
		msleep(20);
	return neuron_bus_device_state(nd);
}

static int device_suite_init(struct kunit_suite *suite)
{
	return neuron_dhal_register(&fake_dhal);
}

static void device_suite_exit(struct kunit_suite *suite)
{
	neuron_dhal_unregister(&fake_dhal);
}

static void bringup_ready(struct kunit *test)
{
	struct neuron_bus_device *nd;
	struct fake_dev *f;

	nd = fake_create(test, &f, 0xfff8, 60, FAKE_OK);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(nd), 60);
	/* No DMA address may reach the host bit the device ORs in. */
	KUNIT_EXPECT_EQ(test, dma_get_mask(f->parent), DMA_BIT_MASK(44));
	KUNIT_EXPECT_EQ(test, f->resets, 1U);
	/* A reset on request goes through the firmware again. */
	KUNIT_EXPECT_EQ(test, neuron_bus_device_reset(nd), 0);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	KUNIT_EXPECT_EQ(test, f->resets, 2U);
	fake_remove(test, nd);
}

static void bringup_reset_fails(struct kunit *test)
{
	struct neuron_bus_device *nd;
	struct fake_dev *f;

	nd = fake_create(test, &f, 0xfff8, 61, FAKE_FAIL);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_FAILED, 5000), NEURON_STATE_FAILED);
	/* Identified, so it keeps its index and can be reset again. */
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(nd), 61);
	f->mode = FAKE_OK;
	KUNIT_EXPECT_EQ(test, neuron_bus_device_reset(nd), 0);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	fake_remove(test, nd);
}

static void bringup_reset_times_out(struct kunit *test)
{
	unsigned long start = jiffies;
	struct neuron_bus_device *nd;
	struct fake_dev *f;

	nd = fake_create(test, &f, 0xfff8, 62, FAKE_HANG);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_FAILED, 5000), NEURON_STATE_FAILED);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start), fake_fw.reset_timeout_ms);
	fake_remove(test, nd);
}

static void bringup_bad_routing_id(struct kunit *test)
{
	struct neuron_bus_device *nd, *first;
	struct fake_dev *f;

	nd = fake_create(test, &f, 0xfff8, 64, FAKE_OK);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_FAILED, 5000), NEURON_STATE_FAILED);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(nd), -1);
	fake_remove(test, nd);

	first = fake_create(test, &f, 0xfff8, 63, FAKE_OK);
	KUNIT_ASSERT_EQ(test, wait_state(first, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	nd = fake_create(test, &f, 0xfff8, 63, FAKE_OK);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_FAILED, 5000), NEURON_STATE_FAILED);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(nd), -1);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(first), 63);
	fake_remove(test, nd);
	fake_remove(test, first);
}

static void bringup_waits_for_its_dhal(struct kunit *test)
{
	struct neuron_bus_device *nd;
	struct fake_dev *f;

	nd = fake_create(test, &f, 0xfff9, 60, FAKE_OK);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_WAIT_DHAL, 5000),
			NEURON_STATE_WAIT_DHAL);
	msleep(50);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_state(nd), NEURON_STATE_WAIT_DHAL);
	KUNIT_ASSERT_EQ(test, neuron_dhal_register(&late_dhal), 0);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	fake_remove(test, nd);
	neuron_dhal_unregister(&late_dhal);
}

/*
 * A DHAL that unregisters takes its devices down with it, leaves the others
 * alone, and brings them back when it registers again.
 */
static void dhal_unregister_detaches_its_devices(struct kunit *test)
{
	struct neuron_bus_device *late, *other;
	struct fake_dev *f, *g;

	KUNIT_ASSERT_EQ(test, neuron_dhal_register(&late_dhal), 0);
	late = fake_create(test, &f, 0xfff9, 58, FAKE_OK);
	other = fake_create(test, &g, 0xfff8, 59, FAKE_OK);
	KUNIT_ASSERT_EQ(test, wait_state(late, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	KUNIT_ASSERT_EQ(test, wait_state(other, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	KUNIT_EXPECT_EQ(test, f->resets, 1U);

	neuron_dhal_unregister(&late_dhal);
	/* Torn down at once: no node, no index, waiting for its DHAL. */
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(late), -1);
	KUNIT_EXPECT_EQ(test, wait_state(late, NEURON_STATE_WAIT_DHAL, 5000),
			NEURON_STATE_WAIT_DHAL);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_state(other), NEURON_STATE_READY);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(other), 59);
	KUNIT_EXPECT_EQ(test, g->resets, 1U);

	KUNIT_ASSERT_EQ(test, neuron_dhal_register(&late_dhal), 0);
	KUNIT_EXPECT_EQ(test, wait_state(late, NEURON_STATE_READY, 5000), NEURON_STATE_READY);
	KUNIT_EXPECT_EQ(test, neuron_bus_device_index(late), 58);
	/* Brought up again from the start: identified and reset once more. */
	KUNIT_EXPECT_EQ(test, f->resets, 2U);
	fake_remove(test, late);
	fake_remove(test, other);
	neuron_dhal_unregister(&late_dhal);
}

static void destroy_during_reset(struct kunit *test)
{
	struct neuron_bus_device *nd;
	struct fake_dev *f;
	unsigned long start;

	nd = fake_create(test, &f, 0xfff8, 61, FAKE_HANG);
	KUNIT_EXPECT_EQ(test, wait_state(nd, NEURON_STATE_RESETTING, 5000),
			NEURON_STATE_RESETTING);
	start = jiffies;
	fake_remove(test, nd);
	/* The worker's sleep ends at once; it does not run out the timeout. */
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - start), fake_fw.reset_timeout_ms);
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE(bringup_ready),
	KUNIT_CASE(bringup_reset_fails),
	KUNIT_CASE(bringup_reset_times_out),
	KUNIT_CASE(bringup_bad_routing_id),
	KUNIT_CASE(bringup_waits_for_its_dhal),
	KUNIT_CASE(dhal_unregister_detaches_its_devices),
	KUNIT_CASE(destroy_during_reset),
	{}
};

static struct kunit_suite device_suite = {
	.name = "neuron_core_device",
	.suite_init = device_suite_init,
	.suite_exit = device_suite_exit,
	.test_cases = device_cases,
};

kunit_test_suite(device_suite);
