/* Constants shared by the assembly and C sides of boot/. */
#ifndef BOOT_ASM_H
#define BOOT_ASM_H

#define MODE_USR 0x10
#define MODE_FIQ 0x11
#define MODE_IRQ 0x12
#define MODE_SVC 0x13
#define MODE_ABT 0x17
#define MODE_HYP 0x1a
#define MODE_UND 0x1b
#define MODE_SYS 0x1f
#define MODE_MASK 0x1f
#define PSR_F 0x40
#define PSR_I 0x80
#define PSR_A 0x100

#ifdef __ASSEMBLY__
#define SCTLR_M 0x1
#define SCTLR_C 0x4
#define MPIDR_HWID_MASK 0x00ffffff
#endif

#define SVC_STACK_SIZE 16384
#define EXC_STACK_SIZE 1024
/* Each CPU's SVC stack sits above an unmapped guard page: [guard][stack]. */
#define STACK_GUARD_SIZE 4096
#define SVC_STACK_SLOT (SVC_STACK_SIZE + STACK_GUARD_SIZE)

/* struct trap_frame layout (boot/trap.h) */
#define TF_SP 52
#define TF_LR 56
#define TF_PC 60
#define TF_CPSR 64
#define TF_SIZE 72	/* 17 words + pad: keeps the C handler's stack 8-aligned */

#define TRAP_RESET 0
#define TRAP_UNDEF 1
#define TRAP_SVC 2
#define TRAP_PABT 3
#define TRAP_DABT 4
#define TRAP_RESERVED 5
#define TRAP_FIQ 6

/*
 * struct suspend_ctx layout (include/arch/suspend.h): one per CPU, 128
 * bytes, read by cpu_resume with the MMU and caches off.
 */
#define CTX_SP 0
#define CTX_CPSR 4
#define CTX_SCTLR 8
#define CTX_ACTLR 12
#define CTX_TTBR0 16
#define CTX_TTBR1 20
#define CTX_TTBCR 24
#define CTX_DACR 28
#define CTX_CONTEXTIDR 32
#define CTX_TPIDRURW 36
#define CTX_TPIDRURO 40
#define CTX_TPIDRPRW 44
#define CTX_VBAR 48
#define CTX_CPACR 52
#define CTX_FPEXC 56
#define CTX_FPSCR 60
#define CTX_D8 64	/* d8-d15, the AAPCS callee-saved VFP registers */
#define CTX_SHIFT 7
#define CTX_SIZE (1 << CTX_SHIFT)

#ifdef __ASSEMBLER__
/*
 * \out = this CPU's logical number: its MPIDR's index in boot_cpu_hwid
 * (what smp.c recorded from the DT). A CPU not in the table parks. MMU-off
 * safe: registers and one table only. Used by secondary_entry and cpu_resume.
 */
.macro logical_cpu_or_park out, t0, t1, t2
	mrc	p15, 0, \t0, c0, c0, 5		/* MPIDR */
	ldr	\t1, =MPIDR_HWID_MASK
	and	\t0, \t0, \t1
	ldr	\t1, =boot_cpu_hwid
	mov	\out, #0
.Lcpu_next\@:
	ldr	\t2, [\t1, \out, lsl #2]
	cmp	\t2, \t0
	beq	.Lcpu_found\@
	add	\out, \out, #1
	cmp	\out, #CONFIG_NR_CPUS
	blo	.Lcpu_next\@
	b	stray_cpu_park		/* not a CPU we know: stay out of the way */
.Lcpu_found\@:
.endm
#endif

#endif
