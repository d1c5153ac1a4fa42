// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim register model.
 *
 * BAR 0 is a 1 GiB (v2) or 4 GiB (v3, v4) register space.  The simulated
 * firmware's MiscRAM block is a plain array with a few registers that act;
 * every other register is sparse RAM (an xarray holding the non-zero ones),
 * so the large space costs only what the core writes.  BAR 4 is a RAM window
 * standing in for device memory, allocated while the BAR is mapped.
 *
 * The reset handshake: the core writes the reset type to MiscRAM 0x1ec and
 * 1 to the doorbell (0x800), then polls 0x1ec for 0 and the firmware status
 * (0x808) for its reset-in-progress bit to clear.  The doorbell sets that
 * bit; reset_delay_ms later a work item clears it and then 0x1ec.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <kunit/visibility.h>

#include "sim.h"

static unsigned int nsim_reset_delay_ms = 20;
module_param_named(reset_delay_ms, nsim_reset_delay_ms, uint, 0644);
MODULE_PARM_DESC(reset_delay_ms,
		 "Time the simulated firmware takes to reset a device, in ms (default: 20; 0: at once)");

static const char * const nsim_fault_names[NSIM_FAULT_COUNT] = {
	[NSIM_FAULT_NONE]	= "none",
	[NSIM_FAULT_RESET_FAIL]	= "reset_fail",
	[NSIM_FAULT_RESET_HANG]	= "reset_hang",
	[NSIM_FAULT_RID_HANG]	= "rid_hang",
};

/**
 * nsim_fault_name() - name of a fault switch position
 * @fault: the fault
 *
 * Return: the name user space writes to select @fault.
 */
const char *nsim_fault_name(enum nsim_fault fault)
{
	if (fault >= NSIM_FAULT_COUNT)
		return "?";
	return nsim_fault_names[fault];
}

/**
 * nsim_fault_parse() - fault named by a string
 * @s: the name, without trailing white space
 * @fault: where the fault goes
 *
 * Return: 0, or -EINVAL when @s names no fault.
 */
int nsim_fault_parse(const char *s, enum nsim_fault *fault)
{
	int i = match_string(nsim_fault_names, NSIM_FAULT_COUNT, s);

	if (i < 0)
		return -EINVAL;
	*fault = i;
	return 0;
}

/**
 * nsim_fault_get() - current fault switch of a device
 * @sd: the simulated device
 *
 * Return: the fault.
 */
enum nsim_fault nsim_fault_get(struct nsim_dev *sd)
{
	enum nsim_fault fault;

	spin_lock(&sd->lock);
	fault = sd->fault;
	spin_unlock(&sd->lock);
	return fault;
}

/**
 * nsim_fault_set() - set the fault switch of a device
 * @sd: the simulated device
 * @fault: the new fault
 *
 * Reset faults apply from the next doorbell; rid_hang from the next read of
 * the routing-id register.
 */
void nsim_fault_set(struct nsim_dev *sd, enum nsim_fault fault)
{
	spin_lock(&sd->lock);
	sd->fault = fault;
	spin_unlock(&sd->lock);
}

static u32 *nsim_misc(struct nsim_dev *sd, unsigned int moff)
{
	return &sd->misc[moff / 4];
}

/* Finish the reset in flight.  Called with sd->lock held. */
static void nsim_reset_finish(struct nsim_dev *sd)
{
	lockdep_assert_held(&sd->lock);

	if (sd->reset_fault != NSIM_FAULT_RESET_FAIL)
		*nsim_misc(sd, NSIM_MISC_FW_STATUS) &= ~NSIM_FW_STATUS_RESETTING;
	*nsim_misc(sd, NSIM_MISC_RESET_TYPE) = 0;
	*nsim_misc(sd, NSIM_MISC_DOORBELL) = 0;
	sd->reset_pending = false;
	sd->resets++;
}

static void nsim_reset_work(struct work_struct *work)
{
	struct nsim_dev *sd = container_of(to_delayed_work(work),
					   struct nsim_dev, reset_work);

	spin_lock(&sd->lock);
	if (sd->reset_pending)
		nsim_reset_finish(sd);
	spin_unlock(&sd->lock);
}

/*
 * The doorbell rang with a reset type set.  Called with sd->lock held.  A
 * ring while a reset is in flight changes nothing; with reset_hang the
 * request is ignored, so the core's periodic re-ring is the next chance.
 */
static void nsim_reset_ring(struct nsim_dev *sd)
{
	unsigned int delay_ms;

	lockdep_assert_held(&sd->lock);

	if (sd->reset_pending || sd->fault == NSIM_FAULT_RESET_HANG)
		return;

	sd->reset_fault = sd->fault;
	sd->reset_pending = true;
	*nsim_misc(sd, NSIM_MISC_FW_STATUS) |= NSIM_FW_STATUS_RESETTING;

	delay_ms = READ_ONCE(nsim_reset_delay_ms);
	if (!delay_ms)
		nsim_reset_finish(sd);
	else
		schedule_delayed_work(&sd->reset_work, msecs_to_jiffies(delay_ms));
}

