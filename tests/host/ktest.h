/*
 * ktest: a minimal unit-test harness for host tests of the kernel core.
 *
 * A test file defines cases with KT_CASE(name) { ... } and registers nothing
 * by hand: cases are collected through a constructor. KT_ASSERT* record a
 * failure with file:line and return from the case. main() is supplied by
 * defining KTEST_MAIN in exactly one translation unit per binary (normally the
 * test file itself). Output, parsed by tests/run.py:
 *   ok <case>
 *   FAIL <case>: <file>:<line>: <message>
 *   ktest: N passed, N failed
 */
#ifndef KTEST_H
#define KTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kt_case {
	const char *name;
	void (*fn)(void);
	struct kt_case *next;
};

extern struct kt_case *kt_cases;
extern int kt_failed_now;

void kt_register(struct kt_case *c);
void kt_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define KT_CASE(name)                                                        \
	static void kt_fn_##name(void);                                      \
	static struct kt_case kt_case_##name = { #name, kt_fn_##name, 0 };   \
	__attribute__((constructor)) static void kt_reg_##name(void)         \
	{                                                                    \
		kt_register(&kt_case_##name);                                \
	}                                                                    \
	static void kt_fn_##name(void)

#define KT_ASSERT(cond)                                                      \
	do {                                                                 \
		if (!(cond)) {                                               \
			kt_fail(__FILE__, __LINE__, "assertion failed: %s",  \
				#cond);                                      \
			return;                                              \
		}                                                            \
	} while (0)

#define KT_ASSERT_MSG(cond, ...)                                             \
	do {                                                                 \
		if (!(cond)) {                                               \
			kt_fail(__FILE__, __LINE__, __VA_ARGS__);            \
			return;                                              \
		}                                                            \
	} while (0)

#define KT_ASSERT_EQ(a, b)                                                   \
	do {                                                                 \
		long long kt_a_ = (long long)(a), kt_b_ = (long long)(b);    \
		if (kt_a_ != kt_b_) {                                        \
			kt_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
				#a, kt_a_, #b, kt_b_);                       \
			return;                                              \
		}                                                            \
	} while (0)

#define KT_ASSERT_STREQ(a, b)                                                \
	do {                                                                 \
		const char *kt_a_ = (a), *kt_b_ = (b);                       \
		if (!kt_a_ || !kt_b_ || strcmp(kt_a_, kt_b_) != 0) {         \
			kt_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
				#a, kt_a_ ? kt_a_ : "(null)",                \
				kt_b_ ? kt_b_ : "(null)");                   \
			return;                                              \
		}                                                            \
	} while (0)

#endif
