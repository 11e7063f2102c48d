/*
 * schedsim: the kernel's scheduler (kernel/) on a simulated machine. This
 * header is the simulator's inside: the machine's CPUs, the event loop that
 * runs them in simulated time, and what its port of the arch interface
 * (port.c) shares with it. docs/schedsim.md describes the model.
 *
 * One host thread runs every simulated CPU. Each CPU has its own clock; the
 * loop always resumes the CPU whose next event (timer, IPI, end of a piece
 * of work) is earliest. Kernel tasks run on host stacks (coroutines), so a
 * task's code and the scheduler's run for real; only time is simulated:
 * a task's computation (arch_work) and the kernel's own overheads
 * (arch_cost, context switches, interrupts, idle entry and exit) advance
 * the CPU's clock instead of taking host time.
 */
#ifndef SCHEDSIM_SIM_H
#define SCHEDSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cost.h"

#define SIM_NEVER UINT64_MAX

enum sim_cpu_state {
	SIM_OFF,	/* not started */
	SIM_RUNNING,	/* executing kernel or task code (the loop is not running) */
	SIM_WORKING,	/* a task computes until work_end, unless an interrupt comes first */
	SIM_WFI,	/* waiting for an interrupt */
};

struct sim_cpu {
	int id;
	uint32_t capacity;		/* the DT's capacity-dmips-mhz (1024 scale) */
	uint32_t speed;			/* how fast it runs work: capacity, or 1024 (--speed=uniform) */
	uint64_t speed_mult;		/* 2^32 * 1024 / speed, rounded up */
	uint32_t base_speed;		/* speed at the top OPP (DVFS scales it) */
	uint32_t next_speed;		/* a DVFS change on its way: speed from speed_at on */
	uint64_t speed_at;		/* SIM_NEVER: none */
	uint64_t now;			/* its clock, ns */
	enum sim_cpu_state state;
	uint64_t work_end;		/* SIM_WORKING: when the work is done */
	uint64_t timer_at;		/* its programmed timer deadline, or SIM_NEVER */
	uint64_t ipi_at;		/* earliest IPI on its way, or SIM_NEVER */
	bool irq_timer, irq_ipi;	/* latched, not yet taken */
	bool irq_masked;
	void *sp;			/* where its execution is suspended, for the loop */
	void *stack;			/* its boot/idle context's stack */
	int heap_pos;
	uint64_t key;			/* its next event when last placed in the heap */
	uint64_t events;		/* times the loop resumed it */
};

struct sim_config {
	bool overheads;			/* charge the kernel's own costs */
	bool uniform_speed;		/* every CPU runs work at capacity 1024 (as QEMU does) */
	uint64_t cost_ns[COST_NR];	/* arch_cost() charges */
	uint64_t switch_ns, irq_ns, timer_ns, irq_exit_ns, ipi_send_ns, ipi_recv_ns, ipi_latency_ns;
	uint64_t seed;			/* --seed: 0, or the work jitter's sequence (engine.c) */
};

extern struct sim_config sim_cfg;
/*
 * DVFS (the simulator's cpufreq back end, cpufreq_sim.c): from @at on, CPU
 * @cpu runs work at @scale / 1024 of its top-OPP speed; work in progress
 * then takes the rest of its time at the new speed. The change is applied by
 * the event loop at max(@at, the CPU's clock), never by waking the CPU.
 */
void sim_set_speed_at(int cpu, uint32_t scale, uint64_t at);
struct cpufreq_backend;
extern const struct cpufreq_backend sim_cpufreq_backend;
/* The kernel's measured costs (costs.c); --overheads=off zeroes them by not charging. */
void sim_cfg_defaults(void);
extern struct sim_cpu *sim_cpus;
extern int sim_nr_cpus;
extern struct sim_cpu *sim_cur;		/* the CPU whose code runs now */

/* The loop. */
void sim_machine_init(int nr_cpus, const uint32_t *capacity);
/* Start CPU @cpu's boot context running @entry (it never returns); runs until its first wait. */
void sim_cpu_start(int cpu, void (*entry)(void));
/* Run until sim_stop() or @until_ns of simulated time; returns false if nothing was left to happen. */
bool sim_run(uint64_t until_ns);
void sim_stop(void);
bool sim_stopped(void);
/* The calling CPU waits (WFI) until an interrupt is pending. */
void sim_wfi(void);
/* The calling task computes for @ns of CPU time at capacity 1024 (interruptible). */
void sim_compute(uint64_t ns);
/* The calling task is busy until its CPU's clock reads @t (interruptible; a spin on the clock). */
void sim_busy_until(uint64_t t);
/* What the simulated CPUs spent their time on (--stats). */
enum sim_charge_kind {
	CH_SELECT = COST_SELECT, CH_WAKEUP = COST_WAKEUP, CH_TICK = COST_TICK, CH_IDLE_ENTER = COST_IDLE_ENTER,
	CH_IDLE_STATE = COST_IDLE_STATE,
	CH_IDLE_EXIT = COST_IDLE_EXIT, CH_SLEEP = COST_SLEEP, CH_SCHEDULE = COST_SCHEDULE, CH_NOHZ = COST_NOHZ,
	CH_SWITCH = COST_NR, CH_IRQ, CH_TIMER, CH_IRQ_EXIT, CH_IPI_SEND, CH_IPI_RECV, CH_NR,
};
extern const char *const sim_charge_names[CH_NR];
/* The calling CPU spends @ns at capacity 1024 in the kernel, on @kind. */
void sim_charge(enum sim_charge_kind kind, uint64_t ns);
/* Totals, ns of simulated time and count, per kind. */
void sim_charge_totals(uint64_t ns[CH_NR], uint64_t count[CH_NR]);
/* Interrupts: latch a timer/IPI, take pending ones if unmasked. */
void sim_deliver_irqs(void);
void sim_send_ipi(int cpu);
void sim_set_timer(uint64_t deadline_ns);
/* Statistics for --stats. */
uint64_t sim_events(void);

/* Context switching between host stacks (switch_<arch>.S). */
void sim_switch(void **save_sp, void *next_sp);
void *sim_stack_init(void *stack_top, void (*entry)(void));

/* Output (port.c): console lines to stdout, or to the trace file during a dump. */
void sim_console_write(const char *buf, unsigned long len);
void sim_console_flush(void);
void sim_set_output(void *file);	/* a FILE *, NULL: stdout */

#endif
