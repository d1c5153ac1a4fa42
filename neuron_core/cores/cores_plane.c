// SPDX-License-Identifier: GPL-2.0
/*
 * The NeuronCore state plane as a built-in plane of neuron_core: its
 * command families and the callbacks through which the base layer tells
 * it of devices, files, processes and resets and asks it which cores
 * processes reserved (include/neuron/plane.h gives the order of the
 * calls).  Built in, never unloaded: reservations outlive any module.
 * The table of every command number and its owner is the base's
 * (base/dispatch.c).
 */

#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/module.h>

#include "cores/cores.h"
#include "cores/pod.h"
#include "memory/mem.h"

/* Families of one or two commands, as in base/dispatch.c. */
#define F1(g, type, fn)		NEURON_IOCTL_F1(g, type, fn)
#define F2(g, type, fn, ...)	NEURON_IOCTL_F2(g, type, fn, __VA_ARGS__)
#define ANY		NEURON_GATE_ANY
#define ATT		NEURON_GATE_ATTACHED

/* The NeuronCore commands, by number; each handler is beside its object. */
static const struct neuron_ioctl_family neuron_cores_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	F1(ATT, NEURON_IOCTL_SEMAPHORE_INCREMENT, neuron_ioctl_sem_increment),
	F1(ATT, NEURON_IOCTL_SEMAPHORE_DECREMENT, neuron_ioctl_sem_decrement),
	F1(ATT, NEURON_IOCTL_SEMAPHORE_READ, neuron_ioctl_sem_read),
	F1(ATT, NEURON_IOCTL_SEMAPHORE_WRITE, neuron_ioctl_sem_write),
	F1(ATT, NEURON_IOCTL_EVENT_SET, neuron_ioctl_event_set),
	F1(ATT, NEURON_IOCTL_EVENT_GET, neuron_ioctl_event_get),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_INIT_V1, neuron_ioctl_nq_init_v1),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1, neuron_ioctl_nq_destroy),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, neuron_ioctl_nq_init_v2),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2,
	   neuron_ioctl_nq_init_realloc),
	F1(ATT, NEURON_IOCTL_ACQUIRE_NEURON_DS, neuron_ioctl_acquire_ds),
	F1(ATT, NEURON_IOCTL_RELEASE_NEURON_DS, neuron_ioctl_release_ds),
	F1(ATT, NEURON_IOCTL_CRWL_READER_ENTER, neuron_ioctl_crwl_reader_enter),
	F1(ATT, NEURON_IOCTL_CRWL_READER_EXIT, neuron_ioctl_crwl_reader_exit),
	F1(ATT, NEURON_IOCTL_CRWL_WRITER_ENTER, neuron_ioctl_crwl_writer_enter),
	F1(ATT, NEURON_IOCTL_CRWL_WRITER_DOWNGRADE, neuron_ioctl_crwl_writer_downgrade),
	F2(ANY, NEURON_IOCTL_CRWL_NC_RANGE_MARK, neuron_ioctl_range_mark,
	   NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0, neuron_ioctl_range_mark_ext),
	F2(ANY, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK, neuron_ioctl_range_unmark,
	   NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0, neuron_ioctl_range_unmark_ext),
	F1(ATT, NEURON_IOCTL_CINIT_SET_STATE, neuron_ioctl_cinit_set_state),
	F1(ATT, NEURON_IOCTL_NC_MODEL_STARTED_COUNT, neuron_ioctl_nc_model_started_count),
	F1(ATT, NEURON_IOCTL_RESOURCE_MMAP_INFO, neuron_ioctl_resource_mmap_info),
	F1(ANY, NEURON_IOCTL_NC_PID_STATE_DUMP, neuron_ioctl_nc_pid_state_dump),
	F1(ANY, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, neuron_ioctl_nc_map),
	F1(ANY, NEURON_IOCTL_POD_INFO, neuron_ioctl_pod_info),
	F2(ANY, NEURON_IOCTL_POD_STATUS, neuron_ioctl_pod_status,
	   NEURON_IOCTL_POD_STATUS_V2, neuron_ioctl_pod_status_v2),
	F2(ANY, NEURON_IOCTL_POD_CTRL, neuron_ioctl_pod_ctrl,
	   NEURON_IOCTL_POD_CTRL_V2, neuron_ioctl_pod_ctrl_v2),
};

