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

#endif /* _NEURON_COMPAT_H */
