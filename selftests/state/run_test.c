// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: a model run, end to end, the way the Neuron runtime drives the
 * driver (the lanes and the tdrv_init order of the runtime), on simulated
 * devices, and what is left of it when its process is killed at each step
 * (Documentation/state.rst, memory.rst, dma.rst, simulator.rst).
 *
 * One run, model_run(), always in a forked process, on one core of one
 * device:
 *
 *  1. /dev/neuron0 O_WRONLY (the misc file): POD_STATUS_V2 (SINGLE_NODE),
 *     POD_CTRL_V2 SET_MODE UNSET, HOST_DEVICE_ID_TO_RID_MAP,
 *     DRIVER_INFO_GET (BIG_CORE_MAPS);
 *  2. CRWL_NC_RANGE_MARK_EXT0 of one core of the device, host-wide numbers;
 *  3. /dev/neuronN O_RDWR; NC_RESET of the core and NC_RESET_READY;
 *     CINIT_SET_STATE STARTED (the run is the initialiser); HBM_SCRUB_START
 *     and HBM_SCRUB_WAIT of the core's channel;
 *  4. MEM_ALLOC_V2MT of device memory (it shows the scrub pattern), data in
 *     with MEM_BUF_COPY64, back with MEM_BUF_COPY;
 *  5. NOTIFICATIONS_INIT_V2: a host queue (mapped) and a device queue of the
 *     core; the slot registers (BAR_READ) point at them;
 *  6. RESOURCE_MMAP_INFO of the core's TPB semaphores; mapping them is
 *     EOPNOTSUPP on a simulated device;
 *  7. ACQUIRE_NEURON_DS, mapped read-write: the runtime's counters;
 *  8. CRWL_WRITER_ENTER, CRWL_WRITER_DOWNGRADE, CINIT_SET_STATE COMPLETED;
 *  9. "execution": the run, playing the device, injects entries into both
 *     queues through the simulator's nq_inject file and reads them (host:
 *     through its mapping; device: MEM_BUF_COPY of the queue's handle) at
 *     the head the slot register said; a semaphore counts the executions
 *     (SEMAPHORE_INCREMENT, READ and the simulator's debugfs), an event is
 *     set, the datastore counts them too;
 * 10. CRWL_READER_EXIT, RELEASE_NEURON_DS, munmap, MEM_FREE, close, unmark.
 *
 * Notification queues outlive their owner until the core is reset, so
 * after every run the test resets the core from a short-lived process (a
 * reset holds the core until its process detaches) and checks that the
 * queues are halted and the memory counters are back where they started.
 *
 * Each test starts with no Neuron module loaded, loads neuron_core and
 * neuron_sim (16 MiB of device memory, so a scrub is short) and creates its
 * simulated devices, whose ids are their indexes.  This process opens each
 * device's normal file (it is attached: for CINIT, model locks, datastore
 * and BAR_READ checks, never holding a core) and /dev/neuron0's misc file
 * (marks and NC_PID_STATE_DUMP).  The teardown kills the children left,
 * unmaps what is mapped, closes everything and leaves no module loaded.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures (RUN_CHECK, CHILD_CHECK) and report the count as their exit
 * status.  Random data comes from a fixed seed.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
#define SIM_ARGS	"mem_size=16M"
#define MAX_DEVS	2
/* Longest wait for released memory to show in the counters. */
#define RELEASE_MS	5000

/* The run's resources. */
#define DATA_SZ		(64 * 1024)
#define QSZ		4096
#define HQ_TYPE		NQ_TYPE_NOTIFY
#define HQ_ENGINE	1
#define DQ_TYPE		NQ_TYPE_ERROR
#define DQ_ENGINE	2
#define SEM_IDX		17
#define EV_IDX		23
#define NEXEC		3
#define ENTRY_WORDS	4
#define SCRUB_PAT	0x5eedf00dU
#define TPB_SEM_SIZE	8192
#define STEPS		10

/* A generation as this test sees it: cores, channels, the cores' notific blocks. */
struct gen_info {
	const char *name;
	unsigned int ncs;
	unsigned int nhbm;
	const __u64 *nq_block;
};

static const __u64 nq_v2[] = { 0x30535000, 0x30c35000 };
static const __u64 nq_v3[] = {
	0x06001000, 0x06181000, 0x06401000, 0x06581000,
	0x46001000, 0x46181000, 0x46401000, 0x46581000,
};

static const struct gen_info gen_v2 = { "v2", 2, 2, nq_v2 };
static const struct gen_info gen_v3 = { "v3", 8, 4, nq_v3 };
static const struct gen_info gen_v4 = { "v4", 8, 4, nq_v3 };

/* ------------------------------------------------------------------ */
/* Small commands                                                      */
/* ------------------------------------------------------------------ */

/* Read exactly @len bytes; 0, or -1 on EOF or error. */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = read(fd, (char *)buf + got, len - got);
		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

/* CRWL_NC_RANGE_MARK_EXT0 of @count cores of [@start, @end]; the bitmap in @bits. */
static long mark_ext(int fd, __u32 count, __u32 start, __u32 end, __u64 bits[8], __u32 *max)
{
	struct span s;
	long ret = mark(fd, 1, count, start, end, &s);

	memcpy(bits, s.bits, sizeof(s.bits));
	if (max)
		*max = s.max;
	return ret;
}

/* Whether @bits has exactly host-wide core @g set. */
static int only_bit(const __u64 bits[8], unsigned int g)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (bits[i] != (i == g / 64 ? 1ULL << (g % 64) : 0))
			return 0;
	return 1;
}

/* The 64-bit per-core counter @counter of core @c (< 4) in a datastore. */
static __u64 *nds_nc(void *ds, unsigned int c, unsigned int counter)
{
	return (__u64 *)((char *)ds + NDS_NEURONCORE_COUNTERS_START +
			  (c * NDS_NEURONCORE_COUNTERS_COUNT + counter) * 8);
}

/* The 64-bit per-device counter @counter of a datastore. */
static __u64 *nds_nd(void *ds, unsigned int counter)
{
	return (__u64 *)((char *)ds + NDS_ND_COUNTERS_START + counter * 8);
}

static long alloc_v2mt(int fd, __u64 size, __u32 hbm, __u32 nc, __u32 type, __u64 *h)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type a = {
		.size = size, .dram_channel = hbm, .nc_id = nc, .mem_type = type, .mem_handle = h,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2MT, &a);
}

