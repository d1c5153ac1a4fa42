// SPDX-License-Identifier: GPL-2.0
/*
 * Peer-direct registration of device memory (EFA): neuron_p2p_register_va()
 * gives a NIC driver the physical pages behind the calling process's mapping
 * of one of its device-memory chunks, and neuron_p2p_unregister_va() ends
 * that.  In between, the registration holds a reference to the chunk, so its
 * memory is never given to another allocation, and the NIC driver's free
 * callback tells it when the mapping goes away: the pages of the range
 * unmapped (munmap, mremap, exit, exec) or the device removed.
 *
 * Each registration is in one of four states, all under neuron_p2p_lock
 * (which also counts, per device, those PENDING or CALLING, so that a
 * removal waits for callbacks an unmap started):
 *
 *   LIVE     on the list of all registrations and on its chunk's list;
 *            an unmap or a removal that concerns it makes it PENDING
 *   PENDING  on the local list of the task about to run the callbacks
 *   CALLING  on no list, its callback running in &neuron_p2p_reg.cb_task
 *   DONE     on no list, its callback returned
 *
 * neuron_p2p_unregister_va() frees a LIVE, PENDING or DONE registration at
 * once (a PENDING one's callback is then never run), waits for a CALLING one
 * to become DONE, unless it is called from that very callback (what EFA
 * does), in which case the task running the callbacks frees it once the
 * callback returns.  So a callback runs at most once, never after
 * unregister returned, and nothing of the driver is held while it runs.
 *
 * neuron_p2p_lock is never held while a chunk reference is dropped or a
 * callback runs (the lock order: Documentation/architecture.rst).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/wait.h>

#include <neuron/neuron_p2p.h>

#include "memory/mem.h"

/* The layout EFA's copy of the header has (remaining-surface §3.1). */
static_assert(sizeof(struct neuron_p2p_page_info) == 16);
static_assert(offsetof(struct neuron_p2p_va_info, size) == 8);
static_assert(offsetof(struct neuron_p2p_va_info, shift_page_size) == 16);
static_assert(offsetof(struct neuron_p2p_va_info, device_index) == 20);
static_assert(offsetof(struct neuron_p2p_va_info, entries) == 24);
static_assert(offsetof(struct neuron_p2p_va_info, page_info) == 32);

/* Large pages: a range of at least 256 MiB, 2 MiB aligned everywhere. */
#define NEURON_P2P_HUGE_SIZE		SZ_2M
#define NEURON_P2P_HUGE_THRESHOLD	SZ_256M

enum neuron_p2p_state {
	NEURON_P2P_LIVE,
	NEURON_P2P_PENDING,
	NEURON_P2P_CALLING,
	NEURON_P2P_DONE,
};

/**
 * struct neuron_p2p_reg - one registration
 * @node: LIVE: entry in neuron_p2p_regs; PENDING: entry in the list of the
 *	task that will run the callback
 * @chunk_node: LIVE: entry in the chunk's &neuron_mem_chunk.p2p
 * @state: see the top of the file
 * @cb_task: CALLING: the task running the callback (compared, never used)
 * @freed_in_cb: unregister was called from the running callback: the task
 *	running it frees the registration when the callback returns
 * @mc: the chunk, referenced until the registration is freed
 * @mm: the address space of the mapping (compared, never used)
 * @start: first user address of the range
 * @end: end of the range, page aligned
 * @cb: the free callback
 * @data: its argument
 * @info: what the caller is given
 *
 * Everything but @mc, @mm, @start, @end, @cb, @data and @info (written
 * before the registration is published) is under neuron_p2p_lock.
 */
struct neuron_p2p_reg {
	struct list_head node;
	struct list_head chunk_node;
	enum neuron_p2p_state state;
	struct task_struct *cb_task;
	bool freed_in_cb;
	struct neuron_mem_chunk *mc;
	struct mm_struct *mm;
	unsigned long start;
	unsigned long end;
	void (*cb)(void *data);
	void *data;
	struct neuron_p2p_va_info info;
};

