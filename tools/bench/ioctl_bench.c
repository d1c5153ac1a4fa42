// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl cost on /dev/neuronN: NEURON_IOCTL_DRIVER_INFO_GET against a
 * command number the driver does not know, on the same file.  The unknown
 * number is the floor (system call, file lookup, the dispatcher's table
 * lookup); the ratio shows what the gate, the handler and the copy to user
 * space add to it.
 *
 *   ioctl_bench INDEX [CALLS [PAIRS]]
 *
 * Both lanes are measured: the free-access file (O_WRONLY), on which the
 * runtime sends this command, and a normal file.  Each pair times CALLS
 * calls of one kind, then CALLS of the other (the order alternates), so
 * that drift and noise from the host hit both alike; the median of the
 * per-pair ratios is printed with the median cost of each kind.
 *
 * In a VM without a stable TSC the kernel's clock ticks in jiffies, far too
 * coarse for one batch; on x86 the batches are timed with the TSC, which
 * is calibrated against CLOCK_MONOTONIC over the whole run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <neuron/neuron_ioctl.h>

/* nr 0 is in the table's range but no command has it. */
#define UNKNOWN_CMD	_IO(NEURON_IOCTL_BASE, 0)

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

/* Ticks for @n calls of @cmd on @fd; exits on a wrong answer. */
static uint64_t time_calls(int fd, unsigned int cmd, long n, int want_errno)
{
	struct neuron_ioctl_device_driver_info di;
	uint64_t t0 = ticks();
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ioctl(fd, cmd, &di);
		if ((want_errno && (ret != -1 || errno != want_errno)) || (!want_errno && ret)) {
			fprintf(stderr, "ioctl %#x: %d (%m)\n", cmd, ret);
			exit(1);
		}
	}
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

static void bench(const char *lane, int fd, long calls, int pairs)
{
	double *info = calloc(pairs, sizeof(double));
	double *floor_t = calloc(pairs, sizeof(double));
	double *ratio = calloc(pairs, sizeof(double));
	uint64_t t0, n0, a, b;
	double ns_per_tick;
	int p;

	if (!info || !floor_t || !ratio)
		exit(1);
	/* Warm up caches and the branch predictors. */
	time_calls(fd, NEURON_IOCTL_DRIVER_INFO_GET, calls, 0);
	time_calls(fd, UNKNOWN_CMD, calls, ENOTTY);

	n0 = now_ns();
	t0 = ticks();
	for (p = 0; p < pairs; p++) {
		if (p % 2) {
			b = time_calls(fd, UNKNOWN_CMD, calls, ENOTTY);
			a = time_calls(fd, NEURON_IOCTL_DRIVER_INFO_GET, calls, 0);
		} else {
			a = time_calls(fd, NEURON_IOCTL_DRIVER_INFO_GET, calls, 0);
			b = time_calls(fd, UNKNOWN_CMD, calls, ENOTTY);
		}
		info[p] = (double)a / calls;
		floor_t[p] = (double)b / calls;
		ratio[p] = (double)a / b;
	}
	ns_per_tick = (double)(now_ns() - n0) / (ticks() - t0);
	printf("%-12s DRIVER_INFO_GET %7.1f ns  unknown number %7.1f ns  ratio %.3f\n",
	       lane, median(info, pairs) * ns_per_tick, median(floor_t, pairs) * ns_per_tick,
	       median(ratio, pairs));
	free(info);
	free(floor_t);
	free(ratio);
}

int main(int argc, char **argv)
{
	long calls = argc > 2 ? atol(argv[2]) : 20000;
	int pairs = argc > 3 ? atoi(argv[3]) : 51;
	char path[64];
	int fd;

	if (argc < 2 || calls < 1 || pairs < 1) {
		fprintf(stderr, "usage: %s INDEX [CALLS [PAIRS]]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/neuron%s", argv[1]);
	printf("%s, %d pairs of %ld calls, medians\n", path, pairs, calls);

	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	bench("free-access", fd, calls, pairs);
	close(fd);

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	bench("normal", fd, calls, pairs);
	close(fd);
	return 0;
}
