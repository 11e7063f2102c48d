/*
 * Bounds-checked FDT reader; the contract is in include/kernel/lib/fdt.h.
 *
 * fdt_open() validates everything once (header, reservation map, every
 * structure token, every name and string offset). The accessors then walk
 * a blob known to be well formed, but still go through the same checked
 * token decoder (next_token), so a bug here cannot read outside the blob.
 */
#include "kernel/lib/format.h"
#include "kernel/lib/fdt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FDT_BEGIN_NODE 1u
#define FDT_END_NODE   2u
#define FDT_PROP       3u
#define FDT_NOP        4u
#define FDT_END        9u

#define HDR_SIZE_V16 36u	/* up to and including size_dt_strings */
#define HDR_SIZE_V17 40u

static uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

uint64_t fdt_read_cells(const void *p, int ncells)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int i = 0; i < ncells; i++)
		v = (v << 32) | be32(b + 4 * i);
	return v;
}

static int fail(struct fdt *fdt, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct fdt *fdt, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(fdt->err, sizeof(fdt->err), fmt, ap);
	va_end(ap);
	return code;
}

/* Length of the NUL-terminated string at [p, p+max), or -1 if unterminated. */
static int bounded_strlen(const uint8_t *p, uint32_t max)
{
	const void *nul = memchr(p, '\0', max);

	return nul ? (int)((const uint8_t *)nul - p) : -1;
}

/*
 * One decoded token of the structure block. For BEGIN_NODE, name; for PROP,
 * name (from the strings block), value and len. next = offset of the
 * following token.
 */
struct token {
	uint32_t tag;
	uint32_t off, next;
	const char *name;
	const uint8_t *value;
	uint32_t len;
};

/* Decode the token at @off. Returns 0, or an FDT_E* code with fdt->err set. */
static int decode(const struct fdt *fdt_c, uint32_t off, struct token *t)
{
	struct fdt *fdt = (struct fdt *)fdt_c;	/* only err is written */
	const uint8_t *s = fdt->blob + fdt->off_struct;
	uint32_t end = fdt->size_struct;

	t->off = off;
	t->name = NULL;
	t->value = NULL;
	t->len = 0;
	if (off > end || end - off < 4)
		return fail(fdt, FDT_EBADSTRUCT, "structure block ends at offset 0x%x without FDT_END",
			    (unsigned)off);
	t->tag = be32(s + off);
	switch (t->tag) {
	case FDT_BEGIN_NODE: {
		int n = bounded_strlen(s + off + 4, end - off - 4);

		if (n < 0)
			return fail(fdt, FDT_EBADSTRUCT,
				    "node name at struct offset 0x%x is not terminated inside the struct block",
				    (unsigned)off);
		t->name = (const char *)(s + off + 4);
		t->next = (off + 4 + (uint32_t)n + 1 + 3) & ~3u;
		if (t->next > end)
			return fail(fdt, FDT_EBADSTRUCT, "node name padding at struct offset 0x%x runs past the struct block",
				    (unsigned)off);
		return FDT_OK;
	}
	case FDT_PROP: {
		uint32_t nameoff;
		int n;

		if (end - off < 12)
			return fail(fdt, FDT_EBADSTRUCT, "property header at struct offset 0x%x runs past the struct block",
				    (unsigned)off);
		t->len = be32(s + off + 4);
		nameoff = be32(s + off + 8);
		if (t->len > end - off - 12)
			return fail(fdt, FDT_EBADSTRUCT,
				    "property length 0x%x at struct offset 0x%x runs past struct block end 0x%x",
				    (unsigned)t->len, (unsigned)off, (unsigned)end);
		if (nameoff >= fdt->size_strings)
			return fail(fdt, FDT_EBADSTRING,
				    "property name offset 0x%x at struct offset 0x%x is outside the 0x%x-byte strings block",
				    (unsigned)nameoff, (unsigned)off, (unsigned)fdt->size_strings);
		n = bounded_strlen(fdt->blob + fdt->off_strings + nameoff, fdt->size_strings - nameoff);
		if (n < 0)
			return fail(fdt, FDT_EBADSTRING,
				    "property name at strings offset 0x%x is not terminated inside the strings block",
				    (unsigned)nameoff);
		t->name = (const char *)(fdt->blob + fdt->off_strings + nameoff);
		t->value = s + off + 12;
		t->next = (off + 12 + t->len + 3) & ~3u;
		if (t->next > end)
			t->next = end;	/* last property: padding may be cut */
		return FDT_OK;
	}
	case FDT_END_NODE:
	case FDT_NOP:
	case FDT_END:
		t->next = off + 4;
		return FDT_OK;
	default:
		return fail(fdt, FDT_EBADSTRUCT, "bad token 0x%08x at struct offset 0x%x",
			    (unsigned)t->tag, (unsigned)off);
	}
}

