// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA layer: driver copies through the device's host engines.
 *
 * The engine library is in this module (engine.c, desc.c).  On a device's
 * first DMA use it gets
 * up to NEURON_DMA_MAX_CHANS channels, one per host (host-to-device)
 * engine, each with two host rings, a completion marker and a bounce
 * buffer.  A copy takes a free channel, builds its descriptors (at most
 * 64 KiB each), ends the batch with the marker copy and rings the doorbell,
 * then waits for the marker: sleeping, bounded by dma_timeout_ms, and
 * killable.  No lock is held while it waits; other copies use the other
 * channels.  A wait that times out, is killed, or finds the engine aborted
 * stops the channel's engine and waits (NEURON_UDMA_QUIESCE_MS at most)
 * until it moves no data, then reprograms its engine and queue, so the
 * next copy finds it working.  An engine that keeps running makes the
 * channel dead: it is never used again, and what the transfer named (user
 * pages pinned and mapped, chunks, the channel's own rings) is kept until
 * the device goes, when the engine is stopped again before any of it is
 * let go.  Nothing the engine may still write is ever freed or unpinned.
 *
 * User buffers of more than NEURON_DMA_BOUNCE_MAX bytes are not copied
 * through the CPU: their pages are pinned and DMA-mapped, and the engine
 * moves the bytes straight between them and the chunk.
 *
 * Asynchronous copies (MEM_COPY_ASYNC) keep their channel, and references
 * on their chunks, until they are waited for or the file is released; a
 * device keeps one channel for synchronous copies.  See
 * Documentation/dma.rst.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/kmod.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/userfaultfd_k.h>

#include <kunit/visibility.h>
#include <neuron/compat.h>
#include <neuron/udma.h>

#include "dma.h"
#include "trace.h"

unsigned int neuron_dma_timeout_ms = 10000;
module_param_named(dma_timeout_ms, neuron_dma_timeout_ms, uint, 0644);
MODULE_PARM_DESC(dma_timeout_ms,
		 "Longest wait for one DMA transfer, in ms, before it is aborted (default 10000)");

unsigned int neuron_dma_shadow_max_kb = SZ_256K;
module_param_named(dma_shadow_max_kb, neuron_dma_shadow_max_kb, uint, 0644);
MODULE_PARM_DESC(dma_shadow_max_kb,
		 "Most driver memory, in KiB per device, for the shadow rings of user DMA queues (default 262144)");

/* ---- Channels ---------------------------------------------------------- */

static size_t neuron_dma_ring_bytes(void)
{
	return 2 * NEURON_DMA_RING_DESCS * sizeof(struct neuron_udma_desc) + SZ_64;
}

static struct device *neuron_dma_dev(struct neuron_dma *dma)
{
	return neuron_device_parent(dma->nd);
}

/* Program the channel's engine and queue from scratch. */
static int neuron_dma_chan_program(struct neuron_dma_chan *ch)
{
	struct neuron_dma *dma = ch->dma;
	u32 index = (ch - dma->chans) + dma->gen->groups * dma->gen->group_engines;
	size_t rb = NEURON_DMA_RING_DESCS * sizeof(struct neuron_udma_desc);
	struct neuron_udma_ring_cfg m2s = {
		.va = ch->ring,
		.addr = ch->ring_dma | neuron_device_host_base(dma->nd),
		.size = NEURON_DMA_RING_DESCS,
	};
	struct neuron_udma_ring_cfg s2m = {
		.va = ch->ring + rb,
		.addr = (ch->ring_dma + rb) | neuron_device_host_base(dma->nd),
		.size = NEURON_DMA_RING_DESCS,
	};
	int ret;

	ch->epoch = atomic_read(&dma->epoch);
	/* A core reset after this point has the channel programmed again. */
	clear_bit(ch - dma->chans, &dma->reinit);
	ret = neuron_udma_engine_init(&ch->eng, dma->nd, dma->gen, index);
	if (!ret) {
		neuron_udma_engine_error_setup(&ch->eng);
		ret = neuron_udma_queue_init(&ch->eng, 0, &m2s, &s2m);
	}
	if (!ret)
		ret = neuron_udma_engine_set_state(&ch->eng, NEURON_UDMA_NORMAL);
	ch->q = &ch->eng.queue[0];
	ch->inflight = 0;
	ch->queued = 0;
	neuron_udma_marker_arm(ch->marker);
	ch->broken = ret != 0;
	if (ret)
		dev_err_ratelimited(neuron_device_parent(dma->nd), "DMA engine %u: cannot program it (%d)\n",
				    index, ret);
	return ret;
}

/* Unmap and unpin the user pages a dead channel kept. */
static void neuron_dma_pinned_release(struct neuron_dma_chan *ch)
{
	struct neuron_dma_pinned *p = &ch->pinned;

	if (!p->pages)
		return;
	dma_unmap_sgtable(neuron_dma_dev(ch->dma), &p->sgt, p->dir, 0);
	sg_free_table(&p->sgt);
	unpin_user_pages_dirty_lock(p->pages, p->npages, p->dir == DMA_FROM_DEVICE);
	kvfree(p->pages);
	atomic64_sub(p->npages, &ch->dma->dead_pages);
	p->pages = NULL;
	p->npages = 0;
}

/*
 * Free the channel's memory and drop what it holds.  Its engine is quiet
 * (or was never programmed).
 */
static void neuron_dma_chan_free(struct neuron_dma_chan *ch)
{
	struct device *dev = neuron_dma_dev(ch->dma);
	unsigned int j;

	neuron_dma_pinned_release(ch);
	for (j = 0; j < 2; j++) {
		if (ch->hold[j])
			neuron_mem_put(ch->hold[j]);
		ch->hold[j] = NULL;
	}
	if (ch->bounce)
		dma_free_coherent(dev, NEURON_DMA_BOUNCE_SIZE, ch->bounce, ch->bounce_dma);
	if (ch->ring)
		dma_free_coherent(dev, neuron_dma_ring_bytes(), ch->ring, ch->ring_dma);
	ch->bounce = NULL;
	ch->ring = NULL;
}

static int neuron_dma_chan_alloc(struct neuron_dma_chan *ch)
{
	struct device *dev = neuron_dma_dev(ch->dma);
	u64 host = neuron_device_host_base(ch->dma->nd);

	ch->ring = dma_alloc_coherent(dev, neuron_dma_ring_bytes(), &ch->ring_dma, GFP_KERNEL);
	ch->bounce = dma_alloc_coherent(dev, NEURON_DMA_BOUNCE_SIZE, &ch->bounce_dma, GFP_KERNEL);
	if (!ch->ring || !ch->bounce) {
		neuron_dma_chan_free(ch);
		return -ENOMEM;
	}
	ch->marker = ch->ring + 2 * NEURON_DMA_RING_DESCS * sizeof(struct neuron_udma_desc);
	ch->marker_pa = (ch->ring_dma + ((void *)ch->marker - ch->ring)) | host;
	ch->bounce_pa = ch->bounce_dma | host;
	return 0;
}

/* Set up the device's channels on first use.  Called with dma->lock held. */
static int neuron_dma_setup_locked(struct neuron_dma *dma)
{
	struct neuron_device *nd = dma->nd;
	const struct neuron_dhal *dhal = neuron_device_dhal(nd);
	const struct neuron_udma_gen *gen = dhal ? dhal->udma : NULL;
	unsigned int i, n;
	int ret;

	lockdep_assert_held(&dma->lock);
	if (!gen || gen->engines <= gen->groups * gen->group_engines)
		return -EOPNOTSUPP;
	dma->gen = gen;
	n = min_t(u32, gen->engines - gen->groups * gen->group_engines, NEURON_DMA_MAX_CHANS);
	for (i = 0; i < n; i++) {
		struct neuron_dma_chan *ch = &dma->chans[i];

		ch->dma = dma;
		ret = neuron_dma_chan_alloc(ch);
		if (ret)
			goto err;
		/* A channel that cannot be programmed is retried on use. */
		neuron_dma_chan_program(ch);
	}
	dma->nr_chans = n;
	sema_init(&dma->free, n);
	dma->busy = 0;
	return 0;

err:
	while (i--)
		neuron_dma_chan_free(&dma->chans[i]);
	dma->gen = NULL;
	return ret;
}

/**
 * neuron_dma_setup() - set the device's DMA up, on first use
 * @dma: the device's DMA state; the caller holds the usage lock
 *
 * Return: 0, -EOPNOTSUPP when the generation or the engine library is
 * missing, -ENODEV after removal, -ENOMEM.
 */
int neuron_dma_setup(struct neuron_dma *dma)
{
	int ret = 0;

	/*
	 * Acquire: pairs with the release that published the channels.  The
	 * caller holds the usage lock, so @ready cannot change under it; a
	 * device already gone has @ready false and fails below.
	 */
	if (smp_load_acquire(&dma->ready))
		return 0;
	mutex_lock(&dma->lock);
	if (dma->gone)
		ret = -ENODEV;
	else if (!dma->ready)
		ret = neuron_dma_setup_locked(dma);
	if (!ret)
		smp_store_release(&dma->ready, true);	/* publish the channels */
	mutex_unlock(&dma->lock);
	return ret;
}

/* Live channels: those not dead. */
static int neuron_dma_live(struct neuron_dma *dma)
{
	return (int)dma->nr_chans - atomic_read(&dma->dead);
}

/*
 * Count one more asynchronous copy holding a channel, if that leaves a live
 * channel for synchronous copies.  Never counts past that limit, even for
 * a moment.
 */
static bool neuron_dma_async_reserve(struct neuron_dma *dma)
{
	int held = atomic_read(&dma->async_held);

	do {
		if (held + 1 >= neuron_dma_live(dma))
			return false;
	} while (!atomic_try_cmpxchg(&dma->async_held, &held, held + 1));
	return true;
}

/*
 * Take a free channel, waiting (killably) while all are held.  The caller
 * holds the device's usage lock, so the channels stay set up.  Dead
 * channels are never taken: with all of them dead, -EIO at once.  So is a
 * synchronous copy (!@async) when a channel died and asynchronous copies
 * hold every live one: only waiting for them, which the caller may be
 * the one to do, would free one.
 */
static struct neuron_dma_chan *neuron_dma_chan_get(struct neuron_dma *dma, bool async)
{
	struct neuron_dma_chan *ch;
	unsigned int i;
	int ret;

	ret = neuron_dma_setup(dma);
	if (ret)
		return ERR_PTR(ret);
	if (neuron_dma_live(dma) <= 0 ||
	    (!async && atomic_read(&dma->dead) &&
	     neuron_dma_live(dma) <= atomic_read(&dma->async_held)))
		return ERR_PTR(-EIO);
	if (down_killable(&dma->free))
		return ERR_PTR(-EINTR);
	spin_lock(&dma->busy_lock);
	i = find_first_zero_bit(&dma->busy, dma->nr_chans);
	if (i >= dma->nr_chans) {
		/*
		 * Every channel is dead: this count was given back by the last
		 * one to die (neuron_dma_chan_kill()); pass it on to the next
		 * taker, which fails the same way.
		 */
		spin_unlock(&dma->busy_lock);
		up(&dma->free);
		return ERR_PTR(-EIO);
	}
	/* The semaphore counts free bits of live channels, so there is one. */
	__set_bit(i, &dma->busy);
	spin_unlock(&dma->busy_lock);
	ch = &dma->chans[i];
	if (ch->broken || ch->epoch != atomic_read(&dma->epoch) || test_bit(i, &dma->reinit)) {
		if (neuron_dma_chan_program(ch)) {
			spin_lock(&dma->busy_lock);
			__clear_bit(i, &dma->busy);
			spin_unlock(&dma->busy_lock);
			up(&dma->free);
			return ERR_PTR(-EIO);
		}
	}
	return ch;
}

/* Give a channel back; a dead one stays held, for good. */
static void neuron_dma_chan_put(struct neuron_dma_chan *ch)
{
	struct neuron_dma *dma = ch->dma;

	ch->use[0] = NULL;
	ch->use[1] = NULL;
	if (ch->dead)
		return;
	spin_lock(&dma->busy_lock);
	__clear_bit(ch - dma->chans, &dma->busy);
	spin_unlock(&dma->busy_lock);
	up(&dma->free);
}

/*
 * Queue a copy of @len bytes, in as many descriptors as it takes.  The
 * caller checked that the ring has room (neuron_dma_room()).
 */
static int neuron_dma_queue_copy(struct neuron_dma_chan *ch, u64 src, u64 dst, u64 len,
				 unsigned int flags)
{
	int n = neuron_udma_copy_prepare(ch->q, src, dst, len, flags);

	if (n < 0)
		return n;
	ch->inflight += n;
	ch->queued += len;
	return 0;
}

/* Descriptor pairs the ring can still take, keeping one for the marker. */
static u32 neuron_dma_room(struct neuron_dma_chan *ch)
{
	u32 f = min(neuron_udma_ring_free(&ch->q->m2s), neuron_udma_ring_free(&ch->q->s2m));

	return f ? f - 1 : 0;
}

/* End the batch with the marker copy and ring the doorbell. */
static int neuron_dma_kick(struct neuron_dma_chan *ch)
{
	int ret;

	ret = neuron_udma_marker_prepare(ch->q, ch->marker_pa, ch->marker_pa + sizeof(__le32), 0);
	if (ret < 0)
		return ret;
	ch->inflight += ret;
	ch->submit_ns = trace_neuron_dma_complete_enabled() ? ktime_get_ns() : 0;
	neuron_udma_submit(ch->q);
	trace_neuron_dma_submit(ch, 0, 0, 0);
	return 0;
}

/*
 * The channel's engine did not stop: it may still read and write whatever
 * the transfer in flight named.  The channel keeps all of it (references
 * on the chunks in @use, the pages the holder hands over) and is never
 * used again; neuron_dma_detach_device() lets it go once the engine has
 * stopped.  The holder keeps the channel's bit in &neuron_dma.busy and its
 * count of &neuron_dma.free.
 */
static void neuron_dma_chan_kill(struct neuron_dma_chan *ch)
{
	struct neuron_dma *dma = ch->dma;
	unsigned int j;

	ch->dead = true;
	for (j = 0; j < 2; j++) {
		if (!ch->use[j] || ch->hold[j])
			continue;
		kref_get(&ch->use[j]->ref);
		ch->hold[j] = ch->use[j];
	}
	dev_err_ratelimited(neuron_dma_dev(dma),
			    "DMA engine %u: still running %d ms after it was stopped: channel out of service, its memory kept until the device goes\n",
			    ch->eng.index, NEURON_UDMA_QUIESCE_MS);
	/*
	 * The last live channel: nobody will give a count of @free back any
	 * more, so give one that every taker passes on (neuron_dma_chan_get()).
	 */
	if ((unsigned int)atomic_inc_return(&dma->dead) == dma->nr_chans)
		up(&dma->free);
}

/*
 * A transfer failed, or could not be started: stop the engine and wait
 * until it moves no data (NEURON_UDMA_QUIESCE_MS at most), then program it
 * from scratch, so that it forgets the transfer and the next copy finds
 * it working.  An engine that does not stop makes the channel dead
 * (@ch->dead): the caller then hands over what the transfer used instead
 * of letting it go.
 */
static void neuron_dma_chan_recover(struct neuron_dma_chan *ch)
{
	if (ch->eng.gen && neuron_udma_engine_quiesce(&ch->eng, NEURON_UDMA_QUIESCE_MS)) {
		neuron_dma_chan_kill(ch);
		return;
	}
	neuron_dma_chan_program(ch);
}

/*
 * Wait for the marker of what was kicked.  Sleeps between looks; no lock
 * is held.  Return: 0; -ETIMEDOUT, -EIO (engine aborted) or, when
 * @killable, -EINTR, after which the channel has been recovered: stopped
 * and reprogrammed, or dead (neuron_dma_chan_recover()).
 */
static int neuron_dma_wait(struct neuron_dma_chan *ch, bool killable)
{
	struct neuron_dma *dma = ch->dma;
	unsigned int timeout_ms = READ_ONCE(neuron_dma_timeout_ms);
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	unsigned int delay = 2;
	int ret;

	for (;;) {
		if (neuron_udma_marker_seen(ch->marker)) {
			ret = neuron_udma_ack(ch->q, ch->inflight);
			if (ret)
				trace_neuron_dma_abort(ch, 0, 0, -EIO);
			else if (trace_neuron_dma_complete_enabled())
				trace_neuron_dma_complete(ch, ch->submit_ns ?
							  ktime_get_ns() - ch->submit_ns : 0, 0, 0);
			ch->inflight = 0;
			ch->queued = 0;
			neuron_udma_marker_arm(ch->marker);
			if (ret) {
				neuron_dma_chan_recover(ch);
				return -EIO;
			}
			return 0;
		}
		if (neuron_udma_engine_get_state(&ch->eng, false) == NEURON_UDMA_ABORTED ||
		    neuron_udma_engine_get_state(&ch->eng, true) == NEURON_UDMA_ABORTED) {
			atomic64_inc(&dma->errors);
			ret = -EIO;
			break;
		}
		if (time_after(jiffies, deadline)) {
			atomic64_inc(&dma->timeouts);
			ret = -ETIMEDOUT;
			break;
		}
		if (killable && fatal_signal_pending(current)) {
			atomic64_inc(&dma->interrupted);
			ret = -EINTR;
			break;
		}
		usleep_range(delay, delay * 2);
		delay = min(delay * 2, 1000U);
	}
	if (ret == -ETIMEDOUT)
		trace_neuron_dma_timeout(ch, 0, timeout_ms, 0);
	else
		trace_neuron_dma_abort(ch, 0, 0, ret);
	neuron_dma_chan_recover(ch);
	dev_warn_ratelimited(neuron_device_parent(dma->nd), "DMA engine %u: transfer %s, %s\n",
			     ch->eng.index, ret == -EIO ? "aborted by the engine" :
			     ret == -ETIMEDOUT ? "timed out" : "interrupted",
			     ch->dead ? "engine did not stop" : "engine reprogrammed");
	return ret;
}

/*
 * Set when the module starts unloading: transfers in flight end at their
 * next piece, so that unloading waits for one piece rather than for
 * whatever a caller queued (neuron_dma_stop()).
 */
static bool neuron_dma_stopping;

/**
 * neuron_dma_stop() - make every transfer in flight end at its next piece
 *
 * Called once, as the module unloads, before the plane unregisters (which
 * waits for the calls in flight).  Transfers end with -EAGAIN from then on.
 */
void neuron_dma_stop(void)
{
	WRITE_ONCE(neuron_dma_stopping, true);
}

/**
 * neuron_dma_stopped() - whether a long transfer must end before its next piece
 * @dma: the device's DMA state
 *
 * Removal waits for the calls in flight, and unloading for the calls of
 * the module's commands: each transfer checks this between pieces, so
 * that they wait for one piece at most.
 *
 * Return: 0 to go on; -ENODEV when the device is being removed; -EAGAIN
 * when the module is unloading.
 */
int neuron_dma_stopped(struct neuron_dma *dma)
{
	if (neuron_device_state(dma->nd) == NEURON_STATE_GONE)
		return -ENODEV;
	if (READ_ONCE(neuron_dma_stopping))
		return -EAGAIN;
	return 0;
}

/*
 * Kick what is queued and wait for it; or, when the device is going or the
 * module unloading, drop what is queued instead.  Every transfer of the
 * driver moves its bytes through here, a piece (at most a ring) at a time.
 */
static int neuron_dma_run(struct neuron_dma_chan *ch, u64 bytes)
{
	int ret = neuron_dma_stopped(ch->dma);

	if (!ret)
		ret = neuron_dma_kick(ch);
	if (ret) {
		neuron_dma_chan_recover(ch);
		return ret;
	}
	ret = neuron_dma_wait(ch, true);
	if (!ret) {
		atomic64_inc(&ch->dma->copies);
		atomic64_add(bytes, &ch->dma->bytes);
	}
	return ret;
}

/* Copy [src, src + len) to [dst, dst + len), device-view addresses. */
static int neuron_dma_xfer(struct neuron_dma_chan *ch, u64 src, u64 dst, u64 len)
{
	while (len) {
		u64 n = min_t(u64, len, (u64)neuron_dma_room(ch) * NEURON_UDMA_MAX_DESC_LEN);
		int ret;

		ret = neuron_dma_queue_copy(ch, src, dst, n, NEURON_UDMA_COPY_WR_BARRIER);
		if (!ret)
			ret = neuron_dma_run(ch, n);
		if (ret)
			return ret;
		src += n;
		dst += n;
		len -= n;
	}
	return 0;
}

/* Device-view address of byte @off of a chunk. */
static u64 neuron_dma_pa(const struct neuron_mem_chunk *mc, u64 off)
{
	return mc->pa + off;
}

/**
 * neuron_dma_copy() - copy between two chunks through the DMA engine
 * @nd: the device
 * @src: source chunk (a reference the caller holds)
 * @src_off: byte offset in @src
 * @dst: destination chunk (likewise)
 * @dst_off: byte offset in @dst
 * @size: bytes; the caller checked both ranges
 *
 * If the transfer fails on a channel whose engine then does not stop, the
 * channel keeps a reference on both chunks until the device goes.
 *
 * Return: 0, -EOPNOTSUPP without DMA support, -EINTR, -ETIMEDOUT, -EIO
 * (the engine aborted, or every channel of the device is dead), -ENODEV
 * (the device is being removed) or -EAGAIN (the module is unloading): a
 * transfer ends at the next piece once either starts.
 */
int neuron_dma_copy(struct neuron_device *nd, struct neuron_mem_chunk *src, u64 src_off,
		    struct neuron_mem_chunk *dst, u64 dst_off, u64 size)
{
	struct neuron_dma_chan *ch;
	int ret;

	if (!size)
		return 0;
	ret = neuron_dma_cpu_copy(nd, src, src_off, dst, dst_off, size);
	if (ret != -EOPNOTSUPP)
		return ret;
	ch = neuron_dma_chan_get(neuron_dma_of(nd), false);
	if (IS_ERR(ch))
		return PTR_ERR(ch);
	ch->use[0] = src;
	ch->use[1] = dst;
	ret = neuron_dma_xfer(ch, neuron_dma_pa(src, src_off), neuron_dma_pa(dst, dst_off), size);
	neuron_dma_chan_put(ch);
	return ret;
}

/*
 * neuron_dma_fill() into chunk @mc (a reference the caller holds, which a
 * channel that dies takes its own on), or into no chunk (@mc NULL).
 */
static int neuron_dma_fill_chunk(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 dst,
				 u32 pattern, u64 size, bool *stuck)
{
	struct neuron_dma_chan *ch;
	int ret = 0;

	if (!size)
		return 0;
	ch = neuron_dma_chan_get(neuron_dma_of(nd), false);
	if (IS_ERR(ch))
		return PTR_ERR(ch);
	ch->use[0] = mc;
	memset32(ch->bounce, pattern, NEURON_DMA_BOUNCE_SIZE / sizeof(u32));
	while (size && !ret) {
		u64 batch = 0;

		while (size && neuron_dma_room(ch)) {
			u64 n = min_t(u64, size, NEURON_DMA_BOUNCE_SIZE);

			ret = neuron_dma_queue_copy(ch, ch->bounce_pa, dst, n,
						    n == size ? NEURON_UDMA_COPY_WR_BARRIER : 0);
			if (ret)
				break;
			dst += n;
			size -= n;
			batch += n;
		}
		if (!ret)
			ret = neuron_dma_run(ch, batch);
		else
			neuron_dma_chan_recover(ch);
	}
	if (ch->dead && stuck)
		*stuck = true;
	neuron_dma_chan_put(ch);
	return ret;
}

/**
 * neuron_dma_fill() - fill device-view addresses with a 32-bit pattern
 * @nd: the device
 * @dst: device-view address of the first byte
 * @pattern: the pattern, repeated from @dst on (in the CPU's byte order)
 * @size: bytes; the caller checked that the range is its to write
 * @stuck: set to true (never to false) when the fill failed on a channel
 *	whose engine did not stop (it died): the engine may still write any
 *	part of [@dst, @dst + @size), so the caller must never let that range
 *	be used for anything else; may be NULL
 *
 * The channel's bounce buffer holds the pattern; each descriptor copies
 * (part of) it.
 *
 * Return: as neuron_dma_copy().
 */
int neuron_dma_fill(struct neuron_device *nd, u64 dst, u32 pattern, u64 size, bool *stuck)
{
	return neuron_dma_fill_chunk(nd, NULL, dst, pattern, size, stuck);
}

/**
 * neuron_dma_memset() - fill part of a chunk with a byte
 * @nd: the device
 * @mc: the chunk (a reference the caller holds)
 * @off: byte offset
 * @value: the byte
 * @size: bytes; the caller checked the range
 *
 * Return: as neuron_dma_copy().
 */
int neuron_dma_memset(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off, u8 value,
		      u64 size)
{
	return neuron_dma_fill_chunk(nd, mc, neuron_dma_pa(mc, off), value * 0x01010101U, size,
				     NULL);
}

/*
 * Through a channel's bounce buffer, in one piece (@size at most
 * NEURON_DMA_BOUNCE_SIZE).  User memory is touched with page faults
 * disabled while the channel is held: a fault may take as long as user
 * space wants (userfaultfd, FUSE) and would keep the channel from every
 * other caller.  When the buffer is not all there, the channel is given
 * back, the buffer faulted in with nothing held, and the piece run again
 * (reading the chunk twice is harmless).
 */
static int neuron_dma_user_bounce(struct neuron_dma *dma, struct neuron_mem_chunk *mc, u64 pa,
				  void __user *buf, u64 size, bool to_chunk)
{
	struct neuron_dma_chan *ch;
	unsigned long left;
	int ret;

	for (;;) {
		ch = neuron_dma_chan_get(dma, false);
		if (IS_ERR(ch))
			return PTR_ERR(ch);
		ch->use[0] = mc;
		left = 0;
		if (to_chunk) {
			pagefault_disable();
			left = __copy_from_user_inatomic(ch->bounce, buf, size);
			pagefault_enable();
		}
		ret = 0;
		if (!left) {
			ret = neuron_dma_queue_copy(ch, to_chunk ? ch->bounce_pa : pa,
						    to_chunk ? pa : ch->bounce_pa, size,
						    NEURON_UDMA_COPY_WR_BARRIER);
			if (!ret)
				ret = neuron_dma_run(ch, size);
		}
		if (!ret && !left && !to_chunk) {
			pagefault_disable();
			left = __copy_to_user_inatomic(buf, ch->bounce, size);
			pagefault_enable();
		}
		neuron_dma_chan_put(ch);
		if (ret || !left)
			return ret;
		if (to_chunk ? fault_in_readable(buf, size) : fault_in_safe_writeable(buf, size))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
}

/* Through the bounce buffer, a piece at a time. */
static int neuron_dma_user_bounced(struct neuron_dma *dma, struct neuron_mem_chunk *mc, u64 pa,
				   void __user *buf, u64 size, bool to_chunk)
{
	while (size) {
		u64 n = min_t(u64, size, NEURON_DMA_BOUNCE_SIZE);
		int ret;

		ret = neuron_dma_user_bounce(dma, mc, pa, buf, n, to_chunk);
		if (ret)
			return ret;
		pa += n;
		buf += n;
		size -= n;
	}
	return 0;
}

/*
 * Options of segment @i (@sg, @descs descriptors) of @sgt, about to be
 * queued on @ch: the write barrier on the last data descriptor before a
 * doorbell, which the segment is when it is the last or the next one will
 * not fit.  Not on every segment: on hardware a barrier holds the engine
 * until its writes so far are done, and a pinned buffer of 4 KiB pages is
 * hundreds of segments.
 */
static unsigned int neuron_dma_seg_flags(struct neuron_dma_chan *ch, struct sg_table *sgt,
					 struct scatterlist *sg, unsigned int i, u32 descs)
{
	if (i + 1 >= sgt->nents ||
	    descs + neuron_udma_desc_count(sg_dma_len(sg_next(sg))) > neuron_dma_room(ch))
		return NEURON_UDMA_COPY_WR_BARRIER;
	return 0;
}

/*
 * Zero-copy: pin up to NEURON_DMA_PIN_PAGES pages of the user buffer at a
 * time, map them for the device, then take a channel and let its engine
 * move the bytes.  Pinning may fault, and a fault may take as long as user
 * space wants (userfaultfd, FUSE), so it happens with no channel held.  If
 * the channel dies meanwhile, the pages it was moving stay pinned and
 * mapped, kept by the channel (&neuron_dma_chan.pinned) until the device
 * goes.
 */
static int neuron_dma_user_pinned(struct neuron_dma *dma, struct neuron_mem_chunk *mc, u64 pa,
				  unsigned long ubuf, u64 size, bool to_chunk)
{
	struct device *dev = neuron_dma_dev(dma);
	enum dma_data_direction dir = to_chunk ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	u64 host = neuron_device_host_base(dma->nd);
	/* Segments the device takes, each one descriptor at most. */
	unsigned int max_seg = round_down(min_t(unsigned int, dma_get_max_seg_size(dev),
						NEURON_UDMA_MAX_DESC_LEN), PAGE_SIZE);
	unsigned int max_pages = min_t(u64, NEURON_DMA_PIN_PAGES,
				       DIV_ROUND_UP(offset_in_page(ubuf) + size, PAGE_SIZE));
	struct page **pages;
	int ret = 0;

	pages = kvmalloc_array(max_pages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	while (size && !ret) {
		unsigned long first = ubuf & PAGE_MASK;
		unsigned int off = offset_in_page(ubuf);
		u64 n = min_t(u64, size, (u64)NEURON_DMA_PIN_PAGES * PAGE_SIZE - off);
		int npages = DIV_ROUND_UP(off + n, PAGE_SIZE), pinned;
		struct neuron_dma_chan *ch;
		struct scatterlist *sg;
		struct sg_table sgt;
		unsigned int i;
		u64 dst = pa;

		ret = neuron_dma_stopped(dma);
		if (ret)
			break;
		pinned = pin_user_pages_fast(first, npages, to_chunk ? 0 : FOLL_WRITE, pages);
		if (pinned != npages) {
			if (pinned > 0)
				unpin_user_pages(pages, pinned);
			if (pinned < 0 && pinned != -EFAULT) {
				ret = pinned;
				break;
			}
			/*
			 * Memory that cannot be pinned (a mapping of chunks,
			 * which has no struct pages to pin) goes through the
			 * bounce buffer.  A bad address fails first: nothing
			 * of a buffer with a hole may reach the chunk.
			 */
			if (to_chunk && fault_in_readable((const char __user *)ubuf, n)) {
				ret = -EFAULT;
				break;
			}
			ret = neuron_dma_user_bounced(dma, mc, pa, (void __user *)ubuf, n,
						      to_chunk);
			goto next;
		}
		ret = sg_alloc_table_from_pages_segment(&sgt, pages, npages, off, n, max_seg,
							GFP_KERNEL);
		if (ret)
			goto unpin;
		ret = dma_map_sgtable(dev, &sgt, dir, 0);
		if (ret)
			goto free_table;
		ch = neuron_dma_chan_get(dma, false);
		if (IS_ERR(ch)) {
			ret = PTR_ERR(ch);
			goto unmap;
		}
		ch->use[0] = mc;
		for_each_sgtable_dma_sg(&sgt, sg, i) {
			u64 seg = sg_dma_address(sg) | host, len = sg_dma_len(sg);
			u32 descs = neuron_udma_desc_count(len);
			unsigned int flags;

			if (descs > neuron_dma_room(ch)) {
				ret = neuron_dma_run(ch, 0);
				if (ret)
					break;
			}
			flags = neuron_dma_seg_flags(ch, &sgt, sg, i, descs);
			ret = neuron_dma_queue_copy(ch, to_chunk ? seg : dst, to_chunk ? dst : seg,
						    len, flags);
			if (ret) {
				neuron_dma_chan_recover(ch);
				break;
			}
			dst += len;
		}
		if (!ret)
			ret = neuron_dma_run(ch, n);
		if (ch->dead) {
			/* The engine may still use these pages: the channel keeps them. */
			ch->pinned.pages = pages;
			ch->pinned.npages = npages;
			ch->pinned.sgt = sgt;
			ch->pinned.dir = dir;
			atomic64_add(npages, &dma->dead_pages);
			neuron_dma_chan_put(ch);
			pages = NULL;
			break;
		}
		neuron_dma_chan_put(ch);
unmap:
		dma_unmap_sgtable(dev, &sgt, dir, 0);
free_table:
		sg_free_table(&sgt);
unpin:
		unpin_user_pages_dirty_lock(pages, npages, !to_chunk);
next:
		pa += n;
		ubuf += n;
		size -= n;
	}
	kvfree(pages);
	return ret;
}

/**
 * neuron_dma_user_readable() - whether a whole user buffer can be read
 * @buf: the buffer, in the current address space
 * @size: its bytes
 *
 * For a copy into a chunk that does not read the whole buffer before the
 * chunk changes: a bad buffer must fail before.  Faulting every page in
 * reads the buffer once more (a tenth of a 4 MiB copy's time in the
 * simulator).  Private anonymous memory in readable mappings can always be
 * read, short of memory to read it into, so a buffer of such memory only
 * needs its mappings checked; any other (files, shared memory, mappings
 * that are not readable, userfaultfd) is faulted in, as is a buffer of a
 * few pages, for which that costs less than taking the mmap lock.  The
 * mappings cannot tell a guard region (MADV_GUARD_INSTALL, Linux 6.13):
 * a buffer with one inside fails with -EFAULT once the pieces before it
 * are copied.
 *
 * Return: 0, -EFAULT, or -EINTR when a fatal signal came first.
 */
int neuron_dma_user_readable(const void __user *buf, u64 size)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr = (uintptr_t)buf, end;
	struct vm_area_struct *vma;
	bool fault_in = false;
	int ret = 0;

	if (size <= NEURON_DMA_TOUCH_MAX)
		return fault_in_readable(buf, size) ? -EFAULT : 0;
	if (check_add_overflow(addr, (unsigned long)size, &end) || !mm)
		return -EFAULT;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma) {
			ret = -EFAULT;
			break;
		}
		if (!(vma->vm_flags & VM_READ) || !vma_is_anonymous(vma) ||
		    userfaultfd_armed(vma)) {
			fault_in = true;
			break;
		}
		addr = vma->vm_end;
	}
	mmap_read_unlock(mm);
	if (fault_in && fault_in_readable(buf, size))
		ret = -EFAULT;
	return ret;
}

