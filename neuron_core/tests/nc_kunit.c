// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the state machines of the NeuronCore state plane (state.c) on a
 * device built by hand with 8 cores: the per-core model locks, the
 * core-initialisation handshake, the search for a run of free cores
 * that core reservations use, and which cores another process holds by
 * reset (attach slots filled in by hand).
 *
 * Another process is a kthread: each kthread is a thread group of its own,
 * so its tgid differs from the test's.  Waits run in such kthreads, which
 * the test watches block, then releases, interrupts with a signal, or
 * leaves to time out.  The suite's exit ends every wait (the device goes)
 * and joins every kthread, however the case ended.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <neuron/compat.h>

#include "../base/core.h"
#include "../cores/cores.h"
#include "../memory/mem.h"

#define STATE_NCS		8
#define STATE_WAITERS		4

/* How long a released or interrupted waiter may take to return. */
#define STATE_WAKE_MS		500

/**
 * struct state_waiter - an operation run by another process (a kthread)
 * @nd: the device
 * @cinit: run neuron_cinit_set() rather than neuron_crwl_op()
 * @nc: the core
 * @op: the model-lock operation
 * @uuid: its model
 * @state: the initialisation step
 * @new_state: the state neuron_cinit_set() returned
 * @signals: accept SIGUSR1
 * @ret: what the operation returned
 * @elapsed_ms: how long it took
 * @end: when it returned
 * @tgid: the kthread's process (a reference)
 * @started: the kthread is about to run the operation
 * @done: the operation returned
 * @task: the kthread (a reference), NULL when not started
 */
struct state_waiter {
	struct neuron_device *nd;
	bool cinit;
	unsigned int nc;
	enum neuron_crwl_op op;
	const struct neuron_uuid *uuid;
	u32 state;
	u32 new_state;
	bool signals;
	int ret;
	s64 elapsed_ms;
	ktime_t end;
	struct pid *tgid;
	struct completion started;
	struct completion done;
	struct task_struct *task;
};

/**
 * struct state_test - the fixture
 * @nd: the device
 * @layout: its layout: 8 cores
 * @dhal: its DHAL descriptor, with only @layout
 * @waiters: kthreads started by the case
 * @n_waiters: entries of @waiters used
 */
struct state_test {
	struct neuron_device *nd;
	struct neuron_dhal_layout layout;
	struct neuron_dhal dhal;
	struct state_waiter waiters[STATE_WAITERS];
	unsigned int n_waiters;
};

static const struct neuron_uuid uuid_a = { .value = { 0xa1, 0xa2, [31] = 0xaf } };
static const struct neuron_uuid uuid_b = { .value = { 0xb1, 0xb2, [31] = 0xbf } };
static const struct neuron_uuid uuid_none;

static int state_test_init(struct kunit *test)
{
	struct state_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct neuron_device *nd;

	if (!t)
		return -ENOMEM;
	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return -ENOMEM;
	t->layout.nc_count = STATE_NCS;
	t->layout.nc_map = GENMASK(STATE_NCS - 1, 0);
	t->dhal.name = "neuron_nc_kunit";
	t->dhal.layout = &t->layout;
	nd->dhal.dhal = &t->dhal;
	nd->index = -1;
	nd->state = NEURON_STATE_READY;
	init_waitqueue_head(&nd->state_wq);
	KUNIT_ASSERT_EQ(test, neuron_nc_init(nd), 0);
	t->nd = nd;
	test->priv = t;
	return 0;
}

static void state_test_exit(struct kunit *test)
{
	struct state_test *t = test->priv;
	unsigned int i;

	if (!t)
		return;
	/* The device goes: every wait still running ends with -ENODEV. */
	WRITE_ONCE(t->nd->state, NEURON_STATE_GONE);
	wake_up_all(&t->nd->state_wq);
	for (i = 0; i < t->n_waiters; i++) {
		struct state_waiter *w = &t->waiters[i];

		if (!w->task)
			continue;
		kthread_stop(w->task);
		put_task_struct(w->task);
		put_pid(w->tgid);
	}
	neuron_nc_fini(t->nd);
	kfree(t->nd);
}

static struct neuron_nc *state_nc(struct kunit *test, unsigned int nc)
{
	struct state_test *t = test->priv;

	return &t->nd->cores->nc[nc];
}