static int check_header(struct fdt *fdt, const uint8_t *b, size_t max_size)
{
	uint32_t version, last_comp, hdr;

	if (max_size < HDR_SIZE_V16)
		return fail(fdt, FDT_EBADHEADER, "only %u bytes available, less than a DTB header",
			    (unsigned)max_size);
	if (be32(b) != FDT_MAGIC)
		return fail(fdt, FDT_EBADMAGIC, "bad magic 0x%08x (expected 0xd00dfeed)", (unsigned)be32(b));
	fdt->totalsize = be32(b + 4);
	fdt->off_struct = be32(b + 8);
	fdt->off_strings = be32(b + 12);
	fdt->off_rsvmap = be32(b + 16);
	version = be32(b + 20);
	last_comp = be32(b + 24);
	fdt->boot_cpuid = be32(b + 28);
	fdt->size_strings = be32(b + 32);
	if (fdt->totalsize > max_size)
		return fail(fdt, FDT_EBADHEADER, "totalsize 0x%x exceeds the 0x%x bytes available",
			    (unsigned)fdt->totalsize, (unsigned)max_size);
	if (version < 16 || last_comp > 17)
		return fail(fdt, FDT_EBADVERSION, "unsupported version %u (last compatible %u); need 16 or 17",
			    (unsigned)version, (unsigned)last_comp);
	hdr = version >= 17 ? HDR_SIZE_V17 : HDR_SIZE_V16;
	if (fdt->totalsize < hdr)
		return fail(fdt, FDT_EBADHEADER, "totalsize 0x%x is smaller than the 0x%x-byte header",
			    (unsigned)fdt->totalsize, (unsigned)hdr);
	if (version >= 17)
		fdt->size_struct = be32(b + 36);
	else if (fdt->off_struct <= fdt->totalsize)
		/* v16 has no size: bound the scan by what follows; FDT_END trims it. */
		fdt->size_struct = (fdt->off_strings > fdt->off_struct && fdt->off_strings <= fdt->totalsize ?
				    fdt->off_strings : fdt->totalsize) - fdt->off_struct;
	fdt->struct_size_known = version >= 17;
	if (fdt->off_struct < hdr || fdt->off_struct > fdt->totalsize ||
	    fdt->size_struct > fdt->totalsize - fdt->off_struct)
		return fail(fdt, FDT_EBADHEADER, "struct block 0x%x+0x%x lies outside totalsize 0x%x",
			    (unsigned)fdt->off_struct, (unsigned)fdt->size_struct, (unsigned)fdt->totalsize);
	if (fdt->off_struct & 3)
		return fail(fdt, FDT_EBADHEADER, "struct block offset 0x%x is not 4-byte aligned",
			    (unsigned)fdt->off_struct);
	if (fdt->off_strings < hdr || fdt->off_strings > fdt->totalsize ||
	    fdt->size_strings > fdt->totalsize - fdt->off_strings)
		return fail(fdt, FDT_EBADHEADER, "strings block 0x%x+0x%x lies outside totalsize 0x%x",
			    (unsigned)fdt->off_strings, (unsigned)fdt->size_strings, (unsigned)fdt->totalsize);
	if (fdt->off_rsvmap < hdr || fdt->off_rsvmap > fdt->totalsize || (fdt->off_rsvmap & 7))
		return fail(fdt, FDT_EBADHEADER, "memory reservation map offset 0x%x is outside totalsize 0x%x or misaligned",
			    (unsigned)fdt->off_rsvmap, (unsigned)fdt->totalsize);
	return FDT_OK;
}

