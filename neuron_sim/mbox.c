// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim firmware mailboxes (the wire formats are in
 * include/neuron/fw.h).
 *
 * A doorbell write of 1 with no reset type set is a mailbox request: the
 * new protocol when the driver wrote 1 to the acknowledge register (0xf0)
 * first, the legacy one otherwise.  The simulated firmware checks the
 * request's CRC32C with the core's neuron_fw_crc(), the one implementation
 * (error 1 when it is wrong), and answers, in the doorbell write or
 * mbox_delay_ms later from a work item:
 *
 * - legacy READ: the value of each BAR 0 register the address names (seen
 *   from csr_dev_base), 0xdeadbeef for an address outside that window;
 * - legacy POST_TO_CW: keeps the blob in the metrics_posted log;
 * - SET_POWER_PROFILE: stores the profile when mbox_profiles_all has it
 *   (error 1 otherwise);
 * - GET_DATA type 1: the stored profile; type 2: the profiles of feature 0
 *   (mbox_profiles_all) or 5 (mbox_profiles_hbm), error 1 for others;
 * - SET_FEATURE: stores the feature byte;
 * - anything else, or a command of the other protocol: error 2.
 *
 * power_util drives the power utilisation words (MiscRAM 0x54, 0x58).
 *
 * Fault switches: mbox_silent (no answer), mbox_error (that error code),
 * mbox_unknown (error 2), mbox_delay_ms.  The legacy answer is written to
 * the response buffer whose address MiscRAM holds when the answer is made,
 * under the device lock: once the driver cleared that address, nothing
 * more is written there.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <neuron/fw.h>

#include "sim.h"

static u32 *nsim_mbox_reg(struct nsim_dev *sd, unsigned int moff)
{
	return &sd->misc[moff / 4];
}

/* The value READ returns for device-physical @addr.  Lock held. */
static u32 nsim_mbox_read_reg(struct nsim_dev *sd, u64 addr)
{
	const struct nsim_gen *g = sd->gen;
	u64 off;

	if (addr & 3 || addr < g->csr_dev_base || addr - g->csr_dev_base >= g->csr_dev_size)
		return NSIM_REG_NOT_READY;
	off = addr - g->csr_dev_base;
	if (off >= g->misc_base && off - g->misc_base < NSIM_MISC_SIZE)
		return *nsim_mbox_reg(sd, off - g->misc_base);
	return nsim_reg_get(sd, off);
}

/*
 * Serve command @cmd with @len bytes of @in; @out gets the answer's data
 * (*@out_len bytes, at most @max).  Return: the error code.  Lock held.
 */
static u8 nsim_mbox_serve(struct nsim_dev *sd, bool legacy, u8 cmd, const u8 *in, size_t len,
			  u8 *out, size_t max, size_t *out_len)
{
	struct nsim_mbox *mb = &sd->mbox;
	struct neuron_fw_avail_resp avail = { 0 };
	struct neuron_fw_perf_resp perf = { 0 };
	u32 set;
	size_t i;

	*out_len = 0;
	if (mb->unknown)
		return NEURON_FW_ERR_UNKNOWN_CMD;
	if (mb->error)
		return mb->error;
	switch (cmd) {
	case NEURON_FW_CMD_READ:
		if (!legacy || len % 8 || len / 8 * 4 > max)
			return legacy ? NEURON_FW_ERR_FAIL : NEURON_FW_ERR_UNKNOWN_CMD;
		for (i = 0; i < len / 8; i++) {
			u64 addr;
			u32 v;

			memcpy(&addr, in + i * 8, 8);
			v = nsim_mbox_read_reg(sd, le64_to_cpu((__force __le64)addr));
			memcpy(out + i * 4, &v, 4);
		}
		*out_len = len / 8 * 4;
		return NEURON_FW_ERR_NONE;
	case NEURON_FW_CMD_POST_TO_CW:
		if (!legacy)
			return NEURON_FW_ERR_UNKNOWN_CMD;
		if (!len || len > NSIM_METRICS_MAX)
			return NEURON_FW_ERR_FAIL;
		mb->log[mb->posts % NSIM_METRICS_LOG].len = len;
		memcpy(mb->log[mb->posts % NSIM_METRICS_LOG].data, in, len);
		mb->posts++;
		return NEURON_FW_ERR_NONE;
	case NEURON_FW_CMD_SET_POWER_PROFILE:
		if (legacy)
			return NEURON_FW_ERR_UNKNOWN_CMD;
		if (len < sizeof(struct neuron_fw_perf_req))
			return NEURON_FW_ERR_FAIL;
		i = ((const struct neuron_fw_perf_req *)in)->profile;
		if (i >= 32 || !(mb->profiles_all & BIT(i)))
			return NEURON_FW_ERR_FAIL;
		mb->profile = i;
		return NEURON_FW_ERR_NONE;
	case NEURON_FW_CMD_GET_DATA:
		if (legacy)
			return NEURON_FW_ERR_UNKNOWN_CMD;
		if (len >= 1 && in[0] == NEURON_FW_DATA_PERF_PROFILE) {
			perf.profile = mb->profile;
			memcpy(out, &perf, sizeof(perf));
			*out_len = sizeof(perf);
			return NEURON_FW_ERR_NONE;
		}
		if (len < sizeof(struct neuron_fw_avail_req) ||
		    in[0] != NEURON_FW_DATA_AVAIL_PROFILES)
			return NEURON_FW_ERR_FAIL;
		switch (in[1] | in[2] << 8) {
		case NEURON_FW_PROFILES_ALL:
			set = mb->profiles_all;
			break;
		case NEURON_FW_PROFILES_HBM_7200:
			set = mb->profiles_hbm;
			break;
		default:
			return NEURON_FW_ERR_FAIL;
		}
		avail.num_profiles = hweight32(set);
		for (i = 0; i < 4; i++)
			avail.bitmap[i] = set >> (8 * i);
		memcpy(out, &avail, sizeof(avail));
		*out_len = sizeof(avail);
		return NEURON_FW_ERR_NONE;
	case NEURON_FW_CMD_SET_FEATURE:
		if (legacy)
			return NEURON_FW_ERR_UNKNOWN_CMD;
		if (len < 1)
			return NEURON_FW_ERR_FAIL;
		mb->features = in[0];
		return NEURON_FW_ERR_NONE;
	default:
		return NEURON_FW_ERR_UNKNOWN_CMD;
	}
}

