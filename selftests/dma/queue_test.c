// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the DMA queues user space programs, on simulated v2, v3 and
 * v4 devices: DMA_QUEUE_INIT and DMA_QUEUE_INIT_BATCH, DMA_COPY_DESCRIPTORS
 * and DMA_COPY_DESCRIPTORS64, DMA_QUEUE_COPY_START, DMA_ACK_COMPLETED,
 * DMA_DESCRIPTOR_COPYOUT, DMA_QUEUE_GET_STATE of such a queue,
 * DMA_QUEUE_RELEASE and DMA_ENG_INIT.
 *
 * - round_trip: random data from a host chunk to a device chunk and back
 *   through one queue, in batches of copies of every shape (one source
 *   descriptor to one destination descriptor, one to two, two to one, and
 *   64 KiB descriptors, whose length field is 0), over more than four laps
 *   of 32-slot rings (ring ids 1, 2, 3, 0, 1) in host chunks, then over two
 *   laps of 48-slot rings in device chunks after the queue is initialised
 *   again.  The data is checked byte for byte through mappings of the
 *   chunks (no DMA) and with MEM_BUF_COPY64; with host rings the
 *   simulator's counters must move by exactly the bytes and descriptors
 *   started (a ring in device memory is read by DMA too); GET_STATE must show
 *   the ring sizes and the heads at the tails, which move by what was
 *   started; DESCRIPTOR_COPYOUT must return what was started in each slot
 *   (zeros where nothing was), whatever the runtime's rings hold since.
 *   GET_STATE of every queue of every engine, with the driver's channels
 *   in use, must report the runtime's own rings as the queue's ring bases
 *   and 0 as every other (never the driver's channel rings or the shadow
 *   rings the engine reads), and 0 everywhere once the queue is released.
 * - bad_input: every refused argument of every command: engine and queue
 *   ids (the host engines are the driver's: -EBUSY), ring sizes, handles and
 *   completion rings, batch counts (and a batch stopping at its first
 *   failure), offsets, counts, types and buffers, descriptors addressing
 *   anything but a chunk of the caller's (another process's, freed, across
 *   a chunk's end, ...), the same descriptors written straight into a ring
 *   through its mapping, past DMA_COPY_DESCRIPTORS, which COPY_START must
 *   refuse without starting anything (at the start of a batch, in its
 *   middle, past the end of the ring), and another process's queues and
 *   rings (GET_STATE shows their bases as 0).  None of it reaches an
 *   engine.
 * - lifetime: chunks addressed by started descriptors (and the rings) stay
 *   allocated after MEM_FREE until the queue is released, chunks only
 *   written into a ring are not held, and a process that exits or is
 *   killed with queues initialised leaves them free for others and all its
 *   memory returned.  A reset of the core a queue's engine belongs to
 *   (NC_RESET), and then of the device (DEVICE_RESET), makes the queues on
 *   the engines it touched stale: COPY_START, ACK_COMPLETED and
 *   DESCRIPTOR_COPYOUT fail with -ESTALE and no doorbell reaches the
 *   engine (the simulator's dma_doorbells), their shadow rings go at once,
 *   a queue on another core's engine keeps working through the core reset;
 *   DMA_QUEUE_RELEASE of a stale queue works, DMA_QUEUE_INIT sets it up
 *   again (after a release or straight away) and copies run through it.
 *
 * Each test starts with no Neuron module loaded, loads neuron_core and
 * neuron_sim, creates one simulated device, opens it and reads its memory
 * counters from debugfs; the simulator runs descriptors in the doorbell
 * write (dma_mode=sync), so a copy is done when COPY_START returns.  The
 * teardown closes what the test left open (which releases its queues),
 * checks that the counters are back where they started and leaves no
 * module loaded.  Random numbers come from a logged seed.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures, print them on stderr and report the count as their exit status.
 */
#include <endian.h>
#include <pthread.h>
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
#define DEV		5
#define SIM_DEBUGFS	"/sys/kernel/debug/neuron_sim/neuron_sim%d/%s"
#define DMA_DEBUGFS	"/sys/kernel/debug/neuron/neuron%d/dma"
#define SHADOW_MAX	"/sys/module/neuron_udma/parameters/dma_shadow_max_kb"
#define NQUEUES		16
#define MIB		(1024ULL * 1024)

/* The two rings of a queue, as DMA_COPY_DESCRIPTORS and COPYOUT name them. */
#define TX		NEURON_DMA_QUEUE_TYPE_TX	/* M2S: reads the source */
#define RX		NEURON_DMA_QUEUE_TYPE_RX	/* S2M: writes the destination */

/* Descriptors, as include/neuron/udma.h (a kernel header) lays them out. */
#define DESC_SIZE	16
#define DESC_LEN	0xffffU			/* ctrl bits 15:0; 0 means 64 KiB */
#define DESC_RING_ID(id)	(((id) & 3U) << 24)	/* ctrl bits 25:24 */
#define DESC_FIRST	0x04000000U		/* bit 26, M2S: first of a packet */
#define DESC_LAST	0x08000000U		/* bit 27, M2S: last of a packet */
#define DESC_MAX_LEN	65536U
#define META_COPY	0x01080003U		/* M2S meta word of a plain copy */
/* Ring sizes, in descriptors; a start leaves RING_RESERVED slots free. */
#define RING_MIN	32U
#define RING_MAX	65536U
#define RING_RESERVED	16U

/* Copies of a batch: each writes its own window of the destination. */
#define NWIN		8
/* The engines bad_input initialises a batch of queues on. */
#define BATCH_ENG	8
/* The queue of the other process of bad_input. */
#define FOREIGN_ENG	2
#define FOREIGN_Q	5

/* Page size, set by the fixture. */
static size_t pg;

static const char * const tname[2] = { "TX", "RX" };

/* One ring entry, little-endian. */
struct desc {
	__u32 ctrl;
	__u32 meta;
	__u64 addr;
};

/*
 * A descriptor of the source side (@tx: M2S, flags @flags) or of the
 * destination side (S2M), moving @len bytes (65536: length field 0) at
 * device-view address @addr, in the lap whose ring id is @id.
 */
static struct desc desc(int tx, __u64 addr, __u32 len, __u32 id, __u32 flags)
{
	struct desc d = {
		.ctrl = htole32((len & DESC_LEN) | DESC_RING_ID(id) | flags),
		.meta = htole32(tx ? META_COPY : 0),
		.addr = htole64(addr),
	};

	return d;
}

/* The simulator's engine counters. */
enum { ST_ERRORS, ST_DESCS, ST_BYTES, NSTATS };

/* queue_shadow_bytes in the device's dma debugfs file, or -1. */
static long long shadow_bytes(int index)
{
	char path[128], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DMA_DEBUGFS, index);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "queue_shadow_bytes: ");
	return p ? strtoll(p + strlen("queue_shadow_bytes: "), NULL, 10) : -1;
}

/* Write @val to the simulated device's debugfs file @name; 0 or -errno. */
static int sim_write(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), SIM_DEBUGFS, DEV, name);
	return nt_write(path, "%s", val);
}

static int sim_stats(long long *v)
{
	static const char * const name[NSTATS] = { "dma_errors", "dma_descs", "dma_bytes" };
	char buf[64];
	int i;

	for (i = 0; i < NSTATS; i++) {
		if (nt_read(buf, sizeof(buf), SIM_DEBUGFS, DEV, name[i]))
			return -1;
		v[i] = strtoll(buf, NULL, 10);
	}
	return 0;
}

/*
 * Writes to the tail-increment registers (doorbells) engine @eng of the
 * device under test has had, from the simulator's dma_doorbells listing
 * ("ENGINE COUNT" lines; an engine not listed has had none); -1 when it
 * cannot be read.
 */
