// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: how the driver's modules load and unload.
 *
 *   - what modinfo and modprobe read from the module files: the PCI
 *     aliases of neuron_core and of each DHAL module, the soft
 *     dependencies that tie the driver together, and which modules a PCI
 *     function's modalias resolves to;
 *   - that a modprobe of any of the driver's modules (or of a Neuron PCI
 *     modalias) loads all of it, with /sys/module/neuron/version, and that
 *     modprobe -r neuron unloads all of it;
 *   - that the DMA and telemetry planes can be unloaded with devices
 *     present and files open, come back on demand (neuron_udma, with the
 *     next DMA command) or when loaded again (neuron_telemetry, whose
 *     per-device debugfs file follows it), also while two processes copy
 *     without pause;
 *   - neuron_telemetry unloaded and loaded again during a model run
 *     (allocations, copies, datastores, a monitor reading the statistics
 *     tree, the telemetry commands, the metrics thread posting): the tree
 *     goes and comes back with every count; then, with it loaded, that
 *     neuron_core refuses to go and a DHAL goes and comes back;
 *   - every load and unload order: random orders from a fixed seed.
 *
 * Each test starts and ends with no simulated device and no Neuron module
 * loaded.  Module tools run through the shell; their output goes to the
 * log when a check fails.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures, print them on stderr and report the count as their exit status.
 */
#include <dirent.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
/* How long a module's debugfs files may take to follow it. */
#define FOLLOW_MS	5000
/* How long a copying child may take to answer. */
#define CHILD_MS	60000
#define TELEMETRY	"/sys/kernel/debug/neuron/neuron%d/telemetry"
#define OUT_LEN		8192

/* The driver: a modprobe of any of its modules (or of neuron_sim) loads all of them. */
static const char * const driver_mods[] = {
	"neuron_core", "neuron_dhal_v2", "neuron_dhal_v3", "neuron_dhal_v4",
	"neuron_udma", "neuron_telemetry", "neuron",
};

/* Every module, for the load and unload orders. */
static const char * const all_mods[] = {
	"neuron_core", "neuron_dhal_v2", "neuron_dhal_v3", "neuron_dhal_v4",
	"neuron_udma", "neuron_telemetry", "neuron_sim", "neuron",
};

#define NALL	ARRAY_SIZE(all_mods)

/* The PCI device ids (vendor 0x1d0f) neuron_core drives. */
static const unsigned int all_ids[] = { 0x7164, 0x7264, 0x7364, 0x7564, 0x7565 };

/* Each DHAL module and the device ids it is for. */
static const struct dhal_ids {
	const char *mod;
	unsigned int ids[2];
	unsigned int n;
} dhals[] = {
	{ "neuron_dhal_v2", { 0x7164, 0x7264 }, 2 },
	{ "neuron_dhal_v3", { 0x7364 }, 1 },
	{ "neuron_dhal_v4", { 0x7564, 0x7565 }, 2 },
};

static const char * const gens[] = { "v2", "v3", "v4" };

static const struct dhal_ids *dhal_of(unsigned int id)
{
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(dhals); i++)
		for (k = 0; k < dhals[i].n; k++)
			if (dhals[i].ids[k] == id)
				return &dhals[i];
	return NULL;
}

/* The PCI alias pattern of device id %04X of the vendor, as modpost writes it. */
#define PCI_PATTERN	"pci:v00001D0Fd0000%04Xsv*sd*bc*sc*i*"

/* A Neuron PCI function's modalias, as the PCI core reports it, for device id @id. */
static void pci_modalias(char *buf, size_t len, unsigned int id)
{
	snprintf(buf, len, "pci:v00001D0Fd0000%04Xsv00001D0Fsd00000000bc12sc00i00", id);
}

/* Append a word (printf-style) to the space-separated list in @buf. */
static __printf(3, 4) void add_word(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used && used + 2 < len) {
		buf[used++] = ' ';
		buf[used] = 0;
	}
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Collapse each run of white space in @s to one space; no space at either end. */
static char *squeeze(char *s)
{
	char *r = s, *w = s;
	int space = 0;

	for (; *r; r++) {
		if (*r == ' ' || *r == '\t' || *r == '\n') {
			space = w != s;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = 0;
		*w++ = *r;
	}
	*w = 0;
	return s;
}

/* Whether @word is one of the words of @s (separated by white space or commas). */
static int has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(s, word); p; p = strstr(p + 1, word)) {
		if ((p == s || strchr(" \t\n,", p[-1])) && (!p[n] || strchr(" \t\n,", p[n])))
			return 1;
	}
	return 0;
}

/*
 * Run a shell command with its standard output in @out (the command
 * redirects standard error there if it wants it).  Its exit status, or -1.
 */
static __printf(3, 4) int capture(char *out, size_t len, const char *fmt, ...)
{
	char cmd[512], sink[256];
	size_t n = 0, r;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out[0] = 0;
	fflush(stdout);
	fflush(stderr);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n + 1 < len) {
		r = fread(out + n, 1, len - 1 - n, f);
		if (!r)
			break;
		n += r;
	}
	out[n] = 0;
	while (fread(sink, 1, sizeof(sink), f) > 0)
		;
	st = pclose(f);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The loaded modules whose name starts with "neuron", listed in @buf; how many. */
static int neuron_mods(char *buf, size_t len)
{
	char line[512], got[64];
	FILE *f = fopen("/proc/modules", "r");
	int n = 0;

	buf[0] = 0;
	if (!f) {
		snprintf(buf, len, "(no /proc/modules)");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s", got) != 1 || strncmp(got, "neuron", 6))
			continue;
		add_word(buf, len, "%s", got);
		n++;
	}
	fclose(f);
	return n;
}

/* /sys/module/@name/refcnt, or -1. */
static int mod_refcnt(const char *name)
{
	char buf[32];

	if (nt_read(buf, sizeof(buf), "/sys/module/%s/refcnt", name))
		return -1;
	return atoi(buf);
}

