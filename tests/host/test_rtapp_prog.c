/*
 * The rt-app program as data (kernel/apps/rtapp_prog.c): console words into
 * specs, phases and events; '+' words continuing a phase; `rtapp phase`
 * appending to the last spec; a refused command changing nothing; the
 * scheduling of a spec (n=, p=) and of a phase (n, pf, pr items); and
 * rtprog_list() giving lines that rebuild the same program.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktest.h"
#include "kernel/lib/cmdline.h"
#include "kernel/apps/rtapp_prog.h"
#include "kernel/sched/class.h"

static struct rt_prog p, q;

/* One console line ("add ..." / "phase ...") on @prog. */
static int run(struct rt_prog *prog, const char *line)
{
	static char buf[256];
	char *argv[CMDLINE_MAX_ARGS + 1];
	int argc;

	strcpy(buf, line);
	argc = cmdline_split(buf, argv, CMDLINE_MAX_ARGS + 1);
	if (argc < 1)
		return -1;
	if (strcmp(argv[0], "add") == 0)
		return rtprog_add(prog, argc - 1, argv + 1, 0x1f);
	return rtprog_phase(prog, argc - 1, argv + 1, 0x1f);
}

/* run() with the console output (kprintf's stdout) caught in @out; the number of lines in it. */
static int run_caught(struct rt_prog *prog, const char *line, int *rc, char *out, size_t size)
{
	FILE *f = tmpfile();
	int saved, lines = 0;
	size_t n;

	if (!f)
		return -1;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(f), STDOUT_FILENO);
	*rc = run(prog, line);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
	for (size_t i = 0; i < n; i++)
		lines += out[i] == '\n';
	return lines;
}

KT_CASE(events_phases_and_continuations)
{
	const struct rt_event *ev;

	rtprog_clear(&p);
	KT_ASSERT_EQ(run(&p, "add a i=2 l=3 n=-4 m=0x3 d=100 r10,l1,w2:1,u1 x5,s20,T300:u3"), 0);
	KT_ASSERT_EQ(run(&p, "phase a +G2,b0,P1,V1,Y,f0,kw64,kr8,kc4,i16 y3:4"), 0);
	KT_ASSERT(p.nr_specs == 1 && p.nr_phases == 3 && p.nr_events == 17);
	KT_ASSERT(p.spec[0].instances == 2 && p.spec[0].loop == 3 && p.spec[0].nice == -4 && p.spec[0].mask == 3);
	KT_ASSERT(p.spec[0].delay_us == 100 && p.spec[0].nr_phases == 3);
	KT_ASSERT(p.ph[1].loop == 5 && p.ph[1].nr_events == 12 && p.ph[2].first == 16);
	ev = &p.ev[p.ph[0].first + 2];
	KT_ASSERT(ev->type == EV_WAIT && ev->res == 2 && ev->res2 == 1);
	ev = &p.ev[p.ph[1].first + 1];
	KT_ASSERT(ev->type == EV_TIMER && ev->arg == 300 && ev->res == 3 && ev->flags == (EVF_UNIQUE | EVF_ABSOLUTE));
	KT_ASSERT(p.ev[p.ph[1].first + 2].type == EV_BROAD && p.ev[p.ph[1].first + 7].type == EV_FORK);
	KT_ASSERT(p.ev[p.ph[1].first + 11].type == EV_IORUN && p.ev[p.ph[1].first + 11].arg == 16);
	KT_ASSERT_EQ(rtprog_check(&p), 0);
	KT_ASSERT_EQ(rtprog_barrier_parties(&p, 0), 2u);
	KT_ASSERT(rtprog_spec_forever(&p, 0) == false);
}

KT_CASE(refused_commands_change_nothing)
{
	struct rt_prog before;

	rtprog_clear(&p);
	KT_ASSERT_EQ(run(&p, "add a r1"), 0);
	before = p;
	KT_ASSERT_EQ(run(&p, "add b r1 r2,z3"), 1);		/* bad item in the 2nd phase */
	KT_ASSERT_EQ(run(&p, "add c m=0x20 r1"), 1);		/* a CPU the board lacks */
	KT_ASSERT_EQ(run(&p, "add d r1,t5:g16"), 1);		/* timer 16 of 0..15 */
	KT_ASSERT_EQ(run(&p, "add e +r1"), 1);			/* continues no phase */
	KT_ASSERT_EQ(run(&p, "phase b r1"), 1);			/* not the last spec */
	KT_ASSERT_EQ(run(&p, "add a! r1"), 1);			/* bad name */
	KT_ASSERT(p.nr_specs == 1 && p.nr_phases == 1 && p.nr_events == 1);
	KT_ASSERT(memcmp(&p.spec[0], &before.spec[0], sizeof(p.spec[0])) == 0);
	/* Checked at run time: a phase without events, a fork of a missing spec. */
	KT_ASSERT_EQ(run(&p, "add e x3"), 0);
	KT_ASSERT_EQ(rtprog_check(&p), 1);
	rtprog_clear(&p);
	KT_ASSERT_EQ(run(&p, "add f r1,f4"), 0);
	KT_ASSERT_EQ(rtprog_check(&p), 1);
}

