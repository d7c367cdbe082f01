/* The one stack pipeline, shared by every command that shows stacks
 * (profile, offcpu, syscalls -k) and the language:
 *
 *   capture (BPF) -> snapshot decode -> unwind -> aggregate -> symbolize
 *                                                  -> struct stacks -> writers
 *
 * assembled once over the side-band (exits, execs and mmaps while the
 * run lasts), the process table, the per-binary symbol and unwind caches,
 * and kallsyms (read when the first kernel frame needs a name, never when
 * none does).  A stack taken
 * whole by the kernel is read from the BPF stack store (bpf/stacks.h) by
 * handle; a user-stack snapshot is unwound here with the binary's tables,
 * either aggregated (stackpipe_add_snapshots) or one at a time as records
 * stream (stackpipe_unwind). */
#ifndef STACKSCOPE_STACKS_PIPELINE_H
#define STACKSCOPE_STACKS_PIPELINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/stacks.h"
#include "report/format.h"
#include "report/pprof.h"
#include "report/stacks.h"
#include "stacks/stackagg.h"
#include "unwind/unwind.h"

struct session;

struct stackpipe_opts {
	bool kernel;		/* kernel frames wanted: kallsyms is read */
	bool user;		/* user frames wanted: side-band, /proc, unwinding */
	bool offsets;		/* kernel frames as func+0xOFF */
	enum unwind_mode unwind;
	/* a FRAME_TASK frame under the process's name (stacks/frame.h):
	 * "[pid 1234]"; per_thread: "[tid 1235]" (the samples' tid) */
	bool per_pid, per_thread;
	/* a long run: big binaries' unwind tables built once stacks keep
	 * going through them (unwinder_defer_tables(), unwind/unwind.h) */
	bool defer_tables;
	/* the report is by name (folded, SVG): the stacks model keeps names
	 * and kinds only (stacks_keep_names_only(), report/stacks.h), so it
	 * grows with the distinct stacks by name, not with the processes */
	bool by_name;
};

/* One aggregated stack as a capture read it, for stackpipe_add(). */
struct stack_sample {
	uint32_t pid;
	uint64_t gen;			/* address space (sym/proctab.h) */
	uint32_t tid;			/* --per-thread only, else 0 */
	char comm[17];
	int nk, nu;			/* depth; 0 none; -1 lost */
	bool utrunc;			/* the user chain is incomplete */
	uint64_t kips[STACK_MAX_DEPTH];	/* innermost first */
	uint64_t uips[UNWIND_MAX_DEPTH];
	uint64_t value;
	uint64_t events;		/* the events value sums (offcpu: waits); 0:
					 * not counted apart */
	/* offcpu --wakers: the thread that woke this one, folded first,
	 * then a "--" frame, then the blocked thread */
	bool has_waker;
	uint32_t waker_pid;
	uint64_t waker_gen;
	char waker_comm[17];
	int wnk, wnu;
	uint64_t wkips[STACK_MAX_DEPTH];
	uint64_t wuips[STACK_MAX_DEPTH];
};

/* A user-stack snapshot as a BPF program queued it. */
struct stack_snapshot {
	uint32_t pid;
	uint64_t gen;
	uint32_t tid;			/* aggregated apart only with per_thread */
	const char *comm;		/* up to 16 bytes, maybe unterminated */
	uint64_t kstack;		/* handle into the BPF `stacks` map */
	struct unwind_regs regs;
	const void *stack;		/* size bytes copied from regs.sp */
	size_t size;
	uint64_t value;			/* what it counts: 1 sample, ns blocked */
	uint64_t events;		/* the events value sums (waits); 0: none */
	const void *extra;		/* more key bytes (a waker), may be NULL */
	size_t extra_len;
	unsigned int slot;		/* the window slot it was taken in (0 or 1;
					 * 0 in a run without windows) */
};

/* Reads one ring-buffer record into *out; false skips a malformed one. */
typedef bool (*stackpipe_decode_fn)(const void *data, size_t size, struct stack_snapshot *out,
				    void *ctx);

