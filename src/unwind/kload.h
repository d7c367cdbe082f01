/* The user side of in-kernel unwinding (bpf/kunwind.bpf.h): loads the
 * unwind tables of the binaries a process has mapped into the BPF row
 * array, each binary's rows once, and the process's executable mappings
 * (from /proc/PID/maps, for the address space the BPF side's `gens`
 * names) into its `unwind_procs` entry, when the BPF side asks
 * (a `kunwind_miss` record: a sample of a process not loaded, or at a pc
 * outside its loaded mappings: a library mapped since). */
#ifndef STACKSCOPE_UNWIND_KLOAD_H
#define STACKSCOPE_UNWIND_KLOAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct unwinder;

struct kload_opts {
	struct unwinder *uw;	/* whose tables (one per binary) are loaded */
	int rows_fd;		/* `unwind_rows` */
	uint32_t rows;		/* its capacity */
	int procs_fd;		/* `unwind_procs` */
	int gens_fd;		/* `gens` (bpf/procs.h) */
};

struct kload_stats {
	uint64_t requests;	/* kunwind_miss records read */
	uint64_t request_bytes;	/* ... the ring-buffer bytes they took */
	uint64_t loads;		/* process entries written */
	uint64_t evicted;	/* entries deleted to make room (`unwind_procs` full) */
	uint64_t stale;		/* misses for an address space gone by the time read */
	uint64_t failed;	/* processes that could not be read (exited) */
	uint64_t binaries;	/* binaries whose rows were placed */
	uint64_t rows;		/* rows placed */
	uint64_t no_table;	/* binaries without a usable table: frame pointers */
	uint64_t over_capacity;	/* binaries whose rows did not fit: snapshots */
	uint64_t over_maps;	/* processes with more executable mappings than an
				 * entry holds (the rest by frame pointer) */
};

/* One executable mapping of /proc/PID/maps. */
struct kload_vma {
	uint64_t start, end, pgoff;
	uint64_t dev, ino;
	char path[256];		/* "" for anonymous memory */
};

struct kload;
struct kload *kload_new(const struct kload_opts *o);
void kload_free(struct kload *k);
/* A kunwind_miss record from the ring (libbpf's callback shape). */
int kload_on_miss(void *ctx, void *data, size_t size);
/* Loads pid's address space gen (done again after a miss at a pc outside
 * its mappings).  0, or -errno (-ESTALE: gen is no longer the process's). */
int kload_process(struct kload *k, uint32_t pid, uint64_t gen, bool unmapped);
const struct kload_stats *kload_stats(const struct kload *k);
/* The row capacity it fills. */
uint32_t kload_rows(const struct kload *k);

/* The executable mappings of /proc/PID/maps text, in its order (sorted),
 * at most max; returns how many (lines that do not parse are skipped). */
int kload_parse_maps(FILE *f, struct kload_vma *out, int max);
/* The load bias of a mapping of a file at file offset pgoff, from its
 * PT_LOAD segments (offset, vaddr, filesz triples): start - bias is the
 * file's virtual address of start.  0 or -ERANGE (no segment holds it). */
struct kload_seg {
	uint64_t offset, vaddr, filesz;
};
int kload_bias(const struct kload_seg *segs, int nsegs, uint64_t start, uint64_t pgoff,
	       uint64_t *bias);

#endif
