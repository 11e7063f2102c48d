/*
 * Reset entry, secondary entry, exception vectors and low-level exception
 * entry/exit for ARMv7-A.
 *
 * Boot protocol (Linux/U-Boot bootz): CPU0 enters _start in SVC (or HYP, which
 * we leave) with MMU and D-cache off, r2 = DTB address. Secondaries enter
 * secondary_entry with MMU off; they find their logical number by looking
 * their MPIDR up in boot_cpu_hwid[] (cleaned to PoC by CPU0 before release).
 *
 * Exceptions: IRQs are handled on the interrupted context's SVC stack (SRS
 * to SVC mode), so a preempted task's frame lives on its own stack. Aborts,
 * undefined instructions, SVC and FIQ use small per-CPU mode stacks and build
 * a struct trap_frame (boot/trap.h) for the C handler, which may resume.
 *
 * Unwind tables (.fnstart/.fnend; boot/backtrace.c): entry points and the
 * exception vectors are .cantunwind, so a backtrace ends there instead of
 * reading their stacks as a caller's frame; leaf helpers that keep lr and
 * sp return to lr (the default entry).
 */
#include "boot/asm.h"

	.arm
	.syntax unified
	.arch_extension virt
	.arch_extension sec

	.section .text.head, "ax"
	.global _start
_start:
	.fnstart
	.cantunwind
	b	reset
	.fnend
	.rept	8
	mov	r0, r0
	.endr
	.word	0x016f2818		/* 0x24: zImage magic (for bootz) */
	.word	_image_start		/* 0x28: load/run address */
	.word	_image_end		/* 0x2c: end of image */
	.word	0x04030201		/* 0x30: little-endian marker */

	.section .text.boot, "ax"
reset:
	.fnstart
	.cantunwind
	cpsid	aif
	mrs	r11, cpsr		/* the entry mode, for boot_entry_cpsr (after .bss is cleared) */
	bl	leave_hyp
	mov	r10, r2			/* DTB pointer */
	bl	mmu_caches_off
	ldr	r4, =vectors
	mcr	p15, 0, r4, c12, c0, 0	/* VBAR */
	/* Clear .bss up to _end (page tables and stacks included). */
	ldr	r0, =__bss_start
	ldr	r1, =_end
	mov	r2, #0
1:	cmp	r0, r1
	strlo	r2, [r0], #4
	blo	1b
	ldr	r0, =boot_entry_cpsr	/* D-cache off: the store reaches memory */
	str	r11, [r0]
	mov	r0, #0
	bl	setup_cpu_stacks
	mov	r0, #0
	mcr	p15, 0, r0, c13, c0, 4	/* TPIDRPRW = logical CPU 0 */
	bl	fpu_enable
	bl	v7_invalidate_l1
	mov	r0, r10
	bl	boot_main
	b	cpu_park
	.fnend

	.global secondary_entry
secondary_entry:
	.fnstart
	.cantunwind
	cpsid	aif
	bl	leave_hyp
	bl	mmu_caches_off
	ldr	r4, =vectors
	mcr	p15, 0, r4, c12, c0, 0
	logical_cpu_or_park r8, r4, r5, r6
	mov	r0, r8
	bl	setup_cpu_stacks
	mcr	p15, 0, r8, c13, c0, 4
	bl	fpu_enable
	bl	v7_invalidate_l1
	mov	r0, r8
	bl	secondary_main
	.fnend
	/* fall through */
/*
 * A CPU the DT does not list (QEMU -smp above the DT's count, or a DT that
 * names other MPIDRs): silence its GIC CPU interface, or the SGI that
 * released it keeps every WFI returning at once (a spinning vCPU steals
 * icount time from the others). MMU off: boot_gicc_phys is read from RAM.
 */
	.global stray_cpu_park
stray_cpu_park:
	.fnstart
	.cantunwind
	cpsid	aif
	ldr	r0, =boot_gicc_phys
	ldr	r0, [r0]
	cmp	r0, #0
	beq	cpu_park
