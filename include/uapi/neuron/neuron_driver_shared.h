/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Neuron accelerator userspace ABI: types and constants shared between the
 * driver, the Neuron runtime and the monitoring tools.
 *
 * This header holds what the ioctl argument structs point to or embed, the
 * enumerations whose values travel through ioctl fields, the layouts of
 * memory that user space maps from the driver (the per-process datastore
 * and the asynchronous host-to-device completion queues) and the layout
 * constants of the datastore.  neuron_ioctl.h includes it; it can also be
 * included on its own.
 *
 * All layouts are fixed for LP64 (x86_64 and arm64 give identical results)
 * and match the aws-neuronx-dkms 2.27.4.0 driver byte for byte.  The driver
 * has no 32-bit compat path.  selftests/abi/ checks every size, offset and
 * value against the reference driver's compiled ABI.
 *
 * Declarations that contain a flexible array member or an anonymous struct
 * start with __extension__, which keeps gcc and clang quiet under
 * -std=c89 -pedantic and in C++ -pedantic without changing any layout.
 */
#ifndef _UAPI_NEURON_DRIVER_SHARED_H
#define _UAPI_NEURON_DRIVER_SHARED_H

#include <linux/types.h>

#include "neuron_driver_shared_tensor_batch_op.h"

/**
 * enum neuron_driver_feature_flag - capability bits of the running driver
 * @NEURON_DRIVER_FEATURE_DMABUF: memory can be exported as a dma-buf
 *	(NEURON_IOCTL_DMABUF_FD).
 * @NEURON_DRIVER_FEATURE_ASYNC_DMA: asynchronous host-to-device copies
 *	(NEURON_IOCTL_MEM_COPY_ASYNC and its wait command).
 * @NEURON_DRIVER_FEATURE_BATCH_DMAQ_INIT: NEURON_IOCTL_DMA_QUEUE_INIT_BATCH.
 * @NEURON_DRIVER_FEATURE_BIG_CORE_MAPS: the 80-byte core range mark/unmark
 *	variants with a 512-bit core bitmap.
 * @NEURON_DRIVER_FEATURE_MEM_ALLOC_TYPE: allocations carry a caller-chosen
 *	memory category (mem_alloc_category_t).
 * @NEURON_DRIVER_FEATURE_HBM_SCRUB: NEURON_IOCTL_HBM_SCRUB_START/WAIT.
 * @NEURON_DRIVER_FEATURE_MEM_ALLOC64: the allocation command with the
 *	56-byte argument (NEURON_IOCTL_MEM_ALLOC_V2MT64).
 * @NEURON_DRIVER_FEATURE_CONTIGUOUS_SCRATCHPAD: contiguous scratchpad
 *	allocations (NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE).
 * @NEURON_DRIVER_FEATURE_ZEROCOPY: zero-copy transfers
 *	(NEURON_IOCTL_MEM_BUF_ZEROCOPY64 and the batched form).
 * @NEURON_DRIVER_FEATURE_PINNED_HOST_MEM: host memory pinning
 *	(NEURON_IOCTL_HOST_MEM_PIN and _UNPIN; driver 2.28).
 * @NEURON_DRIVER_FEATURE_ALLOC_WITH_PA: an allocation that reports its
 *	physical address (NEURON_IOCTL_MEM_ALLOC_V2MT64_PA; driver 2.28).
 * @NEURON_DRIVER_FEATURE_ASYNC_IO: asynchronous zero-copy transfers with a
 *	sequence number and context (the 64-byte
 *	NEURON_IOCTL_MEM_BUF_ZEROCOPY64; driver 2.29).
 *
 * Reported, OR-ed together, in
 * &neuron_ioctl_device_driver_info.feature_flags1.
 */
enum neuron_driver_feature_flag {
	NEURON_DRIVER_FEATURE_DMABUF			= 1,
	NEURON_DRIVER_FEATURE_ASYNC_DMA			= 2,
	NEURON_DRIVER_FEATURE_BATCH_DMAQ_INIT		= 4,
	NEURON_DRIVER_FEATURE_BIG_CORE_MAPS		= 8,
	NEURON_DRIVER_FEATURE_MEM_ALLOC_TYPE		= 16,
	NEURON_DRIVER_FEATURE_HBM_SCRUB			= 32,
	NEURON_DRIVER_FEATURE_MEM_ALLOC64		= 64,
	NEURON_DRIVER_FEATURE_CONTIGUOUS_SCRATCHPAD	= 128,
	NEURON_DRIVER_FEATURE_ZEROCOPY			= 256,
	NEURON_DRIVER_FEATURE_PINNED_HOST_MEM		= 512,
	NEURON_DRIVER_FEATURE_ALLOC_WITH_PA		= 1024,
	NEURON_DRIVER_FEATURE_ASYNC_IO			= 2048
};

/**
 * enum neuron_pod_type - how the devices of a pod (UltraServer) are joined
 * @NEURON_POD_TYPE_NONE: the device is not part of a pod.
 * @NEURON_POD_TYPE_P2P: pod members are linked point to point.
 * @NEURON_POD_TYPE_SWITCH: pod members are linked through a switch.
 *
 * Reported in &neuron_ioctl_pod_info.pod_type and
 * &neuron_ioctl_pod_status.pod_type.  (The reference leaves this enum
 * untagged; the tag exists only for documentation.)
 */
enum neuron_pod_type {
	NEURON_POD_TYPE_NONE	= 0,
	NEURON_POD_TYPE_P2P	= 1,
	NEURON_POD_TYPE_SWITCH	= 2
};

