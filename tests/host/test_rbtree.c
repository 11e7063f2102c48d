/*
 * kernel/lib/rbtree.c against a sorted reference array:
 * - random insert/erase sequences (fixed seeds, up to 10k nodes) with
 *   rb_check() and an in-order walk (rb_first/rb_next) compared node for
 *   node with the reference, which keeps equal keys in insertion order;
 * - the cached leftmost across erasures, and erasing everything in random
 *   order down to an empty tree;
 * - the O(log n) shape: height <= 2 log2(n + 1), black height consistent
 *   with n, and the comparator calls per insert for n = 2^k, k = 4..14;
 * - rb_replace() of random nodes (the leftmost included) by a free node
 *   keyed between the old one's neighbours, and its misuse caught;
 * - rb_check() itself: every single-node recolouring, a misordering, a bad
 *   parent pointer and a stale leftmost must all be reported as -1.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "kernel/lib/rbtree.h"

#define MAXN 10000		/* big random trees */
#define POOL (1 << 14)		/* comparator-count trees go to 2^14 */

struct item {
	struct rb_node node;
	uint64_t key;
	bool in_tree;
};

static unsigned long less_calls;

static const struct item *node_item(const struct rb_node *n)
{
	return (const struct item *)((const char *)n - offsetof(struct item, node));
}

static bool item_less(const struct rb_node *a, const struct rb_node *b)
{
	less_calls++;
	return node_item(a)->key < node_item(b)->key;
}

/* splitmix64: fixed seeds, same sequence on every host. */
static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
	rng_state = s;
}

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t n)
{
	return rng() % n;
}

static struct item pool[POOL];
static struct item *order[POOL];	/* scratch for shuffles */

/* The reference: in-tree items sorted by key, equal keys in insertion order. */
static struct item *ref[POOL];
static size_t ref_n;

static struct rb_root tree;

static void reset(void)
{
	memset(pool, 0, sizeof(pool));
	ref_n = 0;
	tree = (struct rb_root)RB_ROOT_INIT;
}

static void ref_insert(struct item *it)
{
	size_t lo = 0, hi = ref_n;

	/* Upper bound: after every existing equal key (FIFO among equals). */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ref[mid]->key <= it->key)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&ref[lo + 1], &ref[lo], (ref_n - lo) * sizeof(ref[0]));
	ref[lo] = it;
	ref_n++;
}

static bool ref_erase(struct item *it)
{
	size_t lo = 0, hi = ref_n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ref[mid]->key < it->key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ref_n && ref[lo]->key == it->key; lo++) {
		if (ref[lo] == it) {
			memmove(&ref[lo], &ref[lo + 1], (ref_n - lo - 1) * sizeof(ref[0]));
			ref_n--;
			return true;
		}
	}
	return false;
}

static void do_insert(struct item *it, uint64_t key)
{
	it->key = key;
	it->in_tree = true;
	rb_insert(&tree, &it->node, item_less);
	ref_insert(it);
}

static bool do_erase(struct item *it)
{
	it->in_tree = false;
	rb_erase(&tree, &it->node);
	return ref_erase(it);
}

static int height(const struct rb_node *n)
{
	int l, r;

	if (!n)
		return 0;
	l = height(n->left);
	r = height(n->right);
	return 1 + (l > r ? l : r);
}

/* The in-order walk must visit exactly the reference's nodes, in its order. */
static void check_inorder(void)
{
	size_t i = 0;

	KT_ASSERT_MSG(rb_first(&tree) == (ref_n ? &ref[0]->node : NULL),
		      "rb_first is not the reference's first (n=%zu)", ref_n);
	for (const struct rb_node *n = rb_first(&tree); n; n = rb_next(n), i++) {
		KT_ASSERT_MSG(i < ref_n, "walk longer than the reference (%zu)", ref_n);
		KT_ASSERT_MSG(n == &ref[i]->node,
			      "walk position %zu: key %llu, reference key %llu (n=%zu)", i,
			      (unsigned long long)node_item(n)->key,
			      (unsigned long long)ref[i]->key, ref_n);
	}
	KT_ASSERT_EQ(i, ref_n);
}

