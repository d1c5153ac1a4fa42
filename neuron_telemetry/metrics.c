// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics posting thread of a device (Documentation/metrics.rst).
 *
 * Every NEURON_TEL_SAMPLE_MS the thread samples power utilisation
 * (power.c); every nmetric_metric_post_delay milliseconds it builds one
 * blob of records {u8 id; u8 len; char data[len]} (ASCII values, packed, at
 * most 128 bytes; a record that does not fit is left out) and posts it to
 * the firmware (nmetric_log_posts bit 0) and/or to the metrics_post trace
 * event (bit 1).  Posts alternate between tick 0 and tick 1, each carrying
 * its share of the catalogue.  Counters are posted as deltas from what was
 * posted before, taken from the core's datastore sums (entries in use plus
 * everything released entries held).
 *
 * A kthread rather than a work item: a post may wait for the firmware for
 * many seconds (15 attempts of 1 s), and unloading the module must not.
 * The core's mailbox waits are interruptible, so stopping the thread sets
 * @stopping, sends it SIGKILL (which it allows) to end such a wait at
 * once, then kthread_stop()s it.  Device removal ends the waits by itself
 * (-ENODEV).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dmi.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <kunit/visibility.h>

#include <neuron/device.h>
#include <neuron/ds.h>
#include <neuron/fw.h>
#include <neuron/version.h>

#include "telemetry.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* Sampling period of the thread (power utilisation), not a parameter. */
#define NEURON_TEL_SAMPLE_MS	50
/* Missed ticks posted at once when posting resumes. */
#define NEURON_TEL_RESUME_MAX	2
/* Bounds of the post period: no spinning, no overflow of jiffies. */
#define NEURON_TEL_PERIOD_MIN	100
#define NEURON_TEL_PERIOD_MAX	86400000

/* nmetric_log_posts bits. */
#define NEURON_TEL_LOG_FW	BIT(0)
#define NEURON_TEL_LOG_TRACE	BIT(1)

static unsigned int nmetric_metric_post_delay = 150000;

static int neuron_tel_period_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, NEURON_TEL_PERIOD_MIN, NEURON_TEL_PERIOD_MAX);
}

static const struct kernel_param_ops neuron_tel_period_ops = {
	.set = neuron_tel_period_set,
	.get = param_get_uint,
};
module_param_cb(nmetric_metric_post_delay, &neuron_tel_period_ops,
		&nmetric_metric_post_delay, 0644);
MODULE_PARM_DESC(nmetric_metric_post_delay,
		 "Period of the metrics posts, in ms (100 to 86400000; default 150000)");

static unsigned int nmetric_log_posts = NEURON_TEL_LOG_FW;

static int neuron_tel_log_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, NEURON_TEL_LOG_FW | NEURON_TEL_LOG_TRACE);
}

static const struct kernel_param_ops neuron_tel_log_ops = {
	.set = neuron_tel_log_set,
	.get = param_get_uint,
};
module_param_cb(nmetric_log_posts, &neuron_tel_log_ops, &nmetric_log_posts, 0644);
MODULE_PARM_DESC(nmetric_log_posts,
		 "Where metrics go: bit 0 the firmware (default), bit 1 the metrics_post trace event");

/**
 * enum neuron_tel_metrics_state - the thread's posting state
 * @NEURON_TEL_RUNNING: posting every period
 * @NEURON_TEL_PAUSED: not posting (PERIODIC_DISABLE); sampling goes on
 * @NEURON_TEL_RESUMING: PERIODIC_ENABLE came: post the missed ticks, then run
 */
enum neuron_tel_metrics_state {
	NEURON_TEL_RUNNING,
	NEURON_TEL_PAUSED,
	NEURON_TEL_RESUMING,
};

