// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the sysfs ABI documentation against a live driver.
 *
 * Reads every file of Documentation/ABI/testing/ (under $NEURON_TOP, else
 * in the checkout that holds the current directory or this program: the
 * guest runs the tests from the checkout, make run_tests from selftests/),
 * then loads neuron_telemetry (whose statistics tree is under each device)
 * and brings up simulated v2, v3 and v4 devices and, when QEMU has it, the
 * secondary-vga PCI function bound to the driver as a Trn2, and lists the
 * attributes the driver has in sysfs:
 *
 *   /sys/class/neuron_device/             class attributes
 *   /sys/class/neuron_device/neuron<N>/   each class device, recursively
 *   /sys/bus/pci/drivers/neuron-driver/   the PCI driver
 *   /sys/bus/pci/devices/<dev>/           each function bound to it
 *   /sys/bus/neuron_sim/                  the simulator's bus and devices
 *   /sys/module/neuron<...>/              version and parameters/, of every
 *                                         module but the KUnit ones
 *
 * The kernel's own files there (uevent, dev, power/, bind, the PCI
 * function's config space...) are left out; for a PCI function, they are
 * the files it had before the driver was bound (or, for a function the
 * test did not bind, those of the functions the driver does not drive).
 *
 * every_attribute_documented fails listing each attribute no What: line
 * matches; every_entry_present fails listing each What: line that matches
 * nothing, unless its entry's Description says "Not present on simulated
 * devices" (the words may wrap).  In a What: line, "<name>" stands for one
 * or more characters and "*" for any, neither matching a slash.
 * docs_well_formed checks that each entry has Date:, Contact: and
 * Description:.  Missing documentation fails, it does not skip.
 */
#include <fnmatch.h>
#include <limits.h>
#include <sys/types.h>

#include "kselftest_harness.h"
#include "neuron_pci.h"

#define ABI_DIR		"Documentation/ABI/testing"
#define ABI_ABSENT	"Not present on simulated devices"
#define MODULE_DIR	"/sys/module"

#define VGA_VENDOR	0x1234
#define VGA_DEVICE	0x1111
#define TRN2		0x7364
/* Against RAM the reset never completes: bound its wait (as selftests/pci). */
#define CORE_ARGS	"reset_timeout_ms=2000"
#define SETTLE_MS	60000

/* ---- Lists of strings -------------------------------------------------- */

struct strs {
	char **s;
	int n, cap;
};

static int strs_add(struct strs *l, const char *s)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		char **p = realloc(l->s, cap * sizeof(*p));

		if (!p)
			return -1;
		l->s = p;
		l->cap = cap;
	}
	l->s[l->n] = strdup(s);
	if (!l->s[l->n])
		return -1;
	l->n++;
	return 0;
}

static int strs_has(const struct strs *l, const char *s)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->s[i], s))
			return 1;
	return 0;
}

static void strs_free(struct strs *l)
{
	while (l->n)
		free(l->s[--l->n]);
	free(l->s);
	l->s = NULL;
	l->cap = 0;
}

/* ---- The documentation -------------------------------------------------- */

/* One What: line. */
struct abi_what {
	char text[PATH_MAX];	/* as written */
	char glob[PATH_MAX];	/* as an fnmatch() pattern */
	char where[PATH_MAX];	/* file:line */
	int absent_ok;		/* its entry says it may be absent here */
};

struct abi_doc {
	struct abi_what *w;
	int n, cap;
	int entries;
	int errors;		/* format errors, each logged */
	char dir[PATH_MAX];
};

/*
 * A What: path as an fnmatch() pattern: "<...>" becomes "?*" (one or more
 * characters), "*" stays, the other pattern characters are escaped.
 */
static int abi_glob(const char *text, char *glob, size_t len)
{
	size_t o = 0;
	const char *p;

	for (p = text; *p; p++) {
		if (o + 3 >= len)
			return -1;
		if (*p == '<') {
			const char *end = strchr(p, '>');

			if (!end || end == p + 1)
				return -1;
			glob[o++] = '?';
			glob[o++] = '*';
			p = end;
		} else if (*p == '?' || *p == '[' || *p == '\\') {
			glob[o++] = '\\';
			glob[o++] = *p;
		} else {
			glob[o++] = *p;
		}
	}
	glob[o] = 0;
	return 0;
}

