// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-top: what the Neuron devices of this host are doing, from the
 * driver's sysfs tree (/sys/class/neuron_device) and the devices'
 * free-access lane (an O_WRONLY open, which never attaches).
 *
 * On a terminal it refreshes in place every second; otherwise, or with
 * --once, it prints one snapshot; --json prints one snapshot as JSON for
 * scripts.  See Documentation/telemetry.rst and `neuron-top --help`.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#define NT_CLASS	"/sys/class/neuron_device"
#define NT_MAX_DEVS	64
#define NT_MAX_CORES	16
#define NT_MAX_NAMES	48
#define NT_MAX_APPS	16
#define NT_NAME		48
#define NT_WORD_LEN	32

/* A counter of the tree: its total and peak, -1 when the file is absent. */
struct nt_counter {
	char name[NT_NAME];
	int64_t total;
	int64_t peak;
};

/* The counters of one folder of <name>/{total,present,peak} folders. */
struct nt_group {
	int n;
	struct nt_counter c[NT_MAX_NAMES];
};

struct nt_core {
	int index;
	struct nt_counter dev_mem;
	struct nt_counter host_mem;
	struct nt_group dev_cats;
	struct nt_group status;
	struct nt_group other;
};

struct nt_app {
	int pid;
	char comm[32];
	uint64_t host_mem;
	uint64_t dev_mem;
	unsigned int locks;
};

struct nt_dev {
	char name[NT_NAME];
	int index;
	/* The words of nt_dev_words[]. */
	char generation[NT_WORD_LEN];
	char device_name[NT_WORD_LEN];
	char instance_type[NT_WORD_LEN];
	char arch_type[NT_WORD_LEN];
	char state[NT_WORD_LEN];
	int core_count;
	char power[96];
	int64_t ecc[3];
	/* stats/hardware/health_status (Trn2, Trn3): present, its numbers, the components. */
	bool health;
	int64_t health_num[5];
	char unhealthy[256];
	struct nt_group host_cats;
	int ncores;
	struct nt_core core[NT_MAX_CORES];
	int napps;		/* -1: the device could not be asked */
	struct nt_app app[NT_MAX_APPS];
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The device's words: JSON key (the field's name), file under the device. */
#define NT_WORD(field, file)	{ #field, file, offsetof(struct nt_dev, field) }
static const struct nt_word {
	const char *key;
	const char *file;
	size_t off;
} nt_dev_words[] = {
	NT_WORD(generation, "info/generation"),
	NT_WORD(device_name, "info/architecture/device_name"),
	NT_WORD(instance_type, "info/architecture/instance_type"),
	NT_WORD(arch_type, "info/architecture/arch_type"),
	NT_WORD(state, "state"),
};

static const char *const nt_ecc_files[3] = {
	"sram_ecc_uncorrected", "mem_ecc_uncorrected", "mem_ecc_repairable_uncorrected",
};

/* The numbers of health_status/, in the order of &nt_dev.health_num. */
static const char *const nt_health_files[5] = {
	"hbm_ecc_err_count", "repairable_hbm_ecc_err_count", "sram_ecc_err_count",
	"hw_error_event", "healthcheck_heartbeat",
};

/* The first line of @path without its newline into @buf; false if unreadable. */
static bool nt_read(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	buf[0] = 0;
	if (!f)
		return false;
	ok = !!fgets(buf, size, f);
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok;
}

static int64_t nt_read_num(const char *path)
{
	char buf[32], *end;
	long long v;

	if (!nt_read(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	return errno || *end ? -1 : v;
}

static void nt_counter_read(struct nt_counter *c, const char *dir, const char *name)
{
	char path[512];

	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(path, sizeof(path), "%s/total", dir);
	c->total = nt_read_num(path);
	snprintf(path, sizeof(path), "%s/peak", dir);
	c->peak = nt_read_num(path);
}

static int nt_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct nt_counter *)a)->name, ((const struct nt_counter *)b)->name);
}

