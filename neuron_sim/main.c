// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim: simulated Neuron devices, for testing without hardware.
 *
 * The module registers the neuron_sim bus.  Writing "ID GEN [OPTIONS]" to
 * /sys/bus/neuron_sim/new_device adds device neuron_sim<ID> to it and hands
 * it to the core through the same device-layer API the PCI glue uses;
 * writing ID to del_device removes it.  No driver binds on this bus: the
 * simulator creates and destroys the core's device itself.  See
 * Documentation/simulator.rst.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/version.h>

#include "sim.h"

/*
 * Module parameter mem_size: bytes of RAM behind BAR 4 of each device.  A
 * power of two from 1 MiB to 1 GiB; K, M and G suffixes are accepted.
 */
static unsigned long nsim_mem_size = SZ_64M;

/* A device memory size in @val: into @size, or -EINVAL (@size unchanged). */
static int nsim_mem_size_parse(const char *val, unsigned long *size)
{
	unsigned long long v;
	char *end;

	v = memparse(val, &end);
	if (end == val || (*end && strcmp(end, "\n")))
		return -EINVAL;
	if (v < SZ_1M || v > SZ_1G || !is_power_of_2(v))
		return -EINVAL;
	*size = v;
	return 0;
}

static int nsim_mem_size_set(const char *val, const struct kernel_param *kp)
{
	return nsim_mem_size_parse(val, kp->arg);
}

static const struct kernel_param_ops nsim_mem_size_ops = {
	.set = nsim_mem_size_set,
	.get = param_get_ulong,
};

module_param_cb(mem_size, &nsim_mem_size_ops, &nsim_mem_size, 0444);
MODULE_PARM_DESC(mem_size,
		 "Device memory (BAR 4) of each simulated device in bytes, a power of two from 1M to 1G (default: 64M)");

/*
 * Trn2 and Trn3 share the register map the simulator models: only their
 * names, generations and PCI device ids differ.
 */
#define NSIM_GEN_V3_MAP(_name, _gen, _pci_device)	\
	{						\
		.name = _name,				\
		.gen = _gen,				\
		.pci_device = _pci_device,		\
		.bar0_size = SZ_4G,			\
		.misc_base = 0x06c84000,		\
		.qemu_reset_reg = 0x06300010,		\
		.csr_dev_base = 0x8000000000ULL,	\
		.csr_dev_size = SZ_512M,		\
		.nc_count = 8,				\
		.nc_base = 0xd0000000,			\
		.nc_stride = NSIM_NC_STRIDE,		\
		.ts_count = 16,				\
		.ts_base = 0xf0000000,			\
		.ts_per_group = 8,			\
		.ts_group_stride = 0x2800000,		\
	}

const struct nsim_gen nsim_gens[NSIM_GENS] = {
	[NSIM_GEN_V2] = {
		.name = "v2",
		.gen = 2,
		.pci_device = 0x7164,
		.bar0_size = SZ_1G,
		.misc_base = 0x30fa0000,
		.qemu_reset_reg = 0x30647010,
		.csr_dev_base = 0xfffc0000000ULL,
		.csr_dev_size = SZ_1G,
		.nc_count = 2,
		.nc_base = 0,
		.nc_stride = NSIM_NC_STRIDE,
		.ts_count = 6,
		.ts_base = 0x10000000,
		.ts_per_group = 6,
	},
	[NSIM_GEN_V3] = NSIM_GEN_V3_MAP("v3", 3, 0x7364),
	[NSIM_GEN_V4] = NSIM_GEN_V3_MAP("v4", 4, 0x7564),
};
EXPORT_SYMBOL_IF_KUNIT(nsim_gens);

/* PCI device ids new_device accepts, with their generation. */
static const struct {
	u16 device;
	const struct nsim_gen *gen;
} nsim_pci_ids[] = {
	{ 0x7164, &nsim_gens[NSIM_GEN_V2] },
	{ 0x7264, &nsim_gens[NSIM_GEN_V2] },
	{ 0x7364, &nsim_gens[NSIM_GEN_V3] },
	{ 0x7564, &nsim_gens[NSIM_GEN_V4] },
	{ 0x7565, &nsim_gens[NSIM_GEN_V4] },
};

/*
 * nsim_lock protects nsim_devs[] and nsim_enabled, and serialises adding and
 * removing devices, so that an id is free again only once its device is
 * gone.  Sysfs readers of a device never take it.
 */
static DEFINE_MUTEX(nsim_lock);
static struct nsim_dev *nsim_devs[NSIM_MAX_DEVICES];
/* False while the module is going away: new_device then fails. */
static bool nsim_enabled;

