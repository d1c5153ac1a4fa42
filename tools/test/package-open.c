// SPDX-License-Identifier: GPL-2.0
/*
 * What the Neuron runtime does first with a device, run by an ordinary user
 * in the packaging VM test (tools/test/package-guest): open DEVICE on both
 * lanes, a normal (attaching) file and a free-access (O_WRONLY) one, ask
 * the compatible runtime versions and the device's generation on each, and
 * on the normal one allocate and free a page of host memory.
 *
 *   package-open DEVICE
 *
 * Exit status: 0 when everything worked, 2 when DEVICE cannot be opened
 * for lack of permission (EACCES or EPERM), 1 on any other failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

static int failed;

static void step(int ok, const char *lane, const char *what)
{
	printf("%s %s: %s%s%s\n", ok ? "ok" : "FAIL", lane, what,
	       ok ? "" : ": ", ok ? "" : strerror(errno));
	if (!ok)
		failed = 1;
}

static void info(int fd, const char *lane)
{
	struct neuron_ioctl_compatible_version ver = { 0 };
	struct neuron_ioctl_device_basic_info basic = { 0 };

	step(ioctl(fd, NEURON_IOCTL_COMPATIBLE_VERSION, &ver) == 0 && ver.max >= ver.min,
	     lane, "COMPATIBLE_VERSION");
	step(ioctl(fd, NEURON_IOCTL_DEVICE_BASIC_INFO, &basic) == 0, lane,
	     "DEVICE_BASIC_INFO");
}

int main(int argc, char **argv)
{
	struct neuron_ioctl_mem_alloc_v2 alloc = { 0 };
	struct neuron_ioctl_mem_free mfree = { 0 };
	__u64 handle = 0;
	int fd, wfd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 1;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		printf("open %s: %s\n", argv[1], strerror(errno));
		return errno == EACCES || errno == EPERM ? 2 : 1;
	}
	info(fd, "normal");
	alloc.size = 4096;
	alloc.host_memory = 1;
	alloc.mem_handle = &handle;
	step(ioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &alloc) == 0 && handle, "normal",
	     "MEM_ALLOC_V2 (host, 4 KiB)");
	mfree.mem_handle = handle;
	step(ioctl(fd, NEURON_IOCTL_MEM_FREE, &mfree) == 0, "normal", "MEM_FREE");

	wfd = open(argv[1], O_WRONLY);
	step(wfd >= 0, "free-access", "open O_WRONLY");
	if (wfd >= 0) {
		info(wfd, "free-access");
		close(wfd);
	}
	close(fd);
	return failed;
}
