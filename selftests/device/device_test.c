// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: device bring-up on mixed-generation hosts with simulated
 * devices: per-device DHAL binding, every load order, removal under open
 * files and blocked opens, fault switches, 64 devices, attach semantics.
 */
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"

#define SETTLE_MS	20000
/* Module options a case sets for modprobe; removed around every case. */
#define MODPROBE_CONF	"/etc/modprobe.d/neuron-test.conf"

static int open_node(int index, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/neuron%d", index);
	return open(path, flags);
}

/* Start each test from no module loaded, end with none loaded. */
FIXTURE(dev) {
	char buf[128];
	long t0;
};

FIXTURE_SETUP(dev)
{
	self->t0 = nt_now_ms();
	unlink(MODPROBE_CONF);
	ASSERT_EQ(0, nt_unload_all());
}

FIXTURE_TEARDOWN(dev)
{
	unlink(MODPROBE_CONF);
	if (nt_exists(SIM_BUS))
		nt_sim_del_all();
	nt_unload_all();
	TH_LOG("%.1f s", (nt_now_ms() - self->t0) / 1000.0);
}

/* Expect sim device @id READY as /dev/neuron@index with generation @gen. */
static void expect_ready(struct __test_metadata *_metadata, int id, int index,
			 const char *gen, const char *dhal)
{
	char buf[128];

	ASSERT_STREQ("ready", nt_sim_settle(id, buf, sizeof(buf), SETTLE_MS));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/info/generation", index));
	EXPECT_STREQ(gen, buf);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/info/dhal", index));
	EXPECT_STREQ(dhal, buf);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state", index));
	EXPECT_STREQ("ready", buf);
	EXPECT_TRUE(nt_exists("/dev/neuron%d", index));
}

TEST_F_TIMEOUT(dev, mixed_generations_one_host, 300)
{
	static const struct {
		const char *spec, *gen, *dhal, *name, *arch, *inst, *ncs;
	} want[] = {
		{ "v2", "v2", "neuron_dhal_v2", "Trainium1", "NDv2", "Trn1", "2" },
		{ "v3", "v3", "neuron_dhal_v3", "Trainium2", "NDv3", "Trn2", "8" },
		{ "v4", "v4", "neuron_dhal_v4", "Trainium3", "NDv4", "Trn3", "8" },
		{ "7264", "v2", "neuron_dhal_v2", "Inferentia2", "NDv3", "Inf2", "2" },
		{ "0x7565", "v4", "neuron_dhal_v4", "Trainium3", "NDv4", "Trn3", "8" },
	};
	unsigned int i;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ASSERT_EQ(0, nt_sim_add(i, want[i].spec));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		expect_ready(_metadata, i, i, want[i].gen, want[i].dhal);
		nt_read(self->buf, sizeof(self->buf),
			CLASS_DIR "/neuron%u/info/architecture/device_name", i);
		EXPECT_STREQ(want[i].name, self->buf);
		nt_read(self->buf, sizeof(self->buf),
			CLASS_DIR "/neuron%u/info/architecture/arch_type", i);
		EXPECT_STREQ(want[i].arch, self->buf);
		nt_read(self->buf, sizeof(self->buf),
			CLASS_DIR "/neuron%u/info/architecture/instance_type", i);
		EXPECT_STREQ(want[i].inst, self->buf);
		nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%u/core_count", i);
		EXPECT_STREQ(want[i].ncs, self->buf);
		nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron%u/info/simulated", i);
		EXPECT_STREQ("1", self->buf);
		EXPECT_EQ(0, nt_read(self->buf, sizeof(self->buf),
				     CLASS_DIR "/neuron%u/info/serial_number", i));
		EXPECT_EQ(16, strlen(self->buf));
	}
	/*
	 * No DHAL module is pinned by its devices: unloading one takes its
	 * devices down, to wait for it, and leaves the others alone.
	 */
	EXPECT_EQ(0, nt_sh("modprobe -r neuron_dhal_v4"));
	EXPECT_FALSE(nt_exists("/sys/module/neuron_dhal_v4"));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		if (strcmp(want[i].gen, "v4")) {
			expect_ready(_metadata, i, i, want[i].gen, want[i].dhal);
			continue;
		}
		EXPECT_STREQ("waiting-for-dhal", nt_sim_state(i, self->buf, sizeof(self->buf)));
		EXPECT_FALSE(nt_exists("/dev/neuron%u", i));
	}
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v4"));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		expect_ready(_metadata, i, i, want[i].gen, want[i].dhal);
}

