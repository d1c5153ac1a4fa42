// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy transfers of MEM_BUF_ZEROCOPY64_BATCHES, and their asynchronous
 * form: a call with a non-zero sequence_num is checked, queued and answered
 * at once; the transfer runs later, and its end is reported by an entry in
 * a completion queue that user space maps (GET_ASYNC_H2T_DMA_COMPL_QUEUES).
 *
 * Each file has its own completion queues, one per host-engine queue it
 * names, made on first use: a host chunk of the calling process holding a
 * struct neuron_h2d_dma_compl_queue of NEURON_ZC_CQ_ENTRIES entries.  The
 * driver writes entries and tail; user space consumes them and advances
 * head.  Nothing user space writes there is trusted: the driver keeps its
 * own tail, and reads head only to refuse a transfer whose entry could
 * find the queue full (-EBUSY).  So the driver never waits for user space.
 *
 * A file's transfers run one at a time, in the order they were queued,
 * from a work item that takes on the submitting process's address space.
 * A synchronous zero-copy call on the file first waits for them, so a
 * file's zero-copy transfers take effect in the order they were asked for.
 * When the file goes, queued transfers are dropped and the running one
 * ends at its next 4 MiB piece.  A transfer whose process has exited ends
 * the same way: the work item holds the address space only while a piece
 * moves.  See Documentation/dma.rst.
 */

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/pagemap.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dma.h"

/* Bytes an asynchronous transfer moves between two looks at whether to stop. */
#define NEURON_ZC_PIECE		SZ_4M

/**
 * struct neuron_zc_req - an asynchronous transfer, queued
 * @node: in &neuron_zc_file.reqs
 * @cq: the completion queue its entry goes to
 * @mm: the submitting process's address space (mmgrab(): the structure,
 *	not the memory)
 * @seq: sequence_num of the call
 * @ctx: context of the call's last batch, echoed in the entry
 * @to_dev: into the chunks, else out of them
 * @nb: batches in @b
 * @nops: operations in @ops
 * @b: the batches, with their chunk references
 * @ops: their operations
 */
struct neuron_zc_req {
	struct list_head node;
	struct neuron_zc_cq *cq;
	struct mm_struct *mm;
	u64 seq;
	u64 ctx;
	bool to_dev;
	u32 nb;
	u32 nops;
	struct neuron_zc_batch *b;
	nrt_tensor_batch_op_t *ops;
};

/**
 * neuron_mem_buf_copy() - copy between a user buffer and a chunk
 * @nd: the device
 * @mc: the chunk (a reference the caller holds)
 * @buf: user buffer, in the current address space
 * @size: bytes; the caller checked the chunk's range
 * @offset: byte offset in the chunk
 * @to_chunk: from @buf into the chunk, else the other way
 *
 * A host chunk is copied by the CPU, a device chunk by the engine.  A bad
 * buffer fails before the chunk changes (barring a racing munmap by the
 * caller itself, or no memory left for the buffer's pages).
 *
 * Return: 0, -EFAULT, or as neuron_dma_user_copy().
 */
int neuron_mem_buf_copy(struct neuron_device *nd, struct neuron_mem_chunk *mc,
			void __user *buf, u64 size, u64 offset, bool to_chunk)
{
	if (!size)
		return 0;
	if (mc->location != NEURON_MEM_HOST)
		return neuron_dma_user_copy(nd, mc, offset, buf, size, to_chunk);
	if (to_chunk) {
		int ret = neuron_dma_user_readable(buf, size);

		if (ret)
			return ret;
		return copy_from_user(mc->va + offset, buf, size) ? -EFAULT : 0;
	}
	return copy_to_user(buf, mc->va + offset, size) ? -EFAULT : 0;
}

/*
 * One piece of an asynchronous transfer, in the address space @mm, if it
 * still exists: the transfer holds it (mmget) only while a piece moves, so
 * a process that exits takes its memory, and its mappings of the device,
 * down at once, and the transfer ends at its next piece.
 */
static int neuron_zc_piece(struct neuron_device *nd, struct neuron_mem_chunk *mc,
			   void __user *buf, u64 size, u64 offset, bool to_chunk,
			   struct mm_struct *mm)
{
	int ret;

