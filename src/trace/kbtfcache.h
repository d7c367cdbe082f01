/* The small kernel BTFs (trace/kbtf.h) kept from one run to the next.
 *
 * Making one walks the kernel's whole BTF (5.5 MB here): 8-9 ms of every
 * start, on the critical path of a short command's run.  The result
 * depends on nothing but the running kernel and the BPF object, so it is
 * kept in a file named after both: the kernel's build id (with the size
 * of its BTF) and a hash of the object's ELF image, as stackscope embeds
 * it.  A new kernel or a new stackscope names another file; the one it
 * replaces for that object is removed.
 *
 * The directory is /var/cache/stackscope, or STACKSCOPE_CACHE_DIR (set
 * empty: no cache).  It is made 0700 where missing, and used only when
 * every component of its path is a directory, not a symbolic link, and it
 * is owned by the user running stackscope and writable by no one else;
 * so is every file read from it, whose BTF is parsed whole before it is
 * used.  A file that fails any of these is made again; a directory that
 * fails is not used (said under -v). */
#ifndef STACKSCOPE_TRACE_KBTFCACHE_H
#define STACKSCOPE_TRACE_KBTFCACHE_H
#include <stddef.h>

#define KBTF_VMLINUX "/sys/kernel/btf/vmlinux"	/* the kernel's whole BTF */
#define KBTF_CACHE_DIR "/var/cache/stackscope"
#define KBTF_CACHE_ENV "STACKSCOPE_CACHE_DIR"

struct kbtf_cache {
	int dirfd;		/* -1: no cache */
	char name[96];		/* the file for this kernel and object */
	char prefix[32];	/* "OBJECT-": the object's files */
	char why[160];		/* why there is none, for -v */
};

/* The cache's file for object (a short name: "profile") with ELF image
 * elf, in the running kernel; c->dirfd -1 (c->why says why) where there
 * is no cache.  0 or -errno. */
int kbtf_cache_open(struct kbtf_cache *c, const char *object, const void *elf, size_t elf_size);
/* The cached small BTF, checked and parsed, written to fd (a fresh
 * memfd); its number of types, or -errno (-ENOENT: none kept). */
int kbtf_cache_read(struct kbtf_cache *c, int fd);
/* Keeps the small BTF held by fd (bytes [0, size)) under c's name,
 * replacing the object's others.  0 or -errno. */
int kbtf_cache_write(struct kbtf_cache *c, int fd, size_t size);
void kbtf_cache_close(struct kbtf_cache *c);

/* The running kernel's build id (from /sys/kernel/notes) into id; its
 * length, or -errno.  notes: another file, for the tests. */
int kbtf_kernel_build_id(const char *notes, unsigned char *id, size_t max);

#endif
