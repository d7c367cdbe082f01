/* Per-binary symbol cache.
 *
 * Two open-addressing hash tables index the same entries: one by build
 * id, one by (dev, ino).  A binary first opened through one key is
 * entered under every key it turns out to have, so a later request by
 * the other finds it without reading the file again. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

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

/* Linear probing; cap is a power of two, kept under half full. */
struct sc_table {
	struct sc_entry **slots;
	size_t cap, n;
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
	uint64_t h = 0xcbf29ce484222325ULL;

	if (kind == SC_KEY_INODE)
		return mix64(k->dev * 0x9e3779b97f4a7c15ULL ^ k->ino);
	for (unsigned int i = 0; i < k->build_id_len; i++)
		h = (h ^ k->build_id[i]) * 0x100000001b3ULL;
	return mix64(h);
}

static int key_equal(enum sc_key kind, const struct sc_entry *a, const struct sc_entry *b)
{
	if (kind == SC_KEY_INODE)
		return a->dev == b->dev && a->ino == b->ino;
	return a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* The slot holding key k, or the empty slot where it would go. */
static struct sc_entry **table_slot(const struct sc_table *t, const struct sc_entry *k)
{
	size_t i = (size_t)key_hash(t->kind, k) & (t->cap - 1);

	while (t->slots[i] && !key_equal(t->kind, t->slots[i], k))
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static struct sc_entry *table_find(const struct sc_table *t, const struct sc_entry *k)
{
	return t->cap ? *table_slot(t, k) : NULL;
}

static int table_grow(struct sc_table *t)
{
	struct sc_table nt = { .cap = t->cap ? t->cap * 2 : 64, .n = t->n, .kind = t->kind };

	nt.slots = calloc(nt.cap, sizeof(*nt.slots));
	if (!nt.slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i])
			*table_slot(&nt, t->slots[i]) = t->slots[i];
	free(t->slots);
	*t = nt;
	return 0;
}

/* Enters e under its key.  An existing success stays; an existing
 * failure is replaced by a success. */
static int table_put(struct sc_table *t, struct sc_entry *e)
{
	struct sc_entry **slot;
	int err;

	if ((t->n + 1) * 2 > t->cap) {
		err = table_grow(t);
		if (err)
			return err;
	}
	slot = table_slot(t, e);
	if (!*slot)
		t->n++;
	else if ((*slot)->es || !e->es)
		return 0;
	*slot = e;
	return 0;
}

struct symcache *symcache_new(void)
{
	struct symcache *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->by_build_id.kind = SC_KEY_BUILD_ID;
	sc->by_inode.kind = SC_KEY_INODE;
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
	free(sc->by_build_id.slots);
	free(sc->by_inode.slots);
	free(sc);
}
