/* The SYS_CFG transaction; see include/drivers/sys_cfg.h. */
#include "drivers/sys_cfg.h"

#include "drivers/vexpress.h"

int sys_cfg_xfer_io(const struct sys_cfg_io *io, bool write, unsigned int func, unsigned int site,
		    unsigned int position, unsigned int device, uint32_t *data)
{
	uint64_t deadline;

	if (func > 0x3fu || site > 3u || position > 0xfu || device > 0xfffu)
		return SYS_CFG_EINVAL;
	/* A transaction still running (another user, or one that timed out): do not overwrite it. */
	if (io->read(io->ctx, SYS_CFGCTRL) & SYS_CFGCTRL_START)
		return SYS_CFG_EBUSY;
	if (write)
		io->write(io->ctx, SYS_CFGDATA, *data);
	io->write(io->ctx, SYS_CFGSTAT, 0);
	io->write(io->ctx, SYS_CFGCTRL, SYS_CFGCTRL_START | (write ? SYS_CFGCTRL_WRITE : 0) | (func << 20) |
					 (site << 16) | (position << 12) | device);
	deadline = io->now_ns(io->ctx) + SYS_CFG_TIMEOUT_NS;
	for (;;) {
		uint32_t stat = io->read(io->ctx, SYS_CFGSTAT);

		if (stat & SYS_CFGSTAT_ERROR)
			return SYS_CFG_EFAULT;
		if (stat & SYS_CFGSTAT_COMPLETE)
			break;
		if (io->now_ns(io->ctx) > deadline)
			return SYS_CFG_ETIMEDOUT;
		io->wait(io->ctx);
	}
	if (!write)
		*data = io->read(io->ctx, SYS_CFGDATA);
	return SYS_CFG_OK;
}

unsigned int sys_cfg_resolve_site(const struct sys_cfg_io *io, unsigned int site)
{
	if (site != SYS_CFG_SITE_MASTER)
		return site;
	return (io->read(io->ctx, SYS_MISC) & SYS_MISC_MASTERSITE) ? SYS_CFG_SITE_DB2 : SYS_CFG_SITE_DB1;
}

const char *sys_cfg_strerror(int err)
{
	switch (err) {
	case SYS_CFG_OK: return "ok";
	case SYS_CFG_ENODEV: return "no vexpress sysregs";
	case SYS_CFG_ETIMEDOUT: return "SYS_CFG timed out";
	case SYS_CFG_EFAULT: return "SYS_CFG reported an error";
	case SYS_CFG_EBUSY: return "SYS_CFG busy (a transaction still running)";
	case SYS_CFG_EINVAL: return "SYS_CFG field out of range";
	default: return "unknown SYS_CFG error";
	}
}
