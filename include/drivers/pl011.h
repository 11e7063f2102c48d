/* ARM PrimeCell PL011 UART: register-level operations. */
#ifndef DRIVERS_PL011_H
#define DRIVERS_PL011_H

#include <stdbool.h>
#include <stdint.h>

void pl011_init(uintptr_t base);
void pl011_putc(uintptr_t base, char c);
/* Read one received byte; false if the receive FIFO is empty. */
bool pl011_getc(uintptr_t base, char *c);
void pl011_enable_rx_irq(uintptr_t base);
void pl011_ack_irq(uintptr_t base);

#endif