TEST_F_TIMEOUT(dev, load_order_core_then_dhal_then_devices, 300)
{
	ASSERT_EQ(0, nt_sh("modprobe neuron_core"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v2"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v3"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v4"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(0, "v2"));
	ASSERT_EQ(0, nt_sim_add(1, "v3"));
	ASSERT_EQ(0, nt_sim_add(2, "v4"));
	expect_ready(_metadata, 0, 0, "v2", "neuron_dhal_v2");
	expect_ready(_metadata, 1, 1, "v3", "neuron_dhal_v3");
	expect_ready(_metadata, 2, 2, "v4", "neuron_dhal_v4");
}

TEST_F_TIMEOUT(dev, load_order_devices_load_their_dhal, 300)
{
	/*
	 * The core and the simulator without the DHALs (the core's soft
	 * dependencies loaded them; they go again): each device loads its own.
	 */
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sh("rmmod neuron_dhal_v2 neuron_dhal_v3 neuron_dhal_v4"));
	EXPECT_FALSE(nt_exists("/sys/module/neuron_dhal_v2"));
	ASSERT_EQ(0, nt_sim_add(5, "v4"));
	ASSERT_EQ(0, nt_sim_add(6, "v2"));
	expect_ready(_metadata, 5, 5, "v4", "neuron_dhal_v4");
	expect_ready(_metadata, 6, 6, "v2", "neuron_dhal_v2");
	EXPECT_FALSE(nt_exists("/sys/module/neuron_dhal_v3/holders/neuron_dhal_v2"));
}

TEST_F_TIMEOUT(dev, load_order_device_waits_for_dhal, 300)
{
	/* Keep the DHAL from loading on demand, so the device must wait. */
	ASSERT_EQ(0, nt_sh("mkdir -p /etc/modprobe.d"));
	ASSERT_EQ(0, nt_write(MODPROBE_CONF, "install neuron_dhal_v3 /bin/true\n"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(3, "v3"));
	usleep(500000);
	EXPECT_STREQ("waiting-for-dhal", nt_sim_state(3, self->buf, sizeof(self->buf)));
	EXPECT_FALSE(nt_exists("/dev/neuron3"));
	unlink(MODPROBE_CONF);
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v3"));
	expect_ready(_metadata, 3, 3, "v3", "neuron_dhal_v3");
}

TEST_F_TIMEOUT(dev, load_order_dhal_before_core_user, 300)
{
	/* A DHAL pulls in the core; the simulator comes last. */
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v4"));
	EXPECT_TRUE(nt_exists("/sys/module/neuron_core"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(7, "v4"));
	expect_ready(_metadata, 7, 7, "v4", "neuron_dhal_v4");
}

TEST_F_TIMEOUT(dev, remove_with_open_files_and_blocked_open, 300)
{
	int fd, wfd, st;
	pid_t child;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(4, "v3"));
	expect_ready(_metadata, 4, 4, "v3", "neuron_dhal_v3");
	fd = open_node(4, O_RDONLY);
	ASSERT_LE(0, fd);
	wfd = open_node(4, O_WRONLY);
	ASSERT_LE(0, wfd);
	close(fd);

	/* A reset that never completes: a normal open blocks in the kernel. */
	ASSERT_EQ(0, nt_write("/sys/kernel/debug/neuron_sim/neuron_sim4/fault", "reset_hang"));
	ASSERT_EQ(0, nt_write(CLASS_DIR "/neuron4/reset", "1"));
	EXPECT_STREQ("resetting", nt_sim_state(4, self->buf, sizeof(self->buf)));
	/* The free-access lane does not wait. */
	fd = open_node(4, O_WRONLY);
	ASSERT_LE(0, fd);
	close(fd);

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int cfd = open_node(4, O_RDONLY);

		_exit(cfd < 0 && errno == ENODEV ? 0 : 10 + (cfd >= 0));
	}
	usleep(300000);
	ASSERT_EQ(0, waitpid(child, &st, WNOHANG));	/* still blocked */

	ASSERT_EQ(0, nt_sim_del(4));
	ASSERT_EQ(child, waitpid(child, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_FALSE(nt_exists("/dev/neuron4"));
	/* The file still open fails cleanly. */
	EXPECT_EQ(-1, ioctl(wfd, 0x4e01));
	EXPECT_EQ(ENODEV, errno);
	close(wfd);
}

TEST_F_TIMEOUT(dev, unload_simulator_with_open_files, 300)
{
	int fd;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(0, "v2"));
	expect_ready(_metadata, 0, 0, "v2", "neuron_dhal_v2");
	fd = open_node(0, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nt_sh("modprobe -r neuron_sim"));
	EXPECT_FALSE(nt_exists("/dev/neuron0"));
	EXPECT_EQ(-1, ioctl(fd, 0x4e01));
	EXPECT_EQ(ENODEV, errno);
	/* The DHAL is free again once its device is gone. */
	EXPECT_EQ(0, nt_sh("modprobe -r neuron_dhal_v2"));
	/* The core is pinned by the open file until it closes. */
	EXPECT_NE(0, nt_sh("modprobe -r neuron_core 2>/dev/null"));
	close(fd);
	EXPECT_EQ(0, nt_sh("modprobe -r neuron_core"));
}

TEST_F_TIMEOUT(dev, fault_reset_fails, 300)
{
	int fd;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(1, "v2 fault=reset_fail"));
	ASSERT_STREQ("failed", nt_sim_settle(1, self->buf, sizeof(self->buf), SETTLE_MS));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron1/state"));
	EXPECT_STREQ("failed", self->buf);
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron1/reset"));
	EXPECT_STREQ("2", self->buf);
	fd = open_node(1, O_RDONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EIO, errno);

	/* With the fault cleared, a reset brings it back. */
	ASSERT_EQ(0, nt_write("/sys/kernel/debug/neuron_sim/neuron_sim1/fault", "none"));
	ASSERT_EQ(0, nt_write(CLASS_DIR "/neuron1/reset", "1"));
	ASSERT_STREQ("ready", nt_sim_settle(1, self->buf, sizeof(self->buf), SETTLE_MS));
	fd = open_node(1, O_RDONLY);
	EXPECT_LE(0, fd);
	close(fd);
}

/* Read @fd from its start into @buf, without the newline. */
static ssize_t read_word(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n >= 0) {
		buf[n] = 0;
		buf[strcspn(buf, "\n")] = 0;
	}
	return n;
}

