/* The address spaces of the processes a run has seen, kept so that a
 * process that exited before the report is still symbolized.
 *
 * Each process has a list of address spaces, one per exec ("generation");
 * the BPF side tags every sample with the same count of execs, so a
 * sample taken before an exec is resolved against the mappings of that
 * time.  Mappings come from perf's MMAP2 side-band records (applied in
 * time order), from the parent at fork, and from /proc/PID/maps for
 * processes that existed before the run. */
#ifndef STACKSCOPE_SYM_PROCTAB_H
#define STACKSCOPE_SYM_PROCTAB_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "sym/symcache.h"

/* One executable mapping of a file (or "[vdso]"). */
struct mapping {
	uint64_t start, end;	/* virtual addresses [start, end) */
	uint64_t pgoff;		/* file offset of start */
	struct binary_id id;	/* which file, as the kernel saw it at mmap */
	const char *path;	/* pooled, owned by the proctab */
};

struct proctab;
struct proctab *proctab_new(void);
void proctab_free(struct proctab *pt);

/* Side-band events, in time order within a batch; time is the record's
 * timestamp (any monotonic clock, 0 = unknown).  Batches are applied as
 * they are read, so a fork can arrive after its child's first records
 * (read from another CPU's buffer): a fork older than what the child
 * already has is ignored. */
int proctab_mmap(struct proctab *pt, uint32_t pid, const struct mapping *m, uint64_t time);
int proctab_exec(struct proctab *pt, uint32_t pid, uint64_t time);
int proctab_fork(struct proctab *pt, uint32_t ppid, uint32_t pid, uint64_t time);

/* Adds the executable mappings of the /proc/PID/maps text read from f
 * to pid's current generation (what proctab_load_proc reads). */
int proctab_load_maps(struct proctab *pt, uint32_t pid, FILE *f);
/* Reads /proc/PID/maps into the process's current address space (only
 * while no exec has been seen for it).  Returns 0 or -errno (-ESRCH: gone). */
int proctab_load_proc(struct proctab *pt, uint32_t pid);
/* The same for every process on the system; returns how many loaded. */
int proctab_load_all(struct proctab *pt);

/* The mapping covering addr in generation gen of pid (the newest mapping
 * wins where they overlap), or NULL.  A process seen only through /proc
 * is read from /proc on first use. */
const struct mapping *proctab_find(struct proctab *pt, uint32_t pid, uint32_t gen, uint64_t addr);
size_t proctab_count(const struct proctab *pt);

#endif