static struct nsim_dev *to_nsim_dev(struct device *dev)
{
	return container_of(dev, struct nsim_dev, dev);
}

static ssize_t generation_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_nsim_dev(dev)->gen->name);
}
static DEVICE_ATTR_RO(generation);

static ssize_t pci_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", to_nsim_dev(dev)->pci_device);
}
static DEVICE_ATTR_RO(pci_device);

static ssize_t routing_id_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_nsim_dev(dev)->rid);
}
static DEVICE_ATTR_RO(routing_id);

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct nsim_dev *sd = to_nsim_dev(dev);
	const char *name = "none";

	mutex_lock(&sd->nd_lock);
	if (sd->nd)
		name = neuron_device_state_name(neuron_bus_device_state(sd->nd));
	mutex_unlock(&sd->nd_lock);
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(state);

static ssize_t index_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct nsim_dev *sd = to_nsim_dev(dev);
	int index = -1;

	mutex_lock(&sd->nd_lock);
	if (sd->nd)
		index = neuron_bus_device_index(sd->nd);
	mutex_unlock(&sd->nd_lock);
	return sysfs_emit(buf, "%d\n", index);
}
static DEVICE_ATTR_RO(index);

static struct attribute *nsim_dev_attrs[] = {
	&dev_attr_generation.attr,
	&dev_attr_pci_device.attr,
	&dev_attr_routing_id.attr,
	&dev_attr_state.attr,
	&dev_attr_index.attr,
	NULL
};
ATTRIBUTE_GROUPS(nsim_dev);

static void nsim_dev_release(struct device *dev)
{
	struct nsim_dev *sd = to_nsim_dev(dev);

	nsim_regs_fini(sd);
	mutex_destroy(&sd->nd_lock);
	kfree(sd);
}

/*
 * The driver core takes a const struct bus_type after 6.1; 6.1 still writes
 * into it in bus_register().  The bus gets the qualifiers struct device
 * gives its bus pointer: const where the driver core allows, else writable.
 */
#define NSIM_BUS_TYPE typeof(*((struct device *)NULL)->bus)

static NSIM_BUS_TYPE nsim_bus;

/**
 * struct nsim_args - a parsed new_device line
 * @id: simulator id
 * @rid: routing id to report
 * @gen: generation
 * @pci_device: PCI device id
 * @revision: PCI revision
 * @fault: fault switch position from creation on
 * @mem_size: bytes of device memory, or 0 for the module's mem_size
 */
struct nsim_args {
	unsigned int id;
	unsigned int rid;
	const struct nsim_gen *gen;
	u16 pci_device;
	u8 revision;
	enum nsim_fault fault;
	unsigned long mem_size;
};

static int nsim_parse_gen(const char *s, struct nsim_args *args)
{
	unsigned int i;
	u16 device;

	for (i = 0; i < ARRAY_SIZE(nsim_gens); i++) {
		if (!strcmp(s, nsim_gens[i].name)) {
			args->gen = &nsim_gens[i];
			args->pci_device = nsim_gens[i].pci_device;
			return 0;
		}
	}
	if (kstrtou16(s, 16, &device))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(nsim_pci_ids); i++) {
		if (nsim_pci_ids[i].device == device) {
			args->gen = nsim_pci_ids[i].gen;
			args->pci_device = device;
			return 0;
		}
	}
	return -EINVAL;
}

static int nsim_parse_option(char *opt, struct nsim_args *args)
{
	char *val = strchr(opt, '=');

	if (!val) {
		pr_info("new_device: option '%s' is not key=value\n", opt);
		return -EINVAL;
	}
	*val++ = '\0';

	if (!strcmp(opt, "rid")) {
		if (kstrtouint(val, 0, &args->rid) ||
		    args->rid >= NSIM_MAX_DEVICES) {
			pr_info("new_device: rid must be 0..%d\n",
				NSIM_MAX_DEVICES - 1);
			return -EINVAL;
		}
	} else if (!strcmp(opt, "fault")) {
		if (nsim_fault_parse(val, &args->fault)) {
			pr_info("new_device: unknown fault '%s'\n", val);
			return -EINVAL;
		}
	} else if (!strcmp(opt, "rev")) {
		if (kstrtou8(val, 0, &args->revision)) {
			pr_info("new_device: rev must be 0..255\n");
			return -EINVAL;
		}
	} else if (!strcmp(opt, "mem")) {
		if (nsim_mem_size_parse(val, &args->mem_size)) {
			pr_info("new_device: mem must be a power of two from 1M to 1G\n");
			return -EINVAL;
		}
	} else {
		pr_info("new_device: unknown option '%s'\n", opt);
		return -EINVAL;
	}
	return 0;
}