/* MEM_GET_INFO of @h: its mmap offset and address. */
static long mem_info(int fd, __u64 h, __u64 *off, __u64 *pa)
{
	struct neuron_ioctl_mem_get_info a = { .mem_handle = h, .mmap_offset = off, .pa = pa };

	return xioctl(fd, NEURON_IOCTL_MEM_GET_INFO, &a);
}

/* NOTIFICATIONS_INIT_V2 of a queue of core @nc. */
static long nq_init(int fd, __u32 nc, __u32 type, __u32 engine, int host, __u32 hbm,
		    __u64 *off, __u64 *h)
{
	struct neuron_ioctl_notifications_init_v2 a = {
		.nq_dev_id = nc, .nq_dev_type = NQ_DEVICE_TYPE_NEURON_CORE, .nq_type = type,
		.engine_index = engine, .size = QSZ, .on_host_memory = host, .dram_channel = hbm,
		.mmap_offset = 0xa5a5a5a5a5a5a5a5ULL, .mem_handle = 0,
	};
	long ret = xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, &a);

	*off = a.mmap_offset;
	*h = a.mem_handle;
	return ret;
}

/* The value of (@nc, @idx) in file @name: 0 and *@v, -ENOENT when not listed (0), -errno. */
static int sim_value(int dev, const char *name, unsigned int nc, unsigned int idx, long long *v)
{
	struct sval s[64];
	int n = sim_list(dev, name, s, 64), i;

	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (s[i].nc == nc && s[i].idx == idx) {
			*v = s[i].v;
			return 0;
		}
	}
	return -ENOENT;
}

static int all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* The model run                                                       */
/* ------------------------------------------------------------------ */

/**
 * struct run_cfg - one run
 * @dev: device index (and simulator id)
 * @g: its generation
 * @ndev: devices on the host, indexes 0..@ndev-1
 * @ncpd0: cores of device 0, which numbers host-wide cores for the misc file
 * @core: the core the mark must give: the first free one of the device
 * @seed: the run's random numbers
 * @stamp: what the run publishes in its datastore (and sets its event to)
 * @uuid: the model
 * @pause_at: after this step, report and wait for a byte on @down (0: never)
 * @up: pipe to the parent for reports (-1: none)
 * @down: pipe from the parent
 */
struct run_cfg {
	int dev;
	const struct gen_info *g;
	int ndev;
	unsigned int ncpd0;
	unsigned int core;
	__u64 seed;
	__u64 stamp;
	struct neuron_uuid uuid;
	int pause_at;
	int up;
	int down;
};

/* What a run tells the parent: at its pause and when it is done (@steps 10). */
struct run_report {
	__s32 pid;
	__u32 steps;
	__u64 ds_off;
	__u64 hq_pa;
	__u64 dq_pa;
};

/* The event value of a run: the stamp's low half, never 0. */
static __u32 ev_value(__u64 stamp)
{
	return (__u32)stamp | 1;
}

#define RUN_CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "# run %d (device %d core %u), step %d, line %d: %s\n", \
			getpid(), cfg->dev, cfg->core, step, __LINE__, #cond);	\
		fails++;							\
	}									\
} while (0)

/* An ioctl or call that must give @want; its value is printed when it does not. */
#define RUN_EQ(want, expr) do {							\
	long __w = (long)(want), __r = (long)(expr);				\
	if (__r != __w) {							\
		fprintf(stderr, "# run %d (device %d core %u), step %d, line %d: "	\
			"%s: %ld, want %ld\n", getpid(), cfg->dev, cfg->core, step,	\
			__LINE__, #expr, __r, __w);				\
		fails++;							\
	}									\
} while (0)

/* A condition the rest of the run needs: true (said on stderr) when it does not hold. */
#define RUN_NEED(cond)	run_lacks(cfg, step, __LINE__, !!(cond), #cond)

static int run_lacks(const struct run_cfg *cfg, int step, int line, int ok, const char *what)
{
	if (!ok)
		fprintf(stderr, "# run %d (device %d core %u), step %d, line %d: %s: giving up\n",
			getpid(), cfg->dev, cfg->core, step, line, what);
	return !ok;
}

/* Report to the parent after step @step; at the pause, wait for its byte. */
static int run_sync(const struct run_cfg *cfg, struct run_report *rep, int step)
{
	if (cfg->up < 0 || (step != cfg->pause_at && step != STEPS))
		return 0;
	rep->steps = step;
	if (write(cfg->up, rep, sizeof(*rep)) != sizeof(*rep))
		return -1;
	return step == cfg->pause_at ? wait_byte(cfg->down) : 0;
}

/*
 * One entry: the run, as the device, injects it into the queue in slot
 * @slot (its head first read through BAR_READ) and checks that the head
 * moved past it.  The entry's place in the ring goes to *@at.
 */
static int inject_one(const struct run_cfg *cfg, int fd, __u64 bar, unsigned int slot,
		      const __u32 w[ENTRY_WORDS], __u32 *at)
{
	__u64 block = cfg->g->nq_block[cfg->core];
	__u32 v[4], head;

	if (nq_slot(fd, bar, block, slot, v) || v[2] != QSZ || v[3] >= QSZ || v[3] % 4) {
		fprintf(stderr, "# run %d: slot %u before injecting: size %#x head %#x\n",
			getpid(), slot, v[2], v[3]);
		return -1;
	}
	head = v[3];
	if (nq_inject(cfg->dev, block, slot, w, ENTRY_WORDS)) {
		fprintf(stderr, "# run %d: nq_inject into slot %u refused\n", getpid(), slot);
		return -1;
	}
	if (nq_slot(fd, bar, block, slot, v) || v[3] != (head + 4 * ENTRY_WORDS) % QSZ) {
		fprintf(stderr, "# run %d: slot %u head %#x after injecting at %#x\n", getpid(),
			slot, v[3], head);
		return -1;
	}
	*at = head;
	return 0;
}

/* Whether the ring @ring holds @w at byte offset @at (wrapping). */
static int ring_has(const void *ring, __u32 at, const __u32 w[ENTRY_WORDS])
{
	const __u32 *r = ring;
	unsigned int k;

	for (k = 0; k < ENTRY_WORDS; k++)
		if (__atomic_load_n(&r[((at + 4 * k) % QSZ) / 4], __ATOMIC_ACQUIRE) != w[k])
			return 0;
	return 1;
}

