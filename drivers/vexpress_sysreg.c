/*
 * Versatile Express system registers (V2M-P1 motherboard). SYS_CFG
 * transactions: write SYS_CFGDATA (writes), clear SYS_CFGSTAT, write
 * SYS_CFGCTRL with start | write | function | site | position | device,
 * then poll SYS_CFGSTAT for complete (bit 0) or error (bit 1). The
 * controller answers in microseconds; 10 ms without completion is a timeout.
 */
#include "drivers/vexpress.h"

#include "arch/arm.h"
#include "drivers/dt.h"
#include "drivers/timer.h"
#include "kernel/lib/fdt.h"
#include "kernel/time/time.h"

#define SYS_FLAGSSET  0x30
#define SYS_FLAGSCLR  0x34
#define SYS_24MHZ     0x5c
#define SYS_CFGDATA   0xa0
#define SYS_CFGCTRL   0xa4
#define SYS_CFGSTAT   0xa8

#define CFGCTRL_START (1u << 31)
#define CFGCTRL_WRITE (1u << 30)
#define CFGSTAT_COMPLETE (1u << 0)
#define CFGSTAT_ERROR    (1u << 1)
#define SYS_CFG_TIMEOUT_NS (10 * NSEC_PER_MSEC)

static uintptr_t sysreg;

int vexpress_sysreg_init_dt(const struct fdt *fdt)
{
	int node = fdt_find_compatible(fdt, -1, "arm,vexpress-sysreg");

	if (node < 0 || !fdt_node_enabled(fdt, node))
		return SYS_CFG_ENODEV;
	sysreg = dt_mmio(fdt, node, 0, NULL);
	return 0;
}

void vexpress_sysreg_fallback(uintptr_t base)
{
	if (!sysreg)
		sysreg = base;
}

void sys_cfg_write_nowait(enum sys_cfg_func func)
{
	mmio_write32(sysreg + SYS_CFGDATA, 0);
	mmio_write32(sysreg + SYS_CFGSTAT, 0);
	mmio_write32(sysreg + SYS_CFGCTRL, CFGCTRL_START | CFGCTRL_WRITE | ((uint32_t)(func & 0x3f) << 20));
	for (int spin = 0; spin < 10000000; spin++)
		if (mmio_read32(sysreg + SYS_CFGSTAT) & (CFGSTAT_COMPLETE | CFGSTAT_ERROR))
			break;
}

bool vexpress_sysreg_present(void)
{
	return sysreg != 0;
}

uint32_t vexpress_read_24mhz(void)
{
	return mmio_read32(sysreg + SYS_24MHZ);
}

void vexpress_set_flags(uint32_t entry)
{
	mmio_write32(sysreg + SYS_FLAGSCLR, ~0u);
	mmio_write32(sysreg + SYS_FLAGSSET, entry);
	dsb();
}

static int sys_cfg_xfer(bool write, enum sys_cfg_func func, unsigned site,
			unsigned position, unsigned device, uint32_t *data)
{
	uint64_t deadline;
	uint32_t stat;

	if (!sysreg)
		return SYS_CFG_ENODEV;
	if (write)
		mmio_write32(sysreg + SYS_CFGDATA, *data);
	mmio_write32(sysreg + SYS_CFGSTAT, 0);
	mmio_write32(sysreg + SYS_CFGCTRL, CFGCTRL_START | (write ? CFGCTRL_WRITE : 0) |
		     ((uint32_t)(func & 0x3f) << 20) | ((site & 3u) << 16) |
		     ((position & 0xfu) << 12) | (device & 0xfffu));
	deadline = clock_ns() + SYS_CFG_TIMEOUT_NS;
	while (!((stat = mmio_read32(sysreg + SYS_CFGSTAT)) & (CFGSTAT_COMPLETE | CFGSTAT_ERROR))) {
		if (clock_ns() > deadline)
			return SYS_CFG_ETIMEDOUT;
	}
	if (stat & CFGSTAT_ERROR)
		return SYS_CFG_EFAULT;
	if (!write)
		*data = mmio_read32(sysreg + SYS_CFGDATA);
	return SYS_CFG_OK;
}

int sys_cfg_read(enum sys_cfg_func func, unsigned site, unsigned position,
		 unsigned device, uint32_t *data)
{
	return sys_cfg_xfer(false, func, site, position, device, data);
}

int sys_cfg_write(enum sys_cfg_func func, unsigned site, unsigned position,
		  unsigned device, uint32_t data)
{
	return sys_cfg_xfer(true, func, site, position, device, &data);
}

const char *sys_cfg_strerror(int err)
{
	switch (err) {
	case SYS_CFG_OK: return "ok";
	case SYS_CFG_ENODEV: return "no vexpress sysregs";
	case SYS_CFG_ETIMEDOUT: return "SYS_CFG timed out";
	case SYS_CFG_EFAULT: return "SYS_CFG reported an error";
	default: return "unknown SYS_CFG error";
	}
}
