// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the simulator's notification-queue injector: the parser of the
 * nq_inject debugfs lines, and entries written into rings in host and
 * device memory (wrap-around at the ring end, the head's update, refusals).
 * A v3 simulated device is built by hand (no core device); host memory is
 * mapped with the DMA API for it, as the driver does.
 */

#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nsim_kunit.h"

#define NQ_HOST_BIT	BIT_ULL(46)
/* HBM 1 of v3, which the simulator maps at a quarter of BAR 4. */
#define NQ_HBM1		0x4000000000ULL
#define NQ_HBM1_OFF	SZ_256K
/* NeuronCore 1's notific block on v3, and a slot in it. */
#define NQ_BLOCK	0x06181000ULL
#define NQ_SLOT		5
#define NQ_REGS		(NQ_BLOCK + NSIM_NQ_SLOT_OFF + NQ_SLOT * NSIM_NQ_SLOT_SIZE)

/**
 * struct nq_ctx - one test's device and host buffer
 * @sd: the simulated device
 * @bar4: its device memory as mapped
 * @buf: a page of host memory
 * @dma: DMA address of @buf
 */
struct nq_ctx {
	struct nsim_dev *sd;
	struct neuron_bar bar4;
	u8 *buf;
	dma_addr_t dma;
};

static int nq_test_init(struct kunit *test)
{
	struct nq_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	nsim_kunit_dma_dev(test, &nsim_gens[NSIM_GEN_V3], 61, "neuron_sim_nq_kunit", &c->sd,
			   &c->bar4);
	nsim_kunit_host_buf(test, c->sd, PAGE_SIZE, &c->buf, &c->dma);
	return 0;
}

static void nq_test_exit(struct kunit *test)
{
	struct nq_ctx *c = test->priv;

	if (c)
		nsim_kunit_dma_dev_put(c->sd, c->buf, c->dma, PAGE_SIZE);
}

/* Program the test slot as the driver would. */
static void nq_program(struct kunit *test, u64 base, u32 size, u32 head)
{
	struct nsim_dev *sd = ((struct nq_ctx *)test->priv)->sd;

	KUNIT_ASSERT_EQ(test, nsim_reg_set(sd, NQ_REGS + NSIM_NQ_BASE_LO,
					   lower_32_bits(base), GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, nsim_reg_set(sd, NQ_REGS + NSIM_NQ_BASE_HI,
					   upper_32_bits(base), GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, nsim_reg_set(sd, NQ_REGS + NSIM_NQ_SIZE, size, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, nsim_reg_set(sd, NQ_REGS + NSIM_NQ_HEAD, head, GFP_KERNEL), 0);
}

static u32 nq_head(struct kunit *test)
{
	return nsim_reg_get(((struct nq_ctx *)test->priv)->sd, NQ_REGS + NSIM_NQ_HEAD);
}

/* Inject @n words, the k-th being @first + k, into the test slot. */
static int nq_inject(struct kunit *test, unsigned int n, u32 first)
{
	struct nsim_nq_entry e = { .block = NQ_BLOCK, .slot = NQ_SLOT, .nwords = n };
	unsigned int k;

	for (k = 0; k < n; k++)
		e.words[k] = first + k;
	return nsim_nq_inject(((struct nq_ctx *)test->priv)->sd, &e);
}

static u32 le32_at(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

/* A 64-byte ring in host memory: an entry across the ring end, then a full lap. */
static void sim_nq_wrap_host(struct kunit *test)
{
	struct nq_ctx *c = test->priv;
	unsigned int k;

	nq_program(test, c->dma | NQ_HOST_BIT, 64, 56);
	KUNIT_ASSERT_EQ(test, nq_inject(test, 4, 0x100), 0);
	KUNIT_EXPECT_EQ(test, le32_at(c->buf + 56), 0x100U);
	KUNIT_EXPECT_EQ(test, le32_at(c->buf + 60), 0x101U);
	KUNIT_EXPECT_EQ(test, le32_at(c->buf + 0), 0x102U);
	KUNIT_EXPECT_EQ(test, le32_at(c->buf + 4), 0x103U);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(c->buf + 8, 0, 48));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(c->buf + 64, 0, PAGE_SIZE - 64));
	KUNIT_EXPECT_EQ(test, nq_head(test), 8U);

	/* An entry as large as the ring: a full lap, the head back where it was. */
	KUNIT_ASSERT_EQ(test, nq_inject(test, 16, 0x200), 0);
	for (k = 0; k < 16; k++)
		KUNIT_EXPECT_EQ(test, le32_at(c->buf + (8 + 4 * k) % 64), 0x200U + k);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(c->buf + 64, 0, PAGE_SIZE - 64));
	KUNIT_EXPECT_EQ(test, nq_head(test), 8U);
	KUNIT_EXPECT_EQ(test, c->sd->nq_injected, 2ULL);
}

/* A ring in device memory, at an unaligned base; ending exactly at the ring end. */
static void sim_nq_hbm(struct kunit *test)
{
	struct nq_ctx *c = test->priv;
	u8 *mem = c->sd->mem + NQ_HBM1_OFF + 0x1002;

	nq_program(test, NQ_HBM1 + 0x1002, 32, 24);
	KUNIT_ASSERT_EQ(test, nq_inject(test, 2, 0xcafe0000), 0);
	KUNIT_EXPECT_EQ(test, le32_at(mem + 24), 0xcafe0000U);
	KUNIT_EXPECT_EQ(test, le32_at(mem + 28), 0xcafe0001U);
	KUNIT_EXPECT_EQ(test, nq_head(test), 0U);
	KUNIT_ASSERT_EQ(test, nq_inject(test, 1, 0x12345678), 0);
	KUNIT_EXPECT_EQ(test, mem[0], 0x78);
	KUNIT_EXPECT_EQ(test, mem[3], 0x12);
	KUNIT_EXPECT_EQ(test, nq_head(test), 4U);
	KUNIT_EXPECT_EQ(test, c->sd->nq_injected, 2ULL);
}

static void sim_nq_refuse(struct kunit *test)
{
	struct nq_ctx *c = test->priv;
	u8 *hbm1 = c->sd->mem + NQ_HBM1_OFF;

	/* Nothing programmed: size 0, a halted queue. */
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -EIO);
	nq_program(test, NQ_HBM1, 48, 0);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -EIO);
	nq_program(test, NQ_HBM1, 4, 0);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 2, 1), -EIO);
	nq_program(test, NQ_HBM1, 64, 64);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -EIO);
	nq_program(test, NQ_HBM1, 64, 2);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -EIO);
	KUNIT_EXPECT_EQ(test, nq_head(test), 2U);

	/*
	 * The words before the ring end land in HBM 1, those after it at the
	 * base, which is below HBM 1 and outside HBM 0's slice: nothing at all
	 * is written.
	 */
	memset(hbm1, 0xaa, 64);
	nq_program(test, NQ_HBM1 - 64, 128, 120);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 4, 1), -EFAULT);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(hbm1, 0xaa, 64));
	KUNIT_EXPECT_EQ(test, nq_head(test), 120U);

	/* Host addresses that are not RAM. */
	nq_program(test, BIT_ULL(45) | NQ_HOST_BIT, 64, 0);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -EFAULT);

	/* Device memory unmapped: nothing resolves there any more. */
	nq_program(test, NQ_HBM1, 64, 0);
	c->sd->desc.unmap_bar(c->sd, NSIM_BAR_MEM, &c->bar4);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, nq_head(test), 0U);

	/* A stopped device produces nothing, even into host memory. */
	nq_program(test, c->dma | NQ_HOST_BIT, 64, 0);
	nsim_regs_stop(c->sd);
	KUNIT_EXPECT_EQ(test, nq_inject(test, 1, 1), -ENODEV);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(c->buf, 0, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, c->sd->nq_injected, 0ULL);
}