/* The run; the number of failed checks (for the exit status of its process). */
static int model_run(const struct run_cfg *cfg)
{
	const struct gen_info *g = cfg->g;
	unsigned int gcore = cfg->dev * cfg->ncpd0 + cfg->core, hbm = cfg->core % g->nhbm;
	__u64 block = g->nq_block[cfg->core];
	struct neuron_ioctl_host_device_id_to_rid_map rid;
	struct neuron_ioctl_device_driver_info di;
	struct neuron_ioctl_pod_status_v2 ps;
	struct neuron_ioctl_pod_ctrl_v2 pc;
	struct neuron_ioctl_resource_mmap_info ri;
	static unsigned char data[DATA_SZ], back[DATA_SZ], qbuf[QSZ];
	struct run_report rep = { .pid = getpid() };
	__u64 bits[8], dh = 0, hqh = 0, dqh = 0, hq_off, dq_off, bar = 0, info_off;
	__u32 max = 0, ns = 0, v[4], at, w[ENTRY_WORDS], val;
	int misc, fd, fails = 0, step = 0, i;
	unsigned char *hq, *ds;
	long long lv;
	void *p;

	rng_state = cfg->seed;

	/* 1: the misc file, the pod, the device map, the driver's features. */
	step = 1;
	misc = open_node(0, O_WRONLY);
	if (RUN_NEED(misc >= 0))
		return child_status(fails + 1);
	memset(&ps, 0xa5, sizeof(ps));
	ps.v1.sz = sizeof(ps);
	RUN_EQ(0, xioctl(misc, NEURON_IOCTL_POD_STATUS_V2, &ps));
	RUN_CHECK(ps.v1.state == NEURON_POD_E_STATE_SINGLE_NODE);
	RUN_CHECK(ps.mode == NEURON_ULTRASERVER_MODE_UNSET);
	memset(&pc, 0, sizeof(pc));
	pc.v1.sz = sizeof(pc);
	pc.v1.ctrl = NEURON_NPE_POD_CTRL_SET_MODE;
	pc.mode = NEURON_ULTRASERVER_MODE_UNSET;
	RUN_EQ(0, xioctl(misc, NEURON_IOCTL_POD_CTRL_V2, &pc));
	memset(&rid, 0xa5, sizeof(rid));
	RUN_EQ(0, xioctl(misc, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &rid));
	RUN_EQ(cfg->ndev, rid.count);
	for (i = 0; i < cfg->ndev; i++)
		RUN_EQ(i, rid.host_did_to_rid_map[i]);
	memset(&di, 0, sizeof(di));
	RUN_EQ(0, xioctl(misc, NEURON_IOCTL_DRIVER_INFO_GET, &di));
	RUN_CHECK(di.feature_flags1 & NEURON_DRIVER_FEATURE_BIG_CORE_MAPS);
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 2: one core of the device, host-wide numbers: the first free one. */
	step = 2;
	RUN_EQ(0, mark_ext(misc, 1, cfg->dev * cfg->ncpd0, cfg->dev * cfg->ncpd0 + g->ncs - 1,
			   bits, &max));
	if (RUN_NEED(only_bit(bits, gcore)))
		return child_status(fails + 1);
	RUN_CHECK(max >= 1 && max <= g->ncs);
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 3: attach, reset the core, become its initialiser, scrub its channel. */
	step = 3;
	fd = open_node(cfg->dev, O_RDWR);
	if (RUN_NEED(fd >= 0))
		return child_status(fails + 1);
	RUN_EQ(0, bar_base(fd, &bar));
	RUN_EQ(0, reset_cores(fd, 1U << cfg->core));
	RUN_EQ(0, cinit(fd, cfg->core, CI_STARTED, &ns));
	RUN_EQ(CI_STARTED, ns);
	{
		struct neuron_ioctl_hbm_scrub_start ss = {
			.nc_id = cfg->core, .hbm_index = hbm, .init_val = SCRUB_PAT,
		};
		struct neuron_ioctl_hbm_scrub_wait sw = { .nc_id = cfg->core, .hbm_index = hbm };

		RUN_EQ(0, xioctl(fd, NEURON_IOCTL_HBM_SCRUB_START, &ss));
		RUN_EQ(0, xioctl(fd, NEURON_IOCTL_HBM_SCRUB_WAIT, &sw));
	}
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 4: device memory, scrubbed; data in and back. */
	step = 4;
	RUN_EQ(0, alloc_v2mt(fd, DATA_SZ, hbm, cfg->core, NEURON_MEMALLOC_TYPE_TENSORS_DEVICE,
			     &dh));
	if (RUN_NEED(dh != 0))
		return child_status(fails + 1);
	memset(back, 0, sizeof(back));
	RUN_EQ(0, buf_copy(fd, 1, dh, back, DATA_SZ, 0, 0));
	RUN_EQ(0, not_pattern(back, DATA_SZ, SCRUB_PAT));
	rnd_fill(data, sizeof(data));
	RUN_EQ(0, buf_copy(fd, 1, dh, data, DATA_SZ, 0, 1));
	memset(back, 0, sizeof(back));
	RUN_EQ(0, buf_copy(fd, 0, dh, back, DATA_SZ, 0, 0));
	RUN_CHECK(!memcmp(data, back, DATA_SZ));
	rnd_fill(data, 100);
	RUN_EQ(0, buf_copy(fd, 1, dh, data, 100, 4093, 1));
	RUN_EQ(0, buf_copy(fd, 0, dh, back, 100, 4093, 0));
	RUN_CHECK(!memcmp(data, back, 100));
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 5: the core's queues: one in host memory (mapped), one in device memory. */
	step = 5;
	RUN_EQ(0, nq_init(fd, cfg->core, HQ_TYPE, HQ_ENGINE, 1, 0, &hq_off, &hqh));
	if (RUN_NEED(hqh != 0))
		return child_status(fails + 1);
	RUN_EQ(0, nq_init(fd, cfg->core, DQ_TYPE, DQ_ENGINE, 0, hbm, &dq_off, &dqh));
	if (RUN_NEED(dqh != 0))
		return child_status(fails + 1);
	RUN_CHECK(dq_off == ~0ULL);
	RUN_EQ(0, mem_info(fd, hqh, &info_off, &rep.hq_pa));
	RUN_CHECK(info_off == hq_off && rep.hq_pa == hq_off);
	RUN_EQ(0, mem_info(fd, dqh, &info_off, &rep.dq_pa));
	hq = mmap(NULL, QSZ, RW, MAP_SHARED, fd, (off_t)hq_off);
	if (RUN_NEED(hq != MAP_FAILED))
		return child_status(fails + 1);
	RUN_EQ(0, nq_slot(fd, bar, block, HQ_ENGINE, v));
	RUN_CHECK(v[0] == (__u32)rep.hq_pa && v[1] == rep.hq_pa >> 32 && v[2] == QSZ);
	RUN_EQ(0, nq_slot(fd, bar, block, DQ_ENGINE, v));
	RUN_CHECK(v[0] == (__u32)rep.dq_pa && v[1] == rep.dq_pa >> 32 && v[2] == QSZ);
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 6: the core's semaphore window: known, not mappable on a simulated device. */
	step = 6;
	memset(&ri, 0, sizeof(ri));
	ri.block = NEURON_DM_BLOCK_TPB;
	ri.block_id = cfg->core;
	ri.resource = NEURON_DM_RESOURCE_SEMAPHORE;
	RUN_EQ(0, xioctl(fd, NEURON_IOCTL_RESOURCE_MMAP_INFO, &ri));
	RUN_EQ(TPB_SEM_SIZE, ri.size);
	p = mmap(NULL, ri.size, RW, MAP_SHARED, fd, (off_t)ri.offset);
	i = p == MAP_FAILED ? errno : 0;
	RUN_EQ(EOPNOTSUPP, i);
	if (p != MAP_FAILED)
		munmap(p, ri.size);
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 7: the datastore: zeroed, mapped read-write, the runtime's counters. */
	step = 7;
	RUN_EQ(0, ds_acquire(fd, 0, &rep.ds_off));
	ds = mmap(NULL, DS_SIZE, RW, MAP_SHARED, fd, (off_t)rep.ds_off);
	if (RUN_NEED(ds != MAP_FAILED))
		return child_status(fails + 1);
	RUN_CHECK(all_zero(ds, DS_SIZE));
	*nds_nd(ds, NDS_ND_COUNTER_RUNTIME_VERSION) = cfg->stamp;
	*nds_nc(ds, cfg->core, NDS_NC_COUNTER_MODEL_LOAD_COUNT) = 1;
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 8: the model lock, taken and downgraded; the core initialised. */
	step = 8;
	RUN_EQ(0, crwl(fd, W_ENTER, cfg->core, &cfg->uuid));
	RUN_EQ(0, crwl(fd, W_DOWN, cfg->core, &cfg->uuid));
	RUN_EQ(0, cinit(fd, cfg->core, CI_COMPLETED, &ns));
	RUN_EQ(CI_COMPLETED, ns);
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 9: executions: completions in both queues, a semaphore, an event, the counters. */
	step = 9;
	RUN_EQ(0, sem_do(fd, NEURON_IOCTL_SEMAPHORE_WRITE, cfg->core, SEM_IDX, 0));
	for (i = 0; i < NEXEC; i++) {
		w[0] = 0xc0de0000 | i;
		w[1] = cfg->core;
		w[2] = (__u32)cfg->stamp;
		w[3] = (__u32)rnd();
		if (RUN_NEED(inject_one(cfg, fd, bar, HQ_ENGINE, w, &at) == 0))
			return child_status(fails + 1);
		RUN_CHECK(ring_has(hq, at, w));
		w[0] ^= 0x00ff0000;
		if (RUN_NEED(inject_one(cfg, fd, bar, DQ_ENGINE, w, &at) == 0))
			return child_status(fails + 1);
		RUN_EQ(0, buf_copy(fd, 1, dqh, qbuf, QSZ, 0, 0));
		RUN_CHECK(ring_has(qbuf, at, w));
		RUN_EQ(0, sem_do(fd, NEURON_IOCTL_SEMAPHORE_INCREMENT, cfg->core, SEM_IDX, 1));
		(*nds_nc(ds, cfg->core, NDS_NC_COUNTER_INFERENCE_COUNT))++;
	}
	val = 0;
	RUN_EQ(0, sem(fd, NEURON_IOCTL_SEMAPHORE_READ, cfg->core, SEM_IDX, &val));
	RUN_EQ(NEXEC, val);
	RUN_EQ(0, sem_do(fd, NEURON_IOCTL_EVENT_SET, cfg->core, EV_IDX, ev_value(cfg->stamp)));
	val = 0;
	RUN_EQ(0, sem(fd, NEURON_IOCTL_EVENT_GET, cfg->core, EV_IDX, &val));
	RUN_CHECK(val == ev_value(cfg->stamp));
	lv = -1;
	RUN_EQ(0, sim_value(cfg->dev, "semaphores", cfg->core, SEM_IDX, &lv));
	RUN_EQ(NEXEC, lv);
	lv = -1;
	RUN_EQ(0, sim_value(cfg->dev, "events", cfg->core, EV_IDX, &lv));
	RUN_CHECK(lv == ev_value(cfg->stamp));
	RUN_CHECK(*nds_nc(ds, cfg->core, NDS_NC_COUNTER_INFERENCE_COUNT) == NEXEC);
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);

	/* 10: tear down, as the runtime does. */
	step = 10;
	RUN_EQ(0, crwl(fd, R_EXIT, cfg->core, &cfg->uuid));
	RUN_EQ(0, ds_release(fd, 0));
	RUN_EQ(0, munmap(ds, DS_SIZE));
	RUN_EQ(0, munmap(hq, QSZ));
	RUN_EQ(0, mem_free(fd, dh));
	/* A queue's handle: MEM_FREE drops the handle, the queue stays. */
	RUN_EQ(0, mem_free(fd, hqh));
	RUN_EQ(0, mem_free(fd, dqh));
	RUN_EQ(0, nq_slot(fd, bar, block, HQ_ENGINE, v));
	RUN_CHECK(v[2] == QSZ);
	RUN_EQ(0, close(fd));
	RUN_EQ(0, unmark_one(misc, gcore));
	RUN_EQ(0, close(misc));
	if (RUN_NEED(run_sync(cfg, &rep, step) == 0))
		return child_status(fails + 1);
	return child_status(fails);
}

