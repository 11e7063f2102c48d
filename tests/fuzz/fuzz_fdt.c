/*
 * Fuzz target `fdt`: kernel/lib/fdt.c on an arbitrary blob.
 *
 * The input is the DTB. fdt_open() must either reject it (negative FDT_E*
 * code, a one-line message in fdt->err, every accessor then answering
 * "none") or accept it, after which every accessor is run on every node and
 * the contract of include/kernel/lib/fdt.h is checked:
 *  - nothing is read outside the blob's totalsize (the walk runs on an
 *    exact-size copy of totalsize bytes, so ASan sees any over-read), and
 *    the blob is accepted again when max_size == totalsize, rejected when
 *    max_size < totalsize;
 *  - the tree is consistent: the depth-first order of fdt_next_node() is the
 *    one of fdt_first_child()/fdt_next_sibling(); fdt_parent() of a child is
 *    the node it was reached from; fdt_subnode() and fdt_path() return a
 *    node that is a child / whose name matches;
 *  - properties lie inside the blob; fdt_prop_u32 implies 4 bytes;
 *    fdt_prop_string is terminated inside the property and is in its own
 *    list; a node's phandle finds a node at or before it; the node's first
 *    compatible string finds a node at or before it; fdt_cpu_node() lists
 *    the enabled cpu nodes of /cpus in order;
 *  - the resolvers (kernel/lib/fdt_addr.c) answer or fail with a fault that
 *    names a node and a one-line reason; fdt_node_path() spells a path that
 *    fdt_path() finds again;
 *  - differential: libfdt, the reference reader, accepts every blob ours
 *    accepts and sees the same nodes, paths and property values
 *    (tests/fuzz/fdt_ref.c; ours may refuse more).
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/lib/fdt.h"
#include "tests/fuzz/fdt_ref.h"
#include "tests/fuzz/fuzz.h"

#define MAX_NODES 512	/* the walk is quadratic: keep each run fast */

static const char *const prop_names[] = {
	"compatible", "reg", "status", "phandle", "linux,phandle",
	"#address-cells", "#size-cells", "#interrupt-cells", "interrupts",
	"interrupt-parent", "device_type", "cpu", "capacity-dmips-mhz",
	"power-domains", "cpu-idle-states", "domain-idle-states",
	"sched-energy-costs", "busy-cost-data", "idle-cost-data", "bootargs",
	"entry-latency-us", "exit-latency-us", "min-residency-us", "",
};

struct ctx {
	const struct fdt *fdt;
	const uint8_t *lo, *hi;	/* the blob: [lo, hi) */
	int order[MAX_NODES];
	int nr;
	int pos;		/* cursor of the recursive walk into order[] */
	bool truncated;
};

static volatile uint8_t sink;

static bool inside(const struct ctx *c, const void *p, size_t len)
{
	const uint8_t *b = p;

	return b >= c->lo && b <= c->hi && len <= (size_t)(c->hi - b);
}

static bool name_matches(const char *node_name, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(node_name, name, n) != 0)
		return false;
	return node_name[n] == '\0' || (node_name[n] == '@' && !strchr(name, '@'));
}

static void check_props(const struct ctx *c, int node)
{
	const struct fdt *fdt = c->fdt;

	for (size_t i = 0; i < sizeof(prop_names) / sizeof(prop_names[0]); i++) {
		const char *name = prop_names[i];
		int len = -1;
		const uint8_t *p = fdt_getprop(fdt, node, name, &len);
		uint32_t v;
		const char *s;

		FUZZ_CHECK(fdt_has_prop(fdt, node, name) == (p != NULL));
		if (!p) {
			FUZZ_CHECK(fdt_prop_u32(fdt, node, name, &v) == FDT_ENOTFOUND);
			FUZZ_CHECK(fdt_prop_string(fdt, node, name) == NULL);
			continue;
		}
		FUZZ_CHECK(len >= 0);
		FUZZ_CHECK(inside(c, p, (size_t)len));
		for (int k = 0; k < len; k++)
			sink ^= p[k];
		if (fdt_prop_u32(fdt, node, name, &v) == FDT_OK)
			FUZZ_CHECK(len == 4);
		for (int k = -1; k <= len / 4 && k < 8; k++) {
			int rc = fdt_prop_cell(fdt, node, name, k, &v);

			FUZZ_CHECK(rc == FDT_OK || rc == FDT_EBADVALUE);
			FUZZ_CHECK((rc == FDT_OK) == (k >= 0 && len % 4 == 0 && k < len / 4));
		}
		s = fdt_prop_string(fdt, node, name);
		if (s) {
			FUZZ_CHECK((const uint8_t *)s == p);
			FUZZ_CHECK(memchr(s, '\0', (size_t)len) != NULL);
			FUZZ_CHECK(fdt_prop_list_contains(fdt, node, name, s));
		}
		(void)fdt_prop_list_contains(fdt, node, name, "okay");
		(void)fdt_prop_list_contains(fdt, node, name, "");
	}
	(void)fdt_node_enabled(fdt, node);
	(void)fdt_is_compatible(fdt, node, "arm,idle-state");
}

