// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the firmware mailboxes' wire formats (fw_mbox.c,
 * include/neuron/fw.h): the CRC32C against a bitwise reference and the
 * standard check value, the request header a request is sent with, the
 * meaning of each kind of answer (the retry state machine's input), the
 * payload layouts, and the per-generation data the commands rely on.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include <neuron/compat.h>
#include <neuron/dhal.h>
#include <neuron/fw.h>

#include "../base/core.h"
#include "../cores/cores.h"
#include "../memory/mem.h"
#include "../device/device.h"

/* CRC32C bit by bit (reflected polynomial 0x82f63b78), no final xor. */
static u32 crc_ref(u32 crc, const u8 *p, size_t len)
{
	int b;

	while (len--) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
	}
	return crc;
}

static void fw_crc_reference(struct kunit *test)
{
	static const char check[] = "123456789";
	struct neuron_fw_req_hdr hdr = { .seq = 7, .cmd = 3, .size = cpu_to_le16(16),
					 .crc = cpu_to_le32(0xffffffff) };
	struct neuron_fw_req_hdr zero = hdr;
	u8 payload[8] = { 0, 0, 0, 0, 2, 0, 0, 0 };
	u32 want;

	/* The standard CRC32C check value. */
	KUNIT_EXPECT_EQ(test, ~crc_ref(~0U, check, 9), 0xe3069283U);
	/* Header with a zero CRC field, then the payload. */
	zero.crc = 0;
	want = ~crc_ref(crc_ref(~0U, (const u8 *)&zero, sizeof(zero)), payload, sizeof(payload));
	KUNIT_EXPECT_EQ(test, neuron_fw_crc(&hdr, payload, sizeof(payload)), want);
	/* The CRC field does not count. */
	hdr.crc = 0;
	KUNIT_EXPECT_EQ(test, neuron_fw_crc(&hdr, payload, sizeof(payload)), want);
	/* Every payload byte does. */
	payload[4] = 3;
	KUNIT_EXPECT_NE(test, neuron_fw_crc(&hdr, payload, sizeof(payload)), want);
	/* No payload. */
	want = ~crc_ref(~0U, (const u8 *)&zero, sizeof(zero));
	KUNIT_EXPECT_EQ(test, neuron_fw_crc(&hdr, NULL, 0), want);
}

static void fw_build_req(struct kunit *test)
{
	struct neuron_fw_req_hdr hdr;
	u8 raw[sizeof(hdr)];
	u8 payload[3] = { 2, 5, 0 };

	KUNIT_ASSERT_EQ(test, 0, neuron_fw_build_req(&hdr, 0x42, NEURON_FW_CMD_GET_DATA,
						     payload, sizeof(payload)));
	memcpy(raw, &hdr, sizeof(raw));
	/* Byte for byte: seq, cmd, size (LE, header included), CRC (LE). */
	KUNIT_EXPECT_EQ(test, raw[0], 0x42);
	KUNIT_EXPECT_EQ(test, raw[1], 4);
	KUNIT_EXPECT_EQ(test, raw[2], 11);
	KUNIT_EXPECT_EQ(test, raw[3], 0);
	KUNIT_EXPECT_EQ(test, raw[4] | raw[5] << 8 | raw[6] << 16 | (u32)raw[7] << 24,
			neuron_fw_crc(&hdr, payload, sizeof(payload)));
	/* Too big for the 16-bit size field: refused, not truncated. */
	KUNIT_EXPECT_EQ(test, -E2BIG, neuron_fw_build_req(&hdr, 1, 1, NULL, U16_MAX - 7));
	KUNIT_EXPECT_EQ(test, 0, neuron_fw_build_req(&hdr, 1, 1, NULL, 0));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(hdr.size), 8);
}

