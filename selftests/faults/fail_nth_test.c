// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: fault injection on every command of /dev/neuronN (issue 17,
 * "Fault injection on every command"), the way the kernel's iommufd
 * selftests do it, on simulated v2 and v3 devices.
 *
 * Each case is one valid call of one command, with what it needs prepared
 * beforehand and undone afterwards.  For n = 1, 2, 3 ... the case prepares
 * its prerequisites, then writes n to /proc/thread-self/fail-nth, issues
 * the command, reads fail-nth back (0: the n-th fault point of the call
 * failed; non-zero: the call went past all of its fault points) and writes
 * 0.  The fault points are the slab (FAILSLAB) and the page allocator
 * (FAIL_PAGE_ALLOC), sleeping allocations included.  Then:
 *
 *  - not injected: the call must have succeeded (with correct outputs); it
 *    is undone and the case ends;
 *  - injected and failed: any errno (counted, printed at the end), and the
 *    state visible from user space must be what it was before the call:
 *    the device's memory counters (debugfs "memory"), its DMA counters
 *    (debugfs "dma": channels, async_channels, queue_shadow_bytes,
 *    dead_channels, dead_channel_pages, dead_queues), and the process's
 *    open files;
 *  - injected and succeeded: outputs checked, undone.
 *
 * Either way, once the case's preparation is undone too, the state is the
 * one before the preparation, and the device still answers.  The loop
 * gives up at FNTH_MAX.  Device creation (the simulator's new_device file)
 * and open() of the device node run the same way: a failed creation leaves
 * no device, no class device and no node, and the id can be created again.
 *
 * The cases cover every command that the ioctl suite's table
 * (selftests/lib/neuron_cmds.h) marks implemented; the test checks that
 * first and prints "fail-nth: N of M implemented commands covered, K
 * injected failures run" at the end.  NEURON_FNTH_ONLY=NAME runs only the
 * cases whose name contains NAME (e.g. MEM_ALLOC_V2MT), or one of the
 * comma-separated NAMEs (e.g. POST_METRIC,READ_HW,PROFILE): the run needs
 * one injected failure at least, which a command that allocates nothing
 * cannot give on its own.
 *
 * The setup turns off what makes the fault points skip sleeping and
 * highmem allocations and the messages of injected faults (a printed stack
 * would count as a kernel report), and the teardown puts the old values
 * back.  Kernels without CONFIG_FAULT_INJECTION (no fail-nth file) SKIP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* strerrorname_np() */
#endif
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"
#include "neuron_cmds.h"

#define SETTLE_MS	20000
/* Simulator id (and index) of the device under test, and of the one created under faults. */
#define DEV		0
#define NEW_ID		1
#define SIM_ARGS	"mem_size=16M"
#define DMA_COUNTERS	"/sys/kernel/debug/neuron/neuron%d/dma"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FNTH_MAX	3000
/* Device creation under faults, in make check: the first points, then a stride. */
#define CREATION_ALL	16
#define CREATION_STRIDE	4
/* Longest wait for released memory to show in the counters. */
#define RELEASE_MS	3000

/* Copies: a little more than a page, at an odd offset, in chunks of three pages. */
#define CHUNK		(3 * 4096)
#define LEN		(4096 + 5)
#define OFF		3

/* User DMA queues: rings of RING_MIN descriptors on engine QENG (core 0's), queue QID. */
#define QENG		1
#define QID		3
#define RING_MIN	32U
#define DESC_SIZE	16
#define DESC_RING_ID(id)	(((id) & 3U) << 24)
#define DESC_FIRST	0x04000000U
#define DESC_LAST	0x08000000U
#define META_COPY	0x01080003U
#define TX		NEURON_DMA_QUEUE_TYPE_TX
#define RX		NEURON_DMA_QUEUE_TYPE_RX

#define SCRUB_PAT	0x5eedf00dU
#define H_NONE		((__u32)NEURON_DMA_H2T_CTX_HANDLE_NONE)

/* The fault-injection knobs the setup sets, and their old values. */
static const struct knob {
	const char *path;
	const char *val;
} knobs[] = {
	{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/failslab/verbose", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
};

#define NKNOBS	ARRAY_SIZE(knobs)

/*
 * The stack-trace filter of both fault points: no fault is injected into an
 * allocation of the DMA API's debugging (kernel/dma/debug.c), which turns
 * itself off for good at its first failure and would check nothing for the
 * suites that run after this one.
 */
static const char * const reject_knobs[] = {
	"/sys/kernel/debug/failslab/reject-start",
	"/sys/kernel/debug/failslab/reject-end",
	"/sys/kernel/debug/fail_page_alloc/reject-start",
	"/sys/kernel/debug/fail_page_alloc/reject-end",
};

#define NREJECT	ARRAY_SIZE(reject_knobs)

/* Whether @name is a function of kernel/dma/debug.c that runs after boot. */
static int dma_debug_fn(const char *name)
{
	return !strncmp(name, "debug_dma_", 10) || !strcmp(name, "add_dma_entry") ||
	       !strcmp(name, "dma_entry_alloc");
}

/*
 * The text of kernel/dma/debug.c, from /proc/kallsyms: [*@start, *@end),
 * from its first function to the symbol after its last one.  0 when the
 * kernel has no DMA_API_DEBUG (or hides addresses).
 */
static int dma_debug_text(unsigned long long *start, unsigned long long *end)
{
	unsigned long long a, lo = ~0ULL, hi = 0, next = ~0ULL;
	char line[256], type, name[200];
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &type, name) == 3 && a &&
		    (type == 't' || type == 'T') && dma_debug_fn(name)) {
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &type, name) == 3 && a > hi && a < next)
			next = a;
	fclose(f);
	/* The functions of one file are together: anything wider is not them. */
	if (!hi || next == ~0ULL || next - lo > 256 * 1024)
		return 0;
	*start = lo;
	*end = next;
	return 1;
}

/* Buffers the commands read and write: touched before any injection. */
static unsigned char src[CHUNK], dst[CHUNK];

/* ---- What user space can see --------------------------------------------- */

#define NMEM	5
#define NDMA	6

/* The visible state: memory counters, DMA counters, open files. */
struct fp {
	long long mem[NMEM];
	long long dma[NDMA];
	int files;
};

static const char * const mem_keys[NMEM] = {
	"host_bytes", "device_bytes", "chunks", "handles", "held_bytes",
};

static const char * const dma_keys[NDMA] = {
	"channels", "async_channels", "queue_shadow_bytes", "dead_channels",
	"dead_channel_pages", "dead_queues",
};

/* Values of @n keys (@sep after the key) of file @path into @v; 0 when all were found. */
static int read_keys(const char *path, const char * const *keys, int n, char sep,
		     long long *v)
{
	unsigned int seen = 0;
	char line[160];
	FILE *f;
	int i;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < n; i++) {
			size_t l = strlen(keys[i]);

			if (strncmp(line, keys[i], l) || line[l] != sep)
				continue;
			v[i] = strtoll(line + l + 1 + (sep == ':'), NULL, 10);
			seen |= 1U << i;
		}
	}
	fclose(f);
	return seen == (1U << n) - 1 ? 0 : -ENOENT;
}

static int count_files(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static int fp_take(int index, struct fp *f)
{
	char path[96];
	int ret;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), MEM_COUNTERS, index);
	ret = read_keys(path, mem_keys, NMEM, ' ', f->mem);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), DMA_COUNTERS, index);
	ret = read_keys(path, dma_keys, NDMA, ':', f->dma);
	if (ret)
		return ret;
	f->files = count_files();
	return 0;
}

/* What differs between @a and @b, in @buf; 0 when nothing does. */
static int fp_diff(const struct fp *a, const struct fp *b, char *buf, size_t len)
{
	int i, n = 0, k = 0;

	buf[0] = 0;
	for (i = 0; i < NMEM; i++)
		if (a->mem[i] != b->mem[i] && k < (int)len)
			n++, k += snprintf(buf + k, len - k, " %s %lld->%lld", mem_keys[i],
					   a->mem[i], b->mem[i]);
	for (i = 0; i < NDMA; i++)
		if (a->dma[i] != b->dma[i] && k < (int)len)
			n++, k += snprintf(buf + k, len - k, " %s %lld->%lld", dma_keys[i],
					   a->dma[i], b->dma[i]);
	if (a->files != b->files && k < (int)len)
		n++, snprintf(buf + k, len - k, " open files %d->%d", a->files, b->files);
	return n;
}

/* Wait up to @ms for the state of device @index to be @want; 0, or the last difference. */
static int fp_reach(int index, const struct fp *want, long ms, char *buf, size_t len)
{
	long end = nt_now_ms() + ms;
	struct fp now;

	for (;;) {
		if (fp_take(index, &now)) {
			snprintf(buf, len, " counters unreadable");
			return 1;
		}
		if (!fp_diff(want, &now, buf, len))
			return 0;
		if (nt_now_ms() > end)
			return 1;
		usleep(10000);
	}
}

/* ---- The commands ---------------------------------------------------------- */

/* What a case works with; the fields past @v are the case's own, zeroed before each call. */
struct ctx {
	int fd;		/* normal file: this process is attached */
	int wfd;	/* free-access file */
	int index;
	int nhbm;
	unsigned int ncs;
	unsigned int iter;	/* calls so far: new model ids */
	__u64 bar;		/* BAR_READ base */
	const struct fnth_gen *v;
	/* per call */
	__u64 h[3];
	__u64 pa[3];
	__u64 out;
	__u32 o32;
	__u32 saved;
	__s32 ofd;
	void *map;
	struct neuron_uuid uuid;
	struct desc {
		__u32 ctrl;
		__u32 meta;
		__u64 addr;
	} d[2];
};

/**
 * struct fnth_gen - a generation as this test sees it
 * @g: the DMA suites' view (engines, channels, cores)
 * @arch: architecture number in the information commands
 * @rw_reg: a read-write register (the NeuronCore window of core 0)
 * @nc_map: whether GET_LOGICAL_TO_PHYSICAL_NC_MAP has a map (else EOPNOTSUPP)
 * @counter: a device-physical address READ_HW_COUNTERS may read
 * @profiles: profiles AVAILABLE_PERF_PROFILES reports for feature 0 (the
 *	simulator's default set; 0 where the firmware has none)
 */
struct fnth_gen {
	const struct nt_gen *g;
	unsigned int arch;
	__u64 rw_reg;
	int nc_map;
	__u64 counter;
	unsigned int profiles;
};

static const struct fnth_gen fg_v2 = { &nt_gen_v2, 2, 0x02701000, 0, 0xfffc0000100ULL, 0 };
static const struct fnth_gen fg_v3 = { &nt_gen_v3, 3, 0xd2701000, 1, 0x8000000100ULL, 4 };

static struct desc mkdesc(int tx, __u64 addr, __u32 len)
{
	struct desc d = {
		.ctrl = htole32((len & 0xffffU) | DESC_RING_ID(1) |
				(tx ? DESC_FIRST | DESC_LAST : 0)),
		.meta = htole32(tx ? META_COPY : 0),
		.addr = htole64(addr),
	};

	return d;
}

static long mem_copy(int fd, int wide, __u64 s, __u64 d, __u64 size, __u64 soff, __u64 doff)
{
	struct neuron_ioctl_mem_copy64 c64 = {
		.src_mem_handle = s, .dst_mem_handle = d, .size = size,
		.src_offset = soff, .dst_offset = doff,
	};
	struct neuron_ioctl_mem_copy c32 = {
		.src_mem_handle = s, .dst_mem_handle = d, .size = (__u32)size,
		.src_offset = (__u32)soff, .dst_offset = (__u32)doff,
	};

	return wide ? xioctl(fd, NEURON_IOCTL_MEM_COPY64, &c64) :
		      xioctl(fd, NEURON_IOCTL_MEM_COPY, &c32);
}