static long long doorbells(__u32 eng)
{
	char path[128], buf[8192], *p = buf, *end;
	long long n = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), SIM_DEBUGFS, DEV, "dma_doorbells");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = 0;
	while (*p) {
		unsigned long e = strtoul(p, &end, 10);

		if (end == p)
			return -1;
		if (e == eng)
			n = strtoll(end, NULL, 10);
		p = strchr(end, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

/* Two pages that can be neither read nor written, reserved so that nothing else lands there. */
static void *no_access(void)
{
	void *p = mmap(NULL, 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* EXPECT @got to be @want; what @fmt says goes to the log if not.  For loops. */
static __printf(4, 5) void expect_is(struct __test_metadata *_metadata, long want, long got,
				     const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	EXPECT_EQ(want, got) TH_LOG("%s", what);
}

/* Index of the first byte where @a and @b differ, or @n. */
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* ---- The commands ---------------------------------------------------- */

static struct neuron_ioctl_dma_queue_init qi(__u32 eng, __u32 qid, __u32 txn, __u32 rxn,
					     __u64 txh, __u64 rxh)
{
	struct neuron_ioctl_dma_queue_init a = {
		.eng_id = eng, .qid = qid, .tx_desc_count = txn, .rx_desc_count = rxn,
		.tx_handle = txh, .rx_handle = rxh,
	};

	return a;
}

static long q_init(int fd, struct neuron_ioctl_dma_queue_init a)
{
	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_INIT, &a);
}

static long q_start(int fd, __u32 eng, __u32 qid, __u32 txn, __u32 rxn)
{
	struct neuron_ioctl_dma_queue_copy_start a = {
		.eng_id = eng, .qid = qid, .tx_desc_count = txn, .rx_desc_count = rxn,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_COPY_START, &a);
}

static long q_ack(int fd, __u32 eng, __u32 qid, __u32 count)
{
	struct neuron_ioctl_dma_ack_completed a = { .eng_id = eng, .qid = qid, .count = count };

	return xioctl(fd, NEURON_IOCTL_DMA_ACK_COMPLETED, &a);
}

static long q_release(int fd, __u32 eng, __u32 qid)
{
	struct neuron_ioctl_dma_queue_release a = { .eng_id = eng, .qid = qid };

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_RELEASE, &a);
}

static long q_copyout(int fd, __u32 eng, __u32 qid, __u32 type, __u32 start, __u32 count,
		      void *buf)
{
	struct neuron_ioctl_dma_descriptor_copyout a = {
		.eng_id = eng, .qid = qid, .type = type, .start_index = start, .count = count,
		.buffer = buf,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT, &a);
}

/* DMA_QUEUE_GET_STATE: @st[TX] and @st[RX]. */
static long q_state(int fd, __u32 eng, __u32 qid, struct neuron_dma_queue_state *st)
{
	struct neuron_ioctl_dma_queue_get_state a = {
		.eng_id = eng, .qid = qid, .tx = &st[TX], .rx = &st[RX],
	};

	memset(st, 0xa5, 2 * sizeof(*st));
	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_GET_STATE, &a);
}

static long eng_init(int fd, __u32 eng)
{
	struct neuron_ioctl_dma_eng_init a = { .eng_id = eng };

	return xioctl(fd, NEURON_IOCTL_DMA_ENG_INIT, &a);
}

static long eng_set(int fd, __u32 eng, __u32 state)
{
	struct neuron_ioctl_dma_eng_set_state a = { .eng_id = eng, .state = state };

	return xioctl(fd, NEURON_IOCTL_DMA_ENG_SET_STATE, &a);
}

/* Both halves of engine @eng read @state; -1 when GET_STATE fails. */
static int engine_reads(int fd, __u32 eng, __u32 state)
{
	struct neuron_dma_eng_state st;
	struct neuron_ioctl_dma_eng_get_state a = { .eng_id = eng, .state = &st };

	memset(&st, 0xa5, sizeof(st));
	if (xioctl(fd, NEURON_IOCTL_DMA_ENG_GET_STATE, &a))
		return -1;
	return st.tx_state == state && st.rx_state == state;
}

/* DMA_COPY_DESCRIPTORS64 (@wide) or DMA_COPY_DESCRIPTORS (32-bit offset). */
static long put_descs(int fd, int wide, __u64 h, const void *buf, __u32 num, __u64 off,
		      __u32 type)
{
	struct neuron_ioctl_dma_copy_descriptors64 w = {
		.mem_handle = h, .buffer = (void *)buf, .num_descs = num, .offset = off,
		.queue_type = type,
	};
	struct neuron_ioctl_dma_copy_descriptors n = {
		.mem_handle = h, .buffer = w.buffer, .num_descs = num, .offset = (__u32)off,
		.queue_type = type,
	};

	return wide ? xioctl(fd, NEURON_IOCTL_DMA_COPY_DESCRIPTORS64, &w) :
		      xioctl(fd, NEURON_IOCTL_DMA_COPY_DESCRIPTORS, &n);
}

/* Both halves of engine @eng run: neither idle nor aborted. */
static int engine_runs(int fd, __u32 eng)
{
	return engine_reads(fd, eng, NEURON_DMA_ENG_NORMAL) == 1;
}

/* The commands on one queue, each with harmless other arguments. */
enum qop { QOP_INIT, QOP_START, QOP_ACK, QOP_COPYOUT, QOP_RELEASE, NQOPS };

static const char * const qop_name[NQOPS] = {
	"DMA_QUEUE_INIT", "DMA_QUEUE_COPY_START", "DMA_ACK_COMPLETED",
	"DMA_DESCRIPTOR_COPYOUT", "DMA_QUEUE_RELEASE",
};

/* @op on queue @qid of engine @eng; INIT gives it rings @txh and @rxh of RING_MIN slots. */
static long qop(int fd, enum qop op, __u32 eng, __u32 qid, __u64 txh, __u64 rxh)
{
	struct desc d[2];

	switch (op) {
	case QOP_INIT:
		return q_init(fd, qi(eng, qid, RING_MIN, RING_MIN, txh, rxh));
	case QOP_START:
		return q_start(fd, eng, qid, 0, 0);
	case QOP_ACK:
		return q_ack(fd, eng, qid, 0);
	case QOP_COPYOUT:
		return q_copyout(fd, eng, qid, TX, 0, 2, d);
	default:
		return q_release(fd, eng, qid);
	}
}

/* ---- Fixture ----------------------------------------------------------- */

FIXTURE(queue) {
	int fd;		/* normal file (O_RDWR): this process is attached */
	int index;
	int nhbm;	/* device memory channels */
	int counted;	/* @start holds the counters at the start */
	struct mcount start;
	struct undo undo;	/* children and mappings */
	long t0;		/* ms, when the setup started */
};

FIXTURE_VARIANT(queue) {
	const struct nt_gen *g;
};

FIXTURE_VARIANT_ADD(queue, v2) { .g = &nt_gen_v2 };
FIXTURE_VARIANT_ADD(queue, v3) { .g = &nt_gen_v3 };
FIXTURE_VARIANT_ADD(queue, v4) { .g = &nt_gen_v4 };

/* The types the harness gives the fixture's data and variant. */
#define queue_self	_test_data_queue
#define queue_variant	_fixture_variant_queue

FIXTURE_SETUP(queue)
{
	memset(self, 0, sizeof(*self));
	self->fd = -1;
	self->t0 = nt_now_ms();
	pg = sysconf(_SC_PAGESIZE);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());

	/* neuron_sim's default memory: 16 MiB or more per channel. */
	self->index = sim_device_up(_metadata, DEV, variant->g->gen, "", SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->nhbm = count_channels(_metadata, self->fd);
	ASSERT_LT(0, self->nhbm);
	self->counted = !mcount_read(self->index, &self->start);
	ASSERT_TRUE(self->counted);
}

FIXTURE_TEARDOWN(queue)
{
	struct mcount now;

	kill_kids(&self->undo);
	unmap_all(&self->undo);
	if (nt_exists(SIM_DEBUGFS, DEV, "dma_stall"))
		sim_write("dma_stall", "0");
	/* The last close releases the queues the test left, and what they hold. */
	if (self->fd >= 0)
		close(self->fd);
	if (self->counted) {
		EXPECT_EQ(0, mcount_read(self->index, &now));
		expect_counts(_metadata, &self->start, &now);
		EXPECT_EQ(0, shadow_bytes(self->index)) TH_LOG("shadow rings left");
	}
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/* ---- Chunks, rings, queues -------------------------------------------- */

/* A chunk of this process's: handle, device-view address, size; maybe mapped. */
struct chunk {
	__u64 h;
	__u64 pa;
	__u64 size;
	unsigned char *map;	/* shared mapping of all of it, or NULL */
	unsigned char *shadow;	/* with @map: what it must hold */
};

/*
 * @size bytes of host memory, or of device memory on @channel.  With
 * @mapped, mapped and filled with random bytes through the mapping (no
 * DMA), which the shadow remembers.
 */
static void chunk_new(struct __test_metadata *_metadata, struct queue_self *self,
		      struct chunk *c, int host, __u64 size, __u32 channel, int mapped)
{
	struct neuron_ioctl_mem_get_extended_info ei;
	long ret;

	memset(c, 0, sizeof(*c));
	ret = host ? alloc_host(self->fd, size, &c->h) : alloc_dev(self->fd, size, channel, &c->h);
	ASSERT_EQ(0, ret) TH_LOG("%s chunk of %llu bytes", host ? "host" : "device",
				 (unsigned long long)size);
	ASSERT_EQ(0, ext_info(self->fd, c->h, &ei));
	c->pa = ei.pa;
	c->size = ei.size;
	ASSERT_LE(size, c->size);
	if (!mapped)
		return;
	c->map = map(&self->undo, self->fd, c->pa, c->size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, c->map) TH_LOG("mapping a chunk: %s", strerror(errno));
	c->shadow = malloc(c->size);
	ASSERT_NE(NULL, c->shadow);
	rnd_fill(c->shadow, c->size);
	memcpy(c->map, c->shadow, c->size);
}

static void chunk_free(struct __test_metadata *_metadata, struct queue_self *self,
		       struct chunk *c)
{
	EXPECT_EQ(0, c->map ? unmap(&self->undo, c->map, c->size) : 0);
	EXPECT_EQ(0, mem_free(self->fd, c->h));
	free(c->shadow);
	memset(c, 0, sizeof(*c));
}

/* [@off, @off + @len) of @c holds its shadow, seen through the mapping. */
static void chunk_check(struct __test_metadata *_metadata, const struct chunk *c, __u64 off,
			__u64 len, const char *where)
{
	size_t at = first_diff(c->map + off, c->shadow + off, len);

	EXPECT_EQ(len, at) {
		TH_LOG("%s: chunk at %#llx, %llu bytes at %llu differ from byte %llu", where,
		       (unsigned long long)c->pa, (unsigned long long)len,
		       (unsigned long long)off, (unsigned long long)(off + at));
	}
}

/* All of @c holds its shadow: through the mapping, and read with MEM_BUF_COPY64. */
static void chunk_check_all(struct __test_metadata *_metadata, struct queue_self *self,
			    const struct chunk *c, const char *where)
{
	unsigned char *got = calloc(1, c->size);
	size_t at;

	ASSERT_NE(NULL, got);
	chunk_check(_metadata, c, 0, c->size, where);
	EXPECT_EQ(0, buf_copy(self->fd, 1, c->h, got, c->size, 0, 0));
	at = first_diff(got, c->shadow, c->size);
	EXPECT_EQ(c->size, at) {
		TH_LOG("%s: chunk at %#llx read with MEM_BUF_COPY64 differs from byte %zu",
		       where, (unsigned long long)c->pa, at);
	}
	free(got);
}

/* One ring of a queue, as the test sees it. */
struct ring {
	struct chunk c;		/* the runtime's ring, mapped */
	__u32 type;		/* TX or RX */
	__u32 size;		/* descriptors */
	__u64 started;		/* descriptors started since the queue was initialised */
	struct desc *mirror;	/* per slot: what was last started there (zeros: nothing) */
	unsigned int uploads;	/* DMA_COPY_DESCRIPTORS so far: the odd ones use the 64-bit form */
};

struct uqueue {
	__u32 eng;
	__u32 qid;
	struct ring r[2];	/* TX and RX */
};

static void ring_new(struct __test_metadata *_metadata, struct queue_self *self, struct ring *r,
		     __u32 type, __u32 size, int host, __u32 channel)
{
	chunk_new(_metadata, self, &r->c, host, (__u64)size * DESC_SIZE, channel, 1);
	r->type = type;
	r->size = size;
	r->started = 0;
	r->uploads = 0;
	r->mirror = calloc(size, sizeof(*r->mirror));
	ASSERT_NE(NULL, r->mirror);
}

static void ring_free(struct __test_metadata *_metadata, struct queue_self *self, struct ring *r)
{
	free(r->mirror);
	r->mirror = NULL;
	chunk_free(_metadata, self, &r->c);
}

/* The slot the next descriptor started goes to. */
static __u32 ring_tail(const struct ring *r)
{
	return r->started % r->size;
}

/* Ring id of the descriptor @ahead slots past the tail: 1 on the first lap, then 2, 3, 0, 1... */
static __u32 ring_id(const struct ring *r, __u32 ahead)
{
	return (1 + (r->started + ahead) / r->size) & 3;
}

/* DMA_COPY_DESCRIPTORS(64) of @n descriptors at the tail of @r, in two parts across the end. */
static long ring_write(int fd, struct ring *r, const struct desc *d, __u32 n)
{
	__u32 tail = ring_tail(r), first = n < r->size - tail ? n : r->size - tail;
	long ret;

	if (!n)
		return 0;
	ret = put_descs(fd, r->uploads++ & 1, r->c.h, d, first, (__u64)tail * DESC_SIZE, r->type);
	if (!ret && n > first)
		ret = put_descs(fd, r->uploads++ & 1, r->c.h, d + first, n - first, 0, r->type);
	return ret;
}

/* @n descriptors at the tail of @r were started. */
static void ring_started(struct ring *r, const struct desc *d, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		r->mirror[(r->started + i) % r->size] = d[i];
	r->started += n;
}

/* DESCRIPTOR_COPYOUT of slots [@start, @start + @count) of @r: what was started there. */
static void ring_check(struct __test_metadata *_metadata, struct queue_self *self,
		       const struct uqueue *q, const struct ring *r, __u32 start, __u32 count,
		       const char *where)
{
	struct desc *got = malloc(count * sizeof(*got)), *want = r->mirror + start;
	unsigned int i, bad = 0;

	ASSERT_NE(NULL, got);
	memset(got, 0xa5, count * sizeof(*got));
	ASSERT_EQ(0, q_copyout(self->fd, q->eng, q->qid, r->type, start, count, got)) {
		TH_LOG("%s: %s slots %u..%u", where, tname[r->type], start, start + count - 1);
	}
	for (i = 0; i < count; i++) {
		if (!memcmp(&got[i], &want[i], sizeof(*got)))
			continue;
		if (bad++ < 4)
			TH_LOG("%s: %s slot %u: %08x %08x %#llx, want %08x %08x %#llx", where,
			       tname[r->type], start + i, got[i].ctrl, got[i].meta,
			       (unsigned long long)got[i].addr, want[i].ctrl, want[i].meta,
			       (unsigned long long)want[i].addr);
	}
	EXPECT_EQ(0, bad) TH_LOG("%s: %u %s slots differ", where, bad, tname[r->type]);
	free(got);
}

/* GET_STATE of @q: the rings' sizes, both heads at the tails where the test put them. */
static void queue_state_check(struct __test_metadata *_metadata, struct queue_self *self,
			      const struct uqueue *q, const char *where)
{
	struct neuron_dma_queue_state st[2];
	int t;

	ASSERT_EQ(0, q_state(self->fd, q->eng, q->qid, st)) TH_LOG("%s", where);
	for (t = 0; t < 2; t++) {
		EXPECT_EQ(q->r[t].size, st[t].length) TH_LOG("%s: %s", where, tname[t]);
		EXPECT_EQ(1, st[t].sw_status) TH_LOG("%s: %s not enabled", where, tname[t]);
		EXPECT_EQ(ring_tail(&q->r[t]), st[t].tail_pointer) {
			TH_LOG("%s: %s tail after %llu descriptors", where, tname[t],
			       (unsigned long long)q->r[t].started);
		}
		EXPECT_EQ(st[t].tail_pointer, st[t].head_pointer) {
			TH_LOG("%s: %s head, not all done", where, tname[t]);
		}
	}
}

/* DMA_QUEUE_INIT of @q with its rings: the test's view of them starts over. */
static void queue_up(struct __test_metadata *_metadata, struct queue_self *self,
		     struct uqueue *q)
{
	int t;

	ASSERT_EQ(0, q_init(self->fd, qi(q->eng, q->qid, q->r[TX].size, q->r[RX].size,
					 q->r[TX].c.h, q->r[RX].c.h))) {
		TH_LOG("engine %u queue %u, %u and %u descriptors", q->eng, q->qid,
		       q->r[TX].size, q->r[RX].size);
	}
	for (t = 0; t < 2; t++) {
		q->r[t].started = 0;
		memset(q->r[t].mirror, 0, q->r[t].size * sizeof(struct desc));
	}
	queue_state_check(_metadata, self, q, "after DMA_QUEUE_INIT");
}

/*
 * DMA_QUEUE_GET_STATE of every queue of every engine: the ring bases are
 * those of this process's own rings on @q (NULL: none), 0 everywhere else,
 * never an address of driver memory: not the rings of the driver's
 * channels (queue 0 of each host engine, which must have a ring, so the
 * channels are in use), nor the shadow rings the engine reads for @q.
 */
static void bases_check(struct __test_metadata *_metadata, struct queue_self *self,
			const struct queue_variant *variant, const struct uqueue *q,
			const char *where)
{
	struct neuron_dma_queue_state st[2];
	unsigned int n, e, i, bad = 0;
	__u64 want;
	int t;

	for (n = 0; n < variant->g->engines * NQUEUES; n++) {
		e = n / NQUEUES;
		i = n % NQUEUES;
		ASSERT_EQ(0, q_state(self->fd, e, i, st)) TH_LOG("%s: %u/%u", where, e, i);
		for (t = 0; t < 2; t++) {
			want = q && e == q->eng && i == q->qid ? q->r[t].c.pa : 0;
			if (e >= variant->g->user && !i && !st[t].length && bad++ < 8)
				TH_LOG("%s: host engine %u %s: no ring", where, e, tname[t]);
			if (st[t].base_addr == want && !st[t].completion_base_addr)
				continue;
			if (bad++ < 8)
				TH_LOG("%s: %u/%u %s: base %#llx, want %#llx; completion %#llx",
				       where, e, i, tname[t], (unsigned long long)st[t].base_addr,
				       (unsigned long long)want,
				       (unsigned long long)st[t].completion_base_addr);
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("%s: %u ring bases wrong", where, bad);
}

/* ---- Batches of copies ----------------------------------------------- */

/* How a copy's bytes are described: source descriptors to destination descriptors. */
enum shape { ONE_TO_ONE, SCATTER, GATHER, NSHAPES };

struct copy {
	const struct chunk *s;
	struct chunk *d;
	__u64 soff;
	__u64 doff;
	__u32 len;
};

/* What one COPY_START starts. */
struct batch {
	struct desc d[2][2 * NWIN];
	__u32 n[2];
	struct copy c[NWIN];
	int copies;
	__u64 bytes;
};

static void push(struct batch *b, const struct uqueue *q, int t, __u64 addr, __u32 len,
		 __u32 flags)
{
	b->d[t][b->n[t]] = desc(t == TX, addr, len, ring_id(&q->r[t], b->n[t]), flags);
	b->n[t]++;
}

/* Add the copy of @len bytes from @s at @soff to @d at @doff, as @shape, to @b. */
static void add_copy(struct batch *b, const struct uqueue *q, const struct chunk *s,
		     __u64 soff, struct chunk *d, __u64 doff, __u32 len, enum shape shape)
{
	__u64 sa = s->pa + soff, da = d->pa + doff;
	__u32 a = len > 1 ? 1 + rnd() % (len - 1) : 0;

	if (!a)
		shape = ONE_TO_ONE;
	/* A source packet: FIRST on its first descriptor, LAST on its last. */
	if (shape == GATHER) {
		push(b, q, TX, sa, a, DESC_FIRST);
		push(b, q, TX, sa + a, len - a, DESC_LAST);
	} else {
		push(b, q, TX, sa, len, DESC_FIRST | DESC_LAST);
	}
	if (shape == SCATTER) {
		push(b, q, RX, da, a, 0);
		push(b, q, RX, da + a, len - a, 0);
	} else {
		push(b, q, RX, da, len, 0);
	}
	b->c[b->copies++] = (struct copy){ s, d, soff, doff, len };
	b->bytes += len;
}

/*
 * @n (at most NWIN) copies of random length and place from @s to @d, each
 * into its own window of @d; shapes in turn from @shape (NSHAPES: all one
 * to one); the first copy @first_len bytes long unless that is 0.
 */
static void make_batch(struct batch *b, const struct uqueue *q, const struct chunk *s,
		       struct chunk *d, int n, int shape, __u32 first_len)
{
	__u64 win = d->size / NWIN;
	__u32 most = win < DESC_MAX_LEN ? win : DESC_MAX_LEN, len;
	int k;

	memset(b, 0, sizeof(*b));
	for (k = 0; k < n; k++) {
		len = k || !first_len ? 1 + rnd() % most : first_len;
		add_copy(b, q, s, rnd() % (s->size - len + 1), d, k * win + rnd() % (win - len + 1),
			 len, shape == NSHAPES ? ONE_TO_ONE : (shape + k) % NSHAPES);
	}
}

/* How run_batch() runs a batch. */
#define RUN_EXACT	1	/* the rings are in host chunks: count exactly */
#define RUN_PAUSED	2	/* start it on a stopped engine, then run the engine */

/*
 * Write @b into @q's rings and start it; check the simulator's counters
 * (RUN_EXACT in @how: they moved by exactly what @b holds, which needs
 * rings in host chunks: reading a ring in device memory takes DMA too),
 * the queue's state and the data.  RUN_PAUSED: the engine is stopped with
 * DMA_ENG_SET_STATE first, nothing must move until it runs again.
 */
static void run_batch(struct __test_metadata *_metadata, struct queue_self *self,
		      struct uqueue *q, const struct batch *b, unsigned int how,
		      const char *where)
{
	long long before[NSTATS], after[NSTATS];
	int exact = how & RUN_EXACT;
	const struct copy *c;
	int t, k;

	for (t = 0; t < 2; t++) {
		ASSERT_EQ(0, ring_write(self->fd, &q->r[t], b->d[t], b->n[t])) {
			TH_LOG("%s: DMA_COPY_DESCRIPTORS of %u %s descriptors", where, b->n[t],
			       tname[t]);
		}
	}
	if (how & RUN_PAUSED) {
		ASSERT_EQ(0, eng_set(self->fd, q->eng, NEURON_DMA_ENG_DISABLE)) TH_LOG("%s", where);
		EXPECT_EQ(1, engine_reads(self->fd, q->eng, NEURON_DMA_ENG_IDLE))
			TH_LOG("%s: stopped engine", where);
	}
	ASSERT_EQ(0, sim_stats(before));
	ASSERT_EQ(0, q_start(self->fd, q->eng, q->qid, b->n[TX], b->n[RX])) {
		TH_LOG("%s: %u and %u descriptors at slots %u and %u", where, b->n[TX], b->n[RX],
		       ring_tail(&q->r[TX]), ring_tail(&q->r[RX]));
	}
	if (how & RUN_PAUSED) {
		ASSERT_EQ(0, sim_stats(after));
		EXPECT_EQ(before[ST_DESCS], after[ST_DESCS]) TH_LOG("%s: it ran stopped", where);
		EXPECT_EQ(before[ST_BYTES], after[ST_BYTES]) TH_LOG("%s: it ran stopped", where);
		ASSERT_EQ(0, eng_set(self->fd, q->eng, NEURON_DMA_ENG_NORMAL)) TH_LOG("%s", where);
	}
	ASSERT_EQ(0, sim_stats(after));
	for (t = 0; t < 2; t++)
		ring_started(&q->r[t], b->d[t], b->n[t]);
	for (k = 0; k < b->copies; k++) {
		c = &b->c[k];
		memmove(c->d->shadow + c->doff, c->s->shadow + c->soff, c->len);
	}

	EXPECT_EQ(before[ST_ERRORS], after[ST_ERRORS]) TH_LOG("%s: engine error", where);
	if (exact) {
		EXPECT_EQ((long long)b->bytes, after[ST_BYTES] - before[ST_BYTES])
			TH_LOG("%s: bytes moved", where);
		EXPECT_EQ(b->n[TX] + b->n[RX], after[ST_DESCS] - before[ST_DESCS])
			TH_LOG("%s: descriptors done", where);
	} else {
		EXPECT_LE((long long)b->bytes, after[ST_BYTES] - before[ST_BYTES])
			TH_LOG("%s: bytes moved", where);
	}
	queue_state_check(_metadata, self, q, where);
	EXPECT_EQ(0, q_ack(self->fd, q->eng, q->qid, b->n[RX])) TH_LOG("%s", where);
	for (k = 0; k < b->copies; k++)
		chunk_check(_metadata, b->c[k].d, b->c[k].doff, b->c[k].len, where);
}

/*
 * Batches of copies, @h to @d and @d to @h in turn, until both rings of
 * @q have gone round @laps times and 8 slots more.  The first copy of
 * the first two batches is 64 KiB: one descriptor (length field 0) on
 * each side, then one source descriptor scattered over two.
 */
static void run_laps(struct __test_metadata *_metadata, struct queue_self *self,
		     struct uqueue *q, struct chunk *h, struct chunk *d, unsigned int laps,
		     unsigned int how, const char *where)
{
	const __u64 want[2] = {
		(__u64)laps * q->r[TX].size + 8, (__u64)laps * q->r[RX].size + 8,
	};
	struct batch b;
	char what[96];
	int n;

	for (n = 0; q->r[TX].started < want[TX] || q->r[RX].started < want[RX]; n++) {
		make_batch(&b, q, n % 2 ? d : h, n % 2 ? h : d, 3 + rnd() % (NWIN - 3), n % NSHAPES,
			   n < 2 ? DESC_MAX_LEN : 0);
		snprintf(what, sizeof(what), "%s, batch %d", where, n);
		run_batch(_metadata, self, q, &b, how, what);
	}
	TH_LOG("%s: %d batches, %llu TX and %llu RX descriptors", where, n,
	       (unsigned long long)q->r[TX].started, (unsigned long long)q->r[RX].started);
}

/* ---- round_trip ------------------------------------------------------ */

/*
 * DMA_ENG_SET_STATE on @q's engine: a batch started while it is stopped
 * waits for it to run again; aborted, it reads so until it is run again;
 * what it refuses changes nothing.
 */
static void engine_states(struct __test_metadata *_metadata, struct queue_self *self,
			  const struct queue_variant *variant, struct uqueue *q,
			  struct chunk *h, struct chunk *d)
{
	static const __u32 bad_state[] = { NEURON_DMA_ENG_IDLE, 4, 5, 0x80000000, ~0U };
	const __u32 bad_eng[] = { variant->g->engines, 0x10000, ~0U };
	__u32 idle_eng = q->eng == 1 ? 0 : 1;
	struct batch b;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_state); i++) {
		expect_is(_metadata, -EINVAL, eng_set(self->fd, q->eng, bad_state[i]), "state %u",
			  bad_state[i]);
		expect_is(_metadata, 1, engine_runs(self->fd, q->eng), "after state %u",
			  bad_state[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_eng); i++)
		expect_is(_metadata, -EINVAL, eng_set(self->fd, bad_eng[i], NEURON_DMA_ENG_ABORT),
			  "engine %u", bad_eng[i]);
	for (i = variant->g->user; i < variant->g->engines; i++) {
		expect_is(_metadata, -EBUSY, eng_set(self->fd, i, NEURON_DMA_ENG_ABORT),
			  "host engine %u", i);
		expect_is(_metadata, 1, engine_runs(self->fd, i), "host engine %u", i);
	}

	/*
	 * An engine with no queue: programmed on first use, so it stops and
	 * runs like one that has queues.
	 */
	ASSERT_EQ(0, eng_set(self->fd, idle_eng, NEURON_DMA_ENG_DISABLE));
	EXPECT_EQ(1, engine_reads(self->fd, idle_eng, NEURON_DMA_ENG_IDLE)) TH_LOG("stopped");
	EXPECT_EQ(1, engine_runs(self->fd, q->eng)) TH_LOG("the queue's engine changed");
	ASSERT_EQ(0, eng_set(self->fd, idle_eng, NEURON_DMA_ENG_NORMAL));
	EXPECT_TRUE(engine_runs(self->fd, idle_eng));

	make_batch(&b, q, h, d, 4, NSHAPES, 0);
	run_batch(_metadata, self, q, &b, RUN_EXACT | RUN_PAUSED, "started while stopped");
	EXPECT_TRUE(engine_runs(self->fd, q->eng));

	ASSERT_EQ(0, eng_set(self->fd, q->eng, NEURON_DMA_ENG_ABORT));
	EXPECT_EQ(1, engine_reads(self->fd, q->eng, NEURON_DMA_ENG_ABORT));
	ASSERT_EQ(0, eng_set(self->fd, q->eng, NEURON_DMA_ENG_NORMAL));
	EXPECT_TRUE(engine_runs(self->fd, q->eng));
	make_batch(&b, q, d, h, 4, NSHAPES, 0);
	run_batch(_metadata, self, q, &b, RUN_EXACT, "after the abort");
}

/*
 * Random data host to device and back through one queue: laps of 32-slot
 * rings in host chunks, then, initialised again, of 48-slot rings in
 * device chunks.  DESCRIPTOR_COPYOUT and GET_STATE along the way.
 */
TEST_F_TIMEOUT(queue, round_trip, 300)
{
	struct uqueue q = { .eng = variant->g->user - 1, .qid = NQUEUES - 1 };
	struct ring old[2];
	struct chunk h, d;
	struct desc junk[RING_RESERVED];
	unsigned int i;
	int t;

	chunk_new(_metadata, self, &h, 1, NWIN * 128 * 1024, 0, 1);
	chunk_new(_metadata, self, &d, 0, NWIN * 128 * 1024, self->nhbm - 1, 1);
	ring_new(_metadata, self, &q.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &q.r[RX], RX, RING_MIN, 1, 0);
	queue_up(_metadata, self, &q);
	for (t = 0; t < 2; t++)
		ring_check(_metadata, self, &q, &q.r[t], 0, RING_MIN, "nothing started yet");
	EXPECT_TRUE(engine_runs(self->fd, q.eng));

	run_laps(_metadata, self, &q, &h, &d, 4, RUN_EXACT, "host rings");
	chunk_check_all(_metadata, self, &h, "after the laps of host rings");
	chunk_check_all(_metadata, self, &d, "after the laps of host rings");
	/* The device chunk was read with MEM_BUF_COPY64: the driver's channels ran. */
	bases_check(_metadata, self, variant, &q, "host rings");
	for (t = 0; t < 2; t++) {
		ring_check(_metadata, self, &q, &q.r[t], 0, RING_MIN, "after the laps");
		ring_check(_metadata, self, &q, &q.r[t], RING_MIN - 1, 1, "the last slot");
		ring_check(_metadata, self, &q, &q.r[t], 3, 5, "slots 3 to 7");
	}
	engine_states(_metadata, self, variant, &q, &h, &d);

	/*
	 * The engine was given copies: new descriptors in the runtime's rings,
	 * written with DMA_COPY_DESCRIPTORS or through the mapping, change
	 * nothing until they are started.
	 */
	for (i = 0; i < RING_RESERVED; i++)
		junk[i] = desc(1, h.pa + i, 1, 3, DESC_FIRST | DESC_LAST);
	for (t = 0; t < 2; t++) {
		EXPECT_EQ(0, ring_write(self->fd, &q.r[t], junk, RING_RESERVED));
		memset(q.r[t].c.map + RING_RESERVED * DESC_SIZE, 0x5a,
		       (RING_MIN - RING_RESERVED) * DESC_SIZE);
		ring_check(_metadata, self, &q, &q.r[t], 0, RING_MIN, "after the rings changed");
	}
	queue_state_check(_metadata, self, &q, "after the rings changed");

	/* Initialised again, on new rings: from slot 0 and ring id 1. */
	old[TX] = q.r[TX];
	old[RX] = q.r[RX];
	ring_new(_metadata, self, &q.r[TX], TX, 48, 0, 0);
	ring_new(_metadata, self, &q.r[RX], RX, 48, 0, self->nhbm - 1);
	queue_up(_metadata, self, &q);
	ring_free(_metadata, self, &old[TX]);
	ring_free(_metadata, self, &old[RX]);
	for (t = 0; t < 2; t++)
		ring_check(_metadata, self, &q, &q.r[t], 0, 48, "initialised again");
	run_laps(_metadata, self, &q, &h, &d, 2, 0, "device rings");
	chunk_check_all(_metadata, self, &h, "after the laps of device rings");
	chunk_check_all(_metadata, self, &d, "after the laps of device rings");
	bases_check(_metadata, self, variant, &q, "device rings");
	for (t = 0; t < 2; t++)
		ring_check(_metadata, self, &q, &q.r[t], 0, 48, "after the laps of device rings");
	EXPECT_TRUE(engine_runs(self->fd, q.eng));

	/* Released: nothing more to start, nothing to release. */
	EXPECT_EQ(0, q_release(self->fd, q.eng, q.qid));
	EXPECT_EQ(-EINVAL, q_start(self->fd, q.eng, q.qid, 0, 0));
	EXPECT_EQ(-EINVAL, q_release(self->fd, q.eng, q.qid));
	bases_check(_metadata, self, variant, NULL, "released");
	ring_free(_metadata, self, &q.r[TX]);
	ring_free(_metadata, self, &q.r[RX]);
	chunk_free(_metadata, self, &h);
	chunk_free(_metadata, self, &d);
	check_counts(_metadata, self->index, &self->start, "after the round trip");
}

/* ---- bad_input ------------------------------------------------------- */

/* A descriptor's range: a bad one, or one at the edge of what is allowed. */
struct range {
	__u64 addr;
	__u32 len;	/* 65536: length field 0 */
	const char *what;
};

/* What bad_input works with. */
struct kit {
	struct chunk one;	/* host, one page: rings, descriptor edges */
	struct chunk k64;	/* device, 64 KiB */
	struct chunk big;	/* host, 1 MiB and a page: the largest rings */
	struct chunk rc;	/* host, two pages: DMA_COPY_DESCRIPTORS writes it */
	struct chunk src;	/* host, four pages: source of the smuggled batches */
	struct chunk dst;	/* device, four pages: their destination */
	__u64 gone;		/* a freed handle */
	__u64 hgone;		/* where a freed host chunk was */
	__u64 dgone;		/* where a freed device chunk was */
	__u64 theirs[3];	/* the other process's ring handle, host and device chunk pa */
	struct range bad[12];
	unsigned int nbad;
	struct range ok[3];
};

static void kit_ranges(struct kit *k)
{
	const struct range bad[] = {
		{ k->theirs[1], 64, "another process's host chunk" },
		{ k->theirs[2], 64, "another process's device chunk" },
		{ k->hgone, 64, "a freed host chunk" },
		{ k->dgone, 64, "a freed device chunk" },
		{ k->dst.pa + k->dst.size - 8, 16, "across the end of a device chunk" },
		{ k->one.pa + k->one.size - 1, 2, "across the end of a host chunk" },
		{ k->dst.pa - 1, 2, "across the start of a chunk" },
		{ k->one.pa, DESC_MAX_LEN, "64 KiB (length 0) of a one-page chunk" },
		{ ~0ULL - 7, 16, "around the end of the address space" },
		{ 1ULL << 40, 64, "where there is no memory" },
	};
	const struct range ok[] = {
		{ k->one.pa, k->one.size, "all of a host chunk" },
		{ k->one.pa + k->one.size - 1, 1, "the last byte of a host chunk" },
		{ k->k64.pa, DESC_MAX_LEN, "all of a 64 KiB device chunk (length 0)" },
	};

	memcpy(k->bad, bad, sizeof(bad));
	k->nbad = ARRAY_SIZE(bad);
	memcpy(k->ok, ok, sizeof(ok));
}

/* @op on @eng/@qid answers @want; else log it and return 1. */
static unsigned int qop_wrong(struct __test_metadata *_metadata, int fd, enum qop op,
			      __u32 eng, __u32 qid, const struct chunk *ring, long want)
{
	long got = qop(fd, op, eng, qid, ring->h, ring->h);

	if (got == want)
		return 0;
	TH_LOG("%s on engine %u queue %u: %ld, want %ld", qop_name[op], eng, qid, got, want);
	return 1;
}

/*
 * Engine and queue ids: -EINVAL past the engines, -EBUSY for the host
 * engines, -EINVAL for a queue past 16 or one nobody initialised.
 */
static void ids_refused(struct __test_metadata *_metadata, struct queue_self *self,
			const struct queue_variant *variant, const struct kit *k)
{
	const __u32 bad_eng[] = {
		variant->g->engines, variant->g->engines + 1, 0x10000, 0x80000000, ~0U,
	};
	static const __u32 bad_qid[] = { NQUEUES, NQUEUES + 1, 0x80000000, ~0U };
	const __u32 user[] = { 0, variant->g->user / 2 + 1, variant->g->user - 1 };
	unsigned int i, j, e, bad = 0;
	int op;

	for (i = 0; i < ARRAY_SIZE(bad_eng); i++)
		expect_is(_metadata, -EINVAL, eng_init(self->fd, bad_eng[i]), "engine %u",
			  bad_eng[i]);
	for (e = variant->g->user; e < variant->g->engines; e++)
		expect_is(_metadata, -EBUSY, eng_init(self->fd, e), "host engine %u", e);
	/*
	 * Engine user[0] is programmed first; the others are not until the
	 * first DMA_QUEUE_INIT names them, which comes last.
	 */
	EXPECT_EQ(0, eng_init(self->fd, user[0]));
	for (op = NQOPS - 1; op >= 0; op--) {
		for (i = 0; i < ARRAY_SIZE(bad_eng); i++)
			bad += qop_wrong(_metadata, self->fd, op, bad_eng[i], 0, &k->one, -EINVAL);
		for (e = variant->g->user; e < variant->g->engines; e++)
			bad += qop_wrong(_metadata, self->fd, op, e, 0, &k->one, -EBUSY);
		for (i = 0; i < ARRAY_SIZE(user); i++) {
			for (j = 0; j < ARRAY_SIZE(bad_qid); j++)
				bad += qop_wrong(_metadata, self->fd, op, user[i], bad_qid[j],
						 &k->one, -EINVAL);
			if (op == QOP_INIT)
				continue;
			bad += qop_wrong(_metadata, self->fd, op, user[i], 0, &k->one, -EINVAL);
			bad += qop_wrong(_metadata, self->fd, op, user[i], NQUEUES - 1, &k->one,
					 -EINVAL);
		}
	}
	EXPECT_EQ(0, bad);
	for (i = 0; i < ARRAY_SIZE(user); i++) {
		expect_is(_metadata, 0, eng_init(self->fd, user[i]), "engine %u", user[i]);
		expect_is(_metadata, 1, engine_runs(self->fd, user[i]), "engine %u runs", user[i]);
	}
}

/* Ring sizes, ring handles and completion rings DMA_QUEUE_INIT refuses, and its limits. */
static void init_refused(struct __test_metadata *_metadata, struct queue_self *self,
			 const struct kit *k)
{
	const __u32 eng = 1, qid = 7, fit = k->one.size / DESC_SIZE;
	static const __u32 bad_count[] = {
		0, 1, 16, RING_MIN - 1, RING_MIN + 1, RING_MIN + 8, 47, RING_MAX - 16 + 1,
		RING_MAX + 16, 0x80000000, ~0U,
	};
	const __u64 bad_h[] = {
		0, ~0ULL, k->one.h + 1, k->one.h ^ (1ULL << 63), k->one.h & 0xffffffff, k->gone,
		k->one.pa, k->theirs[0],
	};
	struct neuron_ioctl_dma_queue_init a;
	struct neuron_dma_queue_state st[2];
	struct desc d[2];
	unsigned int i, t;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < ARRAY_SIZE(bad_count); i++) {
			a = qi(eng, qid, RING_MIN, RING_MIN, k->big.h, k->big.h);
			*(t ? &a.rx_desc_count : &a.tx_desc_count) = bad_count[i];
			EXPECT_EQ(-EINVAL, q_init(self->fd, a)) {
				TH_LOG("%s ring of %u descriptors", tname[t], bad_count[i]);
			}
		}
		/* More than the chunk holds. */
		a = qi(eng, qid, fit, fit, k->one.h, k->one.h);
		*(t ? &a.rx_desc_count : &a.tx_desc_count) = fit + 16;
		EXPECT_EQ(-EINVAL, q_init(self->fd, a)) {
			TH_LOG("%s ring of %u descriptors in %llu bytes", tname[t], fit + 16,
			       (unsigned long long)k->one.size);
		}
		for (i = 0; i < ARRAY_SIZE(bad_h); i++) {
			if (bad_h[i] == k->one.h || bad_h[i] == k->big.h)
				continue;
			a = qi(eng, qid, RING_MIN, RING_MIN, k->one.h, k->one.h);
			*(t ? &a.rx_handle : &a.tx_handle) = bad_h[i];
			EXPECT_EQ(-EINVAL, q_init(self->fd, a)) {
				TH_LOG("%s ring handle %#llx", tname[t],
				       (unsigned long long)bad_h[i]);
			}
		}
	}
	/* No completion ring. */
	a = qi(eng, qid, RING_MIN, RING_MIN, k->one.h, k->one.h);
	a.rxc_handle = k->one.h;
	EXPECT_EQ(-EINVAL, q_init(self->fd, a));
	a.rxc_handle = 1;
	EXPECT_EQ(-EINVAL, q_init(self->fd, a));
	/* None of those left a queue behind. */
	EXPECT_EQ(-EINVAL, q_start(self->fd, eng, qid, 0, 0));

	/* The limits; one chunk for both rings; any AXI port. */
	a = qi(eng, qid, fit, fit, k->one.h, k->one.h);
	a.axi_port = ~0U;
	EXPECT_EQ(0, q_init(self->fd, a));
	EXPECT_EQ(0, q_start(self->fd, eng, qid, 0, 0));
	EXPECT_EQ(0, q_init(self->fd, qi(eng, qid, RING_MIN, RING_MAX, k->one.h, k->big.h)));
	EXPECT_EQ(0, q_init(self->fd, qi(eng, qid, RING_MAX, RING_MIN + 16, k->big.h, k->one.h)));
	ASSERT_EQ(0, q_state(self->fd, eng, qid, st));
	EXPECT_EQ(RING_MAX, st[TX].length);
	EXPECT_EQ(RING_MIN + 16, st[RX].length);
	/* Each ring's own size bounds what names it; DMA_ACK_COMPLETED, the RX ring's. */
	EXPECT_EQ(0, q_ack(self->fd, eng, qid, RING_MIN + 16));
	EXPECT_EQ(-EINVAL, q_ack(self->fd, eng, qid, RING_MIN + 17));
	memset(d, 0xa5, sizeof(d));
	EXPECT_EQ(0, q_copyout(self->fd, eng, qid, TX, RING_MAX - 2, 2, d));
	EXPECT_EQ(0, d[0].ctrl | d[0].meta | d[1].ctrl | d[1].meta) TH_LOG("never started");
	EXPECT_EQ(0, d[0].addr | d[1].addr) TH_LOG("never started");
	EXPECT_EQ(-EINVAL, q_copyout(self->fd, eng, qid, TX, RING_MAX - 1, 2, d));
	EXPECT_EQ(0, q_copyout(self->fd, eng, qid, RX, RING_MIN + 14, 2, d));
	EXPECT_EQ(-EINVAL, q_copyout(self->fd, eng, qid, RX, RING_MIN + 15, 2, d));
	EXPECT_EQ(-EINVAL, q_start(self->fd, eng, qid, 0, RING_MIN + 1));
	EXPECT_EQ(-EINVAL, q_start(self->fd, eng, qid, RING_MAX - RING_RESERVED + 1, 0));
	EXPECT_EQ(0, q_release(self->fd, eng, qid));
}

/*
 * dma_shadow_max_kb: with room for 64 KiB of shadow rings and less than
 * 1 KiB more, a queue of 2048 + 2048 descriptors fits and one of 32 + 32
 * does not, until the first is released.  What is counted shows in debugfs.
 */
static void shadow_budget(struct __test_metadata *_metadata, struct queue_self *self,
			  const struct kit *k)
{
	const __u32 eng = 1, qa = 8, qb = 9, n = 2048;
	long long b0 = shadow_bytes(self->index);
	char was[32];

	ASSERT_LE(0, b0);
	ASSERT_EQ(0, nt_read(was, sizeof(was), SHADOW_MAX));
	ASSERT_EQ(0, nt_write(SHADOW_MAX, "%lld", (b0 + 1023) / 1024 + 64));
	EXPECT_EQ(0, q_init(self->fd, qi(eng, qa, n, n, k->big.h, k->big.h)));
	EXPECT_EQ(b0 + 2 * n * DESC_SIZE, shadow_bytes(self->index));
	EXPECT_EQ(-ENOMEM, q_init(self->fd, qi(eng, qb, RING_MIN, RING_MIN, k->one.h, k->one.h)));
	EXPECT_EQ(b0 + 2 * n * DESC_SIZE, shadow_bytes(self->index));
	EXPECT_EQ(-EINVAL, q_start(self->fd, eng, qb, 0, 0)) TH_LOG("no queue was left");
	EXPECT_EQ(0, q_release(self->fd, eng, qa));
	EXPECT_EQ(b0, shadow_bytes(self->index));
	EXPECT_EQ(0, q_init(self->fd, qi(eng, qb, RING_MIN, RING_MIN, k->one.h, k->one.h)));
	EXPECT_EQ(b0 + 2 * RING_MIN * DESC_SIZE, shadow_bytes(self->index));
	EXPECT_EQ(0, q_release(self->fd, eng, qb));
	EXPECT_EQ(b0, shadow_bytes(self->index));
	ASSERT_EQ(0, nt_write(SHADOW_MAX, "%s", was));
}

/* DMA_QUEUE_INIT_BATCH: its count, and batches with a bad entry, which change nothing. */
static void batch_refused(struct __test_metadata *_metadata, struct queue_self *self,
			  const struct queue_variant *variant, const struct kit *k)
{
	const __u32 last = MAX_DMA_QUEUE_INIT_BATCH - 1, eng = 3;
	struct neuron_ioctl_dma_queue_init_batch *b = calloc(1, sizeof(*b));
	unsigned int i, bad = 0;

	ASSERT_NE(NULL, b);
	for (i = 0; i <= last; i++)
		b->entries[i] = qi(BATCH_ENG + i / NQUEUES, i % NQUEUES, RING_MIN, RING_MIN,
				   k->one.h, k->one.h);
	b->count = MAX_DMA_QUEUE_INIT_BATCH;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	b->count = ~0U;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	EXPECT_EQ(-EINVAL, q_start(self->fd, BATCH_ENG, 0, 0, 0)) TH_LOG("refused batch");
	b->count = 0;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	EXPECT_EQ(-EINVAL, q_start(self->fd, BATCH_ENG, 0, 0, 0)) TH_LOG("empty batch");

	/* The largest batch: every entry but the last, which is not counted. */
	b->count = last;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	for (i = 0; i <= last; i++) {
		if (q_start(self->fd, BATCH_ENG + i / NQUEUES, i % NQUEUES, 0, 0) ==
		    (i < last ? 0 : -EINVAL))
			continue;
		if (bad++ < 4)
			TH_LOG("batch entry %u: %sinitialised", i, i < last ? "not " : "");
	}
	EXPECT_EQ(0, bad);
	for (i = 0; i < last; i++)
		bad += q_release(self->fd, BATCH_ENG + i / NQUEUES, i % NQUEUES) != 0;
	EXPECT_EQ(0, bad) TH_LOG("DMA_QUEUE_RELEASE of the batch's queues");

	/*
	 * Every entry is checked before any queue changes: a bad entry
	 * anywhere leaves the queues as they were, a queue the batch would
	 * initialise again included.
	 */
	ASSERT_EQ(0, q_init(self->fd, qi(eng, 2, RING_MIN, RING_MIN, k->one.h, k->one.h)));
	b->count = 4;
	b->entries[0] = qi(eng, 0, RING_MIN, RING_MIN, k->one.h, k->one.h);
	b->entries[1] = qi(eng, 2, RING_MIN, RING_MIN, k->one.h, k->one.h);
	b->entries[2] = qi(eng, 3, RING_MIN, RING_MIN, k->one.h, k->one.h);
	b->entries[3] = qi(eng, NQUEUES, RING_MIN, RING_MIN, k->one.h, k->one.h);
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	EXPECT_EQ(-EINVAL, q_start(self->fd, eng, 0, 0, 0)) TH_LOG("bad last entry");
	EXPECT_EQ(0, q_start(self->fd, eng, 2, 0, 0)) TH_LOG("bad last entry: queue 2 kept");
	EXPECT_EQ(-EINVAL, q_start(self->fd, eng, 3, 0, 0)) TH_LOG("bad last entry");
	/* A host engine's queue (EBUSY), a ring larger than its chunk (EINVAL). */
	b->entries[3] = qi(variant->g->user, 0, RING_MIN, RING_MIN, k->one.h, k->one.h);
	EXPECT_EQ(-EBUSY, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	b->entries[3] = qi(eng, 4, RING_MIN, 1U << 20, k->one.h, k->one.h);
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(i == 2 ? 0 : -EINVAL, q_start(self->fd, eng, i, 0, 0))
			TH_LOG("refused batches: queue %u", i);
	/* The same batch, good: all of it. */
	b->count = 3;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i == 1 ? -EINVAL : 0, q_start(self->fd, eng, i, 0, 0))
			TH_LOG("batch: queue %u", i);
	EXPECT_EQ(0, q_release(self->fd, eng, 0));
	EXPECT_EQ(0, q_release(self->fd, eng, 2));
	EXPECT_EQ(0, q_release(self->fd, eng, 3));
	free(b);
}

/*
 * DMA_COPY_DESCRIPTORS(64): types, counts, offsets, ring handles, buffers
 * and descriptors it refuses, leaving the ring as it was; and its limits.
 */
static void descs_refused(struct __test_metadata *_metadata, struct queue_self *self,
			  struct kit *k)
{
	const __u64 bad_h[] = {
		0, ~0ULL, k->rc.h + 1, k->rc.h ^ (1ULL << 32), k->gone, k->rc.pa, k->theirs[0],
	};
	static const __u32 bad_type[] = { NEURON_DMA_QUEUE_TYPE_COMPLETION, 3, ~0U };
	const __u64 sz = k->rc.size;
	struct desc d[4], bd[4], *many;
	unsigned char *hole, *nowhere;
	unsigned int i, j, t;
	int wide;

	/* A good page, then one that cannot be read. */
	hole = mmap(NULL, 2 * pg, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, mprotect(hole + pg, pg, PROT_NONE));
	nowhere = hole + pg;
	for (i = 0; i < ARRAY_SIZE(d); i++)
		d[i] = desc(i & 1, k->one.pa + 16 * i, 16, 1, i & 1 ? DESC_FIRST | DESC_LAST : 0);
	memcpy(hole + pg - sizeof(d[0]), d, sizeof(d[0]));

	for (wide = 0; wide < 2; wide++) {
		for (i = 0; i < ARRAY_SIZE(bad_type); i++)
			expect_is(_metadata, -EINVAL,
				  put_descs(self->fd, wide, k->rc.h, d, 1, 0, bad_type[i]),
				  "type %u", bad_type[i]);
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, d, 0, 0, TX));
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->big.h, d, RING_MAX + 1, 0, TX));
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, d, 1, 8, TX));
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, d, 1, 15, RX));
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, d, 2, sz - 16, TX));
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, d, 1, sz, RX));
		EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, d, 4, 0xfffffff0, TX));
		for (i = 0; i < ARRAY_SIZE(bad_h); i++)
			expect_is(_metadata, -EINVAL,
				  put_descs(self->fd, wide, bad_h[i], d, 1, 0, TX),
				  "ring handle %#llx", (unsigned long long)bad_h[i]);
		EXPECT_EQ(-EFAULT, put_descs(self->fd, wide, k->rc.h, NULL, 1, 0, TX));
		EXPECT_EQ(-EFAULT, put_descs(self->fd, wide, k->rc.h, nowhere, 1, 0, RX));
		EXPECT_EQ(-EFAULT, put_descs(self->fd, wide, k->rc.h, hole + pg - sizeof(d[0]), 2,
					     0, RX)) TH_LOG("descriptors run off their mapping");
		/* Each bad descriptor, in every place of a batch, on either ring. */
		for (i = 0; i < k->nbad; i++) {
			for (t = 0; t < 2; t++) {
				memcpy(bd, d, sizeof(bd));
				j = (i + t + wide) % ARRAY_SIZE(bd);
				bd[j] = desc(t == TX, k->bad[i].addr, k->bad[i].len, 1, 0);
				EXPECT_EQ(-EINVAL, put_descs(self->fd, wide, k->rc.h, bd,
							     ARRAY_SIZE(bd), 16 * i, t)) {
					TH_LOG("%s descriptor %u: %s", tname[t], j, k->bad[i].what);
				}
			}
		}
	}
	/* 64-bit offsets: no truncation, no wrapping. */
	EXPECT_EQ(-EINVAL, put_descs(self->fd, 1, k->rc.h, d, 1, 1ULL << 32, TX));
	EXPECT_EQ(-EINVAL, put_descs(self->fd, 1, k->rc.h, d, 1, 1ULL << 63, TX));
	EXPECT_EQ(-EINVAL, put_descs(self->fd, 1, k->rc.h, d, 2, ~0ULL - 15, TX));
	EXPECT_EQ(sz, first_diff(k->rc.map, k->rc.shadow, sz)) TH_LOG("refused, yet written");

	/* The edges: the ring's last slot, and descriptors just inside chunks. */
	EXPECT_EQ(0, put_descs(self->fd, 0, k->rc.h, d, 1, sz - 16, TX));
	memcpy(k->rc.shadow + sz - 16, d, 16);
	for (i = 0; i < ARRAY_SIZE(k->ok); i++) {
		for (t = 0; t < 2; t++) {
			bd[0] = desc(t == TX, k->ok[i].addr, k->ok[i].len, 2, DESC_LAST);
			EXPECT_EQ(0, put_descs(self->fd, t, k->rc.h, bd, 1, 32 * i + 16 * t, t))
				TH_LOG("%s: %s", tname[t], k->ok[i].what);
			memcpy(k->rc.shadow + 32 * i + 16 * t, bd, 16);
		}
	}
	chunk_check(_metadata, &k->rc, 0, sz, "after DMA_COPY_DESCRIPTORS");

	/* The most descriptors one call takes: all of a ring of the largest size. */
	many = malloc(RING_MAX * sizeof(*many));
	ASSERT_NE(NULL, many);
	for (i = 0; i < RING_MAX; i++)
		many[i] = desc(1, k->k64.pa + i % 61440, 1 + i % 4096, i, DESC_FIRST | DESC_LAST);
	EXPECT_EQ(0, put_descs(self->fd, 1, k->big.h, many, RING_MAX, 0, TX));
	EXPECT_EQ(0, memcmp(k->big.map, many, RING_MAX * sizeof(*many)));
	free(many);
	munmap(hole, 2 * pg);
}

