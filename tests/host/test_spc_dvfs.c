/*
 * The TC2 SPC's DVFS sequence (drivers/tc2_spc.c, the back end
 * drivers/cpufreq_spc.c stands on) against a fake SPC that answers as
 * Linux's arch/arm/mach-vexpress/spc.c expects:
 * - the OPP table read: per level, COMMS = START | SCC | (PERFVAL_BASE +
 *   4n) >> 2, PWC_STATUS polled until the SYS_CFG response, then
 *   SYSCFG_RDATA decoded ([19:0] x 20 kHz, [31:20] mV); the A15 base 0xc10
 *   for the cluster the SCC calls A15, 0xc30 for the other; a refused or
 *   unanswered read fails the whole table;
 * - a request writes the level to PERF_LVL_A15 (0x00) or PERF_LVL_A7 (0x08)
 *   by the SCC's A15 cluster, after one PWC_STATUS read that drops a stale
 *   response, and nothing else;
 * - polling: pending until the response, done, STAT_ERR, a level that did
 *   not read back, no answer by the 20 ms deadline (and not before);
 * - one request at a time (SPC_EBUSY, nothing written), freed by either
 *   cluster's poll;
 * - kHz -> level (the slowest level at or above; above the top: error and
 *   nothing written), a cluster that is not 0 or 1, the DT/SPC table check,
 *   the SCC lookup in the board's DT.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "dtb_file.h"
#include "drivers/tc2_spc.h"
#include "kernel/lib/fdt.h"

#define NREGS (0x100 / 4)
#define LOG_MAX 256

/*
 * The register map, written out from Linux's spc.c (not taken from
 * tc2_spc.h: a wrong offset or bit there must fail here).
 */
#define R_PERF_LVL_A15 0x00u
#define R_PERF_REQ_A15 0x04u
#define R_PERF_LVL_A7 0x08u
#define R_PERF_REQ_A7 0x0cu
#define R_COMMS 0x10u
#define R_PWC_STATUS 0x18u
#define R_SYSCFG_RDATA 0x74u
#define CMD_SCC_READ 0x80600000u	/* SYSCFG_START | SYSCFG_SCC */
#define A15_PERFVAL 0xc10u
#define A7_PERFVAL 0xc30u
#define ST_DONE(t) (1u << (4 * (t)))	/* t: 0 A15 DVFS, 1 A7 DVFS, 2 SYSCFG */
#define ST_ERR(t) (2u << (4 * (t)))
#define T_A15 0
#define T_A7 1
#define T_CFG 2

enum answer { ANSWER_OK, ANSWER_ERR, ANSWER_NEVER, ANSWER_OTHER_LEVEL };

struct fake_spc {
	uint32_t reg[NREGS];
	uint32_t perfval[0x40];		/* SYSCFG SCC virtual words at 0xc00 + 4i */
	uint32_t status;		/* PWC_STATUS: read to clear */
	int answer_type;		/* request type the SPC is working on, -1: none */
	int polls_left;			/* PWC_STATUS reads before it answers */
	int delay;			/* polls_left for each new request */
	enum answer answer;
	int err_at_syscfg;		/* the n-th SYSCFG read (from 0) is refused; -1: none */
	int syscfg_reads;
	int bad_access;			/* accesses outside the block, or a malformed COMMS word */
	struct { bool write; uint32_t off, v; } log[LOG_MAX];
	int n;
};

static struct fake_spc f;

static void respond(void)
{
	uint32_t t = (uint32_t)f.answer_type;
	bool err = f.answer == ANSWER_ERR;

	if (t == T_CFG && f.err_at_syscfg == f.syscfg_reads - 1)
		err = true;
	f.status |= err ? ST_ERR(t) : ST_DONE(t);
	f.answer_type = -1;
}

static uint32_t fake_read(void *ctx, uint32_t off)
{
	uint32_t v;

	(void)ctx;
	if (off >= NREGS * 4 || (off & 3u)) {
		f.bad_access++;
		return 0;
	}
	if (off == R_PWC_STATUS) {
		if (f.answer_type >= 0 && f.answer != ANSWER_NEVER && --f.polls_left <= 0)
			respond();
		v = f.status;
		f.status = 0;
	} else {
		v = f.reg[off / 4];
	}
	if (f.n < LOG_MAX)
		f.log[f.n++] = (typeof(f.log[0])){ false, off, v };
	return v;
}

