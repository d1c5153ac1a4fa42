// SPDX-License-Identifier: GPL-2.0
/*
 * Small copies done by the CPU instead of the engine (Documentation/dma.rst,
 * "CPU copies"): below neuron_udma's cpu_copy_h2d_max and cpu_copy_d2h_max
 * a copy to or from device memory goes through the CPU.  Every copy here
 * is made twice, once with the thresholds as the case sets them and once
 * with both at 0 (the engine), and the two must leave the same bytes
 * everywhere (the chunks, the user buffers, the guard bytes around them)
 * and return the same: sizes and offsets around each threshold (odd ones
 * included), user buffer to device, device to user buffer, device to
 * device and host chunk to device; bad buffers (NULL, unmapped, half
 * mapped, read-only for reads), on the stack buffer's sizes and on the
 * pinned pages' (and a buffer without pages to pin) and ranges past a
 * chunk or overflowing; buffers partly never touched.  The v3_pinned
 * variant turns cpu_copy_direct off, so that the pinned path, not the
 * straight copy, is the one compared.
 * The device's cpu_copies counter (debugfs dma file) says which path ran,
 * so a CPU path that is never taken, or taken past its threshold, fails.
 */
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"

#define SETTLE_MS	20000
#define DEV		7
/* Room for the largest copy at the largest offset. */
#define CHUNK		(136 * 1024)
/* A small odd threshold, and the largest one the parameters take. */
#define SMALL_T		257
#define LIMIT_T		65536
#define CPU_COPY_DIRECT	"/sys/module/neuron_udma/parameters/cpu_copy_direct"

FIXTURE(cpu) {
	int fd;
	int index;
	long pg;
	struct cpu_copy_saved saved;
	char direct[8];			/* cpu_copy_direct before the case, or "" */
	__u64 a, b, src, host;		/* CPU side, engine side, a source, a host chunk */
	unsigned char *ua, *ub, *data;	/* user buffers: CPU side, engine side, data */
	size_t ulen;
};

FIXTURE_VARIANT(cpu) {
	const char *gen;
	int pinned;	/* cpu_copy_direct off: user buffers pinned first */
};

FIXTURE_VARIANT_ADD(cpu, v2) { .gen = "v2" };
FIXTURE_VARIANT_ADD(cpu, v3) { .gen = "v3" };
FIXTURE_VARIANT_ADD(cpu, v3_pinned) { .gen = "v3", .pinned = 1 };

FIXTURE_SETUP(cpu)
{
	char h2d[32], d2h[32];

	self->fd = -1;
	memset(&self->saved, 0, sizeof(self->saved));
	self->direct[0] = 0;
	self->pg = sysconf(_SC_PAGESIZE);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());
	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	ASSERT_EQ(0, nt_read(h2d, sizeof(h2d), CPU_COPY_H2D));
	ASSERT_EQ(0, nt_read(d2h, sizeof(d2h), CPU_COPY_D2H));
	/* Saved for the teardown, which puts them back. */
	ASSERT_EQ(0, cpu_copy_off(&self->saved));
	ASSERT_EQ(0, cpu_copy_set(h2d, d2h));
	if (variant->pinned) {
		ASSERT_EQ(0, nt_read(self->direct, sizeof(self->direct), CPU_COPY_DIRECT));
		ASSERT_EQ(0, nt_write(CPU_COPY_DIRECT, "%s", "N"));
	}
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, alloc_dev(self->fd, CHUNK, 0, &self->a));
	ASSERT_EQ(0, alloc_dev(self->fd, CHUNK, 0, &self->b));
	ASSERT_EQ(0, alloc_dev(self->fd, CHUNK, 0, &self->src));
	ASSERT_EQ(0, alloc_host(self->fd, CHUNK, &self->host));
	self->ulen = CHUNK + 2 * self->pg;
	self->ua = malloc(self->ulen);
	self->ub = malloc(self->ulen);
	self->data = malloc(self->ulen);
	ASSERT_TRUE(self->ua && self->ub && self->data);
	rnd_fill(self->data, self->ulen);
}

FIXTURE_TEARDOWN(cpu)
{
	EXPECT_EQ(0, cpu_copy_restore(&self->saved));
	if (self->direct[0])
		EXPECT_EQ(0, nt_write(CPU_COPY_DIRECT, "%s", self->direct));
	free(self->ua);
	free(self->ub);
	free(self->data);
	if (self->fd >= 0)
		close(self->fd);
	sim_device_down(_metadata);
}