/*
 * Red-black shape for n nodes: rb_check()'s value counts the NULL leaf,
 * so b = value - 1 black nodes lie on every path. Then n >= 2^b - 1, and
 * the height h obeys b <= h <= 2b and h <= 2 log2(n + 1), i.e.
 * 2^h <= (n + 1)^2.
 */
static void check_shape(void)
{
	int bh = rb_check(&tree, item_less), h = height(tree.root), b = bh - 1;
	uint64_t n1 = ref_n + 1;

	KT_ASSERT_MSG(bh >= 1, "rb_check = %d with %zu nodes", bh, ref_n);
	KT_ASSERT_MSG(h <= 62 && (1ull << h) <= n1 * n1,
		      "height %d > 2 log2(%zu + 1)", h, ref_n);
	KT_ASSERT_MSG((1ull << b) <= n1, "black height %d with only %zu nodes", b, ref_n);
	KT_ASSERT_MSG(b <= h && h <= 2 * b, "height %d vs black height %d", h, b);
	if (!ref_n) {
		KT_ASSERT(tree.root == NULL);
		KT_ASSERT(tree.leftmost == NULL);
		KT_ASSERT_EQ(bh, 1);
	}
}

static void check_all(void)
{
	check_shape();
	if (kt_failed_now)
		return;
	check_inorder();
}

static void shuffle(struct item **v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_below(i);
		struct item *t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* ---------------------------------------------------------------- cases */

KT_CASE(empty_tree)
{
	reset();
	KT_ASSERT(rb_first(&tree) == NULL);
	KT_ASSERT_EQ(rb_check(&tree, item_less), 1);
	do_insert(&pool[0], 5);
	KT_ASSERT(rb_first(&tree) == &pool[0].node);
	KT_ASSERT(tree.root == &pool[0].node);
	KT_ASSERT(!pool[0].node.red);
	KT_ASSERT(rb_next(&pool[0].node) == NULL);
	KT_ASSERT_EQ(rb_check(&tree, item_less), 2);
	KT_ASSERT(do_erase(&pool[0]));
	KT_ASSERT(tree.root == NULL);
	KT_ASSERT(tree.leftmost == NULL);
	KT_ASSERT_EQ(rb_check(&tree, item_less), 1);
}

/* Small trees, many seeds, everything checked after every single operation. */
KT_CASE(random_small_every_op)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		const size_t cap = 1 + seed * 3;	/* 4 .. 121 nodes */
		const uint64_t keys = 1 + seed % 16;	/* few keys: many duplicates */

		rng_seed(seed);
		reset();
		for (int op = 0; op < 1500; op++) {
			struct item *it = &pool[rng_below(cap)];

			if (it->in_tree)
				KT_ASSERT_MSG(do_erase(it), "seed %llu op %d: erased item not in reference",
					      (unsigned long long)seed, op);
			else
				do_insert(it, rng_below(keys));
			check_all();
			if (kt_failed_now) {
				printf("  (seed %llu, op %d)\n", (unsigned long long)seed, op);
				return;
			}
		}
	}
}

