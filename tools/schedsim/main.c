/*
 * schedsim: the kernel's scheduling code on a simulated machine
 * (docs/interfaces.md "Simulator", docs/schedsim.md).
 *
 *   build/host/schedsim [--pack=MODE] [--governor=NAME] [--hz=N] [--seed=N] [--overheads=on|off]
 *                       [--speed=capacity|uniform] [--trace=FILE] [--max-time=S]
 *                       [--stats] FILE.dtb 'cmd; cmd; ...'
 *
 * Boots the machine FILE.dtb describes at simulated time 0 the way
 * boot/boot.c boots a board (kernel_init_dt(), the kernel init every port calls), runs
 * the script as the autorun= bootarg would, and exits 0 when it ends.
 * Bad arguments or DTB: one line "schedsim: error: ..." on stderr, exit 2.
 * A kernel panic: exit 3; a script that can never end (every CPU idle, no
 * timer armed) or runs past --max-time: exit 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/lib/cmdline.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/fdt.h"
#include "kernel/sched/idle.h"
#include "kernel/pack/pack.h"
#include "kernel/lib/printk.h"
#include "kernel/apps/result.h"
#include "kernel/apps/rtapp.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/sched/topology.h"
#include "kernel/trace/trace.h"
#include "tools/ports/sim/sim.h"

#define MAX_DTB (4u << 20)
#define EXIT_BAD_INPUT 2

static struct {
	const char *dtb_path, *script, *trace_path;
	const struct pack_policy *policy;
	const char *governor;		/* --governor: NULL for the default (performance) */
	unsigned long hz, seed;
	uint64_t max_ns;
	bool stats;
} opt;

static struct fdt fdt;

/* Sized to the tree: a machine of thousands of CPUs resolves as many phandles at boot. */
static void index_phandles(void)
{
	int n = fdt_index_phandles(&fdt, NULL, 0);
	struct fdt_phandle *buf = n > 0 ? malloc((size_t)n * sizeof(*buf)) : NULL;

	if (buf)
		fdt_index_phandles(&fdt, buf, n);
}

static char board[64];
static FILE *trace_file;	/* --trace */

static void __attribute__((noreturn, format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "schedsim: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(EXIT_BAD_INPUT);
}

static bool parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

#define USAGE "usage: schedsim [--pack=MODE] [--governor=NAME] [--hz=N] [--seed=N] [--overheads=on|off] " \
	"[--speed=capacity|uniform] [--trace=FILE] [--max-time=S] [--stats] FILE.dtb 'cmd; cmd; ...'"

static void parse_args(int argc, char **argv)
{
	const char *pos[2];
	int npos = 0;

	opt.policy = PACK_DEFAULT_POLICY;
	opt.hz = 1000;
	opt.max_ns = 3600ull * NSEC_PER_SEC;
	sim_cfg.overheads = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		unsigned long v;

		if (strncmp(a, "--pack=", 7) == 0) {
			opt.policy = pack_policy_find(a + 7);
			if (!opt.policy) {
				char names[PACK_POLICY_LIST_SIZE];

				bad("unknown pack mode '%s' (%s)", a + 7, pack_policy_list(names, sizeof(names)));
			}
		} else if (strncmp(a, "--governor=", 11) == 0) {
			opt.governor = a + 11;
			if (!cpufreq_governor_find(opt.governor)) {
				char names[96];

				bad("unknown cpufreq governor '%s' (%s)", opt.governor,
				    cpufreq_governor_list(names, sizeof(names)));
			}
		} else if (strncmp(a, "--hz=", 5) == 0) {
			if (!parse_ulong(a + 5, 100, 10000, &opt.hz) || NSEC_PER_SEC % opt.hz != 0)
				bad("--hz=%s is not a divisor of 10^9 in 100..10000", a + 5);
		} else if (strncmp(a, "--seed=", 7) == 0) {
			if (!parse_ulong(a + 7, 0, 0xffffffffu, &opt.seed))
				bad("--seed=%s is not a number 0..4294967295", a + 7);
		} else if (strcmp(a, "--overheads=on") == 0 || strcmp(a, "--overheads=off") == 0) {
			sim_cfg.overheads = strcmp(a + 12, "on") == 0;
		} else if (strcmp(a, "--speed=capacity") == 0 || strcmp(a, "--speed=uniform") == 0) {
			sim_cfg.uniform_speed = strcmp(a + 8, "uniform") == 0;
		} else if (strncmp(a, "--trace=", 8) == 0) {
			if (!a[8])
				bad("--trace= needs a file name");
			opt.trace_path = a + 8;
		} else if (strncmp(a, "--max-time=", 11) == 0) {
			if (!parse_ulong(a + 11, 1, 10000000, &v))
				bad("--max-time=%s is not a number of seconds 1..10000000", a + 11);
			opt.max_ns = (uint64_t)v * NSEC_PER_SEC;
		} else if (strcmp(a, "--stats") == 0) {
			opt.stats = true;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("%s\n", USAGE);
			exit(0);
		} else if (a[0] == '-' && a[1]) {
			bad("unknown option '%s' (%s)", a, USAGE);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			bad("too many arguments (%s)", USAGE);
		}
	}
	if (npos != 2)
		bad("give a DTB and a script (%s)", USAGE);
	opt.dtb_path = pos[0];
	opt.script = pos[1];
}

