// SPDX-License-Identifier: GPL-2.0
/*
 * The NeuronCore state plane: host-wide core reservations, the per-core
 * model locks, the core-initialisation handshake, semaphores and events
 * (Documentation/state.rst).  The pod commands are in pod.c.
 *
 * Reservations are kept by device index in one host-wide table under the
 * base's holds lock (neuron_holds_lock()), a leaf lock the reset code
 * takes inside neuron_device.lock to check and change what processes
 * hold, so the attach slots' held_ncs may be read under it alone (they
 * change only with both locks held).  Model locks and init states are per device,
 * under neuron_cores.lock; their waits sleep on the device's state_wq,
 * which removal wakes.
 */

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>

#include "cores/cores.h"
#include "memory/mem.h"
#include "cores/pod.h"

/* Bounds of the sleeping waits, about as long as the reference's polls. */
#define NEURON_CRWL_READ_WAIT_MS	1000
#define NEURON_CRWL_WRITE_WAIT_MS	2000
#define NEURON_CINIT_WAIT_MS		5000

/* Events and semaphores of a core block (the same on every generation). */
#define NEURON_NC_EVENTS		0x2700000
#define NEURON_NC_SEM_READ		0x2701000
#define NEURON_NC_SEM_SET		0x2701400
#define NEURON_NC_SEM_ADD		0x2701800
#define NEURON_NC_SEM_SUB		0x2701c00
#define NEURON_NC_SEM_COUNT		256

/**
 * struct neuron_mark - who reserved one core
 * @tgid: the process (a reference), NULL when the core is not reserved
 * @nf: the file the reservation was made through (identity only)
 */
struct neuron_mark {
	struct pid *tgid;
	struct neuron_file *nf;
};

/* Under the base's holds lock (neuron_holds_lock()). */
static struct neuron_mark neuron_marks[NEURON_MAX_DEVICES][NEURON_MAX_NC];

/**
 * neuron_nc_init() - make a new device's core state
 * @nd: the device
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_nc_init(struct neuron_device *nd)
{
	unsigned int nc;

	nd->cores = kzalloc(sizeof(*nd->cores), GFP_KERNEL);
	if (!nd->cores)
		return -ENOMEM;
	mutex_init(&nd->cores->lock);
	neuron_nq_init_device(nd);
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		nd->cores->nc[nc].init_state = NEURON_CINIT_STATE_INVALID;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_nc_init);

/* Drop every process reference a core's state holds; nc_state.lock held. */
static void neuron_nc_clear_lock(struct neuron_nc *c)
{
	put_pid(c->writer);
	c->writer = NULL;
	c->write_held = false;
	c->readers = 0;
	memset(&c->uuid, 0, sizeof(c->uuid));
}

static void neuron_nc_clear_init(struct neuron_nc *c)
{
	put_pid(c->initializer);
	c->initializer = NULL;
	c->init_state = NEURON_CINIT_STATE_INVALID;
	c->started = 0;
}

/**
 * neuron_nc_fini() - release a device's core state
 * @nd: the device, no longer reachable by any file
 */
void neuron_nc_fini(struct neuron_device *nd)
{
	unsigned int nc;

	if (!nd->cores)
		return;
	/* Teardown released the datastore: its chunks hold the device. */
	for (nc = 0; nc < NEURON_DS_ENTRIES; nc++)
		WARN_ON(nd->cores->ds[nc].mc);
	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		neuron_nc_clear_lock(&nd->cores->nc[nc]);
		neuron_nc_clear_init(&nd->cores->nc[nc]);
	}
	WARN_ON(!xa_empty(&nd->cores->nqs));
	xa_destroy(&nd->cores->nqs);
	mutex_destroy(&nd->cores->nq_lock);
	mutex_destroy(&nd->cores->lock);
	kfree(nd->cores);
	nd->cores = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_nc_fini);

/**
 * neuron_nc_cores_reset() - cores were reset
 * @nd: the device
 * @cores: bit per core reset
 *
 * Their notification queues are halted and freed, their initialisation
 * goes back to INVALID and their started counts to 0; waiters wake (and
 * find INVALID).
 */
void neuron_nc_cores_reset(struct neuron_device *nd, u32 cores)
{
	unsigned int nc;

	neuron_nq_release(nd, cores);

	mutex_lock(&nd->cores->lock);
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		if (cores & BIT(nc))
			neuron_nc_clear_init(&nd->cores->nc[nc]);
	mutex_unlock(&nd->cores->lock);
	wake_up_all(&nd->state_wq);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_nc_cores_reset);

/**
 * neuron_nc_process_detach() - a process detached from a device
 * @nd: the device
 * @tgid: the process
 *
 * The model locks it recorded are dropped and a core it was initialising
 * goes back to INVALID, so that a waiter takes over.  (Its datastore
 * entry went already, with its attach slot.)
 */
void neuron_nc_process_detach(struct neuron_device *nd, struct pid *tgid)
{
	unsigned int nc;

	mutex_lock(&nd->cores->lock);
	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		struct neuron_nc *c = &nd->cores->nc[nc];

		if (c->writer == tgid)
			neuron_nc_clear_lock(c);
		if (c->initializer == tgid) {
			put_pid(c->initializer);
			c->initializer = NULL;
			if (c->init_state == NEURON_CINIT_STATE_STARTED)
				c->init_state = NEURON_CINIT_STATE_INVALID;
		}
	}
	mutex_unlock(&nd->cores->lock);
	wake_up_all(&nd->state_wq);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_nc_process_detach);

/*
 * Recorded, then rechecked (neuron_process_attached()): a process that
 * detached while its call ran, after its detach looked, must not leave a
 * model lock or an initialisation behind that no detach drops.  Return: 0,
 * or -EACCES once what @me recorded is dropped.
 */
