/* User stacks unwound in user space, and the maps keyed by them (see
 * ustack.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hashtab.h"
#include "lang/rec.h"
#include "lang/ustack.h"

struct lang_ustacks {
	struct htab *h;
	struct lang_ustack **v;		/* by id */
	size_t n, cap;
};

struct lang_ustacks *lang_ustacks_new(void)
{
	struct lang_ustacks *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->h = htab_new(0);
	if (!u->h) {
		free(u);
		return NULL;
	}
	return u;
}

void lang_ustacks_free(struct lang_ustacks *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i]->ips);
		free(u->v[i]);
	}
	free(u->v);
	htab_free(u->h);
	free(u);
}

static uint64_t ustack_hash(const struct lang_ustack *k)
{
	uint64_t h = hash_bytes(&k->pid, sizeof(k->pid), 0);

	h = hash_bytes(&k->gen, sizeof(k->gen), h);
	h = hash_bytes(&k->truncated, 1, h);
	return hash_bytes(k->ips, (size_t)k->n * sizeof(*k->ips), h);
}

static bool ustack_eq(const void *entry, const void *key)
{
	const struct lang_ustack *a = entry, *b = key;

	return a->pid == b->pid && a->gen == b->gen && a->truncated == b->truncated &&
	       a->n == b->n && !memcmp(a->ips, b->ips, (size_t)a->n * sizeof(*a->ips));
}

int64_t lang_ustacks_add(struct lang_ustacks *u, uint32_t pid, uint64_t gen, const uint64_t *ips,
			 int n, bool truncated)
{
	struct lang_ustack k = { pid, gen, truncated, n < 0 ? 0 : n, (uint64_t *)ips, -1 }, *e;
	uint64_t h = ustack_hash(&k);

	e = htab_find(u->h, h, &k, ustack_eq);
	if (e)
		return e->id;
	if (u->n == u->cap) {
		size_t c = u->cap ? u->cap * 2 : 64;
		struct lang_ustack **v = realloc(u->v, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->v = v;
		u->cap = c;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	*e = k;
	e->ips = malloc((size_t)k.n * sizeof(*e->ips) + 1);
	if (!e->ips) {
		free(e);
		return -ENOMEM;
	}
	if (k.n)	/* an empty stack may come without ips */
		memcpy(e->ips, ips, (size_t)k.n * sizeof(*e->ips));
	if (htab_insert(u->h, h, e)) {
		free(e->ips);
		free(e);
		return -ENOMEM;
	}
	e->id = (int64_t)u->n;
	u->v[u->n] = e;
	return (int64_t)u->n++;
}

const struct lang_ustack *lang_ustacks_get(const struct lang_ustacks *u, int64_t id)
{
	return u && id >= 0 && (size_t)id < u->n ? u->v[id] : NULL;
}

size_t lang_ustacks_count(const struct lang_ustacks *u)
{
	return u ? u->n : 0;
}

/* ---- the aggregation table ------------------------------------------- */

struct uagg_ent {
	uint8_t *key;		/* key_size bytes, then value_size bytes */
};

struct lang_uagg {
	uint32_t key_size, value_size, nbuckets, max;
	enum lang_kind kind;
	struct htab *h;
	struct uagg_ent *v;
	size_t n, cap;
};

struct lang_uagg *lang_uagg_new(uint32_t key_size, uint32_t value_size, enum lang_kind kind,
				uint32_t nbuckets, uint32_t max_entries)
{
	struct lang_uagg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	*a = (struct lang_uagg){ .key_size = key_size, .value_size = value_size,
				 .nbuckets = nbuckets, .max = max_entries, .kind = kind };
	a->h = htab_new(0);
	if (!a->h) {
		free(a);
		return NULL;
	}
	return a;
}

void lang_uagg_free(struct lang_uagg *a)
{
	if (!a)
		return;
	lang_uagg_clear(a);
	free(a->v);
	htab_free(a->h);
	free(a);
}

struct uagg_key {
	const struct lang_uagg *a;
	const void *key;
};

static bool uagg_eq(const void *entry, const void *key)
{
	const struct uagg_key *k = key;

	return !memcmp(entry, k->key, k->a->key_size);
}

static void value_add(const struct lang_uagg *a, uint8_t *v, int64_t x, bool fresh)
{
	uint64_t u;

	switch (a->kind) {
	case LANG_K_COUNT:
	case LANG_K_SUM:
		memcpy(&u, v, 8);
		u += (uint64_t)x;
		memcpy(v, &u, 8);
		return;
	case LANG_K_MIN:
	case LANG_K_MAX: {
		struct lang_rec_minmax m;

		memcpy(&m, v, sizeof(m));
		if (fresh || !m.set || (a->kind == LANG_K_MIN ? x < m.v : x > m.v)) {
			m.v = x;
			m.set = 1;
		}
		memcpy(v, &m, sizeof(m));
		return;
	}
	case LANG_K_AVG:
	case LANG_K_STATS: {
		struct lang_rec_avg m;

		memcpy(&m, v, sizeof(m));
		m.count++;
		m.sum = (int64_t)((uint64_t)m.sum + (uint64_t)x);
		memcpy(v, &m, sizeof(m));
		return;
	}
	case LANG_K_HIST:
	case LANG_K_LHIST: {
		uint64_t i = (uint64_t)x;

		if (!a->nbuckets)
			return;
		if (i >= a->nbuckets)
			i = a->nbuckets - 1;
		memcpy(&u, v + 8 * i, 8);
		u++;
		memcpy(v + 8 * i, &u, 8);
		return;
	}
	default:
		memcpy(v, &x, 8);
	}
}

int lang_uagg_add(struct lang_uagg *a, const void *key, int64_t operand)
{
	struct uagg_key k = { a, key };
	uint64_t h = hash_bytes(key, a->key_size, 0);
	uint8_t *e = htab_find(a->h, h, &k, uagg_eq);
	bool fresh = false;

	if (!e) {
		if (a->n >= a->max)
			return -ENOSPC;
		if (a->n == a->cap) {
			size_t c = a->cap ? a->cap * 2 : 64;
			struct uagg_ent *v = realloc(a->v, c * sizeof(*v));

			if (!v)
				return -ENOMEM;
			a->v = v;
			a->cap = c;
		}
		e = calloc(1, (size_t)a->key_size + a->value_size);
		if (!e)
			return -ENOMEM;
		memcpy(e, key, a->key_size);
		if (htab_insert(a->h, h, e)) {
			free(e);
			return -ENOMEM;
		}
		a->v[a->n++].key = e;
		fresh = true;
	}
	value_add(a, e + a->key_size, operand, fresh);
	return 0;
}

void lang_uagg_clear(struct lang_uagg *a)
{
	struct htab *h = htab_new(0);

	if (!h)
		return;	/* kept: nothing freed, nothing dangling */
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].key);
	a->n = 0;
	htab_free(a->h);
	a->h = h;
}