/*
 * Read @p's file until it says @word: every wait for the next change must
 * end in a wake-up, not in the timeout.
 */
static void wait_word(struct __test_metadata *_metadata, struct pollfd *p, const char *word)
{
	char buf[32];
	int n;

	ASSERT_LT(0, read_word(p->fd, buf, sizeof(buf)));
	for (n = 0; strcmp(buf, word); n++) {
		ASSERT_GT(8, n);
		ASSERT_EQ(1, poll(p, 1, SETTLE_MS)) TH_LOG("no wake-up after %s", buf);
		EXPECT_TRUE(p->revents & POLLPRI);
		ASSERT_LT(0, read_word(p->fd, buf, sizeof(buf)));
	}
}

/*
 * The files that show a device's state wake poll() at every change: the
 * simulated device's from its creation on, the node's "state" and "reset"
 * once the node exists.  (A sysfs file polls as changed once notified
 * after its last read.)
 */
TEST_F_TIMEOUT(dev, state_files_wake_pollers, 300)
{
	static const char *const names[] = { "state", "reset" };
	struct pollfd p[3] = {};
	char buf[32];
	int i;

	/* Hold the device before its DHAL, as in load_order_device_waits_for_dhal. */
	ASSERT_EQ(0, nt_sh("mkdir -p /etc/modprobe.d"));
	ASSERT_EQ(0, nt_write(MODPROBE_CONF, "install neuron_dhal_v3 /bin/true\n"));
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(3, "v3"));
	p[0].fd = open(SIM_BUS "/devices/neuron_sim3/state", O_RDONLY);
	ASSERT_LE(0, p[0].fd);
	p[0].events = POLLPRI;
	wait_word(_metadata, &p[0], "waiting-for-dhal");
	EXPECT_EQ(0, poll(p, 1, 0));

	/* Bring-up goes on. */
	unlink(MODPROBE_CONF);
	ASSERT_EQ(0, nt_sh("modprobe neuron_dhal_v3"));
	wait_word(_metadata, &p[0], "ready");

	for (i = 0; i < 2; i++) {
		snprintf(self->buf, sizeof(self->buf), CLASS_DIR "/neuron3/%s", names[i]);
		p[i + 1].fd = open(self->buf, O_RDONLY);
		ASSERT_LE(0, p[i + 1].fd);
		p[i + 1].events = POLLPRI;
		ASSERT_LT(0, read_word(p[i + 1].fd, buf, sizeof(buf)));
	}
	EXPECT_STREQ("1", buf);
	/* Each file read since its last change: nothing to report. */
	EXPECT_EQ(0, poll(p, 3, 0));

	/* A reset, to RESETTING and back to READY: all three have changed. */
	ASSERT_EQ(0, nt_write(CLASS_DIR "/neuron3/reset", "1"));
	ASSERT_STREQ("ready", nt_sim_settle(3, self->buf, sizeof(self->buf), SETTLE_MS));
	EXPECT_EQ(3, poll(p, 3, 0));
	for (i = 0; i < 3; i++) {
		EXPECT_TRUE(p[i].revents & POLLPRI) TH_LOG("file %d", i);
		ASSERT_LT(0, read_word(p[i].fd, buf, sizeof(buf)));
	}
	EXPECT_EQ(0, poll(p, 3, 0));
	for (i = 0; i < 3; i++)
		close(p[i].fd);
}

