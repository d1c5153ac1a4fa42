// SPDX-License-Identifier: GPL-2.0
/*
 * Small copies without the engine.  Below a threshold per direction
 * (cpu_copy_h2d_max, cpu_copy_d2h_max) a copy to or from device memory is
 * done by the CPU through the bus's mapping of device memory
 * (neuron_mem_cpu_io(): write-combined into it, uncached out of it, the
 * RAM window on a simulated device): a doorbell and a completion wait
 * cost more than the copy itself.
 *
 * The CPU path takes the place of the engine's transfer and of nothing
 * else: the caller has made the same checks, a user buffer is made sure of
 * in whole (its pages pinned, or copied into a bounce buffer) before device
 * memory changes (so a bad buffer fails with -EFAULT and changes nothing),
 * and the copy is done, visible to the engine, when the call returns, as a
 * synchronous transfer is.  Like the engine's transfers it waits for no
 * DMA the caller has not waited for.
 * Where the bus cannot (no mapping, a range it does not take) or a bounce
 * buffer cannot be had, the engine does the copy.  See
 * Documentation/dma.rst, "CPU copies".
 */

#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include "dma.h"

/*
 * Defaults: the largest the parameters take.  On simulated devices
 * (tools/bench/cpu-copy, Documentation/dma.rst, "CPU copies") the CPU,
 * copying once between the pinned user pages and device memory, is faster
 * than the engine at every size up to 64 KiB, both ways; on PCI devices
 * the bus caps them lower (neuron_mem_cpu_max()).
 */
#define NEURON_DMA_CPU_H2D_DEFAULT	NEURON_DMA_CPU_LIMIT
#define NEURON_DMA_CPU_D2H_DEFAULT	NEURON_DMA_CPU_LIMIT

static unsigned int neuron_dma_cpu_max[2] = {
	[0] = NEURON_DMA_CPU_D2H_DEFAULT,
	[1] = NEURON_DMA_CPU_H2D_DEFAULT,
};

static int neuron_dma_cpu_max_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, NEURON_DMA_CPU_LIMIT);
}

static const struct kernel_param_ops neuron_dma_cpu_max_ops = {
	.set = neuron_dma_cpu_max_set,
	.get = param_get_uint,
};

module_param_cb(cpu_copy_h2d_max, &neuron_dma_cpu_max_ops, &neuron_dma_cpu_max[1], 0644);
MODULE_PARM_DESC(cpu_copy_h2d_max,
		 "Largest copy into device memory done by the CPU, in bytes (0 to 65536, 0: never; default 65536)");
module_param_cb(cpu_copy_d2h_max, &neuron_dma_cpu_max_ops, &neuron_dma_cpu_max[0], 0644);
MODULE_PARM_DESC(cpu_copy_d2h_max,
		 "Largest copy out of device memory done by the CPU, in bytes (0 to 65536, 0: never; default 65536)");

/* Straight between user buffers and device memory where the bus can. */
static bool neuron_dma_cpu_direct_on = true;
module_param_named(cpu_copy_direct, neuron_dma_cpu_direct_on, bool, 0644);
MODULE_PARM_DESC(cpu_copy_direct,
		 "CPU copies of user buffers go straight to or from device memory where the bus can, without pinning (default Y; N: pin first)");

/**
 * neuron_dma_cpu_threshold() - the largest copy the CPU is to do
 * @h2d: cpu_copy_h2d_max
 * @d2h: cpu_copy_d2h_max
 * @bus_rd: what the bus says a CPU read of device memory is worth
 * @bus_wr: and a CPU write
 * @src_dev: the copy reads device memory
 * @dst_dev: the copy writes device memory
 *
 * A copy reading device memory is bounded by @d2h and @bus_rd, one writing
 * it by @h2d and @bus_wr, a copy within device memory by all four.  A copy
 * touching no device memory is left to its usual path (0).
 *
 * Return: bytes; copies of at most that many go through the CPU.
 */
VISIBLE_IF_KUNIT u32 neuron_dma_cpu_threshold(u32 h2d, u32 d2h, u32 bus_rd, u32 bus_wr,
					      bool src_dev, bool dst_dev)
{
	u32 max = NEURON_DMA_CPU_LIMIT;

	if (!src_dev && !dst_dev)
		return 0;
	if (src_dev)
		max = min3(max, d2h, bus_rd);
	if (dst_dev)
		max = min3(max, h2d, bus_wr);
	return max;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_dma_cpu_threshold);

