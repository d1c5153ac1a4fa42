/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Peer-direct access to Neuron device memory for a NIC driver (EFA): the
 * physical pages behind a process's mapping of a device-memory chunk, and
 * a callback when that mapping goes away.
 *
 * The two functions are exported GPL without a symbol namespace: the EFA
 * driver finds them at run time with symbol_get() and carries its own copy
 * of this header, so the layout of both structures and the prototypes are
 * ABI and must not change.  See Documentation/p2p.rst.
 */
#ifndef _NEURON_P2P_H
#define _NEURON_P2P_H

#include <linux/types.h>

/**
 * struct neuron_p2p_page_info - a run of physically contiguous pages
 * @physical_address: physical (bus) address of the first page
 * @page_count: pages in the run, each 1 << &neuron_p2p_va_info.shift_page_size
 *	bytes
 *
 * 16 bytes on 64-bit kernels (4 bytes of tail padding).
 */
struct neuron_p2p_page_info {
	u64 physical_address;
	u32 page_count;
};

/**
 * struct neuron_p2p_va_info - a registered range of device memory
 * @virtual_address: the user address the range was registered at
 * @size: the length asked for, in bytes
 * @shift_page_size: log2 of the page size of @page_info
 * @device_index: index of the Neuron device (/dev/neuronN) the memory is on
 * @entries: number of elements of @page_info
 * @page_info: the pages, in address order of the range
 *
 * Offsets on 64-bit kernels: @virtual_address 0, @size 8, @shift_page_size
 * 16, @device_index 20, @entries 24, @page_info 32.  Owned by the driver:
 * read-only for the caller, valid until neuron_p2p_unregister_va().
 */
struct neuron_p2p_va_info {
	void *virtual_address;
	u64 size;
	u32 shift_page_size;
	u32 device_index;
	u32 entries;
	struct neuron_p2p_page_info page_info[];
};

int neuron_p2p_register_va(u64 virtual_address, u64 length, struct neuron_p2p_va_info **vainfo,
			   void (*free_callback)(void *data), void *data);
int neuron_p2p_unregister_va(struct neuron_p2p_va_info *vainfo);

#endif /* _NEURON_P2P_H */
