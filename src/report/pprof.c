/* pprof writer: the profile is encoded into memory (string table,
 * functions, mappings and locations deduplicated by hash tables whose
 * entries are indexes into growable arrays), then gzip-compressed onto
 * the file with zlib. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "report/pprof.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12, PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

#define KERNEL_MAPPING "[kernel.kallsyms]"
/* Lines of one Location: a function and those inlined in it (the
 * symbolizer keeps at most SRCLINE_MAX_LEVELS; frames read back from
 * another profile may have more, which then take a Location of their
 * own). */
#define PPROF_MAX_LINES 64
#define PAGE 0x1000ULL

/* A growable byte buffer; err sticks at the first failure. */
struct pb {
	unsigned char *p;
	size_t len, cap;
	int err;
};

static void pb_reserve(struct pb *b, size_t n)
{
	if (b->err || b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	pb_reserve(b, 10);
	if (b->err)
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (unsigned char)v;
}

/* A varint field; zero is the default and is left out. */
static void pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned int field, const void *data, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | WIRE_LEN);
	pb_varint(b, n);
	pb_reserve(b, n);
	if (b->err)
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* A nested message: m's bytes under field, m emptied for reuse. */
static void pb_msg(struct pb *b, unsigned int field, struct pb *m)
{
	if (m->err && !b->err)
		b->err = m->err;
	pb_bytes(b, field, m->p, m->len);
	m->len = 0;
}

struct mapping {
	const struct frame_module *mod;	/* NULL: the kernel's, for frames without one */
	uint64_t bias;			/* load address: addr - offset */
	uint64_t lo, hi;		/* addresses seen; lo > hi: none */
	int64_t file, build_id;		/* string indexes */
	bool lineless;			/* some location without a Line */
	bool files, line_numbers;	/* some Line with a file name, a line number */
	bool inlines;			/* some location with several Lines */
};

/* A Line: a function and a line number in it (0: unknown). */
struct pline {
	uint64_t function;
	uint64_t line;
};

/* lines: nlines Lines from w->lines[line0], the innermost first; none
 * for an unsymbolized frame. */
struct location {
	uint64_t mapping;		/* id, 0: none */
	uint64_t addr;
	size_t line0, nlines;
};

/* A Function: its name and file as string indexes. */
struct pfunc {
	uint64_t name, file;
};

/* Everything deduplicated while the samples are encoded.  Hash table
 * entries are (void *)(index + 1) into the arrays, so the arrays may move
 * as they grow; keys are compared through the writer. */
struct pw {
	struct strpool *pool;		/* copies of the strings in the table */
	const char **strs;
	size_t nstrs, strs_cap;
	struct htab *str_index;
	struct pfunc *fns;		/* function id - 1 -> name and file */
	size_t nfns, fns_cap;
	uint64_t *fn_of_str;		/* name's string index -> id of the function
					 * without a file, 0: none */
	size_t fn_of_str_cap;
	struct htab *fn_index;		/* functions with a file */
	struct pline *lines;		/* every location's, back to back */
	size_t nlines, lines_cap;
	struct pline scratch[PPROF_MAX_LINES];	/* the location being looked up */
	struct mapping *maps;
	size_t nmaps, maps_cap;
	struct htab *map_index;
	struct location *locs;
	size_t nlocs, locs_cap;
	struct htab *loc_index;
};

