/*
 * Topology, scheduling domains and pack buddies (kernel/sched/topology.c) and the
 * schedtopo host tool, against the contract in docs/interfaces.md ("Pack
 * buddies (the seeds' rule, made exact)", "Device tree") and
 * include/kernel/sched/topology.h:
 * - hand-built struct topology: the spec's public examples in the three
 *   pack modes, domain levels / groups / capacities, one CPU, 8 and 32
 *   CPUs, tie-breaking and exact capacity-per-CPU comparison,
 *   cpumask_format and the pack-mode names;
 * - topology_parse_dt on the fixtures tests/dts/topo-*.dts (built into
 *   build/host/dts/): nested cpu-map, clusters from MPIDR Aff1, the system
 *   rail, and one fixture per parse error with its exact message;
 * - the real board DTBs (build/<board>/<board>.dtb, from `make boards`);
 * - build/host/schedtopo run through popen(): its "CPU<n> packing on
 *   CPU<m>" lines for every board and mode, and exit status 2 with one
 *   line on stderr for bad input.
 * Run from the repository root (tests/run.py does).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"
#include "dtb_file.h"
#include "kernel/lib/fdt.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/topology.h"

/* These topologies have at most 32 CPUs: compare masks as words. */
#define W(mask) cpumask_low32(&(mask))

static cpumask_t mask32(uint32_t bits)
{
	cpumask_t m = { { 0 } };

	m.w[0] = bits;
	return m;
}

static int fmt32(char *buf, size_t size, uint32_t bits)
{
	cpumask_t m = mask32(bits);

	return cpumask_format(buf, size, &m);
}

#define TOOL "build/host/schedtopo"
#define FIXTURE(name) "build/host/dts/" name ".dtb"
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ------------------------------------------------------------ helpers */

static void list_str(char *buf, size_t size, const int *v, int n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", v[i]);
}

/*
 * A flat topology (one cluster level) of @n CPUs: CPU i is in cluster
 * @cluster[i] with capacity @cap[i] on the rail keyed @rail[i] (-1: the
 * system rail). Keys are arbitrary ints, as the DT parser's node offsets are.
 */
static void flat(struct topology *t, int n, const int *cluster, const uint32_t *cap,
		 const int *rail)
{
	memset(t, 0, sizeof(*t));
	t->nr_cpus = n;
	for (int i = 0; i < n; i++) {
		struct topo_cpu *c = &t->cpu[i];

		c->hwid = (uint32_t)i;
		c->capacity = cap[i];
		c->cluster = cluster[i];
		c->nr_anc = 1;
		c->anc[0] = cluster[i];
		c->rail_key = rail[i];
		c->compatible = "ktest";
		if (cluster[i] + 1 > t->nr_clusters)
			t->nr_clusters = cluster[i] + 1;
	}
}

/* pack_buddy[] and the policy's buddy rule (topology_pack_buddy(), or none) both equal @want. */
static bool buddies_are(const struct topology *t, const int *want, char *why, size_t len)
{
	int got[TOPO_MAX_CPUS], fn[TOPO_MAX_CPUS];
	char g[160], w[160], f[160];
	bool ok = true;

	for (int c = 0; c < t->nr_cpus; c++) {
		got[c] = t->pack_buddy[c];
		fn[c] = t->policy->buddy ? t->policy->buddy(t, c) : -1;
		ok = ok && got[c] == want[c] && fn[c] == want[c];
	}
	if (!ok) {
		list_str(g, sizeof(g), got, t->nr_cpus);
		list_str(f, sizeof(f), fn, t->nr_cpus);
		list_str(w, sizeof(w), want, t->nr_cpus);
		snprintf(why, len, "pack=%s: pack_buddy %s, topology_pack_buddy %s, expected %s",
			 t->policy->name, g, f, w);
	}
	return ok;
}

/* topology_build(@t, @mode), then the buddies must be the variadic list. */
#define EXPECT_BUDDIES(t, mode, ...)                                          \
	do {                                                                  \
		static const int want_[] = { __VA_ARGS__ };                   \
		char why_[600];                                               \
		KT_ASSERT_EQ((t)->nr_cpus, NELEM(want_));                     \
		topology_build((t), (mode));                                  \
		KT_ASSERT_EQ((t)->policy, (mode));                            \
		KT_ASSERT_MSG(buddies_are((t), want_, why_, sizeof(why_)),    \
			      "%s", why_);                                    \
	} while (0)

/* "MC[0-1: {0}=1024 {1}=1024] DIE[0-4: {0-1}=2048 {2-4}=1548]", "" if none. */
static void levels_str(const struct topology *t, int cpu, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int l = 0; l < t->nr_levels[cpu] && len < size; l++) {
		const struct sched_domain *sd = &t->sd[cpu][l];
		char m[64];

		cpumask_format(m, sizeof(m), &sd->span);
		len += (size_t)snprintf(buf + len, size - len, "%s%s[%s:", l ? " " : "",
					sd->name ? sd->name : "(null)", m);
		for (int g = 0; g < sd->nr_groups && len < size; g++) {
			cpumask_format(m, sizeof(m), &sd_group(t, sd, g)->cpus);
			len += (size_t)snprintf(buf + len, size - len, " {%s}=%u", m,
						(unsigned)sd_group(t, sd, g)->capacity);
		}
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "]");
	}
}

#define EXPECT_LEVELS(t, cpu, want)                                           \
	do {                                                                  \
		char got_[1024];                                              \
		levels_str((t), (cpu), got_, sizeof(got_));                   \
		KT_ASSERT_MSG(strcmp(got_, (want)) == 0,                      \
			      "cpu%d levels \"%s\", expected \"%s\"", (cpu),  \
			      got_, (want));                                  \
	} while (0)

/* A DTB read into memory and opened. */
static bool load_dtb(const char *path, struct dtb *d, char *why, size_t len)
{
	return dtb_load(path, d, why, len);
}

#define LOAD(path, d)                                                         \
	do {                                                                  \
		char why_[300];                                               \
		KT_ASSERT_MSG(load_dtb((path), (d), why_, sizeof(why_)), "%s", why_); \
	} while (0)

/* Load @path and parse it into @t; the parse must succeed. */
#define PARSE_OK(path, d, t)                                                  \
	do {                                                                  \
		char err_[200] = "";                                          \
		LOAD((path), (d));                                            \
		KT_ASSERT_MSG(topology_parse_dt(&(d)->fdt, (t), err_, sizeof(err_)) == 0, \
			      "%s: topology_parse_dt failed: %s", (path), err_); \
	} while (0)

static const char *board_dtb(const char *board, char *buf, size_t size)
{
	snprintf(buf, size, "build/%s/%s.dtb", board, board);
	return buf;
}

#define LOAD_BOARD(board, d)                                                  \
	do {                                                                  \
		char p_[128];                                                 \
		board_dtb((board), p_, sizeof(p_));                           \
		KT_ASSERT_MSG(access(p_, R_OK) == 0,                          \
			      "%s is missing: run `make boards` first", p_);  \
		LOAD(p_, (d));                                                \
	} while (0)

/* ------------------------------------------------- hand-built topologies */

/* Spec example: 2 clusters x 2 CPUs, every core and cluster gated. */
KT_CASE(spec_2x2_all_gated)
{
	static struct topology t;
	static const int cl[] = { 0, 0, 1, 1 }, rail[] = { 10, 11, 12, 13 };
	static const uint32_t cap[] = { 1024, 1024, 1024, 1024 };

	flat(&t, 4, cl, cap, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 0, 0, 2);
	for (int c = 0; c < 4; c++)
		KT_ASSERT_EQ(W(t.powerline[c]), 1u << (c));
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 2);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1);
	/* Rebuilding in the default mode gives the same answer again. */
	EXPECT_BUDDIES(&t, &policy_rails, 0, 0, 0, 2);
}

/* Spec example: 2 clusters x 2 CPUs, only whole clusters gated. */
KT_CASE(spec_2x2_clusters_gated)
{
	static struct topology t;
	static const int cl[] = { 0, 0, 1, 1 }, rail[] = { 7, 7, 9, 9 };
	static const uint32_t cap[] = { 1024, 1024, 1024, 1024 };

	flat(&t, 4, cl, cap, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 1, 0, 0);
	KT_ASSERT_EQ(W(t.powerline[0]), 0x3u);
	KT_ASSERT_EQ(W(t.powerline[1]), 0x3u);
	KT_ASSERT_EQ(W(t.powerline[2]), 0xcu);
	KT_ASSERT_EQ(W(t.powerline[3]), 0xcu);
	/* all: every CPU its own rail, so the answer of the example above. */
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 2);
	for (int c = 0; c < 4; c++)
		KT_ASSERT_EQ(W(t.powerline[c]), 1u << (c));
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1);
}

