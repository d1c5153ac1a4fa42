// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the NeuronCore state plane (Documentation/state.rst) on
 * simulated v2, v3 and v4 devices: core reservations (CRWL_NC_RANGE_MARK
 * and _UNMARK in both forms), what holding a core allows, semaphores and
 * events, the per-core model locks, the core-initialisation handshake, the
 * datastore (ACQUIRE_NEURON_DS, RELEASE_NEURON_DS and its mappings) and the
 * pod answers of a standard platform.
 *
 * Each test starts with no Neuron module loaded, loads neuron_core and
 * neuron_sim and creates two simulated devices of the variant's generation
 * with ids 0 and 1 (their indexes), so that host-wide core numbers span two
 * devices.  Device 1 is the device under test, open on both lanes: a normal
 * file (O_RDWR; this process attaches) and a free-access file (O_WRONLY).
 * /dev/neuron0's free-access file, the one the runtime reserves cores
 * through, is open too.  The teardown kills the children left, unmaps
 * what the test left mapped, closes everything and leaves no module loaded.
 *
 * Which cores are held is read with NC_PID_STATE_DUMP (0: some process
 * holds the core, -ENOENT: none), and the device's semaphores and events
 * through the simulator's debugfs files.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures with CHILD_CHECK() and report the count as their exit status.
 */
#include <assert.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
/* The device under test (simulator id, routing id and index); device 0 is its neighbour. */
#define D1		1
/* Host-wide core numbers end here. */
#define GLOBAL_NCS	512
/* At most this many non-zero semaphores or events are expected per device. */
#define MAXV		64
/* Datastore entries per device. */
#define NDS		16

static const struct neuron_uuid zero_uuid;

FIXTURE(st) {
	int fd;		/* /dev/neuron1, normal file: this process is attached */
	int wfd;	/* /dev/neuron1, free-access file */
	int w0;		/* /dev/neuron0, free-access file */
	unsigned int n;	/* cores per device */
	struct undo undo;	/* children and mappings */
	pid_t crowd[NDS];	/* more children: one per datastore entry */
	long t0;	/* ms, when the setup started */
	char buf[256];
};

FIXTURE_VARIANT(st) {
	const char *gen;
	unsigned int ncs;
	int far;	/* simulator id of a device whose first core is host-wide core 64 */
};

FIXTURE_VARIANT_ADD(st, v2) {
	.gen = "v2", .ncs = 2, .far = 32,
};

FIXTURE_VARIANT_ADD(st, v3) {
	.gen = "v3", .ncs = 8, .far = 8,
};

FIXTURE_VARIANT_ADD(st, v4) {
	.gen = "v4", .ncs = 8, .far = 8,
};

/* The types the harness gives the fixture's data and variant. */
#define st_self		_test_data_st
#define st_variant	_fixture_variant_st

/*
 * Tests whose subject does not depend on the generation (no register
 * addresses, no core counts) run on v3 only: the fixture is the costly
 * part under the test VM.
 */
static const char * const st_v3_only[] = {
	"range_lifetime", "holding", "model_locks", "core_init", "pods",
	"datastore_lifetime",
};

static int st_skip(const char *gen, const char *test)
{
	unsigned int i;

	if (!strcmp(gen, "v3"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(st_v3_only); i++)
		if (!strcmp(test, st_v3_only[i]))
			return 1;
	return 0;
}

FIXTURE_SETUP(st)
{
	int id;

	if (st_skip(variant->gen, _metadata->name))
		SKIP(return, "generation-independent: runs on v3");

	self->t0 = nt_now_ms();
	self->fd = -1;
	self->wfd = -1;
	self->w0 = -1;
	self->n = variant->ncs;
	memset(&self->undo, 0, sizeof(self->undo));
	memset(self->crowd, 0, sizeof(self->crowd));
	/* Fixed seed: the model ids and semaphore values are the same every run. */
	rng_state = 0x5eed0f5a7e9a11ceULL;

	ASSERT_EQ(0, nt_driver_up("", ""));
	for (id = 0; id <= D1; id++)
		ASSERT_EQ(0, nt_sim_add(id, variant->gen));
	for (id = 0; id <= D1; id++)
		sim_device_ready(_metadata, id, variant->ncs, SETTLE_MS);
	self->fd = open_node(D1, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->wfd = open_node(D1, O_WRONLY);
	ASSERT_LE(0, self->wfd);
	self->w0 = open_node(0, O_WRONLY);
	ASSERT_LE(0, self->w0);
}

FIXTURE_TEARDOWN(st)
{
	int i;

	kill_kids(&self->undo);
	for (i = 0; i < NDS; i++) {
		if (self->crowd[i] > 0) {
			kill(self->crowd[i], SIGKILL);
			waitpid(self->crowd[i], NULL, 0);
		}
	}
	unmap_all(&self->undo);
	if (self->fd >= 0)
		close(self->fd);
	if (self->wfd >= 0)
		close(self->wfd);
	if (self->w0 >= 0)
		close(self->w0);
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* The cores of device @dev that some process holds, one bit each; -1 on an unexpected answer. */
static int held_map(struct st_self *self, unsigned int dev)
{
	unsigned int c;
	int map = 0;
	long r;

	for (c = 0; c < self->n; c++) {
		r = pid_dump(self->w0, dev * self->n + c);
		if (!r)
			map |= 1 << c;
		else if (r != -ENOENT)
			return -1;
	}
	return map;
}

static void expect_held(struct __test_metadata *_metadata, struct st_self *self,
			unsigned int dev, int map, const char *what)
{
	int got = held_map(self, dev);

	EXPECT_EQ(map, got) TH_LOG("%s: device %u held cores %#x, want %#x", what, dev, got, map);
}

/* UNMARK, 24-byte form, bitmap @b. */
static long unmark64(int fd, __u64 b)
{
	struct span s;

	memset(&s, 0, sizeof(s));
	s.bits[0] = b;
	return span_ioctl(fd, 0, 1, &s);
}

/* UNMARK_EXT0 with all 512 bits set. */
static long unmark_all(int fd)
{
	struct span s;

	memset(&s, 0, sizeof(s));
	memset(s.bits, 0xff, sizeof(s.bits));
	return span_ioctl(fd, 1, 1, &s);
}

/*
 * A mark that must succeed with the cores @first..@first+@count-1.
 * max_nc_available is the length of the free run found: @count, or the
 * whole free run from @first, @run (the spec allows either reading).
 */
static void expect_mark(struct __test_metadata *_metadata, int fd, int ext, __u32 count,
			__u32 start, __u32 end, unsigned int first, __u32 run, const char *what)
{
	__u64 want[8] = { 0 };
	struct span s;
	long ret;

	set_run(want, first, count);
	ret = mark(fd, ext, count, start, end, &s);
	EXPECT_EQ(0, ret) TH_LOG("%s: mark %u of [%u, %u]%s", what, count, start, end,
				 ext ? " (EXT0)" : "");
	if (ret)
		return;
	EXPECT_EQ(0, memcmp(want, s.bits, ext ? sizeof(want) : sizeof(want[0]))) {
		TH_LOG("%s: bitmap %#llx %#llx, want %#llx %#llx", what,
		       (unsigned long long)s.bits[0], (unsigned long long)(ext ? s.bits[1] : 0),
		       (unsigned long long)want[0], (unsigned long long)want[1]);
	}
	EXPECT_TRUE(s.max == count || s.max == run) {
		TH_LOG("%s: max_nc_available %u, want %u or %u", what, s.max, count, run);
	}
}

/* A mark that must fail with EBUSY: bitmap 0, max_nc_available @longest (copied back). */
static void expect_busy(struct __test_metadata *_metadata, int fd, int ext, __u32 count,
			__u32 start, __u32 end, __u32 longest, const char *what)
{
	__u64 zero[8] = { 0 };
	struct span s;

	EXPECT_EQ(-EBUSY, mark(fd, ext, count, start, end, &s)) {
		TH_LOG("%s: mark %u of [%u, %u]%s", what, count, start, end, ext ? " (EXT0)" : "");
	}
	EXPECT_EQ(0, memcmp(zero, s.bits, ext ? sizeof(zero) : sizeof(zero[0]))) {
		TH_LOG("%s: bitmap %#llx after EBUSY", what, (unsigned long long)s.bits[0]);
	}
	EXPECT_EQ(longest, s.max) TH_LOG("%s: max_nc_available", what);
}

/* Reset core @c and wait for it: 0 when it worked. */
static long core_reset(int fd, unsigned int c)
{
	return reset_cores(fd, 1U << c);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM in @ms, caught by a handler installed without SA_RESTART. */
static int alarm_in_ms(long ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = {
		.it_value = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 },
	};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))
		return -1;
	return setitimer(ITIMER_REAL, &it, NULL);
}

/* ------------------------------------------------------------------ */
/* Core reservations                                                   */
/* ------------------------------------------------------------------ */

/* Mark one core, then the rest; a full device is EBUSY; unmark gives back what it names. */
static void marks_take_and_give_back(struct __test_metadata *_metadata, struct st_self *self,
				     const struct st_variant *variant)
{
	unsigned int n = self->n, all = (1U << n) - 1;
	int left;

	expect_mark(_metadata, self->w0, 0, 1, 0, n - 1, 0, n, "one core");
	expect_held(_metadata, self, 0, 1, "one core marked");
	expect_held(_metadata, self, 1, 0, "one core of device 0 marked");
	expect_mark(_metadata, self->w0, 0, n - 1, 0, n - 1, 1, n - 1, "the rest");
	expect_held(_metadata, self, 0, all, "device 0 marked");
	expect_held(_metadata, self, 1, 0, "device 0 marked");

	/* Full: EBUSY, bitmap 0 and the longest free run, copied back. */
	expect_busy(_metadata, self->w0, 0, 1, 0, n - 1, 0, "device 0 full");
	expect_busy(_metadata, self->w0, 1, 1, 0, n - 1, 0, "device 0 full");
	expect_busy(_metadata, self->w0, 0, 2, n - 1, n, 1, "one free core in the range");
	expect_busy(_metadata, self->w0, 1, n + 1, 0, 2 * n - 1, n, "device 1 free, device 0 not");
	expect_held(_metadata, self, 0, all, "after EBUSY");
	expect_held(_metadata, self, 1, 0, "after EBUSY");

	/* Unmark releases exactly the cores it names. */
	EXPECT_EQ(0, unmark64(self->w0, 1ULL | 1ULL << (n - 1)));
	left = all & ~(1 | 1 << (n - 1));
	expect_held(_metadata, self, 0, left, "cores 0 and last unmarked");
	expect_mark(_metadata, self->w0, 0, 1, 0, n - 1, 0, n <= 2 ? n : 1, "core 0 again");
	expect_held(_metadata, self, 0, left | 1, "core 0 marked again");
	EXPECT_EQ(0, unmark64(self->w0, all));
	expect_held(_metadata, self, 0, 0, "all unmarked");

	/* Bits of cores the caller has not reserved are ignored. */
	EXPECT_EQ(0, unmark64(self->w0, ~0ULL));
	EXPECT_EQ(0, unmark_all(self->w0));
	expect_mark(_metadata, self->w0, 1, n, 0, n - 1, 0, n, "the whole device, EXT0");
	expect_held(_metadata, self, 0, all, "whole device marked");
	EXPECT_EQ(0, unmark_all(self->w0));
	expect_held(_metadata, self, 0, 0, "all unmarked, EXT0");
}

/* The first run of free cores is found: no core after an occupied one is skipped. */
static void marks_search(struct __test_metadata *_metadata, struct st_self *self,
			 const struct st_variant *variant)
{
	unsigned int n = self->n, all = (1U << n) - 1;

	expect_mark(_metadata, self->w0, 0, 1, 0, 0, 0, 1, "core 0");
	/* Two cores right after the taken one (the reference skips core 1). */
	expect_mark(_metadata, self->w0, 0, 2, 0, 2 * n - 1, 1, 2 * n - 1,
		    "two cores with core 0 taken");
	if (n >= 8) {
		EXPECT_EQ(0, unmark64(self->w0, 0x6));
		expect_held(_metadata, self, 0, 1, "core 0 left");
		expect_mark(_metadata, self->w0, 0, 1, 2, 2, 2, 1, "core 2");
		/* Cores 0 and 2 taken: two cores are 3 and 4 (the reference: 4 and 5). */
		expect_mark(_metadata, self->w0, 0, 2, 0, n - 1, 3, n - 3,
			    "two cores with cores 0 and 2 taken");
		/* Free: 1 and 5..7; four do not fit, the longest run is three. */
		expect_busy(_metadata, self->w0, 0, 4, 0, n - 1, n - 5, "four cores");
		expect_busy(_metadata, self->w0, 1, 4, 0, n - 1, n - 5, "four cores");
		expect_mark(_metadata, self->w0, 0, n - 5, 0, n - 1, 5, n - 5, "the last run");
		expect_held(_metadata, self, 0, all & ~2, "all but core 1");
		expect_mark(_metadata, self->w0, 1, 1, 0, n - 1, 1, 1, "core 1");
	} else {
		/* Cores 0..2 of 4 taken: the last one is free, alone. */
		expect_busy(_metadata, self->w0, 0, 2, 0, 2 * n - 1, 1, "two of one free core");
		expect_mark(_metadata, self->w0, 0, 1, 0, 2 * n - 1, 2 * n - 1, 1, "the last core");
		expect_held(_metadata, self, 1, (1 << n) - 1, "device 1 full");
	}
	expect_held(_metadata, self, 0, all, "device 0 full");
	EXPECT_EQ(0, unmark_all(self->w0));
	expect_held(_metadata, self, 0, 0, "all unmarked");
	expect_held(_metadata, self, 1, 0, "all unmarked");
}

/* Invalid arguments: EINVAL, and nothing reserved. */
static void marks_invalid(struct __test_metadata *_metadata, struct st_self *self,
			  const struct st_variant *variant)
{
	unsigned int n = self->n, i;
	const struct {
		int fd;
		int ext;
		__u32 count, start, end;
		const char *what;
	} bad[] = {
		{ self->w0, 0, 0, 0, n - 1, "nc_count 0" },
		{ self->w0, 1, 0, 0, n - 1, "nc_count 0" },
		{ self->w0, 0, 1, 1, 0, "start after end" },
		{ self->w0, 1, 1, n, 0, "start after end" },
		{ self->w0, 0, 3, 0, 1, "more cores than the range" },
		{ self->w0, 1, n + 1, 0, n - 1, "more cores than the range" },
		{ self->w0, 0, 65, 0, 63, "65 cores of 64" },
		{ self->w0, 0, 1, 0, 64, "end past the 64-bit bitmap" },
		{ self->w0, 0, 1, 64, 64, "start and end past the 64-bit bitmap" },
		{ self->w0, 0, 1, 63, 0xffffffff, "end ~0" },
		{ self->w0, 1, 1, 0, GLOBAL_NCS, "end past the 512-bit bitmap" },
		{ self->w0, 1, 1, 511, GLOBAL_NCS, "end past the 512-bit bitmap" },
		{ self->w0, 1, 1, 0, 0xffffffff, "end ~0 (range length wraps)" },
		{ self->w0, 1, 0xffffffff, 0, 511, "nc_count ~0" },
		{ self->wfd, 1, 1, 0, GLOBAL_NCS - n, "global end 512 through /dev/neuron1" },
		{ self->wfd, 1, 1, GLOBAL_NCS - n, GLOBAL_NCS - n,
		  "global core 512 through /dev/neuron1" },
		{ self->wfd, 0, 1, 0, 64, "end past the 64-bit bitmap through /dev/neuron1" },
		{ self->wfd, 0, 0, 0, 0, "nc_count 0 through /dev/neuron1" },
	};
	struct span s;
	__u64 b[8] = { 0 };

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, mark(bad[i].fd, bad[i].ext, bad[i].count, bad[i].start,
					bad[i].end, &s)) {
			TH_LOG("%s%s", bad[i].what, bad[i].ext ? " (EXT0)" : "");
		}
	}
	expect_held(_metadata, self, 0, 0, "after the invalid marks");
	expect_held(_metadata, self, 1, 0, "after the invalid marks");

	/* Valid ranges over cores no device has: EBUSY, no free core. */
	expect_busy(_metadata, self->w0, 0, 1, 63, 63, 0, "core 63: no device");
	expect_busy(_metadata, self->w0, 0, 1, 2 * n, 63, 0, "no device past index 1");
	expect_busy(_metadata, self->w0, 1, 1, 511, 511, 0, "core 511: no device");
	expect_busy(_metadata, self->wfd, 1, 1, GLOBAL_NCS - 1 - n, GLOBAL_NCS - 1 - n, 0,
		    "global core 511 through /dev/neuron1");

	/* Nothing was reserved: all of both devices can be. */
	expect_mark(_metadata, self->w0, 1, 2 * n, 0, 2 * n - 1, 0, 2 * n, "both devices");
	EXPECT_EQ(0, unmark_all(self->w0));
	expect_held(_metadata, self, 0, 0, "unmarked");

	/* Unmark: a bit past global core 511 is EINVAL, and nothing is released. */
	expect_mark(_metadata, self->wfd, 0, 1, 0, 0, 0, 1, "core 0 of device 1");
	set_run(b, 0, 1);
	set_run(b, GLOBAL_NCS - n, 1);
	memset(&s, 0, sizeof(s));
	memcpy(s.bits, b, sizeof(b));
	EXPECT_EQ(-EINVAL, span_ioctl(self->wfd, 1, 1, &s));
	expect_held(_metadata, self, 1, 1, "after an invalid unmark");
	/* The last bit that is a core is fine. */
	memset(&s, 0, sizeof(s));
	set_run(s.bits, GLOBAL_NCS - 1 - n, 1);
	EXPECT_EQ(0, span_ioctl(self->wfd, 1, 1, &s));
	expect_held(_metadata, self, 1, 1, "after unmarking global core 511");
	EXPECT_EQ(0, unmark_run(self->wfd, 1, 0, 1));
	expect_held(_metadata, self, 1, 0, "unmarked");
}

