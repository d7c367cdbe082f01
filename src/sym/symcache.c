/* Per-binary symbol cache, keyed by the file the kernel mapped: its
 * device and inode, as the side-band's mmap records and /proc/PID/maps
 * give them.  A build id is what the file says about itself (any user can
 * write any), so it never makes two files one: it is checked against the
 * file when asked for, and elfsyms uses it to find debug files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "hashtab.h"

#include "sym/symcache.h"

/* One file, or one failure to open it (es NULL, err its errno), by the
 * device and inode it was asked by (a success: the file's own). */
struct sc_entry {
	struct elfsyms *es;	/* owned */
	int err;
	uint64_t dev, ino;
	struct sc_entry *next;	/* all entries, for freeing */
};

struct symcache {
	struct htab *by_inode;	/* of sc_entry; entries owns them */
	struct sc_entry *entries;
	size_t loaded;
};

static uint64_t inode_hash(uint64_t dev, uint64_t ino)
{
	return mix64(dev * 0x9e3779b97f4a7c15ULL ^ ino);
}

static bool inode_eq(const void *entry, const void *key)
{
	const struct sc_entry *a = entry, *b = key;

	return a->dev == b->dev && a->ino == b->ino;
}

static struct sc_entry *find(const struct symcache *sc, uint64_t dev, uint64_t ino)
{
	struct sc_entry k = { .dev = dev, .ino = ino };

	return htab_find(sc->by_inode, inode_hash(dev, ino), &k, inode_eq);
}

/* Caches es (or the failure err) under dev/ino; an existing failure is
 * replaced by a success.  The answer: es, or NULL with errno. */
static const struct elfsyms *put(struct symcache *sc, uint64_t dev, uint64_t ino,
				 struct elfsyms *es, int err)
{
	struct sc_entry *e, *old = find(sc, dev, ino);
	uint64_t h = inode_hash(dev, ino);

	if (old && (old->es || !es)) {
		elfsyms_free(es);
		errno = old->es ? 0 : old->err;
		return old->es;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		elfsyms_free(es);
		errno = ENOMEM;
		return NULL;
	}
	*e = (struct sc_entry){ .es = es, .err = err, .dev = dev, .ino = ino, .next = sc->entries };
	sc->entries = e;
	if (old)
		htab_remove(sc->by_inode, h, e, inode_eq);
	if (htab_insert(sc->by_inode, h, e)) {
		errno = ENOMEM;	/* e stays owned by entries; only this answer fails */
		return NULL;
	}
	if (es)
		sc->loaded++;
	errno = err;
	return es;
}

struct symcache *symcache_new(void)
{
	struct symcache *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->by_inode = htab_new(32);
	if (!sc->by_inode) {
		free(sc);
		errno = ENOMEM;
		return NULL;
	}
	return sc;
}

static bool build_id_matches(const struct elfsyms *es, const struct binary_id *id)
{
	size_t len;
	const unsigned char *bid = elfsyms_build_id(es, &len);

	return bid && len == id->build_id_len && !memcmp(bid, id->build_id, len);
}

/* Opens path and checks it is the file id names (its inode when known;
 * its build id, when asked, as a check of the content).  The symbols, the
 * cached ones when that inode is loaded already; NULL with *err. */
static const struct elfsyms *try_path(struct symcache *sc, const char *path,
				      const struct binary_id *id, int *err)
{
	bool by_inode = id->dev || id->ino, by_build_id = id->build_id_len;
	const struct elfsyms *ret;
	struct sc_entry *e;
	struct elfsyms *es;
	struct stat st;
	int fd;

	fd = open_regular(path, &st);
	if (fd < 0) {
		*err = -fd;
		return NULL;
	}
	if (by_inode && ((uint64_t)st.st_dev != id->dev || (uint64_t)st.st_ino != id->ino)) {
		*err = ESTALE;
		goto close_fd;
	}
	e = find(sc, st.st_dev, st.st_ino);
	if (e && e->es) {
		close(fd);
		if (by_build_id && !build_id_matches(e->es, id)) {
			*err = ESTALE;
			return NULL;
		}
		return e->es;
	}
	es = elfsyms_open_fd(fd, path);
	if (!es) {
		*err = errno;
		goto close_fd;
	}
	close(fd);
	if (by_build_id && !build_id_matches(es, id)) {
		elfsyms_free(es);
		*err = ESTALE;
		return NULL;
	}
	ret = put(sc, st.st_dev, st.st_ino, es, 0);
	if (!ret)
		*err = errno;
	return ret;

close_fd:
	close(fd);
	return NULL;
}

const struct elfsyms *symcache_get(struct symcache *sc, const char *path,
				   const char *alt_path, const struct binary_id *id)
{
	const char *paths[2] = { path, alt_path };
	static const struct binary_id none;
	const struct elfsyms *es;
	bool by_inode;
	struct sc_entry *e;
	int err = ENOENT, stale = 0;

	if (!sc) {
		errno = EINVAL;
		return NULL;
	}
	if (!id || id->build_id_len > sizeof(id->build_id))
		id = &none;
	by_inode = id->dev || id->ino;
	if (by_inode && (e = find(sc, id->dev, id->ino))) {
		if (e->es && id->build_id_len && !build_id_matches(e->es, id)) {
			errno = ESTALE;
			return NULL;
		}
		errno = e->es ? 0 : e->err;
		return e->es;
	}
	for (int i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		es = try_path(sc, paths[i], id, &err);
		if (es)
			return es;
		if (err == ESTALE)
			stale = 1;
		if (err == ENOMEM)
			break;
	}
	if (stale && err != ENOMEM)
		err = ESTALE;
	/* remember the failure so it is not retried for every frame (only
	 * the mapped inode is a key: a build id proves nothing) */
	if (by_inode && err != ENOMEM)
		put(sc, id->dev, id->ino, NULL, err);
	errno = err;
	return NULL;
}

size_t symcache_count(const struct symcache *sc)
{
	return sc ? sc->loaded : 0;
}

void symcache_free(struct symcache *sc)
{
	struct sc_entry *e, *next;

	if (!sc)
		return;
	for (e = sc->entries; e; e = next) {
		next = e->next;
		elfsyms_free(e->es);
		free(e);
	}
	htab_free(sc->by_inode);
	free(sc);
}
