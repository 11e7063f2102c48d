/*
 * Console output for the core: kprintf() is the port's (include/arch/console.h).
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "arch/console.h"

#endif
