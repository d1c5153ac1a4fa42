// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: UltraServer pods on simulated nodes (Documentation/pod.rst).
 *
 * Every case loads neuron_core with pod_node_devices=2 (a node is two
 * consecutive devices, so a four-node pod is eight simulated devices) and
 * force_userver=1 (the VM poses as an UltraServer), and neuron_sim with
 * pod_nodes=2 or 4 (the wiring table).  Cases: the standard platform's
 * answers; POD_CTRL in every state (the errno table); a four-node
 * election on v3 with chosen serial numbers (node ids, pod serial, modes,
 * modal views, class attributes, die-flipped core map on node 1); a
 * two-node election at load on v4; a DHAL reload adopting the cached
 * result; the neighbour reads going through the DMA engines (the
 * simulator's pod_dma_reads counters), and an election without
 * neuron_udma ending single; REQ_POD refused while cores are reserved,
 * and the mode cleared when the last reservation goes; the PDS spoof
 * (force_pds); devices removed and the modules unloaded while an election
 * waits; and one table of faults (pod_fault: the simulator's switches and
 * the userver_ctl fault bits), each ending in its documented state within
 * the timeout.
 */
#include <stdint.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_pci.h"

#define SETTLE_MS	30000
#define DBG		"/sys/kernel/debug/neuron_sim/neuron_sim%d/%s"
#define CORE_ARGS	"pod_node_devices=2 force_userver=1 userver_eextension=2"
#define CTL_PARAM	"/sys/module/neuron_core/parameters/userver_ctl"
#define PDS_ARGS	"pod_node_devices=2 force_pds=1 userver_pds_node_cnt=3 userver_pds_server_id=4660"
#define VERBOSE_LINE	"pod node 0 device 1: 2. neighbour serials"

#define M(x)		(1u << NEURON_ULTRASERVER_MODE_##x)

/* Load the driver with @ctl and @timeout, wire @nodes nodes, add 2 * @nodes devices of @gen. */
static int pod_up(const char *gen, int nodes, int ctl, int timeout)
{
	char core[256], sim[64], st[32];
	int id;

	snprintf(core, sizeof(core), CORE_ARGS " userver_ctl=%d userver_etimeout=%d", ctl,
		 timeout);
	snprintf(sim, sizeof(sim), "pod_nodes=%d", nodes);
	if (nt_driver_up(core, sim))
		return -1;
	for (id = 0; id < 2 * nodes; id++)
		if (nt_sim_add(id, gen))
			return -1;
	for (id = 0; id < 2 * nodes; id++)
		if (strcmp(nt_sim_settle(id, st, sizeof(st), SETTLE_MS), "ready"))
			return -1;
	return 0;
}

static int pod_open(int dev)
{
	return open_node(dev, O_WRONLY);
}

/* POD_STATUS_V2 of device @dev: the ioctl's return, the struct in @st. */
static long pod_status(int dev, struct neuron_ioctl_pod_status_v2 *st)
{
	int fd = pod_open(dev);
	long ret;

	if (fd < 0)
		return -errno;
	memset(st, 0, sizeof(*st));
	st->v1.sz = sizeof(*st);
	ret = xioctl(fd, NEURON_IOCTL_POD_STATUS_V2, st);
	close(fd);
	return ret;
}

/* POD_CTRL_V2 on device @dev; *@state gets the state returned. */
static long pod_ctrl(int dev, __u32 ctrl, __u32 mode, __u32 timeout, __u32 *state)
{
	struct neuron_ioctl_pod_ctrl_v2 pc = {};
	int fd = pod_open(dev);
	long ret;

	if (fd < 0)
		return -errno;
	pc.v1.sz = sizeof(pc);
	pc.v1.ctrl = ctrl;
	pc.v1.timeout = timeout;
	pc.v1.state = 0xdead;
	pc.mode = mode;
	ret = xioctl(fd, NEURON_IOCTL_POD_CTRL_V2, &pc);
	close(fd);
	if (state)
		*state = pc.v1.state;
	return ret;
}

/* Wait until device @dev's election is over; its final status in @st, -1 on timeout. */
static long pod_wait(int dev, struct neuron_ioctl_pod_status_v2 *st, long ms)
{
	long end = nt_now_ms() + ms, ret;

	for (;;) {
		ret = pod_status(dev, st);
		if (ret != -EBUSY || nt_now_ms() > end)
			return ret;
		usleep(50000);
	}
}

static unsigned long long pod_serial(const struct neuron_ioctl_pod_status *st)
{
	unsigned long long s = 0;
	int i;

	for (i = 7; i >= 0; i--)
		s = s << 8 | st->pod_id[i];
	return s;
}

static int set_serial(int id, unsigned long long serial)
{
	char path[128];

	snprintf(path, sizeof(path), DBG, id, "serial");
	return nt_write(path, "0x%llx", serial);
}

static int set_fault(int id, const char *fault)
{
	char path[128];

	snprintf(path, sizeof(path), DBG, id, "pod_fault");
	return nt_write(path, "%s", fault);
}

/* Debugfs pod_dma_reads of simulated device @id: its engines' neighbour reads, -1 if unreadable. */
static long long nbr_reads(int id)
{
	char buf[32];

	if (nt_read(buf, sizeof(buf), DBG, id, "pod_dma_reads"))
		return -1;
	return strtoll(buf, NULL, 0);
}

/* REQ_POD on both nodes of a two-node pod; the time it was asked. */
static long pod_req_both(__u32 timeout)
{
	long t0 = nt_now_ms();

	if (pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, timeout, NULL) ||
	    pod_ctrl(2, NEURON_NPE_POD_CTRL_REQ_POD, 0, timeout, NULL))
		return -1;
	return t0;
}

