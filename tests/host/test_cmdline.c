/*
 * kernel/lib/cmdline.c: cmdline_split (words, quotes, escapes, limits),
 * cmdline_next_command (';' outside quotes), and the boot-argument parser
 * (key=value, "quoted", flags, duplicates, limits, strict numbers).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "kernel/lib/cmdline.h"

#define SENTINEL ((char *)(uintptr_t)0x5a5a5a5a)

/*
 * Split a copy of @in with @max_args and compare with the NULL-terminated
 * list @want (or expect the error @want_err when @want is NULL). argv slots
 * from max_args on must stay untouched.
 */
static const char *split_check(const char *in, int max_args, const char *const *want, int want_err)
{
	static char why[512];
	char line[2048];
	char *argv[40];
	int argc, n = 0;

	snprintf(line, sizeof(line), "%s", in);
	for (int i = 0; i < 40; i++)
		argv[i] = SENTINEL;
	argc = cmdline_split(line, argv, max_args);
	for (int i = max_args; i < 40; i++)
		if (argv[i] != SENTINEL) {
			snprintf(why, sizeof(why), "'%s': argv[%d] written past max_args %d", in, i, max_args);
			return why;
		}
	if (!want) {
		if (argc != want_err) {
			snprintf(why, sizeof(why), "'%s': returned %d, expected error %d", in, argc, want_err);
			return why;
		}
		return NULL;
	}
	while (want[n])
		n++;
	if (argc != n) {
		snprintf(why, sizeof(why), "'%s': argc %d, expected %d", in, argc, n);
		return why;
	}
	for (int i = 0; i < n; i++) {
		if (argv[i] < line || argv[i] >= line + sizeof(line)) {
			snprintf(why, sizeof(why), "'%s': argv[%d] does not point into the line", in, i);
			return why;
		}
		if (strcmp(argv[i], want[i]) != 0) {
			snprintf(why, sizeof(why), "'%s': argv[%d] = '%s', expected '%s'", in, i, argv[i], want[i]);
			return why;
		}
	}
	if (argv[n] != NULL) {
		snprintf(why, sizeof(why), "'%s': argv[%d] is not NULL", in, n);
		return why;
	}
	return NULL;
}

#define SPLIT_OK(in, ...)                                                    \
	do {                                                                 \
		const char *why_ = split_check((in), CMDLINE_MAX_ARGS + 1,   \
					       (const char *const[]){ __VA_ARGS__, NULL }, 0); \
		KT_ASSERT_MSG(!why_, "%s", why_);                             \
	} while (0)
#define SPLIT_NONE(in)                                                       \
	do {                                                                 \
		const char *why_ = split_check((in), CMDLINE_MAX_ARGS + 1,   \
					       (const char *const[]){ NULL }, 0); \
		KT_ASSERT_MSG(!why_, "%s", why_);                             \
	} while (0)
#define SPLIT_ERR(in, max, err)                                              \
	do {                                                                 \
		const char *why_ = split_check((in), (max), NULL, (err));    \
		KT_ASSERT_MSG(!why_, "%s", why_);                             \
	} while (0)

/* ------------------------------------------------------------ cmdline_split */

KT_CASE(split_words_and_blanks)
{
	SPLIT_OK("help", "help");
	SPLIT_OK("sched list", "sched", "list");
	SPLIT_OK("  a\tb   c  ", "a", "b", "c");
	SPLIT_OK("\t\tx\t", "x");
	SPLIT_OK("a;b", "a;b");		/* ';' is cmdline_next_command's business */
	SPLIT_OK("-x --y=1 +z", "-x", "--y=1", "+z");
	SPLIT_NONE("");
	SPLIT_NONE(" ");
	SPLIT_NONE(" \t \t ");
}

