/* One elfsyms per mapped file, shared by every process that maps it,
 * keyed by its device and inode: what the kernel mapped, never what the
 * file says about itself (its build id, which any user can forge: a copy
 * carrying another file's build id is another file here). */
#ifndef SYM_SYMCACHE_H
#define SYM_SYMCACHE_H

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

#endif