static int check_rsvmap(struct fdt *fdt)
{
	for (uint32_t off = fdt->off_rsvmap;; off += 16) {
		if (fdt->totalsize - off < 16)
			return fail(fdt, FDT_EBADHEADER,
				    "memory reservation map at 0x%x is not terminated inside totalsize 0x%x",
				    (unsigned)fdt->off_rsvmap, (unsigned)fdt->totalsize);
		if (fdt_read_cells(fdt->blob + off, 2) == 0 && fdt_read_cells(fdt->blob + off + 8, 2) == 0)
			return FDT_OK;
	}
}

static int check_struct(struct fdt *fdt)
{
	struct token t;
	int depth = 0, roots = 0;
	uint32_t off = 0;

	for (;;) {
		int err = decode(fdt, off, &t);
		if (err)
			return err;
		switch (t.tag) {
		case FDT_BEGIN_NODE:
			if (depth == 0 && ++roots > 1)
				return fail(fdt, FDT_EBADSTRUCT, "second root node at struct offset 0x%x",
					    (unsigned)off);
			if (++depth > FDT_MAX_DEPTH)
				return fail(fdt, FDT_ETOODEEP, "nodes nested deeper than %d at struct offset 0x%x",
					    FDT_MAX_DEPTH, (unsigned)off);
			if (depth == 1 && t.name[0] != '\0')
				return fail(fdt, FDT_EBADSTRUCT, "root node at struct offset 0x%x has a name",
					    (unsigned)off);
			/* A '/' in a name would make two paths of one node (libfdt's included). */
			if (strchr(t.name, '/'))
				return fail(fdt, FDT_EBADSTRUCT, "node name at struct offset 0x%x contains '/'",
					    (unsigned)off);
			break;
		case FDT_END_NODE:
			if (depth-- == 0)
				return fail(fdt, FDT_EBADSTRUCT, "FDT_END_NODE without a node at struct offset 0x%x",
					    (unsigned)off);
			break;
		case FDT_PROP:
			if (depth == 0)
				return fail(fdt, FDT_EBADSTRUCT, "property outside any node at struct offset 0x%x",
					    (unsigned)off);
			break;
		case FDT_END:
			if (depth != 0)
				return fail(fdt, FDT_EBADSTRUCT, "FDT_END at struct offset 0x%x inside %d open node(s)",
					    (unsigned)off, depth);
			if (roots != 1)
				return fail(fdt, FDT_EBADSTRUCT, "no root node");
			if (!fdt->struct_size_known)
				fdt->size_struct = t.next;
			if (t.next != fdt->size_struct)
				return fail(fdt, FDT_EBADSTRUCT, "0x%x bytes after FDT_END in the struct block",
					    (unsigned)(fdt->size_struct - t.next));
			return FDT_OK;
		default:
			break;
		}
		off = t.next;
	}
}

int fdt_open(struct fdt *fdt, const void *blob, size_t max_size)
{
	int err;

	memset(fdt, 0, sizeof(*fdt));
	fdt->blob = blob;
	err = check_header(fdt, blob, max_size);
	if (!err)
		err = check_rsvmap(fdt);
	if (!err)
		err = check_struct(fdt);
	if (err)
		fdt->totalsize = 0;	/* unusable */
	return err;
}

const char *fdt_strerror(int err)
{
	switch (err) {
	case FDT_OK: return "ok";
	case FDT_EBADMAGIC: return "bad magic";
	case FDT_EBADHEADER: return "bad header";
	case FDT_EBADVERSION: return "unsupported version";
	case FDT_EBADSTRUCT: return "malformed structure block";
	case FDT_EBADSTRING: return "bad string";
	case FDT_ETOODEEP: return "nested too deep";
	case FDT_ENOTFOUND: return "not found";
	case FDT_EBADVALUE: return "bad property value";
	default: return "unknown error";
	}
}

/* ---------------------------------------------------------------- walking */

static bool tok(const struct fdt *fdt, uint32_t off, struct token *t)
{
	memset(t, 0, sizeof(*t));	/* defined contents even when decoding fails */
	return fdt->totalsize && decode(fdt, off, t) == FDT_OK;
}

