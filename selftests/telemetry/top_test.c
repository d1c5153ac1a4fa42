// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: tools/neuron-top, the top-like monitor (Documentation/telemetry.rst).
 * With one simulated device of each generation and this process attached to
 * one of them holding device and host memory, `neuron-top --json` must be
 * valid JSON that lists every device with its sysfs identity, one entry per
 * NeuronCore whose memory figures are the sysfs counters, and this process
 * with the memory DEVICE_GET_ALL_APPS_INFO reports, and neuron-top itself
 * must not be attached; `--once` prints the same in text; the health of the
 * v3 and v4 devices (health_status/, the simulator's health switch making
 * two components of the v3 device unhealthy) is in both; bad options fail.
 *
 * neuron-top is built beside this program (selftests/Makefile); without it
 * (a copy of the selftests in a kernel tree) the tests skip.
 */
#include <limits.h>
#include <libgen.h>
#include <sys/wait.h>

#include <neuron/neuron_ioctl.h>

#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_json.h"

#define SETTLE_MS	20000
#define NDEVS		3
#define DEV_BYTES	(1024 * 1024)
#define HOST_BYTES	(256 * 1024)
#define OUT_MAX		(1024 * 1024)

static const char *const gens[NDEVS] = { "v2", "v3", "v4" };

FIXTURE(top) {
	int index[NDEVS];
	int fd;			/* attached to the v3 device */
	__u64 dev_h, host_h;
	char tool[PATH_MAX];
	char *out;
};

/* neuron-top beside this program, or "" when it is not there. */
static void find_tool(char *path, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	path[0] = 0;
	if (n <= 0)
		return;
	self[n] = 0;
	snprintf(path, size, "%s/neuron-top", dirname(self));
	if (access(path, X_OK))
		path[0] = 0;
}

/*
 * Run neuron-top with @a1 and @a2 (NULL to leave out), its standard output
 * into @out (NUL-terminated); its exit status, or -1.
 */
