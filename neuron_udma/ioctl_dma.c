// SPDX-License-Identifier: GPL-2.0
/*
 * DMA commands: copies and fills between the caller's chunks, asynchronous
 * copies, the state of engines and queues, and the queues user space
 * programs.  The work is done in dma.c and dma_user.c.
 *
 * Every handle must name a chunk of the calling process; every range is
 * checked for overflow and against its chunk before anything moves.
 */

#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dma.h"

/* The revision of the UDMA engine every generation has. */
#define NEURON_DMA_REVISION	4

/* Both chunks of a copy, checked; drop them with neuron_dma_put_pair(). */
static int neuron_dma_get_pair(struct neuron_device *nd, u64 src_h, u64 src_off, u64 dst_h,
			       u64 dst_off, u64 size, struct neuron_mem_chunk **src,
			       struct neuron_mem_chunk **dst)
{
	*src = neuron_mem_get(nd, src_h);
	*dst = *src ? neuron_mem_get(nd, dst_h) : NULL;
	if (!*src || !*dst)
		goto bad;
	if (!neuron_mem_range_ok(*src, src_off, size) || !neuron_mem_range_ok(*dst, dst_off, size))
		goto bad;
	/* Within one chunk the ranges must not overlap. */
	if (*src == *dst && size && src_off < dst_off + size && dst_off < src_off + size)
		goto bad;
	return 0;
bad:
	neuron_mem_put(*dst);
	neuron_mem_put(*src);
	return -EINVAL;
}

static void neuron_dma_put_pair(struct neuron_mem_chunk *src, struct neuron_mem_chunk *dst)
{
	neuron_mem_put(dst);
	neuron_mem_put(src);
}

static long neuron_ioctl_copy(struct neuron_file *nf, u64 src_h, u64 dst_h, u64 size,
			      u64 src_off, u64 dst_off)
{
	struct neuron_mem_chunk *src, *dst;
	long ret;

	ret = neuron_dma_get_pair(nf->nd, src_h, src_off, dst_h, dst_off, size, &src, &dst);
	if (ret)
		return ret;
	ret = neuron_dma_copy(nf->nd, src, src_off, dst, dst_off, size);
	neuron_dma_put_pair(src, dst);
	return ret;
}

/**
 * neuron_ioctl_mem_copy() - NEURON_IOCTL_MEM_COPY
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_copy
 *
 * Return: 0; -EFAULT; -EINVAL for a handle not the caller's, a range
 * outside its chunk or overlapping ranges of one chunk; -ETIMEDOUT, -EIO
 * or -EINTR when the transfer failed (see Documentation/dma.rst).
 */
long neuron_ioctl_mem_copy(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_copy a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_copy(nf, a.src_mem_handle, a.dst_mem_handle, a.size, a.src_offset,
				 a.dst_offset);
}

/**
 * neuron_ioctl_mem_copy64() - NEURON_IOCTL_MEM_COPY64
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_copy64
 *
 * Return: as neuron_ioctl_mem_copy().
 */
long neuron_ioctl_mem_copy64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_copy64 a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_copy(nf, a.src_mem_handle, a.dst_mem_handle, a.size, a.src_offset,
				 a.dst_offset);
}

static long neuron_ioctl_fill(struct neuron_file *nf, u64 handle, u64 off, u32 value, u64 size)
{
	struct neuron_mem_chunk *mc = neuron_mem_get(nf->nd, handle);
	long ret = -EINVAL;

	if (!mc)
		return -EINVAL;
	if (neuron_mem_range_ok(mc, off, size))
		ret = neuron_dma_memset(nf->nd, mc, off, value & 0xff, size);
	neuron_mem_put(mc);
	return ret;
}

/**
 * neuron_ioctl_memset() - NEURON_IOCTL_MEMSET
 * @nf: the file
 * @arg: struct neuron_ioctl_memset
 *
 * Fills with the low byte of the value.
 *
 * Return: 0; -EFAULT; -EINVAL for a handle not the caller's or a range
 * outside its chunk; the transfer errors of neuron_ioctl_mem_copy().
 */
