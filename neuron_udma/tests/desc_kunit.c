// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: neuron_udma against its documented hardware interface.
 * Descriptors are checked byte by byte against the 16-byte layout; copies
 * are split into 64 KiB pairs; ring ids toggle on wrap; the doorbell moves
 * the tails by what was prepared; and the register sequences of engine
 * init, error setup and queue init are compared, write by write, with a
 * log kept by a fake register space (static stubs on the library's two
 * register functions).  The engine-to-core map resets go by
 * (neuron_dma_engine_cores()) is checked against every generation's
 * geometry.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/udma.h>
#include <neuron/version.h>

#include "../dma.h"
#include "../udma_priv.h"

#define FAKE_LOG	512
#define FAKE_REGS	1024

/**
 * struct fake_regs - a register space that logs writes
 * @off: BAR offset of each write, in order
 * @val: value of each write
 * @n: writes logged; tests reset it to look at a later sequence
 * @reg_off: registers holding a value (written or preset)
 * @reg_val: their values
 * @n_regs: entries in @reg_off
 */
struct fake_regs {
	u64 off[FAKE_LOG];
	u32 val[FAKE_LOG];
	unsigned int n;
	u64 reg_off[FAKE_REGS];
	u32 reg_val[FAKE_REGS];
	unsigned int n_regs;
};

/* The DMA knobs generation @gen's DHAL gives the core. */
static const struct neuron_udma_gen *udma_gen(unsigned int gen)
{
	switch (gen) {
	case 2:
		return neuron_dhal_v2.udma;
	case 3:
		return neuron_dhal_v3.udma;
	case 4:
		return neuron_dhal_v4.udma;
	}
	return NULL;
}

static u32 *fake_reg(struct fake_regs *f, u64 off, bool create)
{
	unsigned int i;

	for (i = 0; i < f->n_regs; i++)
		if (f->reg_off[i] == off)
			return &f->reg_val[i];
	if (!create || f->n_regs == FAKE_REGS)
		return NULL;
	f->reg_off[f->n_regs] = off;
	f->reg_val[f->n_regs] = 0;
	return &f->reg_val[f->n_regs++];
}

static u32 fake_rd(const struct neuron_udma_engine *eng, u64 off)
{
	struct kunit *test = kunit_get_current_test();
	u32 *r = fake_reg(test->priv, eng->base + off, false);

	return r ? *r : 0;
}

static void fake_wr(const struct neuron_udma_engine *eng, u64 off, u32 val)
{
	struct kunit *test = kunit_get_current_test();
	struct fake_regs *f = test->priv;
	u32 *r = fake_reg(f, eng->base + off, true);

	KUNIT_ASSERT_NOT_NULL(test, r);
	*r = val;
	KUNIT_ASSERT_LT(test, f->n, FAKE_LOG);
	f->off[f->n] = eng->base + off;
	f->val[f->n] = val;
	f->n++;
}

/* Give register @off a value without logging a write. */
static void fake_preset(struct kunit *test, u64 off, u32 val)
{
	u32 *r = fake_reg(test->priv, off, true);

	KUNIT_ASSERT_NOT_NULL(test, r);
	*r = val;
}

/* Index of the last write to @off, or -1. */
static int fake_find(struct fake_regs *f, u64 off)
{
	unsigned int i;

	for (i = f->n; i-- > 0;)
		if (f->off[i] == off)
			return i;
	return -1;
}

static void expect_write(struct kunit *test, u64 off, u32 val)
{
	struct fake_regs *f = test->priv;
	int i = fake_find(f, off);

	KUNIT_EXPECT_GE_MSG(test, i, 0, "no write to 0x%llx", off);
	if (i >= 0)
		KUNIT_EXPECT_EQ_MSG(test, f->val[i], val, "register 0x%llx", off);
}

static void expect_log(struct kunit *test, unsigned int i, u64 off, u32 val)
{
	struct fake_regs *f = test->priv;

	KUNIT_ASSERT_LT(test, i, f->n);
	KUNIT_EXPECT_EQ_MSG(test, f->off[i], off, "write %u", i);
	KUNIT_EXPECT_EQ_MSG(test, f->val[i], val, "write %u", i);
}

static int udma_test_init(struct kunit *test)
{
	struct fake_regs *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;
	kunit_activate_static_stub(test, neuron_udma_rd, fake_rd);
	kunit_activate_static_stub(test, neuron_udma_wr, fake_wr);
	return 0;
}

/* An engine of @gen with queue @qid on host rings of @size descriptors. */
static struct neuron_udma_engine *setup_queue(struct kunit *test, unsigned int gen,
					      unsigned int index, unsigned int qid, u32 size)
{
	struct neuron_udma_engine *eng = kunit_kzalloc(test, sizeof(*eng), GFP_KERNEL);
	struct neuron_udma_ring_cfg m2s = {}, s2m = {};
	struct fake_regs *f = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, eng);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(gen),
						      index), 0);
	m2s.va = kunit_kcalloc(test, size, sizeof(*m2s.va), GFP_KERNEL);
	s2m.va = kunit_kcalloc(test, size, sizeof(*s2m.va), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m2s.va);
	KUNIT_ASSERT_NOT_NULL(test, s2m.va);
	m2s.addr = 0x400000000000ULL | 0x10000;
	s2m.addr = 0x400000000000ULL | 0x20000;
	m2s.size = size;
	s2m.size = size;
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_init(eng, qid, &m2s, &s2m), 0);
	f->n = 0;
	return eng;
}