static void tc2(struct topology *t)
{
	static const int cl[] = { 0, 0, 1, 1, 1 }, rail[] = { 100, 100, 200, 200, 200 };
	static const uint32_t cap[] = { 1024, 1024, 516, 516, 516 };

	flat(t, 5, cl, cap, rail);
}

/* Spec example: TC2 with cluster rails, and its domains. */
KT_CASE(spec_tc2)
{
	static struct topology t;
	const struct sched_domain *sd;

	tc2(&t);
	EXPECT_BUDDIES(&t, &policy_rails, 2, 2, 2, 3, 4);
	KT_ASSERT_EQ(W(t.powerline[0]), 0x03u);
	KT_ASSERT_EQ(W(t.powerline[1]), 0x03u);
	for (int c = 2; c < 5; c++)
		KT_ASSERT_EQ(W(t.powerline[c]), 0x1cu);

	for (int c = 0; c < 5; c++) {
		KT_ASSERT_EQ(t.nr_levels[c], 2);
		sd = &t.sd[c][0];
		KT_ASSERT_STREQ(sd->name, "MC");
		KT_ASSERT_EQ(W(sd->span), c < 2 ? 0x03u : 0x1cu);
		KT_ASSERT_EQ(sd->nr_groups, c < 2 ? 2 : 3);
		for (int g = 0; g < sd->nr_groups; g++) {
			KT_ASSERT_EQ(W(sd_group(&t, sd, g)->cpus), 1u << ((c < 2 ? 0 : 2) + g));
			KT_ASSERT_EQ(sd_group(&t, sd, g)->capacity, c < 2 ? 1024u : 516u);
		}
		sd = &t.sd[c][1];
		KT_ASSERT_STREQ(sd->name, "DIE");
		KT_ASSERT_EQ(W(sd->span), 0x1fu);
		KT_ASSERT_EQ(sd->nr_groups, 2);
		KT_ASSERT_EQ(W(sd_group(&t, sd, 0)->cpus), 0x03u);
		KT_ASSERT_EQ(sd_group(&t, sd, 0)->capacity, 2048u);
		KT_ASSERT_EQ(W(sd_group(&t, sd, 1)->cpus), 0x1cu);
		KT_ASSERT_EQ(sd_group(&t, sd, 1)->capacity, 1548u);
	}
	EXPECT_LEVELS(&t, 0, "MC[0-1: {0}=1024 {1}=1024] DIE[0-4: {0-1}=2048 {2-4}=1548]");
	EXPECT_LEVELS(&t, 3, "MC[2-4: {2}=516 {3}=516 {4}=516] DIE[0-4: {0-1}=2048 {2-4}=1548]");

	KT_ASSERT_EQ(topology_common_level(&t, 0, 0), 0);
	KT_ASSERT_EQ(topology_common_level(&t, 0, 1), 0);
	KT_ASSERT_EQ(topology_common_level(&t, 0, 2), 1);
	KT_ASSERT_EQ(topology_common_level(&t, 4, 1), 1);
	KT_ASSERT_EQ(topology_common_level(&t, 2, 4), 0);
	KT_ASSERT_EQ(topology_common_level(&t, 0, 5), -1);	/* no such CPU */

	/* all: CPU1 and CPU3/4 now pack inside their own cluster. */
	EXPECT_BUDDIES(&t, &policy_all, 2, 0, 2, 2, 2);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1, -1);
	/* The mode changes rails and buddies, never the domains. */
	EXPECT_LEVELS(&t, 0, "MC[0-1: {0}=1024 {1}=1024] DIE[0-4: {0-1}=2048 {2-4}=1548]");
}

/* Spec example: CoreTile A9x4, one rail. */
KT_CASE(spec_a9x4_one_rail)
{
	static struct topology t;
	static const int cl[] = { 0, 0, 0, 0 }, rail[] = { -1, -1, -1, -1 };
	static const uint32_t cap[] = { 1024, 1024, 1024, 1024 };

	flat(&t, 4, cl, cap, rail);
	EXPECT_BUDDIES(&t, &policy_rails, -1, -1, -1, -1);
	for (int c = 0; c < 4; c++) {
		KT_ASSERT_EQ(W(t.powerline[c]), 0xfu);
		KT_ASSERT_EQ(t.nr_levels[c], 1);	/* DIE = MC: dropped */
		EXPECT_LEVELS(&t, c, "MC[0-3: {0}=1024 {1}=1024 {2}=1024 {3}=1024]");
	}
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 0);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1);

	/* One rail named by a power domain is still one rail. */
	for (int c = 0; c < 4; c++)
		t.cpu[c].rail_key = 42;
	EXPECT_BUDDIES(&t, &policy_rails, -1, -1, -1, -1);
}

KT_CASE(single_cpu)
{
	static struct topology t;
	static const int cl[] = { 0 }, rail[] = { 5 };
	static const uint32_t cap[] = { 1024 };

	flat(&t, 1, cl, cap, rail);
	EXPECT_BUDDIES(&t, &policy_rails, -1);
	KT_ASSERT_EQ(t.nr_levels[0], 0);
	KT_ASSERT_EQ(W(t.powerline[0]), 0x1u);
	KT_ASSERT_EQ(topology_common_level(&t, 0, 0), -1);
	EXPECT_BUDDIES(&t, &policy_all, -1);
	KT_ASSERT_EQ(t.nr_levels[0], 0);
	EXPECT_BUDDIES(&t, &policy_off, -1);
}

/* 8 CPUs in two clusters of 4, one rail per cluster. */
KT_CASE(eight_cpus_two_clusters)
{
	static struct topology t;
	static const int cl[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const int rail[] = { 1, 1, 1, 1, 2, 2, 2, 2 };
	static const uint32_t big_little[] = { 1024, 1024, 1024, 1024, 512, 512, 512, 512 };
	static const uint32_t same[] = { 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024 };

	flat(&t, 8, cl, big_little, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 4, 4, 4, 4, 4, 5, 6, 7);
	EXPECT_LEVELS(&t, 1, "MC[0-3: {0}=1024 {1}=1024 {2}=1024 {3}=1024] "
			     "DIE[0-7: {0-3}=4096 {4-7}=2048]");
	EXPECT_LEVELS(&t, 6, "MC[4-7: {4}=512 {5}=512 {6}=512 {7}=512] "
			     "DIE[0-7: {0-3}=4096 {4-7}=2048]");
	EXPECT_BUDDIES(&t, &policy_all, 4, 0, 0, 0, 4, 4, 4, 4);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1, -1, -1, -1, -1);

	/* Equal capacities: the tie at DIE goes to cluster 0 (it holds CPU0). */
	flat(&t, 8, cl, same, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 1, 2, 3, 0, 0, 0, 0);
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 0, 0, 4, 4, 4);
}

/* The largest system: 32 CPUs (a full cpumask), 4 clusters of 8. */
KT_CASE(thirty_two_cpus)
{
	static struct topology t;
	int cl[32], rail[32], want[32];
	uint32_t cap[32];
	char why[600], m[64];

	for (int c = 0; c < 32; c++) {
		cl[c] = c / 8;
		rail[c] = 1000 + c / 8;
		cap[c] = 1024 - 100 * (uint32_t)(c / 8);	/* cluster 3 is the smallest */
		want[c] = c < 24 ? 24 : c;
	}
	flat(&t, 32, cl, cap, rail);
	topology_build(&t, &policy_rails);
	KT_ASSERT_MSG(buddies_are(&t, want, why, sizeof(why)), "%s", why);
	for (int c = 0; c < 32; c++) {
		KT_ASSERT_EQ(t.nr_levels[c], 2);
		KT_ASSERT_EQ(W(t.sd[c][0].span), 0xffu << (8 * (c / 8)));
		KT_ASSERT_EQ(W(t.sd[c][1].span), 0xffffffffu);
		KT_ASSERT_EQ(t.sd[c][1].nr_groups, 4);
		KT_ASSERT_EQ(W(sd_group(&t, &t.sd[c][1], 3)->cpus), 0xff000000u);
		KT_ASSERT_EQ(sd_group(&t, &t.sd[c][1], 3)->capacity, 8u * 724u);
		KT_ASSERT_EQ(W(t.powerline[c]), 0xffu << (8 * (c / 8)));
	}
	cpumask_format(m, sizeof(m), &t.sd[31][1].span);
	KT_ASSERT_STREQ(m, "0-31");
	cpumask_format(m, sizeof(m), &t.sd[31][0].span);
	KT_ASSERT_STREQ(m, "24-31");

	/* One rail for all 32: no packing. */
	for (int c = 0; c < 32; c++) {
		t.cpu[c].rail_key = -1;
		want[c] = -1;
	}
	topology_build(&t, &policy_rails);
	KT_ASSERT_MSG(buddies_are(&t, want, why, sizeof(why)), "%s", why);
}

