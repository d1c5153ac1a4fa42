// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the firmware mailbox commands of neuron_telemetry
 * (Documentation/ioctl.rst, "Telemetry") on simulated v2, v3 and v4
 * devices: READ_HW_COUNTERS and POST_METRIC (legacy mailbox), POWER_PROFILE,
 * GET_PERFORMANCE_PROFILE, AVAILABLE_PERF_PROFILES and
 * THROTTLING_NOTIFICATIONS (new mailbox), with the simulated firmware's
 * answers and state (its debugfs files) checked byte for byte, bad input,
 * and every mailbox fault switch of the simulator: the errno, the time the
 * request takes, and that the next request works.
 *
 * Each test loads neuron_core and neuron_sim (or keeps them from the case
 * before), creates one simulated device and opens it O_RDWR (this process
 * attaches).  The attempt timeout of the mailbox (neuron_core's
 * fw_mbox_timeout_ms) is set to TIMEOUT_MS for the test and put back
 * afterwards, as are the simulator's switches.
 */
#include <signal.h>
#include <stdint.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
#define DEV		5
#define TIMEOUT_MS	100
#define TIMEOUT_PARAM	"/sys/module/neuron_core/parameters/fw_mbox_timeout_ms"
/* Attempts of a new-protocol command and of a legacy one (the driver's figures). */
#define NEW_TRIES	3
#define LEGACY_TRIES	15
/* Most addresses READ_HW_COUNTERS takes: what a 16-bit request size allows. */
#define READ_MAX	8190
#define SLACK_MS	2000

FIXTURE(fw) {
	int fd;
	int index;
	int counted;
	struct mcount start;
	long t0;
};

/* The generation and how its firmware sees the register BAR (DHAL data). */
FIXTURE_VARIANT(fw) {
	const char *gen;
	unsigned int ncs;
	int perf;		/* the firmware has performance profiles */
	__u64 csr_base;		/* READ's address of BAR 0 offset 0 */
	__u64 csr_size;		/* bytes of BAR 0 READ reaches */
	__u64 misc;		/* MiscRAM's BAR 0 offset */
	__u64 reg[3];		/* readable registers outside MiscRAM */
	__u64 hole;		/* a BAR 0 offset below csr_size no window allows */
	__u64 ring_base;	/* a DMA queue's ring base register (driver addresses) */
};

FIXTURE_VARIANT_ADD(fw, v2) {
	.gen = "v2", .ncs = 2, .perf = 0,
	.csr_base = 0xfffc0000000ULL, .csr_size = 0x40000000, .misc = 0x30fa0000,
	.reg = { 0x00001000, 0x30fa1000, 0x3ffffffc },
	.hole = 0x20000000,
	.ring_base = 0x30000000 + 0x1000 + 0x28,	/* engine 0, M2S queue 0, low */
};

FIXTURE_VARIANT_ADD(fw, v3) {
	.gen = "v3", .ncs = 8, .perf = 1,
	.csr_base = 0x8000000000ULL, .csr_size = 0x20000000, .misc = 0x06c84000,
	.reg = { 0x00000100, 0x06c85000, 0x1ffffffc },
	.hole = 0x06c84800,
	.ring_base = 0x06800000 + 0x20000 + 0x1000 + 0x2c,	/* engine 128, S2M queue 0, high */
};

FIXTURE_VARIANT_ADD(fw, v4) {
	.gen = "v4", .ncs = 8, .perf = 1,
	.csr_base = 0x8000000000ULL, .csr_size = 0x20000000, .misc = 0x06c84000,
	.reg = { 0x00000100, 0x06c85000, 0x1ffffffc },
	.hole = 0x06c84800,
	.ring_base = 0x06800000 + 0x20000 + 0x1000 + 0x2c,	/* engine 128, S2M queue 0, high */
};

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int sim_set(const char *name, const char *fmt, unsigned long long v)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, name);
	return nt_write(path, fmt, v);
}

