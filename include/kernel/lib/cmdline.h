/*
 * Command-line words and the kernel's boot arguments.
 *
 * cmdline_split() tokenises one command in place: words separated by spaces
 * or tabs; "double" and 'single' quotes group; backslash escapes the next
 * character outside single quotes. cmdline_next_command() cuts a line at the
 * next ';' outside quotes.
 *
 * bootargs_parse() reads /chosen/bootargs: `key=value` (value may be
 * "double quoted", may be empty), or a bare `flag`. The text is copied into
 * the struct, so the source may go away.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CMDLINE_MAX_ARGS 16

enum cmdline_err {
	CMDLINE_OK = 0,
	CMDLINE_ETOOMANY = -1,		/* more than CMDLINE_MAX_ARGS words */
	CMDLINE_EQUOTE = -2,		/* unterminated quote */
	CMDLINE_ETOOLONG = -3,
	CMDLINE_ENOENT = -4,		/* key absent */
	CMDLINE_EINVAL = -5,		/* value is not a number */
};

/* Split @line in place into @argv (NULL-terminated). Returns argc or < 0. */
int cmdline_split(char *line, char **argv, int max_args);
const char *cmdline_strerror(int err);
/*
 * Return the next ';'-separated command of *@cursor (NUL-terminated in
 * place, leading blanks skipped) and advance *@cursor; NULL at the end.
 * A ';' inside quotes or after a backslash does not separate.
 */
char *cmdline_next_command(char **cursor);

#define BOOTARGS_MAX_LEN 1024
#define BOOTARGS_MAX_KEYS 32

struct bootargs {
	char buf[BOOTARGS_MAX_LEN];
	const char *key[BOOTARGS_MAX_KEYS];
	const char *value[BOOTARGS_MAX_KEYS];	/* NULL for a bare flag */
	int nr;
	char err[96];
};

int bootargs_parse(struct bootargs *ba, const char *cmdline);
/* Value of @key (last occurrence wins), "" for `key=`, NULL if absent or a flag. */
const char *bootargs_get(const struct bootargs *ba, const char *key);
bool bootargs_has(const struct bootargs *ba, const char *key);
/* Strict decimal or 0x-hex. CMDLINE_ENOENT if absent, CMDLINE_EINVAL if not a number. */
int bootargs_get_uint(const struct bootargs *ba, const char *key, unsigned long *out);

/*
 * A console argument as a whole-string decimal number in [lo, hi]: digits
 * only (and a leading '-' for the signed form); false otherwise.
 */
bool cmdline_parse_long(const char *s, long lo, long hi, long *out);
bool cmdline_parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out);

#endif