/* The modules in /sys/module/@name/holders/, comma-separated in @buf; how many. */
static int mod_holders(const char *name, char *buf, size_t len)
{
	char path[128];
	struct dirent *e;
	size_t used;
	int n = 0;
	DIR *d;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/sys/module/%s/holders", name);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", n ? "," : "", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* How many processes run the program @comm. */
static int running(const char *comm)
{
	char buf[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (!nt_read(buf, sizeof(buf), "/proc/%s/comm", e->d_name) && !strcmp(buf, comm))
			n++;
	}
	closedir(d);
	return n;
}

/*
 * Wait, at most @ms, until no modprobe runs that this program did not
 * start: the guest's hotplug handler loads modules for new devices' uevents,
 * and request_module() runs modprobe too.  Whether none was left.
 */
static int modprobe_settle(long ms)
{
	long end = nt_now_ms() + ms;

	for (;;) {
		if (!running("modprobe") && !running("hotplug"))
			return 1;
		if (nt_now_ms() > end)
			return 0;
		usleep(20000);
	}
}

/*
 * No simulated device and no Neuron module, whatever a test left behind:
 * delete the devices, then unload the driver (nt_unload_all()).  How many
 * modules are left, listed in @left.
 */
static int unload_everything(char *left, size_t len)
{
	modprobe_settle(FOLLOW_MS);
	if (nt_exists(SIM_BUS))
		nt_sim_del_all();
	nt_unload_all();
	return neuron_mods(left, len);
}

/* EXPECT every module of the driver loaded, after a modprobe of @what; how many are not. */
static int expect_driver(struct __test_metadata *_metadata, const char *what)
{
	unsigned int i;
	int missing = 0;

	for (i = 0; i < ARRAY_SIZE(driver_mods); i++) {
		if (nt_module_loaded(driver_mods[i]) == 1)
			continue;
		missing++;
		TH_LOG("after modprobe %s, %s is not loaded", what, driver_mods[i]);
	}
	EXPECT_EQ(0, missing);
	return missing;
}

/* /sys/module/neuron/version exists, is not empty and is neuron_core's. */
static void expect_version(struct __test_metadata *_metadata, const char *what)
{
	char a[64], b[64];

	ASSERT_EQ(0, nt_read(a, sizeof(a), "/sys/module/neuron/version"))
		TH_LOG("after modprobe %s", what);
	ASSERT_EQ(0, nt_read(b, sizeof(b), "/sys/module/neuron_core/version"))
		TH_LOG("after modprobe %s", what);
	EXPECT_NE(0, strlen(a));
	EXPECT_STREQ(b, a) TH_LOG("after modprobe %s", what);
}

/* Create simulated device @id of generation @gen and wait until it is ready; its index. */
static int sim_ready(struct __test_metadata *_metadata, int id, const char *gen)
{
	char buf[64];

	ASSERT_EQ(0, nt_sim_add(id, gen)) TH_LOG("new_device %d %s", id, gen);
	ASSERT_STREQ("ready", nt_sim_settle(id, buf, sizeof(buf), SETTLE_MS))
		TH_LOG("simulated device %d (%s)", id, gen);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", id));
	return atoi(buf);
}

/* The index simulated device @id has now, or -1. */
static int sim_index(int id)
{
	char buf[64];

	if (nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", id))
		return -1;
	return atoi(buf);
}

/* Wait, at most @ms, until device @index's telemetry file exists (@want 1) or not (0). */
static int telemetry_within(int index, int want, long ms)
{
	long end = nt_now_ms() + ms;

	for (;;) {
		if (nt_exists(TELEMETRY, index) == want)
			return 1;
		if (nt_now_ms() > end)
			return 0;
		usleep(20000);
	}
}

/* Start each test from no module loaded; end with none loaded. */
FIXTURE(mods) {
	int fd[4];
	struct undo undo;	/* children and mappings */
	long t0;
	char buf[1024];
};

FIXTURE_SETUP(mods)
{
	unsigned int i;

	self->t0 = nt_now_ms();
	for (i = 0; i < ARRAY_SIZE(self->fd); i++)
		self->fd[i] = -1;
	memset(&self->undo, 0, sizeof(self->undo));
	unlink("/etc/modprobe.d/neuron-test.conf");
	ASSERT_EQ(0, unload_everything(self->buf, sizeof(self->buf)))
		TH_LOG("still loaded before the test: %s", self->buf);
}

FIXTURE_TEARDOWN(mods)
{
	unsigned int i;
	int left;

	kill_kids(&self->undo);
	unmap_all(&self->undo);
	for (i = 0; i < ARRAY_SIZE(self->fd); i++)
		if (self->fd[i] >= 0)
			close(self->fd[i]);
	/* No handler here: one would also run after a failed ASSERT in the test. */
	left = unload_everything(self->buf, sizeof(self->buf));
	if (left)
		TH_LOG("still loaded after the test: %s", self->buf);
	EXPECT_EQ(0, left);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/* ---- What the module files say ------------------------------------------ */

/*
 * @mod's aliases: the PCI modalias pattern of exactly the device ids @ids,
 * each once (modpost writes the hex digits in upper case; they are compared
 * here regardless of case), no other PCI alias and, with @dhal, exactly one
 * "neuron-dhal-1d0f-<id>" for each id and no other.  Other aliases are
 * logged; with @only there must be none.
 */
static void expect_aliases(struct __test_metadata *_metadata, const char *mod,
			   const unsigned int *ids, unsigned int n, int dhal, int only)
{
	unsigned int pci[ARRAY_SIZE(all_ids)] = { 0 }, fixed[ARRAY_SIZE(all_ids)] = { 0 }, i;
	char out[OUT_LEN], want[64], *line, *save;
	int stray_pci = 0, stray_dhal = 0, other = 0, hit;

	ASSERT_GE(ARRAY_SIZE(all_ids), n);
	ASSERT_EQ(0, capture(out, sizeof(out), "modinfo -F alias %s 2>&1", mod))
		TH_LOG("modinfo -F alias %s: %s", mod, out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		hit = 0;
		for (i = 0; i < n; i++) {
			snprintf(want, sizeof(want), PCI_PATTERN, ids[i]);
			if (!strcasecmp(line, want)) {
				pci[i]++;
				hit = 1;
			}
			snprintf(want, sizeof(want), "neuron-dhal-1d0f-%04x", ids[i]);
			if (dhal && !strcmp(line, want)) {
				fixed[i]++;
				hit = 1;
			}
		}
		if (hit)
			continue;
		if (!strncasecmp(line, "pci:", 4)) {
			stray_pci++;
			TH_LOG("%s: PCI alias %s is not one of its own", mod, line);
		} else if (!strncmp(line, "neuron-dhal-", 12)) {
			stray_dhal++;
			TH_LOG("%s: alias %s is not one of its own", mod, line);
		} else {
			other++;
			TH_LOG("%s: other alias %s", mod, line);
		}
	}
	for (i = 0; i < n; i++) {
		EXPECT_EQ(1, pci[i]) TH_LOG("%s: PCI alias of device %04x", mod, ids[i]);
		if (dhal)
			EXPECT_EQ(1, fixed[i]) TH_LOG("%s: neuron-dhal-1d0f-%04x", mod, ids[i]);
	}
	EXPECT_EQ(0, stray_pci);
	EXPECT_EQ(0, stray_dhal);
	if (only)
		EXPECT_EQ(0, other);
}

/* neuron's soft dependencies: the whole driver, loaded before it. */
#define NEURON_SOFTDEP	"pre: neuron_dhal_v2 neuron_dhal_v3 neuron_dhal_v4 " \
			"neuron_udma neuron_telemetry"

/* `modinfo -F @field @mod`, white space collapsed, into @out. */
static void modinfo_field(struct __test_metadata *_metadata, const char *mod, const char *field,
			  char *out, size_t len)
{
	ASSERT_EQ(0, capture(out, len, "modinfo -F %s %s", field, mod))
		TH_LOG("modinfo -F %s %s: %s", field, mod, out);
	squeeze(out);
}

/*
 * The module files: neuron_core has the PCI aliases of the five device
 * ids and nothing else; each DHAL module those of its own ids (and the
 * core's fixed alias for each); the soft dependencies that make one
 * modprobe load the whole driver; neuron_dhal_v4 does not depend on
 * neuron_dhal_v3; neuron and neuron_core have one version.
 */
TEST_F_TIMEOUT(mods, module_aliases_and_soft_dependencies, 300)
{
	char out[OUT_LEN], other[OUT_LEN];
	unsigned int i;

	expect_aliases(_metadata, "neuron_core", all_ids, ARRAY_SIZE(all_ids), 0, 1);
	for (i = 0; i < ARRAY_SIZE(dhals); i++)
		expect_aliases(_metadata, dhals[i].mod, dhals[i].ids, dhals[i].n, 1, 0);

	modinfo_field(_metadata, "neuron_core", "softdep", out, sizeof(out));
	EXPECT_STREQ("post: neuron", out);
	modinfo_field(_metadata, "neuron", "softdep", out, sizeof(out));
	EXPECT_STREQ(NEURON_SOFTDEP, out);

	modinfo_field(_metadata, "neuron_dhal_v4", "depends", out, sizeof(out));
	EXPECT_FALSE(has_word(out, "neuron_dhal_v3")) TH_LOG("neuron_dhal_v4 depends on %s", out);

	modinfo_field(_metadata, "neuron", "version", out, sizeof(out));
	modinfo_field(_metadata, "neuron_core", "version", other, sizeof(other));
	EXPECT_NE(0, strlen(out));
	EXPECT_STREQ(other, out);

	/* Reading the files loaded nothing. */
	EXPECT_EQ(0, neuron_mods(out, sizeof(out))) TH_LOG("loaded: %s", out);
}

/*
 * The modalias of each Neuron PCI function (what udev runs modprobe with)
 * resolves to neuron_core and the function's DHAL module, no other DHAL,
 * and modprobe --show-depends names both files; an unknown device id of
 * the vendor resolves to none of the driver's modules.
 */
TEST_F_TIMEOUT(mods, pci_modalias_resolves_to_core_and_dhal, 300)
{
	char out[OUT_LEN], alias[96], ko[64];
	const struct dhal_ids *d;
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(all_ids); i++) {
		d = dhal_of(all_ids[i]);
		ASSERT_NE(NULL, d);
		pci_modalias(alias, sizeof(alias), all_ids[i]);

		EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -R %s 2>&1", alias))
			TH_LOG("modprobe -R %s: %s", alias, out);
		EXPECT_TRUE(has_word(out, "neuron_core")) TH_LOG("%s resolves to: %s", alias, out);
		for (k = 0; k < ARRAY_SIZE(dhals); k++) {
			EXPECT_EQ(&dhals[k] == d, has_word(out, dhals[k].mod))
				TH_LOG("%s resolves to: %s", alias, out);
		}

		EXPECT_EQ(0, capture(out, sizeof(out), "modprobe --show-depends %s 2>&1", alias))
			TH_LOG("modprobe --show-depends %s: %s", alias, out);
		snprintf(ko, sizeof(ko), "/neuron_core.ko");
		EXPECT_NE(NULL, strstr(out, ko)) TH_LOG("%s: %s", alias, out);
		snprintf(ko, sizeof(ko), "/%s.ko", d->mod);
		EXPECT_NE(NULL, strstr(out, ko)) TH_LOG("%s: %s", alias, out);
	}

	pci_modalias(alias, sizeof(alias), 0x7999);
	EXPECT_NE(0, capture(out, sizeof(out), "modprobe -R %s 2>&1", alias))
		TH_LOG("modprobe -R %s: %s", alias, out);
	for (i = 0; i < NALL; i++)
		EXPECT_FALSE(has_word(out, all_mods[i])) TH_LOG("%s resolves to: %s", alias, out);

	/* None of it loaded anything. */
	EXPECT_EQ(0, neuron_mods(out, sizeof(out))) TH_LOG("loaded: %s", out);
}

/* ---- Loading and unloading the whole driver ------------------------------ */

/*
 * A modprobe of any one module of the driver, of neuron_sim, or of a
 * Neuron PCI function's modalias loads every module of the driver (and
 * neuron_sim only when asked for), with /sys/module/neuron/version equal
 * to neuron_core's; modprobe -r neuron_sim, then modprobe -r neuron,
 * unloads it all.
 */
TEST_F_TIMEOUT(mods, any_modprobe_loads_the_whole_driver, 900)
{
	/*
	 * make check: every other module, the simulator and the modalias
	 * (a load and unload is several seconds in the debug VM); make stress
	 * (NEURON_MODULES_EVERY=1): every one.
	 */
	unsigned long long every = nt_env_num("NEURON_MODULES_EVERY", 2);
	char alias[96], out[OUT_LEN];
	const char *what;
	unsigned int i;
	int sim;

	pci_modalias(alias, sizeof(alias), 0x7364);
	ksft_print_msg("NEURON_MODULES_EVERY=%llu\n", every);
	for (i = 0; i <= NALL; i++) {
		what = i < NALL ? all_mods[i] : alias;
		if (every > 1 && i % every && i < NALL && strcmp(what, "neuron_sim"))
			continue;
		ASSERT_EQ(0, neuron_mods(out, sizeof(out)))
			TH_LOG("before modprobe %s: %s", what, out);
		ASSERT_EQ(0, capture(out, sizeof(out), "modprobe %s 2>&1", what))
			TH_LOG("modprobe %s: %s", what, out);
		expect_driver(_metadata, what);
		sim = !strcmp(what, "neuron_sim");
		EXPECT_EQ(sim, nt_module_loaded("neuron_sim")) TH_LOG("after modprobe %s", what);
		expect_version(_metadata, what);
		/* Loaded together, but neither DHAL depends on the other. */
		EXPECT_FALSE(nt_exists("/sys/module/neuron_dhal_v3/holders/neuron_dhal_v4"));

		if (sim) {
			EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_sim 2>&1"))
				TH_LOG("modprobe -r neuron_sim: %s", out);
		}
		EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron 2>&1"))
			TH_LOG("after modprobe %s, modprobe -r neuron: %s", what, out);
		EXPECT_EQ(0, neuron_mods(out, sizeof(out)))
			TH_LOG("after modprobe %s, modprobe -r neuron leaves %s", what, out);
		ASSERT_EQ(0, unload_everything(out, sizeof(out))) TH_LOG("cannot unload %s", out);
	}
}

/*
 * neuron_core with nothing left but neuron, which it names as a soft
 * dependency and which holds no reference on it (the DHALs and planes were
 * removed with rmmod: modprobe -r of the last of them would take
 * neuron_core along, as a dependency nothing uses any more): modprobe -r
 * neuron_core succeeds, takes neuron along and leaves nothing loaded.
 */
TEST_F_TIMEOUT(mods, core_unload_with_only_neuron_left, 300)
{
	static const char * const planes[] = {
		"neuron_telemetry", "neuron_udma", "neuron_dhal_v4", "neuron_dhal_v3",
		"neuron_dhal_v2",
	};
	char out[OUT_LEN], holders[256];
	unsigned int i;

	ASSERT_EQ(0, capture(out, sizeof(out), "modprobe neuron_core 2>&1")) TH_LOG("%s", out);
	ASSERT_EQ(0, expect_driver(_metadata, "neuron_core"));
	for (i = 0; i < ARRAY_SIZE(planes); i++) {
		EXPECT_EQ(0, capture(out, sizeof(out), "rmmod %s 2>&1", planes[i]))
			TH_LOG("rmmod %s: %s", planes[i], out);
	}
	ASSERT_EQ(2, neuron_mods(out, sizeof(out))) TH_LOG("loaded: %s", out);
	ASSERT_EQ(1, nt_module_loaded("neuron_core"));
	ASSERT_EQ(1, nt_module_loaded("neuron"));
	EXPECT_EQ(0, mod_holders("neuron_core", holders, sizeof(holders)))
		TH_LOG("holders: %s", holders);
	EXPECT_EQ(0, mod_refcnt("neuron_core"));

	EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_core 2>&1"))
		TH_LOG("modprobe -r neuron_core: %s", out);
	EXPECT_EQ(0, neuron_mods(out, sizeof(out))) TH_LOG("left: %s", out);
}

/* ---- The DMA and telemetry planes ---------------------------------------- */

static long memset64(int fd, __u64 h, __u64 off, __u32 value, __u64 size)
{
	struct neuron_ioctl_memset64 a = {
		.mem_handle = h, .offset = off, .value = value, .size = size,
	};

	return xioctl(fd, NEURON_IOCTL_MEMSET64, &a);
}

/* modprobe -r neuron_udma, device @index present: it goes, and the device stays ready. */
static void unload_udma(struct __test_metadata *_metadata, int index, int cycle)
{
	char out[OUT_LEN], buf[64];
	int refcnt = mod_refcnt("neuron_udma");

	ASSERT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_udma 2>&1"))
		TH_LOG("cycle %d: modprobe -r neuron_udma (refcnt %d): %s", cycle, refcnt, out);
	EXPECT_EQ(0, nt_module_loaded("neuron_udma")) TH_LOG("cycle %d", cycle);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state", index));
	EXPECT_STREQ("ready", buf) TH_LOG("cycle %d: the device after the unload", cycle);
	EXPECT_TRUE(nt_exists("/dev/neuron%d", index));
}

/*
 * neuron_udma goes with a v3 device present, its files open and a chunk
 * mapped; the next DMA command loads it again and works: the device's
 * first DMA ever (a read), then a write, then a fill.  The mapping, which
 * involves no DMA, shows what each did.
 */
TEST_F_TIMEOUT(mods, udma_unload_with_device_open, 300)
{
	const size_t size = 128 * 1024, len = 64 * 1024 + 5, off = 3;
	unsigned char *want = malloc(size), *got = malloc(size), *m;
	int index, fd, cycle;
	__u64 h, pa;

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	index = sim_ready(_metadata, 3, "v3");
	self->fd[0] = open_node(index, O_RDWR);
	ASSERT_LE(0, self->fd[0]);
	fd = self->fd[0];
	/* The free-access lane, open throughout as well. */
	self->fd[1] = open_node(index, O_WRONLY);
	ASSERT_LE(0, self->fd[1]);
	ASSERT_EQ(0, alloc_dev(fd, size, 0, &h));
	ASSERT_EQ(0, get_pa(fd, h, &pa));
	m = map(&self->undo, fd, pa, size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m);
	/* Contents put there without DMA. */
	rnd_seed();
	rnd_fill(want, size);
	memcpy(m, want, size);
	__sync_synchronize();

	for (cycle = 0; cycle < 3; cycle++) {
		unload_udma(_metadata, index, cycle);
		EXPECT_EQ(0, memcmp(m, want, size))
			TH_LOG("cycle %d: memory after the unload", cycle);
		switch (cycle) {
		case 0:
			memset(got, 0, len);
			EXPECT_EQ(0, buf_copy(fd, 1, h, got, len, off, 0)) TH_LOG("the first read");
			EXPECT_EQ(0, memcmp(got, want + off, len)) TH_LOG("the first read");
			break;
		case 1:
			rnd_fill(want + off, len);
			EXPECT_EQ(0, buf_copy(fd, 1, h, want + off, len, off, 1)) TH_LOG("a write");
			break;
		default:
			EXPECT_EQ(0, memset64(fd, h, off, 0x1c3, len)) TH_LOG("MEMSET64");
			memset(want + off, 0xc3, len);
			break;
		}
		EXPECT_EQ(1, nt_module_loaded("neuron_udma"))
			TH_LOG("cycle %d: the DMA command did not load neuron_udma", cycle);
		EXPECT_EQ(0, memcmp(m, want, size)) TH_LOG("cycle %d: mapped", cycle);
		memset(got, 0, size);
		EXPECT_EQ(0, buf_copy(fd, 1, h, got, size, 0, 0)) TH_LOG("cycle %d", cycle);
		EXPECT_EQ(0, memcmp(got, want, size)) TH_LOG("cycle %d: read back", cycle);
	}
	EXPECT_EQ(0, unmap(&self->undo, m, size));
	EXPECT_EQ(0, mem_free(fd, h));
	free(want);
	free(got);
}

/*
 * neuron_telemetry goes with devices present and open: each device's
 * debugfs telemetry file goes with it, the devices carry on; loaded again,
 * it puts the file back on every device, also on one that appeared in
 * between.  A device that goes takes its file along.
 */
TEST_F_TIMEOUT(mods, telemetry_unload_with_devices, 300)
{
	static const char * const gen[] = { "v2", "v3", "v4", "v3" };
	char out[OUT_LEN], buf[64];
	int index[4], n = 3, k, cycle;
	__u64 h;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	EXPECT_EQ(1, nt_module_loaded("neuron_telemetry"));
	for (k = 0; k < n; k++)
		index[k] = sim_ready(_metadata, k, gen[k]);
	for (k = 0; k < n; k++) {
		EXPECT_TRUE(telemetry_within(index[k], 1, FOLLOW_MS))
			TH_LOG("neuron%d (%s) has no telemetry file", index[k], gen[k]);
		self->fd[k] = open_node(index[k], O_RDONLY);
		ASSERT_LE(0, self->fd[k]);
	}

	for (cycle = 0; cycle < 2; cycle++) {
		ASSERT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_telemetry 2>&1"))
			TH_LOG("cycle %d: modprobe -r neuron_telemetry (refcnt %d): %s", cycle,
			       mod_refcnt("neuron_telemetry"), out);
		EXPECT_EQ(0, nt_module_loaded("neuron_telemetry"));
		for (k = 0; k < n; k++) {
			EXPECT_FALSE(nt_exists(TELEMETRY, index[k]))
				TH_LOG("cycle %d: neuron%d's telemetry file outlived the module",
				       cycle, index[k]);
			/* The device carries on. */
			EXPECT_TRUE(nt_exists(MEM_COUNTERS, index[k]));
			ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state",
					     index[k]));
			EXPECT_STREQ("ready", buf) TH_LOG("cycle %d: neuron%d", cycle, index[k]);
			if (self->fd[k] < 0)
				continue;
			EXPECT_EQ(0, alloc_dev(self->fd[k], 4096, 0, &h))
				TH_LOG("cycle %d: neuron%d", cycle, index[k]);
			EXPECT_EQ(0, mem_free(self->fd[k], h));
		}
		if (cycle == 1) {
			/* A device that appears while the module is away. */
			index[n] = sim_ready(_metadata, n, gen[n]);
			n++;
		}
		ASSERT_EQ(0, capture(out, sizeof(out), "modprobe neuron_telemetry 2>&1"))
			TH_LOG("cycle %d: modprobe neuron_telemetry: %s", cycle, out);
		for (k = 0; k < n; k++) {
			EXPECT_TRUE(telemetry_within(index[k], 1, FOLLOW_MS))
				TH_LOG("cycle %d: neuron%d has no telemetry file after modprobe",
				       cycle, index[k]);
		}
	}

	ASSERT_EQ(0, nt_sim_del(1));
	EXPECT_TRUE(telemetry_within(index[1], 0, FOLLOW_MS))
		TH_LOG("neuron%d's telemetry file outlived the device", index[1]);
	for (k = 0; k < n; k++) {
		if (k != 1)
			EXPECT_TRUE(nt_exists(TELEMETRY, index[k])) TH_LOG("neuron%d", index[k]);
	}
}

