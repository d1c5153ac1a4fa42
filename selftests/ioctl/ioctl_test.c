// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the ioctl ABI of /dev/neuronN on simulated v2, v3 and v4
 * devices: the dispatcher (every command of the ABI, its gate and its
 * answer to bad input), the device, information and reset commands, and
 * register access through BAR_READ / BAR_WRITE.
 *
 * Each test starts with no Neuron module loaded, loads neuron_core (with a
 * short reset timeout) and neuron_sim, creates one simulated device and
 * opens it on both lanes: a normal (attaching) file and a free-access
 * (O_WRONLY) file.  It ends with no module loaded.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"
#include "neuron_cmds.h"

#define SETTLE_MS	20000
/* Simulator id of the device under test: its routing id and index. */
#define DEV		5
#define DEV_REV		3
#define DEBUGFS_SIM	"/sys/kernel/debug/neuron_sim/neuron_sim"
#define SIM_PARAM	"/sys/module/neuron_sim/parameters/"

static int is_command(unsigned int c)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmds[i].cmd == c)
			return 1;
	return c == NEURON_IOCTL_DMA_QUIESCE_QUEUES;
}

static long sim_resets(int id)
{
	char buf[32];

	if (nt_read(buf, sizeof(buf), DEBUGFS_SIM "%d/resets", id))
		return -1;
	return atol(buf);
}

static int sim_fault(int id, const char *fault)
{
	char path[96];

	snprintf(path, sizeof(path), DEBUGFS_SIM "%d/fault", id);
	return nt_write(path, "%s", fault);
}

static int set_reset_delay(int ms)
{
	return nt_write(SIM_PARAM "reset_delay_ms", "%d", ms);
}

FIXTURE(nio) {
	int fd;		/* normal file: this process is attached */
	int wfd;	/* free-access file */
	int index;
	char buf[256];
};

FIXTURE_VARIANT(nio) {
	const char *gen;
	unsigned int arch;
	unsigned int ncs;
	unsigned int compat_min, compat_max;
	unsigned long long bar0_size;
	int nc_map;		/* has a logical-to-physical core map */
	unsigned long long rw_reg;	/* a read-write register (NeuronCore window) */
	unsigned long long ro_reg;	/* a read-only register (APB space) */
	unsigned long long misc_ram;	/* firmware MiscRAM: not reachable */
};

FIXTURE_VARIANT_ADD(nio, v2) {
	.gen = "v2", .arch = 2, .ncs = 2, .compat_min = 5, .compat_max = 7,
	.bar0_size = 1ULL << 30, .nc_map = 0,
	.rw_reg = 0x02701000, .ro_reg = 0x30000100, .misc_ram = 0x30fa0024,
};

FIXTURE_VARIANT_ADD(nio, v3) {
	.gen = "v3", .arch = 3, .ncs = 8, .compat_min = 10, .compat_max = 11,
	.bar0_size = 4ULL << 30, .nc_map = 1,
	.rw_reg = 0xd2701000, .ro_reg = 0x80000100, .misc_ram = 0x06c84024,
};

FIXTURE_VARIANT_ADD(nio, v4) {
	.gen = "v4", .arch = 4, .ncs = 8, .compat_min = 10, .compat_max = 11,
	.bar0_size = 4ULL << 30, .nc_map = 1,
	.rw_reg = 0xd6701000, .ro_reg = 0x40000100, .misc_ram = 0x06c84808,
};

/*
 * The checks below are helpers that the tests at the end group, named by
 * the types the harness gives a fixture's data and variant.
 */
#define nio_self	_test_data_nio
#define nio_variant	_fixture_variant_nio

FIXTURE_SETUP(nio)
{
	char spec[64];

	self->fd = -1;
	self->wfd = -1;
	ASSERT_EQ(0, nt_driver_up("reset_timeout_ms=2000", ""));
	snprintf(spec, sizeof(spec), "%s rev=%d", variant->gen, DEV_REV);
	ASSERT_EQ(0, nt_sim_add(DEV, spec));
	ASSERT_STREQ("ready", nt_sim_settle(DEV, self->buf, sizeof(self->buf), SETTLE_MS));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), SIM_BUS "/devices/neuron_sim%d/index",
			     DEV));
	self->index = atoi(self->buf);
	ASSERT_EQ(DEV, self->index);
	self->fd = open_node(self->index, O_RDONLY);
	ASSERT_LE(0, self->fd);
	self->wfd = open_node(self->index, O_WRONLY);
	ASSERT_LE(0, self->wfd);
}

FIXTURE_TEARDOWN(nio)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->wfd >= 0)
		close(self->wfd);
	EXPECT_EQ(0, nt_driver_down());
}

/* Every identity and information command agrees with sysfs and the sim. */
static void va_placement_of_mappings(struct __test_metadata *_metadata, struct nio_self *self);

