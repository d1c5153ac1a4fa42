/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Neuron accelerator userspace ABI: ioctl commands on /dev/neuronN.
 *
 * This is a drop-in ABI replacement for the headers of the out-of-tree
 * aws-neuronx-dkms 2.27.4.0 driver: every command has the same 32-bit
 * value, and every argument struct has the same size, field names and field
 * offsets, so the existing Neuron runtime and tools work unchanged.
 *
 * Conventions of this header (see Documentation/uapi.rst):
 *
 * - Layouts are fixed for LP64.  x86_64 and arm64 give identical results;
 *   the driver has no compat_ioctl, so 32-bit processes are not supported.
 *   selftests/abi/ checks every value, size and offset against the
 *   reference driver's compiled ABI.
 *
 * - Pointer fields.  Where the reference has a user pointer (void *, a
 *   pointer to a 64-bit integer, struct foo *, ...) this header keeps the
 *   same pointer type.  On LP64 a pointer has the size and alignment of a
 *   64-bit integer, so the layout is exactly that of a 64-bit integer
 *   field, and callers keep assigning addresses without casts, as they do
 *   today.
 *
 * - Encoded sizes.  Many commands encode the size of a pointer (8) rather
 *   than the size of their argument struct, because the reference wrote a
 *   pointer type in the _IOx() macro.  Those macros are reproduced as
 *   written so the values match; the ioctl argument is still the address
 *   of the struct itself.  Several families share one command number and
 *   differ only in the encoded size (MEM_COPY/MEM_COPY64, ...).
 *
 * - Direction bits are historical and often do not describe the data flow
 *   (most commands are _IOR even when the driver only reads the argument).
 *   Treat each 32-bit value as an opaque command identifier.
 *
 * - The declaration with a flexible array member starts with
 *   __extension__ so that the header also compiles cleanly as C89 and as
 *   C++ with -pedantic.
 *
 * - Implicit padding.  Some structs have holes or tail padding, noted in
 *   their documentation.  User space should zero an argument before
 *   filling it; the driver zeroes what it copies back.
 */
#ifndef _UAPI_NEURON_IOCTL_H
#define _UAPI_NEURON_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#include "neuron_driver_shared.h"

/*
 * ---------------------------------------------------------------------
 * Memory allocation and access
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_mem_alloc - allocate device or host memory (legacy)
 * @size: In. Size in bytes; rounded up to a page.
 * @host_memory: In. Non-zero for host memory, zero for device memory.
 * @dram_channel: In. Device memory channel (HBM) to allocate from.
 * @dram_region: In. Region within the channel.
 * @nc_id: In. Core the allocation is accounted to.
 * @mem_handle: In. User address where the driver stores the new 64-bit
 *	memory handle.
 *
 * NEURON_IOCTL_MEM_ALLOC.
 */
struct neuron_ioctl_mem_alloc {
	__u64 size;
	__u32 host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 nc_id;
	__u64 *mem_handle;
};

/**
 * struct neuron_ioctl_mem_alloc_v2 - allocate memory with an alignment
 * @size: In. Size in bytes; rounded up to a page.
 * @align: In. Required alignment in bytes; must be zero for host memory.
 * @host_memory: In. Non-zero for host memory, zero for device memory.
 * @dram_channel: In. Device memory channel (HBM) to allocate from.
 * @dram_region: In. Region within the channel.
 * @nc_id: In. Core the allocation is accounted to.
 * @mem_handle: In. User address where the driver stores the new handle.
 *
 * NEURON_IOCTL_MEM_ALLOC_V2.
 */
struct neuron_ioctl_mem_alloc_v2 {
	__u64 size;
	__u64 align;
	__u32 host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 nc_id;
	__u64 *mem_handle;
};

/**
 * struct neuron_ioctl_mem_alloc_v2_mem_type - allocate typed memory
 * @size: In. Size in bytes; rounded up to a page.
 * @align: In. Required alignment in bytes; must be zero for host memory.
 * @host_memory: In. Non-zero for host memory, zero for device memory.
 * @dram_channel: In. Device memory channel (HBM) to allocate from.
 * @dram_region: In. Region within the channel.
 * @nc_id: In. Core the allocation is accounted to.
 * @mem_type: In. What the memory is for (mem_alloc_category_t).
 * @mem_handle: In. User address where the driver stores the new handle.
 *
 * NEURON_IOCTL_MEM_ALLOC_V2MT.  4 padding bytes precede @mem_handle.
 */
struct neuron_ioctl_mem_alloc_v2_mem_type {
	__u64 size;
	__u64 align;
	__u32 host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 nc_id;
	__u32 mem_type;
	__u64 *mem_handle;
};

/**
 * struct neuron_ioctl_mem_alloc_v2_mem_type64 - allocate typed memory,
 * 56-byte form
 * @size: In. Size in bytes; rounded up to a page.
 * @align: In. Required alignment in bytes; must be zero for host memory.
 * @host_memory: In. Non-zero for host memory, zero for device memory.
 * @dram_channel: In. Device memory channel (HBM) to allocate from.
 * @dram_region: In. Region within the channel.
 * @nc_id: In. Core the allocation is accounted to.
 * @mem_type: In. What the memory is for (mem_alloc_category_t).
 * @mem_handle: In. User address where the driver stores the new handle.
 * @pad: Reserved, set to zero.
 *
 * NEURON_IOCTL_MEM_ALLOC_V2MT64; its size (56) is what tells it apart from
 * the 48-byte form on the same command number.  4 padding bytes precede
 * @mem_handle and 4 follow @pad.
 */
struct neuron_ioctl_mem_alloc_v2_mem_type64 {
	__u64 size;
	__u64 align;
	__u32 host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 nc_id;
	__u32 mem_type;
	__u64 *mem_handle;
	__u32 pad;
};

/**
 * struct neuron_ioctl_mem_alloc_v2_mem_type64_pa - allocate typed memory
 * and learn its physical address, 64-byte form (driver 2.28)
 * @size: In. Size in bytes; rounded up to a page.
 * @align: In. Required alignment in bytes; must be zero for host memory.
 * @host_memory: In. Non-zero for host memory, zero for device memory.
 * @hbm_index: In. Device memory channel (HBM) to allocate from (spelled
 *	@dram_channel before 2.29; both names work).
 * @dram_channel: The 2.28 name of @hbm_index.
 * @dram_region_unused: In. Ignored (spelled @dram_region before 2.29).
 * @dram_region: The 2.28 name of @dram_region_unused.
 * @nc_id: In. Core the allocation is accounted to.
 * @mem_type: In. What the memory is for (mem_alloc_category_t).
 * @mem_handle: In. User address where the driver stores the new handle.
 * @pad: Reserved, set to zero.
 * @pa: Out. The memory's physical address as the device sees it (host
 *	memory with the generation's host-address bit).
 *
 * NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, the fourth command of number 102.  The
 * driver writes the whole struct back, its padding (4 bytes before
 * @mem_handle, 4 before @pa) zeroed.
 */
struct neuron_ioctl_mem_alloc_v2_mem_type64_pa {
	__u64 size;
	__u64 align;
	__u32 host_memory;
	union {
		__u32 hbm_index;
		__u32 dram_channel;
	};
	union {
		__u32 dram_region_unused;
		__u32 dram_region;
	};
	__u32 nc_id;
	__u32 mem_type;
	__u64 *mem_handle;
	__u32 pad;
	__u64 pa;
};

/**
 * struct neuron_ioctl_host_mem_pin - pin a range of the caller's memory
 * (driver 2.28)
 * @va: In. First byte.
 * @size: In. Bytes.
 * @pa: Out. Physical address of @va as the device sees it when the range
 *	is physically contiguous, else all ones.
 *
 * NEURON_IOCTL_HOST_MEM_PIN.
 */
struct neuron_ioctl_host_mem_pin {
	__u64 va;
	__u64 size;
	__u64 pa;
};

/**
 * struct neuron_ioctl_host_mem_unpin - unpin what HOST_MEM_PIN pinned
 * @va: In. The pinned range's first byte, exactly.
 *
 * NEURON_IOCTL_HOST_MEM_UNPIN.
 */
struct neuron_ioctl_host_mem_unpin {
	__u64 va;
};

/**
 * struct neuron_ioctl_device_init - device initialisation (no-op)
 * @mem_regions: In. Unused.
 *
 * NEURON_IOCTL_DEVICE_INIT.
 */
struct neuron_ioctl_device_init {
	__u32 mem_regions;
};

/**
 * struct neuron_ioctl_device_reset - reset a set of cores
 * @nc_map: In. Bitmap of the cores to reset, or NEURON_NC_MAP_DEVICE.
 * @request_id: Out. Id to pass to NEURON_IOCTL_NC_RESET_READY.
 *
 * NEURON_IOCTL_NC_RESET.
 */
struct neuron_ioctl_device_reset {
	__u32 nc_map;
	__u32 request_id;
};

/**
 * struct neuron_ioctl_device_ready - wait for a reset to finish
 * @request_id: In. Id returned by NEURON_IOCTL_NC_RESET.
 * @result: Out. 0 if the reset succeeded, non-zero otherwise.
 *
 * NEURON_IOCTL_NC_RESET_READY.
 */
struct neuron_ioctl_device_ready {
	__u32 request_id;
	__s32 result;
};

/**
 * struct neuron_ioctl_mem_get_info - physical address and mmap offset of a
 * memory handle
 * @mem_handle: In. The memory handle.
 * @mmap_offset: In. User address where the driver stores the offset to
 *	pass to mmap() to map the memory; may be NULL.
 * @pa: In. User address where the driver stores the physical address.
 *
 * NEURON_IOCTL_MEM_GET_INFO.
 */
struct neuron_ioctl_mem_get_info {
	__u64 mem_handle;
	__u64 *mmap_offset;
	__u64 *pa;
};

/**
 * struct neuron_ioctl_get_apps_info - list the processes using the device
 * @apps_info_flags: In. What to report (APP_INFO_* bits).
 * @capacity: In. Number of elements the caller allocated in @app_data.
 * @size: Out. Number of elements filled.
 * @app_data: Out. One element per process.
 *
 * NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO.  2 padding bytes follow
 * @apps_info_flags and 4 precede @app_data.
 */