struct stackpipe;

/* Opens the side-band now (user frames wanted), so no mapping falls
 * between it and the later read of /proc, and adds its drain step to the
 * session.  NULL with errno (said). */
struct stackpipe *stackpipe_new(struct session *s, const struct stackpipe_opts *o);
void stackpipe_free(struct stackpipe *sp);

/* Snapshots queued in a BPF ring buffer, decoded, unwound at once (while
 * the process's mappings are current) and aggregated: stackpipe_unwound()
 * gives them back.  Call before the capture is attached. */
int stackpipe_add_snapshots(struct stackpipe *sp, int ringbuf_fd, stackpipe_decode_fn decode,
			    void *ctx);
/* Every user stack of the capture comes through those snapshots (none is
 * symbolized later from a kernel map): a process that exits with no
 * sample unwound is forgotten (sym/proctab.h), so that a long run's
 * memory follows the live processes and the sampled ones. */
void stackpipe_forget_unsampled(struct stackpipe *sp);
/* In-kernel unwinding (bpf/kunwind.bpf.h): the maps of the capture's
 * BPF object that unwind/kload.c fills on the kernel's request. */
struct stackpipe_kunwind {
	int rows_fd;		/* `unwind_rows` */
	uint32_t rows;		/* its capacity */
	int procs_fd;		/* `unwind_procs` */
	int gens_fd;		/* `gens` */
	int miss_fd;		/* `kunwind_miss` ring */
	int stats_fd;		/* `kunwind_stats` */
};
/* Call before the capture is attached. */
int stackpipe_add_kunwind(struct stackpipe *sp, const struct stackpipe_kunwind *k);
/* The ring-buffer bytes of the in-kernel unwinder's load requests read
 * so far (0 without it). */
uint64_t stackpipe_kunwind_bytes(const struct stackpipe *sp);

/* Every user stack is unwound and named as it arrives (syscalls -k):
 * an exited process is forgotten once its last records are read. */
void stackpipe_streaming(struct stackpipe *sp);
/* One report at the end (no windows), every user stack a snapshot of
 * slot 0 (stackpipe_forget_unsampled()), samples counted by value alone:
 * at each trim the aggregated snapshots of the processes that exited
 * are named at once into the stacks model (their kernel stacks read by
 * handle from the stack store kstacks_fd), and the processes dropped, so
 * that the run keeps only its live processes and the stacks by name. */
void stackpipe_resolve_early(struct stackpipe *sp, int kstacks_fd);
/* Names the stacks of exited processes at a trim: a command whose
 * stacks are read from its own maps after the run (offcpu) names, at
 * each trim, those of the processes that exited (stackpipe_exited(): their
 * last records are read) into the stacks model (stackpipe_add()), the
 * aggregated snapshots among them taken out by stackpipe_take_exited(),
 * and returns how many it named; their processes are dropped then.  A
 * -errno keeps them all and names the rest at the end (said once). */
typedef int (*stackpipe_name_fn)(void *ctx, struct stackpipe *sp);
void stackpipe_name_exited(struct stackpipe *sp, stackpipe_name_fn fn, void *ctx);
bool stackpipe_exited(struct stackpipe *sp, uint32_t pid);
/* Slot 0's aggregated snapshots of exited processes, taken out (the
 * caller names and frees them); NULL with errno (none taken). */
struct stackagg *stackpipe_take_exited(struct stackpipe *sp);
/* Bounded long runs: at a safe point (every sample read so far is named;
 * no frame a symbolizer gave is held), the exited processes, the
 * symbolizer's caches and the binaries no kept process maps (beyond
 * SYMCACHE_BUDGET, sym/symcache.h) are freed.  stackpipe_reset_stacks()
 * does it after each window; the side-band's drain step every TRIM_EVERY
 * seconds without the exited processes. */
void stackpipe_trim(struct stackpipe *sp);
/* Once the capture is attached: the address spaces of the processes that
 * exist now (the session's -p pids, or all when it follows no command). */