/* 10k nodes: fill, churn at ~5k, drain in random order. */
KT_CASE(random_big)
{
	const size_t check_every = 97, walk_every = 1009;
	unsigned long ops = 0;

	for (uint64_t seed = 100; seed < 102; seed++) {
		rng_seed(seed);
		reset();
		for (size_t i = 0; i < MAXN; i++) {
			do_insert(&pool[i], rng_below(seed == 100 ? 1000000 : 5000));
			if (++ops % check_every == 0)
				check_shape();
			if (ops % walk_every == 0)
				check_inorder();
			if (kt_failed_now)
				return;
		}
		check_all();
		if (kt_failed_now)
			return;
		KT_ASSERT_EQ(ref_n, MAXN);
		for (int op = 0; op < 30000; op++) {
			struct item *it = &pool[rng_below(MAXN)];

			if (it->in_tree)
				KT_ASSERT(do_erase(it));
			else
				do_insert(it, rng_below(1000000));
			if (++ops % check_every == 0)
				check_shape();
			if (ops % walk_every == 0)
				check_inorder();
			if (kt_failed_now)
				return;
		}
		check_all();
		if (kt_failed_now)
			return;
		size_t n = 0;

		for (size_t i = 0; i < MAXN; i++)
			if (pool[i].in_tree)
				order[n++] = &pool[i];
		KT_ASSERT_EQ(n, ref_n);
		shuffle(order, n);
		for (size_t i = 0; i < n; i++) {
			KT_ASSERT(do_erase(order[i]));
			if (++ops % check_every == 0)
				check_shape();
			if (ops % walk_every == 0)
				check_inorder();
			if (kt_failed_now)
				return;
		}
		check_all();
		if (kt_failed_now)
			return;
		KT_ASSERT(tree.root == NULL);
		KT_ASSERT(tree.leftmost == NULL);
	}
}

KT_CASE(duplicates_keep_fifo_order)
{
	reset();
	/* All equal: the walk is insertion order. */
	for (size_t i = 0; i < 1000; i++) {
		do_insert(&pool[i], 42);
		if (i % 37 == 0)
			check_all();
		if (kt_failed_now)
			return;
	}
	check_all();
	if (kt_failed_now)
		return;
	size_t i = 0;

	for (const struct rb_node *n = rb_first(&tree); n; n = rb_next(n), i++)
		KT_ASSERT_MSG(n == &pool[i].node, "equal keys out of FIFO order at %zu", i);
	KT_ASSERT_EQ(i, 1000);

	/* Three keys interleaved, with erasures in the middle of equal runs. */
	reset();
	for (i = 0; i < 3000; i++)
		do_insert(&pool[i], (uint64_t)(2 - i % 3));
	for (i = 0; i < 3000; i += 7)
		KT_ASSERT(do_erase(&pool[i]));
	for (i = 3000; i < 3300; i++)
		do_insert(&pool[i], (uint64_t)(i % 3));
	check_all();
	if (kt_failed_now)
		return;
	/* And explicitly: within a key, pool indices (insertion order) increase. */
	const struct item *prev = NULL;

	for (const struct rb_node *n = rb_first(&tree); n; n = rb_next(n)) {
		const struct item *it = node_item(n);

		if (prev && prev->key == it->key)
			KT_ASSERT(prev < it);
		else if (prev)
			KT_ASSERT_EQ(it->key, prev->key + 1);
		prev = it;
	}
	KT_ASSERT(prev && prev->key == 2);
}

/* Swap a random in-tree node for a free one keyed between its neighbours; false if the old one kept links. */
static bool do_replace(void)
{
	size_t i = rng_below(ref_n);
	struct item *old = ref[i], *new = NULL;
	uint64_t lo = i ? ref[i - 1]->key : 0, hi = i + 1 < ref_n ? ref[i + 1]->key : lo + 1000;

	for (size_t k = 0; k < POOL && !new; k++)
		if (!pool[k].in_tree && &pool[k] != old)
			new = &pool[k];
	if (!new)
		return false;
	/* Equal to the predecessor is fine (FIFO after it), equal to the successor is not. */
	new->key = hi > lo ? lo + rng_below(hi - lo) : lo;
	if (i + 1 < ref_n && new->key >= ref[i + 1]->key)
		return true;	/* no room between equal neighbours: skip */
	rb_replace(&tree, &old->node, &new->node);
	old->in_tree = false;
	new->in_tree = true;
	ref[i] = new;
	return !old->node.parent && !old->node.left && !old->node.right;
}

