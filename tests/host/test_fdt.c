/*
 * FDT reader (kernel/lib/fdt.c):
 * - every accessor against the fixture tests/dts/fdt_reader.dts (built by
 *   `make host` into build/host/dts/fdt_reader.dtb), with exact values;
 * - shapes dtc refuses or warns about (bad reg lengths, default #cells,
 *   dangling interrupt parents, NOPs, deep nesting) built in memory by a
 *   small blob writer (struct fb);
 * - the board DTBs: CPU counts and cpu-map clusters;
 * - corruption: every header field, every structure-block error with the
 *   exact message kernel/lib/fdt.c produces, truncation at every length, and
 *   random bit flips. Blobs live in malloc()ed buffers of exactly their
 *   size, so ASan reports any read past them.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktest.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/fdt.h"

#define TOK_BEGIN 1u
#define TOK_END_NODE 2u
#define TOK_PROP 3u
#define TOK_NOP 4u
#define TOK_END 9u

/* ---------------------------------------------------------------- helpers */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Header field offsets. */
enum {
	H_MAGIC = 0, H_TOTALSIZE = 4, H_OFF_STRUCT = 8, H_OFF_STRINGS = 12,
	H_OFF_RSVMAP = 16, H_VERSION = 20, H_LAST_COMP = 24, H_BOOT_CPUID = 28,
	H_SIZE_STRINGS = 32, H_SIZE_STRUCT = 36,
};

struct blob {
	uint8_t *p;
	size_t n;
};

static struct blob blob_copy(const void *src, size_t n)
{
	struct blob b = { malloc(n ? n : 1), n };

	if (!b.p) {
		perror("malloc");
		exit(2);
	}
	memcpy(b.p, src, n);
	return b;
}

static void blob_free(struct blob *b)
{
	free(b->p);
	b->p = NULL;
	b->n = 0;
}

/* Repository root: the binary is <root>/build/host/test_fdt. */
static const char *root_dir(void)
{
	static char root[PATH_MAX];

	if (!root[0]) {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		char *cut = NULL;

		strcpy(root, ".");
		if (n > 0) {
			exe[n] = '\0';
			for (char *s = strstr(exe, "/build/host/"); s; s = strstr(s + 1, "/build/host/"))
				cut = s;
			if (cut) {
				*cut = '\0';
				snprintf(root, sizeof(root), "%s", exe);
			}
		}
	}
	return root;
}

static bool read_whole(const char *path, struct blob *out)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return false;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return false;
	}
	out->n = (size_t)n;
	out->p = malloc(out->n ? out->n : 1);
	if (!out->p || fread(out->p, 1, out->n, f) != out->n) {
		free(out->p);
		out->p = NULL;
		fclose(f);
		return false;
	}
	fclose(f);
	return true;
}

static bool have_dtc(void)
{
	static int have = -1;

	if (have < 0)
		have = system("command -v dtc >/dev/null 2>&1") == 0;
	return have;
}

/* Compile @dts with dtc into a temporary file and read it. */
static bool dtc_compile(const char *dts, const char *incdir, struct blob *out)
{
	char dir[] = "/tmp/ktest-fdt-XXXXXX", dtb[PATH_MAX + 32], cmd[3 * PATH_MAX + 128];
	bool ok;

	if (!have_dtc() || !mkdtemp(dir))
		return false;
	snprintf(dtb, sizeof(dtb), "%s/out.dtb", dir);
	snprintf(cmd, sizeof(cmd), "dtc -q -I dts -O dtb %s%s -o '%s' '%s' 2>/dev/null",
		 incdir ? "-i " : "", incdir ? incdir : "", dtb, dts);
	ok = system(cmd) == 0 && read_whole(dtb, out);
	unlink(dtb);
	rmdir(dir);
	return ok;
}

static time_t mtime_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mtime : 0;
}

/*
 * The fixture: build/host/dts/fdt_reader.dtb (Makefile rule for tests/dts),
 * or, if it is missing or older than its source, compiled here with dtc.
 */
static bool load_fixture(struct blob *out, char *why, size_t whylen)
{
	char dtb[PATH_MAX + 64], dts[PATH_MAX + 64];

	snprintf(dtb, sizeof(dtb), "%s/build/host/dts/fdt_reader.dtb", root_dir());
	snprintf(dts, sizeof(dts), "%s/tests/dts/fdt_reader.dts", root_dir());
	if (mtime_of(dtb) && (mtime_of(dtb) >= mtime_of(dts) || !have_dtc()) && read_whole(dtb, out))
		return true;
	if (dtc_compile(dts, NULL, out))
		return true;
	snprintf(why, whylen, "no %s and cannot compile %s with dtc (run make host)", dtb, dts);
	return false;
}

#define OPEN_FIXTURE(f, b)                                                   \
	do {                                                                 \
		char why_[2 * PATH_MAX + 160];                               \
		int rc_;                                                     \
		KT_ASSERT_MSG(load_fixture(&(b), why_, sizeof(why_)), "%s", why_); \
		rc_ = fdt_open(&(f), (b).p, (b).n);                         \
		KT_ASSERT_MSG(rc_ == FDT_OK, "fixture rejected: %d %s", rc_, (f).err); \
	} while (0)

/* ------------------------------------------------- in-memory blob writer */

struct fb {
	uint8_t st[16384];
	uint32_t sl;
	char strs[2048];
	uint32_t strl;
	uint64_t rsv[8][2];
	int nrsv;
	uint32_t version, last_comp;
};

static void fb_init(struct fb *b)
{
	memset(b, 0, sizeof(*b));
	b->version = 17;
	b->last_comp = 16;
}

static void fb_u32(struct fb *b, uint32_t v)
{
	put_be32(b->st + b->sl, v);
	b->sl += 4;
}

static void fb_raw(struct fb *b, const void *p, size_t n, bool pad)
{
	memcpy(b->st + b->sl, p, n);
	b->sl += (uint32_t)n;
	while (pad && (b->sl & 3))
		b->st[b->sl++] = 0;
}

static void fb_begin(struct fb *b, const char *name)
{
	fb_u32(b, TOK_BEGIN);
	fb_raw(b, name, strlen(name) + 1, true);
}

static void fb_end_node(struct fb *b)
{
	fb_u32(b, TOK_END_NODE);
}

static uint32_t fb_str(struct fb *b, const char *s)
{
	size_t n = strlen(s) + 1;

	for (uint32_t off = 0; off < b->strl; off += (uint32_t)strlen(b->strs + off) + 1)
		if (strcmp(b->strs + off, s) == 0)
			return off;
	memcpy(b->strs + b->strl, s, n);
	b->strl += (uint32_t)n;
	return b->strl - (uint32_t)n;
}

static void fb_prop(struct fb *b, const char *name, const void *val, uint32_t len)
{
	fb_u32(b, TOK_PROP);
	fb_u32(b, len);
	fb_u32(b, fb_str(b, name));
	fb_raw(b, val, len, true);
}

static void fb_prop_cells(struct fb *b, const char *name, int n, const uint32_t *cells)
{
	uint8_t v[64];

	for (int i = 0; i < n; i++)
		put_be32(v + 4 * i, cells[i]);
	fb_prop(b, name, v, (uint32_t)(4 * n));
}

#define FB_CELLS(b, name, ...)                                               \
	fb_prop_cells(b, name, (int)(sizeof((uint32_t[]){ __VA_ARGS__ }) / 4), \
		      (uint32_t[]){ __VA_ARGS__ })

static void fb_prop_str(struct fb *b, const char *name, const char *s)
{
	fb_prop(b, name, s, (uint32_t)strlen(s) + 1);
}

/* header(40) | rsvmap | struct | strings; exactly totalsize bytes. */
static struct blob fb_blob(const struct fb *b)
{
	uint32_t off_rsv = 40, off_st = off_rsv + 16 * (uint32_t)(b->nrsv + 1);
	uint32_t off_str = off_st + b->sl, total = off_str + b->strl;
	struct blob out = { calloc(1, total), total };

	if (!out.p) {
		perror("calloc");
		exit(2);
	}
	put_be32(out.p + H_MAGIC, FDT_MAGIC);
	put_be32(out.p + H_TOTALSIZE, total);
	put_be32(out.p + H_OFF_STRUCT, off_st);
	put_be32(out.p + H_OFF_STRINGS, off_str);
	put_be32(out.p + H_OFF_RSVMAP, off_rsv);
	put_be32(out.p + H_VERSION, b->version);
	put_be32(out.p + H_LAST_COMP, b->last_comp);
	put_be32(out.p + H_BOOT_CPUID, 0);
	put_be32(out.p + H_SIZE_STRINGS, b->strl);
	put_be32(out.p + H_SIZE_STRUCT, b->sl);
	for (int i = 0; i < b->nrsv; i++) {
		put_be32(out.p + off_rsv + 16 * i, (uint32_t)(b->rsv[i][0] >> 32));
		put_be32(out.p + off_rsv + 16 * i + 4, (uint32_t)b->rsv[i][0]);
		put_be32(out.p + off_rsv + 16 * i + 8, (uint32_t)(b->rsv[i][1] >> 32));
		put_be32(out.p + off_rsv + 16 * i + 12, (uint32_t)b->rsv[i][1]);
	}
	memcpy(out.p + off_st, b->st, b->sl);
	memcpy(out.p + off_str, b->strs, b->strl);
	return out;
}

/* The smallest useful tree: / { compatible = "x"; }; struct offsets 0..0x1c. */
static void fb_minimal(struct fb *b)
{
	fb_init(b);
	fb_begin(b, "");		/* 0x00 */
	fb_prop_str(b, "compatible", "x");	/* 0x08 */
	fb_end_node(b);			/* 0x18 */
	fb_u32(b, TOK_END);		/* 0x1c */
}

/* ------------------------------------------------------ bounds-checked walk */

struct walk_stats {
	int nodes;
};

static bool in_struct(const struct fdt *f, const void *p, size_t len)
{
	const uint8_t *s = f->blob + f->off_struct, *q = p;

	return q >= s && len <= f->size_struct && (size_t)(q - s) <= f->size_struct - len;
}

/*
 * Call every accessor on every node of an opened blob; check each returned
 * pointer and length lies inside the struct block. Returns NULL, or what went
 * wrong. ASan catches reads outside the blob's buffer.
 */
static const char *walk_all(const struct fdt *f, struct walk_stats *ws)
{
	static const char *const props[] = {
		"compatible", "reg", "interrupts", "status", "phandle", "linux,phandle",
		"#address-cells", "#size-cells", "#interrupt-cells", "interrupt-parent",
		"device_type", "cpu", "bootargs", "model", "strlist", "empty-prop",
	};
	static const char *const paths[] = {
		"/", "/chosen", "/cpus", "/cpus/cpu-map/cluster0/core0", "/cpus/cpu@100",
		"/soc/serial", "/a/b/c", "//cpus//", "/nope",
	};
	uint64_t a, s;
	uint32_t v;
	int steps = 0;

	memset(ws, 0, sizeof(*ws));
	for (int n = fdt_root(f); n >= 0; n = fdt_next_node(f, n)) {
		const char *name = fdt_node_name(f, n);
		int p = fdt_parent(f, n), kids = 0;

		if (++steps > 100000)
			return "fdt_next_node() does not terminate";
		if ((uint32_t)n >= f->size_struct)
			return "node offset outside the struct block";
		if (!in_struct(f, name, strlen(name) + 1))
			return "fdt_node_name() points outside the struct block";
		if (p >= 0 && (uint32_t)p >= (uint32_t)n)
			return "fdt_parent() is not before the node";
		for (int c = fdt_first_child(f, n); c >= 0; c = fdt_next_sibling(f, c)) {
			if (++kids > 100000)
				return "child iteration does not terminate";
			if (c <= n || (uint32_t)c >= f->size_struct)
				return "child offset out of order or outside the struct block";
		}
		(void)fdt_subnode(f, n, "cpu");
		(void)fdt_subnode(f, n, name);
		for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
			int len = -1;
			const void *val = fdt_getprop(f, n, props[i], &len);
			const char *str = fdt_prop_string(f, n, props[i]);

			if (val && (len < 0 || !in_struct(f, val, (size_t)len)))
				return "fdt_getprop() value outside the struct block";
			if (str && !in_struct(f, str, strlen(str) + 1))
				return "fdt_prop_string() outside the struct block";
			if (str && str != val)
				return "fdt_prop_string() is not the property value";
			(void)fdt_prop_u32(f, n, props[i], &v);
			for (int k = -1; k < 4; k++)
				(void)fdt_prop_cell(f, n, props[i], k, &v);
			(void)fdt_prop_list_contains(f, n, props[i], "okay");
			(void)fdt_prop_list_contains(f, n, props[i], "");
			(void)fdt_has_prop(f, n, props[i]);
		}
		(void)fdt_is_compatible(f, n, "arm,pl011");
		(void)fdt_node_enabled(f, n);
		(void)fdt_address_cells(f, n);
		(void)fdt_size_cells(f, n);
		if (fdt_has_prop(f, n, "reg"))
			for (int k = 0; k < 3; k++)
				(void)fdt_reg(f, n, k, &a, &s);
		if (fdt_has_prop(f, n, "interrupts"))
			for (int k = 0; k < 3; k++)
				(void)fdt_irq(f, n, k, &v);
		ws->nodes++;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		(void)fdt_path(f, paths[i]);
	steps = 0;
	for (int n = fdt_find_compatible(f, -1, "arm,primecell"); n >= 0;
	     n = fdt_find_compatible(f, n, "arm,primecell"))
		if (++steps > 100000)
			return "fdt_find_compatible() does not terminate";
	for (uint32_t ph = 0; ph < 8; ph++)
		(void)fdt_node_by_phandle(f, ph);
	(void)fdt_node_by_phandle(f, 0x8001);
	for (int i = 0; fdt_reserved(f, i, &a, &s); i++)
		if (i > 100000)
			return "fdt_reserved() does not terminate";
	return NULL;
}

