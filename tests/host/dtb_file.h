/*
 * A DTB file for host tests: read whole (up to 1 MiB) and opened with the
 * kernel's reader (kernel/fdt.h). Fixtures are built by `make host`
 * (build/host/dts/), boards' DTBs by `make boards` (build/<board>/).
 */
#ifndef TESTS_HOST_DTB_FILE_H
#define TESTS_HOST_DTB_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/fdt.h"

struct dtb {
	uint8_t blob[1 << 20];
	size_t len;
	struct fdt fdt;
};

/* Read @path into @d; false with the reason in @why (the file's bytes are not checked). */
bool dtb_read(const char *path, struct dtb *d, char *why, size_t len);
/* dtb_read(), then fdt_open(); false with the reason in @why. */
bool dtb_load(const char *path, struct dtb *d, char *why, size_t len);

#endif
