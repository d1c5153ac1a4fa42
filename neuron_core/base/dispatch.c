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
 * Numbers a plane serves (DMA, telemetry) are marked here with their plane;
 * the plane registers their families when it loads (plane.c), and a call
 * to one while the plane is not loaded loads it first (-EOPNOTSUPP when
 * that fails).  The live table the dispatcher reads is one pointer per
 * number, under SRCU, so a call is one table lookup.
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
#include <linux/srcu.h>

#include "dispatch.h"

/**
 * neuron_ioctl_rejected() - the handler of a command the ABI defines and
 *	the driver refuses on purpose (Documentation/ioctl.rst)
 * @nf: the file
 * @arg: not used
 *
 * Return: -EOPNOTSUPP.
 */
long neuron_ioctl_rejected(struct neuron_file *nf, void __user *arg)
{
	return -EOPNOTSUPP;
}

/* The handler of a command refused for good. */
#define REJECTED	neuron_ioctl_rejected

/* A family of one command, refused for good. */
#define F1(g, type, fn)		NEURON_IOCTL_F1(g, type, fn)
/* A number served by a plane: the plane registers its family (plane.c). */
#define P(pl, type) \
	[_IOC_NR(type)] = { .plane = (pl) }
#define DEV				NEURON_PLANE_DEVICE
#define MEM				NEURON_PLANE_MEM
#define NC				NEURON_PLANE_NC
#define DMA				NEURON_PLANE_DMA
#define TELEMETRY			NEURON_PLANE_TELEMETRY

#define ATT		NEURON_GATE_ATTACHED

/*
 * Designated by number, so a number listed twice is a W=1 warning
 * (-Woverride-init) and a family whose commands disagree on their number
 * does not build.
 */