static void fake_write(void *ctx, uint32_t off, uint32_t v)
{
	(void)ctx;
	if (off >= NREGS * 4 || (off & 3u)) {
		f.bad_access++;
		return;
	}
	if (f.n < LOG_MAX)
		f.log[f.n++] = (typeof(f.log[0])){ true, off, v };
	f.polls_left = f.delay;
	if (off == R_COMMS) {
		uint32_t word = (v & 0xfffffu) << 2;	/* the virtual offset */

		if ((v & ~0xfffffu) != (CMD_SCC_READ) || word < 0xc00 || word >= 0xd00) {
			f.bad_access++;
			return;
		}
		f.reg[R_SYSCFG_RDATA / 4] = f.perfval[(word - 0xc00) / 4];
		f.syscfg_reads++;
		f.answer_type = T_CFG;
		return;
	}
	if (off == R_PERF_LVL_A15 || off == R_PERF_LVL_A7) {
		f.answer_type = off == R_PERF_LVL_A15 ? T_A15 : T_A7;
		f.reg[off / 4] = f.answer == ANSWER_OTHER_LEVEL ? v + 1 : v;
		return;
	}
	f.reg[off / 4] = v;
}

static struct spc_io io = { fake_read, fake_write, &f };
static struct spc_perf perf;

/* TC2's tables as the SPC would hold them: A15 500-1200 MHz, A7 350-1000 MHz. */
static const uint32_t a15_mhz[SPC_MAX_OPPS] = { 500, 600, 700, 800, 900, 1000, 1100, 1200 };
static const uint32_t a7_mhz[SPC_MAX_OPPS] = { 350, 400, 500, 600, 700, 800, 900, 1000 };

static uint32_t opp_word(uint32_t mhz, uint32_t mv)
{
	return (mv << 20) | (mhz * 1000u / 20u);
}

static uint64_t clock_ns;
static uint64_t fake_now(void)
{
	clock_ns += 1000000;	/* each look at the clock: 1 ms later */
	return clock_ns;
}

static void reset(uint32_t a15_cluster)
{
	memset(&f, 0, sizeof(f));
	f.answer_type = -1;
	f.err_at_syscfg = -1;
	f.delay = 2;
	for (int i = 0; i < SPC_MAX_OPPS; i++) {
		f.perfval[(A15_PERFVAL - 0xc00) / 4 + i] = opp_word(a15_mhz[i], 900 + 25 * (uint32_t)i);
		f.perfval[(A7_PERFVAL - 0xc00) / 4 + i] = opp_word(a7_mhz[i], 850 + 25 * (uint32_t)i);
	}
	clock_ns = 0;
	spc_perf_init(&perf, &io, a15_cluster);
}

/* Both tables read, the log cleared: ready for requests. */
static void ready(uint32_t a15_cluster)
{
	reset(a15_cluster);
	KT_ASSERT_EQ(spc_read_opps(&perf, 0, fake_now), 0);
	KT_ASSERT_EQ(spc_read_opps(&perf, 1, fake_now), 0);
	f.n = 0;
}

static int nr_writes(void)
{
	int w = 0;

	for (int i = 0; i < f.n; i++)
		w += f.log[i].write;
	return w;
}

/* Poll @cluster's request until it ends (a bounded number of times): its result. */
static int settle(unsigned int cluster)
{
	int r = SPC_PENDING;

	for (int i = 0; i < 16 && r == SPC_PENDING; i++)
		r = spc_perf_poll(&perf, cluster, 0);
	return r;
}

/* ------------------------------------------------------------ the OPP table */