/* Parse "ID GEN [OPTIONS]" in @line, which is modified. */
static int nsim_parse_new(char *line, struct nsim_args *args)
{
	bool have_rid = false;
	unsigned int n = 0;
	char *tok;
	int ret;

	while ((tok = strsep(&line, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		switch (n++) {
		case 0:
			if (kstrtouint(tok, 10, &args->id) ||
			    args->id >= NSIM_MAX_DEVICES) {
				pr_info("new_device: ID must be 0..%d\n",
					NSIM_MAX_DEVICES - 1);
				return -EINVAL;
			}
			break;
		case 1:
			if (nsim_parse_gen(tok, args)) {
				pr_info("new_device: unknown generation '%s'\n",
					tok);
				return -EINVAL;
			}
			break;
		default:
			if (!strncmp(tok, "rid=", 4))
				have_rid = true;
			ret = nsim_parse_option(tok, args);
			if (ret)
				return ret;
			break;
		}
	}
	if (n < 2) {
		pr_info("new_device: expected \"ID GEN [OPTIONS]\"\n");
		return -EINVAL;
	}
	if (!have_rid)
		args->rid = args->id;
	return 0;
}

/* Add a device.  Called with nsim_lock held and args->id free. */
static int nsim_dev_new(const struct nsim_args *args)
{
	struct neuron_bus_device *nd;
	struct nsim_dev *sd;
	int ret;

	lockdep_assert_held(&nsim_lock);

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->id = args->id;
	sd->rid = args->rid;
	sd->gen = args->gen;
	sd->pci_device = args->pci_device;
	sd->revision = args->revision;
	sd->mem_size = args->mem_size ?: nsim_mem_size;
	ret = nsim_regs_init(sd, args->fault);
	if (ret) {
		kfree(sd);
		return ret;
	}
	mutex_init(&sd->nd_lock);

	/* From here on the release function frees sd. */
	device_initialize(&sd->dev);
	sd->dev.bus = &nsim_bus;
	sd->dev.groups = nsim_dev_groups;
	sd->dev.release = nsim_dev_release;
	/* Host memory the driver gives the device is mapped through the DMA API. */
	ret = dma_coerce_mask_and_coherent(&sd->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_put;
	ret = dev_set_name(&sd->dev, "neuron_sim%u", sd->id);
	if (ret)
		goto err_put;
	ret = device_add(&sd->dev);
	if (ret)
		goto err_put;

	sd->desc.parent = &sd->dev;
	sd->desc.state_attr = "state";
	sd->desc.id.vendor = NSIM_PCI_VENDOR;
	sd->desc.id.device = sd->pci_device;
	sd->desc.id.revision = sd->revision;
	sd->desc.id.domain = NSIM_PCI_DOMAIN;
	sd->desc.id.bus = sd->id;
	sd->desc.id.devfn = PCI_DEVFN(0, 0);
	sd->desc.simulated = true;
	nsim_regs_fill_desc(sd, &sd->desc);
	nsim_pod_add(sd);

	nd = neuron_device_create(&sd->desc);
	if (IS_ERR_OR_NULL(nd)) {
		ret = nd ? PTR_ERR(nd) : -ENOMEM;
		dev_info(&sd->dev, "the core refused the device: %d\n", ret);
		goto err_del;
	}
	mutex_lock(&sd->nd_lock);
	sd->nd = nd;
	mutex_unlock(&sd->nd_lock);

	nsim_dev_debugfs_add(sd);
	nsim_devs[sd->id] = sd;
	/*
	 * The core logs each device it brings up: one more console line per
	 * device (a slow serial console costs milliseconds a line) only when
	 * a fault is planted, which a reader of the log must know about.
	 */
	if (args->fault)
		dev_info(&sd->dev, "%s (device 0x%04x, rev %u), routing id %u, fault %s\n",
			 sd->gen->name, sd->pci_device, sd->revision, sd->rid,
			 nsim_fault_name(args->fault));
	else
		dev_dbg(&sd->dev, "%s (device 0x%04x, rev %u), routing id %u\n",
			sd->gen->name, sd->pci_device, sd->revision, sd->rid);
	return 0;

err_del:
	nsim_pod_del(sd);
	nsim_regs_stop(sd);
	device_del(&sd->dev);
err_put:
	put_device(&sd->dev);
	return ret;
}

/* Remove a device, in mirror order of nsim_dev_new(). */
static void nsim_dev_del(struct nsim_dev *sd)
{
	struct neuron_bus_device *nd;

	lockdep_assert_held(&nsim_lock);

	nsim_devs[sd->id] = NULL;
	/* Waits for a debugfs reset request in progress, which uses sd->nd. */
	nsim_dev_debugfs_del(sd);

	mutex_lock(&sd->nd_lock);
	nd = sd->nd;
	sd->nd = NULL;
	mutex_unlock(&sd->nd_lock);
	neuron_device_destroy(nd);

	/* The core no longer rings the doorbell: stop a reset in flight. */
	nsim_regs_stop(sd);
	nsim_pod_del(sd);
	device_unregister(&sd->dev);
}

static ssize_t nsim_new_device(const char *buf, size_t count)
{
	struct nsim_args args = {};
	char *line;
	int ret;

	line = kstrndup(buf, count, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	ret = nsim_parse_new(line, &args);
	kfree(line);
	if (ret)
		return ret;

	mutex_lock(&nsim_lock);
	if (!nsim_enabled) {
		ret = -ENODEV;
	} else if (nsim_devs[args.id]) {
		pr_info("new_device: neuron_sim%u exists\n", args.id);
		ret = -EEXIST;
	} else {
		ret = nsim_dev_new(&args);
	}
	mutex_unlock(&nsim_lock);
	return ret ? ret : count;
}

static ssize_t nsim_del_device(const char *buf, size_t count)
{
	unsigned int id;
	int ret = 0;

	if (kstrtouint(buf, 10, &id) || id >= NSIM_MAX_DEVICES) {
		pr_info("del_device: expected an ID 0..%d\n",
			NSIM_MAX_DEVICES - 1);
		return -EINVAL;
	}

	mutex_lock(&nsim_lock);
	if (!nsim_enabled || !nsim_devs[id])
		ret = -ENOENT;
	else
		nsim_dev_del(nsim_devs[id]);
	mutex_unlock(&nsim_lock);
	return ret ? ret : count;
}

/*
 * The bus attribute callbacks take a const struct bus_type from 6.3 on.  The
 * macro defines both spellings and the initialiser picks the one whose type
 * matches what these kernel headers declare, so no version is compared.
 */
#define NSIM_BUS_ATTR_WO(fn)						\
static ssize_t __maybe_unused						\
fn##_store_const(const struct bus_type *bus, const char *buf, size_t count) \
{									\
	return nsim_##fn(buf, count);					\
}									\
static ssize_t __maybe_unused						\
fn##_store_plain(struct bus_type *bus, const char *buf, size_t count)	\
{									\
	return nsim_##fn(buf, count);					\
}									\
static struct bus_attribute bus_attr_##fn = {				\
	.attr = { .name = __stringify(fn), .mode = 0200 },		\
	.store = __builtin_choose_expr(					\
		__same_type(typeof_member(struct bus_attribute, store),	\
			    &fn##_store_const),				\
		fn##_store_const, fn##_store_plain),			\
}

NSIM_BUS_ATTR_WO(new_device);
NSIM_BUS_ATTR_WO(del_device);

static struct attribute *nsim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL
};
ATTRIBUTE_GROUPS(nsim_bus);

static NSIM_BUS_TYPE nsim_bus = {
	.name = "neuron_sim",
	.bus_groups = nsim_bus_groups,
};

static int __init nsim_init(void)
{
	int ret;

	nsim_debugfs_init();
	nsim_enabled = true;
	ret = bus_register(&nsim_bus);
	if (ret) {
		pr_err("cannot register bus %s: %d\n", nsim_bus.name, ret);
		goto err_debugfs;
	}
	return 0;

err_debugfs:
	nsim_enabled = false;
	nsim_debugfs_exit();
	return ret;
}

static void __exit nsim_exit(void)
{
	unsigned int id;

	mutex_lock(&nsim_lock);
	nsim_enabled = false;
	for (id = 0; id < NSIM_MAX_DEVICES; id++)
		if (nsim_devs[id])
			nsim_dev_del(nsim_devs[id]);
	mutex_unlock(&nsim_lock);

	bus_unregister(&nsim_bus);
	nsim_debugfs_exit();
}

module_init(nsim_init);
module_exit(nsim_exit);

NEURON_IMPORT_NS();
MODULE_DESCRIPTION("AWS Neuron accelerator driver: device simulator");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
