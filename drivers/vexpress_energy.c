/*
 * TC2 energy and power meters read through the Versatile Express SYS_CFG
 * bridge (include/arch/energy_meter.h; the portable combine is in
 * drivers/energy_meter.c).
 *
 * Device tree (as Linux's vexpress-v2p-ca15_a7.dts, hwmon "vexpress"):
 *	energy-a15 { compatible = "arm,vexpress-energy";
 *		     arm,vexpress-sysreg,func = <13 0>; label = "A15 Jcore";
 *		     cluster = <0>; };
 *	power-a15  { compatible = "arm,vexpress-power";
 *		     arm,vexpress-sysreg,func = <12 0>; ... };
 * The site comes from "arm,vexpress,site" on the node or its nearest
 * ancestor (0..3, or 0xf = the master daughterboard, which SYS_MISC names:
 * Linux's DTs say 0xf; the default), the position from
 * "arm,vexpress,position" likewise (default 0).
 *
 * Function 13 (energy): a 64-bit counter in uJ; device n = low word, n + 1
 * = high word (TC2: 0/1 = A15 cluster, 2/3 = A7 cluster). Function 12
 * (power): one 32-bit value in uW (device 0 = A15, 1 = A7). Sources:
 * docs/platform.md, Linux drivers/hwmon/vexpress-hwmon.c
 * (energy as two halves), V2M-P1 TRM (SYS_CFGCTRL).
 *
 * Meters are grouped by cluster: meter i has an energy device, a power
 * device, or both. energy_meter_count() is the number of meters the DT
 * describes (malformed nodes are skipped with a message); they are usable
 * only if energy_meter_available(), i.e. every probe at init succeeded.
 *
 * SYS_CFG is a single transaction register set: drivers/vexpress_sysreg.c
 * serialises each transaction (other SYS_CFG users - shutdown, reboot -
 * happen with the system stopping). No lock is held across the 3-4
 * transactions of an energy read, and none with IRQs masked: a task waits
 * for the controller in 100 us sleeps (as Linux's vexpress-config does), so
 * a meter read costs no interrupt latency. The halves need no lock:
 * energy_meter_combine() rereads the high word.
 */
#include "arch/energy_meter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "drivers/energy_meter.h"
#include "drivers/sys_cfg.h"
#include "drivers/vexpress.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"

#define PROP_FUNC     "arm,vexpress-sysreg,func"
#define PROP_SITE     "arm,vexpress,site"
#define PROP_POSITION "arm,vexpress,position"
#define DEFAULT_SITE     SYS_CFG_SITE_MASTER
#define DEFAULT_POSITION 0u
#define SYS_CFG_MAX_SITE     3u		/* SYS_CFGCTRL[17:16] */
#define SYS_CFG_MAX_POSITION 0xfu	/* SYS_CFGCTRL[15:12] */
#define SYS_CFG_MAX_DEVICE   0xfffu	/* SYS_CFGCTRL[11:0] */
#define LABEL_LEN 16

enum meter_kind { KIND_ENERGY, KIND_POWER };

struct meter {
	uint32_t cluster;
	unsigned int site, position;
	int energy_dev;		/* low-word device; -1: no energy counter */
	int power_dev;		/* -1: no power meter */
	char label[LABEL_LEN];
};

static struct meter meters[ENERGY_METER_MAX];
static int nr_meters;
static bool meters_ok;
static int nr_unassigned;	/* nodes without the project's cluster cell (Linux's DTs) */

static const char *kind_compat(enum meter_kind k)
{
	return k == KIND_ENERGY ? "arm,vexpress-energy" : "arm,vexpress-power";
}

/* @name on @node or its nearest ancestor that has it; @def otherwise. */
static int inherited_u32(const struct fdt *fdt, int node, const char *name, uint32_t def, uint32_t *out)
{
	for (int n = node; n >= 0; n = fdt_parent(fdt, n)) {
		if (!fdt_has_prop(fdt, n, name))
			continue;
		return fdt_prop_u32(fdt, n, name, out);
	}
	*out = def;
	return 0;
}

/* The label's first word: "A15 Jcore" -> "A15" (the header's names); "cluster<k>" without one. */
static void copy_label(char *dst, const char *src, uint32_t cluster)
{
	size_t n = 0;

	while (src && n < LABEL_LEN - 1 && src[n] && src[n] != ' ') {
		dst[n] = src[n];
		n++;
	}
	dst[n] = '\0';
	if (n == 0)
		ksnprintf(dst, LABEL_LEN, "cluster%u", (unsigned)cluster);
}