KT_CASE(split_quotes)
{
	SPLIT_OK("echo \"hello world\" 'single quoted'", "echo", "hello world", "single quoted");
	SPLIT_OK("a\"b c\"d", "ab cd");
	SPLIT_OK("x \"\" ''", "x", "", "");
	SPLIT_OK("\"\"", "");
	SPLIT_OK("\"it's\"", "it's");
	SPLIT_OK("'say \"hi\"'", "say \"hi\"");
	SPLIT_OK("\"tab\there\"", "tab\there");
	SPLIT_OK("'a'\"b\"c", "abc");
	SPLIT_OK("\"  lead and trail  \"", "  lead and trail  ");
	SPLIT_OK("\"a;b\" c", "a;b", "c");
	SPLIT_ERR("echo \"abc", CMDLINE_MAX_ARGS + 1, CMDLINE_EQUOTE);
	SPLIT_ERR("echo 'abc", CMDLINE_MAX_ARGS + 1, CMDLINE_EQUOTE);
	SPLIT_ERR("\"", CMDLINE_MAX_ARGS + 1, CMDLINE_EQUOTE);
	SPLIT_ERR("'it\\'s'", CMDLINE_MAX_ARGS + 1, CMDLINE_EQUOTE);	/* no escapes in '' */
	SPLIT_ERR("ok \"a\" 'b", CMDLINE_MAX_ARGS + 1, CMDLINE_EQUOTE);
}

KT_CASE(split_backslash)
{
	SPLIT_OK("a\\ b", "a b");
	SPLIT_OK("\"a\\\"b\"", "a\"b");
	SPLIT_OK("'a\\b'", "a\\b");		/* literal inside single quotes */
	SPLIT_OK("\\\\", "\\");
	SPLIT_OK("\\'x", "'x");
	SPLIT_OK("\\\"", "\"");
	SPLIT_OK("abc\\", "abc");		/* a trailing backslash escapes nothing */
	SPLIT_OK("a\\\tb c", "a\tb", "c");
}

KT_CASE(split_arg_limit)
{
	char line[256] = "";
	const char *want[CMDLINE_MAX_ARGS + 1];
	static char words[CMDLINE_MAX_ARGS + 1][16];
	const char *why;

	/* max_args counts the NULL: 16 words fit in 17 slots, 17 do not. */
	for (int i = 0; i < CMDLINE_MAX_ARGS; i++) {
		snprintf(words[i], sizeof(words[i]), "w%u", (unsigned)i % 100u);
		want[i] = words[i];
		strcat(line, words[i]);
		strcat(line, " ");
	}
	want[CMDLINE_MAX_ARGS] = NULL;
	why = split_check(line, CMDLINE_MAX_ARGS + 1, want, 0);
	KT_ASSERT_MSG(!why, "%s", why);
	strcat(line, "extra");
	SPLIT_ERR(line, CMDLINE_MAX_ARGS + 1, CMDLINE_ETOOMANY);
	/* Trailing blanks after the last word do not count as a word. */
	SPLIT_ERR("a b c d", 4, CMDLINE_ETOOMANY);
	why = split_check("a b c   ", 4, (const char *const[]){ "a", "b", "c", NULL }, 0);
	KT_ASSERT_MSG(!why, "%s", why);
	/* max_args 1: only the empty line. */
	why = split_check("   ", 1, (const char *const[]){ NULL }, 0);
	KT_ASSERT_MSG(!why, "%s", why);
	SPLIT_ERR("a", 1, CMDLINE_ETOOMANY);
	/* The word limit is checked before the quote: a 17th word that is unterminated. */
	SPLIT_ERR("a b c \"d", 4, CMDLINE_ETOOMANY);
}

