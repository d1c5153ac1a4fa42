// SPDX-License-Identifier: GPL-2.0
/*
 * Device and host memory: per-device pools, the chunks processes allocate,
 * their handles, and mmap.
 *
 * Device memory: one pool per HBM channel the DHAL describes, each a range
 * allocator over device-view addresses.  The device-memory BAR is split
 * evenly between the channels; a channel's pool covers the smaller of its
 * HBM and its share of the BAR (the simulator's RAM window is much smaller
 * than a real HBM), less the firmware carve-out when the whole HBM is
 * reachable.
 *
 * Host memory: physically contiguous pages mapped for the device through
 * the DMA API (so an IOMMU is honoured); the address the device is given
 * is the DMA address with the generation's host bit.  User mappings insert
 * the pages themselves, each holding a page reference, so no mapping can
 * reach memory the kernel reused.
 *
 * Chunks are reference counted.  The handle holds one reference until
 * MEM_FREE or until its process detaches from the device; every mapping,
 * every ioctl using the chunk and every dma-buf holds another, so freeing a
 * chunk that is still mapped keeps its memory (and its place in the pool)
 * until the last mapping goes.
 *
 * Handles are opaque: a random 32-bit tag above a 32-bit index into the
 * device's handle table, checked against the chunk on every lookup along
 * with the owner, so stale, forged and foreign handles all fail alike.
 *
 * Locking: &neuron_mem.lock protects pools, tables and counters.  It is
 * taken inside &neuron_device.lock (allocation and detach) and inside the
 * mmap lock (mmap and munmap); no user memory is touched while it is held,
 * and no walk over the chunks or handles holds it for more than
 * %NEURON_MEM_WALK_BATCH of them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <neuron/compat.h>

#include "memory/mem.h"

static unsigned int neuron_host_mem_limit_mb;
module_param_named(host_mem_limit_mb, neuron_host_mem_limit_mb, uint, 0644);
MODULE_PARM_DESC(host_mem_limit_mb,
		 "Host memory one process may hold in chunks of one device (MiB); 0 (default): half of RAM");

/*
 * Chunks a walk over a device's chunks or handles visits per hold of
 * &neuron_mem.lock; between batches it lets the lock go and may
 * reschedule, so no walk holds the lock (and every allocation of the
 * device) for longer than a batch, however many chunks there are.
 */
#define NEURON_MEM_WALK_BATCH	256

/* The location a category belongs to. */
static enum neuron_mem_location neuron_mem_type_location(u32 type)
{
	switch (type) {
	case NEURON_MEMALLOC_TYPE_UNKNOWN_HOST:
	case NEURON_MEMALLOC_TYPE_CODE_HOST:
	case NEURON_MEMALLOC_TYPE_TENSORS_HOST:
	case NEURON_MEMALLOC_TYPE_CONSTANTS_HOST:
	case NEURON_MEMALLOC_TYPE_MISC_HOST:
	case NEURON_MEMALLOC_TYPE_NCDEV_HOST:
	case NEURON_MEMALLOC_TYPE_NOTIFICATION_HOST:
	case NEURON_MEMALLOC_TYPE_DMA_RINGS_HOST:
		return NEURON_MEM_HOST;
	default:
		return NEURON_MEM_DEVICE;
	}
}

/**
 * neuron_mem_init() - make a new device's memory state
 * @nd: the device, being created
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_mem_init(struct neuron_device *nd)
{
	struct neuron_mem *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mutex_init(&m->lock);
	xa_init_flags(&m->handles, XA_FLAGS_ALLOC1);
	mt_init(&m->by_pa);
	INIT_LIST_HEAD(&m->dmabufs);
	nd->mem = m;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mem_init);

/**
 * neuron_mem_setup() - create the device-memory pools
 * @nd: the device, bound to its DHAL and mapped
 *
 * Copies what the pools need from the DHAL (which the device lets go of
 * when it is removed, while chunks may live on).  A device without a
 * device-memory BAR gets no pools: device allocations then fail with
 * -ENOMEM.  The bus device's DMA mask is narrowed to below the
 * generation's host bit.
 *
 * Return: 0; -ENOMEM; the DMA API's error when the mask cannot be set.
 */
int neuron_mem_setup(struct neuron_device *nd)
{
	const struct neuron_dhal *dhal = nd->dhal.dhal;
	const struct neuron_dhal_mem *dm = dhal->mem;
	const struct neuron_bar *bar = &nd->bars[dhal->layout->dram_bar];
	struct neuron_mem *m = nd->mem;
	unsigned int i, n = min_t(u32, dm->hbm_count, NEURON_MAX_HBM);
	u64 share;
	int ret = 0;

	mutex_lock(&m->lock);
	if (m->ready)
		goto out;
	/*
	 * The device ORs the generation's host bit into every host address
	 * it is given: a DMA address at or above that bit would be silently
	 * corrupted, so the DMA API must never hand one out.
	 */
	if (dhal->layout->pci_host_base && nd->bus.parent) {
		u64 limit = dhal->layout->pci_host_base - 1;

		if (WARN_ON_ONCE(!is_power_of_2(dhal->layout->pci_host_base))) {
			ret = -EINVAL;
			goto out;
		}
		if (dma_get_mask(nd->bus.parent) > limit) {
			ret = dma_set_mask_and_coherent(nd->bus.parent, limit);
			if (ret)
				goto out;
		}
	}
	m->bar = dhal->layout->dram_bar;
	m->host_base = dhal->layout->pci_host_base;
	m->nc_count = dhal->layout->nc_count;
	share = n ? round_down((u64)bar->size / n, PAGE_SIZE) : 0;
	for (i = 0; i < n && share; i++) {
		struct neuron_mem_hbm *h = &m->hbm[i];
		u64 size = min(share, dm->hbm_size[i]);
		u64 skip = 0;

		if (size == dm->hbm_size[i] && dm->carveout < size)
			skip = round_up(dm->carveout, PAGE_SIZE);
		h->base = dm->hbm_base[i] + skip;
		h->size = round_down(size - skip, PAGE_SIZE);
		h->bar_off = i * share + skip;
		ret = neuron_extent_init(&h->range, h->base, h->size, PAGE_SIZE);
		if (ret) {
			while (i-- > 0)
				neuron_extent_destroy(&m->hbm[i].range);
			goto out;
		}
	}
	m->hbm_count = i;
	m->ready = true;
out:
	mutex_unlock(&m->lock);
	return ret;
}

