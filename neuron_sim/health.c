// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim health registers: the error counts firmware keeps in MiscRAM
 * (Documentation/simulator.rst, "health").
 *
 * debugfs health raises them as failing hardware would, in the encoding
 * of firmware API 6 and later: "sram N" adds N SRAM ECC errors (bits 15:0
 * of word 0x40), "hbm CH N" N uncorrected errors of HBM channel CH (bits
 * 15:12 of word 0x44 + 4 * CH), "hbm_repairable CH N" N repairable ones
 * (bits 11:0), each count saturating at its field's maximum; "repair S"
 * sets the HBM repair state (bits 1:0 of word 0x64, 0-3); "unhealthy
 * MASK" sets the bitmap of unhealthy components (word 0x04; C notation);
 * "heartbeat stop" holds the health check heartbeat (bits 19:12 of word
 * 0x0c), which otherwise advances by one at each read of its word,
 * "heartbeat run" lets it go on, "heartbeat N" sets it (0-255); "clear"
 * zeroes the words and lets the heartbeat run.  Reading gives the words,
 * one "NAME 0xVALUE" per line.
 */

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "sim.h"

#define NSIM_H_SRAM		0x40
#define NSIM_H_HBM(ch)		(0x44 + 4 * (ch))
#define NSIM_H_HBM_COUNT	4
#define NSIM_H_REPAIR		0x64

#define NSIM_H_SRAM_COUNT	GENMASK(15, 0)
#define NSIM_H_HBM_UE		GENMASK(15, 12)
#define NSIM_H_HBM_REPAIRABLE	GENMASK(11, 0)
#define NSIM_H_REPAIR_STATE	GENMASK(1, 0)
#define NSIM_H_HEARTBEAT	GENMASK(19, 12)

static u32 *nsim_h_word(struct nsim_dev *sd, u32 off)
{
	return &sd->misc[off / 4];
}

/* Add @n to the field @mask of MiscRAM word @off, saturating.  Lock held. */
static void nsim_h_add(struct nsim_dev *sd, u32 off, u32 mask, u32 n)
{
	u32 *w = nsim_h_word(sd, off);
	u32 max = mask >> __ffs(mask);
	u32 v = (*w & mask) >> __ffs(mask);

	v = n > max - v ? max : v + n;
	*w = (*w & ~mask) | (v << __ffs(mask));
}

/**
 * nsim_heartbeat_bump() - advance the health check heartbeat
 * @w: the sequence word (MiscRAM 0x00c); the device lock held
 *
 * Return: the new word.
 */
u32 nsim_heartbeat_bump(u32 *w)
{
	u32 beat = (FIELD_GET(NSIM_H_HEARTBEAT, *w) + 1) & FIELD_MAX(NSIM_H_HEARTBEAT);

	*w = (*w & ~NSIM_H_HEARTBEAT) | FIELD_PREP(NSIM_H_HEARTBEAT, beat);
	return *w;
}