KT_CASE(split_in_place_long_line)
{
	char line[1100];
	char *argv[CMDLINE_MAX_ARGS + 1];

	/* One 1000-character word: no length limit in the splitter itself. */
	memset(line, 'q', 1000);
	line[1000] = '\0';
	KT_ASSERT_EQ(cmdline_split(line, argv, CMDLINE_MAX_ARGS + 1), 1);
	KT_ASSERT(argv[0] == line);
	KT_ASSERT_EQ(strlen(argv[0]), 1000);
	KT_ASSERT(argv[1] == NULL);
	/* Words are rewritten in place, left to right. */
	strcpy(line, "\"ab\" c");
	KT_ASSERT_EQ(cmdline_split(line, argv, CMDLINE_MAX_ARGS + 1), 2);
	KT_ASSERT(argv[0] == line);
	KT_ASSERT_STREQ(argv[0], "ab");
	KT_ASSERT_STREQ(argv[1], "c");
}

KT_CASE(strerror_strings)
{
	KT_ASSERT_STREQ(cmdline_strerror(CMDLINE_ETOOMANY), "too many arguments (max 16)");
	KT_ASSERT_STREQ(cmdline_strerror(CMDLINE_EQUOTE), "unterminated quote");
	KT_ASSERT_STREQ(cmdline_strerror(CMDLINE_ETOOLONG), "too long");
	KT_ASSERT_STREQ(cmdline_strerror(CMDLINE_ENOENT), "not set");
	KT_ASSERT_STREQ(cmdline_strerror(CMDLINE_EINVAL), "not a number");
	KT_ASSERT_STREQ(cmdline_strerror(-99), "error");
	KT_ASSERT_EQ(CMDLINE_MAX_ARGS, 16);
}

/* ---------------------------------------------------- cmdline_next_command */

/* Cut a copy of @in into commands; compare with the NULL-terminated @want. */
static const char *commands_check(const char *in, const char *const *want)
{
	static char why[512];
	char line[1024], *cursor = line, *cmd;
	int i = 0;

	snprintf(line, sizeof(line), "%s", in);
	while ((cmd = cmdline_next_command(&cursor)) != NULL) {
		if (!want[i] || strcmp(cmd, want[i]) != 0) {
			snprintf(why, sizeof(why), "'%s': command %d is '%s', expected '%s'", in, i, cmd,
				 want[i] ? want[i] : "(end)");
			return why;
		}
		if (cursor && (cursor <= cmd || cursor > line + strlen(in))) {
			snprintf(why, sizeof(why), "'%s': cursor outside the line after command %d", in, i);
			return why;
		}
		if (++i > 64)
			return "does not terminate";
	}
	if (want[i]) {
		snprintf(why, sizeof(why), "'%s': ended after %d commands, expected '%s' next", in, i, want[i]);
		return why;
	}
	if (cursor != NULL)
		return "cursor not NULL at the end";
	if (cmdline_next_command(&cursor) != NULL)
		return "a command after the end";
	return NULL;
}

#define COMMANDS(in, ...)                                                    \
	do {                                                                 \
		const char *why_ = commands_check((in), (const char *const[]){ __VA_ARGS__ }); \
		KT_ASSERT_MSG(!why_, "%s", why_);                             \
	} while (0)

KT_CASE(next_command_separators)
{
	COMMANDS("help", "help", NULL);
	COMMANDS("a; b ;c", "a", "b ", "c", NULL);
	COMMANDS(";;; a ;;", "a ", NULL);
	COMMANDS("  \t lead", "lead", NULL);
	COMMANDS("x;", "x", NULL);
	COMMANDS("", NULL);
	COMMANDS("   ", NULL);
	COMMANDS(" ; ;\t; ", NULL);
	COMMANDS("sched list;sched info 3; help", "sched list", "sched info 3", "help", NULL);
}

KT_CASE(next_command_quotes_and_escapes)
{
	COMMANDS("echo \"x;y\"; z", "echo \"x;y\"", "z", NULL);
	COMMANDS("'a;b';c", "'a;b'", "c", NULL);
	COMMANDS("a\\;b;c", "a\\;b", "c", NULL);
	COMMANDS("\"a\\\";b\";c", "\"a\\\";b\"", "c", NULL);	/* \" inside "" */
	COMMANDS("'a\\';b", "'a\\'", "b", NULL);		/* no escapes in '' */
	COMMANDS("\"it's;\";x", "\"it's;\"", "x", NULL);
	COMMANDS("a \"b;c", "a \"b;c", NULL);			/* unterminated: the rest */
	COMMANDS("trail\\", "trail\\", NULL);
}

