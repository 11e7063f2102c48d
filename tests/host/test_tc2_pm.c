/*
 * The TC2 power path's portable part (drivers/tc2_pm.c) without a board:
 * - the probe (tc2_pm_init) against fake MMIO (SCC, CCI-400, SPC) and DTs:
 *   the CCI port from the cpu nodes' cci-control-port, from the CCI's
 *   slave-interface children (the board's tc2.dtb) and from the documented
 *   TC2 wiring (a CCI node with no children), the SCC's cluster IDs, rails
 *   that are not whole clusters;
 * - a port the firmware left off: enabled at probe (and read back); a CCI
 *   that ignores the write (non-secure) or never applies it (timeout):
 *   the probe fails with the reason and marks the cluster's port off;
 * - the port disable on the way down failing (timeout, ignored): the last
 *   man backs out - port on again, cluster UP, no WFI, SPC disarmed;
 * - the up/down race protocol on host threads, one per CPU of a cluster,
 *   over a fake CCI and SPC: no CPU ever runs "with caches on" while its
 *   cluster's port is off, the port is off only while every CPU of the
 *   cluster is out of coherency, and the SPC ends disarmed.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "ktest.h"
#include "dtb_file.h"
#include "drivers/tc2_pm.h"
#include "kernel/lib/cpumask.h"
#include "kernel/lib/fdt.h"

#define CCI_BASE 0x2c090000u
#define SCC_BASE 0x7fff0000u
#define CCI_STATUS (CCI_BASE + 0xc)
#define PORT(n) (CCI_BASE + 0x1000u * ((n) + 1))	/* slave interface n */
#define NCPUS 5

/* ------------------------------------------------------------ fake hardware */

struct fake_hw {
	uint32_t a15_conf, a7_conf;		/* SCC 0x400 / 0x500 */
	uint32_t port[5];			/* CCI slave interfaces 0-4, Snoop Control */
	bool ignore_writes;			/* non-secure: control writes ignored */
	bool stuck_pending;			/* change_pending never clears */
	bool stuck_on_disable_only;		/* ... only after a disable */
	int port_writes;
	uint32_t spc[0x100 / 4];
	uint64_t ticks;
	/* The race test's invariant checks. */
	volatile int coherent[TC2_MAX_CORES];	/* the CPU runs with caches on */
	int race_cluster;
	int violations, disables, enables;
	const char *violation;
};

static struct fake_hw hw;
static pthread_mutex_t hw_lock = PTHREAD_MUTEX_INITIALIZER;	/* guards port[] and the counters */

static int port_index(uintptr_t addr)
{
	for (int n = 0; n < 5; n++)
		if (addr == PORT(n))
			return n;
	return -1;
}

static uint32_t f_read(void *ctx, uintptr_t addr)
{
	int n = port_index(addr);
	uint32_t v = 0;

	(void)ctx;
	pthread_mutex_lock(&hw_lock);
	if (addr == SCC_BASE + 0x400)
		v = hw.a15_conf;
	else if (addr == SCC_BASE + 0x500)
		v = hw.a7_conf;
	else if (addr == CCI_STATUS)
		v = hw.stuck_pending ? 1 : 0;
	else if (n >= 0)
		v = hw.port[n];
	else
		kt_fail(__FILE__, __LINE__, "read of unexpected address 0x%lx", (unsigned long)addr);
	pthread_mutex_unlock(&hw_lock);
	return v;
}

static void f_write(void *ctx, uintptr_t addr, uint32_t v)
{
	int n = port_index(addr);

	(void)ctx;
	pthread_mutex_lock(&hw_lock);
	if (n < 0) {
		kt_fail(__FILE__, __LINE__, "write of unexpected address 0x%lx", (unsigned long)addr);
	} else {
		hw.port_writes++;
		if (hw.stuck_on_disable_only && v == 0)
			hw.stuck_pending = true;
		if (!hw.ignore_writes)
			hw.port[n] = v;
		if (v == 0) {
			hw.disables++;
			/* Off only while every CPU of the cluster is out of coherency. */
			for (int c = 0; c < TC2_MAX_CORES; c++)
				if (n == hw.race_cluster + 3 && hw.coherent[c]) {
					hw.violations++;
					hw.violation = "port disabled while a CPU of its cluster ran coherent";
				}
		} else {
			hw.enables++;
		}
	}
	pthread_mutex_unlock(&hw_lock);
}

/* A counter per thread that moves on each of its reads (1 MHz: 1 tick = 1 us), so timeouts end. */
static _Thread_local uint64_t my_ticks;

