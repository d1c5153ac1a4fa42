// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the simulator's NeuronCore semaphores and events, reached through
 * the register callbacks a simulated device hands the core, and the parser
 * of the debugfs lines that preset them.  Devices are built by hand, with
 * no core device and no struct device registered.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "nsim_kunit.h"

/* BAR 0 offset of semaphore @idx of NeuronCore @nc in view @view. */
static u64 sem_off(const struct nsim_gen *gen, unsigned int nc,
		   enum nsim_sem_view view, unsigned int idx)
{
	return gen->nc_base + (u64)nc * gen->nc_stride + NSIM_NC_SEM_OFF +
	       view * NSIM_NC_SEM_VIEW_SIZE + idx * 4;
}

/* BAR 0 offset of semaphore @idx of TOP_SP @ts in view @view, by the hardware's map. */
static u64 ts_sem_off(const struct nsim_gen *gen, unsigned int ts, enum nsim_sem_view view,
		      unsigned int idx)
{
	u64 block = gen->gen == 2 ? 0x10000000 + ts * 0x400000ULL :
		    ts < 8 ? 0xf0000000 + ts * 0x400000ULL : 0xf2800000 + (ts - 8) * 0x400000ULL;

	return block + 0x1000 + view * NSIM_NC_SEM_VIEW_SIZE + idx * 4;
}

/* A device of generation @gen, freed when the test ends. */
static struct nsim_dev *regs_dev(struct kunit *test, const struct nsim_gen *gen)
{
	return nsim_kunit_regs_dev(test, gen, 62);
}

static u32 rd(struct nsim_dev *sd, u64 off)
{
	return sd->desc.reg_ops->read32(sd, NSIM_BAR_REGS, off);
}

static void wr(struct nsim_dev *sd, u64 off, u32 val)
{
	sd->desc.reg_ops->write32(sd, NSIM_BAR_REGS, off, val);
}

/* Every view of a semaphore reads its value. */
static void expect_sem(struct kunit *test, struct nsim_dev *sd, unsigned int nc,
		       unsigned int idx, u32 val)
{
	enum nsim_sem_view view;

	for (view = NSIM_SEM_READ; view < NSIM_SEM_VIEWS; view++)
		KUNIT_EXPECT_EQ_MSG(test, rd(sd, sem_off(sd->gen, nc, view, idx)), val,
				    "nc %u sem %u view %d", nc, idx, view);
	KUNIT_EXPECT_EQ(test, nsim_sem_get(sd, nc, idx), val);
}

static void sim_sem_views(struct kunit *test)
{
	const struct nsim_gen *gens[] = { &nsim_gens[NSIM_GEN_V2], &nsim_gens[NSIM_GEN_V3] };
	const struct nsim_gen *gen;
	struct nsim_dev *sd;
	unsigned int g, nc;

	for (g = 0; g < ARRAY_SIZE(gens); g++) {
		gen = gens[g];
		sd = regs_dev(test, gen);
		for (nc = 0; nc < gen->nc_count; nc++) {
			expect_sem(test, sd, nc, 0, 0);
			wr(sd, sem_off(gen, nc, NSIM_SEM_SET, 0), 10 + nc);
			expect_sem(test, sd, nc, 0, 10 + nc);
			wr(sd, sem_off(gen, nc, NSIM_SEM_ADD, 0), 5);
			expect_sem(test, sd, nc, 0, 15 + nc);
			wr(sd, sem_off(gen, nc, NSIM_SEM_SUB, 0), 3);
			expect_sem(test, sd, nc, 0, 12 + nc);
			/* A write to the read view sets. */
			wr(sd, sem_off(gen, nc, NSIM_SEM_READ, 0), 7);
			expect_sem(test, sd, nc, 0, 7);
			/* The last semaphore, and its neighbours untouched. */
			wr(sd, sem_off(gen, nc, NSIM_SEM_ADD, 255), 2);
			expect_sem(test, sd, nc, 255, 2);
			expect_sem(test, sd, nc, 254, 0);
			expect_sem(test, sd, nc, 1, 0);
		}
		/* Semaphores never reach the sparse registers. */
		KUNIT_EXPECT_TRUE(test, xa_empty(&sd->regs));
	}
}

