// SPDX-License-Identifier: GPL-2.0
/* Off-CPU time by kernel + user stack, and optionally by the stacks of
 * the thread that woke the blocked one.
 *
 * The stacks are taken at switch-out from inside this program, so the
 * kernel stack starts in the tracer (bpf_prog_*, bpf_trace_run4,
 * __traceiter_sched_switch) above __schedule; user space drops those
 * frames by symbol, so the count of them never has to be known here. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/offcpu.h"
#include "bpf/helpers.bpf.h"
#include "bpf/stacks.bpf.h"
/* every thread's entries go when its task is freed (procs.bpf.h on_free) */
static __always_inline void free_thread(__u32 tid);
#define PROCS_ON_FREE_THREAD(tid) free_thread(tid)
#include "bpf/procs.bpf.h"
#include "bpf/snapshot.bpf.h"
#include "bpf/kunwind.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool want_kernel = true;
const volatile bool want_user = true;
const volatile bool wakers = false;
const volatile __u32 self_tgid = 0;	/* stackscope itself: never counted */
const volatile __u32 only_tid = 0;	/* -t */
const volatile __u32 state_filter = OFFCPU_STATE_ANY;
const volatile __u32 threads = OFFCPU_THREADS_ANY;
const volatile __u64 min_ns = 0;
const volatile __u64 max_ns = ~0ULL;
const volatile __u32 ustack_mode = USTACK_FP;	/* USTACK_SNAPSHOT: deferred; USTACK_KERNEL:
						 * unwound at switch-out, deferred
						 * where it cannot be */

/* A thread off the CPU: when and where it left. */
struct start {
	__u64 ts;
	__u64 cpu_ns;		/* the thread's CPU time then (se.sum_exec_runtime) */
	__u64 kstack, ustack;
	__u64 uip, usp;		/* user registers then (snapshot mode) */
};

/* Who woke a thread, taken at sched_waking in the waker's context. */
struct waker {
	__u32 pid;
	__u32 pad;
	__u64 gen;
	__u64 kstack, ustack;
	char comm[TASK_COMM_LEN_];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct waker);
} waking SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 40960);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_value);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct offcpu_pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SNAPSHOTS_SIZE);
} snapshots SEC(".maps");

struct offcpu_snapshot_buf {
	struct offcpu_snapshot hdr;
	__u8 data[SNAPSHOT_BUF];
};

/* one per CPU, indexed by CPU number; sized at load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_snapshot_buf);
} snapshot_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OSTAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

#define TASK_DEAD_ 0x80	/* prev_state of a thread's last switch-out */

static __always_inline bool is_kthread(struct task_struct *t)
{
	return t->flags & 0x00200000;	/* PF_KTHREAD */
}

/* Is this thread one we time? */
static __always_inline bool wanted(struct task_struct *t)
{
	__u32 tgid = t->tgid;

	if (t->pid == 0 || tgid == self_tgid)
		return false;	/* idle, and ourselves */
	if (only_tid && t->pid != only_tid)
		return false;
	if (threads == OFFCPU_THREADS_USER && is_kthread(t))
		return false;
	if (threads == OFFCPU_THREADS_KERNEL && !is_kthread(t))
		return false;
	return in_scope_live(tgid);
}

static __always_inline void count(const struct offcpu_key *key, __u64 delta, __u64 waits)
{
	if (map_add2(&counts, key, delta, waits))
		stat_inc(&stats, OSTAT_DROPPED);
}

/* A pending interval counted without its deferred user stack: the
 * frame-pointer one when it was taken (a preempted thread), else none,
 * which is a lost stack. */
static __always_inline void flush(const struct offcpu_key *key, __u64 ns, __u64 waits)
{
	count(key, ns, waits);
	stat_inc(&stats, OSTAT_FALLBACK);
	if (key->ustack == STACK_LOST)
		stat_inc(&stats, OSTAT_USTACK_LOST);
}

/* Snapshot mode: the interval waits for its thread's return to user
 * space.  A thread that blocks again at the same place before that (one
 * syscall, several waits) adds to it; anything else flushes the older
 * interval with its frame-pointer stack. */