/* ------------------------------------------------------------------ */
/* The host                                                            */
/* ------------------------------------------------------------------ */

/**
 * struct host - the devices of a test and this process's files
 * @ndev: devices, indexes (and simulator ids) 0..@ndev-1
 * @g: their generations
 * @fd: their normal files (this process is attached)
 * @w0: /dev/neuron0's misc file
 * @bar: BAR_READ bases
 * @base: memory counters at the start
 * @undo: children and mappings
 * @t0: ms, when the setup started
 */
struct host {
	int ndev;
	const struct gen_info *g[MAX_DEVS];
	int fd[MAX_DEVS];
	int w0;
	__u64 bar[MAX_DEVS];
	struct mcount base[MAX_DEVS];
	struct undo undo;
	long t0;
};

static void host_up(struct __test_metadata *_metadata, struct host *h,
		    const struct gen_info *const *gens, int ndev)
{
	int d;

	memset(h, 0, sizeof(*h));
	h->t0 = nt_now_ms();
	h->ndev = ndev;
	h->w0 = -1;
	for (d = 0; d < MAX_DEVS; d++)
		h->fd[d] = -1;
	/* Fixed seed: data, model ids and stamps are the same every run. */
	rng_state = 0x4d0de1f00d5eed42ULL;

	ASSERT_EQ(0, nt_driver_up("", SIM_ARGS));
	for (d = 0; d < ndev; d++) {
		h->g[d] = gens[d];
		ASSERT_EQ(0, nt_sim_add(d, gens[d]->name));
	}
	for (d = 0; d < ndev; d++) {
		sim_device_ready(_metadata, d, gens[d]->ncs, SETTLE_MS);
		h->fd[d] = open_node(d, O_RDWR);
		ASSERT_LE(0, h->fd[d]);
		ASSERT_EQ(0, bar_base(h->fd[d], &h->bar[d]));
		ASSERT_EQ(0, mcount_read(d, &h->base[d]));
	}
	h->w0 = open_node(0, O_WRONLY);
	ASSERT_LE(0, h->w0);
}

