/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the Neuron kselftests of the NeuronCore state plane
 * (the state, nq and run suites; the ioctl and dma suites take their core
 * resets from here too): the simulator's debugfs files, the bring-up of a
 * simulated device, core reservations in both forms, core resets,
 * semaphores and events, model locks, the core-initialisation handshake,
 * the datastore, and the slot registers of notification queues (read with
 * BAR_READ, fed through the simulator's nq_inject file).  Header-only, like
 * neuron_mem.h; each suite is one program.
 */
#ifndef _NEURON_STATE_H
#define _NEURON_STATE_H

#include <assert.h>

#include "neuron_mem.h"

/* A debugfs file of a simulated device: printf arguments, simulator id and file name. */
#define SIM_DBG		"/sys/kernel/debug/neuron_sim/neuron_sim%d/%s"

/* The bytes of one datastore entry. */
#define DS_SIZE		262144

/* Slot registers of a notific block (Documentation/simulator.rst). */
#define NQ_SLOT(i)	(0x100 + (i) * 0x28)
#define NQ_BASE_LO	0x0
#define NQ_BASE_HI	0x4
#define NQ_SIZE		0x8
#define NQ_HEAD		0xc

/* The model-lock commands and the core-initialisation states, short. */
#define R_ENTER		NEURON_IOCTL_CRWL_READER_ENTER
#define R_EXIT		NEURON_IOCTL_CRWL_READER_EXIT
#define W_ENTER		NEURON_IOCTL_CRWL_WRITER_ENTER
#define W_DOWN		NEURON_IOCTL_CRWL_WRITER_DOWNGRADE
#define CI_STARTED	NEURON_CINIT_STATE_STARTED
#define CI_COMPLETED	NEURON_CINIT_STATE_COMPLETED
#define CI_INVALID	NEURON_CINIT_STATE_INVALID

/*
 * Wait up to @ms for simulated device @id to be ready; check that its
 * index is @id and that it has @ncs cores.
 */
static inline void sim_device_ready(struct __test_metadata *_metadata, int id, unsigned int ncs,
				    long ms)
{
	char buf[64];

	ASSERT_STREQ("ready", nt_sim_settle(id, buf, sizeof(buf), ms));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), SIM_BUS "/devices/neuron_sim%d/index", id));
	ASSERT_EQ(id, atoi(buf));
	ASSERT_EQ(0, nt_read(buf, sizeof(buf), CLASS_DIR "/neuron%d/core_count", id));
	ASSERT_EQ(ncs, (unsigned int)atoi(buf));
}

/* A value the simulator lists in its debugfs file "semaphores" or "events". */
struct sval {
	__u32 nc;
	__u32 idx;
	long long v;
};

/*
 * The list in debugfs file @name of simulated device @id into @out (at
 * most @max entries): the count, or -errno (-EINVAL for a line that does
 * not parse or one too many).
 */
static inline int sim_list(int id, const char *name, struct sval *out, int max)
{
	char path[128], line[128];
	struct sval s;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DBG, id, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[strspn(line, " \t\n")] == 0)
			continue;
		if (sscanf(line, "%u %u %lld", &s.nc, &s.idx, &s.v) != 3 || n == max) {
			n = -EINVAL;
			break;
		}
		out[n++] = s;
	}
	fclose(f);
	return n;
}

/*
 * Make simulated device @id produce the entry @w (@n words) in slot @slot
 * of the notific block at @block, through its nq_inject file: 0 or -errno.
 */
static inline int nq_inject(int id, __u64 block, unsigned int slot, const __u32 *w,
			    unsigned int n)
{
	char path[128], line[1024];
	unsigned int k;
	ssize_t r;
	int fd, len;

	snprintf(path, sizeof(path), SIM_DBG, id, "nq_inject");
	len = snprintf(line, sizeof(line), "%llx %u", (unsigned long long)block, slot);
	for (k = 0; k < n && len < (int)sizeof(line); k++)
		len += snprintf(line + len, sizeof(line) - len, " %x", w[k]);
	if (len >= (int)sizeof(line))
		return -E2BIG;
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	r = write(fd, line, len);
	if (r < 0)
		r = -errno;
	else
		r = r == len ? 0 : -EIO;
	close(fd);
	return (int)r;
}

/* NC_PID_STATE_DUMP of host-wide core @gnc: 0 when a process holds it, -ENOENT when none. */
static inline long pid_dump(int fd, unsigned int gnc)
{
	struct neuron_ioctl_nc_pid_state_dump pd = { .size = sizeof(pd), .nc_id = gnc };

	return xioctl(fd, NEURON_IOCTL_NC_PID_STATE_DUMP, &pd);
}

