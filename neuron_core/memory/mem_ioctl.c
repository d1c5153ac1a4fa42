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
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "memory/mem.h"

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
 * neuron_ioctl_mem_alloc_v2mt64_pa() - NEURON_IOCTL_MEM_ALLOC_V2MT64_PA
 * @nf: the file
 * @arg: struct neuron_ioctl_mem_alloc_v2_mem_type64_pa; @pad must be zero
 *
 * As MEM_ALLOC_V2MT64, and the whole struct comes back with @pa filled in
 * (what MEM_GET_PA reports) and its padding zeroed.
 *
 * Return: as neuron_ioctl_mem_alloc(); nothing stays allocated when the
 * handle or the struct cannot be written.
 */
long neuron_ioctl_mem_alloc_v2mt64_pa(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type64_pa a, out;
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_request req;
	struct neuron_mem_chunk *mc;
	u64 handle;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.pad)
		return -EINVAL;
	req = NEURON_ALLOC_REQ(a, a.align, a.mem_type);
	ret = neuron_mem_alloc(nd, &req, &mc);
	if (ret)
		return ret;
	handle = mc->handle;
	memset(&out, 0, sizeof(out));
	out.size = a.size;
	out.align = a.align;
	out.host_memory = a.host_memory;
	out.hbm_index = a.hbm_index;
	out.dram_region_unused = a.dram_region_unused;
	out.nc_id = a.nc_id;
	out.mem_type = a.mem_type;
	out.mem_handle = a.mem_handle;
	out.pa = mc->pa;
	neuron_mem_put(mc);
	if (put_user(handle, (u64 __user *)neuron_user_ptr(a.mem_handle)) ||
	    copy_to_user(arg, &out, sizeof(out))) {
		neuron_mem_free_handle(nd, handle);
		return -EFAULT;
	}
	return 0;
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
 * Bounded and preemptible: the count is kept as chunks come and go (no
 * walk), the buffer is sized by the smaller of what the caller offers,
 * %NEURON_DUMP_MAX and the count, and the listing visits at most that many
 * chunks of the channel, a batch at a time, letting the allocator's lock go
 * between batches (neuron_mem_dump()).  Chunks made or freed meanwhile may
 * or may not be listed; when fewer were listed than the channel has as the
 * walk ends, the call fails with -EAGAIN, as for a short buffer.
 *
 * Return: 0, -EFAULT, -EINVAL (channel), -EAGAIN, -ENOMEM, -EINTR.
 */
long neuron_ioctl_dump_mem_chunks(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dump_mem_chunks a;
	struct neuron_ioctl_mem_chunk_info *out = NULL;
	u32 cap, n, total;
	long ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	cap = min_t(u32, a.num_entries_in, NEURON_DUMP_MAX);
	/* Size the buffer by what exists, not by what the caller offers. */
	if (cap) {
		ret = neuron_mem_dump(nf->nd, a.hbm_index, NULL, 0, &n, &total);
		if (ret)
			return ret;
		cap = min(cap, total);
	}
	if (cap) {
		out = kvcalloc(cap, sizeof(*out), GFP_KERNEL);
		if (!out)
			return -ENOMEM;
	}
	ret = neuron_mem_dump(nf->nd, a.hbm_index, out, cap, &n, &total);
	if (ret)
		goto out;
	ret = -EFAULT;
	if (copy_to_user(neuron_user_ptr(a.data), out, sizeof(*out) * n))
		goto out;
	/* Chunks listed and freed since are counted: the entries are all there. */
	if (put_user(max(total, n), (u32 __user *)(arg + offsetof(typeof(a), num_entries_out))))
		goto out;
	/*
	 * num_entries_in 0 asks for the count alone; otherwise, more chunks
	 * than were written (the buffer was short, or chunks appeared while
	 * it was sized or filled) is -EAGAIN.
	 */
	ret = a.num_entries_in && total > n ? -EAGAIN : 0;
out:
	kvfree(out);
	return ret;
}

/**
 * neuron_ioctl_va_placement() - NEURON_IOCTL_GET_VA_PLACEMENT
 * @nf: the file
 * @arg: struct neuron_ioctl_get_va_placement; @va read, the rest written
 *
 * Which device and memory channel back a mapping of device memory: the
 * caller's mapping containing @va is looked up; when it maps a device
 * chunk (of any Neuron device), its device index and HBM channel come
 * back.  Anything else (no mapping there, host memory, another kind of
 * mapping) leaves both -1.
 *
 * Return: 0; -ENXIO (written back, as the reference) when @va is not in a
 * mapping of device memory; -EFAULT.
 */
long neuron_ioctl_va_placement(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_get_va_placement vp;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	long ret = -ENXIO;
	u64 va;

	if (get_user(va, (u64 __user *)arg))
		return -EFAULT;
	memset(&vp, 0, sizeof(vp));
	vp.va = va;
	vp.device_index = -1;
	vp.hbm_index = -1;
	if (mm && va <= ULONG_MAX) {
		mmap_read_lock(mm);
		vma = vma_lookup(mm, va);
		if (vma && neuron_mem_is_chunk_vma(vma)) {
			const struct neuron_mem_chunk *mc = vma->vm_private_data;

			if (mc->location == NEURON_MEM_DEVICE) {
				vp.device_index = mc->nd->index;
				vp.hbm_index = mc->hbm;
				ret = 0;
			}
		}
		mmap_read_unlock(mm);
	}
	if (copy_to_user(arg, &vp, sizeof(vp)))
		return -EFAULT;
	return ret;
}