1:	ldr	r1, [r0, #0x0c]			/* GICC_IAR */
	ubfx	r2, r1, #0, #10
	cmp	r2, #1020			/* 1020-1023: nothing pending */
	bhs	2f
	str	r1, [r0, #0x10]			/* GICC_EOIR */
	b	1b
2:	mov	r1, #0
	str	r1, [r0]			/* GICC_CTLR: signal nothing more to this core */
	dsb
	b	cpu_park
	.fnend

	.global cpu_park
cpu_park:
	.fnstart
	.cantunwind
	cpsid	if
1:	wfi
	b	1b
	.fnend

/*
 * If entered in HYP mode (U-Boot with non-secure boot), drop to SVC. Also
 * used by cpu_resume. As Linux's hyp-stub (arch/arm/kernel/hyp-stub.S,
 * __hyp_stub_install_secondary) it first gives PL1 the physical counter
 * and timer (CNTHCTL.PL1PCTEN | PL1PCEN, ARM ARM B4.1.26) - otherwise a
 * CNTPCT read or CNTP_* access at PL1 traps to HYP, where nothing handles
 * it - and zeroes CNTVOFF so the virtual counter equals the physical one.
 * Only with the generic timer (ID_PFR1[19:16]); every core with HYP has it.
 * Clobbers r4, r5.
 */
	.global leave_hyp
leave_hyp:
	.fnstart
	mrs	r4, cpsr
	and	r5, r4, #MODE_MASK
	cmp	r5, #MODE_HYP
	bxne	lr
	mrc	p15, 0, r5, c0, c1, 1	/* ID_PFR1 */
	tst	r5, #0x000f0000		/* GenTimer */
	beq	1f
	mrc	p15, 4, r5, c14, c1, 0	/* CNTHCTL */
	orr	r5, r5, #3		/* PL1PCTEN | PL1PCEN */
	mcr	p15, 4, r5, c14, c1, 0
	mov	r5, #0
	mcrr	p15, 4, r5, r5, c14	/* CNTVOFF = 0 */
	isb
1:	bic	r4, r4, #MODE_MASK
	orr	r4, r4, #(MODE_SVC | PSR_I | PSR_F)
	orr	r4, r4, #PSR_A
	msr	spsr_cxsf, r4		/* Hyp's own SPSR: the banked SPSR_hyp form is UNPREDICTABLE from Hyp (ARM ARM B9.3.12) */
	msr	elr_hyp, lr
	eret
	.fnend

/* MMU and D-cache off (the protocol says so; be sure). I-cache may stay. Clobbers r4. */
	.global mmu_caches_off
mmu_caches_off:
	.fnstart
	mrc	p15, 0, r4, c1, c0, 0
	bic	r4, r4, #(SCTLR_M | SCTLR_C)
	mcr	p15, 0, r4, c1, c0, 0
	isb
	bx	lr
	.fnend

/* r0 = logical CPU. Sets SP of IRQ, ABT, UND, FIQ and SVC. Clobbers r1-r3. */
.macro set_mode_sp mode, base, size
	cps	#\mode
	ldr	r1, =\base
	add	r2, r0, #1
	ldr	r3, =\size
	mla	sp, r2, r3, r1
.endm
	.global setup_cpu_stacks
setup_cpu_stacks:
	.fnstart
	.cantunwind			/* switches modes: lr and sp are not the caller's */
	set_mode_sp MODE_IRQ, irq_stacks, EXC_STACK_SIZE
	set_mode_sp MODE_ABT, abt_stacks, EXC_STACK_SIZE
	set_mode_sp MODE_UND, und_stacks, EXC_STACK_SIZE
	set_mode_sp MODE_FIQ, fiq_stacks, EXC_STACK_SIZE
	set_mode_sp MODE_SVC, svc_stacks, SVC_STACK_SLOT
	bx	lr
	.fnend

/* Enable VFP: CP10/CP11 full access, FPEXC.EN. */
fpu_enable:
	.fnstart
	mrc	p15, 0, r0, c1, c0, 2
	orr	r0, r0, #(0xf << 20)
	mcr	p15, 0, r0, c1, c0, 2
	isb
	mov	r0, #0x40000000
	vmsr	fpexc, r0
	bx	lr
	.fnend

/*
 * Invalidate the L1 data cache by set/way (its contents are random after
 * reset on real cores). Clobbers r0-r6.
 */
	.global v7_invalidate_l1
v7_invalidate_l1:
	.fnstart
	mov	r0, #0
	mcr	p15, 2, r0, c0, c0, 0	/* CSSELR: level 1 data */
	isb
	mrc	p15, 1, r0, c0, c0, 0	/* CCSIDR */
	and	r1, r0, #7
	add	r1, r1, #4		/* log2(line bytes) */
	ldr	r3, =0x3ff
	and	r2, r3, r0, lsr #3	/* ways - 1 */
	ldr	r3, =0x7fff
	and	r3, r3, r0, lsr #13	/* sets - 1 */
	clz	r4, r2			/* way field shift */
1:	mov	r5, r3
2:	lsl	r6, r2, r4
	orr	r6, r6, r5, lsl r1
	mcr	p15, 0, r6, c7, c6, 2	/* DCISW */
	subs	r5, r5, #1
	bge	2b
	subs	r2, r2, #1
	bge	1b
	dsb
	isb
	bx	lr
	.fnend

/* ------------------------------------------------------------ vectors */
	.section .text, "ax"
	.align	5
	.global vectors
vectors:
	.fnstart
	.cantunwind
	b	vec_reset
	b	vec_undef
	b	vec_svc
	b	vec_pabt
	b	vec_dabt
	b	vec_reserved
	b	vec_irq
	b	vec_fiq

/*
 * Build a trap_frame on the current mode stack: r0-r12, then the interrupted
 * mode's sp and lr, then pc (lr adjusted by \adj) and cpsr (spsr). Calls
 * trap_handler(frame, \type); resumes at frame->pc if it returns.
 */
.macro trap_entry type, adj
	sub	lr, lr, #\adj
	sub	sp, sp, #TF_SIZE
	stmia	sp, {r0-r12}
	mov	r0, sp
	str	lr, [r0, #TF_PC]
	mrs	r1, spsr
	str	r1, [r0, #TF_CPSR]
	/* Fetch the banked sp/lr of the interrupted mode (USR via SYS). */
	and	r2, r1, #MODE_MASK
	cmp	r2, #MODE_USR
	moveq	r2, #MODE_SYS
	orr	r2, r2, #(PSR_I | PSR_F)
	mrs	r3, cpsr
	msr	cpsr_c, r2
	mov	r4, sp
	mov	r5, lr
	msr	cpsr_c, r3
	str	r4, [r0, #TF_SP]
	str	r5, [r0, #TF_LR]
	mov	r1, #\type
	bl	trap_handler
	b	trap_return
.endm

vec_reset:	trap_entry TRAP_RESET, 0
vec_undef:	trap_entry TRAP_UNDEF, 4
vec_svc:	trap_entry TRAP_SVC, 4
vec_pabt:	trap_entry TRAP_PABT, 4
vec_dabt:	trap_entry TRAP_DABT, 8
vec_reserved:	trap_entry TRAP_RESERVED, 0
vec_fiq:	trap_entry TRAP_FIQ, 4

trap_return:
	ldr	r1, [sp, #TF_CPSR]
	msr	spsr_cxsf, r1
	ldr	lr, [sp, #TF_PC]
	ldmia	sp, {r0-r12}
	add	sp, sp, #TF_SIZE
	movs	pc, lr

/*
 * IRQ: push the return state onto the SVC stack and handle the interrupt in
 * SVC mode, with the stack 8-byte aligned for AAPCS. The handler is C built
 * for the hard-float ABI, which may use the caller-saved VFP registers d0-d7
 * and FPSCR (newlib's memcpy does; GCC stores 64-bit constants through d7):
 * the interrupted code may hold live values there, so they are saved too
 * (`crash vfp` checks it). d8-d15 are callee-saved: C gives them back.
 */
vec_irq:
	sub	lr, lr, #4
	srsdb	sp!, #MODE_SVC
	cps	#MODE_SVC
	push	{r0-r3, r12, lr}
	and	r1, sp, #4
	sub	sp, sp, r1
	vmrs	r2, fpscr
	push	{r1, r2}
	vpush	{d0-d7}
	bl	irq_handler
	vpop	{d0-d7}
	pop	{r1, r2}
	vmsr	fpscr, r2
	add	sp, sp, r1
	pop	{r0-r3, r12, lr}
	rfeia	sp!
	.fnend

/* ------------------------------------------------------------ stacks */
/* ------------------------------------------------------------ data */
	.section .data, "aw"
	.align	2
	.global boot_entry_cpsr
boot_entry_cpsr:	.word	0	/* CPSR at _start (mode: SVC, or HYP; drivers/power_tc2.c) */

	.section .stacks, "aw", %nobits
	.align	12
	.global svc_stacks
svc_stacks:	.space	SVC_STACK_SLOT * CONFIG_NR_CPUS	/* guard page + stack per CPU */
irq_stacks:	.space	EXC_STACK_SIZE * CONFIG_NR_CPUS
abt_stacks:	.space	EXC_STACK_SIZE * CONFIG_NR_CPUS
und_stacks:	.space	EXC_STACK_SIZE * CONFIG_NR_CPUS
fiq_stacks:	.space	EXC_STACK_SIZE * CONFIG_NR_CPUS