static long copy_async(int fd, int wide, __u64 s, __u64 d, __u64 size, __u32 *wait)
{
	struct neuron_ioctl_mem_copy_async64 a64 = {
		.src_mem_handle = s, .dst_mem_handle = d, .size = size, .dst_offset = OFF,
		.pwait_handle = H_NONE, .wait_handle = 0xa5a5a5a5,
	};
	struct neuron_ioctl_mem_copy_async a32 = {
		.src_mem_handle = s, .dst_mem_handle = d, .size = (__u32)size, .dst_offset = OFF,
		.pwait_handle = H_NONE, .wait_handle = 0xa5a5a5a5,
	};
	long ret;

	if (wide) {
		ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC64, &a64);
		*wait = a64.wait_handle;
	} else {
		ret = xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC, &a32);
		*wait = a32.wait_handle;
	}
	return ret;
}

static long async_wait(int fd, __u64 s, __u64 d, __u32 wait)
{
	struct neuron_ioctl_mem_copy_async_wait a = {
		.src_mem_handle = s, .dst_mem_handle = d, .pwait_handle = wait,
	};

	return xioctl(fd, NEURON_IOCTL_MEM_COPY_ASYNC_WAIT, &a);
}

static long q_init(int fd, __u64 txh, __u64 rxh)
{
	struct neuron_ioctl_dma_queue_init a = {
		.eng_id = QENG, .qid = QID, .tx_desc_count = RING_MIN, .rx_desc_count = RING_MIN,
		.tx_handle = txh, .rx_handle = rxh,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_INIT, &a);
}

static long q_release(int fd, __u32 qid)
{
	struct neuron_ioctl_dma_queue_release a = { .eng_id = QENG, .qid = qid };

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_RELEASE, &a);
}

static long q_start(int fd)
{
	struct neuron_ioctl_dma_queue_copy_start a = {
		.eng_id = QENG, .qid = QID, .tx_desc_count = 1, .rx_desc_count = 1,
	};

	return xioctl(fd, NEURON_IOCTL_DMA_QUEUE_COPY_START, &a);
}

static long put_descs(int fd, int wide, __u64 h, const void *buf, __u32 num, __u32 type)
{
	struct neuron_ioctl_dma_copy_descriptors64 w = {
		.mem_handle = h, .buffer = (void *)buf, .num_descs = num, .queue_type = type,
	};
	struct neuron_ioctl_dma_copy_descriptors n = {
		.mem_handle = h, .buffer = (void *)buf, .num_descs = num, .queue_type = type,
	};

	return wide ? xioctl(fd, NEURON_IOCTL_DMA_COPY_DESCRIPTORS64, &w) :
		      xioctl(fd, NEURON_IOCTL_DMA_COPY_DESCRIPTORS, &n);
}

static long h2t_alloc(int fd, __u32 *bmap)
{
	struct neuron_ioctl_h2t_dma_alloc_queues a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.sz = sizeof(a);
	a.nc_id = 0;
	a.copy_queue_cnt = 1;
	ret = xioctl(fd, NEURON_IOCTL_H2T_DMA_ALLOC_QUEUES, &a);
	*bmap = a.copy_queue_bmap;
	return ret;
}

static long h2t_free(int fd, __u32 bmap)
{
	struct neuron_ioctl_h2t_dma_free_queues a = { .sz = sizeof(a), .nc_id = 0,
						      .queue_bmap = bmap };

	return xioctl(fd, NEURON_IOCTL_H2T_DMA_FREE_QUEUES, &a);
}

static long scrub_wait(int fd)
{
	struct neuron_ioctl_hbm_scrub_wait a = { .nc_id = 0, .hbm_index = 0 };

	return xioctl(fd, NEURON_IOCTL_HBM_SCRUB_WAIT, &a);
}

/* The three notification-queue inits on core 0 (held), host memory, engine 1 + @form. */
enum nqf { NQ_V1, NQ_V2, NQ_REALLOC };

static long nq_init(struct ctx *c, enum nqf f)
{
	struct neuron_ioctl_notifications_init_v1 a1 = {
		.nc_id = 0, .nq_type = NQ_TYPE_NOTIFY, .engine_index = 1, .size = 512,
	};
	struct neuron_ioctl_notifications_init_v2 a2 = {
		.nq_dev_id = 0, .nq_dev_type = NQ_DEVICE_TYPE_NEURON_CORE,
		.nq_type = NQ_TYPE_NOTIFY, .engine_index = 2, .size = 512, .on_host_memory = 1,
	};
	struct neuron_ioctl_notifications_init_with_realloc_v2 ar = {
		.nq_dev_id = 0, .nq_dev_type = NQ_DEVICE_TYPE_NEURON_CORE,
		.nq_type = NQ_TYPE_NOTIFY, .engine_index = 3, .size = 512, .on_host_memory = 1,
	};
	long ret;

	switch (f) {
	case NQ_V1:
		ret = xioctl(c->fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V1, &a1);
		c->out = a1.mmap_offset;
		return ret;
	case NQ_V2:
		ret = xioctl(c->fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, &a2);
		c->out = a2.mmap_offset;
		c->h[2] = a2.mem_handle;
		return ret;
	default:
		ret = xioctl(c->fd, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, &ar);
		c->out = ar.mmap_offset;
		c->h[2] = ar.mem_handle;
		return ret;
	}
}

static long nq_destroy(int fd, __u64 off)
{
	struct neuron_ioctl_notifications_destroy a = { .mmap_offset = off };

	return xioctl(fd, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1, &a);
}

/* ---- Preparations and undos shared by several cases ------------------------- */

/* A device chunk of CHUNK bytes (channel 0) in h[0], its address in pa[0]. */
static int p_dev(struct ctx *c)
{
	long ret = alloc_dev(c->fd, CHUNK, 0, &c->h[0]);

	return ret ? (int)ret : (int)get_pa(c->fd, c->h[0], &c->pa[0]);
}

/* A host chunk with src's bytes in h[0], a device chunk in h[1]. */
static int p_host_dev(struct ctx *c)
{
	long ret = alloc_host(c->fd, CHUNK, &c->h[0]);

	if (!ret)
		ret = buf_copy(c->fd, 1, c->h[0], src, CHUNK, 0, 1);
	if (!ret)
		ret = alloc_dev(c->fd, CHUNK, 0, &c->h[1]);
	if (!ret)
		ret = get_pa(c->fd, c->h[0], &c->pa[0]);
	if (!ret)
		ret = get_pa(c->fd, c->h[1], &c->pa[1]);
	return (int)ret;
}

static void f_free(struct ctx *c)
{
	int i;

	for (i = 0; i < 3; i++)
		if (c->h[i])
			mem_free(c->fd, c->h[i]);
}

/* The handle the call made, freed. */
static void u_free_out(struct ctx *c)
{
	mem_free(c->fd, c->out);
}

static int ck_out(struct ctx *c)
{
	return c->out != 0 ? 0 : -1;
}

/* Device chunk h[1] holds @src's LEN bytes at OFF (what a copy to it wrote). */
static int ck_dev_has(struct ctx *c, __u64 h, const unsigned char *want, __u64 off)
{
	memset(dst, 0, CHUNK);
	if (buf_copy(c->fd, 1, h, dst, LEN, off, 0))
		return -1;
	return memcmp(dst, want, LEN) ? -1 : 0;
}

static int ck_copied(struct ctx *c)
{
	return ck_dev_has(c, c->h[1], src + OFF, OFF);
}

/* Core 0 reset, by this process (it holds the core already). */
static void u_reset_core0(struct ctx *c)
{
	reset_cores(c->fd, 1);
}

/* ---- The cases ------------------------------------------------------------- */

/* Device and information commands. */
static long r_device_reset(struct ctx *c)
{
	return xioctl(c->fd, NEURON_IOCTL_DEVICE_RESET, NULL);
}

static void u_device_ready(struct ctx *c)
{
	__u8 st = 0;

	xioctl(c->fd, NEURON_IOCTL_DEVICE_READY, &st);
}

static int p_device_reset(struct ctx *c)
{
	return (int)r_device_reset(c);
}

static long r_device_ready(struct ctx *c)
{
	__u8 st = 7;
	long ret = xioctl(c->fd, NEURON_IOCTL_DEVICE_READY, &st);

	c->o32 = st;
	return ret;
}

static int ck_ready(struct ctx *c)
{
	return c->o32 == 1 ? 0 : -1;
}

static long r_device_info(struct ctx *c)
{
	struct neuron_ioctl_device_info i;
	long ret;

	memset(&i, 0xa5, sizeof(i));
	ret = xioctl(c->fd, NEURON_IOCTL_DEVICE_INFO, &i);
	c->o32 = i.architecture;
	return ret;
}

static int ck_arch(struct ctx *c)
{
	return c->o32 == c->v->arch ? 0 : -1;
}

static long r_device_init(struct ctx *c)
{
	return xioctl(c->fd, NEURON_IOCTL_DEVICE_INIT, NULL);
}

static long r_device_release(struct ctx *c)
{
	return xioctl(c->fd, NEURON_IOCTL_DEVICE_RELEASE, NULL);
}

static long r_app_pid(struct ctx *c)
{
	__s32 pid = -5;
	long ret = xioctl(c->fd, NEURON_IOCTL_DEVICE_APP_PID, &pid);

	c->o32 = pid;
	return ret;
}

static int ck_pid(struct ctx *c)
{
	return (pid_t)c->o32 == getpid() ? 0 : -1;
}

static long r_apps_info(struct ctx *c)
{
	static union {
		struct neuron_ioctl_get_apps_info ai;
		unsigned char b[sizeof(struct neuron_ioctl_get_apps_info) +
				NEURON_MAX_PROCESS_PER_DEVICE * sizeof(struct neuron_app_info)];
	} u;
	long ret;

	memset(&u, 0xa5, sizeof(u));
	u.ai.apps_info_flags = APP_INFO_ALL;
	u.ai.capacity = NEURON_MAX_PROCESS_PER_DEVICE;
	ret = xioctl(c->fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, &u.ai);
	c->o32 = u.ai.size;
	c->out = u.ai.size ? (__u64)u.ai.app_data[0].pid : 0;
	return ret;
}

static int ck_apps(struct ctx *c)
{
	return c->o32 == 1 && c->out == (__u64)getpid() ? 0 : -1;
}

/* BAR_READ or BAR_WRITE of the read-write register, its value in or out of *@v. */
static long bar_rw(struct ctx *c, unsigned int cmd, __u32 *v)
{
	__u64 addr = c->bar + c->v->rw_reg;
	struct neuron_ioctl_bar_rw b = { .bar = 0, .address = &addr, .data = v, .count = 1 };

	return xioctl(c->fd, cmd, &b);
}

static long r_bar_read(struct ctx *c)
{
	__u32 v = 0xa5a5a5a5;
	long ret = bar_rw(c, NEURON_IOCTL_BAR_READ, &v);

	c->o32 = v;
	return ret;
}

static int p_bar_write(struct ctx *c)
{
	int ret = (int)r_bar_read(c);

	c->saved = c->o32;
	return ret;
}

static long r_bar_write(struct ctx *c)
{
	__u32 v = c->saved ^ 0x5a;

	return bar_rw(c, NEURON_IOCTL_BAR_WRITE, &v);
}

static int ck_bar_write(struct ctx *c)
{
	return !r_bar_read(c) && c->o32 == (c->saved ^ 0x5a) ? 0 : -1;
}

static void u_bar_write(struct ctx *c)
{
	bar_rw(c, NEURON_IOCTL_BAR_WRITE, &c->saved);
}

static long r_compat(struct ctx *c)
{
	struct neuron_ioctl_compatible_version cv = { 0 };

	return xioctl(c->wfd, NEURON_IOCTL_COMPATIBLE_VERSION, &cv);
}