static void fw_check_resp(struct kunit *test)
{
	struct neuron_fw_resp_hdr r = { .seq = 9, .error = 0, .size = cpu_to_le16(4 + 8) };
	size_t got = 12345;

	/* Answered: the data's length, capped by what the caller takes. */
	KUNIT_EXPECT_EQ(test, 0, neuron_fw_check_resp(&r, 9, 100, &got));
	KUNIT_EXPECT_EQ(test, got, 8);
	KUNIT_EXPECT_EQ(test, 0, neuron_fw_check_resp(&r, 9, 3, &got));
	KUNIT_EXPECT_EQ(test, got, 3);
	/* A size below the header's: no data. */
	r.size = cpu_to_le16(2);
	KUNIT_EXPECT_EQ(test, 0, neuron_fw_check_resp(&r, 9, 100, &got));
	KUNIT_EXPECT_EQ(test, got, 0);
	/* Another request's answer: retry; nothing reported. */
	got = 12345;
	KUNIT_EXPECT_EQ(test, -EAGAIN, neuron_fw_check_resp(&r, 10, 100, &got));
	KUNIT_EXPECT_EQ(test, got, 12345);
	/* A failure: retry.  An unknown command: stop. */
	r.error = NEURON_FW_ERR_FAIL;
	KUNIT_EXPECT_EQ(test, -EAGAIN, neuron_fw_check_resp(&r, 9, 100, &got));
	r.error = 77;
	KUNIT_EXPECT_EQ(test, -EAGAIN, neuron_fw_check_resp(&r, 9, 100, &got));
	r.error = NEURON_FW_ERR_UNKNOWN_CMD;
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, neuron_fw_check_resp(&r, 9, 100, &got));
}

static void fw_layouts(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct neuron_fw_req_hdr), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct neuron_fw_resp_hdr), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct neuron_fw_perf_req), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct neuron_fw_perf_req, profile), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct neuron_fw_perf_resp), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct neuron_fw_perf_resp, profile), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct neuron_fw_avail_req), 3);
	KUNIT_EXPECT_EQ(test, offsetof(struct neuron_fw_avail_req, operation), 1);
	KUNIT_EXPECT_EQ(test, sizeof(struct neuron_fw_avail_resp), 33);
	KUNIT_EXPECT_EQ(test, NEURON_FW_READ_MAX, 8190);
	KUNIT_EXPECT_LE(test, 4 + 4 * NEURON_FW_READ_MAX, NEURON_FW_MBOX_BUF_SIZE);
}

/*
 * Per generation: READ reaches something, never MiscRAM (the mailbox and
 * reset registers), and only profiles where the firmware has them.
 */
static void fw_check_dhal(struct kunit *test, const struct neuron_dhal *d, bool perf)
{
	const struct neuron_dhal_fw *fw = d->fw;
	u64 misc = d->layout->misc_ram_offset;
	int nc;

	KUNIT_EXPECT_EQ(test, fw->perf_profiles, perf);
	KUNIT_EXPECT_NE(test, fw->csr_dev_size, 0);
	KUNIT_EXPECT_EQ(test, fw->csr_dev_base & 3, 0);
	KUNIT_EXPECT_LT(test, misc, fw->csr_dev_size);
	KUNIT_EXPECT_EQ(test, -EPERM,
			neuron_reg_window_lookup(d->user, misc, NEURON_REG_READ, &nc));
	KUNIT_EXPECT_EQ(test, -EPERM,
			neuron_reg_window_lookup(d->user, misc + 0x800, NEURON_REG_READ, &nc));
}

static void fw_dhal_data(struct kunit *test)
{
	fw_check_dhal(test, &neuron_dhal_v2, false);
	fw_check_dhal(test, &neuron_dhal_v3, true);
	fw_check_dhal(test, &neuron_dhal_v4, true);
}

static struct kunit_case fw_mbox_cases[] = {
	KUNIT_CASE(fw_crc_reference),
	KUNIT_CASE(fw_build_req),
	KUNIT_CASE(fw_check_resp),
	KUNIT_CASE(fw_layouts),
	KUNIT_CASE(fw_dhal_data),
	{}
};

static struct kunit_suite fw_mbox_suite = {
	.name = "neuron_core_fw_mbox",
	.test_cases = fw_mbox_cases,
};

kunit_test_suite(fw_mbox_suite);