/* Through /dev/neuron1 the numbers are relative to its first core. */
static void marks_relative(struct __test_metadata *_metadata, struct st_self *self,
			   const struct st_variant *variant)
{
	unsigned int n = self->n;

	expect_mark(_metadata, self->wfd, 0, 1, 0, n - 1, 0, n, "through /dev/neuron1");
	expect_held(_metadata, self, 0, 0, "core 0 of device 1 marked");
	expect_held(_metadata, self, 1, 1, "core 0 of device 1 marked");
	expect_busy(_metadata, self->w0, 0, 1, n, n, 0, "that core through /dev/neuron0");
	expect_mark(_metadata, self->w0, 0, 1, n, 2 * n - 1, n + 1, n - 1,
		    "device 1 through /dev/neuron0");
	expect_held(_metadata, self, 1, 3, "two cores of device 1");
	expect_busy(_metadata, self->wfd, 0, 1, n, 2 * n - 1, 0, "device 2 through /dev/neuron1");
	/* Each file unmarks in its own numbering. */
	EXPECT_EQ(0, unmark64(self->wfd, 2));
	expect_held(_metadata, self, 1, 1, "core 1 unmarked through /dev/neuron1");
	EXPECT_EQ(0, unmark64(self->w0, 1ULL << n));
	expect_held(_metadata, self, 1, 0, "core 0 unmarked through /dev/neuron0");
	expect_held(_metadata, self, 0, 0, "device 0 never marked");
	expect_mark(_metadata, self->wfd, 1, n, 0, n - 1, 0, n, "device 1, EXT0");
	EXPECT_EQ(0, unmark_run(self->wfd, 1, 0, n));
	expect_held(_metadata, self, 1, 0, "unmarked, EXT0");
}

/* The EXT0 forms, the feature bit, both lanes, cores past the first 64. */
static void marks_ext0_and_lanes(struct __test_metadata *_metadata, struct st_self *self,
				 const struct st_variant *variant)
{
	unsigned int n = self->n, all = (1U << n) - 1;
	struct neuron_ioctl_device_driver_info di;
	int fds[2] = { self->w0, self->fd }, i, fd0, wfar;
	struct span s;

	for (i = 0; i < 2; i++) {
		memset(&di, 0xa5, sizeof(di));
		ASSERT_EQ(0, xioctl(fds[i], NEURON_IOCTL_DRIVER_INFO_GET, &di));
		EXPECT_NE(0, di.feature_flags1 & NEURON_DRIVER_FEATURE_BIG_CORE_MAPS);
	}

	/* One call across two devices. */
	expect_mark(_metadata, self->w0, 1, n + 1, 0, 2 * n - 1, 0, 2 * n, "EXT0 across devices");
	expect_held(_metadata, self, 0, all, "EXT0 across devices");
	expect_held(_metadata, self, 1, 1, "EXT0 across devices");
	EXPECT_EQ(0, unmark_run(self->w0, 1, 0, n + 1));
	expect_held(_metadata, self, 0, 0, "unmarked");
	expect_held(_metadata, self, 1, 0, "unmarked");

	/* The normal lane accepts the commands too. */
	fd0 = open_node(0, O_RDWR);
	ASSERT_LE(0, fd0);
	expect_mark(_metadata, fd0, 0, 1, 0, 0, 0, 1, "normal file of /dev/neuron0");
	expect_mark(_metadata, self->fd, 1, 1, 0, 0, 0, 1, "normal file of /dev/neuron1");
	expect_held(_metadata, self, 0, 1, "marked through normal files");
	expect_held(_metadata, self, 1, 1, "marked through normal files");
	EXPECT_EQ(0, unmark64(fd0, 1));
	EXPECT_EQ(0, unmark_run(self->fd, 1, 0, 1));
	expect_held(_metadata, self, 0, 0, "unmarked through normal files");
	expect_held(_metadata, self, 1, 0, "unmarked through normal files");
	close(fd0);

	/* A device whose cores start at host-wide core 64: only EXT0 reaches it from device 0. */
	ASSERT_EQ(64, variant->far * n);
	ASSERT_EQ(0, nt_sim_add(variant->far, variant->gen));
	sim_device_ready(_metadata, variant->far, n, SETTLE_MS);
	EXPECT_EQ(-EINVAL, mark(self->w0, 0, 1, 64, 64 + n - 1, &s));
	expect_mark(_metadata, self->w0, 1, 1, 64, 64 + n - 1, 64, n, "EXT0: core 64");
	EXPECT_EQ(0, pid_dump(self->w0, 64));
	wfar = open_node(variant->far, O_WRONLY);
	ASSERT_LE(0, wfar);
	expect_mark(_metadata, wfar, 0, 1, 0, n - 1, 1, n - 1, "through the far device");
	EXPECT_EQ(0, pid_dump(self->w0, 65));
	EXPECT_EQ(-EINVAL, mark(wfar, 1, 1, 0, GLOBAL_NCS - 64, &s));
	expect_busy(_metadata, wfar, 1, 1, GLOBAL_NCS - 1 - 64, GLOBAL_NCS - 1 - 64, 0,
		    "global core 511 through the far device");
	EXPECT_EQ(0, unmark_run(self->w0, 1, 64, 2));
	EXPECT_EQ(-ENOENT, pid_dump(self->w0, 64));
	EXPECT_EQ(-ENOENT, pid_dump(self->w0, 65));
	close(wfar);
}

/* One mark over the end of device 0 and the start of device 1 (v3, v4: cores 6..9). */
static void marks_span_devices(struct __test_metadata *_metadata, struct st_self *self,
			       const struct st_variant *variant)
{
	unsigned int n = self->n, all = (1U << n) - 1;
	unsigned int lo = n >= 8 ? n - 2 : n - 1, hi = n >= 8 ? n + 1 : n;
	unsigned int cnt = hi - lo + 1, in1 = hi - n + 1;

	expect_mark(_metadata, self->w0, 0, cnt, lo, hi, lo, cnt, "across two devices");
	expect_held(_metadata, self, 0, all & ~((1U << lo) - 1), "across two devices");
	expect_held(_metadata, self, 1, (1 << in1) - 1, "across two devices");
	/* Device 1's part, through /dev/neuron1 in its numbering. */
	EXPECT_EQ(0, unmark64(self->wfd, (1ULL << in1) - 1));
	expect_held(_metadata, self, 1, 0, "device 1's part unmarked");
	expect_held(_metadata, self, 0, all & ~((1U << lo) - 1), "device 0's part left");
	EXPECT_EQ(0, unmark_run(self->w0, 0, lo, n - lo));
	expect_held(_metadata, self, 0, 0, "unmarked");
}

/* A reservation lasts until its file is released, not just any file closed. */
static void marks_close_releases(struct __test_metadata *_metadata, struct st_self *self,
				 const struct st_variant *variant)
{
	unsigned int n = self->n;
	int tmp, dup_fd, fdn;

	expect_mark(_metadata, self->w0, 0, 1, 0, 0, 0, 1, "core 0 through the fixture's file");
	tmp = open_node(0, O_WRONLY);
	ASSERT_LE(0, tmp);
	expect_mark(_metadata, tmp, 0, 1, 1, 1, 1, 1, "core 1 through another file");
	expect_held(_metadata, self, 0, 3, "two files, one core each");
	dup_fd = dup(tmp);
	ASSERT_LE(0, dup_fd);
	close(tmp);
	expect_held(_metadata, self, 0, 3, "one descriptor of two closed");
	close(dup_fd);
	/* Released with its file; the other file's mark stays (the reference drops both). */
	expect_held(_metadata, self, 0, 1, "the other file released");

	/* The same for a normal file: closing it releases what was marked through it. */
	fdn = open_node(0, O_RDWR);
	ASSERT_LE(0, fdn);
	expect_mark(_metadata, fdn, 0, 1, n, n, n, 1, "device 1's core 0 through a normal file");
	expect_held(_metadata, self, 1, 1, "marked through a normal file");
	close(fdn);
	expect_held(_metadata, self, 1, 0, "the normal file released");
	expect_held(_metadata, self, 0, 1, "the fixture's mark stays");
	EXPECT_EQ(0, unmark64(self->w0, 1));
	expect_held(_metadata, self, 0, 0, "unmarked");
}

/* A killed process's reservations go with it. */
static void marks_killed_child(struct __test_metadata *_metadata, struct st_self *self,
			       const struct st_variant *variant)
{
	unsigned int n = self->n, all = (1U << n) - 1;
	int up[2], down[2];
	pid_t child;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cw = open_node(0, O_WRONLY), cfd = open_node(D1, O_RDWR), fails = 0;
		struct span s;

		close(up[0]);
		close(down[1]);
		CHILD_CHECK(cw >= 0 && cfd >= 0);
		CHILD_CHECK(mark(cw, 0, n, 0, n - 1, &s) == 0 && s.bits[0] == all);
		CHILD_CHECK(mark(cfd, 0, 1, 0, 0, &s) == 0 && s.bits[0] == 1);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		wait_byte(down[0]);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	expect_held(_metadata, self, 0, all, "the child's marks");
	expect_held(_metadata, self, 1, 1, "the child's marks");
	expect_busy(_metadata, self->w0, 0, 1, 0, n - 1, 0, "the child's cores");
	expect_busy(_metadata, self->wfd, 0, 1, 0, 0, 0, "the child's core of device 1");
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	expect_held(_metadata, self, 0, 0, "the child killed");
	expect_held(_metadata, self, 1, 0, "the child killed");
	expect_mark(_metadata, self->w0, 0, n + 1, 0, 2 * n - 1, 0, 2 * n, "the child's cores");
	EXPECT_EQ(0, unmark_all(self->w0));
	close(up[0]);
	close(down[1]);
}

/* Another process cannot release this one's cores, whatever bits and file it uses. */
static void marks_other_process(struct __test_metadata *_metadata, struct st_self *self,
				const struct st_variant *variant)
{
	unsigned int n = self->n, all = (1U << n) - 1;
	pid_t child;

	expect_mark(_metadata, self->w0, 0, n, 0, n - 1, 0, n, "device 0");
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cw = open_node(0, O_WRONLY), fails = 0;
		struct span s;

		CHILD_CHECK(cw >= 0);
		CHILD_CHECK(unmark64(cw, ~0ULL) == 0);
		CHILD_CHECK(unmark_all(cw) == 0);
		/* The parent's file, too: the bits are still not the child's cores. */
		CHILD_CHECK(unmark64(self->w0, ~0ULL) == 0);
		CHILD_CHECK(unmark_all(self->w0) == 0);
		/* Still the parent's: not free. */
		CHILD_CHECK(mark(cw, 0, 1, 0, n - 1, &s) == -EBUSY && s.bits[0] == 0 && s.max == 0);
		CHILD_CHECK(mark(cw, 1, 1, 0, n - 1, &s) == -EBUSY && s.max == 0);
		/* A free core is the child's; its exit releases it. */
		CHILD_CHECK(mark(cw, 0, 1, 0, 2 * n - 1, &s) == 0 && s.bits[0] == 1ULL << n);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));
	expect_held(_metadata, self, 0, all, "after the child's unmarks");
	expect_held(_metadata, self, 1, 0, "the child exited");
	expect_mark(_metadata, self->wfd, 0, 1, 0, n - 1, 0, n, "the core the child had");
	EXPECT_EQ(0, unmark64(self->wfd, 1));
	EXPECT_EQ(0, unmark64(self->w0, all));
	expect_held(_metadata, self, 0, 0, "unmarked by its owner");
}

/* Reservations are of device indexes: they stay while the device goes and comes back. */
static void marks_survive_removal(struct __test_metadata *_metadata, struct st_self *self,
				  const struct st_variant *variant)
{
	unsigned int n = self->n;

	expect_mark(_metadata, self->w0, 0, 1, n, n, n, 1, "device 1's core 0");
	close(self->fd);
	close(self->wfd);
	self->fd = -1;
	self->wfd = -1;
	ASSERT_EQ(0, nt_sim_del(D1));
	expect_busy(_metadata, self->w0, 0, 1, n, 2 * n - 1, 0, "device 1 removed");
	EXPECT_EQ(-ENODEV, pid_dump(self->w0, n));
	ASSERT_EQ(0, nt_sim_add(D1, variant->gen));
	sim_device_ready(_metadata, D1, n, SETTLE_MS);
	EXPECT_EQ(0, pid_dump(self->w0, n));
	expect_busy(_metadata, self->w0, 0, 1, n, n, 0, "device 1 back: its core 0 still ours");
	expect_mark(_metadata, self->w0, 0, 1, n, 2 * n - 1, n + 1, n - 1, "device 1 back");
	EXPECT_EQ(0, unmark64(self->w0, 3ULL << n));
	expect_held(_metadata, self, 1, 0, "unmarked");
}

/*
 * NC_PID_STATE_DUMP of a core whose device is being removed: a child dumps
 * device 1's reserved core without pause through device 0's free lane
 * while device 1 goes and comes back.  Each answer is a report (0) or
 * -ENODEV, and the kernel reports nothing (the dump once named the removed
 * device's bus device after removal had let it go).
 */
static void marks_dump_races_removal(struct __test_metadata *_metadata, struct st_self *self,
				     const struct st_variant *variant)
{
	unsigned int n = self->n;
	int round, go[2];
	pid_t child;

	expect_mark(_metadata, self->w0, 0, 1, n, n, n, 1, "device 1's core 0");
	close(self->fd);
	close(self->wfd);
	self->fd = -1;
	self->wfd = -1;
	ASSERT_EQ(0, pipe(go));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		long ret, dumps = 0;
		int fails = 0;
		char c;

		close(go[1]);
		fcntl(go[0], F_SETFL, O_NONBLOCK);
		/* Until the parent closes its end. */
		while (read(go[0], &c, 1) < 0 && errno == EAGAIN) {
			ret = pid_dump(self->w0, n);
			CHILD_CHECK(ret == 0 || ret == -ENODEV);
			dumps++;
		}
		CHILD_CHECK(dumps > 0);
		_exit(child_status(fails));
	}
	close(go[0]);
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, nt_sim_del(D1));
		ASSERT_EQ(0, nt_sim_add(D1, variant->gen));
		sim_device_ready(_metadata, D1, n, SETTLE_MS);
	}
	close(go[1]);
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(0, pid_dump(self->w0, n));
	EXPECT_EQ(0, unmark64(self->w0, 1ULL << n));
	expect_held(_metadata, self, 1, 0, "unmarked");
}

