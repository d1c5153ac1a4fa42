// SPDX-License-Identifier: GPL-2.0
/*
 * Power utilisation of a device (Documentation/metrics.rst, "Power").
 *
 * The firmware keeps, per die, a word in MiscRAM (0x54 + 4 * die): its low
 * 16 bits the utilisation in basis points (10000 = 100 %), its high 16
 * bits a counter it bumps at each new sample.  The metrics thread samples
 * every 50 ms; a sample counts only when every die's counter moved since
 * the previous one (and every die's value is at most 10000), and then as
 * the highest utilisation of the dice.  When the wall clock enters a new
 * minute the samples of the one that ended are rolled up into min, max and
 * mean; fewer than NEURON_TEL_POWER_MIN_SAMPLES of them give NO_DATA with
 * zeros.  Firmware below API 3 has no utilisation: INVALID.  Before the
 * first roll-up the status is NO_DATA.
 *
 * Every sample also keeps each die's word as read, for
 * stats/power/utilization_raw (2.29): the utilisation and counter, or
 * that the word could not be read (0xdeadbeef, not filled in by the
 * firmware, or all ones, a failed read); every die is unavailable below
 * API 3 and before the first sample.
 *
 * power_rollup_s shortens the "minute" for tests.
 */

#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/fw.h>

#include "telemetry.h"

/* MiscRAM word of die 0; die n's follows at + 4 * n. */
#define NEURON_TEL_POWER_REG		0x54
/* Lowest firmware API version with utilisation words. */
#define NEURON_TEL_POWER_MIN_API	3
/* Fewest samples a valid roll-up needs. */
#define NEURON_TEL_POWER_MIN_SAMPLES	60
/* Full utilisation, in basis points. */
#define NEURON_TEL_POWER_FULL		10000

static unsigned int power_rollup_s = 60;

static int neuron_tel_rollup_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 60);
}

static const struct kernel_param_ops neuron_tel_rollup_ops = {
	.set = neuron_tel_rollup_set,
	.get = param_get_uint,
};
module_param_cb(power_rollup_s, &neuron_tel_rollup_ops, &power_rollup_s, 0644);
MODULE_PARM_DESC(power_rollup_s,
		 "Test knob: seconds of a power utilisation roll-up (1 to 60; default 60, a minute)");

/* Words that are no sample: not filled in by the firmware, or a failed read. */
#define NEURON_TEL_POWER_NOT_READY	0xdeadbeef
#define NEURON_TEL_POWER_READ_FAILED	U32_MAX

/**
 * struct neuron_tel_power - a device's power utilisation
 * @lock: protects @stats and @raw
 * @stats: the last roll-up
 * @raw: each die's word at the last sample
 * @counter: per die, the sample counter last seen (metrics thread only)
 * @primed: @counter holds a first reading (metrics thread only)
 * @period: number of the roll-up period being sampled, wall-clock seconds
 *	over its length (metrics thread only)
 * @n: samples kept in @period (metrics thread only)
 * @min: their lowest (metrics thread only)
 * @max: their highest (metrics thread only)
 * @sum: their sum (metrics thread only)
 */
struct neuron_tel_power {
	/* protects stats and raw: the thread writes them, readers copy them */
	spinlock_t lock;
	struct neuron_tel_power_stats stats;
	struct neuron_tel_power_raw raw;
	u16 counter[NEURON_TEL_POWER_MAX_DICE];
	bool primed;
	u64 period;
	u32 n;
	u32 min;
	u32 max;
	u64 sum;
};

/**
 * neuron_tel_power_status_name() - a power status as text
 * @status: enum neuron_tel_power_status
 *
 * Return: "VALID", "NO_DATA" or "INVALID".
 */
const char *neuron_tel_power_status_name(u32 status)
{
	switch (status) {
	case NEURON_TEL_POWER_VALID:
		return "VALID";
	case NEURON_TEL_POWER_NO_DATA:
		return "NO_DATA";
	default:
		return "INVALID";
	}
}

static u32 neuron_tel_misc_read(struct neuron_device *nd, const struct neuron_dhal *dhal,
				u32 reg)
{
	return neuron_reg_read32(nd, dhal->layout->apb_bar, dhal->layout->misc_ram_offset + reg);
}

static void neuron_tel_power_publish(struct neuron_tel_power *p, u32 status, u64 epoch)
{
	struct neuron_tel_power_stats st = { .status = status, .epoch = epoch };

	if (status == NEURON_TEL_POWER_VALID) {
		st.min = p->min;
		st.max = p->max;
		st.avg = div_u64(p->sum, p->n);
	}
	spin_lock(&p->lock);
	p->stats = st;
	spin_unlock(&p->lock);
}

