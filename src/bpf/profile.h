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
enum profile_stat {
	PSTAT_SAMPLES,		/* samples taken in scope */
	PSTAT_DROPPED,		/* samples not counted: `counts` full */
	PSTAT_KSTACK_FAILED,	/* bpf_get_stack() error on the kernel stack */
	PSTAT_USTACK_FAILED,	/* ... on the user stack */
	PSTAT_STACKS_FULL,	/* a stack not stored: `stacks` full */
	PSTAT_NR,
};

#endif
