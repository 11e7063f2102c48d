/*
 * The simulator's event loop (tools/ports/sim/sim.h, docs/schedsim.md).
 *
 * Each CPU is always suspended in one of two places when the loop runs: in
 * sim_wfi() (idle, waiting for an interrupt) or in sim_compute() (a task's
 * work, finishing at work_end unless an interrupt comes first). Its next
 * event is the earliest of its timer deadline, an IPI on its way and the end
 * of its work; a binary heap keyed by (next event, CPU) picks the CPU to
 * resume, so ties are broken by CPU number and runs are deterministic. The
 * resumed CPU runs kernel code until it waits again; its clock is the
 * event's time plus whatever it was charged on the way.
 *
 * Interrupts behave as on a CPU: an event latches the timer or IPI line; a
 * CPU in WFI wakes even with interrupts masked; the handlers run when the
 * CPU has interrupts unmasked (at once while computing, or when the kernel
 * unmasks them: arch_irq_enable/restore in port.c call sim_deliver_irqs()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/sched/sched.h"
#include "kernel/time/timer.h"
#include "tools/ports/sim/sim.h"

struct sim_config sim_cfg;
struct sim_cpu *sim_cpus;
int sim_nr_cpus;
/* Before the machine exists (argument and script checks), code runs as on a masked CPU 0. */
static struct sim_cpu before_boot = { .irq_masked = true, .timer_at = SIM_NEVER, .ipi_at = SIM_NEVER };
struct sim_cpu *sim_cur = &before_boot;

static int *heap;		/* CPU ids, min-heap on (next event, id) */
static void *loop_sp;		/* the loop's own context while a CPU runs */
static bool on_cpu_stack;	/* running a CPU's code (a coroutine), not the loop or the boot */
static bool stop_requested;
static uint64_t nr_events;

#define CPU_STACK_SIZE (256u * 1024u)

static uint64_t next_event(const struct sim_cpu *c)
{
	uint64_t t = c->timer_at < c->ipi_at ? c->timer_at : c->ipi_at;

	if (c->state == SIM_WORKING && c->work_end < t)
		t = c->work_end;
	if (c->speed_at < t)
		t = c->speed_at;
	if (c->state == SIM_OFF || c->state == SIM_RUNNING)
		return SIM_NEVER;
	return t;
}

/* Heap order on the keys cached by heap_fix(): (next event, CPU number). */
static bool before(int a, int b)
{
	uint64_t ta = sim_cpus[a].key, tb = sim_cpus[b].key;

	return ta < tb || (ta == tb && a < b);
}

static void heap_swap(int i, int j)
{
	int t = heap[i];

	heap[i] = heap[j];
	heap[j] = t;
	sim_cpus[heap[i]].heap_pos = i;
	sim_cpus[heap[j]].heap_pos = j;
}

/* CPU @cpu's key changed: move it up or down. O(log CPUs). */
static void heap_fix(int cpu)
{
	int i = sim_cpus[cpu].heap_pos;

	sim_cpus[cpu].key = next_event(&sim_cpus[cpu]);
	while (i > 0 && before(heap[i], heap[(i - 1) / 2])) {
		heap_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < sim_nr_cpus && before(heap[l], heap[m]))
			m = l;
		if (r < sim_nr_cpus && before(heap[r], heap[m]))
			m = r;
		if (m == i)
			break;
		heap_swap(i, m);
		i = m;
	}
}

void sim_machine_init(int nr_cpus, const uint32_t *capacity)
{
	sim_nr_cpus = nr_cpus;
	sim_cpus = calloc((size_t)nr_cpus, sizeof(*sim_cpus));
	heap = calloc((size_t)nr_cpus, sizeof(*heap));
	if (!sim_cpus || !heap) {
		fprintf(stderr, "schedsim: error: out of memory for %d CPUs\n", nr_cpus);
		exit(2);
	}
	for (int i = 0; i < nr_cpus; i++) {
		struct sim_cpu *c = &sim_cpus[i];

		c->id = i;
		c->capacity = capacity[i];
		c->speed = c->base_speed = sim_cfg.uniform_speed ? 1024u : capacity[i];
		c->speed_mult = ((1024ull << 32) + c->speed - 1) / c->speed;
		c->timer_at = c->ipi_at = c->work_end = c->speed_at = SIM_NEVER;
		c->state = SIM_OFF;
		c->key = SIM_NEVER;
		c->irq_masked = true;
		heap[i] = i;
		c->heap_pos = i;
	}
	sim_cur = &sim_cpus[0];
}

/* Suspend the calling CPU's execution; the loop resumes it at its next event. */
static void yield_to_loop(void)
{
	struct sim_cpu *c = sim_cur;

	on_cpu_stack = false;
	sim_switch(&c->sp, loop_sp);
	on_cpu_stack = true;
}

