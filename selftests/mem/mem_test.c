// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the memory commands of /dev/neuronN on simulated v2, v3 and v4
 * devices: allocation in its four forms, freeing, the information commands,
 * the chunk dump, copies between user buffers and host memory, mmap of host
 * and device memory, dma-buf export, and what one process can reach of
 * another's memory.
 *
 * Each test starts with no Neuron module loaded, loads neuron_core and
 * neuron_sim, creates one simulated device, opens it on both lanes (a normal,
 * attaching file, O_RDWR as the runtime opens it so that shared mappings can
 * be writable, and a free-access O_WRONLY file) and reads the device's
 * memory counters from debugfs.  Its teardown closes everything the test
 * made, checks that the counters are back where they started, and leaves no
 * module loaded.
 *
 * Forked children never use the harness's EXPECT or ASSERT: they count
 * failures, print them on stderr and report the count as their exit status.
 */
#include <dirent.h>
#include <stddef.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"

#define SETTLE_MS	20000
/* Simulator id of the device under test: its routing id and index. */
#define DEV		5
#define MAX_FDS		8
#define GIB		(1024ULL * 1024 * 1024)

/* Page size, set by the fixture. */
static size_t pg;

/* Allocation forms: the four commands of nr 21 and nr 102. */
enum form { F_V1, F_V2, F_MT, F_MT64, NFORMS };

static const char * const form_name[NFORMS] = {
	"MEM_ALLOC", "MEM_ALLOC_V2", "MEM_ALLOC_V2MT", "MEM_ALLOC_V2MT64",
};

/* An allocation request: every field of every form. */
struct areq {
	__u64 size;
	__u64 align;
	__u32 host;
	__u32 channel;
	__u32 region;
	__u32 nc;
	__u32 type;
	__u32 pad;
};

static __u32 tensors_type(int host)
{
	return host ? NEURON_MEMALLOC_TYPE_TENSORS_HOST : NEURON_MEMALLOC_TYPE_TENSORS_DEVICE;
}

static long mem_alloc(int fd, enum form f, const struct areq *r, __u64 *handle)
{
	union {
		struct neuron_ioctl_mem_alloc v1;
		struct neuron_ioctl_mem_alloc_v2 v2;
		struct neuron_ioctl_mem_alloc_v2_mem_type mt;
		struct neuron_ioctl_mem_alloc_v2_mem_type64 mt64;
	} a;

	memset(&a, 0, sizeof(a));
	switch (f) {
	case F_V1:
		a.v1.size = r->size;
		a.v1.host_memory = r->host;
		a.v1.dram_channel = r->channel;
		a.v1.dram_region = r->region;
		a.v1.nc_id = r->nc;
		a.v1.mem_handle = handle;
		return xioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a.v1);
	case F_V2:
		a.v2.size = r->size;
		a.v2.align = r->align;
		a.v2.host_memory = r->host;
		a.v2.dram_channel = r->channel;
		a.v2.dram_region = r->region;
		a.v2.nc_id = r->nc;
		a.v2.mem_handle = handle;
		return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a.v2);
	case F_MT:
		a.mt.size = r->size;
		a.mt.align = r->align;
		a.mt.host_memory = r->host;
		a.mt.dram_channel = r->channel;
		a.mt.dram_region = r->region;
		a.mt.nc_id = r->nc;
		a.mt.mem_type = r->type;
		a.mt.mem_handle = handle;
		return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2MT, &a.mt);
	default:
		a.mt64.size = r->size;
		a.mt64.align = r->align;
		a.mt64.host_memory = r->host;
		a.mt64.dram_channel = r->channel;
		a.mt64.dram_region = r->region;
		a.mt64.nc_id = r->nc;
		a.mt64.mem_type = r->type;
		a.mt64.pad = r->pad;
		a.mt64.mem_handle = handle;
		return xioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2MT64, &a.mt64);
	}
}

static long get_info(int fd, __u64 h, __u64 *off, __u64 *pa)
{
	struct neuron_ioctl_mem_get_info a = { .mem_handle = h, .mmap_offset = off, .pa = pa };

	return xioctl(fd, NEURON_IOCTL_MEM_GET_INFO, &a);
}

/* MEM_MC_GET_INFO_V2, or with @v1 the 24-byte form (mem_handle left alone). */
static long mc_info(int fd, int v1, __u64 pa, struct neuron_ioctl_mem_get_mc_mmap_info_v2 *mc)
{
	memset(mc, 0xa5, sizeof(*mc));
	mc->pa = pa;
	return xioctl(fd, v1 ? NEURON_IOCTL_MEM_MC_GET_INFO : NEURON_IOCTL_MEM_MC_GET_INFO_V2, mc);
}

static long dmabuf_fd(int fd, const void *va, __u64 size, __s32 *out)
{
	struct neuron_ioctl_dmabuf_fd a = { .va = (uintptr_t)va, .size = size, .fd = out };

	return xioctl(fd, NEURON_IOCTL_DMABUF_FD, &a);
}

/* Number of open files of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Whether /proc/self/maps shows anything in [addr, addr + len). */
static int maps_show(const void *addr, size_t len)
{
	unsigned long a = (uintptr_t)addr, s, e;
	char line[512], *end;
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		s = strtoul(line, &end, 16);
		if (*end != '-')
			continue;
		e = strtoul(end + 1, NULL, 16);
		if (s < a + len && a < e)
			found = 1;
	}
	fclose(f);
	return found;
}

static int send_fds(int sock, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fds(int sock, int *fds, int n)
{
	char cbuf[CMSG_SPACE(MAX_FDS * sizeof(int))], b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *c;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(n * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(c), n * sizeof(int));
	return 0;
}

FIXTURE(mem) {
	int fd;		/* normal file (O_RDWR): this process is attached */
	int wfd;	/* free-access file */
	int index;
	int ncs;	/* NeuronCores */
	int nhbm;	/* device memory channels */
	int counted;	/* @start holds the counters at the start */
	struct mcount start;
	struct undo undo;	/* children and mappings */
	int fds[MAX_FDS];	/* other files the test opened (dma-bufs) */
	long t0;		/* ms, when the setup started */
	char buf[256];
};

FIXTURE_VARIANT(mem) {
	const char *gen;
};

FIXTURE_VARIANT_ADD(mem, v2) {
	.gen = "v2",
};

FIXTURE_VARIANT_ADD(mem, v3) {
	.gen = "v3",
};

FIXTURE_VARIANT_ADD(mem, v4) {
	.gen = "v4",
};

/* The types the harness gives a fixture's data and variant. */
#define mem_self	_test_data_mem
#define mem_variant	_fixture_variant_mem

FIXTURE_SETUP(mem)
{
	int i;

	self->t0 = nt_now_ms();
	self->fd = -1;
	self->wfd = -1;
	self->counted = 0;
	for (i = 0; i < MAX_FDS; i++)
		self->fds[i] = -1;
	memset(&self->undo, 0, sizeof(self->undo));
	pg = sysconf(_SC_PAGESIZE);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());

	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	ASSERT_EQ(DEV, self->index);
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/core_count",
			     self->index));
	self->ncs = atoi(self->buf);
	ASSERT_LT(0, self->ncs);
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->wfd = open_node(self->index, O_WRONLY);
	ASSERT_LE(0, self->wfd);
	ASSERT_EQ(0, mcount_read(self->index, &self->start));
	self->counted = 1;
	self->nhbm = count_channels(_metadata, self->fd);
	ASSERT_LT(0, self->nhbm);
	ASSERT_GT(64, self->nhbm);
}

FIXTURE_TEARDOWN(mem)
{
	int i;

	kill_kids(&self->undo);
	unmap_all(&self->undo);
	for (i = 0; i < MAX_FDS; i++)
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	if (self->fd >= 0)
		close(self->fd);
	if (self->wfd >= 0)
		close(self->wfd);
	/* Everything the test made is gone: so is its memory. */
	sim_device_end(_metadata, self->index, self->counted ? &self->start : NULL, self->t0);
}

static void keep_fd(struct mem_self *self, int fd)
{
	int i;

	for (i = 0; i < MAX_FDS; i++) {
		if (self->fds[i] < 0) {
			self->fds[i] = fd;
			return;
		}
	}
}

static void drop_fd(struct mem_self *self, int fd)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (self->fds[i] == fd)
			self->fds[i] = -1;
	close(fd);
}

/* One of the test's chunks. */
struct chunk {
	__u64 h;
	__u64 pa;
	__u64 size;
	int host;
};

static int in_chunk(const struct chunk *c, __u64 pa)
{
	return pa >= c->pa && pa - c->pa < c->size;
}

/* Allocate @size bytes (host, or device on @channel) and look the chunk up. */
static void new_chunk(struct __test_metadata *_metadata, struct mem_self *self, int host,
		      __u64 size, __u32 channel, struct chunk *c)
{
	struct neuron_ioctl_mem_get_extended_info ei;

	memset(c, 0, sizeof(*c));
	c->host = host;
	ASSERT_EQ(0, host ? alloc_host(self->fd, size, &c->h) :
			    alloc_dev(self->fd, size, channel, &c->h));
	ASSERT_NE(0, c->h);
	ASSERT_EQ(0, ext_info(self->fd, c->h, &ei));
	c->pa = ei.pa;
	c->size = ei.size;
	ASSERT_EQ((size + pg - 1) / pg * pg, c->size);
}

/*
 * Everything a chunk says about itself: EXTENDED_INFO, GET_PA and GET_INFO
 * agree; the size is rounded up to a page; the owner is this process.
 */
static void check_chunk(struct __test_metadata *_metadata, struct mem_self *self, __u64 h,
			int host, __u64 size, __u64 *pa_out)
{
	struct neuron_ioctl_mem_get_extended_info ei;
	__u64 pa = 1, off = 2;

	ASSERT_EQ(0, ext_info(self->fd, h, &ei));
	EXPECT_EQ(h, ei.mem_handle);
	EXPECT_EQ(1, ei.version);
	EXPECT_EQ(!!host, ei.host_memory);
	EXPECT_EQ((size + pg - 1) / pg * pg, ei.size);
	EXPECT_EQ(getpid(), ei.pid);
	EXPECT_EQ(ei.pa, ei.mmap_offset);
	ASSERT_EQ(0, get_pa(self->fd, h, &pa));
	EXPECT_EQ(ei.pa, pa);
	pa = 1;
	ASSERT_EQ(0, get_info(self->fd, h, &off, &pa));
	EXPECT_EQ(ei.pa, pa);
	EXPECT_EQ(ei.pa, off);
	if (pa_out)
		*pa_out = ei.pa;
}

/* The memory commands, with valid arguments naming the test's chunks. */
static const struct named_cmd mem_cmds[] = {
	NAMED_CMD(NEURON_IOCTL_MEM_ALLOC),
	NAMED_CMD(NEURON_IOCTL_MEM_ALLOC_V2),
	NAMED_CMD(NEURON_IOCTL_MEM_ALLOC_V2MT),
	NAMED_CMD(NEURON_IOCTL_MEM_ALLOC_V2MT64),
	NAMED_CMD(NEURON_IOCTL_MEM_FREE),
	NAMED_CMD(NEURON_IOCTL_MEM_BUF_COPY),
	NAMED_CMD(NEURON_IOCTL_MEM_BUF_COPY64),
	NAMED_CMD(NEURON_IOCTL_MEM_GET_PA),
	NAMED_CMD(NEURON_IOCTL_MEM_GET_INFO),
	NAMED_CMD(NEURON_IOCTL_MEM_GET_EXTENDED_INFO),
	NAMED_CMD(NEURON_IOCTL_MEM_MC_GET_INFO),
	NAMED_CMD(NEURON_IOCTL_MEM_MC_GET_INFO_V2),
	NAMED_CMD(NEURON_IOCTL_DUMP_MEM_CHUNKS),
};

/*
 * Memory command @cmd with arguments that would succeed for an attached
 * process owning device chunk @dev and host chunk @host.
 */
static long mem_cmd(int fd, unsigned int cmd, const struct chunk *dev, const struct chunk *host)
{
	static struct neuron_ioctl_mem_chunk_info entries[64];
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 mc;
	struct neuron_ioctl_mem_get_extended_info ei;
	struct areq r = { .size = pg, .type = NEURON_MEMALLOC_TYPE_TENSORS_DEVICE };
	static __u64 out, out2;
	static char buf[64];

	switch (cmd) {
	case NEURON_IOCTL_MEM_ALLOC:
		return mem_alloc(fd, F_V1, &r, &out);
	case NEURON_IOCTL_MEM_ALLOC_V2:
		return mem_alloc(fd, F_V2, &r, &out);
	case NEURON_IOCTL_MEM_ALLOC_V2MT:
		return mem_alloc(fd, F_MT, &r, &out);
	case NEURON_IOCTL_MEM_ALLOC_V2MT64:
		return mem_alloc(fd, F_MT64, &r, &out);
	case NEURON_IOCTL_MEM_FREE:
		return mem_free(fd, dev->h);
	case NEURON_IOCTL_MEM_BUF_COPY:
		return buf_copy(fd, 0, host->h, buf, sizeof(buf), 0, 0);
	case NEURON_IOCTL_MEM_BUF_COPY64:
		return buf_copy(fd, 1, host->h, buf, sizeof(buf), 0, 0);
	case NEURON_IOCTL_MEM_GET_PA:
		return get_pa(fd, dev->h, &out);
	case NEURON_IOCTL_MEM_GET_INFO:
		return get_info(fd, dev->h, &out2, &out);
	case NEURON_IOCTL_MEM_GET_EXTENDED_INFO:
		return ext_info(fd, dev->h, &ei);
	case NEURON_IOCTL_MEM_MC_GET_INFO:
		return mc_info(fd, 1, dev->pa, &mc);
	case NEURON_IOCTL_MEM_MC_GET_INFO_V2:
		return mc_info(fd, 0, dev->pa, &mc);
	case NEURON_IOCTL_DUMP_MEM_CHUNKS:
		return dump_chunks(fd, 0, ARRAY_SIZE(entries), entries, NULL);
	}
	return -ENOTTY;
}