/* --------------------------------------------------- the fixture, exactly */

/* Every node of tests/dts/fdt_reader.dts, in depth-first (DTB) order. */
static const char *const fixture_paths[] = {
	"/",
	"/chosen",
	"/aliases",
	"/memory@80000000",
	"/cpus",
	"/cpus/cpu-map",
	"/cpus/cpu-map/cluster0",
	"/cpus/cpu-map/cluster0/core0",
	"/cpus/cpu-map/cluster0/core1",
	"/cpus/cpu-map/cluster1",
	"/cpus/cpu-map/cluster1/core0",
	"/cpus/cpu-map/cluster1/core1",
	"/cpus/cpu@0",
	"/cpus/cpu@1",
	"/cpus/cpu@100",
	"/cpus/cpu@101",
	"/interrupt-controller@2c001000",
	"/interrupt-controller@2d000000",
	"/soc@1c000000",
	"/soc@1c000000/serial@1c090000",
	"/soc@1c000000/serial@1c0a0000",
	"/soc@1c000000/timer@1c110000",
	"/bad-irqs",
	"/weird",
	"/weird/child",
	"/linux-ph",
	"/a",
	"/a/b",
	"/a/b/c",
	"/a/b2",
};
#define NR_FIXTURE_NODES ((int)(sizeof(fixture_paths) / sizeof(fixture_paths[0])))

static void dirname_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;

	if (len == 0)
		len = 1;	/* parent of "/x" is "/" */
	snprintf(out, n, "%.*s", (int)len, path);
}

KT_CASE(fixture_header)
{
	struct blob b;
	struct fdt f;

	OPEN_FIXTURE(f, b);
	KT_ASSERT_EQ(f.totalsize, b.n);
	KT_ASSERT_EQ(f.totalsize, get_be32(b.p + H_TOTALSIZE));
	KT_ASSERT_EQ(f.off_struct, get_be32(b.p + H_OFF_STRUCT));
	KT_ASSERT_EQ(f.size_struct, get_be32(b.p + H_SIZE_STRUCT));
	KT_ASSERT_EQ(f.off_strings, get_be32(b.p + H_OFF_STRINGS));
	KT_ASSERT_EQ(f.size_strings, get_be32(b.p + H_SIZE_STRINGS));
	KT_ASSERT_EQ(f.off_rsvmap, get_be32(b.p + H_OFF_RSVMAP));
	KT_ASSERT_EQ(f.boot_cpuid, 0);
	KT_ASSERT_EQ(f.blob, b.p);
	KT_ASSERT_STREQ(f.err, "");
	blob_free(&b);
}

KT_CASE(fixture_depth_first_order_and_paths)
{
	struct blob b;
	struct fdt f;
	int nodes[NR_FIXTURE_NODES];
	int i = 0;

	OPEN_FIXTURE(f, b);
	KT_ASSERT(fdt_root(&f) >= 0);
	KT_ASSERT_STREQ(fdt_node_name(&f, fdt_root(&f)), "");
	for (int n = fdt_root(&f); n >= 0; n = fdt_next_node(&f, n)) {
		const char *want;

		KT_ASSERT_MSG(i < NR_FIXTURE_NODES, "more nodes than the %d expected", NR_FIXTURE_NODES);
		want = strrchr(fixture_paths[i], '/') + 1;
		KT_ASSERT_MSG(strcmp(fdt_node_name(&f, n), want) == 0,
			      "node %d is '%s', expected '%s' (%s)", i, fdt_node_name(&f, n), want,
			      fixture_paths[i]);
		KT_ASSERT_MSG(fdt_path(&f, fixture_paths[i]) == n, "fdt_path(%s) == %d, expected %d",
			      fixture_paths[i], fdt_path(&f, fixture_paths[i]), n);
		nodes[i++] = n;
	}
	KT_ASSERT_EQ(i, NR_FIXTURE_NODES);
	/* Offsets strictly increase and are 4-byte aligned. */
	for (i = 1; i < NR_FIXTURE_NODES; i++) {
		KT_ASSERT(nodes[i] > nodes[i - 1]);
		KT_ASSERT_EQ(nodes[i] & 3, 0);
	}
	/* Parents, and children in order, for every node. */
	for (i = 0; i < NR_FIXTURE_NODES; i++) {
		char parent[128];
		int k = 0, c;

		if (i == 0) {
			KT_ASSERT_EQ(fdt_parent(&f, nodes[0]), -1);
		} else {
			dirname_of(fixture_paths[i], parent, sizeof(parent));
			KT_ASSERT_MSG(fdt_parent(&f, nodes[i]) == fdt_path(&f, parent),
				      "parent of %s", fixture_paths[i]);
		}
		c = fdt_first_child(&f, nodes[i]);
		for (int j = i + 1; j < NR_FIXTURE_NODES; j++) {
			char pj[128];

			dirname_of(fixture_paths[j], pj, sizeof(pj));
			if (strcmp(pj, fixture_paths[i]) != 0)
				continue;
			KT_ASSERT_MSG(c == nodes[j], "child %d of %s is %d, expected %s (%d)", k,
				      fixture_paths[i], c, fixture_paths[j], nodes[j]);
			c = fdt_next_sibling(&f, c);
			k++;
		}
		KT_ASSERT_MSG(c == -1, "%s has more than %d children", fixture_paths[i], k);
	}
	KT_ASSERT_EQ(fdt_next_node(&f, nodes[NR_FIXTURE_NODES - 1]), -1);
	KT_ASSERT_EQ(fdt_next_sibling(&f, nodes[0]), -1);
	KT_ASSERT_EQ(fdt_first_child(&f, fdt_path(&f, "/a/b/c")), -1);
	KT_ASSERT_EQ(fdt_next_sibling(&f, fdt_path(&f, "/a/b2")), -1);
	KT_ASSERT_EQ(fdt_next_sibling(&f, fdt_path(&f, "/a/b")), fdt_path(&f, "/a/b2"));
	/* The root has 11 children (chosen .. a). */
	i = 0;
	for (int c = fdt_first_child(&f, nodes[0]); c >= 0; c = fdt_next_sibling(&f, c))
		i++;
	KT_ASSERT_EQ(i, 11);
	/* -1 is "none" everywhere. */
	KT_ASSERT_EQ(fdt_first_child(&f, -1), -1);
	KT_ASSERT_EQ(fdt_next_sibling(&f, -1), -1);
	KT_ASSERT_EQ(fdt_next_node(&f, -1), -1);
	KT_ASSERT_EQ(fdt_parent(&f, -1), -1);
	KT_ASSERT_STREQ(fdt_node_name(&f, -1), "");
	blob_free(&b);
}

KT_CASE(fixture_path_and_subnode_matching)
{
	struct blob b;
	struct fdt f;
	int root, cpus;
	char longpath[128];

	OPEN_FIXTURE(f, b);
	root = fdt_root(&f);
	cpus = fdt_path(&f, "/cpus");
	KT_ASSERT(cpus > root);
	KT_ASSERT_EQ(fdt_path(&f, "/"), root);
	KT_ASSERT_EQ(fdt_path(&f, "//"), root);
	KT_ASSERT_EQ(fdt_path(&f, "/cpus/"), cpus);
	KT_ASSERT_EQ(fdt_path(&f, "//cpus///cpu-map//"), fdt_path(&f, "/cpus/cpu-map"));
	/* A name without unit address matches the first "name@unit". */
	KT_ASSERT_EQ(fdt_path(&f, "/cpus/cpu"), fdt_path(&f, "/cpus/cpu@0"));
	KT_ASSERT_EQ(fdt_path(&f, "/soc"), fdt_path(&f, "/soc@1c000000"));
	KT_ASSERT_EQ(fdt_path(&f, "/soc/serial"), fdt_path(&f, "/soc@1c000000/serial@1c090000"));
	KT_ASSERT_EQ(fdt_path(&f, "/interrupt-controller"), fdt_path(&f, "/interrupt-controller@2c001000"));
	/* With a unit address, only an exact match. */
	KT_ASSERT(fdt_path(&f, "/cpus/cpu@1") != fdt_path(&f, "/cpus/cpu@100"));
	KT_ASSERT_STREQ(fdt_node_name(&f, fdt_path(&f, "/cpus/cpu@1")), "cpu@1");
	KT_ASSERT_EQ(fdt_path(&f, "/cpus/cpu@10"), -1);
	KT_ASSERT_EQ(fdt_path(&f, "/cpus/cpu@"), -1);
	KT_ASSERT_EQ(fdt_path(&f, "/cpus/cp"), -1);
	KT_ASSERT_EQ(fdt_path(&f, "/cpu"), -1);
	KT_ASSERT_EQ(fdt_path(&f, "/a/b"), fdt_subnode(&f, fdt_path(&f, "/a"), "b"));
	KT_ASSERT_STREQ(fdt_node_name(&f, fdt_path(&f, "/a/b")), "b");
	KT_ASSERT_EQ(fdt_path(&f, "/a/b/c/d"), -1);
	KT_ASSERT_EQ(fdt_path(&f, "/chosen/nope"), -1);
	KT_ASSERT_EQ(fdt_path(&f, "/nope"), -1);
	/* Not absolute, empty, NULL. */
	KT_ASSERT_EQ(fdt_path(&f, "cpus"), -1);
	KT_ASSERT_EQ(fdt_path(&f, ""), -1);
	KT_ASSERT_EQ(fdt_path(&f, NULL), -1);
	/* A 64-character component does not fit the reader's buffer: -1. */
	memset(longpath, 'x', sizeof(longpath));
	longpath[0] = '/';
	longpath[65] = '\0';
	KT_ASSERT_EQ(fdt_path(&f, longpath), -1);
	/* fdt_subnode only looks at direct children. */
	KT_ASSERT_EQ(fdt_subnode(&f, root, "cpu-map"), -1);
	KT_ASSERT_EQ(fdt_subnode(&f, cpus, "cpu-map"), fdt_path(&f, "/cpus/cpu-map"));
	KT_ASSERT_EQ(fdt_subnode(&f, -1, "cpus"), -1);
	/* The alias is a path string that resolves to uart0. */
	KT_ASSERT_STREQ(fdt_prop_string(&f, fdt_path(&f, "/aliases"), "serial0"),
			"/soc@1c000000/serial@1c090000");
	KT_ASSERT_EQ(fdt_path(&f, fdt_prop_string(&f, fdt_path(&f, "/aliases"), "serial0")),
		     fdt_find_compatible(&f, -1, "arm,pl011"));
	blob_free(&b);
}

