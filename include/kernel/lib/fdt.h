/*
 * Bounds-checked flattened device tree (DTB) reader.
 *
 * Contract: fdt_open() validates the header and walks the whole structure
 * block once; it accepts a blob only if every token, name, property length
 * and string offset lies inside the blob, the nesting is balanced and no node
 * name holds a '/' (it would make two paths of one node) and the root has
 * no name. After a
 * successful fdt_open() the accessors below never read outside the blob, and
 * they still check every length they rely on. On failure fdt_open() returns a
 * negative FDT_E* code and fdt->err holds a one-line message naming the
 * problem and its offset (used verbatim in the boot panic line).
 *
 * Nodes are named by their offset in the structure block (>= 0); -1 means
 * "none". The reader never allocates and never writes to the blob.
 */
#ifndef KERNEL_FDT_H
#define KERNEL_FDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDT_MAGIC 0xd00dfeedu

enum {
	FDT_OK = 0,
	FDT_EBADMAGIC = -1,	/* not a DTB */
	FDT_EBADHEADER = -2,	/* header fields inconsistent / out of bounds */
	FDT_EBADVERSION = -3,	/* unsupported version (need last_comp <= 17) */
	FDT_EBADSTRUCT = -4,	/* malformed structure block */
	FDT_EBADSTRING = -5,	/* bad string offset / unterminated string */
	FDT_ETOODEEP = -6,	/* nesting deeper than FDT_MAX_DEPTH */
	FDT_ENOTFOUND = -7,	/* node or property absent */
	FDT_EBADVALUE = -8,	/* property present but of the wrong size/form */
};

#define FDT_MAX_DEPTH 32

/* One entry of a phandle index (fdt_index_phandles()). */
struct fdt_phandle {
	uint32_t phandle;
	int node;
};

struct fdt {
	const uint8_t *blob;
	uint32_t totalsize;
	uint32_t off_struct, size_struct;
	uint32_t off_strings, size_strings;
	uint32_t off_rsvmap;
	uint32_t boot_cpuid;
	bool struct_size_known;	/* v17 header field; v16 ends at FDT_END */
	char err[128];		/* why fdt_open() failed */
	const struct fdt_phandle *phandles;	/* sorted index, or NULL: a walk per lookup */
	int nr_phandles;
};

/*
 * Validate and open the blob at @blob. @max_size bounds what may be read
 * (the blob's totalsize must not exceed it); pass the file size on the host,
 * or a generous bound (e.g. 2 MiB) in the kernel before totalsize is known.
 */
int fdt_open(struct fdt *fdt, const void *blob, size_t max_size);
const char *fdt_strerror(int err);

/* Tree navigation (offsets into the structure block). */
int fdt_root(const struct fdt *fdt);
int fdt_first_child(const struct fdt *fdt, int node);
int fdt_next_sibling(const struct fdt *fdt, int node);
int fdt_parent(const struct fdt *fdt, int node);	/* -1 for the root */
/* Depth-first successor of @node over the whole tree; -1 at the end. */
int fdt_next_node(const struct fdt *fdt, int node);
/* Full name of the node, "name@unit" ("" for the root). */
const char *fdt_node_name(const struct fdt *fdt, int node);
/* Child of @node whose name is @name, or whose name before '@' is @name. */
int fdt_subnode(const struct fdt *fdt, int node, const char *name);
/* Absolute path lookup ("/cpus/cpu-map"); aliases are not resolved. */
int fdt_path(const struct fdt *fdt, const char *path);
/* Node whose "phandle" (or "linux,phandle") equals @phandle, or -1. */
int fdt_node_by_phandle(const struct fdt *fdt, uint32_t phandle);
/*
 * Index every phandle of the tree into @buf (up to @cap entries), sorted,
 * so that fdt_node_by_phandle() is a binary search instead of a walk of the
 * whole tree (a DT of N CPUs resolves O(N) phandles at boot). Returns how
 * many entries the tree needs; if that is more than @cap nothing is
 * indexed and lookups keep walking (same answers, slower).
 */
int fdt_index_phandles(struct fdt *fdt, struct fdt_phandle *buf, int cap);

/* Properties. Returns a pointer into the blob and its length, or NULL. */
const void *fdt_getprop(const struct fdt *fdt, int node, const char *name,
			int *len);
bool fdt_has_prop(const struct fdt *fdt, int node, const char *name);
/* Single-cell u32 property; FDT_ENOTFOUND or FDT_EBADVALUE on failure. */
int fdt_prop_u32(const struct fdt *fdt, int node, const char *name,
		 uint32_t *out);
