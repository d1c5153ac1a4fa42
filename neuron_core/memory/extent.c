// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_core: range allocator for device memory.
 *
 * Free space is a set of extents in an rbtree ordered by start address,
 * augmented with the largest extent size of each subtree.  Searching for
 * the lowest extent of at least N bytes descends one path: left whenever
 * the left subtree holds such an extent, else this node if it is one, else
 * right.  Returning a range looks up its two neighbours in one descent and
 * merges with them.  Both are O(log n) in the number of free extents.
 *
 * Nodes: free extents are separated by allocated space, so there are never
 * more than (live allocations + 1) of them.  The pool owns at least that
 * many nodes at all times (in the tree or on its spare stack); the
 * allocation that would break this allocates a node first, before it
 * changes anything.  A free never needs more nodes than the pool owns and
 * so never allocates; it hands surplus spares back to the slab above a
 * small reserve.
 *
 * No locking: the caller serialises all calls on a pool.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/rbtree_augmented.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "memory/extent.h"

/* is_power_of_2() takes an unsigned long; these are u64 everywhere. */
static inline bool neuron_extent_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

static inline u64 neuron_extent_ext_size(const struct neuron_extent *e)
{
	return e->size;
}

RB_DECLARE_CALLBACKS_MAX(static, neuron_extent_augment, struct neuron_extent, rb,
			 u64, subtree_max, neuron_extent_ext_size)

static inline struct neuron_extent *neuron_extent_ext(const struct rb_node *n)
{
	return rb_entry(n, struct neuron_extent, rb);
}

/* Largest extent in the subtree at @n; 0 for an empty subtree. */
static inline u64 neuron_extent_subtree_max(const struct rb_node *n)
{
	return n ? neuron_extent_ext(n)->subtree_max : 0;
}

static void neuron_extent_push_spare(struct neuron_extent_pool *p, struct neuron_extent *e)
{
	e->next_spare = p->spare;
	p->spare = e;
}

static struct neuron_extent *neuron_extent_pop_spare(struct neuron_extent_pool *p)
{
	struct neuron_extent *e = p->spare;

	if (e)
		p->spare = e->next_spare;
	return e;
}

/* Add @e, whose @start and @size are set, to the tree of free extents. */
static void neuron_extent_insert(struct neuron_extent_pool *p, struct neuron_extent *e)
{
	struct rb_node **link = &p->root.rb_node;
	struct rb_node *parent = NULL;

	/* Every node passed on the way down gets @e in its subtree. */
	while (*link) {
		struct neuron_extent *cur;

		parent = *link;
		cur = neuron_extent_ext(parent);
		if (cur->subtree_max < e->size)
			cur->subtree_max = e->size;
		link = e->start < cur->start ? &parent->rb_left : &parent->rb_right;
	}
	e->subtree_max = e->size;
	rb_link_node(&e->rb, parent, link);
	rb_insert_augmented(&e->rb, &p->root, &neuron_extent_augment);
	p->free_extents++;
}

/* Take @e out of the tree and keep its node as a spare. */
static void neuron_extent_remove(struct neuron_extent_pool *p, struct neuron_extent *e)
{
	rb_erase_augmented(&e->rb, &p->root, &neuron_extent_augment);
	p->free_extents--;
	neuron_extent_push_spare(p, e);
}

/* Recompute the subtree maxima above @e after its size changed. */
static void neuron_extent_resized(struct neuron_extent *e)
{
	neuron_extent_augment_propagate(&e->rb, NULL);
}

/* Give spare nodes back beyond the invariant's reserve and the slack. */
static void neuron_extent_trim(struct neuron_extent_pool *p)
{
	while (p->nodes > p->live + 1 + NEURON_EXTENT_SPARE_SLACK) {
		struct neuron_extent *e = neuron_extent_pop_spare(p);

		if (!e)
			break;
		kfree(e);
		p->nodes--;
	}
}

int neuron_extent_init(struct neuron_extent_pool *p, u64 base, u64 size, u64 granule)
{
	struct neuron_extent *e;
	u64 end;

	memset(p, 0, sizeof(*p));
	p->root = RB_ROOT;

	if (!neuron_extent_pow2(granule) || !size)
		return -EINVAL;
	if ((base | size) & (granule - 1))
		return -EINVAL;
	if (check_add_overflow(base, size, &end))
		return -EINVAL;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;

	p->base = base;
	p->size = size;
	p->granule = granule;
	p->nodes = 1;
	e->start = base;
	e->size = size;
	neuron_extent_insert(p, e);
	p->free_bytes = size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_init);

void neuron_extent_destroy(struct neuron_extent_pool *p)
{
	struct neuron_extent *e, *next;

	rbtree_postorder_for_each_entry_safe(e, next, &p->root, rb) {
		kfree(e);
		p->nodes--;
	}
	while ((e = neuron_extent_pop_spare(p))) {
		kfree(e);
		p->nodes--;
	}
	/* @nodes is left as is: 0 unless nodes went astray (checked by KUnit). */
	p->root = RB_ROOT;
	p->free_bytes = 0;
	p->free_extents = 0;
	p->live = 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_destroy);