static uint64_t f_ticks(void *ctx)
{
	(void)ctx;
	__atomic_add_fetch(&hw.ticks, 1, __ATOMIC_SEQ_CST);
	return ++my_ticks;
}

static void f_sync_write(void *ctx, struct tc2_sync_word *w, uint32_t v)
{
	(void)ctx;
	__atomic_store_n(&w->v, v, __ATOMIC_SEQ_CST);
	if ((v & 1) == 0)
		sched_yield();	/* widen the windows between protocol steps */
}

static uint32_t f_sync_read(void *ctx, struct tc2_sync_word *w)
{
	uint32_t v = __atomic_load_n(&w->v, __ATOMIC_SEQ_CST);

	(void)ctx;
	if (v == TC2_CPU_GOING_DOWN || v == TC2_CLUSTER_GOING_DOWN || v == TC2_CPU_LAST_MAN)
		sched_yield();	/* a waiter: let the CPU it waits for run */
	return v;
}

static void f_flush(void *ctx, struct tc2_down *d, bool all)
{
	(void)ctx;
	(void)d;
	(void)all;
	sched_yield();
}

static const struct tc2_hw fhw = { f_read, f_write, f_ticks, f_sync_write, f_sync_read, f_flush, NULL };

static uint32_t spc_read(void *ctx, uint32_t off)
{
	(void)ctx;
	return __atomic_load_n(&hw.spc[off / 4], __ATOMIC_SEQ_CST);
}

static void spc_write(void *ctx, uint32_t off, uint32_t v)
{
	(void)ctx;
	__atomic_store_n(&hw.spc[off / 4], v, __ATOMIC_SEQ_CST);
}

static const struct spc_io fspc = { spc_read, spc_write, NULL };

static void reset_hw(void)
{
	memset(&hw, 0, sizeof(hw));
	hw.a15_conf = 0;
	hw.a7_conf = 1;
	for (int n = 0; n < 5; n++)
		hw.port[n] = 3;		/* the firmware enabled snoops and DVM */
	hw.race_cluster = -10;
}

/* ------------------------------------------------------------ DT and rails */

static struct dtb dtb;
static struct tc2_cpu_desc cpus[NCPUS];
static struct power_rail rails[2];
static struct tc2_pm pm;

static bool load(const char *path)
{
	static const char *const names[NCPUS] = { "/cpus/cpu@0", "/cpus/cpu@1", "/cpus/cpu@100", "/cpus/cpu@101",
						  "/cpus/cpu@102" };
	static const uint32_t hwid[NCPUS] = { 0x0, 0x1, 0x100, 0x101, 0x102 };
	char why[160];

	if (!dtb_load(path, &dtb, why, sizeof(why))) {
		kt_fail(__FILE__, __LINE__, "%s", why);
		return false;
	}
	for (int i = 0; i < NCPUS; i++) {
		cpus[i].hwid = hwid[i];
		cpus[i].node = fdt_path(&dtb.fdt, names[i]);
		if (cpus[i].node < 0) {
			kt_fail(__FILE__, __LINE__, "%s: no %s", path, names[i]);
			return false;
		}
	}
	memset(rails, 0, sizeof(rails));
	rails[0].cpus = cpumask_from_u32(0x03);	/* the A15s */
	rails[1].cpus = cpumask_from_u32(0x1c);	/* the A7s */
	rails[0].domain_node = rails[1].domain_node = -1;
	return true;
}

static int probe(void)
{
	int scc = fdt_find_compatible(&dtb.fdt, -1, "arm,vexpress-scc");
	int cci = fdt_find_compatible(&dtb.fdt, -1, "arm,cci-400");

	return tc2_pm_init(&pm, &fhw, &fspc, 1000000, &dtb.fdt, scc, cci, cpus, NCPUS, rails, 2);
}

/* ------------------------------------------------------------ probe */

