/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the Neuron kselftests: module loading, simulated
 * devices, sysfs reads.  Header-only; each suite is one program.
 */
#ifndef _NEURON_TEST_H
#define _NEURON_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIM_BUS		"/sys/bus/neuron_sim"
#define CLASS_DIR	"/sys/class/neuron_device"

/* Run a shell command; return its exit status, or -1. */
static inline int nt_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Write a string to a sysfs file; return 0 or -errno. */
static inline int nt_write(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* Read the first line of a file into @buf (newline stripped); 0 or -errno. */
static inline int nt_read(char *buf, size_t len, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	ssize_t n;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static inline int nt_exists(const char *fmt, ...)
{
	char path[256];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return stat(path, &st) == 0;
}

static inline long nt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Create simulated device @id; @spec is "GEN [OPTIONS]". 0 or -errno. */
static inline int nt_sim_add(int id, const char *spec)
{
	return nt_write(SIM_BUS "/new_device", "%d %s", id, spec);
}

static inline int nt_sim_del(int id)
{
	return nt_write(SIM_BUS "/del_device", "%d", id);
}

/* State word of simulated device @id, as the core reports it. */
static inline const char *nt_sim_state(int id, char *buf, size_t len)
{
	if (nt_read(buf, len, SIM_BUS "/devices/neuron_sim%d/state", id))
		snprintf(buf, len, "(none)");
	return buf;
}

/*
 * Wait until simulated device @id is out of bring-up (ready or failed), at
 * most @ms.  Return the final state word in @buf.
 */
static inline const char *nt_sim_settle(int id, char *buf, size_t len, long ms)
{
	long end = nt_now_ms() + ms;

	for (;;) {
		nt_sim_state(id, buf, len);
		if (!strcmp(buf, "ready") || !strcmp(buf, "failed") || nt_now_ms() > end)
			return buf;
		usleep(20000);
	}
}

/* Delete every simulated device (ignores errors). */
static inline void nt_sim_del_all(void)
{
	int id;

	for (id = 0; id < 64; id++)
		if (nt_exists(SIM_BUS "/devices/neuron_sim%d", id))
			nt_sim_del(id);
}

/* Unload every Neuron module, leaving none loaded. */
static inline int nt_unload_all(void)
{
	nt_sh("modprobe -r neuron_sim 2>/dev/null");
	nt_sh("modprobe -r neuron 2>/dev/null");
	nt_sh("modprobe -r neuron_telemetry neuron_udma neuron_dhal_v4 neuron_dhal_v3 2>/dev/null");
	nt_sh("modprobe -r neuron_dhal_v2 neuron_core 2>/dev/null");
	return nt_sh("! grep -q '^neuron' /proc/modules");
}

#endif /* _NEURON_TEST_H */