/* A legacy request: request and response in host memory.  Lock held. */
static void nsim_mbox_legacy(struct nsim_dev *sd)
{
	u64 req_addr = (u64)*nsim_mbox_reg(sd, NSIM_MISC_MBOX_HDR) << 32 |
		       *nsim_mbox_reg(sd, NSIM_MISC_MBOX_CRC);
	u64 resp_addr = (u64)*nsim_mbox_reg(sd, NSIM_MISC_MBOX_RESP_HI) << 32 |
			*nsim_mbox_reg(sd, NSIM_MISC_MBOX_RESP_LO);
	struct neuron_fw_req_hdr *req;
	struct neuron_fw_resp_hdr *resp;
	size_t size, out_len = 0;
	u8 err;

	req = nsim_host_ptr(sd, req_addr, sizeof(*req));
	resp = nsim_host_ptr(sd, resp_addr, NEURON_FW_MBOX_BUF_SIZE);
	if (!req || !resp)
		return;
	size = le16_to_cpu(req->size);
	if (size < sizeof(*req) || !nsim_host_ptr(sd, req_addr, size)) {
		err = NEURON_FW_ERR_FAIL;
	} else if (neuron_fw_crc(req, req + 1, size - sizeof(*req)) != le32_to_cpu(req->crc)) {
		sd->mbox.crc_errors++;
		err = NEURON_FW_ERR_FAIL;
	} else {
		err = nsim_mbox_serve(sd, true, req->cmd, (const u8 *)(req + 1),
				      size - sizeof(*req), (u8 *)(resp + 1),
				      NEURON_FW_MBOX_BUF_SIZE - sizeof(*resp), &out_len);
	}
	resp->error = err;
	resp->size = cpu_to_le16(sizeof(*resp) + out_len);
	/* The sequence number last: the driver polls it. */
	smp_wmb();
	WRITE_ONCE(resp->seq, req->seq);
}

/* A new-protocol request: everything in MiscRAM.  Lock held. */
static void nsim_mbox_new(struct nsim_dev *sd)
{
	u32 dw = *nsim_mbox_reg(sd, NSIM_MISC_MBOX_HDR);
	u32 crc = *nsim_mbox_reg(sd, NSIM_MISC_MBOX_CRC);
	u32 in[NEURON_FW_MBOX_DATA_SIZE / 4], out[NEURON_FW_MBOX_DATA_SIZE / 4] = { 0 };
	struct neuron_fw_req_hdr hdr;
	size_t size, len, out_len = 0, i;
	u8 err;

	hdr.seq = dw & 0xff;
	hdr.cmd = (dw >> 8) & 0xff;
	hdr.size = cpu_to_le16(dw >> 16);
	hdr.crc = cpu_to_le32(crc);
	size = dw >> 16;
	for (i = 0; i < ARRAY_SIZE(in); i++)
		in[i] = (__force u32)cpu_to_le32(*nsim_mbox_reg(sd, NSIM_MISC_MBOX_DATA + i * 4));
	len = size - sizeof(hdr);
	if (size < sizeof(hdr) || len > sizeof(in)) {
		err = NEURON_FW_ERR_FAIL;
	} else if (neuron_fw_crc(&hdr, in, len) != crc) {
		sd->mbox.crc_errors++;
		err = NEURON_FW_ERR_FAIL;
	} else {
		err = nsim_mbox_serve(sd, false, hdr.cmd, (const u8 *)in, len, (u8 *)out,
				      sizeof(out), &out_len);
	}
	for (i = 0; i < DIV_ROUND_UP(out_len, 4); i++) {
		u32 *reg = nsim_mbox_reg(sd, NSIM_MISC_MBOX_DATA + i * 4);

		*reg = le32_to_cpu((__force __le32)out[i]);
	}
	*nsim_mbox_reg(sd, NSIM_MISC_MBOX_HDR) = hdr.seq | err << 8 |
		(u32)(sizeof(struct neuron_fw_resp_hdr) + out_len) << 16;
}