/* Both nodes of a two-node pod end single within 20 s. */
static void pods_end_single(struct __test_metadata *_metadata)
{
	struct neuron_ioctl_pod_status_v2 st;
	int n;

	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, pod_wait(2 * n, &st, 20000)) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)st.v1.state);
		EXPECT_EQ(-1, st.v1.node_id);
		EXPECT_EQ(M(X1), st.modes_supported);
	}
}

static void class_attr(const char *name, char *buf, size_t len)
{
	if (nt_read(buf, len, CLASS_DIR "/%s", name))
		snprintf(buf, len, "(unreadable)");
}

/* The logical core map of device @dev into @map (128 entries). */
static int core_map(int dev, struct neuron_ioctl_nc_map *map)
{
	struct neuron_ioctl_get_logical_to_physical_nc_map req = {
		.map = map, .max_map_entries = 128,
		.mapping_version = NEURON_IOCTL_NC_MAPPING_TYPE_V0,
	};
	int fd = pod_open(dev);
	long ret;

	if (fd < 0)
		return -errno;
	ret = xioctl(fd, NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP, &req);
	close(fd);
	return ret;
}

/* Reserve (@mark) or release core @nc of the device @fd is open on; 0 or -errno. */
static long core_mark(int fd, int nc, int mark)
{
	struct neuron_ioctl_crwl_nc_map_ext m = {
		.nc_count = 1, .start_nc_index = nc, .end_nc_index = nc,
	};

	m.bitmap[0] = 1UL << nc;
	return xioctl(fd, mark ? NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0 :
			  NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0, &m);
}

/* The running election threads (comm neuron_pod<node>). */
static int pod_threads(void)
{
	struct dirent *de;
	char comm[32];
	int n = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
		    !nt_read(comm, sizeof(comm), "/proc/%s/comm", de->d_name) &&
		    !strncmp(comm, "neuron_pod", 10))
			n++;
	closedir(d);
	return n;
}

/* pod_threads() once it is @want (an exiting thread lingers briefly), at most 2 s. */
static int pod_threads_wait(int want)
{
	long end = nt_now_ms() + 2000;
	int n;

	while ((n = pod_threads()) != want && nt_now_ms() < end)
		usleep(20000);
	return n;
}

FIXTURE(pod) {
	int unused;
};

FIXTURE_SETUP(pod)
{
}

FIXTURE_TEARDOWN(pod)
{
	nt_driver_down();
}

/* Without force_userver a v3 node is a standard host (the VM's DMI name is no UltraServer's). */
TEST_F_TIMEOUT(pod, std_platform, 60)
{
	struct neuron_ioctl_pod_status_v2 st;
	char buf[64], s[32];
	__u32 state;

	ASSERT_EQ(0, nt_driver_up("pod_node_devices=2", "pod_nodes=2"));
	ASSERT_EQ(0, nt_sim_add(0, "v3"));
	ASSERT_EQ(0, nt_sim_add(1, "v3"));
	ASSERT_STREQ("ready", nt_sim_settle(0, s, sizeof(s), SETTLE_MS));
	ASSERT_STREQ("ready", nt_sim_settle(1, s, sizeof(s), SETTLE_MS));
	ASSERT_EQ(0, pod_status(0, &st));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)st.v1.state);
	EXPECT_EQ(NEURON_POD_TYPE_NONE, st.v1.pod_type);
	EXPECT_EQ(-1, st.v1.node_id);
	EXPECT_EQ(0U, st.modes_supported);
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 1, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)state);
	EXPECT_EQ(-EINVAL, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE,
				    NEURON_ULTRASERVER_MODE_X4, 0, NULL));
	class_attr("node_id_4", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);
	class_attr("server_id_2", buf, sizeof(buf));
	EXPECT_STREQ("0000000000000000", buf);
	class_attr("ultraserver_mode", buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	/* The PDS files (2.27): nothing on a standard host. */
	class_attr("node_id", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);
	class_attr("node_cnt", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);
	class_attr("reservation_id", buf, sizeof(buf));
	EXPECT_STREQ("0000000000000000", buf);
}

