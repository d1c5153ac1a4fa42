// SPDX-License-Identifier: GPL-2.0
/*
 * UDMA engine and queue programming: the register sequences of engine
 * init, error setup, queue init and reset, the doorbell, state reads, and
 * the waits for an engine or a queue to go quiet before memory it uses is
 * let go.  Callers serialise every call on one engine.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/udma.h>

#include "udma_priv.h"

/* Sleeps between looks at an engine or queue that is to go quiet. */
#define UDMA_POLL_MIN_US		10
#define UDMA_POLL_MAX_US		5000

/* AXI timeout an engine init leaves, in clock cycles. */
#define UDMA_AXI_TIMEOUT_INIT		100000000
/* Packet length config: "0 means 64 KiB", largest packet 0xfffff bytes. */
#define UDMA_PKT_LEN_CFG		0x010fffff
/* Stream config: threshold read mode, threshold one beat. */
#define UDMA_M2S_STREAM_CFG		0x102
/* AXI read configs: burst of 8, always break at the max boundary. */
#define UDMA_AXI_RD_CFG			0x00010008
#define UDMA_S2M_WR_OUTSTANDING		0x40804080
#define UDMA_S2M_WR_OUTSTANDING2_MASK	GENMASK(9, 0)
/* S2M completion config: queue promotion, 16-byte completion entries. */
#define UDMA_S2M_COMPL_CFG		0x00001004
/* Prefetch config 2: force round robin. */
#define UDMA_PREFETCH_RR		BIT(16)
/* M2S data-read config: beats, plus this in the upper half. */
#define UDMA_DATA_RD_CFG_HI		0x01000000

/* Error causes made to abort the engine, per interrupt group. */
#define UDMA_M2S_SEC_A_ERRORS		0x0fffffff
#define UDMA_M2S_SEC_C_ERRORS		0x0000003f
#define UDMA_M2S_PRIM_D_ERRORS		0x00000500
#define UDMA_S2M_SEC_B_ERRORS		0xffffef07
#define UDMA_S2M_SEC_C_ERRORS		0x00000fc0
#define UDMA_S2M_PRIM_D_ERRORS		0x00000600
#define UDMA_IOFIC_A			0
#define UDMA_IOFIC_B			1
#define UDMA_IOFIC_C			2
#define UDMA_IOFIC_D			3

/* v2 AXI error tables: entries set to abort, and the per-queue control. */
#define UDMA_AXI_ERR_ENTRY_ABORT	0xf
#define UDMA_AXI_ERR_CTRL_ADDR(q)	(((q) << 3) | 7)
#define UDMA_AXI_ERR_CTRL_DATA		0x10
#define UDMA_AXI_TIMEOUT_NEVER		0xffffffff

/* User interrupt block (v3, v4): ring-id error bits in groups 2 and 3. */
#define UDMA_FIS_GROUP(g)		((g) * 0x40)
#define UDMA_FIS_G2_RING_ID		BIT(11)
#define UDMA_FIS_G3_RING_ID		BIT(2)

/**
 * neuron_udma_rd() - read an engine register
 * @eng: the engine
 * @off: offset from the engine's base (wraps modulo 2^64, so a register
 *	below the base can be reached too)
 *
 * Return: the value.
 */
u32 neuron_udma_rd(const struct neuron_udma_engine *eng, u64 off)
{
	KUNIT_STATIC_STUB_REDIRECT(neuron_udma_rd, eng, off);
	return neuron_reg_read32(eng->nd, eng->bar, eng->base + off);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_rd);

/**
 * neuron_udma_wr() - write an engine register
 * @eng: the engine
 * @off: offset from the engine's base
 * @val: value
 */
void neuron_udma_wr(const struct neuron_udma_engine *eng, u64 off, u32 val)
{
	KUNIT_STATIC_STUB_REDIRECT(neuron_udma_wr, eng, off, val);
	neuron_reg_write32(eng->nd, eng->bar, eng->base + off, val);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_wr);

static void udma_rmw(const struct neuron_udma_engine *eng, u64 off, u32 clear, u32 set)
{
	neuron_udma_wr(eng, off, (neuron_udma_rd(eng, off) & ~clear) | set);
}

static void udma_iofic(const struct neuron_udma_engine *eng, u32 group, u32 reg, u32 val)
{
	neuron_udma_wr(eng, NEURON_UDMA_GEN + group + reg, val);
}

