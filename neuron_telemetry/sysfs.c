// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics tree monitoring tools read under each device's node,
 * /sys/class/neuron_device/neuronN/, at the reference driver's paths and
 * in its formats (Documentation/telemetry.rst,
 * Documentation/ABI/testing/sysfs-class-neuron_device):
 *
 *   info/notify_delay
 *   stats/memory_usage/host_mem/<category>/{total,present,peak}
 *   stats/hardware/{sram_ecc_uncorrected,mem_ecc_uncorrected,
 *                   mem_ecc_repairable_uncorrected,sram_ecc_corrected,
 *                   mem_ecc_corrected}
 *   stats/hardware/health_status/{hbm_ecc_err_count,
 *                   repairable_hbm_ecc_err_count,sram_ecc_err_count,
 *                   hw_error_event,unhealthy_components,
 *                   healthcheck_heartbeat}	(health.c; where the DHAL says)
 *   stats/power/{utilization,utilization_raw}
 *   neuron_core<k>/info/architecture/arch_type
 *   neuron_core<k>/stats/status/<name>/{total,present}
 *   neuron_core<k>/stats/memory_usage/{host_mem,device_mem}/{total,present,peak}
 *   neuron_core<k>/stats/memory_usage/device_mem/<category>/{total,present,peak}
 *   neuron_core<k>/stats/other_info/<name>/{total,present}
 *   neuron_core<k>/stats/tensor_engine/pe_cntrs
 *
 * The counters are neuron_core's (include/neuron/stats.h): this file only
 * presents them, so the tree can go with the module and come back with
 * it without losing a count.  A directory with subdirectories is a
 * kobject of this file (struct neuron_tel_node) that knows its device and
 * core; a counter's directory is a named attribute group of its parent,
 * whose files know the counter and field (struct neuron_tel_counter_attr,
 * built once at load for every device).  A Trn2's tree is about 1250
 * kernfs nodes; a kobject for each of its four hundred counters, and the
 * lookup of their files with every tree, made 64 devices come up a fifth
 * slower in the simulator.  The tree is built when the device is
 * published to the plane and torn down, children first, when the plane
 * lets the device go; kernfs waits for readers and writers in a file
 * before its removal returns, so no show or store runs on a node that is
 * gone.
 *
 * With info/notify_delay 0, every change of a counter wakes pollers of its
 * files (kernfs_notify(), which any context may call: the core calls the
 * listener with its statistics spinlock held).  The files' kernfs nodes
 * are looked up when notifications are first turned on, not with every
 * tree.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/fw.h>
#include <neuron/stats.h>

#include "telemetry.h"

/*
 * info/notify_delay: -1 (the default) or 0, for every device at once as in
 * the reference.  Read without a lock (a single int); written under
 * neuron_tel_notify_lock, with the core's switch of listener calls
 * (neuron_stats_notify_enable()) that follows it.
 */
static int neuron_tel_notify_delay = -1;
/*
 * Serialises writers of neuron_tel_notify_delay and the core's switch that
 * follows it; protects neuron_tel_trees and the lookup of each tree's
 * files (&neuron_tel_sysfs.files).
 */
static DEFINE_MUTEX(neuron_tel_notify_lock);
/* Every complete tree (&neuron_tel_sysfs.link). */
static LIST_HEAD(neuron_tel_trees);
/*
 * Serialises the building of trees, one device's at a time; protects no
 * data.  sysfs adds every node under one kernfs lock for the whole system,
 * so devices brought up together cannot build their trees in parallel
 * anyway; taking turns at that lock node by node, the builders woke each
 * other at every release.  One tree at a time, 64 simulated devices came
 * up with a tenth to a sixth less CPU on one CPU and over a quarter less
 * on two (tools/bench/bringup, README.md).
 */
static DEFINE_MUTEX(neuron_tel_build_lock);

/* MiscRAM words firmware reports ECC counts in. */
#define TEL_MISC_SRAM_ECC	0x40
#define TEL_MISC_HBM_ECC(ch)	(0x44 + 4 * (ch))
#define TEL_MISC_HBM_REPAIR	0x64
#define TEL_MISC_NOT_READY	0xdeadbeef
#define TEL_ECC_COUNT		0xffff
/* Corrected errors: the high half of the SRAM and HBM words. */
#define TEL_ECC_CORRECTED	GENMASK(31, 16)
/* An HBM word from the DHAL's &neuron_dhal_fw.hbm_ecc_split_api on. */
#define TEL_ECC_SPLIT_UE	GENMASK(15, 12)
#define TEL_ECC_SPLIT_REPAIRABLE	GENMASK(11, 0)
/* Full power utilisation, in basis points; above it a sample is bogus. */
#define TEL_POWER_FULL		10000
/* HBM repair states (TEL_MISC_HBM_REPAIR & TEL_REPAIR_MASK). */
#define TEL_REPAIR_MASK		3
#define TEL_REPAIR_LEGACY	0
#define TEL_REPAIR_PENDING	1
#define TEL_REPAIR_DONE		2

/**
 * struct neuron_tel_node - a directory of the tree that is a kobject
 * @kobj: its kobject
 * @link: entry in &neuron_tel_sysfs.nodes, newest first
 * @td: the plane's device state
 * @nc: the core it belongs to, or NEURON_STATS_DEVICE
 */