TEST_F_TIMEOUT(dev, fault_reset_never_completes, 300)
{
	long start;
	int fd;

	ASSERT_EQ(0, nt_sh("modprobe neuron_core reset_timeout_ms=1000 && modprobe neuron_sim"));
	start = nt_now_ms();
	ASSERT_EQ(0, nt_sim_add(2, "v3 fault=reset_hang"));
	ASSERT_STREQ("failed", nt_sim_settle(2, self->buf, sizeof(self->buf), SETTLE_MS));
	EXPECT_GE(nt_now_ms() - start, 1000);
	fd = open_node(2, O_RDONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EIO, errno);
}

TEST_F_TIMEOUT(dev, fault_routing_id_never_ready, 300)
{
	ASSERT_EQ(0, nt_sh("modprobe neuron_core rid_timeout_ms=500 && modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(3, "v4 fault=rid_hang"));
	ASSERT_STREQ("failed", nt_sim_settle(3, self->buf, sizeof(self->buf), SETTLE_MS));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), SIM_BUS "/devices/neuron_sim3/index"));
	EXPECT_STREQ("-1", self->buf);
	EXPECT_FALSE(nt_exists("/dev/neuron3"));
	/* The index stays free for a healthy device. */
	ASSERT_EQ(0, nt_sim_add(4, "v4 rid=3"));
	expect_ready(_metadata, 4, 3, "v4", "neuron_dhal_v4");
}

