// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl dispatcher: one table, indexed by command number.
 *
 * Each entry is a family: the commands sharing a number, each named by its
 * full 32-bit encoding (direction, size, type and number), and one gate for
 * all of them.  Siblings that differ only in their encoded size (MEM_COPY
 * and MEM_COPY64, DEVICE_RESET_STATUS and DEVICE_BDF_EXT, ...) are told
 * apart here, so a handler only ever sees the encoding it was written for
 * and no two siblings can have different gates.  Any other value, including
 * a known number with another size or direction, is -ENOTTY.
 *
 * Gates:
 *
 * - NEURON_GATE_ANY: any file of the device, including the free-access
 *   lane (O_WRONLY opens), which the runtime and monitoring tools use for
 *   device-global queries.
 * - NEURON_GATE_ATTACHED: a normal file only (-EBADF on the free-access
 *   lane), used by a process attached to the device (-EACCES otherwise:
 *   a forked child using its parent's descriptor, or a descriptor passed
 *   to a process that has not opened the device itself).
 *
 * Commands that later work implements are in the table without a handler:
 * they pass their gate and return -EOPNOTSUPP, as do the few the driver
 * refuses on purpose.  Documentation/ioctl.rst lists every command with its
 * state, gate and errors.
 */

#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "ioctl.h"

enum neuron_ioctl_gate {
	NEURON_GATE_ANY,
	NEURON_GATE_ATTACHED,
};

/* Most commands one number carries (nr 102: MEM_ALLOC_V2, _V2MT, _V2MT64). */
#define NEURON_IOCTL_MAX_SIBLINGS	3
/* Highest command number of the ABI (GET_ASYNC_H2T_DMA_COMPL_QUEUES). */
#define NEURON_IOCTL_MAX_NR		135

/**
 * struct neuron_ioctl_cmd - one command
 * @cmd: its full encoding
 * @fn: its handler; NULL while the command is pending (-EOPNOTSUPP)
 */
struct neuron_ioctl_cmd {
	unsigned int cmd;
	long (*fn)(struct neuron_file *nf, void __user *arg);
};

/**
 * struct neuron_ioctl_family - the commands of one number
 * @gate: who may call them (enum neuron_ioctl_gate)
 * @identity: its handlers read only &neuron_device.ident, so they run
 *	without the usage lock once the identity is known
 * @n: entries used in @cmds; 0 for a number the ABI does not define
 * @cmds: the commands
 */
struct neuron_ioctl_family {
	u8 gate;
	u8 identity;
	u8 n;
	struct neuron_ioctl_cmd cmds[NEURON_IOCTL_MAX_SIBLINGS];
};

/* Defined by the ABI, refused on purpose (see Documentation/ioctl.rst). */
static long neuron_ioctl_rejected(struct neuron_file *nf, void __user *arg)
{
	return -EOPNOTSUPP;
}

/* The handler of a command later work implements (-EOPNOTSUPP) ... */
#define PENDING		NULL
/* ... and of one refused for good. */
#define REJECTED	neuron_ioctl_rejected

/*
 * Families of one and two commands, each command given as its encoding and
 * handler, at the index of the first command's number; a second command
 * with another number does not build.  (The one family of three, nr 102,
 * is spelled out in the table.)
 */
#define F1(g, type, fn) \
	[_IOC_NR(type)] = { .gate = (g), .n = 1, .cmds = { { (type), (fn) } } }
#define F2(g, type, fn, ...) \
	[_IOC_NR(type) + SAME_NR(type, __VA_ARGS__)] = \
		{ .gate = (g), .n = 2, .cmds = { { (type), (fn) }, SIBLING(__VA_ARGS__) } }
/* The same, for families whose handlers only report the device's identity. */
#define ID1(g, type, fn) \
	[_IOC_NR(type)] = { .gate = (g), .identity = 1, .n = 1, .cmds = { { (type), (fn) } } }
#define ID2(g, type, fn, ...) \
	[_IOC_NR(type) + SAME_NR(type, __VA_ARGS__)] = \
		{ .gate = (g), .identity = 1, .n = 2, \
		  .cmds = { { (type), (fn) }, SIBLING(__VA_ARGS__) } }
#define SIBLING(c, f)		{ (c), (f) }
#define SAME_NR(type, c, ...)	BUILD_BUG_ON_ZERO(_IOC_NR(type) != _IOC_NR(c))

#define ANY		NEURON_GATE_ANY
#define ATT		NEURON_GATE_ATTACHED

/*
 * Designated by number, so a number listed twice is a W=1 warning
 * (-Woverride-init) and a family whose commands disagree on their number
 * does not build.
 */
