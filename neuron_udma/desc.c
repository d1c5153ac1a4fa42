// SPDX-License-Identifier: GPL-2.0
/*
 * UDMA descriptors and the software side of a ring: encoding, copy
 * splitting into 64 KiB descriptor pairs, completion-marker pairs, free
 * slots, ring-id wrap and acknowledging completed pairs.
 */

#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>

#include <kunit/visibility.h>

#include <neuron/udma.h>

#include "udma_priv.h"

#define UDMA_COPY_FLAGS	(NEURON_UDMA_COPY_DMB | NEURON_UDMA_COPY_WR_BARRIER | \
			 NEURON_UDMA_COPY_SOW | NEURON_UDMA_COPY_INT)

static u32 udma_ctrl(u32 len, u8 ring_id, u32 ctrl_flags)
{
	/* 65536 wraps to 0 in the 16-bit field, which is how it is encoded. */
	return FIELD_PREP(NEURON_UDMA_DESC_LEN, len & NEURON_UDMA_DESC_LEN) |
	       FIELD_PREP(NEURON_UDMA_DESC_RING_ID, ring_id & NEURON_UDMA_RING_ID_MASK) |
	       (ctrl_flags & ~(NEURON_UDMA_DESC_LEN | NEURON_UDMA_DESC_RING_ID));
}

/**
 * neuron_udma_desc_m2s() - encode a source descriptor
 * @d: the descriptor
 * @src: source address (device view)
 * @len: bytes, 1..NEURON_UDMA_MAX_DESC_LEN
 * @ring_id: ring id of the slot
 * @ctrl_flags: NEURON_UDMA_DESC_FIRST, _LAST, _INT, _DMB
 * @meta: meta-control word, usually NEURON_UDMA_META_COPY
 */
void neuron_udma_desc_m2s(struct neuron_udma_desc *d, u64 src, u32 len, u8 ring_id,
			  u32 ctrl_flags, u32 meta)
{
	d->meta = cpu_to_le32(meta);
	d->addr = cpu_to_le64(src);
	d->ctrl = cpu_to_le32(udma_ctrl(len, ring_id, ctrl_flags));
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_desc_m2s);

/**
 * neuron_udma_desc_s2m() - encode a destination descriptor
 * @d: the descriptor
 * @dst: destination address (device view)
 * @len: bytes, 1..NEURON_UDMA_MAX_DESC_LEN
 * @ring_id: ring id of the slot
 * @ctrl_flags: NEURON_UDMA_DESC_INT, _SOW
 */
void neuron_udma_desc_s2m(struct neuron_udma_desc *d, u64 dst, u32 len, u8 ring_id,
			  u32 ctrl_flags)
{
	d->meta = 0;
	d->addr = cpu_to_le64(dst);
	d->ctrl = cpu_to_le32(udma_ctrl(len, ring_id, ctrl_flags));
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_desc_s2m);

/* Take the slot at the tail; the ring id advances when the tail wraps. */
static struct neuron_udma_desc *udma_ring_take(struct neuron_udma_ring *r, u8 *ring_id)
{
	struct neuron_udma_desc *d = &r->va[r->tail];

	*ring_id = r->ring_id;
	r->tail = (r->tail + 1) & (r->size - 1);
	if (!r->tail)
		r->ring_id = (r->ring_id + 1) & NEURON_UDMA_RING_ID_MASK;
	return d;
}

/**
 * neuron_udma_copy_prepare() - queue a copy
 * @q: a queue whose two rings have kernel addresses
 * @src: source address (device view: device memory, or host memory with
 *	the generation's host bit)
 * @dst: destination address (device view)
 * @len: bytes, at least 1
 * @flags: NEURON_UDMA_COPY_* options
 *
 * Writes one descriptor pair per NEURON_UDMA_MAX_DESC_LEN bytes, each pair
 * a packet of its own (M2S FIRST and LAST, an S2M descriptor of the same
 * length).  NEURON_UDMA_COPY_DMB goes on the first pair; the write
 * barrier, strong-ordered write and interrupt options on the last.
 * Nothing reaches the engine until neuron_udma_submit().
 *
 * Return: descriptor pairs written; -EINVAL for a bad request or a queue
 * without kernel-filled rings, -ENOSPC when the rings lack room (nothing is
 * written then).
 */