/* Value of field @key of the simulator's mbox_state, or -1. */
static long long sim_state(const char *key)
{
	char path[160], line[128];
	long long v = -1, x;
	char k[64];
	FILE *f;

	snprintf(path, sizeof(path), SIM_DBG, DEV, "mbox_state");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &x) == 2 && !strcmp(k, key))
			v = x;
	fclose(f);
	return v;
}

/* Preset BAR 0 register @off of the simulated device to @val. */
static int reg_set(__u64 off, __u32 val)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "reg_set");
	return nt_write(path, "%#llx %#x", (unsigned long long)off, val);
}

/* The last line of metrics_posted into @buf; 0 or -1. */
static int last_post(char *buf, size_t len)
{
	char path[160], line[300];
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), SIM_DBG, DEV, "metrics_posted");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strlen(line) < len)
			memcpy(buf, line, strlen(line) + 1);
		found = 0;
	}
	fclose(f);
	return found;
}

static long throttle(int fd, __u32 on)
{
	struct neuron_ioctl_throttling_notifications t = { .enable = on };

	return xioctl(fd, NEURON_IOCTL_THROTTLING_NOTIFICATIONS, &t);
}

static long set_profile(int fd, __u32 profile)
{
	struct neuron_ioctl_power_profile p = { .sz = sizeof(p), .ctrl = 0, .profile = profile };

	return xioctl(fd, NEURON_IOCTL_POWER_PROFILE, &p);
}

static long get_profile(int fd, __u32 *profile)
{
	struct neuron_ioctl_power_profile p = { .sz = sizeof(p), .ctrl = 1, .profile = 0xdead };
	long ret = xioctl(fd, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, &p);

	*profile = p.profile;
	return ret;
}

static long read_hw(int fd, __u64 *addrs, __u32 *vals, __u32 count)
{
	struct neuron_ioctl_read_hw_counters r = { .address = addrs, .data = vals, .count = count };

	return xioctl(fd, NEURON_IOCTL_READ_HW_COUNTERS, &r);
}

static long post(int fd, void *data, __u32 size)
{
	struct neuron_ioctl_post_metric p = { .data = data, .data_size = size };

	return xioctl(fd, NEURON_IOCTL_POST_METRIC, &p);
}

/* One READ of register @off (BAR 0 offset): 0 and its value, or -errno. */
static long read_one(int fd, const struct _fixture_variant_fw *v, __u64 off, __u32 *val)
{
	__u64 a = v->csr_base + off;

	*val = 0xa5a5a5a5;
	return read_hw(fd, &a, val, 1);
}

FIXTURE_SETUP(fw)
{
	self->t0 = nt_now_ms();
	self->fd = -1;
	self->counted = 0;
	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	sim_device_ready(_metadata, DEV, variant->ncs, SETTLE_MS);
	ASSERT_EQ(0, nt_write(TIMEOUT_PARAM, "%d", TIMEOUT_MS));
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_LE(0, sim_state("requests")) TH_LOG("no mbox_state in the simulator's debugfs");
	ASSERT_EQ(0, mcount_read(self->index, &self->start));
	self->counted = 1;
}

FIXTURE_TEARDOWN(fw)
{
	sim_set("mbox_silent", "%llu", 0);
	sim_set("mbox_error", "%llu", 0);
	sim_set("mbox_unknown", "%llu", 0);
	sim_set("mbox_delay_ms", "%llu", 0);
	if (self->fd >= 0)
		close(self->fd);
	/* Back as it was, so the next case keeps the loaded driver. */
	EXPECT_EQ(0, nt_write(TIMEOUT_PARAM, "0"));
	sim_device_end(_metadata, self->index, self->counted ? &self->start : NULL, self->t0);
}

/* ------------------------------------------------------------------ */
/* READ_HW_COUNTERS                                                    */
/* ------------------------------------------------------------------ */

/*
 * Registers preset in the simulator come back exactly, in order, through
 * one firmware request, and as BAR_READ sees them; a repeated address too.
 */
