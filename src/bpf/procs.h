/* The process-scope contract of every program that includes procs.bpf.h
 * (profile, offcpu, syscalls) with the user side that fills it.
 *
 * `targets` (tgid __u32 -> __u8): the processes looked at when the
 * `filter_pids` rodata is set; user space puts in the -p processes and a
 * launched command before attaching, the kernel adds children when
 * `follow_forks` is set.  `gens` (tgid __u32 -> __u64): the process's
 * current address space, the "gen" keys and records carry, named by when
 * it began: the bpf_ktime_get_ns() (CLOCK_MONOTONIC) of the fork or exec
 * that made it, as this side saw it; 0 = it began before tracing did.
 *
 * A time, not a count, so that the side-band's fork and exec records
 * (perf, on the same clock) name the same address spaces without any
 * agreement on which events either side saw: the kernel writes the
 * fork's and the exec's perf record before their tracepoints run (and
 * the new image's mmap records between the two), and nothing else of
 * the process can happen between, so the address space of a sample with
 * gen G is the newest one whose side-band record is older than G (trace/
 * sideband.c, sym/proctab.c).  A pid reused during the run is a new
 * fork, hence a new gen: the dead process's samples keep its mappings.
 * A process's entries in both maps go when its last task is freed
 * (`on_free`): the maps hold the live processes (-v counts them).
 *
 * `procs_stats` (per-CPU __u64 counters, indexed by enum procs_stat):
 * what the fork and exec programs could not write, a map being full or
 * the kernel out of memory; user space sums and says them at the end
 * (trace/session.h, session_count_procs()). */
#ifndef STACKSCOPE_BPF_PROCS_H
#define STACKSCOPE_BPF_PROCS_H

/* `targets` values */
#define TARGET_ON 1		/* traced */
#define TARGET_PRE_EXEC 2	/* a launched command still in its gate: traced
				 * from its execve on (TARGET_ON from then) */

/* `procs_stats` indices */
enum procs_stat {
	PROCS_NOT_FOLLOWED,	/* a child of a target not put in `targets`:
				 * nothing of it (or of its own children) is
				 * traced */
	PROCS_UNTIMED,		/* an address space (a fork or an exec) whose
				 * time `gens` did not take: the process's
				 * stacks keep an older gen (or 0) */
	PROCS_STAT_NR,
};

#endif
