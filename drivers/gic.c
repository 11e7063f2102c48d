/*
 * GIC v1/v2 driver. The distributor and CPU interface addresses come from
 * the first node compatible with one of gic_compat[]. SPIs go to the boot
 * CPU unless routed; each CPU records its own CPU-interface bit (read from
 * the banked ITARGETSR0), which differs from the MPIDR on multi-cluster
 * systems such as TC2.
 */
#include "drivers/gic.h"

#include <stdbool.h>

#include "arch/arm.h"
#include "arch/cpu.h"
#include "drivers/dt.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"

#define GICD_CTLR       0x000
#define GICD_TYPER      0x004
#define GICD_TYPER_SECEXT (1u << 10)	/* GICv2 spec 4.3.2: Security Extensions implemented */
#define GICD_IGROUPR    0x080	/* Secure-only: RAZ/WI to non-secure accesses (GICv2 spec 4.3.10) */
#define GICD_ISENABLER  0x100
#define GICD_ICENABLER  0x180
#define GICD_ICPENDR    0x280
#define GICD_IPRIORITYR 0x400
#define GICD_ITARGETSR  0x800
#define GICD_ICFGR      0xc00
#define GICD_SGIR       0xf00

#define GICC_CTLR 0x00
#define GICC_PMR  0x04
#define GICC_BPR  0x08
#define GICC_IAR  0x0c
#define GICC_EOIR 0x10

#define GIC_MAX_IRQS 1020
#define SPURIOUS 1023

static const char *const gic_compat[] = {
	"arm,cortex-a9-gic", "arm,cortex-a15-gic", "arm,gic-400",
	"arm,cortex-a7-gic", "arm,arm11mp-gic",
};

struct irq_desc {
	irq_handler_t fn;
	void *arg;
};

static uintptr_t gicd, gicc;
static unsigned int nr_irqs;
static uint8_t cpu_iface_bits[CONFIG_NR_CPUS];
static struct irq_desc irq_table[GIC_MAX_IRQS];

int gic_init_dt(const struct fdt *fdt)
{
	int node = -1;

	for (unsigned i = 0; i < sizeof(gic_compat) / sizeof(gic_compat[0]) && node < 0; i++)
		node = fdt_find_compatible(fdt, -1, gic_compat[i]);
	if (node < 0)
		dt_panicf(fdt, fdt_root(fdt), "compatible",
			  "no node is arm,cortex-a9-gic, arm,cortex-a15-gic or arm,gic-400: no interrupt controller");
	/* reg: distributor, then CPU interface. */
	gicd = dt_mmio(fdt, node, 0, NULL);
	gicc = dt_mmio(fdt, node, 1, NULL);

	nr_irqs = 32 * ((mmio_read32(gicd + GICD_TYPER) & 0x1f) + 1);
	if (nr_irqs > GIC_MAX_IRQS)
		nr_irqs = GIC_MAX_IRQS;

	mmio_write32(gicd + GICD_CTLR, 0);
	for (unsigned i = 32; i < nr_irqs; i += 32) {
		mmio_write32(gicd + GICD_ICENABLER + i / 8, ~0u);
		mmio_write32(gicd + GICD_ICPENDR + i / 8, ~0u);
	}
	for (unsigned i = 32; i < nr_irqs; i += 4) {
		mmio_write32(gicd + GICD_IPRIORITYR + i, 0xa0a0a0a0);
		mmio_write32(gicd + GICD_ITARGETSR + i, 0);
	}
	/* SPIs level-triggered: the DT's peripherals (PL011, SPC) are. */
	for (unsigned i = 32; i < nr_irqs; i += 16)
		mmio_write32(gicd + GICD_ICFGR + i / 4, 0);
	mmio_write32(gicd + GICD_CTLR, 1);
	return 0;
}

void gic_cpu_init(void)
{
	int cpu = arch_cpu_id();

	/* SGIs and PPIs are banked per CPU. */
	mmio_write32(gicd + GICD_ICENABLER, ~0u);
	for (unsigned i = 0; i < 32; i += 4)
		mmio_write32(gicd + GICD_IPRIORITYR + i, 0xa0a0a0a0);
	cpu_iface_bits[cpu] = (uint8_t)(mmio_read32(gicd + GICD_ITARGETSR) & 0xff);
	if (!cpu_iface_bits[cpu])	/* uniprocessor GICs read as zero */
		cpu_iface_bits[cpu] = 1;
	mmio_write32(gicc + GICC_PMR, 0xf0);
	mmio_write32(gicc + GICC_BPR, 0);
	mmio_write32(gicc + GICC_CTLR, 1);
	/* Every SGI is an IPI we handle. */
	mmio_write32(gicd + GICD_ISENABLER, 0xffff);
}

void gic_enable(uint32_t irq)
{
	KASSERT(irq < nr_irqs);
	mmio_write32(gicd + GICD_ISENABLER + (irq / 32) * 4, 1u << (irq % 32));
}

void gic_disable(uint32_t irq)
{
	KASSERT(irq < nr_irqs);
	mmio_write32(gicd + GICD_ICENABLER + (irq / 32) * 4, 1u << (irq % 32));
}

void gic_route(uint32_t irq, int cpu)
{
	uintptr_t reg = gicd + GICD_ITARGETSR + (irq & ~3u);
	unsigned int shift = (irq % 4) * 8;
	uint32_t v;

	KASSERT(irq >= 32 && irq < nr_irqs);
	KASSERT(cpu >= 0 && cpu < CONFIG_NR_CPUS && cpu_iface_bits[cpu]);
	v = mmio_read32(reg);
	v &= ~(0xffu << shift);
	v |= (uint32_t)cpu_iface_bits[cpu] << shift;
	mmio_write32(reg, v);
}

