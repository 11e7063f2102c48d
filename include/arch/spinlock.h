/*
 * Ticket spinlocks. ARM: LDREX/STREX (valid because RAM is mapped Normal,
 * shareable, cacheable with the SCU/SMP bit on) with WFE/SEV; host: GCC
 * atomics, so the portable core can be unit-tested with the same lock API.
 * spin_lock_irqsave() also masks IRQs on the local CPU (ARM only).
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/debug/inject.h"
#ifdef __arm__
#include "arch/arm.h"
#endif

/*
 * One 32-bit word: owner in the low half, next in the high half, so ARM
 * takes a ticket and sees whether it is already served in one LDREX (the
 * uncontended lock is then one exclusive pair and one barrier).
 */
typedef struct {
	union {
		uint32_t word;
		struct {
			volatile uint16_t owner;
			volatile uint16_t next;
		};
	};
#if defined(CONFIG_SCHED_DEBUG) && defined(__arm__)
	/* Who holds it (debug kernels): the watchdog's and a debugger's first question. */
	volatile int16_t holder_cpu;	/* -1: free */
	volatile uintptr_t holder_pc;	/* where it was taken */
#endif
} spinlock_t;

#if defined(CONFIG_SCHED_DEBUG) && defined(__arm__)
#define SPINLOCK_INIT { { 0 }, -1, 0 }
#define spin_note_holder(l)                                                         \
	do {                                                                        \
		uintptr_t pc_;                                                      \
		__asm__ volatile("mov %0, pc" : "=r"(pc_));                         \
		(l)->holder_cpu = (int16_t)read_tpidrprw();                         \
		(l)->holder_pc = pc_;                                               \
	} while (0)
#define spin_note_free(l) ((l)->holder_cpu = -1)
/*
 * The lock each CPU is spinning for now, NULL when none (debug kernels,
 * boot/sched_arch.c): a CPU stuck with IRQs off cannot be asked, and the
 * watchdog's report says what it waits for and who holds that.
 */
extern spinlock_t *volatile spin_waiting_on[CONFIG_NR_CPUS];
extern volatile uint16_t spin_waiting_ticket[CONFIG_NR_CPUS];
#define spin_note_wait(l, t) (spin_waiting_ticket[read_tpidrprw()] = (t), spin_waiting_on[read_tpidrprw()] = (l))
#define spin_note_wait_done() (spin_waiting_on[read_tpidrprw()] = 0)
#else
#define SPINLOCK_INIT { { 0 } }
#define spin_note_holder(l) ((void)(l))
#define spin_note_free(l) ((void)(l))
#define spin_note_wait(l, t) ((void)(l), (void)(t))
#define spin_note_wait_done() ((void)0)
#endif
#define SPIN_TICKET_SHIFT 16

#ifdef __arm__
/*
 * How a CPU that finds the lock taken waits (boot argument `spinlock=`):
 * `ticket` (the default, what the boards run) takes a ticket and is served
 * in order, FIFO-fair; `unfair` takes no ticket, waits for the lock to be
 * free and races for it. The second is for a virtual machine whose host
 * deschedules vCPUs (QEMU MTTCG on fewer host cores than vCPUs:
 * docs/platform.md): a ticket handed to a vCPU that is not running stops
 * every waiter behind it for as long as the host keeps it off (lock-waiter
 * preemption), as x86 Linux guests without paravirtual locks fall back to a
 * test-and-set lock (virt_spin_lock()). Each spin_lock() holds both: the
 * ticket sequence inline, the unfair one in .text.spin_unfair with the same
 * registers, and spin_lock_set_unfair() (boot/spinlock.c, once, before the
 * other CPUs start) turns each site's first instruction into a branch to
 * its unfair twin, which ends with a ticket that is served at once. So the
 * default costs nothing, and the mode is one for the whole run. Debug
 * kernels do not record an unfair waiter (spin_waiting()): the twin is
 * the ticket sequence's length plus the wait, nothing more.
 */
/* Returns how many sites it patched (read back). Once. */
size_t spin_lock_set_unfair(void);

struct spin_unfair_site {
	unsigned long site;		/* the ticket sequence's LDREX */
	unsigned long unfair;		/* its twin */
};

