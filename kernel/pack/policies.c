/*
 * The placement policy table (include/kernel/pack.h). Adding a policy to
 * the kernel: its file in kernel/pack/, and one line here. The first entry
 * is what `schedtopo --list-modes` prints first; the order is the
 * interface's, not a preference.
 */
#include <string.h>

#include "arch/barrier.h"
#include "arch/spinlock.h"
#include "kernel/format.h"
#include "kernel/pack.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/topology.h"

static const struct pack_policy *table[PACK_MAX_POLICIES] = {
	&policy_off,
	&policy_rails,
	&policy_all,
	&policy_energy,
};
static int nr_policies = 4;

const struct pack_policy *pack_policy_at(int i)
{
	return i >= 0 && i < nr_policies ? table[i] : NULL;
}

int pack_policy_count(void)
{
	return nr_policies;
}

const struct pack_policy *pack_policy_find(const char *name)
{
	for (int i = 0; name && i < nr_policies; i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

const char *pack_policy_list(char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (int i = 0; i < nr_policies && n < size; i++)
		n += (size_t)ksnprintf(buf + n, size - n, "%s%s", i ? ", " : "", table[i]->name);
	return buf;
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

int pack_policy_register(const struct pack_policy *p)
{
	if (!p || !valid_name(p->name) || !p->desc || !p->select || !p->reasons || p->nr_reasons < 1 ||
	    p->nr_reasons > PACK_MAX_REASONS || nr_policies >= PACK_MAX_POLICIES || pack_policy_find(p->name))
		return -1;
	for (int r = 0; r < p->nr_reasons; r++)
		if (!p->reasons[r])
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
		WRITE_ONCE(sched_topo.pack_buddy[cpu], next.pack_buddy[cpu]);
	}
	/*
	 * The outcome counters are the new policy's from now on. A wake-up
	 * that read the old policy may still count once after the reset.
	 */
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		for (int r = 0; r < PACK_MAX_REASONS; r++)
			__atomic_store_n(&cpu_rq(cpu)->pack_stats[r], 0, __ATOMIC_RELAXED);
	WRITE_ONCE(sched_topo.policy, p);
	spin_unlock_irqrestore(&lock, flags);
	return 0;
}