/*
 * COPY_START of descriptors written straight into the ring through its
 * mapping: each bad one is refused and nothing starts (the simulator's
 * counters stay, the tails stay, the destination is untouched); then the
 * same slots with good descriptors work.  The batches cross the end of
 * the rings.
 */
static void smuggled(struct __test_metadata *_metadata, struct queue_self *self,
		     struct kit *k, struct uqueue *q)
{
	long long before[NSTATS], after[NSTATS];
	struct neuron_dma_queue_state st[2];
	const int n = 6;
	struct desc bad;
	struct batch b;
	struct ring *r;
	unsigned int i, t, slot, at;
	char what[128];

	/* To slot 28 of 32, 4 copies at a time. */
	for (i = 0; i < 7; i++) {
		make_batch(&b, q, &k->src, &k->dst, 4, NSHAPES, 0);
		run_batch(_metadata, self, q, &b, RUN_EXACT, "4 copies");
	}
	ASSERT_EQ(RING_MIN - 4, ring_tail(&q->r[TX]));

	/* Counts beyond what a start may take. */
	ASSERT_EQ(0, sim_stats(before));
	EXPECT_EQ(-EINVAL, q_start(self->fd, q->eng, q->qid, RING_MIN - RING_RESERVED + 1, 0));
	EXPECT_EQ(-EINVAL, q_start(self->fd, q->eng, q->qid, 0, RING_MIN - RING_RESERVED + 1));
	EXPECT_EQ(-EINVAL, q_start(self->fd, q->eng, q->qid, ~0U, ~0U));
	EXPECT_EQ(-EINVAL, q_start(self->fd, q->eng, q->qid, 1, RING_MIN));