KT_CASE(spc_opp_table_read_sequence)
{
	int i = 0;

	reset(0);
	KT_ASSERT_EQ(spc_read_opps(&perf, 0, fake_now), 0);
	KT_ASSERT_EQ(perf.opps[0].nr, SPC_MAX_OPPS);
	for (int n = 0; n < SPC_MAX_OPPS; n++) {
		KT_ASSERT_EQ(perf.opps[0].khz[n], a15_mhz[n] * 1000u);
		KT_ASSERT_EQ(perf.opps[0].uv[n], (900u + 25u * (uint32_t)n) * 1000u);
	}
	/* Per level: stale status dropped, the command, polls until the answer, the data. */
	for (int n = 0; n < SPC_MAX_OPPS; n++) {
		KT_ASSERT(!f.log[i].write && f.log[i].off == R_PWC_STATUS);
		i++;
		KT_ASSERT(f.log[i].write && f.log[i].off == R_COMMS);
		KT_ASSERT_EQ(f.log[i].v, 0x80000000u | (6u << 20) | ((0xc10u + 4u * (uint32_t)n) >> 2));
		i++;
		KT_ASSERT(!f.log[i].write && f.log[i].off == R_PWC_STATUS && f.log[i].v == 0);	/* still busy */
		i++;
		KT_ASSERT(!f.log[i].write && f.log[i].off == R_PWC_STATUS);
		KT_ASSERT_EQ(f.log[i].v, ST_DONE(T_CFG));
		i++;
		KT_ASSERT(!f.log[i].write && f.log[i].off == R_SYSCFG_RDATA);
		i++;
	}
	KT_ASSERT_EQ(i, f.n);
	KT_ASSERT_EQ(nr_writes(), SPC_MAX_OPPS);
	KT_ASSERT_EQ(f.bad_access, 0);

	/* The other cluster: the A7 words. */
	f.n = 0;
	KT_ASSERT_EQ(spc_read_opps(&perf, 1, fake_now), 0);
	KT_ASSERT_EQ(f.log[1].v, 0x80000000u | (6u << 20) | (0xc30u >> 2));
	for (int n = 0; n < SPC_MAX_OPPS; n++)
		KT_ASSERT_EQ(perf.opps[1].khz[n], a7_mhz[n] * 1000u);
	KT_ASSERT_EQ(perf.opps[1].uv[0], 850000u);
}

KT_CASE(spc_opp_table_follows_scc_a15_cluster)
{
	/* The SCC says the A15s are MPIDR cluster 1: cluster 1 reads 0xc10. */
	reset(1);
	KT_ASSERT_EQ(spc_read_opps(&perf, 1, fake_now), 0);
	KT_ASSERT_EQ(f.log[1].v & 0xfffffu, 0xc10u >> 2);
	KT_ASSERT_EQ(perf.opps[1].khz[SPC_MAX_OPPS - 1], 1200000u);
	KT_ASSERT_EQ(spc_read_opps(&perf, 0, fake_now), 0);
	KT_ASSERT_EQ(perf.opps[0].khz[SPC_MAX_OPPS - 1], 1000000u);
}

KT_CASE(spc_opp_table_errors)
{
	reset(0);
	f.err_at_syscfg = 3;
	KT_ASSERT_EQ(spc_read_opps(&perf, 0, fake_now), SPC_EIO);
	KT_ASSERT_EQ(perf.opps[0].nr, 0);
	KT_ASSERT_EQ(f.syscfg_reads, 4);	/* stopped at the refused one */

	reset(0);
	f.answer = ANSWER_NEVER;
	KT_ASSERT_EQ(spc_read_opps(&perf, 0, fake_now), SPC_ETIMEDOUT);
	KT_ASSERT_EQ(perf.opps[0].nr, 0);
	KT_ASSERT_EQ(f.syscfg_reads, 1);
	/* 20 ms at 1 ms per clock read: about 20 polls, not fewer, not forever. */
	KT_ASSERT(f.n >= 20 && f.n <= 25);

	reset(0);
	KT_ASSERT_EQ(spc_read_opps(&perf, 2, fake_now), SPC_EINVAL);
	KT_ASSERT_EQ(f.n, 0);
}

/* ------------------------------------------------------------ requests */

