/*
 * Fuzz target `pelt_tool`: the line parser of tools/pelt.c (the pelt host
 * tool), compiled into this harness with its main() renamed, fed through
 * fmemopen(). Its printf() output is captured, its stderr messages counted.
 *
 * Checked against the tool's documented contract (comment at the top of
 * tools/pelt.c): exit status 0 or 2; status 2 comes with exactly one line
 * on stderr. For inputs in the plain text the contract talks about
 * (printable ASCII, spaces, tabs and newlines, lines under 4000 bytes), a
 * reference reader written from that comment gives the expected output
 * (one "T_NS runnable_avg_sum runnable_avg_period usage_avg_sum" line per
 * data line, computed with pelt_update()) and the expected status; the
 * tool must match it byte for byte.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/sched/pelt.h"
#include "tests/fuzz/fuzz.h"

/* ------------------------------------------------ the tool, captured */

static char tool_out[1 << 20];
static size_t tool_len;
static int tool_err_lines;
static bool tool_err_open;

static int capture_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int capture_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tool_out + tool_len, sizeof(tool_out) - tool_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		tool_len += (size_t)n < sizeof(tool_out) - tool_len ? (size_t)n : sizeof(tool_out) - 1 - tool_len;
	return n;
}

static int capture_fprintf(const FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int capture_fprintf(const FILE *f, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (f == stderr) {
		for (int i = 0; i < n && i < (int)sizeof(buf) - 1; i++)
			if (buf[i] == '\n')
				tool_err_lines++;
		tool_err_open = n > 0 && buf[n < (int)sizeof(buf) ? n - 1 : (int)sizeof(buf) - 2] != '\n';
	}
	return n;
}

int pelt_tool_main(int argc, char **argv);
#define main pelt_tool_main
#define printf capture_printf
#define fprintf capture_fprintf
#include "tools/pelt.c" /* NOLINT(bugprone-suspicious-include): the tool's static replay() is the target */
#undef main
#undef printf
#undef fprintf

/* ------------------------------------------------ reference reader */

static char ref_out[1 << 20];
static size_t ref_len;

static void ref_emit(uint64_t t, const struct sched_avg *sa)
{
	int n = snprintf(ref_out + ref_len, sizeof(ref_out) - ref_len, "%llu %u %u %u\n",
			 (unsigned long long)t, sa->runnable_avg_sum, sa->runnable_avg_period, sa->usage_avg_sum);

	if (n > 0 && (size_t)n < sizeof(ref_out) - ref_len)
		ref_len += (size_t)n;
}

/* A decimal 64-bit number, digits only. */
static bool ref_u64(const char *s, size_t n, uint64_t *out)
{
	unsigned __int128 v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > UINT64_MAX)
			return false;
	}
	*out = (uint64_t)v;
	return true;
}

static bool ref_flag(const char *s, size_t n, bool *out)
{
	if (n != 1 || (s[0] != '0' && s[0] != '1'))
		return false;
	*out = s[0] == '1';
	return true;
}

/* Expected exit status; output in ref_out. */
static int reference(const char *text, size_t size)
{
	struct sched_avg sa;
	bool started = false, runnable = false, running = false;
	uint64_t last_t = 0;
	size_t pos = 0;

	ref_len = 0;
	while (pos < size) {
		const char *line = text + pos, *nl = memchr(line, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - line) : size - pos;
		const char *f[4];
		size_t fl[4];
		int nf = 0;
		uint64_t t;
		bool nr, nrun;

		pos += len + (nl ? 1 : 0);
		for (size_t i = 0; i < len;) {
			size_t j;

			while (i < len && (line[i] == ' ' || line[i] == '\t'))
				i++;
			if (i == len)
				break;
			for (j = i; j < len && line[j] != ' ' && line[j] != '\t'; j++)
				;
			if (nf < 4) {
				f[nf] = line + i;
				fl[nf] = j - i;
			}
			nf++;
			i = j;
		}
		if (nf == 0 || f[0][0] == '#')
			continue;
		if (nf != 3)
			return 2;
		if (!ref_u64(f[0], fl[0], &t) || !ref_flag(f[1], fl[1], &nr) || !ref_flag(f[2], fl[2], &nrun))
			return 2;
		if (nrun && !nr)
			return 2;
		if (started && t < last_t)
			return 2;
		if (!started) {
			pelt_init(&sa, t);
			started = true;
		} else {
			pelt_update(&sa, t, runnable, running);
		}
		last_t = t;
		runnable = nr;
		running = nrun;
		ref_emit(t, &sa);
	}
	return 0;
}

static bool plain_text(const uint8_t *data, size_t size)
{
	size_t line = 0;

	for (size_t i = 0; i < size; i++) {
		uint8_t c = data[i];

		if (c == '\n') {
			line = 0;
			continue;
		}
		if (!((c >= 0x20 && c < 0x7f) || c == '\t') || ++line >= 4000)
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in;
	int rc;

	if (size == 0 || size > (size_t)256 * 1024)
		return 0;
	in = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(in != NULL);
	tool_len = 0;
	tool_out[0] = '\0';
	tool_err_lines = 0;
	tool_err_open = false;
	rc = replay(in);
	fclose(in);
	FUZZ_CHECK_MSG(rc == 0 || rc == 2, "pelt tool exit status %d", rc);
	if (rc == 2)
		FUZZ_CHECK_MSG(tool_err_lines == 1 && !tool_err_open, "status 2 with %d stderr lines%s",
			       tool_err_lines, tool_err_open ? " (unterminated)" : "");
	else
		FUZZ_CHECK(tool_err_lines == 0);
	if (plain_text(data, size)) {
		int want = reference((const char *)data, size);

		FUZZ_CHECK_MSG(rc == want, "tool exit %d, reference %d", rc, want);
		FUZZ_CHECK_MSG(tool_len == ref_len && memcmp(tool_out, ref_out, ref_len) == 0,
			       "output differs from the reference (%zu vs %zu bytes)", tool_len, ref_len);
	}
	return 0;
}
