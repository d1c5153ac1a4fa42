/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing and statistics helpers shared by the benchmarks in tools/bench.
 * Header-only; each benchmark is one program.
 *
 * In a VM without a stable TSC the kernel's clock ticks in jiffies, far too
 * coarse for one batch; on x86 batches are timed with the TSC, which the
 * caller calibrates against CLOCK_MONOTONIC over the whole run
 * (bench_calib_start() before the first batch, bench_ns_per_tick() after
 * the last).  Elsewhere a tick is a nanosecond.
 *
 * The floor every benchmark scales against is a command number the driver
 * does not know, BENCH_NULL_CMD: system call, file lookup and the
 * dispatcher's table lookup, nothing else.
 */
#ifndef _NEURON_BENCH_COMMON_H
#define _NEURON_BENCH_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <neuron/neuron_ioctl.h>

/* nr 0 is in the table's range but no command has it. */
#define BENCH_NULL_CMD	_IO(NEURON_IOCTL_BASE, 0)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A fine-grained clock: TSC ticks on x86, else nanoseconds. */
static inline uint64_t bench_ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return bench_now_ns();
#endif
}

/* Both clocks at the start of a run, for bench_ns_per_tick() at its end. */
struct bench_calib {
	uint64_t ns;
	uint64_t ticks;
};

static inline void bench_calib_start(struct bench_calib *c)
{
	c->ns = bench_now_ns();
	c->ticks = bench_ticks();
}

static inline double bench_ns_per_tick(const struct bench_calib *c)
{
	return (double)(bench_now_ns() - c->ns) / (bench_ticks() - c->ticks);
}

static inline void bench_die(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	exit(1);
}

/* Ticks for @calls calls of BENCH_NULL_CMD on @fd; exits on a wrong answer. */
static inline uint64_t bench_time_null(int fd, long calls)
{
	uint64_t t0 = bench_ticks();
	long i;
	int ret;

	for (i = 0; i < calls; i++) {
		ret = ioctl(fd, BENCH_NULL_CMD, NULL);
		if (ret != -1 || errno != ENOTTY) {
			fprintf(stderr, "ioctl %#x: %d (%m)\n", (unsigned int)BENCH_NULL_CMD, ret);
			exit(1);
		}
	}
	return bench_ticks() - t0;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n samples; sorts @v. */
static inline double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* _NEURON_BENCH_COMMON_H */
