// SPDX-License-Identifier: GPL-2.0
/*
 * The memory layer as a built-in plane of neuron_core: its command
 * families and the callbacks through which the base layer tells it of
 * devices, processes and mappings (include/neuron/plane.h gives the order
 * of the calls).  The table of every command number and its owner is the
 * base's (base/dispatch.c).
 */

#include <linux/errno.h>
#include <linux/module.h>

#include "memory/mem.h"

/* Families of one or two commands, as in base/dispatch.c. */
#define F1(g, type, fn)		NEURON_IOCTL_F1(g, type, fn)
#define F2(g, type, fn, ...)	NEURON_IOCTL_F2(g, type, fn, __VA_ARGS__)
#define ANY		NEURON_GATE_ANY
#define ATT		NEURON_GATE_ATTACHED

/* The memory commands, by number; each handler is beside its object. */
static const struct neuron_ioctl_family neuron_mem_ioctls[NEURON_IOCTL_MAX_NR + 1] = {
	F1(ATT, NEURON_IOCTL_MEM_ALLOC, neuron_ioctl_mem_alloc),
	F1(ATT, NEURON_IOCTL_MEM_FREE, neuron_ioctl_mem_free),
	F1(ATT, NEURON_IOCTL_MEM_GET_PA, neuron_ioctl_mem_get_pa),
	F1(ATT, NEURON_IOCTL_MEM_GET_INFO, neuron_ioctl_mem_get_info),
	F1(ATT, NEURON_IOCTL_MEM_GET_EXTENDED_INFO, neuron_ioctl_mem_get_extended_info),
	[_IOC_NR(NEURON_IOCTL_MEM_ALLOC_V2) +
	 NEURON_IOCTL_SAME_NR(NEURON_IOCTL_MEM_ALLOC_V2, NEURON_IOCTL_MEM_ALLOC_V2MT) +
	 NEURON_IOCTL_SAME_NR(NEURON_IOCTL_MEM_ALLOC_V2, NEURON_IOCTL_MEM_ALLOC_V2MT64) +
	 NEURON_IOCTL_SAME_NR(NEURON_IOCTL_MEM_ALLOC_V2, NEURON_IOCTL_MEM_ALLOC_V2MT64_PA)] = {
		.gate = ATT, .n = 4, .cmds = {
			{ NEURON_IOCTL_MEM_ALLOC_V2, neuron_ioctl_mem_alloc_v2 },
			{ NEURON_IOCTL_MEM_ALLOC_V2MT, neuron_ioctl_mem_alloc_v2mt },
			{ NEURON_IOCTL_MEM_ALLOC_V2MT64, neuron_ioctl_mem_alloc_v2mt64 },
			{ NEURON_IOCTL_MEM_ALLOC_V2MT64_PA, neuron_ioctl_mem_alloc_v2mt64_pa },
		},
	},
	F1(ANY, NEURON_IOCTL_DMABUF_FD, neuron_ioctl_dmabuf_fd),
	F2(ATT, NEURON_IOCTL_MEM_MC_GET_INFO, neuron_ioctl_mem_mc_get_info,
	   NEURON_IOCTL_MEM_MC_GET_INFO_V2, neuron_ioctl_mem_mc_get_info_v2),
	F1(ATT, NEURON_IOCTL_DUMP_MEM_CHUNKS, neuron_ioctl_dump_mem_chunks),
	F1(ANY, NEURON_IOCTL_GET_VA_PLACEMENT, neuron_ioctl_va_placement),
	/* Host pinning (2.28) is not written yet: Documentation/memory.rst. */
	F1(ANY, NEURON_IOCTL_HOST_MEM_PIN, NULL),
	F1(ANY, NEURON_IOCTL_HOST_MEM_UNPIN, NULL),
	F1(ANY, NEURON_IOCTL_DMABUF_FD_V2, neuron_ioctl_dmabuf_fd_v2),
};

/* Attach: the device's memory state, before anyone can use the device. */
static int neuron_mem_plane_attach(struct neuron_device *nd, void **priv)
{
	return neuron_mem_init(nd);
}

/* Published: "memory" in its debugfs directory. */
static void neuron_mem_plane_publish(struct neuron_device *nd, void *priv)
{
	neuron_mem_debugfs_add(nd);
}

/*
 * Removed: no mapping is made any more, then the existing ones go (every
 * open file's address space), peer-direct users stop their DMA before the
 * BARs go, and the host chunks' memory goes while the bus device exists.
 */
static void neuron_mem_plane_remove(struct neuron_device *nd)
{
	neuron_mem_device_gone(nd);
	neuron_files_zap(nd);
	neuron_p2p_device_gone(nd);
	neuron_mem_host_free_all(nd);
}

/* The process's handles go with its attach slot. */
static void neuron_mem_plane_process_gone(struct neuron_device *nd, struct pid *tgid)
{
	neuron_mem_detach_locked(nd, tgid);
}

static const struct neuron_plane neuron_mem_plane = {
	.owner = THIS_MODULE,
	.name = "memory",
	.id = NEURON_PLANE_MEM,
	.ioctls = neuron_mem_ioctls,
	.builtin = true,
	.device_attach = neuron_mem_plane_attach,
	.device_publish = neuron_mem_plane_publish,
	.device_setup = neuron_mem_setup,
	.device_remove = neuron_mem_plane_remove,
	.device_free = neuron_mem_fini,
	.process_gone_locked = neuron_mem_plane_process_gone,
	.app_info = neuron_mem_app_info,
	.mmap = neuron_mem_mmap,
};

/**
 * neuron_mem_layer_init() - register the memory layer's plane
 *
 * Return: 0 or what neuron_plane_register_builtin() returns.
 */
int neuron_mem_layer_init(void)
{
	return neuron_plane_register_builtin(&neuron_mem_plane);
}

/** neuron_mem_layer_exit() - withdraw it, once every device went */
void neuron_mem_layer_exit(void)
{
	neuron_plane_unregister_builtin(&neuron_mem_plane);
}
