// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: notification queues (Documentation/state.rst, "Notification
 * queues", with "Holding a core" and "Core reservations") on simulated v2,
 * v3 and v4 devices: where the driver points the device (the slot
 * registers of the core's, TOP_SP's or DMA engine's notific block), what
 * the device then writes and where the owner sees it, the queue's handle
 * and mapping, who may set up, map and destroy a queue, bad requests, and
 * how long a queue lives: past its owner, until its core is reset or the
 * device goes.
 *
 * Each test starts with no Neuron module loaded, loads neuron_core and
 * neuron_sim, creates one simulated device, opens it on both lanes (a
 * normal file, O_RDWR: this process attaches; a free-access O_WRONLY file,
 * through which it reserves cores) and reads the device's memory counters
 * from debugfs.  The slot registers are read back with BAR_READ (they are
 * in the read-only part of the register BAR); the simulator's nq_inject
 * debugfs file makes the device produce entries.  The teardown kills the
 * children left, unmaps what the test mapped, resets every core (queues
 * outlive their owners; a reset releases them), closes everything, checks
 * that the counters are back where they started, and leaves no module
 * loaded.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures with CHILD_CHECK() and report the count as their exit status.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
/* Simulator id of the device under test: its routing id and index. */
#define DEV		3
/* Engine indexes a queue may name; the snapshots also cover the next slot. */
#define ENGINES		16
#define SNAP_SLOTS	(ENGINES + 1)
#define SNAP_MAX	512
/* The mmap_offset of a device queue. */
#define NO_OFFSET	(~0ULL)
/* Most words the simulator takes in one entry. */
#define MAX_WORDS	64

#define NC		NQ_DEVICE_TYPE_NEURON_CORE
#define TOPSP		NQ_DEVICE_TYPE_TOPSP

/* Page size, set by the fixture. */
static size_t pg;

FIXTURE(nq) {
	int fd;		/* normal file (O_RDWR): this process is attached */
	int wfd;	/* free-access file: reservations */
	int index;
	unsigned int n;		/* cores */
	unsigned int nts;	/* TOP_SPs */
	__u64 bar;		/* BAR 0's base, as DEVICE_INFO gives it */
	__u32 held;		/* cores reserved through @wfd */
	int counted;		/* @start holds the counters at the start */
	struct mcount start;
	struct undo undo;	/* children and mappings */
	long t0;		/* ms, when the setup started */
};

/* The generation and where its notific blocks are (DHAL data). */
FIXTURE_VARIANT(nq) {
	const char *gen;
	unsigned int ncs;
	unsigned int nts;
	__u64 nc_block[8];
	__u64 ts_base;
	__u64 ts_stride;
	unsigned int ts_per_group;
	__u64 ts_group_stride;
	__u64 trace_block[2];	/* per core, engine 0's block; 0: no trace-DMA queues */
	__u64 trace_stride;
};

FIXTURE_VARIANT_ADD(nq, v2) {
	.gen = "v2", .ncs = 2, .nts = 6,
	.nc_block = { 0x30535000, 0x30c35000 },
	.ts_base = 0x30e04000, .ts_stride = 0x40000, .ts_per_group = 6,
	.trace_block = { 0x30401000, 0x30b01000 }, .trace_stride = 0x7000,
};

FIXTURE_VARIANT_ADD(nq, v3) {
	.gen = "v3", .ncs = 8, .nts = 16,
	.nc_block = { 0x06001000, 0x06181000, 0x06401000, 0x06581000,
		      0x46001000, 0x46181000, 0x46401000, 0x46581000 },
	.ts_base = 0x06a00000, .ts_stride = 0x40000, .ts_per_group = 8,
	.ts_group_stride = 0x40000000,
};

FIXTURE_VARIANT_ADD(nq, v4) {
	.gen = "v4", .ncs = 8, .nts = 16,
	.nc_block = { 0x06001000, 0x06181000, 0x06401000, 0x06581000,
		      0x46001000, 0x46181000, 0x46401000, 0x46581000 },
	.ts_base = 0x06a00000, .ts_stride = 0x40000, .ts_per_group = 8,
	.ts_group_stride = 0x40000000,
};

/* The types the harness gives the fixture's data and variant. */
#define nq_self		_test_data_nq
#define nq_variant	_fixture_variant_nq

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static __u64 nc_block(const struct nq_variant *v, unsigned int nc)
{
	return v->nc_block[nc];
}

static __u64 ts_block(const struct nq_variant *v, unsigned int ts)
{
	return v->ts_base + (ts / v->ts_per_group) * v->ts_group_stride +
	       (ts % v->ts_per_group) * v->ts_stride;
}

/* The block of DMA engine @e of core @nc, whose slot 0 a trace-DMA queue uses. */
static __u64 trace_block(const struct nq_variant *v, unsigned int nc, unsigned int e)
{
	return v->trace_block[nc] + e * v->trace_stride;
}

/* @size rounded up to whole pages: what a queue of @size bytes occupies. */
static long long pages(__u64 size)
{
	return (size + pg - 1) / pg * pg;
}

/* Reserve core @c through @fd (in its device's numbering): 0 or -errno. */
static long hold(int fd, unsigned int c)
{
	struct span s;
	long ret = mark(fd, 0, 1, c, c, &s);

	if (!ret && s.bits[0] != 1ULL << c)
		return -EPROTO;
	return ret;
}

/* Hold core @c, reserving it through the fixture's free-access file unless it is already. */
static void take_core(struct __test_metadata *_metadata, struct nq_self *self, unsigned int c)
{
	if (self->held & 1U << c)
		return;
	ASSERT_EQ(0, hold(self->wfd, c)) TH_LOG("reserving core %u", c);
	self->held |= 1U << c;
}

static void drop_core(struct __test_metadata *_metadata, struct nq_self *self, unsigned int c)
{
	EXPECT_EQ(0, unmark_one(self->wfd, c)) TH_LOG("releasing core %u", c);
	self->held &= ~(1U << c);
}

/* The three init commands. */
enum form { F_V1, F_V2, F_REALLOC };

static const char *form_name(enum form f)
{
	switch (f) {
	case F_V1:
		return "NOTIFICATIONS_INIT_V1";
	case F_V2:
		return "NOTIFICATIONS_INIT_V2";
	default:
		return "NOTIFICATIONS_INIT_WITH_REALLOC_V2";
	}
}

/* A queue request: every field of every form (V1 uses dev_id as nc_id, and its host). */
struct nq_req {
	__u32 dev_type;
	__u32 dev_id;
	__u32 nq_type;
	__u32 engine;
	__u32 size;
	__u32 host;
	__u32 channel;
	__u32 region;
	__u32 force;
};

/*
 * Init command @f with @r; its outputs, which start as junk to see that
 * they are written, in *@off and (V2 forms) *@h.
 */
static long nq_init(int fd, enum form f, const struct nq_req *r, __u64 *off, __u64 *h)
{
	struct neuron_ioctl_notifications_init_v1 a1 = {
		.nc_id = r->dev_id, .nq_type = r->nq_type, .engine_index = r->engine,
		.size = r->size, .mmap_offset = 0xa5a5a5a5a5a5a5a5ULL,
	};
	struct neuron_ioctl_notifications_init_v2 a2 = {
		.nq_dev_id = r->dev_id, .nq_dev_type = r->dev_type, .nq_type = r->nq_type,
		.engine_index = r->engine, .size = r->size, .on_host_memory = r->host,
		.dram_channel = r->channel, .dram_region = r->region,
		.mmap_offset = 0xa5a5a5a5a5a5a5a5ULL, .mem_handle = 0xa5a5a5a5a5a5a5a5ULL,
	};
	struct neuron_ioctl_notifications_init_with_realloc_v2 ar = {
		.nq_dev_id = r->dev_id, .nq_dev_type = r->dev_type, .nq_type = r->nq_type,
		.engine_index = r->engine, .size = r->size, .on_host_memory = r->host,
		.dram_channel = r->channel, .dram_region = r->region,
		.force_alloc_mem = r->force,
		.mmap_offset = 0xa5a5a5a5a5a5a5a5ULL, .mem_handle = 0xa5a5a5a5a5a5a5a5ULL,
	};
	long ret;

	switch (f) {
	case F_V1:
		ret = xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V1, &a1);
		*off = a1.mmap_offset;
		if (h)
			*h = 0;
		return ret;
	case F_V2:
		ret = xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, &a2);
		*off = a2.mmap_offset;
		if (h)
			*h = a2.mem_handle;
		return ret;
	default:
		ret = xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, &ar);
		*off = ar.mmap_offset;
		if (h)
			*h = ar.mem_handle;
		return ret;
	}
}