static int grow(void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = pp;

	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	void *np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

struct str_key {
	const struct pw *w;
	const char *s;
};

static bool str_eq(const void *entry, const void *key)
{
	const struct str_key *k = key;

	return !strcmp(k->w->strs[(uintptr_t)entry - 1], k->s);
}

/* The string table index of s; -ENOMEM. */
static int64_t str_id(struct pw *w, const char *s)
{
	struct str_key k = { w, s };
	uint64_t h = hash_bytes(s, strlen(s), 0);
	void *e = htab_find(w->str_index, h, &k, str_eq);
	const char *own;

	if (e)
		return (int64_t)((uintptr_t)e - 1);
	if (grow(&w->strs, &w->strs_cap, w->nstrs + 1, sizeof(*w->strs)))
		return -ENOMEM;
	own = strpool_intern(w->pool, s);
	if (!own)
		return -ENOMEM;
	w->strs[w->nstrs] = own;
	if (htab_insert(w->str_index, h, (void *)(uintptr_t)(w->nstrs + 1)))
		return -ENOMEM;
	return (int64_t)w->nstrs++;
}

static uint64_t new_function(struct pw *w, uint64_t name, uint64_t file)
{
	if (grow(&w->fns, &w->fns_cap, w->nfns + 1, sizeof(*w->fns)))
		return 0;
	w->fns[w->nfns++] = (struct pfunc){ name, file };
	return w->nfns;
}

struct fn_key {
	const struct pw *w;
	struct pfunc f;
};

static bool fn_eq(const void *entry, const void *key)
{
	const struct fn_key *k = key;
	const struct pfunc *f = &k->w->fns[(uintptr_t)entry - 1];

	return f->name == k->f.name && f->file == k->f.file;
}

/* The function id named name, in file (NULL: unknown); 0 when out of
 * memory.  Without a file (most frames) by an array, else hashed. */
static uint64_t function_id(struct pw *w, const char *name, const char *file)
{
	int64_t si = str_id(w, name), fi = file ? str_id(w, file) : 0;
	size_t old = w->fn_of_str_cap;
	struct fn_key k;
	uint64_t h, id;
	void *e;

	if (si < 0 || fi < 0)
		return 0;
	if (fi) {
		k = (struct fn_key){ w, { (uint64_t)si, (uint64_t)fi } };
		h = mix64((uint64_t)si ^ mix64((uint64_t)fi));
		e = htab_find(w->fn_index, h, &k, fn_eq);
		if (e)
			return (uintptr_t)e;
		id = new_function(w, (uint64_t)si, (uint64_t)fi);
		if (!id || htab_insert(w->fn_index, h, (void *)(uintptr_t)id))
			return 0;
		return id;
	}
	if (grow(&w->fn_of_str, &w->fn_of_str_cap, (size_t)si + 1, sizeof(*w->fn_of_str)))
		return 0;
	memset(w->fn_of_str + old, 0, (w->fn_of_str_cap - old) * sizeof(*w->fn_of_str));
	if (w->fn_of_str[si])
		return w->fn_of_str[si];
	return w->fn_of_str[si] = new_function(w, (uint64_t)si, 0);
}

struct map_key {
	const struct pw *w;
	const struct frame_module *mod;
	uint64_t bias;
};

static bool map_eq(const void *entry, const void *key)
{
	const struct map_key *k = key;
	const struct mapping *m = &k->w->maps[(uintptr_t)entry - 1];

	return m->mod == k->mod && m->bias == k->bias;
}

static int hex_build_id(struct pw *w, const struct frame_module *m, int64_t *out)
{
	char hex[2 * sizeof(m->build_id) + 1];

	for (unsigned int i = 0; i < m->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	hex[2 * m->build_id_len] = '\0';
	*out = m->build_id_len ? str_id(w, hex) : 0;
	return *out < 0 ? (int)*out : 0;
}

/* The mapping id of a frame, 0 for none.  Modules are interned by the
 * stacks model, so pointers compare. */
static int mapping_id(struct pw *w, const struct frame *fr, uint64_t *id)
{
	const struct frame_module *mod = fr->module;
	uint64_t bias = mod ? fr->addr - fr->offset : 0, h;
	struct map_key k;
	struct mapping *m;
	void *e;

	*id = 0;
	if (!mod && fr->kind != FRAME_KERNEL)
		return 0;
	if (!mod || !fr->addr)
		bias = 0;
	k = (struct map_key){ w, mod, bias };
	h = mix64((uintptr_t)mod ^ mix64(bias));
	e = htab_find(w->map_index, h, &k, map_eq);
	if (!e) {
		if (grow(&w->maps, &w->maps_cap, w->nmaps + 1, sizeof(*w->maps)))
			return -ENOMEM;
		m = &w->maps[w->nmaps];
		*m = (struct mapping){ .mod = mod, .bias = bias, .lo = UINT64_MAX };
		m->file = str_id(w, mod ? mod->path : KERNEL_MAPPING);
		if (m->file < 0 || (mod && hex_build_id(w, mod, &m->build_id)))
			return -ENOMEM;
		e = (void *)(uintptr_t)++w->nmaps;
		if (htab_insert(w->map_index, h, e))
			return -ENOMEM;
	}
	*id = (uintptr_t)e;
	m = &w->maps[*id - 1];
	if (fr->addr && mod) {
		if (fr->addr < m->lo)
			m->lo = fr->addr;
		if (fr->addr > m->hi)
			m->hi = fr->addr;
	}
	return 0;
}

/* The name the symbolizer gives a frame it found no symbol for: a
 * Location without a Line then, for a later symbolizer. */
static bool unsymbolized(const struct frame *fr)
{
	const char *base, *p;
	char want[64];
	size_t n;

	if (!fr->module || !fr->addr || fr->name[0] != '[')
		return false;
	if (!strcmp(fr->name, "[unknown]"))
		return true;
	base = strrchr(fr->module->path, '/');
	base = base ? base + 1 : fr->module->path;
	n = strlen(base);
	p = fr->name + 1;
	if (strncmp(p, base, n))
		return false;
	snprintf(want, sizeof(want), "+0x%" PRIx64 "]", fr->offset);
	return !strcmp(p + n, want);
}

struct loc_key {
	const struct pw *w;
	struct location l;
	const struct pline *lines;	/* l.nlines of them */
};

static bool loc_eq(const void *entry, const void *key)
{
	const struct loc_key *k = key;
	const struct location *b = &k->w->locs[(uintptr_t)entry - 1];

	return k->l.mapping == b->mapping && k->l.addr == b->addr && k->l.nlines == b->nlines &&
	       !memcmp(k->lines, k->w->lines + b->line0, b->nlines * sizeof(*k->lines));
}

/* Whether frames[i] is a function inlined into frames[i - 1] at its
 * address: the two are then Lines of one Location. */
static bool inlined_into_outer(const struct frame *const *frames, unsigned int i)
{
	return i > 0 && frames[i]->src && frames[i]->src->inlined && frames[i]->kind == FRAME_USER &&
	       frames[i - 1]->kind == FRAME_USER && frames[i - 1]->addr == frames[i]->addr &&
	       frames[i - 1]->module == frames[i]->module;
}

/* The location id of frames[outer..inner] (one frame, or a function and
 * those inlined in it, outer first); 0 when out of memory. */
static uint64_t location_id(struct pw *w, const struct frame *const *frames, unsigned int outer,
			    unsigned int inner)
{
	const struct frame *fr = frames[outer];
	struct loc_key k = { w };
	struct mapping *m;
	uint64_t h;
	void *e;

	if (mapping_id(w, fr, &k.l.mapping))
		return 0;
	k.l.addr = k.l.mapping ? fr->addr : 0;
	k.lines = w->scratch;
	m = k.l.mapping ? &w->maps[k.l.mapping - 1] : NULL;
	if (m && unsymbolized(fr)) {
		m->lineless = true;
	} else {
		for (unsigned int i = inner + 1; i-- > outer && k.l.nlines < PPROF_MAX_LINES;) {
			const struct frame_src *src = frames[i]->src;
			struct pline *l = &w->scratch[k.l.nlines++];

			l->function = function_id(w, frames[i]->name, src ? src->file : NULL);
			l->line = src ? src->line : 0;
			if (!l->function)
				return 0;
			if (m && src) {
				m->files |= src->file != NULL;
				m->line_numbers |= src->line != 0;
			}
		}
		if (m && k.l.nlines > 1)
			m->inlines = true;
	}
	h = mix64(k.l.mapping ^ mix64(k.l.addr ^ k.l.nlines));
	for (size_t i = 0; i < k.l.nlines; i++)
		h = mix64(h ^ k.lines[i].function ^ (k.lines[i].line << 32));
	e = htab_find(w->loc_index, h, &k, loc_eq);
	if (e)
		return (uintptr_t)e;
	if (grow(&w->locs, &w->locs_cap, w->nlocs + 1, sizeof(*w->locs)) ||
	    grow(&w->lines, &w->lines_cap, w->nlines + k.l.nlines, sizeof(*w->lines)))
		return 0;
	k.l.line0 = w->nlines;
	memcpy(w->lines + w->nlines, k.lines, k.l.nlines * sizeof(*k.lines));
	w->nlines += k.l.nlines;
	w->locs[w->nlocs] = k.l;
	if (htab_insert(w->loc_index, h, (void *)(uintptr_t)(w->nlocs + 1)))
		return 0;
	return ++w->nlocs;
}

static void label(struct pw *w, struct pb *smp, struct pb *tmp, const char *key,
		  const char *str, const uint64_t *num)
{
	int64_t k = str_id(w, key), v = str ? str_id(w, str) : 0;

	if (k < 0 || v < 0) {
		smp->err = -ENOMEM;
		return;
	}
	pb_uint(tmp, LABEL_KEY, (uint64_t)k);
	pb_uint(tmp, LABEL_STR, (uint64_t)v);
	if (num) {
		/* a pid of 0 (the idle task) is written, not left to the default */
		pb_varint(tmp, LABEL_NUM << 3 | WIRE_VARINT);
		pb_varint(tmp, *num);
	}
	pb_msg(smp, SAMPLE_LABEL, tmp);
}

static void write_sample(struct pw *w, struct pb *out, struct pb *smp, struct pb *tmp,
			 const struct stack_entry *e, const struct pprof_opts *o)
{
	const struct frame *comm = NULL, *waker = NULL, *task = NULL;

	for (unsigned int d = e->depth; d-- > 0;) {
		const struct frame *fr = e->frames[d];
		unsigned int outer = d;
		uint64_t id;

		while (inlined_into_outer(e->frames, outer) && d - outer + 1 < PPROF_MAX_LINES)
			outer--;
		id = location_id(w, e->frames, outer, d);
		if (!id) {
			smp->err = -ENOMEM;
			return;
		}
		pb_varint(tmp, id);
		d = outer;
		if (fr->kind == FRAME_COMM) {
			if (!comm)
				comm = fr;
			else if (!waker)
				waker = fr;
		} else if (fr->kind == FRAME_TASK && !task && !comm) {
			task = fr;
		}
	}
	pb_msg(smp, SAMPLE_LOCATION_ID, tmp);
	for (unsigned int i = 0; i < o->ntypes; i++) {
		uint64_t scale = o->types[i].scale ? o->types[i].scale : 1;
		uint64_t x = o->types[i].events ? e->events : e->value;
		uint64_t v = x > INT64_MAX / scale ? INT64_MAX : x * scale;

		pb_varint(tmp, v);
	}
	pb_msg(smp, SAMPLE_VALUE, tmp);
	if (comm) {
		label(w, smp, tmp, "comm", comm->name, NULL);
		label(w, smp, tmp, "pid", NULL, &comm->addr);
	}
	if (task && comm && !strncmp(task->name, "[tid ", 5)) {
		/* the comm is the thread's name at the sample */
		label(w, smp, tmp, "tid", NULL, &task->addr);
		label(w, smp, tmp, "thread_name", comm->name, NULL);
	}
	if (waker) {
		label(w, smp, tmp, "waker_comm", waker->name, NULL);
		label(w, smp, tmp, "waker_pid", NULL, &waker->addr);
	}
	pb_msg(out, PROFILE_SAMPLE, smp);
}

static void value_type(struct pw *w, struct pb *out, struct pb *tmp, unsigned int field,
		       const char *type, const char *unit)
{
	int64_t t = str_id(w, type), u = str_id(w, unit);

	if (t < 0 || u < 0) {
		out->err = -ENOMEM;
		return;
	}
	pb_uint(tmp, VALUETYPE_TYPE, (uint64_t)t);
	pb_uint(tmp, VALUETYPE_UNIT, (uint64_t)u);
	pb_msg(out, field, tmp);
}

/* Mapping ranges from the addresses seen, page-aligned, with the file
 * offset that maps memory_start back to the module's file. */
static void write_mappings(struct pw *w, struct pb *out, struct pb *tmp)
{
	for (size_t i = 0; i < w->nmaps; i++) {
		const struct mapping *m = &w->maps[i];
		uint64_t start = 0, limit = 0, off = 0;

		if (m->lo <= m->hi) {
			uint64_t lo_off = m->lo - m->bias, in_page = m->lo & (PAGE - 1);

			if (!m->mod || lo_off < in_page)
				in_page = 0;
			start = m->lo - in_page;
			off = m->mod ? lo_off - in_page : 0;
			limit = (m->hi | (PAGE - 1)) == UINT64_MAX ? UINT64_MAX
								  : (m->hi | (PAGE - 1)) + 1;
		}
		pb_uint(tmp, MAPPING_ID, i + 1);
		pb_uint(tmp, MAPPING_START, start);
		pb_uint(tmp, MAPPING_LIMIT, limit);
		pb_uint(tmp, MAPPING_OFFSET, off);
		pb_uint(tmp, MAPPING_FILENAME, (uint64_t)m->file);
		pb_uint(tmp, MAPPING_BUILD_ID, (uint64_t)m->build_id);
		pb_uint(tmp, MAPPING_HAS_FUNCTIONS, !m->lineless);
		pb_uint(tmp, MAPPING_HAS_FILENAMES, m->files);
		pb_uint(tmp, MAPPING_HAS_LINE_NUMBERS, m->line_numbers);
		pb_uint(tmp, MAPPING_HAS_INLINE_FRAMES, m->inlines);
		pb_msg(out, PROFILE_MAPPING, tmp);
	}
}

static void write_tables(struct pw *w, struct pb *out, struct pb *tmp, struct pb *line)
{
	write_mappings(w, out, tmp);
	for (size_t i = 0; i < w->nlocs; i++) {
		const struct location *l = &w->locs[i];

		pb_uint(tmp, LOCATION_ID, i + 1);
		pb_uint(tmp, LOCATION_MAPPING_ID, l->mapping);
		pb_uint(tmp, LOCATION_ADDRESS, l->addr);
		for (size_t j = 0; j < l->nlines; j++) {
			pb_uint(line, LINE_FUNCTION_ID, w->lines[l->line0 + j].function);
			pb_uint(line, LINE_LINE, w->lines[l->line0 + j].line);
			pb_msg(tmp, LOCATION_LINE, line);
		}
		pb_msg(out, PROFILE_LOCATION, tmp);
	}
	for (size_t i = 0; i < w->nfns; i++) {
		pb_uint(tmp, FUNCTION_ID, i + 1);
		pb_uint(tmp, FUNCTION_NAME, w->fns[i].name);
		pb_uint(tmp, FUNCTION_SYSTEM_NAME, w->fns[i].name);
		pb_uint(tmp, FUNCTION_FILENAME, w->fns[i].file);
		pb_msg(out, PROFILE_FUNCTION, tmp);
	}
	for (size_t i = 0; i < w->nstrs; i++)
		pb_bytes(out, PROFILE_STRING_TABLE, w->strs[i], strlen(w->strs[i]));
}

/* gzip, at zlib's fastest level as Go's runtime/pprof writes it: the
 * profile is mostly small varints and compresses well anyway. */
static int gzip_write(FILE *f, const unsigned char *data, size_t n)
{
	unsigned char out[64 * 1024];
	z_stream z = { 0 };
	int zr, err = 0;

	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)data;
	do {
		uInt chunk = n > (1u << 30) ? 1u << 30 : (uInt)n;

		z.avail_in = chunk;
		n -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, n ? Z_NO_FLUSH : Z_FINISH);
			if (zr == Z_STREAM_ERROR) {
				err = -EIO;
				goto end;
			}
			if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
				err = errno ? -errno : -EIO;
				goto end;
			}
		} while (z.avail_out == 0);
	} while (n);
