/* libfdt behind the names of tests/fuzz/fdt_ref.h. */
#include "tests/fuzz/fdt_ref.h"

#include <libfdt.h>
#include <string.h>

const char *ref_check(const void *blob, size_t size)
{
	int rc = fdt_check_full(blob, size);

	return rc == 0 ? NULL : fdt_strerror(rc);
}

int ref_next_node(const void *blob, int node)
{
	int next = fdt_next_node(blob, node, NULL);	/* no depth: every node, not one subtree */

	return next >= 0 ? next : next == -FDT_ERR_NOTFOUND ? -1 : -2;
}

int ref_path(const void *blob, int node, char *buf, int len)
{
	return fdt_get_path(blob, node, buf, len) == 0 ? 0 : -1;
}

const char *ref_name(const void *blob, int node)
{
	const char *name = fdt_get_name(blob, node, NULL);

	return name ? name : "";
}

static int prop_result(int off)
{
	return off >= 0 ? off : off == -FDT_ERR_NOTFOUND ? -1 : -2;
}

int ref_first_prop(const void *blob, int node)
{
	return prop_result(fdt_first_property_offset(blob, node));
}

int ref_next_prop(const void *blob, int prop)
{
	return prop_result(fdt_next_property_offset(blob, prop));
}

const void *ref_prop(const void *blob, int prop, const char **name, int *len)
{
	return fdt_getprop_by_offset(blob, prop, name, len);
}

const void *ref_getprop(const void *blob, int node, const char *name, int *len)
{
	return fdt_getprop_namelen(blob, node, name, (int)strlen(name), len);
}