static void information_matches_device(struct __test_metadata *_metadata,
				       struct nio_self *self, const struct nio_variant *variant)
{
	struct neuron_ioctl_device_basic_info bi;
	struct neuron_ioctl_device_driver_info di;
	struct neuron_ioctl_device_info info;
	struct neuron_ioctl_device_bdf bdf;
	struct neuron_ioctl_device_bdf_ext bx;
	struct neuron_ioctl_compatible_version cv;
	struct neuron_ioctl_host_device_id hid;
	struct neuron_ioctl_host_device_id_to_rid_map rid;
	struct neuron_ioctl_get_va_placement vp;
	int fds[2] = { self->fd, self->wfd };
	char want[16];
	unsigned int i;
	__u8 status;
	__s32 pid;

	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf),
			     CLASS_DIR "/neuron%d/info/generation", self->index));
	snprintf(want, sizeof(want), "v%u", variant->arch);
	ASSERT_STREQ(want, self->buf);

	/* The free-access lane answers the device-global queries too. */
	for (i = 0; i < 2; i++) {
		memset(&bi, 0xa5, sizeof(bi));
		ASSERT_EQ(0, xioctl(fds[i], NEURON_IOCTL_DEVICE_BASIC_INFO, &bi));
		EXPECT_EQ(variant->arch, bi.architecture);
		EXPECT_EQ(DEV_REV, bi.revision);

		memset(&di, 0xa5, sizeof(di));
		ASSERT_EQ(0, xioctl(fds[i], NEURON_IOCTL_DRIVER_INFO_GET, &di));
		EXPECT_EQ(variant->arch, di.architecture);
		EXPECT_EQ(DEV_REV, di.revision);
		EXPECT_EQ(NEURON_DEVICE_DRIVER_INFO_VERSION0, di.version);
		EXPECT_EQ(sizeof(di), di.size);
		/* Exactly the features whose commands are all implemented. */
		EXPECT_EQ(NEURON_DRIVER_FEATURE_DMABUF | NEURON_DRIVER_FEATURE_MEM_ALLOC_TYPE |
			  NEURON_DRIVER_FEATURE_MEM_ALLOC64 | NEURON_DRIVER_FEATURE_ASYNC_DMA |
			  NEURON_DRIVER_FEATURE_BATCH_DMAQ_INIT | NEURON_DRIVER_FEATURE_HBM_SCRUB |
			  NEURON_DRIVER_FEATURE_ZEROCOPY | NEURON_DRIVER_FEATURE_BIG_CORE_MAPS |
			  NEURON_DRIVER_FEATURE_ASYNC_IO | NEURON_DRIVER_FEATURE_ALLOC_WITH_PA,
			  di.feature_flags1);

		memset(&cv, 0xa5, sizeof(cv));
		ASSERT_EQ(0, xioctl(fds[i], NEURON_IOCTL_COMPATIBLE_VERSION, &cv));
		EXPECT_EQ(variant->compat_min, cv.min);
		EXPECT_EQ(variant->compat_max, cv.max);

		memset(&bx, 0xa5, sizeof(bx));
		bx.nd_index = 0;
		ASSERT_EQ(0, xioctl(fds[i], NEURON_IOCTL_DEVICE_BDF_EXT, &bx));
		EXPECT_EQ(0x5000, bx.domain);	/* the simulator's PCI domain */
		EXPECT_EQ(DEV, bx.bus_number);
		EXPECT_EQ(0, bx.slot);
		EXPECT_EQ(0, bx.func);

		status = 0xa5;
		ASSERT_EQ(0, xioctl(fds[i], NEURON_IOCTL_DEVICE_RESET_STATUS, &status));
		EXPECT_EQ(1, status);
	}

	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INFO, &info));
	EXPECT_EQ(variant->arch, info.architecture);
	EXPECT_EQ(DEV_REV, info.revision);
	/* One device: no topology table fits, so no links (umbrella.topology has them). */
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf),
			     CLASS_DIR "/neuron%d/connected_devices", self->index));
	EXPECT_STREQ("", self->buf);
	EXPECT_EQ(0, info.connected_device_count);
	EXPECT_EQ(variant->bar0_size, info.bar_size[0]);
	/* An opaque base: not a kernel address, and names this device. */
	EXPECT_NE(0, info.bar_address[0]);
	EXPECT_EQ(0, info.bar_address[0] >> 63);
	EXPECT_EQ((unsigned long long)self->index + 1, (info.bar_address[0] >> 40) & 0x7f);
	EXPECT_EQ(0, info.bar_address[1]);
	EXPECT_EQ(0, info.bar_size[1]);

	memset(&bdf, 0xa5, sizeof(bdf));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_BDF, &bdf));
	EXPECT_EQ(DEV, bdf.bus_number);
	EXPECT_EQ(0, bdf.slot);
	EXPECT_EQ(0, bdf.func);

	memset(&hid, 0xa5, sizeof(hid));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_HOST_DEVICE_ID, &hid));
	EXPECT_EQ(self->index, hid.host_device_id);

	/* One device, at index DEV: entries below it are unused (~0). */
	memset(&rid, 0xa5, sizeof(rid));
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &rid));
	EXPECT_EQ(DEV + 1, rid.count);
	for (i = 0; i < DEV; i++)
		EXPECT_EQ(~0U, rid.host_did_to_rid_map[i]);
	EXPECT_EQ(DEV, rid.host_did_to_rid_map[DEV]);
	for (i = DEV + 1; i < NEURON_IOCTL_MAX_DEVICES; i++)
		EXPECT_EQ(0, rid.host_did_to_rid_map[i]);

	pid = -5;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_APP_PID, &pid));
	EXPECT_EQ(getpid(), pid);

	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INIT, NULL));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_RELEASE, NULL));

	/* An address that is not a mapping of device memory: -1, -1. */
	memset(&vp, 0xa5, sizeof(vp));
	vp.va = (uintptr_t)&vp;
	EXPECT_EQ(-ENXIO, xioctl(self->wfd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp));
	EXPECT_EQ((uintptr_t)&vp, vp.va);
	EXPECT_EQ(-1, vp.device_index);
	EXPECT_EQ(-1, vp.hbm_index);
	va_placement_of_mappings(_metadata, self);
}

static void apps_info_lists_attached_processes(struct __test_metadata *_metadata,
					       struct nio_self *self,
					       const struct nio_variant *variant)
{
	size_t size = sizeof(struct neuron_ioctl_get_apps_info) +
		      NEURON_MAX_PROCESS_PER_DEVICE * sizeof(struct neuron_app_info);
	struct neuron_ioctl_get_apps_info *ai = malloc(size);
	int p[2], st, found = 0;
	unsigned int i;
	pid_t child;
	char c;

	ASSERT_NE(NULL, ai);
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int cfd = open_node(DEV, O_RDONLY);

		close(p[1]);
		(void)!read(p[0], &c, 1);
		_exit(cfd >= 0 ? 0 : 1);
	}
	close(p[0]);
	usleep(300000);

	memset(ai, 0xa5, size);
	ai->apps_info_flags = APP_INFO_ALL;
	ai->capacity = 0xffffffff;	/* huge: capped at the 16 the table holds */
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, ai));
	EXPECT_EQ(2, ai->size);
	EXPECT_EQ(APP_INFO_ALL, ai->apps_info_flags);
	EXPECT_EQ(0xffffffff, ai->capacity);
	for (i = 0; i < ai->size && i < 2; i++) {
		struct neuron_app_info *a = &ai->app_data[i];
		unsigned char zero[sizeof(a->uuid_data)] = { 0 };

		found |= (a->pid == getpid()) << 0 | (a->pid == child) << 1;
		EXPECT_EQ(0, a->nc_lock_map);
		EXPECT_EQ(0, memcmp(zero, a->uuid_data, sizeof(zero)));
		EXPECT_EQ(0, a->host_mem_size);
		EXPECT_EQ(0, a->device_mem_size);
	}
	EXPECT_EQ(3, found);

	/* A capacity of one gets one. */
	memset(ai, 0xa5, size);
	ai->capacity = 1;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, ai));
	EXPECT_EQ(1, ai->size);

	close(p[1]);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	memset(ai, 0xa5, size);
	ai->capacity = 16;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, ai));
	EXPECT_EQ(1, ai->size);
	EXPECT_EQ(getpid(), ai->app_data[0].pid);
	free(ai);
}

