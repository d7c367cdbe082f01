/* The `targets` filter shared by every BPF object that looks at some
 * processes only (bpf/procs.bpf.h) and the user side that fills it
 * (trace/session.c): tgid -> one of these. */
#ifndef STACKSCOPE_BPF_TARGETS_H
#define STACKSCOPE_BPF_TARGETS_H

#define TARGET_ON 1		/* traced */
#define TARGET_PRE_EXEC 2	/* a launched command held at its gate: traced from its execve on */

#endif
