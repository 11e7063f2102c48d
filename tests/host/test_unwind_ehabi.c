/*
 * EHABI unwinder (kernel/lib/unwind_ehabi.c) on hand-built tables and stacks in
 * a fake 32-bit address space (mem[] at MEM_BASE; code addresses are plain
 * numbers, never read):
 * - the index search: prel31 offsets of both signs, every entry of tables of
 *   1-9 entries, a pc below the first entry, return addresses looked up one
 *   byte lower, an empty or misshapen table;
 * - every class of unwinding instruction, inline and in .ARM.extab entries
 *   (personalities 0, 1 and 2), and every spare or reserved opcode;
 * - CANTUNWIND, "refuse", unreadable stacks and tables, truncated entries,
 *   frames that make no progress, the frame limit, whole backtraces;
 * - random tables and stacks: the walk ends, within the fake space (ASan
 *   reports any read outside mem[]).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "kernel/lib/unwind_ehabi.h"

#define MEM_BASE 0x40000000u
#define MEM_SIZE 0x10000u
#define TABLE (MEM_BASE + 0x0000u)	/* .ARM.exidx */
#define EXTAB (MEM_BASE + 0x2000u)	/* .ARM.extab */
#define STACK (MEM_BASE + 0x8000u)	/* sp of the first frame */

#define CODE_HI 0x50000000u		/* above the table: positive prel31 */
#define CODE_LO 0x30000000u		/* below it: negative prel31 */

#define CANTUNWIND 1u
#define INL(b0, b1, b2) (0x80000000u | (uint32_t)(b0) << 16 | (uint32_t)(b1) << 8 | (uint32_t)(b2))
#define FINISH 0xb0

static uint32_t mem[MEM_SIZE / 4];
static uint32_t hole_lo, hole_hi;	/* [lo, hi) reads as unreadable */
static uint32_t n_entries, extab_next;
static struct unwind_env env;

static bool mem_readable(const struct unwind_env *e, uint32_t addr, uint32_t len)
{
	(void)e;
	if (addr < MEM_BASE || len > MEM_SIZE || addr - MEM_BASE > MEM_SIZE - len)
		return false;
	return addr >= hole_hi || addr + len <= hole_lo;
}

static void reset(void)
{
	memset(mem, 0, sizeof(mem));
	hole_lo = hole_hi = 0;
	n_entries = 0;
	extab_next = EXTAB;
	env.exidx_start = env.exidx_end = TABLE;
	env.readable = mem_readable;
	env.host_base = (uintptr_t)mem - MEM_BASE;
}

static void poke(uint32_t addr, uint32_t val)
{
	mem[(addr - MEM_BASE) / 4] = val;
}

static uint32_t prel31_to(uint32_t from, uint32_t to)
{
	return (to - from) & 0x7fffffffu;
}

/* Append an index entry: the function at @fn, @data = CANTUNWIND or INL(...). */
static void add_entry(uint32_t fn, uint32_t data)
{
	uint32_t at = TABLE + 8 * n_entries++;

	poke(at, prel31_to(at, fn));
	poke(at + 4, data);
	env.exidx_end = at + 8;
}

/* Append an index entry whose data is an extab entry of @n words. */
static uint32_t add_extab_entry(uint32_t fn, const uint32_t *words, unsigned n)
{
	uint32_t tab = extab_next, at = TABLE + 8 * n_entries;

	for (unsigned i = 0; i < n; i++)
		poke(tab + 4 * i, words[i]);
	extab_next += 4 * n;
	add_entry(fn, 0);
	poke(at + 4, prel31_to(at + 4, tab));
	return tab;
}

/* A personality 1 entry holding @bytes (padded with finish). */
static void add_lu16_entry(uint32_t fn, const uint8_t *bytes, unsigned n)
{
	uint32_t words[16] = { 0 };
	unsigned extra = n <= 2 ? 0 : (n - 2 + 3) / 4;
	uint8_t b[2 + 4 * 15];

	memset(b, FINISH, sizeof(b));
	memcpy(b, bytes, n);
	words[0] = 0x81000000u | extra << 16 | (uint32_t)b[0] << 8 | b[1];
	for (unsigned w = 0; w < extra; w++)
		words[1 + w] = (uint32_t)b[2 + 4 * w] << 24 | (uint32_t)b[3 + 4 * w] << 16 |
			       (uint32_t)b[4 + 4 * w] << 8 | b[5 + 4 * w];
	add_extab_entry(fn, words, 1 + extra);
}

/* Registers with recognisable values: r[i] = 0x1000 + i. */
static struct unwind_regs regs_at(uint32_t pc, uint32_t sp, uint32_t lr)
{
	struct unwind_regs r;

