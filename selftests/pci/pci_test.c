// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the Neuron PCI driver on real PCI functions, the two that
 * tools/vm/run gives the test VM and no driver of its kernels binds:
 *
 *   ivshmem-plain  1af4:1110  BAR0 256 bytes: too small for any generation
 *   secondary-vga  1234:1111  BAR0 128 MiB of RAM (all zero), BAR2 4 KiB
 *
 * A dynamic id with a Neuron device id as driver data binds a function
 * to that generation; driver_override offers it with none.  The tests
 * check probe, bring-up, the BAR claims in /proc/iomem, the device node,
 * unbind and PCI remove/rescan.  A test skips when QEMU lacks its
 * function.
 */
#include "kselftest_harness.h"
#include "neuron_pci.h"

#define IVSHMEM_VENDOR	0x1af4
#define IVSHMEM_DEVICE	0x1110
#define VGA_VENDOR	0x1234
#define VGA_DEVICE	0x1111
#define TRN2		0x7364		/* Neuron device id the functions are bound as */

/*
 * Against RAM the reset handshake never completes: bound its wait (v3's
 * own limit is 480 s) so that bring-up ends in seconds.
 */
#define LOAD_CORE	"modprobe neuron_core reset_timeout_ms=2000"
#define BIND_MS		60000
#define SETTLE_MS	60000
#define GONE_MS		5000

FIXTURE(pci) {
	char ivshmem[32];	/* its PCI name, "" when QEMU has none */
	char vga[32];
	char buf[128];
};

/* Unbind, drop the dynamic ids, clear driver_override, unload; 0 if clean. */
static int pci_clean(void)
{
	int i;

	if (nt_exists(NEURON_DRV)) {
		np_release_all();
		for (i = 0; i < 8 && !np_remove_id(IVSHMEM_VENDOR, IVSHMEM_DEVICE); i++)
			;
		for (i = 0; i < 8 && !np_remove_id(VGA_VENDOR, VGA_DEVICE); i++)
			;
	}
	return nt_unload_all();
}

/* Find both functions; 1 if both are there. */
static int pci_find(char *ivshmem, char *vga, size_t len)
{
	int n = 0;

	ivshmem[0] = 0;
	vga[0] = 0;
	n += np_find(IVSHMEM_VENDOR, IVSHMEM_DEVICE, ivshmem, len);
	n += np_find(VGA_VENDOR, VGA_DEVICE, vga, len);
	return n == 2;
}

FIXTURE_SETUP(pci)
{
	ASSERT_EQ(0, pci_clean());
	/* A function that an interrupted test removed comes back with a rescan. */
	if (!pci_find(self->ivshmem, self->vga, sizeof(self->vga))) {
		nt_write("/sys/bus/pci/rescan", "1");
		pci_find(self->ivshmem, self->vga, sizeof(self->vga));
	}
}

FIXTURE_TEARDOWN(pci)
{
	EXPECT_EQ(0, pci_clean());
	/* A function a failed test removed and did not get back. */
	if ((self->ivshmem[0] && !nt_exists(PCI_DEVICES "/%s", self->ivshmem)) ||
	    (self->vga[0] && !nt_exists(PCI_DEVICES "/%s", self->vga)))
		nt_write("/sys/bus/pci/rescan", "1");
}

/* Load the core, which registers the PCI driver. */
static void load_core(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, nt_sh(LOAD_CORE));
	ASSERT_TRUE(nt_exists(NEURON_DRV));
}

/* @bdf has no driver at all. */
static void expect_unbound(struct __test_metadata *_metadata, const char *bdf)
{
	char buf[64];

	EXPECT_STREQ("", np_driver(bdf, buf, sizeof(buf)));
	EXPECT_FALSE(nt_exists(PCI_DEVICES "/%s/neuron_state", bdf));
}

/*
 * Bring-up of @bdf, bound as a Trn2, got as far as the reset: ready or
 * failed, BAR0 claimed, /dev/neuron0 (routing id 0) describing it.
 */
static void expect_brought_up(struct __test_metadata *_metadata, const char *bdf)
{
	char state[64], buf[128];
	long start = nt_now_ms();

	np_settle(bdf, state, sizeof(state), SETTLE_MS);
	ASSERT_TRUE(!strcmp(state, "ready") || !strcmp(state, "failed")) {
		TH_LOG("%s still %s after %d ms", bdf, state, SETTLE_MS);
	}
	EXPECT_TRUE(np_iomem_claims_bar(bdf, 0, "neuron")) {
		TH_LOG("BAR0 of %s is not claimed as \"neuron\" in /proc/iomem", bdf);
	}
	ASSERT_TRUE(nt_exists("/dev/neuron0")) {
		TH_LOG("%s is %s after %ld ms, without /dev/neuron0", bdf, state,
		       nt_now_ms() - start);
	}
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron0/info/pci_device"));
	EXPECT_STREQ("0x7364", buf);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron0/info/bus_device"));
	EXPECT_STREQ(bdf, buf);
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron0/state"));
	EXPECT_STREQ(np_state(bdf, state, sizeof(state)), buf);
}