static long r_basic_info(struct ctx *c)
{
	struct neuron_ioctl_device_basic_info bi;
	long ret;

	memset(&bi, 0xa5, sizeof(bi));
	ret = xioctl(c->wfd, NEURON_IOCTL_DEVICE_BASIC_INFO, &bi);
	c->o32 = bi.architecture;
	return ret;
}

static long r_bdf(struct ctx *c)
{
	struct neuron_ioctl_device_bdf b;

	memset(&b, 0xa5, sizeof(b));
	return xioctl(c->fd, NEURON_IOCTL_DEVICE_BDF, &b);
}

static long r_bdf_ext(struct ctx *c)
{
	struct neuron_ioctl_device_bdf_ext b;

	memset(&b, 0xa5, sizeof(b));
	b.nd_index = 0;
	return xioctl(c->wfd, NEURON_IOCTL_DEVICE_BDF_EXT, &b);
}

static long r_reset_status(struct ctx *c)
{
	__u8 st = 7;
	long ret = xioctl(c->wfd, NEURON_IOCTL_DEVICE_RESET_STATUS, &st);

	c->o32 = st;
	return ret;
}

static long r_driver_info(struct ctx *c)
{
	struct neuron_ioctl_device_driver_info di;

	memset(&di, 0, sizeof(di));
	return xioctl(c->wfd, NEURON_IOCTL_DRIVER_INFO_GET, &di);
}

static long r_printk(struct ctx *c)
{
	static const char msg[] = "fail_nth_test: a message under fault injection";
	struct neuron_ioctl_printk pk = { .buffer = (void *)msg, .size = sizeof(msg) };

	return xioctl(c->wfd, NEURON_IOCTL_PRINTK, &pk);
}

static long r_host_device_id(struct ctx *c)
{
	struct neuron_ioctl_host_device_id h;
	long ret;

	memset(&h, 0xa5, sizeof(h));
	ret = xioctl(c->fd, NEURON_IOCTL_HOST_DEVICE_ID, &h);
	c->o32 = h.host_device_id;
	return ret;
}

static int ck_index(struct ctx *c)
{
	return c->o32 == (__u32)c->index ? 0 : -1;
}

static long r_rid_map(struct ctx *c)
{
	static struct neuron_ioctl_host_device_id_to_rid_map r;

	memset(&r, 0xa5, sizeof(r));
	return xioctl(c->wfd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &r);
}

static long r_nc_map(struct ctx *c)
{
	static unsigned char m[sizeof(struct neuron_ioctl_nc_map) + NEURON_NC_MAP_MAX_ENTRIES *
			       sizeof(struct neuron_ioctl_nc_map_entry)];
	struct neuron_ioctl_get_logical_to_physical_nc_map req = {
		.map = (struct neuron_ioctl_nc_map *)m,
		.max_map_entries = NEURON_NC_MAP_MAX_ENTRIES,
		.mapping_version = NEURON_IOCTL_NC_MAPPING_TYPE_V0,
	};

	return xioctl(c->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &req);
}

static long w_nc_map(struct ctx *c)
{
	return c->v->nc_map ? 0 : -EOPNOTSUPP;
}

static long r_pod_info(struct ctx *c)
{
	struct neuron_ioctl_pod_info p;

	memset(&p, 0, sizeof(p));
	p.sz = sizeof(p);
	return xioctl(c->wfd, NEURON_IOCTL_POD_INFO, &p);
}

static long r_pod_status(struct ctx *c)
{
	struct neuron_ioctl_pod_status p;

	memset(&p, 0, sizeof(p));
	p.sz = sizeof(p);
	return xioctl(c->wfd, NEURON_IOCTL_POD_STATUS, &p);
}

static long r_pod_status_v2(struct ctx *c)
{
	struct neuron_ioctl_pod_status_v2 p;

	memset(&p, 0, sizeof(p));
	p.v1.sz = sizeof(p);
	return xioctl(c->wfd, NEURON_IOCTL_POD_STATUS_V2, &p);
}

static long r_pod_ctrl(struct ctx *c)
{
	struct neuron_ioctl_pod_ctrl p;

	memset(&p, 0, sizeof(p));
	p.sz = sizeof(p);
	p.ctrl = NEURON_NPE_POD_CTRL_SET_MODE;
	return xioctl(c->wfd, NEURON_IOCTL_POD_CTRL, &p);
}

static long r_pod_ctrl_v2(struct ctx *c)
{
	struct neuron_ioctl_pod_ctrl_v2 p;

	memset(&p, 0, sizeof(p));
	p.v1.sz = sizeof(p);
	p.v1.ctrl = NEURON_NPE_POD_CTRL_SET_MODE;
	p.mode = NEURON_ULTRASERVER_MODE_UNSET;
	return xioctl(c->wfd, NEURON_IOCTL_POD_CTRL_V2, &p);
}

static long r_resource_info(struct ctx *c)
{
	struct neuron_ioctl_resource_mmap_info ri = {
		.block = NEURON_DM_BLOCK_TPB, .block_id = 0,
		.resource = NEURON_DM_RESOURCE_SEMAPHORE,
	};
	long ret = xioctl(c->fd, NEURON_IOCTL_RESOURCE_MMAP_INFO, &ri);

	c->out = ri.size;
	return ret;
}

/* Memory commands. */
static long r_mem_alloc(struct ctx *c)
{
	struct neuron_ioctl_mem_alloc a = {
		.size = CHUNK, .dram_channel = 0, .mem_handle = &c->out,
	};

	return xioctl(c->fd, NEURON_IOCTL_MEM_ALLOC, &a);
}

static long r_mem_alloc_v2(struct ctx *c)
{
	return alloc_host(c->fd, CHUNK, &c->out);
}

static long r_mem_alloc_v2mt(struct ctx *c)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type a = {
		.size = CHUNK, .dram_channel = 0, .nc_id = 0,
		.mem_type = NEURON_MEMALLOC_TYPE_TENSORS_DEVICE, .mem_handle = &c->out,
	};

	return xioctl(c->fd, NEURON_IOCTL_MEM_ALLOC_V2MT, &a);
}

static long r_mem_alloc_v2mt64(struct ctx *c)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type64 a = {
		.size = CHUNK, .host_memory = 1, .nc_id = 0,
		.mem_type = NEURON_MEMALLOC_TYPE_TENSORS_HOST, .mem_handle = &c->out,
	};

	return xioctl(c->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64, &a);
}

static long r_mem_free(struct ctx *c)
{
	long ret = mem_free(c->fd, c->h[0]);

	if (!ret)
		c->h[0] = 0;
	return ret;
}

static long r_copy32(struct ctx *c)
{
	return mem_copy(c->fd, 0, c->h[0], c->h[1], LEN, OFF, OFF);
}

static long r_copy64(struct ctx *c)
{
	return mem_copy(c->fd, 1, c->h[0], c->h[1], LEN, OFF, OFF);
}

static long r_buf_copy_to(struct ctx *c)
{
	return buf_copy(c->fd, 0, c->h[0], src, LEN, OFF, 1);
}

static long r_buf_copy64_to(struct ctx *c)
{
	return buf_copy(c->fd, 1, c->h[0], src, LEN, OFF, 1);
}

static int ck_buf_to(struct ctx *c)
{
	return ck_dev_has(c, c->h[0], src, OFF);
}

/* Device chunk h[0] with src's bytes at OFF. */
static int p_dev_data(struct ctx *c)
{
	int ret = p_dev(c);

	return ret ? ret : (int)buf_copy(c->fd, 1, c->h[0], src, LEN, OFF, 1);
}

static long r_buf_copy_from(struct ctx *c)
{
	memset(dst, 0, CHUNK);
	return buf_copy(c->fd, 0, c->h[0], dst, LEN, OFF, 0);
}

static long r_buf_copy64_from(struct ctx *c)
{
	memset(dst, 0, CHUNK);
	return buf_copy(c->fd, 1, c->h[0], dst, LEN, OFF, 0);
}

static int ck_buf_from(struct ctx *c)
{
	return memcmp(dst, src, LEN) ? -1 : 0;
}

static long r_get_pa(struct ctx *c)
{
	return get_pa(c->fd, c->h[0], &c->out);
}

static long r_get_info(struct ctx *c)
{
	__u64 off = 0;
	struct neuron_ioctl_mem_get_info a = { .mem_handle = c->h[0], .mmap_offset = &off,
					       .pa = &c->out };

	return xioctl(c->fd, NEURON_IOCTL_MEM_GET_INFO, &a);
}

static long r_ext_info(struct ctx *c)
{
	struct neuron_ioctl_mem_get_extended_info ei;
	long ret = ext_info(c->fd, c->h[0], &ei);

	c->out = ei.pa;
	return ret;
}

static int ck_pa(struct ctx *c)
{
	return c->out == c->pa[0] ? 0 : -1;
}

static long program(struct ctx *c, int form)
{
	struct neuron_ioctl_program_engine p = {
		.dst = c->pa[0], .buffer = src, .size = LEN, .offset = OFF,
	};
	struct neuron_ioctl_program_engine_nc n = {
		.nc_id = 0, .dst = c->pa[0], .buffer = src, .size = LEN, .offset = OFF,
	};
	struct neuron_ioctl_program_engine_nc64 w = {
		.nc_id = 0, .dst = c->pa[0], .buffer = src, .size = LEN, .offset = OFF,
	};

	if (form == 0)
		return xioctl(c->fd, NEURON_IOCTL_PROGRAM_ENGINE, &p);
	if (form == 1)
		return xioctl(c->fd, NEURON_IOCTL_PROGRAM_ENGINE_NC, &n);
	return xioctl(c->fd, NEURON_IOCTL_PROGRAM_ENGINE_NC64, &w);
}

static long r_program(struct ctx *c)
{
	return program(c, 0);
}

static long r_program_nc(struct ctx *c)
{
	return program(c, 1);
}

static long r_program_nc64(struct ctx *c)
{
	return program(c, 2);
}

/* PROGRAM_ENGINE wrote src + OFF at OFF. */
static int ck_programmed(struct ctx *c)
{
	return ck_dev_has(c, c->h[0], src + OFF, OFF);
}

static long r_memset(struct ctx *c)
{
	struct neuron_ioctl_memset s = { .mem_handle = c->h[0], .offset = OFF,
					 .value = 0x3c, .size = LEN };

	return xioctl(c->fd, NEURON_IOCTL_MEMSET, &s);
}

static long r_memset64(struct ctx *c)
{
	struct neuron_ioctl_memset64 s = { .mem_handle = c->h[0], .offset = OFF,
					   .value = 0x3c, .size = LEN };

	return xioctl(c->fd, NEURON_IOCTL_MEMSET64, &s);
}

static int ck_memset(struct ctx *c)
{
	size_t i;

	memset(dst, 0, CHUNK);
	if (buf_copy(c->fd, 1, c->h[0], dst, LEN, OFF, 0))
		return -1;
	for (i = 0; i < LEN; i++)
		if (dst[i] != 0x3c)
			return -1;
	return 0;
}

static long r_mc_info(struct ctx *c)
{
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 mc;

	memset(&mc, 0xa5, sizeof(mc));
	mc.pa = c->pa[0];
	return xioctl(c->fd, NEURON_IOCTL_MEM_MC_GET_INFO, &mc);
}

static long r_mc_info_v2(struct ctx *c)
{
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 mc;
	long ret;

	memset(&mc, 0xa5, sizeof(mc));
	mc.pa = c->pa[0];
	ret = xioctl(c->fd, NEURON_IOCTL_MEM_MC_GET_INFO_V2, &mc);
	c->out = mc.mem_handle;
	return ret;
}

static int ck_mc_handle(struct ctx *c)
{
	return c->out == c->h[0] ? 0 : -1;
}

