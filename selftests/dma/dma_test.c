// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the DMA commands of /dev/neuronN on simulated v2, v3 and v4
 * devices: copies between user buffers and device memory (MEM_BUF_COPY),
 * between any two chunks (MEM_COPY), fills (MEMSET), asynchronous copies
 * and their waits (MEM_COPY_ASYNC, MEM_COPY_ASYNC_WAIT), the engine and
 * queue state queries, every refused argument, engine faults and timeouts
 * (the simulator's dma_stall and dma_abort switches), a process killed
 * while its copy is held back, copy queues, batched zero-copy transfers,
 * synchronous and asynchronous (completion queues), PROGRAM_ENGINE and the
 * HBM scrub.
 *
 * Each test loads neuron_core and neuron_sim (or keeps them from the test
 * before), creates one simulated device with 128 MiB of device memory (512
 * MiB for the tests of big_mem_tests[], so that 64 MiB chunks fit on every
 * channel: in the debug kernel under emulation, the simulator takes seconds
 * to allocate and zero that much for each test), opens it and reads the
 * device's memory counters from debugfs.  Its teardown clears the
 * simulator's fault switches, puts back the parameters the test changed,
 * closes everything the test made, checks that the counters return to
 * where they started (waiting a little: cleaning up after held-back copies
 * may take a while) and removes the device.
 *
 * Data is random (xorshift, the seed is logged) and checked byte for byte
 * against a shadow of every chunk, read back with MEM_BUF_COPY64 and
 * through a mapping of the chunk, which involves no DMA at all.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures, print them on stderr and report the count as their exit status.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
/* Simulator id of the device under test: its routing id and index. */
#define DEV		5
#define SIM_DEBUGFS	"/sys/kernel/debug/neuron_sim/neuron_sim%d/%s"
#define DMA_TIMEOUT	"/sys/module/neuron_udma/parameters/dma_timeout_ms"
#define DMA_MODE	"/sys/module/neuron_sim/parameters/dma_mode"
#define MAX_HBM		4
#define NQUEUES		16
#define MIB		(1024ULL * 1024)
/* Bytes of a completion queue of asynchronous zero-copy transfers. */
#define CQ_ENTRIES	1024
#define CQ_BYTES	(sizeof(neuron_h2d_dma_compl_queue_t) + \
			 CQ_ENTRIES * sizeof(neuron_h2d_dma_compl_queue_entry_t))
/* Longest wait for a transfer's completion entry. */
#define CQ_WAIT_MS	20000
/* Longest wait, on top of dma_timeout_ms, for released memory to show in the counters. */
#define RELEASE_MS	5000

#define H_NONE		((__u32)NEURON_DMA_H2T_CTX_HANDLE_NONE)
#define H_ASYNC1	((__u32)NEURON_DMA_H2T_CTX_HANDLE_ASYNC1)
#define H_ASYNC2	((__u32)NEURON_DMA_H2T_CTX_HANDLE_ASYNC2)

/* Page size, set by the fixture. */
static size_t pg;

/* Bytes where @a and @b differ; *@first is the first of them. */
static size_t differs(const unsigned char *a, const unsigned char *b, size_t n, size_t *first)
{
	size_t i, bad = 0;

	*first = 0;
	if (!memcmp(a, b, n))
		return 0;
	for (i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		if (!bad)
			*first = i;
		bad++;
	}
	return bad;
}

/* Bytes of @p that are not @c. */
static size_t not_byte(const unsigned char *p, unsigned char c, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		bad += p[i] != c;
	return bad;
}

/*
 * Two pages that can be neither read nor written.  Reserved (PROT_NONE)
 * rather than unmapped, so that no later mapping lands there.
 */
static void *no_access(void)
{
	void *p = mmap(NULL, 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* @n pages of anonymous memory, the last one (@first: the first one) inaccessible. */
static unsigned char *holey(size_t n, int first)
{
	unsigned char *p = mmap(NULL, n * pg, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x77, n * pg);
	if (mprotect(first ? p : p + (n - 1) * pg, pg, PROT_NONE)) {
		munmap(p, n * pg);
		return NULL;
	}
	return p;
}

/* Write @val to the simulated device's debugfs file @name; 0 or -errno. */
/* Thresholds of the CPU copies, while a fault switch turned them off. */
static struct cpu_copy_saved cpu_saved;

/*
 * Set a switch of the simulated device.  Arming a fault switch turns the
 * CPU copies off until the case ends: the faults are the engine's.
 */
static int sim_set(const char *name, const char *val)
{
	char path[128];

	if (strcmp(val, "0") && !strncmp(name, "dma_", 4) && cpu_copy_off(&cpu_saved))
		return -ENOENT;
	snprintf(path, sizeof(path), SIM_DEBUGFS, DEV, name);
	return nt_write(path, "%s", val);
}

/* The number in the simulated device's debugfs file @name, or -errno. */
static long long sim_get(const char *name)
{
	char buf[64];
	int ret = nt_read(buf, sizeof(buf), SIM_DEBUGFS, DEV, name);

	return ret ? ret : strtoll(buf, NULL, 10);
}

/* The simulator's engine counters. */
struct dstats {
	long long errors;
	long long descs;
	long long bytes;
};

static int dstats_read(struct dstats *s)
{
	s->errors = sim_get("dma_errors");
	s->descs = sim_get("dma_descs");
	s->bytes = sim_get("dma_bytes");
	return s->errors < 0 || s->descs < 0 || s->bytes < 0 ? -1 : 0;
}

static int set_timeout(int ms)
{
	return nt_write(DMA_TIMEOUT, "%d", ms);
}

/* MEM_COPY (32-bit size and offsets) or MEM_COPY64. */
static long mem_copy(int fd, int wide, __u64 src, __u64 dst, __u64 size, __u64 soff, __u64 doff)
{
	struct neuron_ioctl_mem_copy64 c64 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = size,
		.src_offset = soff, .dst_offset = doff,
	};
	struct neuron_ioctl_mem_copy c32 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = (__u32)size,
		.src_offset = (__u32)soff, .dst_offset = (__u32)doff,
	};

	if (wide)
		return xioctl(fd, NEURON_IOCTL_MEM_COPY64, &c64);
	return xioctl(fd, NEURON_IOCTL_MEM_COPY, &c32);
}

/* MEMSET (32-bit size) or MEMSET64. */
static long mem_set(int fd, int wide, __u64 h, __u64 off, __u32 value, __u64 size)
{
	struct neuron_ioctl_memset64 s64 = {
		.mem_handle = h, .offset = off, .value = value, .size = size,
	};
	struct neuron_ioctl_memset s32 = {
		.mem_handle = h, .offset = off, .value = value, .size = (__u32)size,
	};

	if (wide)
		return xioctl(fd, NEURON_IOCTL_MEMSET64, &s64);
	return xioctl(fd, NEURON_IOCTL_MEMSET, &s32);
}

/* MEM_COPY_ASYNC (32-bit size and offsets) or MEM_COPY_ASYNC64; *@wait gets wait_handle. */
static long copy_async(int fd, int wide, __u64 src, __u64 dst, __u64 size, __u64 soff,
		       __u64 doff, __u32 pwait, __u32 *wait)
{
	struct neuron_ioctl_mem_copy_async64 a64 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = size,
		.src_offset = soff, .dst_offset = doff, .pwait_handle = pwait,
		.wait_handle = 0xa5a5a5a5,
	};
	struct neuron_ioctl_mem_copy_async a32 = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = (__u32)size,
		.src_offset = (__u32)soff, .dst_offset = (__u32)doff, .pwait_handle = pwait,
		.wait_handle = 0xa5a5a5a5,
	};
	long ret;

	if (wide) {
		ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC64, &a64);
		*wait = a64.wait_handle;
	} else {
		ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC, &a32);
		*wait = a32.wait_handle;
	}
	return ret;
}

static long async_wait(int fd, __u64 src, __u64 dst, __u32 pwait)
{
	struct neuron_ioctl_mem_copy_async_wait a = {
		.src_mem_handle = src, .dst_mem_handle = dst, .pwait_handle = pwait,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC_WAIT, &a);
}

static long eng_state(int fd, __u32 eng, struct neuron_dma_eng_state *st)
{
	struct neuron_ioctl_dma_eng_get_state a = { .eng_id = eng, .state = st };

	return xioctl(fd, NEURON_IOCTL_DMA_ENG_GET_STATE, &a);
}

static long queue_state(int fd, __u32 eng, __u32 qid, struct neuron_dma_queue_state *tx,
			struct neuron_dma_queue_state *rx)
{
	struct neuron_ioctl_dma_queue_get_state a = {
		.eng_id = eng, .qid = qid, .tx = tx, .rx = rx,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_GET_STATE, &a);
}

/* Whether @n values arrive on @fd within @ms. */
static int get_u64s_within(int fd, __u64 *v, int n, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return 0;
	return !get_u64s(fd, v, n);
}

FIXTURE(dma) {
	int fd;		/* normal file (O_RDWR): this process is attached */
	int index;
	int nhbm;	/* device memory channels */
	int counted;	/* @start holds the counters at the start */
	struct mcount start;
	struct undo undo;	/* children and mappings */
	char timeout[32];	/* dma_timeout_ms as loaded; the teardown puts it back */
	long t0;		/* ms, when the setup started */
	char buf[256];
};

FIXTURE_VARIANT(dma) {
	const struct nt_gen *g;
};

FIXTURE_VARIANT_ADD(dma, v2) { .g = &nt_gen_v2 };
FIXTURE_VARIANT_ADD(dma, v3) { .g = &nt_gen_v3 };
FIXTURE_VARIANT_ADD(dma, v4) { .g = &nt_gen_v4 };

/* The types the harness gives a fixture's data and variant. */
#define dma_self	_test_data_dma
#define dma_variant	_fixture_variant_dma

/*
 * The tests that need 64 MiB chunks on every channel, or (hbm_scrub) a
 * channel's memory all but a chunk free.
 */
static const char * const big_mem_tests[] = { "integrity", "removal_bounded", "hbm_scrub" };

static bool big_mem(const char *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(big_mem_tests); i++)
		if (!strcmp(test, big_mem_tests[i]))
			return true;
	return false;
}

FIXTURE_SETUP(dma)
{
	char spec[32];

	self->t0 = nt_now_ms();
	self->fd = -1;
	self->counted = 0;
	self->timeout[0] = 0;
	memset(&self->undo, 0, sizeof(self->undo));
	pg = sysconf(_SC_PAGESIZE);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());

	snprintf(spec, sizeof(spec), "%s mem=%s", variant->g->gen,
		 big_mem(_metadata->name) ? "512M" : "128M");
	self->index = sim_device_up(_metadata, DEV, spec, "", SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	if (nt_read(self->timeout, sizeof(self->timeout), DMA_TIMEOUT))
		self->timeout[0] = 0;
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mcount_read(self->index, &self->start));
	self->counted = 1;
	self->nhbm = count_channels(_metadata, self->fd);
	ASSERT_EQ(variant->g->nhbm, self->nhbm);
	ASSERT_GE(MAX_HBM, self->nhbm);
}

FIXTURE_TEARDOWN(dma)
{
	struct mcount now;

	kill_kids(&self->undo);
	/* Nothing held back or armed any more; the parameters as loaded. */
	if (nt_exists(SIM_DEBUGFS, DEV, "dma_stall")) {
		sim_set("dma_busy_after_disable", "0");
		sim_set("dma_stall", "0");
		sim_set("dma_abort", "0");
	}
	EXPECT_EQ(0, cpu_copy_restore(&cpu_saved));
	if (nt_exists(DMA_MODE))
		nt_write(DMA_MODE, "sync");
	if (self->timeout[0])
		nt_write(DMA_TIMEOUT, "%s", self->timeout);
	unmap_all(&self->undo);
	if (self->fd >= 0)
		close(self->fd);
	/* Everything the test made is gone: so is its memory. */
	if (self->counted) {
		mcount_reach(self->index, &self->start, RELEASE_MS);
		EXPECT_EQ(0, mcount_read(self->index, &now));
		expect_counts(_metadata, &self->start, &now);
	}
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/*
 * A chunk the test tracks: what it must hold (@shadow) and a shared mapping
 * of all of it, which shows the memory without any DMA.
 */
struct tchunk {
	__u64 h;
	__u64 pa;
	__u64 size;
	int host;
	char name[16];
	unsigned char *shadow;
	unsigned char *map;
};

/* New random contents for all of @t, written with MEM_BUF_COPY64. */
static void tc_fill(struct __test_metadata *_metadata, struct dma_self *self, struct tchunk *t)
{
	rnd_fill(t->shadow, t->size);
	ASSERT_EQ(0, buf_copy(self->fd, 1, t->h, t->shadow, t->size, 0, 1)) {
		TH_LOG("filling the %s chunk (%llu bytes)", t->name, (unsigned long long)t->size);
	}
}

/* MEM_ALLOC_V2 of device memory for core @nc on @channel. */
static long alloc_dev_nc(int fd, __u64 size, __u32 channel, __u32 nc, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2 a = {
		.size = size, .dram_channel = channel, .nc_id = nc, .mem_handle = h,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a);
}

/*
 * Allocate @size bytes (host, or device on @channel) for core @nc, map
 * them, fill them.
 */
static void tc_new_nc(struct __test_metadata *_metadata, struct dma_self *self,
		      struct tchunk *t, int host, __u64 size, __u32 channel, __u32 nc)
{
	struct neuron_ioctl_mem_get_extended_info ei;
	long ret;

	memset(t, 0, sizeof(*t));
	t->host = host;
	if (host) {
		snprintf(t->name, sizeof(t->name), "host");
		ret = alloc_host(self->fd, size, &t->h);
	} else {
		snprintf(t->name, sizeof(t->name), "device ch%u", channel);
		ret = alloc_dev_nc(self->fd, size, channel, nc, &t->h);
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("%s chunk of %llu bytes", t->name, (unsigned long long)size);
	}
	ASSERT_EQ(0, ext_info(self->fd, t->h, &ei));
	t->pa = ei.pa;
	t->size = ei.size;
	ASSERT_EQ((size + pg - 1) / pg * pg, t->size);
	t->shadow = malloc(t->size);
	ASSERT_NE(NULL, t->shadow);
	t->map = map(&self->undo, self->fd, t->pa, t->size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, t->map) TH_LOG("%s chunk: %s", t->name, strerror(errno));
	tc_fill(_metadata, self, t);
}

/* Allocate @size bytes (host, or device on @channel), map them, fill them. */
static void tc_new(struct __test_metadata *_metadata, struct dma_self *self, struct tchunk *t,
		   int host, __u64 size, __u32 channel)
{
	tc_new_nc(_metadata, self, t, host, size, channel, 0);
}

static void tc_free(struct __test_metadata *_metadata, struct dma_self *self, struct tchunk *t)
{
	EXPECT_EQ(0, unmap(&self->undo, t->map, t->size));
	EXPECT_EQ(0, mem_free(self->fd, t->h));
	free(t->shadow);
	t->shadow = NULL;
}

/* All of @t holds its shadow: read back with MEM_BUF_COPY64, and through the mapping. */
static void tc_check(struct __test_metadata *_metadata, struct dma_self *self,
		     const struct tchunk *t, const char *where)
{
	unsigned char *got = calloc(1, t->size);
	size_t bad, first;

	ASSERT_NE(NULL, got);
	EXPECT_EQ(0, buf_copy(self->fd, 1, t->h, got, t->size, 0, 0)) {
		TH_LOG("%s: reading the %s chunk back", where, t->name);
	}
	bad = differs(got, t->shadow, t->size, &first);
	EXPECT_EQ(0, bad) {
		TH_LOG("%s: %s chunk read back: %zu of %llu bytes differ, the first at %zu", where,
		       t->name, bad, (unsigned long long)t->size, first);
	}
	bad = differs(t->map, t->shadow, t->size, &first);
	EXPECT_EQ(0, bad) {
		TH_LOG("%s: %s chunk mapped: %zu of %llu bytes differ, the first at %zu", where,
		       t->name, bad, (unsigned long long)t->size, first);
	}
	free(got);
}

/* [@off, @off + @len) of @t holds its shadow, seen through the mapping. */
static void tc_range(struct __test_metadata *_metadata, const struct tchunk *t, __u64 off,
		     __u64 len, const char *where)
{
	size_t bad, first;

	bad = differs(t->map + off, t->shadow + off, len, &first);
	EXPECT_EQ(0, bad) {
		TH_LOG("%s: %s chunk, %llu bytes at %llu: %zu differ, the first at %llu", where,
		       t->name, (unsigned long long)len, (unsigned long long)off, bad,
		       (unsigned long long)(off + first));
	}
}

/* MEM_COPY(64) of @len bytes from @s at @soff to @d at @doff; the shadow follows. */
static long tc_copy(struct __test_metadata *_metadata, struct dma_self *self, int wide,
		    const struct tchunk *s, __u64 soff, struct tchunk *d, __u64 doff, __u64 len)
{
	long ret = mem_copy(self->fd, wide, s->h, d->h, len, soff, doff);

	EXPECT_EQ(0, ret) {
		TH_LOG("%s of %llu bytes, %s chunk at %llu to %s chunk at %llu",
		       wide ? "MEM_COPY64" : "MEM_COPY", (unsigned long long)len, s->name,
		       (unsigned long long)soff, d->name, (unsigned long long)doff);
	}
	if (!ret)
		memmove(d->shadow + doff, s->shadow + soff, len);
	return ret;
}

/* MEM_COPY_ASYNC(64), as tc_copy(); *@wait gets the new copy's handle. */
static long tc_async(struct __test_metadata *_metadata, struct dma_self *self, int wide,
		     const struct tchunk *s, __u64 soff, struct tchunk *d, __u64 doff, __u64 len,
		     __u32 pwait, __u32 *wait)
{
	long ret = copy_async(self->fd, wide, s->h, d->h, len, soff, doff, pwait, wait);

	EXPECT_EQ(0, ret) {
		TH_LOG("%s of %llu bytes, %s chunk at %llu to %s chunk at %llu, pwait %d",
		       wide ? "MEM_COPY_ASYNC64" : "MEM_COPY_ASYNC", (unsigned long long)len,
		       s->name, (unsigned long long)soff, d->name, (unsigned long long)doff,
		       (int)pwait);
	}
	if (!ret)
		memmove(d->shadow + doff, s->shadow + soff, len);
	return ret;
}

/* An offset for @len bytes in @size: 0 end-exact, 1 at the start, else odd (unaligned). */
static __u64 pick_off(__u64 size, __u64 len, int how)
{
	__u64 room = size - len;

	if (how == 0 || !room)
		return room;
	if (how == 1)
		return 0;
	return (rnd() % room) | 1;
}

/* Two offsets of @len-byte ranges in @size that do not overlap; needs 2 * @len <= @size. */
static void pick_apart(__u64 size, __u64 len, __u64 *a, __u64 *b)
{
	__u64 half = size / 2, t;

	*a = rnd() % (half - len + 1);
	*b = half + rnd() % (size - half - len + 1);
	if (rnd() & 1) {
		t = *a;
		*a = *b;
		*b = t;
	}
}

/*
 * DMA_ENG_GET_STATE on every engine: revision 4, 16 queues of 16, both
 * halves idle, running or aborted.  Returns how many of the host engines
 * (the driver's copy channels) do not read running on both halves.
 */
static unsigned int engines_check(struct __test_metadata *_metadata, struct dma_self *self,
				  const struct dma_variant *variant, const char *where)
{
	struct neuron_dma_eng_state st;
	unsigned int e, stopped = 0, bad = 0;
	long ret;

	for (e = 0; e < variant->g->engines; e++) {
		memset(&st, 0xa5, sizeof(st));
		ret = eng_state(self->fd, e, &st);
		if (!ret && st.revision_id == 4 && st.max_queues == NQUEUES &&
		    st.num_queues == NQUEUES && st.tx_state >= NEURON_DMA_ENG_IDLE &&
		    st.tx_state <= NEURON_DMA_ENG_ABORT && st.rx_state >= NEURON_DMA_ENG_IDLE &&
		    st.rx_state <= NEURON_DMA_ENG_ABORT) {
			if (e >= variant->g->user && (st.tx_state != NEURON_DMA_ENG_NORMAL ||
						      st.rx_state != NEURON_DMA_ENG_NORMAL)) {
				TH_LOG("%s: host engine %u: tx %u, rx %u", where, e, st.tx_state,
				       st.rx_state);
				stopped++;
			}
			continue;
		}
		if (bad++ < 4)
			TH_LOG("%s: engine %u: %ld, revision %u, queues %u of %u, tx %u, rx %u",
			       where, e, ret, st.revision_id, st.num_queues, st.max_queues,
			       st.tx_state, st.rx_state);
	}
	EXPECT_EQ(0, bad) TH_LOG("%s: %u engines answer wrong", where, bad);
	return stopped;
}

/* The copy sizes of the integrity test (the 64 MiB one aside). */
static const __u64 sizes[] = {
	1, 3, 4095, 4096, 65535, 65536, 65537, MIB + 7, 4 * MIB,
};

/* 64 MiB, once: user buffer to device with BUF_COPY, back with BUF_COPY64. */
static void integrity_big(struct __test_metadata *_metadata, struct dma_self *self)
{
	const __u64 size = 64 * MIB;
	unsigned char *src, *back, *m;
	size_t bad, first;
	__u64 h, pa;
	long t;

	ASSERT_EQ(0, alloc_dev(self->fd, size, self->nhbm - 1, &h));
	ASSERT_EQ(0, get_pa(self->fd, h, &pa));
	src = malloc(size);
	back = calloc(1, size);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, back);
	rnd_fill(src, size);
	t = nt_now_ms();
	ASSERT_EQ(0, buf_copy(self->fd, 0, h, src, size, 0, 1));
	ASSERT_EQ(0, buf_copy(self->fd, 1, h, back, size, 0, 0));
	TH_LOG("64 MiB there and back: %ld ms", nt_now_ms() - t);
	bad = differs(back, src, size, &first);
	EXPECT_EQ(0, bad) TH_LOG("64 MiB read back: %zu bytes differ, first at %zu", bad, first);
	m = map(&self->undo, self->fd, pa, size, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m);
	bad = differs(m, src, size, &first);
	EXPECT_EQ(0, bad) TH_LOG("64 MiB mapped: %zu bytes differ, the first at %zu", bad, first);
	EXPECT_EQ(0, unmap(&self->undo, m, size));
	EXPECT_EQ(0, mem_free(self->fd, h));
	free(src);
	free(back);
	check_counts(_metadata, self->index, &self->start, "after 64 MiB");
}

