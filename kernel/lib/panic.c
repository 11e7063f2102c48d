/*
 * panic(): the kernel's one front end for a broken invariant
 * (include/kernel/lib/panic.h): the message formatted here, the stop the port's
 * arch_panic().
 */
#include "kernel/lib/panic.h"

#include <stdarg.h>

#include "arch/console.h"
#include "kernel/lib/format.h"

void panic(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	arch_panic(msg);
}

void panic_plain(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	arch_panic_plain(msg);
}
