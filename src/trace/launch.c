#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "trace/launch.h"

static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return access(path, X_OK) ? -errno : 0;
}

/* Same search rule as execvp(): a name with a slash is used as is. */
int launch_resolve(const char *cmd, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = -ENOENT;

	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		err = executable(cmd);
		if (!err && out && snprintf(out, size, "%s", cmd) >= (int)size)
			err = -ENAMETOOLONG;
		return err;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, path,
			     len ? "/" : "", cmd) < (int)sizeof(buf)) {
			int e = executable(buf);
			if (!e) {
				if (out && snprintf(out, size, "%s", buf) >= (int)size)
					return -ENAMETOOLONG;
				return 0;
			}
			if (e == -EACCES)
				err = e;
		}
		path += len + (path[len] == ':');
	}
	return err;
}

/* What the gated child reads: at the start of its stack's mapping. */
struct gate {
	char path[4096];	/* the file found by launch_resolve() */
	char **argv;		/* the caller's, alive until the exec */
	char **envp;
	int gate_rd, gate_wr, err_rd, err_wr;
};

#define GATE_STACK (64 * 1024)

/* The child: it shares the parent's memory (and so its thread's errno,
 * which only a failed exec sets here, while the parent waits on err_rd),
 * so it makes system calls and nothing else, on its own stack. */
__attribute__((no_sanitize("address", "undefined")))
static int gate_main(void *arg)
{
	const struct gate *g = arg;
	unsigned long none = 0;
	char c;
	int e;

	/* The parent may have blocked signals for its loop. */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	syscall(SYS_close, g->gate_wr);
	syscall(SYS_close, g->err_rd);
	/* A parent that died (before PR_SET_PDEATHSIG too) closed the gate:
	 * the read ends.  No other system call here: one made after the
	 * probes attached would be counted as the command's own (a
	 * getppid() run late under load was). */
	if (syscall(SYS_read, g->gate_rd, &c, 1) != 1)
		syscall(SYS_exit, 127);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, 0, 0, 0, 0);
	/* the file found before, so a traced command's first call is its
	 * own execve, not a walk of PATH; only what the kernel accepts:
	 * execvp() would hand a file it refuses (ENOEXEC: a malformed ELF,
	 * a script without #!) to /bin/sh, running its bytes as root */
	syscall(SYS_execve, g->path, g->argv, g->envp);
	e = errno;
	syscall(SYS_write, g->err_wr, &e, sizeof(e));
	syscall(SYS_exit, 127);
	return 127;
}

static void gate_free(struct launch *l)
{
	if (l->stack)
		munmap(l->stack, GATE_STACK);
	l->stack = NULL;
}

int launch_start(struct launch *l, char **argv)
{
	int gate[2], errp[2], err;
	struct gate *g;
	pid_t pid;

	memset(l, 0, sizeof(*l));
	l->gate_fd = l->err_fd = -1;
	l->stack = mmap(NULL, GATE_STACK, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (l->stack == MAP_FAILED) {
		l->stack = NULL;
		return -errno;
	}
	g = l->stack;
	err = launch_resolve(argv[0], g->path, sizeof(g->path));
	if (err)
		goto free_stack;
	if (pipe2(gate, O_CLOEXEC)) {
		err = -errno;
		goto free_stack;
	}
	if (pipe2(errp, O_CLOEXEC)) {
		err = -errno;
		goto close_gate;
	}
	g->argv = argv;
	g->envp = environ;
	g->gate_rd = gate[0];
	g->gate_wr = gate[1];
	g->err_rd = errp[0];
	g->err_wr = errp[1];
	/* the stack grows down from the end of the mapping, the gate's
	 * arguments at its start */
	pid = clone(gate_main, (char *)l->stack + GATE_STACK, CLONE_VM | SIGCHLD, g);
	if (pid < 0) {
		err = -errno;
		goto close_err;
	}
	close(gate[0]);
	close(errp[1]);
	l->pid = pid;
	l->gate_fd = gate[1];
	l->err_fd = errp[0];
	return 0;

close_err:
	close(errp[0]);
	close(errp[1]);
close_gate:
	close(gate[0]);
	close(gate[1]);
free_stack:
	gate_free(l);
	return err;
}

int launch_release(struct launch *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->gate_fd, "g", 1) != 1)
		e = errno;
	close(l->gate_fd);
	l->gate_fd = -1;
	if (e)
		return -e;
	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == sizeof(e)) {
		launch_wait(l);
		return -e;
	}
	/* the end of the pipe: the child runs its own image now (or is
	 * gone), off the stack it had here */
	gate_free(l);
	return 0;
}

int launch_wait(struct launch *l)
{
	if (!l->pid)
		return 0;
	while (!l->reaped) {
		if (waitpid(l->pid, &l->status, 0) == l->pid)
			l->reaped = 1;
		else if (errno != EINTR)
			return 1;
	}
	gate_free(l);
	if (WIFEXITED(l->status))
		return WEXITSTATUS(l->status);
	if (WIFSIGNALED(l->status))
		return 128 + WTERMSIG(l->status);
	return 1;
}

int launch_poll(struct launch *l)
{
	if (!l->pid || l->reaped)
		return 1;
	if (waitpid(l->pid, &l->status, WNOHANG) == l->pid) {
		l->reaped = 1;
		gate_free(l);
	}
	return l->reaped;
}

void launch_abort(struct launch *l)
{
	if (!l->pid)
		return;
	if (l->gate_fd >= 0)
		close(l->gate_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->gate_fd = l->err_fd = -1;
	if (!l->reaped)
		kill(l->pid, SIGKILL);
	launch_wait(l);
}
