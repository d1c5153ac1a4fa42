// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the device attributes the reference driver 2.28 shows under
 * /sys/class/neuron_device/neuronN/ (Documentation/ABI/testing/
 * sysfs-class-neuron_device), on simulated v2, v3 and v4 devices:
 *
 *  - fw_api_version and fw_build: 0444, "%u\n" of MiscRAM 0x00 and 0x74,
 *    read when the file is read; "busy\n" while the firmware has not
 *    filled the word in (0xdeadbeef), as during a reset; the simulator's
 *    debugfs api_version and fw_build set them;
 *  - core_count and connected_devices: 0444 (0400 before 2.28), in the
 *    reference's text (core_count without a newline).
 */
#include "kselftest_harness.h"
#include "neuron_test.h"
#include "neuron_mem.h"
#include "neuron_state.h"

#define SETTLE_MS	20000
#define DEV		8
/* The simulator's defaults (neuron_sim/sim.h). */
#define SIM_API		7
#define SIM_BUILD	20261207

FIXTURE(fw) {
	int index;
	char dev[96];
};

FIXTURE_VARIANT(fw) {
	const char *gen;
	const char *cores;
};

FIXTURE_VARIANT_ADD(fw, v2) {
	.gen = "v2", .cores = "2",
};

FIXTURE_VARIANT_ADD(fw, v3) {
	.gen = "v3", .cores = "8",
};

FIXTURE_VARIANT_ADD(fw, v4) {
	.gen = "v4", .cores = "8",
};

FIXTURE_SETUP(fw)
{
	self->index = sim_device_up(_metadata, DEV, variant->gen, "", SETTLE_MS);
	snprintf(self->dev, sizeof(self->dev), CLASS_DIR "/neuron%d", self->index);
}

FIXTURE_TEARDOWN(fw)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, "api_version");
	nt_write(path, "%u", SIM_API);
	snprintf(path, sizeof(path), SIM_DBG, DEV, "fw_build");
	nt_write(path, "%u", SIM_BUILD);
	sim_device_down(_metadata);
}

/* The whole file, at most @len - 1 bytes; its length or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static void expect_file(struct __test_metadata *_metadata, const char *dev, const char *name,
			mode_t mode, const char *text)
{
	char path[160], buf[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
	EXPECT_EQ(S_IFREG | mode, st.st_mode) TH_LOG("%s: %o", path, st.st_mode);
	if (text) {
		EXPECT_LT(0, slurp(path, buf, sizeof(buf))) TH_LOG("%s", path);
		EXPECT_STREQ(text, buf) TH_LOG("%s", path);
	}
	/* Read only, for root too. */
	fd = open(path, O_WRONLY);
	EXPECT_EQ(-1, fd) TH_LOG("%s", path);
	EXPECT_EQ(EACCES, errno) TH_LOG("%s", path);
	if (fd >= 0)
		close(fd);
}

static int sim_set(const char *name, unsigned int v)
{
	char path[160];

	snprintf(path, sizeof(path), SIM_DBG, DEV, name);
	return nt_write(path, "%u", v);
}

/* What the firmware reports, read live; "busy" while a word is not filled in. */
TEST_F_TIMEOUT(fw, firmware_words, 120)
{
	char want[32];

	snprintf(want, sizeof(want), "%u\n", SIM_API);
	expect_file(_metadata, self->dev, "fw_api_version", 0444, want);
	snprintf(want, sizeof(want), "%u\n", SIM_BUILD);
	expect_file(_metadata, self->dev, "fw_build", 0444, want);

	ASSERT_EQ(0, sim_set("fw_build", 4000000000U));
	expect_file(_metadata, self->dev, "fw_build", 0444, "4000000000\n");
	ASSERT_EQ(0, sim_set("fw_build", 0));
	expect_file(_metadata, self->dev, "fw_build", 0444, "0\n");
	ASSERT_EQ(0, sim_set("fw_build", 0xdeadbeef));
	expect_file(_metadata, self->dev, "fw_build", 0444, "busy\n");
	/* The other word is its own. */
	snprintf(want, sizeof(want), "%u\n", SIM_API);
	expect_file(_metadata, self->dev, "fw_api_version", 0444, want);

	ASSERT_EQ(0, sim_set("api_version", 6));
	expect_file(_metadata, self->dev, "fw_api_version", 0444, "6\n");
	ASSERT_EQ(0, sim_set("api_version", 0xdeadbeef));
	expect_file(_metadata, self->dev, "fw_api_version", 0444, "busy\n");
}

/* core_count and connected_devices: world-readable from 2.28 on. */
TEST_F_TIMEOUT(fw, modes, 120)
{
	char want[8];

	/* The reference's text: no newline. */
	snprintf(want, sizeof(want), "%s", variant->cores);
	expect_file(_metadata, self->dev, "core_count", 0444, want);
	/* One device: no links, an empty line. */
	expect_file(_metadata, self->dev, "connected_devices", 0444, "\n");
	/* reset stays anyone's to read, root's to write (mode 0644, documented). */
	{
		char path[160];
		struct stat st;

		snprintf(path, sizeof(path), "%s/reset", self->dev);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(S_IFREG | 0644, st.st_mode);
	}
}

TEST_HARNESS_MAIN