/* Offset just past the node at @node (after its END_NODE), or -1. */
static int skip_node(const struct fdt *fdt, int node)
{
	struct token t;
	int depth = 0;
	uint32_t off = (uint32_t)node;

	while (tok(fdt, off, &t)) {
		if (t.tag == FDT_BEGIN_NODE)
			depth++;
		else if (t.tag == FDT_END_NODE && --depth == 0)
			return (int)t.next;
		else if (t.tag == FDT_END)
			return -1;
		off = t.next;
	}
	return -1;
}

/* First BEGIN_NODE at or after @off at the same level, skipping props/NOPs. */
static int node_at(const struct fdt *fdt, uint32_t off, bool stop_at_end_node)
{
	struct token t;

	while (tok(fdt, off, &t)) {
		if (t.tag == FDT_BEGIN_NODE)
			return (int)off;
		if (t.tag == FDT_END || (t.tag == FDT_END_NODE && stop_at_end_node))
			return -1;
		off = t.next;
	}
	return -1;
}

int fdt_root(const struct fdt *fdt)
{
	return node_at(fdt, 0, false);
}

int fdt_first_child(const struct fdt *fdt, int node)
{
	struct token t;

	if (node < 0 || !tok(fdt, (uint32_t)node, &t) || t.tag != FDT_BEGIN_NODE)
		return -1;
	return node_at(fdt, t.next, true);
}

int fdt_next_sibling(const struct fdt *fdt, int node)
{
	int after = node >= 0 ? skip_node(fdt, node) : -1;

	return after < 0 ? -1 : node_at(fdt, (uint32_t)after, true);
}

int fdt_next_node(const struct fdt *fdt, int node)
{
	struct token t;
	uint32_t off;

	if (node < 0 || !tok(fdt, (uint32_t)node, &t))
		return -1;
	for (off = t.next; tok(fdt, off, &t); off = t.next) {
		if (t.tag == FDT_BEGIN_NODE)
			return (int)off;
		if (t.tag == FDT_END)
			return -1;
	}
	return -1;
}

int fdt_parent(const struct fdt *fdt, int node)
{
	int stack[FDT_MAX_DEPTH + 1];
	int depth = 0;
	struct token t;
	uint32_t off = 0;

	while (tok(fdt, off, &t)) {
		if (t.tag == FDT_BEGIN_NODE) {
			if ((int)off == node)
				return depth ? stack[depth - 1] : -1;
			if (depth > FDT_MAX_DEPTH)
				return -1;
			stack[depth++] = (int)off;
		} else if (t.tag == FDT_END_NODE) {
			if (depth)
				depth--;
		} else if (t.tag == FDT_END) {
			break;
		}
		off = t.next;
	}
	return -1;
}

const char *fdt_node_name(const struct fdt *fdt, int node)
{
	struct token t;

	if (node < 0 || !tok(fdt, (uint32_t)node, &t) || t.tag != FDT_BEGIN_NODE)
		return "";
	return t.name;
}

static bool name_matches(const char *node_name, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(node_name, name, n) != 0)
		return false;
	return node_name[n] == '\0' || (node_name[n] == '@' && !strchr(name, '@'));
}

int fdt_subnode(const struct fdt *fdt, int node, const char *name)
{
	for (int c = fdt_first_child(fdt, node); c >= 0; c = fdt_next_sibling(fdt, c))
		if (name_matches(fdt_node_name(fdt, c), name))
			return c;
	return -1;
}

int fdt_path(const struct fdt *fdt, const char *path)
{
	int node = fdt_root(fdt);
	char part[64];

	if (!path || path[0] != '/')
		return -1;
	while (node >= 0 && *path) {
		size_t n;

		while (*path == '/')
			path++;
		if (!*path)
			break;
		n = strcspn(path, "/");
		if (n >= sizeof(part))
			return -1;
		memcpy(part, path, n);
		part[n] = '\0';
		node = fdt_subnode(fdt, node, part);
		path += n;
	}
	return node;
}

const void *fdt_getprop(const struct fdt *fdt, int node, const char *name, int *len)
{
	struct token t;
	uint32_t off;

	if (node < 0 || !tok(fdt, (uint32_t)node, &t) || t.tag != FDT_BEGIN_NODE)
		return NULL;
	for (off = t.next; tok(fdt, off, &t); off = t.next) {
		if (t.tag == FDT_PROP) {
			if (t.name && strcmp(t.name, name) == 0) {
				if (len)
					*len = (int)t.len;
				return t.value;
			}
		} else if (t.tag != FDT_NOP) {
			break;	/* properties precede subnodes */
		}
	}
	return NULL;
}