/* Both thresholds, as numbers. */
static int set_t(unsigned int h2d, unsigned int d2h)
{
	char a[16], b[16];

	snprintf(a, sizeof(a), "%u", h2d);
	snprintf(b, sizeof(b), "%u", d2h);
	return cpu_copy_set(a, b);
}

static long mem_copy64(int fd, __u64 src, __u64 soff, __u64 dst, __u64 doff, __u64 size)
{
	struct neuron_ioctl_mem_copy64 c = {
		.src_mem_handle = src, .dst_mem_handle = dst, .size = size,
		.src_offset = soff, .dst_offset = doff,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_COPY64, &c);
}

/*
 * Chunks @a and @b hold the same bytes: both read whole, by the engine
 * (both thresholds 0), which then stay 0.
 */
static void same_chunks(struct __test_metadata *_metadata, struct _test_data_cpu *self,
			const char *what, unsigned long long size, unsigned long long off)
{
	size_t i;

	ASSERT_EQ(0, set_t(0, 0));
	ASSERT_EQ(0, buf_copy(self->fd, 1, self->a, self->ua, CHUNK, 0, 0));
	ASSERT_EQ(0, buf_copy(self->fd, 1, self->b, self->ub, CHUNK, 0, 0));
	if (!memcmp(self->ua, self->ub, CHUNK))
		return;
	for (i = 0; i < CHUNK && self->ua[i] == self->ub[i]; i++)
		;
	EXPECT_EQ(0, 1) TH_LOG("%s of %llu bytes at %llu: chunks differ from byte %zu",
			       what, size, off, i);
}

/* Fill both chunks with the same random bytes, through the engine. */
static void fill_chunks(struct __test_metadata *_metadata, struct _test_data_cpu *self)
{
	rnd_fill(self->ua, CHUNK);
	ASSERT_EQ(0, set_t(0, 0));
	ASSERT_EQ(0, buf_copy(self->fd, 1, self->a, self->ua, CHUNK, 0, 1));
	ASSERT_EQ(0, buf_copy(self->fd, 1, self->b, self->ua, CHUNK, 0, 1));
	ASSERT_EQ(0, buf_copy(self->fd, 1, self->src, self->data, CHUNK, 0, 1));
	ASSERT_EQ(0, buf_copy(self->fd, 1, self->host, self->data + 11, CHUNK, 0, 1));
}

/*
 * One copy of each kind, of @size bytes at chunk offset @off and user
 * offset @uoff: with thresholds @t (both ways) into the CPU side, with 0
 * into the engine side; the same return, the same bytes.  The CPU path
 * counts when @size <= @t, and only then.
 */
static void one(struct __test_metadata *_metadata, struct _test_data_cpu *self, unsigned int t,
		__u64 size, __u64 off, size_t uoff)
{
	long long before, want = size <= t ? 1 : 0;
	long ra, rb;
	int wide;

	for (wide = 0; wide < 2; wide++) {
		/* User buffer to device. */
		ASSERT_EQ(0, set_t(t, t));
		before = dma_stat(self->index, "cpu_copies");
		ra = buf_copy(self->fd, wide, self->a, self->data + uoff, size, off, 1);
		EXPECT_EQ(before + want, dma_stat(self->index, "cpu_copies"))
			TH_LOG("to device, %llu bytes, threshold %u", size, t);
		ASSERT_EQ(0, set_t(0, 0));
		rb = buf_copy(self->fd, wide, self->b, self->data + uoff, size, off, 1);
		EXPECT_EQ(rb, ra);
		EXPECT_EQ(0, ra);
		same_chunks(_metadata, self, "to device", size, off);

		/* Device to user buffer, guard bytes around. */
		memset(self->ua, 0xa5, self->ulen);
		memset(self->ub, 0xa5, self->ulen);
		ASSERT_EQ(0, set_t(t, t));
		before = dma_stat(self->index, "cpu_copies");
		ra = buf_copy(self->fd, wide, self->a, self->ua + uoff, size, off, 0);
		EXPECT_EQ(before + want, dma_stat(self->index, "cpu_copies"))
			TH_LOG("from device, %llu bytes, threshold %u", size, t);
		ASSERT_EQ(0, set_t(0, 0));
		rb = buf_copy(self->fd, wide, self->b, self->ub + uoff, size, off, 0);
		EXPECT_EQ(rb, ra);
		EXPECT_EQ(0, ra);
		EXPECT_EQ(0, memcmp(self->ua, self->ub, self->ulen))
			TH_LOG("from device, %llu bytes at %llu, user offset %zu", size, off, uoff);
	}

	/* Device to device, and host chunk to device. */
	ASSERT_EQ(0, set_t(t, t));
	before = dma_stat(self->index, "cpu_copies");
	ra = mem_copy64(self->fd, self->src, uoff, self->a, off, size);
	EXPECT_EQ(0, ra);
	ra = mem_copy64(self->fd, self->host, uoff + 1, self->a, CHUNK - off - size, size);
	EXPECT_EQ(before + 2 * want, dma_stat(self->index, "cpu_copies"))
		TH_LOG("MEM_COPY64, %llu bytes, threshold %u", size, t);
	ASSERT_EQ(0, set_t(0, 0));
	rb = mem_copy64(self->fd, self->src, uoff, self->b, off, size);
	EXPECT_EQ(0, rb);
	rb = mem_copy64(self->fd, self->host, uoff + 1, self->b, CHUNK - off - size, size);
	EXPECT_EQ(rb, ra);
	same_chunks(_metadata, self, "MEM_COPY64", size, off);
}

