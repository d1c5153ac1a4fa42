/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver version the Neuron runtime sees.  It is the version of the
 * reference driver whose ABI this driver implements, so that the runtime's
 * compatibility checks accept it.
 */
#ifndef _NEURON_VERSION_H
#define _NEURON_VERSION_H

#define NEURON_DRIVER_VERSION	"2.27.4.0"

#endif /* _NEURON_VERSION_H */
