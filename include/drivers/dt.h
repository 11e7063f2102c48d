/*
 * DT lookups a driver cannot boot without: each returns the answer or
 * panics with "panic: <node path>: <property>: <what>" through whatever
 * console is up (the board's early UART before the DT's own).
 */
#ifndef DRIVERS_DT_H
#define DRIVERS_DT_H

#include <stdint.h>

#include "kernel/lib/fdt.h"

void dt_panic(const struct fdt *fdt, const struct fdt_fault *f) __attribute__((noreturn));
void dt_panicf(const struct fdt *fdt, int node, const char *prop, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));
/* "reg" entry @index of @node as a CPU address below 4 GiB; @size may be NULL. */
uintptr_t dt_mmio(const struct fdt *fdt, int node, int index, uint64_t *size);
/* Interrupt @index of @node as a GIC interrupt ID. */
uint32_t dt_irq(const struct fdt *fdt, int node, int index);

#endif