static long nq_destroy(int fd, __u64 off)
{
	struct neuron_ioctl_notifications_destroy a = { .mmap_offset = off };

	return xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1, &a);
}

/* A slot's registers. */
struct slot {
	__u64 base;
	__u32 size;
	__u32 head;
};

/* Slot @i of the notific block at @block. */
static long slot_get(struct nq_self *self, __u64 block, unsigned int i, struct slot *s)
{
	__u32 v[4];
	long ret = nq_slot(self->fd, self->bar, block, i, v);

	s->base = v[0] | (__u64)v[1] << 32;
	s->size = v[2];
	s->head = v[3];
	return ret;
}

/* Slot @i of @block points the device at @base, @size bytes (0, 0: halted or never used). */
static void expect_slot(struct __test_metadata *_metadata, struct nq_self *self, __u64 block,
			unsigned int i, __u64 base, __u32 size, const char *what)
{
	struct slot s;

	ASSERT_EQ(0, slot_get(self, block, i, &s)) TH_LOG("%s: BAR_READ", what);
	EXPECT_EQ(base, s.base) {
		TH_LOG("%s: block %#llx slot %u: base %#llx, want %#llx", what,
		       (unsigned long long)block, i, (unsigned long long)s.base,
		       (unsigned long long)base);
	}
	EXPECT_EQ(size, s.size) {
		TH_LOG("%s: block %#llx slot %u: size %#x, want %#x", what,
		       (unsigned long long)block, i, s.size, size);
	}
}

/* The simulator's count of entries the device produced; -1 if unreadable. */
static long long injected(void)
{
	char buf[64];

	if (nt_read(buf, sizeof(buf), SIM_DBG, DEV, "nq_injected"))
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * An entry of @n random words (into @w) that the device must produce in
 * slot @i of @block: its head advances by 4 * @n bytes modulo the size,
 * base and size stay, and the simulator counts one entry more.
 * Return: the byte offset in the ring where the entry starts, or -1.
 */
static long produce(struct __test_metadata *_metadata, struct nq_self *self, __u64 block,
		    unsigned int i, __u32 *w, unsigned int n, const char *what)
{
	long long count = injected();
	struct slot before, after;
	unsigned int k;
	int ret;

	for (k = 0; k < n; k++)
		w[k] = (__u32)rnd() | 1;
	ASSERT_LE(0, count);
	ASSERT_EQ(0, slot_get(self, block, i, &before));
	ret = nq_inject(DEV, block, i, w, n);
	EXPECT_EQ(0, ret) {
		TH_LOG("%s: entry of %u words in block %#llx slot %u: %s", what, n,
		       (unsigned long long)block, i, strerror(-ret));
	}
	if (ret)
		return -1;
	ASSERT_EQ(0, slot_get(self, block, i, &after));
	EXPECT_EQ(before.base, after.base) TH_LOG("%s: the device moved the base", what);
	EXPECT_EQ(before.size, after.size) TH_LOG("%s: the device changed the size", what);
	if (before.size)
		EXPECT_EQ((before.head + 4 * n) % before.size, after.head) {
			TH_LOG("%s: head %#x, was %#x, %u words", what, after.head, before.head, n);
		}
	EXPECT_EQ(count + 1, injected()) TH_LOG("%s: entries counted", what);
	return before.head;
}

/* An entry the device must refuse (the slot is halted): nothing counted, head unchanged. */
static void refused(struct __test_metadata *_metadata, struct nq_self *self, __u64 block,
		    unsigned int i, const char *what)
{
	long long count = injected();
	__u32 w[2] = { 0x600df00d, 0xbadc0de };
	struct slot before, after;

	ASSERT_EQ(0, slot_get(self, block, i, &before));
	EXPECT_EQ(-EIO, nq_inject(DEV, block, i, w, 2)) {
		TH_LOG("%s: block %#llx slot %u took an entry", what, (unsigned long long)block, i);
	}
	ASSERT_EQ(0, slot_get(self, block, i, &after));
	EXPECT_EQ(before.head, after.head) TH_LOG("%s", what);
	EXPECT_EQ(count, injected()) TH_LOG("%s", what);
}

/* The words of @ring (@size bytes) from byte @pos on, wrapping at @size, are @w. */
static int ring_holds(const void *ring, __u32 size, long pos, const __u32 *w, unsigned int n)
{
	const __u32 *r = ring;
	unsigned int k;

	if (pos < 0 || pos % 4 || pos >= size)
		return 0;
	for (k = 0; k < n; k++)
		if (r[(pos / 4 + k) % (size / 4)] != w[k])
			return 0;
	return 1;
}

/* What the device wrote in a device queue, through its handle: 1 when @w is at @pos. */
static int dev_ring_holds(struct __test_metadata *_metadata, struct nq_self *self, int wide,
			  __u64 h, __u32 size, long pos, const __u32 *w, unsigned int n)
{
	__u32 *buf = malloc(size);
	int ok;

	ASSERT_NE(NULL, buf);
	memset(buf, 0, size);
	EXPECT_EQ(0, buf_copy(self->fd, wide, h, buf, size, 0, 0)) TH_LOG("MEM_BUF_COPY");
	ok = ring_holds(buf, size, pos, w, n);
	free(buf);
	return ok;
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/*
 * Read the word at @p (in this process: queue mappings, like chunk
 * mappings, are not inherited across fork()) into *@v.  1 when the read
 * raised SIGBUS, 0 when it worked, -1 without a handler.
 */
static int read_word(const __u32 *p, __u32 *v)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old))
		return -1;
	if (sigsetjmp(bus_jmp, 1))
		ret = 1;
	else
		*v = __atomic_load_n(p, __ATOMIC_RELAXED);
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

/*
 * Every slot register a request could touch: slots 0 to 16 of core 0, the
 * last core, TOP_SP 1 and the last TOP_SP, and slot 0 of every DMA engine's
 * block (v2); and the memory counters.
 */
struct snap {
	unsigned int n;
	__u64 offs[SNAP_MAX];
	__u32 val[SNAP_MAX];
	struct mcount c;
};

static void snap_take(struct __test_metadata *_metadata, struct nq_self *self,
		      const struct nq_variant *variant, struct snap *s)
{
	const __u64 blocks[] = {
		nc_block(variant, 0), nc_block(variant, self->n - 1),
		ts_block(variant, 1), ts_block(variant, self->nts - 1),
	};
	__u64 offs[SNAP_MAX];
	unsigned int b, i, k, nc;

	s->n = 0;
	for (b = 0; b < ARRAY_SIZE(blocks); b++)
		for (i = 0; i < SNAP_SLOTS; i++)
			for (k = 0; k < 4; k++)
				s->offs[s->n++] = blocks[b] + NQ_SLOT(i) + 4 * k;
	for (nc = 0; variant->trace_block[0] && nc < self->n; nc++)
		for (i = 0; i < ENGINES; i++)
			for (k = 0; k < 4; k++)
				s->offs[s->n++] = trace_block(variant, nc, i) + NQ_SLOT(0) + 4 * k;
	ASSERT_GE(SNAP_MAX, s->n);
	memcpy(offs, s->offs, s->n * sizeof(offs[0]));
	ASSERT_EQ(0, regs_read(self->fd, self->bar, offs, s->val, s->n));
	ASSERT_EQ(0, mcount_read(self->index, &s->c));
}

