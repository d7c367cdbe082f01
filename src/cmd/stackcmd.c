#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "cmd/stackcmd.h"
#include <linux/types.h>
#include "bpf/kunwind.h"
#include "bpf/stacks.h"

void stackcmd_init(struct stackcmd_opts *o, const char *name)
{
	*o = (struct stackcmd_opts){ .s.name = name, .stack_size = SNAPSHOT_DEFAULT,
				     .unwind_rows = KUNWIND_DEFAULT_ROWS };
}

int stackcmd_parse_opt(struct stackcmd_opts *o, int c, const char *arg)
{
	int ret = session_parse_opt(&o->s, c, arg);

	if (ret)
		return ret;
	switch (c) {
	case 'U':
		o->user_only = true;
		return 1;
	case 'K':
		o->kernel_only = true;
		return 1;
	case 'O':
		o->offsets = true;
		return 1;
	case STACKCMD_PER_PID:
		o->per_pid = true;
		return 1;
	case STACKCMD_PER_THREAD:
		o->per_thread = true;
		return 1;
	case 'W':
		if (unwind_mode_parse(arg, &o->unwind)) {
			msg("--unwind %s: expected kernel, tables, fp or auto", arg);
			return -2;
		}
		return 1;
	case 'S':
		if (parse_long(arg, 512, SNAPSHOT_MAX, &o->stack_size)) {
			msg("--stack-size %s: expected bytes, 512 to %d", arg, SNAPSHOT_MAX);
			return -2;
		}
		return 1;
	case STACKCMD_UNWIND_ROWS:
		if (parse_long(arg, 1, KUNWIND_MAX_ROWS, &o->unwind_rows)) {
			msg("--unwind-rows %s: expected rows, 1 to %u", arg, KUNWIND_MAX_ROWS);
			return -2;
		}
		return 1;
	case 'f':
		if (report_format_parse(arg, STACKCMD_FORMATS, &o->format))
			return -2;
		o->format_given = true;
		return 1;
	}
	return 0;
}

int stackcmd_finish(struct stackcmd_opts *o, int argc, char **argv)
{
	if (o->user_only && o->kernel_only) {
		msg("-U and -K exclude each other (user-only, kernel-only stacks)");
		return 2;
	}
	if (argc > 0)
		o->s.cmd = argv;
	if (session_check_opts(&o->s))
		return 2;
	if (o->every > 0) {
		/* -o is a name pattern, one pprof per window */
		if (o->format_given && o->format != REPORT_PPROF) {
			msg("--every: each window is a pprof profile (not --format %s)",
			    report_format_name(o->format));
			return 2;
		}
		o->format = REPORT_PPROF;
		o->windows.pattern = o->s.output;
		o->s.output = NULL;
		if (o->windows.pattern && windows_check_pattern(o->windows.pattern))
			return 2;
		if (!o->windows.pattern && !o->windows.push.url) {
			msg("--every: give -o PATTERN, --push URL or both (where windows go)");
			return 2;
		}
		return 0;
	}
	if (!o->format_given)
		o->format = report_format_for_path(o->s.output, STACKCMD_FORMATS, REPORT_FOLDED);
	if (o->format == REPORT_SVG && !o->s.output && isatty(STDOUT_FILENO)) {
		msg("--format svg: give -o FILE.svg (not writing SVG to a terminal)");
		return 2;
	}
	if (o->format == REPORT_PPROF && !o->s.output && isatty(STDOUT_FILENO)) {
		msg("--format pprof: give -o FILE.pb.gz (not writing gzip to a terminal)");
		return 2;
	}
	return 0;
}

bool stackcmd_kunwind(const struct stackcmd_opts *o)
{
	return o->unwind == UNWIND_KERNEL && !o->kernel_only;
}

/* Dummy stacks per CPU: the kernel keeps up to about 22 free elements of
 * this size per CPU (its high watermark, 96 x 256 bytes / element size)
 * and refills below about 7; 16 covers the burst of one program run. */
#define WARM_STACKS 16

