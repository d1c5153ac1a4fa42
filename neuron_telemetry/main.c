// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_telemetry: the telemetry plane of the Neuron driver (metrics,
 * sysfs statistics, power).  It registers with neuron_core like the DMA
 * plane does and serves the telemetry commands through the core's firmware
 * mailboxes (include/neuron/fw.h): posting a metrics blob, reading device
 * counters, performance profiles and throttling notifications; and it runs
 * each device's metrics posting thread (metrics.c, with power sampling in
 * power.c), which METRICS_CTRL pauses and resumes.  It attaches to every
 * device, showing /sys/kernel/debug/neuron/neuronN/telemetry while it is
 * loaded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string_helpers.h>
#include <linux/uaccess.h>

#include <neuron/compat.h>
#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/fw.h>
#include <neuron/plane.h>
#include <neuron/stats.h>
#include <neuron/version.h>

#include "telemetry.h"

static struct neuron_tel_dev *neuron_tel_dev(struct neuron_file *nf)
{
	return neuron_plane_priv(nf->nd, NEURON_PLANE_TELEMETRY);
}

/* NEURON_IOCTL_POST_METRIC: 1 to 128 bytes, bounded before anything is copied. */
static long neuron_tel_post_metric(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_post_metric a;
	u8 buf[NEURON_FW_MBOX_DATA_SIZE];

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (!a.data_size)
		return -EINVAL;
	if (a.data_size > sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, neuron_user_ptr(a.data), a.data_size))
		return -EFAULT;
	return neuron_fw_post_metric(nf->nd, buf, a.data_size);
}

/*
 * NEURON_IOCTL_READ_HW_COUNTERS: 1 to NEURON_FW_READ_MAX registers, the
 * count bounded before anything is allocated; the core checks every
 * address against the generation's readable windows.
 */
static long neuron_tel_read_hw_counters(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_read_hw_counters a;
	u64 *addrs;
	u32 *vals;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (!a.count)
		return -EINVAL;
	if (a.count > NEURON_FW_READ_MAX)
		return -E2BIG;
	addrs = kvmalloc_array(a.count, sizeof(*addrs), GFP_KERNEL);
	vals = kvmalloc_array(a.count, sizeof(*vals), GFP_KERNEL);
	if (!addrs || !vals) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(addrs, neuron_user_ptr(a.address), a.count * sizeof(*addrs))) {
		ret = -EFAULT;
		goto out;
	}
	ret = neuron_fw_read_counters(nf->nd, addrs, vals, a.count);
	if (!ret && copy_to_user(neuron_user_ptr(a.data), vals, a.count * sizeof(*vals)))
		ret = -EFAULT;
out:
	kvfree(vals);
	kvfree(addrs);
	return ret;
}

/*
 * Read and check a struct neuron_ioctl_power_profile whose @ctrl must be
 * @ctrl.  Return: 0, -EFAULT, -ENXIO for a wrong size field (as the
 * reference), -EINVAL for a wrong @ctrl or a profile above 255.
 */
static int neuron_tel_get_profile_arg(void __user *arg, u16 ctrl,
				      struct neuron_ioctl_power_profile *a)
{
	if (copy_from_user(a, arg, sizeof(*a)))
		return -EFAULT;
	if (a->sz != sizeof(*a))
		return -ENXIO;
	if (a->ctrl != ctrl || a->profile > U8_MAX)
		return -EINVAL;
	return 0;
}

/* NEURON_IOCTL_POWER_PROFILE: a no-op where the firmware has no profiles. */
static long neuron_tel_power_profile(struct neuron_file *nf, void __user *arg)
{
	struct neuron_tel_dev *td = neuron_tel_dev(nf);
	struct neuron_ioctl_power_profile a;
	int ret;

	ret = neuron_tel_get_profile_arg(arg, 0, &a);
	if (ret)
		return ret;
	if (!neuron_fw_has_perf_profiles(nf->nd))
		return 0;
	ret = neuron_fw_set_power_profile(nf->nd, a.profile);
	if (ret)
		return ret;
	mutex_lock(&td->lock);
	td->profile = a.profile;
	td->profile_set = true;
	mutex_unlock(&td->lock);
	return 0;
}

/* NEURON_IOCTL_GET_PERFORMANCE_PROFILE: 0 where the firmware has no profiles. */
static long neuron_tel_get_perf_profile(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_power_profile a;
	u8 profile = 0;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.sz != sizeof(a))
		return -ENXIO;
	if (a.ctrl != 1)
		return -EINVAL;
	if (neuron_fw_has_perf_profiles(nf->nd)) {
		ret = neuron_fw_get_perf_profile(nf->nd, &profile);
		if (ret)
			return ret;
	}
	a.profile = profile;
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

/*
 * NEURON_IOCTL_AVAILABLE_PERF_PROFILES: the output is zeroed first, so no
 * profile is reported where the firmware has none.
 */
static long neuron_tel_available_profiles(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_available_perf_profiles a;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.requested_feature != NEURON_FW_PROFILES_ALL &&
	    a.requested_feature != NEURON_FW_PROFILES_HBM_7200)
		return -EINVAL;
	a.num_profiles = 0;
	memset(a.bitmap, 0, sizeof(a.bitmap));
	if (neuron_fw_has_perf_profiles(nf->nd)) {
		ret = neuron_fw_get_available_profiles(nf->nd, a.requested_feature,
						       &a.num_profiles, a.bitmap);
		if (ret)
			return ret;
	}
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

