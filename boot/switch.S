/*
 * arch_context_switch(prev, next): save callee-saved registers, sp, the
 * return address and the VFP state of the running task into *prev, load
 * *next's and return into it. Layout: include/arch/context.h.
 *
 * Unwind tables: arch_context_switch is a leaf until it loads next's sp
 * and lr (the default entry: return to lr); arch_task_start is .cantunwind,
 * the bottom of every task's stack for the backtraces of boot/backtrace.c.
 */
	.arm
	.syntax unified
	.text
	.global arch_context_switch
arch_context_switch:
	.fnstart
	stmia	r0, {r4-r11}
	str	sp, [r0, #32]
	str	lr, [r0, #36]
	vmrs	r2, fpscr
	str	r2, [r0, #40]
	add	r2, r0, #48
	vstmia	r2, {d0-d15}

	ldmia	r1, {r4-r11}
	ldr	sp, [r1, #32]
	ldr	lr, [r1, #36]
	ldr	r2, [r1, #40]
	vmsr	fpscr, r2
	add	r2, r1, #48
	vldmia	r2, {d0-d15}
	bx	lr
	.fnend

/*
 * A new task's first instructions (arch_context_init() puts its entry in
 * r4): a call, so that the entry's saved lr points here, where unwinding
 * stops. The entry never returns.
 */
	.global arch_task_start
arch_task_start:
	.fnstart
	.cantunwind
	blx	r4
	udf	#0
	.fnend