__extension__ struct neuron_ioctl_get_apps_info {
	__u16 apps_info_flags;
	__u32 capacity;
	__u32 size;
	struct neuron_app_info app_data[];
};

/**
 * struct neuron_ioctl_mem_get_pa - physical address of a memory handle
 * @mem_handle: In. The memory handle.
 * @pa: In. User address where the driver stores the physical address.
 *
 * NEURON_IOCTL_MEM_GET_PA.
 */
struct neuron_ioctl_mem_get_pa {
	__u64 mem_handle;
	__u64 *pa;
};

/**
 * struct neuron_ioctl_mem_get_extended_info - everything about a memory
 * handle
 * @mem_handle: In. The memory handle.
 * @version: Version of this structure.
 * @host_memory: Out. Non-zero for host memory.
 * @mmap_offset: Out. Offset to pass to mmap() to map the memory.
 * @pa: Out. Physical address.
 * @pid: Out. Process that allocated the memory.
 * @size: Out. Size in bytes.
 *
 * NEURON_IOCTL_MEM_GET_EXTENDED_INFO.
 */
struct neuron_ioctl_mem_get_extended_info {
	__u64 mem_handle;
	__u32 version;
	__u32 host_memory;
	__u64 mmap_offset;
	__u64 pa;
	__u64 pid;
	__u64 size;
};

/**
 * struct neuron_ioctl_mem_free - free a memory handle
 * @mem_handle: In. The handle to free.
 *
 * NEURON_IOCTL_MEM_FREE.
 */
struct neuron_ioctl_mem_free {
	__u64 mem_handle;
};

/**
 * struct neuron_ioctl_mem_copy - copy between two memory handles
 * @src_mem_handle: In. Source handle.
 * @dst_mem_handle: In. Destination handle.
 * @size: In. Bytes to copy.
 * @src_offset: In. Byte offset in the source.
 * @dst_offset: In. Byte offset in the destination.
 *
 * NEURON_IOCTL_MEM_COPY.  4 bytes of tail padding.
 */
struct neuron_ioctl_mem_copy {
	__u64 src_mem_handle;
	__u64 dst_mem_handle;
	__u32 size;
	__u32 src_offset;
	__u32 dst_offset;
};

/**
 * struct neuron_ioctl_mem_copy64 - copy between two memory handles, 64-bit
 * sizes
 * @src_mem_handle: In. Source handle.
 * @dst_mem_handle: In. Destination handle.
 * @size: In. Bytes to copy.
 * @src_offset: In. Byte offset in the source.
 * @dst_offset: In. Byte offset in the destination.
 *
 * NEURON_IOCTL_MEM_COPY64.
 */
struct neuron_ioctl_mem_copy64 {
	__u64 src_mem_handle;
	__u64 dst_mem_handle;
	__u64 size;
	__u64 src_offset;
	__u64 dst_offset;
};

/**
 * struct neuron_ioctl_mem_copy_async - start an asynchronous copy
 * @src_mem_handle: In. Source handle.
 * @dst_mem_handle: In. Destination handle.
 * @size: In. Bytes to copy.
 * @src_offset: In. Byte offset in the source.
 * @dst_offset: In. Byte offset in the destination.
 * @host_prefetch_addr: In. Host address to prefetch for the copy, or 0.
 * @pwait_handle: In. Earlier copy to wait for before starting, or
 *	NEURON_DMA_H2T_CTX_HANDLE_NONE.
 * @wait_handle: Out. Handle to wait on for this copy.
 *
 * NEURON_IOCTL_MEM_COPY_ASYNC.  4 padding bytes precede
 * @host_prefetch_addr.
 */
struct neuron_ioctl_mem_copy_async {
	__u64 src_mem_handle;
	__u64 dst_mem_handle;
	__u32 size;
	__u32 src_offset;
	__u32 dst_offset;
	__u64 host_prefetch_addr;
	__u32 pwait_handle;
	__u32 wait_handle;
};

/**
 * struct neuron_ioctl_mem_copy_async64 - start an asynchronous copy,
 * 64-bit sizes
 * @src_mem_handle: In. Source handle.
 * @dst_mem_handle: In. Destination handle.
 * @size: In. Bytes to copy.
 * @src_offset: In. Byte offset in the source.
 * @dst_offset: In. Byte offset in the destination.
 * @host_prefetch_addr: In. Host address to prefetch for the copy, or 0.
 * @pwait_handle: In. Earlier copy to wait for before starting, or
 *	NEURON_DMA_H2T_CTX_HANDLE_NONE.
 * @wait_handle: Out. Handle to wait on for this copy.
 *
 * NEURON_IOCTL_MEM_COPY_ASYNC64.
 */
struct neuron_ioctl_mem_copy_async64 {
	__u64 src_mem_handle;
	__u64 dst_mem_handle;
	__u64 size;
	__u64 src_offset;
	__u64 dst_offset;
	__u64 host_prefetch_addr;
	__u32 pwait_handle;
	__u32 wait_handle;
};

/**
 * struct neuron_ioctl_mem_copy_async_wait - wait for an asynchronous copy
 * @src_mem_handle: In. Source handle of the copy.
 * @dst_mem_handle: In. Destination handle of the copy.
 * @pwait_handle: In. The wait handle the copy returned.
 *
 * NEURON_IOCTL_MEM_COPY_ASYNC_WAIT.  4 bytes of tail padding.
 */
struct neuron_ioctl_mem_copy_async_wait {
	__u64 src_mem_handle;
	__u64 dst_mem_handle;
	__u32 pwait_handle;
};

/**
 * struct neuron_ioctl_memset - fill memory with a byte value
 * @mem_handle: In. Memory handle.
 * @offset: In. Byte offset of the range.
 * @value: In. Fill value; only the low byte is used.
 * @size: In. Bytes to fill.
 *
 * NEURON_IOCTL_MEMSET.
 */
struct neuron_ioctl_memset {
	__u64 mem_handle;
	__u64 offset;
	__u32 value;
	__u32 size;
};

/**
 * struct neuron_ioctl_memset64 - fill memory with a byte value, 64-bit size
 * @mem_handle: In. Memory handle.
 * @offset: In. Byte offset of the range.
 * @value: In. Fill value; only the low byte is used.
 * @size: In. Bytes to fill.
 *
 * NEURON_IOCTL_MEMSET64.  4 padding bytes precede @size.
 */
struct neuron_ioctl_memset64 {
	__u64 mem_handle;
	__u64 offset;
	__u32 value;
	__u64 size;
};

/**
 * struct neuron_ioctl_mem_buf_copy - copy between a user buffer and memory
 * @mem_handle: In. Memory handle.
 * @buffer: In. User buffer.
 * @size: In. Bytes to copy.
 * @offset: In. Byte offset in the memory.
 * @copy_to_mem_handle: In. Non-zero to copy from @buffer into the memory,
 *	zero to copy the other way.
 *
 * NEURON_IOCTL_MEM_BUF_COPY.  4 bytes of tail padding.
 */
struct neuron_ioctl_mem_buf_copy {
	__u64 mem_handle;
	void *buffer;
	__u32 size;
	__u32 offset;
	__u32 copy_to_mem_handle;
};

/**
 * struct neuron_ioctl_mem_buf_copy64 - copy between a user buffer and
 * memory, 64-bit sizes
 * @mem_handle: In. Memory handle.
 * @buffer: In. User buffer.
 * @size: In. Bytes to copy.
 * @offset: In. Byte offset in the memory.
 * @copy_to_mem_handle: In. Non-zero to copy from @buffer into the memory,
 *	zero to copy the other way.
 *
 * NEURON_IOCTL_MEM_BUF_COPY64.  4 bytes of tail padding.
 */
struct neuron_ioctl_mem_buf_copy64 {
	__u64 mem_handle;
	void *buffer;
	__u64 size;
	__u64 offset;
	__u32 copy_to_mem_handle;
};

/**
 * struct neuron_ioctl_mem_buf_copy64zc - zero-copy transfer between a user
 * buffer and device memory (the 64-byte form, since driver 2.29)
 * @mem_handle: In. Device memory handle.
 * @buffer: In. User buffer.
 * @size: In. Bytes to copy.
 * @offset: In. Byte offset in the device memory.
 * @is_copy_to_device: In. Non-zero for user buffer to device.
 * @bar4_wr_threshold: In. Transfers to the device up to this many bytes may
 *	be written straight through the device memory BAR.
 * @h2t_qid: In. Host-to-device queue to use, or NEURON_DMA_H2T_DEFAULT_QID.
 * @dummy: Reserved, set to zero.
 * @sequence_num: In. 0: the call returns when the transfer is done.
 *	Otherwise the transfer is queued and its end reported by an entry
 *	with this sequence number in the completion queue of @h2t_qid
 *	(struct neuron_h2d_dma_compl_queue).
 * @context: In. Echoed in that completion entry.
 *
 * NEURON_IOCTL_MEM_BUF_ZEROCOPY64.
 */
struct neuron_ioctl_mem_buf_copy64zc {
	__u64 mem_handle;
	void *buffer;
	__u64 size;
	__u64 offset;
	__u32 is_copy_to_device;
	__u32 bar4_wr_threshold;
	__s32 h2t_qid;
	__u32 dummy;
	__u64 sequence_num;
	void *context;
};

/**
 * struct neuron_ioctl_mem_buf_copy64zc_deprecated - the 48-byte form of
 * struct neuron_ioctl_mem_buf_copy64zc that runtimes before 2.33 send
 * @mem_handle: In. Device memory handle.
 * @buffer: In. User buffer.
 * @size: In. Bytes to copy.
 * @offset: In. Byte offset in the device memory.
 * @is_copy_to_device: In. Non-zero for user buffer to device.
 * @bar4_wr_threshold: In. As in the 64-byte form.
 * @h2t_qid: In. Host-to-device queue to use, or NEURON_DMA_H2T_DEFAULT_QID.
 * @dummy: Reserved, set to zero.
 *
 * NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED: the same transfer as the
 * 64-byte form with @sequence_num 0 (the reference from 2.29 on refuses
 * it; this driver keeps serving it).
 */
struct neuron_ioctl_mem_buf_copy64zc_deprecated {
	__u64 mem_handle;
	void *buffer;
	__u64 size;
	__u64 offset;
	__u32 is_copy_to_device;
	__u32 bar4_wr_threshold;
	__s32 h2t_qid;
	__u32 dummy;
};