static int udma_gen_check(const struct neuron_udma_gen *gen)
{
	if (!gen->queues || gen->queues > NEURON_UDMA_MAX_QUEUES ||
	    gen->max_descs_per_pkt < NEURON_UDMA_MIN_DESCS_PER_PKT ||
	    gen->max_descs_per_pkt > NEURON_UDMA_MAX_DESCS_PER_PKT ||
	    !gen->group_engines || (gen->groups && !gen->group_base) ||
	    (gen->engines > gen->groups * gen->group_engines && !gen->extra_base) ||
	    (gen->mask_ring_id_error && !gen->fis_base))
		return -EINVAL;
	return 0;
}

/* Engine defaults: AXI, packet, stream and outstanding-transaction setup. */
static void udma_engine_defaults(struct neuron_udma_engine *eng)
{
	const struct neuron_udma_gen *gen = eng->gen;
	unsigned int q, i;

	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_DATA_RD_CFG,
		       UDMA_DATA_RD_CFG_HI | gen->num_beats);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_AXI_OUTSTANDING,
		       gen->m2s_axi_outstanding);
	neuron_udma_wr(eng, NEURON_UDMA_GEN + NEURON_UDMA_GEN_AXI_TIMEOUT,
		       UDMA_AXI_TIMEOUT_INIT);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_ACK_TIMEOUT, 0);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_PKT_LEN_CFG, UDMA_PKT_LEN_CFG);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_STREAM_CFG, UDMA_M2S_STREAM_CFG);
	for (q = 0; q < gen->queues; q++)
		neuron_udma_wr(eng, NEURON_UDMA_GEN_EX + NEURON_UDMA_GEN_EX_TX_SEL(q), ~0U);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_AXI_DATA_RD, UDMA_AXI_RD_CFG);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_S2M_ACK_TIMEOUT, 0);
	for (q = 0; q < gen->queues; q++)
		for (i = 0; i < 3; i++)
			neuron_udma_wr(eng, NEURON_UDMA_GEN_EX + NEURON_UDMA_GEN_EX_RX_SEL(q, i),
				       ~0U);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_S2M_RD_OUTSTANDING,
		       gen->s2m_rd_outstanding);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_S2M_WR_OUTSTANDING,
		       UDMA_S2M_WR_OUTSTANDING);
	if (gen->s2m_wr_outstanding2)
		udma_rmw(eng, NEURON_UDMA_S2M + NEURON_UDMA_S2M_WR_OUTSTANDING2,
			 UDMA_S2M_WR_OUTSTANDING2_MASK,
			 FIELD_PREP(UDMA_S2M_WR_OUTSTANDING2_MASK, gen->s2m_wr_outstanding2));
	udma_rmw(eng, NEURON_UDMA_GEN + NEURON_UDMA_GEN_SPARE, NEURON_UDMA_GEN_SPARE_NO_CMPL, 0);
}

/*
 * Error interrupts: every listed cause is unmasked, sets its cause bit on a
 * rising edge with MSI-X masked (the driver polls), and aborts the engine.
 * Secondary group C is shared by both halves: its abort mask covers the
 * causes of both, so programming S2M does not re-arm M2S's.
 */