static bool neuron_dma_cpu_wanted(struct neuron_device *nd, u64 size, bool src_dev, bool dst_dev)
{
	u32 max = neuron_dma_cpu_threshold(READ_ONCE(neuron_dma_cpu_max[1]),
					   READ_ONCE(neuron_dma_cpu_max[0]),
					   src_dev ? neuron_mem_cpu_max(nd, false) : 0,
					   dst_dev ? neuron_mem_cpu_max(nd, true) : 0,
					   src_dev, dst_dev);

	return size && size <= max;
}

static bool neuron_dma_on_dev(const struct neuron_mem_chunk *mc)
{
	return mc->location != NEURON_MEM_HOST;
}

/*
 * Whether the CPU is to copy @size bytes: 0, or -EOPNOTSUPP when the
 * engine is to do the copy, or what the engine's path would say before it
 * moved anything.
 */
static int neuron_dma_cpu_start(struct neuron_device *nd, u64 size, bool src_dev, bool dst_dev)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	int ret;

	if (!neuron_dma_cpu_wanted(nd, size, src_dev, dst_dev))
		return -EOPNOTSUPP;
	ret = neuron_dma_setup(dma);
	return ret ? ret : neuron_dma_stopped(dma);
}

/* A bounce buffer of @size bytes, or NULL: then the engine does the copy. */
static void *neuron_dma_cpu_bounce(u64 size)
{
	return kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
}

static void neuron_dma_cpu_done(struct neuron_dma *dma, u64 size)
{
	atomic64_inc(&dma->cpu_copies);
	atomic64_add(size, &dma->cpu_bytes);
}

/*
 * Copies of up to this many bytes go through the stack: pinning the pages
 * costs more than copying them twice.
 */
#define NEURON_DMA_CPU_SMALL	256

/* The pages a user buffer of at most NEURON_DMA_CPU_LIMIT bytes spans. */
#define NEURON_DMA_CPU_PAGES	(NEURON_DMA_CPU_LIMIT / PAGE_SIZE + 1)

/*
 * Copy between a user buffer and a chunk through the buffer's pages,
 * pinned whole first: one copy where a bounce buffer takes two, and a bad
 * buffer fails before device memory changes.  Return 1 when the buffer
 * cannot be pinned whole (nothing changed: a bounce buffer is to be used,
 * which also tells a bad buffer from one without pages to pin, such as a
 * mapping of device registers), else as neuron_mem_cpu_io().  A PCI bus
 * takes whole 32-bit words only: when it refuses the first piece (a user
 * buffer not so aligned), nothing changed and 1 says to bounce; when it
 * refuses a later one (-EOPNOTSUPP), the pieces before it were copied, and
 * the engine then copies it all.
 */
static int neuron_dma_cpu_pinned(struct neuron_mem_chunk *mc, u64 off, unsigned long ubuf,
				 u64 size, bool to_chunk)
{
	struct page *pages[NEURON_DMA_CPU_PAGES];
	unsigned int po = offset_in_page(ubuf);
	int npages = DIV_ROUND_UP(po + size, PAGE_SIZE), pinned, i, ret = 0;

	if (npages > ARRAY_SIZE(pages))
		return 1;
	pinned = pin_user_pages_fast(ubuf & PAGE_MASK, npages, to_chunk ? 0 : FOLL_WRITE, pages);
	if (pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(pages, pinned);
		return 1;
	}
	for (i = 0; i < npages && !ret; i++) {
		size_t n = min_t(u64, size, PAGE_SIZE - po);
		void *p = kmap_local_page(pages[i]);

		ret = neuron_mem_cpu_io(mc, off, p + po, n, to_chunk);
		/* The bus may take the copy in one piece from a bounce buffer. */
		if (ret == -EOPNOTSUPP && !i)
			ret = 1;
		if (!ret && !to_chunk)
			flush_dcache_page(pages[i]);
		kunmap_local(p);
		off += n;
		size -= n;
		po = 0;
	}
	/* Also after a refused piece: the pieces before it were written. */
	unpin_user_pages_dirty_lock(pages, npages, !to_chunk);
	return ret;
}

/*
 * Copy straight between the user buffer and device memory where the bus
 * can (neuron_mem_cpu_user_io()): no pinning and one copy.  A buffer copied
 * into device memory is faulted in whole first, so that a bad one fails
 * before device memory changes.  Return 0 when all is copied, -EFAULT for
 * a bad buffer, -EOPNOTSUPP when the bus cannot (nothing changed); or 1
 * when a page was not there (reclaimed since, or never touched for a copy
 * out of device memory), with *@done bytes copied: the rest is for the
 * pinned path, which takes the faults.
 */
