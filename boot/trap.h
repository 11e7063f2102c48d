/*
 * Exception frames and the C side of exception handling (ARM only).
 * trap_handler() gets every synchronous exception and FIQ; it prints a
 * report and panics, except for an expected probe fault (trap_probe_*).
 */
#ifndef BOOT_TRAP_H
#define BOOT_TRAP_H

#include <stdint.h>

#include "boot/asm.h"

struct trap_frame {
	uint32_t r[13];
	uint32_t sp, lr, pc, cpsr;
	uint32_t pad;
};

_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "trap_frame layout");
_Static_assert(__builtin_offsetof(struct trap_frame, pc) == TF_PC, "TF_PC");

void trap_handler(struct trap_frame *tf, int type);
void irq_handler(void);
void trap_dump(const struct trap_frame *tf);

#endif
