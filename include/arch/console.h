/*
 * What each port gives the kernel's console front end (kernel/lib/printk.c,
 * kernel/lib/panic.c): raw output and the stop on a broken invariant. Ports:
 * ARM drivers/console.c and boot/panic.c; the host's tools/ports/host/host_arch.c;
 * the simulator's tools/ports/sim/port.c.
 *
 *   arch_console_write  write @len bytes as one piece (the port's own lock, if
 *                       it has several writers); any context.
 *   arch_panic          report "panic: ... <msg>" (the port adds what it
 *                       knows: the CPU, a backtrace), stop the other CPUs
 *                       and halt, power off or exit as the port does; never
 *                       returns.
 */
#ifndef ARCH_CONSOLE_H
#define ARCH_CONSOLE_H

#include <stddef.h>

void arch_console_write(const char *buf, size_t len);
void arch_panic(const char *msg) __attribute__((noreturn));
/* The same stop for a message that names its own place (a DT node): "panic: <msg>", no CPU, no backtrace. */
void arch_panic_plain(const char *msg) __attribute__((noreturn));

#endif
