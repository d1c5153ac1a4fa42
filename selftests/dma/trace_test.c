// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's tracepoints, read through tracefs as a user would on
 * hardware (Documentation/dma.rst, "Tracepoints"): in a trace instance of
 * its own, the test enables the neuron_udma events, runs copies on a
 * simulated Trn2 and checks every field of what they record: the device,
 * one engine for a piece's submit and its end, the bytes and descriptors,
 * the time a completion took; a copy held back by the simulator's
 * dma_stall switch ends in neuron_dma_timeout with dma_timeout_ms, one
 * failed by dma_abort in neuron_dma_abort with -EIO.  Then it enables the
 * neuron_core events and checks that a new device's bring-up records a
 * start and a done, with its bus device, its index and no error.  The
 * format files must name the documented fields.
 *
 * The events are the engine's: the CPU copies of small buffers
 * (Documentation/dma.rst, "CPU copies") are turned off while a case runs.
 *
 * Skipped, with the reason, when the kernel has no tracefs or no event
 * tracing (CONFIG_TRACING, CONFIG_EVENT_TRACING).
 */
#include <stdint.h>
#include <sys/mount.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"

#define SETTLE_MS	20000
/* Simulator ids: the device the copies run on, the one brought up later. */
#define DEV		5
#define DEV2		6
#define SIM_ARGS	""
#define SIM_DEBUGFS	"/sys/kernel/debug/neuron_sim/neuron_sim%d/%s"
#define DMA_TIMEOUT	"/sys/module/neuron_udma/parameters/dma_timeout_ms"
#define INSTANCE	"neuron_trace_test"
#define MIB		(1024 * 1024)
/* Events one test reads back at most. */
#define MAX_EV		256

/* One event read back from the trace: its name and numeric fields. */
struct ev {
	char name[32];
	int dev;
	unsigned int eng;
	unsigned int descs;
	unsigned long long bytes;
	unsigned long long ns;
	unsigned int ms;
	long long err;		/* NO_ERR when the event has no err field */
	int simulated;
	char parent[32];
};

#define NO_ERR		1
/* What separates the fields of a trace line: blanks and its end. */
#define SEP		" \t\n"

FIXTURE(trace) {
	int fd;
	int index;
	char dir[128];		/* the test's trace instance */
	char timeout[32];	/* dma_timeout_ms as loaded */
	struct cpu_copy_saved cpu;	/* CPU-copy thresholds, while off */
	struct ev ev[MAX_EV];
	int nev;
};

/* The tracefs mount: mounted if need be; "" when the kernel has none. */
static const char *tracefs(void)
{
	static const char * const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	unsigned int i;

	if (!nt_exists("/sys/kernel/tracing/instances"))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (nt_exists("%s/instances", dirs[i]))
			return dirs[i];
	return "";
}

static int ev_enable(struct _test_data_trace *self, const char *sys, int on)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/%s/enable", self->dir, sys);
	return nt_write(path, "%d", on);
}

/* Empty the instance's buffer. */
static int ev_clear(struct _test_data_trace *self)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/trace", self->dir);
	return nt_write(path, "%s", "");
}

/*
 * Read the instance's buffer into @self->ev: every line of one of our
 * events, its fields by their printed names.  The number of events, or -1.
 */
static int ev_read(struct _test_data_trace *self)
{
	char path[256], line[512], *p, *f;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/trace", self->dir);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	self->nev = 0;
	while (fgets(line, sizeof(line), fp) && self->nev < MAX_EV) {
		struct ev *e = &self->ev[self->nev];

		if (line[0] == '#')
			continue;
		p = strstr(line, " neuron_");
		f = p ? strchr(p, ':') : NULL;
		if (!f)
			continue;
		memset(e, 0, sizeof(*e));
		e->dev = -100;
		e->err = NO_ERR;
		snprintf(e->name, sizeof(e->name), "%.*s", (int)(f - p - 1), p + 1);
		for (f = strtok(f + 1, SEP); f; f = strtok(NULL, SEP)) {
			if (!strncmp(f, "dev=", 4))
				e->dev = atoi(f + 4);
			else if (!strncmp(f, "eng=", 4))
				e->eng = strtoul(f + 4, NULL, 10);
			else if (!strncmp(f, "descs=", 6))
				e->descs = strtoul(f + 6, NULL, 10);
			else if (!strncmp(f, "bytes=", 6))
				e->bytes = strtoull(f + 6, NULL, 10);
			else if (!strncmp(f, "ns=", 3))
				e->ns = strtoull(f + 3, NULL, 10);
			else if (!strncmp(f, "ms=", 3))
				e->ms = strtoul(f + 3, NULL, 10);
			else if (!strncmp(f, "err=", 4))
				e->err = strtoll(f + 4, NULL, 10);
			else if (!strncmp(f, "simulated=", 10))
				e->simulated = atoi(f + 10);
			else if (!strncmp(f, "parent=", 7))
				snprintf(e->parent, sizeof(e->parent), "%s", f + 7);
		}
		self->nev++;
	}
	fclose(fp);
	return self->nev;
}