	for (int i = 0; i < 16; i++)
		r.r[i] = 0x1000u + (uint32_t)i;
	r.r[13] = sp;
	r.r[14] = lr;
	r.r[15] = pc;
	return r;
}

/* Stack words: STACK + 4 * i holds 0xa0000000 + i. */
static void fill_stack(void)
{
	for (uint32_t i = 0; i < 64; i++)
		poke(STACK + 4 * i, 0xa0000000u + i);
}

/* Unwind one frame of a function at CODE_HI described by @bytes (an extab entry). */
static enum unwind_status run_bytes(const uint8_t *bytes, unsigned n, struct unwind_regs *r)
{
	reset();
	fill_stack();
	add_lu16_entry(CODE_HI, bytes, n);
	*r = regs_at(CODE_HI + 8, STACK, CODE_LO + 0x44);
	return unwind_frame(&env, r, false);
}

/* The same, inline (at most three bytes). */
static enum unwind_status run_inline(uint32_t data, struct unwind_regs *r)
{
	reset();
	fill_stack();
	add_entry(CODE_HI, data);
	*r = regs_at(CODE_HI + 8, STACK, CODE_LO + 0x44);
	return unwind_frame(&env, r, false);
}

/* ---------------------------------------------------------------- the index */

KT_CASE(prel31_offsets_of_both_signs)
{
	struct unwind_regs r;

	reset();
	add_entry(CODE_LO, INL(0x00, FINISH, FINISH));		/* vsp += 4 */
	add_entry(CODE_HI, INL(0x01, FINISH, FINISH));		/* vsp += 8 */
	KT_ASSERT(mem[0] & 0x40000000u);			/* negative: bit 30 set */
	KT_ASSERT((mem[2] & 0x40000000u) == 0);			/* positive */
	r = regs_at(CODE_LO + 0x10, STACK, CODE_LO + 0x100);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 4);
	r = regs_at(CODE_HI + 0x10, STACK, CODE_LO + 0x100);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 8);
	KT_ASSERT_EQ(r.r[15], CODE_LO + 0x100);
	/* An extab entry below its index entry: a negative offset in the data word. */
	reset();
	fill_stack();
	env.exidx_start = TABLE + 0x100;
	env.exidx_end = TABLE + 0x108;
	poke(TABLE + 0x100, prel31_to(TABLE + 0x100, CODE_HI));
	poke(TABLE + 0x104, prel31_to(TABLE + 0x104, TABLE + 0x10));
	poke(TABLE + 0x10, 0x80a8b0b0u);			/* pop {r4, r14} */
	KT_ASSERT(mem[0x104 / 4] & 0x40000000u);
	r = regs_at(CODE_HI, STACK, 0);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[4], 0xa0000000u);
	KT_ASSERT_EQ(r.r[15], 0xa0000001u);
}

/* Which entry of a table of @n (entry i adds 4 * (i + 1) to vsp) covers @pc. */
static int entry_for(uint32_t pc, bool return_address, enum unwind_status *st)
{
	struct unwind_regs r = regs_at(pc, STACK, CODE_LO);

	*st = unwind_frame(&env, &r, return_address);
	return *st == UNWIND_OK ? (int)((r.r[13] - STACK) / 4) - 1 : -1;
}

KT_CASE(search_every_entry_and_the_edges)
{
	enum unwind_status st;

	for (uint32_t n = 1; n <= 9; n++) {
		reset();
		for (uint32_t i = 0; i < n; i++)
			add_entry(CODE_HI + 0x100 * i, INL(i, FINISH, FINISH));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t fn = CODE_HI + 0x100 * i;

			KT_ASSERT_EQ(entry_for(fn, false, &st), i);		/* first byte */
			KT_ASSERT_EQ(entry_for(fn + 0xfc, false, &st), i);	/* last word */
			KT_ASSERT_EQ(entry_for(fn | 1, false, &st), i);	/* Thumb bit */
			if (i > 0)
				KT_ASSERT_EQ(entry_for(fn, true, &st), i - 1);	/* a call ending i - 1 */
			else
				KT_ASSERT_EQ(entry_for(fn, true, &st), -1);
		}
		/* Past the last start: the last entry (the linker ends the table with CANTUNWIND). */
		KT_ASSERT_EQ(entry_for(CODE_HI + 0x100 * n + 0x10000, false, &st), n - 1);
		/* Below the first entry. */
		KT_ASSERT_EQ(entry_for(CODE_HI - 4, false, &st), -1);
		KT_ASSERT_EQ(st, UNWIND_NO_ENTRY);
		KT_ASSERT_EQ(entry_for(0, false, &st), -1);
		KT_ASSERT_EQ(st, UNWIND_NO_ENTRY);
	}
}