KT_CASE(scheduling_of_specs_and_phases)
{
	rtprog_clear(&p);
	/* The old forms: nice only, SCHED_OTHER; a phase without a scheduling item changes nothing. */
	KT_ASSERT_EQ(run(&p, "add old n=-4 r1 n5,r2 r3"), 0);
	KT_ASSERT(p.spec[0].policy == SCHED_OTHER && p.spec[0].rt_prio == 0 && p.spec[0].nice == -4);
	KT_ASSERT(p.ph[0].policy == RTAPP_POLICY_KEEP && p.ph[0].nice == RTAPP_NICE_KEEP && p.ph[0].rt_prio == 0);
	KT_ASSERT(p.ph[1].policy == SCHED_OTHER && p.ph[1].nice == 5 && p.ph[1].rt_prio == 0);
	KT_ASSERT(p.ph[2].policy == RTAPP_POLICY_KEEP);
	/* SCHED_FIFO / SCHED_RR specs; phases switching policy; the last item of a phase counts. */
	KT_ASSERT_EQ(run(&p, "add fifo p=f99 r1 pr1,r2 n-20,r3 pf50,n7,r4 n7,pr2,r5"), 0);
	KT_ASSERT_EQ(run(&p, "add rr p=r1 n=3 r1"), 0);
	KT_ASSERT_EQ(run(&p, "add other p=o r1"), 0);
	KT_ASSERT(p.spec[1].policy == SCHED_FIFO && p.spec[1].rt_prio == 99 && p.spec[1].nice == 0);
	KT_ASSERT(p.ph[3].policy == RTAPP_POLICY_KEEP);
	KT_ASSERT(p.ph[4].policy == SCHED_RR && p.ph[4].rt_prio == 1 && p.ph[4].nice == RTAPP_NICE_KEEP);
	KT_ASSERT(p.ph[5].policy == SCHED_OTHER && p.ph[5].nice == -20 && p.ph[5].rt_prio == 0);
	KT_ASSERT(p.ph[6].policy == SCHED_OTHER && p.ph[6].nice == 7 && p.ph[6].rt_prio == 0);
	KT_ASSERT(p.ph[7].policy == SCHED_RR && p.ph[7].rt_prio == 2 && p.ph[7].nice == RTAPP_NICE_KEEP);
	KT_ASSERT(p.spec[2].policy == SCHED_RR && p.spec[2].rt_prio == 1 && p.spec[2].nice == 3);
	KT_ASSERT(p.spec[3].policy == SCHED_OTHER && p.spec[3].rt_prio == 0);
	KT_ASSERT(p.nr_specs == 4 && p.nr_phases == 10 && p.nr_events == 10);
}

KT_CASE(bad_scheduling_is_one_error_line_and_changes_nothing)
{
	static const char *const bad[] = {
		"add a p=f0 r1", "add a p=f100 r1", "add a p=r-1 r1", "add a p=x5 r1", "add a p= r1", "add a p=o5 r1",
		"add a p=f r1", "add a p=f1x r1", "add a n=20 r1", "add a r1 pf0,r1", "add a r1 pr100,r1",
		"add a r1 po,r1", "add a r1 p5,r1", "add a r1 pf,r1", "add a r1 n-21,r1", "phase base +pf0",
		"phase base pr120,r1", "phase base +n20",
	};
	struct rt_prog before;
	char out[512];
	int rc;

	rtprog_clear(&p);
	KT_ASSERT_EQ(run(&p, "add base p=f10 pr20,r1"), 0);
	before = p;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		KT_ASSERT_MSG(run_caught(&p, bad[i], &rc, out, sizeof(out)) == 1 && rc == 1, "%s: %s", bad[i], out);
		KT_ASSERT_MSG(strncmp(out, "error: rtapp: ", 14) == 0, "%s: %s", bad[i], out);
		KT_ASSERT(p.nr_specs == 1 && p.nr_phases == 1 && p.nr_events == 1);
		KT_ASSERT(memcmp(&p.spec[0], &before.spec[0], sizeof(p.spec[0])) == 0);
		KT_ASSERT(memcmp(&p.ph[0], &before.ph[0], sizeof(p.ph[0])) == 0);
	}
}

static void feed(const char *line, void *ctx)
{
	int *bad = ctx;

	if (strncmp(line, "rtapp: ", 7) == 0)
		return;
	if (strlen(line) > 255 || run(&q, line + 6) != 0)	/* past "rtapp " */
		(*bad)++;
}

KT_CASE(list_rebuilds_the_same_program_in_lines_the_shell_takes)
{
	char line[256];
	int bad = 0;

	rtprog_clear(&p);
	rtprog_clear(&q);
	KT_ASSERT_EQ(run(&p, "add long l=2 r1"), 0);
	/* 300 events, in words of 40 events each: far more than one line. */
	for (int w = 0; w < 8; w++) {
		size_t n = (size_t)snprintf(line, sizeof(line), "phase long +");

		for (int e = 0; e < 40; e++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%sr%d", e ? "," : "", w * 40 + e);
		KT_ASSERT(n < sizeof(line));
		KT_ASSERT_EQ(run(&p, line), 0);
	}
	KT_ASSERT_EQ(run(&p, "add other i=0 x-1,m0x1c,n5,t100:g2,l3,u3 s1"), 0);
	/* Scheduling: a FIFO spec with nice, phases switching to RR, to SCHED_OTHER, and a bare RT phase item. */
	KT_ASSERT_EQ(run(&p, "add rt p=f42 n=-3 m=0x2 r1 x3,pr7,s2 n4,r3 m0x4,pf99,r4 pr1"), 0);
	KT_ASSERT_EQ(run(&p, "add rr p=r1 r1"), 0);
	rtprog_list(&p, feed, &bad);
	KT_ASSERT_EQ(bad, 0);
	KT_ASSERT(q.nr_specs == p.nr_specs && q.nr_phases == p.nr_phases && q.nr_events == p.nr_events);
	KT_ASSERT(memcmp(q.spec, p.spec, sizeof(p.spec[0]) * (size_t)p.nr_specs) == 0);
	KT_ASSERT(memcmp(q.ph, p.ph, sizeof(p.ph[0]) * (size_t)p.nr_phases) == 0);
	KT_ASSERT(memcmp(q.ev, p.ev, sizeof(p.ev[0]) * (size_t)p.nr_events) == 0);
}
