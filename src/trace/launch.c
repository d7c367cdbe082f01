#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

int launch_start(struct launch *l, char **argv)
{
	int gate[2], errp[2], err;
	char path[4096];
	sigset_t all;
	pid_t pid;

	memset(l, 0, sizeof(*l));
	l->gate_fd = l->err_fd = -1;
	err = launch_resolve(argv[0], path, sizeof(path));
	if (err)
		return err;
	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		err = -errno;
		goto close_gate;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto close_err;
	}
	if (pid == 0) {
		char c;
		int e;

		/* The parent may have blocked signals for its loop. */
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(gate[1]);
		close(errp[0]);
		/* A parent that died (before PR_SET_PDEATHSIG too) closed the
		 * gate: the read ends.  No other system call here: one made
		 * after the probes attached would be counted as the command's
		 * own (a getppid() run late under load was). */
		if (read(gate[0], &c, 1) != 1)
			_exit(127);
		prctl(PR_SET_PDEATHSIG, 0);
		/* the file found now, so a traced command's first call is its
		 * own execve, not a walk of PATH */
		/* only what the kernel accepts: execvp() would hand a file it
		 * refuses (ENOEXEC: a malformed ELF, a script without #!) to
		 * /bin/sh, running its bytes as root */
		execv(path, argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
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
	if (waitpid(l->pid, &l->status, WNOHANG) == l->pid)
		l->reaped = 1;
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
