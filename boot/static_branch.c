/* Patching the sites of include/kernel/lib/static_branch.h (ARMv7, ARM state). */
#include "kernel/lib/static_branch.h"

#include <stddef.h>
#include <stdint.h>

#include "boot/patch.h"
#include "kernel/lib/panic.h"

extern const struct static_branch_site __start_static_branches[], __stop_static_branches[];	/* NOLINT(bugprone-reserved-identifier) */

void static_branch_sync(const volatile bool *flag)
{
	bool on = *flag;
	size_t nr = ((uintptr_t)__stop_static_branches - (uintptr_t)__start_static_branches) /
		    sizeof(struct static_branch_site);

	for (size_t i = 0; i < nr; i++) {
		const struct static_branch_site *s = &__start_static_branches[i];
		const volatile uint32_t *insn = (const volatile uint32_t *)s->site;
		uint32_t want = on ? insn_branch(s->site, s->target) : INSN_NOP;

		if (s->flag != flag || *insn == want)
			continue;
		KASSERT(*insn == INSN_NOP || *insn == insn_branch(s->site, s->target));
		insn_patch(s->site, want);
	}
}
