/*
 * Intrusive red-black tree with a cached leftmost node.
 *
 * Nodes are embedded in their owners (container_of-style). Insert and erase
 * are O(log n); rb_first() is O(1), so "pick the smallest" costs nothing.
 * Ordering is the caller's: rb_insert() takes a strict "less" function, and
 * nodes comparing equal go right of existing ones (FIFO among equals).
 * No locking: the owner of the tree serialises access.
 */
#ifndef KERNEL_RBTREE_H
#define KERNEL_RBTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/panic.h"

struct rb_node {
	struct rb_node *left, *right, *parent;
	bool red;
};

struct rb_root {
	struct rb_node *root;
	struct rb_node *leftmost;
};

#define RB_ROOT_INIT { NULL, NULL }

typedef bool (*rb_less_fn)(const struct rb_node *a, const struct rb_node *b);

void rb_insert(struct rb_root *tree, struct rb_node *node, rb_less_fn less);
/*
 * The second half of an insert, for callers that descend with their own
 * inline comparison (the scheduler's hot path): link @node at *@link, a
 * child slot of @parent (NULL: the root), and rebalance. @leftmost: the
 * descent never went right, so @node is the new smallest.
 */
void rb_insert_at(struct rb_root *tree, struct rb_node *node, struct rb_node *parent,
		  struct rb_node **link, bool leftmost);
void rb_erase(struct rb_root *tree, struct rb_node *node);
/*
 * @new takes @old's place (links and colour) in O(1), @old leaves the
 * tree. Only for a @new that orders exactly where @old did: after @old's
 * predecessor and before its successor.
 */
void rb_replace(struct rb_root *tree, struct rb_node *old, struct rb_node *new);

/* Is @node the tree's only node? */
static inline bool rb_is_single(const struct rb_root *tree, const struct rb_node *node)
{
	return tree->root == node && !node->left && !node->right;
}

/*
 * rb_replace() for the tree's only node (rb_is_single()): @new becomes the
 * tree; @old, already without links, leaves it. A few stores.
 */
static inline void rb_replace_single(struct rb_root *tree, struct rb_node *old, struct rb_node *new)
{
	KASSERT_DEBUG(rb_is_single(tree, old) && !old->parent && !old->red && new != old);
	(void)old;
	new->left = new->right = new->parent = NULL;
	new->red = false;
	tree->root = tree->leftmost = new;
}

/* rb_insert() into an empty tree: @node becomes it (black, no links). A few stores. */
static inline void rb_insert_single(struct rb_root *tree, struct rb_node *node)
{
	KASSERT_DEBUG(!tree->root && !tree->leftmost);
	node->left = node->right = node->parent = NULL;
	node->red = false;
	tree->root = tree->leftmost = node;
}

/* rb_erase() of the tree's only node (rb_is_single()): the tree is empty. */
static inline void rb_erase_single(struct rb_root *tree, struct rb_node *node)
{
	KASSERT_DEBUG(rb_is_single(tree, node) && tree->leftmost == node);
	(void)node;
	tree->root = tree->leftmost = NULL;
}

static inline struct rb_node *rb_first(const struct rb_root *tree)
{
	return tree->leftmost;
}

/* In-order successor, or NULL. */
struct rb_node *rb_next(const struct rb_node *node);

/*
 * Check every red-black and ordering invariant; returns the black height
 * (>= 1) or -1 if the tree is broken. O(n): for tests and debug builds.
 */
int rb_check(const struct rb_root *tree, rb_less_fn less);

#endif
