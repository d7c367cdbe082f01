/* Turning captured instruction pointers into frame names.
 *
 * Kernel frames come from kallsyms; user frames from the symbol table of
 * the file mapped at the address in that process's address space (gen)
 * (proctab + symcache).  Every frame gets a name: "func", or
 * "[module+0xOFFSET]" when no symbol covers it, or "[unknown]" when no
 * mapping does; the last two are counted as unsymbolized. */
#ifndef STACKSCOPE_SYM_SYMBOLIZE_H
#define STACKSCOPE_SYM_SYMBOLIZE_H
#include <stdint.h>
#include "stacks/frame.h"
#include "sym/ksyms.h"
#include "sym/proctab.h"
#include "sym/srcline.h"

#define SYM_KERNEL_OFFSETS 0x1	/* "func+0x1c" for kernel frames */
/* Set in a user pc that is a signal trampoline (the frame that returns
 * from a signal handler to the interrupted code), as the unwinder finds
 * them: named "[signal]" when no symbol covers it. */
#define SYM_IP_SIGNAL (1ULL << 63)

struct sym_stats {
	uint64_t frames;	/* frames named */
	uint64_t unsymbolized;	/* of which without a symbol */
	uint64_t tracer_dropped;/* tracer frames removed from kernel stacks */
	uint64_t inlined;	/* inlined frames added (symbolize_user_src) */
	uint64_t jit;		/* named by a perf map (sym/perfmap.h) */
};

struct symbolizer;
/* ks may be NULL (kernel frames then all "[unknown]"); pt and sc are
 * borrowed (sc is shared with the unwinder: one open per binary). */
struct symbolizer *symbolizer_new(struct proctab *pt, struct symcache *sc,
				  const struct ksyms *ks, unsigned int flags);
void symbolizer_free(struct symbolizer *s);

/* ips innermost first; out gets frames outermost first: name, kind,
 * address, module and offset (stacks/frame.h).  Names and modules are
 * the symbolizer's own (copies), valid until symbolizer_free(), whatever
 * symcache evicts meanwhile.  Returns the number written (<= n).  A
 * kernel stack loses its tracer frames (ksym_is_tracer()) and everything
 * inner to the outermost of them. */
int symbolize_kernel(struct symbolizer *s, const uint64_t *ips, int n, struct frame *out);
int symbolize_user(struct symbolizer *s, uint32_t pid, uint64_t gen,
		   const uint64_t *ips, int n, struct frame *out);
/* The same, with source lines and inlined functions from DWARF
 * (sym/srcline.h): each frame's src, and after a frame whose code DWARF
 * says has functions inlined in it, a frame for each (outermost first,
 * src->inlined set, the same address, module and offset), as long as
 * out has room: at most max frames in all, every ip keeping its own.
 * Frames without a symbol get no DWARF look-up.  Returns the number
 * written. */
int symbolize_user_src(struct symbolizer *s, uint32_t pid, uint64_t gen,
		       const uint64_t *ips, int n, struct frame *out, int max);
const struct sym_stats *symbolizer_stats(const struct symbolizer *s);
/* Source lines from m (borrowed; it outlives the symbolizer and its
 * caches: sym/srcline.h) instead of a map of the symbolizer's own. */
void symbolizer_use_srcmap(struct symbolizer *s, struct srcmap *m);
/* What DWARF look-ups found; NULL before the first. */
const struct srcline_stats *symbolizer_src_stats(const struct symbolizer *s);
/* User addresses named and cached (each costs a hash look-up when met
 * again, not a mapping, symbol and module look-up). */
size_t symbolizer_addresses(const struct symbolizer *s);
/* Distinct binaries whose symbols were loaded. */
size_t symbolizer_binaries(const struct symbolizer *s);

#endif
