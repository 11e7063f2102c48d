/*
 * Boot sequence of the boot CPU (boot_main) and of the secondaries
 * (secondary_main). Every device is found in the DT handed over in r2.
 */
#include "boot/boot.h"

#include <string.h>

#include "arch/arm.h"
#include "arch/cpu.h"
#include "arch/power.h"
#include "arch/smp.h"
#include "arch/spinlock.h"
#include "boot/asm.h"
#include "boot/mmu.h"
#include "drivers/console.h"
#include "drivers/gic.h"
#include "drivers/psci.h"
#include "drivers/tc2_spc.h"
#include "drivers/timer.h"
#include "drivers/vexpress.h"
#include "kernel/lib/cmdline.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/fdt.h"
#include "kernel/sched/idle.h"
#include "kernel/debug/inject.h"
#include "kernel/apps/microbench.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/apps/rtapp.h"
#include "kernel/sched/sched.h"
#include "kernel/debug/sched_report.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/sched/topology.h"
#include "kernel/trace/trace.h"

#define DTB_MAX_SIZE (2u << 20)
#define SECONDARY_TIMEOUT_MS 100

static struct fdt fdt;
static struct fdt_phandle phandle_index[2048];	/* 16 KiB: a 1024-CPU DT has ~1 100 phandles */
static struct bootargs bootargs;
static uint64_t t_boot;
extern bool gic_ready;

const struct fdt *boot_fdt(void)
{
	return &fdt;
}

const struct bootargs *boot_args(void)
{
	return &bootargs;
}

uint64_t boot_time_ns(void)
{
	return t_boot;
}

static void ipi_handler(uint32_t irq, void *arg)
{
	(void)arg;
	if (irq == IPI_STOP) {
		smp_cpu(arch_cpu_id())->state = CPU_STOPPED;
		cpu_park();
	}
	if (irq == IPI_RESCHEDULE)
		sched_ipi();
	/* IPI_WAKEUP: returning from the IRQ is the point. */
}

static void timer_event(void)
{
	timers_run(clock_ns());
}

static struct task *console_task;

/* The shell runs as a task on CPU0, woken by the console's RX interrupt. */
static void console_task_fn(void *arg)
{
	const char *autorun = bootargs_get(&bootargs, "autorun");

	(void)arg;
	if (autorun)
		shell_run_script(autorun);
	shell_start();
	for (;;) {
		int c;

		set_current_sleeping();
		c = console_getc();
		if (c < 0) {
			sched_block();
			continue;
		}
		set_current_running();
		shell_input((char)c);
	}
}

static void console_rx_wake(void)
{
	if (console_task)
		wake_up(console_task);
}

static void set_panic_action(void)
{
	const char *action = bootargs_get(&bootargs, "panic");

	if (action && panic_set_action(action) != 0)
		kprintf("bootargs: panic=%s is not halt, poweroff or reboot; panics halt\n", action);
}

#define ATAG_CORE    0x54410001u
#define ATAG_CMDLINE 0x54410009u

/*
 * r2 may hold ATAGs instead (QEMU without -dtb, old boot loaders): their
 * command line still says what a panic should do, so that the panic about
 * the missing DT obeys panic=.
 */
static void atags_panic_action(uintptr_t r2)
{
	const uint32_t *t = (const uint32_t *)r2;

	if ((r2 & 3) || t[1] != ATAG_CORE)
		return;
	for (int i = 0; i < 32 && t[0] >= 2 && t[0] < 4096; i++, t += t[0]) {
		if (t[1] == ATAG_CMDLINE) {
			const char *cmd = (const char *)&t[2];

			if (memchr(cmd, '\0', (t[0] - 2) * 4) && bootargs_parse(&bootargs, cmd) == 0)
				set_panic_action();
			return;
		}
	}
}

