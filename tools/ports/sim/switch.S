/*
 * Host stack switching for the simulator's tasks (tools/ports/sim/sim.h):
 *   void sim_switch(void **save_sp, void *next_sp)
 *     push the callee-saved registers, store sp in *save_sp, load next_sp,
 *     pop its registers and return into it.
 *   void *sim_stack_init(void *stack_top, void (*entry)(void))
 *     a stack that sim_switch() enters by "returning" into entry; entry must
 *     never return.
 * The caller-saved registers need no saving: sim_switch is a call. x86-64
 * System V and AArch64 (AAPCS64) hosts.
 */
#if defined(__x86_64__)
	.text
	.globl	sim_switch
	.type	sim_switch, @function
sim_switch:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size	sim_switch, .-sim_switch

/* The frame sim_switch pops: six registers, then the return address (entry). */
	.globl	sim_stack_init
	.type	sim_stack_init, @function
sim_stack_init:
	movq	%rdi, %rax
	andq	$-16, %rax
	subq	$8, %rax		/* entry starts as if called: rsp + 8 is 16-aligned */
	movq	$0, (%rax)		/* a null return address: backtraces end here */
	subq	$8, %rax
	movq	%rsi, (%rax)		/* sim_switch's ret goes to entry */
	subq	$48, %rax		/* rbp rbx r12 r13 r14 r15 */
	movq	$0, 0(%rax)
	movq	$0, 8(%rax)
	movq	$0, 16(%rax)
	movq	$0, 24(%rax)
	movq	$0, 32(%rax)
	movq	$0, 40(%rax)
	ret
	.size	sim_stack_init, .-sim_stack_init
	.section .note.GNU-stack,"",@progbits

#elif defined(__aarch64__)
	.text
	.globl	sim_switch
	.type	sim_switch, %function
sim_switch:
	sub	sp, sp, #160
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mov	x2, sp
	str	x2, [x0]
	mov	sp, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #160
	ret
	.size	sim_switch, .-sim_switch

	.globl	sim_stack_init
	.type	sim_stack_init, %function
sim_stack_init:
	and	x0, x0, #~15
	sub	x0, x0, #160
	mov	x2, x0
	add	x3, x0, #160
1:	stp	xzr, xzr, [x2], #16
	cmp	x2, x3
	b.lo	1b
	str	x1, [x0, #88]		/* x30: sim_switch returns to entry */
	ret
	.size	sim_stack_init, .-sim_stack_init
	.section .note.GNU-stack,"",@progbits
#else
#error "schedsim: no stack switch for this host architecture"
#endif
