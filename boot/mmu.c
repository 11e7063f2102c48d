/* Identity-mapped short-descriptor translation table; see boot/mmu.h. */
#include "boot/mmu.h"

#include <stdbool.h>

#include "arch/arm.h"
#include "arch/cache_levels.h"
#include "arch/mm.h"
#include "drivers/dt.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "boot/asm.h"

#define SECTION_SHIFT 20
#define NR_SECTIONS 4096

#define SECT        (2u << 0)
#define SECT_B      (1u << 2)
#define SECT_C      (1u << 3)
#define SECT_XN     (1u << 4)
#define SECT_AP_RW  (3u << 10)
#define SECT_TEX(x) ((uint32_t)(x) << 12)
#define SECT_S      (1u << 16)

/* Normal, inner/outer write-back write-allocate, shareable. */
#define SECT_NORMAL (SECT | SECT_AP_RW | SECT_TEX(1) | SECT_C | SECT_B | SECT_S)
/* Shareable Device. */
#define SECT_DEVICE (SECT | SECT_AP_RW | SECT_XN | SECT_B)

/* TTBR0 walk attributes: IRGN=WBWA (MP encoding), S, NOS, RGN=WBWA. */
#define TTBR_FLAGS_SMP ((1u << 6) | (1u << 1) | (1u << 5) | (1u << 3))

static uint32_t l1_table[NR_SECTIONS]
	__attribute__((section(".pgtable"), aligned(16384)));
static uint64_t ram_bytes;

/*
 * Second-level (coarse) tables for the sections that hold guard pages:
 * 4 KiB pages mapped like the section, except the guards (faulting).
 */
#define L2_ENTRIES 256
#define L2_TABLES 24
#define L1_COARSE (1u << 0)
#define PAGE_SMALL (1u << 1)
#define PAGE_B (1u << 2)
#define PAGE_C (1u << 3)
#define PAGE_AP_RW (3u << 4)
#define PAGE_TEX(x) ((uint32_t)(x) << 6)
#define PAGE_S (1u << 10)
#define PAGE_NORMAL (PAGE_SMALL | PAGE_AP_RW | PAGE_TEX(1) | PAGE_C | PAGE_B | PAGE_S)
static uint32_t l2_tables[L2_TABLES][L2_ENTRIES] __attribute__((section(".pgtable"), aligned(1024)));
static int nr_l2;
static unsigned nr_guards;

extern char svc_stacks[];

extern char _image_start[], _end[];

/* The sections of [base, base + size) below 4 GiB (not reachable without LPAE): Normal. Returns the bytes mapped. */
static uint64_t map_normal(uint64_t base, uint64_t size)
{
	uint64_t end = base + size;

	if (base >= (1ull << 32))
		return 0;
	if (end > (1ull << 32))
		end = 1ull << 32;
	for (uint64_t a = base & ~((1ull << SECTION_SHIFT) - 1); a < end; a += 1u << SECTION_SHIFT)
		l1_table[a >> SECTION_SHIFT] = (uint32_t)a | SECT_NORMAL;
	return end - base;
}

/* The DTB's extent (mmu_enable_early()): its sections stay Normal in the DT's map too, wherever the loader put it. */
static uintptr_t dtb_base, dtb_size;
#define DTB_MAP_MAX (2u << SECTION_SHIFT)

void mmu_enable_early(uintptr_t dtb)
{
	for (uint32_t i = 0; i < NR_SECTIONS; i++)
		l1_table[i] = (i << SECTION_SHIFT) | SECT_DEVICE;
	map_normal((uintptr_t)_image_start, (uintptr_t)_end - (uintptr_t)_image_start);
	/* An FDT header (magic, then totalsize, big-endian); anything else is left to boot_main()'s checks. */
	if (dtb && (dtb & 3) == 0 && *(const volatile uint32_t *)dtb == __builtin_bswap32(FDT_MAGIC)) {
		uint32_t size = __builtin_bswap32(((const volatile uint32_t *)dtb)[1]);

		dtb_base = dtb;
		dtb_size = size < DTB_MAP_MAX ? size : DTB_MAP_MAX;
		map_normal(dtb_base, dtb_size);
	}
	mmu_enable();
}