/* A range request of either form; the 24-byte form uses bits[0] only. */
struct span {
	__u32 count;
	__u32 start;
	__u32 end;
	__u32 max;
	__u64 bits[8];
};

/* CRWL_NC_RANGE_MARK or _UNMARK (@unmark) of @s, the EXT0 form when @ext; its outputs in @s. */
static inline long span_ioctl(int fd, int ext, int unmark, struct span *s)
{
	long ret;

	if (ext) {
		struct neuron_ioctl_crwl_nc_map_ext m;

		static_assert(sizeof(m.bitmap) == sizeof(s->bits), "512-bit bitmap");
		static_assert(sizeof(m) == 80, "EXT0 struct");
		m.nc_count = s->count;
		m.start_nc_index = s->start;
		m.end_nc_index = s->end;
		m.max_nc_available = s->max;
		memcpy(m.bitmap, s->bits, sizeof(m.bitmap));
		ret = xioctl(fd, unmark ? NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0 :
					  NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0, &m);
		s->max = m.max_nc_available;
		memcpy(s->bits, m.bitmap, sizeof(m.bitmap));
	} else {
		struct neuron_ioctl_crwl_nc_map m;

		static_assert(sizeof(m) == 24, "24-byte struct");
		m.nc_count = s->count;
		m.start_nc_index = s->start;
		m.end_nc_index = s->end;
		m.max_nc_available = s->max;
		m.bitmap = s->bits[0];
		ret = xioctl(fd, unmark ? NEURON_IOCTL_CRWL_NC_RANGE_UNMARK :
					  NEURON_IOCTL_CRWL_NC_RANGE_MARK, &m);
		s->max = m.max_nc_available;
		s->bits[0] = m.bitmap;
	}
	return ret;
}

/* MARK @count cores of [@start, @end]; the outputs start as junk, to see that they are written. */
static inline long mark(int fd, int ext, __u32 count, __u32 start, __u32 end, struct span *s)
{
	s->count = count;
	s->start = start;
	s->end = end;
	s->max = 0xa5a5a5a5;
	memset(s->bits, 0xa5, sizeof(s->bits));
	return span_ioctl(fd, ext, 0, s);
}

/* Set the @count bits of @bits from bit @first. */
static inline void set_run(__u64 *bits, unsigned int first, unsigned int count)
{
	unsigned int i;

	for (i = first; i < first + count; i++)
		bits[i / 64] |= 1ULL << (i % 64);
}

/* UNMARK the @count cores from @first (EXT0 form when @ext). */
static inline long unmark_run(int fd, int ext, unsigned int first, unsigned int count)
{
	struct span s;

	memset(&s, 0, sizeof(s));
	set_run(s.bits, first, count);
	return span_ioctl(fd, ext, 1, &s);
}

/* UNMARK_EXT0 of core @c (host-wide, or the device's on its own file). */
static inline long unmark_one(int fd, unsigned int c)
{
	return unmark_run(fd, 1, c, 1);
}

/* NC_RESET of @map; its request id in *@id (if set). */
static inline long nc_reset(int fd, __u32 map, __u32 *id)
{
	struct neuron_ioctl_device_reset rs = { .nc_map = map, .request_id = 0 };
	long ret = xioctl(fd, NEURON_IOCTL_NC_RESET, &rs);

	if (id)
		*id = rs.request_id;
	return ret;
}

/* NC_RESET_READY: -errno of the call, or the result it reported. */
static inline long nc_ready(int fd, __u32 id)
{
	struct neuron_ioctl_device_ready rd = { .request_id = id, .result = -7 };
	long ret = xioctl(fd, NEURON_IOCTL_NC_RESET_READY, &rd);

	return ret ? ret : rd.result;
}

/* NC_RESET of @map and NC_RESET_READY: 0 when it worked, else -errno or the result. */
static inline long reset_cores(int fd, __u32 map)
{
	__u32 id = 0;
	long ret = nc_reset(fd, map, &id);

	return ret ? ret : nc_ready(fd, id);
}

/* A semaphore or event command @cmd on core @nc, index @idx; *@val in and, for the reads, out. */
static inline long sem(int fd, unsigned int cmd, __u32 nc, __u32 idx, __u32 *val)
{
	struct neuron_ioctl_semaphore a = { .nc_id = nc, .semaphore_index = idx, .value = *val };
	long ret = xioctl(fd, cmd, &a);

	if (!ret)
		*val = a.value;
	return ret;
}

/* sem() with value @v in, nothing out. */
static inline long sem_do(int fd, unsigned int cmd, __u32 nc, __u32 idx, __u32 v)
{
	return sem(fd, cmd, nc, idx, &v);
}