KT_CASE(next_command_null_cursor)
{
	char *cursor = NULL;

	KT_ASSERT(cmdline_next_command(&cursor) == NULL);
	KT_ASSERT(cursor == NULL);
}

/* Every command cmdline_next_command returns splits the way the shell does. */
KT_CASE(next_command_then_split)
{
	char line[] = "echo \"a; b\" 'c;d'; help 'x y'";
	char *cursor = line, *cmd, *argv[CMDLINE_MAX_ARGS + 1];

	cmd = cmdline_next_command(&cursor);
	KT_ASSERT_EQ(cmdline_split(cmd, argv, CMDLINE_MAX_ARGS + 1), 3);
	KT_ASSERT_STREQ(argv[1], "a; b");
	KT_ASSERT_STREQ(argv[2], "c;d");
	cmd = cmdline_next_command(&cursor);
	KT_ASSERT_EQ(cmdline_split(cmd, argv, CMDLINE_MAX_ARGS + 1), 2);
	KT_ASSERT_STREQ(argv[0], "help");
	KT_ASSERT_STREQ(argv[1], "x y");
	KT_ASSERT(cmdline_next_command(&cursor) == NULL);
}

/* ------------------------------------------------------------- bootargs */

KT_CASE(bootargs_basic)
{
	struct bootargs ba;
	unsigned long v = 0;

	KT_ASSERT_EQ(bootargs_parse(&ba, "console=ttyAMA0 autorun=\"help; sched list\" loglevel=7 quiet"),
		     CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 4);
	KT_ASSERT_STREQ(ba.err, "");
	KT_ASSERT_STREQ(ba.key[0], "console");
	KT_ASSERT_STREQ(ba.key[1], "autorun");
	KT_ASSERT_STREQ(ba.key[2], "loglevel");
	KT_ASSERT_STREQ(ba.key[3], "quiet");
	KT_ASSERT(ba.value[3] == NULL);
	KT_ASSERT_STREQ(bootargs_get(&ba, "console"), "ttyAMA0");
	KT_ASSERT_STREQ(bootargs_get(&ba, "autorun"), "help; sched list");
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "loglevel", &v), CMDLINE_OK);
	KT_ASSERT_EQ(v, 7);
	KT_ASSERT(bootargs_has(&ba, "quiet"));
	KT_ASSERT(bootargs_get(&ba, "quiet") == NULL);
	KT_ASSERT(bootargs_has(&ba, "console"));
	/* Prefixes and case do not match. */
	KT_ASSERT(!bootargs_has(&ba, "consol"));
	KT_ASSERT(!bootargs_has(&ba, "Console"));
	KT_ASSERT(!bootargs_has(&ba, "console=ttyAMA0"));
	KT_ASSERT(bootargs_get(&ba, "nope") == NULL);
	/* Values point into the struct's own copy. */
	for (int i = 0; i < ba.nr; i++) {
		KT_ASSERT(ba.key[i] >= ba.buf && ba.key[i] < ba.buf + sizeof(ba.buf));
		KT_ASSERT(!ba.value[i] || (ba.value[i] >= ba.buf && ba.value[i] < ba.buf + sizeof(ba.buf)));
	}
}