void stackcmd_warm_store(int fd)
{
	static struct stack_trace zero;
	cpu_set_t allowed, one;
	int ncpu = libbpf_num_possible_cpus();

	if (fd < 0 || ncpu <= 0 || sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (int cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		int stored = 0;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		/* keys without STACK_HASH_BIT are never a stack's handle; an
		 * allocation may fail while the kernel refills: tried again */
		for (int i = 0, tries = 0; i < WARM_STACKS && tries < 4 * WARM_STACKS; tries++) {
			__u64 key = (__u64)i + 2;

			if (!bpf_map_update_elem(fd, &key, &zero, BPF_NOEXIST) || errno == EEXIST)
				stored = ++i;
		}
		for (int i = 0; i < stored; i++) {
			__u64 key = (__u64)i + 2;

			bpf_map_delete_elem(fd, &key);
		}
	}
	if (sched_setaffinity(0, sizeof(allowed), &allowed))
		debug("cannot restore the CPU affinity: %s", strerror(errno));
}

int stackcmd_add_kunwind(const struct stackcmd_opts *o, struct stackpipe *sp,
			 const struct bpf_object *obj)
{
	return stackpipe_add_kunwind(sp, &(struct stackpipe_kunwind){
		.rows_fd = bpf_object__find_map_fd_by_name(obj, "unwind_rows"),
		.rows = o->unwind_rows,
		.procs_fd = bpf_object__find_map_fd_by_name(obj, "unwind_procs"),
		.gens_fd = bpf_object__find_map_fd_by_name(obj, "gens"),
		.miss_fd = bpf_object__find_map_fd_by_name(obj, "kunwind_miss"),
		.stats_fd = bpf_object__find_map_fd_by_name(obj, "kunwind_stats") });
}

struct stackpipe_opts stackcmd_pipe_opts(const struct stackcmd_opts *o)
{
	return (struct stackpipe_opts){
		.kernel = !o->user_only,
		.user = !o->kernel_only,
		.offsets = o->offsets,
		.unwind = o->unwind,
		.per_pid = o->per_pid,
		.per_thread = o->per_thread,
		.defer_tables = o->every > 0,
		.by_name = o->every <= 0 && o->format != REPORT_PPROF,
	};
}

static void make_title(const struct stackcmd_opts *o, const char *what, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s: ", what);

	if (o->s.cmd) {
		for (char **a = o->s.cmd; *a && n < (int)size; a++)
			n += snprintf(buf + n, size - n, "%s%s", a == o->s.cmd ? "" : " ", *a);
	} else if (o->s.npids) {
		n += snprintf(buf + n, size - n, "pid");
		for (int i = 0; i < o->s.npids && n < (int)size; i++)
			n += snprintf(buf + n, size - n, "%s%d", i ? "," : " ", o->s.pids[i]);
	} else {
		snprintf(buf + n, size - n, "all processes");
	}
}

/* The stacks to the session's output, folded, SVG or pprof: title
 * "TITLE: CMD" (or the pids, or all processes), subtitle "SUBTITLE,
 * N.NN s, DATE" (pprof: both as comments, with the run's start and
 * duration). */
static int stackcmd_write(struct session *s, struct stackpipe *sp, const struct stackcmd_opts *o,
			  const struct stackcmd_capture *c)
{
	char t[256], sub[256], when[32];
	struct pprof_opts po = c->pprof;
	struct stackpipe_report r = { .format = o->format, .title = t, .subtitle = sub,
				      .unit = c->unit, .cool = c->cool, .pprof = &po };
	struct timespec now;
	double elapsed = session_elapsed(s);
	FILE *f = session_output(s);
	int err;

	if (!f)
		return -errno;
	clock_gettime(CLOCK_REALTIME, &now);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now.tv_sec));
	make_title(o, c->title, t, sizeof(t));
	snprintf(sub, sizeof(sub), "%s, %.2f s, %s", c->subtitle, elapsed, when);
	po.duration_nanos = (int64_t)(elapsed * 1e9);
	po.time_nanos = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - po.duration_nanos;
	po.comments[0] = t;
	po.comments[1] = sub;
	err = stackpipe_write(sp, f, &r);
	if (err)
		msg("%s: write failed: %s", o->s.output ? o->s.output : "stdout", strerror(-err));
	return err;
}

/* A run in windows: what the window hook needs. */
struct winrun {
	struct stackcmd_opts *o;
	const struct stackcmd_capture *c;
	void *ctx;
	struct session *s;
	struct stackpipe *sp;
	struct windows *win;
	int64_t start_ns;	/* CLOCK_REALTIME when the open window began */
};

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Closes the open window: the capture reads it into the pipeline, the
 * stacks become a pprof in memory, handed to the windows' outputs, and
 * the pipeline starts the next window with empty stacks. */
