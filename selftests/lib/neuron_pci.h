/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the kselftests that bind the Neuron PCI driver to PCI
 * functions: finding a function by its ids, its driver and Neuron state,
 * the driver's dynamic ids, the kernel log since a marker and the claims
 * in /proc/iomem.  Header-only, like neuron_test.h; each suite is one
 * program.
 */
#ifndef _NEURON_PCI_H
#define _NEURON_PCI_H

#include <dirent.h>
#include <glob.h>
#include <limits.h>

#include "neuron_test.h"

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define NEURON_DRV	"/sys/bus/pci/drivers/neuron-driver"

/* Copy string @src to @dst of @len bytes, cut short if need be. */
static inline void np_copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/*
 * Find a PCI function @vendor:@device; copy its name (domain:bus:slot.fn)
 * to @bdf.  Return 1 if there is one, else 0.
 */
static inline int np_find(unsigned int vendor, unsigned int device, char *bdf, size_t len)
{
	DIR *d = opendir(PCI_DEVICES);
	struct dirent *de;
	char buf[32];
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (nt_read(buf, sizeof(buf), PCI_DEVICES "/%s/vendor", de->d_name) ||
		    strtoul(buf, NULL, 16) != vendor)
			continue;
		if (nt_read(buf, sizeof(buf), PCI_DEVICES "/%s/device", de->d_name) ||
		    strtoul(buf, NULL, 16) != device)
			continue;
		np_copy(bdf, len, de->d_name);
		found = 1;
	}
	closedir(d);
	return found;
}

/* Name of the driver bound to PCI function @bdf into @buf, "" if none. */
static inline const char *np_driver(const char *bdf, char *buf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		n = 0;
	link[n] = 0;
	base = strrchr(link, '/');
	np_copy(buf, len, base ? base + 1 : link);
	return buf;
}

/* Whether the Neuron PCI driver is bound to @bdf. */
static inline int np_bound(const char *bdf)
{
	char buf[64];

	return !strcmp(np_driver(bdf, buf, sizeof(buf)), "neuron-driver");
}

/* The Neuron state word of PCI function @bdf, "(none)" without one. */
static inline const char *np_state(const char *bdf, char *buf, size_t len)
{
	if (nt_read(buf, len, PCI_DEVICES "/%s/neuron_state", bdf))
		snprintf(buf, len, "(none)");
	return buf;
}

/*
 * Wait until PCI function @bdf is out of bring-up (ready or failed), at
 * most @ms.  Return the last state word read, in @buf.
 */
static inline const char *np_settle(const char *bdf, char *buf, size_t len, long ms)
{
	long end = nt_now_ms() + ms;

	for (;;) {
		np_state(bdf, buf, len);
		if (!strcmp(buf, "ready") || !strcmp(buf, "failed") || nt_now_ms() > end)
			return buf;
		usleep(50000);
	}
}

/*
 * Wait until a function @vendor:@device exists and the Neuron driver is
 * bound to it, at most @ms; its name goes to @bdf.  1 if it is, else 0.
 */
static inline int np_wait_bound(unsigned int vendor, unsigned int device, char *bdf,
				size_t len, long ms)
{
	long end = nt_now_ms() + ms;

	for (;;) {
		if (np_find(vendor, device, bdf, len) && np_bound(bdf))
			return 1;
		if (nt_now_ms() > end)
			return 0;
		usleep(50000);
	}
}

/* Wait until @path exists (@want 1) or not (@want 0), at most @ms.  1 if so. */
static inline int np_wait_path(const char *path, int want, long ms)
{
	long end = nt_now_ms() + ms;

	for (;;) {
		if (nt_exists("%s", path) == want)
			return 1;
		if (nt_now_ms() > end)
			return 0;
		usleep(50000);
	}
}

