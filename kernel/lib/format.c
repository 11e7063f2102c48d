/* kvsnprintf(): see include/kernel/lib/format.h. */
#include "kernel/lib/format.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct out {
	char *buf;
	size_t size, len;	/* len counts every byte, stored or not */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_n(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left, zero, plus, space, alt;
	int width, prec;	/* prec < 0: none */
};

/* Emit digits (already reversed in tmp) with sign/prefix, padding and precision. */
static void emit_number(struct out *o, const struct spec *s, const char *prefix,
			const char *rev, int ndig)
{
	int plen = (int)strlen(prefix);
	int zeros = s->prec > ndig ? s->prec - ndig : 0;
	int body = plen + zeros + ndig;
	int pad = s->width > body ? s->width - body : 0;

	if (!s->left && !(s->zero && s->prec < 0))
		put_n(o, ' ', pad);
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	if (!s->left && s->zero && s->prec < 0)
		put_n(o, '0', pad);
	put_n(o, '0', zeros);
	while (ndig > 0)
		put(o, rev[--ndig]);
	if (s->left)
		put_n(o, ' ', pad);
}

static void format_int(struct out *o, const struct spec *s, char conv, uintmax_t v, bool neg)
{
	const char *digits = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X' || conv == 'p') ? 16 : 10;
	char rev[3 * sizeof(uintmax_t) + 1];
	char prefix[3] = "";
	bool nonzero = v != 0;
	int n = 0;

	for (; v != 0; v /= base)
		rev[n++] = digits[v % base];	/* base is 8, 10 or 16 */
	if (n == 0 && s->prec != 0)
		rev[n++] = '0';
	if (conv == 'd' || conv == 'i') {
		if (neg)
			prefix[0] = '-';
		else if (s->plus)
			prefix[0] = '+';
		else if (s->space)
			prefix[0] = ' ';
	} else if (s->alt && base == 16 && (nonzero || conv == 'p')) {
		/* C: '#' prefixes 0x to a nonzero result only. */
		prefix[0] = '0';
		prefix[1] = conv == 'X' ? 'X' : 'x';
	} else if (s->alt && base == 8 && (n == 0 || rev[n - 1] != '0') && s->prec <= n) {
		/* C: '#' raises the precision just enough for a leading zero. */
		prefix[0] = '0';
	}
	emit_number(o, s, prefix, rev, n);
}

static void format_str(struct out *o, const struct spec *s, const char *str)
{
	int n = 0;

	if (!str)
		str = "(null)";
	while (str[n] && (s->prec < 0 || n < s->prec))
		n++;
	if (!s->left)
		put_n(o, ' ', s->width - n);
	for (int i = 0; i < n; i++)
		put(o, str[i]);
	if (s->left)
		put_n(o, ' ', s->width - n);
}

static int parse_num(const char **p)
{
	int v = 0;

	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

enum len { L_INT, L_CHAR, L_SHORT, L_LONG, L_LLONG, L_SIZE, L_MAX, L_PTRDIFF };

static uintmax_t fetch_unsigned(va_list *ap, enum len l)
{
	switch (l) {
	case L_CHAR: return (unsigned char)va_arg(*ap, unsigned int);
	case L_SHORT: return (unsigned short)va_arg(*ap, unsigned int);
	case L_LONG: return va_arg(*ap, unsigned long);
	case L_LLONG: return va_arg(*ap, unsigned long long);
	case L_SIZE: return va_arg(*ap, size_t);
	case L_MAX: return va_arg(*ap, uintmax_t);
	case L_PTRDIFF: return (uintmax_t)va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, unsigned int);
	}
}

static intmax_t fetch_signed(va_list *ap, enum len l)
{
	switch (l) {
	case L_CHAR: return (signed char)va_arg(*ap, int);
	case L_SHORT: return (short)va_arg(*ap, int);
	case L_LONG: return va_arg(*ap, long);
	case L_LLONG: return va_arg(*ap, long long);
	case L_SIZE: return (intmax_t)va_arg(*ap, size_t);
	case L_MAX: return va_arg(*ap, intmax_t);
	case L_PTRDIFF: return va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, int);
	}
}

static enum len parse_len(const char **p)
{
	switch (**p) {
	case 'h':
		(*p)++;
		if (**p == 'h') {
			(*p)++;
			return L_CHAR;
		}
		return L_SHORT;
	case 'l':
		(*p)++;
		if (**p == 'l') {
			(*p)++;
			return L_LLONG;
		}
		return L_LONG;
	case 'z': (*p)++; return L_SIZE;
	case 'j': (*p)++; return L_MAX;
	case 't': (*p)++; return L_PTRDIFF;
	default: return L_INT;
	}
}

static void parse_flags(const char **p, struct spec *s)
{
	for (;; (*p)++) {
		switch (**p) {
		case '-': s->left = true; break;
		case '0': s->zero = true; break;
		case '+': s->plus = true; break;
		case ' ': s->space = true; break;
		case '#': s->alt = true; break;
		default: return;
		}
	}
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct out o = { buf, size, 0 };
	va_list ap;

	va_copy(ap, ap_in);
	for (const char *p = fmt; *p; p++) {
		struct spec s = { .prec = -1 };
		enum len l;

		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		parse_flags(&p, &s);
		if (*p == '*') {
			s.width = va_arg(ap, int);
			if (s.width < 0) {
				s.left = true;
				s.width = -s.width;
			}
			p++;
		} else {
			s.width = parse_num(&p);
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				s.prec = va_arg(ap, int);
				p++;
			} else {
				s.prec = parse_num(&p);
			}
		}
		l = parse_len(&p);
		switch (*p) {
		case 'd':
		case 'i': {
			intmax_t v = fetch_signed(&ap, l);
			uintmax_t mag = v < 0 ? -(uintmax_t)v : (uintmax_t)v;

			format_int(&o, &s, *p, mag, v < 0);
			break;
		}
		case 'u':
		case 'o':
		case 'x':
		case 'X':
			format_int(&o, &s, *p, fetch_unsigned(&ap, l), false);
			break;
		case 'p':
			s.alt = true;
			format_int(&o, &s, 'p', (uintptr_t)va_arg(ap, void *), false);
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);

			if (!s.left)
				put_n(&o, ' ', s.width - 1);
			put(&o, c);
			if (s.left)
				put_n(&o, ' ', s.width - 1);
			break;
		}
		case 's':
			format_str(&o, &s, va_arg(ap, const char *));
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			p--;	/* lone '%' at the end: stop at the terminator */
			break;
		default:	/* unknown conversion: print it as written */
			put(&o, '%');
			put(&o, *p);
			break;
		}
	}
	va_end(ap);
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int format_error(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -1;
}
