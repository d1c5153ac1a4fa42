// SPDX-License-Identifier: GPL-2.0
/*
 * The base's commands of device identity and information (who uses the
 * device, versions, PCI location, topology) and logging.
 *
 * Output structs are built in zeroed kernel memory (padding included) and
 * copied out whole, or, when they have no padding, written field by field.
 * Process ids are reported as the caller's pid
 * namespace sees them; processes it cannot see are left out.
 */

#include <linux/ctype.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "device/device.h"

/* Longest message NEURON_IOCTL_PRINTK takes, terminating NUL included. */
#define NEURON_PRINTK_MAX	512

/**
 * neuron_ioctl_device_info() - NEURON_IOCTL_DEVICE_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_device_info, written
 *
 * Generation, PCI revision, linked devices (as sysfs connected_devices)
 * and, for BAR 0 and BAR 2, the opaque base register addresses are formed
 * from and the size.
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_device_info(struct neuron_file *nf, void __user *arg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_ioctl_device_info info;

	memset(&info, 0, sizeof(info));
	info.architecture = nd->ident.generation;
	info.revision = nd->ident.revision;
	info.connected_device_count =
		neuron_device_links(nd, info.connected_devices,
				    ARRAY_SIZE(info.connected_devices));
	neuron_ioctl_bar_describe(nd, &info);
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_device_noop() - NEURON_IOCTL_DEVICE_INIT, _DEVICE_RELEASE
 * @nf: the file
 * @arg: not used
 *
 * Kept for old runtimes; the device needs neither.
 *
 * Return: 0.
 */
long neuron_ioctl_device_noop(struct neuron_file *nf, void __user *arg)
{
	return 0;
}

/* The attached process in the lowest slot that the caller can see, or 0. */
static pid_t neuron_first_app(struct neuron_device *nd)
{
	pid_t pid = 0;
	int i;

	mutex_lock(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH && !pid; i++)
		if (nd->attach[i].tgid)
			pid = pid_vnr(nd->attach[i].tgid);
	mutex_unlock(&nd->lock);
	return pid;
}

/**
 * neuron_ioctl_app_pid() - NEURON_IOCTL_DEVICE_APP_PID
 * @nf: the file
 * @arg: __s32, written
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_app_pid(struct neuron_file *nf, void __user *arg)
{
	s32 pid = neuron_first_app(nf->nd);

	return put_user(pid, (s32 __user *)arg);
}

/**
 * neuron_ioctl_all_apps_info() - NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_get_apps_info followed by @capacity elements
 *
 * One element per attached process the caller can see, at most
 * min(capacity, 16); with APP_INFO_PID_NC_LOCK_INFO, the model locks it
 * recorded on cores 0-3 and their model ids; with APP_INFO_PID_MEM_USAGE,
 * the host and device memory its chunks hold.  Fields not asked for are 0.
 *
 * Return: 0, -EFAULT or -ENOMEM.
 */
long neuron_ioctl_all_apps_info(struct neuron_file *nf, void __user *arg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_ioctl_get_apps_info hdr;
	struct neuron_app_info *apps;
	const size_t hdr_size = offsetof(struct neuron_ioctl_get_apps_info, app_data);
	u32 n = 0, max, capacity;
	u16 flags;
	int i;
	long ret = 0;

	if (copy_from_user(&hdr, arg, hdr_size))
		return -EFAULT;
	flags = hdr.apps_info_flags;
	capacity = hdr.capacity;
	max = min_t(u32, capacity, NEURON_MAX_ATTACH);

	apps = kcalloc(NEURON_MAX_ATTACH, sizeof(*apps), GFP_KERNEL);
	if (!apps)
		return -ENOMEM;
	mutex_lock(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH && n < max; i++) {
		pid_t pid;

		if (!nd->attach[i].tgid)
			continue;
		pid = pid_vnr(nd->attach[i].tgid);
		if (!pid)
			continue;
		apps[n].pid = pid;
		/* Model locks (cores), memory usage (memory): what was asked. */
		neuron_planes_app_info(nd, nd->attach[i].tgid, flags, &apps[n]);
		n++;
	}
	mutex_unlock(&nd->lock);

	/* Echo the request, report the count; padding comes back zero. */
	memset(&hdr, 0, sizeof(hdr));
	hdr.apps_info_flags = flags;
	hdr.capacity = capacity;
	hdr.size = n;
	if (copy_to_user(arg, &hdr, hdr_size) ||
	    copy_to_user(arg + hdr_size, apps, (size_t)n * sizeof(*apps)))
		ret = -EFAULT;
	kfree(apps);
	return ret;
}

