// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: peer-direct registration of device memory (EFA), through the
 * fake EFA driver of this folder (fake_efa.ko), which calls
 * neuron_p2p_register_va() and neuron_p2p_unregister_va() as the EFA
 * driver does, on simulated v2, v3 and v4 devices: the page list against
 * the chunk (a pattern written through the mapping, read back by the
 * module through the physical pages), the free callback exactly once on
 * munmap, on process kill and on device removal, never after unregister,
 * unregister after the callback, the errors, and symbol_get() with only
 * neuron_core loaded.
 *
 * Each test of the fixture loads neuron_core, neuron_sim and fake_efa,
 * creates one simulated device and allocates and maps one device chunk;
 * its teardown unloads fake_efa (which unregisters what a failed test
 * left) and checks that the device's memory counters are back where they
 * started.
 */
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"

#define SETTLE_MS	20000
#define DEV		6
/* Pages of the chunk each test maps. */
#define NPAGES		8
#define FE_DIR		"/sys/kernel/debug/fake_efa"
#define FE_STATUS_LINE	\
	"slot %d state %15s cbs %d dev %u shift %u entries %u pages %llu hash %llx"

static size_t pg;

/* One line of fake_efa's status. */
struct fe_st {
	char state[16];
	int cbs;
	unsigned int dev;
	unsigned int shift;
	unsigned int entries;
	unsigned long long pages;
	unsigned long long hash;
};

/* A fake_efa command; 0 or -errno. */
static int fe(const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return nt_write(FE_DIR "/ctl", "%s", buf);
}

static int fe_reg(int slot, const void *va, size_t size, int efa)
{
	return fe("reg %d %lx %zx%s", slot, (unsigned long)va, size, efa ? " efa" : "");
}

/* Slot @slot's status line; -ENOENT when the slot was never used. */
static int fe_status(int slot, struct fe_st *st)
{
	char line[256];
	int s, ret = -ENOENT;
	FILE *f = fopen(FE_DIR "/status", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, FE_STATUS_LINE, &s, st->state, &st->cbs, &st->dev, &st->shift,
			   &st->entries, &st->pages, &st->hash) == 8 && s == slot) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* EXPECT slot @slot in state @state with @cbs callbacks run. */
#define EXPECT_SLOT(slot, want_state, want_cbs) do {			\
	struct fe_st _st;						\
	ASSERT_EQ(0, fe_status(slot, &_st));				\
	EXPECT_STREQ(want_state, _st.state);				\
	EXPECT_EQ(want_cbs, _st.cbs);					\
} while (0)

/* Fill page i of @p with words (i << 16 | word) ^ @seed. */
static void pattern(void *p, size_t npages, __u32 seed)
{
	__u32 *w = p;
	size_t i, j;

	for (i = 0; i < npages; i++)
		for (j = 0; j < pg / 4; j++)
			w[i * pg / 4 + j] = ((__u32)(i << 16) | (__u32)j) ^ seed;
}

/* Whether fake_efa.ko is installed: only modules built from a checkout have it. */
static int fe_installed(void)
{
	return !nt_sh("modinfo fake_efa >/dev/null 2>&1");
}

#define FE_MISSING	"fake_efa.ko is not installed (it is built from a checkout only)"

static unsigned long long fnv(const void *p, size_t len)
{
	return nt_fnv(0xcbf29ce484222325ULL, p, len);
}

FIXTURE(p2p) {
	struct undo undo;
	struct mcount start;
	int counted;
	int index;
	int fd;
	__u64 h;
	__u64 pa;
	char *map;
	long t0;
};

FIXTURE_VARIANT(p2p) {
	const char *gen;
};

FIXTURE_VARIANT_ADD(p2p, v2) {
	.gen = "v2",
};

FIXTURE_VARIANT_ADD(p2p, v3) {
	.gen = "v3",
};

FIXTURE_VARIANT_ADD(p2p, v4) {
	.gen = "v4",
};

#define p2p_self	_test_data_p2p

