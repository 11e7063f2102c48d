/*
 * Shared bits of the libFuzzer harnesses in tests/fuzz/fuzz_<target>.c.
 *
 * Each harness defines LLVMFuzzerTestOneInput(). It is linked either with
 * libFuzzer (clang -fsanitize=fuzzer, `make fuzz`) or with
 * tests/fuzz/regress_main.c, a plain main() that feeds it every file of a
 * corpus (gcc + ASan/UBSan, `make fuzz-regress` and `make test`).
 *
 * FUZZ_CHECK() states a property the kernel's documented contract promises
 * for any input. A violated one prints the property and aborts, which both
 * drivers report as a crash (libFuzzer saves the input as crash-<sha1>).
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "fuzz: property violated: %s (%s:%d)\n", \
				#cond, __FILE__, __LINE__);                   \
			abort();                                              \
		}                                                             \
	} while (0)

#define FUZZ_CHECK_MSG(cond, ...)                                             \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "fuzz: property violated: %s (%s:%d): ", \
				#cond, __FILE__, __LINE__);                   \
			fprintf(stderr, __VA_ARGS__);                         \
			fprintf(stderr, "\n");                                \
			abort();                                              \
		}                                                             \
	} while (0)

/* Byte reader over the fuzz input: running out yields zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t left;
};

static inline uint64_t fuzz_take(struct fuzz_in *in, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++) {
		v <<= 8;
		if (in->left) {
			v |= *in->p++;
			in->left--;
		}
	}
	return v;
}

#endif
