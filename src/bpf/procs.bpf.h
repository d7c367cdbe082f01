/* Which processes a run looks at, and their exec generations: the
 * `targets` filter (with children followed at fork when asked) and the
 * `gens` count of execs per process that lets user space pick the address
 * space a stack belongs to; their values are the contract in bpf/procs.h.
 * Included once per BPF object; defines the maps and the fork/exec
 * programs. */
#ifndef STACKSCOPE_BPF_PROCS_BPF_H
#define STACKSCOPE_BPF_PROCS_BPF_H
#include "bpf/procs.h"

const volatile bool filter_pids = false;	/* only tgids in `targets` */
const volatile bool follow_forks = false;	/* add children of targets */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* tgid -> number of execs seen since tracing started; lets user space
 * pick the address space a sample belongs to. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} gens SEC(".maps");

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

static __always_inline __u32 gen_of(__u32 tgid)
{
	__u32 *gen = bpf_map_lookup_elem(&gens, &tgid);

	return gen ? *gen : 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, cpid = child->tgid;
	__u8 on = TARGET_ON;

	if (ppid == cpid)
		return 0;	/* a new thread, same process */
	/* A reused pid starts a new address space history. */
	bpf_map_delete_elem(&gens, &cpid);
	if (follow_forks && bpf_map_lookup_elem(&targets, &ppid))
		bpf_map_update_elem(&targets, &cpid, &on, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = p->tgid, first = 1, *gen;

	__u8 *target = bpf_map_lookup_elem(&targets, &pid);

	if (filter_pids && !target)
		return 0;
	if (target && *target == TARGET_PRE_EXEC)
		*target = TARGET_ON;
	gen = bpf_map_lookup_elem(&gens, &pid);
	if (gen)
		__sync_fetch_and_add(gen, 1);
	else
		bpf_map_update_elem(&gens, &pid, &first, BPF_NOEXIST);
	return 0;
}

#endif