/* Map a device chunk of channel @hbm (and a host chunk) and ask where they are. */
static void va_placement_of_chunk(struct __test_metadata *_metadata, struct nio_self *self,
				  __u32 hbm, int host)
{
	struct neuron_ioctl_mem_alloc_v2 a = { .size = 2 * 4096, .host_memory = host,
					       .dram_channel = hbm };
	struct neuron_ioctl_get_va_placement vp;
	struct neuron_ioctl_mem_get_info gi;
	__u64 handle = 0, off = 0, pa = 0;
	struct neuron_ioctl_mem_free mf;
	char *p;

	a.mem_handle = &handle;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_MEM_ALLOC_V2, &a));
	gi.mem_handle = handle;
	gi.mmap_offset = &off;
	gi.pa = &pa;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_MEM_GET_INFO, &gi));
	p = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, self->fd, off);
	ASSERT_NE(MAP_FAILED, p);

	memset(&vp, 0xa5, sizeof(vp));
	vp.va = (uintptr_t)p + 4096 + 8;
	if (host) {
		EXPECT_EQ(-ENXIO, xioctl(self->wfd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp));
		EXPECT_EQ(-1, vp.device_index);
		EXPECT_EQ(-1, vp.hbm_index);
	} else {
		EXPECT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp));
		EXPECT_EQ(self->index, vp.device_index);
		EXPECT_EQ((int)hbm, vp.hbm_index);
	}
	EXPECT_EQ((uintptr_t)p + 4096 + 8, vp.va);
	/* Just past the mapping: nothing. */
	vp.va = (uintptr_t)p + 2 * 4096;
	if (vp.va)
		EXPECT_NE(0, xioctl(self->wfd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp));
	munmap(p, 2 * 4096);
	/* Unmapped: nothing either. */
	vp.va = (uintptr_t)p;
	EXPECT_EQ(-ENXIO, xioctl(self->wfd, NEURON_IOCTL_GET_VA_PLACEMENT, &vp));
	mf.mem_handle = handle;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_MEM_FREE, &mf));
}

/* GET_VA_PLACEMENT finds the caller's mappings of device memory. */
static void va_placement_of_mappings(struct __test_metadata *_metadata, struct nio_self *self)
{
	va_placement_of_chunk(_metadata, self, 0, 0);
	va_placement_of_chunk(_metadata, self, 1, 0);
	va_placement_of_chunk(_metadata, self, 0, 1);
}

static void logical_to_physical_core_map(struct __test_metadata *_metadata,
					 struct nio_self *self, const struct nio_variant *variant)
{
	struct neuron_ioctl_get_logical_to_physical_nc_map req;
	size_t size = sizeof(struct neuron_ioctl_nc_map) +
		      NEURON_NC_MAP_MAX_ENTRIES * sizeof(struct neuron_ioctl_nc_map_entry);
	struct neuron_ioctl_nc_map *map = malloc(size);
	unsigned int i, seen[16] = { 0 };

	ASSERT_NE(NULL, map);
	memset(map, 0xa5, size);
	req.map = map;
	req.max_map_entries = NEURON_NC_MAP_MAX_ENTRIES;
	req.mapping_version = NEURON_IOCTL_NC_MAPPING_TYPE_V0;
	if (!variant->nc_map) {
		EXPECT_EQ(-EOPNOTSUPP,
			  xioctl(self->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &req));
		free(map);
		return;
	}
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &req));
	ASSERT_EQ(128, map->num_entries);
	/* 16 devices of 8 cores: each (device, core) exactly once, in device order. */
	for (i = 0; i < 128; i++) {
		ASSERT_EQ(i / 8, map->mappings[i].device_id);
		ASSERT_GT(8, map->mappings[i].device_nc_idx);
		seen[i / 8] |= 1 << map->mappings[i].device_nc_idx;
	}
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0xff, seen[i]);
	EXPECT_EQ(4, map->mappings[0].device_nc_idx);
	EXPECT_EQ(2, map->mappings[8].device_nc_idx);
	EXPECT_EQ(0, map->mappings[32].device_nc_idx);
	EXPECT_EQ(6, map->mappings[40].device_nc_idx);
	EXPECT_EQ(3, map->mappings[127].device_nc_idx);

	/* A short buffer gets what fits; the rest is not written. */
	memset(map, 0xa5, size);
	req.max_map_entries = 3;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &req));
	EXPECT_EQ(3, map->num_entries);
	EXPECT_EQ(0xa5a5a5a5, map->mappings[3].device_id);
	free(map);
}

/* Bytes the ABI does not define come back zero; nothing past the output is written. */
static void output_padding_is_zero(struct __test_metadata *_metadata,
				   struct nio_self *self, const struct nio_variant *variant)
{
	size_t size = sizeof(struct neuron_ioctl_get_apps_info) +
		      2 * sizeof(struct neuron_app_info);
	unsigned char buf[512], *ai = malloc(size);
	struct neuron_ioctl_device_info *info = (void *)buf;
	struct neuron_ioctl_get_apps_info *hdr = (void *)ai;
	unsigned int i;

	ASSERT_NE(NULL, ai);

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_BDF, buf));
	EXPECT_EQ(8, sizeof(struct neuron_ioctl_device_bdf));
	EXPECT_EQ(0, buf[6]);
	EXPECT_EQ(0, buf[7]);
	EXPECT_EQ(0xa5, buf[8]);

	memset(buf, 0xa5, sizeof(buf));
	memset(buf, 0, 4);	/* nd_index 0 */
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_DEVICE_BDF_EXT, buf));
	EXPECT_EQ(16, sizeof(struct neuron_ioctl_device_bdf_ext));
	EXPECT_EQ(0, buf[14]);
	EXPECT_EQ(0, buf[15]);
	EXPECT_EQ(0xa5, buf[16]);

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INFO, buf));
	EXPECT_EQ(80, sizeof(*info));
	for (i = 44; i < 48; i++)
		EXPECT_EQ(0, buf[i]);
	for (i = 0; i < NEURON_IOCTL_MAX_CONNECTED_DEVICES; i++)
		EXPECT_EQ(0, info->connected_devices[i]);
	EXPECT_EQ(0xa5, buf[80]);

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_DEVICE_RESET_STATUS, buf));
	EXPECT_EQ(1, buf[0]);
	EXPECT_EQ(0xa5, buf[1]);
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, buf));
	EXPECT_EQ(1, buf[0]);
	EXPECT_EQ(0xa5, buf[1]);
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_APP_PID, buf));
	EXPECT_EQ(0xa5, buf[4]);
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_HOST_DEVICE_ID, buf));
	EXPECT_EQ(0xa5, buf[4]);
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_DRIVER_INFO_GET, buf));
	EXPECT_EQ(0xa5, buf[24]);

	/* Header: 2 bytes after the flags, 4 before the array; element: 3 after the ids. */
	memset(ai, 0xa5, size);
	hdr->capacity = 2;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, ai));
	ASSERT_EQ(1, hdr->size);
	EXPECT_EQ(16, sizeof(*hdr));
	EXPECT_EQ(152, sizeof(struct neuron_app_info));
	EXPECT_EQ(0, ai[2]);
	EXPECT_EQ(0, ai[3]);
	for (i = 12; i < 16; i++)
		EXPECT_EQ(0, ai[i]);
	for (i = 16 + 133; i < 16 + 136; i++)
		EXPECT_EQ(0, ai[i]);
	/* The second element was not filled: it keeps the caller's bytes. */
	EXPECT_EQ(0xa5, ai[16 + 152]);
	free(ai);
}