static void udma_desc_m2s_layout(struct kunit *test)
{
	struct neuron_udma_desc d;
	const u8 want[16] = {
		0x34, 0x12, 0x00, 0x4e,		/* len 0x1234, id 2, FIRST, LAST, DMB */
		0x03, 0x00, 0x08, 0x01,		/* meta: copy */
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
	};

	memset(&d, 0xff, sizeof(d));
	neuron_udma_desc_m2s(&d, 0x0123456789abcdefULL, 0x1234, 2,
			     NEURON_UDMA_DESC_FIRST | NEURON_UDMA_DESC_LAST |
			     NEURON_UDMA_DESC_DMB, NEURON_UDMA_META_COPY);
	KUNIT_EXPECT_MEMEQ(test, &d, want, sizeof(want));

	/* 64 KiB is encoded as 0; ring ids are two bits; INT is bit 28. */
	neuron_udma_desc_m2s(&d, 0, SZ_64K, 7, NEURON_UDMA_DESC_INT, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.ctrl), 0x13000000U);
	/* Flags never leak into the length or ring-id fields. */
	neuron_udma_desc_m2s(&d, 0, 1, 0, NEURON_UDMA_DESC_LEN | NEURON_UDMA_DESC_RING_ID, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.ctrl), 1U);
}

static void udma_desc_s2m_layout(struct kunit *test)
{
	struct neuron_udma_desc d;
	const u8 want[16] = {
		0x01, 0x00, 0x00, 0x31,		/* len 1, id 1, INT, SOW */
		0x00, 0x00, 0x00, 0x00,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};

	memset(&d, 0xff, sizeof(d));
	neuron_udma_desc_s2m(&d, 0x0102030405060708ULL, 1, 1,
			     NEURON_UDMA_DESC_INT | NEURON_UDMA_DESC_SOW);
	KUNIT_EXPECT_MEMEQ(test, &d, want, sizeof(want));
}

static void udma_meta_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, NEURON_UDMA_META_COPY,
			NEURON_UDMA_META_LAST_BLOCK | NEURON_UDMA_META_FIRST_BLOCK |
			NEURON_UDMA_META_COPY_SRC |
			FIELD_PREP(NEURON_UDMA_META_OP, NEURON_UDMA_META_OP_COPY));
	KUNIT_EXPECT_EQ(test, NEURON_UDMA_META_COPY | NEURON_UDMA_META_WR_BARRIER, 0x05080003);
	KUNIT_EXPECT_EQ(test, NEURON_UDMA_DESC_FIRST, 0x04000000);
	KUNIT_EXPECT_EQ(test, NEURON_UDMA_DESC_LAST, 0x08000000);
	KUNIT_EXPECT_EQ(test, NEURON_UDMA_DESC_DMB, 0x40000000);
	KUNIT_EXPECT_EQ(test, NEURON_UDMA_DESC_SOW, 0x20000000);
}

static void udma_desc_count(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, neuron_udma_desc_count(0), 0U);
	KUNIT_EXPECT_EQ(test, neuron_udma_desc_count(1), 1U);
	KUNIT_EXPECT_EQ(test, neuron_udma_desc_count(SZ_64K), 1U);
	KUNIT_EXPECT_EQ(test, neuron_udma_desc_count(SZ_64K + 1), 2U);
	KUNIT_EXPECT_EQ(test, neuron_udma_desc_count(1ULL << 40), 1U << 24);
	KUNIT_EXPECT_EQ(test, neuron_udma_desc_count(U64_MAX), U32_MAX);
}