/*
 * The gate: memory commands need an attached process's normal file.  The
 * free-access lane gets -EBADF, a child using its parent's file -EACCES;
 * neither allocates or frees anything.  DMABUF_FD takes any file.
 */
static void gate(struct __test_metadata *_metadata, struct mem_self *self,
		 const struct mem_variant *variant)
{
	struct mcount before;
	struct chunk dev, host;
	unsigned int i;
	int fails = 0, rfd;
	pid_t child;
	__u64 h, pa;
	long got;
	__s32 dfd = -1;
	void *p;

	new_chunk(_metadata, self, 0, 2 * pg, 0, &dev);
	new_chunk(_metadata, self, 1, 2 * pg, 0, &host);
	before = counts_now(_metadata, self->index);

	for (i = 0; i < ARRAY_SIZE(mem_cmds); i++) {
		got = mem_cmd(self->wfd, mem_cmds[i].cmd, &dev, &host);
		if (got != -EBADF) {
			TH_LOG("%s on the free-access file: %ld, want %d", mem_cmds[i].name, got,
			       -EBADF);
			fails++;
		}
	}
	EXPECT_EQ(0, fails);
	check_counts(_metadata, self->index, &before, "after the free-access lane");
	/* An O_WRONLY file cannot be mapped at all (the VFS says so). */
	EXPECT_EQ(-EACCES, map_fails(self->wfd, dev.pa, pg, PROT_READ, MAP_SHARED));
	EXPECT_EQ(-EACCES, map_fails(self->wfd, host.pa, pg, PROT_READ | PROT_WRITE, MAP_SHARED));
	/* DMABUF_FD passes the free-access gate: a bad address, not a bad file. */
	got = dmabuf_fd(self->wfd, NULL, pg, &dfd);
	if (got != -EOPNOTSUPP)
		EXPECT_EQ(-EINVAL, got);
	EXPECT_EQ(-1, dfd);

	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		fails = 0;
		for (i = 0; i < ARRAY_SIZE(mem_cmds); i++) {
			got = mem_cmd(self->fd, mem_cmds[i].cmd, &dev, &host);
			if (got != -EACCES) {
				fprintf(stderr, "# child: %s on the inherited file: %ld, want %d\n",
					mem_cmds[i].name, got, -EACCES);
				fails++;
			}
		}
		/* Nor can it map its parent's chunk through the parent's file. */
		p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, (off_t)dev.pa);
		CHILD_CHECK(p == MAP_FAILED && (errno == EINVAL || errno == EACCES));
		got = dmabuf_fd(self->wfd, NULL, pg, &dfd);
		CHILD_CHECK(got == -EINVAL || got == -EOPNOTSUPP);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));
	check_counts(_metadata, self->index, &before, "after the child");

	/*
	 * An O_RDONLY file is a normal file too, of the same process; the VFS
	 * lets it map memory read-only only.
	 */
	rfd = open_node(self->index, O_RDONLY);
	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, alloc_dev(rfd, pg, 0, &h));
	EXPECT_EQ(0, get_pa(self->fd, h, &pa));
	EXPECT_EQ(0, get_pa(rfd, dev.h, &pa));
	EXPECT_EQ(dev.pa, pa);
	EXPECT_EQ(0, map_fails(rfd, dev.pa, pg, PROT_READ, MAP_SHARED));
	EXPECT_EQ(0, map_fails(rfd, host.pa, 2 * pg, PROT_READ, MAP_SHARED));
	EXPECT_EQ(-EACCES, map_fails(rfd, dev.pa, pg, PROT_READ | PROT_WRITE, MAP_SHARED));
	EXPECT_EQ(-EINVAL, map_fails(rfd, dev.pa, pg, PROT_READ, MAP_PRIVATE));
	EXPECT_EQ(0, mem_free(rfd, h));
	close(rfd);
	check_counts(_metadata, self->index, &before, "after the O_RDONLY file");

	/* Both chunks are still this process's. */
	check_chunk(_metadata, self, dev.h, 0, dev.size, NULL);
	check_chunk(_metadata, self, host.h, 1, host.size, NULL);
	EXPECT_EQ(0, mem_free(self->fd, dev.h));
	EXPECT_EQ(0, mem_free(self->fd, host.h));
	check_counts(_metadata, self->index, &self->start, "after freeing");
}

/* Every form allocates host and device memory of the sizes asked, rounded up. */
static void alloc_forms_and_sizes(struct __test_metadata *_metadata, struct mem_self *self,
				  const struct mem_variant *variant)
{
	static const __u64 mult[] = { 0, 1, 1, 3, 5 };
	static const int add[] = { 1, 0, 1, 0, -1 };
	struct mcount before, want;
	unsigned int f, s;
	__u64 h, size, rounded;
	int host;

	for (f = 0; f < NFORMS; f++) {
		for (host = 0; host < 2; host++) {
			for (s = 0; s < ARRAY_SIZE(mult); s++) {
				struct areq r = {
					.host = host, .channel = host ? 0 : self->nhbm - 1,
					.type = tensors_type(host),
				};

				size = mult[s] * pg + add[s];
				rounded = (size + pg - 1) / pg * pg;
				r.size = size;
				before = counts_now(_metadata, self->index);
				h = 0;
				ASSERT_EQ(0, mem_alloc(self->fd, f, &r, &h)) {
					TH_LOG("%s host %d size %llu", form_name[f], host,
					       (unsigned long long)size);
				}
				EXPECT_NE(0, h);
				check_chunk(_metadata, self, h, host, size, NULL);
				want = mcount_plus(&before, host ? rounded : 0, host ? 0 : rounded,
						   1, 1);
				check_counts(_metadata, self->index, &want, form_name[f]);
				EXPECT_EQ(0, mem_free(self->fd, h));
				check_counts(_metadata, self->index, &before, form_name[f]);
			}
		}
	}
}

/*
 * MEM_ALLOC_V2MT64_PA (2.28): allocates as V2MT64 and writes the whole
 * struct back with pa (what GET_PA reports) and its padding zeroed; a
 * handle or struct that cannot be written leaves nothing allocated.
 */
static void alloc_with_pa(struct __test_metadata *_metadata, struct mem_self *self,
			  const struct mem_variant *variant)
{
	struct neuron_ioctl_mem_alloc_v2_mem_type64_pa a;
	unsigned char *raw = (unsigned char *)&a, *ro = read_only_page();
	struct mcount before = counts_now(_metadata, self->index);
	void *wp;
	__u64 h, pa;
	int host, i;

	ASSERT_NE(NULL, ro);
	ASSERT_EQ(64, sizeof(a));
	for (host = 0; host < 2; host++) {
		memset(&a, 0xa5, sizeof(a));
		a.size = 3 * pg;
		a.align = 0;
		a.host_memory = host;
		a.hbm_index = 0;
		a.dram_region_unused = 0;
		a.nc_id = 0;
		a.mem_type = tensors_type(host);
		a.mem_handle = &h;
		a.pad = 0;
		h = 0;
		ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, &a));
		EXPECT_NE(0, h);
		ASSERT_EQ(0, get_pa(self->fd, h, &pa));
		EXPECT_EQ(pa, a.pa);
		EXPECT_EQ(3 * pg, a.size);
		EXPECT_EQ(&h, a.mem_handle);
		for (i = 36; i < 40; i++)
			EXPECT_EQ(0, raw[i]);
		for (i = 52; i < 56; i++)
			EXPECT_EQ(0, raw[i]);
		check_chunk(_metadata, self, h, host, 3 * pg, NULL);
		EXPECT_EQ(0, mem_free(self->fd, h));
	}
	memset(&a, 0, sizeof(a));
	a.size = pg;
	a.host_memory = 1;
	a.mem_type = tensors_type(1);
	a.mem_handle = &h;
	a.pad = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, &a));
	a.pad = 0;
	a.mem_handle = (__u64 *)ro;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, &a));
	a.mem_handle = &h;
	/* A request it can read but not write back: allocated, then freed again. */
	wp = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, wp);
	memcpy(wp, &a, sizeof(a));
	ASSERT_EQ(0, mprotect(wp, pg, PROT_READ));
	h = 0;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, wp));
	EXPECT_NE(0, h);
	if (h)
		EXPECT_EQ(-EINVAL, mem_free(self->fd, h));
	munmap(wp, pg);
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, unmapped_address()));
	EXPECT_EQ(-EBADF, xioctl(self->wfd, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, &a));
	check_counts(_metadata, self->index, &before, "after MEM_ALLOC_V2MT64_PA");
}

/* Every category, in both typed forms; device chunks report theirs in the dump. */
static void alloc_every_type(struct __test_metadata *_metadata, struct mem_self *self,
			     struct neuron_ioctl_mem_chunk_info *ent)
{
	unsigned int i, k;
	__u64 h, pa;
	enum form f;
	int host, found;
	__u32 t, n;

	for (i = 0; i < 4 * NEURON_MEMALLOC_TYPE_MAX; i++) {
		struct areq r = { .size = (i / 4 + 1) * pg, .host = i % 2, .type = i / 4 };

		t = r.type;
		host = r.host;
		f = i / 2 % 2 ? F_MT64 : F_MT;
		if (host && t == NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE)
			continue;
		ASSERT_EQ(0, mem_alloc(self->fd, f, &r, &h)) {
			TH_LOG("%s type %u host %d", form_name[f], t, host);
		}
		if (!host) {
			ASSERT_EQ(0, get_pa(self->fd, h, &pa));
			ASSERT_EQ(0, dump_chunks(self->fd, 0, 256, ent, &n));
			found = 0;
			for (k = 0; k < n && k < 256; k++)
				if (ent[k].pa == pa)
					found = ent[k].mem_type == t && ent[k].size == r.size;
			EXPECT_TRUE(found) {
				TH_LOG("type %u: dump entry wrong or missing", t);
			}
		}
		EXPECT_EQ(0, mem_free(self->fd, h));
	}
}

/* Every channel, every core, every category, every alignment. */
static void alloc_placement(struct __test_metadata *_metadata, struct mem_self *self,
			    const struct mem_variant *variant)
{
	static const __u64 aligns[] = { 1, 2, 512, 4096, 8192, 65536, 1 << 20, 4 << 20 };
	struct neuron_ioctl_mem_chunk_info *ent;
	struct chunk ch[16], pre;
	unsigned int i, j, nheld = 0;
	__u64 h, pa, held[32];
	enum form f;
	__u32 n, k;
	int c, host, found;

	ASSERT_GE(16, self->nhbm);
	ent = calloc(256, sizeof(*ent));
	ASSERT_NE(NULL, ent);

	/* Each channel has its own addresses, and the dump of that channel only lists them. */
	for (c = 0; c < self->nhbm; c++)
		new_chunk(_metadata, self, 0, 2 * pg, c, &ch[c]);
	for (c = 0; c < self->nhbm; c++) {
		ASSERT_EQ(0, dump_chunks(self->fd, c, 256, ent, &n));
		for (i = 0; i < (unsigned int)self->nhbm; i++) {
			found = 0;
			for (k = 0; k < n && k < 256; k++)
				found |= ent[k].pa == ch[i].pa && ent[k].size == ch[i].size;
			EXPECT_EQ(i == (unsigned int)c, found) {
				TH_LOG("chunk of channel %u in the dump of channel %d", i, c);
			}
		}
		for (i = 0; i < (unsigned int)c; i++)
			EXPECT_FALSE(in_chunk(&ch[i], ch[c].pa) || in_chunk(&ch[c], ch[i].pa));
	}
	for (c = 0; c < self->nhbm; c++)
		EXPECT_EQ(0, mem_free(self->fd, ch[c].h));

	/* Any core of the device, host or device memory. */
	for (i = 0; i < (unsigned int)self->ncs; i++) {
		for (host = 0; host < 2; host++) {
			struct areq r = { .size = pg, .host = host, .nc = i };

			ASSERT_EQ(0, mem_alloc(self->fd, F_V1, &r, &h));
			EXPECT_EQ(0, mem_free(self->fd, h));
			r.type = tensors_type(host);
			ASSERT_EQ(0, mem_alloc(self->fd, F_MT64, &r, &h));
			EXPECT_EQ(0, mem_free(self->fd, h));
		}
	}

	alloc_every_type(_metadata, self, ent);

	/*
	 * A one-page chunk first, so that the next free address is not
	 * aligned; the small alignments are held, so each starts elsewhere.
	 */
	new_chunk(_metadata, self, 0, pg, self->nhbm - 1, &pre);
	for (i = 0; i < ARRAY_SIZE(aligns); i++) {
		for (f = F_V2; f <= F_MT64; f++) {
			struct areq r = {
				.size = pg, .align = aligns[i], .type = tensors_type(0),
				.channel = self->nhbm - 1,
			};

			ASSERT_EQ(0, mem_alloc(self->fd, f, &r, &h)) {
				TH_LOG("%s align %llu", form_name[f],
				       (unsigned long long)aligns[i]);
			}
			ASSERT_EQ(0, get_pa(self->fd, h, &pa));
			EXPECT_EQ(0, pa % aligns[i]) {
				TH_LOG("%s align %llu: pa %#llx", form_name[f],
				       (unsigned long long)aligns[i], (unsigned long long)pa);
			}
			if (aligns[i] > 65536 || nheld == ARRAY_SIZE(held)) {
				EXPECT_EQ(0, mem_free(self->fd, h));
				continue;
			}
			held[nheld++] = h;
		}
	}
	for (j = 0; j < nheld; j++)
		EXPECT_EQ(0, mem_free(self->fd, held[j]));
	EXPECT_EQ(0, mem_free(self->fd, pre.h));
	free(ent);
	check_counts(_metadata, self->index, &self->start, "after placement");
}

