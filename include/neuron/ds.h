/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The datastore's counters as the telemetry plane reads them
 * (neuron_core/cores/datastore.c).  The core sums, for one device, the
 * per-core counters of every datastore entry in use and of every entry released
 * since the device came up (the core keeps what released entries held, so
 * a process that exited still counts and nothing is lost when telemetry
 * reloads), and gives the per-device counters of each entry.
 */
#ifndef _NEURON_DS_H
#define _NEURON_DS_H

#include <linux/types.h>

#include <neuron/plane.h>
#include <neuron/neuron_driver_shared.h>

struct neuron_device;

/* Per-core counters summed: the base ones and the extended ones in use. */
#define NEURON_DS_NC_SUMS	NDS_EXT_NC_COUNTER_LAST
/* Per-device counters given per entry. */
#define NEURON_DS_ND_KEPT	NDS_ND_COUNTER_LAST
/* Rows of per-device counters: the entries in use and the last released one. */
#define NEURON_DS_ND_ROWS	(NEURON_DS_ENTRIES + 1)

/**
 * struct neuron_ds_counters - a device's datastore counters
 * @nc: per-core counter id (enum neuron_nds_nc_counter and
 *	enum neuron_nds_ext_nc_counter) to its sum over the device's cores,
 *	over the entries in use and over every entry released so far
 * @rows: rows of @nd used: one per entry in use, then one for the entry
 *	released last when @released is not 0
 * @released: entries released since the device came up
 * @nd: per-device counters (enum neuron_nds_nd_counter) of each row
 */
struct neuron_ds_counters {
	u64 nc[NEURON_DS_NC_SUMS];
	u32 rows;
	u64 released;
	u64 nd[NEURON_DS_ND_ROWS][NEURON_DS_ND_KEPT];
};

int neuron_ds_counters(struct neuron_device *nd, struct neuron_ds_counters *out);

#endif /* _NEURON_DS_H */