static void open_dtb(uintptr_t dtb)
{
	int err;

	if (dtb && (dtb & 3) == 0 && *(const uint32_t *)dtb != __builtin_bswap32(FDT_MAGIC))
		atags_panic_action(dtb);
	if (dtb == 0)
		panic("dtb: no device tree (r2 = 0): boot with -dtb or bootz <kernel> - <dtb>");
	if (dtb & 3)
		panic("dtb: device tree address 0x%08x is not 4-byte aligned", (unsigned)dtb);
	err = fdt_open(&fdt, (const void *)dtb, DTB_MAX_SIZE);
	if (err != FDT_OK)
		panic("dtb: invalid device tree at 0x%08x: %s", (unsigned)dtb, fdt.err);
	/* More phandles than this: lookups walk the tree (slower boot, same answers). */
	fdt_index_phandles(&fdt, phandle_index, (int)(sizeof(phandle_index) / sizeof(phandle_index[0])));
}

static void parse_bootargs(void)
{
	int chosen = fdt_path(&fdt, "/chosen");
	const char *args = chosen >= 0 ? fdt_prop_string(&fdt, chosen, "bootargs") : NULL;

	if (bootargs_parse(&bootargs, args ? args : "") != 0) {
		kprintf("bootargs: %s; ignoring the command line\n", bootargs.err);
		bootargs_parse(&bootargs, "");
	}
	set_panic_action();
}

static void console_shell_write(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	console_write(buf, len);
}

static void print_cpu(int cpu)
{
	const struct cpu_info *c = smp_cpu(cpu);

	kprintf("cpu%d online mpidr=0x%x cluster=%d %s\n", cpu, (unsigned)c->hwid,
		sched_cpu_cluster(cpu), c->compatible);
}

/*
 * hz=<100..10000>: the scheduler tick rate.
 * idle_latency_us=<n>: the deepest idle state's exit latency the governor may use.
 */
static void parse_sched_bootargs(void)
{
	unsigned long hz, lat;
	int rc = bootargs_get_uint(&bootargs, "idle_latency_us", &lat);

	if (rc == 0 && lat <= 10000000)
		idle_latency_limit_ns = (uint64_t)lat * 1000;
	else if (rc != CMDLINE_ENOENT)
		kprintf("bootargs: idle_latency_us=%s is not a number of microseconds 0..10000000; ignored\n",
			bootargs_get(&bootargs, "idle_latency_us"));
	rc = bootargs_get_uint(&bootargs, "hz", &hz);
	if (rc == CMDLINE_ENOENT)
		return;
	if (rc != 0 || hz < 100 || hz > 10000 || NSEC_PER_SEC % hz != 0) {
		kprintf("bootargs: hz=%s is not a divisor of 10^9 in 100..10000; using %u\n",
			bootargs_get(&bootargs, "hz"), sched_hz);
		return;
	}
	sched_hz = (unsigned int)hz;
}

/* spinlock=ticket|unfair: how a CPU waits for a taken spinlock (include/arch/spinlock.h). Before the secondaries start. */
static void parse_spinlock_bootarg(void)
{
	const char *v = bootargs_get(&bootargs, "spinlock");

	if (!v)
		return;
	if (strcmp(v, "unfair") == 0)
		kprintf("spinlock: unfair (bootargs; %u sites)\n", (unsigned)spin_lock_set_unfair());
	else if (strcmp(v, "ticket") == 0)
		kprintf("spinlock: ticket (bootargs)\n");
	else
		kprintf("bootargs: error: unknown spinlock mode '%s' (ticket, unfair); using ticket\n", v);
}

/* warmboot=on|off: the warm-boot path's initial state (`idle warmboot`; off is the way out if a real power-off hangs). */
static void parse_warmboot_bootarg(void)
{
	const char *v = bootargs_get(&bootargs, "warmboot");

	if (!v)
		return;
	if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
		kprintf("bootargs: warmboot=%s is not on or off; ignored\n", v);
	else if (platform_warmboot_set(strcmp(v, "on") == 0) != 0)
		kprintf("bootargs: warmboot=%s: no warm-boot path on this board (power %s); ignored\n", v,
			platform_power_name());
	else
		kprintf("power: warm boot %s (bootargs)\n", v);
}

