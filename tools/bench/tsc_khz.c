// SPDX-License-Identifier: GPL-2.0
/*
 * Print this machine's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over a fifth of a second, for the benchmark guest's
 * tsc_early_khz= (tools/bench/lib.sh).  Under QEMU's TCG the guest's TSC
 * counts at the host's TSC rate (QEMU reads the host's TSC for the guest's
 * RDTSC), so the guest can take this figure instead of calibrating its TSC
 * against the emulated PIT, which fails on a busy host.
 *
 * Exit status 1, nothing printed, where there is no TSC (not x86-64).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#if defined(__x86_64__)
/*
 * A TSC reading and the time it was taken at: the middle of the tightest
 * of a few clock readings around it, so that being preempted in between
 * does not skew the pair.
 */
static void sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t a, b, c, best = UINT64_MAX;
	int i;

	for (i = 0; i < 20; i++) {
		a = raw_ns();
		c = __rdtsc();
		b = raw_ns();
		if (b - a < best) {
			best = b - a;
			*tsc = c;
			*ns = a + (b - a) / 2;
		}
	}
}
#endif

int main(void)
{
#if defined(__x86_64__)
	struct timespec pause = { .tv_nsec = 200000000 };
	uint64_t t0, n0, t1, n1;

	sample(&t0, &n0);
	nanosleep(&pause, NULL);
	sample(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 1;
	printf("%llu\n", (unsigned long long)((double)(t1 - t0) * 1e6 / (n1 - n0) + 0.5));
	return 0;
#else
	return 1;
#endif
}
