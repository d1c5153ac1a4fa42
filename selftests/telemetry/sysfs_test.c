// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the statistics tree neuron_telemetry shows under each device
 * (Documentation/telemetry.rst, Documentation/ABI/testing/
 * sysfs-class-neuron_device), as a monitor walks it, on simulated v2, v3
 * and v4 devices:
 *
 *  - every path, mode and format of the reference's tree, and nothing
 *    more under the directories it defines;
 *  - the memory counters follow MEM_ALLOC and MEM_FREE of every allocation
 *    type exactly, per core and per device, and nothing else moves;
 *  - reset counters follow a core reset and a failed one;
 *  - releasing a datastore (RELEASE_NEURON_DS, or the owner going away)
 *    adds the counters the process wrote in it;
 *  - a write clears one field, a read changes nothing;
 *  - the ECC files follow the MiscRAM words the simulator's misc_set sets,
 *    in the encoding of the firmware API version its api_version sets
 *    (both counts in one word from API 6 on v3 and v4), the PE counters
 *    the registers its reg_set sets;
 *  - with info/notify_delay 0, poll() wakes on a counter change;
 *  - neuron_telemetry unloaded and reloaded while a chunk is allocated:
 *    the tree goes, comes back, and the counts are kept.
 *
 * The tree and what the hardware reports (ECC counts, PE counters) are
 * checked on each generation: the whole tree on v3, and on the others
 * with NEURON_STRESS=1 (by default the device's files, every core's
 * directory and the last core's tree); the rest, which the generations share, on one
 * v3 device (eight cores: both datastore layouts).  Every memory
 * counter is compared at each allocation of a few types, and at each of
 * every type in both locations with NEURON_STRESS=1 (slower).
 *
 * Each case loads neuron_core, neuron_sim and neuron_telemetry (or keeps
 * them from the case before), creates one simulated device and opens it
 * O_RDWR (this process attaches).
 */
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
#define DEV		6
#define PG		4096ULL

/* The reference's names, in its order. */
static const char * const host_cats[] = {
	"dma_buffers", "tensors", "constants", "application_memory", "driver_memory",
	"notifications", "dma_rings", "uncategorized",
};

static const char * const dev_cats[] = {
	"model_code", "tensors", "constants", "model_shared_scratchpad", "runtime_memory",
	"driver_memory", "collectives", "nonshared_scratchpad", "notifications", "dma_rings",
	"uncategorized",
};

/* Status counters and the datastore counter each adds up. */
static const struct {
	const char *name;
	unsigned int nds;
} statuses[] = {
	{ "success", 1 }, { "failure", 16 }, { "timeout", 4 }, { "exec_bad_input", 5 },
	{ "hw_error", 11 }, { "execute_completed_with_error", 2 },
	{ "execute_completed_with_num_error", 3 }, { "generic_error", 7 },
	{ "resource_error", 17 }, { "resource_nc_error", 18 }, { "execute_failed_to_queue", 6 },
	{ "invalid_error", 19 }, { "unsupported_neff_version", 20 }, { "oob_error", 30 },
	{ "hw_collectives_error", 31 }, { "hw_hbm_ue_error", 32 }, { "hw_nc_ue_error", 33 },
	{ "hw_dma_abort_error", 34 }, { "execute_sw_nq_overflow", 35 },
	{ "execute_sw_semaphore_error", 36 }, { "execute_sw_event_error", 37 },
	{ "execute_sw_psum_collision", 38 }, { "execute_sw_sequencer_fatal", 39 },
	{ "hw_repairable_hbm_ue_error", 40 },
};

static const char * const others[] = {
	"model_load_count", "reset_req_count", "reset_fail_count", "inference_count",
	"flop_count", "nc_time_in_use",
};

/* Per allocation type: host (1) or device (0), and its category's index. */
static const struct {
	int host;
	int cat;
} type_cat[NEURON_MEMALLOC_TYPE_MAX] = {
	{ 1, 7 }, { 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 1, 5 },
	{ 0, 10 }, { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 }, { 0, 5 }, { 0, 6 },
	{ 0, 7 }, { 0, 8 }, { 1, 6 }, { 0, 9 }, { 0, 3 },
};

/* Where a core's PE counters are (the reference's DHAL offsets). */
struct pe_regs {
	__u64 mm, wl, fast, idle;	/* wl 0: not counted */
	__u64 row;		/* bytes between row groups */
	__u64 col;		/* bytes between column groups */
};

FIXTURE(tel) {
	int fd;
	int index;
	char dev[96];
	long t0;
};

FIXTURE_VARIANT(tel) {
	const char *gen;
	unsigned int ncs;
	unsigned int hbms;	/* HBM channels the firmware counts errors of */
	int repair;		/* the firmware reports an HBM repair state */
	unsigned int split;	/* API version from which HBM words hold both counts; 0 never */
	const char *nc_arch;
	struct pe_regs pe;	/* the last core's PE counters */
	int health;		/* stats/hardware/health_status (health_test.c) */
};

FIXTURE_VARIANT_ADD(tel, v2) {
	.gen = "v2", .ncs = 2, .hbms = 2, .repair = 0, .split = 0, .nc_arch = "NCv2",
	.health = 0,
	.pe = { .mm = 0x30cb1200, .wl = 0, .fast = 0x30cb1108, .idle = 0x30cb1210,
		.row = 5 * 0x40, .col = 0x40 },
};

FIXTURE_VARIANT_ADD(tel, v3) {
	.gen = "v3", .ncs = 8, .hbms = 4, .repair = 1, .split = 6, .nc_arch = "NCv3",
	.health = 1,
	.pe = { .mm = 0x466c11c0, .wl = 0x466c1288, .fast = 0x466c1108, .idle = 0x466c11d0,
		.row = 9 * 0x30, .col = 0x30 },
};

FIXTURE_VARIANT_ADD(tel, v4) {
	.gen = "v4", .ncs = 8, .hbms = 4, .repair = 1, .split = 6, .nc_arch = "NCv4",
	.health = 1,
	.pe = { .mm = 0x466c11c0, .wl = 0x466c1288, .fast = 0x466c1108, .idle = 0x466c11d0,
		.row = 9 * 0x30, .col = 0x30 },
};

/*
 * The start of a case: the driver and neuron_telemetry loaded, a simulated
 * device of generation @gen with its tree, opened O_RDWR.
 */
static void tel_up(struct __test_metadata *_metadata, const char *gen, int *fd, int *index,
		   char *dev, size_t len)
{
	*fd = -1;
	*index = sim_device_up(_metadata, DEV, gen, "", SETTLE_MS);
	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry"));
	snprintf(dev, len, CLASS_DIR "/neuron%d", *index);
	ASSERT_TRUE(nt_exists("%s/stats/memory_usage/host_mem/tensors/total", dev));
	*fd = open_node(*index, O_RDWR);
	ASSERT_LE(0, *fd);
}

/* The end of a case: the global setting and the simulator's fault back, no device. */
static void tel_down(struct __test_metadata *_metadata, int fd, const char *dev, long t0)
{
	char path[160];

	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/info/notify_delay", dev);
	nt_write(path, "-1");
	snprintf(path, sizeof(path), SIM_DBG, DEV, "fault");
	nt_write(path, "none");
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - t0) / 1000.0);
}

