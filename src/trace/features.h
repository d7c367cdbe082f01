/* What this kernel lets stackscope do, decided at run time by trying it
 * (a tiny program loaded and attached, then released), never by version.
 * Each answer is cached for the run.  These are what a command or a probe
 * provider asks before choosing an attach type, so a refusal becomes one
 * line and a fallback rather than a failure deep in a load. */
#ifndef STACKSCOPE_TRACE_FEATURES_H
#define STACKSCOPE_TRACE_FEATURES_H

enum feature {
	FEATURE_RINGBUF,	/* BPF_MAP_TYPE_RINGBUF */
	FEATURE_TP_BTF,		/* tp_btf programs (sched_switch tried) */
	FEATURE_FENTRY,		/* fentry on a kernel function */
	FEATURE_SLEEPABLE_UPROBE,	/* uprobe programs that may fault user memory in */
	FEATURE_UPROBE_MULTI,	/* many uprobes in one link (sleepable ones too) */
	FEATURE_BPF_LOOP,	/* the bpf_loop() helper (5.17) */
	FEATURE_RAW_TP_COOKIE,	/* raw tracepoints with a BPF cookie (6.10) */
	FEATURE_NR,
};

/* 0 when the kernel allows f, else -errno from the refusal (-EPERM,
 * -EOPNOTSUPP, -ENOENT without kernel BTF...). */
int feature_probe(enum feature f);
/* "fentry", "tp_btf", ... */
const char *feature_name(enum feature f);

/* fentry on one kernel function, named as in its BTF: 0 or -errno
 * (-ENOENT: no such function in the kernel's BTF). */
int feature_fentry_on(const char *func);

#endif
