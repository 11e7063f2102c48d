/* ktest runner: runs every registered case in registration order. */
#include "ktest.h"

#include <stdarg.h>

struct kt_case *kt_cases;
int kt_failed_now;
static struct kt_case **kt_tail = &kt_cases;
static const char *kt_current;

void kt_register(struct kt_case *c)
{
	*kt_tail = c;
	kt_tail = &c->next;
}

void kt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	kt_failed_now = 1;
	printf("FAIL %s: %s:%d: ", kt_current, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	for (struct kt_case *c = kt_cases; c; c = c->next) {
		if (argc > 1 && strcmp(argv[1], c->name) != 0)
			continue;
		kt_current = c->name;
		kt_failed_now = 0;
		c->fn();
		if (kt_failed_now) {
			failed++;
		} else {
			passed++;
			printf("ok %s\n", c->name);
		}
		fflush(stdout);
	}
	printf("ktest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
