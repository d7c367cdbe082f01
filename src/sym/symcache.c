/* Per-binary symbol cache.
 *
 * Two hash tables index the same entries: one by build id, one by
 * (dev, ino).  A binary first opened through one key is
 * entered under every key it turns out to have, so a later request by
 * the other finds it without reading the file again. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "hashtab.h"

#include "sym/symcache.h"

/* One binary, or one failure to open it (es NULL, err its errno).  Keys:
 * for a success the file's own build id and st_dev/st_ino; for a failure
 * the key it was asked by.  An alias is a second inode (a copy of a
 * binary already loaded, same build id) sharing another entry's es. */
struct sc_entry {
	struct elfsyms *es;	/* owned unless alias */
	int err;
	int alias;
	unsigned char build_id[20];
	unsigned int build_id_len;
	uint64_t dev, ino;
	struct sc_entry *next;	/* all entries, for freeing */
};

enum sc_key { SC_KEY_BUILD_ID, SC_KEY_INODE };

/* Entries by one of their keys. */
struct sc_table {
	struct htab *h;
	enum sc_key kind;
};

/* The tables point into entries, which owns every sc_entry. */
struct symcache {
	struct sc_table by_build_id, by_inode;
	struct sc_entry *entries;
	size_t loaded;
};

static uint64_t key_hash(enum sc_key kind, const struct sc_entry *k)
{
	if (kind == SC_KEY_INODE)
		return mix64(k->dev * 0x9e3779b97f4a7c15ULL ^ k->ino);
	return hash_bytes(k->build_id, k->build_id_len, 0);
}

static bool inode_eq(const void *entry, const void *key)
{
	const struct sc_entry *a = entry, *b = key;

	return a->dev == b->dev && a->ino == b->ino;
}

