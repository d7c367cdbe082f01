/* Kernel symbols: the text symbols of vmlinux, of loaded modules and of
 * JIT-compiled BPF programs, from the running kernel address by address
 * (ksyms_kernel()) or from a kallsyms file read whole (ksyms_load()). */
#ifndef SYM_KSYMS_H
#define SYM_KSYMS_H

/* One kernel text symbol.  name and module point into the owning ksyms
 * and live as long as it does. */
struct ksym {
	unsigned long addr;
	const char *name;
	const char *module;	/* NULL for vmlinux, "ext4" for [ext4], "bpf" */
};

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* The running kernel's symbols, named by the kernel as they are looked
 * up (a BPF program run on demand: no reading of all of /proc/kallsyms);
 * where that program cannot be loaded or run, /proc/kallsyms read whole,
 * as ksyms_load(NULL), with its errors. */
struct ksyms *ksyms_kernel(void);
/* Names the addresses ksyms_find() will be asked about next in as few
 * runs of the program as it takes (nothing for a file's ksyms). */
void ksyms_want(const struct ksyms *ks, const uint64_t *ips, size_t n);
/* How many times ksyms_kernel()'s program ran (0 for a file). */
unsigned long ksyms_asked(const struct ksyms *ks);
/* One "%pS" text of the kernel for the address ip: "name+0xOFF/0xSIZE"
 * and " [module]" when in one; fills k (name in name[size], module in
 * module[msize]).  -ENOENT for a bare address (no symbol). */
int ksym_parse_text(const char *text, unsigned long ip, struct ksym *k, char *name, size_t size,
		    char *module, size_t msize);

/* Loads the text symbols (t T w W) of path, NULL meaning "/proc/kallsyms".
 * NULL with errno EPERM when every address reads as 0 (kptr_restrict, not
 * root); EINVAL when the file holds no text symbol at all. */
struct ksyms *ksyms_load(const char *path);
/* The symbol with the greatest address <= addr; NULL below the first
 * (ksyms_kernel(): the kernel's symbol holding addr, NULL for none). */
const struct ksym *ksyms_find(const struct ksyms *ks, unsigned long addr);
/* Number of symbols kept (aliases at one address count once); for
 * ksyms_kernel(), the addresses named so far. */
unsigned long ksyms_count(const struct ksyms *ks);
void ksyms_free(struct ksyms *ks);

/* Nonzero for frames of the tracing machinery itself (BPF programs, the
 * tracepoint and perf-event overflow path, the stack walkers) that must
 * never appear in a reported kernel stack. */
int ksym_is_tracer(const char *name);

#endif
