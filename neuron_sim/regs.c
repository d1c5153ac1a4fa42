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
 *
 * Each NeuronCore's block holds 256 semaphores behind four views (read, set,
 * add, subtract).  A semaphore's value lives once, in an atomic_t of a
 * per-device array, so adds and subtracts from several CPUs never lose an
 * update; the views' offsets never reach the sparse RAM.  The events next
 * to them are plain registers and stay in the sparse RAM.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
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
	else if (moff == NSIM_MISC_HEALTH_SEQ && !sd->heartbeat_stopped)
		/* The firmware's health checks run: the heartbeat moves at each read. */
		val = nsim_heartbeat_bump(nsim_misc(sd, moff));
	else if (sd->power_auto && moff >= NSIM_MISC_POWER &&
		 moff < NSIM_MISC_POWER + 4 * NSIM_POWER_DICE)
		/* A new utilisation sample at each read: the counter moves. */
		val = *nsim_misc(sd, moff) += 0x10000;
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
	case NSIM_MISC_FW_BUILD:
	case NSIM_MISC_ROUTING_ID:
	case NSIM_MISC_SERIAL_LO:
	case NSIM_MISC_SERIAL_HI:
		/* Written by the firmware only. */
		break;
	case NSIM_MISC_DOORBELL:
		/* A reset request, or else a mailbox request (mbox.c). */
		*nsim_misc(sd, moff) = val;
		if (val == 1 && *nsim_misc(sd, NSIM_MISC_RESET_TYPE))
			nsim_reset_ring(sd);
		else if (val == 1)
			nsim_mbox_ring(sd);
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

/**
 * nsim_reg_get() - value of a sparse BAR 0 register
 * @sd: the simulated device
 * @off: BAR 0 offset, 4-byte aligned, outside MiscRAM
 *
 * Return: the value stored, 0 if none.
 */
u32 nsim_reg_get(struct nsim_dev *sd, u64 off)
{
	void *entry = xa_load(&sd->regs, off / 4);

	return entry ? xa_to_value(entry) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_reg_get);

/**
 * nsim_reg_set() - store a sparse BAR 0 register
 * @sd: the simulated device
 * @off: BAR 0 offset, 4-byte aligned, outside MiscRAM
 * @val: the value; 0 frees the register's entry
 * @gfp: allocation flags for a new entry; GFP_ATOMIC from the register
 *	callbacks, which must not sleep
 *
 * Return: 0, or a negative errno when no memory could be found for a new
 * entry (the register then keeps its old value).
 */
int nsim_reg_set(struct nsim_dev *sd, u64 off, u32 val, gfp_t gfp)
{
	void *old;

	if (!val) {
		xa_erase(&sd->regs, off / 4);
		return 0;
	}
	old = xa_store(&sd->regs, off / 4, xa_mk_value(val), gfp);
	return xa_is_err(old) ? xa_err(old) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_reg_set);

/* BAR 0 offset of semaphore block @b's window (events, then the views). */
static u64 nsim_sem_window(const struct nsim_gen *gen, unsigned int b)
{
	unsigned int ts;

	if (b < gen->nc_count)
		return gen->nc_base + (u64)b * gen->nc_stride + NSIM_NC_EVENT_OFF;
	ts = b - gen->nc_count;
	return gen->ts_base + (u64)(ts / gen->ts_per_group) * gen->ts_group_stride +
	       (u64)(ts % gen->ts_per_group) * NSIM_TS_STRIDE;
}

/**
 * nsim_event_off() - BAR 0 offset of an event register
 * @gen: the generation
 * @nc: semaphore block (a NeuronCore, then the TOP_SPs), below
 *	nsim_sem_blocks()
 * @idx: event, below %NSIM_NC_EVENTS
 *
 * Return: the offset.
 */
u64 nsim_event_off(const struct nsim_gen *gen, unsigned int nc, unsigned int idx)
{
	return nsim_sem_window(gen, nc) + idx * 4;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_event_off);

static atomic_t *nsim_sem(struct nsim_dev *sd, unsigned int nc, unsigned int idx)
{
	return &sd->sems[nc * NSIM_NC_SEMS + idx];
}

/**
 * nsim_sem_get() - value of a semaphore
 * @sd: the simulated device
 * @nc: semaphore block, below nsim_sem_blocks()
 * @idx: semaphore, below %NSIM_NC_SEMS
 *
 * Return: the value.
 */
u32 nsim_sem_get(struct nsim_dev *sd, unsigned int nc, unsigned int idx)
{
	return atomic_read(nsim_sem(sd, nc, idx));
}
EXPORT_SYMBOL_IF_KUNIT(nsim_sem_get);

/**
 * nsim_sem_set() - set a semaphore, as a write to its set view does
 * @sd: the simulated device
 * @nc: semaphore block, below nsim_sem_blocks()
 * @idx: semaphore, below %NSIM_NC_SEMS
 * @val: the new value
 */