/* ---- A DHAL unloaded with its devices in use ----------------------------- */

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/*
 * Whether reading @p raises SIGBUS (in this process: chunk mappings are
 * not inherited across fork()); -1 when the byte read is not the 0x5a
 * written through the mapping.
 */
static int read_gets_sigbus(const unsigned char *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int ret;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old))
		return -1;
	if (sigsetjmp(bus_jmp, 1))
		ret = 1;
	else
		ret = __atomic_load_n(p, __ATOMIC_RELAXED) == 0x5a ? 0 : -1;
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

/*
 * modprobe -r neuron_dhal_v3 with a v3 device open and mapped, and a v4
 * device next to it: the v3 device is torn down (its files get ENODEV, its
 * mapping SIGBUS) and waits for its DHAL; the v4 device keeps working,
 * DMA round trips included.  Loading the DHAL again brings the v3 device
 * back.
 */
TEST_F_TIMEOUT(mods, dhal_unload_with_devices_in_use, 300)
{
	const size_t size = 64 * 1024;
	unsigned char *want = malloc(size), *got = malloc(size), *m;
	char out[OUT_LEN], buf[64];
	int v3, v4, fd3, fd4, fd;
	__u64 h3, h4, pa;

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	v3 = sim_ready(_metadata, 1, "v3");
	v4 = sim_ready(_metadata, 2, "v4");
	fd3 = open_node(v3, O_RDWR);
	self->fd[0] = fd3;
	fd4 = open_node(v4, O_RDWR);
	self->fd[1] = fd4;
	ASSERT_LE(0, fd3);
	ASSERT_LE(0, fd4);
	ASSERT_EQ(0, alloc_dev(fd3, size, 0, &h3));
	ASSERT_EQ(0, get_pa(fd3, h3, &pa));
	m = map(&self->undo, fd3, pa, size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 0x5a, size);
	EXPECT_EQ(0, read_gets_sigbus(m));
	ASSERT_EQ(0, alloc_dev(fd4, size, 0, &h4));
	rnd_seed();
	rnd_fill(want, size);
	ASSERT_EQ(0, buf_copy(fd4, 1, h4, want, size, 0, 1));

	ASSERT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_dhal_v3 2>&1"))
		TH_LOG("modprobe -r neuron_dhal_v3: %s", out);
	EXPECT_EQ(0, nt_module_loaded("neuron_dhal_v3"));

	/* The v3 device: its files are dead, its mapping gone, its node too. */
	EXPECT_EQ(-ENODEV, alloc_dev(fd3, 4096, 0, &h3));
	EXPECT_EQ(1, read_gets_sigbus(m)) TH_LOG("the v3 mapping outlived its DHAL");
	EXPECT_FALSE(nt_exists("/dev/neuron%d", v3));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim1/state"));
	EXPECT_STREQ("waiting-for-dhal", buf);

	/* The v4 device carries on. */
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state", v4));
	EXPECT_STREQ("ready", buf);
	memset(got, 0, size);
	EXPECT_EQ(0, buf_copy(fd4, 1, h4, got, size, 0, 0));
	EXPECT_EQ(0, memcmp(got, want, size));
	rnd_fill(want, size);
	EXPECT_EQ(0, buf_copy(fd4, 1, h4, want, size, 0, 1));
	memset(got, 0, size);
	EXPECT_EQ(0, buf_copy(fd4, 1, h4, got, size, 0, 0));
	EXPECT_EQ(0, memcmp(got, want, size));

	/* Back with its DHAL: a new open works; the old file stays dead. */
	ASSERT_EQ(0, capture(out, sizeof(out), "modprobe neuron_dhal_v3 2>&1"))
		TH_LOG("modprobe neuron_dhal_v3: %s", out);
	ASSERT_STREQ("ready", nt_sim_settle(1, buf, sizeof(buf), SETTLE_MS));
	EXPECT_EQ(v3, sim_index(1));
	fd = open_node(v3, O_RDWR);
	self->fd[2] = fd;
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, alloc_dev(fd, 4096, 0, &h3));
	EXPECT_EQ(-ENODEV, alloc_dev(fd3, 4096, 0, &h3));
	EXPECT_EQ(0, unmap(&self->undo, m, size));
	free(want);
	free(got);
}

