// SPDX-License-Identifier: GPL-2.0
/*
 * Pods: the platform a node is (per DHAL data, DMI and force_userver), the
 * UltraServer election over the neighbour links, and what user space sees
 * of it: NEURON_IOCTL_POD_INFO, _POD_STATUS(_V2), _POD_CTRL(_V2), the
 * class attributes and the die-flipped core map (Documentation/pod.rst).
 *
 * A node is a group of pod_node_devices consecutive device indices (16, a
 * whole host, unless a test makes it smaller): device index i belongs to
 * node i / pod_node_devices.  Each node has its own pod state and its own
 * election thread, so several simulated nodes live in one machine.  The
 * state exists while at least one device of the node is bound.
 *
 * Locks: neuron_pods_lock protects neuron_pods[] and each pod's @refs; a
 * pod's @lock protects its election state.  neuron_pods_lock is taken
 * before a pod's lock, never inside it; the election thread takes only its
 * pod's lock, and never while it reads or writes a device.  A pod's lock is
 * taken before the base's holds lock (neuron_nc_marks()).
 */

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/dmi.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <kunit/visibility.h>

#include <neuron/compat.h>

#include "cores/cores.h"
#include "memory/mem.h"
#include "cores/pod.h"

/* MiscRAM words of the election (the same on v3 and v4). */
#define POD_MISC_SERIAL_LO	0x038
#define POD_MISC_SERIAL_HI	0x03c
#define POD_MISC_SERVER_INFO	0x070
#define POD_MISC_EDATA		0x180	/* LH serial hi, lo, RH serial hi, lo */
#define POD_MISC_STATUS		0x190	/* sts | lr << 8 | node_id << 16 | cnt << 24 */
#define POD_MISC_POD_SERIAL_HI	0x194
#define POD_MISC_POD_SERIAL_LO	0x198

/* Values of the low byte of POD_MISC_STATUS. */
#define POD_STS_INIT		0
#define POD_STS_FAILURE		2
#define POD_STS_SUCCESS		3

#define POD_SERVER_VALID	BIT(15)
#define POD_SERVER_ID		GENMASK(14, 0)
/* What MiscRAM reads while the firmware has not filled it in. */
#define POD_NOT_READY		0xdeadbeef
/* Period of every poll of a neighbour. */
#define POD_POLL_MS		50
/* Longest election timeout accepted, seconds. */
#define POD_MAX_TIMEOUT_S	86400

/* userver_ctl bits (Documentation/pod.rst). */
#define POD_CTL_SKIP		BIT(0)
#define POD_CTL_B0_SPOOF	BIT(1)
#define POD_CTL_VERBOSE		BIT(2)
#define POD_CTL_FAULT_SECONDARY	BIT(3)
#define POD_CTL_FAULT_PRIMARY	BIT(4)
#define POD_CTL_NO_NBR_COPY	BIT(5)
#define POD_CTL_CLEAR		BIT(6)
#define POD_CTL_FAULT_LEFT	BIT(7)
#define POD_CTL_FAULT_RIGHT	BIT(8)
#define POD_CTL_RIGHT_ONLY	BIT(9)
#define POD_CTL_LEFT_ONLY	BIT(10)
/* Bits that do nothing here: an election started with any of them warns. */
#define POD_CTL_UNIMPLEMENTED	(POD_CTL_B0_SPOOF | POD_CTL_NO_NBR_COPY | ~GENMASK(10, 0))

static int userver_pds_node_cnt = 2;
module_param(userver_pds_node_cnt, int, 0644);
MODULE_PARM_DESC(userver_pds_node_cnt, "Nodes of a PDS pod (default 2)");

static int userver_pds_server_id = 1;
module_param(userver_pds_server_id, int, 0644);
MODULE_PARM_DESC(userver_pds_server_id, "Pod serial number of a PDS pod (default 1)");

static int userver_ctl;
module_param(userver_ctl, int, 0644);
MODULE_PARM_DESC(userver_ctl,
		 "UltraServer control bits: 0 no election at load, 2 verbose, 3/4 fault on secondary/primary links, 6 clear the cached result, 7/8 fault on the left/right link, 9 right link only, 10 left link only");

static int userver_etimeout = 600;
module_param(userver_etimeout, int, 0644);
MODULE_PARM_DESC(userver_etimeout, "Election timeout in seconds (default 600)");

static int userver_eextension = 120;
module_param(userver_eextension, int, 0644);
MODULE_PARM_DESC(userver_eextension,
		 "Least time in seconds each lame-duck retry of an election gets (default 120)");

static int force_userver;
module_param(force_userver, int, 0644);
MODULE_PARM_DESC(force_userver, "Treat v3 and v4 nodes created from now on as UltraServer nodes");

static int force_pds;
module_param(force_pds, int, 0644);
MODULE_PARM_DESC(force_pds,
		 "Treat v3 and v4 nodes created from now on as PDS nodes (force_userver wins)");

static int force_die_flip;
module_param(force_die_flip, int, 0644);
MODULE_PARM_DESC(force_die_flip, "Report the die-flipped logical core map on every v3 device");

static unsigned int pod_node_devices = NEURON_POD_MAX_NODE_DEVICES;
module_param(pod_node_devices, uint, 0644);
MODULE_PARM_DESC(pod_node_devices,
		 "Devices of one pod node, 1-16 (default 16); for tests with several simulated nodes");

/**
 * neuron_pod_node_devices() - devices of one pod node
 *
 * For a bus that wires simulated nodes: device index i is device
 * i % neuron_pod_node_devices() of node i / neuron_pod_node_devices().
 *
 * Return: the pod_node_devices parameter, 1 to 16.
 */
unsigned int neuron_pod_node_devices(void)
{
	return clamp_val(READ_ONCE(pod_node_devices), 1, NEURON_POD_MAX_NODE_DEVICES);
}
EXPORT_SYMBOL_NS_GPL(neuron_pod_node_devices, NEURON_NS);

/**
 * struct neuron_pod - the pod state of one node
 * @node: the node's number (device index / @ndev)
 * @ndev: devices of the node
 * @refs: bound devices of the node; under neuron_pods_lock
 * @platform: what the node is, fixed at creation
 * @pds_nodes: the node count the DHAL gives hosts of its kind (a PDS
 *	platform entry's &neuron_dhal_platform.node_cnt), fixed at creation;
 *	0 for userver_pds_node_cnt
 * @thread: the election thread (UltraServer only), or NULL
 * @wq: the thread waits on it for work; its polls wait on it for a kill
 * @lock: protects the fields below
 * @state: the election's state
 * @present: bit per device of the node that finished a reset
 * @kill: a kill was requested for the election in progress
 * @mode: the mode chosen (enum neuron_ultraserver_mode)
 * @lr_mask_default: links an election starts with
 * @lr_mask: links the last successful election used
 * @node_id: the node's id, -1 when none
 * @node_cnt: nodes in the pod, 0 when none
 * @serial: the pod's serial number, 0 when none
 * @deadline: jiffies at which the election in progress times out
 *
 * The thread reads @state, @kill and @deadline with READ_ONCE() in its
 * waits; they are written under @lock with WRITE_ONCE().
 */
struct neuron_pod {
	unsigned int node;
	unsigned int ndev;
	unsigned int refs;
	enum neuron_platform platform;
	u32 pds_nodes;
	struct task_struct *thread;
	wait_queue_head_t wq;
	/* Protects state, present, kill, mode, the lr masks, the result and deadline. */
	struct mutex lock;
	enum neuron_pod_estate state;
	u32 present;
	bool kill;
	u32 mode;
	u32 lr_mask_default;
	u32 lr_mask;
	int node_id;
	u32 node_cnt;
	u64 serial;
	unsigned long deadline;
};

/* Protects neuron_pods[] and every pod's refs. */
static DEFINE_MUTEX(neuron_pods_lock);
static struct neuron_pod *neuron_pods[NEURON_MAX_DEVICES];