static void *read_dtb(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;

	if (!f)
		bad("%s: %s", path, strerror(errno));
	buf = malloc(MAX_DTB + 1);
	if (!buf)
		bad("out of memory");
	*len = fread(buf, 1, MAX_DTB + 1, f);
	if (ferror(f))
		bad("%s: %s", path, strerror(errno));
	fclose(f);
	if (*len > MAX_DTB)
		bad("%s: larger than %u bytes", path, MAX_DTB);
	return buf;
}

/* The board name in RESULT lines: the DTB's file name without ".dtb". */
static void board_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".dtb") == 0)
		n -= 4;
	if (n >= sizeof(board))
		n = sizeof(board) - 1;
	memcpy(board, base, n);
	board[n] = '\0';
}

/* ------------------------------------------------------------ console commands of the port */

static void console_shell_write(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	sim_console_write(buf, len);
}

/* ------------------------------------------------------------ boot */

/* The shell runs the script on CPU0, then the simulation ends. */
static void console_task_fn(void *arg)
{
	(void)arg;
	shell_run_script(opt.script);
	sim_stop();
	for (;;) {
		set_current_sleeping();
		sched_block();
	}
}

static void cpu_entry(void)
{
	int cpu = arch_cpu_id();

	sched_init_cpu(cpu);
	sched_cpu_online(cpu);
	if (cpu == 0 && !task_create("console", console_task_fn, NULL, 0, 1u << 0)) {
		fprintf(stderr, "schedsim: error: no task slot for the console\n");
		exit(1);
	}
	sched_idle_loop();
}

/* A CPU's boot time: 0, or with --seed up to 100 us later (its ticks still keep their grid). */
static uint64_t boot_skew_ns(int cpu)
{
	uint64_t x = (opt.seed + 1) * 0x9e3779b97f4a7c15ull + (uint64_t)cpu * 0xbf58476d1ce4e5b9ull;

	if (opt.seed == 0)
		return 0;
	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return x % (100 * NSEC_PER_USEC);
}

/*
 * Every command of the script must exist here (the simulator supports the
 * scheduling workloads, not the board's hardware commands): checked before
 * the machine runs, so a typo is an error, not a line in the output.
 */
static void check_script(void)
{
	static char buf[1 << 16];
	char *cursor = buf, *cmd;
	size_t n = strlen(opt.script);

	if (n >= sizeof(buf))
		bad("the script is longer than %zu characters", sizeof(buf) - 1);
	memcpy(buf, opt.script, n + 1);
	while ((cmd = cmdline_next_command(&cursor)) != NULL) {
		char *argv[CMDLINE_MAX_ARGS + 1];
		int argc = cmdline_split(cmd, argv, CMDLINE_MAX_ARGS + 1), i = 0;

		if (argc < 0)
			bad("script: %s", cmdline_strerror(argc));
		/* taskset <mask> <command ...>: the command is what must exist. */
		while (argc - i >= 3 && strcmp(argv[i], "taskset") == 0)
			i += 2;
		if (argc > i && !shell_has_command(argv[i]))
			bad("script: unknown command '%s' (the simulator's commands: `help`)", argv[i]);
	}
}

static void boot(void)
{
	static const struct shell_io io = { console_shell_write, NULL };
	static uint32_t capacity[TOPO_MAX_CPUS];
	char err[160];
	int n, root;
	const char *model;

	if (topology_parse_dt(&fdt, &sched_topo, err, sizeof(err)) != 0)
		bad("%s: %s", opt.dtb_path, err);
	n = sched_topo.nr_cpus;
	for (int c = 0; c < n; c++)
		capacity[c] = sched_topo.cpu[c].capacity;
	sim_machine_init(n, capacity);
	for (int c = 0; c < n; c++)
		sim_cpus[c].now = boot_skew_ns(c);
	/* Commands first (rt-app calibrates on CPU0 as at boot), then the script is checked. */
	shell_init(&io);
	shell_register_linked();	/* this port's commands and kernel/'s */
	check_script();
	result_board = board;
	result_engine = "sim";
	sched_hz = (unsigned int)opt.hz;
	root = fdt_root(&fdt);
	model = fdt_prop_string(&fdt, root, "model");
	kprintf("\nsched-pack simulator (board %s, %s), %d CPUs\n", board, model ? model : "unknown model", n);
	kernel_init_dt(&fdt, n, opt.policy->name);
	cpufreq_set_backend(&sim_cpufreq_backend);
	cpufreq_governor_from_arg(opt.governor, "schedsim");
	if (opt.trace_path) {
		trace_file = fopen(opt.trace_path, "w");
		if (!trace_file) {
			fprintf(stderr, "schedsim: error: %s: %s\n", opt.trace_path, strerror(errno));
			exit(1);
		}
		trace_set(true);
	}
	/* Secondaries first: CPU0's boot starts the console, whose tasks may go anywhere. */
	for (int c = n - 1; c > 0; c--)
		sim_cpu_start(c, cpu_entry);
	kprintf("%d of %d CPUs online\n", cpumask_weight(&sched_cpus_online) + 1, n);
	sched_topology_report();
	sim_cpu_start(0, cpu_entry);
}