/**
 * neuron_ioctl_compatible_version() - NEURON_IOCTL_COMPATIBLE_VERSION
 * @nf: the file
 * @arg: struct neuron_ioctl_compatible_version, written
 *
 * The range of runtime interface versions the device's generation supports.
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_compatible_version(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_identity *id = &nf->nd->ident;
	struct neuron_ioctl_compatible_version v;

	memset(&v, 0, sizeof(v));
	v.min = id->rt_compat_min;
	v.max = id->rt_compat_max;
	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_basic_info() - NEURON_IOCTL_DEVICE_BASIC_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_device_basic_info, written
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_basic_info(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_identity *id = &nf->nd->ident;
	struct neuron_ioctl_device_basic_info bi;

	memset(&bi, 0, sizeof(bi));
	bi.architecture = id->generation;
	bi.revision = id->revision;
	return copy_to_user(arg, &bi, sizeof(bi)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_bdf() - NEURON_IOCTL_DEVICE_BDF
 * @nf: the file
 * @arg: struct neuron_ioctl_device_bdf, written
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_bdf(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_pci_identity *id = &nf->nd->bus.id;
	struct neuron_ioctl_device_bdf bdf;

	memset(&bdf, 0, sizeof(bdf));
	bdf.bus_number = id->bus;
	bdf.slot = PCI_SLOT(id->devfn);
	bdf.func = PCI_FUNC(id->devfn);
	return copy_to_user(arg, &bdf, sizeof(bdf)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_bdf_ext() - NEURON_IOCTL_DEVICE_BDF_EXT
 * @nf: the file
 * @arg: struct neuron_ioctl_device_bdf_ext; @nd_index read, the rest written
 *
 * The PCI address of device (index of the opened device + @nd_index).
 *
 * Return: 0; -EINVAL when that index is beyond the last possible device;
 * -ENODEV when no device has it; -EFAULT.
 */
