/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_telemetry internals: the plane's per-device state, shared by the
 * command handlers (main.c), the sysfs statistics tree (sysfs.c) and the
 * metrics posting thread with power sampling (metrics.c, power.c).
 */
#ifndef _NEURON_TELEMETRY_H
#define _NEURON_TELEMETRY_H

#include <linux/mutex.h>
#include <linux/types.h>

struct dentry;
struct seq_file;
struct neuron_device;
struct neuron_tel_sysfs;
struct neuron_tel_metrics;
struct neuron_tel_power;
struct neuron_tel_health;
struct kernfs_node;

/**
 * struct neuron_tel_dev - the plane's state for one device
 * @nd: the device
 * @debugfs: its telemetry file in debugfs
 * @lock: protects @profile, @profile_set and @throttling
 * @profile: the performance profile last set on this device
 * @profile_set: a profile was set through this plane
 * @throttling: throttling notifications were last enabled
 * @sysfs: the statistics tree under the device's node (sysfs.c), or NULL
 * @metrics: the metrics posting thread's state (metrics.c), or NULL
 * @power: the power utilisation samples (power.c), or NULL
 * @health: the cached health registers (health.c), or NULL
 */
struct neuron_tel_dev {
	struct neuron_device *nd;
	struct dentry *debugfs;
	/* protects profile, profile_set and throttling */
	struct mutex lock;
	u32 profile;
	bool profile_set;
	bool throttling;
	struct neuron_tel_sysfs *sysfs;
	struct neuron_tel_metrics *metrics;
	struct neuron_tel_power *power;
	struct neuron_tel_health *health;
};

/**
 * enum neuron_tel_power_status - state of the last per-minute roll-up
 * @NEURON_TEL_POWER_VALID: @min, @max and @avg hold the last full minute
 * @NEURON_TEL_POWER_NO_DATA: no full minute of samples yet (the default)
 * @NEURON_TEL_POWER_INVALID: the device gave no usable samples
 */
enum neuron_tel_power_status {
	NEURON_TEL_POWER_VALID,
	NEURON_TEL_POWER_NO_DATA,
	NEURON_TEL_POWER_INVALID,
};

/**
 * struct neuron_tel_power_stats - one per-minute power utilisation roll-up
 * @status: enum neuron_tel_power_status
 * @epoch: wall-clock seconds of the minute it covers (0 before the first)
 * @min: lowest utilisation of the minute, in basis points (10000 = 100 %)
 * @max: highest, in basis points
 * @avg: mean, in basis points
 */
struct neuron_tel_power_stats {
	u32 status;
	u64 epoch;
	u32 min;
	u32 max;
	u32 avg;
};

/* Most dice whose power words are read. */
#define NEURON_TEL_POWER_MAX_DICE	4

/* What stats/power/utilization_raw shows of a die. */
enum neuron_tel_raw_state {
	NEURON_TEL_RAW_UNAVAILABLE,	/* no sample: "unavailable" */
	NEURON_TEL_RAW_OK,		/* the utilisation and counter */
	NEURON_TEL_RAW_READ_ERROR,	/* the word could not be read: "read_error" */
};

/**
 * struct neuron_tel_power_raw - each die's power word at the last sample
 * @dice: dice of the device
 * @state: per die, enum neuron_tel_raw_state
 * @util: per die, the utilisation in basis points (bits 15:0), with
 *	NEURON_TEL_RAW_OK
 * @counter: per die, the firmware's sample counter (bits 31:16), with
 *	NEURON_TEL_RAW_OK
 */
struct neuron_tel_power_raw {
	u32 dice;
	u8 state[NEURON_TEL_POWER_MAX_DICE];
	u16 util[NEURON_TEL_POWER_MAX_DICE];
	u16 counter[NEURON_TEL_POWER_MAX_DICE];
};

/* sysfs.c: the statistics tree, built at publish and removed at detach. */
int neuron_tel_sysfs_init(void);
void neuron_tel_sysfs_exit(void);
void neuron_tel_sysfs_add(struct neuron_tel_dev *td);
void neuron_tel_sysfs_remove(struct neuron_tel_dev *td);

