/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core private: device and host memory, the chunks processes
 * allocate, their handles and their mappings (mem.c, ioctl_mem.c).
 */
#ifndef _NEURON_CORE_MEM_H
#define _NEURON_CORE_MEM_H

#include <linux/kref.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <neuron/dhal.h>
#include <neuron/neuron_driver_shared.h>

#include "mem_range.h"

struct dentry;
struct file;
struct neuron_device;
struct pid;
struct vm_area_struct;

/* Where a chunk lives (the values of the ABI's host_memory flag + 1). */
enum neuron_mem_location {
	NEURON_MEM_HOST = 1,
	NEURON_MEM_DEVICE = 2,
};

/**
 * struct neuron_mem_chunk - one allocation
 * @ref: references: the handle (until MEM_FREE or the owner detaches),
 *	each mapping, each in-flight ioctl using it, each dma-buf
 * @nd: the device; the chunk holds a reference on &neuron_device.dev
 * @owner: the allocating process (a pid reference)
 * @handle: what user space names it by; 0 once the handle is gone
 * @pa: device-view address: an HBM address, or for host memory the DMA
 *	address with the generation's host bit
 * @size: bytes, a multiple of PAGE_SIZE
 * @location: NEURON_MEM_HOST or NEURON_MEM_DEVICE
 * @hbm: HBM channel of a device chunk
 * @nc_id: core it is accounted to
 * @mem_type: category (mem_alloc_category_t) as reported back
 * @acct_type: category it is accounted under (the location's UNKNOWN type
 *	when @mem_type belongs to the other location)
 * @bar_off: offset of a device chunk in the device-memory BAR
 * @va: kernel address of a host chunk's pages
 * @dma: DMA address of a host chunk; valid while @dma_mapped
 * @dma_mapped: @dma is mapped for the device (cleared when the device goes)
 */
struct neuron_mem_chunk {
	struct kref ref;
	struct neuron_device *nd;
	struct pid *owner;
	u64 handle;
	u64 pa;
	u64 size;
	u8 location;
	u8 hbm;
	u8 nc_id;
	u8 mem_type;
	u8 acct_type;
	u64 bar_off;
	void *va;
	dma_addr_t dma;
	bool dma_mapped;
};

/**
 * struct neuron_mem_hbm - the device-memory pool of one HBM channel
 * @range: free space, in device-view addresses
 * @base: device-view address of the pool's first byte
 * @size: bytes in the pool
 * @bar_off: offset of @base in the device-memory BAR
 */
struct neuron_mem_hbm {
	struct neuron_range_pool range;
	u64 base;
	u64 size;
	u64 bar_off;
};

/**
 * struct neuron_mem - a device's memory state
 * @lock: protects everything below but @ready (chunk refcounts are atomic)
 * @ready: pools set up (written once under @lock before the device node
 *	exists; read without it afterwards)
 * @bar: index of the device-memory BAR
 * @hbm_count: HBM channels with a pool
 * @hbm: the pools
 * @host_base: the generation's host-address bit
 * @nc_count: cores of the device (for nc_id checks)
 * @handles: handle index -> chunk, for chunks that still have a handle
 * @by_pa: [pa, pa + size) -> chunk, for every live chunk
 * @gone: the device was removed: host chunks are no longer DMA-mapped and
 *	no new chunk is made
 * @bytes: bytes allocated per location (index NEURON_MEM_HOST - 1,
 *	NEURON_MEM_DEVICE - 1)
 * @type_bytes: bytes allocated per accounting category
 * @chunks: live chunks
 * @nr_handles: live handles
 * @debugfs: the device's debugfs directory
 */
struct neuron_mem {
	/* Protects the pools, @handles, @by_pa, @gone and the counters. */
	struct mutex lock;
	bool ready;
	unsigned int bar;
	unsigned int hbm_count;
	struct neuron_mem_hbm hbm[NEURON_MAX_HBM];
	u64 host_base;
	u32 nc_count;
	struct xarray handles;
	struct maple_tree by_pa;
	bool gone;
	u64 bytes[2];
	u64 type_bytes[NEURON_MEMALLOC_TYPE_MAX];
	unsigned long chunks;
	unsigned long nr_handles;
	struct dentry *debugfs;
};

/**
 * struct neuron_mem_request - what an allocation ioctl asks for
 * @size: bytes (rounded up to a page by the allocator)
 * @align: alignment (0: none); host memory takes none
 * @host: host memory rather than device memory
 * @hbm: HBM channel
 * @region: region within the channel (only 0 exists)
 * @nc_id: core it is accounted to
 * @mem_type: category (mem_alloc_category_t)
 */
struct neuron_mem_request {
	u64 size;
	u64 align;
	bool host;
	u32 hbm;
	u32 region;
	u32 nc_id;
	u32 mem_type;
};

void neuron_mem_init(struct neuron_device *nd);
int neuron_mem_setup(struct neuron_device *nd);
void neuron_mem_device_gone(struct neuron_device *nd);
void neuron_mem_fini(struct neuron_device *nd);
void neuron_mem_debugfs_add(struct neuron_device *nd);
void neuron_mem_debugfs_remove(struct neuron_device *nd);
int neuron_mem_debugfs_init(void);
void neuron_mem_debugfs_exit(void);

int neuron_mem_alloc(struct neuron_device *nd, const struct neuron_mem_request *req,
		     struct neuron_mem_chunk **out);
int neuron_mem_free_handle(struct neuron_device *nd, u64 handle);
struct neuron_mem_chunk *neuron_mem_get(struct neuron_device *nd, u64 handle);
struct neuron_mem_chunk *neuron_mem_get_by_pa(struct neuron_device *nd, u64 pa);
void neuron_mem_put(struct neuron_mem_chunk *mc);
void neuron_mem_detach_locked(struct neuron_device *nd, struct pid *tgid);
void neuron_mem_usage(struct neuron_device *nd, struct pid *tgid, __kernel_size_t *host,
		      __kernel_size_t *device);
int neuron_mem_mmap(struct file *file, struct vm_area_struct *vma);
bool neuron_mem_is_chunk_vma(struct vm_area_struct *vma);
int neuron_mem_dump(struct neuron_device *nd, u32 hbm, struct neuron_ioctl_mem_chunk_info *out,
		    u32 capacity, u32 *total);

/**
 * struct neuron_mem_hold - a free range of an HBM channel, taken aside
 * @pa: device-view address of its first byte
 * @size: bytes
 */
struct neuron_mem_hold {
	u64 pa;
	u64 size;
};

int neuron_mem_hold_free(struct neuron_device *nd, u32 hbm, struct neuron_mem_hold **out,
			 unsigned int *n);
void neuron_mem_unhold(struct neuron_device *nd, u32 hbm, struct neuron_mem_hold *holds,
		       unsigned int n);

/**
 * neuron_mem_range_ok() - does [@off, @off + @size) lie inside @mc?
 * @mc: a chunk
 * @off: offset in it
 * @size: bytes
 *
 * Return: true when the range neither overflows nor runs past the end.
 */
static inline bool neuron_mem_range_ok(const struct neuron_mem_chunk *mc, u64 off, u64 size)
{
	u64 end;

	return !check_add_overflow(off, size, &end) && end <= mc->size;
}

#endif /* _NEURON_CORE_MEM_H */
