/*
 * EHABI unwinder; the contract is in include/kernel/lib/unwind_ehabi.h.
 *
 * An index entry is two words: a prel31 offset to the function's start,
 * then EXIDX_CANTUNWIND, an inline entry (bit 31 set: personality 0 and
 * three instruction bytes) or a prel31 offset to an .ARM.extab entry. An
 * extab entry of the compact model holds personality 0's three bytes, or
 * personality 1/2's two bytes and a count of further words of four bytes.
 * Instruction bytes are read most significant first, and running out of
 * them means "finish".
 */
#include "kernel/lib/unwind_ehabi.h"

#define SP 13
#define LR 14
#define PC 15
#define EXIDX_CANTUNWIND 1u

static bool read_word(const struct unwind_env *env, uint32_t addr, uint32_t *val)
{
	if ((addr & 3u) || !env->readable(env, addr, 4))
		return false;
	*val = *(const uint32_t *)(env->host_base + addr);
	return true;
}

/* A prel31 field: a signed 31-bit offset from the field's own address. */
static uint32_t prel31(uint32_t word, uint32_t at)
{
	uint32_t off = word & 0x7fffffffu;

	if (off & 0x40000000u)
		off |= 0x80000000u;
	return at + off;
}

/* The last entry whose function starts at or below @pc (the table is sorted). */
static enum unwind_status find_entry(const struct unwind_env *env, uint32_t pc, uint32_t *entry)
{
	uint32_t lo = 0, hi;

	if (env->exidx_end < env->exidx_start || (env->exidx_end - env->exidx_start) % 8u)
		return UNWIND_BAD_ENTRY;
	hi = (env->exidx_end - env->exidx_start) / 8u;
	while (lo < hi) {	/* entries below lo start at or below pc, from hi on above it */
		uint32_t mid = lo + (hi - lo) / 2u, at = env->exidx_start + mid * 8u, w;

		if (!read_word(env, at, &w))
			return UNWIND_UNREADABLE;
		if (prel31(w, at) <= pc)
			lo = mid + 1u;
		else
			hi = mid;
	}
	if (lo == 0)
		return UNWIND_NO_ENTRY;
	*entry = env->exidx_start + (lo - 1u) * 8u;
	return UNWIND_OK;
}

struct insns {
	const struct unwind_env *env;
	uint32_t word;		/* its low `bytes` bytes are still to be read, high first */
	unsigned bytes;
	uint32_t next;		/* further words: address and count */
	uint32_t words;
	bool unreadable;
};

/* The next instruction byte, or -1 at the end or on an unreadable word. */
static int next_byte(struct insns *s)
{
	if (s->bytes == 0) {
		if (s->words == 0)
			return -1;
		if (!read_word(s->env, s->next, &s->word)) {
			s->unreadable = true;
			return -1;
		}
		s->next += 4;
		s->words--;
		s->bytes = 4;
	}
	s->bytes--;
	return (int)((s->word >> (8 * s->bytes)) & 0xffu);
}

/* The operand byte of a two-byte instruction: an entry that ends before it is malformed. */
static enum unwind_status operand(struct insns *s, uint32_t *byte)
{
	int b = next_byte(s);

	if (b < 0)
		return s->unreadable ? UNWIND_UNREADABLE : UNWIND_BAD_ENTRY;
	*byte = (uint32_t)b;
	return UNWIND_OK;
}

/* The virtual register set the instructions act on. */
struct vrs {
	uint32_t r[16];
	uint32_t vsp;
	bool pc_set;
};

/* Pop the registers of @mask (bit n = rn), lowest first; a popped sp becomes vsp last. */
static enum unwind_status pop(const struct unwind_env *env, struct vrs *v, uint32_t mask)
{
	uint32_t vsp = v->vsp;

	for (int i = 0; i < 16; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (!read_word(env, vsp, &v->r[i]))
			return UNWIND_UNREADABLE;
		vsp += 4;
	}
	v->vsp = (mask & (1u << SP)) ? v->r[SP] : vsp;
	if (mask & (1u << PC))
		v->pc_set = true;
	return UNWIND_OK;
}

/* Two-byte instructions whose operand must be 0000iiii with some i set. */
static enum unwind_status low_mask(struct insns *s, uint32_t *mask)
{
	enum unwind_status st = operand(s, mask);