/* POD_CTRL in INIT (a node not all present), IN_PROGRESS and FAILURE. */
TEST_F_TIMEOUT(pod, ctrl_states, 120)
{
	struct neuron_ioctl_pod_status_v2 st;
	char s[32], buf[64];
	__u32 state;

	/* One device of a two-device node: INIT, busy. */
	ASSERT_EQ(0, nt_driver_up(CORE_ARGS " userver_etimeout=60", "pod_nodes=2"));
	ASSERT_EQ(0, nt_sim_add(0, "v3"));
	ASSERT_STREQ("ready", nt_sim_settle(0, s, sizeof(s), SETTLE_MS));
	EXPECT_EQ(-EBUSY, pod_status(0, &st));
	EXPECT_EQ(NEURON_POD_E_STATE_IN_PROGRESS, (int)st.v1.state);
	EXPECT_EQ(NEURON_POD_TYPE_P2P, st.v1.pod_type);
	EXPECT_EQ(-1, st.v1.node_id);
	class_attr("node_id_4", buf, sizeof(buf));
	EXPECT_STREQ("busy", buf);
	class_attr("ultraserver_mode", buf, sizeof(buf));
	EXPECT_STREQ("busy", buf);
	class_attr("server_id_4", buf, sizeof(buf));
	EXPECT_STREQ("0000000000000000", buf);
	/* The PDS files: busy as their neighbours; no count off a switched pod. */
	class_attr("node_id", buf, sizeof(buf));
	EXPECT_STREQ("busy", buf);
	class_attr("reservation_id", buf, sizeof(buf));
	EXPECT_STREQ("0000000000000000", buf);
	class_attr("node_cnt", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);
	EXPECT_EQ(-EBUSY, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE,
				   NEURON_ULTRASERVER_MODE_X1, 0, NULL));
	EXPECT_EQ(-EBUSY, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE, 0, 0, NULL));
	EXPECT_EQ(-EAGAIN, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 5, NULL));
	EXPECT_EQ(-EINVAL, pod_ctrl(0, 4, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, pod_ctrl(0, 0xffffffff, 0, 0, NULL));
	/* KILL in INIT: FAILURE at once. */
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_KILL, 0, 0, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)state);
	EXPECT_EQ(0, pod_status(0, &st));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)st.v1.state);
	EXPECT_EQ(M(X1), st.modes_supported);
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_UNSET, (int)st.mode);
	class_attr("ultraserver_mode", buf, sizeof(buf));
	EXPECT_STREQ("4", buf);
	class_attr("node_id_2", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);

	/* FAILURE: only X1 is supported; a set mode sticks. */
	EXPECT_EQ(-EOPNOTSUPP, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE,
					NEURON_ULTRASERVER_MODE_X4, 0, NULL));
	EXPECT_EQ(-EINVAL, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE, 5, 0, NULL));
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE, 0, 0, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)state);
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE,
			      NEURON_ULTRASERVER_MODE_X1, 0, NULL));
	EXPECT_EQ(-EEXIST, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE,
				    NEURON_ULTRASERVER_MODE_X2V, 0, NULL));
	EXPECT_EQ(0, pod_status(0, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_X1, (int)st.mode);

	/* IN_PROGRESS: the second device, its neighbour silent: an election that waits. */
	ASSERT_EQ(0, nt_sim_add(2, "v3"));
	ASSERT_EQ(0, nt_sim_add(3, "v3"));
	ASSERT_EQ(0, set_fault(2, "silent"));
	ASSERT_EQ(0, set_fault(3, "silent"));
	ASSERT_EQ(0, nt_sim_add(1, "v3"));
	ASSERT_STREQ("ready", nt_sim_settle(1, s, sizeof(s), SETTLE_MS));
	ASSERT_STREQ("ready", nt_sim_settle(3, s, sizeof(s), SETTLE_MS));
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 60, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_IN_PROGRESS, (int)state);
	EXPECT_EQ(-EBUSY, pod_status(1, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_UNSET, (int)st.mode);
	EXPECT_EQ(-EBUSY, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE,
				   NEURON_ULTRASERVER_MODE_X1, 0, NULL));
	/* Asking again while it runs changes nothing. */
	EXPECT_EQ(0, pod_ctrl(1, NEURON_NPE_POD_CTRL_REQ_POD, 0, 60, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_IN_PROGRESS, (int)state);
	/* KILL ends it well before its timeout. */
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_KILL, 0, 0, NULL));
	EXPECT_EQ(0, pod_wait(0, &st, 5000));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)st.v1.state);
	EXPECT_EQ(-1, st.v1.node_id);
	/* The other node, killed too, so that its devices go quickly. */
	pod_ctrl(2, NEURON_NPE_POD_CTRL_REQ_KILL, 0, 0, NULL);
}