/* Ties go to the group holding the lowest-numbered CPU; target = its lowest CPU. */
KT_CASE(ties_lowest_cpu)
{
	static struct topology t;
	/* Clusters interleaved: X = {1,2}, Y = {0,3}; equal capacities. */
	static const int cl1[] = { 1, 0, 0, 1 }, rail1[] = { 8, 9, 9, 8 };
	static const uint32_t cap1[] = { 1024, 1024, 1024, 1024 };
	/* Equal capacity per CPU, different group sizes: 3 x 600 vs 2 x 600. */
	static const int cl2[] = { 0, 0, 0, 1, 1 }, rail2[] = { 1, 1, 1, 2, 2 };
	static const uint32_t cap2[] = { 600, 600, 600, 600, 600 };
	/* Same, but the small cluster first in CPU order. */
	static const int cl3[] = { 0, 0, 1, 1, 1 }, rail3[] = { 1, 1, 2, 2, 2 };

	flat(&t, 4, cl1, cap1, rail1);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 0, 0, 3);
	EXPECT_LEVELS(&t, 1, "MC[1-2: {1}=1024 {2}=1024] DIE[0-3: {0,3}=2048 {1-2}=2048]");
	EXPECT_LEVELS(&t, 3, "MC[0,3: {0}=1024 {3}=1024] DIE[0-3: {0,3}=2048 {1-2}=2048]");
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 1, 0);

	flat(&t, 5, cl2, cap2, rail2);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 1, 2, 0, 0);
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 0, 3);

	flat(&t, 5, cl3, cap2, rail3);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 1, 0, 0, 0);
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 2, 2);
}

/* The lowest capacity PER CPU, compared exactly (no rounding, not the sum). */
KT_CASE(capacity_per_cpu_exact)
{
	static struct topology t;
	static const int cl[] = { 0, 0, 1, 1, 1 }, rail[] = { 1, 1, 2, 2, 2 };
	/* 1001/2 = 500.5 > 1500/3 = 500: cluster 1 is lower. */
	static const uint32_t cap_a[] = { 500, 501, 500, 500, 500 };
	/* 1000/2 = 500 < 1501/3 = 500.33: cluster 0 is lower. */
	static const uint32_t cap_b[] = { 500, 500, 500, 500, 501 };
	/* A lone CPU of 400 against two of 300 (sum 600): the pair is lower. */
	static const int cl_c[] = { 0, 1, 1 }, rail_c[] = { 1, 2, 2 };
	static const uint32_t cap_c[] = { 400, 300, 300 };

	flat(&t, 5, cl, cap_a, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 2, 2, 2, 3, 4);
	flat(&t, 5, cl, cap_b, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 1, 0, 0, 0);

	flat(&t, 3, cl_c, cap_c, rail_c);
	EXPECT_BUDDIES(&t, &policy_rails, 1, 1, 2);
	/* The one-CPU cluster makes no level: CPU0 has DIE only. */
	KT_ASSERT_EQ(t.nr_levels[0], 1);
	KT_ASSERT_STREQ(t.sd[0][0].name, "DIE");
	KT_ASSERT_EQ(W(t.sd[0][0].span), 0x7u);
	EXPECT_LEVELS(&t, 1, "MC[1-2: {1}=300 {2}=300] DIE[0-2: {0}=400 {1-2}=600]");
}

/*
 * Rails that do not follow the clusters: the walk starts at the lowest
 * level whose span is larger than the rail, and a target on the CPU's own
 * rail sends it one level up.
 */
KT_CASE(rails_across_clusters)
{
	static struct topology t;
	/* Rail A = {0,2}, B = {1,3}: MC spans are no larger than the rails. */
	static const int cl[] = { 0, 0, 1, 1 }, rail[] = { 1, 2, 1, 2 };
	static const uint32_t cap[] = { 1024, 1024, 512, 512 };
	/* Rail {0} alone, {1,2,3} together across both clusters. */
	static const int rail2[] = { 1, 2, 2, 2 };

	/*
	 * DIE's lowest group is {2,3}, target CPU2: on the rail of CPU0 and
	 * CPU2 (who stay put), not on that of CPU1 and CPU3.
	 */
	flat(&t, 4, cl, cap, rail);
	EXPECT_BUDDIES(&t, &policy_rails, 0, 2, 2, 2);
	KT_ASSERT_EQ(W(t.powerline[0]), 0x5u);
	KT_ASSERT_EQ(W(t.powerline[1]), 0xau);

	flat(&t, 4, cl, cap, rail2);
	/*
	 * CPU0: MC target 0 (own rail), DIE target 2: 2. CPU1 (rail of 3):
	 * only DIE is larger, target 2 is on its rail: 1. CPU2, CPU3: DIE
	 * target 2 on their rail: themselves.
	 */
	EXPECT_BUDDIES(&t, &policy_rails, 2, 1, 2, 3);
}

/* SD_SHARE_POWERLINE: set on a level whose whole span is on the CPU's rail. */
KT_CASE(share_powerline_flags)
{
	static struct topology t;
	static const int cl[] = { 0, 0, 0, 0 }, one[] = { -1, -1, -1, -1 };
	static const uint32_t cap[] = { 1024, 1024, 1024, 1024 };

	tc2(&t);
	topology_build(&t, &policy_rails);
	for (int c = 0; c < 5; c++) {
		KT_ASSERT_EQ(t.sd[c][0].flags, SD_SHARE_POWERLINE);	/* MC = the cluster rail */
		KT_ASSERT_EQ(t.sd[c][1].flags, 0u);			/* DIE spans both */
	}
	topology_build(&t, &policy_all);	/* the seeds' patch: cleared everywhere */
	for (int c = 0; c < 5; c++)
		for (int l = 0; l < t.nr_levels[c]; l++)
			KT_ASSERT_EQ(t.sd[c][l].flags, 0u);
	topology_build(&t, &policy_rails);	/* and back */
	KT_ASSERT_EQ(t.sd[3][0].flags, SD_SHARE_POWERLINE);

	flat(&t, 4, cl, cap, one);	/* A9x4: the one level shares the one rail */
	topology_build(&t, &policy_rails);
	for (int c = 0; c < 4; c++)
		KT_ASSERT_EQ(t.sd[c][0].flags, SD_SHARE_POWERLINE);
}

KT_CASE(describe_cpu)
{
	static struct topology t;
	static const int cl[] = { 0 }, rail[] = { -1 };
	static const uint32_t cap[] = { 1024 };
	static const char tc2_cpu0[] =
		"cpu0 mpidr=0x0 cluster=0 capacity=1024 rail=0-1 ktest: "
		"MC[0-1 SHARE_POWERLINE: {0}/1024 {1}/1024] DIE[0-4: {0-1}/2048 {2-4}/1548]";
	static const char tc2_cpu4_all[] =
		"cpu4 mpidr=0x4 cluster=1 capacity=516 rail=4 ktest: "
		"MC[2-4: {2}/516 {3}/516 {4}/516] DIE[0-4: {0-1}/2048 {2-4}/1548]";
	char buf[512];

	tc2(&t);
	topology_build(&t, &policy_rails);
	KT_ASSERT_EQ(topology_describe_cpu(&t, 0, buf, sizeof(buf)), (int)strlen(tc2_cpu0));
	KT_ASSERT_STREQ(buf, tc2_cpu0);
	/* Truncated like snprintf: full length returned, buffer terminated. */
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(topology_describe_cpu(&t, 0, buf, 10), (int)strlen(tc2_cpu0));
	KT_ASSERT_STREQ(buf, "cpu0 mpid");
	KT_ASSERT_EQ(buf[10], 'x');
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(topology_describe_cpu(&t, 0, buf, 0), (int)strlen(tc2_cpu0));
	KT_ASSERT_EQ(buf[0], 'x');
	topology_build(&t, &policy_all);
	KT_ASSERT_EQ(topology_describe_cpu(&t, 4, buf, sizeof(buf)), (int)strlen(tc2_cpu4_all));
	KT_ASSERT_STREQ(buf, tc2_cpu4_all);

	flat(&t, 1, cl, cap, rail);
	topology_build(&t, &policy_rails);
	topology_describe_cpu(&t, 0, buf, sizeof(buf));
	KT_ASSERT_STREQ(buf, "cpu0 mpidr=0x0 cluster=0 capacity=1024 rail=0 ktest: no domains");
}

