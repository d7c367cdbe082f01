/* Layouts shared by offcpu.bpf.c and cmd/offcpu.c.
 *
 * At a context switch the outgoing thread's time and stacks are kept in
 * `starts`; when it runs again the blocked time is added, in the kernel,
 * to counts[offcpu_key], and the wait counted there.  With wakers, the
 * stacks of the thread that woke it (taken at sched_waking) are part of
 * the key. */
#ifndef STACKSCOPE_BPF_OFFCPU_H
#define STACKSCOPE_BPF_OFFCPU_H
#include "bpf/stacks.h"

struct offcpu_key {
	__u32 pid, tid;		/* the blocked thread */
	__u64 gen;		/* address spaces (bpf/procs.h) */
	__u64 waker_gen;
	__u32 waker_pid;	/* 0 without --wakers or when unknown */
	__u32 pad;
	__u64 kstack, ustack;	/* handles into `stacks` (blocked thread) */
	__u64 waker_kstack, waker_ustack;
	char comm[TASK_COMM_LEN_];
	char waker_comm[TASK_COMM_LEN_];
};

/* The value of counts[offcpu_key]: blocked time and the waits it sums. */
struct offcpu_value {
	__u64 ns;
	__u64 waits;
};

/* A counted interval waiting for its thread to return to user space,
 * where its user stack is copied (snapshot mode): the `pending` map, by
 * tid.  User space counts those left at the end with key.ustack, the
 * frame-pointer stack. */
struct offcpu_pending {
	struct offcpu_key key;
	__u64 ns;		/* blocked time */
	__u64 uip, usp;		/* user registers when it blocked */
	__u64 waits;		/* the waits ns sums (one syscall, several waits) */
};

/* A blocked interval whose user stack was taken when the thread returned
 * to user space (deferred: at sys_exit, its own context, the stack as it
 * was when it blocked), queued through the `snapshots` ring buffer,
 * followed by `size` bytes of stack from `sp`.  key.ustack holds the
 * frame-pointer stack taken at switch-out, unused here. */
struct offcpu_snapshot {
	struct offcpu_key key;
	__u64 ns;		/* blocked time */
	__u64 ip, sp, bp;	/* user registers */
	__u32 size;
	__u32 waits;		/* the waits ns sums */
};

/* --state: which task states at switch-out count */
#define OFFCPU_STATE_ANY 0
#define OFFCPU_STATE_SLEEP 1	/* TASK_INTERRUPTIBLE */
#define OFFCPU_STATE_DISK 2	/* TASK_UNINTERRUPTIBLE */

/* -u / -k */
#define OFFCPU_THREADS_ANY 0
#define OFFCPU_THREADS_USER 1
#define OFFCPU_THREADS_KERNEL 2

enum offcpu_stat {
	OSTAT_SWITCHES,		/* switch-outs recorded */
	OSTAT_STARTS_FULL,	/* a switch-out not recorded: `starts` full */
	OSTAT_DROPPED,		/* a blocked interval not counted: `counts` full */
	OSTAT_INTERVALS,	/* blocked intervals counted */
	OSTAT_SNAPSHOTS,	/* ... of which with a deferred user stack */
	OSTAT_FALLBACK,		/* ... with the frame-pointer stack: the thread
				 * did not return to user space where it blocked */
	OSTAT_RING_FULL,	/* a snapshot not queued: `snapshots` full */
	OSTAT_PENDING_FULL,	/* `pending` full: counted with the fp stack */
	OSTAT_USTACK_LOST,	/* ... of the fallbacks, with no user stack */
	OSTAT_UNSEEN,		/* a switch-out of a thread whose last one is
				 * still in `starts`: the switch-in between was
				 * not seen; its interval is the time since then
				 * less the CPU time the thread had since */
	OSTAT_DIED,		/* a thread freed with its blocked interval open
				 * (its switch-in unseen, and its exit): not
				 * counted, its `starts` entry deleted */
	OSTAT_WAKER_LOST,	/* --wakers: a waker not kept, `waking` full:
				 * its wait is counted under [no waker] */
	OSTAT_NR,
};

#endif