static int state_waiter_thread(void *data)
{
	struct state_waiter *w = data;
	ktime_t t0;

	if (w->signals)
		allow_signal(SIGUSR1);
	w->tgid = get_pid(task_tgid(current));
	complete(&w->started);
	t0 = ktime_get();
	if (w->cinit)
		w->ret = neuron_cinit_set(w->nd, w->nc, w->state, &w->new_state);
	else
		w->ret = neuron_crwl_op(w->nd, w->nc, w->uuid, w->op);
	w->end = ktime_get();
	w->elapsed_ms = ktime_ms_delta(w->end, t0);
	complete(&w->done);
	/* kthread_stop() finds the task through the test's reference. */
	return 0;
}

static struct state_waiter *state_waiter_new(struct kunit *test, unsigned int nc, bool signals)
{
	struct state_test *t = test->priv;
	struct state_waiter *w;

	KUNIT_ASSERT_LT(test, t->n_waiters, STATE_WAITERS);
	w = &t->waiters[t->n_waiters++];
	w->nd = t->nd;
	w->nc = nc;
	w->signals = signals;
	w->ret = 1;
	init_completion(&w->started);
	init_completion(&w->done);
	return w;
}

static void state_waiter_run(struct kunit *test, struct state_waiter *w)
{
	struct task_struct *task;

	task = kthread_create(state_waiter_thread, w, "neuron-state-kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* Held until the exit's kthread_stop(): the thread may end before. */
	get_task_struct(task);
	w->task = task;
	wake_up_process(task);
	KUNIT_ASSERT_NE(test, 0UL, wait_for_completion_timeout(&w->started, 5 * HZ));
}

/* Start @op on core @nc's model lock in another process. */
static struct state_waiter *state_crwl_start(struct kunit *test, unsigned int nc,
					     const struct neuron_uuid *uuid,
					     enum neuron_crwl_op op, bool signals)
{
	struct state_waiter *w = state_waiter_new(test, nc, signals);

	w->op = op;
	w->uuid = uuid;
	state_waiter_run(test, w);
	return w;
}

/* Start initialisation step @state of core @nc in another process. */
static struct state_waiter *state_cinit_start(struct kunit *test, unsigned int nc, u32 state,
					      bool signals)
{
	struct state_waiter *w = state_waiter_new(test, nc, signals);

	w->cinit = true;
	w->state = state;
	state_waiter_run(test, w);
	return w;
}

/* Whether @w's operation returned within @ms. */
static bool state_waiter_done(struct state_waiter *w, unsigned int ms)
{
	return wait_for_completion_timeout(&w->done, msecs_to_jiffies(ms)) != 0;
}

/*
 * Wait for @w, released (woken, interrupted) at @since, to return: promptly,
 * not when its wait would time out, which is further away in every case.
 */
static bool state_waiter_prompt(struct kunit *test, struct state_waiter *w, ktime_t since)
{
	if (!state_waiter_done(w, 5000))
		return false;
	KUNIT_EXPECT_LT(test, ktime_ms_delta(w->end, since), (s64)STATE_WAKE_MS);
	return true;
}

/* Run @w to its end (it must not wait long); return its result. */
static int state_waiter_result(struct kunit *test, struct state_waiter *w)
{
	KUNIT_ASSERT_TRUE(test, state_waiter_done(w, 5000));
	return w->ret;
}

/*
 * Whether @w is asleep in its wait: within a second it sleeps
 * interruptibly (the only interruptible sleep of the operations) and has
 * not returned; then it must stay so for a while.
 */
static bool state_waiter_blocked(struct state_waiter *w)
{
	unsigned long end = jiffies + HZ;

	while (READ_ONCE(w->task->__state) != TASK_INTERRUPTIBLE) {
		if (completion_done(&w->done) || time_after(jiffies, end))
			return false;
		usleep_range(1000, 2000);
	}
	msleep(50);
	return !completion_done(&w->done);
}

static void state_expect_lock(struct kunit *test, unsigned int nc, struct pid *writer,
			      const struct neuron_uuid *uuid, bool write_held, u32 readers)
{
	struct neuron_nc *c = state_nc(test, nc);

	KUNIT_EXPECT_PTR_EQ(test, writer, c->writer);
	KUNIT_EXPECT_EQ(test, write_held, c->write_held);
	KUNIT_EXPECT_EQ(test, readers, c->readers);
	if (uuid)
		KUNIT_EXPECT_EQ(test, 0, memcmp(uuid, &c->uuid, sizeof(*uuid)));
}

/* Model locks */

static void state_crwl_sequences(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);

	/* A free, never used lock: nothing to exit or downgrade. */
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_EXIT));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, 0, &uuid_a,
						      NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_ENTER));
	state_expect_lock(test, 0, NULL, NULL, false, 0);

	/* Load: write, downgrade to one reader, more readers. */
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	state_expect_lock(test, 0, me, &uuid_a, true, 0);
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_b,
						      NEURON_CRWL_WRITER_DOWNGRADE));
	state_expect_lock(test, 0, me, &uuid_a, true, 0);
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE));
	state_expect_lock(test, 0, me, &uuid_a, false, 1);
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, 0, &uuid_a,
						      NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_ENTER));
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_b, NEURON_CRWL_READER_ENTER));
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_b, NEURON_CRWL_READER_EXIT));
	state_expect_lock(test, 0, me, &uuid_a, false, 2);
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_EXIT));
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_EXIT));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_EXIT));
	/* Free again; the record stays. */
	state_expect_lock(test, 0, me, &uuid_a, false, 0);

	/* The same model again: "already loaded", and the lock is taken. */
	KUNIT_EXPECT_EQ(test, -EALREADY, neuron_crwl_op(nd, 0, &uuid_a,
							NEURON_CRWL_WRITER_ENTER));
	state_expect_lock(test, 0, me, &uuid_a, true, 0);
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_EXIT));

	/* Another model replaces the record. */
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_b, NEURON_CRWL_WRITER_ENTER));
	state_expect_lock(test, 0, me, &uuid_b, true, 0);
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_a,
						      NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_b, NEURON_CRWL_WRITER_DOWNGRADE));
	state_expect_lock(test, 0, me, &uuid_b, false, 1);

	/* Cores are independent. */
	state_expect_lock(test, 1, NULL, NULL, false, 0);
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 7, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	state_expect_lock(test, 7, me, &uuid_a, true, 0);
	state_expect_lock(test, 0, me, &uuid_b, false, 1);
}