KT_CASE(cpumask_format_lists)
{
	static const struct {
		uint32_t m;
		const char *s;
	} tab[] = {
		{ 0x13u, "0-1,4" }, { 0u, "none" }, { 0x1u, "0" }, { 0x2u, "1" },
		{ 0x3u, "0-1" }, { 0x7u, "0-2" }, { 0x55u, "0,2,4,6" }, { 0x1cu, "2-4" },
		{ 0x80000000u, "31" }, { 0xffffffffu, "0-31" }, { 0xc0000001u, "0,30-31" },
		{ 0x7ffffffeu, "1-30" }, { 0x0f0f0000u, "16-19,24-27" }, { 0x5u, "0,2" },
	};
	char buf[128];

	for (int i = 0; i < NELEM(tab); i++) {
		memset(buf, 'x', sizeof(buf));
		KT_ASSERT_EQ(fmt32(buf, sizeof(buf), tab[i].m), (int)strlen(tab[i].s));
		KT_ASSERT_MSG(strcmp(buf, tab[i].s) == 0, "cpumask_format(0x%x) = \"%s\", expected \"%s\"",
			      (unsigned)tab[i].m, buf, tab[i].s);
	}
	/* Truncation: snprintf's return value, always terminated. */
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(fmt32(buf, 4, 0x13u), 5);
	KT_ASSERT_STREQ(buf, "0-1");
	KT_ASSERT_EQ(buf[4], 'x');
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(fmt32(buf, 2, 0x13u), 5);
	KT_ASSERT_STREQ(buf, "0");
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(fmt32(buf, 1, 0xc0000001u), 7);
	KT_ASSERT_EQ(buf[0], '\0');
	KT_ASSERT_EQ(buf[1], 'x');
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(fmt32(buf, 3, 0u), 4);
	KT_ASSERT_STREQ(buf, "no");
	memset(buf, 'x', sizeof(buf));
	KT_ASSERT_EQ(fmt32(buf, 0, 0x13u), 5);
	KT_ASSERT_EQ(buf[0], 'x');
	KT_ASSERT_EQ(fmt32(buf, 6, 0x13u), 5);	/* exactly fits */
	KT_ASSERT_STREQ(buf, "0-1,4");
}

KT_CASE(pack_mode_names)
{
	char names[PACK_POLICY_LIST_SIZE];

	KT_ASSERT_EQ(pack_policy_find("off"), &policy_off);
	KT_ASSERT_EQ(pack_policy_find("rails"), &policy_rails);
	KT_ASSERT_EQ(pack_policy_find("all"), &policy_all);
	KT_ASSERT_EQ(pack_policy_find("energy"), &policy_energy);
	KT_ASSERT_EQ(pack_policy_find(""), NULL);
	KT_ASSERT_EQ(pack_policy_find(NULL), NULL);
	KT_ASSERT_EQ(pack_policy_find("ALL"), NULL);
	KT_ASSERT_EQ(pack_policy_find("rail"), NULL);
	KT_ASSERT_EQ(pack_policy_find("railsx"), NULL);
	KT_ASSERT_EQ(pack_policy_find("default"), NULL);
	KT_ASSERT_STREQ(policy_off.name, "off");
	KT_ASSERT_STREQ(policy_rails.name, "rails");
	KT_ASSERT_STREQ(policy_all.name, "all");
	/* The table's order is the interface's (spec: --list-modes). */
	KT_ASSERT_EQ(pack_policy_at(0), &policy_off);
	KT_ASSERT_EQ(pack_policy_at(3), &policy_energy);
	KT_ASSERT_EQ(pack_policy_at(-1), NULL);
	/* The shipped four lead, in the interface's order; whatever else is linked follows. */
	KT_ASSERT_EQ(pack_policy_at(1), &policy_rails);
	KT_ASSERT_EQ(pack_policy_at(2), &policy_all);
	KT_ASSERT(pack_policy_count() >= 4);
	{
		char want[PACK_POLICY_LIST_SIZE] = "";
		size_t n = 0;

		for (int i = 0; i < pack_policy_count(); i++)
			n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s", i ? ", " : "", pack_policy_at(i)->name);
		KT_ASSERT_STREQ(pack_policy_list(names, sizeof(names)), want);
		KT_ASSERT(strncmp(want, "off, rails, all, energy", 23) == 0);
	}
	/* A short buffer is cut, never overrun. */
	KT_ASSERT_STREQ(pack_policy_list(names, 8), "off, ra");
	KT_ASSERT_EQ(PACK_DEFAULT_POLICY, &policy_rails);
}

/* ------------------------------------------------------------ DT fixtures */

/* Cluster of clusters: MC, CLS, DIE. */
KT_CASE(dt_nested_cpu_map)
{
	static struct dtb d;
	static struct topology t;
	static const uint32_t hwid[] = { 0x0, 0x1, 0x100, 0x101, 0x10000, 0x10001, 0x10100, 0x10101 };

	PARSE_OK(FIXTURE("topo-nested"), &d, &t);
	KT_ASSERT_EQ(t.nr_cpus, 8);
	KT_ASSERT_EQ(t.nr_clusters, 4);
	for (int c = 0; c < 8; c++) {
		const struct topo_cpu *p = &t.cpu[c];

		KT_ASSERT_EQ(p->hwid, hwid[c]);
		KT_ASSERT_EQ(p->capacity, c < 4 ? 1024u : 512u);
		KT_ASSERT_EQ(p->cluster, c / 2);
		KT_ASSERT_EQ(p->nr_anc, 2);
		KT_ASSERT_STREQ(p->compatible, c < 4 ? "arm,cortex-a15" : "arm,cortex-a7");
		KT_ASSERT(p->rail_key >= 0);
		for (int o = 0; o < 8; o++) {
			KT_ASSERT_EQ(p->anc[0] == t.cpu[o].anc[0], c / 2 == o / 2);
			KT_ASSERT_EQ(p->anc[1] == t.cpu[o].anc[1], c / 4 == o / 4);
			KT_ASSERT_EQ(p->rail_key == t.cpu[o].rail_key, c / 2 == o / 2);
		}
	}
	topology_build(&t, &policy_rails);
	for (int c = 0; c < 8; c++) {
		KT_ASSERT_EQ(t.nr_levels[c], 3);
		KT_ASSERT_STREQ(t.sd[c][0].name, "MC");
		KT_ASSERT_STREQ(t.sd[c][1].name, "CLS");
		KT_ASSERT_STREQ(t.sd[c][2].name, "DIE");
		KT_ASSERT_EQ(W(t.sd[c][0].span), 0x3u << (2 * (c / 2)));
		KT_ASSERT_EQ(W(t.sd[c][1].span), 0xfu << (4 * (c / 4)));
		KT_ASSERT_EQ(W(t.sd[c][2].span), 0xffu);
		KT_ASSERT_EQ(W(t.powerline[c]), 0x3u << (2 * (c / 2)));
	}
	EXPECT_LEVELS(&t, 0, "MC[0-1: {0}=1024 {1}=1024] CLS[0-3: {0-1}=2048 {2-3}=2048] "
			     "DIE[0-7: {0-3}=4096 {4-7}=2048]");
	EXPECT_LEVELS(&t, 6, "MC[6-7: {6}=512 {7}=512] CLS[4-7: {4-5}=1024 {6-7}=1024] "
			     "DIE[0-7: {0-3}=4096 {4-7}=2048]");
	KT_ASSERT_EQ(topology_common_level(&t, 0, 1), 0);
	KT_ASSERT_EQ(topology_common_level(&t, 0, 3), 1);
	KT_ASSERT_EQ(topology_common_level(&t, 0, 4), 2);
	KT_ASSERT_EQ(topology_common_level(&t, 5, 6), 1);
	KT_ASSERT_EQ(topology_common_level(&t, 7, 6), 0);
	/*
	 * CPU0/1: the CLS tie goes to {0,1}, their own rail, so DIE: CPU4.
	 * CPU2/3: CLS target CPU0. CPU4/5: every target on their rail.
	 * CPU6/7: CLS target CPU4.
	 */
	EXPECT_BUDDIES(&t, &policy_rails, 4, 4, 0, 0, 4, 5, 4, 4);
	EXPECT_BUDDIES(&t, &policy_all, 4, 0, 0, 2, 4, 4, 4, 6);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1, -1, -1, -1, -1);
}

