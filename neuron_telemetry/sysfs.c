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
 *                   mem_ecc_repairable_uncorrected}
 *   stats/power/utilization
 *   neuron_core<k>/info/architecture/arch_type
 *   neuron_core<k>/stats/status/<name>/{total,present}
 *   neuron_core<k>/stats/memory_usage/{host_mem,device_mem}/{total,present,peak}
 *   neuron_core<k>/stats/memory_usage/device_mem/<category>/{total,present,peak}
 *   neuron_core<k>/stats/other_info/<name>/{total,present}
 *   neuron_core<k>/stats/tensor_engine/pe_cntrs
 *
 * The counters are neuron_core's (include/neuron/stats.h): this file only
 * presents them, so the tree can go with the module and come back with
 * it without losing a count.  Each directory is a kobject of this file
 * (struct neuron_tel_node) that knows its device, core and counter.  The
 * tree is built when the device is published to the plane and torn down,
 * children first, when the plane lets the device go; kernfs waits for
 * readers and writers in a file before its removal returns, so no show or
 * store runs on a node that is gone.
 *
 * With info/notify_delay 0, every change of a counter wakes pollers of its
 * files (kernfs_notify(), which any context may call: the core calls the
 * listener with its statistics spinlock held).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/list.h>
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
/* Serialises writers of neuron_tel_notify_delay and the core's switch that follows it. */
static DEFINE_MUTEX(neuron_tel_notify_lock);

/* MiscRAM words firmware reports ECC counts in. */
#define TEL_MISC_SRAM_ECC	0x40
#define TEL_MISC_HBM_ECC(ch)	(0x44 + 4 * (ch))
#define TEL_MISC_HBM_REPAIR	0x64
#define TEL_MISC_NOT_READY	0xdeadbeef
#define TEL_ECC_COUNT		0xffff
/* An HBM word from the DHAL's &neuron_dhal_fw.hbm_ecc_split_api on. */
#define TEL_ECC_SPLIT_UE	GENMASK(15, 12)
#define TEL_ECC_SPLIT_REPAIRABLE	GENMASK(11, 0)
/* HBM repair states (TEL_MISC_HBM_REPAIR & TEL_REPAIR_MASK). */
#define TEL_REPAIR_MASK		3
#define TEL_REPAIR_LEGACY	0
#define TEL_REPAIR_PENDING	1
#define TEL_REPAIR_DONE		2

/**
 * struct neuron_tel_node - one directory of the tree
 * @kobj: its kobject; its type says which files it has
 * @link: entry in &neuron_tel_sysfs.nodes, newest first
 * @td: the plane's device state
 * @nc: the core it belongs to, or NEURON_STATS_DEVICE
 * @id: for a counter, the counter (include/neuron/stats.h)
 * @kn: for a counter, its files (a reference each), for notifications
 */
struct neuron_tel_node {
	struct kobject kobj;
	struct list_head link;
	struct neuron_tel_dev *td;
	int nc;
	unsigned int id;
	struct kernfs_node *kn[NEURON_STAT_FIELDS];
};

/**
 * struct neuron_tel_sysfs - the tree of one device
 * @nodes: every directory, newest first (children before their parent)
 * @host: the device-level counters' directories
 * @nc: the per-core counters' directories (NULL for absent cores)
 * @ncs: cores with a directory (below NEURON_STATS_MAX_NC)
 * @notify_file: info/notify_delay was added
 *
 * Changed only by the plane's callbacks, serialised per device; the
 * arrays are read by the notification listener, registered only once
 * they are complete and unregistered before they go.
 */
struct neuron_tel_sysfs {
	struct list_head nodes;
	struct neuron_tel_node *host[NEURON_STATS_HOST_CATS];
	struct neuron_tel_node *nc[NEURON_STATS_MAX_NC][NEURON_STATS_NC_COUNT];
	unsigned int ncs;
	bool notify_file;
};

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
 * struct neuron_tel_field_attr - a file of a counter
 * @attr: the file
 * @field: the counter's field it shows
 */
struct neuron_tel_field_attr {
	struct kobj_attribute attr;
	enum neuron_stat_field field;
};

