/*
 * seqcount: lets readers on other CPUs take a consistent copy of a small
 * group of fields without locking out the writer.
 *
 * Contract:
 * - Writers are serialised by the caller (one owning CPU, or a lock). A write
 *   section is seqcount_write_begin() ... seqcount_write_end(); sections do
 *   not nest (write_begin KASSERT_DEBUGs that the count is even).
 * - Readers loop:
 *	do {
 *		seq = seqcount_read_begin(&s);
 *		copy = READ_ONCE(field) ...;
 *	} while (seqcount_read_retry(&s, seq));
 *   The copy is only meaningful once read_retry() returns false: it then
 *   equals the fields as some single write section left them. Protected
 *   fields must be read with READ_ONCE (each one at most a machine word, or
 *   a tear is tolerated because the retry discards it).
 * - A reader must never run where it can preempt the writer of the same
 *   seqcount on the same CPU (e.g. an IRQ handler reading what the
 *   interrupted code is writing): it would retry forever.
 *
 * The count is even when no write is in progress. read_begin() does not spin
 * on an odd count: read_retry() rejects it, so the caller's loop is the only
 * loop.
 */
#ifndef KERNEL_SEQCOUNT_H
#define KERNEL_SEQCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/barrier.h"
#include "kernel/lib/panic.h"

typedef struct {
	uint32_t sequence;
} seqcount_t;

#define SEQCOUNT_INIT { 0 }

static inline void seqcount_init(seqcount_t *s)
{
	WRITE_ONCE(s->sequence, 0);
}

static inline void seqcount_write_begin(seqcount_t *s)
{
	/* Only the (serialised) writer stores the count: a plain read is ours. */
	uint32_t seq = s->sequence;

	KASSERT_DEBUG((seq & 1u) == 0);
	WRITE_ONCE(s->sequence, seq + 1);
	/* The odd count must be visible before any protected store. */
	smp_wmb();
}

static inline void seqcount_write_end(seqcount_t *s)
{
	uint32_t seq = s->sequence;

	KASSERT_DEBUG((seq & 1u) == 1);
	/* Every protected store must be visible before the even count. */
	smp_wmb();
	WRITE_ONCE(s->sequence, seq + 1);
}

static inline uint32_t seqcount_read_begin(const seqcount_t *s)
{
	uint32_t seq;

	/* A writer is in its section: let it run (it may be a descheduled vCPU). */
	while ((seq = READ_ONCE(s->sequence)) & 1u)
		cpu_relax();
	/* Protected loads must not be satisfied before the count is read. */
	smp_rmb();
	return seq;
}

/* True when the copy taken since read_begin() returned @start is unusable. */
static inline bool seqcount_read_retry(const seqcount_t *s, uint32_t start)
{
	/* Protected loads must complete before the count is re-read. */
	smp_rmb();
	return (start & 1u) != 0 || READ_ONCE(s->sequence) != start;
}

#endif