/* User buffer to device and back, every size, both forms, unaligned and end-exact. */
static void integrity_buf(struct __test_metadata *_metadata, struct dma_self *self,
			  struct tchunk *d)
{
	unsigned char *in = malloc(4 * MIB + 16), *out = malloc(4 * MIB + 16), *p, *q;
	struct tchunk *t;
	__u64 len, off;
	unsigned int i;
	int wide, c;
	long ret;

	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		t = &d[i % self->nhbm];
		len = sizes[i];
		wide = i % 2;
		off = pick_off(t->size, len, i % 3);
		p = in + i % 8;
		q = out + (i + 3) % 8;
		rnd_fill(p, len);
		ret = buf_copy(self->fd, wide, t->h, p, len, off, 1);
		EXPECT_EQ(0, ret) {
			TH_LOG("%s of %llu bytes to the %s chunk at %llu",
			       wide ? "MEM_BUF_COPY64" : "MEM_BUF_COPY", (unsigned long long)len,
			       t->name, (unsigned long long)off);
		}
		if (!ret)
			memcpy(t->shadow + off, p, len);
		memset(q, 0, len);
		EXPECT_EQ(0, buf_copy(self->fd, !wide, t->h, q, len, off, 0));
		EXPECT_EQ(0, memcmp(p, q, len)) {
			TH_LOG("%llu bytes at %llu of the %s chunk: read back differs",
			       (unsigned long long)len, (unsigned long long)off, t->name);
		}
		if (len < 3)
			continue;
		/* Part of it, from one byte in. */
		memset(q, 0, len);
		EXPECT_EQ(0, buf_copy(self->fd, wide, t->h, q, len - 2, off + 1, 0));
		EXPECT_EQ(0, memcmp(p + 1, q, len - 2)) {
			TH_LOG("%llu bytes at %llu of the %s chunk: read back differs",
			       (unsigned long long)len - 2, (unsigned long long)off + 1, t->name);
		}
	}
	for (c = 0; c < self->nhbm; c++)
		tc_check(_metadata, self, &d[c], "after MEM_BUF_COPY");
	free(in);
	free(out);
}

/* MEM_BUF_ZEROCOPY64 (the same transfer as MEM_BUF_COPY64) of @len bytes. */
static long zerocopy(int fd, __u64 h, void *buf, __u64 len, __u64 off, int to_dev, int qid)
{
	struct neuron_ioctl_mem_buf_copy64zc a = {
		.mem_handle = h, .buffer = buf, .size = len, .offset = off,
		.is_copy_to_device = to_dev, .h2t_qid = qid,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64, &a);
}

/*
 * MEM_BUF_ZEROCOPY64 both ways on the default queue, named as -1 or as
 * core 0's default queue (0); a queue nobody claimed is ENOENT and changes
 * nothing.
 */
static void integrity_zerocopy(struct __test_metadata *_metadata, struct dma_self *self,
			       struct tchunk *t)
{
	const __u64 len = MIB + 7, off = 3;
	unsigned char *in = malloc(len), *out = malloc(len);

	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	rnd_fill(in, len);
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, t->h, in, len, off, 1, NQUEUES - 1));
	EXPECT_EQ(0, zerocopy(self->fd, t->h, in, len, off, 1, NEURON_DMA_H2T_DEFAULT_QID));
	memcpy(t->shadow + off, in, len);
	memset(out, 0, len);
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, t->h, out, len, off, 0, NQUEUES - 1));
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, t->h, out, len, off, 0, NQUEUES));
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, t->h, out, len, off, 0, -2));
	EXPECT_EQ(0, zerocopy(self->fd, t->h, out, len, off, 0, 0));
	EXPECT_EQ(0, memcmp(in, out, len));
	EXPECT_EQ(-EINVAL, zerocopy(self->fd, t->h, out, 1, t->size, 0,
				    NEURON_DMA_H2T_DEFAULT_QID));
	tc_check(_metadata, self, t, "after MEM_BUF_ZEROCOPY64");
	free(in);
	free(out);
}

/*
 * MEM_COPY and MEM_COPY64: host to device, device to device on the next
 * channel, device to host, and within one chunk, every size.
 */
static void integrity_copy(struct __test_metadata *_metadata, struct dma_self *self,
			   struct tchunk *h, struct tchunk *d)
{
	struct tchunk *a, *b;
	__u64 len, s, t;
	unsigned int i;
	int wide, c;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		a = &d[i % self->nhbm];
		b = &d[(i + 1) % self->nhbm];
		len = sizes[i];
		wide = i % 2;
		tc_copy(_metadata, self, wide, h, pick_off(h->size, len, i % 3),
			a, pick_off(a->size, len, (i + 1) % 3), len);
		tc_copy(_metadata, self, !wide, a, pick_off(a->size, len, (i + 2) % 3),
			b, pick_off(b->size, len, i % 3), len);
		tc_copy(_metadata, self, wide, b, pick_off(b->size, len, (i + 1) % 3),
			h, pick_off(h->size, len, (i + 2) % 3), len);
		if (2 * len <= b->size) {
			pick_apart(b->size, len, &s, &t);
			tc_copy(_metadata, self, !wide, b, s, b, t, len);
		}
		if (2 * len <= h->size) {
			pick_apart(h->size, len, &s, &t);
			tc_copy(_metadata, self, wide, h, s, h, t, len);
		}
	}
	tc_check(_metadata, self, h, "after MEM_COPY");
	for (c = 0; c < self->nhbm; c++)
		tc_check(_metadata, self, &d[c], "after MEM_COPY");
}

/* MEMSET and MEMSET64 on @t: only the range changes, to the value's low byte. */
static void memset_ranges(struct __test_metadata *_metadata, struct dma_self *self,
			  struct tchunk *t)
{
	const __u64 sz = t->size;
	const struct {
		__u64 off, size;
		__u32 value;
	} set[] = {
		{ 0, 1, 0x1a5 },
		{ 1, pg - 2, 0 },
		{ pg - 3, pg + 7, 0xff },
		{ 5, 2 * pg + 1, 0x12345678 },
		{ sz - 9, 9, 0x100 },
		{ pg, pg, 0xffffff3c },
		{ 0, sz, 0x1a5 },
	};
	unsigned int i;
	int wide;
	long ret;

	for (wide = 0; wide < 2; wide++) {
		for (i = 0; i < ARRAY_SIZE(set); i++) {
			tc_fill(_metadata, self, t);
			ret = mem_set(self->fd, wide, t->h, set[i].off, set[i].value, set[i].size);
			EXPECT_EQ(0, ret);
			if (!ret)
				memset(t->shadow + set[i].off, set[i].value & 0xff, set[i].size);
			snprintf(self->buf, sizeof(self->buf), "%s %#x on %llu bytes at %llu",
				 wide ? "MEMSET64" : "MEMSET", set[i].value,
				 (unsigned long long)set[i].size, (unsigned long long)set[i].off);
			tc_check(_metadata, self, t, self->buf);
		}
	}
}

/*
 * Chained asynchronous copies: each waits for the one before, the handles
 * alternate, and once a copy was waited for its data is there.
 */
static void async_chain(struct __test_metadata *_metadata, struct dma_self *self,
			const char *mode)
{
	static const __u32 bad_pwait[] = { 0, 3, 4, 0x7fffffff, 0x80000000, 0xfffffffe };
	static const __u32 bad_wait[] = { 0, 3, H_NONE, 0x80000000 };
	struct tchunk h, d1, d2;
	unsigned int i;
	__u32 wh;
	int wide;

	TH_LOG("dma_mode=%s", mode);
	tc_new(_metadata, self, &h, 1, MIB, 0);
	tc_new(_metadata, self, &d1, 0, MIB, 0);
	tc_new(_metadata, self, &d2, 0, MIB, self->nhbm - 1);

	/* 1: nothing to wait for, handle 1. */
	ASSERT_EQ(0, tc_async(_metadata, self, 0, &h, 5, &d1, 1000, 4099, H_NONE, &wh));
	EXPECT_EQ(H_ASYNC1, wh);
	/* 2: waits for 1, handle 2; copy 1 is complete. */
	ASSERT_EQ(0, tc_async(_metadata, self, 1, &h, 7, &d2, 9, 65537, H_ASYNC1, &wh));
	EXPECT_EQ(H_ASYNC2, wh);
	tc_range(_metadata, &d1, 1000, 4099, "copy 1, once copy 2 waited for it");
	/* 3: device to device, waits for 2, handle 1. */
	ASSERT_EQ(0, tc_async(_metadata, self, 0, &d1, 100, &d2, 70000, 12345, H_ASYNC2, &wh));
	EXPECT_EQ(H_ASYNC1, wh);
	tc_range(_metadata, &d2, 9, 65537, "copy 2, once copy 3 waited for it");
	EXPECT_EQ(0, async_wait(self->fd, d1.h, d2.h, H_ASYNC1));
	tc_range(_metadata, &d2, 70000, 12345, "copy 3 after MEM_COPY_ASYNC_WAIT");
	/* Nothing pending: the waits return at once. */
	EXPECT_EQ(0, async_wait(self->fd, d1.h, d2.h, H_ASYNC1));
	EXPECT_EQ(0, async_wait(self->fd, h.h, d2.h, H_ASYNC2));
	/* 4: device to host, waits for 2 (done long ago), handle 1. */
	ASSERT_EQ(0, tc_async(_metadata, self, 1, &d2, 3, &h, 11, 200000, H_ASYNC2, &wh));
	EXPECT_EQ(H_ASYNC1, wh);
	/* 5: nearly a whole chunk, waits for 4, handle 2. */
	ASSERT_EQ(0, tc_async(_metadata, self, 1, &d2, 13, &d1, 17, MIB - 40, H_ASYNC1, &wh));
	EXPECT_EQ(H_ASYNC2, wh);
	tc_range(_metadata, &h, 11, 200000, "copy 4, once copy 5 waited for it");
	EXPECT_EQ(0, async_wait(self->fd, d2.h, d1.h, H_ASYNC2));
	tc_range(_metadata, &d1, 17, MIB - 40, "copy 5 after MEM_COPY_ASYNC_WAIT");

	/* Other wait handles are refused, and copy nothing. */
	for (wide = 0; wide < 2; wide++) {
		for (i = 0; i < ARRAY_SIZE(bad_pwait); i++) {
			EXPECT_EQ(-EINVAL, copy_async(self->fd, wide, h.h, d1.h, 64, 0, 0,
						      bad_pwait[i], &wh))
				TH_LOG("pwait_handle %#x", bad_pwait[i]);
		}
	}
	for (i = 0; i < ARRAY_SIZE(bad_wait); i++) {
		EXPECT_EQ(-EINVAL, async_wait(self->fd, h.h, d1.h, bad_wait[i]))
			TH_LOG("MEM_COPY_ASYNC_WAIT of %#x", bad_wait[i]);
	}

	tc_check(_metadata, self, &h, mode);
	tc_check(_metadata, self, &d1, mode);
	tc_check(_metadata, self, &d2, mode);
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &d1);
	tc_free(_metadata, self, &d2);
	check_counts(_metadata, self->index, &self->start, "after the asynchronous copies");
}

/* The commands on one chunk: copies in and out, fills. */
enum op { OP_BUF_IN, OP_BUF_OUT, OP_COPY_SRC, OP_COPY_DST, OP_SET, OP_ASYNC_SRC, OP_ASYNC_DST,
	NOPS };

static const char * const op_name[NOPS][2] = {
	{ "MEM_BUF_COPY in", "MEM_BUF_COPY64 in" },
	{ "MEM_BUF_COPY out", "MEM_BUF_COPY64 out" },
	{ "MEM_COPY from", "MEM_COPY64 from" },
	{ "MEM_COPY to", "MEM_COPY64 to" },
	{ "MEMSET", "MEMSET64" },
	{ "MEM_COPY_ASYNC from", "MEM_COPY_ASYNC64 from" },
	{ "MEM_COPY_ASYNC to", "MEM_COPY_ASYNC64 to" },
};

/*
 * Command @op on handle @h at [@off, @off + @size); a copy's other end is
 * @other at offset 0, a user buffer @buf.  An asynchronous copy that starts
 * is waited for.
 */
static long run_op(int fd, enum op op, int wide, __u64 h, __u64 other, void *buf, __u64 off,
		   __u64 size)
{
	__u64 src = h, dst = other, soff = off, doff = 0;
	__u32 wh = 0;
	long ret;

	switch (op) {
	case OP_BUF_IN:
		return buf_copy(fd, wide, h, buf, size, off, 1);
	case OP_BUF_OUT:
		return buf_copy(fd, wide, h, buf, size, off, 0);
	case OP_SET:
		return mem_set(fd, wide, h, off, 0x5c, size);
	case OP_COPY_DST:
	case OP_ASYNC_DST:
		src = other;
		dst = h;
		soff = 0;
		doff = off;
		break;
	default:
		break;
	}
	if (op == OP_COPY_SRC || op == OP_COPY_DST)
		return mem_copy(fd, wide, src, dst, size, soff, doff);
	ret = copy_async(fd, wide, src, dst, size, soff, doff, H_NONE, &wh);
	if (!ret)
		async_wait(fd, src, dst, wh);
	return ret;
}

/* Whether the 32-bit form of @op can carry @off and @size unchanged. */
static int op_fits(enum op op, int wide, __u64 off, __u64 size)
{
	if (wide)
		return 1;
	return size <= 0xffffffffULL && (op == OP_SET || off <= 0xffffffffULL);
}

/* Ranges outside chunk @t, overflowing or truncated: -EINVAL from every command. */
static void ranges_refused(struct __test_metadata *_metadata, struct dma_self *self,
			   const struct tchunk *t, const struct tchunk *other, void *junk)
{
	const __u64 sz = t->size;
	const struct {
		__u64 off, size;
	} range[] = {
		{ sz, 1 },				/* at the end */
		{ sz - 1, 2 },				/* across the end */
		{ 0, sz + 1 },
		{ sz + pg, 1 },
		{ 0xfffff000, 0x2000 },			/* wraps in 32 bits */
		{ 16, 0xffffffff },
		{ 0xffffffff, 1 },
		{ ~0ULL - 4095, 8192 },			/* wraps in 64 bits */
		{ 16, ~0ULL },
		{ ~0ULL, 1 },
		{ 1ULL << 63, 1ULL << 63 },
		{ 1ULL << 32, 16 },			/* not truncated */
		{ 0, (1ULL << 32) + 16 },
	};
	unsigned int i, bad = 0;
	int op, wide;
	long got;

	for (op = 0; op < NOPS; op++) {
		for (wide = 0; wide < 2; wide++) {
			for (i = 0; i < ARRAY_SIZE(range); i++) {
				if (!op_fits(op, wide, range[i].off, range[i].size))
					continue;
				got = run_op(self->fd, op, wide, t->h, other->h, junk, range[i].off,
					     range[i].size);
				if (got == -EINVAL)
					continue;
				bad++;
				TH_LOG("%s, %s chunk, offset %#llx size %#llx: %ld, want %d",
				       op_name[op][wide], t->name, (unsigned long long)range[i].off,
				       (unsigned long long)range[i].size, got, -EINVAL);
			}
		}
	}
	EXPECT_EQ(0, bad);
}

/* Every command refuses handle @h, in either place of a copy, with -EINVAL. */
static void handle_refused(struct __test_metadata *_metadata, struct dma_self *self, __u64 h,
			   const struct tchunk *good, const char *what)
{
	unsigned char buf[64];
	unsigned int bad = 0;
	int op, wide;
	long got;

	memset(buf, 0x6b, sizeof(buf));
	for (op = 0; op < NOPS; op++) {
		for (wide = 0; wide < 2; wide++) {
			got = run_op(self->fd, op, wide, h, good->h, buf, 0, 16);
			if (got == -EINVAL)
				continue;
			bad++;
			TH_LOG("%s, %s: %ld, want %d", op_name[op][wide], what, got, -EINVAL);
		}
	}
	EXPECT_EQ(0, bad);
}

/*
 * Handles of every wrong kind: made up, freed, and another process's (that
 * process cannot reach this one's chunks either).
 */
static void handles_refused(struct __test_metadata *_metadata, struct dma_self *self,
			    struct tchunk *d, struct tchunk *d2, struct tchunk *h)
{
	__u64 bad[24], gone[2], theirs[2];
	int up[2], down[2], i, n = 0;
	pid_t child;