	for (i = 0; i < k->nbad; i++) {
		for (t = 0; t < 2; t++) {
			r = &q->r[t];
			make_batch(&b, q, &k->src, &k->dst, n, NSHAPES, 0);
			ASSERT_EQ(0, ring_write(self->fd, &q->r[TX], b.d[TX], n));
			ASSERT_EQ(0, ring_write(self->fd, &q->r[RX], b.d[RX], n));
			at = (i * 2 + t) % n;
			slot = (ring_tail(r) + at) % r->size;
			bad = desc(t == TX, k->bad[i].addr, k->bad[i].len, ring_id(r, at),
				   t == TX ? DESC_FIRST | DESC_LAST : 0);
			memcpy(r->c.map + slot * DESC_SIZE, &bad, sizeof(bad));
			snprintf(what, sizeof(what), "%s descriptor in slot %u: %s", tname[t], slot,
				 k->bad[i].what);
			EXPECT_EQ(-EINVAL, q_start(self->fd, q->eng, q->qid, n, n))
				TH_LOG("%s", what);
		}
	}
	ASSERT_EQ(0, sim_stats(after));
	EXPECT_EQ(before[ST_DESCS], after[ST_DESCS]) TH_LOG("refused, yet started");
	EXPECT_EQ(before[ST_BYTES], after[ST_BYTES]) TH_LOG("refused, yet started");
	EXPECT_EQ(before[ST_ERRORS], after[ST_ERRORS]);
	ASSERT_EQ(0, q_state(self->fd, q->eng, q->qid, st));
	for (t = 0; t < 2; t++) {
		EXPECT_EQ(ring_tail(&q->r[t]), st[t].tail_pointer) TH_LOG("%s", tname[t]);
		EXPECT_EQ(st[t].tail_pointer, st[t].head_pointer) TH_LOG("%s", tname[t]);
	}
	chunk_check(_metadata, &k->dst, 0, k->dst.size, "after the refused starts");