/* A failed resolver names a node of the tree (or -1) and says why in one line. */
static void check_fault(const struct ctx *c, int rc, const struct fdt_fault *f)
{
	FUZZ_CHECK(rc == FDT_OK || rc == FDT_ENOTFOUND || rc == FDT_EBADVALUE);
	if (rc == FDT_OK)
		return;
	FUZZ_CHECK(f->prop && f->prop[0]);
	FUZZ_CHECK(f->what[0] && strnlen(f->what, sizeof(f->what)) < sizeof(f->what));
	FUZZ_CHECK(strchr(f->what, '\n') == NULL);
	FUZZ_CHECK(f->node >= -1);
	for (const char *p = f->what; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	if (f->node >= 0) {
		char path[512];

		FUZZ_CHECK(fdt_node_path(c->fdt, f->node, path, sizeof(path)) != 0);
	}
}

static void check_node(const struct ctx *c, int node, int root)
{
	const struct fdt *fdt = c->fdt;
	struct fdt_fault fault;
	const char *name = fdt_node_name(fdt, node);
	int parent = fdt_parent(fdt, node);
	uint32_t ph;

	FUZZ_CHECK(inside(c, name, strlen(name) + 1));
	if (node == root) {
		FUZZ_CHECK(parent == -1);
	} else {
		bool found = false;

		FUZZ_CHECK(parent >= 0 && parent < node);
		for (int ch = fdt_first_child(fdt, parent); ch >= 0 && !found; ch = fdt_next_sibling(fdt, ch))
			found = ch == node;
		FUZZ_CHECK_MSG(found, "node 0x%x not among the children of its parent 0x%x", node, parent);
	}
	for (int ch = fdt_first_child(fdt, node); ch >= 0; ch = fdt_next_sibling(fdt, ch)) {
		const char *cn = fdt_node_name(fdt, ch);
		int sub;

		FUZZ_CHECK(ch > node);
		FUZZ_CHECK_MSG(fdt_parent(fdt, ch) == node, "child 0x%x of 0x%x has parent 0x%x", ch, node,
			       fdt_parent(fdt, ch));
		sub = fdt_subnode(fdt, node, cn);
		FUZZ_CHECK(sub >= 0 && sub <= ch);
		FUZZ_CHECK(fdt_parent(fdt, sub) == node);
		FUZZ_CHECK(name_matches(fdt_node_name(fdt, sub), cn));
	}
	check_props(c, node);

	for (int i = 0; i < 4; i++) {
		uint64_t addr, size;
		uint32_t irq;
		int rc = fdt_reg(fdt, node, i, &addr, &size);

		FUZZ_CHECK(rc == FDT_OK || rc == FDT_ENOTFOUND || rc == FDT_EBADVALUE);
		rc = fdt_irq(fdt, node, i, &irq);
		FUZZ_CHECK(rc == FDT_OK || rc == FDT_ENOTFOUND || rc == FDT_EBADVALUE);
		if (rc == FDT_OK)
			FUZZ_CHECK(irq >= 16 && irq < 1020);
		check_fault(c, fdt_irq_fault(fdt, node, i, &irq, &fault), &fault);
		check_fault(c, fdt_reg_phys(fdt, node, i, &addr, &size, &fault), &fault);
	}
	(void)fdt_address_cells(fdt, node);
	(void)fdt_size_cells(fdt, node);
	{
		char path[512];
		int n = fdt_node_path(fdt, node, path, sizeof(path));

		FUZZ_CHECK(n != 0);
		if (n > 0 && !strchr(fdt_node_name(fdt, node), '/'))
			FUZZ_CHECK(path[0] == '/' && (int)strlen(path) == n);
		FUZZ_CHECK(fdt_node_path(fdt, node, path, 1) == -1);
	}

	if (fdt_prop_u32(fdt, node, "phandle", &ph) == FDT_OK && ph != 0 && ph != 0xffffffffu) {
		int found = fdt_node_by_phandle(fdt, ph);

		FUZZ_CHECK_MSG(found >= 0 && found <= node, "phandle 0x%x of node 0x%x found at %d",
			       (unsigned)ph, node, found);
	}
	{
		const char *compat = fdt_prop_string(fdt, node, "compatible");

		if (compat) {
			int found = fdt_find_compatible(fdt, -1, compat);

			FUZZ_CHECK(found >= 0 && found <= node);
			FUZZ_CHECK(fdt_is_compatible(fdt, found, compat));
			found = fdt_find_compatible(fdt, found, compat);
			FUZZ_CHECK(found == -1 || fdt_is_compatible(fdt, found, compat));
		}
	}
}

/* Path of @node from the root ("/a/b"); false if it cannot be spelled. */
static bool path_of(const struct fdt *fdt, int node, char *buf, size_t size)
{
	int chain[FDT_MAX_DEPTH + 1], n = 0;
	size_t len = 0;

	for (int p = node; p >= 0 && fdt_parent(fdt, p) >= 0; p = fdt_parent(fdt, p)) {
		if (n == FDT_MAX_DEPTH + 1)
			return false;
		chain[n++] = p;
	}
	buf[0] = '/';
	buf[1] = '\0';
	len = 1;
	while (n-- > 0) {
		const char *nm = fdt_node_name(fdt, chain[n]);
		size_t l = strlen(nm);

		if (l == 0 || l >= 64 || strchr(nm, '/') || len + l + 2 > size)
			return false;
		if (len > 1)
			buf[len++] = '/';
		memcpy(buf + len, nm, l + 1);
		len += l;
	}
	return true;
}

/* The child/sibling walk must meet the nodes in fdt_next_node() order. */
static void walk(struct ctx *c, int node, int depth)
{
	FUZZ_CHECK(depth <= FDT_MAX_DEPTH);
	if (c->pos >= c->nr)
		return;	/* past the nodes recorded */
	FUZZ_CHECK_MSG(c->order[c->pos] == node, "depth-first order: expected 0x%x, child walk gives 0x%x",
		       c->order[c->pos], node);
	c->pos++;
	for (int ch = fdt_first_child(c->fdt, node); ch >= 0; ch = fdt_next_sibling(c->fdt, ch))
		walk(c, ch, depth + 1);
}

static void check_tree(const struct fdt *fdt)
{
	static struct ctx c;
	char path[512];
	int root = fdt_root(fdt);
	uint64_t addr, size;

	memset(&c, 0, sizeof(c));
	c.fdt = fdt;
	c.lo = fdt->blob;
	c.hi = fdt->blob + fdt->totalsize;
	FUZZ_CHECK(root >= 0);
	for (int n = root; n >= 0; n = fdt_next_node(fdt, n)) {
		if (c.nr == MAX_NODES) {
			c.truncated = true;
			break;
		}
		FUZZ_CHECK(c.nr == 0 || n > c.order[c.nr - 1]);
		c.order[c.nr++] = n;
	}
	walk(&c, root, 0);
	if (!c.truncated)
		FUZZ_CHECK_MSG(c.pos == c.nr, "child walk met %d of %d nodes", c.pos, c.nr);
	FUZZ_CHECK(fdt_path(fdt, "/") == root);
	FUZZ_CHECK(fdt_next_sibling(fdt, root) == -1);
	for (int i = 0; i < c.nr; i++) {
		check_node(&c, c.order[i], root);
		if (path_of(fdt, c.order[i], path, sizeof(path))) {
			const char *last = strrchr(path, '/') + 1;
			int found = fdt_path(fdt, path);

			if (found >= 0 && *last)
				FUZZ_CHECK(name_matches(fdt_node_name(fdt, found), last));
		}
	}
	/* fdt_cpu_node(): the enabled device_type = "cpu" children of /cpus, in order. */
	for (int i = 0, prev = -1;; i++) {
		int n = fdt_cpu_node(fdt, i);
		const char *type;

		if (n < 0)
			break;
		FUZZ_CHECK(n > prev && fdt_parent(fdt, n) == fdt_path(fdt, "/cpus"));
		type = fdt_prop_string(fdt, n, "device_type");
		FUZZ_CHECK(type && strcmp(type, "cpu") == 0 && fdt_node_enabled(fdt, n));
		FUZZ_CHECK(i < c.nr || c.truncated);
		prev = n;
	}
	FUZZ_CHECK(fdt_cpu_node(fdt, -1) == -1);
	{
		struct fdt_fault f;
		int out = fdt_stdout_node(fdt, &f);

		if (out < 0 && out != FDT_ENOTFOUND)
			check_fault(&c, out, &f);
		FUZZ_CHECK(out < 0 || out < (int)fdt->size_struct);
		(void)fdt_alias(fdt, "serial0");
	}
	(void)fdt_path(fdt, "/cpus/cpu-map");
	(void)fdt_path(fdt, "//chosen/");
	(void)fdt_path(fdt, "relative");
	for (int i = 0; fdt_reserved(fdt, i, &addr, &size); i++)
		FUZZ_CHECK((uint64_t)i < fdt->totalsize / 16);
	FUZZ_CHECK(fdt_node_name(fdt, -1)[0] == '\0');
	FUZZ_CHECK(fdt_first_child(fdt, -1) == -1 && fdt_next_node(fdt, -1) == -1);
	FUZZ_CHECK(fdt_getprop(fdt, -1, "reg", NULL) == NULL);
	c.fdt = NULL;	/* the caller's struct fdt is on its stack */
}

static void compare_props(const struct fdt *ours, int node)
{
	const void *blob = ours->blob;
	int off;

	for (off = ref_first_prop(blob, node); off >= 0; off = ref_next_prop(blob, off)) {
		const char *name = NULL;
		int len = -1, ref_len = -1, our_len = -1;
		const void *ref, *mine;

		FUZZ_CHECK_MSG(ref_prop(blob, off, &name, &len) && name,
			       "libfdt cannot read the property at 0x%x of node 0x%x", off, node);
		ref = ref_getprop(blob, node, name, &ref_len);
		mine = fdt_getprop(ours, node, name, &our_len);
		FUZZ_CHECK_MSG(ref && mine, "node 0x%x: property \"%s\" libfdt %s, ours %s", node, name,
			       ref ? "has" : "lacks", mine ? "has" : "lacks");
		FUZZ_CHECK_MSG(our_len == ref_len && memcmp(mine, ref, (size_t)ref_len) == 0,
			       "node 0x%x property \"%s\": %d bytes here, %d in libfdt, or other bytes", node, name,
			       our_len, ref_len);
	}
	FUZZ_CHECK_MSG(off == -1, "libfdt's property walk of node 0x%x failed", node);
}

/* libfdt must accept what ours accepts, and see the same tree (tests/fuzz/fdt_ref.h). */
static void compare_with_libfdt(const struct fdt *ours)
{
	const void *blob = ours->blob;
	const char *why = ref_check(blob, ours->totalsize);
	int node, mine = fdt_root(ours), n = 0;
	static char ref_path_buf[1024], our_path[1024];

	FUZZ_CHECK_MSG(why == NULL, "ours accepts a blob that libfdt's fdt_check_full refuses: %s", why);
	for (node = ref_next_node(blob, -1); node >= 0 && n < MAX_NODES; node = ref_next_node(blob, node), n++) {
		FUZZ_CHECK_MSG(node == mine, "depth-first order: libfdt at 0x%x, ours at 0x%x", node, mine);
		FUZZ_CHECK_MSG(strcmp(ref_name(blob, node), fdt_node_name(ours, node)) == 0, "node 0x%x: names differ",
			       node);
		if (ref_path(blob, node, ref_path_buf, sizeof(ref_path_buf)) == 0 &&
		    fdt_node_path(ours, node, our_path, sizeof(our_path)) > 0)
			FUZZ_CHECK_MSG(strcmp(ref_path_buf, our_path) == 0, "node 0x%x: path %s here, %s in libfdt",
				       node, our_path, ref_path_buf);
		compare_props(ours, node);
		mine = fdt_next_node(ours, mine);
	}
	if (n < MAX_NODES) {
		FUZZ_CHECK_MSG(node == -1, "libfdt's node walk failed after %d nodes", n);
		FUZZ_CHECK_MSG(mine == -1, "ours has a node at 0x%x after libfdt's last", mine);
	}
}

/*
 * The phandle index answers as the walk does: @walk and @indexed are the same
 * bytes, @indexed gets an index; every phandle in the tree (and its
 * neighbours, mostly absent) resolves to the same node, duplicates included.
 */
static void check_phandle_index(const struct fdt *walk, struct fdt *indexed)
{
	int need = fdt_index_phandles(indexed, NULL, 0);
	struct fdt_phandle *buf;

	FUZZ_CHECK(need >= 0 && indexed->phandles == NULL);
	if (need == 0)
		return;
	buf = malloc((size_t)need * sizeof(*buf));
	FUZZ_CHECK(buf != NULL);
	FUZZ_CHECK(fdt_index_phandles(indexed, buf, need) == need && indexed->phandles == buf);
	for (int node = fdt_root(walk); node >= 0; node = fdt_next_node(walk, node)) {
		uint32_t ph;

		if (fdt_prop_u32(walk, node, "phandle", &ph) != FDT_OK &&
		    fdt_prop_u32(walk, node, "linux,phandle", &ph) != FDT_OK)
			continue;
		for (uint32_t d = 0; d < 3; d++)
			FUZZ_CHECK_MSG(fdt_node_by_phandle(walk, ph + d - 1) == fdt_node_by_phandle(indexed, ph + d - 1),
				       "phandle 0x%x: walk %d, index %d", (unsigned)(ph + d - 1),
				       fdt_node_by_phandle(walk, ph + d - 1), fdt_node_by_phandle(indexed, ph + d - 1));
	}
	indexed->phandles = NULL;
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdt fdt;
	int rc = fdt_open(&fdt, data, size);

	FUZZ_CHECK(fdt_strerror(rc) != NULL);
	if (rc != FDT_OK) {
		size_t n = strnlen(fdt.err, sizeof(fdt.err));

		FUZZ_CHECK(rc < 0 && rc >= FDT_EBADVALUE);
		FUZZ_CHECK(n > 0 && n < sizeof(fdt.err));
		FUZZ_CHECK(strchr(fdt.err, '\n') == NULL);
		FUZZ_CHECK(fdt_root(&fdt) == -1);
		FUZZ_CHECK(fdt_path(&fdt, "/") == -1);
		FUZZ_CHECK(fdt_getprop(&fdt, 0, "reg", NULL) == NULL);
		return 0;
	}
	FUZZ_CHECK(fdt.totalsize <= size);
	{
		uint32_t total = fdt.totalsize;
		uint8_t *copy = malloc(total);
		struct fdt exact;

		FUZZ_CHECK(copy != NULL);
		memcpy(copy, data, total);
		FUZZ_CHECK(fdt_open(&exact, copy, total - 1) == FDT_EBADHEADER);
		rc = fdt_open(&exact, copy, total);
		FUZZ_CHECK_MSG(rc == FDT_OK, "accepted with max_size %zu, rejected with max_size = totalsize %u: %s",
			       size, (unsigned)total, exact.err);
		check_tree(&exact);
		compare_with_libfdt(&exact);
		check_phandle_index(&fdt, &exact);
		free(copy);
	}
	return 0;
}
