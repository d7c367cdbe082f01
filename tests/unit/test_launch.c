/* Unit tests of the gated launch (trace/launch.c): the child waits at
 * the gate, running nothing of the command, until released; then it is
 * the command, with no signal blocked whatever the parent blocks, and
 * its exit status comes back; an exec the kernel refuses comes back as
 * that errno; an aborted child is killed and reaped. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "test.h"
#include "trace/launch.h"

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

TEST(launch_gate_holds_then_execs_with_no_signal_blocked)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", out[128], script[256], line[128];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	sigset_t block, old;
	struct launch l;
	FILE *f;
	bool found = false;

	CHECK(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/status", dir);
	snprintf(script, sizeof(script), "grep ^SigBlk: /proc/self/status > %s; exit 7", out);
	/* what a session blocks for its signalfd */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	CHECK_INT(launch_start(&l, argv), 0);
	CHECK(l.pid > 0);
	/* held at the gate: alive, the command not run */
	CHECK_INT(launch_poll(&l), 0);
	CHECK(!exists(out));
	CHECK_INT(launch_release(&l), 0);
	CHECK_INT(launch_wait(&l), 7);
	sigprocmask(SIG_SETMASK, &old, NULL);
	f = fopen(out, "r");
	CHECK(f);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7)) {
			found = true;
			CHECK_STR(line, "SigBlk:\t0000000000000000\n");
		}
	if (f)
		fclose(f);
	CHECK(found);
	unlink(out);
	rmdir(dir);
}

TEST(launch_exec_refused_comes_back_as_its_errno)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", path[128];
	char *argv[] = { path, NULL };
	struct launch l;
	FILE *f;

	CHECK(mkdtemp(dir));
	/* executable, but neither ELF nor #!: the kernel says ENOEXEC */
	snprintf(path, sizeof(path), "%s/not-a-program", dir);
	f = fopen(path, "w");
	CHECK(f);
	if (!f)
		return;
	fputs("just text\n", f);
	fclose(f);
	CHECK_INT(chmod(path, 0700), 0);
	CHECK_INT(launch_start(&l, argv), 0);
	CHECK_INT(launch_release(&l), -ENOEXEC);
	CHECK_INT(launch_poll(&l), 1);
	unlink(path);
	rmdir(dir);
	/* a command that is not there: said before anything starts */
	argv[0] = "/nonexistent/stackscope-unit";
	CHECK_INT(launch_start(&l, argv), -ENOENT);
	CHECK_INT(l.pid, 0);
}

TEST(launch_abort_kills_the_gated_child)
{
	char *argv[] = { "/bin/true", NULL };
	struct launch l;

	CHECK_INT(launch_start(&l, argv), 0);
	launch_abort(&l);
	CHECK(l.reaped);
	CHECK(WIFSIGNALED(l.status) && WTERMSIG(l.status) == SIGKILL);
	CHECK_INT(launch_wait(&l), 128 + SIGKILL);
}