static void state_crwl_other_process(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *w;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	w = state_crwl_start(test, 0, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE, false);
	KUNIT_EXPECT_EQ(test, -ENOENT, state_waiter_result(test, w));
	state_expect_lock(test, 0, me, &uuid_a, true, 0);

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE));
	w = state_crwl_start(test, 0, &uuid_a, NEURON_CRWL_READER_ENTER, false);
	KUNIT_EXPECT_EQ(test, -ENOENT, state_waiter_result(test, w));
	w = state_crwl_start(test, 0, &uuid_a, NEURON_CRWL_READER_EXIT, false);
	KUNIT_EXPECT_EQ(test, -ENOENT, state_waiter_result(test, w));
	state_expect_lock(test, 0, me, &uuid_a, false, 1);

	/* Once free, another process takes the lock, with the same model too. */
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_READER_EXIT));
	w = state_crwl_start(test, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER, false);
	KUNIT_EXPECT_EQ(test, 0, state_waiter_result(test, w));
	state_expect_lock(test, 0, w->tgid, &uuid_a, true, 0);
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 0, &uuid_a,
						      NEURON_CRWL_WRITER_DOWNGRADE));
}

static void state_nc_checked(struct kunit *test)
{
	struct state_test *t = test->priv;
	struct neuron_device *nd = t->nd;
	u32 ns = 0;
	int op;

	for (op = NEURON_CRWL_READER_ENTER; op <= NEURON_CRWL_WRITER_DOWNGRADE; op++) {
		KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, STATE_NCS, &uuid_a,
							      (enum neuron_crwl_op)op));
		KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, U32_MAX, &uuid_a,
							      (enum neuron_crwl_op)op));
	}
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, 0, &uuid_a, (enum neuron_crwl_op)99));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_cinit_set(nd, STATE_NCS, NEURON_CINIT_STATE_STARTED,
							&ns));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_cinit_set(nd, U32_MAX, NEURON_CINIT_STATE_STARTED,
							&ns));

	/* A core missing from the map is not the device's. */
	t->layout.nc_map = 0xfd;
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, 1, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_cinit_set(nd, 1, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 2, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	/* Fewer cores than the map says. */
	t->layout.nc_count = 2;
	KUNIT_EXPECT_EQ(test, -EINVAL, neuron_crwl_op(nd, 2, &uuid_a,
						      NEURON_CRWL_WRITER_DOWNGRADE));
	state_expect_lock(test, 1, NULL, NULL, false, 0);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_INVALID, state_nc(test, 1)->init_state);
	KUNIT_EXPECT_EQ(test, 0U, ns);
}

