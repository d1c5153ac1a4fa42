// SPDX-License-Identifier: GPL-2.0
/*
 * The timed part of the bring-up benchmark (tools/bench/bringup-guest):
 * create simulated devices 0 to N - 1 (generations v2, v3, v4 in turn) and
 * wait until every one is ready, asleep in poll() on their state files,
 * which the core notifies at every change: the wait takes no CPU from the
 * bring-ups it times, and sees each READY when it happens.
 *
 * Usage: bringup_wait N
 * Prints "TOTAL_US WRITES_US BUSY ALL": microseconds from the first
 * new_device write until the last device is ready, how long the N writes
 * took, and the clock ticks the CPUs were busy (all but idle and iowait)
 * and ticks in all in that time, from /proc/stat.  Exits 1 when a device
 * fails, a file cannot be read, or nothing changes for 30 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVICES	64
#define SIM_BUS		"/sys/bus/neuron_sim"

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Busy and all clock ticks of the CPUs so far; -1 when unreadable. */
static int cpu_ticks(long long *busy, long long *all)
{
	long long v[8];
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return -1;
	/* user nice system idle iowait irq softirq steal */
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*all = *busy + v[3] + v[4];
	return 0;
}

/* Create device @id through @fd, new_device open for writing. */
static int add_device(int fd, int id)
{
	static const char *const gens[] = { "v2", "v3", "v4" };
	char line[32];
	int len;

	len = snprintf(line, sizeof(line), "%d %s\n", id, gens[id % 3]);
	return write(fd, line, len) == len ? 0 : -1;
}

/*
 * The directory holding the simulated devices' own directories, found
 * from device @id's link on the bus, as an O_PATH descriptor; -1 on error.
 * Opening each state file relative to it walks two names, where the path
 * through the bus walks six and a symlink back into /sys/devices.
 */
static int devices_dir(int id)
{
	char link[64], *dev, *slash;
	int fd;

	snprintf(link, sizeof(link), SIM_BUS "/devices/neuron_sim%d", id);
	dev = realpath(link, NULL);
	if (!dev)
		return -1;
	slash = strrchr(dev, '/');
	if (slash)
		*slash = 0;
	fd = open(dev, O_PATH | O_DIRECTORY);
	free(dev);
	return fd;
}

/* 1: @fd says ready; 0: not yet; -1: failed or unreadable. */
static int ready(int fd, int id)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0) {
		fprintf(stderr, "device %d: cannot read its state: %s\n", id,
			n ? strerror(errno) : "empty");
		return -1;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (!strcmp(buf, "ready"))
		return 1;
	if (!strcmp(buf, "failed")) {
		fprintf(stderr, "device %d failed\n", id);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pollfd p[MAX_DEVICES];
	int id[MAX_DEVICES];
	long long t0, tw, t1, b0, a0, b1, a1;
	int n, i, left, r, nfd, dfd = -1;
	char path[96];

	n = argc == 2 ? atoi(argv[1]) : 0;
	if (n < 1 || n > MAX_DEVICES) {
		fprintf(stderr, "usage: %s N (1 to %d)\n", argv[0], MAX_DEVICES);
		return 2;
	}
	/* One open file for every write: no path walk per device. */
	nfd = open(SIM_BUS "/new_device", O_WRONLY);
	if (nfd < 0) {
		fprintf(stderr, SIM_BUS "/new_device: %s\n", strerror(errno));
		return 1;
	}
	if (cpu_ticks(&b0, &a0)) {
		fprintf(stderr, "cannot read /proc/stat\n");
		return 1;
	}
	t0 = now_us();
	for (i = 0; i < n; i++) {
		if (add_device(nfd, i)) {
			fprintf(stderr, "new_device %d: %s\n", i, strerror(errno));
			return 1;
		}
		if (dfd < 0) {
			dfd = devices_dir(i);
			if (dfd < 0) {
				fprintf(stderr, "the directory of neuron_sim%d: %s\n", i,
					strerror(errno));
				return 1;
			}
		}
		snprintf(path, sizeof(path), "neuron_sim%d/state", i);
		p[i].fd = openat(dfd, path, O_RDONLY);
		if (p[i].fd < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
		p[i].events = POLLPRI;
		id[i] = i;
	}
	tw = now_us();
	close(nfd);
	close(dfd);
	/*
	 * p[0 .. left - 1] are the devices not ready yet.  Each is read first
	 * and then whenever poll() says it changed since its last read (a
	 * change after a read wakes poll() at once: none is missed).
	 */
	for (i = 0; i < n; i++)
		p[i].revents = POLLPRI;
	for (left = n; left;) {
		for (i = 0; i < left;) {
			r = p[i].revents ? ready(p[i].fd, id[i]) : 0;
			if (r < 0)
				return 1;
			if (!r) {
				p[i++].revents = 0;
				continue;
			}
			close(p[i].fd);
			p[i] = p[--left];
			id[i] = id[left];
		}
		if (!left)
			break;
		r = poll(p, left, 30000);
		if (r < 0) {
			perror("poll");
			return 1;
		}
		if (!r) {
			fprintf(stderr, "no state change in 30 s, %d devices not ready\n", left);
			return 1;
		}
	}
	t1 = now_us();
	if (cpu_ticks(&b1, &a1)) {
		fprintf(stderr, "cannot read /proc/stat\n");
		return 1;
	}
	printf("%lld %lld %lld %lld\n", t1 - t0, tw - t0, b1 - b0, a1 - a0);
	return 0;
}