KT_CASE(fixture_chosen_and_strings)
{
	struct blob b;
	struct fdt f;
	struct bootargs ba;
	int root, chosen, len = -1;
	const char *compat;

	OPEN_FIXTURE(f, b);
	root = fdt_root(&f);
	chosen = fdt_path(&f, "/chosen");
	KT_ASSERT(chosen > root);
	KT_ASSERT_STREQ(fdt_prop_string(&f, root, "model"), "ktest fdt fixture");
	KT_ASSERT_STREQ(fdt_prop_string(&f, chosen, "bootargs"),
			"console=ttyAMA0 autorun=\"help; echo hi\" loglevel=7");
	KT_ASSERT_STREQ(fdt_prop_string(&f, chosen, "stdout-path"), "serial0:115200n8");
	/* bootargs as boot.c consumes it. */
	KT_ASSERT_EQ(bootargs_parse(&ba, fdt_prop_string(&f, chosen, "bootargs")), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 3);
	KT_ASSERT_STREQ(bootargs_get(&ba, "autorun"), "help; echo hi");
	/* A string list: first string, exact length, membership. */
	compat = fdt_getprop(&f, root, "compatible", &len);
	KT_ASSERT(compat != NULL);
	KT_ASSERT_EQ(len, 26);
	KT_ASSERT(memcmp(compat, "ktest,board\0ktest,generic\0", 26) == 0);
	KT_ASSERT_STREQ(fdt_prop_string(&f, root, "compatible"), "ktest,board");
	KT_ASSERT(fdt_is_compatible(&f, root, "ktest,board"));
	KT_ASSERT(fdt_is_compatible(&f, root, "ktest,generic"));
	KT_ASSERT(!fdt_is_compatible(&f, root, "ktest"));
	KT_ASSERT(!fdt_is_compatible(&f, root, "ktest,boar"));
	KT_ASSERT(!fdt_is_compatible(&f, root, "ktest,board,ktest,generic"));
	KT_ASSERT(!fdt_is_compatible(&f, root, ""));
	KT_ASSERT(!fdt_is_compatible(&f, chosen, "ktest,board"));
	KT_ASSERT(!fdt_is_compatible(&f, -1, "ktest,board"));
	blob_free(&b);
}

KT_CASE(fixture_property_forms)
{
	struct blob b;
	struct fdt f;
	int w, len = -1;
	uint32_t v = 0xdeadbeef;
	const uint8_t *p;

	OPEN_FIXTURE(f, b);
	w = fdt_path(&f, "/weird");
	KT_ASSERT(w >= 0);
	/* Empty property: present, length 0, neither u32 nor string. */
	p = fdt_getprop(&f, w, "empty-prop", &len);
	KT_ASSERT(p != NULL);
	KT_ASSERT_EQ(len, 0);
	KT_ASSERT(fdt_has_prop(&f, w, "empty-prop"));
	KT_ASSERT_EQ(fdt_prop_u32(&f, w, "empty-prop", &v), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "empty-prop", 0, &v), FDT_EBADVALUE);
	KT_ASSERT(fdt_prop_string(&f, w, "empty-prop") == NULL);
	KT_ASSERT(!fdt_prop_list_contains(&f, w, "empty-prop", ""));
	/* Not NUL-terminated: a u32 but not a string. */
	KT_ASSERT(fdt_prop_string(&f, w, "not-a-string") == NULL);
	KT_ASSERT_EQ(fdt_prop_u32(&f, w, "not-a-string", &v), FDT_OK);
	KT_ASSERT_EQ(v, 0x41424344);
	KT_ASSERT(!fdt_prop_list_contains(&f, w, "not-a-string", "ABCD"));
	/* 64-bit value. */
	p = fdt_getprop(&f, w, "u64-prop", &len);
	KT_ASSERT(p != NULL);
	KT_ASSERT_EQ(len, 8);
	KT_ASSERT(fdt_read_cells(p, 2) == 0x123456789abcdef0ull);
	KT_ASSERT(fdt_read_cells(p, 1) == 0x12345678ull);
	KT_ASSERT(fdt_read_cells(p + 4, 1) == 0x9abcdef0ull);
	KT_ASSERT_EQ(fdt_prop_u32(&f, w, "u64-prop", &v), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "u64-prop", 0, &v), FDT_OK);
	KT_ASSERT_EQ(v, 0x12345678);
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "u64-prop", 1, &v), FDT_OK);
	KT_ASSERT_EQ(v, 0x9abcdef0u);
	/* Cells by index. */
	for (int i = 0; i < 3; i++) {
		v = 0;
		KT_ASSERT_EQ(fdt_prop_cell(&f, w, "three-cells", i, &v), FDT_OK);
		KT_ASSERT_EQ(v, i + 1);
	}
	v = 0xdeadbeef;
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "three-cells", 3, &v), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "three-cells", -1, &v), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_prop_u32(&f, w, "three-cells", &v), FDT_EBADVALUE);
	KT_ASSERT_EQ(v, 0xdeadbeef);	/* untouched on failure */
	/* 3 bytes: not cells at all. */
	p = fdt_getprop(&f, w, "bytes", &len);
	KT_ASSERT(p != NULL);
	KT_ASSERT_EQ(len, 3);
	KT_ASSERT(p[0] == 1 && p[1] == 2 && p[2] == 3);
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "bytes", 0, &v), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_prop_u32(&f, w, "bytes", &v), FDT_EBADVALUE);
	/* String list with an empty member. */
	p = fdt_getprop(&f, w, "strlist", &len);
	KT_ASSERT_EQ(len, 6);
	KT_ASSERT_STREQ(fdt_prop_string(&f, w, "strlist"), "a");
	KT_ASSERT(fdt_prop_list_contains(&f, w, "strlist", "a"));
	KT_ASSERT(fdt_prop_list_contains(&f, w, "strlist", ""));
	KT_ASSERT(fdt_prop_list_contains(&f, w, "strlist", "bc"));
	KT_ASSERT(!fdt_prop_list_contains(&f, w, "strlist", "b"));
	KT_ASSERT(!fdt_prop_list_contains(&f, w, "strlist", "c"));
	KT_ASSERT(!fdt_prop_list_contains(&f, w, "strlist", "abc"));
	/* Absent property. */
	len = 1234;
	KT_ASSERT(fdt_getprop(&f, w, "nope", &len) == NULL);
	KT_ASSERT_EQ(len, 1234);
	KT_ASSERT(!fdt_has_prop(&f, w, "nope"));
	KT_ASSERT_EQ(fdt_prop_u32(&f, w, "nope", &v), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_prop_cell(&f, w, "nope", 0, &v), FDT_ENOTFOUND);
	KT_ASSERT(fdt_prop_string(&f, w, "nope") == NULL);
	KT_ASSERT(!fdt_prop_list_contains(&f, w, "nope", ""));
	/* Length pointer is optional. */
	KT_ASSERT(fdt_getprop(&f, w, "strlist", NULL) != NULL);
	/* A child's properties are not its parent's, and vice versa. */
	KT_ASSERT(!fdt_has_prop(&f, w, "leaf"));
	KT_ASSERT(fdt_has_prop(&f, fdt_path(&f, "/weird/child"), "leaf"));
	KT_ASSERT(!fdt_has_prop(&f, fdt_path(&f, "/weird/child"), "strlist"));
	KT_ASSERT(!fdt_has_prop(&f, fdt_path(&f, "/a"), "leaf"));
	KT_ASSERT_STREQ(fdt_prop_string(&f, fdt_path(&f, "/a/b/c"), "leaf"), "deep");
	/* Node -1. */
	KT_ASSERT(fdt_getprop(&f, -1, "strlist", &len) == NULL);
	KT_ASSERT_EQ(fdt_prop_u32(&f, -1, "strlist", &v), FDT_ENOTFOUND);
	blob_free(&b);
}

KT_CASE(fixture_status)
{
	struct blob b;
	struct fdt f;

	OPEN_FIXTURE(f, b);
	KT_ASSERT(fdt_node_enabled(&f, fdt_path(&f, "/cpus/cpu@0")));		/* no status */
	KT_ASSERT(fdt_node_enabled(&f, fdt_path(&f, "/cpus/cpu@100")));	/* "okay" */
	KT_ASSERT(!fdt_node_enabled(&f, fdt_path(&f, "/cpus/cpu@101")));	/* "disabled" */
	KT_ASSERT(fdt_node_enabled(&f, fdt_path(&f, "/soc/serial@1c0a0000")));	/* "ok" */
	KT_ASSERT(!fdt_node_enabled(&f, fdt_path(&f, "/soc/timer")));		/* "disabled" */
	KT_ASSERT(!fdt_node_enabled(&f, fdt_path(&f, "/weird")));		/* "okayish" */
	blob_free(&b);
}

KT_CASE(fixture_cpus_and_cpu_map)
{
	static const uint32_t want_reg[2][2] = { { 0x0, 0x1 }, { 0x100, 0x101 } };
	static const uint32_t want_dmips[2] = { 1024, 516 };
	struct blob b;
	struct fdt f;
	int cpus, map, cl = 0, enabled = 0, all = 0;

	OPEN_FIXTURE(f, b);
	cpus = fdt_path(&f, "/cpus");
	map = fdt_path(&f, "/cpus/cpu-map");
	KT_ASSERT(cpus >= 0 && map >= 0);
	KT_ASSERT_EQ(fdt_address_cells(&f, cpus), 1);
	KT_ASSERT_EQ(fdt_size_cells(&f, cpus), 0);
	/* Count like boot/smp.c: device_type "cpu", enabled. */
	for (int n = fdt_first_child(&f, cpus); n >= 0; n = fdt_next_sibling(&f, n)) {
		const char *type = fdt_prop_string(&f, n, "device_type");

		if (!type || strcmp(type, "cpu") != 0)
			continue;
		all++;
		if (fdt_node_enabled(&f, n))
			enabled++;
	}
	KT_ASSERT_EQ(all, 4);
	KT_ASSERT_EQ(enabled, 3);
	/* Clusters: each core's phandle leads to the cpu node with the right reg. */
	for (int c = fdt_first_child(&f, map); c >= 0; c = fdt_next_sibling(&f, c), cl++) {
		int core = 0;

		KT_ASSERT(cl < 2);
		for (int k = fdt_first_child(&f, c); k >= 0; k = fdt_next_sibling(&f, k), core++) {
			uint32_t ph = 0, self = 0, dmips = 0;
			uint64_t reg = 99, size = 99;
			int cpu;

			KT_ASSERT(core < 2);
			KT_ASSERT_EQ(fdt_prop_u32(&f, k, "cpu", &ph), FDT_OK);
			cpu = fdt_node_by_phandle(&f, ph);
			KT_ASSERT(cpu >= 0);
			KT_ASSERT_EQ(fdt_parent(&f, cpu), cpus);
			KT_ASSERT_EQ(fdt_prop_u32(&f, cpu, "phandle", &self), FDT_OK);
			KT_ASSERT_EQ(self, ph);
			KT_ASSERT_EQ(fdt_reg(&f, cpu, 0, &reg, &size), FDT_OK);
			KT_ASSERT_EQ(reg, want_reg[cl][core]);
			KT_ASSERT_EQ(size, 0);
			KT_ASSERT_EQ(fdt_reg(&f, cpu, 1, &reg, &size), FDT_ENOTFOUND);
			KT_ASSERT_EQ(fdt_prop_u32(&f, cpu, "capacity-dmips-mhz", &dmips), FDT_OK);
			KT_ASSERT_EQ(dmips, want_dmips[cl]);
			KT_ASSERT_STREQ(fdt_prop_string(&f, cpu, "compatible"),
					cl ? "arm,cortex-a7" : "arm,cortex-a15");
		}
		KT_ASSERT_EQ(core, 2);
	}
	KT_ASSERT_EQ(cl, 2);
	blob_free(&b);
}