KT_CASE(probe_cci_control_port)
{
	reset_hw();
	if (!load("build/host/dts/tc2-pm-ctrlport.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	KT_ASSERT(pm.clusters[0].valid && pm.clusters[0].a15 && pm.clusters[0].port_on);
	KT_ASSERT(pm.clusters[1].valid && !pm.clusters[1].a15);
	/* The cpu nodes' cci-control-port wins over the wiring: A15 -> S4, A7 -> S3. */
	KT_ASSERT_EQ(pm.clusters[0].cci_port, PORT(4));
	KT_ASSERT_EQ(pm.clusters[0].cci_if, 4);
	KT_ASSERT_EQ(pm.clusters[1].cci_port, PORT(3));
	KT_ASSERT_EQ(pm.clusters[0].cores, 0x3);
	KT_ASSERT_EQ(pm.clusters[1].cores, 0x7);
	KT_ASSERT_EQ(pm.rail_cluster[0], 0);
	KT_ASSERT_EQ(pm.rail_cluster[1], 1);
	KT_ASSERT_EQ(pm.spc_base, SCC_BASE + 0xb00);
	/* Ports already on: nothing written. */
	KT_ASSERT_EQ(hw.port_writes, 0);
	KT_ASSERT(strstr(pm.summary, "cluster 0 (A15) = rail 0, CCI S4 at 0x2c095000") != NULL);
	KT_ASSERT(strstr(pm.summary, "enabled") == NULL);
	/* Protocol words: every CPU of the DT starts UP. */
	KT_ASSERT_EQ(pm.cpu_state[1][2].v, TC2_CPU_UP);
	KT_ASSERT_EQ(pm.cluster_state[0].v, TC2_CLUSTER_UP);
}

KT_CASE(probe_slave_if_children_of_the_board_dt)
{
	reset_hw();
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	/* No cci-control-port in tc2.dts: the children at the TC2 wiring's offsets. */
	KT_ASSERT_EQ(pm.clusters[0].cci_port, PORT(3));
	KT_ASSERT_EQ(pm.clusters[1].cci_port, PORT(4));
}

KT_CASE(probe_fallback_documented_offsets)
{
	reset_hw();
	/* The SCC says the A15s are MPIDR cluster 1 here. */
	hw.a15_conf = 1;
	hw.a7_conf = 0;
	if (!load("build/host/dts/tc2-pm-bare.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	KT_ASSERT(!pm.clusters[0].a15 && pm.clusters[1].a15);
	KT_ASSERT_EQ(pm.clusters[1].cci_port, PORT(3));	/* A15 -> S3 */
	KT_ASSERT_EQ(pm.clusters[0].cci_port, PORT(4));	/* A7 -> S4 */
}

KT_CASE(probe_refuses_what_is_not_a_tc2)
{
	reset_hw();
	hw.a7_conf = 0;	/* both clusters "0" */
	if (!load("build/host/dts/tc2-pm-ctrlport.dtb"))
		return;
	KT_ASSERT_EQ(probe(), -1);
	KT_ASSERT_STREQ(pm.why, "SCC reports A15 cluster 0, A7 cluster 0: not a TC2");
}

KT_CASE(probe_rail_not_a_whole_cluster_stays_modelled)
{
	reset_hw();
	if (!load("build/host/dts/tc2-pm-ctrlport.dtb"))
		return;
	rails[1].cpus = cpumask_from_u32(0x0c);	/* two of the three A7s */
	KT_ASSERT_EQ(probe(), 0);
	KT_ASSERT(pm.clusters[0].valid);
	KT_ASSERT(!pm.clusters[1].valid);
	KT_ASSERT_EQ(pm.rail_cluster[1], -1);
}

KT_CASE(probe_enables_a_port_left_off)
{
	reset_hw();
	hw.port[4] = 0;	/* the A7 cluster's (S4 in tc2.dtb) */
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	KT_ASSERT_EQ(hw.port[4], 3);
	KT_ASSERT(pm.clusters[1].port_on);
	KT_ASSERT(strstr(pm.summary, "cluster 1 (A7) = rail 1, CCI S4 at 0x2c095000 (snoops were off at boot: enabled)"));
}

KT_CASE(probe_port_write_ignored_is_wfi_only)
{
	reset_hw();
	hw.port[3] = 0;
	hw.ignore_writes = true;	/* non-secure, CCI Secure Access Register not set */
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), -1);
	KT_ASSERT(!pm.clusters[0].port_on);
	KT_ASSERT(pm.clusters[1].port_on);
	KT_ASSERT_STREQ(pm.why, "CCI-400 slave interface 3 (cluster 0) was off at boot and enabling it failed: "
				"the write was ignored (non-secure access not granted?)");
}

KT_CASE(probe_port_change_pending_timeout_is_wfi_only)
{
	reset_hw();
	hw.port[4] = 0;
	hw.stuck_pending = true;
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), -1);
	KT_ASSERT(!pm.clusters[1].port_on);
	KT_ASSERT(strstr(pm.why, "slave interface 4 (cluster 1)") && strstr(pm.why, "change_pending did not clear"));
	/* Bounded by the 10 ms timeout at 1 tick per us. */
	KT_ASSERT(hw.ticks >= TC2_CCI_TIMEOUT_US && hw.ticks < 3 * TC2_CCI_TIMEOUT_US);
}

