/* Kernel stacks without the tracer's own frames.
 *
 * bpf_get_stackid() walks the kernel stack from where the helper was
 * called, or from registers the tracing glue saved on the way in, so a
 * kstack starts with frames of the machinery that ran the program, and
 * which ones differ by probe type and kernel build:
 *
 *   rawtracepoint:sys_enter      bpf_prog_6deef7357e7b4530_p0+234
 *                                bpf_trace_run2+259
 *                                __bpf_trace_sys_enter+12
 *                                syscall_trace_enter+384    <- the caller
 *   tracepoint:syscalls:sys_enter_openat
 *                                perf_syscall_enter+475
 *                                syscall_trace_enter+384    <- the caller
 *   tracepoint:sched:sched_process_exec
 *                                __traceiter_sched_process_exec+57
 *                                bprm_execve+1175           <- the caller
 *
 * A fixed skip count per program type (bpf_get_stackid's skip field)
 * would be right on one kernel only, so the runtime drops them once the
 * addresses are named from kallsyms: the innermost run of frames whose
 * function is tracing glue (the names below) or has no name (a BPF
 * program when the JIT does not publish its symbols), up to its last
 * named glue frame.  Frames past the first ordinary function are never
 * dropped, so a stack that only passes through tracing code keeps it. */
#ifndef STACKSCOPE_LANG_KSTACK_H
#define STACKSCOPE_LANG_KSTACK_H
#include <stdbool.h>
#include <stddef.h>
#include "lang/output.h"

/* Whether a kernel function is part of the machinery that runs BPF
 * programs on tracepoints, perf events and probes. */
bool lang_kstack_tracer_func(const char *name);

/* How many innermost frames of fr[0..n) (innermost first, names from
 * kallsyms, NULL when unknown) are the tracer's own. */
size_t lang_kstack_tracer_prefix(const struct lang_frame *fr, size_t n);

/* A map's elements whose keys hold a stack and print the same made one,
 * in place, the first one's place kept: two stack ids of the kernel whose
 * stacks differ only in frames left out above or cut by kstack(N) are
 * one key, as they are in bpftrace (which gives kstack(N) its own stack
 * map of depth N).  Values combine as their aggregation does: count and
 * sum add, min and max keep theirs, avg and stats add counts and sums,
 * hist and lhist add bucket by bucket (into the first element's
 * buckets), a plain integer keeps the largest.  Returns the number of
 * elements left (n when out of memory: nothing merged). */
size_t lang_stack_keys_merge(struct lang_map_entry *ents, size_t n);

#endif