/* A failing allocation: the errno (@want, or @or_want if non-zero), and nothing allocated. */
static void alloc_fails(struct __test_metadata *_metadata, struct mem_self *self, enum form f,
			const struct areq *r, __u64 *hp, long want, long or_want, const char *what)
{
	struct mcount before = counts_now(_metadata, self->index);
	__u64 h = 0;
	long got;

	got = mem_alloc(self->fd, f, r, hp ? hp : &h);
	if (got != want && (!or_want || got != or_want)) {
		TH_LOG("%s, %s: %ld, want %ld", form_name[f], what, got, want);
		EXPECT_EQ(want, got);
	}
	if (!got && !hp)
		mem_free(self->fd, h);
	EXPECT_EQ(0, h);
	check_counts(_metadata, self->index, &before, what);
}

static void alloc_errors(struct __test_metadata *_metadata, struct mem_self *self,
			 const struct mem_variant *variant)
{
	static const __u64 bad_align[] = {
		3, 0x3000, 4097, (1ULL << 63) + 1, ~0ULL,
	};
	static const __u64 huge_align[] = { 1ULL << 40, 1ULL << 63 };
	void *nowhere = unmapped_address(), *ro = read_only_page();
	unsigned int i;
	enum form f;
	int host;

	ASSERT_NE(NULL, nowhere);
	ASSERT_NE(NULL, ro);
	for (f = F_V1; f < NFORMS; f++) {
		for (host = 0; host < 2; host++) {
			struct areq ok = { .size = pg, .host = host, .type = tensors_type(host) };
			struct areq r;

			r = ok;
			r.size = 0;
			alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "size 0");
			r = ok;
			r.nc = self->ncs;
			alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "core = core_count");
			r.nc = ~0U;
			alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "core ~0");
			r = ok;
			r.size = host ? 1ULL << 40 : GIB;
			alloc_fails(_metadata, self, f, &r, NULL, -ENOMEM, 0, "more than the pool");
			r.size = 1ULL << 62;
			alloc_fails(_metadata, self, f, &r, NULL, -ENOMEM, 0, "2^62 bytes");
			/* Rounding up to a page overflows: refused either way. */
			r.size = ~0ULL;
			alloc_fails(_metadata, self, f, &r, NULL, -ENOMEM, -EINVAL, "2^64-1 bytes");
			r.size = ~0ULL - pg + 2;
			alloc_fails(_metadata, self, f, &r, NULL, -ENOMEM, -EINVAL,
				    "2^64-pg+1 bytes");

			/* No handle can be returned: nothing is allocated. */
			alloc_fails(_metadata, self, f, &ok, (void *)8, -EFAULT, 0, "handle at 8");
			alloc_fails(_metadata, self, f, &ok, nowhere, -EFAULT, 0,
				    "handle unmapped");
			alloc_fails(_metadata, self, f, &ok, ro, -EFAULT, 0,
				    "handle read-only");
			alloc_fails(_metadata, self, f, &ok, (void *)((uintptr_t)nowhere + pg - 4),
				    -EFAULT, 0, "handle straddles the end of a mapping");

			if (!host) {
				r = ok;
				r.channel = self->nhbm;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0,
					    "channel = channel count");
				r.channel = 4;
				if (self->nhbm <= 4)
					alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0,
						    "channel 4");
				r.channel = ~0U;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "channel ~0");
				r = ok;
				r.region = 1;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "region 1");
				r.region = ~0U;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "region ~0");
			}
			if (f == F_V1)
				continue;

			for (i = 0; !host && i < ARRAY_SIZE(bad_align); i++) {
				r = ok;
				r.align = bad_align[i];
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0,
					    "align not a power of two");
			}
			/*
			 * Alignment is of the device address: on the last
			 * channel (its pool does not start at 0) nothing
			 * qualifies.  Channel 0's pool may start at address 0,
			 * a multiple of anything: there it may succeed, but
			 * only at such an address.
			 */
			for (i = 0; !host && i < 2 * ARRAY_SIZE(huge_align); i++) {
				__u64 h = 0, pa = 1;
				long got;

				r = ok;
				r.align = huge_align[i / 2];
				r.channel = i % 2 ? self->nhbm - 1 : 0;
				snprintf(self->buf, sizeof(self->buf),
					 "align 2^%d (larger than the pool), channel %u",
					 __builtin_ctzll(r.align), r.channel);
				if (r.channel) {
					alloc_fails(_metadata, self, f, &r, NULL, -ENOMEM, 0,
						    self->buf);
					continue;
				}
				got = mem_alloc(self->fd, f, &r, &h);
				if (got) {
					EXPECT_EQ(-ENOMEM, got) TH_LOG("%s", self->buf);
					continue;
				}
				EXPECT_EQ(0, get_pa(self->fd, h, &pa));
				EXPECT_EQ(0, pa % r.align) TH_LOG("%s: pa %#llx", self->buf,
								  (unsigned long long)pa);
				EXPECT_EQ(0, mem_free(self->fd, h));
			}
			if (host) {
				r = ok;
				r.align = pg;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0,
					    "host memory with an alignment");
				r.align = 1;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0,
					    "host memory with alignment 1");
			}
			if (f == F_V2)
				continue;

			r = ok;
			r.type = NEURON_MEMALLOC_TYPE_MAX;
			alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "type MAX");
			r.type = ~0U;
			alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "type ~0");
			if (host) {
				r.type = NEURON_MEMALLOC_TYPE_CONTIGUOUS_SCRATCHPAD_DEVICE;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0,
					    "host contiguous scratchpad");
			}
			if (f == F_MT64) {
				r = ok;
				r.pad = 1;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "pad 1");
				r.pad = ~0U;
				alloc_fails(_metadata, self, f, &r, NULL, -EINVAL, 0, "pad ~0");
			}
		}
	}
	munmap(ro, pg);
	check_counts(_metadata, self->index, &self->start, "after the errors");
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/*
 * Handles: never 0, all different, not a counter (no steady step, no small
 * steps), not kernel addresses; chunks never overlap; a freed handle is
 * dead.
 */
static void handle_values(struct __test_metadata *_metadata, struct mem_self *self,
			  const struct mem_variant *variant)
{
	enum { N = 64 };
	struct chunk c[N];
	__u64 sorted[N], d, prev = 0;
	int i, j, same_step = 0, small = 0, kernelish = 0;

	for (i = 0; i < N; i++)
		new_chunk(_metadata, self, i % 5 == 4, (1 + i % 2) * pg, i % self->nhbm, &c[i]);
	for (i = 0; i < N; i++) {
		EXPECT_NE(0, c[i].h);
		sorted[i] = c[i].h;
		if (c[i].h >> 48 == 0xffff)
			kernelish++;
		if (!i)
			continue;
		d = c[i].h - c[i - 1].h;
		if (i > 1 && d == prev)
			same_step++;
		if (d + 4096 < 8192)
			small++;
		prev = d;
	}
	qsort(sorted, N, sizeof(sorted[0]), cmp_u64);
	for (i = 1; i < N; i++)
		EXPECT_NE(sorted[i - 1], sorted[i]);
	TH_LOG("first values %#llx %#llx %#llx: %d equal steps, %d small steps",
	       (unsigned long long)c[0].h, (unsigned long long)c[1].h,
	       (unsigned long long)c[2].h, same_step, small);
	EXPECT_GT(4, same_step);
	EXPECT_GT(4, small);
	EXPECT_GT(2, kernelish);
	for (i = 0; i < N; i++)
		for (j = 0; j < i; j++)
			EXPECT_FALSE(in_chunk(&c[i], c[j].pa) || in_chunk(&c[j], c[i].pa)) {
				TH_LOG("chunks %d and %d overlap", i, j);
			}
	for (i = 0; i < N; i++)
		EXPECT_EQ(0, mem_free(self->fd, c[i].h));
	for (i = 0; i < N; i++)
		EXPECT_EQ(-EINVAL, mem_free(self->fd, c[i].h));
	check_counts(_metadata, self->index, &self->start, "after 64 allocations");
}

/* Every command that takes a handle refuses @h with -EINVAL, and changes nothing. */
static void handle_refused(struct __test_metadata *_metadata, struct mem_self *self, __u64 h,
			   const char *what)
{
	struct neuron_ioctl_mem_get_extended_info ei;
	struct mcount before = counts_now(_metadata, self->index);
	__u64 pa = 7, off = 7;
	char buf[16];

	EXPECT_EQ(-EINVAL, mem_free(self->fd, h)) TH_LOG("MEM_FREE %s", what);
	EXPECT_EQ(-EINVAL, get_pa(self->fd, h, &pa)) TH_LOG("GET_PA %s", what);
	EXPECT_EQ(-EINVAL, get_info(self->fd, h, &off, &pa)) TH_LOG("GET_INFO %s", what);
	EXPECT_EQ(-EINVAL, ext_info(self->fd, h, &ei)) TH_LOG("GET_EXTENDED_INFO %s", what);
	EXPECT_EQ(-EINVAL, buf_copy(self->fd, 0, h, buf, sizeof(buf), 0, 0))
		TH_LOG("BUF_COPY %s", what);
	EXPECT_EQ(-EINVAL, buf_copy(self->fd, 1, h, buf, sizeof(buf), 0, 1))
		TH_LOG("BUF_COPY64 %s", what);
	EXPECT_EQ(7, pa);
	EXPECT_EQ(7, off);
	check_counts(_metadata, self->index, &before, what);
}

/* Bad handles of every kind get the same answer; another process's too. */
static void bad_handles(struct __test_metadata *_metadata, struct mem_self *self,
			const struct mem_variant *variant)
{
	struct chunk dev, host, more[8];
	__u64 bad[24], theirs;
	int up[2], down[2], i, n = 0, reused = 0;
	pid_t child;

	new_chunk(_metadata, self, 0, pg, 0, &dev);
	new_chunk(_metadata, self, 1, pg, 0, &host);
	bad[n++] = 0;
	bad[n++] = ~0ULL;
	bad[n++] = dev.h + 1;
	bad[n++] = dev.h - 1;
	bad[n++] = dev.h ^ 1;
	bad[n++] = dev.h ^ (1ULL << 63);
	bad[n++] = dev.h ^ (1ULL << 32);
	bad[n++] = dev.h & 0xffffffff;
	bad[n++] = dev.h & ~0xffffffffULL;
	bad[n++] = host.h + 1;
	bad[n++] = dev.pa;
	while (n < (int)ARRAY_SIZE(bad))
		bad[n++] = rnd();
	for (i = 0; i < n; i++) {
		snprintf(self->buf, sizeof(self->buf), "handle %#llx", (unsigned long long)bad[i]);
		if (bad[i] != dev.h && bad[i] != host.h)
			handle_refused(_metadata, self, bad[i], self->buf);
	}
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_FREE, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_FREE, unmapped_address()));

	/* Freed: dead, also once the slot may have been reused. */
	EXPECT_EQ(0, mem_free(self->fd, dev.h));
	handle_refused(_metadata, self, dev.h, "freed handle");
	for (i = 0; i < 8; i++) {
		new_chunk(_metadata, self, 0, pg, 0, &more[i]);
		reused += more[i].h == dev.h;
	}
	EXPECT_EQ(0, reused);
	if (!reused)
		handle_refused(_metadata, self, dev.h, "freed handle after new allocations");
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, mem_free(self->fd, more[i].h));

	/* Another process's live handle. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDONLY), fails = 0;
		__u64 h = 0;

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(alloc_dev(cfd, pg, 0, &h) == 0);
		CHILD_CHECK(put_u64s(up[1], &h, 1) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		/* Still there: the parent could not free it. */
		CHILD_CHECK(mem_free(cfd, h) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, get_u64s(up[0], &theirs, 1));
	handle_refused(_metadata, self, theirs, "another process's handle");
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);

	EXPECT_EQ(0, mem_free(self->fd, host.h));
	handle_refused(_metadata, self, host.h, "freed host handle");
	check_counts(_metadata, self->index, &self->start, "after bad handles");
}

