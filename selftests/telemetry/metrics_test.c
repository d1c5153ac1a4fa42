// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the metrics posting thread of neuron_telemetry
 * (Documentation/metrics.rst) on simulated v2, v3 and v4 devices.  The
 * blobs the thread posts are decoded from the simulator's metrics_posted
 * log: record format, instance id and driver version, the profile record
 * after POWER_PROFILE, counter deltas after a process releases its
 * datastore; METRICS_CTRL pause and resume (missed ticks), bad modes; the
 * metrics_post trace event; unloading neuron_telemetry while a post waits
 * for a slow firmware; power utilisation rolled up from the simulator's
 * power_util.
 *
 * Each test creates one simulated device, sets the post period
 * (nmetric_metric_post_delay) to PERIOD_MS and puts the parameters back
 * at the end, so the next case keeps the loaded driver.
 *
 * Every case runs on one generation (FULL_GEN); the others run a smoke
 * check of each (the records, and the profile record, where v2 differs),
 * and every case with NEURON_STRESS=1 (v2's single die in the power
 * roll-up among them).  Under TCG each case costs seconds of posting
 * periods, the power roll-up ten.
 */
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
#define DEV		6
#define PERIOD_MS	300
#define WAIT_MS		15000
#define PARAMS		"/sys/module/neuron_telemetry/parameters/"
#define TEL_DBG		"/sys/kernel/debug/neuron/neuron%d/telemetry"
#define MAX_RECS	64
#define BLOB_MAX	128

FIXTURE(metrics) {
	int fd;
	int index;
	long t0;
};

FIXTURE_VARIANT(metrics) {
	const char *gen;
	unsigned int ncs;
	unsigned int dice;
	int perf;		/* the firmware has performance profiles */
};

FIXTURE_VARIANT_ADD(metrics, v2) { .gen = "v2", .ncs = 2, .dice = 1, .perf = 0 };
FIXTURE_VARIANT_ADD(metrics, v3) { .gen = "v3", .ncs = 8, .dice = 2, .perf = 1 };
FIXTURE_VARIANT_ADD(metrics, v4) { .gen = "v4", .ncs = 8, .dice = 2, .perf = 1 };

/* The generation every case runs on by default. */
#define FULL_GEN	"v3"

/* Whether case @name runs on generation @gen by default. */
static int runs_by_default(const char *gen, const char *name)
{
	return !strcmp(gen, FULL_GEN) || !strcmp(name, "records") || !strcmp(name, "profile");
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

struct rec {
	int id;
	char val[BLOB_MAX];
};

struct blob {
	int len;
	unsigned char b[BLOB_MAX];
	int n;
	struct rec r[MAX_RECS];
};

static int sim_set(const char *name, const char *fmt, unsigned long long v)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, name);
	return nt_write(path, fmt, v);
}

static int param_set(const char *name, unsigned long long v)
{
	char path[160];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	return nt_write(path, "%llu", v) ? -1 : 0;
}

/* Blobs posted so far (the simulator's count), or -1. */
static long long posts(void)
{
	char path[160], line[128], k[64];
	long long v = -1, x;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DBG, DEV, "mbox_state");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &x) == 2 && !strcmp(k, "posts"))
			v = x;
	fclose(f);
	return v;
}

/* Wait up to @ms for at least @n posts; the count. */
static long long wait_posts(long long n, long ms)
{
	long end = nt_now_ms() + ms;
	long long p;

	while ((p = posts()) < n && nt_now_ms() < end)
		usleep(20000);
	return p;
}

/* Records of @bl from its bytes: 0, or -1 when they do not tile it exactly. */
static int decode(struct blob *bl)
{
	int off = 0;

	bl->n = 0;
	while (off < bl->len) {
		int len;

		if (off + 2 > bl->len || bl->n == MAX_RECS)
			return -1;
		len = bl->b[off + 1];
		if (off + 2 + len > bl->len)
			return -1;
		bl->r[bl->n].id = bl->b[off];
		memcpy(bl->r[bl->n].val, bl->b + off + 2, len);
		bl->r[bl->n].val[len] = 0;
		bl->n++;
		off += 2 + len;
	}
	return 0;
}

/*
 * The blobs of the simulator's log (oldest first, at most @max) into @out:
 * how many, or -1 for a line that is not a blob.  @hex, when not NULL,
 * gets each line.
 */
