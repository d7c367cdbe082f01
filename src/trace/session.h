/* The one lifecycle of a tracing run, shared by every command:
 *
 *   session_new()          signals blocked (read from the loop), nothing
 *                          started yet
 *   session_launch()       `-- CMD` forked and held at its gate, so its pid
 *                          can go into the filters before it runs
 *   ...                    the command loads its programs, fills the
 *                          targets (session_fill_targets), adds its ring
 *                          buffers and drain steps, attaches (every link
 *                          and perf fd handed to the session)
 *   session_run()          releases the command, then waits for the
 *                          duration, a signal or the end of the watched
 *                          processes, draining as data arrives
 *   session_detach()       every link and perf fd released, newest first
 *   session_drain()        what is still queued
 *   ...                    the command reports into session_output() and
 *                          counts into the closing line (session_count)
 *   session_end()          output committed, the closing line, the
 *                          command reaped; returns the exit status
 *   session_free()         everything released, on every path
 *
 * Errors are said where they happen; only session_end() turns them into
 * an exit status (0 ok, 1 failure, the launched command's status). */
#ifndef STACKSCOPE_TRACE_SESSION_H
#define STACKSCOPE_TRACE_SESSION_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* What every command's options say about the run. */
struct session_opts {
	const char *name;	/* the command: messages, the closing line */
	pid_t *pids;		/* -p; owned, session_opts_free() */
	int npids;
	char **cmd;		/* -- CMD ARGS (argv's), NULL-terminated; NULL: none */
	double duration;	/* -d; 0: until a signal or the processes end */
	const char *output;	/* -o; NULL: stdout */
	double tick;		/* seconds between drains without a wakeup; 0: 0.1 */
};

/* Handles the options every tracing command shares: -p -d -o -v.  Returns
 * 1 when c was one (arg taken), 0 when it is not, or minus an exit status
 * (-2 usage, -1 a pid that does not exist) after saying why. */
int session_parse_opt(struct session_opts *o, int c, const char *arg);
/* -p and a command exclude each other: 0 or 2 after saying so. */
int session_check_opts(const struct session_opts *o);
void session_opts_free(struct session_opts *o);

struct session;
struct bpf_link;
struct bpf_map;

/* NULL with errno (said); EPERM: -o names another user's FIFO or device. */
struct session *session_new(const struct session_opts *o);
void session_free(struct session *s);
const struct session_opts *session_opts(const struct session *s);

/* Forks the command gated (nothing when o->cmd is NULL); 0 or -errno,
 * said as "cannot run 'CMD': why". */
int session_launch(struct session *s);
/* The launched command's pid, 0 when none. */
pid_t session_child(const struct session *s);
/* Whether the run looks at some processes only (-p or a command). */
bool session_filtered(const struct session *s);

/* Puts the -p pids (TARGET_ON) and the gated command (TARGET_PRE_EXEC:
 * traced from its own execve) in a `targets` map (bpf/procs.h). */
int session_fill_targets(struct session *s, int map_fd);
/* Sizes the `gens` map (bpf/procs.bpf.h) before load: in a filtered run
 * it holds only pids of `targets`, so twice that instead of the
 * system-wide size.  The tests make both small through the environment:
 * STACKSCOPE_PROCS_MAPS="targets=N,gens=N" (either or both). */
void session_size_gens(const struct session *s, struct bpf_map *targets, struct bpf_map *gens);
struct bpf_object;
/* What the fork and exec programs of bpf/procs.bpf.h could not write
 * (its `procs_stats` in obj, a loaded object): children not followed
 * (`targets` full), address spaces not timed (`gens` full), each said
 * with its cause and counted into the closing line when any (and, -v,
 * how full the two maps are now).  Once, at the end of the run. */
void session_count_procs(struct session *s, const struct bpf_object *obj);
/* The same losses said during a long run (profile --every's windows), as
 * they grow, at most once a minute; session_count_procs() then says only
 * what grew since, and counts them all. */
void session_say_procs(struct session *s, const struct bpf_object *obj);

/* Owns a BPF link or a perf event fd from now on: released at
 * session_detach() or session_free(), newest first. */
int session_own_link(struct session *s, struct bpf_link *link);
int session_own_fd(struct session *s, int fd);

/* A drain step: runs, in the order added, whenever a ring buffer or an
 * added fd is readable, every tick, and at session_drain().  A negative
 * return ends the run with that error. */
int session_add_drain(struct session *s, int (*fn)(void *ctx), void *ctx);
/* An fd whose readiness runs the drain steps (a side-band buffer). */
int session_add_fd(struct session *s, int fd);
/* A BPF ring buffer map whose records go to cb (libbpf's sample callback),
 * consumed as a drain step. */
int session_add_ringbuf(struct session *s, int map_fd,
			int (*cb)(void *ctx, void *data, size_t size), void *ctx);

/* Windows (profile --every): fn runs every `seconds` of the run and at
 * SIGHUP (which then closes a window instead of ending the run), after
 * the drain steps; a negative return ends the run with that error.
 * Whatever the last window leaves is the command's to close after
 * session_run(). */
int session_set_window(struct session *s, double seconds, int (*fn)(void *ctx), void *ctx);

/* Opens -o (or stdout) now: streaming commands open it before the run so
 * a bad path fails before anything is attached; others just before they
 * write.  Returns the FILE or NULL (said). */
FILE *session_output(struct session *s);

/* Releases the command and waits; returns 0 or -errno (said).  On a
 * signal the command gets it too. */
int session_run(struct session *s);
/* Ends session_run() once the current drain step returns: the traced
 * program asked to stop (the language's exit()). */
void session_stop(struct session *s);
/* Seconds session_run() lasted. */
double session_elapsed(const struct session *s);
/* The signal that ended the run, 0 when none. */
int session_signal(const struct session *s);
void session_detach(struct session *s);
/* Runs every drain step once; 0 or the first error. */
int session_drain(struct session *s);

/* Adds n to the closing line's item "N label" (created in the order first
 * counted).  SESSION_IF_ANY: left out while 0.  SESSION_LOSS: data lost
 * (lost records, stacks, events): the loss registry, always printed. */
#define SESSION_IF_ANY 0x1
#define SESSION_LOSS 0x2
void session_count(struct session *s, const char *label, uint64_t n, unsigned flags);
/* The sum of every SESSION_LOSS item. */
uint64_t session_lost(const struct session *s);

/* Commits the output (removes it when err), prints (when anything was
 * counted)
 *   stackscope NAME: N label, N label, ..., wrote FILE
 * and reaps the command (kills it when it was never released).  err: the command's own result (0 or -errno,
 * already said).  Returns the exit status. */
int session_end(struct session *s, int err);

#endif