FIXTURE_SETUP(p2p)
{
	self->t0 = nt_now_ms();
	self->fd = -1;
	self->counted = 0;
	self->index = -1;
	memset(&self->undo, 0, sizeof(self->undo));
	pg = sysconf(_SC_PAGESIZE);
	if (!fe_installed())
		SKIP(return, FE_MISSING);
	TH_LOG("random seed %#llx", (unsigned long long)rnd_seed());
	nt_sh("rmmod fake_efa 2>/dev/null");
	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	ASSERT_EQ(0, nt_sh("modprobe fake_efa"));
	self->fd = open_node(self->index, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mcount_read(self->index, &self->start));
	self->counted = 1;
	ASSERT_EQ(0, alloc_dev(self->fd, NPAGES * pg, 0, &self->h));
	ASSERT_EQ(0, get_pa(self->fd, self->h, &self->pa));
	self->map = map(&self->undo, self->fd, self->pa, NPAGES * pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, self->map);
}

FIXTURE_TEARDOWN(p2p)
{
	if (self->index < 0)
		return;
	kill_kids(&self->undo);
	unmap_all(&self->undo);
	/* Unregisters what the test left registered. */
	EXPECT_EQ(0, nt_sh("rmmod fake_efa"));
	if (self->fd >= 0)
		close(self->fd);
	sim_device_end(_metadata, self->index, self->counted ? &self->start : NULL, self->t0);
}

/* Unmap the fixture's mapping (the test checks what that did). */
static void unmap_chunk(struct p2p_self *self)
{
	unmap(&self->undo, self->map, NPAGES * pg);
	self->map = NULL;
}

/*
 * The page list describes the chunk: what the process wrote through its
 * mapping is what the module reads through the physical pages, for the
 * whole chunk and for a part of it whose length is not a page multiple.
 */
TEST_F_TIMEOUT(p2p, page_list, 120)
{
	struct neuron_ioctl_get_va_placement vp = { .va = (uintptr_t)self->map };
	__u32 seed = rnd();
	size_t part = 3 * pg - 100;
	struct fe_st st;

	pattern(self->map, NPAGES, seed);
	ASSERT_EQ(0, fe_reg(0, self->map, NPAGES * pg, 0));
	ASSERT_EQ(0, fe_reg(1, self->map + 2 * pg, part, 0));
	ASSERT_EQ(0, fe_status(0, &st));
	EXPECT_STREQ("live", st.state);
	EXPECT_EQ(0, st.cbs);
	EXPECT_EQ((unsigned int)self->index, st.dev);
	EXPECT_EQ(pg, 1UL << st.shift);
	EXPECT_EQ(NPAGES, st.pages);
	EXPECT_LE(1, st.entries);
	EXPECT_GE(NPAGES, st.entries);
	/* GET_VA_PLACEMENT names the same device. */
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp));
	EXPECT_EQ(st.dev, (unsigned int)vp.device_index);

	ASSERT_EQ(0, fe("hash 0"));
	ASSERT_EQ(0, fe_status(0, &st));
	EXPECT_EQ(fnv(self->map, NPAGES * pg), st.hash);
	ASSERT_EQ(0, fe("hash 1"));
	ASSERT_EQ(0, fe_status(1, &st));
	EXPECT_EQ(3, st.pages);
	EXPECT_EQ(fnv(self->map + 2 * pg, part), st.hash);

	/* Other data, same pages: the module sees the change. */
	pattern(self->map, NPAGES, ~seed);
	ASSERT_EQ(0, fe("hash 0"));
	ASSERT_EQ(0, fe_status(0, &st));
	EXPECT_EQ(fnv(self->map, NPAGES * pg), st.hash);

	/* Unregistered first: no callback, then or at munmap. */
	EXPECT_EQ(0, fe("unreg 0"));
	EXPECT_EQ(0, fe("unreg 1"));
	EXPECT_EQ(-ENOENT, fe("unreg 1"));
	unmap_chunk(self);
	EXPECT_SLOT(0, "free", 0);
	EXPECT_SLOT(1, "free", 0);
}

/*
 * munmap: the callback of every registration the unmapped pages overlap
 * runs once, before munmap() returns; a registration outside them is left
 * alone; unregister afterwards is safe; the chunk lives until then.
 */
