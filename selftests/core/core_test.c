// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: what neuron_core does at load, before any device exists, seen
 * from user space: the char-device region and the class, no nodes, module
 * parameters checked, and a clean unload and reload.
 *
 * Runs as root in the test VM; loads and unloads neuron_core with modprobe
 * and leaves no Neuron module loaded.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "neuron_test.h"

#define MODULE_DIR	"/sys/module/neuron_core"

static int sh(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

static int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Major number of "neuron" in /proc/devices, or -1. */
static int neuron_major(void)
{
	char line[128], name[64];
	int major = -1, m;
	FILE *f = fopen("/proc/devices", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Block", 5) == 0)
			break;
		if (sscanf(line, "%d %63s", &m, name) == 2 && !strcmp(name, "neuron"))
			major = m;
	}
	fclose(f);
	return major;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Entries of @path named like a device node ("neuron<N>"). */
static int count_device_entries(const char *path)
{
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir(path);

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "neuron", 6) && isdigit((unsigned char)d->d_name[6]))
			n++;
	closedir(dir);
	return n;
}

FIXTURE(core) {
	int unused;
};

FIXTURE_SETUP(core)
{
	/* Only the core, with default parameters. */
	ASSERT_EQ(0, nt_unload_all());
	ASSERT_EQ(0, sh("modprobe neuron_core"));
}

FIXTURE_TEARDOWN(core)
{
	nt_unload_all();
}

/*
 * What loading the core alone gives (one case: each case loads the core
 * afresh, which costs seconds in the debug VM): its class, with the class's
 * own attributes and no device entry, a character-device region, no
 * /dev/neuron* node, and the version.
 */
TEST_F_TIMEOUT(core, loaded_alone, 300)
{
	struct stat st;
	char buf[64];
	glob_t g;

	ASSERT_EQ(0, stat(CLASS_DIR, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_GT(neuron_major(), 0);

	EXPECT_EQ(GLOB_NOMATCH, glob("/dev/neuron*", 0, NULL, &g));
	globfree(&g);
	EXPECT_EQ(0, count_device_entries(CLASS_DIR));
	/* The class's own attributes (pods) are there without devices. */
	EXPECT_TRUE(path_exists(CLASS_DIR "/ultraserver_mode"));

	ASSERT_EQ(0, read_line(MODULE_DIR "/version", buf, sizeof(buf)));
	EXPECT_STREQ("2.27.4.0", buf);
}

TEST_F_TIMEOUT(core, bad_parameter_rejected, 300)
{
	char buf[16];

	ASSERT_EQ(0, sh("modprobe -r neuron"));
	/* A value that is not a boolean refuses the load and leaves nothing behind. */
	EXPECT_NE(0, sh("modprobe neuron_core wc_enable=banana 2>/dev/null"));
	EXPECT_FALSE(path_exists(MODULE_DIR));
	EXPECT_FALSE(path_exists(CLASS_DIR));
	EXPECT_EQ(-1, neuron_major());

	/* A good value is taken and reads back. */
	ASSERT_EQ(0, sh("modprobe neuron_core wc_enable=0"));
	ASSERT_EQ(0, read_line(MODULE_DIR "/parameters/wc_enable", buf, sizeof(buf)));
	EXPECT_STREQ("N", buf);
	ASSERT_EQ(0, sh("modprobe -r neuron"));
	ASSERT_EQ(0, sh("modprobe neuron_core"));
	ASSERT_EQ(0, read_line(MODULE_DIR "/parameters/wc_enable", buf, sizeof(buf)));
	EXPECT_STREQ("Y", buf);
}

TEST_F_TIMEOUT(core, unload_removes_everything, 300)
{
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, sh("modprobe -r neuron"));
		EXPECT_FALSE(path_exists(MODULE_DIR));
		EXPECT_FALSE(path_exists(CLASS_DIR));
		EXPECT_EQ(-1, neuron_major());

		ASSERT_EQ(0, sh("modprobe neuron_core"));
		EXPECT_TRUE(path_exists(CLASS_DIR));
		EXPECT_GT(neuron_major(), 0);
	}
}

TEST_HARNESS_MAIN