/* Every command with NULL and unmapped arguments, on both lanes. */
static void every_command_bad_pointer_and_lane(struct __test_metadata *_metadata,
					       struct nio_self *self,
					       const struct nio_variant *variant)
{
	void *bad[2] = { NULL, unmapped_address() };
	long want, got;
	unsigned int i, j;
	int fails = 0;

	ASSERT_NE(NULL, bad[1]);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		const struct cmd *c = &cmds[i];

		for (j = 0; j < 2; j++) {
			if (c->bad_arg == E_SKIP)
				continue;
			want = -c->bad_arg;
			got = xioctl(self->fd, c->cmd, bad[j]);
			if (got != want) {
				TH_LOG("%s(%s) on the normal file: %ld, want %ld", c->name,
				       j ? "unmapped" : "NULL", got, want);
				fails++;
			}
			/* The free-access lane: -EBADF before the argument is read. */
			if (c->gate == G_ATT)
				want = -EBADF;
			got = xioctl(self->wfd, c->cmd, bad[j]);
			if (got != want) {
				TH_LOG("%s(%s) on the free-access file: %ld, want %ld", c->name,
				       j ? "unmapped" : "NULL", got, want);
				fails++;
			}
		}
	}
	/* DEVICE_RESET reads no argument: only its lane is checked here. */
	EXPECT_EQ(-EBADF, xioctl(self->wfd, NEURON_IOCTL_DEVICE_RESET, NULL));
	/* Not a command in this driver, as in the reference. */
	EXPECT_EQ(-ENOTTY, xioctl(self->fd, NEURON_IOCTL_DMA_QUIESCE_QUEUES, NULL));
	EXPECT_EQ(-ENOTTY, xioctl(self->wfd, NEURON_IOCTL_DMA_QUIESCE_QUEUES, NULL));
	EXPECT_EQ(0, fails);
	/* The 103 of 2.27 that are commands, and the 5 of 2.28 and 2.29. */
	EXPECT_EQ(108, ARRAY_SIZE(cmds));

	/* Nothing happened to the device. */
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("ready", self->buf);
}

/* Any encoding the ABI does not define is -ENOTTY, whatever the lane. */
static void wrong_encodings_are_enotty(struct __test_metadata *_metadata,
				       struct nio_self *self, const struct nio_variant *variant)
{
	unsigned int i, d, nr, c, n = 0;
	int fails = 0;
	long got;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		unsigned int v = cmds[i].cmd;
		unsigned int dir = _IOC_DIR(v), size = _IOC_SIZE(v);
		unsigned int wrong[8];
		unsigned int k = 0;

		wrong[k++] = _IOC(dir, 'M', _IOC_NR(v), size);
		wrong[k++] = _IOC(dir, 'N', _IOC_NR(v), size + 1);
		wrong[k++] = _IOC(dir, 'N', _IOC_NR(v), size ? size - 1 : 4);
		wrong[k++] = _IOC(dir, 'N', _IOC_NR(v), 0);
		for (d = 0; d < 4; d++)
			wrong[k++] = _IOC(d, 'N', _IOC_NR(v), size);
		for (d = 0; d < k; d++) {
			if (is_command(wrong[d]))
				continue;
			n++;
			got = xioctl(self->fd, wrong[d], NULL);
			if (got != -ENOTTY) {
				TH_LOG("%s as %#x: %ld", cmds[i].name, wrong[d], got);
				fails++;
			}
			if (xioctl(self->wfd, wrong[d], NULL) != -ENOTTY)
				fails++;
		}
	}
	/* Numbers no command has, 0 and past the last one included. */
	for (nr = 0; nr < 256; nr++) {
		for (i = 0; i < ARRAY_SIZE(cmds); i++)
			if (_IOC_NR(cmds[i].cmd) == nr)
				break;
		if (i < ARRAY_SIZE(cmds) || nr == 40)
			continue;
		c = _IOR('N', nr, __u64);
		n++;
		if (xioctl(self->fd, c, NULL) != -ENOTTY ||
		    xioctl(self->wfd, c, NULL) != -ENOTTY) {
			TH_LOG("unknown nr %u answered", nr);
			fails++;
		}
	}
	TH_LOG("%u wrong encodings tried", n);
	EXPECT_LT(400, n);
	EXPECT_EQ(0, fails);
}

/*
 * A process that is not attached (a forked child using its parent's
 * file) is refused every attach-gated command, and only those; once it
 * opens the device itself it may use the inherited file too.
 */
static void non_attached_process(struct __test_metadata *_metadata,
				 struct nio_self *self, const struct nio_variant *variant)
{
	pid_t child;
	int st;

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		unsigned int i;
		int fails = 0, own;
		long got, want;

		for (i = 0; i < ARRAY_SIZE(cmds); i++) {
			const struct cmd *c = &cmds[i];

			if (c->gate == G_ATT)
				want = -EACCES;
			else if (c->bad_arg == E_SKIP)
				continue;
			else
				want = -c->bad_arg;
			got = xioctl(self->fd, c->cmd, NULL);
			if (got != want) {
				fprintf(stderr, "# child: %s: %ld, want %ld\n", c->name, got,
					want);
				fails++;
			}
		}
		own = open_node(DEV, O_RDONLY);
		if (own < 0)
			_exit(100);
		for (i = 0; i < ARRAY_SIZE(cmds); i++) {
			const struct cmd *c = &cmds[i];

			if (c->bad_arg == E_SKIP)
				continue;
			got = xioctl(self->fd, c->cmd, NULL);
			if (got != -c->bad_arg) {
				fprintf(stderr, "# attached child: %s: %ld\n", c->name, got);
				fails++;
			}
		}
		close(own);
		_exit(fails > 99 ? 99 : fails);
	}
	ASSERT_EQ(child, waitpid(child, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	/* The parent's file is unaffected. */
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INIT, NULL));
}

