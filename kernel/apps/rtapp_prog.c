/*
 * Building an rt-app program (include/kernel/apps/rtapp_prog.h) from console
 * words. Portable: the kernel's `rtapp` command, the host tests and the
 * fuzzers share it. Every error is one `error: rtapp: ...` line, and the
 * program is changed only by a command that succeeds.
 */
#include "kernel/apps/rtapp_prog.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/lib/cmdline.h"
#include "kernel/sched/class.h"
#include "kernel/sched/fair.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/console/shell.h"

/* The tests and the fuzzer compare specs and phases with memcmp: no padding bytes. */
_Static_assert(sizeof(struct rt_spec) == RTAPP_NAME_LEN + 7 * 4, "struct rt_spec has padding");
_Static_assert(sizeof(struct rt_phase) == 5 * 4, "struct rt_phase has padding");

void rtprog_clear(struct rt_prog *p)
{
	p->nr_specs = p->nr_phases = p->nr_events = 0;
}

/* A hex CPU mask ("0x1c" or "1c"), non-zero, only CPUs of @cpus. */
static bool parse_mask(const char *s, uint32_t *out, const char *what, uint32_t cpus)
{
	char *end;
	unsigned long long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s || *s == '-' || *s == '+' || *s == ' ') {
		kprintf("error: rtapp: %s: '%s' is not a hex CPU mask\n", what, s);
		return false;
	}
	v = strtoull(s, &end, 16);
	if (*end || v == 0 || v > UINT32_MAX) {
		kprintf("error: rtapp: %s: '%s' is not a non-zero hex CPU mask\n", what, s);
		return false;
	}
	if (v & ~(unsigned long long)cpus) {
		kprintf("error: rtapp: %s: CPU mask 0x%llx names CPUs this board lacks (0x%x)\n", what, v,
			(unsigned)cpus);
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/*
 * An RT policy and priority, "f<prio>" (SCHED_FIFO) or "r<prio>" (SCHED_RR)
 * with prio RT_PRIO_MIN..RT_PRIO_MAX; with @other, "o" (SCHED_OTHER, 0) too.
 */
static bool parse_policy(const char *s, bool other, int16_t *policy, int16_t *prio)
{
	long v;

	if (other && strcmp(s, "o") == 0) {
		*policy = SCHED_OTHER;
		*prio = 0;
		return true;
	}
	if ((s[0] != 'f' && s[0] != 'r') || !cmdline_parse_long(s + 1, RT_PRIO_MIN, RT_PRIO_MAX, &v))
		return false;
	*policy = s[0] == 'f' ? SCHED_FIFO : SCHED_RR;
	*prio = (int16_t)v;
	return true;
}

/*
 * A phase's scheduling item: "n<nice>" (SCHED_OTHER at that nice), "pf<prio>"
 * or "pr<prio>". It replaces whatever an earlier one of the phase set.
 */
static bool parse_phase_sched(const char *item, struct rt_phase *ph)
{
	int16_t policy, prio;
	long v;

	if (item[0] == 'n') {
		if (!cmdline_parse_long(item + 1, NICE_MIN, NICE_MAX, &v))
			return false;
		ph->policy = SCHED_OTHER;
		ph->rt_prio = 0;
		ph->nice = (int)v;
		return true;
	}
	if (!parse_policy(item + 1, false, &policy, &prio))
		return false;
	ph->policy = policy;
	ph->rt_prio = prio;
	ph->nice = RTAPP_NICE_KEEP;
	return true;
}

/* "<a>:<b>" with 0 <= a <= amax, 0 <= b <= bmax. */
static bool parse_pair(const char *s, long amax, long bmax, long *a, long *b)
{
	char buf[24];
	const char *colon = strchr(s, ':');
	size_t n;

	if (!colon || (n = (size_t)(colon - s)) >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return cmdline_parse_long(buf, 0, amax, a) && cmdline_parse_long(colon + 1, 0, bmax, b);
}

/* A timer "<us>:g<k>" / "<us>:u<k>" after the t/T. */
static bool parse_timer(const char *s, struct rt_event *ev)
{
	const char *colon = strchr(s, ':');
	char buf[24];
	size_t n;
	long us, k;

	if (!colon || (colon[1] != 'g' && colon[1] != 'u') || (n = (size_t)(colon - s)) >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!cmdline_parse_long(buf, 0, RTAPP_MAX_US, &us) ||
	    !cmdline_parse_long(colon + 2, 0, RTAPP_MAX_TIMERS - 1, &k))
		return false;
	ev->arg = (uint32_t)us;
	ev->res = (uint8_t)k;
	if (colon[1] == 'u')
		ev->flags |= EVF_UNIQUE;
	return true;
}

/* One event item into @ev; false if malformed. */
static bool parse_event(const char *item, struct rt_event *ev)
{
	long v = 0, a = 0, b = 0;
	bool ok;

	memset(ev, 0, sizeof(*ev));
	switch (item[0]) {
	case 'r': case 'R': case 's':
		ev->type = item[0] == 'r' ? EV_RUN : item[0] == 'R' ? EV_RUNTIME : EV_SLEEP;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_US, &v);
		break;
	case 't': case 'T':
		ev->type = EV_TIMER;
		if (item[0] == 'T')
			ev->flags |= EVF_ABSOLUTE;
		return parse_timer(item + 1, ev);
	case 'l': case 'u':
		ev->type = item[0] == 'l' ? EV_LOCK : EV_UNLOCK;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_MUTEXES - 1, &v);
		break;
	case 'w': case 'y':
		ev->type = item[0] == 'w' ? EV_WAIT : EV_SYNC;
		ok = parse_pair(item + 1, RTAPP_MAX_CONDS - 1, RTAPP_MAX_MUTEXES - 1, &a, &b);
		ev->res = (uint8_t)a;
		ev->res2 = (uint8_t)b;
		return ok;
	case 'g': case 'G':
		ev->type = item[0] == 'g' ? EV_SIGNAL : EV_BROAD;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_CONDS - 1, &v);
		break;
	case 'b':
		ev->type = EV_BARRIER;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_BARRIERS - 1, &v);
		break;
	case 'P': case 'V':
		ev->type = item[0] == 'P' ? EV_SEM_WAIT : EV_SEM_POST;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_SEMS - 1, &v);
		break;
	case 'Y':
		ev->type = EV_YIELD;
		return item[1] == '\0';
	case 'f':
		ev->type = EV_FORK;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_SPECS - 1, &v);
		break;
	case 'k':
		if (item[1] != 'w' && item[1] != 'r' && item[1] != 'c')
			return false;
		ev->type = item[1] == 'w' ? EV_MEM_WRITE : item[1] == 'r' ? EV_MEM_READ : EV_MEM_CHASE;
		ok = cmdline_parse_long(item + 2, 0, RTAPP_MAX_BYTES, &v);
		ev->arg = (uint32_t)v;
		return ok;
	case 'i':
		ev->type = EV_IORUN;
		ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_BYTES, &v);
		ev->arg = (uint32_t)v;
		return ok;
	default:
		return false;
	}
	if (ev->type == EV_RUN || ev->type == EV_RUNTIME || ev->type == EV_SLEEP)
		ev->arg = (uint32_t)v;
	else
		ev->res = (uint8_t)v;
	return ok;
}

