/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels the Neuron driver supports
 * (6.1 and later), hidden behind one spelling.
 */
#ifndef _NEURON_COMPAT_H
#define _NEURON_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>

/*
 * Symbol namespaces: every inter-module symbol of the driver lives in the
 * NEURON namespace.  Export with EXPORT_SYMBOL_NS_GPL(sym, NEURON_NS) and
 * import with MODULE_IMPORT_NS(NEURON_NS).  6.13 turned the namespace
 * argument into a string literal; before it, the token is stringified.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define NEURON_NS	"NEURON"
#else
#define NEURON_NS	NEURON
#endif
#define NEURON_IMPORT_NS()	MODULE_IMPORT_NS(NEURON_NS)

/*
 * Symbols exported only for the KUnit test modules use
 * EXPORT_SYMBOL_IF_KUNIT() from <kunit/visibility.h>; the tests import that
 * namespace with NEURON_IMPORT_TESTS_NS().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define NEURON_IMPORT_TESTS_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define NEURON_IMPORT_TESTS_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/* dma-buf's symbols live in the DMA_BUF namespace. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define NEURON_IMPORT_DMA_BUF_NS()	MODULE_IMPORT_NS("DMA_BUF")
#else
#define NEURON_IMPORT_DMA_BUF_NS()	MODULE_IMPORT_NS(DMA_BUF)
#endif

/*
 * The largest page order the page allocator hands out: 6.8 renamed
 * MAX_ORDER (one past it) to MAX_PAGE_ORDER (the order itself).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define NEURON_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#else
#define NEURON_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/* vm_flags became read-only behind helpers in 6.3. */
#include <linux/mm.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define neuron_vm_flags_set(vma, flags)		vm_flags_set(vma, flags)
#define neuron_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#else
static inline void neuron_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void neuron_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/* Class attribute callbacks take const class and attribute since 6.4. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define NEURON_CLASS_CONST	const
#else
#define NEURON_CLASS_CONST
#endif

/* A class's devnode callback takes a const device since 6.2. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define NEURON_DEVNODE_CONST	const
#else
#define NEURON_DEVNODE_CONST
#endif

/*
 * KUnit static stubs (6.3): a function that starts with
 * KUNIT_STATIC_STUB_REDIRECT() can be replaced by a test.  Before 6.3 the
 * redirect is a no-op, as it is on any kernel without KUnit.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#include <kunit/static_stub.h>
#else
#define KUNIT_STATIC_STUB_REDIRECT(...)	do { } while (0)
#endif

/*
 * CRC32C without the initial and final inversion: __crc32c_le() where the
 * kernel has it (NEURON_HAVE_CRC32C_LE, a feature test in ../../Kbuild),
 * else crc32c(), which computes the same from 6.14 on.
 */
#include <linux/crc32.h>
#ifdef NEURON_HAVE_CRC32C_LE
#define neuron_crc32c(crc, p, len)	__crc32c_le(crc, p, len)
#else
#define neuron_crc32c(crc, p, len)	crc32c(crc, p, len)
#endif

#endif /* _NEURON_COMPAT_H */
