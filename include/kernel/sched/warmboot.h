/*
 * The kernel's decisions on the warm-boot (cluster power-off) path, about
 * local timers (host-tested; the TC2 SPC sequence is drivers/tc2_spc.c).
 *
 * Local timers: the cluster-off states are "local-timer-stop" and this
 * kernel has no broadcast timer, so a CPU that has a timer pending must not
 * enter a state where its cluster really loses power: nothing would wake it
 * when the timer expires.
 */
#ifndef KERNEL_WARMBOOT_H
#define KERNEL_WARMBOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "kernel/sched/idle.h"

/*
 * May the rail with CPUs @cpus really lose power, given each CPU's earliest
 * timer @next_expiry(cpu) (TIMER_NEVER: none; the kernel's is
 * timers_next_expiry)? Only if none of them has a timer pending. CPUs from
 * @nr_cpus on are not asked. @blocker (may be NULL) gets the first CPU that
 * keeps it on, or -1.
 */
bool warmboot_cluster_may_power_off(const cpumask_t *cpus, int nr_cpus, uint64_t (*next_expiry)(int cpu),
				    int *blocker);

/*
 * The state a CPU with (@timer_pending) or without a pending timer may
 * enter, given the governor's choice @state, when the platform really stops
 * the local timer in "local-timer-stop" states: the deepest state no deeper
 * than @state that keeps the timer running (0, WFI, always does).
 */
int warmboot_idle_state_for_timer(const struct idle_state *st, int state, bool timer_pending);

/* `idle resume-test ...` / `idle warmboot ...` (kernel/console/warmboot_commands.c); -1: not one of them. */
int idle_warmboot_command(int argc, char **argv);

#endif
