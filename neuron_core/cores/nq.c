// SPDX-License-Identifier: GPL-2.0
/*
 * Notification queues: rings in host or device memory into which a
 * NeuronCore, a TOP_SP or a DMA engine writes what it did
 * (Documentation/state.rst).
 *
 * A queue is named by its block (core or TOP_SP), its type and its engine
 * index, and programmed into a slot of the block's notific registers, in
 * the register BAR's read-only part: only the driver points the device at
 * memory.  The driver keeps each queue's chunk until the queue's core is
 * reset, the queue is replaced or destroyed, or the device goes; the
 * process that set the queue up last owns it: it gets a handle (MEM_FREE of
 * which drops only the handle) and may map a host queue.
 *
 * &neuron_cores.nq_lock serialises queue changes and protects the
 * queue table and the slot registers; allocation happens under it, so it
 * comes before the device and memory locks.
 */

#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "cores/cores.h"
#include "memory/mem.h"

/* Slot registers of a notific block. */
#define NEURON_NQ_SLOT(i)	(0x100 + (i) * 0x28)
#define NEURON_NQ_BASE_LO	0x0
#define NEURON_NQ_BASE_HI	0x4
#define NEURON_NQ_SIZE		0x8

/* Engines (slots) per block a queue may name. */
#define NEURON_NQ_ENGINES	16

/**
 * struct neuron_nq - one notification queue
 * @mc: its memory (a reference)
 * @owner: the process that set it up last (a reference)
 * @regs: offset of its slot registers in the register BAR
 * @nc: the core it belongs to (a TOP_SP's queue belongs to the TOP_SP's core)
 */
struct neuron_nq {
	struct neuron_mem_chunk *mc;
	struct pid *owner;
	u64 regs;
	u8 nc;
};

/**
 * struct neuron_nq_req - a queue request, whatever its form
 * @dev_type: NQ_DEVICE_TYPE_NEURON_CORE or NQ_DEVICE_TYPE_TOPSP
 * @dev_id: the core or TOP_SP
 * @nq_type: enum NQ_TYPE
 * @engine: engine index within the block
 * @size: bytes, a power of two
 * @host: in host memory
 * @hbm: HBM channel of a device queue
 * @region: region within the channel
 * @force: a new chunk even when the queue exists
 */
struct neuron_nq_req {
	u32 dev_type;
	u32 dev_id;
	u32 nq_type;
	u32 engine;
	u32 size;
	bool host;
	u32 hbm;
	u32 region;
	bool force;
};

/**
 * neuron_nq_init_device() - set up a device's queue table
 * @nd: the device
 */
void neuron_nq_init_device(struct neuron_device *nd)
{
	mutex_init(&nd->cores->nq_lock);
	xa_init(&nd->cores->nqs);
}

static void neuron_nq_program(struct neuron_device *nd, const struct neuron_nq *q, u64 addr,
			      u32 size)
{
	unsigned int bar = nd->dhal.dhal->layout->apb_bar;

	neuron_reg_write32(nd, bar, q->regs + NEURON_NQ_BASE_HI, upper_32_bits(addr));
	neuron_reg_write32(nd, bar, q->regs + NEURON_NQ_BASE_LO, lower_32_bits(addr));
	neuron_reg_write32(nd, bar, q->regs + NEURON_NQ_SIZE, size);
}

/* Stop the device writing into a queue: size first, then the address. */
static void neuron_nq_halt(struct neuron_device *nd, const struct neuron_nq *q)
{
	unsigned int bar = nd->dhal.dhal->layout->apb_bar;

	neuron_reg_write32(nd, bar, q->regs + NEURON_NQ_SIZE, 0);
	neuron_reg_write32(nd, bar, q->regs + NEURON_NQ_BASE_LO, 0);
	neuron_reg_write32(nd, bar, q->regs + NEURON_NQ_BASE_HI, 0);
}

/* Let writes the device had started into memory it no longer owns land. */
static void neuron_nq_drain(void)
{
	usleep_range(1000, 2000);
}

/**
 * neuron_nq_release() - halt and free queues
 * @nd: the device
 * @cores: bit per core whose queues go
 *
 * For core and device resets and the device's teardown.  Handles and
 * mappings processes still have keep the memory, which the device no
 * longer writes.
 */
void neuron_nq_release(struct neuron_device *nd, u32 cores)
{
	struct neuron_nq *q, *gone[32];
	unsigned long key;
	unsigned int n;
	bool full;

	do {
		n = 0;
		mutex_lock(&nd->cores->nq_lock);
		xa_for_each(&nd->cores->nqs, key, q) {
			if (!(cores & BIT(q->nc)))
				continue;
			if (nd->dhal.dhal)
				neuron_nq_halt(nd, q);
			xa_erase(&nd->cores->nqs, key);
			gone[n++] = q;
			if (n == ARRAY_SIZE(gone))
				break;
		}
		mutex_unlock(&nd->cores->nq_lock);
		full = n == ARRAY_SIZE(gone);
		if (n)
			neuron_nq_drain();
		while (n) {
			q = gone[--n];
			neuron_mem_put(q->mc);
			put_pid(q->owner);
			kfree(q);
		}
	} while (full);
}