long neuron_ioctl_memset(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_memset a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_fill(nf, a.mem_handle, a.offset, a.value, a.size);
}

/**
 * neuron_ioctl_memset64() - NEURON_IOCTL_MEMSET64
 * @nf: the file
 * @arg: struct neuron_ioctl_memset64
 *
 * Return: as neuron_ioctl_memset().
 */
long neuron_ioctl_memset64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_memset64 a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_fill(nf, a.mem_handle, a.offset, a.value, a.size);
}

/* Start the copy and write its handle back to @whp (if it got one). */
static long neuron_ioctl_copy_async(struct neuron_file *nf, u64 src_h, u64 dst_h, u64 size,
				    u64 src_off, u64 dst_off, u32 pwait, u32 __user *whp)
{
	struct neuron_mem_chunk *src, *dst;
	u32 h = 0;
	long ret;
	struct neuron_dma_file *df = neuron_dma_file(nf);

	if (!df)
		return -ENOMEM;
	ret = neuron_dma_get_pair(nf->nd, src_h, src_off, dst_h, dst_off, size, &src, &dst);
	if (ret)
		return ret;
	ret = neuron_dma_copy_async(nf->nd, &df->async, src, src_off, dst, dst_off, size, pwait,
				    &h);
	neuron_dma_put_pair(src, dst);
	if (h && put_user(h, whp))
		return -EFAULT;
	return ret;
}

/**
 * neuron_ioctl_mem_copy_async() - NEURON_IOCTL_MEM_COPY_ASYNC
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_copy_async
 *
 * Starts the copy, then waits for @pwait_handle's copy if it is not
 * NEURON_DMA_H2T_CTX_HANDLE_NONE; writes the new copy's handle back.
 * host_prefetch_addr is a hint and is not used.
 *
 * Return: 0; -EFAULT; -EINVAL for bad handles, ranges or pwait_handle; the
 * transfer errors of neuron_ioctl_mem_copy().
 */
long neuron_ioctl_mem_copy_async(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_copy_async a, __user *u = arg;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_copy_async(nf, a.src_mem_handle, a.dst_mem_handle, a.size,
				       a.src_offset, a.dst_offset, a.pwait_handle, &u->wait_handle);
}

/**
 * neuron_ioctl_mem_copy_async64() - NEURON_IOCTL_MEM_COPY_ASYNC64
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_copy_async64
 *
 * Return: as neuron_ioctl_mem_copy_async().
 */
long neuron_ioctl_mem_copy_async64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_copy_async64 a, __user *u = arg;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_ioctl_copy_async(nf, a.src_mem_handle, a.dst_mem_handle, a.size,
				       a.src_offset, a.dst_offset, a.pwait_handle, &u->wait_handle);
}

/**
 * neuron_ioctl_mem_copy_async_wait() - NEURON_IOCTL_MEM_COPY_ASYNC_WAIT
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_copy_async_wait
 *
 * The handles of the chunks are not needed: the wait handle names the
 * copy, within the calling file.
 *
 * Return: 0 (also when nothing is in flight on the handle); -EFAULT;
 * -EINVAL for a handle other than ASYNC1 and ASYNC2; the copy's error.
 */
long neuron_ioctl_mem_copy_async_wait(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_copy_async_wait a;
	struct neuron_dma_file *df;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	df = neuron_dma_file(nf);
	if (!df)
		return -ENOMEM;
	return neuron_dma_async_wait(nf->nd, &df->async, a.pwait_handle);
}

/* enum neuron_udma_state <-> enum neuron_dma_eng_state_code */
static const struct {
	enum neuron_udma_state udma;
	u32 code;
} neuron_dma_state_codes[] = {
	{ NEURON_UDMA_DISABLED, NEURON_DMA_ENG_DISABLE },
	{ NEURON_UDMA_IDLE, NEURON_DMA_ENG_IDLE },
	{ NEURON_UDMA_NORMAL, NEURON_DMA_ENG_NORMAL },
	{ NEURON_UDMA_ABORTED, NEURON_DMA_ENG_ABORT },
};

