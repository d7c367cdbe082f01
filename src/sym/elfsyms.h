/* The function symbols of one ELF binary (executable or shared library),
 * looked up by file offset, so that one table serves every process that
 * maps the binary, wherever it is loaded. */
#ifndef SYM_ELFSYMS_H
#define SYM_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsyms;

/* The most a binary's table holds (a file with more is read up to there,
 * said once): about 30 MiB at most per binary. */
#define ELFSYMS_MAX_SYMS 250000u
#define ELFSYMS_MAX_NAME_BYTES (16u << 20)

/* Reads .symtab (or, when stripped, the .symtab of a separate debug file
 * found by build id or .gnu_debuglink) and .dynsym, the PT_LOAD headers
 * and the GNU build id.  An entry point no symbol covers (ld.so's, a
 * stripped executable's) is named "_start", a name only (not func).
 * NULL with errno set: EINVAL for something that
 * is not a regular file or not a well-formed ELF file, else the error of
 * open(). */
struct elfsyms *elfsyms_open(const char *path);
/* Same from an open file; fd is not closed nor kept.  name is what
 * elfsyms_name() returns and where .gnu_debuglink files are looked for. */
struct elfsyms *elfsyms_open_fd(int fd, const char *name);
const char *elfsyms_name(const struct elfsyms *es);
/* The GNU build id (NULL and *len 0 when the binary has none). */
const unsigned char *elfsyms_build_id(const struct elfsyms *es, size_t *len);
/* Name of the symbol covering the address that file offset off is loaded
 * at, with *sym_off (may be NULL) set to off's distance from the symbol's
 * start; NULL when no symbol covers it or off is outside every PT_LOAD. */
const char *elfsyms_lookup(const struct elfsyms *es, uint64_t off, uint64_t *sym_off);
/* Converts a file offset to the virtual address it is loaded at (0 and
 * -ERANGE when off is outside every PT_LOAD). */
int elfsyms_off_to_vaddr(const struct elfsyms *es, uint64_t off, uint64_t *vaddr);
/* Converts a link-time virtual address to the file offset it is loaded
 * from (what a uprobe is placed by); -ERANGE outside every PT_LOAD. */
int elfsyms_vaddr_to_off(const struct elfsyms *es, uint64_t vaddr, uint64_t *off);
size_t elfsyms_count(const struct elfsyms *es);

/* Symbol i (0 <= i < elfsyms_count()) in address order, one per address
 * (the best of its aliases). */
struct elfsym_info {
	const char *name;	/* owned by es */
	uint64_t addr;		/* link-time virtual address */
	uint64_t size;
	bool func;		/* an STT_FUNC with a size (not @plt, not an ifunc) */
};
int elfsyms_symbol(const struct elfsyms *es, size_t i, struct elfsym_info *out);
/* The file st describes (fstat) is the one es was read from: same device
 * and inode.  What a second reader of elfsyms_name() checks before
 * trusting that the name still leads to the same file. */
struct stat;
bool elfsyms_same_file(const struct elfsyms *es, const struct stat *st);
/* Nonzero when the symbols came from a separate debug file. */
int elfsyms_from_debug_file(const struct elfsyms *es);
/* Heap bytes es holds (symbols, names, loads). */
size_t elfsyms_bytes(const struct elfsyms *es);
void elfsyms_free(struct elfsyms *es);

/* Root of the separate debug file tree (default "/usr/lib/debug"; NULL
 * restores it): ROOT/.build-id/xx/rest.debug and ROOT/DIR/debuglink.
 * Process-wide; set it before opening binaries. */
void elfsyms_set_debug_root(const char *dir);

#endif
