/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pods (pod.c): the pure parts the KUnit tests reach, and the hooks the
 * rest of the core calls.
 */
#ifndef _NEURON_CORE_POD_H
#define _NEURON_CORE_POD_H

#include <linux/types.h>

#include <neuron/dhal.h>

struct neuron_device;
struct neuron_file;

/* Neighbour links, as bits of an lr_mask. */
#define NEURON_POD_LEFT		0x1
#define NEURON_POD_RIGHT	0x2
#define NEURON_POD_BOTH		(NEURON_POD_LEFT | NEURON_POD_RIGHT)

/* Devices of a node at most (the election's data says "index" below 16). */
#define NEURON_POD_MAX_NODE_DEVICES	16

/**
 * enum neuron_pod_estate - the election's state of one node
 * @NEURON_PE_INIT: no election ran or was adopted yet
 * @NEURON_PE_IN_PROGRESS: the election thread runs one
 * @NEURON_PE_SUCCESS: the node is a member of a pod
 * @NEURON_PE_FAILURE: the node runs alone
 */
enum neuron_pod_estate {
	NEURON_PE_INIT,
	NEURON_PE_IN_PROGRESS,
	NEURON_PE_SUCCESS,
	NEURON_PE_FAILURE,
};

/**
 * struct neuron_pod_view - a consistent copy of a node's pod state
 * @platform: what the node is
 * @state: the election's state
 * @mode: the UltraServer mode chosen (enum neuron_ultraserver_mode)
 * @lr_mask: links the last successful election used
 * @node_id: the node's id in the pod, -1 when none
 * @node_cnt: nodes in the pod, 0 when none
 * @serial: the pod's serial number, 0 when none
 */
struct neuron_pod_view {
	enum neuron_platform platform;
	enum neuron_pod_estate state;
	u32 mode;
	u32 lr_mask;
	int node_id;
	u32 node_cnt;
	u64 serial;
};

int neuron_pod_node_id(u64 self, u64 left, u64 right, u64 diag, u32 lr_mask,
		       int *node_id, u32 *node_cnt, u64 *serial);
u32 neuron_pod_modes_supported(const struct neuron_pod_view *v);
void neuron_pod_modal(const struct neuron_pod_view *v, u32 mode, int *node_id,
		      u32 *node_cnt, u64 *serial);
enum neuron_platform neuron_pod_platform_lookup(const struct neuron_dhal_pod *dp,
						const char *product);
u32 neuron_pod_platform_nodes(const struct neuron_dhal_pod *dp, const char *product);
int neuron_pod_nbr_addr(const struct neuron_dhal_pod *dp, unsigned int link, unsigned int k,
			u32 reg, u32 *eng, u64 *addr);

void neuron_pod_device_ready(struct neuron_device *nd);
void neuron_pod_device_gone(struct neuron_device *nd);
void neuron_pod_marks_released(u64 devs);
u32 neuron_pod_die_flip(struct neuron_device *nd);
int neuron_pod_class_files(bool add);

#endif /* _NEURON_CORE_POD_H */
