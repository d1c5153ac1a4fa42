// SPDX-License-Identifier: GPL-2.0
/*
 * The device's health registers, as stats/hardware/health_status/ shows
 * them (sysfs.c; Documentation/telemetry.rst, "Health status").
 *
 * Firmware keeps its error counts in MiscRAM: the SRAM ECC word, one word
 * per HBM channel and the HBM repair state; and the results of its own
 * health checks: a bitmap of unhealthy components (0x04) and a heartbeat
 * (bits 19:12 of 0x0c) it advances while the checks run.  The metrics thread
 * (metrics.c) caches them with every sample it takes of a ready device;
 * the files show the cache, so reading them touches no register and works
 * while the device resets.  Each sample that finds a cached word changed
 * counts one hardware error event and wakes pollers of
 * health_status/hw_error_event; the heartbeat, which moves by design, is
 * no error.  The first sample of a device only fills
 * the cache: what the words held before the thread started is no event.
 *
 * Only the generations whose DHAL says so (&neuron_dhal_fw.health_status)
 * have the files, and only while the module parameter
 * enable_sysfs_health_status_nodes is set when the tree is built.  The
 * parameter is this module's, not a DHAL's as in the reference: this
 * module creates the files, and turning them off needs no other module
 * reloaded.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/kernfs.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>

#include <neuron/device.h>
#include <neuron/dhal.h>
#include <neuron/fw.h>

#include "telemetry.h"

static bool enable_sysfs_health_status_nodes = true;
module_param(enable_sysfs_health_status_nodes, bool, 0644);
MODULE_PARM_DESC(enable_sysfs_health_status_nodes,
		 "Create stats/hardware/health_status on generations that have it, when a device's tree is built (default Y)");

/* MiscRAM words of the error counts, and what an unfilled word holds. */
#define TEL_H_SRAM_ECC		0x40
#define TEL_H_HBM_ECC(ch)	(0x44 + 4 * (ch))
#define TEL_H_HBM_REPAIR	0x64
#define TEL_H_STATUS		0x04
#define TEL_H_SEQ		0x0c
#define TEL_H_NOT_READY		0xdeadbeef

/* Fields of the words. */
#define TEL_H_SRAM_COUNT	GENMASK(15, 0)
#define TEL_H_HBM_UE		GENMASK(15, 12)
#define TEL_H_HBM_REPAIRABLE	GENMASK(11, 0)
#define TEL_H_REPAIR_STATE	GENMASK(1, 0)
#define TEL_H_REPAIR_PENDING	1
#define TEL_H_REPAIR_FAILED	2
#define TEL_H_HEARTBEAT		GENMASK(19, 12)

/*
 * The components of the health bitmap, by bit.  The reference driver 2.30
 * names them but its source is not published: the bits here follow the
 * order of its release notes' list (Documentation/telemetry.rst).
 */
static const char *const tel_h_components[] = {
	"hbm", "sram", "firmware_service_api", "firmware_service_processor",
	"link_intraserver", "link_host", "link_efa", "link_interserver", "link_switch",
	"axi_fabric",
};

/**
 * struct neuron_tel_health - the cached health registers of a device
 * @lock: protects every field below; taken by the metrics thread and by
 *	readers of the files, never with another lock held
 * @sampled: the cache holds a sample
 * @sram: the SRAM ECC word (0 for an unfilled word, as each word below)
 * @hbm: the HBM ECC words, by channel
 * @repair: the HBM repair state word
 * @status: the health check bitmap (unhealthy components)
 * @seq: the health check sequence word (heartbeat)
 * @events: samples that found a word changed
 * @kn: health_status/hw_error_event (a reference), to wake its pollers; or
 *	NULL while the file does not exist
 */
struct neuron_tel_health {
	/* protects everything below */
	spinlock_t lock;
	bool sampled;
	u32 sram;
	u32 hbm[NEURON_MAX_HBM];
	u32 repair;
	u32 status;
	u32 seq;
	u32 events;
	struct kernfs_node *kn;
};

/**
 * neuron_tel_health_init() - a device's health cache, empty
 * @td: the plane's device state
 *
 * Return: 0 or -ENOMEM.
 */
int neuron_tel_health_init(struct neuron_tel_dev *td)
{
	struct neuron_tel_health *h = kzalloc(sizeof(*h), GFP_KERNEL);

	if (!h)
		return -ENOMEM;
	spin_lock_init(&h->lock);
	td->health = h;
	return 0;
}

/**
 * neuron_tel_health_fini() - free a device's health cache
 * @td: the plane's device state, its file gone and its thread stopped
 */
void neuron_tel_health_fini(struct neuron_tel_dev *td)
{
	kfree(td->health);
	td->health = NULL;
}

/**
 * neuron_tel_health_enabled() - whether a device gets health_status/
 * @td: the plane's device state, its device bound to its DHAL
 *
 * Return: the DHAL has the health registers and the module parameter is set.
 */
bool neuron_tel_health_enabled(struct neuron_tel_dev *td)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);

	return dhal && dhal->fw->health_status && READ_ONCE(enable_sysfs_health_status_nodes);
}