FIXTURE_SETUP(tel)
{
	self->t0 = nt_now_ms();
	tel_up(_metadata, variant->gen, &self->fd, &self->index, self->dev, sizeof(self->dev));
}

FIXTURE_TEARDOWN(tel)
{
	tel_down(_metadata, self->fd, self->dev, self->t0);
}

/*
 * What the generations share (memory, resets, datastores, writes,
 * notifications, reload) is checked on one Trn2 device: eight cores, so
 * both datastore layouts of per-core counters.
 */
#define ONE_GEN		"v3"
#define ONE_NCS		8

FIXTURE(one) {
	int fd;
	int index;
	char dev[96];
	long t0;
};

FIXTURE_SETUP(one)
{
	self->t0 = nt_now_ms();
	tel_up(_metadata, ONE_GEN, &self->fd, &self->index, self->dev, sizeof(self->dev));
}

FIXTURE_TEARDOWN(one)
{
	tel_down(_metadata, self->fd, self->dev, self->t0);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* The whole contents of a file (at most @len - 1 bytes); its length or -errno. */
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

/* A counter file: "%llu\n", nothing else; its value, or -1. */
static long long counter_at(const char *path)
{
	char buf[64], *end;
	unsigned long long v;

	if (slurp(path, buf, sizeof(buf)) <= 1 || buf[0] < '0' || buf[0] > '9')
		return -1;
	v = strtoull(buf, &end, 10);
	if (strcmp(end, "\n"))
		return -1;
	return (long long)v;
}

/* Field @field of counter directory @rel of the device (or of core @nc when >= 0). */
static long long cnt(struct __test_metadata *_metadata, const char *dev, int nc, const char *rel,
		     const char *field)
{
	char path[256];

	if (nc >= 0)
		snprintf(path, sizeof(path), "%s/neuron_core%d/stats/%s/%s", dev, nc, rel, field);
	else
		snprintf(path, sizeof(path), "%s/stats/%s/%s", dev, rel, field);
	return counter_at(path);
}

static int write_to(const char *dev, int nc, const char *rel, const char *field, const char *s)
{
	char path[256];

	if (nc >= 0)
		snprintf(path, sizeof(path), "%s/neuron_core%d/stats/%s/%s", dev, nc, rel, field);
	else
		snprintf(path, sizeof(path), "%s/stats/%s/%s", dev, rel, field);
	return nt_write(path, "%s", s);
}

/* Every memory counter's total: device host_mem first, then per core. */
#define NC_MEM		(2 + 11)
#define SNAP_MAX	(8 + 8 * NC_MEM)

struct snap {
	long long v[SNAP_MAX];
	int n;
};

static void snap_take(struct __test_metadata *_metadata, const char *dev, unsigned int ncs,
		      struct snap *s)
{
	char rel[128];
	unsigned int i, nc;

	s->n = 0;
	for (i = 0; i < ARRAY_SIZE(host_cats); i++) {
		snprintf(rel, sizeof(rel), "memory_usage/host_mem/%s", host_cats[i]);
		s->v[s->n++] = cnt(_metadata, dev, -1, rel, "total");
	}
	for (nc = 0; nc < ncs; nc++) {
		s->v[s->n++] = cnt(_metadata, dev, nc, "memory_usage/host_mem", "total");
		s->v[s->n++] = cnt(_metadata, dev, nc, "memory_usage/device_mem", "total");
		for (i = 0; i < ARRAY_SIZE(dev_cats); i++) {
			snprintf(rel, sizeof(rel), "memory_usage/device_mem/%s", dev_cats[i]);
			s->v[s->n++] = cnt(_metadata, dev, nc, rel, "total");
		}
	}
	for (i = 0; i < (unsigned int)s->n; i++)
		ASSERT_LE(0, s->v[i]) TH_LOG("memory counter %u unreadable", i);
}

/* The snapshot index of a type's category counter and of its core's location counter. */
static int snap_cat(int host, int cat, int nc)
{
	return host ? cat : 8 + nc * NC_MEM + 2 + cat;
}

static int snap_loc(int host, int nc)
{
	return 8 + nc * NC_MEM + (host ? 0 : 1);
}

static long alloc_typed(int fd, int host, __u32 nc, __u32 type, __u64 size, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type a = {
		.size = size, .host_memory = host, .nc_id = nc, .mem_type = type,
		.mem_handle = h,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2MT, &a);
}

static int sim_misc(__u32 off, __u32 val)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "misc_set");
	return nt_write(path, "%#x %#x", off, val);
}