static enum neuron_stat_field to_field(struct kobj_attribute *a)
{
	return container_of(a, struct neuron_tel_field_attr, attr)->field;
}

static ssize_t counter_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct neuron_tel_node *n = to_node(kobj);
	struct neuron_stat s;
	u64 v;
	int ret;

	ret = neuron_stats_read(n->td->nd, n->nc, n->id, &s);
	if (ret)
		return ret;
	switch (to_field(a)) {
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
	struct neuron_tel_node *n = to_node(kobj);
	int ret;

	ret = neuron_stats_clear(n->td->nd, n->nc, n->id, to_field(a));
	return ret ? ret : count;
}

#define TEL_FIELD_ATTR(_name, _field) \
	static struct neuron_tel_field_attr tel_attr_##_name = { \
		.attr = __ATTR(_name, 0644, counter_show, counter_store), \
		.field = (_field), \
	}

TEL_FIELD_ATTR(total, NEURON_STAT_TOTAL);
TEL_FIELD_ATTR(present, NEURON_STAT_PRESENT);
TEL_FIELD_ATTR(peak, NEURON_STAT_PEAK);

/* The names of the files, by field (for notifications). */
static const char *const neuron_tel_field_names[NEURON_STAT_FIELDS] = {
	[NEURON_STAT_TOTAL] = "total",
	[NEURON_STAT_PRESENT] = "present",
	[NEURON_STAT_PEAK] = "peak",
};

static struct attribute *counter3_attrs[] = {
	&tel_attr_total.attr.attr,
	&tel_attr_present.attr.attr,
	&tel_attr_peak.attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(counter3);

static struct attribute *counter2_attrs[] = {
	&tel_attr_total.attr.attr,
	&tel_attr_present.attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(counter2);

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

static struct kobj_attribute tel_attr_sram_ecc =
	__ATTR(sram_ecc_uncorrected, 0644, sram_ecc_uncorrected_show, tel_ignore_store);
static struct kobj_attribute tel_attr_mem_ecc =
	__ATTR(mem_ecc_uncorrected, 0644, mem_ecc_uncorrected_show, tel_ignore_store);
static struct kobj_attribute tel_attr_mem_ecc_rep =
	__ATTR(mem_ecc_repairable_uncorrected, 0644, mem_ecc_repairable_uncorrected_show,
	       tel_ignore_store);

static struct attribute *hardware_attrs[] = {
	&tel_attr_sram_ecc.attr,
	&tel_attr_mem_ecc.attr,
	&tel_attr_mem_ecc_rep.attr,
	NULL
};
ATTRIBUTE_GROUPS(hardware);

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

static struct attribute *power_attrs[] = {
	&tel_attr_utilization.attr,
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

/* info/notify_delay, on the core's info/ directory. */
static ssize_t notify_delay_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(neuron_tel_notify_delay));
}

static ssize_t notify_delay_store(struct kobject *kobj, struct kobj_attribute *a,
				  const char *buf, size_t count)
{
	int v, ret;

	ret = kstrtoint(buf, 10, &v);
	if (ret)
		return ret;
	if (v != 0 && v != -1)
		return -EINVAL;
	/* No call on each counter update while no one asked for notifications. */
	mutex_lock(&neuron_tel_notify_lock);
	WRITE_ONCE(neuron_tel_notify_delay, v);
	neuron_stats_notify_enable(!v);
	mutex_unlock(&neuron_tel_notify_lock);
	return count;
}

static struct kobj_attribute tel_attr_notify_delay =
	__ATTR(notify_delay, 0644, notify_delay_show, notify_delay_store);

/* The kinds of directory: by the files they have. */
#define TEL_KTYPE(_name, _groups) \
	static const struct kobj_type _name = { \
		.release = neuron_tel_node_release, \
		.sysfs_ops = &kobj_sysfs_ops, \
		.default_groups = (_groups), \
	}

TEL_KTYPE(tel_dir_ktype, NULL);
TEL_KTYPE(tel_counter3_ktype, counter3_groups);
TEL_KTYPE(tel_counter2_ktype, counter2_groups);
TEL_KTYPE(tel_hardware_ktype, hardware_groups);
TEL_KTYPE(tel_power_ktype, power_groups);
TEL_KTYPE(tel_arch_ktype, arch_groups);
TEL_KTYPE(tel_tensor_ktype, tensor_groups);

/* Add directory @name under @parent; an ERR_PTR() on failure. */
static struct neuron_tel_node *tel_node_add(struct neuron_tel_dev *td, struct kobject *parent,
					    const struct kobj_type *kt, int nc, unsigned int id,
					    const char *name)
{
	struct neuron_tel_node *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	n->td = td;
	n->nc = nc;
	n->id = id;
	ret = kobject_init_and_add(&n->kobj, kt, parent, "%s", name);
	if (ret) {
		kobject_put(&n->kobj);
		return ERR_PTR(ret);
	}
	list_add(&n->link, &td->sysfs->nodes);
	return n;
}

/* Add counter @id of core @nc (or the device) as directory @name under @parent. */
static struct neuron_tel_node *tel_counter_add(struct neuron_tel_dev *td, struct kobject *parent,
					       const char *name, int nc, unsigned int id,
					       bool peak)
{
	struct neuron_tel_sysfs *ts = td->sysfs;
	struct neuron_tel_node *n;
	unsigned int f;

	n = tel_node_add(td, parent, peak ? &tel_counter3_ktype : &tel_counter2_ktype, nc, id,
			 name);
	if (IS_ERR(n))
		return n;
	for (f = 0; f < (peak ? NEURON_STAT_FIELDS : NEURON_STAT_PEAK); f++)
		n->kn[f] = sysfs_get_dirent(n->kobj.sd, neuron_tel_field_names[f]);
	if (nc == NEURON_STATS_DEVICE)
		ts->host[id] = n;
	else
		ts->nc[nc][id] = n;
	return n;
}

/* Add a list of counters of core @nc, from @first on, under a new directory @name. */
static int tel_counters_add(struct neuron_tel_dev *td, struct kobject *parent, const char *name,
			    int nc, unsigned int first, const char *const *names,
			    unsigned int count, bool peak)
{
	struct neuron_tel_node *dir, *n;
	unsigned int i;

	dir = tel_node_add(td, parent, &tel_dir_ktype, nc, 0, name);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < count; i++) {
		n = tel_counter_add(td, &dir->kobj, names[i], nc, first + i, peak);
		if (IS_ERR(n))
			return PTR_ERR(n);
	}
	return 0;
}