/**
 * enum neuron_pod_election_state - progress of the pod election
 * @NEURON_POD_E_STATE_NOT_STARTED: no election has run yet.
 * @NEURON_POD_E_STATE_IN_PROGRESS: an election is running.
 * @NEURON_POD_E_STATE_ULTRASERVER: the election succeeded; the node is a
 *	member of a multi-node pod.
 * @NEURON_POD_E_STATE_FAILED: the election failed.
 * @NEURON_POD_E_STATE_SINGLE_NODE: the node runs on its own.
 *
 * Reported in &neuron_ioctl_pod_status.state and &neuron_ioctl_pod_ctrl.state.
 * (Untagged in the reference; the tag exists only for documentation.)
 */
enum neuron_pod_election_state {
	NEURON_POD_E_STATE_NOT_STARTED	= 0,
	NEURON_POD_E_STATE_IN_PROGRESS	= 1,
	NEURON_POD_E_STATE_ULTRASERVER	= 2,
	NEURON_POD_E_STATE_FAILED	= 3,
	NEURON_POD_E_STATE_SINGLE_NODE	= 4
};

/**
 * enum neuron_pod_ctrl_req - requests accepted by NEURON_IOCTL_POD_CTRL
 * @NEURON_NPE_POD_CTRL_REQ_POD: start an election to form a pod.
 * @NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE: leave the pod and run as a single
 *	node.
 * @NEURON_NPE_POD_CTRL_REQ_KILL: stop an election in progress.
 * @NEURON_NPE_POD_CTRL_SET_MODE: select an UltraServer mode (the mode is in
 *	&neuron_ioctl_pod_ctrl_v2.mode).
 */
enum neuron_pod_ctrl_req {
	NEURON_NPE_POD_CTRL_REQ_POD		= 0,
	NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE	= 1,
	NEURON_NPE_POD_CTRL_REQ_KILL		= 2,
	NEURON_NPE_POD_CTRL_SET_MODE		= 3
};

/**
 * enum neuron_ultraserver_mode - shape of the pod the node belongs to
 * @NEURON_ULTRASERVER_MODE_UNSET: no mode chosen.
 * @NEURON_ULTRASERVER_MODE_X4: four nodes.
 * @NEURON_ULTRASERVER_MODE_X2H: two nodes, horizontal pairing.
 * @NEURON_ULTRASERVER_MODE_X2V: two nodes, vertical pairing.
 * @NEURON_ULTRASERVER_MODE_X1: a single node.
 *
 * Used in &neuron_ioctl_pod_status_v2.mode and &neuron_ioctl_pod_ctrl_v2.mode.
 */
enum neuron_ultraserver_mode {
	NEURON_ULTRASERVER_MODE_UNSET	= 0,
	NEURON_ULTRASERVER_MODE_X4	= 1,
	NEURON_ULTRASERVER_MODE_X2H	= 2,
	NEURON_ULTRASERVER_MODE_X2V	= 3,
	NEURON_ULTRASERVER_MODE_X1	= 4
};

/**
 * enum neuron_metrics_mode - argument of NEURON_IOCTL_METRICS_CTRL
 * @NEURON_METRICS_MODE_PERIODIC_ENABLE: resume periodic metric posting.
 * @NEURON_METRICS_MODE_PERIODIC_DISABLE: stop periodic metric posting.
 */
enum neuron_metrics_mode {
	NEURON_METRICS_MODE_PERIODIC_ENABLE	= 0,
	NEURON_METRICS_MODE_PERIODIC_DISABLE	= 1
};

/*
 * Core map value that selects every core of the device at once (a whole
 * device reset rather than a per-core one).
 */
#define NEURON_NC_MAP_DEVICE	0xffffffffU

/**
 * enum neuron_dma_queue_type - which ring of a DMA queue is meant
 * @NEURON_DMA_QUEUE_TYPE_TX: the transmit (read-from-source) ring.
 * @NEURON_DMA_QUEUE_TYPE_RX: the receive (write-to-destination) ring.
 * @NEURON_DMA_QUEUE_TYPE_COMPLETION: the completion ring.
 *
 * Used by &neuron_ioctl_dma_copy_descriptors.queue_type and
 * &neuron_ioctl_dma_descriptor_copyout.type.  Fields of this type are
 * 4 bytes wide on every Linux ABI the driver supports.
 */
enum neuron_dma_queue_type {
	NEURON_DMA_QUEUE_TYPE_TX		= 0,
	NEURON_DMA_QUEUE_TYPE_RX		= 1,
	NEURON_DMA_QUEUE_TYPE_COMPLETION	= 2
};

/**
 * enum neuron_cinit_state - core initialisation handshake states
 * @NEURON_CINIT_STATE_STARTED: a process has claimed the job of
 *	initialising the core.
 * @NEURON_CINIT_STATE_COMPLETED: the core has been initialised.
 * @NEURON_CINIT_STATE_INVALID: nobody has started initialisation since the
 *	last reset.
 *
 * Used in &neuron_ioctl_cinit_set.
 */
enum neuron_cinit_state {
	NEURON_CINIT_STATE_STARTED	= 1,
	NEURON_CINIT_STATE_COMPLETED	= 2,
	NEURON_CINIT_STATE_INVALID	= 3
};