/* Protects every registration's lists and state (see the top of the file). */
static DEFINE_MUTEX(neuron_p2p_lock);
/* Every LIVE registration, of every device. */
static LIST_HEAD(neuron_p2p_regs);
/* Woken whenever a registration leaves PENDING or CALLING. */
static DECLARE_WAIT_QUEUE_HEAD(neuron_p2p_wq);

static void neuron_p2p_free(struct neuron_p2p_reg *r)
{
	neuron_mem_put(r->mc);
	kfree(r);
}

/* @r is no longer PENDING or CALLING; neuron_p2p_lock held, wake the waiters after. */
static void neuron_p2p_busy_dec_locked(struct neuron_p2p_reg *r)
{
	struct neuron_mem *m = r->mc->nd->mem;

	lockdep_assert_held(&neuron_p2p_lock);
	WRITE_ONCE(m->p2p_busy, m->p2p_busy - 1);
}

/*
 * Run the callbacks of the PENDING registrations on @todo, one at a time,
 * with no lock held.  A registration unregistered meanwhile has left the
 * list and is not called.
 */
static void neuron_p2p_run(struct list_head *todo)
{
	struct neuron_p2p_reg *r;
	bool free;

	for (;;) {
		mutex_lock(&neuron_p2p_lock);
		r = list_first_entry_or_null(todo, struct neuron_p2p_reg, node);
		if (!r) {
			mutex_unlock(&neuron_p2p_lock);
			return;
		}
		list_del_init(&r->node);
		r->state = NEURON_P2P_CALLING;
		r->cb_task = current;
		mutex_unlock(&neuron_p2p_lock);

		r->cb(r->data);

		mutex_lock(&neuron_p2p_lock);
		WRITE_ONCE(r->state, NEURON_P2P_DONE);
		r->cb_task = NULL;
		neuron_p2p_busy_dec_locked(r);
		free = r->freed_in_cb;
		mutex_unlock(&neuron_p2p_lock);
		wake_up_all(&neuron_p2p_wq);
		if (free)
			neuron_p2p_free(r);
	}
}

/* Make LIVE @r PENDING on @todo; neuron_p2p_lock held. */
static void neuron_p2p_pend_locked(struct neuron_p2p_reg *r, struct list_head *todo)
{
	lockdep_assert_held(&neuron_p2p_lock);
	list_del_init(&r->chunk_node);
	list_move_tail(&r->node, todo);
	r->state = NEURON_P2P_PENDING;
	WRITE_ONCE(r->mc->nd->mem->p2p_busy, r->mc->nd->mem->p2p_busy + 1);
}

/**
 * neuron_p2p_vma_close() - a mapping of a chunk is going away
 * @vma: the mapping (or the part of it being unmapped), in the mapping's
 *	close with the mmap lock held
 *
 * Runs the callback of every registration of @vma's address space that
 * overlaps it.  A registration is made under the mmap lock for a mapping
 * still in the address space, and @vma's range no longer is: one added
 * meanwhile (by another address space, or for another mapping of this one
 * while an unmap holds the lock for reading) never concerns @vma.
 */
void neuron_p2p_vma_close(struct vm_area_struct *vma)
{
	struct neuron_mem_chunk *mc = vma->vm_private_data;
	struct neuron_p2p_reg *r, *tmp;
	LIST_HEAD(todo);

	/* What can be added meanwhile is not @vma's (above). */
	if (list_empty_careful(&mc->p2p))
		return;
	mutex_lock(&neuron_p2p_lock);
	list_for_each_entry_safe(r, tmp, &mc->p2p, chunk_node)
		if (r->mm == vma->vm_mm && r->start < vma->vm_end && r->end > vma->vm_start)
			neuron_p2p_pend_locked(r, &todo);
	mutex_unlock(&neuron_p2p_lock);
	neuron_p2p_run(&todo);
}

