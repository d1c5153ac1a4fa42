/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics neuron_core keeps per device for monitoring tools, and
 * the neuron_telemetry plane presents in sysfs (Documentation/telemetry.rst).
 *
 * Counters live in the core, fed by events (chunk allocation and free,
 * core resets, datastore release), so that unloading and reloading the
 * telemetry plane loses none of them.  Each counter is a struct
 * neuron_stat with the reference driver's semantics:
 *
 *  - inc(d): total += d, present = d, peak = max(peak, total)
 *  - dec(d): total -= d (not below 0), present = d
 *  - set(v): total = present = v, peak = max(peak, v)
 *
 * A device has NEURON_STATS_HOST_CATS device-level counters (host memory
 * by category, addressed with nc -1) and, per NeuronCore,
 * NEURON_STATS_NC_COUNT counters (enum neuron_stats_nc_id).  The names
 * are the core's tables (neuron_stats_*_names), so that the core, which
 * feeds the counters, and the plane, which shows them, share one list.
 */
#ifndef _NEURON_STATS_H
#define _NEURON_STATS_H

#include <linux/types.h>

struct neuron_device;

/**
 * struct neuron_stat - one counter
 * @total: running total
 * @present: the last change (or the value last set)
 * @peak: highest @total seen since it was last cleared
 */
struct neuron_stat {
	u64 total;
	u64 present;
	u64 peak;
};

/**
 * enum neuron_stat_field - a field of a counter
 * @NEURON_STAT_TOTAL: &neuron_stat.total
 * @NEURON_STAT_PRESENT: &neuron_stat.present
 * @NEURON_STAT_PEAK: &neuron_stat.peak
 * @NEURON_STAT_FIELDS: number of fields
 */
enum neuron_stat_field {
	NEURON_STAT_TOTAL,
	NEURON_STAT_PRESENT,
	NEURON_STAT_PEAK,
	NEURON_STAT_FIELDS,
};

/*
 * Host memory categories (device level), named in neuron_stats_host_names:
 * dma_buffers CODE_HOST, tensors TENSORS_HOST, constants CONSTANTS_HOST,
 * application_memory MISC_HOST, driver_memory NCDEV_HOST, notifications
 * NOTIFICATION_HOST, dma_rings DMA_RINGS_HOST, uncategorized UNKNOWN_HOST
 * or a device type in host memory.
 */
enum neuron_stats_host_cat {
	NEURON_STATS_HOST_DMA_BUFFERS,
	NEURON_STATS_HOST_TENSORS,
	NEURON_STATS_HOST_CONSTANTS,
	NEURON_STATS_HOST_APPLICATION_MEMORY,
	NEURON_STATS_HOST_DRIVER_MEMORY,
	NEURON_STATS_HOST_NOTIFICATIONS,
	NEURON_STATS_HOST_DMA_RINGS,
	NEURON_STATS_HOST_UNCATEGORIZED,
	NEURON_STATS_HOST_CATS
};

/*
 * Device memory categories (per NeuronCore), named in
 * neuron_stats_dev_names: model_code CODE_DEVICE, tensors TENSORS_DEVICE,
 * constants CONSTANTS_DEVICE, model_shared_scratchpad SCRATCHPAD_DEVICE and
 * CONTIGUOUS_SCRATCHPAD_DEVICE, runtime_memory MISC_DEVICE, driver_memory
 * NCDEV_DEVICE, collectives COLLECTIVES_DEVICE, nonshared_scratchpad
 * SCRATCHPAD_NONSHARED_DEVICE, notifications NOTIFICATION_DEVICE,
 * dma_rings DMA_RINGS_DEVICE, uncategorized UNKNOWN_DEVICE or a host type
 * in device memory.
 */
enum neuron_stats_dev_cat {
	NEURON_STATS_DEV_MODEL_CODE,
	NEURON_STATS_DEV_TENSORS,
	NEURON_STATS_DEV_CONSTANTS,
	NEURON_STATS_DEV_MODEL_SHARED_SCRATCHPAD,
	NEURON_STATS_DEV_RUNTIME_MEMORY,
	NEURON_STATS_DEV_DRIVER_MEMORY,
	NEURON_STATS_DEV_COLLECTIVES,
	NEURON_STATS_DEV_NONSHARED_SCRATCHPAD,
	NEURON_STATS_DEV_NOTIFICATIONS,
	NEURON_STATS_DEV_DMA_RINGS,
	NEURON_STATS_DEV_UNCATEGORIZED,
	NEURON_STATS_DEV_CATS
};

/*
 * Execution status counters of a NeuronCore, named in
 * neuron_stats_status_names; each adds up one datastore counter
 * (stats.c).
 */