static int neuron_nc_recheck(struct neuron_device *nd, struct pid *me)
{
	if (neuron_process_attached(nd, me))
		return 0;
	neuron_nc_process_detach(nd, me);
	return -EACCES;
}

/* Reservations and holding */

/**
 * neuron_nc_marked_by_others_locked() - cores reserved by other processes
 * @nd: the device
 * @tgid: the process asking
 *
 * The NeuronCore state plane's &neuron_plane.cores_held.
 *
 * Context: the holds lock (neuron_holds_lock()) held.
 * Return: bit per core of @nd reserved by a process other than @tgid.
 */
u32 neuron_nc_marked_by_others_locked(struct neuron_device *nd, struct pid *tgid)
{
	unsigned int nc;
	u32 map = 0;

	neuron_holds_assert_held();
	if (nd->index < 0 || nd->index >= NEURON_MAX_DEVICES)
		return 0;
	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		struct pid *owner = neuron_marks[nd->index][nc].tgid;

		if (owner && owner != tgid)
			map |= BIT(nc);
	}
	return map;
}

/* Whether @tgid holds core @nc of @nd; marks lock held. */
static bool neuron_holds_locked(struct neuron_device *nd, struct pid *tgid, unsigned int nc)
{
	int i;

	if (nd->index >= 0 && nd->index < NEURON_MAX_DEVICES &&
	    neuron_marks[nd->index][nc].tgid == tgid)
		return true;
	for (i = 0; i < NEURON_MAX_ATTACH; i++)
		if (READ_ONCE(nd->attach[i].tgid) == tgid &&
		    (READ_ONCE(nd->attach[i].held_ncs) & BIT(nc)))
			return true;
	return false;
}

/**
 * neuron_nc_holds() - whether a process holds a core
 * @nd: the device
 * @tgid: the process
 * @nc: the core, checked
 *
 * Return: true when @tgid reserved core @nc of @nd or holds it by reset.
 */
bool neuron_nc_holds(struct neuron_device *nd, struct pid *tgid, unsigned int nc)
{
	bool held;

	neuron_holds_lock();
	held = neuron_holds_locked(nd, tgid, nc);
	neuron_holds_unlock();
	return held;
}

/**
 * neuron_nc_core_owner() - the process that reserved a core
 * @nd: the device
 * @nc: the core
 *
 * Return: a pid reference (put_pid() it), or NULL.
 */
struct pid *neuron_nc_core_owner(struct neuron_device *nd, unsigned int nc)
{
	struct pid *owner = NULL;

	if (nc >= NEURON_MAX_NC || nd->index < 0 || nd->index >= NEURON_MAX_DEVICES)
		return NULL;
	/* @nc comes from user space. */
	nc = array_index_nospec(nc, NEURON_MAX_NC);
	neuron_holds_lock();
	owner = get_pid(neuron_marks[nd->index][nc].tgid);
	neuron_holds_unlock();
	return owner;
}

/**
 * neuron_nc_marks() - cores reserved on a run of devices
 * @first: the first device index
 * @n: devices from @first on
 *
 * For the pod election, which refuses to start while a node's cores are
 * reserved.  Takes the holds lock (a leaf lock).
 *
 * Return: the number of reserved cores of devices @first .. @first + @n - 1.
 */
unsigned int neuron_nc_marks(unsigned int first, unsigned int n)
{
	unsigned int d, nc, cnt = 0;

	neuron_holds_lock();
	for (d = first; d < first + n && d < NEURON_MAX_DEVICES; d++)
		for (nc = 0; nc < NEURON_MAX_NC; nc++)
			cnt += !!neuron_marks[d][nc].tgid;
	neuron_holds_unlock();
	return cnt;
}

/**
 * neuron_nc_file_release() - a file's last reference went
 * @nf: the file
 *
 * The reservations made through it are dropped.
 */
void neuron_nc_file_release(struct neuron_file *nf)
{
	struct pid *put[NEURON_MAX_NC];
	unsigned int d, nc, n;
	u64 released = 0;

	for (d = 0; d < NEURON_MAX_DEVICES; d++) {
		n = 0;
		neuron_holds_lock();
		for (nc = 0; nc < NEURON_MAX_NC; nc++) {
			struct neuron_mark *m = &neuron_marks[d][nc];

			if (m->tgid && m->nf == nf) {
				put[n++] = m->tgid;
				m->tgid = NULL;
				m->nf = NULL;
			}
		}
		neuron_holds_unlock();
		if (n)
			released |= BIT_ULL(d);
		while (n)
			put_pid(put[--n]);
	}
	if (released)
		neuron_pod_marks_released(released);
}

/**
 * struct neuron_range - a reservation request, whatever its form
 * @count: cores wanted
 * @start: first core of the range, relative to the opened device
 * @end: last core of the range, relative to the opened device
 * @max_avail: longest free run seen (out)
 * @bits: bits of the bitmap in this form (64 or 512)
 * @map: the bitmap, relative to the opened device
 */
struct neuron_range {
	u32 count;
	u32 start;
	u32 end;
	u32 max_avail;
	unsigned int bits;
	DECLARE_BITMAP(map, NEURON_HOST_NCS);
};

/*
 * The devices a range touches, held for the call: @devs[d] for each index
 * with a device, @ncs[d] its core map (0 when absent or without a DHAL).
 */
struct neuron_range_devs {
	struct neuron_device *devs[NEURON_MAX_DEVICES];
	u32 ncs[NEURON_MAX_DEVICES];
};

