/* Which processes a run looks at, and their address spaces: the
 * `targets` filter (with children followed at fork when asked) and the
 * `gens` time each process's address space began, that lets user space
 * pick the mappings a stack belongs to; their values are the contract in
 * bpf/procs.h.
 * Included once per BPF object; defines the maps and the fork/exec
 * programs. */
#ifndef STACKSCOPE_BPF_PROCS_BPF_H
#define STACKSCOPE_BPF_PROCS_BPF_H
#include "bpf/procs.h"
#include "bpf/helpers.bpf.h"

const volatile bool filter_pids = false;	/* only tgids in `targets` */
const volatile bool follow_forks = false;	/* add children of targets */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	/* hash maps of small elements are not preallocated: creating one
	 * writes all its elements (tens of ms per MB in a VM, at every
	 * start), and the kernel's allocator keeps a per-CPU reserve of
	 * small elements that covers a program's inserts; the stack store
	 * (1 KiB elements, a reserve of one) stays preallocated */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* tgid -> when its address space began (bpf/procs.h); lets user space
 * pick the address space a sample belongs to.  Entries come at fork and
 * exec and go when the process is freed (on_free), so the map holds the
 * live processes seen to start; not preallocated (an LRU would be, and
 * writing its 16,384 to 65,536 elements took 5-6 ms of every start). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u64);
} gens SEC(".maps");

/* What the fork and exec programs could not write (bpf/procs.h): said
 * at the end of every command, never lost silently. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROCS_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} procs_stats SEC(".maps");

static __always_inline bool in_scope(__u32 tgid)
{
	return !filter_pids || bpf_map_lookup_elem(&targets, &tgid);
}

/* In scope and past its gate: a launched command's execve is still the
 * launcher's image, whose mappings no table holds, until the exec is
 * done (on_exec below). */
static __always_inline bool in_scope_live(__u32 tgid)
{
	__u8 *target;

	if (!filter_pids)
		return true;
	target = bpf_map_lookup_elem(&targets, &tgid);
	return target && *target == TARGET_ON;
}

static __always_inline __u64 gen_of(__u32 tgid)
{
	__u64 *gen = bpf_map_lookup_elem(&gens, &tgid);

	return gen ? *gen : 0;
}

/* The fork, exec and free programs are raw tracepoints, their task
 * arguments read with CO-RE: no tp_btf program, so libbpf loads no
 * kernel BTF (trace/kbtf.h). */

SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid), cpid = BPF_CORE_READ(child, tgid);
	__u64 now = bpf_ktime_get_ns();
	__u8 on = TARGET_ON;

	if (ppid == cpid)
		return 0;	/* a new thread, same process */
	/* `targets` full (or no memory): the child is not traced */
	if (follow_forks && bpf_map_lookup_elem(&targets, &ppid) &&
	    bpf_map_update_elem(&targets, &cpid, &on, BPF_ANY))
		stat_inc(&procs_stats, PROCS_NOT_FOLLOWED);
	/* A new process, maybe under a reused pid: a new address space. */
	if (in_scope(cpid)) {
		if (bpf_map_update_elem(&gens, &cpid, &now, BPF_ANY))
			stat_inc(&procs_stats, PROCS_UNTIMED);
	} else {
		bpf_map_delete_elem(&gens, &cpid);
	}
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = BPF_CORE_READ(p, tgid);
	__u64 now = bpf_ktime_get_ns();
	__u8 *target = bpf_map_lookup_elem(&targets, &pid);

	if (filter_pids && !target)
		return 0;
	if (target && *target == TARGET_PRE_EXEC)
		*target = TARGET_ON;
	/* replacing the process's entry never fails for a full map; a new
	 * one may (a process begun before tracing, or whose fork's failed) */
	if (bpf_map_update_elem(&gens, &pid, &now, BPF_ANY))
		stat_inc(&procs_stats, PROCS_UNTIMED);
	return 0;
}

/* A process is gone: its last task (the leader, freed once the process
 * is reaped, after every thread and every sample or record of it) leaves
 * no `gens` or `targets` entry behind, so their occupancy follows the live
 * processes, not every process a long run saw (a full map would refuse
 * a new process's gen: that takes 65,536 live ones).  Not at
 * sched_process_exit: the
 * exit path (exit_mm, exit_files) still runs, sampled, under the gen.
 * The leader's task is freed for a process that lives on after a thread
 * other than the leader exec'd (de_thread); its `live` count says which.
 * The pid was freed a grace period before, but pids are handed out
 * cyclically: the same one comes back only after pid_max others. */
/* A program's own per-thread state of a thread (tid) being freed, if it
 * keeps any (offcpu): defined before including this file. */
#ifndef PROCS_ON_FREE_THREAD
#define PROCS_ON_FREE_THREAD(tid) do { } while (0)
#endif

SEC("raw_tp/sched_process_free")
int BPF_PROG(on_free, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), tid = BPF_CORE_READ(p, pid);

	PROCS_ON_FREE_THREAD(tid);
	if (tid != tgid || BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	bpf_map_delete_elem(&gens, &tgid);
	bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

#endif