static long r_dump_chunks(struct ctx *c)
{
	static struct neuron_ioctl_mem_chunk_info e[8];
	__u32 n = 0;
	long ret = dump_chunks(c->fd, 0, ARRAY_SIZE(e), e, &n);

	c->o32 = n;
	return ret;
}

static int ck_dump(struct ctx *c)
{
	return c->o32 >= 1 ? 0 : -1;
}

/* Device chunk h[0], mapped (4 KiB of it) at c->map. */
static int p_dev_mapped(struct ctx *c)
{
	int ret = p_dev(c);

	if (ret)
		return ret;
	c->map = mmap(NULL, CHUNK, RW, MAP_SHARED, c->fd, (off_t)c->pa[0]);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return -errno;
	}
	memset(c->map, 0x11, CHUNK);
	return 0;
}

static void f_unmap_free(struct ctx *c)
{
	if (c->map)
		munmap(c->map, CHUNK);
	f_free(c);
}

static long r_mem_alloc_v2mt64_pa(struct ctx *c)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type64_pa a = {
		.size = CHUNK, .host_memory = 1, .nc_id = 0,
		.mem_type = NEURON_MEMALLOC_TYPE_TENSORS_HOST, .mem_handle = &c->out,
	};

	return xioctl(c->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, &a);
}

static long r_dmabuf_v2(struct ctx *c)
{
	struct neuron_ioctl_dmabuf_fd_v2 a = {
		.va = (uintptr_t)c->map + 8, .size = CHUNK - 8, .fd = &c->ofd, .offset = &c->out,
	};

	c->ofd = -1;
	return xioctl(c->fd, NEURON_IOCTL_DMABUF_FD_V2, &a);
}

static long r_dmabuf(struct ctx *c)
{
	struct neuron_ioctl_dmabuf_fd a = { .va = (uintptr_t)c->map, .size = CHUNK, .fd = &c->ofd };

	c->ofd = -1;
	return xioctl(c->fd, NEURON_IOCTL_DMABUF_FD, &a);
}

static int ck_dmabuf(struct ctx *c)
{
	return c->ofd >= 0 ? 0 : -1;
}

static void u_close_ofd(struct ctx *c)
{
	close(c->ofd);
}

static long r_va_placement(struct ctx *c)
{
	struct neuron_ioctl_get_va_placement vp = { .va = (uintptr_t)c->map + 8 };
	long ret = xioctl(c->wfd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp);

	c->o32 = vp.device_index;
	return ret;
}

/* DMA commands. */
static long r_async(struct ctx *c)
{
	return copy_async(c->fd, 0, c->h[0], c->h[1], LEN, &c->o32);
}

static long r_async64(struct ctx *c)
{
	return copy_async(c->fd, 1, c->h[0], c->h[1], LEN, &c->o32);
}

static void u_async(struct ctx *c)
{
	async_wait(c->fd, c->h[0], c->h[1], c->o32);
}

/* An async copy wrote src[0..LEN) at OFF once waited for. */
static int ck_async(struct ctx *c)
{
	u_async(c);
	return ck_dev_has(c, c->h[1], src, OFF);
}

static int p_async(struct ctx *c)
{
	int ret = p_host_dev(c);

	return ret ? ret : (int)r_async64(c);
}

static long r_async_wait(struct ctx *c)
{
	return async_wait(c->fd, c->h[0], c->h[1], c->o32);
}

static int ck_async_done(struct ctx *c)
{
	return ck_dev_has(c, c->h[1], src, OFF);
}

static void f_async(struct ctx *c)
{
	u_async(c);
	f_free(c);
}

static long r_eng_init(struct ctx *c)
{
	struct neuron_ioctl_dma_eng_init a = { .eng_id = QENG };

	return xioctl(c->fd, NEURON_IOCTL_DMA_ENG_INIT, &a);
}

static long eng_set(struct ctx *c, __u32 state)
{
	struct neuron_ioctl_dma_eng_set_state a = { .eng_id = QENG, .state = state };

	return xioctl(c->fd, NEURON_IOCTL_DMA_ENG_SET_STATE, &a);
}

static long r_eng_get(struct ctx *c)
{
	struct neuron_dma_eng_state st;
	struct neuron_ioctl_dma_eng_get_state a = { .eng_id = QENG, .state = &st };
	long ret;

	memset(&st, 0xa5, sizeof(st));
	ret = xioctl(c->fd, NEURON_IOCTL_DMA_ENG_GET_STATE, &a);
	c->o32 = st.tx_state;
	c->saved = st.rx_state;
	return ret;
}

static long r_eng_disable(struct ctx *c)
{
	return eng_set(c, NEURON_DMA_ENG_DISABLE);
}

static int ck_eng_idle(struct ctx *c)
{
	return !r_eng_get(c) && c->o32 == NEURON_DMA_ENG_IDLE &&
	       c->saved == NEURON_DMA_ENG_IDLE ? 0 : -1;
}

static void u_eng_normal(struct ctx *c)
{
	eng_set(c, NEURON_DMA_ENG_NORMAL);
}

static long r_queue_state(struct ctx *c)
{
	struct neuron_dma_queue_state tx, rx;
	struct neuron_ioctl_dma_queue_get_state a = { .eng_id = QENG, .qid = QID,
						      .tx = &tx, .rx = &rx };

	memset(&tx, 0xa5, sizeof(tx));
	memset(&rx, 0xa5, sizeof(rx));
	return xioctl(c->fd, NEURON_IOCTL_DMA_QUEUE_GET_STATE, &a);
}

/* Two host rings of RING_MIN descriptors: h[0] TX, h[1] RX. */
static int p_rings(struct ctx *c)
{
	long ret = alloc_host(c->fd, RING_MIN * DESC_SIZE, &c->h[0]);

	if (!ret)
		ret = alloc_host(c->fd, RING_MIN * DESC_SIZE, &c->h[1]);
	if (!ret)
		ret = get_pa(c->fd, c->h[0], &c->pa[0]);
	if (!ret)
		ret = get_pa(c->fd, c->h[1], &c->pa[1]);
	return (int)ret;
}

static long r_q_init(struct ctx *c)
{
	return q_init(c->fd, c->h[0], c->h[1]);
}

static void u_q_release(struct ctx *c)
{
	q_release(c->fd, QID);
}

static void f_q_free(struct ctx *c)
{
	q_release(c->fd, QID);
	q_release(c->fd, QID + 1);
	f_free(c);
}

static long r_q_init_batch(struct ctx *c)
{
	static struct neuron_ioctl_dma_queue_init_batch b;
	int i;

	memset(&b, 0, sizeof(b));
	b.count = 2;
	for (i = 0; i < 2; i++) {
		b.entries[i] = (struct neuron_ioctl_dma_queue_init){
			.eng_id = QENG, .qid = QID + i, .tx_desc_count = RING_MIN,
			.rx_desc_count = RING_MIN, .tx_handle = c->h[0], .rx_handle = c->h[1],
		};
	}
	return xioctl(c->fd, NEURON_IOCTL_DMA_QUEUE_INIT_BATCH, &b);
}

/*
 * A batch that fails leaves the entries before the failing one initialised
 * (Documentation/dma.rst, as the reference): the first one is released
 * before the state is compared, the second one must have left nothing.
 */
static void u_q_release2(struct ctx *c)
{
	q_release(c->fd, QID);
	q_release(c->fd, QID + 1);
}

static int p_queue(struct ctx *c)
{
	int ret = p_rings(c);

	return ret ? ret : (int)r_q_init(c);
}

static long r_q_release(struct ctx *c)
{
	return q_release(c->fd, QID);
}

static long r_descs(struct ctx *c)
{
	c->d[0] = mkdesc(1, c->pa[1], 64);
	return put_descs(c->fd, 0, c->h[0], &c->d[0], 1, TX);
}

static long r_descs64(struct ctx *c)
{
	c->d[0] = mkdesc(1, c->pa[1], 64);
	return put_descs(c->fd, 1, c->h[0], &c->d[0], 1, TX);
}

/*
 * A queue (rings h[0] and h[1]) with one copy of LEN bytes written into
 * its rings, from host chunk h[2] (src's bytes) to device chunk... the
 * destination is h[2] too, LEN bytes further: one chunk of CHUNK bytes.
 */
static int p_queue_descs(struct ctx *c)
{
	struct desc rx;
	int ret = p_queue(c);

	if (ret)
		return ret;
	ret = (int)alloc_host(c->fd, CHUNK, &c->h[2]);
	if (!ret)
		ret = (int)buf_copy(c->fd, 1, c->h[2], src, CHUNK, 0, 1);
	if (!ret)
		ret = (int)get_pa(c->fd, c->h[2], &c->pa[2]);
	if (ret)
		return ret;
	c->d[0] = mkdesc(1, c->pa[2], LEN);
	rx = mkdesc(0, c->pa[2] + LEN + OFF, LEN);
	ret = (int)put_descs(c->fd, 1, c->h[0], &c->d[0], 1, TX);
	return ret ? ret : (int)put_descs(c->fd, 0, c->h[1], &rx, 1, RX);
}

static long r_q_start(struct ctx *c)
{
	return q_start(c->fd);
}

static int ck_q_copied(struct ctx *c)
{
	memset(dst, 0, CHUNK);
	if (buf_copy(c->fd, 1, c->h[2], dst, LEN, LEN + OFF, 0))
		return -1;
	return memcmp(dst, src, LEN) ? -1 : 0;
}

static int p_queue_started(struct ctx *c)
{
	int ret = p_queue_descs(c);

	return ret ? ret : (int)q_start(c->fd);
}

static long r_q_ack(struct ctx *c)
{
	struct neuron_ioctl_dma_ack_completed a = { .eng_id = QENG, .qid = QID, .count = 1 };

	return xioctl(c->fd, NEURON_IOCTL_DMA_ACK_COMPLETED, &a);
}

static long r_q_copyout(struct ctx *c)
{
	struct neuron_ioctl_dma_descriptor_copyout a = {
		.eng_id = QENG, .qid = QID, .type = TX, .start_index = 0, .count = 1,
		.buffer = &c->d[1],
	};

	memset(&c->d[1], 0xa5, sizeof(c->d[1]));
	return xioctl(c->fd, NEURON_IOCTL_DMA_DESCRIPTOR_COPYOUT, &a);
}

static int ck_copyout(struct ctx *c)
{
	return memcmp(&c->d[0], &c->d[1], sizeof(c->d[0])) ? -1 : 0;
}

static long zerocopy(struct ctx *c, __s32 qid)
{
	struct neuron_ioctl_mem_buf_copy64zc a = {
		.mem_handle = c->h[0], .buffer = src, .size = LEN, .offset = OFF,
		.is_copy_to_device = 1, .h2t_qid = qid,
	};

	return xioctl(c->fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64, &a);
}

static long r_zerocopy(struct ctx *c)
{
	return zerocopy(c, NEURON_DMA_H2T_DEFAULT_QID);
}

/* The 48-byte form runtimes before 2.33 send. */
static long r_zerocopy48(struct ctx *c)
{
	struct neuron_ioctl_mem_buf_copy64zc_deprecated a = {
		.mem_handle = c->h[0], .buffer = src, .size = LEN, .offset = OFF,
		.is_copy_to_device = 1, .h2t_qid = NEURON_DMA_H2T_DEFAULT_QID,
	};

	return xioctl(c->fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED, &a);
}

static long r_zc_batches(struct ctx *c)
{
	static nrt_tensor_batch_op_t ops[2];
	static neuron_memcpy_batch_t b;
	struct neuron_ioctl_mem_buf_copy64zc_batches a = {
		.batches_ptr = &b, .num_batches = 1, .is_copy_to_device = 1,
		.h2t_qid = NEURON_DMA_H2T_DEFAULT_QID,
	};

	ops[0] = (nrt_tensor_batch_op_t){ .offset = 0, .size = 5, .buffer = src };
	ops[1] = (nrt_tensor_batch_op_t){ .offset = 5, .size = LEN - 5, .buffer = src + 5 };
	b = (neuron_memcpy_batch_t){ .mem_handle = c->h[0], .mem_handle_offset = OFF,
				     .ops_ptr = ops, .num_ops = 2, .context = &b };
	return xioctl(c->fd, NEURON_IOCTL_MEM_BUF_ZEROCOPY64_BATCHES, &a);
}

