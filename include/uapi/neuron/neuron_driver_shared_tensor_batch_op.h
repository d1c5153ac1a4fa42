/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Neuron accelerator userspace ABI: the per-segment descriptor of a batched
 * host <-> device copy.
 *
 * The Neuron runtime builds arrays of these and hands them to the driver
 * through struct neuron_memcpy_batch (see neuron_driver_shared.h) and
 * NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES (see neuron_ioctl.h).  The type
 * lives in a header of its own so that the runtime can share it without
 * pulling in the rest of the driver ABI.
 *
 * Layout is fixed for LP64 (x86_64, arm64); the selftest in
 * selftests/abi/ checks it against the reference driver's compiled ABI.
 */
#ifndef _UAPI_NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H
#define _UAPI_NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H

#include <linux/types.h>

/*
 * Byte offset and byte count of one segment.  The reference header spells
 * these as uint64_t; we use __u64 so that the header needs no libc.  Size,
 * alignment and signedness are identical; only the underlying C type
 * differs (unsigned long long here, unsigned long for uint64_t on LP64),
 * which matters solely for pointer-type compatibility and printf formats.
 */
typedef __u64 nrt_tensor_batch_offset_t;
typedef __u64 nrt_tensor_batch_size_t;

/**
 * struct nrt_tensor_batch_op - one segment of a batched host/device copy
 * @offset: In. Byte offset of the segment inside the device memory chunk,
 *          relative to the owning batch's @mem_handle_offset.
 * @size: In. Number of bytes to copy; zero is rejected.
 * @buffer: In. User-space address of the host side of the copy.  A plain
 *          pointer, as in the reference, so callers can assign addresses
 *          directly; it occupies 8 bytes at offset 16 on LP64.
 *
 * The direction of the copy is a property of the whole batch request, not
 * of the segment.
 */
typedef struct nrt_tensor_batch_op {
	nrt_tensor_batch_offset_t offset;
	nrt_tensor_batch_size_t size;
	void *buffer;
} nrt_tensor_batch_op_t;

#endif /* _UAPI_NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H */