TEST_F(fw, read_counters)
{
	__u64 addrs[4], offs[3];
	__u32 vals[4], bar_vals[3], want[3];
	__u64 bar, *many;
	__u32 *mv;
	long long req;
	int i;

	for (i = 0; i < 3; i++) {
		want[i] = (__u32)rnd() | 1;
		ASSERT_EQ(0, reg_set(variant->reg[i], want[i]));
		addrs[i] = variant->csr_base + variant->reg[i];
		offs[i] = variant->reg[i];
		vals[i] = 0xa5a5a5a5;
	}
	addrs[3] = addrs[0];
	vals[3] = 0xa5a5a5a5;
	req = sim_state("requests");
	ASSERT_EQ(0, read_hw(self->fd, addrs, vals, 4));
	EXPECT_EQ(req + 1, sim_state("requests"));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(want[i], vals[i]) TH_LOG("register %d", i);
	EXPECT_EQ(want[0], vals[3]);
	/* BAR_READ agrees. */
	ASSERT_EQ(0, bar_base(self->fd, &bar));
	ASSERT_EQ(0, regs_read(self->fd, bar, offs, bar_vals, 3));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(want[i], bar_vals[i]);
	/* A register changes: the next READ sees it. */
	ASSERT_EQ(0, reg_set(variant->reg[1], ~want[1]));
	ASSERT_EQ(0, read_one(self->fd, variant, variant->reg[1], &vals[0]));
	EXPECT_EQ(~want[1], vals[0]);
	/* As many as the request buffer holds. */
	many = calloc(READ_MAX, sizeof(*many));
	mv = calloc(READ_MAX, sizeof(*mv));
	ASSERT_TRUE(many && mv);
	for (i = 0; i < READ_MAX; i++)
		many[i] = addrs[i % 3];
	EXPECT_EQ(0, read_hw(self->fd, many, mv, READ_MAX));
	for (i = 0; i < READ_MAX; i++)
		if (mv[i] != (i % 3 == 1 ? ~want[1] : want[i % 3]))
			break;
	EXPECT_EQ(READ_MAX, i);
	free(many);
	free(mv);
}

/*
 * Bad requests change nothing and send nothing: zero and oversized counts,
 * unaligned and forbidden addresses (MiscRAM, outside the window, a hole
 * between windows), bad pointers.
 */
TEST_F(fw, read_bad)
{
	__u64 a[2] = { variant->csr_base + variant->reg[0], 0 };
	__u32 v[2] = { 0x5a5a5a5a, 0x5a5a5a5a };
	long long req = sim_state("requests");
	const __u64 forbidden[] = {
		variant->csr_base + variant->misc,
		variant->csr_base + variant->misc + 0x800,
		variant->csr_base + variant->csr_size,
		variant->csr_base - 4,
		variant->csr_base + variant->hole,
		variant->csr_base + variant->ring_base,
		0,
		~3ULL,
	};
	unsigned int i;

	EXPECT_EQ(-EINVAL, read_hw(self->fd, a, v, 0));
	EXPECT_EQ(-E2BIG, read_hw(self->fd, a, v, READ_MAX + 1));
	EXPECT_EQ(-E2BIG, read_hw(self->fd, a, v, 0xffffffff));
	a[1] = variant->csr_base + variant->reg[0] + 2;
	EXPECT_EQ(-EINVAL, read_hw(self->fd, a, v, 2));
	for (i = 0; i < ARRAY_SIZE(forbidden); i++) {
		a[1] = forbidden[i];
		EXPECT_EQ(-EPERM, read_hw(self->fd, a, v, 2))
			TH_LOG("address %#llx", (unsigned long long)forbidden[i]);
	}
	EXPECT_EQ(-EFAULT, read_hw(self->fd, unmapped_address(), v, 1));
	EXPECT_EQ(0x5a5a5a5a, v[0]);
	EXPECT_EQ(0x5a5a5a5a, v[1]);
	EXPECT_EQ(req, sim_state("requests"));
	/* Results to a bad pointer: the request ran, the copy fails. */
	a[1] = a[0];
	EXPECT_EQ(-EFAULT, read_hw(self->fd, a, read_only_page(), 2));
	EXPECT_EQ(0, read_hw(self->fd, a, v, 1));
}

/* ------------------------------------------------------------------ */
/* POST_METRIC                                                         */
/* ------------------------------------------------------------------ */

