/*
 * seqcount protocol under real concurrency: one writer thread keeps a pair
 * of fields with b == ~a (broken for a while inside every write section),
 * reader threads must never accept a copy that breaks it. Controls run the
 * same race with a reader that skips part of the protocol and must see torn
 * copies, so a pass means the protocol (not luck) kept the readers safe.
 * pelt_snapshot() gets the same treatment with a live sched_avg.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"
#include "kernel/sched/pelt.h"
#include "kernel/sync/seqcount.h"

enum reader_kind {
	READER_FULL,		/* the documented protocol */
	READER_NO_ODD_CHECK,	/* accepts a copy whose start count was odd */
	READER_NO_SEQCOUNT,	/* plain reads */
};

struct pair {
	seqcount_t seq;
	uint32_t a, b;
	int stop;		/* set by the writer when it is done */
	int started;		/* readers running */
};

struct reader {
	struct pair *p;
	enum reader_kind kind;
	unsigned long reads, torn, retries;
};

static void spin(unsigned int n)
{
	for (volatile unsigned int i = 0; i < n; i++)
		;
}

static void *pair_writer(void *arg)
{
	struct pair *p = arg;

	/* Do not start writing before the readers exist (2-CPU hosts). */
	while (__atomic_load_n(&p->started, __ATOMIC_ACQUIRE) < 2)
		;
	for (uint32_t i = 1; i <= 2000000u; i++) {
		seqcount_write_begin(&p->seq);
		WRITE_ONCE(p->a, i);
		/* Keep the pair inconsistent long enough to be caught. */
		spin(20);
		WRITE_ONCE(p->b, ~i);
		seqcount_write_end(&p->seq);
		spin(5);
	}
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool accept(const struct pair *p, enum reader_kind kind, uint32_t seq)
{
	switch (kind) {
	case READER_FULL:
		return !seqcount_read_retry(&p->seq, seq);
	case READER_NO_ODD_CHECK:
		smp_rmb();
		return READ_ONCE(p->seq.sequence) == seq;
	case READER_NO_SEQCOUNT:
		return true;
	}
	return false;
}

static void *pair_reader(void *arg)
{
	struct reader *r = arg;
	struct pair *p = r->p;

	__atomic_fetch_add(&p->started, 1, __ATOMIC_ACQ_REL);
	/* Until the writer is done, so that reads overlap all of its writes. */
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		/* The control reader takes the count raw: it may start inside a write. */
		uint32_t seq = r->kind == READER_NO_ODD_CHECK ? READ_ONCE(p->seq.sequence) : seqcount_read_begin(&p->seq);

		if (r->kind == READER_NO_ODD_CHECK)
			smp_rmb();
		uint32_t a = READ_ONCE(p->a);
		uint32_t b;

		spin(3);
		b = READ_ONCE(p->b);
		if (!accept(p, r->kind, seq)) {
			r->retries++;
			continue;
		}
		r->reads++;
		if (b != ~a)
			r->torn++;
	}
	return NULL;
}