static long long hw(const char *dev, const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/stats/hardware/%s", dev, name);
	return counter_at(path);
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

/* @path is a regular file of mode 0644 whose contents match a counter. */
static void expect_counter_file(struct __test_metadata *_metadata, const char *path)
{
	char buf[64], *end;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(S_IFREG | 0644, st.st_mode) TH_LOG("%s: mode %o", path, st.st_mode);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(1, n) TH_LOG("%s: read %zd", path, n);
	buf[n] = 0;
	EXPECT_TRUE(buf[0] >= '0' && buf[0] <= '9') TH_LOG("%s: %s", path, buf);
	strtoull(buf, &end, 10);
	EXPECT_STREQ("\n", end) TH_LOG("%s: not a counter", path);
}

static void expect_counter_dir(struct __test_metadata *_metadata, const char *dir, int peak)
{
	char path[320];

	EXPECT_EQ(peak ? 3 : 2, entries(dir)) TH_LOG("%s", dir);
	snprintf(path, sizeof(path), "%s/total", dir);
	expect_counter_file(_metadata, path);
	snprintf(path, sizeof(path), "%s/present", dir);
	expect_counter_file(_metadata, path);
	snprintf(path, sizeof(path), "%s/peak", dir);
	if (peak)
		expect_counter_file(_metadata, path);
	else
		EXPECT_FALSE(nt_exists("%s", path)) TH_LOG("%s", path);
}

static void expect_mode(struct __test_metadata *_metadata, const char *path, mode_t mode)
{
	struct stat st;

	ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_EQ(mode, st.st_mode) TH_LOG("%s: mode %o", path, st.st_mode);
}

/* "%u.%02u" at *@p, then @sep; advances *@p. */
static int percent_at(const char **p, char sep)
{
	const char *s = *p;
	int digits = 0;

	while (*s >= '0' && *s <= '9') {
		s++;
		digits++;
	}
	if (!digits || s[0] != '.' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9' ||
	    s[3] != sep)
		return -1;
	*p = s + 4;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The tree                                                            */
/* ------------------------------------------------------------------ */

/*
 * Every path of the reference's tree, with its mode and format, and nothing
 * more.  Without @full, the cores before the last only show their
 * directories and architecture (the walk of one core's tree costs seconds
 * under TCG and KASAN).
 */
static void tree(struct __test_metadata *_metadata, const char *dev, unsigned int ncs,
		 const char *nc_arch, int health, int full)
{
	char path[320], dir[256], buf[256];
	unsigned int i, nc;
	const char *p;
	ssize_t n;

	/* info/notify_delay: -1 by default. */
	snprintf(path, sizeof(path), "%s/info/notify_delay", dev);
	expect_mode(_metadata, path, S_IFREG | 0644);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), "%s", path));
	EXPECT_STREQ("-1", buf);

	/* stats/: memory_usage, hardware, power. */
	snprintf(dir, sizeof(dir), "%s/stats", dev);
	EXPECT_EQ(3, entries(dir));
	snprintf(dir, sizeof(dir), "%s/stats/memory_usage", dev);
	EXPECT_EQ(1, entries(dir));
	snprintf(dir, sizeof(dir), "%s/stats/memory_usage/host_mem", dev);
	EXPECT_EQ((int)ARRAY_SIZE(host_cats), entries(dir));
	for (i = 0; i < ARRAY_SIZE(host_cats); i++) {
		snprintf(dir, sizeof(dir), "%s/stats/memory_usage/host_mem/%s", dev,
			 host_cats[i]);
		expect_counter_dir(_metadata, dir, 1);
	}
	snprintf(dir, sizeof(dir), "%s/stats/hardware", dev);
	/* With health_status/ where the generation has it (health_test.c checks it). */
	EXPECT_EQ(5 + health, entries(dir));
	EXPECT_EQ(health, nt_exists("%s/health_status/hw_error_event", dir));
	for (i = 0; i < 5; i++) {
		static const char * const names[] = {
			"sram_ecc_uncorrected", "mem_ecc_uncorrected",
			"mem_ecc_repairable_uncorrected", "sram_ecc_corrected",
			"mem_ecc_corrected",
		};

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		expect_counter_file(_metadata, path);
	}
	snprintf(dir, sizeof(dir), "%s/stats/power", dev);
	/* utilization and utilization_raw (health_test.c checks the latter). */
	EXPECT_EQ(2, entries(dir));
	snprintf(path, sizeof(path), "%s/utilization_raw", dir);
	expect_mode(_metadata, path, S_IFREG | 0644);
	snprintf(path, sizeof(path), "%s/utilization", dir);
	expect_mode(_metadata, path, S_IFREG | 0644);
	n = slurp(path, buf, sizeof(buf));
	ASSERT_LT(0, n);
	p = strchr(buf, ',');
	ASSERT_NE(NULL, p) TH_LOG("utilization: %s", buf);
	EXPECT_TRUE(!strncmp(buf, "POWER_STATUS_VALID,", p + 1 - buf) ||
		    !strncmp(buf, "POWER_STATUS_NO_DATA,", p + 1 - buf) ||
		    !strncmp(buf, "POWER_STATUS_INVALID,", p + 1 - buf)) TH_LOG("%s", buf);
	p++;
	ASSERT_TRUE(*p >= '0' && *p <= '9') TH_LOG("%s", buf);
	while (*p >= '0' && *p <= '9')
		p++;
	ASSERT_EQ(',', *p) TH_LOG("%s", buf);
	p++;
	EXPECT_EQ(0, percent_at(&p, ',')) TH_LOG("min: %s", buf);
	EXPECT_EQ(0, percent_at(&p, ',')) TH_LOG("max: %s", buf);
	EXPECT_EQ(0, percent_at(&p, '\n')) TH_LOG("avg: %s", buf);
	EXPECT_EQ(0, *p) TH_LOG("%s", buf);

	/* One neuron_core<k> per core, none more. */
	for (nc = 0; nc < ncs; nc++) {
		snprintf(dir, sizeof(dir), "%s/neuron_core%u", dev, nc);
		EXPECT_EQ(2, entries(dir)) TH_LOG("%s", dir);
		snprintf(path, sizeof(path), "%s/info/architecture/arch_type", dir);
		expect_mode(_metadata, path, S_IFREG | 0644);
		EXPECT_EQ(0, nt_read(buf, sizeof(buf), "%s", path));
		EXPECT_STREQ(nc_arch, buf);
		snprintf(path, sizeof(path), "%s/stats", dir);
		EXPECT_EQ(4, entries(path)) TH_LOG("%s", path);
		if (!full && nc != ncs - 1)
			continue;

		snprintf(path, sizeof(path), "%s/stats/status", dir);
		EXPECT_EQ((int)ARRAY_SIZE(statuses), entries(path));
		for (i = 0; i < ARRAY_SIZE(statuses); i++) {
			snprintf(path, sizeof(path), "%s/stats/status/%s", dir, statuses[i].name);
			expect_counter_dir(_metadata, path, 0);
		}
		snprintf(path, sizeof(path), "%s/stats/other_info", dir);
		EXPECT_EQ((int)ARRAY_SIZE(others), entries(path));
		for (i = 0; i < ARRAY_SIZE(others); i++) {
			snprintf(path, sizeof(path), "%s/stats/other_info/%s", dir, others[i]);
			expect_counter_dir(_metadata, path, 0);
		}
		snprintf(path, sizeof(path), "%s/stats/memory_usage", dir);
		EXPECT_EQ(2, entries(path));
		snprintf(path, sizeof(path), "%s/stats/memory_usage/host_mem", dir);
		expect_counter_dir(_metadata, path, 1);
		snprintf(path, sizeof(path), "%s/stats/memory_usage/device_mem", dir);
		EXPECT_EQ(3 + (int)ARRAY_SIZE(dev_cats), entries(path));
		for (i = 0; i < ARRAY_SIZE(dev_cats); i++) {
			snprintf(path, sizeof(path), "%s/stats/memory_usage/device_mem/%s", dir,
				 dev_cats[i]);
			expect_counter_dir(_metadata, path, 1);
		}
		snprintf(path, sizeof(path), "%s/stats/tensor_engine", dir);
		EXPECT_EQ(1, entries(path));
		snprintf(path, sizeof(path), "%s/stats/tensor_engine/pe_cntrs", dir);
		expect_mode(_metadata, path, S_IFREG | 0644);
		EXPECT_LT(0, slurp(path, buf, sizeof(buf)));
		EXPECT_EQ(0, strncmp(buf, "xrow_grp,mm_active,wl_active,idle\n", 34));
	}
	EXPECT_FALSE(nt_exists("%s/neuron_core%u", dev, ncs));
	/* The core's own attributes are still there. */
	EXPECT_TRUE(nt_exists("%s/info/architecture/arch_type", dev));
	EXPECT_TRUE(nt_exists("%s/core_count", dev));
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* The counter directory of a category: host (device level) or device (core level). */
static void cat_rel(char *rel, size_t len, int host, int cat)
{
	if (host)
		snprintf(rel, len, "memory_usage/host_mem/%s", host_cats[cat]);
	else
		snprintf(rel, len, "memory_usage/device_mem/%s", dev_cats[cat]);
}

/*
 * Allocate @size bytes of @type (in host memory if @host) for core @nc,
 * then free them: exactly counter @cat of the location and the core's
 * location counter move, by @size, and come back; present says the size.
 */