/* GET_PA, GET_INFO, GET_EXTENDED_INFO: values, and bad pointers. */
static void chunk_information(struct __test_metadata *_metadata, struct mem_self *self,
			      const struct mem_variant *variant)
{
	struct neuron_ioctl_mem_get_extended_info ei;
	struct chunk dev, host;
	void *nowhere = unmapped_address();
	__u64 pa, off;
	pid_t child;

	ASSERT_NE(NULL, nowhere);
	new_chunk(_metadata, self, 1, 3 * pg - 5, 0, &host);
	new_chunk(_metadata, self, 0, 5 * pg, self->nhbm - 1, &dev);
	check_chunk(_metadata, self, host.h, 1, 3 * pg, NULL);
	check_chunk(_metadata, self, dev.h, 0, 5 * pg, NULL);
	/* Host and device addresses are apart. */
	EXPECT_NE(host.pa, dev.pa);
	EXPECT_FALSE(in_chunk(&host, dev.pa) || in_chunk(&dev, host.pa));

	/* EXTENDED_INFO writes every field, the version as 1. */
	ASSERT_EQ(0, ext_info(self->fd, dev.h, &ei));
	EXPECT_EQ(1, ei.version);
	EXPECT_EQ(0, ei.host_memory);
	EXPECT_EQ(dev.size, ei.size);
	ASSERT_EQ(0, ext_info(self->fd, host.h, &ei));
	EXPECT_EQ(1, ei.host_memory);

	/* The mmap offset is optional; the address is not. */
	pa = 0;
	EXPECT_EQ(0, get_info(self->fd, dev.h, NULL, &pa));
	EXPECT_EQ(dev.pa, pa);
	EXPECT_EQ(-EFAULT, get_info(self->fd, dev.h, &off, NULL));
	EXPECT_EQ(-EFAULT, get_info(self->fd, dev.h, &off, nowhere));
	EXPECT_EQ(-EFAULT, get_info(self->fd, dev.h, nowhere, &pa));
	EXPECT_EQ(-EFAULT, get_pa(self->fd, dev.h, NULL));
	EXPECT_EQ(-EFAULT, get_pa(self->fd, host.h, nowhere));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_GET_EXTENDED_INFO, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_GET_EXTENDED_INFO, nowhere));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_GET_PA, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_GET_INFO, nowhere));

	/* The owner's pid as its own pid namespace sees it. */
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int fails = 0, st;
		pid_t inner;

		if (unshare(CLONE_NEWPID)) {
			fprintf(stderr, "# no pid namespace: %s\n", strerror(errno));
			_exit(0);
		}
		inner = fork();
		if (inner == 0) {
			int cfd = open_node(self->index, O_RDONLY);
			__u64 h = 0;

			CHILD_CHECK(getpid() == 1);
			CHILD_CHECK(cfd >= 0);
			CHILD_CHECK(alloc_host(cfd, pg, &h) == 0);
			CHILD_CHECK(ext_info(cfd, h, &ei) == 0);
			CHILD_CHECK(ei.pid == 1);
			CHILD_CHECK(alloc_dev(cfd, pg, 0, &h) == 0);
			CHILD_CHECK(ext_info(cfd, h, &ei) == 0);
			CHILD_CHECK(ei.pid == 1);
			_exit(child_status(fails));
		}
		CHILD_CHECK(inner > 0);
		CHILD_CHECK(waitpid(inner, &st, 0) == inner);
		CHILD_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	EXPECT_EQ(0, mem_free(self->fd, host.h));
	EXPECT_EQ(0, mem_free(self->fd, dev.h));
	check_counts(_metadata, self->index, &self->start, "after the info commands");
}

/* MC_GET_INFO finds the caller's chunk holding an address, anywhere inside it. */
static void mc_get_info(struct __test_metadata *_metadata, struct mem_self *self,
			const struct mem_variant *variant)
{
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 mc;
	struct chunk c[2], gone[2];
	__u64 at[5], pa;
	int i, j, v1;

	new_chunk(_metadata, self, 1, 3 * pg, 0, &c[0]);
	new_chunk(_metadata, self, 0, 4 * pg, self->nhbm - 1, &c[1]);
	new_chunk(_metadata, self, 1, pg, 0, &gone[0]);
	new_chunk(_metadata, self, 0, 2 * pg, 0, &gone[1]);

	for (i = 0; i < 2; i++) {
		at[0] = c[i].pa;
		at[1] = c[i].pa + 1;
		at[2] = c[i].pa + c[i].size / 2;
		at[3] = c[i].pa + pg;
		at[4] = c[i].pa + c[i].size - 1;
		for (j = 0; j < 5; j++) {
			for (v1 = 0; v1 < 2; v1++) {
				ASSERT_EQ(0, mc_info(self->fd, v1, at[j], &mc)) {
					TH_LOG("%s chunk, pa %#llx, %s",
					       c[i].host ? "host" : "device",
					       (unsigned long long)at[j], v1 ? "V1" : "V2");
				}
				EXPECT_EQ(at[j], mc.pa);
				EXPECT_EQ(c[i].pa, mc.mmap_offset);
				EXPECT_EQ(c[i].size, mc.size);
				/* The 24-byte form has no handle: not written. */
				EXPECT_EQ(v1 ? 0xa5a5a5a5a5a5a5a5ULL : c[i].h, mc.mem_handle);
			}
		}
		/* The round trip: its mmap offset gives the chunk back. */
		ASSERT_EQ(0, mc_info(self->fd, 0, at[2], &mc));
		ASSERT_EQ(0, get_pa(self->fd, mc.mem_handle, &pa));
		EXPECT_EQ(c[i].pa, pa);
	}

	/* Freed chunks are nobody's; nor are addresses no chunk has. */
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, mem_free(self->fd, gone[i].h));
	for (i = 0; i < 2; i++) {
		for (v1 = 0; v1 < 2; v1++) {
			EXPECT_EQ(-ENOMEM, mc_info(self->fd, v1, gone[i].pa, &mc));
			EXPECT_EQ(-ENOMEM, mc_info(self->fd, v1, gone[i].pa + gone[i].size - 1,
						   &mc));
		}
	}
	EXPECT_EQ(-ENOMEM, mc_info(self->fd, 0, ~0ULL, &mc));
	EXPECT_EQ(-ENOMEM, mc_info(self->fd, 1, ~0ULL - pg, &mc));
	if (!in_chunk(&c[0], 0) && !in_chunk(&c[1], 0))
		EXPECT_EQ(-ENOMEM, mc_info(self->fd, 0, 0, &mc));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_MC_GET_INFO_V2, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_MC_GET_INFO, unmapped_address()));

	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, mem_free(self->fd, c[i].h));
	check_counts(_metadata, self->index, &self->start, "after MC_GET_INFO");
}

/* Index of the entry at @pa in @e[0..n), or -1. */
static int find_entry(const struct neuron_ioctl_mem_chunk_info *e, __u32 n, __u64 pa)
{
	__u32 i;

	for (i = 0; i < n; i++)
		if (e[i].pa == pa)
			return i;
	return -1;
}

/* Bytes of @e[0..n) the ABI leaves undefined (after mem_type) that are not 0. */
static int dirty_padding(const struct neuron_ioctl_mem_chunk_info *e, __u32 n)
{
	const unsigned char *b = (const void *)e;
	size_t i, j, pad = offsetof(struct neuron_ioctl_mem_chunk_info, mem_type) +
			  sizeof(e->mem_type);
	int dirty = 0;

	for (i = 0; i < n; i++)
		for (j = pad; j < sizeof(*e); j++)
			dirty += b[i * sizeof(*e) + j] != 0;
	return dirty;
}

/* Whether @e[0..n) still hold the caller's 0xa5 filling. */
static int untouched(const struct neuron_ioctl_mem_chunk_info *e, __u32 n)
{
	const unsigned char *b = (const void *)e;
	size_t i;

	for (i = 0; i < n * sizeof(*e); i++)
		if (b[i] != 0xa5)
			return 0;
	return 1;
}

/* DUMP_MEM_CHUNKS: every device chunk of a channel, any process's. */
static void dump_lists_chunks(struct __test_metadata *_metadata, struct mem_self *self,
			      const struct mem_variant *variant)
{
	enum { N = 6, CAP = 64 };
	struct neuron_ioctl_mem_chunk_info *e = calloc(CAP, sizeof(*e));
	__u32 base[16], n, ch, types[N];
	struct chunk c[N], host;
	__u64 theirs[2];
	int up[2], down[2], i, k;
	pid_t child;

	ASSERT_NE(NULL, e);
	ASSERT_EQ(24, sizeof(*e));
	ASSERT_GE(16, self->nhbm);
	for (ch = 0; ch < (__u32)self->nhbm; ch++) {
		ASSERT_EQ(0, dump_chunks(self->fd, ch, 0, NULL, &base[ch]));
		ASSERT_GT(CAP - N - 4, base[ch]);
	}

	/* Typed chunks of different sizes on the last channel, one host chunk. */
	ch = self->nhbm - 1;
	for (i = 0; i < N; i++) {
		struct areq r = {
			.size = (i + 1) * pg, .channel = ch,
			.type = NEURON_MEMALLOC_TYPE_UNKNOWN_DEVICE + i,
		};

		types[i] = r.type;
		ASSERT_EQ(0, mem_alloc(self->fd, i % 2 ? F_MT : F_MT64, &r, &c[i].h));
		ASSERT_EQ(0, get_pa(self->fd, c[i].h, &c[i].pa));
		c[i].size = r.size;
	}
	new_chunk(_metadata, self, 1, pg, 0, &host);

	/* Count only, with chunks listed. */
	EXPECT_EQ(0, dump_chunks(self->fd, ch, 0, NULL, &n));
	EXPECT_EQ(base[ch] + N, n);

	/* Room for all and two more: all written, padding zero, the rest untouched. */
	memset(e, 0xa5, CAP * sizeof(*e));
	ASSERT_EQ(0, dump_chunks(self->fd, ch, base[ch] + N + 2, e, &n));
	ASSERT_EQ(base[ch] + N, n);
	for (i = 0; i < N; i++) {
		k = find_entry(e, n, c[i].pa);
		ASSERT_LE(0, k) TH_LOG("chunk %d missing", i);
		EXPECT_EQ(c[i].size, e[k].size);
		EXPECT_EQ(types[i], e[k].mem_type);
	}
	EXPECT_EQ(-1, find_entry(e, n, host.pa));
	EXPECT_EQ(0, dirty_padding(e, n));
	EXPECT_TRUE(untouched(e + n, 2));

	/* Too small: what fits, -EAGAIN, and the count. */
	memset(e, 0xa5, CAP * sizeof(*e));
	EXPECT_EQ(-EAGAIN, dump_chunks(self->fd, ch, 2, e, &n));
	EXPECT_EQ(base[ch] + N, n);
	EXPECT_FALSE(untouched(e, 1));
	EXPECT_FALSE(untouched(e + 1, 1));
	EXPECT_EQ(0, dirty_padding(e, 2));
	EXPECT_TRUE(untouched(e + 2, 1));
	EXPECT_EQ(-EAGAIN, dump_chunks(self->fd, ch, base[ch] + N - 1, e, &n));
	EXPECT_EQ(base[ch] + N, n);

	/* Bad channel, bad array. */
	EXPECT_EQ(-EINVAL, dump_chunks(self->fd, self->nhbm, CAP, e, &n));
	EXPECT_EQ(-EINVAL, dump_chunks(self->fd, ~0U, CAP, e, &n));
	EXPECT_EQ(-EINVAL, dump_chunks(self->fd, ~0U, 0, NULL, &n));
	EXPECT_EQ(-EFAULT, dump_chunks(self->fd, ch, CAP, NULL, &n));
	EXPECT_EQ(-EFAULT, dump_chunks(self->fd, ch, CAP, unmapped_address(), &n));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_DUMP_MEM_CHUNKS, NULL));

	/* Another process's chunks are listed too, until it goes. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDONLY), fails = 0;
		struct areq r = {
			.size = 3 * pg, .channel = ch,
			.type = NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE,
		};
		__u64 h[2] = { 0, 0 };

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(mem_alloc(cfd, F_MT, &r, &h[0]) == 0);
		CHILD_CHECK(get_pa(cfd, h[0], &h[1]) == 0);
		CHILD_CHECK(put_u64s(up[1], h, 2) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, get_u64s(up[0], theirs, 2));
	memset(e, 0xa5, CAP * sizeof(*e));
	ASSERT_EQ(0, dump_chunks(self->fd, ch, CAP, e, &n));
	EXPECT_EQ(base[ch] + N + 1, n);
	k = find_entry(e, n, theirs[1]);
	ASSERT_LE(0, k);
	EXPECT_EQ(3 * pg, e[k].size);
	EXPECT_EQ(NEURON_MEMALLOC_TYPE_COLLECTIVES_DEVICE, e[k].mem_type);
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	ASSERT_EQ(0, dump_chunks(self->fd, ch, CAP, e, &n));
	EXPECT_EQ(base[ch] + N, n);
	EXPECT_EQ(-1, find_entry(e, n, theirs[1]));
	close(up[0]);
	close(down[1]);

	for (i = 0; i < N; i++)
		EXPECT_EQ(0, mem_free(self->fd, c[i].h));
	EXPECT_EQ(0, mem_free(self->fd, host.h));
	for (ch = 0; ch < (__u32)self->nhbm; ch++) {
		EXPECT_EQ(0, dump_chunks(self->fd, ch, 0, NULL, &n));
		EXPECT_EQ(base[ch], n);
	}
	free(e);
	check_counts(_metadata, self->index, &self->start, "after DUMP_MEM_CHUNKS");
}

/* Read all of host chunk @c and compare it with @want; the number of bytes that differ. */
static size_t chunk_differs(int fd, const struct chunk *c, const unsigned char *want)
{
	unsigned char *got = malloc(c->size);
	size_t i, bad = 0;

	if (!got || buf_copy(fd, 1, c->h, got, c->size, 0, 0))
		bad = c->size;
	for (i = 0; !bad && i < c->size; i++)
		bad += got[i] != want[i];
	free(got);
	return bad;
}

