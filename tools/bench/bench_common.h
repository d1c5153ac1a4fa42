/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing and statistics helpers shared by the benchmarks in tools/bench.
 * Header-only; each benchmark is one program.
 *
 * In a VM without a stable TSC the kernel's clock ticks in jiffies, far too
 * coarse for one batch; on x86 batches are timed with the TSC, which the
 * caller calibrates against CLOCK_MONOTONIC over the whole run
 * (bench_calib_start() before the first batch, bench_ns_per_tick() after
 * the last).  Elsewhere a tick is a nanosecond.  What the kernel itself
 * times (the simulator's engine baseline) is only as fine as its clock:
 * bench_clock_probe() says how fine that is, and a benchmark leaves out,
 * loudly, what a coarse clock would quantise (bench_clock_report()).
 *
 * Every ratio is printed with its spread over the rounds: the median, and
 * the smallest and largest value in brackets (bench_spread()).
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
#include <unistd.h>
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

/* The smallest, median and largest of a set of samples. */
struct bench_spread {
	double min;
	double med;
	double max;
};

/* The spread of @n samples; sorts @v. */
static inline struct bench_spread bench_spread(double *v, int n)
{
	struct bench_spread s;

	s.med = bench_median(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

/* "median [min, max]" of @n samples with @prec decimals into @buf; sorts @v. */
static inline const char *bench_fmt_spread(char *buf, size_t len, double *v, int n, int prec)
{
	struct bench_spread s = bench_spread(v, n);

	snprintf(buf, len, "%.*f [%.*f, %.*f]", prec, s.med, prec, s.min, prec, s.max);
	return buf;
}

/*
 * A kernel clock stepping more coarsely than this cannot time what the
 * benchmarks ask of it (a 4 KiB engine copy takes about a microsecond):
 * the TSC, the HPET and the ACPI PM timer are all finer, jiffies (1 to
 * 10 ms) are not.
 */
#define BENCH_FINE_CLOCK_NS	1000

/* What the kernel's CLOCK_MONOTONIC is made of, and how fine it is. */
struct bench_clock {
	char source[32];	/* the current clock source, "?" if unknown */
	uint64_t res_ns;	/* clock_getres() */
	uint64_t step_ns;	/* the smallest step two readings showed */
	int coarse;		/* either is above BENCH_FINE_CLOCK_NS */
};

/*
 * The smallest step of CLOCK_MONOTONIC seen in a few tries: about the cost
 * of a reading with a fine clock source, a jiffy without one.
 */
static inline uint64_t bench_clock_step_ns(void)
{
	uint64_t a, b, step = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		a = bench_now_ns();
		do
			b = bench_now_ns();
		while (b == a);
		if (b - a < step)
			step = b - a;
	}
	return step;
}

static inline void bench_clock_probe(struct bench_clock *c)
{
	struct timespec res;
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	snprintf(c->source, sizeof(c->source), "?");
	if (f) {
		if (fscanf(f, "%31s", c->source) != 1)
			snprintf(c->source, sizeof(c->source), "?");
		fclose(f);
	}
	c->res_ns = UINT64_MAX;
	if (!clock_getres(CLOCK_MONOTONIC, &res))
		c->res_ns = (uint64_t)res.tv_sec * 1000000000 + res.tv_nsec;
	c->step_ns = bench_clock_step_ns();
	c->coarse = c->res_ns > BENCH_FINE_CLOCK_NS || c->step_ns > BENCH_FINE_CLOCK_NS;
}

/*
 * Print the kernel clock's line; for a coarse clock, a banner that says
 * what is left out (@what) and why.  Called at the start and again at the
 * end of a run, so that the warning is next to the figures.
 */
static inline void bench_clock_report(const struct bench_clock *c, const char *what)
{
	printf("kernel clock: %s, resolution %llu ns, smallest step seen %llu ns%s\n", c->source,
	       (unsigned long long)c->res_ns, (unsigned long long)c->step_ns,
	       c->coarse ? "" : " (fine)");
	if (!c->coarse)
		return;
	printf("******************************************************************\n"
	       "*** CLOCK TOO COARSE: the kernel's clock steps above %d ns, so\n"
	       "*** %s\n*** left out rather than printed quantised.\n"
	       "*** In the VM the TSC is dropped when its calibration against the\n"
	       "*** PIT fails (a busy host; acpi=off leaves no HPET or PM timer):\n"
	       "*** the tools/bench scripts boot with tsc=reliable tsc_early_khz=.\n"
	       "******************************************************************\n",
	       BENCH_FINE_CLOCK_NS, what);
}

#endif /* _NEURON_BENCH_COMMON_H */