static void alloc_free_check(struct __test_metadata *_metadata, int fd, const char *dev,
			     unsigned int ncs, unsigned int type, int host, int cat, int nc,
			     __u64 size)
{
	int ic = snap_cat(host, cat, nc), il = snap_loc(host, nc);
	struct snap before, during, after;
	char rel[96];
	__u64 h = 0;
	int j;

	snap_take(_metadata, dev, ncs, &before);
	ASSERT_EQ(0, alloc_typed(fd, host, nc, type, size, &h))
		TH_LOG("type %u host %d", type, host);
	snap_take(_metadata, dev, ncs, &during);
	for (j = 0; j < before.n; j++)
		EXPECT_EQ(before.v[j] + (j == ic || j == il ? (long long)size : 0), during.v[j])
			TH_LOG("type %u host %d: counter %d", type, host, j);
	ASSERT_EQ(0, mem_free(fd, h));
	snap_take(_metadata, dev, ncs, &after);
	for (j = 0; j < before.n; j++)
		EXPECT_EQ(before.v[j], after.v[j])
			TH_LOG("type %u host %d: counter %d after free", type, host, j);
	cat_rel(rel, sizeof(rel), host, cat);
	EXPECT_EQ((long long)size, cnt(_metadata, dev, host ? -1 : nc, rel, "present"))
		TH_LOG("type %u", type);
}

/* As alloc_free_check(), reading only the counters that must move. */
static void alloc_free_own(struct __test_metadata *_metadata, int fd, const char *dev,
			   unsigned int type, int host, int cat, int nc, __u64 size)
{
	const char *loc = host ? "memory_usage/host_mem" : "memory_usage/device_mem";
	int cnc = host ? -1 : nc;
	long long c0, l0;
	char rel[96];
	__u64 h = 0;

	cat_rel(rel, sizeof(rel), host, cat);
	c0 = cnt(_metadata, dev, cnc, rel, "total");
	l0 = cnt(_metadata, dev, nc, loc, "total");
	ASSERT_EQ(0, alloc_typed(fd, host, nc, type, size, &h)) TH_LOG("type %u", type);
	EXPECT_EQ(c0 + (long long)size, cnt(_metadata, dev, cnc, rel, "total"))
		TH_LOG("type %u", type);
	EXPECT_EQ(l0 + (long long)size, cnt(_metadata, dev, nc, loc, "total"))
		TH_LOG("type %u", type);
	ASSERT_EQ(0, mem_free(fd, h));
	EXPECT_EQ(c0, cnt(_metadata, dev, cnc, rel, "total")) TH_LOG("type %u", type);
	EXPECT_EQ(l0, cnt(_metadata, dev, nc, loc, "total")) TH_LOG("type %u", type);
	EXPECT_EQ((long long)size, cnt(_metadata, dev, cnc, rel, "present"))
		TH_LOG("type %u", type);
}

/*
 * Each allocation type in its own location, and the mismatched ones in the
 * other (where they count as uncategorized), on a core that changes from
 * type to type.  Every memory counter is compared for the first types of
 * each kind, for all of them with NEURON_STRESS=1; the others check their
 * own counters, and the whole set must be back at the end.
 */
static void memory_follows(struct __test_metadata *_metadata, int fd, const char *dev)
{
	int full = (int)nt_env_num("NEURON_STRESS", 0);
	struct snap start, end;
	unsigned int type, pass;
	int j;

	snap_take(_metadata, dev, ONE_NCS, &start);
	for (pass = 0; pass < 2; pass++) {
		for (type = 0; type < NEURON_MEMALLOC_TYPE_MAX; type++) {
			int host = type_cat[type].host ^ pass;
			int cat = pass ? (host ? 7 : 10) : type_cat[type].cat;
			int nc = (type + pass) % ONE_NCS;
			__u64 size = (1 + type % 3) * PG;

			/* Host memory takes no contiguous scratchpad. */
			if (host && type == NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE)
				continue;
			/* Mismatched: one of each kind unless asked for all. */
			if (pass && !full && type != NEURON_MEMALLOC_TYPE_TENSORS_HOST &&
			    type != NEURON_MEMALLOC_TYPE_TENSORS_DEVICE)
				continue;
			if (full || pass || type == NEURON_MEMALLOC_TYPE_CODE_HOST ||
			    type == NEURON_MEMALLOC_TYPE_CODE_DEVICE ||
			    type == NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE)
				alloc_free_check(_metadata, fd, dev, ONE_NCS, type, host, cat, nc,
						 size);
			else
				alloc_free_own(_metadata, fd, dev, type, host, cat, nc, size);
		}
	}
	snap_take(_metadata, dev, ONE_NCS, &end);
	for (j = 0; j < start.n; j++)
		EXPECT_EQ(start.v[j], end.v[j]) TH_LOG("counter %d", j);
}

/* Totals add up what is allocated; present the last change; peak the top. */
static void memory_peak_present(struct __test_metadata *_metadata, int fd, const char *dev)
{
	const char *rel = "memory_usage/device_mem/tensors";
	long long t0 = cnt(_metadata, dev, 0, rel, "total");
	long long p0 = cnt(_metadata, dev, 0, rel, "peak");
	__u64 h1 = 0, h2 = 0;
	long long top;

	ASSERT_LE(0, t0);
	ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, 3 * PG, &h1));
	ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, 2 * PG, &h2));
	EXPECT_EQ(t0 + 5 * (long long)PG, cnt(_metadata, dev, 0, rel, "total"));
	EXPECT_EQ(2 * (long long)PG, cnt(_metadata, dev, 0, rel, "present"));
	top = t0 + 5 * (long long)PG;
	EXPECT_EQ(top > p0 ? top : p0, cnt(_metadata, dev, 0, rel, "peak"));
	ASSERT_EQ(0, mem_free(fd, h1));
	EXPECT_EQ(t0 + 2 * (long long)PG, cnt(_metadata, dev, 0, rel, "total"));
	EXPECT_EQ(3 * (long long)PG, cnt(_metadata, dev, 0, rel, "present"));
	EXPECT_LE(top, cnt(_metadata, dev, 0, rel, "peak"));
	ASSERT_EQ(0, mem_free(fd, h2));
	EXPECT_EQ(t0, cnt(_metadata, dev, 0, rel, "total"));
}

TEST_F_TIMEOUT(one, memory, 300)
{
	memory_follows(_metadata, self->fd, self->dev);
	memory_peak_present(_metadata, self->fd, self->dev);
}

/* ------------------------------------------------------------------ */
/* Resets                                                              */
/* ------------------------------------------------------------------ */