/**
 * neuron_dma_user_copy() - copy between a user buffer and a chunk
 * @nd: the device
 * @mc: the chunk (a reference the caller holds)
 * @off: byte offset in the chunk
 * @buf: user buffer
 * @size: bytes; the caller checked the chunk's range
 * @to_chunk: from @buf into the chunk, else the other way
 *
 * A bad buffer fails before the chunk changes: a copy in one piece reads
 * (or pins) all of it before the engine starts, and a copy into the chunk
 * in more pieces checks the whole buffer first (neuron_dma_user_readable()).
 *
 * Return: as neuron_dma_copy(), -EFAULT, or -EINTR.
 */
int neuron_dma_user_copy(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			 void __user *buf, u64 size, bool to_chunk)
{
	u64 end;
	int ret;

	BUILD_BUG_ON(NEURON_DMA_BOUNCE_MAX > NEURON_DMA_BOUNCE_SIZE);
	if (!size)
		return 0;
	if (check_add_overflow((u64)(uintptr_t)buf, size, &end) || !access_ok(buf, size))
		return -EFAULT;
	ret = neuron_dma_cpu_user(nd, mc, off, buf, size, to_chunk);
	if (ret != -EOPNOTSUPP)
		return ret;
	if (to_chunk && size > (u64)NEURON_DMA_PIN_PAGES * PAGE_SIZE - offset_in_page(buf)) {
		ret = neuron_dma_user_readable(buf, size);
		if (ret)
			return ret;
	}
	if (size <= NEURON_DMA_BOUNCE_MAX)
		return neuron_dma_user_bounce(neuron_dma_of(nd), mc, neuron_dma_pa(mc, off), buf,
					      size, to_chunk);
	return neuron_dma_user_pinned(neuron_dma_of(nd), mc, neuron_dma_pa(mc, off),
				      (uintptr_t)buf, size, to_chunk);
}