/* BUF_COPY and BUF_COPY64 round-trip random data at any offset and size. */
static void buf_copy_round_trip(struct __test_metadata *_metadata, struct mem_self *self,
				const struct mem_variant *variant)
{
	unsigned char *shadow, *tmp;
	struct chunk c;
	__u64 off, len, max;
	int i, wide, to_mem, bad = 0;
	long ret;

	new_chunk(_metadata, self, 1, 16 * pg + 1, 0, &c);
	ASSERT_EQ(17 * pg, c.size);
	shadow = malloc(c.size);
	tmp = malloc(c.size + 16);
	ASSERT_NE(NULL, shadow);
	ASSERT_NE(NULL, tmp);

	rnd_fill(shadow, c.size);
	ASSERT_EQ(0, buf_copy(self->fd, 1, c.h, shadow, c.size, 0, 1));
	memset(tmp, 0, c.size);
	ASSERT_EQ(0, buf_copy(self->fd, 0, c.h, tmp, c.size, 0, 0));
	EXPECT_EQ(0, memcmp(shadow, tmp, c.size));

	/* Edges: the first and last byte, page boundaries, all but one byte. */
	for (i = 0; i < 8; i++) {
		static const int what[8][2] = {
			{ 0, 1 }, { -1, 1 }, { 1, -1 }, { 4095, 2 },
			{ 4096, 4096 }, { 4097, 8190 }, { 0, -1 }, { -2, 2 },
		};

		off = what[i][0] < 0 ? c.size + what[i][0] : (__u64)what[i][0];
		len = what[i][1] < 0 ? c.size + what[i][1] : (__u64)what[i][1];
		rnd_fill(tmp + 3, len);
		ASSERT_EQ(0, buf_copy(self->fd, i % 2, c.h, tmp + 3, len, off, 1));
		memcpy(shadow + off, tmp + 3, len);
	}
	EXPECT_EQ(0, chunk_differs(self->fd, &c, shadow));

	/* Random writes and reads, mostly small, from unaligned user buffers. */
	for (i = 0; i < 400; i++) {
		off = rnd() % c.size;
		max = c.size - off;
		switch (rnd() % 4) {
		case 0:
		case 1:
			max = max < 64 ? max : 64;
			break;
		case 2:
			max = max < pg ? max : pg;
			break;
		}
		len = 1 + rnd() % max;
		wide = rnd() & 1;
		to_mem = rnd() & 1;
		if (to_mem) {
			rnd_fill(tmp + i % 16, len);
			ret = buf_copy(self->fd, wide, c.h, tmp + i % 16, len, off, 1);
			if (!ret)
				memcpy(shadow + off, tmp + i % 16, len);
		} else {
			ret = buf_copy(self->fd, wide, c.h, tmp + i % 16, len, off, 0);
			if (!ret && memcmp(shadow + off, tmp + i % 16, len))
				ret = 1;
		}
		if (ret && bad++ < 5)
			TH_LOG("%s %s offset %llu size %llu: %ld", wide ? "BUF_COPY64" : "BUF_COPY",
			       to_mem ? "to" : "from", (unsigned long long)off,
			       (unsigned long long)len, ret);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, chunk_differs(self->fd, &c, shadow));
	EXPECT_EQ(0, mem_free(self->fd, c.h));
	free(shadow);
	free(tmp);
	check_counts(_metadata, self->index, &self->start, "after the round trip");
}

/*
 * BUF_COPY on a device chunk goes through the DMA engine (selftests/dma
 * covers it in depth): one small round trip in each form.
 */
static void buf_copy_device(struct __test_metadata *_metadata, struct mem_self *self,
			    const struct chunk *dev)
{
	char buf[64], back[64];
	int wide;

	for (wide = 0; wide < 2; wide++) {
		rnd_fill(buf, sizeof(buf));
		memset(back, 0, sizeof(back));
		EXPECT_EQ(0, buf_copy(self->fd, wide, dev->h, buf, sizeof(buf), pg, 1));
		EXPECT_EQ(0, buf_copy(self->fd, wide, dev->h, back, sizeof(back), pg, 0));
		EXPECT_EQ(0, memcmp(buf, back, sizeof(buf)));
	}
}

/* Ranges outside host chunk @c, overflowing or truncated: -EINVAL both ways. */
static void buf_copy_out_of_range(struct __test_metadata *_metadata, struct mem_self *self,
				  const struct chunk *c, unsigned char *junk)
{
	const __u64 sz = c->size;
	const struct {
		int wide;
		__u64 off, size;
	} range[] = {
		{ 0, sz, 1 }, { 1, sz, 1 },			/* at the end */
		{ 0, sz - 1, 2 }, { 1, sz - 1, 2 },		/* across the end */
		{ 0, 0, sz + 1 }, { 1, 0, sz + 1 },
		{ 0, sz + pg, 1 }, { 1, sz + pg, 1 },
		{ 0, 0xfffff000, 0x2000 },			/* wraps in 32 bits */
		{ 0, 16, 0xffffffff },
		{ 0, 0xffffffff, 1 },
		{ 1, ~0ULL - 4095, 8192 },			/* wraps in 64 bits */
		{ 1, 16, ~0ULL },
		{ 1, ~0ULL, 1 },
		{ 1, 1ULL << 32, 16 },				/* not truncated */
		{ 1, 0, (1ULL << 32) + 16 },
	};
	unsigned int i;
	int to_mem;
	long got;

	for (i = 0; i < ARRAY_SIZE(range); i++) {
		for (to_mem = 0; to_mem < 2; to_mem++) {
			got = buf_copy(self->fd, range[i].wide, c->h, junk, range[i].size,
				       range[i].off, to_mem);
			if (got != -EINVAL)
				TH_LOG("%s offset %#llx size %#llx %s: %ld",
				       range[i].wide ? "BUF_COPY64" : "BUF_COPY",
				       (unsigned long long)range[i].off,
				       (unsigned long long)range[i].size,
				       to_mem ? "to" : "from", got);
			EXPECT_EQ(-EINVAL, got);
		}
	}
}

/* Out-of-range, overflowing, empty and unreachable copies. */
static void buf_copy_errors(struct __test_metadata *_metadata, struct mem_self *self,
			    const struct mem_variant *variant)
{
	unsigned char *shadow, *junk, *ro = read_only_page();
	void *nowhere = unmapped_address();
	struct chunk c, dev;
	int wide, to_mem;
	__u64 sz;

	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, nowhere);
	new_chunk(_metadata, self, 1, 4 * pg, 0, &c);
	sz = c.size;
	shadow = malloc(sz);
	junk = malloc(sz + pg);
	ASSERT_NE(NULL, shadow);
	ASSERT_NE(NULL, junk);
	rnd_fill(shadow, sz);
	ASSERT_EQ(0, buf_copy(self->fd, 1, c.h, shadow, sz, 0, 1));
	memset(junk, 0xee, sz + pg);

	buf_copy_out_of_range(_metadata, self, &c, junk);
	EXPECT_EQ(0, chunk_differs(self->fd, &c, shadow));

	for (wide = 0; wide < 2; wide++) {
		/* Nothing to copy: nothing happens, whatever the buffer. */
		EXPECT_EQ(0, buf_copy(self->fd, wide, c.h, junk, 0, 0, 1));
		EXPECT_EQ(0, buf_copy(self->fd, wide, c.h, junk, 0, pg + 3, 1));
		EXPECT_EQ(0, buf_copy(self->fd, wide, c.h, junk, 0, sz, 1));
		EXPECT_EQ(0, buf_copy(self->fd, wide, c.h, NULL, 0, 5, 1));
		EXPECT_EQ(0, buf_copy(self->fd, wide, c.h, NULL, 0, 5, 0));
		EXPECT_EQ(0, chunk_differs(self->fd, &c, shadow));
		/* Unreachable buffers. */
		for (to_mem = 0; to_mem < 2; to_mem++) {
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, c.h, NULL, 16, 0, to_mem));
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, c.h, nowhere, 16, 0, to_mem));
			EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, c.h,
						    (char *)nowhere + 2 * pg - 8, 16, 0, to_mem));
		}
		/* Copying out into a read-only buffer. */
		EXPECT_EQ(-EFAULT, buf_copy(self->fd, wide, c.h, ro, 16, 0, 0));
		/* A copy in that cannot read its whole buffer changes nothing. */
		EXPECT_EQ(0, chunk_differs(self->fd, &c, shadow));
	}
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_BUF_COPY, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_MEM_BUF_COPY64, nowhere));

	new_chunk(_metadata, self, 0, 4 * pg, 0, &dev);
	buf_copy_device(_metadata, self, &dev);
	EXPECT_EQ(0, mem_free(self->fd, dev.h));

	EXPECT_EQ(0, mem_free(self->fd, c.h));
	munmap(ro, pg);
	free(shadow);
	free(junk);
	check_counts(_metadata, self->index, &self->start, "after the copy errors");
}

/* Data goes both ways through mappings of host and device chunks, and stays. */
static void mmap_data(struct __test_metadata *_metadata, struct mem_self *self,
		      const struct mem_variant *variant)
{
	unsigned char *a, *b, *r, *pat, *tmp;
	struct chunk c;
	__u64 off, pa;
	size_t len;
	int host;

	for (host = 1; host >= 0; host--) {
		new_chunk(_metadata, self, host, 4 * pg, self->nhbm - 1, &c);
		len = c.size;
		ASSERT_EQ(0, get_info(self->fd, c.h, &off, &pa));
		a = map(&self->undo, self->fd, off, len, RW, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, a) {
			TH_LOG("%s chunk: %s", host ? "host" : "device", strerror(errno));
		}
		pat = malloc(len);
		tmp = malloc(len);
		ASSERT_NE(NULL, pat);
		ASSERT_NE(NULL, tmp);
		rnd_fill(pat, len);
		memcpy(a, pat, len);
		if (host) {
			/* What the mapping wrote, BUF_COPY reads, and the other way round. */
			ASSERT_EQ(0, buf_copy(self->fd, 1, c.h, tmp, len, 0, 0));
			EXPECT_EQ(0, memcmp(tmp, pat, len));
			rnd_fill(pat + pg + 1, 100);
			ASSERT_EQ(0, buf_copy(self->fd, 0, c.h, pat + pg + 1, 100, pg + 1, 1));
			EXPECT_EQ(0, memcmp(a, pat, len));
		}
		/* A mapping of part of the chunk shows the same bytes. */
		b = map(&self->undo, self->fd, off + pg, 2 * pg, RW, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, b);
		EXPECT_EQ(0, memcmp(b, a + pg, 2 * pg));
		memset(b + 10, 0x5a, 100);
		memset(pat + pg + 10, 0x5a, 100);
		EXPECT_EQ(0, memcmp(a, pat, len));
		EXPECT_EQ(0, unmap(&self->undo, a, len));
		EXPECT_EQ(0, unmap(&self->undo, b, 2 * pg));

		/* Mapped again: the data stayed. */
		a = map(&self->undo, self->fd, off, len, RW, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, a);
		EXPECT_EQ(0, memcmp(a, pat, len));
		EXPECT_EQ(0, unmap(&self->undo, a, len));

		/* A read-only mapping cannot be made writable. */
		r = map(&self->undo, self->fd, off, len, PROT_READ, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, r);
		EXPECT_EQ(0, memcmp(r, pat, len));
		EXPECT_EQ(-1, mprotect(r, len, RW));
		EXPECT_EQ(EACCES, errno);
		EXPECT_EQ(-1, mprotect(r + pg, pg, PROT_WRITE));
		EXPECT_EQ(EACCES, errno);
		EXPECT_EQ(0, unmap(&self->undo, r, len));

		EXPECT_EQ(0, mem_free(self->fd, c.h));
		free(pat);
		free(tmp);
	}
	check_counts(_metadata, self->index, &self->start, "after mmap data");
}