static void hex(const unsigned char *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/* Posted blobs of 1, 5 and 128 bytes reach the firmware's log exactly. */
TEST_F(fw, post_metric)
{
	const __u32 sizes[] = { 1, 5, 128 };
	unsigned char blob[128];
	char want[300], got[300];
	long long posts = sim_state("posts");
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		rnd_fill(blob, sizeof(blob));
		ASSERT_EQ(0, post(self->fd, blob, sizes[i]));
		EXPECT_EQ(posts + i + 1, sim_state("posts"));
		ASSERT_EQ(0, last_post(got, sizeof(got)));
		hex(blob, sizes[i], want);
		EXPECT_STREQ(want, got);
	}
}

TEST_F(fw, post_bad)
{
	unsigned char blob[256] = { 1 };
	long long posts = sim_state("posts"), req = sim_state("requests");

	EXPECT_EQ(-EINVAL, post(self->fd, blob, 0));
	EXPECT_EQ(-E2BIG, post(self->fd, blob, 129));
	EXPECT_EQ(-E2BIG, post(self->fd, blob, 0xffffffff));
	EXPECT_EQ(-EFAULT, post(self->fd, unmapped_address(), 4));
	EXPECT_EQ(-EFAULT, post(self->fd, NULL, 4));
	EXPECT_EQ(posts, sim_state("posts"));
	EXPECT_EQ(req, sim_state("requests"));
}

/* ------------------------------------------------------------------ */
/* Profiles and throttling                                             */
/* ------------------------------------------------------------------ */

static long avail(int fd, __u16 feature, struct neuron_ioctl_available_perf_profiles *a)
{
	memset(a, 0xaa, sizeof(*a));
	a->requested_feature = feature;
	return xioctl(fd, NEURON_IOCTL_AVAILABLE_PERF_PROFILES, a);
}

/*
 * The firmware's configured sets come back byte for byte (v3, v4); v2's
 * firmware has no profiles: none, zeroed, and nothing is sent.
 */
TEST_F(fw, available_profiles)
{
	struct neuron_ioctl_available_perf_profiles a;
	long long req = sim_state("requests");
	unsigned int i;

	ASSERT_EQ(0, sim_set("mbox_profiles_hbm", "%#llx", 0x80000105ULL));
	ASSERT_EQ(0, avail(self->fd, 0, &a));
	EXPECT_EQ(variant->perf ? 4 : 0, a.num_profiles);
	EXPECT_EQ(variant->perf ? 0x0f : 0, a.bitmap[0]);
	for (i = 1; i < 32; i++)
		EXPECT_EQ(0, a.bitmap[i]) TH_LOG("byte %u", i);
	EXPECT_EQ(0, a.requested_feature);
	ASSERT_EQ(0, avail(self->fd, 5, &a));
	EXPECT_EQ(variant->perf ? 4 : 0, a.num_profiles);
	EXPECT_EQ(variant->perf ? 0x05 : 0, a.bitmap[0]);
	EXPECT_EQ(variant->perf ? 0x01 : 0, a.bitmap[1]);
	EXPECT_EQ(0, a.bitmap[2]);
	EXPECT_EQ(variant->perf ? 0x80 : 0, a.bitmap[3]);
	for (i = 4; i < 32; i++)
		EXPECT_EQ(0, a.bitmap[i]) TH_LOG("byte %u", i);
	EXPECT_EQ(req + (variant->perf ? 2 : 0), sim_state("requests"));
	/* Unknown features: refused, output untouched, nothing sent. */
	EXPECT_EQ(-EINVAL, avail(self->fd, 1, &a));
	EXPECT_EQ(0xaa, a.num_profiles);
	EXPECT_EQ(-EINVAL, avail(self->fd, 0xffff, &a));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_AVAILABLE_PERF_PROFILES,
				  unmapped_address()));
	EXPECT_EQ(req + (variant->perf ? 2 : 0), sim_state("requests"));
}