static void udma_copy_split(struct kunit *test)
{
	struct neuron_udma_engine *eng = setup_queue(test, 3, 0, 0, 64);
	struct neuron_udma_queue *q = &eng->queue[0];
	u64 src = 0x400000001000ULL, dst = 0x4000000000ULL;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, src, dst, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, src, dst, 1, BIT(7)), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, U64_MAX, dst, 2, 0), -EINVAL);
	/* 48 pairs fit in 64 slots; 49 do not, and nothing is written. */
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, src, dst, 48ULL * SZ_64K + 1, 0),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, q->m2s.tail, 0U);
	KUNIT_EXPECT_EQ(test, q->s2m.tail, 0U);

	KUNIT_ASSERT_EQ(test, neuron_udma_copy_prepare(q, src, dst, 2 * SZ_64K + 1,
						       NEURON_UDMA_COPY_DMB |
						       NEURON_UDMA_COPY_WR_BARRIER |
						       NEURON_UDMA_COPY_SOW), 3);
	KUNIT_EXPECT_EQ(test, q->m2s.tail, 3U);
	KUNIT_EXPECT_EQ(test, q->s2m.tail, 3U);
	for (i = 0; i < 3; i++) {
		u32 m = le32_to_cpu(q->m2s.va[i].ctrl), s = le32_to_cpu(q->s2m.va[i].ctrl);
		u32 len = i < 2 ? 0 : 1;

		KUNIT_EXPECT_EQ(test, m & NEURON_UDMA_DESC_LEN, len);
		KUNIT_EXPECT_EQ(test, s & NEURON_UDMA_DESC_LEN, len);
		KUNIT_EXPECT_EQ(test, FIELD_GET(NEURON_UDMA_DESC_RING_ID, m), 1U);
		KUNIT_EXPECT_EQ(test, FIELD_GET(NEURON_UDMA_DESC_RING_ID, s), 1U);
		KUNIT_EXPECT_TRUE(test, m & NEURON_UDMA_DESC_FIRST);
		KUNIT_EXPECT_TRUE(test, m & NEURON_UDMA_DESC_LAST);
		KUNIT_EXPECT_EQ(test, !!(m & NEURON_UDMA_DESC_DMB), i == 0);
		KUNIT_EXPECT_EQ(test, !!(s & NEURON_UDMA_DESC_SOW), i == 2);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(q->m2s.va[i].meta),
				i == 2 ? 0x05080003U : 0x01080003U);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(q->s2m.va[i].meta), 0U);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(q->m2s.va[i].addr), src + i * SZ_64K);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(q->s2m.va[i].addr), dst + i * SZ_64K);
	}
	/* Preparing rings nothing. */
	KUNIT_EXPECT_EQ(test, ((struct fake_regs *)test->priv)->n, 0U);

	/* One byte and exactly 64 KiB take one pair each. */
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, src, dst, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, src, dst, SZ_64K, 0), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->m2s.va[3].ctrl) & NEURON_UDMA_DESC_LEN, 1U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->m2s.va[4].ctrl) & NEURON_UDMA_DESC_LEN, 0U);

	/* v2 has no strong-ordered write. */
	eng = setup_queue(test, 2, 0, 0, 64);
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(&eng->queue[0], src, dst, 1,
						       NEURON_UDMA_COPY_SOW), -EINVAL);
}

static void udma_ring_wrap(struct kunit *test)
{
	struct neuron_udma_engine *eng = setup_queue(test, 3, 0, 1, 32);
	struct neuron_udma_queue *q = &eng->queue[1];
	static const u8 ids[] = { 1, 2, 3, 0, 1 };
	unsigned int lap, i;

	KUNIT_EXPECT_EQ(test, neuron_udma_ring_free(&q->m2s), 16U);
	for (lap = 0; lap < ARRAY_SIZE(ids); lap++) {
		for (i = 0; i < 32; i++) {
			u32 m;

			KUNIT_ASSERT_EQ(test, neuron_udma_copy_prepare(q, 0x1000, 0x2000, 4, 0), 1);
			m = le32_to_cpu(q->m2s.va[i].ctrl);
			KUNIT_EXPECT_EQ(test, FIELD_GET(NEURON_UDMA_DESC_RING_ID, m), ids[lap]);
			m = le32_to_cpu(q->s2m.va[i].ctrl);
			KUNIT_EXPECT_EQ(test, FIELD_GET(NEURON_UDMA_DESC_RING_ID, m), ids[lap]);
			KUNIT_ASSERT_EQ(test, neuron_udma_submit(q), 1U);
			KUNIT_ASSERT_EQ(test, neuron_udma_ack(q, 1), 0);
		}
		KUNIT_EXPECT_EQ(test, q->m2s.tail, 0U);
		KUNIT_EXPECT_EQ(test, q->m2s.head, 0U);
	}
	/* 16 free slots: the 17th copy without an ack does not fit. */
	for (i = 0; i < 16; i++)
		KUNIT_ASSERT_EQ(test, neuron_udma_copy_prepare(q, 0x1000, 0x2000, 4, 0), 1);
	KUNIT_EXPECT_EQ(test, neuron_udma_ring_free(&q->m2s), 0U);
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(q, 0x1000, 0x2000, 4, 0), -ENOSPC);
	/* Only submitted pairs can be acknowledged. */
	KUNIT_EXPECT_EQ(test, neuron_udma_ack(q, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_submit(q), 16U);
	KUNIT_EXPECT_EQ(test, neuron_udma_ack(q, 17), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_ack(q, 16), 0);
	KUNIT_EXPECT_EQ(test, neuron_udma_ring_free(&q->m2s), 16U);
}

