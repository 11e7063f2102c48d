/*
 * Red-black tree (include/kernel/lib/rbtree.h). The algorithm is the textbook
 * one (CLRS ch. 13) with NULL leaves, which count as black.
 */
#include "kernel/lib/rbtree.h"
#include "kernel/lib/panic.h"

static bool is_red(const struct rb_node *n)
{
	return n && n->red;
}

/* Make @child take @old's place under @old's parent. */
static void replace_child(struct rb_root *tree, struct rb_node *old, struct rb_node *child)
{
	struct rb_node *p = old->parent;

	if (!p)
		tree->root = child;
	else if (p->left == old)
		p->left = child;
	else
		p->right = child;
	if (child)
		child->parent = p;
}

static void rotate_left(struct rb_root *tree, struct rb_node *x)
{
	struct rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	replace_child(tree, x, y);
	y->left = x;
	x->parent = y;
}

static void rotate_right(struct rb_root *tree, struct rb_node *x)
{
	struct rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	replace_child(tree, x, y);
	y->right = x;
	x->parent = y;
}

static void insert_fixup(struct rb_root *tree, struct rb_node *z)
{
	while (is_red(z->parent)) {
		struct rb_node *p = z->parent, *g = p->parent, *uncle;

		/* A red node is never the root, so g exists. */
		if (p == g->left) {
			uncle = g->right;
			if (is_red(uncle)) {
				p->red = uncle->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				rotate_left(tree, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_right(tree, g);
		} else {
			uncle = g->left;
			if (is_red(uncle)) {
				p->red = uncle->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				rotate_right(tree, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_left(tree, g);
		}
	}
	tree->root->red = false;
}

void rb_insert_at(struct rb_root *tree, struct rb_node *node, struct rb_node *parent,
		  struct rb_node **link, bool leftmost)
{
	node->parent = parent;
	node->left = node->right = NULL;
	node->red = true;
	*link = node;
	if (leftmost)
		tree->leftmost = node;
	insert_fixup(tree, node);
}

void rb_insert(struct rb_root *tree, struct rb_node *node, rb_less_fn less)
{
	struct rb_node **link = &tree->root, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_insert_at(tree, node, parent, link, leftmost);
}

static struct rb_node *subtree_min(struct rb_node *n)
{
	while (n->left)
		n = n->left;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	const struct rb_node *p;

	if (node->right)
		return subtree_min(node->right);
	p = node->parent;
	while (p && node == p->right) {
		node = p;
		p = p->parent;
	}
	return (struct rb_node *)p;
}

/* Restore the black height after removing a black node; @x may be NULL. */
static void erase_fixup(struct rb_root *tree, struct rb_node *x, struct rb_node *parent)
{
	while (x != tree->root && !is_red(x)) {
		struct rb_node *w;

		if (x == parent->left) {
			w = parent->right;
			if (is_red(w)) {
				w->red = false;
				parent->red = true;
				rotate_left(tree, parent);
				w = parent->right;
			}
			KASSERT_DEBUG(w);	/* x is a black height short: its sibling has one */
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				w->left->red = false;
				w->red = true;
				rotate_right(tree, w);
				w = parent->right;
			}
			w->red = parent->red;
			parent->red = false;
			w->right->red = false;
			rotate_left(tree, parent);
		} else {
			w = parent->left;
			if (is_red(w)) {
				w->red = false;
				parent->red = true;
				rotate_right(tree, parent);
				w = parent->left;
			}
			KASSERT_DEBUG(w);
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->red = false;
				w->red = true;
				rotate_left(tree, w);
				w = parent->left;
			}
			w->red = parent->red;
			parent->red = false;
			w->left->red = false;
			rotate_right(tree, parent);
		}
		x = tree->root;
		break;
	}
	if (x)
		x->red = false;
}

void rb_erase(struct rb_root *tree, struct rb_node *z)
{
	struct rb_node *x, *x_parent;
	bool removed_red;

	/* The leftmost has no left child: its successor is the right subtree's minimum, else its parent. */
	if (tree->leftmost == z)
		tree->leftmost = z->right ? subtree_min(z->right) : z->parent;

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		x_parent = z->parent;
		removed_red = z->red;
		replace_child(tree, z, x);
	} else {
		/* Splice out the successor y and put it where z was. */
		struct rb_node *y = subtree_min(z->right);

		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			x_parent = y;
		} else {
			x_parent = y->parent;
			replace_child(tree, y, x);
			y->right = z->right;
			y->right->parent = y;
		}
		replace_child(tree, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	z->left = z->right = z->parent = NULL;
	if (!removed_red && tree->root)	/* an emptied tree needs no rebalancing */
		erase_fixup(tree, x, x_parent);
}

void rb_replace(struct rb_root *tree, struct rb_node *old, struct rb_node *new)
{
	*new = *old;
	replace_child(tree, old, new);
	if (new->left)
		new->left->parent = new;
	if (new->right)
		new->right->parent = new;
	if (tree->leftmost == old)
		tree->leftmost = new;
	old->left = old->right = old->parent = NULL;
}

static int check_subtree(const struct rb_node *n, const struct rb_node *parent, rb_less_fn less)
{
	int lh, rh;

	if (!n)
		return 1;
	if (n->parent != parent)
		return -1;
	if (n->red && (is_red(n->left) || is_red(n->right)))
		return -1;
	if (n->left && less(n, n->left))
		return -1;
	if (n->right && less(n->right, n))
		return -1;
	lh = check_subtree(n->left, n, less);
	rh = check_subtree(n->right, n, less);
	if (lh < 0 || rh < 0 || lh != rh)
		return -1;
	return lh + (n->red ? 0 : 1);
}

int rb_check(const struct rb_root *tree, rb_less_fn less)
{
	const struct rb_node *min = tree->root;

	if (is_red(tree->root))
		return -1;
	if (min)
		while (min->left)
			min = min->left;
	if (min != tree->leftmost)
		return -1;
	/* In-order walk must be non-decreasing (catches deep misorderings). */
	for (const struct rb_node *n = min, *nx; n; n = nx) {
		nx = rb_next(n);
		if (nx && less(nx, n))
			return -1;
	}
	return check_subtree(tree->root, NULL, less);
}