static void sim_sem_wrap(struct kunit *test)
{
	struct nsim_dev *sd = regs_dev(test, &nsim_gens[NSIM_GEN_V3]);
	const struct nsim_gen *gen = sd->gen;

	wr(sd, sem_off(gen, 7, NSIM_SEM_SET, 9), 0x7fffffff);
	wr(sd, sem_off(gen, 7, NSIM_SEM_ADD, 9), 1);
	expect_sem(test, sd, 7, 9, 0x80000000);

	wr(sd, sem_off(gen, 7, NSIM_SEM_SET, 9), 0);
	wr(sd, sem_off(gen, 7, NSIM_SEM_SUB, 9), 1);
	expect_sem(test, sd, 7, 9, 0xffffffff);

	/* Adding -1 as a u32 decrements; subtracting it increments. */
	wr(sd, sem_off(gen, 7, NSIM_SEM_ADD, 9), 0xffffffff);
	expect_sem(test, sd, 7, 9, 0xfffffffe);
	wr(sd, sem_off(gen, 7, NSIM_SEM_SUB, 9), 0xffffffff);
	wr(sd, sem_off(gen, 7, NSIM_SEM_SUB, 9), 0xffffffff);
	expect_sem(test, sd, 7, 9, 0);

	wr(sd, sem_off(gen, 7, NSIM_SEM_SET, 9), 0x80000000);
	wr(sd, sem_off(gen, 7, NSIM_SEM_SUB, 9), 1);
	expect_sem(test, sd, 7, 9, 0x7fffffff);
}

static void sim_events(struct kunit *test)
{
	struct nsim_dev *sd = regs_dev(test, &nsim_gens[NSIM_GEN_V3]);
	const struct nsim_gen *gen = sd->gen;
	u64 ev = nsim_event_off(gen, 5, 200);

	KUNIT_EXPECT_EQ(test, ev, 0xd0000000ULL + 5 * 0x4000000 + 0x2700000 + 800);
	KUNIT_EXPECT_EQ(test, rd(sd, ev), 0U);
	wr(sd, ev, 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, rd(sd, ev), 0xdeadbeefU);
	KUNIT_EXPECT_EQ(test, nsim_reg_get(sd, ev), 0xdeadbeefU);
	/* Events are plain storage: a second write replaces, not adds. */
	wr(sd, ev, 1);
	KUNIT_EXPECT_EQ(test, rd(sd, ev), 1U);
	KUNIT_EXPECT_EQ(test, rd(sd, ev - 4), 0U);
	KUNIT_EXPECT_EQ(test, rd(sd, ev + 4), 0U);
	/* The semaphore of the same number is another register. */
	expect_sem(test, sd, 5, 200, 0);
	KUNIT_EXPECT_EQ(test, nsim_reg_set(sd, ev, 42, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, rd(sd, ev), 42U);
	wr(sd, ev, 0);
	KUNIT_EXPECT_EQ(test, rd(sd, ev), 0U);
	KUNIT_EXPECT_TRUE(test, xa_empty(&sd->regs));
}

/* Offsets next to the semaphore views, and past the last core, are plain RAM. */
static void sim_sem_bounds(struct kunit *test)
{
	struct nsim_dev *sd = regs_dev(test, &nsim_gens[NSIM_GEN_V2]);
	const struct nsim_gen *gen = sd->gen;
	u64 after = sem_off(gen, 1, NSIM_SEM_VIEWS, 0);
	u64 no_core = sem_off(gen, 2, NSIM_SEM_ADD, 0);

	wr(sd, after, 5);
	wr(sd, after, 5);
	KUNIT_EXPECT_EQ(test, rd(sd, after), 5U);
	wr(sd, no_core, 5);
	wr(sd, no_core, 5);
	KUNIT_EXPECT_EQ(test, rd(sd, no_core), 5U);
	wr(sd, sem_off(gen, 0, NSIM_SEM_READ, 0) - 4, 5);
	KUNIT_EXPECT_EQ(test, rd(sd, sem_off(gen, 0, NSIM_SEM_READ, 0) - 4), 5U);
	expect_sem(test, sd, 0, 0, 0);
	expect_sem(test, sd, 1, 255, 0);
}

#define RACE_ADDS	100000

struct sem_race {
	struct work_struct work;
	struct nsim_dev *sd;
	enum nsim_sem_view view;
};

static void sem_race_fn(struct work_struct *work)
{
	struct sem_race *r = container_of(work, struct sem_race, work);
	u64 off = sem_off(r->sd->gen, 1, r->view, 17);
	unsigned int i;

	for (i = 0; i < RACE_ADDS; i++)
		wr(r->sd, off, 1);
}

/* Concurrent adders lose nothing; neither do an adder and a subtracter. */
static void sim_sem_race(struct kunit *test)
{
	struct nsim_dev *sd = regs_dev(test, &nsim_gens[NSIM_GEN_V3]);
	struct sem_race r[3] = {
		{ .sd = sd, .view = NSIM_SEM_ADD },
		{ .sd = sd, .view = NSIM_SEM_ADD },
		{ .sd = sd, .view = NSIM_SEM_SUB },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		INIT_WORK_ONSTACK(&r[i].work, sem_race_fn);
		queue_work(system_unbound_wq, &r[i].work);
	}
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		flush_work(&r[i].work);
		destroy_work_on_stack(&r[i].work);
	}
	expect_sem(test, sd, 1, 17, RACE_ADDS);
}