/**
 * enum neuron_dma_eng_state_code - a DMA engine half's state
 * @NEURON_DMA_ENG_DISABLE: stopped (set only; reads back as idle)
 * @NEURON_DMA_ENG_IDLE: nothing active (read only)
 * @NEURON_DMA_ENG_NORMAL: running
 * @NEURON_DMA_ENG_ABORT: stopped by an error or an abort request
 *
 * Values of &neuron_dma_eng_state.tx_state and .rx_state, and of
 * &neuron_ioctl_dma_eng_set_state.state.
 */
enum neuron_dma_eng_state_code {
	NEURON_DMA_ENG_DISABLE	= 0,
	NEURON_DMA_ENG_IDLE	= 1,
	NEURON_DMA_ENG_NORMAL	= 2,
	NEURON_DMA_ENG_ABORT	= 3
};

/**
 * struct neuron_dma_eng_state - snapshot of one DMA engine
 * @revision_id: engine hardware revision.
 * @max_queues: number of queues the engine implements.
 * @num_queues: number of queues currently enabled.
 * @tx_state: state of the transmit side (enum neuron_dma_eng_state_code).
 * @rx_state: state of the receive side (enum neuron_dma_eng_state_code).
 *
 * Filled by NEURON_IOCTL_DMA_ENG_GET_STATE.
 */
struct neuron_dma_eng_state {
	__u32 revision_id;
	__u32 max_queues;
	__u32 num_queues;
	__u32 tx_state;
	__u32 rx_state;
};

/**
 * struct neuron_dma_queue_state - snapshot of one ring of a DMA queue
 * @hw_status: status as read from the hardware.
 * @sw_status: status as tracked by the driver.
 * @base_addr: device-visible address of the descriptor ring: the ring the
 *	caller gave the queue with NEURON_IOCTL_DMA_QUEUE_INIT, or 0 for a
 *	queue the caller did not initialise (the driver's or another
 *	process's).
 * @length: ring length in descriptors.
 * @head_pointer: current head index.
 * @tail_pointer: current tail index.
 * @completion_base_addr: device-visible address of the completion ring.
 * @completion_head: current completion head index.
 *
 * Filled by NEURON_IOCTL_DMA_QUEUE_GET_STATE.  There are 4 padding bytes
 * after @tail_pointer and 4 after @completion_head.
 */
struct neuron_dma_queue_state {
	__u32 hw_status;
	__u32 sw_status;
	__u64 base_addr;
	__u32 length;
	__u32 head_pointer;
	__u32 tail_pointer;
	__u64 completion_base_addr;
	__u32 completion_head;
};

/**
 * enum neuron_dma_h2t_ctx_handle_type - host-to-device copy context handles
 * @NEURON_DMA_H2T_CTX_HANDLE_NONE: no context (nothing to wait for).
 * @NEURON_DMA_H2T_CTX_HANDLE_SYNC: the synchronous context.
 * @NEURON_DMA_H2T_CTX_HANDLE_ASYNC1: first asynchronous context.
 * @NEURON_DMA_H2T_CTX_HANDLE_ASYNC2: second asynchronous context.
 * @NEURON_DMA_H2T_CTX_HANDLE_CNT: number of contexts.
 *
 * The asynchronous values are what &neuron_ioctl_mem_copy_async.wait_handle
 * returns and what .pwait_handle and NEURON_IOCTL_MEM_COPY_ASYNC_WAIT take.
 */
enum neuron_dma_h2t_ctx_handle_type {
	NEURON_DMA_H2T_CTX_HANDLE_NONE		= -1,
	NEURON_DMA_H2T_CTX_HANDLE_SYNC		= 0,
	NEURON_DMA_H2T_CTX_HANDLE_ASYNC1	= 1,
	NEURON_DMA_H2T_CTX_HANDLE_ASYNC2	= 2,
	NEURON_DMA_H2T_CTX_HANDLE_CNT		= 3
};

/* h2t_qid value that asks for the core's default host-to-device queue. */
#define NEURON_DMA_H2T_DEFAULT_QID	(-1)

/**
 * enum NQ_DEVICE_TYPE - kind of block a notification queue belongs to
 * @NQ_DEVICE_TYPE_NEURON_CORE: a NeuronCore.
 * @NQ_DEVICE_TYPE_TOPSP: a TOP_SP block.
 * @NQ_DEVICE_TYPE_MAX: number of kinds.
 *
 * Used in the nq_dev_type field of the notification queue commands.
 */
enum NQ_DEVICE_TYPE {
	NQ_DEVICE_TYPE_NEURON_CORE	= 0,
	NQ_DEVICE_TYPE_TOPSP		= 1,
	NQ_DEVICE_TYPE_MAX		= 2
};

/**
 * enum NQ_TYPE - kind of notification a queue carries
 * @NQ_TYPE_TRACE: execution trace records.
 * @NQ_TYPE_NOTIFY: notifications raised by programs.
 * @NQ_TYPE_EVENT: event changes.
 * @NQ_TYPE_ERROR: error reports.
 * @NQ_TYPE_TRACE_DMA: DMA trace records.
 * @NQ_TYPE_THROTTLE: throttling notifications.
 * @NQ_TYPE_MAX: number of kinds.
 *
 * Used in the nq_type field of the notification queue commands.
 */
enum NQ_TYPE {
	NQ_TYPE_TRACE		= 0,
	NQ_TYPE_NOTIFY		= 1,
	NQ_TYPE_EVENT		= 2,
	NQ_TYPE_ERROR		= 3,
	NQ_TYPE_TRACE_DMA	= 4,
	NQ_TYPE_THROTTLE	= 5,
	NQ_TYPE_MAX		= 6
};