/* Unmap the 4 KiB page at @va (in RAM): accesses fault (translation fault, page). */
static void guard_page(uintptr_t va)
{
	uint32_t *l1 = &l1_table[va >> SECTION_SHIFT];
	uint32_t *l2;

	if ((*l1 & 3u) == SECT) {
		uint32_t base = *l1 & ~((1u << SECTION_SHIFT) - 1);

		if (*l1 != (base | SECT_NORMAL))
			panic("mmu: guard page 0x%08x is not in normal RAM", (unsigned)va);
		if (nr_l2 == L2_TABLES)
			panic("mmu: more than %d MiB hold guard pages", L2_TABLES);
		l2 = l2_tables[nr_l2++];
		for (int i = 0; i < L2_ENTRIES; i++)
			l2[i] = (base + ((uint32_t)i << 12)) | PAGE_NORMAL;
		*l1 = (uint32_t)(uintptr_t)l2 | L1_COARSE;
	}
	l2 = (uint32_t *)(uintptr_t)(*l1 & ~0x3ffu);
	l2[(va >> 12) & 0xff] = 0;
	nr_guards++;
}

#define MAX_RAM_REGIONS 16

static bool covered(const uint64_t (*r)[2], int n, uint64_t base, uint64_t end)
{
	for (int i = 0; i < n; i++)
		if (r[i][0] <= base && end <= r[i][0] + r[i][1])
			return true;
	return false;
}

