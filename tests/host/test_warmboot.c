/*
 * The portable warm-boot logic (drivers/tc2_spc.c, kernel/sched/warmboot.c):
 * - the SPC register sequence against a fake MMIO block that logs every
 *   access: per-CPU resume mailboxes (A15 0x68 + 4n, A7 0x78 + 4n), wake-up
 *   enables in WAKE_INT_MASK (A15 bit n, A7 bit 4 + n, global bits 10-11),
 *   power-down enables (A15 0x30, A7 0x34), read-modify-write leaving other
 *   bits alone, the order (mailbox before wake-up bit, wake-up bit cleared
 *   before the mailbox), the first man keeping the global wake-ups for the
 *   other armed cluster;
 * - error paths: no such mailbox / core, misaligned or zero resume address,
 *   and that a refused call writes nothing;
 * - the "pending timer keeps the cluster on" decision and the idle-state
 *   demotion for a CPU with a pending timer.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "drivers/tc2_spc.h"
#include "kernel/sched/idle.h"
#include "kernel/time/timer.h"
#include "kernel/sched/warmboot.h"

#define NREGS (0x100 / 4)
#define LOG_MAX 64

struct fake_spc {
	uint32_t reg[NREGS];
	struct { bool write; uint32_t off, v; } log[LOG_MAX];
	int n;
};

static uint32_t fake_read(void *ctx, uint32_t off)
{
	struct fake_spc *f = ctx;

	if (f->n < LOG_MAX)
		f->log[f->n++] = (typeof(f->log[0])){ false, off, f->reg[off / 4] };
	return f->reg[off / 4];
}

static void fake_write(void *ctx, uint32_t off, uint32_t v)
{
	struct fake_spc *f = ctx;

	if (f->n < LOG_MAX)
		f->log[f->n++] = (typeof(f->log[0])){ true, off, v };
	f->reg[off / 4] = v;
}

static struct fake_spc spc;
static struct spc_io io = { fake_read, fake_write, &spc };

static void reset(void)
{
	memset(&spc, 0, sizeof(spc));
}

static int writes(void)
{
	int w = 0;

	for (int i = 0; i < spc.n; i++)
		w += spc.log[i].write;
	return w;
}

/* Index in the log of the first write to @off, or -1. */
static int first_write(uint32_t off)
{
	for (int i = 0; i < spc.n; i++)
		if (spc.log[i].write && spc.log[i].off == off)
			return i;
	return -1;
}

#define REG(off) spc.reg[(off) / 4]

KT_CASE(register_map_matches_linux_spc)
{
	KT_ASSERT_EQ(SPC_WAKE_INT_MASK, 0x24);
	KT_ASSERT_EQ(SPC_A15_PWRDN_EN, 0x30);
	KT_ASSERT_EQ(SPC_A7_PWRDN_EN, 0x34);
	KT_ASSERT_EQ(SPC_A15_BX_ADDR0, 0x68);
	KT_ASSERT_EQ(SPC_A7_BX_ADDR0, 0x78);
	KT_ASSERT_EQ(SPC_WAKE_GLOBAL, 0xc00);
	KT_ASSERT_EQ(SPC_WAKE_CPU(true, 1), 0x2);
	KT_ASSERT_EQ(SPC_WAKE_CPU(false, 2), 0x40);
}

KT_CASE(resume_address_per_cpu)
{
	reset();
	KT_ASSERT_EQ(spc_set_resume_addr(&io, true, 0, 0x80010100u), 0);
	KT_ASSERT_EQ(spc_set_resume_addr(&io, true, 1, 0x80010104u), 0);
	KT_ASSERT_EQ(spc_set_resume_addr(&io, false, 0, 0x80010200u), 0);
	KT_ASSERT_EQ(spc_set_resume_addr(&io, false, 2, 0x80010208u), 0);
	KT_ASSERT_EQ(REG(0x68), 0x80010100u);
	KT_ASSERT_EQ(REG(0x6c), 0x80010104u);
	KT_ASSERT_EQ(REG(0x78), 0x80010200u);
	KT_ASSERT_EQ(REG(0x80), 0x80010208u);
	KT_ASSERT_EQ(REG(0x7c), 0);
	/* Mailboxes are plain writes: no read-modify-write. */
	KT_ASSERT_EQ(spc.n, 4);
	KT_ASSERT_EQ(writes(), 4);
}