/* Answer the request the doorbell holds.  Lock held. */
static void nsim_mbox_answer(struct nsim_dev *sd)
{
	lockdep_assert_held(&sd->lock);

	if (*nsim_mbox_reg(sd, NSIM_MISC_DOORBELL) != 1 ||
	    *nsim_mbox_reg(sd, NSIM_MISC_RESET_TYPE) || sd->mbox.silent)
		return;
	if (*nsim_mbox_reg(sd, NSIM_MISC_MBOX_ACK) == 1) {
		*nsim_mbox_reg(sd, NSIM_MISC_MBOX_ACK) = 0;
		nsim_mbox_new(sd);
	} else {
		nsim_mbox_legacy(sd);
	}
	sd->mbox.requests++;
	*nsim_mbox_reg(sd, NSIM_MISC_DOORBELL) = 0;
}

static void nsim_mbox_work(struct work_struct *work)
{
	struct nsim_dev *sd = container_of(to_delayed_work(work), struct nsim_dev, mbox.work);

	spin_lock(&sd->lock);
	nsim_mbox_answer(sd);
	spin_unlock(&sd->lock);
}

/**
 * nsim_mbox_ring() - the doorbell rang without a reset type
 * @sd: the simulated device, its lock held
 */
void nsim_mbox_ring(struct nsim_dev *sd)
{
	u32 delay = READ_ONCE(sd->mbox.delay_ms);

	lockdep_assert_held(&sd->lock);
	if (READ_ONCE(sd->mbox.silent))
		return;
	if (!delay)
		nsim_mbox_answer(sd);
	else
		schedule_delayed_work(&sd->mbox.work, msecs_to_jiffies(delay));
}

/**
 * nsim_mbox_init() - set up the mailboxes of a new device
 * @sd: the simulated device
 */
void nsim_mbox_init(struct nsim_dev *sd)
{
	INIT_DELAYED_WORK(&sd->mbox.work, nsim_mbox_work);
	sd->mbox.profiles_all = 0xf;
	sd->mbox.profiles_hbm = 0x3;
}

/**
 * nsim_mbox_stop() - cancel a delayed answer and wait for it
 * @sd: the simulated device, no longer known to the core
 */
void nsim_mbox_stop(struct nsim_dev *sd)
{
	cancel_delayed_work_sync(&sd->mbox.work);
}

static int nsim_mbox_state_show(struct seq_file *m, void *unused)
{
	struct nsim_dev *sd = m->private;

	spin_lock(&sd->lock);
	seq_printf(m, "profile %u\nfeatures %u\nrequests %llu\ncrc_errors %u\nposts %u\n",
		   sd->mbox.profile, sd->mbox.features, sd->mbox.requests,
		   sd->mbox.crc_errors, sd->mbox.posts);
	spin_unlock(&sd->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nsim_mbox_state);

/* One line per blob kept, oldest first: its bytes in hex. */
static int nsim_metrics_posted_show(struct seq_file *m, void *unused)
{
	struct nsim_dev *sd = m->private;
	struct nsim_metric_post *p;
	u32 first, n, off;

	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	spin_lock(&sd->lock);
	first = sd->mbox.posts > NSIM_METRICS_LOG ? sd->mbox.posts - NSIM_METRICS_LOG : 0;
	spin_unlock(&sd->lock);
	for (n = first;; n++) {
		spin_lock(&sd->lock);
		if (n >= sd->mbox.posts) {
			spin_unlock(&sd->lock);
			break;
		}
		*p = sd->mbox.log[n % NSIM_METRICS_LOG];
		spin_unlock(&sd->lock);
		/* %ph prints at most 64 bytes at a time. */
		for (off = 0; off < p->len; off += 64)
			seq_printf(m, "%*phN", (int)min(p->len - off, 64U), p->data + off);
		seq_putc(m, '\n');
	}
	kfree(p);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nsim_metrics_posted);

/*
 * debugfs reg_set: "OFFSET VALUE" sets a BAR 0 register outside MiscRAM
 * (a counter READ then returns), both numbers in C notation.
 */
static ssize_t nsim_reg_set_write(struct file *file, const char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[64];
	u64 off;
	u32 val;
	int ret;

	ret = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%lli %i", &off, &val) != 2 || off & 3 || off >= sd->gen->bar0_size ||
	    (off >= sd->gen->misc_base && off - sd->gen->misc_base < NSIM_MISC_SIZE))
		return -EINVAL;
	ret = nsim_reg_set(sd, off, val, GFP_KERNEL);
	return ret ? ret : count;
}

