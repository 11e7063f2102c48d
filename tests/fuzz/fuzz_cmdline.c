/*
 * Fuzz target `cmdline`: kernel/lib/cmdline.c (include/kernel/lib/cmdline.h).
 *
 * Input: byte 0 picks max_args (1..CMDLINE_MAX_ARGS + 4) for
 * cmdline_split(); the rest, up to the first NUL, is the text. Checked:
 *  - cmdline_split() on an exact-size copy with an exact-size argv (ASan
 *    sees any write past either): argc < max_args, argv[argc] == NULL,
 *    the words lie in the buffer, in order, without overlap; errors are
 *    CMDLINE_ETOOMANY or CMDLINE_EQUOTE only; the same text with a larger
 *    argv gives the same words;
 *  - cmdline_next_command(): commands lie in the buffer, in order, start
 *    with no blank or ';', and one cut at a ';' is not inside a quote, so
 *    it splits without CMDLINE_EQUOTE;
 *  - bootargs_parse(): on success at most BOOTARGS_MAX_KEYS keys, each
 *    inside ba->buf, a key holds no blank, '\n' or '=', an unquoted value no
 *    blank or '\n'; bootargs_get() is the last occurrence; on failure nr is
 *    0 and err says why. bootargs_get_uint() agrees with strtoull() on
 *    "strict decimal or 0x-hex" values (differential).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "kernel/lib/cmdline.h"
#include "tests/fuzz/fuzz.h"

static bool in_buf(const char *buf, size_t size, const char *p)
{
	return p >= buf && p < buf + size && memchr(p, '\0', (size_t)(buf + size - p)) != NULL;
}

static int split_checked(const char *text, size_t n, int max_args, char ***argv_out, char **buf_out)
{
	char *buf = malloc(n + 1);
	char **argv = malloc(sizeof(*argv) * (size_t)max_args);
	int argc;

	FUZZ_CHECK(buf && argv);
	memcpy(buf, text, n + 1);
	argc = cmdline_split(buf, argv, max_args);
	if (argc < 0) {
		FUZZ_CHECK(argc == CMDLINE_ETOOMANY || argc == CMDLINE_EQUOTE);
	} else {
		FUZZ_CHECK(argc < max_args);
		FUZZ_CHECK(argv[argc] == NULL);
		for (int i = 0; i < argc; i++) {
			FUZZ_CHECK(in_buf(buf, n + 1, argv[i]));
			if (i > 0)
				FUZZ_CHECK(argv[i] > argv[i - 1] + strlen(argv[i - 1]));
		}
	}
	*argv_out = argv;
	*buf_out = buf;
	return argc;
}

static void check_split(const char *text, size_t n, int max_args)
{
	char **a, **b, *ba, *bb;
	int na = split_checked(text, n, max_args, &a, &ba);
	int nb = split_checked(text, n, CMDLINE_MAX_ARGS + 8, &b, &bb);

	/* More room never changes the words, only lifts ETOOMANY. */
	if (na >= 0) {
		FUZZ_CHECK(nb == na);
		for (int i = 0; i < na; i++)
			FUZZ_CHECK(strcmp(a[i], b[i]) == 0);
	} else if (na == CMDLINE_EQUOTE) {
		FUZZ_CHECK(nb == CMDLINE_EQUOTE);
	} else if (nb >= 0) {
		FUZZ_CHECK(nb >= max_args - 1);
	}
	free(a);
	free(b);
	free(ba);
	free(bb);
}

static void check_commands(const char *text, size_t n)
{
	char *buf = malloc(n + 1), *cursor, *cmd, *prev_end;

	FUZZ_CHECK(buf != NULL);
	memcpy(buf, text, n + 1);
	cursor = buf;
	prev_end = buf;
	while ((cmd = cmdline_next_command(&cursor)) != NULL) {
		size_t len;

		FUZZ_CHECK(in_buf(buf, n + 1, cmd));
		FUZZ_CHECK(cmd >= prev_end);
		FUZZ_CHECK(*cmd != '\0' && *cmd != ' ' && *cmd != '\t' && *cmd != ';');
		len = strlen(cmd);
		prev_end = cmd + len;
		if (cursor) {
			char **argv, *copy;
			int argc;

			FUZZ_CHECK(cursor == cmd + len + 1 && text[cursor - 1 - buf] == ';');
			argc = split_checked(cmd, len, CMDLINE_MAX_ARGS + 1, &argv, &copy);
			FUZZ_CHECK_MSG(argc != CMDLINE_EQUOTE, "command cut at a ';' inside a quote: '%s'", cmd);
			free(argv);
			free(copy);
		}
	}
	FUZZ_CHECK(cursor == NULL);
	FUZZ_CHECK(cmdline_next_command(&cursor) == NULL);
	free(buf);
}

