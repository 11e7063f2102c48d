/*
 * Fuzz target `shell`: the console parser (kernel/console/shell.c on top of
 * kernel/lib/cmdline.c), driven the three ways the kernel drives it:
 *  1. every input byte through shell_input(), as typed on the UART, then a
 *     CR to enter what is left;
 *  2. the whole input, as one NUL-terminated string, through shell_execute();
 *  3. the same through shell_run_script() (the autorun= path).
 * Commands registered: echo (prints its words), fail (status = argc), and
 * help; a background runner takes "cmd ... &". Checked (include/kernel/
 * shell.h, cmdline.h): every command gets 1 <= argc <= CMDLINE_MAX_ARGS
 * and argv[argc] == NULL (also the background runner, which gets the
 * command without its "&"), and while typing, the shell echoes nothing but
 * printable ASCII, "\n" and "\b" (control and non-ASCII bytes are ignored,
 * never echoed).
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/lib/cmdline.h"
#include "kernel/console/shell.h"
#include "tests/fuzz/fuzz.h"

static bool typing;		/* phase 1: output must be printable */
static size_t out_bytes;

/* cppcheck-suppress constParameter ; the signature is struct shell_io's write */
static void sink(void *ctx, const char *buf, size_t len)
{
	FUZZ_CHECK(ctx == &out_bytes);
	FUZZ_CHECK(len < 4096);
	out_bytes += len;
	if (!typing)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		FUZZ_CHECK_MSG((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\b',
			       "typed input echoed byte 0x%02x", c);
	}
}

static void check_argv(int argc, char **argv)
{
	size_t total = 0;

	FUZZ_CHECK(argc >= 1 && argc <= CMDLINE_MAX_ARGS);
	FUZZ_CHECK(argv[argc] == NULL);
	for (int i = 0; i < argc; i++) {
		FUZZ_CHECK(argv[i] != NULL);
		total += strlen(argv[i]);
	}
	FUZZ_CHECK(total < (size_t)SHELL_LINE_MAX * 4);
}

static int cmd_echo(int argc, char **argv)
{
	check_argv(argc, argv);
	for (int i = 1; i < argc; i++)
		shell_printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
	return 0;
}

static int cmd_fail(int argc, char **argv)
{
	check_argv(argc, argv);
	return argc;
}

static int background(const struct shell_cmd *cmd, int argc, char **argv)
{
	FUZZ_CHECK(cmd != NULL && cmd->fn != NULL);
	check_argv(argc, argv);	/* the "&" is cut: argv[argc] == NULL */
	return cmd->fn(argc, argv);
}

static const struct shell_cmd echo_cmd = { "echo", "[words...]", "print the words", cmd_echo };
static const struct shell_cmd fail_cmd = { "fail", "[args...]", "return argc", cmd_fail };
static const struct shell_io io = { sink, &out_bytes };

static void setup(bool with_bg)
{
	shell_init(&io);
	FUZZ_CHECK(shell_register(&echo_cmd) == 0);
	FUZZ_CHECK(shell_register(&fail_cmd) == 0);
	FUZZ_CHECK(shell_register(&echo_cmd) == -1);	/* name taken */
	shell_set_background(with_bg ? background : NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line;
	int st;

	/* 1: typed. The first byte decides whether "&" has a runner. */
	setup(size > 0 && (data[0] & 1));
	typing = true;
	shell_start();
	for (size_t i = 0; i < size; i++)
		shell_input((char)data[i]);
	shell_input('\r');
	typing = false;

	/* 2, 3: one string (up to the first NUL), exact-size copy. */
	line = malloc(size + 1);
	FUZZ_CHECK(line != NULL);
	memcpy(line, data, size);
	line[size] = '\0';
	setup(size > 1 && (data[1] & 1));
	st = shell_execute(line);
	FUZZ_CHECK(st == shell_last_status());
	FUZZ_CHECK(st >= 0 && st <= CMDLINE_MAX_ARGS);
	setup(true);
	shell_run_script(line);
	/* The shell copies the line: the caller's string is untouched. */
	FUZZ_CHECK(memcmp(line, data, size) == 0 && line[size] == '\0');
	free(line);
	return 0;
}
