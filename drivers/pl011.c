/*
 * PL011 UART. Transmission is polled (the console must work from panic and
 * with interrupts off); reception raises the RX and RX-timeout interrupts.
 * The baud rate is left as the boot loader set it (QEMU ignores it).
 */
#include "drivers/pl011.h"

#include "arch/arm.h"

#define UARTDR   0x00
#define UARTFR   0x18
#define UARTLCRH 0x2c
#define UARTCR   0x30
#define UARTIMSC 0x38
#define UARTICR  0x44

#define FR_BUSY (1u << 3)
#define FR_RXFE (1u << 4)
#define FR_TXFF (1u << 5)
#define LCRH_FEN (1u << 4)
#define LCRH_WLEN8 (3u << 5)
#define CR_UARTEN (1u << 0)
#define CR_TXE (1u << 8)
#define CR_RXE (1u << 9)
#define INT_RX (1u << 4)
#define INT_RT (1u << 6)

/* Bounded wait for the boot loader's last characters (38400 baud: ~260 us each, 32 in the FIFO). */
#define BUSY_SPINS 10000000

/*
 * PL011 TRM (ARM DDI 0183), 3.3.8 Control Register: the line control
 * register must not be changed while the UART is enabled; the sequence is
 * disable (UARTEN = 0), let the character being sent finish (BUSY),
 * program UARTLCRH (writing FEN also flushes the FIFOs), enable again.
 */
void pl011_init(uintptr_t base)
{
	mmio_write32(base + UARTIMSC, 0);
	mmio_write32(base + UARTICR, 0x7ff);
	for (int spin = 0; spin < BUSY_SPINS && (mmio_read32(base + UARTFR) & FR_BUSY); spin++)
		;
	mmio_write32(base + UARTCR, 0);
	mmio_write32(base + UARTLCRH, LCRH_WLEN8 | LCRH_FEN);
	mmio_write32(base + UARTCR, CR_UARTEN | CR_TXE | CR_RXE);
}

void pl011_putc(uintptr_t base, char c)
{
	while (mmio_read32(base + UARTFR) & FR_TXFF)
		;
	mmio_write32(base + UARTDR, (uint8_t)c);
}

bool pl011_getc(uintptr_t base, char *c)
{
	if (mmio_read32(base + UARTFR) & FR_RXFE)
		return false;
	*c = (char)(mmio_read32(base + UARTDR) & 0xff);
	return true;
}

void pl011_enable_rx_irq(uintptr_t base)
{
	mmio_write32(base + UARTIMSC, INT_RX | INT_RT);
}

void pl011_ack_irq(uintptr_t base)
{
	mmio_write32(base + UARTICR, INT_RX | INT_RT);
}
