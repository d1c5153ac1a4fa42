/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Planes: modules that register with neuron_core at load time to serve
 * command families of /dev/neuronN and to keep per-device and per-file
 * state (neuron_udma, the DMA plane; neuron_telemetry).
 *
 * A plane registers a const &struct neuron_plane: the command families it
 * serves (a table indexed by command number, each family listing its
 * commands by full encoding with their handlers, and one gate), and the
 * callbacks through which the core tells it about devices, files,
 * processes and resets.  The core owns the ABI: which numbers belong to
 * which plane is fixed in the core's table, and a plane can serve only
 * its own.  A call to a number whose plane is not loaded loads it by the
 * alias NEURON_PLANE_ALIAS_FMT; if that fails the call gets -EOPNOTSUPP.
 *
 * Nothing pins a plane module: unregistering (at module exit) first stops
 * new calls, waits for calls in flight (SRCU), then releases the plane's
 * state in every open file and every device, in that order.
 *
 * neuron_core's own layers above its base register the same way, as
 * built-in planes that are never unregistered while a device exists: the
 * device plane (NEURON_PLANE_DEVICE), the memory layer (NEURON_PLANE_MEM)
 * and the NeuronCore state plane (NEURON_PLANE_NC).  They alone may fill
 * the callbacks marked "built-in planes only", through which the base
 * tells them of the device events only they need and asks them what only
 * they know.
 *
 * Order of the calls, for every event (a plane not attached is skipped):
 *
 * - device created: @device_attach in id order (device, memory,
 *   cores, DMA, telemetry);
 * - bound to its DHAL and mapped: @device_setup in id order;
 * - published: @device_publish in id order;
 * - out of a device reset, ready: @device_ready in id order, before the
 *   state says ready;
 * - cores reset / device reset: @cores_reset / @device_reset in id order;
 * - file released: @file_release in reverse id order (what the planes
 *   above started ends before the reservations and memory under it go);
 * - process detached: @process_gone_locked in id order, under the device
 *   lock, as its attach slot empties; then @process_detach in id order;
 * - device removed: @file_release of every open file then @device_detach,
 *   plane by plane in reverse id order; then @device_remove in reverse id
 *   order once the node is gone; @device_free in reverse id order when the
 *   device structure's last reference goes.
 */
#ifndef _NEURON_PLANE_H
#define _NEURON_PLANE_H

#include <linux/build_bug.h>
#include <linux/compiler_types.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/types.h>

#include <neuron/neuron_ioctl.h>

struct address_space;
struct neuron_app_info;
struct neuron_device;
struct pid;
struct vm_area_struct;

/**
 * enum neuron_plane_id - the planes
 * @NEURON_PLANE_CORE: the core's base layer itself (not a plane)
 * @NEURON_PLANE_DEVICE: the device plane of neuron_core: identity,
 *	information and reset commands, register access, firmware mailboxes
 *	(built in)
 * @NEURON_PLANE_MEM: the memory layer of neuron_core (built in)
 * @NEURON_PLANE_NC: the NeuronCore state plane of neuron_core (built in)
 * @NEURON_PLANE_DMA: neuron_udma
 * @NEURON_PLANE_TELEMETRY: neuron_telemetry
 * @NEURON_PLANES: number of ids
 */
enum neuron_plane_id {
	NEURON_PLANE_CORE,
	NEURON_PLANE_DEVICE,
	NEURON_PLANE_MEM,
	NEURON_PLANE_NC,
	NEURON_PLANE_DMA,
	NEURON_PLANE_TELEMETRY,
	NEURON_PLANES,
};

/* Datastore entries per device (the reference's count). */
#define NEURON_DS_ENTRIES	16

/* Alias of a plane's module, by its &neuron_plane.name ("neuron-plane-dma"). */
#define NEURON_PLANE_ALIAS_FMT	"neuron-plane-%s"
#define NEURON_PLANE_ALIAS(name)	MODULE_ALIAS("neuron-plane-" name)