struct neuron_tel_node {
	struct kobject kobj;
	struct list_head link;
	struct neuron_tel_dev *td;
	int nc;
};

/* The parents of a core's counters, in &neuron_tel_sysfs.core. */
enum tel_nc_dir {
	TEL_NC_STATUS,		/* stats/status */
	TEL_NC_MEM,		/* stats/memory_usage (host_mem) */
	TEL_NC_DEVMEM,		/* .../device_mem (itself and its categories) */
	TEL_NC_OTHER,		/* stats/other_info */
	TEL_NC_DIRS
};

/**
 * struct neuron_tel_files - a counter's files, for notifications
 * @kn: total, present and, where the counter has one, peak (a reference
 *	each, or NULL)
 */
struct neuron_tel_files {
	struct kernfs_node *kn[NEURON_STAT_FIELDS];
};

/**
 * struct neuron_tel_sysfs - the tree of one device
 * @nodes: every kobject directory, newest first (children before their parent)
 * @link: entry in neuron_tel_trees once complete
 * @listed: @link is in neuron_tel_trees
 * @host: stats/memory_usage/host_mem, the device-level counters' parent
 * @core: the parents of each core's counters, by enum tel_nc_dir (NULLs
 *	for absent cores)
 * @files: the counters' files, by tel_slot(), once looked up (under
 *	neuron_tel_notify_lock; read by the listener); or NULL
 * @ncs: cores with a directory (below NEURON_STATS_MAX_NC)
 * @notify_file: info/notify_delay was added
 *
 * Changed only by the plane's callbacks, serialised per device, but for
 * @files; the notification listener is registered only once the tree is
 * complete and unregistered before it goes.
 */
struct neuron_tel_sysfs {
	struct list_head nodes;
	struct list_head link;
	bool listed;
	struct kobject *host;
	struct kobject *core[NEURON_STATS_MAX_NC][TEL_NC_DIRS];
	struct neuron_tel_files *files;
	unsigned int ncs;
	bool notify_file;
};

/* Where counter @id of core @nc (or the device) is in &neuron_tel_sysfs.files. */
static unsigned int tel_slot(int nc, unsigned int id)
{
	if (nc == NEURON_STATS_DEVICE)
		return id;
	return NEURON_STATS_HOST_CATS + nc * NEURON_STATS_NC_COUNT + id;
}

static struct neuron_tel_node *to_node(struct kobject *kobj)
{
	return container_of(kobj, struct neuron_tel_node, kobj);
}

static void neuron_tel_node_release(struct kobject *kobj)
{
	kfree(to_node(kobj));
}

/* Counters: total, present and peak, or total and present. */

/**
 * struct neuron_tel_counter_attr - a file of a counter
 * @attr: the file
 * @id: the counter (enum neuron_stats_nc_id, or enum neuron_stats_host_cat)
 * @field: which of its fields the file shows
 */
struct neuron_tel_counter_attr {
	struct kobj_attribute attr;
	unsigned int id;
	enum neuron_stat_field field;
};

static const struct neuron_tel_counter_attr *to_counter(struct kobj_attribute *a)
{
	return container_of(a, struct neuron_tel_counter_attr, attr);
}

static ssize_t counter_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	const struct neuron_tel_counter_attr *ca = to_counter(a);
	struct neuron_tel_node *n = to_node(kobj);
	struct neuron_stat s;
	u64 v;
	int ret;

	ret = neuron_stats_read(n->td->nd, n->nc, ca->id, &s);
	if (ret)
		return ret;
	switch (ca->field) {
	case NEURON_STAT_TOTAL:
		v = s.total;
		break;
	case NEURON_STAT_PRESENT:
		v = s.present;
		break;
	default:
		v = s.peak;
		break;
	}
	return sysfs_emit(buf, "%llu\n", v);
}

/* Whatever is written clears the field, as in the reference. */
static ssize_t counter_store(struct kobject *kobj, struct kobj_attribute *a, const char *buf,
			     size_t count)
{
	const struct neuron_tel_counter_attr *ca = to_counter(a);
	struct neuron_tel_node *n = to_node(kobj);
	int ret;

	ret = neuron_stats_clear(n->td->nd, n->nc, ca->id, ca->field);
	return ret ? ret : count;
}

/* The names of the files, by field. */
static const char *const neuron_tel_field_names[NEURON_STAT_FIELDS] = {
	[NEURON_STAT_TOTAL] = "total",
	[NEURON_STAT_PRESENT] = "present",
	[NEURON_STAT_PEAK] = "peak",
};

/**
 * struct neuron_tel_counters - a list of counters as attribute groups,
 *	one directory each (or, unnamed, one counter's files in its parent)
 * @groups: the groups, NULL-terminated, for sysfs_create_groups()
 * @group: the groups
 * @attrs: each group's files, NULL-terminated
 * @files: the files
 * @count: counters (groups)
 * @nf: files a counter has (with or without peak)
 * @first: the first counter's id
 *
 * Built at load, for every device: a file finds its device and core
 * through its directory's parent kobject.
 */
struct neuron_tel_counters {
	const struct attribute_group **groups;
	struct attribute_group *group;
	struct attribute **attrs;
	struct neuron_tel_counter_attr *files;
	unsigned int count;
	unsigned int nf;
	unsigned int first;
};

static void tel_counters_free(struct neuron_tel_counters *c)
{
	if (!c)
		return;
	kfree(c->files);
	kfree(c->attrs);
	kfree(c->group);
	kfree(c->groups);
	kfree(c);
}