/**
 * struct neuron_tel_metrics - a device's posting thread
 * @task: the thread (a reference held), NULL when not running
 * @wq: the thread sleeps on it between samples; woken by METRICS_CTRL
 * @lock: protects @state, @missed and @kick
 * @state: enum neuron_tel_metrics_state
 * @missed: periods that went by paused (at most NEURON_TEL_RESUME_MAX)
 * @kick: METRICS_CTRL changed @state: act now
 * @stopping: the thread is being stopped: a signal ends it
 * @tick: which half of the catalogue the next post carries (thread only)
 * @last: jiffies of the last period's start (thread only)
 * @prev: per datastore counter id, the value last posted (thread only)
 * @ds: scratch copy of the datastore's counters (thread only)
 * @posts: blobs posted (read without lock by debugfs)
 * @fw_errors: posts the firmware failed (read without lock by debugfs)
 */
struct neuron_tel_metrics {
	struct task_struct *task;
	wait_queue_head_t wq;
	/* protects state, missed and kick */
	spinlock_t lock;
	enum neuron_tel_metrics_state state;
	u32 missed;
	bool kick;
	bool stopping;
	u8 tick;
	unsigned long last;
	u64 prev[NEURON_DS_NC_SUMS];
	struct neuron_ds_counters ds;
	u64 posts;
	u32 fw_errors;
};

/* CloudWatch ids of the records. */
#define CW_FW_IO_ERRORS		11
#define CW_INSTANCE_ID		12
#define CW_DRIVER_VERSION	13
#define CW_PERF_PROFILE		56
#define CW_RT_VERSION		180
#define CW_FW_VERSION		190
#define CW_FAL_VERSION		195
#define CW_FEATURE_BITMAP	250
#define CW_CLUSTER_ID		252

/**
 * struct neuron_tel_counter_id - a datastore core counter and its record
 * @cw: record id
 * @nds: per-core counter id in the datastore
 */
struct neuron_tel_counter_id {
	u8 cw;
	u8 nds;
};

/* Posted at tick 0, in this order. */
static const struct neuron_tel_counter_id neuron_tel_tick0_counters[] = {
	{ 200, NDS_NC_COUNTER_INFER_COMPLETED },
	{ 201, NDS_NC_COUNTER_GENERIC_FAIL },
	{ 205, NDS_NC_COUNTER_INFER_TIMED_OUT },
	{ 212, NDS_NC_COUNTER_INFER_INCORRECT_INPUT },
	{ 215, NDS_NC_COUNTER_ERR_NUMERICAL },
	{ 216, NDS_NC_COUNTER_ERR_MODEL },
	{ 217, NDS_NC_COUNTER_ERR_TRANSIENT },
	{ 206, NDS_NC_COUNTER_ERR_HW },
	{ 218, NDS_NC_COUNTER_ERR_RT },
	{ 214, NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR },
	{ 213, NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR },
	{ 219, NDS_NC_COUNTER_ERR_GENERIC },
	{ 204, NDS_NC_COUNTER_ERR_RESOURCE },
	{ 208, NDS_NC_COUNTER_ERR_RESOURCE_NC },
	{ 207, NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE },
	{ 202, NDS_NC_COUNTER_ERR_INVALID },
	{ 209, NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION },
	{ 220, NDS_NC_COUNTER_OOB },
};

/* Posted at tick 1, in this order. */
static const struct neuron_tel_counter_id neuron_tel_tick1_counters[] = {
	{ 221, NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES },
	{ 222, NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE },
	{ 223, NDS_EXT_NC_COUNTER_HW_ERR_NC_UE },
	{ 224, NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT },
	{ 253, NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW },
	{ 225, NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR },
	{ 226, NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR },
	{ 227, NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION },
	{ 228, NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL },
	{ 229, NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE },
};

/*
 * Append record @id with @len bytes of @val to @b.  Return: false (and
 * nothing appended) when it does not fit.
 */
VISIBLE_IF_KUNIT bool neuron_tel_blob_add(struct neuron_tel_blob *b, u8 id, const char *val,
					  size_t len)
{
	if (len > U8_MAX || b->len + 2 + len > sizeof(b->data))
		return false;
	b->data[b->len] = id;
	b->data[b->len + 1] = len;
	memcpy(b->data + b->len + 2, val, len);
	b->len += 2 + len;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_tel_blob_add);