/**
 * neuron_dma_chunk_io() - copy between kernel memory and a chunk
 * @nd: the device
 * @mc: the chunk (a reference the caller holds)
 * @off: byte offset in the chunk
 * @buf: kernel buffer
 * @len: bytes; the caller checked the chunk's range
 * @to_chunk: from @buf into the chunk, else the other way
 *
 * A host chunk is copied by the CPU, a device chunk through a channel's
 * bounce buffer.
 *
 * Return: as neuron_dma_copy().
 */
int neuron_dma_chunk_io(struct neuron_device *nd, struct neuron_mem_chunk *mc, u64 off,
			void *buf, u64 len, bool to_chunk)
{
	struct neuron_dma_chan *ch;
	u64 pa = neuron_dma_pa(mc, off);
	int ret = 0;

	if (mc->location == NEURON_MEM_HOST)
		return neuron_mem_cpu_io(mc, off, buf, len, to_chunk);
	ch = neuron_dma_chan_get(neuron_dma_of(nd), false);
	if (IS_ERR(ch))
		return PTR_ERR(ch);
	ch->use[0] = mc;
	while (len && !ret) {
		u64 n = min_t(u64, len, NEURON_DMA_BOUNCE_SIZE);

		if (to_chunk)
			memcpy(ch->bounce, buf, n);
		ret = neuron_dma_queue_copy(ch, to_chunk ? ch->bounce_pa : pa,
					    to_chunk ? pa : ch->bounce_pa, n,
					    NEURON_UDMA_COPY_WR_BARRIER);
		if (!ret)
			ret = neuron_dma_run(ch, n);
		if (!ret && !to_chunk)
			memcpy(buf, ch->bounce, n);
		pa += n;
		buf += n;
		len -= n;
	}
	neuron_dma_chan_put(ch);
	return ret;
}

