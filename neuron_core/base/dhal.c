// SPDX-License-Identifier: GPL-2.0
/*
 * DHAL registration: per-generation modules register a const descriptor;
 * each device binds the one that drives its PCI id.  Devices hold no
 * reference on the DHAL's module: as a PCI driver's unregister unbinds its
 * devices, a DHAL's unregister tears down the devices bound to it, which
 * then wait for it to register again (device.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmod.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <neuron/compat.h>

#include "core.h"

/**
 * struct neuron_dhal_entry - a registered DHAL
 * @dhal: its descriptor
 * @node: entry in neuron_dhals
 */
struct neuron_dhal_entry {
	const struct neuron_dhal *dhal;
	struct list_head node;
};

/* Registered DHALs. */
static LIST_HEAD(neuron_dhals);
/* Protects neuron_dhals. */
static DEFINE_MUTEX(neuron_dhal_lock);

static const struct neuron_dhal_arch *
neuron_dhal_arch_of(const struct neuron_dhal *dhal, u16 pci_device)
{
	unsigned int i;

	for (i = 0; i < dhal->n_archs; i++)
		if (dhal->archs[i].pci_device == pci_device)
			return &dhal->archs[i];
	return NULL;
}

static bool neuron_dhal_valid(const struct neuron_dhal *dhal)
{
	const struct neuron_dhal_layout *l;
	unsigned int i;

	if (!dhal || !dhal->name || !dhal->archs || !dhal->n_archs ||
	    !dhal->layout || !dhal->mem || !dhal->fw)
		return false;
	l = dhal->layout;
	if (l->apb_bar >= NEURON_NUM_BARS || l->dram_bar >= NEURON_NUM_BARS ||
	    l->apb_bar == l->dram_bar || !l->nc_count)
		return false;
	if (dhal->mem->hbm_count > NEURON_MAX_HBM || (dhal->mem->hbm_count && !dhal->mem->hbm_base))
		return false;
	if (!dhal->fw->reset_poll_ms || !dhal->fw->reset_timeout_ms)
		return false;
	for (i = 0; i < dhal->n_archs; i++)
		if (!dhal->archs[i].arch_type || !dhal->archs[i].nc_arch_type ||
		    !dhal->archs[i].instance_type || !dhal->archs[i].device_name)
			return false;
	return true;
}

/**
 * neuron_dhal_register() - make a DHAL available to devices
 * @dhal: the descriptor; must stay valid until neuron_dhal_unregister()
 *
 * Devices of the DHAL's PCI ids that are waiting for it bind right away.
 *
 * Return: 0, -EINVAL for a malformed descriptor, -EEXIST when one of its
 * PCI ids already has a DHAL, -ENOMEM.
 */
int neuron_dhal_register(const struct neuron_dhal *dhal)
{
	struct neuron_dhal_entry *e, *new;
	unsigned int i;
	int ret = 0;

	if (!neuron_dhal_valid(dhal)) {
		pr_err("refusing malformed DHAL descriptor %s\n",
		       dhal && dhal->name ? dhal->name : "(unnamed)");
		return -EINVAL;
	}
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->dhal = dhal;

	mutex_lock(&neuron_dhal_lock);
	list_for_each_entry(e, &neuron_dhals, node) {
		for (i = 0; i < dhal->n_archs; i++) {
			if (neuron_dhal_arch_of(e->dhal, dhal->archs[i].pci_device)) {
				pr_err("%s: PCI id %04x already driven by %s\n", dhal->name,
				       dhal->archs[i].pci_device, e->dhal->name);
				ret = -EEXIST;
				goto unlock;
			}
		}
	}
	list_add_tail(&new->node, &neuron_dhals);
unlock:
	mutex_unlock(&neuron_dhal_lock);
	if (ret) {
		kfree(new);
		return ret;
	}
	pr_info("DHAL %s (v%u) registered\n", dhal->name, dhal->generation);
	neuron_devices_kick_unbound();
	return 0;
}
EXPORT_SYMBOL_NS_GPL(neuron_dhal_register, NEURON_NS);

/**
 * neuron_dhal_unregister() - withdraw a DHAL
 * @dhal: the descriptor given to neuron_dhal_register()
 *
 * Called from the DHAL module's exit.  No device binds it any more; each
 * device bound to it is torn down (its open files get -ENODEV, its
 * mappings go) and waits for a DHAL again.  Devices of other generations
 * are not touched.  Returns once no device uses @dhal.
 */
void neuron_dhal_unregister(const struct neuron_dhal *dhal)
{
	struct neuron_dhal_entry *e, *tmp;
	bool found = false;

	mutex_lock(&neuron_dhal_lock);
	list_for_each_entry_safe(e, tmp, &neuron_dhals, node) {
		if (e->dhal == dhal) {
			list_del(&e->node);
			kfree(e);
			found = true;
		}
	}
	mutex_unlock(&neuron_dhal_lock);
	if (!found)
		return;
	neuron_devices_dhal_gone(dhal);
	pr_info("DHAL %s (v%u) unregistered\n", dhal->name, dhal->generation);
}
EXPORT_SYMBOL_NS_GPL(neuron_dhal_unregister, NEURON_NS);

/*
 * Bind @nd to the DHAL of its PCI id.  Return: 0; -EPROBE_DEFER when that
 * DHAL is not registered (its module has been requested once; registration
 * re-runs the device's worker).
 */
int neuron_dhal_bind(struct neuron_device *nd)
{
	u16 id = nd->bus.id.device;
	const struct neuron_dhal_arch *arch = NULL;
	const struct neuron_dhal *dhal = NULL;
	struct neuron_dhal_entry *e;
	bool request = false;

	mutex_lock(&neuron_dhal_lock);
	list_for_each_entry(e, &neuron_dhals, node) {
		arch = neuron_dhal_arch_of(e->dhal, id);
		if (arch) {
			dhal = e->dhal;
			break;
		}
	}
	if (dhal) {
		mutex_lock(&nd->lock);
		nd->dhal.arch = arch;
		WRITE_ONCE(nd->dhal.dhal, dhal);
		mutex_unlock(&nd->lock);
	}
	mutex_unlock(&neuron_dhal_lock);
	if (dhal)
		return 0;

	mutex_lock(&nd->lock);
	if (!nd->module_requested) {
		nd->module_requested = true;
		request = true;
	}
	mutex_unlock(&nd->lock);
	if (request) {
		dev_info(nd->bus.parent, "waiting for the DHAL of PCI id %04x\n", id);
		request_module_nowait(NEURON_DHAL_ALIAS_FMT, id);
	}
	return -EPROBE_DEFER;
}

void neuron_dhal_unbind(struct neuron_device *nd)
{
	mutex_lock(&nd->lock);
	WRITE_ONCE(nd->dhal.dhal, NULL);
	nd->dhal.arch = NULL;
	mutex_unlock(&nd->lock);
}
