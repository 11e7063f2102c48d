/*
 * Tables gathered at link time. A file declares its object in a named
 * section with LINKED_ENTRY() (placement policies: PACK_POLICY(),
 * scheduling classes: SCHED_CLASS(), cpufreq governors: CPUFREQ_GOVERNOR()),
 * the linker collects the section (linker/common.ld), and its owner reads
 * it once, in order: by rank, then by name. Adding one is one new file.
 *
 * An entry points at an object whose first member is its name (a C
 * string), and holds its rank.
 */
#ifndef KERNEL_LIB_LINKED_TABLE_H
#define KERNEL_LIB_LINKED_TABLE_H

#include <stddef.h>

struct linked_entry {
	const void *obj;	/* its first member: const char *name */
	long rank;
};

#define LINKED_ENTRY(sect, object, rank)                                                               \
	static const struct linked_entry linked_entry_##sect##_##object                                 \
		__attribute__((used, section(#sect), aligned(sizeof(void *)))) = { &(object), (rank) }

/* The name of a table's object: its first member. */
static inline const char *linked_name(const void *obj)
{
	return *(const char *const *)obj;
}

/*
 * The objects of the entries [@start, @stop) into @out, by rank, then by
 * name; returns how many. Panics "@owner: more than @max @noun linked",
 * "@owner: one of its @noun has no name" and "@owner: two @noun named 'x'".
 */
int linked_table_sort(const struct linked_entry *start, const struct linked_entry *stop, const void **out,
		      int max, const char *owner, const char *noun);

/* The names of @objs[0..n), ", " between them, in @buf (always terminated when @size > 0). */
const char *linked_table_names(const void *const *objs, int n, char *buf, size_t size);

#endif
