/* The life of a stack-collecting run, shared by `profile` and `offcpu`:
 * common options, launching the command gated until capture is live,
 * waiting, the side-band that keeps exited processes symbolizable,
 * symbolizing, writing folded or SVG output, and the closing summary.
 * A command supplies only its capture (setup / stop / collect). */
#ifndef STACKSCOPE_CMD_STACKRUN_H
#define STACKSCOPE_CMD_STACKRUN_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "bpf/profile.h"
#include "report/format.h"
#include "sym/proctab.h"
#include "sym/symcache.h"
#include "unwind/unwind.h"
#include "trace/stackagg.h"

struct stackrun_opts {
	pid_t *pids;		/* -p */
	int npids;
	double duration;	/* -d, 0 = none */
	bool user_only;		/* -U */
	bool kernel_only;	/* -K */
	const char *output;	/* -o */
	enum report_format format;
	bool format_given;	/* --format; else by the -o name */
	bool offsets;		/* --offsets */
	enum unwind_mode unwind;	/* --unwind */
	long stack_size;	/* --stack-size: bytes of user stack copied */
	char **cmd;		/* -- CMD ARGS, NULL-terminated */
};

/* Handles an option every stack command shares (-p -d -U -K -o -v
 * --format(f) --offsets(O) --unwind(W) --stack-size(S)): 1 if handled, 0
 * if not one of them, -1 after printing why it is wrong. */
int stackrun_parse_opt(struct stackrun_opts *o, int c, const char *arg);
/* Checks the whole and takes the command; 0 or 2 (usage). */
int stackrun_finish_opts(struct stackrun_opts *o, int argc, char **argv);

/* One aggregated stack as the capture read it. */
struct stackrun_sample {
	uint32_t pid, gen;
	char comm[17];
	int nk, nu;			/* depth; 0 none; -1 lost */
	bool utrunc;			/* the user chain is incomplete */
	uint64_t kips[PROFILE_MAX_DEPTH];	/* innermost first */
	uint64_t uips[UNWIND_MAX_DEPTH];
	uint64_t value;
	/* offcpu --wakers: the thread that woke this one, folded first,
	 * then a "--" frame, then the blocked thread */
	bool has_waker;
	uint32_t waker_pid, waker_gen;
	char waker_comm[17];
	int wnk, wnu;
	uint64_t wkips[PROFILE_MAX_DEPTH];
	uint64_t wuips[PROFILE_MAX_DEPTH];
};

struct stackrun;

struct stackrun_ops {
	const char *name;	/* "profile" */
	const char *title;	/* "CPU profile" */
	const char *unit;	/* "samples", "us" */
	const char *events;	/* what the summary counts: "samples" */
	const char *subtitle;
	int cool;		/* off-CPU palette */
	/* Load and attach; the command exists (gated) and is in the targets. */
	int (*setup)(struct stackrun *sr, void *ctx);
	/* Stop capturing (detach), so collect reads final numbers. */
	void (*stop)(struct stackrun *sr, void *ctx);
	/* stackrun_add() every stack, then stackrun_set_counts(). */
	int (*collect)(struct stackrun *sr, void *ctx);
};

/* A user-stack snapshot as a command's BPF side queued it. */
struct stackrun_snapshot {
	uint32_t pid, gen;
	const char *comm;		/* up to 16 bytes, maybe unterminated */
	uint64_t kstack;		/* handle into the command's `stacks` */
	struct unwind_regs regs;
	const void *stack;		/* size bytes copied from regs.sp */
	size_t size;
	uint64_t value;			/* what it counts: 1 sample, ns blocked */
	const void *extra;		/* more key bytes (a waker), may be NULL */
	size_t extra_len;
};

/* Reads one ring-buffer record into *out; false skips a malformed one. */
typedef bool (*stackrun_decode_fn)(const void *data, size_t size, struct stackrun_snapshot *out,
				   void *ctx);

bool stackrun_filtered(const struct stackrun *sr);	/* only some pids */
bool stackrun_follows(const struct stackrun *sr);	/* add their children */
/* Puts the target tgids (the -p list or the launched command) in a BPF
 * hash map of u32 -> u8. */
int stackrun_fill_targets(struct stackrun *sr, int map_fd);
int stackrun_add(struct stackrun *sr, const struct stackrun_sample *smp);
/* Unwinds the snapshots queued in a BPF ring buffer (call from setup):
 * each is decoded, unwound at once while the process's mappings are
 * current (--unwind mode), and counted; stackrun_unwound() gives the
 * results to collect. */
int stackrun_snapshots(struct stackrun *sr, int ringbuf_fd, stackrun_decode_fn decode, void *ctx);
/* The unwound snapshots, aggregated; NULL when none were asked for. */
const struct stackagg *stackrun_unwound(const struct stackrun *sr);
/* samples: taken in scope; lost: never counted; lost_stacks: not recorded */
void stackrun_set_counts(struct stackrun *sr, uint64_t samples, uint64_t lost,
			 uint64_t lost_stacks);

/* Reads a stack from a BPF `stacks` map by handle into ips (innermost
 * first); returns the depth, 0 for none, -1 for lost. */
int stackrun_read_stack(int stacks_fd, __u64 handle, uint64_t *ips);

/* Stacks the shared stack store could not record (its `stack_errors`
 * map), all reasons together; the split goes to -v. */
uint64_t stackrun_stack_errors(int map_fd);

/* Runs the whole thing; returns the exit status. */
int stackrun_main(const struct stackrun_ops *ops, struct stackrun_opts *o, void *ctx);

#endif