struct preset {
	unsigned int nc;
	unsigned int idx;
	u32 val;
};

/* Parse @s as written for a device of 8 NeuronCores. */
static int parse(const char *s, bool sem, struct preset *p)
{
	char line[64];

	strscpy(line, s, sizeof(line));
	return nsim_preset_parse(line, 8, sem, &p->nc, &p->idx, &p->val);
}

/*
 * TOP_SPs have the same views at the start of their blocks: block
 * nc_count + ts in the semaphore lists; next to them is plain RAM.
 */
static void sim_ts_sem_views(struct kunit *test)
{
	const struct nsim_gen *gens[] = { &nsim_gens[NSIM_GEN_V2], &nsim_gens[NSIM_GEN_V3] };
	unsigned int g, ts;

	for (g = 0; g < ARRAY_SIZE(gens); g++) {
		const struct nsim_gen *gen = gens[g];
		struct nsim_dev *sd = regs_dev(test, gen);

		for (ts = 0; ts < gen->ts_count; ts++) {
			unsigned int b = gen->nc_count + ts;

			wr(sd, ts_sem_off(gen, ts, NSIM_SEM_SET, 7), 10 + ts);
			wr(sd, ts_sem_off(gen, ts, NSIM_SEM_ADD, 7), 5);
			wr(sd, ts_sem_off(gen, ts, NSIM_SEM_SUB, 7), 1);
			KUNIT_EXPECT_EQ_MSG(test, rd(sd, ts_sem_off(gen, ts, NSIM_SEM_READ, 7)),
					    14 + ts, "gen %u ts %u", gen->gen, ts);
			KUNIT_EXPECT_EQ(test, nsim_sem_get(sd, b, 7), 14 + ts);
			/* Events are the window's first 1 KiB, plain storage. */
			KUNIT_EXPECT_EQ(test, nsim_event_off(gen, b, 3),
					ts_sem_off(gen, ts, NSIM_SEM_READ, 0) - 0x1000 + 12);
		}
		/* The neighbours of a window are not semaphores. */
		wr(sd, ts_sem_off(gen, 0, NSIM_SEM_ADD, 0) + 0x1000, 3);
		wr(sd, ts_sem_off(gen, 0, NSIM_SEM_ADD, 0) + 0x1000, 3);
		KUNIT_EXPECT_EQ(test, rd(sd, ts_sem_off(gen, 0, NSIM_SEM_ADD, 0) + 0x1000), 3);
		KUNIT_EXPECT_EQ(test, nsim_sem_get(sd, gen->nc_count, 0), 0);
	}
}

static void sim_preset_parse(struct kunit *test)
{
	struct preset p = {};

	KUNIT_EXPECT_EQ(test, parse("3 17 42\n", true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.nc, 3U);
	KUNIT_EXPECT_EQ(test, p.idx, 17U);
	KUNIT_EXPECT_EQ(test, p.val, 42U);
	KUNIT_EXPECT_EQ(test, parse("  7\t255   -1 ", true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.nc, 7U);
	KUNIT_EXPECT_EQ(test, p.idx, 255U);
	KUNIT_EXPECT_EQ(test, p.val, 0xffffffffU);
	KUNIT_EXPECT_EQ(test, parse("0 0 -2147483648", true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.val, 0x80000000U);
	KUNIT_EXPECT_EQ(test, parse("0 0 0x80000000", true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.val, 0x80000000U);
	KUNIT_EXPECT_EQ(test, parse("0 0 0XfFfFfFfF", false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.val, 0xffffffffU);
	KUNIT_EXPECT_EQ(test, parse("1 2 4294967295", false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.val, 0xffffffffU);
	/* Decimal with leading zeros stays decimal. */
	KUNIT_EXPECT_EQ(test, parse("1 2 010", false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.val, 10U);

	KUNIT_EXPECT_EQ(test, parse("8 0 1", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 256 1", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 256 1", false, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("-1 0 1", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0x1 0 1", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 -1", false, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 -2147483649", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 4294967296", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 0x100000000", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 0x", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 0x0x5", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 0x-5", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 12abc", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 1 1", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("0 0 1\n0 1 1", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("", true, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse("garbage", false, &p), -EINVAL);
}

static struct kunit_case sim_regs_cases[] = {
	KUNIT_CASE(sim_sem_views),
	KUNIT_CASE(sim_sem_wrap),
	KUNIT_CASE(sim_events),
	KUNIT_CASE(sim_sem_bounds),
	KUNIT_CASE(sim_sem_race),
	KUNIT_CASE(sim_ts_sem_views),
	KUNIT_CASE(sim_preset_parse),
	{}
};

static struct kunit_suite sim_regs_suite = {
	.name = "neuron_sim_regs",
	.test_cases = sim_regs_cases,
};

kunit_test_suite(sim_regs_suite);