static u32 neuron_dma_state_code(enum neuron_udma_state st)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(neuron_dma_state_codes); i++)
		if (neuron_dma_state_codes[i].udma == st)
			break;
	return i < ARRAY_SIZE(neuron_dma_state_codes) ? neuron_dma_state_codes[i].code :
							NEURON_DMA_ENG_IDLE;
}

/**
 * neuron_ioctl_dma_eng_set_state() - NEURON_IOCTL_DMA_ENG_SET_STATE
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_eng_set_state
 *
 * Return: 0; -EFAULT; -EINVAL for a state other than DISABLE, NORMAL or
 * ABORT; the errors of neuron_dma_eng_set_state().
 */
long neuron_ioctl_dma_eng_set_state(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_eng_set_state a;
	unsigned int i;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(neuron_dma_state_codes); i++)
		if (neuron_dma_state_codes[i].code == a.state &&
		    neuron_dma_state_codes[i].udma != NEURON_UDMA_IDLE)
			return neuron_dma_eng_set_state(nf->nd, a.eng_id,
							neuron_dma_state_codes[i].udma);
	return -EINVAL;
}

/**
 * neuron_ioctl_dma_eng_get_state() - NEURON_IOCTL_DMA_ENG_GET_STATE
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_eng_get_state
 *
 * tx_state and rx_state read NEURON_DMA_ENG_IDLE, _NORMAL or _ABORT.
 *
 * Return: 0; -EFAULT; -EINVAL for an engine the device does not have.
 */
