// SPDX-License-Identifier: GPL-2.0
/*
 * Transfer cost of NEURON_IOCTL_MEM_BUF_COPY64 on /dev/neuronN against
 * memcpy() in the same process: a user buffer into a device chunk (to
 * device, copy_to_mem_handle 1) and back (from device, 0) at sizes from
 * 4 KiB to 64 MiB, and the latency of a 64-byte copy to the device against
 * a command number the driver does not know (the floor: system call, file
 * lookup, dispatch).
 *
 *   dma_bench INDEX [ROUNDS [SIZES [CALLS]]]
 *
 * SIZES is a comma-separated list of byte counts, each with an optional K,
 * M or G suffix (powers of two); by default 4K,64K,256K,1M,4M,16M,64M.  One
 * device chunk of the largest size is allocated on channel 0 and every
 * copy starts at its offset 0.  On a simulated Trn2 each channel gets a
 * quarter of the device memory: load neuron_sim with mem_size=512M for
 * 64 MiB.  The ioctls and memcpy() use the same two user buffers,
 * pre-faulted: the source of memcpy() is copied to the device, the device
 * is copied to the destination of memcpy().  Before timing, each size is
 * copied to the device and back and compared.
 *
 * A round times, for each size, one batch of each kind (to device, from
 * device, memcpy()) in an order that rotates from round to round, so that
 * drift and noise from the host hit all kinds alike; a batch repeats the
 * transfer until it has moved at least 64 MiB.  Then CALLS 64-byte copies
 * to the device and CALLS calls of the unknown number, in alternating
 * order.  Medians over ROUNDS rounds are printed: rates in MB/s (10^6
 * bytes a second), latencies in ns, and ratios as the median of the
 * per-round ratios (so a ratio may differ a little from the quotient of
 * the medians printed beside it).  The floor for ioctl/memcpy is 0.80 at
 * sizes of 1 MiB and more, the goal 0.90; the lowest ratio of each
 * direction is reported against both.  The result is a report: the exit
 * status is 0 whether the floor is met or not.
 *
 * Batches are timed with the TSC on x86 (calibrated against
 * CLOCK_MONOTONIC over the whole run), see bench_common.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#include "bench_common.h"

#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define GIB		(1024 * MIB)
#define MAX_SIZE	GIB
#define MAX_SIZES	16
/* Bytes a batch moves at least. */
#define BATCH		(64 * MIB)
/* The ratio floor and goal hold from this size up. */
#define FLOOR_FROM	MIB
#define FLOOR		0.80
#define GOAL		0.90
#define SMALL		64

#define DEFAULT_SIZES	"4K,64K,256K,1M,4M,16M,64M"

/* The kinds of transfer; the ioctl's two directions come first. */
enum { TO_DEV, FROM_DEV, MEMCPY, NKINDS };
#define NDIRS		MEMCPY

static const char *const kind_name[] = { "to device", "from device", "memcpy" };

static int fd;
static __u64 handle;
static char *src, *dst;
static uint64_t sizes[MAX_SIZES];
static unsigned int nsizes;

/* Samples: ticks per byte of each kind, ioctl/memcpy rate ratios. */
static double *byte_t[NKINDS][MAX_SIZES], *ratio_t[NDIRS][MAX_SIZES];
/* Ticks per call of the 64-byte copy and of the unknown number, ratios. */
static double *small_t, *null_t, *small_ratio;

/* A byte count with an optional K, M or G suffix; 0 if malformed. */
static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (*end) {
	case 'K':
	case 'k':
		shift = 10;
		end++;
		break;
	case 'M':
	case 'm':
		shift = 20;
		end++;
		break;
	case 'G':
	case 'g':
		shift = 30;
		end++;
		break;
	}
	if (*end || v > MAX_SIZE >> shift)
		return 0;
	return v << shift;
}

static int parse_sizes(const char *arg)
{
	char *copy = strdup(arg), *tok, *save;
	int ret = 0;

	if (!copy)
		bench_die("strdup", ENOMEM);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nsizes == MAX_SIZES) {
			ret = -1;
			break;
		}
		sizes[nsizes] = parse_size(tok);
		if (!sizes[nsizes++]) {
			ret = -1;
			break;
		}
	}
	free(copy);
	return nsizes ? ret : -1;
}

static const char *fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v % GIB == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v / GIB));
	else if (v % MIB == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v / MIB));
	else if (v % KIB == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v / KIB));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	return buf;
}

