/*
 * ARMv7-A CP15 and processor-state accessors (ARM build only: the ARM
 * port's boot/ and drivers/ use them; the portable kernel never does).
 * Names follow the ARM ARM register names.
 */
#ifndef ARCH_ARM_H
#define ARCH_ARM_H

#include <stdint.h>

#define CP15_READ(name, op1, crn, crm, op2)                                  \
	static inline uint32_t read_##name(void)                             \
	{                                                                    \
		uint32_t v;                                                  \
		__asm__ volatile("mrc p15, " #op1 ", %0, " #crn ", " #crm ", " #op2 \
				 : "=r"(v));                                 \
		return v;                                                    \
	}
#define CP15_WRITE(name, op1, crn, crm, op2)                                 \
	static inline void write_##name(uint32_t v)                          \
	{                                                                    \
		__asm__ volatile("mcr p15, " #op1 ", %0, " #crn ", " #crm ", " #op2 \
				 :: "r"(v) : "memory");                      \
	}
#define CP15_RW(name, op1, crn, crm, op2)                                    \
	CP15_READ(name, op1, crn, crm, op2)                                  \
	CP15_WRITE(name, op1, crn, crm, op2)

CP15_READ(midr, 0, c0, c0, 0)
CP15_READ(mpidr, 0, c0, c0, 5)
CP15_RW(sctlr, 0, c1, c0, 0)
CP15_RW(actlr, 0, c1, c0, 1)
CP15_RW(cpacr, 0, c1, c0, 2)
CP15_RW(ttbr0, 0, c2, c0, 0)
CP15_RW(ttbcr, 0, c2, c0, 2)
CP15_RW(dacr, 0, c3, c0, 0)
CP15_READ(dfsr, 0, c5, c0, 0)
CP15_READ(ifsr, 0, c5, c0, 1)
CP15_READ(dfar, 0, c6, c0, 0)
CP15_READ(ifar, 0, c6, c0, 2)
CP15_RW(vbar, 0, c12, c0, 0)
CP15_RW(tpidruro, 0, c13, c0, 3)
CP15_RW(tpidrprw, 0, c13, c0, 4)
CP15_READ(cbar, 4, c15, c0, 0)
CP15_WRITE(tlbiall, 0, c8, c7, 0)
CP15_WRITE(iciallu, 0, c7, c5, 0)
CP15_WRITE(bpiall, 0, c7, c5, 6)
CP15_WRITE(dccmvac, 0, c7, c10, 1)	/* clean D line to PoC by VA */
CP15_WRITE(dcimvac, 0, c7, c6, 1)	/* invalidate D line to PoC by VA */
CP15_WRITE(dccimvac, 0, c7, c14, 1)	/* clean+invalidate D line by VA */
CP15_READ(ctr, 0, c0, c0, 1)
CP15_READ(clidr, 1, c0, c0, 1)
CP15_READ(cntfrq, 0, c14, c0, 0)

#define SCTLR_M (1u << 0)
#define SCTLR_A (1u << 1)
#define SCTLR_C (1u << 2)
#define SCTLR_Z (1u << 11)
#define SCTLR_I (1u << 12)
#define SCTLR_V (1u << 13)
#define SCTLR_TRE (1u << 28)
#define SCTLR_AFE (1u << 29)
#define ACTLR_SMP (1u << 6)

#define MPIDR_HWID_MASK 0x00ffffffu

static inline void dsb(void) { __asm__ volatile("dsb sy" ::: "memory"); }
static inline void isb(void) { __asm__ volatile("isb" ::: "memory"); }
static inline void dmb(void) { __asm__ volatile("dmb sy" ::: "memory"); }
static inline void wfi(void) { __asm__ volatile("dsb sy\n\twfi" ::: "memory"); }
static inline void wfe(void) { __asm__ volatile("wfe" ::: "memory"); }
static inline void sev(void) { __asm__ volatile("dsb sy\n\tsev" ::: "memory"); }

static inline uint32_t read_cpsr(void)
{
	uint32_t v;
	__asm__ volatile("mrs %0, cpsr" : "=r"(v));
	return v;
}

static inline unsigned long irq_save(void)
{
	unsigned long flags;
	__asm__ volatile("mrs %0, cpsr\n\tcpsid i" : "=r"(flags) :: "memory");
	return flags;
}

static inline void irq_restore(unsigned long flags)
{
	__asm__ volatile("msr cpsr_c, %0" :: "r"(flags) : "memory");
}

static inline void irq_enable(void) { __asm__ volatile("cpsie i" ::: "memory"); }
static inline void irq_disable(void) { __asm__ volatile("cpsid i" ::: "memory"); }

/* MMIO accessors: device memory is mapped Device/Strongly-ordered. */
static inline uint32_t mmio_read32(uintptr_t addr)
{
	uint32_t v = *(volatile uint32_t *)addr;
	__asm__ volatile("" ::: "memory");
	return v;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	__asm__ volatile("" ::: "memory");
	*(volatile uint32_t *)addr = v;
}

/* CPSR at the kernel's entry, before it left HYP (boot/head.S): its mode is SVC or HYP. */
extern uint32_t boot_entry_cpsr;

/* Clean a range to the point of coherency (for CPUs still running uncached). */
void dcache_clean_range(const void *start, unsigned long len);
/*
 * Leave coherency (boot/mmu.c; Linux v7_exit_coherency_flush): SCTLR.C off,
 * clean+invalidate the D-cache by set/way to the LoUIS (@all false: this
 * CPU's L1) or the LoC (@all: the cluster's L2 too), ACTLR.SMP off. The
 * caller must not write memory it needs afterwards until the caches are on.
 */
void cpu_exit_coherency_flush(_Bool all);
/* Clean+invalidate every data cache level to the LoC by set/way, staying coherent (Linux flush_cache_all). */
void dcache_flush_all(void);

#endif
