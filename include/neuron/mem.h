/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What neuron_core offers planes of its memory: the chunks processes
 * allocate (looked up by handle or device address, with a reference), and
 * the free space of an HBM channel taken aside, a piece at a time, for a
 * fill.  Pools,
 * handles, mmap and dma-buf stay in the core.
 */
#ifndef _NEURON_MEM_H
#define _NEURON_MEM_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/types.h>

struct neuron_device;
struct pid;

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
 * @va: kernel address of a host chunk's coherent memory; valid while
 *	@dma_mapped
 * @dma: its DMA address; likewise
 * @dma_mapped: the host chunk has its memory (given back, and cleared, at
 *	its last reference or when the device goes)
 * @p2p: peer-direct registrations of its mappings (neuron_core's p2p.c,
 *	under its lock); each holds a reference
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
	struct list_head p2p;
};

/**
 * struct neuron_mem_hold - a piece of an HBM channel's free memory, taken aside
 * @pa: device-view address of its first byte
 * @size: bytes
 */
struct neuron_mem_hold {
	u64 pa;
	u64 size;
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
 * @driver: a chunk the driver keeps for the caller, without a handle
 *	(neuron_core only: datastores, notification queues)
 */
struct neuron_mem_request {
	u64 size;
	u64 align;
	bool host;
	u32 hbm;
	u32 region;
	u32 nc_id;
	u32 mem_type;
	bool driver;
};

int neuron_mem_alloc(struct neuron_device *nd, const struct neuron_mem_request *req,
		     struct neuron_mem_chunk **out);
struct neuron_mem_chunk *neuron_mem_get(struct neuron_device *nd, u64 handle);
struct neuron_mem_chunk *neuron_mem_get_by_pa(struct neuron_device *nd, u64 pa);
void neuron_mem_put(struct neuron_mem_chunk *mc);
int neuron_mem_hold_next(struct neuron_device *nd, u32 hbm, u64 from, u64 most,
			 struct neuron_mem_hold *hold);
void neuron_mem_unhold(struct neuron_device *nd, u32 hbm, const struct neuron_mem_hold *hold);
u32 neuron_mem_hbm_count(struct neuron_device *nd);
u32 neuron_mem_cpu_max(struct neuron_device *nd, bool to_dev);
int neuron_mem_cpu_io(struct neuron_mem_chunk *mc, u64 off, void *buf, size_t len,
		      bool to_chunk);
int neuron_mem_cpu_user_io(struct neuron_mem_chunk *mc, u64 off, void __user *ubuf, size_t len,
			   bool to_chunk, size_t *done);

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

#endif /* _NEURON_MEM_H */
