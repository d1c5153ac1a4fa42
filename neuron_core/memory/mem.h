/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core's memory layer (memory/): device and host memory, the
 * chunks processes allocate, their handles and their mappings, dma-buf
 * export and peer-direct registrations.  A built-in plane (mem_plane.c):
 * the base layer reaches it only through the plane's callbacks and
 * command table; it uses only the base (base/core.h).
 */
#ifndef _NEURON_CORE_MEM_H
#define _NEURON_CORE_MEM_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <neuron/dhal.h>
#include <neuron/neuron_driver_shared.h>

#include <neuron/mem.h>

#include "base/core.h"
#include "memory/extent.h"

struct dentry;
struct file;
struct mm_struct;
struct neuron_device;
struct neuron_file;
struct pid;
struct vm_area_struct;

/**
 * struct neuron_mem_hbm - the device-memory pool of one HBM channel
 * @range: free space, in device-view addresses
 * @base: device-view address of the pool's first byte
 * @size: bytes in the pool
 * @bar_off: offset of @base in the device-memory BAR
 * @chunks: live chunks in the pool (DUMP_MEM_CHUNKS counts without a walk)
 */
struct neuron_mem_hbm {
	struct neuron_extent_pool range;
	u64 base;
	u64 size;
	u64 bar_off;
	unsigned long chunks;
};

/* Processes that can hold handles on one device at once (its attach slots). */
#define NEURON_MEM_OWNERS	16

/**
 * struct neuron_mem_owner - what one process's handles hold on a device
 * @tgid: the process; not a reference (its handles' chunks hold one)
 * @bytes: bytes per location (index NEURON_MEM_HOST - 1,
 *	NEURON_MEM_DEVICE - 1); the entry is free when both are 0
 */
struct neuron_mem_owner {
	struct pid *tgid;
	u64 bytes[2];
};

/**
 * struct neuron_mem - a device's memory state
 * @lock: protects everything below but @ready and @p2p_busy (chunk
 *	refcounts are atomic)
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
 * @dmabufs: the device's live dma-bufs (struct neuron_dmabuf), so that
 *	removal finds and zaps their user mappings
 * @owners: what each process's handles hold, so that reports and the
 *	per-process limit never walk the chunks
 * @held_bytes: device memory taken aside by neuron_mem_hold_next() and not
 *	given back yet (the pieces HBM scrubs are filling)
 * @p2p_busy: peer-direct registrations of the device whose free callback
 *	is about to run or running (under neuron_p2p_lock, p2p.c)
 */
struct neuron_mem {
	/* Protects the pools, @handles, @by_pa, @gone, @owners, @dmabufs, the counters. */
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
	struct list_head dmabufs;
	struct neuron_mem_owner owners[NEURON_MEM_OWNERS];
	u64 held_bytes;
	unsigned int p2p_busy;
};

/* mem_plane.c */
int neuron_mem_layer_init(void);
void neuron_mem_layer_exit(void);

/* mem.c */
int neuron_mem_init(struct neuron_device *nd);
int neuron_mem_setup(struct neuron_device *nd);
void neuron_mem_device_gone(struct neuron_device *nd);
void neuron_mem_host_free_all(struct neuron_device *nd);
void neuron_dmabuf_zap_locked(struct neuron_device *nd);
void neuron_mem_fini(struct neuron_device *nd);
void neuron_mem_debugfs_add(struct neuron_device *nd);

int neuron_mem_free_handle(struct neuron_device *nd, u64 handle);
int neuron_mem_handle_give(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 *handle);
void neuron_mem_detach_locked(struct neuron_device *nd, struct pid *tgid);
void neuron_mem_usage(struct neuron_device *nd, struct pid *tgid, __kernel_size_t *host,
		      __kernel_size_t *device);
int neuron_mem_mmap(struct neuron_file *nf, struct vm_area_struct *vma, u64 start, u64 len);
int neuron_mem_mmap_chunk(struct neuron_file *nf, struct vm_area_struct *vma,
			  struct neuron_mem_chunk *mc, u64 start, u64 len, bool rdonly);
void neuron_mem_app_info(struct neuron_device *nd, struct pid *tgid, u16 flags,
			 struct neuron_app_info *app);

/*
 * What every mapping of the device's memory is: fixed in size, left out of
 * core dumps and not inherited across fork().  VM_IO as well, because it is
 * what makes the kernel refuse MADV_DOFORK (which would clear VM_DONTCOPY)
 * and keeps get_user_pages() and ptrace access off driver memory.
 */
#define NEURON_VM_FLAGS	(VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY)

int neuron_mem_mmap_bar(struct neuron_file *nf, struct vm_area_struct *vma, unsigned int bar,
			u64 off, bool rdonly);
bool neuron_mem_is_chunk_vma(struct vm_area_struct *vma);
struct neuron_mem_chunk *neuron_mem_mapped_chunk(struct mm_struct *mm, u64 va, u64 end, u64 *off);

/* Peer-direct registrations (p2p.c). */
void neuron_p2p_vma_close(struct vm_area_struct *vma);
void neuron_p2p_device_gone(struct neuron_device *nd);
int neuron_mem_dump(struct neuron_device *nd, u32 hbm, struct neuron_ioctl_mem_chunk_info *out,
		    u32 capacity, u32 *written, u32 *total);

/* Command handlers, listed in the plane's table (mem_plane.c) */
/* mem_ioctl.c: memory */
long neuron_ioctl_mem_alloc(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2mt(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2mt64(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_alloc_v2mt64_pa(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_free(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_get_pa(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_get_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_get_extended_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_mc_get_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_mem_mc_get_info_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dump_mem_chunks(struct neuron_file *nf, void __user *arg);

/* dmabuf.c: dma-buf export */
long neuron_ioctl_dmabuf_fd(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_dmabuf_fd_v2(struct neuron_file *nf, void __user *arg);

long neuron_ioctl_va_placement(struct neuron_file *nf, void __user *arg);

#endif /* _NEURON_CORE_MEM_H */