/* Out-of-range indices, ids, sizes and counts. */
static void out_of_range_values(struct __test_metadata *_metadata,
				struct nio_self *self, const struct nio_variant *variant)
{
	struct neuron_ioctl_get_logical_to_physical_nc_map nm = { 0 };
	struct neuron_ioctl_device_bdf_ext bx;
	struct neuron_ioctl_device_reset rs;
	struct neuron_ioctl_device_ready rd;
	struct neuron_ioctl_nc_pid_state_dump pd = { 0 };
	struct neuron_ioctl_printk pk = { 0 };
	struct neuron_ioctl_bar_rw bar = { 0 };
	struct neuron_ioctl_device_info info;
	__u64 addr, two[2], *last;
	char msg[600], *page;
	__u32 val;

	memset(&bx, 0, sizeof(bx));
	bx.nd_index = 64 - DEV;		/* index 64 */
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_DEVICE_BDF_EXT, &bx));
	bx.nd_index = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_DEVICE_BDF_EXT, &bx));
	bx.nd_index = 1;		/* index 6: no such device */
	EXPECT_EQ(-ENODEV, xioctl(self->wfd, NEURON_IOCTL_DEVICE_BDF_EXT, &bx));

	rs.nc_map = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_NC_RESET, &rs));
	rs.nc_map = 1U << variant->ncs;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_NC_RESET, &rs));
	rs.nc_map = 0x80000000;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_NC_RESET, &rs));
	rd.request_id = getpid();	/* no request made */
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_NC_RESET_READY, &rd));
	rd.request_id = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_NC_RESET_READY, &rd));

	pd.nc_id = 512;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));
	pd.nc_id = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));
	pd.nc_id = 0;			/* device 0: absent */
	EXPECT_EQ(-ENODEV, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));
	pd.nc_id = DEV * variant->ncs;	/* core 0 of this device: nobody holds it */
	EXPECT_EQ(-ENOENT, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));

	nm.max_map_entries = 129;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &nm));
	nm.max_map_entries = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &nm));
	nm.max_map_entries = 4;
	nm.mapping_version = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &nm));
	nm.mapping_version = 0;
	nm.map = NULL;
	EXPECT_EQ(variant->nc_map ? -EFAULT : -EOPNOTSUPP,
		  xioctl(self->wfd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &nm));

	memset(msg, 'x', sizeof(msg));
	msg[sizeof(msg) - 1] = 0;
	pk.buffer = msg;
	pk.size = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));
	pk.size = 513;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));
	pk.size = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));
	pk.size = 512;			/* no NUL in the buffer */
	EXPECT_EQ(-EBADMSG, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));
	pk.buffer = NULL;
	pk.size = 16;
	EXPECT_EQ(-EFAULT, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));

	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INFO, &info));
	addr = info.bar_address[0] + variant->rw_reg;
	bar.address = &addr;
	bar.data = &val;
	bar.count = 1;
	for (bar.bar = 1; bar.bar < 6; bar.bar++)
		EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_BAR_READ, &bar));
	bar.bar = 0xffffffff;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, NEURON_IOCTL_BAR_WRITE, &bar));
	bar.bar = 0;
	bar.count = 4097;
	EXPECT_EQ(-E2BIG, xioctl(self->fd, NEURON_IOCTL_BAR_READ, &bar));
	bar.count = 0xffffffff;
	EXPECT_EQ(-E2BIG, xioctl(self->fd, NEURON_IOCTL_BAR_WRITE, &bar));
	/* Arrays that end where the mapping ends: one element too few. */
	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	ASSERT_EQ(0, munmap(page + 4096, 4096));
	last = (__u64 *)(page + 4096) - 1;
	*last = addr;
	bar.address = last;
	bar.count = 2;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_BAR_READ, &bar));
	two[0] = addr;
	two[1] = addr + 4;
	bar.address = two;
	bar.data = (__u32 *)(page + 4096) - 1;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_BAR_WRITE, &bar));
	bar.address = &addr;
	bar.data = &val;
	munmap(page, 4096);
	bar.count = 1;
	bar.address = NULL;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_BAR_READ, &bar));
	bar.address = &addr;
	bar.data = NULL;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_BAR_READ, &bar));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, NEURON_IOCTL_BAR_WRITE, &bar));
	bar.count = 0;
	EXPECT_EQ(0, xioctl(self->fd, NEURON_IOCTL_BAR_READ, &bar));

	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("ready", self->buf);
}

static long bar_rw(int fd, unsigned int cmd, __u64 *addr, __u32 *val, unsigned int n)
{
	struct neuron_ioctl_bar_rw bar = {
		.bar = 0, .address = addr, .data = val, .count = n,
	};

	return xioctl(fd, cmd, &bar);
}

