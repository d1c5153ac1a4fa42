/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What neuron_dhal_v3 exports for later generations built on it.
 */
#ifndef _NEURON_DHAL_V3_H
#define _NEURON_DHAL_V3_H

#include <neuron/dhal.h>

extern const struct neuron_dhal_layout neuron_dhal_v3_layout;
extern const struct neuron_dhal_fw neuron_dhal_v3_fw;
extern const struct neuron_dhal_user neuron_dhal_v3_user;
extern const u64 neuron_dhal_v3_hbm_base[4];

#endif /* _NEURON_DHAL_V3_H */
