// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of a device that monitoring tools read
 * (include/neuron/stats.h, Documentation/telemetry.rst): kept here, fed by
 * events of the core, presented in sysfs by the telemetry plane.
 *
 * - Memory: every chunk counts, from its allocation to its last reference,
 *   by its category (the 20 allocation types map to the reference's
 *   categories): a host chunk in the device's host_mem/<category> and its
 *   core's host_mem, a device chunk in its core's device_mem/<category> and
 *   device_mem.  Host chunks the driver keeps (datastores) count against
 *   core 0, as in the reference.
 * - Resets: reset_req_count of each core a reset covers when it starts;
 *   reset_fail_count of every core when one fails.
 * - Execution counters: when a process's datastore is released by its
 *   owner (RELEASE_NEURON_DS, or the process detaching), that process's
 *   final per-core datastore counters are added to status/ and
 *   other_info/ (flop_count is twice the multiply-accumulate count).
 *
 * One spinlock per device protects all the counters; updates never
 * allocate or sleep, so the allocation path pays a lock and a few adds.
 * It is a leaf lock: taken inside &neuron_mem.lock, never the other way.
 */

#include <linux/bitops.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include <neuron/compat.h>

#include <neuron/mem.h>

#include "core.h"

static_assert(NEURON_STATS_MAX_NC == NEURON_MAX_NC);

/**
 * neuron_stat_inc() - add to a counter
 * @s: the counter
 * @delta: what to add
 */
void neuron_stat_inc(struct neuron_stat *s, u64 delta)
{
	s->total += delta;
	s->present = delta;
	s->peak = max(s->peak, s->total);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stat_inc);

/**
 * neuron_stat_dec() - take from a counter
 * @s: the counter
 * @delta: what to take; the total stops at 0 (a write may have cleared it)
 */
void neuron_stat_dec(struct neuron_stat *s, u64 delta)
{
	s->total = s->total > delta ? s->total - delta : 0;
	s->present = delta;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stat_dec);

/**
 * neuron_stat_set() - set a counter
 * @s: the counter
 * @val: its new total and present value
 */
void neuron_stat_set(struct neuron_stat *s, u64 val)
{
	s->total = val;
	s->present = val;
	s->peak = max(s->peak, val);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stat_set);

/* The reference's names of the host memory categories, as sysfs shows them. */
const char * const neuron_stats_host_names[NEURON_STATS_HOST_CATS] = {
	[NEURON_STATS_HOST_DMA_BUFFERS] = "dma_buffers",
	[NEURON_STATS_HOST_TENSORS] = "tensors",
	[NEURON_STATS_HOST_CONSTANTS] = "constants",
	[NEURON_STATS_HOST_APPLICATION_MEMORY] = "application_memory",
	[NEURON_STATS_HOST_DRIVER_MEMORY] = "driver_memory",
	[NEURON_STATS_HOST_NOTIFICATIONS] = "notifications",
	[NEURON_STATS_HOST_DMA_RINGS] = "dma_rings",
	[NEURON_STATS_HOST_UNCATEGORIZED] = "uncategorized",
};
EXPORT_SYMBOL_NS_GPL(neuron_stats_host_names, NEURON_NS);

/* The reference's names of the device memory categories, as sysfs shows them. */
const char * const neuron_stats_dev_names[NEURON_STATS_DEV_CATS] = {
	[NEURON_STATS_DEV_MODEL_CODE] = "model_code",
	[NEURON_STATS_DEV_TENSORS] = "tensors",
	[NEURON_STATS_DEV_CONSTANTS] = "constants",
	[NEURON_STATS_DEV_MODEL_SHARED_SCRATCHPAD] = "model_shared_scratchpad",
	[NEURON_STATS_DEV_RUNTIME_MEMORY] = "runtime_memory",
	[NEURON_STATS_DEV_DRIVER_MEMORY] = "driver_memory",
	[NEURON_STATS_DEV_COLLECTIVES] = "collectives",
	[NEURON_STATS_DEV_NONSHARED_SCRATCHPAD] = "nonshared_scratchpad",
	[NEURON_STATS_DEV_NOTIFICATIONS] = "notifications",
	[NEURON_STATS_DEV_DMA_RINGS] = "dma_rings",
	[NEURON_STATS_DEV_UNCATEGORIZED] = "uncategorized",
};
EXPORT_SYMBOL_NS_GPL(neuron_stats_dev_names, NEURON_NS);