/* Marks: search, arguments, numbering, both forms and lanes. */
TEST_F_TIMEOUT(st, range_marks, 300)
{
	marks_take_and_give_back(_metadata, self, variant);
	marks_search(_metadata, self, variant);
	marks_invalid(_metadata, self, variant);
	marks_relative(_metadata, self, variant);
	marks_span_devices(_metadata, self, variant);
	marks_ext0_and_lanes(_metadata, self, variant);
}

/* How long a reservation lasts, and whose it is. */
TEST_F_TIMEOUT(st, range_lifetime, 300)
{
	marks_close_releases(_metadata, self, variant);
	marks_killed_child(_metadata, self, variant);
	marks_other_process(_metadata, self, variant);
	marks_survive_removal(_metadata, self, variant);
	marks_dump_races_removal(_metadata, self, variant);
}

/* ------------------------------------------------------------------ */
/* Semaphores and events                                               */
/* ------------------------------------------------------------------ */

/* The six commands that reach a core's semaphores and events. */
static const struct named_cmd sem_cmds[] = {
	NAMED_CMD(NEURON_IOCTL_SEMAPHORE_READ),
	NAMED_CMD(NEURON_IOCTL_SEMAPHORE_WRITE),
	NAMED_CMD(NEURON_IOCTL_SEMAPHORE_INCREMENT),
	NAMED_CMD(NEURON_IOCTL_SEMAPHORE_DECREMENT),
	NAMED_CMD(NEURON_IOCTL_EVENT_GET),
	NAMED_CMD(NEURON_IOCTL_EVENT_SET),
};

/* SEMAPHORE_READ or EVENT_GET into *@v (junk until the call writes it). */
static long sem_get(int fd, unsigned int cmd, __u32 nc, __u32 idx, __u32 *v)
{
	*v = 0xa5a5a5a5;
	return sem(fd, cmd, nc, idx, v);
}

/* How many of the six, on core @nc and index @idx, do not answer @want (each said on stderr). */
static int six_wrong(int fd, __u32 nc, __u32 idx, long want, const char *what)
{
	unsigned int i;
	int bad = 0;
	long got;
	__u32 v;

	for (i = 0; i < ARRAY_SIZE(sem_cmds); i++) {
		v = 0x1234;
		got = sem(fd, sem_cmds[i].cmd, nc, idx, &v);
		if (got != want) {
			fprintf(stderr, "# %d: %s, core %u index %u, %s: %ld, want %ld\n", getpid(),
				sem_cmds[i].name, nc, idx, what, got, want);
			bad++;
		}
	}
	return bad;
}

/* All six work on core @nc, index @idx, with their arithmetic: the number of failures. */
static int sems_work(int fd, __u32 nc, __u32 idx, __u32 v)
{
	int bad = 0;
	__u32 got;

	bad += sem_do(fd, NEURON_IOCTL_SEMAPHORE_WRITE, nc, idx, v) != 0;
	bad += sem_get(fd, NEURON_IOCTL_SEMAPHORE_READ, nc, idx, &got) != 0 || got != v;
	bad += sem_do(fd, NEURON_IOCTL_SEMAPHORE_INCREMENT, nc, idx, 2) != 0;
	bad += sem_get(fd, NEURON_IOCTL_SEMAPHORE_READ, nc, idx, &got) != 0 || got != v + 2;
	bad += sem_do(fd, NEURON_IOCTL_SEMAPHORE_DECREMENT, nc, idx, 3) != 0;
	bad += sem_get(fd, NEURON_IOCTL_SEMAPHORE_READ, nc, idx, &got) != 0 || got != v - 1;
	bad += sem_do(fd, NEURON_IOCTL_EVENT_SET, nc, idx, v ^ 0xff) != 0;
	bad += sem_get(fd, NEURON_IOCTL_EVENT_GET, nc, idx, &got) != 0 || got != (v ^ 0xff);
	if (bad)
		fprintf(stderr, "# %d: core %u index %u: %d semaphore or event operations failed\n",
			getpid(), nc, idx, bad);
	return bad;
}

struct vset {
	int n;
	struct sval v[MAXV];
};

/* The list in debugfs file @name ("semaphores" or "events") of simulated device @id. */
static int sim_vals(int id, const char *name, struct vset *out)
{
	int n = sim_list(id, name, out->v, MAXV);

	out->n = n < 0 ? 0 : n;
	return n < 0 ? n : 0;
}

/*
 * Preset a semaphore or event of simulated device @id through debugfs:
 * semaphores in signed decimal, events (unsigned) in hex.
 */
static int sim_preset(int id, const char *name, __u32 nc, __u32 idx, long long v)
{
	char path[128];

	snprintf(path, sizeof(path), SIM_DBG, id, name);
	if (!strcmp(name, "events"))
		return nt_write(path, "%u %u 0x%llx\n", nc, idx, (unsigned long long)(__u32)v);
	return nt_write(path, "%u %u %lld\n", nc, idx, v);
}

/* The whole of a debugfs file, to see that nothing changed. */
static int sim_text(int id, const char *name, char *buf, size_t len)
{
	char path[128];
	size_t got = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), SIM_DBG, id, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (r = read(fd, buf + got, len - 1 - got)) > 0)
		got += r;
	close(fd);
	buf[got] = 0;
	return 0;
}

/* Set entry (@nc, @idx) of @s to @v; 0 removes it, as the simulator lists only non-zero ones. */
static void vset_put(struct vset *s, __u32 nc, __u32 idx, long long v)
{
	int i;

	for (i = 0; i < s->n; i++) {
		if (s->v[i].nc == nc && s->v[i].idx == idx) {
			if (v)
				s->v[i].v = v;
			else
				s->v[i] = s->v[--s->n];
			return;
		}
	}
	if (v && s->n < MAXV)
		s->v[s->n++] = (struct sval){ .nc = nc, .idx = idx, .v = v };
}

static int cmp_sval(const void *a, const void *b)
{
	const struct sval *x = a, *y = b;

	if (x->nc != y->nc)
		return x->nc < y->nc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The debugfs file lists exactly @want (in any order). */
static void expect_vals(struct __test_metadata *_metadata, int id, const char *name,
			const struct vset *want, const char *what)
{
	struct vset got, w = *want;
	int i, same;

	ASSERT_EQ(0, sim_vals(id, name, &got)) TH_LOG("%s of neuron_sim%d", name, id);
	qsort(got.v, got.n, sizeof(got.v[0]), cmp_sval);
	qsort(w.v, w.n, sizeof(w.v[0]), cmp_sval);
	same = got.n == w.n;
	for (i = 0; same && i < w.n; i++)
		same = got.v[i].nc == w.v[i].nc && got.v[i].idx == w.v[i].idx &&
		       got.v[i].v == w.v[i].v;
	EXPECT_TRUE(same) {
		TH_LOG("%s: %s of neuron_sim%d: %d entries, want %d", what, name, id, got.n, w.n);
		for (i = 0; i < got.n || i < w.n; i++) {
			if (i < got.n)
				TH_LOG("  got  %u %u %lld", got.v[i].nc, got.v[i].idx, got.v[i].v);
			if (i < w.n)
				TH_LOG("  want %u %u %lld", w.v[i].nc, w.v[i].idx, w.v[i].v);
		}
	}
}

/* WRITE and READ on every core, EVENT_SET and EVENT_GET; the device sees the same values. */
static void sems_values(struct __test_metadata *_metadata, struct st_self *self,
			const struct st_variant *variant)
{
	static const __u32 idxs[] = { 0, 1, 128, 255 };
	unsigned int n = self->n, c, k;
	struct vset sems, evs, none = { 0 };
	__u32 vals[8][ARRAY_SIZE(idxs)], v;

	ASSERT_GE(8, n);
	ASSERT_EQ(0, sim_vals(D1, "semaphores", &sems));
	ASSERT_EQ(0, sim_vals(D1, "events", &evs));
	expect_vals(_metadata, D1, "semaphores", &none, "fresh device");
	expect_vals(_metadata, D1, "events", &none, "fresh device");

	for (c = 0; c < n; c++) {
		for (k = 0; k < ARRAY_SIZE(idxs); k++) {
			vals[c][k] = (__u32)rnd() | 1;
			EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_WRITE, c, idxs[k],
					    vals[c][k]));
			vset_put(&sems, c, idxs[k], (__s32)vals[c][k]);
		}
	}
	for (c = 0; c < n; c++) {
		for (k = 0; k < ARRAY_SIZE(idxs); k++) {
			v = 0;
			EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_SEMAPHORE_READ, c, idxs[k],
					     &v));
			EXPECT_EQ(vals[c][k], v) TH_LOG("core %u index %u", c, idxs[k]);
		}
	}
	expect_vals(_metadata, D1, "semaphores", &sems, "after WRITE on every core");
	expect_vals(_metadata, D1, "events", &none, "after WRITE on every core");
	expect_vals(_metadata, 0, "semaphores", &none, "the other device");

	/* Events are registers of their own. */
	for (c = 0; c < n; c++) {
		vals[c][0] = (__u32)rnd() | 0x80000001;
		EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_EVENT_SET, c, 7 * c + 3, vals[c][0]));
		vset_put(&evs, c, 7 * c + 3, vals[c][0]);
	}
	for (c = 0; c < n; c++) {
		EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_EVENT_GET, c, 7 * c + 3, &v));
		EXPECT_EQ(vals[c][0], v) TH_LOG("event %u of core %u", 7 * c + 3, c);
	}
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_EVENT_SET, n - 1, 255, 1));
	vset_put(&evs, n - 1, 255, 1);
	expect_vals(_metadata, D1, "events", &evs, "after EVENT_SET");
	expect_vals(_metadata, D1, "semaphores", &sems, "after EVENT_SET");
	expect_vals(_metadata, 0, "events", &none, "the other device");

	/* Set by the device, read by the driver. */
	ASSERT_EQ(0, sim_preset(D1, "events", n - 1, 200, 4000000000LL));
	EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_EVENT_GET, n - 1, 200, &v));
	EXPECT_EQ(4000000000U, v);
	ASSERT_EQ(0, sim_preset(D1, "semaphores", 0, 77, -12345));
	EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_SEMAPHORE_READ, 0, 77, &v));
	EXPECT_EQ((__u32)-12345, v);
	/* Zero clears. */
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_WRITE, 0, 77, 0));
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_EVENT_SET, n - 1, 200, 0));
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_WRITE, 0, 0, 0));
	vset_put(&sems, 0, 0, 0);
	expect_vals(_metadata, D1, "semaphores", &sems, "after writing zeros");
	expect_vals(_metadata, D1, "events", &evs, "after writing zeros");
}

/* INCREMENT and DECREMENT: the device adds and subtracts, signed 32-bit, wrapping. */
static void sems_arithmetic(struct __test_metadata *_metadata, struct st_self *self,
			    const struct st_variant *variant)
{
	static const struct {
		long long preset;
		unsigned int cmd;
		__u32 operand;
		__s32 result;
	} ops[] = {
		{ 100, NEURON_IOCTL_SEMAPHORE_INCREMENT, 5, 105 },
		{ 100, NEURON_IOCTL_SEMAPHORE_DECREMENT, 7, 93 },
		{ 0, NEURON_IOCTL_SEMAPHORE_DECREMENT, 1, -1 },
		{ 0x7fffffff, NEURON_IOCTL_SEMAPHORE_INCREMENT, 1, (__s32)0x80000000 },
		{ -2147483648LL, NEURON_IOCTL_SEMAPHORE_DECREMENT, 1, 0x7fffffff },
		{ -5, NEURON_IOCTL_SEMAPHORE_INCREMENT, 0xffffffff, -6 },
		{ 5, NEURON_IOCTL_SEMAPHORE_DECREMENT, 0xffffffff, 6 },
		{ -1, NEURON_IOCTL_SEMAPHORE_INCREMENT, 1, 0 },
		{ 1000, NEURON_IOCTL_SEMAPHORE_INCREMENT, 0, 1000 },
		{ 123, NEURON_IOCTL_SEMAPHORE_WRITE, 0x80000000, (__s32)0x80000000 },
	};
	unsigned int n = self->n, i, c = n - 1, idx;
	struct vset sems;
	__u32 v;

	ASSERT_EQ(0, sim_vals(D1, "semaphores", &sems));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		idx = 10 + i;
		ASSERT_EQ(0, sim_preset(D1, "semaphores", c, idx, ops[i].preset));
		vset_put(&sems, c, idx, ops[i].preset);
		EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_SEMAPHORE_READ, c, idx, &v));
		EXPECT_EQ((__u32)ops[i].preset, v) TH_LOG("preset %lld", ops[i].preset);
		EXPECT_EQ(0, sem_do(self->fd, ops[i].cmd, c, idx, ops[i].operand));
		EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_SEMAPHORE_READ, c, idx, &v));
		EXPECT_EQ((__u32)ops[i].result, v) {
			TH_LOG("%lld and operand %#x: read %#x, want %#x", ops[i].preset,
			       ops[i].operand, v, (__u32)ops[i].result);
		}
		vset_put(&sems, c, idx, ops[i].result);
	}
	expect_vals(_metadata, D1, "semaphores", &sems, "after the arithmetic");

	/* A run of operations on one semaphore, checked through the device. */
	idx = 40;
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_WRITE, 0, idx, 10));
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_INCREMENT, 0, idx, 3));
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_INCREMENT, 0, idx, 4));
	EXPECT_EQ(0, sem_do(self->fd, NEURON_IOCTL_SEMAPHORE_DECREMENT, 0, idx, 20));
	vset_put(&sems, 0, idx, -3);
	expect_vals(_metadata, D1, "semaphores", &sems, "10 + 3 + 4 - 20");
	EXPECT_EQ(0, sem_get(self->fd, NEURON_IOCTL_SEMAPHORE_READ, 0, idx, &v));
	EXPECT_EQ((__u32)-3, v);
}

/* Bad index, core, pointer or lane: the errno, and no semaphore or event changed. */
static void sems_bad_input(struct __test_metadata *_metadata, struct st_self *self,
			   const struct st_variant *variant)
{
	static const __u32 bad_idx[] = { 256, 257, 0x10000, 0x80000000, 0xffffffff };
	unsigned int n = self->n, i, k;
	const __u32 bad_nc[] = { n, n + 1, 8, 0x80000000, 0xffffffff };
	static char sems[8192], evs[8192], now[8192], other[8192];
	struct neuron_ioctl_semaphore *ro;
	void *nowhere = unmapped_address();

	ASSERT_NE(NULL, nowhere);
	ASSERT_EQ(0, sim_text(D1, "semaphores", sems, sizeof(sems)));
	ASSERT_EQ(0, sim_text(D1, "events", evs, sizeof(evs)));
	ASSERT_EQ(0, sim_text(0, "semaphores", other, sizeof(other)));

	for (k = 0; k < ARRAY_SIZE(bad_idx); k++) {
		snprintf(self->buf, sizeof(self->buf), "index %#x", bad_idx[k]);
		EXPECT_EQ(0, six_wrong(self->fd, 0, bad_idx[k], -EINVAL, self->buf));
		EXPECT_EQ(0, six_wrong(self->fd, n - 1, bad_idx[k], -EINVAL, self->buf));
	}
	for (k = 0; k < ARRAY_SIZE(bad_nc); k++) {
		if (bad_nc[k] < n)
			continue;
		snprintf(self->buf, sizeof(self->buf), "core %#x", bad_nc[k]);
		EXPECT_EQ(0, six_wrong(self->fd, bad_nc[k], 0, -EINVAL, self->buf));
	}
	/* The free-access lane: EBADF, even for a good request. */
	EXPECT_EQ(0, six_wrong(self->wfd, 0, 0, -EBADF, "free-access lane"));
	for (i = 0; i < ARRAY_SIZE(sem_cmds); i++) {
		EXPECT_EQ(-EFAULT, xioctl(self->fd, sem_cmds[i].cmd, NULL))
			TH_LOG("%s(NULL)", sem_cmds[i].name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, sem_cmds[i].cmd, nowhere))
			TH_LOG("%s(unmapped)", sem_cmds[i].name);
	}
	/* A read whose result cannot be written back. */
	ro = mmap(NULL, sysconf(_SC_PAGESIZE), RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->nc_id = 0;
	ro->semaphore_index = 1;
	ro->value = 0;
	ASSERT_EQ(0, mprotect(ro, sysconf(_SC_PAGESIZE), PROT_READ));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_SEMAPHORE_READ, ro));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_EVENT_GET, ro));
	munmap(ro, sysconf(_SC_PAGESIZE));

	ASSERT_EQ(0, sim_text(D1, "semaphores", now, sizeof(now)));
	EXPECT_STREQ(sems, now);
	ASSERT_EQ(0, sim_text(D1, "events", now, sizeof(now)));
	EXPECT_STREQ(evs, now);
	ASSERT_EQ(0, sim_text(0, "semaphores", now, sizeof(now)));
	EXPECT_STREQ(other, now);
}

