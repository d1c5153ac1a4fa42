// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl handlers: register access from user space (BAR_READ, BAR_WRITE).
 *
 * The ABI has user space name registers by "address": the base
 * DEVICE_INFO reports for a BAR plus the register's offset.  The base is an
 * opaque per-device value, never a kernel address: it encodes the device
 * index (so an address formed on another device is refused) and random
 * bits, and is fixed for the life of the device.  Only registers inside
 * the windows the generation's DHAL lists are reachable, each window read
 * only or read-write.  The registers of a NeuronCore's window and of its
 * TOP_SPs' windows belong to that core (the DHAL's window data says which
 * core each block belongs to): while another process holds the core
 * (reserved it, or reset it: state.c), they are out of reach; cores
 * nobody holds stay reachable.  Anything refused is refused before any
 * register is touched, so a refused call has no effect.  Holding is
 * checked once per call, when its addresses are: a core taken by another
 * process after that does not stop a call already past its checks.
 * The ring base registers of the DMA queues are left out of every window:
 * they hold addresses of the driver's own memory.
 */

#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include <neuron/udma.h>

#include "device/device.h"

/* Most registers one BAR_READ or BAR_WRITE call takes. */
#define NEURON_BAR_RW_MAX	4096

/* The opaque base of @nd's register BAR, made on first use. */
static u64 neuron_bar_token(struct neuron_device *nd)
{
	u64 token = READ_ONCE(nd->bar_token);
	u64 old;

	if (token)
		return token;
	/* Bits 48-54 random (never all zero), 40-46 index + 1, 0-39 offset. */
	token = (u64)((get_random_u32() & 0x7f) | 1) << 48 |
		(u64)(nd->index + 1) << 40;
	old = cmpxchg(&nd->bar_token, 0, token);
	return old ? old : token;
}

/**
 * neuron_ioctl_bar_describe() - the BAR fields of NEURON_IOCTL_DEVICE_INFO
 * @nd: the device
 * @info: filled in: entry i describes PCI BAR 2 * i
 *
 * Only the register BAR is reachable from user space; other entries stay 0.
 */
void neuron_ioctl_bar_describe(struct neuron_device *nd, struct neuron_ioctl_device_info *info)
{
	unsigned int bar = nd->dhal.dhal->layout->apb_bar;

	if (bar % 2 || bar / 2 >= NEURON_MAX_BARS || !nd->bars[bar].size)
		return;
	info->bar_address[bar / 2] = neuron_bar_token(nd);
	info->bar_size[bar / 2] = nd->bars[bar].size;
}

/**
 * neuron_reg_window_lookup() - the window a register is in, and its core
 * @user: the generation's user-space tables, or NULL
 * @off: offset of the register in the register BAR
 * @access: NEURON_REG_READ or NEURON_REG_WRITE
 * @nc: set, on success, to the NeuronCore the register belongs to, or -1
 *	when it belongs to none
 *
 * Return: 0; -EPERM when no window holds @off, when its window does not
 * allow @access, or when the window charges @off to no core a device can
 * have (a malformed table: refused rather than left open).
 */
int neuron_reg_window_lookup(const struct neuron_dhal_user *user, u64 off, u32 access, int *nc)
{
	const struct neuron_dhal_reg_window *w;
	unsigned int i;
	u64 unit;

	for (i = 0; user && i < user->n_reg_windows; i++) {
		w = &user->reg_windows[i];
		if (off < w->offset || off - w->offset >= w->size)
			continue;
		if ((w->access & access) != access)
			return -EPERM;
		if (!w->unit_size) {
			*nc = -1;
			return 0;
		}
		if (!w->units_per_nc)
			return -EPERM;
		unit = w->first_unit + div64_u64(off - w->offset, w->unit_size);
		unit = div_u64(unit, w->units_per_nc);
		if (unit >= NEURON_MAX_NC)
			return -EPERM;
		*nc = unit;
		return 0;
	}
	return -EPERM;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_reg_window_lookup);

/**
 * neuron_reg_user_check() - whether user space may reach a register
 * @nd: the device, bound to its DHAL
 * @off: offset of the register in the register BAR
 * @access: NEURON_REG_READ or NEURON_REG_WRITE
 * @nc: set, on success, to the NeuronCore the register belongs to, or -1
 *
 * The DHAL's windows (neuron_reg_window_lookup()) without the ring base
 * registers of the DMA queues, which hold addresses of the driver's own
 * memory.  For BAR_READ, BAR_WRITE and the registers user space has the
 * firmware read.
 *
 * Return: 0, or -EPERM.
 */
int neuron_reg_user_check(struct neuron_device *nd, u64 off, u32 access, int *nc)
{
	const struct neuron_dhal *dhal = nd->dhal.dhal;
	int ret;

	ret = neuron_reg_window_lookup(dhal->user, off, access, nc);
	if (ret)
		return ret;
	if (dhal->udma && dhal->udma->bar == dhal->layout->apb_bar &&
	    neuron_udma_reg_is_ring_base(dhal->udma, off))
		return -EPERM;
	return 0;
}

