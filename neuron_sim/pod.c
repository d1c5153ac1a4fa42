// SPDX-License-Identifier: GPL-2.0
/*
 * The neighbour links of simulated devices, for the pod election: each
 * device's two links (left, right) reach the MiscRAM of a device of another
 * simulated node, following a wiring table, with fault switches.
 *
 * Simulated device id i is device i % N of node i / N, where N is the
 * core's pod_node_devices (neuron_pod_node_devices()).  Module parameter
 * pod_nodes picks the wiring of nodes 0 .. pod_nodes - 1:
 *
 * - 4: left links pair nodes 0-1 and 2-3, right links 0-3 and 1-2;
 * - 2: both links of node 0 go to node 1 and back;
 * - 0 (default): links lead nowhere (a read aborts the engine).
 *
 * Device d of a node is linked to device d of the neighbour node.  Fault
 * switches (debugfs pod_fault of each device): broken_left/broken_right
 * (the link fails, seen from both ends), silent (whatever reads the device
 * over a link reads 0xdeadbeef), miswire_left/miswire_right (the device's
 * link reaches device d + 1 of the neighbour instead of d).
 *
 * A link is reached through the DMA engines, as on hardware: a descriptor
 * of one of the link's two neighbour engines whose source lies in the B0
 * window of the engine's group (nsim_pod_window()) reads the far end's
 * MiscRAM (nsim_pod_dma_read(), called by the engine model in dma.c).  A
 * link that fails aborts the engine.  Debugfs pod_dma_reads counts such
 * reads per device.
 */

#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/lockdep.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>
#include <neuron/compat.h>
#include <neuron/device.h>

#include "sim.h"

static unsigned int nsim_pod_nodes;
module_param_named(pod_nodes, nsim_pod_nodes, uint, 0644);
MODULE_PARM_DESC(pod_nodes, "Simulated pod nodes wired together: 0 (none), 2 or 4");

/*
 * Protects nsim_link_devs[]: a device is in it from before the core sees
 * it until it is unregistered, so a neighbour's read never finds freed
 * memory.  Taken before a device's lock, never inside it.
 */
static DEFINE_SPINLOCK(nsim_link_lock);
static struct nsim_dev *nsim_link_devs[NSIM_MAX_DEVICES];

/* Neighbour node of each node, per link: [4 nodes?][link][node]. */
static const u8 nsim_wiring[2][2][4] = {
	{ { 1, 0, 0, 0 }, { 1, 0, 0, 0 } },	/* two nodes */
	{ { 1, 0, 3, 2 }, { 3, 2, 1, 0 } },	/* four nodes */
};

static const char * const nsim_pod_fault_names[NSIM_POD_FAULTS] = {
	[NSIM_POD_BROKEN_LEFT] = "broken_left",
	[NSIM_POD_BROKEN_RIGHT] = "broken_right",
	[NSIM_POD_SILENT] = "silent",
	[NSIM_POD_MISWIRE_LEFT] = "miswire_left",
	[NSIM_POD_MISWIRE_RIGHT] = "miswire_right",
};

/* Neighbour engines per generation: [link][k]. */
static const struct {
	u8 gen;
	u8 eng[2][2];
} nsim_nbr_engines[] = {
	{ 3, { { 36, 68 }, { 4, 100 } } },
	{ 4, { { 40, 72 }, { 8, 104 } } },
};

/* The B0 windows (address bits 63:48, per group of 32 engines) and MiscRAM in one. */
static const u16 nsim_nbr_window[4] = { 0x10, 0x14, 0x18, 0x1c };
#define NSIM_NBR_WINDOW_ENGINES	32
#define NSIM_NBR_MISC		0x8006c84000ULL

/**
 * nsim_pod_window() - decode a neighbour-window address
 * @gen: generation number
 * @eng: the engine reading it
 * @addr: device address
 * @len: bytes read from there
 * @off: the MiscRAM offset it reads
 *
 * Return: the link (0 left, 1 right) when @addr lies in one of the B0
 * neighbour windows and @eng is a neighbour engine of that link whose
 * group owns the window; -ENOENT when @addr lies in no window (it is no
 * neighbour read); -EINVAL for a read in a window that is not the
 * engine's, by an engine that is no neighbour engine, or past MiscRAM.
 */