/**
 * struct neuron_ioctl_mem_buf_copy64zc_batches - batched zero-copy transfer
 * @sequence_num: In. Caller's sequence number for the request, reported
 *	back in completion queue entries.
 * @batches_ptr: In. User address of @num_batches struct
 *	neuron_memcpy_batch.
 * @num_batches: In. Number of batches; must be non-zero.
 * @is_copy_to_device: In. Non-zero for user buffers to device.
 * @h2t_qid: In. Host-to-device queue to use, or NEURON_DMA_H2T_DEFAULT_QID.
 * @flags: In. Reserved for request options.
 *
 * NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES.  2 padding bytes precede
 * @h2t_qid and 2 follow @flags.
 */
struct neuron_ioctl_mem_buf_copy64zc_batches {
	__u64 sequence_num;
	neuron_memcpy_batch_t *batches_ptr;
	__u32 num_batches;
	__u16 is_copy_to_device;
	__s32 h2t_qid;
	__u16 flags;
};

/**
 * struct neuron_ioctl_program_engine - write a user buffer to a device
 * address
 * @dst: In. Device address; @offset is added to it.
 * @buffer: In. User buffer; @offset is added to it too.
 * @size: In. Bytes to write.
 * @offset: In. Byte offset applied to both @dst and @buffer.
 *
 * NEURON_IOCTL_PROGRAM_ENGINE.
 */
struct neuron_ioctl_program_engine {
	__u64 dst;
	void *buffer;
	__u32 size;
	__u32 offset;
};

/**
 * struct neuron_ioctl_program_engine_nc - write a user buffer to a device
 * address through a given core's DMA
 * @nc_id: In. Core whose host-to-device DMA engine to use.
 * @dst: In. Device address; @offset is added to it.
 * @buffer: In. User buffer; @offset is added to it too.
 * @size: In. Bytes to write.
 * @offset: In. Byte offset applied to both @dst and @buffer.
 *
 * NEURON_IOCTL_PROGRAM_ENGINE_NC.  4 padding bytes precede @dst.
 */
struct neuron_ioctl_program_engine_nc {
	__u32 nc_id;
	__u64 dst;
	void *buffer;
	__u32 size;
	__u32 offset;
};

/**
 * struct neuron_ioctl_program_engine_nc64 - as
 * &struct neuron_ioctl_program_engine_nc, 64-bit sizes
 * @nc_id: In. Core whose host-to-device DMA engine to use.
 * @dst: In. Device address; @offset is added to it.
 * @buffer: In. User buffer; @offset is added to it too.
 * @size: In. Bytes to write.
 * @offset: In. Byte offset applied to both @dst and @buffer.
 *
 * NEURON_IOCTL_PROGRAM_ENGINE_NC64.  4 padding bytes precede @dst.
 */
struct neuron_ioctl_program_engine_nc64 {
	__u32 nc_id;
	__u64 dst;
	void *buffer;
	__u64 size;
	__u64 offset;
};

/*
 * ---------------------------------------------------------------------
 * BAR access and firmware
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_bar_rw - read or write 32-bit registers
 * @bar: In. BAR index.
 * @address: In. User address of @count register addresses, each formed
 *	from &neuron_ioctl_device_info.bar_address plus a register offset.
 * @data: In. User address of @count 32-bit values: the source of a write
 *	or the destination of a read.
 * @count: In. Number of registers.
 *
 * NEURON_IOCTL_BAR_READ and NEURON_IOCTL_BAR_WRITE.  4 padding bytes
 * precede @address and 4 follow @count.
 */
struct neuron_ioctl_bar_rw {
	__u32 bar;
	__u64 *address;
	__u32 *data;
	__u32 count;
};

/**
 * struct neuron_ioctl_post_metric - post a metrics blob to the firmware
 * @data: In. User address of the blob.
 * @data_size: In. Size of the blob in bytes.
 *
 * NEURON_IOCTL_POST_METRIC.  4 bytes of tail padding.
 */
struct neuron_ioctl_post_metric {
	__u32 *data;
	__u32 data_size;
};

/**
 * struct neuron_ioctl_read_hw_counters - read device counters through the
 * firmware
 * @address: In. User address of @count device addresses to read.
 * @data: In. User address of @count 32-bit results.
 * @count: In. Number of counters.
 *
 * NEURON_IOCTL_READ_HW_COUNTERS.  4 bytes of tail padding.
 */
struct neuron_ioctl_read_hw_counters {
	__u64 *address;
	__u32 *data;
	__u32 count;
};

/*
 * ---------------------------------------------------------------------
 * DMA engines and queues
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_dma_copy_descriptors - copy DMA descriptors from user
 * space into a ring
 * @mem_handle: In. Memory handle of the ring.
 * @buffer: In. User address of the descriptors.
 * @num_descs: In. Number of descriptors.
 * @offset: In. Byte offset in the ring.
 * @queue_type: In. Which ring type the descriptors are for.
 *
 * NEURON_IOCTL_DMA_COPY_DESCRIPTORS.  4 bytes of tail padding.
 */
struct neuron_ioctl_dma_copy_descriptors {
	__u64 mem_handle;
	void *buffer;
	__u32 num_descs;
	__u32 offset;
	enum neuron_dma_queue_type queue_type;
};

/**
 * struct neuron_ioctl_dma_copy_descriptors64 - as
 * &struct neuron_ioctl_dma_copy_descriptors, 64-bit offset
 * @mem_handle: In. Memory handle of the ring.
 * @buffer: In. User address of the descriptors.
 * @num_descs: In. Number of descriptors.
 * @offset: In. Byte offset in the ring.
 * @queue_type: In. Which ring type the descriptors are for.
 *
 * NEURON_IOCTL_DMA_COPY_DESCRIPTORS64.  4 padding bytes precede @offset and
 * 4 follow @queue_type.
 */
struct neuron_ioctl_dma_copy_descriptors64 {
	__u64 mem_handle;
	void *buffer;
	__u32 num_descs;
	__u64 offset;
	enum neuron_dma_queue_type queue_type;
};

/**
 * struct neuron_ioctl_dma_queue_init - bind rings to a DMA queue
 * @eng_id: In. DMA engine.
 * @qid: In. Queue within the engine.
 * @tx_desc_count: In. Descriptors in the transmit ring.
 * @rx_desc_count: In. Descriptors in the receive ring.
 * @tx_handle: In. Memory handle of the transmit ring.
 * @rx_handle: In. Memory handle of the receive ring.
 * @rxc_handle: In. Memory handle of the completion ring, or 0.
 * @axi_port: In. AXI port the queue uses.
 *
 * NEURON_IOCTL_DMA_QUEUE_INIT, and element of
 * &neuron_ioctl_dma_queue_init_batch.entries.  4 bytes of tail padding.
 */
struct neuron_ioctl_dma_queue_init {
	__u32 eng_id;
	__u32 qid;
	__u32 tx_desc_count;
	__u32 rx_desc_count;
	__u64 tx_handle;
	__u64 rx_handle;
	__u64 rxc_handle;
	__u32 axi_port;
};

/* Capacity of &neuron_ioctl_dma_queue_init_batch.entries. */
#define MAX_DMA_QUEUE_INIT_BATCH	256

/**
 * struct neuron_ioctl_dma_queue_init_batch - bind rings to several queues
 * @count: In. Number of valid entries; must be below
 *	MAX_DMA_QUEUE_INIT_BATCH.
 * @entries: In. One queue per entry, processed in order.
 *
 * NEURON_IOCTL_DMA_QUEUE_INIT_BATCH (passed by value: 12296 bytes).  4
 * padding bytes precede @entries.
 */
struct neuron_ioctl_dma_queue_init_batch {
	__u32 count;
	struct neuron_ioctl_dma_queue_init entries[MAX_DMA_QUEUE_INIT_BATCH];
};

/**
 * struct neuron_ioctl_dma_queue_release - release a DMA queue
 * @eng_id: In. DMA engine.
 * @qid: In. Queue within the engine.
 *
 * NEURON_IOCTL_DMA_QUEUE_RELEASE.
 */
struct neuron_ioctl_dma_queue_release {
	__u32 eng_id;
	__u32 qid;
};

/* Capacity of &neuron_ioctl_dma_quiesce_queues.queue_mask. */
#define DMA_QUIESCE_MAX_ENG	64

/**
 * struct neuron_ioctl_dma_quiesce_queues - quiesce DMA queues (unused)
 * @nc_id: Core the engines belong to.
 * @engine_count: Number of valid entries in @queue_mask.
 * @queue_mask: Per engine, bitmap of the queues to quiesce.
 *
 * No command takes this struct: NEURON_IOCTL_DMA_QUIESCE_QUEUES names a
 * struct neuron_ioctl_dma_quiesce_all that was never defined.  Kept for
 * source compatibility.
 */
struct neuron_ioctl_dma_quiesce_queues {
	__u32 nc_id;
	__u32 engine_count;
	__u32 queue_mask[DMA_QUIESCE_MAX_ENG];
};

/**
 * struct neuron_ioctl_dma_ack_completed - acknowledge completed descriptors
 * @eng_id: In. DMA engine.
 * @qid: In. Queue within the engine.
 * @count: In. Number of completed descriptors to acknowledge.
 *
 * NEURON_IOCTL_DMA_ACK_COMPLETED.
 */
struct neuron_ioctl_dma_ack_completed {
	__u32 eng_id;
	__u32 qid;
	__u32 count;
};

/**
 * struct neuron_ioctl_dma_queue_copy_start - hand descriptors to a queue
 * @eng_id: In. DMA engine.
 * @qid: In. Queue within the engine.
 * @tx_desc_count: In. Transmit descriptors to start.
 * @rx_desc_count: In. Receive descriptors to start.
 *
 * NEURON_IOCTL_DMA_QUEUE_COPY_START.
 */
struct neuron_ioctl_dma_queue_copy_start {
	__u32 eng_id;
	__u32 qid;
	__u32 tx_desc_count;
	__u32 rx_desc_count;
};

/**
 * struct neuron_ioctl_dma_eng_init - initialise a DMA engine (no-op)
 * @eng_id: In. DMA engine.
 *
 * NEURON_IOCTL_DMA_ENG_INIT.
 */
