/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UDMA engine library (neuron_udma): programs one DMA engine of a
 * Neuron device, builds copy descriptors into driver-owned rings and rings
 * the doorbell.  It knows nothing about generations: a
 * &struct neuron_udma_gen (data only) says where the engines are and the
 * few tuning values that differ.  Every register access goes through the
 * core's neuron_reg_read32() / neuron_reg_write32().
 *
 * The library is part of the DMA plane module (neuron_udma), which uses it
 * itself; its functions are exported for the KUnit tests only
 * (EXPORT_SYMBOL_IF_KUNIT): no other module calls them.
 *
 * Hardware model: an engine has a memory-to-stream half (M2S, reads the
 * source) and a stream-to-memory half (S2M, writes the destination), each
 * with 16 queues.  Queue q of M2S feeds queue q of S2M; the driver always
 * uses them in pairs.  A queue is a ring of 16-byte descriptors in host or
 * device memory; the driver fills slots at the tail and tells the engine
 * how many it added (the doorbell); the engine consumes them from the head.
 * Completion is observed by polling memory that the last descriptor pair
 * of a batch writes (a completion marker), not through registers.
 *
 * See Documentation/dma.rst.
 */
#ifndef _NEURON_UDMA_H
#define _NEURON_UDMA_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <asm/byteorder.h>

struct neuron_device;

/* ---- Register map, relative to an engine's base ---------------------- */

/* Bytes of register space one engine occupies. */
#define NEURON_UDMA_BLOCK_SIZE		0x3c800
/* Queues in each half of an engine. */
#define NEURON_UDMA_MAX_QUEUES		16

/* Sub-blocks. */
#define NEURON_UDMA_M2S			0x00000
#define NEURON_UDMA_S2M			0x20000
#define NEURON_UDMA_GEN			0x38000
#define NEURON_UDMA_GEN_EX		0x3c000
/* Queue @q's registers inside the M2S or S2M sub-block. */
#define NEURON_UDMA_QUEUE(q)		(0x1000 + (q) * 0x1000)
#define NEURON_UDMA_QUEUE_SIZE		0x1000

/* Engine registers inside the M2S sub-block. */
#define NEURON_UDMA_M2S_AXI_DATA_RD	0x118
#define NEURON_UDMA_M2S_AXI_OUTSTANDING	0x124
#define NEURON_UDMA_M2S_PKT_LEN_CFG	0x254
#define NEURON_UDMA_M2S_STREAM_CFG	0x258
#define NEURON_UDMA_M2S_PREFETCH_CFG2	0x304
#define NEURON_UDMA_M2S_DATA_RD_CFG	0x310
#define NEURON_UDMA_M2S_ACK_TIMEOUT	0x408
/* Engine registers inside the S2M sub-block. */
#define NEURON_UDMA_S2M_RD_OUTSTANDING	0x124
#define NEURON_UDMA_S2M_WR_OUTSTANDING	0x128
#define NEURON_UDMA_S2M_WR_OUTSTANDING2	0x12c
#define NEURON_UDMA_S2M_STREAM_CFG	0x250
#define NEURON_UDMA_S2M_COMPL_CFG	0x380
#define NEURON_UDMA_S2M_ACK_TIMEOUT	0x38c
/* Engine registers at the same offset in both halves. */
#define NEURON_UDMA_DESC_RD_CFG3	0x11c
#define NEURON_UDMA_STATE		0x200
#define NEURON_UDMA_CHANGE_STATE	0x204
#define NEURON_UDMA_ERR_LOG_MASK	0x20c
#define NEURON_UDMA_PREFETCH_CFG3	0x308

/* Error-log mask bit of a descriptor ring-id mismatch. */
#define NEURON_UDMA_M2S_ERR_RING_ID	BIT(17)
#define NEURON_UDMA_S2M_ERR_RING_ID	BIT(11)

/*
 * State register: four 2-bit fields (completion control, stream
 * interface, data path, descriptor prefetch) at bits 0, 4, 8 and 12; each
 * reads 0 (idle), 1 (normal) or 2 (aborted).
 */
