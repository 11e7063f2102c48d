/*
 * What the console's machine commands (kernel/console/machine_commands.c:
 * cpus, uptime) ask the port. ARM: boot/commands.c; the simulator:
 * tools/schedsim/main.c; host programs: tools/ports/host/host_arch.c.
 *
 *   arch_cpu_describe  @cpu's hardware id (MPIDR affinity), its state as the
 *                      port knows it ("online", "offline (timed out)", ...)
 *                      and its compatible string, for 0 <= @cpu < the
 *                      kernel's CPU count
 *   arch_boot_ns       arch_now_ns() when the kernel started (uptime's zero)
 */
#ifndef ARCH_MACHINE_H
#define ARCH_MACHINE_H

#include <stdint.h>

struct arch_cpu_desc {
	uint32_t hwid;
	const char *state;
	const char *compatible;
};

void arch_cpu_describe(int cpu, struct arch_cpu_desc *d);
uint64_t arch_boot_ns(void);

#endif
