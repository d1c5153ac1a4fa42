// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl cost on /dev/neuronN: NEURON_IOCTL_DRIVER_INFO_GET against a
 * command number the driver does not know, on the same file.  The unknown
 * number is the floor (system call, file lookup, the dispatcher's table
 * lookup); the ratio shows what the gate, the handler and the copy to user
 * space add to it.  A third kind goes through a plane's registered family
 * (DMA_ENG_GET_STATE's number, the DMA plane's, with a size no command of
 * that number has): the dispatcher finds the plane's family and refuses the
 * encoding, so its ratio to the floor is the cost of dispatching to a
 * registered family.
 *
 *   ioctl_bench INDEX [CALLS [PAIRS]]
 *
 * Both lanes are measured: the free-access file (O_WRONLY), on which the
 * runtime sends this command, and a normal file.  Each pair times CALLS
 * calls of one kind, then CALLS of the other (the order alternates), so
 * that drift and noise from the host hit both alike; the median of the
 * per-pair ratios, with the smallest and largest in brackets, is printed
 * with the median cost of each kind.
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
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#include "bench_common.h"

/* Ticks for @n calls of NEURON_IOCTL_DRIVER_INFO_GET on @fd; exits on failure. */
static uint64_t time_info(int fd, long n)
{
	struct neuron_ioctl_device_driver_info di;
	uint64_t t0 = bench_ticks();
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ioctl(fd, NEURON_IOCTL_DRIVER_INFO_GET, &di);
		if (ret) {
			fprintf(stderr, "ioctl %#x: %d (%m)\n",
				(unsigned int)NEURON_IOCTL_DRIVER_INFO_GET, ret);
			exit(1);
		}
	}
	return bench_ticks() - t0;
}

/* A DMA plane number (DMA_ENG_GET_STATE's) with a size no command has. */
#define PLANE_MISS_CMD	_IOC(_IOC_DIR(NEURON_IOCTL_DMA_ENG_GET_STATE), \
			     _IOC_TYPE(NEURON_IOCTL_DMA_ENG_GET_STATE), \
			     _IOC_NR(NEURON_IOCTL_DMA_ENG_GET_STATE), 1)

static uint64_t time_plane(int fd, long n)
{
	uint64_t t0 = bench_ticks();
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ioctl(fd, PLANE_MISS_CMD, NULL);
		if (ret != -1 || errno != ENOTTY) {
			fprintf(stderr, "ioctl %#x: %d (%m)\n", (unsigned int)PLANE_MISS_CMD, ret);
			exit(1);
		}
	}
	return bench_ticks() - t0;
}

/* Median ratio of the plane's family to the floor, over @pairs pairs. */
static void bench_plane(const char *lane, int fd, long calls, int pairs)
{
	double *ratio = calloc(pairs, sizeof(double));
	char spread[64];
	uint64_t a, b;
	int p;

	if (!ratio)
		exit(1);
	time_plane(fd, calls);
	for (p = 0; p < pairs; p++) {
		if (p % 2) {
			b = bench_time_null(fd, calls);
			a = time_plane(fd, calls);
		} else {
			a = time_plane(fd, calls);
			b = bench_time_null(fd, calls);
		}
		ratio[p] = (double)a / b;
	}
	printf("%-12s plane family (DMA number, encoding refused) / unknown number: ratio %s\n",
	       lane, bench_fmt_spread(spread, sizeof(spread), ratio, pairs, 3));
	free(ratio);
}

static void bench(const char *lane, int fd, long calls, int pairs)
{
	double *info = calloc(pairs, sizeof(double));
	double *floor_t = calloc(pairs, sizeof(double));
	double *ratio = calloc(pairs, sizeof(double));
	struct bench_calib calib;
	double ns_per_tick;
	char spread[64];
	uint64_t a, b;
	int p;

	if (!info || !floor_t || !ratio)
		exit(1);
	/* Warm up caches and the branch predictors. */
	time_info(fd, calls);
	bench_time_null(fd, calls);

	bench_calib_start(&calib);
	for (p = 0; p < pairs; p++) {
		if (p % 2) {
			b = bench_time_null(fd, calls);
			a = time_info(fd, calls);
		} else {
			a = time_info(fd, calls);
			b = bench_time_null(fd, calls);
		}
		info[p] = (double)a / calls;
		floor_t[p] = (double)b / calls;
		ratio[p] = (double)a / b;
	}
	ns_per_tick = bench_ns_per_tick(&calib);
	printf("%-12s DRIVER_INFO_GET %7.1f ns  unknown number %7.1f ns  ratio %s\n",
	       lane, bench_median(info, pairs) * ns_per_tick,
	       bench_median(floor_t, pairs) * ns_per_tick,
	       bench_fmt_spread(spread, sizeof(spread), ratio, pairs, 3));
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
	bench_plane("free-access", fd, calls, pairs);
	close(fd);

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	bench("normal", fd, calls, pairs);
	bench_plane("normal", fd, calls, pairs);
	close(fd);
	return 0;
}
