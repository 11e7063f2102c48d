/*
 * Regression driver for the libFuzzer harnesses: a plain main() (no
 * libFuzzer, so gcc builds it) that runs LLVMFuzzerTestOneInput() once on
 * every file named on the command line, or on every regular file of every
 * directory named (not recursive; dot files are skipped), in name order.
 *
 *   build/fuzz/regress/<target> tests/fuzz/corpus/<target>
 *
 * Built with ASan + UBSan (-fno-sanitize-recover), so a crash, a sanitizer
 * report or a FUZZ_CHECK() failure ends the run with a non-zero status; the
 * input being run is named on stderr first ("fuzz-regress: <path>"), so the
 * report says which one. On success it prints "fuzz-regress: N inputs ok"
 * and exits 0. Exit status 2: usage error, unreadable input or no inputs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "fuzz-regress: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "fuzz-regress: %s: out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "fuzz-regress: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* An exact-size copy, as libFuzzer passes: ASan sees any over-read. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		if (len)
			memcpy(exact, buf, len);
		free(buf);
		fprintf(stderr, "fuzz-regress: %s\n", path);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "fuzz-regress: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char *path;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			rc = -1;
			break;
		}
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				free(path);
				rc = -1;
				break;
			}
			names = nn;
		}
		names[n++] = path;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0) {
			if (run_file(names[i]) != 0)
				rc = -1;
			else
				++*count;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz-regress: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) != 0 : run_file(argv[i]) != 0)
			return 2;
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	if (count == 0) {
		fprintf(stderr, "fuzz-regress: no inputs\n");
		return 2;
	}
	printf("fuzz-regress: %d inputs ok\n", count);
	return 0;
}