/**
 * enum neuron_dm_block_type - device block whose resource is to be mapped
 * @NEURON_DM_BLOCK_INVALID: no block.
 * @NEURON_DM_BLOCK_TPB: a NeuronCore (tensor processing block).
 * @NEURON_DM_BLOCK_TOPSP: a TOP_SP block.
 * @NEURON_DM_BLOCK_HBM: a high-bandwidth memory stack.
 *
 * &neuron_ioctl_resource_mmap_info.block.
 */
enum neuron_dm_block_type {
	NEURON_DM_BLOCK_INVALID	= -1,
	NEURON_DM_BLOCK_TPB	= 0,
	NEURON_DM_BLOCK_TOPSP	= 1,
	NEURON_DM_BLOCK_HBM	= 2
};

/**
 * enum neuron_dm_resource_type - resource inside a block to be mapped
 * @NEURON_DM_RESOURCE_SEMAPHORE: the semaphore registers.
 * @NEURON_DM_RESOURCE_ALL: the whole block (mapped read-only).
 * @NEURON_DM_RESOURCE_SBUF: the state buffer.
 * @NEURON_DM_RESOURCE_DMEM: device memory.
 *
 * &neuron_ioctl_resource_mmap_info.resource.
 */
enum neuron_dm_resource_type {
	NEURON_DM_RESOURCE_SEMAPHORE	= 0,
	NEURON_DM_RESOURCE_ALL		= 1,
	NEURON_DM_RESOURCE_SBUF		= 2,
	NEURON_DM_RESOURCE_DMEM		= 3
};

/**
 * struct neuron_uuid - 32-byte model identifier chosen by the runtime
 * @value: the identifier bytes; opaque to the driver, compared bytewise.
 */
struct neuron_uuid {
	__u8 value[32];
};

/* Maximum number of processes that can have one device open at a time. */
#define NEURON_MAX_PROCESS_PER_DEVICE	16

/* Bits of &neuron_ioctl_get_apps_info.apps_info_flags: what to report. */
#define APP_INFO_PID_NC_LOCK_INFO	1	/* core locks and model ids */
#define APP_INFO_PID_MEM_USAGE		2	/* host and device memory use */
#define APP_INFO_ALL			15	/* everything */

/* Number of model ids reported per process in &neuron_app_info.uuid_data. */
#define APP_INFO_MAX_MODELS_PER_DEVICE	4

/* Datastore id that names no datastore entry. */
#define NDS_INVALID_ID	(-1)

/**
 * struct neuron_app_info - one process that has the device open
 * @pid: the process id.
 * @nc_lock_map: bit i set when the process holds the lock of core i, for
 *	the first APP_INFO_MAX_MODELS_PER_DEVICE cores of the device.
 * @uuid_data: for each of those cores, the id of the model the process
 *	loaded there (zero where bit i of @nc_lock_map is clear).
 * @host_mem_size: bytes of host memory the process has allocated through
 *	the device.
 * @device_mem_size: bytes of device memory the process has allocated.
 *
 * Element of &neuron_ioctl_get_apps_info.app_data.  The reference spells
 * the two sizes as size_t; __kernel_size_t is the same type on Linux
 * without needing libc.  There are 3 padding bytes after @uuid_data.
 */
struct neuron_app_info {
	__s32 pid;
	__u8 nc_lock_map;
	struct neuron_uuid uuid_data[APP_INFO_MAX_MODELS_PER_DEVICE];
	__kernel_size_t host_mem_size;
	__kernel_size_t device_mem_size;
};

/**
 * union nmetric_version - a software version packed into 64 bits
 * @build_num: build number (bits 0-31).
 * @minor_ver: minor version (bits 32-39).
 * @major_ver: major version (bits 40-47).
 * @reserved: unused (bits 48-63).
 * @all: the whole value, as stored in the datastore's version counters.
 *
 * Bit positions are given for the little-endian ABIs (x86_64, arm64) the
 * driver runs on.  The bit-fields sit in an anonymous struct, as in the
 * reference.
 */
__extension__ typedef union nmetric_version {
	struct {
		__u64 build_num : 32;
		__u64 minor_ver : 8;
		__u64 major_ver : 8;
		__u64 reserved : 16;
	};
	__u64 all;
} nmetric_version_t;

/**
 * struct neuron_ioctl_mem_chunk_info - one allocated device memory chunk
 * @pa: device physical address of the chunk.
 * @size: size in bytes.
 * @mem_type: category of the allocation (mem_alloc_category_t).
 *
 * Element of the array NEURON_IOCTL_DUMP_MEM_CHUNKS fills.  4 padding bytes
 * follow @mem_type.
 */
struct neuron_ioctl_mem_chunk_info {
	__u64 pa;
	__u64 size;
	__u32 mem_type;
};

/* Largest number of entries a logical-to-physical core map can hold. */
#define NEURON_NC_MAP_MAX_ENTRIES	128

/**
 * enum neuron_ioctl_nc_mapping_type - version of the core map format
 * @NEURON_IOCTL_NC_MAPPING_TYPE_V0: entries are (device, core) pairs as in
 *	struct neuron_ioctl_nc_map_entry.
 *
 * &neuron_ioctl_get_logical_to_physical_nc_map.mapping_version.
 */
enum neuron_ioctl_nc_mapping_type {
	NEURON_IOCTL_NC_MAPPING_TYPE_V0	= 0
};

