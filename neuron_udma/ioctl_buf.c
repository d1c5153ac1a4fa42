// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl handlers of the DMA plane that move user buffers to and from
 * chunks: MEM_BUF_COPY(64), the zero-copy commands and PROGRAM_ENGINE*.
 * Every handle is checked against the calling process (the core's
 * neuron_mem_get()); every offset and size pair for overflow.
 */

#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dma.h"

/*
 * MEM_BUF_COPY and _64: a CPU copy between user memory and a host chunk,
 * a DMA transfer for a device chunk (neuron_mem_buf_copy(), dma_zc.c).
 */
static long neuron_ioctl_buf_copy(struct neuron_file *nf, u64 handle, void __user *buf,
				  u64 size, u64 offset, bool to_chunk, s32 h2t_qid)
{
	struct neuron_mem_chunk *mc;
	long ret;

	mc = neuron_mem_get(nf->nd, handle);
	if (!mc)
		return -EINVAL;
	ret = -EINVAL;
	if (!neuron_mem_range_ok(mc, offset, size))
		goto out;
	ret = neuron_dma_h2t_check(nf->nd, mc->nc_id, h2t_qid);
	if (!ret)
		ret = neuron_mem_buf_copy(nf->nd, mc, buf, size, offset, to_chunk);
out:
	neuron_mem_put(mc);
	return ret;
}

/**
 * neuron_ioctl_mem_buf_copy() - NEURON_IOCTL_MEM_BUF_COPY
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_buf_copy
 *
 * Return: 0; -EFAULT; -EINVAL for a handle not the caller's or a range
 * outside the chunk; for device memory, the transfer errors of
 * neuron_ioctl_mem_copy().
 */
long neuron_ioctl_mem_buf_copy(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_buf_copy a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_buf_copy(nf, a.mem_handle, neuron_user_ptr(a.buffer), a.size,
				     a.offset, a.copy_to_mem_handle, NEURON_DMA_H2T_DEFAULT_QID);
}

/**
 * neuron_ioctl_mem_buf_copy64() - NEURON_IOCTL_MEM_BUF_COPY64
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_buf_copy64
 *
 * Return: as neuron_ioctl_mem_buf_copy().
 */
long neuron_ioctl_mem_buf_copy64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_buf_copy64 a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_buf_copy(nf, a.mem_handle, neuron_user_ptr(a.buffer), a.size,
				     a.offset, a.copy_to_mem_handle, NEURON_DMA_H2T_DEFAULT_QID);
}

/* The synchronous zero-copy transfer of either form of MEM_BUF_ZEROCOPY64. */
static long neuron_zerocopy_sync(struct neuron_file *nf, u64 handle, const void *buffer, u64 size,
				 u64 offset, u32 to_dev, s32 qid)
{
	/* After the file's asynchronous zero-copy transfers. */
	neuron_dma_file_drain(nf);
	return neuron_ioctl_buf_copy(nf, handle, neuron_user_ptr(buffer), size, offset, to_dev,
				     qid);
}

/*
 * The asynchronous form: one batch of one operation, checked as
 * MEM_BUF_ZEROCOPY64_BATCHES checks its own, then queued (dma_zc.c).
 */
static long neuron_zerocopy_async(struct neuron_file *nf,
				  const struct neuron_ioctl_mem_buf_copy64zc *a)
{
	struct neuron_dma_file *df;
	struct neuron_zc_batch *b;
	nrt_tensor_batch_op_t *op;
	long ret;

	if (!a->size)
		return -EINVAL;
	if (!a->buffer || !access_ok(neuron_user_ptr(a->buffer), a->size))
		return -EFAULT;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	op = kzalloc(sizeof(*op), GFP_KERNEL);
	ret = -ENOMEM;
	if (!b || !op)
		goto out;
	ret = -EINVAL;
	b->mc = neuron_mem_get(nf->nd, a->mem_handle);
	if (!b->mc || !neuron_mem_range_ok(b->mc, a->offset, a->size))
		goto out;
	ret = -ENOENT;
	if (neuron_dma_h2t_check(nf->nd, b->mc->nc_id, a->h2t_qid))
		goto out;
	op->offset = a->offset;
	op->size = a->size;
	op->buffer = a->buffer;
	b->ops = op;
	b->num_ops = 1;
	df = neuron_dma_file(nf);
	ret = df ? neuron_zc_submit(&df->zc, a->h2t_qid, b, 1, op, 1, a->is_copy_to_device,
				    a->sequence_num, (uintptr_t)a->context) : -ENOMEM;
	if (!ret)
		return 0;	/* the transfer owns @b, its reference and @op */
out:
	if (b && b->mc)
		neuron_mem_put(b->mc);
	kfree(op);
	kfree(b);
	return ret;
}