/* Registers are reached through the opaque base and the DHAL's windows only. */
static void bar_access_windows(struct __test_metadata *_metadata,
			       struct nio_self *self, const struct nio_variant *variant)
{
	struct neuron_ioctl_device_info info, other;
	__u64 base, addr[4];
	__u32 val[4];
	int ofd;

	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INFO, &info));
	base = info.bar_address[0];

	/* A read-write window: what is written reads back. */
	addr[0] = base + variant->rw_reg;
	addr[1] = base + variant->rw_reg + 4;
	val[0] = 0x12345678;
	val[1] = 0x9abcdef0;
	ASSERT_EQ(0, bar_rw(self->fd, NEURON_IOCTL_BAR_WRITE, addr, val, 2));
	memset(val, 0, sizeof(val));
	ASSERT_EQ(0, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 2));
	EXPECT_EQ(0x12345678, val[0]);
	EXPECT_EQ(0x9abcdef0, val[1]);

	/* A read-only window. */
	addr[0] = base + variant->ro_reg;
	EXPECT_EQ(0, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	EXPECT_EQ(-EPERM, bar_rw(self->fd, NEURON_IOCTL_BAR_WRITE, addr, val, 1));

	/* Firmware MiscRAM: neither. */
	addr[0] = base + variant->misc_ram;
	EXPECT_EQ(-EPERM, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	EXPECT_EQ(-EPERM, bar_rw(self->fd, NEURON_IOCTL_BAR_WRITE, addr, val, 1));

	/* Not registers of this BAR. */
	addr[0] = base + variant->rw_reg + 2;
	EXPECT_EQ(-EINVAL, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	addr[0] = base + variant->bar0_size;
	EXPECT_EQ(-EINVAL, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	addr[0] = base - 4;
	EXPECT_EQ(-EINVAL, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	addr[0] = variant->rw_reg;	/* an offset without the base */
	EXPECT_EQ(-EINVAL, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	addr[0] = 0xffffffffffff0000ULL;	/* kernel-looking */
	EXPECT_EQ(-EINVAL, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	addr[0] = base + variant->bar0_size - 4;	/* last register: in no window */
	EXPECT_EQ(-EPERM, bar_rw(self->fd, NEURON_IOCTL_BAR_WRITE, addr, val, 1));

	/* One refused address refuses the whole call: nothing is written. */
	addr[0] = base + variant->rw_reg;
	addr[1] = base + variant->misc_ram;
	val[0] = 0x55555555;
	EXPECT_EQ(-EPERM, bar_rw(self->fd, NEURON_IOCTL_BAR_WRITE, addr, val, 2));
	val[0] = 0;
	ASSERT_EQ(0, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	EXPECT_EQ(0x12345678, val[0]);

	/* Another device's base is not this device's. */
	ASSERT_EQ(0, nt_sim_add(DEV + 1, variant->gen));
	ASSERT_STREQ("ready", nt_sim_settle(DEV + 1, self->buf, sizeof(self->buf), SETTLE_MS));
	ofd = open_node(DEV + 1, O_RDONLY);
	ASSERT_LE(0, ofd);
	ASSERT_EQ(0, xioctl(ofd, NEURON_IOCTL_DEVICE_INFO, &other));
	EXPECT_NE(base, other.bar_address[0]);
	addr[0] = other.bar_address[0] + variant->rw_reg;
	EXPECT_EQ(-EINVAL, bar_rw(self->fd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	EXPECT_EQ(0, bar_rw(ofd, NEURON_IOCTL_BAR_READ, addr, val, 1));
	EXPECT_EQ(0, val[0]);	/* its own register, never written */
	close(ofd);

	/* The base stays the same for the life of the device. */
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_INFO, &other));
	EXPECT_EQ(base, other.bar_address[0]);
}

/* Close and reopen the normal file: the process detaches and drops its cores. */
static int reattach(struct nio_self *self)
{
	close(self->fd);
	self->fd = open_node(self->index, O_RDONLY);
	return self->fd >= 0 ? 0 : -errno;
}

static void core_reset_and_wait(struct __test_metadata *_metadata,
				struct nio_self *self, const struct nio_variant *variant)
{
	long before = sim_resets(DEV);
	__u8 status;
	__u32 id;

	ASSERT_LE(0, before);
	ASSERT_EQ(0, nc_reset(self->fd, 1, &id));
	EXPECT_EQ(getpid(), id);
	EXPECT_EQ(0, nc_ready(self->fd, id));
	EXPECT_EQ(before + 1, sim_resets(DEV));
	/* A request is consumed by its wait. */
	EXPECT_EQ(-EINVAL, nc_ready(self->fd, id));

	/* One request in flight per process; the status says so. */
	ASSERT_EQ(0, set_reset_delay(1500));
	ASSERT_EQ(0, nc_reset(self->fd, 1U << (variant->ncs - 1), &id));
	EXPECT_EQ(-EBUSY, nc_reset(self->fd, 1, NULL));
	EXPECT_EQ(-EBUSY, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	status = 7;
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_DEVICE_RESET_STATUS, &status));
	EXPECT_EQ(0, status);
	/* The device stays ready during a core reset. */
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("ready", self->buf);
	EXPECT_EQ(-EINVAL, nc_ready(self->fd, id + 1));
	EXPECT_EQ(0, nc_ready(self->fd, id));
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_DEVICE_RESET_STATUS, &status));
	EXPECT_EQ(1, status);
	ASSERT_EQ(0, set_reset_delay(20));

	/* A finished request nobody waited for does not block the next one. */
	ASSERT_EQ(0, nc_reset(self->fd, 1, &id));
	usleep(1500000);
	ASSERT_EQ(0, nc_reset(self->fd, 1, &id));
	/* DEVICE_READY waits for any request of the caller. */
	status = 7;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, &status));
	EXPECT_EQ(1, status);
	EXPECT_EQ(-EINVAL, nc_ready(self->fd, id));
}

static void device_reset_sole_process(struct __test_metadata *_metadata,
				      struct nio_self *self, const struct nio_variant *variant)
{
	long before = sim_resets(DEV);
	__u8 ready = 7;
	__u32 id;

	ASSERT_EQ(0, reattach(self));

	ASSERT_EQ(0, set_reset_delay(800));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("resetting", self->buf);
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, &ready));
	EXPECT_EQ(1, ready);
	EXPECT_EQ(before + 1, sim_resets(DEV));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("ready", self->buf);

	/* The same through NC_RESET with the whole-device map. */
	ASSERT_EQ(0, nc_reset(self->fd, NEURON_NC_MAP_DEVICE, &id));
	EXPECT_EQ(0, nc_ready(self->fd, id));
	EXPECT_EQ(before + 2, sim_resets(DEV));
	ASSERT_EQ(0, set_reset_delay(20));
}

/* A process may not reset cores another process holds, nor the device. */
static void reset_respects_other_processes(struct __test_metadata *_metadata,
					   struct nio_self *self, const struct nio_variant *variant)
{
	struct neuron_ioctl_nc_pid_state_dump pd = { .size = sizeof(pd) };
	__u32 last = 1U << (variant->ncs - 1), id;
	int to_child[2], to_parent[2], st;
	pid_t child;
	char c;

	ASSERT_EQ(0, reattach(self));

	/* This process holds core 0 from its reset on. */
	ASSERT_EQ(0, nc_reset(self->fd, 1, &id));
	ASSERT_EQ(0, nc_ready(self->fd, id));
	pd.nc_id = DEV * variant->ncs;
	EXPECT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int cfd = open_node(DEV, O_RDONLY), fails = 0;
		__u32 cid;

		if (cfd < 0)
			_exit(100);
		fails += nc_reset(cfd, 1, NULL) != -EBUSY;
		fails += nc_reset(cfd, 1 | last, NULL) != -EBUSY;
		fails += nc_reset(cfd, NEURON_NC_MAP_DEVICE, NULL) != -EBUSY;
		fails += xioctl(cfd, NEURON_IOCTL_DEVICE_RESET, NULL) != -EBUSY;
		/* A core nobody holds is fine, and then the child holds it. */
		fails += nc_reset(cfd, last, &cid) != 0;
		fails += nc_ready(cfd, cid) != 0;
		if (write(to_parent[1], "r", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(101);
		close(cfd);
		_exit(fails);
	}
	close(to_parent[1]);
	ASSERT_EQ(1, read(to_parent[0], &c, 1));
	EXPECT_EQ(-EBUSY, nc_reset(self->fd, last, NULL));
	EXPECT_EQ(-EBUSY, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	pd.nc_id = DEV * variant->ncs + variant->ncs - 1;
	EXPECT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));
	ASSERT_EQ(1, write(to_child[1], "x", 1));
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));

	/* Its cores went with it. */
	EXPECT_EQ(-ENOENT, xioctl(self->wfd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd));
	ASSERT_EQ(0, nc_reset(self->fd, last, &id));
	EXPECT_EQ(0, nc_ready(self->fd, id));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	c = 7;
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, &c));
	EXPECT_EQ(1, c);
}