/* ---- Unloading neuron_udma under a stream of copies ---------------------- */

#define STREAM_LEN	(128 * 1024 + 5)
#define STREAM_OFF	3
#define STREAM_ROUNDS	3
/* Successful copies before the first unload, and after the last one. */
#define STREAM_WARMUP	10
#define STREAM_AFTER	20
#define STREAM_MAX_MS	100000
#define STREAM_NERRS	8

/* What a copying child saw, sent to the parent when it ends. */
struct stream_report {
	__s64 iters;	/* rounds started: a write, then its read-back */
	__s64 ok;	/* both worked and the data was right */
	__s64 wrong;	/* both worked and the data was not right */
	__s64 failed;	/* a copy failed while an unload might be running */
	__s64 late;	/* a copy failed that started after modprobe -r returned */
	__s64 err[STREAM_NERRS][2];	/* a failed copy's return value, and how often */
};

static void stream_note(struct stream_report *r, long ret)
{
	int i;

	for (i = 0; i < STREAM_NERRS; i++) {
		if (r->err[i][1] && r->err[i][0] != ret)
			continue;
		r->err[i][0] = ret;
		r->err[i][1]++;
		return;
	}
}

/*
 * A child: copy a new pattern to a chunk of device @index, read it back and
 * compare, without pause, until told to end.  The parent says 'u' before
 * an unload (answered 'U': copies may fail from then on), 'd' once the
 * unload has returned (copies must work again; answered 'D' after the
 * next round, which a failure counts as late) and 'e' to end (after
 * STREAM_AFTER more rounds).  'R' tells the parent that STREAM_WARMUP
 * rounds worked.  The report goes up @up at the end; the exit status is
 * the failure count.
 */