/* Sizes around threshold @t, at even and odd offsets. */
static void around(struct __test_metadata *_metadata, struct _test_data_cpu *self, unsigned int t)
{
	const __u64 offs[] = { 0, 1, 4093 };
	const size_t uoffs[] = { 0, 3 };
	const __u64 sizes[] = { 1, t - 1, t, t + 1 };
	unsigned int i, j;

	fill_chunks(_metadata, self);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		for (j = 0; j < ARRAY_SIZE(offs); j++)
			one(_metadata, self, t, sizes[i], offs[j], uoffs[(i + j) % 2]);
}

/* Around the default thresholds, a small odd one and the largest allowed. */
TEST_F_TIMEOUT(cpu, identical, 300)
{
	char h2d[32], d2h[32];

	ASSERT_EQ(0, nt_read(h2d, sizeof(h2d), CPU_COPY_H2D));
	ASSERT_EQ(0, nt_read(d2h, sizeof(d2h), CPU_COPY_D2H));
	TH_LOG("defaults: cpu_copy_h2d_max %s, cpu_copy_d2h_max %s", h2d, d2h);
	if (atoi(h2d) > 1)
		around(_metadata, self, atoi(h2d));
	if (atoi(d2h) > 1 && strcmp(h2d, d2h))
		around(_metadata, self, atoi(d2h));
	around(_metadata, self, SMALL_T);
	if (atoi(h2d) != LIMIT_T && atoi(d2h) != LIMIT_T)
		around(_metadata, self, LIMIT_T);
}

/* Each direction has its own threshold. */
TEST_F(cpu, per_direction)
{
	long long before;

	fill_chunks(_metadata, self);
	ASSERT_EQ(0, set_t(SMALL_T, 0));
	before = dma_stat(self->index, "cpu_copies");
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, self->data, SMALL_T, 0, 1));
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, self->ua, SMALL_T, 0, 0));
	/* Within device memory: both thresholds must allow it. */
	EXPECT_EQ(0, mem_copy64(self->fd, self->src, 0, self->a, 0, SMALL_T));
	EXPECT_EQ(before + 1, dma_stat(self->index, "cpu_copies"));
	ASSERT_EQ(0, set_t(0, SMALL_T));
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, self->data, SMALL_T, 0, 1));
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, self->ua, SMALL_T, 0, 0));
	EXPECT_EQ(0, mem_copy64(self->fd, self->src, 0, self->a, 0, SMALL_T));
	EXPECT_EQ(before + 2, dma_stat(self->index, "cpu_copies"));
	ASSERT_EQ(0, set_t(SMALL_T, SMALL_T));
	EXPECT_EQ(0, mem_copy64(self->fd, self->src, 0, self->a, 0, SMALL_T));
	/* Host chunk to host chunk is no business of the CPU path. */
	EXPECT_EQ(0, mem_copy64(self->fd, self->host, 0, self->host, CHUNK / 2, SMALL_T));
	EXPECT_EQ(before + 3, dma_stat(self->index, "cpu_copies"));
	/* Out of bounds, refused: the parameter keeps its value. */
	EXPECT_NE(0, nt_write(CPU_COPY_H2D, "%d", LIMIT_T + 1));
	EXPECT_NE(0, nt_write(CPU_COPY_D2H, "%s", "-1"));
	EXPECT_EQ(0, nt_write(CPU_COPY_D2H, "%d", LIMIT_T));
}