/* Every <name>/ folder of @dir that holds a "total": one counter each, sorted. */
static void nt_group_read(struct nt_group *g, const char *dir)
{
	char path[512], sub[400];
	struct dirent *e;
	DIR *d = opendir(dir);

	g->n = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && g->n < NT_MAX_NAMES) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= NT_NAME)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		snprintf(path, sizeof(path), "%s/total", sub);
		if (access(path, R_OK))
			continue;
		nt_counter_read(&g->c[g->n++], sub, e->d_name);
	}
	closedir(d);
	qsort(g->c, g->n, sizeof(g->c[0]), nt_name_cmp);
}

static int64_t nt_group_get(const struct nt_group *g, const char *name)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->c[i].name, name))
			return g->c[i].total;
	return -1;
}

/* Sum of the totals of @g, leaving out @except; -1 when @g is empty. */
static int64_t nt_group_sum(const struct nt_group *g, const char *except)
{
	int64_t sum = 0;
	int i;

	if (!g->n)
		return -1;
	for (i = 0; i < g->n; i++)
		if (g->c[i].total > 0 && strcmp(g->c[i].name, except))
			sum += g->c[i].total;
	return sum;
}

/* The processes using device @d, asked through its free-access lane. */
static void nt_apps_read(struct nt_dev *d)
{
	struct {
		struct neuron_ioctl_get_apps_info hdr;
		struct neuron_app_info app[NT_MAX_APPS];
	} q;
	char path[64];
	unsigned int i;
	int fd;

	d->napps = -1;
	snprintf(path, sizeof(path), "/dev/%s", d->name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	memset(&q, 0, sizeof(q));
	q.hdr.apps_info_flags = APP_INFO_PID_NC_LOCK_INFO | APP_INFO_PID_MEM_USAGE;
	q.hdr.capacity = NT_MAX_APPS;
	if (!ioctl(fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, &q) && q.hdr.size <= NT_MAX_APPS) {
		d->napps = q.hdr.size;
		for (i = 0; i < q.hdr.size; i++) {
			struct nt_app *a = &d->app[i];

			a->pid = q.app[i].pid;
			a->host_mem = q.app[i].host_mem_size;
			a->dev_mem = q.app[i].device_mem_size;
			a->locks = q.app[i].nc_lock_map;
			snprintf(path, sizeof(path), "/proc/%d/comm", a->pid);
			if (!nt_read(path, a->comm, sizeof(a->comm)))
				snprintf(a->comm, sizeof(a->comm), "?");
		}
	}
	close(fd);
}

static void nt_core_read(struct nt_core *c, const char *base, int k)
{
	char dir[512];

	c->index = k;
	snprintf(dir, sizeof(dir), "%s/neuron_core%d/stats/memory_usage/device_mem", base, k);
	nt_counter_read(&c->dev_mem, dir, "device_mem");
	nt_group_read(&c->dev_cats, dir);
	snprintf(dir, sizeof(dir), "%s/neuron_core%d/stats/memory_usage/host_mem", base, k);
	nt_counter_read(&c->host_mem, dir, "host_mem");
	snprintf(dir, sizeof(dir), "%s/neuron_core%d/stats/status", base, k);
	nt_group_read(&c->status, dir);
	snprintf(dir, sizeof(dir), "%s/neuron_core%d/stats/other_info", base, k);
	nt_group_read(&c->other, dir);
}

/* File @rel of device folder @base into @buf, "?" when unreadable. */
static void nt_read_str(const char *base, const char *rel, char *buf, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	if (!nt_read(path, buf, size))
		snprintf(buf, size, "?");
}

static void nt_dev_read(struct nt_dev *d, const char *name)
{
	char base[256], path[512];
	int i, k;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->index = atoi(name + strlen("neuron"));
	snprintf(base, sizeof(base), NT_CLASS "/%s", name);
	for (i = 0; i < (int)ARRAY_SIZE(nt_dev_words); i++)
		nt_read_str(base, nt_dev_words[i].file, (char *)d + nt_dev_words[i].off,
			    NT_WORD_LEN);
	snprintf(path, sizeof(path), "%s/core_count", base);
	d->core_count = (int)nt_read_num(path);
	snprintf(path, sizeof(path), "%s/stats/power/utilization", base);
	nt_read(path, d->power, sizeof(d->power));
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/stats/hardware/%s", base, nt_ecc_files[i]);
		d->ecc[i] = nt_read_num(path);
	}
	snprintf(path, sizeof(path), "%s/stats/hardware/health_status", base);
	d->health = !access(path, F_OK);
	for (i = 0; d->health && i < (int)ARRAY_SIZE(nt_health_files); i++) {
		snprintf(path, sizeof(path), "%s/stats/hardware/health_status/%s", base,
			 nt_health_files[i]);
		d->health_num[i] = nt_read_num(path);
	}
	if (d->health) {
		snprintf(path, sizeof(path), "%s/stats/hardware/health_status/unhealthy_components",
			 base);
		nt_read(path, d->unhealthy, sizeof(d->unhealthy));
	}
	snprintf(path, sizeof(path), "%s/stats/memory_usage/host_mem", base);
	nt_group_read(&d->host_cats, path);
	for (k = 0; k < NT_MAX_CORES; k++) {
		snprintf(path, sizeof(path), "%s/neuron_core%d", base, k);
		if (access(path, F_OK))
			continue;
		nt_core_read(&d->core[d->ncores++], base, k);
	}
	nt_apps_read(d);
}

