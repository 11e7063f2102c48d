/*
 * The SYS_CFG transaction (drivers/sys_cfg.c) against a fake V2M-P1 sysreg
 * block: the register sequence and field encoding, the error bit (QEMU's
 * motherboard answers function 13 - the energy meters - with COMPLETE |
 * ERROR: the "meters not available" path), a controller that never answers
 * (timeout, with the caller's wait step called between polls), a previous
 * transaction still running (busy: nothing written), and the master site
 * from SYS_MISC[14].
 */
#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "drivers/sys_cfg.h"
#include "drivers/vexpress.h"

enum answer { ANSWER_COMPLETE, ANSWER_ERROR, ANSWER_NEVER, ANSWER_QEMU_METERS };

struct fake_sysreg {
	uint32_t misc, data, ctrl, stat;
	enum answer answer;
	int polls_to_answer;	/* SYS_CFGSTAT reads before the controller answers */
	int polls, waits, writes;
	uint64_t now;
	uint32_t read_value;	/* what a read transaction returns */
	uint32_t last_ctrl;
	bool ctrl_before_stat_cleared;	/* CTRL written while STAT still held an old status */
};

static uint32_t fake_read(void *ctx, uint32_t off)
{
	struct fake_sysreg *f = ctx;

	switch (off) {
	case SYS_MISC:
		return f->misc;
	case SYS_CFGDATA:
		return f->data;
	case SYS_CFGCTRL:
		return f->ctrl;
	case SYS_CFGSTAT:
		f->polls++;
		if ((f->ctrl & SYS_CFGCTRL_START) && f->polls >= f->polls_to_answer) {
			unsigned int func = (f->ctrl >> 20) & 0x3f;

			switch (f->answer) {
			case ANSWER_COMPLETE:
				f->stat = SYS_CFGSTAT_COMPLETE;
				break;
			case ANSWER_ERROR:
				f->stat = SYS_CFGSTAT_ERROR;
				break;
			case ANSWER_QEMU_METERS:
				/* QEMU's a9/a15 sysctl: oscillators and voltages answered, energy/power not. */
				f->stat = func == 12 || func == 13 ? SYS_CFGSTAT_COMPLETE | SYS_CFGSTAT_ERROR
								   : SYS_CFGSTAT_COMPLETE;
				break;
			case ANSWER_NEVER:
				return f->stat;
			}
			if (!(f->ctrl & SYS_CFGCTRL_WRITE) && !(f->stat & SYS_CFGSTAT_ERROR))
				f->data = f->read_value;
			f->ctrl &= ~SYS_CFGCTRL_START;
		}
		return f->stat;
	default:
		kt_fail(__FILE__, __LINE__, "read of unexpected offset 0x%x", (unsigned)off);
		return 0;
	}
}

static void fake_write(void *ctx, uint32_t off, uint32_t v)
{
	struct fake_sysreg *f = ctx;

	f->writes++;
	switch (off) {
	case SYS_CFGDATA:
		f->data = v;
		break;
	case SYS_CFGSTAT:
		f->stat = v;
		break;
	case SYS_CFGCTRL:
		if (f->stat)
			f->ctrl_before_stat_cleared = true;
		f->ctrl = f->last_ctrl = v;
		f->polls = 0;
		break;
	default:
		kt_fail(__FILE__, __LINE__, "write of unexpected offset 0x%x", (unsigned)off);
	}
}

static uint64_t fake_now(void *ctx)
{
	return ((struct fake_sysreg *)ctx)->now;
}

/* The caller's sleep step: the fake clock moves 100 us. */
static void fake_wait(void *ctx)
{
	struct fake_sysreg *f = ctx;

	f->waits++;
	f->now += SYS_CFG_POLL_NS;
}

static struct fake_sysreg fk;
static const struct sys_cfg_io io = { fake_read, fake_write, fake_now, fake_wait, &fk };

static void reset(enum answer a, int polls)
{
	memset(&fk, 0, sizeof(fk));
	fk.answer = a;
	fk.polls_to_answer = polls;
	fk.now = 1000;
}

KT_CASE(read_encodes_fields_and_returns_data)
{
	uint32_t v = 0;

	reset(ANSWER_COMPLETE, 3);
	fk.read_value = 0x12345678u;
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, SYS_CFG_ENERGY, 1, 2, 0x123, &v), SYS_CFG_OK);
	KT_ASSERT_EQ(v, 0x12345678u);
	/* START | func 13 << 20 | site 1 << 16 | position 2 << 12 | device 0x123; no WRITE. */
	KT_ASSERT_EQ(fk.last_ctrl, 0x80000000u | (13u << 20) | (1u << 16) | (2u << 12) | 0x123u);
	KT_ASSERT(!fk.ctrl_before_stat_cleared);
	/* Two polls saw nothing: the caller's wait step ran between them. */
	KT_ASSERT_EQ(fk.waits, 2);
	/* A read writes STAT and CTRL only. */
	KT_ASSERT_EQ(fk.writes, 2);
}

