/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_sim private declarations shared between its files.
 *
 * A simulated device is a struct device on the neuron_sim bus that hands
 * the core a struct neuron_bus_desc whose register callbacks are served by
 * regs.c.  main.c owns the bus, the device lifetime and sysfs; debugfs.c the
 * fault switches; dma.c the DMA engines; nq.c the notification-queue
 * injector.
 */
#ifndef _NEURON_SIM_H
#define _NEURON_SIM_H

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <neuron/device.h>

struct seq_file;

/* Simulated device ids (and default routing ids) are 0..NSIM_MAX_DEVICES-1. */
#define NSIM_MAX_DEVICES	64

/* PCI identity of every simulated device. */
#define NSIM_PCI_VENDOR		0x1d0f
/* PCI domain of the fake address: no real machine numbers a domain so high. */
#define NSIM_PCI_DOMAIN		0x5000

/* BAR numbers the simulator implements. */
#define NSIM_BAR_REGS		0
#define NSIM_BAR_MEM		4

/* MiscRAM: the firmware-owned register block inside BAR 0. */
#define NSIM_MISC_SIZE		0x1000
#define NSIM_MISC_API_VERSION	0x000
#define NSIM_MISC_HEALTH_STATUS	0x004	/* unhealthy components, a bitmap */
#define NSIM_MISC_HEALTH_SEQ	0x00c	/* bits 19:12: the health check heartbeat */
#define NSIM_MISC_ROUTING_ID	0x024
#define NSIM_MISC_SERIAL_LO	0x038
#define NSIM_MISC_SERIAL_HI	0x03c
#define NSIM_MISC_POWER		0x054	/* utilisation word of die 0; die 1's at 0x058 */
#define NSIM_POWER_DICE		2
#define NSIM_MISC_FW_BUILD	0x074
#define NSIM_MISC_RESET_TYPE	0x1ec
#define NSIM_MISC_MBOX_ACK	0x0f0
#define NSIM_MISC_MBOX_DATA	0x100
#define NSIM_MISC_MBOX_HDR	0x1f0	/* new: header; legacy: request address, high */
#define NSIM_MISC_MBOX_CRC	0x1f4	/* new: CRC; legacy: request address, low */
#define NSIM_MISC_MBOX_RESP_HI	0x1f8
#define NSIM_MISC_MBOX_RESP_LO	0x1fc
#define NSIM_MISC_DOORBELL	0x800
#define NSIM_MISC_FW_STATUS	0x808
#define NSIM_FW_STATUS_RESETTING	BIT(3)

/* Firmware API version the simulated firmware reports. */
#define NSIM_FW_API_VERSION	7
/* The firmware build number MiscRAM 0x074 reports (debugfs fw_build). */
#define NSIM_FW_BUILD		20261207
/* What a firmware register reads while the firmware is not ready. */
#define NSIM_REG_NOT_READY	0xdeadbeef
/* Serial number: "SIM" in the top bytes, then generation and device id. */
#define NSIM_SERIAL_BASE	0x53494d0000000000ULL

/*
 * NeuronCore register blocks: NeuronCore n's block starts at BAR 0 offset
 * nc_base + n * nc_stride (struct nsim_gen).  Inside it, 256 event
 * registers, then 256 semaphores seen through four views of 0x400 bytes
 * each: read, set, add and subtract.
 */
#define NSIM_NC_STRIDE		0x4000000
#define NSIM_NC_EVENTS		256
#define NSIM_NC_SEMS		256
#define NSIM_NC_EVENT_OFF	0x2700000
#define NSIM_NC_SEM_OFF		0x2701000
#define NSIM_NC_SEM_VIEW_SIZE	(NSIM_NC_SEMS * 4)

/**
 * enum nsim_sem_view - the four windows onto the semaphores, in BAR order
 * @NSIM_SEM_READ: reads the value; a write sets it
 * @NSIM_SEM_SET: a write sets the value
 * @NSIM_SEM_ADD: a write adds to the value
 * @NSIM_SEM_SUB: a write subtracts from the value
 * @NSIM_SEM_VIEWS: number of views
 *
 * Every view reads the current value.  Arithmetic wraps modulo 2^32.
 */
