/*
 * Link-time tables, sorted once by their owner: include/kernel/lib/linked_table.h.
 */
#include "kernel/lib/linked_table.h"

#include <stdint.h>
#include <string.h>

#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"

static int entry_cmp(const struct linked_entry *a, const struct linked_entry *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(linked_name(a->obj), linked_name(b->obj));
}

int linked_table_sort(const struct linked_entry *start, const struct linked_entry *stop, const void **out,
		      int max, const char *owner, const char *noun)
{
	/* The section's bounds as numbers: the linker's two symbols are not one C object. */
	size_t nr = ((uintptr_t)stop - (uintptr_t)start) / sizeof(struct linked_entry);
	const struct linked_entry *sorted[64];
	int n = 0;

	KASSERT(max > 0 && max <= 64);
	for (size_t k = 0; k < nr; k++) {
		const struct linked_entry *e = &start[k];
		int i = n;

		if (n == max)
			panic("%s: more than %d %s linked", owner, max, noun);
		if (!e->obj || !linked_name(e->obj))
			panic("%s: one of its %s has no name", owner, noun);
		/* An insertion sort: a handful of entries. */
		for (; i > 0 && entry_cmp(e, sorted[i - 1]) < 0; i--)
			sorted[i] = sorted[i - 1];
		sorted[i] = e;
		n++;
	}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (strcmp(linked_name(sorted[j]->obj), linked_name(sorted[i]->obj)) == 0)
				panic("%s: two %s named '%s'", owner, noun, linked_name(sorted[i]->obj));
		out[i] = sorted[i]->obj;
	}
	return n;
}

const char *linked_table_names(const void *const *objs, int n, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)ksnprintf(buf + len, size - len, "%s%s", i ? ", " : "", linked_name(objs[i]));
	return buf;
}
