/* The SPC programming sequence; see include/drivers/tc2_spc.h. */
#include "drivers/tc2_spc.h"

static void spc_update(const struct spc_io *io, uint32_t off, uint32_t set, uint32_t clear)
{
	uint32_t v = io->read(io->ctx, off);

	io->write(io->ctx, off, (v & ~clear) | set);
}

int spc_set_resume_addr(const struct spc_io *io, bool a15, unsigned int core, uint32_t addr)
{
	if (core >= SPC_MAX_CORES || (addr & 3u))
		return SPC_EINVAL;	/* ARM-state entry: word aligned */
	io->write(io->ctx, (a15 ? SPC_A15_BX_ADDR0 : SPC_A7_BX_ADDR0) + 4u * core, addr);
	return 0;
}

int spc_cpu_wakeup(const struct spc_io *io, bool a15, unsigned int core, bool set)
{
	uint32_t bit;

	if (core >= SPC_MAX_CORES)
		return SPC_EINVAL;
	bit = SPC_WAKE_CPU(a15, core);
	spc_update(io, SPC_WAKE_INT_MASK, set ? bit : 0, set ? 0 : bit);
	return 0;
}

void spc_global_wakeup(const struct spc_io *io, bool set)
{
	spc_update(io, SPC_WAKE_INT_MASK, set ? SPC_WAKE_GLOBAL : 0, set ? 0 : SPC_WAKE_GLOBAL);
}

void spc_cluster_powerdown(const struct spc_io *io, bool a15, bool enable)
{
	io->write(io->ctx, a15 ? SPC_A15_PWRDN_EN : SPC_A7_PWRDN_EN, enable ? 1u : 0u);
}

int spc_cpu_down_prepare(const struct spc_io *io, bool a15, unsigned int core, uint32_t resume_addr)
{
	/* The mailbox before the wake-up bit: once the bit is set the SPC may cut power. */
	if (resume_addr == 0)
		return SPC_EINVAL;
	if (spc_set_resume_addr(io, a15, core, resume_addr) != 0)
		return SPC_EINVAL;
	return spc_cpu_wakeup(io, a15, core, true);
}

int spc_cpu_up(const struct spc_io *io, bool a15, unsigned int core)
{
	/* The reverse order: no window where the bit is set with an empty mailbox. */
	if (spc_cpu_wakeup(io, a15, core, false) != 0)
		return SPC_EINVAL;
	return spc_set_resume_addr(io, a15, core, 0);
}

void spc_cluster_down_prepare(const struct spc_io *io, bool a15)
{
	spc_global_wakeup(io, true);
	spc_cluster_powerdown(io, a15, true);
}

void spc_cluster_up(const struct spc_io *io, bool a15, bool other_armed)
{
	spc_cluster_powerdown(io, a15, false);
	if (!other_armed)
		spc_global_wakeup(io, false);
}