enum nsim_sem_view {
	NSIM_SEM_READ,
	NSIM_SEM_SET,
	NSIM_SEM_ADD,
	NSIM_SEM_SUB,
	NSIM_SEM_VIEWS,
};

/*
 * Notification queues: a notific block in BAR 0 holds %NSIM_NQ_SLOTS queue
 * slots of %NSIM_NQ_SLOT_SIZE bytes from %NSIM_NQ_SLOT_OFF on; a slot's
 * registers are plain sparse RAM the driver programs and the simulator reads.
 */
#define NSIM_NQ_SLOTS		96
#define NSIM_NQ_SLOT_OFF	0x100
#define NSIM_NQ_SLOT_SIZE	0x28
#define NSIM_NQ_BASE_LO		0x0
#define NSIM_NQ_BASE_HI		0x4
#define NSIM_NQ_SIZE		0x8
#define NSIM_NQ_HEAD		0xc
/* Words one injected entry has at most. */
#define NSIM_NQ_MAX_WORDS	64
/* Longest write the nq_inject debugfs file accepts. */
#define NSIM_NQ_LINE		1024

/**
 * struct nsim_nq_entry - an entry to inject into a notification queue
 * @block: BAR 0 offset of the notific block
 * @slot: queue slot in it, below %NSIM_NQ_SLOTS
 * @nwords: words of the entry, 1 to %NSIM_NQ_MAX_WORDS
 * @words: the entry, written little-endian
 */
struct nsim_nq_entry {
	u64 block;
	unsigned int slot;
	unsigned int nwords;
	u32 words[NSIM_NQ_MAX_WORDS];
};

/**
 * enum nsim_fault - fault switch of one simulated device
 * @NSIM_FAULT_NONE: behave
 * @NSIM_FAULT_RESET_FAIL: accept a reset but never finish it (firmware
 *	status keeps its reset-in-progress bit)
 * @NSIM_FAULT_RESET_HANG: never accept a reset request
 * @NSIM_FAULT_RID_HANG: the routing-id register reads 0xdeadbeef
 * @NSIM_FAULT_COUNT: number of faults
 */
enum nsim_fault {
	NSIM_FAULT_NONE,
	NSIM_FAULT_RESET_FAIL,
	NSIM_FAULT_RESET_HANG,
	NSIM_FAULT_RID_HANG,
	NSIM_FAULT_COUNT,
};

/**
 * enum nsim_pod_fault - fault switches of a device's neighbour links (pod.c)
 * @NSIM_POD_BROKEN_LEFT: the left link fails, seen from both ends
 * @NSIM_POD_BROKEN_RIGHT: the right link fails, seen from both ends
 * @NSIM_POD_SILENT: reads of the device over a link return 0xdeadbeef
 * @NSIM_POD_MISWIRE_LEFT: the left link reaches the neighbour's next device
 * @NSIM_POD_MISWIRE_RIGHT: the right link reaches the neighbour's next device
 * @NSIM_POD_FAULTS: number of switches
 */
enum nsim_pod_fault {
	NSIM_POD_BROKEN_LEFT,
	NSIM_POD_BROKEN_RIGHT,
	NSIM_POD_SILENT,
	NSIM_POD_MISWIRE_LEFT,
	NSIM_POD_MISWIRE_RIGHT,
	NSIM_POD_FAULTS,
};

/**
 * struct nsim_gen - what differs between simulated generations
 * @name: "v2", "v3" or "v4"
 * @gen: 2, 3 or 4
 * @pci_device: PCI device id a bare generation name selects
 * @bar0_size: size of the register BAR
 * @misc_base: offset of MiscRAM in the register BAR
 * @qemu_reset_reg: register the qemu-revision reset path writes and polls
 *	for 0; it always reads 0 here
 * @nc_count: NeuronCores
 * @nc_base: BAR 0 offset of NeuronCore 0's register block
 * @nc_stride: distance between the blocks of consecutive NeuronCores
 * @ts_count: TOP_SPs
 * @ts_base: BAR 0 offset of TOP_SP 0's block
 * @ts_per_group: TOP_SPs per group (their blocks @ts_stride apart)
 * @ts_group_stride: distance between groups of TOP_SPs
 * @csr_dev_base: device-physical address at which the firmware's READ
 *	command sees BAR 0 offset 0
 * @csr_dev_size: bytes of BAR 0 READ reaches from there
 */