/* A writer waiting for readers gets the lock when the last one leaves. */
static void state_crwl_writer_woken_by_last_reader(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *w;

	ktime_t t0;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 3, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 3, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 3, &uuid_a, NEURON_CRWL_READER_ENTER));

	w = state_crwl_start(test, 3, &uuid_b, NEURON_CRWL_WRITER_ENTER, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(w));
	/* One reader left: still waiting (woken, it sleeps again). */
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 3, &uuid_a, NEURON_CRWL_READER_EXIT));
	KUNIT_EXPECT_TRUE(test, state_waiter_blocked(w));
	state_expect_lock(test, 3, me, &uuid_a, false, 1);

	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 3, &uuid_a, NEURON_CRWL_READER_EXIT));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, w, t0));
	KUNIT_EXPECT_EQ(test, 0, w->ret);
	state_expect_lock(test, 3, w->tgid, &uuid_b, true, 0);
}

/* A reader waiting for a writer wakes at the downgrade. */
static void state_crwl_reader_woken_by_downgrade(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *w;
	ktime_t t0;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	w = state_crwl_start(test, 0, &uuid_a, NEURON_CRWL_READER_ENTER, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(w));
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, w, t0));
	/* Woken before its 1 s were up; not the writer, so no read hold. */
	KUNIT_EXPECT_EQ(test, -ENOENT, w->ret);
	state_expect_lock(test, 0, me, &uuid_a, false, 1);
}

/* Nobody releases: the writer gives up after 2 s, the reader after 1 s. */
static void state_crwl_waits_time_out(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *wr, *rd;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 1, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	wr = state_crwl_start(test, 0, &uuid_b, NEURON_CRWL_WRITER_ENTER, false);
	rd = state_crwl_start(test, 1, &uuid_a, NEURON_CRWL_READER_ENTER, false);

	KUNIT_ASSERT_TRUE(test, state_waiter_done(rd, 6000));
	KUNIT_EXPECT_EQ(test, -EBUSY, rd->ret);
	KUNIT_EXPECT_GE(test, rd->elapsed_ms, 900LL);
	KUNIT_EXPECT_LE(test, rd->elapsed_ms, 4000LL);

	KUNIT_ASSERT_TRUE(test, state_waiter_done(wr, 6000));
	KUNIT_EXPECT_EQ(test, -EBUSY, wr->ret);
	KUNIT_EXPECT_GE(test, wr->elapsed_ms, 1900LL);
	KUNIT_EXPECT_LE(test, wr->elapsed_ms, 5000LL);

	state_expect_lock(test, 0, me, &uuid_a, true, 0);
	state_expect_lock(test, 1, me, &uuid_a, true, 0);
}

/* A signal ends the waits at once; nothing changes. */
static void state_waits_interrupted_by_signal(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *wr, *ci;
	ktime_t t0;
	u32 ns;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 1, NEURON_CINIT_STATE_STARTED, &ns));
	wr = state_crwl_start(test, 0, &uuid_b, NEURON_CRWL_WRITER_ENTER, true);
	ci = state_cinit_start(test, 1, NEURON_CINIT_STATE_STARTED, true);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(wr));
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(ci));

	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, 0, send_sig(SIGUSR1, wr->task, 0));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, wr, t0));
	KUNIT_EXPECT_EQ(test, -ERESTARTSYS, wr->ret);
	state_expect_lock(test, 0, me, &uuid_a, true, 0);

	KUNIT_EXPECT_TRUE(test, state_waiter_blocked(ci));
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, 0, send_sig(SIGUSR1, ci->task, 0));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, ci, t0));
	KUNIT_EXPECT_EQ(test, -ERESTARTSYS, ci->ret);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, state_nc(test, 1)->init_state);
	KUNIT_EXPECT_PTR_EQ(test, me, state_nc(test, 1)->initializer);
}

/* Removal ends every wait with -ENODEV. */
static void state_waits_end_on_removal(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct state_waiter *wr, *rd, *ci;
	ktime_t t0;
	u32 ns;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 1, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 2, NEURON_CINIT_STATE_STARTED, &ns));
	wr = state_crwl_start(test, 0, &uuid_b, NEURON_CRWL_WRITER_ENTER, false);
	rd = state_crwl_start(test, 1, &uuid_a, NEURON_CRWL_READER_ENTER, false);
	ci = state_cinit_start(test, 2, NEURON_CINIT_STATE_STARTED, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(wr));
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(rd));
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(ci));

	t0 = ktime_get();
	WRITE_ONCE(nd->state, NEURON_STATE_GONE);
	wake_up_all(&nd->state_wq);
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, wr, t0));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, rd, t0));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, ci, t0));
	KUNIT_EXPECT_EQ(test, -ENODEV, wr->ret);
	KUNIT_EXPECT_EQ(test, -ENODEV, rd->ret);
	KUNIT_EXPECT_EQ(test, -ENODEV, ci->ret);
}