static void reset_counts(struct __test_metadata *_metadata, int fd, const char *dev)
{
	long long req[8], fail[8];
	unsigned int nc, last = ONE_NCS - 1;
	char path[160];

	for (nc = 0; nc < ONE_NCS; nc++) {
		req[nc] = cnt(_metadata, dev, nc, "other_info/reset_req_count", "total");
		fail[nc] = cnt(_metadata, dev, nc, "other_info/reset_fail_count", "total");
		ASSERT_LE(0, req[nc]);
		ASSERT_LE(0, fail[nc]);
	}
	/* Cores 0 and the last one: their reset_req_count only. */
	ASSERT_EQ(0, reset_cores(fd, 1U | 1U << last));
	for (nc = 0; nc < ONE_NCS; nc++) {
		EXPECT_EQ(req[nc] + (nc == 0 || nc == last),
			  cnt(_metadata, dev, nc, "other_info/reset_req_count", "total"))
			TH_LOG("core %u", nc);
		EXPECT_EQ(fail[nc],
			  cnt(_metadata, dev, nc, "other_info/reset_fail_count", "total"));
	}
	EXPECT_EQ(1, cnt(_metadata, dev, 0, "other_info/reset_req_count", "present"));

	/* A reset the firmware never finishes: a failure on every core. */
	snprintf(path, sizeof(path), SIM_DBG, DEV, "fault");
	ASSERT_EQ(0, nt_write(path, "reset_fail"));
	EXPECT_NE(0, reset_cores(fd, 1U << last));
	ASSERT_EQ(0, nt_write(path, "none"));
	for (nc = 0; nc < ONE_NCS; nc++) {
		EXPECT_EQ(req[nc] + (nc == 0) + 2 * (nc == last),
			  cnt(_metadata, dev, nc, "other_info/reset_req_count", "total"))
			TH_LOG("core %u", nc);
		EXPECT_EQ(fail[nc] + 1,
			  cnt(_metadata, dev, nc, "other_info/reset_fail_count", "total"))
			TH_LOG("core %u", nc);
	}
}

/* ------------------------------------------------------------------ */
/* Datastore release                                                   */
/* ------------------------------------------------------------------ */

/* Slot of per-core counter @id of core @nc in a datastore (the uapi layout). */
static size_t nds_slot(unsigned int nc, unsigned int id)
{
	if (nc >= NDS_MAX_NEURONCORE_COUNT)
		return NDS_EXT_NEURONCORE_NC_DATA_START / 8 +
		       (nc - NDS_MAX_NEURONCORE_COUNT) * NDS_EXT_NEURONCORE_NC_DATA_COUNT + id;
	if (id < NDS_NC_COUNTER_COUNT)
		return NDS_NEURONCORE_COUNTERS_START / 8 + nc * NDS_NEURONCORE_COUNTERS_COUNT + id;
	return NDS_EXT_NEURONCORE_COUNTERS_START / 8 + nc * NDS_EXT_NEURONCORE_COUNTERS_COUNT +
	       id - NDS_NC_COUNTER_COUNT;
}

/* What a process writes for core @nc, counter @id, in round @r. */
static __u64 nds_val(unsigned int nc, unsigned int id, unsigned int r)
{
	return 1000 * r + 100 * nc + id + 1;
}

/* Acquire, map and fill this process's datastore for round @r; 0 or -1. */
static int nds_fill(int fd, unsigned int ncs, unsigned int r)
{
	__u64 off, *p;
	unsigned int nc, id;

	if (ds_acquire(fd, 0, &off))
		return -1;
	p = mmap(NULL, DS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -1;
	for (nc = 0; nc < ncs; nc++)
		for (id = 0; id < 41; id++)
			p[nds_slot(nc, id)] = nds_val(nc, id, r);
	munmap(p, DS_SIZE);
	return 0;
}

struct exec_snap {
	long long st[8][24];
	long long ot[8][6];
};

static void exec_take(struct __test_metadata *_metadata, const char *dev, unsigned int ncs,
		      struct exec_snap *s)
{
	char rel[96];
	unsigned int nc, i;

	memset(s, 0, sizeof(*s));
	for (nc = 0; nc < ncs; nc++) {
		for (i = 0; i < ARRAY_SIZE(statuses); i++) {
			snprintf(rel, sizeof(rel), "status/%s", statuses[i].name);
			s->st[nc][i] = cnt(_metadata, dev, nc, rel, "total");
		}
		for (i = 0; i < ARRAY_SIZE(others); i++) {
			snprintf(rel, sizeof(rel), "other_info/%s", others[i]);
			s->ot[nc][i] = cnt(_metadata, dev, nc, rel, "total");
		}
	}
}

/* @now is @was plus round @r's values. */
static void exec_expect(struct __test_metadata *_metadata, const struct exec_snap *was,
			const struct exec_snap *now, unsigned int ncs, unsigned int r)
{
	/* other_info: the datastore counter each adds (-1: none), and its factor. */
	static const int other_nds[] = { 27, -1, -1, 28, 29, 0 };
	static const int other_factor[] = { 1, 0, 0, 1, 2, 1 };
	unsigned int nc, i;

	for (nc = 0; nc < ncs; nc++) {
		for (i = 0; i < ARRAY_SIZE(statuses); i++)
			EXPECT_EQ(was->st[nc][i] + (long long)nds_val(nc, statuses[i].nds, r),
				  now->st[nc][i]) TH_LOG("core %u status %u", nc, i);
		for (i = 0; i < ARRAY_SIZE(others); i++)
			EXPECT_EQ(was->ot[nc][i] + (other_nds[i] < 0 ? 0 :
				  other_factor[i] * (long long)nds_val(nc, other_nds[i], r)),
				  now->ot[nc][i]) TH_LOG("core %u other_info %u", nc, i);
	}
}

/* RELEASE_NEURON_DS by its owner, then a process's exit: each adds its counters once. */
static void datastore_release_adds(struct __test_metadata *_metadata, int fd, const char *dev,
				   int index)
{
	struct neuron_ioctl_neuron_ds_info rel = { .pid = 0 };
	struct exec_snap s0, s1, s2;
	unsigned int last = ONE_NCS - 1;
	pid_t pid;
	int status;

	exec_take(_metadata, dev, ONE_NCS, &s0);
	ASSERT_EQ(0, nds_fill(fd, ONE_NCS, 1));
	/* Nothing until the release. */
	exec_take(_metadata, dev, ONE_NCS, &s1);
	EXPECT_EQ(0, memcmp(&s0, &s1, sizeof(s0)));
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_RELEASE_NEURON_DS, &rel));
	exec_take(_metadata, dev, ONE_NCS, &s1);
	exec_expect(_metadata, &s0, &s1, ONE_NCS, 1);
	EXPECT_EQ((long long)nds_val(last, 1, 1),
		  cnt(_metadata, dev, last, "status/success", "present"));
	/* Released already: a second release adds nothing. */
	EXPECT_EQ(-ENOENT, xioctl(fd, NEURON_IOCTL_RELEASE_NEURON_DS, &rel));
	exec_take(_metadata, dev, ONE_NCS, &s2);
	EXPECT_EQ(0, memcmp(&s1, &s2, sizeof(s1)));

	/* A process that attaches, fills its datastore and exits. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int kfd = open_node(index, O_RDWR);

		_exit(kfd < 0 || nds_fill(kfd, ONE_NCS, 2) ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	exec_take(_metadata, dev, ONE_NCS, &s2);
	exec_expect(_metadata, &s1, &s2, ONE_NCS, 2);
}

TEST_F_TIMEOUT(one, events, 120)
{
	reset_counts(_metadata, self->fd, self->dev);
	datastore_release_adds(_metadata, self->fd, self->dev, self->index);
}

/* ------------------------------------------------------------------ */
/* Writes and reads                                                    */
/* ------------------------------------------------------------------ */