static void udma_engine_errors(struct neuron_udma_engine *eng)
{
	u32 sec_a = NEURON_UDMA_IOFIC_SECONDARY(UDMA_IOFIC_A);
	u32 sec_b = NEURON_UDMA_IOFIC_SECONDARY(UDMA_IOFIC_B);
	u32 sec_c = NEURON_UDMA_IOFIC_SECONDARY(UDMA_IOFIC_C);
	u32 prim_d = NEURON_UDMA_IOFIC_PRIMARY(UDMA_IOFIC_D);

	/* M2S */
	udma_iofic(eng, sec_a, NEURON_UDMA_IOFIC_CONTROL, NEURON_UDMA_IOFIC_CTRL_ERRORS);
	udma_iofic(eng, prim_d, NEURON_UDMA_IOFIC_CONTROL, NEURON_UDMA_IOFIC_CTRL_ERRORS);
	udma_iofic(eng, sec_a, NEURON_UDMA_IOFIC_ABORT_MASK, ~UDMA_M2S_SEC_A_ERRORS);
	udma_iofic(eng, sec_c, NEURON_UDMA_IOFIC_ABORT_MASK, ~UDMA_M2S_SEC_C_ERRORS);
	udma_iofic(eng, sec_a, NEURON_UDMA_IOFIC_MASK_CLEAR, ~UDMA_M2S_SEC_A_ERRORS);
	udma_iofic(eng, sec_c, NEURON_UDMA_IOFIC_MASK_CLEAR, ~UDMA_M2S_SEC_C_ERRORS);
	udma_iofic(eng, prim_d, NEURON_UDMA_IOFIC_MASK_CLEAR, ~UDMA_M2S_PRIM_D_ERRORS);
	/* S2M */
	udma_iofic(eng, sec_b, NEURON_UDMA_IOFIC_CONTROL, NEURON_UDMA_IOFIC_CTRL_ERRORS);
	udma_iofic(eng, prim_d, NEURON_UDMA_IOFIC_CONTROL, NEURON_UDMA_IOFIC_CTRL_ERRORS);
	udma_iofic(eng, sec_b, NEURON_UDMA_IOFIC_ABORT_MASK, ~UDMA_S2M_SEC_B_ERRORS);
	udma_iofic(eng, sec_c, NEURON_UDMA_IOFIC_ABORT_MASK,
		   ~(UDMA_M2S_SEC_C_ERRORS | UDMA_S2M_SEC_C_ERRORS));
	udma_iofic(eng, sec_b, NEURON_UDMA_IOFIC_MASK_CLEAR, ~UDMA_S2M_SEC_B_ERRORS);
	udma_iofic(eng, sec_c, NEURON_UDMA_IOFIC_MASK_CLEAR, ~UDMA_S2M_SEC_C_ERRORS);
	udma_iofic(eng, prim_d, NEURON_UDMA_IOFIC_MASK_CLEAR, ~UDMA_S2M_PRIM_D_ERRORS);
}

static void udma_engine_prefetch(struct neuron_udma_engine *eng)
{
	u32 n = eng->gen->max_descs_per_pkt;
	u32 cfg3 = (n << 8) | (8 << 4) | 1;

	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_M2S_PREFETCH_CFG2,
		       n | UDMA_PREFETCH_RR);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_PREFETCH_CFG3, cfg3);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_PREFETCH_CFG3, cfg3);
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_DESC_RD_CFG3, UDMA_AXI_RD_CFG);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_DESC_RD_CFG3, UDMA_AXI_RD_CFG);
}

/**
 * neuron_udma_engine_base() - register offset of an engine
 * @gen: the generation's knobs
 * @index: engine id
 * @base: where the BAR offset of the engine's register block goes
 *
 * Return: 0, or -EINVAL when @gen has no engine @index.
 */
int neuron_udma_engine_base(const struct neuron_udma_gen *gen, unsigned int index, u64 *base)
{
	u32 grouped = gen->groups * gen->group_engines;

	if (index >= gen->engines)
		return -EINVAL;
	/* @index may come from user space. */
	index = array_index_nospec(index, gen->engines);
	if (index < grouped)
		*base = gen->group_base[index / gen->group_engines] +
			(index % gen->group_engines) * gen->stride;
	else
		*base = gen->extra_base[index - grouped];
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_base);

/**
 * neuron_udma_engine_bind() - describe an engine without programming it
 * @eng: filled in
 * @nd: the device whose registers it uses
 * @gen: the generation's knobs; must outlive @eng
 * @index: engine id
 *
 * Enough to read the engine's state and its queues' registers; nothing is
 * written to the hardware.  neuron_udma_engine_init() starts with this.
 *
 * Return: 0, or -EINVAL for a bad @index or inconsistent @gen.
 */
int neuron_udma_engine_bind(struct neuron_udma_engine *eng, struct neuron_device *nd,
			    const struct neuron_udma_gen *gen, unsigned int index)
{
	unsigned int q;
	u64 base;
	int ret;

	ret = udma_gen_check(gen);
	if (ret)
		return ret;
	ret = neuron_udma_engine_base(gen, index, &base);
	if (ret)
		return ret;

	memset(eng, 0, sizeof(*eng));
	eng->nd = nd;
	eng->gen = gen;
	/* In range (neuron_udma_engine_base() checked it), even speculatively. */
	eng->index = array_index_nospec(index, gen->engines);
	eng->bar = gen->bar;
	eng->base = base;
	eng->queue_cfg = NEURON_UDMA_Q_CFG_RESET;
	for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++) {
		eng->queue[q].eng = eng;
		eng->queue[q].qid = q;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_bind);