KT_CASE(fixture_reg_cells)
{
	struct blob b;
	struct fdt f;
	int mem, gic, soc, uart, timer;
	uint64_t a = 0, s = 0;

	OPEN_FIXTURE(f, b);
	mem = fdt_path(&f, "/memory@80000000");
	gic = fdt_path(&f, "/interrupt-controller@2c001000");
	soc = fdt_path(&f, "/soc");
	uart = fdt_path(&f, "/soc/serial@1c090000");
	timer = fdt_path(&f, "/soc/timer");
	KT_ASSERT(mem >= 0 && gic >= 0 && soc >= 0 && uart >= 0 && timer >= 0);
	KT_ASSERT_EQ(fdt_address_cells(&f, fdt_root(&f)), 2);
	KT_ASSERT_EQ(fdt_size_cells(&f, fdt_root(&f)), 2);
	KT_ASSERT_EQ(fdt_address_cells(&f, soc), 1);
	KT_ASSERT_EQ(fdt_size_cells(&f, soc), 1);
	KT_ASSERT_EQ(fdt_address_cells(&f, gic), 0);
	/* No #cells: the defaults 2 and 1; node -1 too. */
	KT_ASSERT_EQ(fdt_address_cells(&f, fdt_path(&f, "/weird")), 2);
	KT_ASSERT_EQ(fdt_size_cells(&f, fdt_path(&f, "/weird")), 1);
	KT_ASSERT_EQ(fdt_address_cells(&f, -1), 2);
	KT_ASSERT_EQ(fdt_size_cells(&f, -1), 1);
	KT_ASSERT_STREQ(fdt_prop_string(&f, mem, "device_type"), "memory");
	/* #address-cells = #size-cells = 2. */
	KT_ASSERT_EQ(fdt_reg(&f, mem, 0, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x80000000ull && s == 0x40000000ull);
	KT_ASSERT_EQ(fdt_reg(&f, mem, 1, &a, &s), FDT_OK);
	KT_ASSERT_MSG(a == 0x880000000ull && s == 0x100000000ull, "reg[1] = %#llx+%#llx",
		      (unsigned long long)a, (unsigned long long)s);
	a = s = 7;
	KT_ASSERT_EQ(fdt_reg(&f, mem, 2, &a, &s), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_reg(&f, mem, -1, &a, &s), FDT_ENOTFOUND);
	KT_ASSERT(a == 7 && s == 7);
	KT_ASSERT_EQ(fdt_reg(&f, gic, 0, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x2c001000ull && s == 0x1000ull);
	KT_ASSERT_EQ(fdt_reg(&f, gic, 1, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x2c002000ull && s == 0x2000ull);
	/* 1 and 1 under the soc. */
	KT_ASSERT_EQ(fdt_reg(&f, uart, 0, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x1c090000ull && s == 0x1000ull);
	KT_ASSERT_EQ(fdt_reg(&f, timer, 1, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x1c120000ull && s == 0x1000ull);
	KT_ASSERT_EQ(fdt_reg(&f, timer, 2, &a, &s), FDT_ENOTFOUND);
	/* No reg. */
	KT_ASSERT_EQ(fdt_reg(&f, soc, 0, &a, &s), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_reg(&f, fdt_root(&f), 0, &a, &s), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_reg(&f, -1, 0, &a, &s), FDT_ENOTFOUND);
	blob_free(&b);
}

KT_CASE(fixture_interrupts_and_phandles)
{
	struct blob b;
	struct fdt f;
	int gic, uart0, uart1, timer, bad;
	uint32_t irq, v;

	OPEN_FIXTURE(f, b);
	gic = fdt_path(&f, "/interrupt-controller@2c001000");
	uart0 = fdt_path(&f, "/soc/serial@1c090000");
	uart1 = fdt_path(&f, "/soc/serial@1c0a0000");
	timer = fdt_path(&f, "/soc/timer@1c110000");
	bad = fdt_path(&f, "/bad-irqs");
	KT_ASSERT(gic >= 0 && uart0 >= 0 && uart1 >= 0 && timer >= 0 && bad >= 0);
	/* Phandles: explicit, dtc-assigned, linux,phandle, and the reserved values. */
	KT_ASSERT_EQ(fdt_prop_u32(&f, gic, "phandle", &v), FDT_OK);
	KT_ASSERT_EQ(v, 0x8001);
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, 0x8001), gic);
	KT_ASSERT_EQ(fdt_prop_u32(&f, fdt_root(&f), "interrupt-parent", &v), FDT_OK);
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, v), gic);
	KT_ASSERT_EQ(fdt_prop_u32(&f, timer, "interrupt-parent", &v), FDT_OK);
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, v), fdt_path(&f, "/interrupt-controller@2d000000"));
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, 0x77), fdt_path(&f, "/linux-ph"));
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, 0x4242), -1);
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, 0), -1);
	KT_ASSERT_EQ(fdt_node_by_phandle(&f, 0xffffffffu), -1);
	KT_ASSERT(fdt_has_prop(&f, gic, "interrupt-controller"));
	KT_ASSERT_EQ(fdt_prop_u32(&f, gic, "#interrupt-cells", &v), FDT_OK);
	KT_ASSERT_EQ(v, 3);
	/* Interrupt parent inherited from the root: SPI n -> 32 + n, PPI n -> 16 + n. */
	irq = 0;
	KT_ASSERT_EQ(fdt_irq(&f, uart0, 0, &irq), FDT_OK);
	KT_ASSERT_EQ(irq, 37);
	KT_ASSERT_EQ(fdt_irq(&f, uart0, 1, &irq), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_irq(&f, uart1, 0, &irq), FDT_OK);
	KT_ASSERT_EQ(irq, 38);
	KT_ASSERT_EQ(fdt_irq(&f, uart1, 1, &irq), FDT_OK);
	KT_ASSERT_EQ(irq, 25);
	KT_ASSERT_EQ(fdt_irq(&f, uart1, 2, &irq), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_irq(&f, uart1, -1, &irq), FDT_ENOTFOUND);
	/* The node's own interrupt-parent has #interrupt-cells = 2: not a GIC. */
	KT_ASSERT_EQ(fdt_irq(&f, timer, 0, &irq), FDT_EBADVALUE);
	/* Range checks on the interrupt number and type. */
	KT_ASSERT_EQ(fdt_irq(&f, bad, 0, &irq), FDT_OK);
	KT_ASSERT_EQ(irq, 1019);
	irq = 12345;
	KT_ASSERT_EQ(fdt_irq(&f, bad, 1, &irq), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_irq(&f, bad, 2, &irq), FDT_OK);
	KT_ASSERT_EQ(irq, 31);
	irq = 12345;
	KT_ASSERT_EQ(fdt_irq(&f, bad, 3, &irq), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_irq(&f, bad, 4, &irq), FDT_EBADVALUE);
	KT_ASSERT_EQ(irq, 12345);
	KT_ASSERT_EQ(fdt_irq(&f, bad, 5, &irq), FDT_ENOTFOUND);
	/* No interrupts property. */
	KT_ASSERT_EQ(fdt_irq(&f, gic, 0, &irq), FDT_ENOTFOUND);
	KT_ASSERT_EQ(fdt_irq(&f, -1, 0, &irq), FDT_ENOTFOUND);
	blob_free(&b);
}

KT_CASE(fixture_find_compatible)
{
	static const char *const primecells[] = {
		"/soc/serial@1c090000", "/soc/serial@1c0a0000", "/soc/timer@1c110000",
	};
	struct blob b;
	struct fdt f;
	int n, i = 0;

	OPEN_FIXTURE(f, b);
	for (n = fdt_find_compatible(&f, -1, "arm,primecell"); n >= 0;
	     n = fdt_find_compatible(&f, n, "arm,primecell")) {
		KT_ASSERT(i < 3);
		KT_ASSERT_EQ(n, fdt_path(&f, primecells[i]));
		i++;
	}
	KT_ASSERT_EQ(i, 3);
	KT_ASSERT_EQ(fdt_find_compatible(&f, -1, "ktest,board"), fdt_root(&f));
	KT_ASSERT_EQ(fdt_find_compatible(&f, fdt_root(&f), "ktest,board"), -1);
	KT_ASSERT_EQ(fdt_find_compatible(&f, -1, "arm,cortex-a9-gic"),
		     fdt_path(&f, "/interrupt-controller@2c001000"));
	KT_ASSERT_EQ(fdt_find_compatible(&f, -1, "arm,cortex-a7"), fdt_path(&f, "/cpus/cpu@100"));
	KT_ASSERT_EQ(fdt_find_compatible(&f, fdt_path(&f, "/cpus/cpu@100"), "arm,cortex-a7"),
		     fdt_path(&f, "/cpus/cpu@101"));
	KT_ASSERT_EQ(fdt_find_compatible(&f, -1, "arm,primecel"), -1);
	KT_ASSERT_EQ(fdt_find_compatible(&f, -1, "nope"), -1);
	blob_free(&b);
}

KT_CASE(fixture_reserved_map)
{
	struct blob b;
	struct fdt f;
	uint64_t a = 0, s = 0;

	OPEN_FIXTURE(f, b);
	KT_ASSERT(fdt_reserved(&f, 0, &a, &s));
	KT_ASSERT(a == 0x80000000ull && s == 0x10000ull);
	KT_ASSERT(fdt_reserved(&f, 1, &a, &s));
	KT_ASSERT(a == 0x1234567800000000ull && s == 0x2000ull);
	KT_ASSERT(!fdt_reserved(&f, 2, &a, &s));
	KT_ASSERT(!fdt_reserved(&f, 3, &a, &s));
	KT_ASSERT(!fdt_reserved(&f, -1, &a, &s));
	blob_free(&b);
}

/* Any offset at all, aligned or not, inside the struct block or past it. */
KT_CASE(fixture_accessors_at_every_offset)
{
	struct blob b;
	struct fdt f;
	uint64_t a, s;
	uint32_t v;
	int len;

	OPEN_FIXTURE(f, b);
	for (int off = -8; off <= (int)f.size_struct + 8; off++) {
		const char *name = fdt_node_name(&f, off);
		const void *p = fdt_getprop(&f, off, "reg", &len);
		const char *str = fdt_prop_string(&f, off, "compatible");

		KT_ASSERT_MSG(name[0] == '\0' || in_struct(&f, name, strlen(name) + 1),
			      "name at %d outside the struct block", off);
		KT_ASSERT_MSG(!p || in_struct(&f, p, (size_t)len), "reg at %d outside", off);
		KT_ASSERT_MSG(!str || in_struct(&f, str, strlen(str) + 1), "string at %d outside", off);
		(void)fdt_first_child(&f, off);
		(void)fdt_next_sibling(&f, off);
		(void)fdt_next_node(&f, off);
		(void)fdt_parent(&f, off);
		(void)fdt_subnode(&f, off, "cpu");
		(void)fdt_prop_u32(&f, off, "phandle", &v);
		(void)fdt_prop_cell(&f, off, "reg", 1, &v);
		(void)fdt_is_compatible(&f, off, "arm,pl011");
		(void)fdt_node_enabled(&f, off);
		(void)fdt_reg(&f, off, 0, &a, &s);
		(void)fdt_irq(&f, off, 0, &v);
		(void)fdt_find_compatible(&f, off, "arm,pl011");
		/* Offsets that are not tokens are never nodes to fdt_parent. */
		if (off < 0 || off >= (int)f.size_struct)
			KT_ASSERT_EQ(fdt_parent(&f, off), -1);
	}
	blob_free(&b);
}

KT_CASE(fixture_walk_all)
{
	struct blob b;
	struct fdt f;
	struct walk_stats ws;
	const char *why;

	OPEN_FIXTURE(f, b);
	why = walk_all(&f, &ws);
	KT_ASSERT_MSG(!why, "%s", why);
	KT_ASSERT_EQ(ws.nodes, NR_FIXTURE_NODES);
	blob_free(&b);
}

/* ------------------------------------------------ misc. pure functions */

KT_CASE(read_cells_and_strerror)
{
	static const uint8_t c[8] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0 };

	KT_ASSERT(fdt_read_cells(c, 0) == 0);
	KT_ASSERT(fdt_read_cells(c, 1) == 0x12345678ull);
	KT_ASSERT(fdt_read_cells(c, 2) == 0x123456789abcdef0ull);
	KT_ASSERT(fdt_read_cells(c + 4, 1) == 0x9abcdef0ull);
	KT_ASSERT_STREQ(fdt_strerror(FDT_OK), "ok");
	KT_ASSERT_STREQ(fdt_strerror(FDT_EBADMAGIC), "bad magic");
	KT_ASSERT_STREQ(fdt_strerror(FDT_EBADHEADER), "bad header");
	KT_ASSERT_STREQ(fdt_strerror(FDT_EBADVERSION), "unsupported version");
	KT_ASSERT_STREQ(fdt_strerror(FDT_EBADSTRUCT), "malformed structure block");
	KT_ASSERT_STREQ(fdt_strerror(FDT_EBADSTRING), "bad string");
	KT_ASSERT_STREQ(fdt_strerror(FDT_ETOODEEP), "nested too deep");
	KT_ASSERT_STREQ(fdt_strerror(FDT_ENOTFOUND), "not found");
	KT_ASSERT_STREQ(fdt_strerror(FDT_EBADVALUE), "bad property value");
	KT_ASSERT_STREQ(fdt_strerror(-9), "unknown error");
	KT_ASSERT_STREQ(fdt_strerror(1), "unknown error");
}

/* ----------------------------------------- in-memory shapes dtc won't make */

