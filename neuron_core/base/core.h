/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core's base layer: the declarations its files share with each
 * other, with the layers above it (device/, memory/, cores/) and with the
 * KUnit tests.  Not an inter-module API: that lives in include/neuron/.
 * Nothing here knows the layers above: they reach the base through these
 * functions and are reached through their planes' callbacks (plane.c).
 *
 * The lock order of the whole driver is written once, in
 * Documentation/architecture.rst ("Locking").
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
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/ds.h>
#include <neuron/plane.h>
#include <neuron/stats.h>
#include <neuron/neuron_driver_shared.h>

struct dentry;
struct neuron_cores;
struct neuron_mem;
struct neuron_mem_chunk;
struct vm_area_struct;
struct neuron_pod;

/* Minors of /dev/neuronN: one per possible routing id. */
#define NEURON_MAX_DEVICES	64

/* Processes that may attach to one device at once. */
#define NEURON_MAX_ATTACH	16

/* Most NeuronCores a device has (the ABI's host-wide numbering assumes 8). */
#define NEURON_MAX_NC		8

/* Host-wide core numbers (core reservations): 64 devices of at most 8 cores. */
#define NEURON_HOST_NCS		(NEURON_MAX_DEVICES * NEURON_MAX_NC)

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
 * enum neuron_evlog_type - events of the per-device event log (evlog.c)
 * @NEURON_EVLOG_OPEN: a file was opened
 * @NEURON_EVLOG_RELEASE: a file's last reference went
 * @NEURON_EVLOG_IOCTL: a command passed its gate
 * @NEURON_EVLOG_MMAP: a mapping was asked for
 */
enum neuron_evlog_type {
	NEURON_EVLOG_OPEN = 1,
	NEURON_EVLOG_RELEASE,
	NEURON_EVLOG_IOCTL,
	NEURON_EVLOG_MMAP,
};

struct neuron_evlog;

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
 * struct neuron_fw_mbox - a device's firmware mailboxes (fw_mbox.c)
 * @lock: one request at a time: protects @seq, @req, @resp, the
 *	buffers' contents, @errors and the mailbox registers of MiscRAM
 *	(data area, header/address registers, acknowledge, doorbell)
 * @seq: sequence number of the last request
 * @req: legacy request buffer (NEURON_FW_MBOX_BUF_SIZE bytes, coherent
 *	DMA), NULL until the first legacy request
 * @req_dma: its DMA address
 * @resp: legacy response buffer
 * @resp_dma: its DMA address
 * @errors: attempts that timed out or were refused
 */
struct neuron_fw_mbox {
	/*
	 * One request at a time: protects seq, req, resp and their contents,
	 * errors, and the MiscRAM mailbox registers.
	 */
	struct mutex lock;
	u8 seq;
	void *req;
	dma_addr_t req_dma;
	void *resp;
	dma_addr_t resp_dma;
	u32 errors;
};

/**
 * struct neuron_stats - the statistics monitoring tools read (stats.c)
 * @lock: protects @host, @nc, @notify and @notify_ctx
 * @host: device-level host memory by category (enum neuron_stats_host_cat)
 * @nc: per core (enum neuron_stats_nc_id)
 * @notify: the telemetry plane's listener, or NULL
 * @notify_ctx: its context
 */
struct neuron_stats {
	/* Protects every counter, notify and notify_ctx; a leaf lock. */
	spinlock_t lock;
	struct neuron_stat host[NEURON_STATS_HOST_CATS];
	struct neuron_stat nc[NEURON_STATS_MAX_NC][NEURON_STATS_NC_COUNT];
	neuron_stats_notify_fn notify;
	void *notify_ctx;
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
 * @state_kn: @dev's "state" and "reset" files, held from publication to
 *	release, notified at every state change; set under @lock
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
 * @mem: memory pools, chunks and handles (the memory layer's, made by its
 *	plane's attach, freed with the device), with their own lock
 * @plane_lock: protects @planes, @plane_priv, @plane_published, @files and
 *	the &neuron_file.plane entries of those files (plane.c)
 * @planes: the planes attached to the device, by id
 * @plane_priv: their state for the device
 * @plane_published: bit per plane id: told that the device is published
 * @files: open files of the device
 * @plane_node: entry in plane.c's list of devices planes attach to
 * @cores: the NeuronCore state plane's state of the device (model locks,
 *	core initialisation, datastore, notification queues), made by its
 *	plane's attach, freed with the device
 * @debugfs: the device's debugfs directory, from publication to removal
 * @evlog: the event log (evlog.c), with its own lock
 * @mbox: the firmware mailboxes (fw_mbox.c), with their own lock
 * @stats: the statistics (stats.c), with their own lock
 * @bringup_ns: ktime_get_ns() when the bring-up was queued, for the
 *	neuron_bringup_done tracepoint (trace.h); set before the worker runs
 * @pod: the pod state of the device's node (cores/pod.c), or NULL; set
 *	after a reset, cleared at removal, read with READ_ONCE()
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
	struct kernfs_node *state_kn[2];
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
	struct neuron_mem *mem;
	/* Protects planes, plane_priv, plane_published, files, files' plane[]. */
	struct mutex plane_lock;
	const struct neuron_plane *planes[NEURON_PLANES];
	void *plane_priv[NEURON_PLANES];
	unsigned long plane_published;
	struct list_head files;
	struct list_head plane_node;
	struct neuron_cores *cores;
	struct dentry *debugfs;
	struct neuron_evlog *evlog;
	struct neuron_fw_mbox mbox;
	struct neuron_stats stats;
	u64 bringup_ns;
	struct neuron_pod *pod;
};

