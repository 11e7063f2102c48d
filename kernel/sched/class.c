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
extern const struct sched_class_entry __start_sched_classes[], __stop_sched_classes[];	/* NOLINT(bugprone-reserved-identifier) */

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
	const struct sched_class_entry *sorted[SCHED_MAX_CLASSES];
	size_t nr = ((uintptr_t)__stop_sched_classes - (uintptr_t)__start_sched_classes) /
		    sizeof(struct sched_class_entry);
	int n = 0, idle = 0;

	for (size_t k = 0; k < nr; k++) {
		const struct sched_class_entry *e = &__start_sched_classes[k];
		int i = n;

		if (n == SCHED_MAX_CLASSES)
			panic("sched: more than %d scheduling classes linked", SCHED_MAX_CLASSES);
		check_class(e->cls);
		for (; i > 0 && e->rank < sorted[i - 1]->rank; i--)
			sorted[i] = sorted[i - 1];
		sorted[i] = e;
		n++;
		idle += e->cls->idle;
	}
	if (idle != 1 || !sorted[n - 1]->cls->idle)
		panic("sched: %d idle classes linked; one, ranked last, is required", idle);
	for (int i = 0; i < n; i++) {
		sorted[i]->cls->idx = i;
		sched_class_order[i] = sorted[i]->cls;
	}
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
