// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl handlers: memory allocation, lookup, information and CPU copies.
 *
 * Every handle is checked against the calling process (mem.c); every
 * offset and size pair is checked for overflow before it is compared with
 * the chunk; nothing is allocated when the handle cannot be returned.
 */

#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ioctl.h"
#include "mem.h"

/* Most entries DUMP_MEM_CHUNKS copies out in one call. */
#define NEURON_DUMP_MAX		BIT(20)

/*
 * Allocate and hand the handle to user space at @uhandle; the chunk is
 * freed again when that fails.
 */
static long neuron_ioctl_do_alloc(struct neuron_file *nf, const struct neuron_mem_request *req,
				  u64 __user *uhandle)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_chunk *mc;
	u64 handle;
	int ret;

	ret = neuron_mem_alloc(nd, req, &mc);
	if (ret)
		return ret;
	handle = mc->handle;
	neuron_mem_put(mc);
	if (put_user(handle, uhandle)) {
		neuron_mem_free_handle(nd, handle);
		return -EFAULT;
	}
	return 0;
}

/* The default category of an allocation that names none. */
#define NEURON_UNKNOWN_TYPE(host) \
	((host) ? NEURON_MEMALLOC_TYPE_UNKNOWN_HOST : NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE)

/* The request an allocation struct @a makes (every form shares these fields). */
#define NEURON_ALLOC_REQ(a, align_, type_) ({				\
	const typeof(a) *a_ = &(a);						\
	(struct neuron_mem_request) {						\
		.size = a_->size, .align = (align_), .host = a_->host_memory,	\
		.hbm = a_->dram_channel, .region = a_->dram_region,		\
		.nc_id = a_->nc_id, .mem_type = (type_) }; })

/**
 * neuron_ioctl_mem_alloc() - NEURON_IOCTL_MEM_ALLOC
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_alloc
 *
 * Return: 0, -EFAULT, or the allocation's error (neuron_mem_alloc()).
 */
long neuron_ioctl_mem_alloc(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_alloc a;
	struct neuron_mem_request req;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	req = NEURON_ALLOC_REQ(a, 0, NEURON_UNKNOWN_TYPE(a.host_memory));
	return neuron_ioctl_do_alloc(nf, &req, neuron_user_ptr(a.mem_handle));
}

/**
 * neuron_ioctl_mem_alloc_v2() - NEURON_IOCTL_MEM_ALLOC_V2
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_alloc_v2
 *
 * Return: as neuron_ioctl_mem_alloc().
 */
long neuron_ioctl_mem_alloc_v2(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_alloc_v2 a;
	struct neuron_mem_request req;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	req = NEURON_ALLOC_REQ(a, a.align, NEURON_UNKNOWN_TYPE(a.host_memory));
	return neuron_ioctl_do_alloc(nf, &req, neuron_user_ptr(a.mem_handle));
}

/**
 * neuron_ioctl_mem_alloc_v2mt() - NEURON_IOCTL_MEM_ALLOC_V2MT
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_alloc_v2_mem_type
 *
 * Return: as neuron_ioctl_mem_alloc().
 */
long neuron_ioctl_mem_alloc_v2mt(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type a;
	struct neuron_mem_request req;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	req = NEURON_ALLOC_REQ(a, a.align, a.mem_type);
	return neuron_ioctl_do_alloc(nf, &req, neuron_user_ptr(a.mem_handle));
}

/**
 * neuron_ioctl_mem_alloc_v2mt64() - NEURON_IOCTL_MEM_ALLOC_V2MT64
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_alloc_v2_mem_type64; @pad must be zero
 *
 * Return: as neuron_ioctl_mem_alloc().
 */
long neuron_ioctl_mem_alloc_v2mt64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type64 a;
	struct neuron_mem_request req;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.pad)
		return -EINVAL;
	req = NEURON_ALLOC_REQ(a, a.align, a.mem_type);
	return neuron_ioctl_do_alloc(nf, &req, neuron_user_ptr(a.mem_handle));
}

/**
 * neuron_ioctl_mem_free() - NEURON_IOCTL_MEM_FREE
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_free
 *
 * Return: 0, -EFAULT, or -EINVAL when the handle is not the caller's.
 */