static int nt_dev_cmp(const void *a, const void *b)
{
	return ((const struct nt_dev *)a)->index - ((const struct nt_dev *)b)->index;
}

/* Every device of the class, by index; the count. */
static int nt_scan(struct nt_dev *devs)
{
	struct dirent *e;
	DIR *d = opendir(NT_CLASS);
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < NT_MAX_DEVS) {
		if (strncmp(e->d_name, "neuron", 6) || !isdigit((unsigned char)e->d_name[6]))
			continue;
		nt_dev_read(&devs[n++], e->d_name);
	}
	closedir(d);
	qsort(devs, n, sizeof(devs[0]), nt_dev_cmp);
	return n;
}

/* JSON */

static void nt_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void nt_json_num(int64_t v)
{
	if (v < 0)
		fputs("null", stdout);
	else
		printf("%lld", (long long)v);
}

static void nt_json_counter(const struct nt_counter *c)
{
	fputs("{\"total\": ", stdout);
	nt_json_num(c->total);
	fputs(", \"peak\": ", stdout);
	nt_json_num(c->peak);
	putchar('}');
}

/* {"name": {"total": .., "peak": ..}, ...}, or {"name": total, ...} */
static void nt_json_group(const struct nt_group *g, bool peaks)
{
	int i;

	putchar('{');
	for (i = 0; i < g->n; i++) {
		fputs(i ? ", " : "", stdout);
		nt_json_str(g->c[i].name);
		fputs(": ", stdout);
		if (peaks)
			nt_json_counter(&g->c[i]);
		else
			nt_json_num(g->c[i].total);
	}
	putchar('}');
}

/*
 * "STATUS,epoch,min,max,avg" as an object, percents as numbers; null when
 * the file is absent or does not parse.
 */
static void nt_json_power(const char *p)
{
	char status[48];
	unsigned long long epoch;
	double min, max, avg;

	if (sscanf(p, "%47[^,],%llu,%lf,%lf,%lf", status, &epoch, &min, &max, &avg) != 5) {
		fputs("null", stdout);
		return;
	}
	fputs("{\"status\": ", stdout);
	nt_json_str(status);
	printf(", \"epoch\": %llu, \"min\": %.2f, \"max\": %.2f, \"avg\": %.2f}",
	       epoch, min, max, avg);
}

