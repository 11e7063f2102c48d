/*
 * Fuzz target `schedtopo` (and `schedtopo_nr8`, the same harness built with
 * the ARM kernel's CONFIG_NR_CPUS=8): what the kernel derives from a DTB
 * at boot, after fdt_open() accepted it:
 *   topology_parse_dt + topology_build (each pack mode) + describe/format
 *   (include/kernel/sched/topology.h), idle_parse_dt (include/kernel/sched/idle.h),
 *   energy_model_parse_dt + energy_compute (include/kernel/sched/energy.h).
 * Bytes after the DTB's totalsize drive the idle path: 4-byte ops that put
 * a CPU to sleep (governor choice, rail last man, residency) or wake it.
 *
 * Checked, from the headers' contracts:
 *  - parse errors: -1 and a message; success: 1..TOPO_MAX_CPUS CPUs,
 *    clusters numbered 0..nr_clusters-1, capacities in 1..CAPACITY_MAX;
 *  - domains: 1..TOPO_MAX_LEVELS levels, spans contain the CPU, have >= 2
 *    CPUs, grow strictly, the top one is every CPU; the groups of a domain
 *    partition its span, hold their CPUs' capacity sum, and are the same
 *    for every CPU of the span; SD_SHARE_POWERLINE iff the span is inside
 *    the CPU's rail; CPUs with one power line share one rail mask
 *    (&policy_all: each CPU alone); pack buddies are -1 (&policy_off) or CPUs;
 *    cpumask_format output parses back to the mask; describe_cpu is
 *    terminated and returns snprintf's length;
 *  - idle: every CPU has 1..IDLE_MAX_STATES states, WFI first, residency
 *    non-decreasing, domain states last; rails partition the CPUs and the
 *    CPUs of a rail agree on whether it can go off; the governor picks the
 *    deepest state that fits the prediction and the latency limit; a rail
 *    is off iff all its CPUs idle in a domain state; residency sums (per
 *    CPU and per rail) equal the elapsed time;
 *  - energy: 0 / 1 / -1 with a message; a model has a cost per idle state;
 *    the report adds up.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/sched/energy.h"
#include "kernel/lib/fdt.h"
#include "kernel/sched/idle.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/topology.h"
#include "tests/fuzz/fuzz.h"

#define MAX_IDLE_OPS 2048
#define T0 1000000u

static struct topology topo;
static struct cpu_idle ci[TOPO_MAX_CPUS];
static struct rail rails[IDLE_MAX_RAILS];
static struct energy_model model;
static struct energy_snapshot snap_from, snap_to;
static struct energy_report report;
static char line[1 << 16];

static cpumask_t all_mask(int n)
{
	cpumask_t m = { { 0 } };

	for (int c = 0; c < n; c++)
		cpumask_set(&m, c);
	return m;
}

/* Parse "none" / "0-3,5" back; false on syntax error. */
static bool parse_mask(const char *s, cpumask_t *m)
{
	memset(m, 0, sizeof(*m));
	if (strcmp(s, "none") == 0)
		return true;
	while (*s) {
		long a = 0, b;

		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			a = a * 10 + (*s++ - '0');
		b = a;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return false;
			b = 0;
			while (*s >= '0' && *s <= '9')
				b = b * 10 + (*s++ - '0');
		}
		if (a > b || b >= TOPO_MAX_CPUS)
			return false;
		for (long c = a; c <= b; c++)
			cpumask_set(m, (int)c);
		if (*s == ',')
			s++;
		else if (*s)
			return false;
	}
	return true;
}

static void check_format(const cpumask_t *m)
{
	static char buf[8192];
	cpumask_t back;
	int n = cpumask_format(buf, sizeof(buf), m);

	FUZZ_CHECK(n >= 0);
	if ((size_t)n < sizeof(buf)) {
		FUZZ_CHECK(strlen(buf) == (size_t)n);
		FUZZ_CHECK_MSG(parse_mask(buf, &back) && cpumask_equal(&back, m), "cpumask_format gave '%s'", buf);
	}
	{
		char small[7];
		int k = cpumask_format(small, sizeof(small), m);

		FUZZ_CHECK(k == n && strlen(small) == (size_t)(k < 7 ? k : 6));
	}
}

