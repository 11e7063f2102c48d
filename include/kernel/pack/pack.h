/*
 * Placement policies ("pack modes"): where a waking task runs, and which
 * pack buddies the topology has. A policy is one struct pack_policy in a
 * file of its own (kernel/pack/<name>.c) that declares it with
 * PACK_POLICY(): the table is collected at link time, so adding a policy
 * is that file and no other edit. README.md ("Adding a placement policy")
 * shows how.
 *
 * Every place that takes a mode name (bootarg pack=, console `pack`,
 * schedtopo, schedsim, tools/experiment through `schedtopo --list-modes`)
 * takes exactly the names of the table, in table order, and an unknown name
 * is an error that lists them (pack_policy_list()).
 *
 * The operations (NULL where the default is wanted):
 *   powerlines(t)     fill t->powerline[c] for every CPU: the power lines
 *                     the buddy rule and SD_SHARE_POWERLINE see. Default:
 *                     each CPU's DT rail (topology_powerlines_dt()).
 *   buddy(t, cpu)     cpu's pack buddy, -1 for none. Runs when the topology
 *                     is built, never on the wake-up path. Default: -1.
 *   select(p, prev, &target)
 *                     at each wake-up of @p, last on @prev, before the
 *                     default placement: returns the outcome (an index into
 *                     reasons[], counted per CPU for `pack`) and sets
 *                     *target to the chosen CPU, or leaves it -1 for the
 *                     default path (docs/placement.md).
 *                     Runs with IRQs off and no rq lock, from any CPU; it
 *                     may read other CPUs' averages (seqcounts) and the
 *                     idle hint, takes no lock, and costs O(1) or O(rails)
 *                     (energy: O(CPUs of the rails it prices), as Linux's EAS).
 *                     A target must be online and in @p's affinity.
 *   may_kick_ilb(rq)  a CPU with waiting tasks while others idle tickless
 *                     wakes one to balance for them only if this says so.
 *                     Default: it does (Linux's nohz kick).
 *   tick(rq)          at the ticks of rq's CPU that balance (each balance
 *                     interval; kernel/sched/balance.c, rq unlocked) and
 *                     at every tick while fair tasks are queued there
 *                     (kernel/sched/fair.c, rq locked); on that CPU, IRQs
 *                     off: the
 *                     policy's view of the CPU's load (pack=energy: the
 *                     overutilized mask, misfit tasks). It may ask for the
 *                     running task to be pushed to another CPU at its next
 *                     switch (rq->misfit_push / misfit_dst). Default: none.
 *   start()           when the policy becomes the machine's (boot, `pack
 *                     <mode>`), before its first select: it forgets what it
 *                     kept of an earlier reign (pack=energy: the overutilized
 *                     state). Default: nothing.
 *   why_not()         NULL when the policy can do its job on this machine,
 *                     else why not, in a few words (pack=energy: "no energy
 *                     model in the DT", ...): printed once at boot, and the
 *                     policy then places by the buddy rule, and boot says
 *                     `pack: <name>: <why>; placing by the buddy rule`.
 *                     Asked after the whole DT is read. Default: NULL.
 */
#ifndef KERNEL_PACK_H
#define KERNEL_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/linked_table.h"

#define PACK_MAX_POLICIES 8
#define PACK_MAX_REASONS 8

struct rq;
struct task;
struct topology;

struct pack_policy {
	const char *name;		/* lower case, no spaces: "rails" */
	const char *desc;		/* one line, for --list-modes and `pack` */
	void (*powerlines)(struct topology *t);
	int (*buddy)(const struct topology *t, int cpu);
	int (*select)(const struct task *p, int prev_cpu, int *target);
	bool (*may_kick_ilb)(const struct rq *rq);
	void (*tick)(struct rq *rq);
	void (*start)(void);
	const char *(*why_not)(void);
	const char *const *reasons;	/* names of select()'s outcomes */
	int nr_reasons;			/* 1 .. PACK_MAX_REASONS */
};

/*
 * Declares @policy (a const struct pack_policy of this file) to the table:
 * an entry in the section pack_policies (include/kernel/lib/linked_table.h),
 * which every port's link collects (linker/common.ld keeps it on ARM; GNU
 * ld names its bounds __start_ and __stop_pack_policies). @rank orders the
 * table: the interface's order is off 10, rails 20, all 30, energy 40; a
 * new policy takes PACK_RANK_OTHER and comes after them, by name.
 */
#define PACK_RANK_OTHER 100
#define PACK_POLICY(policy, rank) LINKED_ENTRY(pack_policies, policy, rank)

/* Shipped policies other code names (kernel/pack/{off,rails,all,energy}.c). */
extern const struct pack_policy policy_off, policy_rails, policy_all, policy_energy;
/* The default mode: rails from the DT (the spec's pack buddies). */
#define PACK_DEFAULT_POLICY (&policy_rails)

/* The table: @i-th policy (0 = first), or NULL past the end. */
const struct pack_policy *pack_policy_at(int i);
int pack_policy_count(void);
/* The policy named @name, or NULL. */
const struct pack_policy *pack_policy_find(const char *name);
/* "off, rails, all, energy": the valid names into @buf, for error messages; returns @buf. */
#define PACK_POLICY_LIST_SIZE (PACK_MAX_POLICIES * 18)
const char *pack_policy_list(char *buf, size_t size);
/*
 * Add @p at the end of the table (a policy outside the kernel's own files,
 * e.g. a test's), before anything looks the table up from another CPU.
 * Returns 0, or -1 if the table is full, the name is taken or not
 * [a-z0-9_-]{1,15}, or @p breaks the contract above (no select, reasons).
 */
int pack_policy_register(const struct pack_policy *p);

/*
 * The policy a boot argument names (pack=@arg; NULL: absent): the default
 * when absent, or when unknown after printing the error line that lists the
 * valid names (`@who: error: unknown pack mode ...; using rails`).
 */
const struct pack_policy *pack_policy_from_arg(const char *arg, const char *who);

/* The policy in force (sched_topo's), and switching it while tasks run. */
const struct pack_policy *pack_policy_current(void);
/* Rebuild power lines, flags and buddies for @p, then make it current; 0 or -1. */
int pack_set_policy(const struct pack_policy *p);

#endif