/**
 * neuron_ioctl_mem_buf_zerocopy64() - NEURON_IOCTL_MEM_BUF_ZEROCOPY64, the
 *	64-byte form (driver 2.29)
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_buf_copy64zc
 *
 * MEM_BUF_COPY64 already moves large buffers without a CPU copy (the
 * user's pages are pinned and the engine copies them), so this is the
 * same transfer, on the queue h2t_qid names (dma_h2t.c).  bar4_wr_threshold
 * is a hint and is not used.  With sequence_num 0 the call returns when
 * the transfer is done; any other sequence_num queues it, as
 * MEM_BUF_ZEROCOPY64_BATCHES does, and its end is reported in the
 * completion queue of h2t_qid on the chunk's core with sequence_num and
 * context.
 *
 * Return: as neuron_ioctl_mem_buf_copy(); -ENOENT for an h2t_qid that is
 * neither the default queue nor a copy queue the caller claimed for the
 * chunk's core; for the asynchronous form, -EINVAL for no bytes, a handle
 * not the caller's or a range outside the chunk, -EFAULT for a bad
 * buffer, and the errors of neuron_zc_submit().
 */
long neuron_ioctl_mem_buf_zerocopy64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_buf_copy64zc a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.sequence_num)
		return neuron_zerocopy_async(nf, &a);
	return neuron_zerocopy_sync(nf, a.mem_handle, a.buffer, a.size, a.offset,
				    a.is_copy_to_device, a.h2t_qid);
}

/**
 * neuron_ioctl_mem_buf_zerocopy64_48() - NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_buf_copy64zc_deprecated
 *
 * The 48-byte form runtimes before 2.33 send: the synchronous transfer of
 * the 64-byte form, kept so that those runtimes run on this driver too.
 *
 * Return: as neuron_ioctl_mem_buf_zerocopy64() with sequence_num 0.
 */
long neuron_ioctl_mem_buf_zerocopy64_48(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_buf_copy64zc_deprecated a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_zerocopy_sync(nf, a.mem_handle, a.buffer, a.size, a.offset,
				    a.is_copy_to_device, a.h2t_qid);
}

/*
 * PROGRAM_ENGINE*: @size bytes from user @buf + @offset to device address
 * @dst + @offset.  Only destinations inside one of the caller's device
 * chunks are written; the engine windows the reference also allowed are not
 * described by the DHALs (Documentation/dma.rst).
 */
static long neuron_program(struct neuron_file *nf, u64 dst, const void *buf, u64 size,
			   u64 offset)
{
	struct neuron_mem_chunk *mc;
	u64 pa, end, ubuf;
	long ret;

	if (check_add_overflow(dst, offset, &pa) || check_add_overflow(pa, size, &end))
		return -EINVAL;
	if (check_add_overflow((u64)(uintptr_t)buf, offset, &ubuf))
		return -EFAULT;
	if (!size)
		return 0;
	mc = neuron_mem_get_by_pa(nf->nd, pa);
	if (!mc)
		return -EOPNOTSUPP;
	ret = -EINVAL;
	if (mc->location != NEURON_MEM_HOST && neuron_mem_range_ok(mc, pa - mc->pa, size))
		ret = neuron_mem_buf_copy(nf->nd, mc, u64_to_user_ptr(ubuf), size, pa - mc->pa,
					  true);
	neuron_mem_put(mc);
	return ret;
}

/**
 * neuron_ioctl_program_engine() - NEURON_IOCTL_PROGRAM_ENGINE
 * @nf: the file
 * @arg: struct neuron_ioctl_program_engine
 *
 * Return: 0; -EFAULT; -EINVAL for an overflowing address, a host chunk or a
 * range past the end of the chunk; -EOPNOTSUPP for a destination outside
 * the caller's chunks; transfer errors.
 */
long neuron_ioctl_program_engine(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_program_engine a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_program(nf, a.dst, a.buffer, a.size, a.offset);
}

/**
 * neuron_ioctl_program_engine_nc() - NEURON_IOCTL_PROGRAM_ENGINE_NC
 * @nf: the file
 * @arg: struct neuron_ioctl_program_engine_nc
 *
 * Any free driver channel moves the bytes; nc_id is checked.
 *
 * Return: as neuron_ioctl_program_engine(); -EINVAL for a bad core.
 */
long neuron_ioctl_program_engine_nc(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_program_engine_nc a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.nc_id >= neuron_device_dhal(nf->nd)->layout->nc_count)
		return -EINVAL;
	return neuron_program(nf, a.dst, a.buffer, a.size, a.offset);
}

/**
 * neuron_ioctl_program_engine_nc64() - NEURON_IOCTL_PROGRAM_ENGINE_NC64
 * @nf: the file
 * @arg: struct neuron_ioctl_program_engine_nc64
 *
 * Return: as neuron_ioctl_program_engine_nc().
 */
long neuron_ioctl_program_engine_nc64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_program_engine_nc64 a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.nc_id >= neuron_device_dhal(nf->nd)->layout->nc_count)
		return -EINVAL;
	return neuron_program(nf, a.dst, a.buffer, a.size, a.offset);
}

/* Batches one MEM_BUF_ZEROCOPY64_BATCHES call is given at most. */
#define NEURON_ZC_MAX_BATCHES	4096