static u32 nsim_misc_read(struct nsim_dev *sd, unsigned int moff)
{
	u32 val;

	spin_lock(&sd->lock);
	if (moff == NSIM_MISC_ROUTING_ID && sd->fault == NSIM_FAULT_RID_HANG)
		val = NSIM_REG_NOT_READY;
	else
		val = *nsim_misc(sd, moff);
	spin_unlock(&sd->lock);
	return val;
}

static void nsim_misc_write(struct nsim_dev *sd, unsigned int moff, u32 val)
{
	spin_lock(&sd->lock);
	switch (moff) {
	case NSIM_MISC_API_VERSION:
	case NSIM_MISC_ROUTING_ID:
	case NSIM_MISC_SERIAL_LO:
	case NSIM_MISC_SERIAL_HI:
		/* Written by the firmware only. */
		break;
	case NSIM_MISC_DOORBELL:
		/*
		 * Only reset requests are served; any other request (the
		 * firmware mailbox) is left latched, unanswered.
		 */
		*nsim_misc(sd, moff) = val;
		if (val == 1 && *nsim_misc(sd, NSIM_MISC_RESET_TYPE))
			nsim_reset_ring(sd);
		break;
	default:
		*nsim_misc(sd, moff) = val;
		break;
	}
	spin_unlock(&sd->lock);
}

/* Whether @off is in MiscRAM; if so its offset there goes to @moff. */
static bool nsim_in_misc(struct nsim_dev *sd, u64 off, unsigned int *moff)
{
	u64 base = sd->gen->misc_base;

	if (off < base || off - base >= NSIM_MISC_SIZE)
		return false;
	*moff = off - base;
	return true;
}

static u32 nsim_bar0_read(struct nsim_dev *sd, u64 off)
{
	unsigned int moff;
	void *entry;
	u32 val;

	if (off >= sd->gen->bar0_size)
		return ~0U;
	if (nsim_in_misc(sd, off, &moff))
		return nsim_misc_read(sd, moff);
	if (off == sd->gen->qemu_reset_reg)
		return 0;
	if (nsim_dma_read(sd, off, &val))
		return val;

	entry = xa_load(&sd->regs, off / 4);
	return entry ? xa_to_value(entry) : 0;
}

static void nsim_bar0_write(struct nsim_dev *sd, u64 off, u32 val)
{
	unsigned int moff;
	void *old;

	if (off >= sd->gen->bar0_size)
		return;
	if (nsim_in_misc(sd, off, &moff)) {
		nsim_misc_write(sd, moff, val);
		return;
	}
	if (off == sd->gen->qemu_reset_reg)
		return;

	if (!val) {
		xa_erase(&sd->regs, off / 4);
	} else {
		old = xa_store(&sd->regs, off / 4, xa_mk_value(val), GFP_ATOMIC);
		if (xa_is_err(old))
			dev_warn_ratelimited(&sd->dev,
					     "register 0x%llx: write dropped (%d)\n",
					     off, xa_err(old));
	}
	/* DMA registers that act (doorbells, queue reset, state) */
	nsim_dma_write(sd, off, val);
}

static u32 nsim_mem_read(struct nsim_dev *sd, u64 off)
{
	if (!sd->mem || off > sd->mem_size - sizeof(u32))
		return ~0U;
	return le32_to_cpup(sd->mem + off);
}

static void nsim_mem_write(struct nsim_dev *sd, u64 off, u32 val)
{
	__le32 *p;

	if (!sd->mem || off > sd->mem_size - sizeof(u32))
		return;
	p = sd->mem + off;
	*p = cpu_to_le32(val);
}

static u32 nsim_read32(void *ctx, unsigned int bar, u64 off)
{
	struct nsim_dev *sd = ctx;

	switch (bar) {
	case NSIM_BAR_REGS:
		return nsim_bar0_read(sd, off);
	case NSIM_BAR_MEM:
		return nsim_mem_read(sd, off);
	default:
		return ~0U;
	}
}

static void nsim_write32(void *ctx, unsigned int bar, u64 off, u32 val)
{
	struct nsim_dev *sd = ctx;

	switch (bar) {
	case NSIM_BAR_REGS:
		nsim_bar0_write(sd, off, val);
		break;
	case NSIM_BAR_MEM:
		nsim_mem_write(sd, off, val);
		break;
	default:
		break;
	}
}

static const struct neuron_reg_ops nsim_reg_ops = {
	.read32 = nsim_read32,
	.write32 = nsim_write32,
};