/* strtoull() on the documented syntax: digits only, or 0x/0X + hex digits. */
static int ref_uint(const char *s, unsigned long *out)
{
	int base = 10;
	const char *d = s;
	char *end;
	unsigned long long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		d = s + 2;
	}
	if (!*d)
		return CMDLINE_EINVAL;
	for (const char *p = d; *p; p++) {
		bool ok = (*p >= '0' && *p <= '9') ||
			  (base == 16 && ((*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')));

		if (!ok)
			return CMDLINE_EINVAL;
	}
	errno = 0;
	v = strtoull(d, &end, base);
	if (errno == ERANGE || *end || v > (unsigned long long)(unsigned long)-1)
		return CMDLINE_EINVAL;
	*out = (unsigned long)v;
	return CMDLINE_OK;
}

static void check_bootargs(const char *text, size_t n)
{
	static struct bootargs ba;
	int rc = bootargs_parse(&ba, text);

	if (rc != CMDLINE_OK) {
		FUZZ_CHECK(rc == CMDLINE_ETOOLONG || rc == CMDLINE_ETOOMANY || rc == CMDLINE_EQUOTE);
		FUZZ_CHECK(ba.nr == 0);
		FUZZ_CHECK(ba.err[0] != '\0' && memchr(ba.err, '\0', sizeof(ba.err)));
		FUZZ_CHECK(rc != CMDLINE_ETOOLONG || n >= BOOTARGS_MAX_LEN);
		return;
	}
	FUZZ_CHECK(n < BOOTARGS_MAX_LEN);
	FUZZ_CHECK(ba.nr >= 0 && ba.nr <= BOOTARGS_MAX_KEYS);
	for (int i = 0; i < ba.nr; i++) {
		const char *k = ba.key[i], *v = ba.value[i];
		const char *got;
		unsigned long u = 0, ru = 0;
		int last = i, urc, rrc;

		FUZZ_CHECK(in_buf(ba.buf, sizeof(ba.buf), k));
		FUZZ_CHECK(strpbrk(k, " \t\n=") == NULL);
		if (v) {
			FUZZ_CHECK(in_buf(ba.buf, sizeof(ba.buf), v));
			if (v[-1] != '"')
				FUZZ_CHECK(strpbrk(v, " \t\n") == NULL);
			else
				FUZZ_CHECK(strchr(v, '"') == NULL);
		}
		for (int j = i + 1; j < ba.nr; j++)
			if (strcmp(ba.key[j], k) == 0)
				last = j;
		FUZZ_CHECK(bootargs_has(&ba, k));
		got = bootargs_get(&ba, k);
		FUZZ_CHECK(got == ba.value[last]);
		urc = bootargs_get_uint(&ba, k, &u);
		if (!got) {
			FUZZ_CHECK(urc == CMDLINE_EINVAL);
			continue;
		}
		rrc = ref_uint(got, &ru);
		FUZZ_CHECK_MSG(urc == rrc, "bootargs_get_uint('%s') = %d, strtoull says %d", got, urc, rrc);
		if (urc == CMDLINE_OK)
			FUZZ_CHECK(u == ru);
	}
	if (!bootargs_has(&ba, "\x01not-a-key")) {
		FUZZ_CHECK(bootargs_get(&ba, "\x01not-a-key") == NULL);
		FUZZ_CHECK(bootargs_get_uint(&ba, "\x01not-a-key", NULL) == CMDLINE_ENOENT);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	size_t n;
	int max_args;

	if (size == 0)
		return 0;
	max_args = 1 + data[0] % (CMDLINE_MAX_ARGS + 4);
	text = malloc(size);
	FUZZ_CHECK(text != NULL);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	n = strlen(text);
	check_split(text, n, max_args);
	check_commands(text, n);
	check_bootargs(text, n);
	free(text);
	return 0;
}
