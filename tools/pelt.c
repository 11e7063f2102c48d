/*
 * pelt: replay a runnable/running timeline through the kernel's PELT code.
 *
 *   build/host/pelt [FILE]      (stdin without FILE or with "-")
 *
 * Input lines are `T_NS RUNNABLE RUNNING`: T_NS non-decreasing nanoseconds,
 * the two 0/1 flags the state from T_NS on. The first line starts the
 * tracker at T_NS. After each line it prints
 * `T_NS runnable_avg_sum runnable_avg_period usage_avg_sum`, the sums once
 * the time up to T_NS has been accounted in the previous line's state.
 * Blank lines and lines whose first non-blank character is '#' are skipped.
 * Bad input or usage: one line on stderr (naming the input line), exit 2.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/sched/pelt.h"

#define EXIT_BAD_INPUT 2
#define MAX_LINE 4096
#define FIELDS 3

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pelt [--help] [FILE]\n"
		"Reads lines 'T_NS RUNNABLE RUNNING' (T_NS non-decreasing, flags 0/1 giving\n"
		"the state from T_NS on; RUNNING=1 needs RUNNABLE=1) from FILE or stdin and\n"
		"prints 'T_NS runnable_avg_sum runnable_avg_period usage_avg_sum' after each.\n"
		"Blank lines and '#' comments are skipped. Exit status 2 on bad input.\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return false;
	for (; *s; s++) {
		unsigned int digit;

		if (*s < '0' || *s > '9')
			return false;
		digit = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

static bool parse_flag(const char *s, bool *out)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0) {
		*out = s[0] == '1';
		return true;
	}
	return false;
}

/* Splits @line in place; returns the number of fields (at most @max + 1). */
static int split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0')
			return n;
		if (n == max)
			return n + 1;
		fields[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int bad_line(unsigned long lineno, const char *what, const char *text)
{
	fflush(stdout);
	if (text)
		fprintf(stderr, "pelt: line %lu: %s: '%s'\n", lineno, what, text);
	else
		fprintf(stderr, "pelt: line %lu: %s\n", lineno, what);
	return EXIT_BAD_INPUT;
}

static int replay(FILE *in)
{
	char line[MAX_LINE];
	struct sched_avg sa;
	bool started = false, runnable = false, running = false;
	uint64_t last_t = 0;
	unsigned long lineno = 0;

	while (fgets(line, sizeof(line), in)) {
		char *f[FIELDS];
		uint64_t t;
		bool new_runnable, new_running;
		size_t len = strlen(line);
		int n;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(in))
			return bad_line(lineno, "line too long", NULL);
		n = split(line, f, FIELDS);
		if (n == 0 || f[0][0] == '#')
			continue;
		if (n != FIELDS)
			return bad_line(lineno, "expected 3 fields 'T_NS RUNNABLE RUNNING'", NULL);
		if (!parse_u64(f[0], &t))
			return bad_line(lineno, "T_NS is not a non-negative 64-bit integer", f[0]);
		if (!parse_flag(f[1], &new_runnable))
			return bad_line(lineno, "RUNNABLE must be 0 or 1", f[1]);
		if (!parse_flag(f[2], &new_running))
			return bad_line(lineno, "RUNNING must be 0 or 1", f[2]);
		if (new_running && !new_runnable)
			return bad_line(lineno, "RUNNING=1 requires RUNNABLE=1", NULL);
		if (started && t < last_t)
			return bad_line(lineno, "T_NS decreases", f[0]);

		if (!started) {
			pelt_init(&sa, t);
			started = true;
		} else {
			pelt_update(&sa, t, runnable, running);
		}
		last_t = t;
		runnable = new_runnable;
		running = new_running;
		printf("%llu %u %u %u\n", (unsigned long long)t, sa.runnable_avg_sum,
		       sa.runnable_avg_period, sa.usage_avg_sum);
	}
	if (ferror(in)) {
		fflush(stdout);
		fprintf(stderr, "pelt: line %lu: read error: %s\n", lineno + 1, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	FILE *in = stdin;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "pelt: unknown option '%s' (see --help)\n", argv[i]);
			return EXIT_BAD_INPUT;
		}
		if (path) {
			fprintf(stderr, "pelt: more than one input file (see --help)\n");
			return EXIT_BAD_INPUT;
		}
		path = argv[i];
	}
	if (path && strcmp(path, "-") != 0) {
		in = fopen(path, "r");
		if (!in) {
			fprintf(stderr, "pelt: %s: %s\n", path, strerror(errno));
			return EXIT_BAD_INPUT;
		}
	}
	rc = replay(in);
	if (in != stdin)
		fclose(in);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "pelt: write error: %s\n", strerror(errno));
		return 1;
	}
	return rc;
}
