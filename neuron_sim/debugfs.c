// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim debugfs: /sys/kernel/debug/neuron_sim/neuron_sim<ID>/ holds the
 * fault switch, a reset trigger, the count of resets the simulated
 * firmware finished, the DMA fault switches and counters (doorbells per
 * engine among them), the NeuronCores' semaphores and events, and the
 * notification-queue injector.  Nothing here is needed for the simulator
 * to work, so no debugfs failure is reported.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>
#include <neuron/device.h>

#include "sim.h"

/**
 * nsim_debugfs_str() - a small debugfs write, as a string
 * @buf: where it goes, NUL-terminated
 * @size: bytes at @buf
 * @ubuf: what user space wrote
 * @count: its length
 *
 * Return: 0; -EINVAL when it does not fit with its NUL; -EFAULT.
 */
int nsim_debugfs_str(char *buf, size_t size, const char __user *ubuf, size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

static struct dentry *nsim_debugfs_root;

static ssize_t nsim_fault_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[32];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s\n",
			nsim_fault_name(nsim_fault_get(sd)));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t nsim_fault_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	enum nsim_fault fault;
	char buf[32];
	int ret;

	if (*ppos)
		return -EINVAL;
	ret = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (nsim_fault_parse(strim(buf), &fault))
		return -EINVAL;
	nsim_fault_set(sd, fault);
	return count;
}

static const struct file_operations nsim_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_fault_read,
	.write = nsim_fault_write,
	.llseek = default_llseek,
};

/*
 * sd->nd is valid here without sd->nd_lock: the device's debugfs directory
 * is removed, which waits for this function to return, before sd->nd is
 * cleared.  The lock is not held across the reset, which can take long.
 */
static ssize_t nsim_reset_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;

	ret = neuron_bus_device_reset(sd->nd);
	return ret < 0 ? ret : count;
}

static const struct file_operations nsim_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nsim_reset_write,
	.llseek = noop_llseek,
};

/* dma_abort and dma_stall: "0" or "1"; the file's data selects the switch. */
static ssize_t nsim_dma_fault_read(struct file *file, char __user *ubuf, size_t count,
				   loff_t *ppos, bool stall)
{
	struct nsim_dev *sd = file->private_data;
	char buf[4];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d\n", nsim_dma_get_fault(sd, stall));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t nsim_dma_fault_write(struct file *file, const char __user *ubuf, size_t count,
				    bool stall)
{
	struct nsim_dev *sd = file->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	nsim_dma_set_fault(sd, stall, on);
	return count;
}

static ssize_t nsim_dma_abort_read(struct file *file, char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	return nsim_dma_fault_read(file, ubuf, count, ppos, false);
}

static ssize_t nsim_dma_abort_write(struct file *file, const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	return nsim_dma_fault_write(file, ubuf, count, false);
}

static ssize_t nsim_dma_stall_read(struct file *file, char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	return nsim_dma_fault_read(file, ubuf, count, ppos, true);
}

static ssize_t nsim_dma_stall_write(struct file *file, const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	return nsim_dma_fault_write(file, ubuf, count, true);
}

static const struct file_operations nsim_dma_abort_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_dma_abort_read,
	.write = nsim_dma_abort_write,
	.llseek = default_llseek,
};

static const struct file_operations nsim_dma_stall_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_dma_stall_read,
	.write = nsim_dma_stall_write,
	.llseek = default_llseek,
};

/* dma_busy_after_disable: "0" or "1" (nsim_dma_set_busy_after_disable()). */
static ssize_t nsim_dma_busy_read(struct file *file, char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[4];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d\n", nsim_dma_get_busy_after_disable(sd));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t nsim_dma_busy_write(struct file *file, const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	nsim_dma_set_busy_after_disable(sd, on);
	return count;
}

static const struct file_operations nsim_dma_busy_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_dma_busy_read,
	.write = nsim_dma_busy_write,
	.llseek = default_llseek,
};

/*
 * copy_bench: write a size in bytes to time the engines' own copy of that
 * many bytes out of device memory, or the size negated for a copy into it
 * (nsim_dma_copy_bench()); read "SIZE NS" of the last run, its size as
 * written.
 */
static ssize_t nsim_copy_bench_write(struct file *file, const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	u64 ns = 0;
	s64 size;
	int ret;

	ret = kstrtos64_from_user(ubuf, count, 0, &size);
	if (ret)
		return ret;
	if (size == S64_MIN)
		return -EINVAL;
	ret = nsim_dma_copy_bench(sd, abs(size), size < 0, &ns);
	if (ret)
		return ret;
	WRITE_ONCE(sd->bench_size, size);
	WRITE_ONCE(sd->bench_ns, ns);
	return count;
}