/*
 * Give a host chunk's memory back, once no one can reach it: at its last
 * reference (a mapping holds one), or when the device goes, after every
 * mapping of it was zapped (neuron_mem_host_free_all()).
 */
static void neuron_mem_host_release(struct neuron_device *nd, struct neuron_mem_chunk *mc)
{
	if (!mc->dma_mapped)
		return;
	dma_free_coherent(nd->bus.parent, mc->size, mc->va, mc->dma);
	mc->va = NULL;
	mc->dma_mapped = false;
}

static void neuron_mem_account(struct neuron_mem *m, struct neuron_mem_chunk *mc, bool add)
{
	unsigned int loc = mc->location - 1;

	neuron_stats_mem(mc->nd, mc, add);
	if (add) {
		m->bytes[loc] += mc->size;
		m->type_bytes[mc->acct_type] += mc->size;
		m->chunks++;
	} else {
		m->bytes[loc] -= mc->size;
		m->type_bytes[mc->acct_type] -= mc->size;
		m->chunks--;
	}
	if (mc->location == NEURON_MEM_DEVICE) {
		if (add)
			m->hbm[mc->hbm].chunks++;
		else
			m->hbm[mc->hbm].chunks--;
	}
}

static void neuron_mem_release(struct kref *ref)
{
	struct neuron_mem_chunk *mc = container_of(ref, struct neuron_mem_chunk, ref);
	struct neuron_device *nd = mc->nd;
	struct neuron_mem *m = nd->mem;

	mutex_lock(&m->lock);
	mtree_erase(&m->by_pa, mc->pa);
	neuron_mem_account(m, mc, false);
	if (mc->location == NEURON_MEM_DEVICE)
		neuron_extent_free(&m->hbm[mc->hbm].range, mc->pa, mc->size);
	else
		neuron_mem_host_release(nd, mc);
	mutex_unlock(&m->lock);
	put_pid(mc->owner);
	kfree(mc);
	put_device(&nd->dev);
}

/**
 * neuron_mem_put() - drop a reference to a chunk
 * @mc: the chunk
 *
 * The last reference returns the memory to its pool.  Process context;
 * must not be called with &neuron_mem.lock held.
 */
void neuron_mem_put(struct neuron_mem_chunk *mc)
{
	if (mc)
		kref_put(&mc->ref, neuron_mem_release);
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_put, NEURON_NS);

/*
 * The owner entry of @tgid, with m->lock held; with @add, a free entry
 * becomes its entry if it has none.  NULL when it has none (or, with @add,
 * none is free: never while owners are attached processes).
 */
static struct neuron_mem_owner *neuron_mem_owner_locked(struct neuron_mem *m, struct pid *tgid,
							bool add)
{
	struct neuron_mem_owner *free = NULL;
	unsigned int i;

	for (i = 0; i < NEURON_MEM_OWNERS; i++) {
		struct neuron_mem_owner *o = &m->owners[i];
		bool used = o->bytes[0] || o->bytes[1];

		if (used && o->tgid == tgid)
			return o;
		if (!used && !free)
			free = o;
	}
	if (!add || !free)
		return NULL;
	free->tgid = tgid;
	return free;
}

/* What one process's handles may hold in host chunks of one device. */
static u64 neuron_mem_host_limit(void)
{
	unsigned int mb = READ_ONCE(neuron_host_mem_limit_mb);

	return mb ? (u64)mb << 20 : (u64)totalram_pages() << (PAGE_SHIFT - 1);
}

/*
 * Whether @tgid may take a handle to @mc, with m->lock held: it has an
 * owner entry (0) and stays within the host limit.  -ENOMEM otherwise.
 */
static int neuron_mem_owner_check_locked(struct neuron_mem *m, struct pid *tgid,
					 const struct neuron_mem_chunk *mc)
{
	struct neuron_mem_owner *o = neuron_mem_owner_locked(m, tgid, true);

	if (WARN_ON_ONCE(!o))
		return -ENOMEM;
	if (mc->location == NEURON_MEM_HOST &&
	    o->bytes[NEURON_MEM_HOST - 1] + mc->size > neuron_mem_host_limit())
		return -ENOMEM;
	return 0;
}

/* @mc got a handle of its owner's (m->lock held, after the check above). */
static void neuron_mem_owner_charge_locked(struct neuron_mem *m, struct neuron_mem_chunk *mc)
{
	struct neuron_mem_owner *o = neuron_mem_owner_locked(m, mc->owner, true);

	if (!WARN_ON_ONCE(!o))
		o->bytes[mc->location - 1] += mc->size;
}

/*
 * Give @mc the handle of its entry @idx in m->handles: the index in the low
 * half, a random odd upper half, so a handle is never 0 and a stale or
 * guessed one almost never names a live chunk.  m->lock held.
 */
static void neuron_mem_handle_set_locked(struct neuron_mem *m, struct neuron_mem_chunk *mc,
					 u32 idx)
{
	mc->handle = ((u64)(get_random_u32() | 1) << 32) | idx;
	m->nr_handles++;
}

/*
 * Host chunks are coherent memory: the device (through the runtime's own
 * queues) and processes (through their mappings) use them at any time, so
 * a streaming mapping, which is only coherent between syncs, would do
 * (under swiotlb, the device would never see what the CPU wrote).
 * Zeroed, charged to the caller's memory cgroup.
 */