static const struct file_operations nsim_reg_set_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nsim_reg_set_write,
};

/*
 * debugfs misc_set: "OFFSET VALUE" sets the MiscRAM word at byte OFFSET of
 * the block (what firmware reports there: ECC counts, repair state, power
 * samples), both numbers in C notation.  The word is stored as is: writing
 * the mailbox or reset registers this way rings nothing.
 */
static ssize_t nsim_misc_set_write(struct file *file, const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[64];
	u32 off, val;
	int ret;

	ret = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%i %i", &off, &val) != 2 || off & 3 || off >= NSIM_MISC_SIZE)
		return -EINVAL;
	spin_lock(&sd->lock);
	*nsim_mbox_reg(sd, off) = val;
	spin_unlock(&sd->lock);
	return count;
}

static const struct file_operations nsim_misc_set_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nsim_misc_set_write,
};

/*
 * debugfs power_util: "BP0 [BP1]" sets the utilisation (basis points, up
 * to 65535) of die 0 and die 1 (die 1 as die 0 when absent), and from then
 * on each read of a die's word bumps its sample counter.  Reading gives
 * both words in hex.
 */
static ssize_t nsim_power_util_write(struct file *file, const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	unsigned int bp[NSIM_POWER_DICE], i;
	char buf[32];
	int n;

	n = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (n)
		return n;
	n = sscanf(buf, "%u %u", &bp[0], &bp[1]);
	if (n < 1 || bp[0] > U16_MAX || (n == 2 && bp[1] > U16_MAX))
		return -EINVAL;
	if (n == 1)
		bp[1] = bp[0];
	spin_lock(&sd->lock);
	for (i = 0; i < NSIM_POWER_DICE; i++) {
		u32 *w = nsim_mbox_reg(sd, NSIM_MISC_POWER + 4 * i);

		*w = (*w & 0xffff0000) | bp[i];
	}
	sd->power_auto = true;
	spin_unlock(&sd->lock);
	return count;
}

static ssize_t nsim_power_util_read(struct file *file, char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[32];
	u32 w0, w1;
	int len;

	spin_lock(&sd->lock);
	w0 = *nsim_mbox_reg(sd, NSIM_MISC_POWER);
	w1 = *nsim_mbox_reg(sd, NSIM_MISC_POWER + 4);
	spin_unlock(&sd->lock);
	len = scnprintf(buf, sizeof(buf), "%#x %#x\n", w0, w1);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations nsim_power_util_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_power_util_read,
	.write = nsim_power_util_write,
};

/**
 * nsim_mbox_debugfs_add() - the mailboxes' debugfs files
 * @sd: the simulated device, its debugfs directory created
 */
void nsim_mbox_debugfs_add(struct nsim_dev *sd)
{
	struct nsim_mbox *mb = &sd->mbox;

	debugfs_create_bool("mbox_silent", 0600, sd->ddir, &mb->silent);
	debugfs_create_u8("mbox_error", 0600, sd->ddir, &mb->error);
	debugfs_create_bool("mbox_unknown", 0600, sd->ddir, &mb->unknown);
	debugfs_create_u32("mbox_delay_ms", 0600, sd->ddir, &mb->delay_ms);
	debugfs_create_x32("mbox_profiles_all", 0600, sd->ddir, &mb->profiles_all);
	debugfs_create_x32("mbox_profiles_hbm", 0600, sd->ddir, &mb->profiles_hbm);
	debugfs_create_u32("api_version", 0600, sd->ddir, &sd->misc[NSIM_MISC_API_VERSION / 4]);
	debugfs_create_u32("fw_build", 0600, sd->ddir, &sd->misc[NSIM_MISC_FW_BUILD / 4]);
	debugfs_create_file("mbox_state", 0400, sd->ddir, sd, &nsim_mbox_state_fops);
	debugfs_create_file("metrics_posted", 0400, sd->ddir, sd, &nsim_metrics_posted_fops);
	debugfs_create_file("reg_set", 0200, sd->ddir, sd, &nsim_reg_set_fops);
	debugfs_create_file("misc_set", 0200, sd->ddir, sd, &nsim_misc_set_fops);
	debugfs_create_file("power_util", 0600, sd->ddir, sd, &nsim_power_util_fops);
}
