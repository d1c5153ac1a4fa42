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
 * The medians are printed with each level's spread (median [min, max]),
 * with the ratios between 10 and 100,000 live chunks against the goal of
 * 1.5, in brackets the extremes one level's rounds give against the
 * other's.  The result is a report: the exit status
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
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#include "bench_common.h"

#define CHUNK		4096
#define HOLE_EVERY	8
#define GOAL		1.5

static const long levels[] = { 10, 1000, 100000 };
#define NLEVELS		ARRAY_SIZE(levels)
#define MAX_LIVE	100000

static int fd;
static unsigned int nhbm;
static __u64 *live;
static long nlive;

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
				bench_die("MEM_ALLOC_V2 (hole)", err);
			nholes++;
		}
		nlive++;
	}
	for (i = 0; i < nholes; i++) {
		err = free_chunk(holes[i]);
		if (err)
			bench_die("MEM_FREE (hole)", err);
	}
	while (nlive > n) {
		err = free_chunk(live[--nlive]);
		if (err)
			bench_die("MEM_FREE", err);
	}
}

static uint64_t time_pairs(long pairs)
{
	uint64_t t0 = bench_ticks();
	__u64 h;
	long i;
	int err;

	for (i = 0; i < pairs; i++) {
		err = alloc_chunk(0, &h);
		if (err)
			bench_die("MEM_ALLOC_V2", err);
		err = free_chunk(h);
		if (err)
			bench_die("MEM_FREE", err);
	}
	return bench_ticks() - t0;
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
	t0 = bench_ticks();
	for (i = 0; i < calls; i++) {
		gi.mem_handle = hs[i & 15];
		if (ioctl(fd, NEURON_IOCTL_MEM_GET_INFO, &gi))
			bench_die("MEM_GET_INFO", errno);
	}
	return bench_ticks() - t0;
}

/* Samples in ticks per operation, converted at the end. */
static double *pair_t[NLEVELS], *info_t[NLEVELS], *null_t;
static int nsamples[NLEVELS], nnull;

static void measure(unsigned int l, int round, long pairs, long calls)
{
	double p, g, z;

	if (round % 2) {
		z = (double)bench_time_null(fd, calls) / calls;
		g = (double)time_get_info(calls) / calls;
		p = (double)time_pairs(pairs) / pairs;
	} else {
		p = (double)time_pairs(pairs) / pairs;
		g = (double)time_get_info(calls) / calls;
		z = (double)bench_time_null(fd, calls) / calls;
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
	struct bench_spread pair_s[NLEVELS], info_s[NLEVELS];
	struct bench_calib calib;
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
		bench_die("DUMP_MEM_CHUNKS", errno);
	live = calloc(MAX_LIVE, sizeof(*live));
	null_t = calloc(2 * NLEVELS * rounds, sizeof(double));
	if (!live || !null_t)
		bench_die("calloc", ENOMEM);
	for (l = 0; l < NLEVELS; l++) {
		pair_t[l] = calloc(2 * rounds, sizeof(double));
		info_t[l] = calloc(2 * rounds, sizeof(double));
		if (!pair_t[l] || !info_t[l])
			bench_die("calloc", ENOMEM);
	}
	printf("%s: %u channels, 4 KiB device chunks, one hole per %d live chunks\n", path, nhbm,
	       HOLE_EVERY);
	printf("%d rounds up and %d down of %ld pairs and %ld calls, medians\n", rounds, rounds,
	       pairs, calls);

	/* Warm up caches, the branch predictors and the allocator's spares. */
	set_live(levels[0]);
	time_pairs(pairs);
	time_get_info(calls);
	bench_time_null(fd, calls);

	bench_calib_start(&calib);
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
	ns_per_tick = bench_ns_per_tick(&calib);
	set_live(0);
	close(fd);

	floor_ns = bench_median(null_t, nnull) * ns_per_tick;
	printf("null ioctl (unknown number): %.1f ns\n", floor_ns);
	printf("%12s %16s %14s  %s\n", "live chunks", "alloc+free /s", "GET_INFO ns",
	       "(alloc+free and GET_INFO ns per call: median [min, max] over the rounds)");
	for (l = 0; l < NLEVELS; l++) {
		char ps[64], is[64];

		for (r = 0; r < nsamples[l]; r++) {
			pair_t[l][r] *= ns_per_tick;
			info_t[l][r] *= ns_per_tick;
		}
		pair_s[l] = bench_spread(pair_t[l], nsamples[l]);
		info_s[l] = bench_spread(info_t[l], nsamples[l]);
		rate[l] = 1e9 / pair_s[l].med;
		info[l] = info_s[l].med;
		printf("%12ld %16.0f %14.1f  %s  %s\n", levels[l], rate[l], info[l],
		       bench_fmt_spread(ps, sizeof(ps), pair_t[l], nsamples[l], 1),
		       bench_fmt_spread(is, sizeof(is), info_t[l], nsamples[l], 1));
	}
	/* The ratios' spread: the extremes of one level against the other's. */
	r_alloc = rate[0] / rate[NLEVELS - 1];
	r_info = info[NLEVELS - 1] / info[0];
	printf("alloc+free rate, %ld / %ld live chunks: %.3f [%.3f, %.3f] (goal <= %.1f): %s\n",
	       levels[0], levels[NLEVELS - 1], r_alloc,
	       pair_s[NLEVELS - 1].min / pair_s[0].max, pair_s[NLEVELS - 1].max / pair_s[0].min,
	       GOAL, r_alloc <= GOAL ? "PASS" : "FAIL");
	printf("GET_INFO cost, %ld / %ld live chunks: %.3f [%.3f, %.3f] (goal <= %.1f): %s\n",
	       levels[NLEVELS - 1], levels[0], r_info,
	       info_s[NLEVELS - 1].min / info_s[0].max, info_s[NLEVELS - 1].max / info_s[0].min,
	       GOAL, r_info <= GOAL ? "PASS" : "FAIL");
	return 0;
}
