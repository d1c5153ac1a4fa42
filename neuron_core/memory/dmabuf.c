// SPDX-License-Identifier: GPL-2.0
/*
 * NEURON_IOCTL_DMABUF_FD: export part of a device-memory chunk the caller
 * has mapped as a dma-buf, for another driver (a NIC doing peer-to-peer
 * DMA) or another process to use.
 *
 * The range is named by a user address: it must lie, whole, inside one of
 * the caller's own mappings of a device chunk.  The dma-buf holds a
 * reference to the chunk, so the memory stays allocated (and its place in
 * the pool taken) until the last user of the dma-buf is gone, whatever the
 * exporting process does.
 *
 * Importers get the device memory as a bus address (dma_map_resource() of
 * the BAR range), which needs a real BAR; user space may mmap() the
 * dma-buf on any bus that can map device memory.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <neuron/compat.h>

#include "memory/mem.h"

/**
 * struct neuron_dmabuf - what a dma-buf of device memory stands for
 * @mc: the chunk, referenced
 * @off: offset of the range in the chunk
 * @size: its length
 * @dmabuf: the dma-buf
 * @node: entry in the device's &neuron_mem.dmabufs
 * @vmas: user mappings of the dma-buf
 *
 * @node and @vmas are under the device's &neuron_mem.lock.  While @vmas
 * is not 0, a mapping holds the dma-buf's file, so removal can reach the
 * file's mappings through it.
 */
struct neuron_dmabuf {
	struct neuron_mem_chunk *mc;
	u64 off;
	u64 size;
	struct dma_buf *dmabuf;
	struct list_head node;
	unsigned int vmas;
};

static void neuron_dmabuf_vm_open(struct vm_area_struct *vma)
{
	struct neuron_dmabuf *nb = vma->vm_private_data;
	struct neuron_mem *m = nb->mc->nd->mem;

	mutex_lock(&m->lock);
	nb->vmas++;
	mutex_unlock(&m->lock);
}

static void neuron_dmabuf_vm_close(struct vm_area_struct *vma)
{
	struct neuron_dmabuf *nb = vma->vm_private_data;
	struct neuron_mem *m = nb->mc->nd->mem;

	mutex_lock(&m->lock);
	nb->vmas--;
	mutex_unlock(&m->lock);
}

/* No fault handler: once removal zapped a mapping, an access gets SIGBUS. */
static const struct vm_operations_struct neuron_dmabuf_vm_ops = {
	.open = neuron_dmabuf_vm_open,
	.close = neuron_dmabuf_vm_close,
};

/**
 * neuron_dmabuf_zap_locked() - revoke the user mappings of a device's dma-bufs
 * @nd: the device, being removed (&neuron_mem.gone set)
 *
 * Context: &neuron_mem.lock held.
 */
void neuron_dmabuf_zap_locked(struct neuron_device *nd)
{
	struct neuron_dmabuf *nb;

	lockdep_assert_held(&nd->mem->lock);
	list_for_each_entry(nb, &nd->mem->dmabufs, node)
		if (nb->vmas)
			unmap_mapping_range(nb->dmabuf->file->f_mapping, 0, 0, 1);
}

static struct sg_table *neuron_dmabuf_map(struct dma_buf_attachment *att,
					  enum dma_data_direction dir)
{
	struct neuron_dmabuf *nb = att->dmabuf->priv;
	struct neuron_device *nd = nb->mc->nd;
	const struct neuron_bar *bar = &nd->bars[nd->mem->bar];
	struct sg_table *sgt;
	dma_addr_t addr;
	int ret;

	/* Only a real BAR has a bus address to give. */
	if (!bar->phys || READ_ONCE(nd->mem->gone))
		return ERR_PTR(-EOPNOTSUPP);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		goto err_free;
	addr = dma_map_resource(att->dev, bar->phys + nb->mc->bar_off + nb->off, nb->size, dir,
				DMA_ATTR_SKIP_CPU_SYNC);
	ret = -ENOMEM;
	if (dma_mapping_error(att->dev, addr))
		goto err_table;
	sg_dma_address(sgt->sgl) = addr;
	sg_dma_len(sgt->sgl) = nb->size;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void neuron_dmabuf_unmap(struct dma_buf_attachment *att, struct sg_table *sgt,
				enum dma_data_direction dir)
{
	dma_unmap_resource(att->dev, sg_dma_address(sgt->sgl), sg_dma_len(sgt->sgl), dir,
			   DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

static int neuron_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct neuron_dmabuf *nb = dmabuf->priv;
	struct neuron_device *nd = nb->mc->nd;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT, len = vma->vm_end - vma->vm_start, end;
	int ret;

	/* The dma-buf core checked the range against the buffer's size. */
	if (check_add_overflow(off, len, &end) || end > nb->size)
		return -EINVAL;
	if (!nd->bus.mmap_bar)
		return -ENODEV;
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	neuron_vm_flags_set(vma, NEURON_VM_FLAGS);
	/* As neuron_mem_mmap(): the device cannot go while m->lock is held. */
	mutex_lock(&nd->mem->lock);
	ret = nd->mem->gone ? -ENODEV :
		nd->bus.mmap_bar(nd->bus.ctx, nd->mem->bar, nb->mc->bar_off + nb->off + off, vma);
	if (!ret) {
		vma->vm_private_data = nb;
		vma->vm_ops = &neuron_dmabuf_vm_ops;
		nb->vmas++;
	}
	mutex_unlock(&nd->mem->lock);
	return ret;
}

static void neuron_dmabuf_release(struct dma_buf *dmabuf)
{
	struct neuron_dmabuf *nb = dmabuf->priv;
	struct neuron_mem *m = nb->mc->nd->mem;

	mutex_lock(&m->lock);
	list_del(&nb->node);
	mutex_unlock(&m->lock);
	neuron_mem_put(nb->mc);
	kfree(nb);
}

static const struct dma_buf_ops neuron_dmabuf_ops = {
	.map_dma_buf = neuron_dmabuf_map,
	.unmap_dma_buf = neuron_dmabuf_unmap,
	.mmap = neuron_dmabuf_mmap,
	.release = neuron_dmabuf_release,
};

/*
 * The caller's device chunk mapped at [va, va + size): the chunk with a
 * reference and the range's offset in it, or NULL.
 */
static struct neuron_mem_chunk *neuron_dmabuf_find(struct neuron_device *nd, u64 va, u64 size,
						   u64 *off)
{
	struct mm_struct *mm = current->mm;
	struct neuron_mem_chunk *mc;
	u64 end;

	if (!mm || check_add_overflow(va, size, &end))
		return NULL;
	mmap_read_lock(mm);
	mc = neuron_mem_mapped_chunk(mm, va, end, off);
	if (mc && (mc->nd != nd || mc->location != NEURON_MEM_DEVICE))
		mc = NULL;
	if (mc)
		kref_get(&mc->ref);
	mmap_read_unlock(mm);
	return mc;
}

/*
 * A dma-buf of [@va, @va + @size) of the caller's mapping of a device
 * chunk of @nf's device, both page aligned and not empty.  Return: the
 * dma-buf (its release frees what it holds); -EINVAL; -ENOMEM.
 */
static struct dma_buf *neuron_dmabuf_make(struct neuron_file *nf, u64 va, u64 size)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct neuron_dmabuf *nb;
	struct dma_buf *dmabuf;

