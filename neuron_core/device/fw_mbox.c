// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware mailboxes (include/neuron/fw.h): the legacy protocol (READ,
 * POST_TO_CW) through two host buffers the device reaches by DMA, and the
 * new one (SET_POWER_PROFILE, GET_DATA, SET_FEATURE) through MiscRAM.
 *
 * One request runs at a time per device (&neuron_fw_mbox.lock).  Each
 * attempt rings the doorbell and polls for the answer every millisecond
 * for the command's timeout; an attempt that times out, or is answered
 * with a stale sequence number or an error other than "unknown command",
 * is retried up to the command's count.  A request nobody answers ends in
 * -ETIMEDOUT, one the firmware keeps refusing in -EIO, an unknown command
 * in -EOPNOTSUPP.  The waits end early with -ERESTARTSYS on a signal and
 * -ENODEV when the device goes.
 */

#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>
#include <neuron/fw.h>

#include "device/device.h"

static unsigned int neuron_fw_mbox_timeout_ms;
module_param_named(fw_mbox_timeout_ms, neuron_fw_mbox_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fw_mbox_timeout_ms,
		 "Time one firmware mailbox attempt may take (ms); 0 (default): the command's own");

/**
 * struct neuron_fw_cmd_timing - how long a command may take
 * @retries: attempts
 * @timeout_ms: time each attempt may take
 */
struct neuron_fw_cmd_timing {
	u8 retries;
	u32 timeout_ms;
};

/* The same on every generation: the firmware's own figures. */
static const struct neuron_fw_cmd_timing neuron_fw_timing[] = {
	[NEURON_FW_CMD_READ]		  = { 15, 1000 },
	[NEURON_FW_CMD_POST_TO_CW]	  = { 15, 1000 },
	[NEURON_FW_CMD_SET_POWER_PROFILE] = { 3, 90000 },
	[NEURON_FW_CMD_GET_DATA]	  = { 3, 10000 },
	[NEURON_FW_CMD_SET_FEATURE]	  = { 3, 60000 },
};

/**
 * neuron_fw_crc() - CRC32C of a request
 * @hdr: its header; the CRC field is taken as 0
 * @payload: its payload
 * @len: bytes of @payload
 *
 * Return: the CRC32C (initial value ~0, final xor ~0) of @hdr with a zero
 * CRC field followed by @payload.
 */
u32 neuron_fw_crc(const struct neuron_fw_req_hdr *hdr, const void *payload, size_t len)
{
	struct neuron_fw_req_hdr h = *hdr;
	u32 crc;

	h.crc = 0;
	crc = neuron_crc32c(~0U, (const u8 *)&h, sizeof(h));
	if (len)
		crc = neuron_crc32c(crc, payload, len);
	return ~crc;
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_crc, NEURON_NS);

/* Write @len bytes of @words (little-endian) to MiscRAM's data area.  Lock held. */
static void neuron_fw_data_write(struct neuron_device *nd, const u32 *words, size_t len)
{
	unsigned int i;

	for (i = 0; i < DIV_ROUND_UP(len, 4); i++)
		neuron_misc_write(nd, NEURON_FW_MBOX_DATA + i * 4,
				  le32_to_cpu((__force __le32)words[i]));
}

/* Next sequence number (never 0).  Mailbox lock held. */
static u8 neuron_fw_next_seq(struct neuron_fw_mbox *mb)
{
	lockdep_assert_held(&mb->lock);
	if (!++mb->seq)
		mb->seq = 1;
	return mb->seq;
}

/*
 * Fill @hdr for @cmd with @len bytes of @payload and sequence number @seq.
 * Return: 0, or -E2BIG when the request does not fit its size field.
 */
VISIBLE_IF_KUNIT int neuron_fw_build_req(struct neuron_fw_req_hdr *hdr, u8 seq, u8 cmd,
					 const void *payload, size_t len)
{
	if (len > U16_MAX - sizeof(*hdr))
		return -E2BIG;
	hdr->seq = seq;
	hdr->cmd = cmd;
	hdr->size = cpu_to_le16(sizeof(*hdr) + len);
	hdr->crc = 0;
	hdr->crc = cpu_to_le32(neuron_fw_crc(hdr, payload, len));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_fw_build_req);

/*
 * What an answer means for request @seq: 0 (done, *@data_len bytes of data
 * follow the header, at most @max), -EAGAIN (stale or failed: retry),
 * -EOPNOTSUPP (the firmware does not know the command: stop).
 */