KT_CASE(spc_request_writes_level_per_cluster)
{
	ready(0);
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 800000, 0), 0);	/* A15 level 3 */
	KT_ASSERT_EQ(nr_writes(), 1);
	KT_ASSERT(!f.log[0].write && f.log[0].off == R_PWC_STATUS);	/* stale status dropped first */
	KT_ASSERT(f.log[1].write && f.log[1].off == R_PERF_LVL_A15 && f.log[1].v == 3);
	KT_ASSERT_EQ(settle(0), 0);
	f.n = 0;
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 1000000, 0), 0);	/* A7 level 7 */
	KT_ASSERT_EQ(nr_writes(), 1);
	KT_ASSERT(f.log[1].write && f.log[1].off == R_PERF_LVL_A7 && f.log[1].v == 7);
	KT_ASSERT_EQ(f.reg[R_PERF_REQ_A15 / 4] | f.reg[R_PERF_REQ_A7 / 4], 0u);

	/* A15s in MPIDR cluster 1: cluster 1's request goes to PERF_LVL_A15 with A15 levels. */
	ready(1);
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 500000, 0), 0);
	KT_ASSERT(f.log[1].write && f.log[1].off == R_PERF_LVL_A15 && f.log[1].v == 0);
	KT_ASSERT_EQ(settle(1), 0);
	f.n = 0;
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 500000, 0), 0);
	KT_ASSERT(f.log[1].write && f.log[1].off == R_PERF_LVL_A7 && f.log[1].v == 2);
	KT_ASSERT_EQ(f.bad_access, 0);
}

KT_CASE(spc_poll_pending_then_done)
{
	ready(0);
	f.delay = 4;
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 0), 0);	/* nothing asked yet */
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 1200000, 0), 0);
	for (int i = 0; i < 3; i++)
		KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 1000), SPC_PENDING);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 1000), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 1000), 0);		/* stays done */
	KT_ASSERT_EQ(spc_perf_level(&perf, 0), 7);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 1, 1000), 0);		/* the other cluster asked nothing */
}

KT_CASE(spc_poll_error_and_bad_readback)
{
	ready(0);
	f.answer = ANSWER_ERR;
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 700000, 0), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 1, 0), SPC_PENDING);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 1, 0), SPC_EIO);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 1, 0), SPC_EIO);	/* the last request's result */

	/* Answered complete but another level reads back (vexpress-spc-cpufreq's check). */
	ready(0);
	f.answer = ANSWER_OTHER_LEVEL;
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 600000, 0), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 0), SPC_PENDING);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 0), SPC_EIO);

	/* The other type's response does not answer this request. */
	ready(0);
	f.answer = ANSWER_NEVER;
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 600000, 0), 0);
	f.status = ST_DONE(T_A7) | ST_DONE(T_CFG);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 0), SPC_PENDING);
}

KT_CASE(spc_poll_timeout)
{
	ready(0);
	f.answer = ANSWER_NEVER;
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 900000, 5000), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 5000 + SPC_TIMEOUT_NS - 1), SPC_PENDING);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 5000 + SPC_TIMEOUT_NS), SPC_PENDING);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 5000 + SPC_TIMEOUT_NS + 1), SPC_ETIMEDOUT);
	/* Abandoned: the SPC takes the next request. */
	f.answer = ANSWER_OK;
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 350000, 5000 + SPC_TIMEOUT_NS + 2), 0);
}

KT_CASE(spc_stale_response_dropped)
{
	ready(0);
	f.delay = 3;
	f.status = ST_DONE(T_A15);	/* left by an abandoned request */
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 1000000, 0), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 0), SPC_PENDING);
}

KT_CASE(spc_one_request_at_a_time)
{
	ready(0);
	f.delay = 3;
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 1100000, 0), 0);
	f.n = 0;
	/* The A7 request polls the A15's once (still busy) and writes nothing. */
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 400000, 0), SPC_EBUSY);
	KT_ASSERT_EQ(nr_writes(), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 1, 0), 0);		/* A7: nothing of its own pending */
	/* That poll saw the A15's answer: the A15 request is done, the SPC free. */
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 400000, 0), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 0, 0), 0);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 1, 0), SPC_PENDING);
}

/* ------------------------------------------------------------ kHz -> level, bad input */

KT_CASE(spc_khz_to_level_mapping)
{
	struct spc_opp_table unsorted = { 3, { 900000, 500000, 700000 }, { 0 } };

	ready(0);
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[0], 500000), 0);
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[0], 1200000), 7);
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[0], 850000), 4);	/* 900 MHz: not below */
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[0], 800001), 4);
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[0], 100000), 0);
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[0], 1200001), SPC_EINVAL);
	KT_ASSERT_EQ(spc_khz_to_level(&perf.opps[1], 1100000), SPC_EINVAL);
	KT_ASSERT_EQ(spc_khz_to_level(&unsorted, 600000), 2);
	KT_ASSERT_EQ(spc_khz_to_level(&unsorted, 800000), 0);
	unsorted.nr = 0;
	KT_ASSERT_EQ(spc_khz_to_level(&unsorted, 1), SPC_EINVAL);

	/* A kHz the table cannot give: refused, nothing read or written. */
	KT_ASSERT_EQ(spc_perf_request(&perf, 0, 1300000, 0), SPC_EINVAL);
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 1200000, 0), SPC_EINVAL);
	KT_ASSERT_EQ(f.n, 0);
	/* Between two levels: the one above. */
	KT_ASSERT_EQ(spc_perf_request(&perf, 1, 450000, 0), 0);
	KT_ASSERT(f.log[1].write && f.log[1].off == R_PERF_LVL_A7 && f.log[1].v == 2);
}

