// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the simulator's DMA engines executing what neuron_udma builds.
 * A v3 simulated device is built by hand (no core device); neuron_udma's
 * two register functions are redirected to the simulator's register
 * callbacks, so every doorbell reaches the engine model.  Host memory is
 * mapped with the DMA API for the simulated device, as the driver does.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/udma.h>
#include <neuron/version.h>

#include "nsim_kunit.h"

#define HOST_BIT	BIT_ULL(46)
#define BUF_SIZE	(4 * PAGE_SIZE)
#define RING_DESCS	64
#define M2S_RING	0
#define S2M_RING	(RING_DESCS * NEURON_UDMA_DESC_SIZE)
#define SRC_OFF		PAGE_SIZE
#define DST_OFF		(2 * PAGE_SIZE)
#define MARKER_OFF	(3 * PAGE_SIZE)
/* HBM 1 of v3, which the simulator maps at a quarter of BAR 4. */
#define HBM1		0x4000000000ULL

/**
 * struct sim_ctx - one test's device and buffers
 * @sd: the simulated device
 * @bar4: its device memory as mapped
 * @eng: the engine under test
 * @buf: host memory: rings, source, destination, marker
 * @dma: DMA address of @buf
 */
struct sim_ctx {
	struct nsim_dev *sd;
	struct neuron_bar bar4;
	struct neuron_udma_engine eng;
	u8 *buf;
	dma_addr_t dma;
};

static u32 sim_rd(const struct neuron_udma_engine *eng, u64 off)
{
	struct sim_ctx *c = kunit_get_current_test()->priv;

	return c->sd->desc.reg_ops->read32(c->sd, eng->bar, eng->base + off);
}

static void sim_wr(const struct neuron_udma_engine *eng, u64 off, u32 val)
{
	struct sim_ctx *c = kunit_get_current_test()->priv;

	c->sd->desc.reg_ops->write32(c->sd, eng->bar, eng->base + off, val);
}

/* Device-view address of @off in the host buffer. */
static u64 hv(struct sim_ctx *c, size_t off)
{
	return (c->dma + off) | HOST_BIT;
}

static int sim_test_init(struct kunit *test)
{
	struct neuron_udma_ring_cfg m2s, s2m;
	struct sim_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	nsim_kunit_dma_dev(test, &nsim_gens[NSIM_GEN_V3], 63, "neuron_sim_kunit", &c->sd, &c->bar4);
	nsim_kunit_host_buf(test, c->sd, BUF_SIZE, &c->buf, &c->dma);

	kunit_activate_static_stub(test, neuron_udma_rd, sim_rd);
	kunit_activate_static_stub(test, neuron_udma_wr, sim_wr);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(&c->eng, NULL, neuron_dhal_v3.udma,
						      128), 0);
	neuron_udma_engine_error_setup(&c->eng);
	m2s.va = (void *)(c->buf + M2S_RING);
	m2s.addr = hv(c, M2S_RING);
	m2s.size = RING_DESCS;
	s2m.va = (void *)(c->buf + S2M_RING);
	s2m.addr = hv(c, S2M_RING);
	s2m.size = RING_DESCS;
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_init(&c->eng, 1, &m2s, &s2m), 0);
	return 0;
}

static void sim_test_exit(struct kunit *test)
{
	struct sim_ctx *c = test->priv;

	if (c)
		nsim_kunit_dma_dev_put(c->sd, c->buf, c->dma, BUF_SIZE);
}

/* Queue a copy and its marker, ring the doorbell; whether the marker landed. */
static bool run_copy(struct kunit *test, u64 src, u64 dst, u64 len)
{
	struct sim_ctx *c = test->priv;
	struct neuron_udma_queue *q = &c->eng.queue[1];
	__le32 *marker = (__le32 *)(c->buf + MARKER_OFF);
	int n;

	neuron_udma_marker_arm(marker);
	n = neuron_udma_copy_prepare(q, src, dst, len, 0);
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, neuron_udma_marker_prepare(q, hv(c, MARKER_OFF),
							 hv(c, MARKER_OFF + 4),
							 NEURON_UDMA_COPY_WR_BARRIER), 1);
	neuron_udma_submit(q);
	if (!neuron_udma_marker_seen(marker))
		return false;
	KUNIT_EXPECT_EQ(test, neuron_udma_ack(q, n + 1), 0);
	return true;
}

