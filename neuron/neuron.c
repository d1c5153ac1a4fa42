// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the name hosts, images and scripts know the driver by.
 *
 * The driver is split into neuron_core, one DHAL module per generation and
 * the DMA and telemetry planes.  This module holds nothing but the name:
 *
 *   /sys/module/neuron/version   the driver version the Neuron runtime reads;
 *   modprobe neuron              loads the whole driver (soft dependencies);
 *   modprobe -r neuron           unloads it again (the same, in reverse);
 *   lsmod | grep neuron          lists it.
 *
 * neuron_core names this module as a soft dependency to load after it, so
 * the version file exists however the driver was loaded: by name, by udev
 * for a PCI function (modprobe of the modalias), or by the core loading a
 * DHAL on demand.  kmod follows soft dependencies recursively, so that
 * also loads every DHAL and plane: each is small, and each can still be
 * unloaded on its own (Documentation/architecture.rst).
 *
 * modprobe -r removes "pre" soft dependencies in reverse order: listed in
 * load order below, the planes and DHALs go first; the last of them takes
 * neuron_core along, as a dependency nothing uses any more.  neuron_core
 * is not listed: it names this module, and kmod would remove it twice.
 */

#include <linux/module.h>

#include <neuron/version.h>

MODULE_SOFTDEP("pre: neuron_dhal_v2 neuron_dhal_v3 neuron_dhal_v4 neuron_udma neuron_telemetry");
MODULE_DESCRIPTION("AWS Neuron accelerator driver (loads neuron_core, the DHALs and the planes)");
MODULE_AUTHOR("The neuron driver authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
