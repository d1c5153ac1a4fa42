/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the Neuron kselftests that drive /dev/neuronN (the
 * ioctl, mem, dma and state suites): random data, the device node and the
 * setup and teardown of one simulated device, the device's memory counters
 * in debugfs, wrappers of the memory commands, forked children that report
 * through pipes, and the children and mappings a test leaves for its
 * teardown.  Header-only, like neuron_test.h; each suite is one program.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures with CHILD_CHECK() and exit with child_status().
 */
#ifndef _NEURON_MEM_H
#define _NEURON_MEM_H

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"

#define MEM_COUNTERS	"/sys/kernel/debug/neuron/neuron%d/memory"
#define MAX_KIDS	8
#define MAX_MAPS	32
#define RW		(PROT_READ | PROT_WRITE)

/* xorshift64: the test's random numbers, seeded per test (the seed is logged). */
static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static inline __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Seed the random numbers from the time and the pid; the seed, for the log. */
static inline __u64 rnd_seed(void)
{
	rng_state ^= ((__u64)time(NULL) << 20) ^ getpid();
	return rng_state;
}

static inline void rnd_fill(void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;
	__u64 r;

	for (i = 0; i + sizeof(r) <= n; i += sizeof(r)) {
		r = rnd();
		memcpy(b + i, &r, sizeof(r));
	}
	for (; i < n; i++)
		b[i] = rnd() >> 56;
}

/* -errno of an ioctl, or its non-negative return value. */
static inline long xioctl(int fd, unsigned int cmd, void *arg)
{
	long ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

static inline int open_node(int index, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/neuron%d", index);
	return open(path, flags);
}

/*
 * The start of a test on one simulated device: neuron_core and neuron_sim
 * (@sim_args: its parameters) loaded, or kept from the case before, with no
 * device, then simulated device @id of generation @gen, ready within @ms.
 * Its device index.
 */
static inline int sim_device_up(struct __test_metadata *_metadata, int id, const char *gen,
				const char *sim_args, long ms)
{
	char buf[64];

	ASSERT_EQ(0, nt_driver_up("", sim_args));
	ASSERT_EQ(0, nt_sim_add(id, gen));
	ASSERT_STREQ("ready", nt_sim_settle(id, buf, sizeof(buf), ms));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", id));
	return atoi(buf);
}

/* The end of a test: no simulated device left (the modules stay). */
static inline void sim_device_down(struct __test_metadata *_metadata)
{
	EXPECT_EQ(0, nt_driver_down());
}

/* An address with nothing mapped at it. */
static inline void *unmapped_address(void)
{
	size_t len = 2 * sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, len, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, len);
	return p;
}

/* A page that can be read but not written. */
static inline void *read_only_page(void)
{
	void *p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* -errno of a mapping that should fail; 0 (unmapped again) if it worked. */
static inline int map_fails(int fd, __u64 off, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/* The device's memory counters (debugfs). */
struct mcount {
	long long host_bytes;
	long long device_bytes;
	long long chunks;
	long long handles;
};

static inline int mcount_read(int index, struct mcount *c)
{
	static const char * const keys[] = { "host_bytes", "device_bytes", "chunks", "handles" };
	long long *vals[] = { &c->host_bytes, &c->device_bytes, &c->chunks, &c->handles };
	char path[96], line[128];
	unsigned int i, seen = 0;
	FILE *f;

	snprintf(path, sizeof(path), MEM_COUNTERS, index);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			size_t n = strlen(keys[i]);

			if (!strncmp(line, keys[i], n) && line[n] == ' ') {
				*vals[i] = strtoll(line + n + 1, NULL, 10);
				seen |= 1U << i;
			}
		}
	}
	fclose(f);
	return seen == 0xf ? 0 : -ENOENT;
}

/* The number after "@name: " in device @index's dma debugfs file, or -1. */
static inline long long dma_stat(int index, const char *name)
{
	char path[96], line[96];
	long long v = -1;
	size_t len = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%d/dma", index);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			v = strtoll(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * neuron_udma's CPU-copy thresholds (Documentation/dma.rst, "CPU copies"):
 * copies of at most that many bytes to or from device memory are done by
 * the CPU, not the engine.  Tests of the engine's own behaviour (faults,
 * tracepoints) turn them off, and put them back before the case ends, so
 * the loaded driver's fingerprint (neuron_test.h) stays.
 */
