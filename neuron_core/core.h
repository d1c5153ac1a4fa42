/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core private declarations shared between its files and its KUnit
 * tests.  Not an inter-module API: that lives in include/neuron/.
 *
 * Lock order (outer first):
 *   neuron_planes_lock -> neuron_device.plane_lock -> a plane's locks
 *   neuron_device.usage (write, removal) -> neuron_planes_lock
 *   neuron_devices_lock -> neuron_device.lock -> neuron_mem.lock
 *   mmap lock -> neuron_device.usage (read) -> neuron_mem.lock
 *   neuron_device.usage (read, by file operations) -> neuron_device.lock
 *   neuron_dhal_lock -> neuron_device.lock
 *   neuron_registry_lock is a leaf.
 */
#ifndef _NEURON_CORE_PRIV_H
#define _NEURON_CORE_PRIV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/device/class.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/plane.h>

#include "mem.h"

/* Minors of /dev/neuronN: one per possible routing id. */
#define NEURON_MAX_DEVICES	64

/* Processes that may attach to one device at once. */
#define NEURON_MAX_ATTACH	16

/* Name of the char-device region, as /proc/devices shows it. */
#define NEURON_CHRDEV_NAME	"neuron"

/* Name of the device class, as /sys/class shows it. */
#define NEURON_CLASS_NAME	"neuron_device"

/**
 * struct neuron_attach - one process attached to a device
 * @tgid: the process (thread-group leader pid); NULL for a free slot
 * @files: attached open files of that process
 * @held_ncs: NeuronCores the process holds (bit n: core n); no other
 *	process may reset them (reset.c)
 */
struct neuron_attach {
	struct pid *tgid;
	unsigned int files;
	u32 held_ncs;
};

/**
 * struct neuron_identity - what the identity ioctls report: fixed for the
 * life of a device, copied from its DHAL on first use (ioctl.c)
 * @generation: DHAL generation (2, 3, 4)
 * @revision: PCI revision
 * @rt_compat_min: oldest runtime interface version supported
 * @rt_compat_max: newest runtime interface version supported
 * @features: driver feature bits (enum neuron_driver_feature_flag)
 */
struct neuron_identity {
	u32 generation;
	u32 revision;
	u32 rt_compat_min;
	u32 rt_compat_max;
	u64 features;
};

/**
 * struct neuron_device - one Neuron device, PCI or simulated
 * @dev: the /dev/neuronN class device; its reference count is the lifetime
 *	 of this structure (open files hold it through @cdev)
 * @cdev: the character device
 * @bus: the bus's description, copied at creation
 * @dhal: binding to the DHAL; @dhal.dhal is NULL until bound
 * @bars: mapped BARs
 * @index: routing id = minor = N of /dev/neuronN, -1 until registered
 * @serial: serial number from firmware
 * @fw_api: firmware API version
 * @node: entry in the list of all devices (neuron_devices_lock)
 * @work: bring-up and reset worker
 * @state_wq: woken on every state change and when @stopping is set
 * @usage: file operations that touch the device hold it for read; removal
 *	   takes it for write to wait them out
 * @lock: protects @state, @stopping, @published, @mapped, @module_requested
 *	  and @attach
 * @state: lifecycle state; changed under @lock, read with READ_ONCE() by waiters
 * @stopping: removal has started: the worker stops at its next step
 * @published: @dev and @cdev are registered (the node exists)
 * @mapped: BARs are mapped
 * @module_requested: the DHAL module was asked for once
 * @attach: processes attached to the device
 * @info_kobj: sysfs "info" directory
 * @arch_kobj: sysfs "info/architecture" directory
 * @resets: reset requests made through ioctls (reset.c), under @lock
 * @reset_seq: bumped under @lock each time requests complete; waiters
 *	sleep on @state_wq until it changes
 * @bar_token: the opaque base of register addresses user space sees for the
 *	register BAR (ioctl_bar.c); set once, then read without a lock
 * @ident: identity the ioctls report, valid once @ident_valid is set
 * @ident_valid: @ident is filled in; set once under @lock with release
 *	semantics, read with acquire semantics
 * @mem: memory pools, chunks and handles (mem.c), with their own lock
 * @plane_lock: protects @planes, @plane_priv, @plane_published, @files and
 *	the &neuron_file.plane entries of those files (plane.c)
 * @planes: the planes attached to the device, by id
 * @plane_priv: their state for the device
 * @plane_published: bit per plane id: told that the device is published
 * @files: open files of the device
 * @plane_node: entry in plane.c's list of devices planes attach to
 */