static const struct neuron_ioctl_family neuron_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	/* Device reset and status */
	P(DEV, NEURON_IOCTL_DEVICE_RESET),
	P(DEV, NEURON_IOCTL_DEVICE_READY),
	P(DEV, NEURON_IOCTL_DEVICE_INFO),
	P(DEV, NEURON_IOCTL_DEVICE_INIT),
	P(DEV, NEURON_IOCTL_DEVICE_RELEASE),
	/* Who uses the device: monitors ask on the free-access lane too. */
	P(DEV, NEURON_IOCTL_DEVICE_APP_PID),
	P(DEV, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO),

	/* Register access and firmware metrics */
	P(DEV, NEURON_IOCTL_BAR_READ),
	P(DEV, NEURON_IOCTL_BAR_WRITE),
	P(TELEMETRY, NEURON_IOCTL_POST_METRIC),

	/* Memory */
	P(MEM, NEURON_IOCTL_MEM_ALLOC),
	P(MEM, NEURON_IOCTL_MEM_FREE),
	P(DMA, NEURON_IOCTL_MEM_COPY),
	P(DMA, NEURON_IOCTL_MEM_BUF_COPY),
	P(MEM, NEURON_IOCTL_MEM_GET_PA),
	P(MEM, NEURON_IOCTL_MEM_GET_INFO),
	P(DMA, NEURON_IOCTL_PROGRAM_ENGINE),
	P(DMA, NEURON_IOCTL_MEMSET),
	P(MEM, NEURON_IOCTL_MEM_GET_EXTENDED_INFO),

	/* DMA engines and queues (nr 40, DMA_QUIESCE_QUEUES, is not a command) */
	P(DMA, NEURON_IOCTL_DMA_ENG_INIT),
	P(DMA, NEURON_IOCTL_DMA_ENG_SET_STATE),
	P(DMA, NEURON_IOCTL_DMA_ENG_GET_STATE),
	P(DMA, NEURON_IOCTL_DMA_QUEUE_INIT),
	P(DMA, NEURON_IOCTL_DMA_QUEUE_RELEASE),
	P(DMA, NEURON_IOCTL_DMA_QUEUE_COPY_START),
	P(DMA, NEURON_IOCTL_DMA_ACK_COMPLETED),
	P(DMA, NEURON_IOCTL_DMA_QUEUE_GET_STATE),
	P(DMA, NEURON_IOCTL_DMA_COPY_DESCRIPTORS),
	P(DMA, NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT),
	P(DMA, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH),

	/* Semaphores and events */
	P(NC, NEURON_IOCTL_SEMAPHORE_INCREMENT),
	P(NC, NEURON_IOCTL_SEMAPHORE_DECREMENT),
	P(NC, NEURON_IOCTL_SEMAPHORE_READ),
	P(NC, NEURON_IOCTL_SEMAPHORE_WRITE),
	P(NC, NEURON_IOCTL_EVENT_SET),
	P(NC, NEURON_IOCTL_EVENT_GET),

	/* Notification queues */
	P(NC, NEURON_IOCTL_NOTIFICATIONS_INIT_V1),
	P(NC, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1),
	P(NC, NEURON_IOCTL_NOTIFICATIONS_INIT_V2),
	P(NC, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2),
	F1(ATT, NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO, REJECTED),

	/* Hardware counters and datastore */
	P(TELEMETRY, NEURON_IOCTL_READ_HW_COUNTERS),
	P(NC, NEURON_IOCTL_ACQUIRE_NEURON_DS),
	P(NC, NEURON_IOCTL_RELEASE_NEURON_DS),

	/* Core locks; core range reservation is on the free-access lane */
	P(NC, NEURON_IOCTL_CRWL_READER_ENTER),
	P(NC, NEURON_IOCTL_CRWL_READER_EXIT),
	P(NC, NEURON_IOCTL_CRWL_WRITER_ENTER),
	P(NC, NEURON_IOCTL_CRWL_WRITER_DOWNGRADE),
	P(NC, NEURON_IOCTL_CRWL_NC_RANGE_MARK),
	P(NC, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK),

	/* Core initialisation and versions */
	P(NC, NEURON_IOCTL_CINIT_SET_STATE),
	P(NC, NEURON_IOCTL_NC_MODEL_STARTED_COUNT),
	P(DEV, NEURON_IOCTL_COMPATIBLE_VERSION),

	/* Device identity */
	P(DEV, NEURON_IOCTL_DEVICE_BASIC_INFO),
	P(DEV, NEURON_IOCTL_DEVICE_BDF),
	P(MEM, NEURON_IOCTL_MEM_ALLOC_V2),

	/* Per-core reset */
	P(DEV, NEURON_IOCTL_NC_RESET),
	P(DEV, NEURON_IOCTL_NC_RESET_READY),

	P(DMA, NEURON_IOCTL_PROGRAM_ENGINE_NC),
	/* nr 106: two unrelated commands; BDF_EXT puts them on the free lane */
	P(DEV, NEURON_IOCTL_DEVICE_RESET_STATUS),
	P(MEM, NEURON_IOCTL_DMABUF_FD),
	P(DMA, NEURON_IOCTL_MEM_COPY_ASYNC),
	P(DMA, NEURON_IOCTL_MEM_COPY_ASYNC_WAIT),
	P(DEV, NEURON_IOCTL_DRIVER_INFO_GET),
	P(MEM, NEURON_IOCTL_MEM_MC_GET_INFO),

	/* Resources, logging and topology */
	P(NC, NEURON_IOCTL_RESOURCE_MMAP_INFO),
	P(DEV, NEURON_IOCTL_PRINTK),
	P(DEV, NEURON_IOCTL_HOST_DEVICE_ID),
	P(DEV, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP),
	P(MEM, NEURON_IOCTL_DUMP_MEM_CHUNKS),
	P(NC, NEURON_IOCTL_NC_PID_STATE_DUMP),
	P(DMA, NEURON_IOCTL_HBM_SCRUB_START),
	P(DMA, NEURON_IOCTL_HBM_SCRUB_WAIT),
	P(NC, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP),

	/* Pods */
	P(NC, NEURON_IOCTL_POD_INFO),
	P(NC, NEURON_IOCTL_POD_STATUS),
	P(NC, NEURON_IOCTL_POD_CTRL),

	/* Zero-copy, host-to-device queues, power and telemetry */
	P(DMA, NEURON_IOCTL_MEM_BUF_ZEROCOPY64),
	P(DMA, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES),
	P(DMA, NEURON_IOCTL_H2T_DMA_FREE_QUEUES),
	P(TELEMETRY, NEURON_IOCTL_POWER_PROFILE),
	P(TELEMETRY, NEURON_IOCTL_METRICS_CTRL),
	P(DMA, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES),
	P(TELEMETRY, NEURON_IOCTL_THROTTLING_NOTIFICATIONS),
	P(MEM, NEURON_IOCTL_GET_VA_PLACEMENT),
	P(TELEMETRY, NEURON_IOCTL_GET_PERFORMANCE_PROFILE),
	P(TELEMETRY, NEURON_IOCTL_AVAILABLE_PERF_PROFILES),
	P(DMA, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES),

	/* Driver 2.28 and 2.29 */
	P(MEM, NEURON_IOCTL_HOST_MEM_PIN),
	P(MEM, NEURON_IOCTL_HOST_MEM_UNPIN),
	P(MEM, NEURON_IOCTL_DMABUF_FD_V2),
};