static void check_parsed(void)
{
	FUZZ_CHECK(topo.nr_cpus >= 1 && topo.nr_cpus <= TOPO_MAX_CPUS);
	FUZZ_CHECK(topo.nr_clusters >= 1 && topo.nr_clusters <= topo.nr_cpus);
	for (int c = 0; c < topo.nr_cpus; c++) {
		const struct topo_cpu *tc = &topo.cpu[c];

		FUZZ_CHECK(tc->cluster >= 0 && tc->cluster < topo.nr_clusters);
		FUZZ_CHECK(tc->capacity >= 1 && tc->capacity <= CAPACITY_MAX);
		FUZZ_CHECK(tc->nr_anc >= 1 && tc->nr_anc <= TOPO_MAX_DEPTH);
		FUZZ_CHECK(tc->compatible != NULL);
	}
	/* Every cluster number is used. */
	for (int k = 0; k < topo.nr_clusters; k++) {
		bool used = false;

		for (int c = 0; c < topo.nr_cpus && !used; c++)
			used = topo.cpu[c].cluster == k;
		FUZZ_CHECK_MSG(used, "cluster %d of %d has no CPU", k, topo.nr_clusters);
	}
}

static bool same_groups(const struct sched_domain *a, const struct sched_domain *b)
{
	if (a->nr_groups != b->nr_groups)
		return false;
	for (int g = 0; g < a->nr_groups; g++)
		if (!cpumask_equal(&sd_group(&topo, a, g)->cpus, &sd_group(&topo, b, g)->cpus))
			return false;
	return true;
}

