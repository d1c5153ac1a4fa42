/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_core private: a range allocator for device memory (extent.c).
 *
 * A pool hands out granule-multiple pieces of one address range
 * [base, base + size).  Its free space is a set of extents kept in an
 * augmented red-black tree ordered by address; every node also records the
 * largest extent of its subtree, so both the search for a fit and the
 * return of a range cost O(log n) in the number of free extents.
 *
 * Locking: none inside.  The caller serialises every call on a pool
 * (including the read-only statistics) with its own lock.
 *
 * Memory: neuron_extent_init(), neuron_extent_alloc() and neuron_extent_take()
 * may allocate (GFP_KERNEL, so they may sleep).  neuron_extent_free() never
 * allocates and never fails: every successful allocation puts aside the
 * node its later return may need (see struct neuron_extent_pool).
 */
#ifndef _NEURON_CORE_MEM_RANGE_H
#define _NEURON_CORE_MEM_RANGE_H

#include <linux/rbtree.h>
#include <linux/types.h>

/*
 * Spare nodes a pool keeps beyond the ones its invariant needs, so that a
 * loop of alloc and free does not go to the slab each time.
 */
#define NEURON_EXTENT_SPARE_SLACK	16

/**
 * struct neuron_extent - one free extent of a pool, or a spare node
 * @rb: node in &neuron_extent_pool.root, while the extent is free space
 * @next_spare: next node of &neuron_extent_pool.spare, while it is a spare
 * @start: first address of the extent
 * @size: bytes in the extent (a non-zero multiple of the granule)
 * @subtree_max: largest @size in the subtree rooted at this node
 */
struct neuron_extent {
	union {
		struct rb_node rb;
		struct neuron_extent *next_spare;
	};
	u64 start;
	u64 size;
	u64 subtree_max;
};

/**
 * struct neuron_extent_pool - a device-memory range allocator
 * @root: free extents by start address; they never touch or overlap (freed
 *	ranges are merged with their free neighbours)
 * @spare: stack of nodes not in @root, linked by
 *	&neuron_extent.next_spare
 * @base: first address of the pool
 * @size: bytes in the pool
 * @granule: allocation unit (a power of two); @base and @size are
 *	multiples of it
 * @free_bytes: bytes in all free extents
 * @free_extents: nodes in @root
 * @live: allocations made and not yet freed
 * @nodes: nodes the pool owns: those in @root plus those in @spare
 *
 * The pool keeps @nodes >= @live + 1.  Free extents are separated by
 * allocated space, so there are at most @live + 1 of them; a free that has
 * to insert a new extent therefore always finds a node in @spare.  Frees
 * give spares back to the slab beyond %NEURON_EXTENT_SPARE_SLACK, so
 * @nodes stays within a constant of @live + 1.
 *
 * Embed it in a structure of the caller; it needs no other storage than
 * the nodes it allocates itself.
 */
struct neuron_extent_pool {
	struct rb_root root;
	struct neuron_extent *spare;
	u64 base;
	u64 size;
	u64 granule;
	u64 free_bytes;
	unsigned long free_extents;
	unsigned long live;
	unsigned long nodes;
};

/**
 * neuron_extent_init() - set up a pool with all of its range free
 * @p: the pool (caller's storage)
 * @base: first address of the range
 * @size: bytes in the range; not 0
 * @granule: allocation unit: a power of two, at least 1
 *
 * @base and @size must be multiples of @granule and @base + @size must not
 * overflow 64 bits.  On failure @p is left empty: neuron_extent_destroy()
 * on it is harmless but not needed.
 *
 * Context: may sleep.
 * Return: 0, -EINVAL on bad arguments, -ENOMEM.
 */
int neuron_extent_init(struct neuron_extent_pool *p, u64 base, u64 size, u64 granule);

/**
 * neuron_extent_destroy() - free a pool's memory
 * @p: the pool
 *
 * Releases every node, whatever is still allocated from the pool; the
 * allocations simply cease to exist.  @p must be initialised again before
 * further use.
 */
void neuron_extent_destroy(struct neuron_extent_pool *p);

