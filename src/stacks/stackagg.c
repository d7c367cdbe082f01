#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hashtab.h"
#include "stacks/stackagg.h"

/* v: the entries in arrival order, each one allocation holding the entry,
 * its ips and its extra bytes.  index: the same entries by their key. */
struct stackagg {
	struct stackagg_entry **v;
	size_t n, cap;
	struct htab *index;
};

/* What a sample is looked up by. */
struct agg_key {
	const struct stackagg_key *k;
	const uint64_t *ips;
	int n;
	bool truncated;
};

struct stackagg *stackagg_new(void)
{
	struct stackagg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->index = htab_new(512);
	if (!a->index) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

void stackagg_free(struct stackagg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	htab_free(a->index);
	free(a);
}

size_t stackagg_count(const struct stackagg *a)
{
	return a->n;
}

const struct stackagg_entry *stackagg_get(const struct stackagg *a, size_t i)
{
	return i < a->n ? a->v[i] : NULL;
}

static bool same(const void *entry, const void *key)
{
	const struct stackagg_entry *e = entry;
	const struct agg_key *ak = key;
	const struct stackagg_key *k = ak->k;

	return e->pid == k->pid && e->gen == k->gen && e->tid == k->tid && e->kstack == k->kstack &&
	       e->n == ak->n &&
	       e->truncated == ak->truncated && !strncmp(e->comm, k->comm, 16) &&
	       e->extra_len == k->extra_len &&
	       (!k->extra_len || !memcmp(e->extra, k->extra, k->extra_len)) &&
	       !memcmp(e->ips, ak->ips, ak->n * sizeof(*ak->ips));
}

int stackagg_add(struct stackagg *a, const struct stackagg_key *k, const uint64_t *ips, int n,
		 bool truncated, uint64_t value, uint64_t events)
{
	uint64_t key[5] = { k->pid, k->gen, k->kstack, (uint64_t)n << 1 | truncated, k->tid };
	uint64_t h = hash_block(ips, n * sizeof(*ips), hash_bytes(key, sizeof(key), 0));
	struct agg_key ak = { k, ips, n, truncated };
	struct stackagg_entry *e;

	h = hash_bytes(k->comm, strnlen(k->comm, 16), h);
	if (k->extra_len)
		h = hash_block(k->extra, k->extra_len, h);
	e = htab_find(a->index, h, &ak, same);
	if (e) {
		e->value += value;
		e->events += events;
		return 0;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct stackagg_entry **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	e = malloc(sizeof(*e) + n * sizeof(*ips) + k->extra_len);
	if (!e)
		return -ENOMEM;
	*e = (struct stackagg_entry){
		.pid = k->pid, .gen = k->gen, .tid = k->tid, .truncated = truncated, .kstack = k->kstack,
		.value = value, .events = events, .n = n, .ips = (uint64_t *)(e + 1), .extra_len = k->extra_len,
	};
	strncpy(e->comm, k->comm, 16);
	e->comm[16] = 0;
	if (n)
		memcpy(e->ips, ips, n * sizeof(*ips));
	if (k->extra_len) {
		e->extra = e->ips + n;
		memcpy(e->extra, k->extra, k->extra_len);
	}
	if (htab_insert(a->index, h, e)) {
		free(e);
		return -ENOMEM;
	}
	a->v[a->n++] = e;
	return 0;
}