KT_CASE(spc_bad_cluster)
{
	ready(0);
	KT_ASSERT_EQ(spc_perf_request(&perf, 2, 500000, 0), SPC_EINVAL);
	KT_ASSERT_EQ(spc_perf_request(&perf, 0xffffffffu, 500000, 0), SPC_EINVAL);
	KT_ASSERT_EQ(spc_perf_poll(&perf, 2, 0), SPC_EINVAL);
	KT_ASSERT_EQ(spc_perf_level(&perf, 2), SPC_EINVAL);
	KT_ASSERT_EQ(f.n, 0);
	/* A level the table does not have reads as an error (ve_spc_get_performance). */
	f.reg[R_PERF_LVL_A7 / 4] = SPC_MAX_OPPS;
	KT_ASSERT_EQ(spc_perf_level(&perf, 1), SPC_EINVAL);
	f.reg[R_PERF_LVL_A7 / 4] = 5;
	KT_ASSERT_EQ(spc_perf_level(&perf, 1), 5);
}

KT_CASE(spc_dt_table_check)
{
	uint32_t same[SPC_MAX_OPPS], fewer[3] = { 500000, 800000, 1200000 };
	uint32_t off[2] = { 550000, 1200000 }, high[2] = { 500000, 1300000 };

	ready(0);
	for (int i = 0; i < SPC_MAX_OPPS; i++)
		same[i] = a15_mhz[i] * 1000u;
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[0], same, SPC_MAX_OPPS), SPC_TABLES_SAME);
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[1], same, SPC_MAX_OPPS), SPC_TABLES_UNREACHABLE);
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[0], fewer, 3), SPC_TABLES_DIFFER);
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[0], same, SPC_MAX_OPPS - 1), SPC_TABLES_DIFFER);
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[0], off, 2), SPC_TABLES_DIFFER);
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[0], high, 2), SPC_TABLES_UNREACHABLE);
	same[3] += 1;	/* same count, one frequency off */
	KT_ASSERT_EQ(spc_compare_tables(&perf.opps[0], same, SPC_MAX_OPPS), SPC_TABLES_DIFFER);
}

/* ------------------------------------------------------------ the SCC */

static struct dtb dtb;

KT_CASE(spc_scc_lookup)
{
	char why[160];
	uint64_t base = 0;

	KT_ASSERT_EQ(tc2_scc_a15_cluster(0, 1), 0);
	KT_ASSERT_EQ(tc2_scc_a15_cluster(1, 0), 1);
	KT_ASSERT_EQ(tc2_scc_a15_cluster(0xabcd0001u, 0x10u), 1);	/* [3:0] only */
	KT_ASSERT_EQ(tc2_scc_a15_cluster(0, 0), -1);
	KT_ASSERT_EQ(tc2_scc_a15_cluster(2, 1), -1);
	KT_ASSERT_EQ(tc2_scc_a15_cluster(1, 3), -1);

	if (!dtb_load("build/tc2/tc2.dtb", &dtb, why, sizeof(why))) {
		KT_ASSERT_MSG(false, "tc2.dtb: %s (make boards)", why);
		return;
	}
	KT_ASSERT(tc2_scc_find(&dtb.fdt, &base) >= 0);
	KT_ASSERT_EQ(base, 0x7fff0000u);
	if (!dtb_load("build/host/dts/idle-ok.dtb", &dtb, why, sizeof(why))) {
		KT_ASSERT_MSG(false, "idle-ok.dtb: %s", why);
		return;
	}
	KT_ASSERT_EQ(tc2_scc_find(&dtb.fdt, &base), -1);
}