struct nsim_gen {
	const char *name;
	u8 gen;
	u16 pci_device;
	u64 bar0_size;
	u64 misc_base;
	u64 qemu_reset_reg;
	unsigned int nc_count;
	u64 nc_base;
	u32 nc_stride;
	unsigned int ts_count;
	u64 ts_base;
	unsigned int ts_per_group;
	u64 ts_group_stride;
	u64 csr_dev_base;
	u64 csr_dev_size;
};

/* The simulated generations, indices of nsim_gens[]. */
enum nsim_gen_id {
	NSIM_GEN_V2,
	NSIM_GEN_V3,
	NSIM_GEN_V4,
	NSIM_GENS
};

/* Every generation new_device accepts (main.c). */
extern const struct nsim_gen nsim_gens[NSIM_GENS];

/* Posted metrics blobs the simulator keeps (debugfs metrics_posted). */
#define NSIM_METRICS_LOG	16
#define NSIM_METRICS_MAX	128

/**
 * struct nsim_metric_post - one blob the firmware was asked to post
 * @len: its bytes
 * @data: the blob
 */
struct nsim_metric_post {
	u32 len;
	u8 data[NSIM_METRICS_MAX];
};

/**
 * struct nsim_mbox - the simulated firmware mailboxes (mbox.c)
 * @work: answers a request mbox_delay_ms after the doorbell
 * @silent: fault switch: never answer
 * @error: fault switch: answer every request with this error code (0: off)
 * @unknown: fault switch: answer every request "unknown command"
 * @delay_ms: answer this long after the doorbell (0: in the doorbell write)
 * @profiles_all: profiles available for feature 0 (bit n: profile n)
 * @profiles_hbm: profiles available for feature 5 (HBM_7200)
 * @profile: the profile last set
 * @features: the feature byte last set
 * @requests: requests answered
 * @crc_errors: requests refused for a bad CRC
 * @posts: blobs posted so far; the last %NSIM_METRICS_LOG are in @log
 * @log: ring of posted blobs, @posts % %NSIM_METRICS_LOG next
 *
 * The switches and knobs are written through debugfs and read under
 * &nsim_dev.lock; the rest is protected by &nsim_dev.lock.
 */
struct nsim_mbox {
	struct delayed_work work;
	bool silent;
	u8 error;
	bool unknown;
	u32 delay_ms;
	u32 profiles_all;
	u32 profiles_hbm;
	u8 profile;
	u8 features;
	u64 requests;
	u32 crc_errors;
	u32 posts;
	struct nsim_metric_post log[NSIM_METRICS_LOG];
};

/*
 * TOP_SP blocks are 4 MiB apart within a group; each starts with the same
 * 8 KiB window as a NeuronCore's at NSIM_NC_EVENT_OFF: events, then the
 * semaphores' four views.
 */
#define NSIM_TS_STRIDE		0x400000

/*
 * Semaphore blocks: 0 .. nc_count - 1 are the NeuronCores, the next
 * ts_count the TOP_SPs.
 */
static inline unsigned int nsim_sem_blocks(const struct nsim_gen *gen)
{
	return gen->nc_count + gen->ts_count;
}