/* ---- Asynchronous copies --------------------------------------------- */

/**
 * neuron_dma_async_init() - a new file's asynchronous-copy state
 * @as: in the file
 */
void neuron_dma_async_init(struct neuron_dma_async *as)
{
	mutex_init(&as->lock);
	as->chan[0] = NULL;
	as->chan[1] = NULL;
}

/*
 * Finish the copy behind slot @i: wait (killably only if @killable), drop
 * its chunks, give its channel back.  A channel that died keeps the chunks
 * (neuron_dma_chan_kill()).  Called with as->lock and the usage lock held.
 */
static int neuron_dma_async_finish(struct neuron_dma *dma, struct neuron_dma_async *as,
				   unsigned int i, bool killable)
{
	struct neuron_dma_chan *ch = as->chan[i];
	int ret = 0, j;

	if (!ch)
		return 0;
	as->chan[i] = NULL;
	if (dma->gone) {
		/* The device went: neuron_dma_device_gone() stopped and dropped it. */
		return -ENODEV;
	}
	ret = neuron_dma_wait(ch, killable);
	if (!ret)
		atomic64_inc(&dma->copies);
	for (j = 0; j < 2 && !ch->dead; j++) {
		neuron_mem_put(ch->hold[j]);
		ch->hold[j] = NULL;
	}
	atomic_dec(&dma->async_held);
	neuron_dma_chan_put(ch);
	return ret;
}