static void host_down(struct __test_metadata *_metadata, struct host *h)
{
	int d;

	kill_kids(&h->undo);
	unmap_all(&h->undo);
	for (d = 0; d < MAX_DEVS; d++)
		if (h->fd[d] >= 0)
			close(h->fd[d]);
	if (h->w0 >= 0)
		close(h->w0);
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - h->t0) / 1000.0);
}

/* A run's configuration: device @dev, core @core, random ids from this process's seed. */
static struct run_cfg run_cfg(const struct host *h, int dev, unsigned int core)
{
	struct run_cfg c = {
		.dev = dev, .g = h->g[dev], .ndev = h->ndev, .ncpd0 = h->g[0]->ncs,
		.core = core, .up = -1, .down = -1,
	};

	c.seed = rnd() | 1;
	c.stamp = rnd();
	rnd_fill(c.uuid.value, sizeof(c.uuid.value));
	return c;
}

/* A run in a forked process that reports on a pipe; *@up gets the read end. */
static pid_t start_run(struct __test_metadata *_metadata, struct host *h, struct run_cfg *c,
		       int *up, int *down)
{
	int u[2], d[2];
	pid_t pid;

	if (pipe(u) || pipe(d))
		return -1;
	c->up = u[1];
	c->down = d[0];
	pid = spawn(_metadata, &h->undo);
	if (pid == 0) {
		close(u[0]);
		close(d[1]);
		_exit(model_run(c));
	}
	/* Only the child holds the write end: its end is EOF here. */
	close(u[1]);
	close(d[0]);
	c->up = -1;
	c->down = -1;
	*up = u[0];
	*down = d[1];
	return pid;
}

/* The counters of device @dev become @want within RELEASE_MS; checked. */
static void counts_become(struct __test_metadata *_metadata, int dev, const struct mcount *want,
			  const char *what)
{
	mcount_reach(dev, want, RELEASE_MS);
	check_counts(_metadata, dev, want, what);
}

/* @base plus what is live after step @k of a run (@alive) or after its process went. */
static struct mcount counts_after(const struct mcount *base, int k, int alive)
{
	struct mcount m = *base;

	if (alive && k >= 4) {
		m.device_bytes += DATA_SZ;
		m.chunks++;
		m.handles++;
	}
	if (k >= 5) {
		/* The two queues; their handles go with their process. */
		m.host_bytes += QSZ;
		m.device_bytes += QSZ;
		m.chunks += 2;
		if (alive && k < STEPS)
			m.handles += 2;
	}
	if (alive && k >= 7 && k < STEPS) {
		m.host_bytes += DS_SIZE;
		m.chunks++;
	}
	return m;
}

/*
 * The core's queues' slot registers: pointing at the run's queues (@rep),
 * or halted (size 0, address 0) for @rep NULL.
 */
static void expect_slots(struct __test_metadata *_metadata, struct host *h, int dev,
			 unsigned int core, const struct run_report *rep, const char *what)
{
	static const unsigned int slots[] = { HQ_ENGINE, DQ_ENGINE };
	__u64 block = h->g[dev]->nq_block[core], want;
	unsigned int i;
	__u32 v[4];

	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		ASSERT_EQ(0, nq_slot(h->fd[dev], h->bar[dev], block, slots[i], v));
		want = !rep ? 0 : i == 0 ? rep->hq_pa : rep->dq_pa;
		EXPECT_EQ((__u32)want, v[0]) TH_LOG("%s: slot %u base low", what, slots[i]);
		EXPECT_EQ((__u32)(want >> 32), v[1])
			TH_LOG("%s: slot %u base high", what, slots[i]);
		EXPECT_EQ(rep ? QSZ : 0, v[2]) TH_LOG("%s: slot %u size", what, slots[i]);
	}
}

/*
 * What a run that got through step @k (STEPS: all of them) leaves on core
 * @core of device @dev once its process @pid is gone: no mark and no reset
 * hold, a free model lock, the core INVALID again unless the run completed
 * its initialisation, no datastore entry.  This process initialises the
 * core when it finds it INVALID, and releases the lock it takes.
 */