struct neuron_ioctl_dma_eng_init {
	__u32 eng_id;
};

/**
 * struct neuron_ioctl_dma_eng_set_state - change a DMA engine's state
 * @eng_id: In. DMA engine.
 * @state: In. New state of both halves: NEURON_DMA_ENG_DISABLE,
 *	NEURON_DMA_ENG_NORMAL or NEURON_DMA_ENG_ABORT
 *	(enum neuron_dma_eng_state_code).
 *
 * NEURON_IOCTL_DMA_ENG_SET_STATE.
 */
struct neuron_ioctl_dma_eng_set_state {
	__u32 eng_id;
	__u32 state;
};

/**
 * struct neuron_ioctl_dma_eng_get_state - read a DMA engine's state
 * @eng_id: In. DMA engine.
 * @state: In. User address where the driver stores the state.
 *
 * NEURON_IOCTL_DMA_ENG_GET_STATE.  4 padding bytes precede @state.
 */
struct neuron_ioctl_dma_eng_get_state {
	__u32 eng_id;
	struct neuron_dma_eng_state *state;
};

/**
 * struct neuron_ioctl_dma_queue_get_state - read a DMA queue's state
 * @eng_id: In. DMA engine.
 * @qid: In. Queue within the engine.
 * @tx: In. User address where the driver stores the transmit ring state.
 * @rx: In. User address where the driver stores the receive ring state.
 *
 * NEURON_IOCTL_DMA_QUEUE_GET_STATE.
 */
struct neuron_ioctl_dma_queue_get_state {
	__u32 eng_id;
	__u32 qid;
	struct neuron_dma_queue_state *tx;
	struct neuron_dma_queue_state *rx;
};

/**
 * struct neuron_ioctl_dma_descriptor_copyout - copy descriptors out of a
 * DMA ring
 * @eng_id: In. DMA engine.
 * @qid: In. Queue within the engine.
 * @type: In. Which ring (transmit or receive).
 * @start_index: In. First descriptor to copy.
 * @count: In. Number of descriptors; must be non-zero.
 * @buffer: In. User address receiving the descriptors.
 *
 * NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT.  4 padding bytes precede @buffer.
 */
struct neuron_ioctl_dma_descriptor_copyout {
	__u32 eng_id;
	__u32 qid;
	enum neuron_dma_queue_type type;
	__u32 start_index;
	__u32 count;
	void *buffer;
};

/*
 * ---------------------------------------------------------------------
 * Semaphores, events and notification queues
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_semaphore - access a core semaphore or event
 * @nc_id: In. Core.
 * @semaphore_index: In. Semaphore index, or event index for the event
 *	commands.
 * @value: In or out. Operand of increment, decrement and write; result of
 *	read and event get.
 *
 * NEURON_IOCTL_SEMAPHORE_* and, as in the reference, NEURON_IOCTL_EVENT_*.
 */
struct neuron_ioctl_semaphore {
	__u32 nc_id;
	__u32 semaphore_index;
	__u32 value;
};

/**
 * struct neuron_ioctl_event - access a core event (unused)
 * @nc_id: Core.
 * @event_index: Event index.
 * @value: Value to set or value read.
 *
 * Defined for source compatibility only; the event commands take
 * &struct neuron_ioctl_semaphore, which has the same layout.
 */
struct neuron_ioctl_event {
	__u32 nc_id;
	__u32 event_index;
	__u32 value;
};

/**
 * struct neuron_ioctl_notifications_init_v1 - create a core notification
 * queue in host memory
 * @nc_id: In. Core.
 * @nq_type: In. Kind of notifications (enum NQ_TYPE).
 * @engine_index: In. Engine within the core.
 * @size: In. Queue size in bytes; a power of two.
 * @mmap_offset: Out. Offset to pass to mmap() to map the queue.
 *
 * NEURON_IOCTL_NOTIFICATIONS_INIT_V1.
 */
struct neuron_ioctl_notifications_init_v1 {
	__u32 nc_id;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u64 mmap_offset;
};

/**
 * struct neuron_ioctl_notifications_init_v2 - create a notification queue
 * @nq_dev_id: In. Index of the core or TOP_SP.
 * @nq_dev_type: In. Kind of block (enum NQ_DEVICE_TYPE).
 * @nq_type: In. Kind of notifications (enum NQ_TYPE).
 * @engine_index: In. Engine within the block.
 * @size: In. Queue size in bytes; a power of two.
 * @on_host_memory: In. Non-zero to place the queue in host memory.
 * @dram_channel: In. Device memory channel for a device-memory queue.
 * @dram_region: In. Region within the channel.
 * @mmap_offset: Out. Offset to pass to mmap() to map a host-memory queue.
 * @mem_handle: Out. Memory handle of the queue.
 *
 * NEURON_IOCTL_NOTIFICATIONS_INIT_V2.
 */
struct neuron_ioctl_notifications_init_v2 {
	__u32 nq_dev_id;
	__u32 nq_dev_type;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u32 on_host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u64 mmap_offset;
	__u64 mem_handle;
};

/**
 * struct neuron_ioctl_notifications_init_with_realloc_v2 - create a
 * notification queue, optionally replacing an existing one
 * @nq_dev_id: In. Index of the core or TOP_SP.
 * @nq_dev_type: In. Kind of block (enum NQ_DEVICE_TYPE).
 * @nq_type: In. Kind of notifications (enum NQ_TYPE).
 * @engine_index: In. Engine within the block.
 * @size: In. Queue size in bytes; a power of two.
 * @on_host_memory: In. Non-zero to place the queue in host memory.
 * @dram_channel: In. Device memory channel for a device-memory queue.
 * @dram_region: In. Region within the channel.
 * @force_alloc_mem: In. Non-zero to allocate new memory even if the queue
 *	already exists.
 * @mmap_offset: Out. Offset to pass to mmap() to map a host-memory queue.
 * @mem_handle: Out. Memory handle of the queue.
 *
 * NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2.  4 padding bytes
 * precede @mmap_offset.
 */
struct neuron_ioctl_notifications_init_with_realloc_v2 {
	__u32 nq_dev_id;
	__u32 nq_dev_type;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u32 on_host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 force_alloc_mem;
	__u64 mmap_offset;
	__u64 mem_handle;
};

/**
 * struct neuron_ioctl_neuron_ds_info - acquire or release a datastore
 * @pid: In. Process whose datastore is meant; 0 for the caller's own.
 * @mmap_offset: Out. Offset to pass to mmap() to map the datastore.
 * @size: Out. Size of the datastore in bytes.
 *
 * NEURON_IOCTL_ACQUIRE_NEURON_DS and NEURON_IOCTL_RELEASE_NEURON_DS.  The
 * reference spells @pid as pid_t; __kernel_pid_t is the same type.  4
 * padding bytes precede @mmap_offset and 4 follow @size.
 */
struct neuron_ioctl_neuron_ds_info {
	__kernel_pid_t pid;
	__u64 mmap_offset;
	__u32 size;
};

/**
 * struct neuron_ioctl_notifications_destroy - destroy a notification queue
 * @mmap_offset: In. mmap offset the queue was created with.
 *
 * NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1.
 */
struct neuron_ioctl_notifications_destroy {
	__u64 mmap_offset;
};

/**
 * struct neuron_ioctl_notifications_destroy_nq - destroy a notification
 * queue by identity (unused)
 * @nq_dev_id: Index of the core or TOP_SP.
 * @nq_type: Kind of notifications (enum NQ_TYPE).
 * @engine_index: Engine within the block.
 *
 * No command takes this struct; defined for source compatibility.
 */
struct neuron_ioctl_notifications_destroy_nq {
	__u32 nq_dev_id;
	__u32 nq_type;
	__u32 engine_index;
};

/**
 * struct neuron_ioctl_notifications_queue_info - read a queue's position
 * @nq_dev_id: In. Index of the core or TOP_SP.
 * @nq_dev_type: In. Kind of block (enum NQ_DEVICE_TYPE).
 * @nq_type: In. Kind of notifications (enum NQ_TYPE).
 * @engine_index: In. Engine within the block.
 * @head: Out. Head index.
 * @phase_bit: Out. Current phase bit.
 *
 * NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO.
 */
struct neuron_ioctl_notifications_queue_info {
	__u8 nq_dev_id;
	__u8 nq_dev_type;
	__u8 nq_type;
	__u8 engine_index;
	__u32 head;
	__u32 phase_bit;
};

/*
 * ---------------------------------------------------------------------
 * Core locking, core reservation and core initialisation
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_crwl - take or drop a core's reader/writer lock
 * @nc_id: In. Core.
 * @uuid: In. Id of the model on whose behalf the lock is taken.
 *
 * NEURON_IOCTL_CRWL_READER_ENTER, _READER_EXIT, _WRITER_ENTER and
 * _WRITER_DOWNGRADE.
 */
struct neuron_ioctl_crwl {
	__u32 nc_id;
	struct neuron_uuid uuid;
};

/**
 * struct neuron_ioctl_crwl_nc_map - reserve or release a range of cores
 * (up to 64)
 * @nc_count: In. Number of consecutive cores wanted.
 * @start_nc_index: In. First core of the range to search.
 * @end_nc_index: In. Last core of the range to search.
 * @max_nc_available: Out. Longest run of free cores seen when the request
 *	could not be met.
 * @bitmap: In/out. Cores reserved (mark) or to release (unmark), one bit
 *	per core relative to the opened device's first core.
 *
 * NEURON_IOCTL_CRWL_NC_RANGE_MARK and _UNMARK.  The reference declares
 * @bitmap volatile; dropping the qualifier changes neither layout nor any
 * valid use.
 */
struct neuron_ioctl_crwl_nc_map {
	__u32 nc_count;
	__u32 start_nc_index;
	__u32 end_nc_index;
	__u32 max_nc_available;
	unsigned long bitmap;
};

/**
 * struct neuron_ioctl_crwl_nc_map_ext - reserve or release a range of cores
 * (up to 512)
 * @nc_count: In. Number of consecutive cores wanted.
 * @start_nc_index: In. First core of the range to search.
 * @end_nc_index: In. Last core of the range to search.
 * @max_nc_available: Out. Longest run of free cores seen when the request
 *	could not be met.
 * @bitmap: In/out. Cores reserved (mark) or to release (unmark).
 *
 * NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0 and _UNMARK_EXT0.
 */