/* ------------------------------------------------------------------ */
/* Holding                                                             */
/* ------------------------------------------------------------------ */

/* A reservation holds a core; another process's reservation keeps this one out. */
static void hold_by_mark(struct __test_metadata *_metadata, struct st_self *self,
			 const struct st_variant *variant)
{
	unsigned int n = self->n, c = 0, last = n - 1;
	int up[2], down[2];
	pid_t child;

	EXPECT_EQ(0, six_wrong(self->fd, c, 0, -EACCES, "core not held"));
	EXPECT_EQ(0, six_wrong(self->fd, last, 255, -EACCES, "core not held"));
	EXPECT_EQ(-ENOENT, pid_dump(self->wfd, D1 * n + c));
	expect_mark(_metadata, self->wfd, 0, 1, c, c, c, 1, "core 0");
	EXPECT_EQ(0, pid_dump(self->wfd, D1 * n + c));
	EXPECT_EQ(0, sems_work(self->fd, c, 3, 0x100));
	EXPECT_EQ(0, sems_work(self->fd, c, 255, 0x101));
	EXPECT_EQ(0, six_wrong(self->fd, last, 3, -EACCES, "a core not marked"));

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd, cw;
		struct span s;

		close(up[0]);
		close(down[1]);
		/* Not attached: the gate answers first. */
		CHILD_CHECK(six_wrong(self->fd, c, 3, -EACCES, "child not attached") == 0);
		cfd = open_node(D1, O_RDWR);
		cw = open_node(D1, O_WRONLY);
		CHILD_CHECK(cfd >= 0 && cw >= 0);
		CHILD_CHECK(six_wrong(cfd, c, 3, -EACCES, "child, the parent's core") == 0);
		CHILD_CHECK(nc_reset(cfd, 1U << c, NULL) == -EBUSY);
		CHILD_CHECK(mark(cw, 0, 1, c, c, &s) == -EBUSY && s.max == 0 && s.bits[0] == 0);
		CHILD_CHECK(mark(cw, 0, 1, last, last, &s) == 0 && s.bits[0] == 1ULL << last);
		CHILD_CHECK(sems_work(cfd, last, 5, 0x200) == 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		/* Its own core: it may reset it, and then holds it without the mark. */
		CHILD_CHECK(core_reset(cfd, last) == 0);
		CHILD_CHECK(unmark64(cw, 1ULL << last) == 0);
		CHILD_CHECK(sems_work(cfd, last, 6, 0x300) == 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	EXPECT_EQ(0, six_wrong(self->fd, last, 5, -EACCES, "the child's core"));
	EXPECT_EQ(-EBUSY, nc_reset(self->fd, 1U << last, NULL));
	EXPECT_EQ(0, pid_dump(self->wfd, D1 * n + last));
	expect_busy(_metadata, self->wfd, 0, 1, last, last, 0, "the child's core");
	ASSERT_EQ(0, signal_byte(down[1]));
	ASSERT_EQ(0, wait_byte(up[0]));
	/* Held by its reset now. */
	EXPECT_EQ(0, pid_dump(self->wfd, D1 * n + last));
	expect_busy(_metadata, self->wfd, 0, 1, last, last, 0, "the child's core, by reset");
	EXPECT_EQ(-EBUSY, nc_reset(self->fd, 1U << last, NULL));
	EXPECT_EQ(0, six_wrong(self->fd, last, 6, -EACCES, "the child's core, by reset"));
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);

	/* Gone with the child; still not this process's. */
	EXPECT_EQ(-ENOENT, pid_dump(self->wfd, D1 * n + last));
	EXPECT_EQ(0, six_wrong(self->fd, last, 6, -EACCES, "the child exited"));
	expect_mark(_metadata, self->wfd, 0, 1, last, last, last, 1, "the child's core, free");
	EXPECT_EQ(0, unmark64(self->wfd, 1ULL << last));

	EXPECT_EQ(0, unmark64(self->wfd, 1ULL << c));
	EXPECT_EQ(-ENOENT, pid_dump(self->wfd, D1 * n + c));
	EXPECT_EQ(0, six_wrong(self->fd, c, 3, -EACCES, "core 0 unmarked"));
}

/* A reset holds a core until the process detaches. */
static void hold_by_reset(struct __test_metadata *_metadata, struct st_self *self,
			  const struct st_variant *variant)
{
	unsigned int n = self->n, c = 0, last = n - 1;
	int up[2], down[2];
	pid_t child;

	ASSERT_EQ(0, core_reset(self->fd, c));
	EXPECT_EQ(0, pid_dump(self->wfd, D1 * n + c));
	EXPECT_EQ(0, sems_work(self->fd, c, 9, 0x400));
	/* Its own reset does not keep the process from reserving the core. */
	expect_mark(_metadata, self->wfd, 0, 1, c, c, c, 1, "a core this process reset");
	EXPECT_EQ(0, unmark64(self->wfd, 1ULL << c));
	EXPECT_EQ(0, sems_work(self->fd, c, 9, 0x500));
	EXPECT_EQ(0, six_wrong(self->fd, last, 9, -EACCES, "a core not reset"));

	/* Another process's reset hold: the core is not free. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);

		close(up[0]);
		close(down[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(nc_reset(cfd, 1U << c, NULL) == -EBUSY);
		CHILD_CHECK(core_reset(cfd, last) == 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	expect_busy(_metadata, self->wfd, 0, 1, last, last, 0, "a core another process reset");
	expect_mark(_metadata, self->wfd, 0, 1, 0, last, 0, n - 1, "next to it");
	EXPECT_EQ(0, unmark64(self->wfd, 1));
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);
	expect_mark(_metadata, self->wfd, 0, 1, last, last, last, 1, "its holder exited");
	EXPECT_EQ(0, unmark64(self->wfd, 1ULL << last));

	/* Detaching ends the hold. */
	close(self->fd);
	self->fd = open_node(D1, O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-ENOENT, pid_dump(self->wfd, D1 * n + c));
	EXPECT_EQ(0, six_wrong(self->fd, c, 9, -EACCES, "after detaching"));
}

/*
 * An event register of a NeuronCore's (@ts 0) or a TOP_SP's (@ts 1) block
 * on v3 and v4: core or TOP_SP @unit, event @idx.
 */
struct ev_reg {
	int ts;
	__u32 unit;
	__u32 idx;
};

/*
 * Its BAR 0 offset: core n's block at 0xd0000000 + n * 64 MiB, events at
 * +0x2700000; TOP_SPs 0-7 at 0xf0000000 and 8-15 at 0xf2800000, 4 MiB
 * each, events first.  Core n owns TOP_SPs 2n and 2n + 1.
 */
static __u64 ev_off(const struct ev_reg *r)
{
	if (!r->ts)
		return 0xd0000000ULL + r->unit * 0x4000000ULL + 0x2700000 + 4 * r->idx;
	return 0xf0000000ULL + r->unit / 8 * 0x2800000ULL + r->unit % 8 * 0x400000ULL +
	       4 * r->idx;
}

/* Its block in the simulator's "events" file: cores 0-7, then TOP_SPs from 8. */
static __u32 ev_blk(const struct ev_reg *r)
{
	return r->ts ? 8 + r->unit : r->unit;
}

/* The child's cores 1 (TOP_SPs 2, 3) and 5 (TOP_SPs 10, 11, in the second group). */
static const struct ev_reg theirs[] = {
	{ 0, 1, 11 }, { 1, 2, 12 }, { 1, 3, 12 }, { 0, 5, 11 }, { 1, 10, 13 }, { 1, 11, 13 },
};

/* Cores nobody holds (0 with TOP_SP 1, 4 with TOP_SP 9) and this process's core 2 (TOP_SP 4). */
static const struct ev_reg others[] = {
	{ 0, 0, 11 }, { 1, 1, 12 }, { 0, 2, 11 }, { 1, 4, 12 }, { 0, 4, 11 }, { 1, 9, 13 },
};

#define NREGS	ARRAY_SIZE(theirs)
static_assert(ARRAY_SIZE(others) == ARRAY_SIZE(theirs), "ev_work() takes NREGS of either");

/* BAR_READ or BAR_WRITE (@cmd) of the @n registers @r through @fd. */
static long ev_rw(int fd, unsigned int cmd, const struct ev_reg *r, unsigned int n, __u32 *vals)
{
	__u64 offs[NREGS];
	unsigned int i;

	for (i = 0; i < n && i < NREGS; i++)
		offs[i] = ev_off(&r[i]);
	return regs_rw(fd, cmd, offs, vals, n);
}

/* Write @v + i to register i of @r, then read them back: the number of failures. */
static int ev_work(int fd, const struct ev_reg *r, __u32 v)
{
	__u32 w[NREGS], got[NREGS];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < NREGS; i++) {
		w[i] = v + i;
		got[i] = 0xa5a5a5a5;
	}
	bad += ev_rw(fd, NEURON_IOCTL_BAR_WRITE, r, NREGS, w) != 0;
	bad += ev_rw(fd, NEURON_IOCTL_BAR_READ, r, NREGS, got) != 0;
	bad += memcmp(w, got, sizeof(w)) != 0;
	if (bad)
		fprintf(stderr, "# %d: BAR_WRITE and BAR_READ of %#llx...: %d failures\n",
			getpid(), (unsigned long long)ev_off(r), bad);
	return bad;
}

/* The value the simulator lists for @r (0: none), or -1. */
static long long sim_event(const struct ev_reg *r)
{
	struct vset s;
	int i;

	if (sim_vals(D1, "events", &s))
		return -1;
	for (i = 0; i < s.n; i++)
		if (s.v[i].nc == ev_blk(r) && s.v[i].idx == r->idx)
			return s.v[i].v;
	return 0;
}

/*
 * The child holds cores 1 and 5: their registers are refused, alone or
 * with others, for reading and writing, and so is NC_RESET of them; no
 * register changes, and the child's values (@v + i) stay.  The others
 * work.
 */
static void expect_theirs_refused(struct __test_metadata *_metadata, struct st_self *self,
				  __u32 v, const char *what)
{
	static char before[8192], now[8192];
	struct ev_reg mix[2] = { others[0] };
	unsigned long long off;
	unsigned int i;
	__u32 val[2];

	ASSERT_EQ(0, sim_text(D1, "events", before, sizeof(before)));
	for (i = 0; i < NREGS; i++) {
		off = ev_off(&theirs[i]);
		val[0] = 0xa5a5a5a5;
		EXPECT_EQ(-EACCES, ev_rw(self->fd, NEURON_IOCTL_BAR_READ, &theirs[i], 1, val))
			TH_LOG("%s: BAR_READ of %#llx", what, off);
		EXPECT_EQ(0xa5a5a5a5, val[0]) TH_LOG("%s: BAR_READ wrote back", what);
		val[0] = 0xbad0bad0;
		EXPECT_EQ(-EACCES, ev_rw(self->fd, NEURON_IOCTL_BAR_WRITE, &theirs[i], 1, val))
			TH_LOG("%s: BAR_WRITE of %#llx", what, off);
		/* Behind a register that may be reached, the call is refused whole. */
		mix[1] = theirs[i];
		val[0] = 0xbad1bad1;
		val[1] = 0xbad2bad2;
		EXPECT_EQ(-EACCES, ev_rw(self->fd, NEURON_IOCTL_BAR_WRITE, mix, 2, val))
			TH_LOG("%s: BAR_WRITE of core 0's register and %#llx", what, off);
		EXPECT_EQ(-EACCES, ev_rw(self->fd, NEURON_IOCTL_BAR_READ, mix, 2, val))
			TH_LOG("%s: BAR_READ of core 0's register and %#llx", what, off);
	}
	EXPECT_EQ(-EBUSY, nc_reset(self->fd, 1U << 1, NULL)) TH_LOG("%s: NC_RESET", what);
	EXPECT_EQ(-EBUSY, nc_reset(self->fd, 1U << 0 | 1U << 5, NULL)) TH_LOG("%s: NC_RESET", what);
	EXPECT_EQ(-ENOENT, pid_dump(self->wfd, D1 * self->n)) TH_LOG("%s: core 0 held", what);
	ASSERT_EQ(0, sim_text(D1, "events", now, sizeof(now)));
	EXPECT_STREQ(before, now) TH_LOG("%s: refused calls changed registers", what);
	for (i = 0; i < NREGS; i++)
		EXPECT_EQ((long long)(v + i), sim_event(&theirs[i]))
			TH_LOG("%s: %#llx", what, (unsigned long long)ev_off(&theirs[i]));
	EXPECT_EQ(0, ev_work(self->fd, others, v ^ 0xffff0000));
}

/* A core another process holds takes its registers out of reach (BAR_READ, BAR_WRITE). */
static void hold_gates_registers(struct __test_metadata *_metadata, struct st_self *self,
				 const struct st_variant *variant)
{
	const __u32 by_mark = 0x11110000, by_reset = 0x22220000, after = 0x33330000;
	unsigned int i;
	int up[2], down[2];
	pid_t child;

	/* The register map above. */
	ASSERT_TRUE(!strcmp(variant->gen, "v3") || !strcmp(variant->gen, "v4"));
	/* Nobody holds a core: all reachable. */
	EXPECT_EQ(0, ev_work(self->fd, theirs, 0x1000));
	EXPECT_EQ(0, ev_work(self->fd, others, 0x2000));
	expect_mark(_metadata, self->wfd, 0, 1, 2, 2, 2, 1, "core 2");

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd, cw;
		__u32 junk = 0;
		struct span s;

		close(up[0]);
		close(down[1]);
		cfd = open_node(D1, O_RDWR);
		cw = open_node(D1, O_WRONLY);
		CHILD_CHECK(cfd >= 0 && cw >= 0);
		CHILD_CHECK(mark(cw, 0, 1, 1, 1, &s) == 0 && s.bits[0] == 1ULL << 1);
		CHILD_CHECK(mark(cw, 0, 1, 5, 5, &s) == 0 && s.bits[0] == 1ULL << 5);
		/* Its own cores, and the free ones; not the parent's core 2. */
		CHILD_CHECK(ev_work(cfd, theirs, by_mark) == 0);
		CHILD_CHECK(ev_rw(cfd, NEURON_IOCTL_BAR_READ, &others[2], 1, &junk) == -EACCES);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		/* Held by its reset rather than its marks. */
		CHILD_CHECK(reset_cores(cfd, 1U << 1 | 1U << 5) == 0);
		CHILD_CHECK(unmark64(cw, 1ULL << 1 | 1ULL << 5) == 0);
		CHILD_CHECK(ev_work(cfd, theirs, by_reset) == 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	expect_theirs_refused(_metadata, self, by_mark, "held by marks");
	ASSERT_EQ(0, signal_byte(down[1]));
	ASSERT_EQ(0, wait_byte(up[0]));
	expect_held(_metadata, self, D1, 1 << 1 | 1 << 2 | 1 << 5, "by reset");
	expect_theirs_refused(_metadata, self, by_reset, "held by reset");
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);

	/* Nobody holds them any more: reachable again, with the child's last values. */
	for (i = 0; i < NREGS; i++) {
		__u32 v = 0;

		EXPECT_EQ(0, ev_rw(self->fd, NEURON_IOCTL_BAR_READ, &theirs[i], 1, &v));
		EXPECT_EQ(by_reset + i, v) TH_LOG("%#llx", (unsigned long long)ev_off(&theirs[i]));
	}
	EXPECT_EQ(0, ev_work(self->fd, theirs, after));
	EXPECT_EQ(0, unmark64(self->wfd, 1ULL << 2));
	expect_held(_metadata, self, D1, 0, "the end");
}