/*
 * Counters @first to @first + @count - 1, in directories @names (or, with
 * @names NULL and @count 1, in the parent itself), with a peak file or not.
 */
static struct neuron_tel_counters *tel_counters_new(const char *const *names, unsigned int count,
						    unsigned int first, bool peak)
{
	unsigned int nf = peak ? NEURON_STAT_FIELDS : NEURON_STAT_PEAK, i, f;
	struct neuron_tel_counters *c;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->groups = kcalloc(count + 1, sizeof(*c->groups), GFP_KERNEL);
	c->group = kcalloc(count, sizeof(*c->group), GFP_KERNEL);
	c->attrs = kcalloc(count * (nf + 1), sizeof(*c->attrs), GFP_KERNEL);
	c->files = kcalloc(count * nf, sizeof(*c->files), GFP_KERNEL);
	if (!c->groups || !c->group || !c->attrs || !c->files) {
		tel_counters_free(c);
		return NULL;
	}
	c->count = count;
	c->nf = nf;
	c->first = first;
	for (i = 0; i < count; i++) {
		struct attribute **attrs = &c->attrs[i * (nf + 1)];

		for (f = 0; f < nf; f++) {
			struct neuron_tel_counter_attr *ca = &c->files[i * nf + f];

			sysfs_attr_init(&ca->attr.attr);
			ca->attr.attr.name = neuron_tel_field_names[f];
			ca->attr.attr.mode = 0644;
			ca->attr.show = counter_show;
			ca->attr.store = counter_store;
			ca->id = first + i;
			ca->field = f;
			attrs[f] = &ca->attr.attr;
		}
		c->group[i].name = names ? names[i] : NULL;
		c->group[i].attrs = attrs;
		c->groups[i] = &c->group[i];
	}
	return c;
}

/* The counters' groups, by parent directory; built at load. */
static struct neuron_tel_counters *tel_host_cats;	/* stats/memory_usage/host_mem */
static struct neuron_tel_counters *tel_nc_status;	/* neuron_core<k>/stats/status */
static struct neuron_tel_counters *tel_nc_other;	/* .../stats/other_info */
static struct neuron_tel_counters *tel_nc_host;		/* .../stats/memory_usage */
static struct neuron_tel_counters *tel_nc_dev;		/* .../memory_usage/device_mem */
static struct neuron_tel_counters *tel_nc_dev_cats;	/* its categories */

static const char *const tel_host_mem_name[] = { "host_mem" };

/**
 * neuron_tel_sysfs_init() - build the counters' files, shared by every tree
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_tel_sysfs_init(void)
{
	tel_host_cats = tel_counters_new(neuron_stats_host_names, NEURON_STATS_HOST_CATS, 0, true);
	tel_nc_status = tel_counters_new(neuron_stats_status_names, NEURON_STATS_STATUSES,
					 NEURON_STATS_NC_STATUS, false);
	tel_nc_other = tel_counters_new(neuron_stats_other_names, NEURON_STATS_OTHERS,
					NEURON_STATS_NC_OTHER, false);
	tel_nc_host = tel_counters_new(tel_host_mem_name, 1, NEURON_STATS_NC_HOST_MEM, true);
	tel_nc_dev = tel_counters_new(NULL, 1, NEURON_STATS_NC_DEVICE_MEM, true);
	tel_nc_dev_cats = tel_counters_new(neuron_stats_dev_names, NEURON_STATS_DEV_CATS,
					   NEURON_STATS_NC_DEV_CAT, true);
	if (!tel_host_cats || !tel_nc_status || !tel_nc_other || !tel_nc_host || !tel_nc_dev ||
	    !tel_nc_dev_cats) {
		neuron_tel_sysfs_exit();
		return -ENOMEM;
	}
	return 0;
}

/**
 * neuron_tel_sysfs_exit() - free what neuron_tel_sysfs_init() built
 *
 * Once no tree is left.
 */
void neuron_tel_sysfs_exit(void)
{
	tel_counters_free(tel_nc_dev_cats);
	tel_counters_free(tel_nc_dev);
	tel_counters_free(tel_nc_host);
	tel_counters_free(tel_nc_other);
	tel_counters_free(tel_nc_status);
	tel_counters_free(tel_host_cats);
	tel_nc_dev_cats = NULL;
	tel_nc_dev = NULL;
	tel_nc_host = NULL;
	tel_nc_other = NULL;
	tel_nc_status = NULL;
	tel_host_cats = NULL;
}

/*
 * The other files show what they show and ignore writes, as every file of
 * the reference's tree does (they all have mode 0644).
 */
static ssize_t tel_ignore_store(struct kobject *kobj, struct kobj_attribute *a, const char *buf,
				size_t count)
{
	return count;
}

/* stats/hardware: ECC counts firmware keeps in MiscRAM, read when asked. */

/* A MiscRAM count: the bits @mask selects, 0 when firmware has not filled it in. */
static u32 tel_ecc_field(struct neuron_device *nd, u32 reg, u32 mask)
{
	u32 v = neuron_fw_misc_read(nd, reg);

	return v == TEL_MISC_NOT_READY ? 0 : (v & mask) >> __ffs(mask);
}

