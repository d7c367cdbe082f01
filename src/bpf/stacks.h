/* The stack store every aggregating program shares with the user side
 * (profile, offcpu: stacks.bpf.h in the kernel, cmd/stackrun.c reading
 * it back), and what their user-stack snapshots have in common.
 *
 * A stack is stored once in the `stacks` map under a 64-bit hash of its
 * instruction pointers; keys and records name it by that handle. */
#ifndef STACKSCOPE_BPF_STACKS_H
#define STACKSCOPE_BPF_STACKS_H

#define STACK_MAX_DEPTH 127	/* kernel's default perf_event_max_stack */
#define TASK_COMM_LEN_ 16

/* Stack handles: a real stack's hash always has the top bit set. */
#define STACK_NONE 0ULL		/* not wanted, or empty (kernel thread: no user stack) */
#define STACK_LOST 1ULL		/* the kernel could not record it (see stack_errors) */
#define STACK_HASH_BIT (1ULL << 63)

/* A value of the `stacks` map. */
struct stack_trace {
	__u32 nr;		/* valid entries in ips */
	__u32 flags;		/* STACK_F_* */
	__u64 ips[STACK_MAX_DEPTH]; /* innermost first */
};

/* stack_trace.flags */
#define STACK_F_TRUNCATED 1	/* a user chain unwound in the kernel (kunwind.bpf.h)
				 * that did not reach its outermost frame */

/* Indexes of the per-CPU `stack_errors` array that the stack store
 * counts its own failures in, for every program. */
enum stack_error {
	STACKERR_KERNEL,	/* bpf_get_stack() failed on a kernel stack */
	STACKERR_USER,		/* ... on a user stack */
	STACKERR_FULL,		/* a stack not stored: `stacks` full */
	STACKERR_NR,
};

/* How user stacks are taken (the `ustack_mode` rodata). */
enum ustack_mode {
	USTACK_FP = 0,		/* kernel frame-pointer walk, aggregated in the kernel */
	USTACK_SNAPSHOT = 1,	/* registers + a copy of the stack top, unwound in user space */
	USTACK_KERNEL = 2,	/* unwound in the kernel with the binaries' tables
				 * (kunwind.bpf.h), a snapshot where they are missing */
};

#define SNAPSHOT_MAX (32 * 1024)	/* largest user-stack copy, bytes */
#define SNAPSHOT_DEFAULT (16 * 1024)	/* the copy unless asked otherwise */
/* The `snapshots` ring buffer of profile and offcpu: its size (profile
 * sizes it to its rate, at most this) and the bytes waiting in it that
 * wake the reader, a quarter (snapshots_wakeup). */
#define SNAPSHOTS_SIZE (8 * 1024 * 1024)

#endif
