/*
 * Console output for the core. kprintf() writes a whole formatted string
 * atomically with respect to other CPUs (lines never interleave). On the host
 * it goes to stdout.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

#endif