/* NEURON_IOCTL_THROTTLING_NOTIFICATIONS: the firmware's whole feature set. */
static long neuron_tel_throttling(struct neuron_file *nf, void __user *arg)
{
	struct neuron_tel_dev *td = neuron_tel_dev(nf);
	struct neuron_ioctl_throttling_notifications a;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	ret = neuron_fw_set_features(nf->nd, a.enable ? NEURON_FW_FEATURE_THROTTLING : 0);
	if (ret)
		return ret;
	mutex_lock(&td->lock);
	td->throttling = a.enable;
	mutex_unlock(&td->lock);
	return 0;
}

/*
 * NEURON_IOCTL_METRICS_CTRL: pause or resume the device's metrics posts.
 * Unlike the reference, which ignores them, other modes are -EINVAL.
 */
static long neuron_tel_metrics_ctrl(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_metrics_ctrl a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_tel_metrics_set_mode(neuron_tel_dev(nf), a.mode);
}

#define F1(g, type, fn)	NEURON_IOCTL_F1(g, type, fn)
#define ATT		NEURON_GATE_ATTACHED

static const struct neuron_ioctl_family neuron_tel_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	F1(ATT, NEURON_IOCTL_POST_METRIC, neuron_tel_post_metric),
	F1(ATT, NEURON_IOCTL_READ_HW_COUNTERS, neuron_tel_read_hw_counters),
	F1(ATT, NEURON_IOCTL_POWER_PROFILE, neuron_tel_power_profile),
	F1(ATT, NEURON_IOCTL_METRICS_CTRL, neuron_tel_metrics_ctrl),
	F1(ATT, NEURON_IOCTL_THROTTLING_NOTIFICATIONS, neuron_tel_throttling),
	F1(ATT, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, neuron_tel_get_perf_profile),
	F1(ATT, NEURON_IOCTL_AVAILABLE_PERF_PROFILES, neuron_tel_available_profiles),
};

static int neuron_tel_attach(struct neuron_device *nd, void **priv)
{
	struct neuron_tel_dev *td = kzalloc(sizeof(*td), GFP_KERNEL);
	int ret;

	if (!td)
		return -ENOMEM;
	td->nd = nd;
	mutex_init(&td->lock);
	ret = neuron_tel_power_init(td);
	if (ret)
		goto err_power;
	ret = neuron_tel_metrics_init(td);
	if (ret)
		goto err_metrics;
	ret = neuron_tel_health_init(td);
	if (ret)
		goto err_health;
	*priv = td;
	return 0;

err_health:
	neuron_tel_metrics_fini(td);
err_metrics:
	neuron_tel_power_fini(td);
err_power:
	mutex_destroy(&td->lock);
	kfree(td);
	return ret;
}

/* debugfs: what the plane knows of the device. */
static int neuron_tel_show(struct seq_file *s, void *unused)
{
	struct neuron_tel_dev *td = s->private;
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);
	struct neuron_tel_power_stats pw;

	seq_printf(s, "device: neuron%d\n", neuron_device_index(td->nd));
	seq_printf(s, "generation: %u\n", dhal ? dhal->generation : 0);
	seq_printf(s, "state: %s\n", neuron_device_state_name(neuron_device_state(td->nd)));
	mutex_lock(&td->lock);
	if (td->profile_set)
		seq_printf(s, "performance profile: %u\n", td->profile);
	else
		seq_puts(s, "performance profile: not set\n");
	seq_printf(s, "throttling notifications: %s\n", str_on_off(td->throttling));
	mutex_unlock(&td->lock);
	neuron_tel_metrics_show(s, td);
	neuron_tel_power_get(td, &pw);
	seq_printf(s, "power: %s %llu %u %u %u\n", neuron_tel_power_status_name(pw.status),
		   pw.epoch, pw.min, pw.max, pw.avg);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_tel);

static void neuron_tel_publish(struct neuron_device *nd, void *priv)
{
	struct neuron_tel_dev *td = priv;
	struct dentry *dir = neuron_device_debugfs(nd);

	if (!IS_ERR_OR_NULL(dir))
		td->debugfs = debugfs_create_file("telemetry", 0400, dir, td, &neuron_tel_fops);
	neuron_tel_sysfs_add(td);
	neuron_tel_metrics_start(td);
}

static void neuron_tel_detach(struct neuron_device *nd, void *priv)
{
	struct neuron_tel_dev *td = priv;

	neuron_tel_metrics_stop(td);
	neuron_tel_sysfs_remove(td);
	debugfs_remove(td->debugfs);
	neuron_tel_health_fini(td);
	neuron_tel_metrics_fini(td);
	neuron_tel_power_fini(td);
	mutex_destroy(&td->lock);
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

static int __init neuron_tel_init(void)
{
	int ret;

	ret = neuron_tel_sysfs_init();
	if (ret)
		return ret;
	ret = neuron_plane_register(&neuron_tel_plane);
	if (ret)
		neuron_tel_sysfs_exit();
	return ret;
}
module_init(neuron_tel_init);

static void __exit neuron_tel_exit(void)
{
	neuron_plane_unregister(&neuron_tel_plane);
	/* info/notify_delay is -1 again at the next load. */
	neuron_stats_notify_enable(false);
	neuron_tel_sysfs_exit();
}
module_exit(neuron_tel_exit);

NEURON_PLANE_ALIAS("telemetry");
NEURON_IMPORT_NS();
MODULE_DESCRIPTION("AWS Neuron accelerator driver: telemetry plane");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