/* Nothing changed since @was: no slot register, no counter. */
static void expect_unchanged(struct __test_metadata *_metadata, struct nq_self *self,
			     const struct nq_variant *variant, const struct snap *was,
			     const char *what)
{
	struct snap *now = malloc(sizeof(*now));
	unsigned int i, diffs = 0;

	ASSERT_NE(NULL, now);
	snap_take(_metadata, self, variant, now);
	for (i = 0; i < was->n; i++) {
		if (now->val[i] == was->val[i])
			continue;
		if (diffs++ < 8)
			TH_LOG("%s: register %#llx is %#x, was %#x", what,
			       (unsigned long long)was->offs[i], now->val[i], was->val[i]);
	}
	EXPECT_EQ(0, diffs) TH_LOG("%s: %u slot registers changed", what, diffs);
	free(now);
	check_counts(_metadata, self->index, &was->c, what);
}

FIXTURE_SETUP(nq)
{
	/* Lifetimes do not depend on the generation: v3 only (the fixture costs). */
	if (strcmp(variant->gen, "v3") && !strcmp(_metadata->name, "lifetime"))
		SKIP(return, "generation-independent: runs on v3");
	self->t0 = nt_now_ms();
	self->fd = -1;
	self->wfd = -1;
	self->counted = 0;
	self->held = 0;
	memset(&self->undo, 0, sizeof(self->undo));
	pg = sysconf(_SC_PAGESIZE);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());

	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	sim_device_ready(_metadata, DEV, variant->ncs, SETTLE_MS);
	self->n = variant->ncs;
	self->nts = variant->nts;
	ASSERT_EQ(0, self->nts % self->n);
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->wfd = open_node(self->index, O_WRONLY);
	ASSERT_LE(0, self->wfd);
	ASSERT_EQ(0, bar_base(self->fd, &self->bar));
	ASSERT_LE(0, injected()) TH_LOG("no nq_injected in the simulator's debugfs");
	ASSERT_EQ(0, mcount_read(self->index, &self->start));
	self->counted = 1;
}

FIXTURE_TEARDOWN(nq)
{
	kill_kids(&self->undo);
	unmap_all(&self->undo);
	/* Queues outlive their owners: a reset of every core releases them. */
	if (self->counted && self->fd >= 0)
		EXPECT_EQ(0, reset_cores(self->fd, (1U << self->n) - 1));
	if (self->fd >= 0)
		close(self->fd);
	if (self->wfd >= 0)
		close(self->wfd);
	sim_device_end(_metadata, self->index, self->counted ? &self->start : NULL, self->t0);
}

/* ------------------------------------------------------------------ */
/* Queues: programming, entries, handles                               */
/* ------------------------------------------------------------------ */

/*
 * A host queue of core 0: its slot, the entries the device writes (wrapping
 * at the programmed size), INIT again, INIT_WITH_REALLOC_V2 with
 * force_alloc_mem, and MEM_FREE of its handle.
 */
static void queue_host(struct __test_metadata *_metadata, struct nq_self *self,
		       const struct nq_variant *variant)
{
	const __u32 size = 512, size2 = 1024;
	const unsigned int c = 0, e = 2;
	const __u64 blk = nc_block(variant, c);
	struct nq_req r = {
		.dev_type = NC, .dev_id = c, .nq_type = NQ_TYPE_NOTIFY, .engine = e,
		.size = size, .host = 1,
	}, again;
	__u64 off, h, off2, h2, pa, noff, nh;
	__u32 w1[3], w2[5], big[MAX_WORDS], w[7], *ring, *nring, *m2;
	unsigned char *tail, *old;
	struct mcount before, want;
	struct slot s;
	long pos, pos2;
	int k, wrapped = 0;

	tail = malloc(pg);
	old = malloc(size);
	ASSERT_NE(NULL, tail);
	ASSERT_NE(NULL, old);
	take_core(_metadata, self, c);
	before = counts_now(_metadata, self->index);

	ASSERT_EQ(0, nq_init(self->fd, F_V2, &r, &off, &h));
	EXPECT_NE(NO_OFFSET, off);
	EXPECT_EQ(0, off % pg) TH_LOG("mmap_offset %#llx", (unsigned long long)off);
	EXPECT_NE(0, h);
	ASSERT_EQ(0, get_pa(self->fd, h, &pa));
	EXPECT_EQ(off, pa) TH_LOG("the handle names the queue's memory");
	want = mcount_plus(&before, pages(size), 0, 1, 1);
	check_counts(_metadata, self->index, &want, "host queue");
	expect_slot(_metadata, self, blk, e, off, size, "host queue");
	expect_slot(_metadata, self, blk, e - 1, 0, 0, "the slot before");
	expect_slot(_metadata, self, blk, e + 1, 0, 0, "the slot after");
	ASSERT_EQ(0, slot_get(self, blk, e, &s));
	EXPECT_EQ(0, s.head) TH_LOG("a fresh slot's head");

	ring = map(&self->undo, self->fd, off, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, ring) TH_LOG("mmap of the queue: %s", strerror(errno));
	memcpy(tail, (char *)ring + size, pg - size);

	/* Two entries, one after the other from the head. */
	pos = produce(_metadata, self, blk, e, w1, ARRAY_SIZE(w1), "first entry");
	EXPECT_EQ(s.head, pos);
	EXPECT_TRUE(ring_holds(ring, size, pos, w1, ARRAY_SIZE(w1))) TH_LOG("first entry");
	pos2 = produce(_metadata, self, blk, e, w2, ARRAY_SIZE(w2), "second entry");
	EXPECT_EQ(s.head + 4 * ARRAY_SIZE(w1), pos2);
	EXPECT_TRUE(ring_holds(ring, size, pos2, w2, ARRAY_SIZE(w2))) TH_LOG("second entry");
	EXPECT_TRUE(ring_holds(ring, size, pos, w1, ARRAY_SIZE(w1))) TH_LOG("first entry kept");

	/* Long entries: one of them wraps at the size programmed, not at the page. */
	for (k = 0; k < 2; k++) {
		pos = produce(_metadata, self, blk, e, big, MAX_WORDS, "long entry");
		EXPECT_TRUE(ring_holds(ring, size, pos, big, MAX_WORDS)) TH_LOG("long entry %d", k);
		if (pos + 4 * MAX_WORDS > size)
			wrapped = 1;
	}
	EXPECT_TRUE(wrapped) TH_LOG("no entry reached the end of the ring");
	EXPECT_EQ(0, memcmp(tail, (char *)ring + size, pg - size))
		TH_LOG("the device wrote past the ring's %u bytes", size);

	/* The queue exists: the same memory, whatever size and placement are asked. */
	ASSERT_EQ(0, slot_get(self, blk, e, &s));
	again = r;
	again.size = 4096;
	again.host = 0;
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &again, &off2, &h2));
	EXPECT_EQ(off, off2) TH_LOG("INIT_V2 of an existing queue");
	ASSERT_EQ(0, get_pa(self->fd, h2, &pa));
	EXPECT_EQ(off, pa);
	check_counts(_metadata, self->index, &want, "INIT_V2 of an existing queue");
	expect_slot(_metadata, self, blk, e, off, size, "INIT_V2 of an existing queue");
	again.force = 0;
	ASSERT_EQ(0, nq_init(self->fd, F_REALLOC, &again, &off2, &h2));
	EXPECT_EQ(off, off2) TH_LOG("INIT_WITH_REALLOC_V2, force 0");
	ASSERT_EQ(0, get_pa(self->fd, h2, &pa));
	EXPECT_EQ(off, pa);
	check_counts(_metadata, self->index, &want, "INIT_WITH_REALLOC_V2, force 0");
	expect_slot(_metadata, self, blk, e, off, size, "INIT_WITH_REALLOC_V2, force 0");
	pos = produce(_metadata, self, blk, e, w, ARRAY_SIZE(w), "after INIT again");
	EXPECT_EQ(s.head, pos) TH_LOG("INIT again moved the head");
	EXPECT_TRUE(ring_holds(ring, size, pos, w, ARRAY_SIZE(w))) TH_LOG("after INIT again");

	/* force_alloc_mem: new memory; the old stays while mapped and handled. */
	again = r;
	again.size = size2;
	again.force = 1;
	memcpy(old, ring, size);
	ASSERT_EQ(0, nq_init(self->fd, F_REALLOC, &again, &noff, &nh));
	EXPECT_NE(off, noff) TH_LOG("force_alloc_mem 1 kept the memory");
	EXPECT_NE(NO_OFFSET, noff);
	EXPECT_EQ(0, noff % pg);
	EXPECT_NE(0, nh);
	EXPECT_NE(h, nh);
	ASSERT_EQ(0, get_pa(self->fd, nh, &pa));
	EXPECT_EQ(noff, pa);
	expect_slot(_metadata, self, blk, e, noff, size2, "reallocated");
	want = mcount_plus(&want, pages(size2), 0, 1, 1);
	check_counts(_metadata, self->index, &want, "reallocated, old memory mapped and handled");
	EXPECT_EQ(0, memcmp(old, ring, size)) TH_LOG("the old ring changed");
	nring = map(&self->undo, self->fd, noff, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, nring) TH_LOG("mmap of the new ring: %s", strerror(errno));
	pos = produce(_metadata, self, blk, e, w, ARRAY_SIZE(w), "into the new ring");
	EXPECT_TRUE(ring_holds(nring, size2, pos, w, ARRAY_SIZE(w))) TH_LOG("new ring");
	EXPECT_EQ(0, memcmp(old, ring, size)) TH_LOG("an entry landed in the old ring");
	/* Letting go of the old memory frees it. */
	EXPECT_EQ(0, mem_free(self->fd, h));
	want = mcount_plus(&want, 0, 0, 0, -1);
	check_counts(_metadata, self->index, &want, "old handle freed, old ring mapped");
	EXPECT_EQ(0, unmap(&self->undo, ring, pg));
	want = mcount_plus(&want, -pages(size), 0, -1, 0);
	check_counts(_metadata, self->index, &want, "old ring let go");
	expect_slot(_metadata, self, blk, e, noff, size2, "old ring let go");

	/* MEM_FREE of the queue's handle drops the handle, never the queue. */
	EXPECT_EQ(0, mem_free(self->fd, nh));
	want = mcount_plus(&want, 0, 0, 0, -1);
	check_counts(_metadata, self->index, &want, "the queue's handle freed");
	expect_slot(_metadata, self, blk, e, noff, size2, "the queue's handle freed");
	pos = produce(_metadata, self, blk, e, w, ARRAY_SIZE(w), "handle freed");
	EXPECT_TRUE(ring_holds(nring, size2, pos, w, ARRAY_SIZE(w))) TH_LOG("handle freed");
	/* The owner still maps it. */
	m2 = map(&self->undo, self->fd, noff, pg, RW, MAP_SHARED);
	EXPECT_NE(MAP_FAILED, m2) TH_LOG("mmap by the owner after MEM_FREE: %s", strerror(errno));
	if (m2 != MAP_FAILED) {
		EXPECT_TRUE(ring_holds(m2, size2, pos, w, ARRAY_SIZE(w)));
		EXPECT_EQ(0, unmap(&self->undo, m2, pg));
	}
	/* No double free; the handle is gone. */
	EXPECT_EQ(-EINVAL, mem_free(self->fd, nh));
	EXPECT_EQ(-EINVAL, get_pa(self->fd, nh, &pa));
	check_counts(_metadata, self->index, &want, "second MEM_FREE");
	EXPECT_EQ(0, unmap(&self->undo, nring, pg));
	check_counts(_metadata, self->index, &want, "unmapped: the queue keeps its memory");
	expect_slot(_metadata, self, blk, e, noff, size2, "unmapped");
	free(tail);
	free(old);
}