/* Two readers of @kind against the writer; fills @out[2]. */
static void race(enum reader_kind kind, struct reader out[2])
{
	struct pair p = { SEQCOUNT_INIT, 0, ~0u, 0, 0 };
	pthread_t w, rt[2];

	for (int i = 0; i < 2; i++)
		out[i] = (struct reader){ &p, kind, 0, 0, 0 };
	for (int i = 0; i < 2; i++)
		pthread_create(&rt[i], NULL, pair_reader, &out[i]);
	pthread_create(&w, NULL, pair_writer, &p);
	pthread_join(w, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(rt[i], NULL);
}

static bool multi_cpu(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

KT_CASE(sequence_even_when_quiet)
{
	seqcount_t s = SEQCOUNT_INIT;
	uint32_t seq = seqcount_read_begin(&s);

	KT_ASSERT(!seqcount_read_retry(&s, seq));
	seqcount_write_begin(&s);
	KT_ASSERT_EQ(s.sequence & 1u, 1);
	/*
	 * A copy begun inside a write section is rejected (read_begin itself
	 * waits for the writer, so the odd start can only come from a raw read)...
	 */
	KT_ASSERT(seqcount_read_retry(&s, s.sequence));
	/* ...and so is one that straddles the end of a section. */
	KT_ASSERT(seqcount_read_retry(&s, seq));
	seqcount_write_end(&s);
	KT_ASSERT_EQ(s.sequence, seq + 2);
	KT_ASSERT(seqcount_read_retry(&s, seq));
	KT_ASSERT(!seqcount_read_retry(&s, seqcount_read_begin(&s)));
}

KT_CASE(readers_never_accept_torn_pair)
{
	struct reader r[2];

	race(READER_FULL, r);
	for (int i = 0; i < 2; i++) {
		KT_ASSERT_MSG(r[i].torn == 0, "reader %d accepted %lu torn copies of %lu",
			      i, r[i].torn, r[i].reads);
		KT_ASSERT_MSG(r[i].reads > 0, "reader %d never got a copy", i);
	}
	if (multi_cpu())
		KT_ASSERT_MSG(r[0].retries + r[1].retries > 0,
			      "no retry at all: the race never happened");
}

/* Controls: the race is real, so each half of the check matters. */
KT_CASE(control_plain_reads_see_torn_pair)
{
	struct reader r[2];

	if (!multi_cpu())
		return;
	race(READER_NO_SEQCOUNT, r);
	KT_ASSERT_MSG(r[0].torn + r[1].torn > 0, "plain reads never saw a torn pair");
}

KT_CASE(control_ignoring_odd_count_sees_torn_pair)
{
	struct reader r[2];

	if (!multi_cpu())
		return;
	race(READER_NO_ODD_CHECK, r);
	KT_ASSERT_MSG(r[0].torn + r[1].torn > 0,
		      "a reader ignoring the odd count never saw a torn pair");
}

struct avg_race {
	struct sched_avg sa;
	int stop, started;
	unsigned long reads, bad;
	uint32_t bad_sum, bad_period, bad_usage;
};

/* Fully running entity: every published state has sum == period == usage. */
static void *avg_writer(void *arg)
{
	struct avg_race *ar = arg;
	uint64_t now = 0;

	while (__atomic_load_n(&ar->started, __ATOMIC_ACQUIRE) < 2)
		;
	for (unsigned long i = 0; i < 2000000ul; i++) {
		/* Steps of 1..~1500 units: some cross boundaries, some not. */
		now += 1024u * (1u + (unsigned int)(i * 2654435761u % 1500u)) + 100u;
		pelt_update(&ar->sa, now, true, true);
	}
	__atomic_store_n(&ar->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *avg_reader(void *arg)
{
	struct avg_race *ar = arg;
	unsigned long reads = 0, bad = 0;

	__atomic_fetch_add(&ar->started, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&ar->stop, __ATOMIC_ACQUIRE)) {
		struct sched_avg snap;

		pelt_snapshot(&ar->sa, &snap);
		reads++;
		if (snap.runnable_avg_sum != snap.runnable_avg_period ||
		    snap.usage_avg_sum != snap.runnable_avg_period) {
			bad++;
			ar->bad_sum = snap.runnable_avg_sum;
			ar->bad_period = snap.runnable_avg_period;
			ar->bad_usage = snap.usage_avg_sum;
		}
	}
	__atomic_fetch_add(&ar->reads, reads, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ar->bad, bad, __ATOMIC_RELAXED);
	return NULL;
}

KT_CASE(pelt_snapshot_never_mixes_updates)
{
	static struct avg_race ar;
	pthread_t w, r[2];

	ar = (struct avg_race){ .stop = 0 };
	pelt_init(&ar.sa, 0);
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, avg_reader, &ar);
	pthread_create(&w, NULL, avg_writer, &ar);
	pthread_join(w, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	KT_ASSERT_MSG(ar.bad == 0, "%lu of %lu snapshots mixed updates (sum %u period %u usage %u)",
		      ar.bad, ar.reads, ar.bad_sum, ar.bad_period, ar.bad_usage);
	KT_ASSERT(ar.reads > 0);
	KT_ASSERT_EQ(ar.sa.seq.sequence & 1u, 0);
}

/* read_begin() waits out a writer in its section instead of returning an odd count. */
static seqcount_t wait_seq;
static volatile int writer_done;

static void *slow_writer(void *arg)
{
	(void)arg;
	seqcount_write_begin(&wait_seq);
	usleep(20000);
	writer_done = 1;
	seqcount_write_end(&wait_seq);
	return NULL;
}

KT_CASE(read_begin_waits_for_the_writer)
{
	pthread_t t;
	uint32_t seq;

	seqcount_init(&wait_seq);
	KT_ASSERT(pthread_create(&t, NULL, slow_writer, NULL) == 0);
	while (!(READ_ONCE(wait_seq.sequence) & 1u))
		;
	seq = seqcount_read_begin(&wait_seq);
	KT_ASSERT_EQ(seq & 1u, 0);
	KT_ASSERT(writer_done);
	pthread_join(t, NULL);
	KT_ASSERT(!seqcount_read_retry(&wait_seq, seq));
}
