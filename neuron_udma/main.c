// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_udma: the UDMA engine library of the Neuron driver.  See
 * include/neuron/udma.h and Documentation/dma.rst.
 *
 * The functions are exported in the NEURON namespace for the DHAL modules.
 * The core is meant to reach them through the ops table below, registered
 * at load time, so that it does not link against this module; until the
 * core has that hook (neuron_udma_register()), the table is only built.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <neuron/compat.h>
#include <neuron/udma.h>

static const struct neuron_udma_ops neuron_udma_impl __maybe_unused = {
	.owner = THIS_MODULE,
	.gen_default = neuron_udma_gen_default,
	.engine_init = neuron_udma_engine_init,
	.engine_error_setup = neuron_udma_engine_error_setup,
	.engine_set_state = neuron_udma_engine_set_state,
	.engine_get_state = neuron_udma_engine_get_state,
	.queue_init = neuron_udma_queue_init,
	.queue_reset = neuron_udma_queue_reset,
	.queue_state = neuron_udma_queue_state,
	.copy_prepare = neuron_udma_copy_prepare,
	.marker_prepare = neuron_udma_marker_prepare,
	.submit = neuron_udma_submit,
	.ack = neuron_udma_ack,
};

static int __init neuron_udma_init(void)
{
	/* Registration with the core goes here: neuron_udma_register(&neuron_udma_impl). */
	return 0;
}

static void __exit neuron_udma_exit(void)
{
	/* And here: neuron_udma_unregister(&neuron_udma_impl). */
}

module_init(neuron_udma_init);
module_exit(neuron_udma_exit);

NEURON_IMPORT_NS();
MODULE_DESCRIPTION("AWS Neuron accelerator driver: UDMA engine library");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