	if (st == UNWIND_OK && (*mask == 0 || (*mask & 0xf0u)))
		return UNWIND_BAD_OPCODE;	/* spare */
	return st;
}

/* Execute the instruction starting with byte @op (IHI0038, "Frame unwinding instructions"). */
static enum unwind_status exec_insn(struct insns *s, struct vrs *v, uint32_t op, bool *finish)
{
	enum unwind_status st = UNWIND_OK;
	uint32_t b = 0;

	if (op < 0x40) {			/* 00xxxxxx: vsp += (x << 2) + 4 */
		v->vsp += (op << 2) + 4;
	} else if (op < 0x80) {			/* 01xxxxxx: vsp -= (x << 2) + 4 */
		v->vsp -= ((op & 0x3fu) << 2) + 4;
	} else if (op < 0x90) {			/* 1000iiii iiiiiiii: pop r4-r15 under mask */
		st = operand(s, &b);
		if (st == UNWIND_OK && (op & 0xfu) == 0 && b == 0)
			return UNWIND_END;	/* "refuse to unwind" */
		if (st == UNWIND_OK)
			st = pop(s->env, v, (((op & 0xfu) << 8) | b) << 4);
	} else if (op < 0xa0) {			/* 1001nnnn: vsp = r[n] */
		if ((op & 0xfu) == SP || (op & 0xfu) == PC)
			return UNWIND_BAD_OPCODE;	/* reserved */
		v->vsp = v->r[op & 0xfu];
	} else if (op < 0xb0) {			/* 1010Lnnn: pop r4-r[4+n], r14 if L */
		uint32_t mask = ((2u << (op & 7u)) - 1u) << 4;

		st = pop(s->env, v, (op & 8u) ? mask | (1u << LR) : mask);
	} else if (op == 0xb0) {
		*finish = true;
	} else if (op == 0xb1) {		/* 10110001 0000iiii: pop r0-r3 under mask */
		st = low_mask(s, &b);
		if (st == UNWIND_OK)
			st = pop(s->env, v, b);
	} else if (op == 0xb2) {		/* vsp += 0x204 + (uleb128 << 2) */
		uint32_t val = 0;

		for (unsigned shift = 0;; shift += 7) {
			st = operand(s, &b);
			if (st != UNWIND_OK)
				return st;
			if (shift > 21)
				return UNWIND_BAD_OPCODE;	/* beyond any stack */
			val |= (b & 0x7fu) << shift;
			if (!(b & 0x80u))
				break;
		}
		v->vsp += 0x204 + (val << 2);
	} else if (op == 0xb3 || op == 0xc8 || op == 0xc9) {
		/* VFP D[s]-D[s+c], by FSTMFDX (0xb3: a pad word) or VPUSH */
		st = operand(s, &b);
		if (st == UNWIND_OK && (b >> 4) + (b & 0xfu) > 15)
			return UNWIND_BAD_OPCODE;
		v->vsp += 8 * ((b & 0xfu) + 1) + (op == 0xb3 ? 4 : 0);
	} else if (op >= 0xb8 && op < 0xc0) {	/* FSTMFDX D8-D[8+n] */
		v->vsp += 8 * ((op & 7u) + 1) + 4;
	} else if (op >= 0xc0 && op < 0xc6) {	/* iWMMXt wR10-wR[10+n] */
		v->vsp += 8 * ((op & 7u) + 1);
	} else if (op == 0xc6) {		/* iWMMXt wR[s]-wR[s+c] */
		st = operand(s, &b);
		v->vsp += 8 * ((b & 0xfu) + 1);
	} else if (op == 0xc7) {		/* iWMMXt wCGR under mask */
		st = low_mask(s, &b);
		v->vsp += 4 * ((b & 1u) + ((b >> 1) & 1u) + ((b >> 2) & 1u) + ((b >> 3) & 1u));
	} else if (op >= 0xd0 && op < 0xd8) {	/* VPUSH D8-D[8+n] */
		v->vsp += 8 * ((op & 7u) + 1);
	} else {				/* 101101nn, 11001yyy, 11xxxyyy: spare */
		return UNWIND_BAD_OPCODE;
	}
	return st;
}

/* Interpret the instructions up to "finish", explicit or at their end. */
static enum unwind_status execute(struct insns *s, struct vrs *v)
{
	bool finish = false;