static bool build_id_eq(const void *entry, const void *key)
{
	const struct sc_entry *a = entry, *b = key;

	return a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

static htab_eq_fn *key_eq(enum sc_key kind)
{
	return kind == SC_KEY_INODE ? inode_eq : build_id_eq;
}

/* The entry with k's key (only that key of k is read). */
static struct sc_entry *table_find(const struct sc_table *t, const struct sc_entry *k)
{
	return htab_find(t->h, key_hash(t->kind, k), k, key_eq(t->kind));
}

/* Enters e under its key.  An existing success stays; an existing
 * failure is replaced by a success. */
static int table_put(struct sc_table *t, struct sc_entry *e)
{
	uint64_t h = key_hash(t->kind, e);
	struct sc_entry *old = htab_find(t->h, h, e, key_eq(t->kind));

	if (old && (old->es || !e->es))
		return 0;
	if (old)
		htab_remove(t->h, h, e, key_eq(t->kind));
	return htab_insert(t->h, h, e);
}

struct symcache *symcache_new(void)
{
	struct symcache *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->by_build_id = (struct sc_table){ htab_new(32), SC_KEY_BUILD_ID };
	sc->by_inode = (struct sc_table){ htab_new(32), SC_KEY_INODE };
	if (!sc->by_build_id.h || !sc->by_inode.h) {
		symcache_free(sc);
		errno = ENOMEM;
		return NULL;
	}
	return sc;
}

static struct sc_entry *entry_new(struct symcache *sc)
{
	struct sc_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->next = sc->entries;
	sc->entries = e;
	return e;
}

static const struct elfsyms *entry_result(const struct sc_entry *e)
{
	if (!e->es)
		errno = e->err;
	return e->es;
}

static int build_id_equal(const struct elfsyms *es, const struct sc_entry *key)
{
	size_t len;
	const unsigned char *bid = elfsyms_build_id(es, &len);

	return bid && len == key->build_id_len && !memcmp(bid, key->build_id, len);
}

/* Caches es (opened from a file with st's identity) under its build id
 * and its inode.  When that build id is loaded already (another copy of
 * the binary), es is dropped and the loaded one shared. */
static const struct elfsyms *add_loaded(struct symcache *sc, struct elfsyms *es,
					const struct stat *st)
{
	const unsigned char *bid;
	struct sc_entry *e, *same;
	size_t len;

	e = entry_new(sc);
	if (!e) {
		elfsyms_free(es);
		errno = ENOMEM;
		return NULL;
	}
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	bid = elfsyms_build_id(es, &len);
	if (bid && len <= sizeof(e->build_id)) {
		memcpy(e->build_id, bid, len);
		e->build_id_len = (unsigned int)len;
		same = table_find(&sc->by_build_id, e);
		if (same && same->es) {
			elfsyms_free(es);
			e->es = same->es;
			e->alias = 1;
			if (table_put(&sc->by_inode, e))
				goto nomem;
			return e->es;
		}
	}
	e->es = es;
	sc->loaded++;
	if (e->build_id_len && table_put(&sc->by_build_id, e))
		goto nomem;
	if (table_put(&sc->by_inode, e))
		goto nomem;
	return es;

nomem:
	/* e stays owned by sc->entries; only this answer fails */
	errno = ENOMEM;
	return NULL;
}

/* Opens path and checks it is the binary key names.  Returns the loaded
 * symbols (possibly an already cached entry reached through the file's
 * inode), NULL with *err set otherwise. */
static const struct elfsyms *try_path(struct symcache *sc, const char *path,
				      const struct sc_entry *key, int *err)
{
	struct sc_entry ino_key = { 0 }, *e;
	const struct elfsyms *ret;
	struct elfsyms *es;
	struct stat st;
	int fd;

	fd = open_regular(path, &st);
	if (fd < 0) {
		*err = -fd;
		return NULL;
	}
	if (!key->build_id_len && (key->dev || key->ino) &&
	    ((uint64_t)st.st_dev != key->dev || (uint64_t)st.st_ino != key->ino)) {
		*err = ESTALE;
		goto close_fd;
	}
	/* the same file may already be loaded under its inode */
	ino_key.dev = st.st_dev;
	ino_key.ino = st.st_ino;
	e = table_find(&sc->by_inode, &ino_key);
	if (e && e->es && (!key->build_id_len || build_id_equal(e->es, key))) {
		close(fd);
		return e->es;
	}
	es = elfsyms_open_fd(fd, path);
	if (!es) {
		*err = errno;
		goto close_fd;
	}
	close(fd);
	if (key->build_id_len && !build_id_equal(es, key)) {
		elfsyms_free(es);
		*err = ESTALE;
		return NULL;
	}
	ret = add_loaded(sc, es, &st);
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
	const struct elfsyms *es;
	struct sc_entry key = { 0 }, *e;
	struct sc_table *t = NULL;
	int err = ENOENT, stale = 0;

	if (!sc) {
		errno = EINVAL;
		return NULL;
	}
	if (id && id->build_id_len && id->build_id_len <= sizeof(key.build_id)) {
		memcpy(key.build_id, id->build_id, id->build_id_len);
		key.build_id_len = id->build_id_len;
		t = &sc->by_build_id;
	} else if (id && (id->dev || id->ino)) {
		key.dev = id->dev;
		key.ino = id->ino;
		t = &sc->by_inode;
	}
	if (t && (e = table_find(t, &key)))
		return entry_result(e);
	for (int i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		es = try_path(sc, paths[i], &key, &err);
		if (es)
			return es;
		if (err == ESTALE)
			stale = 1;
		if (err == ENOMEM)
			break;
	}
	if (stale && err != ENOMEM)
		err = ESTALE;
	/* remember the failure so it is not retried for every frame */
	if (t && err != ENOMEM && (e = entry_new(sc))) {
		*e = (struct sc_entry){ .err = err, .next = e->next };
		memcpy(e->build_id, key.build_id, sizeof(e->build_id));
		e->build_id_len = key.build_id_len;
		e->dev = key.dev;
		e->ino = key.ino;
		table_put(t, e);
	}
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
		if (!e->alias)
			elfsyms_free(e->es);
		free(e);
	}
	htab_free(sc->by_build_id.h);
	htab_free(sc->by_inode.h);
	free(sc);
}
