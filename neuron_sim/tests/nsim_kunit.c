// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated devices for the neuron_sim KUnit suites (nsim_kunit.h).
 */

#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "nsim_kunit.h"

/* A device of generation @gen with id and routing id @id and 1 MiB of device memory. */
static struct nsim_dev *nsim_kunit_alloc(struct kunit *test, const struct nsim_gen *gen,
					 unsigned int id)
{
	struct nsim_dev *sd;
	int ret;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sd);
	sd->id = id;
	sd->rid = id;
	sd->gen = gen;
	sd->mem_size = SZ_1M;
	ret = nsim_regs_init(sd, NSIM_FAULT_NONE);
	if (ret) {
		kfree(sd);
		sd = NULL;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	return sd;
}

static void nsim_kunit_regs_free(void *data)
{
	struct nsim_dev *sd = data;

	nsim_regs_stop(sd);
	nsim_regs_fini(sd);
	kfree(sd);
}

/**
 * nsim_kunit_regs_dev() - a device with no struct device, for the register model
 * @test: the test, which frees the device when it ends
 * @gen: its generation
 * @id: its id and routing id
 *
 * Return: the device, its bus description filled in.
 */
struct nsim_dev *nsim_kunit_regs_dev(struct kunit *test, const struct nsim_gen *gen,
				     unsigned int id)
{
	struct nsim_dev *sd = nsim_kunit_alloc(test, gen, id);

	nsim_regs_fill_desc(sd, &sd->desc);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nsim_kunit_regs_free, sd), 0);
	return sd;
}

static void nsim_kunit_release(struct device *dev)
{
	struct nsim_dev *sd = container_of(dev, struct nsim_dev, dev);

	nsim_regs_fini(sd);
	kfree(sd);
}

/**
 * nsim_kunit_dma_dev() - a device with a struct device, for the DMA API
 * @test: the test
 * @gen: its generation
 * @id: its id and routing id
 * @name: the name of its struct device
 * @sdp: gets the device as soon as it holds a reference, which the suite's
 *	exit drops with nsim_kunit_dma_dev_put() (set test->priv first)
 * @bar4: gets its device memory, mapped
 *
 * The struct device is initialised, not registered; 64-bit DMA.
 */
void nsim_kunit_dma_dev(struct kunit *test, const struct nsim_gen *gen, unsigned int id,
			const char *name, struct nsim_dev **sdp, struct neuron_bar *bar4)
{
	struct nsim_dev *sd = nsim_kunit_alloc(test, gen, id);

	device_initialize(&sd->dev);
	sd->dev.release = nsim_kunit_release;
	*sdp = sd;
	KUNIT_ASSERT_EQ(test, dev_set_name(&sd->dev, "%s", name), 0);
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(&sd->dev, DMA_BIT_MASK(64)), 0);
	nsim_regs_fill_desc(sd, &sd->desc);
	KUNIT_ASSERT_EQ(test, sd->desc.map_bar(sd, NSIM_BAR_MEM, false, bar4), 0);
}

/**
 * nsim_kunit_host_buf() - host memory mapped for a device of nsim_kunit_dma_dev()
 * @test: the test
 * @sd: the device
 * @size: bytes, zeroed
 * @buf: gets the memory
 * @dma: gets its DMA address (bidirectional)
 */
void nsim_kunit_host_buf(struct kunit *test, struct nsim_dev *sd, size_t size, u8 **buf,
			 dma_addr_t *dma)
{
	*buf = kzalloc(size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *buf);
	*dma = dma_map_single(&sd->dev, *buf, size, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, dma_mapping_error(&sd->dev, *dma));
}

/**
 * nsim_kunit_dma_dev_put() - the end of a device of nsim_kunit_dma_dev()
 * @sd: the device, or NULL when there is none yet
 * @buf: its host memory of nsim_kunit_host_buf(), or NULL
 * @dma: the DMA address of @buf, or 0
 * @size: bytes of @buf
 *
 * Unmaps and frees @buf, stops the device and drops its reference.
 */
void nsim_kunit_dma_dev_put(struct nsim_dev *sd, u8 *buf, dma_addr_t dma, size_t size)
{
	if (!sd)
		return;
	if (buf) {
		if (dma)
			dma_unmap_single(&sd->dev, dma, size, DMA_BIDIRECTIONAL);
		kfree(buf);
	}
	nsim_regs_stop(sd);
	put_device(&sd->dev);
}
