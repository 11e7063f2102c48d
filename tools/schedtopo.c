/*
 * schedtopo: print the scheduling domains and pack buddies the kernel
 * would build from a DTB, using the kernel's own topology code.
 *   build/host/schedtopo [--pack=off|rails|all] FILE.dtb
 * Output: one line per CPU with its cluster, capacity, rail and domain
 * levels (flags, groups/capacity), then exactly the boot log's "CPU<n> packing on CPU<m>" lines.
 * Bad arguments or a bad DTB: one line on stderr, exit status 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/fdt.h"
#include "kernel/topology.h"

#define MAX_DTB (4u << 20)

static int usage(void)
{
	fprintf(stderr, "usage: schedtopo [--pack=off|rails|all] FILE.dtb\n");
	return 2;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;

	if (!f)
		return NULL;
	buf = malloc(MAX_DTB + 1);
	if (buf) {
		*len = fread(buf, 1, MAX_DTB + 1, f);
		if (ferror(f)) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static struct topology topo;
	const char *path = NULL;
	int mode = PACK_RAILS;
	struct fdt fdt;
	char err[160];
	size_t len = 0;
	void *blob;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--pack=", 7) == 0) {
			mode = pack_mode_parse(argv[i] + 7);
			if (mode < 0) {
				fprintf(stderr, "schedtopo: unknown pack mode '%s' (off, rails, all)\n", argv[i] + 7);
				return 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "schedtopo: unknown option '%s' (usage: schedtopo [--pack=off|rails|all] FILE.dtb)\n",
				argv[i]);
			return 2;
		} else if (path) {
			fprintf(stderr, "schedtopo: more than one DTB given (usage: schedtopo [--pack=off|rails|all] FILE.dtb)\n");
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return usage();
	blob = read_file(path, &len);
	if (!blob) {
		fprintf(stderr, "schedtopo: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (len > MAX_DTB) {
		fprintf(stderr, "schedtopo: %s: larger than %u bytes\n", path, MAX_DTB);
		free(blob);
		return 2;
	}
	rc = fdt_open(&fdt, blob, len);
	if (rc != 0) {
		fprintf(stderr, "schedtopo: %s: invalid device tree: %s\n", path, fdt.err);
		free(blob);
		return 2;
	}
	if (topology_parse_dt(&fdt, &topo, err, sizeof(err)) != 0) {
		fprintf(stderr, "schedtopo: %s: %s\n", path, err);
		free(blob);
		return 2;
	}
	topology_build(&topo, (enum pack_mode)mode);
	printf("%d CPUs, %d clusters, pack=%s\n", topo.nr_cpus, topo.nr_clusters,
	       pack_mode_name(topo.pack));
	for (int cpu = 0; cpu < topo.nr_cpus; cpu++) {
		static char line[16384];

		topology_describe_cpu(&topo, cpu, line, sizeof(line));
		printf("%s\n", line);
	}
	for (int cpu = 0; cpu < topo.nr_cpus; cpu++)
		printf("CPU%d packing on CPU%d\n", cpu, topo.pack_buddy[cpu]);
	free(blob);
	return 0;
}
