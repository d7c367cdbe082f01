/* Which user functions a run probes: --func / --notrace globs over the
 * function symbols of the executable and of the shared libraries named
 * with a "LIB:" prefix, resolved to the file offsets uprobes are placed
 * at.  "kernel:" patterns are only collected (see cmd/graph.c). */
#ifndef STACKSCOPE_SYM_FUNCSEL_H
#define STACKSCOPE_SYM_FUNCSEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sym/elfsyms.h"

/* At most this many functions are probed in one run (each costs two or
 * three uprobes, file descriptors and an int3 per call). */
#define FUNCSEL_MAX 1000

struct funcsel_module {
	char *path;		/* the file uprobes are placed in */
	char *label;		/* what a pattern names it by: "libc.so.6" */
	struct elfsyms *es;
};

struct funcsel_func {
	size_t module;		/* index in mods */
	const char *name;	/* owned by the module's elfsyms */
	uint64_t addr;		/* link-time virtual address */
	uint64_t off;		/* file offset of the function's start */
	uint64_t size;		/* bytes, from the symbol */
	uint64_t probe_off;	/* file offset of the entry and return probes: off,
				 * or the 5-byte nop the function begins with */
	bool nop5;		/* probe_off is that nop (the kernel's fast path) */
};

struct funcsel {
	struct funcsel_module *mods;	/* mods[0]: the executable */
	size_t nmods;
	struct funcsel_func *funcs;	/* by module, then address */
	size_t nfuncs;
	char **kernel;			/* "kernel:" patterns, not owned */
	size_t nkernel;
};

/* Resolves the patterns against exe (the launched command's file, or
 * /proc/PID/exe) and, for "LIB:" patterns, the libraries of pid (from
 * /proc/PID/maps) or, when pid is 0, the ones exe is linked with
 * (DT_NEEDED through its RUNPATH, LD_LIBRARY_PATH and the standard
 * directories).  Every problem is said (msg) once: -ENOENT for a pattern
 * that matches nothing or a library not found, -E2BIG over FUNCSEL_MAX.
 * A function whose start no FDE or DWARF subprogram confirms as an
 * instruction boundary is left out with a message, unless unsafe. */
int funcsel_resolve(struct funcsel *fs, const char *exe, pid_t pid, char **funcs, int nfuncs,
		    char **notrace, int nnotrace, bool unsafe);
void funcsel_free(struct funcsel *fs);

/* Where in the n bytes of code a function begins with (its first bytes,
 * from the file) a 5-byte nop sits that a uprobe can be placed on: 0 for
 * a nop first (gcc -pg -mfentry -mnop-mcount, clang
 * -fpatchable-function-entry=5), 4 for endbr64 then the nop (the same
 * with -fcf-protection); -1 when there is none.  A uprobe on such a nop
 * becomes a call into a trampoline on kernels with optimized uprobes
 * (x86-64, 6.18) instead of a trap; the argument registers and the stack
 * pointer there are those of the function's first instruction. */
int funcsel_entry_nop5(const uint8_t *code, size_t n);

/* A library file answering to name: "libc" is libc.so.6 or libc-2.31.so
 * (the name, then '.' or '-'); a name with a '/' is the path itself. */
bool funcsel_lib_matches(const char *path, const char *name);
/* The first file of pid's mappings answering to name, into out[size];
 * -ENOENT, or -errno reading /proc/PID/maps. */
int funcsel_lib_from_maps(pid_t pid, const char *name, char *out, size_t size);

#endif
