// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: stats/hardware/health_status/ under each device
 * (Documentation/telemetry.rst, "Health status";
 * Documentation/ABI/testing/sysfs-class-neuron_device), on simulated v2,
 * v3 and v4 devices:
 *
 *  - v3 and v4 have the four files, read only, "%u\n"; v2 has no
 *    health_status directory;
 *  - the counts follow the health registers the simulator's debugfs
 *    health switch raises (SRAM and HBM ECC errors, the HBM repair state),
 *    as the metrics thread caches them;
 *  - each change of a register counts one hw_error_event and wakes its
 *    poller; no change, no wake-up;
 *  - unhealthy_components and healthcheck_heartbeat (2.30) follow the
 *    health bitmap and heartbeat the switch sets;
 *  - neuron_telemetry loaded with enable_sysfs_health_status_nodes=0
 *    builds no health_status directory;
 *  - stats/hardware/{sram,mem}_ecc_corrected (2.30) show the high half of
 *    the ECC words, on every generation;
 *  - stats/power/utilization_raw (2.29) shows each die's power word in
 *    the reference's format: a value, bogus(), read_error, unavailable.
 *
 * Each case loads neuron_core, neuron_sim and neuron_telemetry (or keeps
 * them from the case before) and creates one simulated device.
 */
#include <dirent.h>
#include <poll.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
#define DEV		7
/* The metrics thread samples every 50 ms; allow a slow VM. */
#define CACHE_MS	5000

static const char * const names[] = {
	"hbm_ecc_err_count", "repairable_hbm_ecc_err_count", "sram_ecc_err_count",
	"hw_error_event", "unhealthy_components", "healthcheck_heartbeat",
};

FIXTURE(health) {
	int index;
	char dev[96];
	char dir[160];
};

FIXTURE_VARIANT(health) {
	const char *gen;
	int health;		/* the generation has health_status */
	unsigned int hbms;	/* HBM channels the firmware counts errors of */
	unsigned int dice;	/* dice with a power word */
};

FIXTURE_VARIANT_ADD(health, v2) {
	.gen = "v2", .health = 0, .hbms = 2, .dice = 1,
};

FIXTURE_VARIANT_ADD(health, v3) {
	.gen = "v3", .health = 1, .hbms = 4, .dice = 2,
};

FIXTURE_VARIANT_ADD(health, v4) {
	.gen = "v4", .health = 1, .hbms = 4, .dice = 2,
};

#define HEALTH_PARAM	"/sys/module/neuron_telemetry/parameters/enable_sysfs_health_status_nodes"

/*
 * A simulated device of generation @gen with its tree; neuron_telemetry
 * loaded with its defaults (reloaded if a case before left it without
 * health_status).
 */