	ASSERT_EQ(0, alloc_dev(self->fd, pg, 0, &gone[0]));
	ASSERT_EQ(0, alloc_host(self->fd, pg, &gone[1]));
	ASSERT_EQ(0, mem_free(self->fd, gone[0]));
	ASSERT_EQ(0, mem_free(self->fd, gone[1]));
	bad[n++] = 0;
	bad[n++] = ~0ULL;
	bad[n++] = d->h + 1;
	bad[n++] = d->h - 1;
	bad[n++] = d->h ^ 1;
	bad[n++] = d->h ^ (1ULL << 63);
	bad[n++] = d->h ^ (1ULL << 32);
	bad[n++] = d->h & 0xffffffff;
	bad[n++] = d->h & ~0xffffffffULL;
	bad[n++] = h->h + 1;
	bad[n++] = d->pa;
	bad[n++] = h->pa;
	bad[n++] = gone[0];
	bad[n++] = gone[1];
	while (n < 18)
		bad[n++] = rnd();
	for (i = 0; i < n; i++) {
		if (bad[i] == d->h || bad[i] == d2->h || bad[i] == h->h)
			continue;
		snprintf(self->buf, sizeof(self->buf), "handle %#llx", (unsigned long long)bad[i]);
		handle_refused(_metadata, self, bad[i], d2, self->buf);
	}

	/* Another process's live chunks, and this one's from there. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0, op, wide;
		unsigned char *dm, *hm, buf[64];
		__u64 v[2] = { 0, 0 }, pa[2] = { 0, 0 };

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(alloc_dev(cfd, 2 * pg, 0, &v[0]) == 0);
		CHILD_CHECK(alloc_host(cfd, 2 * pg, &v[1]) == 0);
		CHILD_CHECK(get_pa(cfd, v[0], &pa[0]) == 0);
		CHILD_CHECK(get_pa(cfd, v[1], &pa[1]) == 0);
		if (fails)
			_exit(child_status(fails));
		dm = mmap_filled(cfd, pa[0], 2 * pg, 0x3c);
		hm = mmap_filled(cfd, pa[1], 2 * pg, 0x3d);
		CHILD_CHECK(dm != MAP_FAILED && hm != MAP_FAILED);
		if (fails)
			_exit(child_status(fails));
		CHILD_CHECK(put_u64s(up[1], v, 2) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		/* The parent changed nothing. */
		CHILD_CHECK(not_byte(dm, 0x3c, 2 * pg) == 0);
		CHILD_CHECK(not_byte(hm, 0x3d, 2 * pg) == 0);
		/* Its parent's chunks, through its own file: as any wrong handle. */
		for (op = 0; op < 2 * NOPS; op++) {
			wide = op % 2;
			CHILD_CHECK(run_op(cfd, op / 2, wide, d->h, v[0], buf, 0, 16) == -EINVAL);
			CHILD_CHECK(run_op(cfd, op / 2, wide, h->h, v[1], buf, 0, 16) == -EINVAL);
		}
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, get_u64s(up[0], theirs, 2));
	handle_refused(_metadata, self, theirs[0], d, "another process's device chunk");
	handle_refused(_metadata, self, theirs[1], d, "another process's host chunk");
	handle_refused(_metadata, self, theirs[0], h, "another process's device chunk");
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);
}

/* Engine and queue ids: the valid ones answer, the others get -EINVAL. */
static void ids_refused(struct __test_metadata *_metadata, struct dma_self *self,
			const struct dma_variant *variant)
{
	const __u32 bad_eng[] = {
		variant->g->engines, variant->g->engines + 1, 0xffff, 0x80000000, ~0U,
	};
	static const __u32 bad_qid[] = { NQUEUES, NQUEUES + 1, 0x80000000, ~0U };
	struct neuron_dma_queue_state tx, rx;
	struct neuron_dma_eng_state st;
	unsigned int i, e, q, bad = 0;
	long got;

	for (i = 0; i < ARRAY_SIZE(bad_eng); i++) {
		EXPECT_EQ(-EINVAL, eng_state(self->fd, bad_eng[i], &st)) {
			TH_LOG("DMA_ENG_GET_STATE of engine %u", bad_eng[i]);
		}
		EXPECT_EQ(-EINVAL, queue_state(self->fd, bad_eng[i], 0, &tx, &rx)) {
			TH_LOG("DMA_QUEUE_GET_STATE of engine %u", bad_eng[i]);
		}
	}
	for (i = 0; i < ARRAY_SIZE(bad_qid); i++) {
		EXPECT_EQ(-EINVAL, queue_state(self->fd, 0, bad_qid[i], &tx, &rx)) {
			TH_LOG("DMA_QUEUE_GET_STATE of queue %u", bad_qid[i]);
		}
		EXPECT_EQ(-EINVAL, queue_state(self->fd, variant->g->engines - 1, bad_qid[i], &tx,
					       &rx)) {
			TH_LOG("DMA_QUEUE_GET_STATE of queue %u of the last engine", bad_qid[i]);
		}
	}
	/* Every queue of every engine answers (what it holds is the hardware's). */
	for (e = 0; e < variant->g->engines; e++) {
		for (q = 0; q < NQUEUES; q++) {
			got = queue_state(self->fd, e, q, &tx, &rx);
			if (got && bad++ < 4)
				TH_LOG("DMA_QUEUE_GET_STATE of engine %u queue %u: %ld", e, q, got);
		}
	}
	EXPECT_EQ(0, bad);
	engines_check(_metadata, self, variant, "valid engine ids");
}

/* Unreachable buffers and arguments: -EFAULT, and a copy into a chunk changes nothing. */
static void pointers_refused(struct __test_metadata *_metadata, struct dma_self *self,
			     struct tchunk *d)
{
	static const struct named_cmd cmds[] = {
		NAMED_CMD(NEURON_IOCTL_MEM_BUF_COPY),
		NAMED_CMD(NEURON_IOCTL_MEM_BUF_COPY64),
		NAMED_CMD(NEURON_IOCTL_MEM_COPY),
		NAMED_CMD(NEURON_IOCTL_MEM_COPY64),
		NAMED_CMD(NEURON_IOCTL_MEMSET),
		NAMED_CMD(NEURON_IOCTL_MEMSET64),
		NAMED_CMD(NEURON_IOCTL_MEM_COPY_ASYNC),
		NAMED_CMD(NEURON_IOCTL_MEM_COPY_ASYNC64),
		NAMED_CMD(NEURON_IOCTL_MEM_COPY_ASYNC_WAIT),
		NAMED_CMD(NEURON_IOCTL_DMA_ENG_GET_STATE),
		NAMED_CMD(NEURON_IOCTL_DMA_QUEUE_GET_STATE),
	};
	struct neuron_dma_queue_state tx, rx;
	unsigned char *ro = read_only_page(), *hole, *edge;
	void *nowhere = no_access();
	unsigned int i;
	int wide, in;

	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, nowhere);
	edge = holey(2, 0);
	ASSERT_NE(NULL, edge);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, NULL)) TH_LOG("%s", cmds[i].name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, nowhere))
			TH_LOG("%s", cmds[i].name);
		/* Only the first 8 bytes of the argument can be read. */
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, edge + pg - 8))
			TH_LOG("%s, argument across the end of a mapping", cmds[i].name);
	}
	munmap(edge, 2 * pg);

	for (wide = 0; wide < 2; wide++) {
		for (in = 1; in >= 0; in--) {
			const char *what = in ? "in" : "out";

			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, d->h, NULL, 16, 0, in))
				TH_LOG("%s, NULL buffer", what);
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, d->h, nowhere, 16, 8, in))
				TH_LOG("%s, inaccessible buffer", what);
			/* Good first page, then nothing. */
			hole = holey(2, 0);
			ASSERT_NE(NULL, hole);
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, d->h, hole, 2 * pg, 0, in))
				TH_LOG("%s, buffer runs off its mapping", what);
			munmap(hole, 2 * pg);
			/* Nothing, then a good page. */
			hole = holey(2, 1);
			ASSERT_NE(NULL, hole);
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, d->h, hole, 2 * pg, pg, in))
				TH_LOG("%s, buffer starts before its mapping", what);
			munmap(hole, 2 * pg);
			/* Twenty good pages (several descriptors' worth), then nothing. */
			hole = holey(21, 0);
			ASSERT_NE(NULL, hole);
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, d->h, hole + 3, 21 * pg - 3, 5,
						    in))
				TH_LOG("%s, 20 pages of buffer, then a hole", what);
			munmap(hole, 21 * pg);
		}
		EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, d->h, ro, 16, 0, 0))
			TH_LOG("out, into a read-only buffer");
	}
	tc_check(_metadata, self, d, "after copies from unreachable buffers");

	/* Nowhere to put the state. */
	EXPECT_EQ(-EFAULT, eng_state(self->fd, 0, NULL));
	EXPECT_EQ(-EFAULT, eng_state(self->fd, 0, nowhere));
	EXPECT_EQ(-EFAULT, eng_state(self->fd, 0, (void *)ro));
	EXPECT_EQ(-EFAULT, queue_state(self->fd, 0, 0, NULL, &rx));
	EXPECT_EQ(-EFAULT, queue_state(self->fd, 0, 0, &tx, NULL));
	EXPECT_EQ(-EFAULT, queue_state(self->fd, 0, 0, (void *)ro, &rx));
	EXPECT_EQ(-EFAULT, queue_state(self->fd, 0, 0, &tx, nowhere));
	munmap(ro, pg);
	munmap(nowhere, 2 * pg);
}

/* A copy of nothing succeeds and changes nothing, whatever the buffer. */
static void size_zero(struct __test_metadata *_metadata, struct dma_self *self,
		      struct tchunk *d)
{
	unsigned char junk[64];
	int wide, in;

	memset(junk, 0xee, sizeof(junk));
	for (wide = 0; wide < 2; wide++) {
		for (in = 0; in < 2; in++) {
			EXPECT_EQ(0, buf_copy(self->fd, wide, d->h, junk, 0, 0, in));
			EXPECT_EQ(0, buf_copy(self->fd, wide, d->h, junk, 0, pg + 3, in));
			EXPECT_EQ(0, buf_copy(self->fd, wide, d->h, junk, 0, d->size, in));
			EXPECT_EQ(0, buf_copy(self->fd, wide, d->h, NULL, 0, 5, in));
		}
	}
	EXPECT_EQ(0, not_byte(junk, 0xee, sizeof(junk)));
	tc_check(_metadata, self, d, "after copies of 0 bytes");
}

/* Held back by dma_stall: copies into device memory time out; then they work again. */
static void fault_stall(struct __test_metadata *_metadata, struct dma_self *self,
			const struct dma_variant *variant)
{
	static const char * const what[] = {
		"MEM_COPY host to device", "MEM_COPY64 device to device",
		"MEM_BUF_COPY to device", "MEM_BUF_COPY64 to device",
	};
	const __u64 size = 65536;
	struct tchunk h, d, d2;
	unsigned char *buf;
	long ret = 0, t;
	unsigned int i;

	EXPECT_STREQ("10000", self->timeout) TH_LOG("dma_timeout_ms as loaded");
	ASSERT_NE(0, self->timeout[0]);
	tc_new(_metadata, self, &h, 1, size, 0);
	tc_new(_metadata, self, &d, 0, size, 0);
	tc_new(_metadata, self, &d2, 0, size, self->nhbm - 1);
	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	rnd_fill(buf, size);

	ASSERT_EQ(0, set_timeout(200));
	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	EXPECT_EQ(1, sim_get("dma_stall"));
	for (i = 0; i < ARRAY_SIZE(what); i++) {
		t = nt_now_ms();
		switch (i) {
		case 0:
			ret = mem_copy(self->fd, 0, h.h, d.h, 4096, 0, 0);
			break;
		case 1:
			ret = mem_copy(self->fd, 1, d2.h, d.h, size, 0, 0);
			break;
		case 2:
			ret = buf_copy(self->fd, 0, d.h, buf, 4096, 100, 1);
			break;
		default:
			ret = buf_copy(self->fd, 1, d2.h, buf, size, 0, 1);
			break;
		}
		t = nt_now_ms() - t;
		EXPECT_EQ(-ETIMEDOUT, ret) TH_LOG("%s while stalled", what[i]);
		EXPECT_LE(150, t) TH_LOG("%s timed out after %ld ms", what[i], t);
		EXPECT_GT(5000, t) TH_LOG("%s timed out after %ld ms", what[i], t);
	}

	/*
	 * Released: what timed out may land now or never; fresh data
	 * copied over all of it must be what is there.
	 */
	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	EXPECT_EQ(0, sim_get("dma_stall"));
	tc_fill(_metadata, self, &h);
	tc_copy(_metadata, self, 0, &h, 0, &d, 0, size);
	tc_check(_metadata, self, &d, "MEM_COPY after the stall");
	rnd_fill(d2.shadow, size);
	EXPECT_EQ(0, buf_copy(self->fd, 1, d2.h, d2.shadow, size, 0, 1));
	tc_check(_metadata, self, &d2, "MEM_BUF_COPY64 after the stall");
	EXPECT_EQ(0, engines_check(_metadata, self, variant, "after the stall"));

	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));
	free(buf);
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &d);
	tc_free(_metadata, self, &d2);
	check_counts(_metadata, self->index, &self->start, "after the stall");
}

/* dma_abort: the next device copy fails with -EIO, the one after works. */
static void fault_abort(struct __test_metadata *_metadata, struct dma_self *self,
			const struct dma_variant *variant)
{
	static const char * const what[] = {
		"MEM_COPY host to device", "MEM_BUF_COPY64 to device",
		"MEM_BUF_COPY from device", "MEM_COPY64 device to device",
	};
	const __u64 size = 65536 + 3 * pg;
	unsigned char *buf = malloc(size);
	struct tchunk h, d, d2;
	long long errors;
	unsigned int i;
	int attempt;
	long ret = 0;

	ASSERT_NE(NULL, buf);
	tc_new(_metadata, self, &h, 1, size, 0);
	tc_new(_metadata, self, &d, 0, size, 0);
	tc_new(_metadata, self, &d2, 0, size, self->nhbm - 1);
	errors = sim_get("dma_errors");
	ASSERT_LE(0, errors);

	for (i = 0; i < ARRAY_SIZE(what); i++) {
		ASSERT_EQ(0, sim_set("dma_abort", "1"));
		EXPECT_EQ(1, sim_get("dma_abort"));
		/* Attempt 0 meets the fault; attempt 1 must work, with fresh data. */
		for (attempt = 0; attempt < 2; attempt++) {
			switch (i) {
			case 0:
				tc_fill(_metadata, self, &h);
				ret = mem_copy(self->fd, 0, h.h, d.h, size, 0, 0);
				if (!ret)
					memcpy(d.shadow, h.shadow, size);
				break;
			case 1:
				rnd_fill(buf, size);
				ret = buf_copy(self->fd, 1, d2.h, buf, size, 0, 1);
				if (!ret)
					memcpy(d2.shadow, buf, size);
				break;
			case 2:
				memset(buf, 0, size);
				ret = buf_copy(self->fd, 0, d.h, buf, size, 0, 0);
				if (!ret)
					EXPECT_EQ(0, memcmp(buf, d.shadow, size));
				break;
			default:
				ret = mem_copy(self->fd, 1, d.h, d2.h, size, 0, 0);
				if (!ret)
					memcpy(d2.shadow, d.shadow, size);
				break;
			}
			if (!attempt) {
				EXPECT_EQ(-EIO, ret) TH_LOG("%s with dma_abort armed", what[i]);
				EXPECT_EQ(0, sim_get("dma_abort")) TH_LOG("%s", what[i]);
				EXPECT_EQ(errors + 1, sim_get("dma_errors")) TH_LOG("%s", what[i]);
				errors = sim_get("dma_errors");
				engines_check(_metadata, self, variant, what[i]);
				continue;
			}
			EXPECT_EQ(0, ret) TH_LOG("%s after the abort", what[i]);
		}
		tc_check(_metadata, self, &d, what[i]);
		tc_check(_metadata, self, &d2, what[i]);
	}
	EXPECT_EQ(0, engines_check(_metadata, self, variant, "after the aborts"));
	EXPECT_EQ(errors, sim_get("dma_errors"));
	free(buf);
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &d);
	tc_free(_metadata, self, &d2);
	check_counts(_metadata, self->index, &self->start, "after the aborts");
}

/*
 * A child blocked in, or gone from, a copy that dma_stall holds back is
 * killed: it dies at once although dma_timeout_ms was long when its wait
 * began, its memory comes back, what it had queued never lands in memory
 * that is someone else's by then, and this process's copies work.
 */
static void kill_copy(struct __test_metadata *_metadata, struct dma_self *self,
		      const struct dma_variant *variant, int mode)
{
	static const char * const how[] = {
		"sync MEM_COPY64, dma_mode=sync",
		"sync MEM_BUF_COPY64, dma_mode=async",
		"MEM_COPY_ASYNC64 not waited for, dma_mode=async",
	};
	const unsigned char stale = 0xc3, fresh = 0x5a;
	const __u64 size = 16 * MIB + pg;
	struct mcount during;
	struct tchunk h, d;
	unsigned char *m;
	__u64 msg[2], nh, npa;
	int up[2], got;
	pid_t child;
	long t;

	ASSERT_EQ(0, nt_write(DMA_MODE, mode ? "async" : "sync"));
	ASSERT_EQ(0, set_timeout(30000));
	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0;
		__u64 src = 0, dst = 0, pa = 0, v[2];
		unsigned char *sm, *ubuf = malloc(size);
		__u32 wh = 0;
		long ret;

		close(up[0]);
		CHILD_CHECK(cfd >= 0 && ubuf);
		CHILD_CHECK(alloc_dev(cfd, size, 0, &src) == 0);
		CHILD_CHECK(alloc_dev(cfd, size, self->nhbm - 1, &dst) == 0);
		CHILD_CHECK(get_pa(cfd, src, &pa) == 0);
		if (fails)
			_exit(child_status(fails));
		sm = mmap(NULL, size, RW, MAP_SHARED, cfd, (off_t)pa);
		CHILD_CHECK(sm != MAP_FAILED);
		CHILD_CHECK(get_pa(cfd, dst, &pa) == 0);
		if (fails)
			_exit(child_status(fails));
		/* What a copy that must never land would write. */
		memset(sm, stale, size);
		memset(ubuf, stale, size);
		munmap(sm, size);
		v[0] = 0;
		v[1] = pa;
		CHILD_CHECK(put_u64s(up[1], v, 2) == 0);
		if (mode == 0)
			ret = mem_copy(cfd, 1, src, dst, size, 0, 0);
		else if (mode == 1)
			ret = buf_copy(cfd, 1, dst, ubuf, size, 0, 1);
		else
			ret = copy_async(cfd, 1, src, dst, size, 0, 0, H_NONE, &wh);
		v[0] = 1;
		v[1] = ret;
		CHILD_CHECK(put_u64s(up[1], v, 2) == 0);
		if (mode == 2)
			pause();
		_exit(child_status(fails));
	}
	close(up[1]);
	ASSERT_EQ(0, get_u64s(up[0], msg, 2)) TH_LOG("%s: the child did not get going", how[mode]);
	ASSERT_EQ(0, msg[0]);
	npa = msg[1];
	during = counts_now(_metadata, self->index);
	EXPECT_LE(self->start.device_bytes + 2 * (long long)size, during.device_bytes);

	/* Held back: a sync copy cannot return; an async one returns once queued. */
	got = get_u64s_within(up[0], msg, 2, mode == 2 ? 3000 : 500);
	if (mode < 2) {
		EXPECT_FALSE(got) TH_LOG("%s returned %lld while stalled", how[mode],
					 (long long)msg[1]);
	} else if (got) {
		EXPECT_EQ(0, (long long)msg[1]) TH_LOG("%s while stalled", how[mode]);
	} else {
		TH_LOG("%s: still in the ioctl after 3 s", how[mode]);
	}

	/* From now on waits are short: the child's cleanup cannot take long. */
	ASSERT_EQ(0, set_timeout(1000));
	t = nt_now_ms();
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	t = nt_now_ms() - t;
	close(up[0]);
	TH_LOG("%s: reaped %ld ms after SIGKILL", how[mode], t);
	EXPECT_GT(5000, t) TH_LOG("%s: the child took %ld ms to die", how[mode], t);
	if (!mcount_reach(self->index, &self->start, 1000 + RELEASE_MS))
		TH_LOG("%s: memory not back %d ms after the child died", how[mode],
		       1000 + RELEASE_MS);
	check_counts(_metadata, self->index, &self->start, how[mode]);

	/* The child's destination, most likely at the same address, is now ours. */
	ASSERT_EQ(0, alloc_dev(self->fd, size, self->nhbm - 1, &nh));
	ASSERT_EQ(0, get_pa(self->fd, nh, &msg[0]));
	if (msg[0] != npa)
		TH_LOG("%s: new chunk at %#llx, the child's was at %#llx", how[mode],
		       (unsigned long long)msg[0], (unsigned long long)npa);
	m = map(&self->undo, self->fd, msg[0], size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, fresh, size);

	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	usleep(100000);
	tc_new(_metadata, self, &h, 1, 2 * pg, 0);
	tc_new(_metadata, self, &d, 0, 2 * pg, self->nhbm - 1);
	tc_copy(_metadata, self, 1, &h, 1, &d, 3, 2 * pg - 7);
	tc_check(_metadata, self, &d, how[mode]);
	tc_fill(_metadata, self, &d);
	tc_copy(_metadata, self, 0, &d, 0, &h, 0, 2 * pg);
	tc_check(_metadata, self, &h, how[mode]);
	EXPECT_EQ(0, not_byte(m, fresh, size)) {
		TH_LOG("%s: the dead child's copy landed in memory it no longer had", how[mode]);
	}
	EXPECT_EQ(0, unmap(&self->undo, m, size));
	EXPECT_EQ(0, mem_free(self->fd, nh));
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &d);
	ASSERT_EQ(0, nt_write(DMA_MODE, "sync"));
	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));
	check_counts(_metadata, self->index, &self->start, how[mode]);
}