/* A process's detach drops the locks it recorded and wakes waiters. */
static void state_crwl_detach_drops_locks(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *w;
	ktime_t t0;

	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 0, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 2, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 2, &uuid_a, NEURON_CRWL_WRITER_DOWNGRADE));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 2, &uuid_a, NEURON_CRWL_READER_ENTER));
	w = state_crwl_start(test, 0, &uuid_b, NEURON_CRWL_WRITER_ENTER, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(w));

	/* The waiter's own detach: it recorded nothing, it sleeps on. */
	neuron_nc_process_detach(nd, w->tgid);
	KUNIT_EXPECT_TRUE(test, state_waiter_blocked(w));
	state_expect_lock(test, 0, me, &uuid_a, true, 0);

	t0 = ktime_get();
	neuron_nc_process_detach(nd, me);
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, w, t0));
	KUNIT_EXPECT_EQ(test, 0, w->ret);
	state_expect_lock(test, 0, w->tgid, &uuid_b, true, 0);
	state_expect_lock(test, 2, NULL, &uuid_none, false, 0);
	/* Nothing recorded for us any more: our exits are refused. */
	KUNIT_EXPECT_EQ(test, -ENOENT, neuron_crwl_op(nd, 2, &uuid_a, NEURON_CRWL_READER_EXIT));
}

/* Core initialisation */

static void state_cinit_handshake(struct kunit *test)
{
	static const u32 bad[] = { 0, NEURON_CINIT_STATE_INVALID, 4, U32_MAX };
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct neuron_nc *c = state_nc(test, 0);
	struct pid *me = task_tgid(current);
	u32 ns;
	int i;

	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_INVALID, c->init_state);
	/* COMPLETED of a core nobody initialises: nothing changes. */
	ns = 0;
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_INVALID, ns);

	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, ns);
	KUNIT_EXPECT_PTR_EQ(test, me, c->initializer);
	/* Again by the initialiser: at once. */
	ns = 0;
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, ns);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ns = 0;
		KUNIT_EXPECT_EQ_MSG(test, -EINVAL, neuron_cinit_set(nd, 0, bad[i], &ns),
				    "state %u", bad[i]);
		KUNIT_EXPECT_EQ(test, 0U, ns);
	}
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, c->init_state);

	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, ns);
	KUNIT_EXPECT_NULL(test, c->initializer);
	ns = 0;
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, ns);
	ns = 0;
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, ns);
	KUNIT_EXPECT_NULL(test, c->initializer);
	/* The other cores are untouched. */
	for (i = 1; i < STATE_NCS; i++)
		KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_INVALID, state_nc(test, i)->init_state);
}

static void state_cinit_other_process(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct neuron_nc *c = state_nc(test, 0);
	struct state_waiter *w;
	u32 ns = 0;

	w = state_cinit_start(test, 0, NEURON_CINIT_STATE_STARTED, false);
	KUNIT_EXPECT_EQ(test, 0, state_waiter_result(test, w));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, w->new_state);
	KUNIT_EXPECT_PTR_EQ(test, w->tgid, c->initializer);

	/* Only the initialiser completes. */
	KUNIT_EXPECT_EQ(test, -EPERM, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_EXPECT_EQ(test, 0U, ns);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, c->init_state);
	KUNIT_EXPECT_PTR_EQ(test, w->tgid, c->initializer);

	/* Its detach puts the core back to INVALID; we may start. */
	neuron_nc_process_detach(nd, w->tgid);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_INVALID, c->init_state);
	KUNIT_EXPECT_NULL(test, c->initializer);
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, ns);

	w = state_cinit_start(test, 0, NEURON_CINIT_STATE_COMPLETED, false);
	KUNIT_EXPECT_EQ(test, -EPERM, state_waiter_result(test, w));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, c->init_state);
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, ns);
	/* A detach after completion changes nothing. */
	neuron_nc_process_detach(nd, task_tgid(current));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, c->init_state);
}

/* A process waiting for the initialiser sees it complete. */
static void state_cinit_waiter_sees_completion(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct state_waiter *w;
	ktime_t t0;
	u32 ns;

	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 4, NEURON_CINIT_STATE_STARTED, &ns));
	w = state_cinit_start(test, 4, NEURON_CINIT_STATE_STARTED, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(w));
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 4, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, w, t0));
	KUNIT_EXPECT_EQ(test, 0, w->ret);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, w->new_state);
	KUNIT_EXPECT_NULL(test, state_nc(test, 4)->initializer);
}