static long r_h2t_alloc(struct ctx *c)
{
	return h2t_alloc(c->fd, &c->o32);
}

static int ck_h2t(struct ctx *c)
{
	return __builtin_popcount(c->o32) == 1 ? 0 : -1;
}

static void u_h2t_free(struct ctx *c)
{
	h2t_free(c->fd, c->o32);
}

static int p_h2t(struct ctx *c)
{
	return (int)r_h2t_alloc(c);
}

static long r_h2t_free(struct ctx *c)
{
	long ret = h2t_free(c->fd, c->o32);

	if (!ret)
		c->o32 = 0;
	return ret;
}

static void f_h2t(struct ctx *c)
{
	if (c->o32)
		h2t_free(c->fd, c->o32);
}

static long r_cq_get(struct ctx *c)
{
	struct neuron_ioctl_get_async_h2t_dma_compl_queues a;
	long ret;

	memset(&a, 0xa5, sizeof(a));
	a.nc_id = 0;
	a.qid_bitmap = c->o32;
	ret = xioctl(c->fd, NEURON_IOCTL_GET_ASYNC_H2T_DMA_COMPL_QUEUES, &a);
	c->out = a.compl_queue_info[__builtin_ctz(c->o32 | 0x10000)].mmap_size;
	return ret;
}

static int ck_cq(struct ctx *c)
{
	return c->out != 0 ? 0 : -1;
}

static long r_scrub_start(struct ctx *c)
{
	struct neuron_ioctl_hbm_scrub_start a = { .nc_id = 0, .hbm_index = 0,
						  .init_val = SCRUB_PAT };

	return xioctl(c->fd, NEURON_IOCTL_HBM_SCRUB_START, &a);
}

static void u_scrub_wait(struct ctx *c)
{
	scrub_wait(c->fd);
}

static int p_scrub(struct ctx *c)
{
	return (int)r_scrub_start(c);
}

static long r_scrub_wait(struct ctx *c)
{
	return scrub_wait(c->fd);
}

/* State commands: core 0 is held through the fixture's reservation. */
static long r_sem_read(struct ctx *c)
{
	__u32 v = 0xa5;
	long ret = sem(c->fd, NEURON_IOCTL_SEMAPHORE_READ, 0, 7, &v);

	c->o32 = v;
	return ret;
}

static int p_sem5(struct ctx *c)
{
	return (int)sem_do(c->fd, NEURON_IOCTL_SEMAPHORE_WRITE, 0, 7, 5);
}

static void u_sem0(struct ctx *c)
{
	sem_do(c->fd, NEURON_IOCTL_SEMAPHORE_WRITE, 0, 7, 0);
}

static long r_sem_inc(struct ctx *c)
{
	return sem_do(c->fd, NEURON_IOCTL_SEMAPHORE_INCREMENT, 0, 7, 2);
}

static long r_sem_dec(struct ctx *c)
{
	return sem_do(c->fd, NEURON_IOCTL_SEMAPHORE_DECREMENT, 0, 7, 2);
}

static long r_sem_write(struct ctx *c)
{
	return sem_do(c->fd, NEURON_IOCTL_SEMAPHORE_WRITE, 0, 7, 9);
}

static int ck_sem(struct ctx *c, __u32 want)
{
	return !r_sem_read(c) && c->o32 == want ? 0 : -1;
}

static int ck_sem7(struct ctx *c)
{
	return ck_sem(c, 7);
}

static int ck_sem3(struct ctx *c)
{
	return ck_sem(c, 3);
}

static int ck_sem9(struct ctx *c)
{
	return ck_sem(c, 9);
}

static int ck_sem5(struct ctx *c)
{
	return ck_sem(c, 5);
}

static long r_event_set(struct ctx *c)
{
	return sem_do(c->fd, NEURON_IOCTL_EVENT_SET, 0, 11, 1);
}

static long r_event_get(struct ctx *c)
{
	__u32 v = 0xa5;
	long ret = sem(c->fd, NEURON_IOCTL_EVENT_GET, 0, 11, &v);

	c->o32 = v;
	return ret;
}

static int ck_event1(struct ctx *c)
{
	return !r_event_get(c) && c->o32 == 1 ? 0 : -1;
}

static void u_event0(struct ctx *c)
{
	sem_do(c->fd, NEURON_IOCTL_EVENT_SET, 0, 11, 0);
}

static long r_nq_v1(struct ctx *c)
{
	return nq_init(c, NQ_V1);
}

static void u_nq_destroy(struct ctx *c)
{
	nq_destroy(c->fd, c->out);
}

static int p_nq_v1(struct ctx *c)
{
	int ret = (int)r_nq_v1(c);

	c->pa[2] = c->out;
	return ret;
}

static long r_nq_destroy(struct ctx *c)
{
	long ret = nq_destroy(c->fd, c->pa[2]);

	if (!ret)
		c->pa[2] = 0;
	return ret;
}

static void f_nq_destroy(struct ctx *c)
{
	if (c->pa[2])
		nq_destroy(c->fd, c->pa[2]);
}

static long r_nq_v2(struct ctx *c)
{
	return nq_init(c, NQ_V2);
}

static long r_nq_realloc(struct ctx *c)
{
	return nq_init(c, NQ_REALLOC);
}

/* A queue's handle dropped; the queue itself goes with a reset of its core. */
static void u_nq_v2(struct ctx *c)
{
	if (c->h[2])
		mem_free(c->fd, c->h[2]);
	c->h[2] = 0;
	u_reset_core0(c);
}

static long r_ds_acquire(struct ctx *c)
{
	return ds_acquire(c->fd, 0, &c->out);
}

static void u_ds_release(struct ctx *c)
{
	ds_release(c->fd, 0);
}

static int p_ds(struct ctx *c)
{
	return (int)r_ds_acquire(c);
}

static long r_ds_release(struct ctx *c)
{
	return ds_release(c->fd, 0);
}

/* A model id of its own for each call: the lock records the last one. */
static void new_uuid(struct ctx *c)
{
	memset(&c->uuid, 0, sizeof(c->uuid));
	memcpy(&c->uuid, &c->iter, sizeof(c->iter));
	c->uuid.value[15] = 0xfa;
}

static long r_w_enter(struct ctx *c)
{
	new_uuid(c);
	return crwl(c->fd, W_ENTER, 0, &c->uuid);
}

static void u_w_enter(struct ctx *c)
{
	crwl(c->fd, W_DOWN, 0, &c->uuid);
	crwl(c->fd, R_EXIT, 0, &c->uuid);
}

static int p_w_enter(struct ctx *c)
{
	return (int)r_w_enter(c);
}

static long r_w_down(struct ctx *c)
{
	return crwl(c->fd, W_DOWN, 0, &c->uuid);
}

static void u_r_exit(struct ctx *c)
{
	crwl(c->fd, R_EXIT, 0, &c->uuid);
}

/* The lock taken by this process (model c->uuid) and downgraded: one reader. */
static int p_reader(struct ctx *c)
{
	int ret = p_w_enter(c);

	return ret ? ret : (int)r_w_down(c);
}

static long r_r_enter(struct ctx *c)
{
	return crwl(c->fd, R_ENTER, 0, &c->uuid);
}

static long r_r_exit(struct ctx *c)
{
	return crwl(c->fd, R_EXIT, 0, &c->uuid);
}

/* Whatever a call left of the lock, let go (each call has a model of its own). */
static void f_lock(struct ctx *c)
{
	crwl(c->fd, W_DOWN, 0, &c->uuid);
	while (!crwl(c->fd, R_EXIT, 0, &c->uuid))
		;
}

/* Marks: of the last core, which nothing else reserves. */
static long mark_last(struct ctx *c, int ext)
{
	struct span s;
	long ret = mark(c->wfd, ext, 1, c->ncs - 1, c->ncs - 1, &s);

	c->out = s.bits[0];
	return ret;
}

static long r_mark(struct ctx *c)
{
	return mark_last(c, 0);
}

static long r_mark_ext(struct ctx *c)
{
	return mark_last(c, 1);
}

static int ck_mark(struct ctx *c)
{
	return c->out == 1ULL << (c->ncs - 1) ? 0 : -1;
}

static void u_unmark(struct ctx *c)
{
	unmark_run(c->wfd, 1, c->ncs - 1, 1);
}

static int p_mark(struct ctx *c)
{
	return (int)r_mark_ext(c);
}

static long r_unmark(struct ctx *c)
{
	return unmark_run(c->wfd, 0, c->ncs - 1, 1);
}

static long r_unmark_ext(struct ctx *c)
{
	return unmark_run(c->wfd, 1, c->ncs - 1, 1);
}

static long r_cinit(struct ctx *c)
{
	return cinit(c->fd, 0, CI_STARTED, &c->o32);
}

static int ck_cinit(struct ctx *c)
{
	return c->o32 == CI_STARTED ? 0 : -1;
}

static void u_cinit(struct ctx *c)
{
	__u32 st;

	cinit(c->fd, 0, CI_COMPLETED, &st);
	u_reset_core0(c);
}

static long r_started_count(struct ctx *c)
{
	struct neuron_ioctl_nc_model_started_count a = { .nc_id = 0, .started_count = 7 };
	long ret = xioctl(c->fd, NEURON_IOCTL_NC_MODEL_STARTED_COUNT, &a);

	c->out = a.started_count;
	return ret;
}

static int ck_zero(struct ctx *c)
{
	return c->out == 0 ? 0 : -1;
}

static long r_nc_reset(struct ctx *c)
{
	return nc_reset(c->fd, 1, &c->o32);
}

static void u_nc_ready(struct ctx *c)
{
	nc_ready(c->fd, c->o32);
}

static int p_nc_reset(struct ctx *c)
{
	return (int)r_nc_reset(c);
}

static long r_nc_ready(struct ctx *c)
{
	return nc_ready(c->fd, c->o32);
}

static long r_pid_dump(struct ctx *c)
{
	return pid_dump(c->wfd, 0);
}

/* Telemetry: the firmware mailboxes, answered by the simulator. */
static long r_post_metric(struct ctx *c)
{
	__u8 blob[16] = { 12, 3, 'a', 'b', 'c' };
	struct neuron_ioctl_post_metric p = { .data = (__u32 *)blob, .data_size = sizeof(blob) };

	return xioctl(c->fd, NEURON_IOCTL_POST_METRIC, &p);
}

static long r_read_hw(struct ctx *c)
{
	__u64 a[2] = { c->v->counter, c->v->counter + 4 };
	__u32 v[2] = { 0xa5a5a5a5, 0xa5a5a5a5 };
	struct neuron_ioctl_read_hw_counters r = { .address = a, .data = v, .count = 2 };
	long ret = xioctl(c->fd, NEURON_IOCTL_READ_HW_COUNTERS, &r);

	c->o32 = v[0];
	return ret;
}

static long r_power_profile(struct ctx *c)
{
	struct neuron_ioctl_power_profile p = { .sz = sizeof(p), .ctrl = 0, .profile = 1 };

	return xioctl(c->fd, NEURON_IOCTL_POWER_PROFILE, &p);
}

static void u_power_profile(struct ctx *c)
{
	struct neuron_ioctl_power_profile p = { .sz = sizeof(p), .ctrl = 0, .profile = 0 };

	xioctl(c->fd, NEURON_IOCTL_POWER_PROFILE, &p);
}

