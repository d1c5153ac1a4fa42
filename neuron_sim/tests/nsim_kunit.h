/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the neuron_sim KUnit suites: simulated devices of the module's
 * own generations (nsim_gens[]) built by hand, with no core device, either
 * bare (the register model only) or with a struct device that host memory
 * is mapped for with the DMA API, as the driver does.
 */
#ifndef _NSIM_KUNIT_H
#define _NSIM_KUNIT_H

#include <kunit/test.h>
#include <linux/types.h>

#include "../sim.h"

struct nsim_dev *nsim_kunit_regs_dev(struct kunit *test, const struct nsim_gen *gen,
				     unsigned int id);
void nsim_kunit_dma_dev(struct kunit *test, const struct nsim_gen *gen, unsigned int id,
			const char *name, struct nsim_dev **sdp, struct neuron_bar *bar4);
void nsim_kunit_host_buf(struct kunit *test, struct nsim_dev *sd, size_t size, u8 **buf,
			 dma_addr_t *dma);
void nsim_kunit_dma_dev_put(struct nsim_dev *sd, u8 *buf, dma_addr_t dma, size_t size);

#endif /* _NSIM_KUNIT_H */