static void udma_doorbell(struct kunit *test)
{
	struct neuron_udma_engine *eng = setup_queue(test, 2, 17, 5, 32);
	struct neuron_udma_queue *q = &eng->queue[5];
	struct fake_regs *f = test->priv;
	u64 base = 0x30740000;	/* NeuronCore 1, engine 1 */

	KUNIT_ASSERT_EQ(test, eng->base, base);
	KUNIT_EXPECT_EQ(test, neuron_udma_submit(q), 0U);
	KUNIT_EXPECT_EQ(test, f->n, 0U);

	KUNIT_ASSERT_EQ(test, neuron_udma_copy_prepare(q, 0, 0x100, 3 * SZ_64K, 0), 3);
	KUNIT_ASSERT_EQ(test, neuron_udma_marker_prepare(q, 0x1000, 0x1004, 0), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->m2s.va[3].ctrl) & NEURON_UDMA_DESC_LEN, 4U);
	KUNIT_EXPECT_EQ(test, neuron_udma_submit(q), 4U);
	/* S2M first, then M2S, each by the number of descriptors added. */
	KUNIT_ASSERT_EQ(test, f->n, 2U);
	expect_log(test, 0, base + 0x20000 + 0x6000 + 0x38, 4);
	expect_log(test, 1, base + 0x6000 + 0x38, 4);

	/* Across the wrap: 28 more, tail 32 -> 0 modulo the size. */
	KUNIT_ASSERT_EQ(test, neuron_udma_ack(q, 4), 0);
	KUNIT_ASSERT_EQ(test, neuron_udma_copy_prepare(q, 0, 0x100, 12 * SZ_64K, 0), 12);
	KUNIT_EXPECT_EQ(test, neuron_udma_submit(q), 12U);
	KUNIT_ASSERT_EQ(test, neuron_udma_ack(q, 12), 0);
	KUNIT_ASSERT_EQ(test, neuron_udma_copy_prepare(q, 0, 0x100, 16 * SZ_64K, 0), 16);
	KUNIT_EXPECT_EQ(test, q->m2s.tail, 0U);
	KUNIT_EXPECT_EQ(test, neuron_udma_ring_unrung(&q->m2s), 16U);
	KUNIT_EXPECT_EQ(test, neuron_udma_submit(q), 16U);
	expect_log(test, f->n - 1, base + 0x6000 + 0x38, 16);

	/* The low-level doorbell writes only what it is given. */
	f->n = 0;
	neuron_udma_doorbell(q, 2, 0);
	KUNIT_ASSERT_EQ(test, f->n, 1U);
	expect_log(test, 0, base + 0x6000 + 0x38, 2);
}

static void udma_engine_bases(struct kunit *test)
{
	const struct neuron_udma_gen *v2 = udma_gen(2);
	const struct neuron_udma_gen *v3 = udma_gen(3);
	const struct neuron_udma_gen *v4 = udma_gen(4);
	u64 base = 0;

	KUNIT_ASSERT_NOT_NULL(test, v2);
	KUNIT_ASSERT_NOT_NULL(test, v3);
	KUNIT_ASSERT_NOT_NULL(test, v4);
	KUNIT_EXPECT_EQ(test, v2->generation, 2U);
	KUNIT_EXPECT_EQ(test, v3->generation, 3U);
	KUNIT_EXPECT_EQ(test, v4->generation, 4U);
	/* v4 is v3 with a second S2M write limit. */
	KUNIT_EXPECT_EQ(test, v3->s2m_wr_outstanding2, 0U);
	KUNIT_EXPECT_NE(test, v4->s2m_wr_outstanding2, 0U);
	KUNIT_EXPECT_EQ(test, v3->engines, v4->engines);

	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v2, 0, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x30000000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v2, 15, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x303c0000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v2, 16, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x30700000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v2, 32, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x30600000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v2, 33, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x30d00000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v2, 34, &base), -EINVAL);

	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v3, 33, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x94100000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v3, 127, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0xb5f00000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v4, 128, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x06800000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v4, 131, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0x46900000ULL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_base(v4, 132, &base), -EINVAL);
}

/* Every queue's ring base registers, and nothing around them. */
static void udma_ring_base_regs(struct kunit *test)
{
	static const u64 other[] = { 0x0, 0x20, 0x24, 0x30, 0x34, 0x3c, 0x4c, 0xffc };
	unsigned int g, e, q, h, i, hits, misses;
	u64 base, qb;

	for (g = 2; g <= 4; g++) {
		const struct neuron_udma_gen *gen = udma_gen(g);

		KUNIT_ASSERT_NOT_NULL(test, gen);
		hits = 0;
		misses = 0;
		for (e = 0; e < gen->engines; e++) {
			KUNIT_ASSERT_EQ(test, neuron_udma_engine_base(gen, e, &base), 0);
			for (h = 0; h < 2; h++) {
				for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++) {
					qb = base + (h ? NEURON_UDMA_S2M : NEURON_UDMA_M2S) +
					     NEURON_UDMA_QUEUE(q);
					hits += neuron_udma_reg_is_ring_base(gen,
						qb + NEURON_UDMA_Q_BASE_LO);
					hits += neuron_udma_reg_is_ring_base(gen,
						qb + NEURON_UDMA_Q_BASE_HI);
					for (i = 0; i < ARRAY_SIZE(other); i++)
						misses += neuron_udma_reg_is_ring_base(gen,
							qb + other[i]);
				}
				/* The half's own registers, before its first queue. */
				misses += neuron_udma_reg_is_ring_base(gen, base +
					(h ? NEURON_UDMA_S2M : 0) + NEURON_UDMA_Q_BASE_LO);
			}
			misses += neuron_udma_reg_is_ring_base(gen, base + NEURON_UDMA_GEN +
							       NEURON_UDMA_Q_BASE_LO);
			misses += neuron_udma_reg_is_ring_base(gen, base + NEURON_UDMA_GEN_EX +
							       0x1000 + NEURON_UDMA_Q_BASE_LO);
		}
		KUNIT_EXPECT_EQ_MSG(test, hits, gen->engines * 2 * NEURON_UDMA_MAX_QUEUES * 2,
				    "v%u", g);
		KUNIT_EXPECT_EQ_MSG(test, misses, 0U, "v%u", g);
		/* Outside every engine. */
		KUNIT_EXPECT_FALSE(test, neuron_udma_reg_is_ring_base(gen, NEURON_UDMA_QUEUE(0) +
								     NEURON_UDMA_Q_BASE_LO));
	}
}