/**
 * struct neuron_ioctl_nc_map_entry - where one logical core lives
 * @device_id: index of the device that holds the core.
 * @device_nc_idx: index of the physical core within that device.
 */
struct neuron_ioctl_nc_map_entry {
	__u32 device_id;
	__u32 device_nc_idx;
};

/**
 * struct neuron_ioctl_nc_map - logical-to-physical core map
 * @num_entries: Out. Number of valid entries in @mappings.
 * @mappings: Out. One entry per logical core, indexed by logical core
 *	number.
 *
 * User space allocates room for the header plus
 * &neuron_ioctl_get_logical_to_physical_nc_map.max_map_entries entries.
 */
__extension__ struct neuron_ioctl_nc_map {
	__u32 num_entries;
	struct neuron_ioctl_nc_map_entry mappings[];
};

/**
 * struct neuron_memcpy_batch - one batch of a batched zero-copy transfer
 * @mem_handle: In. Handle of the device memory chunk of this batch.
 * @mem_handle_offset: In. Base byte offset in the chunk; each operation's
 *	offset is added to it.
 * @ops_ptr: In. User address of @num_ops struct nrt_tensor_batch_op.
 * @num_ops: In. Number of operations; must be non-zero.
 * @bar4_wr_threshold: In. Operations up to this many bytes may be written
 *	straight through the device memory BAR instead of by DMA.
 * @flags: In. Reserved for batch options.
 * @context: In. Opaque caller cookie, handed back in the completion queue
 *	entry of an asynchronous transfer.
 *
 * Element of the array &neuron_ioctl_mem_buf_copy64zc_batches.batches_ptr
 * points to.  @ops_ptr and @context are plain pointers, as in the
 * reference, so callers can assign addresses without casts; each takes 8
 * bytes on LP64.
 */
typedef struct neuron_memcpy_batch {
	__u64 mem_handle;
	__u64 mem_handle_offset;
	const nrt_tensor_batch_op_t *ops_ptr;
	__u32 num_ops;
	__u16 bar4_wr_threshold;
	__u16 flags;
	void *context;
} neuron_memcpy_batch_t;

/**
 * struct neuron_h2d_dma_compl_queue_entry - one completed asynchronous copy
 * @sequence_num: sequence number of the transfer that completed.
 * @compl_ret: completion status of the transfer.
 * @context: the caller's cookie from &neuron_memcpy_batch.context.
 *
 * Lives in memory mapped from the driver (see struct
 * neuron_h2d_dma_compl_queue), never passed through an ioctl.  @context is
 * a pointer as in the reference, so an entry is 24 bytes on LP64.
 */
typedef struct neuron_h2d_dma_compl_queue_entry {
	__u64 sequence_num;
	__s64 compl_ret;
	void *context;
} neuron_h2d_dma_compl_queue_entry_t;

/**
 * struct neuron_h2d_dma_compl_queue - completion ring of one host-to-device
 * DMA queue, shared with user space through mmap
 * @capacity: number of entries in @entries.
 * @head: index of the next entry user space will consume.
 * @tail: index of the next entry the driver will fill.
 * @entries: the ring.
 *
 * NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES returns the mmap offset and
 * size of each queue's ring.  There are 4 padding bytes before @entries.
 */
__extension__ typedef struct neuron_h2d_dma_compl_queue {
	__u32 capacity;
	__u32 head;
	__u32 tail;
	neuron_h2d_dma_compl_queue_entry_t entries[];
} neuron_h2d_dma_compl_queue_t;

/**
 * enum mem_alloc_category_t - what an allocation is used for
 * @NEURON_MEMALLOC_TYPE_UNKNOWN_HOST: host memory, use not stated.
 * @NEURON_MEMALLOC_TYPE_CODE_HOST: host memory holding program code.
 * @NEURON_MEMALLOC_TYPE_TENSORS_HOST: host memory holding tensors.
 * @NEURON_MEMALLOC_TYPE_CONSTANTS_HOST: host memory holding constants.
 * @NEURON_MEMALLOC_TYPE_MISC_HOST: other host memory used by the runtime.
 * @NEURON_MEMALLOC_TYPE_NCDEV_HOST: host memory used by the driver itself.
 * @NEURON_MEMALLOC_TYPE_NOTIFICATION_HOST: host notification queues.
 * @NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE: device memory, use not stated.
 * @NEURON_MEMALLOC_TYPE_CODE_DEVICE: device memory holding program code.
 * @NEURON_MEMALLOC_TYPE_TENSORS_DEVICE: device memory holding tensors.
 * @NEURON_MEMALLOC_TYPE_CONSTANTS_DEVICE: device memory holding constants.
 * @NEURON_MEMALLOC_TYPE_SCRATCHPAD_DEVICE: shared device scratchpad.
 * @NEURON_MEMALLOC_TYPE_MISC_DEVICE: other device memory used by the
 *	runtime.
 * @NEURON_MEMALLOC_TYPE_NCDEV_DEVICE: device memory used by the driver.
 * @NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE: device memory for collectives.
 * @NEURON_MEMALLOC_TYPE_SCRATCHPAD_NONSHARED_DEVICE: private scratchpad.
 * @NEURON_MEMALLOC_TYPE_NOTIFICATION_DEVICE: device notification queues.
 * @NEURON_MEMALLOC_TYPE_DMA_RINGS_HOST: DMA descriptor rings in host memory.
 * @NEURON_MEMALLOC_TYPE_DMA_RINGS_DEVICE: DMA descriptor rings in device
 *	memory.
 * @NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE: physically contiguous
 *	device scratchpad.
 * @NEURON_MEMALLOC_TYPE_MAX: number of categories.
 *
 * Passed in the mem_type field of the typed allocation commands and
 * reported in &neuron_ioctl_mem_chunk_info.mem_type.  As in the reference,
 * this is an untagged enum known only by its typedef name.
 */