	if (!mmget_not_zero(mm))
		return -ECANCELED;
	kthread_use_mm(mm);
	ret = neuron_mem_buf_copy(nd, mc, buf, size, offset, to_chunk);
	kthread_unuse_mm(mm);
	/* The last reference tears the address space down: not under our locks. */
	mmput_async(mm);
	return ret;
}

/**
 * neuron_zc_batches_run() - run the operations of batches, in order
 * @nd: the device
 * @b: the batches, checked by the caller
 * @n: how many
 * @to_dev: into the chunks, else out of them
 * @stop: NULL for a synchronous call, in the caller's address space; else
 *	a flag that ends the run early, from a kernel thread
 * @mm: with @stop, the address space of the buffers (mmgrab())
 *
 * Return: 0; -ECANCELED when @stop ended it or @mm is gone; -ENODEV or
 * -EAGAIN when the device is being removed or the module unloading
 * (neuron_dma_stopped()); the first copy error, after which nothing more
 * moves.
 */
int neuron_zc_batches_run(struct neuron_device *nd, const struct neuron_zc_batch *b, u32 n,
			  bool to_dev, const bool *stop, struct mm_struct *mm)
{
	u64 done, len;
	int ret = 0;
	u32 i, k;

	for (i = 0; !ret && i < n; i++) {
		for (k = 0; !ret && k < b[i].num_ops; k++) {
			const nrt_tensor_batch_op_t *op = &b[i].ops[k];
			u8 __user *ubuf = neuron_user_ptr(op->buffer);
			u64 off = b[i].base + op->offset;

			/* Host chunks are copied by the CPU: look between operations too. */
			ret = neuron_dma_stopped(neuron_dma_of(nd));
			if (ret)
				break;
			if (!stop) {
				ret = neuron_mem_buf_copy(nd, b[i].mc, ubuf, op->size, off, to_dev);
				continue;
			}
			for (done = 0; !ret && done < op->size; done += len) {
				if (READ_ONCE(*stop)) {
					ret = -ECANCELED;
					break;
				}
				len = min_t(u64, op->size - done, NEURON_ZC_PIECE);
				ret = neuron_zc_piece(nd, b[i].mc, ubuf + done, len, off + done,
						      to_dev, mm);
			}
		}
	}
	return ret;
}

static void neuron_zc_req_free(struct neuron_zc_req *r)
{
	u32 i;

	for (i = 0; i < r->nb; i++)
		neuron_mem_put(r->b[i].mc);
	kvfree(r->b);
	kvfree(r->ops);
	mmdrop(r->mm);
	kfree(r);
}

/* Append an entry; called with &neuron_zc_file.lock held. */
static void neuron_zc_post(struct neuron_zc_cq *cq, u64 seq, s64 ret, u64 ctx)
{
	neuron_h2d_dma_compl_queue_entry_t *e;

	e = &cq->ring->entries[cq->tail & (NEURON_ZC_CQ_ENTRIES - 1)];
	WRITE_ONCE(e->sequence_num, seq);
	WRITE_ONCE(e->compl_ret, ret);
	WRITE_ONCE(e->context, (void *)(uintptr_t)ctx);
	cq->tail++;
	/* The entry is visible before the tail that announces it. */
	smp_store_release(&cq->ring->tail, cq->tail);
}

/*
 * Run a transfer as an ioctl handler runs: holding the usage lock for
 * read, so removal waits for it to end.  But never wait for that lock: a
 * synchronous zero-copy call waits for this work while it holds the lock
 * for read, and a removal waiting for it to write would block a second
 * reader.  Removal marks the device gone before it waits.
 */
static int neuron_zc_run(struct neuron_zc_file *zf, struct neuron_zc_req *r)
{
	struct neuron_device *nd = zf->nd;
	int ret = -ENODEV;

	while (!neuron_device_enter_try(nd)) {
		if (neuron_device_state(nd) == NEURON_STATE_GONE)
			return ret;
		usleep_range(500, 1000);
	}
	ret = neuron_zc_batches_run(nd, r->b, r->nb, r->to_dev, &zf->stop, r->mm);
	neuron_device_leave(nd);
	return ret;
}