long neuron_ioctl_dma_eng_get_state(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_eng_get_state a;
	struct neuron_dma_eng_state st;
	enum neuron_udma_state tx, rx;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	ret = neuron_dma_engine_state(nf->nd, a.eng_id, &tx, &rx);
	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	st.revision_id = NEURON_DMA_REVISION;
	st.max_queues = NEURON_UDMA_MAX_QUEUES;
	st.num_queues = neuron_dma_of(nf->nd)->gen->queues;
	st.tx_state = neuron_dma_state_code(tx);
	st.rx_state = neuron_dma_state_code(rx);
	if (copy_to_user(neuron_user_ptr(a.state), &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static void neuron_dma_half_out(const struct neuron_udma_half_state *hs,
				struct neuron_dma_queue_state *out)
{
	memset(out, 0, sizeof(*out));
	out->hw_status = hs->status;
	out->sw_status = hs->enabled;
	out->base_addr = hs->base;
	out->length = hs->size;
	out->head_pointer = hs->head;
	out->tail_pointer = hs->tail;
	out->completion_head = hs->completed;
}

/**
 * neuron_ioctl_dma_queue_get_state() - NEURON_IOCTL_DMA_QUEUE_GET_STATE
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_queue_get_state
 *
 * Reports the registers of both halves; sw_status is 1 when the half is
 * enabled.  base_addr is not the register, which holds an address of
 * driver memory on every queue (the rings of the driver's channels on the
 * host engines, the shadow rings of user queues) and so never reaches user
 * space: on a queue the caller initialised with DMA_QUEUE_INIT it is the
 * address of the ring the caller named there (its own chunk), on any other
 * queue 0.  No completion ring is used, so completion_base_addr reads 0.
 *
 * Return: 0; -EFAULT; -EINVAL for a bad engine or queue.
 */
long neuron_ioctl_dma_queue_get_state(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_queue_get_state a;
	struct neuron_dma_queue_state tx, rx;
	struct neuron_udma_queue_state st;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	ret = neuron_dma_queue_state(nf->nd, a.eng_id, a.qid, &st);
	if (ret)
		return ret;
	neuron_dma_half_out(&st.m2s, &tx);
	neuron_dma_half_out(&st.s2m, &rx);
	if (copy_to_user(neuron_user_ptr(a.tx), &tx, sizeof(tx)) ||
	    copy_to_user(neuron_user_ptr(a.rx), &rx, sizeof(rx)))
		return -EFAULT;
	return 0;
}

/**
 * neuron_ioctl_dma_eng_init() - NEURON_IOCTL_DMA_ENG_INIT
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_eng_init
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_eng_init().
 */
long neuron_ioctl_dma_eng_init(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_eng_init a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_eng_init(nf->nd, a.eng_id);
}

/**
 * neuron_ioctl_dma_queue_init() - NEURON_IOCTL_DMA_QUEUE_INIT
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_queue_init
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_queue_init().
 */
long neuron_ioctl_dma_queue_init(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_queue_init a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_queue_init(nf->nd, &a, 1);
}

/**
 * neuron_ioctl_dma_queue_init_batch() - NEURON_IOCTL_DMA_QUEUE_INIT_BATCH
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_queue_init_batch
 *
 * As DMA_QUEUE_INIT for each entry: every entry is checked before any
 * queue changes (neuron_dma_queue_init()).
 *
 * Return: 0; -EFAULT; -EINVAL for a count of MAX_DMA_QUEUE_INIT_BATCH or
 * more; -ENOMEM; the errors of neuron_dma_queue_init().
 */
long neuron_ioctl_dma_queue_init_batch(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_queue_init_batch *b;
	u32 count;
	long ret;

	b = kvmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(b, arg, sizeof(*b)))
		goto out;
	ret = -EINVAL;
	if (b->count >= MAX_DMA_QUEUE_INIT_BATCH)
		goto out;
	/* b->count, checked above, comes from user space. */
	count = array_index_nospec(b->count, MAX_DMA_QUEUE_INIT_BATCH);
	ret = count ? neuron_dma_queue_init(nf->nd, b->entries, count) : 0;
out:
	kvfree(b);
	return ret;
}

/**
 * neuron_ioctl_dma_queue_release() - NEURON_IOCTL_DMA_QUEUE_RELEASE
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_queue_release
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_queue_release().
 */
long neuron_ioctl_dma_queue_release(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_queue_release a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_queue_release(nf->nd, a.eng_id, a.qid);
}

/**
 * neuron_ioctl_dma_queue_copy_start() - NEURON_IOCTL_DMA_QUEUE_COPY_START
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_queue_copy_start
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_queue_start().
 */
long neuron_ioctl_dma_queue_copy_start(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_queue_copy_start a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_queue_start(nf->nd, a.eng_id, a.qid, a.tx_desc_count, a.rx_desc_count);
}

/**
 * neuron_ioctl_dma_ack_completed() - NEURON_IOCTL_DMA_ACK_COMPLETED
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_ack_completed
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_queue_ack().
 */
long neuron_ioctl_dma_ack_completed(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_ack_completed a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_queue_ack(nf->nd, a.eng_id, a.qid, a.count);
}

/**
 * neuron_ioctl_dma_copy_descriptors() - NEURON_IOCTL_DMA_COPY_DESCRIPTORS
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_copy_descriptors
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_copy_descriptors().
 */
long neuron_ioctl_dma_copy_descriptors(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_copy_descriptors a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_copy_descriptors(nf->nd, a.mem_handle, neuron_user_ptr(a.buffer),
					   a.num_descs, a.offset, a.queue_type);
}

/**
 * neuron_ioctl_dma_copy_descriptors64() - NEURON_IOCTL_DMA_COPY_DESCRIPTORS64
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_copy_descriptors64
 *
 * Return: as neuron_ioctl_dma_copy_descriptors().
 */
long neuron_ioctl_dma_copy_descriptors64(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_copy_descriptors64 a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_copy_descriptors(nf->nd, a.mem_handle, neuron_user_ptr(a.buffer),
					   a.num_descs, a.offset, a.queue_type);
}

/**
 * neuron_ioctl_dma_descriptor_copyout() - NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT
 * @nf: the file
 * @arg: struct neuron_ioctl_dma_descriptor_copyout
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_descriptor_copyout().
 */
long neuron_ioctl_dma_descriptor_copyout(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dma_descriptor_copyout a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_descriptor_copyout(nf->nd, a.eng_id, a.qid, a.type, a.start_index,
					     a.count, neuron_user_ptr(a.buffer));
}

/**
 * neuron_ioctl_h2t_alloc_queues() - NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES
 * @nf: the file
 * @arg: struct neuron_ioctl_h2t_dma_alloc_queues
 *
 * Claims copy_queue_cnt copy queues on nc_id's host engine for the caller
 * (dma_h2t.c) and reports them, and the core's default queue.
 *
 * Return: 0; -EFAULT (nothing stays claimed); -EINVAL for a wrong sz or a
 * bad core; -EOPNOTSUPP for service queues; the errors of
 * neuron_dma_h2t_alloc().
 */
long neuron_ioctl_h2t_alloc_queues(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	u32 bmap, def;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.sz != sizeof(a))
		return -EINVAL;
	if (a.service_queue_cnt)
		return -EOPNOTSUPP;
	ret = neuron_dma_h2t_alloc(nf->nd, a.nc_id, a.copy_queue_cnt, &bmap, &def);
	if (ret)
		return ret;
	a.copy_queue_bmap = bmap;
	a.service_queue_bmap = 0;
	a.copy_default_queue = def;
	if (copy_to_user(arg, &a, sizeof(a))) {
		/* A reset of the core may have released them already. */
		neuron_dma_h2t_free(nf->nd, a.nc_id, bmap);
		return -EFAULT;
	}
	return 0;
}

/**
 * neuron_ioctl_h2t_free_queues() - NEURON_IOCTL_H2T_DMA_FREE_QUEUES
 * @nf: the file
 * @arg: struct neuron_ioctl_h2t_dma_free_queues
 *
 * Return: 0; -EFAULT; -EINVAL for a wrong sz, a non-zero fill0, or as
 * neuron_dma_h2t_free().
 */
long neuron_ioctl_h2t_free_queues(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_h2t_dma_free_queues a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.sz != sizeof(a) || a.fill0)
		return -EINVAL;
	return neuron_dma_h2t_free(nf->nd, a.nc_id, a.queue_bmap);
}