/**
 * struct neuron_file - one open file of /dev/neuronN
 * @nd: the device (the open file holds a reference on it)
 * @tgid: the attached process, NULL for a free-access (O_WRONLY) file
 * @node: entry in the device's list of open files (core private)
 * @mapping: the address space the file's mappings are in (core private:
 *	zapped when the device goes)
 * @ds_grant: per datastore entry, the generation of the entry this file
 *	acquired by pid and may map read-only; 0 for none (core private)
 * @plane: per plane, the plane's state for this file, or NULL; a plane
 *	sets its own entry from its handlers (with cmpxchg(), as two calls
 *	on one file may race) and gets it back in
 *	&neuron_plane.file_release
 */
struct neuron_file {
	struct neuron_device *nd;
	struct pid *tgid;
	struct list_head node;
	struct address_space *mapping;
	u32 ds_grant[NEURON_DS_ENTRIES];
	void *plane[NEURON_PLANES];
};

/**
 * typedef neuron_ioctl_fn - a command handler
 * @nf: the file
 * @arg: the ioctl argument, unchecked
 *
 * Runs with the device's usage lock held for read, on a device that is not
 * removed, after the family's gate passed.
 *
 * Return: 0 or a negative errno (or a positive count, where the ABI says).
 */
typedef long (*neuron_ioctl_fn)(struct neuron_file *nf, void __user *arg);

/* Most commands one number carries (nr 102: MEM_ALLOC_V2, _V2MT, _V2MT64, _V2MT64_PA). */
#define NEURON_IOCTL_MAX_SIBLINGS	4
/* Highest command number of the ABI (DMABUF_FD_V2, driver 2.29). */
#define NEURON_IOCTL_MAX_NR		138

/**
 * enum neuron_ioctl_gate - who may call a family
 * @NEURON_GATE_ANY: any file of the device, including the free-access lane
 * @NEURON_GATE_ATTACHED: a normal file (-EBADF on the free-access lane),
 *	used by a process attached to the device (-EACCES otherwise)
 */
enum neuron_ioctl_gate {
	NEURON_GATE_ANY,
	NEURON_GATE_ATTACHED,
};

/**
 * struct neuron_ioctl_cmd - one command
 * @cmd: its full encoding
 * @fn: its handler; NULL while the command is pending (-EOPNOTSUPP)
 */
struct neuron_ioctl_cmd {
	unsigned int cmd;
	neuron_ioctl_fn fn;
};

/**
 * struct neuron_ioctl_family - the commands of one number
 * @gate: who may call them (enum neuron_ioctl_gate)
 * @identity: its handlers read only the device's identity, so they may run
 *	without the usage lock once it is known (built-in planes only)
 * @plane: in the core's table, the plane that serves the number
 *	(enum neuron_plane_id); NEURON_PLANE_CORE in a plane's own table
 * @n: entries used in @cmds; 0 for a number the table does not serve
 * @cmds: the commands
 */
struct neuron_ioctl_family {
	u8 gate;
	u8 identity;
	u8 plane;
	u8 n;
	struct neuron_ioctl_cmd cmds[NEURON_IOCTL_MAX_SIBLINGS];
};

/*
 * Families of one and two commands, each command given as its encoding and
 * handler, at the index of the first command's number in a table of
 * NEURON_IOCTL_MAX_NR + 1 families; a second command with another number
 * does not build.
 */
#define NEURON_IOCTL_F1(g, type, fn) \
	[_IOC_NR(type)] = { .gate = (g), .n = 1, .cmds = { { (type), (fn) } } }
#define NEURON_IOCTL_F2(g, type, fn, ...) \
	[_IOC_NR(type) + NEURON_IOCTL_SAME_NR(type, __VA_ARGS__)] = \
		{ .gate = (g), .n = 2, \
		  .cmds = { { (type), (fn) }, NEURON_IOCTL_SIBLING(__VA_ARGS__) } }
#define NEURON_IOCTL_SIBLING(c, f)		{ (c), (f) }
/* The same, for families whose handlers only report the device's identity. */
#define NEURON_IOCTL_ID1(g, type, fn) \
	[_IOC_NR(type)] = { .gate = (g), .identity = 1, .n = 1, .cmds = { { (type), (fn) } } }
