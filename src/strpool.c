#include <errno.h>
#include <stdalign.h>
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
	char s[];		/* len bytes and a NUL */
};

struct strkey {
	const char *s;
	size_t len;
};

struct strpool {
	struct block *blocks;
	struct htab *index;	/* of struct pooled, by hash_bytes() of the string */
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

const char *strpool_intern_len(struct strpool *sp, const char *str, size_t len)
{
	struct strkey key = { str, len };
	uint64_t h = hash_bytes(str, len, 0);
	struct pooled *p = htab_find(sp->index, h, &key, pooled_eq);

	if (p)
		return p->s;
	p = pool_alloc(sp, sizeof(*p) + len + 1);
	if (!p || htab_insert(sp->index, h, p)) {
		errno = ENOMEM;
		return NULL;
	}
	p->len = len;
	memcpy(p->s, str, len);
	p->s[len] = 0;
	return p->s;
}

const char *strpool_intern(struct strpool *sp, const char *s)
{
	return strpool_intern_len(sp, s, strlen(s));
}

size_t strpool_count(const struct strpool *sp)
{
	return htab_count(sp->index);
}
