/* Stacks model: a string pool for the names, an arena holding entries
 * and their frame arrays, and a hash index from stack contents to entry
 * so that merging duplicates is O(depth). */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "report/stacks.h"

#define ARENA_BLOCK (64 * 1024)
/* Blocks double in size up to this, a huge page: a model of millions of
 * frames then takes one page fault per 2 MiB, not per 4 KiB (first
 * touches were a fifth of the time reading a large folded file took). */
#define ARENA_HUGE (2 * 1024 * 1024)

/* A bump allocator: memory is only released all at once by stacks_free(),
 * which matches the lifetime of entries and frames. */
struct arena_block {
	struct arena_block *next;
	size_t used, size;
	unsigned char data[];
};

/* entries: the distinct stacks (in the arena), in insertion order until
 * stacks_sort().  index: the same entries by hash_frames().
 * scratch: the stack being added, its frames interned. */
struct stacks {
	struct arena_block *arena;
	struct htab *modules;	/* struct frame_module, in the arena */
	struct htab *srcs;	/* struct frame_src, in the arena */
	struct htab *frames;	/* struct frame, interned, in the arena */
	/* name-only frames (no address, module or source line: text
	 * readers') by strpool_id(name) * PLAIN_KINDS + kind */
	const struct frame **plain;
	size_t plain_cap;
	struct stack_entry **entries;
	size_t nentries, entries_cap;
	struct strpool *names;
	struct htab *index;
	const struct frame **scratch;
	unsigned int scratch_cap;
	uint64_t total;
	bool sorted;		/* entries in stacks_entry_cmp() order */
	bool names_only;	/* stacks_keep_names_only() */
	size_t arena_bytes;	/* of every arena block */
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
	/* A new block, twice the last one up to ARENA_HUGE; an oversized
	 * request gets a block of its own. */
	size_t bsize = b ? (b->size + sizeof(*b)) * 2 : ARENA_BLOCK;
	if (bsize > ARENA_HUGE)
		bsize = ARENA_HUGE;
	if (size + align + sizeof(*b) > bsize)
		bsize = size + align + sizeof(*b);
	if (bsize == ARENA_HUGE) {
		b = aligned_alloc(ARENA_HUGE, ARENA_HUGE);
		if (b)
			madvise(b, ARENA_HUGE, MADV_HUGEPAGE);	/* a hint: may be refused */
	} else {
		b = malloc(bsize);
	}
	if (!b)
		return NULL;
	s->arena_bytes += bsize;
	bsize -= sizeof(*b);
	b->size = bsize;
	b->used = 0;
	b->next = s->arena;
	s->arena = b;
	p = (uintptr_t)b->data;
	p = (p + align - 1) & ~(uintptr_t)(align - 1);
	b->used = p + size - (uintptr_t)b->data;
	return (void *)p;
}

/* A frame's identity: what stacks are kept apart by (offset follows from
 * addr and module). */
static uint64_t frame_hash(const struct frame *f)
{
	return mix64((uintptr_t)f->name ^ ((uint64_t)f->kind << 60) ^
		     mix64(f->addr ^ (uintptr_t)f->module ^ (uintptr_t)f->src));
}

static bool frame_eq(const void *entry, const void *key)
{
	const struct frame *a = entry, *b = key;

	return a->name == b->name && a->kind == b->kind && a->addr == b->addr &&
	       a->module == b->module && a->src == b->src;
}

/* The model's one copy of f (its name, module and source line already
 * the model's own); NULL: out of memory. */
static const struct frame *intern_frame(struct stacks *s, const struct frame *f)
{
	uint64_t h = frame_hash(f);
	struct frame *own = htab_find(s->frames, h, f, frame_eq);

	if (own)
		return own;
	own = arena_alloc(s, sizeof(*own), alignof(struct frame));
	if (!own)
		return NULL;
	*own = *f;
	if (htab_insert(s->frames, h, own))
		return NULL;
	return own;
}

#define PLAIN_KINDS 8	/* > every enum frame_kind */

/* intern_frame() for a frame with only a name and a kind: an array look-up. */
static const struct frame *intern_plain(struct stacks *s, const struct frame *f)
{
	size_t i = strpool_id(f->name) * PLAIN_KINDS + ((unsigned int)f->kind & (PLAIN_KINDS - 1));

	if (i >= s->plain_cap) {
		size_t cap = s->plain_cap ? s->plain_cap : 1024;
		const struct frame **np;

		while (cap <= i)
			cap *= 2;
		np = realloc(s->plain, cap * sizeof(*np));
		if (!np)
			return NULL;
		memset(np + s->plain_cap, 0, (cap - s->plain_cap) * sizeof(*np));
		s->plain = np;
		s->plain_cap = cap;
	}
	if (!s->plain[i])
		s->plain[i] = intern_frame(s, f);
	return s->plain[i];
}