static void sim_dma_host_device_host(struct kunit *test)
{
	struct sim_ctx *c = test->priv;
	struct neuron_udma_queue_state st;
	u8 *mem = c->sd->mem;
	unsigned int i;

	for (i = 0; i < PAGE_SIZE; i++)
		c->buf[SRC_OFF + i] = i * 7 + 3;
	/* Host to HBM 1 at 0x100: BAR 4 offset 256 KiB + 0x100. */
	KUNIT_ASSERT_TRUE(test, run_copy(test, hv(c, SRC_OFF), HBM1 + 0x100, PAGE_SIZE));
	KUNIT_EXPECT_MEMEQ(test, mem + SZ_256K + 0x100, c->buf + SRC_OFF, PAGE_SIZE);
	/* Back to host memory. */
	KUNIT_ASSERT_TRUE(test, run_copy(test, HBM1 + 0x100, hv(c, DST_OFF), PAGE_SIZE));
	KUNIT_EXPECT_MEMEQ(test, c->buf + DST_OFF, c->buf + SRC_OFF, PAGE_SIZE);

	/* The engine reports what it executed: 4 pairs, head == tail. */
	neuron_udma_queue_state(&c->eng.queue[1], &st);
	KUNIT_EXPECT_TRUE(test, st.m2s.enabled);
	KUNIT_EXPECT_EQ(test, st.m2s.tail, 4U);
	KUNIT_EXPECT_EQ(test, st.m2s.head, 4U);
	KUNIT_EXPECT_EQ(test, st.s2m.head, 4U);
	KUNIT_EXPECT_EQ(test, st.m2s.head_ring_id, 1);
	KUNIT_EXPECT_EQ(test, c->sd->dma_errors, 0U);
	KUNIT_EXPECT_EQ(test, c->sd->dma_bytes, 2ULL * PAGE_SIZE + 8);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, false), NEURON_UDMA_NORMAL);
}

static void sim_dma_wrap(struct kunit *test)
{
	struct sim_ctx *c = test->priv;
	struct neuron_udma_queue_state st;
	unsigned int i;

	/* 3 laps of a 64-descriptor ring: ring ids 1, 2, 3, then 0. */
	for (i = 0; i < 3 * RING_DESCS / 2; i++) {
		c->buf[SRC_OFF] = i;
		KUNIT_ASSERT_TRUE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF + i % 8), 1));
		KUNIT_ASSERT_EQ(test, c->buf[DST_OFF + i % 8], (u8)i);
	}
	neuron_udma_queue_state(&c->eng.queue[1], &st);
	KUNIT_EXPECT_EQ(test, st.m2s.head, 0U);
	KUNIT_EXPECT_EQ(test, st.m2s.head_ring_id, 0);
	KUNIT_EXPECT_EQ(test, st.s2m.tail_ring_id, 0);
	KUNIT_EXPECT_EQ(test, c->sd->dma_errors, 0U);
}

static void sim_dma_bad_addresses(struct kunit *test)
{
	struct sim_ctx *c = test->priv;
	struct neuron_udma_queue *q = &c->eng.queue[1];

	/* Not RAM: refused, the engine aborts, nothing crashes. */
	KUNIT_EXPECT_FALSE(test, run_copy(test, BIT_ULL(45) | HOST_BIT, hv(c, DST_OFF), 64));
	KUNIT_EXPECT_EQ(test, c->sd->dma_errors, 1U);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, false), NEURON_UDMA_ABORTED);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, true), NEURON_UDMA_ABORTED);

	/* Recover: run the engine again, reset the queue. */
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_set_state(&c->eng, NEURON_UDMA_NORMAL), 0);
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_reset(q), 0);
	KUNIT_EXPECT_TRUE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF), 64));

	/* Past the end of HBM 0's slice of the RAM window. */
	KUNIT_EXPECT_FALSE(test, run_copy(test, SZ_256K - 32, hv(c, DST_OFF), 64));
	KUNIT_EXPECT_EQ(test, c->sd->dma_errors, 2U);
}

static void sim_dma_faults(struct kunit *test)
{
	struct sim_ctx *c = test->priv;
	struct neuron_udma_queue *q = &c->eng.queue[1];

	nsim_dma_set_fault(c->sd, true, true);
	KUNIT_EXPECT_FALSE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF), 16));
	/* Clearing the stall runs what was held back. */
	nsim_dma_set_fault(c->sd, true, false);
	KUNIT_EXPECT_TRUE(test, neuron_udma_marker_seen((__le32 *)(c->buf + MARKER_OFF)));
	KUNIT_EXPECT_EQ(test, neuron_udma_ack(q, 2), 0);

	nsim_dma_set_fault(c->sd, false, true);
	KUNIT_EXPECT_FALSE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF), 16));
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, false), NEURON_UDMA_ABORTED);
	KUNIT_EXPECT_EQ(test, c->sd->dma_errors, 1U);
	/* One shot: after recovery the next copy works. */
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_set_state(&c->eng, NEURON_UDMA_NORMAL), 0);
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_reset(q), 0);
	KUNIT_EXPECT_TRUE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF), 16));
}

