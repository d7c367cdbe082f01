/* Stacks model: an arena holding interned names and frame arrays, an
 * open-addressing string table for interning, and an open-addressing index
 * from stack contents to entry so that merging duplicates is O(depth). */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "report/stacks.h"

#define ARENA_BLOCK (64 * 1024)

/* A bump allocator: memory is only released all at once by stacks_free(),
 * which matches the lifetime of names and frames. */
struct arena_block {
	struct arena_block *next;
	size_t used, size;
	unsigned char data[];
};

/* entries: the distinct stacks, in insertion order until stacks_sort().
 * strs: interned names, a power-of-two open-addressing set (NULL = empty).
 * index: entry number + 1 for each stack (0 = empty slot), power of two.
 * scratch: the stack being added, with names already interned. */
struct stacks {
	struct arena_block *arena;
	struct stack_entry *entries;
	size_t nentries, entries_cap;
	const char **strs;
	size_t nstrs, strs_cap;
	size_t *index;
	size_t index_cap;
	struct frame *scratch;
	unsigned int scratch_cap;
	uint64_t total;
};

static void *arena_alloc(struct stacks *s, size_t size, size_t align)
{
	struct arena_block *b = s->arena;
	uintptr_t p;

	if (b) {
		p = (uintptr_t)(b->data + b->used);
		p = (p + align - 1) & ~(uintptr_t)(align - 1);
		if (p + size <= (uintptr_t)(b->data + b->size)) {
			b->used = p + size - (uintptr_t)b->data;
			return (void *)p;
		}
	}
	/* A new block; an oversized request gets a block of its own. */
	size_t bsize = size + align > ARENA_BLOCK ? size + align : ARENA_BLOCK;
	b = malloc(sizeof(*b) + bsize);
	if (!b)
		return NULL;
	b->size = bsize;
	b->used = 0;
	b->next = s->arena;
	s->arena = b;
	p = (uintptr_t)b->data;
	p = (p + align - 1) & ~(uintptr_t)(align - 1);
	b->used = p + size - (uintptr_t)b->data;
	return (void *)p;
}

static uint64_t hash_str(const char *str)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 0x100000001b3ULL;
	return h;
}

/* Names are interned, so a stack hashes by its name pointers: the hash
 * only decides slots in the index, never output order. */
static uint64_t hash_frames(const struct frame *frames, unsigned int depth)
{
	uint64_t h = depth;

	for (unsigned int i = 0; i < depth; i++)
		h = mix64(h ^ (uintptr_t)frames[i].name ^ ((uint64_t)frames[i].kind << 60));
	return h;
}

static int frames_equal(const struct frame *a, const struct frame *b, unsigned int depth)
{
	for (unsigned int i = 0; i < depth; i++)
		if (a[i].name != b[i].name || a[i].kind != b[i].kind)
			return 0;
	return 1;
}

static int strs_grow(struct stacks *s)
{
	size_t cap = s->strs_cap ? s->strs_cap * 2 : 1024;
	const char **strs = calloc(cap, sizeof(*strs));

	if (!strs)
		return -ENOMEM;
	for (size_t i = 0; i < s->strs_cap; i++) {
		const char *str = s->strs[i];
		if (!str)
			continue;
		size_t j = hash_str(str) & (cap - 1);
		while (strs[j])
			j = (j + 1) & (cap - 1);
		strs[j] = str;
	}
	free(s->strs);
	s->strs = strs;
	s->strs_cap = cap;
	return 0;
}

static const char *intern(struct stacks *s, const char *name)
{
	if ((s->nstrs + 1) * 2 > s->strs_cap && strs_grow(s))
		return NULL;

	size_t j = hash_str(name) & (s->strs_cap - 1);
	for (; s->strs[j]; j = (j + 1) & (s->strs_cap - 1))
		if (!strcmp(s->strs[j], name))
			return s->strs[j];

	size_t len = strlen(name) + 1;
	char *copy = arena_alloc(s, len, 1);
	if (!copy)
		return NULL;
	memcpy(copy, name, len);
	s->strs[j] = copy;
	s->nstrs++;
	return copy;
}

static void index_insert(size_t *index, size_t cap, uint64_t h, size_t entry)
{
	size_t j = h & (cap - 1);

	while (index[j])
		j = (j + 1) & (cap - 1);
	index[j] = entry + 1;
}