static void neuron_range_devs_get(struct neuron_range_devs *rd, unsigned int first,
				  unsigned int last)
{
	unsigned int d;

	memset(rd, 0, sizeof(*rd));
	for (d = first; d <= last && d < NEURON_MAX_DEVICES; d++) {
		struct neuron_device *nd = neuron_device_get_by_index(d);

		if (!nd)
			continue;
		rd->devs[d] = nd;
		if (neuron_device_enter_try(nd)) {
			const struct neuron_dhal *dhal = READ_ONCE(nd->dhal.dhal);

			if (dhal)
				rd->ncs[d] = dhal->layout->nc_map &
					     GENMASK(min_t(u32, dhal->layout->nc_count,
							   NEURON_MAX_NC) - 1, 0);
			neuron_device_leave(nd);
		}
	}
}

static void neuron_range_devs_put(struct neuron_range_devs *rd)
{
	unsigned int d;

	for (d = 0; d < NEURON_MAX_DEVICES; d++)
		if (rd->devs[d])
			put_device(&rd->devs[d]->dev);
}

/* Whether global core @g is free for @tgid; marks lock held. */
static bool neuron_core_free_locked(struct neuron_range_devs *rd, unsigned int ncpd,
				    unsigned int g, struct pid *tgid)
{
	unsigned int d = g / ncpd, nc = g % ncpd;

	if (d >= NEURON_MAX_DEVICES || nc >= NEURON_MAX_NC || !(rd->ncs[d] & BIT(nc)))
		return false;
	if (neuron_marks[d][nc].tgid)
		return false;
	return !(neuron_reset_held_by_others_locked(rd->devs[d], tgid) & BIT(nc));
}

/* Check a mark's numbers; @base is the opened device's first global core. */
static int neuron_range_check(const struct neuron_range *r, unsigned int base)
{
	if (!r->count || r->start > r->end || r->end >= r->bits ||
	    r->count > r->end - r->start + 1 || base + r->end >= NEURON_HOST_NCS)
		return -EINVAL;
	return 0;
}

/**
 * neuron_nc_find_run() - find a run of free cores
 * @free: bitmap of %NEURON_HOST_NCS bits, set for each free core
 * @start: first core of the range
 * @end: last core of the range (included)
 * @count: cores wanted
 * @longest: out: the length of the run found (@count), or when there is
 *	none the longest free run in [@start, @end]; 0 on -EINVAL
 *
 * Every free core may start a run, the one right after a taken core
 * included (the reference's search skips it).  Pure: it looks at @free only.
 *
 * Return: the first core of the first run of @count consecutive free cores
 * in [@start, @end]; -EBUSY when there is none; -EINVAL when @count is 0,
 * @start > @end or @end >= %NEURON_HOST_NCS.
 */
int neuron_nc_find_run(const unsigned long *free, unsigned int start, unsigned int end,
		       unsigned int count, unsigned int *longest)
{
	unsigned int i, run = 0, best = 0;

	*longest = 0;
	if (!count || start > end || end >= NEURON_HOST_NCS)
		return -EINVAL;
	for (i = start; i <= end; i++) {
		if (!test_bit(i, free)) {
			run = 0;
			continue;
		}
		run++;
		best = max(best, run);
		if (run == count) {
			*longest = best;
			return i + 1 - run;
		}
	}
	/* The loop saw the whole range: @best is its longest free run. */
	*longest = best;
	return -EBUSY;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_nc_find_run);

static int neuron_range_mark(struct neuron_file *nf, struct neuron_range *r)
{
	struct neuron_device *nd = nf->nd;
	unsigned int ncpd = nd->dhal.dhal->layout->nc_count;
	unsigned int base = nd->index * ncpd, i;
	struct pid *me = task_tgid(current);
	DECLARE_BITMAP(free, NEURON_HOST_NCS);
	struct neuron_range_devs *rd;
	int found, ret;

	bitmap_zero(r->map, NEURON_HOST_NCS);
	ret = neuron_range_check(r, base);
	if (ret)
		return ret;
	rd = kmalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	neuron_range_devs_get(rd, (base + r->start) / ncpd, (base + r->end) / ncpd);

	bitmap_zero(free, NEURON_HOST_NCS);
	neuron_holds_lock();
	for (i = r->start; i <= r->end; i++)
		if (neuron_core_free_locked(rd, ncpd, base + i, me))
			__set_bit(i, free);
	found = neuron_nc_find_run(free, r->start, r->end, r->count, &r->max_avail);
	if (found >= 0) {
		for (i = found; i < (unsigned int)found + r->count; i++) {
			struct neuron_mark *m = &neuron_marks[(base + i) / ncpd][(base + i) % ncpd];

			m->tgid = get_pid(me);
			m->nf = nf;
			__set_bit(i, r->map);
		}
		ret = 0;
	} else {
		ret = found;
	}
	neuron_holds_unlock();
	neuron_range_devs_put(rd);
	kfree(rd);
	return ret;
}

static int neuron_range_unmark(struct neuron_file *nf, struct neuron_range *r)
{
	struct neuron_device *nd = nf->nd;
	unsigned int ncpd = nd->dhal.dhal->layout->nc_count;
	unsigned int base = nd->index * ncpd, i;
	struct pid *me = task_tgid(current);
	struct pid *put[NEURON_MAX_NC * 2];
	unsigned int n = 0;
	u64 released = 0;

	i = find_last_bit(r->map, r->bits);
	if (i < r->bits && base + i >= NEURON_HOST_NCS)
		return -EINVAL;
	for_each_set_bit(i, r->map, r->bits) {
		struct neuron_mark *m;

		if ((base + i) / ncpd >= NEURON_MAX_DEVICES)
			break;
		m = &neuron_marks[(base + i) / ncpd][(base + i) % ncpd];
		neuron_holds_lock();
		if (m->tgid == me) {
			put[n++] = m->tgid;
			m->tgid = NULL;
			m->nf = NULL;
			released |= BIT_ULL((base + i) / ncpd);
		}
		neuron_holds_unlock();
		if (n == ARRAY_SIZE(put)) {
			while (n)
				put_pid(put[--n]);
		}
	}
	while (n)
		put_pid(put[--n]);
	if (released)
		neuron_pod_marks_released(released);
	return 0;
}

