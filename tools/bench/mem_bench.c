// SPDX-License-Identifier: GPL-2.0
/*
 * Memory-command cost on /dev/neuronN as the number of live chunks grows:
 * MEM_ALLOC_V2 + MEM_FREE pairs (one 4 KiB device chunk on channel 0) and
 * MEM_GET_INFO, with 10, 1,000 and 100,000 other chunks live.  A command
 * number the driver does not know gives the floor (system call, file
 * lookup, dispatch) for scale.
 *
 *   mem_bench INDEX [ROUNDS [PAIRS [CALLS]]]
 *
 * The live chunks (4 KiB each) are spread over all device-memory channels;
 * one in eight is followed by a hole, so the allocator's free space is not
 * a single extent.  100,000 of them need about 450 MiB of device memory
 * while they are placed: load neuron_sim with mem_size=512M.
 *
 * Each level is measured ROUNDS times on the way up (10, 1,000, 100,000)
 * and ROUNDS times on the way down again, so that drift hits all levels
 * alike; a round times PAIRS pairs and CALLS calls of MEM_GET_INFO (on 16
 * handles spread over the live set, in turn) and of the unknown number.
 * The medians are printed, with the ratios between 10 and 100,000 live
 * chunks against the goal of 1.5.  The result is a report: the exit status
 * is 0 whether the goal is met or not.
 *
 * Batches are timed with the TSC on x86 (calibrated against
 * CLOCK_MONOTONIC over the whole run), as tools/bench/ioctl_bench.c does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <neuron/neuron_ioctl.h>

/* nr 0 is in the table's range but no command has it. */
#define UNKNOWN_CMD	_IO(NEURON_IOCTL_BASE, 0)
#define CHUNK		4096
#define HOLE_EVERY	8
#define GOAL		1.5

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const long levels[] = { 10, 1000, 100000 };
#define NLEVELS		ARRAY_SIZE(levels)
#define MAX_LIVE	100000

static int fd;
static unsigned int nhbm;
static __u64 *live;
static long nlive;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A fine-grained clock: TSC ticks on x86, else nanoseconds. */
static uint64_t ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return now_ns();
#endif
}

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	exit(1);
}

static int alloc_chunk(__u32 channel, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2 a = {
		.size = CHUNK, .dram_channel = channel, .mem_handle = h,
	};

	return ioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a) ? errno : 0;
}

static int free_chunk(__u64 h)
{
	struct neuron_ioctl_mem_free a = { .mem_handle = h };

	return ioctl(fd, NEURON_IOCTL_MEM_FREE, &a) ? errno : 0;
}

/* Grow or shrink the live set to @n chunks. */
static void set_live(long n)
{
	__u64 holes[MAX_LIVE / HOLE_EVERY + 1];
	long nholes = 0, i;
	int err;

	while (nlive < n) {
		err = alloc_chunk(nlive % nhbm, &live[nlive]);
		if (err) {
			fprintf(stderr,
				"live chunk %ld (%ld holes): %s (load neuron_sim with mem_size=512M)\n",
				nlive, nholes, strerror(err));
			exit(1);
		}
		/* A chunk right after it on its channel, freed below: a hole. */
		if (nlive / nhbm % HOLE_EVERY == HOLE_EVERY - 1) {
			err = alloc_chunk(nlive % nhbm, &holes[nholes]);
			if (err)
				die("MEM_ALLOC_V2 (hole)", err);
			nholes++;
		}
		nlive++;
	}
	for (i = 0; i < nholes; i++) {
		err = free_chunk(holes[i]);
		if (err)
			die("MEM_FREE (hole)", err);
	}
	while (nlive > n) {
		err = free_chunk(live[--nlive]);
		if (err)
			die("MEM_FREE", err);
	}
}

static uint64_t time_pairs(long pairs)
{
	uint64_t t0 = ticks();
	__u64 h;
	long i;
	int err;

	for (i = 0; i < pairs; i++) {
		err = alloc_chunk(0, &h);
		if (err)
			die("MEM_ALLOC_V2", err);
		err = free_chunk(h);
		if (err)
			die("MEM_FREE", err);
	}
	return ticks() - t0;
}

/* MEM_GET_INFO on 16 handles spread over the live set, in turn. */
static uint64_t time_get_info(long calls)
{
	__u64 hs[16], pa, off;
	struct neuron_ioctl_mem_get_info gi = { .mmap_offset = &off, .pa = &pa };
	uint64_t t0;
	long i;

	for (i = 0; i < 16; i++)
		hs[i] = live[(nlive - 1) * i / 15];
	t0 = ticks();
	for (i = 0; i < calls; i++) {
		gi.mem_handle = hs[i & 15];
		if (ioctl(fd, NEURON_IOCTL_MEM_GET_INFO, &gi))
			die("MEM_GET_INFO", errno);
	}
	return ticks() - t0;
}