static bool neuron_tel_blob_add_str(struct neuron_tel_blob *b, u8 id, const char *s)
{
	return neuron_tel_blob_add(b, id, s, strlen(s));
}

static bool neuron_tel_blob_add_u64(struct neuron_tel_blob *b, u8 id, u64 v)
{
	char buf[24];

	return neuron_tel_blob_add(b, id, buf, scnprintf(buf, sizeof(buf), "%llu", v));
}

/*
 * The delta of a counter whose sum is now @curr and was @*prev when last
 * posted: true and *@delta when it grew.  Sums are taken modulo 2^64, so a
 * step backwards (a datastore the owner rewrote) is not a delta.
 */
VISIBLE_IF_KUNIT bool neuron_tel_delta(u64 curr, u64 *prev, u64 *delta)
{
	s64 d = (s64)(curr - *prev);

	if (d <= 0)
		return false;
	*delta = d;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_tel_delta);

/*
 * The two values of per-device counter @id most rows of @ds have (0s
 * ignored; on a tie, the first seen), most used first.  Return: how many
 * (0 to 2).
 */
VISIBLE_IF_KUNIT unsigned int neuron_tel_top2(const struct neuron_ds_counters *ds,
					      unsigned int id, u64 out[2])
{
	u64 vals[NEURON_DS_ND_ROWS];
	u32 uses[NEURON_DS_ND_ROWS];
	unsigned int n = 0, r, i, k, found = 0;

	for (r = 0; r < ds->rows; r++) {
		u64 v = ds->nd[r][id];

		if (!v)
			continue;
		for (i = 0; i < n && vals[i] != v; i++)
			;
		if (i == n) {
			vals[n] = v;
			uses[n++] = 0;
		}
		uses[i]++;
	}
	for (k = 0; k < 2 && n; k++) {
		unsigned int best = 0;

		for (i = 1; i < n; i++)
			if (uses[i] > uses[best])
				best = i;
		out[found++] = vals[best];
		uses[best] = 0;
		vals[best] = 0;
		/* Taken: drop it from the candidates. */
		for (i = best; i + 1 < n; i++) {
			vals[i] = vals[i + 1];
			uses[i] = uses[i + 1];
		}
		n--;
	}
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_tel_top2);

/* A datastore version word (union nmetric_version) as "major.minor.build". */
static bool neuron_tel_add_version(struct neuron_tel_blob *b, u8 id, u64 v)
{
	char buf[32];

	return neuron_tel_blob_add(b, id, buf,
				   scnprintf(buf, sizeof(buf), "%u.%u.%u",
					     (u32)(v >> 40) & 0xff, (u32)(v >> 32) & 0xff,
					     (u32)v));
}

/* The versions of per-device counter @nd_id, most used first, from @cw on. */
static void neuron_tel_add_versions(struct neuron_tel_blob *b, const struct neuron_ds_counters *ds,
				    unsigned int nd_id, u8 cw, bool with_type)
{
	u64 top[2];
	unsigned int n = neuron_tel_top2(ds, nd_id, top), i;

	for (i = 0; i < n; i++) {
		if (!with_type) {
			neuron_tel_add_version(b, cw + i, top[i]);
			continue;
		}
		/* Framework: its version, then its type (bits 48-63) as a digit. */
		neuron_tel_add_version(b, cw + 2 * i, top[i]);
		neuron_tel_blob_add_u64(b, cw + 2 * i + 1, top[i] >> 48);
	}
}

static void neuron_tel_add_deltas(struct neuron_tel_blob *b, const struct neuron_ds_counters *ds,
				  const struct neuron_tel_counter_id *ids, unsigned int n,
				  u64 *prev)
{
	unsigned int i;
	u64 d;

	for (i = 0; i < n; i++) {
		u8 id = ids[i].nds;

		/* What does not fit stays for the next post. */
		if (neuron_tel_delta(ds->nc[id], &prev[id], &d) &&
		    neuron_tel_blob_add_u64(b, ids[i].cw, d))
			prev[id] = ds->nc[id];
	}
}