static void expect_released(struct __test_metadata *_metadata, struct host *h, int dev,
			    unsigned int core, pid_t pid, int k, const char *what)
{
	unsigned int g = dev * h->g[0]->ncs + core;
	struct neuron_uuid u;
	__u64 bits[8], off;
	long t, ret;
	__u32 ns;

	EXPECT_EQ(-ENOENT, pid_dump(h->w0, g)) TH_LOG("%s: the core is still held", what);
	ret = mark_ext(h->w0, 1, g, g, bits, NULL);
	EXPECT_EQ(0, ret) TH_LOG("%s: the core cannot be marked", what);
	if (!ret) {
		EXPECT_TRUE(only_bit(bits, g)) TH_LOG("%s: mark bitmap", what);
		EXPECT_EQ(0, unmark_one(h->w0, g));
	}

	rnd_fill(u.value, sizeof(u.value));
	t = nt_now_ms();
	ret = crwl(h->fd[dev], W_ENTER, core, &u);
	t = nt_now_ms() - t;
	EXPECT_EQ(0, ret) TH_LOG("%s: WRITER_ENTER after %ld ms", what, t);
	EXPECT_GT(1000, t) TH_LOG("%s: WRITER_ENTER waited", what);
	if (!ret) {
		EXPECT_EQ(0, crwl(h->fd[dev], W_DOWN, core, &u));
		EXPECT_EQ(0, crwl(h->fd[dev], R_EXIT, core, &u));
	}

	t = nt_now_ms();
	ret = cinit(h->fd[dev], core, CI_STARTED, &ns);
	t = nt_now_ms() - t;
	EXPECT_EQ(0, ret) TH_LOG("%s: CINIT STARTED", what);
	EXPECT_EQ(k >= 8 ? CI_COMPLETED : CI_STARTED, ns) TH_LOG("%s: init state", what);
	EXPECT_GT(1000, t) TH_LOG("%s: CINIT STARTED waited %ld ms", what, t);
	if (!ret && ns == CI_STARTED) {
		EXPECT_EQ(0, cinit(h->fd[dev], core, CI_COMPLETED, &ns));
		EXPECT_EQ(CI_COMPLETED, ns);
	}

	EXPECT_EQ(-ENOENT, ds_acquire(h->fd[dev], pid, &off)) TH_LOG("%s: datastore entry", what);
}

/*
 * Reset cores @map of device @dev from a process that goes at once (a
 * reset holds the cores until its process detaches): their queues are
 * halted and freed, and the counters are back at the start.
 */
static void reset_and_check(struct __test_metadata *_metadata, struct host *h, int dev,
			    __u32 map, const char *what)
{
	char buf[128];
	unsigned int c;
	pid_t pid;

	pid = spawn(_metadata, &h->undo);
	if (pid == 0) {
		int fd = open_node(dev, O_RDWR);

		_exit(fd >= 0 && reset_cores(fd, map) == 0 ? 0 : 1);
	}
	ASSERT_EQ(0, reap(&h->undo, pid)) TH_LOG("%s: reset of cores %#x", what, map);
	for (c = 0; c < h->g[dev]->ncs; c++) {
		if (map & 1U << c) {
			snprintf(buf, sizeof(buf), "%s, core %u reset", what, c);
			expect_slots(_metadata, h, dev, c, NULL, buf);
		}
	}
	snprintf(buf, sizeof(buf), "%s, queues released by the reset", what);
	counts_become(_metadata, dev, &h->base[dev], buf);
}

/* The simulator's file @name of device @dev lists exactly @n values @want. */
static void expect_sim_list(struct __test_metadata *_metadata, int dev, const char *name,
			    const struct sval *want, int n)
{
	struct sval got[64];
	int cnt, k, i, found;

	cnt = sim_list(dev, name, got, 64);
	ASSERT_LE(0, cnt) TH_LOG("%s of device %d", name, dev);
	EXPECT_EQ(n, cnt) TH_LOG("%s of device %d: entries", name, dev);
	for (i = 0; i < n; i++) {
		found = 0;
		for (k = 0; k < cnt && !found; k++)
			found = got[k].nc == want[i].nc && got[k].idx == want[i].idx &&
				got[k].v == want[i].v;
		EXPECT_TRUE(found) TH_LOG("%s of device %d: %u %u %lld missing", name, dev,
					  want[i].nc, want[i].idx, want[i].v);
	}
}

/* The pid and report of a finished run, and its exit status. */
static void expect_finished(struct __test_metadata *_metadata, struct host *h, pid_t pid,
			    int up, struct run_report *rep, const char *what)
{
	EXPECT_EQ(0, reap(&h->undo, pid)) TH_LOG("%s: the run failed", what);
	memset(rep, 0, sizeof(*rep));
	EXPECT_EQ(0, read_full(up, rep, sizeof(*rep))) TH_LOG("%s: no report", what);
	EXPECT_EQ(STEPS, rep->steps) TH_LOG("%s: steps", what);
	EXPECT_EQ(pid, rep->pid);
}

/* ------------------------------------------------------------------ */
/* One device of each generation                                       */
/* ------------------------------------------------------------------ */

FIXTURE(one) {
	struct host h;
};

FIXTURE_VARIANT(one) {
	const struct gen_info *g;
};

FIXTURE_VARIANT_ADD(one, v2) { .g = &gen_v2 };
FIXTURE_VARIANT_ADD(one, v3) { .g = &gen_v3 };
FIXTURE_VARIANT_ADD(one, v4) { .g = &gen_v4 };

FIXTURE_SETUP(one)
{
	host_up(_metadata, &self->h, &variant->g, 1);
}

FIXTURE_TEARDOWN(one)
{
	host_down(_metadata, &self->h);
}

/*
 * The model run on core 0 of the only device; what it leaves: the queues
 * (until the reset), the semaphore and event on the device, nothing else.
 */
TEST_F_TIMEOUT(one, single, 300)
{
	struct host *h = &self->h;
	struct run_cfg c = run_cfg(h, 0, 0);
	struct run_report rep;
	struct mcount want;
	struct sval sv = { 0, SEM_IDX, NEXEC }, ev = { 0, EV_IDX, ev_value(c.stamp) };
	int up, down;
	pid_t pid;

	pid = start_run(_metadata, h, &c, &up, &down);
	ASSERT_LT(0, pid);
	expect_finished(_metadata, h, pid, up, &rep, "the run");
	expect_released(_metadata, h, 0, 0, pid, STEPS, "after the run");
	expect_slots(_metadata, h, 0, 0, &rep, "after the run");
	want = counts_after(&h->base[0], STEPS, 0);
	counts_become(_metadata, 0, &want, "after the run: its queues left");
	expect_sim_list(_metadata, 0, "semaphores", &sv, 1);
	expect_sim_list(_metadata, 0, "events", &ev, 1);
	reset_and_check(_metadata, h, 0, 1, "after the run");
	close(up);
	close(down);
}

