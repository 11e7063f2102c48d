/*
 * The C side of cpu_suspend/cpu_resume (include/arch/suspend.h): the save
 * areas, the early hook, and what C state a power loss takes with it.
 */
#include "arch/suspend.h"

#include "arch/arm.h"
#include "arch/cpu.h"
#include "drivers/gic.h"
#include "drivers/timer.h"
#include "kernel/time/timer.h"

/* Read by cpu_resume with the MMU off: each is cleaned to PoC by cpu_suspend. */
struct suspend_ctx suspend_ctx[CONFIG_NR_CPUS];

/* Read by cpu_resume with the MMU off: cleaned when set. */
resume_early_fn resume_early_hook;

/* The GIC's banked state, saved with caches on and restored with caches on. */
static struct gic_cpu_state gic_saved[CONFIG_NR_CPUS];

void suspend_set_early_hook(resume_early_fn fn)
{
	resume_early_hook = fn;
	dcache_clean_range(&resume_early_hook, sizeof(resume_early_hook));
}

resume_early_fn suspend_early_hook(void)
{
	return resume_early_hook;
}

void cpu_pm_save(void)
{
	gic_cpu_save(&gic_saved[arch_cpu_id()]);
}

void cpu_pm_abort(void)
{
	/* Nothing was lost; the way down may have turned the CPU interface off. */
	gic_cpu_restore(&gic_saved[arch_cpu_id()]);
}

void cpu_pm_resume(void)
{
	int cpu = arch_cpu_id();

	/* The distributor's banked enables/priorities and the CPU interface, as before. */
	gic_cpu_restore(&gic_saved[cpu]);
	/* The local timer: its control register is reset; the next deadline is gone. */
	timer_cpu_resume();
	timers_resume_local();
}
