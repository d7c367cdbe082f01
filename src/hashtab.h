/* The one hash table: open addressing over a power-of-two array of
 * slots, linear probing, each slot keeping its entry's 64-bit hash so
 * that a probe calls the comparison only when the hashes are equal.
 *
 * Entries are the caller's pointers (never NULL); the table does not own
 * them and knows nothing of their keys: every look-up passes the key's
 * hash, the key, and a function that tells whether an entry has that key.
 * The slot is hash & (slots - 1), so a hash must have well-mixed low bits:
 * hash_bytes(), hash_block() and mix64() do. */
#ifndef STACKSCOPE_HASHTAB_H
#define STACKSCOPE_HASHTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Does entry have key?  key is whatever the caller passed to the look-up. */
typedef bool htab_eq_fn(const void *entry, const void *key);

/* Visible only so that htab_find() inlines with the caller's comparison. */
struct htab_slot {
	uint64_t hash;
	void *entry;		/* NULL: free */
};

struct htab {
	struct htab_slot *slots;	/* mask + 1, a power of two, at most half full */
	size_t mask;
	size_t count;
};

/* A table sized for about initial entries without growing (0: small).
 * NULL with errno ENOMEM. */
struct htab *htab_new(size_t initial);
/* Frees the table, not the entries; accepts NULL. */
void htab_free(struct htab *h);
/* Frees every entry (each one malloc'd block), then the table; accepts
 * NULL. */
void htab_free_all(struct htab *h);

/* The entry with key (hash being its hash), or NULL. */
static inline void *htab_find(const struct htab *h, uint64_t hash, const void *key,
			      htab_eq_fn *eq)
{
	for (size_t i = hash & h->mask;; i = (i + 1) & h->mask) {
		const struct htab_slot *s = &h->slots[i];

		if (!s->entry)
			return NULL;
		if (s->hash == hash && eq(s->entry, key))
			return s->entry;
	}
}

/* Adds entry under hash; its key must not be in the table yet.  Grows the
 * table at half full.  0, or -ENOMEM (entry not added). */
int htab_insert(struct htab *h, uint64_t hash, void *entry);
/* Takes the entry with key out and returns it (NULL: none).  The entries
 * after it in its run of slots move back, so no marker is left behind and
 * look-ups stay as short as if it had never been added. */
void *htab_remove(struct htab *h, uint64_t hash, const void *key, htab_eq_fn *eq);
size_t htab_count(const struct htab *h);
/* Heap bytes the table takes (its slots and itself, not the entries). */
size_t htab_bytes(const struct htab *h);

/* Every entry once, in no useful order:
 *   size_t pos = 0;
 *   while ((e = htab_next(h, &pos)))
 * The table must not change meanwhile. */
void *htab_next(const struct htab *h, size_t *pos);

/* 64-bit FNV-1a, its high half folded into the low: the hash of every
 * string and short key here.  seed continues a previous hash (0: none). */
uint64_t hash_bytes(const void *p, size_t len, uint64_t seed);
/* A fast 64-bit hash for large buffers (stack snapshots): 8 bytes a
 * step on four independent lanes; not for adversarial input. */
uint64_t hash_block(const void *p, size_t len, uint64_t seed);

#endif