/**
 * neuron_udma_engine_init() - set up an engine
 * @eng: the engine, zeroed or left by an earlier init (overwritten)
 * @nd: the device whose registers to program
 * @gen: the generation's knobs; must outlive @eng
 * @index: engine id
 *
 * Enables every queue, programs the engine defaults, arms the error
 * interrupts to abort the engine, sets the completion and prefetch
 * configs.  Queues have no ring until neuron_udma_queue_init().  The
 * engine's state is not changed: an engine comes out of device reset
 * running.
 *
 * Return: 0, or -EINVAL for a bad @index or inconsistent @gen.
 */
int neuron_udma_engine_init(struct neuron_udma_engine *eng, struct neuron_device *nd,
			    const struct neuron_udma_gen *gen, unsigned int index)
{
	unsigned int q;
	int ret;

	ret = neuron_udma_engine_bind(eng, nd, gen, index);
	if (ret)
		return ret;

	for (q = 0; q < gen->queues; q++) {
		neuron_udma_wr(eng, neuron_udma_qreg(false, q, NEURON_UDMA_Q_CFG),
			       eng->queue_cfg | NEURON_UDMA_Q_CFG_ENABLE);
		neuron_udma_wr(eng, neuron_udma_qreg(true, q, NEURON_UDMA_Q_CFG),
			       eng->queue_cfg | NEURON_UDMA_Q_CFG_ENABLE);
	}
	udma_engine_defaults(eng);
	udma_engine_errors(eng);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_S2M_COMPL_CFG, UDMA_S2M_COMPL_CFG);
	udma_engine_prefetch(eng);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_init);

/* v2: make AXI errors of every queue abort the engine. */
static void udma_axi_error_abort(struct neuron_udma_engine *eng)
{
	static const u8 entries[] = { 1, 2, 3, 9, 10, 11 };
	unsigned int t, i, q;

	for (t = 0; t < NEURON_UDMA_GEN_AXI_ERR_TABLES; t++) {
		u32 table = NEURON_UDMA_GEN + NEURON_UDMA_GEN_AXI_ERR_TABLE(t);
		u32 ctrl = NEURON_UDMA_GEN + NEURON_UDMA_GEN_AXI_ERR_CTRL(t);

		for (i = 0; i < ARRAY_SIZE(entries); i++)
			neuron_udma_wr(eng, table + entries[i] * 4, UDMA_AXI_ERR_ENTRY_ABORT);
		for (q = 0; q < eng->gen->queues; q++) {
			neuron_udma_wr(eng, ctrl, UDMA_AXI_ERR_CTRL_ADDR(q));
			neuron_udma_wr(eng, ctrl + 4, UDMA_AXI_ERR_CTRL_DATA);
		}
	}
	for (i = 0; i < NEURON_UDMA_GEN_UNIT_IOFICS; i++) {
		u32 unit = NEURON_UDMA_GEN_UNIT_IOFIC(i);

		udma_iofic(eng, unit, NEURON_UDMA_IOFIC_CONTROL, NEURON_UDMA_IOFIC_CTRL_ERRORS);
		udma_iofic(eng, unit, NEURON_UDMA_IOFIC_ABORT_MASK, 0);
		udma_iofic(eng, unit, NEURON_UDMA_IOFIC_MASK_CLEAR, 0);
	}
	neuron_udma_wr(eng, NEURON_UDMA_GEN + NEURON_UDMA_GEN_AXI_TIMEOUT, UDMA_AXI_TIMEOUT_NEVER);
}