/*
 * Whether an @align-aligned range of @size bytes fits in @e; if so, set
 * @addr to the first such address.  @align is a power of two.
 */
static bool neuron_extent_fits(const struct neuron_extent *e, u64 size, u64 align,
			       u64 *addr)
{
	u64 pad = -e->start & (align - 1);

	if (pad > e->size || e->size - pad < size)
		return false;
	*addr = e->start + pad;
	return true;
}

/*
 * Descend towards the lowest extent of at least @need bytes.  Every node
 * where the descent turns right lies below that extent and is tried as
 * well; the first that holds an @align-aligned range of @size bytes wins.
 * Nodes where it turns left lie above the target and are not tried.
 *
 * Return: the extent chosen (@addr set), or NULL if neither the target nor
 * any node tried on the way holds the request.
 */
static struct neuron_extent *neuron_extent_search(const struct neuron_extent_pool *p,
						  u64 need, u64 size, u64 align, u64 *addr)
{
	struct rb_node *n = p->root.rb_node;

	if (neuron_extent_subtree_max(n) < need)
		return NULL;
	while (n) {
		struct neuron_extent *e = neuron_extent_ext(n);

		if (neuron_extent_subtree_max(n->rb_left) >= need) {
			n = n->rb_left;
			continue;
		}
		if (neuron_extent_fits(e, size, align, addr))
			return e;
		if (e->size >= need)
			return NULL;	/* the target itself does not hold it */
		/* The subtree has an extent >= @need: it is on the right. */
		n = n->rb_right;
	}
	return NULL;
}

/* Allocate [@addr, @addr + @size) out of free extent @e. */
static void neuron_extent_carve(struct neuron_extent_pool *p, struct neuron_extent *e,
				u64 addr, u64 size)
{
	u64 head = addr - e->start;
	u64 tail = e->size - head - size;
	struct neuron_extent *t;

	if (!head && !tail) {
		neuron_extent_remove(p, e);
	} else if (!head) {
		e->start += size;
		e->size = tail;
		neuron_extent_resized(e);
	} else {
		e->size = head;
		neuron_extent_resized(e);
		if (tail) {
			/* neuron_extent_alloc() made sure there is a spare. */
			t = neuron_extent_pop_spare(p);
			t->start = addr + size;
			t->size = tail;
			neuron_extent_insert(p, t);
		}
	}
	p->free_bytes -= size;
	p->live++;
}

/*
 * Keep a node for a split now and for the return of the range about to be
 * allocated later.  (With the invariant, @nodes >= @live + 2 means a spare
 * exists; the test of @spare only guards against a caller's bad frees.)
 * Changes nothing but the spare stack.  Return: 0 or -ENOMEM.
 */
static int neuron_extent_reserve(struct neuron_extent_pool *p)
{
	struct neuron_extent *e;

	if (p->nodes >= p->live + 2 && p->spare)
		return 0;
	/* On behalf of the allocating process: its memory cgroup pays. */
	e = kmalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	neuron_extent_push_spare(p, e);
	p->nodes++;
	return 0;
}

int neuron_extent_alloc(struct neuron_extent_pool *p, u64 size, u64 align, u64 *addr)
{
	struct neuron_extent *e;
	u64 rsize, need, a;

	if (!size || size > U64_MAX - (p->granule - 1))
		return -EINVAL;
	if (align && !neuron_extent_pow2(align))
		return -EINVAL;
	if (align < p->granule)
		align = p->granule;
	rsize = round_up(size, p->granule);

	if (rsize > neuron_extent_largest_free(p))
		return -ENOMEM;

	if (neuron_extent_reserve(p))
		return -ENOMEM;

	/* Exact first fit when the lowest extent of @rsize bytes holds it. */
	e = neuron_extent_search(p, rsize, rsize, align, &a);
	/* Else the lowest extent that holds it whatever its alignment. */
	if (!e && align > p->granule && !check_add_overflow(rsize, align - p->granule, &need))
		e = neuron_extent_search(p, need, rsize, align, &a);
	if (!e)
		return -ENOMEM;

	neuron_extent_carve(p, e, a, rsize);
	*addr = a;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_alloc);

