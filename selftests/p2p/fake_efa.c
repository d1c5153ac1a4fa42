// SPDX-License-Identifier: GPL-2.0
/*
 * A fake EFA driver for selftests/p2p: it uses neuron_p2p_register_va() and
 * neuron_p2p_unregister_va() exactly as the EFA driver does (found at run
 * time with symbol_get(), held while a registration lives, let go with
 * symbol_put()), driven from user space through debugfs, never shipped.
 *
 * /sys/kernel/debug/fake_efa/ctl takes one command per write, run in the
 * writing process's context (as EFA's reg_mr is):
 *
 *   reg SLOT VA SIZE [efa]   register [VA, VA + SIZE) (hex) in slot SLOT;
 *                            with "efa" the free callback unregisters, as
 *                            EFA's does, else it only counts
 *   unreg SLOT               unregister it (-ENOENT: nothing to unregister)
 *   hash SLOT                FNV-1a 64 of the range's SIZE bytes, read
 *                            through the physical pages of the page list,
 *                            as a NIC would (RAM pages only: simulated
 *                            devices)
 *   probe                    symbol_get() and symbol_put() both functions
 *
 * A failed command's write fails with the errno.  /sys/kernel/debug/fake_efa/status
 * has one line per slot that was used:
 *
 *   slot S state live|called|released|free cbs N dev D shift S entries E pages P hash H
 *
 * "called": the callback ran and the registration waits for unreg;
 * "released": the callback unregistered it (efa); "free": unregistered.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <neuron/neuron_p2p.h>

#define FE_SLOTS	16

/**
 * struct fe_slot - one registration, as EFA keeps one per memory region
 * @info: the registration (valid while @claimed is 0 or the unregister runs)
 * @register_va: the symbol_get() reference taken for it
 * @unregister_va: likewise
 * @used: registered once since the module loaded
 * @live: registered and not unregistered (under fe_lock)
 * @efa: the callback unregisters, as EFA's does
 * @claimed: 1 once the callback (efa) or an unreg took the right to
 *	unregister: the first to set it does, as EFA's ticket list decides
 * @released: the callback unregistered it
 * @cbs: callbacks run
 * @hash: the last hash
 * @dev: device index reported
 * @shift: log2 of the page size reported
 * @entries: entries reported
 * @pages: pages reported, over all entries
 */
struct fe_slot {
	struct neuron_p2p_va_info *info;
	int (*register_va)(u64 va, u64 length, struct neuron_p2p_va_info **vainfo,
			   void (*free_callback)(void *data), void *data);
	int (*unregister_va)(struct neuron_p2p_va_info *vainfo);
	bool used;
	bool live;
	bool efa;
	atomic_t claimed;
	bool released;
	atomic_t cbs;
	u64 hash;
	u32 dev;
	u32 shift;
	u32 entries;
	u64 pages;
};

/* Serialises the commands and protects the slots' fields but @cbs and @claimed. */
static DEFINE_MUTEX(fe_lock);
static struct fe_slot fe_slots[FE_SLOTS];
static struct dentry *fe_dir;

static int fe_get(struct fe_slot *s)
{
	s->register_va = symbol_get(neuron_p2p_register_va);
	if (!s->register_va)
		return -ENOENT;
	s->unregister_va = symbol_get(neuron_p2p_unregister_va);
	if (!s->unregister_va) {
		symbol_put(neuron_p2p_register_va);
		return -ENOENT;
	}
	return 0;
}

static void fe_put(void)
{
	symbol_put(neuron_p2p_unregister_va);
	symbol_put(neuron_p2p_register_va);
}

/* Unregister @s and let the symbols go; the caller won the claim. */
static void fe_release(struct fe_slot *s)
{
	int ret = s->unregister_va(s->info);

	if (ret)
		pr_err("unregister failed: %d\n", ret);
	fe_put();
}

/* The free callback: takes no lock of the module (an unreg may wait for it). */
static void fe_free_cb(void *data)
{
	struct fe_slot *s = data;

	atomic_inc(&s->cbs);
	if (READ_ONCE(s->efa) && !atomic_cmpxchg(&s->claimed, 0, 1)) {
		fe_release(s);
		WRITE_ONCE(s->released, true);
	}
}

static int fe_reg(struct fe_slot *s, u64 va, u64 size, bool efa)
{
	const struct neuron_p2p_page_info *pi;
	u32 i;
	int ret;

	if (s->live)
		return -EBUSY;
	ret = fe_get(s);
	if (ret)
		return ret;
	s->efa = efa;
	s->released = false;
	atomic_set(&s->claimed, 0);
	atomic_set(&s->cbs, 0);
	s->hash = 0;
	ret = s->register_va(va, size, &s->info, fe_free_cb, s);
	if (ret) {
		fe_put();
		return ret;
	}
	s->used = true;
	s->live = true;
	s->dev = s->info->device_index;
	s->shift = s->info->shift_page_size;
	s->entries = s->info->entries;
	s->pages = 0;
	for (i = 0, pi = s->info->page_info; i < s->entries; i++, pi++)
		s->pages += pi->page_count;
	return 0;
}

