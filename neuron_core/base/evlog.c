// SPDX-License-Identifier: GPL-2.0
/*
 * The per-device event log: the last NEURON_EVLOG_RECORDS opens, releases,
 * ioctls and mmaps of /dev/neuronN, with the process and the time, that
 * NEURON_IOCTL_NC_PID_STATE_DUMP prints to tell what a core's owner was
 * doing.  A record holds the global pid number and the command, never a
 * pointer; the dump shows pids as the caller's namespace sees them and
 * leaves out the others.
 */

#include <linux/jiffies.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "core.h"

/* Records kept per device. */
#define NEURON_EVLOG_RECORDS	1024
/* Records a dump prints when the caller names no limit. */
#define NEURON_EVLOG_DEFAULT	128

/**
 * struct neuron_evlog_rec - one event
 * @when: jiffies
 * @pid: the process, as the initial pid namespace numbers it
 * @data: the ioctl command, or 0
 * @type: enum neuron_evlog_type; 0 for an empty record
 */
struct neuron_evlog_rec {
	unsigned long when;
	pid_t pid;
	u32 data;
	u8 type;
};

/**
 * struct neuron_evlog - a device's event log
 * @lock: protects @next and @rec
 * @next: index of the next record to write
 * @rec: the ring
 */
struct neuron_evlog {
	/*
	 * Protects next and rec[]; taken in every file operation, briefly,
	 * and only in process context, so without disabling interrupts (in
	 * the VM, saving and restoring them cost about 2 % of a 4 KiB copy).
	 */
	spinlock_t lock;
	unsigned int next;
	struct neuron_evlog_rec rec[NEURON_EVLOG_RECORDS];
};

static const char * const neuron_evlog_names[] = {
	[NEURON_EVLOG_OPEN] = "open",
	[NEURON_EVLOG_RELEASE] = "release",
	[NEURON_EVLOG_IOCTL] = "ioctl",
	[NEURON_EVLOG_MMAP] = "mmap",
};

static const char *neuron_evlog_name(u8 type)
{
	return type < ARRAY_SIZE(neuron_evlog_names) && neuron_evlog_names[type] ?
	       neuron_evlog_names[type] : "?";
}

/**
 * neuron_evlog_init() - give a device its event log
 * @nd: the device
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_evlog_init(struct neuron_device *nd)
{
	struct neuron_evlog *log = kvzalloc(sizeof(*log), GFP_KERNEL);

	if (!log)
		return -ENOMEM;
	spin_lock_init(&log->lock);
	nd->evlog = log;
	return 0;
}

/**
 * neuron_evlog_fini() - free a device's event log
 * @nd: the device
 */
void neuron_evlog_fini(struct neuron_device *nd)
{
	kvfree(nd->evlog);
	nd->evlog = NULL;
}

/**
 * neuron_evlog_add() - record an event of the calling process
 * @nd: the device
 * @type: what happened
 * @data: the ioctl command, or 0
 *
 * Context: process context (a file operation of the device).
 */
void neuron_evlog_add(struct neuron_device *nd, enum neuron_evlog_type type, u32 data)
{
	struct neuron_evlog *log = nd->evlog;
	struct neuron_evlog_rec *r;

	if (!log)
		return;
	spin_lock(&log->lock);
	r = &log->rec[log->next];
	log->next = (log->next + 1) % NEURON_EVLOG_RECORDS;
	r->when = jiffies;
	r->pid = task_tgid_nr(current);
	r->data = data;
	r->type = type;
	spin_unlock(&log->lock);
}

/* One dump at a time, a few per 5 s: each prints up to NEURON_EVLOG_RECORDS lines. */
static DEFINE_RATELIMIT_STATE(neuron_evlog_rs, 5 * HZ, 2);

/**
 * neuron_evlog_dump() - print the last events of a device
 * @nd: the device
 * @owner: only this process's events, or NULL for all
 * @limit: at most this many (0: the default, 128)
 *
 * Oldest first, each with its age.  Rate-limited as a whole.
 */
void neuron_evlog_dump(struct neuron_device *nd, struct pid *owner, u32 limit)
{
	struct neuron_evlog *log = nd->evlog;
	struct neuron_evlog_rec *snap;
	unsigned long now = jiffies;
	unsigned int i, n = 0, start, want;
	pid_t owner_nr = owner ? pid_nr(owner) : 0;

	if (!log || !__ratelimit(&neuron_evlog_rs))
		return;
	want = limit ? min_t(u32, limit, NEURON_EVLOG_RECORDS) : NEURON_EVLOG_DEFAULT;
	snap = kvmalloc_array(NEURON_EVLOG_RECORDS, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;
	spin_lock(&log->lock);
	memcpy(snap, log->rec, sizeof(log->rec));
	start = log->next;
	spin_unlock(&log->lock);

	/* Walk back from the newest to find where the last @want matches start. */
	for (i = 0; i < NEURON_EVLOG_RECORDS && n < want; i++) {
		struct neuron_evlog_rec *r = &snap[(start + NEURON_EVLOG_RECORDS - 1 - i) %
						   NEURON_EVLOG_RECORDS];

		if (!r->type)
			break;
		if (!owner_nr || r->pid == owner_nr)
			n++;
	}
	dev_info(nd->bus.parent, "neuron%d: last %u events%s\n", nd->index, n,
		 owner ? " of the core's owner" : "");
	for (; i > 0; i--) {
		struct neuron_evlog_rec *r = &snap[(start + NEURON_EVLOG_RECORDS - i) %
						   NEURON_EVLOG_RECORDS];
		struct pid *pid;
		pid_t vnr;

		if (owner_nr && r->pid != owner_nr)
			continue;
		rcu_read_lock();
		pid = find_pid_ns(r->pid, &init_pid_ns);
		vnr = pid ? pid_vnr(pid) : 0;
		rcu_read_unlock();
		if (!vnr)
			continue;	/* gone, or not visible to the caller */
		dev_info(nd->bus.parent, "neuron%d:   -%u ms pid %d %s %#x\n", nd->index,
			 jiffies_to_msecs(now - r->when), vnr, neuron_evlog_name(r->type),
			 r->data);
	}
	kvfree(snap);
}