static int read_log(struct blob *out, int max, char (*hex)[2 * BLOB_MAX + 2])
{
	char path[160], line[2 * BLOB_MAX + 8];
	int n = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DBG, DEV, "metrics_posted");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t l;

		line[strcspn(line, "\n")] = 0;
		l = strlen(line);
		if (!l || l % 2 || l / 2 > BLOB_MAX) {
			n = -1;
			break;
		}
		if (n == max) {
			memmove(out, out + 1, (max - 1) * sizeof(*out));
			if (hex)
				memmove(hex, hex + 1, (max - 1) * sizeof(*hex));
			n--;
		}
		out[n].len = l / 2;
		for (i = 0; i < out[n].len; i++)
			if (sscanf(line + 2 * i, "%2hhx", &out[n].b[i]) != 1)
				break;
		if (hex)
			snprintf(hex[n], sizeof(hex[n]), "%s", line);
		if (i < out[n].len || decode(&out[n])) {
			n = -1;
			break;
		}
		n++;
	}
	fclose(f);
	return n;
}

static const char *rec_val(const struct blob *bl, int id)
{
	int i;

	for (i = 0; i < bl->n; i++)
		if (bl->r[i].id == id)
			return bl->r[i].val;
	return NULL;
}

/* The last logged blob of tick 0 (it has the profile record) or 1; 0 or -1. */
static int last_of_tick(int tick, struct blob *out)
{
	static struct blob log[16];
	int n = read_log(log, 16, NULL), i;

	for (i = n - 1; i >= 0; i--)
		if (!!rec_val(&log[i], 56) == !tick) {
			*out = log[i];
			return 0;
		}
	return -1;
}

/* Value of record @id of @bl, "<absent>" when it has none (for string checks). */
static const char *rv(const struct blob *bl, int id)
{
	const char *v = rec_val(bl, id);

	return v ? v : "<absent>";
}

/*
 * Wait for the next post of tick @tick built after now, into @out; 0 or
 * -1.  The post in flight now may have been built before: it is skipped.
 */
static int next_of_tick(int tick, struct blob *out)
{
	static struct blob log[16];
	long long p = posts() + 1;
	int i, n;

	for (i = 0; i < 2; i++, p++) {
		if (wait_posts(p + 1, WAIT_MS) < p + 1)
			return -1;
		n = read_log(log, 16, NULL);
		if (n > 0 && !!rec_val(&log[n - 1], 56) == !tick) {
			*out = log[n - 1];
			return 0;
		}
	}
	return -1;
}

/* The instance id the driver should post: the DMI board asset tag, or "0". */
static void expected_instance(char *buf, size_t len)
{
	if (nt_read(buf, len, "/sys/class/dmi/id/board_asset_tag") || !buf[0] ||
	    strlen(buf) >= BLOB_MAX / 2)
		snprintf(buf, len, "0");
}

static long metrics_ctrl(int fd, __u32 mode)
{
	struct neuron_ioctl_metrics_ctrl c = { .mode = mode };

	return xioctl(fd, NEURON_IOCTL_METRICS_CTRL, &c);
}

/* Line @key of the device's telemetry debugfs file, after the key; 0 or -1. */
static int tel_line(int index, const char *key, char *out, size_t len)
{
	char path[128], line[256];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), TEL_DBG, index);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
			snprintf(out, len, "%s", line + strlen(key) + 2);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

FIXTURE_SETUP(metrics)
{
	self->t0 = nt_now_ms();
	self->fd = -1;
	if (!nt_env_num("NEURON_STRESS", 0) && !runs_by_default(variant->gen, _metadata->name))
		SKIP(return, "on %s with NEURON_STRESS=1 (the generations share it)", variant->gen);
	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	sim_device_ready(_metadata, DEV, variant->ncs, SETTLE_MS);
	ASSERT_TRUE(nt_exists("/sys/module/neuron_telemetry"));
	ASSERT_EQ(0, param_set("nmetric_metric_post_delay", PERIOD_MS));
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_LE(0, posts()) TH_LOG("no mbox_state in the simulator's debugfs");
}