#define NEURON_UDMA_STATE_FIELDS	4
#define NEURON_UDMA_STATE_FIELD(v, i)	(((v) >> ((i) * 4)) & 0x3)
#define NEURON_UDMA_STATE_IDLE		0
#define NEURON_UDMA_STATE_NORMAL	1
#define NEURON_UDMA_STATE_ABORTED	2
/* The field of the stream interface, ignored when the S2M stream is off. */
#define NEURON_UDMA_STATE_STREAM	1
/* S2M stream-config bits that, all set, mean the stream is disabled. */
#define NEURON_UDMA_S2M_STREAM_OFF	(BIT(0) | BIT(4) | BIT(8))

/*
 * Longest wait, in ms, for an engine to stop moving data once it was told
 * to (neuron_udma_engine_quiesce()), or for a queue's descriptors in flight
 * to complete (neuron_udma_queue_quiesce()).  The same on every
 * generation: the state register and its fields are.
 */
#define NEURON_UDMA_QUIESCE_MS		250

/* Values of the change-state register. */
#define NEURON_UDMA_CHANGE_NORMAL	1
#define NEURON_UDMA_CHANGE_DISABLE	2
#define NEURON_UDMA_CHANGE_ABORT	4

/* Queue registers, relative to NEURON_UDMA_QUEUE(q) in either half. */
#define NEURON_UDMA_Q_CFG		0x20
#define NEURON_UDMA_Q_STATUS		0x24
#define NEURON_UDMA_Q_BASE_LO		0x28
#define NEURON_UDMA_Q_BASE_HI		0x2c
#define NEURON_UDMA_Q_LEN		0x30
#define NEURON_UDMA_Q_HEAD		0x34
#define NEURON_UDMA_Q_TAIL_INC		0x38
#define NEURON_UDMA_Q_TAIL		0x3c
#define NEURON_UDMA_Q_CMPL_HEAD		0x4c
#define NEURON_UDMA_M2S_Q_RATE_MASK	0x74
#define NEURON_UDMA_M2S_Q_CMPL_CFG	0xa0
#define NEURON_UDMA_M2S_Q_SW_CTRL	0xb0
#define NEURON_UDMA_S2M_Q_CMPL_CFG	0x54
#define NEURON_UDMA_S2M_Q_SW_CTRL	0x64

/* Queue cfg: descriptor prefetch and scheduling (M2S) / stream (S2M). */
#define NEURON_UDMA_Q_CFG_PREFETCH	BIT(16)
#define NEURON_UDMA_Q_CFG_SCHED		BIT(17)
#define NEURON_UDMA_Q_CFG_ENABLE	(NEURON_UDMA_Q_CFG_PREFETCH | NEURON_UDMA_Q_CFG_SCHED)
/* Queue cfg value after a hardware reset. */
#define NEURON_UDMA_Q_CFG_RESET		0x03000000
/* Software control: reset the queue (head = tail = 0, ring id 1). */
#define NEURON_UDMA_Q_SW_CTRL_RESET	BIT(8)
/* M2S rate-limiter mask a queue init leaves (pause on DMB enabled). */
#define NEURON_UDMA_Q_RATE_MASK_INIT	0x3
/* Head, tail and completion-head registers: descriptor offset, ring id. */
#define NEURON_UDMA_Q_PTR_OFF		GENMASK(23, 0)
#define NEURON_UDMA_Q_PTR_RING_ID	GENMASK(31, 30)

/* GEN sub-block. */
#define NEURON_UDMA_GEN_AXI_TIMEOUT	0x2300
#define NEURON_UDMA_GEN_SPARE		0x3460
#define NEURON_UDMA_GEN_SPARE_NO_CMPL	BIT(0)
/* v2 AXI error detection tables and their controls. */
#define NEURON_UDMA_GEN_AXI_ERR_TABLE(i)	(0x2900 + (i) * 0x40)
#define NEURON_UDMA_GEN_AXI_ERR_CTRL(i)		(0x2b00 + (i) * 8)
#define NEURON_UDMA_GEN_AXI_ERR_TABLES	6
/* v2 sub-unit interrupt controllers (descriptor and data paths). */
#define NEURON_UDMA_GEN_UNIT_IOFIC(i)	(0x2d00 + (i) * 0x100)
#define NEURON_UDMA_GEN_UNIT_IOFICS	6