static void nt_json_core(const struct nt_core *c)
{
	printf("{\"index\": %d, \"device_memory\": ", c->index);
	nt_json_counter(&c->dev_mem);
	fputs(", \"device_memory_by_category\": ", stdout);
	nt_json_group(&c->dev_cats, true);
	fputs(", \"host_memory\": ", stdout);
	nt_json_counter(&c->host_mem);
	fputs(", \"executions\": ", stdout);
	nt_json_num(nt_group_get(&c->other, "inference_count"));
	fputs(", \"errors\": ", stdout);
	nt_json_num(nt_group_sum(&c->status, "success"));
	fputs(", \"status\": ", stdout);
	nt_json_group(&c->status, false);
	fputs(", \"other_info\": ", stdout);
	nt_json_group(&c->other, false);
	putchar('}');
}

/*
 * health_status/: null where the device has none; else its numbers by
 * file name and "unhealthy_components", the components as an array.
 */
static void nt_json_health(const struct nt_dev *d)
{
	char names[sizeof(d->unhealthy)], *name, *save = NULL;
	int i, n = 0;

	if (!d->health) {
		fputs("null", stdout);
		return;
	}
	putchar('{');
	for (i = 0; i < (int)ARRAY_SIZE(nt_health_files); i++) {
		printf("%s\"%s\": ", i ? ", " : "", nt_health_files[i]);
		nt_json_num(d->health_num[i]);
	}
	fputs(", \"unhealthy_components\": [", stdout);
	snprintf(names, sizeof(names), "%s", d->unhealthy);
	for (name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		fputs(n++ ? ", " : "", stdout);
		nt_json_str(name);
	}
	fputs("]}", stdout);
}

static void nt_json_dev(const struct nt_dev *d)
{
	int i, k;

	fputs("{\"name\": ", stdout);
	nt_json_str(d->name);
	printf(", \"index\": %d", d->index);
	for (i = 0; i < (int)ARRAY_SIZE(nt_dev_words); i++) {
		printf(", \"%s\": ", nt_dev_words[i].key);
		nt_json_str((const char *)d + nt_dev_words[i].off);
	}
	fputs(", \"core_count\": ", stdout);
	nt_json_num(d->core_count);
	fputs(", \"power_utilization\": ", stdout);
	nt_json_power(d->power);
	fputs(", \"ecc\": {", stdout);
	for (i = 0; i < 3; i++) {
		printf("%s\"%s\": ", i ? ", " : "", nt_ecc_files[i]);
		nt_json_num(d->ecc[i]);
	}
	fputs("}, \"health\": ", stdout);
	nt_json_health(d);
	fputs(", \"host_memory_by_category\": ", stdout);
	nt_json_group(&d->host_cats, true);
	fputs(", \"cores\": [", stdout);
	for (k = 0; k < d->ncores; k++) {
		fputs(k ? ", " : "", stdout);
		nt_json_core(&d->core[k]);
	}
	fputs("], \"processes\": ", stdout);
	if (d->napps < 0) {
		fputs("null", stdout);
	} else {
		putchar('[');
		for (i = 0; i < d->napps; i++) {
			const struct nt_app *a = &d->app[i];

			printf("%s{\"pid\": %d, \"command\": ", i ? ", " : "", a->pid);
			nt_json_str(a->comm);
			printf(", \"host_memory\": %llu", (unsigned long long)a->host_mem);
			printf(", \"device_memory\": %llu", (unsigned long long)a->dev_mem);
			printf(", \"locked_cores\": %u}", a->locks);
		}
		putchar(']');
	}
	putchar('}');
}

static void nt_json(const struct nt_dev *devs, int n)
{
	int i;

	printf("{\"time\": %lld, \"devices\": [", (long long)time(NULL));
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", stdout);
		nt_json_dev(&devs[i]);
	}
	puts(n ? "\n]}" : "]}");
}

/* Text */

/* @v bytes as "123 B", "4.0 KiB", ...; "-" when unknown. */
static const char *nt_bytes(int64_t v, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = v;
	int u = 0;

	if (v < 0)
		return "-";
	if (v < 1024) {
		snprintf(buf, size, "%lld B", (long long)v);
		return buf;
	}
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", x, unit[u]);
	return buf;
}

