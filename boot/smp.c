/*
 * Secondary CPU bring-up. Methods, from each cpu node's "enable-method":
 *  - "psci": PSCI CPU_ON(mpidr, secondary_entry) (QEMU virt);
 *  - "arm,vexpress-sysflags": the boot monitor / QEMU stub waits in WFI
 *    polling SYS_FLAGS; we write the entry address there and kick every
 *    waiting CPU with an SGI, which each must acknowledge on arrival.
 * A CPU that has not arrived by the timeout is reported and left offline:
 * the boot CPU moves it BOOTING -> TIMED_OUT with a compare-and-swap, the
 * secondary moves itself BOOTING -> ONLINE; whichever comes first wins, and a
 * late secondary parks itself.
 */
#include "arch/smp.h"

#include <string.h>

#include "arch/arm.h"
#include "arch/barrier.h"
#include "arch/cpu.h"
#include "boot/boot.h"
#include "boot/mmu.h"
#include "drivers/dt.h"
#include "drivers/gic.h"
#include "drivers/power.h"
#include "drivers/psci.h"
#include "drivers/timer.h"
#include "drivers/vexpress.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/time/time.h"

/* Cortex-A9 MPCore TRM (DDI 0407), 2.2.1 SCU Control Register: bit 0 = SCU enable. */
#define SCU_CTRL    0x00
#define SCU_CTRL_ENABLE (1u << 0)

/* Read by secondaries with the MMU off: cleaned to PoC before release. */
uint32_t boot_cpu_hwid[CONFIG_NR_CPUS] = {
	[0 ... CONFIG_NR_CPUS - 1] = 0xffffffffu
};

/* The GIC CPU interface, for CPUs the DT does not list to silence themselves (boot/head.S). */
uintptr_t boot_gicc_phys;

static struct cpu_info cpus[CONFIG_NR_CPUS];
static int nr_cpus;
static uintptr_t scu_base;

extern char secondary_entry[];

void smp_init_dt(const struct fdt *fdt)
{
	int cpus_node = fdt_path(fdt, "/cpus");
	uint32_t self = read_mpidr() & MPIDR_HWID_MASK;
	int scu;

	if (cpus_node < 0)
		dt_panicf(fdt, fdt_root(fdt), "cpus", "no /cpus node");
	for (int n = fdt_first_child(fdt, cpus_node); n >= 0; n = fdt_next_sibling(fdt, n)) {
		const char *type = fdt_prop_string(fdt, n, "device_type");
		struct fdt_fault f;
		uint64_t reg, unused;

		if (!type || strcmp(type, "cpu") != 0 || !fdt_node_enabled(fdt, n))
			continue;
		if (nr_cpus == CONFIG_NR_CPUS) {
			kprintf("smp: more than %d cpu nodes; ignoring %s and later\n",
				CONFIG_NR_CPUS, fdt_node_name(fdt, n));
			break;
		}
		if (fdt_reg(fdt, n, 0, &reg, &unused) != 0) {
			fdt_reg_phys(fdt, n, 0, &reg, &unused, &f);	/* for the reason only */
			dt_panic(fdt, &f);
		}
		if (reg & ~(uint64_t)MPIDR_HWID_MASK)
			dt_panicf(fdt, n, "reg", "0x%llx is not an MPIDR affinity value (mask 0x%x)",
				  (unsigned long long)reg, (unsigned)MPIDR_HWID_MASK);
		cpus[nr_cpus].hwid = (uint32_t)reg & MPIDR_HWID_MASK;
		cpus[nr_cpus].node = n;
		cpus[nr_cpus].compatible = fdt_prop_string(fdt, n, "compatible");
		if (!cpus[nr_cpus].compatible)
			cpus[nr_cpus].compatible = "unknown";
		cpus[nr_cpus].enable_method = fdt_prop_string(fdt, n, "enable-method");
		cpus[nr_cpus].state = CPU_ABSENT;
		boot_cpu_hwid[nr_cpus] = cpus[nr_cpus].hwid;
		nr_cpus++;
	}
	if (nr_cpus == 0)
		dt_panicf(fdt, cpus_node, "device_type", "no enabled node with device_type \"cpu\"");
	if (cpus[0].hwid != self)
		dt_panicf(fdt, cpus[0].node, "reg", "0x%x, but the boot CPU's MPIDR is 0x%x: the first cpu node must be it",
			  (unsigned)cpus[0].hwid, (unsigned)self);
	cpus[0].state = CPU_ONLINE;

	scu = fdt_find_compatible(fdt, -1, "arm,cortex-a9-scu");
	if (scu >= 0 && fdt_node_enabled(fdt, scu))
		scu_base = dt_mmio(fdt, scu, 0, NULL);
}

int smp_nr_cpus(void)
{
	return nr_cpus;
}

struct cpu_info *smp_cpu(int cpu)
{
	KASSERT(cpu >= 0 && cpu < nr_cpus);
	return &cpus[cpu];
}