static void on_alarm(int sig)
{
}

static void reset_failure_and_interrupted_wait(struct __test_metadata *_metadata,
					       struct nio_self *self,
					       const struct nio_variant *variant)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	__u8 ready = 7;
	__u32 id;

	ASSERT_EQ(0, reattach(self));

	/* A failing core reset reports failure; the device stays ready. */
	ASSERT_EQ(0, sim_fault(DEV, "reset_fail"));
	ASSERT_EQ(0, nc_reset(self->fd, 1, &id));
	EXPECT_EQ(1, nc_ready(self->fd, id));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("ready", self->buf);

	/* A wait can be interrupted and taken up again. */
	ASSERT_EQ(0, sim_fault(DEV, "reset_hang"));
	ASSERT_EQ(0, nc_reset(self->fd, 1, &id));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	EXPECT_EQ(-EINTR, nc_ready(self->fd, id));
	alarm(0);
	ASSERT_EQ(0, sim_fault(DEV, "none"));
	/* The hung reset times out (reset_timeout_ms=2000) and reports failure. */
	EXPECT_EQ(1, nc_ready(self->fd, id));

	/* A failed device reset leaves the device failed until a good one. */
	ASSERT_EQ(0, sim_fault(DEV, "reset_fail"));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, &ready));
	EXPECT_EQ(0, ready);
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%d/state",
			     self->index));
	EXPECT_STREQ("failed", self->buf);
	EXPECT_EQ(-EIO, nc_reset(self->fd, 1, NULL));
	ASSERT_EQ(0, sim_fault(DEV, "none"));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_RESET, NULL));
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_DEVICE_READY, &ready));
	EXPECT_EQ(1, ready);
}

/* Removing the device wakes a waiter with -ENODEV. */
static void removal_ends_waits(struct __test_metadata *_metadata,
			       struct nio_self *self, const struct nio_variant *variant)
{
	int p[2], st;
	pid_t child;
	char c;

	ASSERT_EQ(0, reattach(self));

	ASSERT_EQ(0, sim_fault(DEV, "reset_hang"));
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int cfd = open_node(DEV, O_RDONLY);
		__u32 id;

		if (cfd < 0 || nc_reset(cfd, 1U << (variant->ncs - 1), &id))
			_exit(100);
		if (write(p[1], "w", 1) != 1)
			_exit(101);
		_exit(nc_ready(cfd, id) == -ENODEV ? 0 : 1);
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &c, 1));
	usleep(300000);
	ASSERT_EQ(0, waitpid(child, &st, WNOHANG));	/* still waiting */
	ASSERT_EQ(0, nt_sim_del(DEV));
	ASSERT_EQ(child, waitpid(child, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(-ENODEV, xioctl(self->fd, NEURON_IOCTL_DEVICE_INFO, NULL));
	EXPECT_EQ(-ENODEV, xioctl(self->wfd, NEURON_IOCTL_DRIVER_INFO_GET, NULL));
}

/* Count lines of the kernel log holding @needle. */
static int klog_count(const char *needle)
{
	char line[1024];
	int n = 0;
	FILE *f = popen("dmesg", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	pclose(f);
	return n;
}

static void printk_is_tagged_and_bounded(struct __test_metadata *_metadata,
					 struct nio_self *self, const struct nio_variant *variant)
{
	char msg[128], tag[64];
	struct neuron_ioctl_printk pk = { .buffer = msg };
	int i, n;

	/* One line, tagged with the device and the sender. */
	snprintf(msg, sizeof(msg), "NEURON_TEST_%d %s first\nsecond", getpid(), variant->gen);
	pk.size = strlen(msg) + 1;
	ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));
	snprintf(tag, sizeof(tag), "neuron%d: pid %d: NEURON_TEST_%d", self->index, getpid(),
		 getpid());
	EXPECT_EQ(1, klog_count(tag));
	snprintf(tag, sizeof(tag), "NEURON_TEST_%d %s first?second", getpid(), variant->gen);
	EXPECT_EQ(1, klog_count(tag));

	/* The message ends at its first NUL, wherever it is. */
	memset(msg, 0, sizeof(msg));
	snprintf(msg, sizeof(msg), "NEURON_TEST_SHORT_%d", getpid());
	pk.size = sizeof(msg);
	ASSERT_EQ(0, xioctl(self->fd, NEURON_IOCTL_PRINTK, &pk));
	EXPECT_EQ(1, klog_count(msg));

	/* A flood is cut short; every call still succeeds. */
	snprintf(msg, sizeof(msg), "NEURON_TEST_FLOOD_%d", getpid());
	pk.size = strlen(msg) + 1;
	for (i = 0; i < 300; i++)
		ASSERT_EQ(0, xioctl(self->wfd, NEURON_IOCTL_PRINTK, &pk));
	n = klog_count(msg);
	TH_LOG("%d of 300 flood messages logged", n);
	EXPECT_GT(300, n);
	EXPECT_LE(1, n);
}

/* Identity and information commands; the kernel log command. */
TEST_F_TIMEOUT(nio, information, 300)
{
	information_matches_device(_metadata, self, variant);
	apps_info_lists_attached_processes(_metadata, self, variant);
	logical_to_physical_core_map(_metadata, self, variant);
	output_padding_is_zero(_metadata, self, variant);
	printk_is_tagged_and_bounded(_metadata, self, variant);
}

/* Bad input for every command; the device is unaffected. */
TEST_F_TIMEOUT(nio, bad_input, 300)
{
	every_command_bad_pointer_and_lane(_metadata, self, variant);
	wrong_encodings_are_enotty(_metadata, self, variant);
	non_attached_process(_metadata, self, variant);
	out_of_range_values(_metadata, self, variant);
}

TEST_F_TIMEOUT(nio, bar_access, 300)
{
	bar_access_windows(_metadata, self, variant);
}

/* Core and device resets, their rules and failures; then device removal. */
TEST_F_TIMEOUT(nio, resets, 300)
{
	core_reset_and_wait(_metadata, self, variant);
	device_reset_sole_process(_metadata, self, variant);
	reset_respects_other_processes(_metadata, self, variant);
	reset_failure_and_interrupted_wait(_metadata, self, variant);
	removal_ends_waits(_metadata, self, variant);
}

/* The umbrella module loads and unloads the whole driver and carries the version. */
FIXTURE(umbrella) {
	char buf[128];
};

FIXTURE_SETUP(umbrella)
{
	ASSERT_EQ(0, nt_unload_all());
}