FIXTURE_TEARDOWN(metrics)
{
	sim_set("mbox_delay_ms", "%llu", 0);
	sim_set("api_version", "%llu", 7);
	if (self->fd >= 0)
		close(self->fd);
	/* Back as it was, so the next case keeps the loaded driver. */
	if (!nt_exists("/sys/module/neuron_telemetry"))
		nt_sh("modprobe neuron_telemetry");
	EXPECT_EQ(0, param_set("nmetric_metric_post_delay", 150000));
	EXPECT_EQ(0, param_set("nmetric_log_posts", 1));
	EXPECT_EQ(0, param_set("power_rollup_s", 60));
	sim_device_end(_metadata, self->index, NULL, self->t0);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

/*
 * Posts come every period, alternating ticks; every blob is a tiling of
 * records of at most 128 bytes with the instance id and driver version;
 * tick 0 adds the profile and the firmware error count.
 */
TEST_F(metrics, records)
{
	char inst[128], ver[64];
	struct blob b0, b1;
	long long p0 = posts();

	expected_instance(inst, sizeof(inst));
	ASSERT_EQ(0, nt_read(ver, sizeof(ver), "/sys/module/neuron_telemetry/version"));
	ASSERT_LE(p0 + 2, wait_posts(p0 + 2, WAIT_MS));
	ASSERT_EQ(0, last_of_tick(0, &b0));
	ASSERT_EQ(0, last_of_tick(1, &b1));
	EXPECT_STREQ(inst, rv(&b0, 12));
	EXPECT_STREQ(ver, rv(&b0, 13));
	EXPECT_STREQ(inst, rv(&b1, 12));
	EXPECT_STREQ(ver, rv(&b1, 13));
	EXPECT_STREQ("0", rv(&b0, 56));
	EXPECT_STREQ("0", rv(&b0, 11));
	EXPECT_EQ(NULL, rec_val(&b1, 11));
	/* No datastore: no versions, counters or features. */
	EXPECT_EQ(NULL, rec_val(&b0, 180));
	EXPECT_EQ(NULL, rec_val(&b0, 200));
	EXPECT_EQ(NULL, rec_val(&b1, 250));
	EXPECT_GE(BLOB_MAX, b0.len);
	EXPECT_GE(BLOB_MAX, b1.len);
}

/* The profile POWER_PROFILE set is posted at the next tick 0 (0 on v2). */
TEST_F(metrics, profile)
{
	struct neuron_ioctl_power_profile p = { .sz = sizeof(p), .ctrl = 0, .profile = 2 };
	struct blob b;

	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, &p));
	ASSERT_EQ(0, next_of_tick(0, &b));
	EXPECT_STREQ(variant->perf ? "2" : "0", rv(&b, 56));
}

#define VER(maj, min, build)	((__u64)(maj) << 40 | (__u64)(min) << 32 | (build))
/* Byte offsets of a counter of core @nc (0-3) in a datastore. */
#define NC_OFF(nc, id)		(256 + ((nc) * 31 + (id)) * 8)
#define EXT_OFF(nc, id)		(55936 + ((nc) * 64 + (id) - 31) * 8)
#define ND_OFF(id)		(8 + (id) * 8)

/*
 * The blobs posted since the simulator's count was @p0 (at most 16, the
 * log's depth) into @out, oldest first: how many, or -1.
 */
static int posted_since(long long p0, struct blob *out)
{
	static struct blob log[16];
	long long before, after;
	int n, i, k;

	for (i = 0; i < 10; i++) {
		before = posts();
		n = read_log(log, 16, NULL);
		after = posts();
		if (before != after)
			continue;
		k = after - p0;
		if (n < 0 || k < 0 || k > n)
			return -1;
		memcpy(out, log + n - k, k * sizeof(*out));
		return k;
	}
	return -1;
}

/* Sum of the values of record @id over @n blobs. */
static long long rec_sum(const struct blob *bl, int n, int id)
{
	long long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		if (rec_val(&bl[i], id))
			sum += atoll(rec_val(&bl[i], id));
	return sum;
}

/*
 * Counters a process leaves in its datastore are posted as deltas, summed
 * over the cores, once released, and only once: their sum over every blob
 * posted since is the value written.
 */
