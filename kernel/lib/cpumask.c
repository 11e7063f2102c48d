/* CPU sets; see include/kernel/lib/cpumask.h. */
#include "kernel/lib/cpumask.h"

#include <string.h>

int cpumask_weight(const cpumask_t *m)
{
	int n = 0;

	for (int i = 0; i < CPUMASK_WORDS; i++)
		n += __builtin_popcount(m->w[i]);
	return n;
}

int cpumask_next(const cpumask_t *m, int cpu)
{
	for (int c = cpu + 1; c < CONFIG_NR_CPUS;) {
		uint32_t word = m->w[c / 32] >> (c % 32);

		if (word)
			return c + __builtin_ctz(word);
		c = (c / 32 + 1) * 32;
	}
	return -1;
}

bool cpumask_equal(const cpumask_t *a, const cpumask_t *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

bool cpumask_subset(const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

bool cpumask_empty(const cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (m->w[i])
			return false;
	return true;
}

void cpumask_or(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		dst->w[i] = a->w[i] | b->w[i];
}

void cpumask_andnot(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

void cpumask_and(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		dst->w[i] = a->w[i] & b->w[i];
}

bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

void cpumask_fill(cpumask_t *m, int n)
{
	for (int i = 0; i < CPUMASK_WORDS; i++) {
		int lo = i * 32;

		if (n >= lo + 32)
			m->w[i] = ~0u;
		else if (n > lo)
			m->w[i] = (1u << (n - lo)) - 1;
		else
			m->w[i] = 0;
	}
}
