/*
 * The TC2 SPC register sequence of the warm-boot path, through register
 * accessors so that host tests run it against a fake MMIO block
 * (drivers/tc2_spc.c, plain C: compiled into the host library too).
 *
 * SPC (Serial Power Controller, in the TC2 SCC at +0xb00; register map as
 * Linux arch/arm/mach-vexpress/spc.c uses it):
 *   WAKE_INT_MASK 0x24: bit n = wake A15 core n, bit 4 + n = A7 core n,
 *     bits 10-11 = the global wake-ups Linux enables for a cluster-off;
 *   A15_PWRDN_EN 0x30 / A7_PWRDN_EN 0x34: 1 = the cluster loses power
 *     once all its cores are in WFI;
 *   A15_BX_ADDR0 0x68 + 4n / A7_BX_ADDR0 0x78 + 4n: core n's warm-boot
 *     address (physical; 0 = none), where the boot firmware sends it after
 *     the power comes back.
 * Linux order (tc2_pm.c): each CPU going down sets its resume address and
 * its wake-up bit (cpu_suspend_prepare, cpu_powerdown_prepare); the last
 * man also sets PWRDN_EN and the global wake-ups (cluster_powerdown_prepare);
 * each CPU coming up clears its wake-up bit and resume address
 * (cpu_is_up), the first man PWRDN_EN and the global bits (cluster_is_up).
 */
#ifndef DRIVERS_TC2_SPC_H
#define DRIVERS_TC2_SPC_H

#include <stdbool.h>
#include <stdint.h>

#define SPC_WAKE_INT_MASK 0x24u
#define SPC_A15_PWRDN_EN 0x30u
#define SPC_A7_PWRDN_EN 0x34u
#define SPC_A15_BX_ADDR0 0x68u
#define SPC_A7_BX_ADDR0 0x78u
#define SPC_MAX_CORES 4u		/* mailboxes per cluster (0x68..0x74, 0x78..0x84) */
#define SPC_WAKE_GLOBAL (0x3u << 10)
#define SPC_WAKE_CPU(a15, core) ((a15) ? 1u << (core) : 1u << (4u + (core)))

struct spc_io {
	uint32_t (*read)(void *ctx, uint32_t off);
	void (*write)(void *ctx, uint32_t off, uint32_t v);
	void *ctx;
};

#define SPC_EINVAL (-22)

/* Core @core's warm-boot address (0 clears). SPC_EINVAL: no such mailbox or a misaligned address. */
int spc_set_resume_addr(const struct spc_io *io, bool a15, unsigned int core, uint32_t addr);
/* Core @core's wake-up IRQ enable. SPC_EINVAL: no such core. */
int spc_cpu_wakeup(const struct spc_io *io, bool a15, unsigned int core, bool set);
void spc_global_wakeup(const struct spc_io *io, bool set);
void spc_cluster_powerdown(const struct spc_io *io, bool a15, bool enable);

/* A CPU going down through cpu_suspend: resume address + wake-up bit (tc2_pm suspend + powerdown_prepare). */
int spc_cpu_down_prepare(const struct spc_io *io, bool a15, unsigned int core, uint32_t resume_addr);
/* The CPU is up again (or backed out): wake-up bit and resume address cleared. */
int spc_cpu_up(const struct spc_io *io, bool a15, unsigned int core);
/* The last man: cluster power-down enable and the global wake-ups. */
void spc_cluster_down_prepare(const struct spc_io *io, bool a15);
/* The first man: undo spc_cluster_down_prepare(); the global wake-ups stay if @other_armed. */
void spc_cluster_up(const struct spc_io *io, bool a15, bool other_armed);

#endif
