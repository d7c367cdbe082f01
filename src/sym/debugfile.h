/* Separate debug files, found one way for every reader (elfsyms, dwfunc).
 *
 * The binary names its debug file (.gnu_debuglink) and the binary may
 * belong to anyone, while we run as root: a name is a base name only (no
 * '/', no "..") looked up in the binary's directory, its .debug/ and
 * ROOT/BINDIR/, and ROOT/.build-id/xx/rest.debug by build id (ROOT is
 * /usr/lib/debug).  Each path is walked from its root without following a
 * symlink; a candidate must be a regular file owned by root or by the
 * binary's owner, opened O_NONBLOCK so a FIFO cannot hang the run, and
 * carry the binary's build id (when both have one) or the link's CRC. */
#ifndef STACKSCOPE_SYM_DEBUGFILE_H
#define STACKSCOPE_SYM_DEBUGFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct debugref {
	const char *bin;		/* path of the binary */
	const unsigned char *build_id;	/* NULL/0: none */
	size_t build_id_len;
	const char *link;		/* .gnu_debuglink name; NULL: none */
	uint32_t crc;			/* its CRC */
	bool need_build_id;		/* a candidate must carry build_id */
};

/* Called with each acceptable candidate (fd, path); takes fd in every
 * case.  Returns 0 to stop the search with this file, <0 to go on. */
typedef int (*debugfile_accept_fn)(int fd, const char *path, void *arg);

/* Offers the candidates of ref to accept in order: build id, then the
 * link beside the binary, in .debug/, under ROOT.  0 once one is taken,
 * else -ENOENT. */
int debugfile_find(const struct debugref *ref, debugfile_accept_fn accept, void *arg);

/* dwz's alt file of bin's DWARF (bin: the file holding it, the binary or
 * its debug file), named by its .gnu_debugaltlink: name and the alt's
 * build id (required: a candidate must carry it).  Candidates: by build
 * id, then a plain base name as a debuglink's (beside bin, its .debug/,
 * ROOT/BINDIR/), or an absolute name below ROOT (Debian's
 * /usr/lib/debug/.dwz/...) walked as debugfile_open_beneath() walks.  A
 * name with "/" elsewhere is not followed.  0 once one is taken, else
 * -ENOENT. */
int debugfile_find_alt(const char *bin, const char *name, const void *build_id,
		       size_t build_id_len, debugfile_accept_fn accept, void *arg);

/* Opens rel below the directory root, following no symlink in rel: a
 * regular file owned by root or owner, O_NONBLOCK.  rel's components may
 * not be "." or "..".  Returns the fd or -errno. */
int debugfile_open_beneath(const char *root, const char *rel, uid_t owner);

/* What the compressed sections of an ELF file (SHF_COMPRESSED, or GNU
 * .zdebug_*) may inflate to in all, for a file of file_size bytes: a
 * forged ch_size would have libdw allocate and inflate gigabytes. */
#define DEBUGFILE_INFLATE_MAX (1ULL << 30)
#define DEBUGFILE_INFLATE_RATIO 64
#define DEBUGFILE_INFLATE_FLOOR (16ULL << 20)

/* 0 when the compressed sections of elf stay within the bound, else
 * -EFBIG with a message naming path and the section that passes it: the
 * caller then skips the file's DWARF.  Nothing is inflated. */
struct Elf;
int debugfile_inflate_check(struct Elf *elf, uint64_t file_size, const char *path);

/* ROOT (default "/usr/lib/debug"; NULL restores it). */
void debugfile_set_root(const char *dir);

#endif