/**
 * neuron_p2p_device_gone() - run the callbacks of a device being removed
 * @nd: the device; its memory is gone (no registration is made any more)
 *	and every user mapping of it was zapped; the BARs are still mapped
 *
 * Returns once every callback of a registration on @nd returned, also
 * those an unmap started meanwhile in another task, so no NIC uses the
 * memory once the BARs go.  The remover's neuron_bus_lock is held: a
 * callback must not create or remove Neuron devices.
 */
void neuron_p2p_device_gone(struct neuron_device *nd)
{
	struct neuron_p2p_reg *r, *tmp;
	LIST_HEAD(todo);

	mutex_lock(&neuron_p2p_lock);
	list_for_each_entry_safe(r, tmp, &neuron_p2p_regs, node)
		if (r->mc->nd == nd)
			neuron_p2p_pend_locked(r, &todo);
	mutex_unlock(&neuron_p2p_lock);
	neuron_p2p_run(&todo);
	/* Callbacks an unmap runs in another task: lowered under the lock after each. */
	wait_event(neuron_p2p_wq, !READ_ONCE(nd->mem->p2p_busy));
}

/*
 * The physical address of byte @off (page aligned) of device chunk @mc:
 * the BAR's bus address where the bus has one, else what the bus says of
 * the page (the simulator's RAM).  neuron_p2p_lock held and the device not
 * gone, so the BAR is mapped.  0 or a negative errno.
 */
static int neuron_p2p_phys_locked(struct neuron_mem_chunk *mc, u64 off, phys_addr_t *phys)
{
	struct neuron_device *nd = mc->nd;
	const struct neuron_bar *bar = &nd->bars[nd->mem->bar];

	if (bar->phys) {
		*phys = bar->phys + mc->bar_off + off;
		return 0;
	}
	if (!nd->bus.mem_phys)
		return -EOPNOTSUPP;
	return nd->bus.mem_phys(nd->bus.ctx, nd->mem->bar, mc->bar_off + off, phys);
}

/*
 * Fill @info (NULL: count only) with the pages of [@off, @off + @len) of
 * @mc, physically contiguous pages merged into one entry.  @len is a
 * multiple of the page size 1 << @shift.  Return the number of entries,
 * or a negative errno.
 */
static long neuron_p2p_pages_locked(struct neuron_mem_chunk *mc, u64 off, u64 len,
				    unsigned int shift, struct neuron_p2p_va_info *info)
{
	u64 pos, step = 1ULL << shift;
	phys_addr_t phys, next = 0;
	u32 run = 0;
	long n = 0;
	int ret;

	for (pos = 0; pos < len; pos += step) {
		ret = neuron_p2p_phys_locked(mc, off + pos, &phys);
		if (ret)
			return ret;
		if (n && phys == next && run < U32_MAX) {
			run++;
		} else {
			n++;
			run = 1;
			if (info)
				info->page_info[n - 1].physical_address = phys;
		}
		if (info)
			info->page_info[n - 1].page_count = run;
		next = phys + step;
	}
	return n;
}

/*
 * The page size of a registration of @len bytes at user address @va whose
 * memory starts at @phys: 2 MiB when the range is at least 256 MiB and all
 * three are 2 MiB aligned and the bus has one contiguous range, else
 * PAGE_SIZE (the reference driver's choice).
 */
static unsigned int neuron_p2p_shift(struct neuron_mem_chunk *mc, u64 va, u64 len,
				     phys_addr_t phys)
{
	const struct neuron_bar *bar = &mc->nd->bars[mc->nd->mem->bar];

	if (bar->phys && len >= NEURON_P2P_HUGE_THRESHOLD &&
	    IS_ALIGNED(va | len | phys, NEURON_P2P_HUGE_SIZE))
		return ilog2(NEURON_P2P_HUGE_SIZE);
	return PAGE_SHIFT;
}

/*
 * Build and publish the registration of [@va, @va + @len) of @mc at @off,
 * mapped in @mm; the mmap lock is held, so the mapping (and its chunk
 * reference) stays.
 */
