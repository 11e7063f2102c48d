/*
 * kernel/console/shell.c: the line editor fed byte by byte through shell_input()
 * (echo, BS/DEL, Ctrl-U, Ctrl-C, CR/LF/CRLF, escape sequences, the 255
 * character limit), command dispatch and argv, help, registration limits,
 * shell_execute()/shell_run_script(), and random input. All output goes
 * through the shell_io sink below, so every byte the shell prints is
 * compared exactly.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "kernel/lib/cmdline.h"
#include "kernel/console/shell.h"

#define P SHELL_PROMPT

/* ------------------------------------------------------------ output sink */

static struct {
	char buf[1 << 16];
	size_t len;
	size_t total;		/* every byte ever written, kept or not */
	int writes;
} out;

static void sink(void *ctx, const char *buf, size_t len)
{
	KT_ASSERT(ctx == &out);
	out.total += len;
	out.writes++;
	if (len > sizeof(out.buf) - 1 - out.len)
		out.len = 0;	/* the fuzz tests only count */
	memcpy(out.buf + out.len, buf, len);
	out.len += len;
	out.buf[out.len] = '\0';
}

static void out_clear(void)
{
	out.len = 0;
	out.total = 0;
	out.writes = 0;
	out.buf[0] = '\0';
}

/* ------------------------------------------------------------- commands */

static struct {
	int calls;
	int argc;
	bool argv_terminated;
	char argv[CMDLINE_MAX_ARGS + 1][SHELL_LINE_MAX * 4];
} rec;

static void record(int argc, char **argv)
{
	rec.calls++;
	rec.argc = argc;
	rec.argv_terminated = argv[argc] == NULL;
	for (int i = 0; i < argc && i <= CMDLINE_MAX_ARGS; i++)
		snprintf(rec.argv[i], sizeof(rec.argv[i]), "%s", argv[i]);
}

/* echo: prints its arguments separated by spaces, then a newline. */
static int cmd_echo(int argc, char **argv)
{
	record(argc, argv);
	for (int i = 1; i < argc; i++)
		shell_printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	shell_printf("\n");
	return 0;
}

/* fail: returns its argc as the status, prints nothing. */
static int cmd_fail(int argc, char **argv)
{
	record(argc, argv);
	return argc;
}

static int count_calls;

static int cmd_count(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	count_calls++;
	return 0;
}

static const struct shell_cmd echo_cmd = { "echo", "[words...]", "print the words", cmd_echo };
static const struct shell_cmd fail_cmd = { "fail", "[args...]", "return argc", cmd_fail };
static const struct shell_cmd count_cmd = { "count", "", "count calls", cmd_count };

static const struct shell_io io = { sink, &out };

/* Fresh shell with echo, fail, count; empty output and records. */
static void setup(void)
{
	shell_init(&io);
	shell_reset();
	if (shell_register(&echo_cmd) || shell_register(&fail_cmd) || shell_register(&count_cmd)) {
		fprintf(stderr, "setup: shell_register failed\n");
		exit(2);
	}
	memset(&rec, 0, sizeof(rec));
	count_calls = 0;
	out_clear();
}

static void type(const char *s)
{
	while (*s)
		shell_input(*s++);
}

