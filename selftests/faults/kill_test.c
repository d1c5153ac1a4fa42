// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: SIGKILL at random points of every long operation.
 *
 * Round after round, a child process opens the device, allocates, then
 * runs one long operation over and over: a synchronous copy from or into
 * a user buffer (pinned or through the bounce buffer), a copy between
 * chunks, asynchronous copies and their waits, a zero-copy batch, a fill,
 * an HBM scrub, allocation churn, or a wait of the state plane (a model
 * lock or a core initialisation another process holds).  The parent kills
 * it with SIGKILL after a random delay (sometimes before it even got
 * going), then checks that it died at once, that everything it had is
 * given back (the device's memory counters, no dead DMA channel), and,
 * every few rounds, that the device still copies correctly.
 *
 * The seed is printed; NEURON_KILL_SEED replays a run and NEURON_KILL_ROUNDS
 * sets its length (make check runs a short fixed-seed slice, make stress
 * a long one).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define DEV		6
#define SETTLE_MS	20000
#define MIB		(1024ULL * 1024)
#define CHUNK		(4 * MIB)
#define RELEASE_MS	5000

enum kop {
	K_BUF_IN,	/* MEM_BUF_COPY64 into a device chunk, pinned */
	K_BUF_OUT,	/* MEM_BUF_COPY64 out of it, through the bounce buffer */
	K_COPY,		/* MEM_COPY64 between device chunks */
	K_ASYNC,	/* MEM_COPY_ASYNC64, then MEM_COPY_ASYNC_WAIT */
	K_ZC,		/* MEM_BUF_ZEROCOPY64_BATCHES, synchronous */
	K_MEMSET,	/* MEMSET64 */
	K_SCRUB,	/* HBM_SCRUB_START and _WAIT */
	K_ALLOC,	/* MEM_ALLOC_V2 and MEM_FREE, host and device */
	K_WRITER,	/* CRWL_WRITER_ENTER on a core the parent holds */
	K_CINIT,	/* CINIT_SET_STATE STARTED on a core the parent initialises */
	NKOPS
};

static const char * const kop_name[NKOPS] = {
	"buf_in", "buf_out", "copy", "async", "zerocopy", "memset", "scrub", "alloc",
	"writer_wait", "cinit_wait",
};

static const struct neuron_uuid parent_uuid = { .value = { 0x5e } };
static const struct neuron_uuid child_uuid = { .value = { 0xc4 } };

FIXTURE(kill) {
	int fd;
	int index;
	struct mcount base;
	struct undo undo;
	long t0;
};

FIXTURE_VARIANT(kill) {
	const char *gen;
};

FIXTURE_VARIANT_ADD(kill, v2) { .gen = "v2" };
FIXTURE_VARIANT_ADD(kill, v3) { .gen = "v3" };

#define kill_self	_test_data_kill

FIXTURE_SETUP(kill)
{
	__u32 st = 0;

	self->t0 = nt_now_ms();
	self->fd = -1;
	memset(&self->undo, 0, sizeof(self->undo));
	self->index = sim_device_up(_metadata, DEV, variant->gen, "mem_size=128M", SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	/* What the waiting children wait for: core 0's model lock, core 1's init. */
	ASSERT_EQ(0, crwl(self->fd, W_ENTER, 0, &parent_uuid));
	ASSERT_EQ(0, cinit(self->fd, 1, CI_STARTED, &st));
	ASSERT_EQ(CI_STARTED, st);
	ASSERT_EQ(0, mcount_read(self->index, &self->base));
}

FIXTURE_TEARDOWN(kill)
{
	kill_kids(&self->undo);
	if (self->fd >= 0)
		close(self->fd);
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

static long zc_one(int fd, __u64 h, void *buf, __u64 len)
{
	nrt_tensor_batch_op_t ops[4];
	neuron_memcpy_batch_t b = { .mem_handle = h, .ops_ptr = ops, .num_ops = 4 };
	struct neuron_ioctl_mem_buf_copy64zc_batches a = {
		.batches_ptr = &b, .num_batches = 1, .is_copy_to_device = 1,
		.h2t_qid = NEURON_DMA_H2T_DEFAULT_QID,
	};
	int k;

	for (k = 0; k < 4; k++)
		ops[k] = (nrt_tensor_batch_op_t){
			.buffer = (char *)buf + k * (len / 4), .offset = k * (len / 4),
			.size = len / 4,
		};
	return xioctl(fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES, &a);
}

static long alloc_v2(int fd, __u64 size, int host, __u32 hbm, __u64 *h)
{
	return host ? alloc_host(fd, size, h) : alloc_dev(fd, size, hbm, h);
}

/* MEM_COPY64 of @size bytes from @a to @b. */
static long mem_copy64(int fd, __u64 a, __u64 b, __u64 size)
{
	struct neuron_ioctl_mem_copy64 c = {
		.src_mem_handle = a, .dst_mem_handle = b, .size = size,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_COPY64, &c);
}

/* MEM_COPY_ASYNC64 waiting for @pwait; the new handle in *@wait. */
static long copy_async64(int fd, __u64 a, __u64 b, __u64 size, __u32 pwait, __u32 *wait)
{
	struct neuron_ioctl_mem_copy_async64 c = {
		.src_mem_handle = a, .dst_mem_handle = b, .size = size,
		.pwait_handle = pwait ? pwait : (__u32)NEURON_DMA_H2T_CTX_HANDLE_NONE,
	};
	long ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC64, &c);

	*wait = c.wait_handle;
	return ret;
}

static long memset64(int fd, __u64 h, __u32 v, __u64 size)
{
	struct neuron_ioctl_memset64 s = { .mem_handle = h, .value = v, .size = size };

	return xioctl(fd, NEURON_IOCTL_MEMSET64, &s);
}

/* HBM_SCRUB_START of channel 0, then its wait. */
static long scrub(int fd)
{
	struct neuron_ioctl_hbm_scrub_start s = { .nc_id = 0, .hbm_index = 0 };
	struct neuron_ioctl_hbm_scrub_wait w = { .nc_id = 0, .hbm_index = 0 };
	long ret = xioctl(fd, NEURON_IOCTL_HBM_SCRUB_START, &s);

	return ret ? ret : xioctl(fd, NEURON_IOCTL_HBM_SCRUB_WAIT, &w);
}

/*
 * The child: set up, say so on @wfd, then run @op until killed.  Never
 * returns.  Errors end it with a status the parent reports (a killed
 * child's status is SIGKILL whatever it was doing).
 */
static void kill_child(int index, enum kop op, int wfd)
{
	__u64 a = 0, b = 0, x;
	unsigned char *u = malloc(CHUNK);
	int fd = open_node(index, O_RDWR);
	__u32 wh = 0, st;
	long ret = 0;
	char c = 1;

	if (fd < 0 || !u)
		_exit(2);
	memset(u, 0x77, CHUNK);
	if (alloc_dev(fd, CHUNK, 0, &a) || alloc_v2(fd, CHUNK, op == K_ASYNC, 0, &b))
		_exit(3);
	if (write(wfd, &c, 1) != 1)
		_exit(4);
	for (;;) {
		switch (op) {
		case K_BUF_IN:
			ret = buf_copy(fd, 1, a, u, CHUNK, 0, 1);
			break;
		case K_BUF_OUT:
			ret = buf_copy(fd, 1, a, u, 64, 0, 0);
			break;
		case K_COPY:
			ret = mem_copy64(fd, a, b, CHUNK);
			break;
		case K_ASYNC:
			ret = copy_async64(fd, a, b, CHUNK, wh, &wh);
			break;
		case K_ZC:
			ret = zc_one(fd, a, u, CHUNK);
			break;
		case K_MEMSET:
			ret = memset64(fd, a, 0x5a, CHUNK);
			break;
		case K_SCRUB:
			ret = scrub(fd);
			break;
		case K_ALLOC:
			ret = alloc_v2(fd, 3 * 4096, rnd() & 1, 0, &x);
			if (!ret)
				ret = mem_free(fd, x);
			break;
		case K_WRITER:
			ret = crwl(fd, W_ENTER, 0, &child_uuid);
			/* The parent keeps the lock: only waiting ends (-EBUSY, time up). */
			if (ret == -EBUSY)
				ret = 0;
			break;
		case K_CINIT:
			ret = cinit(fd, 1, CI_STARTED, &st);
			break;
		default:
			_exit(5);
		}
		if (ret)
			_exit(10 + op);
	}
}

/* A round trip through a fresh chunk of the parent's: the device still works. */
static void still_works(struct __test_metadata *_metadata, struct kill_self *self,
			const char *after)
{
	unsigned char in[8192], out[8192];
	__u64 h;

	rnd_fill(in, sizeof(in));
	ASSERT_EQ(0, alloc_dev(self->fd, sizeof(in), 0, &h)) TH_LOG("after %s", after);
	EXPECT_EQ(0, buf_copy(self->fd, 1, h, in, sizeof(in), 0, 1)) TH_LOG("after %s", after);
	EXPECT_EQ(0, buf_copy(self->fd, 1, h, out, sizeof(out), 0, 0)) TH_LOG("after %s", after);
	EXPECT_EQ(0, memcmp(in, out, sizeof(in))) TH_LOG("after %s", after);
	EXPECT_EQ(0, mem_free(self->fd, h));
}

TEST_F_TIMEOUT(kill, random_points, 900)
{
	unsigned long long seed = nt_env_num("NEURON_KILL_SEED", 1);
	unsigned int rounds = nt_env_num("NEURON_KILL_ROUNDS", 40), r;
	unsigned int early = 0, per_op[NKOPS] = { 0 };
	long t, worst = 0;
	char what[64];
	__u32 st;

	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	TH_LOG("seed %llu, %u rounds (NEURON_KILL_SEED, NEURON_KILL_ROUNDS)", seed, rounds);
	for (r = 0; r < rounds; r++) {
		enum kop op = rnd() % NKOPS;
		/* One round in eight kills while the child is still setting up. */
		int before_ready = rnd() % 8 == 0;
		unsigned int delay_us = rnd() % 30000;
		int p[2], status;
		pid_t child;
		char c;

		snprintf(what, sizeof(what), "round %u (%s%s)", r, kop_name[op],
			 before_ready ? ", early" : "");
		ASSERT_EQ(0, pipe(p));
		child = spawn(_metadata, &self->undo);
		if (child == 0) {
			close(p[0]);
			kill_child(self->index, op, p[1]);
		}
		close(p[1]);
		if (!before_ready) {
			ASSERT_EQ(1, read(p[0], &c, 1)) TH_LOG("%s: the child did not start", what);
			per_op[op]++;
		} else {
			early++;
		}
		usleep(delay_us);
		t = nt_now_ms();
		kill(child, SIGKILL);
		status = reap(&self->undo, child);
		t = nt_now_ms() - t;
		close(p[0]);
		worst = t > worst ? t : worst;
		EXPECT_EQ(128 + SIGKILL, status)
			TH_LOG("%s: the child ended by itself (%d)", what, status);
		EXPECT_GT(5000, t) TH_LOG("%s: took %ld ms to die", what, t);
		if (!mcount_reach(self->index, &self->base, RELEASE_MS))
			TH_LOG("%s: memory not back after %d ms", what, RELEASE_MS);
		check_counts(_metadata, self->index, &self->base, what);
		EXPECT_EQ(0, dma_stat(self->index, "dead_channels"))
			TH_LOG("%s: a channel died", what);
		if (r % 8 == 7)
			still_works(_metadata, self, what);
		if (_metadata->exit_code)
			break;
	}
	still_works(_metadata, self, "the last round");
	TH_LOG("%u rounds, %u killed while setting up; slowest death %ld ms", r, early, worst);
	for (r = 0; r < NKOPS; r++)
		TH_LOG("  %-12s killed %u times while running", kop_name[r], per_op[r]);
	/* The parent's own hold on core 0's lock and core 1's init outlived all of it. */
	EXPECT_EQ(0, crwl(self->fd, W_DOWN, 0, &parent_uuid));
	EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &parent_uuid));
	st = 0;
	EXPECT_EQ(0, cinit(self->fd, 1, CI_COMPLETED, &st));
	EXPECT_EQ(CI_COMPLETED, st);
}

