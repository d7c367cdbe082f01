/* The address spaces of the processes a run has seen, kept so that a
 * process that exited before the report is still symbolized, and one
 * whose pid was reused is symbolized as itself.
 *
 * Each pid has a list of address spaces, one per fork or exec, each
 * named by the time it began (CLOCK_MONOTONIC ns, the side-band record's
 * time; 0 = before the run).  The BPF side tags every sample with the
 * time its process's address space began as it saw it ("gen", bpf/
 * procs.h), a little after the record's, so a sample is resolved against
 * the newest address space begun before its gen: the mappings it ran
 * under, whatever exec or new process came to the pid later.  Mappings
 * come from perf's MMAP2 side-band records, from the parent at fork, and
 * from /proc/PID/maps for processes that existed before the run. */
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
	uint64_t time;		/* of the mmap record; 0 = before the run */
	bool used;		/* a lookup found it (proctab_collect keeps it) */
};

struct proctab;
struct proctab *proctab_new(void);
void proctab_free(struct proctab *pt);

/* Side-band events; time is the record's timestamp (CLOCK_MONOTONIC ns,
 * as the BPF side's gens; 0 = unknown: the newest).  Batches are applied
 * as they are read, so a fork can arrive after its child's first records
 * (read from another CPU's buffer): an address space begun by a late
 * record takes the mappings made after it from the one before. */
int proctab_mmap(struct proctab *pt, uint32_t pid, const struct mapping *m, uint64_t time);
int proctab_exec(struct proctab *pt, uint32_t pid, uint64_t time);
int proctab_fork(struct proctab *pt, uint32_t ppid, uint32_t pid, uint64_t time);

/* When the BPF side began to see forks and execs: a sample with gen 0
 * (its process's address space began before) belongs to the newest
 * address space begun before this time.  Unset (0): to the newest. */
void proctab_set_traced_since(struct proctab *pt, uint64_t time);

/* Adds the executable mappings of the /proc/PID/maps text read from f
 * to pid's current generation (what proctab_load_proc reads). */
int proctab_load_maps(struct proctab *pt, uint32_t pid, FILE *f);
/* Reads /proc/PID/maps into the process's current address space (only
 * while no exec has been seen for it).  Returns 0 or -errno (-ESRCH: gone). */
int proctab_load_proc(struct proctab *pt, uint32_t pid);
/* The same for every process on the system; returns how many loaded. */
int proctab_load_all(struct proctab *pt);

/* The mapping covering addr in the address space of pid that gen names
 * (the newest begun before gen; the newest mapping wins where they
 * overlap), or NULL.  A process never seen in a record (records lost or
 * not read yet) is read from /proc on first use. */
const struct mapping *proctab_find(struct proctab *pt, uint32_t pid, uint64_t gen, uint64_t addr);
/* When the address space that gen names began (0: before the run): one
 * value for every sample of that address space, whatever its gen.  A gen
 * of begin + 1 names the same address space again. */
uint64_t proctab_space_begin(struct proctab *pt, uint32_t pid, uint64_t gen);
size_t proctab_count(const struct proctab *pt);
/* Some record or /proc read told of pid. */
bool proctab_known(struct proctab *pt, uint32_t pid);

/* Bounded long runs.  A process's exit record (proctab_exit) marks it;
 * with proctab_forget_unsampled() (every sample's user stack is looked up
 * here as it arrives, as profile's snapshots are), proctab_collect()
 * drops the exited processes none of whose address spaces a lookup ever
 * found, once two more collections (whole drains) have passed since the
 * exit (final: now, nothing more to read), and keeps of the others only
 * the mappings a lookup found: every address a sample will be named by
 * was looked up when it was unwound.  Returns how many dropped. */
void proctab_forget_unsampled(struct proctab *pt);
int proctab_exit(struct proctab *pt, uint32_t pid, uint64_t time);
size_t proctab_collect(struct proctab *pt, bool final);
/* proctab_collect() counts the collections since each exit in every mode
 * (what proctab_done() and proctab_release() go by); it drops processes
 * itself only in the two modes above.
 * Every sample read so far has been symbolized (a window was built; a
 * stream names each stack as it arrives): the exited processes whose last
 * records were read (two collections since the exit) are dropped, sampled
 * or not.  Returns how many.  With proctab_forget_exited() every
 * proctab_collect() does this too (streaming: nothing is named later). */
size_t proctab_release(struct proctab *pt);
/* Processes with no exit record that are gone (their exit record was
 * lost with the side-band's): marked exited now, as if it had just been
 * read.  Returns how many. */
size_t proctab_reap(struct proctab *pt);
/* pid's process exited and its last records were read (what
 * proctab_release() would drop now). */
bool proctab_done(struct proctab *pt, uint32_t pid);
void proctab_forget_exited(struct proctab *pt);
/* fn(ctx, mapping) for every mapping of every address space kept (what
 * the symbol cache keeps binaries for). */
void proctab_each_mapping(const struct proctab *pt,
			  void (*fn)(void *ctx, const struct mapping *m), void *ctx);
/* The path pool rebuilt with the paths still mapped, when it holds more
 * than twice as many as it did after the last rebuild: mapping paths
 * change (pointers from proctab_find() before are void).  Returns the
 * number of paths freed. */
size_t proctab_compact_paths(struct proctab *pt);
/* Processes kept, of which exited, and dropped so far. */
void proctab_stats(const struct proctab *pt, size_t *procs, size_t *exited, size_t *dropped);
/* The uid owning the process in that address space, noted from /proc/PID
 * when the address space began (or when read), or now if it is the newest
 * and still there.  0 or -ENOENT (unknown). */
int proctab_owner(struct proctab *pt, uint32_t pid, uint64_t gen, uint32_t *uid);

#endif