KT_CASE(replace_keeps_order_and_shape)
{
	for (uint64_t seed = 1; seed <= 30; seed++) {
		const size_t cap = 2 + seed * 4;

		rng_seed(seed * 7919);
		reset();
		for (int op = 0; op < 1200; op++) {
			struct item *it = &pool[rng_below(cap)];
			int what = (int)rng_below(3);

			if (what == 0 && ref_n)
				KT_ASSERT(do_replace());
			else if (it->in_tree)
				KT_ASSERT(do_erase(it));
			else
				do_insert(it, rng_below(64));
			check_all();
			if (kt_failed_now) {
				printf("  (seed %llu, op %d)\n", (unsigned long long)seed, op);
				return;
			}
		}
	}
	/* The leftmost of a one-node tree (two tasks taking turns): the root changes hands. */
	reset();
	do_insert(&pool[0], 10);
	pool[1].key = 20;
	rb_replace(&tree, &pool[0].node, &pool[1].node);
	KT_ASSERT(tree.root == &pool[1].node && tree.leftmost == &pool[1].node);
	KT_ASSERT_EQ(rb_check(&tree, item_less), 2);
	/* A misplaced replacement is what rb_check() exists to catch. */
	do_insert(&pool[2], 30);
	pool[3].key = 40;
	rb_replace(&tree, &pool[1].node, &pool[3].node);	/* 40 before 30: wrong */
	KT_ASSERT_EQ(rb_check(&tree, item_less), -1);
}

/*
 * The inline one-node paths (the fair class's queue between idle and one
 * task): rb_insert_single() into an empty tree, rb_erase_single() and
 * rb_replace_single() of the only node, mixed with the general operations
 * on a few keys so that trees keep passing through one node, and nodes
 * come back with the links and colour of an earlier, bigger tree.
 */
KT_CASE(one_node_paths_keep_the_tree_valid)
{
	unsigned long singles = 0;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		const size_t cap = 1 + seed % 4;

		rng_seed(seed * 104729);
		reset();
		for (int op = 0; op < 2000; op++) {
			struct item *it = &pool[rng_below(cap + 1)];

			if (it->in_tree && rb_is_single(&tree, &it->node)) {
				it->in_tree = false;
				rb_erase_single(&tree, &it->node);
				KT_ASSERT(ref_erase(it));
				singles++;
			} else if (it->in_tree) {
				KT_ASSERT(do_erase(it));
			} else if (!tree.root) {
				it->key = rng_below(8);
				it->in_tree = true;
				rb_insert_single(&tree, &it->node);
				ref_insert(it);
				singles++;
			} else if (ref_n == 1 && rng_below(2)) {
				/* Two tasks taking turns: @it takes the only node's place. */
				it->key = rng_below(8);
				rb_replace_single(&tree, &ref[0]->node, &it->node);
				ref[0]->in_tree = false;
				it->in_tree = true;
				ref[0] = it;
				singles++;
			} else {
				do_insert(it, rng_below(8));
			}
			check_all();
			KT_ASSERT_EQ(rb_check(&tree, item_less) > 0, true);
			if (kt_failed_now) {
				printf("  (seed %llu, op %d)\n", (unsigned long long)seed, op);
				return;
			}
		}
	}
	KT_ASSERT(singles > 1000);
}