static void check_built(const struct pack_policy *mode)
{
	cpumask_t all = all_mask(topo.nr_cpus);
	int n = topo.nr_cpus;
	bool small = n <= 64;	/* the pairwise checks are quadratic */

	FUZZ_CHECK(topo.policy == mode);
	FUZZ_CHECK(topo.nr_groups_used >= 0 && topo.nr_groups_used <= TOPO_MAX_DOMAINS);
	for (int c = 0; c < n; c++) {
		int levels = topo.nr_levels[c];
		cpumask_t prev = cpumask_of(c);
		int len;

		FUZZ_CHECK(levels >= 0 && levels <= TOPO_MAX_LEVELS);
		FUZZ_CHECK((levels == 0) == (n == 1));
		for (int l = 0; l < levels; l++) {
			const struct sched_domain *sd = &topo.sd[c][l];
			cpumask_t cover = { { 0 } };
			uint32_t cap = 0;

			FUZZ_CHECK(cpumask_test(&sd->span, c));
			FUZZ_CHECK(cpumask_subset(&sd->span, &all));
			FUZZ_CHECK(cpumask_weight(&sd->span) >= 2);
			FUZZ_CHECK(cpumask_subset(&prev, &sd->span) && !cpumask_equal(&prev, &sd->span));
			FUZZ_CHECK(sd->name != NULL);
			FUZZ_CHECK(sd->nr_groups >= 2 && sd->first_group >= 0 &&
				   sd->first_group + sd->nr_groups <= topo.nr_groups_used);
			for (int g = 0; g < sd->nr_groups; g++) {
				const struct sched_group *grp = sd_group(&topo, sd, g);
				uint32_t gcap = 0;
				cpumask_t both;

				FUZZ_CHECK(!cpumask_empty(&grp->cpus));
				FUZZ_CHECK(cpumask_subset(&grp->cpus, &sd->span));
				cpumask_andnot(&both, &grp->cpus, &cover);
				FUZZ_CHECK_MSG(cpumask_equal(&both, &grp->cpus), "cpu%d level %d: groups overlap", c, l);
				cpumask_or(&cover, &cover, &grp->cpus);
				for_each_cpu(d, &grp->cpus)
					gcap += topo.cpu[d].capacity;
				FUZZ_CHECK(grp->capacity == gcap);
				cap += gcap;
			}
			FUZZ_CHECK_MSG(cpumask_equal(&cover, &sd->span), "cpu%d level %d: groups do not cover the span",
				       c, l);
			for_each_cpu(d, &sd->span)
				cap -= topo.cpu[d].capacity;
			FUZZ_CHECK(cap == 0);
			FUZZ_CHECK(sd->flags == (cpumask_subset(&sd->span, &topo.powerline[c]) ? SD_SHARE_POWERLINE : 0u));
			/* Every CPU of the span has this span, with the same groups. */
			for_each_cpu(d, &sd->span) {
				bool found = false;

				if (!small && d != cpumask_first(&sd->span))
					continue;
				for (int k = 0; k < topo.nr_levels[d] && !found; k++)
					if (cpumask_equal(&topo.sd[d][k].span, &sd->span)) {
						FUZZ_CHECK_MSG(same_groups(&topo.sd[d][k], sd),
							       "cpu%d and cpu%d see different groups", c, d);
						found = true;
					}
				FUZZ_CHECK_MSG(found, "cpu%d in the span of cpu%d level %d has no such domain", d, c, l);
			}
			if (small || c == 0)
				check_format(&sd->span);
			prev = sd->span;
		}
		if (levels)
			FUZZ_CHECK_MSG(cpumask_equal(&topo.sd[c][levels - 1].span, &all), "cpu%d: top level is not all CPUs",
				       c);
		for (int d = 0; d < n && (small || d < 4); d++) {
			int l = topology_common_level(&topo, c, d);

			FUZZ_CHECK(l >= (levels ? 0 : -1) && l < levels);
			if (l >= 0)
				FUZZ_CHECK(cpumask_test(&topo.sd[c][l].span, d));
		}

		/* Rails. */
		FUZZ_CHECK(cpumask_test(&topo.powerline[c], c));
		FUZZ_CHECK(cpumask_subset(&topo.powerline[c], &all));
		if (mode == &policy_all)
			FUZZ_CHECK(cpumask_weight(&topo.powerline[c]) == 1);
		else if (small)
			for (int d = 0; d < n; d++)
				FUZZ_CHECK((topo.cpu[d].rail_key == topo.cpu[c].rail_key) ==
					   cpumask_test(&topo.powerline[c], d));
		FUZZ_CHECK(topo.pack_buddy[c] >= -1 && topo.pack_buddy[c] < n);
		FUZZ_CHECK(topo.pack_buddy[c] == (mode->buddy ? topology_pack_buddy(&topo, c) : -1));
		if (mode == &policy_off || cpumask_equal(&topo.powerline[c], &all))
			FUZZ_CHECK(topo.pack_buddy[c] == -1);

		len = topology_describe_cpu(&topo, c, line, sizeof(line));
		FUZZ_CHECK(len > 0);
		if ((size_t)len < sizeof(line))
			FUZZ_CHECK(strlen(line) == (size_t)len);
		else
			FUZZ_CHECK(strlen(line) == sizeof(line) - 1);
		if (small || c == 0)
			check_format(&topo.powerline[c]);
	}
}

static int check_idle(int nr_rails)
{
	cpumask_t seen = { { 0 } }, all = { { 0 } };

	FUZZ_CHECK(nr_rails >= 1 && nr_rails <= IDLE_MAX_RAILS);
	for (int c = 0; c < topo.nr_cpus; c++) {
		const struct cpu_idle *x = &ci[c];

		FUZZ_CHECK(x->nr_states >= 1 && x->nr_states <= IDLE_MAX_STATES);
		FUZZ_CHECK(strcmp(x->states[0].name, "wfi") == 0 && !x->states[0].domain);
		FUZZ_CHECK(x->cur_state == -1 && x->since_ns == T0);
		for (int s = 1; s < x->nr_states; s++) {
			FUZZ_CHECK(x->states[s].min_residency_ns >= x->states[s - 1].min_residency_ns);
			FUZZ_CHECK(x->states[s].domain || !x->states[s - 1].domain);
			FUZZ_CHECK(memchr(x->states[s].name, '\0', sizeof(x->states[s].name)) != NULL);
		}
		FUZZ_CHECK(x->rail >= 0 && x->rail < nr_rails);
		FUZZ_CHECK(cpumask_test(&rails[x->rail].cpus, c));
		cpumask_set(&all, c);
		for (int d = 0; d < topo.nr_cpus; d++)
			if (ci[d].rail == x->rail)
				FUZZ_CHECK(ci[d].states[ci[d].nr_states - 1].domain ==
					   x->states[x->nr_states - 1].domain);
	}
	for (int r = 0; r < nr_rails; r++) {
		FUZZ_CHECK(!cpumask_empty(&rails[r].cpus) && !cpumask_intersects(&rails[r].cpus, &seen));
		FUZZ_CHECK(rails[r].state == RAIL_BUSY && cpumask_empty(&rails[r].idle) && rails[r].since_ns == T0);
		cpumask_or(&seen, &seen, &rails[r].cpus);
	}
	FUZZ_CHECK(cpumask_equal(&seen, &all));
	return nr_rails;
}