static const struct neuron_ioctl_family neuron_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	/* Device reset and status */
	F1(ATT, NEURON_IOCTL_DEVICE_RESET, neuron_ioctl_device_reset),
	F1(ATT, NEURON_IOCTL_DEVICE_READY, neuron_ioctl_device_ready),
	F1(ATT, NEURON_IOCTL_DEVICE_INFO, neuron_ioctl_device_info),
	F1(ATT, NEURON_IOCTL_DEVICE_INIT, neuron_ioctl_device_noop),
	F1(ATT, NEURON_IOCTL_DEVICE_RELEASE, neuron_ioctl_device_noop),
	F1(ATT, NEURON_IOCTL_DEVICE_APP_PID, neuron_ioctl_app_pid),
	F1(ATT, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, neuron_ioctl_all_apps_info),

	/* Register access and firmware metrics */
	F1(ATT, NEURON_IOCTL_BAR_READ, neuron_ioctl_bar_read),
	F1(ATT, NEURON_IOCTL_BAR_WRITE, neuron_ioctl_bar_write),
	F1(ATT, NEURON_IOCTL_POST_METRIC, PENDING),

	/* Memory */
	F1(ATT, NEURON_IOCTL_MEM_ALLOC, neuron_ioctl_mem_alloc),
	F1(ATT, NEURON_IOCTL_MEM_FREE, neuron_ioctl_mem_free),
	F2(ATT, NEURON_IOCTL_MEM_COPY, neuron_ioctl_mem_copy,
	   NEURON_IOCTL_MEM_COPY64, neuron_ioctl_mem_copy64),
	F2(ATT, NEURON_IOCTL_MEM_BUF_COPY, neuron_ioctl_mem_buf_copy,
	   NEURON_IOCTL_MEM_BUF_COPY64, neuron_ioctl_mem_buf_copy64),
	F1(ATT, NEURON_IOCTL_MEM_GET_PA, neuron_ioctl_mem_get_pa),
	F1(ATT, NEURON_IOCTL_MEM_GET_INFO, neuron_ioctl_mem_get_info),
	F1(ATT, NEURON_IOCTL_PROGRAM_ENGINE, neuron_ioctl_program_engine),
	F2(ATT, NEURON_IOCTL_MEMSET, neuron_ioctl_memset,
	   NEURON_IOCTL_MEMSET64, neuron_ioctl_memset64),
	F1(ATT, NEURON_IOCTL_MEM_GET_EXTENDED_INFO, neuron_ioctl_mem_get_extended_info),

	/* DMA engines and queues (nr 40, DMA_QUIESCE_QUEUES, is not a command) */
	F1(ATT, NEURON_IOCTL_DMA_ENG_INIT, neuron_ioctl_dma_eng_init),
	F1(ATT, NEURON_IOCTL_DMA_ENG_SET_STATE, neuron_ioctl_dma_eng_set_state),
	F1(ATT, NEURON_IOCTL_DMA_ENG_GET_STATE, neuron_ioctl_dma_eng_get_state),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_INIT, neuron_ioctl_dma_queue_init),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_RELEASE, neuron_ioctl_dma_queue_release),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_COPY_START, neuron_ioctl_dma_queue_copy_start),
	F1(ATT, NEURON_IOCTL_DMA_ACK_COMPLETED, neuron_ioctl_dma_ack_completed),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_GET_STATE, neuron_ioctl_dma_queue_get_state),
	F2(ATT, NEURON_IOCTL_DMA_COPY_DESCRIPTORS, neuron_ioctl_dma_copy_descriptors,
	   NEURON_IOCTL_DMA_COPY_DESCRIPTORS64, neuron_ioctl_dma_copy_descriptors64),
	F1(ATT, NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT, neuron_ioctl_dma_descriptor_copyout),
	F1(ATT, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, neuron_ioctl_dma_queue_init_batch),

	/* Semaphores and events */
	F1(ATT, NEURON_IOCTL_SEMAPHORE_INCREMENT, PENDING),
	F1(ATT, NEURON_IOCTL_SEMAPHORE_DECREMENT, PENDING),
	F1(ATT, NEURON_IOCTL_SEMAPHORE_READ, PENDING),
	F1(ATT, NEURON_IOCTL_SEMAPHORE_WRITE, PENDING),
	F1(ATT, NEURON_IOCTL_EVENT_SET, PENDING),
	F1(ATT, NEURON_IOCTL_EVENT_GET, PENDING),

	/* Notification queues */
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_INIT_V1, PENDING),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1, PENDING),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, PENDING),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, PENDING),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO, REJECTED),

	/* Hardware counters and datastore */
	F1(ATT, NEURON_IOCTL_READ_HW_COUNTERS, PENDING),
	F1(ATT, NEURON_IOCTL_ACQUIRE_NEURON_DS, PENDING),
	F1(ATT, NEURON_IOCTL_RELEASE_NEURON_DS, PENDING),

	/* Core locks; core range reservation is on the free-access lane */
	F1(ATT, NEURON_IOCTL_CRWL_READER_ENTER, PENDING),
	F1(ATT, NEURON_IOCTL_CRWL_READER_EXIT, PENDING),
	F1(ATT, NEURON_IOCTL_CRWL_WRITER_ENTER, PENDING),
	F1(ATT, NEURON_IOCTL_CRWL_WRITER_DOWNGRADE, PENDING),
	F2(ANY, NEURON_IOCTL_CRWL_NC_RANGE_MARK, PENDING,
	   NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0, PENDING),
	F2(ANY, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK, PENDING,
	   NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0, PENDING),

	/* Core initialisation and versions */
	F1(ATT, NEURON_IOCTL_CINIT_SET_STATE, PENDING),
	F1(ATT, NEURON_IOCTL_NC_MODEL_STARTED_COUNT, PENDING),
	ID1(ANY, NEURON_IOCTL_COMPATIBLE_VERSION, neuron_ioctl_compatible_version),

	/* Device identity */
	ID1(ANY, NEURON_IOCTL_DEVICE_BASIC_INFO, neuron_ioctl_basic_info),
	F1(ATT, NEURON_IOCTL_DEVICE_BDF, neuron_ioctl_bdf),
	[_IOC_NR(NEURON_IOCTL_MEM_ALLOC_V2) +
	 SAME_NR(NEURON_IOCTL_MEM_ALLOC_V2, NEURON_IOCTL_MEM_ALLOC_V2MT) +
	 SAME_NR(NEURON_IOCTL_MEM_ALLOC_V2, NEURON_IOCTL_MEM_ALLOC_V2MT64)] = {
		.gate = ATT, .n = 3, .cmds = {
			{ NEURON_IOCTL_MEM_ALLOC_V2, neuron_ioctl_mem_alloc_v2 },
			{ NEURON_IOCTL_MEM_ALLOC_V2MT, neuron_ioctl_mem_alloc_v2mt },
			{ NEURON_IOCTL_MEM_ALLOC_V2MT64, neuron_ioctl_mem_alloc_v2mt64 },
		},
	},

	/* Per-core reset */
	F1(ATT, NEURON_IOCTL_NC_RESET, neuron_ioctl_nc_reset),
	F1(ATT, NEURON_IOCTL_NC_RESET_READY, neuron_ioctl_nc_reset_ready),

	F2(ATT, NEURON_IOCTL_PROGRAM_ENGINE_NC, neuron_ioctl_program_engine_nc,
	   NEURON_IOCTL_PROGRAM_ENGINE_NC64, neuron_ioctl_program_engine_nc64),
	/* nr 106: two unrelated commands; BDF_EXT puts them on the free lane */
	F2(ANY, NEURON_IOCTL_DEVICE_RESET_STATUS, neuron_ioctl_reset_status,
	   NEURON_IOCTL_DEVICE_BDF_EXT, neuron_ioctl_bdf_ext),
	F1(ANY, NEURON_IOCTL_DMABUF_FD, neuron_ioctl_dmabuf_fd),
	F2(ATT, NEURON_IOCTL_MEM_COPY_ASYNC, neuron_ioctl_mem_copy_async,
	   NEURON_IOCTL_MEM_COPY_ASYNC64, neuron_ioctl_mem_copy_async64),
	F1(ATT, NEURON_IOCTL_MEM_COPY_ASYNC_WAIT, neuron_ioctl_mem_copy_async_wait),
	ID2(ANY, NEURON_IOCTL_DRIVER_INFO_GET, neuron_ioctl_driver_info_get,
	    NEURON_IOCTL_DRIVER_INFO_SET, REJECTED),
	F2(ATT, NEURON_IOCTL_MEM_MC_GET_INFO, neuron_ioctl_mem_mc_get_info,
	   NEURON_IOCTL_MEM_MC_GET_INFO_V2, neuron_ioctl_mem_mc_get_info_v2),

	/* Resources, logging and topology */
	F1(ATT, NEURON_IOCTL_RESOURCE_MMAP_INFO, PENDING),
	F1(ANY, NEURON_IOCTL_PRINTK, neuron_ioctl_printk),
	F1(ATT, NEURON_IOCTL_HOST_DEVICE_ID, neuron_ioctl_host_device_id),
	F1(ANY, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, neuron_ioctl_rid_map),
	F1(ATT, NEURON_IOCTL_DUMP_MEM_CHUNKS, neuron_ioctl_dump_mem_chunks),
	F1(ANY, NEURON_IOCTL_NC_PID_STATE_DUMP, neuron_ioctl_nc_pid_state_dump),
	F1(ATT, NEURON_IOCTL_HBM_SCRUB_START, neuron_ioctl_hbm_scrub_start),
	F1(ATT, NEURON_IOCTL_HBM_SCRUB_WAIT, neuron_ioctl_hbm_scrub_wait),
	F1(ANY, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, neuron_ioctl_nc_map),

	/* Pods */
	F1(ANY, NEURON_IOCTL_POD_INFO, PENDING),
	F2(ANY, NEURON_IOCTL_POD_STATUS, PENDING, NEURON_IOCTL_POD_STATUS_V2, PENDING),
	F2(ANY, NEURON_IOCTL_POD_CTRL, PENDING, NEURON_IOCTL_POD_CTRL_V2, PENDING),

	/* Zero-copy, host-to-device queues, power and telemetry */
	F1(ATT, NEURON_IOCTL_MEM_BUF_ZEROCOPY64, neuron_ioctl_mem_buf_zerocopy64),
	F1(ATT, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, neuron_ioctl_h2t_alloc_queues),
	F1(ATT, NEURON_IOCTL_H2T_DMA_FREE_QUEUES, neuron_ioctl_h2t_free_queues),
	F1(ATT, NEURON_IOCTL_POWER_PROFILE, PENDING),
	F1(ATT, NEURON_IOCTL_METRICS_CTRL, PENDING),
	F1(ATT, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES, neuron_ioctl_mem_buf_zerocopy64_batches),
	F1(ATT, NEURON_IOCTL_THROTTLING_NOTIFICATIONS, PENDING),
	F1(ANY, NEURON_IOCTL_GET_VA_PLACEMENT, neuron_ioctl_va_placement),
	F1(ATT, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, PENDING),
	F1(ATT, NEURON_IOCTL_AVAILABLE_PERF_PROFILES, PENDING),
	F1(ATT, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, neuron_ioctl_h2t_compl_queues),
};

