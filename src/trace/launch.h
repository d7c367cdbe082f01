/* Launching a command gated until tracing is live.
 *
 * launch_start() starts a child that waits on a pipe; the caller puts the
 * child's pid in its filters and attaches, then launch_release() lets it
 * exec.  The child shares the parent's memory until its exec (a clone
 * with CLONE_VM, on a stack of its own, making system calls only): a
 * forked child would make every page the parent writes while it sets up
 * a copy-on-write fault.  (valgrind refuses such a clone: under it, use
 * -p on a process started otherwise.)  The child dies with its parent (PR_SET_PDEATHSIG), so a killed
 * stackscope leaves no gated command behind. */
#ifndef STACKSCOPE_TRACE_LAUNCH_H
#define STACKSCOPE_TRACE_LAUNCH_H
#include <stddef.h>
#include <sys/types.h>

struct launch {
	pid_t pid;		/* 0 when nothing launched */
	int gate_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: errno of a failed exec, EOF on success */
	int status;		/* wait status once reaped */
	int reaped;
	void *stack;		/* the gated child's stack and arguments (launch.c) */
};

/* The file execvp() would run for cmd (PATH search; a name with a slash
 * as is) into out (may be NULL); 0 or -ENOENT / -EACCES. */
int launch_resolve(const char *cmd, char *out, size_t size);
/* Resolves argv[0] in PATH first, so a missing command is reported before
 * anything is loaded (-ENOENT / -EACCES). */
int launch_start(struct launch *l, char **argv);
/* Lets the child exec; returns 0, or -errno when exec failed (-ENOEXEC:
 * the kernel refused the file, which is then not handed to a shell). */
int launch_release(struct launch *l);
/* Waits for the child if not yet reaped; returns its exit status the way a
 * shell does (128+signal when killed). */
int launch_wait(struct launch *l);
/* Reaps the child if it has exited, without waiting: 1 reaped (or
 * never launched), 0 still running. */
int launch_poll(struct launch *l);
/* Kills and reaps a child that should not run (setup failed). */
void launch_abort(struct launch *l);

#endif