/* A column-0 "Tag:" at the start of @line: its length, else 0. */
static size_t abi_tag(const char *line)
{
	size_t n = 0;

	while ((line[n] >= 'A' && line[n] <= 'Z') || (line[n] >= 'a' && line[n] <= 'z'))
		n++;
	return n && line[n] == ':' ? n : 0;
}

static int abi_tag_is(const char *line, size_t n, const char *tag)
{
	return n == strlen(tag) && !strncasecmp(line, tag, n);
}

/* Per-entry state while a file is parsed. */
struct abi_entry {
	int first;		/* index of its first What: in doc->w, -1: none yet */
	int date, contact, desc;
	char *text;		/* its Description, whitespace folded */
	size_t len;
};

static void abi_desc_add(struct abi_entry *e, const char *s)
{
	size_t n = strlen(s);
	char *p = realloc(e->text, e->len + n + 2);

	if (!p)
		return;
	e->text = p;
	if (e->len)
		e->text[e->len++] = ' ';
	for (; *s; s++) {
		int space = *s == ' ' || *s == '\t' || *s == '\n';

		if (space && (!e->len || e->text[e->len - 1] == ' '))
			continue;
		e->text[e->len++] = space ? ' ' : *s;
	}
	e->text[e->len] = 0;
}

/* The end of an entry: check its fields, apply its absence mark. */
static void abi_entry_end(struct abi_doc *doc, struct abi_entry *e)
{
	int i;

	if (e->first < 0)
		return;
	doc->entries++;
	if (!e->date || !e->contact || !e->desc) {
		fprintf(stderr, "# %s: entry %s lacks%s%s%s\n", doc->w[e->first].where,
			doc->w[e->first].text, e->date ? "" : " Date:",
			e->contact ? "" : " Contact:", e->desc ? "" : " Description:");
		doc->errors++;
	}
	if (e->text && strstr(e->text, ABI_ABSENT))
		for (i = e->first; i < doc->n; i++)
			doc->w[i].absent_ok = 1;
	free(e->text);
	memset(e, 0, sizeof(*e));
	e->first = -1;
}

static int abi_what_add(struct abi_doc *doc, const char *text, const char *file, int line)
{
	struct abi_what *w;
	size_t n;

	if (doc->n == doc->cap) {
		int cap = doc->cap ? 2 * doc->cap : 64;

		w = realloc(doc->w, cap * sizeof(*w));
		if (!w)
			return -1;
		doc->w = w;
		doc->cap = cap;
	}
	w = &doc->w[doc->n];
	memset(w, 0, sizeof(*w));
	snprintf(w->where, sizeof(w->where), "%s:%d", file, line);
	while (*text == ' ' || *text == '\t')
		text++;
	n = strcspn(text, "\n");
	while (n && strchr(" \t,.;", text[n - 1]))
		n--;
	if (n >= sizeof(w->text)) {
		fprintf(stderr, "# %s: What: too long\n", w->where);
		doc->errors++;
		return 0;
	}
	memcpy(w->text, text, n);
	w->text[n] = 0;
	if (strncmp(w->text, "/sys/", 5) || abi_glob(w->text, w->glob, sizeof(w->glob))) {
		fprintf(stderr, "# %s: What: %s is not a sysfs path this test understands\n",
			w->where, w->text);
		doc->errors++;
		return 0;
	}
	doc->n++;
	return 0;
}