struct neuron_ioctl_crwl_nc_map_ext {
	__u32 nc_count;
	__u32 start_nc_index;
	__u32 end_nc_index;
	__u32 max_nc_available;
	unsigned long bitmap[8];
};

/**
 * struct neuron_ioctl_cinit_set - core initialisation handshake
 * @nc_id: In. Core.
 * @state: In. Requested state (enum neuron_cinit_state).
 * @new_state: Out. State after the request.
 *
 * NEURON_IOCTL_CINIT_SET_STATE.
 */
struct neuron_ioctl_cinit_set {
	__u32 nc_id;
	__u32 state;
	__u32 new_state;
};

/**
 * struct neuron_ioctl_nc_model_started_count - models started on a core
 * @nc_id: In. Core.
 * @started_count: Out. The count.
 *
 * NEURON_IOCTL_NC_MODEL_STARTED_COUNT.  4 padding bytes precede
 * @started_count.
 */
struct neuron_ioctl_nc_model_started_count {
	__u32 nc_id;
	__u64 started_count;
};

/**
 * struct neuron_ioctl_compatible_version - runtime versions the driver
 * supports
 * @max: Out. Newest supported runtime interface version.
 * @min: Out. Oldest supported runtime interface version.
 *
 * NEURON_IOCTL_COMPATIBLE_VERSION.
 */
struct neuron_ioctl_compatible_version {
	__u32 max;
	__u32 min;
};

/*
 * ---------------------------------------------------------------------
 * Device information
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_device_basic_info - device generation
 * @architecture: Out. Architecture (generation) of the device.
 * @revision: Out. Hardware revision.
 *
 * NEURON_IOCTL_DEVICE_BASIC_INFO.
 */
struct neuron_ioctl_device_basic_info {
	__u32 architecture;
	__u32 revision;
};

/**
 * struct neuron_ioctl_device_bdf - PCI location of the device
 * @bus_number: Out. PCI bus.
 * @slot: Out. PCI slot (device).
 * @func: Out. PCI function.
 *
 * NEURON_IOCTL_DEVICE_BDF.  2 bytes of tail padding.
 */
struct neuron_ioctl_device_bdf {
	__u32 bus_number;
	__u8 slot;
	__u8 func;
};

/**
 * struct neuron_ioctl_device_bdf_ext - PCI location of any device
 * @nd_index: In. Device index.
 * @domain: Out. PCI domain.
 * @bus_number: Out. PCI bus.
 * @slot: Out. PCI slot (device).
 * @func: Out. PCI function.
 *
 * NEURON_IOCTL_DEVICE_BDF_EXT.  2 bytes of tail padding.
 */
struct neuron_ioctl_device_bdf_ext {
	__u32 nd_index;
	__u32 domain;
	__u32 bus_number;
	__u8 slot;
	__u8 func;
};

/**
 * struct neuron_ioctl_resource_mmap_info - where a device resource can be
 * mapped
 * @block: In. Kind of block (enum neuron_dm_block_type).
 * @block_id: In. Index of the block.
 * @resource: In. Resource within the block (enum neuron_dm_resource_type).
 * @offset: Out. Offset to pass to mmap().
 * @size: Out. Size of the mapping in bytes.
 *
 * NEURON_IOCTL_RESOURCE_MMAP_INFO.  4 padding bytes precede @offset.
 */
struct neuron_ioctl_resource_mmap_info {
	__u32 block;
	__u32 block_id;
	__u32 resource;
	__u64 offset;
	__u64 size;
};

/* Capacity of &neuron_ioctl_device_info.connected_devices. */
#define NEURON_IOCTL_MAX_CONNECTED_DEVICES	8
/* Number of BARs described by &neuron_ioctl_device_info. */
#define NEURON_MAX_BARS				2

/**
 * struct neuron_ioctl_device_info - device description
 * @architecture: Out. Architecture (generation) of the device.
 * @revision: Out. Hardware revision.
 * @connected_device_count: Out. Valid entries in @connected_devices.
 * @connected_devices: Out. Ids of the devices directly linked to this
 *	one.
 * @bar_address: Out. Per BAR, the base value that register addresses in
 *	&neuron_ioctl_bar_rw.address are formed from.  Opaque: never a
 *	kernel address.
 * @bar_size: Out. Per BAR, its size in bytes.
 *
 * NEURON_IOCTL_DEVICE_INFO.  4 padding bytes precede @bar_address.
 */
struct neuron_ioctl_device_info {
	__u32 architecture;
	__u32 revision;
	__u32 connected_device_count;
	__u32 connected_devices[NEURON_IOCTL_MAX_CONNECTED_DEVICES];
	__u64 bar_address[NEURON_MAX_BARS];
	__u64 bar_size[NEURON_MAX_BARS];
};

/**
 * struct neuron_ioctl_dmabuf_fd - export mapped memory as a dma-buf
 * @va: In. User address inside a mapping of device memory made by the
 *	caller.
 * @size: In. Size of the range in bytes.
 * @fd: In. User address where the driver stores the new file descriptor.
 *
 * NEURON_IOCTL_DMABUF_FD.
 */
struct neuron_ioctl_dmabuf_fd {
	__u64 va;
	__u64 size;
	__s32 *fd;
};

/**
 * struct neuron_ioctl_dmabuf_fd_v2 - export any range of mapped memory as a
 * dma-buf (driver 2.29)
 * @va: In. User address inside a mapping of device memory made by the
 *	caller; need not be page aligned.
 * @size: In. Size of the range in bytes.
 * @fd: In. User address where the driver stores the new file descriptor.
 * @offset: In. User address where the driver stores the offset of @va in
 *	the dma-buf, which covers the pages the range lies in.
 *
 * NEURON_IOCTL_DMABUF_FD_V2; the argument is a pointer to this struct.
 */
struct neuron_ioctl_dmabuf_fd_v2 {
	__u64 va;
	__u64 size;
	__s32 *fd;
	__u64 *offset;
};

/* Value of &neuron_ioctl_device_driver_info.version in this ABI. */
#define NEURON_DEVICE_DRIVER_INFO_VERSION0	0

/**
 * struct neuron_ioctl_device_driver_info - driver identity and features
 * @architecture: Out. Architecture (generation) of the device.
 * @revision: Out. Hardware revision.
 * @version: Out. Version of this structure
 *	(NEURON_DEVICE_DRIVER_INFO_VERSION0).
 * @size: Out. Size of this structure in bytes.
 * @feature_flags1: Out. Supported features (enum
 *	neuron_driver_feature_flag bits).
 *
 * NEURON_IOCTL_DRIVER_INFO_GET (NEURON_IOCTL_DRIVER_INFO_SET is defined but
 * not supported).
 */
struct neuron_ioctl_device_driver_info {
	__u32 architecture;
	__u32 revision;
	__u32 version;
	__u32 size;
	__u64 feature_flags1;
};

/**
 * struct neuron_ioctl_mem_get_mc_mmap_info - find the memory containing a
 * physical address
 * @pa: In. Physical address.
 * @mmap_offset: Out. Offset to pass to mmap() to map the memory.
 * @size: Out. Size of the memory in bytes.
 *
 * NEURON_IOCTL_MEM_MC_GET_INFO.
 */
struct neuron_ioctl_mem_get_mc_mmap_info {
	__u64 pa;
	__u64 mmap_offset;
	__u64 size;
};

/**
 * struct neuron_ioctl_mem_get_mc_mmap_info_v2 - find the memory containing
 * a physical address, with its handle
 * @pa: In. Physical address.
 * @mmap_offset: Out. Offset to pass to mmap() to map the memory.
 * @size: Out. Size of the memory in bytes.
 * @mem_handle: Out. Memory handle of the memory.
 *
 * NEURON_IOCTL_MEM_MC_GET_INFO_V2.
 */
struct neuron_ioctl_mem_get_mc_mmap_info_v2 {
	__u64 pa;
	__u64 mmap_offset;
	__u64 size;
	__u64 mem_handle;
};

/**
 * struct neuron_ioctl_printk - write a message to the kernel log
 * @buffer: In. User address of a NUL-terminated string.
 * @size: In. Size of @buffer in bytes, terminator included.
 * @action: In. Reserved.
 *
 * NEURON_IOCTL_PRINTK.
 */
struct neuron_ioctl_printk {
	void *buffer;
	__u32 size;
	__u32 action;
};

/**
 * struct neuron_ioctl_host_device_id - index of the opened device
 * @host_device_id: Out. The device index on this host.
 *
 * NEURON_IOCTL_HOST_DEVICE_ID.
 */
struct neuron_ioctl_host_device_id {
	__u32 host_device_id;
};

/**
 * struct neuron_ioctl_dump_mem_chunks - list the allocated chunks of one
 * device memory channel
 * @hbm_index: In. Memory channel.
 * @num_entries_in: In. Capacity of @data in elements.
 * @num_entries_out: Out. Number of chunks on the channel; when it exceeds
 *	@num_entries_in the array was too small.
 * @data: In. User address of the result array.
 *
 * NEURON_IOCTL_DUMP_MEM_CHUNKS.  4 padding bytes precede @data.
 */
struct neuron_ioctl_dump_mem_chunks {
	__u32 hbm_index;
	__u32 num_entries_in;
	__u32 num_entries_out;
	struct neuron_ioctl_mem_chunk_info *data;
};

/**
 * struct neuron_ioctl_nc_pid_state_dump - log the state of a core's owner
 * @size: In. Size of this structure.
 * @nc_id: In. Core, in the host-wide core numbering.
 * @filter_log_owner: In. Non-zero to restrict the log dump to the owner.
 * @log_dump_limit: In. Maximum number of log entries to dump.
 *
 * NEURON_IOCTL_NC_PID_STATE_DUMP.
 */
struct neuron_ioctl_nc_pid_state_dump {
	__u32 size;
	__u32 nc_id;
	__u32 filter_log_owner;
	__u32 log_dump_limit;
};

/* Capacity of &neuron_ioctl_host_device_id_to_rid_map.host_did_to_rid_map. */
#define NEURON_IOCTL_MAX_DEVICES	64