#define NEURON_IOCTL_ID2(g, type, fn, ...) \
	[_IOC_NR(type) + NEURON_IOCTL_SAME_NR(type, __VA_ARGS__)] = \
		{ .gate = (g), .identity = 1, .n = 2, \
		  .cmds = { { (type), (fn) }, NEURON_IOCTL_SIBLING(__VA_ARGS__) } }
#define NEURON_IOCTL_SAME_NR(type, c, ...)	BUILD_BUG_ON_ZERO(_IOC_NR(type) != _IOC_NR(c))

/* Most bytes one &struct neuron_plane_dma_read copies. */
#define NEURON_PLANE_DMA_READ_MAX	64

/**
 * struct neuron_plane_dma_read - a read of device addresses into host memory
 *	through one queue of one engine (&neuron_plane.dma_read)
 * @eng: engine id
 * @qid: queue of @eng
 * @src: device-view source address (what the engine reads: device memory,
 *	or a window such as a pod neighbour's)
 * @len: bytes, 1 to %NEURON_PLANE_DMA_READ_MAX
 * @data: where the bytes go (kernel memory)
 */
struct neuron_plane_dma_read {
	u32 eng;
	u32 qid;
	u64 src;
	u32 len;
	void *data;
};

/**
 * struct neuron_plane - what a plane module registers
 * @owner: the module (THIS_MODULE)
 * @name: short name ("dma"); the module carries NEURON_PLANE_ALIAS(name)
 * @id: which plane it is
 * @ioctls: NEURON_IOCTL_MAX_NR + 1 families indexed by command number;
 *	entries with @n 0 are not served.  Each served number must belong to
 *	@id in the core's table.
 * @device_attach: a device appeared (or the plane registered while it
 *	existed): set up the plane's state for it in *@priv.  The device may
 *	still be bringing up (no DHAL yet).  May sleep; return 0 or -errno.
 * @device_publish: the device's node (and debugfs directory) now exists:
 *	called once per attach, after @device_attach, when the device is
 *	published or, for a device published already, right after it.
 *	Optional.
 * @device_detach: the device goes, or the plane unregisters: free @priv.
 *	Called after every file's state was released, with no handler of
 *	this plane running on the device.  Optional with @device_attach.
 * @file_release: release the plane's state @fpriv of file @nf: the file
 *	is closed, or the plane unregisters or the device goes while it is
 *	open.  Work the file started is ended or waited for.  Called only
 *	for a file whose &neuron_file.plane entry the plane set, but for a
 *	built-in plane, which is called for every file (@fpriv may be NULL).
 *	Optional.
 * @process_detach: process @tgid detached from @nd (its last attached file
 *	was released): drop what it holds.  Optional.  A call of @tgid may
 *	still be running then (through a file another process opened) and
 *	record something afterwards: a handler that records per-process
 *	state rechecks neuron_process_attached() after recording it and
 *	drops it when the process is gone.
 * @cores_reset: NeuronCores @cores of @nd were reset.  Optional.
 * @device_reset: @nd was reset as a whole.  Optional.
 * @dma_read: the DMA plane only: copy @rd->len bytes from device address
 *	@rd->src into @rd->data through queue @rd->qid of engine @rd->eng:
 *	two descriptor pairs into a host buffer from the DMA API (the bytes
 *	to its byte 8, then the completion marker from its byte 0 onto its
 *	byte 4), then a wait for the marker, sleeping, at most
 *	%NEURON_PLANE_DMA_READ_MS.  The queue is given rings of the plane's
 *	for the read and parked afterwards.  The caller holds the device
 *	(neuron_device_enter_try()).  Return 0; -EINVAL for a bad request;
 *	-EIO when the engine reports an error (an address that does not
 *	resolve aborts it; it is set running again); -ETIMEDOUT;
 *	-EOPNOTSUPP for a generation without DMA; -ENOMEM.  Optional
 *	(neuron_plane_dma_read()).
 * @builtin: a layer of neuron_core, registered at its load and never
 *	unregistered while a device exists; only such a plane may have the
 *	callbacks below, and only it may use NEURON_PLANE_MEM or
 *	NEURON_PLANE_NC
 * @device_setup: built-in planes only: the device is bound to its DHAL and
 *	its BARs are mapped (once per device).  Return 0 or -errno (the
 *	device fails).
 * @device_ready: built-in planes only: a reset left the device ready; the
 *	state says so only after this returns.
 * @device_remove: built-in planes only: the device was removed: every
 *	plane is detached and the node is gone; release what processes may
 *	still reach (mappings, peer registrations).  No lock held.
 * @device_free: built-in planes only: the device structure's last
 *	reference went (also when its creation failed half-way, after a
 *	failed @device_attach); free what @device_attach made.
 * @process_gone_locked: built-in planes only: process @tgid detaches from
 *	@nd, called with the device's lock held while its attach slot is
 *	still filled in, so that a process attaching next finds what it held
 *	free.  Must take leaf locks only.
 * @cores_held: built-in planes only: the cores of @nd that a process other
 *	than @tgid holds in this plane (bit per core).  Called with the
 *	host-wide holds lock held (neuron_holds_lock()).
 * @app_info: built-in planes only: fill in what this plane knows of
 *	process @tgid for GET_ALL_APPS_INFO (@flags: APP_INFO_*).  Called
 *	with the device's lock held; takes leaf locks only.
 * @mmap: built-in planes only: map [@start, @start + @len) of the
 *	device's mmap space for @nf into @vma, or return -ENOENT when the
 *	range is not this plane's.  The base layer checked the file, the
 *	sharing mode and the range's overflow.
 *
 * Every callback but @device_attach and those marked "no lock" or
 * "built-in planes only" runs with the device's plane lock held (it must
 * not take the device's usage lock); none of those runs concurrently
 * with another for one device.
 */