static void buf_copy(void *buf, uint64_t size, int to_dev)
{
	struct neuron_ioctl_mem_buf_copy64 a = {
		.mem_handle = handle, .buffer = buf, .size = size, .copy_to_mem_handle = to_dev,
	};

	if (ioctl(fd, NEURON_IOCTL_MEM_BUF_COPY64, &a))
		bench_die(to_dev ? "MEM_BUF_COPY64 to device" : "MEM_BUF_COPY64 from device",
			  errno);
}

/* Ticks for @reps transfers of @size bytes of @kind. */
static uint64_t time_batch(int kind, uint64_t size, long reps)
{
	uint64_t t0 = bench_ticks();
	long i;

	for (i = 0; i < reps; i++) {
		switch (kind) {
		case TO_DEV:
			buf_copy(src, size, 1);
			break;
		case FROM_DEV:
			buf_copy(dst, size, 0);
			break;
		default:
			memcpy(dst, src, size);
			/* Keep the compiler from merging or dropping copies. */
			asm volatile("" : : "r" (dst) : "memory");
			break;
		}
	}
	return bench_ticks() - t0;
}

static uint64_t time_small(long calls)
{
	struct neuron_ioctl_mem_buf_copy64 a = {
		.mem_handle = handle, .buffer = src, .size = SMALL, .copy_to_mem_handle = 1,
	};
	uint64_t t0 = bench_ticks();
	long i;

	for (i = 0; i < calls; i++)
		if (ioctl(fd, NEURON_IOCTL_MEM_BUF_COPY64, &a))
			bench_die("MEM_BUF_COPY64 (64 bytes to device)", errno);
	return bench_ticks() - t0;
}

/* Copy @size bytes of a pattern to the device and back, and compare. */
static void check(uint64_t size)
{
	uint64_t i, w;
	char name[32];

	for (i = 0; i + sizeof(w) <= size; i += sizeof(w)) {
		w = (size << 32) ^ (i * 0x9e3779b97f4a7c15ULL);
		memcpy(src + i, &w, sizeof(w));
	}
	for (; i < size; i++)
		src[i] = (char)(size + i);
	buf_copy(src, size, 1);
	memset(dst, 0, size);
	buf_copy(dst, size, 0);
	if (!memcmp(src, dst, size))
		return;
	for (i = 0; src[i] == dst[i]; i++)
		;
	fprintf(stderr, "%s to device and back: byte %llu differs\n",
		fmt_size(name, sizeof(name), size), (unsigned long long)i);
	exit(1);
}

static void measure_size(unsigned int s, int round)
{
	uint64_t size = sizes[s], t[NKINDS];
	long reps = size < BATCH ? BATCH / size : 1;
	int i, k;

	for (i = 0; i < NKINDS; i++) {
		k = (round + i) % NKINDS;
		t[k] = time_batch(k, size, reps);
	}
	for (k = 0; k < NKINDS; k++)
		byte_t[k][s][round] = (double)t[k] / (size * reps);
	ratio_t[TO_DEV][s][round] = (double)t[MEMCPY] / t[TO_DEV];
	ratio_t[FROM_DEV][s][round] = (double)t[MEMCPY] / t[FROM_DEV];
}

static void measure_small(int round, long calls)
{
	uint64_t a, b;

	if (round % 2) {
		b = bench_time_null(fd, calls);
		a = time_small(calls);
	} else {
		a = time_small(calls);
		b = bench_time_null(fd, calls);
	}
	small_t[round] = (double)a / calls;
	null_t[round] = (double)b / calls;
	small_ratio[round] = (double)a / b;
}

static double *samples(int rounds)
{
	double *v = calloc(rounds, sizeof(double));

	if (!v)
		bench_die("calloc", ENOMEM);
	return v;
}