long neuron_ioctl_bdf_ext(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_device_bdf_ext bdf;
	struct neuron_device *other;
	u64 index;
	u32 rel;

	if (get_user(rel, (u32 __user *)arg))
		return -EFAULT;
	index = (u64)nf->nd->index + rel;
	if (index >= NEURON_MAX_DEVICES)
		return -EINVAL;
	other = neuron_device_get_by_index(index);
	if (!other)
		return -ENODEV;
	memset(&bdf, 0, sizeof(bdf));
	bdf.nd_index = rel;
	bdf.domain = other->bus.id.domain;
	bdf.bus_number = other->bus.id.bus;
	bdf.slot = PCI_SLOT(other->bus.id.devfn);
	bdf.func = PCI_FUNC(other->bus.id.devfn);
	put_device(&other->dev);
	return copy_to_user(arg, &bdf, sizeof(bdf)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_driver_info_get() - NEURON_IOCTL_DRIVER_INFO_GET
 * @nf: the file
 * @arg: struct neuron_ioctl_device_driver_info, written
 *
 * The struct has no padding, so writing each field writes every byte; done
 * field by field, which is cheaper than a copy for 24 bytes.
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_driver_info_get(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_identity *id = &nf->nd->ident;
	struct neuron_ioctl_device_driver_info __user *u = arg;

	BUILD_BUG_ON(sizeof(*u) != 4 * sizeof(u32) + sizeof(u64));
	if (!user_write_access_begin(u, sizeof(*u)))
		return -EFAULT;
	unsafe_put_user(id->generation, &u->architecture, efault);
	unsafe_put_user(id->revision, &u->revision, efault);
	unsafe_put_user(NEURON_DEVICE_DRIVER_INFO_VERSION0, &u->version, efault);
	unsafe_put_user(sizeof(*u), &u->size, efault);
	unsafe_put_user(id->features, &u->feature_flags1, efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

/**
 * neuron_ioctl_host_device_id() - NEURON_IOCTL_HOST_DEVICE_ID
 * @nf: the file
 * @arg: struct neuron_ioctl_host_device_id, written
 *
 * Return: 0 or -EFAULT.
 */
long neuron_ioctl_host_device_id(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_host_device_id hid;

	memset(&hid, 0, sizeof(hid));
	hid.host_device_id = nf->nd->index;
	return copy_to_user(arg, &hid, sizeof(hid)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_rid_map() - NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP
 * @nf: the file
 * @arg: struct neuron_ioctl_host_device_id_to_rid_map, written
 *
 * A device's index is its routing id, so entry i is i for every device
 * present, and ~0 for an index no device has.  @count is one more than the
 * highest index in use; entries from @count on are zero.
 *
 * Return: 0, -EFAULT or -ENOMEM.
 */
long neuron_ioctl_rid_map(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_host_device_id_to_rid_map *map;
	struct neuron_device *other;
	unsigned int i;
	long ret = 0;

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	for (i = 0; i < NEURON_MAX_DEVICES; i++) {
		other = neuron_device_get_by_index(i);
		if (!other) {
			map->host_did_to_rid_map[i] = ~0U;
			continue;
		}
		map->host_did_to_rid_map[i] = i;
		map->count = i + 1;
		put_device(&other->dev);
	}
	for (i = map->count; i < NEURON_MAX_DEVICES; i++)
		map->host_did_to_rid_map[i] = 0;
	if (copy_to_user(arg, map, sizeof(*map)))
		ret = -EFAULT;
	kfree(map);
	return ret;
}

/* What PRINTK lets through to the log: everything printable, one line. */
static void neuron_printk_sanitize(char *s)
{
	for (; *s; s++)
		if (!isprint(*s))
			*s = '?';
}

/* Shared by all devices: any user can reach PRINTK on the free lane. */
static DEFINE_RATELIMIT_STATE(neuron_printk_rs, 5 * HZ, 100);

/**
 * neuron_ioctl_printk() - NEURON_IOCTL_PRINTK
 * @nf: the file
 * @arg: struct neuron_ioctl_printk, read
 *
 * Logs a message of the runtime at error level, tagged with the device and
 * the sender's pid.  @size counts the buffer, terminating NUL included; the
 * message ends at its first NUL, and characters that are not printable
 * (newlines included) are logged as '?', so one call is one log line.
 * Messages over the rate limit are dropped.
 *
 * Return: 0; -EINVAL for a size of 0 or over 512; -EBADMSG when the buffer
 * holds no NUL; -EFAULT; -ENOMEM.
 */
long neuron_ioctl_printk(struct neuron_file *nf, void __user *arg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_ioctl_printk req;
	char *msg;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (!req.size || req.size > NEURON_PRINTK_MAX)
		return -EINVAL;
	msg = memdup_user(neuron_user_ptr(req.buffer), req.size);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	if (!memchr(msg, 0, req.size)) {
		ret = -EBADMSG;
		goto out;
	}
	neuron_printk_sanitize(msg);
	if (__ratelimit(&neuron_printk_rs))
		dev_err(nd->bus.parent, "neuron%d: pid %d: %s\n", nd->index,
			task_tgid_nr(current), msg);
out:
	kfree(msg);
	return ret;
}

