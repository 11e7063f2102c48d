/*
 * Fuzz target `rtapp_prog`: the kernel's rt-app program builder
 * (kernel/apps/rtapp_prog.c, include/kernel/apps/rtapp_prog.h): the `rtapp add`
 * and `rtapp phase` console commands that tools/rtapp emits, and
 * rtprog_check() / rtprog_list().
 *
 * Input: lines (at most SHELL_LINE_MAX - 1 bytes each, as the shell takes
 * them), split into words by cmdline_split(); "[rtapp] add ...", "[rtapp]
 * phase ...", "check", "clear" act on one program (byte 0 of the input picks the CPUs
 * a mask may name). Checked after every command:
 *  - a command that fails leaves the program unchanged, byte for byte;
 *  - the counts stay within RTAPP_MAX_*; each spec's phases and each
 *    phase's events are contiguous, in order, and inside the counts; every
 *    event's type and numbers are within the ranges of the header; a spec
 *    name is 1..11 characters of [A-Za-z0-9_.-]; a spec's scheduling is
 *    SCHED_OTHER (priority 0) or SCHED_FIFO/RR at 1..99, a phase's unchanged
 *    (nice RTAPP_NICE_KEEP), SCHED_OTHER at a nice or SCHED_FIFO/RR at 1..99;
 *  - rtprog_list()'s lines are at most SHELL_LINE_MAX - 1 characters and
 *    CMDLINE_MAX_ARGS words, and feeding them back into an empty program
 *    rebuilds the same program (round trip), the summary line last.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/lib/cmdline.h"
#include "kernel/apps/rtapp_prog.h"
#include "kernel/console/shell.h"
#include "kernel/sched/class.h"
#include "tests/fuzz/fuzz.h"

static struct rt_prog prog, copy, rebuilt;
static uint32_t cpus;

/* The program's bytes that matter: counts, then the used parts of the arrays. */
static bool same_program(const struct rt_prog *a, const struct rt_prog *b)
{
	return a->nr_specs == b->nr_specs && a->nr_phases == b->nr_phases && a->nr_events == b->nr_events &&
	       memcmp(a->spec, b->spec, sizeof(a->spec[0]) * (size_t)a->nr_specs) == 0 &&
	       memcmp(a->ph, b->ph, sizeof(a->ph[0]) * (size_t)a->nr_phases) == 0 &&
	       memcmp(a->ev, b->ev, sizeof(a->ev[0]) * (size_t)a->nr_events) == 0;
}

static void check_event(const struct rt_event *ev)
{
	FUZZ_CHECK(ev->type < EV_NR_TYPES);
	switch (ev->type) {
	case EV_RUN: case EV_RUNTIME: case EV_SLEEP:
		FUZZ_CHECK(ev->arg <= RTAPP_MAX_US);
		break;
	case EV_TIMER:
		FUZZ_CHECK(ev->arg <= RTAPP_MAX_US && ev->res < RTAPP_MAX_TIMERS);
		break;
	case EV_LOCK: case EV_UNLOCK:
		FUZZ_CHECK(ev->res < RTAPP_MAX_MUTEXES);
		break;
	case EV_WAIT: case EV_SYNC:
		FUZZ_CHECK(ev->res < RTAPP_MAX_CONDS && ev->res2 < RTAPP_MAX_MUTEXES);
		break;
	case EV_SIGNAL: case EV_BROAD:
		FUZZ_CHECK(ev->res < RTAPP_MAX_CONDS);
		break;
	case EV_BARRIER:
		FUZZ_CHECK(ev->res < RTAPP_MAX_BARRIERS);
		break;
	case EV_SEM_WAIT: case EV_SEM_POST:
		FUZZ_CHECK(ev->res < RTAPP_MAX_SEMS);
		break;
	case EV_FORK:
		FUZZ_CHECK(ev->res < RTAPP_MAX_SPECS);
		break;
	case EV_YIELD:
		break;
	default:
		FUZZ_CHECK(ev->arg <= RTAPP_MAX_BYTES);
		break;
	}
}

/* A policy and RT priority as a spec or phase may hold them (SCHED_OTHER: priority 0). */
static bool sched_ok(int policy, int rt_prio)
{
	if (policy == SCHED_OTHER)
		return rt_prio == 0;
	return (policy == SCHED_FIFO || policy == SCHED_RR) && rt_prio >= RT_PRIO_MIN && rt_prio <= RT_PRIO_MAX;
}

static void check_phase_sched(const struct rt_phase *ph)
{
	if (ph->policy == RTAPP_POLICY_KEEP)
		FUZZ_CHECK(ph->nice == RTAPP_NICE_KEEP && ph->rt_prio == 0);
	else if (ph->policy == SCHED_OTHER)
		FUZZ_CHECK(ph->nice >= -20 && ph->nice <= 19 && ph->rt_prio == 0);
	else
		FUZZ_CHECK(sched_ok(ph->policy, ph->rt_prio) && ph->nice == RTAPP_NICE_KEEP);
}