static void udma_engine_init_seq(struct kunit *test)
{
	struct neuron_udma_engine *eng = kunit_kzalloc(test, sizeof(*eng), GFP_KERNEL);
	struct fake_regs *f = test->priv;
	u64 b = 0x94100000, m2s = b, s2m = b + 0x20000, gen = b + 0x38000;
	unsigned int q;

	KUNIT_ASSERT_NOT_NULL(test, eng);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(3), 33),
			0);
	KUNIT_EXPECT_EQ(test, eng->base, b);
	/* 32 queue enables, 75 defaults, 14 interrupt, 1 completion, 5 prefetch. */
	KUNIT_EXPECT_EQ(test, f->n, 127U);
	for (q = 0; q < 16; q++) {
		expect_log(test, 2 * q, m2s + 0x1000 + q * 0x1000 + 0x20, 0x03030000);
		expect_log(test, 2 * q + 1, s2m + 0x1000 + q * 0x1000 + 0x20, 0x03030000);
		expect_write(test, b + 0x3c000 + 0x400 + q * 0x40, 0xffffffff);
		expect_write(test, b + 0x3c000 + 0x40c + q * 0x40, 0xffffffff);
	}
	expect_log(test, 32, m2s + 0x310, 0x010008f8);
	expect_log(test, 33, m2s + 0x124, 0x20808080);
	expect_log(test, 34, gen + 0x2300, 100000000);
	expect_write(test, m2s + 0x408, 0);
	expect_write(test, m2s + 0x254, 0x010fffff);
	expect_write(test, m2s + 0x258, 0x102);
	expect_write(test, m2s + 0x118, 0x00010008);
	expect_write(test, s2m + 0x38c, 0);
	expect_write(test, s2m + 0x124, 0x00400080);
	expect_write(test, s2m + 0x128, 0x40804080);
	KUNIT_EXPECT_EQ(test, fake_find(f, s2m + 0x12c), -1);
	expect_write(test, gen + 0x3460, 0);
	/* Interrupts: secondary A/B/C at 0x2000 + g * 0x40, primary D at 0xc0. */
	expect_write(test, gen + 0x2000 + 0x28, 0x28);
	expect_write(test, gen + 0x2000 + 0x30, ~0x0fffffffU);
	expect_write(test, gen + 0x2000 + 0x18, ~0x0fffffffU);
	expect_write(test, gen + 0x2040 + 0x28, 0x28);
	expect_write(test, gen + 0x2040 + 0x30, ~0xffffef07U);
	expect_write(test, gen + 0x2040 + 0x18, ~0xffffef07U);
	expect_write(test, gen + 0x2080 + 0x30, ~0xfffU);
	expect_write(test, gen + 0x2080 + 0x18, ~0xfc0U);
	expect_write(test, gen + 0xc0 + 0x28, 0x28);
	expect_write(test, gen + 0xc0 + 0x18, ~0x600U);
	expect_log(test, 121, s2m + 0x380, 0x1004);
	expect_log(test, 122, m2s + 0x304, 0x00010041);
	expect_log(test, 123, m2s + 0x308, 0x00004181);
	expect_log(test, 124, s2m + 0x308, 0x00004181);
	expect_log(test, 125, m2s + 0x11c, 0x00010008);
	expect_log(test, 126, s2m + 0x11c, 0x00010008);
	/* The engine state is left alone. */
	KUNIT_EXPECT_EQ(test, fake_find(f, m2s + 0x204), -1);

	/* v4: read-modify-write of the low 10 bits of S2M 0x12c; v2 beats. */
	f->n = 0;
	fake_preset(test, 0x82000000 + 0x20000 + 0x12c, 0xabcde3ff);
	fake_preset(test, 0x82000000 + 0x38000 + 0x3460, 0x5);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(4), 0),
			0);
	KUNIT_EXPECT_EQ(test, f->n, 128U);
	expect_write(test, 0x82000000 + 0x20000 + 0x12c, 0xabcde100);
	expect_write(test, 0x82000000 + 0x38000 + 0x3460, 0x4);
	f->n = 0;
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(2), 33),
			0);
	expect_write(test, 0x30d00000 + 0x310, 0x01000400);
	expect_write(test, 0x30d00000 + 0x124, 0x0000086f);
	expect_write(test, 0x30d00000 + 0x20000 + 0x124, 0x00400008);

	f->n = 0;
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(3), 132),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, f->n, 0U);
}