/*
 * The dispatcher's table: per number, the family that serves it now, the
 * core's own or a registered plane's.  Written under plane.c's lock,
 * read under neuron_ioctl_srcu; neuron_ioctl_withdraw() waits for readers before a
 * plane's families can go.
 */
static const struct neuron_ioctl_family __rcu *neuron_ioctl_live[NEURON_IOCTL_MAX_NR + 1];
/* Readers: every ioctl, for its whole call; neuron_ioctl_withdraw() waits for them. */
DEFINE_STATIC_SRCU(neuron_ioctl_srcu);

/* Fill the table with the core's families, at load. */
void neuron_ioctl_init(void)
{
	unsigned int nr;

	for (nr = 0; nr <= NEURON_IOCTL_MAX_NR; nr++)
		if (neuron_ioctls[nr].n)
			RCU_INIT_POINTER(neuron_ioctl_live[nr], &neuron_ioctls[nr]);
}

/* Whether plane @p serves only numbers the core's table gives it. */
int neuron_ioctl_check_plane(const struct neuron_plane *p)
{
	const struct neuron_ioctl_family *f;
	unsigned int nr, i;

	for (nr = 0; nr <= NEURON_IOCTL_MAX_NR; nr++) {
		f = &p->ioctls[nr];
		if (!f->n)
			continue;
		if (neuron_ioctls[nr].plane != p->id || f->n > NEURON_IOCTL_MAX_SIBLINGS ||
		    f->gate > NEURON_GATE_ATTACHED || (f->identity && !p->builtin)) {
			pr_err("plane %s: command number %u is not its to serve\n", p->name, nr);
			return -EINVAL;
		}
		for (i = 0; i < f->n; i++) {
			if (_IOC_NR(f->cmds[i].cmd) != nr) {
				pr_err("plane %s: command %#x listed under number %u\n",
				       p->name, f->cmds[i].cmd, nr);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Withdraw plane @p's families.  Called under plane.c's lock. */
void neuron_ioctl_withdraw(const struct neuron_plane *p)
{
	unsigned int nr;

	for (nr = 0; nr <= NEURON_IOCTL_MAX_NR; nr++)
		if (p->ioctls[nr].n)
			RCU_INIT_POINTER(neuron_ioctl_live[nr], NULL);
}

/*
 * Wait until no call that found a withdrawn family runs any more.  Called
 * with no lock held: calls may wait for device locks.
 */
void neuron_ioctl_sync(void)
{
	synchronize_srcu(&neuron_ioctl_srcu);
}

/* The command @cmd encodes in family @fam, or NULL. */
static const struct neuron_ioctl_cmd *
neuron_ioctl_find(const struct neuron_ioctl_family *fam, unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < fam->n; i++)
		if (fam->cmds[i].cmd == cmd)
			return &fam->cmds[i];
	return NULL;
}

/*
 * The family serving @nr now, loading its plane first when it is not
 * there.  Called with the SRCU read lock @*idx held; may drop and retake
 * it.  Return: the family, or NULL with *@err set (-ENOTTY for a number the
 * ABI does not define, -EOPNOTSUPP when its plane cannot be loaded).
 */
static const struct neuron_ioctl_family *neuron_ioctl_family(unsigned int nr, int *idx,
							     long *err)
{
	const struct neuron_ioctl_family *fam;
	u8 plane;

	fam = srcu_dereference(neuron_ioctl_live[nr], &neuron_ioctl_srcu);
	if (fam)
		return fam;
	plane = neuron_ioctls[nr].plane;
	if (!plane) {
		*err = -ENOTTY;
		return NULL;
	}
	srcu_read_unlock(&neuron_ioctl_srcu, *idx);
	*err = neuron_plane_load(plane);
	*idx = srcu_read_lock(&neuron_ioctl_srcu);
	if (*err)
		return NULL;
	fam = srcu_dereference(neuron_ioctl_live[nr], &neuron_ioctl_srcu);
	if (!fam)
		*err = -EOPNOTSUPP;	/* it went again meanwhile */
	return fam;
}

/*
 * Whether the caller may use @nf for an attach-gated command.  The file's
 * own opener is attached for as long as the file is open (the call holds
 * the file, so it cannot be released meanwhile); anyone else must have
 * attached through a file of its own.
 */
static int neuron_ioctl_check_attached(struct neuron_file *nf)
{
	struct neuron_device *nd = nf->nd;
	struct pid *self = task_tgid(current);

	if (!nf->tgid)
		return -EBADF;
	if (nf->tgid == self)
		return 0;
	/*
	 * Checked once, as the call starts: the caller may detach (close its
	 * own files) while the call runs.  Handlers that record per-process
	 * state recheck with neuron_process_attached().
	 */
	return neuron_process_attached(nd, self) ? 0 : -EACCES;
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
	{ NEURON_DRIVER_FEATURE_ALLOC_WITH_PA, { NEURON_IOCTL_MEM_ALLOC_V2MT64_PA } },
	{ NEURON_DRIVER_FEATURE_PINNED_HOST_MEM,
	  { NEURON_IOCTL_HOST_MEM_PIN, NEURON_IOCTL_HOST_MEM_UNPIN } },
	/*
	 * NEURON_DRIVER_FEATURE_CONTIGUOUS_SCRATCHPAD is never reported:
	 * scratchpad chunks are placed like any other (Documentation/memory.rst).
	 */
	{ NEURON_DRIVER_FEATURE_ZEROCOPY,
	  { NEURON_IOCTL_MEM_BUF_ZEROCOPY64, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES,
	    NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES } },
	/* The 64-byte MEM_BUF_ZEROCOPY64 queues a transfer when given a sequence number. */
	{ NEURON_DRIVER_FEATURE_ASYNC_IO,
	  { NEURON_IOCTL_MEM_BUF_ZEROCOPY64, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES } },
};

/* Whether family table @t (NEURON_IOCTL_MAX_NR + 1 entries) implements @cmd. */
static bool neuron_ioctl_implemented(const struct neuron_ioctl_family *t, unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct neuron_ioctl_cmd *c;

	if (nr > NEURON_IOCTL_MAX_NR)
		return false;
	c = neuron_ioctl_find(&t[nr], cmd);
	return c && c->fn && c->fn != neuron_ioctl_rejected;
}

/* The feature bits whose every command family table @t implements. */
static u64 neuron_ioctl_table_features(const struct neuron_ioctl_family *t)
{
	unsigned int i, j;
	u64 f = 0;

	for (i = 0; i < ARRAY_SIZE(neuron_features); i++) {
		bool all = true;

		for (j = 0; j < ARRAY_SIZE(neuron_features[i].cmds); j++) {
			unsigned int cmd = neuron_features[i].cmds[j];

			if (cmd && !neuron_ioctl_implemented(t, cmd))
				all = false;
		}
		if (all)
			f |= neuron_features[i].flag;
	}
	return f;
}

/*
 * The feature bits of each plane, learnt when it first registers and kept
 * when it unloads (its module is loaded again on demand), and whether it
 * registered since the core loaded.  Written under plane.c's lock.
 */
static u64 neuron_plane_features[NEURON_PLANES];
static unsigned long neuron_planes_known;

/*
 * Load each plane that never registered since the core loaded, once, to
 * learn its feature bits.  Called with the SRCU read lock @idx held;
 * returns it, dropped and taken again.
 */
static int neuron_ioctl_know_planes(int idx)
{
	unsigned int id;

	for (id = NEURON_PLANE_CORE + 1; id < NEURON_PLANES; id++) {
		if (test_bit(id, &neuron_planes_known))
			continue;
		srcu_read_unlock(&neuron_ioctl_srcu, idx);
		neuron_plane_load(id);
		idx = srcu_read_lock(&neuron_ioctl_srcu);
	}
	return idx;
}

/*
 * The feature bits the driver reports (enum neuron_driver_feature_flag):
 * the core's and those of every plane that registered once, so that they
 * do not change when a plane unloads (its commands load it again).
 */
static u64 neuron_ioctl_features(void)
{
	u64 f = neuron_ioctl_table_features(neuron_ioctls);
	unsigned int id;

	for (id = NEURON_PLANE_CORE + 1; id < NEURON_PLANES; id++)
		f |= READ_ONCE(neuron_plane_features[id]);
	return f;
}

/* Publish plane @p's families.  Called under plane.c's lock. */
void neuron_ioctl_publish(const struct neuron_plane *p)
{
	unsigned int nr;

	WRITE_ONCE(neuron_plane_features[p->id], neuron_ioctl_table_features(p->ioctls));
	set_bit(p->id, &neuron_planes_known);

	for (nr = 0; nr <= NEURON_IOCTL_MAX_NR; nr++)
		if (p->ioctls[nr].n)
			rcu_assign_pointer(neuron_ioctl_live[nr], &p->ioctls[nr]);
}

/*
 * Copy what the identity commands report into the device, once.  Called
 * with the usage lock held, on a device that is not removed (so bound to
 * its DHAL).
 */
static void neuron_ioctl_learn_identity(struct neuron_device *nd)
{
	const struct neuron_dhal *dhal;
	u64 features = neuron_ioctl_features();

	mutex_lock(&nd->lock);
	dhal = nd->dhal.dhal;
	if (!nd->ident_valid && dhal) {
		nd->ident.generation = dhal->generation;
		nd->ident.revision = nd->bus.id.revision;
		nd->ident.rt_compat_min = dhal->fw->rt_compat_min;
		nd->ident.rt_compat_max = dhal->fw->rt_compat_max;
		nd->ident.features = features;
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
	unsigned int nr = _IOC_NR(cmd);
	long ret;
	int idx;

	if (nr > NEURON_IOCTL_MAX_NR)
		return -ENOTTY;
	nr = array_index_nospec(nr, NEURON_IOCTL_MAX_NR + 1);

	/* A plane's unregister waits for the calls that found its family. */
	idx = srcu_read_lock(&neuron_ioctl_srcu);
	fam = neuron_ioctl_family(nr, &idx, &ret);
	if (!fam)
		goto out;
	c = neuron_ioctl_find(fam, cmd);
	ret = -ENOTTY;
	if (!c)
		goto out;
	ret = -ENODEV;
	if (READ_ONCE(nd->state) == NEURON_STATE_GONE)
		goto out;
	if (fam->gate == NEURON_GATE_ATTACHED) {
		ret = neuron_ioctl_check_attached(nf);
		if (ret)
			goto out;
	}
	neuron_evlog_add(nd, NEURON_EVLOG_IOCTL, cmd);
	ret = -EOPNOTSUPP;
	if (!c->fn)
		goto out;

	/*
	 * Identity handlers read only what was copied into the device, which
	 * the open file keeps alive: once it is there they need no lock.  The
	 * acquire pairs with the release that published it.
	 */
	if (fam->identity && smp_load_acquire(&nd->ident_valid)) {
		ret = c->fn(nf, (void __user *)arg);
		goto out;
	}
	/* Acquire: as above (a hint only: learning the identity rechecks). */
	if (!smp_load_acquire(&nd->ident_valid))
		idx = neuron_ioctl_know_planes(idx);

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
out:
	srcu_read_unlock(&neuron_ioctl_srcu, idx);
	return ret;
}
