/*
 * cpu_suspend / cpu_resume / cpu_soft_restart: see include/arch/suspend.h.
 *
 * The kernel runs on a flat identity map (boot/mmu.h), so the physical
 * address of cpu_resume and of every save area is its link address, and
 * turning the MMU on or off does not move the PC.
 *
 * cpu_resume touches memory only by reads until the MMU and caches are on
 * (except through the optional early hook, which runs on the saved stack
 * below the saved frame): with caches off a store would go around lines the
 * L2 may still hold (a CPU-only power-down keeps the cluster's L2).
 */
#include "boot/asm.h"

	.arm
	.syntax unified
	.arch_extension virt
	.arch_extension sec
	.fpu	vfpv3-d16

	.text

/* r0 = arg, r1 = fn. */
	.global cpu_suspend
cpu_suspend:
	.fnstart
	push	{r4-r12, lr}			/* 10 words: the stack stays 8-byte aligned */
	.save	{r4-r12, lr}			/* unwinds a fault in fn to cpu_suspend's caller */
	mrc	p15, 0, r2, c13, c0, 4		/* TPIDRPRW: logical CPU */
	ldr	r3, =suspend_ctx
	add	r3, r3, r2, lsl #CTX_SHIFT
	mrs	r4, cpsr
	str	r4, [r3, #CTX_CPSR]
	mrc	p15, 0, r4, c1, c0, 0
	str	r4, [r3, #CTX_SCTLR]
	mrc	p15, 0, r4, c1, c0, 1
	str	r4, [r3, #CTX_ACTLR]
	mrc	p15, 0, r4, c2, c0, 0
	str	r4, [r3, #CTX_TTBR0]
	mrc	p15, 0, r4, c2, c0, 1
	str	r4, [r3, #CTX_TTBR1]
	mrc	p15, 0, r4, c2, c0, 2
	str	r4, [r3, #CTX_TTBCR]
	mrc	p15, 0, r4, c3, c0, 0
	str	r4, [r3, #CTX_DACR]
	mrc	p15, 0, r4, c13, c0, 1
	str	r4, [r3, #CTX_CONTEXTIDR]
	mrc	p15, 0, r4, c13, c0, 2
	str	r4, [r3, #CTX_TPIDRURW]
	mrc	p15, 0, r4, c13, c0, 3
	str	r4, [r3, #CTX_TPIDRURO]
	str	r2, [r3, #CTX_TPIDRPRW]
	mrc	p15, 0, r4, c12, c0, 0
	str	r4, [r3, #CTX_VBAR]
	mrc	p15, 0, r4, c1, c0, 2
	str	r4, [r3, #CTX_CPACR]
	vmrs	r4, fpexc
	str	r4, [r3, #CTX_FPEXC]
	vmrs	r4, fpscr
	str	r4, [r3, #CTX_FPSCR]
	add	r4, r3, #CTX_D8
	vstmia	r4, {d8-d15}
	str	sp, [r3, #CTX_SP]		/* last: a non-zero SP marks the area valid */
	/* cpu_resume reads the area with caches off; the frame is read after the MMU is on. */
	mov	r5, r0
	mov	r6, r1
	mov	r7, r3
	mov	r0, r3
	mov	r1, #CTX_SIZE
	bl	dcache_clean_range
	mov	r0, sp
	mov	r1, #40
	bl	dcache_clean_range
	mov	r0, r5
	blx	r6
	/* fn returned: the power-down did not happen. Invalidate the area, return non-zero. */
	mov	r1, #0
	str	r1, [r7, #CTX_SP]
	cmp	r0, #0
	moveq	r0, #1
	pop	{r4-r12, pc}
	.fnend

	.global cpu_resume
cpu_resume:
	.fnstart
	.cantunwind				/* entered from reset; calls the early hook */
	cpsid	aif
	bl	leave_hyp
	bl	mmu_caches_off
	/* This CPU's logical number, as secondary_entry finds it. */
	logical_cpu_or_park r8, r4, r5, r6
	ldr	r9, =suspend_ctx
	add	r9, r9, r8, lsl #CTX_SHIFT
	/* Caches off: invalidate this area's lines so the load reads memory, not a stale line. */
	mcr	p15, 0, r9, c7, c6, 1		/* DCIMVAC (no-op if the line is absent) */
	dsb
	ldr	r0, [r9, #CTX_SP]
	cmp	r0, #0
	beq	cpu_park			/* nothing saved: a stray warm reset */
	bl	v7_invalidate_l1		/* random after a real power-up (A9); clean here anyway */
	/*
	 * Before any C code (the early hook): vectors, CPU identity, and VFP on
	 * (hard-float code may use it; a reset leaves it off).
	 */
	ldr	r0, [r9, #CTX_VBAR]
	mcr	p15, 0, r0, c12, c0, 0
	ldr	r0, [r9, #CTX_TPIDRPRW]
	mcr	p15, 0, r0, c13, c0, 4
	ldr	r0, [r9, #CTX_CPACR]
	mcr	p15, 0, r0, c1, c0, 2
	isb
	ldr	r0, [r9, #CTX_FPEXC]
	vmsr	fpexc, r0
	ldr	r0, [r9, #CTX_FPSCR]
	vmsr	fpscr, r0
	ldr	sp, [r9, #CTX_SP]
	ldr	r1, =resume_early_hook
	ldr	r1, [r1]
	cmp	r1, #0
	movne	r0, r8
	blxne	r1

	/* Translation as it was: the flat map (boot/mmu.c) is still in memory. */
	mov	r0, #0
	mcr	p15, 0, r0, c8, c7, 0		/* TLBIALL */
	mcr	p15, 0, r0, c7, c5, 6		/* BPIALL */
	mcr	p15, 0, r0, c7, c5, 0		/* ICIALLU */
	dsb
	isb
	ldr	r0, [r9, #CTX_TTBCR]
	mcr	p15, 0, r0, c2, c0, 2
	ldr	r0, [r9, #CTX_TTBR0]
	mcr	p15, 0, r0, c2, c0, 0
	ldr	r0, [r9, #CTX_TTBR1]
	mcr	p15, 0, r0, c2, c0, 1
	ldr	r0, [r9, #CTX_DACR]
	mcr	p15, 0, r0, c3, c0, 0
	ldr	r0, [r9, #CTX_CONTEXTIDR]
	mcr	p15, 0, r0, c13, c0, 1
	isb
	/* Join coherency (ACTLR.SMP) before the D-cache is on, as mmu_enable() does. */
	mrc	p15, 0, r1, c1, c0, 1
	ldr	r0, [r9, #CTX_ACTLR]
	cmp	r0, r1
	mcrne	p15, 0, r0, c1, c0, 1
	isb
	ldr	r0, [r9, #CTX_SCTLR]
	dsb
	mcr	p15, 0, r0, c1, c0, 0		/* MMU, caches, as saved */
	isb

	/* MMU on. Mode stacks, user thread IDs, the callee-saved VFP registers. */
	mov	r0, r8
	bl	setup_cpu_stacks		/* ends in SVC; clobbers r1-r3 */
	ldr	r0, [r9, #CTX_TPIDRURW]
	mcr	p15, 0, r0, c13, c0, 2
	ldr	r0, [r9, #CTX_TPIDRURO]
	mcr	p15, 0, r0, c13, c0, 3
	add	r0, r9, #CTX_D8
	vldmia	r0, {d8-d15}
	ldr	sp, [r9, #CTX_SP]
	mov	r0, #0
	str	r0, [r9, #CTX_SP]		/* used up: a second warm reset parks */
	ldr	r1, [r9, #CTX_CPSR]
	msr	cpsr_cx, r1			/* mode, mask bits as at cpu_suspend */
	pop	{r4-r12, pc}			/* r0 = 0: cpu_suspend returns 0 */
	.fnend

/* r0 = entry (physical). */
	.global cpu_soft_restart
cpu_soft_restart:
	.fnstart
	.cantunwind
	cpsid	aif
	mov	r10, r0
	mov	r0, #1
	bl	cpu_exit_coherency_flush	/* SCTLR.C off, clean+invalidate to LoC, ACTLR.SMP off */
	mrc	p15, 0, r0, c1, c0, 0
	bic	r0, r0, #(SCTLR_M | SCTLR_C)
	mcr	p15, 0, r0, c1, c0, 0		/* MMU off: the PC does not move (flat map) */
	isb
	mov	r0, #0
	mcr	p15, 0, r0, c8, c7, 0		/* TLBIALL */
	mcr	p15, 0, r0, c7, c5, 0		/* ICIALLU */
	dsb
	isb
	/* What a power cycle loses. */
	ldr	r1, =0xdead0000
	vmov	d8, r1, r1
	vmov	d9, r1, r1
	vmov	d15, r1, r1
	vmsr	fpscr, r0
	vmsr	fpexc, r0			/* VFP off */
	mcr	p15, 0, r0, c2, c0, 0		/* TTBR0 */
	mcr	p15, 0, r0, c2, c0, 2		/* TTBCR */
	mcr	p15, 0, r0, c3, c0, 0		/* DACR: no access */
	mcr	p15, 0, r0, c12, c0, 0		/* VBAR */
	mcr	p15, 0, r0, c13, c0, 1		/* CONTEXTIDR */
	mvn	r2, #0
	mcr	p15, 0, r2, c13, c0, 4		/* TPIDRPRW */
	mcr	p15, 0, r2, c13, c0, 3		/* TPIDRURO: this_rq() (include/arch/cpu.h) */
	isb
	mov	r0, r1
	mov	r2, r1
	mov	r3, r1
	mov	r4, r1
	mov	r5, r1
	mov	r6, r1
	mov	r7, r1
	mov	r8, r1
	mov	r9, r1
	mov	r11, r1
	mov	r12, r1
	mov	sp, r1
	mov	lr, r1
	bx	r10
	.ltorg
	.fnend