bool fdt_has_prop(const struct fdt *fdt, int node, const char *name)
{
	return fdt_getprop(fdt, node, name, NULL) != NULL;
}

int fdt_prop_cell(const struct fdt *fdt, int node, const char *name, int index, uint32_t *out)
{
	int len;
	const uint8_t *p = fdt_getprop(fdt, node, name, &len);

	if (!p)
		return FDT_ENOTFOUND;
	if (index < 0 || len % 4 || index >= len / 4)
		return FDT_EBADVALUE;
	*out = be32(p + 4 * index);
	return FDT_OK;
}

int fdt_prop_u32(const struct fdt *fdt, int node, const char *name, uint32_t *out)
{
	int len;
	const uint8_t *p = fdt_getprop(fdt, node, name, &len);

	if (!p)
		return FDT_ENOTFOUND;
	if (len != 4)
		return FDT_EBADVALUE;
	*out = be32(p);
	return FDT_OK;
}

const char *fdt_prop_string(const struct fdt *fdt, int node, const char *name)
{
	int len;
	const char *p = fdt_getprop(fdt, node, name, &len);

	if (!p || len <= 0 || memchr(p, '\0', (size_t)len) == NULL)
		return NULL;
	return p;
}

bool fdt_prop_list_contains(const struct fdt *fdt, int node, const char *name, const char *str)
{
	int len;
	const char *p = fdt_getprop(fdt, node, name, &len);
	size_t n = strlen(str);

	if (!p)
		return false;
	for (int i = 0; i < len;) {
		int l = bounded_strlen((const uint8_t *)p + i, (uint32_t)(len - i));

		if (l < 0)
			return false;
		if ((size_t)l == n && memcmp(p + i, str, n) == 0)
			return true;
		i += l + 1;
	}
	return false;
}

bool fdt_is_compatible(const struct fdt *fdt, int node, const char *compat)
{
	return fdt_prop_list_contains(fdt, node, "compatible", compat);
}

int fdt_find_compatible(const struct fdt *fdt, int from, const char *compat)
{
	int node = from < 0 ? fdt_root(fdt) : fdt_next_node(fdt, from);

	for (; node >= 0; node = fdt_next_node(fdt, node))
		if (fdt_is_compatible(fdt, node, compat))
			return node;
	return -1;
}

bool fdt_node_enabled(const struct fdt *fdt, int node)
{
	const char *status = fdt_prop_string(fdt, node, "status");

	return !status || strcmp(status, "okay") == 0 || strcmp(status, "ok") == 0;
}

/* The node's own phandle ("phandle" first, as the lookup reads it), or 0. */
static uint32_t node_phandle(const struct fdt *fdt, int node)
{
	uint32_t ph;

	if (fdt_prop_u32(fdt, node, "phandle", &ph) == 0 || fdt_prop_u32(fdt, node, "linux,phandle", &ph) == 0)
		return ph;
	return 0;
}

static bool phandle_before(const struct fdt_phandle *a, const struct fdt_phandle *b)
{
	return a->phandle < b->phandle || (a->phandle == b->phandle && a->node < b->node);
}

int fdt_index_phandles(struct fdt *fdt, struct fdt_phandle *buf, int cap)
{
	int n = 0;

	fdt->phandles = NULL;
	fdt->nr_phandles = 0;
	for (int node = fdt_root(fdt); node >= 0; node = fdt_next_node(fdt, node)) {
		uint32_t ph = node_phandle(fdt, node);

		if (ph == 0 || ph == 0xffffffffu)
			continue;
		if (n < cap)
			buf[n] = (struct fdt_phandle){ ph, node };
		n++;
	}
	if (n > cap)
		return n;
	/* Shell sort (no allocation, no recursion); ties by node: a duplicate resolves to the first in the tree. */
	for (int gap = n / 2; gap > 0; gap /= 2)
		for (int i = gap; i < n; i++) {
			struct fdt_phandle e = buf[i];
			int j = i;

			for (; j >= gap && phandle_before(&e, &buf[j - gap]); j -= gap)
				buf[j] = buf[j - gap];
			buf[j] = e;
		}
	fdt->phandles = buf;
	fdt->nr_phandles = n;
	return n;
}