void lang_uagg_zero(struct lang_uagg *a)
{
	for (size_t i = 0; i < a->n; i++)
		memset(a->v[i].key + a->key_size, 0, a->value_size);
}

size_t lang_uagg_count(const struct lang_uagg *a)
{
	return a ? a->n : 0;
}

void lang_uagg_get(const struct lang_uagg *a, size_t i, const void **key, const void **value)
{
	*key = a->v[i].key;
	*value = a->v[i].key + a->key_size;
}

void lang_uagg_combine(enum lang_kind kind, void *dst, const void *src, uint32_t value_size)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (kind == LANG_K_MIN || kind == LANG_K_MAX) {
		struct lang_rec_minmax a, b;

		memcpy(&a, d, sizeof(a));
		memcpy(&b, s, sizeof(b));
		if (b.set && (!a.set || (kind == LANG_K_MIN ? b.v < a.v : b.v > a.v)))
			memcpy(d, &b, sizeof(b));
		return;
	}
	if (kind != LANG_K_COUNT && kind != LANG_K_SUM && kind != LANG_K_AVG &&
	    kind != LANG_K_STATS && kind != LANG_K_HIST && kind != LANG_K_LHIST)
		return;
	for (uint32_t i = 0; i + 8 <= value_size; i += 8) {
		uint64_t x, y;

		memcpy(&x, d + i, 8);
		memcpy(&y, s + i, 8);
		x += y;
		memcpy(d + i, &x, 8);
	}
}