/* Four nodes, node 2 the lowest serial: ids, pod serial, modes, views, attributes, flip. */
TEST_F_TIMEOUT(pod, four_nodes, 240)
{
	/* Serial numbers of the nodes' device 0; node 2 leads. */
	static const unsigned long long serial[4] = { 0x5000, 0x4000, 0x1000, 0x3000 };
	/* Left links 0-1, 2-3; right links 0-3, 1-2: the ids the rules give. */
	static const int want_id[4] = { 2, 3, 0, 1 };
	struct neuron_ioctl_pod_status_v2 st;
	size_t size = sizeof(struct neuron_ioctl_nc_map) +
		      128 * sizeof(struct neuron_ioctl_nc_map_entry);
	struct neuron_ioctl_nc_map *plain = malloc(size), *flipped = malloc(size);
	char buf[64];
	__u32 state;
	int n, i;

	ASSERT_NE(NULL, plain);
	ASSERT_NE(NULL, flipped);
	/* userver_ctl bit 0: no election at load, so the serials can be set first. */
	ASSERT_EQ(0, pod_up("v3", 4, 1, 30));
	for (n = 0; n < 4; n++) {
		ASSERT_EQ(0, pod_status(2 * n, &st));
		EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)st.v1.state);
		ASSERT_EQ(0, set_serial(2 * n, serial[n]));
	}
	for (n = 0; n < 4; n++)
		ASSERT_EQ(0, pod_ctrl(2 * n, NEURON_NPE_POD_CTRL_REQ_POD, 0, 30, NULL));
	for (n = 0; n < 4; n++) {
		ASSERT_EQ(0, pod_wait(2 * n + 1, &st, 40000)) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)st.v1.state) TH_LOG("node %d", n);
		EXPECT_EQ(want_id[n], st.v1.node_id) TH_LOG("node %d", n);
		EXPECT_EQ(4, st.v1.pod_sz);
		EXPECT_EQ(0x1000ULL, pod_serial(&st.v1));
		EXPECT_EQ(NEURON_POD_TYPE_P2P, st.v1.pod_type);
		EXPECT_EQ(M(X4) | M(X2V) | M(X1), st.modes_supported) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_ULTRASERVER_MODE_UNSET, (int)st.mode);
	}
	/* Every device read its neighbours through its DMA engines. */
	for (i = 0; i < 8; i++)
		EXPECT_LT(0, nbr_reads(i)) TH_LOG("device %d", i);

	/* Class attributes: node 0 of this host is id 2. */
	class_attr("node_id_4", buf, sizeof(buf));
	EXPECT_STREQ("2", buf);
	class_attr("server_id_4", buf, sizeof(buf));
	EXPECT_STREQ("0000000000001000", buf);
	class_attr("node_id_2", buf, sizeof(buf));
	EXPECT_STREQ("0", buf);
	class_attr("server_id_2", buf, sizeof(buf));
	EXPECT_STREQ("0000000000000fff", buf);
	class_attr("ultraserver_mode", buf, sizeof(buf));
	EXPECT_STREQ("1,3,4", buf);

	/* The die flip: node 3 is id 1, node 0 id 2. */
	ASSERT_EQ(0, core_map(0, plain));
	ASSERT_EQ(0, core_map(6, flipped));
	ASSERT_EQ(128U, plain->num_entries);
	ASSERT_EQ(128U, flipped->num_entries);
	for (i = 0; i < 128; i++) {
		EXPECT_EQ(plain->mappings[i ^ 6].device_id, flipped->mappings[i].device_id);
		EXPECT_EQ(plain->mappings[i ^ 6].device_nc_idx, flipped->mappings[i].device_nc_idx);
	}
	EXPECT_NE(plain->mappings[0].device_nc_idx, flipped->mappings[0].device_nc_idx);

	/* Modes: X2V on node 1 (id 3) is the second pair of ids 1 and 3. */
	EXPECT_EQ(-EOPNOTSUPP, pod_ctrl(2, NEURON_NPE_POD_CTRL_SET_MODE,
					NEURON_ULTRASERVER_MODE_X2H, 0, NULL));
	EXPECT_EQ(0, pod_ctrl(2, NEURON_NPE_POD_CTRL_SET_MODE,
			      NEURON_ULTRASERVER_MODE_X2V, 0, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)state);
	EXPECT_EQ(-EEXIST, pod_ctrl(3, NEURON_NPE_POD_CTRL_SET_MODE,
				    NEURON_ULTRASERVER_MODE_X4, 0, NULL));
	EXPECT_EQ(0, pod_status(3, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_X2V, (int)st.mode);
	EXPECT_EQ(1, st.v1.node_id);
	EXPECT_EQ(2, st.v1.pod_sz);
	EXPECT_EQ(0xfffULL, pod_serial(&st.v1));
	/* X4 on node 2 (id 0); X1 on node 3 (id 1) ends its flip. */
	EXPECT_EQ(0, pod_ctrl(4, NEURON_NPE_POD_CTRL_SET_MODE,
			      NEURON_ULTRASERVER_MODE_X4, 0, NULL));
	EXPECT_EQ(0, pod_status(4, &st));
	EXPECT_EQ(0, st.v1.node_id);
	EXPECT_EQ(4, st.v1.pod_sz);
	EXPECT_EQ(0x1000ULL, pod_serial(&st.v1));
	EXPECT_EQ(0, pod_ctrl(6, NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE, 0, 0, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)state);
	EXPECT_EQ(0, pod_status(7, &st));
	EXPECT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, (int)st.v1.state);
	EXPECT_EQ(-1, st.v1.node_id);
	EXPECT_EQ(0, st.v1.pod_sz);
	ASSERT_EQ(0, core_map(6, flipped));
	EXPECT_EQ(0, memcmp(plain, flipped, size));
	free(plain);
	free(flipped);
}