/* The events named @name, in order: how many, the first at *@first. */
static int ev_count(struct _test_data_trace *self, const char *name, struct ev **first)
{
	int i, n = 0;

	*first = NULL;
	for (i = 0; i < self->nev; i++) {
		if (strcmp(self->ev[i].name, name))
			continue;
		if (!n++)
			*first = &self->ev[i];
	}
	return n;
}

/* A field of an event, as its format file declares it. */
struct field {
	const char *event;
	const char *decl;
};

/* Whether the format file of event @sys/@f->event declares @f->decl. */
static int has_field(struct _test_data_trace *self, const char *sys, const struct field *f)
{
	char path[256], line[256], want[96];
	int found = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", self->dir, sys, f->event);
	snprintf(want, sizeof(want), "field:%s;", f->decl);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	while (!found && fgets(line, sizeof(line), fp))
		found = !!strstr(line, want);
	fclose(fp);
	return found;
}

/* Every field of @f[@n] is declared in the format file of its event of @sys. */
static void check_fields(struct __test_metadata *_metadata, struct _test_data_trace *self,
			 const char *sys, const struct field *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		EXPECT_TRUE(has_field(self, sys, &f[i]))
			TH_LOG("%s/%s: no field %s", sys, f[i].event, f[i].decl);
}

static int sim_set(int id, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), SIM_DEBUGFS, id, name);
	return nt_write(path, "%s", val);
}