/* The sum over the HBM channels of the count @mask selects in their words. */
static u32 tel_hbm_ecc(struct neuron_device *nd, u32 mask)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(nd);
	unsigned int ch, n = min_t(u32, dhal->mem->hbm_count, NEURON_MAX_HBM);
	u32 sum = 0;

	for (ch = 0; ch < n; ch++)
		sum += tel_ecc_field(nd, TEL_MISC_HBM_ECC(ch), mask);
	return sum;
}

/*
 * Which file the HBM error counts go to.  From the firmware API version
 * the DHAL names (read live, as the firmware may change), each HBM word
 * holds both counts, each going to its own file.  Before it, where
 * firmware reports a repair state (DHAL data), they are repairable while a
 * repair is pending, uncorrected once it is done (or with firmware that
 * reports no state), neither in the remaining state; elsewhere they are
 * all uncorrected.
 */
enum tel_hbm_kind {
	TEL_HBM_UNCORRECTED,
	TEL_HBM_REPAIRABLE,
	TEL_HBM_NEITHER,
	TEL_HBM_SPLIT,
};

static enum tel_hbm_kind tel_hbm_kind(struct neuron_device *nd)
{
	const struct neuron_dhal_fw *fw = neuron_device_dhal(nd)->fw;
	u32 state, api;

	if (fw->hbm_ecc_split_api) {
		api = neuron_fw_misc_read(nd, NEURON_FW_MBOX_API_VERSION);
		if (api != TEL_MISC_NOT_READY && api >= fw->hbm_ecc_split_api)
			return TEL_HBM_SPLIT;
	}
	if (!fw->hbm_repair)
		return TEL_HBM_UNCORRECTED;
	state = neuron_fw_misc_read(nd, TEL_MISC_HBM_REPAIR);
	if (state == TEL_MISC_NOT_READY)
		return TEL_HBM_UNCORRECTED;
	switch (state & TEL_REPAIR_MASK) {
	case TEL_REPAIR_LEGACY:
	case TEL_REPAIR_DONE:
		return TEL_HBM_UNCORRECTED;
	case TEL_REPAIR_PENDING:
		return TEL_HBM_REPAIRABLE;
	default:
		return TEL_HBM_NEITHER;
	}
}

static ssize_t sram_ecc_uncorrected_show(struct kobject *kobj, struct kobj_attribute *a,
					 char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_ecc_field(to_node(kobj)->td->nd, TEL_MISC_SRAM_ECC,
						      TEL_ECC_COUNT));
}

/* What the HBM words say of the uncorrected errors, or (@repairable) of the repairable ones. */
static u32 tel_hbm_errors(struct neuron_device *nd, bool repairable)
{
	switch (tel_hbm_kind(nd)) {
	case TEL_HBM_SPLIT:
		return tel_hbm_ecc(nd, repairable ? TEL_ECC_SPLIT_REPAIRABLE : TEL_ECC_SPLIT_UE);
	case TEL_HBM_UNCORRECTED:
		return repairable ? 0 : tel_hbm_ecc(nd, TEL_ECC_COUNT);
	case TEL_HBM_REPAIRABLE:
		return repairable ? tel_hbm_ecc(nd, TEL_ECC_COUNT) : 0;
	default:
		return 0;
	}
}

static ssize_t mem_ecc_uncorrected_show(struct kobject *kobj, struct kobj_attribute *a,
					char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_hbm_errors(to_node(kobj)->td->nd, false));
}

static ssize_t mem_ecc_repairable_uncorrected_show(struct kobject *kobj,
						   struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_hbm_errors(to_node(kobj)->td->nd, true));
}

/*
 * The corrected errors (2.30, format not published): the high 16 bits of
 * the same words, in the format and mode of the files above.
 */
static ssize_t sram_ecc_corrected_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_ecc_field(to_node(kobj)->td->nd, TEL_MISC_SRAM_ECC,
						      TEL_ECC_CORRECTED));
}

static ssize_t mem_ecc_corrected_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_hbm_ecc(to_node(kobj)->td->nd, TEL_ECC_CORRECTED));
}

static struct kobj_attribute tel_attr_sram_ecc =
	__ATTR(sram_ecc_uncorrected, 0644, sram_ecc_uncorrected_show, tel_ignore_store);
static struct kobj_attribute tel_attr_mem_ecc =
	__ATTR(mem_ecc_uncorrected, 0644, mem_ecc_uncorrected_show, tel_ignore_store);
static struct kobj_attribute tel_attr_mem_ecc_rep =
	__ATTR(mem_ecc_repairable_uncorrected, 0644, mem_ecc_repairable_uncorrected_show,
	       tel_ignore_store);
static struct kobj_attribute tel_attr_sram_ecc_ce =
	__ATTR(sram_ecc_corrected, 0644, sram_ecc_corrected_show, tel_ignore_store);
static struct kobj_attribute tel_attr_mem_ecc_ce =
	__ATTR(mem_ecc_corrected, 0644, mem_ecc_corrected_show, tel_ignore_store);

static struct attribute *hardware_attrs[] = {
	&tel_attr_sram_ecc.attr,
	&tel_attr_mem_ecc.attr,
	&tel_attr_mem_ecc_rep.attr,
	&tel_attr_sram_ecc_ce.attr,
	&tel_attr_mem_ecc_ce.attr,
	NULL
};
ATTRIBUTE_GROUPS(hardware);

/*
 * stats/hardware/health_status: the health registers the metrics thread
 * caches (health.c), read only as in the reference; hw_error_event is
 * pollable.
 */