static void write_clears_read_keeps(struct __test_metadata *_metadata, int fd, const char *dev)
{
	const char *rel = "memory_usage/device_mem/constants";
	long long total, present, peak;
	char path[160], buf[32];
	__u64 h = 0;
	int i;

	ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_CONSTANTS_DEVICE, 2 * PG,
				 &h));
	total = cnt(_metadata, dev, 0, rel, "total");
	present = cnt(_metadata, dev, 0, rel, "present");
	peak = cnt(_metadata, dev, 0, rel, "peak");
	ASSERT_LE(2 * (long long)PG, total);
	EXPECT_EQ(2 * (long long)PG, present);
	ASSERT_LE(total, peak);
	/* Reading changes nothing. */
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(total, cnt(_metadata, dev, 0, rel, "total"));
		EXPECT_EQ(present, cnt(_metadata, dev, 0, rel, "present"));
		EXPECT_EQ(peak, cnt(_metadata, dev, 0, rel, "peak"));
	}
	/* Any write clears that field only. */
	ASSERT_EQ(0, write_to(dev, 0, rel, "present", "whatever"));
	EXPECT_EQ(0, cnt(_metadata, dev, 0, rel, "present"));
	EXPECT_EQ(total, cnt(_metadata, dev, 0, rel, "total"));
	EXPECT_EQ(peak, cnt(_metadata, dev, 0, rel, "peak"));
	ASSERT_EQ(0, write_to(dev, 0, rel, "peak", "1"));
	EXPECT_EQ(0, cnt(_metadata, dev, 0, rel, "peak"));
	EXPECT_EQ(total, cnt(_metadata, dev, 0, rel, "total"));
	ASSERT_EQ(0, write_to(dev, 0, rel, "total", "0"));
	EXPECT_EQ(0, cnt(_metadata, dev, 0, rel, "total"));
	/* A free after a clear stops at 0. */
	ASSERT_EQ(0, mem_free(fd, h));
	EXPECT_EQ(0, cnt(_metadata, dev, 0, rel, "total"));
	EXPECT_EQ(2 * (long long)PG, cnt(_metadata, dev, 0, rel, "present"));
	/* The device level and a status counter clear the same way. */
	ASSERT_EQ(0, write_to(dev, -1, "memory_usage/host_mem/tensors", "peak", "x"));
	EXPECT_EQ(0, cnt(_metadata, dev, -1, "memory_usage/host_mem/tensors", "peak"));
	ASSERT_EQ(0, write_to(dev, 1, "status/success", "total", "x"));
	EXPECT_EQ(0, cnt(_metadata, dev, 1, "status/success", "total"));

	/* notify_delay: 0 or -1, nothing else. */
	snprintf(path, sizeof(path), "%s/info/notify_delay", dev);
	EXPECT_EQ(-EINVAL, nt_write(path, "5"));
	EXPECT_EQ(-EINVAL, nt_write(path, "abc"));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), "%s", path));
	EXPECT_STREQ("-1", buf);
	EXPECT_EQ(0, nt_write(path, "0"));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), "%s", path));
	EXPECT_STREQ("0", buf);
	EXPECT_EQ(0, nt_write(path, "-1"));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), "%s", path));
	EXPECT_STREQ("-1", buf);
}

/* ------------------------------------------------------------------ */
/* ECC                                                                 */
/* ------------------------------------------------------------------ */

static int sim_api(unsigned int api)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "api_version");
	return nt_write(path, "%u", api);
}

/*
 * Firmware API @split and later (where the generation has it): each HBM
 * word holds the uncorrected count in bits 15:12 and the repairable one in
 * bits 11:0, whatever the repair state; before it, and on a generation
 * without it, the words keep their single count.  The SRAM word keeps its
 * encoding.
 */