/* Cell @index of a multi-cell property. */
int fdt_prop_cell(const struct fdt *fdt, int node, const char *name,
		  int index, uint32_t *out);
/* NUL-terminated string property (the first string of a list). */
const char *fdt_prop_string(const struct fdt *fdt, int node, const char *name);
/* Does the string list @name of @node contain @str? */
bool fdt_prop_list_contains(const struct fdt *fdt, int node, const char *name,
			    const char *str);
bool fdt_is_compatible(const struct fdt *fdt, int node, const char *compat);
/* Next node after @from (or from the start if @from < 0) with @compat. */
int fdt_find_compatible(const struct fdt *fdt, int from, const char *compat);
/* The @index-th enabled cpu node of /cpus (the kernel's CPU numbering), or -1. */
int fdt_cpu_node(const struct fdt *fdt, int index);
/* The first enabled cpu node of /cpus (CPU 0), and the one after @node (CPU k+1 after CPU k); -1: none. */
int fdt_first_cpu_node(const struct fdt *fdt);
int fdt_next_cpu_node(const struct fdt *fdt, int node);
/* Is the node enabled (no "status", or "okay"/"ok")? */
bool fdt_node_enabled(const struct fdt *fdt, int node);

/* Read a big-endian number of @ncells (1 or 2) cells. */
uint64_t fdt_read_cells(const void *p, int ncells);

/*
 * "reg" entry @index of @node, decoded with the parent's #address-cells and
 * #size-cells (defaults 2 and 1). Fails with FDT_EBADVALUE when the property
 * length is not a multiple of the entry size or a cell count exceeds 2.
 */
int fdt_reg(const struct fdt *fdt, int node, int index, uint64_t *addr,
	    uint64_t *size);
/* fdt_reg() when the caller knows @node's parent (fdt_parent() walks from the root). */
int fdt_reg_under(const struct fdt *fdt, int parent, int node, int index, uint64_t *addr, uint64_t *size);
/* #address-cells / #size-cells that apply to the children of @node. */
int fdt_address_cells(const struct fdt *fdt, int node);
int fdt_size_cells(const struct fdt *fdt, int node);

/*
 * Why a lookup failed, for the boot panic line "<node path>: <prop>: <what>"
 * (the *_fault functions below fill it; NULL is allowed).
 */
struct fdt_fault {
	int node;
	const char *prop;
	char what[112];
};

/* Replace control characters of @s (from a blob) with '?', for a one-line message. */
void fdt_printable(char *s);
/* Full path of @node ("/" for the root) into @buf; its length, or -1 if cut. */
int fdt_node_path(const struct fdt *fdt, int node, char *buf, size_t len);

/*
 * Translate @addr, an address in the bus space of @node's parent, into a CPU
 * address through the "ranges" of every ancestor bus (empty ranges =
 * identity; a bus without ranges is not memory-mapped: FDT_ENOTFOUND).
 */
int fdt_translate(const struct fdt *fdt, int node, uint64_t *addr, struct fdt_fault *f);
/* "reg" entry @index of @node as a CPU address (fdt_reg + fdt_translate). */
int fdt_reg_phys(const struct fdt *fdt, int node, int index, uint64_t *addr, uint64_t *size,
		 struct fdt_fault *f);

/*
 * Interrupt @index of @node as a GIC interrupt ID (SPI n -> 32 + n, PPI n ->
 * 16 + n). The interrupt parent is the node's "interrupt-parent", else its
 * tree parent, up to a node with #interrupt-cells; "interrupt-map" nexus
 * nodes (with interrupt-map-mask) are followed to the interrupt-controller,
 * which must take 3 cells (type 0 = SPI, 1 = PPI; number; flags).
 */
int fdt_irq_fault(const struct fdt *fdt, int node, int index, uint32_t *irq, struct fdt_fault *f);
int fdt_irq(const struct fdt *fdt, int node, int index, uint32_t *irq);

/* The node an /aliases entry names, or -1. */
int fdt_alias(const struct fdt *fdt, const char *name);
/*
 * The node /chosen/stdout-path (or linux,stdout-path) names: a path or an
 * alias, either with ":options", or a phandle. FDT_ENOTFOUND (fault
 * untouched) when there is none; another negative code if it names nothing.
 */
int fdt_stdout_node(const struct fdt *fdt, struct fdt_fault *f);

/* Iterate the memory reservation map; false when @index is past its end. */
bool fdt_reserved(const struct fdt *fdt, int index, uint64_t *addr,
		  uint64_t *size);

#endif