/* power.c: fills @out with the last roll-up (NO_DATA before the first). */
void neuron_tel_power_get(struct neuron_tel_dev *td, struct neuron_tel_power_stats *out);
void neuron_tel_power_raw_get(struct neuron_tel_dev *td, struct neuron_tel_power_raw *out);
int neuron_tel_power_init(struct neuron_tel_dev *td);
void neuron_tel_power_fini(struct neuron_tel_dev *td);
void neuron_tel_power_sample(struct neuron_tel_dev *td);
const char *neuron_tel_power_status_name(u32 status);

/**
 * struct neuron_tel_health_counts - what stats/hardware/health_status shows
 * @hbm_ue: uncorrected HBM errors (hbm_ecc_err_count)
 * @hbm_repairable: repairable HBM errors (repairable_hbm_ecc_err_count)
 * @sram: SRAM errors (sram_ecc_err_count)
 * @status: the health check bitmap (unhealthy_components)
 * @heartbeat: the health check heartbeat (healthcheck_heartbeat)
 * @events: changes of the health registers seen (hw_error_event)
 */
struct neuron_tel_health_counts {
	u32 hbm_ue;
	u32 hbm_repairable;
	u32 sram;
	u32 status;
	u32 heartbeat;
	u32 events;
};

/* health.c: the health registers the metrics thread caches. */
int neuron_tel_health_init(struct neuron_tel_dev *td);
void neuron_tel_health_fini(struct neuron_tel_dev *td);
bool neuron_tel_health_enabled(struct neuron_tel_dev *td);
void neuron_tel_health_set_file(struct neuron_tel_dev *td, struct kernfs_node *kn);
void neuron_tel_health_sample(struct neuron_tel_dev *td);
void neuron_tel_health_get(struct neuron_tel_dev *td, struct neuron_tel_health_counts *out);
int neuron_tel_health_components(u32 status, char *buf);

/* metrics.c: the posting thread of a device, and METRICS_CTRL. */
int neuron_tel_metrics_init(struct neuron_tel_dev *td);
void neuron_tel_metrics_start(struct neuron_tel_dev *td);
void neuron_tel_metrics_stop(struct neuron_tel_dev *td);
void neuron_tel_metrics_fini(struct neuron_tel_dev *td);
int neuron_tel_metrics_set_mode(struct neuron_tel_dev *td, u32 mode);
void neuron_tel_metrics_show(struct seq_file *s, struct neuron_tel_dev *td);
bool neuron_tel_metrics_enabled(void);

/* Bytes of one posted blob: the firmware's data area. */
#define NEURON_TEL_BLOB_SIZE	128

/**
 * struct neuron_tel_blob - a metrics blob being built
 * @len: bytes used in @data
 * @data: records {u8 id; u8 len; u8 data[len]}, packed, no terminator
 */
struct neuron_tel_blob {
	u32 len;
	u8 data[NEURON_TEL_BLOB_SIZE];
};

struct neuron_ds_counters;

/**
 * struct neuron_tel_snap - what one post reports, gathered by the thread
 * @instance: the instance id (DMI board asset tag, or "0")
 * @profile: the device's performance profile (0 until one is set)
 * @fw_errors: posts the firmware failed so far
 * @ds: the datastore's counters (neuron_ds_counters())
 */
struct neuron_tel_snap {
	const char *instance;
	u32 profile;
	u32 fw_errors;
	const struct neuron_ds_counters *ds;
};

#if IS_ENABLED(CONFIG_KUNIT)
bool neuron_tel_blob_add(struct neuron_tel_blob *b, u8 id, const char *val, size_t len);
bool neuron_tel_delta(u64 curr, u64 *prev, u64 *delta);
unsigned int neuron_tel_top2(const struct neuron_ds_counters *ds, unsigned int id, u64 out[2]);
void neuron_tel_build(struct neuron_tel_blob *b, const struct neuron_tel_snap *snap, u8 tick,
		      u64 *prev);
#endif

#endif /* _NEURON_TELEMETRY_H */
