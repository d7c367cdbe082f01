/* The process-scope contract of every program that includes procs.bpf.h
 * (profile, offcpu, syscalls) with the user side that fills it.
 *
 * `targets` (tgid __u32 -> __u8): the processes looked at when the
 * `filter_pids` rodata is set; user space puts in the -p processes and a
 * launched command before attaching, the kernel adds children when
 * `follow_forks` is set.  `gens` (tgid __u32 -> __u32): execs seen since
 * tracing started, the exec generation keys and records carry. */
#ifndef STACKSCOPE_BPF_PROCS_H
#define STACKSCOPE_BPF_PROCS_H

/* `targets` values */
#define TARGET_ON 1		/* traced */
#define TARGET_PRE_EXEC 2	/* a launched command still in its gate: traced
				 * from its execve on (TARGET_ON from then) */

#endif
