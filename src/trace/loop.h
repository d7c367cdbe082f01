/* The wait of a tracing run: until a duration passes, a signal (SIGINT,
 * SIGTERM, SIGHUP unless windows take it) arrives or the watched processes have all exited,
 * servicing readable fds (ring buffers) meanwhile.
 *
 * loop_new() blocks the ending signals and reads them from a signalfd, so
 * an interrupted run always gets to write its output; loop_free() restores
 * the signal mask. */
#ifndef STACKSCOPE_TRACE_LOOP_H
#define STACKSCOPE_TRACE_LOOP_H
#include <sys/types.h>

enum loop_end {
	LOOP_TIMEOUT = 1,
	LOOP_SIGNAL,
	LOOP_EXITED,	/* every watched process exited */
	LOOP_STOPPED,	/* loop_stop() was called (from a callback) */
};

struct loop;
struct loop *loop_new(void);
void loop_free(struct loop *lp);
/* cb runs when fd is readable; a negative return ends the run with it. */
int loop_add_fd(struct loop *lp, int fd, int (*cb)(void *ctx), void *ctx);
/* Ends the run when all watched pids have exited. */
int loop_watch_pid(struct loop *lp, pid_t pid);
void loop_set_duration(struct loop *lp, double seconds);
/* cb every `seconds` (e.g. to drain buffers without a wakeup). */
void loop_set_tick(struct loop *lp, double seconds, int (*cb)(void *ctx), void *ctx);
/* cb every `seconds` from the start of the run (a window closing), and
 * at SIGHUP, which then no longer ends the run: the next window closes
 * `seconds` after the SIGHUP's. */
void loop_set_window(struct loop *lp, double seconds, int (*cb)(void *ctx), void *ctx);
/* Ends loop_run() once the current callback returns. */
void loop_stop(struct loop *lp);
/* Returns enum loop_end or -errno. */
int loop_run(struct loop *lp);
/* The signal that ended the run (LOOP_SIGNAL), else 0. */
int loop_signal(const struct loop *lp);
/* A further ending signal received since, read without waiting; 0 none. */
int loop_take_signal(struct loop *lp);

#endif
