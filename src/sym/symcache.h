/* One elfsyms per mapped file, shared by every process that maps it,
 * keyed by its device and inode: what the kernel mapped, never what the
 * file says about itself (its build id, which any user can forge: a copy
 * carrying another file's build id is another file here). */
#ifndef SYM_SYMCACHE_H
#define SYM_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/elfsyms.h"

/* What identifies a mapped binary, as far as it is known: the inode the
 * kernel mapped; a build id only checks the content. */
struct binary_id {
	unsigned char build_id[20];
	unsigned int build_id_len;	/* 0 = unknown */
	uint64_t dev;			/* makedev(major, minor); 0/0 = unknown */
	uint64_t ino;
};

struct symcache;

struct symcache *symcache_new(void);
/* The symbols of the file id names, opened from path, else alt_path
 * (may be NULL; e.g. "/proc/PID/map_files/START-END").  The file opened
 * must be that file: its st_dev/st_ino equal id's when known, and its
 * build id equals id's when id has one (a check of the content, never a
 * key).  NULL with errno ESTALE when only a different file was found,
 * else the open/parse error; failures are cached by inode too.  With no
 * inode in id (or id NULL) the file is keyed by its own device and inode
 * and cannot be verified.  Not thread-safe. */
const struct elfsyms *symcache_get(struct symcache *sc, const char *path,
				   const char *alt_path, const struct binary_id *id);
/* Distinct binaries loaded (failures not counted). */
size_t symcache_count(const struct symcache *sc);
void symcache_free(struct symcache *sc);

/* What another reader builds from a binary (the unwinder's call-frame
 * table) kept with it, freed with it when it is evicted: one per binary,
 * owned once set (free_fn(data) at eviction or symcache_free), bytes
 * counted in the budget.  symcache_aux(): NULL and *found false when
 * none was set (a NULL set is kept: "none could be built"). */
int symcache_set_aux(struct symcache *sc, const struct elfsyms *es, void *data,
		     void (*free_fn)(void *), size_t bytes);
void *symcache_aux(struct symcache *sc, const struct elfsyms *es, bool *found);

/* Eviction (bounded long runs).  Time is counted in sweeps (epochs).
 * Between two sweeps the owner marks the binaries some kept process
 * maps (symcache_mark(), by the device and inode of its mappings);
 * symcache_sweep() then frees the binaries (with their aux) that nothing
 * marked and nothing asked for (symcache_get) since the last sweep:
 * those idle for SYMCACHE_IDLE_SWEEPS sweeps, and then, least recently
 * used first, as many as it takes to bring the unmarked ones' bytes
 * under budget.  Marked or used ones are never evicted: pointers into
 * them (names, tables) may be held until the next sweep, and no other.
 * Returns the number evicted. */
#define SYMCACHE_IDLE_SWEEPS 6
#define SYMCACHE_BUDGET (64u << 20)	/* bytes of binaries no kept process maps */
void symcache_mark(struct symcache *sc, uint64_t dev, uint64_t ino);
size_t symcache_sweep(struct symcache *sc, size_t budget);

struct symcache_stats {
	size_t entries;		/* binaries held (failures included) */
	size_t bytes;		/* their symbols' and aux's heap bytes */
	size_t peak_bytes;
	uint64_t evicted;	/* entries freed by sweeps so far */
	uint64_t evicted_bytes;
	uint64_t sweeps;
};
void symcache_stats(const struct symcache *sc, struct symcache_stats *out);

#endif