/* The command @cmd encodes and its family, or NULL. */
static const struct neuron_ioctl_cmd *
neuron_ioctl_lookup(unsigned int cmd, const struct neuron_ioctl_family **famp)
{
	const struct neuron_ioctl_family *fam;
	unsigned int nr = _IOC_NR(cmd), i;

	if (nr >= ARRAY_SIZE(neuron_ioctls))
		return NULL;
	fam = &neuron_ioctls[array_index_nospec(nr, ARRAY_SIZE(neuron_ioctls))];
	for (i = 0; i < fam->n; i++) {
		if (fam->cmds[i].cmd == cmd) {
			*famp = fam;
			return &fam->cmds[i];
		}
	}
	return NULL;
}

/*
 * Whether the caller may use @nf for an attach-gated command.  The file's
 * own opener is attached for as long as the file is open; anyone else must
 * have attached through a file of its own.
 */
static int neuron_ioctl_check_attached(struct neuron_file *nf)
{
	struct neuron_device *nd = nf->nd;
	struct pid *self = task_tgid(current);
	int i, ret = -EACCES;

	if (!nf->tgid)
		return -EBADF;
	if (nf->tgid == self)
		return 0;
	mutex_lock(&nd->lock);
	for (i = 0; i < NEURON_MAX_ATTACH; i++) {
		if (nd->attach[i].tgid == self) {
			ret = 0;
			break;
		}
	}
	mutex_unlock(&nd->lock);
	return ret;
}