static long r_get_profile(struct ctx *c)
{
	struct neuron_ioctl_power_profile p = { .sz = sizeof(p), .ctrl = 1, .profile = 77 };
	long ret = xioctl(c->fd, NEURON_IOCTL_GET_PERFORMANCE_PROFILE, &p);

	c->o32 = p.profile;
	return ret;
}

static int ck_profile0(struct ctx *c)
{
	return c->o32 == 0 ? 0 : -1;
}

static long metrics_ctrl(struct ctx *c, __u32 mode)
{
	struct neuron_ioctl_metrics_ctrl m = { .mode = mode };

	return xioctl(c->fd, NEURON_IOCTL_METRICS_CTRL, &m);
}

static long r_metrics_pause(struct ctx *c)
{
	return metrics_ctrl(c, NEURON_METRICS_MODE_PERIODIC_DISABLE);
}

static void u_metrics_pause(struct ctx *c)
{
	metrics_ctrl(c, NEURON_METRICS_MODE_PERIODIC_ENABLE);
}

static long throttle(struct ctx *c, __u32 on)
{
	struct neuron_ioctl_throttling_notifications t = { .enable = on };

	return xioctl(c->fd, NEURON_IOCTL_THROTTLING_NOTIFICATIONS, &t);
}

static long r_throttle(struct ctx *c)
{
	return throttle(c, 1);
}

static void u_throttle(struct ctx *c)
{
	throttle(c, 0);
}

static long r_avail(struct ctx *c)
{
	struct neuron_ioctl_available_perf_profiles a;
	long ret;

	memset(&a, 0xa5, sizeof(a));
	a.requested_feature = 0;
	ret = xioctl(c->fd, NEURON_IOCTL_AVAILABLE_PERF_PROFILES, &a);
	c->o32 = a.num_profiles;
	c->saved = a.bitmap[0] | a.bitmap[31] << 8;
	return ret;
}

static int ck_avail(struct ctx *c)
{
	return c->o32 == c->v->profiles &&
	       c->saved == (c->v->profiles ? 0x0fU : 0U) ? 0 : -1;
}

/**
 * struct fcase - one valid call of a command
 * @cmd: the command (its entry in cmds[] counts as covered)
 * @name: for messages and NEURON_FNTH_ONLY
 * @prep: what the call needs, without faults; 0 or -errno
 * @run: the call: 0 or -errno
 * @want: its answer without faults (NULL: 0)
 * @check: after a successful call: 0 when its outputs are right
 * @undo: after a successful call: undo it
 * @partial: after a failed call: undo what the command is documented to leave
 *	done when it fails part way (before the state is compared)
 * @fini: always, last: undo @prep (and what a failed call may have left for it)
 */
struct fcase {
	unsigned int cmd;
	const char *name;
	int (*prep)(struct ctx *c);
	long (*run)(struct ctx *c);
	long (*want)(struct ctx *c);
	int (*check)(struct ctx *c);
	void (*undo)(struct ctx *c);
	void (*partial)(struct ctx *c);
	void (*fini)(struct ctx *c);
};

#define FC(c, ...)	{ NEURON_IOCTL_##c, #c, __VA_ARGS__ }
#define FCN(c, n, ...)	{ NEURON_IOCTL_##c, #c " " n, __VA_ARGS__ }

static const struct fcase fcases[] = {
	/* Device and information. */
	FC(DEVICE_RESET, .run = r_device_reset, .undo = u_device_ready),
	FC(DEVICE_READY, .prep = p_device_reset, .run = r_device_ready, .check = ck_ready,
	   .fini = u_device_ready),
	FC(DEVICE_INFO, .run = r_device_info, .check = ck_arch),
	FC(DEVICE_INIT, .run = r_device_init),
	FC(DEVICE_RELEASE, .run = r_device_release),
	FC(DEVICE_APP_PID, .run = r_app_pid, .check = ck_pid),
	FC(DEVICE_GET_ALL_APPS_INFO, .run = r_apps_info, .check = ck_apps),
	FC(BAR_READ, .run = r_bar_read),
	FC(BAR_WRITE, .prep = p_bar_write, .run = r_bar_write, .check = ck_bar_write,
	   .undo = u_bar_write),
	FC(COMPATIBLE_VERSION, .run = r_compat),
	FC(DEVICE_BASIC_INFO, .run = r_basic_info, .check = ck_arch),
	FC(DEVICE_BDF, .run = r_bdf),
	FC(DEVICE_BDF_EXT, .run = r_bdf_ext),
	FC(DEVICE_RESET_STATUS, .run = r_reset_status, .check = ck_ready),
	FC(DRIVER_INFO_GET, .run = r_driver_info),
	FC(PRINTK, .run = r_printk),
	FC(HOST_DEVICE_ID, .run = r_host_device_id, .check = ck_index),
	FC(HOST_DEVICE_ID_TO_RID_MAP, .run = r_rid_map),
	FC(GET_LOGICAL_TO_PHYSICAL_NC_MAP, .run = r_nc_map, .want = w_nc_map),
	FC(POD_INFO, .run = r_pod_info),
	FC(POD_STATUS, .run = r_pod_status),
	FC(POD_STATUS_V2, .run = r_pod_status_v2),
	FC(POD_CTRL, .run = r_pod_ctrl),
	FC(POD_CTRL_V2, .run = r_pod_ctrl_v2),
	FC(RESOURCE_MMAP_INFO, .run = r_resource_info),
	/* Memory. */
	FC(MEM_ALLOC, .run = r_mem_alloc, .check = ck_out, .undo = u_free_out),
	FC(MEM_ALLOC_V2, .run = r_mem_alloc_v2, .check = ck_out, .undo = u_free_out),
	FC(MEM_ALLOC_V2MT, .run = r_mem_alloc_v2mt, .check = ck_out, .undo = u_free_out),
	FC(MEM_ALLOC_V2MT64, .run = r_mem_alloc_v2mt64, .check = ck_out,
	   .undo = u_free_out),
	FC(MEM_ALLOC_V2MT64_PA, .run = r_mem_alloc_v2mt64_pa, .check = ck_out,
	   .undo = u_free_out),
	FC(MEM_FREE, .prep = p_dev, .run = r_mem_free, .fini = f_free),
	FCN(MEM_BUF_COPY, "to device", .prep = p_dev, .run = r_buf_copy_to,
	    .check = ck_buf_to, .fini = f_free),
	FCN(MEM_BUF_COPY, "from device", .prep = p_dev_data, .run = r_buf_copy_from,
	    .check = ck_buf_from, .fini = f_free),
	FCN(MEM_BUF_COPY64, "to device", .prep = p_dev, .run = r_buf_copy64_to,
	    .check = ck_buf_to, .fini = f_free),
	FCN(MEM_BUF_COPY64, "from device", .prep = p_dev_data, .run = r_buf_copy64_from,
	    .check = ck_buf_from, .fini = f_free),
	FC(MEM_GET_PA, .prep = p_dev, .run = r_get_pa, .check = ck_pa, .fini = f_free),
	FC(MEM_GET_INFO, .prep = p_dev, .run = r_get_info, .check = ck_pa, .fini = f_free),
	FC(MEM_GET_EXTENDED_INFO, .prep = p_dev, .run = r_ext_info, .check = ck_pa,
	   .fini = f_free),
	FC(MEM_MC_GET_INFO, .prep = p_dev, .run = r_mc_info, .fini = f_free),
	FC(MEM_MC_GET_INFO_V2, .prep = p_dev, .run = r_mc_info_v2, .check = ck_mc_handle,
	   .fini = f_free),
	FC(DUMP_MEM_CHUNKS, .prep = p_dev, .run = r_dump_chunks, .check = ck_dump,
	   .fini = f_free),
	FC(DMABUF_FD, .prep = p_dev_mapped, .run = r_dmabuf, .check = ck_dmabuf,
	   .undo = u_close_ofd, .fini = f_unmap_free),
	FC(DMABUF_FD_V2, .prep = p_dev_mapped, .run = r_dmabuf_v2, .check = ck_dmabuf,
	   .undo = u_close_ofd, .fini = f_unmap_free),
	FC(GET_VA_PLACEMENT, .prep = p_dev_mapped, .run = r_va_placement, .check = ck_index,
	   .fini = f_unmap_free),
	/* Copies through the driver's channels. */
	FC(MEM_COPY, .prep = p_host_dev, .run = r_copy32, .check = ck_copied,
	   .fini = f_free),
	FC(MEM_COPY64, .prep = p_host_dev, .run = r_copy64, .check = ck_copied,
	   .fini = f_free),
	FC(MEMSET, .prep = p_dev, .run = r_memset, .check = ck_memset, .fini = f_free),
	FC(MEMSET64, .prep = p_dev, .run = r_memset64, .check = ck_memset, .fini = f_free),
	FC(PROGRAM_ENGINE, .prep = p_dev, .run = r_program, .check = ck_programmed,
	   .fini = f_free),
	FC(PROGRAM_ENGINE_NC, .prep = p_dev, .run = r_program_nc, .check = ck_programmed,
	   .fini = f_free),
	FC(PROGRAM_ENGINE_NC64, .prep = p_dev, .run = r_program_nc64,
	   .check = ck_programmed, .fini = f_free),
	FC(MEM_COPY_ASYNC, .prep = p_host_dev, .run = r_async, .check = ck_async,
	   .undo = u_async, .fini = f_free),
	FC(MEM_COPY_ASYNC64, .prep = p_host_dev, .run = r_async64, .check = ck_async,
	   .undo = u_async, .fini = f_free),
	FC(MEM_COPY_ASYNC_WAIT, .prep = p_async, .run = r_async_wait, .check = ck_async_done,
	   .fini = f_async),
	FC(MEM_BUF_ZEROCOPY64, .prep = p_dev, .run = r_zerocopy, .check = ck_buf_to,
	   .fini = f_free),
	FC(MEM_BUF_ZEROCOPY64_DEPRECATED, .prep = p_dev, .run = r_zerocopy48, .check = ck_buf_to,
	   .fini = f_free),
	FC(MEM_BUF_ZEROCOPY64_BATCHES, .prep = p_dev, .run = r_zc_batches,
	   .check = ck_buf_to, .fini = f_free),
	FC(H2T_DMA_ALLOC_QUEUES, .run = r_h2t_alloc, .check = ck_h2t, .undo = u_h2t_free),
	FC(H2T_DMA_FREE_QUEUES, .prep = p_h2t, .run = r_h2t_free, .fini = f_h2t),
	FC(GET_ASYNC_H2T_DMA_COMPL_QUEUES, .prep = p_h2t, .run = r_cq_get, .check = ck_cq,
	   .fini = f_h2t),
	FC(HBM_SCRUB_START, .run = r_scrub_start, .undo = u_scrub_wait),
	FC(HBM_SCRUB_WAIT, .prep = p_scrub, .run = r_scrub_wait, .fini = u_scrub_wait),
	/* Engines and the runtime's queues. */
	FC(DMA_ENG_INIT, .run = r_eng_init),
	FC(DMA_ENG_SET_STATE, .run = r_eng_disable, .check = ck_eng_idle,
	   .fini = u_eng_normal),
	FC(DMA_ENG_GET_STATE, .run = r_eng_get),
	FC(DMA_QUEUE_GET_STATE, .prep = p_queue, .run = r_queue_state, .fini = f_q_free),
	FC(DMA_QUEUE_INIT, .prep = p_rings, .run = r_q_init, .undo = u_q_release,
	   .fini = f_q_free),
	FC(DMA_QUEUE_INIT_BATCH, .prep = p_rings, .run = r_q_init_batch,
	   .undo = u_q_release2, .partial = u_q_release, .fini = f_q_free),
	FC(DMA_QUEUE_RELEASE, .prep = p_queue, .run = r_q_release, .fini = f_q_free),
	FC(DMA_COPY_DESCRIPTORS, .prep = p_rings, .run = r_descs, .fini = f_free),
	FC(DMA_COPY_DESCRIPTORS64, .prep = p_rings, .run = r_descs64, .fini = f_free),
	FC(DMA_QUEUE_COPY_START, .prep = p_queue_descs, .run = r_q_start,
	   .check = ck_q_copied, .fini = f_q_free),
	FC(DMA_ACK_COMPLETED, .prep = p_queue_started, .run = r_q_ack, .fini = f_q_free),
	FC(DMA_DESCRIPTOR_COPYOUT, .prep = p_queue_started, .run = r_q_copyout,
	   .check = ck_copyout, .fini = f_q_free),
	/* Cores: semaphores and events (of core 0, which the fixture holds). */
	FC(SEMAPHORE_READ, .prep = p_sem5, .run = r_sem_read, .check = ck_sem5,
	   .fini = u_sem0),
	FC(SEMAPHORE_WRITE, .run = r_sem_write, .check = ck_sem9, .fini = u_sem0),
	FC(SEMAPHORE_INCREMENT, .prep = p_sem5, .run = r_sem_inc, .check = ck_sem7,
	   .fini = u_sem0),
	FC(SEMAPHORE_DECREMENT, .prep = p_sem5, .run = r_sem_dec, .check = ck_sem3,
	   .fini = u_sem0),
	FC(EVENT_SET, .run = r_event_set, .check = ck_event1, .fini = u_event0),
	FC(EVENT_GET, .run = r_event_get),
	/* Notification queues. */
	FC(NOTIFICATIONS_INIT_V1, .run = r_nq_v1, .undo = u_nq_destroy),
	FC(NOTIFICATIONS_DESTROY_V1, .prep = p_nq_v1, .run = r_nq_destroy,
	   .fini = f_nq_destroy),
	FC(NOTIFICATIONS_INIT_V2, .run = r_nq_v2, .undo = u_nq_v2),
	FC(NOTIFICATIONS_INIT_WITH_REALLOC_V2, .run = r_nq_realloc, .undo = u_nq_v2),
	/* Datastore. */
	FC(ACQUIRE_NEURON_DS, .run = r_ds_acquire, .undo = u_ds_release),
	FC(RELEASE_NEURON_DS, .prep = p_ds, .run = r_ds_release, .fini = u_ds_release),
	/* Model locks. */
	FC(CRWL_WRITER_ENTER, .run = r_w_enter, .undo = u_w_enter, .fini = f_lock),
	FC(CRWL_WRITER_DOWNGRADE, .prep = p_w_enter, .run = r_w_down, .undo = u_r_exit,
	   .fini = f_lock),
	FC(CRWL_READER_ENTER, .prep = p_reader, .run = r_r_enter, .undo = u_r_exit,
	   .fini = f_lock),
	FC(CRWL_READER_EXIT, .prep = p_reader, .run = r_r_exit, .fini = f_lock),
	/* Telemetry: the firmware mailboxes and the metrics thread. */
	FC(POST_METRIC, .run = r_post_metric),
	FC(READ_HW_COUNTERS, .run = r_read_hw),
	FC(POWER_PROFILE, .run = r_power_profile, .undo = u_power_profile),
	FC(GET_PERFORMANCE_PROFILE, .run = r_get_profile, .check = ck_profile0),
	FC(AVAILABLE_PERF_PROFILES, .run = r_avail, .check = ck_avail),
	FC(THROTTLING_NOTIFICATIONS, .run = r_throttle, .undo = u_throttle),
	FC(METRICS_CTRL, .run = r_metrics_pause, .undo = u_metrics_pause),
	/* Reservations, initialisation, resets. */
	FC(CRWL_NC_RANGE_MARK, .run = r_mark, .check = ck_mark, .undo = u_unmark),
	FC(CRWL_NC_RANGE_MARK_EXT0, .run = r_mark_ext, .check = ck_mark, .undo = u_unmark),
	FC(CRWL_NC_RANGE_UNMARK, .prep = p_mark, .run = r_unmark, .fini = u_unmark),
	FC(CRWL_NC_RANGE_UNMARK_EXT0, .prep = p_mark, .run = r_unmark_ext,
	   .fini = u_unmark),
	FC(NC_PID_STATE_DUMP, .run = r_pid_dump),
	FC(CINIT_SET_STATE, .run = r_cinit, .check = ck_cinit, .undo = u_cinit),
	FC(NC_MODEL_STARTED_COUNT, .run = r_started_count, .check = ck_zero),
	FC(NC_RESET, .run = r_nc_reset, .undo = u_nc_ready),
	FC(NC_RESET_READY, .prep = p_nc_reset, .run = r_nc_ready, .fini = u_nc_ready),
};

