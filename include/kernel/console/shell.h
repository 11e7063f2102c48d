/*
 * The serial-console shell: a line editor fed one byte at a time, a table
 * of commands, and script execution (the `autorun=` boot argument).
 *
 * Prompt "sched> ". Editing: printable bytes insert, BS/DEL erase, CR or LF
 * (CRLF once) enters, Ctrl-C cancels, Ctrl-U kills the line; escape
 * sequences and other control or non-ASCII bytes are ignored. A line longer
 * than SHELL_LINE_MAX - 1 characters gets one error line and is not run.
 * A line may hold several commands separated by ';'. All output goes through
 * the shell_io given to shell_init(). A command whose last word is "&" is
 * handed to the background runner (shell_set_background), which runs it
 * concurrently; commands themselves must then be safe to run at once.
 * The line editor is not reentrant: one console, one shell.
 */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#include <stdbool.h>
#include <stddef.h>

#define SHELL_LINE_MAX 256
#define SHELL_MAX_CMDS 64
#define SHELL_PROMPT "sched> "

struct shell_io {
	void (*write)(void *ctx, const char *buf, size_t len);
	void *ctx;
};

struct shell_cmd {
	const char *name;
	const char *args_help;	/* e.g. "<mode>" ("" if none) */
	const char *help;
	int (*fn)(int argc, char **argv);
};

/*
 * A subsystem's commands, declared beside their code and collected at link
 * time (a section of its own, as lk's STATIC_COMMAND): adding a command is
 * its file and nothing else. Every port registers what it links with
 * shell_register_linked(): the ARM kernel its boot/ commands and all of
 * kernel/'s, the simulator its own and kernel/'s. @init (NULL: none) runs
 * once, when the set is registered, before any command of it can run.
 */
struct shell_cmd_set {
	const struct shell_cmd *cmds;
	size_t n;
	void (*init)(void);
};
#define SHELL_COMMANDS_INIT(table, initfn)                                                                \
	static const struct shell_cmd_set shell_set_##table                                              \
		__attribute__((used, section("shell_cmds"), aligned(sizeof(void *)))) = {                 \
			(table), sizeof(table) / sizeof((table)[0]), (initfn) }
#define SHELL_COMMANDS(table) SHELL_COMMANDS_INIT(table, NULL)

void shell_init(const struct shell_io *io);
/* Register every linked SHELL_COMMANDS() set, in link order; panics on a clash or a full table. */
void shell_register_linked(void);
/* Forget every command and any partial line (for tests). */
void shell_reset(void);
/* 0 on success; -1 if the name is taken or the table is full. */
int shell_register(const struct shell_cmd *cmd);
/* Register each of @n commands (a subsystem's table); returns how many failed. */
int shell_register_all(const struct shell_cmd *cmds, size_t n);
#define SHELL_REGISTER_TABLE(table) shell_register_all((table), sizeof(table) / sizeof((table)[0]))
void shell_start(void);			/* print the first prompt */
void shell_input(char c);
/* Run one line (';'-separated commands); returns the last status. */
int shell_execute(const char *line);
/* Is @name a registered command? */
bool shell_has_command(const char *name);
/* Run the command argv[0] with its arguments in the calling task (no '&', no ';'). */
int shell_run_argv(int argc, char **argv);
/* Run a script, echoing "sched> <cmd>" before each command. */
void shell_run_script(const char *script);
int shell_last_status(void);
void shell_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run @cmd with @argv (copied by the runner if it keeps it) in the background; 0 or an error status. */
typedef int (*shell_bg_fn)(const struct shell_cmd *cmd, int argc, char **argv);
void shell_set_background(shell_bg_fn fn);

#endif