VISIBLE_IF_KUNIT int neuron_fw_check_resp(const struct neuron_fw_resp_hdr *resp, u8 seq,
					  size_t max, size_t *data_len)
{
	size_t size = le16_to_cpu(resp->size);

	if (resp->seq != seq)
		return -EAGAIN;
	if (resp->error == NEURON_FW_ERR_UNKNOWN_CMD)
		return -EOPNOTSUPP;
	if (resp->error != NEURON_FW_ERR_NONE)
		return -EAGAIN;
	size = size > sizeof(*resp) ? size - sizeof(*resp) : 0;
	*data_len = min(size, max);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_fw_check_resp);

/*
 * Wait about a millisecond.  Return: 0, -ERESTARTSYS on a signal, -ENODEV
 * when the device goes.
 */
static int neuron_fw_poll_sleep(struct neuron_device *nd)
{
	long r = wait_event_interruptible_timeout(nd->state_wq, READ_ONCE(nd->stopping),
						  msecs_to_jiffies(1));

	if (r < 0)
		return r;
	return r ? -ENODEV : 0;
}

static u32 neuron_fw_attempt_ms(u8 cmd)
{
	return READ_ONCE(neuron_fw_mbox_timeout_ms) ?: neuron_fw_timing[cmd].timeout_ms;
}

static int neuron_fw_lock(struct neuron_device *nd)
{
	if (!nd->dhal.dhal || !nd->mapped)
		return -ENODEV;
	return mutex_lock_interruptible(&nd->mbox.lock);
}