/* ---- Fixture ---------------------------------------------------------------- */

FIXTURE(fnth) {
	struct ctx c;
	int hfd;		/* free-access file that reserves core 0 */
	int nth;		/* /proc/thread-self/fail-nth */
	int knobs_set;
	char old[NKNOBS][32];
	int reject_set;
	char old_reject[NREJECT][32];
	long t0;
	/* Results. */
	long calls;		/* calls made under faults and without */
	long injected;		/* calls that failed by injection */
	long inj_ok;		/* calls that succeeded past an injected fault */
	long errs[256];		/* injected failures by errno */
	/* Where the time goes (ms): state checks, the calls themselves, liveness. */
	long ms_state, ms_call, ms_alive;
};

FIXTURE_VARIANT(fnth) {
	const struct fnth_gen *fg;
};

FIXTURE_VARIANT_ADD(fnth, v2) { .fg = &fg_v2 };
FIXTURE_VARIANT_ADD(fnth, v3) { .fg = &fg_v3 };
/*
 * v4 (neuron_dhal_v4, rw_reg 0xd6701000, a core map) passed too, in 145 s:
 * left out to keep the suite near 4 minutes in the debug VM.
 */

#define fnth_self	_test_data_fnth

FIXTURE_SETUP(fnth)
{
	unsigned long long lo, hi;
	struct span s;
	char buf[64];
	unsigned int i;

	memset(self, 0, sizeof(*self));
	self->c.fd = -1;
	self->c.wfd = -1;
	self->hfd = -1;
	self->nth = -1;
	self->t0 = nt_now_ms();
	/* A generation takes over two minutes in the debug VM: make check runs one. */
	if (!strstr(getenv("NEURON_FNTH_GENS") ?: "v3", variant->fg->g->gen))
		SKIP(return, "%s is not in NEURON_FNTH_GENS (default v3; make stress: v2,v3)",
		     variant->fg->g->gen);
	if (!nt_exists(FAIL_NTH))
		SKIP(return, "no %s: the kernel has no CONFIG_FAULT_INJECTION", FAIL_NTH);
	for (i = 0; i < NKNOBS; i++)
		if (!nt_exists("%s", knobs[i].path))
			SKIP(return, "no %s: no FAULT_INJECTION_DEBUG_FS", knobs[i].path);

	self->c.v = variant->fg;
	self->c.ncs = variant->fg->g->ncs;
	self->c.index = sim_device_up(_metadata, DEV, variant->fg->g->gen, SIM_ARGS, SETTLE_MS);
	ASSERT_EQ(DEV, self->c.index);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/core_count", DEV));
	ASSERT_EQ(self->c.ncs, (unsigned int)atoi(buf));
	self->c.fd = open_node(DEV, O_RDWR);
	ASSERT_LE(0, self->c.fd);
	self->c.wfd = open_node(DEV, O_WRONLY);
	ASSERT_LE(0, self->c.wfd);
	self->hfd = open_node(DEV, O_WRONLY);
	ASSERT_LE(0, self->hfd);
	ASSERT_EQ(0, mark(self->hfd, 1, 1, 0, 0, &s));
	ASSERT_EQ(1, s.bits[0]);
	ASSERT_EQ(0, bar_base(self->c.fd, &self->c.bar));
	self->c.nhbm = count_channels(_metadata, self->c.fd);
	ASSERT_LT(0, self->c.nhbm);

	for (i = 0; i < NKNOBS; i++)
		ASSERT_EQ(0, nt_read(self->old[i], sizeof(self->old[i]), "%s", knobs[i].path));
	self->knobs_set = 1;
	for (i = 0; i < NKNOBS; i++)
		ASSERT_EQ(0, nt_write(knobs[i].path, "%s", knobs[i].val));
	if (dma_debug_text(&lo, &hi)) {
		for (i = 0; i < NREJECT; i++)
			ASSERT_EQ(0, nt_read(self->old_reject[i], sizeof(self->old_reject[i]), "%s",
					     reject_knobs[i]));
		self->reject_set = 1;
		for (i = 0; i < NREJECT; i++)
			ASSERT_EQ(0, nt_write(reject_knobs[i], "%#llx", i % 2 ? hi : lo));
	}
	self->nth = open(FAIL_NTH, O_RDWR);
	ASSERT_LE(0, self->nth);

	/* Touched now, so that no page fault of theirs takes a fault point. */
	rnd_seed();
	rnd_fill(src, sizeof(src));
	memset(dst, 0, sizeof(dst));
}

