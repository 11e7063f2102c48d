/*
 * Sets of CPUs of any size (CONFIG_NR_CPUS bits), in the spirit of Linux's
 * cpumask: the topology's spans and the scheduler's affinity, online and
 * idle sets. A kernel with 32 CPUs or fewer has one word per set, so the
 * loops below compile to single-word operations on the boards. The
 * *_atomic helpers change one CPU's bit with an atomic on its word (sets
 * that several CPUs update without a lock); plain readers may see any mix
 * of old and new words, which the scheduler treats as a hint.
 */
#ifndef KERNEL_CPUMASK_H
#define KERNEL_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/barrier.h"

#define CPUMASK_WORDS ((CONFIG_NR_CPUS + 31) / 32)
typedef struct {
	uint32_t w[CPUMASK_WORDS];
} cpumask_t;

static inline bool cpumask_test(const cpumask_t *m, int cpu)
{
	return (READ_ONCE(m->w[(unsigned)cpu / 32]) >> ((unsigned)cpu % 32)) & 1u;
}
static inline void cpumask_set(cpumask_t *m, int cpu)
{
	m->w[cpu / 32] |= 1u << (cpu % 32);
}
static inline void cpumask_clear_cpu(cpumask_t *m, int cpu)
{
	m->w[(unsigned)cpu / 32] &= ~(1u << ((unsigned)cpu % 32));
}
static inline void cpumask_set_atomic(cpumask_t *m, int cpu)
{
	__atomic_fetch_or(&m->w[(unsigned)cpu / 32], 1u << ((unsigned)cpu % 32), __ATOMIC_RELEASE);
}
static inline void cpumask_clear_atomic(cpumask_t *m, int cpu)
{
	__atomic_fetch_and(&m->w[(unsigned)cpu / 32], ~(1u << ((unsigned)cpu % 32)), __ATOMIC_RELAXED);
}
static inline cpumask_t cpumask_of(int cpu)
{
	cpumask_t m = { { 0 } };

	cpumask_set(&m, cpu);
	return m;
}
/* The first 32 CPUs from a word (bit n = CPU n): the console's and the boards' masks. */
static inline cpumask_t cpumask_from_u32(uint32_t bits)
{
	cpumask_t m = { { 0 } };

	m.w[0] = bits;
	return m;
}
/* The low 32 CPUs as a word (the console's masks, tests of small topologies). */
static inline uint32_t cpumask_low32(const cpumask_t *m)
{
	return READ_ONCE(m->w[0]);
}
/* -1 if empty. Inline: a pinned task's wake-up asks for its one CPU. */
static inline int cpumask_first(const cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (m->w[i])
			return i * 32 + __builtin_ctz(m->w[i]);
	return -1;
}
/* The first CPU in both, -1 if none (O(words), no mask built). */
static inline int cpumask_first_and(const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++) {
		uint32_t w = a->w[i] & b->w[i];

		if (w)
			return i * 32 + __builtin_ctz(w);
	}
	return -1;
}
int cpumask_weight(const cpumask_t *m);
void cpumask_fill(cpumask_t *m, int n);	/* CPUs 0..n-1, nothing else */
int cpumask_next(const cpumask_t *m, int cpu);	/* first set bit after @cpu, or -1 */
bool cpumask_equal(const cpumask_t *a, const cpumask_t *b);
bool cpumask_subset(const cpumask_t *a, const cpumask_t *b);	/* a within b */
bool cpumask_empty(const cpumask_t *m);
void cpumask_or(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b);
void cpumask_and(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b);
void cpumask_andnot(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b);
bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b);

/* @cpu names the loop variable it declares, so it cannot be parenthesised. */
#define for_each_cpu(cpu, mask) \
	for (int cpu = cpumask_first(mask); (cpu) >= 0; (cpu) = cpumask_next((mask), (cpu))) /* NOLINT(bugprone-macro-parentheses) */

#endif