/* ------------------------------------------------------------------ */
/* A host with a v3 device (index 0) and a v4 device (index 1)         */
/* ------------------------------------------------------------------ */

static const struct gen_info *const mixed_gens[MAX_DEVS] = { &gen_v3, &gen_v4 };

FIXTURE(host) {
	struct host h;
};

FIXTURE_SETUP(host)
{
	host_up(_metadata, &self->h, mixed_gens, MAX_DEVS);
}

FIXTURE_TEARDOWN(host)
{
	host_down(_metadata, &self->h);
}

/* A run on each device at the same time; each device sees only its own. */
TEST_F_TIMEOUT(host, mixed, 300)
{
	struct host *h = &self->h;
	struct run_cfg c[MAX_DEVS];
	struct run_report rep[MAX_DEVS];
	int up[MAX_DEVS], go[2], u[2], d;
	pid_t pid[MAX_DEVS];
	struct mcount want;
	struct sval sv, ev;
	char what[64];

	/* Both wait for the start, so that they run side by side. */
	ASSERT_EQ(0, pipe(go));
	for (d = 0; d < MAX_DEVS; d++) {
		c[d] = run_cfg(h, d, 0);
		ASSERT_EQ(0, pipe(u));
		pid[d] = spawn(_metadata, &h->undo);
		if (pid[d] == 0) {
			close(u[0]);
			close(go[1]);
			c[d].up = u[1];
			if (wait_byte(go[0]))
				_exit(100);
			_exit(model_run(&c[d]));
		}
		close(u[1]);
		up[d] = u[0];
	}
	close(go[0]);
	for (d = 0; d < MAX_DEVS; d++)
		ASSERT_EQ(0, signal_byte(go[1]));
	close(go[1]);

	for (d = 0; d < MAX_DEVS; d++) {
		snprintf(what, sizeof(what), "the run on device %d (%s)", d, h->g[d]->name);
		expect_finished(_metadata, h, pid[d], up[d], &rep[d], what);
		close(up[d]);
	}
	/* Each device's queues, not the other's. */
	EXPECT_NE(rep[0].hq_pa, rep[1].hq_pa);
	for (d = 0; d < MAX_DEVS; d++) {
		snprintf(what, sizeof(what), "device %d after its run", d);
		expect_released(_metadata, h, d, 0, pid[d], STEPS, what);
		expect_slots(_metadata, h, d, 0, &rep[d], what);
		want = counts_after(&h->base[d], STEPS, 0);
		counts_become(_metadata, d, &want, what);
		sv = (struct sval){ 0, SEM_IDX, NEXEC };
		ev = (struct sval){ 0, EV_IDX, ev_value(c[d].stamp) };
		expect_sim_list(_metadata, d, "semaphores", &sv, 1);
		expect_sim_list(_metadata, d, "events", &ev, 1);
		reset_and_check(_metadata, h, d, 1, what);
	}
}

/*
 * A second process while the first is between its initialisation start
 * and completion (device 1, core 0 held, queues and datastore set up): the
 * first's core is busy, the second runs on core 1; a third waits for the
 * first's initialisation and sees it completed; a monitor reads the
 * first's datastore read-only.
 */
TEST_F_TIMEOUT(host, second_process, 300)
{
	struct host *h = &self->h;
	const int dev = 1;
	const unsigned int g0 = dev * h->g[0]->ncs;
	struct run_cfg c1 = run_cfg(h, dev, 0), c2 = run_cfg(h, dev, 1);
	struct run_report r1, r2;
	int up1, down1, u2[2], ready[2], st;
	pid_t p1, p2, p3, mon;
	struct mcount want;
	struct sval sv[2], ev[2];

	/* Process 1 stops after its datastore is set up (step 7). */
	c1.pause_at = 7;
	p1 = start_run(_metadata, h, &c1, &up1, &down1);
	ASSERT_LT(0, p1);
	ASSERT_EQ(0, read_full(up1, &r1, sizeof(r1))) TH_LOG("process 1 did not get to step 7");
	ASSERT_EQ(7, r1.steps);
	EXPECT_EQ(0, pid_dump(h->w0, g0)) TH_LOG("process 1's core");

	/* Process 2: process 1's core is busy; another one is not, and a whole run works there. */
	ASSERT_EQ(0, pipe(u2));
	p2 = spawn(_metadata, &h->undo);
	if (p2 == 0) {
		int misc = open_node(0, O_WRONLY), fails = 0;
		__u64 bits[8];
		__u32 max = 7;

		close(u2[0]);
		CHILD_CHECK(misc >= 0);
		CHILD_CHECK(mark_ext(misc, 1, g0, g0, bits, &max) == -EBUSY);
		CHILD_CHECK(all_zero(bits, sizeof(bits)) && max == 0);
		close(misc);
		c2.up = u2[1];
		fails += model_run(&c2);
		_exit(child_status(fails));
	}
	close(u2[1]);
	expect_finished(_metadata, h, p2, u2[0], &r2, "process 2");
	close(u2[0]);
	EXPECT_EQ(0, pid_dump(h->w0, g0)) TH_LOG("process 1's core, process 2 gone");

	/* A monitor of the same user: process 1's datastore, read-only, as process 1 wrote it. */
	mon = spawn(_metadata, &h->undo);
	if (mon == 0) {
		int fd = open_node(dev, O_RDWR), fails = 0;
		__u64 off = 0;
		void *ds, *rw;

		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(ds_acquire(fd, p1, &off) == 0 && off == r1.ds_off);
		ds = mmap(NULL, DS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)off);
		CHILD_CHECK(ds != MAP_FAILED);
		if (ds != MAP_FAILED) {
			CHILD_CHECK(*nds_nd(ds, NDS_ND_COUNTER_RUNTIME_VERSION) == c1.stamp);
			CHILD_CHECK(*nds_nc(ds, 0, NDS_NC_COUNTER_MODEL_LOAD_COUNT) == 1);
		}
		rw = mmap(NULL, DS_SIZE, RW, MAP_SHARED, fd, (off_t)off);
		CHILD_CHECK(rw == MAP_FAILED && errno == EACCES);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&h->undo, mon)) TH_LOG("the monitor");

	/* Process 3 waits for process 1's initialisation... */
	ASSERT_EQ(0, pipe(ready));
	p3 = spawn(_metadata, &h->undo);
	if (p3 == 0) {
		int fd = open_node(dev, O_RDWR), fails = 0;
		__u32 ns = 0;

		close(ready[0]);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(signal_byte(ready[1]) == 0);
		CHILD_CHECK(cinit(fd, 0, CI_STARTED, &ns) == 0);
		CHILD_CHECK(ns == CI_COMPLETED);
		_exit(child_status(fails));
	}
	close(ready[1]);
	ASSERT_EQ(0, wait_byte(ready[0]));
	close(ready[0]);
	usleep(500000);
	EXPECT_EQ(0, waitpid(p3, &st, WNOHANG)) TH_LOG("process 3 did not wait");

	/* ...which process 1 completes now. */
	ASSERT_EQ(0, signal_byte(down1));
	EXPECT_EQ(0, reap(&h->undo, p3)) TH_LOG("process 3");
	expect_finished(_metadata, h, p1, up1, &r1, "process 1");

	expect_released(_metadata, h, dev, 0, p1, STEPS, "process 1's core");
	expect_released(_metadata, h, dev, 1, p2, STEPS, "process 2's core");
	expect_slots(_metadata, h, dev, 0, &r1, "process 1's queues");
	expect_slots(_metadata, h, dev, 1, &r2, "process 2's queues");
	/* Two runs' queues: twice what one run leaves. */
	want = counts_after(&h->base[dev], STEPS, 0);
	want.host_bytes += QSZ;
	want.device_bytes += QSZ;
	want.chunks += 2;
	counts_become(_metadata, dev, &want, "both runs' queues left");
	sv[0] = (struct sval){ 0, SEM_IDX, NEXEC };
	sv[1] = (struct sval){ 1, SEM_IDX, NEXEC };
	ev[0] = (struct sval){ 0, EV_IDX, ev_value(c1.stamp) };
	ev[1] = (struct sval){ 1, EV_IDX, ev_value(c2.stamp) };
	expect_sim_list(_metadata, dev, "semaphores", sv, 2);
	expect_sim_list(_metadata, dev, "events", ev, 2);
	reset_and_check(_metadata, h, dev, 3, "after both runs");
	close(up1);
	close(down1);
}

