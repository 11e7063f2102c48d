/* Driver-side DT lookups that panic on what the kernel cannot use; see include/drivers/dt.h. */
#include "drivers/dt.h"

#include <stdarg.h>

#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"

void dt_panic(const struct fdt *fdt, const struct fdt_fault *f)
{
	char path[160];

	if (fdt_node_path(fdt, f->node, path, sizeof(path)) < 0)
		ksnprintf(path, sizeof(path), "%s", fdt_node_name(fdt, f->node));
	fdt_printable(path);
	panic_plain("%s: %s: %s", path, f->prop, f->what);	/* the line names its own place: no CPU */
}

void dt_panicf(const struct fdt *fdt, int node, const char *prop, const char *fmt, ...)
{
	struct fdt_fault f = { .node = node, .prop = prop };
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(f.what, sizeof(f.what), fmt, ap);
	va_end(ap);
	fdt_printable(f.what);
	dt_panic(fdt, &f);
}

uintptr_t dt_mmio(const struct fdt *fdt, int node, int index, uint64_t *size)
{
	struct fdt_fault f;
	uint64_t addr, sz;

	if (fdt_reg_phys(fdt, node, index, &addr, &sz, &f) != FDT_OK)
		dt_panic(fdt, &f);
	if (addr > UINT32_MAX || sz > (uint64_t)UINT32_MAX + 1 - addr)
		dt_panicf(fdt, node, "reg", "entry %d: 0x%llx+0x%llx lies above 4 GiB (no LPAE)", index,
			  (unsigned long long)addr, (unsigned long long)sz);
	if (size)
		*size = sz;
	return (uintptr_t)addr;
}

uint32_t dt_irq(const struct fdt *fdt, int node, int index)
{
	struct fdt_fault f;
	uint32_t irq = 0;

	if (fdt_irq_fault(fdt, node, index, &irq, &f) != FDT_OK)
		dt_panic(fdt, &f);
	return irq;
}