typedef enum {
	NEURON_MEMALLOC_TYPE_UNKNOWN_HOST			= 0,
	NEURON_MEMALLOC_TYPE_CODE_HOST				= 1,
	NEURON_MEMALLOC_TYPE_TENSORS_HOST			= 2,
	NEURON_MEMALLOC_TYPE_CONSTANTS_HOST			= 3,
	NEURON_MEMALLOC_TYPE_MISC_HOST				= 4,
	NEURON_MEMALLOC_TYPE_NCDEV_HOST				= 5,
	NEURON_MEMALLOC_TYPE_NOTIFICATION_HOST			= 6,

	NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE			= 7,
	NEURON_MEMALLOC_TYPE_CODE_DEVICE			= 8,
	NEURON_MEMALLOC_TYPE_TENSORS_DEVICE			= 9,
	NEURON_MEMALLOC_TYPE_CONSTANTS_DEVICE			= 10,
	NEURON_MEMALLOC_TYPE_SCRATCHPAD_DEVICE			= 11,
	NEURON_MEMALLOC_TYPE_MISC_DEVICE			= 12,
	NEURON_MEMALLOC_TYPE_NCDEV_DEVICE			= 13,
	NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE			= 14,
	NEURON_MEMALLOC_TYPE_SCRATCHPAD_NONSHARED_DEVICE	= 15,
	NEURON_MEMALLOC_TYPE_NOTIFICATION_DEVICE		= 16,

	NEURON_MEMALLOC_TYPE_DMA_RINGS_HOST			= 17,
	NEURON_MEMALLOC_TYPE_DMA_RINGS_DEVICE			= 18,

	NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE	= 19,

	NEURON_MEMALLOC_TYPE_MAX				= 20
} mem_alloc_category_t;

/*
 * The datastore ("NDS").
 *
 * Every process that uses a device gets a 256 KiB block of host memory
 * (NEURON_IOCTL_ACQUIRE_NEURON_DS returns its mmap offset and size).  The
 * runtime writes counters into it; the driver and the monitoring tools read
 * them.  All counters are 64-bit.  The block starts with struct nds_header,
 * followed by the per-device counters, the per-core counters of the first
 * NDS_MAX_NEURONCORE_COUNT cores, and, at NDS_EXT_OFFSET, an extended
 * section sized for NDS_EXT_MAX_NEURONCORE_COUNT cores.  The constants
 * below give the byte offsets and sizes; everything is little-endian.
 */

/* Unused per-device counter slots at the end of the per-device area. */
#define NDS_ND_COUNTER_RESERVED	17

/**
 * enum neuron_nds_nd_counter - per-device counter slots of the datastore
 * @NDS_ND_COUNTER_START: first slot.
 * @NDS_ND_COUNTER_RUNTIME_VERSION: runtime version (union nmetric_version).
 * @NDS_ND_COUNTER_FRAMEWORK_VERSION: ML framework version.
 * @NDS_ND_COUNTER_FAL_VERSION: framework adaptation layer version.
 * @NDS_ND_COUNTER_FEATURE_BITMAP: runtime feature bits.
 * @NDS_ND_COUNTER_MIN_NEFF_VERSION: oldest compiled-model format in use.
 * @NDS_ND_COUNTER_MAX_NEFF_VERSION: newest compiled-model format in use.
 * @NDS_ND_COUNTER_MEM_USAGE_CODE_HOST: host bytes holding code.
 * @NDS_ND_COUNTER_MEM_USAGE_TENSORS_HOST: host bytes holding tensors.
 * @NDS_ND_COUNTER_MEM_USAGE_CONSTANTS_HOST: host bytes holding constants.
 * @NDS_ND_COUNTER_MEM_USAGE_SCRATCHPAD_HOST: host bytes of scratchpad.
 * @NDS_ND_COUNTER_MEM_USAGE_MISC_HOST: other host bytes.
 * @NDS_ND_COUNTER_DYNAMIC_SYSFS_METRIC_BITMAP: which optional sysfs metrics
 *	the runtime feeds.
 * @NDS_ND_COUNTER_DEVICE_CLUSTER_ID: cluster id of the device.
 * @NDS_ND_COUNTER_AGG_NEFF_ID: id of the aggregated compiled model.
 * @NDS_ND_COUNTER_LAST: one past the last slot in use.
 * @NDS_ND_COUNTER_COUNT: slots in the per-device area, reserved ones
 *	included (@NDS_ND_COUNTER_LAST + NDS_ND_COUNTER_RESERVED).
 *
 * Untagged in the reference; the tag exists only for documentation.
 */
