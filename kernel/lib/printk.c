/*
 * kprintf(): the kernel's one console front end (include/kernel/lib/printk.h)
 * over the port's arch_console_write().
 */
#include "kernel/lib/printk.h"

#include <string.h>

#include "arch/console.h"
#include "arch/spinlock.h"
#include "kernel/lib/format.h"

#define PRINTK_LINE 1024

int vkprintf(const char *fmt, va_list ap)
{
	/* Under the lock: one formatter at a time, and off the 8 KiB task stacks. */
	static const char cut[] = " [line truncated]\n";
	static char buf[PRINTK_LINE + sizeof(cut)];
	static spinlock_t lock = SPINLOCK_INIT;
	unsigned long flags = spin_lock_irqsave(&lock);
	int n = kvsnprintf(buf, PRINTK_LINE, fmt, ap);

	if (n >= 0) {
		size_t len = (size_t)n < PRINTK_LINE ? (size_t)n : PRINTK_LINE - 1;

		/* A cut line still ends, in the same write: the next message must not run into it. */
		if ((size_t)n >= PRINTK_LINE) {
			memcpy(buf + len, cut, sizeof(cut) - 1);
			len += sizeof(cut) - 1;
		}
		arch_console_write(buf, len);
	}
	spin_unlock_irqrestore(&lock, flags);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vkprintf(fmt, ap);
	va_end(ap);
	return n;
}