TEST_F_TIMEOUT(p2p, munmap, 120)
{
	struct mcount now;

	ASSERT_EQ(0, fe_reg(0, self->map, NPAGES * pg, 0));
	ASSERT_EQ(0, fe_reg(1, self->map, pg, 1));
	ASSERT_EQ(0, fe_reg(2, self->map + 4 * pg, 2 * pg, 0));
	ASSERT_EQ(0, fe_reg(3, self->map + 6 * pg, 2 * pg, 1));

	/* Page 3 only: overlaps slot 0 alone. */
	ASSERT_EQ(0, munmap(self->map + 3 * pg, pg));
	EXPECT_SLOT(0, "called", 1);
	EXPECT_SLOT(1, "live", 0);
	EXPECT_SLOT(2, "live", 0);
	EXPECT_SLOT(3, "live", 0);

	/* The handle goes: the mappings and registrations keep the chunk. */
	ASSERT_EQ(0, mem_free(self->fd, self->h));
	ASSERT_EQ(0, mcount_read(self->index, &now));
	EXPECT_EQ(self->start.chunks + 1, now.chunks);
	EXPECT_SLOT(2, "live", 0);

	/* The rest: each left callback once; the EFA-style ones unregister. */
	unmap_chunk(self);
	EXPECT_SLOT(0, "called", 1);
	EXPECT_SLOT(1, "released", 1);
	EXPECT_SLOT(2, "called", 1);
	EXPECT_SLOT(3, "released", 1);
	/* Still held by slots 0 and 2. */
	ASSERT_EQ(0, mcount_read(self->index, &now));
	EXPECT_EQ(self->start.chunks + 1, now.chunks);

	EXPECT_EQ(0, fe("unreg 0"));
	EXPECT_EQ(0, fe("unreg 2"));
	/* The callback already unregistered these. */
	EXPECT_EQ(-ENOENT, fe("unreg 1"));
	EXPECT_EQ(-ENOENT, fe("unreg 3"));
	EXPECT_SLOT(0, "free", 1);
	EXPECT_SLOT(2, "free", 1);
	check_counts(_metadata, self->index, &self->start, "all unregistered");
}

/* Process exit: a child's registrations are called back when it is killed. */
TEST_F_TIMEOUT(p2p, kill, 120)
{
	int up[2], fails = 0;
	struct mcount left;
	pid_t pid;

	ASSERT_EQ(0, pipe(up));
	pid = spawn(_metadata, &self->undo);
	if (pid == 0) {
		int fd = open_node(self->index, O_RDWR);
		__u64 h = 0, pa = 0;
		char *p;

		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(alloc_dev(fd, 2 * pg, 0, &h) == 0);
		CHILD_CHECK(get_pa(fd, h, &pa) == 0);
		p = mmap_filled(fd, pa, 2 * pg, 0x5a);
		CHILD_CHECK(p != MAP_FAILED);
		CHILD_CHECK(fe_reg(4, p, 2 * pg, 0) == 0);
		CHILD_CHECK(fe_reg(5, p + pg, pg, 1) == 0);
		/* The parent's chunk is not mapped here. */
		CHILD_CHECK(fe_reg(6, self->map, pg, 0) == -EINVAL);
		signal_byte(up[1]);
		pause();
		_exit(child_status(fails));
	}
	ASSERT_EQ(0, wait_byte(up[0]));
	EXPECT_SLOT(4, "live", 0);
	EXPECT_SLOT(5, "live", 0);
	EXPECT_EQ(-ENOENT, fe_status(6, &(struct fe_st){}));
	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(&self->undo, pid));
	EXPECT_SLOT(4, "called", 1);
	EXPECT_SLOT(5, "released", 1);
	/* From another process than the one that registered. */
	EXPECT_EQ(0, fe("unreg 4"));
	EXPECT_SLOT(4, "free", 1);
	close(up[0]);
	close(up[1]);
	/* The child's chunk went with the last registration. */
	left = mcount_plus(&self->start, 0, NPAGES * pg, 1, 1);
	EXPECT_TRUE(mcount_reach(self->index, &left, 5000));
}

/*
 * Device removal: every registration is called back before the removal
 * returns; unregister afterwards is safe; a later munmap calls nothing.
 */