/* Mappings must be shared, page aligned, and inside one of the caller's chunks. */
static void mmap_errors(struct __test_metadata *_metadata, struct mem_self *self,
			const struct mem_variant *variant)
{
	struct chunk c[2], x, y, gone;
	const char *what;
	__u64 off;
	int i;

	new_chunk(_metadata, self, 0, 4 * pg, 0, &c[0]);
	new_chunk(_metadata, self, 1, 4 * pg, 0, &c[1]);
	for (i = 0; i < 2; i++) {
		off = c[i].pa;
		what = c[i].host ? "host" : "device";
		/* The whole chunk and any page range inside it can be mapped. */
		EXPECT_EQ(0, map_fails(self->fd, off, 4 * pg, RW, MAP_SHARED)) TH_LOG("%s", what);
		EXPECT_EQ(0, map_fails(self->fd, off + 3 * pg, pg, RW, MAP_SHARED));
		EXPECT_EQ(0, map_fails(self->fd, off + pg, 2 * pg, PROT_READ, MAP_SHARED));

		EXPECT_EQ(-EINVAL, map_fails(self->fd, off + 1, pg, RW, MAP_SHARED));
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off + pg / 2, pg, RW, MAP_SHARED));
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off, 5 * pg, RW, MAP_SHARED))
			TH_LOG("%s: past the end", what);
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off + 3 * pg, 2 * pg, RW, MAP_SHARED))
			TH_LOG("%s: across the end", what);
		if (off >= pg)
			EXPECT_EQ(-EINVAL, map_fails(self->fd, off - pg, 2 * pg, RW, MAP_SHARED))
				TH_LOG("%s: across the start", what);
		if (!in_chunk(&c[!i], off + 4 * pg))
			EXPECT_EQ(-EINVAL, map_fails(self->fd, off + 4 * pg, pg, RW, MAP_SHARED))
				TH_LOG("%s: after the end", what);
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off, pg, RW, MAP_PRIVATE))
			TH_LOG("%s: private", what);
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off, pg, PROT_READ, MAP_PRIVATE))
			TH_LOG("%s: private read-only", what);
		EXPECT_EQ(-EACCES, map_fails(self->wfd, off, pg, PROT_READ, MAP_SHARED));
	}

	/* A freed chunk is no longer the caller's. */
	for (i = 0; i < 2; i++) {
		new_chunk(_metadata, self, i, 2 * pg, 0, &gone);
		EXPECT_EQ(0, mem_free(self->fd, gone.h));
		EXPECT_EQ(-EINVAL, map_fails(self->fd, gone.pa, pg, RW, MAP_SHARED))
			TH_LOG("freed %s chunk", i ? "host" : "device");
	}
	/* Nor is an address no chunk has. */
	off = 0x7ff00000000ULL;
	if (!in_chunk(&c[0], off) && !in_chunk(&c[1], off))
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off, pg, RW, MAP_SHARED));

	/* Two neighbouring chunks are two chunks. */
	new_chunk(_metadata, self, 0, pg, 0, &x);
	new_chunk(_metadata, self, 0, pg, 0, &y);
	off = y.pa == x.pa + x.size ? x.pa : x.pa == y.pa + y.size ? y.pa : 1;
	if (off == 1)
		TH_LOG("chunks %#llx and %#llx are not neighbours", (unsigned long long)x.pa,
		       (unsigned long long)y.pa);
	if (off != 1)
		EXPECT_EQ(-EINVAL, map_fails(self->fd, off, 2 * pg, RW, MAP_SHARED));
	EXPECT_EQ(0, mem_free(self->fd, x.h));
	EXPECT_EQ(0, mem_free(self->fd, y.h));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, mem_free(self->fd, c[i].h));
	check_counts(_metadata, self->index, &self->start, "after mmap errors");
}

/* Freeing a mapped chunk drops its handle; its memory stays until the last unmap. */
static void mmap_outlives_free(struct __test_metadata *_metadata, struct mem_self *self,
			       const struct mem_variant *variant)
{
	struct mcount before, want;
	unsigned char *a, *b, *pat;
	struct chunk c, n;
	int host;

	for (host = 0; host < 2; host++) {
		before = counts_now(_metadata, self->index);
		new_chunk(_metadata, self, host, 4 * pg, 0, &c);
		a = map(&self->undo, self->fd, c.pa, c.size, RW, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, a);
		pat = malloc(c.size);
		ASSERT_NE(NULL, pat);
		rnd_fill(pat, c.size);
		memcpy(a, pat, c.size);

		EXPECT_EQ(0, mem_free(self->fd, c.h));
		want = mcount_plus(&before, host ? c.size : 0, host ? 0 : c.size, 1, 0);
		check_counts(_metadata, self->index, &want, "mapped, handle freed");
		handle_refused(_metadata, self, c.h, "freed handle of a mapped chunk");
		EXPECT_EQ(-EINVAL, map_fails(self->fd, c.pa, pg, RW, MAP_SHARED));
		/* The mapping still works, and its memory is not given out again. */
		EXPECT_EQ(0, memcmp(a, pat, c.size));
		a[5] ^= 0xff;
		pat[5] ^= 0xff;
		new_chunk(_metadata, self, host, 4 * pg, 0, &n);
		EXPECT_FALSE(in_chunk(&c, n.pa) || in_chunk(&n, c.pa)) {
			TH_LOG("%s chunk at %#llx reused while mapped", host ? "host" : "device",
			       (unsigned long long)c.pa);
		}
		EXPECT_EQ(0, mem_free(self->fd, n.h));
		EXPECT_EQ(0, memcmp(a, pat, c.size));
		EXPECT_EQ(0, unmap(&self->undo, a, c.size));
		check_counts(_metadata, self->index, &before, "freed, then unmapped");
		free(pat);
	}

	/* Two mappings, one of them split: the memory goes with the last piece. */
	before = counts_now(_metadata, self->index);
	new_chunk(_metadata, self, 0, 4 * pg, 0, &c);
	want = mcount_plus(&before, 0, c.size, 1, 0);
	a = map(&self->undo, self->fd, c.pa, c.size, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, a);
	b = map(&self->undo, self->fd, c.pa + 3 * pg, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, b);
	EXPECT_EQ(0, mem_free(self->fd, c.h));
	EXPECT_EQ(0, munmap(a + pg, pg));
	check_counts(_metadata, self->index, &want, "split mapping");
	EXPECT_EQ(0, munmap(a, pg));
	check_counts(_metadata, self->index, &want, "first piece unmapped");
	EXPECT_EQ(0, unmap(&self->undo, a, c.size));
	check_counts(_metadata, self->index, &want, "second piece unmapped");
	b[0] = 1;
	EXPECT_EQ(0, unmap(&self->undo, b, pg));
	check_counts(_metadata, self->index, &before, "all unmapped");
	check_counts(_metadata, self->index, &self->start, "after mmap and free");
}

/*
 * A process that ends with chunks and mappings, with its file open or
 * closed, or killed: all its memory goes once it is reaped.
 */
static void process_exit(struct __test_metadata *_metadata, struct mem_self *self,
			 const struct mem_variant *variant)
{
	static const char * const how[] = { "exits", "closes its file, exits", "is killed" };
	struct mcount during;
	int up[2], down[2], mode;
	pid_t child;

	for (mode = 0; mode < 3; mode++) {
		ASSERT_EQ(0, pipe(up));
		ASSERT_EQ(0, pipe(down));
		child = spawn(_metadata, &self->undo);
		if (child == 0) {
			int cfd = open_node(self->index, O_RDWR), fails = 0;
			unsigned char *hm, *dm;
			__u64 h[4] = { 0 }, pa[2] = { 0 };

			CHILD_CHECK(cfd >= 0);
			CHILD_CHECK(alloc_host(cfd, 3 * pg, &h[0]) == 0);
			CHILD_CHECK(alloc_host(cfd, pg, &h[1]) == 0);
			CHILD_CHECK(alloc_dev(cfd, 2 * pg, 0, &h[2]) == 0);
			CHILD_CHECK(alloc_dev(cfd, pg, self->nhbm - 1, &h[3]) == 0);
			CHILD_CHECK(get_pa(cfd, h[0], &pa[0]) == 0);
			CHILD_CHECK(get_pa(cfd, h[2], &pa[1]) == 0);
			hm = mmap_filled(cfd, pa[0], 3 * pg, 0x11);
			dm = mmap_filled(cfd, pa[1], 2 * pg, 0x22);
			CHILD_CHECK(hm != MAP_FAILED && dm != MAP_FAILED);
			if (fails)
				_exit(child_status(fails));
			if (mode == 1) {
				close(cfd);
				CHILD_CHECK(hm[3 * pg - 1] == 0x11 && dm[2 * pg - 1] == 0x22);
			}
			CHILD_CHECK(signal_byte(up[1]) == 0);
			if (mode == 2)
				pause();
			CHILD_CHECK(wait_byte(down[0]) == 0);
			_exit(child_status(fails));
		}
		close(up[1]);
		close(down[0]);
		ASSERT_EQ(0, wait_byte(up[0])) TH_LOG("child that %s", how[mode]);
		during = counts_now(_metadata, self->index);
		EXPECT_LE(self->start.host_bytes + 3 * (long long)pg, during.host_bytes);
		EXPECT_LE(self->start.device_bytes + 2 * (long long)pg, during.device_bytes);
		if (mode != 1) {
			struct mcount want = mcount_plus(&self->start, 4 * pg, 3 * pg, 4, 4);

			check_counts(_metadata, self->index, &want, how[mode]);
		}
		if (mode == 2)
			kill(child, SIGKILL);
		else
			ASSERT_EQ(0, signal_byte(down[1]));
		EXPECT_EQ(mode == 2 ? 128 + SIGKILL : 0, reap(&self->undo, child));
		check_counts(_metadata, self->index, &self->start, how[mode]);
		close(up[0]);
		close(down[1]);
	}
}

/*
 * Across fork(): the child's copy of the file is not its own, the mappings
 * stay with the parent (MADV_DOFORK is refused); a child that opens the device has its own memory
 * and cannot reach its parent's.
 */