void nsim_sem_set(struct nsim_dev *sd, unsigned int nc, unsigned int idx, u32 val)
{
	atomic_set(nsim_sem(sd, nc, idx), val);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_sem_set);

/* The semaphore block whose views hold @off, and @off's offset in them. */
static bool nsim_sem_block(const struct nsim_gen *gen, u64 off, unsigned int *b, u32 *rel)
{
	const u32 views = NSIM_SEM_VIEWS * NSIM_NC_SEM_VIEW_SIZE;
	const u32 start = NSIM_NC_SEM_OFF - NSIM_NC_EVENT_OFF;
	u64 n, g;
	u32 r;

	if (gen->nc_count && off >= gen->nc_base) {
		n = div_u64_rem(off - gen->nc_base, gen->nc_stride, &r);
		if (n < gen->nc_count && r >= NSIM_NC_SEM_OFF && r - NSIM_NC_SEM_OFF < views) {
			*b = n;
			*rel = r - NSIM_NC_SEM_OFF;
			return true;
		}
	}
	if (!gen->ts_count || off < gen->ts_base)
		return false;
	for (g = 0; g * gen->ts_per_group < gen->ts_count; g++) {
		u64 base = gen->ts_base + g * gen->ts_group_stride;

		if (off < base)
			break;
		n = div_u64_rem(off - base, NSIM_TS_STRIDE, &r);
		if (n >= gen->ts_per_group || g * gen->ts_per_group + n >= gen->ts_count)
			continue;
		if (r >= start && r - start < views) {
			*b = gen->nc_count + g * gen->ts_per_group + n;
			*rel = r - start;
			return true;
		}
		return false;
	}
	return false;
}

/*
 * Whether @off is in one of the semaphore views of a NeuronCore or a
 * TOP_SP; if so the semaphore is returned and its view goes to @view.
 */
static atomic_t *nsim_sem_decode(struct nsim_dev *sd, u64 off,
				 enum nsim_sem_view *view)
{
	unsigned int b;
	u32 rel;

	if (!nsim_sem_block(sd->gen, off, &b, &rel))
		return NULL;
	*view = rel / NSIM_NC_SEM_VIEW_SIZE;
	return nsim_sem(sd, b, rel % NSIM_NC_SEM_VIEW_SIZE / 4);
}

/*
 * A write to a semaphore view.  atomic_add() and atomic_sub() wrap modulo
 * 2^32, as the hardware's signed arithmetic does.
 */
static void nsim_sem_write(atomic_t *sem, enum nsim_sem_view view, u32 val)
{
	switch (view) {
	case NSIM_SEM_ADD:
		atomic_add(val, sem);
		break;
	case NSIM_SEM_SUB:
		atomic_sub(val, sem);
		break;
	default:
		/* The read view acts as the set view. */
		atomic_set(sem, val);
		break;
	}
}

static u32 nsim_bar0_read(struct nsim_dev *sd, u64 off)
{
	enum nsim_sem_view view;
	unsigned int moff;
	atomic_t *sem;
	u32 val;

	if (off >= sd->gen->bar0_size)
		return ~0U;
	if (nsim_in_misc(sd, off, &moff))
		return nsim_misc_read(sd, moff);
	if (off == sd->gen->qemu_reset_reg)
		return 0;
	sem = nsim_sem_decode(sd, off, &view);
	if (sem)
		return atomic_read(sem);
	if (nsim_dma_read(sd, off, &val))
		return val;

	return nsim_reg_get(sd, off);
}