/* ---- Copy queues and batched zero-copy ----------------------------------- */

static long h2t_alloc(int fd, __u32 nc, __u32 count, __u32 service,
		      struct neuron_ioctl_h2t_dma_alloc_queues *a)
{
	memset(a, 0xa5, sizeof(*a));
	a->sz = sizeof(*a);
	a->nc_id = nc;
	a->copy_queue_cnt = count;
	a->service_queue_cnt = service;
	return xioctl(fd, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, a);
}

static long h2t_free(int fd, __u32 nc, __u32 bmap)
{
	struct neuron_ioctl_h2t_dma_free_queues a = {
		.sz = sizeof(a), .nc_id = nc, .queue_bmap = bmap,
	};

	return xioctl(fd, NEURON_IOCTL_H2T_DMA_FREE_QUEUES, &a);
}

/* Claim @count copy queues of core @nc; their bitmap, or 0 (logged) on failure. */
static __u32 claim(struct __test_metadata *_metadata, int fd, __u32 nc, __u32 count,
		   __u32 per)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a;

	EXPECT_EQ(0, h2t_alloc(fd, nc, count, 0, &a)) {
		TH_LOG("%u copy queues of core %u", count, nc);
		return 0;
	}
	EXPECT_EQ(count, (__u32)__builtin_popcount(a.copy_queue_bmap));
	EXPECT_EQ(0, a.copy_queue_bmap & ~((1U << NQUEUES) - (1U << per))) {
		TH_LOG("core %u: queues %#x, the defaults are below %u", nc, a.copy_queue_bmap,
		       per);
	}
	EXPECT_EQ(0, a.service_queue_bmap);
	EXPECT_EQ(nc % per, a.copy_default_queue);
	return a.copy_queue_bmap;
}

/* Random bytes to @t at @off through queue @qid and back through @back. */
static void zc_round(struct __test_metadata *_metadata, struct dma_self *self,
		     struct tchunk *t, int qid, int back)
{
	const __u64 len = 2 * pg + 5, off = 7;
	unsigned char in[2 * 4096 + 5], out[sizeof(in)];

	ASSERT_GE(sizeof(in), len);
	rnd_fill(in, len);
	memset(out, 0, len);
	EXPECT_EQ(0, zerocopy(self->fd, t->h, in, len, off, 1, qid)) TH_LOG("queue %d", qid);
	EXPECT_EQ(0, zerocopy(self->fd, t->h, out, len, off, 0, back)) TH_LOG("queue %d", back);
	memcpy(t->shadow + off, in, len);
	EXPECT_EQ(0, memcmp(in, out, len)) TH_LOG("queues %d and %d", qid, back);
}

/* The child of copy_queues: every queue of core 0's engine is the parent's. */
static int queue_thief(const struct dma_self *self, __u32 theirs)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	unsigned char b[64] = { 1 };
	int fd, fails = 0, q;
	__u64 h;
	long ret;

	fd = open_node(self->index, O_RDWR);
	if (fd < 0 || alloc_dev(fd, 4096, 0, &h))
		return 100;
	ret = h2t_alloc(fd, 0, 1, 0, &a);
	if (ret != -ENOSPC) {
		fprintf(stderr, "child: a queue of a full engine: %ld\n", ret);
		fails++;
	}
	for (q = 0; q < NQUEUES; q++) {
		if (!(theirs & (1U << q)))
			continue;
		ret = zerocopy(fd, h, b, sizeof(b), 0, 1, q);
		if (ret != -ENOENT) {
			fprintf(stderr, "child: copy through the parent's queue %d: %ld\n", q, ret);
			fails++;
		}
	}
	ret = h2t_free(fd, 0, theirs);
	if (ret != -EINVAL) {
		fprintf(stderr, "child: freeing the parent's queues: %ld\n", ret);
		fails++;
	}
	close(fd);
	return fails;
}

/* The second child: claims @count queues of core 0, must get @want, uses one, exits. */
static int queue_taker(const struct dma_self *self, __u32 count, __u32 want)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	unsigned char b[64] = { 2 };
	int fd;
	__u64 h;

	fd = open_node(self->index, O_RDWR);
	if (fd < 0 || alloc_dev(fd, 4096, 0, &h) || h2t_alloc(fd, 0, count, 0, &a))
		return 100;
	if (a.copy_queue_bmap != want) {
		fprintf(stderr, "child: got queues %#x, not %#x\n", a.copy_queue_bmap, want);
		return 1;
	}
	return zerocopy(fd, h, b, sizeof(b), 0, 1, __builtin_ctz(want)) ? 1 : 0;
}

/* H2T_DMA_ALLOC_QUEUES and FREE in a loop on another thread of a process. */
struct claim_loop {
	int fd;
	__u32 count;
	long claims;
};

static void *claim_thread(void *arg)
{
	struct claim_loop *c = arg;
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	long ret;

	/* Until the gate refuses the process: it detached. */
	for (;;) {
		ret = h2t_alloc(c->fd, 0, c->count, 0, &a);
		if (ret == -EACCES)
			break;
		if (!ret) {
			c->claims++;
			h2t_free(c->fd, 0, a.copy_queue_bmap);
		}
	}
	return NULL;
}

/*
 * A child: through the parent's file @pfd (inherited), a thread claims and
 * frees every copy queue of core 0 in a loop, while the child closes the
 * file it attached with after @delay_us.  Claims racing with the detach
 * must not outlive it.
 */
static int claim_leaver(const struct dma_self *self, int pfd, __u32 count, unsigned int delay_us)
{
	struct claim_loop c = { .fd = pfd, .count = count };
	int own = open_node(self->index, O_RDWR);
	pthread_t t;

	if (own < 0 || pthread_create(&t, NULL, claim_thread, &c))
		return 100;
	usleep(delay_us);
	close(own);
	pthread_join(t, NULL);
	return 0;
}

/*
 * Processes that detach while a thread of theirs claims copy queues (a
 * race, tried for a few seconds): after each, every spare queue of core 0
 * can be claimed again, so no claim was left to a detached process.
 */
static void claims_detach_race(struct __test_metadata *_metadata, struct dma_self *self,
			       __u32 spare)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	long end = nt_now_ms() + 3000, ret;
	pid_t child;
	int i;

	for (i = 0; i < 300 && nt_now_ms() < end; i++) {
		child = spawn(_metadata, &self->undo);
		if (!child)
			_exit(claim_leaver(self, self->fd, spare, rnd() % 3000));
		EXPECT_EQ(0, reap(&self->undo, child));
		/* Not EXPECT_*() { break; }: that leaves the harness's trigger set. */
		ret = h2t_alloc(self->fd, 0, spare, 0, &a);
		if (ret) {
			TH_LOG("round %d: a detached process kept copy queues (%ld)", i, ret);
			_metadata->exit_code = KSFT_FAIL;
			break;
		}
		EXPECT_EQ(0, h2t_free(self->fd, 0, a.copy_queue_bmap));
	}
	TH_LOG("%d processes detached while claiming copy queues", i);
}

/*
 * H2T_DMA_ALLOC_QUEUES and H2T_DMA_FREE_QUEUES: claims, the copies through
 * them, what is refused (changing nothing), another process's view,
 * release at exit and by a core reset, and none kept by a process that
 * detaches while it claims.  GET_ASYNC_H2T_DMA_COMPL_QUEUES has no queue to report.
 */
TEST_F_TIMEOUT(dma, copy_queues, 300)
{
	const __u32 per = variant->g->ncs / (variant->g->engines - variant->g->user);
	const __u32 last = variant->g->ncs - 1, spare = NQUEUES - per;
	const __u32 all = (1U << NQUEUES) - (1U << per);
	struct neuron_ioctl_get_async_h2t_dma_compl_queues cq;
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	__u32 mine, rest, farq, q, free_q;
	struct tchunk d, far;
	pid_t child;

	tc_new(_metadata, self, &d, 0, 4 * pg, 0);
	tc_new_nc(_metadata, self, &far, 0, 4 * pg, 0, last);

	/*
	 * Queue numbers are per host engine: mine = {a, a+1, a+2} on core
	 * 0's, farq = {a+1, a+2, a+3} on the last core's (another engine).
	 */
	mine = claim(_metadata, self->fd, 0, 3, per);
	farq = claim(_metadata, self->fd, last, 4, per);
	ASSERT_NE(0, mine);
	ASSERT_NE(0, farq);
	EXPECT_EQ(0, h2t_free(self->fd, last, farq & -farq));
	farq &= farq - 1;
	EXPECT_EQ(mine << 1, farq);
	for (q = 0; q < NQUEUES; q++)
		if (mine & (1U << q))
			zc_round(_metadata, self, &d, q, NEURON_DMA_H2T_DEFAULT_QID);
	zc_round(_metadata, self, &far, __builtin_ctz(farq), last % per);
	free_q = __builtin_ctz(all & ~mine);
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, d.h, d.shadow, 64, 0, 1, free_q));
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, far.h, far.shadow, 64, 0, 1, __builtin_ctz(mine)));
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, d.h, d.shadow, 64, 0, 1, 31 - __builtin_clz(farq)));

	/* Refused, nothing claimed: too many, service queues, bad cores, bad sz. */
	EXPECT_EQ(-E2BIG, h2t_alloc(self->fd, 0, spare + 1, 0, &a));
	EXPECT_EQ(-ENOSPC, h2t_alloc(self->fd, 0, spare - 3 + 1, 0, &a));
	EXPECT_EQ(-EOPNOTSUPP, h2t_alloc(self->fd, 0, 1, 1, &a));
	EXPECT_EQ(-EOPNOTSUPP, h2t_alloc(self->fd, 0, 0, 1, &a));
	EXPECT_EQ(-EINVAL, h2t_alloc(self->fd, variant->g->ncs, 1, 0, &a));
	EXPECT_EQ(-EINVAL, h2t_alloc(self->fd, 0xffff, 1, 0, &a));
	memset(&a, 0, sizeof(a));
	a.copy_queue_cnt = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, &a));
	a.sz = sizeof(a) + 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, &a));

	/* The rest of the engine; it is then full, for every core sharing it. */
	rest = claim(_metadata, self->fd, 0, spare - 3, per);
	EXPECT_EQ(all, mine | rest);
	EXPECT_EQ(0, mine & rest);
	EXPECT_EQ(-ENOSPC, h2t_alloc(self->fd, 0, 1, 0, &a));
	if (per > 1)
		EXPECT_EQ(-ENOSPC, h2t_alloc(self->fd, 1, 1, 0, &a));

	/* Another process can neither claim, use nor free them. */
	child = spawn(_metadata, &self->undo);
	if (!child)
		_exit(queue_thief(self, mine | rest));
	EXPECT_EQ(0, reap(&self->undo, child));

	/* Frees refused, nothing freed. */
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, 0, 1U << NQUEUES));
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, 0, mine | 1U << 31));
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, last, mine));
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, variant->g->ncs, mine));
	if (per > 1)
		EXPECT_EQ(-EINVAL, h2t_free(self->fd, 0, mine | 2));
	zc_round(_metadata, self, &d, __builtin_ctz(mine), 31 - __builtin_clz(mine));

	/* Freed (the default queue in the bitmap stays); then not usable. */
	EXPECT_EQ(0, h2t_free(self->fd, 0, mine | 1));
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, d.h, d.shadow, 64, 0, 1, __builtin_ctz(mine)));
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, 0, mine));
	zc_round(_metadata, self, &d, 0, NEURON_DMA_H2T_DEFAULT_QID);

	/* A process that exits holding queues gives them back. */
	child = spawn(_metadata, &self->undo);
	if (!child)
		_exit(queue_taker(self, 3, mine));
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(mine, claim(_metadata, self->fd, 0, 3, per));

	/* Completion queues: none for no queue; one each for claimed queues, no others. */
	memset(&cq, 0xa5, sizeof(cq));
	cq.nc_id = last;
	cq.qid_bitmap = 0xffff0000;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, &cq));
	EXPECT_EQ(last, cq.nc_id);
	for (q = 0; q < NQUEUES; q++) {
		EXPECT_EQ(0, cq.compl_queue_info[q].mmap_offset);
		EXPECT_EQ(0, cq.compl_queue_info[q].mmap_size);
	}
	cq.qid_bitmap = farq;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, &cq));
	for (q = 0; q < NQUEUES; q++) {
		EXPECT_EQ(!!(farq & (1U << q)), cq.compl_queue_info[q].mmap_offset != 0);
		EXPECT_EQ(farq & (1U << q) ? CQ_BYTES : 0, cq.compl_queue_info[q].mmap_size);
	}
	cq.qid_bitmap = mine;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, &cq));
	cq.nc_id = variant->g->ncs;
	cq.qid_bitmap = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, &cq));

	/* A reset of core 0 ends its claims (all of its engine's); the last core keeps its. */
	ASSERT_EQ(0, reset_cores(self->fd, 1));
	EXPECT_EQ(-ENOENT, zerocopy(self->fd, d.h, d.shadow, 64, 0, 1, __builtin_ctz(mine)));
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, 0, mine));
	EXPECT_EQ(-EINVAL, h2t_free(self->fd, 0, rest));
	zc_round(_metadata, self, &far, __builtin_ctz(farq), NEURON_DMA_H2T_DEFAULT_QID);
	EXPECT_EQ(0, h2t_free(self->fd, last, farq));
	EXPECT_EQ(all, claim(_metadata, self->fd, 0, spare, per));
	EXPECT_EQ(0, h2t_free(self->fd, 0, all));
	claims_detach_race(_metadata, self, spare);
	tc_check(_metadata, self, &d, "after the copy queues");
	tc_check(_metadata, self, &far, "after the copy queues");
	tc_free(_metadata, self, &d);
	tc_free(_metadata, self, &far);
}

/* MEM_BUF_ZEROCOPY64_BATCHES; asynchronous for a non-zero @seq. */
static long zc_batches_seq(int fd, neuron_memcpy_batch_t *b, __u32 n, int to_dev, int qid,
			   __u16 flags, __u64 seq)
{
	struct neuron_ioctl_mem_buf_copy64zc_batches a = {
		.batches_ptr = b, .num_batches = n, .is_copy_to_device = to_dev,
		.h2t_qid = qid, .flags = flags, .sequence_num = seq,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES, &a);
}

static long zc_batches(int fd, neuron_memcpy_batch_t *b, __u32 n, int to_dev, int qid,
		       __u16 flags)
{
	return zc_batches_seq(fd, b, n, to_dev, qid, flags, 0);
}

#define ZB_BATCHES	3
#define ZB_OPS		4
#define ZB_SPAN		(ZB_BATCHES * ZB_OPS * 65537)

/* What zerocopy_batches works with: three chunks, their batches and operations. */
struct zb {
	struct tchunk t[ZB_BATCHES];
	__u64 base[ZB_BATCHES];
	neuron_memcpy_batch_t b[ZB_BATCHES];
	nrt_tensor_batch_op_t ops[ZB_BATCHES][ZB_OPS];
	size_t at[ZB_BATCHES][ZB_OPS];	/* where each operation's bytes are in the buffer */
};

/* Point every operation of @z into buffer @buf. */
static void zb_point(struct zb *z, unsigned char *buf)
{
	int i, k;

	for (i = 0; i < ZB_BATCHES; i++)
		for (k = 0; k < ZB_OPS; k++)
			z->ops[i][k].buffer = buf + z->at[i][k];
}

/* Operations of random place; the second of each batch overlaps the first. */
static void zb_make(struct zb *z)
{
	static const __u64 lens[ZB_OPS] = { 1, 65537, 3 * 4096 + 1, 4096 };
	__u64 len, room, spot;
	size_t used = 0;
	int i, k;

	for (i = 0; i < ZB_BATCHES; i++) {
		for (k = 0; k < ZB_OPS; k++) {
			len = lens[(i + k) % ZB_OPS];
			room = z->t[i].size - z->base[i] - len;
			spot = rnd() % (room + 1);
			if (k == 1 && z->ops[i][0].offset <= room)
				spot = z->ops[i][0].offset;
			z->ops[i][k] = (nrt_tensor_batch_op_t){ .offset = spot, .size = len };
			z->at[i][k] = used;
			used += len;
		}
		z->b[i] = (neuron_memcpy_batch_t){
			.mem_handle = z->t[i].h, .mem_handle_offset = z->base[i],
			.ops_ptr = z->ops[i], .num_ops = ZB_OPS, .context = &z->b[i],
		};
	}
}

/* The chunks' shadows after @z's operations wrote to them, in order. */
static void zb_written(struct zb *z)
{
	int i, k;

	for (i = 0; i < ZB_BATCHES; i++)
		for (k = 0; k < ZB_OPS; k++)
			memcpy(z->t[i].shadow + z->base[i] + z->ops[i][k].offset,
			       z->ops[i][k].buffer, z->ops[i][k].size);
}

/* Each operation of @z that read its chunk got what the shadow holds. */
static void zb_read(struct __test_metadata *_metadata, struct zb *z)
{
	int i, k;

	for (i = 0; i < ZB_BATCHES; i++)
		for (k = 0; k < ZB_OPS; k++)
			EXPECT_EQ(0, memcmp(z->t[i].shadow + z->base[i] + z->ops[i][k].offset,
					    z->ops[i][k].buffer, z->ops[i][k].size))
				TH_LOG("batch %d, operation %d read back", i, k);
}