/*
 * Interrupt controllers in the GEN sub-block: a primary group g (A..D =
 * 0..3) and a secondary group g (A..C = 0..2), each with these registers.
 * Writing a 0 bit to mask-clear unmasks that cause; a 0 bit in the abort
 * mask makes that cause abort the engine.
 */
#define NEURON_UDMA_IOFIC_PRIMARY(g)	(0x0000 + (g) * 0x40)
#define NEURON_UDMA_IOFIC_SECONDARY(g)	(0x2000 + (g) * 0x40)
#define NEURON_UDMA_IOFIC_CAUSE		0x00
#define NEURON_UDMA_IOFIC_CAUSE_SET	0x08
#define NEURON_UDMA_IOFIC_MASK		0x10
#define NEURON_UDMA_IOFIC_MASK_CLEAR	0x18
#define NEURON_UDMA_IOFIC_STATUS	0x20
#define NEURON_UDMA_IOFIC_CONTROL	0x28
#define NEURON_UDMA_IOFIC_ABORT_MASK	0x30
/* Control: set cause on a rising edge, keep MSI-X masked. */
#define NEURON_UDMA_IOFIC_CTRL_ERRORS	0x28

/* GEN_EX: queue @q's address-high selectors (one M2S, three S2M). */
#define NEURON_UDMA_GEN_EX_TX_SEL(q)	(0x400 + (q) * 0x40)
#define NEURON_UDMA_GEN_EX_RX_SEL(q, i)	(0x404 + (q) * 0x40 + (i) * 4)

/* ---- Descriptors ---------------------------------------------------- */

/**
 * struct neuron_udma_desc - one ring entry, as the engine reads it
 * @ctrl: control word: length, ring id, flags (NEURON_UDMA_DESC_*)
 * @meta: M2S: meta-control word (NEURON_UDMA_META_*); S2M: 0
 * @addr: M2S: source address; S2M: destination address (device view)
 */
struct neuron_udma_desc {
	__le32 ctrl;
	__le32 meta;
	__le64 addr;
};

static_assert(sizeof(struct neuron_udma_desc) == 16);

#define NEURON_UDMA_DESC_SIZE		16
/* Control word.  A length field of 0 means 64 KiB. */
#define NEURON_UDMA_DESC_LEN		GENMASK(15, 0)
#define NEURON_UDMA_DESC_RING_ID	GENMASK(25, 24)
#define NEURON_UDMA_DESC_FIRST		BIT(26)	/* M2S: first of a packet */
#define NEURON_UDMA_DESC_LAST		BIT(27)	/* M2S: last of a packet */
#define NEURON_UDMA_DESC_INT		BIT(28)	/* interrupt when done */
#define NEURON_UDMA_DESC_SOW		BIT(29)	/* S2M: strong-ordered write */
#define NEURON_UDMA_DESC_DMB		BIT(30)	/* M2S: wait for earlier ones */
/* Most bytes one descriptor moves. */
#define NEURON_UDMA_MAX_DESC_LEN	SZ_64K

/* M2S meta-control word. */
#define NEURON_UDMA_META_LAST_BLOCK	BIT(0)
#define NEURON_UDMA_META_FIRST_BLOCK	BIT(1)
#define NEURON_UDMA_META_COPY_SRC	BIT(19)
#define NEURON_UDMA_META_OP		GENMASK(25, 23)
#define NEURON_UDMA_META_OP_COPY	2
#define NEURON_UDMA_META_WR_BARRIER	BIT(26)
/* What a plain copy carries: one block, copy the source, op "copy". */
#define NEURON_UDMA_META_COPY		0x01080003

