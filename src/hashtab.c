#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "hashtab.h"

#define MIN_SLOTS 16

struct htab *htab_new(size_t initial)
{
	struct htab *h = calloc(1, sizeof(*h));
	size_t n = MIN_SLOTS;

	if (!h)
		return NULL;
	while (n / 2 < initial && n < SIZE_MAX / 4)
		n *= 2;
	h->slots = calloc(n, sizeof(*h->slots));
	if (!h->slots) {
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	h->mask = n - 1;
	return h;
}

void htab_free(struct htab *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h);
}

void htab_free_all(struct htab *h)
{
	size_t pos = 0;
	void *e;

	while (h && (e = htab_next(h, &pos)))
		free(e);
	htab_free(h);
}

size_t htab_count(const struct htab *h)
{
	return h->count;
}

size_t htab_bytes(const struct htab *h)
{
	return h ? sizeof(*h) + (h->mask + 1) * sizeof(*h->slots) : 0;
}

static void put(struct htab_slot *slots, size_t mask, uint64_t hash, void *entry)
{
	size_t i = hash & mask;

	while (slots[i].entry)
		i = (i + 1) & mask;
	slots[i] = (struct htab_slot){ hash, entry };
}

static int grow(struct htab *h)
{
	size_t n = (h->mask + 1) * 2;
	struct htab_slot *slots;

	if (n > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i <= h->mask; i++)
		if (h->slots[i].entry)
			put(slots, n - 1, h->slots[i].hash, h->slots[i].entry);
	free(h->slots);
	h->slots = slots;
	h->mask = n - 1;
	return 0;
}

int htab_insert(struct htab *h, uint64_t hash, void *entry)
{
	if ((h->count + 1) * 2 > h->mask + 1 && grow(h))
		return -ENOMEM;
	put(h->slots, h->mask, hash, entry);
	h->count++;
	return 0;
}

void *htab_remove(struct htab *h, uint64_t hash, const void *key, htab_eq_fn *eq)
{
	size_t i = hash & h->mask, j;
	void *entry;

	for (;; i = (i + 1) & h->mask) {
		if (!h->slots[i].entry)
			return NULL;
		if (h->slots[i].hash == hash && eq(h->slots[i].entry, key))
			break;
	}
	entry = h->slots[i].entry;
	/* Slot i is the hole.  An entry further along the run may move back
	 * into it unless its home slot lies after the hole (cyclically): it
	 * would then sit before its home, where no probe looks. */
	for (j = (i + 1) & h->mask; h->slots[j].entry; j = (j + 1) & h->mask) {
		size_t home = h->slots[j].hash & h->mask;

		if (((j - home) & h->mask) >= ((j - i) & h->mask)) {
			h->slots[i] = h->slots[j];
			i = j;
		}
	}
	h->slots[i].entry = NULL;
	h->count--;
	return entry;
}

void *htab_next(const struct htab *h, size_t *pos)
{
	for (size_t i = *pos; i <= h->mask; i++)
		if (h->slots[i].entry) {
			*pos = i + 1;
			return h->slots[i].entry;
		}
	*pos = h->mask + 1;
	return NULL;
}

uint64_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 32);
}

uint64_t hash_block(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t l[4] = { seed ^ 0x9e3779b97f4a7c15ULL, seed + len, ~seed, seed * 3 + 1 }, w;
	size_t i = 0;

	for (; i + 32 <= len; i += 32)
		for (int k = 0; k < 4; k++) {
			memcpy(&w, b + i + 8 * k, 8);
			l[k] = (l[k] ^ w) * 0x100000001b3ULL + (l[k] >> 29);
		}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, 8);
		l[0] = (l[0] ^ w) * 0x100000001b3ULL + (l[0] >> 29);
	}
	for (; i < len; i++)
		l[1] = (l[1] ^ b[i]) * 0x100000001b3ULL;
	return mix64(mix64(l[0]) ^ l[1]) ^ mix64(mix64(l[2]) ^ l[3]);
}