KT_CASE(resume_address_errors_write_nothing)
{
	reset();
	KT_ASSERT_EQ(spc_set_resume_addr(&io, true, SPC_MAX_CORES, 0x80010000u), SPC_EINVAL);
	KT_ASSERT_EQ(spc_set_resume_addr(&io, false, 7, 0x80010000u), SPC_EINVAL);
	KT_ASSERT_EQ(spc_set_resume_addr(&io, true, 0, 0x80010002u), SPC_EINVAL);
	KT_ASSERT_EQ(spc_cpu_wakeup(&io, false, SPC_MAX_CORES, true), SPC_EINVAL);
	KT_ASSERT_EQ(spc_cpu_down_prepare(&io, true, 0, 0), SPC_EINVAL);	/* no address: nowhere to resume */
	KT_ASSERT_EQ(spc_cpu_down_prepare(&io, true, 5, 0x80010000u), SPC_EINVAL);
	KT_ASSERT_EQ(spc_cpu_down_prepare(&io, false, 0, 0x80010001u), SPC_EINVAL);
	KT_ASSERT_EQ(spc_cpu_up(&io, false, 9), SPC_EINVAL);
	KT_ASSERT_EQ(writes(), 0);
}

KT_CASE(wakeup_enables_read_modify_write)
{
	reset();
	REG(SPC_WAKE_INT_MASK) = 0x80000000u;	/* a bit that is not ours stays */
	KT_ASSERT_EQ(spc_cpu_wakeup(&io, true, 1, true), 0);
	KT_ASSERT_EQ(spc_cpu_wakeup(&io, false, 0, true), 0);
	KT_ASSERT_EQ(spc_cpu_wakeup(&io, false, 2, true), 0);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0x80000000u | 0x2u | 0x10u | 0x40u);
	spc_global_wakeup(&io, true);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0x80000c52u);
	KT_ASSERT_EQ(spc_cpu_wakeup(&io, false, 0, false), 0);
	spc_global_wakeup(&io, false);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0x80000042u);
}

KT_CASE(cpu_down_sets_mailbox_before_wakeup_bit)
{
	reset();
	KT_ASSERT_EQ(spc_cpu_down_prepare(&io, false, 1, 0x80012340u), 0);
	KT_ASSERT_EQ(REG(0x7c), 0x80012340u);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0x20u);
	KT_ASSERT(first_write(0x7c) >= 0 && first_write(SPC_WAKE_INT_MASK) > first_write(0x7c));
	/* No cluster-level register is touched for one CPU. */
	KT_ASSERT_EQ(first_write(SPC_A7_PWRDN_EN), -1);
	KT_ASSERT_EQ(first_write(SPC_A15_PWRDN_EN), -1);

	spc.n = 0;
	KT_ASSERT_EQ(spc_cpu_up(&io, false, 1), 0);
	KT_ASSERT_EQ(REG(0x7c), 0);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0);
	KT_ASSERT(first_write(SPC_WAKE_INT_MASK) >= 0 && first_write(0x7c) > first_write(SPC_WAKE_INT_MASK));
}