static void fork_inheritance(struct __test_metadata *_metadata, struct mem_self *self,
			     const struct mem_variant *variant)
{
	unsigned char *dm, *hm, *tmp;
	struct chunk dev, host;
	pid_t child;

	new_chunk(_metadata, self, 0, 2 * pg, 0, &dev);
	new_chunk(_metadata, self, 1, 2 * pg, 0, &host);
	dm = map(&self->undo, self->fd, dev.pa, 2 * pg, RW, MAP_SHARED);
	hm = map(&self->undo, self->fd, host.pa, 2 * pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, dm);
	ASSERT_NE(MAP_FAILED, hm);
	memset(dm, 0x33, 2 * pg);
	memset(hm, 0x44, 2 * pg);
	EXPECT_EQ(1, maps_show(dm, 2 * pg));
	EXPECT_EQ(1, maps_show(hm, 2 * pg));
	/* Nor can madvise() make them inherited. */
	EXPECT_EQ(-1, madvise(dm, 2 * pg, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(hm, 2 * pg, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);

	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		struct neuron_ioctl_mem_get_mc_mmap_info_v2 mc;
		struct neuron_ioctl_mem_get_extended_info ei;
		int cfd, fails = 0;
		__u64 h = 0, pa;
		char buf[16];

		CHILD_CHECK(maps_show(dm, 2 * pg) == 0);
		CHILD_CHECK(maps_show(hm, 2 * pg) == 0);
		CHILD_CHECK(mem_free(self->fd, dev.h) == -EACCES);
		CHILD_CHECK(get_pa(self->fd, host.h, &pa) == -EACCES);
		CHILD_CHECK(alloc_dev(self->fd, pg, 0, &h) == -EACCES);

		cfd = open_node(self->index, O_RDWR);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(alloc_dev(cfd, pg, 0, &h) == 0);
		CHILD_CHECK(h && h != dev.h && h != host.h);
		CHILD_CHECK(ext_info(cfd, h, &ei) == 0 && ei.pid == (__u64)getpid());
		/* Its parent's handles and addresses are not its own, whichever file. */
		CHILD_CHECK(mem_free(cfd, dev.h) == -EINVAL);
		CHILD_CHECK(mem_free(self->fd, dev.h) == -EINVAL);
		CHILD_CHECK(mem_free(cfd, host.h) == -EINVAL);
		CHILD_CHECK(get_pa(cfd, dev.h, &pa) == -EINVAL);
		CHILD_CHECK(get_info(cfd, host.h, NULL, &pa) == -EINVAL);
		CHILD_CHECK(ext_info(cfd, dev.h, &ei) == -EINVAL);
		CHILD_CHECK(buf_copy(cfd, 1, host.h, buf, sizeof(buf), 0, 0) == -EINVAL);
		CHILD_CHECK(buf_copy(cfd, 0, host.h, buf, sizeof(buf), 0, 1) == -EINVAL);
		CHILD_CHECK(mc_info(cfd, 0, dev.pa, &mc) == -ENOMEM);
		CHILD_CHECK(mc_info(cfd, 1, host.pa, &mc) == -ENOMEM);
		CHILD_CHECK(map_fails(cfd, dev.pa, pg, RW, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(map_fails(cfd, host.pa, pg, RW, MAP_SHARED) == -EINVAL);
		CHILD_CHECK(map_fails(self->fd, dev.pa, pg, RW, MAP_SHARED) == -EINVAL);
		/* It leaves its chunk behind: its exit frees it. */
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));

	/* The parent's memory is untouched. */
	check_chunk(_metadata, self, dev.h, 0, 2 * pg, NULL);
	check_chunk(_metadata, self, host.h, 1, 2 * pg, NULL);
	EXPECT_EQ(0x33, dm[0]);
	EXPECT_EQ(0x33, dm[2 * pg - 1]);
	tmp = malloc(2 * pg);
	ASSERT_NE(NULL, tmp);
	ASSERT_EQ(0, buf_copy(self->fd, 1, host.h, tmp, 2 * pg, 0, 0));
	EXPECT_EQ(0x44, tmp[0]);
	EXPECT_EQ(0x44, tmp[2 * pg - 1]);
	free(tmp);
	EXPECT_EQ(0, unmap(&self->undo, dm, 2 * pg));
	EXPECT_EQ(0, unmap(&self->undo, hm, 2 * pg));
	EXPECT_EQ(0, mem_free(self->fd, dev.h));
	EXPECT_EQ(0, mem_free(self->fd, host.h));
	check_counts(_metadata, self->index, &self->start, "after fork");
}

/* Process B cannot free, read, copy or map process A's memory (here A is the child). */
static void two_processes(struct __test_metadata *_metadata, struct mem_self *self,
			  const struct mem_variant *variant)
{
	struct neuron_ioctl_mem_get_mc_mmap_info_v2 mc;
	struct mcount with_theirs;
	int up[2], down[2], i, v1;
	__u64 theirs[4];	/* device handle and pa, host handle and pa */
	pid_t child;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0;
		unsigned char *dm, *hm, buf[2 * 4096];
		__u64 v[4] = { 0 };

		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(alloc_dev(cfd, 2 * pg, 0, &v[0]) == 0);
		CHILD_CHECK(get_pa(cfd, v[0], &v[1]) == 0);
		CHILD_CHECK(alloc_host(cfd, 2 * pg, &v[2]) == 0);
		CHILD_CHECK(get_pa(cfd, v[2], &v[3]) == 0);
		dm = mmap_filled(cfd, v[1], 2 * pg, 0x3c);
		hm = mmap_filled(cfd, v[3], 2 * pg, 0x3d);
		CHILD_CHECK(dm != MAP_FAILED && hm != MAP_FAILED && pg <= 4096);
		if (fails)
			_exit(child_status(fails));
		CHILD_CHECK(put_u64s(up[1], v, 4) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		/* All still here and intact. */
		CHILD_CHECK(dm[0] == 0x3c && dm[2 * pg - 1] == 0x3c);
		CHILD_CHECK(buf_copy(cfd, 1, v[2], buf, 2 * pg, 0, 0) == 0);
		CHILD_CHECK(buf[0] == 0x3d && buf[2 * pg - 1] == 0x3d);
		CHILD_CHECK(mem_free(cfd, v[0]) == 0);
		CHILD_CHECK(mem_free(cfd, v[2]) == 0);
		munmap(dm, 2 * pg);
		munmap(hm, 2 * pg);
		close(cfd);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, get_u64s(up[0], theirs, 4));
	with_theirs = counts_now(_metadata, self->index);
	for (i = 0; i < 4; i += 2) {
		handle_refused(_metadata, self, theirs[i], "another process's handle");
		for (v1 = 0; v1 < 2; v1++) {
			EXPECT_EQ(-ENOMEM, mc_info(self->fd, v1, theirs[i + 1], &mc));
			EXPECT_EQ(-ENOMEM, mc_info(self->fd, v1, theirs[i + 1] + pg, &mc));
		}
		EXPECT_EQ(-EINVAL, map_fails(self->fd, theirs[i + 1], pg, RW, MAP_SHARED));
		EXPECT_EQ(-EINVAL, map_fails(self->fd, theirs[i + 1], 2 * pg, PROT_READ,
					     MAP_SHARED));
	}
	check_counts(_metadata, self->index, &with_theirs, "after trying another process's memory");
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);
	check_counts(_metadata, self->index, &self->start, "after two processes");
}

/* Whether DMABUF_FD still answers -EOPNOTSUPP (pending). */
static int dmabuf_pending(struct __test_metadata *_metadata, struct mem_self *self)
{
	struct chunk c;
	__s32 out = -1;
	void *a;
	long ret;

	new_chunk(_metadata, self, 0, pg, 0, &c);
	a = map(&self->undo, self->fd, c.pa, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, a);
	ret = dmabuf_fd(self->fd, a, pg, &out);
	if (!ret && out >= 0)
		close(out);
	EXPECT_EQ(0, unmap(&self->undo, a, pg));
	EXPECT_EQ(0, mem_free(self->fd, c.h));
	if (ret == -EOPNOTSUPP)
		return 1;
	EXPECT_EQ(0, ret);
	return 0;
}

/* DMABUF_FD ranges that are not a page range of a device-chunk mapping. */
static void dmabuf_bad_ranges(struct __test_metadata *_metadata, struct mem_self *self,
			      unsigned char *dm, unsigned char *hm, unsigned char *anon,
			      unsigned char *ro)
{
	__s32 out;
	const struct {
		const void *va;
		__u64 size;
		const char *what;
	} bad[] = {
		{ dm + 1, pg, "unaligned address" },
		{ dm + pg / 2, pg, "address in mid-page" },
		{ dm, 0, "size 0" },
		{ dm, 100, "size under a page" },
		{ dm, pg + 1, "size not a page multiple" },
		{ dm, 5 * pg, "past the mapping" },
		{ dm + pg, 4 * pg, "across the end" },
		{ dm + 4 * pg, pg, "after the mapping" },
		{ dm - pg, 2 * pg, "across the start" },
		{ dm, ~0ULL - pg + 1, "size wraps" },
		{ hm, pg, "host chunk" },
		{ anon, pg, "anonymous memory" },
		{ ro, pg, "read-only anonymous memory" },
		{ NULL, pg, "address 0" },
		{ (void *)(uintptr_t)(~0ULL - pg + 1), pg, "last page" },
		{ &out, pg, "the stack" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		out = -7;
		EXPECT_EQ(-EINVAL, dmabuf_fd(self->fd, bad[i].va, bad[i].size, &out))
			TH_LOG("%s", bad[i].what);
		EXPECT_EQ(-7, out);
	}
}

static long dmabuf_fd_v2(int fd, const void *va, __u64 size, __s32 *out, __u64 *off)
{
	struct neuron_ioctl_dmabuf_fd_v2 a = {
		.va = (uintptr_t)va, .size = size, .fd = out, .offset = off,
	};

	return xioctl(fd, NEURON_IOCTL_DMABUF_FD_V2, &a);
}

/*
 * DMABUF_FD_V2 (2.29): any byte range of the mapping, exported as the pages
 * it lies in, with the offset of its first byte; both result pointers are
 * required, and a result that cannot be written leaves no descriptor.
 */
static void dmabuf_v2(struct __test_metadata *_metadata, struct mem_self *self,
		      unsigned char *dm, unsigned char *ro)
{
	int before = count_fds();
	__u64 off = 77;
	__s32 out = -1;

	ASSERT_EQ(0, dmabuf_fd_v2(self->wfd, dm + pg + 5, pg, &out, &off));
	EXPECT_LE(0, out);
	EXPECT_EQ(5, off);
	EXPECT_EQ(FD_CLOEXEC, fcntl(out, F_GETFD) & FD_CLOEXEC);
	/* Two pages: [pg + 5, 2 pg + 5) lies in pages 1 and 2. */
	EXPECT_EQ(2 * pg, lseek(out, 0, SEEK_END));
	if (out >= 0)
		close(out);
	out = -1;
	EXPECT_EQ(0, dmabuf_fd_v2(self->fd, dm, 4 * pg, &out, &off));
	EXPECT_EQ(0, off);
	EXPECT_EQ(4 * pg, lseek(out, 0, SEEK_END));
	if (out >= 0)
		close(out);
	EXPECT_EQ(before, count_fds());

	out = -7;
	off = 77;
	EXPECT_EQ(-EINVAL, dmabuf_fd_v2(self->fd, dm, pg, NULL, &off));
	EXPECT_EQ(-EINVAL, dmabuf_fd_v2(self->fd, dm, pg, &out, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_fd_v2(self->fd, dm, 0, &out, &off));
	EXPECT_EQ(-EINVAL, dmabuf_fd_v2(self->fd, dm + 3 * pg + 1, pg, &out, &off));
	EXPECT_EQ(-EINVAL, dmabuf_fd_v2(self->fd, dm, ~0ULL, &out, &off));
	EXPECT_EQ(-EINVAL, dmabuf_fd_v2(self->fd, ro, 8, &out, &off));
	EXPECT_EQ(-7, out);
	EXPECT_EQ(77, off);
	EXPECT_EQ(-EFAULT, dmabuf_fd_v2(self->fd, dm, pg, &out, (__u64 *)ro));
	EXPECT_EQ(-EFAULT, dmabuf_fd_v2(self->fd, dm, pg, unmapped_address(), &off));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_DMABUF_FD_V2, NULL));
	EXPECT_EQ(before, count_fds());
}

/* DMABUF_FD: a page range of the caller's own mapping of a device chunk. */
static void dmabuf_errors(struct __test_metadata *_metadata, struct mem_self *self,
			  const struct mem_variant *variant)
{
	unsigned char *dm, *hm, *anon, *ro = read_only_page();
	struct chunk d, h;
	int before;
	__s32 out;

	ASSERT_NE(NULL, ro);
	new_chunk(_metadata, self, 0, 4 * pg, 0, &d);
	new_chunk(_metadata, self, 1, 2 * pg, 0, &h);
	dm = map(&self->undo, self->fd, d.pa, 4 * pg, RW, MAP_SHARED);
	hm = map(&self->undo, self->fd, h.pa, 2 * pg, RW, MAP_SHARED);
	anon = mmap(NULL, 4 * pg, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dm);
	ASSERT_NE(MAP_FAILED, hm);
	ASSERT_NE(MAP_FAILED, anon);
	before = count_fds();
	ASSERT_LT(0, before);

	/* A new close-on-exec file, from either lane, for the whole or part. */
	out = -1;
	ASSERT_EQ(0, dmabuf_fd(self->fd, dm, 4 * pg, &out));
	ASSERT_LE(0, out);
	EXPECT_EQ(FD_CLOEXEC, fcntl(out, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(before + 1, count_fds());
	close(out);
	out = -1;
	EXPECT_EQ(0, dmabuf_fd(self->wfd, dm + pg, 2 * pg, &out));
	EXPECT_LE(0, out);
	if (out >= 0)
		close(out);
	out = -1;
	EXPECT_EQ(0, dmabuf_fd(self->fd, dm + 3 * pg, pg, &out));
	if (out >= 0)
		close(out);
	EXPECT_EQ(before, count_fds());

	dmabuf_bad_ranges(_metadata, self, dm, hm, anon, ro);
	EXPECT_EQ(before, count_fds());

	/* No place for the new file: none is installed (NULL: EINVAL since 2.29). */
	EXPECT_EQ(-EINVAL, dmabuf_fd(self->fd, dm, pg, NULL));
	EXPECT_EQ(-EFAULT, dmabuf_fd(self->fd, dm, pg, unmapped_address()));
	EXPECT_EQ(-EFAULT, dmabuf_fd(self->fd, dm, pg, (__s32 *)ro));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_DMABUF_FD, NULL));
	EXPECT_EQ(-EFAULT, xioctl(self->wfd, NEURON_IOCTL_DMABUF_FD, unmapped_address()));
	EXPECT_EQ(before, count_fds());

	dmabuf_v2(_metadata, self, dm, ro);
	EXPECT_EQ(before, count_fds());

	/* Once unmapped, the range is nobody's mapping. */
	EXPECT_EQ(0, unmap(&self->undo, dm, 4 * pg));
	out = -7;
	EXPECT_EQ(-EINVAL, dmabuf_fd(self->fd, dm, pg, &out));
	EXPECT_EQ(-7, out);

	EXPECT_EQ(0, unmap(&self->undo, hm, 2 * pg));
	munmap(anon, 4 * pg);
	munmap(ro, pg);
	EXPECT_EQ(0, mem_free(self->fd, d.h));
	EXPECT_EQ(0, mem_free(self->fd, h.h));
	check_counts(_metadata, self->index, &self->start, "after dma-buf errors");
}

/*
 * Another process imports the dma-buf (over a unix socket) and maps it: it
 * sees what was written through the exporter's mapping, also after the
 * exporter freed and unmapped the chunk, whose memory the dma-buf keeps.
 */
static void dmabuf_import(struct __test_metadata *_metadata, struct mem_self *self,
			  const struct mem_variant *variant)
{
	unsigned char *dm, *pat;
	struct mcount want;
	struct chunk d, n;
	int sv[2], fds[2];
	pid_t child;

	new_chunk(_metadata, self, 0, 4 * pg, self->nhbm - 1, &d);
	dm = map(&self->undo, self->fd, d.pa, 4 * pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, dm);
	pat = malloc(4 * pg);
	ASSERT_NE(NULL, pat);
	rnd_fill(pat, 4 * pg);
	memcpy(dm, pat, 4 * pg);
	ASSERT_EQ(0, dmabuf_fd(self->fd, dm, 4 * pg, &fds[0]));
	keep_fd(self, fds[0]);
	ASSERT_EQ(0, dmabuf_fd(self->fd, dm + pg, 2 * pg, &fds[1]));
	keep_fd(self, fds[1]);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));

	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		unsigned char *m, *s;
		int got[2], fails = 0;
		__s32 out = -7;

		close(sv[0]);
		/* The parent's mapping is not in this process. */
		CHILD_CHECK(dmabuf_fd(self->wfd, dm, pg, &out) == -EINVAL && out == -7);
		CHILD_CHECK(recv_fds(sv[1], got, 2) == 0);
		if (fails)
			_exit(child_status(fails));
		m = mmap(NULL, 4 * pg, PROT_READ, MAP_SHARED, got[0], 0);
		s = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, got[1], 0);
		CHILD_CHECK(m != MAP_FAILED && s != MAP_FAILED);
		if (fails)
			_exit(child_status(fails));
		CHILD_CHECK(!memcmp(m, pat, 4 * pg));
		CHILD_CHECK(!memcmp(s, pat + pg, 2 * pg));
		/* Writes go both ways: */
		s[9] = 0x99;
		CHILD_CHECK(signal_byte(sv[1]) == 0);
		CHILD_CHECK(wait_byte(sv[1]) == 0);
		/* the parent wrote, freed and unmapped: the data is still here. */
		pat[pg + 7] = 0x42;
		pat[pg + 9] = 0x99;
		CHILD_CHECK(m[pg + 7] == 0x42 && s[7] == 0x42);
		CHILD_CHECK(!memcmp(m, pat, 4 * pg));
		CHILD_CHECK(!memcmp(s, pat + pg, 2 * pg));
		munmap(m, 4 * pg);
		munmap(s, 2 * pg);
		close(got[0]);
		close(got[1]);
		_exit(child_status(fails));
	}
	close(sv[1]);
	ASSERT_EQ(0, send_fds(sv[0], fds, 2));
	ASSERT_EQ(0, wait_byte(sv[0]));
	EXPECT_EQ(0x99, dm[pg + 9]);
	dm[pg + 7] = 0x42;

	/* Handle, mapping and our files gone: the child's dma-bufs hold the memory. */
	EXPECT_EQ(0, mem_free(self->fd, d.h));
	EXPECT_EQ(0, unmap(&self->undo, dm, 4 * pg));
	drop_fd(self, fds[0]);
	drop_fd(self, fds[1]);
	want = mcount_plus(&self->start, 0, d.size, 1, 0);
	check_counts(_metadata, self->index, &want, "held by dma-bufs only");
	new_chunk(_metadata, self, 0, 4 * pg, self->nhbm - 1, &n);
	EXPECT_FALSE(in_chunk(&d, n.pa) || in_chunk(&n, d.pa));
	EXPECT_EQ(0, mem_free(self->fd, n.h));

	ASSERT_EQ(0, signal_byte(sv[0]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(sv[0]);
	free(pat);
	check_counts(_metadata, self->index, &self->start, "after the dma-buf import");
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* 1 when reading the byte at @p raises SIGBUS, 0 when it reads. */
static int read_faults(const unsigned char *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int faulted = 1;
	unsigned char c;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(bus_jmp, 1)) {
		c = *p;
		/* The read must happen, here. */
		asm volatile("" : : "r"(c) : "memory");
		faulted = 0;
	}
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}

/*
 * Removal revokes every user mapping of the device's memory: a device and
 * a host chunk mapped through the device file and a dma-buf of the device
 * chunk mapped through its own file all fault with SIGBUS once the device
 * is gone, never reaching the released BAR.  A child owns all of it; the
 * device comes back for the teardown.
 */
static void mappings_revoked_on_removal(struct __test_metadata *_metadata, struct mem_self *self,
					const struct mem_variant *variant)
{
	int up[2], down[2];
	pid_t child;
	char buf[32];

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		unsigned char *dm, *hm, *bm;
		__u64 dh = 0, hh = 0, dpa = 0, hpa = 0;
		int cfd, fails = 0;
		__s32 bfd = -1;

		close(up[0]);
		close(down[1]);
		cfd = open_node(self->index, O_RDWR);
		CHILD_CHECK(cfd >= 0);
		CHILD_CHECK(alloc_dev(cfd, 2 * pg, 0, &dh) == 0 && get_pa(cfd, dh, &dpa) == 0);
		CHILD_CHECK(alloc_host(cfd, 2 * pg, &hh) == 0 && get_pa(cfd, hh, &hpa) == 0);
		if (fails)
			_exit(child_status(fails));
		dm = mmap_filled(cfd, dpa, 2 * pg, 0x5a);
		hm = mmap_filled(cfd, hpa, 2 * pg, 0x6b);
		CHILD_CHECK(dm != MAP_FAILED && hm != MAP_FAILED);
		if (fails)
			_exit(child_status(fails));
		CHILD_CHECK(dmabuf_fd(cfd, dm, 2 * pg, &bfd) == 0);
		bm = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, bfd, 0);
		CHILD_CHECK(bm != MAP_FAILED);
		if (fails)
			_exit(child_status(fails));
		CHILD_CHECK(!read_faults(dm) && dm[pg] == 0x5a);
		CHILD_CHECK(!read_faults(hm) && hm[pg] == 0x6b);
		CHILD_CHECK(!read_faults(bm) && bm[pg] == 0x5a);
		/* The parent removes the device now. */
		CHILD_CHECK(signal_byte(up[1]) == 0);
		CHILD_CHECK(wait_byte(down[0]) == 0);
		CHILD_CHECK(read_faults(dm) && read_faults(dm + pg));
		CHILD_CHECK(read_faults(hm) && read_faults(hm + pg));
		CHILD_CHECK(read_faults(bm) && read_faults(bm + pg));
		/* Nothing can map the dma-buf again either. */
		CHILD_CHECK(mmap(NULL, pg, PROT_READ, MAP_SHARED, bfd, 0) == MAP_FAILED);
		_exit(child_status(fails));
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(0, wait_byte(up[0]));
	ASSERT_EQ(0, nt_sim_del(DEV));
	ASSERT_EQ(0, signal_byte(down[1]));
	EXPECT_EQ(0, reap(&self->undo, child));
	close(up[0]);
	close(down[1]);
	/* The device comes back for the teardown's accounting, fresh. */
	ASSERT_EQ(0, nt_sim_add(DEV, variant->gen));
	ASSERT_STREQ("ready", nt_sim_settle(DEV, buf, sizeof(buf), SETTLE_MS));
}

