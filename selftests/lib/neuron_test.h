/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the Neuron kselftests: module loading, simulated
 * devices, sysfs reads.  Header-only; each suite is one program.
 */
#ifndef _NEURON_TEST_H
#define _NEURON_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/*
 * The number in environment variable @name (any base strtoull() takes), or
 * @def when it is unset or not a number: how make stress lengthens a sweep
 * that make check runs a slice of.
 */
static inline unsigned long long nt_env_num(const char *name, unsigned long long def)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 0);
	return *end ? def : v;
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

/*
 * Loading and unloading the eight modules costs seconds per test case in the
 * debug VM, so nt_driver_up() keeps them loaded from one case to the next
 * when nothing about them changed.  NT_LOADED records what was loaded: the
 * parameters asked for and a fingerprint of every module parameter as it was
 * then.  A case that unloads anything, loads with other parameters or writes
 * a parameter at run time changes the fingerprint, and the next case loads
 * afresh.  Tests of loading and unloading themselves still start from
 * nt_unload_all().
 */
#define NT_LOADED	"/tmp/neuron-test.loaded"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static const char * const nt_modules[] = {
	"neuron_core", "neuron_dhal_v2", "neuron_dhal_v3", "neuron_dhal_v4",
	"neuron_udma", "neuron_telemetry", "neuron", "neuron_sim",
};

/* FNV-1a over @len bytes, continuing from @h. */
static inline unsigned long long nt_fnv(unsigned long long h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/*
 * The fingerprint of the loaded driver: which of its modules are loaded and
 * the value of every parameter they show.  0 when one is missing.
 */
static inline unsigned long long nt_driver_print(void)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	char path[256], buf[256];
	struct dirent *de;
	size_t i;
	DIR *d;

	for (i = 0; i < ARRAY_SIZE(nt_modules); i++) {
		snprintf(path, sizeof(path), "/sys/module/%s", nt_modules[i]);
		if (!nt_exists("%s", path))
			return 0;
		h = nt_fnv(h, nt_modules[i], strlen(nt_modules[i]) + 1);
		snprintf(path, sizeof(path), "/sys/module/%s/parameters", nt_modules[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			h = nt_fnv(h, de->d_name, strlen(de->d_name) + 1);
			if (!nt_read(buf, sizeof(buf), "%s/%s", path, de->d_name))
				h = nt_fnv(h, buf, strlen(buf) + 1);
		}
		closedir(d);
	}
	return h ? h : 1;
}

static inline int nt_unload_all(void);

/*
 * The driver loaded as `modprobe neuron_core @core_args; modprobe neuron_sim
 * @sim_args` would load it, with no simulated device: reused when the loaded
 * one is exactly that, loaded afresh otherwise.  0 or -1.
 */
static inline int nt_driver_up(const char *core_args, const char *sim_args)
{
	char want[256], have[256];
	unsigned long long print;
	int id;

	print = nt_driver_print();
	snprintf(want, sizeof(want), "%s|%s|%llx", core_args, sim_args, print);
	if (print && !nt_read(have, sizeof(have), NT_LOADED) && !strcmp(have, want)) {
		nt_sim_del_all();
		for (id = 0; id < 64; id++)
			if (nt_exists(SIM_BUS "/devices/neuron_sim%d", id))
				break;
		if (id == 64 && nt_driver_print() == print)
			return 0;
	}
	if (nt_unload_all())
		return -1;
	if (nt_sh("modprobe neuron_core %s", core_args) ||
	    nt_sh("modprobe neuron_sim %s", sim_args))
		return -1;
	print = nt_driver_print();
	if (!print)
		return -1;
	return nt_write(NT_LOADED, "%s|%s|%llx", core_args, sim_args, print) ? -1 : 0;
}

/*
 * The end of a case that used nt_driver_up(): no simulated device left.  The
 * modules stay for the next case.  0 when none is left.
 */
static inline int nt_driver_down(void)
{
	int id;

	if (!nt_exists(SIM_BUS))
		return 0;
	nt_sim_del_all();
	for (id = 0; id < 64; id++)
		if (nt_exists(SIM_BUS "/devices/neuron_sim%d", id))
			return -1;
	return 0;
}

/*
 * Whether module @name is in /proc/modules (in any state); with @name NULL,
 * whether any module whose name starts with "neuron" is.  -1 when the list
 * cannot be read.
 */
static inline int nt_module_loaded(const char *name)
{
	char line[512], got[64];
	FILE *f = fopen("/proc/modules", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s", got) == 1 &&
			(name ? !strcmp(got, name) : !strncmp(got, "neuron", 6));
	fclose(f);
	return found;
}

/*
 * Unload every Neuron module, leaving none loaded; 0 when none is.  Each
 * loaded module of the driver goes with delete_module(2), its users first,
 * as modprobe -r would take them, without a process: a modprobe costs 0.7 s
 * in the debug VM.  A module still in use is retried for up to 5 s (a
 * device deleted a moment ago may still hold its DHAL).
 */
static inline int nt_unload_all(void)
{
	static const char * const order[] = {
		"neuron_sim", "neuron", "neuron_telemetry", "neuron_udma",
		"neuron_dhal_v4", "neuron_dhal_v3", "neuron_dhal_v2", "neuron_core",
	};
	long end = nt_now_ms() + 5000;
	size_t i;
	int left;

	unlink(NT_LOADED);
	for (;;) {
		for (i = 0; i < ARRAY_SIZE(order); i++)
			if (nt_module_loaded(order[i]) > 0)
				syscall(SYS_delete_module, order[i], O_NONBLOCK);
		left = nt_module_loaded(NULL);
		if (!left || nt_now_ms() > end)
			break;
		usleep(50000);
	}
	return left ? -1 : 0;
}

#endif /* _NEURON_TEST_H */
