/*
 * A small reproducible pseudo-random stream (Marsaglia's xorshift32) for
 * the kernel's seeded tools: stress, delay injection. Not for anything
 * that needs unpredictability. The state is never 0 (0 is a fixed point).
 */
#ifndef KERNEL_RANDOM_H
#define KERNEL_RANDOM_H

#include <stdint.h>

static inline uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x ? x : 1;
}

#endif
