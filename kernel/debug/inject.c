/* Delay injection for debug kernels; see include/kernel/debug/inject.h. */
#include "kernel/debug/inject.h"

#ifdef CONFIG_SCHED_DEBUG

#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/lib/random.h"
#include "kernel/console/shell.h"
#include "kernel/time/timer.h"

static const char *const point_names[INJECT_NR_POINTS] = {
	[INJECT_UNLOCK] = "unlock",
	[INJECT_IPI] = "ipi",
	[INJECT_IDLE] = "idle",
	[INJECT_IRQ_EXIT] = "irqexit",
	[INJECT_WAKE_LIST] = "wakelist",
	[INJECT_TIMER] = "timer",
};
#define NOIRQ_BIT (1u << INJECT_NR_POINTS)	/* the `noirq` modifier in the mask */

static struct {
	volatile uint32_t mask;		/* enabled points; read first, so a disabled point costs one load */
	uint32_t seed, min_ns, max_ns, permille;
	uint32_t cpus;			/* CPUs that delay (bit n = CPU n) */
	uint32_t rng[CONFIG_NR_CPUS];	/* each CPU's own stream: runs replay for a seed */
	uint64_t count[INJECT_NR_POINTS];
} inj;

void inject_configure(uint32_t seed, uint32_t mask, uint32_t min_us, uint32_t max_us, uint32_t permille,
		      uint32_t cpus)
{
	KASSERT(permille <= 1000 && min_us <= max_us && max_us <= 1000000 && mask < (NOIRQ_BIT << 1));
	WRITE_ONCE(inj.mask, 0);	/* no CPU draws from a stream being reseeded */
	smp_mb();
	inj.seed = seed;
	inj.min_ns = min_us * 1000u;
	inj.max_ns = max_us * 1000u;
	inj.permille = permille;
	inj.cpus = cpus;
	for (int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		inj.rng[cpu] = (seed ^ (uint32_t)(cpu + 1) * 2654435761u) | 1;
	for (int p = 0; p < INJECT_NR_POINTS; p++)
		__atomic_store_n(&inj.count[p], 0, __ATOMIC_RELAXED);
	smp_mb();
	WRITE_ONCE(inj.mask, mask);
}

uint64_t inject_count(enum inject_point point)
{
	return __atomic_load_n(&inj.count[point], __ATOMIC_RELAXED);
}

void inject_delay(enum inject_point point)
{
	uint32_t mask = READ_ONCE(inj.mask), r, ns;
	unsigned long flags;
	uint64_t end;
	int cpu;

	if (!(mask & (1u << point)) || ((mask & NOIRQ_BIT) && arch_in_irq()))
		return;
	/* IRQs off: the draw stays on this CPU's stream even in task context. */
	flags = arch_irq_save();
	cpu = arch_cpu_id();
	r = xorshift32(&inj.rng[cpu]);
	arch_irq_restore(flags);
	if (cpu >= 32 || !(inj.cpus & (1u << cpu)))
		return;
	if (r % 1000u >= inj.permille)
		return;
	ns = inj.min_ns + (r / 1000u) % (inj.max_ns - inj.min_ns + 1u);
	__atomic_fetch_add(&inj.count[point], 1, __ATOMIC_RELAXED);
	/*
	 * Busy: the point's context stays as it is (locks held, IRQs as they
	 * were), only longer. No cpu_relax(): under icount a yield hands the
	 * one host thread to the next vCPU for a few instructions of virtual
	 * time each, so a millisecond would take seconds.
	 */
	end = arch_now_ns() + ns;
	while (arch_now_ns() < end)
		barrier();
}

/* A comma-separated list of point names, "all" and "noirq"; 0 if a name is unknown or no point is named. */
static uint32_t parse_points(const char *s)
{
	uint32_t mask = 0;

	while (*s) {
		size_t n = strcspn(s, ",");
		int p;

		for (p = 0; p < INJECT_NR_POINTS; p++)
			if (strlen(point_names[p]) == n && strncmp(s, point_names[p], n) == 0)
				break;
		if (p < INJECT_NR_POINTS)
			mask |= 1u << p;
		else if (n == 3 && strncmp(s, "all", 3) == 0)
			mask |= NOIRQ_BIT - 1;
		else if (n == 5 && strncmp(s, "noirq", 5) == 0)
			mask |= NOIRQ_BIT;
		else
			return 0;
		s += n;
		if (*s == ',')
			s++;
	}
	return mask & (NOIRQ_BIT - 1) ? mask : 0;
}

static void show(void)
{
	uint32_t mask = READ_ONCE(inj.mask);

	if (!mask) {
		kprintf("inject: off\n");
		return;
	}
	kprintf("inject: seed=%u us=%u..%u permille=%u cpus=0x%x%s\n", (unsigned)inj.seed,
		(unsigned)(inj.min_ns / 1000u), (unsigned)(inj.max_ns / 1000u), (unsigned)inj.permille,
		(unsigned)inj.cpus, (mask & NOIRQ_BIT) ? " (not in interrupt handlers)" : "");
	for (int p = 0; p < INJECT_NR_POINTS; p++)
		if (mask & (1u << p))
			kprintf("inject: %s delays=%llu\n", point_names[p], (unsigned long long)inject_count(p));
}

/* <max_us> or <min_us>..<max_us>, each 0..1000000, min <= max. */
static bool parse_range(char *s, unsigned long *min_us, unsigned long *max_us)
{
	char *dots = strstr(s, "..");

	*min_us = 0;
	if (dots) {
		*dots = '\0';
		if (!cmdline_parse_ulong(s, 0, 1000000, min_us))
			return false;
		s = dots + 2;
	}
	return cmdline_parse_ulong(s, *min_us, 1000000, max_us);
}

static int cmd_inject(int argc, char **argv)
{
	unsigned long seed, min_us, max_us, permille = 1000, cpus = 0xffffffffu;
	uint32_t mask;

	if (argc == 1) {
		show();
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		inject_configure(0, 0, 0, 0, 0, 0);
		kprintf("inject: off\n");
		return 0;
	}
	if (argc < 4 || argc > 6 || !cmdline_parse_ulong(argv[1], 0, 0xffffffffu, &seed) ||
	    !(mask = parse_points(argv[2])) || !parse_range(argv[3], &min_us, &max_us) ||
	    (argc >= 5 && !cmdline_parse_ulong(argv[4], 0, 1000, &permille)) ||
	    (argc == 6 && !cmdline_parse_ulong(argv[5], 1, 0xffffffffu, &cpus))) {
		kprintf("error: usage: inject <seed> <all|unlock,ipi,idle,irqexit,wakelist,timer[,noirq]> <[min_us..]max_us> "
			"[permille 0..1000 [cpu mask]] | off\n");
		return 1;
	}
	inject_configure((uint32_t)seed, mask, (uint32_t)min_us, (uint32_t)max_us, (uint32_t)permille,
			 (uint32_t)cpus);
	show();
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "inject", "[<seed> <points> <[min_us..]max_us> [permille [cpus]] | off]",
	  "debug kernels: seeded delays at SMP protocol points (include/kernel/debug/inject.h)", cmd_inject },
};

SHELL_COMMANDS(commands);

#endif