/* The pure part: node ids, modes, modal views, platform names */

/**
 * neuron_pod_node_id() - a node's id and pod from its neighbours' serials
 * @self: the node's serial number
 * @left: the left neighbour's
 * @right: the right neighbour's
 * @diag: the diagonal node's (the left neighbour's right neighbour)
 * @lr_mask: the links the election used (NEURON_POD_*)
 * @node_id: the node's id
 * @node_cnt: 2 or 4
 * @serial: the pod's serial number
 *
 * Two nodes (one link, or both links to the same node): id 0 for the lower
 * serial, which is the pod's.  Four: the lowest serial is the leader and
 * the pod's serial, id 0; its diagonal is 2; the node whose left neighbour
 * is the leader 1; the node whose right neighbour is the leader 3.
 *
 * Return: 0, or -EINVAL when the serials do not make a pod (repeated).
 */
int neuron_pod_node_id(u64 self, u64 left, u64 right, u64 diag, u32 lr_mask,
		       int *node_id, u32 *node_cnt, u64 *serial)
{
	u64 leader, nbr;

	if (!(lr_mask & NEURON_POD_BOTH))
		return -EINVAL;
	if (lr_mask != NEURON_POD_BOTH || left == right) {
		nbr = lr_mask & NEURON_POD_LEFT ? left : right;
		if (nbr == self)
			return -EINVAL;
		*node_cnt = 2;
		*node_id = self < nbr ? 0 : 1;
		*serial = min(self, nbr);
		return 0;
	}
	if (self == left || self == right || self == diag || diag == left || diag == right)
		return -EINVAL;
	leader = min(min(self, diag), min(left, right));
	*node_cnt = 4;
	*serial = leader;
	if (self == leader)
		*node_id = 0;
	else if (diag == leader)
		*node_id = 2;
	else if (left == leader)
		*node_id = 1;
	else
		*node_id = 3;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_pod_node_id);

/**
 * neuron_pod_modes_supported() - the modes a node's pod allows
 * @v: the node's state
 *
 * Return: bit (1 << mode) per supported mode: X4 with four nodes, X2V with
 * two or more and the left link, X2H with two and the right link, X1 always.
 */
u32 neuron_pod_modes_supported(const struct neuron_pod_view *v)
{
	u32 m = BIT(NEURON_ULTRASERVER_MODE_X1);

	if (v->node_cnt == 4)
		m |= BIT(NEURON_ULTRASERVER_MODE_X4);
	if (v->node_cnt >= 2 && (v->lr_mask & NEURON_POD_LEFT))
		m |= BIT(NEURON_ULTRASERVER_MODE_X2V);
	if (v->node_cnt == 2 && (v->lr_mask & NEURON_POD_RIGHT))
		m |= BIT(NEURON_ULTRASERVER_MODE_X2H);
	return m;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_pod_modes_supported);

/**
 * neuron_pod_modal() - a node's id, pod size and serial as a mode sees them
 * @v: the node's state
 * @mode: the mode (enum neuron_ultraserver_mode)
 * @node_id: the id in that mode, -1 for none
 * @node_cnt: nodes of the pod in that mode, 0 for none
 * @serial: the pod's serial in that mode, 0 for none
 *
 * A four-node pod seen in a two-node mode is two pods: X2H pairs ids
 * {0, 1} and {2, 3}, X2V {0, 2} and {1, 3}; the second pair's serial is
 * the pod's minus one.
 */