KT_CASE(bootargs_empty_and_whitespace)
{
	struct bootargs ba;

	ba.nr = 99;
	KT_ASSERT_EQ(bootargs_parse(&ba, ""), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 0);
	KT_ASSERT(!bootargs_has(&ba, ""));
	KT_ASSERT_EQ(bootargs_parse(&ba, "  \t\n \n"), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 0);
	/* Tabs and newlines separate like spaces. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "\ta=1\nb=2 \t c\n"), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 3);
	KT_ASSERT_STREQ(bootargs_get(&ba, "a"), "1");
	KT_ASSERT_STREQ(bootargs_get(&ba, "b"), "2");
	KT_ASSERT(bootargs_has(&ba, "c"));
	KT_ASSERT(bootargs_get(&ba, "c") == NULL);
}

KT_CASE(bootargs_empty_and_quoted_values)
{
	struct bootargs ba;
	unsigned long v = 42;

	KT_ASSERT_EQ(bootargs_parse(&ba, "k= e=\"\" q=\"a  b\tc\" n=\"x=y\" last="), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 5);
	KT_ASSERT_STREQ(bootargs_get(&ba, "k"), "");
	KT_ASSERT(bootargs_has(&ba, "k"));
	KT_ASSERT_STREQ(bootargs_get(&ba, "e"), "");
	KT_ASSERT_STREQ(bootargs_get(&ba, "q"), "a  b\tc");
	KT_ASSERT_STREQ(bootargs_get(&ba, "n"), "x=y");
	KT_ASSERT_STREQ(bootargs_get(&ba, "last"), "");
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "k", &v), CMDLINE_EINVAL);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "e", &v), CMDLINE_EINVAL);
	KT_ASSERT_EQ(v, 42);
	/* '=' inside an unquoted value belongs to the value. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "root=a=b"), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 1);
	KT_ASSERT_STREQ(bootargs_get(&ba, "root"), "a=b");
	/* A quoted value may span what would otherwise separate arguments. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "autorun=\"a;\nb\" x"), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 2);
	KT_ASSERT_STREQ(bootargs_get(&ba, "autorun"), "a;\nb");
	KT_ASSERT(bootargs_has(&ba, "x"));
}

KT_CASE(bootargs_duplicates_last_wins)
{
	struct bootargs ba;
	unsigned long v = 0;

	KT_ASSERT_EQ(bootargs_parse(&ba, "a=1 b=x a=2"), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 3);
	KT_ASSERT_STREQ(bootargs_get(&ba, "a"), "2");
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "a", &v), CMDLINE_OK);
	KT_ASSERT_EQ(v, 2);
	/* The last occurrence is a flag: no value any more. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "a=1 a"), CMDLINE_OK);
	KT_ASSERT(bootargs_has(&ba, "a"));
	KT_ASSERT(bootargs_get(&ba, "a") == NULL);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "a", &v), CMDLINE_EINVAL);
	/* ...and the other way round. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "a a=5"), CMDLINE_OK);
	KT_ASSERT_STREQ(bootargs_get(&ba, "a"), "5");
	KT_ASSERT_EQ(bootargs_parse(&ba, "a=5 a="), CMDLINE_OK);
	KT_ASSERT_STREQ(bootargs_get(&ba, "a"), "");
}

KT_CASE(bootargs_numbers)
{
	static const struct {
		const char *text;
		int rc;
		unsigned long v;
	} cases[] = {
		{ "0", CMDLINE_OK, 0 },
		{ "7", CMDLINE_OK, 7 },
		{ "010", CMDLINE_OK, 10 },		/* decimal, not octal */
		{ "4294967295", CMDLINE_OK, 4294967295ul },
		{ "0x10", CMDLINE_OK, 16 },
		{ "0XfF", CMDLINE_OK, 255 },
		{ "0xDeadBeef", CMDLINE_OK, 0xdeadbeeful },
		{ "0x0", CMDLINE_OK, 0 },
		{ "0x", CMDLINE_EINVAL, 0 },
		{ "0X", CMDLINE_EINVAL, 0 },
		{ "0xg", CMDLINE_EINVAL, 0 },
		{ "12x", CMDLINE_EINVAL, 0 },
		{ "1a", CMDLINE_EINVAL, 0 },		/* hex digits need 0x */
		{ "-1", CMDLINE_EINVAL, 0 },
		{ "+1", CMDLINE_EINVAL, 0 },
		{ " 1", CMDLINE_EINVAL, 0 },
		{ "1 ", CMDLINE_EINVAL, 0 },
		{ "1.5", CMDLINE_EINVAL, 0 },
		{ "0x1.", CMDLINE_EINVAL, 0 },
		{ "x10", CMDLINE_EINVAL, 0 },
		{ "00x10", CMDLINE_EINVAL, 0 },
		{ "", CMDLINE_EINVAL, 0 },
	};
	struct bootargs ba;
	char line[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long v = 12345;
		int rc;

		snprintf(line, sizeof(line), "n=\"%s\"", cases[i].text);
		KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_OK);
		KT_ASSERT_STREQ(bootargs_get(&ba, "n"), cases[i].text);
		rc = bootargs_get_uint(&ba, "n", &v);
		KT_ASSERT_MSG(rc == cases[i].rc, "'%s': %d, expected %d", cases[i].text, rc, cases[i].rc);
		KT_ASSERT_MSG(v == (rc == CMDLINE_OK ? cases[i].v : 12345ul), "'%s': value %lu",
			      cases[i].text, v);
	}
	/* Absent key, bare flag. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "flag"), CMDLINE_OK);
	{
		unsigned long v = 1;

		KT_ASSERT_EQ(bootargs_get_uint(&ba, "nope", &v), CMDLINE_ENOENT);
		KT_ASSERT_EQ(bootargs_get_uint(&ba, "flag", &v), CMDLINE_EINVAL);
		KT_ASSERT_EQ(v, 1);
	}
}

KT_CASE(bootargs_number_overflow)
{
	struct bootargs ba;
	char max[32], over[32], line[256];
	unsigned long v = 0;
	size_t n;

	/* ULONG_MAX parses; ULONG_MAX + 1 (last digit + 1: ...5 -> ...6) does not. */
	snprintf(max, sizeof(max), "%lu", ULONG_MAX);
	snprintf(over, sizeof(over), "%s", max);
	n = strlen(over);
	KT_ASSERT(over[n - 1] < '9');
	over[n - 1]++;
	snprintf(line, sizeof(line), "m=%s o=%s o10=%s0 hm=0x%lx ho=0x1%lx", max, over, max, ULONG_MAX, ULONG_MAX);
	KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_OK);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "m", &v), CMDLINE_OK);
	KT_ASSERT(v == ULONG_MAX);
	v = 3;
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "o", &v), CMDLINE_EINVAL);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "o10", &v), CMDLINE_EINVAL);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "hm", &v), CMDLINE_OK);
	KT_ASSERT(v == ULONG_MAX);
	v = 3;
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "ho", &v), CMDLINE_EINVAL);
	KT_ASSERT_EQ(v, 3);
	/* Leading zeros do not overflow. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "z=000000000000000000000000000000000000042 hz=0x0000000000000000000000ff"),
		     CMDLINE_OK);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "z", &v), CMDLINE_OK);
	KT_ASSERT_EQ(v, 42);
	KT_ASSERT_EQ(bootargs_get_uint(&ba, "hz", &v), CMDLINE_OK);
	KT_ASSERT_EQ(v, 255);
}

KT_CASE(bootargs_errors)
{
	struct bootargs ba;
	char line[BOOTARGS_MAX_LEN + 16];

	/* Unterminated quote: error, nothing parsed. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "a=1 b=\"open"), CMDLINE_EQUOTE);
	KT_ASSERT_STREQ(ba.err, "unterminated quote in boot arguments");
	KT_ASSERT_EQ(ba.nr, 0);
	KT_ASSERT(!bootargs_has(&ba, "a"));
	/* The next good parse clears the error. */
	KT_ASSERT_EQ(bootargs_parse(&ba, "a=1"), CMDLINE_OK);
	KT_ASSERT_STREQ(ba.err, "");
	KT_ASSERT_EQ(ba.nr, 1);

	/* Length: 1023 bytes fit, 1024 do not. */
	memset(line, 'x', BOOTARGS_MAX_LEN - 1);
	line[0] = 'k';
	line[1] = '=';
	line[BOOTARGS_MAX_LEN - 1] = '\0';
	KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, 1);
	KT_ASSERT_EQ(strlen(bootargs_get(&ba, "k")), BOOTARGS_MAX_LEN - 3);
	line[BOOTARGS_MAX_LEN - 1] = 'x';
	line[BOOTARGS_MAX_LEN] = '\0';
	KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_ETOOLONG);
	KT_ASSERT_STREQ(ba.err, "command line longer than 1023 bytes");
	KT_ASSERT_EQ(ba.nr, 0);
	KT_ASSERT(!bootargs_has(&ba, "k"));

	/* Count: 32 arguments fit, 33 do not. */
	line[0] = '\0';
	for (int i = 0; i < BOOTARGS_MAX_KEYS; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "k%d=%d ", i, i);
	KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, BOOTARGS_MAX_KEYS);
	KT_ASSERT_STREQ(bootargs_get(&ba, "k31"), "31");
	KT_ASSERT_STREQ(bootargs_get(&ba, "k0"), "0");
	strcat(line, "extra");
	KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_ETOOMANY);
	KT_ASSERT_STREQ(ba.err, "more than 32 boot arguments");
	KT_ASSERT_EQ(ba.nr, 0);
	/* Trailing blanks are not a 33rd argument. */
	line[strlen(line) - 5] = '\0';
	strcat(line, "   \n");
	KT_ASSERT_EQ(bootargs_parse(&ba, line), CMDLINE_OK);
	KT_ASSERT_EQ(ba.nr, BOOTARGS_MAX_KEYS);
}