/* Parse one energy/power node; a malformed one is reported and skipped. */
static void parse_node(const struct fdt *fdt, int node, enum meter_kind kind)
{
	const char *name = fdt_node_name(fdt, node);
	uint32_t want = kind == KIND_ENERGY ? SYS_CFG_ENERGY : SYS_CFG_POWER;
	uint32_t func, dev, cluster, site, position;
	struct meter *m = NULL;
	int len;

	if (!fdt_has_prop(fdt, node, "cluster")) {
		nr_unassigned++;	/* reported once, by energy_meter_init_dt() */
		return;
	}
	if (!fdt_getprop(fdt, node, PROP_FUNC, &len)) {
		kprintf("energy: %s (%s): no %s property; meter skipped\n", name, kind_compat(kind), PROP_FUNC);
		return;
	}
	if (len != 8) {
		kprintf("energy: %s: %s is %d bytes, expected 2 cells <function device>; meter skipped\n",
			name, PROP_FUNC, len);
		return;
	}
	fdt_prop_cell(fdt, node, PROP_FUNC, 0, &func);
	fdt_prop_cell(fdt, node, PROP_FUNC, 1, &dev);
	if (func != want) {
		kprintf("energy: %s: %s function %u, expected %u for %s; meter skipped\n", name, PROP_FUNC,
			(unsigned)func, (unsigned)want, kind_compat(kind));
		return;
	}
	/* Energy uses devices dev (low) and dev + 1 (high). */
	if (dev > SYS_CFG_MAX_DEVICE - (kind == KIND_ENERGY ? 1u : 0u)) {
		kprintf("energy: %s: %s device %u out of range (max %u); meter skipped\n", name, PROP_FUNC,
			(unsigned)dev, SYS_CFG_MAX_DEVICE - (kind == KIND_ENERGY ? 1u : 0u));
		return;
	}
	if (fdt_prop_u32(fdt, node, "cluster", &cluster) != 0) {
		kprintf("energy: %s: missing or malformed cluster (one cell); meter skipped\n", name);
		return;
	}
	if (inherited_u32(fdt, node, PROP_SITE, DEFAULT_SITE, &site) != 0 ||
	    (site > SYS_CFG_MAX_SITE && site != SYS_CFG_SITE_MASTER)) {
		kprintf("energy: %s: %s must be one cell 0..%u or 0x%x (master); meter skipped\n", name, PROP_SITE,
			SYS_CFG_MAX_SITE, SYS_CFG_SITE_MASTER);
		return;
	}
	if (inherited_u32(fdt, node, PROP_POSITION, DEFAULT_POSITION, &position) != 0 ||
	    position > SYS_CFG_MAX_POSITION) {
		kprintf("energy: %s: %s must be one cell 0..%u; meter skipped\n", name, PROP_POSITION,
			SYS_CFG_MAX_POSITION);
		return;
	}

	for (int i = 0; i < nr_meters; i++)
		if (meters[i].cluster == cluster)
			m = &meters[i];
	if (m && (kind == KIND_ENERGY ? m->energy_dev : m->power_dev) >= 0) {
		kprintf("energy: %s: cluster %u already has a %s meter; meter skipped\n", name,
			(unsigned)cluster, kind == KIND_ENERGY ? "energy" : "power");
		return;
	}
	if (m && (m->site != site || m->position != position)) {
		kprintf("energy: %s: cluster %u meters disagree on site/position (%u/%u vs %u/%u); meter skipped\n",
			name, (unsigned)cluster, (unsigned)site, (unsigned)position, m->site, m->position);
		return;
	}
	if (!m) {
		if (nr_meters == ENERGY_METER_MAX) {
			kprintf("energy: %s: more than %d cluster meters; meter skipped\n", name, ENERGY_METER_MAX);
			return;
		}
		m = &meters[nr_meters++];
		m->cluster = cluster;
		m->site = site;
		m->position = position;
		m->energy_dev = -1;
		m->power_dev = -1;
		copy_label(m->label, fdt_prop_string(fdt, node, "label"), cluster);
	}
	if (kind == KIND_ENERGY)
		m->energy_dev = (int)dev;
	else
		m->power_dev = (int)dev;
}