/* Ring ids count 1, 2, 3, 0, 1, ...: a fresh queue starts at 1. */
#define NEURON_UDMA_RING_ID_INIT	1
#define NEURON_UDMA_RING_ID_MASK	0x3

/* Slots a ring always keeps empty. */
#define NEURON_UDMA_RING_RESERVED	16
/* Ring size limits, in descriptors. */
#define NEURON_UDMA_RING_MIN		32
#define NEURON_UDMA_RING_MAX		(SZ_16M - 16)
/* Ring start and end alignment, in bytes. */
#define NEURON_UDMA_RING_ALIGN		256

/* Bounds of the descriptors-per-packet prefetch setting. */
#define NEURON_UDMA_MIN_DESCS_PER_PKT	8
#define NEURON_UDMA_MAX_DESCS_PER_PKT	128

/* Value a completion marker carries; its destination is 0 until written. */
#define NEURON_UDMA_MARKER		0xabcdef01
/* Bytes a completion-marker copy moves. */
#define NEURON_UDMA_MARKER_LEN		4

/* Options of a copy (neuron_udma_copy_prepare() @flags). */
#define NEURON_UDMA_COPY_DMB		BIT(0)	/* start after earlier copies */
#define NEURON_UDMA_COPY_WR_BARRIER	BIT(1)	/* write barrier (meta bit) */
#define NEURON_UDMA_COPY_SOW		BIT(2)	/* strong-ordered write */
#define NEURON_UDMA_COPY_INT		BIT(3)	/* interrupt on the last pair */

/* ---- Generation knobs ------------------------------------------------ */

/**
 * struct neuron_udma_gen - where a generation's engines are, and its tuning
 * @generation: 2, 3 or 4
 * @bar: BAR index of the register space holding the engines
 * @engines: engine ids 0..@engines-1 exist
 * @groups: engines are laid out in this many groups (one per NeuronCore on
 *	v2, one per SENG on v3 and v4), holding ids 0..@groups*@group_engines-1
 * @group_engines: engines in each group
 * @group_base: BAR offset of the first engine of each group (@groups
 *	entries); engine e of group g is at @group_base[g] + e * @stride
 * @stride: distance between consecutive engines of a group
 * @extra_base: BAR offset of each engine past the groups (host-to-device
 *	engines), in id order; @engines - @groups * @group_engines entries
 * @queues: queues per engine half (at most NEURON_UDMA_MAX_QUEUES)
 * @num_beats: data-read beats (M2S data-read config)
 * @m2s_axi_outstanding: M2S AXI outstanding-reads config
 * @s2m_rd_outstanding: S2M outstanding-reads config
 * @s2m_wr_outstanding2: value of the low 10 bits of the second S2M
 *	outstanding-writes config; 0 leaves the register alone
 * @max_descs_per_pkt: descriptors per packet the prefetcher allows
 *	(NEURON_UDMA_MIN_DESCS_PER_PKT..NEURON_UDMA_MAX_DESCS_PER_PKT)
 * @axi_error_abort: after init, program the AXI error tables to abort the
 *	engine (v2)
 * @mask_ring_id_error: after init, keep a descriptor ring-id mismatch from
 *	aborting a group engine (v3, v4); needs @fis_base
 * @fis_base: BAR offset of the first engine's user interrupt block in each
 *	group (@groups entries), or NULL
 * @fis_stride: distance between the user interrupt blocks of a group
 * @sow: the S2M strong-ordered write flag exists
 */
struct neuron_udma_gen {
	unsigned int generation;
	u8 bar;
	u32 engines;
	u32 groups;
	u32 group_engines;
	const u64 *group_base;
	u64 stride;
	const u64 *extra_base;
	u32 queues;
	u32 num_beats;
	u32 m2s_axi_outstanding;
	u32 s2m_rd_outstanding;
	u32 s2m_wr_outstanding2;
	u32 max_descs_per_pkt;
	bool axi_error_abort;
	bool mask_ring_id_error;
	const u64 *fis_base;
	u64 fis_stride;
	bool sow;
};