end:
	deflateEnd(&z);
	return err;
}

int report_pprof_write(FILE *f, const struct stacks *s, const struct pprof_opts *o)
{
	static const struct pprof_opts dflt = {
		.types = { { "samples", "count", 1 } }, .ntypes = 1,
	};
	struct pb out = { 0 }, smp = { 0 }, tmp = { 0 }, line = { 0 };
	struct pw w = { 0 };
	size_t n = stacks_count(s);
	int err = -ENOMEM;

	if (!f || !s)
		return -EINVAL;
	if (!o || !o->ntypes)
		o = &dflt;
	if (o->ntypes > PPROF_MAX_TYPES)
		return -EINVAL;
	w.pool = strpool_new();
	w.str_index = htab_new(1024);
	w.map_index = htab_new(64);
	w.loc_index = htab_new(n < 1024 ? 1024 : n);
	w.fn_index = htab_new(256);
	if (!w.pool || !w.str_index || !w.map_index || !w.loc_index || !w.fn_index ||
	    str_id(&w, "") != 0)
		goto free_all;

	for (unsigned int i = 0; i < o->ntypes; i++)
		value_type(&w, &out, &tmp, PROFILE_SAMPLE_TYPE, o->types[i].type, o->types[i].unit);
	for (size_t i = 0; i < n && !out.err && !smp.err; i++)
		write_sample(&w, &out, &smp, &tmp, stacks_get(s, i), o);
	if (smp.err || tmp.err)
		goto free_all;
	if (o->period_type)
		value_type(&w, &out, &tmp, PROFILE_PERIOD_TYPE, o->period_type,
			   o->period_unit ? o->period_unit : "");
	for (unsigned int i = 0; i < ARRAY_SIZE(o->comments) && o->comments[i]; i++) {
		int64_t c = str_id(&w, o->comments[i]);

		if (c < 0)
			goto free_all;
		pb_uint(&out, PROFILE_COMMENT, (uint64_t)c);
	}
	pb_uint(&out, PROFILE_TIME_NANOS, (uint64_t)o->time_nanos);
	pb_uint(&out, PROFILE_DURATION_NANOS, (uint64_t)o->duration_nanos);
	pb_uint(&out, PROFILE_PERIOD, (uint64_t)o->period);
	if (o->default_type) {
		int64_t d = str_id(&w, o->default_type);

		if (d < 0)
			goto free_all;
		pb_uint(&out, PROFILE_DEFAULT_SAMPLE_TYPE, (uint64_t)d);
	}
	/* last: every string is in by now */
	write_tables(&w, &out, &tmp, &line);
	if (out.err || tmp.err || line.err)
		goto free_all;
	err = gzip_write(f, out.p, out.len);
	if (!err && fflush(f))
		err = -errno;
	if (!err && ferror(f))
		err = -EIO;
free_all:
	free(out.p);
	free(smp.p);
	free(tmp.p);
	free(line.p);
	strpool_free(w.pool);
	free(w.strs);
	htab_free(w.str_index);
	free(w.fns);
	free(w.fn_of_str);
	htab_free(w.fn_index);
	free(w.lines);
	free(w.maps);
	htab_free(w.map_index);
	free(w.locs);
	htab_free(w.loc_index);
	return err;
}