/*
 * A device queue of the last core: aligned to its size, read back with
 * MEM_BUF_COPY; MEM_FREE of its handle, and a handle again.
 */
static void queue_device(struct __test_metadata *_metadata, struct nq_self *self,
			 const struct nq_variant *variant)
{
	const __u32 size = 4 * pg;
	const unsigned int c = self->n - 1, e = 7;
	const __u64 blk = nc_block(variant, c);
	struct nq_req r = {
		.dev_type = NC, .dev_id = c, .nq_type = NQ_TYPE_TRACE, .engine = e,
		.size = size, .host = 0, .channel = 0,
	};
	__u64 off, h, h2, pa, pa2, filler = 0;
	struct mcount before, want;
	__u32 w[6], w2[5];
	long pos, pos2;

	take_core(_metadata, self, c);
	before = counts_now(_metadata, self->index);
	/* One page taken first, so that the next free address is not aligned to the size. */
	ASSERT_EQ(0, alloc_dev(self->fd, pg, 0, &filler));

	ASSERT_EQ(0, nq_init(self->fd, F_V2, &r, &off, &h));
	EXPECT_EQ(NO_OFFSET, off) TH_LOG("mmap_offset of a device queue");
	EXPECT_NE(0, h);
	ASSERT_EQ(0, get_pa(self->fd, h, &pa));
	EXPECT_EQ(0, pa % size) {
		TH_LOG("device queue at %#llx, size %#x", (unsigned long long)pa, size);
	}
	want = mcount_plus(&before, 0, pg + pages(size), 2, 2);
	check_counts(_metadata, self->index, &want, "device queue");
	expect_slot(_metadata, self, blk, e, pa, size, "device queue");
	EXPECT_EQ(0, mem_free(self->fd, filler));
	want = mcount_plus(&want, 0, -(long long)pg, -1, -1);

	pos = produce(_metadata, self, blk, e, w, ARRAY_SIZE(w), "device queue");
	EXPECT_TRUE(dev_ring_holds(_metadata, self, 0, h, size, pos, w, ARRAY_SIZE(w)))
		TH_LOG("MEM_BUF_COPY of the device queue");

	/* MEM_FREE: the handle goes; the queue stays, and the device writes on. */
	EXPECT_EQ(0, mem_free(self->fd, h));
	want = mcount_plus(&want, 0, 0, 0, -1);
	check_counts(_metadata, self->index, &want, "device queue's handle freed");
	expect_slot(_metadata, self, blk, e, pa, size, "device queue's handle freed");
	pos2 = produce(_metadata, self, blk, e, w2, ARRAY_SIZE(w2), "handle freed");
	EXPECT_EQ(pos + 4 * (long)ARRAY_SIZE(w), pos2);
	EXPECT_EQ(-EINVAL, mem_free(self->fd, h));
	EXPECT_EQ(-EINVAL, get_pa(self->fd, h, &pa2));
	check_counts(_metadata, self->index, &want, "second MEM_FREE");

	/* INIT again: a handle to the same memory, holding what the device wrote meanwhile. */
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &r, &off, &h2));
	EXPECT_EQ(NO_OFFSET, off);
	EXPECT_NE(0, h2);
	ASSERT_EQ(0, get_pa(self->fd, h2, &pa2));
	EXPECT_EQ(pa, pa2);
	want = mcount_plus(&want, 0, 0, 0, 1);
	check_counts(_metadata, self->index, &want, "a handle again");
	expect_slot(_metadata, self, blk, e, pa, size, "a handle again");
	EXPECT_TRUE(dev_ring_holds(_metadata, self, 1, h2, size, pos2, w2, ARRAY_SIZE(w2)))
		TH_LOG("the entry written while no handle existed");
	EXPECT_TRUE(dev_ring_holds(_metadata, self, 1, h2, size, pos, w, ARRAY_SIZE(w)))
		TH_LOG("the first entry");
	EXPECT_EQ(0, mem_free(self->fd, h2));
}

/* Host and device queues of a core: slots, entries, INIT again, realloc, MEM_FREE. */
TEST_F_TIMEOUT(nq, host_and_device, 300)
{
	queue_host(_metadata, self, variant);
	queue_device(_metadata, self, variant);
}

/* ------------------------------------------------------------------ */
/* Kinds of queues, owners and bad requests                            */
/* ------------------------------------------------------------------ */

