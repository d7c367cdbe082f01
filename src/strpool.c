#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"

/* Strings live in large blocks; the table is open addressing on the hash. */
#define BLOCK_SIZE (64 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct slot {
	const char *str;
	size_t len;
	unsigned long long hash;
};

struct strpool {
	struct block *blocks;
	struct slot *slots;
	size_t nslots, count;
};

struct strpool *strpool_new(void)
{
	struct strpool *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->nslots = 1024;
	sp->slots = calloc(sp->nslots, sizeof(*sp->slots));
	if (!sp->slots) {
		free(sp);
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
	free(sp->slots);
	free(sp);
}

static char *pool_alloc(struct strpool *sp, size_t n)
{
	struct block *b = sp->blocks;

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

static int grow(struct strpool *sp)
{
	size_t n = sp->nslots * 2;
	struct slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < sp->nslots; i++) {
		struct slot *o = &sp->slots[i];
		size_t j;

		if (!o->str)
			continue;
		for (j = o->hash & (n - 1); s[j].str; j = (j + 1) & (n - 1))
			;
		s[j] = *o;
	}
	free(sp->slots);
	sp->slots = s;
	sp->nslots = n;
	return 0;
}

const char *strpool_intern_len(struct strpool *sp, const char *str, size_t len)
{
	unsigned long long h = hash_bytes(str, len, 0);
	size_t i;
	char *copy;

	if (sp->count * 2 >= sp->nslots && grow(sp)) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = h & (sp->nslots - 1); sp->slots[i].str; i = (i + 1) & (sp->nslots - 1)) {
		struct slot *s = &sp->slots[i];

		if (s->hash == h && s->len == len && !memcmp(s->str, str, len))
			return s->str;
	}
	copy = pool_alloc(sp, len + 1);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, str, len);
	copy[len] = 0;
	sp->slots[i] = (struct slot){ copy, len, h };
	sp->count++;
	return copy;
}

const char *strpool_intern(struct strpool *sp, const char *s)
{
	return strpool_intern_len(sp, s, strlen(s));
}

size_t strpool_count(const struct strpool *sp)
{
	return sp->count;
}
