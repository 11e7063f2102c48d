/*
 * Console commands for frequency scaling (spec "Frequency (DVFS)"):
 *   cpufreq                               one line per frequency domain:
 *       cluster<k> cpus=<list> governor=<name> cur_khz=<f> opps_khz=<f1>,<f2>,...
 *   cpufreq governor <name> [cluster<k>]  that governor on one domain or all
 *   cpufreq set <khz> cluster<k>          the OPP of a domain under userspace
 *   cpufreq stats                         time per OPP per domain (Linux's time_in_state)
 * Errors: one `error: cpufreq: ...` line; nothing changes.
 */
#include <string.h>

#include "arch/cpu.h"
#include "arch/timer.h"
#include "kernel/console/shell.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/time/time.h"

/* @m as a Linux cpulist ("2-4", "0,2"). */
static void cpulist(const cpumask_t *m, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = cpumask_first(m); c >= 0; c = cpumask_next(m, c)) {
		int end = c;

		while (cpumask_next(m, end) == end + 1)
			end++;
		n += (size_t)ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0, end > c ? "%s%d-%d" : "%s%d",
				       n ? "," : "", c, end);
		c = end;
	}
}

/* "cluster<k>" -> its domain, or NULL after the error line. */
static struct freq_domain *domain_arg(const char *s)
{
	for (int i = 0; i < cpufreq_nr_domains(); i++) {
		char name[24];

		ksnprintf(name, sizeof(name), "cluster%d", cpufreq_domain(i)->cluster);
		if (strcmp(s, name) == 0)
			return cpufreq_domain(i);
	}
	kprintf("error: cpufreq: no frequency domain '%s' (see `cpufreq`)\n", s);
	return NULL;
}

static void show(void)
{
	for (int i = 0; i < cpufreq_nr_domains(); i++) {
		const struct freq_domain *d = cpufreq_domain(i);
		char cpus[64];

		cpulist(&d->cpus, cpus, sizeof(cpus));
		kprintf("cluster%d cpus=%s governor=%s cur_khz=%u opps_khz=", d->cluster, cpus, d->gov->name,
			(unsigned)d->khz[d->cur]);
		for (int o = 0; o < d->nr_opps; o++)
			kprintf("%s%u", o ? "," : "", (unsigned)d->khz[o]);
		kprintf("\n");
	}
}

static void stats(void)
{
	uint64_t now = arch_now_ns();

	for (int i = 0; i < cpufreq_nr_domains(); i++) {
		struct freq_domain *d = cpufreq_domain(i);
		uint64_t opp_ns[CPUFREQ_MAX_OPPS], khz_ns;

		cpufreq_residency(d, now, opp_ns, &khz_ns);
		kprintf("cluster%d transitions=%llu", d->cluster, (unsigned long long)d->nr_transitions);
		for (int o = 0; o < d->nr_opps; o++)
			kprintf(" %u:%llu", (unsigned)d->khz[o], (unsigned long long)(opp_ns[o] / NSEC_PER_USEC));
		kprintf(" (kHz:us)\n");
	}
}

static int set_governor(int argc, char **argv)
{
	const struct cpufreq_governor *g;
	struct freq_domain *only = NULL;

	if (argc < 3 || argc > 4) {
		kprintf("error: cpufreq: usage: cpufreq governor <name> [cluster<k>]\n");
		return 1;
	}
	g = cpufreq_governor_find(argv[2]);
	if (!g) {
		char names[96];

		kprintf("error: cpufreq: unknown governor '%s' (valid: %s)\n", argv[2],
			cpufreq_governor_list(names, sizeof(names)));
		return 1;
	}
	if (argc == 4 && !(only = domain_arg(argv[3])))
		return 1;
	for (int i = 0; i < cpufreq_nr_domains(); i++)
		if (!only || only == cpufreq_domain(i))
			cpufreq_set_governor(cpufreq_domain(i), g, arch_now_ns());
	return 0;
}

static int set_khz(int argc, char **argv)
{
	struct freq_domain *d;
	unsigned long khz;
	int opp;

	if (argc != 4) {
		kprintf("error: cpufreq: usage: cpufreq set <khz> cluster<k>\n");
		return 1;
	}
	if (!cmdline_parse_ulong(argv[2], 1, UINT32_MAX, &khz)) {
		kprintf("error: cpufreq: '%s' is not a frequency in kHz\n", argv[2]);
		return 1;
	}
	if (!(d = domain_arg(argv[3])))
		return 1;
	if (strcmp(d->gov->name, "userspace") != 0) {
		kprintf("error: cpufreq: cluster%d's governor is %s; `cpufreq governor userspace cluster%d` first\n",
			d->cluster, d->gov->name, d->cluster);
		return 1;
	}
	opp = cpufreq_opp_exact(d, (uint32_t)khz);
	if (opp < 0) {
		kprintf("error: cpufreq: %lu kHz is not an OPP of cluster%d (see `cpufreq`)\n", khz, d->cluster);
		return 1;
	}
	d->user_khz = (uint32_t)khz;
	if (cpufreq_set_opp(d, opp, arch_now_ns()) < 0) {
		kprintf("error: cpufreq: cluster%d's back end %s refused %lu kHz\n", d->cluster, cpufreq_backend()->name,
			khz);
		return 1;
	}
	return 0;
}

static int cmd_cpufreq(int argc, char **argv)
{
	if (cpufreq_nr_domains() == 0 && !(argc == 2 && strcmp(argv[1], "stats") == 0) && argc != 1) {
		kprintf("error: cpufreq: this board's DT has no operating-points-v2 tables\n");
		return 1;
	}
	if (argc == 1) {
		if (cpufreq_nr_domains() == 0)
			kprintf("cpufreq: no frequency domains (no operating-points-v2 tables in the DT)\n");
		show();
		return 0;
	}
	if (strcmp(argv[1], "stats") == 0 && argc == 2) {
		stats();
		return 0;
	}
	if (strcmp(argv[1], "governor") == 0)
		return set_governor(argc, argv);
	if (strcmp(argv[1], "set") == 0)
		return set_khz(argc, argv);
	kprintf("error: cpufreq: unknown subcommand '%s' (governor, set, stats)\n", argv[1]);
	return 1;
}

static const struct shell_cmd commands[] = {
	{ "cpufreq", "[governor <name> [cluster<k>] | set <khz> cluster<k> | stats]",
	  "frequency domains, their governor and OPP; time per OPP", cmd_cpufreq },
};

SHELL_COMMANDS(commands);
