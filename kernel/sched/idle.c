/*
 * The idle path: choose a state (governor), tell the rail (last man /
 * first man), enter it through the platform hooks, account residency.
 * See include/kernel/idle.h.
 */
#include "kernel/idle.h"

#include "arch/barrier.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "arch/ipi.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/power.h"
#include "kernel/printk.h"
#include "kernel/timer.h"
#include "kernel/topology.h"
#include "kernel/trace.h"
#include "kernel/warmboot.h"

uint64_t idle_latency_limit_ns = IDLE_NO_LIMIT;
bool idle_local_timer_stops;

static struct cpu_idle cpu_idles[TOPO_MAX_CPUS];
static struct rail rails[IDLE_MAX_RAILS];
static int nr_rails;
static bool ready;

/* Run under the rail lock, so the trace shows the rail's changes in their real order. */
static void rail_power_down(int rail)
{
	trace_cluster_power(arch_cpu_id(), rails[rail].cluster, false);
	platform_cluster_power_down(rail);
}

static void rail_power_up(int rail)
{
	trace_cluster_power(arch_cpu_id(), rails[rail].cluster, true);
	platform_cluster_power_up(rail);
}

static const struct rail_ops platform_rail_ops = {
	.power_down = rail_power_down,
	.power_up = rail_power_up,
};

void idle_init_dt(const struct fdt *fdt)
{
	uint64_t now = arch_now_ns();
	char err[128];

	nr_rails = idle_parse_dt(fdt, &sched_topo, cpu_idles, rails, now, err, sizeof(err));
	if (nr_rails < 0)
		panic("dtb: %s", err);
	/* Secondaries are not running yet: count them as down until they arrive. */
	for (int r = 0; r < nr_rails; r++) {
		rails[r].idle = rails[r].want_off = rails[r].cpus & ~(1u << arch_cpu_id());
		rails[r].state = rails[r].idle == rails[r].cpus ? RAIL_OFF : RAIL_BUSY;
	}
	ready = true;
}

void idle_cpu_online(int cpu)
{
	struct cpu_idle *ci = &cpu_idles[cpu];

	if (!ready || cpu == 0)
		return;
	ci->since_ns = arch_now_ns();
	rail_cpu_busy(&rails[ci->rail], ci->rail, cpu, ci->since_ns, &platform_rail_ops);
}

void cpu_idle_enter(int cpu, uint64_t next_timer_ns)
{
	struct cpu_idle *ci = &cpu_idles[cpu];
	uint64_t now, sleep_ns, woke;
	bool last_man;
	int state;

	if (!ready) {
		platform_cpu_power_down(cpu, false, false);
		return;
	}
	arch_cost(COST_IDLE_ENTER);
	if (ci->unreflected_ns != UINT64_MAX) {
		idle_gov_reflect(&ci->gov, ci->unreflected_ns);
		ci->unreflected_ns = UINT64_MAX;
	}
	now = arch_now_ns();
	sleep_ns = next_timer_ns == TIMER_NEVER ? UINT64_MAX : next_timer_ns > now ? next_timer_ns - now : 0;
	state = idle_gov_select(&ci->gov, ci->states, ci->nr_states, sleep_ns, idle_latency_limit_ns);
	/* No broadcast timer: a pending timer must keep running (kernel/warmboot.h). */
	if (READ_ONCE(idle_local_timer_stops))
		state = warmboot_idle_state_for_timer(ci->states, state, next_timer_ns != TIMER_NEVER);
	cpu_idle_account_enter(ci, state, now);
	trace_cpu_idle(cpu, state);
	last_man = rail_cpu_idle(&rails[ci->rail], ci->rail, cpu, ci->states[state].domain, now,
				 &platform_rail_ops);
	platform_cpu_power_down(cpu, ci->states[state].domain, last_man);
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
