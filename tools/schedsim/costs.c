/*
 * What the kernel's own work costs in the simulator (docs/schedsim.md):
 * instructions at capacity 1024, from the kernel's measurement of itself
 * under QEMU icount (bench/results.md, qemu-tc2, where one instruction is
 * one ns), split so that each path the sim charges adds up to what the
 * kernel measured end to end:
 *   local wake-up from idle: idle exit 100 + IRQ 200 + wake_up 300 +
 *     switch 274 = 874 (measured: 864, expiry -> task runs);
 *   tick interrupt: IRQ 200 + tick 475 = 675 (measured: 675);
 *   idle entry + exit: 640 + 100 = 740 (measured: 720 .. 752);
 *   remote wake-up: IRQ 200 + wake_up 300 + IPI send 100 + target's idle
 *     exit 100 + IRQ 200 + IPI receive (drain, enqueue) 190 + switch 274
 *     = 1364 (measured: 1 364);
 *   context switch, task to task: 274 (measured: 274).
 * A CPU of capacity c spends each 1024/c times longer (--speed=capacity).
 */
#include "tools/schedsim/sim.h"

void sim_cfg_defaults(void)
{
	sim_cfg.cost_ns[COST_WAKEUP] = 300;
	sim_cfg.cost_ns[COST_TICK] = 475;
	sim_cfg.cost_ns[COST_IDLE_ENTER] = 640;
	sim_cfg.cost_ns[COST_IDLE_EXIT] = 100;
	sim_cfg.switch_ns = 274;
	sim_cfg.irq_ns = 200;
	sim_cfg.ipi_send_ns = 100;
	sim_cfg.ipi_recv_ns = 190;
	sim_cfg.ipi_latency_ns = 0;
}