/* v3, v4 group engines: a ring-id mismatch is logged, not fatal. */
static void udma_mask_ring_id_error(struct neuron_udma_engine *eng)
{
	const struct neuron_udma_gen *gen = eng->gen;
	u32 sec_a = NEURON_UDMA_GEN + NEURON_UDMA_IOFIC_SECONDARY(UDMA_IOFIC_A);
	u32 sec_b = NEURON_UDMA_GEN + NEURON_UDMA_IOFIC_SECONDARY(UDMA_IOFIC_B);
	u64 fis;
	u32 mask;

	mask = neuron_udma_rd(eng, sec_a + NEURON_UDMA_IOFIC_MASK) | NEURON_UDMA_M2S_ERR_RING_ID;
	neuron_udma_wr(eng, sec_a + NEURON_UDMA_IOFIC_MASK, mask);
	neuron_udma_wr(eng, sec_a + NEURON_UDMA_IOFIC_ABORT_MASK, mask);
	mask = neuron_udma_rd(eng, sec_b + NEURON_UDMA_IOFIC_MASK) | NEURON_UDMA_S2M_ERR_RING_ID;
	neuron_udma_wr(eng, sec_b + NEURON_UDMA_IOFIC_MASK, mask);
	neuron_udma_wr(eng, sec_b + NEURON_UDMA_IOFIC_ABORT_MASK, mask);

	/* The user interrupt block is outside the engine's register block. */
	fis = gen->fis_base[eng->index / gen->group_engines] +
	      (eng->index % gen->group_engines) * gen->fis_stride - eng->base;
	udma_rmw(eng, fis + UDMA_FIS_GROUP(2) + NEURON_UDMA_IOFIC_MASK, 0, UDMA_FIS_G2_RING_ID);
	udma_rmw(eng, fis + UDMA_FIS_GROUP(3) + NEURON_UDMA_IOFIC_MASK, 0, UDMA_FIS_G3_RING_ID);

	udma_rmw(eng, NEURON_UDMA_M2S + NEURON_UDMA_ERR_LOG_MASK, 0, NEURON_UDMA_M2S_ERR_RING_ID);
	udma_rmw(eng, NEURON_UDMA_S2M + NEURON_UDMA_ERR_LOG_MASK, 0, NEURON_UDMA_S2M_ERR_RING_ID);
}

/**
 * neuron_udma_engine_error_setup() - the generation's error handling
 * @eng: an initialised engine
 *
 * With &neuron_udma_gen.axi_error_abort, AXI errors of every queue abort
 * the engine and the AXI timeout is disabled.  With
 * &neuron_udma_gen.mask_ring_id_error, on an engine of a group, a
 * descriptor whose ring id does not match is logged (error-log mask) but
 * neither interrupts nor aborts.  Run after neuron_udma_engine_init().
 */
void neuron_udma_engine_error_setup(struct neuron_udma_engine *eng)
{
	const struct neuron_udma_gen *gen = eng->gen;

	if (gen->axi_error_abort)
		udma_axi_error_abort(eng);
	if (gen->mask_ring_id_error && eng->index < gen->groups * gen->group_engines)
		udma_mask_ring_id_error(eng);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_error_setup);

/**
 * neuron_udma_engine_set_state() - run, stop or abort both halves
 * @eng: the engine
 * @state: NEURON_UDMA_NORMAL, NEURON_UDMA_DISABLED or NEURON_UDMA_ABORTED
 *
 * Return: 0, or -EINVAL for any other @state (nothing is written).
 */
int neuron_udma_engine_set_state(struct neuron_udma_engine *eng, enum neuron_udma_state state)
{
	u32 val;

	switch (state) {
	case NEURON_UDMA_NORMAL:
		val = NEURON_UDMA_CHANGE_NORMAL;
		break;
	case NEURON_UDMA_DISABLED:
		val = NEURON_UDMA_CHANGE_DISABLE;
		break;
	case NEURON_UDMA_ABORTED:
		val = NEURON_UDMA_CHANGE_ABORT;
		break;
	default:
		return -EINVAL;
	}
	neuron_udma_wr(eng, NEURON_UDMA_M2S + NEURON_UDMA_CHANGE_STATE, val);
	neuron_udma_wr(eng, NEURON_UDMA_S2M + NEURON_UDMA_CHANGE_STATE, val);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_set_state);

/*
 * Whether any field of a half's state register reads running (@normal) or
 * aborted (@aborted).  On S2M, the stream-interface field is skipped while
 * the stream is disabled.
 */
static void udma_state_fields(struct neuron_udma_engine *eng, bool s2m, bool *normal,
			      bool *aborted)
{
	u32 half = s2m ? NEURON_UDMA_S2M : NEURON_UDMA_M2S;
	u32 val = neuron_udma_rd(eng, half + NEURON_UDMA_STATE);
	bool skip_stream = false;
	unsigned int i;

	if (s2m) {
		u32 stream = neuron_udma_rd(eng, half + NEURON_UDMA_S2M_STREAM_CFG);

		skip_stream = (stream & NEURON_UDMA_S2M_STREAM_OFF) == NEURON_UDMA_S2M_STREAM_OFF;
	}
	*normal = false;
	*aborted = false;
	for (i = 0; i < NEURON_UDMA_STATE_FIELDS; i++) {
		u32 f = NEURON_UDMA_STATE_FIELD(val, i);

		if (skip_stream && i == NEURON_UDMA_STATE_STREAM)
			continue;
		if (f == NEURON_UDMA_STATE_ABORTED)
			*aborted = true;
		if (f == NEURON_UDMA_STATE_NORMAL)
			*normal = true;
	}
}