/*
 * Build the blob of tick @tick (0 or 1) from @snap into @b; @prev (per
 * datastore counter id, NEURON_DS_NC_SUMS of them) is what was posted,
 * updated for the deltas that made it into @b.
 */
VISIBLE_IF_KUNIT void neuron_tel_build(struct neuron_tel_blob *b,
				       const struct neuron_tel_snap *snap, u8 tick, u64 *prev)
{
	const struct neuron_ds_counters *ds = snap->ds;
	u64 features = 0, cluster = 0;
	unsigned int r;

	b->len = 0;
	neuron_tel_blob_add_str(b, CW_INSTANCE_ID, snap->instance);
	neuron_tel_blob_add_str(b, CW_DRIVER_VERSION, NEURON_DRIVER_VERSION);
	if (!tick)
		neuron_tel_blob_add_u64(b, CW_PERF_PROFILE, snap->profile);
	neuron_tel_add_versions(b, ds, NDS_ND_COUNTER_RUNTIME_VERSION, CW_RT_VERSION, false);
	if (!tick) {
		neuron_tel_add_deltas(b, ds, neuron_tel_tick0_counters,
				      ARRAY_SIZE(neuron_tel_tick0_counters), prev);
		neuron_tel_blob_add_u64(b, CW_FW_IO_ERRORS, snap->fw_errors);
		return;
	}
	neuron_tel_add_versions(b, ds, NDS_ND_COUNTER_FRAMEWORK_VERSION, CW_FW_VERSION, true);
	neuron_tel_add_versions(b, ds, NDS_ND_COUNTER_FAL_VERSION, CW_FAL_VERSION, false);
	neuron_tel_add_deltas(b, ds, neuron_tel_tick1_counters,
			      ARRAY_SIZE(neuron_tel_tick1_counters), prev);
	/* The entries in use first, then the one released last. */
	for (r = 0; r < ds->rows; r++) {
		features |= ds->nd[r][NDS_ND_COUNTER_FEATURE_BITMAP];
		if (!cluster)
			cluster = ds->nd[r][NDS_ND_COUNTER_DEVICE_CLUSTER_ID];
	}
	if (ds->rows)
		neuron_tel_blob_add_u64(b, CW_FEATURE_BITMAP, features);
	if (cluster)
		neuron_tel_blob_add_u64(b, CW_CLUSTER_ID, cluster);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_tel_build);

/* The instance id: the DMI board asset tag when there is one, else "0". */
static const char *neuron_tel_instance_id(void)
{
	const char *tag = dmi_get_system_info(DMI_BOARD_ASSET_TAG);

	return tag && *tag && strlen(tag) < NEURON_TEL_BLOB_SIZE / 2 ? tag : "0";
}

/* Whether the thread must end: asked to stop (a signal is how). */
static bool neuron_tel_metrics_should_stop(struct neuron_tel_metrics *m)
{
	if (kthread_should_stop() || READ_ONCE(m->stopping))
		return true;
	if (!signal_pending(current))
		return false;
	/* Not ours (someone killed the thread): forget it, and go on. */
	flush_signals(current);
	return READ_ONCE(m->stopping);
}

/* Build and send the blob of the current tick; flip the tick. */
static void neuron_tel_metrics_post(struct neuron_tel_dev *td)
{
	struct neuron_tel_metrics *m = td->metrics;
	struct neuron_tel_snap snap = {
		.instance = neuron_tel_instance_id(),
		.fw_errors = m->fw_errors,
		.ds = &m->ds,
	};
	struct neuron_tel_blob b;
	unsigned int log = READ_ONCE(nmetric_log_posts);
	int ret;

	if (neuron_ds_counters(td->nd, &m->ds))
		return;
	mutex_lock(&td->lock);
	snap.profile = td->profile;
	mutex_unlock(&td->lock);
	neuron_tel_build(&b, &snap, m->tick, m->prev);
	if (log & NEURON_TEL_LOG_FW) {
		ret = neuron_fw_post_metric(td->nd, b.data, b.len);
		/* A post cut short because the thread or the device goes is no error. */
		if (ret && !neuron_tel_metrics_should_stop(m) && ret != -ENODEV)
			WRITE_ONCE(m->fw_errors, m->fw_errors + 1);
	}
	if (log & NEURON_TEL_LOG_TRACE)
		trace_metrics_post(neuron_device_index(td->nd), m->tick, b.data, b.len);
	WRITE_ONCE(m->posts, m->posts + 1);
	m->tick ^= 1;
}