/* Clusters nested TOPO_MAX_DEPTH deep: four levels, the most there are. */
KT_CASE(dt_nested_max_depth)
{
	static struct dtb d;
	static struct topology t;
	int want[16];
	char why[600], name[16];

	PARSE_OK(FIXTURE("topo-depth3"), &d, &t);
	KT_ASSERT_EQ(t.nr_cpus, 16);
	KT_ASSERT_EQ(t.nr_clusters, 8);
	for (int c = 0; c < 16; c++) {
		KT_ASSERT_EQ(t.cpu[c].nr_anc, TOPO_MAX_DEPTH);
		KT_ASSERT_EQ(t.cpu[c].cluster, c / 2);
		KT_ASSERT_EQ(t.cpu[c].capacity, 1024u);
		KT_ASSERT_EQ(t.cpu[c].rail_key, -1);
		KT_ASSERT_EQ(t.cpu[c].hwid, (uint32_t)(((c / 2) << 8) | (c & 1)));
	}
	topology_build(&t, &policy_rails);
	for (int c = 0; c < 16; c++) {
		KT_ASSERT_EQ(t.nr_levels[c], TOPO_MAX_LEVELS);
		for (int l = 0; l < 4; l++) {
			const struct sched_domain *sd = &t.sd[c][l];
			int w = 2 << l;	/* span 2, 4, 8, 16 CPUs */
			uint32_t span = ((1u << w) - 1) << (c / w * w);

			snprintf(name, sizeof(name), "%s", l == 0 ? "MC" : l == 3 ? "DIE" : "CLS");
			KT_ASSERT_STREQ(sd->name, name);
			KT_ASSERT_EQ(W(sd->span), span);
			KT_ASSERT_EQ(sd->nr_groups, 2);
			KT_ASSERT_EQ(W(sd_group(&t, sd, 0)->cpus) | W(sd_group(&t, sd, 1)->cpus), span);
			KT_ASSERT_EQ(cpumask_weight(&sd_group(&t, sd, 0)->cpus), w / 2);
			KT_ASSERT_EQ(cpumask_first(&sd_group(&t, sd, 0)->cpus), __builtin_ctz(span));
			KT_ASSERT_EQ(sd_group(&t, sd, 1)->capacity, 1024u * (uint32_t)w / 2);
		}
		KT_ASSERT_EQ(W(t.powerline[c]), 0xffffu);
		want[c] = -1;
	}
	EXPECT_LEVELS(&t, 13, "MC[12-13: {12}=1024 {13}=1024] CLS[12-15: {12-13}=2048 {14-15}=2048] "
			      "CLS[8-15: {8-11}=4096 {12-15}=4096] DIE[0-15: {0-7}=8192 {8-15}=8192]");
	KT_ASSERT_MSG(buddies_are(&t, want, why, sizeof(why)), "%s", why);
	/* all, equal capacities: every tie goes to the lowest CPU of the span. */
	topology_build(&t, &policy_all);
	for (int c = 0; c < 16; c++)
		want[c] = c & (c - 1);
	KT_ASSERT_MSG(buddies_are(&t, want, why, sizeof(why)), "%s", why);
}

/* No cpu-map: clusters from MPIDR Aff1. */
KT_CASE(dt_clusters_from_mpidr)
{
	static struct dtb d;
	static struct topology t;
	static const uint32_t hwid[] = { 0x0, 0x1, 0x100, 0x101 };

	PARSE_OK(FIXTURE("topo-aff1"), &d, &t);
	KT_ASSERT_EQ(t.nr_cpus, 4);
	KT_ASSERT_EQ(t.nr_clusters, 2);
	for (int c = 0; c < 4; c++) {
		KT_ASSERT_EQ(t.cpu[c].hwid, hwid[c]);
		KT_ASSERT_EQ(t.cpu[c].cluster, c / 2);
		KT_ASSERT_EQ(t.cpu[c].nr_anc, 2);	/* Aff2.Aff1 cluster, Aff2 package */
		KT_ASSERT_EQ(t.cpu[c].capacity, c < 2 ? 1024u : 516u);
		KT_ASSERT(t.cpu[c].rail_key >= 0);
		for (int o = 0; o < 4; o++) {
			KT_ASSERT_EQ(t.cpu[c].anc[0] == t.cpu[o].anc[0], c / 2 == o / 2);
			KT_ASSERT_EQ(t.cpu[c].rail_key == t.cpu[o].rail_key, c / 2 == o / 2);
		}
	}
	EXPECT_BUDDIES(&t, &policy_rails, 2, 2, 2, 3);
	EXPECT_LEVELS(&t, 0, "MC[0-1: {0}=1024 {1}=1024] DIE[0-3: {0-1}=2048 {2-3}=1032]");
	EXPECT_LEVELS(&t, 3, "MC[2-3: {2}=516 {3}=516] DIE[0-3: {0-1}=2048 {2-3}=1032]");
	EXPECT_BUDDIES(&t, &policy_all, 2, 0, 2, 2);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1);
}

/* No cpu-map, clusters interleaved in CPU order, defaults everywhere. */
KT_CASE(dt_clusters_from_mpidr_interleaved)
{
	static struct dtb d;
	static struct topology t;
	static const uint32_t hwid[] = { 0x300, 0x0, 0x301, 0x1 };
	static const char *const compat[] = { "arm,cortex-a7", "arm,cortex-a15", "arm,cortex-a7",
					       "unknown" };

	PARSE_OK(FIXTURE("topo-aff1-interleaved"), &d, &t);
	KT_ASSERT_EQ(t.nr_cpus, 4);
	KT_ASSERT_EQ(t.nr_clusters, 2);
	for (int c = 0; c < 4; c++) {
		KT_ASSERT_EQ(t.cpu[c].hwid, hwid[c]);
		KT_ASSERT_EQ(t.cpu[c].cluster, c % 2);	/* dense, in CPU order */
		KT_ASSERT_EQ(t.cpu[c].capacity, CAPACITY_SCALE);
		KT_ASSERT_EQ(t.cpu[c].rail_key, -1);
		KT_ASSERT_STREQ(t.cpu[c].compatible, compat[c]);
	}
	EXPECT_BUDDIES(&t, &policy_rails, -1, -1, -1, -1);
	for (int c = 0; c < 4; c++)
		KT_ASSERT_EQ(W(t.powerline[c]), 0xfu);
	EXPECT_LEVELS(&t, 0, "MC[0,2: {0}=1024 {2}=1024] DIE[0-3: {0,2}=2048 {1,3}=2048]");
	EXPECT_LEVELS(&t, 3, "MC[1,3: {1}=1024 {3}=1024] DIE[0-3: {0,2}=2048 {1,3}=2048]");
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 1);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1);
}

/* CPUs without power-domains share the system rail, across clusters. */
KT_CASE(dt_system_rail)
{
	static struct dtb d;
	static struct topology t;
	static const uint32_t hwid[] = { 0x0, 0x1, 0x100, 0x101 };

	PARSE_OK(FIXTURE("topo-sysrail"), &d, &t);
	KT_ASSERT_EQ(t.nr_cpus, 4);	/* the disabled cpu@2 and the cache are no CPUs */
	KT_ASSERT_EQ(t.nr_clusters, 2);
	for (int c = 0; c < 4; c++) {
		KT_ASSERT_EQ(t.cpu[c].hwid, hwid[c]);
		KT_ASSERT_EQ(t.cpu[c].cluster, c / 2);
		KT_ASSERT_EQ(t.cpu[c].nr_anc, 1);
		KT_ASSERT_EQ(t.cpu[c].capacity, 1024u);
	}
	KT_ASSERT_EQ(t.cpu[0].rail_key, -1);
	KT_ASSERT_EQ(t.cpu[2].rail_key, -1);
	KT_ASSERT(t.cpu[1].rail_key >= 0);
	KT_ASSERT(t.cpu[3].rail_key >= 0);
	KT_ASSERT(t.cpu[1].rail_key != t.cpu[3].rail_key);

	EXPECT_BUDDIES(&t, &policy_rails, 0, 0, 2, 2);
	KT_ASSERT_EQ(W(t.powerline[0]), 0x5u);
	KT_ASSERT_EQ(W(t.powerline[1]), 0x2u);
	KT_ASSERT_EQ(W(t.powerline[2]), 0x5u);
	KT_ASSERT_EQ(W(t.powerline[3]), 0x8u);
	EXPECT_BUDDIES(&t, &policy_all, 0, 0, 0, 2);
	EXPECT_BUDDIES(&t, &policy_off, -1, -1, -1, -1);
}

static const struct {
	const char *fixture, *err;
} parse_errors[] = {
	{ "topo-err-notcpu", "cpu-map/.../core0: cpu phandle 0x42 is not an enabled cpu node" },
	{ "topo-err-disabled", "cpu-map/.../core1: cpu phandle 0x7 is not an enabled cpu node" },
	{ "topo-err-missing", "cpu-map does not mention cpu2 (/cpus/cpu@100)" },
	{ "topo-err-twice", "cpu-map: cpu1 appears twice (at core2)" },
	{ "topo-err-cap0", "/cpus/cpu@1: capacity-dmips-mhz must be one non-zero cell" },
	{ "topo-err-pd", "/cpus/cpu@1: power-domains phandle 0xffffffff names no node" },
	{ "topo-err-deep", "cpu-map: clusters nested deeper than 3 (at cluster0)" },
	{ "topo-err-nocluster", "cpu-map: core0 is in no cluster" },
	{ "topo-err-malformed", "cpu-map: core0 has a malformed cpu property" },
	{ "topo-err-empty", "/cpus has no enabled cpu node" },
	{ "topo-err-nocpus", "no /cpus node" },
};