/* The reference's names of the status counters, as sysfs shows them. */
const char * const neuron_stats_status_names[NEURON_STATS_STATUSES] = {
	[NEURON_STATS_STATUS_SUCCESS] = "success",
	[NEURON_STATS_STATUS_FAILURE] = "failure",
	[NEURON_STATS_STATUS_TIMEOUT] = "timeout",
	[NEURON_STATS_STATUS_EXEC_BAD_INPUT] = "exec_bad_input",
	[NEURON_STATS_STATUS_HW_ERROR] = "hw_error",
	[NEURON_STATS_STATUS_EXECUTE_COMPLETED_WITH_ERROR] = "execute_completed_with_error",
	[NEURON_STATS_STATUS_EXECUTE_COMPLETED_WITH_NUM_ERROR] = "execute_completed_with_num_error",
	[NEURON_STATS_STATUS_GENERIC_ERROR] = "generic_error",
	[NEURON_STATS_STATUS_RESOURCE_ERROR] = "resource_error",
	[NEURON_STATS_STATUS_RESOURCE_NC_ERROR] = "resource_nc_error",
	[NEURON_STATS_STATUS_EXECUTE_FAILED_TO_QUEUE] = "execute_failed_to_queue",
	[NEURON_STATS_STATUS_INVALID_ERROR] = "invalid_error",
	[NEURON_STATS_STATUS_UNSUPPORTED_NEFF_VERSION] = "unsupported_neff_version",
	[NEURON_STATS_STATUS_OOB_ERROR] = "oob_error",
	[NEURON_STATS_STATUS_HW_COLLECTIVES_ERROR] = "hw_collectives_error",
	[NEURON_STATS_STATUS_HW_HBM_UE_ERROR] = "hw_hbm_ue_error",
	[NEURON_STATS_STATUS_HW_NC_UE_ERROR] = "hw_nc_ue_error",
	[NEURON_STATS_STATUS_HW_DMA_ABORT_ERROR] = "hw_dma_abort_error",
	[NEURON_STATS_STATUS_EXECUTE_SW_NQ_OVERFLOW] = "execute_sw_nq_overflow",
	[NEURON_STATS_STATUS_EXECUTE_SW_SEMAPHORE_ERROR] = "execute_sw_semaphore_error",
	[NEURON_STATS_STATUS_EXECUTE_SW_EVENT_ERROR] = "execute_sw_event_error",
	[NEURON_STATS_STATUS_EXECUTE_SW_PSUM_COLLISION] = "execute_sw_psum_collision",
	[NEURON_STATS_STATUS_EXECUTE_SW_SEQUENCER_FATAL] = "execute_sw_sequencer_fatal",
	[NEURON_STATS_STATUS_HW_REPAIRABLE_HBM_UE_ERROR] = "hw_repairable_hbm_ue_error",
};
EXPORT_SYMBOL_NS_GPL(neuron_stats_status_names, NEURON_NS);

/* The reference's names of the other counters, as sysfs shows them. */
const char * const neuron_stats_other_names[NEURON_STATS_OTHERS] = {
	[NEURON_STATS_OTHER_MODEL_LOAD_COUNT] = "model_load_count",
	[NEURON_STATS_OTHER_RESET_REQ_COUNT] = "reset_req_count",
	[NEURON_STATS_OTHER_RESET_FAIL_COUNT] = "reset_fail_count",
	[NEURON_STATS_OTHER_INFERENCE_COUNT] = "inference_count",
	[NEURON_STATS_OTHER_FLOP_COUNT] = "flop_count",
	[NEURON_STATS_OTHER_NC_TIME_IN_USE] = "nc_time_in_use",
};
EXPORT_SYMBOL_NS_GPL(neuron_stats_other_names, NEURON_NS);