static int nsim_map_bar(void *ctx, unsigned int bar, bool wc,
			struct neuron_bar *out)
{
	struct nsim_dev *sd = ctx;
	void *mem;

	switch (bar) {
	case NSIM_BAR_REGS:
		out->iomem = NULL;
		out->phys = 0;
		out->size = sd->gen->bar0_size;
		return 0;
	case NSIM_BAR_MEM:
		if (sd->mem)
			return -EBUSY;
		/*
		 * Many devices can ask for more than the machine has: fail
		 * this one (the core carries on without device memory)
		 * rather than wake the OOM killer.
		 */
		mem = __vmalloc(sd->mem_size,
				GFP_KERNEL | __GFP_ZERO | __GFP_NORETRY | __GFP_NOWARN);
		if (!mem)
			return -ENOMEM;
		spin_lock(&sd->dma_lock);
		sd->mem = mem;
		spin_unlock(&sd->dma_lock);
		out->iomem = NULL;
		out->phys = 0;
		out->size = sd->mem_size;
		return 0;
	default:
		return -ENODEV;
	}
}

/*
 * Map device memory into a process: the pages of the RAM window, each
 * mapping holding a reference on its pages, so they outlive the device if
 * the process keeps the mapping.
 */
static int nsim_mmap_bar(void *ctx, unsigned int bar, u64 off, struct vm_area_struct *vma)
{
	struct nsim_dev *sd = ctx;
	unsigned long len = vma->vm_end - vma->vm_start, addr;
	u64 end;
	int ret;

	if (bar != NSIM_BAR_MEM || !sd->mem || !PAGE_ALIGNED(off) ||
	    check_add_overflow(off, (u64)len, &end) || end > sd->mem_size)
		return -EINVAL;
	for (addr = 0; addr < len; addr += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + addr,
				     vmalloc_to_page(sd->mem + off + addr));
		if (ret)
			return ret;
	}
	return 0;
}

static void nsim_unmap_bar(void *ctx, unsigned int bar, struct neuron_bar *b)
{
	struct nsim_dev *sd = ctx;
	void *mem;

	if (bar == NSIM_BAR_MEM) {
		/* The DMA engines use the RAM under dma_lock only. */
		spin_lock(&sd->dma_lock);
		mem = sd->mem;
		sd->mem = NULL;
		spin_unlock(&sd->dma_lock);
		vfree(mem);
	}
}

/**
 * nsim_regs_init() - set up the register state of a new device
 * @sd: the simulated device; @id, @rid and @gen already set
 * @fault: fault switch position from creation on
 *
 * Allocates nothing: the sparse registers and BAR 4 grow on use.
 */
void nsim_regs_init(struct nsim_dev *sd, enum nsim_fault fault)
{
	u64 serial = NSIM_SERIAL_BASE | ((u64)sd->gen->gen << 16) | sd->id;

	spin_lock_init(&sd->lock);
	xa_init(&sd->regs);
	INIT_DELAYED_WORK(&sd->reset_work, nsim_reset_work);
	nsim_dma_init(sd);

	sd->fault = fault;
	*nsim_misc(sd, NSIM_MISC_API_VERSION) = NSIM_FW_API_VERSION;
	*nsim_misc(sd, NSIM_MISC_ROUTING_ID) = sd->rid;
	*nsim_misc(sd, NSIM_MISC_SERIAL_LO) = lower_32_bits(serial);
	*nsim_misc(sd, NSIM_MISC_SERIAL_HI) = upper_32_bits(serial);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_regs_init);

/**
 * nsim_regs_fill_desc() - point a bus description at the register model
 * @sd: the simulated device
 * @desc: the description to complete (BAR and register callbacks, context)
 */
void nsim_regs_fill_desc(struct nsim_dev *sd, struct neuron_bus_desc *desc)
{
	desc->map_bar = nsim_map_bar;
	desc->unmap_bar = nsim_unmap_bar;
	desc->mmap_bar = nsim_mmap_bar;
	desc->reg_ops = &nsim_reg_ops;
	desc->ctx = sd;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_regs_fill_desc);

/**
 * nsim_regs_stop() - wait for the simulated firmware to go quiet
 * @sd: the simulated device, no longer known to the core
 *
 * Cancels a reset in flight and waits for its work item if it is running;
 * stops the DMA engines and waits for their work item.
 */
void nsim_regs_stop(struct nsim_dev *sd)
{
	cancel_delayed_work_sync(&sd->reset_work);
	nsim_dma_stop(sd);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_regs_stop);

/**
 * nsim_regs_fini() - free the register state
 * @sd: the simulated device, stopped with nsim_regs_stop()
 */
void nsim_regs_fini(struct nsim_dev *sd)
{
	nsim_dma_fini(sd);
	vfree(sd->mem);
	sd->mem = NULL;
	xa_destroy(&sd->regs);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_regs_fini);