/* neuron_core<nc>/ and everything under it. */
static int tel_core_add(struct neuron_tel_dev *td, struct kobject *parent, unsigned int nc)
{
	struct neuron_tel_node *core, *info, *stats, *mem, *n;
	char name[24];
	unsigned int i;
	int ret;

	snprintf(name, sizeof(name), "neuron_core%u", nc);
	core = tel_node_add(td, parent, &tel_dir_ktype, nc, 0, name);
	if (IS_ERR(core))
		return PTR_ERR(core);
	info = tel_node_add(td, &core->kobj, &tel_dir_ktype, nc, 0, "info");
	if (IS_ERR(info))
		return PTR_ERR(info);
	n = tel_node_add(td, &info->kobj, &tel_arch_ktype, nc, 0, "architecture");
	if (IS_ERR(n))
		return PTR_ERR(n);
	stats = tel_node_add(td, &core->kobj, &tel_dir_ktype, nc, 0, "stats");
	if (IS_ERR(stats))
		return PTR_ERR(stats);
	ret = tel_counters_add(td, &stats->kobj, "status", nc, NEURON_STATS_NC_STATUS,
			       neuron_stats_status_names, NEURON_STATS_STATUSES, false);
	if (ret)
		return ret;
	mem = tel_node_add(td, &stats->kobj, &tel_dir_ktype, nc, 0, "memory_usage");
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	n = tel_counter_add(td, &mem->kobj, "host_mem", nc, NEURON_STATS_NC_HOST_MEM, true);
	if (IS_ERR(n))
		return PTR_ERR(n);
	n = tel_counter_add(td, &mem->kobj, "device_mem", nc, NEURON_STATS_NC_DEVICE_MEM, true);
	if (IS_ERR(n))
		return PTR_ERR(n);
	for (i = 0; i < NEURON_STATS_DEV_CATS; i++) {
		struct neuron_tel_node *c;

		c = tel_counter_add(td, &n->kobj, neuron_stats_dev_names[i], nc,
				    NEURON_STATS_NC_DEV_CAT + i, true);
		if (IS_ERR(c))
			return PTR_ERR(c);
	}
	ret = tel_counters_add(td, &stats->kobj, "other_info", nc, NEURON_STATS_NC_OTHER,
			       neuron_stats_other_names, NEURON_STATS_OTHERS, false);
	if (ret)
		return ret;
	n = tel_node_add(td, &stats->kobj, &tel_tensor_ktype, nc, 0, "tensor_engine");
	return PTR_ERR_OR_ZERO(n);
}

