/*
 * Branches that cost one NOP while their flag is false (Linux's static keys
 * and jump labels, reduced to a bool): `if (static_branch_unlikely(&flag))`
 * compiles, on the ARM kernel, to a NOP at the site and records (site, the
 * guarded code, &flag) in the `static_branches` table; static_branch_sync(&flag),
 * called after every write of the flag, rewrites each of its sites into a
 * branch to the guarded code while the flag is true, and back into the NOP.
 *
 * Contract: the flag stays the truth for everything that reads it; a site
 * follows it only from its static_branch_sync() on, so a writer that needs
 * the hooks on (or off) before it goes on calls the sync first. Other CPUs
 * see the new instruction once their instruction cache is invalidated (the
 * sync broadcasts it to the inner shareable domain); ARMv7 allows a B and a
 * NOP to be swapped under a running CPU (ARM ARM A3.5.4). Host and simulator
 * builds (HOST_BUILD) test the flag instead: their costs are not QEMU's.
 */
#ifndef KERNEL_LIB_STATIC_BRANCH_H
#define KERNEL_LIB_STATIC_BRANCH_H

#include <stdbool.h>

#if defined(__arm__) && !defined(HOST_BUILD)
/* One table entry per site; linker/common.ld collects them. */
struct static_branch_site {
	unsigned long site;	/* the NOP */
	unsigned long target;	/* the code run while the flag is true */
	const volatile bool *flag;
};

static inline __attribute__((always_inline)) bool static_branch_unlikely(const volatile bool *flag)
{
	__asm__ goto("1:	nop\n"
		     "	.pushsection static_branches, \"aw\"\n"
		     "	.balign 4\n"
		     "	.word 1b, %l[on], %c0\n"
		     "	.popsection\n"
		     : : "i"(flag) : : on);
	return false;
	// cppcheck-suppress unusedLabel ; the asm goto's target, which cppcheck does not parse
on:
	return true;
}

/* Make every site of @flag follow its value now (boot/static_branch.c). Any context; not concurrently for one flag. */
void static_branch_sync(const volatile bool *flag);
#else
static inline bool static_branch_unlikely(const volatile bool *flag)
{
	return __builtin_expect(*flag, 0);
}

static inline void static_branch_sync(const volatile bool *flag)
{
	(void)flag;
}
#endif

#endif
