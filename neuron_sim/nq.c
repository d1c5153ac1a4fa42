// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim notification queues.
 *
 * A notification queue is a ring in host or device memory that the device
 * writes entries into.  The driver programs it into a slot of a notific
 * block in BAR 0: base address (low, high), size in bytes (a power of two;
 * 0 halts the queue) and head, the byte offset in the ring where the device
 * puts its next entry.  These registers are plain sparse RAM; the simulated
 * device only reads them, and advances the head as it produces.
 *
 * The simulated device never produces an entry by itself: the nq_inject
 * debugfs file makes it produce one (nsim_nq_inject()), written where the
 * slot's registers point, through the address resolution the DMA engines
 * use (nsim_dma_ring_write()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "sim.h"

/* Bytes of BAR 0 from a notific block's start to the end of its last slot. */
#define NSIM_NQ_BLOCK_SPAN	(NSIM_NQ_SLOT_OFF + NSIM_NQ_SLOTS * NSIM_NQ_SLOT_SIZE)

/**
 * nsim_nq_parse() - parse a line written to the nq_inject file
 * @line: one line "BLOCK SLOT WORD [WORD...]", fields separated by blanks,
 *	white space around ignored; modified
 * @bar0_size: size of the device's BAR 0
 * @e: where the entry goes
 *
 * BLOCK is hexadecimal, with or without "0x": a 4-aligned BAR 0 offset
 * whose slots all lie inside BAR 0.  SLOT is decimal, below
 * %NSIM_NQ_SLOTS.  Then 1 to %NSIM_NQ_MAX_WORDS words, each a hexadecimal
 * 32-bit value with or without "0x".
 *
 * Return: 0, or -EINVAL when @line is anything else.
 */
int nsim_nq_parse(char *line, u64 bar0_size, struct nsim_nq_entry *e)
{
	unsigned int n = 0;
	char *t;

	line = strim(line);
	/* One line: kstrto*() would take a newline ending a field. */
	if (strchr(line, '\n'))
		return -EINVAL;
	while ((t = strsep(&line, " \t")) != NULL) {
		if (!*t)
			continue;
		if (n == 0) {
			if (kstrtou64(t, 16, &e->block) || e->block % 4 ||
			    e->block >= bar0_size ||
			    bar0_size - e->block < NSIM_NQ_BLOCK_SPAN)
				return -EINVAL;
		} else if (n == 1) {
			if (kstrtouint(t, 10, &e->slot) || e->slot >= NSIM_NQ_SLOTS)
				return -EINVAL;
		} else {
			if (n - 2 >= NSIM_NQ_MAX_WORDS ||
			    kstrtou32(t, 16, &e->words[n - 2]))
				return -EINVAL;
		}
		n++;
	}
	if (n < 3)
		return -EINVAL;
	e->nwords = n - 2;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_nq_parse);

/**
 * nsim_nq_inject() - make a simulated device produce one notification
 * @sd: the simulated device
 * @e: the entry and the queue slot it goes to, as nsim_nq_parse() checks
 *	them
 *
 * Reads the slot's base, size and head; writes the entry's words at the
 * head, word k at base + ((head + 4k) mod size); then advances the head by
 * the entry's size, modulo the ring size.  The head is published after the
 * words.
 *
 * Context: process context; takes @sd->nq_lock, then the DMA lock.
 *
 * Return: 0; -EIO when the size is 0, not a power of two or smaller than
 * the entry, or the head is not a 4-aligned offset below the size;
 * -EFAULT when an address of the entry resolves to no memory; -ENODEV once
 * the device is stopped; -ENOMEM when the new head could not be stored (the
 * words are then written but, the head not having moved, not produced).
 * On error the head is unchanged and @sd->nq_injected not counted.
 */
int nsim_nq_inject(struct nsim_dev *sd, const struct nsim_nq_entry *e)
{
	u64 regs = e->block + NSIM_NQ_SLOT_OFF + (u64)e->slot * NSIM_NQ_SLOT_SIZE;
	u32 len = e->nwords * 4, size, head;
	u64 base;
	int ret;

	mutex_lock(&sd->nq_lock);
	base = nsim_reg_get(sd, regs + NSIM_NQ_BASE_LO) |
	       (u64)nsim_reg_get(sd, regs + NSIM_NQ_BASE_HI) << 32;
	size = nsim_reg_get(sd, regs + NSIM_NQ_SIZE);
	head = nsim_reg_get(sd, regs + NSIM_NQ_HEAD);
	if (!is_power_of_2(size) || size < len || head >= size || head % 4) {
		ret = -EIO;
		goto out;
	}
	ret = nsim_dma_ring_write(sd, base, size, head, e->words, e->nwords);
	if (ret)
		goto out;
	/*
	 * The entry before the head that announces it: pairs with the
	 * ordering of the consumer's read of the head before the entry.
	 */
	smp_wmb();
	ret = nsim_reg_set(sd, regs + NSIM_NQ_HEAD, (head + len) & (size - 1), GFP_KERNEL);
	if (!ret)
		sd->nq_injected++;
out:
	mutex_unlock(&sd->nq_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_nq_inject);