KT_CASE(dt_parse_errors)
{
	static struct dtb d;
	static struct topology t;

	for (int i = 0; i < NELEM(parse_errors); i++) {
		char path[128], err[200];

		snprintf(path, sizeof(path), FIXTURE("%s"), parse_errors[i].fixture);
		LOAD(path, &d);
		memset(err, 'x', sizeof(err));
		err[sizeof(err) - 1] = '\0';
		KT_ASSERT_MSG(topology_parse_dt(&d.fdt, &t, err, sizeof(err)) == -1,
			      "%s: topology_parse_dt succeeded", path);
		KT_ASSERT_MSG(strcmp(err, parse_errors[i].err) == 0, "%s: error \"%s\", expected \"%s\"",
			      path, err, parse_errors[i].err);
	}
}

/* The message is cut to the buffer and terminated. */
KT_CASE(dt_parse_error_truncated)
{
	static struct dtb d;
	static struct topology t;
	char err[24];

	LOAD(FIXTURE("topo-err-cap0"), &d);
	memset(err, 'x', sizeof(err));
	KT_ASSERT_EQ(topology_parse_dt(&d.fdt, &t, err, 16), -1);
	KT_ASSERT_STREQ(err, "/cpus/cpu@1: ca");
	KT_ASSERT_EQ(err[16], 'x');
}

/* A power-domains phandle that no node carries (dtc refuses to write one). */
KT_CASE(dt_dangling_power_domain_phandle)
{
	static struct dtb d;
	static struct topology t;
	static const uint8_t all_ones[4] = { 0xff, 0xff, 0xff, 0xff };
	char err[200];
	int hits = 0;

	LOAD(FIXTURE("topo-err-pd"), &d);
	for (uint32_t off = d.fdt.off_struct; off + 4 <= d.fdt.off_struct + d.fdt.size_struct; off += 4)
		if (memcmp(d.blob + off, all_ones, 4) == 0) {
			d.blob[off] = d.blob[off + 1] = d.blob[off + 2] = 0;
			d.blob[off + 3] = 0x99;
			hits++;
		}
	KT_ASSERT_EQ(hits, 1);
	KT_ASSERT_EQ(fdt_open(&d.fdt, d.blob, d.len), 0);
	KT_ASSERT_EQ(topology_parse_dt(&d.fdt, &t, err, sizeof(err)), -1);
	KT_ASSERT_STREQ(err, "/cpus/cpu@1: power-domains phandle 0x99 names no node");
}

/*
 * Branches of the cpu-map nested to different depths (see the fixture).
 * topology.h: each CPU gets "the innermost cluster (MC), enclosing
 * clusters (CLS), then all CPUs (DIE)", and "the groups of a level are the
 * spans of the level below", so every CPU sees the same groups at DIE.
 */
KT_CASE(dt_uneven_nesting)
{
	static struct dtb d;
	static struct topology t;

	PARSE_OK(FIXTURE("topo-uneven"), &d, &t);
	KT_ASSERT_EQ(t.nr_cpus, 6);
	KT_ASSERT_EQ(t.nr_clusters, 3);
	for (int c = 0; c < 6; c++)
		KT_ASSERT_EQ(t.cpu[c].cluster, c / 2);
	KT_ASSERT_EQ(t.cpu[0].nr_anc, 2);
	KT_ASSERT_EQ(t.cpu[2].nr_anc, 3);
	KT_ASSERT_EQ(t.cpu[4].nr_anc, 1);
	topology_build(&t, &policy_rails);
	EXPECT_LEVELS(&t, 0, "MC[0-1: {0}=1024 {1}=1024] CLS[0-3: {0-1}=2048 {2-3}=1024] "
			     "DIE[0-5: {0-3}=3072 {4-5}=512]");
	EXPECT_LEVELS(&t, 2, "MC[2-3: {2}=512 {3}=512] CLS[0-3: {0-1}=2048 {2-3}=1024] "
			     "DIE[0-5: {0-3}=3072 {4-5}=512]");
	EXPECT_LEVELS(&t, 4, "MC[4-5: {4}=256 {5}=256] DIE[0-5: {0-3}=3072 {4-5}=512]");
	/* CPU0/1: CLS target CPU2; CPU2/3: DIE target CPU4. */
	EXPECT_BUDDIES(&t, &policy_rails, 2, 2, 4, 4, 4, 5);
}

/* ------------------------------------------------------------ real boards */

static const struct {
	const char *board;
	int nr_cpus;
	int rails[5], all[5];
} boards[] = {
	{ "vexpress-a9", 4, { -1, -1, -1, -1 }, { 0, 0, 0, 0 } },
	{ "vexpress-a15", 4, { 2, 2, 2, 3 }, { 2, 0, 2, 2 } },
	{ "qemu-tc2", 5, { 2, 2, 2, 3, 4 }, { 2, 0, 2, 2, 2 } },
	{ "tc2", 5, { 2, 2, 2, 3, 4 }, { 2, 0, 2, 2, 2 } },
};

static const int no_buddies[TOPO_MAX_CPUS] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

KT_CASE(board_dtbs)
{
	static struct dtb d;
	static struct topology t;

	for (int b = 0; b < NELEM(boards); b++) {
		char err[200] = "", why[600];

		LOAD_BOARD(boards[b].board, &d);
		KT_ASSERT_MSG(topology_parse_dt(&d.fdt, &t, err, sizeof(err)) == 0, "%s: %s",
			      boards[b].board, err);
		KT_ASSERT_EQ(t.nr_cpus, boards[b].nr_cpus);
		topology_build(&t, &policy_rails);
		KT_ASSERT_MSG(buddies_are(&t, boards[b].rails, why, sizeof(why)), "%s: %s",
			      boards[b].board, why);
		topology_build(&t, &policy_all);
		KT_ASSERT_MSG(buddies_are(&t, boards[b].all, why, sizeof(why)), "%s: %s",
			      boards[b].board, why);
		topology_build(&t, &policy_off);
		KT_ASSERT_MSG(buddies_are(&t, no_buddies, why, sizeof(why)), "%s: %s",
			      boards[b].board, why);
	}
}

KT_CASE(board_tc2_domains)
{
	static struct dtb d;
	static struct topology t;
	static const uint32_t hwid[] = { 0x0, 0x1, 0x100, 0x101, 0x102 };
	char err[200] = "";

	LOAD_BOARD("tc2", &d);
	KT_ASSERT_EQ(topology_parse_dt(&d.fdt, &t, err, sizeof(err)), 0);
	KT_ASSERT_EQ(t.nr_clusters, 2);
	for (int c = 0; c < 5; c++) {
		KT_ASSERT_EQ(t.cpu[c].hwid, hwid[c]);
		KT_ASSERT_EQ(t.cpu[c].capacity, c < 2 ? 1024u : 516u);
		KT_ASSERT_STREQ(t.cpu[c].compatible, c < 2 ? "arm,cortex-a15" : "arm,cortex-a7");
	}
	topology_build(&t, &policy_rails);
	EXPECT_LEVELS(&t, 1, "MC[0-1: {0}=1024 {1}=1024] DIE[0-4: {0-1}=2048 {2-4}=1548]");
	EXPECT_LEVELS(&t, 4, "MC[2-4: {2}=516 {3}=516 {4}=516] DIE[0-4: {0-1}=2048 {2-4}=1548]");
}

/* ------------------------------------------------------------ schedtopo */

struct tool_run {
	int status;
	char out[32768];
};

/* Run "TOOL @args @redir"; capture what reaches the pipe. */
static bool run_tool(const char *args, const char *redir, struct tool_run *r)
{
	char cmd[512];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s %s", TOOL, args, redir);
	p = popen(cmd, "r");
	if (!p)
		return false;
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = '\0';
	st = pclose(p);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return true;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The "CPU<n> packing on CPU<m>" lines of @out, in order. */
static void packing_lines(const char *out, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (const char *l = out; *l; ) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) + 1 : strlen(l);

		if (strncmp(l, "CPU", 3) == 0 && len + n < size) {
			memcpy(buf + len, l, n);
			len += n;
			buf[len] = '\0';
		}
		l += n;
	}
}

static void expected_packing(const int *buddy, int n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < n && len < size; c++)
		len += (size_t)snprintf(buf + len, size - len, "CPU%d packing on CPU%d\n", c, buddy[c]);
}

/*
 * The whole stdout schedtopo should print for @t (built in its mode): the
 * summary line, topology_describe_cpu() for each CPU, the packing lines.
 */
static void expected_stdout(const struct topology *t, char *buf, size_t size)
{
	size_t len = 0;

	len += (size_t)snprintf(buf, size, "%d CPUs, %d clusters, pack=%s\n", t->nr_cpus,
				t->nr_clusters, t->policy->name);
	for (int c = 0; c < t->nr_cpus && len < size; c++) {
		len += (size_t)topology_describe_cpu(t, c, buf + len, size - len);
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "\n");
	}
	if (len < size)
		expected_packing(t->pack_buddy, t->nr_cpus, buf + len, size - len);
}

