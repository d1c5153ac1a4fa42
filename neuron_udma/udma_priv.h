/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_udma private declarations: the two functions every register
 * access of the library goes through (KUnit replaces them with a fake
 * register space through static stubs).
 */
#ifndef _NEURON_UDMA_PRIV_H
#define _NEURON_UDMA_PRIV_H

#include <neuron/udma.h>

u32 neuron_udma_rd(const struct neuron_udma_engine *eng, u64 off);
void neuron_udma_wr(const struct neuron_udma_engine *eng, u64 off, u32 val);

/* Offset of queue @qid's register @reg in the M2S or S2M half. */
static inline u32 neuron_udma_qreg(bool s2m, unsigned int qid, u32 reg)
{
	return (s2m ? NEURON_UDMA_S2M : NEURON_UDMA_M2S) + NEURON_UDMA_QUEUE(qid) + reg;
}

#endif /* _NEURON_UDMA_PRIV_H */