/* Two v4 nodes elect at load; a DHAL reload adopts the result from MiscRAM. */
TEST_F_TIMEOUT(pod, two_nodes_and_reload, 240)
{
	struct neuron_ioctl_pod_status_v2 st;
	unsigned long long s0, s1;
	char buf[64], s[32];
	int n, id;

	ASSERT_EQ(0, pod_up("v4", 2, 0, 30));
	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, pod_wait(2 * n, &st, 40000)) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)st.v1.state);
		/* The simulator's serials grow with the device id: node 0 leads. */
		EXPECT_EQ(n, st.v1.node_id);
		EXPECT_EQ(2, st.v1.pod_sz);
		EXPECT_EQ(M(X2H) | M(X2V) | M(X1), st.modes_supported);
	}
	for (id = 0; id < 4; id++)
		EXPECT_LT(0, nbr_reads(id)) TH_LOG("device %d", id);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), DBG, 0, "serial"));
	s0 = strtoull(buf, NULL, 0);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), DBG, 2, "serial"));
	s1 = strtoull(buf, NULL, 0);
	ASSERT_LT(s0, s1);
	EXPECT_EQ(s0, pod_serial(&st.v1));
	class_attr("node_id_2", buf, sizeof(buf));
	EXPECT_STREQ("0", buf);
	class_attr("node_id_4", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);
	class_attr("ultraserver_mode", buf, sizeof(buf));
	EXPECT_STREQ("2,3,4", buf);

	/*
	 * Reload: the devices wait for their DHAL, come back, and device 0
	 * of each node adopts the cached result with no election (a node
	 * whose neighbour were silent now could not elect again).
	 */
	ASSERT_EQ(0, set_fault(2, "silent"));
	ASSERT_EQ(0, set_fault(3, "silent"));
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_dhal_v4"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v4"));
	for (id = 0; id < 4; id++)
		ASSERT_STREQ("ready", nt_sim_settle(id, s, sizeof(s), SETTLE_MS));
	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, pod_status(2 * n + 1, &st)) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)st.v1.state);
		EXPECT_EQ(n, st.v1.node_id);
		EXPECT_EQ(s0, pod_serial(&st.v1));
	}
}

/*
 * Reserved cores: REQ_POD says EAGAIN; the mode goes when the last
 * reservation of the node does (an unmark, or the file's close).
 */
TEST_F_TIMEOUT(pod, marks, 120)
{
	struct neuron_ioctl_pod_status_v2 st;
	__u32 state;
	int fd, n;

	ASSERT_EQ(0, pod_up("v3", 2, 1, 4));
	/* FAILURE at load: X1 is the mode to set. */
	ASSERT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE, NEURON_ULTRASERVER_MODE_X1, 0,
			      NULL));
	fd = pod_open(1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, core_mark(fd, 1, 1));
	EXPECT_EQ(-EAGAIN, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 5, NULL));
	EXPECT_EQ(-EAGAIN, pod_ctrl(1, NEURON_NPE_POD_CTRL_REQ_POD, 0, 5, NULL));
	EXPECT_EQ(0, pod_status(0, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_X1, (int)st.mode);
	/* The other node's reservations are not node 0's. */
	EXPECT_EQ(0, pod_ctrl(2, NEURON_NPE_POD_CTRL_SET_MODE, NEURON_ULTRASERVER_MODE_X1, 0,
			      NULL));
	/* Releasing a core not reserved changes nothing. */
	EXPECT_EQ(0, core_mark(fd, 0, 0));
	EXPECT_EQ(0, pod_status(0, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_X1, (int)st.mode);
	/* The last reservation goes: so does the mode, of node 0 only. */
	EXPECT_EQ(0, core_mark(fd, 1, 0));
	EXPECT_EQ(0, pod_status(0, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_UNSET, (int)st.mode);
	EXPECT_EQ(0, pod_status(2, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_X1, (int)st.mode);
	/* A close releases too. */
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_SET_MODE, NEURON_ULTRASERVER_MODE_X1, 0,
			      NULL));
	ASSERT_EQ(0, core_mark(fd, 0, 1));
	close(fd);
	EXPECT_EQ(0, pod_status(1, &st));
	EXPECT_EQ(NEURON_ULTRASERVER_MODE_UNSET, (int)st.mode);
	/* Nothing reserved: the election runs, and the pod forms. */
	EXPECT_EQ(0, pod_ctrl(2, NEURON_NPE_POD_CTRL_REQ_POD, 0, 20, &state));
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 20, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_IN_PROGRESS, (int)state);
	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, pod_wait(2 * n, &st, 30000)) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)st.v1.state) TH_LOG("node %d", n);
	}
}

