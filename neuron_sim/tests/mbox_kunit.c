// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the simulated firmware's new mailbox protocol (mbox.c), driven
 * through the register callbacks as the driver drives it: requests with a
 * good and a bad CRC, each command, a command of the legacy protocol, and
 * the fault switches.  Devices are built by hand, with no core device.
 */

#include <kunit/test.h>
#include <linux/string.h>

#include <neuron/fw.h>

#include "nsim_kunit.h"

static u32 rd(struct nsim_dev *sd, u32 moff)
{
	return sd->desc.reg_ops->read32(sd, NSIM_BAR_REGS, sd->gen->misc_base + moff);
}

static void wr(struct nsim_dev *sd, u32 moff, u32 val)
{
	sd->desc.reg_ops->write32(sd, NSIM_BAR_REGS, sd->gen->misc_base + moff, val);
}

/*
 * Send one new-protocol request of @len bytes of @payload (CRC spoiled
 * when @bad_crc); return the response header dword, or ~0 when the
 * doorbell was not answered.  @out gets 32 bytes of the data area.
 */
static u32 mbox_req(struct nsim_dev *sd, u8 seq, u8 cmd, const void *payload, u32 len,
		    bool bad_crc, u8 *out)
{
	struct neuron_fw_req_hdr h = { .seq = seq, .cmd = cmd, .size = cpu_to_le16(8 + len) };
	u32 words[NEURON_FW_MBOX_DATA_SIZE / 4] = { 0 };
	u32 crc, dw, i;

	crc = neuron_fw_crc(&h, payload, len);
	memcpy(words, payload, len);
	for (i = 0; i < DIV_ROUND_UP(len, 4); i++)
		wr(sd, NEURON_FW_MBOX_DATA + 4 * i, le32_to_cpu((__force __le32)words[i]));
	memcpy(&dw, &h, 4);
	wr(sd, NEURON_FW_MBOX_REQ_HI, le32_to_cpu((__force __le32)dw));
	wr(sd, NEURON_FW_MBOX_REQ_LO, crc ^ bad_crc);
	wr(sd, NEURON_FW_MBOX_ACK, 1);
	wr(sd, NEURON_FW_MBOX_DOORBELL, 1);
	if (rd(sd, NEURON_FW_MBOX_DOORBELL))
		return ~0U;
	for (i = 0; i < 8; i++) {
		dw = rd(sd, NEURON_FW_MBOX_DATA + 4 * i);
		memcpy(out + 4 * i, &dw, 4);
	}
	return rd(sd, NEURON_FW_MBOX_REQ_HI);
}

/* Response header dword: seq, error, size including the 4-byte header. */
#define RESP(seq, err, len)	((seq) | (err) << 8 | (u32)(4 + (len)) << 16)

static void sim_mbox_commands(struct kunit *test)
{
	struct nsim_dev *sd = nsim_kunit_regs_dev(test, &nsim_gens[NSIM_GEN_V3], 61);
	struct neuron_fw_perf_req set = { .profile = 2 };
	u8 get[1] = { NEURON_FW_DATA_PERF_PROFILE };
	u8 avail[3] = { NEURON_FW_DATA_AVAIL_PROFILES, NEURON_FW_PROFILES_HBM_7200, 0 };
	u8 feat = NEURON_FW_FEATURE_THROTTLING;
	u8 out[32];

	KUNIT_EXPECT_EQ(test, mbox_req(sd, 1, NEURON_FW_CMD_SET_POWER_PROFILE, &set, 8, false, out),
			RESP(1, 0, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.profile, 2);
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 2, NEURON_FW_CMD_GET_DATA, get, 1, false, out),
			RESP(2, 0, 8));
	KUNIT_EXPECT_EQ(test, out[4], 2);
	/* An unavailable profile is refused and changes nothing. */
	set.profile = 9;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 3, NEURON_FW_CMD_SET_POWER_PROFILE, &set, 8, false, out),
			RESP(3, 1, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.profile, 2);
	/* Available profiles of HBM_7200: the configured set. */
	sd->mbox.profiles_hbm = 0x105;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 4, NEURON_FW_CMD_GET_DATA, avail, 3, false, out),
			RESP(4, 0, 33));
	KUNIT_EXPECT_EQ(test, out[0], 3);
	KUNIT_EXPECT_EQ(test, out[1], 0x05);
	KUNIT_EXPECT_EQ(test, out[2], 0x01);
	KUNIT_EXPECT_EQ(test, out[3], 0);
	/* An unknown feature fails. */
	avail[1] = 6;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 5, NEURON_FW_CMD_GET_DATA, avail, 3, false, out),
			RESP(5, 1, 0));
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 6, NEURON_FW_CMD_SET_FEATURE, &feat, 1, false, out),
			RESP(6, 0, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.features, 1);
	/* The legacy protocol's commands and unknown ones: error 2. */
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 7, NEURON_FW_CMD_POST_TO_CW, &feat, 1, false, out),
			RESP(7, 2, 0));
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 8, 99, &feat, 1, false, out), RESP(8, 2, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.requests, 8);
}

static void sim_mbox_crc(struct kunit *test)
{
	struct nsim_dev *sd = nsim_kunit_regs_dev(test, &nsim_gens[NSIM_GEN_V2], 61);
	u8 feat = 1, out[32];

	KUNIT_EXPECT_EQ(test, mbox_req(sd, 1, NEURON_FW_CMD_SET_FEATURE, &feat, 1, true, out),
			RESP(1, 1, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.features, 0);
	KUNIT_EXPECT_EQ(test, sd->mbox.crc_errors, 1);
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 2, NEURON_FW_CMD_SET_FEATURE, &feat, 1, false, out),
			RESP(2, 0, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.features, 1);
}

static void sim_mbox_faults(struct kunit *test)
{
	struct nsim_dev *sd = nsim_kunit_regs_dev(test, &nsim_gens[NSIM_GEN_V3], 61);
	u8 feat = 1, out[32];

	sd->mbox.silent = true;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 1, NEURON_FW_CMD_SET_FEATURE, &feat, 1, false, out),
			~0U);
	KUNIT_EXPECT_EQ(test, sd->mbox.features, 0);
	sd->mbox.silent = false;
	sd->mbox.error = 5;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 2, NEURON_FW_CMD_SET_FEATURE, &feat, 1, false, out),
			RESP(2, 5, 0));
	sd->mbox.error = 0;
	sd->mbox.unknown = true;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 3, NEURON_FW_CMD_SET_FEATURE, &feat, 1, false, out),
			RESP(3, 2, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.features, 0);
	sd->mbox.unknown = false;
	KUNIT_EXPECT_EQ(test, mbox_req(sd, 4, NEURON_FW_CMD_SET_FEATURE, &feat, 1, false, out),
			RESP(4, 0, 0));
	KUNIT_EXPECT_EQ(test, sd->mbox.features, 1);
}

static struct kunit_case sim_mbox_cases[] = {
	KUNIT_CASE(sim_mbox_commands),
	KUNIT_CASE(sim_mbox_crc),
	KUNIT_CASE(sim_mbox_faults),
	{}
};

static struct kunit_suite sim_mbox_suite = {
	.name = "neuron_sim_mbox",
	.test_cases = sim_mbox_cases,
};

kunit_test_suite(sim_mbox_suite);