/*
 * A bad copy fails the same way on both paths and changes the same (in a
 * copy to the device: nothing).
 */
static void bad(struct __test_metadata *_metadata, struct _test_data_cpu *self, const char *what,
		void *buf, __u64 size, __u64 off, int to_dev)
{
	long r[2];
	int path, wide;

	for (wide = 0; wide < 2; wide++) {
		for (path = 0; path < 2; path++) {
			ASSERT_EQ(0, path ? set_t(0, 0) : set_t(LIMIT_T, LIMIT_T));
			r[path] = buf_copy(self->fd, wide, path ? self->b : self->a, buf, size, off,
					   to_dev);
		}
		EXPECT_EQ(r[1], r[0]) TH_LOG("%s: the CPU path says %ld, the engine %ld", what,
					     r[0], r[1]);
		EXPECT_NE(0, r[0]) TH_LOG("%s worked", what);
		same_chunks(_metadata, self, what, size, off);
	}
}

TEST_F(cpu, bad_buffers)
{
	unsigned char *half, *nowhere, *ro = read_only_page();
	long pg = self->pg;

	ASSERT_NE(NULL, ro);
	/* A page, then nothing: the hole stays one while the case runs. */
	half = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, half);
	memset(half, 0x3c, 2 * pg);
	ASSERT_EQ(0, munmap(half + pg, pg));
	nowhere = half + pg + 8;
	fill_chunks(_metadata, self);

	bad(_metadata, self, "NULL to device", NULL, 64, 0, 1);
	bad(_metadata, self, "NULL from device", NULL, 64, 0, 0);
	bad(_metadata, self, "unmapped to device", nowhere, 64, 3, 1);
	bad(_metadata, self, "unmapped from device", nowhere, 64, 3, 0);
	bad(_metadata, self, "half mapped to device", half + pg - 100, 200, 5, 1);
	bad(_metadata, self, "half mapped from device", half + pg - 100, 200, 5, 0);
	bad(_metadata, self, "read-only from device", ro, 64, 0, 0);
	/* Larger than the CPU path's stack buffer: its pages are pinned. */
	bad(_metadata, self, "unmapped to device, pinned", nowhere, 4000, 3, 1);
	bad(_metadata, self, "unmapped from device, pinned", nowhere, 4000, 3, 0);
	bad(_metadata, self, "half mapped to device, pinned", half + pg - 300, 600, 5, 1);
	bad(_metadata, self, "half mapped from device, pinned", half + pg - 300, 600, 5, 0);
	bad(_metadata, self, "read-only from device, pinned", ro, pg, 0, 0);
	bad(_metadata, self, "past the chunk", self->data, 64, CHUNK - 63, 1);
	bad(_metadata, self, "past the chunk", self->ua, 64, CHUNK - 63, 0);
	bad(_metadata, self, "overflowing offset", self->data, 64, ~0ULL - 10, 1);
	bad(_metadata, self, "overflowing offset", self->ua, 64, ~0ULL - 10, 0);
	bad(_metadata, self, "overflowing buffer", (void *)(uintptr_t)(~0ULL - 10), 64, 0, 1);
	bad(_metadata, self, "overflowing buffer", (void *)(uintptr_t)(~0ULL - 10), 64, 0, 0);

	/* Read-only to the device is fine, on both paths. */
	ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, ro, 64, 0, 1));
	ASSERT_EQ(0, set_t(0, 0));
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->b, ro, 64, 0, 1));
	same_chunks(_metadata, self, "read-only to device", 64, 0);
	/* MEM_COPY64 past a chunk and overflowing: EINVAL both ways. */
	ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
	EXPECT_EQ(-EINVAL, mem_copy64(self->fd, self->src, CHUNK - 10, self->a, 0, 64));
	EXPECT_EQ(-EINVAL, mem_copy64(self->fd, self->src, 0, self->a, ~0ULL - 10, 64));
	ASSERT_EQ(0, set_t(0, 0));
	EXPECT_EQ(-EINVAL, mem_copy64(self->fd, self->src, CHUNK - 10, self->b, 0, 64));
	EXPECT_EQ(-EINVAL, mem_copy64(self->fd, self->src, 0, self->b, ~0ULL - 10, 64));
	same_chunks(_metadata, self, "bad MEM_COPY64", 64, 0);
	munmap(half, pg);
	munmap(ro, pg);
}