static uint64_t time_null(long calls)
{
	uint64_t t0 = ticks();
	long i;

	for (i = 0; i < calls; i++)
		if (ioctl(fd, UNKNOWN_CMD, NULL) != -1 || errno != ENOTTY)
			die("unknown command", errno);
	return ticks() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Samples in ticks per operation, converted at the end. */
static double *pair_t[NLEVELS], *info_t[NLEVELS], *null_t;
static int nsamples[NLEVELS], nnull;

static void measure(unsigned int l, int round, long pairs, long calls)
{
	double p, g, z;

	if (round % 2) {
		z = (double)time_null(calls) / calls;
		g = (double)time_get_info(calls) / calls;
		p = (double)time_pairs(pairs) / pairs;
	} else {
		p = (double)time_pairs(pairs) / pairs;
		g = (double)time_get_info(calls) / calls;
		z = (double)time_null(calls) / calls;
	}
	pair_t[l][nsamples[l]] = p;
	info_t[l][nsamples[l]++] = g;
	null_t[nnull++] = z;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	long pairs = argc > 3 ? atol(argv[3]) : 2000;
	long calls = argc > 4 ? atol(argv[4]) : 20000;
	struct neuron_ioctl_dump_mem_chunks dc = { 0 };
	double rate[NLEVELS], info[NLEVELS], ns_per_tick, floor_ns, r_alloc, r_info;
	uint64_t t0, n0;
	char path[64];
	unsigned int l;
	int r;

	if (argc < 2 || rounds < 1 || pairs < 1 || calls < 1) {
		fprintf(stderr, "usage: %s INDEX [ROUNDS [PAIRS [CALLS]]]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/neuron%s", argv[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	/* The channels: DUMP_MEM_CHUNKS answers EINVAL from the first one missing. */
	for (nhbm = 0; nhbm < 64; nhbm++) {
		dc.hbm_index = nhbm;
		if (ioctl(fd, NEURON_IOCTL_DUMP_MEM_CHUNKS, &dc))
			break;
	}
	if (!nhbm || errno != EINVAL)
		die("DUMP_MEM_CHUNKS", errno);
	live = calloc(MAX_LIVE, sizeof(*live));
	null_t = calloc(2 * NLEVELS * rounds, sizeof(double));
	if (!live || !null_t)
		die("calloc", ENOMEM);
	for (l = 0; l < NLEVELS; l++) {
		pair_t[l] = calloc(2 * rounds, sizeof(double));
		info_t[l] = calloc(2 * rounds, sizeof(double));
		if (!pair_t[l] || !info_t[l])
			die("calloc", ENOMEM);
	}
	printf("%s: %u channels, 4 KiB device chunks, one hole per %d live chunks\n", path, nhbm,
	       HOLE_EVERY);
	printf("%d rounds up and %d down of %ld pairs and %ld calls, medians\n", rounds, rounds,
	       pairs, calls);

	/* Warm up caches, the branch predictors and the allocator's spares. */
	set_live(levels[0]);
	time_pairs(pairs);
	time_get_info(calls);
	time_null(calls);

	n0 = now_ns();
	t0 = ticks();
	for (l = 0; l < NLEVELS; l++) {
		set_live(levels[l]);
		for (r = 0; r < rounds; r++)
			measure(l, r, pairs, calls);
	}
	for (l = NLEVELS; l-- > 0;) {
		set_live(levels[l]);
		for (r = 0; r < rounds; r++)
			measure(l, r + 1, pairs, calls);
	}
	ns_per_tick = (double)(now_ns() - n0) / (ticks() - t0);
	set_live(0);
	close(fd);

	floor_ns = median(null_t, nnull) * ns_per_tick;
	printf("null ioctl (unknown number): %.1f ns\n", floor_ns);
	printf("%12s %16s %14s\n", "live chunks", "alloc+free /s", "GET_INFO ns");
	for (l = 0; l < NLEVELS; l++) {
		rate[l] = 1e9 / (median(pair_t[l], nsamples[l]) * ns_per_tick);
		info[l] = median(info_t[l], nsamples[l]) * ns_per_tick;
		printf("%12ld %16.0f %14.1f\n", levels[l], rate[l], info[l]);
	}
	r_alloc = rate[0] / rate[NLEVELS - 1];
	r_info = info[NLEVELS - 1] / info[0];
	printf("alloc+free rate, %ld / %ld live chunks: %.3f (goal <= %.1f): %s\n",
	       levels[0], levels[NLEVELS - 1], r_alloc, GOAL, r_alloc <= GOAL ? "PASS" : "FAIL");
	printf("GET_INFO cost, %ld / %ld live chunks: %.3f (goal <= %.1f): %s\n",
	       levels[NLEVELS - 1], levels[0], r_info, GOAL, r_info <= GOAL ? "PASS" : "FAIL");
	return 0;
}