int neuron_extent_take(struct neuron_extent_pool *p, u64 from, u64 most, u64 *addr, u64 *size)
{
	struct rb_node *n = p->root.rb_node;
	struct neuron_extent *e = NULL;
	u64 a, end;

	most = round_down(most, p->granule);
	if (!most)
		return -EINVAL;
	if (check_add_overflow(from, p->granule - 1, &a))
		return -ENOENT;
	from = round_down(a, p->granule);

	/*
	 * The lowest extent that ends above @from.  Extents neither touch nor
	 * overlap, so their ends ascend with their starts: one descent.
	 */
	while (n) {
		struct neuron_extent *cur = neuron_extent_ext(n);

		if (cur->start + cur->size > from) {
			e = cur;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	if (!e)
		return -ENOENT;
	if (neuron_extent_reserve(p))
		return -ENOMEM;
	a = max(e->start, from);
	end = e->start + e->size;
	*size = min(end - a, most);
	*addr = a;
	neuron_extent_carve(p, e, a, *size);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_take);

/*
 * Validate [@addr, @addr + @size) (@size already rounded) for a free, and
 * find the free extents just below (@prev) and just above (@next) it.
 */
static bool neuron_extent_locate(const struct neuron_extent_pool *p, u64 addr, u64 size,
				 struct neuron_extent **prev,
				struct neuron_extent **next)
{
	struct rb_node *n = p->root.rb_node;
	struct neuron_extent *lo = NULL, *hi = NULL;

	if (!p->live || !size || ((addr | size) & (p->granule - 1)))
		return false;
	if (addr < p->base || addr - p->base > p->size || size > p->size - (addr - p->base))
		return false;

	while (n) {
		struct neuron_extent *e = neuron_extent_ext(n);

		if (addr < e->start) {
			hi = e;
			n = n->rb_left;
		} else {
			lo = e;
			n = n->rb_right;
		}
	}
	/* @lo starts at or below @addr, @hi above it: neither may reach in. */
	if (lo && addr - lo->start < lo->size)
		return false;
	if (hi && hi->start - addr < size)
		return false;

	*prev = lo;
	*next = hi;
	return true;
}

/* Round @size up to the granule; 0 if it cannot be. */
static u64 neuron_extent_round(const struct neuron_extent_pool *p, u64 size)
{
	if (size > U64_MAX - (p->granule - 1))
		return 0;
	return round_up(size, p->granule);
}

void neuron_extent_free(struct neuron_extent_pool *p, u64 addr, u64 size)
{
	struct neuron_extent *prev, *next, *e;
	bool left, right;

	size = neuron_extent_round(p, size);
	if (WARN_ON_ONCE(!neuron_extent_locate(p, addr, size, &prev, &next)))
		return;

	left = prev && prev->start + prev->size == addr;
	right = next && next->start == addr + size;

	if (left && right) {
		neuron_extent_remove(p, next);
		prev->size += size + next->size;
		neuron_extent_resized(prev);
	} else if (left) {
		prev->size += size;
		neuron_extent_resized(prev);
	} else if (right) {
		next->start = addr;
		next->size += size;
		neuron_extent_resized(next);
	} else {
		/* Cannot fail while the pool's invariant holds; see the top. */
		e = neuron_extent_pop_spare(p);
		if (WARN_ON_ONCE(!e))
			return;		/* leak the range rather than corrupt */
		e->start = addr;
		e->size = size;
		neuron_extent_insert(p, e);
	}
	p->free_bytes += size;
	p->live--;
	neuron_extent_trim(p);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_free);

u64 neuron_extent_free_bytes(const struct neuron_extent_pool *p)
{
	return p->free_bytes;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_free_bytes);

u64 neuron_extent_largest_free(const struct neuron_extent_pool *p)
{
	return neuron_extent_subtree_max(p->root.rb_node);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_largest_free);

unsigned long neuron_extent_free_extents(const struct neuron_extent_pool *p)
{
	return p->free_extents;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_free_extents);

#if IS_ENABLED(CONFIG_KUNIT)
bool neuron_extent_free_check(const struct neuron_extent_pool *p, u64 addr, u64 size)
{
	struct neuron_extent *prev, *next;

	return neuron_extent_locate(p, addr, neuron_extent_round(p, size), &prev, &next);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_free_check);

const char *neuron_extent_check_tree(const struct neuron_extent_pool *p)
{
	const struct neuron_extent *e, *last = NULL;
	unsigned long count = 0, spares = 0;
	struct rb_node *n;
	u64 bytes = 0;

	for (n = rb_first(&p->root); n; n = rb_next(n)) {
		u64 max;

		e = neuron_extent_ext(n);
		if (!e->size || ((e->start | e->size) & (p->granule - 1)))
			return "extent empty or not on granules";
		if (e->start < p->base || e->start - p->base > p->size ||
		    e->size > p->size - (e->start - p->base))
			return "extent outside the pool";
		if (last && last->start + last->size >= e->start)
			return "extents out of order, overlapping or not merged";
		max = max3(e->size, neuron_extent_subtree_max(n->rb_left),
			   neuron_extent_subtree_max(n->rb_right));
		if (e->subtree_max != max)
			return "wrong subtree maximum";
		bytes += e->size;
		count++;
		last = e;
	}
	for (e = p->spare; e; e = e->next_spare)
		spares++;

	if (bytes != p->free_bytes)
		return "free_bytes does not match the extents";
	if (count != p->free_extents)
		return "free_extents does not match the extents";
	if (count + spares != p->nodes)
		return "nodes does not match the tree and the spares";
	if (p->nodes < p->live + 1)
		return "fewer nodes than live allocations + 1";
	if (count > p->live + 1)
		return "more free extents than live allocations + 1";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_extent_check_tree);
#endif