static __always_inline void defer(const struct offcpu_key *key, __u64 delta, __u64 uip, __u64 usp)
{
	__u32 tid = key->tid;
	struct offcpu_pending *p = bpf_map_lookup_elem(&pending, &tid), n = {};

	if (p) {
		/* same place, same stacks, same waker (pid, tid, gen and
		 * comm follow from the thread) */
		if (p->uip == uip && p->usp == usp && p->key.kstack == key->kstack &&
		    p->key.ustack == key->ustack && p->key.waker_pid == key->waker_pid &&
		    p->key.waker_kstack == key->waker_kstack &&
		    p->key.waker_ustack == key->waker_ustack) {
			__sync_fetch_and_add(&p->ns, delta);
			__sync_fetch_and_add(&p->waits, 1);
			return;
		}
		flush(&p->key, p->ns, p->waits);
	}
	n.key = *key;
	n.ns = delta;
	n.uip = uip;
	n.usp = usp;
	n.waits = 1;
	if (bpf_map_update_elem(&pending, &tid, &n, BPF_ANY)) {
		count(key, delta, 1);
		stat_inc(&stats, OSTAT_PENDING_FULL);
	}
}

/* The end of t's blocked interval st at time end: counted in the
 * kernel, or pending its user stack (deferrable: t is about to run where
 * it blocked, not back in user space yet). */
static __always_inline void finish(struct task_struct *t, const struct start *st, __u64 end,
				   bool deferrable)
{
	__u64 delta = end - st->ts, uip = st->uip, usp = st->usp;
	__u32 tid = t->pid;
	struct offcpu_key key = {};

	if (delta < min_ns || delta > max_ns)
		return;
	key.kstack = st->kstack;
	key.ustack = st->ustack;
	key.pid = t->tgid;
	key.tid = tid;
	key.gen = gen_of(key.pid);
	BPF_CORE_READ_STR_INTO(&key.comm, t, comm);
	if (wakers) {
		struct waker *w = bpf_map_lookup_elem(&waking, &tid);

		if (w) {
			key.waker_pid = w->pid;
			key.waker_gen = w->gen;
			key.waker_kstack = w->kstack;
			key.waker_ustack = w->ustack;
			__builtin_memcpy(key.waker_comm, w->comm, sizeof(key.waker_comm));
			bpf_map_delete_elem(&waking, &tid);
		}
	}
	stat_inc(&stats, OSTAT_INTERVALS);
	if (deferrable && ustack_mode != USTACK_FP && usp)
		defer(&key, delta, uip, usp);
	else
		count(&key, delta, 1);
}

/* A freed thread's entries: none is left by one that exited the usual
 * way (its last switch-out, TASK_DEAD, is not recorded; its pending wait
 * ended at its last system call's exit).  One whose switch-in went
 * unseen and that never blocked again left a start: its interval has no
 * end, so it is counted lost; a pending wait whose syscall exit went
 * unseen is counted with its frame-pointer stack. */