/* ---- Engines, queues and rings ------------------------------------- */

/**
 * struct neuron_udma_ring - one half (M2S or S2M) of a queue
 * @va: kernel address of the descriptors, or NULL when the driver does not
 *	fill this ring (a ring in device memory that user space fills)
 * @addr: device-view address of the ring (host bit applied for host memory)
 * @size: descriptors in the ring; a power of two when @va is set
 * @head: software consumer index: next descriptor to be acknowledged
 * @tail: software producer index: next slot to fill
 * @rung: producer index the engine has been told about (doorbell)
 * @ring_id: id stamped into the descriptor at @tail; advances by one
 *	(modulo 4) each time @tail wraps to 0
 */
struct neuron_udma_ring {
	struct neuron_udma_desc *va;
	u64 addr;
	u32 size;
	u32 head;
	u32 tail;
	u32 rung;
	u8 ring_id;
};

/**
 * struct neuron_udma_ring_cfg - what neuron_udma_queue_init() programs
 * @va: kernel address of the descriptors, or NULL (see &neuron_udma_ring.va)
 * @addr: device-view address, NEURON_UDMA_RING_ALIGN aligned; 0 with
 *	@size 0 parks the queue on no ring
 * @size: descriptors, NEURON_UDMA_RING_MIN..NEURON_UDMA_RING_MAX and a
 *	multiple of 16; a power of two when @va is set
 */
struct neuron_udma_ring_cfg {
	struct neuron_udma_desc *va;
	u64 addr;
	u32 size;
};

struct neuron_udma_engine;

/**
 * struct neuron_udma_queue - queue q of an engine: its M2S and S2M rings
 * @eng: the engine
 * @qid: queue number
 * @m2s: source-side ring
 * @s2m: destination-side ring
 * @ready: neuron_udma_queue_init() succeeded
 */
struct neuron_udma_queue {
	struct neuron_udma_engine *eng;
	unsigned int qid;
	struct neuron_udma_ring m2s;
	struct neuron_udma_ring s2m;
	bool ready;
};

/**
 * struct neuron_udma_engine - one UDMA engine of a device
 * @nd: the device whose registers it uses
 * @gen: the generation's knobs
 * @index: engine id, 0..@gen->engines-1
 * @bar: BAR holding the engine's registers
 * @base: BAR offset of the engine's register block
 * @queue_cfg: value of a queue's cfg register with its enable bits clear
 * @queue: the queues (@gen->queues of them used)
 *
 * The library takes no lock: the caller serialises all calls on one engine
 * (the core's per-engine mutex).
 */
struct neuron_udma_engine {
	struct neuron_device *nd;
	const struct neuron_udma_gen *gen;
	unsigned int index;
	u8 bar;
	u64 base;
	u32 queue_cfg;
	struct neuron_udma_queue queue[NEURON_UDMA_MAX_QUEUES];
};

/**
 * enum neuron_udma_state - state of an engine half
 * @NEURON_UDMA_IDLE: no field is active
 * @NEURON_UDMA_NORMAL: running
 * @NEURON_UDMA_ABORTED: stopped by an error or an abort request
 * @NEURON_UDMA_DISABLED: only for neuron_udma_engine_set_state(): stop
 */
enum neuron_udma_state {
	NEURON_UDMA_IDLE,
	NEURON_UDMA_NORMAL,
	NEURON_UDMA_ABORTED,
	NEURON_UDMA_DISABLED,
};

/**
 * struct neuron_udma_half_state - registers of one half of a queue
 * @cfg: queue cfg register
 * @enabled: prefetch and scheduling/stream enabled
 * @status: queue status register, raw
 * @base: ring base address as programmed
 * @size: ring length as programmed, in descriptors
 * @head: head pointer: offset of the next descriptor the engine takes
 * @head_ring_id: ring id of @head
 * @tail: tail pointer: offset past the last descriptor the engine was given
 * @tail_ring_id: ring id of @tail
 * @completed: completion head: offset past the last finished descriptor
 */