static int neuron_mem_alloc_host(struct neuron_device *nd, struct neuron_mem_chunk *mc)
{
	mc->va = dma_alloc_coherent(nd->bus.parent, mc->size, &mc->dma,
				    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mc->va)
		return -ENOMEM;
	mc->dma_mapped = true;
	mc->pa = (u64)mc->dma | nd->mem->host_base;
	return 0;
}

/* Check a request against the device; 0 or -EINVAL. */
static int neuron_mem_check(struct neuron_mem *m, const struct neuron_mem_request *req)
{
	if (!req->size || req->region || req->nc_id >= m->nc_count ||
	    req->mem_type >= NEURON_MEMALLOC_TYPE_MAX)
		return -EINVAL;
	if (req->host)
		return req->align ||
		       req->mem_type == NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE ?
		       -EINVAL : 0;
	if (req->hbm >= NEURON_MAX_HBM)
		return -EINVAL;
	/* One larger than the pool is simply not satisfiable (-ENOMEM). */
	if (req->align && !is_power_of_2(req->align))
		return -EINVAL;
	return 0;
}

/**
 * neuron_mem_alloc() - allocate a chunk for the calling process
 * @nd: the device
 * @req: what to allocate (user values, checked here)
 * @out: the chunk, with one reference for the caller besides the handle's
 *	(with @req->driver, no handle and only the caller's reference)
 *
 * The chunk gets a handle owned by the calling process, which must be
 * attached to @nd (it is checked again under the device lock, so a chunk
 * is never left behind by a process that detached meanwhile).
 *
 * Return: 0; -EINVAL for a bad request; -ENOMEM when there is no room;
 * -EACCES when the caller is not attached; -ENODEV after removal.
 */
int neuron_mem_alloc(struct neuron_device *nd, const struct neuron_mem_request *req,
		     struct neuron_mem_chunk **out)
{
	struct neuron_mem *m = nd->mem;
	struct pid *me = task_tgid(current);
	struct neuron_mem_chunk *mc;
	u64 size;
	u32 idx;
	int ret;

	if (!READ_ONCE(m->ready))
		return -ENODEV;
	ret = neuron_mem_check(m, req);
	if (ret)
		return ret;
	if (check_add_overflow(req->size, (u64)PAGE_SIZE - 1, &size))
		return -ENOMEM;
	size = round_down(size, PAGE_SIZE);
	if (req->host && size > (PAGE_SIZE << (NEURON_MAX_PAGE_ORDER)))
		return -ENOMEM;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	if (!mc)
		return -ENOMEM;
	kref_init(&mc->ref);
	INIT_LIST_HEAD(&mc->p2p);
	mc->nd = nd;
	mc->size = size;
	mc->nc_id = req->nc_id;
	mc->mem_type = req->mem_type;
	mc->location = req->host ? NEURON_MEM_HOST : NEURON_MEM_DEVICE;
	mc->acct_type = req->mem_type;
	if (neuron_mem_type_location(req->mem_type) != mc->location)
		mc->acct_type = req->host ? NEURON_MEMALLOC_TYPE_UNKNOWN_HOST :
			NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE;

	/* Host pages are allocated outside the locks: it may take a while. */
	if (req->host) {
		ret = neuron_mem_alloc_host(nd, mc);
		if (ret)
			goto err_free;
	}

	mutex_lock(&nd->lock);
	mutex_lock(&m->lock);
	ret = -ENODEV;
	if (m->gone)
		goto err_unlock;
	ret = -EACCES;
	if (!neuron_attached_locked(nd, me))
		goto err_unlock;
	if (!req->host) {
		struct neuron_mem_hbm *h;

		ret = -EINVAL;
		if (req->hbm >= m->hbm_count)
			goto err_unlock;
		h = &m->hbm[array_index_nospec(req->hbm, m->hbm_count)];
		ret = neuron_extent_alloc(&h->range, size, req->align, &mc->pa);
		if (ret)
			goto err_unlock;
		mc->hbm = req->hbm;
		mc->bar_off = h->bar_off + (mc->pa - h->base);
	}
	ret = mtree_insert_range(&m->by_pa, mc->pa, mc->pa + mc->size - 1, mc,
				 GFP_KERNEL_ACCOUNT);
	if (ret) {
		ret = -ENOMEM;
		goto err_range;
	}
	if (!req->driver) {
		ret = neuron_mem_owner_check_locked(m, me, mc);
		if (ret)
			goto err_tree;
		ret = xa_alloc(&m->handles, &idx, mc, xa_limit_31b, GFP_KERNEL_ACCOUNT);
		if (ret) {
			ret = -ENOMEM;
			goto err_tree;
		}
		neuron_mem_handle_set_locked(m, mc, idx);
		/* The caller's reference; the first one is the handle's. */
		kref_get(&mc->ref);
	}
	mc->owner = get_pid(me);
	if (mc->handle)
		neuron_mem_owner_charge_locked(m, mc);
	get_device(&nd->dev);
	neuron_mem_account(m, mc, true);
	mutex_unlock(&m->lock);
	mutex_unlock(&nd->lock);
	*out = mc;
	return 0;

err_tree:
	mtree_erase(&m->by_pa, mc->pa);
err_range:
	if (!req->host)
		neuron_extent_free(&m->hbm[mc->hbm].range, mc->pa, size);
err_unlock:
	mutex_unlock(&m->lock);
	mutex_unlock(&nd->lock);
	if (req->host)
		neuron_mem_host_release(nd, mc);
err_free:
	kfree(mc);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_alloc, NEURON_NS);

/* Drop @mc's handle; called with m->lock held.  The caller puts the ref. */
static void neuron_mem_unhandle_locked(struct neuron_mem *m, struct neuron_mem_chunk *mc)
{
	struct neuron_mem_owner *o = neuron_mem_owner_locked(m, mc->owner, false);

	if (!WARN_ON_ONCE(!o))
		o->bytes[mc->location - 1] -= mc->size;
	xa_erase(&m->handles, lower_32_bits(mc->handle));
	mc->handle = 0;
	m->nr_handles--;
}

