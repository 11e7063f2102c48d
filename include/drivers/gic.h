/*
 * ARM GIC v1/v2 (Cortex-A9 MPCore GIC, GIC-400): distributor set up once by
 * the boot CPU, CPU interface per CPU; SGIs carry IPIs. Interrupt IDs are
 * GIC IDs (SGI 0-15, PPI 16-31, SPI 32+). Handlers run in IRQ context with
 * IRQs masked.
 */
#ifndef DRIVERS_GIC_H
#define DRIVERS_GIC_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

typedef void (*irq_handler_t)(uint32_t irq, void *arg);

int gic_init_dt(const struct fdt *fdt);
void gic_cpu_init(void);
void gic_enable(uint32_t irq);
void gic_disable(uint32_t irq);
/* Route an SPI to the CPU interface of logical CPU @cpu. */
void gic_route(uint32_t irq, int cpu);
/* SGI @sgi to the logical CPUs in @cpu_bits (bit n = CPU n). */
void gic_send_sgi(uint32_t sgi, uint32_t cpu_bits);
void gic_send_sgi_others(uint32_t sgi);
/* Raw SGI to GIC CPU-interface bits, before logical CPUs are known. */
void gic_send_sgi_raw(uint32_t sgi, uint32_t target_list, uint32_t filter);
uint32_t gic_ack(void);
void gic_eoi(uint32_t iar);
/* Acknowledge and discard whatever is pending on this CPU interface. */
void gic_drain(void);
int irq_register(uint32_t irq, irq_handler_t fn, void *arg);
/* Called from the IRQ vector: acknowledge, dispatch, EOI until none pend. */
void gic_handle_irq(void);
unsigned int gic_nr_irqs(void);

/* Power-down support (boot/suspend.c): see drivers/gic.c. */
struct gic_cpu_state {
	uint32_t enable;	/* GICD_ISENABLER0: SGIs and PPIs */
	uint32_t prio[8];	/* GICD_IPRIORITYR0-7 */
	uint32_t ctlr, pmr, bpr;	/* CPU interface */
};
/* Stop the CPU interface signalling IRQs to this core (it still wakes it through the power controller). */
void gic_cpu_if_down(void);
/*
 * Which view of the distributor this CPU has (include/drivers/entry_state.h):
 * @secext = GICD_TYPER.SecurityExtn; @igroup_writable = a GICD_IGROUPR0 bit
 * could be changed (Secure access). Boot only, IRQs masked.
 */
void gic_security_probe(bool *secext, bool *igroup_writable);
/* The CPU interface's physical base (identity-mapped). */
uintptr_t gic_cpu_interface_base(void);
void gic_cpu_save(struct gic_cpu_state *st);
void gic_cpu_restore(const struct gic_cpu_state *st);
/* Put this CPU's banked state to what a power cycle leaves (tests only). */
void gic_cpu_clobber(void);

#endif