static ssize_t nsim_copy_bench_read(struct file *file, char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[48];
	int len;

	len = scnprintf(buf, sizeof(buf), "%lld %llu\n", READ_ONCE(sd->bench_size),
			READ_ONCE(sd->bench_ns));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations nsim_copy_bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_copy_bench_read,
	.write = nsim_copy_bench_write,
	.llseek = default_llseek,
};

/* Longest line the semaphores and events files accept, with its newline. */
#define NSIM_PRESET_LINE	64

/**
 * nsim_preset_parse() - parse a line written to the semaphores or events file
 * @line: "NC IDX VALUE", fields separated by blanks, white space around
 *	ignored; modified
 * @nc_count: semaphore blocks of the device (NeuronCores, then TOP_SPs)
 * @sem: the line names a semaphore (else an event)
 * @nc: where NC goes: decimal, below @nc_count
 * @idx: where IDX goes: decimal, below the registers of a NeuronCore
 * @val: where VALUE goes: decimal up to U32_MAX, or hexadecimal after "0x";
 *	a semaphore's may also be negative decimal down to S32_MIN, stored as
 *	its two's complement
 *
 * Return: 0, or -EINVAL when @line is anything else.
 */
int nsim_preset_parse(char *line, unsigned int nc_count, bool sem,
		      unsigned int *nc, unsigned int *idx, u32 *val)
{
	unsigned int count = sem ? NSIM_NC_SEMS : NSIM_NC_EVENTS, n = 0;
	char *tok[3], *t;
	s64 v;

	line = strim(line);
	while ((t = strsep(&line, " \t")) != NULL) {
		if (!*t)
			continue;
		if (n == ARRAY_SIZE(tok))
			return -EINVAL;
		tok[n++] = t;
	}
	if (n != ARRAY_SIZE(tok))
		return -EINVAL;

	if (kstrtouint(tok[0], 10, nc) || *nc >= nc_count ||
	    kstrtouint(tok[1], 10, idx) || *idx >= count)
		return -EINVAL;
	/* Base 16 takes one "0x" off; a second one is garbage. */
	if (!strncasecmp(tok[2], "0x", 2))
		return kstrtou32(tok[2], 16, val) ? -EINVAL : 0;
	if (kstrtos64(tok[2], 10, &v) || v > U32_MAX || v < (sem ? S32_MIN : 0))
		return -EINVAL;
	*val = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_preset_parse);

/*
 * semaphores and events: reading lists "NC IDX VALUE" for every non-zero
 * register, block by block (NeuronCores, then TOP_SPs numbered on from the
 * core count), a semaphore's value signed, an
 * event's unsigned; writing such a line presets one register.  Each value
 * is read atomically; a write racing with the listing shows or not.
 */
static int nsim_sems_show(struct seq_file *m, void *v)
{
	struct nsim_dev *sd = m->private;
	unsigned int nc, idx;
	u32 val;

	for (nc = 0; nc < nsim_sem_blocks(sd->gen); nc++) {
		for (idx = 0; idx < NSIM_NC_SEMS; idx++) {
			val = nsim_sem_get(sd, nc, idx);
			if (val)
				seq_printf(m, "%u %u %d\n", nc, idx, (s32)val);
		}
	}
	return 0;
}

static int nsim_events_show(struct seq_file *m, void *v)
{
	struct nsim_dev *sd = m->private;
	unsigned int nc, idx;
	u32 val;

	for (nc = 0; nc < nsim_sem_blocks(sd->gen); nc++) {
		for (idx = 0; idx < NSIM_NC_EVENTS; idx++) {
			val = nsim_reg_get(sd, nsim_event_off(sd->gen, nc, idx));
			if (val)
				seq_printf(m, "%u %u %u\n", nc, idx, val);
		}
	}
	return 0;
}

static ssize_t nsim_preset_write(struct file *file, const char __user *ubuf,
				 size_t count, bool sem)
{
	struct seq_file *m = file->private_data;
	struct nsim_dev *sd = m->private;
	char buf[NSIM_PRESET_LINE];
	unsigned int nc, idx;
	u32 val;
	int ret;

	ret = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	ret = nsim_preset_parse(buf, nsim_sem_blocks(sd->gen), sem, &nc, &idx, &val);
	if (ret)
		return ret;
	if (sem) {
		nsim_sem_set(sd, nc, idx, val);
	} else {
		ret = nsim_reg_set(sd, nsim_event_off(sd->gen, nc, idx), val,
				   GFP_KERNEL);
		if (ret)
			return ret;
	}
	return count;
}