/**
 * neuron_dma_copy_async() - start a copy, then finish an earlier one
 * @nd: the device
 * @as: the file's asynchronous state
 * @src: source chunk; the copy takes its own reference
 * @src_off: offset in @src
 * @dst: destination chunk; likewise
 * @dst_off: offset in @dst
 * @size: bytes; the caller checked both ranges
 * @pwait: NEURON_DMA_H2T_CTX_HANDLE_NONE, or the handle of an earlier copy
 *	to wait for once this one is started
 * @wait_handle: where the new copy's handle goes
 *
 * The new copy gets the handle @pwait does not use (ASYNC1 after NONE).  A
 * copy still in flight on that handle is finished first.  When every
 * channel the device allows for asynchronous copies is held, or the copy
 * does not fit in one batch of a ring, the copy is carried out
 * synchronously: its handle then has nothing left to wait for.
 *
 * Return: 0; -EINVAL for a bad @pwait; the errors of neuron_dma_copy() for
 * the new copy or of the wait for the earlier one (the new copy is then
 * still started, and @wait_handle valid).
 */
int neuron_dma_copy_async(struct neuron_device *nd, struct neuron_dma_async *as,
			  struct neuron_mem_chunk *src, u64 src_off,
			  struct neuron_mem_chunk *dst, u64 dst_off, u64 size, u32 pwait,
			  u32 *wait_handle)
{
	struct neuron_dma *dma = neuron_dma_of(nd);
	struct neuron_dma_chan *ch = NULL;
	unsigned int slot;
	int ret;

	if (pwait != (u32)NEURON_DMA_H2T_CTX_HANDLE_NONE &&
	    pwait != NEURON_DMA_H2T_CTX_HANDLE_ASYNC1 && pwait != NEURON_DMA_H2T_CTX_HANDLE_ASYNC2)
		return -EINVAL;
	slot = pwait == NEURON_DMA_H2T_CTX_HANDLE_ASYNC1 ? 1 : 0;

	mutex_lock(&as->lock);
	/* The new copy's handle must be free: finish what it still names. */
	ret = neuron_dma_async_finish(dma, as, slot, true);
	if (ret)
		goto out;
	*wait_handle = slot ? NEURON_DMA_H2T_CTX_HANDLE_ASYNC2 : NEURON_DMA_H2T_CTX_HANDLE_ASYNC1;
	if (!size)
		goto wait_prev;

	ret = neuron_dma_setup(dma);
	if (ret)
		goto out;
	/* Dead channels do not count: one live channel stays for synchronous copies. */
	if (neuron_dma_async_reserve(dma)) {
		ch = neuron_dma_chan_get(dma, true);
		if (IS_ERR(ch)) {
			atomic_dec(&dma->async_held);
			ret = PTR_ERR(ch);
			goto out;
		}
		ch->use[0] = src;
		ch->use[1] = dst;
		if (neuron_udma_desc_count(size) > neuron_dma_room(ch)) {
			atomic_dec(&dma->async_held);
			neuron_dma_chan_put(ch);
			ch = NULL;
		}
	}

	if (!ch) {
		ret = neuron_dma_copy(nd, src, src_off, dst, dst_off, size);
		if (ret)
			goto out;
		goto wait_prev;
	}
	ret = neuron_dma_queue_copy(ch, neuron_dma_pa(src, src_off), neuron_dma_pa(dst, dst_off),
				    size, NEURON_UDMA_COPY_WR_BARRIER);
	if (!ret)
		ret = neuron_dma_kick(ch);
	if (ret) {
		neuron_dma_chan_recover(ch);
		atomic_dec(&dma->async_held);
		neuron_dma_chan_put(ch);
		goto out;
	}
	kref_get(&src->ref);
	kref_get(&dst->ref);
	ch->hold[0] = src;
	ch->hold[1] = dst;
	/* The references outlive this call's: @hold, not @use, names them from now on. */
	ch->use[0] = NULL;
	ch->use[1] = NULL;
	atomic64_add(size, &dma->bytes);
	as->chan[slot] = ch;

wait_prev:
	/* @pwait, checked above, comes from user space. */
	if (pwait != (u32)NEURON_DMA_H2T_CTX_HANDLE_NONE)
		ret = neuron_dma_async_finish(dma, as,
					      array_index_nospec(pwait - 1, ARRAY_SIZE(as->chan)),
					      true);
out:
	mutex_unlock(&as->lock);
	return ret;
}

