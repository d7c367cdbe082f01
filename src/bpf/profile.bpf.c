// SPDX-License-Identifier: GPL-2.0
/* On-CPU sampling: a perf_event program run by the cpu-clock event of each
 * CPU.  The stacks it takes start at the interrupted context (the kernel
 * unwinds from the perf event's saved registers), so no tracer frame sits
 * at their top; user space still drops any by symbol as a safety net. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/profile.h"
#include "bpf/helpers.bpf.h"
#include "bpf/stacks.bpf.h"
#include "bpf/procs.bpf.h"
#include "bpf/snapshot.bpf.h"
#include "bpf/kunwind.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool want_kernel = true;
const volatile bool want_user = true;
const volatile __u32 ustack_mode = USTACK_FP;
/* --per-thread: samples counted per thread, not only per process */
const volatile bool per_thread = false;

/* Windows (profile --every): every sample goes to the maps of the slot
 * it reads from `slot` (0 or 1), in its `counts` and stack store.  User
 * space closes a window by flipping `slot`, then rewriting an entry of
 * count_slots: an update of a map-in-map returns only once every BPF
 * program running at the time has finished (the kernel waits for an RCU
 * grace period), so from then on nothing writes the old slot's maps;
 * they are read whole, then emptied for the window after next.  A run
 * without windows stays in slot 0 and gives slot 1's maps one entry. */
volatile __u32 slot;

/* Sized by user space before load (cmd/profile.c): this for a run over
 * every process; a power of two, as the kernel rounds its buckets up to
 * one (16 bytes each, allocated and written at creation) */
struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct profile_key);
	__type(value, __u64);
};
struct counts_map counts SEC(".maps"), counts_b SEC(".maps");

struct stack_store stacks_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct counts_map);
} count_slots SEC(".maps") = {
	.values = { &counts, &counts_b },
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct stack_store);
} stack_slots SEC(".maps") = {
	.values = { &stacks, &stacks_b },
};

/* User-stack snapshots to unwind in user space (USTACK_SNAPSHOT). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SNAPSHOTS_SIZE);
} snapshots SEC(".maps");

struct snapshot_buf {
	struct profile_snapshot hdr;
	__u8 data[SNAPSHOT_BUF];
};

/* One buffer per CPU, indexed by CPU number (a per-CPU array's values
 * are limited to 32 KiB); max_entries is set to the CPU count at load.
 * The perf_event program does not nest with itself on a CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct snapshot_buf);
} snapshot_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PSTAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* The user registers of the interrupted context; false when unknown. */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, struct task_struct *task,
				      __u64 *ip, __u64 *sp, __u64 *bp)
{
	struct pt_regs *regs;

	/* cs as a whole word: the context allows only 8-byte loads of the
	 * registers, and cs shares its slot with FRED bits since 6.9 */
	if ((*(__u64 *)((char *)&ctx->regs + __builtin_offsetof(struct pt_regs, cs)) & 3) == 3) {
		/* interrupted in user mode: the perf registers are the user's */
		*ip = ctx->regs.ip;
		*sp = ctx->regs.sp;
		*bp = ctx->regs.bp;
		return true;
	}
	/* in the kernel: the user registers saved at kernel entry */
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return false;
	*ip = BPF_CORE_READ(regs, ip);
	*sp = BPF_CORE_READ(regs, sp);
	*bp = BPF_CORE_READ(regs, bp);
	return true;
}

/* Queues the user registers and a copy of the user stack from sp upwards
 * (copy_user_stack()).  Returns 0; 1 when there is no user stack (the sample is counted in the
 * kernel with its kernel stack only); -1 when it is counted with its user
 * stack lost. */
static __always_inline int queue_snapshot(struct bpf_perf_event_data *ctx,
					  struct task_struct *task,
					  const struct profile_key *key, __u32 w)
{
	__u32 cpu = bpf_get_smp_processor_id(), copied;
	struct snapshot_buf *b;
	__u64 sp;

	b = bpf_map_lookup_elem(&snapshot_scratch, &cpu);
	if (!b)
		return -1;
	if (!user_regs(ctx, task, &b->hdr.ip, &b->hdr.sp, &b->hdr.bp))
		return -1;
	sp = b->hdr.sp;
	copied = copy_user_stack(b->data, sp);
	if (copied == 0) {
		/* exiting or in execve: the address space is being torn down,
		 * there is no user stack to lose */
		if ((task->flags & 0x4 /* PF_EXITING */) || BPF_CORE_READ_BITFIELD(task, in_execve))
			return 1;
		stat_inc(&stats, PSTAT_SNAPSHOT_FAILED);
		return -1;
	}
	b->hdr.size = copied;
	b->hdr.pid = key->pid;
	b->hdr.gen = key->gen;
	b->hdr.kstack = key->kstack;
	b->hdr.tid = key->tid;
	b->hdr.slot = w;
	__builtin_memcpy(b->hdr.comm, key->comm, sizeof(b->hdr.comm));
	if (copied > SNAPSHOT_MAX)
		return -1;
	if (bpf_ringbuf_output(&snapshots, b, sizeof(b->hdr) + copied,
			       ringbuf_wakeup_flags(&snapshots, snapshots_wakeup))) {
		stat_inc(&stats, PSTAT_RING_FULL);
		return -1;
	}
	stat_inc(&stats, PSTAT_SNAPSHOTS);
	stat_inc(&stats, w ? PSTAT_QUEUED_1 : PSTAT_QUEUED_0);
	return 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct profile_key key = {};
	__u32 pid = id >> 32, w = slot & 1;
	void *counts_w, *stacks_w;

	if (!in_scope_live(pid))
		return 0;
	stat_inc(&stats, PSTAT_SAMPLES);
	counts_w = bpf_map_lookup_elem(&count_slots, &w);
	stacks_w = bpf_map_lookup_elem(&stack_slots, &w);
	if (!counts_w || !stacks_w) {
		stat_inc(&stats, PSTAT_DROPPED);
		return 0;
	}

	key.pid = pid;
	key.gen = gen_of(pid);
	if (per_thread)
		key.tid = (__u32)id;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	if (want_kernel)
		key.kstack = record_stack_in(stacks_w, ctx, 0);
	if (want_user && pid != 0) {
		struct task_struct *task = bpf_get_current_task_btf();

		/* kernel threads have no user stack */
		if (task->flags & 0x00200000 /* PF_KTHREAD */) {
			/* nothing */
		} else if (ustack_mode == USTACK_SNAPSHOT || ustack_mode == USTACK_KERNEL) {
			__u64 ip, sp, bp;
			int q;

			/* in the kernel with the tables, else (not loaded
			 * yet) a snapshot unwound in user space */
			if (ustack_mode == USTACK_KERNEL &&
			    !((task->flags & 0x4 /* PF_EXITING */) ||
			      BPF_CORE_READ_BITFIELD(task, in_execve)) &&
			    user_regs(ctx, task, &ip, &sp, &bp) &&
			    kunwind_record(stacks_w, pid, key.gen, ip, sp, bp, &key.ustack) == 0)
				goto count;
			q = queue_snapshot(ctx, task, &key, w);
			if (q == 0)
				return 0;
			key.ustack = q > 0 ? STACK_NONE : STACK_LOST;
		} else {
			key.ustack = record_stack_in(stacks_w, ctx, BPF_F_USER_STACK);
		}
	}

count:
	if (map_add(counts_w, &key, 1))
		stat_inc(&stats, PSTAT_DROPPED);
	return 0;
}