static int nsim_sems_open(struct inode *inode, struct file *file)
{
	return single_open(file, nsim_sems_show, inode->i_private);
}

static ssize_t nsim_sems_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	return nsim_preset_write(file, ubuf, count, true);
}

static int nsim_events_open(struct inode *inode, struct file *file)
{
	return single_open(file, nsim_events_show, inode->i_private);
}

static ssize_t nsim_events_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return nsim_preset_write(file, ubuf, count, false);
}

static const struct file_operations nsim_sems_fops = {
	.owner = THIS_MODULE,
	.open = nsim_sems_open,
	.read = seq_read,
	.write = nsim_sems_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations nsim_events_fops = {
	.owner = THIS_MODULE,
	.open = nsim_events_open,
	.read = seq_read,
	.write = nsim_events_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * nq_inject: write "BLOCK SLOT WORD [WORD...]" to make the device produce
 * one entry in the notification queue of that slot (nsim_nq_parse(),
 * nsim_nq_inject()).  One entry per write().
 */
static ssize_t nsim_nq_inject_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	struct nsim_nq_entry e;
	char *line;
	int ret;

	if (count > NSIM_NQ_LINE)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	ret = nsim_nq_parse(line, sd->gen->bar0_size, &e);
	kfree(line);
	if (!ret)
		ret = nsim_nq_inject(sd, &e);
	return ret ? ret : count;
}

static const struct file_operations nsim_nq_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nsim_nq_inject_write,
	.llseek = noop_llseek,
};

static int nsim_doorbells_show(struct seq_file *m, void *unused)
{
	nsim_dma_doorbells_list(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nsim_doorbells);

/**
 * nsim_debugfs_init() - create /sys/kernel/debug/neuron_sim
 */
void nsim_debugfs_init(void)
{
	nsim_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

/**
 * nsim_debugfs_exit() - remove /sys/kernel/debug/neuron_sim
 *
 * Every device's directory must be gone already.
 */
void nsim_debugfs_exit(void)
{
	debugfs_remove_recursive(nsim_debugfs_root);
	nsim_debugfs_root = NULL;
}

/**
 * nsim_dev_debugfs_add() - create the debugfs directory of a device
 * @sd: the simulated device, with its core device created
 */
void nsim_dev_debugfs_add(struct nsim_dev *sd)
{
	sd->ddir = debugfs_create_dir(dev_name(&sd->dev), nsim_debugfs_root);
	debugfs_create_file("fault", 0600, sd->ddir, sd, &nsim_fault_fops);
	debugfs_create_file("reset", 0200, sd->ddir, sd, &nsim_reset_fops);
	debugfs_create_u32("resets", 0400, sd->ddir, &sd->resets);
	debugfs_create_file("dma_abort", 0600, sd->ddir, sd, &nsim_dma_abort_fops);
	debugfs_create_file("dma_stall", 0600, sd->ddir, sd, &nsim_dma_stall_fops);
	debugfs_create_file("dma_busy_after_disable", 0600, sd->ddir, sd, &nsim_dma_busy_fops);
	debugfs_create_file("copy_bench", 0600, sd->ddir, sd, &nsim_copy_bench_fops);
	debugfs_create_u32("dma_errors", 0400, sd->ddir, &sd->dma_errors);
	debugfs_create_u64("dma_descs", 0400, sd->ddir, &sd->dma_descs);
	debugfs_create_u64("dma_barriers", 0400, sd->ddir, &sd->dma_barriers);
	debugfs_create_u64("dma_bytes", 0400, sd->ddir, &sd->dma_bytes);
	debugfs_create_file("dma_doorbells", 0400, sd->ddir, sd, &nsim_doorbells_fops);
	debugfs_create_file("semaphores", 0600, sd->ddir, sd, &nsim_sems_fops);
	debugfs_create_file("events", 0600, sd->ddir, sd, &nsim_events_fops);
	debugfs_create_file("nq_inject", 0200, sd->ddir, sd, &nsim_nq_inject_fops);
	debugfs_create_u64("nq_injected", 0400, sd->ddir, &sd->nq_injected);
	nsim_mbox_debugfs_add(sd);
	nsim_health_debugfs_add(sd);
	nsim_pod_debugfs_add(sd);
}

/**
 * nsim_dev_debugfs_del() - remove the debugfs directory of a device
 * @sd: the simulated device
 *
 * Returns once no file operation on the directory is running.
 */
void nsim_dev_debugfs_del(struct nsim_dev *sd)
{
	debugfs_remove_recursive(sd->ddir);
	sd->ddir = NULL;
}
