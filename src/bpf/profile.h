/* Layouts shared by profile.bpf.c and the user side (cmd/profile.c).
 *
 * Samples are aggregated in the kernel: counts[profile_key] += 1, where the
 * key names the process, its exec generation and the two stacks by a 64-bit
 * hash of their instruction pointers.  The stacks themselves live once in
 * the `stacks` map under that hash.  Nothing crosses to user space per
 * sample. */
#ifndef STACKSCOPE_BPF_PROFILE_H
#define STACKSCOPE_BPF_PROFILE_H

#define PROFILE_MAX_DEPTH 127	/* kernel's default perf_event_max_stack */
#define TASK_COMM_LEN_ 16

/* Stack handles: a real stack's hash always has the top bit set. */
#define STACK_NONE 0ULL		/* not wanted, or empty (kernel thread: no user stack) */
#define STACK_LOST 1ULL		/* the kernel could not record it (see stats) */
#define STACK_HASH_BIT (1ULL << 63)

struct profile_key {
	__u32 pid;		/* tgid; 0 = idle */
	__u32 gen;		/* exec generation of pid, from the `gens` map */
	__u64 kstack;		/* handle into `stacks` */
	__u64 ustack;
	char comm[TASK_COMM_LEN_]; /* thread name at the sample */
};

struct profile_stack {
	__u32 nr;		/* valid entries in ips */
	__u32 pad;
	__u64 ips[PROFILE_MAX_DEPTH]; /* innermost first */
};

/* Indexes of the per-CPU `stats` array: every sample and stack that could
 * not be recorded is counted here and printed at the end of a run. */
/* Indexes of the per-CPU `stack_errors` array that the shared stack store
 * (stackmap.bpf.h) counts its own failures in, for every program. */
enum stack_error {
	STACKERR_KERNEL,	/* bpf_get_stack() failed on a kernel stack */
	STACKERR_USER,		/* ... on a user stack */
	STACKERR_FULL,		/* a stack not stored: `stacks` full */
	STACKERR_NR,
};

enum profile_stat {
	PSTAT_SAMPLES,		/* samples taken in scope */
	PSTAT_DROPPED,		/* samples not counted: `counts` full */
	PSTAT_SNAPSHOT_FAILED,	/* no byte of the user stack could be copied */
	PSTAT_RING_FULL,	/* a snapshot not queued: `snapshots` full */
	PSTAT_SNAPSHOTS,	/* snapshots queued */
	PSTAT_NR,
};

/* How user stacks are taken. */
enum profile_ustack_mode {
	USTACK_FP = 0,		/* kernel frame-pointer walk, aggregated in the kernel */
	USTACK_SNAPSHOT = 1,	/* registers + a copy of the stack top, unwound in user space */
};

#define SNAPSHOT_MAX (32 * 1024)	/* largest stack copy, bytes */

/* One sample whose user stack is unwound in user space, queued through
 * the `snapshots` ring buffer.  The kernel stack is still aggregated in
 * `stacks`; the user stack is `size` bytes copied from `sp` upwards. */
struct profile_snapshot {
	__u32 pid;		/* tgid */
	__u32 gen;
	__u64 kstack;		/* handle into `stacks` */
	__u64 ip, sp, bp;	/* user registers at the sample */
	__u32 size;		/* bytes in data */
	__u32 pad;
	char comm[TASK_COMM_LEN_];
	/* followed by the stack bytes [sp, sp + size) */
};


#endif