FIXTURE_TEARDOWN(fnth)
{
	unsigned int i;

	if (self->nth >= 0)
		close(self->nth);
	for (i = 0; self->knobs_set && i < NKNOBS; i++)
		nt_write(knobs[i].path, "%s", self->old[i]);
	for (i = 0; self->reject_set && i < NREJECT; i++)
		nt_write(reject_knobs[i], "%s", self->old_reject[i]);
	if (self->c.fd >= 0)
		close(self->c.fd);
	if (self->c.wfd >= 0)
		close(self->c.wfd);
	if (self->hfd >= 0)
		close(self->hfd);
	sim_device_down(_metadata);
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/* Arm: the @n-th fault point this task passes from now on fails. */
static int arm(int nth, unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	return pwrite(nth, b, len, 0) == len ? 0 : -1;
}

/* Disarm; whether the fault was injected (-1: fail-nth unreadable). */
static int disarm(int nth)
{
	char b[16];
	ssize_t r = pread(nth, b, sizeof(b) - 1, 0);

	if (pwrite(nth, "0", 1, 0) != 1 || r <= 0)
		return -1;
	b[r] = 0;
	return atoi(b) == 0;
}

/* The device answers and is ready: 0, else what is wrong is logged. */
static int alive(struct __test_metadata *_metadata, struct ctx *c, const char *name)
{
	struct neuron_ioctl_device_basic_info bi;
	char st[64];
	long ret;

	if (strcmp(nt_sim_settle(DEV, st, sizeof(st), 5000), "ready")) {
		TH_LOG("%s: device %s afterwards", name, st);
		return -1;
	}
	ret = xioctl(c->fd, NEURON_IOCTL_DEVICE_BASIC_INFO, &bi);
	if (ret) {
		TH_LOG("%s: DEVICE_BASIC_INFO afterwards: %ld", name, ret);
		return -1;
	}
	return 0;
}

static void clear_call(struct ctx *c)
{
	memset(c->h, 0, sizeof(*c) - offsetof(struct ctx, h));
	c->ofd = -1;
	c->iter++;
}

/* Case @fc under faults 1, 2, 3 ...; the number of injected failures, -1 when it went wrong. */
static long run_case(struct __test_metadata *_metadata, struct fnth_self *self,
		     const struct fcase *fc)
{
	struct ctx *c = &self->c;
	long want = fc->want ? fc->want(c) : 0, ret, failed = 0;
	long t0 = nt_now_ms();
	struct fp f0, f1;
	char diff[256];
	int inj, bad = 0, wret;
	unsigned int n;

	for (n = 0; n < FNTH_MAX; n++) {
		long tc;

		clear_call(c);
		tc = nt_now_ms();
		if (fp_take(c->index, &f0)) {
			TH_LOG("%s: counters unreadable", fc->name);
			return -1;
		}
		if (fc->prep) {
			wret = fc->prep(c);
			if (wret) {
				TH_LOG("%s: preparing the call: %d", fc->name, wret);
				if (fc->fini)
					fc->fini(c);
				return -1;
			}
		}
		if (fp_take(c->index, &f1)) {
			TH_LOG("%s: counters unreadable", fc->name);
			return -1;
		}
		self->ms_state += nt_now_ms() - tc;
		tc = nt_now_ms();
		/* n == 0: the call without faults first (warms up what is made once). */
		if (n && arm(self->nth, n)) {
			TH_LOG("%s: cannot write %s", fc->name, FAIL_NTH);
			return -1;
		}
		ret = fc->run(c);
		inj = n ? disarm(self->nth) : 0;
		if (inj < 0) {
			TH_LOG("%s: cannot read %s", fc->name, FAIL_NTH);
			return -1;
		}
		if (!inj && ret != want) {
			TH_LOG("%s, fault %u: %ld without a fault injected, want %ld", fc->name, n,
			       ret, want);
			bad = 1;
		}
		if (inj && ret) {
			failed++;
			self->injected++;
			if (fc->partial)
				fc->partial(c);
			self->errs[-ret < 256 && ret < 0 ? -ret : 255]++;
			if (fp_reach(c->index, &f1, RELEASE_MS, diff, sizeof(diff))) {
				TH_LOG("%s, fault %u: failed with %ld and left:%s", fc->name, n,
				       ret, diff);
				bad = 1;
			}
		}
		if (inj && !ret)
			self->inj_ok++;
		if (!ret && ret == want) {
			if (fc->check && fc->check(c)) {
				TH_LOG("%s, fault %u: succeeded%s with wrong results", fc->name, n,
				       inj ? " past an injected fault" : "");
				bad = 1;
			}
			if (fc->undo)
				fc->undo(c);
		}
		if (fc->fini)
			fc->fini(c);
		self->ms_call += nt_now_ms() - tc;
		tc = nt_now_ms();
		/* The first call may make what stays (channels, a reset's new state). */
		if (n && fp_reach(c->index, &f0, RELEASE_MS, diff, sizeof(diff))) {
			TH_LOG("%s, fault %u (%s, %ld): undone, the state is not back:%s", fc->name,
			       n, inj ? "injected" : "not injected", ret, diff);
			bad = 1;
		}
		self->ms_state += nt_now_ms() - tc;
		tc = nt_now_ms();
		if (alive(_metadata, c, fc->name))
			bad = 1;
		self->ms_alive += nt_now_ms() - tc;
		self->calls++;
		if (bad)
			return -1;
		if (n && !inj) {
			if (nt_now_ms() - t0 > 2000)
				TH_LOG("%s: %u faults, %ld ms", fc->name, n, nt_now_ms() - t0);
			return failed;
		}
	}
	TH_LOG("%s: still failing after %u faults", fc->name, FNTH_MAX);
	return -1;
}

/* Whether the device with simulator id @id left nothing: node, class device, bus device. */
static int none_of(int id)
{
	return !nt_exists("/dev/neuron%d", id) && !nt_exists(CLASS_DIR "/neuron%d", id) &&
	       !nt_exists(SIM_BUS "/devices/neuron_sim%d", id);
}

/* Device creation under faults: the write to new_device, as the task that makes it. */
static long creation_case(struct __test_metadata *_metadata, struct fnth_self *self,
			  const char *gen)
{
	char spec[32], st[64];
	long ret, failed = 0;
	unsigned int n;
	int fd, len, inj;

	len = snprintf(spec, sizeof(spec), "%d %s", NEW_ID, gen);
	for (n = 1; n < FNTH_MAX; n++) {
		/*
		 * Each step brings a device up and down (about a second in the
		 * debug VM): make check takes the first CREATION_ALL fault
		 * points and every CREATION_STRIDE-th one after, the same ones
		 * every run; NEURON_STRESS=1 takes all.
		 */
		if (n > CREATION_ALL && n % CREATION_STRIDE && !nt_env_num("NEURON_STRESS", 0))
			continue;
		fd = open(SIM_BUS "/new_device", O_WRONLY);
		if (fd < 0) {
			TH_LOG("new_device: %s", strerror(errno));
			return -1;
		}
		if (arm(self->nth, n))
			return -1;
		ret = write(fd, spec, len) == len ? 0 : -errno;
		inj = disarm(self->nth);
		close(fd);
		if (inj < 0)
			return -1;
		if (ret) {
			if (!inj) {
				TH_LOG("creating device %d without a fault: %ld", NEW_ID, ret);
				return -1;
			}
			failed++;
			self->injected++;
			self->errs[-ret < 256 ? -ret : 255]++;
			if (!none_of(NEW_ID)) {
				TH_LOG("creation, fault %u: failed with %ld, left a device", n,
				       ret);
				nt_sim_del(NEW_ID);
				return -1;
			}
			continue;
		}
		if (inj)
			self->inj_ok++;
		if (strcmp(nt_sim_settle(NEW_ID, st, sizeof(st), SETTLE_MS), "ready") ||
		    nt_read(st, sizeof(st), SIM_BUS "/devices/neuron_sim%d/index", NEW_ID) ||
		    atoi(st) != NEW_ID || !nt_exists("/dev/neuron%d", NEW_ID)) {
			TH_LOG("creation, fault %u (%s): device %d not ready at index %d", n,
			       inj ? "injected" : "not injected", NEW_ID, NEW_ID);
			nt_sim_del(NEW_ID);
			return -1;
		}
		if (nt_sim_del(NEW_ID) || !none_of(NEW_ID)) {
			TH_LOG("creation, fault %u: device %d not removed", n, NEW_ID);
			return -1;
		}
		if (!inj)
			return failed;
	}
	TH_LOG("creation: still failing after %u faults", FNTH_MAX);
	return -1;
}

/* Processes attached to the device, as DEVICE_GET_ALL_APPS_INFO counts them. */
static int apps(struct ctx *c)
{
	return r_apps_info(c) ? -1 : (int)c->o32;
}

/* open() of the device node (attaching: O_RDWR; free access: O_WRONLY) under faults. */
static long open_case(struct __test_metadata *_metadata, struct fnth_self *self, int flags)
{
	struct ctx *c = &self->c;
	long failed = 0;
	struct fp f0;
	char diff[256];
	int fd, inj, a0, err;
	unsigned int n;

	for (n = 1; n < FNTH_MAX; n++) {
		if (fp_take(c->index, &f0))
			return -1;
		a0 = apps(c);
		if (arm(self->nth, n))
			return -1;
		fd = open_node(DEV, flags);
		err = errno;
		inj = disarm(self->nth);
		if (inj < 0)
			return -1;
		if (fd < 0 && !inj) {
			TH_LOG("open %#x without a fault: %s", flags, strerror(err));
			return -1;
		}
		if (fd < 0) {
			failed++;
			self->injected++;
			self->errs[err < 256 ? err : 255]++;
		} else {
			if (inj)
				self->inj_ok++;
			if (flags == O_RDWR && xioctl(fd, NEURON_IOCTL_DEVICE_APP_PID, &err)) {
				TH_LOG("open %#x, fault %u: the file does not answer", flags, n);
				close(fd);
				return -1;
			}
			close(fd);
		}
		if (fp_reach(c->index, &f0, RELEASE_MS, diff, sizeof(diff)) || apps(c) != a0) {
			TH_LOG("open %#x, fault %u (%s): left:%s, %d processes attached, were %d",
			       flags, n, inj ? "injected" : "not injected", diff, apps(c), a0);
			return -1;
		}
		if (!inj)
			return failed;
	}
	return -1;
}

/* Write a deep stack now: no call under faults copy-on-writes a page of it. */
static void touch_stack(void)
{
	unsigned char deep[128 * 1024];

	memset(deep, 1, sizeof(deep));
	__asm__ __volatile__("" : : "r"(deep) : "memory");
}

/* Whether @name is selected by NEURON_FNTH_ONLY. */
static int selected(const char *name)
{
	const char *only = getenv("NEURON_FNTH_ONLY"), *p, *end;
	char part[64];
	size_t len;

	if (!only || !*only)
		return 1;
	/* A comma-separated list: any part found in @name selects it. */
	for (p = only; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		len = end - p;
		if (!len || len >= sizeof(part))
			continue;
		memcpy(part, p, len);
		part[len] = 0;
		if (strstr(name, part))
			return 1;
	}
	return 0;
}

/* The @k slowest command cases, in a log line. */
static void log_slowest(struct __test_metadata *_metadata, const long *ms, unsigned int k)
{
	char line[512];
	unsigned int i, j, best;
	bool used[ARRAY_SIZE(fcases)] = {};
	int len = 0;

	for (i = 0; i < k; i++) {
		best = ARRAY_SIZE(fcases);
		for (j = 0; j < ARRAY_SIZE(fcases); j++)
			if (!used[j] && (best == ARRAY_SIZE(fcases) || ms[j] > ms[best]))
				best = j;
		if (best == ARRAY_SIZE(fcases) || !ms[best] || len >= (int)sizeof(line))
			break;
		used[best] = true;
		len += snprintf(line + len, sizeof(line) - len, " %s %ld", fcases[best].name,
				ms[best]);
	}
	TH_LOG("slowest command cases (ms):%s", len ? line : " none");
}

TEST_F_TIMEOUT(fnth, every_command, 900)
{
	static long case_ms[ARRAY_SIZE(fcases)];
	unsigned int i, j, impl = 0, covered = 0;
	long n, total = 0;
	char line[512];
	int k, len;

	/* The table covers every command the ioctl suite's table marks implemented. */
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!cmds[i].implemented)
			continue;
		impl++;
		for (j = 0; j < ARRAY_SIZE(fcases); j++)
			if (fcases[j].cmd == cmds[i].cmd)
				break;
		if (j < ARRAY_SIZE(fcases))
			covered++;
		else
			TH_LOG("%s: implemented, no fault-injection case", cmds[i].name);
	}
	EXPECT_EQ(impl, covered);
	touch_stack();

	for (j = 0; j < ARRAY_SIZE(fcases); j++) {
		long t0 = nt_now_ms();

		if (!selected(fcases[j].name))
			continue;
		n = run_case(_metadata, self, &fcases[j]);
		case_ms[j] = nt_now_ms() - t0;
		EXPECT_LE(0, n) TH_LOG("%s", fcases[j].name);
		if (n >= 0)
			total += n;
	}
	if (selected("open")) {
		EXPECT_LE(0, open_case(_metadata, self, O_RDWR));
		EXPECT_LE(0, open_case(_metadata, self, O_WRONLY));
	}
	if (selected("creation"))
		EXPECT_LE(0, creation_case(_metadata, self, variant->fg->g->gen));

	len = 0;
	line[0] = 0;
	for (k = 0; k < 256; k++)
		if (self->errs[k] && len < (int)sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, " %s %ld",
					k == 255 ? "other" : strerrorname_np(k) ?: "?",
					self->errs[k]);
	TH_LOG("%s: %zu cases, %ld calls, %ld failed by a fault", variant->fg->g->gen,
	       ARRAY_SIZE(fcases), self->calls, total);
	/* A filter that let no fault through would make every case pass. */
	EXPECT_LT(0, total);
	TH_LOG("injected failures by errno:%s", line);
	TH_LOG("calls that succeeded past an injected fault: %ld", self->inj_ok);
	TH_LOG("time in the command cases: state checks %ld ms, calls %ld ms, liveness %ld ms",
	       self->ms_state, self->ms_call, self->ms_alive);
	log_slowest(_metadata, case_ms, 10);
	ksft_print_msg("fail-nth: %u of %u implemented commands covered, %ld injected %s\n",
		       covered, impl, self->injected, "failures run");
}

TEST_HARNESS_MAIN
