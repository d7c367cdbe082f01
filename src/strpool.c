#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hashtab.h"
#include "strpool.h"

/* Strings live in large blocks, indexed by a hashtab. */
#define BLOCK_SIZE (64 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	alignas(size_t) char data[];
};

/* One pooled string; the table's entry.  s is what callers get. */
struct pooled {
	size_t len;
	size_t id;		/* strpool_id() */
	char s[];		/* len bytes and a NUL */
};

struct strkey {
	const char *s;
	size_t len;
};

struct strpool {
	struct block *blocks;
	struct htab *index;	/* of struct pooled, by hash_bytes() of the string */
	const char **by_id;	/* every string, by strpool_id() */
	size_t by_id_cap;
};

struct strpool *strpool_new(void)
{
	struct strpool *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->index = htab_new(512);
	if (!sp->index) {
		free(sp);
		errno = ENOMEM;
		return NULL;
	}
	return sp;
}

void strpool_free(struct strpool *sp)
{
	if (!sp)
		return;
	while (sp->blocks) {
		struct block *b = sp->blocks;
		sp->blocks = b->next;
		free(b);
	}
	htab_free(sp->index);
	free(sp->by_id);
	free(sp);
}

/* n bytes aligned for a struct pooled. */
static void *pool_alloc(struct strpool *sp, size_t n)
{
	struct block *b = sp->blocks;

	n = (n + alignof(struct pooled) - 1) & ~(alignof(struct pooled) - 1);
	if (!b || b->size - b->used < n) {
		size_t size = n > BLOCK_SIZE ? n : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = sp->blocks;
		sp->blocks = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

static bool pooled_eq(const void *entry, const void *key)
{
	const struct pooled *p = entry;
	const struct strkey *k = key;

	return p->len == k->len && !memcmp(p->s, k->s, k->len);
}

/* strpool_intern_len() of a string whose hash_bytes() is h. */
static const char *intern_hashed(struct strpool *sp, const char *str, size_t len, uint64_t h)
{
	struct strkey key = { str, len };
	struct pooled *p = htab_find(sp->index, h, &key, pooled_eq);

	if (p)
		return p->s;
	size_t n = htab_count(sp->index);
	if (n == sp->by_id_cap) {
		size_t cap = n ? n * 2 : 256;
		const char **by_id = realloc(sp->by_id, cap * sizeof(*by_id));
		if (!by_id) {
			errno = ENOMEM;
			return NULL;
		}
		sp->by_id = by_id;
		sp->by_id_cap = cap;
	}
	p = pool_alloc(sp, sizeof(*p) + len + 1);
	if (!p || htab_insert(sp->index, h, p)) {
		errno = ENOMEM;
		return NULL;
	}
	sp->by_id[n] = p->s;
	p->id = n;
	p->len = len;
	memcpy(p->s, str, len);
	p->s[len] = 0;
	return p->s;
}

const char *strpool_intern_len(struct strpool *sp, const char *str, size_t len)
{
	return intern_hashed(sp, str, len, hash_bytes(str, len, 0));
}

/* A batch is looked up in three passes: every string's slot is asked
 * for, then the string each slot holds, then each is interned; the cache
 * misses of a batch overlap instead of following one another. */
#define BATCH 32

int strpool_intern_n(struct strpool *sp, size_t n, const char *const *strs, const size_t *lens,
		     const char **out)
{
	uint64_t h[BATCH];

	for (size_t base = 0; base < n; base += BATCH) {
		size_t m = n - base < BATCH ? n - base : BATCH;
		const struct htab *t = sp->index;

		for (size_t i = 0; i < m; i++) {
			h[i] = hash_bytes(strs[base + i], lens[base + i], 0);
			__builtin_prefetch(&t->slots[h[i] & t->mask]);
		}
		for (size_t i = 0; i < m; i++) {
			const void *e = t->slots[h[i] & t->mask].entry;

			if (e)
				__builtin_prefetch(e);
		}
		for (size_t i = 0; i < m; i++) {
			out[base + i] = intern_hashed(sp, strs[base + i], lens[base + i], h[i]);
			if (!out[base + i])
				return -ENOMEM;
		}
	}
	return 0;
}

const char *strpool_intern(struct strpool *sp, const char *s)
{
	return strpool_intern_len(sp, s, strlen(s));
}

size_t strpool_count(const struct strpool *sp)
{
	return htab_count(sp->index);
}

size_t strpool_bytes(const struct strpool *sp)
{
	size_t n;

	if (!sp)
		return 0;
	n = sizeof(*sp) + htab_bytes(sp->index) + sp->by_id_cap * sizeof(*sp->by_id);
	for (const struct block *b = sp->blocks; b; b = b->next)
		n += sizeof(*b) + b->size;
	return n;
}

size_t strpool_id(const char *s)
{
	const struct pooled *p = (const struct pooled *)(s - offsetof(struct pooled, s));

	return p->id;
}

const char *strpool_get(const struct strpool *sp, size_t id)
{
	return id < htab_count(sp->index) ? sp->by_id[id] : NULL;
}