void mmu_build(const struct fdt *fdt)
{
	uint64_t ram[MAX_RAM_REGIONS][2];
	int regions = 0;

	for (int node = fdt_next_node(fdt, fdt_root(fdt)); node >= 0; node = fdt_next_node(fdt, node)) {
		const char *type = fdt_prop_string(fdt, node, "device_type");
		uint64_t base, size;

		if (!type || __builtin_strcmp(type, "memory") != 0)
			continue;
		for (int i = 0; fdt_reg(fdt, node, i, &base, &size) == 0; i++) {
			if (regions == MAX_RAM_REGIONS)
				dt_panicf(fdt, node, "reg", "more than %d RAM regions", MAX_RAM_REGIONS);
			ram[regions][0] = base;
			ram[regions][1] = size;
			regions++;
		}
	}
	if (!regions)
		panic("dtb: no /memory node with a reg property: cannot map RAM");
	/* Checked before the table changes: the provisional map still holds the image for the panic. */
	if (!covered(ram, regions, (uintptr_t)_image_start, (uintptr_t)_end))
		panic("dtb: /memory does not cover the kernel image at %p-%p",
		      (void *)_image_start, (void *)_end);
	/*
	 * Each entry goes straight to its final value: the image's and the
	 * DTB's sections are Normal before and after, the rest is not in use.
	 */
	for (uint32_t i = 0; i < NR_SECTIONS; i++) {
		uint64_t a = (uint64_t)i << SECTION_SHIFT;
		bool normal = false;

		for (int r = 0; r < regions && !normal; r++)
			normal = a + (1u << SECTION_SHIFT) > ram[r][0] && a < ram[r][0] + ram[r][1];
		if (dtb_size && a + (1u << SECTION_SHIFT) > dtb_base && a < (uint64_t)dtb_base + dtb_size)
			normal = true;
		l1_table[i] = (uint32_t)a | (normal ? SECT_NORMAL : SECT_DEVICE);
	}
	for (int r = 0; r < regions; r++)
		ram_bytes += map_normal(ram[r][0], ram[r][1]);
	/* Stack overflows hit a guard page and fault instead of corrupting memory. */
	for (int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		guard_page((uintptr_t)svc_stacks + (uintptr_t)cpu * SVC_STACK_SLOT);
	/* The secondaries' first table walks read memory, not this CPU's cache; this CPU forgets the old entries. */
	dcache_clean_range(l1_table, sizeof(l1_table));
	dcache_clean_range(l2_tables, sizeof(l2_tables));
	write_tlbiall(0);
	dsb();
	isb();
}

/*
 * The kernel's guard pages (include/arch/mm.h: the task stacks', from
 * sched_init()), with the MMU already on and no other CPU running: the
 * changed entries go to the point of coherency, for the secondaries' first
 * table walks, and this CPU's TLB forgets the section they replace. The
 * switch from a section to a page table maps every other page the same
 * way, so accesses racing with it see the same memory.
 */
void arch_guard_page(uintptr_t addr)
{
	uint32_t *l1 = &l1_table[addr >> SECTION_SHIFT];

	KASSERT((addr & (ARCH_PAGE_SIZE - 1)) == 0);
	guard_page(addr);
	dcache_clean_range(l1, sizeof(*l1));
	dcache_clean_range((const void *)(uintptr_t)(*l1 & ~0x3ffu), L2_ENTRIES * sizeof(uint32_t));
	write_tlbiall(0);
	dsb();
	isb();
}

unsigned mmu_nr_guard_pages(void)
{
	return nr_guards;
}

bool mmu_is_cpu_stack_guard(uintptr_t addr, int *cpu)
{
	uintptr_t base = (uintptr_t)svc_stacks;

	if (addr < base || addr >= base + (uintptr_t)CONFIG_NR_CPUS * SVC_STACK_SLOT ||
	    (addr - base) % SVC_STACK_SLOT >= STACK_GUARD_SIZE)
		return false;
	*cpu = (int)((addr - base) / SVC_STACK_SLOT);
	return true;
}

bool mmu_is_ram(uintptr_t addr, uint32_t len)
{
	uint64_t end = (uint64_t)addr + len;

	for (uint64_t a = addr & ~0xfffull; a < end; a += 4096) {
		uint32_t l1;

		if (a >= (1ull << 32))
			return false;
		l1 = l1_table[a >> SECTION_SHIFT];
		if ((l1 & 3u) == SECT) {
			if (l1 & SECT_XN)
				return false;
		} else if ((l1 & 3u) == L1_COARSE) {
			const uint32_t *l2 = (const uint32_t *)(uintptr_t)(l1 & ~0x3ffu);

			if (!(l2[(a >> 12) & 0xff] & PAGE_SMALL))
				return false;	/* a guard page */
		} else {
			return false;
		}
	}
	return true;
}

uint64_t mmu_ram_bytes(void)
{
	return ram_bytes;
}

void mmu_enable(void)
{
	uint32_t actlr, sctlr;

	write_tlbiall(0);
	write_bpiall(0);
	write_iciallu(0);
	dsb();
	isb();
	write_ttbcr(0);
	write_ttbr0((uint32_t)(uintptr_t)l1_table | TTBR_FLAGS_SMP);
	write_dacr(0x55555555);		/* every domain: client */
	isb();
	/* Join coherency before caching anything (A9 and A15/A7: ACTLR.SMP). */
	actlr = read_actlr();
	if (!(actlr & ACTLR_SMP))
		write_actlr(actlr | ACTLR_SMP);
	isb();
	sctlr = read_sctlr();
	sctlr &= ~(SCTLR_A | SCTLR_TRE | SCTLR_AFE | SCTLR_V);
	sctlr |= SCTLR_M | SCTLR_C | SCTLR_I | SCTLR_Z;
	dsb();
	write_sctlr(sctlr);
	isb();
}

void dcache_clean_range(const void *start, unsigned long len)
{
	uint32_t line = 4u << ((read_ctr() >> 16) & 0xf);	/* DminLine */
	uintptr_t a = (uintptr_t)start & ~(uintptr_t)(line - 1);
	uintptr_t end = (uintptr_t)start + len;

	for (; a < end; a += line)
		write_dccmvac((uint32_t)a);
	dsb();
}

/*
 * Clean+invalidate the data caches by set/way (Linux v7_flush_dcache_all /
 * _louis, arch/arm/mm/cache-v7.S; ARM ARM B4.2.1 CLIDR, CCSIDR, CSSELR,
 * DCCISW), optionally leaving coherency around it (Linux
 * v7_exit_coherency_flush(louis | all), arch/arm/include/asm/cacheflush.h):
 *   SCTLR &= ~@sctlr_clear (C: no new allocations), isb;
 *   for each data/unified level below @levels2 / 2: DCCISW every set and way;
 *   ACTLR &= ~@actlr_clear (SMP: leave coherency), isb, dsb.
 * One asm block with no memory accesses between clearing C and the end of
 * the flush: a stack store there would go to memory under a dirty line.
 */
static inline __attribute__((always_inline)) void setway_flush(uint32_t levels2, uint32_t sctlr_clear,
							       uint32_t actlr_clear)
{
	uint32_t tmp, clidr, lvl, lshift, way, wshift, nsets, set, op;

	__asm__ volatile(
		"mrc	p15, 0, %[tmp], c1, c0, 0\n\t"		/* SCTLR */
		"bic	%[tmp], %[tmp], %[sc]\n\t"
		"mcr	p15, 0, %[tmp], c1, c0, 0\n\t"
		"isb\n\t"
		"dmb\n\t"
		"mrc	p15, 1, %[clidr], c0, c0, 1\n\t"	/* CLIDR */
		"cmp	%[lim], #0\n\t"
		"beq	5f\n\t"
		"mov	%[lvl], #0\n"				/* level * 2, as CSSELR wants it */
		"1:\n\t"
		"add	%[tmp], %[lvl], %[lvl], lsr #1\n\t"	/* level * 3 */
		"lsr	%[tmp], %[clidr], %[tmp]\n\t"
		"and	%[tmp], %[tmp], #7\n\t"			/* Ctype<level> */
		"cmp	%[tmp], #2\n\t"
		"blt	4f\n\t"					/* no cache or I-cache only */
		"mcr	p15, 2, %[lvl], c0, c0, 0\n\t"		/* CSSELR: data/unified, this level */
		"isb\n\t"
		"mrc	p15, 1, %[tmp], c0, c0, 0\n\t"		/* CCSIDR */
		"and	%[lshift], %[tmp], #7\n\t"
		"add	%[lshift], %[lshift], #4\n\t"		/* log2(line bytes) */
		"movw	%[way], #0x3ff\n\t"
		"ands	%[way], %[way], %[tmp], lsr #3\n\t"	/* associativity - 1 */
		"clz	%[wshift], %[way]\n\t"			/* way field position */
		"movw	%[nsets], #0x7fff\n\t"
		"and	%[nsets], %[nsets], %[tmp], lsr #13\n"	/* sets - 1 */
		"2:\n\t"
		"mov	%[set], %[nsets]\n"
		"3:\n\t"
		"orr	%[op], %[lvl], %[way], lsl %[wshift]\n\t"
		"orr	%[op], %[op], %[set], lsl %[lshift]\n\t"
		"mcr	p15, 0, %[op], c7, c14, 2\n\t"		/* DCCISW */
		"subs	%[set], %[set], #1\n\t"
		"bge	3b\n\t"
		"subs	%[way], %[way], #1\n\t"
		"bge	2b\n"
		"4:\n\t"
		"add	%[lvl], %[lvl], #2\n\t"
		"cmp	%[lim], %[lvl]\n\t"
		"bgt	1b\n"
		"5:\n\t"
		"mov	%[tmp], #0\n\t"
		"mcr	p15, 2, %[tmp], c0, c0, 0\n\t"		/* CSSELR back to L1 */
		"dsb\n\t"
		"isb\n\t"
		"mrc	p15, 0, %[tmp], c1, c0, 1\n\t"		/* ACTLR */
		"bic	%[tmp], %[tmp], %[ac]\n\t"
		"mcr	p15, 0, %[tmp], c1, c0, 1\n\t"
		"isb\n\t"
		"dsb"
		: [tmp] "=&r"(tmp), [clidr] "=&r"(clidr), [lvl] "=&r"(lvl),
		  [lshift] "=&r"(lshift), [way] "=&r"(way), [wshift] "=&r"(wshift),
		  [nsets] "=&r"(nsets), [set] "=&r"(set), [op] "=&r"(op)
		: [lim] "r"(levels2), [sc] "r"(sctlr_clear), [ac] "r"(actlr_clear)
		: "cc", "memory");
}

/*
 * The levels to flush come from CLIDR and MIDR, read before SCTLR.C goes
 * off (registers only: no memory access): include/arch/cache_levels.h,
 * which also applies Cortex-A9 erratum 643719 (LoUIS reads 0 on r0pX).
 */
void cpu_exit_coherency_flush(bool all)
{
	setway_flush(v7_flush_levels2(read_clidr(), read_midr(), all), SCTLR_C, ACTLR_SMP);
}

void dcache_flush_all(void)
{
	setway_flush(v7_flush_levels2(read_clidr(), read_midr(), true), 0, 0);
}