KT_CASE(bootargs_copy_outlives_source)
{
	struct bootargs ba;
	char *src = strdup("console=ttyAMA0 autorun=\"help\" n=0x20");

	KT_ASSERT(src != NULL);
	KT_ASSERT_EQ(bootargs_parse(&ba, src), CMDLINE_OK);
	memset(src, 'Z', strlen(src));
	free(src);
	KT_ASSERT_STREQ(bootargs_get(&ba, "console"), "ttyAMA0");
	KT_ASSERT_STREQ(bootargs_get(&ba, "autorun"), "help");
	{
		unsigned long v = 0;

		KT_ASSERT_EQ(bootargs_get_uint(&ba, "n", &v), CMDLINE_OK);
		KT_ASSERT_EQ(v, 0x20);
	}
}

/*
 * A closing quote followed directly by the next argument: "a="x"b=1".
 * Either an error or a = x, b = 1 is reasonable; silently dropping "b" (or
 * inventing a key "") is not.
 */
KT_CASE(bootargs_quote_then_next_argument)
{
	struct bootargs ba;
	int rc = bootargs_parse(&ba, "a=\"x\"b=1");

	if (rc == CMDLINE_OK) {
		KT_ASSERT_STREQ(bootargs_get(&ba, "a"), "x");
		KT_ASSERT_MSG(bootargs_has(&ba, "b") && !bootargs_has(&ba, ""),
			      "a=\"x\"b=1 parsed into %d arguments, key[1] = '%s'", ba.nr,
			      ba.nr > 1 ? ba.key[1] : "(none)");
		KT_ASSERT_STREQ(bootargs_get(&ba, "b"), "1");
	} else {
		KT_ASSERT(rc < 0);
		KT_ASSERT(ba.err[0] != '\0');
	}
}