/* The lowest ratio of direction @k at sizes from FLOOR_FROM up, against the floor. */
static void report_floor(int k, const double *ratio)
{
	char name[32];
	int low = -1;
	unsigned int s;

	for (s = 0; s < nsizes; s++)
		if (sizes[s] >= FLOOR_FROM && (low < 0 || ratio[s] < ratio[low]))
			low = s;
	if (low < 0) {
		printf("%s / memcpy: no size of 1 MiB or more to judge\n", kind_name[k]);
		return;
	}
	printf("%s / memcpy, sizes >= 1 MiB: lowest %.3f (%s), floor %.2f: %s, goal %.2f: %s\n",
	       kind_name[k], ratio[low], fmt_size(name, sizeof(name), sizes[low]), FLOOR,
	       ratio[low] >= FLOOR ? "PASS" : "FAIL", GOAL, ratio[low] >= GOAL ? "met" : "not met");
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 21;
	const char *size_arg = argc > 3 ? argv[3] : DEFAULT_SIZES;
	long calls = argc > 4 ? atol(argv[4]) : 2000;
	struct neuron_ioctl_mem_alloc_v2 alloc = { .dram_channel = 0, .mem_handle = &handle };
	struct neuron_ioctl_mem_free mf = { 0 };
	double ns_per_tick, rate[NKINDS], ratio[NDIRS][MAX_SIZES];
	struct bench_calib calib;
	uint64_t max = 0;
	char path[64], name[32], batch[32];
	unsigned int s;
	int r, k;

	if (argc < 2 || rounds < 1 || calls < 1 || parse_sizes(size_arg)) {
		fprintf(stderr, "usage: %s INDEX [ROUNDS [SIZES [CALLS]]]\n"
			"  SIZES: comma-separated, K/M/G suffixes, at most %d, default %s\n",
			argv[0], MAX_SIZES, DEFAULT_SIZES);
		return 2;
	}
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > max)
			max = sizes[s];
	snprintf(path, sizeof(path), "/dev/neuron%s", argv[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	alloc.size = max < SMALL ? SMALL : max;
	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &alloc)) {
		fprintf(stderr, "MEM_ALLOC_V2, %s on channel 0: %m (neuron_sim mem_size=512M?)\n",
			fmt_size(name, sizeof(name), alloc.size));
		return 1;
	}
	src = mmap(NULL, alloc.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, alloc.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED)
		bench_die("mmap", errno);
	/* Fault both buffers in. */
	memset(src, 0x5a, alloc.size);
	memset(dst, 0, alloc.size);
	for (k = 0; k < NKINDS; k++) {
		for (s = 0; s < nsizes; s++) {
			byte_t[k][s] = samples(rounds);
			if (k < NDIRS)
				ratio_t[k][s] = samples(rounds);
		}
	}
	small_t = samples(rounds);
	null_t = samples(rounds);
	small_ratio = samples(rounds);
	printf("%s: %s device chunk on channel 0, copies at offset 0\n", path,
	       fmt_size(name, sizeof(name), alloc.size));
	printf("%d rounds of batches of at least %s and %ld calls of %d bytes, medians\n", rounds,
	       fmt_size(batch, sizeof(batch), BATCH), calls, SMALL);

	/* Check the data; warm up caches and the branch predictors. */
	for (s = 0; s < nsizes; s++)
		check(sizes[s]);
	time_small(calls);
	bench_time_null(fd, calls);

	bench_calib_start(&calib);
	for (r = 0; r < rounds; r++) {
		for (s = 0; s < nsizes; s++)
			measure_size(s, r);
		measure_small(r, calls);
	}
	ns_per_tick = bench_ns_per_tick(&calib);
	mf.mem_handle = handle;
	if (ioctl(fd, NEURON_IOCTL_MEM_FREE, &mf))
		bench_die("MEM_FREE", errno);
	close(fd);

	printf("%d-byte MEM_BUF_COPY64 to device %9.1f ns  null ioctl %9.1f ns  ratio %.3f\n",
	       SMALL, bench_median(small_t, rounds) * ns_per_tick,
	       bench_median(null_t, rounds) * ns_per_tick, bench_median(small_ratio, rounds));
	printf("%10s %15s %17s %12s %10s %12s\n", "size", "to device MB/s", "from device MB/s",
	       "memcpy MB/s", "to/memcpy", "from/memcpy");
	for (s = 0; s < nsizes; s++) {
		/* A byte a nanosecond is 1,000 MB/s. */
		for (k = 0; k < NKINDS; k++)
			rate[k] = 1e3 / (bench_median(byte_t[k][s], rounds) * ns_per_tick);
		for (k = 0; k < NDIRS; k++)
			ratio[k][s] = bench_median(ratio_t[k][s], rounds);
		printf("%10s %15.0f %17.0f %12.0f %10.3f %12.3f\n",
		       fmt_size(name, sizeof(name), sizes[s]), rate[TO_DEV], rate[FROM_DEV],
		       rate[MEMCPY], ratio[TO_DEV][s], ratio[FROM_DEV][s]);
	}
	for (k = 0; k < NDIRS; k++)
		report_floor(k, ratio[k]);
	return 0;
}