bool cpu_is_online(int cpu)
{
	return cpu >= 0 && cpu < nr_cpus && READ_ONCE(cpus[cpu].state) == CPU_ONLINE;
}

int smp_nr_online(void)
{
	int n = 0;

	for (int i = 0; i < nr_cpus; i++)
		n += cpu_is_online(i);
	return n;
}

/*
 * A9: the Snoop Control Unit keeps the L1s coherent; it must be on before
 * a secondary joins. The firmware normally enables it; if not, this CPU has
 * run for a while with its D-cache on and the SCU off, so its L1 holds dirty
 * lines the SCU's duplicate tags do not know about (Cortex-A9 MPCore TRM,
 * 2.2 "Snoop Control Unit"). As Linux's scu_enable()
 * (arch/arm/kernel/smp_scu.c): set the enable bit WITHOUT invalidating the
 * SCU tag RAMs (SCU_INV_ALL is for a core whose L1 is empty: invalidating
 * the tags of lines this L1 holds dirty would lose their coherency), then
 * clean+invalidate this CPU's caches so that everything it wrote so far is
 * in memory where the secondaries read it. Returns true if it had to.
 */
static bool scu_enable(void)
{
	uint32_t ctrl;

	if (!scu_base)
		return false;
	ctrl = mmio_read32(scu_base + SCU_CTRL);
	if (ctrl & SCU_CTRL_ENABLE)
		return false;
	mmio_write32(scu_base + SCU_CTRL, ctrl | SCU_CTRL_ENABLE);
	dsb();
	dcache_flush_all();
	return true;
}

static bool method_is(const struct cpu_info *c, const char *m)
{
	return c->enable_method && strcmp(c->enable_method, m) == 0;
}

void smp_boot_secondaries(unsigned int timeout_ms)
{
	bool sysflags = false;
	uint64_t deadline;

	if (scu_enable())
		kprintf("smp: the SCU was off: enabled it and flushed cpu0's caches before releasing the secondaries\n");
	boot_gicc_phys = gic_cpu_interface_base();
	dcache_clean_range(&boot_gicc_phys, sizeof(boot_gicc_phys));
	for (int i = 1; i < nr_cpus; i++) {
		struct cpu_info *c = &cpus[i];

		c->state = CPU_BOOTING;
		if (power_cpu_refused(c->hwid)) {
			/* Not in boot_cpu_hwid[]: if the SGI wakes it anyway, it parks itself (boot/head.S). */
			c->state = CPU_FAILED;
			boot_cpu_hwid[i] = 0xffffffffu;
			kprintf("cpu%d offline: mpidr=0x%x not released: %s\n", i, (unsigned)c->hwid,
				power_cpu_refused(c->hwid));
		} else if (method_is(c, "psci") || (!c->enable_method && psci_present())) {
			int err = psci_present() ? psci_cpu_on(c->hwid, (uint32_t)(uintptr_t)secondary_entry, (uint32_t)i)
						 : PSCI_NOT_SUPPORTED;

			if (err != PSCI_SUCCESS) {
				c->state = CPU_FAILED;
				kprintf("cpu%d offline: PSCI CPU_ON mpidr=0x%x failed: %s\n", i,
					(unsigned)c->hwid, psci_strerror(err));
			}
		} else if (method_is(c, "arm,vexpress-sysflags") ||
			   (!c->enable_method && vexpress_sysreg_present())) {
			if (vexpress_sysreg_present()) {
				sysflags = true;
			} else {
				c->state = CPU_FAILED;
				kprintf("cpu%d offline: enable-method sysflags but no arm,vexpress-sysreg\n", i);
			}
		} else {
			c->state = CPU_FAILED;
			kprintf("cpu%d offline: unsupported enable-method \"%s\"\n", i,
				c->enable_method ? c->enable_method : "(none)");
		}
	}
	dcache_clean_range(boot_cpu_hwid, sizeof(boot_cpu_hwid));	/* read with the MMU off */
	dsb();
	if (sysflags) {
		vexpress_set_flags((uint32_t)(uintptr_t)secondary_entry);
		gic_send_sgi_others(IPI_WAKEUP);
	}

	deadline = clock_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	for (int i = 1; i < nr_cpus; i++) {
		struct cpu_info *c = &cpus[i];

		while (READ_ONCE(c->state) == CPU_BOOTING && clock_ns() < deadline)
			;
		if (__sync_bool_compare_and_swap(&c->state, CPU_BOOTING, CPU_TIMED_OUT))
			kprintf("cpu%d offline: mpidr=0x%x did not arrive within %u ms\n", i,
				(unsigned)c->hwid, timeout_ms);
	}
}

/* Called by secondary_main once this CPU runs with MMU, caches and GIC. */
bool smp_mark_online(int cpu)
{
	cpus[cpu].online_ns = clock_ns();
	smp_wmb();
	if (!__sync_bool_compare_and_swap(&cpus[cpu].state, CPU_BOOTING, CPU_ONLINE))
		return false;
	sev();
	return true;
}

void smp_send_stop(void)
{
	gic_send_sgi_others(IPI_STOP);
}
