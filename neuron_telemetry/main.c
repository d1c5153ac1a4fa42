// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_telemetry: the telemetry plane of the Neuron driver (metrics,
 * sysfs statistics, power).  So far only its skeleton: it registers with
 * neuron_core like the DMA plane does, serves the telemetry command
 * families, all of which answer -EOPNOTSUPP until the plane is written
 * (Documentation/ioctl.rst), and attaches to every device, showing
 * /sys/kernel/debug/neuron/neuronN/telemetry while it is loaded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/plane.h>
#include <neuron/version.h>

/**
 * struct neuron_tel_dev - the plane's state for one device
 * @nd: the device
 * @debugfs: its telemetry file in debugfs
 */
struct neuron_tel_dev {
	struct neuron_device *nd;
	struct dentry *debugfs;
};

#define F1(g, type, fn)	NEURON_IOCTL_F1(g, type, fn)
#define ATT		NEURON_GATE_ATTACHED
/* A command of the plane not written yet: -EOPNOTSUPP. */
#define PENDING		NULL

static const struct neuron_ioctl_family neuron_tel_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	F1(ATT, NEURON_IOCTL_POST_METRIC, PENDING),
	F1(ATT, NEURON_IOCTL_READ_HW_COUNTERS, PENDING),
	F1(ATT, NEURON_IOCTL_POWER_PROFILE, PENDING),
	F1(ATT, NEURON_IOCTL_METRICS_CTRL, PENDING),
	F1(ATT, NEURON_IOCTL_THROTTLING_NOTIFICATIONS, PENDING),
	F1(ATT, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, PENDING),
	F1(ATT, NEURON_IOCTL_AVAILABLE_PERF_PROFILES, PENDING),
};

static int neuron_tel_attach(struct neuron_device *nd, void **priv)
{
	struct neuron_tel_dev *td = kzalloc(sizeof(*td), GFP_KERNEL);

	if (!td)
		return -ENOMEM;
	td->nd = nd;
	*priv = td;
	return 0;
}

/* debugfs: what the plane knows of the device. */
static int neuron_tel_show(struct seq_file *s, void *unused)
{
	struct neuron_tel_dev *td = s->private;
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);

	seq_printf(s, "device: neuron%d\n", neuron_device_index(td->nd));
	seq_printf(s, "generation: %u\n", dhal ? dhal->generation : 0);
	seq_printf(s, "state: %s\n", neuron_device_state_name(neuron_device_state(td->nd)));
	seq_puts(s, "metrics: not implemented\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_tel);

static void neuron_tel_publish(struct neuron_device *nd, void *priv)
{
	struct neuron_tel_dev *td = priv;
	struct dentry *dir = neuron_device_debugfs(nd);

	if (!IS_ERR_OR_NULL(dir))
		td->debugfs = debugfs_create_file("telemetry", 0400, dir, td, &neuron_tel_fops);
}

static void neuron_tel_detach(struct neuron_device *nd, void *priv)
{
	struct neuron_tel_dev *td = priv;

	debugfs_remove(td->debugfs);
	kfree(td);
}

static const struct neuron_plane neuron_tel_plane = {
	.owner = THIS_MODULE,
	.name = "telemetry",
	.id = NEURON_PLANE_TELEMETRY,
	.ioctls = neuron_tel_ioctls,
	.device_attach = neuron_tel_attach,
	.device_publish = neuron_tel_publish,
	.device_detach = neuron_tel_detach,
};
module_neuron_plane(neuron_tel_plane);

NEURON_PLANE_ALIAS("telemetry");
NEURON_IMPORT_NS();
MODULE_DESCRIPTION("AWS Neuron accelerator driver: telemetry plane");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