KT_CASE(built_reg_cell_edge_cases)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	uint64_t a = 0, s = 0;
	int n;

	fb_init(&fb);
	fb_begin(&fb, "");
	FB_CELLS(&fb, "#address-cells", 1);
	FB_CELLS(&fb, "#size-cells", 1);
	fb_begin(&fb, "bad-reg");			/* 12 bytes, entry is 8 */
	FB_CELLS(&fb, "reg", 1, 2, 3);
	fb_end_node(&fb);
	fb_begin(&fb, "defaults");			/* no #cells: 2 and 1 */
	fb_begin(&fb, "item@1000");
	FB_CELLS(&fb, "reg", 0x0, 0x1000, 0x10, 0x1, 0x2000, 0x20);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "wide");				/* 3 address cells */
	FB_CELLS(&fb, "#address-cells", 3);
	FB_CELLS(&fb, "#size-cells", 1);
	fb_begin(&fb, "x");
	FB_CELLS(&fb, "reg", 1, 2, 3, 4);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "huge");				/* #size-cells > 4 */
	FB_CELLS(&fb, "#address-cells", 1);
	FB_CELLS(&fb, "#size-cells", 5);
	fb_begin(&fb, "y");
	FB_CELLS(&fb, "reg", 1, 2);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "noaddr");			/* #address-cells = 0 */
	FB_CELLS(&fb, "#address-cells", 0);
	FB_CELLS(&fb, "#size-cells", 1);
	fb_begin(&fb, "z");
	FB_CELLS(&fb, "reg", 5);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "nosize");			/* #size-cells = 0 */
	FB_CELLS(&fb, "#address-cells", 1);
	FB_CELLS(&fb, "#size-cells", 0);
	fb_begin(&fb, "w");
	FB_CELLS(&fb, "reg", 7, 8);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "badcells");			/* 8-byte #address-cells: default */
	FB_CELLS(&fb, "#address-cells", 1, 1);
	fb_begin(&fb, "v");
	FB_CELLS(&fb, "reg", 0, 0x40, 0x4);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	b = fb_blob(&fb);
	KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);

	KT_ASSERT_EQ(fdt_reg(&f, fdt_path(&f, "/bad-reg"), 0, &a, &s), FDT_EBADVALUE);
	n = fdt_path(&f, "/defaults/item");
	KT_ASSERT(n >= 0);
	KT_ASSERT_EQ(fdt_reg(&f, n, 0, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x1000 && s == 0x10);
	KT_ASSERT_EQ(fdt_reg(&f, n, 1, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x100002000ull && s == 0x20);
	KT_ASSERT_EQ(fdt_address_cells(&f, fdt_path(&f, "/wide")), 3);
	KT_ASSERT_EQ(fdt_reg(&f, fdt_path(&f, "/wide/x"), 0, &a, &s), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_size_cells(&f, fdt_path(&f, "/huge")), -1);
	KT_ASSERT_EQ(fdt_reg(&f, fdt_path(&f, "/huge/y"), 0, &a, &s), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_reg(&f, fdt_path(&f, "/noaddr/z"), 0, &a, &s), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_reg(&f, fdt_path(&f, "/nosize/w"), 1, &a, &s), FDT_OK);
	KT_ASSERT(a == 8 && s == 0);
	KT_ASSERT_EQ(fdt_address_cells(&f, fdt_path(&f, "/badcells")), 2);
	KT_ASSERT_EQ(fdt_reg(&f, fdt_path(&f, "/badcells/v"), 0, &a, &s), FDT_OK);
	KT_ASSERT(a == 0x40 && s == 4);
	blob_free(&b);
}

KT_CASE(built_interrupt_parent_edge_cases)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	uint32_t irq = 0;

	fb_init(&fb);
	fb_begin(&fb, "");
	FB_CELLS(&fb, "interrupt-parent", 1);
	fb_begin(&fb, "gic");
	FB_CELLS(&fb, "phandle", 1);
	FB_CELLS(&fb, "#interrupt-cells", 3);
	fb_end_node(&fb);
	fb_begin(&fb, "cellless");
	FB_CELLS(&fb, "phandle", 2);
	fb_end_node(&fb);
	fb_begin(&fb, "short-irqs");			/* 8 bytes, entry is 12 */
	FB_CELLS(&fb, "interrupts", 0, 1);
	fb_end_node(&fb);
	fb_begin(&fb, "orphan");			/* dangling phandle */
	FB_CELLS(&fb, "interrupt-parent", 0x4242);
	FB_CELLS(&fb, "interrupts", 0, 1, 4);
	fb_end_node(&fb);
	fb_begin(&fb, "no-cells-parent");		/* parent without #interrupt-cells */
	FB_CELLS(&fb, "interrupt-parent", 2);
	FB_CELLS(&fb, "interrupts", 0, 1, 4);
	fb_end_node(&fb);
	fb_begin(&fb, "bus");				/* inherited from the bus */
	FB_CELLS(&fb, "interrupt-parent", 1);
	fb_begin(&fb, "dev");
	FB_CELLS(&fb, "interrupts", 1, 14, 8);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	b = fb_blob(&fb);
	KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
	KT_ASSERT_EQ(fdt_irq(&f, fdt_path(&f, "/short-irqs"), 0, &irq), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_irq(&f, fdt_path(&f, "/orphan"), 0, &irq), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_irq(&f, fdt_path(&f, "/no-cells-parent"), 0, &irq), FDT_EBADVALUE);
	KT_ASSERT_EQ(fdt_irq(&f, fdt_path(&f, "/bus/dev"), 0, &irq), FDT_OK);
	KT_ASSERT_EQ(irq, 30);
	blob_free(&b);
}

/* NOPs may appear anywhere between tokens; every walker skips them. */
KT_CASE(built_nops_are_skipped)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	int root, n1, n2;
	uint32_t v = 0;

	fb_init(&fb);
	fb_u32(&fb, TOK_NOP);
	fb_begin(&fb, "");
	fb_u32(&fb, TOK_NOP);
	FB_CELLS(&fb, "first", 1);
	fb_u32(&fb, TOK_NOP);
	fb_u32(&fb, TOK_NOP);
	FB_CELLS(&fb, "second", 2);
	fb_u32(&fb, TOK_NOP);
	fb_begin(&fb, "n1");
	fb_u32(&fb, TOK_NOP);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_NOP);
	fb_begin(&fb, "n2");
	FB_CELLS(&fb, "third", 3);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_NOP);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_NOP);
	fb_u32(&fb, TOK_END);
	b = fb_blob(&fb);
	KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
	root = fdt_root(&f);
	KT_ASSERT_EQ(root, 4);
	KT_ASSERT_EQ(fdt_prop_u32(&f, root, "second", &v), FDT_OK);
	KT_ASSERT_EQ(v, 2);
	n1 = fdt_first_child(&f, root);
	KT_ASSERT_STREQ(fdt_node_name(&f, n1), "n1");
	KT_ASSERT_EQ(fdt_first_child(&f, n1), -1);
	n2 = fdt_next_sibling(&f, n1);
	KT_ASSERT_STREQ(fdt_node_name(&f, n2), "n2");
	KT_ASSERT_EQ(fdt_next_sibling(&f, n2), -1);
	KT_ASSERT_EQ(fdt_next_node(&f, root), n1);
	KT_ASSERT_EQ(fdt_next_node(&f, n1), n2);
	KT_ASSERT_EQ(fdt_next_node(&f, n2), -1);
	KT_ASSERT_EQ(fdt_parent(&f, n2), root);
	KT_ASSERT_EQ(fdt_prop_u32(&f, n2, "third", &v), FDT_OK);
	KT_ASSERT_EQ(v, 3);
	KT_ASSERT_EQ(fdt_path(&f, "/n2"), n2);
	blob_free(&b);
}

static void fb_nested(struct fb *b, int depth)
{
	fb_init(b);
	fb_begin(b, "");
	for (int i = 1; i < depth; i++)
		fb_begin(b, "n");
	FB_CELLS(b, "deepest", 0x1234);
	for (int i = 0; i < depth; i++)
		fb_end_node(b);
	fb_u32(b, TOK_END);
}

KT_CASE(built_nesting_limit)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	char path[2 * FDT_MAX_DEPTH + 2] = "";
	int n, prev = -1, depth = 0;
	uint32_t v = 0;

	/* Exactly FDT_MAX_DEPTH levels, root included: accepted and walkable. */
	fb_nested(&fb, FDT_MAX_DEPTH);
	b = fb_blob(&fb);
	KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
	for (n = fdt_root(&f); n >= 0; n = fdt_next_node(&f, n)) {
		KT_ASSERT_EQ(fdt_parent(&f, n), prev);
		prev = n;
		depth++;
	}
	KT_ASSERT_EQ(depth, FDT_MAX_DEPTH);
	for (int i = 1; i < FDT_MAX_DEPTH; i++)
		strcat(path, "/n");
	n = fdt_path(&f, path);
	KT_ASSERT_EQ(n, prev);
	KT_ASSERT_EQ(fdt_prop_u32(&f, n, "deepest", &v), FDT_OK);
	KT_ASSERT_EQ(v, 0x1234);
	blob_free(&b);

	/* One more: FDT_ETOODEEP at the 33rd BEGIN_NODE (struct offset 8 * 32). */
	fb_nested(&fb, FDT_MAX_DEPTH + 1);
	b = fb_blob(&fb);
	KT_ASSERT_EQ(fdt_open(&f, b.p, b.n), FDT_ETOODEEP);
	KT_ASSERT_STREQ(f.err, "nodes nested deeper than 32 at struct offset 0x100");
	blob_free(&b);
}

KT_CASE(built_boot_cpuid_and_rsvmap)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	uint64_t a = 0, s = 0;

	fb_minimal(&fb);
	fb.nrsv = 1;
	fb.rsv[0][0] = 0xfedcba9876543210ull;
	fb.rsv[0][1] = 0x1000;
	b = fb_blob(&fb);
	put_be32(b.p + H_BOOT_CPUID, 0x101);
	KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
	KT_ASSERT_EQ(f.boot_cpuid, 0x101);
	KT_ASSERT(fdt_reserved(&f, 0, &a, &s));
	KT_ASSERT(a == 0xfedcba9876543210ull && s == 0x1000);
	KT_ASSERT(!fdt_reserved(&f, 1, &a, &s));
	blob_free(&b);
}

/*
 * Version 16 headers have no size_dt_struct; dtc -V 16 lays the blob out as
 * header | rsvmap | struct | strings like version 17. Such a blob is valid.
 */
KT_CASE(built_version16_blob_opens)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	int rc;

	fb_minimal(&fb);
	fb.version = 16;
	b = fb_blob(&fb);
	put_be32(b.p + H_SIZE_STRUCT, 0);	/* not a v16 field */
	rc = fdt_open(&f, b.p, b.n);
	if (rc != FDT_OK)
		blob_free(&b);
	KT_ASSERT_MSG(rc == FDT_OK, "v16 blob rejected: %d %s", rc, f.err);
	KT_ASSERT(fdt_is_compatible(&f, fdt_root(&f), "x"));
	blob_free(&b);
}

/* ---------------------------------------------------------- corruption */

/* Open a copy of @b of exactly @n bytes (n <= b->n); returns fdt_open's code. */
static int open_copy(const struct blob *b, size_t n, struct fdt *f)
{
	struct blob c = blob_copy(b->p, n);
	int rc = fdt_open(f, c.p, n);

	blob_free(&c);
	return rc;
}

/* A failed fdt_open leaves an fdt on which every accessor reports "none". */
static const char *check_dead(struct fdt *f)
{
	uint64_t a, s;
	uint32_t v;

	if (f->totalsize != 0)
		return "totalsize not cleared";
	if (fdt_root(f) != -1 || fdt_path(f, "/") != -1 || fdt_next_node(f, 0) != -1)
		return "a failed fdt still has nodes";
	if (fdt_getprop(f, 0, "compatible", NULL) || fdt_prop_u32(f, 0, "x", &v) != FDT_ENOTFOUND)
		return "a failed fdt still has properties";
	if (fdt_reserved(f, 0, &a, &s) || fdt_find_compatible(f, -1, "x") != -1)
		return "a failed fdt still has reservations or compatibles";
	return NULL;
}

#define EXPECT_OPEN_FAIL(blobp, code, msg)                                   \
	do {                                                                 \
		struct fdt f_;                                               \
		int rc_ = open_copy((blobp), (blobp)->n, &f_);                \
		const char *dead_;                                           \
		KT_ASSERT_MSG(rc_ == (code), "fdt_open() == %d (%s), expected %d", rc_, f_.err, (code)); \
		KT_ASSERT_STREQ(f_.err, (msg));                               \
		dead_ = check_dead(&f_);                                     \
		KT_ASSERT_MSG(!dead_, "%s", dead_);                           \
	} while (0)