/* TOP_SP queues: in the TOP_SP's block, for the holder of the TOP_SP's core. */
static void kinds_topsp(struct __test_metadata *_metadata, struct nq_self *self,
			const struct nq_variant *variant)
{
	const unsigned int tpc = self->nts / self->n, last = self->nts - 1, e = 4;
	struct nq_req r = {
		.dev_type = TOPSP, .dev_id = 1, .nq_type = NQ_TYPE_EVENT, .engine = e,
		.size = 1024, .host = 1,
	}, other;
	__u64 off, h, o, hh, pa, hl;
	struct mcount before, want;
	__u32 w[9], *ring;
	long pos;

	take_core(_metadata, self, 0);
	before = counts_now(_metadata, self->index);
	/* TOP_SP 1 belongs to core 0. */
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &r, &off, &h));
	EXPECT_EQ(0, off % pg);
	EXPECT_NE(0, h);
	want = mcount_plus(&before, pages(r.size), 0, 1, 1);
	check_counts(_metadata, self->index, &want, "TOP_SP queue");
	expect_slot(_metadata, self, ts_block(variant, 1), e, off, r.size, "TOP_SP 1");
	expect_slot(_metadata, self, nc_block(variant, 0), e, 0, 0, "core 0's own block");
	expect_slot(_metadata, self, ts_block(variant, 0), e, 0, 0, "TOP_SP 0");
	expect_slot(_metadata, self, ts_block(variant, 2), e, 0, 0, "TOP_SP 2");
	ring = map(&self->undo, self->fd, off, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, ring) TH_LOG("mmap of the TOP_SP queue: %s", strerror(errno));
	pos = produce(_metadata, self, ts_block(variant, 1), e, w, ARRAY_SIZE(w), "TOP_SP 1");
	EXPECT_TRUE(ring_holds(ring, r.size, pos, w, ARRAY_SIZE(w))) TH_LOG("TOP_SP 1");

	/* The first TOP_SP of core 1, and core n-1 itself: not held. */
	other = r;
	other.dev_id = tpc;
	EXPECT_EQ(-EACCES, nq_init(self->fd, F_V2, &other, &o, &hh)) TH_LOG("TOP_SP %u", tpc);
	other.force = 1;
	EXPECT_EQ(-EACCES, nq_init(self->fd, F_REALLOC, &other, &o, &hh)) TH_LOG("TOP_SP %u", tpc);
	other.dev_id = last;
	EXPECT_EQ(-EACCES, nq_init(self->fd, F_V2, &other, &o, &hh)) TH_LOG("TOP_SP %u", last);
	other.dev_type = NC;
	other.dev_id = self->n - 1;
	EXPECT_EQ(-EACCES, nq_init(self->fd, F_V2, &other, &o, &hh)) TH_LOG("the last core");
	EXPECT_EQ(-EACCES, nq_init(self->fd, F_V1, &other, &o, NULL)) TH_LOG("the last core");
	expect_slot(_metadata, self, ts_block(variant, tpc), e, 0, 0, "TOP_SP of core 1");
	expect_slot(_metadata, self, ts_block(variant, last), e, 0, 0, "the last TOP_SP");
	expect_slot(_metadata, self, nc_block(variant, self->n - 1), e, 0, 0, "the last core");
	check_counts(_metadata, self->index, &want, "after EACCES");

	/* Holding the last core: its last TOP_SP, in device memory, the last engine. */
	take_core(_metadata, self, self->n - 1);
	other = r;
	other.dev_id = last;
	other.nq_type = NQ_TYPE_ERROR;
	other.engine = ENGINES - 1;
	other.size = 2 * pg;
	other.host = 0;
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &other, &o, &hl));
	EXPECT_EQ(NO_OFFSET, o);
	ASSERT_EQ(0, get_pa(self->fd, hl, &pa));
	EXPECT_EQ(0, pa % other.size);
	expect_slot(_metadata, self, ts_block(variant, last), ENGINES - 1, pa, other.size,
		    "the last TOP_SP");
	want = mcount_plus(&want, 0, pages(other.size), 1, 1);
	check_counts(_metadata, self->index, &want, "the last TOP_SP's queue");
	pos = produce(_metadata, self, ts_block(variant, last), ENGINES - 1, w, ARRAY_SIZE(w),
		      "the last TOP_SP");
	EXPECT_TRUE(dev_ring_holds(_metadata, self, 1, hl, other.size, pos, w, ARRAY_SIZE(w)))
		TH_LOG("the last TOP_SP");
	/* TOP_SP 1's queue is untouched. */
	expect_slot(_metadata, self, ts_block(variant, 1), e, off, r.size, "TOP_SP 1, later");

	EXPECT_EQ(0, mem_free(self->fd, h));
	EXPECT_EQ(0, mem_free(self->fd, hl));
	EXPECT_EQ(0, unmap(&self->undo, ring, pg));
	want = mcount_plus(&want, 0, 0, 0, -2);
	check_counts(_metadata, self->index, &want, "TOP_SP queues, let go");
}

/* Trace-DMA queues: v2 programs slot 0 of the engine's block; v3 and v4 have none. */
static void kinds_trace_dma(struct __test_metadata *_metadata, struct nq_self *self,
			    const struct nq_variant *variant)
{
	const unsigned int e = 3, last = self->n - 1;
	struct nq_req r = {
		.dev_type = NC, .dev_id = 0, .nq_type = NQ_TYPE_TRACE_DMA, .engine = e,
		.size = 512, .host = 1,
	};
	struct mcount before, want;
	__u64 off, h, off2;
	__u32 w[4], *ring;
	long pos;

	take_core(_metadata, self, 0);
	before = counts_now(_metadata, self->index);
	if (!variant->trace_block[0]) {
		EXPECT_EQ(-EOPNOTSUPP, nq_init(self->fd, F_V2, &r, &off, &h));
		EXPECT_EQ(-EOPNOTSUPP, nq_init(self->fd, F_V1, &r, &off, NULL));
		r.force = 1;
		EXPECT_EQ(-EOPNOTSUPP, nq_init(self->fd, F_REALLOC, &r, &off, &h));
		r.host = 0;
		EXPECT_EQ(-EOPNOTSUPP, nq_init(self->fd, F_REALLOC, &r, &off, &h));
		check_counts(_metadata, self->index, &before, "no trace-DMA queues");
		expect_slot(_metadata, self, nc_block(variant, 0), e, 0, 0, "core 0, slot 3");
		return;
	}
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &r, &off, &h));
	EXPECT_EQ(0, off % pg);
	expect_slot(_metadata, self, trace_block(variant, 0, e), 0, off, r.size,
		    "trace-DMA queue of engine 3");
	expect_slot(_metadata, self, nc_block(variant, 0), e, 0, 0, "core 0's slot 3");
	expect_slot(_metadata, self, trace_block(variant, 0, e - 1), 0, 0, 0, "engine 2");
	expect_slot(_metadata, self, trace_block(variant, last, e), 0, 0, 0,
		    "the last core's engine 3");
	want = mcount_plus(&before, pages(r.size), 0, 1, 1);
	check_counts(_metadata, self->index, &want, "trace-DMA queue");
	ring = map(&self->undo, self->fd, off, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, ring);
	pos = produce(_metadata, self, trace_block(variant, 0, e), 0, w, ARRAY_SIZE(w),
		      "trace-DMA queue");
	EXPECT_TRUE(ring_holds(ring, r.size, pos, w, ARRAY_SIZE(w))) TH_LOG("trace-DMA queue");
	EXPECT_EQ(0, unmap(&self->undo, ring, pg));
	EXPECT_EQ(0, mem_free(self->fd, h));

	/* The last core's last engine, with INIT_V1. */
	take_core(_metadata, self, last);
	r.dev_id = last;
	r.engine = ENGINES - 1;
	ASSERT_EQ(0, nq_init(self->fd, F_V1, &r, &off2, NULL));
	expect_slot(_metadata, self, trace_block(variant, last, ENGINES - 1), 0, off2, r.size,
		    "trace-DMA queue of the last core's engine 15");
	want = mcount_plus(&want, pages(r.size), 0, 1, -1);
	check_counts(_metadata, self->index, &want, "two trace-DMA queues");
	EXPECT_EQ(0, nq_destroy(self->fd, off2));
	expect_slot(_metadata, self, trace_block(variant, last, ENGINES - 1), 0, 0, 0,
		    "destroyed");
	want = mcount_plus(&want, -pages(r.size), 0, -1, 0);
	check_counts(_metadata, self->index, &want, "one trace-DMA queue destroyed");
}