FIXTURE_TEARDOWN(umbrella)
{
	if (nt_exists(SIM_BUS))
		nt_sim_del_all();
	nt_unload_all();
}

TEST_F_TIMEOUT(umbrella, modprobe_neuron, 300)
{
	static const char * const mods[] = {
		"neuron", "neuron_core", "neuron_dhal_v2", "neuron_dhal_v3", "neuron_dhal_v4",
		"neuron_udma", "neuron_telemetry",
	};
	struct neuron_ioctl_device_basic_info bi;
	unsigned int i;
	int fd;

	ASSERT_EQ(0, nt_sh("modprobe neuron"));
	for (i = 0; i < ARRAY_SIZE(mods); i++)
		EXPECT_TRUE(nt_exists("/sys/module/%s", mods[i]));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), "/sys/module/neuron/version"));
	EXPECT_STREQ("2.27.4.0", self->buf);
	EXPECT_EQ(0, nt_sh("lsmod | grep -q '^neuron '"));
	/* Nothing pins a DHAL: the umbrella only names them as soft dependencies. */
	EXPECT_EQ(0, nt_sh("test -z \"$(ls /sys/module/neuron_dhal_v2/holders)\""));
	/* PCI hotplug loads the core, which registers the PCI driver, and the DHAL. */
	EXPECT_EQ(0, nt_sh("modprobe -R %s | grep -qx neuron_core",
			   "pci:v00001D0Fd00007364sv00001D0Fsd00000000bc12sc00i00"));
	EXPECT_EQ(0, nt_sh("modprobe -R %s | grep -qx neuron_dhal_v3",
			   "pci:v00001D0Fd00007364sv00001D0Fsd00000000bc12sc00i00"));
	EXPECT_NE(0, nt_sh("modprobe -R %s | grep -qx neuron_dhal_v2",
			   "pci:v00001D0Fd00007364sv00001D0Fsd00000000bc12sc00i00"));
	EXPECT_EQ(0, nt_sh("test -d /sys/bus/pci/drivers/neuron-driver"));

	ASSERT_EQ(0, nt_sh("modprobe -r neuron"));
	for (i = 0; i < ARRAY_SIZE(mods); i++)
		EXPECT_FALSE(nt_exists("/sys/module/%s", mods[i]));
	EXPECT_NE(0, nt_sh("lsmod | grep -q neuron"));

	/* The core drives PCI by itself and brings the compatibility name along. */
	ASSERT_EQ(0, nt_sh("modprobe neuron_core"));
	EXPECT_EQ(0, nt_sh("test -d /sys/bus/pci/drivers/neuron-driver"));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), "/sys/module/neuron/version"));
	EXPECT_STREQ("2.27.4.0", self->buf);
	ASSERT_EQ(0, nt_sh("modprobe -r neuron"));
	EXPECT_FALSE(nt_exists("/sys/module/neuron_core"));

	/* Devices come up under it, and once they are gone it unloads again. */
	ASSERT_EQ(0, nt_sh("modprobe neuron && modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(2, "v3"));
	ASSERT_STREQ("ready", nt_sim_settle(2, self->buf, sizeof(self->buf), SETTLE_MS));
	fd = open_node(2, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_DEVICE_BASIC_INFO, &bi));
	EXPECT_EQ(3, bi.architecture);
	close(fd);
	ASSERT_EQ(0, nt_sim_del(2));
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_sim && modprobe -r neuron"));
	for (i = 0; i < ARRAY_SIZE(mods); i++)
		EXPECT_FALSE(nt_exists("/sys/module/%s", mods[i]));
}

/* Create simulated devices 0 .. @n - 1 of @spec and wait for them. */
static void topo_devices(struct __test_metadata *_metadata, char *buf, size_t len,
			 unsigned int n, const char *spec)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, nt_sim_add(i, spec));
	for (i = 0; i < n; i++)
		ASSERT_STREQ("ready", nt_sim_settle(i, buf, len, SETTLE_MS));
}

/* Device @d's links, from sysfs and DEVICE_INFO, which must agree, as "a, b". */
static void topo_expect(struct __test_metadata *_metadata, char *buf, size_t len,
			unsigned int d, const char *want)
{
	struct neuron_ioctl_device_info info;
	char from_ioctl[64] = "";
	unsigned int i;
	int fd;

	ASSERT_EQ(0, nt_read(buf, len, CLASS_DIR "/neuron%u/connected_devices", d));
	EXPECT_STREQ(want, buf) TH_LOG("device %u", d);
	fd = open_node(d, O_RDONLY);
	ASSERT_LE(0, fd);
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, xioctl(fd, NEURON_IOCTL_DEVICE_INFO, &info));
	close(fd);
	ASSERT_GE(NEURON_IOCTL_MAX_CONNECTED_DEVICES, info.connected_device_count);
	for (i = 0; i < info.connected_device_count; i++)
		snprintf(from_ioctl + strlen(from_ioctl), sizeof(from_ioctl) - strlen(from_ioctl),
			 "%s%u", i ? ", " : "", info.connected_devices[i]);
	EXPECT_STREQ(want, from_ioctl) TH_LOG("device %u (DEVICE_INFO)", d);
	for (; i < NEURON_IOCTL_MAX_CONNECTED_DEVICES; i++)
		EXPECT_EQ(0, info.connected_devices[i]);
}

/*
 * connected_devices and DEVICE_INFO follow the generation's topology
 * table for the number of devices present: Trn2's for 16 devices, none
 * for 17; Inf2's chain for 6.
 */
TEST_F_TIMEOUT(umbrella, topology, 600)
{
	ASSERT_EQ(0, nt_sh("modprobe neuron && modprobe neuron_sim"));
	topo_devices(_metadata, self->buf, sizeof(self->buf), 16, "v3");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 0, "12, 1, 3, 4");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 5, "4, 9, 1, 6");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 10, "6, 11, 9, 14");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 15, "14, 3, 11, 12");
	/* A 17th device: no table fits the count any more. */
	ASSERT_EQ(0, nt_sim_add(16, "v3"));
	ASSERT_STREQ("ready", nt_sim_settle(16, self->buf, sizeof(self->buf), SETTLE_MS));
	topo_expect(_metadata, self->buf, sizeof(self->buf), 0, "");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 16, "");
	nt_sim_del_all();

	/* Inf2 (PCI id 0x7264) as a chain of six. */
	topo_devices(_metadata, self->buf, sizeof(self->buf), 6, "7264");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 0, "1");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 3, "2, 4");
	topo_expect(_metadata, self->buf, sizeof(self->buf), 5, "4");
	nt_sim_del_all();
}

TEST_HARNESS_MAIN