static struct neuron_tel_health_counts tel_health(struct kobject *kobj)
{
	struct neuron_tel_health_counts c;

	neuron_tel_health_get(to_node(kobj)->td, &c);
	return c;
}

static ssize_t hbm_ecc_err_count_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_health(kobj).hbm_ue);
}

static ssize_t repairable_hbm_ecc_err_count_show(struct kobject *kobj, struct kobj_attribute *a,
						 char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_health(kobj).hbm_repairable);
}

static ssize_t sram_ecc_err_count_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_health(kobj).sram);
}

static ssize_t hw_error_event_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_health(kobj).events);
}

/* 2.30, format not published: a line of names, as 2.30's notes describe it. */
static ssize_t unhealthy_components_show(struct kobject *kobj, struct kobj_attribute *a,
					 char *buf)
{
	return neuron_tel_health_components(tel_health(kobj).status, buf);
}

/* 2.30, format not published: "%u\n" as the 2.28 files. */
static ssize_t healthcheck_heartbeat_show(struct kobject *kobj, struct kobj_attribute *a,
					  char *buf)
{
	return sysfs_emit(buf, "%u\n", tel_health(kobj).heartbeat);
}

#define TEL_HEALTH_EVENT_FILE	"hw_error_event"

static struct kobj_attribute tel_attr_hbm_ecc_err = __ATTR_RO(hbm_ecc_err_count);
static struct kobj_attribute tel_attr_rep_hbm_ecc_err = __ATTR_RO(repairable_hbm_ecc_err_count);
static struct kobj_attribute tel_attr_sram_ecc_err = __ATTR_RO(sram_ecc_err_count);
static struct kobj_attribute tel_attr_hw_error_event = __ATTR_RO(hw_error_event);
static struct kobj_attribute tel_attr_unhealthy = __ATTR_RO(unhealthy_components);
static struct kobj_attribute tel_attr_heartbeat = __ATTR_RO(healthcheck_heartbeat);

static struct attribute *health_attrs[] = {
	&tel_attr_hbm_ecc_err.attr,
	&tel_attr_rep_hbm_ecc_err.attr,
	&tel_attr_sram_ecc_err.attr,
	&tel_attr_hw_error_event.attr,
	&tel_attr_unhealthy.attr,
	&tel_attr_heartbeat.attr,
	NULL
};

static const struct attribute_group health_group = {
	.name = "health_status",
	.attrs = health_attrs,
};

/* health_status/ under @hw, and its event file handed to the cache. */
static int tel_health_add(struct neuron_tel_dev *td, struct kobject *hw)
{
	struct kernfs_node *dir;
	int ret;

	ret = sysfs_create_group(hw, &health_group);
	if (ret)
		return ret;
	dir = sysfs_get_dirent(hw->sd, health_group.name);
	if (!dir)
		return -ENOENT;
	neuron_tel_health_set_file(td, sysfs_get_dirent(dir, TEL_HEALTH_EVENT_FILE));
	sysfs_put(dir);
	return 0;
}

/* stats/power/utilization: the last per-minute roll-up (power.c). */

static const char *const neuron_tel_power_names[] = {
	[NEURON_TEL_POWER_VALID] = "POWER_STATUS_VALID",
	[NEURON_TEL_POWER_NO_DATA] = "POWER_STATUS_NO_DATA",
	[NEURON_TEL_POWER_INVALID] = "POWER_STATUS_INVALID",
};

static ssize_t utilization_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct neuron_tel_power_stats p;
	u32 status;

	neuron_tel_power_get(to_node(kobj)->td, &p);
	status = p.status < ARRAY_SIZE(neuron_tel_power_names) ? p.status :
		 NEURON_TEL_POWER_INVALID;
	return sysfs_emit(buf, "%s,%llu,%u.%02u,%u.%02u,%u.%02u\n",
			  neuron_tel_power_names[status], p.epoch,
			  p.min / 100, p.min % 100, p.max / 100, p.max % 100,
			  p.avg / 100, p.avg % 100);
}

static struct kobj_attribute tel_attr_utilization =
	__ATTR(utilization, 0644, utilization_show, tel_ignore_store);

/*
 * stats/power/utilization_raw (2.29): each die's word at the metrics
 * thread's last sample, a header then a line per die; every die
 * "unavailable" while the device is not ready or no metrics are gathered.
 */
static ssize_t utilization_raw_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct neuron_tel_dev *td = to_node(kobj)->td;
	struct neuron_tel_power_raw r;
	bool live;
	unsigned int die;
	int len;

	neuron_tel_power_raw_get(td, &r);
	live = neuron_device_state(td->nd) == NEURON_STATE_READY && neuron_tel_metrics_enabled();
	len = sysfs_emit(buf, "die,util_bips,counter\n");
	for (die = 0; die < r.dice && die < NEURON_TEL_POWER_MAX_DICE; die++) {
		u8 state = live ? r.state[die] : NEURON_TEL_RAW_UNAVAILABLE;

		if (state == NEURON_TEL_RAW_READ_ERROR)
			len += sysfs_emit_at(buf, len, "%u,read_error\n", die);
		else if (state != NEURON_TEL_RAW_OK)
			len += sysfs_emit_at(buf, len, "%u,unavailable\n", die);
		else if (r.util[die] > TEL_POWER_FULL)
			len += sysfs_emit_at(buf, len, "%u,bogus(%u),%u\n", die, r.util[die],
					     r.counter[die]);
		else
			len += sysfs_emit_at(buf, len, "%u,%u,%u\n", die, r.util[die],
					     r.counter[die]);
	}
	return len;
}

