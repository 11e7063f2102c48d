/*
 * The ARM port's CPU bring-up (boot/smp.c), shared by boot/ and drivers/;
 * not part of the portable kernel's contract (the kernel gets its CPUs from
 * the topology). CPUs as the port knows them: logical numbers follow the order of the
 * enabled cpu nodes in /cpus; the boot CPU must be the first. A CPU is
 * online once it runs kernel code with MMU, caches and its GIC interface up.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

enum cpu_state {
	CPU_ABSENT = 0,		/* no such CPU */
	CPU_BOOTING,		/* released, not yet arrived */
	CPU_ONLINE,
	CPU_TIMED_OUT,		/* did not arrive in time: left offline */
	CPU_FAILED,		/* the enable method reported an error */
	CPU_STOPPED,		/* halted by a panic on another CPU */
};

struct cpu_info {
	uint32_t hwid;			/* MPIDR affinity bits (cpu node reg) */
	int node;			/* cpu node offset in the DT */
	const char *compatible;
	const char *enable_method;
	volatile int state;		/* enum cpu_state */
	uint64_t online_ns;		/* clock_ns() when it arrived */
};

enum ipi {
	IPI_RESCHEDULE = 0,
	IPI_STOP = 1,
	IPI_WAKEUP = 2,
};

/* Read /cpus; panics if the boot CPU is missing or not first. */
void smp_init_dt(const struct fdt *fdt);
/* Release every secondary by its enable method; wait up to @timeout_ms. */
void smp_boot_secondaries(unsigned int timeout_ms);
int smp_nr_cpus(void);
int smp_nr_online(void);
struct cpu_info *smp_cpu(int cpu);
bool cpu_is_online(int cpu);
void smp_send_stop(void);

#endif