/**
 * neuron_dma_async_wait() - wait for an asynchronous copy
 * @nd: the device
 * @as: the file's asynchronous state
 * @handle: NEURON_DMA_H2T_CTX_HANDLE_ASYNC1 or _ASYNC2
 *
 * Return: 0 (also when nothing is in flight on @handle), -EINVAL for any
 * other handle, or the copy's error.
 */
int neuron_dma_async_wait(struct neuron_device *nd, struct neuron_dma_async *as, u32 handle)
{
	unsigned int slot;
	int ret;

	if (handle != NEURON_DMA_H2T_CTX_HANDLE_ASYNC1 &&
	    handle != NEURON_DMA_H2T_CTX_HANDLE_ASYNC2)
		return -EINVAL;
	/* @handle comes from user space. */
	slot = array_index_nospec(handle - 1, ARRAY_SIZE(as->chan));
	mutex_lock(&as->lock);
	ret = neuron_dma_async_finish(neuron_dma_of(nd), as, slot, true);
	mutex_unlock(&as->lock);
	return ret;
}

/**
 * neuron_dma_async_release() - a file is released: finish its copies
 * @nd: the device
 * @as: the file's asynchronous state
 *
 * Waits for each copy in flight, not killably (the process may be dying),
 * but at most dma_timeout_ms, after which the channel is recovered and the
 * copy dropped; only then are its chunks let go, unless the engine did not
 * stop: the dead channel then keeps them until the device goes.
 */
void neuron_dma_async_release(struct neuron_device *nd, struct neuron_dma_async *as)
{
	unsigned int i;

	mutex_lock(&as->lock);
	for (i = 0; i < 2; i++)
		neuron_dma_async_finish(neuron_dma_of(nd), as, i, false);
	mutex_unlock(&as->lock);
	mutex_destroy(&as->lock);
}