/* ------------------------------------------------------------ way down, port faults */

#define SPC_REG(off) hw.spc[(off) / 4]

static void last_man_with_port_fault(bool ignored)
{
	struct tc2_down d[2];

	reset_hw();
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	pm.spc.ctx = NULL;
	/* cpu1 goes down first (plain), then cpu0 is the last man of the A15 cluster. */
	KT_ASSERT(tc2_pm_down_init(&pm, &d[1], 0x1, true));
	KT_ASSERT(tc2_pm_down(&pm, &d[1], false));
	tc2_pm_rail_down(&pm, 0);
	KT_ASSERT_EQ(SPC_REG(SPC_A15_PWRDN_EN), 1);
	if (ignored)
		hw.ignore_writes = true;
	else
		hw.stuck_on_disable_only = true;
	KT_ASSERT(tc2_pm_down_init(&pm, &d[0], 0x0, true));
	/* Backed out: the caller must not WFI. */
	KT_ASSERT(!tc2_pm_down(&pm, &d[0], true));
	KT_ASSERT(d[0].all);
	KT_ASSERT_EQ(ignored, d[0].cci_off_ignored);
	KT_ASSERT_EQ(!ignored, d[0].cci_off_timeout);
	/* The cluster never went DOWN; the port is (asked to be) on again. */
	KT_ASSERT_EQ(pm.cluster_state[0].v, TC2_CLUSTER_UP);
	KT_ASSERT_EQ(hw.port[3], 3);
	KT_ASSERT_EQ(hw.enables, 1);
	tc2_pm_up_uncached(&pm, &d[0]);
	/* Caches on: the fault is reported and the SPC disarmed. */
	KT_ASSERT(tc2_pm_up_report(&pm, &d[0]));
	KT_ASSERT_EQ(SPC_REG(SPC_A15_PWRDN_EN), 0);
	KT_ASSERT_EQ(SPC_REG(SPC_WAKE_INT_MASK) & SPC_WAKE_GLOBAL, 0);
}

KT_CASE(port_disable_timeout_backs_out)
{
	last_man_with_port_fault(false);
}

KT_CASE(port_disable_ignored_backs_out)
{
	last_man_with_port_fault(true);
}

KT_CASE(last_man_port_off_then_first_man_on)
{
	struct tc2_down d[2];

	reset_hw();
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	KT_ASSERT(tc2_pm_down_init(&pm, &d[1], 0x1, true));
	KT_ASSERT(tc2_pm_down(&pm, &d[1], false));
	KT_ASSERT(!d[1].all);
	KT_ASSERT(tc2_pm_down_init(&pm, &d[0], 0x0, true));
	KT_ASSERT(tc2_pm_down(&pm, &d[0], true));
	KT_ASSERT(d[0].all);
	KT_ASSERT_EQ(hw.port[3], 0);
	KT_ASSERT_EQ(pm.cluster_state[0].v, TC2_CLUSTER_DOWN);
	/* cpu1 wakes first: it turns the port on with its caches off. */
	tc2_pm_up_uncached(&pm, &d[1]);
	KT_ASSERT_EQ(hw.port[3], 3);
	KT_ASSERT_EQ(pm.cluster_state[0].v, TC2_CLUSTER_UP);
	KT_ASSERT(!tc2_pm_up_report(&pm, &d[1]));
	/* A CPU of the other cluster is not a valid descriptor of an unmanaged core. */
	KT_ASSERT(!tc2_pm_down_init(&pm, &d[0], 0x103, false));
}

/* ------------------------------------------------------------ the race */

/*
 * Rounds per thread: RACE_ROUNDS, and more (up to RACE_MAX_ROUNDS) until a
 * last man has taken the cluster all the way down at least once. Whether
 * it does within a number of rounds is the host's scheduling: on a loaded
 * host a first man came up during every last man's path in 400 rounds,
 * and the assertion that the interesting path ran failed. Every thread
 * keeps going while none has: one that stopped would stay up, and no
 * other could be the last man.
 */
#define RACE_ROUNDS 400
#define RACE_MAX_ROUNDS (RACE_ROUNDS * 50)

struct racer {
	int core;
	uint32_t mpidr;
	unsigned int seed;
};