static __always_inline void free_thread(__u32 tid)
{
	struct offcpu_pending *pd;

	if (bpf_map_lookup_elem(&starts, &tid) && !bpf_map_delete_elem(&starts, &tid))
		stat_inc(&stats, OSTAT_DIED);
	pd = bpf_map_lookup_elem(&pending, &tid);
	if (pd) {
		/* copied first: user space may take the entry meanwhile
		 * (lookup-and-delete at a trim); whoever deletes it counts it */
		struct offcpu_pending copy = *pd;

		if (!bpf_map_delete_elem(&pending, &tid))
			flush(&copy.key, copy.ns, copy.waits);
	}
	if (wakers)
		bpf_map_delete_elem(&waking, &tid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = prev->pid;
	struct start *st, s = {};

	/* prev's last switch-in went by without this program (the kernel
	 * ran no probe for it: seen while other tracers attach and detach
	 * sched_switch probes): its time off the CPU since it left is the
	 * time since then less the CPU time it has had since (its scheduler
	 * accounting is up to date here), whatever else went unseen */
	st = bpf_map_lookup_elem(&starts, &tid);
	if (st) {
		__u64 ran = prev->se.sum_exec_runtime - st->cpu_ns;

		if (ran > now - st->ts)
			ran = now - st->ts;
		stat_inc(&stats, OSTAT_UNSEEN);
		finish(prev, st, now - ran, false);
		bpf_map_delete_elem(&starts, &tid);
	}

	/* prev leaves the CPU: this program runs in its context, so its
	 * stacks are the current ones (not a dying thread's last switch:
	 * no switch-in ends it, and its tid may be a new thread's) */
	if (!(prev_state & TASK_DEAD_) && wanted(prev) &&
	    (state_filter == OFFCPU_STATE_ANY ||
	     (state_filter == OFFCPU_STATE_SLEEP && (prev_state & 0xff) == 1) ||
	     (state_filter == OFFCPU_STATE_DISK && (prev_state & 0xff) == 2))) {
		s.ts = now;
		s.cpu_ns = prev->se.sum_exec_runtime;
		if (want_kernel)
			s.kstack = record_stack(ctx, 0);
		if (want_user && !is_kthread(prev)) {
			/* with snapshots, the fallback for a wait whose thread
			 * does not come back through sys_exit where it left, or
			 * whose copy finds the ring buffer full */
			struct pt_regs *regs = NULL;

			if (ustack_mode != USTACK_FP)
				regs = (struct pt_regs *)bpf_task_pt_regs(prev);
			/* in the kernel: prev's user memory is the current one */
			if (ustack_mode == USTACK_KERNEL && regs && !(prev->flags & 0x4 /* PF_EXITING */) &&
			    kunwind_record(&stacks, prev->tgid, gen_of(prev->tgid),
					   BPF_CORE_READ(regs, ip), BPF_CORE_READ(regs, sp),
					   BPF_CORE_READ(regs, bp), &s.ustack) == 0) {
				regs = NULL;
			} else {
				s.ustack = record_stack(ctx, BPF_F_USER_STACK);
			}
			if (regs) {
				s.uip = BPF_CORE_READ(regs, ip);
				s.usp = BPF_CORE_READ(regs, sp);
			}
		}
		if (bpf_map_update_elem(&starts, &tid, &s, BPF_ANY))
			stat_inc(&stats, OSTAT_STARTS_FULL);
		else
			stat_inc(&stats, OSTAT_SWITCHES);
	}

	/* next comes back: count the time it was away */
	tid = next->pid;
	st = bpf_map_lookup_elem(&starts, &tid);
	if (st) {
		finish(next, st, now, true);
		bpf_map_delete_elem(&starts, &tid);
	}
	return 0;
}

/* Snapshot mode: a thread returns to user space from a syscall; if it
 * has an interval pending and is where it was when it blocked, its user
 * stack is the one it blocked with: copy it now, in its own context. */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), cpu;
	struct offcpu_snapshot_buf *b;
	struct offcpu_pending *p;
	__u32 size;

	if (ustack_mode == USTACK_FP)
		return 0;
	p = bpf_map_lookup_elem(&pending, &tid);
	if (!p)
		return 0;
	cpu = bpf_get_smp_processor_id();
	b = bpf_map_lookup_elem(&snapshot_scratch, &cpu);
	if (!b || regs->ip != p->uip || regs->sp != p->usp)
		goto fallback;
	size = copy_user_stack(b->data, regs->sp);
	if (!size || size > SNAPSHOT_MAX)
		goto fallback;
	b->hdr.key = p->key;
	b->hdr.ns = p->ns;
	b->hdr.ip = regs->ip;
	b->hdr.sp = regs->sp;
	b->hdr.bp = regs->bp;
	b->hdr.size = size;
	b->hdr.waits = p->waits > 0xffffffff ? 0xffffffff : (__u32)p->waits;
	if (bpf_ringbuf_output(&snapshots, b, sizeof(b->hdr) + size,
			       ringbuf_wakeup_flags(&snapshots, snapshots_wakeup))) {
		stat_inc(&stats, OSTAT_RING_FULL);
		goto fallback;
	}
	stat_inc(&stats, OSTAT_SNAPSHOTS);
	bpf_map_delete_elem(&pending, &tid);
	return 0;
fallback:
	flush(&p->key, p->ns, p->waits);
	bpf_map_delete_elem(&pending, &tid);
	return 0;
}

/* The waker's stacks, for --wakers: sched_waking runs in its context. */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tid = p->pid;
	struct waker w = {};

	if (!wakers || !bpf_map_lookup_elem(&starts, &tid))
		return 0;
	w.pid = cur->tgid;
	w.gen = gen_of(w.pid);
	bpf_get_current_comm(w.comm, sizeof(w.comm));
	if (want_kernel)
		w.kstack = record_stack(ctx, 0);
	if (want_user && !is_kthread(cur) && cur->pid != 0)
		w.ustack = record_stack(ctx, BPF_F_USER_STACK);
	if (bpf_map_update_elem(&waking, &tid, &w, BPF_ANY))
		stat_inc(&stats, OSTAT_WAKER_LOST);
	return 0;
}