static void health_up(struct __test_metadata *_metadata, const char *gen, int *index,
		      char *dev, size_t len)
{
	char buf[8];

	*index = sim_device_up(_metadata, DEV, gen, "", SETTLE_MS);
	if (!nt_read(buf, sizeof(buf), HEALTH_PARAM) && strcmp(buf, "Y"))
		ASSERT_EQ(0, nt_sh("modprobe -r neuron_telemetry"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry"));
	snprintf(dev, len, CLASS_DIR "/neuron%d", *index);
	ASSERT_TRUE(nt_exists("%s/stats/hardware/sram_ecc_uncorrected", dev));
}

FIXTURE_SETUP(health)
{
	health_up(_metadata, variant->gen, &self->index, self->dev, sizeof(self->dev));
	snprintf(self->dir, sizeof(self->dir), "%s/stats/hardware/health_status", self->dev);
}

FIXTURE_TEARDOWN(health)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "health");
	nt_write(path, "clear");
	/* What utilization_raw_unavailable changes, back to the defaults. */
	nt_write("/sys/module/neuron_telemetry/parameters/nmetric_log_posts", "1");
	sim_device_down(_metadata);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static ssize_t slurp(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* A "%u\n" file: its value, or -1 for anything else. */
static long long uint_at(const char *path)
{
	char buf[64], *end;
	unsigned long long v;

	if (slurp(path, buf, sizeof(buf)) <= 1 || buf[0] < '0' || buf[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || strcmp(end, "\n") || v > 0xffffffffULL)
		return -1;
	return (long long)v;
}

static long long health(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return uint_at(path);
}

/* Wait until file @name of @dir reads @want; its last value. */
static long long health_wait(const char *dir, const char *name, long long want)
{
	long t0 = nt_now_ms();
	long long v;

	for (;;) {
		v = health(dir, name);
		if (v == want || nt_now_ms() - t0 > CACHE_MS)
			return v;
		usleep(10000);
	}
}

static int sim_health(const char *fmt, ...)
{
	char path[160], line[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), SIM_DBG, DEV, "health");
	return nt_write(path, "%s", line);
}

/* Wait up to @ms for POLLPRI on @fd; 1 if it came, 0 if not. */
static int woke(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI | POLLERR };

	return poll(&p, 1, ms) == 1 && (p.revents & (POLLPRI | POLLERR));
}

/* Read @fd from the start (arms the next wake-up); its value or -1. */
static long long rearm(int fd)
{
	char buf[64];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtoll(buf, NULL, 10);
}

/* Entries of directory @path (without . and ..), or -1. */
static int entries(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Wait until unhealthy_components reads @want; 0, or -1 with what it read in @buf. */
static int components_wait(const char *dir, const char *want, char *buf, size_t len)
{
	long t0 = nt_now_ms();
	char path[256];

	snprintf(path, sizeof(path), "%s/unhealthy_components", dir);
	for (;;) {
		if (slurp(path, buf, len) >= 0 && !strcmp(buf, want))
			return 0;
		if (nt_now_ms() - t0 > CACHE_MS)
			return -1;
		usleep(10000);
	}
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

/* The files, their modes and format; v2 has none. */
TEST_F_TIMEOUT(health, files, 60)
{
	char path[256];
	struct stat st;
	unsigned int i;
	int fd;

	if (!variant->health) {
		EXPECT_FALSE(nt_exists("%s", self->dir));
		/* The 2.27 files stay. */
		EXPECT_TRUE(nt_exists("%s/stats/hardware/mem_ecc_uncorrected", self->dev));
		return;
	}
	ASSERT_EQ(0, stat(self->dir, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	/* These files and no more. */
	EXPECT_EQ((int)ARRAY_SIZE(names), entries(self->dir));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, names[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_EQ(S_IFREG | 0444, st.st_mode) TH_LOG("%s: %o", path, st.st_mode);
		if (!strcmp(names[i], "unhealthy_components")) {
			char buf[64];

			/* Every component healthy: an empty line. */
			EXPECT_EQ(1, slurp(path, buf, sizeof(buf))) TH_LOG("%s", path);
			EXPECT_STREQ("\n", buf);
		} else if (!strcmp(names[i], "healthcheck_heartbeat")) {
			/* Moving: any 8-bit value. */
			EXPECT_LE(0, uint_at(path)) TH_LOG("%s", path);
			EXPECT_GE(255, uint_at(path)) TH_LOG("%s", path);
		} else {
			EXPECT_EQ(0, uint_at(path)) TH_LOG("%s", path);
		}
		/* Read only, for root too. */
		fd = open(path, O_WRONLY);
		EXPECT_EQ(-1, fd) TH_LOG("%s", path);
		EXPECT_EQ(EACCES, errno) TH_LOG("%s", path);
		if (fd >= 0)
			close(fd);
	}
}

/* The counts follow the registers, in the reference's arithmetic. */
TEST_F_TIMEOUT(health, counts, 120)
{
	const char *d = self->dir;

	if (!variant->health) {
		/* The simulator raises them all the same; nothing shows them. */
		ASSERT_EQ(0, sim_health("sram 3"));
		EXPECT_FALSE(nt_exists("%s", d));
		return;
	}
	/* SRAM: bits 15:0 of its word, saturating in the simulator. */
	ASSERT_EQ(0, sim_health("sram 7"));
	EXPECT_EQ(7, health_wait(d, "sram_ecc_err_count", 7));
	ASSERT_EQ(0, sim_health("sram 70000"));
	EXPECT_EQ(0xffff, health_wait(d, "sram_ecc_err_count", 0xffff));
	EXPECT_EQ(0, health(d, "hbm_ecc_err_count"));

	/* HBM: bits 15:12 (uncorrected) and 11:0 (repairable), summed over the channels. */
	ASSERT_EQ(0, sim_health("hbm 0 2"));
	ASSERT_EQ(0, sim_health("hbm 3 5"));
	EXPECT_EQ(7, health_wait(d, "hbm_ecc_err_count", 7));
	ASSERT_EQ(0, sim_health("hbm_repairable 1 100"));
	ASSERT_EQ(0, sim_health("hbm_repairable 3 4000"));
	EXPECT_EQ(4100, health_wait(d, "repairable_hbm_ecc_err_count", 4100));
	/* Each field saturates on its own: the other keeps its count. */
	ASSERT_EQ(0, sim_health("hbm 3 100"));
	EXPECT_EQ(17, health_wait(d, "hbm_ecc_err_count", 17));
	ASSERT_EQ(0, sim_health("hbm_repairable 3 100"));
	EXPECT_EQ(100 + 4095, health_wait(d, "repairable_hbm_ecc_err_count", 4195));
	EXPECT_EQ(17, health(d, "hbm_ecc_err_count"));

	/* The repair state: pending (1) is one more repairable, failed (2) one more uncorrected. */
	ASSERT_EQ(0, sim_health("repair 1"));
	EXPECT_EQ(4196, health_wait(d, "repairable_hbm_ecc_err_count", 4196));
	EXPECT_EQ(17, health(d, "hbm_ecc_err_count"));
	ASSERT_EQ(0, sim_health("repair 2"));
	EXPECT_EQ(18, health_wait(d, "hbm_ecc_err_count", 18));
	EXPECT_EQ(4195, health(d, "repairable_hbm_ecc_err_count"));
	ASSERT_EQ(0, sim_health("repair 3"));
	EXPECT_EQ(17, health_wait(d, "hbm_ecc_err_count", 17));
	EXPECT_EQ(4195, health(d, "repairable_hbm_ecc_err_count"));

	/* Back to nothing. */
	ASSERT_EQ(0, sim_health("clear"));
	EXPECT_EQ(0, health_wait(d, "hbm_ecc_err_count", 0));
	EXPECT_EQ(0, health_wait(d, "repairable_hbm_ecc_err_count", 0));
	EXPECT_EQ(0, health_wait(d, "sram_ecc_err_count", 0));

	/* Bad input to the switch is refused. */
	EXPECT_EQ(-EINVAL, sim_health("hbm 4 1"));
	EXPECT_EQ(-EINVAL, sim_health("repair 4"));
	EXPECT_EQ(-EINVAL, sim_health("sram"));
	EXPECT_EQ(-EINVAL, sim_health("bogus 1"));
}

/* hw_error_event counts the changes and wakes its poller at each. */
TEST_F_TIMEOUT(health, poll_event, 120)
{
	char path[256];
	long long ev;
	int fd;

	if (!variant->health)
		return;
	snprintf(path, sizeof(path), "%s/hw_error_event", self->dir);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ev = rearm(fd);
	ASSERT_LE(0, ev);

	/* Nothing changes: no wake-up, no event. */
	EXPECT_EQ(0, woke(fd, 300));
	EXPECT_EQ(ev, rearm(fd));

	/* An SRAM error: one event, the poller wakes. */
	ASSERT_EQ(0, sim_health("sram 1"));
	EXPECT_EQ(1, woke(fd, CACHE_MS));
	EXPECT_EQ(ev + 1, rearm(fd));
	EXPECT_EQ(1, health(self->dir, "sram_ecc_err_count"));
	EXPECT_EQ(0, woke(fd, 300));

	/* An HBM error, then a repair state: one event each. */
	ASSERT_EQ(0, sim_health("hbm_repairable 2 1"));
	EXPECT_EQ(1, woke(fd, CACHE_MS));
	EXPECT_EQ(ev + 2, rearm(fd));
	ASSERT_EQ(0, sim_health("repair 1"));
	EXPECT_EQ(1, woke(fd, CACHE_MS));
	EXPECT_EQ(ev + 3, rearm(fd));
	EXPECT_EQ(2, health(self->dir, "repairable_hbm_ecc_err_count"));

	/* Setting a word to what it holds is no change. */
	ASSERT_EQ(0, sim_health("repair 1"));
	EXPECT_EQ(0, woke(fd, 300));
	EXPECT_EQ(ev + 3, rearm(fd));

	/* Clearing the errors is a change too. */
	ASSERT_EQ(0, sim_health("clear"));
	EXPECT_EQ(1, woke(fd, CACHE_MS));
	EXPECT_LE(ev + 4, rearm(fd));
	close(fd);
}

/*
 * unhealthy_components names the bits of the firmware's health bitmap
 * (each change one hw_error_event); healthcheck_heartbeat follows the
 * firmware's heartbeat, whose moves are no event.
 */
TEST_F_TIMEOUT(health, components_heartbeat, 120)
{
	/* Bits 0-9, in order. */
	static const char * const all[] = {
		"hbm", "sram", "firmware_service_api", "firmware_service_processor",
		"link_intraserver", "link_host", "link_efa", "link_interserver", "link_switch",
		"axi_fabric",
	};
	char all_components[256] = "";
	unsigned int i;
	char buf[256], path[256];
	long long ev, h1, h2;
	int fd;

	if (!variant->health) {
		EXPECT_FALSE(nt_exists("%s/unhealthy_components", self->dir));
		return;
	}
	snprintf(path, sizeof(path), "%s/hw_error_event", self->dir);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ev = rearm(fd);
	ASSERT_LE(0, ev);

	ASSERT_EQ(0, sim_health("unhealthy 0x1"));
	EXPECT_EQ(0, components_wait(self->dir, "hbm\n", buf, sizeof(buf))) TH_LOG("%s", buf);
	EXPECT_EQ(1, woke(fd, CACHE_MS));
	EXPECT_EQ(ev + 1, rearm(fd));
	ASSERT_EQ(0, sim_health("unhealthy 0x22"));
	EXPECT_EQ(0, components_wait(self->dir, "sram,link_host\n", buf, sizeof(buf)))
		TH_LOG("%s", buf);
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		strcat(all_components, i ? "," : "");
		strcat(all_components, all[i]);
	}
	strcat(all_components, "\n");
	ASSERT_EQ(0, sim_health("unhealthy 0x3ff"));
	EXPECT_EQ(0, components_wait(self->dir, all_components, buf, sizeof(buf)))
		TH_LOG("%s", buf);
	/* A bit without a name. */
	ASSERT_EQ(0, sim_health("unhealthy 0x80000200"));
	EXPECT_EQ(0, components_wait(self->dir, "axi_fabric,bit31\n", buf, sizeof(buf)))
		TH_LOG("%s", buf);
	ASSERT_EQ(0, sim_health("unhealthy 0"));
	EXPECT_EQ(0, components_wait(self->dir, "\n", buf, sizeof(buf))) TH_LOG("%s", buf);
	rearm(fd);

	/* The heartbeat moves while the firmware's checks run... */
	h1 = health(self->dir, "healthcheck_heartbeat");
	usleep(400000);
	h2 = health(self->dir, "healthcheck_heartbeat");
	EXPECT_LE(0, h1);
	EXPECT_LE(0, h2);
	EXPECT_NE(h1, h2);
	/* ...and is no hardware error. */
	EXPECT_EQ(0, woke(fd, 300));
	/* Held, it stays. */
	ASSERT_EQ(0, sim_health("heartbeat 42"));
	EXPECT_EQ(42, health_wait(self->dir, "healthcheck_heartbeat", 42));
	usleep(300000);
	EXPECT_EQ(42, health(self->dir, "healthcheck_heartbeat"));
	ASSERT_EQ(0, sim_health("heartbeat run"));
	usleep(300000);
	EXPECT_NE(42, health(self->dir, "healthcheck_heartbeat"));
	close(fd);

	/* Bad input to the switch is refused. */
	EXPECT_EQ(-EINVAL, sim_health("heartbeat 256"));
	EXPECT_EQ(-EINVAL, sim_health("heartbeat"));
	EXPECT_EQ(-EINVAL, sim_health("heartbeat run now"));
	EXPECT_EQ(-EINVAL, sim_health("unhealthy x1"));
}

/* enable_sysfs_health_status_nodes=0: no health_status, the rest of the tree as before. */
TEST_F_TIMEOUT(health, param_off, 120)
{
	int i;

	ASSERT_EQ(0, nt_sh("modprobe -r neuron_telemetry"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry enable_sysfs_health_status_nodes=0"));
	for (i = 0; i < 100 && !nt_exists("%s/stats/hardware/sram_ecc_uncorrected", self->dev);
	     i++)
		usleep(50000);
	EXPECT_TRUE(nt_exists("%s/stats/hardware/sram_ecc_uncorrected", self->dev));
	EXPECT_FALSE(nt_exists("%s", self->dir));
	EXPECT_TRUE(nt_exists(HEALTH_PARAM));

	/* Back to the default: the files come back with the tree. */
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_telemetry"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry"));
	for (i = 0; i < 100 && !nt_exists("%s/stats/hardware/sram_ecc_uncorrected", self->dev);
	     i++)
		usleep(50000);
	EXPECT_EQ(variant->health, nt_exists("%s/hw_error_event", self->dir));
}

/* ------------------------------------------------------------------ */
/* Corrected ECC errors                                                */
/* ------------------------------------------------------------------ */

static int sim_misc(__u32 off, __u32 val)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "misc_set");
	return nt_write(path, "%#x %#x", off, val);
}

static long long hw(const char *dev, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/stats/hardware/%s", dev, name);
	return uint_at(path);
}

/* The high half of the SRAM word and of each HBM channel's, read live. */
TEST_F_TIMEOUT(health, ecc_corrected, 60)
{
	static const char * const names[] = { "sram_ecc_corrected", "mem_ecc_corrected" };
	char path[256];
	long long sum = 0;
	struct stat st;
	unsigned int ch, i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/stats/hardware/%s", self->dev, names[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_EQ(S_IFREG | 0644, st.st_mode) TH_LOG("%s: %o", path, st.st_mode);
		EXPECT_EQ(0, uint_at(path)) TH_LOG("%s", path);
	}
	/* The low half is the uncorrected count, not these. */
	ASSERT_EQ(0, sim_misc(0x40, 0x00120034));
	EXPECT_EQ(0x12, hw(self->dev, "sram_ecc_corrected"));
	EXPECT_EQ(0x34, hw(self->dev, "sram_ecc_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x40, 0xffff0000));
	EXPECT_EQ(0xffff, hw(self->dev, "sram_ecc_corrected"));
	EXPECT_EQ(0, hw(self->dev, "sram_ecc_uncorrected"));
	/* Every channel the generation has, summed; the others not. */
	for (ch = 0; ch < 4; ch++) {
		ASSERT_EQ(0, sim_misc(0x44 + 4 * ch, (100 * (ch + 1)) << 16 | 1));
		if (ch < variant->hbms)
			sum += 100 * (ch + 1);
	}
	EXPECT_EQ(sum, hw(self->dev, "mem_ecc_corrected"));
	/* A word the firmware has not filled in counts 0. */
	ASSERT_EQ(0, sim_misc(0x44, 0xdeadbeef));
	EXPECT_EQ(sum - 100, hw(self->dev, "mem_ecc_corrected"));
	ASSERT_EQ(0, sim_misc(0x40, 0xdeadbeef));
	EXPECT_EQ(0, hw(self->dev, "sram_ecc_corrected"));
	/* Writes are ignored. */
	snprintf(path, sizeof(path), "%s/stats/hardware/mem_ecc_corrected", self->dev);
	EXPECT_EQ(0, nt_write(path, "0"));
	EXPECT_EQ(sum - 100, hw(self->dev, "mem_ecc_corrected"));
	ASSERT_EQ(0, sim_misc(0x40, 0));
	for (ch = 0; ch < 4; ch++)
		ASSERT_EQ(0, sim_misc(0x44 + 4 * ch, 0));
}

/* ------------------------------------------------------------------ */
/* utilization_raw                                                     */
/* ------------------------------------------------------------------ */

#define RAW_HEADER	"die,util_bips,counter\n"

/* The file, or "" when it cannot be read. */
static void raw_read(const char *dev, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/stats/power/utilization_raw", dev);
	if (slurp(path, buf, len) < 0)
		buf[0] = 0;
}

/*
 * Line @die of the file (after the header) as "<die>,<rest>": @rest (the
 * part after the comma, without the newline) or NULL when the file does
 * not have the line in that form.
 */
static const char *raw_line(const char *buf, unsigned int die, char *rest, size_t len)
{
	const char *p = buf, *nl;
	unsigned int i;
	char lead[16];

	if (strncmp(p, RAW_HEADER, strlen(RAW_HEADER)))
		return NULL;
	p += strlen(RAW_HEADER);
	for (i = 0; i < die; i++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	snprintf(lead, sizeof(lead), "%u,", die);
	if (strncmp(p, lead, strlen(lead)))
		return NULL;
	p += strlen(lead);
	nl = strchr(p, '\n');
	if (!nl || (size_t)(nl - p) >= len)
		return NULL;
	memcpy(rest, p, nl - p);
	rest[nl - p] = 0;
	return rest;
}

/* Lines in @buf. */
static int raw_lines(const char *buf)
{
	int n = 0;

	for (; *buf; buf++)
		n += *buf == '\n';
	return n;
}

/*
 * Wait until every die's line starts with @want (a prefix of what follows
 * "<die>,"); 0, or -1 with the last contents in @buf.
 */
static int raw_wait(const char *dev, unsigned int dice, const char *const *want, char *buf,
		    size_t len)
{
	long t0 = nt_now_ms();
	char rest[64];
	unsigned int die;

	for (;;) {
		raw_read(dev, buf, len);
		for (die = 0; die < dice; die++) {
			if (!raw_line(buf, die, rest, sizeof(rest)) ||
			    strncmp(rest, want[die], strlen(want[die])))
				break;
		}
		if (die == dice && raw_lines(buf) == (int)dice + 1)
			return 0;
		if (nt_now_ms() - t0 > CACHE_MS)
			return -1;
		usleep(20000);
	}
}

static int sim_power(const char *what)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "power_util");
	return nt_write(path, "%s", what);
}

/* The counter of a "<util>,<counter>" or "bogus(<util>),<counter>" line; -1 if none. */
static long raw_counter(const char *rest)
{
	const char *c = strchr(rest, ',');
	char *end;
	long v;

	if (!c || !c[1])
		return -1;
	v = strtol(c + 1, &end, 10);
	return *end ? -1 : v;
}

/* Values, bogus values, and the firmware's counter moving between samples. */
TEST_F_TIMEOUT(health, utilization_raw, 120)
{
	static const char *const start[] = { "0,0", "0,0" };
	static const char *const vals[] = { "1234,", "5678," };
	static const char *const bogus[] = { "bogus(20000),", "bogus(20000)," };
	char buf[512], path[256], rest[64];
	struct stat st;
	long c1, c2;

	snprintf(path, sizeof(path), "%s/stats/power/utilization_raw", self->dev);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(S_IFREG | 0644, st.st_mode);
	/* Words of zero: each die 0 with counter 0, after the first sample. */
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, start, buf, sizeof(buf)))
		TH_LOG("%s", buf);

	/* Die 1 as die 0 where the device has one die. */
	ASSERT_EQ(0, sim_power(variant->dice > 1 ? "1234 5678" : "1234"));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, vals, buf, sizeof(buf)))
		TH_LOG("%s", buf);
	ASSERT_NE(NULL, raw_line(buf, 0, rest, sizeof(rest))) TH_LOG("%s", buf);
	c1 = raw_counter(rest);
	EXPECT_LT(0, c1) TH_LOG("%s", buf);
	/* The simulated firmware bumps the counter at each sample the driver takes. */
	usleep(300000);
	raw_read(self->dev, buf, sizeof(buf));
	ASSERT_NE(NULL, raw_line(buf, 0, rest, sizeof(rest))) TH_LOG("%s", buf);
	c2 = raw_counter(rest);
	EXPECT_NE(c1, c2) TH_LOG("%s", buf);
	EXPECT_EQ(0, strncmp(rest, "1234,", 5)) TH_LOG("%s", buf);

	/* Above 10000 basis points: bogus, the counter still shown. */
	ASSERT_EQ(0, sim_power("20000"));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, bogus, buf, sizeof(buf)))
		TH_LOG("%s", buf);
	ASSERT_NE(NULL, raw_line(buf, 0, rest, sizeof(rest))) TH_LOG("%s", buf);
	EXPECT_LE(0, raw_counter(rest)) TH_LOG("%s", buf);
	/* Writes are ignored. */
	EXPECT_EQ(0, nt_write(path, "0"));
}