void neuron_pod_modal(const struct neuron_pod_view *v, u32 mode, int *node_id,
		      u32 *node_cnt, u64 *serial)
{
	static const int x2h[4] = { 0, 0, 1, 1 };
	static const int x2v[4] = { 0, 1, 0, 1 };
	bool four = v->node_cnt == 4 && v->node_id >= 0 && v->node_id < 4;

	*node_id = v->node_id;
	*node_cnt = v->node_cnt;
	*serial = v->serial;
	switch (mode) {
	case NEURON_ULTRASERVER_MODE_X4:
		if (!four) {
			*node_id = -1;
			*node_cnt = 0;
			*serial = 0;
		}
		break;
	case NEURON_ULTRASERVER_MODE_X2H:
	case NEURON_ULTRASERVER_MODE_X2V:
		*node_cnt = 2;
		if (!four)
			break;
		if (mode == NEURON_ULTRASERVER_MODE_X2H) {
			*node_id = x2h[v->node_id];
			if (v->node_id == 1 || v->node_id == 3)
				*serial = v->serial - 1;
		} else {
			*node_id = x2v[v->node_id];
			if (v->node_id >= 2)
				*serial = v->serial - 1;
		}
		break;
	case NEURON_ULTRASERVER_MODE_X1:
		*node_id = -1;
		*node_cnt = 0;
		*serial = 0;
		break;
	default:
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(neuron_pod_modal);

/* The first entry of @dp that DMI product name @product matches, or NULL. */
static const struct neuron_dhal_platform *
neuron_pod_platform_entry(const struct neuron_dhal_pod *dp, const char *product)
{
	unsigned int i;

	if (!dp || !product)
		return NULL;
	for (i = 0; i < dp->n_platforms; i++) {
		const struct neuron_dhal_platform *p = &dp->platforms[i];

		if (p->prefix ? !strncmp(product, p->product, strlen(p->product)) :
		    !strcmp(product, p->product))
			return p;
	}
	return NULL;
}

/**
 * neuron_pod_platform_lookup() - the platform a DMI product name means
 * @dp: the generation's pod facts
 * @product: the DMI product name, or NULL
 *
 * Return: the platform of the first entry of @dp that matches, else STD.
 */
enum neuron_platform neuron_pod_platform_lookup(const struct neuron_dhal_pod *dp,
						const char *product)
{
	const struct neuron_dhal_platform *p = neuron_pod_platform_entry(dp, product);

	return p ? p->platform : NEURON_PLATFORM_STD;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_pod_platform_lookup);

/**
 * neuron_pod_platform_nodes() - the pod size a DMI product name implies
 * @dp: the generation's pod facts
 * @product: the DMI product name, or NULL
 *
 * Return: the node count of the first entry of @dp that matches (a PDS
 * platform whose hosts' pods have a fixed size: trn3e), else 0 (the
 * module parameter userver_pds_node_cnt decides).
 */
u32 neuron_pod_platform_nodes(const struct neuron_dhal_pod *dp, const char *product)
{
	const struct neuron_dhal_platform *p = neuron_pod_platform_entry(dp, product);

	return p ? p->node_cnt : 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_pod_platform_nodes);

/* The platform of a new node, and into @nodes the pod size its kind implies (or 0). */
static enum neuron_platform neuron_pod_platform(const struct neuron_dhal_pod *dp, u32 *nodes)
{
	const char *product;

	*nodes = 0;
	if (READ_ONCE(force_userver) && dp->electable)
		return NEURON_PLATFORM_ULTRASERVER;
	if (READ_ONCE(force_pds) && dp->electable)
		return NEURON_PLATFORM_PDS;
	product = dmi_get_system_info(DMI_PRODUCT_NAME);
	*nodes = neuron_pod_platform_nodes(dp, product);
	return neuron_pod_platform_lookup(dp, product);
}

static unsigned long neuron_pod_secs(int s)
{
	return msecs_to_jiffies(clamp(s, 0, POD_MAX_TIMEOUT_S) * MSEC_PER_SEC);
}

/* The election: device access */

/**
 * neuron_pod_nbr_addr() - where a neighbour's MiscRAM word is read
 * @dp: the generation's pod facts
 * @link: 0 left, 1 right
 * @k: which of the link's two engines
 * @reg: byte offset of the word in MiscRAM, 4-byte aligned
 * @eng: the engine whose queue 0 reads it
 * @addr: the device address it reads: the B0 window of the engine's group
 *	(&neuron_dhal_pod.nbr_window), MiscRAM's place in it, then @reg
 *
 * Return: 0; -EINVAL for a bad @link, @k or @reg; -EOPNOTSUPP when the
 * generation has no window for the engine.
 */
int neuron_pod_nbr_addr(const struct neuron_dhal_pod *dp, unsigned int link, unsigned int k,
			u32 reg, u32 *eng, u64 *addr)
{
	unsigned int w;

	if (link > 1 || k > 1 || reg % 4)
		return -EINVAL;
	*eng = dp->nbr_engines[link][k];
	w = *eng / NEURON_POD_NBR_WINDOW_ENGINES;
	if (w >= ARRAY_SIZE(dp->nbr_window) || !dp->nbr_window[w])
		return -EOPNOTSUPP;
	*addr = dp->nbr_window[w] + dp->nbr_misc + reg;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_pod_nbr_addr);

/*
 * Read MiscRAM word @reg of the device at the far end of @link of @nd with
 * the link's DMA engine @k (neuron_plane_dma_read(): a bounded, sleeping
 * wait).  -EOPNOTSUPP when neuron_udma is not loaded.
 */
static int neuron_pod_nbr_dma(struct neuron_device *nd, unsigned int link, unsigned int k,
			      u32 reg, u32 *val)
{
	struct neuron_plane_dma_read rd = { .qid = 0 };
	__le32 word;
	int ret;

	ret = neuron_pod_nbr_addr(nd->dhal.dhal->pod, link, k, reg, &rd.eng, &rd.src);
	if (ret)
		return ret;
	rd.data = &word;
	rd.len = sizeof(word);
	ret = neuron_plane_dma_read(nd, &rd);
	if (!ret)
		*val = le32_to_cpu(word);
	return ret;
}

/*
 * Read or write MiscRAM word @reg of device @d of @pod's node, or (@link
 * >= 0) read it on the device at the far end of that link of device @d,
 * with the link's DMA engine @k.  The device is held for the access alone,
 * never across a sleep but the bounded wait of a DMA read.
 */
static int neuron_pod_access(struct neuron_pod *pod, unsigned int d, int link, unsigned int k,
			     u32 reg, u32 *val, bool write)
{
	struct neuron_device *nd;
	int ret = 0;

	nd = neuron_device_get_by_index(pod->node * pod->ndev + d);
	if (!nd)
		return -ENODEV;
	if (!neuron_device_enter_try(nd)) {
		put_device(&nd->dev);
		return -ENODEV;
	}
	if (!nd->mapped || !nd->dhal.dhal || !nd->dhal.dhal->pod)
		ret = -ENODEV;
	else if (link < 0 && write)
		neuron_misc_write(nd, reg, *val);
	else if (link < 0)
		*val = neuron_misc_read(nd, reg);
	else
		ret = neuron_pod_nbr_dma(nd, link, k, reg, val);
	neuron_device_leave(nd);
	put_device(&nd->dev);
	return ret;
}

static int neuron_pod_write(struct neuron_pod *pod, unsigned int d, u32 reg, u32 val)
{
	return neuron_pod_access(pod, d, -1, 0, reg, &val, true);
}

static int neuron_pod_read(struct neuron_pod *pod, unsigned int d, u32 reg, u32 *val)
{
	return neuron_pod_access(pod, d, -1, 0, reg, val, false);
}

/* A neighbour's MiscRAM word, through engine @k of the link. */
static int neuron_pod_nbr_read_k(struct neuron_pod *pod, unsigned int d, int link,
				 unsigned int k, u32 reg, u32 *val)
{
	return neuron_pod_access(pod, d, link, k, reg, val, false);
}

static int neuron_pod_nbr_read(struct neuron_pod *pod, unsigned int d, int link, u32 reg,
			       u32 *val)
{
	return neuron_pod_nbr_read_k(pod, d, link, 0, reg, val);
}

/* -EINTR on a kill or stop, -ETIMEDOUT past the deadline, else 0. */
static int neuron_pod_check(struct neuron_pod *pod)
{
	if (kthread_should_stop() || READ_ONCE(pod->kill))
		return -EINTR;
	if (time_after(jiffies, READ_ONCE(pod->deadline)))
		return -ETIMEDOUT;
	return 0;
}

/* Wait one poll period, less on a kill or stop; then neuron_pod_check(). */
static int neuron_pod_pause(struct neuron_pod *pod)
{
	wait_event_interruptible_timeout(pod->wq, neuron_pod_check(pod),
					 msecs_to_jiffies(POD_POLL_MS));
	return neuron_pod_check(pod);
}

/* userver_ctl bit 2: log a step of device @d's part in an election. */
static __printf(3, 4) void neuron_pod_verbose(struct neuron_pod *pod, unsigned int d,
					      const char *fmt, ...)
{
	struct neuron_device *nd;
	struct va_format vaf;
	va_list args;

	if (!(READ_ONCE(userver_ctl) & POD_CTL_VERBOSE))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	nd = neuron_device_get_by_index(pod->node * pod->ndev + d);
	if (nd) {
		dev_info(&nd->dev, "pod node %u device %u: %pV\n", pod->node, d, &vaf);
		put_device(&nd->dev);
	} else {
		pr_info("neuron pod node %u device %u: %pV\n", pod->node, d, &vaf);
	}
	va_end(args);
}

/*
 * userver_ctl bits 3, 4, 7 and 8: -EIO when a link of @lr that device @d
 * uses is to fail as a broken link does (every link of a secondary or of
 * the primary, the left or the right link of every device), else 0.
 */
static int neuron_pod_ctl_fault(unsigned int d, u32 lr)
{
	u32 ctl = READ_ONCE(userver_ctl), links = 0;

	if (ctl & (d ? POD_CTL_FAULT_SECONDARY : POD_CTL_FAULT_PRIMARY))
		links |= NEURON_POD_BOTH;
	if (ctl & POD_CTL_FAULT_LEFT)
		links |= NEURON_POD_LEFT;
	if (ctl & POD_CTL_FAULT_RIGHT)
		links |= NEURON_POD_RIGHT;
	return links & lr ? -EIO : 0;
}

/*
 * A neighbour's serial number, read over both engines of the link, polled
 * while the firmware has none or the two reads differ.
 */
static int neuron_pod_nbr_serial(struct neuron_pod *pod, unsigned int d, int link, u64 *serial)
{
	u32 lo[2], hi[2];
	unsigned int k;
	int ret = 0;

	for (;;) {
		for (k = 0; k < 2 && !ret; k++) {
			ret = neuron_pod_nbr_read_k(pod, d, link, k, POD_MISC_SERIAL_LO, &lo[k]);
			if (!ret)
				ret = neuron_pod_nbr_read_k(pod, d, link, k, POD_MISC_SERIAL_HI,
							    &hi[k]);
		}
		if (ret)
			return ret;
		if (lo[0] != POD_NOT_READY && hi[0] != POD_NOT_READY && (lo[0] || hi[0]) &&
		    lo[0] == lo[1] && hi[0] == hi[1])
			break;
		ret = neuron_pod_pause(pod);
		if (ret)
			return ret;
	}
	*serial = (u64)hi[0] << 32 | lo[0];
	return 0;
}

/*
 * A neighbour's election data, polled until it wrote some and two reads in
 * a row agree: its four words are read one DMA read at a time, which may
 * meet the neighbour half-way through writing them.
 */
static int neuron_pod_nbr_edata(struct neuron_pod *pod, unsigned int d, int link, u64 *lh,
				u64 *rh)
{
	u32 w[4], prev[4];
	bool have = false;
	int ret, i;

	for (;;) {
		for (i = 0; i < 4; i++) {
			ret = neuron_pod_nbr_read(pod, d, link, POD_MISC_EDATA + 4 * i, &w[i]);
			if (ret)
				return ret;
		}
		if ((w[0] || w[1] || w[2] || w[3]) &&
		    w[0] != POD_NOT_READY && w[1] != POD_NOT_READY) {
			if (have && !memcmp(w, prev, sizeof(w)))
				break;
			memcpy(prev, w, sizeof(w));
			have = true;
			ret = neuron_pod_check(pod);
		} else {
			have = false;
			ret = neuron_pod_pause(pod);
		}
		if (ret)
			return ret;
	}
	*lh = (u64)w[0] << 32 | w[1];
	*rh = (u64)w[2] << 32 | w[3];
	return 0;
}

/* A neighbour's status, polled until it leaves INIT. */
static int neuron_pod_nbr_status(struct neuron_pod *pod, unsigned int d, int link)
{
	u32 v;
	int ret;

	for (;;) {
		ret = neuron_pod_nbr_read(pod, d, link, POD_MISC_STATUS, &v);
		if (ret)
			return ret;
		if (v != POD_NOT_READY && (v & 0xff) != POD_STS_INIT)
			return (v & 0xff) == POD_STS_FAILURE ? -EIO : 0;
		ret = neuron_pod_pause(pod);
		if (ret)
			return ret;
	}
}

static int neuron_pod_edata_write(struct neuron_pod *pod, unsigned int d, u64 lh, u64 rh)
{
	int ret;

	ret = neuron_pod_write(pod, d, POD_MISC_EDATA, upper_32_bits(lh));
	if (!ret)
		ret = neuron_pod_write(pod, d, POD_MISC_EDATA + 4, lower_32_bits(lh));
	if (!ret)
		ret = neuron_pod_write(pod, d, POD_MISC_EDATA + 8, upper_32_bits(rh));
	if (!ret)
		ret = neuron_pod_write(pod, d, POD_MISC_EDATA + 12, lower_32_bits(rh));
	return ret;
}

/*
 * Whether a neighbour's election data @e (LH, RH) is what device @d's link
 * should show: the primary's serial numbers for the primary (an index
 * means the link reaches a secondary), its own index for a secondary.
 */
static bool neuron_pod_wired(bool primary, unsigned int d, const u64 *e)
{
	if (!primary)
		return e[0] == d && e[1] == d;
	return !(e[0] && e[0] < NEURON_POD_MAX_NODE_DEVICES) &&
	       !(e[1] && e[1] < NEURON_POD_MAX_NODE_DEVICES);
}

/**
 * struct neuron_pod_nbrs - what a device learnt of its neighbours
 * @serial: serial number per link (left, right)
 * @edata: election data per link: LH then RH serial (the primary's), or
 *	the device index twice (a secondary's)
 */
struct neuron_pod_nbrs {
	u64 serial[2];
	u64 edata[2][2];
};

/*
 * One device's part of an election over the links of @lr: device 0 is the
 * node's primary, the others secondaries.  Errors: -EINTR (kill, stop),
 * -ETIMEDOUT, -ENXIO (wrong wiring), -EIO (a link or neighbour failed),
 * -ENODEV, -EOPNOTSUPP (neuron_udma not loaded, or no neighbour windows).
 */
static int neuron_pod_dev_elect(struct neuron_pod *pod, unsigned int d, u32 lr,
				struct neuron_pod_nbrs *nb)
{
	bool primary = d == 0;
	int link, ret;

	memset(nb, 0, sizeof(*nb));
	/* 1. Take part: INIT, no election data. */
	ret = neuron_pod_write(pod, d, POD_MISC_STATUS, POD_STS_INIT);
	if (!ret)
		ret = neuron_pod_edata_write(pod, d, 0, 0);
	neuron_pod_verbose(pod, d, "links %#x: 1. taking part: %d", lr, ret);
	if (!ret)
		ret = neuron_pod_ctl_fault(d, lr);
	/* 2. The neighbours' serial numbers. */
	for (link = 0; link < 2 && !ret; link++)
		if (lr & BIT(link))
			ret = neuron_pod_nbr_serial(pod, d, link, &nb->serial[link]);
	if (ret)
		goto fail;
	neuron_pod_verbose(pod, d, "2. neighbour serials %016llx %016llx", nb->serial[0],
			   nb->serial[1]);
	/* 3. The primary publishes its neighbours, a secondary its index. */
	if (primary)
		ret = neuron_pod_edata_write(pod, d, nb->serial[0], nb->serial[1]);
	else
		ret = neuron_pod_edata_write(pod, d, d, d);
	if (ret)
		goto fail;
	/* 4. The neighbours' election data: is each link wired as it should be? */
	for (link = 0; link < 2; link++) {
		u64 *e = nb->edata[link];

		if (!(lr & BIT(link)))
			continue;
		ret = neuron_pod_nbr_edata(pod, d, link, &e[0], &e[1]);
		if (ret)
			goto fail;
		if (!neuron_pod_wired(primary, d, e)) {
			ret = -ENXIO;
			goto fail;
		}
	}
	neuron_pod_verbose(pod, d, "4. neighbours wired right");
	/* 5. Done here; 6. wait for the neighbours to be done too. */
	ret = neuron_pod_write(pod, d, POD_MISC_STATUS, POD_STS_SUCCESS);
	for (link = 0; link < 2 && !ret; link++)
		if (lr & BIT(link))
			ret = neuron_pod_nbr_status(pod, d, link);
	if (ret)
		goto fail;
	neuron_pod_verbose(pod, d, "6. neighbours done");
	/* 7. Nobody reads the election data any more. */
	return neuron_pod_edata_write(pod, d, 0, 0);
fail:
	neuron_pod_verbose(pod, d, "links %#x: failed: %d", lr, ret);
	neuron_pod_edata_write(pod, d, 0, 0);
	return ret;
}

/* One attempt of the whole node over the links of @lr; fills @v on success. */
static int neuron_pod_elect(struct neuron_pod *pod, u32 lr, struct neuron_pod_view *v)
{
	struct neuron_pod_nbrs nb;
	unsigned int d, good = 0;
	u32 lo, hi;
	u64 self;
	int ret;

	for (d = 1; d < pod->ndev; d++) {
		ret = neuron_pod_dev_elect(pod, d, lr, &nb);
		if (ret) {
			pr_info("neuron pod node %u: device %u, links %#x: %d\n",
				pod->node, d, lr, ret);
			return ret;
		}
		good++;
	}
	if (good != pod->ndev - 1)
		return -ENODEV;
	ret = neuron_pod_dev_elect(pod, 0, lr, &nb);
	if (!ret)
		ret = neuron_pod_read(pod, 0, POD_MISC_SERIAL_LO, &lo);
	if (!ret)
		ret = neuron_pod_read(pod, 0, POD_MISC_SERIAL_HI, &hi);
	if (ret) {
		pr_info("neuron pod node %u: primary, links %#x: %d\n", pod->node, lr, ret);
		return ret;
	}
	self = (u64)hi << 32 | lo;
	/* The left neighbour's right-hand neighbour is the diagonal node. */
	ret = neuron_pod_node_id(self, nb.serial[0], nb.serial[1], nb.edata[0][1], lr,
				 &v->node_id, &v->node_cnt, &v->serial);
	if (ret) {
		pr_info("neuron pod node %u: the serial numbers make no pod\n", pod->node);
		return -ENXIO;
	}
	v->lr_mask = lr;
	ret = neuron_pod_write(pod, 0, POD_MISC_POD_SERIAL_HI, upper_32_bits(v->serial));
	if (!ret)
		ret = neuron_pod_write(pod, 0, POD_MISC_POD_SERIAL_LO, lower_32_bits(v->serial));
	if (!ret)
		ret = neuron_pod_write(pod, 0, POD_MISC_STATUS,
				       POD_STS_SUCCESS | lr << 8 | (u8)v->node_id << 16 |
				       v->node_cnt << 24);
	return ret;
}

/* The lame-duck order: both links, then the right one, then the left one. */
static u32 neuron_pod_next_lr(u32 lr)
{
	if (lr == NEURON_POD_BOTH)
		return NEURON_POD_RIGHT;
	return lr == NEURON_POD_RIGHT ? NEURON_POD_LEFT : 0;
}

static void neuron_pod_run(struct neuron_pod *pod)
{
	struct neuron_pod_view v = { .node_id = -1 };
	u32 lr;
	int ret;

	mutex_lock(&pod->lock);
	lr = pod->lr_mask_default;
	mutex_unlock(&pod->lock);

	for (;;) {
		ret = neuron_pod_elect(pod, lr, &v);
		if (!ret || ret == -EINTR)
			break;
		lr = neuron_pod_next_lr(lr);
		if (!lr)
			break;
		/* A lame-duck retry on fewer links gets at least the extension. */
		mutex_lock(&pod->lock);
		if (time_before(pod->deadline, jiffies + neuron_pod_secs(userver_eextension)))
			WRITE_ONCE(pod->deadline, jiffies + neuron_pod_secs(userver_eextension));
		mutex_unlock(&pod->lock);
		pr_info("neuron pod node %u: retrying on links %#x\n", pod->node, lr);
	}
	if (ret)
		neuron_pod_write(pod, 0, POD_MISC_STATUS, POD_STS_FAILURE);

	mutex_lock(&pod->lock);
	if (!ret) {
		WRITE_ONCE(pod->state, NEURON_PE_SUCCESS);
		pod->lr_mask = v.lr_mask;
		pod->node_id = v.node_id;
		pod->node_cnt = v.node_cnt;
		pod->serial = v.serial;
	} else {
		WRITE_ONCE(pod->state, NEURON_PE_FAILURE);
	}
	WRITE_ONCE(pod->kill, false);
	mutex_unlock(&pod->lock);
	if (ret)
		pr_info("neuron pod node %u: election failed (%d); single node\n", pod->node, ret);
	else
		pr_info("neuron pod node %u: node %d of %u, pod %016llx, links %#x\n",
			pod->node, v.node_id, v.node_cnt, v.serial, v.lr_mask);
}

static int neuron_pod_thread(void *data)
{
	struct neuron_pod *pod = data;

	while (!kthread_should_stop()) {
		wait_event_interruptible(pod->wq, kthread_should_stop() ||
					 READ_ONCE(pod->state) == NEURON_PE_IN_PROGRESS);
		if (kthread_should_stop())
			break;
		if (READ_ONCE(pod->state) == NEURON_PE_IN_PROGRESS)
			neuron_pod_run(pod);
	}
	return 0;
}

/* Start an election of @timeout_s seconds.  Called with the pod's lock held. */
static void neuron_pod_initiate(struct neuron_pod *pod, int timeout_s)
{
	u32 ctl = READ_ONCE(userver_ctl);

	lockdep_assert_held(&pod->lock);
	if (ctl & POD_CTL_UNIMPLEMENTED)
		pr_warn("neuron pod node %u: userver_ctl bits %#lx are not implemented; ignored\n",
			pod->node, ctl & POD_CTL_UNIMPLEMENTED);
	if (ctl & POD_CTL_VERBOSE)
		pr_info("neuron pod node %u: an election of %d s starts\n", pod->node, timeout_s);
	WRITE_ONCE(pod->state, NEURON_PE_IN_PROGRESS);
	WRITE_ONCE(pod->kill, false);
	pod->node_id = -1;
	pod->node_cnt = 0;
	pod->serial = 0;
	pod->lr_mask = 0;
	WRITE_ONCE(pod->deadline, jiffies + neuron_pod_secs(timeout_s));
	wake_up_all(&pod->wq);
}

static bool neuron_pod_all_present(struct neuron_pod *pod)
{
	return pod->present == (u32)GENMASK(pod->ndev - 1, 0);
}

/* Lifetime: a device's reset and removal */

static struct neuron_pod *neuron_pod_get(struct neuron_device *nd, const struct neuron_dhal_pod *dp)
{
	unsigned int ndev = neuron_pod_node_devices();
	unsigned int node = nd->index / ndev;
	struct neuron_pod *pod;
	u32 ctl = READ_ONCE(userver_ctl);

	mutex_lock(&neuron_pods_lock);
	pod = neuron_pods[node];
	if (pod) {
		if (pod->ndev != ndev) {
			pod = ERR_PTR(-EBUSY);
			goto out;
		}
		pod->refs++;
		goto out;
	}
	pod = kzalloc(sizeof(*pod), GFP_KERNEL);
	if (!pod) {
		pod = ERR_PTR(-ENOMEM);
		goto out;
	}
	pod->node = node;
	pod->ndev = ndev;
	pod->refs = 1;
	pod->platform = neuron_pod_platform(dp, &pod->pds_nodes);
	init_waitqueue_head(&pod->wq);
	mutex_init(&pod->lock);
	pod->state = NEURON_PE_INIT;
	pod->node_id = -1;
	pod->mode = NEURON_ULTRASERVER_MODE_UNSET;
	pod->lr_mask_default = ctl & POD_CTL_RIGHT_ONLY ? NEURON_POD_RIGHT :
			       ctl & POD_CTL_LEFT_ONLY ? NEURON_POD_LEFT : NEURON_POD_BOTH;
	if (pod->platform == NEURON_PLATFORM_ULTRASERVER) {
		pod->thread = kthread_run(neuron_pod_thread, pod, "neuron_pod%u", node);
		if (IS_ERR(pod->thread)) {
			struct neuron_pod *err = ERR_CAST(pod->thread);

			mutex_destroy(&pod->lock);
			kfree(pod);
			pod = err;
			goto out;
		}
	}
	neuron_pods[node] = pod;
out:
	mutex_unlock(&neuron_pods_lock);
	return pod;
}

/* Device 0 of a node was reset: adopt the cached result, or spoof a PDS pod. */
static void neuron_pod_primary_ready(struct neuron_device *nd, struct neuron_pod *pod)
{
	u32 ctl = READ_ONCE(userver_ctl);
	u32 sts, v;

	lockdep_assert_held(&pod->lock);
	if (pod->state != NEURON_PE_INIT)
		return;
	if (pod->platform == NEURON_PLATFORM_PDS) {
		v = neuron_misc_read(nd, POD_MISC_SERVER_INFO);
		pod->node_cnt = pod->pds_nodes ?:
				clamp(READ_ONCE(userver_pds_node_cnt), 0, 255);
		pod->node_id = v != POD_NOT_READY && (v & POD_SERVER_VALID) ?
			       (int)(v & POD_SERVER_ID) : -1;
		pod->serial = (u64)READ_ONCE(userver_pds_server_id);
		pod->lr_mask = NEURON_POD_BOTH;
		WRITE_ONCE(pod->state, NEURON_PE_SUCCESS);
		return;
	}
	if (pod->platform != NEURON_PLATFORM_ULTRASERVER)
		return;
	if (ctl & POD_CTL_CLEAR) {
		neuron_misc_write(nd, POD_MISC_STATUS, POD_STS_INIT);
		neuron_misc_write(nd, POD_MISC_POD_SERIAL_HI, 0);
		neuron_misc_write(nd, POD_MISC_POD_SERIAL_LO, 0);
	}
	sts = neuron_misc_read(nd, POD_MISC_STATUS);
	if (sts != POD_NOT_READY && (sts & 0xff) == POD_STS_SUCCESS) {
		pod->lr_mask = (sts >> 8) & NEURON_POD_BOTH;
		pod->node_id = (s8)(sts >> 16);
		pod->node_cnt = sts >> 24;
		pod->serial = (u64)neuron_misc_read(nd, POD_MISC_POD_SERIAL_HI) << 32 |
			      neuron_misc_read(nd, POD_MISC_POD_SERIAL_LO);
		WRITE_ONCE(pod->state, NEURON_PE_SUCCESS);
		dev_info(nd->bus.parent, "pod node %u: adopted node %d of %u, pod %016llx\n",
			 pod->node, pod->node_id, pod->node_cnt, pod->serial);
	} else if (ctl & POD_CTL_SKIP) {
		WRITE_ONCE(pod->state, NEURON_PE_FAILURE);
	}
}

/**
 * neuron_pod_device_ready() - a device finished a reset (post-reset hook)
 * @nd: the device, READY, called from its worker
 *
 * Joins the device to its node's pod state (created with the first device
 * of the node); device 0 adopts a cached election result; once every
 * device of an UltraServer node is in, the election starts.
 */
void neuron_pod_device_ready(struct neuron_device *nd)
{
	const struct neuron_dhal_pod *dp = nd->dhal.dhal->pod;
	struct neuron_pod *pod = nd->pod;
	unsigned int local;

	if (!dp || nd->index < 0)
		return;
	if (!pod) {
		pod = neuron_pod_get(nd, dp);
		if (IS_ERR(pod)) {
			dev_warn(nd->bus.parent, "no pod state: %ld; a standard node\n",
				 PTR_ERR(pod));
			return;
		}
		WRITE_ONCE(nd->pod, pod);
	}
	local = nd->index % pod->ndev;
	mutex_lock(&pod->lock);
	pod->present |= BIT(local);
	if (local == 0)
		neuron_pod_primary_ready(nd, pod);
	if (pod->platform == NEURON_PLATFORM_ULTRASERVER && pod->state == NEURON_PE_INIT &&
	    neuron_pod_all_present(pod))
		neuron_pod_initiate(pod, READ_ONCE(userver_etimeout));
	mutex_unlock(&pod->lock);
}

/**
 * neuron_pod_device_gone() - a device is being torn down
 * @nd: the device; no ioctl runs on it any more and its worker is done
 *
 * The last device of a node stops the node's election (unload during an
 * election is safe) and frees its state.
 */
void neuron_pod_device_gone(struct neuron_device *nd)
{
	struct neuron_pod *pod = nd->pod;
	bool last;

	if (!pod)
		return;
	WRITE_ONCE(nd->pod, NULL);
	mutex_lock(&pod->lock);
	pod->present &= ~BIT(nd->index % pod->ndev);
	mutex_unlock(&pod->lock);

	mutex_lock(&neuron_pods_lock);
	last = !--pod->refs;
	if (last)
		neuron_pods[pod->node] = NULL;
	mutex_unlock(&neuron_pods_lock);
	if (!last)
		return;
	if (pod->thread)
		kthread_stop(pod->thread);
	mutex_destroy(&pod->lock);
	kfree(pod);
}

/**
 * neuron_pod_marks_released() - core reservations were released
 * @devs: bit per device index whose reservations were released
 *
 * Called by the state plane with no lock held.  A node of those devices
 * none of whose cores is reserved any more forgets its mode, as the
 * reference does when its last mark goes: the next job sets it again.
 */
void neuron_pod_marks_released(u64 devs)
{
	unsigned int i;

	BUILD_BUG_ON(NEURON_MAX_DEVICES > 64);
	mutex_lock(&neuron_pods_lock);
	for (i = 0; i < NEURON_MAX_DEVICES; i++) {
		struct neuron_pod *pod = neuron_pods[i];
		unsigned int first, last;

		if (!pod)
			continue;
		first = pod->node * pod->ndev;
		last = min_t(unsigned int, first + pod->ndev, NEURON_MAX_DEVICES) - 1;
		if (first > last || !(devs & GENMASK_ULL(last, first)))
			continue;
		mutex_lock(&pod->lock);
		if (pod->mode != NEURON_ULTRASERVER_MODE_UNSET &&
		    !neuron_nc_marks(first, pod->ndev))
			pod->mode = NEURON_ULTRASERVER_MODE_UNSET;
		mutex_unlock(&pod->lock);
	}
	mutex_unlock(&neuron_pods_lock);
}

/* What user space sees */

static void neuron_pod_snapshot(struct neuron_pod *pod, struct neuron_pod_view *v)
{
	memset(v, 0, sizeof(*v));
	v->node_id = -1;
	if (!pod)
		return;
	mutex_lock(&pod->lock);
	v->platform = pod->platform;
	v->state = pod->state;
	v->mode = pod->mode;
	v->lr_mask = pod->lr_mask;
	v->node_id = pod->node_id;
	v->node_cnt = pod->node_cnt;
	v->serial = pod->serial;
	mutex_unlock(&pod->lock);
}

static bool neuron_pod_busy(const struct neuron_pod_view *v)
{
	return v->platform != NEURON_PLATFORM_STD &&
	       (v->state == NEURON_PE_INIT || v->state == NEURON_PE_IN_PROGRESS);
}

/**
 * neuron_pod_die_flip() - how a device's logical cores are flipped
 * @nd: the device
 *
 * Return: the value logical core indices are xor'ed with before the
 * generation's map is read: its die flip on nodes 1 and 3 of an elected
 * UltraServer (not in mode X1), or everywhere with force_die_flip; else 0.
 */
u32 neuron_pod_die_flip(struct neuron_device *nd)
{
	const struct neuron_dhal_pod *dp = nd->dhal.dhal->pod;
	struct neuron_pod_view v;

	if (!dp || !dp->die_flip)
		return 0;
	if (READ_ONCE(force_die_flip))
		return dp->die_flip;
	neuron_pod_snapshot(READ_ONCE(nd->pod), &v);
	if (v.platform == NEURON_PLATFORM_ULTRASERVER && v.state == NEURON_PE_SUCCESS &&
	    v.mode != NEURON_ULTRASERVER_MODE_X1 && (v.node_id == 1 || v.node_id == 3))
		return dp->die_flip;
	return 0;
}

/* Read a pod struct of @size whose first member is its u16 size; check it. */
static int neuron_pod_get_arg(void __user *arg, void *buf, size_t size)
{
	u16 sz;

	if (copy_from_user(buf, arg, size))
		return -EFAULT;
	memcpy(&sz, buf, sizeof(sz));
	return sz == size ? 0 : -EINVAL;
}

/* The pod id user space sees: the serial number, little-endian, in bytes 0-7. */
static void neuron_pod_put_serial(u8 *pod_id, u64 serial)
{
	__le64 le = cpu_to_le64(serial);

	memcpy(pod_id, &le, sizeof(le));
}

static u8 neuron_pod_type(enum neuron_platform p)
{
	return p == NEURON_PLATFORM_ULTRASERVER ? NEURON_POD_TYPE_P2P :
	       p == NEURON_PLATFORM_PDS ? NEURON_POD_TYPE_SWITCH : NEURON_POD_TYPE_NONE;
}

long neuron_ioctl_pod_info(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_pod_info info;
	struct neuron_pod_view v;
	u64 serial;
	u32 cnt;
	int id, ret;

	ret = neuron_pod_get_arg(arg, &info, sizeof(info));
	if (ret)
		return ret;
	neuron_pod_snapshot(READ_ONCE(nf->nd->pod), &v);
	memset(&info, 0, sizeof(info));
	info.sz = sizeof(info);
	info.pod_type = neuron_pod_type(v.platform);
	if (v.platform != NEURON_PLATFORM_STD) {
		neuron_pod_modal(&v, v.mode, &id, &cnt, &serial);
		neuron_pod_put_serial(info.pod_id, serial);
		info.pod_sz = cnt;
	}
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* Fill a status; return what the ioctl returns (-EBUSY while busy). */
static int neuron_pod_status_fill(struct neuron_device *nd, struct neuron_ioctl_pod_status *st,
				  struct neuron_pod_view *v)
{
	u64 serial;
	u32 cnt;
	int id;

	neuron_pod_snapshot(READ_ONCE(nd->pod), v);
	st->pod_type = neuron_pod_type(v->platform);
	st->node_id = -1;
	if (v->platform == NEURON_PLATFORM_STD) {
		st->state = NEURON_POD_E_STATE_SINGLE_NODE;
		return 0;
	}
	neuron_pod_modal(v, v->mode, &id, &cnt, &serial);
	neuron_pod_put_serial(st->pod_id, serial);
	st->pod_sz = cnt;
	st->node_id = id;
	switch (v->state) {
	case NEURON_PE_SUCCESS:
		st->state = v->mode == NEURON_ULTRASERVER_MODE_X1 ?
			    NEURON_POD_E_STATE_SINGLE_NODE : NEURON_POD_E_STATE_ULTRASERVER;
		return 0;
	case NEURON_PE_FAILURE:
		st->state = NEURON_POD_E_STATE_SINGLE_NODE;
		return 0;
	default:
		st->state = NEURON_POD_E_STATE_IN_PROGRESS;
		return -EBUSY;
	}
}

/*
 * POD_STATUS of @size bytes: the V1 struct, or V2, which adds the mode and
 * the supported modes.
 */
static long neuron_pod_status_ioctl(struct neuron_file *nf, void __user *arg, size_t size)
{
	struct neuron_ioctl_pod_status_v2 st;
	struct neuron_pod_view v;
	int ret;

	ret = neuron_pod_get_arg(arg, &st, size);
	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	st.v1.sz = size;
	ret = neuron_pod_status_fill(nf->nd, &st.v1, &v);
	if (size == sizeof(st) && v.platform != NEURON_PLATFORM_STD) {
		st.mode = v.mode;
		st.modes_supported = neuron_pod_modes_supported(&v);
	}
	if (copy_to_user(arg, &st, size))
		return -EFAULT;
	return ret;
}

long neuron_ioctl_pod_status(struct neuron_file *nf, void __user *arg)
{
	return neuron_pod_status_ioctl(nf, arg, sizeof(struct neuron_ioctl_pod_status));
}

long neuron_ioctl_pod_status_v2(struct neuron_file *nf, void __user *arg)
{
	return neuron_pod_status_ioctl(nf, arg, sizeof(struct neuron_ioctl_pod_status_v2));
}

/* A control request on a standard platform: 0 or -EINVAL. */
static int neuron_pod_ctrl_std(struct neuron_ioctl_pod_ctrl *ctrl, u32 mode)
{
	switch (ctrl->ctrl) {
	case NEURON_NPE_POD_CTRL_REQ_POD:
	case NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE:
	case NEURON_NPE_POD_CTRL_REQ_KILL:
		break;
	case NEURON_NPE_POD_CTRL_SET_MODE:
		if (mode != NEURON_ULTRASERVER_MODE_UNSET && mode != NEURON_ULTRASERVER_MODE_X1)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	ctrl->state = NEURON_POD_E_STATE_SINGLE_NODE;
	return 0;
}

/* SET_MODE on a pod node.  Called with the pod's lock held. */
static int neuron_pod_set_mode(struct neuron_pod *pod, u32 mode)
{
	struct neuron_pod_view v = {
		.platform = pod->platform, .state = pod->state, .lr_mask = pod->lr_mask,
		.node_id = pod->node_id, .node_cnt = pod->node_cnt, .serial = pod->serial,
	};

	lockdep_assert_held(&pod->lock);
	if (mode > NEURON_ULTRASERVER_MODE_X1)
		return -EINVAL;
	if (pod->state == NEURON_PE_INIT || pod->state == NEURON_PE_IN_PROGRESS)
		return -EBUSY;
	if (mode == pod->mode)
		return 0;
	if (pod->mode != NEURON_ULTRASERVER_MODE_UNSET)
		return -EEXIST;
	if (!(neuron_pod_modes_supported(&v) & BIT(mode)))
		return -EOPNOTSUPP;
	pod->mode = mode;
	return 0;
}

/* A control request on a pod node; @ctrl->state is refreshed on success. */
static int neuron_pod_ctrl(struct neuron_device *nd, struct neuron_ioctl_pod_ctrl *ctrl,
			   u32 mode)
{
	struct neuron_pod *pod = READ_ONCE(nd->pod);
	struct neuron_ioctl_pod_status st = {};
	struct neuron_pod_view v;
	int ret = 0;

	if (!pod || pod->platform == NEURON_PLATFORM_STD)
		return neuron_pod_ctrl_std(ctrl, mode);

	mutex_lock(&pod->lock);
	switch (ctrl->ctrl) {
	case NEURON_NPE_POD_CTRL_REQ_SINGLE_NODE:
		ret = neuron_pod_set_mode(pod, NEURON_ULTRASERVER_MODE_X1);
		break;
	case NEURON_NPE_POD_CTRL_SET_MODE:
		ret = neuron_pod_set_mode(pod, mode);
		break;
	case NEURON_NPE_POD_CTRL_REQ_KILL:
		if (pod->state == NEURON_PE_IN_PROGRESS) {
			WRITE_ONCE(pod->kill, true);
			wake_up_all(&pod->wq);
		} else if (pod->state == NEURON_PE_INIT) {
			WRITE_ONCE(pod->state, NEURON_PE_FAILURE);
		}
		break;
	case NEURON_NPE_POD_CTRL_REQ_POD:
		if (pod->platform == NEURON_PLATFORM_PDS || pod->state == NEURON_PE_IN_PROGRESS)
			break;
		/* Not while a device is out of reset or a core is reserved. */
		if (!neuron_pod_all_present(pod) ||
		    neuron_nc_marks(pod->node * pod->ndev, pod->ndev)) {
			ret = -EAGAIN;
			break;
		}
		pod->mode = NEURON_ULTRASERVER_MODE_UNSET;
		neuron_pod_initiate(pod, ctrl->timeout ? (int)min_t(u32, ctrl->timeout,
								    POD_MAX_TIMEOUT_S) :
				    READ_ONCE(userver_etimeout));
		break;
	default:
		ret = -EINVAL;
		break;
	}
	mutex_unlock(&pod->lock);
	if (ret)
		return ret;
	neuron_pod_status_fill(nd, &st, &v);
	ctrl->state = st.state;
	return 0;
}

long neuron_ioctl_pod_ctrl(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_pod_ctrl ctrl;
	int ret;

	ret = neuron_pod_get_arg(arg, &ctrl, sizeof(ctrl));
	if (ret)
		return ret;
	ret = neuron_pod_ctrl(nf->nd, &ctrl, NEURON_ULTRASERVER_MODE_UNSET);
	if (ret)
		return ret;
	return put_user(ctrl.state, &((struct neuron_ioctl_pod_ctrl __user *)arg)->state);
}

long neuron_ioctl_pod_ctrl_v2(struct neuron_file *nf, void __user *arg)
{
	struct neuron_ioctl_pod_ctrl_v2 ctrl;
	int ret;

	ret = neuron_pod_get_arg(arg, &ctrl, sizeof(ctrl));
	if (ret)
		return ret;
	ret = neuron_pod_ctrl(nf->nd, &ctrl.v1, ctrl.mode);
	if (ret)
		return ret;
	return put_user(ctrl.v1.state, &((struct neuron_ioctl_pod_ctrl_v2 __user *)arg)->v1.state);
}

/*
 * /sys/class/neuron_device: one set of files for the host, so they show
 * the pod of the lowest-numbered node present (the host's only node
 * outside tests).
 */

static void neuron_pod_class_view(struct neuron_pod_view *v)
{
	unsigned int i;

	mutex_lock(&neuron_pods_lock);
	for (i = 0; i < NEURON_MAX_DEVICES && !neuron_pods[i]; i++)
		;
	neuron_pod_snapshot(i < NEURON_MAX_DEVICES ? neuron_pods[i] : NULL, v);
	mutex_unlock(&neuron_pods_lock);
}

/* The two-node mode the files of size 2 show: X2H, else X2V, else X1. */
static u32 neuron_pod_mode_2(const struct neuron_pod_view *v)
{
	u32 m = neuron_pod_modes_supported(v);

	if (m & BIT(NEURON_ULTRASERVER_MODE_X2H))
		return NEURON_ULTRASERVER_MODE_X2H;
	if (m & BIT(NEURON_ULTRASERVER_MODE_X2V))
		return NEURON_ULTRASERVER_MODE_X2V;
	return NEURON_ULTRASERVER_MODE_X1;
}

static ssize_t neuron_pod_id_show(char *buf, bool four, bool serial)
{
	struct neuron_pod_view v;
	u64 s = 0;
	u32 cnt;
	int id = -1;

	neuron_pod_class_view(&v);
	if (neuron_pod_busy(&v))
		return serial ? sysfs_emit(buf, "%016llx\n", 0ULL) : sysfs_emit(buf, "busy\n");
	if (v.platform != NEURON_PLATFORM_STD)
		neuron_pod_modal(&v, four ? NEURON_ULTRASERVER_MODE_X4 : neuron_pod_mode_2(&v),
				 &id, &cnt, &s);
	return serial ? sysfs_emit(buf, "%016llx\n", s) : sysfs_emit(buf, "%d\n", id);
}

/* The show function of class attribute @name: size 4 or 2, the id or the serial. */
#define NEURON_POD_ID_ATTR(name, four, serial)					\
static ssize_t name##_show(NEURON_CLASS_CONST struct class *class,		\
			   NEURON_CLASS_CONST struct class_attribute *attr,	\
			   char *buf)						\
{										\
	return neuron_pod_id_show(buf, four, serial);				\
}

NEURON_POD_ID_ATTR(node_id_4, true, false)
NEURON_POD_ID_ATTR(node_id_2, false, false)
NEURON_POD_ID_ATTR(server_id_4, true, true)
NEURON_POD_ID_ATTR(server_id_2, false, true)

static ssize_t ultraserver_mode_show(NEURON_CLASS_CONST struct class *class,
				     NEURON_CLASS_CONST struct class_attribute *attr, char *buf)
{
	struct neuron_pod_view v;
	ssize_t len = 0;
	u32 m, mode;

	neuron_pod_class_view(&v);
	if (neuron_pod_busy(&v))
		return sysfs_emit(buf, "busy\n");
	m = v.platform == NEURON_PLATFORM_STD ? 0 : neuron_pod_modes_supported(&v);
	for (mode = NEURON_ULTRASERVER_MODE_X4; mode <= NEURON_ULTRASERVER_MODE_X1; mode++)
		if (m & BIT(mode))
			len += sysfs_emit_at(buf, len, "%s%u", len ? "," : "", mode);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/*
 * The PDS files: a switched pod is seen in the mode its node count means
 * (four nodes X4, two the two-node mode above, any other count X1, where
 * a node has no id); elsewhere node_id and node_cnt are -1 and
 * reservation_id 0.
 */
static u32 neuron_pod_cnt_mode(const struct neuron_pod_view *v)
{
	if (v->node_cnt == 4)
		return NEURON_ULTRASERVER_MODE_X4;
	if (v->node_cnt == 2)
		return neuron_pod_mode_2(v);
	return NEURON_ULTRASERVER_MODE_X1;
}

static ssize_t neuron_pod_pds_show(char *buf, bool serial)
{
	struct neuron_pod_view v;
	int id = -1;
	u32 cnt;
	u64 s = 0;

	neuron_pod_class_view(&v);
	if (neuron_pod_busy(&v))
		return serial ? sysfs_emit(buf, "%016llx\n", 0ULL) : sysfs_emit(buf, "busy\n");
	if (v.platform == NEURON_PLATFORM_PDS)
		neuron_pod_modal(&v, neuron_pod_cnt_mode(&v), &id, &cnt, &s);
	return serial ? sysfs_emit(buf, "%016llx\n", s) : sysfs_emit(buf, "%d\n", id);
}

static ssize_t node_id_show(NEURON_CLASS_CONST struct class *class,
			    NEURON_CLASS_CONST struct class_attribute *attr, char *buf)
{
	return neuron_pod_pds_show(buf, false);
}

static ssize_t reservation_id_show(NEURON_CLASS_CONST struct class *class,
				   NEURON_CLASS_CONST struct class_attribute *attr, char *buf)
{
	return neuron_pod_pds_show(buf, true);
}

/* The node count of a switched pod, shown while it is being set up too. */
static ssize_t node_cnt_show(NEURON_CLASS_CONST struct class *class,
			     NEURON_CLASS_CONST struct class_attribute *attr, char *buf)
{
	struct neuron_pod_view v;

	neuron_pod_class_view(&v);
	return sysfs_emit(buf, "%d\n", v.platform == NEURON_PLATFORM_PDS ? (int)v.node_cnt : -1);
}

static CLASS_ATTR_RO(node_id_2);
static CLASS_ATTR_RO(node_id_4);
static CLASS_ATTR_RO(server_id_2);
static CLASS_ATTR_RO(server_id_4);
static CLASS_ATTR_RO(ultraserver_mode);
static CLASS_ATTR_RO(node_id);
static CLASS_ATTR_RO(node_cnt);
static CLASS_ATTR_RO(reservation_id);

/* The pod's files in /sys/class/neuron_device, in the order they are made. */
static const struct class_attribute *const neuron_pod_class_attrs[] = {
	&class_attr_node_id_2,
	&class_attr_node_id_4,
	&class_attr_server_id_2,
	&class_attr_server_id_4,
	&class_attr_ultraserver_mode,
	&class_attr_node_id,
	&class_attr_node_cnt,
	&class_attr_reservation_id,
};

/**
 * neuron_pod_class_files() - add or remove the pod's class attributes
 * @add: add them (at load) or remove them (at unload)
 *
 * Return: 0, or the error of the first that could not be made (those made
 * before it are removed again).
 */
int neuron_pod_class_files(bool add)
{
	struct class *cls = neuron_core_class();
	unsigned int i = ARRAY_SIZE(neuron_pod_class_attrs);
	int ret = 0;

	if (add) {
		for (i = 0; i < ARRAY_SIZE(neuron_pod_class_attrs); i++) {
			ret = class_create_file(cls, neuron_pod_class_attrs[i]);
			if (ret)
				break;
		}
		if (!ret)
			return 0;
	}
	while (i-- > 0)
		class_remove_file(cls, neuron_pod_class_attrs[i]);
	return ret;
}

/**
 * neuron_ioctl_nc_map() - NEURON_IOCTL_GET_LOGICAL_TO_PHYSICAL_NC_MAP
 * @nf: the file
 * @arg: struct neuron_ioctl_get_logical_to_physical_nc_map, read; its @map
 *	receives min(@max_map_entries, entries of the generation's map)
 *	entries and their count
 *
 * On nodes 1 and 3 of an UltraServer (or with force_die_flip), logical
 * core i is the map's entry i xor the generation's die flip (pod.c).
 *
 * Return: 0; -EINVAL for a format other than V0 or more than
 * NEURON_NC_MAP_MAX_ENTRIES entries; -EOPNOTSUPP when the generation has no
 * map (v2); -EFAULT; -ENOMEM.
 */
long neuron_ioctl_nc_map(struct neuron_file *nf, void __user *arg)
{
	const struct neuron_dhal_user *user = nf->nd->dhal.dhal->user;
	struct neuron_ioctl_get_logical_to_physical_nc_map req;
	struct neuron_ioctl_nc_map *map;
	u32 n, i, j, flip;
	size_t size;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.mapping_version != NEURON_IOCTL_NC_MAPPING_TYPE_V0 ||
	    req.max_map_entries > NEURON_NC_MAP_MAX_ENTRIES)
		return -EINVAL;
	if (!user || !user->nc_map)
		return -EOPNOTSUPP;

	n = min_t(u32, req.max_map_entries, user->nc_map_entries);
	size = struct_size(map, mappings, n);
	map = kzalloc(size, GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	map->num_entries = n;
	flip = neuron_pod_die_flip(nf->nd);
	for (i = 0; i < n; i++) {
		j = i ^ flip;
		if (j >= user->nc_map_entries)
			j = i;
		map->mappings[i].device_id = user->nc_map[j].device;
		map->mappings[i].device_nc_idx = user->nc_map[j].nc;
	}
	if (copy_to_user(neuron_user_ptr(req.map), map, size))
		ret = -EFAULT;
	kfree(map);
	return ret;
}
