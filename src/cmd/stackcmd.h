/* What the stack commands (profile, offcpu) share at the command level:
 * the stack options and the written report.  The run itself is the
 * session's (trace/session.h), the stacks the pipeline's
 * (stacks/pipeline.h). */
#ifndef STACKSCOPE_CMD_STACKCMD_H
#define STACKSCOPE_CMD_STACKCMD_H
#include <stdbool.h>
#include "push/windows.h"
#include "report/format.h"
#include "stacks/pipeline.h"
#include "trace/session.h"
#include "unwind/unwind.h"

/* The formats a stack command writes. */
#define STACKCMD_FORMATS \
	(REPORT_MASK(REPORT_SVG) | REPORT_MASK(REPORT_FOLDED) | REPORT_MASK(REPORT_PPROF))

struct stackcmd_opts {
	struct session_opts s;	/* -p -d -o -v, -- CMD */
	bool user_only;		/* -U */
	bool kernel_only;	/* -K */
	bool offsets;		/* --offsets */
	enum report_format format;	/* --format, else from -o's name */
	bool format_given;
	enum unwind_mode unwind;	/* --unwind */
	long stack_size;	/* --stack-size: bytes of user stack copied */
	long unwind_rows;	/* --unwind-rows: the in-kernel unwinder's row capacity */
	bool per_pid;		/* --per-pid */
	bool per_thread;	/* --per-thread */
	/* continuous (profile --every): a pprof per window, to the -o
	 * pattern (windows.pattern, not s.output) and/or pushed */
	double every;		/* seconds; 0: one report at the end */
	struct windows_opts windows;
};

/* Long options every stack command takes (getopt_long entries). */
#define STACKCMD_LONGOPTS                                            \
	{ "format", required_argument, NULL, 'f' },                  \
	{ "offsets", no_argument, NULL, 'O' },                       \
	{ "unwind", required_argument, NULL, 'W' },                  \
	{ "stack-size", required_argument, NULL, 'S' },              \
	{ "unwind-rows", required_argument, NULL, STACKCMD_UNWIND_ROWS }, \
	{ "per-pid", no_argument, NULL, STACKCMD_PER_PID },          \
	{ "per-thread", no_argument, NULL, STACKCMD_PER_THREAD }

/* Codes of long options without a short one. */
enum { STACKCMD_PER_PID = 0x200, STACKCMD_PER_THREAD, STACKCMD_UNWIND_ROWS };

void stackcmd_init(struct stackcmd_opts *o, const char *name);
/* 1 handled, 0 not one of them, else minus an exit status (said). */
int stackcmd_parse_opt(struct stackcmd_opts *o, int c, const char *arg);
/* Checks the whole and takes the command; 0 or 2 (said). */
int stackcmd_finish(struct stackcmd_opts *o, int argc, char **argv);
/* User stacks unwound inside the kernel (--unwind kernel). */
bool stackcmd_kunwind(const struct stackcmd_opts *o);
struct bpf_object;
/* The in-kernel unwinder of a loaded object that includes
 * bpf/kunwind.bpf.h, added to the pipeline (its maps found by name). */
/* Fills every allowed CPU's reserve of free elements of a stack store
 * (bpf/stacks.bpf.h: not preallocated) by storing and deleting a few
 * dummy stacks from each CPU in turn; a CPU it cannot run on keeps the
 * kernel's reserve of one.  After loading, before attaching. */
void stackcmd_warm_store(int fd);
int stackcmd_add_kunwind(const struct stackcmd_opts *o, struct stackpipe *sp,
			 const struct bpf_object *obj);
/* The pipeline these options ask for. */
struct stackpipe_opts stackcmd_pipe_opts(const struct stackcmd_opts *o);

/* A stack command's capture: setup loads, fills the filter, adds its
 * snapshots to the pipeline and attaches; collect reads the results into
 * the pipeline (stackpipe_add) and counts them (stackpipe_count).
 * With windows (o->every), window instead closes the current window and
 * reads exactly what it holds into the pipeline (the last one once
 * sampling is detached), and count counts the whole run. */
struct stackcmd_capture {
	/* before the launch (optional): what the run's options are enough
	 * for; setup() once the command is launched and the pipeline made */
	int (*prepare)(void *ctx, struct session *s);
	int (*setup)(void *ctx, struct session *s, struct stackpipe *sp);
	int (*collect)(void *ctx, struct session *s, struct stackpipe *sp);
	int (*window)(void *ctx, struct session *s, struct stackpipe *sp);
	int (*count)(void *ctx, struct session *s, struct stackpipe *sp);
	const char *title;	/* "CPU profile" */
	const char *subtitle;	/* "cpu-clock at 99 Hz" */
	const char *unit;	/* "samples", "us" */
	bool cool;		/* the off-CPU palette */
	/* --format pprof: the sample types and period (times and comments
	 * are the run's) */
	struct pprof_opts pprof;
};

/* The whole run: session, pipeline, setup, run, detach, drain, collect,
 * write; with windows, each window closed, written and pushed while the
 * run lasts, the last one after it.  Returns the exit status. */
int stackcmd_run(struct stackcmd_opts *o, const struct stackcmd_capture *c, void *ctx);

#endif