/*
 * Check a request and work out its key, core and slot registers.
 * Return: 0, -EINVAL or -EOPNOTSUPP.
 */
static int neuron_nq_locate(struct neuron_device *nd, const struct neuron_nq_req *r,
			    unsigned long *key, unsigned int *nc, u64 *regs)
{
	const struct neuron_dhal *dhal = nd->dhal.dhal;
	const struct neuron_dhal_nq *g = dhal->nq;
	const struct neuron_dhal_layout *l = dhal->layout;
	unsigned int engine, ts;

	if (r->dev_type >= NQ_DEVICE_TYPE_MAX || r->nq_type >= NQ_TYPE_MAX ||
	    r->engine >= NEURON_NQ_ENGINES || !r->size || !is_power_of_2(r->size))
		return -EINVAL;
	if (!g)
		return -EOPNOTSUPP;
	engine = array_index_nospec(r->engine, NEURON_NQ_ENGINES);

	if (r->dev_type == NQ_DEVICE_TYPE_NEURON_CORE) {
		int c = neuron_nc_arg(nd, r->dev_id);

		if (c < 0)
			return c;
		*nc = c;
		if (r->nq_type == NQ_TYPE_TRACE_DMA) {
			/* The engine's own block, slot 0. */
			if (!g->trace_base)
				return -EOPNOTSUPP;
			*regs = g->trace_base[c] + engine * g->trace_stride + NEURON_NQ_SLOT(0);
		} else {
			*regs = g->nc_base[c] + NEURON_NQ_SLOT(engine);
		}
	} else {
		if (r->dev_id >= l->ts_count || l->ts_count < l->nc_count)
			return -EINVAL;
		ts = array_index_nospec(r->dev_id, l->ts_count);
		*nc = ts / (l->ts_count / l->nc_count);
		*regs = g->ts_base + (ts / g->ts_per_group) * g->ts_group_stride +
			(ts % g->ts_per_group) * g->ts_stride + NEURON_NQ_SLOT(engine);
	}
	*key = ((r->dev_type * 16UL + r->dev_id) * NQ_TYPE_MAX + r->nq_type) *
	       NEURON_NQ_ENGINES + engine;
	return 0;
}

/*
 * Set up (or find) a queue for the caller, with a handle for it in *@handle
 * unless @handle is NULL; on success *@out is the queue's chunk with a
 * reference for the caller.  The handle is made before the queue changes,
 * so a call that fails leaves the queues as they were.
 */
static int neuron_nq_get(struct neuron_file *nf, const struct neuron_nq_req *r,
			 struct neuron_mem_chunk **out, u64 *handle)
{
	struct neuron_device *nd = nf->nd;
	struct pid *me = task_tgid(current);
	struct neuron_mem_chunk *mc = NULL, *old = NULL;
	struct neuron_mem_request mreq = {};
	struct neuron_nq *q, *fresh = NULL;
	struct pid *old_owner = NULL;
	unsigned long key;
	unsigned int nc;
	u64 regs;
	int ret;

	ret = neuron_nq_locate(nd, r, &key, &nc, &regs);
	if (ret)
		return ret;
	if (!neuron_nc_holds(nd, me, nc))
		return -EACCES;

	mutex_lock(&nd->cores->nq_lock);
	q = xa_load(&nd->cores->nqs, key);
	if (q && !r->force) {
		/* Size and place of an existing queue are kept, as the reference does. */
		mc = q->mc;
		kref_get(&mc->ref);
		if (handle) {
			ret = neuron_mem_handle_give(nd, mc, handle);
			if (ret)
				goto out_put;
		}
		goto own;
	}

	mreq.size = r->size;
	mreq.host = r->host;
	mreq.align = r->host ? 0 : r->size;
	mreq.hbm = r->hbm;
	mreq.region = r->region;
	mreq.nc_id = nc;
	mreq.mem_type = r->host ? NEURON_MEMALLOC_TYPE_NOTIFICATION_HOST :
				  NEURON_MEMALLOC_TYPE_NOTIFICATION_DEVICE;
	mreq.driver = true;
	ret = neuron_mem_alloc(nd, &mreq, &mc);
	if (ret)
		goto out_unlock;
	if (!q) {
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
		if (!fresh) {
			ret = -ENOMEM;
			goto out_put;
		}
		fresh->regs = regs;
		fresh->nc = nc;
		ret = xa_insert(&nd->cores->nqs, key, fresh, GFP_KERNEL);
		if (ret)
			goto out_fresh;
		q = fresh;
	}
	if (handle) {
		ret = neuron_mem_handle_give(nd, mc, handle);
		if (ret)
			goto out_erase;
	}
	/* The device moves to the new memory before the old one goes. */
	neuron_nq_program(nd, q, mc->pa, r->size);
	old = q->mc;
	q->mc = mc;
	kref_get(&mc->ref);
own:
	old_owner = q->owner;
	q->owner = get_pid(me);
	mutex_unlock(&nd->cores->nq_lock);
	if (old) {
		neuron_nq_drain();
		neuron_mem_put(old);
	}
	put_pid(old_owner);
	*out = mc;
	return 0;

out_erase:
	if (fresh)
		xa_erase(&nd->cores->nqs, key);
out_fresh:
	kfree(fresh);
out_put:
	neuron_mem_put(mc);
out_unlock:
	mutex_unlock(&nd->cores->nq_lock);
	return ret;
}