#define TOOL_CHECK() KT_ASSERT_MSG(access(TOOL, X_OK) == 0, "%s missing: run `make host`", TOOL)

/* schedtopo @args on @path, in @mode, against the kernel code run here. */
static bool tool_matches_library(const char *args, const char *path, const struct pack_policy *mode,
				 char *why, size_t len)
{
	static struct tool_run r;
	static struct dtb d;
	static struct topology t;
	static char want[32768];
	char cmd[256], err[200];

	if (!load_dtb(path, &d, why, len))
		return false;
	if (topology_parse_dt(&d.fdt, &t, err, sizeof(err)) != 0) {
		snprintf(why, len, "%s: %s", path, err);
		return false;
	}
	topology_build(&t, mode);
	expected_stdout(&t, want, sizeof(want));
	snprintf(cmd, sizeof(cmd), "%s %s", args, path);
	if (!run_tool(cmd, "2>&1", &r)) {
		snprintf(why, len, "popen failed");
		return false;
	}
	if (r.status != 0 || strcmp(r.out, want) != 0) {
		snprintf(why, len, "schedtopo %s: status %d, output:\n%s\nexpected:\n%s", cmd, r.status,
			 r.out, want);
		return false;
	}
	return true;
}

KT_CASE(tool_boards_all_modes)
{
	static struct tool_run r;
	static const char *const opt[] = { "", "--pack=rails", "--pack=all", "--pack=off" };
	static const struct pack_policy *const mode[] = { &policy_rails, &policy_rails, &policy_all, &policy_off };

	TOOL_CHECK();
	for (int b = 0; b < NELEM(boards); b++) {
		char path[128];

		board_dtb(boards[b].board, path, sizeof(path));
		KT_ASSERT_MSG(access(path, R_OK) == 0, "%s is missing: run `make boards` first", path);
		for (int m = 0; m < NELEM(opt); m++) {
			const int *want = m == 2 ? boards[b].all : m == 3 ? no_buddies : boards[b].rails;
			char args[256], got[1024], exp[1024], why[70000];
			const char *line;

			snprintf(args, sizeof(args), "%s %s", opt[m], path);
			KT_ASSERT(run_tool(args, "2>&1", &r));
			KT_ASSERT_MSG(r.status == 0, "schedtopo %s: status %d: %s", args, r.status, r.out);
			packing_lines(r.out, got, sizeof(got));
			expected_packing(want, boards[b].nr_cpus, exp, sizeof(exp));
			KT_ASSERT_MSG(strcmp(got, exp) == 0, "schedtopo %s:\n%s\nexpected:\n%s", args, got, exp);
			/* ... and they are the last lines. */
			line = strstr(r.out, "CPU0 packing on");
			KT_ASSERT(line != NULL);
			KT_ASSERT_STREQ(line, exp);
			/* Everything it prints is what the kernel code says. */
			KT_ASSERT_MSG(tool_matches_library(opt[m], path, mode[m], why, sizeof(why)), "%s", why);
		}
	}
}

/* Options may follow the file; the last --pack wins. */
KT_CASE(tool_argument_order)
{
	static struct tool_run r;
	char got[512];

	TOOL_CHECK();
	KT_ASSERT_MSG(access("build/tc2/tc2.dtb", R_OK) == 0, "build/tc2/tc2.dtb missing: run `make boards`");
	KT_ASSERT(run_tool("build/tc2/tc2.dtb --pack=all", "2>&1", &r));
	KT_ASSERT_EQ(r.status, 0);
	packing_lines(r.out, got, sizeof(got));
	KT_ASSERT_STREQ(got, "CPU0 packing on CPU2\nCPU1 packing on CPU0\nCPU2 packing on CPU2\n"
			     "CPU3 packing on CPU2\nCPU4 packing on CPU2\n");
	KT_ASSERT(run_tool("--pack=off --pack=rails build/tc2/tc2.dtb", "2>&1", &r));
	KT_ASSERT_EQ(r.status, 0);
	packing_lines(r.out, got, sizeof(got));
	KT_ASSERT_STREQ(got, "CPU0 packing on CPU2\nCPU1 packing on CPU2\nCPU2 packing on CPU2\n"
			     "CPU3 packing on CPU3\nCPU4 packing on CPU4\n");
}

/* The fixtures through the tool: nested levels and the system rail. */
KT_CASE(tool_fixtures)
{
	static struct tool_run r;
	static char why[70000];
	char got[1024];

	TOOL_CHECK();
	KT_ASSERT(run_tool(FIXTURE("topo-nested"), "2>&1", &r));
	KT_ASSERT_MSG(r.status == 0, "status %d: %s", r.status, r.out);
	packing_lines(r.out, got, sizeof(got));
	KT_ASSERT_STREQ(got, "CPU0 packing on CPU4\nCPU1 packing on CPU4\nCPU2 packing on CPU0\n"
			     "CPU3 packing on CPU0\nCPU4 packing on CPU4\nCPU5 packing on CPU5\n"
			     "CPU6 packing on CPU4\nCPU7 packing on CPU4\n");
	KT_ASSERT(strncmp(r.out, "8 CPUs, 4 clusters, pack=rails\n", 31) == 0);
	KT_ASSERT_MSG(tool_matches_library("", FIXTURE("topo-nested"), &policy_rails, why, sizeof(why)), "%s", why);
	KT_ASSERT_MSG(tool_matches_library("--pack=all", FIXTURE("topo-depth3"), &policy_all, why, sizeof(why)),
		      "%s", why);

	KT_ASSERT(run_tool("--pack=rails " FIXTURE("topo-sysrail"), "2>&1", &r));
	KT_ASSERT_EQ(r.status, 0);
	packing_lines(r.out, got, sizeof(got));
	KT_ASSERT_STREQ(got, "CPU0 packing on CPU0\nCPU1 packing on CPU0\nCPU2 packing on CPU2\n"
			     "CPU3 packing on CPU2\n");
	KT_ASSERT_MSG(tool_matches_library("--pack=off", FIXTURE("topo-sysrail"), &policy_off, why, sizeof(why)),
		      "%s", why);

	KT_ASSERT(run_tool("--pack=all " FIXTURE("topo-aff1"), "2>&1", &r));
	KT_ASSERT_EQ(r.status, 0);
	packing_lines(r.out, got, sizeof(got));
	KT_ASSERT_STREQ(got, "CPU0 packing on CPU2\nCPU1 packing on CPU0\nCPU2 packing on CPU2\n"
			     "CPU3 packing on CPU2\n");
	KT_ASSERT_MSG(tool_matches_library("--pack=all", FIXTURE("topo-aff1-interleaved"), &policy_all, why,
					   sizeof(why)), "%s", why);
}

/*
 * Bad input: exit status 2, nothing on stdout, exactly one line on stderr
 * (@want: that line exactly, or NULL when only its shape is fixed; it must
 * then start with @prefix).
 */
static bool bad_input(const char *args, const char *want, const char *prefix, char *why, size_t len)
{
	static struct tool_run r;

	if (!run_tool(args, "2>/dev/null", &r)) {
		snprintf(why, len, "popen failed");
		return false;
	}
	if (r.status != 2 || r.out[0]) {
		snprintf(why, len, "schedtopo %s: status %d (want 2), stdout \"%s\"", args, r.status, r.out);
		return false;
	}
	if (!run_tool(args, "2>&1 >/dev/null", &r)) {
		snprintf(why, len, "popen failed");
		return false;
	}
	if (r.status != 2 || count_lines(r.out) != 1 || r.out[strlen(r.out) - 1] != '\n' || r.out[0] == '\n') {
		snprintf(why, len, "schedtopo %s: status %d, want 2 and one line on stderr, got:\n%s",
			 args, r.status, r.out);
		return false;
	}
	if (want && strcmp(r.out, want) != 0) {
		snprintf(why, len, "schedtopo %s: stderr \"%s\", expected \"%s\"", args, r.out, want);
		return false;
	}
	if (prefix && strncmp(r.out, prefix, strlen(prefix)) != 0) {
		snprintf(why, len, "schedtopo %s: stderr \"%s\", expected it to start \"%s\"", args, r.out,
			 prefix);
		return false;
	}
	return true;
}

#define BAD_INPUT(args, want, prefix)                                         \
	do {                                                                  \
		char why_[1200];                                              \
		KT_ASSERT_MSG(bad_input((args), (want), (prefix), why_, sizeof(why_)), \
			      "%s", why_);                                    \
	} while (0)