/* The caller's chunk named by @handle, with m->lock held; or NULL. */
static struct neuron_mem_chunk *neuron_mem_find_locked(struct neuron_mem *m, u64 handle)
{
	struct neuron_mem_chunk *mc;

	if (!handle)
		return NULL;
	mc = xa_load(&m->handles, lower_32_bits(handle));
	if (!mc || mc->handle != handle || mc->owner != task_tgid(current))
		return NULL;
	return mc;
}

/**
 * neuron_mem_get() - look up one of the caller's chunks by handle
 * @nd: the device
 * @handle: the handle, from user space
 *
 * Return: the chunk with a reference (neuron_mem_put() it), or NULL when
 * @handle does not name a live chunk of the calling process.
 */
struct neuron_mem_chunk *neuron_mem_get(struct neuron_device *nd, u64 handle)
{
	struct neuron_mem_chunk *mc;

	mutex_lock(&nd->mem->lock);
	mc = neuron_mem_find_locked(nd->mem, handle);
	if (mc)
		kref_get(&mc->ref);
	mutex_unlock(&nd->mem->lock);
	return mc;
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_get, NEURON_NS);

/**
 * neuron_mem_get_by_pa() - find the caller's chunk containing an address
 * @nd: the device
 * @pa: a device-view address
 *
 * Only chunks that still have a handle of the calling process are found.
 *
 * Return: the chunk with a reference, or NULL.
 */
struct neuron_mem_chunk *neuron_mem_get_by_pa(struct neuron_device *nd, u64 pa)
{
	struct neuron_mem_chunk *mc;

	mutex_lock(&nd->mem->lock);
	mc = mtree_load(&nd->mem->by_pa, pa);
	if (mc && (!mc->handle || mc->owner != task_tgid(current)))
		mc = NULL;
	if (mc)
		kref_get(&mc->ref);
	mutex_unlock(&nd->mem->lock);
	return mc;
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_get_by_pa, NEURON_NS);

/**
 * neuron_mem_handle_give() - give the caller a handle to a chunk
 * @nd: the device
 * @mc: a chunk the caller holds a reference to
 * @handle: set to the handle
 *
 * For chunks the driver keeps (notification queues): the chunk becomes the
 * calling process's, named by a handle of its own, which holds a reference
 * until MEM_FREE or the process detaches.  A handle another process had to
 * it is dropped; the caller's existing handle is given again.
 *
 * Return: 0; -EACCES when the caller is not attached; -ENODEV after
 * removal; -ENOMEM.
 */
int neuron_mem_handle_give(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 *handle)
{
	struct neuron_mem *m = nd->mem;
	struct pid *me = task_tgid(current), *old = NULL;
	struct neuron_mem_chunk *drop = NULL;
	u32 idx;
	int ret;

	mutex_lock(&nd->lock);
	mutex_lock(&m->lock);
	ret = -ENODEV;
	if (m->gone)
		goto out;
	ret = -EACCES;
	if (!neuron_attached_locked(nd, me))
		goto out;
	ret = 0;
	if (mc->handle && mc->owner == me)
		goto out;
	ret = neuron_mem_owner_check_locked(m, me, mc);
	if (ret)
		goto out;
	if (xa_alloc(&m->handles, &idx, mc, xa_limit_31b, GFP_KERNEL_ACCOUNT)) {
		ret = -ENOMEM;
		goto out;
	}
	if (mc->handle) {
		/* The other process's handle reference; ours keeps the chunk. */
		neuron_mem_unhandle_locked(m, mc);
		drop = mc;
	}
	neuron_mem_handle_set_locked(m, mc, idx);
	kref_get(&mc->ref);
	old = mc->owner;
	mc->owner = get_pid(me);
	neuron_mem_owner_charge_locked(m, mc);
out:
	if (!ret)
		*handle = mc->handle;
	mutex_unlock(&m->lock);
	mutex_unlock(&nd->lock);
	put_pid(old);
	neuron_mem_put(drop);
	return ret;
}

/**
 * neuron_mem_free_handle() - MEM_FREE: drop one of the caller's handles
 * @nd: the device
 * @handle: the handle
 *
 * The memory goes back to its pool once nothing maps or uses it.
 *
 * Return: 0, or -EINVAL when @handle is not a live handle of the caller.
 */
int neuron_mem_free_handle(struct neuron_device *nd, u64 handle)
{
	struct neuron_mem_chunk *mc;

	mutex_lock(&nd->mem->lock);
	mc = neuron_mem_find_locked(nd->mem, handle);
	if (mc)
		neuron_mem_unhandle_locked(nd->mem, mc);
	mutex_unlock(&nd->mem->lock);
	if (!mc)
		return -EINVAL;
	neuron_mem_put(mc);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mem_free_handle);

/**
 * neuron_mem_detach_locked() - drop every handle of a detaching process
 * @nd: the device
 * @tgid: the process
 *
 * Called with &neuron_device.lock held, when the process's last attached
 * file goes.  Memory still mapped stays until it is unmapped.
 *
 * One pass over the device's handles, %NEURON_MEM_WALK_BATCH at a time (at
 * most 32 of them dropped per batch), letting &neuron_mem.lock go and
 * rescheduling between batches: other processes' allocations wait for a
 * batch at most, however many handles the device has.
 */