static void udma_error_setup(struct kunit *test)
{
	struct neuron_udma_engine *eng = kunit_kzalloc(test, sizeof(*eng), GFP_KERNEL);
	struct fake_regs *f = test->priv;
	u64 b = 0x94100000, gen = b + 0x38000, fis = 0x9c400000 + 0x20000;

	KUNIT_ASSERT_NOT_NULL(test, eng);
	fake_preset(test, gen + 0x2000 + 0x10, 0x1);
	fake_preset(test, fis + 0x90, 0x1);
	fake_preset(test, b + 0x20c, 0x4);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(3), 33),
			0);
	f->n = 0;
	neuron_udma_engine_error_setup(eng);
	KUNIT_EXPECT_EQ(test, f->n, 8U);
	expect_write(test, gen + 0x2000 + 0x10, 0x20001);
	expect_write(test, gen + 0x2000 + 0x30, 0x20001);
	expect_write(test, gen + 0x2040 + 0x10, 0x800);
	expect_write(test, gen + 0x2040 + 0x30, 0x800);
	expect_write(test, fis + 0x90, 0x801);
	expect_write(test, fis + 0xd0, 0x4);
	expect_write(test, b + 0x20c, 0x20004);
	expect_write(test, b + 0x20000 + 0x20c, 0x800);

	/* A host engine keeps ring-id errors fatal. */
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(3), 128),
			0);
	f->n = 0;
	neuron_udma_engine_error_setup(eng);
	KUNIT_EXPECT_EQ(test, f->n, 0U);

	/* v2: AXI error tables, queue controls, unit controllers, timeout. */
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(2), 0),
			0);
	f->n = 0;
	neuron_udma_engine_error_setup(eng);
	KUNIT_EXPECT_EQ(test, f->n, 6U * (6 + 16 * 2) + 6 * 3 + 1);
	expect_log(test, 0, 0x30038000 + 0x2900 + 4, 0xf);
	expect_log(test, 5, 0x30038000 + 0x2900 + 44, 0xf);
	expect_log(test, 6, 0x30038000 + 0x2b00, 7);
	expect_log(test, 7, 0x30038000 + 0x2b04, 0x10);
	expect_log(test, 37, 0x30038000 + 0x2b04, 0x10);
	expect_log(test, 36, 0x30038000 + 0x2b00, (15 << 3) | 7);
	expect_write(test, 0x30038000 + 0x3200 + 0x28, 0x28);
	expect_write(test, 0x30038000 + 0x3200 + 0x30, 0);
	expect_log(test, f->n - 1, 0x30038000 + 0x2300, 0xffffffff);
}