TEST_F(metrics, counter_deltas)
{
	static struct blob since[16];
	const struct blob *t1;
	unsigned char *ds;
	long long p0;
	__u64 off;
	int n;

	ASSERT_EQ(0, ds_acquire(self->fd, 0, &off));
	ds = mmap(NULL, DS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, off);
	ASSERT_NE(MAP_FAILED, ds);
	p0 = posts();
	*(__u64 *)(ds + NC_OFF(0, 1)) = 5;		/* INFER_COMPLETED */
	*(__u64 *)(ds + NC_OFF(1, 1)) = 3;
	*(__u64 *)(ds + NC_OFF(0, 11)) = 2;		/* ERR_HW */
	*(__u64 *)(ds + EXT_OFF(1, 32)) = 4;		/* HBM UE */
	*(__u64 *)(ds + ND_OFF(0)) = VER(2, 21, 999);	/* runtime version */
	*(__u64 *)(ds + ND_OFF(3)) = 6;			/* feature bitmap */
	munmap(ds, DS_SIZE);
	ASSERT_EQ(0, ds_release(self->fd, 0));

	/* Two posts of each tick after the one in flight. */
	ASSERT_LE(p0 + 5, wait_posts(p0 + 5, WAIT_MS));
	n = posted_since(p0, since);
	ASSERT_LE(5, n);
	EXPECT_EQ(8, rec_sum(since, n, 200));
	EXPECT_EQ(2, rec_sum(since, n, 206));
	EXPECT_EQ(4, rec_sum(since, n, 222));
	EXPECT_EQ(0, rec_sum(since, n, 201));
	/* The released entry's versions and features stay. */
	EXPECT_STREQ("2.21.999", rv(&since[n - 1], 180));
	/* The last tick-1 blob (without the profile record). */
	t1 = rec_val(&since[n - 1], 56) ? &since[n - 2] : &since[n - 1];
	EXPECT_STREQ("6", rv(t1, 250));
	/* Posted: not again. */
	ASSERT_LE(p0 + 8, wait_posts(p0 + 8, WAIT_MS));
	n = posted_since(p0, since);
	ASSERT_LE(8, n);
	EXPECT_EQ(8, rec_sum(since, n, 200));
	EXPECT_EQ(2, rec_sum(since, n, 206));
	EXPECT_EQ(4, rec_sum(since, n, 222));
}

/*
 * PERIODIC_DISABLE stops the posts (the thread keeps running);
 * PERIODIC_ENABLE posts the missed ticks at once, two at most, one of each.
 */
TEST_F(metrics, pause_resume)
{
	struct blob log[16];
	char st[64];
	long long p;
	int n;

	ASSERT_EQ(0, metrics_ctrl(self->fd, NEURON_METRICS_MODE_PERIODIC_DISABLE));
	ASSERT_EQ(0, tel_line(self->index, "metrics", st, sizeof(st)));
	EXPECT_STREQ("paused", st);
	/* A post in flight may still land. */
	usleep(PERIOD_MS * 1000);
	p = posts();
	usleep(4 * PERIOD_MS * 1000);
	EXPECT_EQ(p, posts());
	/* No regular post soon: what comes now is the missed ticks. */
	ASSERT_EQ(0, param_set("nmetric_metric_post_delay", 60000));
	ASSERT_EQ(0, metrics_ctrl(self->fd, NEURON_METRICS_MODE_PERIODIC_ENABLE));
	EXPECT_EQ(p + 2, wait_posts(p + 2, WAIT_MS));
	usleep(500000);
	EXPECT_EQ(p + 2, posts());
	ASSERT_EQ(0, tel_line(self->index, "metrics", st, sizeof(st)));
	EXPECT_STREQ("running", st);
	n = read_log(log, 16, NULL);
	ASSERT_LE(2, n);
	EXPECT_NE(!rec_val(&log[n - 1], 56), !rec_val(&log[n - 2], 56));
	/* Enabling while running posts nothing more. */
	ASSERT_EQ(0, metrics_ctrl(self->fd, NEURON_METRICS_MODE_PERIODIC_ENABLE));
	usleep(300000);
	EXPECT_EQ(p + 2, posts());
}

/* Other modes: EINVAL, nothing changes. */
TEST_F(metrics, bad_mode)
{
	char st[64];

	EXPECT_EQ(-EINVAL, metrics_ctrl(self->fd, 2));
	EXPECT_EQ(-EINVAL, metrics_ctrl(self->fd, 0xffffffff));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_METRICS_CTRL, unmapped_address()));
	ASSERT_EQ(0, tel_line(self->index, "metrics", st, sizeof(st)));
	EXPECT_STREQ("running", st);
	/* Parameters out of range are refused. */
	EXPECT_NE(0, param_set("nmetric_metric_post_delay", 0));
	EXPECT_NE(0, param_set("nmetric_metric_post_delay", 99));
	EXPECT_NE(0, param_set("nmetric_log_posts", 4));
	EXPECT_NE(0, param_set("power_rollup_s", 0));
}