/* Random input: the parser must not crash and its results stay inside buf. */
KT_CASE(bootargs_random_input)
{
	static const char alphabet[] = "ab=\" \t\n0x9;'\\";
	uint64_t s = 0x1234567;
	struct bootargs ba;
	char line[BOOTARGS_MAX_LEN + 64];

	for (int it = 0; it < 20000; it++) {
		size_t n;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		n = (size_t)(s % 60);
		if (it % 1000 == 0)
			n = BOOTARGS_MAX_LEN - 2 + (size_t)(s % 4);
		for (size_t i = 0; i < n; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			line[i] = alphabet[s % (sizeof(alphabet) - 1)];
		}
		line[n] = '\0';
		if (bootargs_parse(&ba, line) == CMDLINE_OK) {
			unsigned long v;

			KT_ASSERT(ba.nr >= 0 && ba.nr <= BOOTARGS_MAX_KEYS);
			for (int i = 0; i < ba.nr; i++) {
				KT_ASSERT(ba.key[i] >= ba.buf && ba.key[i] < ba.buf + sizeof(ba.buf));
				KT_ASSERT(!ba.value[i] ||
					  (ba.value[i] >= ba.buf && ba.value[i] < ba.buf + sizeof(ba.buf)));
				(void)bootargs_get_uint(&ba, ba.key[i], &v);
			}
		} else {
			KT_ASSERT_EQ(ba.nr, 0);
			KT_ASSERT(ba.err[0] != '\0');
		}
	}
}