long neuron_ioctl_mem_free(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_free a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_mem_free_handle(nf->nd, a.mem_handle);
}

/**
 * neuron_ioctl_mem_get_pa() - NEURON_IOCTL_MEM_GET_PA
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_get_pa
 *
 * Return: 0, -EFAULT, or -EINVAL for a handle not the caller's.
 */
long neuron_ioctl_mem_get_pa(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_get_pa a;
	struct neuron_mem_chunk *mc;
	u64 pa;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	mc = neuron_mem_get(nf->nd, a.mem_handle);
	if (!mc)
		return -EINVAL;
	pa = mc->pa;
	neuron_mem_put(mc);
	return put_user(pa, (u64 __user *)neuron_user_ptr(a.pa)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_mem_get_info() - NEURON_IOCTL_MEM_GET_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_get_info; @mmap_offset may be NULL
 *
 * The mmap offset of a chunk is its device-view address.
 *
 * Return: 0, -EFAULT, or -EINVAL for a handle not the caller's.
 */
long neuron_ioctl_mem_get_info(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_get_info a;
	struct neuron_mem_chunk *mc;
	u64 pa;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	mc = neuron_mem_get(nf->nd, a.mem_handle);
	if (!mc)
		return -EINVAL;
	pa = mc->pa;
	neuron_mem_put(mc);
	if (a.mmap_offset && put_user(pa, (u64 __user *)neuron_user_ptr(a.mmap_offset)))
		return -EFAULT;
	return put_user(pa, (u64 __user *)neuron_user_ptr(a.pa)) ? -EFAULT : 0;
}

/* Version NEURON_IOCTL_MEM_GET_EXTENDED_INFO reports. */
#define NEURON_MEM_EXTENDED_INFO_VERSION	1

/**
 * neuron_ioctl_mem_get_extended_info() - NEURON_IOCTL_MEM_GET_EXTENDED_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_get_extended_info, read and written
 *
 * Return: 0, -EFAULT, or -EINVAL for a handle not the caller's.
 */
long neuron_ioctl_mem_get_extended_info(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_get_extended_info a;
	struct neuron_mem_chunk *mc;
	u64 handle;

	if (get_user(handle, (u64 __user *)arg))
		return -EFAULT;
	mc = neuron_mem_get(nf->nd, handle);
	if (!mc)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.mem_handle = handle;
	a.version = NEURON_MEM_EXTENDED_INFO_VERSION;
	a.host_memory = mc->location == NEURON_MEM_HOST;
	a.mmap_offset = mc->pa;
	a.pa = mc->pa;
	a.pid = pid_vnr(mc->owner);
	a.size = mc->size;
	neuron_mem_put(mc);
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

/* MEM_MC_GET_INFO and _V2: the caller's chunk containing @pa. */
static long neuron_ioctl_mc_info(struct neuron_file *nf, void __user *arg, size_t len)
{
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 a;
	struct neuron_mem_chunk *mc;
	u64 pa;

	if (get_user(pa, (u64 __user *)arg))
		return -EFAULT;
	mc = neuron_mem_get_by_pa(nf->nd, pa);
	if (!mc)
		return -ENOMEM;
	memset(&a, 0, sizeof(a));
	a.pa = pa;
	a.mmap_offset = mc->pa;
	a.size = mc->size;
	a.mem_handle = mc->handle;
	neuron_mem_put(mc);
	return copy_to_user(arg, &a, len) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_mem_mc_get_info() - NEURON_IOCTL_MEM_MC_GET_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_get_mc_mmap_info, read and written
 *
 * Return: 0, -EFAULT, or -ENOMEM when no chunk of the caller holds @pa.
 */
long neuron_ioctl_mem_mc_get_info(struct neuron_file *nf, void __user *arg)
{
	return neuron_ioctl_mc_info(nf, arg, sizeof(struct neuron_ioctl_mem_get_mc_mmap_info));
}

/**
 * neuron_ioctl_mem_mc_get_info_v2() - NEURON_IOCTL_MEM_MC_GET_INFO_V2
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_get_mc_mmap_info_v2, read and written
 *
 * Return: as neuron_ioctl_mem_mc_get_info().
 */
long neuron_ioctl_mem_mc_get_info_v2(struct neuron_file *nf, void __user *arg)
{
	return neuron_ioctl_mc_info(nf, arg, sizeof(struct neuron_ioctl_mem_get_mc_mmap_info_v2));
}

/**
 * neuron_ioctl_dump_mem_chunks() - NEURON_IOCTL_DUMP_MEM_CHUNKS
 * @nf: the file
 * @arg: struct neuron_ioctl_dump_mem_chunks, read and written
 *
 * Lists every device chunk of one HBM channel.  @num_entries_out is the
 * number of chunks; when @num_entries_in is smaller (but not 0, which asks
 * for the count alone), that many entries are written and the call fails
 * with -EAGAIN.
 *
 * Return: 0, -EFAULT, -EINVAL (channel), -EAGAIN, -ENOMEM.
 */
long neuron_ioctl_dump_mem_chunks(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dump_mem_chunks a;
	struct neuron_ioctl_mem_chunk_info *out = NULL;
	u32 cap, total;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	cap = min_t(u32, a.num_entries_in, NEURON_DUMP_MAX);
	/* Size the buffer by what exists, not by what the caller offers. */
	if (cap) {
		ret = neuron_mem_dump(nf->nd, a.hbm_index, NULL, 0, &total);
		if (ret)
			return ret;
		cap = min(cap, total);
	}
	if (cap) {
		out = kvcalloc(cap, sizeof(*out), GFP_KERNEL);
		if (!out)
			return -ENOMEM;
	}
	ret = neuron_mem_dump(nf->nd, a.hbm_index, out, cap, &total);
	if (ret)
		goto out;
	ret = -EFAULT;
	if (copy_to_user(neuron_user_ptr(a.data), out, sizeof(*out) * min(cap, total)))
		goto out;
	if (put_user(total, (u32 __user *)(arg + offsetof(typeof(a), num_entries_out))))
		goto out;
	/*
	 * num_entries_in 0 asks for the count alone; otherwise, more chunks
	 * than were written (the buffer was short, or chunks appeared since
	 * it was sized) is -EAGAIN.
	 */
	ret = a.num_entries_in && total > cap ? -EAGAIN : 0;
out:
	kvfree(out);
	return ret;
}

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

/**
 * neuron_ioctl_mem_buf_zerocopy64() - NEURON_IOCTL_MEM_BUF_ZEROCOPY64
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_buf_copy64zc
 *
 * MEM_BUF_COPY64 already moves large buffers without a CPU copy (the
 * user's pages are pinned and the engine copies them), so this is the
 * same transfer, on the queue h2t_qid names (dma_h2t.c).  bar4_wr_threshold
 * is a hint and is not used.
 *
 * Return: as neuron_ioctl_mem_buf_copy(); -ENOENT for an h2t_qid that is
 * neither the default queue nor a copy queue the caller claimed for the
 * chunk's core.
 */
long neuron_ioctl_mem_buf_zerocopy64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_buf_copy64zc a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	/* After the file's asynchronous zero-copy transfers. */
	neuron_zc_drain(&nf->zc);
	return neuron_ioctl_buf_copy(nf, a.mem_handle, neuron_user_ptr(a.buffer), a.size,
				     a.offset, a.is_copy_to_device, a.h2t_qid);
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
	if (a.nc_id >= nf->nd->dhal.dhal->layout->nc_count)
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
	if (a.nc_id >= nf->nd->dhal.dhal->layout->nc_count)
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
		ret = neuron_zc_submit(&nf->zc, a.h2t_qid, b, a.num_batches, ops, nops,
				       a.is_copy_to_device, a.sequence_num, ctx);
		if (!ret)
			return 0;
	} else if (!ret) {
		neuron_zc_drain(&nf->zc);
		ret = neuron_zc_batches_run(nf->nd, b, a.num_batches, a.is_copy_to_device,
					    NULL, NULL);
	}
	for (i = 0; i < a.num_batches; i++)
		neuron_mem_put(b[i].mc);
	kvfree(ops);
	kvfree(b);
	return ret;
}
