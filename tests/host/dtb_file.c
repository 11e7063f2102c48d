/* DTB files for host tests (tests/host/dtb_file.h). */
#include "dtb_file.h"

#include <stdio.h>

bool dtb_read(const char *path, struct dtb *d, char *why, size_t len)
{
	FILE *f = fopen(path, "rb");

	if (!f) {
		snprintf(why, len, "cannot open %s (build the fixtures with `make host`, the boards with `make boards`)",
			 path);
		return false;
	}
	d->len = fread(d->blob, 1, sizeof(d->blob), f);
	fclose(f);
	return true;
}

bool dtb_load(const char *path, struct dtb *d, char *why, size_t len)
{
	int rc;

	if (!dtb_read(path, d, why, len))
		return false;
	rc = fdt_open(&d->fdt, d->blob, d->len);
	if (rc != 0) {
		snprintf(why, len, "%s: fdt_open %d: %s", path, rc, d->fdt.err);
		return false;
	}
	return true;
}