/*
 * INIT_V1 and DESTROY_V1, and another attached process, which may neither
 * destroy, map nor set up the queue of a core this process holds.
 */
static void kinds_v1_and_others(struct __test_metadata *_metadata, struct nq_self *self,
				const struct nq_variant *variant)
{
	const unsigned int e = 9;
	const __u64 blk = nc_block(variant, 0);
	struct nq_req r = {
		.dev_type = NC, .dev_id = 0, .nq_type = NQ_TYPE_THROTTLE, .engine = e,
		.size = 2048, .host = 1,
	};
	struct mcount before, want;
	__u32 w[5], w2[3], *ring, v;
	__u64 off;
	pid_t child;
	long pos, pos2;

	take_core(_metadata, self, 0);
	before = counts_now(_metadata, self->index);
	ASSERT_EQ(0, nq_init(self->fd, F_V1, &r, &off, NULL));
	EXPECT_NE(NO_OFFSET, off);
	EXPECT_EQ(0, off % pg) TH_LOG("mmap_offset %#llx", (unsigned long long)off);
	want = mcount_plus(&before, pages(r.size), 0, 1, 0);
	check_counts(_metadata, self->index, &want, "INIT_V1: a queue, no handle");
	expect_slot(_metadata, self, blk, e, off, r.size, "INIT_V1");
	ring = map(&self->undo, self->fd, off, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, ring) TH_LOG("mmap of an INIT_V1 queue: %s", strerror(errno));
	pos = produce(_metadata, self, blk, e, w, ARRAY_SIZE(w), "INIT_V1 queue");
	EXPECT_TRUE(ring_holds(ring, r.size, pos, w, ARRAY_SIZE(w))) TH_LOG("INIT_V1 queue");

	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		struct nq_req same = r, other = r;
		int fails = 0, cfd, cw;
		__u64 o, h;

		other.force = 1;
		other.size = 4096;
		/* The parent's file: this process is not attached through it. */
		CHILD_CHECK(nq_destroy(self->fd, off) == -EACCES);
		CHILD_CHECK(nq_init(self->fd, F_V2, &same, &o, &h) == -EACCES);
		CHILD_CHECK(map_fails(self->fd, off, pg, RW, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(map_fails(self->fd, off, pg, PROT_READ, MAP_SHARED) == -EINVAL);
		cfd = open_node(self->index, O_RDWR);
		cw = open_node(self->index, O_WRONLY);
		CHILD_CHECK(cfd >= 0 && cw >= 0);
		/* Attached: still not the owner, nor the core's holder. */
		CHILD_CHECK(nq_destroy(cfd, off) == -EPERM);
		CHILD_CHECK(map_fails(cfd, off, pg, RW, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(map_fails(cfd, off, pg, PROT_READ, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(nq_init(cfd, F_V1, &same, &o, NULL) == -EACCES);
		CHILD_CHECK(nq_init(cfd, F_V2, &same, &o, &h) == -EACCES);
		CHILD_CHECK(nq_init(cfd, F_REALLOC, &same, &o, &h) == -EACCES);
		CHILD_CHECK(nq_init(cfd, F_REALLOC, &other, &o, &h) == -EACCES);
		other.host = 0;
		CHILD_CHECK(nq_init(cfd, F_REALLOC, &other, &o, &h) == -EACCES);
		CHILD_CHECK(hold(cw, 0) == -EBUSY);
		CHILD_CHECK(nq_destroy(cfd, off) == -EPERM);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));
	expect_slot(_metadata, self, blk, e, off, r.size, "after the other process");
	check_counts(_metadata, self->index, &want, "after the other process");
	pos2 = produce(_metadata, self, blk, e, w2, ARRAY_SIZE(w2), "after the other process");
	EXPECT_EQ(pos + 4 * (long)ARRAY_SIZE(w), pos2) TH_LOG("the queue was repointed");
	EXPECT_TRUE(ring_holds(ring, r.size, pos2, w2, ARRAY_SIZE(w2)));
	EXPECT_EQ(0, map_fails(self->fd, off, pg, RW, MAP_SHARED)) TH_LOG("the owner maps it");

	/* DESTROY_V1 halts it; the mapping keeps its memory until unmapped. */
	EXPECT_EQ(0, nq_destroy(self->fd, off));
	expect_slot(_metadata, self, blk, e, 0, 0, "destroyed");
	refused(_metadata, self, blk, e, "destroyed queue");
	check_counts(_metadata, self->index, &want, "destroyed, still mapped");
	EXPECT_EQ(0, read_word(ring, &v));
	EXPECT_TRUE(ring_holds(ring, r.size, pos2, w2, ARRAY_SIZE(w2))) TH_LOG("destroyed, mapped");
	EXPECT_EQ(-EINVAL, nq_destroy(self->fd, off)) TH_LOG("DESTROY_V1 again");
	EXPECT_EQ(-EINVAL, map_fails(self->fd, off, pg, RW, MAP_SHARED)) TH_LOG("destroyed queue");
	EXPECT_EQ(0, unmap(&self->undo, ring, pg));
	check_counts(_metadata, self->index, &before, "destroyed and unmapped");
}

/* The field a bad request spoils. */
enum spoil { S_SIZE, S_TYPE, S_ENGINE, S_DEVTYPE, S_NC, S_TS, S_FORCE };

/* Bad requests: EINVAL (EFAULT, EBADF), and no slot register or counter changes. */
static void bad_input(struct __test_metadata *_metadata, struct nq_self *self,
		      const struct nq_variant *variant)
{
	const unsigned int e = 6;
	const struct nq_req good = {
		.dev_type = NC, .dev_id = 0, .nq_type = NQ_TYPE_NOTIFY, .engine = e,
		.size = 1024, .host = 1, .force = 1,
	};
	const struct {
		enum spoil what;
		__u32 v;
		const char *name;
	} bad[] = {
		{ S_SIZE, 0, "size 0" },
		{ S_SIZE, 3000, "size 3000" },
		{ S_SIZE, 0x80000001, "size 0x80000001" },
		{ S_SIZE, 0xffffffff, "size ~0" },
		{ S_TYPE, NQ_TYPE_MAX, "nq_type 6" },
		{ S_TYPE, 0xffffffff, "nq_type ~0" },
		{ S_ENGINE, ENGINES, "engine_index 16" },
		{ S_ENGINE, 0xffffffff, "engine_index ~0" },
		{ S_DEVTYPE, NQ_DEVICE_TYPE_MAX, "nq_dev_type 2" },
		{ S_DEVTYPE, 0xffffffff, "nq_dev_type ~0" },
		{ S_NC, self->n, "core count" },
		{ S_NC, 0xffffffff, "core ~0" },
		{ S_TS, self->nts, "TOP_SP count" },
		{ S_TS, 0xffffffff, "TOP_SP ~0" },
		{ S_FORCE, 2, "force_alloc_mem 2" },
		{ S_FORCE, 0xffffffff, "force_alloc_mem ~0" },
	};
	static const unsigned int cmds[] = {
		NEURON_IOCTL_NOTIFICATIONS_INIT_V1, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1,
		NEURON_IOCTL_NOTIFICATIONS_INIT_V2, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2,
	};
	struct snap *was = malloc(sizeof(*was));
	__u64 off, h, o, hh;
	struct nq_req r;
	unsigned int i;
	enum form f;
	long ret;

	ASSERT_NE(NULL, was);
	take_core(_metadata, self, 0);
	take_core(_metadata, self, self->n - 1);
	/* An existing queue the requests name too. */
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &good, &off, &h));
	expect_slot(_metadata, self, nc_block(variant, 0), e, off, good.size, "reference queue");
	snap_take(_metadata, self, variant, was);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		for (f = F_V1; f <= F_REALLOC; f++) {
			r = good;
			switch (bad[i].what) {
			case S_SIZE:
				r.size = bad[i].v;
				break;
			case S_TYPE:
				r.nq_type = bad[i].v;
				break;
			case S_ENGINE:
				r.engine = bad[i].v;
				break;
			case S_DEVTYPE:
				r.dev_type = bad[i].v;
				break;
			case S_NC:
				r.dev_id = bad[i].v;
				break;
			case S_TS:
				r.dev_type = TOPSP;
				r.dev_id = bad[i].v;
				break;
			case S_FORCE:
				r.force = bad[i].v;
				break;
			}
			/* V1 has no device type or force; V2 no force. */
			if (f == F_V1 && (bad[i].what == S_DEVTYPE || bad[i].what == S_TS ||
					  bad[i].what == S_FORCE))
				continue;
			if (f == F_V2 && bad[i].what == S_FORCE)
				continue;
			ret = nq_init(self->fd, f, &r, &o, &hh);
			EXPECT_EQ(-EINVAL, ret) TH_LOG("%s: %s", form_name(f), bad[i].name);
		}
	}
	/* A host queue with an offset that is no queue's. */
	EXPECT_EQ(-EINVAL, nq_destroy(self->fd, 0));
	EXPECT_EQ(-EINVAL, nq_destroy(self->fd, off + 64));
	EXPECT_EQ(-EINVAL, nq_destroy(self->fd, NO_OFFSET));
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i], NULL)) TH_LOG("%#x(NULL)", cmds[i]);
	/* The free-access lane, with requests that would work. */
	r = good;
	r.force = 0;
	for (f = F_V1; f <= F_REALLOC; f++)
		EXPECT_EQ(-EBADF, nq_init(self->wfd, f, &r, &o, &hh)) TH_LOG("%s", form_name(f));
	r.force = 1;
	EXPECT_EQ(-EBADF, nq_init(self->wfd, F_REALLOC, &r, &o, &hh));
	EXPECT_EQ(-EBADF, nq_destroy(self->wfd, off));
	EXPECT_EQ(-EACCES, map_fails(self->wfd, off, pg, PROT_READ, MAP_SHARED));
	expect_unchanged(_metadata, self, variant, was, "after the bad requests");
	free(was);
	EXPECT_EQ(0, mem_free(self->fd, h));
}