/*
 * Who may use semaphores and events and reach a core's registers;
 * NC_RESET and NC_PID_STATE_DUMP see holders.
 */
TEST_F_TIMEOUT(st, holding, 300)
{
	hold_by_mark(_metadata, self, variant);
	hold_by_reset(_metadata, self, variant);
	hold_gates_registers(_metadata, self, variant);
}

/* Semaphores and events of held cores: values, arithmetic, bad input. */
TEST_F_TIMEOUT(st, semaphores, 300)
{
	expect_mark(_metadata, self->wfd, 0, self->n, 0, self->n - 1, 0, self->n, "device 1");
	sems_values(_metadata, self, variant);
	sems_arithmetic(_metadata, self, variant);
	sems_bad_input(_metadata, self, variant);
	EXPECT_EQ(0, unmark_all(self->w0));
}

/* ------------------------------------------------------------------ */
/* Model locks                                                         */
/* ------------------------------------------------------------------ */

static const struct named_cmd crwl_cmds[] = {
	NAMED_CMD(NEURON_IOCTL_CRWL_READER_ENTER),
	NAMED_CMD(NEURON_IOCTL_CRWL_READER_EXIT),
	NAMED_CMD(NEURON_IOCTL_CRWL_WRITER_ENTER),
	NAMED_CMD(NEURON_IOCTL_CRWL_WRITER_DOWNGRADE),
};

static void new_uuid(struct neuron_uuid *u)
{
	rnd_fill(u->value, sizeof(u->value));
}

/* @cmd with the time it took, in ms, in *@ms. */
static long crwl_timed(int fd, unsigned int cmd, __u32 nc, const struct neuron_uuid *u,
		       long *ms)
{
	long t = nt_now_ms(), ret = crwl(fd, cmd, nc, u);

	*ms = nt_now_ms() - t;
	return ret;
}

/* This process's or @pid's entry of DEVICE_GET_ALL_APPS_INFO with @flags: 0, -ENOENT or -errno. */
static long app_info(int fd, __u16 flags, pid_t pid, struct neuron_app_info *out)
{
	size_t size = sizeof(struct neuron_ioctl_get_apps_info) +
		      NEURON_MAX_PROCESS_PER_DEVICE * sizeof(struct neuron_app_info);
	struct neuron_ioctl_get_apps_info *ai = malloc(size);
	unsigned int i;
	long ret;

	if (!ai)
		return -ENOMEM;
	memset(ai, 0xa5, size);
	ai->apps_info_flags = flags;
	ai->capacity = NEURON_MAX_PROCESS_PER_DEVICE;
	ret = xioctl(fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, ai);
	if (!ret) {
		ret = -ENOENT;
		for (i = 0; i < ai->size && i < NEURON_MAX_PROCESS_PER_DEVICE; i++) {
			if (ai->app_data[i].pid == pid) {
				*out = ai->app_data[i];
				ret = 0;
			}
		}
	}
	free(ai);
	return ret;
}

/* The lock fields of @a: @map and, for its cores, @u; zero elsewhere. */
static void expect_lock_info(struct __test_metadata *_metadata, const struct neuron_app_info *a,
			     unsigned int map, const struct neuron_uuid *u, const char *what)
{
	unsigned int c;

	EXPECT_EQ(map, a->nc_lock_map) TH_LOG("%s: nc_lock_map", what);
	for (c = 0; c < APP_INFO_MAX_MODELS_PER_DEVICE; c++) {
		const struct neuron_uuid *want = map & 1 << c ? &u[c] : &zero_uuid;

		EXPECT_EQ(0, memcmp(want, &a->uuid_data[c], sizeof(*want)))
			TH_LOG("%s: uuid_data[%u]", what, c);
	}
}

/* The rules of one lock, in one process. */
static void locks_rules(struct __test_metadata *_metadata, struct st_self *self,
			const struct st_variant *variant)
{
	unsigned int n = self->n, i;
	struct neuron_uuid a, b;
	pid_t child;

	new_uuid(&a);
	new_uuid(&b);
	for (i = 0; i < ARRAY_SIZE(crwl_cmds); i++) {
		EXPECT_EQ(-EBADF, crwl(self->wfd, crwl_cmds[i].cmd, 0, &a))
			TH_LOG("%s on the free-access lane", crwl_cmds[i].name);
		EXPECT_EQ(-EINVAL, crwl(self->fd, crwl_cmds[i].cmd, n, &a))
			TH_LOG("%s of core %u", crwl_cmds[i].name, n);
		EXPECT_EQ(-EINVAL, crwl(self->fd, crwl_cmds[i].cmd, ~0U, &a))
			TH_LOG("%s of core ~0", crwl_cmds[i].name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, crwl_cmds[i].cmd, NULL))
			TH_LOG("%s(NULL)", crwl_cmds[i].name);
	}
	/* A process that is not attached. */
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0;

		for (i = 0; i < ARRAY_SIZE(crwl_cmds); i++)
			CHILD_CHECK(crwl(self->fd, crwl_cmds[i].cmd, 0, &a) == -EACCES);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	EXPECT_EQ(0, crwl(self->fd, W_ENTER, 0, &a));
	EXPECT_EQ(-ENOENT, crwl(self->fd, W_DOWN, 0, &b));
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, 0, &a));
	/* Read-held now: no second downgrade. */
	EXPECT_EQ(-EINVAL, crwl(self->fd, W_DOWN, 0, &a));
	/* Only the recorded model reads. */
	EXPECT_EQ(-ENOENT, crwl(self->fd, R_ENTER, 0, &b));
	EXPECT_EQ(0, crwl(self->fd, R_ENTER, 0, &a));
	EXPECT_EQ(-ENOENT, crwl(self->fd, R_EXIT, 0, &b));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &a));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &a));
	EXPECT_EQ(-EINVAL, crwl(self->fd, R_EXIT, 0, &a));
	EXPECT_EQ(-EINVAL, crwl(self->fd, W_DOWN, 0, &a));
	/* The same process and model again: "already loaded", with the lock taken. */
	EXPECT_EQ(-EALREADY, crwl(self->fd, W_ENTER, 0, &a));
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, 0, &a));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &a));
	/* Another model: recorded anew. */
	EXPECT_EQ(0, crwl(self->fd, W_ENTER, 0, &b));
	EXPECT_EQ(-ENOENT, crwl(self->fd, W_DOWN, 0, &a));
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, 0, &b));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &b));
	/* Each core has its own lock. */
	EXPECT_EQ(0, crwl(self->fd, W_ENTER, n - 1, &a));
	EXPECT_EQ(0, crwl(self->fd, W_ENTER, 0, &a));
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, n - 1, &a));
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, 0, &a));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, n - 1, &a));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &a));
	EXPECT_EQ(-EINVAL, crwl(self->fd, R_EXIT, 0, &a));
}

/* DEVICE_GET_ALL_APPS_INFO: lock holders with APP_INFO_PID_NC_LOCK_INFO, memory with _MEM_USAGE. */
static void locks_apps_info(struct __test_metadata *_metadata, struct st_self *self,
			    const struct st_variant *variant)
{
	unsigned int n = self->n, c, nl = n < 4 ? n : 4, map = (1U << nl) - 1;
	size_t pg = sysconf(_SC_PAGESIZE);
	struct neuron_uuid u[4], far;
	struct neuron_app_info a;
	int up[2], down[2];
	__u64 hh = 0, hd = 0;
	pid_t child;

	for (c = 0; c < nl; c++) {
		new_uuid(&u[c]);
		EXPECT_EQ(0, crwl(self->fd, W_ENTER, c, &u[c]));
		/* Write-held and read-held locks alike. */
		if (c % 2)
			EXPECT_EQ(0, crwl(self->fd, W_DOWN, c, &u[c]));
	}
	new_uuid(&far);
	if (n > 5)
		EXPECT_EQ(0, crwl(self->fd, W_ENTER, 5, &far));

	/* Another attached process, holding nothing. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);

		close(up[0]);
		close(down[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));

	ASSERT_EQ(0, app_info(self->fd, APP_INFO_PID_NC_LOCK_INFO, getpid(), &a));
	expect_lock_info(_metadata, &a, map, u, "lock info");
	EXPECT_EQ(0, a.host_mem_size);
	EXPECT_EQ(0, a.device_mem_size);
	ASSERT_EQ(0, app_info(self->fd, APP_INFO_PID_NC_LOCK_INFO, child, &a));
	expect_lock_info(_metadata, &a, 0, u, "lock info of a process without locks");
	ASSERT_EQ(0, app_info(self->fd, 0, getpid(), &a));
	expect_lock_info(_metadata, &a, 0, u, "no flags");
	EXPECT_EQ(0, a.host_mem_size);
	EXPECT_EQ(0, a.device_mem_size);

	ASSERT_EQ(0, alloc_host(self->fd, pg, &hh));
	ASSERT_EQ(0, alloc_dev(self->fd, 2 * pg, 0, &hd));
	ASSERT_EQ(0, app_info(self->fd, APP_INFO_PID_MEM_USAGE, getpid(), &a));
	expect_lock_info(_metadata, &a, 0, u, "memory usage only");
	EXPECT_EQ(pg, a.host_mem_size);
	EXPECT_EQ(2 * pg, a.device_mem_size);
	ASSERT_EQ(0, app_info(self->fd, APP_INFO_PID_MEM_USAGE, child, &a));
	EXPECT_EQ(0, a.host_mem_size);
	EXPECT_EQ(0, a.device_mem_size);
	ASSERT_EQ(0, app_info(self->fd, APP_INFO_ALL, getpid(), &a));
	expect_lock_info(_metadata, &a, map, u, "everything");
	EXPECT_EQ(pg, a.host_mem_size);
	EXPECT_EQ(2 * pg, a.device_mem_size);
	ASSERT_EQ(0, app_info(self->fd, APP_INFO_PID_NC_LOCK_INFO, getpid(), &a));
	EXPECT_EQ(0, a.host_mem_size);
	EXPECT_EQ(0, a.device_mem_size);
	EXPECT_EQ(0, mem_free(self->fd, hh));
	EXPECT_EQ(0, mem_free(self->fd, hd));
	ASSERT_EQ(0, app_info(self->fd, APP_INFO_ALL, getpid(), &a));
	EXPECT_EQ(0, a.host_mem_size);
	EXPECT_EQ(0, a.device_mem_size);

	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);

	for (c = 0; c < nl; c++) {
		if (c % 2 == 0)
			EXPECT_EQ(0, crwl(self->fd, W_DOWN, c, &u[c]));
		EXPECT_EQ(0, crwl(self->fd, R_EXIT, c, &u[c]));
	}
	if (n > 5) {
		EXPECT_EQ(0, crwl(self->fd, W_DOWN, 5, &far));
		EXPECT_EQ(0, crwl(self->fd, R_EXIT, 5, &far));
	}
}

/* Another process's hold: the bounded wait, a signal, and release when the holder goes. */
static void locks_two_processes(struct __test_metadata *_metadata, struct st_self *self,
				const struct st_variant *variant)
{
	unsigned int c = self->n - 1;
	struct neuron_uuid a, u;
	int up[2], down[2];
	pid_t holder;
	long ms, ret;

	new_uuid(&a);
	new_uuid(&u);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	holder = spawn(_metadata, &self->undo);
	if (holder == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);

		close(up[0]);
		close(down[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(crwl(cfd, W_ENTER, c, &u) == 0);
		CHILD_CHECK(crwl(cfd, W_DOWN, c, &u) == 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		wait_byte(down[0]);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));

	/* Only the recorded process reads or leaves. */
	EXPECT_EQ(-ENOENT, crwl(self->fd, R_ENTER, c, &u));
	EXPECT_EQ(-ENOENT, crwl(self->fd, R_EXIT, c, &u));
	EXPECT_EQ(-ENOENT, crwl(self->fd, R_EXIT, c, &a));

	/* A writer waits for the reader, and gives up after about 2 s. */
	ret = crwl_timed(self->fd, W_ENTER, c, &a, &ms);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_LE(1500, ms);
	EXPECT_GT(10000, ms);
	TH_LOG("WRITER_ENTER gave up after %ld ms", ms);

	/* A signal ends the wait. */
	ASSERT_EQ(0, alarm_in_ms(300));
	ret = crwl_timed(self->fd, W_ENTER, c, &a, &ms);
	EXPECT_EQ(-EINTR, ret);
	EXPECT_GT(1500, ms);

	/* The holder is killed: its lock goes, and the record with it. */
	kill(holder, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, holder));
	ret = crwl_timed(self->fd, W_ENTER, c, &a, &ms);
	EXPECT_EQ(0, ret);
	EXPECT_GT(1000, ms);
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, c, &a));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, c, &a));

	close(up[0]);
	close(down[1]);

	/* A holder that detaches (closes its file, still alive) wakes the waiting writer. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	holder = spawn(_metadata, &self->undo);
	if (holder == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);

		close(up[0]);
		close(down[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(crwl(cfd, W_ENTER, c, &u) == 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		usleep(400000);
		close(cfd);
		wait_byte(down[0]);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	ret = crwl_timed(self->fd, W_ENTER, c, &u, &ms);
	EXPECT_EQ(0, ret);
	EXPECT_GT(1900, ms);
	TH_LOG("WRITER_ENTER woke after %ld ms", ms);
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, holder));
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, c, &u));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, c, &u));
	close(up[0]);
	close(down[1]);
}

TEST_F_TIMEOUT(st, model_locks, 300)
{
	locks_rules(_metadata, self, variant);
	locks_apps_info(_metadata, self, variant);
	locks_two_processes(_metadata, self, variant);
}

/* ------------------------------------------------------------------ */
/* Core initialisation                                                 */
/* ------------------------------------------------------------------ */

/* A request that returns at once with @want and, when it succeeds, @want_state. */
static void expect_cinit(struct __test_metadata *_metadata, int fd, __u32 nc, __u32 state,
			 long want, __u32 want_state, const char *what)
{
	long t = nt_now_ms(), ret;
	__u32 ns;

	ret = cinit(fd, nc, state, &ns);
	t = nt_now_ms() - t;
	EXPECT_EQ(want, ret) TH_LOG("%s: core %u, state %u", what, nc, state);
	if (!ret && !want)
		EXPECT_EQ(want_state, ns) TH_LOG("%s: core %u, state %u", what, nc, state);
	EXPECT_GT(1000, t) TH_LOG("%s: core %u, state %u: not at once", what, nc, state);
}

static long started_count(int fd, __u32 nc, __u64 *count)
{
	struct neuron_ioctl_nc_model_started_count a;
	long ret;

	memset(&a, 0xa5, sizeof(a));
	a.nc_id = nc;
	ret = xioctl(fd, NEURON_IOCTL_NC_MODEL_STARTED_COUNT, &a);
	*count = a.started_count;
	return ret;
}

/* One byte from a child: 'k' when its checks passed. */
static char child_verdict(int fd)
{
	char c = 0;

	return read(fd, &c, 1) == 1 ? c : 0;
}