#define HOST_LIMIT	"/sys/module/neuron_core/parameters/host_mem_limit_mb"

/*
 * The per-process limit on host chunks: with 1 MiB, four 256 KiB chunks
 * fit and a fifth page is refused (-ENOMEM, nothing allocated) until one
 * is freed; device memory does not count; another process has its own.
 */
static void alloc_host_limit(struct __test_metadata *_metadata, struct mem_self *self,
			     const struct mem_variant *variant)
{
	__u64 h[4], x = 0, d = 0;
	struct mcount before, now;
	char was[32];
	pid_t child;
	int i;

	ASSERT_EQ(0, nt_read(was, sizeof(was), HOST_LIMIT));
	ASSERT_EQ(0, nt_write(HOST_LIMIT, "1"));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, alloc_host(self->fd, 256 * 1024, &h[i]));
	ASSERT_EQ(0, mcount_read(self->index, &before));
	EXPECT_EQ(-ENOMEM, alloc_host(self->fd, pg, &x));
	EXPECT_EQ(0, x);
	ASSERT_EQ(0, mcount_read(self->index, &now));
	expect_counts(_metadata, &before, &now);
	EXPECT_EQ(0, alloc_dev(self->fd, pg, 0, &d));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd = open_node(self->index, O_RDWR), fails = 0;
		__u64 ch = 0;

		CHILD_CHECK(cfd >= 0 && alloc_host(cfd, 256 * 1024, &ch) == 0);
		_exit(child_status(fails));
	}
	EXPECT_EQ(0, reap(&self->undo, child));
	EXPECT_EQ(0, mem_free(self->fd, h[3]));
	EXPECT_EQ(0, alloc_host(self->fd, pg, &x));
	EXPECT_EQ(0, mem_free(self->fd, x));
	EXPECT_EQ(0, mem_free(self->fd, d));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, mem_free(self->fd, h[i]));
	EXPECT_EQ(0, nt_write(HOST_LIMIT, "%s", was));
}

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_TEST		CG_ROOT "/neuron-mem-test"
#define CG_MAX_MIB	64
#define MIB		(1024ULL * 1024)

/*
 * Host chunks are charged to the caller's memory cgroup: a process in a
 * cgroup of CG_MAX_MIB MiB gets -ENOMEM before it holds much more than
 * that (the reference let such a process take 384 MiB).  1 MiB chunks:
 * a costly order, so the charge fails rather than calling the OOM killer.
 */
static void alloc_host_memcg(struct __test_metadata *_metadata, struct mem_self *self,
			     const struct mem_variant *variant)
{
	char ctl[256];
	long got = 0;
	int up[2];
	pid_t child;

	if (!nt_exists(CG_ROOT "/cgroup.controllers"))
		nt_sh("mount -t cgroup2 none " CG_ROOT " 2>/dev/null");
	if (nt_read(ctl, sizeof(ctl), CG_ROOT "/cgroup.controllers") || !strstr(ctl, "memory")) {
		TH_LOG("no memory cgroup controller in this kernel: charging not checked");
		return;
	}
	ASSERT_EQ(0, nt_write(CG_ROOT "/cgroup.subtree_control", "+memory"));
	rmdir(CG_TEST);
	ASSERT_EQ(0, mkdir(CG_TEST, 0755));
	ASSERT_EQ(0, nt_write(CG_TEST "/memory.max", "%dM", CG_MAX_MIB));
	/* Without swap in the kernel there is no such file, and nothing to swap to. */
	nt_write(CG_TEST "/memory.swap.max", "0");
	ASSERT_EQ(0, pipe(up));
	child = spawn(_metadata, &self->undo);
	if (child == 0) {
		int cfd, fails = 0, n;
		__u64 h, v[1];
		long ret = 0;

		close(up[0]);
		CHILD_CHECK(nt_write(CG_TEST "/cgroup.procs", "%d", getpid()) == 0);
		cfd = open_node(self->index, O_RDWR);
		CHILD_CHECK(cfd >= 0);
		if (fails)
			_exit(child_status(fails));
		/* Six times the limit, if nothing stops it. */
		for (n = 0; n < 6 * CG_MAX_MIB; n++) {
			ret = alloc_host(cfd, MIB, &h);
			if (ret)
				break;
		}
		CHILD_CHECK(ret == -ENOMEM);
		v[0] = n;
		CHILD_CHECK(put_u64s(up[1], v, 1) == 0);
		_exit(child_status(fails));
	}
	close(up[1]);
	{
		__u64 v[1] = { 0 };

		EXPECT_EQ(0, get_u64s(up[0], v, 1));
		got = (long)v[0];
	}
	close(up[0]);
	EXPECT_EQ(0, reap(&self->undo, child));
	TH_LOG("a process in a %d MiB memory cgroup got %ld MiB of host chunks", CG_MAX_MIB, got);
	EXPECT_GE(CG_MAX_MIB, got) TH_LOG("host chunks are not charged to the memory cgroup");
	EXPECT_LE(CG_MAX_MIB / 2, got) TH_LOG("the cgroup's own overhead took most of it?");
	mcount_reach(self->index, &self->start, 5000);
	EXPECT_EQ(0, rmdir(CG_TEST));
}

/* Who may use the memory commands. */
TEST_F_TIMEOUT(mem, gate, 300)
{
	gate(_metadata, self, variant);
}

/* The four allocation forms, placement, refused requests, handles. */
TEST_F_TIMEOUT(mem, allocation, 300)
{
	alloc_forms_and_sizes(_metadata, self, variant);
	alloc_placement(_metadata, self, variant);
	alloc_errors(_metadata, self, variant);
	alloc_host_limit(_metadata, self, variant);
	alloc_host_memcg(_metadata, self, variant);
	handle_values(_metadata, self, variant);
	alloc_with_pa(_metadata, self, variant);
}

/* Bad handles; GET_PA, GET_INFO, GET_EXTENDED_INFO, MC_GET_INFO. */
TEST_F_TIMEOUT(mem, handles_and_info, 300)
{
	bad_handles(_metadata, self, variant);
	chunk_information(_metadata, self, variant);
	mc_get_info(_metadata, self, variant);
}

TEST_F_TIMEOUT(mem, dump_chunks, 300)
{
	dump_lists_chunks(_metadata, self, variant);
}

/* CPU copies between user buffers and host chunks. */
TEST_F_TIMEOUT(mem, buf_copy, 300)
{
	buf_copy_round_trip(_metadata, self, variant);
	buf_copy_errors(_metadata, self, variant);
}

TEST_F_TIMEOUT(mem, mmap, 300)
{
	mmap_data(_metadata, self, variant);
	mmap_errors(_metadata, self, variant);
	mmap_outlives_free(_metadata, self, variant);
}

/* Exit, fork, and two processes side by side. */
TEST_F_TIMEOUT(mem, processes, 300)
{
	process_exit(_metadata, self, variant);
	fork_inheritance(_metadata, self, variant);
	two_processes(_metadata, self, variant);
}

TEST_F_TIMEOUT(mem, dmabuf, 300)
{
	if (dmabuf_pending(_metadata, self))
		SKIP(return, "DMABUF_FD is pending (EOPNOTSUPP): dma-buf export not implemented");
	dmabuf_errors(_metadata, self, variant);
	dmabuf_import(_metadata, self, variant);
	mappings_revoked_on_removal(_metadata, self, variant);
}

TEST_HARNESS_MAIN