static int abi_parse_file(struct abi_doc *doc, const char *path, const char *name)
{
	struct abi_entry e = { .first = -1 };
	int lineno = 0, in_what = 0, in_desc = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "# cannot read %s: %s\n", path, strerror(errno));
		doc->errors++;
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		size_t n = abi_tag(line);

		lineno++;
		if (n && abi_tag_is(line, n, "What")) {
			if (!in_what) {
				abi_entry_end(doc, &e);
				e.first = doc->n;
			}
			in_what = 1;
			in_desc = 0;
			if (abi_what_add(doc, line + n + 1, name, lineno))
				break;
			continue;
		}
		/* Text before the first What: describes the file. */
		if (e.first < 0)
			continue;
		if (n && (abi_tag_is(line, n, "Date") || abi_tag_is(line, n, "KernelVersion") ||
			  abi_tag_is(line, n, "Contact") || abi_tag_is(line, n, "Description") ||
			  abi_tag_is(line, n, "Users"))) {
			in_what = 0;
			in_desc = abi_tag_is(line, n, "Description");
			e.date |= abi_tag_is(line, n, "Date");
			e.contact |= abi_tag_is(line, n, "Contact");
			e.desc |= in_desc;
			if (in_desc)
				abi_desc_add(&e, line + n + 1);
			continue;
		}
		if (in_desc) {
			abi_desc_add(&e, line);
			continue;
		}
		if (line[0] != ' ' && line[0] != '\t' && line[0] != '\n') {
			fprintf(stderr, "# %s:%d: unexpected text: %s", name, lineno, line);
			doc->errors++;
		}
	}
	abi_entry_end(doc, &e);
	free(line);
	fclose(f);
	return 0;
}

/*
 * The ABI folder of the checkout that holds @start, or whose parent does,
 * and so on up: found from the checkout's root, selftests/ (make run_tests)
 * or build/selftests/abi/.  Told by its file of the neuron_device class, so
 * that a kernel tree's own folder does not count.  0, or -1.
 */
static int abi_find(const char *start, char *dir, size_t len)
{
	char top[PATH_MAX], *slash;

	if (!realpath(start, top))
		return -1;
	for (;;) {
		if (snprintf(dir, len, "%s/%s", top, ABI_DIR) < (int)len &&
		    nt_exists("%s/sysfs-class-neuron_device", dir))
			return 0;
		slash = strrchr(top, '/');
		if (!slash || slash == top)
			return -1;
		*slash = 0;
	}
}

/*
 * Read every file of the ABI folder: $NEURON_TOP/Documentation/ABI/testing
 * when NEURON_TOP is set, else the one abi_find() finds from the current
 * directory or from this program's.  0, or -1 (logged) when there is none.
 */
static int abi_load(struct abi_doc *doc)
{
	const char *top = getenv("NEURON_TOP");
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	int files = 0;
	DIR *d;

	memset(doc, 0, sizeof(*doc));
	if (top && *top)
		snprintf(doc->dir, sizeof(doc->dir), "%s/%s", top, ABI_DIR);
	else if (abi_find(".", doc->dir, sizeof(doc->dir)) &&
		 abi_find("/proc/self/exe", doc->dir, sizeof(doc->dir)))
		snprintf(doc->dir, sizeof(doc->dir), "./%s", ABI_DIR);
	d = opendir(doc->dir);
	if (!d) {
		fprintf(stderr, "# no ABI documentation at %s: %s\n", doc->dir, strerror(errno));
		fprintf(stderr, "# run from the checkout, or set NEURON_TOP to it\n");
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", doc->dir, de->d_name);
		abi_parse_file(doc, path, de->d_name);
		files++;
	}
	closedir(d);
	if (!files || !doc->n) {
		fprintf(stderr, "# %s has no What: entry\n", doc->dir);
		return -1;
	}
	return 0;
}

static void abi_free(struct abi_doc *doc)
{
	free(doc->w);
	doc->w = NULL;
	doc->n = 0;
	doc->cap = 0;
}

/* The What: line that documents @path, or NULL. */
static const struct abi_what *abi_match(const struct abi_doc *doc, const char *path)
{
	int i;

	for (i = 0; i < doc->n; i++)
		if (!fnmatch(doc->w[i].glob, path, FNM_PATHNAME))
			return &doc->w[i];
	return NULL;
}

/* ---- The live attributes ------------------------------------------------ */

/* Attributes found, and which of them are the kernel's own. */
struct live {
	struct strs path;
	struct strs generic;	/* subset of @path */
};

