#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hashtab.h"
#include "trace/stackagg.h"

struct stackagg {
	struct stackagg_entry *v;	/* entries, in arrival order */
	size_t n, cap;
	size_t *slots;			/* index + 1 into v; 0 = free */
	uint64_t *hashes;
	size_t nslots;
};

struct stackagg *stackagg_new(void)
{
	struct stackagg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->nslots = 1024;
	a->slots = calloc(a->nslots, sizeof(*a->slots));
	a->hashes = calloc(a->nslots, sizeof(*a->hashes));
	if (!a->slots || !a->hashes) {
		stackagg_free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

void stackagg_free(struct stackagg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].ips);
		free(a->v[i].extra);
	}
	free(a->v);
	free(a->slots);
	free(a->hashes);
	free(a);
}

size_t stackagg_count(const struct stackagg *a)
{
	return a->n;
}

const struct stackagg_entry *stackagg_get(const struct stackagg *a, size_t i)
{
	return i < a->n ? &a->v[i] : NULL;
}

static bool same(const struct stackagg_entry *e, const struct stackagg_key *k,
		 const uint64_t *ips, int n, bool truncated)
{
	return e->pid == k->pid && e->gen == k->gen && e->kstack == k->kstack && e->n == n &&
	       e->truncated == truncated && !strncmp(e->comm, k->comm, 16) &&
	       e->extra_len == k->extra_len &&
	       (!k->extra_len || !memcmp(e->extra, k->extra, k->extra_len)) &&
	       !memcmp(e->ips, ips, n * sizeof(*ips));
}

static int grow(struct stackagg *a)
{
	size_t n = a->nslots * 2;
	size_t *slots = calloc(n, sizeof(*slots));
	uint64_t *hashes = calloc(n, sizeof(*hashes));

	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->nslots; i++) {
		size_t j;

		if (!a->slots[i])
			continue;
		for (j = a->hashes[i] & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = a->slots[i];
		hashes[j] = a->hashes[i];
	}
	free(a->slots);
	free(a->hashes);
	a->slots = slots;
	a->hashes = hashes;
	a->nslots = n;
	return 0;
}

int stackagg_add(struct stackagg *a, const struct stackagg_key *k, const uint64_t *ips, int n,
		 bool truncated, uint64_t value)
{
	uint64_t key[3] = { ((uint64_t)k->pid << 32) | k->gen, k->kstack,
			    (uint64_t)n << 1 | truncated };
	uint64_t h = hash_block(ips, n * sizeof(*ips), hash_bytes(key, sizeof(key), 0));
	struct stackagg_entry *e;
	size_t j;

	h = hash_bytes(k->comm, strnlen(k->comm, 16), h);
	if (k->extra_len)
		h = hash_block(k->extra, k->extra_len, h);
	if (a->n * 2 >= a->nslots && grow(a))
		return -ENOMEM;
	for (j = h & (a->nslots - 1); a->slots[j]; j = (j + 1) & (a->nslots - 1)) {
		e = &a->v[a->slots[j] - 1];
		if (a->hashes[j] == h && same(e, k, ips, n, truncated)) {
			e->value += value;
			return 0;
		}
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct stackagg_entry *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	e = &a->v[a->n];
	*e = (struct stackagg_entry){
		.pid = k->pid, .gen = k->gen, .truncated = truncated, .kstack = k->kstack,
		.value = value, .n = n, .extra_len = k->extra_len,
	};
	strncpy(e->comm, k->comm, 16);
	e->comm[16] = 0;
	e->ips = malloc((n ? n : 1) * sizeof(*ips));
	e->extra = k->extra_len ? malloc(k->extra_len) : NULL;
	if (!e->ips || (k->extra_len && !e->extra)) {
		free(e->ips);
		free(e->extra);
		return -ENOMEM;
	}
	if (k->extra_len)
		memcpy(e->extra, k->extra, k->extra_len);
	memcpy(e->ips, ips, n * sizeof(*ips));
	a->n++;
	a->slots[j] = a->n;
	a->hashes[j] = h;
	return 0;
}