	while (!finish) {
		int op = next_byte(s);
		enum unwind_status st;

		if (op < 0)
			return s->unreadable ? UNWIND_UNREADABLE : UNWIND_OK;
		st = exec_insn(s, v, (uint32_t)op, &finish);
		if (st != UNWIND_OK)
			return st;
	}
	return UNWIND_OK;
}

/* Where the instructions of the entry at @entry are, in @s. */
static enum unwind_status locate_insns(const struct unwind_env *env, uint32_t entry, struct insns *s)
{
	uint32_t w, tab;

	if (!read_word(env, entry + 4, &w))
		return UNWIND_UNREADABLE;
	if (w == EXIDX_CANTUNWIND)
		return UNWIND_END;
	if (w & 0x80000000u) {		/* inline: personality 0 only */
		if (w & 0x7f000000u)
			return UNWIND_BAD_ENTRY;
		s->word = w;
		s->bytes = 3;
		return UNWIND_OK;
	}
	tab = prel31(w, entry + 4);
	if (!read_word(env, tab, &w))
		return UNWIND_UNREADABLE;
	if (!(w & 0x80000000u))
		return UNWIND_BAD_ENTRY;	/* generic model: a personality routine of its own */
	s->word = w;
	switch ((w >> 24) & 0x7fu) {
	case 0:
		s->bytes = 3;
		return UNWIND_OK;
	case 1:
	case 2:
		s->bytes = 2;
		s->words = (w >> 16) & 0xffu;
		s->next = tab + 4;
		return UNWIND_OK;
	default:
		return UNWIND_BAD_ENTRY;
	}
}

enum unwind_status unwind_frame(const struct unwind_env *env, struct unwind_regs *regs,
				bool return_address)
{
	uint32_t pc = regs->r[PC], entry = 0;
	struct insns s = { .env = env };
	struct vrs v = { .pc_set = false };
	enum unwind_status st;

	st = find_entry(env, (pc & ~1u) - (return_address ? 1u : 0u), &entry);
	if (st == UNWIND_OK)
		st = locate_insns(env, entry, &s);
	if (st != UNWIND_OK)
		return st;
	for (int i = 0; i < 16; i++)
		v.r[i] = regs->r[i];
	v.vsp = regs->r[SP];
	st = execute(&s, &v);
	if (st != UNWIND_OK)
		return st;
	if (!v.pc_set)
		v.r[PC] = v.r[LR];
	v.r[SP] = v.vsp;
	if (v.r[PC] == 0)
		return UNWIND_END;	/* a zero return address marks the outermost frame */
	if (v.r[SP] < regs->r[SP])
		return UNWIND_SP_DOWN;
	if (v.r[SP] == regs->r[SP] && v.r[PC] == pc)
		return UNWIND_NO_PROGRESS;
	for (int i = 0; i < 16; i++)
		regs->r[i] = v.r[i];
	return UNWIND_OK;
}

int unwind_backtrace(const struct unwind_env *env, const struct unwind_regs *start, uint32_t *pcs,
		     int max, enum unwind_status *why)
{
	struct unwind_regs regs = *start;
	enum unwind_status st = UNWIND_MAX_FRAMES;
	int n = 0;

	if (max > 0)
		pcs[n++] = regs.r[PC];
	while (n < max) {
		/* The first pc is the interrupted instruction, the others return addresses. */
		st = unwind_frame(env, &regs, n > 1);
		if (st != UNWIND_OK)
			break;
		pcs[n++] = regs.r[PC];
		st = UNWIND_MAX_FRAMES;
	}
	if (why)
		*why = st;
	return n;
}

const char *unwind_strerror(enum unwind_status status)
{
	switch (status) {
	case UNWIND_OK: return "ok";
	case UNWIND_END: return "end of stack";
	case UNWIND_NO_ENTRY: return "pc outside the unwind table";
	case UNWIND_UNREADABLE: return "unreadable table or stack";
	case UNWIND_BAD_ENTRY: return "unsupported or malformed unwind entry";
	case UNWIND_BAD_OPCODE: return "spare or reserved unwind instruction";
	case UNWIND_NO_PROGRESS: return "frame made no progress";
	case UNWIND_SP_DOWN: return "stack pointer moved down";
	case UNWIND_MAX_FRAMES: return "frame limit";
	}
	return "unknown";
}
