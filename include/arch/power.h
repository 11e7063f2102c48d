/*
 * CPU and rail power: what the idle path (kernel/sched/idle.c) asks of the
 * platform. The kernel decides WHEN (the governor's state, last man and
 * first man of each rail, whether a rail may lose power given the timers it
 * owns); the port decides HOW (ARM: drivers/power.c and its back ends; the
 * host: tools/ports/host/host_arch.c, WFI only).
 *
 * Rails are the kernel's (include/kernel/sched/idle.h): numbered 0..n-1, each the
 * CPUs on one power line and the DT power-domain node that names the line
 * (-1: CPUs without "power-domains", the system rail).
 *
 *   platform_power_init(fdt, rails, n)  once, on the boot CPU, as soon as
 *     the kernel has its rails (idle_init_dt()): choose how CPUs and rails
 *     are powered (the DT's TC2 SPC + CCI-400, PSCI, or WFI only) and map
 *     each rail to what powers it. @rails is not kept.
 *   platform_cpu_power_down(cpu, rail, domain, last_man)  the calling CPU
 *     (@cpu, on @rail) idles with IRQs masked; returns after the wake-up
 *     (a pending IRQ ends it). !@domain: WFI. @domain: the state may take
 *     the rail's power, so the CPU leaves coherency first (TC2: flush its
 *     L1, as every CPU does in Linux's tc2_pm); @last_man: it is the last
 *     CPU of the rail going down and platform_cluster_power_down() has run:
 *     the whole cluster's caches go.
 *   platform_cluster_power_down(rail, may_lose_power)  [last man, the
 *     rail's lock held] prepare @rail for power-off. @may_lose_power: the
 *     kernel loses nothing if the power really goes (no CPU of the rail has
 *     a timer pending while platform_domain_stops_timer(): there is no
 *     broadcast timer); without it the port keeps the power on.
 *   platform_cluster_power_up(rail)  [first man, lock held] undo that.
 *   platform_domain_stops_timer()  true while the rail's power may really
 *     go in "local-timer-stop" states (warm boot on): the kernel then keeps
 *     a CPU with a timer pending out of them. Read at every idle entry.
 *   platform_power_name()  "wfi-only", "psci", "tc2-spc", "host".
 *
 * Warm boot (real power-off through cpu_suspend/cpu_resume): on by default
 * on a real TC2 (SPC + CCI in the DT), off elsewhere. set: 0, or -1 if the
 * platform has no power-off path (wfi-only). get: 0/1, -1 likewise.
 */
#ifndef ARCH_POWER_H
#define ARCH_POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

struct fdt;

struct power_rail {
	cpumask_t cpus;		/* logical CPUs on the line */
	int domain_node;	/* its power-domains node in the DT, -1: none */
};

void platform_power_init(const struct fdt *fdt, const struct power_rail *rails, int nr_rails);
void platform_cpu_power_down(int cpu, int rail, bool domain, bool last_man);
void platform_cluster_power_down(int rail, bool may_lose_power);
void platform_cluster_power_up(int rail);
bool platform_domain_stops_timer(void);
const char *platform_power_name(void);

int platform_warmboot_set(bool on);
int platform_warmboot_get(void);
/* Domain idles that went through cpu_suspend: all, resumed after a power loss, returned (no loss). */
void platform_warmboot_stats(uint64_t *entered, uint64_t *resumed, uint64_t *returned);

/*
 * `idle resume-test`: @rounds save/restore round trips on the calling CPU
 * through cpu_suspend and cpu_resume, by a soft restart (MMU off, branch to
 * cpu_resume: the exact resume path) or by PSCI CPU_SUSPEND (@psci).
 * Prints its result lines; 0 if every check passed, -1 where there is no
 * such path (the host).
 */
#define RESUME_TEST_MAX_ROUNDS 10000
int platform_resume_test(int rounds, bool psci);

#endif