static void type_n(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		shell_input(s[i]);
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		exit(2);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

#define OUT_IS(want)                                                         \
	do {                                                                 \
		KT_ASSERT_STREQ(out.buf, (want));                             \
		KT_ASSERT_EQ(out.total, strlen(want));                       \
	} while (0)

/* ----------------------------------------------------------------- editing */

KT_CASE(start_prints_prompt)
{
	setup();
	shell_start();
	OUT_IS("sched> ");
	KT_ASSERT_STREQ(SHELL_PROMPT, "sched> ");
}

KT_CASE(typed_command_runs_with_argv)
{
	setup();
	type("echo a b");
	OUT_IS("echo a b");		/* echoed, nothing run yet */
	KT_ASSERT_EQ(rec.calls, 0);
	type("\r");
	OUT_IS("echo a b\na b\n" P);
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(rec.argc, 3);
	KT_ASSERT(rec.argv_terminated);
	KT_ASSERT_STREQ(rec.argv[0], "echo");
	KT_ASSERT_STREQ(rec.argv[1], "a");
	KT_ASSERT_STREQ(rec.argv[2], "b");
	KT_ASSERT_EQ(shell_last_status(), 0);

	/* Quotes and blanks reach argv the cmdline_split way. */
	out_clear();
	type("  echo  \"x  y\" 'z;w'  \n");
	KT_ASSERT_EQ(rec.calls, 2);
	KT_ASSERT_EQ(rec.argc, 3);
	KT_ASSERT_STREQ(rec.argv[1], "x  y");
	KT_ASSERT_STREQ(rec.argv[2], "z;w");
	OUT_IS("  echo  \"x  y\" 'z;w'  \nx  y z;w\n" P);
}

KT_CASE(line_endings)
{
	setup();
	type("count\r\n");		/* CRLF enters once */
	KT_ASSERT_EQ(count_calls, 1);
	OUT_IS("count\n" P);
	out_clear();
	type("count\n");		/* LF alone */
	KT_ASSERT_EQ(count_calls, 2);
	OUT_IS("count\n" P);
	out_clear();
	type("\n\r");			/* LF then CR: two lines */
	OUT_IS("\n" P "\n" P);
	out_clear();
	type("x\x15\r\r");		/* two empty lines */
	OUT_IS("x\b \b\n" P "\n" P);
	out_clear();
	type("count\r\rcount\n\ncount\r\n");
	KT_ASSERT_EQ(count_calls, 5);
	OUT_IS("count\n" P "\n" P "count\n" P "\n" P "count\n" P);
	/* The LF is swallowed only right after the CR. */
	out_clear();
	type("\rcount\n");
	KT_ASSERT_EQ(count_calls, 6);
	OUT_IS("\n" P "count\n" P);
	out_clear();
	type("\r\r\n\n");		/* CR, CRLF, LF: three lines */
	OUT_IS("\n" P "\n" P "\n" P);
}

KT_CASE(unknown_command)
{
	setup();
	type("frob\r");
	OUT_IS("frob\nerror: unknown command 'frob' (try 'help')\n" P);
	KT_ASSERT_EQ(shell_last_status(), 1);
	out_clear();
	KT_ASSERT_EQ(shell_execute("frob 1 2"), 1);
	OUT_IS("error: unknown command 'frob' (try 'help')\n");
	/* Names are exact: no prefix matching, case-sensitive. */
	out_clear();
	KT_ASSERT_EQ(shell_execute("ech"), 1);
	KT_ASSERT_EQ(shell_execute("ECHO"), 1);
	KT_ASSERT_EQ(shell_execute("echoo"), 1);
	OUT_IS("error: unknown command 'ech' (try 'help')\n"
	       "error: unknown command 'ECHO' (try 'help')\n"
	       "error: unknown command 'echoo' (try 'help')\n");
	KT_ASSERT_EQ(rec.calls, 0);
}

/*
 * The error for an unknown command is a whole line even when the name is
 * as long as a line can be (255 characters).
 */
KT_CASE(unknown_command_long_name_is_one_line)
{
	char *name, *want;

	setup();
	name = repeat('z', SHELL_LINE_MAX - 1);
	want = malloc(strlen(name) + 64);
	KT_ASSERT(want != NULL);
	sprintf(want, "error: unknown command '%s' (try 'help')\n", name);
	{
		int rc = shell_execute(name);
		bool same = strcmp(out.buf, want) == 0;
		size_t want_len = strlen(want);

		free(want);
		free(name);
		KT_ASSERT_EQ(rc, 1);
		KT_ASSERT_MSG(same, "output is %zu bytes, ends '%s'; expected %zu bytes ending \"(try 'help')\\n\"",
			      out.len, out.len > 16 ? out.buf + out.len - 16 : out.buf, want_len);
	}
}

KT_CASE(overlong_line)
{
	char *line = repeat('a', 300), *want;

	setup();
	memcpy(line, "echo ", 5);
	type(line);
	/* Only SHELL_LINE_MAX - 1 = 255 characters are taken and echoed. */
	KT_ASSERT_EQ(out.len, SHELL_LINE_MAX - 1);
	KT_ASSERT(memcmp(out.buf, line, SHELL_LINE_MAX - 1) == 0);
	type("\r");
	want = malloc(1024);
	KT_ASSERT(want != NULL);
	snprintf(want, 1024, "%.255s\nerror: line too long (max 255 characters)\n" P, line);
	OUT_IS(want);
	KT_ASSERT_EQ(rec.calls, 0);
	/* The next line is normal again. */
	out_clear();
	type("echo ok\r");
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_STREQ(rec.argv[1], "ok");
	OUT_IS("echo ok\nok\n" P);

	/* Exactly 255 characters run. */
	out_clear();
	line[SHELL_LINE_MAX - 1] = '\0';
	type(line);
	type("\r");
	KT_ASSERT_EQ(rec.calls, 2);
	KT_ASSERT_EQ(rec.argc, 2);
	KT_ASSERT_EQ(strlen(rec.argv[1]), SHELL_LINE_MAX - 1 - 5);
	snprintf(want, 1024, "%s\n%s\n" P, line, line + 5);
	OUT_IS(want);

	/* 256 do not, and the overflow is reported once per line. */
	out_clear();
	type(line);
	type("a\r");
	KT_ASSERT_EQ(rec.calls, 2);
	snprintf(want, 1024, "%s\nerror: line too long (max 255 characters)\n" P, line);
	OUT_IS(want);

	/* Ctrl-C and Ctrl-U abandon an overflowed line. */
	out_clear();
	type(line);
	type("aaa\x03");
	type("echo c\r");
	KT_ASSERT_EQ(rec.calls, 3);
	KT_ASSERT_STREQ(rec.argv[1], "c");
	type(line);
	type("aaa\x15");
	type("echo u\r");
	KT_ASSERT_EQ(rec.calls, 4);
	KT_ASSERT_STREQ(rec.argv[1], "u");
	free(want);
	free(line);
}

KT_CASE(backspace_and_delete)
{
	setup();
	type("ecx\bho hi\r");
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(rec.argc, 2);
	KT_ASSERT_STREQ(rec.argv[0], "echo");
	KT_ASSERT_STREQ(rec.argv[1], "hi");
	OUT_IS("ecx\b \bho hi\nhi\n" P);
	out_clear();
	type("ecx\x7fho del\r");
	KT_ASSERT_EQ(rec.calls, 2);
	KT_ASSERT_STREQ(rec.argv[1], "del");
	OUT_IS("ecx\b \bho del\ndel\n" P);
	/* On an empty line: nothing to erase, nothing printed. */
	out_clear();
	type("\b\x7f\b");
	OUT_IS("");
	/* More erases than characters stop at the start of the line. */
	type("ab\b\b\b\bcount\r");
	KT_ASSERT_EQ(count_calls, 1);
	OUT_IS("ab\b \b\b \bcount\n" P);
	/* Erase everything: the empty line runs nothing. */
	out_clear();
	type("echo\b\b\b\b\r");
	KT_ASSERT_EQ(rec.calls, 2);
	OUT_IS("echo\b \b\b \b\b \b\b \b\n" P);
}

KT_CASE(ctrl_u_kills_line)
{
	setup();
	type("garbage\x15");
	OUT_IS("garbage" "\b \b" "\b \b" "\b \b" "\b \b" "\b \b" "\b \b" "\b \b");
	type("echo ok\r");
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(rec.argc, 2);
	KT_ASSERT_STREQ(rec.argv[1], "ok");
	out_clear();
	type("\x15");			/* empty line */
	OUT_IS("");
}

KT_CASE(ctrl_c_cancels_line)
{
	setup();
	type("echo no\x03");
	OUT_IS("echo no^C\n" P);
	type("\r");
	KT_ASSERT_EQ(rec.calls, 0);
	OUT_IS("echo no^C\n" P "\n" P);
	out_clear();
	type("\x03");
	OUT_IS("^C\n" P);
}

KT_CASE(escape_sequences_ignored)
{
	setup();
	/* Up, Ctrl-Right, F1 (SS3), Delete, cursor-hide with '?' parameter. */
	type("echo \x1b[A\x1b[1;5Cx\x1bOPy\x1b[3~z\x1b[?25l!\r");
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(rec.argc, 2);
	KT_ASSERT_STREQ(rec.argv[1], "xyz!");
	OUT_IS("echo xyz!\nxyz!\n" P);
	/* Other control bytes and non-ASCII bytes are dropped. */
	out_clear();
	type("e\tc\x01\x02\x07ho\x0b\x0c\x0e\x1f \x80o\xc3\xa9k\xff\r");
	KT_ASSERT_EQ(rec.calls, 2);
	KT_ASSERT_STREQ(rec.argv[1], "ok");
	OUT_IS("echo ok\nok\n" P);
	/* A byte that cannot be in a CSI sequence abandons it (and is dropped). */
	out_clear();
	type("echo \x1b[1;\xff" "ab\x1b[\x7f" "c\r");
	KT_ASSERT_EQ(rec.calls, 3);
	KT_ASSERT_STREQ(rec.argv[1], "abc");
	OUT_IS("echo abc\nabc\n" P);
	/* A sequence split across calls still ends at its final byte. */
	out_clear();
	type("\x1b");
	type("[");
	type("2");
	type("J");
	type("count\r");
	KT_ASSERT_EQ(count_calls, 1);
	OUT_IS("count\n" P);
}

KT_CASE(multiple_commands_per_line)
{
	setup();
	type("echo a; echo b ;; fail x y\r");
	KT_ASSERT_EQ(rec.calls, 3);
	KT_ASSERT_EQ(rec.argc, 3);
	KT_ASSERT_STREQ(rec.argv[0], "fail");
	KT_ASSERT_EQ(shell_last_status(), 3);
	OUT_IS("echo a; echo b ;; fail x y\na\nb\n" P);
	out_clear();
	KT_ASSERT_EQ(shell_execute("fail; echo 'a;b'"), 0);
	KT_ASSERT_EQ(shell_last_status(), 0);
	OUT_IS("a;b\n");
	/* An error in the middle does not stop the rest. */
	out_clear();
	KT_ASSERT_EQ(shell_execute("echo 1; nope; echo 2"), 0);
	OUT_IS("1\nerror: unknown command 'nope' (try 'help')\n2\n");
	KT_ASSERT_EQ(shell_execute("echo 1; nope"), 1);
}

KT_CASE(split_errors_reported)
{
	char line[256] = "echo";

	setup();
	KT_ASSERT_EQ(shell_execute("echo \"abc"), 1);
	OUT_IS("error: unterminated quote\n");
	KT_ASSERT_EQ(rec.calls, 0);
	/* 16 words run, 17 do not. */
	for (int i = 1; i < CMDLINE_MAX_ARGS; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " w%d", i);
	out_clear();
	KT_ASSERT_EQ(shell_execute(line), 0);
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(rec.argc, CMDLINE_MAX_ARGS);
	KT_ASSERT(rec.argv_terminated);
	KT_ASSERT_STREQ(rec.argv[15], "w15");
	strcat(line, " w16");
	out_clear();
	KT_ASSERT_EQ(shell_execute(line), 1);
	OUT_IS("error: too many arguments (max 16)\n");
	KT_ASSERT_EQ(rec.calls, 1);
}

KT_CASE(execute_line_limit)
{
	char *line = repeat('q', SHELL_LINE_MAX * 4);

	setup();
	memcpy(line, "echo ", 5);
	/* 1023 characters run (scripts are longer than typed lines)... */
	line[SHELL_LINE_MAX * 4 - 1] = '\0';
	KT_ASSERT_EQ(shell_execute(line), 0);
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(strlen(rec.argv[1]), SHELL_LINE_MAX * 4 - 1 - 5);
	/* ...1024 do not. */
	line[SHELL_LINE_MAX * 4 - 1] = 'q';
	out_clear();
	KT_ASSERT_EQ(shell_execute(line), 1);
	OUT_IS("error: line too long (max 1023 characters)\n");
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(shell_last_status(), 1);
	free(line);
	/* Empty and blank lines run nothing and print nothing. */
	out_clear();
	shell_execute("");
	shell_execute(" \t ; ;");
	OUT_IS("");
	KT_ASSERT_EQ(rec.calls, 1);
}

KT_CASE(help_command)
{
	setup();
	KT_ASSERT_EQ(shell_execute("help"), 0);
	OUT_IS("  help [command]         list commands, or describe one\n"
	       "  echo [words...]        print the words\n"
	       "  fail [args...]         return argc\n"
	       "  count                  count calls\n");
	out_clear();
	KT_ASSERT_EQ(shell_execute("help echo"), 0);
	OUT_IS("echo [words...]\n  print the words\n");
	out_clear();
	KT_ASSERT_EQ(shell_execute("help help"), 0);
	OUT_IS("help [command]\n  list commands, or describe one\n");
	out_clear();
	KT_ASSERT_EQ(shell_execute("help nope"), 1);
	OUT_IS("error: unknown command 'nope' (try 'help')\n");
	out_clear();
	KT_ASSERT_EQ(shell_execute("help a b"), 1);
	OUT_IS("error: help takes at most one argument\n");
	KT_ASSERT_EQ(shell_last_status(), 1);
}

KT_CASE(register_limits_and_reset)
{
	static struct shell_cmd many[SHELL_MAX_CMDS];
	static char names[SHELL_MAX_CMDS][16];
	static const struct shell_cmd echo2 = { "echo", "", "another echo", cmd_count };
	int ok = 0;

	setup();
	KT_ASSERT_EQ(shell_register(&echo2), -1);	/* name taken */
	KT_ASSERT_EQ(shell_register(&echo_cmd), -1);
	KT_ASSERT_EQ(shell_execute("echo still"), 0);
	KT_ASSERT_EQ(rec.calls, 1);
	KT_ASSERT_EQ(count_calls, 0);
	{
		static const struct shell_cmd help2 = { "help", "", "", cmd_count };

		KT_ASSERT_EQ(shell_register(&help2), -1);
	}
	/* help + echo + fail + count = 4; 60 more fit. */
	for (int i = 0; i < SHELL_MAX_CMDS; i++) {
		snprintf(names[i], sizeof(names[i]), "c%u", (unsigned)i % 100u);
		many[i] = (struct shell_cmd){ names[i], "", "filler", cmd_count };
		if (shell_register(&many[i]) == 0)
			ok++;
	}
	KT_ASSERT_EQ(ok, SHELL_MAX_CMDS - 4);
	KT_ASSERT_EQ(shell_execute("c59"), 0);
	KT_ASSERT_EQ(count_calls, 1);
	out_clear();
	KT_ASSERT_EQ(shell_execute("c60"), 1);
	OUT_IS("error: unknown command 'c60' (try 'help')\n");
	/* Reset: only help is left, and registering works again. */
	shell_reset();
	out_clear();
	KT_ASSERT_EQ(shell_execute("echo gone"), 1);
	OUT_IS("error: unknown command 'echo' (try 'help')\n");
	out_clear();
	KT_ASSERT_EQ(shell_execute("help"), 0);
	OUT_IS("  help [command]         list commands, or describe one\n");
	KT_ASSERT_EQ(shell_register(&echo_cmd), 0);
	KT_ASSERT_EQ(shell_execute("echo back"), 0);
	KT_ASSERT_STREQ(rec.argv[1], "back");
}

/* shell_reset also drops a half-typed line. */
KT_CASE(reset_drops_partial_line)
{
	setup();
	type("echo partial");
	shell_reset();
	shell_register(&echo_cmd);
	type(" x\r");
	KT_ASSERT_EQ(rec.calls, 0);	/* the line is " x": unknown command x */
	KT_ASSERT(strstr(out.buf, "error: unknown command 'x' (try 'help')\n") != NULL);
}

KT_CASE(run_script_echoes_commands)
{
	setup();
	shell_run_script("echo a; frob; echo b");
	OUT_IS(P "echo a\na\n"
	       P "frob\nerror: unknown command 'frob' (try 'help')\n"
	       P "echo b\nb\n");
	KT_ASSERT_EQ(shell_last_status(), 0);
	KT_ASSERT_EQ(rec.calls, 2);
	/* Leading blanks and empty commands are skipped; trailing blanks kept. */
	out_clear();
	shell_run_script("  echo a ;;  echo \"x; y\"  ;");
	OUT_IS(P "echo a \na\n" P "echo \"x; y\"  \nx; y\n");
	/* Status of the last command. */
	out_clear();
	shell_run_script("echo; fail");
	KT_ASSERT_EQ(shell_last_status(), 1);
	OUT_IS(P "echo\n\n" P "fail\n");
	/* Nothing to run: nothing printed. */
	out_clear();
	shell_run_script("");
	shell_run_script(" ; ");
	OUT_IS("");
	/* The shell_execute flavour does not echo. */
	out_clear();
	shell_execute("echo a; echo b");
	OUT_IS("a\nb\n");
}

KT_CASE(printf_and_null_sink)
{
	static const struct shell_io none = { NULL, NULL };
	char *big = repeat('m', 1000);
	bool prefix;

	setup();
	shell_printf("%d-%s-%x", 5, "x", 255u);
	OUT_IS("5-x-ff");
	/* Long output is cut, never overrun: a prefix, then "...\n" so the line still ends. */
	out_clear();
	shell_printf("%s", big);
	prefix = out.len == 639 && memcmp(out.buf, big, 635) == 0 && memcmp(out.buf + 635, "...\n", 4) == 0;
	if (!prefix)
		free(big);
	KT_ASSERT_MSG(prefix, "long output: %zu bytes", out.len);
	/* No sink at all: everything still works, silently. */
	shell_init(&none);
	shell_register(&echo_cmd);
	out_clear();
	shell_start();
	type("echo quiet\r");
	shell_run_script("echo s");
	shell_printf("%s", big);
	free(big);
	KT_ASSERT_EQ(out.total, 0);
	KT_ASSERT_STREQ(rec.argv[1], "s");
	setup();
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* After any input, two Ctrl-Cs (the first may end an escape sequence) recover. */
static void check_recovers(void)
{
	int before = rec.calls;

	out_clear();
	type("\x03\x03" "echo recovered 1\r");
	KT_ASSERT_EQ(rec.calls, before + 1);
	KT_ASSERT_EQ(rec.argc, 3);
	KT_ASSERT_STREQ(rec.argv[1], "recovered");
	KT_ASSERT(strstr(out.buf, "recovered 1\n" P) != NULL);
}

static int fuzz_calls_ok = 1;

static int cmd_fuzz_check(int argc, char **argv)
{
	if (argc < 1 || argc > CMDLINE_MAX_ARGS || argv[argc] != NULL)
		fuzz_calls_ok = 0;
	for (int i = 0; i < argc; i++)
		if (strlen(argv[i]) > SHELL_LINE_MAX - 1)
			fuzz_calls_ok = 0;
	return 0;
}

KT_CASE(random_bytes_uniform)
{
	static const struct shell_cmd a = { "a", "", "", cmd_fuzz_check };
	char chunk[1000];

	setup();
	shell_register(&a);
	rng_state = 0xfeedface12345678ull;
	for (int i = 0; i < 100; i++) {
		for (size_t k = 0; k < sizeof(chunk); k++)
			chunk[k] = (char)(rng() >> 56);
		type_n(chunk, sizeof(chunk));
	}
	KT_ASSERT(fuzz_calls_ok);
	KT_ASSERT(out.total > 0);
	check_recovers();
}

/* Biased towards what the editor reacts to, so lines fill, overflow and run. */
KT_CASE(random_bytes_editing_heavy)
{
	static const struct shell_cmd a = { "a", "", "", cmd_fuzz_check };
	static const char special[] = "\r\n\b\x7f\x1b[O;\"'\\ \x03\x15\t\x80\xff";
	int prompts = 0;

	setup();
	shell_register(&a);
	rng_state = 0x0123456789abcdefull;
	for (int i = 0; i < 100000; i++) {
		uint64_t r = rng();
		char c;

		switch (r % 16) {
		case 0: case 1:
			c = special[(r >> 8) % (sizeof(special) - 1)];
			break;
		case 2:
			c = "a "[(r >> 8) & 1];	/* runs command "a" often */
			break;
		case 3:
			c = (r >> 8) % 50 ? 'x' : '\r';
			break;
		default:
			c = (char)(0x20 + (r >> 8) % 95);
			break;
		}
		shell_input(c);
		if (c == '\r')
			prompts++;
	}
	KT_ASSERT(fuzz_calls_ok);
	KT_ASSERT(prompts > 500);
	check_recovers();
}