void neuron_mem_detach_locked(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_mem *m = nd->mem;
	struct neuron_mem_chunk *mc;
	unsigned long idx, next = 0;

	lockdep_assert_held(&nd->lock);
	for (;;) {
		struct neuron_mem_chunk *batch[32];
		unsigned int n = 0, seen = 0, i;
		bool done = true;

		mutex_lock(&m->lock);
		xa_for_each_start(&m->handles, idx, mc, next) {
			if (n == ARRAY_SIZE(batch) || seen == NEURON_MEM_WALK_BATCH) {
				done = false;	/* @idx is for the next batch */
				break;
			}
			seen++;
			next = idx + 1;
			if (mc->owner != tgid)
				continue;
			neuron_mem_unhandle_locked(m, mc);
			batch[n++] = mc;
		}
		mutex_unlock(&m->lock);
		/* Puts take m->lock themselves. */
		for (i = 0; i < n; i++)
			neuron_mem_put(batch[i]);
		if (done)
			break;
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mem_detach_locked);

/**
 * neuron_mem_app_info() - the memory a process's handles hold, for
 *	GET_ALL_APPS_INFO (the memory plane's &neuron_plane.app_info)
 * @nd: the device, its lock held
 * @tgid: the process
 * @flags: APP_INFO_* asked for
 * @app: its element
 */
void neuron_mem_app_info(struct neuron_device *nd, struct pid *tgid, u16 flags,
			 struct neuron_app_info *app)
{
	if (flags & APP_INFO_PID_MEM_USAGE)
		neuron_mem_usage(nd, tgid, &app->host_mem_size, &app->device_mem_size);
}

/**
 * neuron_mem_usage() - memory a process's handles hold on a device
 * @nd: the device
 * @tgid: the process
 * @host: set to its bytes of host memory
 * @device: set to its bytes of device memory
 *
 * Reads the process's counts: no walk over its chunks.
 */
void neuron_mem_usage(struct neuron_device *nd, struct pid *tgid, __kernel_size_t *host,
		      __kernel_size_t *device)
{
	struct neuron_mem *m = nd->mem;
	struct neuron_mem_owner *o;

	*host = 0;
	*device = 0;
	mutex_lock(&m->lock);
	o = neuron_mem_owner_locked(m, tgid, false);
	if (o) {
		*host = o->bytes[NEURON_MEM_HOST - 1];
		*device = o->bytes[NEURON_MEM_DEVICE - 1];
	}
	mutex_unlock(&m->lock);
}

/**
 * neuron_mem_device_gone() - the device is being removed
 * @nd: the device; no file operation runs any more
 *
 * No mapping is made any more, and user mappings of the device's dma-bufs
 * are zapped (a later access gets SIGBUS, never the released BAR); chunks
 * themselves live on until their files, dma-bufs and mappings go.  Once
 * the files' mappings are zapped too, neuron_mem_host_free_all() gives the
 * host chunks' memory back.
 */
void neuron_mem_device_gone(struct neuron_device *nd)
{
	struct neuron_mem *m = nd->mem;

	mutex_lock(&m->lock);
	m->gone = true;
	/* No dma-buf mmap() succeeds any more: it checks @gone. */
	neuron_dmabuf_zap_locked(nd);
	mutex_unlock(&m->lock);
}

/**
 * neuron_mem_host_free_all() - give back every host chunk's memory
 * @nd: the device, gone (neuron_mem_device_gone()), with every user
 *	mapping of it zapped and no plane attached
 *
 * Host chunks are coherent memory of the bus device, which must be given
 * back while that device exists; the chunks themselves (an empty shell
 * from now on) live on until their handles and mappings go.
 */
void neuron_mem_host_free_all(struct neuron_device *nd)
{
	struct neuron_mem *m = nd->mem;
	struct neuron_mem_chunk *mc;
	unsigned long idx = 0;
	unsigned int batch;
	bool done = false;

	mutex_lock(&m->lock);
	/* A batch at a time: no chunk is made any more, some may go meanwhile. */
	while (!done) {
		for (batch = 0; batch < NEURON_MEM_WALK_BATCH; batch++) {
			mc = mt_find(&m->by_pa, &idx, ULONG_MAX);
			if (!mc) {
				done = true;
				break;
			}
			if (mc->location == NEURON_MEM_HOST)
				neuron_mem_host_release(nd, mc);
			/* The chunk ended at the top of the address space. */
			if (!idx) {
				done = true;
				break;
			}
		}
		if (done)
			break;
		mutex_unlock(&m->lock);
		cond_resched();
		mutex_lock(&m->lock);
	}
	mutex_unlock(&m->lock);
}

/**
 * neuron_mem_fini() - free a device's memory state
 * @nd: the device, at its last reference (no chunk is left: each held one)
 */
void neuron_mem_fini(struct neuron_device *nd)
{
	struct neuron_mem *m = nd->mem;
	unsigned int i;

	if (!m)
		return;
	WARN_ON(m->chunks || !xa_empty(&m->handles));
	for (i = 0; i < m->hbm_count; i++)
		neuron_extent_destroy(&m->hbm[i].range);
	xa_destroy(&m->handles);
	mtree_destroy(&m->by_pa);
	mutex_destroy(&m->lock);
	kfree(m);
	nd->mem = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mem_fini);

/**
 * neuron_mem_hold_next() - take the next piece of an HBM channel's free memory aside
 * @nd: the device
 * @hbm: the channel
 * @from: device-view address; the piece is the lowest free memory at or
 *	above it
 * @most: most bytes to take (at least a page)
 * @hold: set to the piece; give it back with neuron_mem_unhold()
 *
 * Until it is given back, no chunk can be made in the piece; chunks are
 * never touched.  That is what lets the caller overwrite free device memory
 * (HBM_SCRUB_START) without a chunk appearing under its feet, a piece at a
 * time: the next call starts at @hold->pa + @hold->size, so other
 * allocations on the channel wait for nothing but the free memory of the
 * piece held at the moment.  Memory allocated by someone else before the
 * walk reaches it is not free, so it is not taken.
 *
 * Context: takes &neuron_mem.lock; may sleep.
 * Return: 0; -ENOENT when no free memory of the channel lies at or above
 * @from; -EINVAL for a channel the device does not have, or @most below a
 * page; -ENODEV after removal; -ENOMEM (nothing is held then).
 */
int neuron_mem_hold_next(struct neuron_device *nd, u32 hbm, u64 from, u64 most,
			 struct neuron_mem_hold *hold)
{
	struct neuron_mem *m = nd->mem;
	int ret;

	mutex_lock(&m->lock);
	if (!m->ready || hbm >= m->hbm_count) {
		ret = -EINVAL;
	} else if (m->gone) {
		ret = -ENODEV;
	} else {
		hbm = array_index_nospec(hbm, m->hbm_count);
		ret = neuron_extent_take(&m->hbm[hbm].range, from, most, &hold->pa, &hold->size);
		if (!ret)
			m->held_bytes += hold->size;
	}
	mutex_unlock(&m->lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_hold_next, NEURON_NS);

/**
 * neuron_mem_unhold() - give back a piece neuron_mem_hold_next() took
 * @nd: the device
 * @hbm: the channel it was taken from
 * @hold: the piece
 *
 * Context: takes &neuron_mem.lock; may sleep.
 */
void neuron_mem_unhold(struct neuron_device *nd, u32 hbm, const struct neuron_mem_hold *hold)
{
	struct neuron_mem *m = nd->mem;

	if (WARN_ON_ONCE(hbm >= READ_ONCE(m->hbm_count)))
		return;
	hbm = array_index_nospec(hbm, NEURON_MAX_HBM);
	mutex_lock(&m->lock);
	neuron_extent_free(&m->hbm[hbm].range, hold->pa, hold->size);
	m->held_bytes -= hold->size;
	mutex_unlock(&m->lock);
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_unhold, NEURON_NS);

/**
 * neuron_mem_dump() - list the device chunks of one HBM channel
 * @nd: the device
 * @hbm: the channel
 * @out: where to write up to @capacity entries (kernel memory)
 * @capacity: entries @out holds; 0 asks for the count alone
 * @written: set to the entries written, in address order
 * @total: set to the number of chunks on the channel
 *
 * The count is kept as chunks come and go: asking for it walks nothing.
 * The listing visits the channel's chunks only (by address), at most
 * @capacity of them, %NEURON_MEM_WALK_BATCH at a time with the lock let go
 * in between, so it is no snapshot: a chunk made or freed meanwhile may be
 * listed or not, and *@total (read as the walk ends) may differ from
 * *@written even when @capacity would have held every chunk.
 *
 * Return: 0, -EINVAL for a channel the device does not have, -EINTR for a
 * fatal signal (nothing is returned then).
 */
int neuron_mem_dump(struct neuron_device *nd, u32 hbm, struct neuron_ioctl_mem_chunk_info *out,
		    u32 capacity, u32 *written, u32 *total)
{
	struct neuron_mem *m = nd->mem;
	struct neuron_mem_chunk *mc;
	unsigned long idx, last;
	unsigned int batch;
	bool done = false;
	u32 n = 0;

	*written = 0;
	mutex_lock(&m->lock);
	if (!m->ready || hbm >= m->hbm_count) {
		mutex_unlock(&m->lock);
		return -EINVAL;
	}
	hbm = array_index_nospec(hbm, m->hbm_count);
	idx = m->hbm[hbm].base;
	last = m->hbm[hbm].base + m->hbm[hbm].size - 1;
	for (;;) {
		for (batch = 0; n < capacity && batch < NEURON_MEM_WALK_BATCH; batch++) {
			/* The next chunk at or above @idx; @idx moves past it. */
			mc = mt_find(&m->by_pa, &idx, last);
			if (!mc) {
				done = true;
				break;
			}
			if (mc->location == NEURON_MEM_DEVICE && mc->hbm == hbm) {
				out[n].pa = mc->pa;
				out[n].size = mc->size;
				out[n].mem_type = mc->mem_type;
				n++;
			}
			/* Past the end of the address space: nothing more. */
			if (!idx) {
				done = true;
				break;
			}
		}
		if (done || n >= capacity)
			break;
		mutex_unlock(&m->lock);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		mutex_lock(&m->lock);
	}
	*total = m->hbm[hbm].chunks;
	mutex_unlock(&m->lock);
	*written = n;
	return 0;
}

/* mmap */

static void neuron_mem_vm_open(struct vm_area_struct *vma)
{
	struct neuron_mem_chunk *mc = vma->vm_private_data;

	/* A split or a copy of the mapping: each piece holds the chunk. */
	kref_get(&mc->ref);
}

static void neuron_mem_vm_close(struct vm_area_struct *vma)
{
	/* Peer-direct users of the range are told before the reference goes. */
	neuron_p2p_vma_close(vma);
	neuron_mem_put(vma->vm_private_data);
}

static const struct vm_operations_struct neuron_mem_vm_ops = {
	.open = neuron_mem_vm_open,
	.close = neuron_mem_vm_close,
};

/**
 * neuron_mem_is_chunk_vma() - whether a mapping is one neuron_mem_mmap() made
 * @vma: the mapping, with the mmap lock held
 *
 * Return: true when @vma->vm_private_data is a (referenced) chunk.
 */
bool neuron_mem_is_chunk_vma(struct vm_area_struct *vma)
{
	return vma->vm_ops == &neuron_mem_vm_ops;
}

/**
 * neuron_mem_mapped_chunk() - the caller's chunk mapped at a user range
 * @mm: the calling process's address space, its mmap lock held
 * @va: first user address of the range
 * @end: its end (exclusive), above @va
 * @off: set to the offset of @va in the chunk
 *
 * Return: the chunk, when [@va, @end) lies inside one mapping of a chunk
 * (of any device) the calling process owns; NULL otherwise.  No reference
 * is taken: the mapping holds one while the mmap lock is held.
 */
struct neuron_mem_chunk *neuron_mem_mapped_chunk(struct mm_struct *mm, u64 va, u64 end, u64 *off)
{
	struct neuron_mem_chunk *mc;
	struct vm_area_struct *vma;

	mmap_assert_locked(mm);
	if (va >= end)
		return NULL;
	vma = vma_lookup(mm, va);
	if (!vma || !neuron_mem_is_chunk_vma(vma) || end > vma->vm_end)
		return NULL;
	mc = vma->vm_private_data;
	if (mc->owner != task_tgid(current))
		return NULL;
	*off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - mc->pa + (va - vma->vm_start);
	return mc;
}

/* Map bytes [@off, @off + the mapping's length) of host chunk @mc; m->lock held. */
static int neuron_mem_mmap_host(struct neuron_device *nd, struct vm_area_struct *vma,
				struct neuron_mem_chunk *mc, u64 off)
{
	unsigned long pgoff = vma->vm_pgoff;
	int ret;

	/* dma_mmap_coherent() reads the offset in the buffer from vm_pgoff. */
	vma->vm_pgoff = off >> PAGE_SHIFT;
	ret = dma_mmap_coherent(nd->bus.parent, vma, mc->va, mc->dma, mc->size);
	vma->vm_pgoff = pgoff;
	return ret;
}

/**
 * neuron_mem_mmap_chunk() - map part of a chunk
 * @nf: the file
 * @vma: the mapping
 * @mc: the chunk, a reference the mapping takes over on success (put on
 *	failure)
 * @start: first byte of the range, a device-view address in @mc
 * @len: its length; @start + @len does not overflow
 * @rdonly: the chunk may only be mapped for reading
 *
 * Return: 0; -EINVAL for a range past the chunk's end; -EACCES for a
 * writable mapping of a read-only chunk; -ENODEV once the device is
 * removed; the bus's error.
 */
int neuron_mem_mmap_chunk(struct neuron_file *nf, struct vm_area_struct *vma,
			  struct neuron_mem_chunk *mc, u64 start, u64 len, bool rdonly)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem *m = nd->mem;
	u64 off = start - mc->pa;
	int ret;

	ret = -EINVAL;
	if (start + len > mc->pa + mc->size)
		goto out_put;
	ret = -EACCES;
	if (rdonly && (vma->vm_flags & VM_WRITE))
		goto out_put;

	neuron_vm_flags_set(vma, NEURON_VM_FLAGS);
	if (!(vma->vm_flags & VM_WRITE))
		neuron_vm_flags_clear(vma, VM_MAYWRITE);
	/*
	 * Not the usage lock: ioctls fault on user memory under it, so the
	 * mmap lock must not be taken outside it.  Removal marks the memory
	 * gone under m->lock before the BARs are unmapped instead.
	 */
	mutex_lock(&m->lock);
	if (m->gone)
		ret = -ENODEV;
	else if (mc->location == NEURON_MEM_HOST)
		ret = neuron_mem_mmap_host(nd, vma, mc, off);
	else if (nd->bus.mmap_bar)
		ret = nd->bus.mmap_bar(nd->bus.ctx, m->bar, mc->bar_off + off, vma);
	else
		ret = -EOPNOTSUPP;
	mutex_unlock(&m->lock);
	if (ret)
		goto out_put;
	/* The chunk reference taken by the lookup now belongs to the mapping. */
	vma->vm_private_data = mc;
	vma->vm_ops = &neuron_mem_vm_ops;
	return 0;

out_put:
	neuron_mem_put(mc);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mem_mmap_chunk);

/**
 * neuron_mem_mmap() - map a chunk the device's memory holds (the memory
 *	plane's &neuron_plane.mmap)
 * @nf: the file
 * @vma: the mapping
 * @start: first byte of the range
 * @len: its length; @start + @len does not overflow
 *
 * Return: -ENOENT when no chunk starts at or contains @start (the range
 * may be another plane's); else as neuron_mem_mmap_chunk().
 */
int neuron_mem_mmap(struct neuron_file *nf, struct vm_area_struct *vma, u64 start, u64 len)
{
	struct neuron_mem_chunk *mc = neuron_mem_get_by_pa(nf->nd, start);

	if (!mc)
		return -ENOENT;
	return neuron_mem_mmap_chunk(nf, vma, mc, start, len, false);
}

/**
 * neuron_mem_mmap_bar() - map a window of a BAR for a special resource
 * @nf: the file
 * @vma: the mapping (shared, checked by neuron_mem_mmap())
 * @bar: the BAR
 * @off: offset of the window in @bar
 * @rdonly: the mapping must stay read-only
 *
 * Context: the mmap lock is held; takes &neuron_mem.lock.
 * Return: 0; -EACCES for a writable mapping of a read-only window;
 * -ENODEV after removal; -EOPNOTSUPP when the bus cannot map BARs; the
 * bus's error (the simulator has no pages behind its register BAR).
 */
int neuron_mem_mmap_bar(struct neuron_file *nf, struct vm_area_struct *vma, unsigned int bar,
			u64 off, bool rdonly)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem *m = nd->mem;
	int ret;

	if (rdonly && (vma->vm_flags & VM_WRITE))
		return -EACCES;
	neuron_vm_flags_set(vma, NEURON_VM_FLAGS);
	if (!(vma->vm_flags & VM_WRITE))
		neuron_vm_flags_clear(vma, VM_MAYWRITE);
	mutex_lock(&m->lock);
	if (m->gone)
		ret = -ENODEV;
	else if (nd->bus.mmap_bar)
		ret = nd->bus.mmap_bar(nd->bus.ctx, bar, off, vma);
	else
		ret = -EOPNOTSUPP;
	mutex_unlock(&m->lock);
	return ret;
}