/**
 * neuron_udma_engine_get_state() - state of one half
 * @eng: the engine
 * @s2m: the S2M half, else M2S
 *
 * Aborted if any field of the state register says so, else normal if any
 * field is running, else idle.  On S2M, the stream-interface field is
 * ignored while the stream is disabled.
 *
 * Return: NEURON_UDMA_IDLE, NEURON_UDMA_NORMAL or NEURON_UDMA_ABORTED.
 */
enum neuron_udma_state neuron_udma_engine_get_state(struct neuron_udma_engine *eng, bool s2m)
{
	bool normal, aborted;

	udma_state_fields(eng, s2m, &normal, &aborted);
	if (aborted)
		return NEURON_UDMA_ABORTED;
	return normal ? NEURON_UDMA_NORMAL : NEURON_UDMA_IDLE;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_get_state);

/**
 * neuron_udma_engine_quiescent() - whether an engine moves no data
 * @eng: the engine
 *
 * No field of either half's state register reads running: each is idle
 * or aborted, and neither moves data.  On S2M the stream-interface field
 * is ignored while the stream is off, as in neuron_udma_engine_get_state().
 * The register and its fields are the same on every generation.
 *
 * Return: true when neither half runs.
 */
bool neuron_udma_engine_quiescent(struct neuron_udma_engine *eng)
{
	bool normal, aborted;

	udma_state_fields(eng, false, &normal, &aborted);
	if (normal)
		return false;
	udma_state_fields(eng, true, &normal, &aborted);
	return !normal;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_quiescent);

/*
 * Poll @done(@arg) until it holds, sleeping between looks (10 us doubling
 * to 5 ms), for at most @timeout_ms; the last look follows the last sleep.
 */
static int udma_poll(bool (*done)(void *arg), void *arg, unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	unsigned int delay = UDMA_POLL_MIN_US;

	might_sleep();
	for (;;) {
		if (done(arg))
			return 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(delay, delay * 2);
		delay = min(delay * 2, UDMA_POLL_MAX_US);
	}
}

static bool udma_engine_quiet(void *eng)
{
	return neuron_udma_engine_quiescent(eng);
}

/**
 * neuron_udma_engine_quiesce() - stop an engine and wait until it moves no data
 * @eng: the engine
 * @timeout_ms: longest wait (NEURON_UDMA_QUIESCE_MS for the driver's uses)
 *
 * Writes disable to both halves' change-state registers, then reads the
 * state registers until neither half runs (neuron_udma_engine_quiescent()),
 * sleeping between reads; never spins.  Until it returns 0 the engine may
 * still read and write any memory its queues' descriptors and rings name,
 * so the caller must not free, unpin or unmap any of it: it keeps that
 * memory for as long as the engine may run (for the driver's channels and
 * user queues: until the device goes).  May sleep.
 *
 * Return: 0 once the engine is quiet; -ETIMEDOUT if it still ran after
 * @timeout_ms.
 */
int neuron_udma_engine_quiesce(struct neuron_udma_engine *eng, unsigned int timeout_ms)
{
	neuron_udma_engine_set_state(eng, NEURON_UDMA_DISABLED);
	return udma_poll(udma_engine_quiet, eng, timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_engine_quiesce);

static int udma_ring_check(const struct neuron_udma_ring_cfg *cfg)
{
	if (!cfg->size && !cfg->addr && !cfg->va)
		return 0;
	if (cfg->size < NEURON_UDMA_RING_MIN || cfg->size > NEURON_UDMA_RING_MAX ||
	    cfg->size % (NEURON_UDMA_RING_ALIGN / NEURON_UDMA_DESC_SIZE) ||
	    !IS_ALIGNED(cfg->addr, NEURON_UDMA_RING_ALIGN))
		return -EINVAL;
	if (cfg->va && !is_power_of_2(cfg->size))
		return -EINVAL;
	return 0;
}

static void udma_ring_reset(struct neuron_udma_ring *r)
{
	r->head = 0;
	r->tail = 0;
	r->rung = 0;
	r->ring_id = NEURON_UDMA_RING_ID_INIT;
}

/* Pause, reset, program and enable one half of a queue. */
static void udma_half_program(struct neuron_udma_queue *q, bool s2m)
{
	struct neuron_udma_engine *eng = q->eng;
	struct neuron_udma_ring *r = s2m ? &q->s2m : &q->m2s;
	unsigned int qid = q->qid;

	if (!s2m)
		neuron_udma_wr(eng, neuron_udma_qreg(false, qid, NEURON_UDMA_M2S_Q_RATE_MASK),
			       NEURON_UDMA_Q_RATE_MASK_INIT);
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, NEURON_UDMA_Q_CFG), eng->queue_cfg);
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, s2m ? NEURON_UDMA_S2M_Q_SW_CTRL :
					     NEURON_UDMA_M2S_Q_SW_CTRL),
		       NEURON_UDMA_Q_SW_CTRL_RESET);
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, NEURON_UDMA_Q_BASE_LO),
		       lower_32_bits(r->addr));
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, NEURON_UDMA_Q_BASE_HI),
		       upper_32_bits(r->addr));
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, NEURON_UDMA_Q_LEN), r->size);
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, s2m ? NEURON_UDMA_S2M_Q_CMPL_CFG :
					     NEURON_UDMA_M2S_Q_CMPL_CFG), 0);
	neuron_udma_wr(eng, neuron_udma_qreg(s2m, qid, NEURON_UDMA_Q_CFG),
		       eng->queue_cfg | NEURON_UDMA_Q_CFG_ENABLE);
}