/**
 * neuron_ioctl_h2t_compl_queues() - NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES
 * @nf: the file
 * @arg: struct neuron_ioctl_get_async_h2t_dma_compl_queues
 *
 * Reports, for each queue in qid_bitmap, the mmap offset and size of the
 * file's completion queue for it, making the queue if needed (dma_zc.c).
 * Bits of qid_bitmap at 16 and above name no queue and are ignored; the
 * other entries of the table are zero.
 *
 * Return: 0; -EFAULT; -EINVAL for a bad core, or a queue that is neither
 * the core's default queue nor a copy queue the caller claimed for it;
 * the errors of neuron_zc_queues().
 */
long neuron_ioctl_h2t_compl_queues(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_get_async_h2t_dma_compl_queues a;
	struct neuron_dma_file *df;
	u32 nc, bmap;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	nc = a.nc_id;
	bmap = a.qid_bitmap;
	if (nc >= neuron_device_dhal(nf->nd)->layout->nc_count)
		return -EINVAL;
	memset(a.compl_queue_info, 0, sizeof(a.compl_queue_info));
	df = neuron_dma_file(nf);
	if (!df)
		return -ENOMEM;
	ret = neuron_zc_queues(&df->zc, nc, bmap & GENMASK(NEURON_UDMA_MAX_QUEUES - 1, 0), &a);
	if (ret)
		return ret;
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

/**
 * neuron_ioctl_hbm_scrub_start() - NEURON_IOCTL_HBM_SCRUB_START
 * @nf: the file
 * @arg: struct neuron_ioctl_hbm_scrub_start
 *
 * Fills the free memory of HBM channel hbm_index with init_val; chunks keep
 * their contents.  axi_port is not used: the driver picks its engines.
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_scrub_start().
 */
long neuron_ioctl_hbm_scrub_start(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_hbm_scrub_start a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_scrub_start(nf->nd, a.nc_id, a.hbm_index, a.init_val);
}

/**
 * neuron_ioctl_hbm_scrub_wait() - NEURON_IOCTL_HBM_SCRUB_WAIT
 * @nf: the file
 * @arg: struct neuron_ioctl_hbm_scrub_wait
 *
 * Return: 0; -EFAULT; the errors of neuron_dma_scrub_wait().
 */
long neuron_ioctl_hbm_scrub_wait(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_hbm_scrub_wait a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return neuron_dma_scrub_wait(nf->nd, a.nc_id, a.hbm_index);
}
