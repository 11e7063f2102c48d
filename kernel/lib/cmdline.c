/* Command tokenising and boot-argument parsing; see include/kernel/lib/cmdline.h. */
#include "kernel/lib/cmdline.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/panic.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int cmdline_split(char *line, char **argv, int max_args)
{
	char *r = line, *w = line;
	int argc = 0;

	KASSERT(max_args >= 1);
	for (;;) {
		char quote = 0;

		while (is_blank(*r))
			r++;
		if (!*r)
			break;
		if (argc == max_args - 1)
			return CMDLINE_ETOOMANY;
		argv[argc++] = w;
		while (*r && (quote || !is_blank(*r))) {
			char c = *r++;

			if (quote == '\'') {
				if (c == '\'')
					quote = 0;
				else
					*w++ = c;
			} else if (c == '\\') {
				if (*r)
					*w++ = *r++;
			} else if (quote == '"' && c == '"') {
				quote = 0;
			} else if (!quote && (c == '"' || c == '\'')) {
				quote = c;
			} else {
				*w++ = c;
			}
		}
		if (quote)
			return CMDLINE_EQUOTE;
		/* w <= r always holds, so terminating here is safe. */
		if (*r)
			r++;
		*w++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

const char *cmdline_strerror(int err)
{
	switch (err) {
	case CMDLINE_ETOOMANY: return "too many arguments (max 16)";
	case CMDLINE_EQUOTE: return "unterminated quote";
	case CMDLINE_ETOOLONG: return "too long";
	case CMDLINE_ENOENT: return "not set";
	case CMDLINE_EINVAL: return "not a number";
	default: return "error";
	}
}

char *cmdline_next_command(char **cursor)
{
	char *s = *cursor, *p;
	char quote = 0;

	if (!s)
		return NULL;
	while (is_blank(*s) || *s == ';')
		s++;
	if (!*s) {
		*cursor = NULL;
		return NULL;
	}
	for (p = s; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (*p == '\\' && quote == '"' && p[1])
				p++;
		} else if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == ';') {
			break;
		}
	}
	if (*p) {
		*p = '\0';
		*cursor = p + 1;
	} else {
		*cursor = NULL;
	}
	return s;
}

static int ba_fail(struct bootargs *ba, int err, const char *msg)
{
	size_t n = strlen(msg);

	if (n >= sizeof(ba->err))
		n = sizeof(ba->err) - 1;
	memcpy(ba->err, msg, n);
	ba->err[n] = '\0';
	ba->nr = 0;
	return err;
}

int bootargs_parse(struct bootargs *ba, const char *cmdline)
{
	size_t len = strlen(cmdline);
	char *p;

	ba->nr = 0;
	ba->err[0] = '\0';
	if (len >= sizeof(ba->buf))
		return ba_fail(ba, CMDLINE_ETOOLONG, "command line longer than 1023 bytes");
	memcpy(ba->buf, cmdline, len + 1);
	p = ba->buf;
	for (;;) {
		char *key, *val = NULL;

		while (is_blank(*p) || *p == '\n')
			p++;
		if (!*p)
			return CMDLINE_OK;
		if (ba->nr == BOOTARGS_MAX_KEYS)
			return ba_fail(ba, CMDLINE_ETOOMANY, "more than 32 boot arguments");
		key = p;
		while (*p && !is_blank(*p) && *p != '\n' && *p != '=')
			p++;
		if (*p == '=') {
			*p++ = '\0';
			val = p;
			if (*p == '"') {
				char *end = strchr(p + 1, '"');

				if (!end)
					return ba_fail(ba, CMDLINE_EQUOTE, "unterminated quote in boot arguments");
				val = p + 1;
				*end = '\0';
				p = end + 1;
				if (*p && !is_blank(*p) && *p != '\n')
					return ba_fail(ba, CMDLINE_EQUOTE,
						       "text right after a closing quote in boot arguments");
			} else {
				while (*p && !is_blank(*p) && *p != '\n')
					p++;
			}
		}
		if (*p)
			*p++ = '\0';
		ba->key[ba->nr] = key;
		ba->value[ba->nr] = val;
		ba->nr++;
	}
}

static int find_key(const struct bootargs *ba, const char *key)
{
	for (int i = ba->nr - 1; i >= 0; i--)
		if (strcmp(ba->key[i], key) == 0)
			return i;
	return -1;
}

const char *bootargs_get(const struct bootargs *ba, const char *key)
{
	int i = find_key(ba, key);

	return i < 0 ? NULL : ba->value[i];
}

bool bootargs_has(const struct bootargs *ba, const char *key)
{
	return find_key(ba, key) >= 0;
}

int bootargs_get_uint(const struct bootargs *ba, const char *key, unsigned long *out)
{
	const char *s = bootargs_get(ba, key);
	unsigned long v = 0, base = 10;

	if (!bootargs_has(ba, key))
		return CMDLINE_ENOENT;
	if (!s || !*s)
		return CMDLINE_EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return CMDLINE_EINVAL;
	}
	for (; *s; s++) {
		unsigned long d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned long)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned long)(*s - 'a') + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned long)(*s - 'A') + 10;
		else
			return CMDLINE_EINVAL;
		if (v > (ULONG_MAX - d) / base)
			return CMDLINE_EINVAL;
		v = v * base + d;
	}
	*out = v;
	return CMDLINE_OK;
}

bool cmdline_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	v = strtol(s, &end, 10);
	if (*end || end == s || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool cmdline_parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !(*s >= '0' && *s <= '9'))
		return false;
	v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}
