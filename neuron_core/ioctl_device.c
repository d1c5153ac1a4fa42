// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl handlers: device identity and information, the core map, logging.
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

#include "ioctl.h"
#include "pod.h"

/* Longest message NEURON_IOCTL_PRINTK takes, terminating NUL included. */
#define NEURON_PRINTK_MAX	512
/* Host-wide core numbers NEURON_IOCTL_NC_PID_STATE_DUMP takes. */
#define NEURON_GLOBAL_NC_MAX	512

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
		if (flags & APP_INFO_PID_NC_LOCK_INFO)
			apps[n].nc_lock_map = neuron_state_lock_info(nd, nd->attach[i].tgid,
								     apps[n].uuid_data);
		if (flags & APP_INFO_PID_MEM_USAGE)
			neuron_mem_usage(nd, nd->attach[i].tgid, &apps[n].host_mem_size,
					 &apps[n].device_mem_size);
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

/**
 * neuron_ioctl_nc_map() - NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP
 * @nf: the file
 * @arg: struct neuron_ioctl_get_logical_to_physical_nc_map, read; its @map
 *	receives min(@max_map_entries, entries of the generation's map)
 *	entries and their count
 *
 * On nodes 1 and 3 of an UltraServer (or with force_die_flip), logical
 * core i is the map's entry i xor the generation's die flip (pod.c).
 *
 * Return: 0; -EINVAL for a format other than V0 or more than
 * NEURON_NC_MAP_MAX_ENTRIES entries; -EOPNOTSUPP when the generation has no
 * map (v2); -EFAULT; -ENOMEM.
 */
long neuron_ioctl_nc_map(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_dhal_user *user = nf->nd->dhal.dhal->user;
	struct neuron_ioctl_get_logical_to_physical_nc_map req;
	struct neuron_ioctl_nc_map *map;
	u32 n, i, j, flip;
	size_t size;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.mapping_version != NEURON_IOCTL_NC_MAPPING_TYPE_V0 ||
	    req.max_map_entries > NEURON_NC_MAP_MAX_ENTRIES)
		return -EINVAL;
	if (!user || !user->nc_map)
		return -EOPNOTSUPP;

	n = min_t(u32, req.max_map_entries, user->nc_map_entries);
	size = struct_size(map, mappings, n);
	map = kzalloc(size, GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	map->num_entries = n;
	flip = neuron_pod_die_flip(nf->nd);
	for (i = 0; i < n; i++) {
		j = i ^ flip;
		if (j >= user->nc_map_entries)
			j = i;
		map->mappings[i].device_id = user->nc_map[j].device;
		map->mappings[i].device_nc_idx = user->nc_map[j].nc;
	}
	if (copy_to_user(neuron_user_ptr(req.map), map, size))
		ret = -EFAULT;
	kfree(map);
	return ret;
}

/**
 * neuron_ioctl_nc_pid_state_dump() - NEURON_IOCTL_NC_PID_STATE_DUMP
 * @nf: the file
 * @arg: struct neuron_ioctl_nc_pid_state_dump, read
 *
 * Logs which process holds a core (the one that reserved it, else the one
 * that reset it) and what that process is doing.  @nc_id
 * numbers cores host-wide: device index times the opened device's core
 * count, plus the core.  Then the device's event log: its last
 * @log_dump_limit events (128 when 0), only the holder's with
 * @filter_log_owner.  Rate-limited.
 *
 * Return: 0; -EINVAL for a core number out of range; -ENODEV when no
 * device has that index or it is being removed; -ENOENT when no process
 * holds the core; -EFAULT.
 */
long neuron_ioctl_nc_pid_state_dump(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_nc_pid_state_dump req;
	struct neuron_device *other;
	struct task_struct *task;
	struct pid *holder = NULL;
	unsigned int per_dev = nf->nd->dhal.dhal->layout->nc_count;
	unsigned int index, nc;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.nc_id >= NEURON_GLOBAL_NC_MAX)
		return -EINVAL;
	index = req.nc_id / per_dev;
	nc = req.nc_id % per_dev;
	other = neuron_device_get_by_index(index);
	if (!other)
		return -ENODEV;
	/*
	 * The messages name the device's bus device, which its removal lets
	 * go of: hold the removal off (the dispatcher holds the caller's own
	 * device).  Never wait: a removal under way answers -ENODEV.
	 */
	if (other != nf->nd && !neuron_device_enter_try(other)) {
		put_device(&other->dev);
		return -ENODEV;
	}

	mutex_lock(&other->lock);
	if (!other->dhal.dhal || nc >= other->dhal.dhal->layout->nc_count)
		ret = -EINVAL;
	mutex_unlock(&other->lock);
	if (!ret) {
		/* The reservation's owner; else the process that reset the core. */
		holder = neuron_state_core_owner(other, nc);
		if (!holder)
			holder = neuron_reset_core_holder(other, nc);
		if (!holder)
			ret = -ENOENT;
	}
	if (holder) {
		task = get_pid_task(holder, PIDTYPE_TGID);
		if (task) {
			char comm[TASK_COMM_LEN];

			get_task_comm(comm, task);
			dev_info_ratelimited(other->bus.parent,
					     "neuron%u: core %u held by pid %d (%s), state %c\n",
					     index, nc, pid_vnr(holder), comm,
					     task_state_to_char(task));
			put_task_struct(task);
		}
		neuron_evlog_dump(other, req.filter_log_owner ? holder : NULL,
				  req.log_dump_limit);
		put_pid(holder);
	}
	if (other != nf->nd)
		neuron_device_leave(other);
	put_device(&other->dev);
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

/**
 * neuron_ioctl_va_placement() - NEURON_IOCTL_GET_VA_PLACEMENT
 * @nf: the file
 * @arg: struct neuron_ioctl_get_va_placement; @va read, the rest written
 *
 * Which device and memory channel back a mapping of device memory: the
 * caller's mapping containing @va is looked up; when it maps a device
 * chunk (of any Neuron device), its device index and HBM channel come
 * back.  Anything else (no mapping there, host memory, another kind of
 * mapping) leaves both -1.
 *
 * Return: 0; -ENXIO (written back, as the reference) when @va is not in a
 * mapping of device memory; -EFAULT.
 */
long neuron_ioctl_va_placement(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_get_va_placement vp;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	long ret = -ENXIO;
	u64 va;

	if (get_user(va, (u64 __user *)arg))
		return -EFAULT;
	memset(&vp, 0, sizeof(vp));
	vp.va = va;
	vp.device_index = -1;
	vp.hbm_index = -1;
	if (mm && va <= ULONG_MAX) {
		mmap_read_lock(mm);
		vma = vma_lookup(mm, va);
		if (vma && neuron_mem_is_chunk_vma(vma)) {
			const struct neuron_mem_chunk *mc = vma->vm_private_data;

			if (mc->location == NEURON_MEM_DEVICE) {
				vp.device_index = mc->nd->index;
				vp.hbm_index = mc->hbm;
				ret = 0;
			}
		}
		mmap_read_unlock(mm);
	}
	if (copy_to_user(arg, &vp, sizeof(vp)))
		return -EFAULT;
	return ret;
}