/* The handshake in one process, and a second process's requests; bad requests. */
static void cinit_rules(struct __test_metadata *_metadata, struct st_self *self,
			const struct st_variant *variant)
{
	static const __u32 bad_state[] = { 0, 3, 4, 0xffffffff };
	unsigned int n = self->n, c, i;
	__u64 count;
	pid_t child;
	__u32 ns;

	for (c = 0; c < n; c++) {
		EXPECT_EQ(0, started_count(self->fd, c, &count));
		EXPECT_EQ(0, count);
	}
	EXPECT_EQ(-EINVAL, started_count(self->fd, n, &count));
	EXPECT_EQ(-EINVAL, started_count(self->fd, ~0U, &count));
	EXPECT_EQ(-EBADF, started_count(self->wfd, 0, &count));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_NC_MODEL_STARTED_COUNT, NULL));
	EXPECT_EQ(-EINVAL, cinit(self->fd, n, CI_STARTED, &ns));
	EXPECT_EQ(-EINVAL, cinit(self->fd, ~0U, CI_STARTED, &ns));
	EXPECT_EQ(-EBADF, cinit(self->wfd, 0, CI_STARTED, &ns));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_CINIT_SET_STATE, NULL));
	for (i = 0; i < ARRAY_SIZE(bad_state); i++)
		EXPECT_EQ(-EINVAL, cinit(self->fd, 0, bad_state[i], &ns))
			TH_LOG("state %u", bad_state[i]);

	/* A fresh core is INVALID: COMPLETED changes nothing, STARTED makes an initialiser. */
	expect_cinit(_metadata, self->fd, 0, CI_COMPLETED, 0, CI_INVALID, "fresh core");
	expect_cinit(_metadata, self->fd, 0, CI_STARTED, 0, CI_STARTED, "fresh core");
	expect_cinit(_metadata, self->fd, 0, CI_STARTED, 0, CI_STARTED, "again, initialiser");
	for (i = 0; i < ARRAY_SIZE(bad_state); i++)
		EXPECT_EQ(-EINVAL, cinit(self->fd, 0, bad_state[i], &ns))
			TH_LOG("state %u while STARTED", bad_state[i]);

	/* Another process may not complete it; nor may one that is not attached. */
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd;

		CHILD_CHECK(cinit(self->fd, 0, CI_COMPLETED, &ns) == -EACCES);
		cfd = open_node(D1, O_RDWR);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(cinit(cfd, 0, CI_COMPLETED, &ns) == -EPERM);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	expect_cinit(_metadata, self->fd, 0, CI_COMPLETED, 0, CI_COMPLETED, "by the initialiser");
	expect_cinit(_metadata, self->fd, 0, CI_COMPLETED, 0, CI_COMPLETED, "again");
	expect_cinit(_metadata, self->fd, 0, CI_STARTED, 0, CI_COMPLETED, "once completed");

	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);
		long t = nt_now_ms();

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(cinit(cfd, 0, CI_STARTED, &ns) == 0 && ns == CI_COMPLETED);
		CHILD_CHECK(cinit(cfd, 0, CI_COMPLETED, &ns) == 0 && ns == CI_COMPLETED);
		CHILD_CHECK(nt_now_ms() - t < 1000);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(0, started_count(self->fd, 0, &count));
	EXPECT_EQ(0, count);
}

/* A second process asking STARTED waits for the initialiser to complete. */
static void cinit_waiter(struct __test_metadata *_metadata, struct st_self *self,
			 const struct st_variant *variant)
{
	unsigned int c = self->n - 1;
	int up[2], st;
	pid_t child;

	expect_cinit(_metadata, self->fd, c, CI_STARTED, 0, CI_STARTED, "fresh core");
	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);
		__u32 ns;

		close(up[0]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(cinit(cfd, c, CI_STARTED, &ns) == 0 && ns == CI_COMPLETED);
		_exit(child_status(fails));
	}
	close(up[1]);
	ASSERT_EQ(0, wait_byte(up[0]));
	usleep(400000);
	EXPECT_EQ(0, waitpid(child, &st, WNOHANG)) TH_LOG("the second process did not wait");
	expect_cinit(_metadata, self->fd, c, CI_COMPLETED, 0, CI_COMPLETED, "waiter present");
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
}

/* The initialiser killed: a waiter takes over, or with none the core is INVALID again. */
static void cinit_initialiser_dies(struct __test_metadata *_metadata, struct st_self *self,
				   const struct st_variant *variant)
{
	unsigned int c = 0, last = self->n - 1;
	int up[2], down[2];
	__u64 count;
	pid_t child;
	long t, ret;
	__u32 ns;

	/* A reset makes a COMPLETED core INVALID. */
	ASSERT_EQ(0, core_reset(self->fd, c));
	expect_cinit(_metadata, self->fd, c, CI_COMPLETED, 0, CI_INVALID, "after a reset");

	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(D1, O_RDWR);
		char v;

		close(up[0]);
		v = cfd >= 0 && cinit(cfd, c, CI_STARTED, &ns) == 0 && ns == CI_STARTED ? 'k' : 'f';
		if (write(up[1], &v, 1) != 1)
			_exit(1);
		usleep(500000);
		raise(SIGKILL);
		_exit(2);
	}
	close(up[1]);
	ASSERT_EQ('k', child_verdict(up[0]));
	close(up[0]);
	t = nt_now_ms();
	ret = cinit(self->fd, c, CI_STARTED, &ns);
	t = nt_now_ms() - t;
	EXPECT_EQ(0, ret);
	EXPECT_EQ(CI_STARTED, ns) TH_LOG("the waiter takes over");
	EXPECT_GT(4000, t);
	TH_LOG("took over after %ld ms", t);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	expect_cinit(_metadata, self->fd, c, CI_COMPLETED, 0, CI_COMPLETED, "the new initialiser");

	/* No waiter: the core goes back to INVALID. */
	ASSERT_EQ(0, core_reset(self->fd, last));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(D1, O_RDWR);
		char v;

		close(up[0]);
		close(down[1]);
		v = cfd >= 0 && cinit(cfd, last, CI_STARTED, &ns) == 0 && ns == CI_STARTED ?
		    'k' : 'f';
		if (write(up[1], &v, 1) != 1)
			_exit(1);
		wait_byte(down[0]);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ('k', child_verdict(up[0]));
	/* Waiting for it can be interrupted; completing it is not this process's job. */
	ASSERT_EQ(0, alarm_in_ms(300));
	t = nt_now_ms();
	ret = cinit(self->fd, last, CI_STARTED, &ns);
	t = nt_now_ms() - t;
	EXPECT_EQ(-EINTR, ret);
	EXPECT_GT(1500, t);
	EXPECT_EQ(-EPERM, cinit(self->fd, last, CI_COMPLETED, &ns));
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	expect_cinit(_metadata, self->fd, last, CI_COMPLETED, 0, CI_INVALID, "initialiser gone");
	expect_cinit(_metadata, self->fd, last, CI_STARTED, 0, CI_STARTED, "initialiser gone");
	expect_cinit(_metadata, self->fd, last, CI_COMPLETED, 0, CI_COMPLETED, "initialiser gone");

	/* A reset by the initialiser itself, once completed. */
	ASSERT_EQ(0, core_reset(self->fd, last));
	expect_cinit(_metadata, self->fd, last, CI_STARTED, 0, CI_STARTED, "after a reset");
	expect_cinit(_metadata, self->fd, last, CI_COMPLETED, 0, CI_COMPLETED, "after a reset");
	EXPECT_EQ(0, started_count(self->fd, last, &count));
	EXPECT_EQ(0, count);
	close(up[0]);
	close(down[1]);
}

TEST_F_TIMEOUT(st, core_init, 300)
{
	cinit_rules(_metadata, self, variant);
	cinit_waiter(_metadata, self, variant);
	cinit_initialiser_dies(_metadata, self, variant);
}

/* ------------------------------------------------------------------ */
/* Pods                                                                */
/* ------------------------------------------------------------------ */

/* The pod commands through @fd: a standard platform's answers. */
static void pods_answers(struct __test_metadata *_metadata, int fd, const char *lane)
{
	static const __u32 bad_ctrl[] = { 4, 5, 0x80000000, 0xffffffff };
	static const __u32 bad_mode[] = {
		NEURON_ULTRASERVER_MODE_X4, NEURON_ULTRASERVER_MODE_X2H,
		NEURON_ULTRASERVER_MODE_X2V, 5, 0xffffffff,
	};
	struct neuron_ioctl_pod_info pi, want_pi;
	struct neuron_ioctl_pod_status ps, want_ps;
	struct neuron_ioctl_pod_status_v2 ps2, want_ps2;
	struct neuron_ioctl_pod_ctrl pc;
	struct neuron_ioctl_pod_ctrl_v2 pc2;
	__u32 ctrl, i;

	static_assert(sizeof(pi) == 260, "POD_INFO");
	static_assert(sizeof(ps) == 268, "POD_STATUS");
	static_assert(sizeof(ps2) == 276, "POD_STATUS_V2");
	static_assert(sizeof(pc) == 16, "POD_CTRL");
	static_assert(sizeof(pc2) == 20, "POD_CTRL_V2");

	memset(&pi, 0xa5, sizeof(pi));
	pi.sz = sizeof(pi);
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_INFO, &pi)) TH_LOG("POD_INFO, %s", lane);
	memset(&want_pi, 0, sizeof(want_pi));
	want_pi.sz = sizeof(pi);
	want_pi.pod_type = NEURON_POD_TYPE_NONE;
	EXPECT_EQ(0, memcmp(&want_pi, &pi, sizeof(pi))) TH_LOG("POD_INFO, %s", lane);

	memset(&ps, 0xa5, sizeof(ps));
	ps.sz = sizeof(ps);
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_STATUS, &ps)) TH_LOG("POD_STATUS, %s", lane);
	memset(&want_ps, 0, sizeof(want_ps));
	want_ps.sz = sizeof(ps);
	want_ps.state = NEURON_POD_E_STATE_SINGLE_NODE;
	want_ps.pod_type = NEURON_POD_TYPE_NONE;
	want_ps.node_id = -1;
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, ps.state);
	EXPECT_EQ(-1, ps.node_id);
	EXPECT_EQ(0, ps.pod_type);
	EXPECT_EQ(0, ps.pod_sz);
	EXPECT_EQ(0, memcmp(&want_ps, &ps, sizeof(ps))) TH_LOG("POD_STATUS bytes, %s", lane);

	memset(&ps2, 0xa5, sizeof(ps2));
	ps2.v1.sz = sizeof(ps2);
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_STATUS_V2, &ps2))
		TH_LOG("POD_STATUS_V2, %s", lane);
	memset(&want_ps2, 0, sizeof(want_ps2));
	memcpy(&want_ps2.v1, &want_ps, sizeof(want_ps));
	want_ps2.v1.sz = sizeof(ps2);
	want_ps2.mode = NEURON_ULTRASERVER_MODE_UNSET;
	want_ps2.modes_supported = 0;
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, ps2.v1.state);
	EXPECT_EQ(-1, ps2.v1.node_id);
	EXPECT_EQ(0, ps2.mode);
	EXPECT_EQ(0, ps2.modes_supported);
	EXPECT_EQ(0, memcmp(&want_ps2, &ps2, sizeof(ps2))) TH_LOG("POD_STATUS_V2 bytes, %s", lane);

	/* Requests: the three that succeed, and SET_MODE (POD_CTRL: always UNSET). */
	for (ctrl = NEURON_NPE_POD_CTRL_REQ_POD; ctrl <= NEURON_NPE_POD_CTRL_SET_MODE; ctrl++) {
		memset(&pc, 0xa5, sizeof(pc));
		pc.sz = sizeof(pc);
		pc.ctrl = ctrl;
		pc.timeout = 0;
		EXPECT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_CTRL, &pc))
			TH_LOG("POD_CTRL %u, %s", ctrl, lane);
		if (ctrl != NEURON_NPE_POD_CTRL_SET_MODE)
			EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, pc.state)
				TH_LOG("POD_CTRL %u, %s", ctrl, lane);
		memset(&pc2, 0xa5, sizeof(pc2));
		pc2.v1.sz = sizeof(pc2);
		pc2.v1.ctrl = ctrl;
		pc2.v1.timeout = 0;
		pc2.mode = NEURON_ULTRASERVER_MODE_UNSET;
		EXPECT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_CTRL_V2, &pc2))
			TH_LOG("POD_CTRL_V2 %u, %s", ctrl, lane);
		if (ctrl != NEURON_NPE_POD_CTRL_SET_MODE)
			EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, pc2.v1.state)
				TH_LOG("POD_CTRL_V2 %u, %s", ctrl, lane);
	}
	memset(&pc2, 0, sizeof(pc2));
	pc2.v1.sz = sizeof(pc2);
	pc2.v1.ctrl = NEURON_NPE_POD_CTRL_SET_MODE;
	pc2.mode = NEURON_ULTRASERVER_MODE_X1;
	EXPECT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_CTRL_V2, &pc2)) TH_LOG("SET_MODE X1, %s", lane);
	for (i = 0; i < ARRAY_SIZE(bad_mode); i++) {
		memset(&pc2, 0, sizeof(pc2));
		pc2.v1.sz = sizeof(pc2);
		pc2.v1.ctrl = NEURON_NPE_POD_CTRL_SET_MODE;
		pc2.mode = bad_mode[i];
		EXPECT_EQ(-EINVAL, xioctl(fd, NEURON_IOCTL_POD_CTRL_V2, &pc2))
			TH_LOG("SET_MODE %u, %s", bad_mode[i], lane);
	}
	for (i = 0; i < ARRAY_SIZE(bad_ctrl); i++) {
		memset(&pc, 0, sizeof(pc));
		pc.sz = sizeof(pc);
		pc.ctrl = bad_ctrl[i];
		EXPECT_EQ(-EINVAL, xioctl(fd, NEURON_IOCTL_POD_CTRL, &pc))
			TH_LOG("POD_CTRL %#x, %s", bad_ctrl[i], lane);
		memset(&pc2, 0, sizeof(pc2));
		pc2.v1.sz = sizeof(pc2);
		pc2.v1.ctrl = bad_ctrl[i];
		EXPECT_EQ(-EINVAL, xioctl(fd, NEURON_IOCTL_POD_CTRL_V2, &pc2))
			TH_LOG("POD_CTRL_V2 %#x, %s", bad_ctrl[i], lane);
	}
	/* The status did not change. */
	memset(&ps2, 0xa5, sizeof(ps2));
	ps2.v1.sz = sizeof(ps2);
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_STATUS_V2, &ps2));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, ps2.v1.state);
	EXPECT_EQ(-1, ps2.v1.node_id);
	EXPECT_EQ(0, ps2.modes_supported);
}

/* Each pod command with a size that is not its own. */
static void pods_bad_sizes(struct __test_metadata *_metadata, int fd, const char *lane)
{
	union {
		struct neuron_ioctl_pod_info pi;
		struct neuron_ioctl_pod_status ps;
		struct neuron_ioctl_pod_status_v2 ps2;
		struct neuron_ioctl_pod_ctrl pc;
		struct neuron_ioctl_pod_ctrl_v2 pc2;
	} u;
	static const struct {
		unsigned int cmd;
		const char *name;
		__u16 sz[5];
	} cases[] = {
		{ NEURON_IOCTL_POD_INFO, "POD_INFO", { 0, 259, 261, 268, 0xffff } },
		{ NEURON_IOCTL_POD_STATUS, "POD_STATUS", { 0, 267, 269, 276, 260 } },
		{ NEURON_IOCTL_POD_STATUS_V2, "POD_STATUS_V2", { 0, 275, 277, 268, 0xffff } },
		{ NEURON_IOCTL_POD_CTRL, "POD_CTRL", { 0, 15, 17, 20, 0xffff } },
		{ NEURON_IOCTL_POD_CTRL_V2, "POD_CTRL_V2", { 0, 19, 21, 16, 0xffff } },
	};
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (k = 0; k < ARRAY_SIZE(cases[i].sz); k++) {
			memset(&u, 0, sizeof(u));
			/* sz comes first in every form; the controls ask REQ_POD (0). */
			u.pi.sz = cases[i].sz[k];
			EXPECT_EQ(-EINVAL, xioctl(fd, cases[i].cmd, &u))
				TH_LOG("%s with sz %u, %s", cases[i].name, cases[i].sz[k], lane);
		}
		EXPECT_EQ(-EFAULT, xioctl(fd, cases[i].cmd, NULL))
			TH_LOG("%s(NULL)", cases[i].name);
	}
}