FIXTURE_SETUP(trace)
{
	const char *top;

	self->fd = -1;
	self->dir[0] = 0;
	self->timeout[0] = 0;
	self->index = sim_device_up(_metadata, DEV, "v3", SIM_ARGS, SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	if (nt_read(self->timeout, sizeof(self->timeout), DMA_TIMEOUT))
		self->timeout[0] = 0;
	/* The events are the engine's: every copy goes to it. */
	memset(&self->cpu, 0, sizeof(self->cpu));
	ASSERT_EQ(0, cpu_copy_off(&self->cpu));
	top = tracefs();
	if (!*top)
		SKIP(return, "no tracefs (kernel without CONFIG_TRACING?)");
	if (!nt_exists("%s/events/neuron_udma", top))
		SKIP(return, "%s has no neuron_udma events (kernel without CONFIG_EVENT_TRACING?)",
		     top);
	snprintf(self->dir, sizeof(self->dir), "%s/instances/%s", top, INSTANCE);
	if (nt_exists("%s", self->dir))
		rmdir(self->dir);
	ASSERT_EQ(0, mkdir(self->dir, 0755)) TH_LOG("trace instance %s: %m", self->dir);
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(trace)
{
	if (self->dir[0]) {
		ev_enable(self, "neuron_udma", 0);
		ev_enable(self, "neuron_core", 0);
		EXPECT_EQ(0, rmdir(self->dir)) TH_LOG("trace instance %s: %m", self->dir);
	}
	if (nt_exists(SIM_DEBUGFS, DEV, "dma_stall")) {
		sim_set(DEV, "dma_stall", "0");
		sim_set(DEV, "dma_abort", "0");
	}
	if (self->timeout[0])
		nt_write(DMA_TIMEOUT, "%s", self->timeout);
	EXPECT_EQ(0, cpu_copy_restore(&self->cpu));
	if (self->fd >= 0)
		close(self->fd);
	sim_device_down(_metadata);
}

/*
 * Whether CLOCK_MONOTONIC steps in jiffies: under TCG the guest may drop the
 * TSC (its watchdog or its calibration fails on a busy host), and a short
 * piece then measures 0 ns.
 */
static int clock_coarse(void)
{
	char cs[64];

	if (nt_read(cs, sizeof(cs), "%s/current_clocksource",
		    "/sys/devices/system/clocksource/clocksource0"))
		return 0;
	return !!strstr(cs, "jiffies");
}

/*
 * @size bytes to the device (@to_dev) or back: one or more pieces, each a
 * submit and a complete with the same device, engine, descriptors and
 * bytes; the bytes add up to @size.
 */
static void check_copy(struct __test_metadata *_metadata, struct _test_data_trace *self,
		       __u64 h, void *buf, __u64 size, int to_dev)
{
	unsigned long long sum = 0;
	int i, subs = 0, pending = -1;
	int coarse = clock_coarse();

	if (coarse)
		TH_LOG("the clocksource is jiffies: a piece may measure 0 ns");

	ASSERT_EQ(0, ev_clear(self));
	ASSERT_EQ(0, buf_copy(self->fd, 1, h, buf, size, 0, to_dev));
	ASSERT_LT(0, ev_read(self));
	for (i = 0; i < self->nev; i++) {
		struct ev *e = &self->ev[i];

		if (!strcmp(e->name, "neuron_dma_submit")) {
			EXPECT_EQ(-1, pending) TH_LOG("submit %d before the last one ended", i);
			EXPECT_EQ(self->index, e->dev);
			/* A piece's data and its completion marker, at least. */
			EXPECT_LE(2, e->descs);
			EXPECT_LT(0, e->bytes);
			pending = i;
			subs++;
			sum += e->bytes;
		} else if (!strcmp(e->name, "neuron_dma_complete")) {
			struct ev *s;

			ASSERT_LE(0, pending) TH_LOG("complete %d without a submit", i);
			s = &self->ev[pending];
			EXPECT_EQ(s->dev, e->dev);
			EXPECT_EQ(s->eng, e->eng);
			EXPECT_EQ(s->descs, e->descs);
			EXPECT_EQ(s->bytes, e->bytes);
			/*
			 * Enabled before the submit: the time is measured,
			 * though a jiffies clock may see none of it pass.
			 */
			if (!coarse)
				EXPECT_LT(0, e->ns);
			EXPECT_GT(60ULL * 1000000000, e->ns);
			pending = -1;
		} else {
			EXPECT_STREQ("a submit or a complete", e->name);
		}
	}
	EXPECT_EQ(-1, pending) TH_LOG("the last submit did not complete");
	EXPECT_LE(1, subs);
	EXPECT_EQ(size, sum) TH_LOG("bytes of %d pieces", subs);
}

/* Copies of 64 bytes (bounce buffer) and 1 MiB (pinned pages), both ways. */
TEST_F_TIMEOUT(trace, copy, 120)
{
	static const struct field fields[] = {
		{ "neuron_dma_submit", "int dev" },
		{ "neuron_dma_submit", "unsigned int eng" },
		{ "neuron_dma_submit", "u32 descs" },
		{ "neuron_dma_submit", "u64 bytes" },
		{ "neuron_dma_complete", "u64 ns" },
		{ "neuron_dma_timeout", "unsigned int ms" },
		{ "neuron_dma_abort", "int err" },
	};
	unsigned char *buf;
	__u64 h;

	check_fields(_metadata, self, "neuron_udma", fields, ARRAY_SIZE(fields));
	buf = malloc(MIB);
	ASSERT_NE(NULL, buf);
	rnd_fill(buf, MIB);
	ASSERT_EQ(0, alloc_dev(self->fd, MIB, 0, &h));
	ASSERT_EQ(0, ev_enable(self, "neuron_udma", 1));
	check_copy(_metadata, self, h, buf, 64, 1);
	check_copy(_metadata, self, h, buf, 64, 0);
	check_copy(_metadata, self, h, buf, MIB, 1);
	check_copy(_metadata, self, h, buf, MIB, 0);

	/* Nothing is recorded once the events are off. */
	ASSERT_EQ(0, ev_enable(self, "neuron_udma", 0));
	ASSERT_EQ(0, ev_clear(self));
	ASSERT_EQ(0, buf_copy(self->fd, 1, h, buf, 64, 0, 1));
	EXPECT_EQ(0, ev_read(self));
	EXPECT_EQ(0, mem_free(self->fd, h));
	free(buf);
}

/* A stalled copy ends in neuron_dma_timeout, an aborted one in neuron_dma_abort. */
TEST_F_TIMEOUT(trace, timeout_abort, 120)
{
	unsigned char buf[4096];
	struct ev *e, *s;
	__u64 h;

	ASSERT_NE(0, self->timeout[0]);
	memset(buf, 0x5a, sizeof(buf));
	ASSERT_EQ(0, alloc_dev(self->fd, sizeof(buf), 0, &h));
	ASSERT_EQ(0, ev_enable(self, "neuron_udma", 1));

	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%d", 200));
	ASSERT_EQ(0, sim_set(DEV, "dma_stall", "1"));
	ASSERT_EQ(0, ev_clear(self));
	EXPECT_EQ(-ETIMEDOUT, buf_copy(self->fd, 1, h, buf, sizeof(buf), 0, 1));
	ASSERT_EQ(0, sim_set(DEV, "dma_stall", "0"));
	ASSERT_LT(0, ev_read(self));
	EXPECT_EQ(1, ev_count(self, "neuron_dma_submit", &s));
	EXPECT_EQ(1, ev_count(self, "neuron_dma_timeout", &e));
	EXPECT_EQ(0, ev_count(self, "neuron_dma_complete", &e));
	if (ev_count(self, "neuron_dma_timeout", &e) == 1 && s) {
		EXPECT_EQ(self->index, e->dev);
		EXPECT_EQ(s->eng, e->eng);
		EXPECT_EQ(s->descs, e->descs);
		EXPECT_EQ(sizeof(buf), e->bytes);
		EXPECT_EQ(200, e->ms);
	}
	ASSERT_EQ(0, nt_write(DMA_TIMEOUT, "%s", self->timeout));

	ASSERT_EQ(0, sim_set(DEV, "dma_abort", "1"));
	ASSERT_EQ(0, ev_clear(self));
	EXPECT_EQ(-EIO, buf_copy(self->fd, 1, h, buf, sizeof(buf), 0, 1));
	ASSERT_LT(0, ev_read(self));
	EXPECT_EQ(1, ev_count(self, "neuron_dma_submit", &s));
	EXPECT_EQ(1, ev_count(self, "neuron_dma_abort", &e));
	EXPECT_EQ(0, ev_count(self, "neuron_dma_complete", &e));
	if (ev_count(self, "neuron_dma_abort", &e) == 1 && s) {
		EXPECT_EQ(self->index, e->dev);
		EXPECT_EQ(s->eng, e->eng);
		EXPECT_EQ(sizeof(buf), e->bytes);
		EXPECT_EQ(-EIO, e->err);
	}
	/* And the next copy works, with a submit and a complete. */
	ASSERT_EQ(0, ev_clear(self));
	EXPECT_EQ(0, buf_copy(self->fd, 1, h, buf, sizeof(buf), 0, 1));
	ASSERT_LT(0, ev_read(self));
	EXPECT_EQ(1, ev_count(self, "neuron_dma_submit", &s));
	EXPECT_EQ(1, ev_count(self, "neuron_dma_complete", &e));
	EXPECT_EQ(0, mem_free(self->fd, h));
}

/* A new device's bring-up: a start, then a done with its index and no error. */
TEST_F_TIMEOUT(trace, bringup, 120)
{
	static const struct field fields[] = {
		{ "neuron_bringup_start", "char parent[32]" },
		{ "neuron_bringup_start", "bool simulated" },
		{ "neuron_bringup_done", "char parent[32]" },
		{ "neuron_bringup_done", "int dev" },
		{ "neuron_bringup_done", "int err" },
		{ "neuron_bringup_done", "u64 ns" },
	};
	char parent[32], buf[64];
	struct ev *s, *d;

	check_fields(_metadata, self, "neuron_core", fields, ARRAY_SIZE(fields));
	snprintf(parent, sizeof(parent), "neuron_sim%d", DEV2);
	ASSERT_EQ(0, ev_enable(self, "neuron_core", 1));
	ASSERT_EQ(0, ev_clear(self));
	ASSERT_EQ(0, nt_sim_add(DEV2, "v3"));
	ASSERT_STREQ("ready", nt_sim_settle(DEV2, buf, sizeof(buf), SETTLE_MS));
	ASSERT_LT(0, ev_read(self));
	ASSERT_EQ(1, ev_count(self, "neuron_bringup_start", &s));
	ASSERT_EQ(1, ev_count(self, "neuron_bringup_done", &d));
	EXPECT_LT(s - self->ev, d - self->ev) TH_LOG("done before start");
	EXPECT_STREQ(parent, s->parent);
	EXPECT_STREQ(parent, d->parent);
	EXPECT_EQ(1, s->simulated);
	EXPECT_EQ(DEV2, d->dev);
	EXPECT_EQ(0, d->err);
	EXPECT_LT(0, d->ns);
	EXPECT_EQ(0, nt_sim_del(DEV2));
}

TEST_HARNESS_MAIN