/* Model-lock command @cmd (R_ENTER, R_EXIT, W_ENTER, W_DOWN) on core @nc for model @u. */
static inline long crwl(int fd, unsigned int cmd, __u32 nc, const struct neuron_uuid *u)
{
	struct neuron_ioctl_crwl a = { .nc_id = nc, .uuid = *u };

	return xioctl(fd, cmd, &a);
}

/* CINIT_SET_STATE of core @nc to @state; the state it reports in *@new_state (junk until set). */
static inline long cinit(int fd, __u32 nc, __u32 state, __u32 *new_state)
{
	struct neuron_ioctl_cinit_set a = { .nc_id = nc, .state = state, .new_state = 0xa5a5a5a5 };
	long ret = xioctl(fd, NEURON_IOCTL_CINIT_SET_STATE, &a);

	*new_state = a.new_state;
	return ret;
}

/*
 * ACQUIRE_NEURON_DS of @pid's entry (0: the caller's own); its mmap offset
 * in *@off.  The outputs start as junk; a call that succeeds with a size
 * other than DS_SIZE gives -ERANGE (said on stderr).
 */
static inline long ds_acquire(int fd, pid_t pid, __u64 *off)
{
	struct neuron_ioctl_neuron_ds_info a;
	long ret;

	static_assert(sizeof(a) == 24, "ds_info: 4 padding bytes after pid, 4 after size");
	memset(&a, 0xa5, sizeof(a));
	a.pid = pid;
	ret = xioctl(fd, NEURON_IOCTL_ACQUIRE_NEURON_DS, &a);
	*off = a.mmap_offset;
	if (!ret && a.size != DS_SIZE) {
		fprintf(stderr, "# %d: ACQUIRE_NEURON_DS of pid %d: size %u\n", getpid(), pid,
			a.size);
		ret = -ERANGE;
	}
	return ret;
}

/* RELEASE_NEURON_DS of @pid's entry (0: the caller's own). */
static inline long ds_release(int fd, pid_t pid)
{
	struct neuron_ioctl_neuron_ds_info a;

	memset(&a, 0, sizeof(a));
	a.pid = pid;
	return xioctl(fd, NEURON_IOCTL_RELEASE_NEURON_DS, &a);
}

/* The opaque base of BAR_READ addresses of the device open as @fd (DEVICE_INFO). */
static inline long bar_base(int fd, __u64 *base)
{
	struct neuron_ioctl_device_info info;
	long ret;

	memset(&info, 0, sizeof(info));
	ret = xioctl(fd, NEURON_IOCTL_DEVICE_INFO, &info);
	*base = info.bar_address[0];
	return ret;
}

/*
 * BAR_READ of the @count registers at offsets @offs of BAR 0, whose base
 * is @bar (each offset is turned into an address); @vals start as junk.
 */
static inline long regs_read(int fd, __u64 bar, __u64 *offs, __u32 *vals, unsigned int count)
{
	struct neuron_ioctl_bar_rw b = { .bar = 0, .address = offs, .data = vals, .count = count };
	unsigned int i;

	for (i = 0; i < count; i++) {
		offs[i] += bar;
		vals[i] = 0xa5a5a5a5;
	}
	return xioctl(fd, NEURON_IOCTL_BAR_READ, &b);
}

/*
 * BAR_READ or BAR_WRITE (@cmd) of the @count registers (at most 16) at
 * offsets @offs of BAR 0 of the device open as @fd, its base asked with
 * DEVICE_INFO: @vals are written, or read into.
 */
static inline long regs_rw(int fd, unsigned int cmd, const __u64 *offs, __u32 *vals,
			   unsigned int count)
{
	struct neuron_ioctl_bar_rw b = { .bar = 0, .data = vals, .count = count };
	__u64 base, addr[16];
	unsigned int i;
	long ret;

	if (count > 16)
		return -E2BIG;
	ret = bar_base(fd, &base);
	if (ret)
		return ret;
	for (i = 0; i < count; i++)
		addr[i] = base + offs[i];
	b.address = addr;
	return xioctl(fd, cmd, &b);
}

/*
 * The registers of slot @slot of the notific block at @block, by BAR_READ
 * (BAR base @bar): v[0] base low, v[1] base high, v[2] size, v[3] head.
 */
static inline long nq_slot(int fd, __u64 bar, __u64 block, unsigned int slot, __u32 v[4])
{
	__u64 offs[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		offs[i] = block + NQ_SLOT(slot) + 4 * i;
	return regs_read(fd, bar, offs, v, 4);
}

#endif /* _NEURON_STATE_H */