static void neuron_zc_work(struct work_struct *work)
{
	struct neuron_zc_file *zf = container_of(work, struct neuron_zc_file, work);
	struct neuron_dma *dma = neuron_dma_of(zf->nd);
	struct neuron_zc_req *r;
	int ret;

	for (;;) {
		mutex_lock(&zf->lock);
		r = list_first_entry_or_null(&zf->reqs, struct neuron_zc_req, node);
		if (r)
			list_del(&r->node);
		mutex_unlock(&zf->lock);
		if (!r)
			return;
		ret = neuron_zc_run(zf, r);
		atomic64_inc(ret ? &dma->zc_failed : &dma->zc_done);
		mutex_lock(&zf->lock);
		neuron_zc_post(r->cq, r->seq, ret, r->ctx);
		r->cq->pending--;
		zf->ops -= r->nops;
		mutex_unlock(&zf->lock);
		neuron_zc_req_free(r);
	}
}

/**
 * neuron_zc_init() - set up a file's asynchronous zero-copy state
 * @zf: the state
 * @nd: the file's device
 */
void neuron_zc_init(struct neuron_zc_file *zf, struct neuron_device *nd)
{
	zf->nd = nd;
	mutex_init(&zf->lock);
	INIT_LIST_HEAD(&zf->reqs);
	INIT_WORK(&zf->work, neuron_zc_work);
}

/**
 * neuron_zc_drain() - wait until the file's queued transfers have ended
 * @zf: the file's state
 */
void neuron_zc_drain(struct neuron_zc_file *zf)
{
	flush_work(&zf->work);
}

/**
 * neuron_zc_release() - the file goes: end its transfers, free its queues
 * @zf: the file's state
 *
 * Queued transfers are dropped without an entry; the running one ends at
 * its next piece.  Mappings of a queue keep its memory until unmapped.
 */
void neuron_zc_release(struct neuron_zc_file *zf)
{
	struct neuron_zc_req *r, *next;
	unsigned int e, q;
	LIST_HEAD(drop);

	WRITE_ONCE(zf->stop, true);
	mutex_lock(&zf->lock);
	list_splice_init(&zf->reqs, &drop);
	mutex_unlock(&zf->lock);
	list_for_each_entry_safe(r, next, &drop, node) {
		atomic64_inc(&neuron_dma_of(zf->nd)->zc_dropped);
		neuron_zc_req_free(r);
	}
	cancel_work_sync(&zf->work);
	for (e = 0; e < NEURON_DMA_MAX_CHANS; e++) {
		for (q = 0; q < NEURON_UDMA_MAX_QUEUES; q++) {
			if (!zf->cq[e][q])
				continue;
			neuron_mem_put(zf->cq[e][q]->mc);
			kfree(zf->cq[e][q]);
			zf->cq[e][q] = NULL;
		}
	}
	mutex_destroy(&zf->lock);
}

/*
 * The file's completion queue for queue @q of host engine @eng, made on
 * first use, in memory of the calling process; called with zf->lock held.
 * A queue another process made is not the caller's: -EACCES.
 */
static struct neuron_zc_cq *neuron_zc_cq_get_locked(struct neuron_zc_file *zf, u32 nc,
						    unsigned int eng, unsigned int q)
{
	const struct neuron_mem_request req = {
		.size = NEURON_ZC_CQ_BYTES,
		.host = true,
		.nc_id = nc,
		.mem_type = NEURON_MEMALLOC_TYPE_NCDEV_HOST,
	};
	struct neuron_zc_cq *cq = zf->cq[eng][q];
	struct neuron_mem_chunk *mc;
	int ret;

	if (cq)
		return cq->mc->owner == task_tgid(current) ? cq : ERR_PTR(-EACCES);
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	ret = neuron_mem_alloc(zf->nd, &req, &mc);
	if (ret) {
		kfree(cq);
		return ERR_PTR(ret);
	}
	cq->mc = mc;
	cq->ring = mc->va;
	/* The memory comes zeroed: head and tail are 0. */
	WRITE_ONCE(cq->ring->capacity, NEURON_ZC_CQ_ENTRIES);
	zf->cq[eng][q] = cq;
	return cq;
}