/* Kinds of queues (TOP_SP, trace-DMA, INIT_V1), who may do what, bad requests. */
TEST_F_TIMEOUT(nq, kinds_and_rules, 300)
{
	kinds_topsp(_metadata, self, variant);
	kinds_trace_dma(_metadata, self, variant);
	kinds_v1_and_others(_metadata, self, variant);
	bad_input(_metadata, self, variant);
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

/* The queues the lifetime steps hand on. */
struct life {
	__u64 off0;	/* core 0's host queue, mapped at m0 */
	__u32 *m0;
	long pos0;	/* its last entry */
	__u32 w0[4];
	__u64 off1;	/* the last core's host queue, mapped at m1, handle h1 */
	__u32 *m1;
	__u64 h1;
	long pos1;
	__u32 w1[4];
};

static const struct nq_req life_q0 = {
	.dev_type = NC, .dev_id = 0, .nq_type = NQ_TYPE_ERROR, .engine = 5, .size = 2048,
	.host = 1,
};

static const struct nq_req life_q1 = {
	.dev_type = NC, .nq_type = NQ_TYPE_NOTIFY, .engine = 11, .size = 1024, .host = 1,
};

/*
 * Ownership moves to the last process that set the queue up (the previous
 * owner's handle goes); a killed owner's queues stay, and the next holder
 * of the core takes them over.
 */
static void life_owners(struct __test_metadata *_metadata, struct nq_self *self,
			const struct nq_variant *variant, struct life *L)
{
	const unsigned int last = self->n - 1;
	const __u64 b0 = nc_block(variant, 0), b1 = nc_block(variant, last);
	struct nq_req q1 = life_q1, asked;
	struct mcount before, want;
	__u64 h, pa, o, hh, got[3];
	int up[2], down[2];
	pid_t child;

	q1.dev_id = last;
	take_core(_metadata, self, 0);
	before = counts_now(_metadata, self->index);
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &life_q0, &L->off0, &h));
	L->m0 = map(&self->undo, self->fd, L->off0, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, L->m0);
	want = mcount_plus(&before, pages(life_q0.size), 0, 1, 1);

	/* Core 0 let go: a child takes it and the queue, and makes one of its own. */
	drop_core(_metadata, self, 0);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(self->index, O_RDWR), cw;
		struct nq_req mine = q1, q0 = life_q0;
		__u64 v[3] = { 0 }, co, ch;
		void *cm, *cm1;

		close(up[0]);
		close(down[1]);
		cw = open_node(self->index, O_WRONLY);
		CHILD_CHECK(cfd >= 0 && cw >= 0);
		CHILD_CHECK(hold(cw, 0) == 0);
		q0.size = 8192;
		CHILD_CHECK(nq_init(cfd, F_V2, &q0, &co, &ch) == 0);
		CHILD_CHECK(co == L->off0 && ch != 0);
		cm = mmap(NULL, pg, RW, MAP_SHARED, cfd, (off_t)L->off0);
		CHILD_CHECK(cm != MAP_FAILED);
		CHILD_CHECK(hold(cw, last) == 0);
		CHILD_CHECK(nq_init(cfd, F_V2, &mine, &v[0], &v[1]) == 0);
		cm1 = mmap(NULL, pg, RW, MAP_SHARED, cfd, (off_t)v[0]);
		CHILD_CHECK(cm1 != MAP_FAILED);
		v[2] = fails;
		CHILD_CHECK(put_u64s(up[1], v, 3) == 0);
		/* Until killed. */
		wait_byte(down[0]);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, get_u64s(up[0], got, 3)) TH_LOG("the child failed");
	EXPECT_EQ(0, got[2]) TH_LOG("the child's checks failed");
	L->off1 = got[0];

	/* The child owns core 0's queue now: this process's handle went, its mapping stays. */
	EXPECT_EQ(-EINVAL, get_pa(self->fd, h, &pa)) TH_LOG("the previous owner's handle");
	EXPECT_EQ(-EINVAL, mem_free(self->fd, h));
	EXPECT_EQ(-EINVAL, map_fails(self->fd, L->off0, pg, RW, MAP_SHARED));
	EXPECT_EQ(-EPERM, nq_destroy(self->fd, L->off0));
	expect_slot(_metadata, self, b0, life_q0.engine, L->off0, life_q0.size, "taken over");
	L->pos0 = produce(_metadata, self, b0, life_q0.engine, L->w0, ARRAY_SIZE(L->w0),
			  "taken over");
	EXPECT_TRUE(ring_holds(L->m0, life_q0.size, L->pos0, L->w0, ARRAY_SIZE(L->w0)))
		TH_LOG("the old owner's mapping of the same memory");
	/* Its own queue on the last core. */
	EXPECT_EQ(0, L->off1 % pg);
	expect_slot(_metadata, self, b1, q1.engine, L->off1, q1.size, "the child's queue");
	want = mcount_plus(&want, pages(q1.size), 0, 1, 1);
	check_counts(_metadata, self->index, &want, "the child's queues");
	EXPECT_EQ(-EACCES, nq_init(self->fd, F_V2, &q1, &o, &hh)) TH_LOG("the child's core");
	EXPECT_EQ(-EINVAL, map_fails(self->fd, L->off1, pg, RW, MAP_SHARED));

	/* Killed: its queues stay programmed; only its handles go. */
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);
	want = mcount_plus(&want, 0, 0, 0, -2);
	check_counts(_metadata, self->index, &want, "owner killed");
	expect_slot(_metadata, self, b0, life_q0.engine, L->off0, life_q0.size, "owner killed");
	expect_slot(_metadata, self, b1, q1.engine, L->off1, q1.size, "owner killed");
	L->pos1 = produce(_metadata, self, b1, q1.engine, L->w1, ARRAY_SIZE(L->w1),
			  "owner killed");

	/* The next holder of the last core gets the queue as it is, and owns it. */
	take_core(_metadata, self, last);
	asked = q1;
	asked.size = 8192;
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &asked, &o, &L->h1));
	EXPECT_EQ(L->off1, o) TH_LOG("the killed child's queue");
	EXPECT_NE(0, L->h1);
	expect_slot(_metadata, self, b1, q1.engine, L->off1, q1.size, "taken over again");
	want = mcount_plus(&want, 0, 0, 0, 1);
	check_counts(_metadata, self->index, &want, "taken over again");
	L->m1 = map(&self->undo, self->fd, L->off1, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, L->m1) TH_LOG("the new owner's mmap: %s", strerror(errno));
	EXPECT_TRUE(ring_holds(L->m1, q1.size, L->pos1, L->w1, ARRAY_SIZE(L->w1)))
		TH_LOG("the entry written while the queue had no owner");
	L->pos1 = produce(_metadata, self, b1, q1.engine, L->w1, ARRAY_SIZE(L->w1), "new owner");
	EXPECT_TRUE(ring_holds(L->m1, q1.size, L->pos1, L->w1, ARRAY_SIZE(L->w1)));

	/* Core 0's queue too, with INIT_V1 (no handle). */
	take_core(_metadata, self, 0);
	ASSERT_EQ(0, nq_init(self->fd, F_V1, &life_q0, &o, NULL));
	EXPECT_EQ(L->off0, o);
	check_counts(_metadata, self->index, &want, "core 0's queue taken back");
	EXPECT_EQ(0, map_fails(self->fd, L->off0, pg, RW, MAP_SHARED)) TH_LOG("owner again");
}

