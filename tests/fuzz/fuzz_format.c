/*
 * Fuzz target `format`: kernel/lib/format.c, the printf the kernel (and every
 * parser's error message) formats with, differentially against the host C
 * library's snprintf().
 *
 * Input: a format string (up to the first NUL, at most 512 bytes), then
 * bytes the arguments and buffer sizes are drawn from. The format is cut
 * into pieces of literal text plus one conversion; each piece is run
 * through ksnprintf() with arguments of the types its length modifier and
 * conversion ask for, into an exact-size heap buffer (ASan sees a write
 * past it) of 0..95 bytes and into a large one. Checked (include/kernel/
 * format.h): the result is C99's (the full length; the buffer terminated
 * when size > 0, holding the output's first size - 1 bytes), and for every
 * piece whose meaning C defines (conversions d i o u x X c s %, flags
 * "-0+ #", widths and precisions, lengths hh h l ll z j t; not the
 * combinations C leaves undefined) the output equals snprintf()'s.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/lib/format.h"
#include "tests/fuzz/fuzz.h"

enum arg_type { A_NONE, A_INT, A_LONG, A_LLONG, A_SIZE, A_MAX, A_PTRDIFF, A_STR, A_PTR };

struct piece {
	char fmt[600];
	int nstars;
	int star[2];
	enum arg_type type;
	bool is_unsigned;
	char conv;	/* the conversion character ('\0' for plain text) */
	bool defined;	/* C defines the output: compare with snprintf */
};

static char str_arg[72];

/*
 * Calls @fn (ksnprintf or snprintf) with the piece's '*' arguments (STARS
 * expands to them, each followed by a comma), then its value. A piece
 * without one gets a 0 it ignores (C: excess arguments are evaluated and
 * ignored).
 */
#define STARS0(p)
#define STARS1(p) (p)->star[0],
#define STARS2(p) (p)->star[0], (p)->star[1],
#define TYPED(fn, buf, size, p, v, STARS)                                                            \
	((p)->type == A_INT ? ((p)->is_unsigned ? fn(buf, size, (p)->fmt, STARS(p)(unsigned)(v)) :       \
			       fn(buf, size, (p)->fmt, STARS(p)(int)(v))) :                               \
	 (p)->type == A_LONG ? ((p)->is_unsigned ? fn(buf, size, (p)->fmt, STARS(p)(unsigned long)(v)) : \
				fn(buf, size, (p)->fmt, STARS(p)(long)(v))) :                             \
	 (p)->type == A_LLONG ? ((p)->is_unsigned ? fn(buf, size, (p)->fmt, STARS(p)(unsigned long long)(v)) : \
				 fn(buf, size, (p)->fmt, STARS(p)(long long)(v))) :                       \
	 (p)->type == A_SIZE ? fn(buf, size, (p)->fmt, STARS(p)(size_t)(v)) :                           \
	 (p)->type == A_MAX ? ((p)->is_unsigned ? fn(buf, size, (p)->fmt, STARS(p)(uintmax_t)(v)) :      \
			       fn(buf, size, (p)->fmt, STARS(p)(intmax_t)(v))) :                          \
	 (p)->type == A_PTRDIFF ? fn(buf, size, (p)->fmt, STARS(p)(ptrdiff_t)(v)) :                     \
	 (p)->type == A_STR ? fn(buf, size, (p)->fmt, STARS(p)(const char *)str_arg) :                  \
	 (p)->type == A_PTR ? fn(buf, size, (p)->fmt, STARS(p)(void *)(uintptr_t)(v)) :                 \
			      fn(buf, size, (p)->fmt, STARS(p)0))
#define CALL(fn, buf, size, p, v)                                                                    \
	((p)->nstars == 0 ? TYPED(fn, buf, size, p, v, STARS0) :                                     \
	 (p)->nstars == 1 ? TYPED(fn, buf, size, p, v, STARS1) : TYPED(fn, buf, size, p, v, STARS2))