static struct kobj_attribute tel_attr_utilization_raw =
	__ATTR(utilization_raw, 0644, utilization_raw_show, tel_ignore_store);

static struct attribute *power_attrs[] = {
	&tel_attr_utilization.attr,
	&tel_attr_utilization_raw.attr,
	NULL
};
ATTRIBUTE_GROUPS(power);

/* neuron_core<k>/info/architecture/arch_type: the core's ("NCv2"). */
static ssize_t arch_type_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	const struct neuron_dhal_arch *arch = neuron_device_arch(to_node(kobj)->td->nd);

	return sysfs_emit(buf, "%s\n", arch ? arch->nc_arch_type : "");
}

static struct kobj_attribute tel_attr_arch_type =
	__ATTR(arch_type, 0644, arch_type_show, tel_ignore_store);

static struct attribute *arch_attrs[] = {
	&tel_attr_arch_type.attr,
	NULL
};
ATTRIBUTE_GROUPS(arch);

/* A 64-bit activity counter: the high word first, as the reference reads it. */
static u64 tel_pe_read(struct neuron_device *nd, unsigned int bar, u64 off)
{
	u32 hi = neuron_reg_read32(nd, bar, off + 4);
	u32 lo = neuron_reg_read32(nd, bar, off);

	return (u64)hi << 32 | lo;
}

/*
 * neuron_core<k>/stats/tensor_engine/pe_cntrs: the PE array's activity
 * counters, read live at the places the DHAL gives; per row group the
 * matmul-active cycles, the weight-load cycles (the fast ones of every
 * column group, plus the others where the generation counts them) and
 * the idle cycles.
 */
static ssize_t pe_cntrs_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct neuron_tel_node *n = to_node(kobj);
	struct neuron_device *nd = n->td->nd;
	const struct neuron_dhal *dhal = neuron_device_dhal(nd);
	const struct neuron_dhal_pe *pe = dhal->pe;
	unsigned int bar = dhal->layout->apb_bar;
	unsigned int r, c;
	int len;

	if (!pe)
		return -EOPNOTSUPP;
	len = sysfs_emit(buf, "xrow_grp,mm_active,wl_active,idle\n");
	for (r = 0; r < pe->row_groups; r++) {
		u64 row = (u64)r * pe->xbus_count * pe->grp_size;
		u64 wl = pe->wl ? tel_pe_read(nd, bar, pe->wl[n->nc] + row) : 0;

		for (c = 0; c < pe->col_groups; c++)
			wl += tel_pe_read(nd, bar, pe->fast_wl[n->nc] + row + c * pe->grp_size);
		len += sysfs_emit_at(buf, len, "%u,%llu,%llu,%llu\n", r,
				     tel_pe_read(nd, bar, pe->mm[n->nc] + row), wl,
				     tel_pe_read(nd, bar, pe->idle[n->nc] + row));
	}
	return len;
}

static struct kobj_attribute tel_attr_pe_cntrs =
	__ATTR(pe_cntrs, 0644, pe_cntrs_show, tel_ignore_store);

static struct attribute *tensor_attrs[] = {
	&tel_attr_pe_cntrs.attr,
	NULL
};
ATTRIBUTE_GROUPS(tensor);

/* Look up @nf files of a counter: in directory @dir of @parent, or in @parent with @dir NULL. */
static void tel_files_find(struct kobject *parent, const char *dir, unsigned int nf,
			   struct kernfs_node **kn)
{
	struct kernfs_node *d = parent->sd;
	unsigned int f;

	if (dir) {
		d = sysfs_get_dirent(parent->sd, dir);
		if (!d)
			return;
	}
	for (f = 0; f < nf; f++)
		kn[f] = sysfs_get_dirent(d, neuron_tel_field_names[f]);
	if (dir)
		sysfs_put(d);
}

/* Look up the files of counters @c of core @nc (or the device) under @parent, by tel_slot(). */
static void tel_counters_find(struct kobject *parent, const struct neuron_tel_counters *c,
			      int nc, struct neuron_tel_files *files)
{
	struct neuron_tel_files *cf = &files[tel_slot(nc, c->first)];
	unsigned int i;

	for (i = 0; i < c->count; i++)
		tel_files_find(parent, c->group[i].name, c->nf, cf[i].kn);
}

/* Drop the references of @ts's files and forget them. */
static void tel_files_put(struct neuron_tel_sysfs *ts)
{
	unsigned int i, f, n = tel_slot(ts->ncs, 0);

	if (!ts->files)
		return;
	for (i = 0; i < n; i++)
		for (f = 0; f < NEURON_STAT_FIELDS; f++)
			sysfs_put(ts->files[i].kn[f]);
	kfree(ts->files);
	ts->files = NULL;
}

/*
 * Look up the files of @ts's counters, for notifications, unless done
 * already; without memory, its counters notify no one (and the log says
 * so).  Called with neuron_tel_notify_lock held, on a complete tree.
 */