/* Whether @rel, a path relative to the folder walked, is the kernel's. */
typedef int (*generic_fn)(const char *rel, const void *ctx);

/*
 * Add every regular file under @dir (named through @dir, symbolic links not
 * followed below it), recursing into folders when @depth > 0.
 */
static void walk(struct live *l, const char *dir, const char *rel, int depth,
		 generic_fn generic, const void *ctx)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0) {
			walk(l, path, sub, depth - 1, generic, ctx);
		} else if (S_ISREG(st.st_mode)) {
			strs_add(&l->path, path);
			if (generic && generic(sub, ctx))
				strs_add(&l->generic, path);
		}
	}
	closedir(d);
}

static int in_list(const char *rel, const char * const *names)
{
	for (; *names; names++)
		if (!strcmp(rel, *names))
			return 1;
	return 0;
}

/* A device's own files: those of every struct device, and power/. */
static int device_generic(const char *rel, const void *ctx)
{
	static const char * const names[] = { "dev", "uevent", NULL };

	return in_list(rel, names) || !strncmp(rel, "power/", 6);
}

static int bus_generic(const char *rel, const void *ctx)
{
	static const char * const names[] = {
		"uevent", "drivers_autoprobe", "drivers_probe", NULL
	};

	return in_list(rel, names);
}

static int pci_driver_generic(const char *rel, const void *ctx)
{
	static const char * const names[] = {
		"bind", "unbind", "new_id", "remove_id", "uevent", NULL
	};

	return in_list(rel, names);
}

/* For a PCI function: what it has without the driver (@ctx, a struct strs). */
static int pci_function_generic(const char *rel, const void *ctx)
{
	return strs_has(ctx, rel);
}

static int rel_collect(const char *rel, const void *ctx)
{
	struct strs *l = (struct strs *)ctx;

	if (!strs_has(l, rel))
		strs_add(l, rel);
	return 0;
}

/* The files below PCI function @bdf, relative to its folder, added to @rel. */
static void pci_files(const char *bdf, struct strs *rel)
{
	struct live tmp = {};
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), PCI_DEVICES "/%s", bdf);
	walk(&tmp, dir, "", 4, rel_collect, rel);
	strs_free(&tmp.path);
	strs_free(&tmp.generic);
}

/* The files of every PCI function the Neuron driver does not drive. */
static void pci_others(struct strs *rel)
{
	struct dirent *de;
	DIR *d;

	d = opendir(PCI_DEVICES);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !np_bound(de->d_name))
			pci_files(de->d_name, rel);
	closedir(d);
}

/*
 * Everything the driver shows.  @vga, @vga_base: a function the test bound
 * and its files before; "" when none.
 */
static void live_collect(struct live *l, const char *vga, struct strs *vga_base)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct strs others = {};
	struct dirent *de;
	struct stat st;
	DIR *d;

	/* The class: its attributes, then each class device (a link). */
	walk(l, CLASS_DIR, "", 0, NULL, NULL);
	d = opendir(CLASS_DIR);
	while (d && (de = readdir(d))) {
		snprintf(dir, sizeof(dir), CLASS_DIR "/%s", de->d_name);
		/* Deep enough for neuron_core<K>/stats/memory_usage/device_mem/<category>/. */
		if (de->d_name[0] != '.' && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			walk(l, dir, "", 6, device_generic, NULL);
	}
	if (d)
		closedir(d);

	/* The PCI driver, then each function bound to it (links named by address). */
	walk(l, NEURON_DRV, "", 0, pci_driver_generic, NULL);
	d = opendir(NEURON_DRV);
	while (d && (de = readdir(d))) {
		if (!strchr(de->d_name, ':'))
			continue;
		snprintf(dir, sizeof(dir), PCI_DEVICES "/%s", de->d_name);
		if (!strcmp(de->d_name, vga)) {
			walk(l, dir, "", 4, pci_function_generic, vga_base);
			continue;
		}
		if (!others.n)
			pci_others(&others);
		walk(l, dir, "", 4, pci_function_generic, &others);
	}
	if (d)
		closedir(d);
	strs_free(&others);

	/* The simulator's bus, then its devices. */
	walk(l, SIM_BUS, "", 0, bus_generic, NULL);
	d = opendir(SIM_BUS "/devices");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), SIM_BUS "/devices/%s", de->d_name);
		walk(l, dir, "", 4, device_generic, NULL);
	}
	if (d)
		closedir(d);

	/* Each module's version and parameters; KUnit modules are tests. */
	d = opendir(MODULE_DIR);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "neuron", 6) ||
		    (n > 6 && !strcmp(de->d_name + n - 6, "_kunit")))
			continue;
		snprintf(path, sizeof(path), MODULE_DIR "/%s/version", de->d_name);
		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			strs_add(&l->path, path);
		snprintf(dir, sizeof(dir), MODULE_DIR "/%s/parameters", de->d_name);
		walk(l, dir, "", 0, NULL, NULL);
	}
	if (d)
		closedir(d);
}