/* With nmetric_log_posts 3, each post is also a metrics_post trace event. */
TEST_F(metrics, trace_event)
{
	static const char * const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	static char hex[16][2 * BLOB_MAX + 2];
	static struct blob log[16];
	char ev[160], path[200], line[512], want[64];
	const char *root = NULL;
	int found = 0, n, i;
	unsigned int k;
	long long p;
	FILE *f;

	for (k = 0; k < ARRAY_SIZE(roots) && !root; k++) {
		snprintf(ev, sizeof(ev), "%s/events/neuron_telemetry/metrics_post", roots[k]);
		if (nt_exists("%s", ev))
			root = roots[k];
	}
	if (!root)
		SKIP(return, "no tracefs with the metrics_post event");
	snprintf(path, sizeof(path), "%s/enable", ev);
	ASSERT_EQ(0, nt_write(path, "1"));
	snprintf(path, sizeof(path), "%s/trace", root);
	ASSERT_EQ(0, nt_write(path, "%s", ""));
	ASSERT_EQ(0, param_set("nmetric_log_posts", 3));
	p = posts();
	/* The post in flight may have been built before: two more after it. */
	ASSERT_LE(p + 3, wait_posts(p + 3, WAIT_MS));
	ASSERT_EQ(0, param_set("nmetric_log_posts", 1));
	usleep(2 * PERIOD_MS * 1000);
	snprintf(path, sizeof(path), "%s/enable", ev);
	EXPECT_EQ(0, nt_write(path, "0"));
	snprintf(path, sizeof(path), "%s/trace", root);
	n = read_log(log, 16, hex);
	ASSERT_LE(2, n);
	snprintf(want, sizeof(want), "metrics_post: dev=%d tick=", self->index);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char *blob = strstr(line, "blob=");
		unsigned int tick, len;
		char *at = strstr(line, want);

		if (!at || !blob)
			continue;
		if (sscanf(at + strlen(want), "%u len=%u", &tick, &len) != 2) {
			EXPECT_TRUE(0) TH_LOG("bad event line: %s", line);
			continue;
		}
		blob += 5;
		blob[strcspn(blob, "\n")] = 0;
		EXPECT_EQ(2 * len, strlen(blob));
		/* The same bytes the firmware got. */
		for (i = 0; i < n; i++)
			if (!strcmp(hex[i], blob))
				break;
		EXPECT_LT(i, n) TH_LOG("traced blob %s not posted", blob);
		/* Tick 0 carries the profile record. */
		if (i < n)
			EXPECT_EQ(!tick, !!rec_val(&log[i], 56)) TH_LOG("tick %u: %s", tick, blob);
		found++;
	}
	fclose(f);
	EXPECT_LE(2, found);
}

/*
 * Unloading neuron_telemetry while a post waits for a firmware that takes
 * seconds to answer is prompt.
 */
TEST_F(metrics, unload_during_slow_post)
{
	long t;

	ASSERT_EQ(0, sim_set("mbox_delay_ms", "%llu", 30000));
	/* A post is now waiting (15 attempts of 1 s). */
	usleep(3 * PERIOD_MS * 1000);
	t = nt_now_ms();
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_telemetry"));
	t = nt_now_ms() - t;
	EXPECT_GT(3000, t) TH_LOG("unload took %ld ms", t);
	ASSERT_EQ(0, sim_set("mbox_delay_ms", "%llu", 0));
	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry"));
}

/*
 * Power utilisation: NO_DATA at first; VALID once a (shortened) minute
 * of the simulator's samples is rolled up, the highest die's value;
 * INVALID below firmware API 3.
 */
TEST_F(metrics, power)
{
	unsigned int mn, mx, avg;
	unsigned long long epoch;
	char st[128], status[16];
	long end;

	ASSERT_EQ(0, tel_line(self->index, "power", st, sizeof(st)));
	EXPECT_EQ(0, strncmp(st, "NO_DATA", 7)) TH_LOG("%s", st);
	ASSERT_EQ(0, param_set("power_rollup_s", 6));
	ASSERT_EQ(0, sim_set("power_util", "%llu 4000", 2500));
	end = nt_now_ms() + 25000;
	do {
		usleep(200000);
		ASSERT_EQ(0, tel_line(self->index, "power", st, sizeof(st)));
	} while (strncmp(st, "VALID", 5) && nt_now_ms() < end);
	if (sscanf(st, "%15s %llu %u %u %u", status, &epoch, &mn, &mx, &avg) != 5)
		ASSERT_TRUE(0) TH_LOG("power line: %s", st);
	ASSERT_STREQ("VALID", status);
	EXPECT_EQ(0, epoch % 6);
	EXPECT_EQ(variant->dice == 2 ? 4000 : 2500, mx);
	EXPECT_EQ(mx, mn);
	EXPECT_EQ(mx, avg);
	/* Firmware API 2: no utilisation. */
	ASSERT_EQ(0, sim_set("api_version", "%llu", 2));
	usleep(500000);
	ASSERT_EQ(0, tel_line(self->index, "power", st, sizeof(st)));
	EXPECT_EQ(0, strncmp(st, "INVALID", 7)) TH_LOG("%s", st);
}

TEST_HARNESS_MAIN
