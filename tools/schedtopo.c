/*
 * schedtopo: print the scheduling domains and pack buddies the kernel
 * would build from a DTB, using the kernel's own topology code.
 *   build/host/schedtopo [--pack=MODE] FILE.dtb
 *   build/host/schedtopo --list-modes
 * Output: one line per CPU with its cluster, capacity, rail and domain
 * levels (flags, groups/capacity), then exactly the boot log's "CPU<n> packing on CPU<m>" lines.
 * --list-modes: one line per placement policy of the table, in table order,
 * "<name> <one-line description>" (scripts take the mode names from here).
 * Bad arguments or a bad DTB: one line on stderr, exit status 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/fdt.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/topology.h"

#define MAX_DTB (4u << 20)

#define USAGE "usage: schedtopo [--pack=MODE] FILE.dtb | schedtopo --list-modes"

static int usage(void)
{
	fprintf(stderr, "%s\n", USAGE);
	return 2;
}

static int list_modes(void)
{
	const struct pack_policy *p;

	for (int i = 0; (p = pack_policy_at(i)) != NULL; i++)
		printf("%s %s\n", p->name, p->desc);
	return 0;
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
	const struct pack_policy *policy = PACK_DEFAULT_POLICY;
	struct fdt fdt;
	char err[160];
	size_t len = 0;
	void *blob;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--list-modes") == 0) {
			if (argc != 2) {
				fprintf(stderr, "schedtopo: --list-modes takes nothing else (%s)\n", USAGE);
				return 2;
			}
			return list_modes();
		} else if (strncmp(argv[i], "--pack=", 7) == 0) {
			policy = pack_policy_find(argv[i] + 7);
			if (!policy) {
				char names[PACK_POLICY_LIST_SIZE];

				fprintf(stderr, "schedtopo: unknown pack mode '%s' (%s)\n", argv[i] + 7,
					pack_policy_list(names, sizeof(names)));
				return 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "schedtopo: unknown option '%s' (%s)\n", argv[i], USAGE);
			return 2;
		} else if (path) {
			fprintf(stderr, "schedtopo: more than one DTB given (%s)\n", USAGE);
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
	topology_build(&topo, policy);
	printf("%d CPUs, %d clusters, pack=%s\n", topo.nr_cpus, topo.nr_clusters, topo.policy->name);
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