TEST_F_TIMEOUT(p2p, removal, 120)
{
	ASSERT_EQ(0, fe_reg(0, self->map, NPAGES * pg, 0));
	ASSERT_EQ(0, fe_reg(1, self->map + pg, pg, 1));
	self->counted = 0;	/* the counters go with the device */
	ASSERT_EQ(0, nt_sim_del(DEV));
	EXPECT_SLOT(0, "called", 1);
	EXPECT_SLOT(1, "released", 1);
	/* Registering the revoked mapping fails. */
	EXPECT_EQ(-ENODEV, fe_reg(2, self->map, pg, 0));
	EXPECT_EQ(0, fe("unreg 0"));
	unmap_chunk(self);
	EXPECT_SLOT(0, "free", 1);
	EXPECT_SLOT(1, "released", 1);
}

/* What is not a mapping of the caller's device memory: -EINVAL, nothing registered. */
TEST_F_TIMEOUT(p2p, errors, 120)
{
	char *heap = malloc(4 * pg);
	char *anon = mmap(NULL, 2 * pg, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 hh = 0, hpa = 0;
	char *host;

	ASSERT_NE(NULL, heap);
	ASSERT_NE(MAP_FAILED, anon);
	EXPECT_EQ(-EINVAL, fe_reg(0, (void *)(((uintptr_t)heap + pg - 1) & ~(pg - 1)), pg, 0));
	EXPECT_EQ(-EINVAL, fe_reg(0, anon, pg, 0));
	EXPECT_EQ(-EINVAL, fe_reg(0, unmapped_address(), pg, 0));
	/* Past the mapping, from its start or from inside. */
	EXPECT_EQ(-EINVAL, fe_reg(0, self->map, (NPAGES + 1) * pg, 0));
	EXPECT_EQ(-EINVAL, fe_reg(0, self->map + (NPAGES - 1) * pg, 2 * pg, 0));
	/* Unaligned, empty, NULL, overflowing. */
	EXPECT_EQ(-EINVAL, fe_reg(0, self->map + 8, pg, 0));
	EXPECT_EQ(-EINVAL, fe_reg(0, self->map, 0, 0));
	EXPECT_EQ(-EINVAL, fe_reg(0, NULL, pg, 0));
	EXPECT_EQ(-EINVAL, fe_reg(0, self->map, ~(size_t)0 - pg, 0));
	/* Host memory is not offered. */
	ASSERT_EQ(0, alloc_host(self->fd, pg, &hh));
	ASSERT_EQ(0, get_pa(self->fd, hh, &hpa));
	host = map(&self->undo, self->fd, hpa, pg, RW, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, host);
	EXPECT_EQ(-EOPNOTSUPP, fe_reg(0, host, pg, 0));
	unmap(&self->undo, host, pg);
	EXPECT_EQ(0, mem_free(self->fd, hh));
	/* Nothing was registered: slot 0 never used. */
	EXPECT_EQ(-ENOENT, fe_status(0, &(struct fe_st){}));
	munmap(anon, 2 * pg);
	free(heap);
}

/*
 * EFA's symbol_get() finds both functions with neuron_core alone loaded
 * (no DHAL, no plane), and symbol_put() gives neuron_core back.
 */
TEST(symbol_get_core_only)
{
	char buf[64];

	if (!fe_installed())
		SKIP(return, FE_MISSING);
	nt_sh("rmmod fake_efa 2>/dev/null");
	ASSERT_EQ(0, nt_unload_all());
	ASSERT_EQ(0, nt_sh("modprobe fake_efa"));
	EXPECT_EQ(-ENOENT, fe("probe"));
	/* insmod: modprobe would bring the soft dependencies along. */
	ASSERT_EQ(0, nt_sh("insmod $(modinfo -n neuron_core)"));
	EXPECT_EQ(0, fe("probe"));
	EXPECT_EQ(0, nt_sh("grep -q '^neuron_core ' /proc/modules"));
	EXPECT_EQ(1, nt_sh("grep -v '^neuron_core ' /proc/modules | grep -q '^neuron'"));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), "/sys/module/neuron_core/refcnt"));
	EXPECT_STREQ("0", buf);
	EXPECT_EQ(0, nt_sh("rmmod fake_efa"));
	EXPECT_EQ(0, nt_unload_all());
}

TEST_HARNESS_MAIN
