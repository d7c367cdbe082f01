/* User-stack unwinding in user space, from the registers and a copy of
 * the top of the stack taken at a sample.
 *
 * Each frame is unwound with the call-frame table of the binary its pc
 * is in (unwind/table.h: .eh_frame, .debug_frame, .sframe), or by the
 * frame-pointer chain where no table covers it (mode auto), so binaries
 * built without frame pointers, libc included, give their true chain.
 * A chain that cannot be completed (stack copy too short, no rule, a
 * corrupt frame) is reported as truncated, never silently shortened.
 * Code no file maps (a JIT's) is stepped by frame pointer; a return
 * address there is kept only when that step reaches a mapped pc, else
 * it was no return address (a stale word above a new thread's first
 * frame) and the chain ends before it, truncated (bpf/kunwind.bpf.h
 * walks by the same rule).
 * Results are cached by the registers and the stack words the walk read:
 * snapshots identical in everything the unwinding looks at are unwound
 * once. */
#ifndef STACKSCOPE_UNWIND_UNWIND_H
#define STACKSCOPE_UNWIND_UNWIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sym/proctab.h"
#include "sym/symcache.h"

#define UNWIND_MAX_DEPTH 512

enum unwind_mode {
	UNWIND_AUTO,	/* tables where the binary has them, frame pointers elsewhere */
	UNWIND_FP,	/* frame pointers only */
	UNWIND_TABLES,	/* tables only (code no file maps, JIT's, has none:
			 * a frame-pointer step there) */
	UNWIND_KERNEL,	/* as auto, walked inside the kernel (bpf/kunwind.bpf.h);
			 * here only the stacks of processes not loaded yet */
};

struct unwind_regs {
	uint64_t ip, sp, bp;
};

struct unwind_stats {
	uint64_t stacks;	/* unwound (cache misses) */
	uint64_t cache_hits;	/* snapshots answered from the cache */
	uint64_t frames;
	uint64_t truncated;	/* chains not completed */
	uint64_t fp_frames;	/* frames stepped by frame pointer */
	uint64_t jit_frames;	/* ... of which in code no file maps (JIT) */
	uint64_t tables;	/* binaries whose table was built */
	uint64_t no_table;	/* binaries without usable call-frame info */
	uint64_t build_ns;	/* CPU time spent building tables */
	uint64_t row_hits;	/* rows answered from the unwinder's copies */
	uint64_t deferred_frames;	/* frames stepped without their binary's table,
					 * not built yet (unwinder_defer_tables()) */
	uint64_t deferred_stacks;	/* stacks with such a frame */
};

struct unwinder;
/* pt and sc are borrowed. */
struct unwinder *unwinder_new(struct proctab *pt, struct symcache *sc, enum unwind_mode mode);
void unwinder_free(struct unwinder *u);

/* Unwinds a snapshot of `size` bytes copied from regs->sp.  Writes up to
 * max pcs into ips, innermost first (ips[0] = regs->ip), a signal
 * trampoline's with SYM_IP_SIGNAL (sym/symbolize.h) set; sets *truncated
 * when the chain did not end at its outermost frame.  Returns the count.
 * The result is valid until the next call. */
int unwind_stack(struct unwinder *u, uint32_t pid, uint64_t gen,
		 const struct unwind_regs *regs, const void *stack, size_t size,
		 uint64_t *ips, int max, bool *truncated);
const struct unwind_stats *unwinder_stats(const struct unwinder *u);
/* Long runs on a machine that starts big binaries all the time: a table
 * is built when a walk first needs it if the binary's executable mapping
 * is under 4 MiB, else once walks have gone through it once per MiB of
 * that mapping (a binary sampled once is not worth a second of building);
 * until then its frames are stepped as where no table covers them (by
 * frame pointer in auto mode), counted in deferred_frames/_stacks, and
 * never cached.  0 or -ENOMEM. */
int unwinder_defer_tables(struct unwinder *u);

/* The rows kept from tables forgotten: after binaries were evicted from
 * the symbol cache (a file seen again is read again, tables included). */
void unwinder_forget_rows(struct unwinder *u);

/* The call-frame table of the file mapped at [start, end) in pid (path as
 * the mapping names it, id its device and inode), one per binary for
 * every reader: built on first use and kept by the symbol cache with the
 * binary's symbols (sym/symcache.h), so the in-kernel unwinder's loader
 * (unwind/kload.c) and this unwinder build it once between them.  NULL
 * when the file cannot be opened as that binary or has no usable table;
 * *es (may be NULL) gets the binary's symbols.  Valid until the symbol
 * cache's next sweep. */
const struct unwind_table *unwinder_table(struct unwinder *u, uint32_t pid, const char *path,
					  uint64_t start, uint64_t end,
					  const struct binary_id *id, const struct elfsyms **es);
/* The table of stackscope's own vDSO image (every process maps the same
 * one), built once; NULL when it has none. */
const struct unwind_table *unwinder_vdso_table(struct unwinder *u);

/* "auto", "fp", "tables", "kernel" -> mode; -EINVAL otherwise. */
int unwind_mode_parse(const char *s, enum unwind_mode *mode);

#endif
