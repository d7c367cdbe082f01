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

char LICENSE[] SEC("license") = "GPL";

const volatile bool want_kernel = true;
const volatile bool want_user = true;
const volatile __u32 ustack_mode = USTACK_FP;
/* --per-thread: samples counted per thread, not only per process */
const volatile bool per_thread = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 40960);
	__type(key, struct profile_key);
	__type(value, __u64);
} counts SEC(".maps");

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

/* Queues the user registers and a copy of the user stack from sp upwards
 * (copy_user_stack()).  Returns 0; 1 when there is no user stack (the sample is counted in the
 * kernel with its kernel stack only); -1 when it is counted with its user
 * stack lost. */
static __always_inline int queue_snapshot(struct bpf_perf_event_data *ctx,
					  struct task_struct *task,
					  const struct profile_key *key)
{
	__u32 cpu = bpf_get_smp_processor_id(), copied;
	struct snapshot_buf *b;
	struct pt_regs *regs;
	__u64 sp;

	b = bpf_map_lookup_elem(&snapshot_scratch, &cpu);
	if (!b)
		return -1;
	/* cs as a whole word: the context allows only 8-byte loads of the
	 * registers, and cs shares its slot with FRED bits since 6.9 */
	if ((*(__u64 *)((char *)&ctx->regs + __builtin_offsetof(struct pt_regs, cs)) & 3) == 3) {
		/* interrupted in user mode: the perf registers are the user's */
		b->hdr.ip = ctx->regs.ip;
		b->hdr.sp = ctx->regs.sp;
		b->hdr.bp = ctx->regs.bp;
	} else {
		/* in the kernel: the user registers saved at kernel entry */
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (!regs)
			return -1;
		b->hdr.ip = BPF_CORE_READ(regs, ip);
		b->hdr.sp = BPF_CORE_READ(regs, sp);
		b->hdr.bp = BPF_CORE_READ(regs, bp);
	}
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
	__builtin_memcpy(b->hdr.comm, key->comm, sizeof(b->hdr.comm));
	if (copied > SNAPSHOT_MAX)
		return -1;
	if (bpf_ringbuf_output(&snapshots, b, sizeof(b->hdr) + copied,
			       ringbuf_wakeup_flags(&snapshots, SNAPSHOTS_WAKEUP))) {
		stat_inc(&stats, PSTAT_RING_FULL);
		return -1;
	}
	stat_inc(&stats, PSTAT_SNAPSHOTS);
	return 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct profile_key key = {};
	__u32 pid = id >> 32;

	if (!in_scope_live(pid))
		return 0;
	stat_inc(&stats, PSTAT_SAMPLES);

	key.pid = pid;
	key.gen = gen_of(pid);
	if (per_thread)
		key.tid = (__u32)id;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	if (want_kernel)
		key.kstack = record_stack(ctx, 0);
	if (want_user && pid != 0) {
		struct task_struct *task = bpf_get_current_task_btf();

		/* kernel threads have no user stack */
		if (task->flags & 0x00200000 /* PF_KTHREAD */) {
			/* nothing */
		} else if (ustack_mode == USTACK_SNAPSHOT) {
			int q = queue_snapshot(ctx, task, &key);

			if (q == 0)
				return 0;
			key.ustack = q > 0 ? STACK_NONE : STACK_LOST;
		} else {
			key.ustack = record_stack(ctx, BPF_F_USER_STACK);
		}
	}

	if (map_add(&counts, &key, 1))
		stat_inc(&stats, PSTAT_DROPPED);
	return 0;
}