KT_CASE(erase_leftmost_updates_first)
{
	rng_seed(7);
	reset();
	for (size_t i = 0; i < 2000; i++)
		do_insert(&pool[i], rng_below(500));
	for (size_t left = 2000; left > 0; left--) {
		struct rb_node *first = rb_first(&tree);

		KT_ASSERT(first == &ref[0]->node);
		KT_ASSERT(do_erase((struct item *)node_item(first)));
		KT_ASSERT(rb_first(&tree) == (ref_n ? &ref[0]->node : NULL));
		if (left % 50 == 0 || left < 20)
			check_all();
		if (kt_failed_now)
			return;
	}
	KT_ASSERT(tree.root == NULL);
	KT_ASSERT(tree.leftmost == NULL);

	/* Erasing a non-leftmost node leaves rb_first alone. */
	reset();
	for (size_t i = 0; i < 100; i++)
		do_insert(&pool[i], i + 10);
	KT_ASSERT(do_erase(&pool[50]));
	KT_ASSERT(rb_first(&tree) == &pool[0].node);
	/* An equal key goes right of the leftmost: rb_first stays. */
	do_insert(&pool[200], 10);
	KT_ASSERT(rb_first(&tree) == &pool[0].node);
	/* A smaller key becomes rb_first. */
	do_insert(&pool[201], 9);
	KT_ASSERT(rb_first(&tree) == &pool[201].node);
	KT_ASSERT(do_erase(&pool[201]));
	KT_ASSERT(rb_first(&tree) == &pool[0].node);
	KT_ASSERT(do_erase(&pool[0]));
	KT_ASSERT(rb_first(&tree) == &pool[200].node);
	check_all();
}

KT_CASE(erase_all_random_order_empties_tree)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 100, 1000, 4096 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const size_t n = sizes[s];

		for (uint64_t seed = 1; seed <= 3; seed++) {
			rng_seed(seed * 1000 + n);
			reset();
			for (size_t i = 0; i < n; i++) {
				do_insert(&pool[i], rng_below(n));
				order[i] = &pool[i];
			}
			shuffle(order, n);
			for (size_t i = 0; i < n; i++) {
				KT_ASSERT(do_erase(order[i]));
				if (n <= 100 || i % 61 == 0)
					check_all();
				if (kt_failed_now) {
					printf("  (n %zu seed %llu erase %zu)\n", n,
					       (unsigned long long)seed, i);
					return;
				}
			}
			KT_ASSERT_EQ(ref_n, 0);
			KT_ASSERT(tree.root == NULL);
			KT_ASSERT(tree.leftmost == NULL);
			KT_ASSERT_EQ(rb_check(&tree, item_less), 1);
		}
	}
}

/* Sorted input is the degenerate case for an unbalanced tree. */
KT_CASE(height_is_logarithmic)
{
	for (int pattern = 0; pattern < 4; pattern++) {
		int max_h = 0;

		rng_seed(99);
		reset();
		for (size_t i = 0; i < MAXN; i++) {
			uint64_t key = pattern == 0 ? i
				       : pattern == 1 ? MAXN - i
				       : pattern == 2 ? (i % 2 ? i : MAXN + MAXN - i)	/* zigzag */
						      : rng();

			do_insert(&pool[i], key);
			if (i < 600 || i % 211 == 0)
				check_shape();
			if (kt_failed_now) {
				printf("  (pattern %d, n %zu)\n", pattern, ref_n);
				return;
			}
		}
		max_h = height(tree.root);
		/* 2 log2(10001) = 26.6; a plain BST on sorted keys would be 10000 deep. */
		KT_ASSERT_MSG(max_h <= 26, "pattern %d: height %d for %d nodes", pattern, max_h, MAXN);
		/* Any binary tree of 10000 nodes is at least 14 deep. */
		KT_ASSERT(max_h >= 14);
		/* Half erased (every other in key order): still balanced. */
		for (size_t i = 0; i < MAXN; i += 2)
			KT_ASSERT(do_erase(&pool[i]));
		check_all();
		if (kt_failed_now)
			return;
	}
}

