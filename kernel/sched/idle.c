/*
 * The idle path: choose a state (governor), tell the rail (last man /
 * first man), enter it through the platform hooks, account residency.
 * See include/kernel/sched/idle.h.
 */
#include "kernel/sched/idle.h"

#include "arch/barrier.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "arch/ipi.h"
#include "arch/power.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/time/timer.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/topology.h"
#include "kernel/trace/trace.h"
#include "kernel/sched/warmboot.h"

uint64_t idle_latency_limit_ns = IDLE_NO_LIMIT;

static struct cpu_idle cpu_idles[TOPO_MAX_CPUS];
static struct rail rails[IDLE_MAX_RAILS];
static int nr_rails;
static bool ready;

/*
 * Run under the rail lock, so the trace shows the rail's changes in their
 * real order. The rail may really lose power only if that loses no timer:
 * there is no broadcast timer (kernel/warmboot.h).
 */
static void rail_power_down(int rail)
{
	bool may_lose_power = !platform_domain_stops_timer() ||
			      warmboot_cluster_may_power_off(&rails[rail].cpus, sched_topo.nr_cpus, timers_next_expiry,
							     NULL);

	trace_cluster_power(rails[rail].cluster, false);
	platform_cluster_power_down(rail, may_lose_power);
}

static void rail_power_up(int rail)
{
	trace_cluster_power(rails[rail].cluster, true);
	platform_cluster_power_up(rail);
}

static const struct rail_ops platform_rail_ops = {
	.power_down = rail_power_down,
	.power_up = rail_power_up,
};

void idle_init_dt(const struct fdt *fdt)
{
	struct power_rail power[IDLE_MAX_RAILS];
	uint64_t now = arch_now_ns();
	char err[128];

	nr_rails = idle_parse_dt(fdt, &sched_topo, cpu_idles, rails, now, err, sizeof(err));
	if (nr_rails < 0)
		panic("dtb: %s", err);
	/*
	 * Secondaries are not running yet: count them as down until they
	 * arrive, and accumulate no residency (since = never) until then, so
	 * that a CPU that never comes online appears in no figure.
	 */
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		if (cpu != arch_cpu_id())
			cpu_idles[cpu].since_ns = UINT64_MAX;
	for (int r = 0; r < nr_rails; r++) {
		struct rail *rl = &rails[r];

		rl->idle = rl->cpus;
		cpumask_clear_cpu(&rl->idle, arch_cpu_id());
		rl->want_off = rl->idle;
		rl->state = cpumask_equal(&rl->idle, &rl->cpus) ? RAIL_OFF : RAIL_BUSY;
		power[r].cpus = rl->cpus;
		power[r].domain_node = rl->node;
	}
	/* The platform maps each rail to what powers it before any CPU idles. */
	platform_power_init(fdt, power, nr_rails);
	ready = true;
}

void idle_cpu_online(int cpu)
{
	struct cpu_idle *ci = &cpu_idles[cpu];
	unsigned long flags;

	if (!ready || cpu == 0)
		return;
	flags = arch_irq_save();	/* rail_cpu_busy(): IRQs off */
	ci->since_ns = arch_now_ns();
	rail_cpu_busy(&rails[ci->rail], ci->rail, cpu, ci->since_ns, &platform_rail_ops);
	arch_irq_restore(flags);
}

void cpu_idle_enter(int cpu, uint64_t next_timer_ns)
{
	struct cpu_idle *ci = &cpu_idles[cpu];
	uint64_t now, sleep_ns, woke;
	bool last_man;
	int state;

	OPTIMIZER_HIDE_VAR(ci);	/* kept, not rebuilt from cpu (a multiply-add) after each call */

	if (!ready) {
		platform_cpu_power_down(cpu, -1, false, false);
		return;
	}
	arch_cost(COST_IDLE_ENTER);
	if (ci->unreflected_ns != UINT64_MAX) {
		idle_gov_reflect(&ci->gov, ci->unreflected_ns);
		ci->unreflected_ns = UINT64_MAX;
	}
	now = arch_now_ns();
	arch_cost(COST_IDLE_STATE);	/* after the timestamp: residency counts it as idle, as on the board */
	sleep_ns = next_timer_ns == TIMER_NEVER ? UINT64_MAX : next_timer_ns > now ? next_timer_ns - now : 0;
	state = idle_gov_select(&ci->gov, ci->states, ci->nr_states, sleep_ns, idle_latency_limit_ns);
	/* No broadcast timer: a pending timer must keep running (kernel/warmboot.h). */
	if (platform_domain_stops_timer())
		state = warmboot_idle_state_for_timer(ci->states, state, next_timer_ns != TIMER_NEVER);
	cpu_idle_account_enter(ci, state, now);
	if (cpufreq_enabled)
		cpufreq_note_idle(cpu);
	trace_cpu_idle(cpu, state);
	last_man = rail_cpu_idle(&rails[ci->rail], ci->rail, cpu, ci->states[state].domain, now,
				 &platform_rail_ops);
	platform_cpu_power_down(cpu, ci->rail, ci->states[state].domain, last_man);
	woke = arch_now_ns();
	arch_cost(COST_IDLE_EXIT);
	rail_cpu_busy(&rails[ci->rail], ci->rail, cpu, woke, &platform_rail_ops);
	cpu_idle_account_exit(ci, woke);
	trace_cpu_idle(cpu, -1);
	ci->unreflected_ns = woke - now;
}

struct cpu_idle *cpu_idle_of(int cpu)
{
	KASSERT(cpu >= 0 && cpu < TOPO_MAX_CPUS);
	return &cpu_idles[cpu];
}

int idle_nr_rails(void)
{
	return nr_rails;
}

struct rail *idle_rail(int i)
{
	KASSERT(i >= 0 && i < nr_rails);
	return &rails[i];
}

const struct rail *rails_base(void)
{
	return rails;
}

void idle_set_latency_limit(uint64_t ns)
{
	idle_latency_limit_ns = ns;
	/* Like a PM QoS update: wake idle CPUs so they choose again under the new limit. */
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		if (cpu != arch_cpu_id() && cpu_idles[cpu].cur_state >= 0)
			arch_send_reschedule(cpu);
}