/* Per allocation type: its category in its own location's list. */
static const u8 neuron_stats_type_cat[NEURON_MEMALLOC_TYPE_MAX] = {
	[NEURON_MEMALLOC_TYPE_UNKNOWN_HOST] = NEURON_STATS_HOST_UNCATEGORIZED,
	[NEURON_MEMALLOC_TYPE_CODE_HOST] = NEURON_STATS_HOST_DMA_BUFFERS,
	[NEURON_MEMALLOC_TYPE_TENSORS_HOST] = NEURON_STATS_HOST_TENSORS,
	[NEURON_MEMALLOC_TYPE_CONSTANTS_HOST] = NEURON_STATS_HOST_CONSTANTS,
	[NEURON_MEMALLOC_TYPE_MISC_HOST] = NEURON_STATS_HOST_APPLICATION_MEMORY,
	[NEURON_MEMALLOC_TYPE_NCDEV_HOST] = NEURON_STATS_HOST_DRIVER_MEMORY,
	[NEURON_MEMALLOC_TYPE_NOTIFICATION_HOST] = NEURON_STATS_HOST_NOTIFICATIONS,
	[NEURON_MEMALLOC_TYPE_DMA_RINGS_HOST] = NEURON_STATS_HOST_DMA_RINGS,
	[NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE] = NEURON_STATS_DEV_UNCATEGORIZED,
	[NEURON_MEMALLOC_TYPE_CODE_DEVICE] = NEURON_STATS_DEV_MODEL_CODE,
	[NEURON_MEMALLOC_TYPE_TENSORS_DEVICE] = NEURON_STATS_DEV_TENSORS,
	[NEURON_MEMALLOC_TYPE_CONSTANTS_DEVICE] = NEURON_STATS_DEV_CONSTANTS,
	[NEURON_MEMALLOC_TYPE_SCRATCHPAD_DEVICE] = NEURON_STATS_DEV_MODEL_SHARED_SCRATCHPAD,
	[NEURON_MEMALLOC_TYPE_MISC_DEVICE] = NEURON_STATS_DEV_RUNTIME_MEMORY,
	[NEURON_MEMALLOC_TYPE_NCDEV_DEVICE] = NEURON_STATS_DEV_DRIVER_MEMORY,
	[NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE] = NEURON_STATS_DEV_COLLECTIVES,
	[NEURON_MEMALLOC_TYPE_SCRATCHPAD_NONSHARED_DEVICE] = NEURON_STATS_DEV_NONSHARED_SCRATCHPAD,
	[NEURON_MEMALLOC_TYPE_NOTIFICATION_DEVICE] = NEURON_STATS_DEV_NOTIFICATIONS,
	[NEURON_MEMALLOC_TYPE_DMA_RINGS_DEVICE] = NEURON_STATS_DEV_DMA_RINGS,
	[NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE] =
		NEURON_STATS_DEV_MODEL_SHARED_SCRATCHPAD,
};

/**
 * neuron_stats_mem_cat() - the category a chunk counts under
 * @acct_type: its accounting type (&neuron_mem_chunk.acct_type: an
 *	allocation type of its own location)
 *
 * Return: an enum neuron_stats_host_cat for a host type, an enum
 * neuron_stats_dev_cat for a device type.
 */
unsigned int neuron_stats_mem_cat(u32 acct_type)
{
	if (acct_type >= NEURON_MEMALLOC_TYPE_MAX)
		return NEURON_STATS_DEV_UNCATEGORIZED;
	return neuron_stats_type_cat[acct_type];
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stats_mem_cat);

/**
 * neuron_stats_init() - initialise a new device's statistics
 * @nd: the device, being created
 */