static void ecc_split_encoding(struct __test_metadata *_metadata, const char *dev,
			       unsigned int hbms, int repair, unsigned int split)
{
	static const unsigned int states[] = { 0, 1, 2, 3 };
	long long ue = 0, rep = 0, low = 0;
	unsigned int ch, i, api;

	for (ch = 0; ch < 4; ch++) {
		/* High half: not a count; bits 15:12 and 11:0: both counts. */
		__u32 w = 0xa5a50000 | (ch + 1) << 12 | (0x100 * ch + 5 * (ch + 1));

		ASSERT_EQ(0, sim_misc(0x44 + 4 * ch, w));
		if (ch < hbms) {
			ue += ch + 1;
			rep += 0x100 * ch + 5 * (ch + 1);
			low += w & 0xffff;
		}
	}
	ASSERT_EQ(0, sim_misc(0x40, 0xabcd7009));
	for (api = 5; api <= 6; api++) {
		int on = split && api >= split;

		ASSERT_EQ(0, sim_api(api));
		for (i = 0; i < ARRAY_SIZE(states); i++) {
			unsigned int st = states[i];
			int legacy_ue = !repair || st == 0 || st == 2;
			int legacy_rep = repair && st == 1;

			ASSERT_EQ(0, sim_misc(0x64, st));
			EXPECT_EQ(on ? ue : legacy_ue ? low : 0, hw(dev, "mem_ecc_uncorrected"))
				TH_LOG("API %u, repair state %u", api, st);
			EXPECT_EQ(on ? rep : legacy_rep ? low : 0,
				  hw(dev, "mem_ecc_repairable_uncorrected"))
				TH_LOG("API %u, repair state %u", api, st);
		}
		EXPECT_EQ(0x7009, hw(dev, "sram_ecc_uncorrected")) TH_LOG("API %u", api);
	}
	/* A word firmware has not filled in counts 0 in either file. */
	ASSERT_EQ(0, sim_misc(0x64, 0));
	ASSERT_EQ(0, sim_misc(0x44, 0xdeadbeef));
	EXPECT_EQ(split ? ue - 1 : low - 0x1005, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(split ? rep - 5 : 0, hw(dev, "mem_ecc_repairable_uncorrected"));
	/* An unreadable API version is not a new one. */
	ASSERT_EQ(0, sim_api(0xdeadbeef));
	EXPECT_EQ(low - 0x1005, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(0, hw(dev, "mem_ecc_repairable_uncorrected"));
	/* Any later version is new (7: the simulator's). */
	ASSERT_EQ(0, sim_api(7));
	EXPECT_EQ(split ? ue - 1 : low - 0x1005, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(split ? rep - 5 : 0, hw(dev, "mem_ecc_repairable_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x40, 0));
	for (ch = 0; ch < 4; ch++)
		ASSERT_EQ(0, sim_misc(0x44 + 4 * ch, 0));
}

/* Firmware below API 6: the 2.27 encoding. */
static void ecc_follows_firmware(struct __test_metadata *_metadata, const char *dev,
				 unsigned int hbms, int repair)
{
	long long sum = 0;
	unsigned int ch;

	ASSERT_EQ(0, sim_api(5));
	ASSERT_EQ(0, sim_misc(0x40, 0xabcd0007));
	EXPECT_EQ(7, hw(dev, "sram_ecc_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x40, 0xdeadbeef));
	EXPECT_EQ(0, hw(dev, "sram_ecc_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x40, 0));
	EXPECT_EQ(0, hw(dev, "sram_ecc_uncorrected"));

	/* Every channel the generation has counts, its low 16 bits only. */
	for (ch = 0; ch < 4; ch++) {
		ASSERT_EQ(0, sim_misc(0x44 + 4 * ch, 0x10000 * (ch + 1) + 3 * (ch + 1)));
		if (ch < hbms)
			sum += 3 * (ch + 1);
	}
	ASSERT_EQ(0, sim_misc(0x64, 0));
	EXPECT_EQ(sum, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(0, hw(dev, "mem_ecc_repairable_uncorrected"));
	/* A word firmware has not filled in counts 0. */
	ASSERT_EQ(0, sim_misc(0x44, 0xdeadbeef));
	EXPECT_EQ(sum - 3, hw(dev, "mem_ecc_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x44, 3));

	/* The repair state: pending makes them repairable, where firmware reports it. */
	ASSERT_EQ(0, sim_misc(0x64, 1));
	EXPECT_EQ(repair ? 0 : sum, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(repair ? sum : 0, hw(dev, "mem_ecc_repairable_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x64, 2));
	EXPECT_EQ(sum, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(0, hw(dev, "mem_ecc_repairable_uncorrected"));
	ASSERT_EQ(0, sim_misc(0x64, 3));
	EXPECT_EQ(repair ? 0 : sum, hw(dev, "mem_ecc_uncorrected"));
	EXPECT_EQ(0, hw(dev, "mem_ecc_repairable_uncorrected"));
	/* Writes are ignored. */
	EXPECT_EQ(0, write_to(dev, -1, "hardware", "mem_ecc_uncorrected", "0"));
	ASSERT_EQ(0, sim_misc(0x64, 0));
	EXPECT_EQ(sum, hw(dev, "mem_ecc_uncorrected"));
	/* Bad misc_set input is refused. */
	EXPECT_EQ(-EINVAL, sim_misc(0x42, 1));
	EXPECT_EQ(-EINVAL, sim_misc(0x1000, 1));
}

/* ------------------------------------------------------------------ */
/* PE counters                                                         */
/* ------------------------------------------------------------------ */

static int reg_set(__u64 off, __u64 val)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "reg_set");
	if (nt_write(path, "%#llx %#x", (unsigned long long)off, (unsigned int)val))
		return -1;
	return nt_write(path, "%#llx %#x", (unsigned long long)off + 4,
			(unsigned int)(val >> 32));
}

/* The last core's counters, live from the registers the DHAL names. */
static void pe_counters(struct __test_metadata *_metadata, const char *dev, unsigned int ncs,
			const struct pe_regs *pe)
{
	unsigned long long mm, wl, idle, want_wl;
	char path[256], buf[512], *line;
	unsigned int r, c, row;
	int n;

	for (r = 0; r < 4; r++) {
		__u64 row_off = r * pe->row;

		ASSERT_EQ(0, reg_set(pe->mm + row_off, (__u64)(r + 1) << 32 | (100 + r)));
		ASSERT_EQ(0, reg_set(pe->idle + row_off, 500 + r));
		if (pe->wl)
			ASSERT_EQ(0, reg_set(pe->wl + row_off, 1000 + r));
		for (c = 0; c < 4; c++)
			ASSERT_EQ(0, reg_set(pe->fast + row_off + c * pe->col,
					     10 * c + r + 1));
	}
	snprintf(path, sizeof(path), "%s/neuron_core%u/stats/tensor_engine/pe_cntrs", dev,
		 ncs - 1);
	ASSERT_LT(0, slurp(path, buf, sizeof(buf)));
	line = strtok(buf, "\n");
	ASSERT_NE(NULL, line);
	EXPECT_STREQ("xrow_grp,mm_active,wl_active,idle", line);
	for (r = 0; r < 4; r++) {
		line = strtok(NULL, "\n");
		ASSERT_NE(NULL, line) TH_LOG("row %u missing", r);
		n = sscanf(line, "%u,%llu,%llu,%llu", &row, &mm, &wl, &idle);
		ASSERT_EQ(4, n) TH_LOG("%s", line);
		want_wl = (pe->wl ? 1000 + r : 0) + 4 * (r + 1) + 60;
		EXPECT_EQ(r, row);
		EXPECT_EQ((unsigned long long)(r + 1) << 32 | (100 + r), mm);
		EXPECT_EQ(want_wl, wl);
		EXPECT_EQ(500 + r, idle);
	}
	EXPECT_EQ(NULL, strtok(NULL, "\n"));
	/* Another core reads its own registers: all 0 here. */
	snprintf(path, sizeof(path), "%s/neuron_core0/stats/tensor_engine/pe_cntrs", dev);
	ASSERT_LT(0, slurp(path, buf, sizeof(buf)));
	EXPECT_STREQ("xrow_grp,mm_active,wl_active,idle\n"
		     "0,0,0,0\n1,0,0,0\n2,0,0,0\n3,0,0,0\n", buf);
}

/*
 * A monitor's walk of the tree, then what the device reports itself: ECC
 * counts and PE counters.
 */
TEST_F_TIMEOUT(tel, monitor, 120)
{
	int full = !strcmp(variant->gen, ONE_GEN) || nt_env_num("NEURON_STRESS", 0);

	tree(_metadata, self->dev, variant->ncs, variant->nc_arch, variant->health, full);
	ecc_follows_firmware(_metadata, self->dev, variant->hbms, variant->repair);
	ecc_split_encoding(_metadata, self->dev, variant->hbms, variant->repair, variant->split);
	pe_counters(_metadata, self->dev, variant->ncs, &variant->pe);
}

/* ------------------------------------------------------------------ */
/* Notifications                                                       */
/* ------------------------------------------------------------------ */

/* Wait up to @ms for POLLPRI on @fd; 1 if it came, 0 if not. */
static int woke(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI | POLLERR };

	return poll(&p, 1, ms) == 1 && (p.revents & (POLLPRI | POLLERR));
}

static void rearm(int fd)
{
	char buf[64];

	lseek(fd, 0, SEEK_SET);
	if (read(fd, buf, sizeof(buf)) < 0)
		return;
}

static void notify_delay_wakes_poll(struct __test_metadata *_metadata, int fd,
				    const char *dev)
{
	char path[256];
	__u64 h = 0;
	int pfd;

	snprintf(path, sizeof(path),
		 "%s/neuron_core0/stats/memory_usage/device_mem/tensors/total", dev);
	pfd = open(path, O_RDONLY);
	ASSERT_LE(0, pfd);
	rearm(pfd);
	snprintf(path, sizeof(path), "%s/info/notify_delay", dev);

	/* -1: no wake-up. */
	ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, PG, &h));
	EXPECT_EQ(0, woke(pfd, 300));
	ASSERT_EQ(0, mem_free(fd, h));

	/* 0: a change wakes the poller; nothing before it. */
	ASSERT_EQ(0, nt_write(path, "0"));
	rearm(pfd);
	EXPECT_EQ(0, woke(pfd, 100));
	ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, PG, &h));
	EXPECT_EQ(1, woke(pfd, 5000));
	rearm(pfd);
	/* Another category does not wake this file. */
	{
		__u64 h2 = 0;

		ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_CODE_DEVICE, PG,
					 &h2));
		EXPECT_EQ(0, woke(pfd, 300));
		ASSERT_EQ(0, mem_free(fd, h2));
	}
	ASSERT_EQ(0, mem_free(fd, h));
	EXPECT_EQ(1, woke(pfd, 5000));
	rearm(pfd);

	/* Back to -1: quiet again. */
	ASSERT_EQ(0, nt_write(path, "-1"));
	ASSERT_EQ(0, alloc_typed(fd, 0, 0, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, PG, &h));
	EXPECT_EQ(0, woke(pfd, 300));
	ASSERT_EQ(0, mem_free(fd, h));
	close(pfd);
}

/* Writes clear, reads keep; with notify_delay 0 a change wakes poll(). */
TEST_F_TIMEOUT(one, files, 120)
{
	write_clears_read_keeps(_metadata, self->fd, self->dev);
	notify_delay_wakes_poll(_metadata, self->fd, self->dev);
}

/*
 * A tree built while notify_delay is 0 already notifies: a second device,
 * a Trn1, added then.  Its device-level and per-core counters (with a peak
 * file, and without: other_info and status) wake their pollers; the first
 * device's do not wake for the second's changes.
 */
TEST_F_TIMEOUT(one, files_notify_new_device, 120)
{
	char path[256], buf[32], dev2[96];
	struct neuron_ioctl_neuron_ds_info rel = { .pid = 0 };
	int fd2, pdev, pnc, pold, preq, pst;
	__u64 h = 0;

	snprintf(path, sizeof(path), "%s/info/notify_delay", self->dev);
	ASSERT_EQ(0, nt_write(path, "0"));
	ASSERT_EQ(0, nt_sim_add(DEV + 1, "v2"));
	ASSERT_STREQ("ready", nt_sim_settle(DEV + 1, buf, sizeof(buf), SETTLE_MS));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", DEV + 1));
	snprintf(dev2, sizeof(dev2), CLASS_DIR "/neuron%d", atoi(buf));
	fd2 = open_node(atoi(buf), O_RDWR);
	ASSERT_LE(0, fd2);

	snprintf(path, sizeof(path), "%s/stats/memory_usage/host_mem/tensors/total", dev2);
	pdev = open(path, O_RDONLY);
	snprintf(path, sizeof(path),
		 "%s/neuron_core1/stats/memory_usage/device_mem/tensors/present", dev2);
	pnc = open(path, O_RDONLY);
	snprintf(path, sizeof(path),
		 "%s/neuron_core1/stats/memory_usage/device_mem/tensors/present", self->dev);
	pold = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/neuron_core0/stats/other_info/reset_req_count/total",
		 dev2);
	preq = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/neuron_core1/stats/status/success/present", dev2);
	pst = open(path, O_RDONLY);
	ASSERT_LE(0, pst);
	ASSERT_LE(0, preq);
	ASSERT_LE(0, pdev);
	ASSERT_LE(0, pnc);
	ASSERT_LE(0, pold);
	rearm(pdev);
	rearm(pnc);
	rearm(pold);
	rearm(preq);
	rearm(pst);

	ASSERT_EQ(0, alloc_typed(fd2, 1, 0, NEURON_MEMALLOC_TYPE_TENSORS_HOST, PG, &h));
	EXPECT_EQ(1, woke(pdev, 5000)) TH_LOG("device-level host_mem/tensors");
	ASSERT_EQ(0, mem_free(fd2, h));
	ASSERT_EQ(0, alloc_typed(fd2, 0, 1, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, PG, &h));
	EXPECT_EQ(1, woke(pnc, 5000)) TH_LOG("neuron_core1 device_mem/tensors");
	EXPECT_EQ(0, woke(pold, 300)) TH_LOG("the other device's file woke");
	ASSERT_EQ(0, mem_free(fd2, h));
	ASSERT_EQ(0, reset_cores(fd2, 1));
	EXPECT_EQ(1, woke(preq, 5000)) TH_LOG("neuron_core0 other_info/reset_req_count");
	/* A status counter: the datastore's counts land when it is released. */
	ASSERT_EQ(0, nds_fill(fd2, 2, 1));
	EXPECT_EQ(0, woke(pst, 300)) TH_LOG("status/success woke before the release");
	ASSERT_EQ(0, xioctl(fd2, NEURON_IOCTL_RELEASE_NEURON_DS, &rel));
	EXPECT_EQ(1, woke(pst, 5000)) TH_LOG("neuron_core1 status/success");

	close(pst);
	close(preq);
	close(pold);
	close(pnc);
	close(pdev);
	close(fd2);
	EXPECT_EQ(0, nt_sim_del(DEV + 1));
}

/* ------------------------------------------------------------------ */
/* Unload and reload                                                   */
/* ------------------------------------------------------------------ */

TEST_F_TIMEOUT(one, reload_keeps_counts, 120)
{
	const char *rel = "memory_usage/device_mem/collectives";
	unsigned int nc = ONE_NCS - 1;
	long long total, req;
	__u64 h = 0;
	int i;

	ASSERT_EQ(0, alloc_typed(self->fd, 0, nc, NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE,
				 4 * PG, &h));
	total = cnt(_metadata, self->dev, nc, rel, "total");
	ASSERT_LE(4 * (long long)PG, total);
	req = cnt(_metadata, self->dev, 0, "other_info/reset_req_count", "total");

	ASSERT_EQ(0, nt_sh("modprobe -r neuron_telemetry"));
	EXPECT_FALSE(nt_exists("%s/stats", self->dev));
	EXPECT_FALSE(nt_exists("%s/neuron_core0", self->dev));
	EXPECT_FALSE(nt_exists("%s/info/notify_delay", self->dev));
	EXPECT_TRUE(nt_exists("%s/info/serial_number", self->dev));
	/* Counting goes on without the plane. */
	ASSERT_EQ(0, reset_cores(self->fd, 1));

	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry"));
	for (i = 0; i < 100 && !nt_exists("%s/neuron_core%u", self->dev, nc); i++)
		usleep(50000);
	EXPECT_EQ(total, cnt(_metadata, self->dev, nc, rel, "total"));
	EXPECT_EQ(req + 1, cnt(_metadata, self->dev, 0, "other_info/reset_req_count", "total"));
	ASSERT_EQ(0, mem_free(self->fd, h));
	EXPECT_EQ(total - 4 * (long long)PG, cnt(_metadata, self->dev, nc, rel, "total"));
}

TEST_HARNESS_MAIN