/* Period @period (of @len seconds) began: roll the one that ended up. */
static void neuron_tel_power_rollup(struct neuron_tel_power *p, u64 period, u32 len)
{
	if (p->period)
		neuron_tel_power_publish(p, p->n >= NEURON_TEL_POWER_MIN_SAMPLES ?
					 NEURON_TEL_POWER_VALID : NEURON_TEL_POWER_NO_DATA,
					 p->period * len);
	p->period = period;
	p->n = 0;
	p->sum = 0;
	p->min = U32_MAX;
	p->max = 0;
}

/**
 * neuron_tel_power_sample() - take one sample (the metrics thread)
 * @td: the plane's device state; the device is ready
 */
void neuron_tel_power_sample(struct neuron_tel_dev *td)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);
	struct neuron_tel_power *p = td->power;
	u32 len = READ_ONCE(power_rollup_s);
	u64 period = (u64)ktime_get_real_seconds() / len;
	unsigned int dice, die;
	u32 api, util = 0;
	bool keep = true;

	if (!p || !dhal)
		return;
	if (period != p->period)
		neuron_tel_power_rollup(p, period, len);
	dice = clamp_t(u32, dhal->layout->dice, 1, NEURON_TEL_POWER_MAX_DICE);
	api = neuron_tel_misc_read(td->nd, dhal, NEURON_FW_MBOX_API_VERSION);
	if (api < NEURON_TEL_POWER_MIN_API || api == U32_MAX) {
		neuron_tel_power_publish(p, NEURON_TEL_POWER_INVALID, 0);
		spin_lock(&p->lock);
		p->raw = (struct neuron_tel_power_raw){ .dice = dice };
		spin_unlock(&p->lock);
		p->primed = false;
		return;
	}
	for (die = 0; die < dice; die++) {
		u32 v = neuron_tel_misc_read(td->nd, dhal, NEURON_TEL_POWER_REG + 4 * die);
		u16 counter = v >> 16, bp = v & 0xffff;
		bool bad = v == NEURON_TEL_POWER_NOT_READY || v == NEURON_TEL_POWER_READ_FAILED;

		if (!p->primed || counter == p->counter[die] || bp > NEURON_TEL_POWER_FULL || bad)
			keep = false;
		p->counter[die] = counter;
		if (!bad)
			util = max_t(u32, util, bp);
		spin_lock(&p->lock);
		p->raw.dice = dice;
		p->raw.state[die] = bad ? NEURON_TEL_RAW_READ_ERROR : NEURON_TEL_RAW_OK;
		p->raw.util[die] = bp;
		p->raw.counter[die] = counter;
		spin_unlock(&p->lock);
	}
	p->primed = true;
	if (!keep)
		return;
	p->n++;
	p->sum += util;
	p->min = min(p->min, util);
	p->max = max(p->max, util);
}

/**
 * neuron_tel_power_get() - the last power utilisation roll-up of a device
 * @td: the plane's device state
 * @out: where it goes; NO_DATA with zeros before the first roll-up
 */
void neuron_tel_power_get(struct neuron_tel_dev *td, struct neuron_tel_power_stats *out)
{
	struct neuron_tel_power *p = td->power;

	if (!p) {
		*out = (struct neuron_tel_power_stats){ .status = NEURON_TEL_POWER_NO_DATA };
		return;
	}
	spin_lock(&p->lock);
	*out = p->stats;
	spin_unlock(&p->lock);
}

/**
 * neuron_tel_power_raw_get() - each die's power word at the last sample
 * @td: the plane's device state
 * @out: where it goes; every die NEURON_TEL_RAW_UNAVAILABLE before the
 *	first sample and with firmware below API 3
 */
void neuron_tel_power_raw_get(struct neuron_tel_dev *td, struct neuron_tel_power_raw *out)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);
	struct neuron_tel_power *p = td->power;
	u32 dice = dhal ? clamp_t(u32, dhal->layout->dice, 1, NEURON_TEL_POWER_MAX_DICE) : 1;

	if (!p) {
		*out = (struct neuron_tel_power_raw){ .dice = dice };
		return;
	}
	spin_lock(&p->lock);
	*out = p->raw;
	spin_unlock(&p->lock);
	/* Before the first sample: every die of the device, unavailable. */
	if (!out->dice)
		out->dice = dice;
}

/**
 * neuron_tel_power_init() - a device's power state: NO_DATA
 * @td: the plane's device state
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_tel_power_init(struct neuron_tel_dev *td)
{
	struct neuron_tel_power *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	spin_lock_init(&p->lock);
	p->stats.status = NEURON_TEL_POWER_NO_DATA;
	td->power = p;
	return 0;
}

/**
 * neuron_tel_power_fini() - free a device's power state
 * @td: the plane's device state, its metrics thread stopped
 */
void neuron_tel_power_fini(struct neuron_tel_dev *td)
{
	kfree(td->power);
	td->power = NULL;
}