	/* Good descriptors in the same slots. */
	make_batch(&b, q, &k->src, &k->dst, n, ONE_TO_ONE, 0);
	run_batch(_metadata, self, q, &b, RUN_EXACT, "after the refused starts");
	for (t = 0; t < 2; t++)
		ring_check(_metadata, self, q, &q->r[t], 0, RING_MIN, "after the refused starts");
	EXPECT_TRUE(engine_runs(self->fd, q->eng));
}

/* DMA_ACK_COMPLETED and DMA_DESCRIPTOR_COPYOUT arguments on @q (32 and 32 slots). */
static void ack_copyout_refused(struct __test_metadata *_metadata, struct queue_self *self,
				const struct uqueue *q)
{
	static const __u32 bad_type[] = { NEURON_DMA_QUEUE_TYPE_COMPLETION, 3, ~0U };
	static const __u32 bad_range[][2] = {
		{ 0, 0 }, { RING_MIN - 1, 2 }, { RING_MIN, 1 }, { 0, RING_MIN + 1 },
		{ ~0U, 2 }, { 1, ~0U }, { ~0U, ~0U },
	};
	void *ro = read_only_page(), *nowhere = no_access();
	struct desc d[RING_MIN];
	unsigned int i, t;

	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, nowhere);
	EXPECT_EQ(0, q_ack(self->fd, q->eng, q->qid, 0));
	EXPECT_EQ(0, q_ack(self->fd, q->eng, q->qid, RING_MIN));
	EXPECT_EQ(-EINVAL, q_ack(self->fd, q->eng, q->qid, RING_MIN + 1));
	EXPECT_EQ(-EINVAL, q_ack(self->fd, q->eng, q->qid, ~0U));

	for (i = 0; i < ARRAY_SIZE(bad_type); i++)
		expect_is(_metadata, -EINVAL,
			  q_copyout(self->fd, q->eng, q->qid, bad_type[i], 0, 1, d),
			  "type %u", bad_type[i]);
	for (t = 0; t < 2; t++) {
		for (i = 0; i < ARRAY_SIZE(bad_range); i++)
			expect_is(_metadata, -EINVAL,
				  q_copyout(self->fd, q->eng, q->qid, t, bad_range[i][0],
					    bad_range[i][1], d),
				  "%s: %u from %u", tname[t], bad_range[i][1], bad_range[i][0]);
		EXPECT_EQ(-EFAULT, q_copyout(self->fd, q->eng, q->qid, t, 0, 1, NULL));
		EXPECT_EQ(-EFAULT, q_copyout(self->fd, q->eng, q->qid, t, 0, 2, nowhere));
		EXPECT_EQ(-EFAULT, q_copyout(self->fd, q->eng, q->qid, t, 0, 1, ro));
		EXPECT_EQ(0, q_copyout(self->fd, q->eng, q->qid, t, RING_MIN - 1, 1, d));
	}
	munmap(ro, pg);
	munmap(nowhere, 2 * pg);
}

