// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware interface bring-up needs, through the MiscRAM block whose
 * place the DHAL gives: identity (routing id, serial number, API version)
 * and the device-reset handshake.  The register offsets inside MiscRAM are
 * the same on every generation.
 */

#include <linux/bits.h>
#include <linux/jiffies.h>

#include <neuron/compat.h>
#include <neuron/fw.h>

#include "core.h"

#define MISC_FW_API_VERSION	0x000
#define MISC_ROUTING_ID		0x024
#define MISC_SERIAL_LO		0x038
#define MISC_SERIAL_HI		0x03c
#define MISC_NC_RESET_MAP	0x1d8
#define MISC_RESET_TYPE		0x1ec
#define MISC_DOORBELL		0x800
#define MISC_FW_STATUS		0x808

#define RESET_TYPE_DEVICE	1
#define RESET_TYPE_NC		2
#define FW_STATUS_RESET_BUSY	BIT(3)
/* What MiscRAM reads while firmware has not filled it in yet. */
#define MISC_NOT_READY		0xdeadbeef
#define RID_POLL_MS		100
/* First wait of a poll; each further wait doubles, up to the poll period. */
#define POLL_FIRST_MS		2
/* Polls of the firmware status after the reset was accepted: 0+100+...+400 ms. */
#define RESET_STATUS_TRIES	5

/* Registers of the firmware's MiscRAM block (also fw_mbox.c). */
u32 neuron_misc_read(struct neuron_device *nd, u32 reg)
{
	const struct neuron_dhal_layout *l = nd->dhal.dhal->layout;

	return neuron_reg_read32(nd, l->apb_bar, l->misc_ram_offset + reg);
}

/**
 * neuron_fw_misc_read() - read a word of a device's firmware MiscRAM
 * @nd: the device, bound to its DHAL (a plane's published device)
 * @reg: byte offset of the word in MiscRAM, 4-aligned, inside the block
 *
 * For planes that show what firmware reports there (ECC counts, power).
 *
 * Return: the word; 0xdeadbeef, what firmware leaves in a word it has not
 * filled in, for an offset outside the block.
 */
u32 neuron_fw_misc_read(struct neuron_device *nd, u32 reg)
{
	if (WARN_ON_ONCE(reg & 3 || reg >= NEURON_FW_MISC_SIZE))
		return MISC_NOT_READY;
	return neuron_misc_read(nd, reg);
}
EXPORT_SYMBOL_NS_GPL(neuron_fw_misc_read, NEURON_NS);

void neuron_misc_write(struct neuron_device *nd, u32 reg, u32 val)
{
	const struct neuron_dhal_layout *l = nd->dhal.dhal->layout;

	neuron_reg_write32(nd, l->apb_bar, l->misc_ram_offset + reg, val);
}

/*
 * Wait before the next read of a poll: POLL_FIRST_MS, then twice the last
 * wait, capped at @period_ms.  Firmware that answers quickly (a simulated
 * device; a reset on hardware often) is seen within a few milliseconds,
 * while one that takes seconds is still read only once per period.
 */
static int neuron_fw_poll_wait(struct neuron_device *nd, unsigned int *wait_ms,
			       unsigned int period_ms)
{
	*wait_ms = *wait_ms ? min(*wait_ms * 2, period_ms) : min(POLL_FIRST_MS, period_ms);
	return neuron_device_sleep(nd, *wait_ms);
}

/*
 * Read the routing id, retrying while firmware reports "not ready", for at
 * most neuron_rid_timeout_ms; also reads the serial number and API version.
 */
int neuron_fw_read_identity(struct neuron_device *nd, u32 *rid)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(neuron_rid_timeout_ms);
	unsigned int wait = 0;
	u32 v;
	int ret;

	for (;;) {
		v = neuron_misc_read(nd, MISC_ROUTING_ID);
		if (v != MISC_NOT_READY)
			break;
		if (time_after(jiffies, deadline)) {
			dev_err(nd->bus.parent, "routing id not ready after %u ms\n",
				neuron_rid_timeout_ms);
			return -ETIMEDOUT;
		}
		ret = neuron_fw_poll_wait(nd, &wait, RID_POLL_MS);
		if (ret)
			return ret;
	}
	*rid = v;
	nd->serial = (u64)neuron_misc_read(nd, MISC_SERIAL_HI) << 32 |
		     neuron_misc_read(nd, MISC_SERIAL_LO);
	nd->fw_api = neuron_misc_read(nd, MISC_FW_API_VERSION);
	return 0;
}

static void neuron_fw_send_reset(struct neuron_device *nd, u32 type, u32 map)
{
	if (type == RESET_TYPE_NC)
		neuron_misc_write(nd, MISC_NC_RESET_MAP, map);
	neuron_misc_write(nd, MISC_RESET_TYPE, type);
	neuron_misc_write(nd, MISC_DOORBELL, 1);
}

/*
 * Ask firmware for a reset, wait until it accepts the request (re-sending
 * it periodically), then until it reports the reset finished.  Bounded by
 * the DHAL's timeout, or neuron_reset_timeout_ms when set.
 */
static int neuron_fw_do_reset(struct neuron_device *nd, u32 type, u32 map)
{
	const struct neuron_dhal_fw *fw = nd->dhal.dhal->fw;
	unsigned int timeout = neuron_reset_timeout_ms ?: fw->reset_timeout_ms;
	unsigned long start = jiffies, sent;
	unsigned int i, wait = 0;
	int ret;

	neuron_fw_send_reset(nd, type, map);
	sent = start;
	while (neuron_misc_read(nd, MISC_RESET_TYPE) != 0) {
		if (time_after(jiffies, start + msecs_to_jiffies(timeout))) {
			dev_err(nd->bus.parent, "firmware did not accept the reset in %u ms\n",
				timeout);
			return -ETIMEDOUT;
		}
		ret = neuron_fw_poll_wait(nd, &wait, fw->reset_poll_ms);
		if (ret)
			return ret;
		if (fw->reset_resend_ms &&
		    time_after(jiffies, sent + msecs_to_jiffies(fw->reset_resend_ms))) {
			neuron_fw_send_reset(nd, type, map);
			sent = jiffies;
		}
	}
	for (i = 0; i < RESET_STATUS_TRIES; i++) {
		if (!(neuron_misc_read(nd, MISC_FW_STATUS) & FW_STATUS_RESET_BUSY))
			return 0;
		ret = neuron_device_sleep(nd, i * 100);
		if (ret)
			return ret;
	}
	dev_err(nd->bus.parent, "firmware still busy after the reset\n");
	return -EIO;
}

/* Reset the whole device. */
int neuron_fw_reset(struct neuron_device *nd)
{
	return neuron_fw_do_reset(nd, RESET_TYPE_DEVICE, 0);
}

/*
 * Reset some NeuronCores: @reset_map is the firmware's partial-reset map,
 * built from the DHAL's per-core units.
 */
int neuron_fw_reset_ncs(struct neuron_device *nd, u32 reset_map)
{
	return neuron_fw_do_reset(nd, RESET_TYPE_NC, reset_map);
}