struct writer_loop {
	int fd;		/* the parent's file: the gate checks this process */
	unsigned int entered;
};

static void *writer_thread(void *arg)
{
	struct writer_loop *l = arg;
	long ret;

	/* Until the gate refuses the process: it detached. */
	do {
		ret = crwl(l->fd, W_ENTER, 0, &child_uuid);
		if (!ret || ret == -EALREADY) {
			l->entered++;
			crwl(l->fd, W_DOWN, 0, &child_uuid);
			crwl(l->fd, R_EXIT, 0, &child_uuid);
		}
	} while (ret != -EACCES);
	return NULL;
}

/* A child: a thread takes core 0's model lock through @pfd while the child detaches. */
static int writer_leaver(int index, int pfd, unsigned int delay_us)
{
	struct writer_loop l = { .fd = pfd };
	int own = open_node(index, O_RDWR);
	pthread_t t;

	if (own < 0 || pthread_create(&t, NULL, writer_thread, &l))
		return 100;
	usleep(delay_us);
	close(own);
	pthread_join(t, NULL);
	return 0;
}

/*
 * Processes that detach while a thread of theirs takes a core's model lock
 * for writing (a race, tried for a few seconds): after each, the lock is
 * free at once, so no writer was left recorded for a detached process.
 */
TEST_F_TIMEOUT(kill, writer_detach_race, 300)
{
	long end = nt_now_ms() + 3000, t, ret;
	pid_t child;
	int i;

	ASSERT_EQ(0, crwl(self->fd, W_DOWN, 0, &parent_uuid));
	ASSERT_EQ(0, crwl(self->fd, R_EXIT, 0, &parent_uuid));
	for (i = 0; i < 300 && nt_now_ms() < end; i++) {
		child = spawn(_metadata, &self->undo);
		if (!child)
			_exit(writer_leaver(self->index, self->fd, rnd() % 3000));
		EXPECT_EQ(0, reap(&self->undo, child));
		t = nt_now_ms();
		/*
		 * Taken: 0, or -EALREADY when the child never got as far
		 * as recording itself, so the parent's model is still the
		 * one recorded from the round before.
		 */
		ret = crwl(self->fd, W_ENTER, 0, &parent_uuid);
		if (ret && ret != -EALREADY) {
			TH_LOG("round %d: a detached process kept the model lock (%ld)", i, ret);
			_metadata->exit_code = KSFT_FAIL;
			break;
		}
		EXPECT_GT(1000, nt_now_ms() - t) TH_LOG("round %d: the lock was held", i);
		EXPECT_EQ(0, crwl(self->fd, W_DOWN, 0, &parent_uuid));
		EXPECT_EQ(0, crwl(self->fd, R_EXIT, 0, &parent_uuid));
	}
	TH_LOG("%d processes detached while taking a model lock", i);
}

TEST_HARNESS_MAIN