static void check_rail_state(const struct rail *r)
{
	FUZZ_CHECK(cpumask_subset(&r->want_off, &r->idle) && cpumask_subset(&r->idle, &r->cpus));
	if (!cpumask_equal(&r->idle, &r->cpus))
		FUZZ_CHECK(r->state == RAIL_BUSY);
	else if (cpumask_equal(&r->want_off, &r->cpus))
		FUZZ_CHECK(r->state == RAIL_OFF);
	else
		FUZZ_CHECK(r->state == RAIL_IDLE);
}

static void take_snapshot(struct energy_snapshot *s, uint64_t now, int nr_rails)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = now;
	for (int c = 0; c < topo.nr_cpus; c++) {
		uint64_t sum;

		cpu_idle_read(&ci[c], now, &s->cpu_busy_ns[c], s->cpu_state_ns[c]);
		sum = s->cpu_busy_ns[c];
		for (int k = 0; k < IDLE_MAX_STATES; k++)
			sum += s->cpu_state_ns[c][k];
		FUZZ_CHECK_MSG(sum == now - T0, "cpu%d residency %llu over %llu ns", c, (unsigned long long)sum,
			       (unsigned long long)(now - T0));
	}
	for (int r = 0; r < nr_rails; r++) {
		rail_residency(&rails[r], now, s->rail_ns[r]);
		FUZZ_CHECK(s->rail_ns[r][0] + s->rail_ns[r][1] + s->rail_ns[r][2] == now - T0);
	}
}

