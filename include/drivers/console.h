/*
 * Serial console: polled output (kprintf, panic), interrupt-driven input
 * into a ring buffer drained by the shell. Before console_init_dt() output
 * goes to the board's early UART (BOARD_EARLY_UART in boards/<b>/board.mk).
 */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H

#include <stddef.h>

struct fdt;

/* Use the UART named by /chosen/stdout-path (or the first PL011). */
int console_init_dt(const struct fdt *fdt);
/* Unmask the receive interrupt (after the GIC is up). */
void console_enable_rx_irq(void);
void console_write(const char *buf, size_t len);
/* Lock-free output for panic: never blocks on another CPU. */
void console_write_panic(const char *buf, size_t len);
/* Next received byte, or -1 if none is buffered. */
int console_getc(void);
/* Called (IRQ context) after received bytes were buffered. */
void console_set_rx_callback(void (*fn)(void));
/* Received bytes dropped because the ring was full. */
unsigned long console_rx_dropped(void);

#endif