/*
 * For k = 1..9: a run on core 0 of the v3 device stops after step k and is
 * killed.  Alive, it holds what it made; dead, marks, reset hold, model
 * lock, datastore and memory go with it, the core's initialisation is
 * INVALID again unless it was completed, and its queues stay (slot
 * registers programmed, memory counted) until the core is reset.  The next
 * run starts on what is left; a last one runs to the end.
 */
TEST_F_TIMEOUT(host, kill_each_step, 900)
{
	struct host *h = &self->h;
	const int dev = 0;
	struct run_report rep;
	struct run_cfg c;
	struct mcount want;
	char what[96];
	__u64 bits[8], off;
	int k, up, down;
	unsigned char *ds;
	pid_t pid;
	long ret;

	ASSERT_EQ(&gen_v3, h->g[dev]);
	for (k = 1; k <= STEPS; k++) {
		c = run_cfg(h, dev, 0);
		c.pause_at = k < STEPS ? k : 0;
		pid = start_run(_metadata, h, &c, &up, &down);
		ASSERT_LT(0, pid);
		if (k == STEPS) {
			/* The last run goes to the end on what the killed ones left. */
			expect_finished(_metadata, h, pid, up, &rep, "the run after the kills");
			expect_released(_metadata, h, dev, 0, pid, k, "the run after the kills");
			expect_slots(_metadata, h, dev, 0, &rep, "the run after the kills");
			want = counts_after(&h->base[dev], k, 0);
			counts_become(_metadata, dev, &want, "the run after the kills");
			reset_and_check(_metadata, h, dev, 1, "the run after the kills");
			close(up);
			close(down);
			break;
		}

		memset(&rep, 0, sizeof(rep));
		ASSERT_EQ(0, read_full(up, &rep, sizeof(rep)))
			TH_LOG("the run did not get to step %d", k);
		ASSERT_EQ(k, rep.steps);

		/* Alive after step k: what it holds. */
		snprintf(what, sizeof(what), "alive after step %d", k);
		if (k >= 2) {
			EXPECT_EQ(0, pid_dump(h->w0, 0)) TH_LOG("%s: the core is not held", what);
			ret = mark_ext(h->w0, 1, 0, 0, bits, NULL);
			EXPECT_EQ(-EBUSY, ret) TH_LOG("%s: the core could be marked", what);
			if (!ret)
				unmark_one(h->w0, 0);
		} else {
			EXPECT_EQ(-ENOENT, pid_dump(h->w0, 0)) TH_LOG("%s: the core is held", what);
		}
		expect_slots(_metadata, h, dev, 0, k >= 5 ? &rep : NULL, what);
		if (k >= 7) {
			EXPECT_EQ(0, ds_acquire(h->fd[dev], pid, &off)) TH_LOG("%s", what);
			EXPECT_EQ(rep.ds_off, off);
			ds = mmap(NULL, DS_SIZE, PROT_READ, MAP_SHARED, h->fd[dev], (off_t)off);
			EXPECT_NE(MAP_FAILED, ds) TH_LOG("%s: the run's datastore", what);
			if (ds != MAP_FAILED) {
				EXPECT_EQ(c.stamp, *nds_nd(ds, NDS_ND_COUNTER_RUNTIME_VERSION));
				EXPECT_EQ(k >= 9 ? NEXEC : 0,
					  *nds_nc(ds, 0, NDS_NC_COUNTER_INFERENCE_COUNT));
				munmap(ds, DS_SIZE);
			}
		}
		want = counts_after(&h->base[dev], k, 1);
		counts_become(_metadata, dev, &want, what);

		kill(pid, SIGKILL);
		EXPECT_EQ(128 + SIGKILL, reap(&h->undo, pid))
			TH_LOG("the run stopped at step %d", k);
		close(up);
		close(down);

		/* Dead: released, but for the queues. */
		snprintf(what, sizeof(what), "killed after step %d", k);
		expect_released(_metadata, h, dev, 0, pid, k, what);
		expect_slots(_metadata, h, dev, 0, k >= 5 ? &rep : NULL, what);
		want = counts_after(&h->base[dev], k, 0);
		counts_become(_metadata, dev, &want, what);
		reset_and_check(_metadata, h, dev, 1, what);
	}
}

TEST_HARNESS_MAIN