struct neuron_udma_half_state {
	u32 cfg;
	bool enabled;
	u32 status;
	u64 base;
	u32 size;
	u32 head;
	u8 head_ring_id;
	u32 tail;
	u8 tail_ring_id;
	u32 completed;
};

/**
 * struct neuron_udma_queue_state - what the hardware says about a queue
 * @m2s: source half
 * @s2m: destination half
 */
struct neuron_udma_queue_state {
	struct neuron_udma_half_state m2s;
	struct neuron_udma_half_state s2m;
};

/**
 * neuron_udma_reg_is_ring_base() - whether a register holds a ring address
 * @gen: the generation's engines
 * @off: offset of a register in the BAR @gen describes
 *
 * The ring base registers (low and high) of every queue, in either half of
 * every engine of @gen, hold bus addresses of rings, among them memory the
 * driver owns (its channels' rings, the shadow rings of user queues), so
 * user-space register access leaves them out.  Queues an engine does not
 * have count too.
 *
 * Return: true when @off is one of them.
 */
static inline bool neuron_udma_reg_is_ring_base(const struct neuron_udma_gen *gen, u64 off)
{
	u32 grouped = gen->groups * gen->group_engines;
	u64 rel = U64_MAX, span = (u64)gen->group_engines * gen->stride;
	unsigned int i;

	for (i = 0; i < gen->groups && rel == U64_MAX; i++)
		if (off >= gen->group_base[i] && off - gen->group_base[i] < span)
			div64_u64_rem(off - gen->group_base[i], gen->stride, &rel);
	for (i = 0; i < gen->engines - grouped && rel == U64_MAX; i++)
		if (off >= gen->extra_base[i] && off - gen->extra_base[i] < NEURON_UDMA_BLOCK_SIZE)
			rel = off - gen->extra_base[i];
	if (rel >= NEURON_UDMA_BLOCK_SIZE)
		return false;
	/* Either half: the S2M queues sit where the M2S ones do, 0x20000 on. */
	rel &= ~(u64)NEURON_UDMA_S2M;
	if (rel < NEURON_UDMA_QUEUE(0) || rel >= NEURON_UDMA_QUEUE(NEURON_UDMA_MAX_QUEUES))
		return false;
	rel %= NEURON_UDMA_QUEUE_SIZE;
	return rel == NEURON_UDMA_Q_BASE_LO || rel == NEURON_UDMA_Q_BASE_HI;
}

/* ---- The library ---------------------------------------------------- */

/*
 * The two functions every register access of the library goes through.
 * KUnit tests (neuron_udma's own and the simulator's) redirect them with
 * static stubs, to a fake register space or to a simulated device.
 */
u32 neuron_udma_rd(const struct neuron_udma_engine *eng, u64 off);
void neuron_udma_wr(const struct neuron_udma_engine *eng, u64 off, u32 val);

int neuron_udma_engine_base(const struct neuron_udma_gen *gen, unsigned int index,
			    u64 *base);

int neuron_udma_engine_bind(struct neuron_udma_engine *eng, struct neuron_device *nd,
			    const struct neuron_udma_gen *gen, unsigned int index);
int neuron_udma_engine_init(struct neuron_udma_engine *eng, struct neuron_device *nd,
			    const struct neuron_udma_gen *gen, unsigned int index);
void neuron_udma_engine_error_setup(struct neuron_udma_engine *eng);
int neuron_udma_engine_set_state(struct neuron_udma_engine *eng, enum neuron_udma_state state);
enum neuron_udma_state neuron_udma_engine_get_state(struct neuron_udma_engine *eng, bool s2m);
bool neuron_udma_engine_quiescent(struct neuron_udma_engine *eng);
int neuron_udma_engine_quiesce(struct neuron_udma_engine *eng, unsigned int timeout_ms);

