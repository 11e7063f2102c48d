/*
 * What the kernel's own work costs in the simulator (docs/schedsim.md):
 * instructions at capacity 1024, from the kernel's measurement of itself
 * under QEMU icount (bench/results.md, qemu-tc2: one instruction is one
 * ns), split where the kernel marks them (include/arch/cost.h) so that each
 * path adds up to what was measured end to end, and so that the pieces fall
 * on the right side of the timestamps the scheduler takes (a wakee waits
 * from its enqueue to the pick: its PELT "waiting" depends on it):
 *   local wake-up from idle (expiry -> task runs, measured 864): idle exit
 *     100 + IRQ entry 150 + select 132 + enqueue 160 + IRQ exit 50 +
 *     schedule 60 + switch 214 = 866;
 *   tick interrupt (measured 675): IRQ 150 + 50 + tick 475;
 *   idle entry + exit (measured 720 .. 752): 640 + 100;
 *   remote wake-up (measured 1 364): waker IRQ 150 + select 132 + IPI
 *     send 100; target idle exit 100 + IRQ 150 + IPI receive (wake list
 *     drain) 248 + enqueue 160 + IRQ exit 50 + schedule 60 + switch 214;
 *   context switch, yield to yield (measured 274): schedule 60 + switch 214;
 *   a task going to sleep (its timer armed, state set; calibrated so that
 *     cyclictest -t 1's busy time per wake-up, 2.67 us under QEMU, comes
 *     out): 215.
 * A CPU of capacity c spends each 1024/c times longer (--speed=capacity).
 */
#include "tools/schedsim/sim.h"

void sim_cfg_defaults(void)
{
	sim_cfg.cost_ns[COST_SELECT] = 132;
	sim_cfg.cost_ns[COST_WAKEUP] = 160;
	sim_cfg.cost_ns[COST_TICK] = 475;
	sim_cfg.cost_ns[COST_IDLE_ENTER] = 640;
	sim_cfg.cost_ns[COST_IDLE_EXIT] = 100;
	sim_cfg.cost_ns[COST_SLEEP] = 215;
	sim_cfg.cost_ns[COST_SCHEDULE] = 60;
	sim_cfg.switch_ns = 214;
	sim_cfg.irq_ns = 150;
	sim_cfg.irq_exit_ns = 50;
	sim_cfg.ipi_send_ns = 100;
	sim_cfg.ipi_recv_ns = 248;
	sim_cfg.ipi_latency_ns = 0;
}