/*
 * A reset of core 0 halts its queues (its TOP_SPs' too); their memory goes
 * once nothing maps or names it.  The last core's queues carry on.
 */
static void life_core_reset(struct __test_metadata *_metadata, struct nq_self *self,
			    const struct nq_variant *variant, struct life *L)
{
	const unsigned int last = self->n - 1, tlast = self->nts - 1;
	const __u64 b0 = nc_block(variant, 0), b1 = nc_block(variant, last);
	const struct nq_req t1 = {
		.dev_type = TOPSP, .dev_id = 1, .nq_type = NQ_TYPE_TRACE, .engine = 2,
		.size = 2 * pg, .host = 0,
	}, tl = {
		.dev_type = TOPSP, .dev_id = tlast, .nq_type = NQ_TYPE_NOTIFY, .engine = 3,
		.size = 512, .host = 1,
	};
	__u64 o, ht, pat, otl, htl, off;
	struct mcount want;
	__u32 w[3], v;
	long pos;

	ASSERT_EQ(0, nq_init(self->fd, F_V2, &t1, &o, &ht));
	ASSERT_EQ(0, get_pa(self->fd, ht, &pat));
	expect_slot(_metadata, self, ts_block(variant, 1), t1.engine, pat, t1.size, "TOP_SP 1");
	ASSERT_EQ(0, nq_init(self->fd, F_V2, &tl, &otl, &htl));
	expect_slot(_metadata, self, ts_block(variant, tlast), tl.engine, otl, tl.size,
		    "the last TOP_SP");
	want = counts_now(_metadata, self->index);

	ASSERT_EQ(0, reset_cores(self->fd, 1));
	/* Core 0's queues are halted and gone. */
	expect_slot(_metadata, self, b0, life_q0.engine, 0, 0, "core 0 reset");
	expect_slot(_metadata, self, ts_block(variant, 1), t1.engine, 0, 0,
		    "core 0 reset: its TOP_SP");
	refused(_metadata, self, b0, life_q0.engine, "core 0 reset");
	refused(_metadata, self, ts_block(variant, 1), t1.engine, "core 0 reset: its TOP_SP");
	EXPECT_EQ(-EINVAL, nq_destroy(self->fd, L->off0)) TH_LOG("a reset queue is gone");
	/* The last core's are not. */
	expect_slot(_metadata, self, b1, life_q1.engine, L->off1, life_q1.size, "core 0 reset");
	expect_slot(_metadata, self, ts_block(variant, tlast), tl.engine, otl, tl.size,
		    "core 0 reset");
	L->pos1 = produce(_metadata, self, b1, life_q1.engine, L->w1, ARRAY_SIZE(L->w1),
			  "another core reset");
	EXPECT_TRUE(ring_holds(L->m1, life_q1.size, L->pos1, L->w1, ARRAY_SIZE(L->w1)));
	produce(_metadata, self, ts_block(variant, tlast), tl.engine, w, ARRAY_SIZE(w),
		"another core reset");

	/* Memory mapped or with a handle stays until let go. */
	check_counts(_metadata, self->index, &want, "reset; memory mapped or handled");
	EXPECT_EQ(0, read_word(L->m0, &v));
	EXPECT_TRUE(ring_holds(L->m0, life_q0.size, L->pos0, L->w0, ARRAY_SIZE(L->w0)))
		TH_LOG("a reset queue's mapping");
	EXPECT_EQ(0, unmap(&self->undo, L->m0, pg));
	L->m0 = NULL;
	want = mcount_plus(&want, -pages(life_q0.size), 0, -1, 0);
	check_counts(_metadata, self->index, &want, "reset queue unmapped");
	EXPECT_EQ(0, mem_free(self->fd, ht));
	want = mcount_plus(&want, 0, -pages(t1.size), -1, -1);
	check_counts(_metadata, self->index, &want, "reset TOP_SP queue's handle freed");
	EXPECT_EQ(-EINVAL, mem_free(self->fd, ht));

	/* A new queue in the slot. */
	ASSERT_EQ(0, nq_init(self->fd, F_V1, &life_q0, &off, NULL));
	expect_slot(_metadata, self, b0, life_q0.engine, off, life_q0.size, "after the reset");
	pos = produce(_metadata, self, b0, life_q0.engine, w, ARRAY_SIZE(w), "after the reset");
	EXPECT_LE(0, pos);
	EXPECT_EQ(0, nq_destroy(self->fd, off));
	check_counts(_metadata, self->index, &want, "new queue destroyed");
	EXPECT_EQ(0, mem_free(self->fd, htl));
}

/* The device goes: mapped queues are zapped, the old file answers ENODEV. */
static void life_removal(struct __test_metadata *_metadata, struct nq_self *self,
			 const struct nq_variant *variant, struct life *L)
{
	struct nq_req q1 = life_q1;
	__u32 v = 0;
	__u64 o, h;

	q1.dev_id = self->n - 1;
	EXPECT_EQ(0, read_word(L->m1 + L->pos1 / 4, &v));
	EXPECT_EQ(L->w1[0], v);
	/* The counters go with the device. */
	self->counted = 0;
	ASSERT_EQ(0, nt_sim_del(DEV));
	EXPECT_EQ(1, read_word(L->m1, &v)) TH_LOG("a queue mapping outlived its device");
	EXPECT_EQ(-ENODEV, nq_init(self->fd, F_V2, &q1, &o, &h));
	EXPECT_EQ(-ENODEV, nq_init(self->fd, F_V1, &q1, &o, NULL));
	q1.force = 1;
	EXPECT_EQ(-ENODEV, nq_init(self->fd, F_REALLOC, &q1, &o, &h));
	EXPECT_EQ(-ENODEV, nq_destroy(self->fd, L->off1));
	EXPECT_EQ(-ENODEV, mem_free(self->fd, L->h1));
	EXPECT_EQ(0, unmap(&self->undo, L->m1, pg));
}

/* Queues outlive their owner, go with a reset of their core and with the device. */
TEST_F_TIMEOUT(nq, lifetime, 300)
{
	struct life L;

	memset(&L, 0, sizeof(L));
	life_owners(_metadata, self, variant, &L);
	life_core_reset(_metadata, self, variant, &L);
	life_removal(_metadata, self, variant, &L);
}

TEST_HARNESS_MAIN
