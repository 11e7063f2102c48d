/*
 * Task slots and stacks: a fixed pool (no allocator in the kernel), task
 * ids from a counter that never wraps in practice (2^32 creations) and is
 * never reused, so a stale id cannot name a new task.
 */
#include <string.h>

#include "arch/cpu.h"
#include "arch/mm.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/sched/sched_internal.h"

#ifdef __arm__
#include "arch/context.h"
#endif

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
	se_init(&t->se, 0);
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

struct task *task_create(const char *name, void (*fn)(void *), void *arg, int nice,
			 uint32_t cpus_allowed)
{
	uint32_t online = sched_online_mask();
	unsigned long flags;
	struct task *t = NULL;

	if (nice < NICE_MIN || nice > NICE_MAX || !(cpus_allowed & online))
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
	task_cpus_from_word(t, cpus_allowed & online);
	se_init(&t->se, nice);
#ifdef __arm__
	arch_context_init(&t->ctx, (uint8_t *)t->stack + TASK_STACK_SIZE, task_start);
#else
	(void)task_start;
#endif
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