struct neuron_device {
	struct device dev;
	struct cdev cdev;
	struct neuron_bus_desc bus;
	struct neuron_dhal_instance dhal;
	struct neuron_bar bars[NEURON_NUM_BARS];
	int index;
	u64 serial;
	u32 fw_api;
	struct list_head node;
	struct work_struct work;
	wait_queue_head_t state_wq;
	/* Excludes removal from file operations that touch the device. */
	struct rw_semaphore usage;
	/*
	 * Protects state, stopping, published, mapped, module_requested,
	 * attach, resets and reset_seq.
	 */
	struct mutex lock;
	enum neuron_device_state state;
	bool stopping;
	bool published;
	bool mapped;
	bool module_requested;
	struct neuron_attach attach[NEURON_MAX_ATTACH];
	struct kobject *info_kobj;
	struct kobject *arch_kobj;
	struct hlist_head resets;
	u32 reset_seq;
	u64 bar_token;
	struct neuron_identity ident;
	bool ident_valid;
	struct neuron_mem mem;
	/* Protects planes, plane_priv, plane_published, files, files' plane[]. */
	struct mutex plane_lock;
	const struct neuron_plane *planes[NEURON_PLANES];
	void *plane_priv[NEURON_PLANES];
	unsigned long plane_published;
	struct list_head files;
	struct list_head plane_node;
};

/* main.c */
dev_t neuron_core_devt(void);
struct class *neuron_core_class(void);
extern bool neuron_wc_enable;
extern unsigned int neuron_rid_timeout_ms;
extern unsigned int neuron_reset_timeout_ms;

/* device.c */
int neuron_device_layer_init(void);
void neuron_device_layer_exit(void);
void neuron_devices_kick_unbound(void);
void neuron_devices_dhal_gone(const struct neuron_dhal *dhal);
int neuron_device_request_reset(struct neuron_device *nd);
void neuron_device_set_state(struct neuron_device *nd, enum neuron_device_state state);
int neuron_device_sleep(struct neuron_device *nd, unsigned int ms);
void neuron_device_kick(struct neuron_device *nd);
struct neuron_device *neuron_device_get_by_index(unsigned int index);

/* dhal.c */
int neuron_dhal_bind(struct neuron_device *nd);
void neuron_dhal_unbind(struct neuron_device *nd);

/* pci.c */
int neuron_pci_init(void);
void neuron_pci_exit(void);

/* fw.c */
/* Bytes of the firmware MiscRAM block bring-up uses. */
#define NEURON_FW_MISC_SIZE	0x1000
int neuron_fw_read_identity(struct neuron_device *nd, u32 *rid);
int neuron_fw_reset(struct neuron_device *nd);
int neuron_fw_reset_ncs(struct neuron_device *nd, u32 reset_map);

/* cdev.c */
extern const struct file_operations neuron_fops;
int neuron_attached_count(struct neuron_device *nd);

/* ioctl.c */
long neuron_ioctl_dispatch(struct file *file, unsigned int cmd, unsigned long arg);

/* reset.c */
int neuron_reset_request(struct neuron_device *nd, struct pid *tgid, u32 id, u32 nc_map);
int neuron_reset_wait(struct neuron_device *nd, struct pid *tgid, bool any_id, u32 id,
		      int *result);
bool neuron_reset_in_flight(struct neuron_device *nd, struct pid *tgid);
struct pid *neuron_reset_core_holder(struct neuron_device *nd, unsigned int nc);
void neuron_reset_run_cores(struct neuron_device *nd);
void neuron_reset_device_done(struct neuron_device *nd, int result);
void neuron_reset_detach_locked(struct neuron_device *nd, struct neuron_attach *a);

/* plane.c */
int neuron_plane_load(enum neuron_plane_id id);
int neuron_planes_attach(struct neuron_device *nd);
void neuron_planes_detach(struct neuron_device *nd);
void neuron_planes_publish(struct neuron_device *nd);
void neuron_planes_file_open(struct neuron_file *nf);
void neuron_files_zap(struct neuron_device *nd);
void neuron_planes_file_release(struct neuron_file *nf);
void neuron_planes_process_detach(struct neuron_device *nd, struct pid *tgid);
void neuron_planes_reset(struct neuron_device *nd, u32 cores, bool device);

/* sysfs.c */
extern const struct attribute_group *neuron_dev_groups[];
int neuron_sysfs_add(struct neuron_device *nd);
void neuron_sysfs_remove(struct neuron_device *nd);

#endif /* _NEURON_CORE_PRIV_H */