/* Every command, given no argument or one that cannot be read. */
static void args_unreachable(struct __test_metadata *_metadata, struct queue_self *self)
{
	static const struct named_cmd cmds[] = {
		NAMED_CMD(NEURON_IOCTL_DMA_ENG_INIT),
		NAMED_CMD(NEURON_IOCTL_DMA_QUEUE_INIT),
		NAMED_CMD(NEURON_IOCTL_DMA_QUEUE_INIT_BATCH),
		NAMED_CMD(NEURON_IOCTL_DMA_QUEUE_RELEASE),
		NAMED_CMD(NEURON_IOCTL_DMA_QUEUE_COPY_START),
		NAMED_CMD(NEURON_IOCTL_DMA_ACK_COMPLETED),
		NAMED_CMD(NEURON_IOCTL_DMA_COPY_DESCRIPTORS),
		NAMED_CMD(NEURON_IOCTL_DMA_COPY_DESCRIPTORS64),
		NAMED_CMD(NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT),
	};
	void *nowhere = no_access();
	unsigned int i;

	ASSERT_NE(NULL, nowhere);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, NULL)) TH_LOG("%s", cmds[i].name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, nowhere))
			TH_LOG("%s", cmds[i].name);
	}
	munmap(nowhere, 2 * pg);
}

/*
 * Fork a child that talks to this process through two pipes: @up (the
 * child writes @up[1]) and @down (the child reads @down[0]).  Each side
 * keeps only its own ends.
 */
static pid_t spawn_piped(struct __test_metadata *_metadata, struct queue_self *self, int *up,
			 int *down)
{
	pid_t child;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	close(child ? up[1] : up[0]);
	close(child ? down[0] : down[1]);
	return child;
}

/*
 * The other process of bad_input: its own chunks (it sends a ring's
 * handle and where a host and a device chunk are) and queue FOREIGN_Q,
 * which it releases once it has checked that queue FOREIGN_Q + 1, the
 * parent's by then, is not its to use.  Its exit status: failures.
 */
static int foreign_child(const struct queue_self *self, int up, int down)
{
	int cfd = open_node(self->index, O_RDWR), fails = 0, op;
	__u64 v[3] = { 0, 0, 0 }, rx = 0, d = 0;

	CHILD_CHECK(cfd >= 0);
	CHILD_CHECK(alloc_host(cfd, pg, &v[0]) == 0);
	CHILD_CHECK(alloc_host(cfd, pg, &rx) == 0);
	CHILD_CHECK(alloc_dev(cfd, pg, 0, &d) == 0);
	CHILD_CHECK(get_pa(cfd, rx, &v[1]) == 0);
	CHILD_CHECK(get_pa(cfd, d, &v[2]) == 0);
	CHILD_CHECK(q_init(cfd, qi(FOREIGN_ENG, FOREIGN_Q, RING_MIN, RING_MIN, v[0], rx)) == 0);
	if (fails)
		return child_status(fails);
	CHILD_CHECK(put_u64s(up, v, 3) == 0);

	/* The parent has its queue on the same engine. */
	CHILD_CHECK(wait_byte(down) == 0);
	for (op = 0; op < NQOPS; op++)
		CHILD_CHECK(qop(cfd, op, FOREIGN_ENG, FOREIGN_Q + 1, v[0], rx) == -EBUSY);
	CHILD_CHECK(eng_init(cfd, FOREIGN_ENG) == -EBUSY);
	CHILD_CHECK(q_release(cfd, FOREIGN_ENG, FOREIGN_Q) == 0);
	CHILD_CHECK(q_start(cfd, FOREIGN_ENG, FOREIGN_Q, 0, 0) == -EINVAL);
	CHILD_CHECK(signal_byte(up) == 0);

	/* And now the one this process released. */
	CHILD_CHECK(wait_byte(down) == 0);
	CHILD_CHECK(qop(cfd, QOP_INIT, FOREIGN_ENG, FOREIGN_Q, v[0], rx) == -EBUSY);
	CHILD_CHECK(q_start(cfd, FOREIGN_ENG, FOREIGN_Q, 0, 0) == -EBUSY);
	close(cfd);
	return child_status(fails);
}

/* Another process's queue, and this one's from there. */
static void foreign_queues(struct __test_metadata *_metadata, struct queue_self *self,
			   const struct kit *k, pid_t child, int up, int down)
{
	struct neuron_ioctl_dma_queue_init_batch *b = calloc(1, sizeof(*b));
	struct neuron_dma_queue_state st[2];
	int op, t;

	ASSERT_NE(NULL, b);
	for (op = 0; op < NQOPS; op++)
		expect_is(_metadata, -EBUSY,
			  qop(self->fd, op, FOREIGN_ENG, FOREIGN_Q, k->one.h, k->one.h),
			  "%s of another process's queue", qop_name[op]);
	EXPECT_EQ(-EBUSY, eng_init(self->fd, FOREIGN_ENG));
	EXPECT_EQ(-EBUSY, eng_set(self->fd, FOREIGN_ENG, NEURON_DMA_ENG_ABORT));
	EXPECT_EQ(-EBUSY, eng_set(self->fd, FOREIGN_ENG, NEURON_DMA_ENG_DISABLE));
	/* Its rings are not this process's either. */
	EXPECT_EQ(-EINVAL, q_init(self->fd, qi(FOREIGN_ENG, FOREIGN_Q + 2, RING_MIN, RING_MIN,
					       k->theirs[0], k->one.h)));
	/* A batch naming it changes nothing, its other entries included. */
	b->count = 2;
	b->entries[0] = qi(FOREIGN_ENG, FOREIGN_Q + 1, RING_MIN, RING_MIN, k->one.h, k->one.h);
	b->entries[1] = qi(FOREIGN_ENG, FOREIGN_Q, RING_MIN, RING_MIN, k->one.h, k->one.h);
	EXPECT_EQ(-EBUSY, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	EXPECT_EQ(-EINVAL, q_start(self->fd, FOREIGN_ENG, FOREIGN_Q + 1, 0, 0));
	/* Another queue of the engine is this process's to initialise. */
	b->count = 1;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, b));
	EXPECT_EQ(0, q_start(self->fd, FOREIGN_ENG, FOREIGN_Q + 1, 0, 0));
	free(b);
	/* GET_STATE shows this process its own rings, and nobody else's. */
	ASSERT_EQ(0, q_state(self->fd, FOREIGN_ENG, FOREIGN_Q + 1, st));
	for (t = 0; t < 2; t++)
		EXPECT_EQ(k->one.pa, st[t].base_addr) TH_LOG("own %s ring", t ? "RX" : "TX");
	ASSERT_EQ(0, q_state(self->fd, FOREIGN_ENG, FOREIGN_Q, st));
	for (t = 0; t < 2; t++) {
		const char *half = t ? "RX" : "TX";

		EXPECT_EQ(RING_MIN, st[t].length) TH_LOG("another process's %s ring", half);
		EXPECT_EQ(0, st[t].base_addr) TH_LOG("another process's %s ring", half);
	}

	ASSERT_EQ(0, signal_byte(down));
	ASSERT_EQ(0, wait_byte(up)) TH_LOG("the other process did not release its queue");
	/* Released by its owner: nobody's, then this process's. */
	EXPECT_EQ(-EINVAL, q_start(self->fd, FOREIGN_ENG, FOREIGN_Q, 0, 0));
	EXPECT_EQ(0, q_init(self->fd, qi(FOREIGN_ENG, FOREIGN_Q, RING_MIN, RING_MIN, k->one.h,
					 k->one.h)));
	ASSERT_EQ(0, signal_byte(down));
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(0, eng_init(self->fd, FOREIGN_ENG)) TH_LOG("only this process's queues left");
	EXPECT_EQ(0, q_release(self->fd, FOREIGN_ENG, FOREIGN_Q));
	EXPECT_EQ(0, q_release(self->fd, FOREIGN_ENG, FOREIGN_Q + 1));
}

/*
 * Every refused argument of every command.  Nothing refused reaches an
 * engine, and the engines still run afterwards.
 */
