/*
 * Power rails: last man powers the rail down, first man powers it up, and
 * the rail's residency in busy / idle / off; see include/kernel/sched/idle.h.
 */
#include <string.h>

#include "kernel/sched/idle.h"
#include "kernel/lib/panic.h"

void rail_init(struct rail *r, const cpumask_t *cpus, int cluster, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	r->lock = (spinlock_t)SPINLOCK_INIT;
	r->cpus = *cpus;
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		if (cpus->w[i])
			rail_add_cpu(r, (int)(i * 32) + __builtin_ctz(cpus->w[i]));
	r->cluster = cluster;
	r->node = -1;
	r->state = RAIL_BUSY;
	r->since_ns = now;
}

void rail_add_cpu(struct rail *r, int cpu)
{
	unsigned int w = (unsigned int)cpu / 32u, end = r->w_lo + r->w_n;

	cpumask_set(&r->cpus, cpu);
	if (r->w_n == 0) {
		r->w_lo = w;
		r->w_n = 1;
		return;
	}
	if (w < r->w_lo)
		r->w_lo = w;
	if (w >= end)
		end = w + 1;
	r->w_n = end - r->w_lo;
}

/*
 * @m covers all of @r's CPUs (@m is a subset of them): the rail's own words
 * only (outside them both are empty), one word on the boards, so the idle
 * path costs what it did with 32-bit masks on any CONFIG_NR_CPUS.
 */
static inline bool rail_all(const struct rail *r, const cpumask_t *m)
{
	unsigned int lo = r->w_n ? r->w_lo : 0, end = r->w_n ? r->w_lo + r->w_n : CPUMASK_WORDS;

	for (unsigned int i = lo; i < end; i++)
		if (m->w[i] != r->cpus.w[i])
			return false;
	return true;
}

/*
 * @cpu's word and bit in a rail's masks, found once for the masks it
 * changes; with one word (the boards) the index folds to 0 and the bit is
 * 1 << cpu, as with the 32-bit masks the idle exit used to cost.
 */
static inline unsigned int rail_word(int cpu)
{
	return CPUMASK_WORDS == 1 ? 0u : (unsigned int)cpu / 32u;
}

static inline uint32_t rail_bit(int cpu)
{
	return 1u << (CPUMASK_WORDS == 1 ? (unsigned int)cpu : (unsigned int)cpu % 32u);
}

/* Busy energy of @dt ns in the current state (power x ns). Lock held. */
static inline void dvfs_energy(const struct rail *r, uint64_t dt, uint64_t *core_pns, uint64_t *rail_pns)
{
	*core_pns += (uint64_t)r->nr_busy * dt * r->core_power[r->opp];
	if (r->nr_busy)
		*rail_pns += dt * r->rail_power[r->opp];
}

/* Close the current stretch at @now. Lock held. Inline: the idle exit calls it on every wake-up. */
static inline __attribute__((always_inline)) void account(struct rail *r, uint64_t now)
{
	if (now > r->since_ns) {
		r->residency_ns[r->state] += now - r->since_ns;
		if (r->core_power)
			dvfs_energy(r, now - r->since_ns, &r->core_pns, &r->rail_pns);
		r->since_ns = now;
	}
}

void rail_set_dvfs(struct rail *r, const uint32_t *core_power, const uint32_t *rail_power, int opp, uint64_t now)
{
	unsigned long flags = spin_lock_irqsave(&r->lock);
	cpumask_t busy;

	account(r, now);
	cpumask_andnot(&busy, &r->cpus, &r->idle);
	r->nr_busy = cpumask_weight(&busy);
	r->opp = opp;
	r->core_power = core_power;
	r->rail_power = rail_power;
	spin_unlock_irqrestore(&r->lock, flags);
}

void rail_set_opp(struct rail *r, int opp, uint64_t now)
{
	unsigned long flags = spin_lock_irqsave(&r->lock);

	account(r, now);
	r->opp = opp;
	spin_unlock_irqrestore(&r->lock, flags);
}