/*
 * The items of one word into phase @ph (new, or continued with '+'), writing
 * events at p->ev[*nev...]. @what names the phase in errors.
 */
static bool parse_items(struct rt_prog *p, char *word, struct rt_phase *ph, int *nev, uint32_t cpus,
			const char *what)
{
	char *item = word;

	while (item) {
		char *comma = strchr(item, ',');
		long v = 0;
		bool ok = true;

		if (comma)
			*comma = '\0';
		if (item[0] == 'x') {
			ok = cmdline_parse_long(item + 1, -1, INT32_MAX, &v) && v != 0;
			ph->loop = (int32_t)v;
		} else if (item[0] == 'm') {
			if (!parse_mask(item + 1, &ph->mask, what, cpus))
				return false;
		} else if (item[0] == 'n' || item[0] == 'p') {
			ok = parse_phase_sched(item, ph);
		} else {
			if (*nev == RTAPP_MAX_EVENTS) {
				kprintf("error: rtapp: more than %d events in all\n", RTAPP_MAX_EVENTS);
				return false;
			}
			ok = parse_event(item, &p->ev[*nev]);
			if (ok) {
				(*nev)++;
				ph->nr_events++;
			}
		}
		if (!ok) {
			kprintf("error: rtapp: %s: bad item '%s' (x m n pf pr r R s t T l u w y g G b P V Y f kw kr kc i)\n",
				what, item);
			return false;
		}
		item = comma ? comma + 1 : NULL;
	}
	return true;
}

