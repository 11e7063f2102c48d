/*
 * Memory barriers for SMP protocols in the portable core (seqcounts, flags).
 * ARM: DMB ISH (inner shareable); host: C11 fences.
 */
#ifndef ARCH_BARRIER_H
#define ARCH_BARRIER_H

#ifdef __arm__
#define smp_mb()  __asm__ volatile("dmb ish" ::: "memory")
#define smp_rmb() __asm__ volatile("dmb ish" ::: "memory")
#define smp_wmb() __asm__ volatile("dmb ishst" ::: "memory")
#else
#define smp_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif

#define barrier() __asm__ volatile("" ::: "memory")

/*
 * In a spin-wait loop: tell the CPU (and an emulator running vCPUs in
 * turn) that we are waiting on another CPU, so that one gets to run.
 * QEMU's round-robin TCG otherwise lets the spinner run its whole slice.
 */
#ifdef __arm__
#define cpu_relax() __asm__ volatile("yield" ::: "memory")
#else
#define cpu_relax() barrier()
#endif
/*
 * @var's value becomes opaque to the compiler (Linux's OPTIMIZER_HIDE_VAR()):
 * it is kept in a register or spilled, never recomputed. For an address
 * such as &runqueues[cpu], which GCC otherwise rebuilds (a multiply-add,
 * two instructions) at use after use of a long function.
 */
#define OPTIMIZER_HIDE_VAR(var) __asm__("" : "+r"(var))
#define READ_ONCE(x)     (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif
