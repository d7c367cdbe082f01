/* One elfsyms per distinct binary, shared by every process that maps it,
 * keyed by build id when known, else by device and inode. */
#ifndef SYM_SYMCACHE_H
#define SYM_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "sym/elfsyms.h"

/* What identifies a mapped binary, as far as it is known. */
struct binary_id {
	unsigned char build_id[20];
	unsigned int build_id_len;	/* 0 = unknown */
	uint64_t dev;			/* makedev(major, minor); 0/0 = unknown */
	uint64_t ino;
};

struct symcache;

struct symcache *symcache_new(void);
/* The symbols of the binary id names, opened from path, else alt_path
 * (may be NULL; e.g. "/proc/PID/map_files/START-END").  The file opened
 * must be that binary: its build id equals id's when id has one, else its
 * st_dev/st_ino equal id's when known.  NULL with errno ESTALE when only a
 * different file was found, else the open/parse error; failures are
 * cached too.  With nothing known in id (or id NULL) the file is keyed by
 * its own device and inode and cannot be verified.  Not thread-safe. */
const struct elfsyms *symcache_get(struct symcache *sc, const char *path,
				   const char *alt_path, const struct binary_id *id);
/* Distinct binaries loaded (failures not counted). */
size_t symcache_count(const struct symcache *sc);
void symcache_free(struct symcache *sc);

#endif