/*
 * Three chunks (device on the first and last channels, host), the first and
 * last batches at offsets @base0 and @base2, and random operations.
 */
static void zb_setup(struct __test_metadata *_metadata, struct dma_self *self, struct zb *z,
		     __u64 base0, __u64 base2)
{
	tc_new(_metadata, self, &z->t[0], 0, 2 * MIB, 0);
	tc_new(_metadata, self, &z->t[1], 0, 256 * 1024, self->nhbm - 1);
	tc_new(_metadata, self, &z->t[2], 1, 128 * 1024, 0);
	z->base[0] = base0;
	z->base[2] = base2;
	zb_make(z);
}

/* Every way the last operation of the last batch can be wrong. */
static void zb_bad_last(struct __test_metadata *_metadata, struct dma_self *self, struct zb *z)
{
	nrt_tensor_batch_op_t *op = &z->ops[ZB_BATCHES - 1][ZB_OPS - 1], save = *op;
	const __u64 room = z->t[ZB_BATCHES - 1].size - z->base[ZB_BATCHES - 1];
	int k;

	for (k = 0; k < 6; k++) {
		switch (k) {
		case 0:
			op->size = 0;
			break;
		case 1:
			op->offset = room - save.size + 1;
			break;
		case 2:
			op->offset = ~0ULL - z->base[ZB_BATCHES - 1] + 1;
			break;
		case 3:
			op->size = ~0ULL;
			break;
		case 4:
			op->buffer = NULL;
			break;
		default:
			op->buffer = (void *)0xffff888000000000ULL;
			break;
		}
		EXPECT_EQ(k < 4 ? -EINVAL : -EFAULT,
			  zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0))
			TH_LOG("bad last operation, case %d", k);
		*op = save;
	}
}

/* Every way a batch, or the call, can be wrong: nothing may move. */
static void zb_refused(struct __test_metadata *_metadata, struct dma_self *self, struct zb *z)
{
	neuron_memcpy_batch_t *last = &z->b[ZB_BATCHES - 1], save = *last, *edge;
	void *nowhere = no_access();
	unsigned char *part = holey(2, 0);
	__u64 gone;

	ASSERT_NE(NULL, nowhere);
	ASSERT_NE(NULL, part);
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, z->b, 0, 1, -1, 0));
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, NULL, 1, 1, -1, 0));
	EXPECT_EQ(-EFAULT, zc_batches(self->fd, nowhere, 1, 1, -1, 0));
	/* Two good batches at the end of a page, the third past it. */
	edge = (void *)(part + pg - 2 * sizeof(*edge));
	memcpy(edge, z->b, 2 * sizeof(*edge));
	EXPECT_EQ(-EFAULT, zc_batches(self->fd, edge, 3, 1, -1, 0));
	EXPECT_EQ(-E2BIG, zc_batches(self->fd, z->b, 4097, 1, -1, 0));
	EXPECT_EQ(-EOPNOTSUPP, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 1));
	EXPECT_EQ(-EOPNOTSUPP, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0x8000));
	EXPECT_EQ(-ENOENT, zc_batches(self->fd, z->b, ZB_BATCHES, 1, NQUEUES - 1, 0));
	EXPECT_EQ(-ENOENT, zc_batches(self->fd, z->b, ZB_BATCHES, 0, -7, 0));

	last->flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	*last = save;
	last->num_ops = 0;
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	last->num_ops = 65537;
	EXPECT_EQ(-E2BIG, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	last->num_ops = ZB_OPS + 100;
	last->ops_ptr = (void *)(part + pg - sizeof(nrt_tensor_batch_op_t));
	EXPECT_EQ(-EFAULT, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	*last = save;
	last->ops_ptr = NULL;
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	*last = save;
	last->ops_ptr = nowhere;
	EXPECT_EQ(-EFAULT, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	*last = save;
	last->mem_handle_offset = ~0ULL;
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	*last = save;
	ASSERT_EQ(0, alloc_host(self->fd, 4096, &gone));
	ASSERT_EQ(0, mem_free(self->fd, gone));
	last->mem_handle = gone;
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	last->mem_handle = 0;
	EXPECT_EQ(-EINVAL, zc_batches(self->fd, z->b, ZB_BATCHES, 1, -1, 0));
	*last = save;
	zb_bad_last(_metadata, self, z);
	munmap(part, 2 * pg);
	munmap(nowhere, 2 * pg);
}

/*
 * MEM_BUF_ZEROCOPY64_BATCHES: operations on three chunks (device on two
 * channels, host) both ways, in order; every refused argument, even in the
 * last operation, changes nothing; through a claimed copy queue.
 */
TEST_F_TIMEOUT(dma, zerocopy_batches, 300)
{
	const __u32 per = variant->g->ncs / (variant->g->engines - variant->g->user);
	unsigned char *in = malloc(ZB_SPAN), *out = calloc(1, ZB_SPAN);
	struct dstats before, after;
	struct zb *z = calloc(1, sizeof(*z));
	int i;
	__u32 q;

	ASSERT_NE(NULL, z);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	zb_setup(_metadata, self, z, 5, 4096);

	rnd_fill(in, ZB_SPAN);
	zb_point(z, in);
	ASSERT_EQ(0, zc_batches(self->fd, z->b, ZB_BATCHES, 1, NEURON_DMA_H2T_DEFAULT_QID, 0));
	zb_written(z);
	for (i = 0; i < ZB_BATCHES; i++)
		tc_check(_metadata, self, &z->t[i], "after MEM_BUF_ZEROCOPY64_BATCHES to them");
	zb_point(z, out);
	ASSERT_EQ(0, zc_batches(self->fd, z->b, ZB_BATCHES, 0, NEURON_DMA_H2T_DEFAULT_QID, 0));
	zb_read(_metadata, z);

	ASSERT_EQ(0, dstats_read(&before));
	zb_point(z, in);
	zb_refused(_metadata, self, z);
	ASSERT_EQ(0, dstats_read(&after));
	EXPECT_EQ(before.descs, after.descs);
	EXPECT_EQ(before.bytes, after.bytes);
	for (i = 0; i < ZB_BATCHES; i++)
		tc_check(_metadata, self, &z->t[i], "after the refused batches");

	/* Through a claimed copy queue. */
	q = claim(_metadata, self->fd, 0, 1, per);
	ASSERT_NE(0, q);
	rnd_fill(in, ZB_SPAN);
	EXPECT_EQ(0, zc_batches(self->fd, z->b, ZB_BATCHES, 1, __builtin_ctz(q), 0));
	zb_written(z);
	for (i = 0; i < ZB_BATCHES; i++)
		tc_check(_metadata, self, &z->t[i], "through a copy queue");
	EXPECT_EQ(0, h2t_free(self->fd, 0, q));

	for (i = 0; i < ZB_BATCHES; i++)
		tc_free(_metadata, self, &z->t[i]);
	free(in);
	free(out);
	free(z);
}

/* ---- Asynchronous zero-copy and completion queues ------------------------ */

/* Locate (making them) the completion queues of @bmap on core @nc. */
static long cq_get(int fd, __u32 nc, __u32 bmap,
		   struct neuron_ioctl_get_async_h2t_dma_compl_queues *a)
{
	memset(a, 0xa5, sizeof(*a));
	a->nc_id = nc;
	a->qid_bitmap = bmap;
	return xioctl(fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, a);
}

/* Map the completion queue of queue @q of core @nc, or NULL. */
static neuron_h2d_dma_compl_queue_t *cq_map(struct undo *u, int fd, __u32 nc, __u32 q)
{
	struct neuron_ioctl_get_async_h2t_dma_compl_queues a;
	void *p;

	if (cq_get(fd, nc, 1U << q, &a) || a.compl_queue_info[q].mmap_size != CQ_BYTES)
		return NULL;
	p = map(u, fd, a.compl_queue_info[q].mmap_offset, CQ_BYTES, RW, MAP_SHARED);
	return p == MAP_FAILED ? NULL : p;
}

/* Entry @n of @c once the driver wrote it, or NULL after @ms. */
static const neuron_h2d_dma_compl_queue_entry_t *cq_wait(neuron_h2d_dma_compl_queue_t *c,
							 __u32 n, long ms)
{
	long end = nt_now_ms() + ms;

	while ((__s32)(__atomic_load_n(&c->tail, __ATOMIC_ACQUIRE) - n) <= 0) {
		if (nt_now_ms() > end)
			return NULL;
		usleep(1000);
	}
	return &c->entries[n % CQ_ENTRIES];
}

/* Entry @n of @c comes, for transfer @seq, with status @ret and context @ctx. */
static void cq_expect(struct __test_metadata *_metadata, neuron_h2d_dma_compl_queue_t *c,
		      __u32 n, __u64 seq, long long ret, const void *ctx)
{
	const neuron_h2d_dma_compl_queue_entry_t *e = cq_wait(c, n, CQ_WAIT_MS);

	ASSERT_NE(NULL, e) TH_LOG("no entry %u for transfer %llu in %d ms", n,
				  (unsigned long long)seq, CQ_WAIT_MS);
	EXPECT_EQ(seq, e->sequence_num);
	EXPECT_EQ(ret, e->compl_ret);
	EXPECT_EQ(ctx, e->context);
}

/*
 * The asynchronous form of MEM_BUF_ZEROCOPY64_BATCHES (non-zero
 * sequence_num) and its completion queues: both ways, in order with the
 * synchronous form, failures reported in the entry, a full queue refused,
 * nothing queued for a refused call, a copy queue's own completion queue.
 */
TEST_F_TIMEOUT(dma, zerocopy_async, 300)
{
	const __u32 per = variant->g->ncs / (variant->g->engines - variant->g->user);
	unsigned char *in = malloc(ZB_SPAN), *out = calloc(1, ZB_SPAN);
	struct neuron_ioctl_get_async_h2t_dma_compl_queues a;
	neuron_h2d_dma_compl_queue_t *c, *cc;
	struct zb *z = calloc(1, sizeof(*z));
	void *nowhere = no_access(), *ctx;
	__u32 q, qi, n = 0;
	pid_t child;
	long long queued = dma_stat(self->index, "zerocopy_async_queued");
	long long done = dma_stat(self->index, "zerocopy_async_done");
	long long failed = dma_stat(self->index, "zerocopy_async_failed");
	__u64 off;
	int i;

	ASSERT_NE(NULL, z);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, nowhere);
	zb_setup(_metadata, self, z, 3, 8192);
	ctx = &z->b[ZB_BATCHES - 1];

	/* Core 0's default queue (0) has one; bits from 16 up name nothing. */
	ASSERT_EQ(0, cq_get(self->fd, 0, 0xffff0001, &a));
	for (q = 1; q < NQUEUES; q++) {
		EXPECT_EQ(0, a.compl_queue_info[q].mmap_offset);
		EXPECT_EQ(0, a.compl_queue_info[q].mmap_size);
	}
	EXPECT_EQ(CQ_BYTES, a.compl_queue_info[0].mmap_size);
	off = a.compl_queue_info[0].mmap_offset;
	ASSERT_EQ(0, cq_get(self->fd, 0, 1, &a));
	EXPECT_EQ(off, a.compl_queue_info[0].mmap_offset);
	c = cq_map(&self->undo, self->fd, 0, 0);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(CQ_ENTRIES, c->capacity);
	EXPECT_EQ(0, c->head);
	EXPECT_EQ(0, c->tail);
	EXPECT_EQ(-EINVAL, cq_get(self->fd, variant->g->ncs, 1, &a));
	EXPECT_EQ(-EINVAL, cq_get(self->fd, 0, 1U << (NQUEUES - 1), &a));
	EXPECT_EQ(-EINVAL, cq_get(self->fd, 0, 1U | 1U << (NQUEUES - 1), &a));

	/* Another process, attached, sharing this file: not its queue. */
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0;

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(cq_get(self->fd, 0, 1, &a) == -EACCES);
		CHILD_CHECK(cq_get(cfd, 0, 1, &a) == 0 && a.compl_queue_info[0].mmap_offset != off);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	/* Into the chunks, then out of them: each reported once done. */
	rnd_fill(in, ZB_SPAN);
	zb_point(z, in);
	ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 0, 1001));
	cq_expect(_metadata, c, n++, 1001, 0, ctx);
	zb_written(z);
	for (i = 0; i < ZB_BATCHES; i++)
		tc_check(_metadata, self, &z->t[i], "after an asynchronous transfer to them");
	zb_point(z, out);
	ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 0, -1, 0, 1002));
	cq_expect(_metadata, c, n++, 1002, 0, ctx);
	zb_read(_metadata, z);

	/* A synchronous call comes after the file's queued transfers. */
	rnd_fill(in, ZB_SPAN);
	zb_point(z, in);
	ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 0, 1003));
	zb_written(z);
	memset(out, 0, ZB_SPAN);
	zb_point(z, out);
	ASSERT_EQ(0, zc_batches(self->fd, z->b, ZB_BATCHES, 0, -1, 0));
	zb_read(_metadata, z);
	cq_expect(_metadata, c, n++, 1003, 0, ctx);

	/* A buffer that cannot be written: accepted, the entry says -EFAULT. */
	z->ops[1][2].buffer = nowhere;
	ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 0, -1, 0, 1004));
	cq_expect(_metadata, c, n++, 1004, -EFAULT, ctx);

	/* Refused, with nothing queued: the call's checks, a full queue, a bad head. */
	zb_point(z, in);
	EXPECT_EQ(-EOPNOTSUPP, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 1, 2001));
	EXPECT_EQ(-ENOENT, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, NQUEUES - 1, 0, 2002));
	EXPECT_EQ(-EINVAL, zc_batches_seq(self->fd, z->b, 0, 1, -1, 0, 2003));
	z->ops[2][0].size = 0;
	EXPECT_EQ(-EINVAL, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 0, 2004));
	zb_make(z);
	zb_point(z, in);
	c->head = c->tail - CQ_ENTRIES;
	EXPECT_EQ(-EBUSY, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 0, 2005));
	c->head = c->tail + 1;
	EXPECT_EQ(-EBUSY, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 0, 2006));
	/* Consumed up to one short of full: room for one more. */
	c->head = c->tail - CQ_ENTRIES + 1;
	ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, -1, 0, 1005));
	cq_expect(_metadata, c, n++, 1005, 0, ctx);
	/* One entry per transfer, none for a refused call. */
	EXPECT_EQ(n, c->tail);
	c->head = c->tail;
	zb_written(z);
	for (i = 0; i < ZB_BATCHES; i++)
		tc_check(_metadata, self, &z->t[i], "after the refused transfers");

	/* Many queued at once: one entry each, in order. */
	for (i = 0; i < 40; i++) {
		z->b[0].num_ops = 1 + i % ZB_OPS;
		ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, 1 + i % ZB_BATCHES, i & 1, -1, 0,
					    3000 + i));
	}
	for (i = 0; i < 40; i++)
		cq_expect(_metadata, c, n++, 3000 + i, 0, &z->b[i % ZB_BATCHES]);
	z->b[0].num_ops = ZB_OPS;
	c->head = c->tail;

	/* A copy queue has its own; the default queue's gets nothing. */
	q = claim(_metadata, self->fd, 0, 1, per);
	ASSERT_NE(0, q);
	qi = __builtin_ctz(q);
	ASSERT_EQ(0, cq_get(self->fd, 0, q | 1, &a));
	EXPECT_EQ(off, a.compl_queue_info[0].mmap_offset);
	EXPECT_NE(off, a.compl_queue_info[qi].mmap_offset);
	cc = cq_map(&self->undo, self->fd, 0, qi);
	ASSERT_NE(NULL, cc);
	rnd_fill(in, ZB_SPAN);
	ASSERT_EQ(0, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, qi, 0, 1006));
	cq_expect(_metadata, cc, 0, 1006, 0, ctx);
	EXPECT_EQ(n, c->tail);
	zb_written(z);
	for (i = 0; i < ZB_BATCHES; i++)
		tc_check(_metadata, self, &z->t[i], "through a copy queue");
	EXPECT_EQ(0, h2t_free(self->fd, 0, q));
	EXPECT_EQ(-ENOENT, zc_batches_seq(self->fd, z->b, ZB_BATCHES, 1, qi, 0, 2007));
	usleep(100000);
	EXPECT_EQ(1, cc->tail);
	EXPECT_EQ(n, c->tail);

	/* Debugfs counted them: 46 queued, 45 done, 1 failed. */
	EXPECT_EQ(queued + 46, dma_stat(self->index, "zerocopy_async_queued"));
	EXPECT_EQ(done + 45, dma_stat(self->index, "zerocopy_async_done"));
	EXPECT_EQ(failed + 1, dma_stat(self->index, "zerocopy_async_failed"));

	EXPECT_EQ(0, unmap(&self->undo, cc, CQ_BYTES));
	EXPECT_EQ(0, unmap(&self->undo, c, CQ_BYTES));
	for (i = 0; i < ZB_BATCHES; i++)
		tc_free(_metadata, self, &z->t[i]);
	munmap(nowhere, 2 * pg);
	free(in);
	free(out);
	free(z);
}

/* The 48-byte MEM_BUF_ZEROCOPY64 that runtimes before 2.33 send. */
static long zerocopy48(int fd, __u64 h, void *buf, __u64 len, __u64 off, int to_dev)
{
	struct neuron_ioctl_mem_buf_copy64zc_deprecated a = {
		.mem_handle = h, .buffer = buf, .size = len, .offset = off,
		.is_copy_to_device = to_dev, .h2t_qid = NEURON_DMA_H2T_DEFAULT_QID,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED, &a);
}

/* The 64-byte MEM_BUF_ZEROCOPY64 (2.29), queued with @seq and @ctx. */
static long zerocopy_seq(int fd, __u64 h, void *buf, __u64 len, __u64 off, int to_dev,
			 __u64 seq, void *ctx)
{
	struct neuron_ioctl_mem_buf_copy64zc a = {
		.mem_handle = h, .buffer = buf, .size = len, .offset = off,
		.is_copy_to_device = to_dev, .h2t_qid = NEURON_DMA_H2T_DEFAULT_QID,
		.sequence_num = seq, .context = ctx,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64, &a);
}

/*
 * Both sizes of MEM_BUF_ZEROCOPY64, as a 2.27-era and a 2.29-era runtime
 * send them, on one device: the 48-byte form is a synchronous transfer;
 * the 64-byte form with a sequence number is queued and its end reported
 * in the default queue's completion queue with that sequence number and
 * context; one with bad input is refused before anything is queued.
 */