void stackpipe_start(struct stackpipe *sp);
const struct stackagg *stackpipe_unwound(const struct stackpipe *sp);
/* Windows: the snapshots of a slot (stack_snapshot.slot), how many were
 * read for it since the start (decoded records), and emptying it once its
 * window is written.  stackpipe_unwound() is slot 0's. */
const struct stackagg *stackpipe_unwound_slot(const struct stackpipe *sp, unsigned int slot);
uint64_t stackpipe_snapshots_read(const struct stackpipe *sp, unsigned int slot);
int stackpipe_clear_slot(struct stackpipe *sp, unsigned int slot);
/* A new, empty stacks model (the next window's); then stackpipe_trim().  stackpipe_count()'s "stacks" adds up every window's. */
int stackpipe_reset_stacks(struct stackpipe *sp);

/* Streaming: unwinds one copied stack now; returns the depth written to
 * ips, innermost first. */
int stackpipe_unwind(struct stackpipe *sp, uint32_t pid, uint64_t gen,
		     const struct unwind_regs *regs, const void *stack, size_t size, uint64_t *ips,
		     int max, bool *truncated);
/* Reads the side-band now when pid is not known yet (a process forked
 * since it was last read: its records are waiting there), or always. */
void stackpipe_sync_for(struct stackpipe *sp, uint32_t pid, bool always);
/* When the address space gen names began (sym/proctab.h): samples of
 * one address space share it; begin + 1 names that space as a gen. */
uint64_t stackpipe_space_begin(struct stackpipe *sp, uint32_t pid, uint64_t gen);
/* Frames for ips (innermost first), written outermost first; returns n. */
int stackpipe_symbolize_user(struct stackpipe *sp, uint32_t pid, uint64_t gen,
			     const uint64_t *ips, int n, struct frame *frames);

/* Reads a stack from a BPF `stacks` map by handle into ips (innermost
 * first); returns the depth, 0 for none, -1 for lost. */
int stackpipe_read_stack(int stacks_fd, __u64 handle, uint64_t *ips);
/* The same, with *truncated set for a chain the kernel's unwinder did not
 * complete (STACK_F_TRUNCATED) or cut at the depth limit. */
int stackpipe_read_ustack(int stacks_fd, __u64 handle, uint64_t *ips, bool *truncated);
/* Stacks the BPF stack store could not record (its `stack_errors` map),
 * every reason together; the split goes to -v. */
uint64_t stackpipe_stack_errors(int map_fd);

/* -v: the processes and binaries kept, dropped and evicted (what
 * stackpipe_count() says too; syscalls -k's end). */
void stackpipe_say_bounds(struct stackpipe *sp);

/* Symbolizes a sample and adds it to the stacks model. */
int stackpipe_add(struct stackpipe *sp, const struct stack_sample *smp);
struct stacks *stackpipe_stacks(struct stackpipe *sp);

/* How the stacks are drawn. */
struct stackpipe_report {
	enum report_format format;	/* REPORT_FOLDED, REPORT_SVG or REPORT_PPROF */
	const char *title;	/* "CPU profile: CMD" */
	const char *subtitle;	/* "cpu-clock at 99 Hz, 5.00 s, DATE" */
	const char *unit;	/* "samples", "us" */
	bool cool;		/* the off-CPU palette */
	const struct pprof_opts *pprof;	/* sample types, period, times */
};
/* Writes the stacks (sorted) to f; 0 or -errno. */
int stackpipe_write(struct stackpipe *sp, FILE *f, const struct stackpipe_report *r);
/* The closing line of a stack run:
 *   N EVENTS, N stacks, N lost EVENTS, N lost stacks, N of M frames
 *   unsymbolized[, N mmap/exec records lost]
 * events: what was taken ("samples"); lost: never counted; lost_stacks:
 * counted under a "[lost ... stack]" frame. */
void stackpipe_count(struct stackpipe *sp, struct session *s, const char *events,
		     uint64_t taken, uint64_t lost, uint64_t lost_stacks);

#endif