/* read_error for a word that cannot be read; unavailable without utilisation. */
TEST_F_TIMEOUT(health, utilization_raw_unavailable, 120)
{
	static const char *const unavail[] = { "unavailable", "unavailable" };
	static const char *const start[] = { "0,0", "0,0" };
	const char *want[2] = { "read_error", "0,0" };
	char buf[512], api[160], posts[160];
	char rest[64];

	snprintf(api, sizeof(api), SIM_DBG, DEV, "api_version");
	snprintf(posts, sizeof(posts), "/sys/module/neuron_telemetry/parameters/nmetric_log_posts");

	/* A word the firmware has not filled in: that die only. */
	ASSERT_EQ(0, sim_misc(0x54, 0xdeadbeef));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, want, buf, sizeof(buf)))
		TH_LOG("%s", buf);
	ASSERT_NE(NULL, raw_line(buf, 0, rest, sizeof(rest)));
	EXPECT_STREQ("read_error", rest);
	ASSERT_EQ(0, sim_misc(0x54, 0));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, start, buf, sizeof(buf)))
		TH_LOG("%s", buf);

	/* Firmware below API 3 has no utilisation words. */
	ASSERT_EQ(0, nt_write(api, "2"));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, unavail, buf, sizeof(buf)))
		TH_LOG("%s", buf);
	ASSERT_NE(NULL, raw_line(buf, 0, rest, sizeof(rest)));
	EXPECT_STREQ("unavailable", rest);
	ASSERT_EQ(0, nt_write(api, "7"));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, start, buf, sizeof(buf)))
		TH_LOG("%s", buf);

	/* No metrics gathered (nmetric_log_posts 0): unavailable too. */
	ASSERT_EQ(0, nt_write(posts, "0"));
	raw_read(self->dev, buf, sizeof(buf));
	ASSERT_NE(NULL, raw_line(buf, 0, rest, sizeof(rest))) TH_LOG("%s", buf);
	EXPECT_STREQ("unavailable", rest);
	EXPECT_EQ((int)variant->dice + 1, raw_lines(buf)) TH_LOG("%s", buf);
	ASSERT_EQ(0, nt_write(posts, "1"));
	EXPECT_EQ(0, raw_wait(self->dev, variant->dice, start, buf, sizeof(buf)))
		TH_LOG("%s", buf);
}

TEST_HARNESS_MAIN
