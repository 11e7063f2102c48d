/*
 * The security state and mode the kernel was entered in, and whether the
 * TC2 warm-boot path can be trusted with it (plain C: host-tested in
 * tests/host/test_boardquirks.c; drivers/power_tc2.c applies it).
 *
 * Inputs: the CPSR mode at entry (boot/head.S saves it before leaving HYP
 * in boot_entry_cpsr), GICD_TYPER.SecurityExtn (GIC-400 TRM / GICv2
 * architecture spec 4.3.2), and whether a GICD_IGROUPR0 bit can be
 * changed: group registers are Secure-only, RAZ/WI to non-secure accesses
 * (GICv2 spec 4.3.10), the one probe a PL1 kernel can make of its state.
 * HYP exists only in non-secure state (ARM ARM B1.4): U-Boot's
 * ARMV7_NONSEC / ARMV7_VIRT (the vexpress_ca15_tc2 default) enter there.
 *
 * Why non-secure matters on TC2: after a cluster power-off the SPC
 * restarts a CPU in the boot monitor, in Secure state, which branches to
 * the mailbox address; the kernel then runs Secure on that CPU and
 * non-secure on the others (different GIC banking and groups), and the
 * CCI-400's control registers may ignore non-secure writes. No safe warm
 * boot exists there: the power back end stays WFI-only and says so.
 */
#ifndef DRIVERS_ENTRY_STATE_H
#define DRIVERS_ENTRY_STATE_H

#include <stdbool.h>
#include <stdint.h>

#define ENTRY_MODE_MASK 0x1fu
#define ENTRY_MODE_SVC  0x13u
#define ENTRY_MODE_HYP  0x1au

enum entry_world { ENTRY_SECURE, ENTRY_NONSECURE, ENTRY_NO_SECURITY_EXT };

struct entry_state {
	bool hyp;		/* entered in HYP mode (the kernel dropped to SVC) */
	enum entry_world world;
};

static inline struct entry_state entry_state_decide(uint32_t entry_cpsr, bool gic_secext, bool igroup_writable)
{
	struct entry_state s;

	s.hyp = (entry_cpsr & ENTRY_MODE_MASK) == ENTRY_MODE_HYP;
	if (s.hyp)
		s.world = ENTRY_NONSECURE;
	else if (!gic_secext)
		s.world = ENTRY_NO_SECURITY_EXT;	/* one world: the GIC cannot tell, nothing differs */
	else
		s.world = igroup_writable ? ENTRY_SECURE : ENTRY_NONSECURE;
	return s;
}

/* NULL if the TC2 SPC warm-boot path may run; else why not (for the boot line). */
static inline const char *entry_state_tc2_refusal(struct entry_state s)
{
	if (s.world != ENTRY_NONSECURE)
		return NULL;
	return s.hyp ? "the kernel was entered in HYP mode (non-secure: U-Boot's NONSEC/VIRT boot), and a CPU "
		       "woken from cluster power-off restarts in Secure state through the boot monitor"
		     : "the kernel runs non-secure (GIC group registers read-only), and a CPU woken from "
		       "cluster power-off restarts in Secure state through the boot monitor";
}

#endif