#define CPU_COPY_H2D	"/sys/module/neuron_udma/parameters/cpu_copy_h2d_max"
#define CPU_COPY_D2H	"/sys/module/neuron_udma/parameters/cpu_copy_d2h_max"

/* The thresholds as they were before cpu_copy_off(). */
struct cpu_copy_saved {
	char h2d[32];
	char d2h[32];
	int saved;
};

/* Set both thresholds (decimal strings); 0 or -errno. */
static inline int cpu_copy_set(const char *h2d, const char *d2h)
{
	int ret = nt_write(CPU_COPY_H2D, "%s", h2d);

	return ret ? ret : nt_write(CPU_COPY_D2H, "%s", d2h);
}

/* Every copy through the engine; the thresholds saved in @s the first time. */
static inline int cpu_copy_off(struct cpu_copy_saved *s)
{
	if (!s->saved) {
		if (nt_read(s->h2d, sizeof(s->h2d), CPU_COPY_H2D) ||
		    nt_read(s->d2h, sizeof(s->d2h), CPU_COPY_D2H))
			return -ENOENT;
		s->saved = 1;
	}
	return cpu_copy_set("0", "0");
}

/* Put back what cpu_copy_off() saved, if anything. */
static inline int cpu_copy_restore(struct cpu_copy_saved *s)
{
	if (!s->saved)
		return 0;
	s->saved = 0;
	return cpu_copy_set(s->h2d, s->d2h);
}

/* EXPECT each of the counters @got to equal @want's. */
static inline void expect_counts(struct __test_metadata *_metadata, const struct mcount *want,
				 const struct mcount *got)
{
	EXPECT_EQ(want->host_bytes, got->host_bytes);
	EXPECT_EQ(want->device_bytes, got->device_bytes);
	EXPECT_EQ(want->chunks, got->chunks);
	EXPECT_EQ(want->handles, got->handles);
}

/* The counters of device @index now equal @want; @where names the check in the log. */
static inline void check_counts(struct __test_metadata *_metadata, int index,
				const struct mcount *want, const char *where)
{
	struct mcount got;

	ASSERT_EQ(0, mcount_read(index, &got));
	if (!memcmp(&got, want, sizeof(got)))
		return;
	TH_LOG("%s: host %lld device %lld chunks %lld handles %lld, want %lld %lld %lld %lld",
	       where, got.host_bytes, got.device_bytes, got.chunks, got.handles,
	       want->host_bytes, want->device_bytes, want->chunks, want->handles);
	expect_counts(_metadata, want, &got);
}

static inline struct mcount counts_now(struct __test_metadata *_metadata, int index)
{
	struct mcount c;

	ASSERT_EQ(0, mcount_read(index, &c));
	return c;
}

/*
 * Simulated device @id, removed by the test, created again: ready within
 * @ms, at device index @index again; a new normal file of it in *@fd and
 * its memory counters in *@start (for the teardown's accounting).
 */
static inline void sim_device_back(struct __test_metadata *_metadata, int id, const char *gen,
				   int index, long ms, int *fd, struct mcount *start)
{
	char buf[64];

	ASSERT_EQ(0, nt_sim_add(id, gen));
	ASSERT_STREQ("ready", nt_sim_settle(id, buf, sizeof(buf), ms));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", id));
	ASSERT_EQ(index, atoi(buf));
	*fd = open_node(index, O_RDWR);
	ASSERT_LE(0, *fd);
	ASSERT_EQ(0, mcount_read(index, start));
}

/*
 * The end of a test on simulated device @index: its counters are back at
 * @start (NULL: the setup did not get to read them), sim_device_down(),
 * and the time since @t0 (ms, nt_now_ms()) in the log.
 */
static inline void sim_device_end(struct __test_metadata *_metadata, int index,
				  const struct mcount *start, long t0)
{
	struct mcount now;

	if (start) {
		EXPECT_EQ(0, mcount_read(index, &now));
		expect_counts(_metadata, start, &now);
	}
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - t0) / 1000.0);
}

/* @c plus @host and @dev bytes, @chunks chunks and @handles handles. */
static inline struct mcount mcount_plus(const struct mcount *c, long long host, long long dev,
					long long chunks, long long handles)
{
	struct mcount r = *c;

	r.host_bytes += host;
	r.device_bytes += dev;
	r.chunks += chunks;
	r.handles += handles;
	return r;
}

