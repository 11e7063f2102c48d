/*
 * Standard DT resolution on top of the FDT reader: node paths, reg
 * translated to CPU addresses through every parent's "ranges", interrupt
 * specifiers routed through "interrupt-map" to the GIC, and the console
 * named by /chosen/stdout-path. Contract in include/kernel/lib/fdt.h.
 */
#include "kernel/lib/fdt.h"

#include <stdarg.h>
#include <string.h>

#include "kernel/lib/format.h"

#define MAX_ADDR_CELLS 2	/* 64-bit addresses; PCI's 3 cells are not supported */
#define MAX_IRQ_CELLS 4
#define MAX_IRQ_HOPS 16		/* interrupt-map nesting, and loop guard */

static int fault(struct fdt_fault *f, int node, const char *prop, int code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int fault(struct fdt_fault *f, int node, const char *prop, int code, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return code;
	f->node = node;
	f->prop = prop;
	va_start(ap, fmt);
	kvsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	fdt_printable(f->what);	/* names and strings come from the blob: one line, whatever they hold */
	return code;
}

void fdt_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int fdt_node_path(const struct fdt *fdt, int node, char *buf, size_t len)
{
	int chain[FDT_MAX_DEPTH + 1], depth = 0;
	size_t n = 0;

	if (len == 0)
		return -1;
	for (int c = node; c >= 0 && depth <= FDT_MAX_DEPTH; c = fdt_parent(fdt, c))
		chain[depth++] = c;
	if (depth == 0) {
		ksnprintf(buf, len, "(no node)");
		return -1;
	}
	buf[0] = '\0';
	if (depth == 1)
		return ksnprintf(buf, len, "/") < (int)len ? 1 : -1;
	for (int i = depth - 2; i >= 0; i--) {
		n += (size_t)ksnprintf(buf + (n < len ? n : len - 1), n < len ? len - n : 1, "/%s",
				       fdt_node_name(fdt, chain[i]));
	}
	return n < len ? (int)n : -1;
}

/* The node's name for a message: its path, or its name if the path is too long. */
static const char *label(const struct fdt *fdt, int node, char *buf, size_t len)
{
	if (fdt_node_path(fdt, node, buf, len) < 0)
		ksnprintf(buf, len, "%s", fdt_node_name(fdt, node));
	return buf;
}

int fdt_translate(const struct fdt *fdt, int node, uint64_t *addr, struct fdt_fault *f)
{
	char name[64];

	for (int bus = fdt_parent(fdt, node); bus >= 0; bus = fdt_parent(fdt, bus)) {
		int up = fdt_parent(fdt, bus), len, ca, pa, sc, entry;
		const uint8_t *p;
		bool hit = false;

		if (up < 0)
			return FDT_OK;	/* the root's address space is the CPU's */
		p = fdt_getprop(fdt, bus, "ranges", &len);
		if (!p)
			return fault(f, bus, "ranges", FDT_ENOTFOUND,
				     "missing, so 0x%llx of %s is not a CPU address", (unsigned long long)*addr,
				     label(fdt, node, name, sizeof(name)));
		if (len == 0)
			continue;	/* empty ranges: identity */
		ca = fdt_address_cells(fdt, bus);
		pa = fdt_address_cells(fdt, up);
		sc = fdt_size_cells(fdt, bus);
		if (ca < 1 || ca > MAX_ADDR_CELLS || pa < 1 || pa > MAX_ADDR_CELLS || sc < 1 || sc > 2)
			return fault(f, bus, "ranges", FDT_EBADVALUE,
				     "#address-cells %d, parent #address-cells %d, #size-cells %d: 1..2 supported",
				     ca, pa, sc);
		entry = (ca + pa + sc) * 4;
		if (len % entry)
			return fault(f, bus, "ranges", FDT_EBADVALUE,
				     "%d bytes is not a whole number of %d-cell (child %d, parent %d, size %d) entries",
				     len, ca + pa + sc, ca, pa, sc);
		for (int off = 0; off < len && !hit; off += entry) {
			uint64_t child = fdt_read_cells(p + off, ca);
			uint64_t parent = fdt_read_cells(p + off + ca * 4, pa);
			uint64_t size = fdt_read_cells(p + off + (ca + pa) * 4, sc);

			if (*addr >= child && *addr - child < size) {
				*addr = parent + (*addr - child);
				hit = true;
			}
		}
		if (!hit)
			return fault(f, bus, "ranges", FDT_EBADVALUE, "no entry covers 0x%llx of %s",
				     (unsigned long long)*addr, label(fdt, node, name, sizeof(name)));
	}
	return FDT_OK;
}

int fdt_reg_phys(const struct fdt *fdt, int node, int index, uint64_t *addr, uint64_t *size,
		 struct fdt_fault *f)
{
	int parent = fdt_parent(fdt, node), len;
	int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
	int rc = fdt_reg(fdt, node, index, addr, size);

	if (rc == FDT_OK)
		return fdt_translate(fdt, node, addr, f);
	if (!fdt_getprop(fdt, node, "reg", &len))
		return fault(f, node, "reg", rc, "missing");
	if (ac < 1 || ac > MAX_ADDR_CELLS || sc < 0 || sc > 2)
		return fault(f, node, "reg", rc, "parent's #address-cells %d / #size-cells %d: 1..2 / 0..2 supported",
			     ac, sc);
	if (len % (4 * (ac + sc)))
		return fault(f, node, "reg", rc,
			     "%d bytes is not a whole number of %d-cell entries (#address-cells %d, #size-cells %d)",
			     len, ac + sc, ac, sc);
	return fault(f, node, "reg", rc, "entry %d needed, %d present", index, len / (4 * (ac + sc)));
}

/* ------------------------------------------------------------ interrupts */

static int cells_or(const struct fdt *fdt, int node, const char *name, int dflt)
{
	uint32_t v;

	if (fdt_prop_u32(fdt, node, name, &v) != 0)
		return dflt;
	return v > 64 ? 64 : (int)v;
}

/*
 * The interrupt parent of @node: its "interrupt-parent", else its tree
 * parent, repeated until a node with #interrupt-cells (as Linux does).
 */
static int interrupt_parent(const struct fdt *fdt, int node, struct fdt_fault *f)
{
	int n = node;

	for (int hops = 0; hops <= FDT_MAX_DEPTH + MAX_IRQ_HOPS; hops++) {
		uint32_t ph;
		int rc = fdt_prop_u32(fdt, n, "interrupt-parent", &ph);

		if (rc == FDT_OK) {
			int p = fdt_node_by_phandle(fdt, ph);

			if (p < 0)
				return fault(f, n, "interrupt-parent", FDT_EBADVALUE, "phandle 0x%x names no node",
					     (unsigned)ph);
			if (!fdt_has_prop(fdt, p, "#interrupt-cells"))
				return fault(f, n, "interrupt-parent", FDT_EBADVALUE,
					     "phandle 0x%x names %s, which has no #interrupt-cells", (unsigned)ph,
					     fdt_node_name(fdt, p));
			n = p;
		} else if (rc == FDT_EBADVALUE) {
			return fault(f, n, "interrupt-parent", FDT_EBADVALUE, "not a single phandle cell");
		} else {
			n = fdt_parent(fdt, n);
			if (n < 0)
				return fault(f, node, "interrupts", FDT_EBADVALUE,
					     "no interrupt parent: neither the node nor an ancestor has interrupt-parent");
		}
		if (fdt_has_prop(fdt, n, "#interrupt-cells"))
			return n;
	}
	return fault(f, node, "interrupt-parent", FDT_EBADVALUE, "interrupt-parent chain loops");
}

/* #address-cells for an interrupt-map lookup at @node: its own or the nearest ancestor's, else 2. */
static int map_addr_cells(const struct fdt *fdt, int node)
{
	for (int n = node; n >= 0; n = fdt_parent(fdt, n))
		if (fdt_has_prop(fdt, n, "#address-cells"))
			return cells_or(fdt, n, "#address-cells", 2);
	return 2;
}

static uint32_t cell(const uint8_t *p, int i)
{
	return (uint32_t)fdt_read_cells(p + 4 * i, 1);
}

/*
 * One step up from the interrupt parent @ipar that is not a controller: through
 * its interrupt-map (rewriting @addr, @spec and their sizes), or unchanged to
 * its own interrupt parent when it has no map. Returns the next parent.
 */
static int map_step(const struct fdt *fdt, int ipar, uint32_t *addr, int *addrsize, uint32_t *spec, int *intsize,
		    struct fdt_fault *f)
{
	int mlen, masklen;
	const uint8_t *map = fdt_getprop(fdt, ipar, "interrupt-map", &mlen);
	const uint8_t *mask = fdt_getprop(fdt, ipar, "interrupt-map-mask", &masklen);
	int cells = *addrsize + *intsize;

	if (!map)
		return interrupt_parent(fdt, ipar, f);	/* no map: the specifier passes up unchanged (as Linux) */
	if (mask && masklen != 4 * cells)
		return fault(f, ipar, "interrupt-map-mask", FDT_EBADVALUE, "%d bytes; %d cells expected", masklen,
			     cells);
	if (mlen % 4)
		return fault(f, ipar, "interrupt-map", FDT_EBADVALUE, "%d bytes is not whole cells", mlen);
	for (int at = 0; at < mlen / 4;) {
		int newpar, newaddr, newint;
		bool match = true;

		if (mlen / 4 - at < cells + 1)
			return fault(f, ipar, "interrupt-map", FDT_EBADVALUE, "entry at cell %d is truncated", at);
		for (int i = 0; i < cells; i++) {
			uint32_t m = mask ? cell(mask, i) : 0xffffffffu;
			uint32_t want = i < *addrsize ? addr[i] : spec[i - *addrsize];

			if ((cell(map, at + i) & m) != (want & m))
				match = false;
		}
		newpar = fdt_node_by_phandle(fdt, cell(map, at + cells));
		if (newpar < 0)
			return fault(f, ipar, "interrupt-map", FDT_EBADVALUE, "entry at cell %d: phandle 0x%x names no node",
				     at + cells, (unsigned)cell(map, at + cells));
		newaddr = cells_or(fdt, newpar, "#address-cells", 0);
		newint = cells_or(fdt, newpar, "#interrupt-cells", -1);
		if (newint < 1 || newint > MAX_IRQ_CELLS || newaddr > MAX_IRQ_CELLS)
			return fault(f, newpar, "#interrupt-cells", FDT_EBADVALUE,
				     "%d (with #address-cells %d) for an interrupt-map parent: 1..%d supported", newint,
				     newaddr, MAX_IRQ_CELLS);
		if (mlen / 4 - at < cells + 1 + newaddr + newint)
			return fault(f, ipar, "interrupt-map", FDT_EBADVALUE, "entry at cell %d is truncated", at);
		if (match) {
			for (int i = 0; i < newaddr; i++)
				addr[i] = cell(map, at + cells + 1 + i);
			for (int i = 0; i < newint; i++)
				spec[i] = cell(map, at + cells + 1 + newaddr + i);
			*addrsize = newaddr;
			*intsize = newint;
			return newpar;
		}
		at += cells + 1 + newaddr + newint;
	}
	return fault(f, ipar, "interrupt-map", FDT_EBADVALUE, "no entry matches interrupt <0x%x>", (unsigned)spec[0]);
}

int fdt_irq_fault(const struct fdt *fdt, int node, int index, uint32_t *irq, struct fdt_fault *f)
{
	uint32_t addr[MAX_IRQ_CELLS] = { 0 }, spec[MAX_IRQ_CELLS] = { 0 }, type, num;
	int len, reglen, ipar, addrsize, intsize;
	const uint8_t *p = fdt_getprop(fdt, node, "interrupts", &len);
	const uint8_t *reg = fdt_getprop(fdt, node, "reg", &reglen);

	if (!p)
		return fault(f, node, "interrupts", FDT_ENOTFOUND, "missing");
	ipar = interrupt_parent(fdt, node, f);
	if (ipar < 0)
		return ipar;
	intsize = cells_or(fdt, ipar, "#interrupt-cells", 0);
	if (intsize < 1 || intsize > MAX_IRQ_CELLS)
		return fault(f, ipar, "#interrupt-cells", FDT_EBADVALUE, "%d: 1..%d supported", intsize,
			     MAX_IRQ_CELLS);
	if (len % (4 * intsize))
		return fault(f, node, "interrupts", FDT_EBADVALUE, "%d bytes is not a whole number of %d-cell specifiers",
			     len, intsize);
	if (index < 0 || index >= len / (4 * intsize))
		return fault(f, node, "interrupts", FDT_ENOTFOUND, "entry %d needed, %d present", index,
			     len / (4 * intsize));
	for (int i = 0; i < intsize; i++)
		spec[i] = cell(p, index * intsize + i);
	addrsize = map_addr_cells(fdt, ipar);
	if (addrsize > MAX_IRQ_CELLS)
		return fault(f, ipar, "#address-cells", FDT_EBADVALUE, "%d: at most %d for interrupt routing",
			     addrsize, MAX_IRQ_CELLS);
	for (int i = 0; reg && i < addrsize && 4 * (i + 1) <= reglen; i++)
		addr[i] = cell(reg, i);
	for (int hop = 0; !fdt_has_prop(fdt, ipar, "interrupt-controller"); hop++) {
		int next;

		if (hop == MAX_IRQ_HOPS)
			return fault(f, ipar, "interrupt-map", FDT_EBADVALUE, "more than %d nexus levels (a loop?)",
				     MAX_IRQ_HOPS);
		next = map_step(fdt, ipar, addr, &addrsize, spec, &intsize, f);
		if (next < 0)
			return next;
		if (next == ipar)
			break;	/* its own interrupt parent: the controller, even without "interrupt-controller" */
		ipar = next;
	}
	if (intsize != 3)
		return fault(f, ipar, "#interrupt-cells", FDT_EBADVALUE, "%d: the GIC binding has 3 cells", intsize);
	type = spec[0];
	num = spec[1];
	if (type == 0 && num < 988)
		*irq = 32 + num;
	else if (type == 1 && num < 16)
		*irq = 16 + num;
	else
		return fault(f, node, "interrupts", FDT_EBADVALUE, "GIC specifier <%u %u %u> is neither SPI 0..987 nor PPI 0..15",
			     (unsigned)type, (unsigned)num, (unsigned)spec[2]);
	return FDT_OK;
}

int fdt_irq(const struct fdt *fdt, int node, int index, uint32_t *irq)
{
	return fdt_irq_fault(fdt, node, index, irq, NULL);
}

/* ---------------------------------------------------------------- console */

int fdt_alias(const struct fdt *fdt, const char *name)
{
	int aliases = fdt_path(fdt, "/aliases");
	const char *target = aliases >= 0 ? fdt_prop_string(fdt, aliases, name) : NULL;

	return target && target[0] == '/' ? fdt_path(fdt, target) : -1;
}

int fdt_stdout_node(const struct fdt *fdt, struct fdt_fault *f)
{
	int chosen = fdt_path(fdt, "/chosen"), len, node;
	const char *prop = "stdout-path";
	const char *v = chosen >= 0 ? fdt_getprop(fdt, chosen, prop, &len) : NULL;
	char name[96];
	size_t n;

	if (chosen >= 0 && !v) {
		prop = "linux,stdout-path";
		v = fdt_getprop(fdt, chosen, prop, &len);
	}
	if (!v)
		return FDT_ENOTFOUND;
	if (len == 4 && v[0] == '\0') {
		/* A phandle (<&uart0>), as some boot loaders write it. */
		uint32_t ph = (uint32_t)fdt_read_cells(v, 1);

		node = fdt_node_by_phandle(fdt, ph);
		if (node < 0)
			return fault(f, chosen, prop, FDT_EBADVALUE, "phandle 0x%x names no node", (unsigned)ph);
		return node;
	}
	if (len < 2 || !memchr(v, '\0', (size_t)len))
		return fault(f, chosen, prop, FDT_EBADVALUE, "neither a path, an alias nor a phandle (%d bytes)", len);
	n = strcspn(v, ":");
	if (n == 0 || n >= sizeof(name))
		return fault(f, chosen, prop, FDT_EBADVALUE, "\"%.60s\": no path or alias before the options", v);
	memcpy(name, v, n);
	name[n] = '\0';
	node = name[0] == '/' ? fdt_path(fdt, name) : fdt_alias(fdt, name);
	if (node < 0)
		return fault(f, chosen, prop, FDT_EBADVALUE, name[0] == '/' ? "\"%s\" names no node" :
			     "\"%s\" is no alias of /aliases naming a node", name);
	return node;
}