static pthread_mutex_t rail_lock = PTHREAD_MUTEX_INITIALIZER;
static int rail_up_count;
static int race_rail;
static volatile int race_full_downs;

static void *race_cpu(void *arg)
{
	struct racer *r = arg;
	struct tc2_down d;
	int cl = hw.race_cluster;

	for (int round = 0; round < RACE_MAX_ROUNDS; round++) {
		bool last_man;

		if (round >= RACE_ROUNDS && __atomic_load_n(&race_full_downs, __ATOMIC_SEQ_CST) > 0)
			break;

		/* The kernel's rail state machine (kernel/sched/rail.c): the last man arms, under the lock. */
		pthread_mutex_lock(&rail_lock);
		last_man = --rail_up_count == 0;
		if (last_man)
			tc2_pm_rail_down(&pm, race_rail);
		pthread_mutex_unlock(&rail_lock);

		if (!tc2_pm_down_init(&pm, &d, r->mpidr, cl == 0)) {
			kt_fail(__FILE__, __LINE__, "down_init refused mpidr 0x%x", (unsigned)r->mpidr);
			return NULL;
		}
		__atomic_store_n(&hw.coherent[r->core], 0, __ATOMIC_SEQ_CST);
		if (tc2_pm_down(&pm, &d, last_man)) {
			if (d.all)
				__atomic_add_fetch(&race_full_downs, 1, __ATOMIC_SEQ_CST);
			/* WFI: a random while, sometimes long enough for another CPU's whole last-man path. */
			if (rand_r(&r->seed) % 2)
				usleep(50 + (unsigned)(rand_r(&r->seed) % 150));
			else
				sched_yield();
		}
		tc2_pm_up_uncached(&pm, &d);
		/* Caches on from here: the port must be on. */
		pthread_mutex_lock(&hw_lock);
		if (hw.port[cl + 3] != 3) {
			hw.violations++;
			hw.violation = "a CPU came up with its cluster's CCI port off";
		}
		hw.coherent[r->core] = 1;
		pthread_mutex_unlock(&hw_lock);
		if (tc2_pm_up_report(&pm, &d))
			kt_fail(__FILE__, __LINE__, "unexpected CCI fault");

		pthread_mutex_lock(&rail_lock);
		if (rail_up_count++ == 0)
			tc2_pm_rail_up(&pm, race_rail);	/* the first man */
		pthread_mutex_unlock(&rail_lock);
		for (int i = rand_r(&r->seed) % 3; i > 0; i--)
			sched_yield();
	}
	return NULL;
}

static void race(int cl, int ncores)
{
	pthread_t t[TC2_MAX_CORES];
	struct racer r[TC2_MAX_CORES];

	reset_hw();
	if (!load("build/tc2/tc2.dtb"))
		return;
	KT_ASSERT_EQ(probe(), 0);
	hw.race_cluster = cl;
	race_rail = cl;
	rail_up_count = ncores;
	race_full_downs = 0;
	for (int c = 0; c < ncores; c++)
		hw.coherent[c] = 1;
	for (int c = 0; c < ncores; c++) {
		r[c] = (struct racer){ c, (uint32_t)(cl << 8 | c), 12345u + (unsigned)c };
		KT_ASSERT_EQ(pthread_create(&t[c], NULL, race_cpu, &r[c]), 0);
	}
	for (int c = 0; c < ncores; c++)
		pthread_join(t[c], NULL);
	KT_ASSERT_MSG(hw.violations == 0, "%d violations, e.g. %s", hw.violations, hw.violation);
	/* The interesting path ran: the last man really took the port off, and it came back on. */
	KT_ASSERT_MSG(race_full_downs > 0 && hw.disables == race_full_downs, "full downs %d, port disables %d",
		      race_full_downs, hw.disables);
	KT_ASSERT_EQ(hw.port[cl + 3], 3);
	KT_ASSERT_EQ(pm.cluster_state[cl].v, TC2_CLUSTER_UP);
	/* Every CPU up, the rail up: the SPC is disarmed. */
	KT_ASSERT_EQ(SPC_REG(cl == 0 ? SPC_A15_PWRDN_EN : SPC_A7_PWRDN_EN), 0);
	KT_ASSERT_EQ(SPC_REG(SPC_WAKE_INT_MASK), 0);
	KT_ASSERT_EQ(pm.clusters_armed, 0);
}

KT_CASE(race_a7_cluster_three_threads)
{
	race(1, 3);
}

KT_CASE(race_a15_cluster_two_threads)
{
	race(0, 2);
}