/* The host's snprintf, with the format checks off: the formats are data here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat"
static int k_call(char *buf, size_t size, const struct piece *p, uint64_t v)
{
	return CALL(ksnprintf, buf, size, p, v);
}

static int c_call(char *buf, size_t size, const struct piece *p, uint64_t v)
{
	return CALL(snprintf, buf, size, p, v);
}
#pragma GCC diagnostic pop

/* Cut the next piece (text + one conversion) from *@fmt into @p. */
static void next_piece(const char **fmt, struct piece *p, struct fuzz_in *in)
{
	const char *s = *fmt, *spec;
	size_t n = 0;
	bool left = false, zero = false, alt = false, plus = false, space = false;
	bool prec = false, big = false;
	int len = 0;	/* 0 none, 1 hh, 2 h, 3 l, 4 ll, 5 z, 6 j, 7 t */
	char conv;

	memset(p, 0, sizeof(*p));
	while (*s && *s != '%' && n < 300)
		p->fmt[n++] = *s++;
	if (*s != '%') {
		p->fmt[n] = '\0';
		p->type = A_NONE;
		p->defined = true;
		*fmt = s;
		return;
	}
	spec = s++;
	for (;; s++) {
		if (*s == '-')
			left = true;
		else if (*s == '0')
			zero = true;
		else if (*s == '#')
			alt = true;
		else if (*s == '+')
			plus = true;
		else if (*s == ' ')
			space = true;
		else
			break;
	}
	if (*s == '*') {
		p->star[p->nstars++] = (int)(fuzz_take(in, 2) % 2000) - 1000;
		s++;
	} else {
		const char *d = s;

		while (*s >= '0' && *s <= '9')
			s++;
		big |= s - d > 3;
	}
	if (*s == '.') {
		prec = true;
		s++;
		if (*s == '*') {
			p->star[p->nstars++] = (int)(fuzz_take(in, 2) % 2000) - 1000;
			s++;
		} else {
			const char *d = s;

			while (*s >= '0' && *s <= '9')
				s++;
			big |= s - d > 3;
		}
	}
	if (s[0] == 'h' && s[1] == 'h')
		len = 1, s += 2;
	else if (s[0] == 'h')
		len = 2, s++;
	else if (s[0] == 'l' && s[1] == 'l')
		len = 4, s += 2;
	else if (s[0] == 'l')
		len = 3, s++;
	else if (s[0] == 'z')
		len = 5, s++;
	else if (s[0] == 'j')
		len = 6, s++;
	else if (s[0] == 't')
		len = 7, s++;
	conv = *s;
	if (conv)
		s++;
	p->conv = conv;
	memcpy(p->fmt + n, spec, (size_t)(s - spec));
	p->fmt[n + (size_t)(s - spec)] = '\0';
	*fmt = s;

	p->defined = !big;
	switch (conv) {
	case 'd':
	case 'i':
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		p->is_unsigned = conv != 'd' && conv != 'i';
		p->type = len == 3 ? A_LONG : len == 4 ? A_LLONG : len == 5 ? A_SIZE : len == 6 ? A_MAX :
			  len == 7 ? A_PTRDIFF : A_INT;
		/* C: '#' only for o x X; z with d and t with u are the signed/unsigned twins. */
		if (alt && !(conv == 'o' || conv == 'x' || conv == 'X'))
			p->defined = false;
		if ((len == 5 && !p->is_unsigned) || (len == 7 && p->is_unsigned))
			p->defined = false;
		break;
	case 'c':
		p->type = A_INT;
		p->defined &= !len && !prec && !zero && !alt;
		break;
	case 's':
		p->type = A_STR;
		p->defined &= !len && !zero && !alt;
		break;
	case 'p':
		p->type = A_PTR;
		p->defined = false;	/* implementation-defined */
		break;
	case '%':
		p->type = A_NONE;
		p->defined &= s - spec == 2;	/* "%%" only */
		break;
	default:	/* unknown conversion or a lone '%' at the end */
		p->type = A_NONE;
		p->defined = false;
		break;
	}
	(void)left;
	(void)plus;
	(void)space;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t flen = nul ? (size_t)(nul - data) : size;
	char fmt[513];
	const char *cursor = fmt;
	struct fuzz_in in;
	static char kbig[1 << 16], cbig[1 << 16];

	if (flen > 512)
		flen = 512;
	memcpy(fmt, data, flen);
	fmt[flen] = '\0';
	in.p = nul ? nul + 1 : data + size;
	in.left = nul ? size - flen - 1 : 0;

	for (int pieces = 0; *cursor && pieces < 64; pieces++) {
		struct piece p;
		uint64_t v;
		size_t sz;
		char *exact;
		int kn, kn2;

		next_piece(&cursor, &p, &in);
		v = fuzz_take(&in, 8);
		{
			size_t sl = (size_t)fuzz_take(&in, 1) % (sizeof(str_arg) - 1);

			for (size_t i = 0; i < sl; i++)
				str_arg[i] = (char)(0x20 + (fuzz_take(&in, 1) % 0x5f));
			str_arg[sl] = '\0';
		}
		if (p.conv == 'c')	/* printable, not NUL: outputs stay strings */
			v = 0x20 + v % 0x5f;
		kn = k_call(kbig, sizeof(kbig), &p, v);
		/* Widths run to 6 digits: the output may outgrow kbig (then it is cut). */
		FUZZ_CHECK(kn >= 0);
		FUZZ_CHECK(strlen(kbig) == ((size_t)kn < sizeof(kbig) ? (size_t)kn : sizeof(kbig) - 1));
		sz = (size_t)fuzz_take(&in, 1) % 96;
		exact = malloc(sz ? sz : 1);
		FUZZ_CHECK(exact != NULL);
		kn2 = k_call(sz ? exact : NULL, sz, &p, v);
		FUZZ_CHECK_MSG(kn2 == kn, "'%s': %d with size %zu, %d with a large buffer", p.fmt, kn2, sz, kn);
		if (sz) {
			size_t keep = (size_t)kn < sz - 1 ? (size_t)kn : sz - 1;

			FUZZ_CHECK_MSG(memcmp(exact, kbig, keep) == 0 && exact[keep] == '\0',
				       "'%s': truncated output into %zu bytes is not the prefix", p.fmt, sz);
		}
		free(exact);
		if (p.defined) {
			int cn = c_call(cbig, sizeof(cbig), &p, v);

			FUZZ_CHECK_MSG(cn == kn && strcmp(cbig, kbig) == 0,
				       "format '%s' (arg 0x%llx, stars %d %d, str '%s'): kernel %d '%s', libc %d '%s'",
				       p.fmt, (unsigned long long)v, p.star[0], p.star[1], str_arg, kn, kbig, cn,
				       cbig);
		}
	}
	return 0;
}