/* force_pds: a spoofed switched pod of userver_pds_node_cnt nodes, no election. */
TEST_F_TIMEOUT(pod, pds, 180)
{
	struct neuron_ioctl_pod_status_v2 st;
	struct neuron_ioctl_pod_info info;
	char s[32], path[128], buf[64];
	int fd, id;
	__u32 state;

	ASSERT_EQ(0, nt_driver_up(PDS_ARGS, "pod_nodes=0"));
	ASSERT_EQ(0, nt_sim_add(0, "v3"));
	ASSERT_EQ(0, nt_sim_add(1, "v3"));
	ASSERT_EQ(0, nt_sim_add(2, "v4"));
	for (id = 0; id < 3; id++)
		ASSERT_STREQ("ready", nt_sim_settle(id, s, sizeof(s), SETTLE_MS));
	for (id = 0; id < 3; id += 2) {
		ASSERT_EQ(0, pod_status(id, &st)) TH_LOG("device %d", id);
		EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)st.v1.state);
		EXPECT_EQ(NEURON_POD_TYPE_SWITCH, st.v1.pod_type);
		EXPECT_EQ(3, st.v1.pod_sz);
		EXPECT_EQ(4660ULL, pod_serial(&st.v1));
		/* The simulator's MiscRAM has no valid server id. */
		EXPECT_EQ(-1, st.v1.node_id);
		EXPECT_NE(0U, st.modes_supported & M(X1));
	}
	fd = pod_open(1);
	ASSERT_LE(0, fd);
	memset(&info, 0, sizeof(info));
	info.sz = sizeof(info);
	EXPECT_EQ(0, xioctl(fd, NEURON_IOCTL_POD_INFO, &info));
	close(fd);
	EXPECT_EQ(NEURON_POD_TYPE_SWITCH, info.pod_type);
	EXPECT_EQ(3, info.pod_sz);
	EXPECT_EQ(0x34, info.pod_id[0]);
	EXPECT_EQ(0x12, info.pod_id[1]);
	EXPECT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 5, &state));
	EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)state);

	/* A valid server id in MiscRAM is the node id, read when the pod state is made. */
	snprintf(path, sizeof(path), DBG, 0, "misc_set");
	ASSERT_EQ(0, nt_write(path, "0x70 0x8005"));
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_dhal_v3"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v3"));
	for (id = 0; id < 2; id++)
		ASSERT_STREQ("ready", nt_sim_settle(id, s, sizeof(s), SETTLE_MS));
	ASSERT_EQ(0, pod_status(1, &st));
	EXPECT_EQ(5, st.v1.node_id);
	EXPECT_EQ(NEURON_POD_TYPE_SWITCH, st.v1.pod_type);
	/* Three nodes mean no mode with ids: the class files show no id. */
	class_attr("node_cnt", buf, sizeof(buf));
	EXPECT_STREQ("3", buf);
	class_attr("node_id", buf, sizeof(buf));
	EXPECT_STREQ("-1", buf);
	class_attr("reservation_id", buf, sizeof(buf));
	EXPECT_STREQ("0000000000000000", buf);

	/* Four nodes, this one node 2: its id and the pod's reservation id. */
	ASSERT_EQ(0, nt_write(path, "0x70 0x8002"));
	ASSERT_EQ(0, nt_write("/sys/module/neuron_core/parameters/userver_pds_node_cnt", "4"));
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_dhal_v3"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v3"));
	for (id = 0; id < 2; id++)
		ASSERT_STREQ("ready", nt_sim_settle(id, s, sizeof(s), SETTLE_MS));
	ASSERT_EQ(0, pod_status(1, &st));
	EXPECT_EQ(2, st.v1.node_id);
	class_attr("node_cnt", buf, sizeof(buf));
	EXPECT_STREQ("4", buf);
	class_attr("node_id", buf, sizeof(buf));
	EXPECT_STREQ("2", buf);
	class_attr("reservation_id", buf, sizeof(buf));
	EXPECT_STREQ("0000000000001234", buf);
}

/*
 * Without neuron_udma no neighbour can be read (EOPNOTSUPP, as a broken
 * link): every lame-duck retry fails at once and both nodes end single,
 * long before the timeout, with no neighbour read on any engine.
 */