KT_CASE(corrupt_header)
{
	struct fb fb;
	struct blob good, b;
	struct fdt f;
	char msg[160];
	uint32_t total;

	fb_minimal(&fb);
	good = fb_blob(&fb);
	total = (uint32_t)good.n;
	KT_ASSERT_EQ(total, 40 + 16 + 0x20 + 11);	/* "compatible\0" */
	KT_ASSERT_MSG(open_copy(&good, good.n, &f) == FDT_OK, "%s", f.err);

	/* Magic. */
	b = blob_copy(good.p, good.n);
	put_be32(b.p + H_MAGIC, 0x12345678);
	EXPECT_OPEN_FAIL(&b, FDT_EBADMAGIC, "bad magic 0x12345678 (expected 0xd00dfeed)");
	put_be32(b.p + H_MAGIC, 0xedfe0dd0);	/* little-endian */
	EXPECT_OPEN_FAIL(&b, FDT_EBADMAGIC, "bad magic 0xedfe0dd0 (expected 0xd00dfeed)");
	blob_free(&b);

	/* Fewer bytes than a header. */
	KT_ASSERT_EQ(open_copy(&good, 35, &f), FDT_EBADHEADER);
	KT_ASSERT_STREQ(f.err, "only 35 bytes available, less than a DTB header");
	KT_ASSERT_EQ(open_copy(&good, 0, &f), FDT_EBADHEADER);
	KT_ASSERT_STREQ(f.err, "only 0 bytes available, less than a DTB header");

	/* totalsize larger than the buffer. */
	KT_ASSERT_EQ(open_copy(&good, good.n - 1, &f), FDT_EBADHEADER);
	snprintf(msg, sizeof(msg), "totalsize 0x%x exceeds the 0x%x bytes available", total, total - 1);
	KT_ASSERT_STREQ(f.err, msg);
	b = blob_copy(good.p, good.n);
	put_be32(b.p + H_TOTALSIZE, 0xffffffffu);
	snprintf(msg, sizeof(msg), "totalsize 0xffffffff exceeds the 0x%x bytes available", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);

	/* totalsize smaller than the header. */
	put_be32(b.p + H_TOTALSIZE, 39);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, "totalsize 0x27 is smaller than the 0x28-byte header");
	put_be32(b.p + H_TOTALSIZE, 0);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, "totalsize 0x0 is smaller than the 0x28-byte header");
	put_be32(b.p + H_TOTALSIZE, total);

	/* Versions. */
	put_be32(b.p + H_VERSION, 15);
	EXPECT_OPEN_FAIL(&b, FDT_EBADVERSION, "unsupported version 15 (last compatible 16); need 16 or 17");
	put_be32(b.p + H_VERSION, 17);
	put_be32(b.p + H_LAST_COMP, 18);
	EXPECT_OPEN_FAIL(&b, FDT_EBADVERSION, "unsupported version 17 (last compatible 18); need 16 or 17");
	put_be32(b.p + H_LAST_COMP, 16);
	blob_free(&b);

	/* Struct block: before the header's end, past totalsize, too long, misaligned. */
	b = blob_copy(good.p, good.n);
	put_be32(b.p + H_OFF_STRUCT, 0x24);
	snprintf(msg, sizeof(msg), "struct block 0x24+0x20 lies outside totalsize 0x%x", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_STRUCT, total + 4);
	snprintf(msg, sizeof(msg), "struct block 0x%x+0x20 lies outside totalsize 0x%x", total + 4, total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_STRUCT, 0x38);
	put_be32(b.p + H_SIZE_STRUCT, total - 0x38 + 1);
	snprintf(msg, sizeof(msg), "struct block 0x38+0x%x lies outside totalsize 0x%x", total - 0x38 + 1, total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_SIZE_STRUCT, 0xfffffff0u);	/* would wrap a 32-bit sum */
	snprintf(msg, sizeof(msg), "struct block 0x38+0xfffffff0 lies outside totalsize 0x%x", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_SIZE_STRUCT, 0x20);
	put_be32(b.p + H_OFF_STRUCT, 0x3a);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, "struct block offset 0x3a is not 4-byte aligned");
	blob_free(&b);

	/* Strings block. */
	b = blob_copy(good.p, good.n);
	put_be32(b.p + H_OFF_STRINGS, total + 1);
	snprintf(msg, sizeof(msg), "strings block 0x%x+0xb lies outside totalsize 0x%x", total + 1, total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_STRINGS, 0x10);
	snprintf(msg, sizeof(msg), "strings block 0x10+0xb lies outside totalsize 0x%x", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_STRINGS, 0x58);
	put_be32(b.p + H_SIZE_STRINGS, 0xc);
	snprintf(msg, sizeof(msg), "strings block 0x58+0xc lies outside totalsize 0x%x", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_SIZE_STRINGS, 0xffffffffu);
	snprintf(msg, sizeof(msg), "strings block 0x58+0xffffffff lies outside totalsize 0x%x", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	blob_free(&b);

	/* Reservation map: in the header, past the end, misaligned, unterminated. */
	b = blob_copy(good.p, good.n);
	put_be32(b.p + H_OFF_RSVMAP, 0x20);
	snprintf(msg, sizeof(msg), "memory reservation map offset 0x20 is outside totalsize 0x%x or misaligned", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_RSVMAP, 0x2c);
	snprintf(msg, sizeof(msg), "memory reservation map offset 0x2c is outside totalsize 0x%x or misaligned", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_RSVMAP, (total + 8) & ~7u);
	snprintf(msg, sizeof(msg), "memory reservation map offset 0x%x is outside totalsize 0x%x or misaligned",
		 (total + 8) & ~7u, total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	put_be32(b.p + H_OFF_RSVMAP, 0x28);
	b.p[0x28 + 15] = 1;	/* the terminator becomes a 1-byte reservation at 0 */
	snprintf(msg, sizeof(msg), "memory reservation map at 0x28 is not terminated inside totalsize 0x%x", total);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, msg);
	blob_free(&b);

	/* A version-16 header is 36 bytes: totalsize 39 passes that check. */
	b = blob_copy(good.p, good.n);
	put_be32(b.p + H_VERSION, 16);
	put_be32(b.p + H_TOTALSIZE, 35);
	EXPECT_OPEN_FAIL(&b, FDT_EBADHEADER, "totalsize 0x23 is smaller than the 0x24-byte header");
	blob_free(&b);
	blob_free(&good);
}

/* Build a blob whose struct block is exactly @words (big-endian words). */
static struct blob struct_blob(const uint32_t *words, int n, const char *strs, uint32_t strl)
{
	struct fb fb;

	fb_init(&fb);
	for (int i = 0; i < n; i++)
		fb_u32(&fb, words[i]);
	memcpy(fb.strs, strs, strl);
	fb.strl = strl;
	return fb_blob(&fb);
}

#define STRUCT_BLOB(strs, ...)                                               \
	struct_blob((uint32_t[]){ __VA_ARGS__ },                            \
		    (int)(sizeof((uint32_t[]){ __VA_ARGS__ }) / 4), strs, sizeof(strs))

KT_CASE(corrupt_struct_tokens)
{
	struct blob b;
	struct fb fb;

	/* Unknown token right after the root's BEGIN_NODE. */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, 5, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "bad token 0x00000005 at struct offset 0x8");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, 0xd00dfeed, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "bad token 0xd00dfeed at struct offset 0x8");
	blob_free(&b);

	/* Missing FDT_END. */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_END_NODE);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "structure block ends at offset 0xc without FDT_END");
	blob_free(&b);
	/* Empty struct block. */
	b = struct_blob(NULL, 0, "p", 2);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "structure block ends at offset 0x0 without FDT_END");
	blob_free(&b);

	/* Junk after FDT_END (inside size_dt_struct). */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_END_NODE, TOK_END, 0);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "0x4 bytes after FDT_END in the struct block");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_END_NODE, TOK_END, TOK_BEGIN, 0, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "0x10 bytes after FDT_END in the struct block");
	blob_free(&b);

	/* Unbalanced nesting. */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_END_NODE, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "FDT_END_NODE without a node at struct offset 0xc");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "FDT_END_NODE without a node at struct offset 0x0");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_BEGIN, 0x61000000, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "FDT_END at struct offset 0x14 inside 1 open node(s)");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_BEGIN, 0x61000000, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "FDT_END at struct offset 0x10 inside 2 open node(s)");
	blob_free(&b);

	/* No root, two roots, property outside a node. */
	b = STRUCT_BLOB("p", TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "no root node");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_NOP, TOK_NOP, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "no root node");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_END_NODE, TOK_BEGIN, 0, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "second root node at struct offset 0xc");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_PROP, 0, 0, TOK_BEGIN, 0, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "property outside any node at struct offset 0x0");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_END_NODE, TOK_PROP, 0, 0, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "property outside any node at struct offset 0xc");
	blob_free(&b);

	/* Node name not terminated inside the struct block (strings follow it). */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_BEGIN, 0x61626364);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT,
			 "node name at struct offset 0x8 is not terminated inside the struct block");
	blob_free(&b);
	/* Name ends inside, but its padding does not fit. */
	fb_init(&fb);
	fb_u32(&fb, TOK_BEGIN);
	fb_u32(&fb, 0);
	fb_u32(&fb, TOK_BEGIN);
	fb_raw(&fb, "a", 2, false);	/* size_dt_struct = 14 */
	memcpy(fb.strs, "p", 2);
	fb.strl = 2;
	b = fb_blob(&fb);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "node name padding at struct offset 0x8 runs past the struct block");
	blob_free(&b);
}

KT_CASE(corrupt_properties)
{
	struct blob b;

	/* Property header cut by the struct block's end. */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_PROP, 0);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "property header at struct offset 0x8 runs past the struct block");
	blob_free(&b);
	/* Length one past the struct block (0x18 bytes follow the property header). */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_PROP, 0x19, 0, 0, 0, 0, 0, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT,
			 "property length 0x19 at struct offset 0x8 runs past struct block end 0x2c");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_PROP, 0xfffffff8u, 0, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT,
			 "property length 0xfffffff8 at struct offset 0x8 runs past struct block end 0x1c");
	blob_free(&b);
	/* Exactly fitting length (the value swallows END_NODE/END): then no FDT_END. */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_PROP, 8, 0, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRUCT, "structure block ends at offset 0x1c without FDT_END");
	blob_free(&b);
	/* Name offset past the strings block ("p\0" is 2 bytes). */
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_PROP, 0, 2, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRING,
			 "property name offset 0x2 at struct offset 0x8 is outside the 0x2-byte strings block");
	blob_free(&b);
	b = STRUCT_BLOB("p", TOK_BEGIN, 0, TOK_PROP, 0, 0x80000000u, TOK_END_NODE, TOK_END);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRING,
			 "property name offset 0x80000000 at struct offset 0x8 is outside the 0x2-byte strings block");
	blob_free(&b);
	/* Name not terminated inside the strings block. */
	b = struct_blob((uint32_t[]){ TOK_BEGIN, 0, TOK_PROP, 0, 2, TOK_END_NODE, TOK_END }, 7,
			"p\0abc", 5);
	EXPECT_OPEN_FAIL(&b, FDT_EBADSTRING,
			 "property name at strings offset 0x2 is not terminated inside the strings block");
	blob_free(&b);
	/* ...while the same blob with the NUL is fine. */
	b = struct_blob((uint32_t[]){ TOK_BEGIN, 0, TOK_PROP, 0, 2, TOK_END_NODE, TOK_END }, 7,
			"p\0abc", 6);
	{
		struct fdt f;

		KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
		KT_ASSERT(fdt_has_prop(&f, fdt_root(&f), "abc"));
	}
	blob_free(&b);
}

/* A failed open followed by a good one on the same struct fdt: clean state. */
KT_CASE(reopen_after_failure)
{
	struct fb fb;
	struct blob good, bad;
	struct fdt f;

	fb_minimal(&fb);
	good = fb_blob(&fb);
	bad = blob_copy(good.p, good.n);
	put_be32(bad.p + H_MAGIC, 0);
	KT_ASSERT_EQ(fdt_open(&f, bad.p, bad.n), FDT_EBADMAGIC);
	KT_ASSERT_STREQ(f.err, "bad magic 0x00000000 (expected 0xd00dfeed)");
	KT_ASSERT_EQ(fdt_open(&f, good.p, good.n), FDT_OK);
	KT_ASSERT_STREQ(f.err, "");
	KT_ASSERT(fdt_is_compatible(&f, fdt_root(&f), "x"));
	KT_ASSERT_EQ(fdt_open(&f, bad.p, bad.n), FDT_EBADMAGIC);
	KT_ASSERT(!check_dead(&f));
	blob_free(&bad);
	blob_free(&good);
}

/*
 * Truncate the fixture at every length: the buffer is exactly n bytes.
 * (a) Unpatched header: totalsize exceeds what is available.
 * (b) totalsize patched to n: the strings block (last) no longer fits.
 * (c) size_dt_struct patched to every shorter length: no FDT_END.
 * (d) size_dt_strings patched to every shorter length: the last name loses
 *     its NUL (or its offset falls outside).
 */