/* The device-level part: stats/ and what is under it. */
static int tel_device_add(struct neuron_tel_dev *td, struct kobject *parent)
{
	struct neuron_tel_node *stats, *mem, *n;
	int ret;

	stats = tel_node_add(td, parent, &tel_dir_ktype, NEURON_STATS_DEVICE, 0, "stats");
	if (IS_ERR(stats))
		return PTR_ERR(stats);
	mem = tel_node_add(td, &stats->kobj, &tel_dir_ktype, NEURON_STATS_DEVICE, 0,
			   "memory_usage");
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	ret = tel_counters_add(td, &mem->kobj, "host_mem", NEURON_STATS_DEVICE, 0,
			       neuron_stats_host_names, NEURON_STATS_HOST_CATS, true);
	if (ret)
		return ret;
	n = tel_node_add(td, &stats->kobj, &tel_hardware_ktype, NEURON_STATS_DEVICE, 0,
			 "hardware");
	if (IS_ERR(n))
		return PTR_ERR(n);
	n = tel_node_add(td, &stats->kobj, &tel_power_ktype, NEURON_STATS_DEVICE, 0, "power");
	return PTR_ERR_OR_ZERO(n);
}

/* The core's listener: wake pollers of the counter's files. */
static void neuron_tel_notify(void *ctx, int nc, unsigned int id)
{
	struct neuron_tel_sysfs *ts = ctx;
	struct neuron_tel_node *n = NULL;
	unsigned int f;

	if (READ_ONCE(neuron_tel_notify_delay))
		return;
	if (nc == NEURON_STATS_DEVICE && id < NEURON_STATS_HOST_CATS)
		n = ts->host[id];
	else if (nc >= 0 && nc < ts->ncs && id < NEURON_STATS_NC_COUNT)
		n = ts->nc[nc][id];
	if (!n)
		return;
	for (f = 0; f < NEURON_STAT_FIELDS; f++)
		if (n->kn[f])
			kernfs_notify(n->kn[f]);
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
	unsigned int f;

	if (!ts)
		return;
	/* No notification after this: the nodes may go. */
	neuron_stats_set_notify(td->nd, NULL, NULL);
	if (ts->notify_file)
		sysfs_remove_file(neuron_device_info_kobj(td->nd), &tel_attr_notify_delay.attr);
	/* Children first: the list is newest first. */
	list_for_each_entry(n, &ts->nodes, link) {
		for (f = 0; f < NEURON_STAT_FIELDS; f++)
			kernfs_put(n->kn[f]);
		kobject_del(&n->kobj);
	}
	list_for_each_entry_safe(n, tmp, &ts->nodes, link) {
		list_del(&n->link);
		kobject_put(&n->kobj);
	}
	td->sysfs = NULL;
	kfree(ts);
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
	unsigned int nc;
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
	ret = sysfs_create_file(info, &tel_attr_notify_delay.attr);
	if (ret)
		goto err_tree;
	ts->notify_file = true;
	ret = tel_device_add(td, dev);
	for (nc = 0; nc < ts->ncs && !ret; nc++)
		if (dhal->layout->nc_map & BIT(nc))
			ret = tel_core_add(td, dev, nc);
	if (ret)
		goto err_tree;
	neuron_stats_set_notify(td->nd, neuron_tel_notify, ts);
	return;

err_tree:
	neuron_tel_sysfs_remove(td);
err:
	pr_warn("neuron%d: no statistics in sysfs: %d\n", neuron_device_index(td->nd), ret);
}