/* Enter CPU @c's suspended execution from the loop or the boot; back when it waits. */
static void resume(struct sim_cpu *c)
{
	sim_cur = c;
	on_cpu_stack = true;
	sim_switch(&loop_sp, c->sp);
	on_cpu_stack = false;
}

void sim_cpu_start(int cpu, void (*entry)(void))
{
	struct sim_cpu *c = &sim_cpus[cpu];
	struct sim_cpu *was = sim_cur;

	c->stack = malloc(CPU_STACK_SIZE);
	if (!c->stack) {
		fprintf(stderr, "schedsim: error: out of memory for CPU %d's stack\n", cpu);
		exit(2);
	}
	c->sp = sim_stack_init((char *)c->stack + CPU_STACK_SIZE, entry);
	c->state = SIM_RUNNING;
	/* Run its boot until it first waits (it yields back here). */
	resume(c);
	heap_fix(cpu);
	sim_cur = was;
}

/* @ns at capacity 1024 on @c: ns * 1024 / speed, rounded up, with a multiply (c->speed_mult). */
static uint64_t scaled(const struct sim_cpu *c, uint64_t ns)
{
	return c->speed == 1024 ? ns : (ns * c->speed_mult + 0xffffffffull) >> 32;
}

/*
 * --seed: each piece of a task's work and each kernel charge takes up to
 * WORK_JITTER_PPM more or less (uniform, a deterministic sequence per seed),
 * as a real CPU never runs the same code in exactly the same time. Without
 * it only the CPUs' boot times would differ, which the first idle period
 * forgets (each CPU's ticks keep their grid), and every seed would give the same run;
 * with it, repeats differ as on a board, and an experiment's confidence
 * intervals mean something. Seed 0: no jitter (the validated figures).
 */
#define WORK_JITTER_PPM 10000

static uint64_t jitter(uint64_t ns)
{
	static uint64_t state;
	uint64_t x;
	int64_t ppm;

	if (!sim_cfg.seed)
		return ns;
	state += 0x9e3779b97f4a7c15ull + sim_cfg.seed;
	x = state;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	ppm = (int64_t)(x % (2 * WORK_JITTER_PPM + 1)) - WORK_JITTER_PPM;
	return (uint64_t)((int64_t)ns + (int64_t)ns / 1000000 * ppm + (int64_t)(ns % 1000000) * ppm / 1000000);
}

const char *const sim_charge_names[CH_NR] = {
	[CH_SELECT] = "select", [CH_WAKEUP] = "wakeup", [CH_TICK] = "tick", [CH_IDLE_ENTER] = "idle_enter",
	[CH_IDLE_STATE] = "idle_state", [CH_IDLE_EXIT] = "idle_exit", [CH_SLEEP] = "sleep",
	[CH_SCHEDULE] = "schedule", [CH_NOHZ] = "nohz", [CH_SWITCH] = "switch", [CH_IRQ] = "irq",
	[CH_TIMER] = "timer", [CH_IRQ_EXIT] = "irq_exit", [CH_IPI_SEND] = "ipi_send", [CH_IPI_RECV] = "ipi_recv",
};
static uint64_t charged_ns[CH_NR], charged_n[CH_NR];

void sim_charge(enum sim_charge_kind kind, uint64_t ns)
{
	uint64_t t;

	if (!sim_cfg.overheads)
		return;
	t = scaled(sim_cur, jitter(ns));
	sim_cur->now += t;
	charged_ns[kind] += t;
	charged_n[kind]++;
}

void sim_charge_totals(uint64_t ns[CH_NR], uint64_t count[CH_NR])
{
	memcpy(ns, charged_ns, sizeof(charged_ns));
	memcpy(count, charged_n, sizeof(charged_n));
}

void sim_set_timer(uint64_t deadline_ns)
{
	sim_cur->timer_at = deadline_ns == TIMER_NEVER ? SIM_NEVER : deadline_ns;
}

void sim_send_ipi(int cpu)
{
	struct sim_cpu *c = &sim_cpus[cpu];
	uint64_t at;

	sim_charge(CH_IPI_SEND, sim_cfg.ipi_send_ns);
	at = sim_cur->now + sim_cfg.ipi_latency_ns;
	if (c == sim_cur) {
		c->irq_ipi = true;
		return;
	}
	if (at < c->ipi_at) {
		c->ipi_at = at;
		heap_fix(cpu);
	}
}

/* Latch what is due on @c at its clock. */
static void latch(struct sim_cpu *c)
{
	if (c->timer_at <= c->now) {
		c->timer_at = SIM_NEVER;
		c->irq_timer = true;
	}
	if (c->ipi_at <= c->now) {
		c->ipi_at = SIM_NEVER;
		c->irq_ipi = true;
	}
}