/*
 * The common path of the init commands: the queue, its handle for the
 * caller (@handle NULL: none) and its mmap offset (-1 for device memory).
 */
static int neuron_nq_init(struct neuron_file *nf, const struct neuron_nq_req *r,
			  u64 *mmap_offset, u64 *handle)
{
	struct neuron_mem_chunk *mc;
	int ret;

	ret = neuron_nq_get(nf, r, &mc, handle);
	if (ret)
		return ret;
	*mmap_offset = mc->location == NEURON_MEM_HOST ? mc->pa : ~0ULL;
	neuron_mem_put(mc);
	return 0;
}

long neuron_ioctl_nq_init_v1(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_notifications_init_v1 a;
	struct neuron_nq_req r = {};
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	r.dev_type = NQ_DEVICE_TYPE_NEURON_CORE;
	r.dev_id = a.nc_id;
	r.nq_type = a.nq_type;
	r.engine = a.engine_index;
	r.size = a.size;
	r.host = true;
	ret = neuron_nq_init(nf, &r, &a.mmap_offset, NULL);
	if (ret)
		return ret;
	return put_user(a.mmap_offset,
			&((struct neuron_ioctl_notifications_init_v1 __user *)arg)->mmap_offset);
}

/* The fields 53 and 54 share, in the same places. */
#define NEURON_NQ_REQ_V2(a) ({						\
	const typeof(a) *a_ = &(a);						\
	(struct neuron_nq_req) {						\
		.dev_type = a_->nq_dev_type, .dev_id = a_->nq_dev_id,		\
		.nq_type = a_->nq_type, .engine = a_->engine_index,		\
		.size = a_->size, .host = a_->on_host_memory,			\
		.hbm = a_->dram_channel, .region = a_->dram_region }; })

long neuron_ioctl_nq_init_v2(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_notifications_init_v2 a;
	struct neuron_nq_req r;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	r = NEURON_NQ_REQ_V2(a);
	ret = neuron_nq_init(nf, &r, &a.mmap_offset, &a.mem_handle);
	if (ret)
		return ret;
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

long neuron_ioctl_nq_init_realloc(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_notifications_init_with_realloc_v2 a;
	struct neuron_nq_req r;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.force_alloc_mem > 1)
		return -EINVAL;
	r = NEURON_NQ_REQ_V2(a);
	r.force = a.force_alloc_mem;
	ret = neuron_nq_init(nf, &r, &a.mmap_offset, &a.mem_handle);
	if (ret)
		return ret;
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_nq_destroy() - NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1
 * @nf: the file
 * @arg: struct neuron_ioctl_notifications_destroy
 *
 * Halts and frees the host queue whose mmap offset is given, when the
 * caller owns it.
 *
 * Return: 0; -EINVAL when no queue has that offset; -EPERM for a queue
 * another process owns; -EFAULT.
 */
long neuron_ioctl_nq_destroy(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_notifications_destroy a;
	struct neuron_device *nd = nf->nd;
	struct neuron_nq *q, *found = NULL;
	unsigned long key;
	long ret = -EINVAL;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	mutex_lock(&nd->cores->nq_lock);
	xa_for_each(&nd->cores->nqs, key, q) {
		if (q->mc->location != NEURON_MEM_HOST || q->mc->pa != a.mmap_offset)
			continue;
		if (q->owner != task_tgid(current)) {
			ret = -EPERM;
			break;
		}
		neuron_nq_halt(nd, q);
		xa_erase(&nd->cores->nqs, key);
		found = q;
		ret = 0;
		break;
	}
	mutex_unlock(&nd->cores->nq_lock);
	if (found) {
		neuron_nq_drain();
		neuron_mem_put(found->mc);
		put_pid(found->owner);
		kfree(found);
	}
	return ret;
}

/**
 * neuron_nq_mmap_get() - a host queue the caller owns, for mmap
 * @nf: the file being mapped
 * @pa: device-view address of the mapping's first byte
 *
 * Return: the queue's chunk with a reference, or NULL.
 */
struct neuron_mem_chunk *neuron_nq_mmap_get(struct neuron_file *nf, u64 pa)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_chunk *mc = NULL;
	struct neuron_nq *q;
	unsigned long key;

	mutex_lock(&nd->cores->nq_lock);
	xa_for_each(&nd->cores->nqs, key, q) {
		if (q->mc->location != NEURON_MEM_HOST || pa < q->mc->pa ||
		    pa - q->mc->pa >= q->mc->size)
			continue;
		if (q->owner == task_tgid(current)) {
			mc = q->mc;
			kref_get(&mc->ref);
		}
		break;
	}
	mutex_unlock(&nd->cores->nq_lock);
	return mc;
}
