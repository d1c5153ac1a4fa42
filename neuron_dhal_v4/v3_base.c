// SPDX-License-Identifier: GPL-2.0
/* The third generation's tables, which this generation shares (see there). */
#include "../neuron_dhal_v3/v3_base.c"