/*
 * Debug kernels: alignment checking on until the MMU is (mmu_enable() turns
 * it off), so that an unaligned access before it faults on every emulator:
 * with the MMU off every access is Strongly-ordered, where real cores and
 * QEMU from 9.x fault, and QEMU 7.2 (CI's) would let it pass.
 */
static inline void check_alignment_until_mmu(void)
{
#ifdef CONFIG_SCHED_DEBUG
	write_sctlr(read_sctlr() | SCTLR_A);
	isb();
#endif
}

void boot_main(uintptr_t dtb)
{
	static const struct shell_io io = { console_shell_write, NULL };

	check_alignment_until_mmu();
	mmu_enable_early(dtb);
	open_dtb(dtb);
	/* First what a panic needs: its action, and the DT's ways to power off. */
	parse_bootargs();
	psci_init_dt(&fdt);
	vexpress_sysreg_init_dt(&fdt);
	mmu_build(&fdt);
	console_init_dt(&fdt);
	{
		int root = fdt_root(&fdt);
		const char *model = fdt_prop_string(&fdt, root, "model");

		kprintf("\nsched-pack kernel (board %s, %s)\n", BOARD_NAME, model ? model : "unknown model");
	}
	/* U-Boot's bootz with ARMV7_NONSEC/VIRT: boot/head.S left HYP; the TC2 power path refuses warm boot. */
	if ((boot_entry_cpsr & MODE_MASK) == MODE_HYP)
		kprintf("boot: entered in HYP mode (non-secure): running in SVC, PL1 given the physical counter\n");
	gic_init_dt(&fdt);
	gic_cpu_init();
	for (uint32_t sgi = 0; sgi < 16; sgi++)
		irq_register(sgi, ipi_handler, NULL);
	gic_ready = true;
	timer_init_dt(&fdt);
	timer_set_handler(timer_event);
	timer_cpu_init();
	t_boot = clock_ns();
	smp_init_dt(&fdt);
	parse_sched_bootargs();
	parse_spinlock_bootarg();
	kernel_init_dt(&fdt, smp_nr_cpus(), bootargs_get(&bootargs, "pack"));
	if (cpufreq_spc_init(&fdt) < 0)	/* TC2's SPC changes the clocks; none found: nothing does (QEMU) */
		kprintf("cpufreq: SPC back end failed; frequencies change in the accounting only\n");
	cpufreq_governor_from_arg(bootargs_get(&bootargs, "cpufreq"), "bootargs");
	sched_init_cpu(0);
	sched_cpu_online(0);
	parse_warmboot_bootarg();
	kprintf("memory: %u MiB, timer: %s at %u Hz\n", (unsigned)(mmu_ram_bytes() >> 20),
		timer_name(), (unsigned)timer_freq());
	print_cpu(0);
	smp_boot_secondaries(SECONDARY_TIMEOUT_MS);
	for (int cpu = 1; cpu < smp_nr_cpus(); cpu++)
		if (cpu_is_online(cpu))
			print_cpu(cpu);
	kprintf("%d of %d CPUs online\n", smp_nr_online(), smp_nr_cpus());
	sched_topology_report();

	shell_init(&io);
	shell_register_linked();	/* every SHELL_COMMANDS() of boot/ and kernel/ */
	console_set_rx_callback(console_rx_wake);
	console_enable_rx_irq();
	console_task = task_create("console", console_task_fn, NULL, 0, 1u << 0);
	KASSERT(console_task);
	sched_idle_loop();
}

void secondary_main(int cpu)
{
	check_alignment_until_mmu();
	mmu_enable();
	gic_cpu_init();
	gic_drain();	/* the SGI that released us is still pending */
	timer_cpu_init();
	sched_init_cpu(cpu);
	if (!smp_mark_online(cpu))
		cpu_park();	/* too late: the boot CPU gave up on us */
	sched_cpu_online(cpu);
	sched_idle_loop();
}
