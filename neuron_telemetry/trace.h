/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of neuron_telemetry (Documentation/metrics.rst):
 * metrics_post, one per metrics blob the posting thread builds while
 * nmetric_log_posts has bit 1.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM neuron_telemetry

#if !defined(_NEURON_TEL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NEURON_TEL_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

/*
 * metrics_post: device index, the tick (0 or 1), the blob's length and the
 * blob in hex (records {u8 id; u8 len; char data[len]}).
 */
TRACE_EVENT(metrics_post,
	    TP_PROTO(int dev, u8 tick, const u8 *blob, u32 len),
	    TP_ARGS(dev, tick, blob, len),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u8, tick)
			     __field(u32, len)
			     __dynamic_array(u8, blob, len)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->tick = tick;
			   __entry->len = len;
			   memcpy(__get_dynamic_array(blob), blob, len);),
	    TP_printk("dev=%d tick=%u len=%u blob=%s", __entry->dev, __entry->tick,
		      __entry->len, __print_hex_str(__get_dynamic_array(blob), __entry->len))
);

#endif /* _NEURON_TEL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