/* Run the idle path on the ops in [p, p + n); returns the final clock. */
static uint64_t run_idle(const uint8_t *p, size_t n, int nr_rails)
{
	struct fuzz_in in = { p, n };
	static uint64_t since[TOPO_MAX_CPUS];
	uint64_t now = T0;
	int downs = 0;

	memset(since, 0, sizeof(since));

	for (int op = 0; op < MAX_IDLE_OPS && in.left; op++) {
		int c = (int)(fuzz_take(&in, 1) % (unsigned)topo.nr_cpus);
		uint64_t m = fuzz_take(&in, 2), b3 = fuzz_take(&in, 1);
		unsigned shift = (unsigned)(b3 & 15), sel = (unsigned)(b3 >> 4);
		struct cpu_idle *x = &ci[c];
		struct rail *r = &rails[x->rail];

		if (x->cur_state < 0) {
			uint64_t sleep = m == 0xffff ? UINT64_MAX : m << shift;
			uint64_t limit = sel == 15 ? IDLE_NO_LIMIT : (uint64_t)sel * 50000u;
			uint64_t predicted = idle_gov_predict(&x->gov, sleep);
			int s = idle_gov_select(&x->gov, x->states, x->nr_states, sleep, limit);
			bool last;

			FUZZ_CHECK(s >= 0 && s < x->nr_states);
			for (int k = 1; k < x->nr_states; k++) {
				bool fits = x->states[k].min_residency_ns <= predicted &&
					    x->states[k].entry_ns + x->states[k].exit_ns <= limit;

				if (k == s)
					FUZZ_CHECK(fits);
				if (k > s)
					FUZZ_CHECK_MSG(!fits, "governor chose %d, %d deeper also fits", s, k);
			}
			last = rail_cpu_idle(r, x->rail, c, x->states[s].domain, now, NULL);
			FUZZ_CHECK(last == (r->state == RAIL_OFF));
			downs += last;
			cpu_idle_account_enter(x, s, now);
			since[c] = now;
			now += 1 + (m & 0xff);
		} else {
			bool was_off = r->state == RAIL_OFF, first;

			now += m << shift;
			first = rail_cpu_busy(r, x->rail, c, now, NULL);
			FUZZ_CHECK(first == was_off);
			cpu_idle_account_exit(x, now);
			idle_gov_reflect(&x->gov, now - since[c]);
			FUZZ_CHECK(x->gov.hist_pos < IDLE_HISTORY);
			for (int k = 0; k < IDLE_BUCKETS; k++)
				FUZZ_CHECK(x->gov.correction[k] >= 1 && x->gov.correction[k] <= IDLE_CORR_ONE);
		}
		check_rail_state(r);
	}
	{
		uint64_t offs = 0;

		for (int i = 0; i < nr_rails; i++)
			offs += rails[i].nr_off;
		FUZZ_CHECK(offs == (uint64_t)downs);
	}
	return now;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdt fdt;
	char err[160];
	int nr_rails, rc;
	uint64_t now;

	if (fdt_open(&fdt, data, size) != FDT_OK)
		return 0;
	err[0] = '\0';
	if (topology_parse_dt(&fdt, &topo, err, sizeof(err)) != 0) {
		FUZZ_CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL);
		return 0;
	}
	check_parsed();
	topology_build(&topo, &policy_off);
	check_built(&policy_off);
	topology_build(&topo, &policy_all);
	check_built(&policy_all);
	topology_build(&topo, &policy_rails);
	check_built(&policy_rails);

	err[0] = '\0';
	nr_rails = idle_parse_dt(&fdt, &topo, ci, rails, T0, err, sizeof(err));
	if (nr_rails < 0) {
		FUZZ_CHECK(nr_rails == -1 && err[0] != '\0');
		return 0;
	}
	check_idle(nr_rails);

	err[0] = '\0';
	rc = energy_model_parse_dt(&fdt, &topo, ci, nr_rails, &model, err, sizeof(err));
	FUZZ_CHECK(rc >= -1 && rc <= 1);
	if (rc < 0)
		FUZZ_CHECK(err[0] != '\0');
	FUZZ_CHECK(model.present == (rc == 0));
	if (rc == 0) {
		FUZZ_CHECK(model.nr_cpus == topo.nr_cpus && model.nr_rails == nr_rails);
		for (int c = 0; c < topo.nr_cpus; c++)
			FUZZ_CHECK(model.core[c].nr_idle == ci[c].nr_states);
		for (int r = 0; r < nr_rails; r++) {
			const struct cpu_idle *first = NULL;

			for (int c = 0; c < topo.nr_cpus && !first; c++)
				if (ci[c].rail == r)
					first = &ci[c];
			FUZZ_CHECK(first != NULL);	/* check_idle(): no rail is empty */
			FUZZ_CHECK(model.rail[r].nr_idle == (first->states[first->nr_states - 1].domain ? 2 : 1));
		}
	}

	take_snapshot(&snap_from, T0, nr_rails);
	now = run_idle(data + fdt.totalsize, size - fdt.totalsize, nr_rails);
	take_snapshot(&snap_to, now, nr_rails);
	if (rc == 0) {
		uint64_t total = 0;

		energy_compute(&model, &snap_from, &snap_to, rails, &report);
		FUZZ_CHECK(report.window_ns == now - T0);
		for (int r = 0; r < nr_rails; r++) {
			uint64_t cl = report.rail[r];

			for (int c = 0; c < topo.nr_cpus; c++)
				if (cpumask_test(&rails[r].cpus, c))
					cl += report.cpu[c];
			FUZZ_CHECK(report.cluster[r] == cl);
			total += cl;
		}
		FUZZ_CHECK(report.total == total);
	}
	return 0;
}