static int run_tool(const char *tool, const char *a1, const char *a2, char *out)
{
	int pipefd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		/* Usage messages of the bad-option cases are not the test's output. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(tool, "neuron-top", a1, a2, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (len < OUT_MAX - 1 && (n = read(pipefd[0], out + len, OUT_MAX - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The sysfs number at CLASS_DIR/neuron@index/@rel, or -1. */
static long long sysfs_num(int index, const char *rel)
{
	char buf[64];

	if (nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/%s", index, rel))
		return -1;
	return atoll(buf);
}

/* The processes DEVICE_GET_ALL_APPS_INFO reports on @fd: our entry into @me. */
static int apps_info(int fd, struct neuron_app_info *me, int *count)
{
	struct {
		struct neuron_ioctl_get_apps_info hdr;
		struct neuron_app_info app[16];
	} q;
	unsigned int i;

	memset(&q, 0, sizeof(q));
	memset(me, 0, sizeof(*me));
	q.hdr.apps_info_flags = APP_INFO_PID_MEM_USAGE;
	q.hdr.capacity = 16;
	if (xioctl(fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, &q))
		return -1;
	*count = q.hdr.size;
	for (i = 0; i < q.hdr.size; i++)
		if (q.app[i].pid == getpid())
			*me = q.app[i];
	return 0;
}

/* Occurrences of @what in @s. */
static int count_of(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* The entry of process @pid in a device's "processes", or NULL. */
static const struct nj *find_pid(const struct nj *procs, int pid)
{
	int i;

	for (i = 0; i < (procs ? procs->n : 0); i++)
		if ((int)nj_num(nj_get(nj_at(procs, i), "pid"), -1) == pid)
			return nj_at(procs, i);
	return NULL;
}

FIXTURE_SETUP(top)
{
	char buf[64];
	int i;

	self->fd = -1;
	self->out = malloc(OUT_MAX);
	ASSERT_NE(NULL, self->out);
	find_tool(self->tool, sizeof(self->tool));
	if (!self->tool[0])
		SKIP(return, "no neuron-top beside this program");
	ASSERT_EQ(0, nt_driver_up("", ""));
	for (i = 0; i < NDEVS; i++)
		ASSERT_EQ(0, nt_sim_add(i, gens[i]));
	for (i = 0; i < NDEVS; i++) {
		ASSERT_STREQ("ready", nt_sim_settle(i, buf, sizeof(buf), SETTLE_MS));
		ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", i));
		self->index[i] = atoi(buf);
	}
	self->fd = open_node(self->index[1], O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, alloc_dev(self->fd, DEV_BYTES, 0, &self->dev_h));
	ASSERT_EQ(0, alloc_host(self->fd, HOST_BYTES, &self->host_h));
}

FIXTURE_TEARDOWN(top)
{
	if (self->fd >= 0)
		close(self->fd);
	free(self->out);
	EXPECT_EQ(0, nt_driver_down());
}

/*
 * The v3 device's (simulated device 1) firmware reports HBM (bit 0) and
 * link_efa (bit 6) unhealthy; 0 once its health_status shows it.
 */
static int set_unhealthy(int index)
{
	char path[160], buf[64];
	long t0 = nt_now_ms();

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron_sim/neuron_sim%d/health", 1);
	if (nt_write(path, "unhealthy 0x41"))
		return -1;
	snprintf(path, sizeof(path),
		 CLASS_DIR "/neuron%d/stats/hardware/health_status/unhealthy_components", index);
	while (nt_now_ms() - t0 < 5000) {
		if (!nt_read(buf, sizeof(buf), "%s", path) && !strcmp(buf, "hbm,link_efa"))
			return 0;
		usleep(10000);
	}
	return -1;
}

static long long health_num(int index, const char *name)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "stats/hardware/health_status/%s", name);
	return sysfs_num(index, rel);
}

/*
 * The "health" of device @i (of gens[]), index @idx, in the JSON: null on
 * v2; else the sysfs numbers, and the components unhealthy() set on v3.
 */
static void health_check(struct __test_metadata *_metadata, const struct nj *d, int i, int idx)
{
	const struct nj *h = nj_get(d, "health"), *u;

	ASSERT_NE(NULL, h) TH_LOG("neuron%d", idx);
	if (i == 0) {
		EXPECT_EQ(NJ_NULL, h->type) TH_LOG("neuron%d", idx);
		return;
	}
	ASSERT_EQ(NJ_OBJ, h->type) TH_LOG("neuron%d", idx);
	EXPECT_EQ(health_num(idx, "sram_ecc_err_count"),
		  (long long)nj_num(nj_get(h, "sram_ecc_err_count"), -2));
	EXPECT_EQ(health_num(idx, "hbm_ecc_err_count"),
		  (long long)nj_num(nj_get(h, "hbm_ecc_err_count"), -2));
	EXPECT_LE(0, (long long)nj_num(nj_get(h, "hw_error_event"), -2));
	EXPECT_LE(0, (long long)nj_num(nj_get(h, "healthcheck_heartbeat"), -2));
	u = nj_get(h, "unhealthy_components");
	ASSERT_NE(NULL, u);
	ASSERT_EQ(NJ_ARR, u->type);
	if (i != 1) {
		EXPECT_EQ(0, u->n);
		return;
	}
	ASSERT_EQ(2, u->n);
	EXPECT_STREQ("hbm", nj_str(nj_at(u, 0)));
	EXPECT_STREQ("link_efa", nj_str(nj_at(u, 1)));
}

/* The JSON snapshot against sysfs and DEVICE_GET_ALL_APPS_INFO. */
/* neuron-top reads some 2000 sysfs files: seconds under TCG and KASAN. */
TEST_F_TIMEOUT(top, json, 120)
{
	struct neuron_app_info me;
	const struct nj *devs;
	long long core_dev_sum = 0;
	int apps, after, i, k;
	struct nj doc;

	ASSERT_EQ(0, apps_info(self->fd, &me, &apps));
	ASSERT_EQ(getpid(), me.pid);
	ASSERT_LE(DEV_BYTES, me.device_mem_size);
	ASSERT_LE(HOST_BYTES, me.host_mem_size);

	ASSERT_EQ(0, set_unhealthy(self->index[1]));
	ASSERT_EQ(0, run_tool(self->tool, "--json", NULL, self->out));
	ASSERT_TRUE(nj_parse(self->out, &doc)) TH_LOG("not JSON: %.400s", self->out);
	devs = nj_get(&doc, "devices");
	ASSERT_NE(NULL, devs);
	ASSERT_EQ(NJ_ARR, devs->type);
	ASSERT_EQ(NDEVS, devs->n);
	for (i = 0; i < NDEVS; i++) {
		const struct nj *d = nj_at(devs, i), *cores, *procs;
		int idx = self->index[i], ncores;
		char name[32], want[32];

		snprintf(name, sizeof(name), "neuron%d", idx);
		EXPECT_STREQ(name, nj_str(nj_get(d, "name")));
		EXPECT_EQ(idx, (int)nj_num(nj_get(d, "index"), -1));
		EXPECT_STREQ(gens[i], nj_str(nj_get(d, "generation")));
		ASSERT_EQ(0, nt_read(want, sizeof(want),
				     CLASS_DIR "/%s/info/architecture/device_name", name));
		EXPECT_STREQ(want, nj_str(nj_get(d, "device_name")));
		EXPECT_STREQ("ready", nj_str(nj_get(d, "state")));
		ncores = sysfs_num(idx, "core_count");
		EXPECT_EQ(ncores, (int)nj_num(nj_get(d, "core_count"), -1));

		/* health_status/ where the generation has it (v3 and v4), else null. */
		health_check(_metadata, d, i, idx);

		/* One entry per NeuronCore, with the sysfs figures. */
		cores = nj_get(d, "cores");
		ASSERT_NE(NULL, cores);
		EXPECT_EQ(ncores, cores->n);
		for (k = 0; k < cores->n; k++) {
			const struct nj *c = nj_at(cores, k);
			char rel[128];
			long long v;

			EXPECT_EQ(k, (int)nj_num(nj_get(c, "index"), -1));
			snprintf(rel, sizeof(rel),
				 "neuron_core%d/stats/memory_usage/device_mem/total", k);
			v = sysfs_num(idx, rel);
			EXPECT_LE(0, v) TH_LOG("%s/%s", name, rel);
			EXPECT_EQ(v, (long long)nj_num(nj_get(nj_get(c, "device_memory"), "total"),
						       -2)) TH_LOG("%s core %d", name, k);
			if (i == 1 && v > 0)
				core_dev_sum += v;
			snprintf(rel, sizeof(rel),
				 "neuron_core%d/stats/other_info/inference_count/total", k);
			EXPECT_EQ(sysfs_num(idx, rel),
				  (long long)nj_num(nj_get(c, "executions"), -2));
		}

		/* This process on the device it holds, nowhere else; never neuron-top. */
		procs = nj_get(d, "processes");
		ASSERT_NE(NULL, procs);
		ASSERT_EQ(NJ_ARR, procs->type);
		if (i == 1) {
			const struct nj *p = find_pid(procs, getpid());

			ASSERT_NE(NULL, p);
			EXPECT_EQ(apps, procs->n);
			EXPECT_EQ((double)me.device_mem_size,
				  nj_num(nj_get(p, "device_memory"), -1));
			EXPECT_EQ((double)me.host_mem_size, nj_num(nj_get(p, "host_memory"), -1));
			EXPECT_STRNE("", nj_str(nj_get(p, "command")));
		} else {
			EXPECT_EQ(NULL, find_pid(procs, getpid()));
		}
		if (i != 1)
			EXPECT_EQ(0, procs->n) TH_LOG("%s: a process that is not attached", name);
	}
	/* The chunk is counted on one of the v3 device's cores. */
	EXPECT_LE(DEV_BYTES, core_dev_sum);
	nj_free(&doc);

	/* Nothing neuron-top did attached it: the count is what it was. */
	ASSERT_EQ(0, apps_info(self->fd, &me, &after));
	EXPECT_EQ(apps, after);
}

/* The text snapshot names every device and this process. */
TEST_F_TIMEOUT(top, text, 120)
{
	char want[64];
	int i;

	ASSERT_EQ(0, run_tool(self->tool, "--once", NULL, self->out));
	EXPECT_NE(NULL, strstr(self->out, "neuron-top")) TH_LOG("%.400s", self->out);
	for (i = 0; i < NDEVS; i++) {
		snprintf(want, sizeof(want), "neuron%d ", self->index[i]);
		EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("no %s in %.400s", want, self->out);
	}
	snprintf(want, sizeof(want), "pid %-7d", getpid());
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("no '%s' in %.600s", want, self->out);
	/* Health on the v3 and v4 devices, not on the v2 one. */
	EXPECT_EQ(2, count_of(self->out, "  health ")) TH_LOG("%.600s", self->out);
	ASSERT_EQ(0, set_unhealthy(self->index[1]));
	ASSERT_EQ(0, run_tool(self->tool, "--once", NULL, self->out));
	EXPECT_NE(NULL, strstr(self->out, "  health hbm,link_efa ")) TH_LOG("%.600s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "  health ok ")) TH_LOG("%.600s", self->out);
}

/* Bad options: status 2 and nothing on standard output. */
TEST_F_TIMEOUT(top, bad_options, 120)
{
	EXPECT_EQ(2, run_tool(self->tool, "-d", "0", self->out));
	EXPECT_STREQ("", self->out);
	EXPECT_EQ(2, run_tool(self->tool, "-n", "0", self->out));
	EXPECT_EQ(2, run_tool(self->tool, "--bogus", NULL, self->out));
	EXPECT_EQ(2, run_tool(self->tool, "extra", NULL, self->out));
	EXPECT_EQ(0, run_tool(self->tool, "--help", NULL, self->out));
	EXPECT_NE(NULL, strstr(self->out, "usage: neuron-top"));
	/* Not a terminal: one snapshot even without --once, and it ends. */
	ASSERT_EQ(0, run_tool(self->tool, "-n", "2", self->out));
	EXPECT_EQ(1, count_of(self->out, "neuron-top  ")) TH_LOG("%.400s", self->out);
}

TEST_HARNESS_MAIN
