/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the driver's copy path: every transfer the driver's own
 * channels run (MEM_BUF_COPY*, MEM_COPY*, MEMSET*, the zero-copy commands,
 * PROGRAM_ENGINE*, the driver's internal copies) is submitted once per
 * piece (at most a ring of descriptors) and ends in exactly one of
 * complete, timeout or abort.  Documentation/dma.rst, "Tracepoints".
 *
 * Out of tree, this header is found through TRACE_INCLUDE_PATH relative to
 * the folder the Kbuild file adds to the include path of main.c, the file
 * that creates the events (CFLAGS_main.o).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM neuron_udma

#if !defined(_NEURON_UDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NEURON_UDMA_TRACE_H

#include <linux/tracepoint.h>

#include "dma.h"

/*
 * A piece on channel @ch: the device's index (N of /dev/neuronN), the
 * engine, the descriptors the piece queued on each ring (its completion
 * marker included) and the bytes it moves; then what one event adds: @ns
 * from the doorbell to the completion (neuron_dma_complete), the @ms it
 * was given (neuron_dma_timeout), @err (neuron_dma_abort).  0 elsewhere.
 */
DECLARE_EVENT_CLASS(neuron_dma_piece,
		    TP_PROTO(const struct neuron_dma_chan *ch, u64 ns, unsigned int ms, int err),
		    TP_ARGS(ch, ns, ms, err),
		    TP_STRUCT__entry(__field(int, dev)
				     __field(unsigned int, eng)
				     __field(u32, descs)
				     __field(u64, bytes)
				     __field(u64, ns)
				     __field(unsigned int, ms)
				     __field(int, err)),
		    TP_fast_assign(__entry->dev = neuron_device_index(ch->dma->nd);
				   __entry->eng = ch->eng.index;
				   __entry->descs = ch->inflight;
				   __entry->bytes = ch->queued;
				   __entry->ns = ns;
				   __entry->ms = ms;
				   __entry->err = err;),
		    TP_printk("dev=%d eng=%u descs=%u bytes=%llu", __entry->dev, __entry->eng,
			      __entry->descs, (unsigned long long)__entry->bytes)
);

/* The doorbell was rung for a piece. */
DEFINE_EVENT(neuron_dma_piece, neuron_dma_submit,
	     TP_PROTO(const struct neuron_dma_chan *ch, u64 ns, unsigned int ms, int err),
	     TP_ARGS(ch, ns, ms, err)
);

/*
 * The engine completed the piece: @ns since its submit, 0 when the event
 * was enabled while the piece was in flight.
 */
DEFINE_EVENT_PRINT(neuron_dma_piece, neuron_dma_complete,
		   TP_PROTO(const struct neuron_dma_chan *ch, u64 ns, unsigned int ms, int err),
		   TP_ARGS(ch, ns, ms, err),
		   TP_printk("dev=%d eng=%u descs=%u bytes=%llu ns=%llu", __entry->dev,
			     __entry->eng, __entry->descs, (unsigned long long)__entry->bytes,
			     (unsigned long long)__entry->ns)
);

/* The piece did not complete within dma_timeout_ms, @ms. */
DEFINE_EVENT_PRINT(neuron_dma_piece, neuron_dma_timeout,
		   TP_PROTO(const struct neuron_dma_chan *ch, u64 ns, unsigned int ms, int err),
		   TP_ARGS(ch, ns, ms, err),
		   TP_printk("dev=%d eng=%u descs=%u bytes=%llu ms=%u", __entry->dev,
			     __entry->eng, __entry->descs, (unsigned long long)__entry->bytes,
			     __entry->ms)
);

/*
 * The piece ended otherwise: @err is -EIO (the engine aborted, or reported
 * an error for a descriptor) or -EINTR (the caller was killed while it
 * waited).
 */
DEFINE_EVENT_PRINT(neuron_dma_piece, neuron_dma_abort,
		   TP_PROTO(const struct neuron_dma_chan *ch, u64 ns, unsigned int ms, int err),
		   TP_ARGS(ch, ns, ms, err),
		   TP_printk("dev=%d eng=%u descs=%u bytes=%llu err=%d", __entry->dev,
			     __entry->eng, __entry->descs, (unsigned long long)__entry->bytes,
			     __entry->err)
);

#endif /* _NEURON_UDMA_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
