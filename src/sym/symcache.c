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
	size_t bytes;		/* es's and aux's */
	uint64_t used;		/* the epoch it was last asked for in */
	uint64_t marked;	/* the epoch a kept mapping last named it in */
	void *aux;		/* symcache_set_aux(), owned */
	void (*aux_free)(void *);
	bool has_aux;
	struct sc_entry *prev, *next;	/* all entries */
};

struct symcache {
	struct htab *by_inode;	/* of sc_entry; entries owns them */
	struct htab *by_es;	/* the successes, by their elfsyms pointer */
	struct sc_entry *entries;
	size_t loaded;
	uint64_t epoch;		/* sweeps so far, + 1 (0: never) */
	struct symcache_stats st;
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

static bool es_eq(const void *entry, const void *key)
{
	return ((const struct sc_entry *)entry)->es == key;
}

static struct sc_entry *find(const struct symcache *sc, uint64_t dev, uint64_t ino)
{
	struct sc_entry k = { .dev = dev, .ino = ino };
	struct sc_entry *e = htab_find(sc->by_inode, inode_hash(dev, ino), &k, inode_eq);

	if (e)
		e->used = sc->epoch;
	return e;
}

static struct sc_entry *find_es(const struct symcache *sc, const struct elfsyms *es)
{
	return htab_find(sc->by_es, mix64((uintptr_t)es), es, es_eq);
}

static void entry_unlink(struct symcache *sc, struct sc_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		sc->entries = e->next;
	if (e->next)
		e->next->prev = e->prev;
	sc->st.bytes -= e->bytes;
	sc->st.entries--;
}

static void entry_free(struct sc_entry *e)
{
	if (e->has_aux && e->aux_free)
		e->aux_free(e->aux);
	elfsyms_free(e->es);
	free(e);
}

/* Frees e, in the tables or not. */
static void evict(struct symcache *sc, struct sc_entry *e)
{
	htab_remove(sc->by_inode, inode_hash(e->dev, e->ino), e, inode_eq);
	if (e->es) {
		htab_remove(sc->by_es, mix64((uintptr_t)e->es), e->es, es_eq);
		sc->loaded--;
	}
	entry_unlink(sc, e);
	entry_free(e);
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
	if (old)
		evict(sc, old);	/* the failure a success replaces */
	*e = (struct sc_entry){ .es = es, .err = err, .dev = dev, .ino = ino, .next = sc->entries,
				.bytes = sizeof(*e) + elfsyms_bytes(es), .used = sc->epoch };
	if (htab_insert(sc->by_inode, h, e) || (es && htab_insert(sc->by_es, mix64((uintptr_t)es), e))) {
		htab_remove(sc->by_inode, h, e, inode_eq);
		entry_free(e);
		errno = ENOMEM;
		return NULL;
	}
	if (sc->entries)
		sc->entries->prev = e;
	sc->entries = e;
	sc->st.entries++;
	sc->st.bytes += e->bytes;
	if (sc->st.bytes > sc->st.peak_bytes)
		sc->st.peak_bytes = sc->st.bytes;
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
	sc->by_es = htab_new(32);
	sc->epoch = 1;
	if (!sc->by_inode || !sc->by_es) {
		symcache_free(sc);
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
		entry_free(e);
	}
	htab_free(sc->by_inode);
	htab_free(sc->by_es);
	free(sc);
}

int symcache_set_aux(struct symcache *sc, const struct elfsyms *es, void *data,
		     void (*free_fn)(void *), size_t bytes)
{
	struct sc_entry *e = find_es(sc, es);

	if (!e)
		return -ENOENT;
	if (e->has_aux && e->aux_free)
		e->aux_free(e->aux);
	e->aux = data;
	e->aux_free = free_fn;
	e->has_aux = true;
	sc->st.bytes += bytes;
	e->bytes += bytes;
	if (sc->st.bytes > sc->st.peak_bytes)
		sc->st.peak_bytes = sc->st.bytes;
	return 0;
}

void *symcache_aux(struct symcache *sc, const struct elfsyms *es, bool *found)
{
	struct sc_entry *e = find_es(sc, es);

	*found = e && e->has_aux;
	if (!e)
		return NULL;
	e->used = sc->epoch;
	return e->aux;
}

void symcache_mark(struct symcache *sc, uint64_t dev, uint64_t ino)
{
	struct sc_entry k = { .dev = dev, .ino = ino };
	struct sc_entry *e = htab_find(sc->by_inode, inode_hash(dev, ino), &k, inode_eq);

	if (e)
		e->marked = sc->epoch;
}

static int by_use(const void *a, const void *b)
{
	const struct sc_entry *x = *(struct sc_entry *const *)a, *y = *(struct sc_entry *const *)b;

	return x->used < y->used ? -1 : x->used > y->used;
}

size_t symcache_sweep(struct symcache *sc, size_t budget)
{
	struct sc_entry *e, *next, **idle = NULL;
	size_t n = 0, evicted = 0, unmarked = 0;

	for (e = sc->entries; e; e = next) {
		next = e->next;
		if (e->marked == sc->epoch || e->used == sc->epoch)
			continue;
		if (sc->epoch - e->used >= SYMCACHE_IDLE_SWEEPS) {
			sc->st.evicted_bytes += e->bytes;
			evict(sc, e);
			evicted++;
			continue;
		}
		unmarked += e->bytes;
		n++;
	}
	if (unmarked > budget && n && (idle = malloc(n * sizeof(*idle)))) {
		size_t i = 0;

		for (e = sc->entries; e; e = e->next)
			if (e->marked != sc->epoch && e->used != sc->epoch && i < n)
				idle[i++] = e;
		qsort(idle, i, sizeof(*idle), by_use);
		for (size_t j = 0; j < i && unmarked > budget; j++) {
			unmarked -= idle[j]->bytes;
			sc->st.evicted_bytes += idle[j]->bytes;
			evict(sc, idle[j]);
			evicted++;
		}
		free(idle);
	}
	sc->st.evicted += evicted;
	sc->st.sweeps++;
	sc->epoch++;
	return evicted;
}

void symcache_stats(const struct symcache *sc, struct symcache_stats *out)
{
	*out = sc->st;
}
