/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of device bring-up: one start when a device (an incarnation
 * of a bus's device) is created and its bring-up queued, one done when
 * the bring-up ends, ready or failed.  Documentation/dma.rst, "Tracepoints".
 *
 * Out of tree, this header is found through TRACE_INCLUDE_PATH relative to
 * the folder the Kbuild file adds to the include path of main.c, the file
 * that creates the events (CFLAGS_main.o).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM neuron_core

#if !defined(_NEURON_CORE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NEURON_CORE_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

/*
 * Bring-up of a device was queued: @parent names its bus device
 * (neuron_simN, or the PCI address); it has no index yet.
 */
TRACE_EVENT(neuron_bringup_start,
	    TP_PROTO(const char *parent, bool simulated),
	    TP_ARGS(parent, simulated),
	    TP_STRUCT__entry(__array(char, parent, 32)
			     __field(bool, simulated)),
	    TP_fast_assign(strscpy(__entry->parent, parent, sizeof(__entry->parent));
			   __entry->simulated = simulated;),
	    TP_printk("parent=%s simulated=%d", __entry->parent, __entry->simulated)
);

/*
 * Bring-up ended: @err 0 when the device is ready, else why it failed;
 * @ns since its start event; @dev its index, -1 when it failed before its
 * routing id was read.
 */
TRACE_EVENT(neuron_bringup_done,
	    TP_PROTO(const char *parent, int dev, int err, u64 ns),
	    TP_ARGS(parent, dev, err, ns),
	    TP_STRUCT__entry(__array(char, parent, 32)
			     __field(int, dev)
			     __field(int, err)
			     __field(u64, ns)),
	    TP_fast_assign(strscpy(__entry->parent, parent, sizeof(__entry->parent));
			   __entry->dev = dev;
			   __entry->err = err;
			   __entry->ns = ns;),
	    TP_printk("parent=%s dev=%d err=%d ns=%llu", __entry->parent, __entry->dev,
		      __entry->err, (unsigned long long)__entry->ns)
);

#endif /* _NEURON_CORE_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