static const char *nt_num(int64_t v, char *buf, size_t size)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%lld", (long long)v);
	return buf;
}

/* The categories of @g in use, "name size, ..." on one line. */
static void nt_text_cats(const char *what, const struct nt_group *g)
{
	char b[32];
	int i, used = 0;

	for (i = 0; i < g->n; i++) {
		if (g->c[i].total <= 0)
			continue;
		printf("%s %s %s", used++ ? "," : what, g->c[i].name,
		       nt_bytes(g->c[i].total, b, sizeof(b)));
	}
	if (used)
		putchar('\n');
}

/*
 * @prev, when given, is the same device at the previous refresh, @secs
 * before: executions per second are shown from it.
 */
static void nt_text_dev(const struct nt_dev *d, const struct nt_dev *prev, double secs)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	char power[64] = "-";
	char status[48];
	unsigned long long epoch;
	double mn, mx, avg;
	int i, k;

	if (sscanf(d->power, "%47[^,],%llu,%lf,%lf,%lf", status, &epoch, &mn, &mx, &avg) == 5) {
		if (!strcmp(status, "POWER_STATUS_VALID"))
			snprintf(power, sizeof(power), "%.2f%% (%.2f-%.2f)", avg, mn, mx);
		else if (!strcmp(status, "POWER_STATUS_NO_DATA"))
			snprintf(power, sizeof(power), "no data yet");
		else
			snprintf(power, sizeof(power), "invalid");
	}
	printf("%-9s %-3s %-12s %-6s %-6s cores %-2d  power %-22s ecc %s/%s/%s\n",
	       d->name, d->generation, d->device_name, d->instance_type, d->state, d->core_count,
	       power, nt_num(d->ecc[0], b1, sizeof(b1)), nt_num(d->ecc[1], b2, sizeof(b2)),
	       nt_num(d->ecc[2], b3, sizeof(b3)));
	if (d->health)
		printf("  health %-28s hbm ue %s repairable %s sram %s events %s heartbeat %s\n",
		       d->unhealthy[0] ? d->unhealthy : "ok",
		       nt_num(d->health_num[0], b1, sizeof(b1)),
		       nt_num(d->health_num[1], b2, sizeof(b2)),
		       nt_num(d->health_num[2], b3, sizeof(b3)),
		       nt_num(d->health_num[3], b4, sizeof(b4)),
		       nt_num(d->health_num[4], b5, sizeof(b5)));
	if (d->ncores)
		printf("  %-5s %10s %10s %10s %10s %8s %8s %8s\n", "CORE", "DEV_MEM", "DEV_PEAK",
		       "HOST_MEM", "EXECS", "EXEC/s", "ERRORS", "LOADS");
	for (k = 0; k < d->ncores; k++) {
		const struct nt_core *c = &d->core[k];
		int64_t execs = nt_group_get(&c->other, "inference_count");
		char rate[32] = "-";

		if (prev && k < prev->ncores && secs > 0 && execs >= 0) {
			int64_t before = nt_group_get(&prev->core[k].other, "inference_count");

			if (before >= 0 && execs >= before)
				snprintf(rate, sizeof(rate), "%.1f", (execs - before) / secs);
		}
		printf("  nc%-3d %10s %10s %10s %10s %8s %8s %8s\n", c->index,
		       nt_bytes(c->dev_mem.total, b1, sizeof(b1)),
		       nt_bytes(c->dev_mem.peak, b2, sizeof(b2)),
		       nt_bytes(c->host_mem.total, b3, sizeof(b3)), nt_num(execs, b4, sizeof(b4)),
		       rate, nt_num(nt_group_sum(&c->status, "success"), b5, sizeof(b5)),
		       nt_num(nt_group_get(&c->other, "model_load_count"), b6, sizeof(b6)));
	}
	nt_text_cats("  host memory:", &d->host_cats);
	for (k = 0; k < d->ncores; k++) {
		snprintf(b1, sizeof(b1), "  nc%d device memory:", d->core[k].index);
		nt_text_cats(b1, &d->core[k].dev_cats);
	}
	if (d->napps < 0) {
		printf("  processes: cannot ask /dev/%s\n", d->name);
		return;
	}
	for (i = 0; i < d->napps; i++) {
		const struct nt_app *a = &d->app[i];

		printf("  pid %-7d %-16s host %-10s device %-10s locked cores 0x%x\n", a->pid,
		       a->comm, nt_bytes(a->host_mem, b1, sizeof(b1)),
		       nt_bytes(a->dev_mem, b2, sizeof(b2)), a->locks);
	}
	if (!d->napps)
		puts("  no process uses it");
}