static int neuron_p2p_add(struct mm_struct *mm, struct neuron_mem_chunk *mc, u64 off, u64 va,
			  u64 len, u64 length, void (*cb)(void *data), void *data,
			  struct neuron_p2p_va_info **vainfo)
{
	struct neuron_p2p_reg *r;
	unsigned int shift;
	phys_addr_t phys;
	long n;
	int ret;

	mutex_lock(&neuron_p2p_lock);
	/* Removal sets it before it runs the callbacks under this lock. */
	ret = -ENODEV;
	if (READ_ONCE(mc->nd->mem->gone))
		goto out;
	ret = neuron_p2p_phys_locked(mc, off, &phys);
	if (ret)
		goto out;
	shift = neuron_p2p_shift(mc, va, len, phys);
	n = neuron_p2p_pages_locked(mc, off, len, shift, NULL);
	ret = n;
	if (n < 0)
		goto out;
	ret = -ENOMEM;
	r = kzalloc(struct_size(r, info.page_info, n), GFP_KERNEL_ACCOUNT);
	if (!r)
		goto out;
	/* The same pages as just counted: the BAR cannot go meanwhile. */
	if (WARN_ON_ONCE(neuron_p2p_pages_locked(mc, off, len, shift, &r->info) != n)) {
		ret = -EIO;
		kfree(r);
		goto out;
	}
	r->info.virtual_address = (void *)(unsigned long)va;
	r->info.size = length;
	r->info.shift_page_size = shift;
	r->info.device_index = mc->nd->index;
	r->info.entries = n;
	r->state = NEURON_P2P_LIVE;
	/* The mapping's reference keeps @mc while the mmap lock is held. */
	kref_get(&mc->ref);
	r->mc = mc;
	r->mm = mm;
	r->start = va;
	r->end = va + len;
	r->cb = cb;
	r->data = data;
	/* Set before a callback can run: it may use it (EFA unregisters). */
	*vainfo = &r->info;
	list_add_tail(&r->node, &neuron_p2p_regs);
	list_add_tail(&r->chunk_node, &mc->p2p);
	ret = 0;
out:
	mutex_unlock(&neuron_p2p_lock);
	return ret;
}

/**
 * neuron_p2p_register_va() - register device memory the caller has mapped, for peer DMA
 * @virtual_address: page-aligned user address in the calling process
 * @length: bytes from there; rounded up to a page
 * @vainfo: set to the registration: the physical pages of the range
 * @free_callback: called with @data when the mapping goes away (below)
 * @data: its argument
 *
 * For a NIC driver registering memory for the calling process (EFA's
 * reg_mr): [@virtual_address, @virtual_address + @length) must lie inside
 * one mapping, in the calling process's address space, of a device-memory
 * chunk the calling process owns, on any Neuron device.  The pages come
 * back in address order as runs of physically contiguous pages: on a real
 * device one run of bus addresses in the device-memory BAR, in 2 MiB pages
 * when the range is at least 256 MiB and its address, length and physical
 * address are 2 MiB aligned, else in PAGE_SIZE pages; on a simulated device
 * the physical addresses of the simulator's RAM pages, PAGE_SIZE each.
 *
 * Until neuron_p2p_unregister_va(), the registration holds the chunk: its
 * memory is not given to another allocation, whatever the process does.
 *
 * @free_callback runs once, and only once, when any page of the range
 * stops being mapped in the process (munmap() or mremap() of it, exit,
 * exec) or when the device is removed, unless neuron_p2p_unregister_va()
 * was called first.  It runs in the context of whoever unmaps (often with
 * that address space's mmap lock held) or removes the device, with no lock
 * of this API held; it may call neuron_p2p_unregister_va() on this or any
 * registration, must not call neuron_p2p_register_va(), and must stop all
 * DMA to the pages before it returns: after a device removal the memory
 * goes with the device.  The caller must call neuron_p2p_unregister_va()
 * for every registration, whether or not the callback ran.
 *
 * Context: process context of the process whose mapping it is; may sleep;
 * takes the mmap lock for reading.
 * Return: 0; -EINVAL for a NULL @vainfo or @free_callback, a zero,
 * unaligned or overflowing range, a range that is not inside one of the
 * calling process's mappings of its own device chunks (memory of another
 * driver, another process's mapping, a range running past the mapping): a
 * NIC driver then tries its other providers; -EOPNOTSUPP for a mapping of a
 * host-memory chunk, or a bus without physical addresses; -ENODEV when the
 * device is being removed; -ENOMEM; -EINTR on a fatal signal.
 */