static int copy_stream(int who, int index, int up, int down)
{
	unsigned char *buf = malloc(STREAM_LEN), *back = malloc(STREAM_LEN);
	int fd = open_node(index, O_RDWR), fails = 0, strict = 1, ack = 0, end = -1;
	struct stream_report r;
	long t0 = nt_now_ms(), ret;
	__u64 h = 0, i;
	char c;

	memset(&r, 0, sizeof(r));
	CHILD_CHECK(buf && back && fd >= 0);
	if (!fails)
		CHILD_CHECK(alloc_dev(fd, 2 * STREAM_LEN, 0, &h) == 0);
	CHILD_CHECK(fcntl(down, F_SETFL, O_NONBLOCK) == 0);
	if (fails)
		return 100;
	for (i = 0; end != 0; i++) {
		while (read(down, &c, 1) == 1) {
			if (c == 'u') {
				strict = 0;
				CHILD_CHECK(write(up, "U", 1) == 1);
			} else if (c == 'd') {
				strict = 1;
				ack = 1;
			} else if (c == 'e') {
				end = STREAM_AFTER;
			}
		}
		if (nt_now_ms() - t0 > STREAM_MAX_MS) {
			fprintf(stderr, "# child %d: still copying after %d ms\n", who,
				STREAM_MAX_MS);
			fails++;
			break;
		}
		rng_state = (((__u64)who << 56) ^ ((i + 1) * 0x9e3779b97f4a7c15ULL)) | 1;
		rnd_fill(buf, STREAM_LEN);
		r.iters++;
		ret = buf_copy(fd, 1, h, buf, STREAM_LEN, STREAM_OFF, 1);
		if (!ret) {
			memset(back, 0, STREAM_LEN);
			ret = buf_copy(fd, 1, h, back, STREAM_LEN, STREAM_OFF, 0);
		}
		if (ret) {
			stream_note(&r, ret);
			if (strict) {
				r.late++;
				fails++;
				fprintf(stderr, "# child %d (neuron%d), round %llu: %ld (%s)\n",
					who, index, (unsigned long long)i, ret,
					ack ? "after modprobe -r" : "no unload running");
			} else {
				r.failed++;
			}
		} else if (memcmp(buf, back, STREAM_LEN)) {
			r.wrong++;
			fails++;
			fprintf(stderr, "# child %d (neuron%d), round %llu: read back wrong data\n",
				who, index, (unsigned long long)i);
		} else {
			r.ok++;
			if (r.ok == STREAM_WARMUP)
				CHILD_CHECK(write(up, "R", 1) == 1);
		}
		if (ack) {
			ack = 0;
			CHILD_CHECK(write(up, "D", 1) == 1);
		}
		if (end > 0)
			end--;
	}
	CHILD_CHECK(write(up, &r, sizeof(r)) == sizeof(r));
	mem_free(fd, h);
	close(fd);
	return child_status(fails);
}

/*
 * Fork a child that runs @fn(@who, @index, its end of @up, its end of @down)
 * and exits with what it returns; this process keeps @up's read end and
 * @down's write end.  The child's pid.
 */