KT_CASE(corrupt_truncation_every_length)
{
	struct blob b;
	struct fdt f;
	char msg[128];

	OPEN_FIXTURE(f, b);
	KT_ASSERT_EQ(f.off_strings + f.size_strings, f.totalsize);
	KT_ASSERT(f.off_struct + f.size_struct <= f.off_strings);
	for (size_t n = 0; n < b.n; n++) {
		struct blob c = blob_copy(b.p, n);
		struct fdt g;
		int rc = fdt_open(&g, c.p, n);

		if (n < 36)
			snprintf(msg, sizeof(msg), "only %u bytes available, less than a DTB header", (unsigned)n);
		else
			snprintf(msg, sizeof(msg), "totalsize 0x%x exceeds the 0x%x bytes available",
				 (unsigned)b.n, (unsigned)n);
		KT_ASSERT_MSG(rc == FDT_EBADHEADER && strcmp(g.err, msg) == 0,
			      "truncated to %zu: %d '%s'", n, rc, g.err);
		if (n >= 8) {
			struct walk_stats ws;

			put_be32(c.p + H_TOTALSIZE, (uint32_t)n);
			rc = fdt_open(&g, c.p, n);
			KT_ASSERT_MSG(rc < 0 && rc >= FDT_ETOODEEP && g.err[0],
				      "totalsize %zu accepted or unnamed: %d '%s'", n, rc, g.err);
			if (rc == FDT_OK) {
				const char *why = walk_all(&g, &ws);

				KT_ASSERT_MSG(!why, "totalsize %zu: %s", n, why);
			}
		}
		blob_free(&c);
	}
	for (uint32_t k = 0; k < f.size_struct; k++) {
		struct blob c = blob_copy(b.p, b.n);
		struct fdt g;
		int rc;

		put_be32(c.p + H_SIZE_STRUCT, k);
		rc = fdt_open(&g, c.p, c.n);
		KT_ASSERT_MSG(rc == FDT_EBADSTRUCT, "size_dt_struct %u: %d '%s'", k, rc, g.err);
		blob_free(&c);
	}
	for (uint32_t k = 0; k < f.size_strings; k++) {
		struct blob c = blob_copy(b.p, b.n);
		struct fdt g;
		int rc;

		put_be32(c.p + H_SIZE_STRINGS, k);
		rc = fdt_open(&g, c.p, c.n);
		KT_ASSERT_MSG(rc == FDT_EBADSTRING, "size_dt_strings %u: %d '%s'", k, rc, g.err);
		blob_free(&c);
	}
	blob_free(&b);
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/*
 * Random bit flips over the fixture. Accepted blobs are copied into a
 * buffer of exactly their (possibly flipped) totalsize, reopened and walked
 * completely, so a read outside [0, totalsize) is an ASan error.
 */
KT_CASE(corrupt_random_bit_flips)
{
	struct blob b;
	struct fdt f;
	int accepted = 0, rejected = 0;

	OPEN_FIXTURE(f, b);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (int it = 0; it < 5000; it++) {
		struct blob c = blob_copy(b.p, b.n);
		struct fdt g;
		int flips = 1 + (int)(rng() % 4), rc;

		for (int i = 0; i < flips; i++) {
			size_t bit = rng() % (8 * c.n);

			c.p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		rc = fdt_open(&g, c.p, c.n);
		if (rc == FDT_OK) {
			struct blob exact = blob_copy(c.p, g.totalsize);
			struct walk_stats ws;
			const char *why;

			rc = fdt_open(&g, exact.p, exact.n);
			KT_ASSERT_MSG(rc == FDT_OK, "iteration %d: reopen at totalsize failed: %s", it, g.err);
			why = walk_all(&g, &ws);
			KT_ASSERT_MSG(!why, "iteration %d: %s", it, why);
			KT_ASSERT(ws.nodes >= 1);
			accepted++;
			blob_free(&exact);
		} else {
			KT_ASSERT_MSG(rc >= FDT_ETOODEEP && rc <= FDT_EBADMAGIC && g.err[0],
				      "iteration %d: code %d, message '%s'", it, rc, g.err);
			KT_ASSERT_MSG(!check_dead(&g), "iteration %d: %s", it, check_dead(&g));
			rejected++;
		}
		blob_free(&c);
	}
	/* Both paths were exercised. */
	KT_ASSERT_MSG(accepted > 300 && rejected > 300, "accepted %d, rejected %d", accepted, rejected);
	printf("# bit flips: %d accepted, %d rejected\n", accepted, rejected);
	blob_free(&b);
}

/* A random well-formed tree: nodes, cell and string properties, NOPs. */
static void fb_random_tree(struct fb *b, int depth, int *budget)
{
	static const char *const names[] = { "compatible", "reg", "interrupts", "status",
					     "phandle", "#address-cells", "#size-cells",
					     "#interrupt-cells", "interrupt-parent", "cpu" };
	static const char *const strvals[] = { "okay", "disabled", "arm,pl011", "" };
	int nprops = (int)(rng() % 4), nkids = depth < 6 ? (int)(rng() % 3) : 0;

	for (int i = 0; i < nprops && *budget > 0; i++, (*budget)--) {
		const char *name = names[rng() % 10];

		if (rng() % 4 == 0) {
			fb_prop_str(b, name, strvals[rng() % 4]);
		} else {
			uint32_t cells[6];
			int n = (int)(rng() % 7);

			for (int k = 0; k < n; k++)
				cells[k] = rng() % 3 ? (uint32_t)(rng() % 5) : (uint32_t)rng();
			fb_prop_cells(b, name, n, cells);
		}
		if (rng() % 8 == 0)
			fb_u32(b, TOK_NOP);
	}
	for (int i = 0; i < nkids && *budget > 0; i++, (*budget)--) {
		static const char *const nodes[] = { "cpus", "cpu@0", "cpu", "soc", "n@1", "" };

		fb_begin(b, nodes[rng() % 6]);
		fb_random_tree(b, depth + 1, budget);
		fb_end_node(b);
	}
}

/*
 * Random trees, most with one word of the struct block replaced by a token
 * value or a random word: fdt_open must reject them or walk them safely.
 */
KT_CASE(corrupt_random_trees)
{
	static const uint32_t pick[] = { TOK_BEGIN, TOK_END_NODE, TOK_PROP, TOK_NOP,
					 TOK_END, 0, 1, 4, 8, 0xffffffffu };
	int accepted = 0, rejected = 0;

	rng_state = 12345;
	for (int it = 0; it < 3000; it++) {
		struct fb fb;
		struct blob c;
		struct fdt g;
		int budget = 40;

		fb_init(&fb);
		fb_begin(&fb, "");
		fb_random_tree(&fb, 1, &budget);
		fb_end_node(&fb);
		fb_u32(&fb, TOK_END);
		if (it % 4) {
			uint32_t w = (uint32_t)(rng() % (fb.sl / 4));
			uint64_t r = rng();

			put_be32(fb.st + 4 * w, r & 1 ? pick[(r >> 1) % 10] : (uint32_t)(r >> 32));
		}
		c = fb_blob(&fb);
		if (fdt_open(&g, c.p, c.n) == FDT_OK) {
			struct walk_stats ws;
			const char *why = walk_all(&g, &ws);

			KT_ASSERT_MSG(!why, "iteration %d: %s", it, why);
			accepted++;
		} else {
			KT_ASSERT_MSG(it % 4, "iteration %d: an uncorrupted tree was rejected: %s", it, g.err);
			rejected++;
		}
		blob_free(&c);
	}
	KT_ASSERT_MSG(accepted > 750 && rejected > 300, "accepted %d, rejected %d", accepted, rejected);
	printf("# random trees: %d accepted, %d rejected\n", accepted, rejected);
}

/* --------------------------------------------------------- board DTBs */

struct board_want {
	const char *name;
	int cpus;
	int clusters;
	int cluster_size[2];
};

static const struct board_want boards[] = {
	{ "vexpress-a9", 4, 1, { 4, 0 } },
	{ "vexpress-a15", 4, 2, { 2, 2 } },
	{ "qemu-tc2", 5, 2, { 2, 3 } },
	{ "tc2", 5, 2, { 2, 3 } },
};

/* build/<board>/<board>.dtb if current, else compiled from boards/<board>/ now. */
static int load_board(const char *name, struct blob *out, char *src, size_t srclen)
{
	char dtb[PATH_MAX + 64], dts[PATH_MAX + 64], inc[PATH_MAX + 32];

	snprintf(dtb, sizeof(dtb), "%s/build/%s/%s.dtb", root_dir(), name, name);
	snprintf(dts, sizeof(dts), "%s/boards/%s/%s.dts", root_dir(), name, name);
	snprintf(inc, sizeof(inc), "%s/boards/common", root_dir());
	if (mtime_of(dtb) && (mtime_of(dtb) >= mtime_of(dts) || !have_dtc()) && read_whole(dtb, out)) {
		snprintf(src, srclen, "%s", dtb);
		return 1;
	}
	if (dtc_compile(dts, inc, out)) {
		snprintf(src, srclen, "dtc %s", dts);
		return 1;
	}
	return have_dtc() ? -1 : 0;
}

KT_CASE(board_dtbs_cpus_and_clusters)
{
	int checked = 0;

	for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		const struct board_want *w = &boards[i];
		struct blob b;
		struct fdt f;
		char src[2 * PATH_MAX];
		int got = load_board(w->name, &b, src, sizeof(src)), rc, cpus, map, ncpu = 0, ncl = 0;
		int cpu_nodes[8];
		struct walk_stats ws;
		const char *why;

		if (got == 0) {
			printf("# skip %s: no build/%s/%s.dtb and no dtc\n", w->name, w->name, w->name);
			continue;
		}
		KT_ASSERT_MSG(got > 0, "%s: dtc failed on boards/%s/%s.dts", w->name, w->name, w->name);
		rc = fdt_open(&f, b.p, b.n);
		KT_ASSERT_MSG(rc == FDT_OK, "%s (%s): %s", w->name, src, f.err);
		cpus = fdt_path(&f, "/cpus");
		KT_ASSERT_MSG(cpus >= 0, "%s: no /cpus", w->name);
		for (int n = fdt_first_child(&f, cpus); n >= 0; n = fdt_next_sibling(&f, n)) {
			const char *type = fdt_prop_string(&f, n, "device_type");
			uint64_t reg, size;

			if (!type || strcmp(type, "cpu") != 0 || !fdt_node_enabled(&f, n))
				continue;
			KT_ASSERT_MSG(ncpu < 8, "%s: too many CPUs", w->name);
			KT_ASSERT_MSG(fdt_reg(&f, n, 0, &reg, &size) == FDT_OK, "%s: %s has no reg",
				      w->name, fdt_node_name(&f, n));
			cpu_nodes[ncpu++] = n;
		}
		KT_ASSERT_MSG(ncpu == w->cpus, "%s: %d CPUs, expected %d", w->name, ncpu, w->cpus);
		/* cpu-map: clusters of cores, each naming a distinct cpu node. */
		map = fdt_path(&f, "/cpus/cpu-map");
		KT_ASSERT_MSG(map >= 0, "%s: no cpu-map", w->name);
		{
			int seen[8] = { 0 }, total = 0;

			for (int c = fdt_first_child(&f, map); c >= 0; c = fdt_next_sibling(&f, c), ncl++) {
				int cores = 0;

				KT_ASSERT_MSG(ncl < w->clusters, "%s: more than %d clusters", w->name, w->clusters);
				for (int k = fdt_first_child(&f, c); k >= 0; k = fdt_next_sibling(&f, k)) {
					uint32_t ph;
					int node, idx = -1;

					KT_ASSERT_EQ(fdt_prop_u32(&f, k, "cpu", &ph), FDT_OK);
					node = fdt_node_by_phandle(&f, ph);
					for (int j = 0; j < ncpu; j++)
						if (cpu_nodes[j] == node)
							idx = j;
					KT_ASSERT_MSG(idx >= 0, "%s: core %s names no cpu node", w->name,
						      fdt_node_name(&f, k));
					KT_ASSERT_MSG(!seen[idx]++, "%s: cpu %d in cpu-map twice", w->name, idx);
					cores++;
				}
				KT_ASSERT_MSG(cores == w->cluster_size[ncl], "%s: cluster %d has %d cores, expected %d",
					      w->name, ncl, cores, w->cluster_size[ncl]);
				total += cores;
			}
			KT_ASSERT_EQ(ncl, w->clusters);
			KT_ASSERT_EQ(total, ncpu);
		}
		/* The rest of what boot uses: memory, chosen, a PL011 with a GIC SPI. */
		{
			int uart = fdt_find_compatible(&f, -1, "arm,pl011");
			uint32_t irq = 0;
			uint64_t base = 0, size = 0;
			int mem = fdt_path(&f, "/memory");

			KT_ASSERT_MSG(mem >= 0 && fdt_reg(&f, mem, 0, &base, &size) == FDT_OK && size > 0,
				      "%s: no usable /memory", w->name);
			KT_ASSERT_MSG(fdt_prop_string(&f, fdt_path(&f, "/chosen"), "stdout-path") != NULL,
				      "%s: no /chosen/stdout-path", w->name);
			KT_ASSERT_MSG(uart >= 0 && fdt_irq(&f, uart, 0, &irq) == FDT_OK && irq >= 32,
				      "%s: PL011 interrupt", w->name);
		}
		why = walk_all(&f, &ws);
		KT_ASSERT_MSG(!why, "%s: %s", w->name, why);
		printf("# %s: %d CPUs in %d cluster(s) from %s\n", w->name, ncpu, ncl, src);
		blob_free(&b);
		checked++;
	}
	if (!checked)
		printf("# skip: no board DTB could be loaded\n");
}

/* ------------------------------------------------ standard resolution (kernel/lib/fdt_addr.c) */

/*
 * Linux's own DTBs of the boards, from Debian's linux-image-*-armmp
 * (build/outside/linux-dtbs, `make outside`): what the kernel needs from each.
 */
KT_CASE(linux_dts_resolve_console_gic_sysreg_timer)
{
	static const struct {
		const char *name, *uart_path;
		uint64_t uart, sysreg, gicd;
		uint32_t timer_irq;
		const char *timer;
		int timer_index;
	} dts[] = {
		{ "vexpress-v2p-ca9", "/bus@40000000/motherboard-bus@40000000/iofpga@7,00000000/uart@9000",
		  0x10009000, 0x10000000, 0x1e001000, 29, "arm,cortex-a9-twd-timer", 0 },
		{ "vexpress-v2p-ca15-tc1", "/bus@8000000/motherboard-bus@8000000/iofpga-bus@300000000/serial@90000",
		  0x1c090000, 0x1c010000, 0x2c001000, 27, "arm,armv7-timer", 2 },
		{ "vexpress-v2p-ca15_a7", "/bus@8000000/motherboard-bus@8000000/iofpga-bus@300000000/serial@90000",
		  0x1c090000, 0x1c010000, 0x2c001000, 27, "arm,armv7-timer", 2 },
	};

	for (size_t i = 0; i < sizeof(dts) / sizeof(dts[0]); i++) {
		char path[PATH_MAX + 64], node_path[256];
		struct blob b;
		struct fdt f;
		struct fdt_fault fault;
		uint64_t addr, size;
		uint32_t irq = 0;
		int uart, node;

		snprintf(path, sizeof(path), "%s/build/outside/linux-dtbs/%s.dtb", root_dir(), dts[i].name);
		KT_ASSERT_MSG(read_whole(path, &b), "%s missing: make outside (tools/outside-inputs.sh) unpacks it", path);
		KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s: %s", dts[i].name, f.err);
		/* stdout-path (a path, "serial0:38400n8", or none: then the serial0 alias). */
		uart = fdt_stdout_node(&f, &fault);
		if (uart == FDT_ENOTFOUND)
			uart = fdt_alias(&f, "serial0");
		KT_ASSERT_MSG(uart >= 0, "%s: no console", dts[i].name);
		KT_ASSERT(fdt_is_compatible(&f, uart, "arm,pl011"));
		KT_ASSERT_MSG(fdt_reg_phys(&f, uart, 0, &addr, &size, &fault) == FDT_OK, "%s: %s: %s", dts[i].name,
			      fault.prop, fault.what);
		KT_ASSERT_MSG(addr == dts[i].uart && size == 0x1000, "%s: uart at 0x%llx", dts[i].name,
			      (unsigned long long)addr);
		KT_ASSERT_MSG(fdt_irq_fault(&f, uart, 0, &irq, &fault) == FDT_OK, "%s: %s: %s", dts[i].name, fault.prop,
			      fault.what);
		KT_ASSERT_EQ(irq, 37);	/* SPI 5 through the motherboard's interrupt-map */
		if (dts[i].uart_path) {
			KT_ASSERT(fdt_node_path(&f, uart, node_path, sizeof(node_path)) > 0);
			KT_ASSERT_MSG(strcmp(node_path, dts[i].uart_path) == 0, "%s", node_path);
			KT_ASSERT_EQ(fdt_path(&f, node_path), uart);
		}
		node = fdt_find_compatible(&f, -1, "arm,vexpress-sysreg");
		KT_ASSERT(node >= 0 && fdt_reg_phys(&f, node, 0, &addr, &size, &fault) == FDT_OK);
		KT_ASSERT_EQ(addr, dts[i].sysreg);
		node = fdt_find_compatible(&f, -1, "arm,cortex-a9-gic");
		KT_ASSERT(node >= 0 && fdt_reg_phys(&f, node, 0, &addr, &size, &fault) == FDT_OK);
		KT_ASSERT_EQ(addr, dts[i].gicd);
		node = fdt_find_compatible(&f, -1, dts[i].timer);
		KT_ASSERT(node >= 0 && fdt_irq_fault(&f, node, dts[i].timer_index, &irq, &fault) == FDT_OK);
		KT_ASSERT_EQ(irq, dts[i].timer_irq);
		/* A cpu's reg is no CPU address: /cpus has no ranges. */
		KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_cpu_node(&f, 0), 0, &addr, &size, &fault), FDT_ENOTFOUND);
		KT_ASSERT(strcmp(fault.prop, "ranges") == 0 && fault.node == fdt_path(&f, "/cpus"));
		blob_free(&b);
	}
}