/* ---- State ----------------------------------------------------------- */

/**
 * neuron_dma_engine_check() - set DMA up and check an engine id
 * @dma: the device's DMA state; the caller holds the usage lock
 * @eng_id: an engine id from user space
 *
 * Return: 0, -EINVAL for an engine the device does not have, or the
 * errors of neuron_dma_setup().
 */
int neuron_dma_engine_check(struct neuron_dma *dma, u32 eng_id)
{
	int ret = neuron_dma_setup(dma);

	if (!ret && eng_id >= dma->gen->engines)
		ret = -EINVAL;
	return ret;
}

/* A description of engine @eng_id for reading its registers, or an ERR_PTR. */
static struct neuron_udma_engine *neuron_dma_bind(struct neuron_dma *dma, u32 eng_id)
{
	struct neuron_udma_engine *eng;
	int ret;

	ret = neuron_dma_engine_check(dma, eng_id);
	if (ret)
		return ERR_PTR(ret);
	eng = kmalloc(sizeof(*eng), GFP_KERNEL);
	if (!eng)
		return ERR_PTR(-ENOMEM);
	ret = neuron_udma_engine_bind(eng, dma->nd, dma->gen, eng_id);
	if (ret) {
		kfree(eng);
		return ERR_PTR(ret);
	}
	return eng;
}

/**
 * neuron_dma_engine_state() - state of both halves of an engine
 * @nd: the device
 * @eng_id: engine id
 * @tx: M2S state
 * @rx: S2M state
 *
 * Return: 0, -EINVAL for an engine the device does not have, -EOPNOTSUPP
 * without DMA support, -ENOMEM.
 */
int neuron_dma_engine_state(struct neuron_device *nd, u32 eng_id,
			    enum neuron_udma_state *tx, enum neuron_udma_state *rx)
{
	struct neuron_udma_engine *eng = neuron_dma_bind(neuron_dma_of(nd), eng_id);

	if (IS_ERR(eng))
		return PTR_ERR(eng);
	*tx = neuron_udma_engine_get_state(eng, false);
	*rx = neuron_udma_engine_get_state(eng, true);
	kfree(eng);
	return 0;
}

/**
 * neuron_dma_queue_state() - registers of one queue of an engine, as the
 *	caller may see them
 * @nd: the device
 * @eng_id: engine id
 * @qid: queue
 * @st: filled in
 *
 * The ring bases are not the registers: those hold addresses of driver
 * memory (the channels' rings on the host engines, the shadow rings of
 * user queues), which no process may learn.  Each base is that of the
 * caller's own ring when the queue is one the caller initialised with
 * DMA_QUEUE_INIT (the chunk it named, whose address it knows), else 0:
 * see neuron_dma_queue_bases().
 *
 * Return: as neuron_dma_engine_state(); -EINVAL for a bad @qid too.
 */
int neuron_dma_queue_state(struct neuron_device *nd, u32 eng_id, u32 qid,
			   struct neuron_udma_queue_state *st)
{
	struct neuron_udma_engine *eng = neuron_dma_bind(neuron_dma_of(nd), eng_id);

	if (IS_ERR(eng))
		return PTR_ERR(eng);
	if (qid >= eng->gen->queues) {
		kfree(eng);
		return -EINVAL;
	}
	/* @qid comes from user space. */
	neuron_udma_queue_state(&eng->queue[array_index_nospec(qid, eng->gen->queues)], st);
	kfree(eng);
	neuron_dma_queue_bases(nd, eng_id, qid, &st->m2s.base, &st->s2m.base);
	return 0;
}

/* ---- Device lifetime ------------------------------------------------- */

/* ---- The plane's callbacks ------------------------------------------- */

/**
 * neuron_dma_attach() - a device appeared: its DMA state, not set up yet
 * @nd: the device
 * @priv: set to the state
 *
 * Channels are set up on the device's first DMA use (neuron_dma_setup()).
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_dma_attach(struct neuron_device *nd, void **priv)
{
	struct neuron_dma *dma = kzalloc(sizeof(*dma), GFP_KERNEL);

	if (!dma)
		return -ENOMEM;
	dma->nd = nd;
	mutex_init(&dma->lock);
	spin_lock_init(&dma->busy_lock);
	atomic_set(&dma->async_held, 0);
	atomic_set(&dma->epoch, 0);
	atomic_set(&dma->dead, 0);
	atomic64_set(&dma->dead_pages, 0);
	atomic64_set(&dma->dead_queues, 0);
	atomic64_set(&dma->shadow_bytes, 0);
	xa_init(&dma->uengs);
	mutex_init(&dma->h2t_lock);
	mutex_init(&dma->scrub_lock);
	*priv = dma;
	return 0;
}

/**
 * neuron_dma_engine_cores() - the NeuronCores an engine belongs to
 * @gen: the generation's engine geometry
 * @ncs: NeuronCores of the device
 * @eng_id: engine id, below @gen->engines
 *
 * Derived from the geometry alone, so every generation gets it the same
 * way: the group engines are shared out evenly among the cores in id order
 * (16 per core on v2, v3 and v4: a group per core on v2, half a group on
 * v3 and v4), and so are the host engines (v2: one per core; v3 and v4:
 * one per pair of cores, as in dma_h2t.c).  A reset of any of those cores
 * touches the engine.  When the counts do not divide evenly, every core's
 * reset touches every engine.
 *
 * Return: bit n set for core n; never 0.
 */
u32 neuron_dma_engine_cores(const struct neuron_udma_gen *gen, u32 ncs, u32 eng_id)
{
	u32 grouped = gen->groups * gen->group_engines;
	u32 n = eng_id < grouped ? grouped : gen->engines - grouped;
	u32 e = eng_id < grouped ? eng_id : eng_id - grouped;
	u32 first, per;

	if (!ncs || ncs > 32 || !n || eng_id >= gen->engines)
		return U32_MAX;
	if (n >= ncs) {
		if (n % ncs)
			return U32_MAX;
		return BIT(e / (n / ncs));
	}
	if (ncs % n)
		return U32_MAX;
	per = ncs / n;
	first = e * per;
	return GENMASK(first + per - 1, first);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_dma_engine_cores);

/*
 * Cores @cores (U32_MAX: the device) were reset: the channels on engines
 * the reset touched are programmed again on their next use.  A copy in
 * flight on one ends as it would anyway (the holder alone touches its
 * channel).
 */
static void neuron_dma_chans_reset(struct neuron_dma *dma, u32 cores)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(dma->nd);
	u32 ncs = dhal && dhal->layout ? dhal->layout->nc_count : 0;
	unsigned int i;

	mutex_lock(&dma->lock);
	for (i = 0; dma->ready && i < dma->nr_chans; i++) {
		u32 grouped = dma->gen->groups * dma->gen->group_engines;

		if (neuron_dma_engine_cores(dma->gen, ncs, grouped + i) & cores)
			set_bit(i, &dma->reinit);
	}
	mutex_unlock(&dma->lock);
}

/**
 * neuron_dma_device_reset() - the device was reset
 * @nd: the device
 * @priv: its DMA state
 *
 * Each channel's engine is programmed again on its next use; every user
 * queue becomes stale (neuron_dma_user_reset()) and every user engine is
 * programmed again on its next use; the copy queues processes claimed are
 * released.
 */
void neuron_dma_device_reset(struct neuron_device *nd, void *priv)
{
	struct neuron_dma *dma = priv;

	atomic_inc(&dma->epoch);
	neuron_dma_user_reset(dma, U32_MAX);
	neuron_dma_h2t_reset(nd, U32_MAX);
}