enum neuron_stats_status {
	NEURON_STATS_STATUS_SUCCESS,
	NEURON_STATS_STATUS_FAILURE,
	NEURON_STATS_STATUS_TIMEOUT,
	NEURON_STATS_STATUS_EXEC_BAD_INPUT,
	NEURON_STATS_STATUS_HW_ERROR,
	NEURON_STATS_STATUS_EXECUTE_COMPLETED_WITH_ERROR,
	NEURON_STATS_STATUS_EXECUTE_COMPLETED_WITH_NUM_ERROR,
	NEURON_STATS_STATUS_GENERIC_ERROR,
	NEURON_STATS_STATUS_RESOURCE_ERROR,
	NEURON_STATS_STATUS_RESOURCE_NC_ERROR,
	NEURON_STATS_STATUS_EXECUTE_FAILED_TO_QUEUE,
	NEURON_STATS_STATUS_INVALID_ERROR,
	NEURON_STATS_STATUS_UNSUPPORTED_NEFF_VERSION,
	NEURON_STATS_STATUS_OOB_ERROR,
	NEURON_STATS_STATUS_HW_COLLECTIVES_ERROR,
	NEURON_STATS_STATUS_HW_HBM_UE_ERROR,
	NEURON_STATS_STATUS_HW_NC_UE_ERROR,
	NEURON_STATS_STATUS_HW_DMA_ABORT_ERROR,
	NEURON_STATS_STATUS_EXECUTE_SW_NQ_OVERFLOW,
	NEURON_STATS_STATUS_EXECUTE_SW_SEMAPHORE_ERROR,
	NEURON_STATS_STATUS_EXECUTE_SW_EVENT_ERROR,
	NEURON_STATS_STATUS_EXECUTE_SW_PSUM_COLLISION,
	NEURON_STATS_STATUS_EXECUTE_SW_SEQUENCER_FATAL,
	NEURON_STATS_STATUS_HW_REPAIRABLE_HBM_UE_ERROR,
	NEURON_STATS_STATUSES
};

/* Other counters of a NeuronCore, named in neuron_stats_other_names. */
enum neuron_stats_other {
	NEURON_STATS_OTHER_MODEL_LOAD_COUNT,
	NEURON_STATS_OTHER_RESET_REQ_COUNT,
	NEURON_STATS_OTHER_RESET_FAIL_COUNT,
	NEURON_STATS_OTHER_INFERENCE_COUNT,
	NEURON_STATS_OTHER_FLOP_COUNT,
	NEURON_STATS_OTHER_NC_TIME_IN_USE,
	NEURON_STATS_OTHERS
};

/**
 * enum neuron_stats_nc_id - counters of one NeuronCore
 * @NEURON_STATS_NC_HOST_MEM: host memory counted against the core
 * @NEURON_STATS_NC_DEVICE_MEM: device memory counted against the core
 * @NEURON_STATS_NC_DEV_CAT: first of NEURON_STATS_DEV_CATS device memory
 *	categories (enum neuron_stats_dev_cat)
 * @NEURON_STATS_NC_STATUS: first of NEURON_STATS_STATUSES status counters
 * @NEURON_STATS_NC_OTHER: first of NEURON_STATS_OTHERS other counters
 * @NEURON_STATS_NC_COUNT: counters per core
 */
enum neuron_stats_nc_id {
	NEURON_STATS_NC_HOST_MEM,
	NEURON_STATS_NC_DEVICE_MEM,
	NEURON_STATS_NC_DEV_CAT,
	NEURON_STATS_NC_STATUS = NEURON_STATS_NC_DEV_CAT + NEURON_STATS_DEV_CATS,
	NEURON_STATS_NC_OTHER = NEURON_STATS_NC_STATUS + NEURON_STATS_STATUSES,
	NEURON_STATS_NC_COUNT = NEURON_STATS_NC_OTHER + NEURON_STATS_OTHERS,
};

/* Most NeuronCores a device has statistics for (the core's NEURON_MAX_NC). */
#define NEURON_STATS_MAX_NC	8

/* The device-level counters' "core" number. */
#define NEURON_STATS_DEVICE	(-1)

/**
 * typedef neuron_stats_notify_fn - told that a counter changed
 * @ctx: what was registered with it
 * @nc: the core, or NEURON_STATS_DEVICE
 * @id: the counter (enum neuron_stats_nc_id, or enum neuron_stats_host_cat)
 *
 * Called with the device's statistics spinlock held, from any context
 * that updates a counter: must not sleep and must not call back into the
 * statistics functions.
 */
typedef void (*neuron_stats_notify_fn)(void *ctx, int nc, unsigned int id);

extern const char * const neuron_stats_host_names[NEURON_STATS_HOST_CATS];
extern const char * const neuron_stats_dev_names[NEURON_STATS_DEV_CATS];
extern const char * const neuron_stats_status_names[NEURON_STATS_STATUSES];
extern const char * const neuron_stats_other_names[NEURON_STATS_OTHERS];

int neuron_stats_read(struct neuron_device *nd, int nc, unsigned int id, struct neuron_stat *out);
int neuron_stats_clear(struct neuron_device *nd, int nc, unsigned int id,
		       enum neuron_stat_field field);
void neuron_stats_set_notify(struct neuron_device *nd, neuron_stats_notify_fn fn, void *ctx);
void neuron_stats_notify_enable(bool on);

#endif /* _NEURON_STATS_H */