TEST_F_TIMEOUT(pod, no_dma_plane, 120)
{
	struct neuron_ioctl_pod_status_v2 st;
	long t0;
	int n, id;

	ASSERT_EQ(0, pod_up("v3", 2, 1, 30));
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_udma"));
	t0 = pod_req_both(30);
	ASSERT_LE(0, t0);
	pods_end_single(_metadata);
	EXPECT_GT(10000, nt_now_ms() - t0);
	for (id = 0; id < 4; id++)
		EXPECT_EQ(0, nbr_reads(id)) TH_LOG("device %d", id);
	TH_LOG("ended after %ld ms", nt_now_ms() - t0);
	/* Loaded again, the next election reads through it. */
	ASSERT_EQ(0, nt_sh("modprobe neuron_udma"));
	t0 = pod_req_both(30);
	ASSERT_LE(0, t0);
	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, pod_wait(2 * n, &st, 40000)) TH_LOG("node %d", n);
		EXPECT_EQ(NEURON_POD_E_STATE_ULTRASERVER, (int)st.v1.state) TH_LOG("node %d", n);
	}
	for (id = 0; id < 4; id++)
		EXPECT_LT(0, nbr_reads(id)) TH_LOG("device %d", id);
}

/*
 * An election that waits (node 1 silent) when its node's devices go, and
 * again when the DHAL module and then every module is unloaded: the
 * thread goes at once and nothing is left (the VM checks the log for
 * lockdep, KASAN and kmemleak reports).
 */
TEST_F_TIMEOUT(pod, unload_in_election, 120)
{
	struct neuron_ioctl_pod_status_v2 st;
	char s[32], mark[64];
	long t0;
	int id;

	ASSERT_EQ(0, pod_up("v3", 2, 1, 4));
	ASSERT_EQ(0, np_klog_mark(mark, sizeof(mark)));
	ASSERT_EQ(0, set_fault(2, "silent"));
	ASSERT_EQ(0, set_fault(3, "silent"));
	EXPECT_EQ(2, pod_threads());

	/* Node 0's devices go. */
	ASSERT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 60, NULL));
	usleep(300000);
	EXPECT_EQ(-EBUSY, pod_status(0, &st));
	t0 = nt_now_ms();
	ASSERT_EQ(0, nt_sim_del(0));
	ASSERT_EQ(0, nt_sim_del(1));
	EXPECT_GT(10000, nt_now_ms() - t0);
	EXPECT_EQ(1, pod_threads_wait(1));

	/* Back, an election again, and the DHAL goes. */
	ASSERT_EQ(0, nt_sim_add(0, "v3"));
	ASSERT_EQ(0, nt_sim_add(1, "v3"));
	for (id = 0; id < 2; id++)
		ASSERT_STREQ("ready", nt_sim_settle(id, s, sizeof(s), SETTLE_MS));
	EXPECT_EQ(2, pod_threads());
	ASSERT_EQ(0, pod_ctrl(0, NEURON_NPE_POD_CTRL_REQ_POD, 0, 60, NULL));
	usleep(300000);
	EXPECT_EQ(-EBUSY, pod_status(1, &st));
	t0 = nt_now_ms();
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_dhal_v3"));
	EXPECT_GT(10000, nt_now_ms() - t0);
	EXPECT_EQ(0, pod_threads_wait(0));
	/* Every module goes, the devices waiting for their DHAL included. */
	EXPECT_EQ(0, nt_unload_all());
	EXPECT_EQ(0, pod_threads());
	EXPECT_EQ(0, np_klog_count(mark, "BUG:", NULL));
	EXPECT_EQ(0, np_klog_count(mark, "WARNING:", NULL));
}

/*
 * The fault table: two nodes, the simulator's fault switches of devices
 * 0-3 and the userver_ctl bits set, REQ_POD on both nodes, then the state
 * both end in, the modes they support and the least time it takes.
 */
FIXTURE(pod_fault) {
	int unused;
};

FIXTURE_VARIANT(pod_fault) {
	const char *fault[4];	/* pod_fault of devices 0-3 ("" none) */
	int ctl;		/* userver_ctl during the election */
	int timeout;		/* the election's, seconds */
	int state;		/* NEURON_POD_E_STATE_* both end in; 0: either */
	__u32 modes;		/* modes_supported both end with; 0: not checked */
	__u32 never0;		/* modes node 0 must not end with */
	long min_ms;		/* least time it takes */
	int stress;		/* only with NEURON_STRESS=1 */
};

/* A broken left link: both nodes retry on the right link alone and succeed. */
FIXTURE_VARIANT_ADD(pod_fault, broken_link) {
	.fault = { "broken_left", "broken_left", "", "" }, .ctl = 1, .timeout = 4,
	.state = NEURON_POD_E_STATE_ULTRASERVER, .modes = M(X2H) | M(X1),
};