static pid_t spawn_talking(struct __test_metadata *_metadata, struct undo *u,
			   int (*fn)(int who, int index, int up, int down), int who, int index,
			   int up[2], int down[2])
{
	pid_t pid;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = spawn(_metadata, u);
	if (!pid) {
		close(up[0]);
		close(down[1]);
		_exit(fn(who, index, up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	return pid;
}

/* The generation of copying child @k's device. */
static const char *stream_gen(int k)
{
	return k ? "v4" : "v3";
}

/* One byte from @fd within @ms: the byte, or -1. */
static int answer(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char c;

	if (poll(&p, 1, ms) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return c;
}

/* @n bytes from @fd within @ms each; 0 or -1. */
static int answer_n(int fd, void *to, size_t n, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		if (poll(&p, 1, ms) != 1)
			return -1;
		r = read(fd, (char *)to + got, n - got);
		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

/*
 * Two processes copy to and from a v3 and a v4 device without pause while
 * neuron_udma is unloaded, three times: a copy then either works, with the
 * right data, or fails with an errno (counted, and logged); once modprobe
 * -r has returned, every copy works again, having loaded neuron_udma
 * again.  No copy ever returns wrong data.
 */
TEST_F_TIMEOUT(mods, udma_unload_during_copies, 300)
{
	int up[2][2], down[2][2], index[2], k, round, rc, refcnt, i;
	char out[OUT_LEN], list[256];
	struct stream_report rep;
	pid_t kid[2];
	long t;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	for (k = 0; k < 2; k++)
		index[k] = sim_ready(_metadata, 1 + k, stream_gen(k));
	for (k = 0; k < 2; k++)
		kid[k] = spawn_talking(_metadata, &self->undo, copy_stream, k, index[k], up[k],
				       down[k]);
	for (k = 0; k < 2; k++)
		ASSERT_EQ('R', answer(up[k][0], CHILD_MS)) TH_LOG("the %s child", stream_gen(k));

	for (round = 0; round < STREAM_ROUNDS; round++) {
		for (k = 0; k < 2; k++)
			ASSERT_EQ(1, write(down[k][1], "u", 1));
		for (k = 0; k < 2; k++)
			ASSERT_EQ('U', answer(up[k][0], CHILD_MS))
				TH_LOG("round %d: the %s child", round, stream_gen(k));
		usleep(round * 100000);
		refcnt = mod_refcnt("neuron_udma");
		t = nt_now_ms();
		rc = capture(out, sizeof(out), "modprobe -r neuron_udma 2>&1");
		t = nt_now_ms() - t;
		EXPECT_EQ(0, rc) TH_LOG("round %d: modprobe -r neuron_udma (refcnt %d before): %s",
					round, refcnt, out);
		TH_LOG("round %d: modprobe -r neuron_udma: %d after %ld ms", round, rc, t);
		for (k = 0; k < 2; k++)
			ASSERT_EQ(1, write(down[k][1], "d", 1));
		for (k = 0; k < 2; k++)
			ASSERT_EQ('D', answer(up[k][0], CHILD_MS))
				TH_LOG("round %d: the %s child", round, stream_gen(k));
		EXPECT_EQ(1, nt_module_loaded("neuron_udma"))
			TH_LOG("round %d: copies work, but neuron_udma is not loaded", round);
	}

	for (k = 0; k < 2; k++)
		ASSERT_EQ(1, write(down[k][1], "e", 1));
	for (k = 0; k < 2; k++) {
		memset(&rep, 0, sizeof(rep));
		EXPECT_EQ(0, answer_n(up[k][0], &rep, sizeof(rep), CHILD_MS))
			TH_LOG("no report from the %s child", stream_gen(k));
		list[0] = 0;
		for (i = 0; i < STREAM_NERRS && rep.err[i][1]; i++)
			add_word(list, sizeof(list), "%lld x%lld", (long long)rep.err[i][0],
				 (long long)rep.err[i][1]);
		TH_LOG("%s child: %lld rounds: %lld right, %lld wrong, %lld failed, %lld late",
		       stream_gen(k), (long long)rep.iters, (long long)rep.ok, (long long)rep.wrong,
		       (long long)rep.failed, (long long)rep.late);
		TH_LOG("%s child: failures (return value x count): %s", stream_gen(k),
		       list[0] ? list : "none");
		EXPECT_EQ(0, rep.wrong);
		EXPECT_EQ(0, rep.late);
		EXPECT_LE(STREAM_WARMUP + STREAM_AFTER, rep.ok);
		EXPECT_EQ(rep.iters, rep.ok + rep.wrong + rep.failed + rep.late);
		EXPECT_EQ(0, reap(&self->undo, kid[k])) TH_LOG("the %s child", stream_gen(k));
		close(up[k][0]);
		close(down[k][1]);
	}
}

/* ---- Unloading neuron_telemetry during a model run ----------------------- */

/* Reload cycles: a few by default, more with NEURON_STRESS=1. */
#define TEL_CYCLES		2
#define TEL_STRESS_CYCLES	20
#define TEL_DEV			"/sys/class/neuron_device/neuron%d"
/* The metrics posting period of the reloaded module, in ms (its minimum). */
#define TEL_POST_MS		100
#define TEL_CONF		"/etc/modprobe.d/neuron-test.conf"
#define TEL_PERIOD	"/sys/module/neuron_telemetry/parameters/nmetric_metric_post_delay"
#define TEL_PG			4096ULL
/* The core and the datastore counter only the parent uses (v3: 8 cores). */
#define TEL_NC			7
#define TEL_DS_NC		1
/* Byte offset of NDS counter @id of core @nc (0-3) in a datastore. */
#define TEL_NDS_OFF(nc, id)	\
	(NDS_NEURONCORE_COUNTERS_START + ((nc) * NDS_NEURONCORE_COUNTERS_COUNT + (id)) * 8)
#define TEL_NDS_SUCCESS		NDS_NC_COUNTER_INFER_COMPLETED
#define TEL_KIDS		3

/* Pause after each round of the worker, the reader and the commands. */
static const unsigned int tel_pace_us[TEL_KIDS] = { 2000, 50000, 10000 };

static long alloc_typed(int fd, int host, __u32 nc, __u32 type, __u64 size, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type a = {
		.size = size, .host_memory = host, .nc_id = nc, .mem_type = type,
		.mem_handle = h,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2MT, &a);
}

/* A counter file of device @index's tree ("%llu\n"), or -1. */
static long long tel_counter(int index, const char *rel)
{
	char buf[64], *end;
	long long v;

	if (nt_read(buf, sizeof(buf), TEL_DEV "/%s", index, rel))
		return -1;
	v = strtoll(buf, &end, 10);
	return end != buf ? v : -1;
}

/*
 * Acquire this process's datastore on @fd, add @n to NDS counter @id of
 * core @nc and release it: its counters go to the core's statistics.
 */
static int ds_add(int fd, unsigned int nc, unsigned int id, __u64 n)
{
	unsigned char *ds;
	__u64 off;

	if (ds_acquire(fd, 0, &off))
		return -1;
	ds = mmap(NULL, DS_SIZE, RW, MAP_SHARED, fd, (off_t)off);
	if (ds == MAP_FAILED)
		return -1;
	*(__u64 *)(ds + TEL_NDS_OFF(nc, id)) += n;
	munmap(ds, DS_SIZE);
	return ds_release(fd, 0) ? -1 : 0;
}

/* What a child of the model run did, sent to the parent at the end. */
struct tel_report {
	__s64 rounds;	/* rounds that worked */
	__s64 failed;	/* rounds with an error that may be the unload's */
	__s64 files;	/* sysfs files read (the reader) */
	__s64 gone;	/* files or directories gone (the reader) */
};

/*
 * Read one file of the tree: it either reads as text ending in a newline,
 * or is gone (ENOENT, ENODEV: the plane took it away).  1 read, 0 gone, -1
 * anything else.
 */
static int tel_read_one(const char *path)
{
	char buf[1024];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : -1;
	return n > 0 && buf[n - 1] == '\n' ? 1 : -1;
}

/* Read every file under @dir, recursively; count in @r; failures returned. */
static int tel_walk(const char *dir, struct tel_report *r)
{
	char path[512];
	struct dirent *e;
	int fails = 0, ret;
	DIR *d = opendir(dir);

	if (!d) {
		r->gone++;
		return errno == ENOENT || errno == ENODEV ? 0 : 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			fails += tel_walk(path, r);
			continue;
		}
		ret = tel_read_one(path);
		if (ret < 0) {
			fprintf(stderr, "# reader: %s: bad read (errno %d)\n", path, errno);
			fails++;
		} else {
			r->files += ret;
			r->gone += !ret;
		}
	}
	closedir(d);
	return fails;
}

/* Whether parent's pipe @down said 'e' (end); other bytes are acknowledged on @up. */
static int tel_told_to_end(int down)
{
	char c;

	while (read(down, &c, 1) == 1)
		if (c == 'e')
			return 1;
	return 0;
}

/*
 * Child @who of the model run on device @index until told to end:
 *   0: allocations of device and host chunks of several types, a copy to
 *      and from one, and a datastore whose counters are released, without
 *      pause: every round must work (the plane does not take part);
 *   1: a monitor reading the device's statistics tree (stats/, info/,
 *      neuron_core<k>/): files may be gone, never wrong or failing otherwise;
 *   2: the telemetry commands (POST_METRIC, READ of no register, the
 *      metrics mode): they may fail while the plane goes, and load it
 *      again (request_module) when it is not there.
 * 'R' goes up once a few rounds worked; the report at the end; the exit
 * status is the failure count.
 */
static int tel_child(int who, int index, int up, int down)
{
	static const __u32 types[] = {
		NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, NEURON_MEMALLOC_TYPE_CODE_DEVICE,
		NEURON_MEMALLOC_TYPE_CONSTANTS_DEVICE,
	};
	const size_t len = 16 * 1024 + 3;
	unsigned char *buf = malloc(len), *back = malloc(len);
	int fd = open_node(index, O_RDWR), fails = 0, said = 0;
	struct tel_report r;
	char dir[96], path[160];
	__u64 h, hh, i;
	__u32 blob[4] = { 0x01020304, 5, 6, 7 };

	memset(&r, 0, sizeof(r));
	CHILD_CHECK(buf && back && fd >= 0);
	CHILD_CHECK(fcntl(down, F_SETFL, O_NONBLOCK) == 0);
	if (fails)
		return 100;
	snprintf(dir, sizeof(dir), TEL_DEV, index);
	for (i = 0; !tel_told_to_end(down); i++) {
		int bad = 0;

		if (who == 0) {
			rng_state = ((i + 1) * 0x9e3779b97f4a7c15ULL) | 1;
			rnd_fill(buf, len);
			h = 0;
			hh = 0;
			bad |= !!alloc_typed(fd, 0, i % 4, types[i % ARRAY_SIZE(types)],
					     2 * len, &h);
			bad |= !!alloc_typed(fd, 1, 0, NEURON_MEMALLOC_TYPE_TENSORS_HOST, TEL_PG,
					     &hh);
			if (!bad) {
				bad |= !!buf_copy(fd, 1, h, buf, len, 5, 1);
				memset(back, 0, len);
				bad |= !!buf_copy(fd, 1, h, back, len, 5, 0);
				if (!bad && memcmp(buf, back, len)) {
					fprintf(stderr, "# worker: round %llu: wrong data\n",
						(unsigned long long)i);
					fails++;
				}
			}
			if (h)
				bad |= !!mem_free(fd, h);
			if (hh)
				bad |= !!mem_free(fd, hh);
			/* Core 0's success counter; the parent's is another core's. */
			bad |= !!ds_add(fd, 0, TEL_NDS_SUCCESS, 1);
			if (bad) {
				fprintf(stderr, "# worker: round %llu failed\n",
					(unsigned long long)i);
				fails++;
			}
		} else if (who == 1) {
			static const char * const tops[] = {
				"stats", "info", "neuron_core0", "neuron_core7",
			};
			unsigned int k;

			for (k = 0; k < ARRAY_SIZE(tops); k++) {
				snprintf(path, sizeof(path), "%s/%s", dir, tops[k]);
				bad += tel_walk(path, &r);
			}
			fails += bad;
		} else {
			struct neuron_ioctl_post_metric pm = {
				.data = blob, .data_size = sizeof(blob),
			};
			struct neuron_ioctl_metrics_ctrl mc = {
				.mode = NEURON_METRICS_MODE_PERIODIC_ENABLE,
			};

			bad |= !!xioctl(fd, NEURON_IOCTL_POST_METRIC, &pm);
			bad |= !!xioctl(fd, NEURON_IOCTL_METRICS_CTRL, &mc);
			/* Commands of an unloading plane may fail: counted, not failures. */
		}
		if (bad)
			r.failed++;
		else
			r.rounds++;
		/* A steady load that leaves modprobe (2 CPUs, TCG) some room. */
		usleep(tel_pace_us[who]);
		if (!said && r.rounds >= 3) {
			said = 1;
			CHILD_CHECK(write(up, "R", 1) == 1);
		}
	}
	CHILD_CHECK(write(up, &r, sizeof(r)) == sizeof(r));
	close(fd);
	free(buf);
	free(back);
	return child_status(fails);
}

/* What model-run child @k does. */
static const char *tel_kid_name(int k)
{
	return k == 0 ? "worker" : k == 1 ? "reader" : "commands";
}

/*
 * Device @index's tree is there (1) or gone (0): the plane's files only;
 * the core's own attributes stay.
 */
static void expect_tree(struct __test_metadata *_metadata, int index, int there, int cycle)
{
	static const char * const plane_files[] = {
		"info/notify_delay", "stats/memory_usage/host_mem/tensors/total",
		"stats/hardware/mem_ecc_uncorrected", "stats/power/utilization",
		"neuron_core7/stats/memory_usage/device_mem/collectives/total",
		"neuron_core0/stats/other_info/reset_req_count/total",
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(plane_files); k++) {
		const char *f = plane_files[k] ?: "?";

		EXPECT_EQ(there, nt_exists(TEL_DEV "/%s", index, f))
			TH_LOG("cycle %d: %s %s", cycle, f, there ? "missing" : "still there");
	}
	EXPECT_TRUE(nt_exists(TEL_DEV "/info/serial_number", index)) TH_LOG("cycle %d", cycle);
	EXPECT_TRUE(nt_exists(TEL_DEV "/core_count", index)) TH_LOG("cycle %d", cycle);
}

/* The parent's counters: core TEL_NC's collectives bytes, core TEL_DS_NC's successes. */
struct tel_counts {
	long long coll, success;
};

static void tel_counts(int index, struct tel_counts *c)
{
	char rel[128];

	snprintf(rel, sizeof(rel),
		 "neuron_core%d/stats/memory_usage/device_mem/collectives/total", TEL_NC);
	c->coll = tel_counter(index, rel);
	snprintf(rel, sizeof(rel), "neuron_core%d/stats/status/success/total", TEL_DS_NC);
	c->success = tel_counter(index, rel);
}

/* Wait up to @ms until device @index's tree is back; whether it is. */
static int tree_within(int index, long ms)
{
	long end = nt_now_ms() + ms;

	while (!nt_exists(TEL_DEV "/neuron_core%d/stats/status/success/total", index, TEL_NC)) {
		if (nt_now_ms() > end)
			return 0;
		usleep(20000);
	}
	return 1;
}

/*
 * A model run on a v3 device (a worker allocating, copying and releasing
 * datastores; a monitor reading the statistics tree; a process issuing
 * the telemetry commands; the metrics thread posting every TEL_POST_MS)
 * while neuron_telemetry is unloaded and loaded again, TEL_CYCLES times
 * (TEL_STRESS_CYCLES with NEURON_STRESS=1).  In even cycles the commands
 * stop first, so the plane stays away: its tree goes (the core's
 * attributes stay), allocations and a datastore release of this process
 * made meanwhile count, and the reloaded tree shows them on top of what
 * it showed before.  In odd cycles the commands carry on and may load the
 * plane again themselves.  The worker never fails; the monitor only sees
 * files go.  Then, with the plane loaded: neuron_core cannot go (its
 * users hold it); neuron_dhal_v3 can, taking the device and its tree
 * along, and loaded again brings both back, the counters starting over.
 */
TEST_F_TIMEOUT(mods, telemetry_reload_during_model_run, 300)
{
	int up[TEL_KIDS][2], down[TEL_KIDS][2], index, k, cycle, cycles, fd, rc, st;
	struct tel_counts before, after;
	char out[OUT_LEN], buf[64];
	struct tel_report rep;
	__u64 h[TEL_STRESS_CYCLES + 1];
	pid_t kid[TEL_KIDS];
	long t;

	cycles = nt_env_num("NEURON_STRESS", 0) ? TEL_STRESS_CYCLES : TEL_CYCLES;
	ASSERT_EQ(0, nt_sh("mkdir -p /etc/modprobe.d && echo '%s=%d' >" TEL_CONF,
			   "options neuron_telemetry nmetric_metric_post_delay", TEL_POST_MS));
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(1, nt_module_loaded("neuron_telemetry"));
	index = sim_ready(_metadata, 1, "v3");
	ASSERT_TRUE(tree_within(index, FOLLOW_MS));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), "%s", TEL_PERIOD));
	EXPECT_EQ(TEL_POST_MS, atoi(buf));
	fd = open_node(index, O_RDWR);
	self->fd[0] = fd;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, alloc_typed(fd, 0, TEL_NC, NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE,
				 TEL_PG, &h[0]));

	for (k = 0; k < TEL_KIDS; k++)
		kid[k] = spawn_talking(_metadata, &self->undo, tel_child, k, index, up[k],
				       down[k]);
	for (k = 0; k < TEL_KIDS; k++)
		ASSERT_EQ('R', answer(up[k][0], CHILD_MS)) TH_LOG("the %s", tel_kid_name(k));

	for (cycle = 0; cycle < cycles; cycle++) {
		int quiet = !(cycle & 1);

		if (quiet) {
			/*
			 * The commands pause, between two of them (a stop waits
			 * for the system call): nothing loads the plane behind
			 * the test's back.
			 */
			ASSERT_EQ(0, kill(kid[2], SIGSTOP));
			ASSERT_EQ(kid[2], waitpid(kid[2], &st, WUNTRACED));
			ASSERT_TRUE(WIFSTOPPED(st));
		}
		tel_counts(index, &before);
		EXPECT_LE((long long)TEL_PG * (cycle / 2 + 1), before.coll)
			TH_LOG("cycle %d", cycle);
		EXPECT_LE(0, before.success) TH_LOG("cycle %d", cycle);
		t = nt_now_ms();
		rc = capture(out, sizeof(out), "modprobe -r neuron_telemetry 2>&1");
		t = nt_now_ms() - t;
		EXPECT_EQ(0, rc) TH_LOG("cycle %d: modprobe -r neuron_telemetry (refcnt %d): %s",
					cycle, mod_refcnt("neuron_telemetry"), out);
		TH_LOG("cycle %d (%s): modprobe -r neuron_telemetry: %d after %ld ms", cycle,
		       quiet ? "commands stopped" : "commands running", rc, t);
		if (quiet) {
			EXPECT_EQ(0, nt_module_loaded("neuron_telemetry"))
				TH_LOG("cycle %d", cycle);
			expect_tree(_metadata, index, 0, cycle);
			/* The core counts on without the plane. */
			ASSERT_EQ(0, alloc_typed(fd, 0, TEL_NC,
						 NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE, TEL_PG,
						 &h[cycle / 2 + 1]));
			EXPECT_EQ(0, ds_add(fd, TEL_DS_NC, TEL_NDS_SUCCESS, cycle + 1));
			ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state", index));
			EXPECT_STREQ("ready", buf) TH_LOG("cycle %d", cycle);
			ASSERT_EQ(0, capture(out, sizeof(out), "modprobe neuron_telemetry 2>&1"))
				TH_LOG("cycle %d: modprobe neuron_telemetry: %s", cycle, out);
		} else {
			/* The next command may have loaded it already. */
			nt_sh("modprobe neuron_telemetry");
		}
		EXPECT_TRUE(tree_within(index, FOLLOW_MS)) TH_LOG("cycle %d: no tree", cycle);
		expect_tree(_metadata, index, 1, cycle);
		tel_counts(index, &after);
		if (quiet) {
			EXPECT_EQ(before.coll + (long long)TEL_PG, after.coll)
				TH_LOG("cycle %d: collectives bytes lost", cycle);
			EXPECT_EQ(before.success + cycle + 1, after.success)
				TH_LOG("cycle %d: a released datastore's counts lost", cycle);
			kill(kid[2], SIGCONT);
		} else {
			EXPECT_EQ(before.coll, after.coll) TH_LOG("cycle %d", cycle);
			EXPECT_EQ(before.success, after.success) TH_LOG("cycle %d", cycle);
		}
		ASSERT_EQ(0, nt_read(buf, sizeof(buf), "%s", TEL_PERIOD));
		EXPECT_EQ(TEL_POST_MS, atoi(buf)) TH_LOG("cycle %d", cycle);
	}

	for (k = 0; k < TEL_KIDS; k++)
		ASSERT_EQ(1, write(down[k][1], "e", 1));
	for (k = 0; k < TEL_KIDS; k++) {
		memset(&rep, 0, sizeof(rep));
		EXPECT_EQ(0, answer_n(up[k][0], &rep, sizeof(rep), CHILD_MS))
			TH_LOG("no report from the %s", tel_kid_name(k));
		TH_LOG("%s: %lld rounds worked, %lld failed; %lld files read, %lld gone",
		       tel_kid_name(k), (long long)rep.rounds, (long long)rep.failed,
		       (long long)rep.files, (long long)rep.gone);
		EXPECT_LT(0, rep.rounds) TH_LOG("the %s", tel_kid_name(k));
		if (k == 0)
			EXPECT_EQ(0, rep.failed) TH_LOG("the worker");
		EXPECT_EQ(0, reap(&self->undo, kid[k])) TH_LOG("the %s", tel_kid_name(k));
		close(up[k][0]);
		close(down[k][1]);
	}

	/* The core, with the plane loaded: refused while its users are there. */
	rc = capture(out, sizeof(out), "rmmod neuron_core 2>&1");
	EXPECT_NE(0, rc) TH_LOG("rmmod neuron_core with neuron_telemetry loaded: %s", out);
	EXPECT_EQ(1, nt_module_loaded("neuron_core"));
	EXPECT_EQ(1, nt_module_loaded("neuron_telemetry"));
	expect_tree(_metadata, index, 1, cycles);

	/* The DHAL, with the plane loaded: the device and its tree go, and come back. */
	ASSERT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_dhal_v3 2>&1"))
		TH_LOG("modprobe -r neuron_dhal_v3: %s", out);
	EXPECT_FALSE(nt_exists(TEL_DEV, index));
	EXPECT_EQ(-ENODEV, mem_free(fd, h[0]));
	EXPECT_EQ(1, nt_module_loaded("neuron_telemetry"));
	ASSERT_EQ(0, capture(out, sizeof(out), "modprobe neuron_dhal_v3 2>&1"))
		TH_LOG("modprobe neuron_dhal_v3: %s", out);
	ASSERT_STREQ("ready", nt_sim_settle(1, buf, sizeof(buf), SETTLE_MS));
	index = sim_index(1);
	EXPECT_TRUE(tree_within(index, FOLLOW_MS));
	expect_tree(_metadata, index, 1, cycles);
	tel_counts(index, &after);
	EXPECT_EQ(0, after.coll) TH_LOG("a new incarnation starts from 0");
	EXPECT_EQ(0, after.success) TH_LOG("a new incarnation starts from 0");
	unlink(TEL_CONF);
}