TEST_F_TIMEOUT(queue, bad_input, 300)
{
	struct uqueue s = { .eng = variant->g->user - 1, .qid = NQUEUES - 1 };
	long long before[NSTATS], after[NSTATS];
	struct chunk hg, dg, gone;
	int up[2], down[2];
	struct kit k;
	pid_t child;

	memset(&k, 0, sizeof(k));
	chunk_new(_metadata, self, &k.one, 1, pg, 0, 0);
	chunk_new(_metadata, self, &k.k64, 0, 65536, self->nhbm - 1, 0);
	chunk_new(_metadata, self, &k.big, 1, MIB + pg, 0, 1);
	chunk_new(_metadata, self, &k.rc, 1, 2 * pg, 0, 1);
	chunk_new(_metadata, self, &k.src, 1, 4 * pg, 0, 1);
	chunk_new(_metadata, self, &k.dst, 0, 4 * pg, 0, 1);
	ring_new(_metadata, self, &s.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &s.r[RX], RX, RING_MIN, 1, 0);
	/* Freed last: nothing allocated later can be where they were. */
	chunk_new(_metadata, self, &hg, 1, pg, 0, 0);
	chunk_new(_metadata, self, &dg, 0, pg, 0, 0);
	chunk_new(_metadata, self, &gone, 1, pg, 0, 0);
	k.hgone = hg.pa;
	k.dgone = dg.pa;
	k.gone = gone.h;
	chunk_free(_metadata, self, &hg);
	chunk_free(_metadata, self, &dg);
	chunk_free(_metadata, self, &gone);

	child = spawn_piped(_metadata, self, up, down);
	if (child == 0)
		_exit(foreign_child(self, up[1], down[0]));
	ASSERT_EQ(0, get_u64s(up[0], k.theirs, 3)) TH_LOG("the other process did not get going");
	kit_ranges(&k);

	ASSERT_EQ(0, sim_stats(before));
	ids_refused(_metadata, self, variant, &k);
	init_refused(_metadata, self, &k);
	shadow_budget(_metadata, self, &k);
	batch_refused(_metadata, self, variant, &k);
	descs_refused(_metadata, self, &k);
	args_unreachable(_metadata, self);
	ASSERT_EQ(0, sim_stats(after));
	EXPECT_EQ(before[ST_DESCS], after[ST_DESCS]) TH_LOG("an engine ran");
	EXPECT_EQ(before[ST_BYTES], after[ST_BYTES]) TH_LOG("an engine ran");

	queue_up(_metadata, self, &s);
	ack_copyout_refused(_metadata, self, &s);
	smuggled(_metadata, self, &k, &s);
	foreign_queues(_metadata, self, &k, child, up[0], down[1]);
	close(up[0]);
	close(down[1]);
	EXPECT_EQ(0, sim_stats(after));
	EXPECT_EQ(before[ST_ERRORS], after[ST_ERRORS]) TH_LOG("an engine failed");

	EXPECT_EQ(0, q_release(self->fd, s.eng, s.qid));
	ring_free(_metadata, self, &s.r[TX]);
	ring_free(_metadata, self, &s.r[RX]);
	chunk_free(_metadata, self, &k.one);
	chunk_free(_metadata, self, &k.k64);
	chunk_free(_metadata, self, &k.big);
	chunk_free(_metadata, self, &k.rc);
	chunk_free(_metadata, self, &k.src);
	chunk_free(_metadata, self, &k.dst);
	check_counts(_metadata, self->index, &self->start, "after the refused arguments");
}

/* ---- lifetime -------------------------------------------------------- */

/* The counters once they equal @want, or after about @ms. */
static struct mcount counts_settled(struct __test_metadata *_metadata, int index,
				    const struct mcount *want, int ms)
{
	struct mcount c;
	int i;

	for (i = 0; i <= ms / 20; i++) {
		c = counts_now(_metadata, index);
		if (!memcmp(&c, want, sizeof(c)))
			break;
		usleep(20000);
	}
	return c;
}

/*
 * Chunks addressed by started descriptors, and the rings, stay allocated
 * after MEM_FREE until the queue is released; a chunk only written into a
 * ring is not held.
 */
static void held(struct __test_metadata *_metadata, struct queue_self *self)
{
	struct uqueue q = { .eng = 0, .qid = 0 };
	long long before[NSTATS], after[NSTATS];
	struct mcount c0 = counts_now(_metadata, self->index), c1, now;
	struct chunk h, d, x;
	struct batch b;
	__u64 xsize;

	chunk_new(_metadata, self, &h, 1, 65536, 0, 1);
	chunk_new(_metadata, self, &d, 0, 65536, self->nhbm - 1, 1);
	chunk_new(_metadata, self, &x, 0, pg, 0, 0);
	ring_new(_metadata, self, &q.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &q.r[RX], RX, RING_MIN, 0, 0);
	queue_up(_metadata, self, &q);
	make_batch(&b, &q, &h, &d, 4, GATHER, 0);
	run_batch(_metadata, self, &q, &b, 0, "copies into chunks about to be freed");

	/* Written into the rings, never started: x is not held. */
	memset(&b, 0, sizeof(b));
	push(&b, &q, TX, h.pa, 64, DESC_FIRST | DESC_LAST);
	push(&b, &q, RX, x.pa, 64, 0);
	ASSERT_EQ(0, ring_write(self->fd, &q.r[TX], b.d[TX], 1));
	ASSERT_EQ(0, ring_write(self->fd, &q.r[RX], b.d[RX], 1));
	c1 = counts_now(_metadata, self->index);
	xsize = x.size;
	chunk_free(_metadata, self, &x);
	now = counts_now(_metadata, self->index);
	EXPECT_EQ(c1.device_bytes - (long long)xsize, now.device_bytes);
	EXPECT_EQ(c1.chunks - 1, now.chunks);
	EXPECT_EQ(c1.handles - 1, now.handles);

	/* Freed, but held by the queue: only the handles go. */
	c1 = now;
	chunk_free(_metadata, self, &h);
	chunk_free(_metadata, self, &d);
	ring_free(_metadata, self, &q.r[TX]);
	ring_free(_metadata, self, &q.r[RX]);
	now = counts_now(_metadata, self->index);
	EXPECT_EQ(c1.host_bytes, now.host_bytes) TH_LOG("freed host memory a queue holds");
	EXPECT_EQ(c1.device_bytes, now.device_bytes) TH_LOG("freed device memory a queue holds");
	EXPECT_EQ(c1.chunks, now.chunks);
	EXPECT_EQ(c1.handles - 4, now.handles);

	/* Held is not owned: descriptors addressing freed chunks are refused. */
	ASSERT_EQ(0, sim_stats(before));
	EXPECT_EQ(-EINVAL, q_start(self->fd, q.eng, q.qid, 1, 1));
	ASSERT_EQ(0, sim_stats(after));
	EXPECT_EQ(before[ST_BYTES], after[ST_BYTES]);

	EXPECT_EQ(0, q_release(self->fd, q.eng, q.qid));
	check_counts(_metadata, self->index, &c0, "after DMA_QUEUE_RELEASE");
}

/* ---- Detach racing with DMA_QUEUE_INIT ---------------------------------- */

struct qinit_loop {
	int fd;		/* the parent's file: the gate checks this process */
	__u64 txh, rxh;
	unsigned int inits;
};

static void *qinit_thread(void *arg)
{
	struct qinit_loop *l = arg;
	long ret;

	/* Until the gate refuses the process: it detached. */
	do {
		ret = q_init(l->fd, qi(0, 1, RING_MIN, RING_MIN, l->txh, l->rxh));
		if (!ret) {
			l->inits++;
			q_release(l->fd, 0, 1);
		}
	} while (ret != -EACCES);
	return NULL;
}

/*
 * A child: a thread initialises and releases queue 1 of engine 0, with
 * rings of its own, through the parent's file @pfd (inherited), while the
 * child closes the file it attached with after @delay_us.
 */
static int qinit_leaver(const struct queue_self *self, int pfd, unsigned int delay_us)
{
	struct qinit_loop l = { .fd = pfd };
	int own = open_node(self->index, O_RDWR);
	pthread_t t;

	if (own < 0 || alloc_host(own, RING_MIN * DESC_SIZE, &l.txh) ||
	    alloc_host(own, RING_MIN * DESC_SIZE, &l.rxh) ||
	    pthread_create(&t, NULL, qinit_thread, &l))
		return 100;
	usleep(delay_us);
	close(own);
	pthread_join(t, NULL);
	return 0;
}

/*
 * Processes that detach while a thread of theirs initialises a queue (a
 * race, tried for a few seconds): after each, the queue is free for this
 * process, so no queue was left owned by a detached process.
 */
static void queue_detach_race(struct __test_metadata *_metadata, struct queue_self *self)
{
	struct uqueue q = { .eng = 0, .qid = 1 };
	long end = nt_now_ms() + 3000;
	pid_t child;
	int i;

	ring_new(_metadata, self, &q.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &q.r[RX], RX, RING_MIN, 1, 0);
	for (i = 0; i < 300 && nt_now_ms() < end; i++) {
		child = spawn(_metadata, &self->undo);
		if (!child)
			_exit(qinit_leaver(self, self->fd, rnd() % 3000));
		EXPECT_EQ(0, reap(&self->undo, child));
		EXPECT_EQ(0, q_init(self->fd, qi(q.eng, q.qid, RING_MIN, RING_MIN, q.r[TX].c.h,
						 q.r[RX].c.h))) {
			TH_LOG("round %d: a detached process kept its queue", i);
			break;
		}
		EXPECT_EQ(0, q_release(self->fd, q.eng, q.qid));
	}
	TH_LOG("%d processes detached while initialising a queue", i);
	ring_free(_metadata, self, &q.r[TX]);
	ring_free(_metadata, self, &q.r[RX]);
}

/*
 * A queue released while its engine runs but has not completed what the
 * queue started (held back by the simulator's dma_stall): the release
 * waits for it (at most 250 ms), then succeeds, but the queue is dead: its
 * shadow rings and the chunks it holds stay (the engine may still use
 * them) and nobody can initialise it again.  The engine, let go, copies
 * into chunks that are still there.  Removing the device lets everything
 * go; it is created again for the teardown's accounting.
 */
static void dead_queue(struct __test_metadata *_metadata, struct queue_self *self,
		       const struct queue_variant *variant)
{
	struct uqueue q = { .eng = 1, .qid = 3 };
	long long shadow, before[NSTATS], after[NSTATS];
	struct mcount c0, now;
	struct chunk h, d;
	struct batch b;
	long t;

	chunk_new(_metadata, self, &h, 1, 65536, 0, 1);
	chunk_new(_metadata, self, &d, 0, 65536, self->nhbm - 1, 1);
	ring_new(_metadata, self, &q.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &q.r[RX], RX, RING_MIN, 1, 0);
	queue_up(_metadata, self, &q);
	c0 = counts_now(_metadata, self->index);
	shadow = shadow_bytes(self->index);
	EXPECT_EQ(2 * RING_MIN * DESC_SIZE, shadow);
	memset(&b, 0, sizeof(b));
	push(&b, &q, TX, h.pa, 4096, DESC_FIRST | DESC_LAST);
	push(&b, &q, RX, d.pa, 4096, 0);
	ASSERT_EQ(0, ring_write(self->fd, &q.r[TX], b.d[TX], 1));
	ASSERT_EQ(0, ring_write(self->fd, &q.r[RX], b.d[RX], 1));
	ASSERT_EQ(0, sim_write("dma_stall", "1"));
	ASSERT_EQ(0, q_start(self->fd, q.eng, q.qid, 1, 1));

	t = nt_now_ms();
	EXPECT_EQ(0, q_release(self->fd, q.eng, q.qid));
	t = nt_now_ms() - t;
	EXPECT_LE(200, t) TH_LOG("released after %ld ms: no wait for the engine", t);
	EXPECT_EQ(1, dma_stat(self->index, "dead_queues"));
	EXPECT_EQ(shadow, shadow_bytes(self->index)) TH_LOG("a dead queue's shadow rings went");
	expect_is(_metadata, -EBUSY,
		  q_init(self->fd, qi(q.eng, q.qid, RING_MIN, RING_MIN, q.r[TX].c.h,
				      q.r[RX].c.h)), "DMA_QUEUE_INIT of a dead queue");
	/* Freed, the chunks it holds stay: only the handles go. */
	chunk_free(_metadata, self, &h);
	chunk_free(_metadata, self, &d);
	ring_free(_metadata, self, &q.r[TX]);
	ring_free(_metadata, self, &q.r[RX]);
	now = counts_now(_metadata, self->index);
	EXPECT_EQ(c0.chunks, now.chunks) TH_LOG("a dead queue's chunks went");
	EXPECT_EQ(c0.host_bytes, now.host_bytes);
	EXPECT_EQ(c0.device_bytes, now.device_bytes);
	EXPECT_EQ(c0.handles - 4, now.handles);

	/* Let go, the engine copies into chunks that are still there. */
	ASSERT_EQ(0, sim_stats(before));
	ASSERT_EQ(0, sim_write("dma_stall", "0"));
	ASSERT_EQ(0, sim_stats(after));
	EXPECT_EQ(before[ST_ERRORS], after[ST_ERRORS]);
	EXPECT_LE(before[ST_BYTES] + 4096, after[ST_BYTES]) TH_LOG("the copy did not run");

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, nt_sim_del(DEV));
	sim_device_back(_metadata, DEV, variant->g->gen, self->index, SETTLE_MS, &self->fd,
			&self->start);
}