/**
 * neuron_udma_queue_init() - give a queue its rings
 * @eng: an initialised engine
 * @qid: queue number
 * @m2s: the source ring
 * @s2m: the destination ring
 *
 * Each half is paused, reset (the engine forgets queued descriptors: head
 * and tail 0, ring id 1), pointed at its ring and enabled again; M2S first.
 * No completion ring is used.  A ring with a kernel address can be filled
 * with neuron_udma_copy_prepare().
 *
 * Return: 0, or -EINVAL for a bad @qid or ring (nothing is written).
 */
int neuron_udma_queue_init(struct neuron_udma_engine *eng, unsigned int qid,
			   const struct neuron_udma_ring_cfg *m2s,
			   const struct neuron_udma_ring_cfg *s2m)
{
	struct neuron_udma_queue *q;

	if (qid >= eng->gen->queues || udma_ring_check(m2s) || udma_ring_check(s2m))
		return -EINVAL;
	/* @qid may come from user space. */
	q = &eng->queue[array_index_nospec(qid, eng->gen->queues)];
	q->m2s.va = m2s->va;
	q->m2s.addr = m2s->addr;
	q->m2s.size = m2s->size;
	q->s2m.va = s2m->va;
	q->s2m.addr = s2m->addr;
	q->s2m.size = s2m->size;
	q->ready = true;
	return neuron_udma_queue_reset(q);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_queue_init);

/**
 * neuron_udma_queue_reset() - drop everything queued and start over
 * @q: a queue given rings by neuron_udma_queue_init()
 *
 * Reprograms both halves as neuron_udma_queue_init() did; once it returns
 * the engine no longer reads the old descriptors.  Software indices go
 * back to 0 and ring ids to 1.
 *
 * Return: 0, or -EINVAL if @q has no rings.
 */
int neuron_udma_queue_reset(struct neuron_udma_queue *q)
{
	if (!q->ready)
		return -EINVAL;
	udma_ring_reset(&q->m2s);
	udma_ring_reset(&q->s2m);
	udma_half_program(q, false);
	udma_half_program(q, true);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_queue_reset);

static void udma_half_state(struct neuron_udma_queue *q, bool s2m,
			    struct neuron_udma_half_state *hs)
{
	struct neuron_udma_engine *eng = q->eng;
	u32 v;

	hs->cfg = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_CFG));
	hs->enabled = (hs->cfg & NEURON_UDMA_Q_CFG_ENABLE) == NEURON_UDMA_Q_CFG_ENABLE;
	hs->status = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_STATUS));
	hs->base = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_BASE_LO)) |
		   (u64)neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid,
							     NEURON_UDMA_Q_BASE_HI)) << 32;
	hs->size = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_LEN));
	v = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_HEAD));
	hs->head = FIELD_GET(NEURON_UDMA_Q_PTR_OFF, v);
	hs->head_ring_id = FIELD_GET(NEURON_UDMA_Q_PTR_RING_ID, v);
	v = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_TAIL));
	hs->tail = FIELD_GET(NEURON_UDMA_Q_PTR_OFF, v);
	hs->tail_ring_id = FIELD_GET(NEURON_UDMA_Q_PTR_RING_ID, v);
	v = neuron_udma_rd(eng, neuron_udma_qreg(s2m, q->qid, NEURON_UDMA_Q_CMPL_HEAD));
	hs->completed = FIELD_GET(NEURON_UDMA_Q_PTR_OFF, v);
}