/* The initialiser detaches while STARTED: a waiter takes over. */
static void state_cinit_waiter_takes_over(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct neuron_nc *c = state_nc(test, 5);
	struct state_waiter *w;
	ktime_t t0;
	u32 ns = 0;

	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 5, NEURON_CINIT_STATE_STARTED, &ns));
	w = state_cinit_start(test, 5, NEURON_CINIT_STATE_STARTED, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(w));

	t0 = ktime_get();
	neuron_nc_process_detach(nd, task_tgid(current));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, w, t0));
	KUNIT_EXPECT_EQ(test, 0, w->ret);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, w->new_state);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, c->init_state);
	KUNIT_EXPECT_PTR_EQ(test, w->tgid, c->initializer);
	/* We are no longer the initialiser. */
	KUNIT_EXPECT_EQ(test, -EPERM, neuron_cinit_set(nd, 5, NEURON_CINIT_STATE_COMPLETED, &ns));
}

/* Nobody completes: after 5 s the waiter returns STARTED, as the reference. */
static void state_cinit_wait_times_out(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct state_waiter *w;
	u32 ns;

	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 6, NEURON_CINIT_STATE_STARTED, &ns));
	w = state_cinit_start(test, 6, NEURON_CINIT_STATE_STARTED, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_done(w, 12000));
	KUNIT_EXPECT_EQ(test, 0, w->ret);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, w->new_state);
	KUNIT_EXPECT_GE(test, w->elapsed_ms, 4900LL);
	KUNIT_EXPECT_LE(test, w->elapsed_ms, 9000LL);
	KUNIT_EXPECT_PTR_EQ(test, task_tgid(current), state_nc(test, 6)->initializer);
}

/* A reset of cores: INVALID, started count 0; waiters find INVALID. */
static void state_cores_reset(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct state_waiter *w;
	ktime_t t0;
	u32 ns;

	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 0, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 1, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 1, NEURON_CINIT_STATE_COMPLETED, &ns));
	KUNIT_ASSERT_EQ(test, 0, neuron_cinit_set(nd, 2, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_ASSERT_EQ(test, 0, neuron_crwl_op(nd, 1, &uuid_a, NEURON_CRWL_WRITER_ENTER));
	mutex_lock(&nd->cores->lock);
	state_nc(test, 0)->started = 7;
	state_nc(test, 1)->started = 9;
	mutex_unlock(&nd->cores->lock);
	w = state_cinit_start(test, 2, NEURON_CINIT_STATE_STARTED, false);
	KUNIT_ASSERT_TRUE(test, state_waiter_blocked(w));

	t0 = ktime_get();
	neuron_nc_cores_reset(nd, BIT(1) | BIT(2));
	KUNIT_ASSERT_TRUE(test, state_waiter_prompt(test, w, t0));
	KUNIT_EXPECT_EQ(test, 0, w->ret);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, w->new_state);
	KUNIT_EXPECT_PTR_EQ(test, w->tgid, state_nc(test, 2)->initializer);

	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_INVALID, state_nc(test, 1)->init_state);
	KUNIT_EXPECT_EQ(test, 0ULL, state_nc(test, 1)->started);
	KUNIT_EXPECT_NULL(test, state_nc(test, 1)->initializer);
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_COMPLETED, state_nc(test, 0)->init_state);
	KUNIT_EXPECT_EQ(test, 7ULL, state_nc(test, 0)->started);
	/* The model locks are not the reset's business. */
	state_expect_lock(test, 1, me, &uuid_a, true, 0);

	/* From INVALID the handshake starts over. */
	KUNIT_EXPECT_EQ(test, 0, neuron_cinit_set(nd, 1, NEURON_CINIT_STATE_STARTED, &ns));
	KUNIT_EXPECT_EQ(test, NEURON_CINIT_STATE_STARTED, ns);
}

