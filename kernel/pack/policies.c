/*
 * The placement policy table (include/kernel/pack/pack.h): the PACK_POLICY()
 * entries of every linked object, sorted by rank then name on first use
 * (at boot, before other CPUs run; a host program's first call), then any
 * pack_policy_register()ed at run time. The first entry is what `schedtopo
 * --list-modes` prints first; the order is the interface's, not a
 * preference.
 */
#include <stdint.h>
#include <string.h>

#include "arch/barrier.h"
#include "arch/spinlock.h"
#include "kernel/lib/format.h"
#include "kernel/pack/pack.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

/* GNU ld defines __start_/__stop_<section> for a section named as a C identifier. */
extern const struct linked_entry __start_pack_policies[], __stop_pack_policies[];	/* NOLINT(bugprone-reserved-identifier) */

static const struct pack_policy *table[PACK_MAX_POLICIES];
static int nr_policies = -1;	/* -1: the linked entries not read yet */

static bool valid(const struct pack_policy *p);

/* The linked policies, in rank order, each checked against pack.h's contract. */
static void table_init(void)
{
	const void *objs[PACK_MAX_POLICIES];
	int n = linked_table_sort(__start_pack_policies, __stop_pack_policies, objs, PACK_MAX_POLICIES, "pack",
				  "placement policies");

	for (int i = 0; i < n; i++) {
		table[i] = objs[i];
		if (!valid(table[i]))
			panic("pack: policy '%s' breaks include/kernel/pack/pack.h's contract", table[i]->name);
	}
	nr_policies = n;
}

static inline int count(void)
{
	if (__builtin_expect(nr_policies < 0, 0))
		table_init();
	return nr_policies;
}

const struct pack_policy *pack_policy_at(int i)
{
	return i >= 0 && i < count() ? table[i] : NULL;
}

int pack_policy_count(void)
{
	return count();
}

const struct pack_policy *pack_policy_find(const char *name)
{
	for (int i = 0; name && i < count(); i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

const char *pack_policy_list(char *buf, size_t size)
{
	const void *objs[PACK_MAX_POLICIES];
	int n = count();

	for (int i = 0; i < n; i++)
		objs[i] = table[i];
	return linked_table_names(objs, n, buf, size);
}

static bool valid_name(const char *s)
{
	if (!s || !*s || strlen(s) > 15)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static bool valid(const struct pack_policy *p)
{
	if (!p || !valid_name(p->name) || !p->desc || !p->select || !p->reasons || p->nr_reasons < 1 ||
	    p->nr_reasons > PACK_MAX_REASONS)
		return false;
	for (int r = 0; r < p->nr_reasons; r++)
		if (!p->reasons[r])
			return false;
	return true;
}

int pack_policy_register(const struct pack_policy *p)
{
	if (!valid(p) || count() >= PACK_MAX_POLICIES || pack_policy_find(p->name))
		return -1;
	table[nr_policies++] = p;
	return 0;
}

const struct pack_policy *pack_policy_from_arg(const char *arg, const char *who)
{
	const struct pack_policy *p;
	char names[PACK_POLICY_LIST_SIZE];

	if (!arg)
		return PACK_DEFAULT_POLICY;
	p = pack_policy_find(arg);
	if (p)
		return p;
	kprintf("%s: error: unknown pack mode '%s' (%s); using %s\n", who, arg, pack_policy_list(names, sizeof(names)),
		PACK_DEFAULT_POLICY->name);
	return PACK_DEFAULT_POLICY;
}

const struct pack_policy *pack_policy_current(void)
{
	return READ_ONCE(sched_topo.policy);
}

int pack_set_policy(const struct pack_policy *p)
{
	static struct topology next;	/* too big for a task stack */
	static spinlock_t lock = SPINLOCK_INIT;
	unsigned long flags;

	if (!p || pack_policy_find(p->name) != p)
		return -1;
	flags = spin_lock_irqsave(&lock);
	next = sched_topo;
	topology_build(&next, p);
	for (int cpu = 0; cpu < next.nr_cpus; cpu++) {
		WRITE_ONCE(sched_topo.powerline[cpu], next.powerline[cpu]);
		for (int l = 0; l < next.nr_levels[cpu]; l++)
			WRITE_ONCE(sched_topo.sd[cpu][l].flags, next.sd[cpu][l].flags);
		WRITE_ONCE(sched_topo.pack_buddy_check_fit[cpu], next.pack_buddy_check_fit[cpu]);
		WRITE_ONCE(sched_topo.pack_buddy[cpu], next.pack_buddy[cpu]);
		WRITE_ONCE(cpu_rq(cpu)->misfit_push, NULL);	/* the old policy's; its CPU may push once anyway */
	}
	/*
	 * The outcome counters are the new policy's from now on. A wake-up
	 * that read the old policy may still count once after the reset.
	 */
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		for (int r = 0; r < PACK_MAX_REASONS; r++)
			__atomic_store_n(&cpu_rq(cpu)->pack_stats[r], 0, __ATOMIC_RELAXED);
	if (p->start)
		p->start();	/* before any wake-up reads it: its state from an earlier reign is stale */
	WRITE_ONCE(sched_topo.policy, p);
	balance_set_policy_tick(p);
	spin_unlock_irqrestore(&lock, flags);
	return 0;
}
