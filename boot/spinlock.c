/*
 * spinlock=unfair (include/arch/spinlock.h): every spin_lock() site's LDREX
 * becomes a branch to its unfair twin. Patched once by the boot CPU before
 * the others start, so no CPU runs a site while it changes (boot/patch.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "boot/patch.h"
#include "kernel/lib/panic.h"

extern const struct spin_unfair_site __start_spin_unfair_sites[], __stop_spin_unfair_sites[];	/* NOLINT(bugprone-reserved-identifier) */

static bool patched;	/* the sites are branches to their twins */

#define INSN_LDREX_MASK 0x0ff00fffu	/* LDREX Rt, [Rn]: cond 0001 1001 Rn Rt 1111 1001 1111 */
#define INSN_LDREX      0x01900f9fu

size_t spin_lock_set_unfair(void)
{
	size_t nr = ((uintptr_t)__stop_spin_unfair_sites - (uintptr_t)__start_spin_unfair_sites) /
		    sizeof(struct spin_unfair_site), done = 0;

	KASSERT(!patched);
	for (size_t i = 0; i < nr; i++) {
		const struct spin_unfair_site *s = &__start_spin_unfair_sites[i];
		uint32_t b = insn_branch(s->site, s->unfair);

		KASSERT((*(const volatile uint32_t *)s->site & INSN_LDREX_MASK) == INSN_LDREX);
		insn_patch(s->site, b);
		done += *(const volatile uint32_t *)s->site == b;
	}
	patched = true;
	return done;
}
