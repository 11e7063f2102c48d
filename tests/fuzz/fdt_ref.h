/*
 * libfdt (Debian libfdt-dev), the reference FDT reader, behind names of its
 * own: its libfdt.h and our include/kernel/lib/fdt.h declare the same function
 * names with other signatures, so only tests/fuzz/fdt_ref.c sees libfdt.
 * Node and property offsets are libfdt's (structure-block offsets, as ours).
 */
#ifndef TESTS_FUZZ_FDT_REF_H
#define TESTS_FUZZ_FDT_REF_H

#include <stddef.h>

/* fdt_check_full(): NULL if libfdt accepts the blob, else its error string. */
const char *ref_check(const void *blob, size_t size);
/* Depth-first successor (-1: the root); -1 at the end, -2 on an error. */
int ref_next_node(const void *blob, int node);
/* fdt_get_path(); 0 or -1. */
int ref_path(const void *blob, int node, char *buf, int len);
const char *ref_name(const void *blob, int node);
/* First / next property offset of a node (-1: none left, -2: error). */
int ref_first_prop(const void *blob, int node);
int ref_next_prop(const void *blob, int prop);
/* The property at @prop: value, @name and @len; NULL on an error. */
const void *ref_prop(const void *blob, int prop, const char **name, int *len);
/* fdt_getprop(): the first property @name of @node. */
const void *ref_getprop(const void *blob, int node, const char *name, int *len);

#endif