/* Let go of @bdf: node, class device, state attribute and claims go with it. */
static void unbind_and_expect_released(struct __test_metadata *_metadata, const char *bdf)
{
	char buf[64];

	ASSERT_EQ(0, np_unbind(bdf));
	EXPECT_FALSE(np_bound(bdf));
	EXPECT_STREQ("(none)", np_state(bdf, buf, sizeof(buf)));
	EXPECT_TRUE(np_wait_path("/dev/neuron0", 0, GONE_MS));
	EXPECT_FALSE(nt_exists(CLASS_DIR "/neuron0"));
	EXPECT_EQ(0, np_iomem_count("neuron"));
}

/*
 * driver_override on @bdf: the driver is offered the function without a
 * Neuron id, refuses it with one line, and does not bind.
 */
static void refuse_without_id(struct __test_metadata *_metadata, const char *bdf)
{
	const char *name = np_log_name(bdf);
	char mark[64], buf[64];
	int ret;

	expect_unbound(_metadata, bdf);
	ASSERT_EQ(0, np_klog_mark(mark, sizeof(mark)));
	ASSERT_EQ(0, np_attr_write(bdf, "driver_override", "neuron-driver"));
	ret = nt_write("/sys/bus/pci/drivers_probe", "%s", bdf);
	TH_LOG("%s: drivers_probe returned %d", bdf, ret);
	EXPECT_EQ(1, np_klog_wait(mark, "not a Neuron function", NULL, GONE_MS));
	EXPECT_EQ(1, np_klog_count(mark, "not a Neuron function", name)) {
		TH_LOG("no \"not a Neuron function\" line names %s", name);
	}
	expect_unbound(_metadata, bdf);
	EXPECT_EQ(0, np_iomem_count("neuron"));
	EXPECT_EQ(0, np_dev_nodes());

	ASSERT_EQ(0, np_attr_write(bdf, "driver_override", "\n"));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), PCI_DEVICES "/%s/driver_override", bdf));
	EXPECT_STREQ("(null)", buf);
	/* Without the override the driver is not even offered the function. */
	nt_write("/sys/bus/pci/drivers_probe", "%s", bdf);
	expect_unbound(_metadata, bdf);
	EXPECT_EQ(1, np_klog_count(mark, "not a Neuron function", NULL));
}

TEST_F_TIMEOUT(pci, refuse_foreign_function_without_id, 300)
{
	if (!self->ivshmem[0] && !self->vga[0])
		SKIP(return, "QEMU has neither ivshmem-plain nor secondary-vga");
	load_core(_metadata);
	if (self->ivshmem[0])
		refuse_without_id(_metadata, self->ivshmem);
	if (self->vga[0])
		refuse_without_id(_metadata, self->vga);
}

TEST_F_TIMEOUT(pci, bars_too_small_refused, 300)
{
	const char *bdf = self->ivshmem, *name = np_log_name(bdf);
	char mark[64];

	if (!bdf[0])
		SKIP(return, "QEMU has no ivshmem-plain function (1af4:1110)");
	load_core(_metadata);
	expect_unbound(_metadata, bdf);

	/* Driver data that is no Neuron device id is refused. */
	EXPECT_EQ(-EINVAL, np_new_id(IVSHMEM_VENDOR, IVSHMEM_DEVICE, 0x1234));
	EXPECT_EQ(-ENODEV, np_remove_id(IVSHMEM_VENDOR, IVSHMEM_DEVICE));
	expect_unbound(_metadata, bdf);

	ASSERT_EQ(0, np_klog_mark(mark, sizeof(mark)));
	ASSERT_EQ(0, np_new_id(IVSHMEM_VENDOR, IVSHMEM_DEVICE, TRN2));
	ASSERT_TRUE(np_wait_bound(IVSHMEM_VENDOR, IVSHMEM_DEVICE, self->buf, sizeof(self->buf),
				  BIND_MS));
	ASSERT_STREQ(bdf, self->buf);
	ASSERT_STREQ("failed", np_settle(bdf, self->buf, sizeof(self->buf), SETTLE_MS));
	/* Refused at once: nothing stays claimed, no node. */
	EXPECT_EQ(0, np_iomem_count("neuron"));
	EXPECT_EQ(0, np_dev_nodes());
	EXPECT_EQ(1, np_klog_wait(mark, "too small", NULL, GONE_MS));
	EXPECT_EQ(1, np_klog_count(mark, "too small", name)) {
		TH_LOG("no \"too small\" line names %s", name);
	}

	/* And for good: still bound and failed, and no retry logged more. */
	usleep(2000000);
	EXPECT_TRUE(np_bound(bdf));
	EXPECT_STREQ("failed", np_state(bdf, self->buf, sizeof(self->buf)));
	EXPECT_EQ(0, np_iomem_count("neuron"));
	EXPECT_EQ(0, np_dev_nodes());

	unbind_and_expect_released(_metadata, bdf);
	EXPECT_EQ(0, np_remove_id(IVSHMEM_VENDOR, IVSHMEM_DEVICE));
	EXPECT_EQ(-ENODEV, np_remove_id(IVSHMEM_VENDOR, IVSHMEM_DEVICE));
	EXPECT_EQ(0, np_dev_nodes());
	EXPECT_EQ(1, np_klog_count(mark, "too small", NULL));
}