/* One blob per stdout-path form: path, alias with options, phandle, and what names nothing. */
KT_CASE(built_stdout_path_forms)
{
	static const struct {
		const char *str;	/* NULL: the phandle form */
		uint32_t phandle;
		int want_uart;		/* 1: uart@1000, 2: uart@2000, 0: a fault */
		const char *what;
	} forms[] = {
		{ "/uart@2000", 0, 2, NULL },
		{ "/uart@2000:115200n8", 0, 2, NULL },
		{ "serial1:38400n8", 0, 1, NULL },
		{ "serial1", 0, 1, NULL },
		{ NULL, 7, 2, NULL },
		{ NULL, 9, 0, "phandle 0x9 names no node" },
		{ "serial9", 0, 0, "\"serial9\" is no alias of /aliases naming a node" },
		{ "/nowhere", 0, 0, "\"/nowhere\" names no node" },
		{ ":9600", 0, 0, "\":9600\": no path or alias before the options" },
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct fb fb;
		struct blob b;
		struct fdt f;
		struct fdt_fault fault = { 0 };
		int rc;

		fb_init(&fb);
		fb_begin(&fb, "");
		FB_CELLS(&fb, "#address-cells", 1);
		FB_CELLS(&fb, "#size-cells", 1);
		fb_begin(&fb, "chosen");
		if (forms[i].str)
			fb_prop_str(&fb, "stdout-path", forms[i].str);
		else
			FB_CELLS(&fb, "stdout-path", forms[i].phandle);
		fb_end_node(&fb);
		fb_begin(&fb, "aliases");
		fb_prop_str(&fb, "serial1", "/uart@1000");
		fb_end_node(&fb);
		fb_begin(&fb, "uart@1000");
		FB_CELLS(&fb, "reg", 0x1000, 0x100);
		fb_end_node(&fb);
		fb_begin(&fb, "uart@2000");
		FB_CELLS(&fb, "reg", 0x2000, 0x100);
		FB_CELLS(&fb, "phandle", 7);
		fb_end_node(&fb);
		fb_end_node(&fb);
		fb_u32(&fb, TOK_END);
		b = fb_blob(&fb);
		KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
		rc = fdt_stdout_node(&f, &fault);
		if (forms[i].want_uart) {
			KT_ASSERT_MSG(rc == fdt_path(&f, forms[i].want_uart == 1 ? "/uart@1000" : "/uart@2000"),
				      "form %zu: %d", i, rc);
		} else {
			KT_ASSERT_MSG(rc == FDT_EBADVALUE, "form %zu: %d", i, rc);
			KT_ASSERT(fault.node == fdt_path(&f, "/chosen") && strcmp(fault.prop, "stdout-path") == 0);
			KT_ASSERT_MSG(strcmp(fault.what, forms[i].what) == 0, "form %zu: %s", i, fault.what);
		}
		blob_free(&b);
	}
}

/* ranges: nested translation, identity, a bus without ranges, an address no entry covers, a bad length. */
KT_CASE(built_ranges_translation)
{
	struct fb fb;
	struct blob b;
	struct fdt f;
	struct fdt_fault fault;
	uint64_t addr, size;
	char path[64];

	fb_init(&fb);
	fb_begin(&fb, "");
	FB_CELLS(&fb, "#address-cells", 2);
	FB_CELLS(&fb, "#size-cells", 2);
	fb_begin(&fb, "bus");				/* child 1 cell -> parent 2 cells */
	FB_CELLS(&fb, "#address-cells", 2);
	FB_CELLS(&fb, "#size-cells", 1);
	FB_CELLS(&fb, "ranges", 3, 0, 0, 0x1c000000, 0x4000000);
	fb_begin(&fb, "sub");				/* chip-select 3 space -> 1 cell */
	FB_CELLS(&fb, "#address-cells", 1);
	FB_CELLS(&fb, "#size-cells", 1);
	FB_CELLS(&fb, "ranges", 0, 3, 0, 0x200000);
	fb_begin(&fb, "dev@90000");
	FB_CELLS(&fb, "reg", 0x90000, 0x1000);
	fb_end_node(&fb);
	fb_begin(&fb, "far@300000");			/* outside sub's 2 MiB window */
	FB_CELLS(&fb, "reg", 0x300000, 0x1000);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "ident");				/* empty ranges: identity */
	FB_CELLS(&fb, "#address-cells", 2);
	FB_CELLS(&fb, "#size-cells", 1);
	fb_prop(&fb, "ranges", "", 0);
	fb_begin(&fb, "x");
	FB_CELLS(&fb, "reg", 0, 0x2c001000, 0x1000);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "noranges");
	FB_CELLS(&fb, "#address-cells", 1);
	FB_CELLS(&fb, "#size-cells", 1);
	fb_begin(&fb, "y");
	FB_CELLS(&fb, "reg", 0x10, 0x10);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_begin(&fb, "badranges");
	FB_CELLS(&fb, "#address-cells", 1);
	FB_CELLS(&fb, "#size-cells", 1);
	FB_CELLS(&fb, "ranges", 0, 0, 0);		/* 12 bytes; entries are 16 */
	fb_begin(&fb, "z");
	FB_CELLS(&fb, "reg", 0x10, 0x10);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_end_node(&fb);
	fb_u32(&fb, TOK_END);
	b = fb_blob(&fb);
	KT_ASSERT_MSG(fdt_open(&f, b.p, b.n) == FDT_OK, "%s", f.err);
	KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_path(&f, "/bus/sub/dev@90000"), 0, &addr, &size, &fault), FDT_OK);
	KT_ASSERT_EQ(addr, 0x1c090000);
	KT_ASSERT_EQ(size, 0x1000);
	KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_path(&f, "/bus/ident/x"), 0, &addr, &size, &fault), FDT_EBADVALUE);
	KT_ASSERT(fault.node == fdt_path(&f, "/bus") && strcmp(fault.prop, "ranges") == 0);
	KT_ASSERT_MSG(strcmp(fault.what, "no entry covers 0x2c001000 of /bus/ident/x") == 0, "%s", fault.what);
	KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_path(&f, "/bus/sub/far@300000"), 0, &addr, &size, &fault), FDT_EBADVALUE);
	KT_ASSERT(fault.node == fdt_path(&f, "/bus/sub"));
	KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_path(&f, "/noranges/y"), 0, &addr, &size, &fault), FDT_ENOTFOUND);
	KT_ASSERT_MSG(strcmp(fault.what, "missing, so 0x10 of /noranges/y is not a CPU address") == 0, "%s", fault.what);
	KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_path(&f, "/badranges/z"), 0, &addr, &size, &fault), FDT_EBADVALUE);
	KT_ASSERT_MSG(strcmp(fault.what, "12 bytes is not a whole number of 4-cell (child 1, parent 2, size 1) entries") == 0,
		      "%s", fault.what);
	KT_ASSERT_EQ(fdt_reg_phys(&f, fdt_path(&f, "/bus/sub/dev@90000"), 1, &addr, &size, &fault), FDT_ENOTFOUND);
	KT_ASSERT_MSG(strcmp(fault.prop, "reg") == 0 && strcmp(fault.what, "entry 1 needed, 1 present") == 0, "%s",
		      fault.what);
	KT_ASSERT_EQ(fdt_node_path(&f, fdt_path(&f, "/bus/sub/dev@90000"), path, sizeof(path)), 18);
	KT_ASSERT(strcmp(path, "/bus/sub/dev@90000") == 0);
	KT_ASSERT_EQ(fdt_node_path(&f, fdt_root(&f), path, sizeof(path)), 1);
	KT_ASSERT_EQ(fdt_node_path(&f, fdt_path(&f, "/bus/sub/dev@90000"), path, 8), -1);
	blob_free(&b);
}
