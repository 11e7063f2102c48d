/*
 * What host programs may set in the host port (tools/ports/host/host_arch.c).
 */
#ifndef TOOLS_LIB_HOST_ARCH_H
#define TOOLS_LIB_HOST_ARCH_H

#include <stdint.h>

/* What arch_now_ns() returns: the program moves the clock. */
extern uint64_t host_fake_now;
/* The calling thread's CPU id for arch_cpu_id() (0 until set). */
void host_set_cpu_id(int cpu);

#endif