/*
 * Read the batches and their operations in and check them all: handles,
 * queue, ranges (with overflow) and buffers.  Fills @b (chunk references
 * taken even on failure, for the caller to drop), *@opsp (for the caller
 * to free), *@nops with the number of operations and *@ctx with the last
 * batch's context.
 */
static long neuron_zc_read(struct neuron_file *nf,
			   const struct neuron_ioctl_mem_buf_copy64zc_batches *a,
			   struct neuron_zc_batch *b, nrt_tensor_batch_op_t **opsp, u32 *nops,
			   u64 *ctx)
{
	neuron_memcpy_batch_t __user *ub = neuron_user_ptr(a->batches_ptr);
	nrt_tensor_batch_op_t *ops;
	neuron_memcpy_batch_t mb;
	u32 i, k, total = 0;
	u64 off;

	for (i = 0; i < a->num_batches; i++) {
		if (copy_from_user(&mb, &ub[i], sizeof(mb)))
			return -EFAULT;
		if (mb.flags)
			return -EOPNOTSUPP;
		if (!mb.num_ops || !mb.ops_ptr)
			return -EINVAL;
		if (check_add_overflow(total, mb.num_ops, &total) || total > NEURON_ZC_MAX_OPS)
			return -E2BIG;
		b[i].mc = neuron_mem_get(nf->nd, mb.mem_handle);
		if (!b[i].mc)
			return -EINVAL;
		b[i].base = mb.mem_handle_offset;
		b[i].uops = neuron_user_ptr(mb.ops_ptr);
		b[i].num_ops = mb.num_ops;
		*ctx = (uintptr_t)mb.context;
		if (neuron_dma_h2t_check(nf->nd, b[i].mc->nc_id, a->h2t_qid))
			return -ENOENT;
	}
	ops = kvmalloc_array(total, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	*opsp = ops;
	*nops = total;
	for (i = 0; i < a->num_batches; i++) {
		if (copy_from_user(ops, b[i].uops, array_size(b[i].num_ops, sizeof(*ops))))
			return -EFAULT;
		b[i].ops = ops;
		for (k = 0; k < b[i].num_ops; k++, ops++) {
			if (!ops->size || check_add_overflow(b[i].base, ops->offset, &off) ||
			    !neuron_mem_range_ok(b[i].mc, off, ops->size))
				return -EINVAL;
			if (!ops->buffer || !access_ok(neuron_user_ptr(ops->buffer), ops->size))
				return -EFAULT;
		}
	}
	return 0;
}

/**
 * neuron_ioctl_mem_buf_zerocopy64_batches() - NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_buf_copy64zc_batches
 *
 * Every operation of every batch copies op.size bytes between op.buffer
 * and the batch's chunk at mem_handle_offset + op.offset, in order, as
 * MEM_BUF_ZEROCOPY64 does.  Everything is read in and checked before the
 * first byte moves.
 *
 * With sequence_num 0 the call returns when the transfer is done.  Any
 * other sequence_num queues it and returns at once; its end is reported in
 * the completion queue of h2t_qid on the first batch's core (dma_zc.c):
 * an entry with the call's sequence_num, 0 or the transfer's -errno, and
 * the last batch's context.  Non-zero flags, of the call or of a batch,
 * are not defined and are refused.
 *
 * Return: 0; -EFAULT; -EINVAL for no batches, a batch without operations,
 * a handle not the caller's, an empty operation or a range outside the
 * chunk; -E2BIG past NEURON_ZC_MAX_BATCHES batches or NEURON_ZC_MAX_OPS
 * operations; -ENOENT for a queue as neuron_ioctl_mem_buf_zerocopy64();
 * -EOPNOTSUPP for non-zero flags; -ENOMEM; transfer errors; for the
 * asynchronous form, the errors of neuron_zc_submit().
 */
long neuron_ioctl_mem_buf_zerocopy64_batches(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_buf_copy64zc_batches a;
	nrt_tensor_batch_op_t *ops = NULL;
	struct neuron_zc_batch *b;
	u32 i, nops = 0;
	u64 ctx = 0;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags)
		return -EOPNOTSUPP;
	if (!a.num_batches || !a.batches_ptr)
		return -EINVAL;
	if (a.num_batches > NEURON_ZC_MAX_BATCHES)
		return -E2BIG;
	b = kvcalloc(a.num_batches, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = neuron_zc_read(nf, &a, b, &ops, &nops, &ctx);
	if (!ret && a.sequence_num) {
		struct neuron_dma_file *df = neuron_dma_file(nf);

		ret = df ? neuron_zc_submit(&df->zc, a.h2t_qid, b, a.num_batches, ops, nops,
					    a.is_copy_to_device, a.sequence_num, ctx) : -ENOMEM;
		if (!ret)
			return 0;
	} else if (!ret) {
		neuron_dma_file_drain(nf);
		ret = neuron_zc_batches_run(nf->nd, b, a.num_batches, a.is_copy_to_device,
					    NULL, NULL);
	}
	for (i = 0; i < a.num_batches; i++)
		neuron_mem_put(b[i].mc);
	kvfree(ops);
	kvfree(b);
	return ret;
}