/**
 * neuron_udma_queue_state() - read a queue's registers
 * @q: the queue
 * @st: filled with what the hardware reports for both halves
 */
void neuron_udma_queue_state(struct neuron_udma_queue *q, struct neuron_udma_queue_state *st)
{
	memset(st, 0, sizeof(*st));
	udma_half_state(q, false, &st->m2s);
	udma_half_state(q, true, &st->s2m);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_queue_state);

/**
 * neuron_udma_queue_idle() - whether a queue has nothing in flight
 * @q: the queue
 *
 * Nothing is in flight when the engine has completed every descriptor the
 * queue was given (the completion head equals the tail on both halves) or
 * when the engine moves no data at all (neuron_udma_engine_quiescent()):
 * a queue reset then makes it forget what it was not given to run.
 *
 * Return: true when the queue's rings, and the memory its descriptors
 * name, are no longer used by the engine once the queue is reset.
 */
bool neuron_udma_queue_idle(struct neuron_udma_queue *q)
{
	struct neuron_udma_engine *eng = q->eng;
	unsigned int h;

	for (h = 0; h < 2; h++) {
		u32 done = neuron_udma_rd(eng, neuron_udma_qreg(h, q->qid,
								NEURON_UDMA_Q_CMPL_HEAD));
		u32 tail = neuron_udma_rd(eng, neuron_udma_qreg(h, q->qid, NEURON_UDMA_Q_TAIL));

		if ((done ^ tail) & NEURON_UDMA_Q_PTR_OFF)
			return neuron_udma_engine_quiescent(eng);
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_queue_idle);

static bool udma_queue_quiet(void *q)
{
	return neuron_udma_queue_idle(q);
}

/**
 * neuron_udma_queue_quiesce() - wait until a queue has nothing in flight
 * @q: the queue
 * @timeout_ms: longest wait (NEURON_UDMA_QUIESCE_MS for the driver's uses)
 *
 * Stops nothing (the engine's other queues may belong to others): waits,
 * sleeping between reads, until neuron_udma_queue_idle().  Until it returns
 * 0 the caller must keep the queue's rings and the memory its descriptors
 * name.  May sleep.
 *
 * Return: 0 once nothing is in flight; -ETIMEDOUT if something still was
 * after @timeout_ms.
 */
int neuron_udma_queue_quiesce(struct neuron_udma_queue *q, unsigned int timeout_ms)
{
	return udma_poll(udma_queue_quiet, q, timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_queue_quiesce);

/**
 * neuron_udma_doorbell() - tell the engine about new descriptors
 * @q: the queue
 * @m2s_n: descriptors added to the M2S ring (0: none)
 * @s2m_n: descriptors added to the S2M ring (0: none)
 *
 * Makes the descriptor writes visible to the device first, then advances
 * the S2M tail before the M2S tail, so the destination side is ready when
 * the source side starts.  Does not touch the software indices: see
 * neuron_udma_submit().
 */
void neuron_udma_doorbell(struct neuron_udma_queue *q, u32 m2s_n, u32 s2m_n)
{
	wmb();	/* descriptors in memory before the tail moves */
	if (s2m_n)
		neuron_udma_wr(q->eng, neuron_udma_qreg(true, q->qid, NEURON_UDMA_Q_TAIL_INC),
			       s2m_n);
	if (m2s_n)
		neuron_udma_wr(q->eng, neuron_udma_qreg(false, q->qid, NEURON_UDMA_Q_TAIL_INC),
			       m2s_n);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_doorbell);

/**
 * neuron_udma_submit() - ring the doorbell for everything prepared
 * @q: the queue
 *
 * Return: descriptors handed to the M2S ring (the S2M count is the same
 * for copies built by this library); 0 when nothing was pending.
 */
u32 neuron_udma_submit(struct neuron_udma_queue *q)
{
	u32 m2s_n = neuron_udma_ring_unrung(&q->m2s);
	u32 s2m_n = neuron_udma_ring_unrung(&q->s2m);

	if (m2s_n || s2m_n)
		neuron_udma_doorbell(q, m2s_n, s2m_n);
	q->m2s.rung = q->m2s.tail;
	q->s2m.rung = q->s2m.tail;
	return m2s_n;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_submit);