/**
 * neuron_tel_health_set_file() - the file whose pollers an event wakes
 * @td: the plane's device state
 * @kn: health_status/hw_error_event (the cache takes over its reference),
 *	or NULL to drop the one held
 */
void neuron_tel_health_set_file(struct neuron_tel_dev *td, struct kernfs_node *kn)
{
	struct neuron_tel_health *h = td->health;
	struct kernfs_node *old;

	spin_lock(&h->lock);
	old = h->kn;
	h->kn = kn;
	spin_unlock(&h->lock);
	sysfs_put(old);
}

static u32 tel_h_read(struct neuron_device *nd, u32 reg)
{
	u32 v = neuron_fw_misc_read(nd, reg);

	return v == TEL_H_NOT_READY ? 0 : v;
}

/**
 * neuron_tel_health_sample() - refresh a device's health cache
 * @td: the plane's device state, its device ready
 *
 * Context: the metrics thread; does nothing on a generation without the
 * health registers.
 */
void neuron_tel_health_sample(struct neuron_tel_dev *td)
{
	const struct neuron_dhal *dhal = neuron_device_dhal(td->nd);
	struct neuron_tel_health *h = td->health;
	u32 hbm[NEURON_MAX_HBM] = {}, sram, repair, status, seq;
	unsigned int ch, n;
	bool changed;

	if (!dhal || !dhal->fw->health_status)
		return;
	n = min_t(u32, dhal->mem->hbm_count, NEURON_MAX_HBM);
	sram = tel_h_read(td->nd, TEL_H_SRAM_ECC);
	for (ch = 0; ch < n; ch++)
		hbm[ch] = tel_h_read(td->nd, TEL_H_HBM_ECC(ch));
	repair = tel_h_read(td->nd, TEL_H_HBM_REPAIR);
	status = tel_h_read(td->nd, TEL_H_STATUS);
	seq = tel_h_read(td->nd, TEL_H_SEQ);

	spin_lock(&h->lock);
	changed = h->sampled && (sram != h->sram || repair != h->repair || status != h->status ||
				 memcmp(hbm, h->hbm, sizeof(hbm)));
	h->sampled = true;
	h->sram = sram;
	h->repair = repair;
	h->status = status;
	h->seq = seq;
	memcpy(h->hbm, hbm, sizeof(hbm));
	if (changed) {
		h->events++;
		/* kernfs_notify() only queues the wake-up: fine under the lock. */
		if (h->kn)
			kernfs_notify(h->kn);
	}
	spin_unlock(&h->lock);
}

/**
 * neuron_tel_health_get() - the counts health_status/ shows
 * @td: the plane's device state
 * @out: filled from the cache (all 0 before the first sample)
 *
 * The uncorrected HBM errors are the sum of bits 15:12 of the HBM words,
 * plus one when the repair state (bits 1:0) says a repair failed (2); the
 * repairable ones the sum of bits 11:0, plus one while a repair is pending
 * (1); the SRAM errors bits 15:0 of the SRAM word; the heartbeat bits
 * 19:12 of the sequence word.
 */
void neuron_tel_health_get(struct neuron_tel_dev *td, struct neuron_tel_health_counts *out)
{
	struct neuron_tel_health *h = td->health;
	unsigned int ch;
	u32 state;

	memset(out, 0, sizeof(*out));
	spin_lock(&h->lock);
	for (ch = 0; ch < NEURON_MAX_HBM; ch++) {
		out->hbm_ue += FIELD_GET(TEL_H_HBM_UE, h->hbm[ch]);
		out->hbm_repairable += FIELD_GET(TEL_H_HBM_REPAIRABLE, h->hbm[ch]);
	}
	state = FIELD_GET(TEL_H_REPAIR_STATE, h->repair);
	out->hbm_ue += state == TEL_H_REPAIR_FAILED;
	out->hbm_repairable += state == TEL_H_REPAIR_PENDING;
	out->sram = FIELD_GET(TEL_H_SRAM_COUNT, h->sram);
	out->status = h->status;
	out->heartbeat = FIELD_GET(TEL_H_HEARTBEAT, h->seq);
	out->events = h->events;
	spin_unlock(&h->lock);
}

/**
 * neuron_tel_health_components() - the unhealthy components, as text
 * @status: the health check bitmap
 * @buf: a sysfs buffer (PAGE_SIZE bytes)
 *
 * Return: bytes written: the names of the bits set, separated by commas,
 * then a newline (an empty line when every component is healthy); a bit
 * without a name as "bit<N>".
 */
int neuron_tel_health_components(u32 status, char *buf)
{
	unsigned long bits = status;
	unsigned int bit;
	int len = 0;

	for_each_set_bit(bit, &bits, 32) {
		if (bit < ARRAY_SIZE(tel_h_components))
			len += sysfs_emit_at(buf, len, "%s%s", len ? "," : "",
					     tel_h_components[bit]);
		else
			len += sysfs_emit_at(buf, len, "%sbit%u", len ? "," : "", bit);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}
EXPORT_SYMBOL_IF_KUNIT(neuron_tel_health_components);
