// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_udma: the UDMA engine library of the Neuron driver.  See
 * include/neuron/udma.h and Documentation/dma.rst.
 *
 * The core reaches the library through the ops table below, registered at
 * load time, so that it does not link against this module and loads it
 * only when a device first needs DMA.  The functions are also exported in
 * the NEURON namespace for tests.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <neuron/compat.h>
#include <neuron/udma.h>

static const struct neuron_udma_ops neuron_udma_impl = {
	.owner = THIS_MODULE,
	.engine_bind = neuron_udma_engine_bind,
	.engine_init = neuron_udma_engine_init,
	.engine_error_setup = neuron_udma_engine_error_setup,
	.engine_set_state = neuron_udma_engine_set_state,
	.engine_get_state = neuron_udma_engine_get_state,
	.queue_init = neuron_udma_queue_init,
	.queue_reset = neuron_udma_queue_reset,
	.queue_state = neuron_udma_queue_state,
	.copy_prepare = neuron_udma_copy_prepare,
	.marker_prepare = neuron_udma_marker_prepare,
	.doorbell = neuron_udma_doorbell,
	.submit = neuron_udma_submit,
	.ack = neuron_udma_ack,
};

static int __init neuron_udma_init(void)
{
	return neuron_udma_register(&neuron_udma_impl);
}

static void __exit neuron_udma_exit(void)
{
	neuron_udma_unregister(&neuron_udma_impl);
}

module_init(neuron_udma_init);
module_exit(neuron_udma_exit);

NEURON_IMPORT_NS();
MODULE_DESCRIPTION("AWS Neuron accelerator driver: UDMA engine library");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
