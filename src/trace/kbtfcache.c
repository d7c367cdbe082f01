#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "hashtab.h"
#include "trace/kbtfcache.h"

#define NOTES "/sys/kernel/notes"
/* bumped whenever what a small BTF holds for the same kernel and object
 * changes (trace/kbtf.c) */
#define FORMAT 1
#define MAX_FILE (4UL << 20)	/* a small BTF is tens of KiB */
#define MAX_ENTRIES 4096	/* directory entries looked at, replacing */
#define NT_GNU_BUILD_ID 3

int kbtf_kernel_build_id(const char *notes, unsigned char *id, size_t max)
{
	unsigned char buf[4096];
	int fd = open(notes ? notes : NOTES, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -EIO;
	/* ELF notes: namesz, descsz, type, then name and desc, each padded
	 * to 4 bytes */
	for (size_t off = 0; off + 12 <= (size_t)n;) {
		uint32_t h[3];
		size_t name, desc;

		memcpy(h, buf + off, sizeof(h));
		name = ((size_t)h[0] + 3) & ~(size_t)3;
		desc = ((size_t)h[1] + 3) & ~(size_t)3;
		if (name > (size_t)n || desc > (size_t)n || off + 12 + name + desc > (size_t)n)
			break;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && !memcmp(buf + off + 12, "GNU", 4)) {
			if (!h[1] || h[1] > max)
				return -EINVAL;
			memcpy(id, buf + off + 12 + name, h[1]);
			return (int)h[1];
		}
		off += 12 + name + desc;
	}
	return -ENOENT;
}

/* The directory at path, every component followed without symbolic
 * links, the last made (0700) where missing; -errno, why said. */
static int open_dir(const char *path, char *why, size_t size)
{
	char copy[PATH_MAX];
	char *comp, *save = NULL, *next;
	struct stat st;
	int fd, sub;

	if (path[0] != '/' || strlen(path) >= sizeof(copy)) {
		snprintf(why, size, "%s: not an absolute path", path);
		return -EINVAL;
	}
	strcpy(copy, path);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (comp = strtok_r(copy, "/", &save); comp; comp = next) {
		next = strtok_r(NULL, "/", &save);
		sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && errno == ENOENT && !next) {
			if (mkdirat(fd, comp, 0700) && errno != EEXIST)
				goto fail;
			sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (sub < 0)
			goto fail;
		close(fd);
		fd = sub;
	}
	if (fstat(fd, &st))
		goto fail;
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, size, "%s: not used: owned by uid %u, mode %03o (needs uid %u, writable by no one else)",
			 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	return fd;
fail:
	snprintf(why, size, "%s: %s%s", path, strerror(errno),
		 errno == ELOOP || errno == ENOTDIR ? " (a symbolic link or not a directory on the way)"
						    : "");
	sub = -errno;
	close(fd);
	return sub;
}

int kbtf_cache_open(struct kbtf_cache *c, const char *object, const void *elf, size_t elf_size)
{
	const char *dir = getenv(KBTF_CACHE_ENV);
	unsigned char id[64];
	uint64_t key[4] = { FORMAT }, h[2];
	struct stat st;
	int n;

	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	if (dir && !*dir) {
		snprintf(c->why, sizeof(c->why), "%s is empty", KBTF_CACHE_ENV);
		return -ENOENT;
	}
	n = kbtf_kernel_build_id(NULL, id, sizeof(id));
	if (n < 0) {
		snprintf(c->why, sizeof(c->why), "no build id of the kernel in %s: %s", NOTES,
			 strerror(-n));
		return n;
	}
	if (stat(KBTF_VMLINUX, &st)) {
		n = -errno;
		snprintf(c->why, sizeof(c->why), "%s: %s", KBTF_VMLINUX, strerror(-n));
		return n;
	}
	key[1] = (uint64_t)st.st_size;
	key[2] = hash_block(id, (size_t)n, 1);
	key[3] = hash_block(elf, elf_size, 2);
	h[0] = hash_block(key, sizeof(key), 3);
	h[1] = hash_block(key, sizeof(key), 4) ^ hash_block(elf, elf_size, 5);
	snprintf(c->prefix, sizeof(c->prefix), "%.20s-", object);
	snprintf(c->name, sizeof(c->name), "%s%016" PRIx64 "%016" PRIx64 ".btf", c->prefix, h[0],
		 h[1]);
	c->dirfd = open_dir(dir ? dir : KBTF_CACHE_DIR, c->why, sizeof(c->why));
	return c->dirfd < 0 ? c->dirfd : 0;
}

int kbtf_cache_read(struct kbtf_cache *c, int fd)
{
	struct btf *btf;
	struct stat st;
	void *buf = NULL;
	int in, err;

	if (c->dirfd < 0)
		return -ENOENT;
	in = openat(c->dirfd, c->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -errno;
	err = -EINVAL;
	if (fstat(in, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size < 24 || (size_t)st.st_size > MAX_FILE)
		goto out;
	buf = malloc(st.st_size);
	err = -ENOMEM;
	if (!buf)
		goto out;
	err = -EIO;
	if (pread(in, buf, st.st_size, 0) != st.st_size)
		goto out;
	/* parsed whole, as libbpf will: a bad file is made again */
	btf = btf__new(buf, st.st_size);
	if (libbpf_get_error(btf)) {
		err = -EINVAL;
		goto out;
	}
	err = btf__type_cnt(btf) - 1;
	btf__free(btf);
	if (write_all(fd, buf, st.st_size))
		err = -EIO;
out:
	free(buf);
	close(in);
	return err;
}

/* The object's files other than c's (older kernels or stackscopes, and
 * temporaries left by a killed run): removed. */
static void remove_others(struct kbtf_cache *c)
{
	int dfd = dup(c->dirfd);
	size_t seen = 0;
	struct dirent *d;
	DIR *dir;

	if (dfd < 0)
		return;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return;
	}
	while ((d = readdir(dir)) && seen++ < MAX_ENTRIES)
		if (!strncmp(d->d_name, c->prefix, strlen(c->prefix)) && strcmp(d->d_name, c->name))
			unlinkat(c->dirfd, d->d_name, 0);
	closedir(dir);
}

int kbtf_cache_write(struct kbtf_cache *c, int fd, size_t size)
{
	char tmp[sizeof(c->name) + 24];
	void *buf;
	int out, err = 0;

	if (c->dirfd < 0)
		return -ENOENT;
	if (size > MAX_FILE)
		return -EFBIG;
	buf = malloc(size ? size : 1);
	if (!buf)
		return -ENOMEM;
	if (pread(fd, buf, size, 0) != (ssize_t)size) {
		free(buf);
		return -EIO;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", c->name, (int)getpid());
	out = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		free(buf);
		return -errno;
	}
	err = write_all(out, buf, size);
	if (close(out) && !err)
		err = -errno;
	free(buf);
	if (!err && renameat(c->dirfd, tmp, c->dirfd, c->name))
		err = -errno;
	if (err)
		unlinkat(c->dirfd, tmp, 0);
	else
		remove_others(c);
	return err;
}

void kbtf_cache_close(struct kbtf_cache *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
}