TEST_F_TIMEOUT(dev, duplicate_and_out_of_range_routing_id_refused, 300)
{
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(0, "v2"));
	expect_ready(_metadata, 0, 0, "v2", "neuron_dhal_v2");
	ASSERT_EQ(0, nt_sim_add(1, "v3 rid=0"));
	EXPECT_STREQ("failed", nt_sim_settle(1, self->buf, sizeof(self->buf), SETTLE_MS));
	/* The first owner of the index is untouched. */
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron0/info/generation"));
	EXPECT_STREQ("v2", self->buf);
	EXPECT_EQ(-EINVAL, nt_sim_add(64, "v2"));
	/* Device memory: a power of two from 1 MiB to 1 GiB, or nothing is made. */
	EXPECT_EQ(-EINVAL, nt_sim_add(2, "v2 mem=3M"));
	EXPECT_EQ(-EINVAL, nt_sim_add(2, "v2 mem=512K"));
	EXPECT_EQ(-EINVAL, nt_sim_add(2, "v2 mem=2G"));
	EXPECT_EQ(-EINVAL, nt_sim_add(2, "v2 mem=lots"));
	EXPECT_FALSE(nt_exists(SIM_BUS "/devices/neuron_sim2"));
	ASSERT_EQ(0, nt_sim_add(2, "v2 mem=2M"));
	EXPECT_STREQ("ready", nt_sim_settle(2, self->buf, sizeof(self->buf), SETTLE_MS));
}

/*
 * 64 devices of mixed generations come up and go, NEURON_DEVICE_ROUNDS times
 * (make check: 2; make stress: 10), each round shifting the generations.
 */
TEST_F_TIMEOUT(dev, sixty_four_devices_repeatedly, 900)
{
	static const char * const gens[] = { "v2", "v3", "v4" };
	unsigned long long rounds = nt_env_num("NEURON_DEVICE_ROUNDS", 1);
	int round, id;

	ksft_print_msg("NEURON_DEVICE_ROUNDS=%llu\n", rounds);
	ASSERT_EQ(0, nt_sh("modprobe neuron_sim mem_size=1048576"));
	for (round = 0; round < (int)rounds; round++) {
		for (id = 0; id < 64; id++)
			ASSERT_EQ(0, nt_sim_add(id, gens[(id + round) % 3]));
		/* A 65th has no index to take. */
		EXPECT_EQ(-EINVAL, nt_sim_add(64, "v2"));
		for (id = 0; id < 64; id++) {
			ASSERT_STREQ("ready", nt_sim_settle(id, self->buf, sizeof(self->buf),
							    60000));
			ASSERT_TRUE(nt_exists("/dev/neuron%d", id));
		}
		for (id = 0; id < 64; id++)
			ASSERT_EQ(0, nt_sim_del(id));
		EXPECT_FALSE(nt_exists("/dev/neuron0"));
		EXPECT_FALSE(nt_exists("/dev/neuron63"));
	}
}

/* Send @fd over unix socket @sock with one data byte; return what sendmsg does. */
static ssize_t send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	return sendmsg(sock, &msg, 0);
}

/* Whether any process is attached: a reset request says so with -EBUSY. */
static int attached(int index)
{
	char buf[32], path[96];
	long end = nt_now_ms() + SETTLE_MS;
	int ret;

	snprintf(path, sizeof(path), CLASS_DIR "/neuron%d/reset", index);
	for (;;) {
		ret = nt_write(path, "1");
		if (ret != -EBUSY)
			break;
		/* -EBUSY is also a reset still running: wait for ready and ask again. */
		if (!nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state", index) &&
		    !strcmp(buf, "ready"))
			return 1;
		if (nt_now_ms() > end)
			return -1;
		usleep(20000);
	}
	/* The reset was accepted: nobody was attached.  Let it finish. */
	while (nt_now_ms() < end &&
	       !(nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/state", index) == 0 &&
		 !strcmp(buf, "ready")))
		usleep(20000);
	return ret == 0 ? 0 : -1;
}