/* Cores other processes hold by reset are foreign to the caller; its own are not. */
static void state_foreign_ncs(struct kunit *test)
{
	struct neuron_device *nd = ((struct state_test *)test->priv)->nd;
	struct pid *me = task_tgid(current);
	struct pid *other = find_get_pid(1);

	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_PTR_NE(test, me, other);
	KUNIT_EXPECT_EQ(test, 0U, neuron_foreign_cores(nd, me));

	nd->attach[0].tgid = me;
	nd->attach[0].held_ncs = BIT(1);
	nd->attach[3].tgid = other;
	nd->attach[3].held_ncs = BIT(2) | BIT(6);
	KUNIT_EXPECT_EQ(test, (u32)(BIT(2) | BIT(6)), neuron_foreign_cores(nd, me));
	KUNIT_EXPECT_EQ(test, (u32)BIT(1), neuron_foreign_cores(nd, other));

	/* An attached process that holds nothing takes nothing away. */
	nd->attach[3].held_ncs = 0;
	KUNIT_EXPECT_EQ(test, 0U, neuron_foreign_cores(nd, me));

	memset(nd->attach, 0, sizeof(nd->attach));
	put_pid(other);
}

/* The search for a run of free cores (reservations) */

/* @free, with the cores of @taken (a mask of the first 64) not free. */
static void run_map(unsigned long *free, unsigned int ncs, u64 taken)
{
	unsigned int i;

	bitmap_zero(free, NEURON_HOST_NCS);
	bitmap_set(free, 0, ncs);
	for (i = 0; i < 64 && i < ncs; i++)
		if (taken & BIT_ULL(i))
			__clear_bit(i, free);
}

static void run_expect(struct kunit *test, const unsigned long *free, unsigned int start,
		       unsigned int end, unsigned int count, int first, unsigned int longest)
{
	unsigned int got = U32_MAX;

	KUNIT_EXPECT_EQ_MSG(test, first, neuron_nc_find_run(free, start, end, count, &got),
			    "[%u, %u] count %u", start, end, count);
	KUNIT_EXPECT_EQ_MSG(test, longest, got, "[%u, %u] count %u", start, end, count);
}

static void state_find_run_no_skip(struct kunit *test)
{
	DECLARE_BITMAP(free, NEURON_HOST_NCS);

	/* Cores 0 and 2 of 8 taken: 3, the core after a taken one, starts a run. */
	run_map(free, 8, BIT(0) | BIT(2));
	run_expect(test, free, 0, 7, 2, 3, 2);
	run_expect(test, free, 0, 7, 1, 1, 1);
	run_expect(test, free, 0, 7, 5, 3, 5);
	run_expect(test, free, 0, 7, 6, -EBUSY, 5);
	run_expect(test, free, 0, 7, 8, -EBUSY, 5);
	run_expect(test, free, 2, 7, 1, 3, 1);
	run_expect(test, free, 4, 7, 4, 4, 4);
	run_expect(test, free, 4, 6, 4, -EBUSY, 3);
	run_expect(test, free, 0, 2, 2, -EBUSY, 1);
	run_expect(test, free, 2, 2, 1, -EBUSY, 0);
	run_expect(test, free, 1, 1, 1, 1, 1);

	/* Every other core taken. */
	run_map(free, 8, 0xaa);
	run_expect(test, free, 0, 7, 1, 0, 1);
	run_expect(test, free, 1, 7, 1, 2, 1);
	run_expect(test, free, 0, 7, 2, -EBUSY, 1);

	/* The first run that fits, not the best fit. */
	run_map(free, 8, BIT(1) | BIT(5));
	run_expect(test, free, 0, 7, 1, 0, 1);
	run_expect(test, free, 0, 7, 2, 2, 2);
	run_expect(test, free, 0, 7, 3, 2, 3);
	run_expect(test, free, 0, 7, 4, -EBUSY, 3);

	/* All free, none free. */
	run_map(free, 8, 0);
	run_expect(test, free, 0, 7, 8, 0, 8);
	run_expect(test, free, 3, 7, 5, 3, 5);
	run_map(free, 8, 0xff);
	run_expect(test, free, 0, 7, 1, -EBUSY, 0);
}

static void state_find_run_host_wide(struct kunit *test)
{
	DECLARE_BITMAP(free, NEURON_HOST_NCS);

	/* Across word and device boundaries, up to the last host core. */
	bitmap_zero(free, NEURON_HOST_NCS);
	bitmap_set(free, 60, 11);
	run_expect(test, free, 0, 511, 11, 60, 11);
	run_expect(test, free, 0, 511, 12, -EBUSY, 11);
	run_expect(test, free, 64, 511, 7, 64, 7);

	bitmap_fill(free, NEURON_HOST_NCS);
	bitmap_clear(free, 100, 100);
	run_expect(test, free, 0, 511, 300, 200, 300);
	run_expect(test, free, 0, 511, 312, 200, 312);
	run_expect(test, free, 0, 511, 313, -EBUSY, 312);
	run_expect(test, free, 0, 511, 100, 0, 100);
	run_expect(test, free, 0, 511, 101, 200, 101);
	run_expect(test, free, 511, 511, 1, 511, 1);
	run_expect(test, free, 0, 511, 512, -EBUSY, 312);
}

