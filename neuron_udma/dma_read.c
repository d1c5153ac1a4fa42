// SPDX-License-Identifier: GPL-2.0
/*
 * Reads for the core (&neuron_plane.dma_read): a few bytes at a device
 * address copied into host memory through a queue of an engine the core
 * names.  The pod election reads its neighbours' MiscRAM this way, on
 * queue 0 of the DHAL's neighbour engines (Documentation/pod.rst).
 *
 * Each read takes one piece of coherent DMA memory: the two rings of 32
 * descriptors, then the buffer (completion marker at 0 and 4, the data
 * from 8).  It programs the engine (as the channels do), gives the queue
 * the rings, queues the data copy and the marker, rings the doorbell and
 * waits for the marker, sleeping, at most NEURON_PLANE_DMA_READ_MS.  Then
 * the queue is parked (no rings) and the memory freed; when a failed read
 * leaves the queue busy, the engine may still read the rings and write the
 * buffer, so the memory is leaked on purpose, with an error logged.  The
 * core calls with the device's plane lock held, so reads of one device
 * never overlap.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <neuron/compat.h>
#include <neuron/udma.h>

#include "dma.h"

/* Descriptors of each ring of a read: the least a ring may have. */
#define NEURON_DMA_READ_DESCS	NEURON_UDMA_RING_MIN
#define NEURON_DMA_READ_RING	(NEURON_DMA_READ_DESCS * sizeof(struct neuron_udma_desc))
/* The buffer after the two rings: marker source, marker destination, data. */
#define NEURON_DMA_READ_BUF	(2 * NEURON_DMA_READ_RING)
#define NEURON_DMA_READ_DATA	8
#define NEURON_DMA_READ_BYTES	(NEURON_DMA_READ_BUF + NEURON_DMA_READ_DATA + \
				 NEURON_PLANE_DMA_READ_MAX)

/* Wait for the marker of @eng's read; 0, -EIO (engine error) or -ETIMEDOUT. */
static int neuron_dma_read_wait(struct neuron_udma_engine *eng, const __le32 *marker)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(NEURON_PLANE_DMA_READ_MS);
	unsigned int delay = 2;

	for (;;) {
		if (neuron_udma_marker_seen(marker))
			return 0;
		if (neuron_udma_engine_get_state(eng, false) == NEURON_UDMA_ABORTED ||
		    neuron_udma_engine_get_state(eng, true) == NEURON_UDMA_ABORTED)
			return -EIO;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(delay, delay * 2);
		delay = min(delay * 2, 1000U);
	}
}

/**
 * neuron_dma_read() - &neuron_plane.dma_read of the DMA plane
 * @nd: the device, held by the caller
 * @priv: its DMA state
 * @rd: the read
 *
 * Return: 0; -EINVAL for a bad request; -EOPNOTSUPP for a generation
 * without DMA; -ENOMEM; -EIO when the engine reports an error (it is set
 * running again); -ETIMEDOUT.
 */
int neuron_dma_read(struct neuron_device *nd, void *priv, const struct neuron_plane_dma_read *rd)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(nd);
	const struct neuron_udma_gen *gen = dhal ? dhal->udma : NULL;
	struct device *dev = neuron_device_parent(nd);
	struct neuron_udma_ring_cfg m2s = {}, s2m = {}, none = {};
	u64 host = neuron_device_host_base(nd), end, buf_pa;
	struct neuron_udma_engine *eng;
	struct neuron_udma_queue *q;
	dma_addr_t mem_dma;
	__le32 *buf;
	void *mem;
	int ret;

	if (!gen)
		return -EOPNOTSUPP;
	if (rd->eng >= gen->engines || rd->qid >= gen->queues || !rd->len ||
	    rd->len > NEURON_PLANE_DMA_READ_MAX || !rd->data ||
	    check_add_overflow(rd->src, (u64)rd->len, &end))
		return -EINVAL;
	eng = kzalloc(sizeof(*eng), GFP_KERNEL);
	if (!eng)
		return -ENOMEM;
	mem = dma_alloc_coherent(dev, NEURON_DMA_READ_BYTES, &mem_dma, GFP_KERNEL);
	if (!mem) {
		kfree(eng);
		return -ENOMEM;
	}
	m2s.va = mem;
	m2s.addr = mem_dma | host;
	m2s.size = NEURON_DMA_READ_DESCS;
	s2m.va = mem + NEURON_DMA_READ_RING;
	s2m.addr = (mem_dma + NEURON_DMA_READ_RING) | host;
	s2m.size = NEURON_DMA_READ_DESCS;
	buf = mem + NEURON_DMA_READ_BUF;
	buf_pa = (mem_dma + NEURON_DMA_READ_BUF) | host;

	ret = neuron_udma_engine_init(eng, nd, gen, rd->eng);
	if (ret)
		goto out;
	neuron_udma_engine_error_setup(eng);
	ret = neuron_udma_engine_set_state(eng, NEURON_UDMA_NORMAL);
	if (!ret)
		ret = neuron_udma_queue_init(eng, rd->qid, &m2s, &s2m);
	if (ret)
		goto out;
	q = &eng->queue[rd->qid];
	neuron_udma_marker_arm(buf);
	ret = neuron_udma_copy_prepare(q, rd->src, buf_pa + NEURON_DMA_READ_DATA, rd->len, 0);
	if (ret >= 0)
		ret = neuron_udma_marker_prepare(q, buf_pa, buf_pa + NEURON_UDMA_MARKER_LEN,
						 NEURON_UDMA_COPY_WR_BARRIER);
	if (ret >= 0) {
		neuron_udma_submit(q);
		ret = neuron_dma_read_wait(eng, buf);
	}
	if (ret < 0 && neuron_udma_queue_quiesce(q, NEURON_UDMA_QUIESCE_MS)) {
		dev_err_ratelimited(dev, "DMA engine %u queue %u: still busy after a failed read: its memory is leaked\n",
				    rd->eng, rd->qid);
		kfree(eng);
		return ret;
	}
	neuron_udma_queue_init(eng, rd->qid, &none, &none);
	/* An error aborted the engine: set it running for whoever comes next. */
	if (ret == -EIO)
		neuron_udma_engine_set_state(eng, NEURON_UDMA_NORMAL);
	if (!ret) {
		dma_rmb();	/* the data landed before the marker */
		memcpy(rd->data, (u8 *)buf + NEURON_DMA_READ_DATA, rd->len);
	}
out:
	dma_free_coherent(dev, NEURON_DMA_READ_BYTES, mem, mem_dma);
	kfree(eng);
	return ret;
}