int neuron_p2p_register_va(u64 virtual_address, u64 length, struct neuron_p2p_va_info **vainfo,
			   void (*free_callback)(void *data), void *data)
{
	struct mm_struct *mm = current->mm;
	struct neuron_mem_chunk *mc;
	u64 len, end, off;
	int ret;

	if (!vainfo || !free_callback || !virtual_address || !length ||
	    !PAGE_ALIGNED(virtual_address) || !mm)
		return -EINVAL;
	if (check_add_overflow(length, (u64)PAGE_SIZE - 1, &len))
		return -EINVAL;
	len = round_down(len, PAGE_SIZE);
	if (check_add_overflow(virtual_address, len, &end) || end > TASK_SIZE)
		return -EINVAL;
	if (len >> PAGE_SHIFT > U32_MAX)
		return -EINVAL;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	ret = -EINVAL;
	mc = neuron_mem_mapped_chunk(mm, virtual_address, end, &off);
	if (!mc)
		goto out;
	ret = -EOPNOTSUPP;
	if (mc->location != NEURON_MEM_DEVICE)
		goto out;
	ret = neuron_p2p_add(mm, mc, off, virtual_address, len, length, free_callback, data,
			     vainfo);
out:
	mmap_read_unlock(mm);
	return ret;
}
EXPORT_SYMBOL_GPL(neuron_p2p_register_va);

/**
 * neuron_p2p_unregister_va() - end a registration
 * @vainfo: what neuron_p2p_register_va() gave
 *
 * Frees the registration and drops what it held; @vainfo is invalid
 * afterwards.  Valid whether or not the free callback ran, from any
 * context that may sleep, including the free callback itself.  If the
 * callback is running in another task, this waits for it to return (the
 * caller must not hold anything the callback waits for); if it has not
 * started, it never runs.  Once this returns the callback is not running
 * and never runs again.  Each registration is unregistered exactly once.
 *
 * Context: may sleep.
 * Return: 0, or -EINVAL for a NULL @vainfo.
 */
int neuron_p2p_unregister_va(struct neuron_p2p_va_info *vainfo)
{
	struct neuron_p2p_reg *r;
	bool wake = false;

	if (!vainfo)
		return -EINVAL;
	r = container_of(vainfo, struct neuron_p2p_reg, info);
	mutex_lock(&neuron_p2p_lock);
	switch (r->state) {
	case NEURON_P2P_LIVE:
		list_del(&r->chunk_node);
		list_del(&r->node);
		break;
	case NEURON_P2P_PENDING:
		/* Never called now; a removal may be waiting for it. */
		list_del(&r->node);
		neuron_p2p_busy_dec_locked(r);
		wake = true;
		break;
	case NEURON_P2P_CALLING:
		if (r->cb_task == current) {
			/* From the callback: its runner frees it on return. */
			r->freed_in_cb = true;
			mutex_unlock(&neuron_p2p_lock);
			return 0;
		}
		mutex_unlock(&neuron_p2p_lock);
		wait_event(neuron_p2p_wq, READ_ONCE(r->state) == NEURON_P2P_DONE);
		/* The runner wrote DONE under the lock and touches @r no more. */
		mutex_lock(&neuron_p2p_lock);
		break;
	case NEURON_P2P_DONE:
		break;
	}
	mutex_unlock(&neuron_p2p_lock);
	if (wake)
		wake_up_all(&neuron_p2p_wq);
	neuron_p2p_free(r);
	return 0;
}
EXPORT_SYMBOL_GPL(neuron_p2p_unregister_va);