/**
 * struct neuron_ioctl_host_device_id_to_rid_map - device index to routing
 * id map
 * @count: Out. Valid entries in @host_did_to_rid_map.
 * @host_did_to_rid_map: Out. Routing id of each device, by device index.
 *
 * NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP.
 */
struct neuron_ioctl_host_device_id_to_rid_map {
	__u32 count;
	__u32 host_did_to_rid_map[NEURON_IOCTL_MAX_DEVICES];
};

/**
 * struct neuron_ioctl_hbm_scrub_start - start clearing a memory channel
 * @nc_id: In. Core whose DMA engines do the work.
 * @hbm_index: In. Memory channel to scrub.
 * @axi_port: In. AXI port to use.
 * @init_val: In. 32-bit pattern to fill the memory with.
 *
 * NEURON_IOCTL_HBM_SCRUB_START.
 */
struct neuron_ioctl_hbm_scrub_start {
	__u32 nc_id;
	__u32 hbm_index;
	__u32 axi_port;
	__u32 init_val;
};

/**
 * struct neuron_ioctl_hbm_scrub_wait - wait for a scrub to finish
 * @nc_id: In. Core passed to the start command.
 * @hbm_index: In. Memory channel passed to the start command.
 *
 * NEURON_IOCTL_HBM_SCRUB_WAIT.
 */
struct neuron_ioctl_hbm_scrub_wait {
	__u32 nc_id;
	__u32 hbm_index;
};

/**
 * struct neuron_ioctl_get_logical_to_physical_nc_map - read the core map
 * @map: In. User address of a struct neuron_ioctl_nc_map with room for
 *	@max_map_entries entries.
 * @max_map_entries: In. Capacity of @map; at most
 *	NEURON_NC_MAP_MAX_ENTRIES.
 * @mapping_version: In. Format wanted (enum
 *	neuron_ioctl_nc_mapping_type).
 *
 * NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP.
 */
struct neuron_ioctl_get_logical_to_physical_nc_map {
	struct neuron_ioctl_nc_map *map;
	__u32 max_map_entries;
	__u32 mapping_version;
};

/*
 * ---------------------------------------------------------------------
 * Pods (UltraServer)
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_pod_info - pod membership
 * @sz: In. Size of this structure (260).
 * @pod_type: Out. How the pod is joined (enum neuron_pod_type).
 * @pod_id: Out. Pod identifier.
 * @pod_sz: Out. Number of nodes in the pod.
 *
 * NEURON_IOCTL_POD_INFO.
 */
struct neuron_ioctl_pod_info {
	__u16 sz;
	__u8 pod_type;
	__u8 pod_id[256];
	__u8 pod_sz;
};

/**
 * struct neuron_ioctl_pod_status - pod election status
 * @sz: In. Size of this structure (268).
 * @pod_id: Out. Pod identifier.
 * @state: Out. Election state (enum neuron_pod_election_state).
 * @pod_type: Out. How the pod is joined (enum neuron_pod_type).
 * @pod_sz: Out. Number of nodes in the pod.
 * @node_id: Out. This node's index in the pod (signed).
 *
 * NEURON_IOCTL_POD_STATUS.  2 padding bytes precede @state and 1 follows
 * @node_id.
 */
struct neuron_ioctl_pod_status {
	__u16 sz;
	__u8 pod_id[256];
	__u32 state;
	__u8 pod_type;
	__u8 pod_sz;
	__s8 node_id;
};

/**
 * struct neuron_ioctl_pod_status_v2 - pod election status and mode
 * @v1: In/out. As &struct neuron_ioctl_pod_status; @v1.sz is 276.
 * @mode: Out. Current UltraServer mode (enum neuron_ultraserver_mode).
 * @modes_supported: Out. Bitmap of the modes the node supports.
 *
 * NEURON_IOCTL_POD_STATUS_V2.
 */
struct neuron_ioctl_pod_status_v2 {
	struct neuron_ioctl_pod_status v1;
	__u32 mode;
	__u32 modes_supported;
};

/**
 * struct neuron_ioctl_pod_ctrl - control the pod election
 * @sz: In. Size of this structure (16).
 * @ctrl: In. Request (enum neuron_pod_ctrl_req).
 * @timeout: In. Time limit for the request.
 * @state: Out. Election state after the request.
 *
 * NEURON_IOCTL_POD_CTRL.  2 padding bytes precede @ctrl.
 */
struct neuron_ioctl_pod_ctrl {
	__u16 sz;
	__u32 ctrl;
	__u32 timeout;
	__u32 state;
};

/**
 * struct neuron_ioctl_pod_ctrl_v2 - control the pod election, with a mode
 * @v1: In/out. As &struct neuron_ioctl_pod_ctrl; @v1.sz is 20.
 * @mode: In. UltraServer mode for NEURON_NPE_POD_CTRL_SET_MODE.
 *
 * NEURON_IOCTL_POD_CTRL_V2.
 */
struct neuron_ioctl_pod_ctrl_v2 {
	struct neuron_ioctl_pod_ctrl v1;
	__u32 mode;
};

/*
 * ---------------------------------------------------------------------
 * Host-to-device DMA queues, power and telemetry
 * ---------------------------------------------------------------------
 */

/**
 * struct neuron_ioctl_h2t_dma_alloc_queues - reserve host-to-device queues
 * @sz: In. Size of this structure.
 * @nc_id: In. Core.
 * @copy_queue_cnt: In. Number of copy queues wanted.
 * @service_queue_cnt: In. Number of service queues wanted.
 * @copy_queue_bmap: Out. Bitmap of the copy queues reserved.
 * @service_queue_bmap: Out. Bitmap of the service queues reserved.
 * @copy_default_queue: Out. The core's default copy queue.
 *
 * NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES.
 */
struct neuron_ioctl_h2t_dma_alloc_queues {
	__u16 sz;
	__u16 nc_id;
	__u16 copy_queue_cnt;
	__u16 service_queue_cnt;
	__u32 copy_queue_bmap;
	__u32 service_queue_bmap;
	__u32 copy_default_queue;
};

/**
 * struct neuron_ioctl_h2t_dma_free_queues - release host-to-device queues
 * @sz: In. Size of this structure.
 * @nc_id: In. Core.
 * @fill0: Reserved, set to zero.
 * @queue_bmap: In. Bitmap of the queues to release.
 *
 * NEURON_IOCTL_H2T_DMA_FREE_QUEUES.
 */
struct neuron_ioctl_h2t_dma_free_queues {
	__u16 sz;
	__u8 nc_id;
	__u8 fill0;
	__u32 queue_bmap;
};

/**
 * struct neuron_ioctl_power_profile - set or read the performance profile
 * @sz: In. Size of this structure (8).
 * @ctrl: In. 0 to set the profile, 1 to read it.
 * @profile: In or out. The profile.
 *
 * NEURON_IOCTL_POWER_PROFILE (set) and NEURON_IOCTL_GET_PERFORMANCE_PROFILE
 * (read).
 */
struct neuron_ioctl_power_profile {
	__u16 sz;
	__u16 ctrl;
	__u32 profile;
};

/**
 * struct neuron_ioctl_metrics_ctrl - control periodic metric posting
 * @mode: In. enum neuron_metrics_mode.
 *
 * NEURON_IOCTL_METRICS_CTRL.
 */
struct neuron_ioctl_metrics_ctrl {
	__u32 mode;
};

/**
 * struct neuron_ioctl_throttling_notifications - turn firmware throttling
 * notifications on or off
 * @enable: In. Non-zero to enable.
 *
 * NEURON_IOCTL_THROTTLING_NOTIFICATIONS.
 */
struct neuron_ioctl_throttling_notifications {
	__u32 enable;
};

/**
 * struct neuron_ioctl_get_va_placement - which device memory backs a user
 * address
 * @va: In. User address inside a mapping of device memory.
 * @device_index: Out. Device holding the memory, or -1 if unknown.
 * @hbm_index: Out. Memory channel holding the memory, or -1 if unknown.
 *
 * NEURON_IOCTL_GET_VA_PLACEMENT.  Although the command is encoded _IOW, the
 * driver writes the result back.
 */
struct neuron_ioctl_get_va_placement {
	__u64 va;
	__s32 device_index;
	__s32 hbm_index;
};

/**
 * struct neuron_ioctl_available_perf_profiles - list performance profiles
 * @requested_feature: In. Feature the profiles are wanted for.
 * @num_profiles: Out. Number of profiles available.
 * @bitmap: Out. 256-bit set of the available profiles.
 *
 * NEURON_IOCTL_AVAILABLE_PERF_PROFILES.  1 byte of tail padding.
 */
struct neuron_ioctl_available_perf_profiles {
	__u16 requested_feature;
	__u8 num_profiles;
	__u8 bitmap[32];
};

/**
 * struct neuron_ioctl_get_async_h2t_dma_compl_queues - locate the
 * completion queues of a core's host-to-device DMA queues
 * @nc_id: In. Core.
 * @qid_bitmap: In. Queues to report, one bit per queue id (0-15).
 * @compl_queue_info: Out. Indexed by queue id; entries whose bit is clear
 *	are zero.
 * @compl_queue_info.mmap_offset: Offset to pass to mmap() to map the
 *	queue's struct neuron_h2d_dma_compl_queue.
 * @compl_queue_info.mmap_size: Size of that mapping in bytes.
 *
 * NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES.  Each element of
 * @compl_queue_info is 16 bytes, with 4 bytes of tail padding; as in the
 * reference the element type is an unnamed struct.
 */
struct neuron_ioctl_get_async_h2t_dma_compl_queues {
	__u32 nc_id;
	__u32 qid_bitmap;
	struct {
		__u64 mmap_offset;
		__u32 mmap_size;
	} compl_queue_info[16];
};

/*
 * ---------------------------------------------------------------------
 * Commands
 * ---------------------------------------------------------------------
 *
 * All commands use type 'N'.  Each value below is part of the ABI and is
 * checked by selftests/abi/; never renumber or reuse one.
 */
#define NEURON_IOCTL_BASE	'N'

/*
 * NEURON_IOCTL_DMA_QUIESCE_QUEUES encodes a pointer to this struct, which is
 * deliberately left incomplete: the command is not supported.  Declared
 * here so that the macro does not introduce the tag in an inner scope.
 */