/* init.c */
int neuron_base_init(void);
void neuron_base_exit(void);
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
int neuron_device_request_reset(struct neuron_device *nd, bool force);
void neuron_device_set_state(struct neuron_device *nd, enum neuron_device_state state);
int neuron_device_sleep(struct neuron_device *nd, unsigned int ms);
void neuron_device_kick(struct neuron_device *nd);
struct neuron_device *neuron_device_get_by_index(unsigned int index);
unsigned int neuron_device_count(void);
unsigned int neuron_device_links(struct neuron_device *nd, u32 *out, unsigned int max);

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
u32 neuron_misc_read(struct neuron_device *nd, u32 reg);
void neuron_misc_write(struct neuron_device *nd, u32 reg, u32 val);

/* cdev.c */
extern const struct file_operations neuron_fops;
int neuron_attached_count(struct neuron_device *nd);
bool neuron_attached_locked(struct neuron_device *nd, struct pid *tgid);

/* dispatch.c */
long neuron_ioctl_dispatch(struct file *file, unsigned int cmd, unsigned long arg);

/* reset.c: resets, and the cores processes hold */
int neuron_reset_request(struct neuron_device *nd, struct pid *tgid, u32 id, u32 nc_map);
int neuron_reset_wait(struct neuron_device *nd, struct pid *tgid, bool any_id, u32 id,
		      int *result);
bool neuron_reset_in_flight(struct neuron_device *nd, struct pid *tgid);
struct pid *neuron_reset_core_holder(struct neuron_device *nd, unsigned int nc);
void neuron_reset_run_cores(struct neuron_device *nd);
void neuron_reset_device_done(struct neuron_device *nd, int result);
void neuron_reset_detach_locked(struct neuron_device *nd, struct neuron_attach *a);
void neuron_holds_lock(void);
void neuron_holds_unlock(void);
void neuron_holds_assert_held(void);
u32 neuron_reset_held_by_others_locked(struct neuron_device *nd, struct pid *tgid);
u32 neuron_foreign_cores(struct neuron_device *nd, struct pid *tgid);

/* plane.c */
int neuron_plane_load(enum neuron_plane_id id);
int neuron_plane_register_builtin(const struct neuron_plane *p);
void neuron_plane_unregister_builtin(const struct neuron_plane *p);
int neuron_planes_attach(struct neuron_device *nd);
void neuron_planes_detach(struct neuron_device *nd);
void neuron_planes_publish(struct neuron_device *nd);
int neuron_planes_setup(struct neuron_device *nd);
void neuron_planes_ready(struct neuron_device *nd);
void neuron_planes_remove(struct neuron_device *nd);
void neuron_planes_free(struct neuron_device *nd);
void neuron_planes_file_open(struct neuron_file *nf);
void neuron_files_zap(struct neuron_device *nd);
void neuron_planes_file_release(struct neuron_file *nf);
void neuron_planes_process_gone_locked(struct neuron_device *nd, struct pid *tgid);
void neuron_planes_process_detach(struct neuron_device *nd, struct pid *tgid);
void neuron_planes_reset(struct neuron_device *nd, u32 cores, bool device);
u32 neuron_planes_cores_held_locked(struct neuron_device *nd, struct pid *tgid);
void neuron_planes_app_info(struct neuron_device *nd, struct pid *tgid, u16 flags,
			    struct neuron_app_info *app);
int neuron_planes_mmap(struct neuron_file *nf, struct vm_area_struct *vma, u64 start, u64 len);
int neuron_plane_dma_read(struct neuron_device *nd, const struct neuron_plane_dma_read *rd);

/* evlog.c */
int neuron_evlog_init(struct neuron_device *nd);
void neuron_evlog_fini(struct neuron_device *nd);
void neuron_evlog_add(struct neuron_device *nd, enum neuron_evlog_type type, u32 data);
void neuron_evlog_dump(struct neuron_device *nd, struct pid *owner, u32 limit);

/* stats.c */
void neuron_stat_inc(struct neuron_stat *s, u64 delta);
void neuron_stat_dec(struct neuron_stat *s, u64 delta);
void neuron_stat_set(struct neuron_stat *s, u64 val);
unsigned int neuron_stats_mem_cat(u32 acct_type);
void neuron_stats_init(struct neuron_device *nd);
void neuron_stats_mem(struct neuron_device *nd, const struct neuron_mem_chunk *mc, bool add);
void neuron_stats_reset_start(struct neuron_device *nd, u32 cores);
void neuron_stats_reset_failed(struct neuron_device *nd, unsigned int ncs);
void neuron_stats_nc_add(struct neuron_stats *st, unsigned int nc, const u64 *status,
			 const u64 *other);

/* sysfs.c */
extern const struct attribute_group *neuron_dev_groups[];

#endif /* _NEURON_CORE_PRIV_H */