/*
 * --trace: the kernel keeps TRACE_EVENTS_PER_CPU events a CPU and overwrites
 * the oldest, so the run goes in slices of simulated time and, between two
 * (every CPU stopped), a ring that is half full is written out and cleared:
 * a long run keeps its whole trace, as a sequence of the kernel's dumps, each
 * in time order. Slicing changes nothing else (the loop only stops and goes).
 */
#define TRACE_SLICE_NS (10 * NSEC_PER_MSEC)

static void trace_write(bool last)
{
	bool full = last;

	for (int c = 0; c < sim_nr_cpus && !full; c++) {
		uint32_t written, lost;

		trace_stats(c, &written, &lost);
		full = written >= TRACE_EVENTS_PER_CPU / 2;
	}
	if (!full)
		return;
	trace_set(false);
	sim_set_output(trace_file);
	trace_dump();
	sim_set_output(NULL);
	trace_clear();
	trace_set(!last);
}

static bool run(void)
{
	uint64_t until = 0;
	bool more;

	if (!trace_file)
		return sim_run(opt.max_ns);
	do {
		until = opt.max_ns - until > TRACE_SLICE_NS ? until + TRACE_SLICE_NS : opt.max_ns;
		more = sim_run(until);
		if (more && !sim_stopped())
			trace_write(false);
	} while (more && !sim_stopped() && until < opt.max_ns);
	return more;
}

static void print_stats(double wall_s)
{
	uint64_t sim_ns = 0;

	for (int c = 0; c < sim_nr_cpus; c++)
		if (sim_cpus[c].now > sim_ns)
			sim_ns = sim_cpus[c].now;
	fprintf(stderr,
		"schedsim: stats: cpus=%d tasks_max=%d sim_s=%.6f wall_s=%.3f sim_s_per_wall_s=%.1f events=%llu "
		"events_per_wall_s=%.0f bytes_per_cpu=%zu bytes_per_task=%zu\n",
		sim_nr_cpus, MAX_TASKS, (double)sim_ns / 1e9, wall_s,
		wall_s > 0 ? (double)sim_ns / 1e9 / wall_s : 0.0, (unsigned long long)sim_events(),
		wall_s > 0 ? (double)sim_events() / wall_s : 0.0,
		sizeof(struct sim_cpu) + sizeof(struct rq) + sizeof(struct task) + 256u * 1024u,
		sizeof(struct task) + (size_t)TASK_STACK_SIZE);
	{
		uint64_t ns[CH_NR], n[CH_NR];

		sim_charge_totals(ns, n);
		fprintf(stderr, "schedsim: charged:");
		for (int k = 0; k < CH_NR; k++)
			fprintf(stderr, " %s=%llu/%lluns", sim_charge_names[k], (unsigned long long)n[k],
				(unsigned long long)ns[k]);
		fprintf(stderr, "\n");
	}
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	struct timespec t0, t1;
	size_t len;
	void *blob;
	bool more;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	parse_args(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	blob = read_dtb(opt.dtb_path, &len);
	if (fdt_open(&fdt, blob, len) != 0)
		bad("%s: invalid device tree: %s", opt.dtb_path, fdt.err);
	index_phandles();
	board_from_path(opt.dtb_path);
	sim_cfg_defaults();
	sim_cfg.seed = opt.seed;
	boot();
	more = run();
	sim_console_flush();
	if (!sim_stopped()) {
		if (more)
			fprintf(stderr, "schedsim: error: the script did not end within --max-time=%llu s of simulated time\n",
				(unsigned long long)(opt.max_ns / NSEC_PER_SEC));
		else
			fprintf(stderr, "schedsim: error: the script can never end: every CPU is idle with no "
				"timer armed\n");
		return 1;
	}
	if (trace_file) {
		trace_write(true);
		fclose(trace_file);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (opt.stats)
		print_stats((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(blob);
	return 0;
}