KT_CASE(cluster_sequence_last_man_first_man)
{
	reset();
	/* Both A15 cores go down; the second is the last man. */
	KT_ASSERT_EQ(spc_cpu_down_prepare(&io, true, 0, 0x80010000u), 0);
	KT_ASSERT_EQ(spc_cpu_down_prepare(&io, true, 1, 0x80010000u), 0);
	spc_cluster_down_prepare(&io, true);
	KT_ASSERT_EQ(REG(SPC_A15_PWRDN_EN), 1);
	KT_ASSERT_EQ(REG(SPC_A7_PWRDN_EN), 0);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0xc03u);
	/* The global wake-ups before PWRDN_EN: once PWRDN_EN is set the cluster may go. */
	KT_ASSERT(first_write(SPC_A15_PWRDN_EN) > first_write(SPC_WAKE_INT_MASK));

	/* The A7 cluster too; then the A15 first man: the global bits stay for the A7. */
	spc_cluster_down_prepare(&io, false);
	KT_ASSERT_EQ(REG(SPC_A7_PWRDN_EN), 1);
	KT_ASSERT_EQ(spc_cpu_up(&io, true, 1), 0);
	spc_cluster_up(&io, true, true);
	KT_ASSERT_EQ(REG(SPC_A15_PWRDN_EN), 0);
	KT_ASSERT_EQ(REG(SPC_A7_PWRDN_EN), 1);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0xc01u);
	KT_ASSERT_EQ(REG(0x6c), 0);
	KT_ASSERT_EQ(REG(0x68), 0x80010000u);
	/* The A7 first man: nothing armed any more, the global bits go. */
	spc_cluster_up(&io, false, false);
	KT_ASSERT_EQ(REG(SPC_A7_PWRDN_EN), 0);
	KT_ASSERT_EQ(REG(SPC_WAKE_INT_MASK), 0x001u);
}

/* Each CPU's earliest timer, as timers_next_expiry() would say. */
static uint64_t next[5];

static uint64_t next_of(int cpu)
{
	if (cpu < 0 || cpu >= 5) {
		kt_fail(__FILE__, __LINE__, "asked for cpu%d's timers", cpu);
		return 0;
	}
	return next[cpu];
}

KT_CASE(pending_timer_keeps_the_cluster_on)
{
	const cpumask_t a7 = cpumask_from_u32(0x1c), a15 = cpumask_from_u32(0x03), a7_tail = cpumask_from_u32(0x18);
	int blocker = 99;

	for (int i = 0; i < 5; i++)
		next[i] = TIMER_NEVER;
	/* Cluster 1 = CPUs 2-4 (TC2's A7s). */
	KT_ASSERT(warmboot_cluster_may_power_off(&a7, 5, next_of, &blocker));
	KT_ASSERT_EQ(blocker, -1);
	/* A timer on a CPU of the other cluster does not matter. */
	next[0] = 1000;
	KT_ASSERT(warmboot_cluster_may_power_off(&a7, 5, next_of, &blocker));
	KT_ASSERT(!warmboot_cluster_may_power_off(&a15, 5, next_of, &blocker));
	KT_ASSERT_EQ(blocker, 0);
	/* Any pending timer, however far: no broadcast timer would wake the cluster for it. */
	next[3] = UINT64_MAX - 1;
	KT_ASSERT(!warmboot_cluster_may_power_off(&a7, 5, next_of, &blocker));
	KT_ASSERT_EQ(blocker, 3);
	KT_ASSERT(!warmboot_cluster_may_power_off(&a7, 5, next_of, NULL));
	/* CPUs beyond nr_cpus are not read. */
	KT_ASSERT(warmboot_cluster_may_power_off(&a7_tail, 3, next_of, &blocker));
}

KT_CASE(pending_timer_demotes_from_timer_stop_states)
{
	struct idle_state st[4];

	memset(st, 0, sizeof(st));
	/* WFI, a core state that keeps the timer, two that stop it (as TC2's cluster sleep). */
	st[2].timer_stop = st[3].timer_stop = true;
	st[2].domain = st[3].domain = true;
	KT_ASSERT_EQ(warmboot_idle_state_for_timer(st, 3, false), 3);
	KT_ASSERT_EQ(warmboot_idle_state_for_timer(st, 3, true), 1);
	KT_ASSERT_EQ(warmboot_idle_state_for_timer(st, 2, true), 1);
	KT_ASSERT_EQ(warmboot_idle_state_for_timer(st, 1, true), 1);
	KT_ASSERT_EQ(warmboot_idle_state_for_timer(st, 0, true), 0);
	/* Only WFI keeps it: WFI. */
	st[1].timer_stop = true;
	KT_ASSERT_EQ(warmboot_idle_state_for_timer(st, 3, true), 0);
}
