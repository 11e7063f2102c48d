/*
 * panic() and KASSERT: the one way the core reports a broken invariant.
 * panic() formats the message (kernel/lib/panic.c) and hands it to the
 * port's arch_panic() (include/arch/console.h), which never returns.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* panic() for a message that names its own place ("<node>: <property>: <what>"): the line has no CPU. */
void panic_plain(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define KASSERT(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			panic("assertion failed: %s (%s:%d)", #cond,         \
			      __FILE__, __LINE__);                           \
	} while (0)

/*
 * Invariants on the scheduler's hot paths whose cost shows in `make bench`:
 * checked in debug kernels (make kernel-debug-BOARD), host tests and
 * fuzzers (CONFIG_SCHED_DEBUG), compiled out (but still type-checked) in
 * release kernels. The static analyser always sees them: they are facts it
 * may rely on.
 */
#if defined(CONFIG_SCHED_DEBUG) || defined(__clang_analyzer__)
#define KASSERT_DEBUG(cond) KASSERT(cond)
#else
#define KASSERT_DEBUG(cond) ((void)sizeof(!(cond)))
#endif

#endif