/* Number of Neuron device nodes (/dev/neuronN). */
static inline int np_dev_nodes(void)
{
	glob_t g;
	int n;

	if (glob("/dev/neuron[0-9]*", 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

/* Add a dynamic id for @vendor:@device with driver data @neuron_id; 0 or -errno. */
static inline int np_new_id(unsigned int vendor, unsigned int device, unsigned int neuron_id)
{
	return nt_write(NEURON_DRV "/new_id", "%04x %04x ffffffff ffffffff 0 0 %x",
			vendor, device, neuron_id);
}

/* Remove one dynamic id for @vendor:@device; 0 or -errno (-ENODEV: none). */
static inline int np_remove_id(unsigned int vendor, unsigned int device)
{
	return nt_write(NEURON_DRV "/remove_id", "%04x %04x", vendor, device);
}

/* Write @val to attribute @attr of PCI function @bdf; 0 or -errno. */
static inline int np_attr_write(const char *bdf, const char *attr, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", bdf, attr);
	return nt_write(path, "%s", val);
}

/* Unbind the Neuron driver from @bdf; 0 or -errno. */
static inline int np_unbind(const char *bdf)
{
	return nt_write(NEURON_DRV "/unbind", "%s", bdf);
}

/*
 * Let go of every PCI function: unbind the Neuron driver from all it
 * drives, and clear every driver_override that names it.
 */
static inline void np_release_all(void)
{
	char names[32][64], buf[64];
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	d = opendir(NEURON_DRV);
	if (d) {
		while ((de = readdir(d)) && n < 32)
			if (strchr(de->d_name, ':'))
				np_copy(names[n++], sizeof(names[0]), de->d_name);
		closedir(d);
	}
	for (i = 0; i < n; i++)
		np_unbind(names[i]);
	d = opendir(PCI_DEVICES);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!nt_read(buf, sizeof(buf), PCI_DEVICES "/%s/driver_override", de->d_name) &&
		    !strcmp(buf, "neuron-driver"))
			np_attr_write(de->d_name, "driver_override", "\n");
	}
	closedir(d);
}

/*
 * Put a marker line in the kernel log; its text, unique in this run, goes
 * to @mark.  0 or -errno.
 */
static inline int np_klog_mark(char *mark, size_t len)
{
	static int seq;

	snprintf(mark, len, "neuron-pci-test: mark %d.%d;", getpid(), ++seq);
	return nt_write("/dev/kmsg", "%s\n", mark);
}

/*
 * Count the kernel log lines after marker @mark that hold @needle and, if
 * not NULL, @also.  -1 if the marker is not in the log (any more).
 */
static inline int np_klog_count(const char *mark, const char *needle, const char *also)
{
	FILE *f = popen("dmesg", "r");
	size_t cap = 0;
	char *line = NULL;
	int seen = 0, n = 0;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (!seen) {
			seen = !!strstr(line, mark);
			continue;
		}
		if (strstr(line, needle) && (!also || strstr(line, also)))
			n++;
	}
	free(line);
	pclose(f);
	return seen ? n : -1;
}

/*
 * np_klog_count(), after waiting at most @ms for the first such line: for
 * messages printed by work the test does not wait for.
 */
static inline int np_klog_wait(const char *mark, const char *needle, const char *also,
			       long ms)
{
	long end = nt_now_ms() + ms;
	int n;

	for (;;) {
		n = np_klog_count(mark, needle, also);
		if (n != 0 || nt_now_ms() > end)
			return n;
		usleep(100000);
	}
}

/*
 * The function's name as the kernel log may spell it: without the PCI
 * domain ("00:03.0"), which also matches the full "0000:00:03.0".
 */
static inline const char *np_log_name(const char *bdf)
{
	const char *p = strchr(bdf, ':');

	return p && strchr(p + 1, ':') ? p + 1 : bdf;
}

/* Number of /proc/iomem entries named exactly @name; -1 if unreadable. */
static inline int np_iomem_count(const char *name)
{
	FILE *f = fopen("/proc/iomem", "r");
	char line[256], *p;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		p = strstr(line, " : ");
		if (p && !strcmp(p + 3, name))
			n++;
	}
	fclose(f);
	return n;
}

/*
 * Whether /proc/iomem has an entry named @name covering exactly BAR @bar
 * of PCI function @bdf.
 */
static inline int np_iomem_claims_bar(const char *bdf, int bar, const char *name)
{
	unsigned long long start = 0, end = 0, s, e;
	char line[256], path[PATH_MAX], *p;
	int i, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource", bdf);
	f = fopen(path, "r");
	if (!f)
		return 0;
	for (i = 0; i <= bar && fgets(line, sizeof(line), f); i++)
		if (i == bar && sscanf(line, "%llx %llx", &start, &end) != 2)
			end = 0;
	fclose(f);
	/* An unused BAR reads as zeros. */
	if (!end)
		return 0;
	f = fopen("/proc/iomem", "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		p = strstr(line, " : ");
		found = p && !strcmp(p + 3, name) &&
			sscanf(line, " %llx-%llx", &s, &e) == 2 && s == start && e == end;
	}
	fclose(f);
	return found;
}

#endif /* _NEURON_PCI_H */
