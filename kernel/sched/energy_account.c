/*
 * The kernel's energy accounting: the model from the DT, snapshots of the
 * residencies kept by the idle path (kernel/sched/idle.c), and the meters when
 * the board has them. See include/kernel/sched/energy.h.
 */
#include "arch/energy_meter.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"

static struct energy_model model;

void energy_init_dt(const struct fdt *fdt)
{
	char err[128];
	int rc = energy_model_parse_dt(fdt, &sched_topo, cpu_idle_of(0), idle_nr_rails(), &model, err,
				       sizeof(err));

	if (rc < 0)
		panic("dtb: %s", err);
	if (rc > 0)
		kprintf("energy: no energy model in the DT; energy figures will read 0\n");
	if (energy_model_bind_opps(&model, cpufreq_table(), cpu_idle_of(0), rails_base(), err, sizeof(err)) < 0)
		panic("dtb: %s", err);
	cpufreq_model_ready(&model);
	energy_meter_init_dt(fdt);
}

const struct energy_model *energy_model(void)
{
	return &model;
}

void energy_take_snapshot_model(struct energy_snapshot *s)
{
	s->t_ns = arch_now_ns();
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		cpu_idle_read(cpu_idle_of(cpu), s->t_ns, &s->cpu_busy_ns[cpu], s->cpu_state_ns[cpu]);
	for (int r = 0; r < idle_nr_rails(); r++)
		rail_residency(idle_rail(r), s->t_ns, s->rail_ns[r]);
	s->nr_domains = model.nr_domains;
	for (int d = 0; d < s->nr_domains; d++)
		cpufreq_energy_counters(cpufreq_domain(d), s->t_ns, &s->dom_core_pns[d], &s->dom_rail_pns[d],
					&s->dom_khz_ns[d]);
	s->meters_ok = false;
}

void energy_take_snapshot(struct energy_snapshot *s)
{
	energy_take_snapshot_model(s);
	s->meters_ok = energy_meter_available();
	for (int i = 0; s->meters_ok && i < energy_meter_count() && i < 4; i++)
		if (energy_meter_read_uj(i, &s->meter_uj[i]) != 0)
			s->meters_ok = false;
}

/* ns -> us */
static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)(ns / 1000);
}

int energy_result_fields(char *buf, size_t size, const struct energy_snapshot *from,
			 const struct energy_snapshot *to)
{
	struct energy_report rep;
	size_t n = 0;

#define OUT(...) (n += (size_t)ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__))
	energy_compute(&model, from, to, rails_base(), &rep);
	if (from->meters_ok && to->meters_ok) {
		/* Real meters: uJ per cluster, as the seeds measured on TC2. */
		uint64_t total = 0;

		for (int i = 0; i < energy_meter_count() && i < 4; i++)
			total += energy_meter_delta(from->meter_uj[i], to->meter_uj[i]);
		OUT("energy=%llu", (unsigned long long)total);
		for (int i = 0; i < energy_meter_count() && i < 4; i++)
			OUT(" energy_c%d=%llu", energy_meter_cluster(i),
			    (unsigned long long)energy_meter_delta(from->meter_uj[i], to->meter_uj[i]));
	} else {
		OUT("energy=%llu", (unsigned long long)rep.total);
		for (int r = 0; r < model.nr_rails; r++)
			OUT(" energy_c%d=%llu", idle_rail(r)->cluster, (unsigned long long)rep.cluster[r]);
	}
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++) {
		uint64_t idle = 0;

		if (!sched_cpu_online_now(cpu))
			continue;	/* never came online: no figure at all */

		for (int s = 0; s < IDLE_MAX_STATES; s++)
			idle += ns_delta(from->cpu_state_ns[cpu][s], to->cpu_state_ns[cpu][s]);
		OUT(" cpu%d_busy_us=%llu cpu%d_idle_us=%llu", cpu,
		    us(ns_delta(from->cpu_busy_ns[cpu], to->cpu_busy_ns[cpu])), cpu, us(idle));
	}
	for (int r = 0; r < idle_nr_rails(); r++)
		OUT(" cluster%d_off_us=%llu", idle_rail(r)->cluster,
		    us(ns_delta(from->rail_ns[r][RAIL_OFF], to->rail_ns[r][RAIL_OFF])));
	/* DVFS: each domain's time-weighted average frequency; QEMU's back end changes no speed. */
	for (int d = 0; from->nr_domains == to->nr_domains && d < to->nr_domains; d++) {
		uint64_t window = ns_delta(from->t_ns, to->t_ns);

		OUT(" cluster%d_freq_khz_avg=%llu", cpufreq_domain(d)->cluster,
		    (unsigned long long)(window ? ns_delta(from->dom_khz_ns[d], to->dom_khz_ns[d]) / window : 0));
	}
	if (to->nr_domains && !cpufreq_backend()->scales_time)
		OUT(" freq_speed=none");
	if (from->meters_ok && to->meters_ok)
		OUT(" energy_src=meter");
#undef OUT
	return (int)n;
}
