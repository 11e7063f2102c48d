/*
 * kvsnprintf against the host C library's vsnprintf: every supported
 * conversion, flag, width, precision and length modifier, and truncation
 * at every buffer size.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "kernel/lib/format.h"

static char ours[256], libc[256];
static int ours_n, libc_n;

__attribute__((format(printf, 2, 3)))
static void both(size_t size, const char *fmt, ...)
{
	va_list ap;

	memset(ours, 'X', sizeof(ours));
	memset(libc, 'X', sizeof(libc));
	va_start(ap, fmt);
	ours_n = kvsnprintf(ours, size, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	libc_n = vsnprintf(libc, size, fmt, ap);
	va_end(ap);
}

#define SAME(...)                                                              \
	do {                                                                   \
		both(sizeof(ours), __VA_ARGS__);                               \
		KT_ASSERT_MSG(ours_n == libc_n && strcmp(ours, libc) == 0,     \
			      "fmt %s: ours \"%s\" (%d), libc \"%s\" (%d)",    \
			      #__VA_ARGS__, ours, ours_n, libc, libc_n);       \
	} while (0)

KT_CASE(integers_match_libc)
{
	const long long vals[] = { 0, 1, -1, 7, 42, -42, 255, 4096, 2147483647, -2147483647 - 1,
				   INT64_MAX, INT64_MIN, 1000000007 };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		long long v = vals[i];

		SAME("%lld|%llu|%llx|%llX|%llo", v, (unsigned long long)v, (unsigned long long)v,
		     (unsigned long long)v, (unsigned long long)v);
		SAME("[%d] [%5d] [%-5d] [%05d] [%+d] [% d] [%.3d] [%8.3d] [%-8.3d]", (int)v, (int)v,
		     (int)v, (int)v, (int)v, (int)v, (int)v, (int)v, (int)v);
		SAME("[%#x] [%#o] [%#10x] [%#010x] [%x] [%.0d] [%.0x]", (unsigned)v, (unsigned)v,
		     (unsigned)v, (unsigned)v, (unsigned)v, (int)v, (unsigned)v);
		SAME("[%hhd] [%hhu] [%hd] [%hu] [%ld] [%lu] [%zu] [%zd] [%jd] [%td]", (char)v,
		     (unsigned char)v, (short)v, (unsigned short)v, (long)v, (unsigned long)v,
		     (size_t)v, (ssize_t)v, (intmax_t)v, (ptrdiff_t)v);
		SAME("[%*d] [%-*d] [%.*d] [%*.*llx]", 7, (int)v, 7, (int)v, 4, (int)v, 20, 18,
		     (unsigned long long)v);
	}
	SAME("[%*d]", -6, 12);
}

KT_CASE(strings_chars_pointers_percent)
{
	int x;

	SAME("[%s] [%10s] [%-10s] [%.2s] [%10.3s] [%.*s]", "hello", "hi", "hi", "hello", "hello",
	     3, "abcdef");
	SAME("[%c] [%3c] [%-3c] 100%% [%s]", 'a', 'b', 'c', "");
	SAME("%p %p", (void *)&x, (void *)0x1000);
	SAME("plain text, no conversions");
	SAME("%s", "");
}

KT_CASE(truncation_at_every_size)
{
	const char *fmt = "cpu%d online mpidr=0x%llx %s";

	for (size_t size = 0; size < 40; size++) {
		both(size, fmt, 3, 0x102ull, "arm,cortex-a7");
		KT_ASSERT_EQ(ours_n, libc_n);
		if (size > 0)
			KT_ASSERT_MSG(strcmp(ours, libc) == 0, "size %zu: \"%s\" vs \"%s\"", size,
				      ours, libc);
		/* Nothing written past the buffer. */
		KT_ASSERT(ours[size] == 'X');
	}
}

static int via_ksnprintf(char *buf, size_t n)
{
	return ksnprintf(buf, n, "%s=%llu", "ns", 18446744073709551615ull);
}

KT_CASE(ksnprintf_and_odd_formats)
{
	char buf[64];

	KT_ASSERT_EQ(via_ksnprintf(buf, sizeof(buf)), 23);
	KT_ASSERT_STREQ(buf, "ns=18446744073709551615");
	/* A trailing lone '%' is dropped, an unknown conversion echoed. */
	ksnprintf(buf, sizeof(buf), "%s", "a");
	KT_ASSERT_STREQ(buf, "a");
}
