/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Expected Neuron userspace ABI on LP64: what driver 2.28 and 2.29 added
 * to or changed in the 2.27.4.0 ABI that abi_table.h records, as far as
 * this driver implements it (Documentation/uapi.rst lists the rest).
 * Written by hand from the fact table of the 2.28-2.30 headers
 * (abi-2.28-2.30.md, 4.1, 4.2 and 4.4); the element types are
 * abi_test.c's.  A 2.27 fact that 2.29 changed is checked here under its
 * 2.29 name and value; abi_table.h checks the old value under the name
 * 2.29 gave it.
 */

/* name, value, expected value, expected dir, nr, size */
static const struct abi_cmd abi229_cmds[] = {
	{ "NEURON_IOCTL_MEM_BUF_ZEROCOPY64",
	  NEURON_IOCTL_MEM_BUF_ZEROCOPY64,
	  0xc0404e7cU, _IOC_READ | _IOC_WRITE, 124, 64 },
	{ "NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED",
	  NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED,
	  0xc0304e7cU, _IOC_READ | _IOC_WRITE, 124, 48 },
};

/* name, size, expected size, alignment, expected alignment */
static const struct abi_type abi229_types[] = {
	{ "struct neuron_ioctl_mem_buf_copy64zc",
	  sizeof(struct neuron_ioctl_mem_buf_copy64zc), 64,
	  __alignof__(struct neuron_ioctl_mem_buf_copy64zc), 8 },
	{ "struct neuron_ioctl_mem_buf_copy64zc_deprecated",
	  sizeof(struct neuron_ioctl_mem_buf_copy64zc_deprecated), 48,
	  __alignof__(struct neuron_ioctl_mem_buf_copy64zc_deprecated), 8 },
};

/* As abi_table.h's abi_fields: offset, size, no element, sign, pointer. */
#define ABI_T struct neuron_ioctl_mem_buf_copy64zc
#define ABI229_INT(f, off, size, sign)						\
	{ "struct neuron_ioctl_mem_buf_copy64zc", #f,				\
	  offsetof(ABI_T, f), off, sizeof(((ABI_T *)0)->f), size, -1, -1,	\
	  !((__typeof__(((ABI_T *)0)->f))(-1) > 0), sign,			\
	  __builtin_classify_type(((ABI_T *)0)->f) == 5, 0 }
#define ABI229_PTR(f, off)							\
	{ "struct neuron_ioctl_mem_buf_copy64zc", #f,				\
	  offsetof(ABI_T, f), off, sizeof(((ABI_T *)0)->f), 8, -1, -1,		\
	  -1, -1, __builtin_classify_type(((ABI_T *)0)->f) == 5, 1 }
static const struct abi_field abi229_fields[] = {
	ABI229_INT(mem_handle, 0, 8, 0),
	ABI229_PTR(buffer, 8),
	ABI229_INT(size, 16, 8, 0),
	ABI229_INT(offset, 24, 8, 0),
	ABI229_INT(is_copy_to_device, 32, 4, 0),
	ABI229_INT(bar4_wr_threshold, 36, 4, 0),
	ABI229_INT(h2t_qid, 40, 4, 1),
	ABI229_INT(dummy, 44, 4, 0),
	ABI229_INT(sequence_num, 48, 8, 0),
	ABI229_PTR(context, 56),
};
#undef ABI229_PTR
#undef ABI229_INT
#undef ABI_T

/* name, expansion, value, expected value, expected to be a #define */
static const struct abi_const abi229_consts[] = {
	{ "NEURON_DRIVER_FEATURE_PINNED_HOST_MEM", ABI_XSTR(NEURON_DRIVER_FEATURE_PINNED_HOST_MEM),
	  NEURON_DRIVER_FEATURE_PINNED_HOST_MEM, 512, 0 },
	{ "NEURON_DRIVER_FEATURE_ALLOC_WITH_PA", ABI_XSTR(NEURON_DRIVER_FEATURE_ALLOC_WITH_PA),
	  NEURON_DRIVER_FEATURE_ALLOC_WITH_PA, 1024, 0 },
	{ "NEURON_DRIVER_FEATURE_ASYNC_IO", ABI_XSTR(NEURON_DRIVER_FEATURE_ASYNC_IO),
	  NEURON_DRIVER_FEATURE_ASYNC_IO, 2048, 0 },
};