static inline void spin_lock(spinlock_t *l)
{
	uint32_t old, new, fail;

	__asm__ volatile("1:	ldrex	%0, [%3]\n"
			 "	add	%1, %0, %4\n"
			 "	strex	%2, %1, [%3]\n"
			 "	teq	%2, #0\n"
			 "	bne	1b\n"
			 "3:\n"
			 "	.pushsection .text.spin_unfair, \"ax\"\n"
			 "4:	ldrex	%0, [%3]\n"
			 "	cmp	%0, %0, ror #16\n"	/* free: owner == next */
			 "	beq	5f\n"
			 "	wfe\n"
			 "	b	4b\n"
			 "5:	add	%1, %0, %4\n"
			 "	strex	%2, %1, [%3]\n"
			 "	teq	%2, #0\n"
			 "	bne	4b\n"
			 "	b	3b\n"
			 "	.popsection\n"
			 "	.pushsection spin_unfair_sites, \"aw\"\n"
			 "	.balign 4\n"
			 "	.word	1b, 4b\n"
			 "	.popsection"
			 : "=&r"(old), "=&r"(new), "=&r"(fail)
			 : "r"(&l->word), "I"(1u << SPIN_TICKET_SHIFT)
			 : "cc", "memory");
	/*
	 * Our ticket is old's next half; it is served when owner reaches it.
	 * The halves are equal exactly when the word equals itself rotated by
	 * a half: one compare, no extraction of either half (the uncontended
	 * lock is taken on every switch and wake-up).
	 */
	while (old != (old >> SPIN_TICKET_SHIFT | old << SPIN_TICKET_SHIFT)) {
		spin_note_wait(l, (uint16_t)(old >> SPIN_TICKET_SHIFT));
		__asm__ volatile("wfe" ::: "memory");
		old = (old & ~0xffffu) | l->owner;
	}
	spin_note_wait_done();
	__asm__ volatile("dmb ish" ::: "memory");
	spin_note_holder(l);
}

/* Take the lock only if it is free now: no ticket is taken, nobody waits behind us (Linux's arch_spin_trylock). */
static inline bool spin_trylock(spinlock_t *l)
{
	uint32_t old = 0, res = 1;

	/* owner == next (the word equals itself rotated by a half), and only then a ticket. */
	__asm__ volatile("1:	ldrex	%0, [%2]\n"
			 "	subs	%1, %0, %0, ror #16\n"
			 "	bne	2f\n"
			 "	add	%0, %0, %3\n"
			 "	strex	%1, %0, [%2]\n"
			 "	teq	%1, #0\n"
			 "	bne	1b\n"
			 "2:"
			 : "+&r"(old), "+&r"(res)
			 : "r"(&l->word), "I"(1u << SPIN_TICKET_SHIFT)
			 : "cc", "memory");
	if (res != 0)
		return false;	/* contended: the difference of the halves */
	__asm__ volatile("dmb ish" ::: "memory");
	spin_note_holder(l);
	return true;
}

static inline void spin_unlock(spinlock_t *l)
{
#ifdef CONFIG_SCHED_DEBUG
	inject_delay(INJECT_UNLOCK);	/* a holder preempted just before the release */
#endif
	spin_note_free(l);
	__asm__ volatile("dmb ish" ::: "memory");
	{
		/* strh stores the low half: no zero-extension of the sum. */
		uint32_t o = l->owner;

		__asm__ volatile("strh	%1, %0" : "=m"(l->owner) : "r"(o + 1));
	}
	__asm__ volatile("dsb ishst\n\tsev" ::: "memory");
}
#else
static inline void spin_lock(spinlock_t *l)
{
	uint16_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		;
}

static inline bool spin_trylock(spinlock_t *l)
{
	uint32_t old = __atomic_load_n(&l->word, __ATOMIC_RELAXED);

	return (uint16_t)(old >> SPIN_TICKET_SHIFT) == (uint16_t)old &&
	       __atomic_compare_exchange_n(&l->word, &old, old + (1u << SPIN_TICKET_SHIFT), false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->owner, (uint16_t)(l->owner + 1), __ATOMIC_RELEASE);
}
#endif

/* The lock @cpu is spinning for now (debug kernels on ARM; NULL when none, or not recorded). */
static inline const spinlock_t *spin_waiting(int cpu)
{
#if defined(CONFIG_SCHED_DEBUG) && defined(__arm__)
	return spin_waiting_on[cpu];
#else
	(void)cpu;
	return 0;
#endif
}

/* The ticket @cpu spins with (meaningful while spin_waiting(@cpu) is not NULL). */
static inline unsigned int spin_waiting_ticket_of(int cpu)
{
#if defined(CONFIG_SCHED_DEBUG) && defined(__arm__)
	return spin_waiting_ticket[cpu];
#else
	(void)cpu;
	return 0;
#endif
}

/* Who holds @l and where it was taken (debug kernels on ARM; cpu -1: free or not recorded). */
static inline int spin_holder(const spinlock_t *l, uintptr_t *pc)
{
#if defined(CONFIG_SCHED_DEBUG) && defined(__arm__)
	*pc = l->holder_pc;
	return l->holder_cpu;
#else
	(void)l;
	*pc = 0;
	return -1;
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
#include "arch/cpu.h"
static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}
#endif

#endif