/* Attach: the device's core state, before anyone can use the device. */
static int neuron_cores_attach(struct neuron_device *nd, void **priv)
{
	return neuron_nc_init(nd);
}

/* A file's last reference: the reservations made through it go. */
static void neuron_cores_file_release(struct neuron_file *nf, void *fpriv)
{
	neuron_nc_file_release(nf);
}

/* A process detached: its model locks and core initialisations go. */
static void neuron_cores_process_detach(struct neuron_device *nd, void *priv,
					struct pid *tgid)
{
	neuron_nc_process_detach(nd, tgid);
}

/* Its datastore entry goes with its attach slot, for a newcomer to find free. */
static void neuron_cores_process_gone(struct neuron_device *nd, struct pid *tgid)
{
	neuron_ds_release_all(nd, tgid);
}

static void neuron_cores_reset(struct neuron_device *nd, void *priv, u32 cores)
{
	neuron_nc_cores_reset(nd, cores);
}

static void neuron_cores_device_reset(struct neuron_device *nd, void *priv)
{
	neuron_nc_cores_reset(nd, U32_MAX);
}

/*
 * Removed: driver chunks kept for processes (datastore, notification
 * queues) hold the device, so they go; the last device of a node stops
 * its election and frees its pod state.
 */
static void neuron_cores_remove(struct neuron_device *nd)
{
	neuron_ds_release_all(nd, NULL);
	neuron_nq_release(nd, U32_MAX);
	neuron_pod_device_gone(nd);
}

/*
 * A datastore entry or notification queue the caller may map, else one of
 * the generation's special resources (the last plane to ask: a range no
 * one maps is refused there).
 */
static int neuron_cores_mmap(struct neuron_file *nf, struct vm_area_struct *vma, u64 start,
			     u64 len)
{
	struct neuron_mem_chunk *mc;
	bool rdonly = false;

	mc = neuron_nc_mmap_get(nf, start, &rdonly);
	if (mc)
		return neuron_mem_mmap_chunk(nf, vma, mc, start, len, rdonly);
	return neuron_nc_mmap_special(nf, vma, start, len);
}

static const struct neuron_plane neuron_cores_plane = {
	.owner = THIS_MODULE,
	.name = "nc",
	.id = NEURON_PLANE_NC,
	.ioctls = neuron_cores_ioctls,
	.builtin = true,
	.device_attach = neuron_cores_attach,
	.file_release = neuron_cores_file_release,
	.process_detach = neuron_cores_process_detach,
	.cores_reset = neuron_cores_reset,
	.device_reset = neuron_cores_device_reset,
	.device_ready = neuron_pod_device_ready,
	.device_remove = neuron_cores_remove,
	.device_free = neuron_nc_fini,
	.process_gone_locked = neuron_cores_process_gone,
	.cores_held = neuron_nc_marked_by_others_locked,
	.app_info = neuron_nc_app_info,
	.mmap = neuron_cores_mmap,
};

/**
 * neuron_cores_init() - register the NeuronCore state plane and the pod's
 *	class attributes
 *
 * Return: 0 or a negative errno, with nothing left behind.
 */
int neuron_cores_init(void)
{
	int ret;

	ret = neuron_plane_register_builtin(&neuron_cores_plane);
	if (ret)
		return ret;
	ret = neuron_pod_class_files(true);
	if (ret)
		neuron_plane_unregister_builtin(&neuron_cores_plane);
	return ret;
}

/** neuron_cores_exit() - withdraw them, once every device went */
void neuron_cores_exit(void)
{
	neuron_pod_class_files(false);
	neuron_plane_unregister_builtin(&neuron_cores_plane);
}