/* One step of the thread, after a sample: post when it is time. */
static void neuron_tel_metrics_step(struct neuron_tel_dev *td)
{
	struct neuron_tel_metrics *m = td->metrics;
	unsigned long period = msecs_to_jiffies(READ_ONCE(nmetric_metric_post_delay));
	enum neuron_tel_metrics_state state;
	u32 missed = 0;

	spin_lock(&m->lock);
	state = m->state;
	m->kick = false;
	if (state == NEURON_TEL_RESUMING) {
		missed = m->missed;
		m->missed = 0;
		m->state = NEURON_TEL_RUNNING;
	}
	spin_unlock(&m->lock);

	if (state == NEURON_TEL_RESUMING) {
		while (missed-- && !neuron_tel_metrics_should_stop(m))
			neuron_tel_metrics_post(td);
		m->last = jiffies;
		return;
	}
	if (time_before(jiffies, m->last + period))
		return;
	m->last = jiffies;
	if (state == NEURON_TEL_PAUSED) {
		spin_lock(&m->lock);
		/* Paused meanwhile?  Then it counts when posting resumes. */
		if (m->state == NEURON_TEL_PAUSED && m->missed < NEURON_TEL_RESUME_MAX)
			m->missed++;
		spin_unlock(&m->lock);
		return;
	}
	neuron_tel_metrics_post(td);
}

static bool neuron_tel_metrics_kicked(struct neuron_tel_metrics *m)
{
	return READ_ONCE(m->kick) || READ_ONCE(m->stopping) || kthread_should_stop();
}

static int neuron_tel_metrics_fn(void *arg)
{
	struct neuron_tel_dev *td = arg;
	struct neuron_tel_metrics *m = td->metrics;

	/* neuron_tel_metrics_stop() ends a mailbox wait with it. */
	allow_signal(SIGKILL);
	/*
	 * What the datastore held before the thread started (the module was
	 * reloaded) was posted by the thread before: only what comes now is.
	 */
	if (!neuron_ds_counters(td->nd, &m->ds))
		memcpy(m->prev, m->ds.nc, sizeof(m->prev));
	m->last = jiffies;
	while (!neuron_tel_metrics_should_stop(m)) {
		wait_event_interruptible_timeout(m->wq, neuron_tel_metrics_kicked(m),
						 msecs_to_jiffies(NEURON_TEL_SAMPLE_MS));
		if (neuron_tel_metrics_should_stop(m))
			break;
		if (neuron_device_state(td->nd) != NEURON_STATE_READY)
			continue;
		neuron_tel_power_sample(td);
		neuron_tel_health_sample(td);
		neuron_tel_metrics_step(td);
	}
	return 0;
}

/**
 * neuron_tel_metrics_init() - a device's posting state, thread not started
 * @td: the plane's device state
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_tel_metrics_init(struct neuron_tel_dev *td)
{
	struct neuron_tel_metrics *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return -ENOMEM;
	init_waitqueue_head(&m->wq);
	spin_lock_init(&m->lock);
	m->state = NEURON_TEL_RUNNING;
	td->metrics = m;
	return 0;
}

/**
 * neuron_tel_metrics_start() - start a device's posting thread
 * @td: the plane's device state, its metrics initialised
 *
 * A thread that cannot start is logged; the device works without it.
 */