/* Set, read back, refuse an unavailable profile; v2: always 0. */
TEST_F(fw, profile_set_get)
{
	__u32 p = 0xdead;

	ASSERT_EQ(0, set_profile(self->fd, 2));
	ASSERT_EQ(0, get_profile(self->fd, &p));
	EXPECT_EQ(variant->perf ? 2 : 0, p);
	EXPECT_EQ(variant->perf ? 2 : 0, sim_state("profile"));
	ASSERT_EQ(0, set_profile(self->fd, 3));
	EXPECT_EQ(variant->perf ? 3 : 0, sim_state("profile"));
	if (variant->perf) {
		/* Not in the firmware's set: the firmware refuses, nothing changes. */
		EXPECT_EQ(-EIO, set_profile(self->fd, 9));
		ASSERT_EQ(0, get_profile(self->fd, &p));
		EXPECT_EQ(3, p);
	}
	ASSERT_EQ(0, set_profile(self->fd, 0));
	EXPECT_EQ(0, sim_state("profile"));
}

TEST_F(fw, profile_bad)
{
	struct neuron_ioctl_power_profile p = { .sz = 7, .ctrl = 0, .profile = 1 };
	long long req = sim_state("requests");

	EXPECT_EQ(-ENXIO, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, &p));
	p.sz = 16;
	EXPECT_EQ(-ENXIO, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, &p));
	p.sz = 8;
	p.ctrl = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, &p));
	p.ctrl = 0;
	p.profile = 256;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, &p));
	p.profile = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, &p));
	p.ctrl = 0;
	p.profile = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, &p));
	p.sz = 0;
	p.ctrl = 1;
	EXPECT_EQ(-ENXIO, xioctl(self->fd, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, &p));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_POWER_PROFILE, unmapped_address()));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, NULL));
	EXPECT_EQ(req, sim_state("requests"));
	EXPECT_EQ(0, sim_state("profile"));
}

/* Throttling notifications: the feature byte the firmware stores. */
TEST_F(fw, throttling)
{
	ASSERT_EQ(0, throttle(self->fd, 1));
	EXPECT_EQ(1, sim_state("features"));
	ASSERT_EQ(0, throttle(self->fd, 0));
	EXPECT_EQ(0, sim_state("features"));
	ASSERT_EQ(0, throttle(self->fd, 0x80000000));
	EXPECT_EQ(1, sim_state("features"));
	ASSERT_EQ(0, throttle(self->fd, 0));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_THROTTLING_NOTIFICATIONS,
				  unmapped_address()));
	EXPECT_EQ(0, sim_state("features"));
}

/* ------------------------------------------------------------------ */
/* Faults of the simulated firmware                                    */
/* ------------------------------------------------------------------ */

/*
 * With a fault switch on, a new-protocol and a legacy request end with
 * @err within their attempts' time; with it off again the next ones work.
 */
