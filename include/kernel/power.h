/*
 * Platform power hooks: what the idle code asks of the hardware. The shared
 * state machine (kernel/power_domain.c) decides WHEN; these decide HOW.
 *
 *   platform_cpu_power_down(cpu, domain, last_man): the calling CPU enters
 *     its idle state: WFI, with IRQs masked (a pending IRQ ends it). With
 *     @domain, it chose a state in which its rail may lose power, so it
 *     must leave coherency first (TC2: flush its L1, as every CPU does in
 *     Linux's tc2_pm before a cluster-capable power-down); with @last_man
 *     it is the last CPU of the rail to go down and
 *     platform_cluster_power_down() has run: flush everything.
 *   platform_cluster_power_down(rail): prepare rail @rail (the power domain
 *     index, kernel/power_domain.h) for power-off while its last CPU goes
 *     down: TC2 programs the SPC power-down enable and wake-up interrupts
 *     and disables the cluster's CCI snoops; QEMU only records the state.
 *   platform_cluster_power_up(rail): undo that on the first CPU up.
 *
 * A platform without cluster power control (CoreTile A9x4, QEMU) provides
 * WFI-only implementations; the modelled state is still accounted.
 * platform_power_name() says which implementation runs ("wfi-only",
 * "tc2-spc").
 */
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

void platform_power_init_dt(const struct fdt *fdt);
void platform_cpu_power_down(int cpu, bool domain, bool last_man);
void platform_cluster_power_down(int rail);
void platform_cluster_power_up(int rail);
const char *platform_power_name(void);

/*
 * Warm boot (real cluster power-off through cpu_suspend/cpu_resume): on by
 * default on a real TC2 (SPC + CCI in the DT), off elsewhere. set: 0, or -1
 * if the platform has no power-off path (wfi-only). get: 0/1, -1 likewise.
 */
int platform_warmboot_set(bool on);
int platform_warmboot_get(void);
/* Domain idles that went through cpu_suspend: all, resumed after a power loss, returned (no loss). */
void platform_warmboot_stats(uint64_t *entered, uint64_t *resumed, uint64_t *returned);

/*
 * `idle resume-test`: @rounds save/restore round trips on the calling CPU
 * through cpu_suspend and cpu_resume, by a soft restart (MMU off, branch to
 * cpu_resume: the exact resume path) or by PSCI CPU_SUSPEND (@psci).
 * Prints its result lines; 0 if every check passed.
 */
#define RESUME_TEST_MAX_ROUNDS 10000
int platform_resume_test(int rounds, bool psci);

#endif