/* ---- Bringing the driver up ---------------------------------------------- */

static const char * const sim_gens[] = { "v2", "v3", "v4" };

/* Let go of the function bound and its dynamic id; delete the devices. */
static void live_clean(const char *vga)
{
	int i;

	if (nt_exists(NEURON_DRV)) {
		np_release_all();
		for (i = 0; i < 8 && !np_remove_id(VGA_VENDOR, VGA_DEVICE); i++)
			;
	}
	if (vga[0] && !nt_exists(PCI_DEVICES "/%s", vga))
		nt_write("/sys/bus/pci/rescan", "1");
	nt_driver_down();
}

/*
 * Bind the VGA function (when @vga is not "") as a Trn2, after listing its
 * files in @vga_base, then add simulated v2, v3 and v4 devices 1 to 3 and
 * wait for them.  NULL, or what went wrong.
 */
static const char *live_up(const char *vga, struct strs *vga_base, char *buf, size_t len)
{
	unsigned int i;

	/* The real function first: its routing id reads 0, the others 1 to 3. */
	if (vga[0]) {
		pci_files(vga, vga_base);
		if (!vga_base->n)
			return "the VGA function has no files";
		if (np_new_id(VGA_VENDOR, VGA_DEVICE, TRN2))
			return "new_id refused the VGA function";
		if (!np_wait_bound(VGA_VENDOR, VGA_DEVICE, buf, len, SETTLE_MS))
			return "the driver did not bind the VGA function";
		np_settle(vga, buf, len, SETTLE_MS);
		if (strcmp(buf, "ready") && strcmp(buf, "failed"))
			return "the VGA function's bring-up did not end";
	}
	for (i = 0; i < ARRAY_SIZE(sim_gens); i++)
		if (nt_sim_add(i + 1, sim_gens[i]))
			return "new_device refused a device";
	for (i = 0; i < ARRAY_SIZE(sim_gens); i++) {
		if (strcmp("ready", nt_sim_settle(i + 1, buf, len, SETTLE_MS)))
			return "a simulated device did not get ready";
		if (nt_read(buf, len, SIM_BUS "/devices/neuron_sim%u/index", i + 1) ||
		    !nt_exists(CLASS_DIR "/neuron%s", buf))
			return "a simulated device has no class device";
	}
	return NULL;
}

/*
 * Each case's setup brings the devices up, lists the attributes and puts
 * everything back before the case itself runs, so that nothing it bound or
 * added outlives a failure.
 */
FIXTURE(live) {
	struct abi_doc doc;
	struct live live;
	struct strs vga_base;	/* files of the VGA function without the driver */
	char vga[32];		/* its address, "" when QEMU has none */
	char buf[128];
};