/**
 * struct nsim_dev - one simulated device
 * @dev: the device on the neuron_sim bus, named neuron_sim<@id>
 * @id: simulator id, 0..63
 * @rid: routing id the simulated firmware reports
 * @gen: generation
 * @pci_device: PCI device id
 * @revision: PCI revision
 * @desc: what the device gave neuron_device_create(); lives as long as @dev
 * @nd_lock: protects @nd against the sysfs readers
 * @nd: the core's device, NULL before creation and once destroy started
 * @lock: protects @misc, @fault, @reset_fault, @reset_pending, @resets,
 *	@power_auto, @heartbeat_stopped and @mbox's state
 * @misc: MiscRAM contents
 * @power_auto: the simulated firmware bumps a die's utilisation sample
 *	counter (high 16 bits of its word) at each read of it (debugfs
 *	power_util turns it on)
 * @heartbeat_stopped: the health check heartbeat (MiscRAM 0x00c, bits
 *	19:12) stays; otherwise it advances at each read of its word
 *	(debugfs health)
 * @fault: the fault switch
 * @reset_fault: @fault when the reset in flight was requested
 * @reset_pending: a reset was accepted by the doorbell and not finished
 * @resets: resets the simulated firmware has finished (debugfs)
 * @reset_work: finishes a reset @reset_delay_ms after the doorbell
 * @mbox: the firmware mailboxes
 * @regs: BAR 0 outside MiscRAM: register index (offset / 4) to value, only
 *	non-zero values stored; the xarray's own lock serialises updates
 * @sems: the semaphores, @gen->nc_count * %NSIM_NC_SEMS of them, NeuronCore
 *	by NeuronCore; atomic, so concurrent adds and subtracts lose nothing
 * @mem: BAR 4 RAM while BAR 4 is mapped, else NULL; set and cleared under
 *	@dma_lock as well, so the DMA engines never see it go away
 * @mem_size: size of @mem
 * @dma_lock: protects @dma_engines' contents, @dma_stopped, @dma_abort,
 *	@dma_stall, @dma_busy_after_disable and the DMA counters (dma.c)
 * @dma_engines: engine index to its execution state, created on first use
 * @dma_work: executes queued descriptors when dma_mode is async
 * @dma_stopped: the device is going away: execute and schedule nothing
 * @dma_abort: fault switch: the next descriptor fails and aborts its engine
 * @dma_stall: fault switch: engines make no progress while set
 * @dma_busy_after_disable: fault switch: an engine half told to stop while
 *	it has descriptors to run keeps running (and reading running) until
 *	it has run them, and its busy queues ignore software resets meanwhile
 * @dma_errors: engine errors so far (debugfs)
 * @dma_descs: descriptors executed so far (debugfs)
 * @dma_barriers: of those, M2S descriptors with the write barrier (debugfs)
 * @dma_bytes: bytes copied so far (debugfs)
 * @pod_dma_reads: descriptors that read a neighbour window (pod.c; debugfs)
 * @bench_size: bytes of the last copy_bench run, negative into the device (debugfs)
 * @bench_ns: its time
 * @nq_lock: serialises notification-queue injections: protects the
 *	read-modify-write of the slots' head registers and @nq_injected
 * @nq_injected: entries injected into notification queues (debugfs)
 * @ddir: debugfs directory
 * @pod_fault: bit per &enum nsim_pod_fault; written by debugfs with
 *	WRITE_ONCE(), read with READ_ONCE()
 */
struct nsim_dev {
	struct device dev;
	unsigned int id;
	unsigned int rid;
	const struct nsim_gen *gen;
	u16 pci_device;
	u8 revision;
	struct neuron_bus_desc desc;

	/* protects nd against the sysfs readers */
	struct mutex nd_lock;
	struct neuron_bus_device *nd;

	/*
	 * protects misc, fault, reset_fault, reset_pending, resets, power_auto,
	 * heartbeat_stopped, mbox's state
	 */
	spinlock_t lock;
	u32 misc[NSIM_MISC_SIZE / 4];
	bool power_auto;
	bool heartbeat_stopped;
	enum nsim_fault fault;
	enum nsim_fault reset_fault;
	bool reset_pending;
	u32 resets;
	struct delayed_work reset_work;
	struct nsim_mbox mbox;

	struct xarray regs;
	/* no lock: every semaphore is an atomic_t */
	atomic_t *sems;

	void *mem;
	size_t mem_size;

	/*
	 * protects dma_engines' contents, dma_stopped, dma_abort, dma_stall,
	 * dma_busy_after_disable, the DMA counters (pod_dma_reads too), and
	 * mem against unmapping while a copy runs
	 */
	spinlock_t dma_lock;
	struct xarray dma_engines;
	struct work_struct dma_work;
	bool dma_stopped;
	bool dma_abort;
	bool dma_stall;
	bool dma_busy_after_disable;
	u32 dma_errors;
	u64 dma_descs;
	u64 dma_barriers;
	u64 dma_bytes;
	u64 pod_dma_reads;
	s64 bench_size;
	u64 bench_ns;

