/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core's NeuronCore state plane (cores/): core reservations and
 * model locks, core initialisation, semaphores and events, special
 * resources, notification queues, the datastore and pods.  A built-in
 * plane (cores_plane.c): the base layer reaches it only through the
 * plane's callbacks and command table; it uses the base (base/core.h)
 * and the memory layer (memory/mem.h).
 */
#ifndef _NEURON_CORE_CORES_H
#define _NEURON_CORE_CORES_H

#include <linux/compiler_types.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <neuron/ds.h>
#include <neuron/plane.h>
#include <neuron/neuron_driver_shared.h>

#include "base/core.h"

struct neuron_mem_chunk;
struct vm_area_struct;

/**
 * struct neuron_nc - driver state of one NeuronCore (nc.c)
 * @writer: process recorded in the core's model lock (a reference), or NULL
 * @uuid: model recorded with @writer
 * @write_held: the lock is held for writing
 * @readers: read holds of the lock
 * @initializer: process initialising the core (a reference), or NULL
 * @init_state: enum neuron_cinit_state
 * @started: models started on the core since its last reset
 */
struct neuron_nc {
	struct pid *writer;
	struct neuron_uuid uuid;
	bool write_held;
	u32 readers;
	struct pid *initializer;
	u32 init_state;
	u64 started;
};

/**
 * enum neuron_crwl_op - operations on a core's model lock (nc.c)
 * @NEURON_CRWL_READER_ENTER: add a read hold (CRWL_READER_ENTER)
 * @NEURON_CRWL_READER_EXIT: drop a read hold (CRWL_READER_EXIT)
 * @NEURON_CRWL_WRITER_ENTER: take the lock for writing (CRWL_WRITER_ENTER)
 * @NEURON_CRWL_WRITER_DOWNGRADE: turn the write hold into a read hold
 *	(CRWL_WRITER_DOWNGRADE)
 */
enum neuron_crwl_op {
	NEURON_CRWL_READER_ENTER,
	NEURON_CRWL_READER_EXIT,
	NEURON_CRWL_WRITER_ENTER,
	NEURON_CRWL_WRITER_DOWNGRADE,
};

/**
 * struct neuron_ds_entry - one datastore buffer (datastore.c)
 * @owner: the process it belongs to (a reference); NULL with @mc
 * @mc: its memory, a driver chunk without handle; NULL when free
 * @gen: bumped each time the entry is given out (monitor grants name it)
 * @released: value of &neuron_cores.ds_clock when it was last freed
 */
struct neuron_ds_entry {
	struct pid *owner;
	struct neuron_mem_chunk *mc;
	u32 gen;
	u64 released;
};

/**
 * struct neuron_cores - the cores' driver state, the datastore and the
 * notification queues
 * @lock: protects @nc, @ds, @ds_clock and the released entries' counters
 * @nc: per core
 * @ds: datastore entries
 * @ds_clock: counts datastore releases
 * @ds_released: entries released whose counters are in @ds_nc_freed
 * @ds_nc_freed: per-core counters of the released entries, summed over
 *	the cores (datastore.c, for telemetry)
 * @ds_nd_freed: per-device counters of the entry released last
 * @nq_lock: protects @nqs and the queue slot registers (nq.c)
 * @nqs: notification queues by key
 */
struct neuron_cores {
	/* Protects nc[], ds[], ds_clock, ds_released, ds_nc_freed, ds_nd_freed. */
	struct mutex lock;
	struct neuron_nc nc[NEURON_MAX_NC];
	struct neuron_ds_entry ds[NEURON_DS_ENTRIES];
	u64 ds_clock;
	u64 ds_released;
	u64 ds_nc_freed[NEURON_DS_NC_SUMS];
	u64 ds_nd_freed[NEURON_DS_ND_KEPT];
	/* Protects nqs and the slot registers; taken before the device lock. */
	struct mutex nq_lock;
	struct xarray nqs;
};

/* cores_plane.c */
int neuron_cores_init(void);
void neuron_cores_exit(void);