/* Phase words of spec @sp (already counted in p or a new one), into p->ph/ev past the counts. */
static bool parse_phases(struct rt_prog *p, struct rt_spec *sp, int argc, char **argv, uint32_t cpus,
			 int *nph, int *nev)
{
	for (int i = 0; i < argc; i++) {
		char *w = argv[i];
		struct rt_phase *ph;
		char what[48];

		if (w[0] == '+') {
			if (sp->nr_phases == 0) {
				kprintf("error: rtapp: task '%s': '%s' continues a phase, but there is none\n", sp->name, w);
				return false;
			}
			ph = &p->ph[*nph - 1];
			w++;
		} else {
			if (*nph == RTAPP_MAX_PHASES) {
				kprintf("error: rtapp: more than %d phases in all\n", RTAPP_MAX_PHASES);
				return false;
			}
			ph = &p->ph[(*nph)++];
			memset(ph, 0, sizeof(*ph));
			ph->loop = 1;
			ph->nice = RTAPP_NICE_KEEP;
			ph->policy = RTAPP_POLICY_KEEP;
			ph->first = (uint16_t)*nev;
			sp->nr_phases++;
		}
		ksnprintf(what, sizeof(what), "task '%s' phase %d", sp->name, sp->nr_phases - 1);
		if (!parse_items(p, w, ph, nev, cpus, what))
			return false;
	}
	return true;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= RTAPP_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

int rtprog_add(struct rt_prog *p, int argc, char **argv, uint32_t cpus)
{
	struct rt_spec sp;
	int nph = p->nr_phases, nev = p->nr_events, first = 1;
	long v = 0;

	if (argc < 1) {
		kprintf("error: rtapp: usage: rtapp add NAME [i=N] [l=LOOP] [n=NICE] [p=POLICY] [m=MASK] [d=US] PHASE...\n");
		return 1;
	}
	if (p->nr_specs == RTAPP_MAX_SPECS) {
		kprintf("error: rtapp: too many task specs (max %d); 'rtapp clear' forgets them\n", RTAPP_MAX_SPECS);
		return 1;
	}
	if (!valid_name(argv[0])) {
		kprintf("error: rtapp: task name '%s': 1..%d characters of A-Z a-z 0-9 _ . -\n", argv[0],
			RTAPP_NAME_LEN - 1);
		return 1;
	}
	memset(&sp, 0, sizeof(sp));
	ksnprintf(sp.name, sizeof(sp.name), "%s", argv[0]);
	sp.instances = 1;
	sp.loop = -1;
	sp.first = (uint16_t)nph;
	for (; first < argc && argv[first][0] != '+' && argv[first][0] && argv[first][1] == '='; first++) {
		char *w = argv[first];
		bool ok = true;

		if (w[0] == 'i') {
			ok = cmdline_parse_long(w + 2, 0, RTAPP_MAX_THREADS, &v);
			sp.instances = (int)v;
		} else if (w[0] == 'l') {
			ok = cmdline_parse_long(w + 2, -1, INT32_MAX, &v);
			sp.loop = (int32_t)v;
		} else if (w[0] == 'n') {
			ok = cmdline_parse_long(w + 2, NICE_MIN, NICE_MAX, &v);
			sp.nice = (int)v;
		} else if (w[0] == 'p') {
			ok = parse_policy(w + 2, true, &sp.policy, &sp.rt_prio);
		} else if (w[0] == 'm') {
			char what[32];

			ksnprintf(what, sizeof(what), "task '%s'", sp.name);
			if (!parse_mask(w + 2, &sp.mask, what, cpus))
				return 1;
		} else if (w[0] == 'd') {
			ok = cmdline_parse_long(w + 2, 0, RTAPP_MAX_US, &v);
			sp.delay_us = (uint32_t)v;
		} else {
			ok = false;
		}
		if (!ok) {
			kprintf("error: rtapp: task '%s': bad option '%s' (i=0..%d l=-1.. n=%d..%d p=o|f%d..%d|r%d..%d "
				"m=HEXMASK d=0..%ld)\n", sp.name, w, RTAPP_MAX_THREADS, NICE_MIN, NICE_MAX, RT_PRIO_MIN,
				RT_PRIO_MAX, RT_PRIO_MIN, RT_PRIO_MAX, RTAPP_MAX_US);
			return 1;
		}
	}
	if (!parse_phases(p, &sp, argc - first, argv + first, cpus, &nph, &nev))
		return 1;
	p->spec[p->nr_specs++] = sp;
	p->nr_phases = nph;
	p->nr_events = nev;
	kprintf("rtapp: spec %d '%s' instances=%d phases=%d\n", p->nr_specs - 1, sp.name, sp.instances,
		sp.nr_phases);
	return 0;
}

int rtprog_phase(struct rt_prog *p, int argc, char **argv, uint32_t cpus)
{
	struct rt_phase last = { 0 };
	struct rt_spec sp;
	int nph = p->nr_phases, nev = p->nr_events;

	if (argc < 2) {
		kprintf("error: rtapp: usage: rtapp phase NAME PHASE|+ITEMS...\n");
		return 1;
	}
	if (p->nr_specs == 0 || strcmp(p->spec[p->nr_specs - 1].name, argv[0]) != 0) {
		kprintf("error: rtapp: phase: '%s' is not the last task spec added\n", argv[0]);
		return 1;
	}
	sp = p->spec[p->nr_specs - 1];
	/* A '+' word changes the last phase in place: put it back if the command fails. */
	if (nph > 0)
		last = p->ph[nph - 1];
	if (!parse_phases(p, &sp, argc - 1, argv + 1, cpus, &nph, &nev)) {
		if (p->nr_phases > 0)
			p->ph[p->nr_phases - 1] = last;
		return 1;
	}
	p->spec[p->nr_specs - 1] = sp;
	p->nr_phases = nph;
	p->nr_events = nev;
	kprintf("rtapp: spec %d '%s' phases=%d events=%d\n", p->nr_specs - 1, sp.name, sp.nr_phases,
		p->ph[nph - 1].first + p->ph[nph - 1].nr_events - p->ph[sp.first].first);
	return 0;
}

int rtprog_check(const struct rt_prog *p)
{
	if (p->nr_specs == 0) {
		kprintf("error: rtapp: no task specs (rtapp add ...)\n");
		return 1;
	}
	for (int s = 0; s < p->nr_specs; s++) {
		const struct rt_spec *sp = &p->spec[s];

		if (sp->nr_phases == 0) {
			kprintf("error: rtapp: task '%s' has no phase\n", sp->name);
			return 1;
		}
		for (int i = 0; i < sp->nr_phases; i++) {
			const struct rt_phase *ph = &p->ph[sp->first + i];

			if (ph->nr_events == 0) {
				kprintf("error: rtapp: task '%s' phase %d has no events\n", sp->name, i);
				return 1;
			}
			for (int e = 0; e < ph->nr_events; e++) {
				const struct rt_event *ev = &p->ev[ph->first + e];

				if (ev->type == EV_FORK && ev->res >= p->nr_specs) {
					kprintf("error: rtapp: task '%s' phase %d forks spec %d, which does not exist\n",
						sp->name, i, ev->res);
					return 1;
				}
			}
		}
	}
	return 0;
}

uint32_t rtprog_barrier_parties(const struct rt_prog *p, int k)
{
	uint32_t n = 0;

	for (int s = 0; s < p->nr_specs; s++) {
		const struct rt_spec *sp = &p->spec[s];

		for (int i = 0; i < sp->nr_phases; i++) {
			const struct rt_phase *ph = &p->ph[sp->first + i];

			for (int e = 0; e < ph->nr_events; e++)
				if (p->ev[ph->first + e].type == EV_BARRIER && p->ev[ph->first + e].res == k)
					n += (uint32_t)sp->instances;
		}
	}
	return n;
}

bool rtprog_spec_forever(const struct rt_prog *p, int s)
{
	const struct rt_spec *sp = &p->spec[s];

	if (sp->loop == 0)
		return false;
	if (sp->loop < 0)
		return true;
	for (int i = 0; i < sp->nr_phases; i++)
		if (p->ph[sp->first + i].loop < 0)
			return true;
	return false;
}

void rtprog_phase_config(const struct rt_prog *p, const struct rt_phase *ph, uint64_t *c_run, uint64_t *c_period)
{
	*c_run = *c_period = 0;
	for (int e = 0; e < ph->nr_events; e++) {
		const struct rt_event *ev = &p->ev[ph->first + e];

		if (ev->type == EV_RUN || ev->type == EV_RUNTIME)
			*c_run += ev->arg;
		else if (ev->type == EV_TIMER)
			*c_period += ev->arg;
	}
}

/* One event in the console syntax. */
static int format_event(char *buf, size_t n, const struct rt_event *ev)
{
	switch (ev->type) {
	case EV_RUN: return ksnprintf(buf, n, "r%u", (unsigned)ev->arg);
	case EV_RUNTIME: return ksnprintf(buf, n, "R%u", (unsigned)ev->arg);
	case EV_SLEEP: return ksnprintf(buf, n, "s%u", (unsigned)ev->arg);
	case EV_TIMER:
		return ksnprintf(buf, n, "%c%u:%c%u", ev->flags & EVF_ABSOLUTE ? 'T' : 't', (unsigned)ev->arg,
				 ev->flags & EVF_UNIQUE ? 'u' : 'g', (unsigned)ev->res);
	case EV_LOCK: return ksnprintf(buf, n, "l%u", (unsigned)ev->res);
	case EV_UNLOCK: return ksnprintf(buf, n, "u%u", (unsigned)ev->res);
	case EV_WAIT: return ksnprintf(buf, n, "w%u:%u", (unsigned)ev->res, (unsigned)ev->res2);
	case EV_SYNC: return ksnprintf(buf, n, "y%u:%u", (unsigned)ev->res, (unsigned)ev->res2);
	case EV_SIGNAL: return ksnprintf(buf, n, "g%u", (unsigned)ev->res);
	case EV_BROAD: return ksnprintf(buf, n, "G%u", (unsigned)ev->res);
	case EV_BARRIER: return ksnprintf(buf, n, "b%u", (unsigned)ev->res);
	case EV_SEM_WAIT: return ksnprintf(buf, n, "P%u", (unsigned)ev->res);
	case EV_SEM_POST: return ksnprintf(buf, n, "V%u", (unsigned)ev->res);
	case EV_YIELD: return ksnprintf(buf, n, "Y");
	case EV_FORK: return ksnprintf(buf, n, "f%u", (unsigned)ev->res);
	case EV_MEM_WRITE: return ksnprintf(buf, n, "kw%u", (unsigned)ev->arg);
	case EV_MEM_READ: return ksnprintf(buf, n, "kr%u", (unsigned)ev->arg);
	case EV_MEM_CHASE: return ksnprintf(buf, n, "kc%u", (unsigned)ev->arg);
	default: return ksnprintf(buf, n, "i%u", (unsigned)ev->arg);
	}
}

/* An RT policy's letter in "p=f10" / "pf10". */
static char policy_letter(int policy)
{
	return policy == SCHED_FIFO ? 'f' : 'r';
}

/* Lines of at most SHELL_LINE_MAX - 1 characters and 16 words, like tools/rtapp's. */
struct lister {
	char buf[SHELL_LINE_MAX];
	size_t len;
	int words;
	const char *name;
	void (*out)(const char *line, void *ctx);
	void *ctx;
};

static void lister_flush(struct lister *l)
{
	if (l->len)
		l->out(l->buf, l->ctx);
	l->len = 0;
	l->words = 0;
}

/* Append @tok (a word, or ",item" when @join) to the current line, opening a new one when full. */
static void lister_put(struct lister *l, const char *tok, bool join)
{
	size_t n = strlen(tok);

	if (l->len && (l->len + n + 1 >= sizeof(l->buf) || (!join && l->words == 16))) {
		lister_flush(l);
		if (join) {
			/* The rest of this phase: a '+' word of a new line. */
			if (tok[0] == ',') {
				tok++;
				n--;
			}
			l->len = (size_t)ksnprintf(l->buf, sizeof(l->buf), "rtapp phase %s +", l->name);
			l->words = 4;
		} else {
			l->len = (size_t)ksnprintf(l->buf, sizeof(l->buf), "rtapp phase %s", l->name);
			l->words = 3;
		}
	}
	if (!join && l->len)
		l->buf[l->len++] = ' ';
	if (!join)
		l->words++;
	if (l->len + n < sizeof(l->buf)) {
		memcpy(l->buf + l->len, tok, n + 1);
		l->len += n;
	}
}

/* One phase's items: a new word, then ",item"s joined to it. */
static void list_phase(struct lister *l, const struct rt_prog *p, const struct rt_phase *ph)
{
	char tok[40];
	bool join = false;

	/* x1 too when the phase has nothing else to show: it must still be listed. */
	if (ph->loop != 1 || (!ph->mask && ph->policy == RTAPP_POLICY_KEEP && !ph->nr_events)) {
		ksnprintf(tok, sizeof(tok), "x%ld", (long)ph->loop);
		lister_put(l, tok, false);
		join = true;
	}
	if (ph->mask) {
		ksnprintf(tok, sizeof(tok), "%sm0x%x", join ? "," : "", (unsigned)ph->mask);
		lister_put(l, tok, join);
		join = true;
	}
	if (ph->policy != RTAPP_POLICY_KEEP) {
		if (ph->policy == SCHED_OTHER)
			ksnprintf(tok, sizeof(tok), "%sn%d", join ? "," : "", ph->nice);
		else
			ksnprintf(tok, sizeof(tok), "%sp%c%d", join ? "," : "", policy_letter(ph->policy), ph->rt_prio);
		lister_put(l, tok, join);
		join = true;
	}
	for (int e = 0; e < ph->nr_events; e++, join = true) {
		int n = join ? ksnprintf(tok, sizeof(tok), ",") : 0;

		format_event(tok + n, sizeof(tok) - (size_t)n, &p->ev[ph->first + e]);
		lister_put(l, tok, join);
	}
}

void rtprog_list(const struct rt_prog *p, void (*out)(const char *line, void *ctx), void *ctx)
{
	struct lister l;
	int instances = 0;

	l.out = out;
	l.ctx = ctx;

	for (int s = 0; s < p->nr_specs; s++) {
		const struct rt_spec *sp = &p->spec[s];
		char tok[40];

		l.len = 0;
		l.words = 0;
		l.name = sp->name;
		instances += sp->instances;
		l.len = (size_t)ksnprintf(l.buf, sizeof(l.buf), "rtapp add %s i=%d l=%ld n=%d", sp->name,
					  sp->instances, (long)sp->loop, sp->nice);
		l.words = 6;
		if (sp->policy != SCHED_OTHER) {
			ksnprintf(tok, sizeof(tok), "p=%c%d", policy_letter(sp->policy), sp->rt_prio);
			lister_put(&l, tok, false);
		}
		if (sp->mask) {
			ksnprintf(tok, sizeof(tok), "m=0x%x", (unsigned)sp->mask);
			lister_put(&l, tok, false);
		}
		if (sp->delay_us) {
			ksnprintf(tok, sizeof(tok), "d=%u", (unsigned)sp->delay_us);
			lister_put(&l, tok, false);
		}
		for (int i = 0; i < sp->nr_phases; i++)
			list_phase(&l, p, &p->ph[sp->first + i]);
		lister_flush(&l);
	}
	ksnprintf(l.buf, sizeof(l.buf), "rtapp: %d specs, %d instances, %d phases, %d events", p->nr_specs, instances,
		  p->nr_phases, p->nr_events);
	out(l.buf, ctx);
}