/*
 * The offset @addr names in the register BAR, if @access is allowed there;
 * the core it belongs to in @nc (-1: none).
 */
static int neuron_bar_offset(struct neuron_device *nd, u64 addr, u32 access, u64 *off, int *nc)
{
	u64 size = nd->bars[nd->dhal.dhal->layout->apb_bar].size;
	u64 token = READ_ONCE(nd->bar_token);
	u64 o;
	int ret;

	if (!token || addr < token || size < 4)
		return -EINVAL;
	o = addr - token;
	if (o > size - 4 || (o & 3))
		return -EINVAL;
	ret = neuron_reg_user_check(nd, o, access, nc);
	if (!ret)
		*off = o;
	return ret;
}

/*
 * Read the request, check its BAR and count, and turn its addresses into
 * offsets (@offs, @count entries, kvfree() it) allowing @access, none of
 * them in a core another process holds.
 */
static int neuron_bar_prepare(struct neuron_device *nd, void __user *arg, u32 access,
			      struct neuron_ioctl_bar_rw *req, u64 **offs)
{
	bool foreign_known = false;
	u32 foreign = 0;
	u64 *o;
	u32 i;
	int ret, nc;

	*offs = NULL;
	if (copy_from_user(req, arg, sizeof(*req)))
		return -EFAULT;
	if (req->bar != nd->dhal.dhal->layout->apb_bar || !nd->bars[req->bar].size)
		return -EINVAL;
	if (req->count > NEURON_BAR_RW_MAX)
		return -E2BIG;
	if (!req->count)
		return 0;

	o = kvmalloc_array(req->count, sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	if (copy_from_user(o, neuron_user_ptr(req->address), req->count * sizeof(*o))) {
		ret = -EFAULT;
		goto err;
	}
	for (i = 0; i < req->count; i++) {
		ret = neuron_bar_offset(nd, o[i], access, &o[i], &nc);
		if (ret)
			goto err;
		if (nc < 0)
			continue;
		/* Who holds what: asked once per call, at its first core register. */
		if (!foreign_known) {
			foreign = neuron_foreign_cores(nd, task_tgid(current));
			foreign_known = true;
		}
		if (foreign & BIT(nc)) {
			ret = -EACCES;
			goto err;
		}
	}
	*offs = o;
	return 0;
err:
	kvfree(o);
	return ret;
}

/*
 * BAR_READ (@access NEURON_REG_READ) and BAR_WRITE: every address is checked
 * and the values copied in before the first register is touched.
 */
static long neuron_ioctl_bar_rw(struct neuron_file *nf, void __user *arg, u32 access)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_ioctl_bar_rw req;
	u32 *vals = NULL;
	size_t bytes;
	u64 *offs;
	u32 i;
	int ret;

	ret = neuron_bar_prepare(nd, arg, access, &req, &offs);
	if (ret || !req.count)
		return ret;
	bytes = req.count * sizeof(*vals);
	vals = kvmalloc(bytes, GFP_KERNEL);
	if (!vals) {
		ret = -ENOMEM;
		goto out;
	}
	if (access == NEURON_REG_READ) {
		for (i = 0; i < req.count; i++)
			vals[i] = neuron_reg_read32(nd, req.bar, offs[i]);
		if (copy_to_user(neuron_user_ptr(req.data), vals, bytes))
			ret = -EFAULT;
	} else if (copy_from_user(vals, neuron_user_ptr(req.data), bytes)) {
		ret = -EFAULT;
	} else {
		for (i = 0; i < req.count; i++)
			neuron_reg_write32(nd, req.bar, offs[i], vals[i]);
	}
out:
	kvfree(vals);
	kvfree(offs);
	return ret;
}

/**
 * neuron_ioctl_bar_read() - NEURON_IOCTL_BAR_READ
 * @nf: the file
 * @arg: struct neuron_ioctl_bar_rw: @count addresses read from @address,
 *	@count 32-bit values written to @data
 *
 * Return: 0; -EINVAL for a BAR other than the register BAR, or an address
 * that is not a 4-aligned register of this device's register BAR; -EPERM
 * for a register outside the readable windows or a DMA queue's ring base
 * register; -EACCES for a register of
 * a NeuronCore (its window or its TOP_SPs') that another process holds;
 * -E2BIG for more than 4096 registers; -EFAULT; -ENOMEM.  On error no
 * register was read.
 */
long neuron_ioctl_bar_read(struct neuron_file *nf, void __user *arg)
{
	return neuron_ioctl_bar_rw(nf, arg, NEURON_REG_READ);
}

/**
 * neuron_ioctl_bar_write() - NEURON_IOCTL_BAR_WRITE
 * @nf: the file
 * @arg: struct neuron_ioctl_bar_rw: @count addresses read from @address,
 *	@count 32-bit values read from @data and written in order
 *
 * Return: as neuron_ioctl_bar_read(), with the writable windows: -EPERM
 * outside them, -EACCES for a register of a core another process holds.
 * On error no register was written.
 */
long neuron_ioctl_bar_write(struct neuron_file *nf, void __user *arg)
{
	return neuron_ioctl_bar_rw(nf, arg, NEURON_REG_WRITE);
}