enum neuron_nds_nd_counter {
	NDS_ND_COUNTER_START				= 0,
	NDS_ND_COUNTER_RUNTIME_VERSION			= 0,
	NDS_ND_COUNTER_FRAMEWORK_VERSION		= 1,
	NDS_ND_COUNTER_FAL_VERSION			= 2,
	NDS_ND_COUNTER_FEATURE_BITMAP			= 3,
	NDS_ND_COUNTER_MIN_NEFF_VERSION			= 4,
	NDS_ND_COUNTER_MAX_NEFF_VERSION			= 5,
	NDS_ND_COUNTER_MEM_USAGE_CODE_HOST		= 6,
	NDS_ND_COUNTER_MEM_USAGE_TENSORS_HOST		= 7,
	NDS_ND_COUNTER_MEM_USAGE_CONSTANTS_HOST		= 8,
	NDS_ND_COUNTER_MEM_USAGE_SCRATCHPAD_HOST	= 9,
	NDS_ND_COUNTER_MEM_USAGE_MISC_HOST		= 10,
	NDS_ND_COUNTER_DYNAMIC_SYSFS_METRIC_BITMAP	= 11,
	NDS_ND_COUNTER_DEVICE_CLUSTER_ID		= 12,
	NDS_ND_COUNTER_AGG_NEFF_ID			= 13,
	NDS_ND_COUNTER_LAST				= 14,
	NDS_ND_COUNTER_COUNT				= 31
};

/* Unused per-core counter slots at the end of the base per-core area. */
#define NDS_NC_COUNTER_RESERVED	0

/**
 * enum neuron_nds_nc_counter - per-core counter slots of the datastore
 * @NDS_NC_COUNTER_TIME_IN_USE: time the core spent executing.
 * @NDS_NC_COUNTER_INFER_COMPLETED: executions that completed.
 * @NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR: executions that completed with
 *	an error.
 * @NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR: executions that completed
 *	with a numerical error.
 * @NDS_NC_COUNTER_INFER_TIMED_OUT: executions that timed out.
 * @NDS_NC_COUNTER_INFER_INCORRECT_INPUT: executions refused for bad input.
 * @NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE: executions that could not be
 *	queued.
 * @NDS_NC_COUNTER_ERR_GENERIC: generic errors.
 * @NDS_NC_COUNTER_ERR_NUMERICAL: numerical errors.
 * @NDS_NC_COUNTER_ERR_MODEL: model errors.
 * @NDS_NC_COUNTER_ERR_TRANSIENT: transient errors.
 * @NDS_NC_COUNTER_ERR_HW: hardware errors.
 * @NDS_NC_COUNTER_ERR_RT: runtime errors.
 * @NDS_NC_COUNTER_LATENCY_DEVICE: device-side latency.
 * @NDS_NC_COUNTER_LATENCY_TOTAL: end-to-end latency.
 * @NDS_NC_COUNTER_NC_TIME: core execution time.
 * @NDS_NC_COUNTER_GENERIC_FAIL: generic failures.
 * @NDS_NC_COUNTER_ERR_RESOURCE: resource exhaustion errors.
 * @NDS_NC_COUNTER_ERR_RESOURCE_NC: core resource exhaustion errors.
 * @NDS_NC_COUNTER_ERR_INVALID: invalid request errors.
 * @NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION: compiled model format not
 *	supported.
 * @NDS_NC_COUNTER_CC_TIME: time spent in collective communication.
 * @NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE: device bytes holding code.
 * @NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE: device bytes holding tensors.
 * @NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE: device bytes holding
 *	constants.
 * @NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE: device bytes of scratchpad.
 * @NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE: other device bytes.
 * @NDS_NC_COUNTER_MODEL_LOAD_COUNT: models loaded.
 * @NDS_NC_COUNTER_INFERENCE_COUNT: executions started.
 * @NDS_NC_COUNTER_MAC_COUNT: multiply-accumulate operations performed.
 * @NDS_NC_COUNTER_OOB: out-of-band errors.
 * @NDS_NC_COUNTER_LAST: one past the last slot in use.
 * @NDS_NC_COUNTER_COUNT: slots in the base per-core area
 *	(@NDS_NC_COUNTER_LAST + NDS_NC_COUNTER_RESERVED).
 *
 * Untagged in the reference; the tag exists only for documentation.
 */
enum neuron_nds_nc_counter {
	NDS_NC_COUNTER_TIME_IN_USE			= 0,
	NDS_NC_COUNTER_INFER_COMPLETED			= 1,
	NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR		= 2,
	NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR	= 3,
	NDS_NC_COUNTER_INFER_TIMED_OUT			= 4,
	NDS_NC_COUNTER_INFER_INCORRECT_INPUT		= 5,
	NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE		= 6,
	NDS_NC_COUNTER_ERR_GENERIC			= 7,
	NDS_NC_COUNTER_ERR_NUMERICAL			= 8,
	NDS_NC_COUNTER_ERR_MODEL			= 9,
	NDS_NC_COUNTER_ERR_TRANSIENT			= 10,
	NDS_NC_COUNTER_ERR_HW				= 11,
	NDS_NC_COUNTER_ERR_RT				= 12,
	NDS_NC_COUNTER_LATENCY_DEVICE			= 13,
	NDS_NC_COUNTER_LATENCY_TOTAL			= 14,
	NDS_NC_COUNTER_NC_TIME				= 15,
	NDS_NC_COUNTER_GENERIC_FAIL			= 16,
	NDS_NC_COUNTER_ERR_RESOURCE			= 17,
	NDS_NC_COUNTER_ERR_RESOURCE_NC			= 18,
	NDS_NC_COUNTER_ERR_INVALID			= 19,
	NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION	= 20,
	NDS_NC_COUNTER_CC_TIME				= 21,
	NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE		= 22,
	NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE		= 23,
	NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE	= 24,
	NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE	= 25,
	NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE		= 26,
	NDS_NC_COUNTER_MODEL_LOAD_COUNT			= 27,
	NDS_NC_COUNTER_INFERENCE_COUNT			= 28,
	NDS_NC_COUNTER_MAC_COUNT			= 29,
	NDS_NC_COUNTER_OOB				= 30,
	NDS_NC_COUNTER_LAST				= 31,
	NDS_NC_COUNTER_COUNT				= 31
};