static void tel_files_lookup(struct neuron_tel_sysfs *ts)
{
	/* Each core's counters, by parent directory. */
	static const struct {
		enum tel_nc_dir dir;
		struct neuron_tel_counters **c;
	} lists[] = {
		{ TEL_NC_MEM, &tel_nc_host },
		{ TEL_NC_DEVMEM, &tel_nc_dev },
		{ TEL_NC_DEVMEM, &tel_nc_dev_cats },
		{ TEL_NC_STATUS, &tel_nc_status },
		{ TEL_NC_OTHER, &tel_nc_other },
	};
	struct neuron_tel_files *kn;
	unsigned int nc, i;

	lockdep_assert_held(&neuron_tel_notify_lock);
	if (ts->files)
		return;
	kn = kcalloc(tel_slot(ts->ncs, 0), sizeof(*kn), GFP_KERNEL);
	if (!kn) {
		pr_warn("no memory for counter notifications\n");
		return;
	}
	tel_counters_find(ts->host, tel_host_cats, NEURON_STATS_DEVICE, kn);
	for (nc = 0; nc < ts->ncs; nc++) {
		/* Not a core of this device (the DHAL's map of cores). */
		if (!ts->core[nc][TEL_NC_STATUS])
			continue;
		for (i = 0; i < ARRAY_SIZE(lists); i++)
			tel_counters_find(ts->core[nc][lists[i].dir], *lists[i].c, nc, kn);
	}
	/* The listener reads the files only once they are all there. */
	smp_store_release(&ts->files, kn);
}

/* info/notify_delay, on the core's info/ directory. */
static ssize_t notify_delay_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(neuron_tel_notify_delay));
}

static ssize_t notify_delay_store(struct kobject *kobj, struct kobj_attribute *a,
				  const char *buf, size_t count)
{
	struct neuron_tel_sysfs *ts;
	int v, ret;

	ret = kstrtoint(buf, 10, &v);
	if (ret)
		return ret;
	if (v != 0 && v != -1)
		return -EINVAL;
	/* No call on each counter update while no one asked for notifications. */
	mutex_lock(&neuron_tel_notify_lock);
	if (!v)
		list_for_each_entry(ts, &neuron_tel_trees, link)
			tel_files_lookup(ts);
	WRITE_ONCE(neuron_tel_notify_delay, v);
	neuron_stats_notify_enable(!v);
	mutex_unlock(&neuron_tel_notify_lock);
	return count;
}

static struct kobj_attribute tel_attr_notify_delay =
	__ATTR(notify_delay, 0644, notify_delay_show, notify_delay_store);