/*
 * The child of exits(): queues @e1/@q1 and @e2/@q2, a copy started on the
 * first, every handle freed; then it exits with its queues as they are
 * (@killed: it waits to be killed).  Its exit status: failures.
 */
static int exit_child(const struct queue_self *self, __u32 e1, __u32 q1, __u32 e2, __u32 q2,
		      int up, int down, int killed)
{
	int cfd = open_node(self->index, O_RDWR), fails = 0;
	__u64 h[4] = { 0, 0, 0, 0 }, hpa = 0, dpa = 0;
	struct desc t, r;
	int i;

	CHILD_CHECK(cfd >= 0);
	CHILD_CHECK(alloc_host(cfd, pg, &h[0]) == 0);
	CHILD_CHECK(alloc_dev(cfd, pg, 0, &h[1]) == 0);
	CHILD_CHECK(alloc_host(cfd, 4 * pg, &h[2]) == 0);
	CHILD_CHECK(alloc_dev(cfd, 4 * pg, 0, &h[3]) == 0);
	CHILD_CHECK(get_pa(cfd, h[2], &hpa) == 0);
	CHILD_CHECK(get_pa(cfd, h[3], &dpa) == 0);
	CHILD_CHECK(q_init(cfd, qi(e1, q1, RING_MIN, RING_MIN, h[0], h[1])) == 0);
	CHILD_CHECK(q_init(cfd, qi(e2, q2, RING_MIN, RING_MIN, h[1], h[0])) == 0);
	t = desc(1, hpa, 4 * pg, 1, DESC_FIRST | DESC_LAST);
	r = desc(0, dpa, 4 * pg, 1, 0);
	CHILD_CHECK(put_descs(cfd, 0, h[0], &t, 1, 0, TX) == 0);
	CHILD_CHECK(put_descs(cfd, 1, h[1], &r, 1, 0, RX) == 0);
	CHILD_CHECK(q_start(cfd, e1, q1, 1, 1) == 0);
	for (i = 0; i < 4; i++)
		CHILD_CHECK(mem_free(cfd, h[i]) == 0);
	if (fails)
		return child_status(fails);
	CHILD_CHECK(signal_byte(up) == 0);
	if (killed)
		pause();
	CHILD_CHECK(wait_byte(down) == 0);
	return child_status(fails);
}

/*
 * A process with queues and held chunks exits (@killed: is killed): its
 * queues are released, its memory comes back, the queues and engines are
 * free for others.
 */
static void exits(struct __test_metadata *_metadata, struct queue_self *self,
		  const struct queue_variant *variant, int killed)
{
	const char *how = killed ? "killed" : "exited";
	struct uqueue q = { .eng = 0, .qid = 1 };
	const __u32 e2 = variant->g->user - 1, q2 = 2;
	struct mcount c0, during, now;
	int up[2], down[2], st;
	struct chunk h, d;
	struct batch b;
	pid_t child;

	chunk_new(_metadata, self, &h, 1, 4 * pg, 0, 1);
	chunk_new(_metadata, self, &d, 0, 4 * pg, 0, 1);
	ring_new(_metadata, self, &q.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &q.r[RX], RX, RING_MIN, 1, 0);
	c0 = counts_now(_metadata, self->index);
	child = spawn_piped(_metadata, self, up, down);
	if (child == 0)
		_exit(exit_child(self, q.eng, q.qid, e2, q2, up[1], down[0], killed));
	ASSERT_EQ(0, wait_byte(up[0])) TH_LOG("the child did not get going");
	during = counts_now(_metadata, self->index);
	EXPECT_LT(c0.host_bytes, during.host_bytes) TH_LOG("host memory its queue holds");
	EXPECT_LT(c0.device_bytes, during.device_bytes) TH_LOG("device memory its queue holds");
	EXPECT_EQ(c0.handles, during.handles);
	EXPECT_EQ(-EBUSY, q_init(self->fd, qi(q.eng, q.qid, RING_MIN, RING_MIN, q.r[TX].c.h,
					      q.r[RX].c.h)));
	EXPECT_EQ(-EBUSY, eng_init(self->fd, q.eng));
	EXPECT_EQ(-EBUSY, eng_init(self->fd, e2));

	ASSERT_EQ(0, killed ? kill(child, SIGKILL) : signal_byte(down[1]));
	st = reap(&self->undo, child);
	EXPECT_EQ(killed ? 128 + SIGKILL : 0, st) TH_LOG("the child %s", how);
	close(up[0]);
	close(down[1]);
	now = counts_settled(_metadata, self->index, &c0, 2000);
	EXPECT_EQ(0, memcmp(&c0, &now, sizeof(now))) {
		TH_LOG("child %s: host %lld device %lld chunks %lld, want %lld %lld %lld", how,
		       now.host_bytes, now.device_bytes, now.chunks, c0.host_bytes,
		       c0.device_bytes, c0.chunks);
	}

	/* Its queues and engines are this process's to use. */
	EXPECT_EQ(0, eng_init(self->fd, q.eng));
	EXPECT_EQ(0, eng_init(self->fd, e2));
	EXPECT_EQ(0, q_init(self->fd, qi(e2, q2, RING_MIN, RING_MIN, q.r[RX].c.h, q.r[TX].c.h)));
	EXPECT_EQ(0, q_release(self->fd, e2, q2));
	queue_up(_metadata, self, &q);
	make_batch(&b, &q, &h, &d, NWIN, SCATTER, 0);
	run_batch(_metadata, self, &q, &b, RUN_EXACT, how);
	EXPECT_EQ(0, q_release(self->fd, q.eng, q.qid));
	ring_free(_metadata, self, &q.r[TX]);
	ring_free(_metadata, self, &q.r[RX]);
	chunk_free(_metadata, self, &h);
	chunk_free(_metadata, self, &d);
}

/*
 * @q was made stale by a reset (@why): COPY_START (of descriptors that
 * are in its rings, and of none), ACK_COMPLETED and DESCRIPTOR_COPYOUT
 * fail with -ESTALE, and neither a doorbell nor a byte reaches an engine.
 */
static void stale_refused(struct __test_metadata *_metadata, struct queue_self *self,
			  struct uqueue *q, struct chunk *h, struct chunk *d, const char *why)
{
	long long before[NSTATS], after[NSTATS], rung = doorbells(q->eng);
	struct desc got[2];
	struct batch b;
	int t;

	ASSERT_LE(0, rung) TH_LOG("%s: the simulator's dma_doorbells", why);
	make_batch(&b, q, h, d, 2, NSHAPES, 0);
	for (t = 0; t < 2; t++) {
		ASSERT_EQ(0, ring_write(self->fd, &q->r[t], b.d[t], b.n[t])) {
			TH_LOG("%s: DMA_COPY_DESCRIPTORS %s", why, tname[t]);
		}
	}
	ASSERT_EQ(0, sim_stats(before));
	EXPECT_EQ(-ESTALE, q_start(self->fd, q->eng, q->qid, b.n[TX], b.n[RX]))
		TH_LOG("%s: COPY_START on engine %u queue %u", why, q->eng, q->qid);
	EXPECT_EQ(-ESTALE, q_start(self->fd, q->eng, q->qid, 0, 0)) TH_LOG("%s", why);
	EXPECT_EQ(-ESTALE, q_ack(self->fd, q->eng, q->qid, 0)) TH_LOG("%s: ACK", why);
	for (t = 0; t < 2; t++) {
		EXPECT_EQ(-ESTALE, q_copyout(self->fd, q->eng, q->qid, t, 0, 2, got))
			TH_LOG("%s: DESCRIPTOR_COPYOUT %s", why, tname[t]);
	}
	EXPECT_EQ(rung, doorbells(q->eng)) TH_LOG("%s: a doorbell rang on a stale queue", why);
	ASSERT_EQ(0, sim_stats(after));
	EXPECT_EQ(before[ST_DESCS], after[ST_DESCS]) TH_LOG("%s: descriptors ran", why);
	EXPECT_EQ(before[ST_BYTES], after[ST_BYTES]) TH_LOG("%s: bytes moved", why);
}

/* @q is set up again (DMA_QUEUE_INIT, after DMA_QUEUE_RELEASE with @release) and copies run. */
static void stale_renewed(struct __test_metadata *_metadata, struct queue_self *self,
			  struct uqueue *q, struct chunk *h, struct chunk *d, int release,
			  const char *why)
{
	struct batch b;

	if (release) {
		EXPECT_EQ(0, q_release(self->fd, q->eng, q->qid)) TH_LOG("%s: RELEASE", why);
		EXPECT_EQ(-EINVAL, q_release(self->fd, q->eng, q->qid)) TH_LOG("%s", why);
	}
	queue_up(_metadata, self, q);
	make_batch(&b, q, h, d, NWIN, ONE_TO_ONE, 0);
	run_batch(_metadata, self, q, &b, RUN_EXACT, why);
	EXPECT_TRUE(engine_runs(self->fd, q->eng)) TH_LOG("%s", why);
}

/*
 * A queue on an engine of the last core and one on an engine of core 0,
 * each with a copy done.  A reset of the last core makes the first stale
 * (its shadow rings go at once), not the second; a reset of the device
 * makes both stale.  Each stale queue is refused, then set up again.
 */
static void resets(struct __test_metadata *_metadata, struct queue_self *self,
		   const struct queue_variant *variant)
{
	const unsigned int per = variant->g->user / variant->g->ncs;
	struct uqueue q = { .eng = variant->g->user - 1, .qid = 3 };
	struct uqueue o = { .eng = 0, .qid = 3 };
	const long long one = 2 * RING_MIN * DESC_SIZE;	/* shadow bytes of a queue */
	struct chunk h, d;
	struct batch b;
	__u8 ready = 7;

	chunk_new(_metadata, self, &h, 1, 4 * pg, 0, 1);
	chunk_new(_metadata, self, &d, 0, 4 * pg, 0, 1);
	ring_new(_metadata, self, &q.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &q.r[RX], RX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &o.r[TX], TX, RING_MIN, 1, 0);
	ring_new(_metadata, self, &o.r[RX], RX, RING_MIN, 1, 0);
	queue_up(_metadata, self, &q);
	queue_up(_metadata, self, &o);
	make_batch(&b, &q, &h, &d, NWIN, GATHER, 0);
	run_batch(_metadata, self, &q, &b, RUN_EXACT, "before the core reset");
	make_batch(&b, &o, &d, &h, NWIN, SCATTER, 0);
	run_batch(_metadata, self, &o, &b, RUN_EXACT, "before the core reset, core 0");
	EXPECT_EQ(2 * one, shadow_bytes(self->index));

	ASSERT_EQ(0, reset_cores(self->fd, 1U << (q.eng / per)))
		TH_LOG("NC_RESET of core %u", q.eng / per);
	EXPECT_EQ(one, shadow_bytes(self->index)) TH_LOG("shadow rings of the stale queue");
	stale_refused(_metadata, self, &q, &h, &d, "after the core reset");
	make_batch(&b, &o, &h, &d, NWIN, ONE_TO_ONE, 0);
	run_batch(_metadata, self, &o, &b, RUN_EXACT, "core 0 after the reset of another");
	stale_renewed(_metadata, self, &q, &h, &d, 1, "after the core reset");
	chunk_check_all(_metadata, self, &h, "after the core reset");
	chunk_check_all(_metadata, self, &d, "after the core reset");

	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, &ready));
	ASSERT_EQ(1, ready) TH_LOG("the device reset failed");
	EXPECT_EQ(0, shadow_bytes(self->index)) TH_LOG("shadow rings of the stale queues");
	stale_refused(_metadata, self, &q, &h, &d, "after the device reset");
	stale_refused(_metadata, self, &o, &h, &d, "after the device reset, core 0");
	stale_renewed(_metadata, self, &q, &h, &d, 1, "after the device reset");
	stale_renewed(_metadata, self, &o, &d, &h, 0, "after the device reset, core 0");
	chunk_check_all(_metadata, self, &h, "after the device reset");
	chunk_check_all(_metadata, self, &d, "after the device reset");

	EXPECT_EQ(0, q_release(self->fd, q.eng, q.qid));
	EXPECT_EQ(0, q_release(self->fd, o.eng, o.qid));
	ring_free(_metadata, self, &q.r[TX]);
	ring_free(_metadata, self, &q.r[RX]);
	ring_free(_metadata, self, &o.r[TX]);
	ring_free(_metadata, self, &o.r[RX]);
	chunk_free(_metadata, self, &h);
	chunk_free(_metadata, self, &d);
}

/*
 * Chunks a queue holds; queues of processes that exit and are killed;
 * queues a reset made stale; a queue released with its copy in flight.
 */
TEST_F_TIMEOUT(queue, lifetime, 300)
{
	held(_metadata, self);
	exits(_metadata, self, variant, 0);
	exits(_metadata, self, variant, 1);
	resets(_metadata, self, variant);
	queue_detach_race(_metadata, self);
	check_counts(_metadata, self->index, &self->start, "after the lifetime tests");
	dead_queue(_metadata, self, variant);
}

TEST_HARNESS_MAIN