/*
 * Feature bits of DRIVER_INFO_GET: a bit is set once every command that
 * provides the feature is implemented, so the runtime never picks a path
 * that answers -EOPNOTSUPP.
 */
static const struct {
	u64 flag;
	unsigned int cmds[NEURON_IOCTL_MAX_SIBLINGS];
} neuron_features[] = {
	{ NEURON_DRIVER_FEATURE_DMABUF, { NEURON_IOCTL_DMABUF_FD } },
	{ NEURON_DRIVER_FEATURE_ASYNC_DMA,
	  { NEURON_IOCTL_MEM_COPY_ASYNC, NEURON_IOCTL_MEM_COPY_ASYNC64,
	    NEURON_IOCTL_MEM_COPY_ASYNC_WAIT } },
	{ NEURON_DRIVER_FEATURE_BATCH_DMAQ_INIT, { NEURON_IOCTL_DMA_QUEUE_INIT_BATCH } },
	{ NEURON_DRIVER_FEATURE_BIG_CORE_MAPS,
	  { NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0 } },
	{ NEURON_DRIVER_FEATURE_MEM_ALLOC_TYPE, { NEURON_IOCTL_MEM_ALLOC_V2MT } },
	{ NEURON_DRIVER_FEATURE_HBM_SCRUB,
	  { NEURON_IOCTL_HBM_SCRUB_START, NEURON_IOCTL_HBM_SCRUB_WAIT } },
	{ NEURON_DRIVER_FEATURE_MEM_ALLOC64, { NEURON_IOCTL_MEM_ALLOC_V2MT64 } },
	/*
	 * NEURON_DRIVER_FEATURE_CONTIGUOUS_SCRATCHPAD is never reported:
	 * scratchpad chunks are placed like any other (Documentation/memory.rst).
	 */
	{ NEURON_DRIVER_FEATURE_ZEROCOPY,
	  { NEURON_IOCTL_MEM_BUF_ZEROCOPY64, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES,
	    NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES } },
};