static const struct kobj_type tel_dir_ktype = {
	.release = neuron_tel_node_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

/* Add directory @name under @parent, with the files of @groups (if any); ERR_PTR() on failure. */
static struct kobject *tel_node_add(struct neuron_tel_dev *td, struct kobject *parent, int nc,
				    const char *name, const struct attribute_group **groups)
{
	struct neuron_tel_node *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	n->td = td;
	n->nc = nc;
	ret = kobject_init_and_add(&n->kobj, &tel_dir_ktype, parent, "%s", name);
	if (ret) {
		kobject_put(&n->kobj);
		return ERR_PTR(ret);
	}
	/* From here on the teardown removes it, with what groups it has. */
	list_add(&n->link, &td->sysfs->nodes);
	if (groups) {
		ret = sysfs_create_groups(&n->kobj, groups);
		if (ret)
			return ERR_PTR(ret);
	}
	return &n->kobj;
}

/* neuron_core<nc>/ and everything under it. */
static int tel_core_add(struct neuron_tel_dev *td, struct kobject *parent, unsigned int nc)
{
	struct kobject **d = td->sysfs->core[nc];
	struct kobject *core, *info, *stats, *k;
	char name[24];
	int ret;

	snprintf(name, sizeof(name), "neuron_core%u", nc);
	core = tel_node_add(td, parent, nc, name, NULL);
	if (IS_ERR(core))
		return PTR_ERR(core);
	info = tel_node_add(td, core, nc, "info", NULL);
	if (IS_ERR(info))
		return PTR_ERR(info);
	k = tel_node_add(td, info, nc, "architecture", arch_groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	stats = tel_node_add(td, core, nc, "stats", NULL);
	if (IS_ERR(stats))
		return PTR_ERR(stats);
	k = tel_node_add(td, stats, nc, "status", tel_nc_status->groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	d[TEL_NC_STATUS] = k;
	k = tel_node_add(td, stats, nc, "memory_usage", tel_nc_host->groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	d[TEL_NC_MEM] = k;
	k = tel_node_add(td, k, nc, "device_mem", tel_nc_dev->groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	d[TEL_NC_DEVMEM] = k;
	ret = sysfs_create_groups(k, tel_nc_dev_cats->groups);
	if (ret)
		return ret;
	k = tel_node_add(td, stats, nc, "other_info", tel_nc_other->groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	d[TEL_NC_OTHER] = k;
	k = tel_node_add(td, stats, nc, "tensor_engine", tensor_groups);
	return PTR_ERR_OR_ZERO(k);
}

/* The device-level part: stats/ and what is under it. */
static int tel_device_add(struct neuron_tel_dev *td, struct kobject *parent)
{
	const int dev = NEURON_STATS_DEVICE;
	struct kobject *stats, *mem, *k;

	stats = tel_node_add(td, parent, dev, "stats", NULL);
	if (IS_ERR(stats))
		return PTR_ERR(stats);
	mem = tel_node_add(td, stats, dev, "memory_usage", NULL);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	k = tel_node_add(td, mem, dev, "host_mem", tel_host_cats->groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	td->sysfs->host = k;
	k = tel_node_add(td, stats, dev, "hardware", hardware_groups);
	if (IS_ERR(k))
		return PTR_ERR(k);
	if (neuron_tel_health_enabled(td)) {
		int ret = tel_health_add(td, k);

		if (ret)
			return ret;
	}
	k = tel_node_add(td, stats, dev, "power", power_groups);
	return PTR_ERR_OR_ZERO(k);
}

/* The core's listener: wake pollers of the counter's files. */
static void neuron_tel_notify(void *ctx, int nc, unsigned int id)
{
	struct neuron_tel_sysfs *ts = ctx;
	struct neuron_tel_files *files;
	unsigned int f;

	if (READ_ONCE(neuron_tel_notify_delay))
		return;
	/* NULL until notifications were turned on while the tree was there. */
	files = smp_load_acquire(&ts->files);
	if (!files)
		return;
	if (nc == NEURON_STATS_DEVICE ? id >= NEURON_STATS_HOST_CATS :
	    nc < 0 || nc >= ts->ncs || id >= NEURON_STATS_NC_COUNT)
		return;
	files += tel_slot(nc, id);
	for (f = 0; f < NEURON_STAT_FIELDS; f++)
		if (files->kn[f])
			kernfs_notify(files->kn[f]);
}

/**
 * neuron_tel_sysfs_remove() - take a device's statistics tree down
 * @td: the plane's device state
 *
 * Context: the plane's device callbacks (serialised per device).
 */
void neuron_tel_sysfs_remove(struct neuron_tel_dev *td)
{
	struct neuron_tel_sysfs *ts = td->sysfs;
	struct neuron_tel_node *n, *tmp;

	if (!ts)
		return;
	/*
	 * Out of the list first, not around the removal of notify_delay
	 * below: that waits for a writer of the file, which takes the lock.
	 */
	mutex_lock(&neuron_tel_notify_lock);
	if (ts->listed)
		list_del(&ts->link);
	mutex_unlock(&neuron_tel_notify_lock);
	/* No notification after this: the files may go. */
	neuron_stats_set_notify(td->nd, NULL, NULL);
	neuron_tel_health_set_file(td, NULL);
	tel_files_put(ts);
	if (ts->notify_file)
		sysfs_remove_file(neuron_device_info_kobj(td->nd), &tel_attr_notify_delay.attr);
	/* Children first: the list is newest first. */
	list_for_each_entry(n, &ts->nodes, link)
		kobject_del(&n->kobj);
	list_for_each_entry_safe(n, tmp, &ts->nodes, link) {
		list_del(&n->link);
		kobject_put(&n->kobj);
	}
	td->sysfs = NULL;
	kfree(ts);
}

/* Every node of @td's tree; what was added stays for the caller to remove. */
static int tel_tree_build(struct neuron_tel_dev *td, const struct neuron_dhal *dhal,
			  struct kobject *info, struct kobject *dev)
{
	struct neuron_tel_sysfs *ts = td->sysfs;
	unsigned int nc;
	int ret;

	lockdep_assert_held(&neuron_tel_build_lock);
	ret = sysfs_create_file(info, &tel_attr_notify_delay.attr);
	if (ret)
		return ret;
	ts->notify_file = true;
	ret = tel_device_add(td, dev);
	for (nc = 0; nc < ts->ncs && !ret; nc++)
		if (dhal->layout->nc_map & BIT(nc))
			ret = tel_core_add(td, dev, nc);
	return ret;
}

/**
 * neuron_tel_sysfs_add() - build a device's statistics tree
 * @td: the plane's device state, its device published
 *
 * The tree is optional: on failure the device goes on without it (and the
 * log says so).
 *
 * Context: the plane's device callbacks (serialised per device).
 */
void neuron_tel_sysfs_add(struct neuron_tel_dev *td)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);
	struct kobject *dev = neuron_device_kobj(td->nd);
	struct kobject *info = neuron_device_info_kobj(td->nd);
	struct neuron_tel_sysfs *ts;
	int ret;

	if (!dhal || !info)
		return;
	ts = kzalloc(sizeof(*ts), GFP_KERNEL);
	if (!ts) {
		ret = -ENOMEM;
		goto err;
	}
	INIT_LIST_HEAD(&ts->nodes);
	td->sysfs = ts;
	ts->ncs = min_t(u32, dhal->layout->nc_count, NEURON_STATS_MAX_NC);
	mutex_lock(&neuron_tel_build_lock);
	ret = tel_tree_build(td, dhal, info, dev);
	mutex_unlock(&neuron_tel_build_lock);
	if (ret)
		goto err_tree;
	mutex_lock(&neuron_tel_notify_lock);
	list_add(&ts->link, &neuron_tel_trees);
	ts->listed = true;
	if (!READ_ONCE(neuron_tel_notify_delay))
		tel_files_lookup(ts);
	mutex_unlock(&neuron_tel_notify_lock);
	neuron_stats_set_notify(td->nd, neuron_tel_notify, ts);
	return;

err_tree:
	neuron_tel_sysfs_remove(td);
err:
	pr_warn("neuron%d: no statistics in sysfs: %d\n", neuron_device_index(td->nd), ret);
}