/* A whole small file, newline included. */
static int read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

TEST_F_TIMEOUT(st, pods, 300)
{
	static const struct {
		const char *name;
		const char *want;
	} attrs[] = {
		{ "node_id_2", "-1\n" },
		{ "node_id_4", "-1\n" },
		{ "server_id_2", "0000000000000000\n" },
		{ "server_id_4", "0000000000000000\n" },
		{ "ultraserver_mode", "\n" },
	};
	char path[128];
	unsigned int i;
	pid_t child;

	pods_answers(_metadata, self->fd, "normal file");
	pods_answers(_metadata, self->wfd, "free-access file");
	pods_answers(_metadata, self->w0, "free-access file of device 0");
	pods_bad_sizes(_metadata, self->fd, "normal file");
	pods_bad_sizes(_metadata, self->wfd, "free-access file");

	/* Any process may ask, attached or not. */
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		struct neuron_ioctl_pod_status_v2 ps2;
		int fails = 0;

		memset(&ps2, 0xa5, sizeof(ps2));
		ps2.v1.sz = sizeof(ps2);
		CHILD_CHECK(xioctl(self->fd, NEURON_IOCTL_POD_STATUS_V2, &ps2) == 0);
		CHILD_CHECK(ps2.v1.state == NEURON_POD_E_STATE_SINGLE_NODE && ps2.v1.node_id == -1);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), CLASS_DIR "/%s", attrs[i].name);
		ASSERT_EQ(0, read_all(path, self->buf, sizeof(self->buf))) TH_LOG("%s", path);
		EXPECT_STREQ(attrs[i].want, self->buf) TH_LOG("%s", path);
	}
}

/* ------------------------------------------------------------------ */
/* The datastore                                                       */
/* ------------------------------------------------------------------ */

/* What the parent's datastore checks carry from one step to the next. */
struct ds {
	struct mcount start;	/* device 1's counters before the first entry */
	__u64 off;		/* this process's entry */
	unsigned char *m;	/* its read-write mapping */
};

/* What this process writes in its entry; the children see it through theirs. */
static unsigned char ds_pat[DS_SIZE];

/* A whole entry mapped shared (for children: the teardown does not undo it). */
static void *ds_mmap(int fd, __u64 off, int prot)
{
	return mmap(NULL, DS_SIZE, prot, MAP_SHARED, fd, (off_t)off);
}

static int mprotect_err(void *p, size_t len, int prot)
{
	return mprotect(p, len, prot) ? -errno : 0;
}

/* Whether the @len bytes at @p are all @c. */
static int all_are(const void *p, int c, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != (unsigned char)c)
			return 0;
	return 1;
}

/* Device 1's counters are @start and @k datastore entries: 256 KiB host chunks, no handle. */
static void expect_ds(struct __test_metadata *_metadata, const struct mcount *start, int k,
		      const char *what)
{
	struct mcount want = *start;

	want.host_bytes += (long long)k * DS_SIZE;
	want.chunks += k;
	check_counts(_metadata, D1, &want, what);
}

/* The caller's own entry: the same for pid 0 and its pid, counted, zeroed, mapped read-write. */
static void ds_own(struct __test_metadata *_metadata, struct st_self *self, struct ds *d)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	unsigned char *p;
	__u64 off;

	d->start = counts_now(_metadata, D1);
	ASSERT_EQ(0, ds_acquire(self->fd, 0, &d->off));
	EXPECT_EQ(0, d->off % pg);
	expect_ds(_metadata, &d->start, 1, "first ACQUIRE");
	EXPECT_EQ(0, ds_acquire(self->fd, 0, &off));
	EXPECT_EQ(d->off, off) TH_LOG("a second ACQUIRE with pid 0");
	EXPECT_EQ(0, ds_acquire(self->fd, getpid(), &off));
	EXPECT_EQ(d->off, off) TH_LOG("ACQUIRE with the caller's pid");
	expect_ds(_metadata, &d->start, 1, "three ACQUIREs");

	d->m = map(&self->undo, self->fd, d->off, DS_SIZE, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, d->m);
	EXPECT_TRUE(all_are(d->m, 0, DS_SIZE)) TH_LOG("a new entry is not zeroed");
	rnd_fill(ds_pat, sizeof(ds_pat));
	memcpy(d->m, ds_pat, DS_SIZE);

	/* A page-aligned part maps; past the end, privately or on the free-access lane not. */
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, (off_t)(d->off + pg));
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, memcmp(p, ds_pat + pg, pg)) TH_LOG("the entry's second page");
	munmap(p, pg);
	EXPECT_EQ(-EINVAL, map_fails(self->fd, d->off, DS_SIZE + pg, PROT_READ, MAP_SHARED));
	EXPECT_EQ(-EINVAL, map_fails(self->fd, d->off + DS_SIZE, pg, PROT_READ, MAP_SHARED));
	EXPECT_EQ(-EINVAL, map_fails(self->fd, d->off, DS_SIZE, RW, MAP_PRIVATE));
	EXPECT_EQ(-EACCES, map_fails(self->wfd, d->off, DS_SIZE, PROT_READ, MAP_SHARED));
	expect_ds(_metadata, &d->start, 1, "after the mappings");
	EXPECT_EQ(0, memcmp(d->m, ds_pat, DS_SIZE));
}

/*
 * A child, attached itself, monitors this process's entry: read-only, and
 * it cannot release it.  Its own entry is another one, which this process
 * cannot map until it acquires it by pid.
 */
static void ds_monitor(struct __test_metadata *_metadata, struct st_self *self, struct ds *d)
{
	pid_t parent = getpid(), child;
	int up[2], down[2];
	unsigned char *p;
	__u64 coff, off;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		unsigned char *ro, *own;
		int fails = 0, cfd;
		__u64 o = 0;

		close(up[0]);
		close(down[1]);
		/* Not attached: the gate answers first.  The parent's mapping is not inherited. */
		CHILD_CHECK(ds_acquire(self->fd, parent, &o) == -EACCES);
		CHILD_CHECK(ds_acquire(self->fd, 0, &o) == -EACCES);
		CHILD_CHECK(ds_release(self->fd, 0) == -EACCES);
		CHILD_CHECK(msync(d->m, DS_SIZE, MS_ASYNC) == -1 && errno == ENOMEM);
		/* The parent's file does not make the parent's entry the child's. */
		CHILD_CHECK(map_fails(self->fd, d->off, DS_SIZE, RW, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(map_fails(self->fd, d->off, DS_SIZE, PROT_READ, MAP_SHARED) == -EINVAL);

		cfd = open_node(D1, O_RDWR);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(map_fails(cfd, d->off, DS_SIZE, PROT_READ, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(ds_acquire(cfd, parent, &o) == 0 && o == d->off);
		ro = ds_mmap(cfd, d->off, PROT_READ);
		CHILD_CHECK(ro != MAP_FAILED);
		if (ro != MAP_FAILED) {
			CHILD_CHECK(memcmp(ro, ds_pat, DS_SIZE) == 0);
			CHILD_CHECK(mprotect_err(ro, DS_SIZE, RW) == -EACCES);
		}
		CHILD_CHECK(map_fails(cfd, d->off, DS_SIZE, RW, MAP_SHARED) == -EACCES);
		/* Only the owner releases. */
		CHILD_CHECK(ds_release(cfd, parent) == -EPERM);
		CHILD_CHECK(ds_release(cfd, 0) == -ENOENT);
		CHILD_CHECK(ds_release(cfd, getpid()) == -ENOENT);
		/* Its own entry: another one, zeroed, read-write. */
		CHILD_CHECK(ds_acquire(cfd, 0, &o) == 0 && o != d->off);
		own = ds_mmap(cfd, o, RW);
		CHILD_CHECK(own != MAP_FAILED);
		if (own != MAP_FAILED) {
			CHILD_CHECK(all_are(own, 0, DS_SIZE));
			memset(own, 0x5a, DS_SIZE);
		}
		if (ro != MAP_FAILED)
			CHILD_CHECK(memcmp(ro, ds_pat, DS_SIZE) == 0);
		CHILD_CHECK(put_u64s(up[1], &o, 1) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, get_u64s(up[0], &coff, 1));
	EXPECT_NE(d->off, coff);
	expect_ds(_metadata, &d->start, 2, "the child's entry too");

	/* The child's entry: no mapping before this process acquires it, then read-only. */
	EXPECT_EQ(-EINVAL, map_fails(self->fd, coff, DS_SIZE, PROT_READ, MAP_SHARED));
	EXPECT_EQ(-EINVAL, map_fails(self->fd, coff, DS_SIZE, RW, MAP_SHARED));
	EXPECT_EQ(-EPERM, ds_release(self->fd, child));
	EXPECT_EQ(0, ds_acquire(self->fd, child, &off));
	EXPECT_EQ(coff, off);
	p = map(&self->undo, self->fd, coff, DS_SIZE, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_TRUE(all_are(p, 0x5a, DS_SIZE)) TH_LOG("the child's entry, as the child wrote it");
	EXPECT_EQ(-EACCES, mprotect_err(p, DS_SIZE, RW));
	EXPECT_EQ(-EACCES, map_fails(self->fd, coff, DS_SIZE, RW, MAP_SHARED));
	EXPECT_EQ(0, unmap(&self->undo, p, DS_SIZE));
	EXPECT_EQ(0, memcmp(d->m, ds_pat, DS_SIZE)) TH_LOG("this process's entry changed");
	expect_ds(_metadata, &d->start, 2, "the child's entry monitored");

	/* The child's exit releases its entry, and this process's grant with it. */
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	expect_ds(_metadata, &d->start, 1, "the child exited");
	EXPECT_EQ(-EINVAL, map_fails(self->fd, coff, DS_SIZE, PROT_READ, MAP_SHARED));
	EXPECT_EQ(0, ds_acquire(self->fd, 0, &off));
	EXPECT_EQ(d->off, off);
	close(up[0]);
	close(down[1]);
}

/* Bad pids, pointers and lanes: the errno, and nothing changes. */
static void ds_bad_input(struct __test_metadata *_metadata, struct st_self *self, struct ds *d)
{
	static const pid_t neg[] = { -1, -2, INT_MIN };
	static const struct named_cmd cmds[] = {
		NAMED_CMD(NEURON_IOCTL_ACQUIRE_NEURON_DS),
		NAMED_CMD(NEURON_IOCTL_RELEASE_NEURON_DS),
	};
	struct neuron_ioctl_neuron_ds_info *ro;
	void *nowhere = unmapped_address();
	pid_t parent = getpid(), child;
	size_t pg = sysconf(_SC_PAGESIZE);
	unsigned int i;
	int down[2];
	__u64 off;

	ASSERT_NE(NULL, nowhere);
	/* A live process without an entry, then one that does not exist. */
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		close(down[1]);
		wait_byte(down[0]);
		_exit(0);
	}
	close(down[0]);
	EXPECT_EQ(-ENOENT, ds_acquire(self->fd, child, &off)) TH_LOG("a process without entry");
	EXPECT_EQ(-EPERM, ds_release(self->fd, child)) TH_LOG("another process's pid");
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(down[1]);
	EXPECT_EQ(-ENOENT, ds_acquire(self->fd, child, &off)) TH_LOG("a reaped child");
	EXPECT_EQ(-ENOENT, ds_acquire(self->fd, INT_MAX, &off)) TH_LOG("pid INT_MAX");

	for (i = 0; i < ARRAY_SIZE(neg); i++) {
		EXPECT_EQ(-EINVAL, ds_acquire(self->fd, neg[i], &off))
			TH_LOG("ACQUIRE, pid %d", neg[i]);
		EXPECT_EQ(-EINVAL, ds_release(self->fd, neg[i])) TH_LOG("RELEASE, pid %d", neg[i]);
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, NULL))
			TH_LOG("%s(NULL)", cmds[i].name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, cmds[i].cmd, nowhere))
			TH_LOG("%s(unmapped)", cmds[i].name);
	}
	EXPECT_EQ(-EBADF, ds_acquire(self->wfd, 0, &off));
	EXPECT_EQ(-EBADF, ds_acquire(self->wfd, parent, &off));
	EXPECT_EQ(-EBADF, ds_release(self->wfd, 0));

	/* An answer that cannot be written back. */
	ro = mmap(NULL, pg, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->pid = 0;
	ASSERT_EQ(0, mprotect(ro, pg, PROT_READ));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_ACQUIRE_NEURON_DS, ro));
	munmap(ro, pg);

	/* Another user, without CAP_SYS_PTRACE, may not read this process's entry. */
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);
		__u64 o;

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(setresuid(65534, 65534, 65534) == 0);
		CHILD_CHECK(ds_acquire(cfd, parent, &o) == -EPERM);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	expect_ds(_metadata, &d->start, 1, "after the bad input");
	EXPECT_EQ(0, ds_acquire(self->fd, 0, &off));
	EXPECT_EQ(d->off, off);
	EXPECT_EQ(0, memcmp(d->m, ds_pat, DS_SIZE));
}

/* RELEASE: mappings keep their pages; the next ACQUIRE gives new, zeroed memory. */
static void ds_release_rules(struct __test_metadata *_metadata, struct st_self *self,
			     struct ds *d)
{
	unsigned char *m2;
	__u64 off;

	EXPECT_EQ(0, ds_release(self->fd, 0));
	EXPECT_EQ(0, memcmp(d->m, ds_pat, DS_SIZE)) TH_LOG("a mapping kept across RELEASE");
	expect_ds(_metadata, &d->start, 1, "released, still mapped");
	EXPECT_EQ(-EINVAL, map_fails(self->fd, d->off, DS_SIZE, PROT_READ, MAP_SHARED));
	EXPECT_EQ(-ENOENT, ds_release(self->fd, 0));
	EXPECT_EQ(-ENOENT, ds_release(self->fd, getpid()));

	/* A new entry while the old memory is still mapped: other memory, zeroed. */
	ASSERT_EQ(0, ds_acquire(self->fd, getpid(), &off));
	EXPECT_NE(d->off, off);
	expect_ds(_metadata, &d->start, 2, "a new entry, the old one still mapped");
	m2 = map(&self->undo, self->fd, off, DS_SIZE, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m2);
	EXPECT_TRUE(all_are(m2, 0, DS_SIZE)) TH_LOG("the new entry is not zeroed");
	memset(m2, 0x77, DS_SIZE);
	EXPECT_EQ(0, memcmp(d->m, ds_pat, DS_SIZE));
	EXPECT_EQ(0, unmap(&self->undo, d->m, DS_SIZE));
	d->m = NULL;
	expect_ds(_metadata, &d->start, 1, "the old mapping gone");
	EXPECT_EQ(0, ds_release(self->fd, 0));
	expect_ds(_metadata, &d->start, 1, "released, still mapped");
	EXPECT_EQ(0, unmap(&self->undo, m2, DS_SIZE));
	expect_ds(_metadata, &d->start, 0, "released and unmapped");

	/* Nothing mapped: the freed memory may come back, zeroed. */
	ASSERT_EQ(0, ds_acquire(self->fd, 0, &off));
	expect_ds(_metadata, &d->start, 1, "acquired again");
	m2 = map(&self->undo, self->fd, off, DS_SIZE, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m2);
	EXPECT_TRUE(all_are(m2, 0, DS_SIZE)) TH_LOG("the entry is not zeroed");
	EXPECT_EQ(0, unmap(&self->undo, m2, DS_SIZE));
	EXPECT_EQ(0, ds_release(self->fd, 0));
	expect_ds(_metadata, &d->start, 0, "the end");
	EXPECT_EQ(-ENOENT, ds_release(self->fd, 0));
}

/* One process's entry: acquire, mappings, monitors, bad input, release. */
TEST_F_TIMEOUT(st, datastore, 300)
{
	struct ds d;

	ds_own(_metadata, self, &d);
	ds_monitor(_metadata, self, &d);
	ds_bad_input(_metadata, self, &d);
	ds_release_rules(_metadata, self, &d);
}