FIXTURE_SETUP(live)
{
	const char *err;

	ASSERT_EQ(0, abi_load(&self->doc));
	ASSERT_EQ(0, nt_driver_up(CORE_ARGS, ""));
	/* The statistics tree is neuron_telemetry's: it must be seen too. */
	ASSERT_EQ(0, nt_sh("modprobe neuron_telemetry"));
	np_find(VGA_VENDOR, VGA_DEVICE, self->vga, sizeof(self->vga));
	live_clean(self->vga);
	if (!self->vga[0])
		TH_LOG("QEMU has no secondary-vga function: no PCI function checked");

	err = live_up(self->vga, &self->vga_base, self->buf, sizeof(self->buf));
	if (!err)
		live_collect(&self->live, self->vga, &self->vga_base);
	live_clean(self->vga);
	ASSERT_TRUE(!err) {
		TH_LOG("%s (%s)", err, self->buf);
	}
	TH_LOG("%d What: lines, %d attributes (%d the kernel's own)", self->doc.n,
	       self->live.path.n, self->live.generic.n);
}

FIXTURE_TEARDOWN(live)
{
	strs_free(&self->live.path);
	strs_free(&self->live.generic);
	strs_free(&self->vga_base);
	abi_free(&self->doc);
}

/* Every file the driver creates matches a What: line. */
TEST_F_TIMEOUT(live, every_attribute_documented, 300)
{
	static const char * const must[] = {
		CLASS_DIR "/node_id_2",
		CLASS_DIR "/neuron1/info/architecture/device_name",
		CLASS_DIR "/neuron2/core_count",
		CLASS_DIR "/neuron3/info/serial_number",
		CLASS_DIR "/neuron3/info/notify_delay",
		CLASS_DIR "/neuron2/neuron_core7/stats/memory_usage/device_mem/tensors/peak",
		SIM_BUS "/new_device",
		SIM_BUS "/devices/neuron_sim1/state",
		MODULE_DIR "/neuron/version",
		MODULE_DIR "/neuron_core/parameters/reset_timeout_ms",
	};
	const struct strs *p = &self->live.path;
	int i, undocumented = 0, own = 0, missed = 0;
	char path[PATH_MAX];

	/* The walk saw what is certainly there. */
	for (i = 0; i < (int)ARRAY_SIZE(must); i++) {
		if (!strs_has(p, must[i])) {
			TH_LOG("the walk missed %s", must[i]);
			missed++;
		}
	}
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/neuron_state", self->vga);
	if (self->vga[0] && !strs_has(p, path)) {
		TH_LOG("the walk missed %s", path);
		missed++;
	}
	EXPECT_EQ(0, missed);

	for (i = 0; i < p->n; i++) {
		if (strs_has(&self->live.generic, p->s[i]))
			continue;
		own++;
		if (!abi_match(&self->doc, p->s[i])) {
			TH_LOG("undocumented: %s", p->s[i]);
			undocumented++;
		}
	}
	TH_LOG("%d attributes of the driver, %d undocumented (see %s)", own, undocumented,
	       self->doc.dir);
	EXPECT_GT(own, 40);
	EXPECT_EQ(0, undocumented);
}

/* Every What: line matches a live file, unless its entry says it may not. */
TEST_F_TIMEOUT(live, every_entry_present, 300)
{
	const struct strs *p = &self->live.path;
	int i, j, stale = 0;

	for (i = 0; i < self->doc.n; i++) {
		const struct abi_what *w = &self->doc.w[i];

		for (j = 0; j < p->n; j++)
			if (!fnmatch(w->glob, p->s[j], FNM_PATHNAME))
				break;
		if (j < p->n)
			continue;
		if (w->absent_ok) {
			TH_LOG("absent, as allowed (\"%s\"): %s (%s)", ABI_ABSENT, w->text,
			       w->where);
			continue;
		}
		TH_LOG("matches nothing: %s (%s)", w->text, w->where);
		stale++;
	}
	EXPECT_EQ(0, stale);
}

/* Each entry has the fields of the kernel's ABI format. */
TEST(docs_well_formed)
{
	struct abi_doc doc;

	ASSERT_EQ(0, abi_load(&doc));
	TH_LOG("%d entries, %d What: lines in %s", doc.entries, doc.n, doc.dir);
	EXPECT_EQ(0, doc.errors);
	EXPECT_GT(doc.entries, 0);
	abi_free(&doc);
}

TEST_HARNESS_MAIN