/*
 * The two forms: the 24-byte struct (its encoding names a pointer) with a
 * 64-bit map and the 80-byte EXT0 struct with 512 bits.
 */
static long neuron_range_ioctl(struct neuron_file *nf, void __user *arg, bool ext, bool mark)
{
	struct neuron_ioctl_crwl_nc_map_ext x;
	size_t size = ext ? sizeof(struct neuron_ioctl_crwl_nc_map_ext) :
			    sizeof(struct neuron_ioctl_crwl_nc_map);
	struct neuron_range *r;
	long ret;

	BUILD_BUG_ON(sizeof(x.bitmap) * BITS_PER_BYTE != NEURON_HOST_NCS);
	BUILD_BUG_ON(offsetof(struct neuron_ioctl_crwl_nc_map, bitmap) !=
		     offsetof(struct neuron_ioctl_crwl_nc_map_ext, bitmap));
	memset(&x, 0, sizeof(x));
	if (copy_from_user(&x, arg, size))
		return -EFAULT;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->count = x.nc_count;
	r->start = x.start_nc_index;
	r->end = x.end_nc_index;
	r->bits = ext ? NEURON_HOST_NCS : BITS_PER_LONG;
	bitmap_copy(r->map, x.bitmap, r->bits);

	if (!mark) {
		ret = neuron_range_unmark(nf, r);
		kfree(r);
		return ret;
	}
	ret = neuron_range_mark(nf, r);
	if (ret == 0 || ret == -EBUSY) {
		/* Copied back on -EBUSY too: the caller reads max_nc_available. */
		memset(x.bitmap, 0, sizeof(x.bitmap));
		bitmap_copy(x.bitmap, r->map, r->bits);
		x.max_nc_available = r->max_avail;
		if (copy_to_user(arg, &x, size))
			ret = -EFAULT;
	}
	kfree(r);
	return ret;
}

long neuron_ioctl_range_mark(struct neuron_file *nf, void __user *arg)
{
	return neuron_range_ioctl(nf, arg, false, true);
}

long neuron_ioctl_range_mark_ext(struct neuron_file *nf, void __user *arg)
{
	return neuron_range_ioctl(nf, arg, true, true);
}

long neuron_ioctl_range_unmark(struct neuron_file *nf, void __user *arg)
{
	return neuron_range_ioctl(nf, arg, false, false);
}

long neuron_ioctl_range_unmark_ext(struct neuron_file *nf, void __user *arg)
{
	return neuron_range_ioctl(nf, arg, true, false);
}

/**
 * neuron_nc_arg() - check a core number from user space
 * @nd: the device
 * @nc: the number
 *
 * Return: @nc, clamped against speculation, or -EINVAL for a core the
 * device does not have.
 */
int neuron_nc_arg(struct neuron_device *nd, u32 nc)
{
	u32 count = min_t(u32, nd->dhal.dhal->layout->nc_count, NEURON_MAX_NC);

	if (nc >= count || !(nd->dhal.dhal->layout->nc_map & BIT(nc)))
		return -EINVAL;
	return array_index_nospec(nc, count);
}

/* Model locks */

static bool neuron_crwl_is_writer(const struct neuron_nc *c, const struct neuron_uuid *uuid)
{
	return c->writer == task_tgid(current) && !memcmp(&c->uuid, uuid, sizeof(*uuid));
}

/* The end of a neuron_nc_wait() whose wait returned @r. */
static int neuron_nc_wait_end(struct neuron_device *nd, long r, long *left)
{
	if (r < 0)
		return r;
	if (READ_ONCE(nd->state) == NEURON_STATE_GONE)
		return -ENODEV;
	if (!r)
		return -EBUSY;
	*left = r;
	return 0;
}

/*
 * Sleep on the device's state_wq until @cond (read without the lock)
 * holds, for at most *@left jiffies.  Return: 0 to look again; -EBUSY when
 * the time is up; -ERESTARTSYS on a signal; -ENODEV when the device goes.
 */
#define neuron_nc_wait(nd, cond, left) ({					\
	struct neuron_device *__nd = (nd);					\
	long *__left = (left);							\
	long __r = wait_event_interruptible_timeout(__nd->state_wq,		\
		(cond) || READ_ONCE(__nd->state) == NEURON_STATE_GONE, *__left);\
	neuron_nc_wait_end(__nd, __r, __left);				\
})

static int neuron_crwl_reader_enter(struct neuron_device *nd, struct neuron_nc *c,
				    const struct neuron_uuid *uuid)
{
	long left = msecs_to_jiffies(NEURON_CRWL_READ_WAIT_MS);
	int ret;

	for (;;) {
		mutex_lock(&nd->cores->lock);
		if (!c->write_held)
			break;
		mutex_unlock(&nd->cores->lock);
		ret = neuron_nc_wait(nd, !READ_ONCE(c->write_held), &left);
		if (ret)
			return ret;
	}
	if (neuron_crwl_is_writer(c, uuid)) {
		c->readers++;
		ret = 0;
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&nd->cores->lock);
	return ret;
}

static int neuron_crwl_reader_exit(struct neuron_device *nd, struct neuron_nc *c,
				   const struct neuron_uuid *uuid)
{
	int ret = 0;

	mutex_lock(&nd->cores->lock);
	if (!neuron_crwl_is_writer(c, uuid))
		ret = -ENOENT;
	else if (!c->readers)
		ret = -EINVAL;
	else
		c->readers--;
	mutex_unlock(&nd->cores->lock);
	if (!ret)
		wake_up_all(&nd->state_wq);
	return ret;
}