static void nt_text(const struct nt_dev *devs, int n, const struct nt_dev *prev, int nprev,
		    double secs)
{
	char when[32];
	time_t now = time(NULL);
	int i, j;

	strftime(when, sizeof(when), "%F %T", localtime(&now));
	printf("neuron-top  %s  %d device%s\n", when, n, n == 1 ? "" : "s");
	if (!n)
		puts("(no Neuron devices: is neuron_core loaded?)");
	for (i = 0; i < n; i++) {
		const struct nt_dev *p = NULL;

		for (j = 0; j < nprev; j++)
			if (!strcmp(prev[j].name, devs[i].name))
				p = &prev[j];
		putchar('\n');
		nt_text_dev(&devs[i], p, secs);
	}
}

static void nt_usage(FILE *f)
{
	fputs("usage: neuron-top [--once] [--json] [-d SECONDS] [-n COUNT]\n"
	      "  Shows the Neuron devices: memory by core and category, executions,\n"
	      "  errors, power utilisation, ECC counts and the processes using them.\n"
	      "  --once        print one snapshot (the default when not on a terminal)\n"
	      "  --json        print one snapshot as JSON\n"
	      "  -d SECONDS    refresh period on a terminal (default 1)\n"
	      "  -n COUNT      stop after COUNT refreshes\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct nt_dev devs[2][NT_MAX_DEVS];
	bool once = !isatty(STDOUT_FILENO), json = false;
	double period = 1;
	long count = -1;
	int c, n, nprev = 0, cur = 0;
	struct timespec t0, t1;
	sigset_t stop;

	while ((c = getopt_long(argc, argv, "d:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			once = true;
			break;
		case 'j':
			json = true;
			break;
		case 'd':
			period = strtod(optarg, NULL);
			if (period < 0.1 || period > 3600) {
				fprintf(stderr, "neuron-top: -d takes 0.1 to 3600 seconds\n");
				return 2;
			}
			break;
		case 'n':
			count = strtol(optarg, NULL, 10);
			if (count < 1) {
				fprintf(stderr, "neuron-top: -n takes a positive count\n");
				return 2;
			}
			break;
		case 'h':
			nt_usage(stdout);
			return 0;
		default:
			nt_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		nt_usage(stderr);
		return 2;
	}
	if (json || once) {
		n = nt_scan(devs[0]);
		if (json)
			nt_json(devs[0], n);
		else
			nt_text(devs[0], n, NULL, 0, 0);
		return fflush(stdout) ? 1 : 0;
	}

	/* Interrupt and termination end the wait between refreshes. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec nap = {
			.tv_sec = (time_t)period,
			.tv_nsec = (long)((period - (time_t)period) * 1e9),
		};

		n = nt_scan(devs[cur]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* Home and clear, then the snapshot. */
		fputs("\033[H\033[2J", stdout);
		nt_text(devs[cur], n, devs[!cur], nprev,
			(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		fflush(stdout);
		t0 = t1;
		nprev = n;
		cur = !cur;
		if (count > 0 && !--count)
			break;
		if (sigtimedwait(&stop, NULL, &nap) > 0)
			break;
	}
	return 0;
}