void neuron_stats_init(struct neuron_device *nd)
{
	spin_lock_init(&nd->stats.lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stats_init);

/*
 * Whether listeners hear of changes at all (neuron_stats_notify_enable()):
 * off by default, so the allocation path makes no indirect call while no
 * one polls a counter.
 */
static DEFINE_STATIC_KEY_FALSE(neuron_stats_notify_on);

static void neuron_stats_changed_locked(struct neuron_stats *st, int nc, unsigned int id)
{
	if (static_branch_unlikely(&neuron_stats_notify_on) && st->notify)
		st->notify(st->notify_ctx, nc, id);
}

static void neuron_stats_nc_inc_locked(struct neuron_stats *st, unsigned int nc,
				       unsigned int id, u64 delta)
{
	neuron_stat_inc(&st->nc[nc][id], delta);
	neuron_stats_changed_locked(st, nc, id);
}

/**
 * neuron_stats_mem() - a chunk was allocated, or went
 * @nd: the device
 * @mc: the chunk
 * @add: allocated (else freed)
 *
 * Context: &neuron_mem.lock held; does not sleep.
 */
void neuron_stats_mem(struct neuron_device *nd, const struct neuron_mem_chunk *mc, bool add)
{
	struct neuron_stats *st = &nd->stats;
	unsigned int cat = neuron_stats_mem_cat(mc->acct_type);
	unsigned int nc = min_t(unsigned int, mc->nc_id, NEURON_MAX_NC - 1);
	struct neuron_stat *loc, *by_cat;
	unsigned int loc_id, cat_id;
	int cat_nc;

	if (mc->location == NEURON_MEM_HOST) {
		loc_id = NEURON_STATS_NC_HOST_MEM;
		by_cat = &st->host[cat];
		cat_nc = NEURON_STATS_DEVICE;
		cat_id = cat;
	} else {
		loc_id = NEURON_STATS_NC_DEVICE_MEM;
		cat_id = NEURON_STATS_NC_DEV_CAT + cat;
		by_cat = &st->nc[nc][cat_id];
		cat_nc = nc;
	}
	loc = &st->nc[nc][loc_id];
	spin_lock(&st->lock);
	if (add) {
		neuron_stat_inc(loc, mc->size);
		neuron_stat_inc(by_cat, mc->size);
	} else {
		neuron_stat_dec(loc, mc->size);
		neuron_stat_dec(by_cat, mc->size);
	}
	neuron_stats_changed_locked(st, nc, loc_id);
	neuron_stats_changed_locked(st, cat_nc, cat_id);
	spin_unlock(&st->lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stats_mem);

/**
 * neuron_stats_reset_start() - a reset of some cores starts
 * @nd: the device
 * @cores: the cores it covers (bit n: core n)
 */
void neuron_stats_reset_start(struct neuron_device *nd, u32 cores)
{
	struct neuron_stats *st = &nd->stats;
	unsigned long map = cores & GENMASK(NEURON_MAX_NC - 1, 0);
	unsigned int nc;

	spin_lock(&st->lock);
	for_each_set_bit(nc, &map, NEURON_MAX_NC)
		neuron_stats_nc_inc_locked(st, nc, NEURON_STATS_NC_OTHER +
					   NEURON_STATS_OTHER_RESET_REQ_COUNT, 1);
	spin_unlock(&st->lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stats_reset_start);

/**
 * neuron_stats_reset_failed() - a reset failed: counted on every core
 * @nd: the device
 * @ncs: cores the device has
 */
void neuron_stats_reset_failed(struct neuron_device *nd, unsigned int ncs)
{
	struct neuron_stats *st = &nd->stats;
	unsigned int nc;

	spin_lock(&st->lock);
	for (nc = 0; nc < min_t(unsigned int, ncs, NEURON_MAX_NC); nc++)
		neuron_stats_nc_inc_locked(st, nc, NEURON_STATS_NC_OTHER +
					   NEURON_STATS_OTHER_RESET_FAIL_COUNT, 1);
	spin_unlock(&st->lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_stats_reset_failed);

/**
 * neuron_stats_nc_add() - add a core's counters from its datastore
 * @st: the statistics
 * @nc: the core, below %NEURON_MAX_NC
 * @status: per status counter (enum neuron_stats_status), what to add
 * @other: per other counter (enum neuron_stats_other), what to add; 0 for
 *	none
 *
 * Context: takes the statistics lock.
 */
void neuron_stats_nc_add(struct neuron_stats *st, unsigned int nc, const u64 *status,
			 const u64 *other)
{
	unsigned int i;

	spin_lock(&st->lock);
	for (i = 0; i < NEURON_STATS_STATUSES; i++)
		neuron_stats_nc_inc_locked(st, nc, NEURON_STATS_NC_STATUS + i, status[i]);
	for (i = 0; i < NEURON_STATS_OTHERS; i++)
		if (other[i])
			neuron_stats_nc_inc_locked(st, nc, NEURON_STATS_NC_OTHER + i, other[i]);
	spin_unlock(&st->lock);
}

/* Check @nc and @id; return the counter or NULL.  Lock not needed. */
static struct neuron_stat *neuron_stats_find(struct neuron_device *nd, int nc, unsigned int id)
{
	if (nc == NEURON_STATS_DEVICE)
		return id < NEURON_STATS_HOST_CATS ? &nd->stats.host[id] : NULL;
	if (nc < 0 || nc >= NEURON_MAX_NC || id >= NEURON_STATS_NC_COUNT)
		return NULL;
	return &nd->stats.nc[nc][id];
}

/**
 * neuron_stats_read() - read a counter
 * @nd: the device
 * @nc: the core, or NEURON_STATS_DEVICE for a device-level counter
 * @id: the counter (enum neuron_stats_nc_id, or enum neuron_stats_host_cat)
 * @out: its value
 *
 * Return: 0, or -EINVAL for a counter that does not exist.
 */
int neuron_stats_read(struct neuron_device *nd, int nc, unsigned int id, struct neuron_stat *out)
{
	struct neuron_stat *s = neuron_stats_find(nd, nc, id);

	if (!s)
		return -EINVAL;
	spin_lock(&nd->stats.lock);
	*out = *s;
	spin_unlock(&nd->stats.lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(neuron_stats_read, NEURON_NS);

/**
 * neuron_stats_clear() - set one field of a counter to 0
 * @nd: the device
 * @nc: the core, or NEURON_STATS_DEVICE
 * @id: the counter
 * @field: the field
 *
 * What a write to a counter's sysfs file does, as in the reference.
 *
 * Return: 0, or -EINVAL for a counter or field that does not exist.
 */
int neuron_stats_clear(struct neuron_device *nd, int nc, unsigned int id,
		       enum neuron_stat_field field)
{
	struct neuron_stat *s = neuron_stats_find(nd, nc, id);

	if (!s || field >= NEURON_STAT_FIELDS)
		return -EINVAL;
	spin_lock(&nd->stats.lock);
	if (field == NEURON_STAT_TOTAL)
		s->total = 0;
	else if (field == NEURON_STAT_PRESENT)
		s->present = 0;
	else
		s->peak = 0;
	spin_unlock(&nd->stats.lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(neuron_stats_clear, NEURON_NS);

/**
 * neuron_stats_set_notify() - be told of every counter change of a device
 * @nd: the device
 * @fn: called on each change (see neuron_stats_notify_fn), or NULL to stop
 * @ctx: passed to @fn
 *
 * One listener per device (the telemetry plane).  Once this returns with
 * @fn NULL, the previous listener is not running and is not called again.
 */
void neuron_stats_set_notify(struct neuron_device *nd, neuron_stats_notify_fn fn, void *ctx)
{
	spin_lock(&nd->stats.lock);
	nd->stats.notify = fn;
	nd->stats.notify_ctx = ctx;
	spin_unlock(&nd->stats.lock);
}
EXPORT_SYMBOL_NS_GPL(neuron_stats_set_notify, NEURON_NS);

/**
 * neuron_stats_notify_enable() - let the listeners hear of changes, or not
 * @on: whether the listeners of every device are called
 *
 * Off at load.  The telemetry plane turns it on while its info/notify_delay
 * is 0 and off otherwise (and when it goes), so that counter updates make
 * no call while no one waits for one.  A change made while this runs may
 * or may not be heard.
 *
 * Context: may sleep (patches the code).
 */
void neuron_stats_notify_enable(bool on)
{
	if (on)
		static_branch_enable(&neuron_stats_notify_on);
	else
		static_branch_disable(&neuron_stats_notify_on);
}
EXPORT_SYMBOL_NS_GPL(neuron_stats_notify_enable, NEURON_NS);