static void state_find_run_bad_arguments(struct kunit *test)
{
	DECLARE_BITMAP(free, NEURON_HOST_NCS);

	bitmap_fill(free, NEURON_HOST_NCS);
	run_expect(test, free, 0, 7, 0, -EINVAL, 0);
	run_expect(test, free, 5, 4, 1, -EINVAL, 0);
	run_expect(test, free, 0, NEURON_HOST_NCS, 1, -EINVAL, 0);
	run_expect(test, free, 0, U32_MAX, 1, -EINVAL, 0);
	run_expect(test, free, U32_MAX, U32_MAX, 1, -EINVAL, 0);
}

/* Whether the @n cores from @from on are free in the complement of @taken. */
static bool run_all_free(u64 taken, unsigned int from, unsigned int n)
{
	return !(taken & GENMASK_ULL(from + n - 1, from));
}

/* The plain search, which tries every start and every length. */
static int run_reference(u64 taken, unsigned int start, unsigned int end, unsigned int count,
			 unsigned int *longest)
{
	unsigned int s, n;

	for (s = start; s + count <= end + 1; s++) {
		if (run_all_free(taken, s, count)) {
			*longest = count;
			return s;
		}
	}
	*longest = 0;
	for (s = start; s <= end; s++)
		for (n = 1; s + n <= end + 1 && run_all_free(taken, s, n); n++)
			*longest = max(*longest, n);
	return -EBUSY;
}

/* Compare every count in [@start, @end]; return the mismatches. */
static unsigned int run_compare(struct kunit *test, const unsigned long *free, u64 taken,
				unsigned int start, unsigned int end, bool report)
{
	unsigned int count, longest, want_longest, bad = 0;
	int got, want;

	for (count = 1; count <= end - start + 1; count++) {
		want = run_reference(taken, start, end, count, &want_longest);
		got = neuron_nc_find_run(free, start, end, count, &longest);
		if (got == want && longest == want_longest)
			continue;
		if (report && !bad)
			KUNIT_FAIL(test, "taken %#llx [%u, %u] count %u: %d, %u; want %d, %u",
				   taken, start, end, count, got, longest, want, want_longest);
		bad++;
	}
	return bad;
}

/* Every map of 10 cores, every range and count, against the plain search. */
static void state_find_run_exhaustive(struct kunit *test)
{
	DECLARE_BITMAP(free, NEURON_HOST_NCS);
	unsigned int ncs = 10, start, end, bad = 0;
	u64 taken;

	for (taken = 0; taken < BIT_ULL(ncs); taken++) {
		run_map(free, ncs, taken);
		for (start = 0; start < ncs; start++)
			for (end = start; end < ncs; end++)
				bad += run_compare(test, free, taken, start, end, !bad);
	}
	KUNIT_EXPECT_EQ(test, 0U, bad);
}

static struct kunit_case state_cases[] = {
	KUNIT_CASE(state_crwl_sequences),
	KUNIT_CASE(state_crwl_other_process),
	KUNIT_CASE(state_nc_checked),
	KUNIT_CASE(state_crwl_writer_woken_by_last_reader),
	KUNIT_CASE(state_crwl_reader_woken_by_downgrade),
	KUNIT_CASE_SLOW(state_crwl_waits_time_out),
	KUNIT_CASE(state_waits_interrupted_by_signal),
	KUNIT_CASE(state_waits_end_on_removal),
	KUNIT_CASE(state_crwl_detach_drops_locks),
	KUNIT_CASE(state_cinit_handshake),
	KUNIT_CASE(state_cinit_other_process),
	KUNIT_CASE(state_cinit_waiter_sees_completion),
	KUNIT_CASE(state_cinit_waiter_takes_over),
	KUNIT_CASE_SLOW(state_cinit_wait_times_out),
	KUNIT_CASE(state_cores_reset),
	KUNIT_CASE(state_foreign_ncs),
	KUNIT_CASE(state_find_run_no_skip),
	KUNIT_CASE(state_find_run_host_wide),
	KUNIT_CASE(state_find_run_bad_arguments),
	KUNIT_CASE(state_find_run_exhaustive),
	{}
};

static struct kunit_suite state_suite = {
	.name = "neuron_core_nc",
	.init = state_test_init,
	.exit = state_test_exit,
	.test_cases = state_cases,
};

kunit_test_suite(state_suite);