/* Cores covered by the base per-core area. */
#define NDS_MAX_NEURONCORE_COUNT	4
/* Cores covered by the extended section. */
#define NDS_EXT_MAX_NEURONCORE_COUNT	12

/* Unused slots at the end of the extended per-core counter area. */
#define NDS_EXT_NC_COUNTER_ADDED_RESERVED	54

/**
 * enum neuron_nds_ext_nc_counter - extended per-core counter slots
 * @NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES: collectives hardware errors.
 * @NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE: uncorrectable memory errors.
 * @NDS_EXT_NC_COUNTER_HW_ERR_NC_UE: uncorrectable core errors.
 * @NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT: DMA aborts.
 * @NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW: notification queue overflows.
 * @NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR: semaphore errors.
 * @NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR: event errors.
 * @NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION: partial-sum buffer collisions.
 * @NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL: fatal sequencer errors.
 * @NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE: repairable uncorrectable
 *	memory errors.
 * @NDS_EXT_NC_COUNTER_LAST: one past the last slot in use.
 * @NDS_EXT_NC_COUNTER_COUNT: slots in the extended per-core area.
 *
 * Numbering continues from the base per-core counters: the first extended
 * slot is NDS_NC_COUNTER_COUNT.  Untagged in the reference; the tag
 * exists only for documentation.
 */
enum neuron_nds_ext_nc_counter {
	NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES		= 31,
	NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE		= 32,
	NDS_EXT_NC_COUNTER_HW_ERR_NC_UE			= 33,
	NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT		= 34,
	NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW		= 35,
	NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR	= 36,
	NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR		= 37,
	NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION	= 38,
	NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL	= 39,
	NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE	= 40,
	NDS_EXT_NC_COUNTER_LAST				= 41,
	NDS_EXT_NC_COUNTER_COUNT			= 64
};

/* Base plus extended per-core counter slots (31 + 64). */
#define NDS_TOTAL_NC_COUNTER_COUNT	95

/**
 * struct nds_header - first bytes of a datastore block
 * @signature: magic bytes identifying a datastore.
 * @version: layout version written by the runtime.
 *
 * The reference spells @version as int; __s32 is the same type.
 */
typedef struct nds_header {
	char signature[4];
	__s32 version;
} nds_header_t;

/*
 * Byte offsets (_START) and sizes (_SIZE) inside a datastore block.  All
 * counters are 8 bytes.
 */
#define NDS_HEADER_START		0
#define NDS_HEADER_SIZE			8	/* sizeof(struct nds_header) */

/* Per-device counters: NDS_ND_COUNTER_COUNT slots. */
#define NDS_ND_COUNTERS_START		8
#define NDS_ND_COUNTERS_SIZE		248

/* Base per-core counters: NDS_MAX_NEURONCORE_COUNT cores x 31 slots. */
#define NDS_NEURONCORE_COUNTERS_COUNT	31
#define NDS_NEURONCORE_COUNTERS_START	256
#define NDS_NEURONCORE_COUNTERS_SIZE	992

/*
 * Geometry of the extended section in older runtimes, kept so that tools
 * can still read datastores laid out that way: 65 extended slots per core,
 * 96 slots in all, counters for 4 cores (2080 bytes) then the combined
 * per-core data for 12 cores (9216 bytes), starting at byte 44588.
 */
#define NDS_EXT_NC_COUNTER_COUNT_OLD		65
#define NDS_TOTAL_NC_COUNTER_COUNT_OLD		96
#define NDS_EXT_NEURONCORE_COUNTERS_SIZE_OLD	2080
#define NDS_EXT_NEURONCORE_NC_DATA_SIZE_OLD	9216
#define NDS_EXT_SECTION_SIZE_OLD		11296
#define NDS_EXT_OFFSET_OLD			44588

/*
 * Current extended section: starts at the first multiple of
 * NDS_EXT_ALIGNMENT after the end of the old one (44588 + 11296 rounded up
 * to 64 = 55936).
 */
#define NDS_EXT_ALIGNMENT			64
#define NDS_EXT_OFFSET				55936

/* Extended counters: NDS_MAX_NEURONCORE_COUNT cores x 64 slots. */
#define NDS_EXT_NEURONCORE_COUNTERS_COUNT	64
#define NDS_EXT_NEURONCORE_COUNTERS_START	55936
#define NDS_EXT_NEURONCORE_COUNTERS_SIZE	2048

/*
 * Combined per-core data for all NDS_EXT_MAX_NEURONCORE_COUNT cores:
 * 95 slots plus 1 slot of padding per core (96 x 8 bytes), 12 cores.
 */
#define NDS_EXT_NEURONCORE_NC_DATA_PADDING	1
#define NDS_EXT_NEURONCORE_NC_DATA_COUNT	96
#define NDS_EXT_NEURONCORE_NC_DATA_START	57984
#define NDS_EXT_NEURONCORE_NC_DATA_SIZE		9216

#endif /* _UAPI_NEURON_DRIVER_SHARED_H */
