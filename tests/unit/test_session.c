/* The run lifecycle's pieces that need no kernel: option codes, the
 * closing line and its loss registry, the output it commits, and the wait
 * loop past many fds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "trace/loop.h"
#include "trace/session.h"
#include "test.h"

/* Runs fn with stderr sent to a buffer; returns what it wrote. */
static const char *capture_stderr(void (*fn)(void *), void *arg)
{
	static char buf[4096];
	char path[] = "/tmp/stackscope-unit.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;

	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	return buf;
}

static void parse_quietly(void *arg)
{
	struct { struct session_opts *o; int c; const char *a; int ret; } *p = arg;

	p->ret = session_parse_opt(p->o, p->c, p->a);
}

static int parse(struct session_opts *o, int c, const char *a)
{
	struct { struct session_opts *o; int c; const char *a; int ret; } p = { o, c, a, 0 };

	capture_stderr(parse_quietly, &p);
	return p.ret;
}

TEST(session_options_say_usage_or_missing_pid)
{
	struct session_opts o = { .name = "t" };
	char self[16];

	snprintf(self, sizeof(self), "%d", (int)getpid());
	CHECK_INT(parse(&o, 'x', "1"), 0);		/* not one of ours */
	CHECK_INT(parse(&o, 'd', "2.5"), 1);
	CHECK(o.duration == 2.5);
	CHECK_INT(parse(&o, 'd', "soon"), -2);
	CHECK_INT(parse(&o, 'o', "out.svg"), 1);
	CHECK_STR(o.output, "out.svg");
	CHECK_INT(parse(&o, 'p', "1,x"), -2);		/* junk: usage */
	CHECK_INT(parse(&o, 'p', "999999999"), -1);	/* no such process */
	CHECK_INT(parse(&o, 'p', self), 1);
	CHECK_INT(o.npids, 1);
	CHECK_INT(parse(&o, 'p', self), -2);		/* given twice */
	o.cmd = (char *[]){ "true", NULL };
	CHECK_INT(session_check_opts(&o), 2);
	session_opts_free(&o);
	CHECK(o.pids == NULL);
}

static void end_session(void *arg)
{
	struct session *s = arg;

	session_end(s, 0);
}

TEST(session_closing_line_holds_every_count_and_loss)
{
	struct session_opts o = { .name = "demo" };
	struct session *s = session_new(&o);
	const char *line;

	CHECK(s != NULL);
	if (!s)
		return;
	session_count(s, "samples", 10, 0);
	session_count(s, "stacks", 3, 0);
	session_count(s, "lost samples", 0, SESSION_LOSS);
	session_count(s, "records lost early", 0, SESSION_LOSS | SESSION_IF_ANY);
	session_count(s, "side-band records lost", 2, SESSION_LOSS | SESSION_IF_ANY);
	session_count(s, "samples", 5, 0);		/* adds up under one label */
	session_count(s, "lost samples", 4, SESSION_LOSS);
	CHECK_INT(session_lost(s), 6);
	line = capture_stderr(end_session, s);
	CHECK_STR(line, "stackscope demo: 15 samples, 3 stacks, 4 lost samples, "
			"2 side-band records lost\n");
	session_free(s);
}

TEST(session_without_counts_prints_no_closing_line)
{
	struct session_opts o = { .name = "demo" };
	struct session *s = session_new(&o);

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_STR(capture_stderr(end_session, s), "");
	session_free(s);
}

static void end_failed(void *arg)
{
	struct session *s = arg;

	session_end(s, -EIO);
}

TEST(session_output_committed_only_on_success)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", path[64];
	struct session_opts o = { .name = "demo", .output = path };
	struct session *s;
	FILE *f;
	char got[32] = "", want[128];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	s = session_new(&o);
	f = s ? session_output(s) : NULL;
	CHECK(f != NULL);
	if (!f)
		goto out;
	fputs("hello\n", f);
	session_count(s, "lines", 1, 0);
	snprintf(want, sizeof(want), "stackscope demo: 1 lines, wrote %s\n", path);
	CHECK_STR(capture_stderr(end_session, s), want);
	session_free(s);
	f = fopen(path, "r");
	CHECK(f && fgets(got, sizeof(got), f));
	CHECK_STR(got, "hello\n");
	if (f)
		fclose(f);
	unlink(path);
	/* a failed run leaves no file behind and does not say it wrote one */
	s = session_new(&o);
	f = s ? session_output(s) : NULL;
	CHECK(f != NULL);
	if (f)
		fputs("partial\n", f);
	session_count(s, "lines", 1, 0);
	CHECK_STR(capture_stderr(end_failed, s), "stackscope demo: 1 lines\n");
	session_free(s);
	CHECK(access(path, F_OK) != 0);
out:
	rmdir(dir);
}

static int fired;

static int on_readable(void *ctx)
{
	fired = (int)(long)ctx;
	return -1000;		/* ends the run with this "error" */
}

TEST(loop_waits_on_more_than_64_fds)
{
	struct loop *lp = loop_new();
	int fds[100][2], n = 0;

	CHECK(lp != NULL);
	if (!lp)
		return;
	for (; n < 100; n++) {
		if (pipe2(fds[n], O_CLOEXEC))
			break;
		CHECK_INT(loop_add_fd(lp, fds[n][0], on_readable, (void *)(long)(n + 1)), 0);
	}
	CHECK_INT(n, 100);
	loop_set_duration(lp, 5);
	CHECK_INT(write(fds[n - 1][1], "x", 1), 1);
	fired = 0;
	CHECK_INT(loop_run(lp), -1000);
	CHECK_INT(fired, n);
	for (int i = 0; i < n; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	loop_free(lp);
}

TEST(bpf_hint_names_the_real_cause)
{
	CHECK(strstr(bpf_hint(-EPERM), "root") != NULL);
	CHECK(strstr(bpf_hint(-EMFILE), "ulimit -n") != NULL);
	CHECK(strstr(bpf_hint(-EMFILE), "root") == NULL);
	CHECK(strstr(bpf_hint(EINVAL), "verifier") != NULL);
}