void rail_energy(struct rail *r, uint64_t now, uint64_t *core_pns, uint64_t *rail_pns)
{
	unsigned long flags = spin_lock_irqsave(&r->lock);

	*core_pns = r->core_pns;
	*rail_pns = r->rail_pns;
	if (r->core_power && now > r->since_ns)
		dvfs_energy(r, now - r->since_ns, core_pns, rail_pns);
	spin_unlock_irqrestore(&r->lock, flags);
}

bool rail_cpu_idle(struct rail *r, int rail_id, int cpu, bool domain, uint64_t now, const struct rail_ops *ops)
{
	unsigned int w = rail_word(cpu);
	uint32_t bit = rail_bit(cpu);
	bool last_man = false;

	spin_lock(&r->lock);
	KASSERT_DEBUG(cpumask_test(&r->cpus, cpu) && !cpumask_test(&r->idle, cpu));
	account(r, now);
	r->nr_busy--;
	r->idle.w[w] |= bit;	/* under the lock: every writer holds it */
	if (domain)
		r->want_off.w[w] |= bit;
	if (rail_all(r, &r->idle)) {
		if (rail_all(r, &r->want_off)) {
			r->state = RAIL_OFF;
			r->nr_off++;
			last_man = true;
			if (ops && ops->power_down)
				ops->power_down(rail_id);
		} else {
			r->state = RAIL_IDLE;
		}
	}
	spin_unlock(&r->lock);
	return last_man;
}

bool rail_cpu_busy(struct rail *r, int rail_id, int cpu, uint64_t now, const struct rail_ops *ops)
{
	unsigned int w = rail_word(cpu);
	uint32_t bit = rail_bit(cpu);
	bool first_man;

	spin_lock(&r->lock);
	first_man = r->state == RAIL_OFF;
	KASSERT_DEBUG(cpumask_test(&r->cpus, cpu) && cpumask_test(&r->idle, cpu));
	account(r, now);
	r->nr_busy++;
	r->idle.w[w] &= ~bit;
	r->want_off.w[w] &= ~bit;
	r->state = RAIL_BUSY;
	if (first_man && ops && ops->power_up)
		ops->power_up(rail_id);
	spin_unlock(&r->lock);
	return first_man;
}

void rail_residency(struct rail *r, uint64_t now, uint64_t out[3])
{
	unsigned long flags = spin_lock_irqsave(&r->lock);

	memcpy(out, r->residency_ns, sizeof(r->residency_ns));
	if (now > r->since_ns)
		out[r->state] += now - r->since_ns;
	spin_unlock_irqrestore(&r->lock, flags);
}

void cpu_idle_account_enter(struct cpu_idle *ci, int state, uint64_t now)
{
	KASSERT_DEBUG(ci->cur_state < 0 && state >= 0 && state < ci->nr_states);
	seqcount_write_begin(&ci->seq);
	if (now > ci->since_ns)
		ci->busy_ns += now - ci->since_ns;
	ci->since_ns = now;
	ci->cur_state = state;
	ci->usage[state]++;
	seqcount_write_end(&ci->seq);
}

void cpu_idle_account_exit(struct cpu_idle *ci, uint64_t now)
{
	KASSERT_DEBUG(ci->cur_state >= 0);
	seqcount_write_begin(&ci->seq);
	if (now > ci->since_ns)
		ci->state_ns[ci->cur_state] += now - ci->since_ns;
	ci->since_ns = now;
	ci->cur_state = -1;
	seqcount_write_end(&ci->seq);
}

void cpu_idle_read(const struct cpu_idle *ci, uint64_t now, uint64_t *busy_ns, uint64_t state_ns[IDLE_MAX_STATES])
{
	uint32_t seq;
	uint64_t since;
	int cur;

	do {
		seq = seqcount_read_begin(&ci->seq);
		*busy_ns = ci->busy_ns;
		for (int s = 0; s < IDLE_MAX_STATES; s++)
			state_ns[s] = ci->state_ns[s];
		since = ci->since_ns;
		cur = ci->cur_state;
	} while (seqcount_read_retry(&ci->seq, seq));
	if (now > since) {
		if (cur < 0)
			*busy_ns += now - since;
		else
			state_ns[cur] += now - since;
	}
}