/* 32-bit words of [@p, @p + @len) that are not @pat. */
static inline size_t not_pattern(const void *p, size_t len, __u32 pat)
{
	const __u32 *w = p;
	size_t i, bad = 0;

	for (i = 0; i < len / 4; i++)
		bad += w[i] != pat;
	return bad;
}

/* Wait up to @ms for the counters of device @index to equal @want; whether they did. */
static inline int mcount_reach(int index, const struct mcount *want, long ms)
{
	long end = nt_now_ms() + ms;
	struct mcount got;

	for (;;) {
		if (!mcount_read(index, &got) && !memcmp(&got, want, sizeof(got)))
			return 1;
		if (nt_now_ms() > end)
			return 0;
		usleep(20000);
	}
}

/* An ioctl command and its name, for messages: NAMED_CMD(NEURON_IOCTL_...). */
struct named_cmd {
	unsigned int cmd;
	const char *name;
};

#define NAMED_CMD(c)	{ c, #c }

/* MEM_ALLOC_V2 of device memory on HBM channel @channel. */
static inline long alloc_dev(int fd, __u64 size, __u32 channel, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2 a = {
		.size = size, .dram_channel = channel, .mem_handle = h,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a);
}

/* MEM_ALLOC_V2 of host memory. */
static inline long alloc_host(int fd, __u64 size, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2 a = {
		.size = size, .host_memory = 1, .mem_handle = h,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a);
}

static inline long mem_free(int fd, __u64 h)
{
	struct neuron_ioctl_mem_free a = { .mem_handle = h };

	return xioctl(fd, NEURON_IOCTL_MEM_FREE, &a);
}

static inline long get_pa(int fd, __u64 h, __u64 *pa)
{
	struct neuron_ioctl_mem_get_pa a = { .mem_handle = h, .pa = pa };

	return xioctl(fd, NEURON_IOCTL_MEM_GET_PA, &a);
}

static inline long ext_info(int fd, __u64 h, struct neuron_ioctl_mem_get_extended_info *ei)
{
	memset(ei, 0xa5, sizeof(*ei));
	ei->mem_handle = h;
	return xioctl(fd, NEURON_IOCTL_MEM_GET_EXTENDED_INFO, ei);
}

/* MEM_BUF_COPY (@wide 0: 32-bit size and offset) or MEM_BUF_COPY64. */
static inline long buf_copy(int fd, int wide, __u64 h, void *buf, __u64 size, __u64 off,
			    int to_mem)
{
	struct neuron_ioctl_mem_buf_copy64 b64 = {
		.mem_handle = h, .buffer = buf, .size = size, .offset = off,
		.copy_to_mem_handle = to_mem,
	};
	struct neuron_ioctl_mem_buf_copy b32 = {
		.mem_handle = h, .buffer = buf, .size = (__u32)size, .offset = (__u32)off,
		.copy_to_mem_handle = to_mem,
	};

	if (wide)
		return xioctl(fd, NEURON_IOCTL_MEM_BUF_COPY64, &b64);
	return xioctl(fd, NEURON_IOCTL_MEM_BUF_COPY, &b32);
}

/* DUMP_MEM_CHUNKS of channel @hbm into @data (@in entries); *@out, if set, gets the count. */
static inline long dump_chunks(int fd, __u32 hbm, __u32 in,
			       struct neuron_ioctl_mem_chunk_info *data, __u32 *out)
{
	struct neuron_ioctl_dump_mem_chunks a = {
		.hbm_index = hbm, .num_entries_in = in, .num_entries_out = 0xa5a5a5a5, .data = data,
	};
	long ret = xioctl(fd, NEURON_IOCTL_DUMP_MEM_CHUNKS, &a);

	if (out)
		*out = a.num_entries_out;
	return ret;
}

/* The device's memory channels: DUMP_MEM_CHUNKS answers -EINVAL from the first one missing. */
static inline int count_channels(struct __test_metadata *_metadata, int fd)
{
	long ret;
	int n;

	for (n = 0; n < 64; n++) {
		ret = dump_chunks(fd, n, 0, NULL, NULL);
		if (ret == -EINVAL)
			break;
		ASSERT_EQ(0, ret);
	}
	return n;
}