static int neuron_dma_cpu_direct(struct neuron_mem_chunk *mc, u64 off, void __user *buf,
				 u64 size, bool to_chunk, size_t *done)
{
	int ret;

	if (!READ_ONCE(neuron_dma_cpu_direct_on))
		return -EOPNOTSUPP;
	if (to_chunk && fault_in_readable(buf, size))
		return -EFAULT;
	ret = neuron_mem_cpu_user_io(mc, off, buf, size, to_chunk, done);
	return ret == -EFAULT ? 1 : ret;
}

/**
 * neuron_dma_cpu_user() - copy between a user buffer and a chunk with the CPU
 * @nd: the device
 * @mc: the chunk (a reference the caller holds), a device chunk
 * @off: byte offset in it; the caller checked the range
 * @buf: user buffer; the caller checked it with access_ok()
 * @size: bytes
 * @to_chunk: from @buf into the chunk, else the other way
 *
 * Up to NEURON_DMA_CPU_SMALL bytes go through a buffer on the stack.  A
 * larger buffer is copied straight to or from where the bus can, without
 * page faults; what that leaves (a page not there, or a bus that cannot)
 * has its pages pinned and copied to or from directly, or, when it has no
 * pages to pin, goes through a bounce buffer.  Only a buffer taken from
 * under the copy by its own process (munmap() between the fault-in and
 * the copy) can leave device memory partly written.
 *
 * Return: -EOPNOTSUPP when the copy is not for the CPU (nothing changed:
 * the engine is to do it); else 0, -EFAULT, or the errors the engine's
 * path gives before it moves anything (neuron_dma_setup(),
 * neuron_dma_stopped()).
 */
int neuron_dma_cpu_user(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			void __user *buf, u64 size, bool to_chunk)
{
	u8 small[NEURON_DMA_CPU_SMALL];
	u64 total = size;
	void *kbuf = small;
	size_t done;
	int ret;

	ret = neuron_dma_cpu_start(nd, size, !to_chunk, to_chunk);
	if (ret)
		return ret;
	if (size > sizeof(small)) {
		ret = neuron_dma_cpu_direct(mc, off, buf, size, to_chunk, &done);
		if (ret <= 0 && ret != -EOPNOTSUPP)
			goto out;
		if (ret > 0) {
			/* The bytes before the missing page are in place. */
			off += done;
			buf += done;
			size -= done;
		}
		ret = neuron_dma_cpu_pinned(mc, off, (uintptr_t)buf, size, to_chunk);
		if (ret <= 0)
			goto out;
		kbuf = neuron_dma_cpu_bounce(size);
		if (!kbuf)
			return -EOPNOTSUPP;
	}
	if (to_chunk) {
		/* All of the buffer, before device memory changes. */
		ret = copy_from_user(kbuf, buf, size) ? -EFAULT :
		      neuron_mem_cpu_io(mc, off, kbuf, size, true);
	} else {
		ret = neuron_mem_cpu_io(mc, off, kbuf, size, false);
		if (!ret && copy_to_user(buf, kbuf, size))
			ret = -EFAULT;
	}
	if (kbuf != small)
		kfree(kbuf);
out:
	if (!ret)
		neuron_dma_cpu_done(neuron_dma_of(nd), total);
	return ret;
}

/**
 * neuron_dma_cpu_copy() - copy between two chunks with the CPU
 * @nd: the device
 * @src: source chunk (a reference the caller holds)
 * @src_off: byte offset in @src
 * @dst: destination chunk (likewise)
 * @dst_off: byte offset in @dst
 * @size: bytes; the caller checked both ranges
 *
 * The source is read whole before the destination is written, so
 * overlapping ranges copy as memmove() does.
 *
 * Return: -EOPNOTSUPP when the copy is not for the CPU (nothing changed);
 * else 0 or the errors of neuron_dma_cpu_user() but -EFAULT.
 */
int neuron_dma_cpu_copy(struct neuron_device *nd, struct neuron_mem_chunk *src, u64 src_off,
			struct neuron_mem_chunk *dst, u64 dst_off, u64 size)
{
	void *kbuf;
	int ret;

	ret = neuron_dma_cpu_start(nd, size, neuron_dma_on_dev(src), neuron_dma_on_dev(dst));
	if (ret)
		return ret;
	kbuf = neuron_dma_cpu_bounce(size);
	if (!kbuf)
		return -EOPNOTSUPP;
	ret = neuron_mem_cpu_io(src, src_off, kbuf, size, false);
	if (!ret)
		ret = neuron_mem_cpu_io(dst, dst_off, kbuf, size, true);
	kfree(kbuf);
	if (!ret)
		neuron_dma_cpu_done(neuron_dma_of(nd), size);
	return ret;
}
