/*
 * printf-style formatting of our own: newlib-nano's vsnprintf has no
 * 64-bit conversions, and the scheduler prints u64 nanoseconds everywhere.
 * Supports flags "-0+ #", width and precision (numbers or *), lengths
 * hh h l ll z j t, and conversions d i u o x X c s p %. No floating point
 * (the kernel has none to print). Same return value as C99 vsnprintf: the
 * length the full output would have; the buffer is always terminated when
 * size > 0. Safe from any context: no locks, no allocation.
 */
#ifndef KERNEL_FORMAT_H
#define KERNEL_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int ksnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format an error message into @err (for parsers' "what is wrong" strings); returns -1. */
int format_error(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