	if (!size || !PAGE_ALIGNED(va) || !PAGE_ALIGNED(size))
		return ERR_PTR(-EINVAL);
	nb = kzalloc(sizeof(*nb), GFP_KERNEL_ACCOUNT);
	if (!nb)
		return ERR_PTR(-ENOMEM);
	nb->size = size;
	nb->mc = neuron_dmabuf_find(nf->nd, va, size, &nb->off);
	if (!nb->mc) {
		kfree(nb);
		return ERR_PTR(-EINVAL);
	}

	exp.ops = &neuron_dmabuf_ops;
	exp.size = size;
	exp.flags = O_RDWR | O_CLOEXEC;
	exp.priv = nb;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		neuron_mem_put(nb->mc);
		kfree(nb);
		return dmabuf;
	}
	/* Removal finds it there; its release takes it off. */
	nb->dmabuf = dmabuf;
	mutex_lock(&nf->nd->mem->lock);
	list_add(&nb->node, &nf->nd->mem->dmabufs);
	mutex_unlock(&nf->nd->mem->lock);
	/* From here on the dma-buf's release frees @nb. */
	return dmabuf;
}

/*
 * Export [@va, @va + @size) and give user space a descriptor of it: its
 * number at @ufd and, with @uoff, @off at @uoff.  The descriptor
 * (close-on-exec) is installed only once everything was written, so a
 * failed copy-out leaves no descriptor behind.
 */
static long neuron_dmabuf_fd_out(struct neuron_file *nf, u64 va, u64 size, s32 __user *ufd,
				 u64 __user *uoff, u64 off)
{
	struct dma_buf *dmabuf;
	int fd, ret;

	dmabuf = neuron_dmabuf_make(nf, va, size);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put;
	}
	if (put_user(fd, ufd) || (uoff && put_user(off, uoff))) {
		put_unused_fd(fd);
		ret = -EFAULT;
		goto err_put;
	}
	fd_install(fd, dmabuf->file);
	return 0;

err_put:
	dma_buf_put(dmabuf);
	return ret;
}

/**
 * neuron_ioctl_dmabuf_fd() - NEURON_IOCTL_DMABUF_FD
 * @nf: the file (either lane)
 * @arg: struct neuron_ioctl_dmabuf_fd
 *
 * The new descriptor (close-on-exec) is installed only once its number
 * has been written to user space.
 *
 * Return: 0; -EFAULT; -EINVAL for a NULL @fd, or when [va, va + size) is
 * not page aligned, empty, or not inside one of the caller's mappings of
 * a device chunk of this device; -EMFILE; -ENOMEM.
 */
long neuron_ioctl_dmabuf_fd(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dmabuf_fd a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (!a.fd)
		return -EINVAL;
	return neuron_dmabuf_fd_out(nf, a.va, a.size, neuron_user_ptr(a.fd), NULL, 0);
}

/**
 * neuron_ioctl_dmabuf_fd_v2() - NEURON_IOCTL_DMABUF_FD_V2 (driver 2.29)
 * @nf: the file (either lane)
 * @arg: struct neuron_ioctl_dmabuf_fd_v2
 *
 * As DMABUF_FD, for any byte range: the dma-buf covers the pages
 * [va, va + size) lies in, and the offset of @va in it is written to
 * @offset.
 *
 * Return: 0; -EINVAL for a NULL @fd or @offset, an empty or overflowing
 * range, or one not inside one of the caller's mappings of a device chunk
 * of this device; -EFAULT (no descriptor is left open); -EMFILE; -ENOMEM.
 */
long neuron_ioctl_dmabuf_fd_v2(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_dmabuf_fd_v2 a;
	u64 start, end;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (!a.fd || !a.offset || !a.size || check_add_overflow(a.va, a.size, &end) ||
	    end > U64_MAX - PAGE_SIZE)
		return -EINVAL;
	start = a.va & PAGE_MASK;
	end = PAGE_ALIGN(end);
	return neuron_dmabuf_fd_out(nf, start, end - start, neuron_user_ptr(a.fd),
				    neuron_user_ptr(a.offset), a.va - start);
}

NEURON_IMPORT_DMA_BUF_NS();