KT_CASE(empty_and_misshapen_tables)
{
	enum unwind_status st;

	reset();
	KT_ASSERT_EQ(entry_for(CODE_HI, false, &st), -1);
	KT_ASSERT_EQ(st, UNWIND_NO_ENTRY);
	add_entry(CODE_HI, INL(0x00, FINISH, FINISH));
	env.exidx_end -= 4;
	entry_for(CODE_HI, false, &st);
	KT_ASSERT_EQ(st, UNWIND_BAD_ENTRY);
	env.exidx_end = env.exidx_start - 8;
	entry_for(CODE_HI, false, &st);
	KT_ASSERT_EQ(st, UNWIND_BAD_ENTRY);
	/* An unreadable or misaligned table. */
	reset();
	add_entry(CODE_HI, INL(0x00, FINISH, FINISH));
	hole_lo = TABLE;
	hole_hi = TABLE + 4;
	entry_for(CODE_HI, false, &st);
	KT_ASSERT_EQ(st, UNWIND_UNREADABLE);
	hole_lo = TABLE + 4;
	hole_hi = TABLE + 8;
	entry_for(CODE_HI, false, &st);
	KT_ASSERT_EQ(st, UNWIND_UNREADABLE);
	hole_lo = hole_hi = 0;
	env.exidx_start += 2;
	env.exidx_end += 2;
	entry_for(CODE_HI, false, &st);
	KT_ASSERT_EQ(st, UNWIND_UNREADABLE);
	env.exidx_start = 0xfffffff8u;
	env.exidx_end = 0;
	entry_for(CODE_HI, false, &st);
	KT_ASSERT_EQ(st, UNWIND_BAD_ENTRY);
}

KT_CASE(cantunwind_ends_the_walk)
{
	struct unwind_regs r, before;

	reset();
	add_entry(CODE_HI, CANTUNWIND);
	before = r = regs_at(CODE_HI + 4, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_END);
	KT_ASSERT(memcmp(&r, &before, sizeof(r)) == 0);
}

/* ---------------------------------------------------------------- instructions */