/*
 * dma_busy_after_disable: an engine told to stop with a transfer held back
 * keeps running (the driver's quiesce times out) and keeps the transfer
 * across a queue reset; let go, it runs it and then stops.  Clearing the
 * switch stops such an engine at once.
 */
static void sim_dma_busy_after_disable(struct kunit *test)
{
	struct sim_ctx *c = test->priv;
	struct neuron_udma_queue *q = &c->eng.queue[1];
	__le32 *marker = (__le32 *)(c->buf + MARKER_OFF);
	struct neuron_udma_queue_state st;

	/* Nothing to run: the stop takes effect at once, switch or not. */
	nsim_dma_set_busy_after_disable(c->sd, true);
	KUNIT_EXPECT_TRUE(test, nsim_dma_get_busy_after_disable(c->sd));
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_quiesce(&c->eng, 10), 0);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_set_state(&c->eng, NEURON_UDMA_NORMAL), 0);

	nsim_dma_set_fault(c->sd, true, true);
	memset(c->buf + SRC_OFF, 0x3c, 16);
	memset(c->buf + DST_OFF, 0, 16);
	KUNIT_EXPECT_FALSE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF), 16));
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_quiesce(&c->eng, 10), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, false), NEURON_UDMA_NORMAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, true), NEURON_UDMA_NORMAL);
	KUNIT_EXPECT_FALSE(test, neuron_udma_queue_idle(q));
	/* A queue reset does not make it forget the transfer. */
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_reset(q), 0);
	neuron_udma_queue_state(q, &st);
	KUNIT_EXPECT_EQ(test, st.m2s.head, 0U);
	KUNIT_EXPECT_EQ(test, st.m2s.tail, 2U);
	KUNIT_EXPECT_EQ(test, st.s2m.tail, 2U);

	/* Let go: the transfer lands, then the engine stops. */
	nsim_dma_set_fault(c->sd, true, false);
	KUNIT_EXPECT_TRUE(test, neuron_udma_marker_seen(marker));
	KUNIT_EXPECT_EQ(test, c->buf[DST_OFF + 15], (u8)0x3c);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, false), NEURON_UDMA_IDLE);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(&c->eng, true), NEURON_UDMA_IDLE);
	KUNIT_EXPECT_TRUE(test, neuron_udma_queue_idle(q));

	/* Held back again; clearing the switch stops the engine at once. */
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_set_state(&c->eng, NEURON_UDMA_NORMAL), 0);
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_reset(q), 0);
	nsim_dma_set_fault(c->sd, true, true);
	KUNIT_EXPECT_FALSE(test, run_copy(test, hv(c, SRC_OFF), hv(c, DST_OFF), 16));
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_quiesce(&c->eng, 10), -ETIMEDOUT);
	nsim_dma_set_busy_after_disable(c->sd, false);
	KUNIT_EXPECT_TRUE(test, neuron_udma_engine_quiescent(&c->eng));
	/* Stopped: what it held back does not run. */
	nsim_dma_set_fault(c->sd, true, false);
	KUNIT_EXPECT_FALSE(test, neuron_udma_marker_seen(marker));
	KUNIT_EXPECT_EQ(test, c->sd->dma_errors, 0U);
}

static struct kunit_case sim_dma_cases[] = {
	KUNIT_CASE(sim_dma_host_device_host),
	KUNIT_CASE(sim_dma_wrap),
	KUNIT_CASE(sim_dma_bad_addresses),
	KUNIT_CASE(sim_dma_faults),
	KUNIT_CASE(sim_dma_busy_after_disable),
	{}
};

static struct kunit_suite sim_dma_suite = {
	.name = "neuron_sim_dma",
	.init = sim_test_init,
	.exit = sim_test_exit,
	.test_cases = sim_dma_cases,
};

kunit_test_suite(sim_dma_suite);

MODULE_DESCRIPTION("KUnit tests for the neuron_sim register model, DMA engines and notification queues");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
NEURON_IMPORT_TESTS_NS();
MODULE_IMPORT_NS(NEURON_NS);