KT_CASE(tool_bad_input)
{
	static struct dtb d;
	char want[512];

	char modes[PACK_POLICY_LIST_SIZE];

	TOOL_CHECK();
	KT_ASSERT_MSG(access("build/tc2/tc2.dtb", R_OK) == 0, "build/tc2/tc2.dtb missing: run `make boards`");
	/* The error lists the table (the tool links the same kernel objects as this test). */
	pack_policy_list(modes, sizeof(modes));
	snprintf(want, sizeof(want), "schedtopo: unknown pack mode 'fast' (%s)\n", modes);
	BAD_INPUT("--pack=fast build/tc2/tc2.dtb", want, NULL);
	snprintf(want, sizeof(want), "schedtopo: unknown pack mode '' (%s)\n", modes);
	BAD_INPUT("--pack= build/tc2/tc2.dtb", want, NULL);
	snprintf(want, sizeof(want), "schedtopo: unknown pack mode 'RAILS' (%s)\n", modes);
	BAD_INPUT("build/tc2/tc2.dtb --pack=RAILS", want, NULL);
	BAD_INPUT("", NULL, NULL);			/* missing file */
	BAD_INPUT("--pack=all", NULL, NULL);		/* missing file */
	BAD_INPUT("build/host/dts/topo-no-such-file.dtb",
		  "schedtopo: build/host/dts/topo-no-such-file.dtb: No such file or directory\n", NULL);
	BAD_INPUT("build/host/dts", "schedtopo: build/host/dts: Is a directory\n", NULL);
	BAD_INPUT("/dev/null", NULL, "schedtopo: /dev/null: invalid device tree: ");

	/* Not a DTB: the fdt reader's own message, verbatim. */
	KT_ASSERT(dtb_read("Makefile", &d, want, sizeof(want)));
	KT_ASSERT(fdt_open(&d.fdt, d.blob, d.len) < 0);
	snprintf(want, sizeof(want), "schedtopo: Makefile: invalid device tree: %s\n", d.fdt.err);
	BAD_INPUT("Makefile", want, NULL);

	/* Every parse-error fixture: the topology code's message, verbatim. */
	for (int i = 0; i < NELEM(parse_errors); i++) {
		char path[128];

		snprintf(path, sizeof(path), FIXTURE("%s"), parse_errors[i].fixture);
		snprintf(want, sizeof(want), "schedtopo: %s: %s\n", path, parse_errors[i].err);
		BAD_INPUT(path, want, NULL);
		snprintf(want, sizeof(want), "--pack=off %s", path);
		BAD_INPUT(want, NULL, "schedtopo: build/host/dts/topo-err-");
	}
}

/* Usage errors too get one line on stderr (spec: "one-line error"). */
KT_CASE(tool_usage_errors_one_line)
{
	TOOL_CHECK();
	KT_ASSERT_MSG(access("build/tc2/tc2.dtb", R_OK) == 0, "build/tc2/tc2.dtb missing: run `make boards`");
	BAD_INPUT("--fast build/tc2/tc2.dtb", NULL, "schedtopo: unknown option '--fast'");
	BAD_INPUT("--pack build/tc2/tc2.dtb", NULL, "schedtopo: unknown option '--pack'");
	BAD_INPUT("-p all build/tc2/tc2.dtb", NULL, "schedtopo: unknown option '-p'");
	BAD_INPUT("build/tc2/tc2.dtb build/vexpress-a9/vexpress-a9.dtb", NULL, "schedtopo: ");
}

/*
 * Hundreds of CPUs: a generated DT with 4 packages x 8 clusters x 16 CPUs
 * (512 CPUs, little clusters last in each package, one rail per cluster)
 * parses, builds MC/CLS/DIE levels and gives every CPU a buddy by the
 * rule; one more CPU than TOPO_MAX_CPUS is refused with a clear error.
 */
static bool gen_dtb(const char *dts_path, const char *dtb_path, int packages, int clusters, int cores,
		    int extra_flat_cpus)
{
	FILE *f = fopen(dts_path, "w");
	char cmd[512];
	int cpu = 0;

	if (!f)
		return false;
	fprintf(f, "/dts-v1/;\n/ {\n #address-cells = <1>; #size-cells = <1>;\n cpus {\n"
		   "  #address-cells = <1>; #size-cells = <0>;\n");
	if (!extra_flat_cpus) {
		fprintf(f, "  cpu-map {\n");
		for (int p = 0; p < packages; p++) {
			fprintf(f, "   cluster%d {\n", p);
			for (int c = 0; c < clusters; c++) {
				fprintf(f, "    cluster%d {\n", c);
				for (int k = 0; k < cores; k++)
					fprintf(f, "     core%d { cpu = <&c%d>; };\n", k, (p * clusters + c) * cores + k);
				fprintf(f, "    };\n");
			}
			fprintf(f, "   };\n");
		}
		fprintf(f, "  };\n");
	}
	for (int p = 0; p < packages; p++)
		for (int c = 0; c < clusters; c++)
			for (int k = 0; k < cores; k++, cpu++)
				fprintf(f, "  c%d: cpu@%x { device_type = \"cpu\"; reg = <0x%x>; "
					   "capacity-dmips-mhz = <%d>; power-domains = <&pd%d>; };\n",
					cpu, (p << 16) | (c << 8) | k, (p << 16) | (c << 8) | k,
					c >= clusters / 2 ? 500 : 1024, p * clusters + c);
	for (int i = 0; i < extra_flat_cpus; i++, cpu++)
		fprintf(f, "  cpu@%x { device_type = \"cpu\"; reg = <0x%x>; };\n", 0x1000000 + i, 0x1000000 + i);
	fprintf(f, " };\n");
	for (int r = 0; r < packages * clusters; r++)
		fprintf(f, " pd%d: pd%d { #power-domain-cells = <0>; };\n", r, r);
	fprintf(f, "};\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "dtc -q -I dts -O dtb -o %s %s 2>/dev/null", dtb_path, dts_path);
	return system(cmd) == 0;
}

static struct dtb big_dtb;
static struct topology big_topo;

KT_CASE(hundreds_of_cpus)
{
	char err[200] = "";
	int expect_first;

	KT_ASSERT_MSG(gen_dtb("/tmp/ktest-topo-512.dts", "/tmp/ktest-topo-512.dtb", 4, 8, 16, 0),
		      "dtc failed on the generated 512-CPU DT");
	PARSE_OK("/tmp/ktest-topo-512.dtb", &big_dtb, &big_topo);
	KT_ASSERT_EQ(big_topo.nr_cpus, 512);
	KT_ASSERT_EQ(big_topo.nr_clusters, 32);
	topology_build(&big_topo, &policy_rails);
	for (int c = 0; c < 512; c++) {
		const struct sched_domain *sd = big_topo.sd[c];

		KT_ASSERT_EQ(big_topo.nr_levels[c], 3);
		KT_ASSERT_STREQ(sd[0].name, "MC");
		KT_ASSERT_STREQ(sd[1].name, "CLS");
		KT_ASSERT_STREQ(sd[2].name, "DIE");
		KT_ASSERT_EQ(cpumask_weight(&sd[0].span), 16);
		KT_ASSERT_EQ(cpumask_weight(&sd[1].span), 128);
		KT_ASSERT_EQ(cpumask_weight(&sd[2].span), 512);
		KT_ASSERT_EQ(sd[0].nr_groups, 16);
		KT_ASSERT_EQ(sd[1].nr_groups, 8);
		KT_ASSERT_EQ(sd[2].nr_groups, 4);
		KT_ASSERT_EQ(cpumask_weight(&big_topo.powerline[c]), 16);
		/*
		 * By the spec's rule: at CLS the lowest capacity per CPU is the
		 * package's first little cluster (cluster 4), target its first
		 * CPU. A CPU of that cluster finds its own rail there and goes up
		 * to DIE, where the packages tie and the target is CPU 0. (So 0
		 * and 64 are each other's buddies: the rule allows such pairs.)
		 */
		expect_first = c / 16 % 8 == 4 ? 0 : (c / 128) * 128 + 4 * 16;
		KT_ASSERT_MSG(big_topo.pack_buddy[c] == expect_first, "cpu%d packs on %d, expected %d", c,
			      big_topo.pack_buddy[c], expect_first);
	}
	/* More CPUs than the build supports: a clear error, not an overrun. */
	KT_ASSERT(gen_dtb("/tmp/ktest-topo-big.dts", "/tmp/ktest-topo-big.dtb", 1, 1, 1, TOPO_MAX_CPUS));
	LOAD("/tmp/ktest-topo-big.dtb", &big_dtb);
	KT_ASSERT(topology_parse_dt(&big_dtb.fdt, &big_topo, err, sizeof(err)) == -1);
	KT_ASSERT_MSG(strstr(err, "more than 1024 cpu nodes") != NULL, "error: %s", err);
}
