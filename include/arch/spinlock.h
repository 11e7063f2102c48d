/*
 * Ticket spinlocks. ARM: LDREX/STREX (valid because RAM is mapped Normal,
 * shareable, cacheable with the SCU/SMP bit on) with WFE/SEV; host: GCC
 * atomics, so the portable core can be unit-tested with the same lock API.
 * spin_lock_irqsave() also masks IRQs on the local CPU (ARM only).
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	volatile uint16_t owner;
	volatile uint16_t next;
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }

static inline void spin_lock(spinlock_t *l)
{
	uint16_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket) {
#ifdef __arm__
		__asm__ volatile("wfe" ::: "memory");
#endif
	}
}

static inline bool spin_trylock(spinlock_t *l)
{
	uint16_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint16_t expect = owner;

	return __atomic_compare_exchange_n(&l->next, &expect,
					   (uint16_t)(owner + 1), false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->owner, (uint16_t)(l->owner + 1), __ATOMIC_RELEASE);
#ifdef __arm__
	__asm__ volatile("dsb ish\n\tsev" ::: "memory");
#endif
}

static inline bool spin_is_locked(const spinlock_t *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

#ifdef __arm__
#include "arch/arm.h"
static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	irq_restore(flags);
}
#else
static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	spin_lock(l);
	return 0;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	(void)flags;
	spin_unlock(l);
}
#endif

#endif