static int fe_unreg(struct fe_slot *s)
{
	if (!s->live)
		return -ENOENT;
	s->live = false;
	if (atomic_cmpxchg(&s->claimed, 0, 1))
		return -ENOENT;	/* the callback unregistered it */
	fe_release(s);
	return 0;
}

/* What a NIC would read: the range's bytes through the page list. */
static int fe_hash(struct fe_slot *s)
{
	const struct neuron_p2p_va_info *info = s->info;
	u64 h = 0xcbf29ce484222325ULL, left = info->size, off;
	u32 i, p;

	if (!s->live || atomic_read(&s->cbs))
		return -ENOENT;
	for (i = 0; i < info->entries && left; i++) {
		const struct neuron_p2p_page_info *pi = &info->page_info[i];
		u64 bytes = (u64)pi->page_count << info->shift_page_size;

		for (off = 0; off < bytes && left; off += PAGE_SIZE) {
			unsigned long pfn = PHYS_PFN(pi->physical_address + off);
			size_t n = min_t(u64, left, PAGE_SIZE);
			const u8 *b;

			if (!pfn_valid(pfn))
				return -EOPNOTSUPP;
			b = kmap_local_page(pfn_to_page(pfn));
			for (p = 0; p < n; p++)
				h = (h ^ b[p]) * 0x100000001b3ULL;
			kunmap_local(b);
			left -= n;
		}
	}
	s->hash = h;
	return 0;
}

static int fe_probe(void)
{
	struct fe_slot tmp = {};
	int ret = fe_get(&tmp);

	if (!ret)
		fe_put();
	return ret;
}

static ssize_t fe_ctl_write(struct file *file, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[96], cmd[8], mode[8] = "";
	unsigned long long va = 0, size = 0;
	unsigned int slot = 0;
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%7s %u %llx %llx %7s", cmd, &slot, &va, &size, mode);
	if (n < 1)
		return -EINVAL;
	if (strcmp(cmd, "probe") && (n < 2 || slot >= FE_SLOTS))
		return -EINVAL;
	mutex_lock(&fe_lock);
	if (!strcmp(cmd, "probe"))
		ret = fe_probe();
	else if (!strcmp(cmd, "reg") && n >= 4 && (n == 4 || !strcmp(mode, "efa")))
		ret = fe_reg(&fe_slots[slot], va, size, n == 5);
	else if (!strcmp(cmd, "unreg") && n == 2)
		ret = fe_unreg(&fe_slots[slot]);
	else if (!strcmp(cmd, "hash") && n == 2)
		ret = fe_hash(&fe_slots[slot]);
	else
		ret = -EINVAL;
	mutex_unlock(&fe_lock);
	return ret ? ret : len;
}

static const struct file_operations fe_ctl_fops = {
	.owner = THIS_MODULE,
	.write = fe_ctl_write,
	.llseek = noop_llseek,
};

static const char *fe_state(struct fe_slot *s)
{
	if (READ_ONCE(s->released))
		return "released";
	if (!s->live)
		return "free";
	return atomic_read(&s->cbs) ? "called" : "live";
}

static int fe_status_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	mutex_lock(&fe_lock);
	for (i = 0; i < FE_SLOTS; i++) {
		struct fe_slot *s = &fe_slots[i];

		if (!s->used)
			continue;
		seq_printf(m, "slot %u state %s cbs %d dev %u shift %u entries %u pages %llu hash %llx\n",
			   i, fe_state(s), atomic_read(&s->cbs), s->dev, s->shift, s->entries,
			   s->pages, s->hash);
	}
	mutex_unlock(&fe_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fe_status);

static int __init fe_init(void)
{
	fe_dir = debugfs_create_dir("fake_efa", NULL);
	debugfs_create_file("ctl", 0200, fe_dir, NULL, &fe_ctl_fops);
	debugfs_create_file("status", 0400, fe_dir, NULL, &fe_status_fops);
	return 0;
}

static void __exit fe_exit(void)
{
	unsigned int i;

	debugfs_remove(fe_dir);
	/* What a test left registered (it held neuron_core through symbol_get()). */
	mutex_lock(&fe_lock);
	for (i = 0; i < FE_SLOTS; i++)
		fe_unreg(&fe_slots[i]);
	mutex_unlock(&fe_lock);
}

module_init(fe_init);
module_exit(fe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test importer of Neuron peer-direct memory, used as EFA uses it");
