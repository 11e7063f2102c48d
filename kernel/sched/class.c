/*
 * The scheduling class table (include/kernel/sched/class.h): the
 * SCHED_CLASS() entries of every linked object, ordered by rank at
 * sched_init(), before any CPU schedules.
 */
#include "kernel/sched/class.h"

#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/panic.h"

/* GNU ld defines __start_/__stop_<section> for a section named as a C identifier. */
extern const struct linked_entry __start_sched_classes[], __stop_sched_classes[];	/* NOLINT(bugprone-reserved-identifier) */

const struct sched_class *sched_class_order[SCHED_MAX_CLASSES];
int sched_nr_classes;

/* The operations every class must have (the core calls them without a test). */
static void check_class(const struct sched_class *c)
{
	if (!c->name || !c->enqueue || !c->dequeue || !c->pick_next || !c->put_prev || !c->set_curr ||
	    !c->update_curr || !c->tick || !c->check_preempt || !c->select_rq)
		panic("sched: class '%s' lacks an operation include/kernel/sched/class.h requires",
		      c->name ? c->name : "?");
}

void sched_classes_init(void)
{
	const void *objs[SCHED_MAX_CLASSES];
	int n = linked_table_sort(__start_sched_classes, __stop_sched_classes, objs, SCHED_MAX_CLASSES, "sched",
				  "scheduling classes");
	int idle = 0;

	for (int i = 0; i < n; i++) {
		/* The classes are writable objects (their idx); the table holds them as const. */
		struct sched_class *c = (struct sched_class *)(uintptr_t)objs[i];

		check_class(c);
		idle += c->idle;
		c->idx = i;
		sched_class_order[i] = c;
	}
	if (idle != 1 || !sched_class_order[n - 1]->idle)
		panic("sched: %d idle classes linked; one, ranked last, is required", idle);
	sched_nr_classes = n;
}

const struct sched_class *sched_class_of_policy(int policy)
{
	if (policy < 0 || policy >= 32)
		return NULL;
	for (int i = 0; i < sched_nr_classes; i++)
		if (sched_class_order[i]->policies & SCHED_POLICY_BIT(policy))
			return sched_class_order[i];
	return NULL;
}

const struct sched_class *sched_idle_class(void)
{
	KASSERT(sched_nr_classes > 0);
	return sched_class_order[sched_nr_classes - 1];
}
