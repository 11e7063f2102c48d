/*
 * Console commands for idle and energy:
 *   idle                 residency per CPU (busy, each idle state) and per rail
 *   idle latency <us>    cap the exit latency the governor may pick ("off": no cap)
 *   idle resume-test ..., idle warmboot ...   kernel/console/warmboot_commands.c
 *   energy               energy per CPU and cluster since the mark
 *   energy mark          start a new window
 *   energy ref           remember this window's clusters as the 100 reference
 *                        (take it in a pack=off run), for the seeds' table
 */
#include <string.h>

#include "arch/energy_meter.h"
#include "kernel/lib/cmdline.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/sched/warmboot.h"

static struct energy_snapshot mark;
static bool have_mark;
static uint64_t ref_cluster0;	/* energy of the first cluster in the reference window */

static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)(ns / 1000);
}

static int cmd_idle(int argc, char **argv)
{
	struct energy_snapshot now;
	int rc = idle_warmboot_command(argc, argv);

	if (rc >= 0)
		return rc;

	if (argc == 3 && strcmp(argv[1], "latency") == 0) {
		unsigned long v;

		if (strcmp(argv[2], "off") == 0) {
			idle_set_latency_limit(IDLE_NO_LIMIT);
			kprintf("idle: latency limit off\n");
			return 0;
		}
		if (!cmdline_parse_ulong(argv[2], 0, 10000000, &v)) {
			kprintf("error: idle latency takes microseconds 0..10000000 or 'off'\n");
			return 1;
		}
		idle_set_latency_limit((uint64_t)v * 1000);
		kprintf("idle: latency limit %lu us\n", v);
		return 0;
	}
	if (argc != 1) {
		kprintf("error: usage: idle [latency <us>|off] | idle resume-test [rounds] [psci|reset] | idle warmboot [on|off]\n");
		return 1;
	}
	energy_take_snapshot(&now);
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++) {
		const struct cpu_idle *ci = cpu_idle_of(cpu);
		char line[256];
		int n;

		if (!sched_cpu_online_now(cpu))
			continue;	/* never came online */
		n = ksnprintf(line, sizeof(line), "idle: cpu%d busy_us=%llu", cpu, us(now.cpu_busy_ns[cpu]));
		for (int s = 0; s < ci->nr_states && n < (int)sizeof(line); s++)
			n += ksnprintf(line + n, sizeof(line) - (size_t)n, " %s_us=%llu %s_n=%llu", ci->states[s].name,
				       us(now.cpu_state_ns[cpu][s]), ci->states[s].name, (unsigned long long)ci->usage[s]);
		kprintf("%s\n", line);
	}
	for (int r = 0; r < idle_nr_rails(); r++) {
		const struct rail *rl = idle_rail(r);
		char cpus[64];

		cpumask_format(cpus, sizeof(cpus), &rl->cpus);
		kprintf("idle: cluster%d cpus=%s busy_us=%llu idle_us=%llu off_us=%llu powered_off=%llu\n",
			rl->cluster, cpus, us(now.rail_ns[r][RAIL_BUSY]), us(now.rail_ns[r][RAIL_IDLE]),
			us(now.rail_ns[r][RAIL_OFF]), (unsigned long long)rl->nr_off);
	}
	if (idle_latency_limit_ns == IDLE_NO_LIMIT)
		kprintf("idle: latency limit off\n");
	else
		kprintf("idle: latency limit %llu us\n", us(idle_latency_limit_ns));
	return 0;
}

static void print_energy(void)
{
	struct energy_snapshot now;
	struct energy_report rep;
	const struct energy_model *m = energy_model();
	char fields[512];

	energy_take_snapshot(&now);
	if (!have_mark) {
		memset(&mark, 0, sizeof(mark));
		have_mark = true;
	}
	energy_compute(m, &mark, &now, rails_base(), &rep);
	kprintf("energy: src=%s window_us=%llu total=%llu\n", energy_meter_available() ? "meter" : "model",
		us(rep.window_ns), (unsigned long long)rep.total);
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		if (sched_cpu_online_now(cpu))
			kprintf("energy: cpu%d energy=%llu\n", cpu, (unsigned long long)rep.cpu[cpu]);
	for (int r = 0; r < m->nr_rails; r++)
		kprintf("energy: cluster%d energy=%llu (rail %llu + cpus)\n", idle_rail(r)->cluster,
			(unsigned long long)rep.cluster[r], (unsigned long long)rep.rail[r]);
	if (ref_cluster0) {
		char line[160];
		int n = ksnprintf(line, sizeof(line), "energy: table");
		uint64_t total = 0;

		for (int r = 0; r < m->nr_rails && n < (int)sizeof(line); r++) {
			uint64_t v = rep.cluster[r] * 100 / ref_cluster0;

			total += v;
			n += ksnprintf(line + n, sizeof(line) - (size_t)n, " cluster%d=%llu", idle_rail(r)->cluster,
				       (unsigned long long)v);
		}
		kprintf("%s total=%llu\n", line, (unsigned long long)total);
	}
	energy_result_fields(fields, sizeof(fields), &mark, &now);
	kprintf("energy: %s\n", fields);
}

static int cmd_energy(int argc, char **argv)
{
	if (argc == 1) {
		print_energy();
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "mark") == 0) {
		energy_take_snapshot(&mark);
		have_mark = true;
		kprintf("energy: mark\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "ref") == 0) {
		struct energy_snapshot now;
		struct energy_report rep;

		energy_take_snapshot(&now);
		if (!have_mark) {
			memset(&mark, 0, sizeof(mark));	/* the window since boot */
			have_mark = true;
		}
		energy_compute(energy_model(), &mark, &now, rails_base(), &rep);
		if (energy_model()->nr_rails == 0 || rep.cluster[0] == 0) {
			kprintf("error: energy ref: the first cluster used no energy in this window\n");
			return 1;
		}
		ref_cluster0 = rep.cluster[0];
		kprintf("energy: reference cluster%d=%llu is 100\n", idle_rail(0)->cluster,
			(unsigned long long)ref_cluster0);
		return 0;
	}
	kprintf("error: usage: energy [mark|ref]\n");
	return 1;
}

static const struct shell_cmd commands[] = {
	{ "idle", "[latency <us>|off|resume-test [n] [psci|reset]|warmboot [on|off]]", "idle residency per CPU and cluster; governor latency limit; warm-boot path", cmd_idle },
	{ "energy", "[mark|ref]", "energy per CPU and cluster since the mark", cmd_energy },
};

SHELL_COMMANDS(commands);
