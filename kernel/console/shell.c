/* Console shell; see include/kernel/console/shell.h. */
#include "kernel/lib/panic.h"
#include "kernel/console/shell.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/lib/cmdline.h"
#include "kernel/lib/format.h"

enum esc_state { ESC_NONE, ESC_START, ESC_CSI, ESC_SS3 };

static struct {
	struct shell_io io;
	const struct shell_cmd *cmds[SHELL_MAX_CMDS];
	int nr_cmds;
	char line[SHELL_LINE_MAX];
	size_t len;
	bool overflow;
	bool last_cr;
	enum esc_state esc;
	int last_status;
	shell_bg_fn bg;
} sh;

static int cmd_help(int argc, char **argv);
static const struct shell_cmd help_cmd = {
	"help", "[command]", "list commands, or describe one", cmd_help
};

static void out(const char *s, size_t n)
{
	if (sh.io.write)
		sh.io.write(sh.io.ctx, s, n);
}

static void outs(const char *s)
{
	out(s, strlen(s));
}

void shell_printf(const char *fmt, ...)
{
	/* Room for a full 255-character line quoted inside a message. */
	char buf[640];
	static const char cut[] = "...\n";
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		out(buf, (size_t)n);
		return;
	}
	/* Truncated: say so, and still end the line. */
	out(buf, sizeof(buf) - sizeof(cut));
	out(cut, sizeof(cut) - 1);
}

void shell_reset(void)
{
	struct shell_io io = sh.io;

	memset(&sh, 0, sizeof(sh));
	sh.io = io;
	sh.cmds[sh.nr_cmds++] = &help_cmd;
}

void shell_init(const struct shell_io *io)
{
	sh.io = *io;
	shell_reset();
}

int shell_register(const struct shell_cmd *cmd)
{
	if (sh.nr_cmds == 0)
		shell_reset();
	for (int i = 0; i < sh.nr_cmds; i++)
		if (strcmp(sh.cmds[i]->name, cmd->name) == 0)
			return -1;
	if (sh.nr_cmds == SHELL_MAX_CMDS)
		return -1;
	sh.cmds[sh.nr_cmds++] = cmd;
	return 0;
}

/* GNU ld defines __start_/__stop_<section> for a section named as a C identifier. */
extern const struct shell_cmd_set __start_shell_cmds[], __stop_shell_cmds[];	/* NOLINT(bugprone-reserved-identifier) */

void shell_register_linked(void)
{
	/* The section's bounds as numbers: the linker's two symbols are not one C object. */
	size_t nr_sets = ((uintptr_t)__stop_shell_cmds - (uintptr_t)__start_shell_cmds) / sizeof(struct shell_cmd_set);

	for (size_t s = 0; s < nr_sets; s++) {
		const struct shell_cmd_set *set = &__start_shell_cmds[s];

		for (size_t i = 0; i < set->n; i++)
			if (shell_register(&set->cmds[i]) != 0)
				panic("shell: command '%s' clashes with another or overflows the table (%d)",
				      set->cmds[i].name, SHELL_MAX_CMDS);
		if (set->init)
			set->init();
	}
}

int shell_register_all(const struct shell_cmd *cmds, size_t n)
{
	int failed = 0;

	for (size_t i = 0; i < n; i++)
		if (shell_register(&cmds[i]) != 0)
			failed++;
	return failed;
}

static const struct shell_cmd *find_cmd(const char *name)
{
	for (int i = 0; i < sh.nr_cmds; i++)
		if (strcmp(sh.cmds[i]->name, name) == 0)
			return sh.cmds[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		shell_printf("error: help takes at most one argument\n");
		return 1;
	}
	if (argc == 2) {
		const struct shell_cmd *c = find_cmd(argv[1]);

		if (!c) {
			shell_printf("error: unknown command '%s' (try 'help')\n", argv[1]);
			return 1;
		}
		shell_printf("%s %s\n  %s\n", c->name, c->args_help, c->help);
		return 0;
	}
	for (int i = 0; i < sh.nr_cmds; i++) {
		char usage[48];

		ksnprintf(usage, sizeof(usage), "%s %s", sh.cmds[i]->name, sh.cmds[i]->args_help);
		shell_printf("  %-22s %s\n", usage, sh.cmds[i]->help);
	}
	return 0;
}

bool shell_has_command(const char *name)
{
	return find_cmd(name) != NULL;
}