void gic_send_sgi_raw(uint32_t sgi, uint32_t target_list, uint32_t filter)
{
	dsb();	/* make prior stores visible before the IPI lands */
	mmio_write32(gicd + GICD_SGIR, (filter << 24) | ((target_list & 0xff) << 16) | (sgi & 0xf));
}

void gic_send_sgi(uint32_t sgi, uint32_t cpu_bits)
{
	uint32_t targets = 0;

	for (int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		if (cpu_bits & (1u << cpu))
			targets |= cpu_iface_bits[cpu];
	if (targets)
		gic_send_sgi_raw(sgi, targets, 0);
}

void gic_send_sgi_others(uint32_t sgi)
{
	gic_send_sgi_raw(sgi, 0, 1);
}

uint32_t gic_ack(void)
{
	return mmio_read32(gicc + GICC_IAR);
}

void gic_eoi(uint32_t iar)
{
	mmio_write32(gicc + GICC_EOIR, iar);
}

void gic_drain(void)
{
	for (int i = 0; i < 64; i++) {
		uint32_t iar = gic_ack();

		if ((iar & 0x3ff) >= SPURIOUS)
			break;
		gic_eoi(iar);
	}
}

int irq_register(uint32_t irq, irq_handler_t fn, void *arg)
{
	if (irq >= GIC_MAX_IRQS || (nr_irqs && irq >= nr_irqs))
		return -1;
	irq_table[irq].arg = arg;
	irq_table[irq].fn = fn;
	return 0;
}

void gic_handle_irq(void)
{
	for (;;) {
		uint32_t iar = gic_ack();
		uint32_t irq = iar & 0x3ff;

		if (irq >= SPURIOUS)
			return;
		if (irq < GIC_MAX_IRQS && irq_table[irq].fn)
			irq_table[irq].fn(irq, irq_table[irq].arg);
		else
			kprintf("gic: cpu%d: unexpected interrupt %u\n", arch_cpu_id(), (unsigned)irq);
		gic_eoi(iar);
	}
}

/*
 * The way down to a power-down state (Linux gic_cpu_if_down()): the CPU
 * interface stops signalling IRQs to the core, so WFI no longer completes
 * behind the power controller's back; the GIC still presents them to the
 * power controller as wake-up requests (TC2: nIRQOUT to the SPC). Only the
 * enable bits (Group 0/1) are cleared; the bypass-disable bits stay.
 */
void gic_security_probe(bool *secext, bool *igroup_writable)
{
	uint32_t g;

	*secext = mmio_read32(gicd + GICD_TYPER) & GICD_TYPER_SECEXT;
	*igroup_writable = false;
	if (!*secext)
		return;
	/* Flip SGI 15's group and back (IRQs are masked at boot; SGI 15 is unused). */
	g = mmio_read32(gicd + GICD_IGROUPR);
	mmio_write32(gicd + GICD_IGROUPR, g ^ (1u << 15));
	*igroup_writable = mmio_read32(gicd + GICD_IGROUPR) != g;
	mmio_write32(gicd + GICD_IGROUPR, g);
}

uintptr_t gic_cpu_interface_base(void)
{
	return gicc;
}

void gic_cpu_if_down(void)
{
	mmio_write32(gicc + GICC_CTLR, mmio_read32(gicc + GICC_CTLR) & ~0x3u);
}

/*
 * Banked per-CPU state (ARM IHI 0048B, 4.3: SGI/PPI enables and priorities
 * are banked per CPU interface; 4.4: CTLR, PMR, BPR), for a power-down that
 * loses it. ITARGETSR0-7 are read-only; the SGI pending state is dropped
 * (an IPI sent while the CPU was down woke it through the power controller
 * and is re-sent by whoever needs it: the scheduler re-checks its queues).
 */
void gic_cpu_save(struct gic_cpu_state *st)
{
	st->enable = mmio_read32(gicd + GICD_ISENABLER);
	for (unsigned i = 0; i < 8; i++)
		st->prio[i] = mmio_read32(gicd + GICD_IPRIORITYR + 4 * i);
	st->ctlr = mmio_read32(gicc + GICC_CTLR);
	st->pmr = mmio_read32(gicc + GICC_PMR);
	st->bpr = mmio_read32(gicc + GICC_BPR);
}

void gic_cpu_restore(const struct gic_cpu_state *st)
{
	mmio_write32(gicd + GICD_ICENABLER, ~st->enable);
	for (unsigned i = 0; i < 8; i++)
		mmio_write32(gicd + GICD_IPRIORITYR + 4 * i, st->prio[i]);
	mmio_write32(gicd + GICD_ISENABLER, st->enable);
	mmio_write32(gicc + GICC_PMR, st->pmr);
	mmio_write32(gicc + GICC_BPR, st->bpr);
	mmio_write32(gicc + GICC_CTLR, st->ctlr);
}

/* What a power cycle of the CPU interface leaves (reset values): for tests of the restore. */
void gic_cpu_clobber(void)
{
	gic_cpu_if_down();
	mmio_write32(gicc + GICC_PMR, 0);
	mmio_write32(gicd + GICD_ICENABLER, ~0u);
	for (unsigned i = 0; i < 8; i++)
		mmio_write32(gicd + GICD_IPRIORITYR + 4 * i, 0);
}

unsigned int gic_nr_irqs(void)
{
	return nr_irqs;
}