/* Random bytes through the splitter and command cutter. */
KT_CASE(split_random_input)
{
	static const char alphabet[] = "ab \t\"'\\;";
	uint64_t s = 42;
	char line[128], *argv[CMDLINE_MAX_ARGS + 1];

	for (int it = 0; it < 50000; it++) {
		char *cursor = line, *cmd;
		size_t n;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		n = (size_t)(s % 100);
		for (size_t i = 0; i < n; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			line[i] = alphabet[s % (sizeof(alphabet) - 1)];
		}
		line[n] = '\0';
		while ((cmd = cmdline_next_command(&cursor)) != NULL) {
			int argc = cmdline_split(cmd, argv, CMDLINE_MAX_ARGS + 1);

			KT_ASSERT(argc == CMDLINE_ETOOMANY || argc == CMDLINE_EQUOTE ||
				  (argc >= 0 && argc <= CMDLINE_MAX_ARGS));
			if (argc >= 0) {
				KT_ASSERT(argv[argc] == NULL);
				for (int i = 0; i < argc; i++)
					KT_ASSERT(argv[i] >= line && argv[i] < line + n + 1);
			}
		}
	}
}

KT_CASE(console_number_arguments)
{
	long l;
	unsigned long u;

	KT_ASSERT(cmdline_parse_long("42", 0, 100, &l) && l == 42);
	KT_ASSERT(cmdline_parse_long("-20", -20, 19, &l) && l == -20);
	KT_ASSERT(!cmdline_parse_long("-21", -20, 19, &l));
	KT_ASSERT(!cmdline_parse_long("20", -20, 19, &l));
	KT_ASSERT(!cmdline_parse_long("", 0, 100, &l));
	KT_ASSERT(!cmdline_parse_long("-", -5, 5, &l));
	KT_ASSERT(!cmdline_parse_long("4x", 0, 100, &l));
	KT_ASSERT(!cmdline_parse_long("+4", 0, 100, &l));
	KT_ASSERT(!cmdline_parse_long(" 4", 0, 100, &l));
	KT_ASSERT(!cmdline_parse_long(NULL, 0, 100, &l));
	KT_ASSERT(cmdline_parse_ulong("4294967295", 0, 0xffffffffu, &u) && u == 0xffffffffu);
	KT_ASSERT(cmdline_parse_ulong("0", 0, 5, &u) && u == 0);
	KT_ASSERT(!cmdline_parse_ulong("-1", 0, 5, &u));
	KT_ASSERT(!cmdline_parse_ulong("6", 0, 5, &u));
	KT_ASSERT(!cmdline_parse_ulong("1 ", 0, 5, &u));
}
