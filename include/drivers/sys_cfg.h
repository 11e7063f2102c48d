/*
 * The SYS_CFG transaction of the V2M-P1 motherboard (drivers/sys_cfg.c:
 * plain C behind register accessors, compiled into the host library too, so
 * tests/host/test_sys_cfg.c runs it against a fake sysreg block).
 *
 * Registers (V2M-P1 TRM, ARM DUI 0447, 4.3 "Register summary"; Linux
 * drivers/bus/vexpress-config.c and drivers/mfd/vexpress-sysreg.c):
 *   SYS_MISC    0x60  bit 14 MASTERSITE: 0 = daughterboard site 1 is the
 *                     master, 1 = site 2;
 *   SYS_CFGDATA 0xa0  data written / read;
 *   SYS_CFGCTRL 0xa4  bit 31 START, bit 30 WRITE, [25:20] function,
 *                     [17:16] site, [15:12] position, [11:0] device;
 *   SYS_CFGSTAT 0xa8  bit 0 COMPLETE, bit 1 ERROR.
 * Sequence (as vexpress-config.c's exec): refuse to start while START of a
 * previous transaction is still set (-EBUSY there), write the data (writes),
 * clear SYS_CFGSTAT, write SYS_CFGCTRL, then poll SYS_CFGSTAT until ERROR
 * (the controller refused: QEMU answers so for the meters) or COMPLETE, at
 * most SYS_CFG_TIMEOUT_NS. Between polls io->wait() lets the caller sleep
 * (Linux sleeps in 100 us steps where it can; it never spins with
 * interrupts off for the whole wait).
 * Site 0xf in a DT ("arm,vexpress,site") means "the master site", which
 * SYS_MISC says (Linux vexpress_config_get_topo / vexpress-sysreg).
 */
#ifndef DRIVERS_SYS_CFG_H
#define DRIVERS_SYS_CFG_H

#include <stdbool.h>
#include <stdint.h>

#define SYS_MISC      0x60u
#define SYS_MISC_MASTERSITE (1u << 14)
#define SYS_CFGDATA   0xa0u
#define SYS_CFGCTRL   0xa4u
#define SYS_CFGSTAT   0xa8u
#define SYS_CFGCTRL_START (1u << 31)
#define SYS_CFGCTRL_WRITE (1u << 30)
#define SYS_CFGSTAT_COMPLETE (1u << 0)
#define SYS_CFGSTAT_ERROR    (1u << 1)

#define SYS_CFG_SITE_MB     0u	/* the motherboard */
#define SYS_CFG_SITE_DB1    1u
#define SYS_CFG_SITE_DB2    2u
#define SYS_CFG_SITE_MASTER 0xfu	/* DT only: resolved through SYS_MISC */
#define SYS_CFG_TIMEOUT_NS  10000000u	/* 10 ms: the controller answers in microseconds */
#define SYS_CFG_POLL_NS     100000u	/* Linux's step between polls (vexpress-config.c) */

struct sys_cfg_io {
	uint32_t (*read)(void *ctx, uint32_t off);
	void (*write)(void *ctx, uint32_t off, uint32_t v);
	uint64_t (*now_ns)(void *ctx);
	/* Between two polls: sleep about SYS_CFG_POLL_NS if the caller may, else return at once. */
	void (*wait)(void *ctx);
	void *ctx;
};

/* One transaction; 0 or a SYS_CFG_E* code (include/drivers/vexpress.h). @site must be 0..3. */
int sys_cfg_xfer_io(const struct sys_cfg_io *io, bool write, unsigned int func, unsigned int site,
		    unsigned int position, unsigned int device, uint32_t *data);
/* SYS_CFG_SITE_MASTER -> the master daughterboard site from SYS_MISC; other sites unchanged. */
unsigned int sys_cfg_resolve_site(const struct sys_cfg_io *io, unsigned int site);

#endif