TEST_F_TIMEOUT(dev, attach_follows_files_not_close_calls, 300)
{
	int fd, fd2, sv[2], st;
	pid_t child;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(9, "v2"));
	expect_ready(_metadata, 9, 9, "v2", "neuron_dhal_v2");
	EXPECT_EQ(0, attached(9));

	/* The free-access lane never attaches. */
	fd = open_node(9, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, attached(9));
	close(fd);

	/* dup: closing one copy keeps the process attached. */
	fd = open_node(9, O_RDONLY);
	ASSERT_LE(0, fd);
	fd2 = dup(fd);
	EXPECT_EQ(1, attached(9));
	close(fd);
	EXPECT_EQ(1, attached(9));
	close(fd2);
	EXPECT_EQ(0, attached(9));

	/* fork: the child's inherited copy keeps the file alive. */
	fd = open_node(9, O_RDONLY);
	ASSERT_LE(0, fd);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		usleep(500000);
		_exit(0);
	}
	close(fd);
	EXPECT_EQ(1, attached(9));
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, attached(9));

	/* Passed over a unix socket: the receiver holds it after the sender closes. */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		char cbuf[CMSG_SPACE(sizeof(int))], c;
		struct iovec iov = { &c, 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		int got;

		close(sv[0]);
		if (recvmsg(sv[1], &msg, 0) != 1)
			_exit(2);
		memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(got));
		/* Hold it until told to go. */
		if (read(sv[1], &c, 1) != 1)
			_exit(3);
		close(got);
		_exit(0);
	}
	close(sv[1]);
	fd = open_node(9, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, send_fd(sv[0], fd));
	close(fd);
	usleep(100000);
	EXPECT_EQ(1, attached(9));
	ASSERT_EQ(1, write(sv[0], "g", 1));
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	close(sv[0]);
	EXPECT_EQ(0, attached(9));
}

TEST_F_TIMEOUT(dev, attach_table_is_bounded, 300)
{
	pid_t kids[15];
	int fd, i, p[2], st;
	char c;

	ASSERT_EQ(0, nt_sh("modprobe neuron_sim"));
	ASSERT_EQ(0, nt_sim_add(8, "v3"));
	expect_ready(_metadata, 8, 8, "v3", "neuron_dhal_v3");
	ASSERT_EQ(0, pipe(p));
	fd = open_node(8, O_RDONLY);
	ASSERT_LE(0, fd);
	/* 15 more processes attach: 16 in all. */
	for (i = 0; i < 15; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (kids[i] == 0) {
			int cfd = open_node(8, O_RDONLY);

			close(p[1]);
			if (cfd >= 0)
				(void)!read(p[0], &c, 1);	/* hold until the pipe closes */
			_exit(cfd >= 0 ? 0 : 1);
		}
	}
	usleep(1000000);
	/* A second file of an attached process is fine. */
	i = open_node(8, O_RDONLY);
	EXPECT_LE(0, i);
	close(i);
	/* A 17th process is refused. */
	{
		pid_t extra = fork();

		ASSERT_LE(0, extra);
		if (extra == 0) {
			int cfd = open_node(8, O_RDONLY);

			_exit(cfd < 0 && errno == EBUSY ? 0 : 1);
		}
		ASSERT_EQ(extra, waitpid(extra, &st, 0));
		EXPECT_EQ(0, WEXITSTATUS(st));
	}
	/*
	 * Sixteen processes that never let go cannot keep an administrator
	 * from resetting the device: a plain request is refused, "force" is
	 * not, and the processes keep working files.
	 */
	EXPECT_EQ(-EBUSY, nt_write(CLASS_DIR "/neuron8/reset", "1"));
	EXPECT_EQ(0, nt_write(CLASS_DIR "/neuron8/reset", "force"));
	expect_ready(_metadata, 8, 8, "v3", "neuron_dhal_v3");
	{
		__u8 ready = 0;

		EXPECT_EQ(0, ioctl(fd, NEURON_IOCTL_DEVICE_READY, &ready));
		EXPECT_EQ(1, ready);
	}
	close(p[1]);
	close(p[0]);
	for (i = 0; i < 15; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &st, 0));
		EXPECT_EQ(0, WEXITSTATUS(st));
	}
	close(fd);
	EXPECT_EQ(0, attached(8));
}

TEST_HARNESS_MAIN
