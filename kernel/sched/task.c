/*
 * Task slots and stacks: a fixed pool (no allocator in the kernel), task
 * ids from a counter that never wraps in practice (2^32 creations) and is
 * never reused, so a stale id cannot name a new task.
 */
#include <string.h>

#include "arch/cpu.h"
#include "arch/mm.h"
#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"

#include "arch/context.h"

static struct task tasks[MAX_TASKS];
static struct task idle_tasks[CONFIG_NR_CPUS];
/* [guard page][stack] per slot; the port unmaps the guard (arch_guard_page). */
#define STACK_SLOT (TASK_GUARD_SIZE + TASK_STACK_SIZE)
static uint8_t stacks[MAX_TASKS][STACK_SLOT] __attribute__((aligned(4096)));
static spinlock_t tasks_lock = SPINLOCK_INIT;
static uint32_t next_tid = 1;
static int nr_live;

static void copy_name(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n >= TASK_NAME_LEN)
		n = TASK_NAME_LEN - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

struct task *task_alloc_idle(int cpu)
{
	struct task *t = &idle_tasks[cpu];
	char name[TASK_NAME_LEN] = "idle/";
	cpumask_t own = cpumask_of(cpu);

	memset(t, 0, sizeof(*t));
	name[5] = (char)('0' + cpu % 10);
	copy_name(t->name, name);
	t->tid = 0;
	t->state = TASK_RUNNABLE;
	t->cpu = cpu;
	t->is_idle = true;
	task_set_cpus(t, &own);
	cpumask_fill(&t->spawn_cpus, CONFIG_NR_CPUS);	/* what it creates may run anywhere */
	se_init(&t->se, 0);
	t->sched_class = sched_idle_class();
	return t;
}

static void task_start(void)
{
	struct task *self;

	sched_finish_switch();
	self = current_task();
	self->fn(self->arg);
	task_exit(0);
}

/*
 * What a task created now inherits: where it may run (@want, online, and
 * the creator's spawn set) and its policy (the creator's spawn policy: chrt).
 */
static void creation_inherit(const cpumask_t *want, cpumask_t *out, struct task *t)
{
	const struct task *creator = sched_nr_cpus() ? current_task() : NULL;

	cpumask_and(out, want, &sched_cpus_online);
	t->spawn_policy = SCHED_OTHER;
	t->spawn_prio = 0;
	if (creator) {
		t->spawn_cpus = creator->spawn_cpus;
		cpumask_and(out, out, &t->spawn_cpus);
		t->spawn_policy = creator->spawn_policy;
		t->spawn_prio = creator->spawn_prio;
	} else {
		cpumask_fill(&t->spawn_cpus, CONFIG_NR_CPUS);
	}
	t->policy = t->spawn_policy;
	t->rt_priority = t->spawn_prio;
	t->prio = t->spawn_prio;
	t->sched_class = sched_class_of_policy(t->policy);
	KASSERT(t->sched_class);
}

struct task *task_create(const char *name, void (*fn)(void *), void *arg, int nice,
			 uint32_t cpus_allowed)
{
	cpumask_t m;

	if (cpus_allowed == TASK_CPUS_ANY)
		cpumask_fill(&m, CONFIG_NR_CPUS);
	else
		m = cpumask_from_u32(cpus_allowed);
	return task_create_mask(name, fn, arg, nice, &m);
}

struct task *task_create_mask(const char *name, void (*fn)(void *), void *arg, int nice,
			      const cpumask_t *cpus_allowed)
{
	cpumask_t cpus;
	unsigned long flags;
	struct task *t = NULL, inherit;

	creation_inherit(cpus_allowed, &cpus, &inherit);
	if (nice < NICE_MIN || nice > NICE_MAX || cpumask_empty(&cpus))
		return NULL;
	flags = spin_lock_irqsave(&tasks_lock);
	for (int i = 0; i < MAX_TASKS; i++) {
		if (tasks[i].state == TASK_FREE) {
			t = &tasks[i];
			memset(t, 0, sizeof(*t));
			t->state = TASK_WAKING;	/* claimed */
			t->tid = next_tid++;
			t->stack = stacks[i] + TASK_GUARD_SIZE;
			nr_live++;
			break;
		}
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (!t)
		return NULL;
	copy_name(t->name, name);
	t->fn = fn;
	t->arg = arg;
	task_set_cpus(t, &cpus);
	t->spawn_cpus = inherit.spawn_cpus;
	t->spawn_policy = inherit.spawn_policy;
	t->spawn_prio = inherit.spawn_prio;
	t->policy = inherit.policy;
	t->rt_priority = inherit.rt_priority;
	t->prio = inherit.prio;
	t->sched_class = inherit.sched_class;
	t->rt.time_slice = sched_rr_timeslice_ns;
	se_init(&t->se, nice);
	arch_context_init(&t->ctx, (uint8_t *)t->stack + TASK_STACK_SIZE, task_start);
	sched_start_task(t);
	return t;
}

void task_exit(int code)
{
	sched_exit_current(code);
}

void task_free(struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);

	KASSERT(t->state == TASK_EXITED);
	t->state = TASK_FREE;
	nr_live--;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

int sched_nr_tasks(void)
{
	return nr_live;
}

void sched_for_each_task(void (*fn)(const struct task *t, void *arg), void *arg)
{
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		if (idle_tasks[cpu].is_idle)	/* CPUs that never arrived have none */
			fn(&idle_tasks[cpu], arg);
	for (int i = 0; i < MAX_TASKS; i++)
		if (tasks[i].state != TASK_FREE)
			fn(&tasks[i], arg);
}

struct task *task_find(uint32_t tid)
{
	if (tid == 0)
		return NULL;	/* the idle tasks share it */
	for (int i = 0; i < MAX_TASKS; i++)
		if (READ_ONCE(tasks[i].state) != TASK_FREE && READ_ONCE(tasks[i].tid) == tid)
			return &tasks[i];
	return NULL;
}

const char *task_state_name(const struct task *t)
{
	switch (t->state) {
	case TASK_RUNNABLE:
		return cpu_rq(t->cpu)->curr == t ? "running" : "ready";
	case TASK_SLEEPING: return "sleeping";
	case TASK_WAKING: return "waking";
	case TASK_EXITED: return "exited";
	default: return "free";
	}
}

void task_stacks_guard(void)
{
	_Static_assert(TASK_GUARD_SIZE == ARCH_PAGE_SIZE, "one guard page per stack");
	for (int i = 0; i < MAX_TASKS; i++)
		arch_guard_page((uintptr_t)stacks[i]);
}

struct task *task_of_guard(uintptr_t addr)
{
	uintptr_t base = (uintptr_t)stacks;

	if (addr < base || addr >= base + sizeof(stacks))
		return NULL;
	if ((addr - base) % STACK_SLOT >= TASK_GUARD_SIZE)
		return NULL;
	return &tasks[(addr - base) / STACK_SLOT];
}

uintptr_t task_spare_guard_page(void)
{
	return (uintptr_t)stacks[MAX_TASKS - 1];
}
