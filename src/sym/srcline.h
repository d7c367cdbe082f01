/* Source lines and inlined functions from the binaries' DWARF: for a
 * code address, the chain of functions whose code is there, innermost
 * inlined first, each with its source file and line, as perf, addr2line
 * -i and pprof show them.
 *
 * Looked up once per (module, file offset) and cached; one DWARF open
 * per module, kept for the map's life (libdw's line tables and CU
 * indexes are built on first use).  Bounded: SRCLINE_MAX_LEVELS levels
 * per address (deeper inlining is cut at the inner end: its code counts
 * on the call site that is kept), SRCLINE_MAX_ADDRS cached addresses,
 * and SRCLINE_BUDGET_NS of time spent in DWARF in all (a distribution's
 * debug files are compressed, and every new compile unit's line table
 * and DIEs are read): addresses past either get no chain, and are
 * counted. */
#ifndef STACKSCOPE_SYM_SRCLINE_H
#define STACKSCOPE_SYM_SRCLINE_H
#include <stdint.h>
#include "stacks/frame.h"

#define SRCLINE_MAX_LEVELS 16
#define SRCLINE_MAX_ADDRS (1u << 18)
#define SRCLINE_BUDGET_NS 1000000000ULL

/* One function of a chain.  func: its name as DWARF has it (a C++
 * linkage name demangled), NULL when DWARF names none; src: the source
 * line in it (file NULL, line 0 when unknown), inlined set for every
 * level but the last. */
struct srcline_level {
	const char *func;
	struct frame_src src;
};

/* lv[0]: the innermost inlined function, at the address's own line;
 * lv[n - 1]: the function the code was compiled in, at the line of the
 * call lv[n - 2] was inlined from (with n == 1: the address's line). */
struct srcline_chain {
	unsigned int n;
	struct srcline_level lv[];
};

struct srcline_stats {
	uint64_t lookups;	/* distinct (module, offset) looked up */
	uint64_t found;		/* ... with a chain */
	uint64_t binaries;	/* modules whose DWARF was opened */
	uint64_t no_dwarf;	/* modules without (or not the file the process mapped) */
	uint64_t over_limit;	/* look-ups past SRCLINE_MAX_ADDRS or the time
				 * budget, not done */
	uint64_t ns;		/* time spent in DWARF */
	uint64_t evicted;	/* modules freed by srcmap_trim() */
};

struct srcmap;

struct srcmap *srcmap_new(void);
void srcmap_free(struct srcmap *m);

/* The chain at file offset off of mod (interned by the caller: one
 * pointer per module), whose file is opened from mod->path, else from
 * alt_path (may be NULL; "/proc/PID/map_files/START-END"), and used only
 * when its build id equals mod's (when mod has one).  NULL when DWARF
 * says nothing of off.  Valid until srcmap_free(). */
const struct srcline_chain *srcmap_lookup(struct srcmap *m, const struct frame_module *mod,
					  const char *alt_path, uint64_t off);
const struct srcline_stats *srcmap_stats(const struct srcmap *m);
/* Bounded long runs: frees the modules (their DWARF, their cached
 * addresses) not asked for in the last idle calls; chains they gave are
 * void.  Returns how many. */
size_t srcmap_trim(struct srcmap *m, uint64_t idle);

#endif