int nsim_pod_window(u8 gen, unsigned int eng, u64 addr, u32 len, u32 *off)
{
	unsigned int i, w, link, k;
	u64 low = addr & GENMASK_ULL(47, 0);

	for (w = 0; w < ARRAY_SIZE(nsim_nbr_window); w++)
		if (addr >> 48 == nsim_nbr_window[w])
			break;
	if (w == ARRAY_SIZE(nsim_nbr_window) || low < NSIM_NBR_MISC)
		return -ENOENT;
	if (low - NSIM_NBR_MISC >= NSIM_MISC_SIZE)
		return -ENOENT;
	*off = low - NSIM_NBR_MISC;
	if (!len || len > NSIM_MISC_SIZE - *off || eng / NSIM_NBR_WINDOW_ENGINES != w)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(nsim_nbr_engines); i++) {
		if (nsim_nbr_engines[i].gen != gen)
			continue;
		for (link = 0; link < 2; link++)
			for (k = 0; k < 2; k++)
				if (nsim_nbr_engines[i].eng[link][k] == eng)
					return link;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(nsim_pod_window);

/**
 * nsim_pod_dma_read() - a DMA engine's read of a neighbour window
 * @sd: the simulated device whose engine reads
 * @eng: the engine
 * @addr: the source address of the descriptor
 * @dst: where the bytes go
 * @len: how many
 *
 * Called by the engine model with @sd's dma_lock held (which protects the
 * count of neighbour reads).  Reads the MiscRAM of the device at the far
 * end of the link, following the wiring table and the fault switches: a
 * silent device reads 0xdeadbeef.
 *
 * Return: 0 when the bytes were read; -ENOENT when @addr is no neighbour
 * window (the engine resolves it as any other); else an error that aborts
 * the engine: -EINVAL (not this engine's window), -ENODEV (nothing at the
 * end of the link), -EIO (the link is broken).
 */
int nsim_pod_dma_read(struct nsim_dev *sd, unsigned int eng, u64 addr, void *dst, u32 len)
{
	unsigned int n = neuron_pod_node_devices();
	unsigned int nodes = READ_ONCE(nsim_pod_nodes);
	u32 fault = READ_ONCE(sd->pod_fault), off, i;
	unsigned int node = sd->id / n, d = sd->id % n, pnode, pd;
	struct nsim_dev *peer;
	int link, ret = 0;

	lockdep_assert_held(&sd->dma_lock);
	link = nsim_pod_window(sd->gen->gen, eng, addr, len, &off);
	if (link < 0)
		return link;
	sd->pod_dma_reads++;
	if ((nodes != 2 && nodes != 4) || node >= nodes)
		return -ENODEV;
	if (fault & BIT(NSIM_POD_BROKEN_LEFT + link))
		return -EIO;
	pnode = nsim_wiring[nodes == 4][link][node];
	pd = fault & BIT(NSIM_POD_MISWIRE_LEFT + link) ? (d + 1) % n : d;

	spin_lock(&nsim_link_lock);
	peer = nsim_link_devs[pnode * n + pd];
	if (!peer) {
		ret = -ENODEV;
	} else if (READ_ONCE(peer->pod_fault) & BIT(NSIM_POD_BROKEN_LEFT + link)) {
		/* Left links join left links and right right: the far end's fault. */
		ret = -EIO;
	} else if (READ_ONCE(peer->pod_fault) & BIT(NSIM_POD_SILENT)) {
		__le32 nr = cpu_to_le32(NSIM_REG_NOT_READY);

		for (i = 0; i < len; i++)
			((u8 *)dst)[i] = ((u8 *)&nr)[(off + i) % 4];
	} else {
		spin_lock(&peer->lock);
		memcpy(dst, (u8 *)peer->misc + off, len);
		spin_unlock(&peer->lock);
	}
	spin_unlock(&nsim_link_lock);
	return ret;
}

/**
 * nsim_pod_add() - make a device reachable over its neighbours' links
 * @sd: the simulated device, its registers set up
 */
void nsim_pod_add(struct nsim_dev *sd)
{
	spin_lock(&nsim_link_lock);
	nsim_link_devs[sd->id] = sd;
	spin_unlock(&nsim_link_lock);
}

/**
 * nsim_pod_del() - make a device unreachable; no read of it runs after
 * @sd: the simulated device
 */
void nsim_pod_del(struct nsim_dev *sd)
{
	spin_lock(&nsim_link_lock);
	if (nsim_link_devs[sd->id] == sd)
		nsim_link_devs[sd->id] = NULL;
	spin_unlock(&nsim_link_lock);
}

static ssize_t nsim_pod_fault_read(struct file *file, char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	u32 fault = READ_ONCE(sd->pod_fault);
	char buf[96];
	int len = 0, i;

	for (i = 0; i < NSIM_POD_FAULTS; i++)
		if (fault & BIT(i))
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " " : "",
					 nsim_pod_fault_names[i]);
	len += scnprintf(buf + len, sizeof(buf) - len, "%s\n", len ? "" : "none");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A space-separated list of fault names, or "none"; replaces the switches. */
static ssize_t nsim_pod_fault_write(struct file *file, const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct nsim_dev *sd = file->private_data;
	char buf[96], *p, *tok;
	u32 fault = 0;
	int i, ret;

	if (*ppos)
		return -EINVAL;
	ret = nsim_debugfs_str(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	p = strim(buf);
	while ((tok = strsep(&p, " ")) != NULL) {
		if (!*tok || !strcmp(tok, "none"))
			continue;
		for (i = 0; i < NSIM_POD_FAULTS; i++)
			if (!strcmp(tok, nsim_pod_fault_names[i]))
				break;
		if (i == NSIM_POD_FAULTS)
			return -EINVAL;
		fault |= BIT(i);
	}
	WRITE_ONCE(sd->pod_fault, fault);
	return count;
}

static const struct file_operations nsim_pod_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsim_pod_fault_read,
	.write = nsim_pod_fault_write,
	.llseek = default_llseek,
};

static int nsim_serial_get(void *data, u64 *val)
{
	struct nsim_dev *sd = data;

	spin_lock(&sd->lock);
	*val = (u64)sd->misc[NSIM_MISC_SERIAL_HI / 4] << 32 | sd->misc[NSIM_MISC_SERIAL_LO / 4];
	spin_unlock(&sd->lock);
	return 0;
}

static int nsim_serial_set(void *data, u64 val)
{
	struct nsim_dev *sd = data;

	spin_lock(&sd->lock);
	sd->misc[NSIM_MISC_SERIAL_HI / 4] = upper_32_bits(val);
	sd->misc[NSIM_MISC_SERIAL_LO / 4] = lower_32_bits(val);
	spin_unlock(&sd->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(nsim_serial_fops, nsim_serial_get, nsim_serial_set, "0x%016llx\n");

static int nsim_pod_dma_reads_get(void *data, u64 *val)
{
	struct nsim_dev *sd = data;

	spin_lock(&sd->dma_lock);
	*val = sd->pod_dma_reads;
	spin_unlock(&sd->dma_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(nsim_pod_dma_reads_fops, nsim_pod_dma_reads_get, NULL, "%llu\n");

/**
 * nsim_pod_debugfs_add() - the device's pod_fault, serial and pod_dma_reads files
 * @sd: the simulated device, its debugfs directory created
 */
void nsim_pod_debugfs_add(struct nsim_dev *sd)
{
	debugfs_create_file("pod_fault", 0600, sd->ddir, sd, &nsim_pod_fault_fops);
	debugfs_create_file_unsafe("serial", 0600, sd->ddir, sd, &nsim_serial_fops);
	debugfs_create_file_unsafe("pod_dma_reads", 0400, sd->ddir, sd, &nsim_pod_dma_reads_fops);
}