/* Comparator calls per insert: the depth reached, so O(log n). */
KT_CASE(comparator_calls_per_insert_logarithmic)
{
	for (int pattern = 0; pattern < 2; pattern++) {
		double prev_avg = 0.0;

		for (int k = 4; k <= 14; k++) {
			const size_t n = (size_t)1 << k;
			unsigned long calls = 0;
			double avg;

			rng_seed(1234 + k);
			reset();
			for (size_t i = 0; i < n; i++) {
				pool[i].key = pattern ? i : rng();
				pool[i].in_tree = true;
				less_calls = 0;
				rb_insert(&tree, &pool[i].node, item_less);
				calls += less_calls;
			}
			avg = (double)calls / (double)n;
			KT_ASSERT_MSG(avg <= 2.0 * k + 2.0,
				      "%s keys, n=2^%d: %.2f comparisons per insert > %d",
				      pattern ? "sorted" : "random", k, avg, 2 * k + 2);
			/* Growth per doubling is about one level, never linear. */
			if (k > 4)
				KT_ASSERT_MSG(avg - prev_avg <= 2.0,
					      "n=2^%d: average grew %.2f -> %.2f", k, prev_avg, avg);
			prev_avg = avg;
			KT_ASSERT(rb_check(&tree, item_less) >= 1);
		}
	}
}

/* Flip the colour of every node in turn: each single flip must be caught. */
KT_CASE(rb_check_catches_broken_trees)
{
	struct rb_node *nodes[300];
	size_t n = 0;
	int bh;

	rng_seed(5);
	reset();
	for (size_t i = 0; i < 300; i++)
		do_insert(&pool[i], rng_below(1u << 30));
	bh = rb_check(&tree, item_less);
	KT_ASSERT(bh >= 2);
	for (struct rb_node *nd = rb_first(&tree); nd; nd = rb_next(nd))
		nodes[n++] = nd;
	KT_ASSERT_EQ(n, 300);

	size_t reds = 0;

	for (size_t i = 0; i < n; i++) {
		reds += nodes[i]->red;
		nodes[i]->red = !nodes[i]->red;
		KT_ASSERT_MSG(rb_check(&tree, item_less) == -1,
			      "recolouring node %zu (%s -> %s) not detected", i,
			      nodes[i]->red ? "black" : "red", nodes[i]->red ? "red" : "black");
		nodes[i]->red = !nodes[i]->red;
		KT_ASSERT_EQ(rb_check(&tree, item_less), bh);
	}
	KT_ASSERT(reds > 0);	/* both kinds of flip were exercised */

	/* Red root. */
	tree.root->red = true;
	KT_ASSERT_EQ(rb_check(&tree, item_less), -1);
	tree.root->red = false;

	/* Two in-order neighbours swap keys: a misordering. */
	{
		struct item *a = (struct item *)node_item(nodes[100]);
		struct item *b = (struct item *)node_item(nodes[101]);
		uint64_t t = a->key;

		KT_ASSERT(a->key < b->key);
		a->key = b->key;
		b->key = t;
		KT_ASSERT_EQ(rb_check(&tree, item_less), -1);
		b->key = a->key;
		a->key = t;
		KT_ASSERT_EQ(rb_check(&tree, item_less), bh);
	}
	/* A key moved far out of place (deep misordering). */
	{
		struct item *a = (struct item *)node_item(nodes[10]);
		uint64_t t = a->key;

		a->key = node_item(nodes[290])->key + 1;
		KT_ASSERT_EQ(rb_check(&tree, item_less), -1);
		a->key = t;
	}
	/* Broken parent pointer. */
	{
		struct rb_node *c = tree.root->left, *p = c->parent;

		c->parent = tree.root->right;
		KT_ASSERT_EQ(rb_check(&tree, item_less), -1);
		c->parent = p;
	}
	/* Stale leftmost. */
	{
		struct rb_node *l = tree.leftmost;

		tree.leftmost = rb_next(l);
		KT_ASSERT_EQ(rb_check(&tree, item_less), -1);
		tree.leftmost = l;
	}
	KT_ASSERT_EQ(rb_check(&tree, item_less), bh);
	check_all();
}