int neuron_udma_copy_prepare(struct neuron_udma_queue *q, u64 src, u64 dst, u64 len,
			     unsigned int flags)
{
	u32 n, i, m2s_ctrl, s2m_ctrl, meta;
	u64 end;

	if (!q->ready || !q->m2s.va || !q->s2m.va || !len || (flags & ~UDMA_COPY_FLAGS) ||
	    ((flags & NEURON_UDMA_COPY_SOW) && !q->eng->gen->sow) ||
	    check_add_overflow(src, len, &end) || check_add_overflow(dst, len, &end))
		return -EINVAL;
	n = neuron_udma_desc_count(len);
	if (n > INT_MAX || n > neuron_udma_ring_free(&q->m2s) ||
	    n > neuron_udma_ring_free(&q->s2m))
		return -ENOSPC;

	for (i = 0; i < n; i++) {
		u32 chunk = min_t(u64, len, NEURON_UDMA_MAX_DESC_LEN);
		bool last = i == n - 1;
		struct neuron_udma_desc *d;
		u8 id;

		m2s_ctrl = NEURON_UDMA_DESC_FIRST | NEURON_UDMA_DESC_LAST;
		meta = NEURON_UDMA_META_COPY;
		s2m_ctrl = 0;
		if (!i && (flags & NEURON_UDMA_COPY_DMB))
			m2s_ctrl |= NEURON_UDMA_DESC_DMB;
		if (last && (flags & NEURON_UDMA_COPY_WR_BARRIER))
			meta |= NEURON_UDMA_META_WR_BARRIER;
		if (last && (flags & NEURON_UDMA_COPY_SOW))
			s2m_ctrl |= NEURON_UDMA_DESC_SOW;
		if (last && (flags & NEURON_UDMA_COPY_INT))
			m2s_ctrl |= NEURON_UDMA_DESC_INT;

		d = udma_ring_take(&q->s2m, &id);
		neuron_udma_desc_s2m(d, dst, chunk, id, s2m_ctrl);
		d = udma_ring_take(&q->m2s, &id);
		neuron_udma_desc_m2s(d, src, chunk, id, m2s_ctrl, meta);
		src += chunk;
		dst += chunk;
		len -= chunk;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_copy_prepare);

/**
 * neuron_udma_marker_prepare() - queue a completion marker
 * @q: the queue
 * @marker_src: device-view address of the marker's source word
 * @marker_dst: device-view address of its destination word
 * @flags: NEURON_UDMA_COPY_* options, usually NEURON_UDMA_COPY_WR_BARRIER
 *
 * Queues the NEURON_UDMA_MARKER_LEN-byte copy that ends a batch: once the
 * destination reads NEURON_UDMA_MARKER (neuron_udma_marker_seen()), the
 * descriptors queued before it on this queue have completed.
 *
 * Return: 1, or the errors of neuron_udma_copy_prepare().
 */
int neuron_udma_marker_prepare(struct neuron_udma_queue *q, u64 marker_src, u64 marker_dst,
			       unsigned int flags)
{
	return neuron_udma_copy_prepare(q, marker_src, marker_dst, NEURON_UDMA_MARKER_LEN, flags);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_marker_prepare);

/**
 * neuron_udma_ack() - give completed descriptor pairs back to the rings
 * @q: the queue
 * @n: pairs known to be complete (the marker was seen)
 *
 * Return: 0, or -EINVAL if more than the submitted pairs are acknowledged
 * (nothing changes then).
 */
int neuron_udma_ack(struct neuron_udma_queue *q, u32 n)
{
	struct neuron_udma_ring *m = &q->m2s, *s = &q->s2m;

	if (!m->size || !s->size || n > ((m->rung - m->head) & (m->size - 1)) ||
	    n > ((s->rung - s->head) & (s->size - 1)))
		return -EINVAL;
	m->head = (m->head + n) & (m->size - 1);
	s->head = (s->head + n) & (s->size - 1);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_udma_ack);