/* "heartbeat ARG": stop, run or a value.  Lock held. */
static int nsim_h_heartbeat(struct nsim_dev *sd, const char *arg)
{
	u32 *w = nsim_h_word(sd, NSIM_MISC_HEALTH_SEQ);
	unsigned int v;

	if (!strcmp(arg, "stop")) {
		sd->heartbeat_stopped = true;
	} else if (!strcmp(arg, "run")) {
		sd->heartbeat_stopped = false;
	} else if (!kstrtouint(arg, 0, &v) && v <= FIELD_MAX(NSIM_H_HEARTBEAT)) {
		*w = (*w & ~NSIM_H_HEARTBEAT) | FIELD_PREP(NSIM_H_HEARTBEAT, v);
		sd->heartbeat_stopped = true;
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t nsim_health_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[64], what[16], arg[16], extra;
	unsigned int a, b, ch;
	int ret, n;

	ret = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	n = sscanf(buf, "%15s %15s", what, arg);
	if (n < 1)
		return -EINVAL;
	if (!strcmp(what, "unhealthy") || !strcmp(what, "heartbeat")) {
		if (n != 2 || sscanf(buf, "%*s %*s %c", &extra) == 1)
			return -EINVAL;
		spin_lock(&sd->lock);
		if (what[0] == 'h')
			ret = nsim_h_heartbeat(sd, arg);
		else if (kstrtouint(arg, 0, &a))
			ret = -EINVAL;
		else
			*nsim_h_word(sd, NSIM_MISC_HEALTH_STATUS) = a;
		spin_unlock(&sd->lock);
		return ret ? ret : count;
	}
	n = sscanf(buf, "%15s %u %u", what, &a, &b);
	spin_lock(&sd->lock);
	if (!strcmp(what, "sram") && n == 2) {
		nsim_h_add(sd, NSIM_H_SRAM, NSIM_H_SRAM_COUNT, a);
	} else if (!strcmp(what, "hbm") && n == 3 && a < NSIM_H_HBM_COUNT) {
		nsim_h_add(sd, NSIM_H_HBM(a), NSIM_H_HBM_UE, b);
	} else if (!strcmp(what, "hbm_repairable") && n == 3 && a < NSIM_H_HBM_COUNT) {
		nsim_h_add(sd, NSIM_H_HBM(a), NSIM_H_HBM_REPAIRABLE, b);
	} else if (!strcmp(what, "repair") && n == 2 && a <= FIELD_MAX(NSIM_H_REPAIR_STATE)) {
		u32 *w = nsim_h_word(sd, NSIM_H_REPAIR);

		*w = (*w & ~NSIM_H_REPAIR_STATE) | FIELD_PREP(NSIM_H_REPAIR_STATE, a);
	} else if (!strcmp(what, "clear") && n == 1) {
		*nsim_h_word(sd, NSIM_H_SRAM) = 0;
		for (ch = 0; ch < NSIM_H_HBM_COUNT; ch++)
			*nsim_h_word(sd, NSIM_H_HBM(ch)) = 0;
		*nsim_h_word(sd, NSIM_H_REPAIR) = 0;
		*nsim_h_word(sd, NSIM_MISC_HEALTH_STATUS) = 0;
		sd->heartbeat_stopped = false;
	} else {
		ret = -EINVAL;
	}
	spin_unlock(&sd->lock);
	return ret ? ret : count;
}

static ssize_t nsim_health_read(struct file *file, char __user *ubuf, size_t count,
				loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	u32 w[NSIM_H_HBM_COUNT + 2], status, seq;
	char buf[224];
	unsigned int ch;
	int len;

	spin_lock(&sd->lock);
	w[0] = *nsim_h_word(sd, NSIM_H_SRAM);
	for (ch = 0; ch < NSIM_H_HBM_COUNT; ch++)
		w[1 + ch] = *nsim_h_word(sd, NSIM_H_HBM(ch));
	w[1 + ch] = *nsim_h_word(sd, NSIM_H_REPAIR);
	status = *nsim_h_word(sd, NSIM_MISC_HEALTH_STATUS);
	seq = *nsim_h_word(sd, NSIM_MISC_HEALTH_SEQ);
	spin_unlock(&sd->lock);
	len = scnprintf(buf, sizeof(buf), "sram %#x\n", w[0]);
	for (ch = 0; ch < NSIM_H_HBM_COUNT; ch++)
		len += scnprintf(buf + len, sizeof(buf) - len, "hbm%u %#x\n", ch, w[1 + ch]);
	len += scnprintf(buf + len, sizeof(buf) - len, "repair %#x\n", w[1 + ch]);
	len += scnprintf(buf + len, sizeof(buf) - len, "unhealthy %#x\n", status);
	len += scnprintf(buf + len, sizeof(buf) - len, "heartbeat %#x\n", seq);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations nsim_health_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_health_read,
	.write = nsim_health_write,
	.llseek = default_llseek,
};

/**
 * nsim_health_debugfs_add() - the health registers' debugfs file
 * @sd: the simulated device, its debugfs directory created
 */
void nsim_health_debugfs_add(struct nsim_dev *sd)
{
	debugfs_create_file("health", 0600, sd->ddir, sd, &nsim_health_fops);
}