struct neuron_plane {
	struct module *owner;
	const char *name;
	enum neuron_plane_id id;
	const struct neuron_ioctl_family *ioctls;
	int (*device_attach)(struct neuron_device *nd, void **priv);
	void (*device_publish)(struct neuron_device *nd, void *priv);
	void (*device_detach)(struct neuron_device *nd, void *priv);
	void (*file_release)(struct neuron_file *nf, void *fpriv);
	void (*process_detach)(struct neuron_device *nd, void *priv, struct pid *tgid);
	void (*cores_reset)(struct neuron_device *nd, void *priv, u32 cores);
	void (*device_reset)(struct neuron_device *nd, void *priv);
	int (*dma_read)(struct neuron_device *nd, void *priv,
			const struct neuron_plane_dma_read *rd);
	bool builtin;
	int (*device_setup)(struct neuron_device *nd);
	void (*device_ready)(struct neuron_device *nd);
	void (*device_remove)(struct neuron_device *nd);
	void (*device_free)(struct neuron_device *nd);
	void (*process_gone_locked)(struct neuron_device *nd, struct pid *tgid);
	u32 (*cores_held)(struct neuron_device *nd, struct pid *tgid);
	void (*app_info)(struct neuron_device *nd, struct pid *tgid, u16 flags,
			 struct neuron_app_info *app);
	int (*mmap)(struct neuron_file *nf, struct vm_area_struct *vma, u64 start, u64 len);
};

/* Longest wait of one &neuron_plane.dma_read for its marker, in ms. */
#define NEURON_PLANE_DMA_READ_MS	20

int neuron_plane_register(const struct neuron_plane *plane);
void neuron_plane_unregister(const struct neuron_plane *plane);
void *neuron_plane_priv(struct neuron_device *nd, enum neuron_plane_id id);
bool neuron_process_attached(struct neuron_device *nd, struct pid *tgid);
u32 neuron_process_foreign_cores(struct neuron_device *nd);

/**
 * module_neuron_plane() - a plane module's init and exit
 * @plane: the module's &struct neuron_plane
 */
#define module_neuron_plane(plane) \
	module_driver(plane, neuron_plane_register, neuron_plane_unregister)

/*
 * A pointer field of a uapi struct (declared as a plain pointer for ABI
 * compatibility) as the user pointer it is.
 */
static inline void __user *neuron_user_ptr(const void *p)
{
	return u64_to_user_ptr((u64)(uintptr_t)p);
}

#endif /* _NEURON_PLANE_H */