/* ---- Every load and unload order ----------------------------------------- */

#define ORDER_SEED	0x6e657572306e2121ULL
#define ORDER_ROUNDS	2
/* Stop short of the harness's time limit (4 h) with a message, not a kill. */
#define ORDER_BUDGET_MS	(4 * 3600 * 1000L - 60000)

/* @p becomes a random permutation of 0 .. @n - 1. */
static void shuffle(unsigned int *p, unsigned int n)
{
	unsigned int i, j, t;

	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rnd() % (i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

/*
 * modprobe -r @mod in round @round, and what came of it, in @log.  It may
 * fail only if another module held @mod (refcnt or holders) just before.
 * Its exit status, or -1 when @mod was gone already (nothing is run).
 */
static int unload_one(struct __test_metadata *_metadata, int round, const char *mod,
		      char *log, size_t len)
{
	char holders[256], out[OUT_LEN];
	int refcnt, nh, rc, still;

	if (nt_module_loaded(mod) != 1) {
		add_word(log, len, "-%s(gone)", mod);
		return -1;
	}
	refcnt = mod_refcnt(mod);
	nh = mod_holders(mod, holders, sizeof(holders));
	rc = capture(out, sizeof(out), "modprobe -r %s 2>&1", mod);
	still = nt_module_loaded(mod);
	if (!rc) {
		add_word(log, len, "-%s", mod);
		EXPECT_EQ(0, still)
			TH_LOG("round %d: modprobe -r %s succeeded, but it is loaded", round, mod);
		return 0;
	}
	if (still == 1)
		add_word(log, len, "-%s(busy:%d%s%s)", mod, refcnt, nh ? ":" : "", holders);
	else
		add_word(log, len, "-%s(exit %d, but gone)", mod, rc);
	EXPECT_TRUE(refcnt > 0 || nh > 0) {
		TH_LOG("round %d: modprobe -r %s: exit %d, refcnt %d, no holders; %s; it said: %s",
		       round, mod, rc, refcnt, still == 1 ? "still loaded" : "gone all the same",
		       out);
	}
	return rc;
}

/*
 * Modules left after modprobe -r neuron_sim when neuron was no longer
 * there to unload the rest: each goes with modprobe -r once nothing holds
 * it (no device is left to).  How many are left in the end, listed in
 * @left.
 */
static int drain(struct __test_metadata *_metadata, int round, char *left, size_t len)
{
	char names[512], holders[256], out[OUT_LEN], *tok, *save;
	int pass, progress = 1;

	for (pass = 0; pass < 8 && progress && neuron_mods(names, sizeof(names)) > 0; pass++) {
		progress = 0;
		for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			if (mod_refcnt(tok) != 0 || mod_holders(tok, holders, sizeof(holders)))
				continue;
			EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -r %s 2>&1", tok))
				TH_LOG("round %d: modprobe -r %s, free: %s", round, tok, out);
			progress = 1;
		}
	}
	return neuron_mods(left, len);
}

/*
 * One round: the modules loaded in a random order (each modprobe works and
 * leaves the whole driver loaded), a device of a random generation
 * created once neuron_sim is there, the modules unloaded in a random order
 * (see unload_one()), then modprobe -r neuron_sim and modprobe -r neuron
 * leave nothing loaded.
 */
static void order_round(struct __test_metadata *_metadata, int round)
{
	unsigned int load[NALL], unload[NALL], i;
	char log[1024] = "", left[512], out[OUT_LEN], buf[64];
	const char *mod, *gen;
	int index = -1, id, n, neuron_was;
	long t = nt_now_ms();

	ASSERT_EQ(0, neuron_mods(left, sizeof(left)))
		TH_LOG("round %d starts with %s loaded", round, left);
	shuffle(load, NALL);
	shuffle(unload, NALL);
	for (i = 0; i < NALL; i++)
		add_word(log, sizeof(log), "%s%s", i ? "" : "load:", all_mods[load[i]]);
	for (i = 0; i < NALL; i++)
		add_word(log, sizeof(log), "%s%s", i ? "" : "unload:", all_mods[unload[i]]);
	ksft_print_msg("round %d: %s\n", round, log);
	log[0] = 0;
	for (i = 0; i < NALL; i++) {
		mod = all_mods[load[i]];
		ASSERT_EQ(0, capture(out, sizeof(out), "modprobe %s 2>&1", mod))
			TH_LOG("round %d: modprobe %s: %s", round, mod, out);
		add_word(log, sizeof(log), "+%s", mod);
		ASSERT_EQ(1, nt_module_loaded(mod)) TH_LOG("round %d: modprobe %s", round, mod);
		ASSERT_EQ(0, expect_driver(_metadata, mod)) TH_LOG("round %d", round);
		if (strcmp(mod, "neuron_sim"))
			continue;
		id = rnd() % 64;
		gen = gens[rnd() % ARRAY_SIZE(gens)];
		index = sim_ready(_metadata, id, gen);
		ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/info/generation",
				     index));
		EXPECT_STREQ(gen, buf) TH_LOG("round %d: device %d", round, id);
		add_word(log, sizeof(log), "dev%d:%s", id, gen);
	}
	expect_version(_metadata, "of every module");
	EXPECT_TRUE(modprobe_settle(FOLLOW_MS));

	for (i = 0; i < NALL; i++) {
		mod = all_mods[unload[i]];
		if (unload_one(_metadata, round, mod, log, sizeof(log)) == 0 &&
		    !strcmp(mod, "neuron_sim"))
			EXPECT_FALSE(nt_exists("/dev/neuron%d", index)) TH_LOG("round %d", round);
	}
	ksft_print_msg("round %d, %.1f s: %s\n", round, (nt_now_ms() - t) / 1000.0, log);

	if (nt_module_loaded("neuron_sim") == 1)
		EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron_sim 2>&1"))
			TH_LOG("round %d: modprobe -r neuron_sim: %s", round, out);
	neuron_was = nt_module_loaded("neuron") == 1;
	if (neuron_was)
		EXPECT_EQ(0, capture(out, sizeof(out), "modprobe -r neuron 2>&1"))
			TH_LOG("round %d: modprobe -r neuron: %s", round, out);
	n = neuron_mods(left, sizeof(left));
	if (n > 0 && !neuron_was) {
		TH_LOG("round %d: neuron was gone already, %s left: unloading them one by one",
		       round, left);
		n = drain(_metadata, round, left, sizeof(left));
	}
	ASSERT_EQ(0, n) TH_LOG("round %d: still loaded at the end: %s", round, left);
}

/*
 * Every load and unload order: NEURON_MODULES_ROUNDS rounds (default 2;
 * `make stress` runs 200) of order_round() from seed NEURON_MODULES_SEED
 * (default fixed; either way printed, so that a failure replays).
 */
TEST_F_TIMEOUT(mods, every_load_and_unload_order, 4 * 3600)
{
	unsigned long long seed = nt_env_num("NEURON_MODULES_SEED", ORDER_SEED);
	unsigned long long rounds = nt_env_num("NEURON_MODULES_ROUNDS", ORDER_ROUNDS);
	unsigned long long r;

	if (!seed)
		seed = ORDER_SEED;
	rng_state = seed;
	ksft_print_msg("orders: NEURON_MODULES_SEED=%#llx NEURON_MODULES_ROUNDS=%llu\n", seed,
		       rounds);
	for (r = 0; r < rounds; r++) {
		order_round(_metadata, (int)r);
		if (nt_now_ms() - self->t0 > ORDER_BUDGET_MS) {
			EXPECT_EQ(rounds, r + 1)
				TH_LOG("out of time after %llu of %llu rounds", r + 1, rounds);
			break;
		}
	}
}

TEST_HARNESS_MAIN
