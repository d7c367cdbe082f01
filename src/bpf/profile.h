/* Layouts shared by profile.bpf.c and the user side (cmd/profile.c).
 *
 * Samples are aggregated in the kernel: counts[profile_key] += 1, where the
 * key names the process, its address space (gen) and the two stacks by a 64-bit
 * hash of their instruction pointers.  The stacks themselves live once in
 * the `stacks` map under that hash (bpf/stacks.h).  Nothing crosses to
 * user space per sample. */
#ifndef STACKSCOPE_BPF_PROFILE_H
#define STACKSCOPE_BPF_PROFILE_H
#include "bpf/stacks.h"

struct profile_key {
	__u32 pid;		/* tgid; 0 = idle */
	__u32 tid;		/* 0 unless per_thread (--per-thread) */
	__u64 gen;		/* address space of pid, from the `gens` map */
	__u64 kstack;		/* handle into `stacks` */
	__u64 ustack;
	char comm[TASK_COMM_LEN_]; /* thread name at the sample */
};

/* Indexes of the per-CPU `stats` array: every sample and stack that could
 * not be recorded is counted here and printed at the end of a run. */
enum profile_stat {
	PSTAT_SAMPLES,		/* samples taken in scope */
	PSTAT_DROPPED,		/* samples not counted: `counts` full */
	PSTAT_SNAPSHOT_FAILED,	/* no byte of the user stack could be copied */
	PSTAT_RING_FULL,	/* a snapshot not queued: `snapshots` full */
	PSTAT_SNAPSHOTS,	/* snapshots queued */
	PSTAT_QUEUED_0,		/* ... of them while `slot` was 0 (windows) */
	PSTAT_QUEUED_1,		/* ... while it was 1 */
	PSTAT_NR,
};

/* One sample whose user stack is unwound in user space, queued through
 * the `snapshots` ring buffer.  The kernel stack is still aggregated in
 * `stacks`; the user stack is `size` bytes copied from `sp` upwards. */
struct profile_snapshot {
	__u32 pid;		/* tgid */
	__u32 tid;		/* as in profile_key */
	__u64 gen;
	__u64 kstack;		/* handle into `stacks` */
	__u64 ip, sp, bp;	/* user registers at the sample */
	__u32 size;		/* bytes in data */
	__u32 slot;		/* the window slot it was taken in (kstack is in its store) */
	char comm[TASK_COMM_LEN_];
	/* followed by the stack bytes [sp, sp + size) */
};

#endif