TEST_F_TIMEOUT(pci, probe_maps_and_releases_bars, 300)
{
	const char *bdf = self->vga;

	if (!bdf[0])
		SKIP(return, "QEMU has no secondary-vga function (1234:1111)");
	load_core(_metadata);
	expect_unbound(_metadata, bdf);
	EXPECT_EQ(0, np_iomem_count("neuron"));

	ASSERT_EQ(0, np_new_id(VGA_VENDOR, VGA_DEVICE, TRN2));
	ASSERT_TRUE(np_wait_bound(VGA_VENDOR, VGA_DEVICE, self->buf, sizeof(self->buf),
				  BIND_MS));
	ASSERT_STREQ(bdf, self->buf);
	expect_brought_up(_metadata, bdf);
	/* The core loaded the generation's DHAL on demand. */
	EXPECT_TRUE(nt_exists("/sys/module/neuron_dhal_v3"));
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf), CLASS_DIR "/neuron0/info/dhal"));
	EXPECT_STREQ("neuron_dhal_v3", self->buf);
	/* Trn2 ORs bit 46 into host addresses: the DMA API stays below it. */
	ASSERT_EQ(0, nt_read(self->buf, sizeof(self->buf),
			     "/sys/bus/pci/devices/%s/dma_mask_bits", bdf));
	EXPECT_STREQ("46", self->buf);

	unbind_and_expect_released(_metadata, bdf);
	EXPECT_EQ(0, np_remove_id(VGA_VENDOR, VGA_DEVICE));
	expect_unbound(_metadata, bdf);
}

/*
 * PCI remove and rescan, NEURON_PCI_ROUNDS times (make check: 5; make
 * stress: 20), each bound and brought up again.
 */
TEST_F_TIMEOUT(pci, remove_rescan_repeatedly, 600)
{
	int rounds = nt_env_num("NEURON_PCI_ROUNDS", 5);
	char bdf[32];
	int round;

	if (!self->vga[0])
		SKIP(return, "QEMU has no secondary-vga function (1234:1111)");
	snprintf(bdf, sizeof(bdf), "%s", self->vga);
	load_core(_metadata);
	expect_unbound(_metadata, bdf);
	ASSERT_EQ(0, np_new_id(VGA_VENDOR, VGA_DEVICE, TRN2));

	/* Round 0 is the first bind; each of the others removes and rescans. */
	ksft_print_msg("NEURON_PCI_ROUNDS=%d\n", rounds);
	for (round = 0; round <= rounds; round++) {
		long start = nt_now_ms();

		if (round) {
			ASSERT_EQ(0, np_attr_write(bdf, "remove", "1"));
			ASSERT_FALSE(nt_exists(PCI_DEVICES "/%s", bdf)) {
				TH_LOG("round %d: %s still there after remove", round, bdf);
			}
			ASSERT_TRUE(np_wait_path("/dev/neuron0", 0, GONE_MS)) {
				TH_LOG("round %d: /dev/neuron0 outlived %s", round, bdf);
			}
			ASSERT_EQ(0, np_iomem_count("neuron")) {
				TH_LOG("round %d: claims outlived %s", round, bdf);
			}
			ASSERT_EQ(0, nt_write("/sys/bus/pci/rescan", "1"));
		}
		ASSERT_TRUE(np_wait_bound(VGA_VENDOR, VGA_DEVICE, bdf, sizeof(bdf), BIND_MS)) {
			TH_LOG("round %d: the function was not bound again", round);
		}
		expect_brought_up(_metadata, bdf);
		if (_metadata->exit_code) {
			TH_LOG("round %d failed", round);
			return;
		}
		TH_LOG("round %d: %s %s in %ld ms", round, bdf,
		       np_state(bdf, self->buf, sizeof(self->buf)), nt_now_ms() - start);
	}

	unbind_and_expect_released(_metadata, bdf);
	EXPECT_EQ(0, np_remove_id(VGA_VENDOR, VGA_DEVICE));
	EXPECT_EQ(-ENODEV, np_remove_id(VGA_VENDOR, VGA_DEVICE));
	expect_unbound(_metadata, bdf);
	EXPECT_EQ(0, np_iomem_count("neuron"));
}

TEST_HARNESS_MAIN