/* The legacy host buffers, allocated at the first legacy request.  Lock held. */
static int neuron_fw_legacy_buffers(struct neuron_device *nd)
{
	struct neuron_fw_mbox *mb = &nd->mbox;

	lockdep_assert_held(&mb->lock);
	if (mb->req)
		return 0;
	mb->req = dma_alloc_coherent(nd->bus.parent, NEURON_FW_MBOX_BUF_SIZE, &mb->req_dma,
				     GFP_KERNEL);
	if (!mb->req)
		return -ENOMEM;
	mb->resp = dma_alloc_coherent(nd->bus.parent, NEURON_FW_MBOX_BUF_SIZE, &mb->resp_dma,
				      GFP_KERNEL);
	if (!mb->resp) {
		dma_free_coherent(nd->bus.parent, NEURON_FW_MBOX_BUF_SIZE, mb->req, mb->req_dma);
		mb->req = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * One legacy request: @len bytes of @payload in, at most @out_len bytes of
 * data out (*@got: how many came).  Lock held, buffers allocated.
 */
static int neuron_fw_legacy_run(struct neuron_device *nd, u8 cmd, const void *payload,
				size_t len, void *out, size_t out_len, size_t *got)
{
	struct neuron_fw_mbox *mb = &nd->mbox;
	struct neuron_fw_resp_hdr *resp = mb->resp;
	/* Handlers run on a device that is not removed, so bound to its DHAL. */
	u64 host = nd->dhal.dhal->layout->pci_host_base;
	u64 req_addr = (u64)mb->req_dma | host, resp_addr = (u64)mb->resp_dma | host;
	unsigned int attempt;
	int ret = -ETIMEDOUT;

	for (attempt = 0; attempt < neuron_fw_timing[cmd].retries; attempt++) {
		unsigned long deadline = jiffies + msecs_to_jiffies(neuron_fw_attempt_ms(cmd));
		u8 seq = neuron_fw_next_seq(mb);

		ret = neuron_fw_build_req(mb->req, seq, cmd, payload, len);
		if (ret)
			return ret;
		memcpy(mb->req + sizeof(struct neuron_fw_req_hdr), payload, len);
		WRITE_ONCE(resp->seq, 0);
		/* The request is in memory before the device learns where. */
		wmb();
		neuron_misc_write(nd, NEURON_FW_MBOX_REQ_LO, lower_32_bits(req_addr));
		neuron_misc_write(nd, NEURON_FW_MBOX_REQ_HI, upper_32_bits(req_addr));
		neuron_misc_write(nd, NEURON_FW_MBOX_RESP_LO, lower_32_bits(resp_addr));
		neuron_misc_write(nd, NEURON_FW_MBOX_RESP_HI, upper_32_bits(resp_addr));
		neuron_misc_write(nd, NEURON_FW_MBOX_DOORBELL, 1);

		ret = -ETIMEDOUT;
		for (;;) {
			if (READ_ONCE(resp->seq) == seq) {
				/* The header was written before the sequence number was seen. */
				rmb();
				ret = neuron_fw_check_resp(resp, seq,
							   NEURON_FW_MBOX_BUF_SIZE - sizeof(*resp),
							   got);
				break;
			}
			if (time_after(jiffies, deadline))
				break;
			ret = neuron_fw_poll_sleep(nd);
			if (ret)
				return ret;
			ret = -ETIMEDOUT;
		}
		if (!ret) {
			*got = min(*got, out_len);
			if (*got)
				memcpy(out, (u8 *)mb->resp + sizeof(*resp), *got);
			return 0;
		}
		if (ret == -EOPNOTSUPP)
			return ret;
		mb->errors++;
	}
	return ret == -EAGAIN ? -EIO : ret;
}

/*
 * One new-protocol request, after the API-version gate: @len (at most 128)
 * bytes of @payload in, at most @out_len bytes of data out.
 */
static int neuron_fw_new_request(struct neuron_device *nd, u8 cmd, const void *payload,
				 size_t len, void *out, size_t out_len)
{
	struct neuron_fw_mbox *mb = &nd->mbox;
	u32 words[NEURON_FW_MBOX_DATA_SIZE / 4];
	unsigned int attempt, i;
	int ret;

	if (len > NEURON_FW_MBOX_DATA_SIZE || out_len > NEURON_FW_MBOX_DATA_SIZE)
		return -E2BIG;
	ret = neuron_fw_lock(nd);
	if (ret)
		return ret;
	/* Below API 7 (or unreadable) the firmware has no new mailbox: nothing is sent. */
	ret = -EOPNOTSUPP;
	i = neuron_misc_read(nd, NEURON_FW_MBOX_API_VERSION);
	if (i < NEURON_FW_MBOX_NEW_API || i == 0xdeadbeef)
		goto out;

	for (attempt = 0; attempt < neuron_fw_timing[cmd].retries; attempt++) {
		unsigned long deadline = jiffies + msecs_to_jiffies(neuron_fw_attempt_ms(cmd));
		struct neuron_fw_req_hdr hdr;
		struct neuron_fw_resp_hdr resp;
		u8 seq = neuron_fw_next_seq(mb);
		size_t got;
		u32 dw;

		ret = neuron_fw_build_req(&hdr, seq, cmd, payload, len);
		if (ret)
			goto out;
		memset(words, 0, sizeof(words));
		memcpy(words, payload, len);
		neuron_fw_data_write(nd, words, len);
		memcpy(&dw, &hdr, 4);
		neuron_misc_write(nd, NEURON_FW_MBOX_REQ_HI, le32_to_cpu((__force __le32)dw));
		neuron_misc_write(nd, NEURON_FW_MBOX_REQ_LO, le32_to_cpu(hdr.crc));
		neuron_misc_write(nd, NEURON_FW_MBOX_RESP_HI, 0);
		neuron_misc_write(nd, NEURON_FW_MBOX_RESP_LO, 0);
		neuron_misc_write(nd, NEURON_FW_MBOX_ACK, 1);
		neuron_misc_write(nd, NEURON_FW_MBOX_DOORBELL, 1);

		ret = -ETIMEDOUT;
		while (neuron_misc_read(nd, NEURON_FW_MBOX_DOORBELL) != 0) {
			if (time_after(jiffies, deadline))
				break;
			ret = neuron_fw_poll_sleep(nd);
			if (ret)
				goto out;
			ret = -ETIMEDOUT;
		}
		if (ret == -ETIMEDOUT && neuron_misc_read(nd, NEURON_FW_MBOX_DOORBELL) != 0) {
			mb->errors++;
			continue;
		}
		dw = (__force u32)cpu_to_le32(neuron_misc_read(nd, NEURON_FW_MBOX_REQ_HI));
		memcpy(&resp, &dw, sizeof(resp));
		ret = neuron_fw_check_resp(&resp, seq, out_len, &got);
		if (ret == -EOPNOTSUPP)
			goto out;
		if (ret) {
			mb->errors++;
			continue;
		}
		for (i = 0; i < DIV_ROUND_UP(got, 4); i++) {
			dw = neuron_misc_read(nd, NEURON_FW_MBOX_DATA + i * 4);
			words[i] = (__force u32)cpu_to_le32(dw);
		}
		memcpy(out, words, got);
		if (got < out_len)
			memset((u8 *)out + got, 0, out_len - got);
		goto out;
	}
	if (ret == -EAGAIN)
		ret = -EIO;
out:
	mutex_unlock(&mb->lock);
	return ret;
}

/* Whether the register at device-physical @addr may be read through READ. */
static int neuron_fw_counter_ok(struct neuron_device *nd, u64 addr, u32 foreign)
{
	const struct neuron_dhal_fw *fw = nd->dhal.dhal->fw;
	u64 off;
	int nc, ret;

	if (addr & 3)
		return -EINVAL;
	if (addr < fw->csr_dev_base || addr - fw->csr_dev_base >= fw->csr_dev_size)
		return -EPERM;
	off = addr - fw->csr_dev_base;
	ret = neuron_reg_user_check(nd, off, NEURON_REG_READ, &nc);
	if (ret)
		return ret;
	if (nc >= 0 && (foreign & BIT(nc)))
		return -EACCES;
	return 0;
}

/**
 * neuron_fw_read_counters() - read device registers through the firmware
 * @nd: the device
 * @addrs: @count device-physical register addresses
 * @vals: where their @count values go
 * @count: 1 to NEURON_FW_READ_MAX
 *
 * Every address must be a 4-aligned register the generation lets user
 * space read (its DHAL's readable register windows, as the firmware sees
 * them), not in a NeuronCore another process holds; nothing is sent
 * otherwise.
 *
 * Context: process context; sleeps; a signal ends the wait.
 * Return: 0; -EINVAL for a bad count or an unaligned address; -EPERM for an
 * address outside the readable windows; -EACCES for a register of a core
 * another process holds; -ENOMEM; -ETIMEDOUT when the firmware never
 * answers; -EIO when it keeps failing; -EOPNOTSUPP when it does not know
 * the command; -ERESTARTSYS; -ENODEV.
 */
int neuron_fw_read_counters(struct neuron_device *nd, const u64 *addrs, u32 *vals, u32 count)
{
	u32 foreign;
	size_t got;
	u32 i;
	int ret;

	if (!count || count > NEURON_FW_READ_MAX)
		return -EINVAL;
	if (!nd->dhal.dhal)
		return -ENODEV;
	foreign = neuron_foreign_cores(nd, task_tgid(current));
	for (i = 0; i < count; i++) {
		ret = neuron_fw_counter_ok(nd, addrs[i], foreign);
		if (ret)
			return ret;
	}
	ret = neuron_fw_lock(nd);
	if (ret)
		return ret;
	ret = neuron_fw_legacy_buffers(nd);
	if (!ret)
		ret = neuron_fw_legacy_run(nd, NEURON_FW_CMD_READ, addrs, count * sizeof(u64),
					   vals, count * sizeof(u32), &got);
	/* A short answer is a firmware failure, not zeros. */
	if (!ret && got != count * sizeof(u32))
		ret = -EIO;
	mutex_unlock(&nd->mbox.lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_read_counters, NEURON_NS);

/**
 * neuron_fw_post_metric() - post a metrics blob (POST_TO_CW)
 * @nd: the device
 * @data: the blob
 * @size: its bytes, 1 to NEURON_FW_MBOX_DATA_SIZE
 *
 * The blob goes to MiscRAM's data area and with the request.
 *
 * Context: process context; sleeps; a signal ends the wait.
 * Return: 0; -EINVAL for a bad size; otherwise as neuron_fw_read_counters().
 */
int neuron_fw_post_metric(struct neuron_device *nd, const void *data, u32 size)
{
	u32 words[NEURON_FW_MBOX_DATA_SIZE / 4] = { 0 };
	size_t got;
	int ret;

	if (!size || size > NEURON_FW_MBOX_DATA_SIZE)
		return -EINVAL;
	ret = neuron_fw_lock(nd);
	if (ret)
		return ret;
	memcpy(words, data, size);
	neuron_fw_data_write(nd, words, size);
	ret = neuron_fw_legacy_buffers(nd);
	if (!ret)
		ret = neuron_fw_legacy_run(nd, NEURON_FW_CMD_POST_TO_CW, data, size, NULL, 0, &got);
	mutex_unlock(&nd->mbox.lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_post_metric, NEURON_NS);

/**
 * neuron_fw_has_perf_profiles() - whether the device has performance profiles
 * @nd: the device
 *
 * Return: true when its generation's firmware has them (DHAL data).
 */
bool neuron_fw_has_perf_profiles(struct neuron_device *nd)
{
	return nd->dhal.dhal && nd->dhal.dhal->fw->perf_profiles;
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_has_perf_profiles, NEURON_NS);

/**
 * neuron_fw_set_power_profile() - SET_POWER_PROFILE
 * @nd: the device
 * @profile: the profile
 *
 * Context: process context; sleeps; a signal ends the wait.
 * Return: 0; -EOPNOTSUPP below firmware API 7 or for an unknown command;
 * -ETIMEDOUT; -EIO when the firmware refuses (an unavailable profile);
 * -ERESTARTSYS; -ENODEV.
 */
int neuron_fw_set_power_profile(struct neuron_device *nd, u8 profile)
{
	struct neuron_fw_perf_req req = { .profile = profile };

	return neuron_fw_new_request(nd, NEURON_FW_CMD_SET_POWER_PROFILE, &req, sizeof(req),
				     NULL, 0);
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_set_power_profile, NEURON_NS);

/**
 * neuron_fw_get_perf_profile() - GET_DATA, the current profile
 * @nd: the device
 * @profile: where it goes
 *
 * Context: process context; sleeps; a signal ends the wait.
 * Return: as neuron_fw_set_power_profile().
 */
int neuron_fw_get_perf_profile(struct neuron_device *nd, u8 *profile)
{
	u8 type = NEURON_FW_DATA_PERF_PROFILE;
	struct neuron_fw_perf_resp resp;
	int ret;

	ret = neuron_fw_new_request(nd, NEURON_FW_CMD_GET_DATA, &type, sizeof(type),
				    &resp, sizeof(resp));
	if (!ret)
		*profile = resp.profile;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_get_perf_profile, NEURON_NS);

/**
 * neuron_fw_get_available_profiles() - GET_DATA, the profiles of a feature
 * @nd: the device
 * @feature: NEURON_FW_PROFILES_ALL or NEURON_FW_PROFILES_HBM_7200
 * @num: where the count goes
 * @bitmap: where the set goes
 *
 * Context: process context; sleeps; a signal ends the wait.
 * Return: 0; -EINVAL for a feature the firmware does not know; otherwise as
 * neuron_fw_set_power_profile().  Nothing is written on error.
 */
int neuron_fw_get_available_profiles(struct neuron_device *nd, u16 feature, u8 *num,
				     u8 bitmap[NEURON_FW_PROFILE_BITMAP])
{
	struct neuron_fw_avail_req req = {
		.type = NEURON_FW_DATA_AVAIL_PROFILES,
		.operation = cpu_to_le16(feature),
	};
	struct neuron_fw_avail_resp resp;
	int ret;

	if (feature != NEURON_FW_PROFILES_ALL && feature != NEURON_FW_PROFILES_HBM_7200)
		return -EINVAL;
	ret = neuron_fw_new_request(nd, NEURON_FW_CMD_GET_DATA, &req, sizeof(req),
				    &resp, sizeof(resp));
	if (ret)
		return ret;
	*num = resp.num_profiles;
	memcpy(bitmap, resp.bitmap, NEURON_FW_PROFILE_BITMAP);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_get_available_profiles, NEURON_NS);

/**
 * neuron_fw_set_features() - SET_FEATURE
 * @nd: the device
 * @features: the whole feature set (NEURON_FW_FEATURE_*): the firmware
 *	replaces its set with it
 *
 * Context: process context; sleeps; a signal ends the wait.
 * Return: as neuron_fw_set_power_profile().
 */
int neuron_fw_set_features(struct neuron_device *nd, u8 features)
{
	return neuron_fw_new_request(nd, NEURON_FW_CMD_SET_FEATURE, &features, sizeof(features),
				     NULL, 0);
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_set_features, NEURON_NS);

/* Set up a device's mailbox state (at creation). */
void neuron_fw_mbox_init(struct neuron_device *nd)
{
	mutex_init(&nd->mbox.lock);
}

/*
 * Withdraw the legacy buffers from the firmware and free them: at
 * teardown, with no handler running and the BARs still mapped.  The
 * address registers are cleared first, so a late answer has nowhere to go.
 */
void neuron_fw_mbox_teardown(struct neuron_device *nd)
{
	struct neuron_fw_mbox *mb = &nd->mbox;

	mutex_lock(&mb->lock);
	if (mb->req) {
		if (nd->mapped) {
			neuron_misc_write(nd, NEURON_FW_MBOX_REQ_LO, 0);
			neuron_misc_write(nd, NEURON_FW_MBOX_REQ_HI, 0);
			neuron_misc_write(nd, NEURON_FW_MBOX_RESP_LO, 0);
			neuron_misc_write(nd, NEURON_FW_MBOX_RESP_HI, 0);
		}
		dma_free_coherent(nd->bus.parent, NEURON_FW_MBOX_BUF_SIZE, mb->resp, mb->resp_dma);
		dma_free_coherent(nd->bus.parent, NEURON_FW_MBOX_BUF_SIZE, mb->req, mb->req_dma);
		mb->req = NULL;
		mb->resp = NULL;
	}
	mutex_unlock(&mb->lock);
}

/* Free a device's mailbox state (at release). */
void neuron_fw_mbox_fini(struct neuron_device *nd)
{
	mutex_destroy(&nd->mbox.lock);
}