KT_CASE(write_puts_data_first_and_clears_status)
{
	uint32_t v = 0xcafe;

	reset(ANSWER_COMPLETE, 1);
	fk.stat = SYS_CFGSTAT_COMPLETE;	/* the previous transaction's status */
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, true, SYS_CFG_SHUTDOWN, 0, 0, 0, &v), SYS_CFG_OK);
	KT_ASSERT_EQ(fk.last_ctrl, 0xc0000000u | (8u << 20));
	KT_ASSERT_EQ(fk.data, 0xcafe);
	KT_ASSERT(!fk.ctrl_before_stat_cleared);
	KT_ASSERT_EQ(v, 0xcafe);
}

KT_CASE(error_bit_is_efault)
{
	uint32_t v = 7;

	reset(ANSWER_ERROR, 2);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, SYS_CFG_POWER, 1, 0, 0, &v), SYS_CFG_EFAULT);
	KT_ASSERT_EQ(v, 7);	/* nothing read back */
}

KT_CASE(qemu_meters_not_available)
{
	uint32_t v = 0;

	/* QEMU: COMPLETE | ERROR for function 13 at once, but the oscillators answer. */
	reset(ANSWER_QEMU_METERS, 1);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, SYS_CFG_ENERGY, 1, 0, 1, &v), SYS_CFG_EFAULT);
	KT_ASSERT_EQ(fk.waits, 0);
	fk.read_value = 24000000u;
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, SYS_CFG_OSC, 1, 0, 0, &v), SYS_CFG_OK);
	KT_ASSERT_EQ(v, 24000000u);
	KT_ASSERT_STREQ(sys_cfg_strerror(SYS_CFG_EFAULT), "SYS_CFG reported an error");
}

KT_CASE(no_answer_times_out_after_10ms_of_waits)
{
	uint32_t v = 0;

	reset(ANSWER_NEVER, 0);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, SYS_CFG_ENERGY, 1, 0, 0, &v), SYS_CFG_ETIMEDOUT);
	/* 10 ms in 100 us steps: the wait ran ~100 times, the clock passed the deadline. */
	KT_ASSERT_EQ(fk.waits, (int)(SYS_CFG_TIMEOUT_NS / SYS_CFG_POLL_NS) + 1);
	KT_ASSERT(fk.now > 1000 + SYS_CFG_TIMEOUT_NS);
	/* START stays set: the next transaction must not start over it. */
	KT_ASSERT(fk.ctrl & SYS_CFGCTRL_START);
	fk.writes = 0;
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, SYS_CFG_ENERGY, 1, 0, 0, &v), SYS_CFG_EBUSY);
	KT_ASSERT_EQ(fk.writes, 0);
}

KT_CASE(busy_writes_nothing)
{
	uint32_t v = 1;

	reset(ANSWER_COMPLETE, 1);
	fk.ctrl = SYS_CFGCTRL_START | (1u << 20);	/* someone else's transaction in flight */
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, true, SYS_CFG_OSC, 1, 0, 0, &v), SYS_CFG_EBUSY);
	KT_ASSERT_EQ(fk.writes, 0);
	KT_ASSERT_EQ(fk.ctrl, SYS_CFGCTRL_START | (1u << 20));
	KT_ASSERT_STREQ(sys_cfg_strerror(SYS_CFG_EBUSY), "SYS_CFG busy (a transaction still running)");
}

KT_CASE(fields_out_of_range_refused)
{
	uint32_t v = 0;

	reset(ANSWER_COMPLETE, 1);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, 64, 1, 0, 0, &v), SYS_CFG_EINVAL);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, 13, SYS_CFG_SITE_MASTER, 0, 0, &v), SYS_CFG_EINVAL);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, 13, 1, 16, 0, &v), SYS_CFG_EINVAL);
	KT_ASSERT_EQ(sys_cfg_xfer_io(&io, false, 13, 1, 0, 0x1000, &v), SYS_CFG_EINVAL);
	KT_ASSERT_EQ(fk.writes, 0);
}

KT_CASE(master_site_from_sys_misc)
{
	reset(ANSWER_COMPLETE, 1);
	KT_ASSERT_EQ(sys_cfg_resolve_site(&io, SYS_CFG_SITE_MASTER), SYS_CFG_SITE_DB1);
	fk.misc = SYS_MISC_MASTERSITE;
	KT_ASSERT_EQ(sys_cfg_resolve_site(&io, SYS_CFG_SITE_MASTER), SYS_CFG_SITE_DB2);
	/* Explicit sites are left alone. */
	KT_ASSERT_EQ(sys_cfg_resolve_site(&io, SYS_CFG_SITE_MB), 0);
	KT_ASSERT_EQ(sys_cfg_resolve_site(&io, SYS_CFG_SITE_DB1), 1);
}