TEST_F_TIMEOUT(dma, zerocopy64_forms, 300)
{
	const __u64 len = 256 * 1024 + 5, off = 11;
	unsigned char *in = malloc(len), *out = malloc(len);
	neuron_h2d_dma_compl_queue_t *c;
	struct tchunk t;
	__u32 n;

	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	tc_new(_metadata, self, &t, 0, MIB, 0);

	rnd_fill(in, len);
	EXPECT_EQ(0, zerocopy48(self->fd, t.h, in, len, off, 1));
	memcpy(t.shadow + off, in, len);
	memset(out, 0, len);
	EXPECT_EQ(0, zerocopy48(self->fd, t.h, out, len, off, 0));
	EXPECT_EQ(0, memcmp(in, out, len));
	EXPECT_EQ(-EINVAL, zerocopy48(self->fd, t.h, out, 1, t.size, 0));
	tc_check(_metadata, self, &t, "after the 48-byte MEM_BUF_ZEROCOPY64");

	c = cq_map(&self->undo, self->fd, 0, 0);
	ASSERT_NE(NULL, c);
	n = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
	rnd_fill(in, len);
	EXPECT_EQ(0, zerocopy_seq(self->fd, t.h, in, len, off, 1, 77, &t));
	cq_expect(_metadata, c, n, 77, 0, &t);
	memcpy(t.shadow + off, in, len);
	memset(out, 0, len);
	EXPECT_EQ(0, zerocopy_seq(self->fd, t.h, out, len, off, 0, 78, out));
	cq_expect(_metadata, c, n + 1, 78, 0, out);
	EXPECT_EQ(0, memcmp(in, out, len));
	__atomic_store_n(&c->head, n + 2, __ATOMIC_RELEASE);

	/* Refused, and nothing queued: no entry comes for them. */
	EXPECT_EQ(-EINVAL, zerocopy_seq(self->fd, t.h, out, 1, t.size, 0, 79, NULL));
	EXPECT_EQ(-EINVAL, zerocopy_seq(self->fd, t.h, out, 0, 0, 0, 79, NULL));
	EXPECT_EQ(-EINVAL, zerocopy_seq(self->fd, ~0ULL, out, 1, 0, 0, 79, NULL));
	EXPECT_EQ(-EFAULT, zerocopy_seq(self->fd, t.h, NULL, 1, 0, 0, 79, NULL));
	EXPECT_EQ(NULL, cq_wait(c, n + 2, 200));
	tc_check(_metadata, self, &t, "after the 64-byte MEM_BUF_ZEROCOPY64");
	tc_free(_metadata, self, &t);
	free(in);
	free(out);
}

/*
 * A process killed while its asynchronous transfer is held back (stalled
 * engines), with two more queued behind it and its completion queue
 * mapped: it dies at once; the held-back piece times out (the only
 * timeout: the queued transfers never start); then everything it had
 * comes back and the engines serve the next copy.
 */
TEST_F_TIMEOUT(dma, zerocopy_async_kill, 300)
{
	const __u64 size = 16 * MIB;
	struct tchunk h, d;
	int up[2], i;
	__u64 msg[2];
	pid_t child;
	long t;
	long long timeouts = dma_stat(self->index, "timeouts");
	long long done = dma_stat(self->index, "zerocopy_async_done");
	long long ended = dma_stat(self->index, "zerocopy_async_failed") +
			  dma_stat(self->index, "zerocopy_async_dropped");

	ASSERT_LE(0, timeouts);
	ASSERT_EQ(0, set_timeout(3000));
	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0;
		unsigned char *ubuf = malloc(size);
		nrt_tensor_batch_op_t op = { .offset = 0, .size = size, .buffer = ubuf };
		neuron_memcpy_batch_t b = { .ops_ptr = &op, .num_ops = 1 };
		neuron_h2d_dma_compl_queue_t *c;
		struct undo u = { 0 };
		__u64 v[2] = { 0, 0 };

		close(up[0]);
		CHILD_CHECK(cfd >= 0 && ubuf);
		CHILD_CHECK(alloc_dev(cfd, size, 0, &b.mem_handle) == 0);
		if (fails)
			_exit(child_status(fails));
		memset(ubuf, 0x3c, size);
		c = cq_map(&u, cfd, 0, 0);
		CHILD_CHECK(c);
		for (i = 0; i < 3; i++)
			CHILD_CHECK(zc_batches_seq(cfd, &b, 1, !(i & 1), -1, 0, 7 + i) == 0);
		v[1] = fails;
		CHILD_CHECK(put_u64s(up[1], v, 2) == 0);
		pause();
		_exit(child_status(fails));
	}
	close(up[1]);
	ASSERT_EQ(0, get_u64s(up[0], msg, 2)) TH_LOG("the child did not get going");
	ASSERT_EQ(0, msg[1]) TH_LOG("the child's transfers were not queued");
	usleep(200000);

	t = nt_now_ms();
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	t = nt_now_ms() - t;
	close(up[0]);
	TH_LOG("reaped %ld ms after SIGKILL", t);
	EXPECT_GT(2000, t) TH_LOG("the child took %ld ms to die", t);
	if (!mcount_reach(self->index, &self->start, 3000 + RELEASE_MS))
		TH_LOG("memory not back %d ms after the child died", 3000 + RELEASE_MS);
	check_counts(_metadata, self->index, &self->start, "after the killed transfer");
	EXPECT_EQ(timeouts + 1, dma_stat(self->index, "timeouts"));
	/* None of the three ended well: one timed out, two never started. */
	EXPECT_EQ(done, dma_stat(self->index, "zerocopy_async_done"));
	EXPECT_EQ(ended + 3, dma_stat(self->index, "zerocopy_async_failed") +
			     dma_stat(self->index, "zerocopy_async_dropped"));
	ASSERT_EQ(0, sim_set("dma_stall", "0"));

	tc_new(_metadata, self, &h, 1, 2 * pg, 0);
	tc_new(_metadata, self, &d, 0, 2 * pg, 0);
	tc_copy(_metadata, self, 1, &h, 1, &d, 3, 2 * pg - 7);
	tc_check(_metadata, self, &d, "after the killed transfer");
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &d);
	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));
}

/* PROGRAM_ENGINE (form 0), PROGRAM_ENGINE_NC (1) or PROGRAM_ENGINE_NC64 (2). */
static long program(int fd, int form, __u32 nc, __u64 dst, const void *buf, __u64 size,
		    __u64 off)
{
	struct neuron_ioctl_program_engine p = {
		.dst = dst, .buffer = (void *)buf, .size = size, .offset = off,
	};
	struct neuron_ioctl_program_engine_nc n = {
		.nc_id = nc, .dst = dst, .buffer = (void *)buf, .size = size, .offset = off,
	};
	struct neuron_ioctl_program_engine_nc64 w = {
		.nc_id = nc, .dst = dst, .buffer = (void *)buf, .size = size, .offset = off,
	};

	if (form == 0)
		return xioctl(fd, NEURON_IOCTL_PROGRAM_ENGINE, &p);
	if (form == 1)
		return xioctl(fd, NEURON_IOCTL_PROGRAM_ENGINE_NC, &n);
	return xioctl(fd, NEURON_IOCTL_PROGRAM_ENGINE_NC64, &w);
}

/*
 * PROGRAM_ENGINE, _NC and _NC64 into the caller's device chunks: the
 * offset applies to both the buffer and the address; what is outside
 * those chunks is refused and changes nothing.
 */
TEST_F_TIMEOUT(dma, program_engine, 300)
{
	static const char * const form[] = { "PROGRAM_ENGINE", "_NC", "_NC64" };
	const __u64 len = 65536 + 3 * pg + 5;
	unsigned char *buf = malloc(2 * len);
	struct dstats before, after;
	struct tchunk d, h;
	__u64 gone, gone_pa, off;
	int f;

	ASSERT_NE(NULL, buf);
	tc_new(_metadata, self, &d, 0, 2 * len, self->nhbm - 1);
	tc_new(_metadata, self, &h, 1, 4 * pg, 0);
	for (f = 0; f < 3; f++) {
		rnd_fill(buf, 2 * len);
		off = 7 + f * 1000;
		/* dst + off and buf + off, len bytes; then the very end of the chunk. */
		EXPECT_EQ(0, program(self->fd, f, f ? variant->g->ncs - 1 : 0, d.pa, buf, len, off))
			TH_LOG("%s", form[f]);
		memcpy(d.shadow + off, buf + off, len);
		EXPECT_EQ(0, program(self->fd, f, 0, d.pa + d.size - 3, buf, 3, 0))
			TH_LOG("%s", form[f]);
		memcpy(d.shadow + d.size - 3, buf, 3);
		tc_check(_metadata, self, &d, form[f]);
	}

	ASSERT_EQ(0, alloc_dev(self->fd, pg, 0, &gone));
	ASSERT_EQ(0, get_pa(self->fd, gone, &gone_pa));
	ASSERT_EQ(0, mem_free(self->fd, gone));
	ASSERT_EQ(0, dstats_read(&before));
	for (f = 0; f < 3; f++) {
		EXPECT_EQ(0, program(self->fd, f, 0, d.pa, buf, 0, 0)) TH_LOG("%s", form[f]);
		EXPECT_EQ(-EINVAL, program(self->fd, f, 0, d.pa + d.size - 3, buf, 4, 0))
			TH_LOG("%s", form[f]);
		EXPECT_EQ(-EINVAL, program(self->fd, f, 0, d.pa, buf, 4, d.size - 3))
			TH_LOG("%s", form[f]);
		EXPECT_EQ(-EINVAL, program(self->fd, f, 0, h.pa, buf, 4, 0)) TH_LOG("%s", form[f]);
		EXPECT_EQ(-EINVAL, program(self->fd, f, 0, ~0ULL - 1, buf, 4, 3))
			TH_LOG("%s", form[f]);
		EXPECT_EQ(-EOPNOTSUPP, program(self->fd, f, 0, gone_pa, buf, 4, 0))
			TH_LOG("%s", form[f]);
		EXPECT_EQ(-EOPNOTSUPP, program(self->fd, f, 0, 0x7fff00000000ULL, buf, 4, 0))
			TH_LOG("%s", form[f]);
		EXPECT_EQ(-EFAULT, program(self->fd, f, 0, d.pa, NULL, 4, 0)) TH_LOG("%s", form[f]);
		EXPECT_EQ(-EFAULT, program(self->fd, f, 0, d.pa, (void *)~0ULL, 4, 8))
			TH_LOG("%s", form[f]);
		if (f) {
			EXPECT_EQ(-EINVAL, program(self->fd, f, variant->g->ncs, d.pa, buf, 4, 0))
				TH_LOG("%s", form[f]);
			EXPECT_EQ(-EINVAL, program(self->fd, f, ~0U, d.pa, buf, 4, 0))
				TH_LOG("%s", form[f]);
		}
	}
	EXPECT_EQ(-EINVAL, program(self->fd, 2, 0, d.pa, buf, ~0ULL, 0));
	EXPECT_EQ(-EINVAL, program(self->fd, 2, 0, d.pa, buf, 4, ~0ULL));
	ASSERT_EQ(0, dstats_read(&after));
	EXPECT_EQ(before.descs, after.descs);
	EXPECT_EQ(before.bytes, after.bytes);
	tc_check(_metadata, self, &d, "after the refused PROGRAM_ENGINE");
	tc_check(_metadata, self, &h, "after the refused PROGRAM_ENGINE");
	tc_free(_metadata, self, &d);
	tc_free(_metadata, self, &h);
	free(buf);
}

/*
 * Random data through every path: user buffer to device and back (64 MiB
 * once), host to device, device to device across channels, device to host,
 * and within one chunk, both forms of each command, unaligned and
 * end-exact ranges; checked through MEM_BUF_COPY64 and through mappings.
 */
TEST_F_TIMEOUT(dma, integrity, 300)
{
	struct tchunk h, d[MAX_HBM];
	int c;

	integrity_big(_metadata, self);
	tc_new(_metadata, self, &h, 1, 4 * MIB, 0);
	for (c = 0; c < self->nhbm; c++)
		tc_new(_metadata, self, &d[c], 0, 4 * MIB + 65536, c);
	integrity_buf(_metadata, self, d);
	integrity_zerocopy(_metadata, self, &d[0]);
	integrity_copy(_metadata, self, &h, d);
	tc_free(_metadata, self, &h);
	for (c = 0; c < self->nhbm; c++)
		tc_free(_metadata, self, &d[c]);
	check_counts(_metadata, self->index, &self->start, "after the integrity test");
}

/*
 * The write barrier, which keeps the marker behind the data on hardware,
 * goes on the last data descriptor before each doorbell, not on every one:
 * a pinned buffer in 4 KiB pages is hundreds of descriptors, and a barrier
 * on each would hold the engine after each.  3 MiB of 4 KiB pages is two
 * pieces of pinned pages (512 at a time), so two doorbells, each way.
 */
TEST_F_TIMEOUT(dma, barriers, 300)
{
	const size_t len = 3 * MIB;
	unsigned char *buf, *back;
	long long b0, d0;
	struct tchunk d;
	int to;

	ASSERT_EQ(0, cpu_copy_off(&cpu_saved));
	tc_new(_metadata, self, &d, 0, len, 0);
	buf = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	/* EINVAL: a kernel without transparent huge pages, 4 KiB pages anyway. */
	ASSERT_TRUE(!madvise(buf, 2 * len, MADV_NOHUGEPAGE) || errno == EINVAL);
	back = buf + len;
	rnd_fill(buf, len);
	memset(back, 0, len);
	for (to = 1; to >= 0; to--) {
		b0 = sim_get("dma_barriers");
		d0 = sim_get("dma_descs");
		ASSERT_LE(0, b0);
		EXPECT_EQ(0, buf_copy(self->fd, 1, d.h, to ? buf : back, len, 0, to));
		EXPECT_EQ(2, sim_get("dma_barriers") - b0) TH_LOG("%s the device",
								  to ? "to" : "from");
		/* At least a pair of descriptors per 64 KiB, and the markers. */
		EXPECT_LE(2 * (long long)(len / 65536) + 4, sim_get("dma_descs") - d0);
	}
	EXPECT_EQ(0, memcmp(buf, back, len));
	munmap(buf, 2 * len);
	tc_free(_metadata, self, &d);
	check_counts(_metadata, self->index, &self->start, "after the barrier test");
}

/*
 * A copy into a chunk in more than one piece of pinned pages (2 MiB)
 * checks the whole buffer before the chunk changes: by its mappings where
 * it is private anonymous memory, by faulting it in otherwise.  Bad only
 * at its end, in each kind of memory: -EFAULT and the chunk unchanged.
 * Good across two mappings: copied.  Device and host chunks.
 */
TEST_F_TIMEOUT(dma, big_bad_buffers, 300)
{
	const size_t len = 3 * MIB + 5 * pg, n = len / pg;
	unsigned char *buf;
	struct tchunk c;
	int host, fd;

	for (host = 0; host < 2; host++) {
		tc_new(_metadata, self, &c, host, len, 0);
		/* Anonymous memory, its last page not readable, then not there. */
		buf = holey(n, 0);
		ASSERT_NE(NULL, buf);
		EXPECT_EQ(-EFAULT, buf_copy(self->fd, 1, c.h, buf, len, 0, 1))
			TH_LOG("%s chunk, the last page not readable", c.name);
		ASSERT_EQ(0, munmap(buf + len - pg, pg));
		EXPECT_EQ(-EFAULT, buf_copy(self->fd, 0, c.h, buf + 1, len - 1, 1, 1))
			TH_LOG("%s chunk, the last page not mapped", c.name);
		/* Two mappings (the second one read-only), then nothing. */
		ASSERT_EQ(0, mprotect(buf + MIB, len - MIB - pg, PROT_READ));
		EXPECT_EQ(-EFAULT, buf_copy(self->fd, 1, c.h, buf, len, 0, 1))
			TH_LOG("%s chunk, two mappings, then nothing", c.name);
		ASSERT_EQ(0, munmap(buf, len - pg));
		/* Shared memory, its last page past the end of its file. */
		fd = memfd_create("big_bad_buffers", 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ftruncate(fd, len));
		buf = mmap(NULL, len, RW, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, buf);
		memset(buf, 0x5c, len);
		ASSERT_EQ(0, ftruncate(fd, len - pg));
		EXPECT_EQ(-EFAULT, buf_copy(self->fd, 1, c.h, buf, len, 0, 1))
			TH_LOG("%s chunk, shared memory past the end of its file", c.name);
		tc_check(_metadata, self, &c, "after copies from bad buffers");
		/* The part within the file is good. */
		EXPECT_EQ(0, buf_copy(self->fd, 1, c.h, buf, len - pg, 0, 1))
			TH_LOG("%s chunk, shared memory", c.name);
		memset(c.shadow, 0x5c, len - pg);
		ASSERT_EQ(0, munmap(buf, len));
		ASSERT_EQ(0, close(fd));
		tc_check(_metadata, self, &c, "after a copy from shared memory");

		/* Anonymous memory in two mappings, all there. */
		buf = mmap(NULL, len, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, buf);
		rnd_fill(buf, len);
		ASSERT_EQ(0, mprotect(buf + MIB, len - MIB, PROT_READ));
		EXPECT_EQ(0, buf_copy(self->fd, 1, c.h, buf + 3, len - 3, 3, 1))
			TH_LOG("%s chunk, two mappings", c.name);
		memcpy(c.shadow + 3, buf + 3, len - 3);
		ASSERT_EQ(0, munmap(buf, len));
		tc_check(_metadata, self, &c, "after a copy from two mappings");
		tc_free(_metadata, self, &c);
	}
	check_counts(_metadata, self->index, &self->start, "after the big bad buffers");
}

/* MEMSET and MEMSET64 on device and host chunks; the value's low byte only. */
TEST_F_TIMEOUT(dma, memset, 300)
{
	struct tchunk d, h, big;

	tc_new(_metadata, self, &d, 0, 3 * pg + 100, self->nhbm - 1);
	tc_new(_metadata, self, &h, 1, 3 * pg + 100, 0);
	memset_ranges(_metadata, self, &d);
	memset_ranges(_metadata, self, &h);

	/* Across 64 KiB boundaries. */
	tc_new(_metadata, self, &big, 0, MIB + 2 * pg, 0);
	ASSERT_EQ(0, mem_set(self->fd, 1, big.h, 3, 0x1a5, MIB + 7));
	memset(big.shadow + 3, 0xa5, MIB + 7);
	ASSERT_EQ(0, mem_set(self->fd, 0, big.h, 65535, 0x75a, 65538));
	memset(big.shadow + 65535, 0x5a, 65538);
	tc_check(_metadata, self, &big, "MEMSET of 1 MiB + 7");

	tc_free(_metadata, self, &d);
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &big);
	check_counts(_metadata, self->index, &self->start, "after MEMSET");
}

/* Chained asynchronous copies and their waits, engines run inline and from a work item. */
TEST_F_TIMEOUT(dma, async, 300)
{
	char mode[16];

	async_chain(_metadata, self, "sync");
	ASSERT_EQ(0, nt_write(DMA_MODE, "async"));
	ASSERT_EQ(0, nt_read(mode, sizeof(mode), DMA_MODE));
	ASSERT_STREQ("async", mode);
	async_chain(_metadata, self, "async");
	ASSERT_EQ(0, nt_write(DMA_MODE, "sync"));
}

/*
 * Every refused argument of every command: -EINVAL for ranges, handles,
 * wait handles and engine and queue ids, none of which reaches an engine;
 * -EFAULT for what cannot be reached.  Copies work afterwards.
 */
