/*
 * Console over a PL011: every write (kprintf()'s lines through
 * arch_console_write(), the shell's echo) goes out under one lock, so lines
 * from different CPUs never interleave.
 * Received bytes are pushed by the RX interrupt into a single-producer
 * (the IRQ on the boot CPU) single-consumer (the shell) ring.
 */
#include "kernel/lib/format.h"
#include "drivers/console.h"

#include <stdio.h>
#include <string.h>

#include "arch/barrier.h"
#include "arch/spinlock.h"
#include "drivers/dt.h"
#include "drivers/gic.h"
#include "drivers/pl011.h"
#include "kernel/lib/fdt.h"
#include "arch/console.h"
#include "kernel/lib/printk.h"

#define RX_RING 256	/* power of two */

static uintptr_t uart_base = BOARD_EARLY_UART;
static uint32_t uart_irq;
static spinlock_t console_lock = SPINLOCK_INIT;
static char rx_ring[RX_RING];
static volatile unsigned int rx_head, rx_tail;
static unsigned long rx_dropped;
static void (*rx_callback)(void);

void console_set_rx_callback(void (*fn)(void))
{
	rx_callback = fn;
}

static void raw_write(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n')
			pl011_putc(uart_base, '\r');
		pl011_putc(uart_base, buf[i]);
	}
}

void console_write(const char *buf, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);

	raw_write(buf, len);
	spin_unlock_irqrestore(&console_lock, flags);
}

void console_write_panic(const char *buf, size_t len)
{
	raw_write(buf, len);
}

void arch_console_write(const char *buf, size_t len)
{
	console_write(buf, len);
}

static void console_rx_irq(uint32_t irq, void *arg)
{
	char c;

	(void)irq;
	(void)arg;
	/*
	 * Acknowledge before draining: a byte that lands after the last
	 * "FIFO empty" check then raises the interrupt again instead of being
	 * stranded with the interrupt already cleared.
	 */
	pl011_ack_irq(uart_base);
	while (pl011_getc(uart_base, &c)) {
		unsigned int head = rx_head;

		if (head - rx_tail >= RX_RING) {
			rx_dropped++;
			continue;
		}
		rx_ring[head % RX_RING] = c;
		smp_wmb();
		rx_head = head + 1;
	}
	if (rx_callback)
		rx_callback();
}

int console_getc(void)
{
	unsigned int tail = rx_tail;
	int c;

	if (tail == READ_ONCE(rx_head))
		return -1;
	smp_rmb();
	c = (unsigned char)rx_ring[tail % RX_RING];
	rx_tail = tail + 1;
	return c;
}

unsigned long console_rx_dropped(void)
{
	return rx_dropped;
}

/* First enabled PL011 of the DT, or -1. */
static int first_pl011(const struct fdt *fdt)
{
	int node = -1;

	do
		node = fdt_find_compatible(fdt, node, "arm,pl011");
	while (node >= 0 && !fdt_node_enabled(fdt, node));
	return node;
}

/*
 * The console is what /chosen/stdout-path names (path, alias, options,
 * phandle: kernel/lib/fdt_addr.c). Without one, Linux's ttyAMA0: the
 * serial0 alias, else (no such alias) the first enabled PL011. A console
 * that is no PL011 or is disabled panics, naming the node and property, on
 * the early UART (a silent switch to another UART would leave the user
 * with no console at all).
 */
int console_init_dt(const struct fdt *fdt)
{
	struct fdt_fault f;
	int node = fdt_stdout_node(fdt, &f);

	if (node == FDT_ENOTFOUND) {
		int chosen = fdt_path(fdt, "/chosen");

		/* An alias that names something else is the DT's mistake: said below, not skipped. */
		node = fdt_alias(fdt, "serial0");
		if (node < 0)
			node = first_pl011(fdt);
		if (node < 0)
			dt_panicf(fdt, chosen >= 0 ? chosen : fdt_root(fdt), "stdout-path",
				  "missing, and no enabled arm,pl011 node to use instead");
	} else if (node < 0) {
		dt_panic(fdt, &f);
	}
	if (!fdt_is_compatible(fdt, node, "arm,pl011"))
		dt_panicf(fdt, node, "compatible", "not arm,pl011, the only console the kernel drives");
	if (!fdt_node_enabled(fdt, node))
		dt_panicf(fdt, node, "status", "\"%s\": the console is disabled", fdt_prop_string(fdt, node, "status"));
	uart_base = dt_mmio(fdt, node, 0, NULL);
	uart_irq = fdt_has_prop(fdt, node, "interrupts") ? dt_irq(fdt, node, 0) : 0;
	pl011_init(uart_base);
	return 0;
}

void console_enable_rx_irq(void)
{
	if (!uart_irq) {
		kprintf("console: UART has no interrupt in the DT: input disabled\n");
		return;
	}
	irq_register(uart_irq, console_rx_irq, NULL);
	gic_route(uart_irq, 0);
	gic_enable(uart_irq);
	pl011_enable_rx_irq(uart_base);
}