static int close_window(struct winrun *w)
{
	char t[256], sub[256], when[32];
	struct pprof_opts po = w->c->pprof;
	struct stackpipe_report r = { .format = REPORT_PPROF, .title = t, .subtitle = sub,
				      .unit = w->c->unit, .pprof = &po };
	int64_t end = realtime_ns();
	time_t secs = w->start_ns / 1000000000;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	err = w->c->window(w->ctx, w->s, w->sp);
	if (err)
		return err;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&secs));
	make_title(w->o, w->c->title, t, sizeof(t));
	snprintf(sub, sizeof(sub), "%s, %.2f s window from %s", w->c->subtitle,
		 (end - w->start_ns) / 1e9, when);
	po.time_nanos = w->start_ns;
	po.duration_nanos = end - w->start_ns;
	po.comments[0] = t;
	po.comments[1] = sub;
	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;
	err = stackpipe_write(w->sp, f, &r);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		msg("window: %s", strerror(-err));
		free(buf);
		return err;
	}
	windows_emit(w->win, buf, len, w->start_ns, end);
	w->start_ns = end;
	return stackpipe_reset_stacks(w->sp);
}

static int window_hook(void *ctx)
{
	return close_window(ctx);
}

#define LAST_PUSH_SECONDS 5.0	/* the push of what is queued at exit */
/* Seconds between drains of an agent's run when nothing wakes it: the
 * snapshot ring and the side-band wake it when they fill (a quarter of
 * each), the windows close on time whatever the tick; a drain walks the
 * process table, so ten a second cost as much as the samples of a quiet
 * machine. */
#define WINDOWS_TICK 1.0

static int stackcmd_run_windows(struct stackcmd_opts *o, const struct stackcmd_capture *c,
				void *ctx)
{
	struct stackpipe_opts po = stackcmd_pipe_opts(o);
	struct winrun w = { .o = o, .c = c, .ctx = ctx };
	int ret = 1, err;

	if (!o->s.tick)
		o->s.tick = WINDOWS_TICK;
	w.s = session_new(&o->s);
	if (!w.s)
		goto out;
	err = c->prepare ? c->prepare(ctx, w.s) : 0;
	if (err)
		goto end;
	if (session_launch(w.s))
		goto out;
	w.sp = stackpipe_new(w.s, &po);
	if (!w.sp)
		goto out;
	err = c->setup(ctx, w.s, w.sp);
	if (!err) {
		w.win = windows_new(&o->windows);
		if (!w.win)
			err = -errno;
	}
	if (!err)
		err = session_set_window(w.s, o->every, window_hook, &w);
	if (!err) {
		stackpipe_start(w.sp);
		w.start_ns = realtime_ns();
		err = session_run(w.s);
	}
	session_detach(w.s);
	if (!err)
		err = session_drain(w.s);
	if (!err)
		err = close_window(&w);
	if (w.win) {
		windows_finish(w.win, LAST_PUSH_SECONDS);
		if (!err)
			err = c->count(ctx, w.s, w.sp);
		windows_count(w.win, w.s);
	}
end:
	ret = session_end(w.s, err);
out:
	windows_free(w.win);
	stackpipe_free(w.sp);
	session_free(w.s);
	return ret;
}

int stackcmd_run(struct stackcmd_opts *o, const struct stackcmd_capture *c, void *ctx)
{
	struct stackpipe_opts po = stackcmd_pipe_opts(o);
	struct session *s;
	struct stackpipe *sp = NULL;
	struct timespec t0, t1;
	int ret = 1, err;

	if (o->every > 0)
		return stackcmd_run_windows(o, c, ctx);
	s = session_new(&o->s);
	if (!s)
		goto out;
	/* the object's load begins before the launch, and runs on while
	 * the command is launched and the pipeline made */
	err = c->prepare ? c->prepare(ctx, s) : 0;
	if (err)
		goto end;
	if (session_launch(s))
		goto out;
	sp = stackpipe_new(s, &po);
	if (!sp)
		goto out;
	err = c->setup(ctx, s, sp);
	if (!err) {
		stackpipe_start(sp);
		err = session_run(s);
	}
	session_detach(s);
	if (!err)
		err = session_drain(s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!err)
		err = c->collect(ctx, s, sp);
	if (!err)
		err = stackcmd_write(s, sp, o, c);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!err)
		debug("report written %.3f s after the end of capture (stacks read, symbolized, "
		      "written)", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
end:
	ret = session_end(s, err);
out:
	stackpipe_free(sp);
	session_free(s);
	return ret;
}