KT_CASE(vsp_add_and_subtract)
{
	struct unwind_regs r;

	KT_ASSERT_EQ(run_inline(INL(0x00, FINISH, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 4);
	KT_ASSERT_EQ(r.r[15], CODE_LO + 0x44);			/* finish: pc = lr */
	KT_ASSERT_EQ(run_inline(INL(0x3f, FINISH, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 0x100);
	KT_ASSERT_EQ(run_inline(INL(0x3f, 0x3f, 0x02), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 0x200 + 12);
	KT_ASSERT_EQ(run_inline(INL(0x41, 0x04, FINISH), &r), UNWIND_OK);	/* -8 +20 */
	KT_ASSERT_EQ(r.r[13], STACK + 12);
	KT_ASSERT_EQ(run_inline(INL(0x7f, 0x3f, 0x00), &r), UNWIND_OK);	/* -256 +256 +4 */
	KT_ASSERT_EQ(r.r[13], STACK + 4);
	KT_ASSERT_EQ(run_inline(INL(0x40, FINISH, FINISH), &r), UNWIND_SP_DOWN);
	KT_ASSERT_EQ(r.r[13], STACK);
}

KT_CASE(pop_under_mask_r4_r15)
{
	struct unwind_regs r;

	/* 0x8411: r4, r8, r14. */
	KT_ASSERT_EQ(run_inline(INL(0x84, 0x11, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[4], 0xa0000000u);
	KT_ASSERT_EQ(r.r[8], 0xa0000001u);
	KT_ASSERT_EQ(r.r[14], 0xa0000002u);
	KT_ASSERT_EQ(r.r[15], 0xa0000002u);
	KT_ASSERT_EQ(r.r[5], 0x1005u);
	KT_ASSERT_EQ(r.r[13], STACK + 12);
	/* pc popped: lr is not copied into it. */
	KT_ASSERT_EQ(run_inline(INL(0x88, 0x00, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[15], 0xa0000000u);
	KT_ASSERT_EQ(r.r[14], CODE_LO + 0x44);
	KT_ASSERT_EQ(r.r[13], STACK + 4);
	/* Every register r4-r15: sp is the loaded value, written back last. */
	reset();
	fill_stack();
	poke(STACK + 4 * 9, STACK + 0x80);			/* the r13 slot */
	add_entry(CODE_HI, INL(0x8f, 0xff, FINISH));
	r = regs_at(CODE_HI, STACK, 0);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[4], 0xa0000000u);
	KT_ASSERT_EQ(r.r[12], 0xa0000008u);
	KT_ASSERT_EQ(r.r[13], STACK + 0x80);
	KT_ASSERT_EQ(r.r[14], 0xa000000au);
	KT_ASSERT_EQ(r.r[15], 0xa000000bu);
	KT_ASSERT_EQ(r.r[3], 0x1003u);
	/* sp alone, then more pops from the new vsp. */
	reset();
	fill_stack();
	poke(STACK, STACK + 0x20);
	add_entry(CODE_HI, INL(0x82, 0x00, 0xa8));		/* pop {r13}; pop {r4, r14} */
	r = regs_at(CODE_HI, STACK, 0);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[4], 0xa0000008u);
	KT_ASSERT_EQ(r.r[15], 0xa0000009u);
	KT_ASSERT_EQ(r.r[13], STACK + 0x28);
}

KT_CASE(refuse_to_unwind)
{
	struct unwind_regs r;

	KT_ASSERT_EQ(run_inline(INL(0x80, 0x00, FINISH), &r), UNWIND_END);
	KT_ASSERT_EQ(r.r[13], STACK);
	KT_ASSERT_EQ(run_inline(INL(0x00, 0x80, 0x00), &r), UNWIND_END);
}

KT_CASE(vsp_from_a_register)
{
	struct unwind_regs r;

	reset();
	fill_stack();
	add_entry(CODE_HI, INL(0x97, 0xa8, FINISH));		/* vsp = r7; pop {r4, r14} */
	r = regs_at(CODE_HI, STACK - 0x100, 0);
	r.r[7] = STACK + 8;
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[4], 0xa0000002u);
	KT_ASSERT_EQ(r.r[15], 0xa0000003u);
	KT_ASSERT_EQ(r.r[13], STACK + 16);
	KT_ASSERT_EQ(run_inline(INL(0x9d, FINISH, FINISH), &r), UNWIND_BAD_OPCODE);
	KT_ASSERT_EQ(run_inline(INL(0x9f, FINISH, FINISH), &r), UNWIND_BAD_OPCODE);
}

KT_CASE(pop_r4_to_rn_with_and_without_r14)
{
	struct unwind_regs r;

	KT_ASSERT_EQ(run_inline(INL(0xa3, FINISH, FINISH), &r), UNWIND_OK);	/* r4-r7 */
	KT_ASSERT_EQ(r.r[4], 0xa0000000u);
	KT_ASSERT_EQ(r.r[7], 0xa0000003u);
	KT_ASSERT_EQ(r.r[8], 0x1008u);
	KT_ASSERT_EQ(r.r[13], STACK + 16);
	KT_ASSERT_EQ(r.r[15], CODE_LO + 0x44);
	KT_ASSERT_EQ(run_inline(INL(0xaf, FINISH, FINISH), &r), UNWIND_OK);	/* r4-r11, r14 */
	KT_ASSERT_EQ(r.r[11], 0xa0000007u);
	KT_ASSERT_EQ(r.r[14], 0xa0000008u);
	KT_ASSERT_EQ(r.r[15], 0xa0000008u);
	KT_ASSERT_EQ(r.r[13], STACK + 36);
	KT_ASSERT_EQ(run_inline(INL(0xa8, FINISH, FINISH), &r), UNWIND_OK);	/* r4, r14 */
	KT_ASSERT_EQ(r.r[15], 0xa0000001u);
	KT_ASSERT_EQ(r.r[13], STACK + 8);
}

KT_CASE(pop_r0_to_r3_under_mask)
{
	struct unwind_regs r;

	KT_ASSERT_EQ(run_inline(INL(0xb1, 0x05, 0xa8), &r), UNWIND_OK);	/* r0, r2; r4, r14 */
	KT_ASSERT_EQ(r.r[0], 0xa0000000u);
	KT_ASSERT_EQ(r.r[1], 0x1001u);
	KT_ASSERT_EQ(r.r[2], 0xa0000001u);
	KT_ASSERT_EQ(r.r[4], 0xa0000002u);
	KT_ASSERT_EQ(r.r[15], 0xa0000003u);
	KT_ASSERT_EQ(r.r[13], STACK + 16);
	KT_ASSERT_EQ(run_inline(INL(0xb1, 0x00, FINISH), &r), UNWIND_BAD_OPCODE);
	KT_ASSERT_EQ(run_inline(INL(0xb1, 0x10, FINISH), &r), UNWIND_BAD_OPCODE);
	KT_ASSERT_EQ(run_inline(INL(0xb1, 0xf1, FINISH), &r), UNWIND_BAD_OPCODE);
}

KT_CASE(vsp_add_uleb128)
{
	struct unwind_regs r;
	const uint8_t two[] = { 0xb2, 0x81, 0x01 };			/* 129 */
	const uint8_t four[] = { 0xb2, 0xff, 0xff, 0xff, 0x7f };	/* 2^28 - 1 */
	const uint8_t five[] = { 0xb2, 0x80, 0x80, 0x80, 0x80, 0x01 };
	const uint8_t cut[] = { 0x00, 0xb2 };

	KT_ASSERT_EQ(run_inline(INL(0xb2, 0x00, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 0x204);
	KT_ASSERT_EQ(run_bytes(two, sizeof(two), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 0x204 + (129u << 2));
	KT_ASSERT_EQ(run_bytes(four, sizeof(four), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 0x204 + (0x0fffffffu << 2));
	KT_ASSERT_EQ(run_bytes(five, sizeof(five), &r), UNWIND_BAD_OPCODE);
	/* The entry ends inside the operand. */
	reset();
	add_extab_entry(CODE_HI, (const uint32_t[]){ 0x81000000u | (uint32_t)cut[0] << 8 | cut[1] }, 1);
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_BAD_ENTRY);
	KT_ASSERT_EQ(run_inline(INL(0xb2, 0x80, 0x80), &r), UNWIND_BAD_ENTRY);
}

KT_CASE(vfp_pops_adjust_vsp)
{
	static const struct {
		uint8_t op, arg;
		uint32_t bytes;
	} cases[] = {
		{ 0xb3, 0x12, 8 * 3 + 4 },	/* FSTMFDX D1-D3 */
		{ 0xb3, 0xf0, 8 + 4 },		/* FSTMFDX D15 */
		{ 0xb8, FINISH, 8 + 4 },	/* FSTMFDX D8 */
		{ 0xbf, FINISH, 8 * 8 + 4 },	/* FSTMFDX D8-D15 */
		{ 0xc8, 0x03, 8 * 4 },		/* VPUSH D16-D19 */
		{ 0xc8, 0x0f, 8 * 16 },		/* VPUSH D16-D31 */
		{ 0xc9, 0x20, 8 },		/* VPUSH D2 */
		{ 0xc9, 0x87, 8 * 8 },	/* VPUSH D8-D15 */
		{ 0xd0, FINISH, 8 },		/* VPUSH D8 */
		{ 0xd7, FINISH, 8 * 8 },	/* VPUSH D8-D15 */
	};
	struct unwind_regs r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		KT_ASSERT_EQ(run_inline(INL(cases[i].op, cases[i].arg, FINISH), &r), UNWIND_OK);
		KT_ASSERT_MSG(r.r[13] == STACK + cases[i].bytes, "op 0x%02x 0x%02x: vsp moved %u bytes, expected %u",
			      cases[i].op, cases[i].arg, (unsigned)(r.r[13] - STACK), (unsigned)cases[i].bytes);
		KT_ASSERT_EQ(r.r[15], CODE_LO + 0x44);
		KT_ASSERT_EQ(r.r[4], 0x1004u);		/* no core register touched */
	}
	/* Ranges past the last register. */
	KT_ASSERT_EQ(run_inline(INL(0xb3, 0x88, FINISH), &r), UNWIND_BAD_OPCODE);
	KT_ASSERT_EQ(run_inline(INL(0xc8, 0x1f, FINISH), &r), UNWIND_BAD_OPCODE);
	KT_ASSERT_EQ(run_inline(INL(0xc9, 0xf1, FINISH), &r), UNWIND_BAD_OPCODE);
}

KT_CASE(iwmmxt_pops_adjust_vsp)
{
	struct unwind_regs r;

	KT_ASSERT_EQ(run_inline(INL(0xc0, FINISH, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 8);
	KT_ASSERT_EQ(run_inline(INL(0xc5, FINISH, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 48);
	KT_ASSERT_EQ(run_inline(INL(0xc6, 0x12, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 24);
	KT_ASSERT_EQ(run_inline(INL(0xc7, 0x0b, FINISH), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 12);
	KT_ASSERT_EQ(run_inline(INL(0xc7, 0x00, FINISH), &r), UNWIND_BAD_OPCODE);
	KT_ASSERT_EQ(run_inline(INL(0xc7, 0x10, FINISH), &r), UNWIND_BAD_OPCODE);
}

KT_CASE(spare_and_reserved_opcodes_stop_the_walk)
{
	struct unwind_regs r, before;

	for (unsigned op = 0; op < 0x100; op++) {
		bool spare = (op >= 0xb4 && op <= 0xb7) || (op >= 0xca && op <= 0xcf) || op >= 0xd8 ||
			     op == 0x9d || op == 0x9f;
		enum unwind_status st;

		if (!spare)
			continue;
		st = run_inline(INL(op, FINISH, FINISH), &r);
		KT_ASSERT_MSG(st == UNWIND_BAD_OPCODE, "op 0x%02x: %s", op, unwind_strerror(st));
		before = regs_at(CODE_HI + 8, STACK, CODE_LO + 0x44);
		KT_ASSERT(memcmp(&r, &before, sizeof(r)) == 0);	/* untouched on failure */
		/* After other instructions, in an extab entry. */
		st = run_bytes((const uint8_t[]){ 0xa8, 0x00, (uint8_t)op }, 3, &r);
		KT_ASSERT_MSG(st == UNWIND_BAD_OPCODE, "op 0x%02x late: %s", op, unwind_strerror(st));
		KT_ASSERT(memcmp(&r, &before, sizeof(r)) == 0);
	}
}

KT_CASE(finish_explicit_and_implied)
{
	struct unwind_regs r;
	const uint8_t nine[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	/* Nothing after finish runs. */
	KT_ASSERT_EQ(run_inline(INL(0xa8, FINISH, 0x3f), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 8);
	/* Running out of bytes is finish. */
	KT_ASSERT_EQ(run_inline(INL(0x00, 0x00, 0x00), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 12);
	KT_ASSERT_EQ(r.r[15], CODE_LO + 0x44);
	reset();
	add_extab_entry(CODE_HI, (const uint32_t[]){ 0x81000000u }, 1);	/* two vsp += 4 */
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 8);
	/* Nine bytes over three words, the last word partly used. */
	KT_ASSERT_EQ(run_bytes(nine, sizeof(nine), &r), UNWIND_OK);
	KT_ASSERT_EQ(r.r[13], STACK + 36);
}

/* ---------------------------------------------------------------- .ARM.extab */

KT_CASE(extab_personalities)
{
	struct unwind_regs r;

	/* Personality 0 out of line: pop {r4, r14}. */
	reset();
	fill_stack();
	add_extab_entry(CODE_HI, (const uint32_t[]){ 0x80a8b0b0u }, 1);
	r = regs_at(CODE_HI, STACK, 0);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	KT_ASSERT_EQ(r.r[15], 0xa0000001u);
	/* Personalities 1 and 2 with two more words: 8 x vsp += 4, then pop {r4, r14}. */
	for (uint32_t pers = 1; pers <= 2; pers++) {
		reset();
		fill_stack();
		add_extab_entry(CODE_HI, (const uint32_t[]){ 0x80000000u | pers << 24 | 2u << 16 | 0x0000u,
							    0x00000000u, 0x0000a8b0u, 0 }, 4);
		r = regs_at(CODE_HI, STACK, 0);
		KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
		KT_ASSERT_EQ(r.r[4], 0xa0000008u);
		KT_ASSERT_EQ(r.r[15], 0xa0000009u);
		KT_ASSERT_EQ(r.r[13], STACK + 40);
	}
	/* The generic model (a personality routine's address) and reserved indices. */
	reset();
	add_extab_entry(CODE_HI, (const uint32_t[]){ 0x00001000u, 0xb0b0b0b0u }, 2);
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_BAD_ENTRY);
	for (uint32_t pers = 3; pers < 0x80; pers++) {
		reset();
		add_extab_entry(CODE_HI, (const uint32_t[]){ 0x80000000u | pers << 24 | 0xb0b0u }, 1);
		r = regs_at(CODE_HI, STACK, CODE_LO);
		KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_BAD_ENTRY);
	}
	/* Inline entries are personality 0 only. */
	KT_ASSERT_EQ(run_inline(0x81b0b0b0u, &r), UNWIND_BAD_ENTRY);
	KT_ASSERT_EQ(run_inline(0x90b0b0b0u, &r), UNWIND_BAD_ENTRY);
}

KT_CASE(unreadable_extab)
{
	struct unwind_regs r;
	uint32_t at;

	/* The entry points outside memory. */
	reset();
	add_entry(CODE_HI, 0);
	poke(TABLE + 4, prel31_to(TABLE + 4, 0x20000000u));
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_UNREADABLE);
	/* Its word count runs past the end of memory. */
	reset();
	extab_next = MEM_BASE + MEM_SIZE - 8;
	add_extab_entry(CODE_HI, (const uint32_t[]){ 0x81ff0000u, 0 }, 2);
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_UNREADABLE);
	/* A hole over its second word. */
	reset();
	at = add_extab_entry(CODE_HI, (const uint32_t[]){ 0x81010000u, 0xa8b0b0b0u }, 2);
	hole_lo = at + 4;
	hole_hi = at + 8;
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_UNREADABLE);
}

/* ---------------------------------------------------------------- stacks */

KT_CASE(unreadable_stack_ends_the_walk)
{
	struct unwind_regs r, before;

	reset();
	fill_stack();
	add_entry(CODE_HI, INL(0xab, FINISH, FINISH));		/* pop {r4-r7, r14} */
	/* The last word unreadable: nothing changes. */
	hole_lo = STACK + 16;
	hole_hi = STACK + 20;
	before = r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_UNREADABLE);
	KT_ASSERT(memcmp(&r, &before, sizeof(r)) == 0);
	hole_lo = hole_hi = 0;
	/* Outside memory, misaligned, wrapping around the top of the space. */
	static const uint32_t bad_sp[] = { 0x1000u, STACK + 2, MEM_BASE + MEM_SIZE - 8, 0xfffffff8u };

	for (size_t i = 0; i < sizeof(bad_sp) / sizeof(bad_sp[0]); i++) {
		before = r = regs_at(CODE_HI, bad_sp[i], CODE_LO);
		KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_UNREADABLE);
		KT_ASSERT(memcmp(&r, &before, sizeof(r)) == 0);
	}
	/* A vsp moved by the instructions, then popped from. */
	reset();
	add_entry(CODE_HI, INL(0x9c, 0xa8, FINISH));		/* vsp = r12; pop {r4, r14} */
	r = regs_at(CODE_HI, STACK, CODE_LO);
	r.r[12] = 0xdead0000u;
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_UNREADABLE);
}

KT_CASE(frames_that_make_no_progress)
{
	struct unwind_regs r;

	/* A leaf whose lr is its own pc. */
	reset();
	add_entry(CODE_HI, INL(FINISH, FINISH, FINISH));
	r = regs_at(CODE_HI + 8, STACK, CODE_HI + 8);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_NO_PROGRESS);
	/* The same pc one frame up the stack is progress. */
	add_entry(CODE_HI + 0x100, INL(0x00, FINISH, FINISH));
	r = regs_at(CODE_HI + 0x108, STACK, CODE_HI + 0x108);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_OK);
	/* A caller below the callee. */
	reset();
	add_entry(CODE_HI, INL(0x41, FINISH, FINISH));
	r = regs_at(CODE_HI, STACK, CODE_LO);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_SP_DOWN);
	/* A zero return address is the outermost frame. */
	reset();
	add_entry(CODE_HI, INL(FINISH, FINISH, FINISH));
	r = regs_at(CODE_HI, STACK, 0);
	KT_ASSERT_EQ(unwind_frame(&env, &r, false), UNWIND_END);
	KT_ASSERT_EQ(r.r[15], CODE_HI);
}

/*
 * A: leaf (finish), B: push {r4, lr} ending in a call (its return address is
 * C's start), C: push {r4-r6, lr}; sub sp, #8, D: spare opcode, T: CANTUNWIND.
 */
#define FN_A (CODE_HI + 0x000)
#define FN_B (CODE_HI + 0x100)
#define FN_C (CODE_HI + 0x200)
#define FN_D (CODE_HI + 0x300)
#define FN_T (CODE_LO + 0x000)

static void build_chain(void)
{
	reset();
	add_entry(FN_T, CANTUNWIND);
	add_entry(FN_A, INL(FINISH, FINISH, FINISH));
	add_entry(FN_B, INL(0xa8, FINISH, FINISH));
	add_entry(FN_C, INL(0x01, 0xaa, FINISH));
	add_entry(FN_D, INL(0xff, FINISH, FINISH));
	/* A's frame is empty (lr = B + 0x40); B's: r4, lr = C + 0x100 (= D's start) */
	poke(STACK + 0, 0x44);
	poke(STACK + 4, FN_D);
	/* C's: 8 bytes of locals, r4-r6, lr = T + 8 */
	poke(STACK + 16, 0x4);
	poke(STACK + 20, 0x5);
	poke(STACK + 24, 0x6);
	poke(STACK + 28, FN_T + 8);
}

KT_CASE(backtrace_through_a_chain)
{
	struct unwind_regs start;
	uint32_t pcs[8];
	enum unwind_status why;
	int n;

	build_chain();
	start = regs_at(FN_A + 0x10, STACK, FN_B + 0x40);
	n = unwind_backtrace(&env, &start, pcs, 8, &why);
	KT_ASSERT_EQ(n, 4);
	KT_ASSERT_EQ(why, UNWIND_END);
	KT_ASSERT_EQ(pcs[0], FN_A + 0x10);
	KT_ASSERT_EQ(pcs[1], FN_B + 0x40);
	KT_ASSERT_EQ(pcs[2], FN_D);		/* returns to C, found one byte lower */
	KT_ASSERT_EQ(pcs[3], FN_T + 8);
	/* Limits: max entries, including the pc. */
	for (int max = 0; max < 4; max++) {
		n = unwind_backtrace(&env, &start, pcs, max, &why);
		KT_ASSERT_EQ(n, max);
		KT_ASSERT_EQ(why, UNWIND_MAX_FRAMES);
	}
	KT_ASSERT_EQ(unwind_backtrace(&env, &start, pcs, 4, NULL), 4);
	/* D's spare opcode if the return address were looked up as such. */
	start = regs_at(FN_D, STACK + 8, 0);
	KT_ASSERT_EQ(unwind_backtrace(&env, &start, pcs, 8, &why), 1);
	KT_ASSERT_EQ(why, UNWIND_BAD_OPCODE);
	/* A corrupt saved lr: the walk reports the bad address, then stops. */
	build_chain();
	poke(STACK + 28, 0x00001234u);
	start = regs_at(FN_A + 0x10, STACK, FN_B + 0x40);
	KT_ASSERT_EQ(unwind_backtrace(&env, &start, pcs, 8, &why), 4);
	KT_ASSERT_EQ(pcs[3], 0x00001234u);
	KT_ASSERT_EQ(why, UNWIND_NO_ENTRY);
}

KT_CASE(frame_limit_on_deep_recursion)
{
	struct unwind_regs start;
	uint32_t pcs[17];
	enum unwind_status why;
	int n;

	/* R: push {r4, lr}; bl R -- 40 frames deep. */
	reset();
	add_entry(FN_A, INL(0xa8, FINISH, FINISH));
	for (uint32_t i = 0; i < 40; i++) {
		poke(STACK + 8 * i, i);
		poke(STACK + 8 * i + 4, FN_A + 0x20);
	}
	start = regs_at(FN_A + 4, STACK, 0);
	n = unwind_backtrace(&env, &start, pcs, 17, &why);
	KT_ASSERT_EQ(n, 17);
	KT_ASSERT_EQ(why, UNWIND_MAX_FRAMES);
	for (int i = 1; i < n; i++)
		KT_ASSERT_EQ(pcs[i], FN_A + 0x20);
	/* The 41st frame's lr is 0: the end, within a larger limit. */
	{
		uint32_t many[64];

		n = unwind_backtrace(&env, &start, many, 64, &why);
		KT_ASSERT_EQ(n, 41);
		KT_ASSERT_EQ(why, UNWIND_END);
	}
}

KT_CASE(strerror_names_every_status)
{
	for (int s = UNWIND_OK; s <= UNWIND_MAX_FRAMES; s++) {
		KT_ASSERT(strcmp(unwind_strerror((enum unwind_status)s), "unknown") != 0);
		for (int t = UNWIND_OK; t < s; t++)
			KT_ASSERT(strcmp(unwind_strerror((enum unwind_status)s),
					 unwind_strerror((enum unwind_status)t)) != 0);
	}
}

/* xorshift32: reproducible without libc's rand(). */
static uint32_t rnd_state = 2463534242u;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

KT_CASE(random_tables_and_stacks_end_safely)
{
	struct unwind_regs start;
	uint32_t pcs[17];
	enum unwind_status why;
	unsigned ends[UNWIND_MAX_FRAMES + 1] = { 0 };

	for (int round = 0; round < 2000; round++) {
		reset();
		/* Random words, often small or pointing into memory, so that walks go somewhere. */
		for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
			uint32_t w = rnd();

			switch (w & 3) {
			case 0: mem[i] = w; break;
			case 1: mem[i] = MEM_BASE + (rnd() % MEM_SIZE); break;
			case 2: mem[i] = CODE_HI + (rnd() & 0xffff); break;
			default: mem[i] = 0x80000000u | (rnd() & 0x00ffffffu); break;	/* inline entries */
			}
		}
		/* A sorted table of 1-64 entries with random data. */
		n_entries = 0;
		for (uint32_t i = 0, n = 1 + rnd() % 64; i < n; i++) {
			uint32_t at = TABLE + 8 * i;

			poke(at, prel31_to(at, CODE_HI + 0x400 * i));
			if ((rnd() & 3) == 0)
				poke(at + 4, prel31_to(at + 4, EXTAB + 4 * (rnd() % 0x400)));
			env.exidx_end = at + 8;
		}
		if (rnd() & 1) {
			hole_lo = MEM_BASE + (rnd() % MEM_SIZE);
			hole_hi = hole_lo + (rnd() % 0x2000);
		}
		for (int i = 0; i < 16; i++)
			start.r[i] = rnd();
		start.r[13] = MEM_BASE + ((rnd() % MEM_SIZE) & ~3u);
		start.r[15] = CODE_HI + (rnd() & 0x3ffff);
		int n = unwind_backtrace(&env, &start, pcs, 17, &why);

		KT_ASSERT(n >= 1 && n <= 17);
		KT_ASSERT(why != UNWIND_OK);
		ends[why]++;
	}
	/* The random walks reach the interesting ends, not only the first one. */
	KT_ASSERT(ends[UNWIND_UNREADABLE] > 0);
	KT_ASSERT(ends[UNWIND_BAD_OPCODE] > 0);
	KT_ASSERT(ends[UNWIND_NO_ENTRY] + ends[UNWIND_END] + ends[UNWIND_SP_DOWN] > 0);
}