static void udma_queue_init_seq(struct kunit *test)
{
	struct neuron_udma_engine *eng = kunit_kzalloc(test, sizeof(*eng), GFP_KERNEL);
	struct neuron_udma_ring_cfg m2s = { .addr = 0x100000abcd00ULL, .size = 64 };
	struct neuron_udma_ring_cfg s2m = { .addr = 0x2000, .size = 48 };
	struct fake_regs *f = test->priv;
	u64 mq = 0x30000000 + 0x6000, sq = 0x30020000 + 0x6000;
	struct neuron_udma_ring_cfg bad;

	KUNIT_ASSERT_NOT_NULL(test, eng);
	KUNIT_ASSERT_EQ(test, neuron_udma_engine_init(eng, NULL, udma_gen(2), 0),
			0);
	f->n = 0;
	KUNIT_ASSERT_EQ(test, neuron_udma_queue_init(eng, 5, &m2s, &s2m), 0);
	KUNIT_ASSERT_EQ(test, f->n, 15U);
	expect_log(test, 0, mq + 0x74, 0x3);
	expect_log(test, 1, mq + 0x20, 0x03000000);
	expect_log(test, 2, mq + 0xb0, 0x100);
	expect_log(test, 3, mq + 0x28, 0xabcd00);
	expect_log(test, 4, mq + 0x2c, 0x1000);
	expect_log(test, 5, mq + 0x30, 64);
	expect_log(test, 6, mq + 0xa0, 0);
	expect_log(test, 7, mq + 0x20, 0x03030000);
	expect_log(test, 8, sq + 0x20, 0x03000000);
	expect_log(test, 9, sq + 0x64, 0x100);
	expect_log(test, 10, sq + 0x28, 0x2000);
	expect_log(test, 11, sq + 0x2c, 0);
	expect_log(test, 12, sq + 0x30, 48);
	expect_log(test, 13, sq + 0x54, 0);
	expect_log(test, 14, sq + 0x20, 0x03030000);
	KUNIT_EXPECT_EQ(test, eng->queue[5].m2s.ring_id, 1);
	KUNIT_EXPECT_EQ(test, eng->queue[5].s2m.ring_id, 1);

	/* Refused without a write: queue 16, misaligned, too small, not 2^n with va. */
	f->n = 0;
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_init(eng, 16, &m2s, &s2m), -EINVAL);
	bad = m2s;
	bad.addr += 0x40;
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_init(eng, 0, &bad, &s2m), -EINVAL);
	bad = m2s;
	bad.size = 16;
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_init(eng, 0, &bad, &s2m), -EINVAL);
	bad = m2s;
	bad.size = 40;
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_init(eng, 0, &bad, &s2m), -EINVAL);
	bad = s2m;
	bad.va = kunit_kcalloc(test, 48, sizeof(*bad.va), GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_init(eng, 0, &m2s, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, f->n, 0U);
	/* Device-resident rings cannot be filled by the library. */
	KUNIT_EXPECT_EQ(test, neuron_udma_copy_prepare(&eng->queue[5], 0, 0, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_reset(&eng->queue[6]), -EINVAL);
}

static void udma_state(struct kunit *test)
{
	struct neuron_udma_engine *eng = setup_queue(test, 3, 0, 2, 64);
	struct neuron_udma_queue_state st;
	struct fake_regs *f = test->priv;
	u64 b = 0x82000000, mq = b + 0x3000, sq = b + 0x20000 + 0x3000;

	fake_preset(test, mq + 0x34, 0x40000005);
	fake_preset(test, sq + 0x34, 0x80000007);
	fake_preset(test, sq + 0x4c, 0xc0000003);
	fake_preset(test, mq + 0x24, 0x1234);
	neuron_udma_queue_state(&eng->queue[2], &st);
	KUNIT_EXPECT_TRUE(test, st.m2s.enabled);
	KUNIT_EXPECT_EQ(test, st.m2s.cfg, 0x03030000U);
	KUNIT_EXPECT_EQ(test, st.m2s.base, 0x400000010000ULL);
	KUNIT_EXPECT_EQ(test, st.m2s.size, 64U);
	KUNIT_EXPECT_EQ(test, st.m2s.head, 5U);
	KUNIT_EXPECT_EQ(test, st.m2s.head_ring_id, 1);
	KUNIT_EXPECT_EQ(test, st.m2s.status, 0x1234U);
	KUNIT_EXPECT_EQ(test, st.s2m.head, 7U);
	KUNIT_EXPECT_EQ(test, st.s2m.head_ring_id, 2);
	KUNIT_EXPECT_EQ(test, st.s2m.completed, 3U);

	f->n = 0;
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_set_state(eng, NEURON_UDMA_ABORTED), 0);
	expect_log(test, 0, b + 0x204, 4);
	expect_log(test, 1, b + 0x20000 + 0x204, 4);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_set_state(eng, NEURON_UDMA_IDLE), -EINVAL);
	KUNIT_EXPECT_EQ(test, f->n, 2U);

	fake_preset(test, b + 0x200, 0x1111);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(eng, false), NEURON_UDMA_NORMAL);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(eng, true), NEURON_UDMA_IDLE);
	fake_wr(eng, 0x200, 0x1211);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(eng, false), NEURON_UDMA_ABORTED);
	/* S2M: a stream-interface abort does not count while the stream is off. */
	fake_wr(eng, 0x20000 + 0x200, 0x0020);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(eng, true), NEURON_UDMA_ABORTED);
	fake_wr(eng, 0x20000 + 0x250, 0x111);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_get_state(eng, true), NEURON_UDMA_IDLE);
}

/*
 * Quiescing: disable is written to both halves, then the state registers
 * are read until no field runs; an aborted half is quiet; a half that
 * keeps running makes it time out.  A queue is idle once its completion
 * heads reach its tails, or when its engine runs nothing.
 */
static void udma_quiesce(struct kunit *test)
{
	struct neuron_udma_engine *eng = setup_queue(test, 2, 32, 0, 64);
	struct fake_regs *f = test->priv;
	u64 b = 0x30600000, mq = b + 0x1000, sq = b + 0x20000 + 0x1000;
	unsigned long t;

	fake_preset(test, b + 0x200, 0);
	fake_preset(test, b + 0x20000 + 0x200, 0x2020);
	KUNIT_EXPECT_TRUE(test, neuron_udma_engine_quiescent(eng));
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_quiesce(eng, 20), 0);
	KUNIT_ASSERT_EQ(test, f->n, 2U);
	expect_log(test, 0, b + 0x204, 2);
	expect_log(test, 1, b + 0x20000 + 0x204, 2);

	/* One field still running, on either half: busy until the bound. */
	fake_preset(test, b + 0x20000 + 0x200, 0x0100);
	KUNIT_EXPECT_FALSE(test, neuron_udma_engine_quiescent(eng));
	t = jiffies;
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_quiesce(eng, 20), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t), 20U);
	/* The S2M stream field does not count while the stream is off. */
	fake_preset(test, b + 0x20000 + 0x200, 0x0010);
	KUNIT_EXPECT_FALSE(test, neuron_udma_engine_quiescent(eng));
	fake_preset(test, b + 0x20000 + 0x250, 0x111);
	KUNIT_EXPECT_TRUE(test, neuron_udma_engine_quiescent(eng));
	fake_preset(test, b + 0x200, 0x1000);
	KUNIT_EXPECT_EQ(test, neuron_udma_engine_quiesce(eng, 5), -ETIMEDOUT);

	/* The queue: completion head behind the tail while the engine runs. */
	fake_preset(test, mq + 0x3c, 0x40000007);
	fake_preset(test, mq + 0x4c, 0x40000005);
	fake_preset(test, sq + 0x3c, 0x40000007);
	fake_preset(test, sq + 0x4c, 0x40000007);
	KUNIT_EXPECT_FALSE(test, neuron_udma_queue_idle(&eng->queue[0]));
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_quiesce(&eng->queue[0], 5), -ETIMEDOUT);
	/* Queue 1 has nothing in flight. */
	KUNIT_EXPECT_TRUE(test, neuron_udma_queue_idle(&eng->queue[1]));
	fake_preset(test, mq + 0x4c, 0x80000007);
	KUNIT_EXPECT_TRUE(test, neuron_udma_queue_idle(&eng->queue[0]));
	/* Behind again, but the engine stopped: nothing moves. */
	fake_preset(test, mq + 0x4c, 0x40000001);
	fake_preset(test, b + 0x200, 0x2222);
	KUNIT_EXPECT_EQ(test, neuron_udma_queue_quiesce(&eng->queue[0], 5), 0);
}

