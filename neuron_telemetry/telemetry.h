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
struct neuron_device;
struct neuron_tel_sysfs;
struct neuron_tel_metrics;
struct neuron_tel_power;

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

/* power.c: fills @out with the last roll-up (NO_DATA before the first). */
void neuron_tel_power_get(struct neuron_tel_dev *td, struct neuron_tel_power_stats *out);

#endif /* _NEURON_TELEMETRY_H */