/* nc.c */
int neuron_nc_init(struct neuron_device *nd);
void neuron_nc_fini(struct neuron_device *nd);
void neuron_nc_cores_reset(struct neuron_device *nd, u32 cores);
void neuron_nc_process_detach(struct neuron_device *nd, struct pid *tgid);
void neuron_nc_file_release(struct neuron_file *nf);
unsigned int neuron_nc_marks(unsigned int first, unsigned int n);
u32 neuron_nc_marked_by_others_locked(struct neuron_device *nd, struct pid *tgid);
struct pid *neuron_nc_core_owner(struct neuron_device *nd, unsigned int nc);
u8 neuron_nc_lock_info(struct neuron_device *nd, struct pid *tgid,
		       struct neuron_uuid *uuids);
void neuron_nc_app_info(struct neuron_device *nd, struct pid *tgid, u16 flags,
			struct neuron_app_info *app);
int neuron_nc_arg(struct neuron_device *nd, u32 nc);
int neuron_nc_find_run(const unsigned long *free, unsigned int start, unsigned int end,
		       unsigned int count, unsigned int *longest);
int neuron_crwl_op(struct neuron_device *nd, unsigned int nc, const struct neuron_uuid *uuid,
		   enum neuron_crwl_op op);
int neuron_cinit_set(struct neuron_device *nd, unsigned int nc, u32 state, u32 *new_state);
int neuron_nc_mmap_special(struct neuron_file *nf, struct vm_area_struct *vma, u64 start,
			   u64 len);
bool neuron_nc_holds(struct neuron_device *nd, struct pid *tgid, unsigned int nc);

/* nq.c */
void neuron_nq_init_device(struct neuron_device *nd);
void neuron_nq_release(struct neuron_device *nd, u32 cores);
struct neuron_mem_chunk *neuron_nq_mmap_get(struct neuron_file *nf, u64 pa);

/* datastore.c */
/* Bytes of a datastore the per-core counters of all 16 cores span. */
#define NEURON_NDS_NC_END	(NDS_EXT_NEURONCORE_NC_DATA_START + NDS_EXT_NEURONCORE_NC_DATA_SIZE)
u64 neuron_nds_nc_counter(const void *nds, unsigned int nc, unsigned int id);
void neuron_stats_add_nds(struct neuron_stats *st, const void *nds, unsigned int ncs);
void neuron_ds_release_all(struct neuron_device *nd, struct pid *tgid);
struct neuron_mem_chunk *neuron_nc_mmap_get(struct neuron_file *nf, u64 pa, bool *rdonly);

/* Command handlers, listed in the plane's table (cores_plane.c) */
/* nc.c: reservations, model locks, core init, semaphores and events, resources; pod.c: pods */
long neuron_ioctl_range_mark(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_range_mark_ext(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_range_unmark(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_range_unmark_ext(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_reader_enter(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_reader_exit(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_writer_enter(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_crwl_writer_downgrade(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_cinit_set_state(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_model_started_count(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_increment(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_decrement(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_read(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_sem_write(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_event_set(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_event_get(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_status(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_status_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_ctrl(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_pod_ctrl_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_resource_mmap_info(struct neuron_file *nf, void __user *arg);

/* nq.c */
long neuron_ioctl_nq_init_v1(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nq_destroy(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nq_init_v2(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nq_init_realloc(struct neuron_file *nf, void __user *arg);

/* datastore.c */
/* Bytes of a datastore the per-core counters of all 16 cores span. */
#define NEURON_NDS_NC_END	(NDS_EXT_NEURONCORE_NC_DATA_START + NDS_EXT_NEURONCORE_NC_DATA_SIZE)
u64 neuron_nds_nc_counter(const void *nds, unsigned int nc, unsigned int id);
void neuron_stats_add_nds(struct neuron_stats *st, const void *nds, unsigned int ncs);
long neuron_ioctl_acquire_ds(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_release_ds(struct neuron_file *nf, void __user *arg);

long neuron_ioctl_nc_map(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_pid_state_dump(struct neuron_file *nf, void __user *arg);

#endif /* _NEURON_CORE_CORES_H */