static void check_program(const struct rt_prog *p)
{
	int next_phase = 0, next_event = 0;

	FUZZ_CHECK(p->nr_specs >= 0 && p->nr_specs <= RTAPP_MAX_SPECS);
	FUZZ_CHECK(p->nr_phases >= 0 && p->nr_phases <= RTAPP_MAX_PHASES);
	FUZZ_CHECK(p->nr_events >= 0 && p->nr_events <= RTAPP_MAX_EVENTS);
	for (int s = 0; s < p->nr_specs; s++) {
		const struct rt_spec *sp = &p->spec[s];
		size_t n = strnlen(sp->name, RTAPP_NAME_LEN);

		FUZZ_CHECK(n >= 1 && n < RTAPP_NAME_LEN && strspn(sp->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
								 "NOPQRSTUVWXYZ0123456789_.-") == n);
		FUZZ_CHECK(sp->instances >= 0 && sp->instances <= 64 && sp->loop >= -1);
		FUZZ_CHECK(sp->nice >= -20 && sp->nice <= 19 && (sp->mask & ~cpus) == 0);
		FUZZ_CHECK(sched_ok(sp->policy, sp->rt_prio));
		FUZZ_CHECK(sp->first == next_phase);
		next_phase += sp->nr_phases;
		for (int i = 0; i < sp->nr_phases; i++) {
			const struct rt_phase *ph = &p->ph[sp->first + i];

			FUZZ_CHECK(ph->loop == -1 || ph->loop >= 1);
			FUZZ_CHECK((ph->mask & ~cpus) == 0);
			check_phase_sched(ph);
			FUZZ_CHECK(ph->first == next_event);
			next_event += ph->nr_events;
			for (int e = 0; e < ph->nr_events; e++)
				check_event(&p->ev[ph->first + e]);
		}
	}
	FUZZ_CHECK(next_phase == p->nr_phases && next_event == p->nr_events);
}

/* One command on @p: 0 ok, 1 refused, -1 not a command (ignored). */
static int command(struct rt_prog *p, char *line)
{
	char *argv[CMDLINE_MAX_ARGS + 1];
	int argc = cmdline_split(line, argv, CMDLINE_MAX_ARGS + 1);

	if (argc >= 1 && strcmp(argv[0], "rtapp") == 0) {
		argc--;		/* tools/rtapp's lines as they are */
		memmove(argv, argv + 1, sizeof(argv[0]) * (size_t)(argc + 1));
	}
	if (argc < 1)
		return -1;
	if (strcmp(argv[0], "add") == 0)
		return rtprog_add(p, argc - 1, argv + 1, cpus);
	if (strcmp(argv[0], "phase") == 0)
		return rtprog_phase(p, argc - 1, argv + 1, cpus);
	if (strcmp(argv[0], "check") == 0)
		return rtprog_check(p);
	if (strcmp(argv[0], "clear") == 0) {
		rtprog_clear(p);
		return 0;
	}
	return -1;
}

static bool summary_seen;

/* rtprog_list's lines: within the shell's limits; fed back into `rebuilt`. */
static void relist(const char *line, void *ctx)
{
	char buf[SHELL_LINE_MAX];
	char *argv[CMDLINE_MAX_ARGS + 1];
	int argc;
	size_t n = strlen(line);

	(void)ctx;
	FUZZ_CHECK_MSG(n < SHELL_LINE_MAX, "listed line of %zu characters", n);
	FUZZ_CHECK(!summary_seen);
	memcpy(buf, line, n + 1);
	if (strncmp(buf, "rtapp: ", 7) == 0) {
		summary_seen = true;
		return;
	}
	argc = cmdline_split(buf, argv, CMDLINE_MAX_ARGS + 1);
	FUZZ_CHECK_MSG(argc >= 3 && argc <= CMDLINE_MAX_ARGS, "listed line of %d words: %s", argc, line);
	FUZZ_CHECK(strcmp(argv[0], "rtapp") == 0);
	if (strcmp(argv[1], "add") == 0)
		FUZZ_CHECK_MSG(rtprog_add(&rebuilt, argc - 2, argv + 2, cpus) == 0, "listed line refused: %s", line);
	else
		FUZZ_CHECK_MSG(strcmp(argv[1], "phase") == 0 && rtprog_phase(&rebuilt, argc - 2, argv + 2, cpus) == 0,
			       "listed line refused: %s", line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[SHELL_LINE_MAX];
	size_t i = 1;

	if (size == 0)
		return 0;
	cpus = data[0] ? (uint32_t)data[0] : 0x1f;
	rtprog_clear(&prog);
	while (i < size) {
		size_t n = 0;
		int rc;

		for (; i < size && data[i] != '\n' && n < sizeof(line) - 1; i++, n++) {
			line[n] = (char)data[i];
			if (line[n] == '\0')
				line[n] = ' ';	/* the shell's line has no NUL inside */
		}
		while (i < size && data[i] != '\n')
			i++;		/* the shell refuses a longer line: drop its rest */
		i++;
		line[n] = '\0';
		copy = prog;
		rc = command(&prog, line);
		if (rc == 1)
			FUZZ_CHECK_MSG(same_program(&prog, &copy), "a refused command changed the program");
		check_program(&prog);
	}
	rtprog_clear(&rebuilt);
	summary_seen = false;
	rtprog_list(&prog, relist, NULL);
	FUZZ_CHECK(summary_seen);
	FUZZ_CHECK_MSG(same_program(&prog, &rebuilt), "rtprog_list() does not rebuild the program");
	return 0;
}