/* fork() child @i of the crowd; the teardown kills what is left. */
static pid_t spawn_crowd(struct __test_metadata *_metadata, struct st_self *self, int i)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		return 0;
	}
	self->crowd[i] = pid;
	return pid;
}

static int reap_crowd(struct st_self *self, int i)
{
	pid_t pid = self->crowd[i];

	self->crowd[i] = 0;
	return reap(&self->undo, pid);
}

/*
 * One of the crowd: attach, acquire its own entry, check that it is zeroed
 * and fill it with @fill; report { 0 or -errno, offset } on @up, wait for a
 * byte on @down and exit.  A @late one first reports its open's -errno and
 * waits for a byte before it tries again.  Does not return.
 */
static void ds_crowd_child(int up, int down, int late, int fill)
{
	int fails = 0, cfd = open_node(D1, O_RDWR);
	__u64 rec[2] = { 0, 0 };
	unsigned char *p;

	if (late) {
		rec[0] = cfd < 0 ? -errno : 0;
		CHILD_CHECK(put_u64s(up, rec, 2) == 0);
		CHILD_CHECK(wait_byte(down) == 0);
		if (cfd < 0)
			cfd = open_node(D1, O_RDWR);
	}
	rec[0] = cfd < 0 ? -errno : ds_acquire(cfd, 0, &rec[1]);
	if (!rec[0]) {
		p = ds_mmap(cfd, rec[1], RW);
		CHILD_CHECK(p != MAP_FAILED);
		if (p != MAP_FAILED) {
			CHILD_CHECK(all_are(p, 0, DS_SIZE));
			memset(p, fill, DS_SIZE);
		}
	}
	CHILD_CHECK(put_u64s(up, rec, 2) == 0);
	CHILD_CHECK(wait_byte(down) == 0);
	_exit(child_status(fails));
}

/*
 * All 16 entries: this process and 15 children.  A 17th process cannot
 * attach (16 processes per device), so it never sees ENOMEM; once a holder
 * exits, it attaches and gets the entry its exit released, zeroed.
 */
static void ds_all_entries(struct __test_metadata *_metadata, struct st_self *self)
{
	struct mcount start = counts_now(_metadata, D1);
	int up[2], down[NDS][2], c, i, j;
	__u64 offs[NDS], rec[2], off;
	long long r;

	ASSERT_EQ(0, ds_acquire(self->fd, 0, &offs[0]));
	ASSERT_EQ(0, pipe(up));
	for (c = 0; c < NDS; c++) {
		ASSERT_EQ(0, pipe(down[c]));
		if (spawn_crowd(_metadata, self, c) == 0)
			ds_crowd_child(up[1], down[c][0], c == NDS - 1, 0x40 + c);
		close(down[c][0]);
		ASSERT_EQ(0, get_u64s(up[0], rec, 2));
		r = (long long)rec[0];
		if (c < NDS - 1) {
			EXPECT_EQ(0, r) TH_LOG("process %d of 16", c + 2);
			offs[c + 1] = rec[1];
		} else {
			EXPECT_EQ(-EBUSY, r) TH_LOG("the open of a 17th process");
		}
	}
	for (i = 0; i < NDS; i++)
		for (j = 0; j < i; j++)
			EXPECT_NE(offs[i], offs[j]) TH_LOG("entries %d and %d", j, i);
	expect_ds(_metadata, &start, NDS, "16 entries");
	EXPECT_EQ(0, ds_acquire(self->fd, 0, &off)) TH_LOG("its own entry, with all 16 in use");
	EXPECT_EQ(offs[0], off);
	EXPECT_EQ(0, ds_acquire(self->fd, self->crowd[7], &off));
	EXPECT_EQ(offs[8], off);
	expect_ds(_metadata, &start, NDS, "16 entries");

	/* A holder exits: its detach releases the entry; the 17th process gets one. */
	ASSERT_EQ(0, signal_byte(down[0][1]));
	EXPECT_EQ(0, reap_crowd(self, 0));
	expect_ds(_metadata, &start, NDS - 1, "a holder exited");
	ASSERT_EQ(0, signal_byte(down[NDS - 1][1]));
	ASSERT_EQ(0, get_u64s(up[0], rec, 2));
	r = (long long)rec[0];
	EXPECT_EQ(0, r) TH_LOG("the 17th process, once a holder exited");
	expect_ds(_metadata, &start, NDS, "the 17th process's entry");

	for (c = 1; c < NDS; c++) {
		ASSERT_EQ(0, signal_byte(down[c][1]));
		EXPECT_EQ(0, reap_crowd(self, c)) TH_LOG("child %d", c);
	}
	expect_ds(_metadata, &start, 1, "the children exited");
	EXPECT_EQ(0, ds_release(self->fd, 0));
	expect_ds(_metadata, &start, 0, "all released");
	for (c = 0; c < NDS; c++)
		close(down[c][1]);
	close(up[0]);
	close(up[1]);
}

/* Detaching releases the entry: a child that closes its file, then one that is killed. */
static void ds_detach_releases(struct __test_metadata *_metadata, struct st_self *self)
{
	struct mcount start = counts_now(_metadata, D1);
	int up[2], down[2];
	__u64 o1, o2, off;
	unsigned char *p;
	pid_t child;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);
		unsigned char *cm;
		__u64 o = 0;

		close(up[0]);
		close(down[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(ds_acquire(cfd, 0, &o) == 0);
		CHILD_CHECK(put_u64s(up[1], &o, 1) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		close(cfd);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		cfd = open_node(D1, O_RDWR);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(ds_acquire(cfd, 0, &o) == 0);
		cm = ds_mmap(cfd, o, RW);
		CHILD_CHECK(cm != MAP_FAILED);
		if (cm != MAP_FAILED)
			memset(cm, 0x6b, DS_SIZE);
		CHILD_CHECK(put_u64s(up[1], &o, 1) == 0);
		wait_byte(down[0]);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);

	/* Alive but detached: no entry. */
	ASSERT_EQ(0, get_u64s(up[0], &o1, 1));
	expect_ds(_metadata, &start, 1, "the child's entry");
	EXPECT_EQ(0, ds_acquire(self->fd, child, &off));
	EXPECT_EQ(o1, off);
	ASSERT_EQ(0, signal_byte(down[1]));
	ASSERT_EQ(0, wait_byte(up[0]));
	EXPECT_EQ(-ENOENT, ds_acquire(self->fd, child, &off)) TH_LOG("the child detached");
	EXPECT_EQ(-EINVAL, map_fails(self->fd, o1, DS_SIZE, PROT_READ, MAP_SHARED));
	expect_ds(_metadata, &start, 0, "the child detached");

	/* Killed: the entry goes; this process's mapping keeps the pages until it goes. */
	ASSERT_EQ(0, signal_byte(down[1]));
	ASSERT_EQ(0, get_u64s(up[0], &o2, 1));
	expect_ds(_metadata, &start, 1, "the child attached again");
	EXPECT_EQ(0, ds_acquire(self->fd, child, &off));
	EXPECT_EQ(o2, off);
	p = map(&self->undo, self->fd, o2, DS_SIZE, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_TRUE(all_are(p, 0x6b, DS_SIZE));
	kill(child, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, child));
	EXPECT_EQ(-ENOENT, ds_acquire(self->fd, child, &off)) TH_LOG("the child killed");
	EXPECT_EQ(-EINVAL, map_fails(self->fd, o2, DS_SIZE, PROT_READ, MAP_SHARED));
	EXPECT_TRUE(all_are(p, 0x6b, DS_SIZE)) TH_LOG("a mapping kept after the owner died");
	expect_ds(_metadata, &start, 1, "the owner killed, its memory still mapped");
	EXPECT_EQ(0, unmap(&self->undo, p, DS_SIZE));
	expect_ds(_metadata, &start, 0, "the owner killed");
	close(up[0]);
	close(down[1]);
}

/*
 * A monitor's grant ends with the entry: A releases and acquires again;
 * B's old mapping keeps the old pages, and B maps the new entry only
 * after acquiring it again.
 */
static void ds_grant_ends(struct __test_metadata *_metadata, struct st_self *self)
{
	struct mcount start = counts_now(_metadata, D1);
	int aup[2], adown[2], bup[2], bdown[2];
	__u64 a1, a2;
	pid_t a, b;

	ASSERT_EQ(0, pipe(aup));
	ASSERT_EQ(0, pipe(adown));
	ASSERT_EQ(0, pipe(bup));
	ASSERT_EQ(0, pipe(bdown));
	a = spawn(_metadata, &self->undo);
	if (a == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);
		unsigned char *m1 = MAP_FAILED, *m2 = MAP_FAILED;
		__u64 o = 0;

		close(aup[0]);
		close(adown[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(ds_acquire(cfd, 0, &o) == 0);
		m1 = ds_mmap(cfd, o, RW);
		CHILD_CHECK(m1 != MAP_FAILED);
		if (m1 != MAP_FAILED)
			memset(m1, 0x11, DS_SIZE);
		CHILD_CHECK(put_u64s(aup[1], &o, 1) == 0);
		CHILD_CHECK(wait_byte(adown[0]) == 0);
		CHILD_CHECK(ds_release(cfd, 0) == 0);
		CHILD_CHECK(ds_acquire(cfd, 0, &o) == 0);
		m2 = ds_mmap(cfd, o, RW);
		CHILD_CHECK(m2 != MAP_FAILED);
		if (m2 != MAP_FAILED) {
			CHILD_CHECK(all_are(m2, 0, DS_SIZE));
			memset(m2, 0x22, DS_SIZE);
		}
		CHILD_CHECK(put_u64s(aup[1], &o, 1) == 0);
		CHILD_CHECK(wait_byte(adown[0]) == 0);
		_exit(child_status(fails));
	}
	close(aup[1]);
	close(adown[0]);
	ASSERT_EQ(0, get_u64s(aup[0], &a1, 1));

	b = spawn(_metadata, &self->undo);
	if (b == 0) {
		int fails = 0, cfd = open_node(D1, O_RDWR);
		unsigned char *r1, *r2;
		__u64 o = 0, w1 = 0, w2 = 0;

		close(bup[0]);
		close(bdown[1]);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(get_u64s(bdown[0], &w1, 1) == 0);
		CHILD_CHECK(ds_acquire(cfd, a, &o) == 0 && o == w1);
		r1 = ds_mmap(cfd, w1, PROT_READ);
		CHILD_CHECK(r1 != MAP_FAILED);
		if (r1 != MAP_FAILED)
			CHILD_CHECK(all_are(r1, 0x11, DS_SIZE));
		CHILD_CHECK(signal_byte(bup[1]) == 0);
		/* A released and acquired again. */
		CHILD_CHECK(get_u64s(bdown[0], &w2, 1) == 0);
		if (r1 != MAP_FAILED)
			CHILD_CHECK(all_are(r1, 0x11, DS_SIZE));
		CHILD_CHECK(map_fails(cfd, w2, DS_SIZE, PROT_READ, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(map_fails(cfd, w1, DS_SIZE, PROT_READ, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(ds_acquire(cfd, a, &o) == 0 && o == w2);
		r2 = ds_mmap(cfd, w2, PROT_READ);
		CHILD_CHECK(r2 != MAP_FAILED);
		if (r2 != MAP_FAILED)
			CHILD_CHECK(all_are(r2, 0x22, DS_SIZE));
		CHILD_CHECK(map_fails(cfd, w2, DS_SIZE, RW, MAP_SHARED) == -EACCES);
		CHILD_CHECK(signal_byte(bup[1]) == 0);
		_exit(child_status(fails));
	}
	close(bup[1]);
	close(bdown[0]);
	ASSERT_EQ(0, put_u64s(bdown[1], &a1, 1));
	ASSERT_EQ(0, wait_byte(bup[0]));
	expect_ds(_metadata, &start, 1, "A's entry, monitored by B");

	ASSERT_EQ(0, signal_byte(adown[1]));
	ASSERT_EQ(0, get_u64s(aup[0], &a2, 1));
	EXPECT_NE(a1, a2) TH_LOG("new memory while the old is mapped");
	/* The old memory stays while A and B map it. */
	expect_ds(_metadata, &start, 2, "A's new entry, the old one mapped");
	ASSERT_EQ(0, put_u64s(bdown[1], &a2, 1));
	ASSERT_EQ(0, wait_byte(bup[0]));
	EXPECT_EQ(0, reap(&self->undo, b));
	ASSERT_EQ(0, signal_byte(adown[1]));
	EXPECT_EQ(0, reap(&self->undo, a));
	expect_ds(_metadata, &start, 0, "A and B exited");
	close(aup[0]);
	close(adown[1]);
	close(bup[0]);
	close(bdown[1]);
}

/*
 * The device goes with entries mapped: the mappings are removed (an access
 * gets SIGBUS), the old file answers ENODEV, munmap() works.  The device
 * comes back without entries.
 */
static void ds_device_removed(struct __test_metadata *_metadata, struct st_self *self,
			      const struct st_variant *variant)
{
	struct mcount start = counts_now(_metadata, D1);
	int up[2], down[2];
	unsigned char *m;
	__u64 off, o2;
	pid_t child;

	ASSERT_EQ(0, ds_acquire(self->fd, 0, &off));
	m = map(&self->undo, self->fd, off, DS_SIZE, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 0x5a, DS_SIZE);

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		struct rlimit no_core = { 0, 0 };
		int fails = 0, cfd = open_node(D1, O_RDWR);
		unsigned char *cm = MAP_FAILED;
		__u64 o = 0;

		close(up[0]);
		close(down[1]);
		setrlimit(RLIMIT_CORE, &no_core);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(ds_acquire(cfd, 0, &o) == 0);
		cm = ds_mmap(cfd, o, RW);
		CHILD_CHECK(cm != MAP_FAILED);
		if (cm != MAP_FAILED)
			memset(cm, 0x3c, DS_SIZE);
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		/* The device is gone: this read must not return. */
		if (cm != MAP_FAILED && __atomic_load_n(cm + DS_SIZE / 2, __ATOMIC_RELAXED) == 0x3c)
			fprintf(stderr, "# child %d: the mapping outlived the device\n", getpid());
		_exit(50 + child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	expect_ds(_metadata, &start, 2, "two entries mapped");

	ASSERT_EQ(0, nt_sim_del(D1));
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(128 + SIGBUS, reap(&self->undo, child)) TH_LOG("a mapping after removal");
	EXPECT_EQ(-ENODEV, ds_acquire(self->fd, 0, &o2));
	EXPECT_EQ(-ENODEV, ds_release(self->fd, 0));
	EXPECT_NE(0, map_fails(self->fd, off, DS_SIZE, PROT_READ, MAP_SHARED));
	EXPECT_EQ(0, unmap(&self->undo, m, DS_SIZE));
	close(up[0]);
	close(down[1]);

	/* Back: a new device, no entries, a fresh one zeroed. */
	close(self->fd);
	close(self->wfd);
	self->fd = -1;
	self->wfd = -1;
	ASSERT_EQ(0, nt_sim_add(D1, variant->gen));
	sim_device_ready(_metadata, D1, self->n, SETTLE_MS);
	self->fd = open_node(D1, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->wfd = open_node(D1, O_WRONLY);
	ASSERT_LE(0, self->wfd);
	expect_ds(_metadata, &start, 0, "device 1 back");
	ASSERT_EQ(0, ds_acquire(self->fd, 0, &off));
	m = map(&self->undo, self->fd, off, DS_SIZE, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_TRUE(all_are(m, 0, DS_SIZE));
	EXPECT_EQ(0, unmap(&self->undo, m, DS_SIZE));
	EXPECT_EQ(0, ds_release(self->fd, 0));
	expect_ds(_metadata, &start, 0, "device 1 back, released");
}

/* How long entries and grants last: 16 processes, detach, re-acquire, device removal. */
TEST_F_TIMEOUT(st, datastore_lifetime, 300)
{
	ds_all_entries(_metadata, self);
	ds_detach_releases(_metadata, self);
	ds_grant_ends(_metadata, self);
	ds_device_removed(_metadata, self, variant);
}

TEST_HARNESS_MAIN