TEST_F_TIMEOUT(dma, bad_input, 300)
{
	struct dstats before, after;
	struct tchunk d, d2, h;
	unsigned char *junk;
	__u32 wh;

	tc_new(_metadata, self, &d, 0, 32 * pg, 0);
	tc_new(_metadata, self, &d2, 0, 4 * pg, self->nhbm - 1);
	tc_new(_metadata, self, &h, 1, 4 * pg, 0);
	junk = malloc(33 * pg);
	ASSERT_NE(NULL, junk);
	memset(junk, 0xee, 33 * pg);
	ASSERT_EQ(0, dstats_read(&before));

	ranges_refused(_metadata, self, &d, &d2, junk);
	ranges_refused(_metadata, self, &h, &d2, junk);
	ranges_refused(_metadata, self, &d2, &h, junk);
	handles_refused(_metadata, self, &d, &d2, &h);
	EXPECT_EQ(-EINVAL, copy_async(self->fd, 0, h.h, d.h, 64, 0, 0, 0, &wh));
	EXPECT_EQ(-EINVAL, copy_async(self->fd, 1, h.h, d.h, 64, 0, 0, 3, &wh));
	EXPECT_EQ(-EINVAL, async_wait(self->fd, h.h, d.h, H_NONE));
	EXPECT_EQ(-EINVAL, async_wait(self->fd, h.h, d.h, 0));
	ids_refused(_metadata, self, variant);

	/* None of that reached an engine. */
	ASSERT_EQ(0, dstats_read(&after));
	EXPECT_EQ(before.errors, after.errors);
	EXPECT_EQ(before.descs, after.descs);
	EXPECT_EQ(before.bytes, after.bytes);
	tc_check(_metadata, self, &d, "after the refused arguments");
	tc_check(_metadata, self, &d2, "after the refused arguments");
	tc_check(_metadata, self, &h, "after the refused arguments");

	pointers_refused(_metadata, self, &d);
	size_zero(_metadata, self, &d);

	/* Copies still work, and no engine ever failed. */
	tc_copy(_metadata, self, 1, &h, 5, &d, 7, 3 * pg);
	tc_copy(_metadata, self, 0, &d, 0, &d2, 1, 4 * pg - 1);
	tc_check(_metadata, self, &d, "copies after the refused arguments");
	tc_check(_metadata, self, &d2, "copies after the refused arguments");
	EXPECT_EQ(before.errors, sim_get("dma_errors"));

	free(junk);
	tc_free(_metadata, self, &d);
	tc_free(_metadata, self, &d2);
	tc_free(_metadata, self, &h);
	check_counts(_metadata, self->index, &self->start, "after the refused arguments");
}

/*
 * User pages pinned in the whole system (FOLL_PIN pins acquired minus
 * released, /proc/vmstat, per-CPU counts folded first), or -1.
 */
static long long pins_held(void)
{
	long long acq = -1, rel = -1, v;
	char name[64];
	FILE *f;

	if (nt_write("/proc/sys/vm/stat_refresh", "1"))
		return -1;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	return acq < 0 || rel < 0 ? -1 : acq - rel;
}

/* Doorbells of engines @first to @first + @n - 1 (the simulator's dma_doorbells). */
static int doorbells(long long *db, unsigned int n, unsigned int first)
{
	unsigned long e;
	char path[128];
	long long c;
	FILE *f;

	memset(db, 0, n * sizeof(*db));
	snprintf(path, sizeof(path), SIM_DEBUGFS, DEV, "dma_doorbells");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%lu %lld", &e, &c) == 2)
		if (e >= first && e < first + n)
			db[e - first] = c;
	fclose(f);
	return 0;
}

/*
 * A copy that times out on an engine that stops when told to gives back
 * everything it used at once, and the channel works on.  With the
 * simulator's dma_busy_after_disable, the engine keeps running its copy:
 * the copy still fails with ETIMEDOUT, after the driver waited for the
 * engine (NEURON_UDMA_QUIESCE_MS, 250 ms); the channel is dead (never used
 * again); what the copy used stays the driver's (the user pages pinned,
 * the chunk counted after its handle is freed), so that the engine, let go,
 * writes into pages that are still pinned; once every channel is dead,
 * copies fail with EIO at once.  Removing the device, with the engines
 * willing to stop, lets everything go (kmemleak and KASAN watch).  The
 * device is created again for the teardown's accounting.
 */
static void fault_busy(struct __test_metadata *_metadata, struct dma_self *self,
		       const struct dma_variant *variant)
{
	const unsigned int chans = variant->g->engines - variant->g->user;
	const long long npages = 17;
	const __u64 len = 16 * pg + 100;
	long long db0[4], db1[4], pins0, pins;
	struct neuron_dma_eng_state es;
	struct mcount base, now;
	unsigned int i, dead;
	struct tchunk h, d, d2;
	unsigned char *buf;
	long ret, t;

	ASSERT_GE(4, chans);
	ASSERT_LE(2, chans);
	pins0 = pins_held();
	if (pins0 < 0)
		TH_LOG("no FOLL_PIN counts in /proc/vmstat: pins not checked");
	tc_new(_metadata, self, &d, 0, npages * pg, 0);
	tc_new(_metadata, self, &h, 1, 2 * pg, 0);
	tc_new(_metadata, self, &d2, 0, 2 * pg, self->nhbm - 1);
	base = counts_now(_metadata, self->index);
	buf = mmap(NULL, npages * pg, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0xa5, npages * pg);

	/* The engine stops when told to: nothing is kept, the channel works on. */
	ASSERT_EQ(0, set_timeout(200));
	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	EXPECT_EQ(-ETIMEDOUT, buf_copy(self->fd, 1, d.h, buf, len, 0, 0));
	EXPECT_EQ(0, dma_stat(self->index, "dead_channels"));
	EXPECT_EQ(0, dma_stat(self->index, "dead_channel_pages"));
	pins = pins_held();
	if (pins0 >= 0)
		EXPECT_GT(npages, pins - pins0) TH_LOG("pages left pinned by a stopped engine");
	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	check_counts(_metadata, self->index, &base, "after a timeout, engines stopping");
	tc_fill(_metadata, self, &h);
	tc_copy(_metadata, self, 1, &h, 0, &d2, 0, 2 * pg);
	tc_check(_metadata, self, &d2, "after a timeout, engines stopping");

	/* The engine keeps running: the channel dies and keeps what it used. */
	ASSERT_EQ(0, sim_set("dma_busy_after_disable", "1"));
	EXPECT_EQ(1, sim_get("dma_busy_after_disable"));
	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	ASSERT_EQ(0, doorbells(db0, chans, variant->g->user));
	t = nt_now_ms();
	ret = buf_copy(self->fd, 1, d.h, buf, len, 0, 0);
	t = nt_now_ms() - t;
	EXPECT_EQ(-ETIMEDOUT, ret);
	EXPECT_LE(400, t) TH_LOG("timed out after %ld ms: no wait for the engine to stop", t);
	EXPECT_GT(5000, t) TH_LOG("timed out after %ld ms", t);
	ASSERT_EQ(0, doorbells(db1, chans, variant->g->user));
	dead = chans;
	for (i = 0; i < chans; i++) {
		if (db1[i] == db0[i])
			continue;
		EXPECT_EQ(chans, dead) TH_LOG("engines %u and %u rung", dead, i);
		dead = i;
	}
	ASSERT_GT(chans, dead) TH_LOG("no host engine was rung");
	EXPECT_EQ(1, dma_stat(self->index, "dead_channels"));
	EXPECT_EQ(npages, dma_stat(self->index, "dead_channel_pages"));
	pins = pins_held();
	if (pins0 >= 0)
		EXPECT_LE(npages, pins - pins0) TH_LOG("the user pages were unpinned");
	ASSERT_EQ(0, eng_state(self->fd, variant->g->user + dead, &es));
	EXPECT_EQ(NEURON_DMA_ENG_NORMAL, es.tx_state) TH_LOG("the dead channel's engine");
	EXPECT_EQ(NEURON_DMA_ENG_NORMAL, es.rx_state) TH_LOG("the dead channel's engine");
	/* Its chunk stays: freeing the handle leaves the chunk and its bytes counted. */
	tc_free(_metadata, self, &d);
	now = counts_now(_metadata, self->index);
	EXPECT_EQ(base.chunks, now.chunks) TH_LOG("the dead channel's chunk was let go");
	EXPECT_EQ(base.device_bytes, now.device_bytes);
	EXPECT_EQ(base.handles - 1, now.handles);

	/*
	 * Let go, the engine runs the copy it was given, into pages this
	 * process no longer maps: still pinned, they are still there.
	 */
	EXPECT_EQ(0, munmap(buf, npages * pg));
	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	ASSERT_EQ(0, eng_state(self->fd, variant->g->user + dead, &es));
	EXPECT_EQ(NEURON_DMA_ENG_IDLE, es.tx_state) TH_LOG("done, the engine stops");

	/* The dead channel is never used again; the others work. */
	tc_fill(_metadata, self, &h);
	tc_copy(_metadata, self, 1, &h, 0, &d2, 0, 2 * pg);
	tc_check(_metadata, self, &d2, "next to a dead channel");
	ASSERT_EQ(0, doorbells(db0, chans, variant->g->user));
	EXPECT_EQ(db1[dead], db0[dead]) TH_LOG("the dead channel's engine was rung again");

	/* Every channel dies in turn: then copies fail at once with EIO. */
	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	for (i = 1; i < chans; i++)
		EXPECT_EQ(-ETIMEDOUT, mem_copy(self->fd, 1, h.h, d2.h, pg, 0, 0))
			TH_LOG("copy %u while stalled", i);
	EXPECT_EQ(chans, dma_stat(self->index, "dead_channels"));
	t = nt_now_ms();
	EXPECT_EQ(-EIO, mem_copy(self->fd, 1, h.h, d2.h, pg, 0, 0));
	EXPECT_EQ(-EIO, mem_set(self->fd, 1, d2.h, 0, 0x11, pg));
	EXPECT_EQ(-EIO, buf_copy(self->fd, 1, d2.h, h.shadow, pg, 0, 1));
	t = nt_now_ms() - t;
	EXPECT_GT(150, t) TH_LOG("no channel left, yet %ld ms", t);
	/* Host chunks are the CPU's to copy. */
	EXPECT_EQ(0, buf_copy(self->fd, 1, h.h, h.shadow, pg, 0, 1));
	tc_free(_metadata, self, &h);
	tc_free(_metadata, self, &d2);
	now = counts_now(_metadata, self->index);
	EXPECT_EQ(base.chunks, now.chunks) TH_LOG("the dead channels' chunks were let go");
	EXPECT_EQ(base.host_bytes, now.host_bytes);
	EXPECT_EQ(base.device_bytes, now.device_bytes);
	EXPECT_EQ(base.handles - 3, now.handles);

	/*
	 * Let go, the dead engines run what they were given, into chunks that
	 * are still there, and stop.  Removing the device lets everything go.
	 */
	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	ASSERT_EQ(0, sim_set("dma_busy_after_disable", "0"));
	EXPECT_EQ(chans, engines_check(_metadata, self, variant, "dead channels, let go"))
		TH_LOG("the dead channels' engines did not all stop");
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, nt_sim_del(DEV));
	pins = pins_held();
	if (pins0 >= 0)
		EXPECT_GT(npages, pins - pins0) TH_LOG("pages still pinned after the device went");

	/* The device comes back for the teardown's accounting, fresh. */
	sim_device_back(_metadata, DEV, variant->g->gen, self->index, SETTLE_MS, &self->fd,
			&self->start);
	EXPECT_EQ(0, sim_get("dma_busy_after_disable"));
	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));
}

/* ---- Removal and unloading with a maximal user transfer queued -------- */

#define HUGE_CHUNK	(64 * MIB)
#define HUGE_OPS	65536	/* the most one call takes: 4 TiB in all */

/*
 * In a child: one synchronous MEM_BUF_ZEROCOPY64_BATCHES call moving a
 * 64 MiB buffer into a device chunk HUGE_OPS times, which would take days.
 * Sends 0 when it starts, then the call's result.
 */
static void huge_transfer_child(const struct dma_self *self, int wfd)
{
	nrt_tensor_batch_op_t *ops = calloc(HUGE_OPS, sizeof(*ops));
	unsigned char *ubuf = malloc(HUGE_CHUNK);
	int cfd = open_node(self->index, O_RDWR), fails = 0, k;
	neuron_memcpy_batch_t b;
	__u64 h = 0, v[2] = { 0, 0 };

	CHILD_CHECK(cfd >= 0 && ops && ubuf);
	CHILD_CHECK(alloc_dev(cfd, HUGE_CHUNK, 0, &h) == 0);
	if (fails)
		_exit(child_status(fails));
	memset(ubuf, 0x6b, HUGE_CHUNK);
	for (k = 0; k < HUGE_OPS; k++)
		ops[k] = (nrt_tensor_batch_op_t){ .buffer = ubuf, .size = HUGE_CHUNK };
	b = (neuron_memcpy_batch_t){ .mem_handle = h, .ops_ptr = ops, .num_ops = HUGE_OPS };
	CHILD_CHECK(put_u64s(wfd, v, 2) == 0);
	v[0] = 1;
	v[1] = zc_batches(cfd, &b, 1, 1, NEURON_DMA_H2T_DEFAULT_QID, 0);
	CHILD_CHECK(put_u64s(wfd, v, 2) == 0);
	_exit(child_status(fails));
}

/*
 * Start huge_transfer_child(), wait until its bytes move, then run @stop
 * ("remove" the device or "unload" neuron_udma) and time it.  The call
 * must end with @want within one piece, not when its terabytes are done.
 */
static void huge_transfer_stopped(struct __test_metadata *_metadata, struct dma_self *self,
				  const char *stop, long want)
{
	long long b0, b = 0;
	__u64 msg[2];
	int up[2];
	pid_t child;
	long t;

	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		close(up[0]);
		huge_transfer_child(self, up[1]);
	}
	close(up[1]);
	ASSERT_TRUE(get_u64s_within(up[0], msg, 2, 20000)) TH_LOG("the child did not start");
	ASSERT_EQ(0, msg[0]);
	b0 = sim_get("dma_bytes");
	for (t = nt_now_ms(); nt_now_ms() - t < 20000; usleep(20000)) {
		b = sim_get("dma_bytes");
		if (b - b0 >= (long long)(2 * HUGE_CHUNK))
			break;
	}
	ASSERT_LE(b0 + (long long)(2 * HUGE_CHUNK), b) TH_LOG("the transfer does not move");

	t = nt_now_ms();
	if (!strcmp(stop, "remove")) {
		close(self->fd);
		self->fd = -1;
		ASSERT_EQ(0, nt_sim_del(DEV));
	} else {
		ASSERT_EQ(0, nt_sh("modprobe -r neuron_udma"));
	}
	t = nt_now_ms() - t;
	TH_LOG("%s: done %ld ms after it started, with %d x %llu MiB queued", stop, t,
	       HUGE_OPS, HUGE_CHUNK / MIB);
	/* A piece is 2 MiB; the debug kernel under TCG is slow, but not this slow. */
	EXPECT_GT(10000, t) TH_LOG("%s waited for the user's transfer", stop);
	ASSERT_TRUE(get_u64s_within(up[0], msg, 2, 20000)) TH_LOG("the call did not end");
	EXPECT_EQ(1, msg[0]);
	EXPECT_EQ(want, (long)msg[1]) TH_LOG("the transfer after %s", stop);
	close(up[0]);
	EXPECT_EQ(0, reap(&self->undo, child));
}

/*
 * Removing the device, or unloading the DMA plane, while a process has
 * terabytes of transfer queued in one call: both end the call at its next
 * piece (-ENODEV, -EAGAIN) instead of waiting for it.
 */
TEST_F_TIMEOUT(dma, removal_bounded, 300)
{
	ASSERT_EQ(0, set_timeout(30000));
	huge_transfer_stopped(_metadata, self, "unload", -EAGAIN);
	/* The plane comes back with its next command; the counters stay the device's. */
	ASSERT_EQ(0, nt_sh("modprobe neuron_udma"));
	if (self->timeout[0])
		ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));
	mcount_reach(self->index, &self->start, RELEASE_MS);
	check_counts(_metadata, self->index, &self->start, "after the unload");

	huge_transfer_stopped(_metadata, self, "remove", -ENODEV);
	/* The device comes back for the teardown's accounting, fresh. */
	sim_device_back(_metadata, DEV, variant->g->gen, self->index, SETTLE_MS, &self->fd,
			&self->start);
}

/* ---- A user buffer whose page fault never resolves --------------------- */

#define STALLERS	6	/* more than the channels of any device */

struct staller {
	int fd;
	__u64 h;
	unsigned char *buf;
	__u64 size;
	long ret;
	pthread_t t;
};

static void *staller_run(void *arg)
{
	struct staller *st = arg;

	/* Into the chunk: the driver reads the buffer, whose fault waits for us. */
	st->ret = buf_copy(st->fd, 1, st->h, st->buf, st->size, 0, 1);
	return NULL;
}

/* Pending faults of @uffd, read within @ms; each thread stalls on its own page. */
static int uffd_faults(int uffd, int want, int ms)
{
	struct uffd_msg msg;
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	long t0 = nt_now_ms();
	int got = 0;

	while (got < want && nt_now_ms() - t0 < ms) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			got++;
	}
	return got;
}

/*
 * Threads whose copies fault on userfaultfd-registered memory that nobody
 * resolves: bounce-sized copies and pinned ones, more of them than the
 * device has channels.  No channel may be held while a fault waits, so
 * another process's copies go on meanwhile; once the faults resolve (the
 * userfaultfd closes), the stalled copies finish too.
 */