static int neuron_crwl_writer_enter(struct neuron_device *nd, struct neuron_nc *c,
				    const struct neuron_uuid *uuid)
{
	long left = msecs_to_jiffies(NEURON_CRWL_WRITE_WAIT_MS);
	int ret;

	for (;;) {
		mutex_lock(&nd->cores->lock);
		if (!c->write_held && !c->readers)
			break;
		mutex_unlock(&nd->cores->lock);
		ret = neuron_nc_wait(nd, !READ_ONCE(c->write_held) && !READ_ONCE(c->readers),
				     &left);
		if (ret)
			return ret;
	}
	c->write_held = true;
	if (neuron_crwl_is_writer(c, uuid)) {
		/* The model is loaded already; the lock stays taken. */
		ret = -EALREADY;
	} else {
		put_pid(c->writer);
		c->writer = get_pid(task_tgid(current));
		c->uuid = *uuid;
		ret = 0;
	}
	mutex_unlock(&nd->cores->lock);
	return ret;
}

static int neuron_crwl_writer_downgrade(struct neuron_device *nd, struct neuron_nc *c,
					const struct neuron_uuid *uuid)
{
	int ret = 0;

	mutex_lock(&nd->cores->lock);
	if (!c->write_held) {
		ret = -EINVAL;
	} else if (!neuron_crwl_is_writer(c, uuid)) {
		ret = -ENOENT;
	} else {
		c->write_held = false;
		c->readers = 1;
	}
	mutex_unlock(&nd->cores->lock);
	if (!ret)
		wake_up_all(&nd->state_wq);
	return ret;
}

/**
 * neuron_crwl_op() - an operation on a core's model lock
 * @nd: the device
 * @nc: the core, checked
 * @uuid: the model
 * @op: the operation
 *
 * For the calling process (task_tgid(current)), as the CRWL_READER_* and
 * CRWL_WRITER_* commands (Documentation/state.rst).  The enters sleep on
 * &neuron_device.state_wq, interruptibly, while the lock is held for
 * writing (readers) or held at all (writers).
 *
 * Context: process context; sleeps.  Takes neuron_cores.lock.
 * Return: 0; -EINVAL for a core the device does not have or an unknown
 * @op; %NEURON_CRWL_WRITER_ENTER: -EALREADY when the caller and @uuid are
 * those recorded (the lock is taken); %NEURON_CRWL_READER_ENTER,
 * %NEURON_CRWL_READER_EXIT and %NEURON_CRWL_WRITER_DOWNGRADE: -ENOENT when
 * the caller or @uuid is not the recorded writer; %NEURON_CRWL_READER_EXIT:
 * -EINVAL without a reader; %NEURON_CRWL_WRITER_DOWNGRADE: -EINVAL when the
 * lock is not held for writing; the enters: -EBUSY after 1 s (reader) or
 * 2 s (writer) of waiting, -ERESTARTSYS on a signal, -ENODEV when the
 * device goes.
 */
int neuron_crwl_op(struct neuron_device *nd, unsigned int nc, const struct neuron_uuid *uuid,
		   enum neuron_crwl_op op)
{
	struct neuron_nc *c;
	int n;

	n = neuron_nc_arg(nd, nc);
	if (n < 0)
		return n;
	c = &nd->cores->nc[n];
	switch (op) {
	case NEURON_CRWL_READER_ENTER:
		return neuron_crwl_reader_enter(nd, c, uuid);
	case NEURON_CRWL_READER_EXIT:
		return neuron_crwl_reader_exit(nd, c, uuid);
	case NEURON_CRWL_WRITER_ENTER:
		return neuron_crwl_writer_enter(nd, c, uuid);
	case NEURON_CRWL_WRITER_DOWNGRADE:
		return neuron_crwl_writer_downgrade(nd, c, uuid);
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_crwl_op);

static long neuron_crwl_ioctl(struct neuron_file *nf, void __user *arg, enum neuron_crwl_op op)
{
	struct neuron_ioctl_crwl req;
	long ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	ret = neuron_crwl_op(nf->nd, req.nc_id, &req.uuid, op);
	/* A writer is recorded (also when the lock stays taken: -EALREADY). */
	if (op == NEURON_CRWL_WRITER_ENTER && (!ret || ret == -EALREADY) &&
	    neuron_nc_recheck(nf->nd, task_tgid(current)))
		return -EACCES;
	return ret;
}

/**
 * neuron_ioctl_crwl_reader_enter() - NEURON_IOCTL_CRWL_READER_ENTER
 * @nf: the file
 * @arg: struct neuron_ioctl_crwl
 *
 * Return: neuron_crwl_op()'s result for %NEURON_CRWL_READER_ENTER; -EFAULT.
 */
long neuron_ioctl_crwl_reader_enter(struct neuron_file *nf, void __user *arg)
{
	return neuron_crwl_ioctl(nf, arg, NEURON_CRWL_READER_ENTER);
}

/**
 * neuron_ioctl_crwl_reader_exit() - NEURON_IOCTL_CRWL_READER_EXIT
 * @nf: the file
 * @arg: struct neuron_ioctl_crwl
 *
 * Return: neuron_crwl_op()'s result for %NEURON_CRWL_READER_EXIT; -EFAULT.
 */
long neuron_ioctl_crwl_reader_exit(struct neuron_file *nf, void __user *arg)
{
	return neuron_crwl_ioctl(nf, arg, NEURON_CRWL_READER_EXIT);
}

/**
 * neuron_ioctl_crwl_writer_enter() - NEURON_IOCTL_CRWL_WRITER_ENTER
 * @nf: the file
 * @arg: struct neuron_ioctl_crwl
 *
 * Return: neuron_crwl_op()'s result for %NEURON_CRWL_WRITER_ENTER; -EFAULT.
 */
long neuron_ioctl_crwl_writer_enter(struct neuron_file *nf, void __user *arg)
{
	return neuron_crwl_ioctl(nf, arg, NEURON_CRWL_WRITER_ENTER);
}

/**
 * neuron_ioctl_crwl_writer_downgrade() - NEURON_IOCTL_CRWL_WRITER_DOWNGRADE
 * @nf: the file
 * @arg: struct neuron_ioctl_crwl
 *
 * Return: neuron_crwl_op()'s result for %NEURON_CRWL_WRITER_DOWNGRADE; -EFAULT.
 */
long neuron_ioctl_crwl_writer_downgrade(struct neuron_file *nf, void __user *arg)
{
	return neuron_crwl_ioctl(nf, arg, NEURON_CRWL_WRITER_DOWNGRADE);
}

/**
 * neuron_nc_lock_info() - the model locks a process recorded
 * @nd: the device
 * @tgid: the process
 * @uuids: where each locked core's model id goes (APP_INFO_MAX_MODELS_PER_DEVICE)
 *
 * Return: bit per core among the first APP_INFO_MAX_MODELS_PER_DEVICE whose
 * lock records @tgid.
 */
u8 neuron_nc_lock_info(struct neuron_device *nd, struct pid *tgid,
		       struct neuron_uuid *uuids)
{
	unsigned int nc;
	u8 map = 0;