static void udma_marker(struct kunit *test)
{
	__le32 m[2] = { cpu_to_le32(7), cpu_to_le32(NEURON_UDMA_MARKER) };

	neuron_udma_marker_arm(m);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m[0]), 0xabcdef01U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m[1]), 0U);
	KUNIT_EXPECT_FALSE(test, neuron_udma_marker_seen(m));
	m[1] = m[0];
	KUNIT_EXPECT_TRUE(test, neuron_udma_marker_seen(m));
}

/*
 * The cores whose reset touches each engine: 16 group engines per core in
 * id order on every generation, host engine n for core n on v2 and for
 * cores 2n and 2n + 1 on v3 and v4; every core for what does not divide.
 */
static void udma_engine_cores(struct kunit *test)
{
	static const unsigned int gens[] = { 2, 3, 4 };
	const struct neuron_dhal *dhal[] = { &neuron_dhal_v2, &neuron_dhal_v3, &neuron_dhal_v4 };
	struct neuron_udma_gen odd;
	unsigned int i, e;

	for (i = 0; i < ARRAY_SIZE(gens); i++) {
		const struct neuron_udma_gen *g = udma_gen(gens[i]);
		u32 ncs = dhal[i]->layout->nc_count;
		u32 grouped = g->groups * g->group_engines;
		u32 per = (g->engines - grouped) < ncs ? ncs / (g->engines - grouped) : 1;

		for (e = 0; e < grouped; e++)
			KUNIT_EXPECT_EQ_MSG(test, neuron_dma_engine_cores(g, ncs, e), BIT(e / 16),
					    "v%u engine %u", gens[i], e);
		for (e = grouped; e < g->engines; e++)
			KUNIT_EXPECT_EQ_MSG(test, neuron_dma_engine_cores(g, ncs, e),
					    (u32)GENMASK((e - grouped + 1) * per - 1,
							 (e - grouped) * per),
					    "v%u host engine %u", gens[i], e);
	}
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(2), 2, 33), BIT(1));
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(3), 8, 131), 0xc0U);
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(3), 8, 127), BIT(7));
	/* Out of range, no cores, counts that do not divide: every core. */
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(2), 2, 34), U32_MAX);
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(2), 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(3), 3, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(udma_gen(3), 3, 128), U32_MAX);
	odd = *udma_gen(3);
	odd.engines = odd.groups * odd.group_engines;	/* no host engines */
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(&odd, 8, 8), BIT(0));
	KUNIT_EXPECT_EQ(test, neuron_dma_engine_cores(&odd, 8, 128), U32_MAX);
}

static struct kunit_case udma_cases[] = {
	KUNIT_CASE(udma_desc_m2s_layout),
	KUNIT_CASE(udma_desc_s2m_layout),
	KUNIT_CASE(udma_meta_bits),
	KUNIT_CASE(udma_desc_count),
	KUNIT_CASE(udma_copy_split),
	KUNIT_CASE(udma_ring_wrap),
	KUNIT_CASE(udma_doorbell),
	KUNIT_CASE(udma_engine_bases),
	KUNIT_CASE(udma_engine_cores),
	KUNIT_CASE(udma_ring_base_regs),
	KUNIT_CASE(udma_engine_init_seq),
	KUNIT_CASE(udma_error_setup),
	KUNIT_CASE(udma_queue_init_seq),
	KUNIT_CASE(udma_state),
	KUNIT_CASE(udma_quiesce),
	KUNIT_CASE(udma_marker),
	{}
};

static struct kunit_suite udma_suite = {
	.name = "neuron_udma_desc",
	.init = udma_test_init,
	.test_cases = udma_cases,
};

kunit_test_suite(udma_suite);

MODULE_DESCRIPTION("KUnit tests for neuron_udma");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
NEURON_IMPORT_TESTS_NS();
MODULE_IMPORT_NS(NEURON_NS);