/*
 * A user buffer without pages to pin (a mapping of a host chunk, which
 * dma_mmap_coherent() maps by PFN) takes the CPU path's bounce buffer:
 * the same bytes as the engine, both ways.
 */
TEST_F(cpu, unpinnable)
{
	const size_t len = 3000;
	unsigned char *m;
	long long before;
	__u64 pa;

	ASSERT_EQ(0, get_pa(self->fd, self->host, &pa));
	m = mmap_filled(self->fd, pa, CHUNK, 0);
	ASSERT_NE(MAP_FAILED, m);
	rnd_fill(m, CHUNK);
	fill_chunks(_metadata, self);
	/* fill_chunks() wrote the host chunk: give it random bytes again. */
	rnd_fill(m, CHUNK);

	ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
	before = dma_stat(self->index, "cpu_copies");
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, m + 5, len, 7, 1));
	EXPECT_EQ(before + 1, dma_stat(self->index, "cpu_copies"));
	ASSERT_EQ(0, set_t(0, 0));
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->b, m + 5, len, 7, 1));
	same_chunks(_metadata, self, "unpinnable to device", len, 7);

	/* From the device: into the mapping, then what the engine reads. */
	ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
	before = dma_stat(self->index, "cpu_copies");
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, m + 9, len, 11, 0));
	EXPECT_EQ(before + 1, dma_stat(self->index, "cpu_copies"));
	ASSERT_EQ(0, set_t(0, 0));
	memset(self->ub, 0xa5, len);
	EXPECT_EQ(0, buf_copy(self->fd, 1, self->b, self->ub, len, 11, 0));
	EXPECT_EQ(0, memcmp(m + 9, self->ub, len));
	munmap(m, CHUNK);
}

/*
 * User buffers partly never touched: a copy out of the device meets pages
 * that are not there (its straight copy stops there and the pinned path
 * does the rest), a copy into it reads them as zeros.  Same bytes as the
 * engine, at page-crossing sizes and odd offsets, counted as CPU copies.
 */
TEST_F(cpu, untouched)
{
	const size_t sizes[] = { 3 * 4096 + 5, LIMIT_T };
	const size_t uoffs[] = { 0, 100 };
	size_t i, j, span = LIMIT_T + 2 * self->pg;
	long long before;

	fill_chunks(_metadata, self);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (j = 0; j < ARRAY_SIZE(uoffs); j++) {
			size_t len = sizes[i], uoff = uoffs[j];
			unsigned char *m[2];
			int k;

			ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
			/* Fresh buffers, their first page (and a later one) touched only. */
			for (k = 0; k < 2; k++) {
				m[k] = mmap(NULL, span, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				ASSERT_NE(MAP_FAILED, m[k]);
				m[k][0] = 0x11;
				m[k][2 * self->pg] = 0x22;
			}
			before = dma_stat(self->index, "cpu_copies");
			EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, m[0] + uoff, len, 9, 0));
			EXPECT_EQ(before + 1, dma_stat(self->index, "cpu_copies"));
			ASSERT_EQ(0, set_t(0, 0));
			EXPECT_EQ(0, buf_copy(self->fd, 1, self->b, m[1] + uoff, len, 9, 0));
			EXPECT_EQ(0, memcmp(m[0], m[1], span))
				TH_LOG("from device into untouched pages, %zu bytes at %zu", len,
				       uoff);
			ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
			ASSERT_EQ(0, munmap(m[0], span));
			ASSERT_EQ(0, munmap(m[1], span));

			/* Into the device, from pages never touched: zeros. */
			m[0] = mmap(NULL, span, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			ASSERT_NE(MAP_FAILED, m[0]);
			before = dma_stat(self->index, "cpu_copies");
			EXPECT_EQ(0, buf_copy(self->fd, 1, self->a, m[0] + uoff, len, 3, 1));
			EXPECT_EQ(before + 1, dma_stat(self->index, "cpu_copies"));
			ASSERT_EQ(0, set_t(0, 0));
			EXPECT_EQ(0, buf_copy(self->fd, 1, self->b, m[0] + uoff, len, 3, 1));
			ASSERT_EQ(0, set_t(LIMIT_T, LIMIT_T));
			same_chunks(_metadata, self, "to device from untouched pages", len, 3);
			ASSERT_EQ(0, munmap(m[0], span));
		}
	}
}

TEST_HARNESS_MAIN
