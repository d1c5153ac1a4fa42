/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core's base layer: the dispatcher's table (dispatch.c), which
 * names the plane that serves each command number; the planes above
 * list their handlers in their own tables.  Every handler runs with the
 * device's usage lock held for read, on a device that is not removed,
 * after its family's gate passed; @arg is the ioctl argument, unchecked.
 */
#ifndef _NEURON_CORE_DISPATCH_H
#define _NEURON_CORE_DISPATCH_H

#include <linux/compiler_types.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include <neuron/neuron_ioctl.h>

#include "core.h"

/* dispatch.c: the dispatcher's table (plane.c publishes planes' families) */
void neuron_ioctl_init(void);
int neuron_ioctl_check_plane(const struct neuron_plane *p);
void neuron_ioctl_publish(const struct neuron_plane *p);
void neuron_ioctl_withdraw(const struct neuron_plane *p);
void neuron_ioctl_sync(void);
long neuron_ioctl_rejected(struct neuron_file *nf, void __user *arg);

#endif /* _NEURON_CORE_DISPATCH_H */
