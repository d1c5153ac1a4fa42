/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The firmware mailboxes of a Neuron device
 * (neuron_core/device/fw_mbox.c), as other modules use them, and their
 * wire formats (shared with the simulator and the KUnit tests).
 *
 * Two protocols share MiscRAM's doorbell (0x800):
 *
 * - legacy: the request {header, payload} and the response {header, data}
 *   live in host buffers the device reads and writes by DMA; their device
 *   addresses go to MiscRAM 0x1f0/0x1f4 (request, high/low) and 0x1f8/0x1fc
 *   (response, high/low).  The host polls the response's sequence number.
 * - new (firmware API 7 and later): the payload goes to MiscRAM 0x100 (128
 *   bytes at most), the request header to 0x1f0 (dword 0) and 0x1f4 (CRC);
 *   the host writes 1 to 0xf0 (which marks the new protocol), then rings;
 *   the firmware clears the doorbell once it put the response header in
 *   0x1f0 and the data in 0x100.
 *
 * Every request header carries a CRC32C (Castagnoli, initial value ~0,
 * final xor ~0) of the header with a zero CRC field, then of the payload.
 */
#ifndef _NEURON_FW_H
#define _NEURON_FW_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/sizes.h>
#include <linux/types.h>

struct neuron_device;

/* MiscRAM registers of the mailboxes. */
#define NEURON_FW_MBOX_API_VERSION	0x000
#define NEURON_FW_MBOX_ACK		0x0f0
#define NEURON_FW_MBOX_DATA		0x100
#define NEURON_FW_MBOX_REQ_HI		0x1f0
#define NEURON_FW_MBOX_REQ_LO		0x1f4
#define NEURON_FW_MBOX_RESP_HI		0x1f8
#define NEURON_FW_MBOX_RESP_LO		0x1fc
#define NEURON_FW_MBOX_DOORBELL		0x800

/* Bytes of the MiscRAM data area of the new protocol (and of a posted metric). */
#define NEURON_FW_MBOX_DATA_SIZE	128
/* Bytes of each host buffer of the legacy protocol. */
#define NEURON_FW_MBOX_BUF_SIZE		SZ_64K
/* Lowest firmware API version with the new protocol. */
#define NEURON_FW_MBOX_NEW_API		7

/* Commands. */
#define NEURON_FW_CMD_READ		1
#define NEURON_FW_CMD_POST_TO_CW	2
#define NEURON_FW_CMD_SET_POWER_PROFILE	3
#define NEURON_FW_CMD_GET_DATA		4
#define NEURON_FW_CMD_SET_FEATURE	5

/* Response error codes. */
#define NEURON_FW_ERR_NONE		0
#define NEURON_FW_ERR_FAIL		1
#define NEURON_FW_ERR_UNKNOWN_CMD	2

/* GET_DATA types. */
#define NEURON_FW_DATA_PERF_PROFILE	1
#define NEURON_FW_DATA_AVAIL_PROFILES	2

/* Features of AVAILABLE_PERF_PROFILES (GET_DATA type 2) the firmware knows. */
#define NEURON_FW_PROFILES_ALL		0
#define NEURON_FW_PROFILES_HBM_7200	5

/* SET_FEATURE bits. */
#define NEURON_FW_FEATURE_THROTTLING	BIT(0)

/* Bytes of the profile bitmap GET_DATA type 2 answers. */
#define NEURON_FW_PROFILE_BITMAP	32

/**
 * struct neuron_fw_req_hdr - header of a request, both protocols
 * @seq: sequence number, never 0
 * @cmd: NEURON_FW_CMD_*
 * @size: bytes of the request, this header included
 * @crc: CRC32C of this header with @crc 0, then of the payload
 */
struct neuron_fw_req_hdr {
	u8 seq;
	u8 cmd;
	__le16 size;
	__le32 crc;
} __packed;

/**
 * struct neuron_fw_resp_hdr - header of a response, both protocols
 * @seq: the request's sequence number
 * @error: NEURON_FW_ERR_*
 * @size: bytes of the response, this header included
 */
struct neuron_fw_resp_hdr {
	u8 seq;
	u8 error;
	__le16 size;
} __packed;

/**
 * struct neuron_fw_perf_req - SET_POWER_PROFILE payload
 * @reserved: 0
 * @profile: the profile
 * @voltage_margin: 0
 * @frequency_index: 0
 * @ocw_index: 0
 */
struct neuron_fw_perf_req {
	__le32 reserved;
	u8 profile;
	u8 voltage_margin;
	u8 frequency_index;
	u8 ocw_index;
} __packed;

/**
 * struct neuron_fw_perf_resp - GET_DATA type 1 answer
 * @reserved: ignored
 * @profile: the current profile
 * @voltage_margin: ignored
 * @frequency: ignored
 * @ocw: ignored
 */
struct neuron_fw_perf_resp {
	u8 reserved[4];
	u8 profile;
	u8 voltage_margin;
	u8 frequency;
	u8 ocw;
} __packed;

/**
 * struct neuron_fw_avail_req - GET_DATA type 2 payload
 * @type: NEURON_FW_DATA_AVAIL_PROFILES
 * @operation: the feature
 */
struct neuron_fw_avail_req {
	u8 type;
	__le16 operation;
} __packed;

/**
 * struct neuron_fw_avail_resp - GET_DATA type 2 answer
 * @num_profiles: profiles available
 * @bitmap: bit n of byte n / 8 (bit n % 8): profile n is available
 */
struct neuron_fw_avail_resp {
	u8 num_profiles;
	u8 bitmap[NEURON_FW_PROFILE_BITMAP];
} __packed;

/* Most addresses one READ carries: what the 16-bit size of a request allows. */
#define NEURON_FW_READ_MAX \
	((U16_MAX - sizeof(struct neuron_fw_req_hdr)) / sizeof(u64))

u32 neuron_fw_crc(const struct neuron_fw_req_hdr *hdr, const void *payload, size_t len);
int neuron_fw_read_counters(struct neuron_device *nd, const u64 *addrs, u32 *vals, u32 count);
int neuron_fw_post_metric(struct neuron_device *nd, const void *data, u32 size);
int neuron_fw_set_power_profile(struct neuron_device *nd, u8 profile);
int neuron_fw_get_perf_profile(struct neuron_device *nd, u8 *profile);
int neuron_fw_get_available_profiles(struct neuron_device *nd, u16 feature, u8 *num,
				     u8 bitmap[NEURON_FW_PROFILE_BITMAP]);
int neuron_fw_set_features(struct neuron_device *nd, u8 features);
bool neuron_fw_has_perf_profiles(struct neuron_device *nd);
u32 neuron_fw_misc_read(struct neuron_device *nd, u32 reg);

#endif /* _NEURON_FW_H */