/* Parse @s as written for a device whose BAR 0 has @bar0_size bytes. */
static int nq_parse(const char *s, u64 bar0_size, struct nsim_nq_entry *e)
{
	char *line = kstrdup(s, GFP_KERNEL);
	int ret;

	if (!line)
		return -ENOMEM;
	ret = nsim_nq_parse(line, bar0_size, e);
	kfree(line);
	return ret;
}

static void sim_nq_parse(struct kunit *test)
{
	struct nsim_nq_entry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	char *line = kunit_kzalloc(test, NSIM_NQ_LINE + 1, GFP_KERNEL);
	unsigned int k, len;

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 3 1 a0 FFFFFFFF\n", SZ_1G, e), 0);
	KUNIT_EXPECT_EQ(test, e->block, 0x30535000ULL);
	KUNIT_EXPECT_EQ(test, e->slot, 3U);
	KUNIT_EXPECT_EQ(test, e->nwords, 3U);
	KUNIT_EXPECT_EQ(test, e->words[0], 1U);
	KUNIT_EXPECT_EQ(test, e->words[1], 0xa0U);
	KUNIT_EXPECT_EQ(test, e->words[2], 0xffffffffU);
	KUNIT_EXPECT_EQ(test, nq_parse("  0x46581000\t95  0xdeadbeef ", SZ_4G, e), 0);
	KUNIT_EXPECT_EQ(test, e->block, 0x46581000ULL);
	KUNIT_EXPECT_EQ(test, e->slot, 95U);
	KUNIT_EXPECT_EQ(test, e->nwords, 1U);
	KUNIT_EXPECT_EQ(test, e->words[0], 0xdeadbeefU);
	/* Slot decimal: 010 is ten. */
	KUNIT_EXPECT_EQ(test, nq_parse("0 010 0", SZ_4G, e), 0);
	KUNIT_EXPECT_EQ(test, e->slot, 10U);
	/* The last block whose slots all fit in BAR 0. */
	KUNIT_EXPECT_EQ(test, nq_parse("3ffff000 95 1", SZ_1G, e), 0);

	/* 64 words fit in the longest line; 65 are too many. */
	len = scnprintf(line, NSIM_NQ_LINE + 1, "0x30535000 0");
	for (k = 0; k < NSIM_NQ_MAX_WORDS; k++)
		len += scnprintf(line + len, NSIM_NQ_LINE + 1 - len, " 0x%08x", k);
	KUNIT_EXPECT_LE(test, len, (unsigned int)NSIM_NQ_LINE);
	KUNIT_EXPECT_EQ(test, nq_parse(line, SZ_1G, e), 0);
	KUNIT_EXPECT_EQ(test, e->nwords, (unsigned int)NSIM_NQ_MAX_WORDS);
	KUNIT_EXPECT_EQ(test, e->words[63], 63U);
	scnprintf(line + len, NSIM_NQ_LINE + 1 - len, " 1");
	KUNIT_EXPECT_EQ(test, nq_parse(line, SZ_1G, e), -EINVAL);

	KUNIT_EXPECT_EQ(test, nq_parse("30535000 96 1", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 -1 1", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0x1 1", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("40000000 0 1", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("3ffff004 0 1", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("100000000 0 1", SZ_4G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535002 0 1", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 100000000", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 0x", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 0x0x5", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 -5", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 1g", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 1\n2", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0 1\n 2", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000 0", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("30535000", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("", SZ_1G, e), -EINVAL);
	KUNIT_EXPECT_EQ(test, nq_parse("garbage 0 1", SZ_1G, e), -EINVAL);
}

static struct kunit_case sim_nq_cases[] = {
	KUNIT_CASE(sim_nq_wrap_host),
	KUNIT_CASE(sim_nq_hbm),
	KUNIT_CASE(sim_nq_refuse),
	KUNIT_CASE(sim_nq_parse),
	{}
};

static struct kunit_suite sim_nq_suite = {
	.name = "neuron_sim_nq",
	.init = nq_test_init,
	.exit = nq_test_exit,
	.test_cases = sim_nq_cases,
};

kunit_test_suite(sim_nq_suite);