static bool neuron_ioctl_implemented(unsigned int cmd)
{
	const struct neuron_ioctl_family *fam;
	const struct neuron_ioctl_cmd *c = neuron_ioctl_lookup(cmd, &fam);

	return c && c->fn && c->fn != neuron_ioctl_rejected;
}

/* The feature bits the driver reports (enum neuron_driver_feature_flag). */
static u64 neuron_ioctl_features(void)
{
	unsigned int i, j;
	u64 f = 0;

	for (i = 0; i < ARRAY_SIZE(neuron_features); i++) {
		bool all = true;

		for (j = 0; j < ARRAY_SIZE(neuron_features[i].cmds); j++) {
			unsigned int cmd = neuron_features[i].cmds[j];

			if (cmd && !neuron_ioctl_implemented(cmd))
				all = false;
		}
		if (all)
			f |= neuron_features[i].flag;
	}
	return f;
}

/*
 * Copy what the identity commands report into the device, once.  Called
 * with the usage lock held, on a device that is not removed (so bound to
 * its DHAL).
 */
static void neuron_ioctl_learn_identity(struct neuron_device *nd)
{
	const struct neuron_dhal *dhal;

	mutex_lock(&nd->lock);
	dhal = nd->dhal.dhal;
	if (!nd->ident_valid && dhal) {
		nd->ident.generation = dhal->generation;
		nd->ident.revision = nd->bus.id.revision;
		nd->ident.rt_compat_min = dhal->fw->rt_compat_min;
		nd->ident.rt_compat_max = dhal->fw->rt_compat_max;
		nd->ident.features = neuron_ioctl_features();
		/* Publish: pairs with the acquire loads in the dispatcher. */
		smp_store_release(&nd->ident_valid, true);
	}
	mutex_unlock(&nd->lock);
}

/**
 * neuron_ioctl_dispatch() - run one ioctl on a /dev/neuronN file
 * @file: the file
 * @cmd: the command, as user space encoded it
 * @arg: its argument
 *
 * Return: -ENOTTY for a value the ABI does not define; -ENODEV on a
 * removed device; the gate's error (-EBADF, -EACCES); else the handler's
 * result.
 */
long neuron_ioctl_dispatch(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct neuron_file *nf = file->private_data;
	struct neuron_device *nd = nf->nd;
	const struct neuron_ioctl_family *fam;
	const struct neuron_ioctl_cmd *c;
	long ret;

	c = neuron_ioctl_lookup(cmd, &fam);
	if (!c)
		return -ENOTTY;
	if (READ_ONCE(nd->state) == NEURON_STATE_GONE)
		return -ENODEV;
	if (fam->gate == NEURON_GATE_ATTACHED) {
		ret = neuron_ioctl_check_attached(nf);
		if (ret)
			return ret;
	}
	if (!c->fn)
		return -EOPNOTSUPP;

	/*
	 * Identity handlers read only what was copied into the device, which
	 * the open file keeps alive: once it is there they need no lock.  The
	 * acquire pairs with the release that published it.
	 */
	if (fam->identity && smp_load_acquire(&nd->ident_valid))
		return c->fn(nf, (void __user *)arg);

	/* Removal waits for handlers that got past this check. */
	down_read(&nd->usage);
	if (READ_ONCE(nd->state) == NEURON_STATE_GONE) {
		ret = -ENODEV;
	} else {
		/* Acquire: as above. */
		if (!smp_load_acquire(&nd->ident_valid))
			neuron_ioctl_learn_identity(nd);
		ret = c->fn(nf, (void __user *)arg);
	}
	up_read(&nd->usage);
	return ret;
}