/* Exchange of 64-bit values and one-byte signals between processes. */
static inline int put_u64s(int fd, const __u64 *v, int n)
{
	return write(fd, v, n * sizeof(*v)) == (ssize_t)(n * sizeof(*v)) ? 0 : -1;
}

static inline int get_u64s(int fd, __u64 *v, int n)
{
	size_t want = n * sizeof(*v), got = 0;
	ssize_t r;

	while (got < want) {
		r = read(fd, (char *)v + got, want - got);
		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

static inline int signal_byte(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

static inline int wait_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/* In a forked child: count a failed check (in the caller's @fails) and say which. */
#define CHILD_CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "# child %d, line %d: %s\n", getpid(), __LINE__, #cond); \
		fails++;							\
	}									\
} while (0)

/* A child's exit status from its failure count. */
static inline int child_status(int fails)
{
	return fails > 99 ? 99 : fails;
}

/*
 * mmap() of @len bytes of @fd at @pa, shared and writable (not undone by the
 * teardown: for forked children), filled with @c; MAP_FAILED if it failed.
 */
static inline void *mmap_filled(int fd, __u64 pa, size_t len, int c)
{
	void *p = mmap(NULL, len, RW, MAP_SHARED, fd, (off_t)pa);

	if (p != MAP_FAILED)
		memset(p, c, len);
	return p;
}

struct map {
	void *addr;
	size_t len;
};

/*
 * What a test made that its teardown undoes if the test does not: the
 * children it forked and the mappings it made.  Zeroed by the setup.
 */
struct undo {
	pid_t kids[MAX_KIDS];
	struct map maps[MAX_MAPS];
};

/* fork() a child that dies with this process; the teardown kills what is left. */
static inline pid_t spawn(struct __test_metadata *_metadata, struct undo *u)
{
	pid_t pid;
	int i;

	for (i = 0; i < MAX_KIDS && u->kids[i]; i++)
		;
	ASSERT_GT(MAX_KIDS, i);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		return 0;
	}
	u->kids[i] = pid;
	return pid;
}

/* Wait for child @pid; its exit status, or 128 + signal. */
static inline int reap(struct undo *u, pid_t pid)
{
	int i, st;

	for (i = 0; i < MAX_KIDS; i++)
		if (u->kids[i] == pid)
			u->kids[i] = 0;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Teardown: kill the children still running and wait for them. */
static inline void kill_kids(struct undo *u)
{
	int i, st;

	for (i = 0; i < MAX_KIDS; i++) {
		if (u->kids[i] > 0) {
			kill(u->kids[i], SIGKILL);
			waitpid(u->kids[i], &st, 0);
		}
	}
}

/* mmap() that the teardown undoes if the test does not. */
static inline void *map(struct undo *u, int fd, __u64 off, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	int i;

	if (p == MAP_FAILED)
		return p;
	for (i = 0; i < MAX_MAPS; i++) {
		if (!u->maps[i].addr) {
			u->maps[i].addr = p;
			u->maps[i].len = len;
			break;
		}
	}
	return p;
}

static inline int unmap(struct undo *u, void *p, size_t len)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++)
		if (u->maps[i].addr == p)
			u->maps[i].addr = NULL;
	return munmap(p, len);
}

/* Teardown: unmap what the test left mapped. */
static inline void unmap_all(struct undo *u)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++)
		if (u->maps[i].addr)
			munmap(u->maps[i].addr, u->maps[i].len);
}

/**
 * struct nt_gen - a simulated generation, as the DMA suites see it
 * @gen: neuron_sim's name for it
 * @user: engines 0..user-1 are the runtime's
 * @engines: user..engines-1 are the host engines (the driver's)
 * @nhbm: memory channels
 * @ncs: NeuronCores; they share the host engines evenly
 */
struct nt_gen {
	const char *gen;
	unsigned int user;
	unsigned int engines;
	int nhbm;
	unsigned int ncs;
};

static const struct nt_gen nt_gen_v2 = { "v2", 32, 34, 2, 2 };
static const struct nt_gen nt_gen_v3 = { "v3", 128, 132, 4, 8 };
static const struct nt_gen nt_gen_v4 = { "v4", 128, 132, 4, 8 };

#endif /* _NEURON_MEM_H */
