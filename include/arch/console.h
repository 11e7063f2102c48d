/*
 * Console output and the stop on a broken invariant: the port provides them
 * (ARM: drivers/console.c, boot/panic.c; host: tools/lib/host_arch.c).
 *
 *   kprintf/vkprintf  write one whole formatted string, atomically with
 *                     respect to other CPUs (lines never interleave), from
 *                     any context; return the length written.
 *   panic             report "panic: <msg>" with the CPU, stop the other
 *                     CPUs and halt (host: stderr, abort()); never returns.
 */
#ifndef ARCH_CONSOLE_H
#define ARCH_CONSOLE_H

#include <stdarg.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