struct neuron_ioctl_dma_quiesce_all;

/* Device reset and status */
#define NEURON_IOCTL_DEVICE_RESET		_IO(NEURON_IOCTL_BASE, 1)
#define NEURON_IOCTL_DEVICE_READY		_IOR(NEURON_IOCTL_BASE, 2, __u8)
#define NEURON_IOCTL_DEVICE_INFO \
	_IOR(NEURON_IOCTL_BASE, 3, struct neuron_ioctl_device_info *)
#define NEURON_IOCTL_DEVICE_INIT \
	_IOR(NEURON_IOCTL_BASE, 4, struct neuron_ioctl_device_init *)
#define NEURON_IOCTL_DEVICE_RELEASE		_IO(NEURON_IOCTL_BASE, 5)
#define NEURON_IOCTL_DEVICE_APP_PID		_IOR(NEURON_IOCTL_BASE, 6, __s32)
#define NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO \
	_IOR(NEURON_IOCTL_BASE, 7, struct neuron_ioctl_get_apps_info *)

/* Register access and firmware metrics */
#define NEURON_IOCTL_BAR_READ \
	_IOR(NEURON_IOCTL_BASE, 11, struct neuron_ioctl_bar_rw *)
#define NEURON_IOCTL_BAR_WRITE \
	_IOW(NEURON_IOCTL_BASE, 12, struct neuron_ioctl_bar_rw *)
#define NEURON_IOCTL_POST_METRIC \
	_IOW(NEURON_IOCTL_BASE, 13, struct neuron_ioctl_post_metric *)

/* Memory */
#define NEURON_IOCTL_MEM_ALLOC \
	_IOR(NEURON_IOCTL_BASE, 21, struct neuron_ioctl_mem_alloc *)
#define NEURON_IOCTL_MEM_FREE \
	_IOR(NEURON_IOCTL_BASE, 22, struct neuron_ioctl_mem_free *)
/* nr 23: the 32-bit form encodes a pointer size, the 64-bit form its struct */
#define NEURON_IOCTL_MEM_COPY \
	_IOR(NEURON_IOCTL_BASE, 23, struct neuron_ioctl_mem_copy *)
#define NEURON_IOCTL_MEM_COPY64 \
	_IOR(NEURON_IOCTL_BASE, 23, struct neuron_ioctl_mem_copy64)
/* nr 24: same pattern as nr 23 */
#define NEURON_IOCTL_MEM_BUF_COPY \
	_IOWR(NEURON_IOCTL_BASE, 24, struct neuron_ioctl_mem_buf_copy *)
#define NEURON_IOCTL_MEM_BUF_COPY64 \
	_IOWR(NEURON_IOCTL_BASE, 24, struct neuron_ioctl_mem_buf_copy64)
#define NEURON_IOCTL_MEM_GET_PA \
	_IOR(NEURON_IOCTL_BASE, 25, struct neuron_ioctl_mem_get_pa *)
#define NEURON_IOCTL_MEM_GET_INFO \
	_IOR(NEURON_IOCTL_BASE, 26, struct neuron_ioctl_mem_get_info *)
#define NEURON_IOCTL_PROGRAM_ENGINE \
	_IOWR(NEURON_IOCTL_BASE, 27, struct neuron_ioctl_program_engine *)
/* nr 28: same pattern as nr 23 */
#define NEURON_IOCTL_MEMSET \
	_IOR(NEURON_IOCTL_BASE, 28, struct neuron_ioctl_memset *)
#define NEURON_IOCTL_MEMSET64 \
	_IOR(NEURON_IOCTL_BASE, 28, struct neuron_ioctl_memset64)
#define NEURON_IOCTL_MEM_GET_EXTENDED_INFO \
	_IOR(NEURON_IOCTL_BASE, 29, struct neuron_ioctl_mem_get_extended_info *)

/* DMA engines and queues */
#define NEURON_IOCTL_DMA_ENG_INIT \
	_IOR(NEURON_IOCTL_BASE, 30, struct neuron_ioctl_dma_eng_init *)
#define NEURON_IOCTL_DMA_ENG_SET_STATE \
	_IOR(NEURON_IOCTL_BASE, 31, struct neuron_ioctl_dma_eng_set_state *)
#define NEURON_IOCTL_DMA_ENG_GET_STATE \
	_IOWR(NEURON_IOCTL_BASE, 32, struct neuron_ioctl_dma_eng_get_state *)
#define NEURON_IOCTL_DMA_QUEUE_INIT \
	_IOR(NEURON_IOCTL_BASE, 33, struct neuron_ioctl_dma_queue_init *)
#define NEURON_IOCTL_DMA_QUEUE_RELEASE \
	_IOR(NEURON_IOCTL_BASE, 34, struct neuron_ioctl_dma_queue_release *)
#define NEURON_IOCTL_DMA_QUEUE_COPY_START \
	_IOR(NEURON_IOCTL_BASE, 35, struct neuron_ioctl_dma_queue_copy_start *)
#define NEURON_IOCTL_DMA_ACK_COMPLETED \
	_IOR(NEURON_IOCTL_BASE, 36, struct neuron_ioctl_dma_ack_completed *)
#define NEURON_IOCTL_DMA_QUEUE_GET_STATE \
	_IOWR(NEURON_IOCTL_BASE, 37, struct neuron_ioctl_dma_queue_get_state *)
/* nr 38: same pattern as nr 23 */
#define NEURON_IOCTL_DMA_COPY_DESCRIPTORS \
	_IOR(NEURON_IOCTL_BASE, 38, struct neuron_ioctl_dma_copy_descriptors *)
#define NEURON_IOCTL_DMA_COPY_DESCRIPTORS64 \
	_IOR(NEURON_IOCTL_BASE, 38, struct neuron_ioctl_dma_copy_descriptors64)
#define NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT \
	_IOWR(NEURON_IOCTL_BASE, 39, \
	      struct neuron_ioctl_dma_descriptor_copyout *)
/* Not supported; see struct neuron_ioctl_dma_quiesce_all above. */
#define NEURON_IOCTL_DMA_QUIESCE_QUEUES \
	_IOR(NEURON_IOCTL_BASE, 40, struct neuron_ioctl_dma_quiesce_all *)

/* Semaphores and events */
#define NEURON_IOCTL_SEMAPHORE_INCREMENT \
	_IOR(NEURON_IOCTL_BASE, 41, struct neuron_ioctl_semaphore *)
#define NEURON_IOCTL_SEMAPHORE_DECREMENT \
	_IOR(NEURON_IOCTL_BASE, 42, struct neuron_ioctl_semaphore *)
#define NEURON_IOCTL_SEMAPHORE_READ \
	_IOWR(NEURON_IOCTL_BASE, 43, struct neuron_ioctl_semaphore *)
#define NEURON_IOCTL_SEMAPHORE_WRITE \
	_IOR(NEURON_IOCTL_BASE, 44, struct neuron_ioctl_semaphore *)
#define NEURON_IOCTL_EVENT_SET \
	_IOR(NEURON_IOCTL_BASE, 45, struct neuron_ioctl_semaphore *)
#define NEURON_IOCTL_EVENT_GET \
	_IOWR(NEURON_IOCTL_BASE, 46, struct neuron_ioctl_semaphore *)

/* Notification queues */
#define NEURON_IOCTL_NOTIFICATIONS_INIT_V1 \
	_IOR(NEURON_IOCTL_BASE, 51, struct neuron_ioctl_notifications_init_v1 *)
#define NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1 \
	_IOR(NEURON_IOCTL_BASE, 52, struct neuron_ioctl_notifications_destroy *)
#define NEURON_IOCTL_NOTIFICATIONS_INIT_V2 \
	_IOR(NEURON_IOCTL_BASE, 53, struct neuron_ioctl_notifications_init_v2 *)
#define NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2 \
	_IOR(NEURON_IOCTL_BASE, 54, \
	     struct neuron_ioctl_notifications_init_with_realloc_v2 *)
#define NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO \
	_IOR(NEURON_IOCTL_BASE, 58, \
	     struct neuron_ioctl_notifications_queue_info *)

/* Hardware counters and datastore */
#define NEURON_IOCTL_READ_HW_COUNTERS \
	_IOR(NEURON_IOCTL_BASE, 61, struct neuron_ioctl_read_hw_counters *)
#define NEURON_IOCTL_ACQUIRE_NEURON_DS \
	_IOR(NEURON_IOCTL_BASE, 71, struct neuron_ioctl_neuron_ds_info *)
#define NEURON_IOCTL_RELEASE_NEURON_DS \
	_IOR(NEURON_IOCTL_BASE, 72, struct neuron_ioctl_neuron_ds_info *)

/* Core reader/writer locks and core range reservation */
#define NEURON_IOCTL_CRWL_READER_ENTER \
	_IOW(NEURON_IOCTL_BASE, 81, struct neuron_ioctl_crwl *)
#define NEURON_IOCTL_CRWL_READER_EXIT \
	_IOW(NEURON_IOCTL_BASE, 82, struct neuron_ioctl_crwl *)
#define NEURON_IOCTL_CRWL_WRITER_ENTER \
	_IOW(NEURON_IOCTL_BASE, 83, struct neuron_ioctl_crwl *)
#define NEURON_IOCTL_CRWL_WRITER_DOWNGRADE \
	_IOW(NEURON_IOCTL_BASE, 84, struct neuron_ioctl_crwl *)
/* nr 85 and 86: the 24-byte forms encode a pointer size, EXT0 its struct */
#define NEURON_IOCTL_CRWL_NC_RANGE_MARK \
	_IOW(NEURON_IOCTL_BASE, 85, struct neuron_ioctl_crwl_nc_map *)
#define NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0 \
	_IOWR(NEURON_IOCTL_BASE, 85, struct neuron_ioctl_crwl_nc_map_ext)
#define NEURON_IOCTL_CRWL_NC_RANGE_UNMARK \
	_IOW(NEURON_IOCTL_BASE, 86, struct neuron_ioctl_crwl_nc_map *)
#define NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0 \
	_IOW(NEURON_IOCTL_BASE, 86, struct neuron_ioctl_crwl_nc_map_ext)

/* Core initialisation and versions */
#define NEURON_IOCTL_CINIT_SET_STATE \
	_IOW(NEURON_IOCTL_BASE, 91, struct neuron_ioctl_cinit_set *)