int shell_run_argv(int argc, char **argv)
{
	const struct shell_cmd *c = argc > 0 ? find_cmd(argv[0]) : NULL;

	if (!c) {
		shell_printf("error: unknown command '%s' (try 'help')\n", argc > 0 ? argv[0] : "");
		return 1;
	}
	return c->fn(argc, argv);
}

/* Run one command (no ';'). @cmd is modified in place. */
static int run_one(char *cmd)
{
	char *argv[CMDLINE_MAX_ARGS + 1];
	int argc = cmdline_split(cmd, argv, CMDLINE_MAX_ARGS + 1);
	const struct shell_cmd *c;

	if (argc < 0) {
		shell_printf("error: %s\n", cmdline_strerror(argc));
		return 1;
	}
	if (argc == 0)
		return 0;
	c = find_cmd(argv[0]);
	if (!c) {
		shell_printf("error: unknown command '%s' (try 'help')\n", argv[0]);
		return 1;
	}
	if (argc > 1 && strcmp(argv[argc - 1], "&") == 0) {
		if (!sh.bg) {
			shell_printf("error: no background jobs in this shell\n");
			return 1;
		}
		argv[--argc] = NULL;
		return sh.bg(c, argc, argv);
	}
	return c->fn(argc, argv);
}

void shell_set_background(shell_bg_fn fn)
{
	sh.bg = fn;
}

static int run_line(const char *line, bool echo)
{
	char buf[SHELL_LINE_MAX * 4];
	char *cursor = buf, *cmd;
	size_t n = strlen(line);

	if (n >= sizeof(buf)) {
		shell_printf("error: line too long (max %u characters)\n", (unsigned)sizeof(buf) - 1);
		return sh.last_status = 1;
	}
	memcpy(buf, line, n + 1);
	while ((cmd = cmdline_next_command(&cursor)) != NULL) {
		if (echo) {
			outs(SHELL_PROMPT);
			outs(cmd);
			outs("\n");
		}
		sh.last_status = run_one(cmd);
	}
	return sh.last_status;
}

int shell_execute(const char *line)
{
	return run_line(line, false);
}

void shell_run_script(const char *script)
{
	run_line(script, true);
}

int shell_last_status(void)
{
	return sh.last_status;
}

void shell_start(void)
{
	outs(SHELL_PROMPT);
}

static void enter_line(void)
{
	outs("\n");
	if (sh.overflow)
		shell_printf("error: line too long (max %u characters)\n", SHELL_LINE_MAX - 1);
	else {
		sh.line[sh.len] = '\0';
		run_line(sh.line, false);
	}
	sh.len = 0;
	sh.overflow = false;
	outs(SHELL_PROMPT);
}

void shell_input(char ch)
{
	unsigned char c = (unsigned char)ch;
	bool was_cr = sh.last_cr;

	sh.last_cr = false;
	switch (sh.esc) {
	case ESC_START:
		sh.esc = c == '[' ? ESC_CSI : c == 'O' ? ESC_SS3 : ESC_NONE;
		return;
	case ESC_CSI:
		if (c >= 0x40 && c <= 0x7e)	/* final byte */
			sh.esc = ESC_NONE;
		else if (c < 0x20 || c > 0x3f)	/* not a parameter byte: abandon */
			sh.esc = ESC_NONE;
		return;
	case ESC_SS3:
		sh.esc = ESC_NONE;
		return;
	case ESC_NONE:
		break;
	}

	switch (c) {
	case '\r':
		sh.last_cr = true;
		enter_line();
		return;
	case '\n':
		if (!was_cr)
			enter_line();
		return;
	case 0x08:
	case 0x7f:
		if (sh.len > 0 && !sh.overflow) {
			sh.len--;
			outs("\b \b");
		}
		return;
	case 0x03:	/* Ctrl-C */
		outs("^C\n" SHELL_PROMPT);
		sh.len = 0;
		sh.overflow = false;
		return;
	case 0x15:	/* Ctrl-U */
		while (sh.len > 0 && !sh.overflow) {
			sh.len--;
			outs("\b \b");
		}
		sh.len = 0;
		sh.overflow = false;
		return;
	case 0x1b:
		sh.esc = ESC_START;
		return;
	default:
		break;
	}
	if (c < 0x20 || c >= 0x7f)
		return;
	if (sh.len >= SHELL_LINE_MAX - 1) {
		sh.overflow = true;
		return;
	}
	sh.line[sh.len++] = (char)c;
	out((const char *)&c, 1);
}