/* A silent neighbour: every retry times out (2 s, then two of 2 s); both end single. */
FIXTURE_VARIANT_ADD(pod_fault, silent_neighbour) {
	.fault = { "", "", "silent", "silent" }, .ctl = 1, .timeout = 2,
	.state = NEURON_POD_E_STATE_SINGLE_NODE, .modes = M(X1), .min_ms = 5500,
};

/*
 * Wrong wiring on node 0's left links: node 0 never uses its left link.
 * Which of the two documented ends it reaches depends on timing, so the
 * row asserts little; it runs with NEURON_STRESS=1, for make check's budget.
 */
FIXTURE_VARIANT_ADD(pod_fault, wrong_wiring) {
	.fault = { "miswire_left", "miswire_left", "", "" }, .ctl = 1, .timeout = 3,
	.never0 = M(X2V), .stress = 1,
};

/* userver_ctl bit 7 (and 2, verbose): the left link fails; the right one is used. */
FIXTURE_VARIANT_ADD(pod_fault, ctl_left) {
	.fault = { "", "", "", "" }, .ctl = 1 | 1 << 2 | 1 << 7, .timeout = 4,
	.state = NEURON_POD_E_STATE_ULTRASERVER, .modes = M(X2H) | M(X1),
};

/* userver_ctl bit 8: the right link fails; after two failed attempts the left one is used. */
FIXTURE_VARIANT_ADD(pod_fault, ctl_right) {
	.fault = { "", "", "", "" }, .ctl = 1 | 1 << 8, .timeout = 4,
	.state = NEURON_POD_E_STATE_ULTRASERVER, .modes = M(X2V) | M(X1),
};

/* userver_ctl bit 3: every secondary's links fail; every attempt fails at once. */
FIXTURE_VARIANT_ADD(pod_fault, ctl_secondary) {
	.fault = { "", "", "", "" }, .ctl = 1 | 1 << 3, .timeout = 4,
	.state = NEURON_POD_E_STATE_SINGLE_NODE, .modes = M(X1),
};

/* userver_ctl bit 4: the primary's links fail. */
FIXTURE_VARIANT_ADD(pod_fault, ctl_primary) {
	.fault = { "", "", "", "" }, .ctl = 1 | 1 << 4, .timeout = 4,
	.state = NEURON_POD_E_STATE_SINGLE_NODE, .modes = M(X1),
};

FIXTURE_SETUP(pod_fault)
{
	int id;

	if (variant->stress && !nt_env_num("NEURON_STRESS", 0))
		SKIP(return, "with NEURON_STRESS=1");
	/* The same load for every row, so the modules stay loaded between rows. */
	ASSERT_EQ(0, pod_up("v3", 2, 1, 4));
	for (id = 0; id < 4; id++)
		if (variant->fault[id][0])
			ASSERT_EQ(0, set_fault(id, variant->fault[id]));
	ASSERT_EQ(0, nt_write(CTL_PARAM, "%d", variant->ctl));
}

FIXTURE_TEARDOWN(pod_fault)
{
	/* As loaded, so that the next row finds the modules as it wants them. */
	nt_write(CTL_PARAM, "1");
	nt_driver_down();
}

TEST_F_TIMEOUT(pod_fault, ends, 120)
{
	struct neuron_ioctl_pod_status_v2 st;
	char mark[64];
	long t0, took;
	int n;

	ASSERT_EQ(0, np_klog_mark(mark, sizeof(mark)));
	t0 = pod_req_both(variant->timeout);
	ASSERT_LE(0, t0);
	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, pod_wait(2 * n, &st, 20000)) TH_LOG("node %d", n);
		TH_LOG("node %d: state %u id %d modes %#x after %ld ms", n, st.v1.state,
		       st.v1.node_id, st.modes_supported, nt_now_ms() - t0);
		if (variant->state)
			EXPECT_EQ(variant->state, (int)st.v1.state) TH_LOG("node %d", n);
		if (variant->modes)
			EXPECT_EQ(variant->modes, st.modes_supported) TH_LOG("node %d", n);
		if (variant->state == NEURON_POD_E_STATE_ULTRASERVER) {
			EXPECT_EQ(n, st.v1.node_id);
			EXPECT_EQ(2, st.v1.pod_sz);
		} else if (variant->state == NEURON_POD_E_STATE_SINGLE_NODE) {
			EXPECT_EQ(-1, st.v1.node_id);
		}
		if (n == 0)
			EXPECT_EQ(0U, st.modes_supported & variant->never0);
	}
	took = nt_now_ms() - t0;
	EXPECT_LE(variant->min_ms, took);
	/* Bit 2: each step of each device is in the log. */
	if (variant->ctl & 1 << 2)
		EXPECT_LT(0, np_klog_count(mark, VERBOSE_LINE, NULL));
}

TEST_HARNESS_MAIN
