/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_udma private declarations.  The two register accessors,
 * neuron_udma_rd() and neuron_udma_wr(), are declared in
 * <neuron/udma.h>: the simulator's KUnit tests redirect them too.
 */
#ifndef _NEURON_UDMA_PRIV_H
#define _NEURON_UDMA_PRIV_H

#include <neuron/udma.h>

/* Offset of queue @qid's register @reg in the M2S or S2M half. */
static inline u32 neuron_udma_qreg(bool s2m, unsigned int qid, u32 reg)
{
	return (s2m ? NEURON_UDMA_S2M : NEURON_UDMA_M2S) + NEURON_UDMA_QUEUE(qid) + reg;
}

#endif /* _NEURON_UDMA_PRIV_H */
