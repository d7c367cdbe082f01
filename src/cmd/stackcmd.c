#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "cmd/stackcmd.h"

void stackcmd_init(struct stackcmd_opts *o, const char *name)
{
	*o = (struct stackcmd_opts){ .s.name = name, .stack_size = SNAPSHOT_DEFAULT };
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
			msg("--unwind %s: expected auto, fp or tables", arg);
			return -2;
		}
		return 1;
	case 'S':
		if (parse_long(arg, 512, SNAPSHOT_MAX, &o->stack_size)) {
			msg("--stack-size %s: expected bytes, 512 to %d", arg, SNAPSHOT_MAX);
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

struct stackpipe_opts stackcmd_pipe_opts(const struct stackcmd_opts *o)
{
	return (struct stackpipe_opts){
		.kernel = !o->user_only,
		.user = !o->kernel_only,
		.offsets = o->offsets,
		.unwind = o->unwind,
		.per_pid = o->per_pid,
		.per_thread = o->per_thread,
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

int stackcmd_run(struct stackcmd_opts *o, const struct stackcmd_capture *c, void *ctx)
{
	struct stackpipe_opts po = stackcmd_pipe_opts(o);
	struct session *s = session_new(&o->s);
	struct stackpipe *sp = NULL;
	struct timespec t0, t1;
	int ret = 1, err;

	if (!s || session_launch(s))
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
	ret = session_end(s, err);
out:
	stackpipe_free(sp);
	session_free(s);
	return ret;
}