/**
 * neuron_extent_alloc() - allocate a range
 * @p: the pool
 * @size: bytes wanted, not 0; rounded up to the granule
 * @align: alignment of the returned (absolute) address: a power of two, or
 *	0 for the granule; values below the granule mean the granule
 * @addr: set to the first address of the range on success
 *
 * Placement, with S = @size rounded up and A = @align raised to the
 * granule: let R be the lowest-addressed free extent of at least S bytes.
 *
 * - If an A-aligned range of S bytes fits in R, the range is the first
 *   such in R.  That is the lowest address in the pool where the request
 *   fits (exact first fit).  When A is the granule, R always fits.
 * - Otherwise, if a free extent of at least S + A - granule bytes exists
 *   (any such extent holds the request), the request succeeds, at the
 *   first aligned address of the lowest such extent, or of an extent below
 *   it that the O(log n) search examines on its way and that holds it.
 * - Otherwise -ENOMEM, even if an extent above R shorter than
 *   S + A - granule happens to be suitably aligned.
 *
 * Context: may sleep (one node may be allocated).
 * Return: 0, -EINVAL (@size 0 or too large to round, @align not a power of
 * two), -ENOMEM (no room, or no memory for the node).
 */
int neuron_extent_alloc(struct neuron_extent_pool *p, u64 size, u64 align, u64 *addr);

/**
 * neuron_extent_take() - allocate the lowest free piece at or above an address
 * @p: the pool
 * @from: the piece starts at or above it (rounded up to the granule)
 * @most: most bytes to take; rounded down to the granule, not below it
 * @addr: set to the first address of the piece
 * @size: set to its bytes: all of the free extent from *@addr on, up to @most
 *
 * For a walk over a pool's free space a piece at a time: the next call
 * starts at *@addr + *@size.  The piece is an allocation like any other,
 * returned with neuron_extent_free(@p, *@addr, *@size).
 *
 * Context: may sleep (one node may be allocated).
 * Return: 0; -ENOENT when no free space lies at or above @from; -EINVAL for
 * @most below the granule; -ENOMEM (no memory for the node).
 */
int neuron_extent_take(struct neuron_extent_pool *p, u64 from, u64 most, u64 *addr, u64 *size);

/**
 * neuron_extent_free() - return an allocated range to the pool
 * @p: the pool
 * @addr: the address neuron_extent_alloc() returned
 * @size: the size passed to neuron_extent_alloc() (rounded the same way)
 *
 * Merges the range with the free extents on either side.  Never allocates
 * memory and never fails.  A range that cannot have been allocated
 * (outside the pool, not on a granule, overlapping free space, or with
 * nothing allocated) is refused with a warning and the pool is unchanged.
 * Returning part of an allocation, or two adjacent allocations at once,
 * is not detected and leaves the pool's count of allocations wrong.
 */
void neuron_extent_free(struct neuron_extent_pool *p, u64 addr, u64 size);

/**
 * neuron_extent_free_bytes() - free space of a pool
 * @p: the pool
 *
 * Return: bytes in all free extents.
 */
u64 neuron_extent_free_bytes(const struct neuron_extent_pool *p);

/**
 * neuron_extent_largest_free() - largest free extent of a pool, in O(1)
 * @p: the pool
 *
 * Return: bytes in the largest free extent, 0 when the pool is full.
 */
u64 neuron_extent_largest_free(const struct neuron_extent_pool *p);

/**
 * neuron_extent_free_extents() - number of free extents of a pool
 * @p: the pool
 *
 * Return: how many separate free extents the pool has.
 */
unsigned long neuron_extent_free_extents(const struct neuron_extent_pool *p);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * neuron_extent_free_check() - whether neuron_extent_free() would accept a range
 * @p: the pool
 * @addr: start of the range
 * @size: bytes, as passed to neuron_extent_free()
 *
 * The validation neuron_extent_free() does before changing anything,
 * without its warning.  Only visible to the KUnit tests.
 *
 * Return: true if the range lies in the pool on granule boundaries,
 * overlaps no free space and something is allocated.
 */
bool neuron_extent_free_check(const struct neuron_extent_pool *p, u64 addr, u64 size);

/**
 * neuron_extent_check_tree() - verify a pool's internal invariants
 * @p: the pool
 *
 * Walks every free extent and spare node: order, granule alignment,
 * separation of the extents, the subtree maxima, and the counters.  O(n);
 * only for the KUnit tests.
 *
 * Return: NULL if consistent, else a description of the first problem.
 */
const char *neuron_extent_check_tree(const struct neuron_extent_pool *p);
#endif

#endif /* _NEURON_CORE_MEM_RANGE_H */