TEST_F_TIMEOUT(dma, user_fault_stall, 300)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct staller st[STALLERS];
	const size_t span = 8 * pg;
	unsigned char *area;
	struct tchunk d;
	__u64 msg[2] = { 1, 1 };
	int uffd, up[2], i, n;
	pid_t child;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "no userfaultfd in this kernel (%s)", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	area = mmap(NULL, STALLERS * span, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	reg.range.start = (uintptr_t)area;
	reg.range.len = STALLERS * span;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	tc_new(_metadata, self, &d, 0, STALLERS * span, 0);
	for (i = 0; i < STALLERS; i++) {
		st[i] = (struct staller){
			.fd = self->fd, .h = d.h, .buf = area + i * span,
			/* Half through the bounce buffer, half pinned. */
			.size = i % 2 ? span : 64, .ret = 1,
		};
		ASSERT_EQ(0, pthread_create(&st[i].t, NULL, staller_run, &st[i]));
	}
	n = uffd_faults(uffd, STALLERS, 10000);
	EXPECT_EQ(STALLERS, n) TH_LOG("only %d of the copies fault", n);

	/* Another process copies, small and large, while they wait. */
	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0;
		unsigned char *b = malloc(MIB);
		__u64 h = 0, v[2] = { 0, 0 };

		close(up[0]);
		CHILD_CHECK(cfd >= 0 && b);
		CHILD_CHECK(alloc_dev(cfd, MIB, 0, &h) == 0);
		if (fails)
			_exit(child_status(fails));
		memset(b, 0x3c, MIB);
		v[1] = buf_copy(cfd, 1, h, b, 64, 0, 1);
		if (!v[1])
			v[1] = buf_copy(cfd, 1, h, b, MIB, 0, 1);
		if (!v[1])
			v[1] = buf_copy(cfd, 1, h, b, MIB, 0, 0);
		CHILD_CHECK(put_u64s(up[1], v, 2) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	EXPECT_TRUE(get_u64s_within(up[0], msg, 2, 20000))
		TH_LOG("another process's copies wait for a fault in this one");
	EXPECT_EQ(0, (long)msg[1]);
	close(up[0]);

	/* Closing the userfaultfd resolves the faults: the copies finish. */
	close(uffd);
	for (i = 0; i < STALLERS; i++) {
		pthread_join(st[i].t, NULL);
		EXPECT_EQ(0, st[i].ret) TH_LOG("stalled copy %d", i);
	}
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(0, munmap(area, STALLERS * span));
	tc_free(_metadata, self, &d);
}

/*
 * Engine faults: a stall times out, an abort fails the copy; both recover.
 * An engine that does not stop when a copy times out kills its channel.
 */
TEST_F_TIMEOUT(dma, faults, 300)
{
	fault_stall(_metadata, self, variant);
	fault_abort(_metadata, self, variant);
	fault_busy(_metadata, self, variant);
}

/* A process killed while its copy is held back. */
TEST_F_TIMEOUT(dma, kill, 300)
{
	int mode;

	for (mode = 0; mode < 3; mode++)
		kill_copy(_metadata, self, variant, mode);
}

/* ---- hbm_scrub ------------------------------------------------------ */

#define SCRUB_PAT	0x5ca1ab1eU
/* Free memory left on the channel, so that each fill is short. */
#define SCRUB_FREE	(16 * MIB)
#define SCRUB_B		(4 * MIB)
/* Most free memory a scrub holds aside at once. */
#define SCRUB_PIECE	(4 * MIB)
/* What scrub_neighbour() allocates, over and over. */
#define SCRUB_NB	(1 * MIB)

/* held_bytes of the device's memory file: what scrubs hold aside; -1 if unreadable. */
static long long mem_held(int index)
{
	char path[96], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), MEM_COUNTERS, index);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "held_bytes ", 11))
			v = strtoll(line + 11, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Poll mem_held() until it is non-zero (@nonzero) or zero, for up to
 * @ms; 1 if it got there, else 0 with the last reading in *@last.
 */
static int held_within(int index, int nonzero, long ms, long long *last)
{
	long end = nt_now_ms() + ms;

	do {
		*last = mem_held(index);
		if (*last >= 0 && !!*last == nonzero)
			return 1;
		usleep(10000);
	} while (nt_now_ms() < end);
	return 0;
}

static long scrub_start(int fd, __u32 nc, __u32 hbm, __u32 axi, __u32 val)
{
	struct neuron_ioctl_hbm_scrub_start a = {
		.nc_id = nc, .hbm_index = hbm, .axi_port = axi, .init_val = val,
	};

	return xioctl(fd, NEURON_IOCTL_HBM_SCRUB_START, &a);
}

static long scrub_wait(int fd, __u32 nc, __u32 hbm)
{
	struct neuron_ioctl_hbm_scrub_wait a = { .nc_id = nc, .hbm_index = hbm };

	return xioctl(fd, NEURON_IOCTL_HBM_SCRUB_WAIT, &a);
}

/* A child: another process's HBM_SCRUB_WAIT finds nothing of its own. */
static int scrub_stranger(const struct dma_self *self, __u32 hbm)
{
	int fd = open_node(self->index, O_RDWR), fails = 0;

	if (fd < 0)
		return 100;
	CHILD_CHECK(scrub_wait(fd, 0, hbm) == -EINVAL);
	close(fd);
	return child_status(fails);
}

/* A child: a scrub of @hbm (held back by dma_stall until the parent lets go). */
static int scrub_runner(const struct dma_self *self, __u32 hbm)
{
	int fd = open_node(self->index, O_RDWR), fails = 0;
	long ret;

	if (fd < 0)
		return 100;
	ret = scrub_start(fd, 0, hbm, 0, ~SCRUB_PAT);
	CHILD_CHECK(ret == 0);
	if (ret)
		fprintf(stderr, "# child: HBM_SCRUB_START: %s\n", strerror((int)-ret));
	CHILD_CHECK(scrub_wait(fd, 0, hbm) == 0);
	close(fd);
	return child_status(fails);
}

/*
 * Whether a page of channel @hbm can be allocated now: 1 yes, 0 no (a
 * scrub holds all of its free memory), -1 another error.
 */
static int page_allocatable(int fd, __u32 hbm)
{
	__u64 h;
	long ret = alloc_dev(fd, pg, hbm, &h);

	if (ret == -ENOMEM)
		return 0;
	if (ret || mem_free(fd, h))
		return -1;
	return 1;
}

/*
 * Poll page_allocatable() until it reads @want, for up to @ms; 1 if it
 * did, else 0 with the last reading in *@last.
 */
static int allocatable_within(int fd, __u32 hbm, int want, long ms, int *last)
{
	long end = nt_now_ms() + ms;

	do {
		*last = page_allocatable(fd, hbm);
		if (*last == want)
			return 1;
		usleep(10000);
	} while (*last >= 0 && nt_now_ms() < end);
	return 0;
}

/*
 * With the engines stalled, fork a child that scrubs @hbm, and wait until
 * its scrub holds a piece of the channel's free memory (no more than a
 * piece).  The child's pid.
 */
static pid_t scrub_held(struct __test_metadata *_metadata, struct dma_self *self, __u32 hbm)
{
	long t = nt_now_ms();
	long long held;
	pid_t child;

	ASSERT_EQ(0, sim_set("dma_stall", "1"));
	child = spawn(_metadata, &self->undo);
	if (!child)
		_exit(scrub_runner(self, hbm));
	EXPECT_TRUE(held_within(self->index, 1, 60000, &held)) {
		TH_LOG("the scrub holds nothing: %lld after %ld ms", held, nt_now_ms() - t);
	}
	EXPECT_GE(SCRUB_PIECE, held) TH_LOG("the scrub holds more than a piece");
	return child;
}

/*
 * While a held-back scrub of @hbm holds its piece: the rest of the channel's
 * free memory is this process's to allocate, page by page and in a chunk of
 * two pieces, and the scrub still holds no more than its piece.
 */
static void scrub_beside_piece(struct __test_metadata *_metadata, struct dma_self *self,
			       __u32 hbm)
{
	long long held;
	long ret;
	__u64 h;
	int i;

	for (i = 0; i < 20; i++) {
		if (page_allocatable(self->fd, hbm) != 1) {
			TH_LOG("no page of channel %u while the scrub holds a piece (%d)", hbm, i);
			_metadata->exit_code = KSFT_FAIL;
			break;
		}
	}
	ret = alloc_dev(self->fd, 2 * SCRUB_PIECE, hbm, &h);
	EXPECT_EQ(0, ret) {
		TH_LOG("%llu MiB of channel %u while the scrub holds a piece",
		       2 * SCRUB_PIECE / MIB, hbm);
	}
	if (!ret)
		EXPECT_EQ(0, mem_free(self->fd, h));
	held = mem_held(self->index);
	EXPECT_LT(0, held);
	EXPECT_GE(SCRUB_PIECE, held);
}

/* HBM_SCRUB_START on another thread of a process. */
struct scrub_call {
	int fd;
	__u32 hbm;
	long ret;
};

static void *scrub_thread(void *arg)
{
	struct scrub_call *c = arg;

	c->ret = scrub_start(c->fd, 0, c->hbm, 0, SCRUB_PAT);
	return NULL;
}

/*
 * A child: through the parent's file @pfd (inherited), a thread starts a
 * scrub of @hbm that dma_stall holds back; meanwhile the child closes the
 * file it attached with, and only then lets the engines go.  The scrub
 * finds it detached (EACCES) and leaves no result: attached again, it has
 * nothing to wait for.
 */
static int scrub_leaver(const struct dma_self *self, int pfd, __u32 hbm)
{
	struct scrub_call c = { .fd = pfd, .hbm = hbm, .ret = 1 };
	int own = open_node(self->index, O_RDWR), fails = 0;
	long long held;
	pthread_t t;

	if (own < 0 || pthread_create(&t, NULL, scrub_thread, &c))
		return 100;
	/* Holding a piece, the scrub is past the gate, in its fill. */
	CHILD_CHECK(held_within(self->index, 1, 60000, &held));
	CHILD_CHECK(close(own) == 0);
	CHILD_CHECK(sim_set("dma_stall", "0") == 0);
	pthread_join(t, NULL);
	CHILD_CHECK(c.ret == -EACCES);
	if (c.ret)
		fprintf(stderr, "# child: HBM_SCRUB_START: %ld\n", c.ret);
	own = open_node(self->index, O_RDWR);
	CHILD_CHECK(own >= 0);
	CHILD_CHECK(scrub_wait(own, 0, hbm) == -EINVAL);
	CHILD_CHECK(scrub_wait(pfd, 0, hbm) == -EINVAL);
	close(own);
	return child_status(fails);
}

/*
 * A process that detaches while its scrub runs keeps no result (nothing
 * holds its pid), nor does anyone else; the next scrub runs.  The engines
 * are held back (dma_stall) when this starts.
 */
static void scrub_detach(struct __test_metadata *_metadata, struct dma_self *self, __u32 hbm)
{
	pid_t child;

	child = spawn(_metadata, &self->undo);
	if (!child)
		_exit(scrub_leaver(self, self->fd, hbm));
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(-EINVAL, scrub_wait(self->fd, 0, hbm)) TH_LOG("the detached child's scrub");
	EXPECT_EQ(0, mem_held(self->index));
}

/*
 * A child: allocates a chunk of @hbm, writes it through a mapping, checks
 * it, frees it, over and over until a byte arrives on @stop (one goes to
 * @ready after the first round).  No allocation may fail and no chunk may
 * change under it while another process scrubs the channel.
 */
static int scrub_neighbour(const struct dma_self *self, __u32 hbm, int ready, int stop)
{
	struct pollfd p = { .fd = stop, .events = POLLIN };
	int fd = open_node(self->index, O_RDWR), fails = 0;
	long rounds = 0, nomem = 0, changed = 0;
	unsigned char *m;
	__u64 h, pa;
	long ret;

	if (fd < 0)
		return 100;
	for (;;) {
		ret = alloc_dev(fd, SCRUB_NB, hbm, &h);
		if (ret == -ENOMEM) {
			nomem++;
		} else if (ret || get_pa(fd, h, &pa)) {
			fprintf(stderr, "# child: MEM_ALLOC_V2: %ld\n", ret);
			fails++;
			break;
		}
		if (!ret) {
			m = mmap_filled(fd, pa, SCRUB_NB, 0x3c);
			if (m == MAP_FAILED) {
				fails++;
				break;
			}
			sched_yield();
			changed += not_byte(m, 0x3c, SCRUB_NB) != 0;
			munmap(m, SCRUB_NB);
			CHILD_CHECK(mem_free(fd, h) == 0);
		}
		if (++rounds == 1 && write(ready, "r", 1) != 1)
			fails++;
		if (poll(&p, 1, 0) == 1)
			break;
	}
	if (nomem || changed)
		fprintf(stderr, "# child: %ld of %ld allocations refused, %ld chunks changed\n",
			nomem, rounds, changed);
	CHILD_CHECK(nomem == 0);
	CHILD_CHECK(changed == 0);
	close(fd);
	return child_status(fails);
}

/*
 * A scrub of the whole of channel @hbm (nothing allocated on it) while
 * another process allocates, uses and frees chunks there all along: none
 * of its allocations is refused, none of its chunks is written; then
 * HBM_SCRUB_WAIT collects the scrub, and memory that was free throughout
 * (the top of the channel, above anything first fit gave the other
 * process) holds the pattern.
 */
static void scrub_alongside(struct __test_metadata *_metadata, struct dma_self *self, __u32 hbm)
{
	const __u64 chan = 512 * MIB / self->nhbm;
	struct neuron_ioctl_mem_get_extended_info ei;
	int ready[2], stop[2];
	__u64 low = 0, top;
	unsigned char *m;
	pid_t child;
	long t;
	size_t bad;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(stop));
	child = spawn(_metadata, &self->undo);
	if (!child) {
		close(ready[0]);
		close(stop[1]);
		_exit(scrub_neighbour(self, hbm, ready[1], stop[0]));
	}
	close(ready[1]);
	close(stop[0]);
	EXPECT_EQ(0, wait_byte(ready[0])) TH_LOG("the other process never allocated");
	t = nt_now_ms();
	EXPECT_EQ(0, scrub_start(self->fd, 0, hbm, 0, SCRUB_PAT));
	TH_LOG("a scrub of all %llu MiB of channel %u beside allocations: %ld ms",
	       (unsigned long long)(chan / MIB), hbm, nt_now_ms() - t);
	EXPECT_EQ(1, write(stop[1], "s", 1));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(ready[0]);
	close(stop[1]);
	EXPECT_EQ(0, mem_held(self->index));
	EXPECT_EQ(0, scrub_wait(self->fd, 0, hbm));

	/* All but the top of the channel, then the top: it was never anyone's. */
	if (alloc_dev(self->fd, chan - 2 * SCRUB_B, hbm, &low)) {
		TH_LOG("no %llu MiB chunk on channel %u: the pattern is not checked",
		       (unsigned long long)((chan - 2 * SCRUB_B) / MIB), hbm);
		return;
	}
	ASSERT_EQ(0, alloc_dev(self->fd, SCRUB_B, hbm, &top));
	ASSERT_EQ(0, ext_info(self->fd, top, &ei));
	m = map(&self->undo, self->fd, ei.pa, SCRUB_B, RW, MAP_SHARED);
	EXPECT_NE(MAP_FAILED, m);
	if (m != MAP_FAILED) {
		bad = not_pattern(m, SCRUB_B, SCRUB_PAT);
		EXPECT_EQ(0, bad) TH_LOG("memory free throughout: %zu words are not the pattern",
					 bad);
		EXPECT_EQ(0, unmap(&self->undo, m, SCRUB_B));
	}
	EXPECT_EQ(0, mem_free(self->fd, top));
	EXPECT_EQ(0, mem_free(self->fd, low));
}

/*
 * HBM_SCRUB_START fills the free memory of one channel with the pattern and
 * leaves chunks alone; HBM_SCRUB_WAIT collects it once, for its process
 * only.  While a scrub runs, one piece of the channel's free memory at a
 * time is held (no chunk can be made there) while the rest can be
 * allocated, and a second scrub of it is refused; a process killed in the
 * middle gives everything back; a process that detaches during its scrub
 * keeps no result; another process allocates and frees on the channel
 * throughout a scrub of all of it, never refused, its chunks untouched.
 */
TEST_F_TIMEOUT(dma, hbm_scrub, 300)
{
	const __u32 c = self->nhbm - 1, ncs = variant->g->ncs;
	const __u64 chan = 512 * MIB / self->nhbm;
	struct neuron_ioctl_mem_get_extended_info ei;
	unsigned char *fmap = NULL, *bmap;
	__u64 filler = 0, hb;
	struct tchunk a;
	long long held = 0;
	int got = 0;
	size_t bad;
	pid_t child;

	/* Most of the channel in one chunk, of which the first page is watched. */
	if (alloc_dev(self->fd, chan - SCRUB_FREE, c, &filler) == 0) {
		ASSERT_EQ(0, ext_info(self->fd, filler, &ei));
		fmap = map(&self->undo, self->fd, ei.pa, pg, RW, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, fmap);
		memset(fmap, 0xa7, pg);
	} else {
		filler = 0;
		TH_LOG("no %llu MiB chunk on channel %u: scrubbing all of it",
		       (unsigned long long)((chan - SCRUB_FREE) / MIB), c);
	}
	tc_new(_metadata, self, &a, 0, 256 * 1024, c);

	/* Refused, changing nothing. */
	EXPECT_EQ(-EINVAL, scrub_wait(self->fd, 0, c)) TH_LOG("nothing started");
	EXPECT_EQ(-EINVAL, scrub_start(self->fd, ncs, c, 0, SCRUB_PAT));
	EXPECT_EQ(-EINVAL, scrub_start(self->fd, ~0U, c, 0, SCRUB_PAT));
	EXPECT_EQ(-EINVAL, scrub_start(self->fd, 0, self->nhbm, 0, SCRUB_PAT));
	EXPECT_EQ(-EINVAL, scrub_start(self->fd, 0, MAX_HBM, 0, SCRUB_PAT));
	EXPECT_EQ(-EINVAL, scrub_start(self->fd, 0, ~0U, 0, SCRUB_PAT));
	EXPECT_EQ(-EINVAL, scrub_wait(self->fd, ncs, c));
	EXPECT_EQ(-EINVAL, scrub_wait(self->fd, 0, self->nhbm));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_HBM_SCRUB_START, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_HBM_SCRUB_WAIT, no_access()));
	EXPECT_EQ(-EINVAL, scrub_wait(self->fd, 0, c)) TH_LOG("after the refusals");

	/* The scrub: chunks keep their bytes, new chunks show the pattern. */
	ASSERT_EQ(0, scrub_start(self->fd, ncs - 1, c, 7, SCRUB_PAT));
	tc_check(_metadata, self, &a, "after the scrub");
	if (fmap)
		EXPECT_EQ(0, not_byte(fmap, 0xa7, pg)) TH_LOG("the large chunk changed");
	child = spawn(_metadata, &self->undo);
	if (!child)
		_exit(scrub_stranger(self, c));
	EXPECT_EQ(0, reap(&self->undo, child));
	ASSERT_EQ(0, alloc_dev(self->fd, SCRUB_B, c, &hb));
	ASSERT_EQ(0, ext_info(self->fd, hb, &ei));
	bmap = map(&self->undo, self->fd, ei.pa, SCRUB_B, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, bmap);
	bad = not_pattern(bmap, SCRUB_B, SCRUB_PAT);
	EXPECT_EQ(0, bad) TH_LOG("a new chunk: %zu words are not the pattern", bad);
	EXPECT_EQ(0, unmap(&self->undo, bmap, SCRUB_B));
	EXPECT_EQ(0, mem_free(self->fd, hb));
	EXPECT_EQ(0, scrub_wait(self->fd, 0, c));
	EXPECT_EQ(-EINVAL, scrub_wait(self->fd, 0, c)) TH_LOG("collected twice");

	/*
	 * Running, held back: one piece of the free memory is held, the rest
	 * of the channel can still be allocated, and a second scrub is
	 * refused.  The child may take a while to get there: its transfers
	 * must not time out first.
	 */
	ASSERT_EQ(0, set_timeout(120000));
	child = scrub_held(_metadata, self, c);
	EXPECT_EQ(-EBUSY, scrub_start(self->fd, 0, c, 0, SCRUB_PAT));
	scrub_beside_piece(_metadata, self, c);
	if (c)
		EXPECT_EQ(1, page_allocatable(self->fd, 0)) TH_LOG("channel 0 is not the scrub's");
	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(1, page_allocatable(self->fd, c)) TH_LOG("after the scrub");
	EXPECT_EQ(0, mem_held(self->index)) TH_LOG("after the scrub");

	/* Killed in the middle: everything back, and the next scrub runs. */
	child = scrub_held(_metadata, self, c);
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	EXPECT_TRUE(held_within(self->index, 0, 10000, &held)) TH_LOG("held: %lld", held);
	EXPECT_TRUE(allocatable_within(self->fd, c, 1, 10000, &got)) TH_LOG("allocatable: %d", got);

	/* Detached while its scrub runs: no result is left behind. */
	scrub_detach(_metadata, self, c);
	ASSERT_EQ(0, sim_set("dma_stall", "0"));
	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));
	EXPECT_EQ(0, scrub_start(self->fd, 0, c, 0, SCRUB_PAT));
	EXPECT_EQ(0, scrub_wait(self->fd, 0, c));
	tc_check(_metadata, self, &a, "after the last scrub");
	EXPECT_EQ(0, engines_check(_metadata, self, variant, "after the scrubs"));

	tc_free(_metadata, self, &a);
	if (fmap) {
		EXPECT_EQ(0, not_byte(fmap, 0xa7, pg)) TH_LOG("the large chunk changed");
		EXPECT_EQ(0, unmap(&self->undo, fmap, pg));
		EXPECT_EQ(0, mem_free(self->fd, filler));
	}

	/* The whole channel, with another process allocating on it throughout. */
	scrub_alongside(_metadata, self, c);
	check_counts(_metadata, self->index, &self->start, "after the scrubs");
}

TEST_HARNESS_MAIN