static void fault_case(struct __test_metadata *_metadata, struct _test_data_fw *self,
		       const struct _fixture_variant_fw *variant, const char *sw,
		       unsigned long long on, long err, int timed)
{
	unsigned char blob[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	long long features = sim_state("features");
	long t, max_new = SLACK_MS, max_legacy = SLACK_MS;
	__u32 v;

	if (timed) {
		max_new += NEW_TRIES * TIMEOUT_MS;
		max_legacy += LEGACY_TRIES * TIMEOUT_MS;
	}
	ASSERT_EQ(0, sim_set(sw, "%llu", on));
	t = nt_now_ms();
	EXPECT_EQ(err, throttle(self->fd, !features));
	t = nt_now_ms() - t;
	EXPECT_GE(max_new, t);
	if (timed)
		EXPECT_LE(NEW_TRIES * TIMEOUT_MS, t + 20);
	EXPECT_EQ(features, sim_state("features"));
	t = nt_now_ms();
	EXPECT_EQ(err, read_one(self->fd, variant, variant->reg[0], &v));
	EXPECT_EQ(err, post(self->fd, blob, sizeof(blob)));
	t = nt_now_ms() - t;
	EXPECT_GE(2 * max_legacy, t);
	ASSERT_EQ(0, sim_set(sw, "%llu", 0));
	EXPECT_EQ(0, throttle(self->fd, !features));
	EXPECT_EQ(!features, sim_state("features"));
	EXPECT_EQ(0, read_one(self->fd, variant, variant->reg[0], &v));
	EXPECT_EQ(0, post(self->fd, blob, sizeof(blob)));
}

TEST_F(fw, fault_silent)
{
	fault_case(_metadata, self, variant, "mbox_silent", 1, -ETIMEDOUT, 1);
}

TEST_F(fw, fault_error)
{
	fault_case(_metadata, self, variant, "mbox_error", 1, -EIO, 0);
	fault_case(_metadata, self, variant, "mbox_error", 200, -EIO, 0);
}

TEST_F(fw, fault_unknown)
{
	fault_case(_metadata, self, variant, "mbox_unknown", 1, -EOPNOTSUPP, 0);
}

/* A slow answer within the attempt's time is waited for. */
TEST_F(fw, fault_delay)
{
	long t;
	__u32 v;

	ASSERT_EQ(0, reg_set(variant->reg[0], 0x1234));
	ASSERT_EQ(0, sim_set("mbox_delay_ms", "%llu", TIMEOUT_MS / 2));
	t = nt_now_ms();
	EXPECT_EQ(0, throttle(self->fd, 1));
	EXPECT_EQ(0, read_one(self->fd, variant, variant->reg[0], &v));
	t = nt_now_ms() - t;
	EXPECT_EQ(0x1234, v);
	EXPECT_EQ(1, sim_state("features"));
	EXPECT_LE(TIMEOUT_MS - 10, t);
	EXPECT_GE(SLACK_MS, t);
	/* Slower than an attempt: a later attempt gets the answer. */
	ASSERT_EQ(0, sim_set("mbox_delay_ms", "%llu", TIMEOUT_MS * 3 / 2));
	EXPECT_EQ(0, throttle(self->fd, 0));
	EXPECT_EQ(0, sim_state("features"));
	ASSERT_EQ(0, sim_set("mbox_delay_ms", "%llu", 0));
	EXPECT_EQ(0, throttle(self->fd, 0));
}

/* Firmware below API 7: the new mailbox is refused unsent; the legacy one works. */
TEST_F(fw, api_version)
{
	long long req = sim_state("requests");
	__u32 v, p;

	ASSERT_EQ(0, sim_set("api_version", "%llu", 6));
	EXPECT_EQ(-EOPNOTSUPP, throttle(self->fd, 1));
	if (variant->perf) {
		EXPECT_EQ(-EOPNOTSUPP, set_profile(self->fd, 1));
		EXPECT_EQ(-EOPNOTSUPP, get_profile(self->fd, &p));
	}
	EXPECT_EQ(req, sim_state("requests"));
	EXPECT_EQ(0, read_one(self->fd, variant, variant->reg[0], &v));
	EXPECT_EQ(req + 1, sim_state("requests"));
	ASSERT_EQ(0, sim_set("api_version", "%llu", 7));
	EXPECT_EQ(0, throttle(self->fd, 1));
	EXPECT_EQ(1, sim_state("features"));
	EXPECT_EQ(0, throttle(self->fd, 0));
}

static void on_alarm(int sig)
{
}

/* A signal ends the wait for a firmware that never answers. */
TEST_F(fw, interrupted)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	long t;

	/* The command's own timeout (60 s per attempt): only the signal ends it. */
	ASSERT_EQ(0, nt_write(TIMEOUT_PARAM, "0"));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, sim_set("mbox_silent", "%llu", 1));
	ualarm(200000, 0);
	t = nt_now_ms();
	EXPECT_EQ(-EINTR, throttle(self->fd, 1));
	t = nt_now_ms() - t;
	EXPECT_GE(SLACK_MS, t);
	EXPECT_LE(150, t);
	ASSERT_EQ(0, sim_set("mbox_silent", "%llu", 0));
	EXPECT_EQ(0, throttle(self->fd, 1));
	EXPECT_EQ(1, sim_state("features"));
	EXPECT_EQ(0, throttle(self->fd, 0));
	signal(SIGALRM, SIG_DFL);
}

TEST_HARNESS_MAIN