#define NEURON_IOCTL_NC_MODEL_STARTED_COUNT \
	_IOW(NEURON_IOCTL_BASE, 92, \
	     struct neuron_ioctl_nc_model_started_count *)
#define NEURON_IOCTL_COMPATIBLE_VERSION \
	_IOW(NEURON_IOCTL_BASE, 93, struct neuron_ioctl_compatible_version *)

/* Device identity */
#define NEURON_IOCTL_DEVICE_BASIC_INFO \
	_IOW(NEURON_IOCTL_BASE, 100, struct neuron_ioctl_device_basic_info *)
#define NEURON_IOCTL_DEVICE_BDF \
	_IOR(NEURON_IOCTL_BASE, 101, struct neuron_ioctl_device_bdf *)

/* nr 102: three allocation forms, told apart by encoded size (8, 48, 56) */
#define NEURON_IOCTL_MEM_ALLOC_V2 \
	_IOR(NEURON_IOCTL_BASE, 102, struct neuron_ioctl_mem_alloc_v2 *)
#define NEURON_IOCTL_MEM_ALLOC_V2MT \
	_IOR(NEURON_IOCTL_BASE, 102, struct neuron_ioctl_mem_alloc_v2_mem_type)
#define NEURON_IOCTL_MEM_ALLOC_V2MT64 \
	_IOR(NEURON_IOCTL_BASE, 102, \
	     struct neuron_ioctl_mem_alloc_v2_mem_type64)
#define NEURON_IOCTL_MEM_ALLOC_V2MT64_PA \
	_IOWR(NEURON_IOCTL_BASE, 102, \
	      struct neuron_ioctl_mem_alloc_v2_mem_type64_pa)

/* Per-core reset */
#define NEURON_IOCTL_NC_RESET \
	_IOR(NEURON_IOCTL_BASE, 103, struct neuron_ioctl_device_reset *)
#define NEURON_IOCTL_NC_RESET_READY \
	_IOR(NEURON_IOCTL_BASE, 104, struct neuron_ioctl_device_ready *)

/* nr 105: same pattern as nr 23 */
#define NEURON_IOCTL_PROGRAM_ENGINE_NC \
	_IOWR(NEURON_IOCTL_BASE, 105, struct neuron_ioctl_program_engine_nc *)
#define NEURON_IOCTL_PROGRAM_ENGINE_NC64 \
	_IOWR(NEURON_IOCTL_BASE, 105, struct neuron_ioctl_program_engine_nc64)

/* nr 106: two unrelated commands, told apart by encoded size (1, 8) */
#define NEURON_IOCTL_DEVICE_RESET_STATUS \
	_IOR(NEURON_IOCTL_BASE, 106, __u8)
#define NEURON_IOCTL_DEVICE_BDF_EXT \
	_IOR(NEURON_IOCTL_BASE, 106, struct neuron_ioctl_device_bdf_ext *)

#define NEURON_IOCTL_DMABUF_FD \
	_IOR(NEURON_IOCTL_BASE, 107, struct neuron_ioctl_dmabuf_fd *)

/* nr 108: asynchronous copy, 48- and 56-byte forms */
#define NEURON_IOCTL_MEM_COPY_ASYNC \
	_IOWR(NEURON_IOCTL_BASE, 108, struct neuron_ioctl_mem_copy_async)
#define NEURON_IOCTL_MEM_COPY_ASYNC64 \
	_IOWR(NEURON_IOCTL_BASE, 108, struct neuron_ioctl_mem_copy_async64)
#define NEURON_IOCTL_MEM_COPY_ASYNC_WAIT \
	_IOW(NEURON_IOCTL_BASE, 109, struct neuron_ioctl_mem_copy_async_wait)

/* nr 110: driver information, get and (unsupported) set */
#define NEURON_IOCTL_DRIVER_INFO_GET \
	_IOR(NEURON_IOCTL_BASE, 110, struct neuron_ioctl_device_driver_info)
#define NEURON_IOCTL_DRIVER_INFO_SET \
	_IOW(NEURON_IOCTL_BASE, 110, struct neuron_ioctl_device_driver_info)

/* nr 111: 24- and 32-byte forms */
#define NEURON_IOCTL_MEM_MC_GET_INFO \
	_IOWR(NEURON_IOCTL_BASE, 111, struct neuron_ioctl_mem_get_mc_mmap_info)
#define NEURON_IOCTL_MEM_MC_GET_INFO_V2 \
	_IOWR(NEURON_IOCTL_BASE, 111, \
	      struct neuron_ioctl_mem_get_mc_mmap_info_v2)

/* Resources, logging and topology */
#define NEURON_IOCTL_RESOURCE_MMAP_INFO \
	_IOWR(NEURON_IOCTL_BASE, 112, struct neuron_ioctl_resource_mmap_info)
#define NEURON_IOCTL_PRINTK \
	_IOW(NEURON_IOCTL_BASE, 113, struct neuron_ioctl_printk)
#define NEURON_IOCTL_HOST_DEVICE_ID \
	_IOR(NEURON_IOCTL_BASE, 114, struct neuron_ioctl_host_device_id)
#define NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP \
	_IOWR(NEURON_IOCTL_BASE, 115, \
	      struct neuron_ioctl_host_device_id_to_rid_map)
#define NEURON_IOCTL_DUMP_MEM_CHUNKS \
	_IOR(NEURON_IOCTL_BASE, 116, struct neuron_ioctl_dump_mem_chunks *)
#define NEURON_IOCTL_NC_PID_STATE_DUMP \
	_IOWR(NEURON_IOCTL_BASE, 117, struct neuron_ioctl_nc_pid_state_dump)

/* Memory scrubbing */
#define NEURON_IOCTL_HBM_SCRUB_START \
	_IOWR(NEURON_IOCTL_BASE, 118, struct neuron_ioctl_hbm_scrub_start)
#define NEURON_IOCTL_HBM_SCRUB_WAIT \
	_IOWR(NEURON_IOCTL_BASE, 119, struct neuron_ioctl_hbm_scrub_wait)

#define NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP \
	_IOWR(NEURON_IOCTL_BASE, 120, \
	      struct neuron_ioctl_get_logical_to_physical_nc_map)

/* Pods; nr 122 and 123 have v1 and v2 forms told apart by size */
#define NEURON_IOCTL_POD_INFO \
	_IOWR(NEURON_IOCTL_BASE, 121, struct neuron_ioctl_pod_info)
#define NEURON_IOCTL_POD_STATUS \
	_IOWR(NEURON_IOCTL_BASE, 122, struct neuron_ioctl_pod_status)
#define NEURON_IOCTL_POD_STATUS_V2 \
	_IOWR(NEURON_IOCTL_BASE, 122, struct neuron_ioctl_pod_status_v2)
#define NEURON_IOCTL_POD_CTRL \
	_IOWR(NEURON_IOCTL_BASE, 123, struct neuron_ioctl_pod_ctrl)
#define NEURON_IOCTL_POD_CTRL_V2 \
	_IOWR(NEURON_IOCTL_BASE, 123, struct neuron_ioctl_pod_ctrl_v2)

/* Zero-copy, host-to-device queues, power and telemetry */
#define NEURON_IOCTL_MEM_BUF_ZEROCOPY64 \
	_IOWR(NEURON_IOCTL_BASE, 124, struct neuron_ioctl_mem_buf_copy64zc)
#define NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED \
	_IOWR(NEURON_IOCTL_BASE, 124, struct neuron_ioctl_mem_buf_copy64zc_deprecated)
#define NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES \
	_IOWR(NEURON_IOCTL_BASE, 125, struct neuron_ioctl_h2t_dma_alloc_queues)
#define NEURON_IOCTL_H2T_DMA_FREE_QUEUES \
	_IOWR(NEURON_IOCTL_BASE, 126, struct neuron_ioctl_h2t_dma_free_queues)
#define NEURON_IOCTL_POWER_PROFILE \
	_IOW(NEURON_IOCTL_BASE, 127, struct neuron_ioctl_power_profile)
#define NEURON_IOCTL_METRICS_CTRL \
	_IOW(NEURON_IOCTL_BASE, 128, struct neuron_ioctl_metrics_ctrl)
#define NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES \
	_IOWR(NEURON_IOCTL_BASE, 129, \
	      struct neuron_ioctl_mem_buf_copy64zc_batches)
#define NEURON_IOCTL_THROTTLING_NOTIFICATIONS \
	_IOW(NEURON_IOCTL_BASE, 130, \
	     struct neuron_ioctl_throttling_notifications)
/* Encoded _IOW, but the result is written back. */
#define NEURON_IOCTL_GET_VA_PLACEMENT \
	_IOW(NEURON_IOCTL_BASE, 131, struct neuron_ioctl_get_va_placement)
#define NEURON_IOCTL_GET_PERFORMANCE_PROFILE \
	_IOWR(NEURON_IOCTL_BASE, 132, struct neuron_ioctl_power_profile)
/* Passed by value: 12296 bytes, the largest encoded size of any command. */
#define NEURON_IOCTL_DMA_QUEUE_INIT_BATCH \
	_IOR(NEURON_IOCTL_BASE, 133, struct neuron_ioctl_dma_queue_init_batch)
#define NEURON_IOCTL_AVAILABLE_PERF_PROFILES \
	_IOWR(NEURON_IOCTL_BASE, 134, \
	      struct neuron_ioctl_available_perf_profiles)
#define NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES \
	_IOWR(NEURON_IOCTL_BASE, 135, \
	      struct neuron_ioctl_get_async_h2t_dma_compl_queues)
#define NEURON_IOCTL_HOST_MEM_PIN \
	_IOWR(NEURON_IOCTL_BASE, 136, struct neuron_ioctl_host_mem_pin)
#define NEURON_IOCTL_HOST_MEM_UNPIN \
	_IOW(NEURON_IOCTL_BASE, 137, struct neuron_ioctl_host_mem_unpin)
#define NEURON_IOCTL_DMABUF_FD_V2 \
	_IOR(NEURON_IOCTL_BASE, 138, struct neuron_ioctl_dmabuf_fd_v2 *)

#endif /* _UAPI_NEURON_IOCTL_H */
