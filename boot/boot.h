/* Boot-time entry points and platform services of boot/ (ARM only). */
#ifndef BOOT_BOOT_H
#define BOOT_BOOT_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;
struct bootargs;
struct trap_frame;

void boot_main(uintptr_t dtb);
void secondary_main(int cpu);
bool smp_mark_online(int cpu);
void cpu_park(void) __attribute__((noreturn));

/* The DT and bootargs the kernel booted with. */
const struct fdt *boot_fdt(void);
const struct bootargs *boot_args(void);
uint64_t boot_time_ns(void);

/* Power: SYS_CFG on vexpress, PSCI where the DT has it. */
void platform_poweroff(void) __attribute__((noreturn));
void platform_reboot(void) __attribute__((noreturn));
/*
 * From a panic: power off (or reset) without locks, clock or DT parsing;
 * falls back on the board's fixed sysregs / PSCI conduit (board.mk) when
 * the DT's were never found. Returns only if the board has no way.
 */
void platform_emergency_power(bool off);
/* panic=halt|poweroff|reboot; -1 for another word. */
int panic_set_action(const char *name);

/* Panic plumbing shared by panic() and the trap handler. */
void panic_begin(void);
void panic_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic_halt(void) __attribute__((noreturn));


/*
 * Print " backtrace: <pc> <return address>...", unwound from the interrupted
 * registers of @tf with the EHABI tables (boot/backtrace.c).
 */
void backtrace_print(const struct trap_frame *tf, void (*print)(const char *fmt, ...));
/* The same line for the caller's own call chain (panic()). */
void backtrace_here(void (*print)(const char *fmt, ...));

#endif