/**
 * neuron_zc_queues() - GET_ASYNC_H2T_DMA_COMPL_QUEUES: locate completion queues
 * @zf: the file's state
 * @nc: NeuronCore, checked by the caller
 * @bmap: queue ids (bits 0-15): @nc's default queue, or copy queues the
 *	caller claimed for @nc
 * @out: the reply, zeroed by the caller; filled for each queue in @bmap
 *
 * Queues not made yet are made.
 *
 * Return: 0; -EINVAL when @bmap names a queue the caller may not use for
 * @nc, before anything is made; -EACCES for a queue another process made
 * through this file; -ENOMEM.
 */
int neuron_zc_queues(struct neuron_zc_file *zf, u32 nc, u32 bmap,
		     struct neuron_ioctl_get_async_h2t_dma_compl_queues *out)
{
	unsigned int eng = 0, q, qid;
	struct neuron_zc_cq *cq;
	unsigned long bits = bmap;
	int ret = 0;

	/* All on @nc's host engine, each queue its own id: checked, then made. */
	for_each_set_bit(qid, &bits, NEURON_UDMA_MAX_QUEUES)
		if (neuron_dma_h2t_queue(zf->nd, nc, qid, &eng, &q))
			return -EINVAL;
	mutex_lock(&zf->lock);
	for_each_set_bit(qid, &bits, NEURON_UDMA_MAX_QUEUES) {
		/* A bit of user space's bitmap. */
		q = array_index_nospec(qid, NEURON_UDMA_MAX_QUEUES);
		cq = neuron_zc_cq_get_locked(zf, nc, eng, q);
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			break;
		}
		out->compl_queue_info[q].mmap_offset = cq->mc->pa;
		out->compl_queue_info[q].mmap_size = NEURON_ZC_CQ_BYTES;
	}
	mutex_unlock(&zf->lock);
	return ret;
}

/**
 * neuron_zc_submit() - queue an asynchronous zero-copy transfer
 * @zf: the file's state
 * @qid: h2t_qid of the call; the queue is the one of the first batch's core
 * @b: the batches, checked, with their chunk references
 * @nb: how many
 * @ops: their operations, checked
 * @nops: how many
 * @to_dev: into the chunks, else out of them
 * @seq: sequence_num of the call, non-zero
 * @ctx: echoed in the completion entry
 *
 * On success the transfer owns @b (and its references) and @ops; on
 * failure they stay the caller's.
 *
 * Return: 0; -ENOENT for a queue the caller may not use; -EBUSY when the
 * completion queue could fill up (entries not consumed plus transfers
 * queued reach its capacity, or head is not one user space could have
 * written), or the file's queued transfers hold NEURON_ZC_MAX_OPS
 * operations; -EACCES, -ENOMEM as neuron_zc_queues().
 */
int neuron_zc_submit(struct neuron_zc_file *zf, s32 qid, struct neuron_zc_batch *b, u32 nb,
		     nrt_tensor_batch_op_t *ops, u32 nops, bool to_dev, u64 seq, u64 ctx)
{
	struct neuron_zc_req *r;
	struct neuron_zc_cq *cq;
	unsigned int eng, q;
	u32 used;
	int ret;

	ret = neuron_dma_h2t_queue(zf->nd, b[0].mc->nc_id, qid, &eng, &q);
	if (ret)
		return ret;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	mutex_lock(&zf->lock);
	cq = neuron_zc_cq_get_locked(zf, b[0].mc->nc_id, eng, q);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_unlock;
	}
	ret = -EBUSY;
	used = cq->tail - READ_ONCE(cq->ring->head);
	if (used > NEURON_ZC_CQ_ENTRIES || used + cq->pending >= NEURON_ZC_CQ_ENTRIES ||
	    zf->ops + nops > NEURON_ZC_MAX_OPS)
		goto err_unlock;
	r->cq = cq;
	r->seq = seq;
	r->ctx = ctx;
	r->to_dev = to_dev;
	r->nb = nb;
	r->b = b;
	r->nops = nops;
	r->ops = ops;
	mmgrab(current->mm);
	r->mm = current->mm;
	list_add_tail(&r->node, &zf->reqs);
	cq->pending++;
	zf->ops += nops;
	atomic64_inc(&neuron_dma_of(zf->nd)->zc_queued);
	mutex_unlock(&zf->lock);
	queue_work(system_unbound_wq, &zf->work);
	return 0;

err_unlock:
	mutex_unlock(&zf->lock);
	kfree(r);
	return ret;
}
