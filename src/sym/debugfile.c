/* Separate debug files: see debugfile.h for the rules. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <elfutils/libdwelf.h>
#include "common.h"
#include "sym/debugfile.h"

static char debug_root[PATH_MAX] = "/usr/lib/debug";

void debugfile_set_root(const char *dir)
{
	snprintf(debug_root, sizeof(debug_root), "%s", dir ? dir : "/usr/lib/debug");
}

int debugfile_open_beneath(const char *root, const char *rel, uid_t owner)
{
	char buf[PATH_MAX], *comp, *slash;
	struct stat st;
	int dfd, fd, err;

	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	/* the root itself is ours or the binary's directory: followed */
	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	comp = buf;
	while ((slash = strchr(comp, '/'))) {
		*slash = 0;
		if (*comp) {
			if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
				err = -EINVAL;
				goto close_dir;
			}
			fd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				err = -errno;
				goto close_dir;
			}
			close(dfd);
			dfd = fd;
		}
		comp = slash + 1;
	}
	if (!*comp || !strcmp(comp, ".") || !strcmp(comp, "..")) {
		err = -EINVAL;
		goto close_dir;
	}
	fd = openat(dfd, comp, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto close_dir;
	}
	err = -EINVAL;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (st.st_uid != 0 && st.st_uid != owner)
		err = -EPERM;
	else
		err = 0;
	if (err)
		close(fd);
	else
		err = fd;
close_dir:
	close(dfd);
	return err;
}

static int file_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t r;

	while ((r = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c = crc32(c, buf, (uInt)r);
		off += r;
	}
	*crc = (uint32_t)c;
	return 0;
}

int debugfile_inflate_check(Elf *elf, uint64_t file_size, const char *path)
{
	uint64_t cap = DEBUGFILE_INFLATE_FLOOR, total = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (file_size < (DEBUGFILE_INFLATE_MAX - cap) / DEBUGFILE_INFLATE_RATIO)
		cap += file_size * DEBUGFILE_INFLATE_RATIO;
	if (cap > DEBUGFILE_INFLATE_MAX)
		cap = DEBUGFILE_INFLATE_MAX;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		uint64_t size = 0;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;

			if (!gelf_getchdr(scn, &ch))
				continue;	/* libdw cannot inflate it either */
			size = ch.ch_size;
		} else if (name && !strncmp(name, ".zdebug", 7)) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			const unsigned char *b = d ? d->d_buf : NULL;

			if (!b || d->d_size < 12 || memcmp(b, "ZLIB", 4))
				continue;
			for (int i = 4; i < 12; i++)
				size = size << 8 | b[i];
		} else {
			continue;
		}
		if (size > cap || total + size > cap) {
			msg("%s: section %s would inflate to %llu bytes, past the %llu allowed for "
			    "a file of %llu bytes: its DWARF is skipped", path, name ? name : "?",
			    (unsigned long long)size, (unsigned long long)cap,
			    (unsigned long long)file_size);
			return -EFBIG;
		}
		total += size;
	}
	return 0;
}

/* fd carries ref's build id when both have one; else, for a candidate
 * found by link, the link's CRC. */
static bool matches(int fd, const char *path, const struct debugref *ref, bool by_link)
{
	struct stat st;
	const void *bid = NULL;
	ssize_t len = 0;
	uint32_t crc;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return false;
	}
	/* the found file is handed to libdw, which inflates its sections */
	if (fstat(fd, &st) || debugfile_inflate_check(elf, (uint64_t)st.st_size, path)) {
		elf_end(elf);
		return false;
	}
	len = dwelf_elf_gnu_build_id(elf, &bid);
	if (ref->need_build_id && len <= 0) {
		elf_end(elf);
		return false;
	}
	if (len > 0 && ref->build_id_len) {
		bool same = (size_t)len == ref->build_id_len &&
			    !memcmp(bid, ref->build_id, (size_t)len);

		elf_end(elf);
		return same;
	}
	elf_end(elf);
	if (!by_link)
		return true;
	return !file_crc32(fd, &crc) && crc == ref->crc;
}

/* Offers root/rel to accept when it is a safe, matching file. */
static int offer(const struct debugref *ref, uid_t owner, const char *root, const char *rel,
		 bool by_link, debugfile_accept_fn accept, void *arg)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = debugfile_open_beneath(root, rel, owner);
	if (fd < 0) {
		if (fd != -ENOENT)
			debug("debug file %s: not used (%s)", path, strerror(-fd));
		return fd;
	}
	if (!matches(fd, path, ref, by_link)) {
		close(fd);
		return -ENOENT;
	}
	return accept(fd, path, arg);
}

/* A .gnu_debuglink name is a base name: anything else is refused. */
static bool plain_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int debugfile_find(const struct debugref *ref, debugfile_accept_fn accept, void *arg)
{
	char dir[PATH_MAX], rel[PATH_MAX];
	const char *slash;
	struct stat st;
	uid_t owner;
	size_t i;
	int n;

	if (stat(ref->bin, &st))
		return -errno;
	owner = st.st_uid;
	if (ref->build_id_len && ref->build_id_len < 64) {
		n = snprintf(rel, sizeof(rel), ".build-id/%02x/", ref->build_id[0]);
		for (i = 1; i < ref->build_id_len; i++)
			n += snprintf(rel + n, sizeof(rel) - (size_t)n, "%02x", ref->build_id[i]);
		snprintf(rel + n, sizeof(rel) - (size_t)n, ".debug");
		if (!offer(ref, owner, debug_root, rel, false, accept, arg))
			return 0;
	}
	if (!ref->link)
		return -ENOENT;
	if (!plain_name(ref->link)) {
		debug("%s: .gnu_debuglink \"%s\" is not a plain file name: not followed",
		      ref->bin, ref->link);
		return -ENOENT;
	}
	slash = strrchr(ref->bin, '/');
	if (slash == ref->bin)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - ref->bin), ref->bin);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!offer(ref, owner, dir, ref->link, true, accept, arg))
		return 0;
	if (snprintf(rel, sizeof(rel), ".debug/%s", ref->link) < (int)sizeof(rel) &&
	    !offer(ref, owner, dir, rel, true, accept, arg))
		return 0;
	/* ROOT/BINDIR/link: BINDIR's components are walked below ROOT */
	if (dir[0] == '/' &&
	    snprintf(rel, sizeof(rel), "%s/%s", dir + 1, ref->link) < (int)sizeof(rel) &&
	    !offer(ref, owner, debug_root, rel, true, accept, arg))
		return 0;
	return -ENOENT;
}

int debugfile_find_alt(const char *bin, const char *name, const void *build_id,
		       size_t build_id_len, debugfile_accept_fn accept, void *arg)
{
	struct debugref ref = { .bin = bin, .build_id = build_id, .build_id_len = build_id_len,
				.need_build_id = true };
	size_t rootlen = strlen(debug_root);
	struct stat st;

	if (!build_id_len || !name)
		return -ENOENT;
	if (name[0] == '/' && !strncmp(name, debug_root, rootlen) && name[rootlen] == '/') {
		if (stat(bin, &st))
			return -errno;
		if (!offer(&ref, st.st_uid, debug_root, name + rootlen + 1, false, accept, arg))
			return 0;
	} else if (plain_name(name)) {
		ref.link = name;
	} else {
		debug("%s: .gnu_debugaltlink \"%s\" is neither a plain file name nor below %s: "
		      "not followed", bin, name, debug_root);
	}
	return debugfile_find(&ref, accept, arg);
}