/* Frames are interned, so a stack hashes and compares by their pointers:
 * the hash only decides slots in the index, never output order. */
static uint64_t hash_frames(const struct frame *const *frames, unsigned int depth)
{
	uint64_t h = depth;

	for (unsigned int i = 0; i < depth; i++)
		h = mix64(h ^ (uintptr_t)frames[i]);
	return h;
}

/* What the index is searched by: a stack of interned frames. */
struct stack_key {
	const struct frame *const *frames;
	unsigned int depth;
};

static bool entry_eq(const void *entry, const void *key)
{
	const struct stack_entry *e = entry;
	const struct stack_key *k = key;

	return e->depth == k->depth && !memcmp(e->frames, k->frames, k->depth * sizeof(*k->frames));
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
	/* small at first (they grow): a short run's model holds a few
	 * stacks, and every page written at start-up is a page fault */
	s->names = strpool_new();
	s->index = htab_new(32);
	s->modules = htab_new(32);
	s->srcs = htab_new(32);
	s->frames = htab_new(64);
	if (!s->names || !s->index || !s->modules || !s->srcs || !s->frames) {
		stacks_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void stacks_keep_names_only(struct stacks *s)
{
	s->names_only = true;
}

size_t stacks_bytes(const struct stacks *s)
{
	if (!s)
		return 0;
	return sizeof(*s) + s->arena_bytes + s->entries_cap * sizeof(*s->entries) +
	       s->plain_cap * sizeof(*s->plain) + s->scratch_cap * sizeof(*s->scratch) +
	       htab_bytes(s->modules) + htab_bytes(s->srcs) + htab_bytes(s->frames) +
	       htab_bytes(s->index) + strpool_bytes(s->names);
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
	htab_free(s->frames);
	free(s->plain);
	free(s->scratch);
	free(s);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Adds interned frames as an entry, or to the equal entry's value. */
static int add_entry(struct stacks *s, const struct frame *const *frames, unsigned int depth,
		     uint64_t value, uint64_t events)
{
	struct stack_key key = { frames, depth };
	uint64_t h = hash_frames(frames, depth);
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
	memcpy(e + 1, frames, depth * sizeof(*frames));
	e->frames = (const struct frame *const *)(e + 1);
	e->depth = depth;
	e->value = value;
	e->events = events;
	if (htab_insert(s->index, h, e))
		return -ENOMEM;
	s->entries[s->nentries++] = e;
	s->total = add_sat(s->total, value);
	s->sorted = s->nentries < 2;
	return 0;
}

int stacks_add(struct stacks *s, const struct frame *frames, unsigned int depth,
	       uint64_t value)
{
	return stacks_add_events(s, frames, depth, value, 0);
}

/* Room for depth frames in s->scratch. */
static int scratch_room(struct stacks *s, unsigned int depth)
{
	const struct frame **scratch;

	if (depth <= s->scratch_cap)
		return 0;
	scratch = realloc(s->scratch, depth * sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	s->scratch = scratch;
	s->scratch_cap = depth;
	return 0;
}

int stacks_add_events(struct stacks *s, const struct frame *frames, unsigned int depth,
		      uint64_t value, uint64_t events)
{
	if (!s || !frames || !depth)
		return -EINVAL;
	for (unsigned int i = 0; i < depth; i++)
		if (!frames[i].name)
			return -EINVAL;
	if (scratch_room(s, depth))
		return -ENOMEM;
	if (s->names_only) {
		for (unsigned int i = 0; i < depth; i++) {
			struct frame f = { strpool_intern(s->names, frames[i].name), frames[i].kind };

			if (!f.name || !(s->scratch[i] = intern_plain(s, &f)))
				return -ENOMEM;
		}
		return add_entry(s, s->scratch, depth, value, events);
	}
	for (unsigned int i = 0; i < depth; i++) {
		struct frame f = {
			.name = strpool_intern(s->names, frames[i].name),
			.kind = frames[i].kind,
			.addr = frames[i].addr,
			.offset = frames[i].offset,
			.module = intern_module(s, frames[i].module),
			.src = intern_src(s, frames[i].src),
		};

		if (!f.name || (frames[i].module && !f.module) || (frames[i].src && !f.src) ||
		    !(s->scratch[i] = intern_frame(s, &f)))
			return -ENOMEM;
	}
	return add_entry(s, s->scratch, depth, value, events);
}

int stacks_intern_n(struct stacks *s, size_t n, const char *const *names, const size_t *lens,
		    const char **out)
{
	return strpool_intern_n(s->names, n, names, lens, out);
}

int stacks_add_interned(struct stacks *s, const struct frame *frames, unsigned int depth,
			uint64_t value)
{
	if (!s || !frames || !depth)
		return -EINVAL;
	for (unsigned int i = 0; i < depth; i++)
		if (!frames[i].name || frames[i].module || frames[i].src)
			return -EINVAL;
	if (scratch_room(s, depth))
		return -ENOMEM;
	for (unsigned int i = 0; i < depth; i++) {
		struct frame f = { frames[i].name, frames[i].kind };

		if (!(s->scratch[i] = (frames[i].addr || frames[i].offset) && !s->names_only
					      ? intern_frame(s, &frames[i])
					      : intern_plain(s, &f)))
			return -ENOMEM;
	}
	return add_entry(s, s->scratch, depth, value, 0);
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
		const struct frame *fa = a->frames[i], *fb = b->frames[i];
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
		const struct frame *fa = a->frames[i], *fb = b->frames[i];
		int c;

		if (fa == fb)
			continue;
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
		if (a->frames[i] != b->frames[i] && (a->frames[i]->name != b->frames[i]->name ||
						     a->frames[i]->kind != b->frames[i]->kind))
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

/* An entry as stacks_sort() orders it: its frames as (rank of the name
 * among all names by strcmp(), kind) pairs packed into one number each,
 * so that most comparisons read a few contiguous words instead of every
 * frame of two entries and strcmp(). */
struct sort_item {
	const uint32_t *key;
	unsigned int depth;
	struct stack_entry *e;
};

#define RANK_SHIFT 3	/* enum frame_kind in the low bits */

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int item_cmp(const void *pa, const void *pb)
{
	const struct sort_item *a = pa, *b = pb;
	unsigned int n = a->depth < b->depth ? a->depth : b->depth;

	for (unsigned int i = 0; i < n; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return stacks_entry_cmp(a->e, b->e);	/* equal by name: by address */
}

/* stacks_sort() through the packed keys; -ENOMEM (nothing changed) when
 * they cannot be had. */
static int sort_by_rank(struct stacks *s)
{
	size_t nnames = strpool_count(s->names), nframes = 0, o = 0;
	const char **names = malloc((nnames ? nnames : 1) * sizeof(*names));
	uint32_t *rank = malloc((nnames ? nnames : 1) * sizeof(*rank)), *keys = NULL;
	struct sort_item *items = malloc(s->nentries * sizeof(*items));
	int err = -ENOMEM;

	if (!names || !rank || !items || nnames >= (UINT32_MAX >> RANK_SHIFT))
		goto out;
	for (size_t i = 0; i < nnames; i++)
		names[i] = strpool_get(s->names, i);
	qsort(names, nnames, sizeof(*names), strcmp_ptr);	/* names are distinct */
	for (size_t i = 0; i < nnames; i++)
		rank[strpool_id(names[i])] = (uint32_t)i;
	for (size_t i = 0; i < s->nentries; i++)
		nframes += s->entries[i]->depth;
	keys = malloc((nframes ? nframes : 1) * sizeof(*keys));
	if (!keys)
		goto out;
	for (size_t i = 0; i < s->nentries; i++) {
		struct stack_entry *e = s->entries[i];

		items[i] = (struct sort_item){ keys + o, e->depth, e };
		for (unsigned int d = 0; d < e->depth; d++)
			keys[o++] = rank[strpool_id(e->frames[d]->name)] << RANK_SHIFT |
				    (uint32_t)e->frames[d]->kind;
	}
	qsort(items, s->nentries, sizeof(*items), item_cmp);
	for (size_t i = 0; i < s->nentries; i++)
		s->entries[i] = items[i].e;
	err = 0;
out:
	free(names);
	free(rank);
	free(keys);
	free(items);
	return err;
}

void stacks_sort(struct stacks *s)
{
	if (!s || s->sorted)
		return;
	s->sorted = true;
	if (s->nentries < 2 || !sort_by_rank(s))
		return;
	/* Entries are distinct, so the order is total and qsort's lack of
	 * stability does not matter.  The index points at the entries, which
	 * do not move. */
	qsort(s->entries, s->nentries, sizeof(*s->entries), entry_qsort_cmp);
}

bool stacks_is_sorted(const struct stacks *s)
{
	return s && s->sorted;
}