/**
 * neuron_dma_cores_reset() - cores of the device were reset
 * @nd: the device
 * @priv: its DMA state
 * @cores: the cores (bit n: core n)
 *
 * The engines of those cores (neuron_dma_engine_cores()) are programmed
 * again, error handling included, on their next use, the driver's
 * channels among them; the user queues on them become stale
 * (neuron_dma_user_reset()); the copy queues processes claimed for those
 * cores are released.
 */
void neuron_dma_cores_reset(struct neuron_device *nd, void *priv, u32 cores)
{
	struct neuron_dma *dma = priv;

	neuron_dma_chans_reset(dma, cores);
	neuron_dma_user_reset(dma, cores);
	neuron_dma_h2t_reset(nd, cores);
}

/**
 * neuron_dma_process_detach() - a process detached: drop what it holds
 * @nd: the device
 * @priv: its DMA state
 * @tgid: the process
 *
 * Its user queues (which hold their chunks), its claimed copy queues and
 * an unread scrub result.
 */
void neuron_dma_process_detach(struct neuron_device *nd, void *priv, struct pid *tgid)
{
	neuron_dma_detach(nd, tgid);
	neuron_dma_h2t_detach(nd, tgid);
	neuron_dma_scrub_detach(nd, tgid);
}

/**
 * neuron_dma_detach_device() - the device goes, or the plane unloads
 * @nd: the device
 * @priv: its DMA state
 *
 * No DMA command runs on the device and every file's state is released:
 * stops every engine the driver used and waits until it moves no data
 * (NEURON_UDMA_QUIESCE_MS at most each), then drops the chunks of copies
 * still in flight and what dead channels kept (chunks, pinned user pages),
 * frees the rings and the state.  The memory of a channel whose engine
 * still runs then is leaked, with a warning: nothing else is safe.  The
 * registers are still mapped.
 */
void neuron_dma_detach_device(struct neuron_device *nd, void *priv)
{
	struct neuron_dma *dma = priv;
	unsigned int i, running = 0;

	debugfs_remove(dma->debugfs);
	mutex_lock(&dma->lock);
	dma->gone = true;
	if (dma->ready) {
		neuron_dma_user_gone(nd);
		for (i = 0; i < dma->nr_chans; i++) {
			struct neuron_dma_chan *ch = &dma->chans[i];

			if (ch->eng.gen &&
			    neuron_udma_engine_quiesce(&ch->eng, NEURON_UDMA_QUIESCE_MS)) {
				running++;
				continue;
			}
			neuron_dma_chan_free(ch);
		}
		if (running)
			dev_warn_ratelimited(neuron_dma_dev(dma),
					     "%u DMA channels still running as the device goes: their memory is leaked\n",
					     running);
		dma->gen = NULL;
		dma->nr_chans = 0;
		WRITE_ONCE(dma->ready, false);
	}
	mutex_unlock(&dma->lock);
	xa_destroy(&dma->uengs);
	neuron_dma_h2t_reset(nd, U32_MAX);
	neuron_dma_scrub_fini(nd);
	mutex_destroy(&dma->scrub_lock);
	mutex_destroy(&dma->h2t_lock);
	mutex_destroy(&dma->lock);
	kfree(dma);
}

/**
 * neuron_dma_file() - the file's DMA state, made on first use
 * @nf: the file
 *
 * Return: the state, or NULL when it cannot be allocated.
 */
struct neuron_dma_file *neuron_dma_file(struct neuron_file *nf)
{
	struct neuron_dma_file *df = READ_ONCE(nf->plane[NEURON_PLANE_DMA]);
	struct neuron_dma_file *old;

	if (df)
		return df;
	df = kzalloc(sizeof(*df), GFP_KERNEL_ACCOUNT);
	if (!df)
		return NULL;
	neuron_dma_async_init(&df->async);
	neuron_zc_init(&df->zc, nf->nd);
	/* Two calls on one file may race to make it: the first one wins. */
	old = cmpxchg(&nf->plane[NEURON_PLANE_DMA], NULL, df);
	if (old) {
		neuron_zc_release(&df->zc);
		neuron_dma_async_release(nf->nd, &df->async);
		kfree(df);
		return old;
	}
	return df;
}

/**
 * neuron_dma_file_drain() - wait for the file's queued zero-copy transfers
 * @nf: the file
 *
 * A file that never made DMA state has none.
 */
void neuron_dma_file_drain(struct neuron_file *nf)
{
	struct neuron_dma_file *df = READ_ONCE(nf->plane[NEURON_PLANE_DMA]);

	if (df)
		neuron_zc_drain(&df->zc);
}

/**
 * neuron_dma_file_release() - the file goes, or the plane or device does
 * @nf: the file
 * @fpriv: its DMA state
 *
 * Its zero-copy transfers are dropped or ended, its asynchronous copies
 * waited for (at most dma_timeout_ms each), before its chunks can go.
 */
void neuron_dma_file_release(struct neuron_file *nf, void *fpriv)
{
	struct neuron_dma_file *df = fpriv;

	neuron_zc_release(&df->zc);
	neuron_dma_async_release(nf->nd, &df->async);
	kfree(df);
}

/* debugfs: /sys/kernel/debug/neuron/neuronN/dma */
static int neuron_dma_debugfs_show(struct seq_file *s, void *unused)
{
	struct neuron_dma *dma = s->private;

	mutex_lock(&dma->lock);
	seq_printf(s, "channels: %u\n", dma->nr_chans);
	seq_printf(s, "async_channels: %d\n", atomic_read(&dma->async_held));
	mutex_unlock(&dma->lock);
	seq_printf(s, "transfers: %lld\n", (long long)atomic64_read(&dma->copies));
	seq_printf(s, "bytes: %lld\n", (long long)atomic64_read(&dma->bytes));
	seq_printf(s, "cpu_copies: %lld\n", (long long)atomic64_read(&dma->cpu_copies));
	seq_printf(s, "cpu_bytes: %lld\n", (long long)atomic64_read(&dma->cpu_bytes));
	seq_printf(s, "timeouts: %lld\n", (long long)atomic64_read(&dma->timeouts));
	seq_printf(s, "aborted: %lld\n", (long long)atomic64_read(&dma->errors));
	seq_printf(s, "interrupted: %lld\n", (long long)atomic64_read(&dma->interrupted));
	seq_printf(s, "queue_shadow_bytes: %lld\n", (long long)atomic64_read(&dma->shadow_bytes));
	seq_printf(s, "dead_channels: %d\n", atomic_read(&dma->dead));
	seq_printf(s, "dead_channel_pages: %lld\n", (long long)atomic64_read(&dma->dead_pages));
	seq_printf(s, "dead_queues: %lld\n", (long long)atomic64_read(&dma->dead_queues));
	seq_printf(s, "zerocopy_async_queued: %lld\n", (long long)atomic64_read(&dma->zc_queued));
	seq_printf(s, "zerocopy_async_done: %lld\n", (long long)atomic64_read(&dma->zc_done));
	seq_printf(s, "zerocopy_async_failed: %lld\n", (long long)atomic64_read(&dma->zc_failed));
	seq_printf(s, "zerocopy_async_dropped: %lld\n", (long long)atomic64_read(&dma->zc_dropped));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_dma_debugfs);

/**
 * neuron_dma_publish() - the device is published: add its dma debugfs file
 * @nd: the device
 * @priv: its DMA state
 */
void neuron_dma_publish(struct neuron_device *nd, void *priv)
{
	struct neuron_dma *dma = priv;
	struct dentry *dir = neuron_device_debugfs(nd);

	if (!IS_ERR_OR_NULL(dir))
		dma->debugfs = debugfs_create_file("dma", 0400, dir, dma,
						   &neuron_dma_debugfs_fops);
}
