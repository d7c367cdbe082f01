/* Kernel symbols from /proc/kallsyms: the text symbols of vmlinux, of
 * loaded modules and of JIT-compiled BPF programs, sorted by address. */
#ifndef SYM_KSYMS_H
#define SYM_KSYMS_H

/* One kernel text symbol.  name and module point into the owning ksyms
 * and live as long as it does. */
struct ksym {
	unsigned long addr;
	const char *name;
	const char *module;	/* NULL for vmlinux, "ext4" for [ext4], "bpf" */
};

struct ksyms;

/* Loads the text symbols (t T w W) of path, NULL meaning "/proc/kallsyms".
 * NULL with errno EPERM when every address reads as 0 (kptr_restrict, not
 * root); EINVAL when the file holds no text symbol at all. */
struct ksyms *ksyms_load(const char *path);
/* The symbol with the greatest address <= addr; NULL below the first. */
const struct ksym *ksyms_find(const struct ksyms *ks, unsigned long addr);
/* Number of symbols kept (aliases at one address count once). */
unsigned long ksyms_count(const struct ksyms *ks);
void ksyms_free(struct ksyms *ks);

/* Nonzero for frames of the tracing machinery itself (BPF programs, the
 * tracepoint and perf-event overflow path, the stack walkers) that must
 * never appear in a reported kernel stack. */
int ksym_is_tracer(const char *name);

#endif
