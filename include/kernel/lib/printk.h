/*
 * Console output for the core (kernel/lib/printk.c, over the port's
 * arch_console_write()): kprintf() formats into one 1 KiB buffer and writes
 * it in one piece, so lines from different CPUs never interleave; a longer
 * message is cut and says so (" [line truncated]"), with its newline, so
 * the next line never runs into it (RESULT parsers). Any context; returns
 * the length the whole message had.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

#endif