/* (Re)builds the index at capacity cap from the entries. */
static int index_build(struct stacks *s, size_t cap)
{
	size_t *index = calloc(cap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < s->nentries; i++) {
		const struct stack_entry *e = &s->entries[i];
		index_insert(index, cap, hash_frames(e->frames, e->depth), i);
	}
	free(s->index);
	s->index = index;
	s->index_cap = cap;
	return 0;
}

struct stacks *stacks_new(void)
{
	struct stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (index_build(s, 1024) || strs_grow(s)) {
		stacks_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void stacks_free(struct stacks *s)
{
	if (!s)
		return;
	while (s->arena) {
		struct arena_block *next = s->arena->next;
		free(s->arena);
		s->arena = next;
	}
	free(s->entries);
	free(s->strs);
	free(s->index);
	free(s->scratch);
	free(s);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int stacks_add(struct stacks *s, const struct frame *frames, unsigned int depth,
	       uint64_t value)
{
	if (!s || !frames || !depth)
		return -EINVAL;
	for (unsigned int i = 0; i < depth; i++)
		if (!frames[i].name)
			return -EINVAL;

	if (depth > s->scratch_cap) {
		struct frame *scratch = realloc(s->scratch, depth * sizeof(*scratch));
		if (!scratch)
			return -ENOMEM;
		s->scratch = scratch;
		s->scratch_cap = depth;
	}
	for (unsigned int i = 0; i < depth; i++) {
		s->scratch[i].name = intern(s, frames[i].name);
		if (!s->scratch[i].name)
			return -ENOMEM;
		s->scratch[i].kind = frames[i].kind;
	}

	uint64_t h = hash_frames(s->scratch, depth);
	for (size_t j = h & (s->index_cap - 1); s->index[j]; j = (j + 1) & (s->index_cap - 1)) {
		struct stack_entry *e = &s->entries[s->index[j] - 1];
		if (e->depth == depth && frames_equal(e->frames, s->scratch, depth)) {
			e->value = add_sat(e->value, value);
			s->total = add_sat(s->total, value);
			return 0;
		}
	}

	if ((s->nentries + 1) * 2 > s->index_cap && index_build(s, s->index_cap * 2))
		return -ENOMEM;
	if (s->nentries == s->entries_cap) {
		size_t cap = s->entries_cap ? s->entries_cap * 2 : 256;
		struct stack_entry *entries = realloc(s->entries, cap * sizeof(*entries));
		if (!entries)
			return -ENOMEM;
		s->entries = entries;
		s->entries_cap = cap;
	}
	struct frame *copy = arena_alloc(s, depth * sizeof(*copy), alignof(struct frame));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s->scratch, depth * sizeof(*copy));

	s->entries[s->nentries] = (struct stack_entry){ copy, depth, value };
	index_insert(s->index, s->index_cap, h, s->nentries);
	s->nentries++;
	s->total = add_sat(s->total, value);
	return 0;
}

size_t stacks_count(const struct stacks *s)
{
	return s ? s->nentries : 0;
}

const struct stack_entry *stacks_get(const struct stacks *s, size_t i)
{
	return s && i < s->nentries ? &s->entries[i] : NULL;
}

uint64_t stacks_total(const struct stacks *s)
{
	return s ? s->total : 0;
}

int stacks_entry_cmp(const struct stack_entry *a, const struct stack_entry *b)
{
	unsigned int n = a->depth < b->depth ? a->depth : b->depth;

	for (unsigned int i = 0; i < n; i++) {
		const struct frame *fa = &a->frames[i], *fb = &b->frames[i];
		if (fa->name != fb->name) {
			int c = strcmp(fa->name, fb->name);
			if (c)
				return c;
		}
		if (fa->kind != fb->kind)
			return fa->kind < fb->kind ? -1 : 1;
	}
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static int entry_qsort_cmp(const void *a, const void *b)
{
	return stacks_entry_cmp(a, b);
}

void stacks_sort(struct stacks *s)
{
	if (!s || s->nentries < 2)
		return;
	/* Entries are distinct, so the order is total and qsort's lack of
	 * stability does not matter. */
	qsort(s->entries, s->nentries, sizeof(*s->entries), entry_qsort_cmp);
	/* Rebuilding in place cannot fail for lack of memory: rehash into the
	 * existing table instead of allocating a new one. */
	memset(s->index, 0, s->index_cap * sizeof(*s->index));
	for (size_t i = 0; i < s->nentries; i++) {
		const struct stack_entry *e = &s->entries[i];
		index_insert(s->index, s->index_cap, hash_frames(e->frames, e->depth), i);
	}
}