/* debugfs: /sys/kernel/debug/neuron/neuronN/memory */

static int neuron_mem_debugfs_show(struct seq_file *s, void *unused)
{
	struct neuron_device *nd = s->private;
	struct neuron_mem *m = nd->mem;

	mutex_lock(&m->lock);
	seq_printf(s, "host_bytes %llu\n", m->bytes[NEURON_MEM_HOST - 1]);
	seq_printf(s, "device_bytes %llu\n", m->bytes[NEURON_MEM_DEVICE - 1]);
	seq_printf(s, "chunks %lu\n", m->chunks);
	seq_printf(s, "handles %lu\n", m->nr_handles);
	seq_printf(s, "held_bytes %llu\n", m->held_bytes);
	mutex_unlock(&m->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_mem_debugfs);

/**
 * neuron_mem_debugfs_add() - add "memory" to the device's debugfs directory
 * @nd: the device, just published
 */
void neuron_mem_debugfs_add(struct neuron_device *nd)
{
	struct dentry *dir = neuron_device_debugfs(nd);

	if (!IS_ERR_OR_NULL(dir))
		debugfs_create_file("memory", 0400, dir, nd, &neuron_mem_debugfs_fops);
}

/**
 * neuron_device_host_base() - the bit the device needs in host addresses
 * @nd: the device
 *
 * Return: the generation's host-address bit, ORed into the DMA address of
 * host memory the device is given; 0 before the memory pools are set up.
 */
u64 neuron_device_host_base(struct neuron_device *nd)
{
	return nd->mem->host_base;
}
EXPORT_SYMBOL_NS_GPL(neuron_device_host_base, NEURON_NS);

/**
 * neuron_mem_hbm_count() - HBM channels of a device that have a pool
 * @nd: the device
 *
 * Return: the count; 0 before the pools are set up or without device memory.
 */
u32 neuron_mem_hbm_count(struct neuron_device *nd)
{
	return READ_ONCE(nd->mem->hbm_count);
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_hbm_count, NEURON_NS);

/**
 * neuron_mem_cpu_max() - the largest copy the CPU does better than the engine
 * @nd: the device; the caller holds its usage lock
 * @to_dev: for copies into device memory, else out of it
 *
 * What the bus says a copy through its mapping of device memory is worth
 * (&neuron_bus_desc.mem_io_max).
 *
 * Return: bytes; 0 when the bus has no CPU access to device memory or
 * the device has none.
 */
u32 neuron_mem_cpu_max(struct neuron_device *nd, bool to_dev)
{
	if (!nd->bus.mem_io || !READ_ONCE(nd->mem->ready) || !nd->bars[nd->mem->bar].size)
		return 0;
	return nd->bus.mem_io_max[to_dev];
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_cpu_max, NEURON_NS);

/*
 * The BAR through which the CPU reaches [@off, @off + @len) of device chunk
 * @mc, where the bus has the copy callback (@io); NULL where it has not
 * or the BAR does not map it all.
 */
static const struct neuron_bar *neuron_mem_cpu_bar(struct neuron_mem_chunk *mc, u64 off,
						   size_t len, bool io)
{
	struct neuron_device *nd = mc->nd;
	const struct neuron_bar *bar = &nd->bars[nd->mem->bar];

	if (!io || !bar->size || mc->bar_off + off + len > bar->size)
		return NULL;
	return bar;
}

/**
 * neuron_mem_cpu_io() - copy between kernel memory and a chunk with the CPU
 * @mc: the chunk (a reference the caller holds, and its device's usage lock)
 * @off: byte offset in the chunk
 * @buf: kernel buffer
 * @len: bytes
 * @to_chunk: from @buf into the chunk, else the other way
 *
 * A host chunk is copied with memcpy(); a device chunk through the bus's
 * mapping of device memory (&neuron_bus_desc.mem_io): write-combined into
 * it, flushed before the return, uncached (or plain RAM for a simulated
 * device) out of it.  Nothing orders the copy against DMA the caller did
 * not wait for.
 *
 * Return: 0; -EINVAL for a range outside the chunk; -EOPNOTSUPP when the
 * bus cannot copy that range with the CPU (nothing changed: use the DMA
 * engine).
 */
int neuron_mem_cpu_io(struct neuron_mem_chunk *mc, u64 off, void *buf, size_t len,
		      bool to_chunk)
{
	struct neuron_device *nd = mc->nd;
	const struct neuron_bar *bar;

	if (!neuron_mem_range_ok(mc, off, len))
		return -EINVAL;
	if (mc->location == NEURON_MEM_HOST) {
		if (to_chunk)
			memcpy(mc->va + off, buf, len);
		else
			memcpy(buf, mc->va + off, len);
		return 0;
	}
	bar = neuron_mem_cpu_bar(mc, off, len, !!nd->bus.mem_io);
	if (!bar)
		return -EOPNOTSUPP;
	return nd->bus.mem_io(nd->bus.ctx, nd->mem->bar, bar, mc->bar_off + off, buf, len,
			      to_chunk);
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_cpu_io, NEURON_NS);

/**
 * neuron_mem_cpu_user_io() - copy between a user buffer and a device chunk,
 *	page faults disabled
 * @mc: the chunk, in device memory (a reference the caller holds, and its
 *	device's usage lock)
 * @off: byte offset in the chunk
 * @ubuf: user buffer, checked with access_ok()
 * @len: bytes
 * @to_chunk: from @ubuf into the chunk, else the other way
 * @done: set on -EFAULT: a count of bytes from the start of the range that
 *	were all copied (maybe fewer than were)
 *
 * As neuron_mem_cpu_io(), straight between the user's memory and the
 * bus's mapping of device memory (&neuron_bus_desc.mem_user_io), without
 * taking a page fault: a page of @ubuf that is not there stops the copy.
 * The caller faults it in, or pins it, and copies the rest.
 *
 * Return: 0; -EFAULT when the copy stopped at a page (see @done);
 * -EINVAL for a range outside the chunk; -EOPNOTSUPP for a host chunk, or
 * when the bus cannot copy that range this way (nothing changed).
 */
int neuron_mem_cpu_user_io(struct neuron_mem_chunk *mc, u64 off, void __user *ubuf, size_t len,
			   bool to_chunk, size_t *done)
{
	struct neuron_device *nd = mc->nd;
	const struct neuron_bar *bar;

	if (!neuron_mem_range_ok(mc, off, len))
		return -EINVAL;
	if (mc->location == NEURON_MEM_HOST)
		return -EOPNOTSUPP;
	bar = neuron_mem_cpu_bar(mc, off, len, !!nd->bus.mem_user_io);
	if (!bar)
		return -EOPNOTSUPP;
	*done = 0;
	return nd->bus.mem_user_io(nd->bus.ctx, nd->mem->bar, bar, mc->bar_off + off, ubuf, len,
				   to_chunk, done);
}
EXPORT_SYMBOL_NS_GPL(neuron_mem_cpu_user_io, NEURON_NS);