/* 64-bit energy: high, low, high again; low again only if high moved. */
static int read_energy(const struct meter *m, uint64_t *uj)
{
	unsigned int lo_dev = (unsigned int)m->energy_dev, hi_dev = lo_dev + 1;
	uint32_t hi1, lo, hi2, lo2;
	int err;

	if ((err = sys_cfg_read(SYS_CFG_ENERGY, m->site, m->position, hi_dev, &hi1)) != 0 ||
	    (err = sys_cfg_read(SYS_CFG_ENERGY, m->site, m->position, lo_dev, &lo)) != 0 ||
	    (err = sys_cfg_read(SYS_CFG_ENERGY, m->site, m->position, hi_dev, &hi2)) != 0)
		return err;
	lo2 = lo;
	if (hi1 != hi2 && (err = sys_cfg_read(SYS_CFG_ENERGY, m->site, m->position, lo_dev, &lo2)) != 0)
		return err;
	*uj = energy_meter_combine(hi1, lo, hi2, lo2);
	return SYS_CFG_OK;
}

int energy_meter_read_uj(int i, uint64_t *uj)
{
	if (i < 0 || i >= nr_meters || meters[i].energy_dev < 0)
		return SYS_CFG_ENODEV;
	return read_energy(&meters[i], uj);
}

int energy_meter_read_uw(int i, uint32_t *uw)
{
	if (i < 0 || i >= nr_meters || meters[i].power_dev < 0)
		return SYS_CFG_ENODEV;
	return sys_cfg_read(SYS_CFG_POWER, meters[i].site, meters[i].position, (unsigned int)meters[i].power_dev, uw);
}

int energy_meter_init_dt(const struct fdt *fdt)
{
	int err = SYS_CFG_OK, bad_func = 0, with_energy = 0;

	nr_meters = 0;
	nr_unassigned = 0;
	meters_ok = false;
	/* DT order decides the meter numbering (energy and power nodes alike). */
	for (int node = fdt_next_node(fdt, fdt_root(fdt)); node >= 0; node = fdt_next_node(fdt, node)) {
		if (!fdt_node_enabled(fdt, node))
			continue;
		if (fdt_is_compatible(fdt, node, "arm,vexpress-energy"))
			parse_node(fdt, node, KIND_ENERGY);
		else if (fdt_is_compatible(fdt, node, "arm,vexpress-power"))
			parse_node(fdt, node, KIND_POWER);
	}
	if (nr_unassigned)
		kprintf("energy: %d arm,vexpress-energy/power node(s) without a cluster cell (Linux's binding): not used as meters\n",
			nr_unassigned);
	for (int i = 0; i < nr_meters; i++)
		with_energy += meters[i].energy_dev >= 0;
	if (with_energy == 0) {
		kprintf("energy: no arm,vexpress-energy meters in the device tree; using the energy model\n");
		return SYS_CFG_ENODEV;
	}

	/* Probe each meter once: the whole 64-bit read, and the power word. */
	for (int i = 0; i < nr_meters && err == SYS_CFG_OK; i++) {
		uint64_t uj;
		uint32_t uw;

		if (meters[i].energy_dev >= 0 && (err = energy_meter_read_uj(i, &uj)) != SYS_CFG_OK)
			bad_func = SYS_CFG_ENERGY;
		else if (meters[i].power_dev >= 0 && (err = energy_meter_read_uw(i, &uw)) != SYS_CFG_OK)
			bad_func = SYS_CFG_POWER;
	}
	if (err != SYS_CFG_OK) {
		kprintf("energy: meters not available (SYS_CFG function %d: %s); using the energy model\n",
			bad_func, sys_cfg_strerror(err));
		return err;
	}

	meters_ok = true;
	{
		char line[160];
		size_t n = 0;

		line[0] = '\0';
		for (int i = 0; i < nr_meters && n < sizeof(line); i++) {
			const struct meter *m = &meters[i];

			n += (size_t)ksnprintf(line + n, sizeof(line) - n, "%s%s (cluster %u, %s)", i ? ", " : "",
					       m->label, (unsigned)m->cluster,
					       m->energy_dev < 0 ? "power" : m->power_dev < 0 ? "energy" : "energy+power");
		}
		kprintf("energy: %d hardware meter%s via SYS_CFG site %u%s: %s\n", nr_meters,
			nr_meters == 1 ? "" : "s", sys_cfg_site(meters[0].site),
			meters[0].site == SYS_CFG_SITE_MASTER ? " (the master site, SYS_MISC)" : "", line);
	}
	return SYS_CFG_OK;
}

bool energy_meter_available(void)
{
	return meters_ok;
}

int energy_meter_count(void)
{
	return nr_meters;
}

int energy_meter_cluster(int i)
{
	return i >= 0 && i < nr_meters ? (int)meters[i].cluster : -1;
}

const char *energy_meter_label(int i)
{
	return i >= 0 && i < nr_meters ? meters[i].label : NULL;
}
