/* Stacks model: a string pool for the names, an arena holding entries
 * and their frame arrays, and a hash index from stack contents to entry
 * so that merging duplicates is O(depth). */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "report/stacks.h"

#define ARENA_BLOCK (64 * 1024)

/* A bump allocator: memory is only released all at once by stacks_free(),
 * which matches the lifetime of entries and frames. */
struct arena_block {
	struct arena_block *next;
	size_t used, size;
	unsigned char data[];
};

/* entries: the distinct stacks (in the arena), in insertion order until
 * stacks_sort().  index: the same entries by hash_frames().
 * scratch: the stack being added, with names already interned. */
struct stacks {
	struct arena_block *arena;
	struct htab *modules;	/* struct frame_module, in the arena */
	struct htab *srcs;	/* struct frame_src, in the arena */
	struct stack_entry **entries;
	size_t nentries, entries_cap;
	struct strpool *names;
	struct htab *index;
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

/* Names are interned, so a stack hashes by its name pointers: the hash
 * only decides slots in the index, never output order. */
static uint64_t hash_frames(const struct frame *frames, unsigned int depth)
{
	uint64_t h = depth;

	for (unsigned int i = 0; i < depth; i++)
		h = mix64(h ^ (uintptr_t)frames[i].name ^ ((uint64_t)frames[i].kind << 60) ^
			  mix64(frames[i].addr ^ (uintptr_t)frames[i].module ^
				(uintptr_t)frames[i].src));
	return h;
}

/* What the index is searched by: a stack with interned names. */
struct stack_key {
	const struct frame *frames;
	unsigned int depth;
};

static bool entry_eq(const void *entry, const void *key)
{
	const struct stack_entry *e = entry;
	const struct stack_key *k = key;

	if (e->depth != k->depth)
		return false;
	for (unsigned int i = 0; i < k->depth; i++) {
		const struct frame *a = &e->frames[i], *b = &k->frames[i];

		if (a->name != b->name || a->kind != b->kind || a->addr != b->addr ||
		    a->module != b->module || a->src != b->src)
			return false;
	}
	return true;
}

static uint64_t module_hash(const struct frame_module *m)
{
	return hash_bytes(m->path, strlen(m->path), 0) ^
	       hash_bytes(m->build_id, m->build_id_len, 1);
}

static bool module_eq(const void *entry, const void *key)
{
	const struct frame_module *a = entry, *b = key;

	return a->build_id_len == b->build_id_len && !strcmp(a->path, b->path) &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* The model's own copy of m, so frames outlive whoever made them. */
static const struct frame_module *intern_module(struct stacks *s, const struct frame_module *m)
{
	uint64_t h;
	struct frame_module *own;

	if (!m)
		return NULL;
	h = module_hash(m);
	own = htab_find(s->modules, h, m, module_eq);
	if (own)
		return own;
	own = arena_alloc(s, sizeof(*own), alignof(struct frame_module));
	if (!own)
		return NULL;
	*own = (struct frame_module){ .build_id_len = m->build_id_len };
	if (own->build_id_len > sizeof(own->build_id))
		own->build_id_len = sizeof(own->build_id);
	memcpy(own->build_id, m->build_id, own->build_id_len);
	own->path = strpool_intern(s->names, m->path);
	if (!own->path || htab_insert(s->modules, h, own))
		return NULL;
	return own;
}

static bool src_eq(const void *entry, const void *key)
{
	const struct frame_src *a = entry, *b = key;

	return a->file == b->file && a->line == b->line && a->inlined == b->inlined;
}

/* The model's own copy of a source line (its file interned). */
static const struct frame_src *intern_src(struct stacks *s, const struct frame_src *src)
{
	struct frame_src key, *own;
	uint64_t h;

	if (!src)
		return NULL;
	key = (struct frame_src){ NULL, src->line, src->inlined };
	if (src->file && !(key.file = strpool_intern(s->names, src->file)))
		return NULL;
	h = mix64((uintptr_t)key.file ^ ((uint64_t)key.line << 1 | key.inlined));
	own = htab_find(s->srcs, h, &key, src_eq);
	if (own)
		return own;
	own = arena_alloc(s, sizeof(*own), alignof(struct frame_src));
	if (!own)
		return NULL;
	*own = key;
	if (htab_insert(s->srcs, h, own))
		return NULL;
	return own;
}

struct stacks *stacks_new(void)
{
	struct stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->names = strpool_new();
	s->index = htab_new(512);
	s->modules = htab_new(64);
	s->srcs = htab_new(64);
	if (!s->names || !s->index || !s->modules || !s->srcs) {
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
	strpool_free(s->names);
	htab_free(s->index);
	htab_free(s->modules);
	htab_free(s->srcs);
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
	return stacks_add_events(s, frames, depth, value, 0);
}

int stacks_add_events(struct stacks *s, const struct frame *frames, unsigned int depth,
		      uint64_t value, uint64_t events)
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
		s->scratch[i].name = strpool_intern(s->names, frames[i].name);
		if (!s->scratch[i].name)
			return -ENOMEM;
		s->scratch[i].kind = frames[i].kind;
		s->scratch[i].addr = frames[i].addr;
		s->scratch[i].offset = frames[i].offset;
		s->scratch[i].module = intern_module(s, frames[i].module);
		if (frames[i].module && !s->scratch[i].module)
			return -ENOMEM;
		s->scratch[i].src = intern_src(s, frames[i].src);
		if (frames[i].src && !s->scratch[i].src)
			return -ENOMEM;
	}

	struct stack_key key = { s->scratch, depth };
	uint64_t h = hash_frames(s->scratch, depth);
	struct stack_entry *e = htab_find(s->index, h, &key, entry_eq);

	if (e) {
		e->value = add_sat(e->value, value);
		e->events = add_sat(e->events, events);
		s->total = add_sat(s->total, value);
		return 0;
	}
	if (s->nentries == s->entries_cap) {
		size_t cap = s->entries_cap ? s->entries_cap * 2 : 256;
		struct stack_entry **entries = realloc(s->entries, cap * sizeof(*entries));
		if (!entries)
			return -ENOMEM;
		s->entries = entries;
		s->entries_cap = cap;
	}
	/* the entry and its frames in one piece */
	e = arena_alloc(s, sizeof(*e) + depth * sizeof(*e->frames), alignof(struct stack_entry));
	if (!e)
		return -ENOMEM;
	e->frames = (struct frame *)(e + 1);
	e->depth = depth;
	e->value = value;
	e->events = events;
	memcpy(e->frames, s->scratch, depth * sizeof(*e->frames));
	if (htab_insert(s->index, h, e))
		return -ENOMEM;
	s->entries[s->nentries++] = e;
	s->total = add_sat(s->total, value);
	return 0;
}

size_t stacks_count(const struct stacks *s)
{
	return s ? s->nentries : 0;
}

const struct stack_entry *stacks_get(const struct stacks *s, size_t i)
{
	return s && i < s->nentries ? s->entries[i] : NULL;
}

uint64_t stacks_total(const struct stacks *s)
{
	return s ? s->total : 0;
}

static int module_cmp(const struct frame_module *a, const struct frame_module *b)
{
	int c;

	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	c = strcmp(a->path, b->path);
	if (!c)
		c = a->build_id_len != b->build_id_len ? (a->build_id_len < b->build_id_len ? -1 : 1)
						       : memcmp(a->build_id, b->build_id, a->build_id_len);
	return c;
}

static int src_cmp(const struct frame_src *a, const struct frame_src *b)
{
	int c;

	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	if (a->file != b->file) {
		if (!a->file || !b->file)
			return a->file ? 1 : -1;
		c = strcmp(a->file, b->file);
		if (c)
			return c;
	}
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (int)a->inlined - (int)b->inlined;
}

int stacks_entry_cmp(const struct stack_entry *a, const struct stack_entry *b)
{
	unsigned int n = a->depth < b->depth ? a->depth : b->depth;

	/* names first, so stacks shown alike sort next to each other */
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
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	for (unsigned int i = 0; i < n; i++) {
		const struct frame *fa = &a->frames[i], *fb = &b->frames[i];
		int c;

		if (fa->addr != fb->addr)
			return fa->addr < fb->addr ? -1 : 1;
		c = module_cmp(fa->module, fb->module);
		if (!c)
			c = src_cmp(fa->src, fb->src);
		if (c)
			return c;
	}
	return 0;
}

bool stacks_same_names(const struct stack_entry *a, const struct stack_entry *b)
{
	if (a->depth != b->depth)
		return false;
	for (unsigned int i = 0; i < a->depth; i++)
		if (a->frames[i].name != b->frames[i].name || a->frames[i].kind != b->frames[i].kind)
			return false;
	return true;
}

size_t stacks_count_named(const struct stacks *s)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->nentries; i++)
		if (!i || !stacks_same_names(s->entries[i - 1], s->entries[i]))
			n++;
	return n;
}

static int entry_qsort_cmp(const void *a, const void *b)
{
	return stacks_entry_cmp(*(struct stack_entry *const *)a, *(struct stack_entry *const *)b);
}

void stacks_sort(struct stacks *s)
{
	if (!s || s->nentries < 2)
		return;
	/* Entries are distinct, so the order is total and qsort's lack of
	 * stability does not matter.  The index points at the entries, which
	 * do not move. */
	qsort(s->entries, s->nentries, sizeof(*s->entries), entry_qsort_cmp);
}