int fdt_node_by_phandle(const struct fdt *fdt, uint32_t phandle)
{
	if (phandle == 0 || phandle == 0xffffffffu)
		return -1;
	if (fdt->phandles) {
		int lo = 0, hi = fdt->nr_phandles;	/* first entry >= phandle in [lo, hi) */

		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;

			if (fdt->phandles[mid].phandle < phandle)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < fdt->nr_phandles && fdt->phandles[lo].phandle == phandle ? fdt->phandles[lo].node : -1;
	}
	for (int node = fdt_root(fdt); node >= 0; node = fdt_next_node(fdt, node))
		if (node_phandle(fdt, node) == phandle)
			return node;
	return -1;
}

static int cells_prop(const struct fdt *fdt, int node, const char *name, int dflt)
{
	uint32_t v;

	if (node < 0 || fdt_prop_u32(fdt, node, name, &v) != 0)
		return dflt;
	return v > 4 ? -1 : (int)v;
}

int fdt_address_cells(const struct fdt *fdt, int node)
{
	return cells_prop(fdt, node, "#address-cells", 2);
}

int fdt_size_cells(const struct fdt *fdt, int node)
{
	return cells_prop(fdt, node, "#size-cells", 1);
}

int fdt_reg(const struct fdt *fdt, int node, int index, uint64_t *addr, uint64_t *size)
{
	return fdt_reg_under(fdt, fdt_parent(fdt, node), node, index, addr, size);
}

int fdt_reg_under(const struct fdt *fdt, int parent, int node, int index, uint64_t *addr, uint64_t *size)
{
	int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
	int len, entry;
	const uint8_t *p = fdt_getprop(fdt, node, "reg", &len);

	if (!p)
		return FDT_ENOTFOUND;
	if (ac < 1 || ac > 2 || sc < 0 || sc > 2)
		return FDT_EBADVALUE;
	entry = 4 * (ac + sc);
	if (len % entry)
		return FDT_EBADVALUE;
	if (index < 0 || index >= len / entry)
		return FDT_ENOTFOUND;
	p += index * entry;
	*addr = fdt_read_cells(p, ac);
	*size = sc ? fdt_read_cells(p + 4 * ac, sc) : 0;
	return FDT_OK;
}

bool fdt_reserved(const struct fdt *fdt, int index, uint64_t *addr, uint64_t *size)
{
	uint32_t off;

	if (!fdt->totalsize || index < 0)
		return false;
	off = fdt->off_rsvmap;
	for (int i = 0; i <= index; i++, off += 16) {
		if (fdt->totalsize - off < 16)
			return false;
		*addr = fdt_read_cells(fdt->blob + off, 2);
		*size = fdt_read_cells(fdt->blob + off + 8, 2);
		if (*addr == 0 && *size == 0)
			return false;
	}
	return true;
}

static bool is_enabled_cpu(const struct fdt *fdt, int node)
{
	const char *type = fdt_prop_string(fdt, node, "device_type");

	return type && strcmp(type, "cpu") == 0 && fdt_node_enabled(fdt, node);
}

/* @n or the first enabled cpu node among its later siblings, or -1. */
static int enabled_cpu_from(const struct fdt *fdt, int n)
{
	while (n >= 0 && !is_enabled_cpu(fdt, n))
		n = fdt_next_sibling(fdt, n);
	return n;
}

int fdt_first_cpu_node(const struct fdt *fdt)
{
	int cpus = fdt_path(fdt, "/cpus");

	return cpus < 0 ? -1 : enabled_cpu_from(fdt, fdt_first_child(fdt, cpus));
}

int fdt_next_cpu_node(const struct fdt *fdt, int node)
{
	return node < 0 ? -1 : enabled_cpu_from(fdt, fdt_next_sibling(fdt, node));
}

int fdt_cpu_node(const struct fdt *fdt, int index)
{
	int n = index < 0 ? -1 : fdt_first_cpu_node(fdt);

	for (; n >= 0 && index > 0; index--)
		n = fdt_next_cpu_node(fdt, n);
	return n;
}