void sim_deliver_irqs(void)
{
	struct sim_cpu *c = sim_cur;

	/* What fell due while they were masked (the kernel's own time) is taken now, as on a GIC. */
	if (!c->irq_masked)
		latch(c);
	while (!c->irq_masked && (c->irq_timer || c->irq_ipi)) {
		c->irq_masked = true;
		sim_charge(CH_IRQ, sim_cfg.irq_ns);
		/* As the GIC handler: take every pending interrupt before leaving (it re-reads IAR). */
		do {
			bool ipi = c->irq_ipi, timer = c->irq_timer;

			c->irq_ipi = c->irq_timer = false;
			if (ipi) {
				sim_charge(CH_IPI_RECV, sim_cfg.ipi_recv_ns);
				sched_ipi();
			}
			if (timer) {
				sim_charge(CH_TIMER, sim_cfg.timer_ns);
				timers_run(c->now);
			}
			latch(c);
		} while (c->irq_timer || c->irq_ipi);
		sim_charge(CH_IRQ_EXIT, sim_cfg.irq_exit_ns);
		sched_irq_exit();
		/* Back from the handler, maybe much later and on another CPU (the task moved). */
		c = sim_cur;
		c->irq_masked = false;
		latch(c);
	}
}

void sim_wfi(void)
{
	struct sim_cpu *c = sim_cur;

	latch(c);
	if (c->irq_timer || c->irq_ipi || !on_cpu_stack)
		return;
	c->state = SIM_WFI;
	yield_to_loop();
	sim_cur->state = SIM_RUNNING;
}

void sim_compute(uint64_t ns)
{
	uint64_t left;

	if (on_cpu_stack)	/* not the boot's calibration: it sets every run's scale */
		ns = jitter(ns);
	left = scaled(sim_cur, ns);

	if (!on_cpu_stack) {	/* the boot computing (a calibration): nothing else runs yet */
		sim_cur->now += left;
		return;
	}
	while (left > 0) {
		struct sim_cpu *c = sim_cur;

		c->work_end = c->now + left;
		c->state = SIM_WORKING;
		yield_to_loop();
		c = sim_cur;
		c->state = SIM_RUNNING;
		left = c->work_end > c->now ? c->work_end - c->now : 0;
		c->work_end = SIM_NEVER;
		if (!c->irq_masked)
			sim_deliver_irqs();	/* may run other tasks for a while */
	}
}

void sim_busy_until(uint64_t t)
{
	if (!on_cpu_stack && sim_cur->now < t)
		sim_cur->now = t;
	while (sim_cur->now < t) {
		struct sim_cpu *c = sim_cur;

		c->work_end = t;
		c->state = SIM_WORKING;
		yield_to_loop();
		c = sim_cur;
		c->state = SIM_RUNNING;
		c->work_end = SIM_NEVER;
		if (!c->irq_masked)
			sim_deliver_irqs();
	}
}

void sim_set_speed_at(int cpu, uint32_t scale, uint64_t at)
{
	struct sim_cpu *c = &sim_cpus[cpu];
	uint32_t speed = (uint32_t)((uint64_t)c->base_speed * scale / 1024);

	c->next_speed = speed ? speed : 1;
	c->speed_at = at;
	if (c != sim_cur || c->state != SIM_RUNNING)
		heap_fix(cpu);
}

/*
 * A DVFS change fell due on @c (not running): the new speed from
 * max(speed_at, its clock); work in progress takes the rest of its time at
 * that speed.
 */
static void apply_speed(struct sim_cpu *c)
{
	uint64_t at = c->speed_at > c->now ? c->speed_at : c->now;

	if (c->state == SIM_WORKING && c->work_end > at)
		c->work_end = at + (c->work_end - at) * c->speed / c->next_speed;
	c->speed = c->next_speed;
	c->speed_mult = ((1024ull << 32) + c->speed - 1) / c->speed;
	c->speed_at = SIM_NEVER;
}

bool sim_run(uint64_t until_ns)
{
	while (!stop_requested) {
		int cpu = heap[0];
		struct sim_cpu *c = &sim_cpus[cpu];
		uint64_t t = c->key;

		if (t == SIM_NEVER)
			return false;
		if (t > until_ns)
			return true;
		if (t == c->speed_at) {
			/* Only the clock changes speed: the CPU itself is not woken. */
			apply_speed(c);
			heap_fix(cpu);
			continue;
		}
		if (c->now < t)
			c->now = t;
		latch(c);
		c->events++;
		nr_events++;
		resume(c);
		/* The CPU waits again (or the run was stopped); its key changed. */
		heap_fix(cpu);
	}
	return true;
}

void sim_stop(void)
{
	stop_requested = true;
}

bool sim_stopped(void)
{
	return stop_requested;
}

uint64_t sim_events(void)
{
	return nr_events;
}
