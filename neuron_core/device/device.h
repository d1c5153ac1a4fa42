/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core's device plane (device/): the commands of a device's
 * identity, information and resets, register access through the BARs,
 * the firmware mailboxes (the telemetry plane's way to the firmware) and
 * the info/ directories in sysfs.  A built-in plane (device_plane.c):
 * the base layer reaches it only through the plane's callbacks and
 * command table; it uses only the base (base/core.h).
 */
#ifndef _NEURON_CORE_DEVICE_H
#define _NEURON_CORE_DEVICE_H

#include <linux/compiler_types.h>
#include <linux/types.h>

#include <neuron/neuron_ioctl.h>

#include "base/core.h"
#include "base/dispatch.h"

/* device_plane.c */
int neuron_device_plane_init(void);
void neuron_device_plane_exit(void);

/* fw_mbox.c */
void neuron_fw_mbox_init(struct neuron_device *nd);
void neuron_fw_mbox_teardown(struct neuron_device *nd);
void neuron_fw_mbox_fini(struct neuron_device *nd);
struct neuron_fw_req_hdr;
struct neuron_fw_resp_hdr;
#if IS_ENABLED(CONFIG_KUNIT)
int neuron_fw_build_req(struct neuron_fw_req_hdr *hdr, u8 seq, u8 cmd,
			const void *payload, size_t len);
int neuron_fw_check_resp(const struct neuron_fw_resp_hdr *resp, u8 seq,
			 size_t max, size_t *data_len);
#endif

/* sysfs.c: info/ and info/architecture/ */
int neuron_sysfs_add(struct neuron_device *nd);
void neuron_sysfs_remove(struct neuron_device *nd);

/* Command handlers, listed in the plane's table (device_plane.c) */
/* info.c: identity and information */
long neuron_ioctl_device_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_device_noop(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_app_pid(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_all_apps_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_compatible_version(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_basic_info(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bdf(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bdf_ext(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_driver_info_get(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_host_device_id(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_rid_map(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_printk(struct neuron_file *nf, void __user *arg);

/* reset_ioctl.c: resets */
long neuron_ioctl_device_reset(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_device_ready(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_reset_status(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_reset(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_nc_reset_ready(struct neuron_file *nf, void __user *arg);

/* bar.c: register access */
void neuron_ioctl_bar_describe(struct neuron_device *nd, struct neuron_ioctl_device_info *info);
long neuron_ioctl_bar_read(struct neuron_file *nf, void __user *arg);
long neuron_ioctl_bar_write(struct neuron_file *nf, void __user *arg);
int neuron_reg_window_lookup(const struct neuron_dhal_user *user, u64 off, u32 access, int *nc);
int neuron_reg_user_check(struct neuron_device *nd, u64 off, u32 access, int *nc);

#endif /* _NEURON_CORE_DEVICE_H */