static void nsim_bar0_write(struct nsim_dev *sd, u64 off, u32 val)
{
	enum nsim_sem_view view;
	unsigned int moff;
	atomic_t *sem;
	int ret;

	if (off >= sd->gen->bar0_size)
		return;
	if (nsim_in_misc(sd, off, &moff)) {
		nsim_misc_write(sd, moff, val);
		return;
	}
	if (off == sd->gen->qemu_reset_reg)
		return;
	sem = nsim_sem_decode(sd, off, &view);
	if (sem) {
		nsim_sem_write(sem, view, val);
		return;
	}

	ret = nsim_reg_set(sd, off, val, GFP_ATOMIC);
	if (ret)
		dev_warn_ratelimited(&sd->dev, "register 0x%llx: write dropped (%d)\n",
				     off, ret);
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

	/* The register BAR is a model, not memory: it has no pages to map. */
	if (bar != NSIM_BAR_MEM)
		return -EOPNOTSUPP;
	if (!sd->mem || !PAGE_ALIGNED(off) ||
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

/*
 * The physical address of the RAM page at @off of the memory BAR, for
 * peer-direct users: the core asks only while the BAR is mapped.
 */
static int nsim_mem_phys(void *ctx, unsigned int bar, u64 off, phys_addr_t *phys)
{
	struct nsim_dev *sd = ctx;

	if (bar != NSIM_BAR_MEM || !sd->mem || !PAGE_ALIGNED(off) || off >= sd->mem_size)
		return -EINVAL;
	*phys = page_to_phys(vmalloc_to_page(sd->mem + off));
	return 0;
}

/*
 * CPU copies to and from device memory: plain copies into the RAM window,
 * under dma_lock, so each is whole to the engines, which copy under it too.
 */
static int nsim_mem_io(void *ctx, unsigned int bar, const struct neuron_bar *b, u64 off,
		       void *buf, size_t len, bool to_bar)
{
	struct nsim_dev *sd = ctx;
	int ret = 0;

	spin_lock(&sd->dma_lock);
	if (bar != NSIM_BAR_MEM || !sd->mem || off > sd->mem_size || len > sd->mem_size - off)
		ret = -EOPNOTSUPP;
	else if (to_bar)
		memcpy(sd->mem + off, buf, len);
	else
		memcpy(buf, sd->mem + off, len);
	spin_unlock(&sd->dma_lock);
	return ret;
}

/*
 * The same between user memory and the RAM window, page faults disabled
 * (the engines' lock is a spinlock): a page that is not there stops it.
 */
static int nsim_mem_user_io(void *ctx, unsigned int bar, const struct neuron_bar *b, u64 off,
			    void __user *ubuf, size_t len, bool to_bar, size_t *done)
{
	struct nsim_dev *sd = ctx;
	unsigned long left;
	int ret = 0;

	spin_lock(&sd->dma_lock);
	if (bar != NSIM_BAR_MEM || !sd->mem || off > sd->mem_size || len > sd->mem_size - off) {
		ret = -EOPNOTSUPP;
	} else {
		pagefault_disable();
		/* The _inatomic forms: no zeroing of what a fault left uncopied. */
		if (to_bar)
			left = __copy_from_user_inatomic(sd->mem + off, ubuf, len);
		else
			left = __copy_to_user_inatomic(ubuf, sd->mem + off, len);
		pagefault_enable();
		*done = len - left;
		if (left)
			ret = -EFAULT;
	}
	spin_unlock(&sd->dma_lock);
	return ret;
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
 * @sd: the simulated device, zeroed; @id, @rid and @gen already set
 * @fault: fault switch position from creation on
 *
 * Allocates the semaphores (1 KiB per NeuronCore); the sparse registers
 * and BAR 4 grow on use.  On failure nothing is left to undo.
 *
 * Return: 0, or -ENOMEM.
 */
int nsim_regs_init(struct nsim_dev *sd, enum nsim_fault fault)
{
	u64 serial = NSIM_SERIAL_BASE | ((u64)sd->gen->gen << 16) | sd->id;

	sd->sems = kcalloc(nsim_sem_blocks(sd->gen) * NSIM_NC_SEMS, sizeof(*sd->sems),
			   GFP_KERNEL);
	if (!sd->sems)
		return -ENOMEM;

	spin_lock_init(&sd->lock);
	xa_init(&sd->regs);
	INIT_DELAYED_WORK(&sd->reset_work, nsim_reset_work);
	nsim_dma_init(sd);
	mutex_init(&sd->nq_lock);
	nsim_mbox_init(sd);

	sd->fault = fault;
	*nsim_misc(sd, NSIM_MISC_API_VERSION) = NSIM_FW_API_VERSION;
	*nsim_misc(sd, NSIM_MISC_FW_BUILD) = NSIM_FW_BUILD;
	*nsim_misc(sd, NSIM_MISC_ROUTING_ID) = sd->rid;
	*nsim_misc(sd, NSIM_MISC_SERIAL_LO) = lower_32_bits(serial);
	*nsim_misc(sd, NSIM_MISC_SERIAL_HI) = upper_32_bits(serial);
	return 0;
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
	desc->mem_phys = nsim_mem_phys;
	desc->mem_io = nsim_mem_io;
	desc->mem_user_io = nsim_mem_user_io;
	/* RAM: the CPU is worth it at any size the DMA layer allows. */
	desc->mem_io_max[0] = U32_MAX;
	desc->mem_io_max[1] = U32_MAX;
	desc->reg_ops = &nsim_reg_ops;
	desc->ctx = sd;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_regs_fill_desc);

/**
 * nsim_regs_stop() - wait for the simulated firmware to go quiet
 * @sd: the simulated device, no longer known to the core
 *
 * Cancels a reset in flight and waits for its work item if it is running;
 * the same for a delayed mailbox answer; stops the DMA engines and waits
 * for their work item.
 */
void nsim_regs_stop(struct nsim_dev *sd)
{
	cancel_delayed_work_sync(&sd->reset_work);
	nsim_mbox_stop(sd);
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
	kfree(sd->sems);
	sd->sems = NULL;
	mutex_destroy(&sd->nq_lock);
}
EXPORT_SYMBOL_IF_KUNIT(nsim_regs_fini);