void neuron_tel_metrics_start(struct neuron_tel_dev *td)
{
	struct neuron_tel_metrics *m = td->metrics;
	struct task_struct *t;

	t = kthread_create(neuron_tel_metrics_fn, td, "nd%d metrics", neuron_device_index(td->nd));
	if (IS_ERR(t)) {
		pr_warn("neuron%d: no metrics thread (%pe)\n", neuron_device_index(td->nd), t);
		return;
	}
	/* Held so that stopping works even if the thread ended on its own. */
	get_task_struct(t);
	m->task = t;
	wake_up_process(t);
}

/**
 * neuron_tel_metrics_stop() - stop a device's posting thread and wait for it
 * @td: the plane's device state
 *
 * Prompt even while a post waits for the firmware: the signal ends the
 * wait.
 */
void neuron_tel_metrics_stop(struct neuron_tel_dev *td)
{
	struct neuron_tel_metrics *m = td->metrics;

	if (!m || !m->task)
		return;
	WRITE_ONCE(m->stopping, true);
	/* Seen by the thread before the signal (the signal lock orders them). */
	send_sig(SIGKILL, m->task, 1);
	kthread_stop(m->task);
	put_task_struct(m->task);
	m->task = NULL;
}

/**
 * neuron_tel_metrics_fini() - free a device's posting state, thread stopped
 * @td: the plane's device state
 */
void neuron_tel_metrics_fini(struct neuron_tel_dev *td)
{
	kfree(td->metrics);
	td->metrics = NULL;
}

/**
 * neuron_tel_metrics_set_mode() - METRICS_CTRL
 * @td: the plane's device state
 * @mode: NEURON_METRICS_MODE_PERIODIC_ENABLE (posting resumes, with the
 *	ticks missed meanwhile, at most 2) or NEURON_METRICS_MODE_PERIODIC_DISABLE
 *	(posting pauses; sampling goes on)
 *
 * The thread is woken so that the change takes effect at once.
 *
 * Return: 0, or -EINVAL for another mode (the state is unchanged).
 */
int neuron_tel_metrics_set_mode(struct neuron_tel_dev *td, u32 mode)
{
	struct neuron_tel_metrics *m = td->metrics;

	if (mode != NEURON_METRICS_MODE_PERIODIC_ENABLE &&
	    mode != NEURON_METRICS_MODE_PERIODIC_DISABLE)
		return -EINVAL;
	spin_lock(&m->lock);
	if (mode == NEURON_METRICS_MODE_PERIODIC_DISABLE)
		m->state = NEURON_TEL_PAUSED;
	else if (m->state == NEURON_TEL_PAUSED)
		m->state = NEURON_TEL_RESUMING;
	m->kick = true;
	spin_unlock(&m->lock);
	wake_up(&m->wq);
	return 0;
}

/**
 * neuron_tel_metrics_enabled() - whether metrics are gathered at all
 *
 * Return: false when nmetric_log_posts is 0 (no post built), as the
 * reference's "metrics disabled".
 */
bool neuron_tel_metrics_enabled(void)
{
	return READ_ONCE(nmetric_log_posts) != 0;
}

/**
 * neuron_tel_metrics_show() - the posting state in the telemetry debugfs file
 * @s: the file
 * @td: the plane's device state
 */
void neuron_tel_metrics_show(struct seq_file *s, struct neuron_tel_dev *td)
{
	static const char * const names[] = {
		[NEURON_TEL_RUNNING] = "running",
		[NEURON_TEL_PAUSED] = "paused",
		[NEURON_TEL_RESUMING] = "resuming",
	};
	struct neuron_tel_metrics *m = td->metrics;
	enum neuron_tel_metrics_state state;

	spin_lock(&m->lock);
	state = m->state;
	spin_unlock(&m->lock);
	seq_printf(s, "metrics: %s\n", m->task ? names[state] : "stopped");
	seq_printf(s, "metrics posts: %llu\n", READ_ONCE(m->posts));
	seq_printf(s, "metrics fw errors: %u\n", READ_ONCE(m->fw_errors));
}
