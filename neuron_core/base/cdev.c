// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/neuronN file operations: the two lanes of open, and process attach.
 *
 * An O_WRONLY open is the free-access lane: it never waits and attaches
 * nothing.  Any other open waits (interruptibly) until the device is out of
 * reset, then attaches the calling process.  Attachment is counted per open
 * file, and released when that file's last reference goes (release), so a
 * dup()ed, inherited or passed descriptor keeps the process attached until
 * every copy is closed; the process's teardown runs when its last attached
 * file is released.
 */

#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <neuron/compat.h>

#include "core.h"

int neuron_attached_count(struct neuron_device *nd)
{
	int i, n = 0;

	mutex_lock(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		if (nd->attach[i].tgid)
			n++;
	mutex_unlock(&nd->lock);
	return n;
}

/**
 * neuron_attached_locked() - is @tgid attached to @nd?
 * @nd: the device, with &neuron_device.lock held
 * @tgid: the process
 *
 * Return: whether @tgid holds an attached file of @nd.
 */
bool neuron_attached_locked(struct neuron_device *nd, struct pid *tgid)
{
	int i;

	lockdep_assert_held(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		if (nd->attach[i].tgid == tgid)
			return true;
	return false;
}

/**
 * neuron_process_attached() - is a process attached to a device now?
 * @nd: the device
 * @tgid: the process (its thread-group pid)
 *
 * For a plane that records per-process state from an ioctl (a claim, a
 * result) which its &neuron_plane.process_detach callback drops.  The
 * ioctl gate checks attachment when a call starts, not while it runs: a
 * process may call through a file another process opened (inherited or
 * passed to it) and close its own last attached file from another thread
 * meanwhile, and then process_detach has run before the call records
 * anything.  Release clears the attachment (under &neuron_device.lock)
 * before it calls process_detach, so a handler that records under its own
 * lock and then asks this (record, then recheck) either has its record
 * seen by process_detach, or finds the process detached and must drop
 * the record itself.
 *
 * Context: takes &neuron_device.lock; may sleep.
 * Return: whether @tgid holds at least one attached file of @nd.
 */
bool neuron_process_attached(struct neuron_device *nd, struct pid *tgid)
{
	bool ret;

	mutex_lock(&nd->lock);
	ret = neuron_attached_locked(nd, tgid);
	mutex_unlock(&nd->lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_process_attached, NEURON_NS);

/* Attach @tgid to @nd; called with nd->lock held. */
static int neuron_attach_locked(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_attach *free = NULL;
	int i;

	for (i = 0; i < NEURON_MAX_ATTACH; i++) {
		if (nd->attach[i].tgid == tgid) {
			nd->attach[i].files++;
			return 0;
		}
		if (!nd->attach[i].tgid && !free)
			free = &nd->attach[i];
	}
	if (!free)
		return -EBUSY;
	free->tgid = get_pid(tgid);
	free->files = 1;
	return 0;
}

/*
 * Drop one attached file of @tgid; the process detaches with its last one.
 * Return: whether it did.
 */
static bool neuron_detach(struct neuron_device *nd, struct pid *tgid)
{
	struct pid *put = NULL;
	int i;

	mutex_lock(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH; i++) {
		if (nd->attach[i].tgid != tgid)
			continue;
		if (--nd->attach[i].files == 0) {
			/*
			 * Per-process resources are released here, with the
			 * slot, so that a newcomer finds them free: its cores,
			 * its resets, then what it holds in the planes (its
			 * memory handles, its datastore entry).
			 */
			neuron_reset_detach_locked(nd, &nd->attach[i]);
			neuron_planes_process_gone_locked(nd, tgid);
			put = nd->attach[i].tgid;
			nd->attach[i].tgid = NULL;
		}
		break;
	}
	mutex_unlock(&nd->lock);
	put_pid(put);
	return put;
}

static bool neuron_open_may_proceed(struct neuron_device *nd)
{
	enum neuron_device_state s = READ_ONCE(nd->state);

	return s == NEURON_STATE_READY || s == NEURON_STATE_FAILED ||
	       s == NEURON_STATE_GONE;
}

static int neuron_open(struct inode *inode, struct file *file)
{
	struct neuron_device *nd = container_of(inode->i_cdev, struct neuron_device, cdev);
	struct neuron_file *nf;
	int ret;

	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf)
		return -ENOMEM;
	nf->nd = nd;
	nf->mapping = file->f_mapping;
	INIT_LIST_HEAD(&nf->node);

	if ((file->f_flags & O_ACCMODE) == O_WRONLY) {
		if (READ_ONCE(nd->state) == NEURON_STATE_GONE) {
			ret = -ENODEV;
			goto err_free;
		}
		neuron_planes_file_open(nf);
		file->private_data = nf;
		neuron_evlog_add(nd, NEURON_EVLOG_OPEN, 0);
		return 0;
	}

	do {
		ret = wait_event_interruptible(nd->state_wq, neuron_open_may_proceed(nd));
		if (ret)
			goto err_free;

		mutex_lock(&nd->lock);
		switch (nd->state) {
		case NEURON_STATE_READY:
			ret = neuron_attach_locked(nd, task_tgid(current));
			break;
		case NEURON_STATE_FAILED:
			ret = -EIO;
			break;
		case NEURON_STATE_GONE:
			ret = -ENODEV;
			break;
		default:
			/* A reset started after the wake-up: wait again. */
			ret = -EAGAIN;
			break;
		}
		mutex_unlock(&nd->lock);
	} while (ret == -EAGAIN);
	if (ret)
		goto err_free;

	nf->tgid = get_pid(task_tgid(current));
	neuron_planes_file_open(nf);
	file->private_data = nf;
	neuron_evlog_add(nd, NEURON_EVLOG_OPEN, 0);
	return 0;

err_free:
	kfree(nf);
	return ret;
}

static int neuron_release(struct inode *inode, struct file *file)
{
	struct neuron_file *nf = file->private_data;

	neuron_evlog_add(nf->nd, NEURON_EVLOG_RELEASE, 0);
	/*
	 * The planes' state in the file, from the top down: copies in flight
	 * end before the core reservations made through the file go.
	 */
	neuron_planes_file_release(nf);
	if (nf->tgid) {
		/* What the process holds in the planes goes after its memory. */
		if (neuron_detach(nf->nd, nf->tgid))
			neuron_planes_process_detach(nf->nd, nf->tgid);
		put_pid(nf->tgid);
	}
	kfree(nf);
	return 0;
}

/* The command table and its gates are in dispatch.c. */
static long neuron_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return neuron_ioctl_dispatch(file, cmd, arg);
}

/*
 * A mapping of the device's mmap space (vm_pgoff << PAGE_SHIFT is a
 * device-view address): a chunk of the memory layer, or a datastore,
 * notification queue or special resource of the NeuronCore state plane.
 * Only shared mappings, only through a normal file.
 *
 * Return: 0; -EBADF on the free-access lane; -EINVAL for a private
 * mapping, an overflowing range or one no plane maps; the plane's error.
 */
static int neuron_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct neuron_file *nf = file->private_data;
	u64 start = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start, end;

	if (!nf->tgid)
		return -EBADF;
	neuron_evlog_add(nf->nd, NEURON_EVLOG_MMAP, 0);
	/* MAP_SHARED (a read-only file's shared mapping lacks VM_SHARED). */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (check_add_overflow(start, len, &end))
		return -EINVAL;
	return neuron_planes_mmap(nf, vma, start, len);
}

const struct file_operations neuron_fops = {
	.owner = THIS_MODULE,
	.open = neuron_open,
	.release = neuron_release,
	/*
	 * No .compat_ioctl: the ABI's structs carry pointers and longs laid
	 * out for LP64, so 32-bit callers get -ENOTTY rather than misread
	 * arguments.
	 */
	.unlocked_ioctl = neuron_ioctl,
	.mmap = neuron_file_mmap,
	.llseek = noop_llseek,
};