	mutex_lock(&nd->cores->lock);
	for (nc = 0; nc < APP_INFO_MAX_MODELS_PER_DEVICE && nc < NEURON_MAX_NC; nc++) {
		struct neuron_nc *c = &nd->cores->nc[nc];

		if (c->writer == tgid && (c->write_held || c->readers)) {
			map |= BIT(nc);
			uuids[nc] = c->uuid;
		}
	}
	mutex_unlock(&nd->cores->lock);
	return map;
}

/* Core initialisation */

/**
 * neuron_cinit_set() - a step of a core's initialisation handshake
 * @nd: the device
 * @nc: the core, checked
 * @state: %NEURON_CINIT_STATE_STARTED or %NEURON_CINIT_STATE_COMPLETED
 * @new_state: out, on success: the core's state at the end of the call
 *
 * For the calling process (task_tgid(current)), as CINIT_SET_STATE
 * (Documentation/state.rst).  STARTED from INVALID makes the caller the
 * initialiser; STARTED while another process initialises waits, up to 5 s
 * and interruptibly, for it to finish (taking over if the core goes back to
 * INVALID meanwhile) and returns STARTED when the time is up.  COMPLETED
 * from the initialiser ends its job.  Waiters wake on success.
 *
 * Context: process context; sleeps.  Takes neuron_cores.lock.
 * Return: 0; -EINVAL for a core the device does not have or another
 * @state; -EPERM for COMPLETED by a process other than the initialiser
 * while the core is STARTED; -ERESTARTSYS on a signal; -ENODEV when the
 * device goes.
 */
int neuron_cinit_set(struct neuron_device *nd, unsigned int nc, u32 state, u32 *new_state)
{
	struct pid *me = task_tgid(current);
	long left = msecs_to_jiffies(NEURON_CINIT_WAIT_MS);
	struct neuron_nc *c;
	int n, ret = 0;

	n = neuron_nc_arg(nd, nc);
	if (n < 0)
		return n;
	if (state != NEURON_CINIT_STATE_STARTED && state != NEURON_CINIT_STATE_COMPLETED)
		return -EINVAL;
	c = &nd->cores->nc[n];

	for (;;) {
		mutex_lock(&nd->cores->lock);
		if (state == NEURON_CINIT_STATE_COMPLETED) {
			if (c->init_state == NEURON_CINIT_STATE_STARTED) {
				if (c->initializer != me) {
					ret = -EPERM;
				} else {
					c->init_state = NEURON_CINIT_STATE_COMPLETED;
					put_pid(c->initializer);
					c->initializer = NULL;
				}
			}
			break;
		}
		if (c->init_state == NEURON_CINIT_STATE_INVALID) {
			c->init_state = NEURON_CINIT_STATE_STARTED;
			c->initializer = get_pid(me);
			break;
		}
		if (c->init_state != NEURON_CINIT_STATE_STARTED || c->initializer == me)
			break;
		mutex_unlock(&nd->cores->lock);
		ret = neuron_nc_wait(nd, READ_ONCE(c->init_state) !=
					NEURON_CINIT_STATE_STARTED, &left);
		if (ret == -EBUSY) {
			/* Still being initialised: say so, as the reference does. */
			mutex_lock(&nd->cores->lock);
			ret = 0;
			break;
		}
		if (ret)
			return ret;
	}
	if (!ret)
		*new_state = c->init_state;
	mutex_unlock(&nd->cores->lock);
	if (ret)
		return ret;
	wake_up_all(&nd->state_wq);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_cinit_set);

/**
 * neuron_ioctl_cinit_set_state() - NEURON_IOCTL_CINIT_SET_STATE
 * @nf: the file
 * @arg: struct neuron_ioctl_cinit_set; new_state is written back on success
 *
 * Return: neuron_cinit_set()'s result; -EFAULT.
 */
long neuron_ioctl_cinit_set_state(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_cinit_set req;
	int ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	ret = neuron_cinit_set(nf->nd, req.nc_id, req.state, &req.new_state);
	if (ret)
		return ret;
	/* STARTED may have made the caller the initialiser. */
	if (req.state == NEURON_CINIT_STATE_STARTED) {
		ret = neuron_nc_recheck(nf->nd, task_tgid(current));
		if (ret)
			return ret;
	}
	if (copy_to_user(arg, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

long neuron_ioctl_nc_model_started_count(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_nc_model_started_count req;
	struct neuron_device *nd = nf->nd;
	int nc;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	nc = neuron_nc_arg(nd, req.nc_id);
	if (nc < 0)
		return nc;
	mutex_lock(&nd->cores->lock);
	req.started_count = nd->cores->nc[nc].started;
	mutex_unlock(&nd->cores->lock);
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

/* Semaphores and events */

enum neuron_sem_op {
	NEURON_SEM_READ,
	NEURON_SEM_SET,
	NEURON_SEM_ADD,
	NEURON_SEM_SUB,
	NEURON_EVENT_GET,
	NEURON_EVENT_SET,
};

static const u32 neuron_sem_view[] = {
	[NEURON_SEM_READ] = NEURON_NC_SEM_READ,
	[NEURON_SEM_SET] = NEURON_NC_SEM_SET,
	[NEURON_SEM_ADD] = NEURON_NC_SEM_ADD,
	[NEURON_SEM_SUB] = NEURON_NC_SEM_SUB,
	[NEURON_EVENT_GET] = NEURON_NC_EVENTS,
	[NEURON_EVENT_SET] = NEURON_NC_EVENTS,
};

/*
 * One command on a semaphore or event; struct neuron_ioctl_semaphore and
 * struct neuron_ioctl_event have the same layout.
 */
static long neuron_sem_ioctl(struct neuron_file *nf, void __user *arg, enum neuron_sem_op op)
{
	struct neuron_device *nd = nf->nd;
	const struct neuron_dhal_layout *l = nd->dhal.dhal->layout;
	struct neuron_ioctl_semaphore req;
	u64 off;
	int nc;

	BUILD_BUG_ON(sizeof(struct neuron_ioctl_semaphore) != sizeof(struct neuron_ioctl_event));
	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	nc = neuron_nc_arg(nd, req.nc_id);
	if (nc < 0)
		return nc;
	if (req.semaphore_index >= NEURON_NC_SEM_COUNT)
		return -EINVAL;
	if (!l->nc_block_stride)
		return -EOPNOTSUPP;

	if (!neuron_nc_holds(nd, task_tgid(current), nc))
		return -EACCES;

	off = l->nc_block_base + (u64)nc * l->nc_block_stride + neuron_sem_view[op] +
	      4 * req.semaphore_index;
	if (op == NEURON_SEM_READ || op == NEURON_EVENT_GET) {
		req.value = neuron_reg_read32(nd, l->apb_bar, off);
		return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
	}
	neuron_reg_write32(nd, l->apb_bar, off, req.value);
	return 0;
}

long neuron_ioctl_sem_increment(struct neuron_file *nf, void __user *arg)
{
	return neuron_sem_ioctl(nf, arg, NEURON_SEM_ADD);
}

long neuron_ioctl_sem_decrement(struct neuron_file *nf, void __user *arg)
{
	return neuron_sem_ioctl(nf, arg, NEURON_SEM_SUB);
}

long neuron_ioctl_sem_read(struct neuron_file *nf, void __user *arg)
{
	return neuron_sem_ioctl(nf, arg, NEURON_SEM_READ);
}

long neuron_ioctl_sem_write(struct neuron_file *nf, void __user *arg)
{
	return neuron_sem_ioctl(nf, arg, NEURON_SEM_SET);
}

long neuron_ioctl_event_set(struct neuron_file *nf, void __user *arg)
{
	return neuron_sem_ioctl(nf, arg, NEURON_EVENT_SET);
}

long neuron_ioctl_event_get(struct neuron_file *nf, void __user *arg)
{
	return neuron_sem_ioctl(nf, arg, NEURON_EVENT_GET);
}

/* Special resources: RESOURCE_MMAP_INFO and their mappings */

/**
 * struct neuron_resource - where one special resource is
 * @offset: its mmap offset
 * @size: bytes
 * @bar: BAR it is in
 * @bar_offset: offset in @bar
 * @rdonly: mapped read-only
 * @nc: the core a process must hold to map it; -1: CAP_SYS_RAWIO instead
 */
struct neuron_resource {
	u64 offset;
	u64 size;
	unsigned int bar;
	u64 bar_offset;
	bool rdonly;
	int nc;
};

/* Resource @id of family @e on @nd; false when the family has no such id. */
static bool neuron_resource_at(struct neuron_device *nd, const struct neuron_dhal_resource *e,
			       u32 id, struct neuron_resource *r)
{
	const struct neuron_dhal *dhal = nd->dhal.dhal;
	const struct neuron_dhal_layout *l = dhal->layout;
	u32 count = e->hbm ? dhal->mem->hbm_count : e->count, g, i;

	if (id >= count || !e->per_group)
		return false;
	id = array_index_nospec(id, count);
	g = id / e->per_group;
	i = id % e->per_group;
	if (e->hbm) {
		r->offset = dhal->mem->hbm_base[id];
		r->size = dhal->mem->hbm_size[id];
	} else {
		r->offset = e->offset + g * e->group_stride + i * e->stride;
		r->size = e->size;
	}
	r->bar = e->bar;
	r->bar_offset = e->bar_offset + g * e->bar_group_stride + i * e->bar_stride;
	r->rdonly = e->rdonly;
	if (e->block == NEURON_DM_BLOCK_TPB)
		r->nc = id;
	else if (e->block == NEURON_DM_BLOCK_TOPSP && l->ts_count >= l->nc_count)
		r->nc = id / (l->ts_count / l->nc_count);
	else
		r->nc = -1;
	return true;
}

/**
 * neuron_ioctl_resource_mmap_info() - NEURON_IOCTL_RESOURCE_MMAP_INFO
 * @nf: the file
 * @arg: struct neuron_ioctl_resource_mmap_info
 *
 * Return: 0 with the resource's mmap offset and size; -EINVAL for a
 * resource the generation does not have; -EFAULT.
 */
long neuron_ioctl_resource_mmap_info(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_dhal_user *u = nf->nd->dhal.dhal->user;
	struct neuron_ioctl_resource_mmap_info info;
	struct neuron_resource r;
	unsigned int i;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	for (i = 0; u && i < u->n_resources; i++) {
		const struct neuron_dhal_resource *e = &u->resources[i];

		if (e->block != info.block || e->resource != info.resource)
			continue;
		if (!neuron_resource_at(nf->nd, e, info.block_id, &r))
			break;
		info.offset = r.offset;
		info.size = r.size;
		return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
	}
	return -EINVAL;
}

/**
 * neuron_nc_mmap_special() - map a special resource
 * @nf: the file
 * @vma: the mapping
 * @start: its offset, which must be a resource's mmap offset
 * @len: its length, which must be the resource's size
 *
 * A core's or TOP_SP's window needs the core held; a whole HBM stack
 * CAP_SYS_RAWIO.  Checked when the mapping is made.
 *
 * Return: 0; -EINVAL when (@start, @len) is not a resource; -EACCES when
 * the caller does not hold the core or asks a read-only window for
 * writing; -EPERM without CAP_SYS_RAWIO; neuron_mem_mmap_bar()'s errors.
 */
int neuron_nc_mmap_special(struct neuron_file *nf, struct vm_area_struct *vma, u64 start,
			   u64 len)
{
	struct neuron_device *nd = nf->nd;
	const struct neuron_dhal *dhal;
	const struct neuron_dhal_user *u;
	struct neuron_resource r;
	unsigned int i, id;
	int ret = -EINVAL;

	if (!neuron_device_enter_try(nd))
		return -ENODEV;
	dhal = nd->dhal.dhal;
	u = dhal ? dhal->user : NULL;
	for (i = 0; u && i < u->n_resources; i++) {
		for (id = 0; neuron_resource_at(nd, &u->resources[i], id, &r); id++) {
			if (r.offset != start || r.size != len)
				continue;
			if (r.nc >= 0 ? !neuron_nc_holds(nd, task_tgid(current), r.nc) :
			    !capable(CAP_SYS_RAWIO)) {
				ret = r.nc >= 0 ? -EACCES : -EPERM;
				goto out;
			}
			ret = neuron_mem_mmap_bar(nf, vma, r.bar, r.bar_offset, r.rdonly);
			goto out;
		}
	}
out:
	neuron_device_leave(nd);
	return ret;
}

/* Host-wide core numbers NEURON_IOCTL_NC_PID_STATE_DUMP takes. */
#define NEURON_GLOBAL_NC_MAX	512

/**
 * neuron_ioctl_nc_pid_state_dump() - NEURON_IOCTL_NC_PID_STATE_DUMP
 * @nf: the file
 * @arg: struct neuron_ioctl_nc_pid_state_dump, read
 *
 * Logs which process holds a core (the one that reserved it, else the one
 * that reset it) and what that process is doing.  @nc_id
 * numbers cores host-wide: device index times the opened device's core
 * count, plus the core.  Then the device's event log: its last
 * @log_dump_limit events (128 when 0), only the holder's with
 * @filter_log_owner.  Rate-limited.
 *
 * Return: 0; -EINVAL for a core number out of range; -ENODEV when no
 * device has that index or it is being removed; -ENOENT when no process
 * holds the core; -EFAULT.
 */
long neuron_ioctl_nc_pid_state_dump(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_nc_pid_state_dump req;
	struct neuron_device *other;
	struct task_struct *task;
	struct pid *holder = NULL;
	unsigned int per_dev = nf->nd->dhal.dhal->layout->nc_count;
	unsigned int index, nc;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.nc_id >= NEURON_GLOBAL_NC_MAX)
		return -EINVAL;
	index = req.nc_id / per_dev;
	nc = req.nc_id % per_dev;
	other = neuron_device_get_by_index(index);
	if (!other)
		return -ENODEV;
	/*
	 * The messages name the device's bus device, which its removal lets
	 * go of: hold the removal off (the dispatcher holds the caller's own
	 * device).  Never wait: a removal under way answers -ENODEV.
	 */
	if (other != nf->nd && !neuron_device_enter_try(other)) {
		put_device(&other->dev);
		return -ENODEV;
	}

	mutex_lock(&other->lock);
	if (!other->dhal.dhal || nc >= other->dhal.dhal->layout->nc_count)
		ret = -EINVAL;
	mutex_unlock(&other->lock);
	if (!ret) {
		/* The reservation's owner; else the process that reset the core. */
		holder = neuron_nc_core_owner(other, nc);
		if (!holder)
			holder = neuron_reset_core_holder(other, nc);
		if (!holder)
			ret = -ENOENT;
	}
	if (holder) {
		task = get_pid_task(holder, PIDTYPE_TGID);
		if (task) {
			char comm[TASK_COMM_LEN];

			get_task_comm(comm, task);
			dev_info_ratelimited(other->bus.parent,
					     "neuron%u: core %u held by pid %d (%s), state %c\n",
					     index, nc, pid_vnr(holder), comm,
					     task_state_to_char(task));
			put_task_struct(task);
		}
		neuron_evlog_dump(other, req.filter_log_owner ? holder : NULL,
				  req.log_dump_limit);
		put_pid(holder);
	}
	if (other != nf->nd)
		neuron_device_leave(other);
	put_device(&other->dev);
	return ret;
}

/**
 * neuron_nc_app_info() - the model locks a process recorded, for
 *	GET_ALL_APPS_INFO (the plane's &neuron_plane.app_info)
 * @nd: the device, its lock held
 * @tgid: the process
 * @flags: APP_INFO_* asked for
 * @app: its element
 */
void neuron_nc_app_info(struct neuron_device *nd, struct pid *tgid, u16 flags,
			struct neuron_app_info *app)
{
	if (flags & APP_INFO_PID_NC_LOCK_INFO)
		app->nc_lock_map = neuron_nc_lock_info(nd, tgid, app->uuid_data);
}
