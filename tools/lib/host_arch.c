/*
 * Host implementation of the small arch interface the portable core needs,
 * so host tests and tools link the very same kernel/ objects.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/panic.h"
#include "kernel/printk.h"

void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "panic: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

int vkprintf(const char *fmt, va_list ap)
{
	return vprintf(fmt, ap);
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vkprintf(fmt, ap);
	va_end(ap);
	return n;
}

#include "arch/cpu.h"

static _Thread_local int host_cpu;

int arch_cpu_id(void)
{
	return host_cpu;
}

void host_set_cpu_id(int cpu)
{
	host_cpu = cpu;
}