int neuron_udma_queue_init(struct neuron_udma_engine *eng, unsigned int qid,
			   const struct neuron_udma_ring_cfg *m2s,
			   const struct neuron_udma_ring_cfg *s2m);
int neuron_udma_queue_reset(struct neuron_udma_queue *q);
void neuron_udma_queue_state(struct neuron_udma_queue *q, struct neuron_udma_queue_state *st);
bool neuron_udma_queue_idle(struct neuron_udma_queue *q);
int neuron_udma_queue_quiesce(struct neuron_udma_queue *q, unsigned int timeout_ms);

void neuron_udma_desc_m2s(struct neuron_udma_desc *d, u64 src, u32 len, u8 ring_id,
			  u32 ctrl_flags, u32 meta);
void neuron_udma_desc_s2m(struct neuron_udma_desc *d, u64 dst, u32 len, u8 ring_id,
			  u32 ctrl_flags);
int neuron_udma_copy_prepare(struct neuron_udma_queue *q, u64 src, u64 dst, u64 len,
			     unsigned int flags);
int neuron_udma_marker_prepare(struct neuron_udma_queue *q, u64 marker_src, u64 marker_dst,
			       unsigned int flags);
void neuron_udma_doorbell(struct neuron_udma_queue *q, u32 m2s_n, u32 s2m_n);
u32 neuron_udma_submit(struct neuron_udma_queue *q);
int neuron_udma_ack(struct neuron_udma_queue *q, u32 n);

/**
 * neuron_udma_desc_count() - descriptor pairs a copy of @len bytes takes
 * @len: bytes
 *
 * Return: @len divided by NEURON_UDMA_MAX_DESC_LEN, rounded up (0 for 0);
 * U32_MAX when that does not fit (no ring is that large).
 */
static inline u32 neuron_udma_desc_count(u64 len)
{
	/* Not DIV_ROUND_UP: len + 64 KiB - 1 overflows for the largest lengths. */
	u64 n = len / NEURON_UDMA_MAX_DESC_LEN + !!(len % NEURON_UDMA_MAX_DESC_LEN);

	return n > U32_MAX ? U32_MAX : n;
}

/**
 * neuron_udma_ring_free() - slots that can be filled
 * @r: a ring with a power-of-two size
 *
 * NEURON_UDMA_RING_RESERVED slots are always kept empty, so an empty ring
 * has @r->size - 16 free slots.
 *
 * Return: free slots.
 */
static inline u32 neuron_udma_ring_free(const struct neuron_udma_ring *r)
{
	if (!r->size)
		return 0;
	return (r->head - (r->tail + NEURON_UDMA_RING_RESERVED)) & (r->size - 1);
}

/**
 * neuron_udma_ring_unrung() - descriptors filled but not yet announced
 * @r: a ring with a power-of-two size
 *
 * Return: how far the doorbell must advance the engine's tail.
 */
static inline u32 neuron_udma_ring_unrung(const struct neuron_udma_ring *r)
{
	if (!r->size)
		return 0;
	return (r->tail - r->rung) & (r->size - 1);
}

/**
 * neuron_udma_marker_arm() - get a completion marker ready
 * @m: the marker's two words in host memory: source, destination
 *
 * The source gets NEURON_UDMA_MARKER and the destination 0; the marker
 * copy (neuron_udma_marker_prepare()) moves the one onto the other.
 */
static inline void neuron_udma_marker_arm(__le32 *m)
{
	WRITE_ONCE(m[0], cpu_to_le32(NEURON_UDMA_MARKER));
	WRITE_ONCE(m[1], 0);
}

/**
 * neuron_udma_marker_seen() - whether the marker copy has landed
 * @m: the marker's two words
 *
 * Return: true once the destination word holds NEURON_UDMA_MARKER; every
 * descriptor queued before the marker pair has then completed.
 */
static inline bool neuron_udma_marker_seen(const __le32 *m)
{
	return le32_to_cpu(READ_ONCE(m[1])) == NEURON_UDMA_MARKER;
}

#endif /* _NEURON_UDMA_H */