	/*
	 * serialises notification-queue injections: protects the
	 * read-modify-write of the slots' head registers and nq_injected
	 */
	struct mutex nq_lock;
	u64 nq_injected;

	struct dentry *ddir;
	u32 pod_fault;
};

/* regs.c */
int nsim_regs_init(struct nsim_dev *sd, enum nsim_fault fault);
void nsim_regs_fill_desc(struct nsim_dev *sd, struct neuron_bus_desc *desc);
void nsim_regs_stop(struct nsim_dev *sd);
void nsim_regs_fini(struct nsim_dev *sd);
const char *nsim_fault_name(enum nsim_fault fault);
int nsim_fault_parse(const char *s, enum nsim_fault *fault);
enum nsim_fault nsim_fault_get(struct nsim_dev *sd);
void nsim_fault_set(struct nsim_dev *sd, enum nsim_fault fault);
u32 nsim_reg_get(struct nsim_dev *sd, u64 off);
int nsim_reg_set(struct nsim_dev *sd, u64 off, u32 val, gfp_t gfp);
u64 nsim_event_off(const struct nsim_gen *gen, unsigned int nc, unsigned int idx);
u32 nsim_sem_get(struct nsim_dev *sd, unsigned int nc, unsigned int idx);
void nsim_sem_set(struct nsim_dev *sd, unsigned int nc, unsigned int idx, u32 val);

/* dma.c */
void nsim_dma_init(struct nsim_dev *sd);
void nsim_dma_stop(struct nsim_dev *sd);
void nsim_dma_fini(struct nsim_dev *sd);
void nsim_dma_write(struct nsim_dev *sd, u64 off, u32 val);
bool nsim_dma_read(struct nsim_dev *sd, u64 off, u32 *val);
void nsim_dma_set_fault(struct nsim_dev *sd, bool stall, bool on);
bool nsim_dma_get_fault(struct nsim_dev *sd, bool stall);
void nsim_dma_set_busy_after_disable(struct nsim_dev *sd, bool on);
bool nsim_dma_get_busy_after_disable(struct nsim_dev *sd);
void nsim_dma_doorbells_list(struct seq_file *m, struct nsim_dev *sd);
int nsim_dma_copy_bench(struct nsim_dev *sd, u64 size, bool to_dev, u64 *ns);
int nsim_dma_ring_write(struct nsim_dev *sd, u64 base, u32 size, u32 pos,
			const u32 *words, unsigned int n);

/* mbox.c */
void nsim_mbox_init(struct nsim_dev *sd);
void nsim_mbox_ring(struct nsim_dev *sd);
void nsim_mbox_stop(struct nsim_dev *sd);
void nsim_mbox_debugfs_add(struct nsim_dev *sd);
void *nsim_host_ptr(struct nsim_dev *sd, u64 addr, u32 len);

/* health.c */
void nsim_health_debugfs_add(struct nsim_dev *sd);
u32 nsim_heartbeat_bump(u32 *w);

/* nq.c */
int nsim_nq_parse(char *line, u64 bar0_size, struct nsim_nq_entry *e);
int nsim_nq_inject(struct nsim_dev *sd, const struct nsim_nq_entry *e);

/* pod.c */
void nsim_pod_add(struct nsim_dev *sd);
void nsim_pod_del(struct nsim_dev *sd);
void nsim_pod_debugfs_add(struct nsim_dev *sd);
int nsim_pod_window(u8 gen, unsigned int eng, u64 addr, u32 len, u32 *off);
int nsim_pod_dma_read(struct nsim_dev *sd, unsigned int eng, u64 addr, void *dst, u32 len);

/* debugfs.c */
void nsim_debugfs_init(void);
void nsim_debugfs_exit(void);
void nsim_dev_debugfs_add(struct nsim_dev *sd);
void nsim_dev_debugfs_del(struct nsim_dev *sd);
int nsim_debugfs_str(char *buf, size_t size, const char __user *ubuf, size_t count);
int nsim_preset_parse(char *line, unsigned int nc_count, bool sem,
		      unsigned int *nc, unsigned int *idx, u32 *val);

#endif /* _NEURON_SIM_H */
