/*
 * Background jobs for the shell: "cmd args &" runs the command in its own
 * task (so two benchmarks can run at once, as the seeds ran two
 * cyclictests), `jobs` lists them and `wait` joins them all.
 */
#include <string.h>

#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"

#define MAX_JOBS 8
#define JOB_ARGS 32

struct job {
	bool used;
	int id;
	struct task *task;
	const struct shell_cmd *cmd;
	int argc;
	char *argv[JOB_ARGS + 1];
	char buf[SHELL_LINE_MAX];
	volatile int status;
	volatile bool done;
};

static struct job jobs[MAX_JOBS];
static spinlock_t jobs_lock = SPINLOCK_INIT;
static int next_id = 1;

static void job_fn(void *arg)
{
	struct job *j = arg;

	j->status = j->cmd->fn(j->argc, j->argv);
	j->done = true;
	kprintf("[%d] done: %s (status %d)\n", j->id, j->cmd->name, j->status);
}

static int start_job(const struct shell_cmd *cmd, int argc, char **argv)
{
	unsigned long flags = spin_lock_irqsave(&jobs_lock);
	struct job *j = NULL;
	size_t used = 0;

	for (int i = 0; i < MAX_JOBS && !j; i++)
		if (!jobs[i].used) {
			j = &jobs[i];
			j->used = true;
			j->id = next_id++;
		}
	spin_unlock_irqrestore(&jobs_lock, flags);
	if (!j) {
		kprintf("error: %d background jobs already running (try 'wait')\n", MAX_JOBS);
		return 1;
	}
	if (argc > JOB_ARGS)
		argc = JOB_ARGS;
	/* The shell's argv lives on its stack: copy the words. */
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (used + n > sizeof(j->buf)) {
			argc = i;
			break;
		}
		memcpy(j->buf + used, argv[i], n);
		j->argv[i] = j->buf + used;
		used += n;
	}
	j->argv[argc] = NULL;
	j->argc = argc;
	j->cmd = cmd;
	j->done = false;
	j->task = task_create(cmd->name, job_fn, j, 0, TASK_CPUS_ANY);
	if (!j->task) {
		j->used = false;
		kprintf("error: no task slot for a background job\n");
		return 1;
	}
	kprintf("[%d] started: %s\n", j->id, cmd->name);
	return 0;
}

static int cmd_wait(int argc, char **argv)
{
	int status = 0;

	(void)argv;
	if (argc != 1) {
		kprintf("error: wait takes no arguments\n");
		return 1;
	}
	for (int i = 0; i < MAX_JOBS; i++) {
		if (!jobs[i].used)
			continue;
		task_join(jobs[i].task);
		if (jobs[i].status)
			status = jobs[i].status;
		jobs[i].used = false;
	}
	return status;
}

static int cmd_jobs(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: jobs takes no arguments\n");
		return 1;
	}
	for (int i = 0; i < MAX_JOBS; i++)
		if (jobs[i].used)
			kprintf("[%d] %s %s\n", jobs[i].id, jobs[i].done ? "done" : "running", jobs[i].cmd->name);
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "wait", "", "wait for every background job (cmd ... &)", cmd_wait },
	{ "jobs", "", "list background jobs", cmd_jobs },
};

static void jobs_init(void)
{
	shell_set_background(start_job);
}
SHELL_COMMANDS_INIT(commands, jobs_init);
