/* pprof reader: the profile is inflated into memory, its tables (strings,
 * functions, mappings, locations) decoded whatever order they come in,
 * then every Sample resolved into frames for the stacks model. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "common.h"
#include "report/pprof.h"

/* A protobuf message being read; err sticks at the first malformation. */
struct pr {
	const unsigned char *p, *end;
	int err;
};

static uint64_t pr_varint(struct pr *r)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			break;
		unsigned char c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->err = -EINVAL;
	r->p = r->end;
	return 0;
}

/* The next field: its number and wire type, with a LEN field's bytes in
 * *sub and a VARINT's value in *v; false at the end or on an error.
 * Fixed-width fields (profile.proto has none) are skipped. */
static bool pr_field(struct pr *r, unsigned int *field, unsigned int *wire, uint64_t *v,
		     struct pr *sub)
{
	while (!r->err && r->p < r->end) {
		uint64_t key = pr_varint(r), len;

		*field = (unsigned int)(key >> 3);
		*wire = key & 7;
		switch (*wire) {
		case 0:
			*v = pr_varint(r);
			return !r->err;
		case 1:
		case 5:
			len = *wire == 1 ? 8 : 4;
			if ((uint64_t)(r->end - r->p) < len)
				break;
			r->p += len;
			continue;
		case 2:
			len = pr_varint(r);
			if (r->err || len > (uint64_t)(r->end - r->p))
				break;
			*sub = (struct pr){ r->p, r->p + len, 0 };
			r->p += len;
			return true;
		}
		r->err = -EINVAL;
	}
	return false;
}

/* Appends the integers of a repeated field, packed (LEN) or one (VARINT). */
static int pr_ints(unsigned int wire, uint64_t v, struct pr *sub, uint64_t **a, size_t *n,
		   size_t *cap)
{
	do {
		if (wire == 2) {
			if (sub->p >= sub->end)
				break;
			v = pr_varint(sub);
			if (sub->err)
				return sub->err;
		}
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			uint64_t *na = realloc(*a, ncap * sizeof(*na));
			if (!na)
				return -ENOMEM;
			*a = na;
			*cap = ncap;
		}
		(*a)[(*n)++] = v;
	} while (wire == 2);
	return 0;
}

struct pmapping {
	uint64_t id, start, offset, file, build_id;
};

struct plocation {
	uint64_t id, mapping, addr;
	size_t line0, nlines;		/* in the line array */
};

/* A Line: function id and line number. */
struct pline {
	uint64_t fn, line;
};

struct pfunction {
	uint64_t id, name, file;
};

/* The decoded tables; ids are looked up by binary search after sorting
 * (most writers number them 1..n in order, which the search finds as
 * fast). */
struct prof {
	const char **strs;
	size_t *lens;
	size_t nstrs, strs_cap;
	struct pmapping *maps;
	size_t nmaps, maps_cap;
	struct plocation *locs;
	size_t nlocs, locs_cap;
	struct pline *lines;
	size_t nlines, lines_cap;
	struct pfunction *fns;
	size_t nfns, fns_cap;
	struct pr *samples;
	size_t nsamples, samples_cap;
	uint64_t *types;		/* (type, unit) string pairs */
	size_t ntypes, types_cap;
	uint64_t default_type;
};

static int push(void *pp, size_t *n, size_t *cap, size_t size)
{
	void **p = pp;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *np = realloc(*p, ncap * size);
		if (!np)
			return -ENOMEM;
		*p = np;
		*cap = ncap;
	}
	memset((char *)*p + *n * size, 0, size);
	(*n)++;
	return 0;
}

static int decode_profile(struct prof *pf, struct pr *r)
{
	unsigned int field, wire, f2, w2;
	uint64_t v, v2;
	struct pr sub, s2;
	int err = 0;

	while (!err && pr_field(r, &field, &wire, &v, &sub)) {
		switch (field * 8 + wire) {
		case 1 * 8 + 2: /* sample_type */
			for (int i = 0; i < 2 && !err; i++)
				err = push(&pf->types, &pf->ntypes, &pf->types_cap, sizeof(*pf->types));
			while (!err && pr_field(&sub, &f2, &w2, &v2, &s2))
				if (w2 == 0 && (f2 == 1 || f2 == 2))
					pf->types[pf->ntypes - 3 + f2] = v2;
			break;
		case 2 * 8 + 2:
			err = push(&pf->samples, &pf->nsamples, &pf->samples_cap, sizeof(sub));
			if (!err)
				pf->samples[pf->nsamples - 1] = sub;
			break;
		case 3 * 8 + 2: {
			struct pmapping *m;

			err = push(&pf->maps, &pf->nmaps, &pf->maps_cap, sizeof(*m));
			m = &pf->maps[pf->nmaps - 1];
			while (!err && pr_field(&sub, &f2, &w2, &v2, &s2)) {
				if (w2)
					continue;
				switch (f2) {
				case 1: m->id = v2; break;
				case 2: m->start = v2; break;
				case 4: m->offset = v2; break;
				case 5: m->file = v2; break;
				case 6: m->build_id = v2; break;
				}
			}
			break;
		}
		case 4 * 8 + 2: {
			struct plocation *l;

			err = push(&pf->locs, &pf->nlocs, &pf->locs_cap, sizeof(*l));
			l = &pf->locs[pf->nlocs - 1];
			l->line0 = pf->nlines;
			while (!err && pr_field(&sub, &f2, &w2, &v2, &s2)) {
				struct pr s3;
				unsigned int f3, w3;
				uint64_t v3;

				if (f2 == 1 && !w2)
					l->id = v2;
				else if (f2 == 2 && !w2)
					l->mapping = v2;
				else if (f2 == 3 && !w2)
					l->addr = v2;
				else if (f2 == 4 && w2 == 2) {
					struct pline ln = { 0, 0 };

					while (pr_field(&s2, &f3, &w3, &v3, &s3)) {
						if (f3 == 1 && !w3)
							ln.fn = v3;
						else if (f3 == 2 && !w3)
							ln.line = v3;
					}
					err = s2.err ?: push(&pf->lines, &pf->nlines, &pf->lines_cap,
							     sizeof(*pf->lines));
					if (!err)
						pf->lines[pf->nlines - 1] = ln;
				}
			}
			l->nlines = pf->nlines - l->line0;
			break;
		}
		case 5 * 8 + 2: {
			struct pfunction *fn;

			err = push(&pf->fns, &pf->nfns, &pf->fns_cap, sizeof(*fn));
			fn = &pf->fns[pf->nfns - 1];
			while (!err && pr_field(&sub, &f2, &w2, &v2, &s2)) {
				if (f2 == 1 && !w2)
					fn->id = v2;
				else if (f2 == 2 && !w2)
					fn->name = v2;
				else if (f2 == 4 && !w2)
					fn->file = v2;
			}
			break;
		}
		case 6 * 8 + 2:
			err = push(&pf->strs, &pf->nstrs, &pf->strs_cap, sizeof(*pf->strs));
			if (!err) {
				size_t cap = pf->nstrs - 1;
				/* lens grows with strs */
				size_t *lens = realloc(pf->lens, pf->strs_cap * sizeof(*lens));
				if (!lens) {
					err = -ENOMEM;
					break;
				}
				pf->lens = lens;
				pf->strs[cap] = (const char *)sub.p;
				pf->lens[cap] = (size_t)(sub.end - sub.p);
			}
			break;
		case 14 * 8 + 0:
			pf->default_type = v;
			break;
		}
		if (!err)
			err = sub.err;
	}
	return err ?: r->err;
}

static int cmp_map(const void *a, const void *b)
{
	uint64_t x = ((const struct pmapping *)a)->id, y = ((const struct pmapping *)b)->id;
	return x < y ? -1 : x > y;
}

static int cmp_loc(const void *a, const void *b)
{
	uint64_t x = ((const struct plocation *)a)->id, y = ((const struct plocation *)b)->id;
	return x < y ? -1 : x > y;
}

static int cmp_fn(const void *a, const void *b)
{
	uint64_t x = ((const struct pfunction *)a)->id, y = ((const struct pfunction *)b)->id;
	return x < y ? -1 : x > y;
}

/* The element with id of a table sorted by id whose elements start with
 * their uint64_t id; ids are usually 1..n, which is tried first. */
static const void *find_id(const void *base, size_t n, size_t size, uint64_t id)
{
	const char *p = base;
	size_t lo = 0, hi = n;

#define ID_AT(i) (*(const uint64_t *)(p + (i) * size))
	if (id && id <= n && ID_AT(id - 1) == id)
		return p + (id - 1) * size;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ID_AT(mid) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ID_AT(lo) == id ? p + lo * size : NULL;
#undef ID_AT
}

#define FIND(arr, n, id) ((__typeof__(&(arr)[0]))find_id((arr), (n), sizeof((arr)[0]), (id)))

/* A string of the table as a NUL-terminated copy in buf (cut to fit). */
static const char *str_at(const struct prof *pf, uint64_t i, char *buf, size_t size)
{
	size_t n;

	if (i >= pf->nstrs) {
		buf[0] = '\0';
		return buf;
	}
	n = pf->lens[i] < size - 1 ? pf->lens[i] : size - 1;
	memcpy(buf, pf->strs[i], n);
	buf[n] = '\0';
	return buf;
}

static bool str_is(const struct prof *pf, uint64_t i, const char *s)
{
	return i < pf->nstrs && pf->lens[i] == strlen(s) && !memcmp(pf->strs[i], s, pf->lens[i]);
}

static bool is_kernel(const struct prof *pf, const struct pmapping *m)
{
	return m && m->file < pf->nstrs && pf->lens[m->file] >= 7 &&
	       !memcmp(pf->strs[m->file], "[kernel", 7);
}

/* What the frames of one sample need while they are built. */
struct build {
	struct frame *frames;
	size_t n, cap;
	char *names;		/* NUL-separated names of frames[], offsets in frames[].name */
	size_t nlen, ncap;
	struct frame_module *mods;
	size_t nmods, mods_cap;
	/* frames[i].src, while names move: (index + 1) into srcs, whose
	 * file is (offset + 1) into names, 0 for none */
	struct frame_src *srcs;
	size_t nsrcs, srcs_cap;
};

/* Appends len bytes of s and a NUL to b->names. */
static int add_name(struct build *b, const char *s, size_t len)
{
	while (b->nlen + len + 1 > b->ncap) {
		size_t ncap = b->ncap ? b->ncap * 2 : 4096;
		char *p = realloc(b->names, ncap);

		if (!p)
			return -ENOMEM;
		b->names = p;
		b->ncap = ncap;
	}
	memcpy(b->names + b->nlen, s, len);
	b->names[b->nlen + len] = '\0';
	b->nlen += len + 1;
	return 0;
}

/* The source line of the frame just added: file (a string of the table,
 * 0 none), line, inlined into the frame outside it. */
static int add_src(struct build *b, const struct prof *pf, uint64_t file, uint64_t line,
		   bool inlined)
{
	size_t len = file && file < pf->nstrs ? pf->lens[file] : 0;
	int err;

	if (!len && !line && !inlined)
		return 0;
	err = push(&b->srcs, &b->nsrcs, &b->srcs_cap, sizeof(*b->srcs));
	if (err)
		return err;
	b->srcs[b->nsrcs - 1] = (struct frame_src){
		.file = (const char *)(uintptr_t)(len ? b->nlen + 1 : 0),
		.line = line > UINT32_MAX ? 0 : (unsigned int)line, .inlined = inlined,
	};
	if (len && (err = add_name(b, pf->strs[file], len)))
		return err;
	b->frames[b->n - 1].src = (const struct frame_src *)(uintptr_t)b->nsrcs;
	return 0;
}

static int add_frame(struct build *b, const char *name, size_t len, enum frame_kind kind,
		     uint64_t addr, const struct frame_module *mod, uint64_t offset)
{
	int err = push(&b->frames, &b->n, &b->cap, sizeof(*b->frames));

	if (err)
		return err;
	/* an offset until the names stop moving */
	b->frames[b->n - 1] = (struct frame){ (const char *)(uintptr_t)b->nlen, kind, addr, mod,
					      offset };
	return add_name(b, name, len);
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void hex_to_build_id(const char *hex, size_t n, struct frame_module *m)
{
	m->build_id_len = 0;
	for (size_t i = 0; i + 1 < n && m->build_id_len < sizeof(m->build_id); i += 2) {
		int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);

		if (hi < 0 || lo < 0) {
			m->build_id_len = 0;	/* not hex: not a build id we know */
			return;
		}
		m->build_id[m->build_id_len++] = (unsigned char)(hi << 4 | lo);
	}
}

/* One sample's frames, leaf first as the profile lists them, then
 * reversed into the model's root-first order. */
static int add_sample(const struct prof *pf, struct pr *r, size_t vi, struct stacks *s,
		      struct build *b, const struct frame_module *mods)
{
	uint64_t *ids = NULL, *vals = NULL, comm = 0, pid = 0;
	size_t nids = 0, idcap = 0, nvals = 0, valcap = 0;
	bool has_comm = false;
	unsigned int field, wire, f2, w2;
	struct pr sub, s2;
	uint64_t v, v2;
	char buf[512];
	int err = 0;

	b->n = b->nlen = b->nsrcs = 0;
	while (!err && pr_field(r, &field, &wire, &v, &sub)) {
		if (field == 1)
			err = pr_ints(wire, v, &sub, &ids, &nids, &idcap);
		else if (field == 2)
			err = pr_ints(wire, v, &sub, &vals, &nvals, &valcap);
		else if (field == 3 && wire == 2) {
			uint64_t key = 0, str = 0, num = 0;

			while (pr_field(&sub, &f2, &w2, &v2, &s2)) {
				if (w2)
					continue;
				if (f2 == 1)
					key = v2;
				else if (f2 == 2)
					str = v2;
				else if (f2 == 3)
					num = v2;
			}
			if (str_is(pf, key, "comm"))
				comm = str, has_comm = true;
			else if (str_is(pf, key, "pid"))
				pid = num;
		}
	}
	err = err ?: r->err;
	if (err || vi >= nvals || (int64_t)vals[vi] <= 0 || !nids)
		goto out;
	for (size_t i = 0; i < nids && !err; i++) {
		const struct plocation *l = FIND(pf->locs, pf->nlocs, ids[i]);
		const struct pmapping *m;
		enum frame_kind kind;
		const struct frame_module *mod = NULL;
		uint64_t off = 0;

		if (!l) {
			err = -EINVAL;
			break;
		}
		m = FIND(pf->maps, pf->nmaps, l->mapping);
		kind = is_kernel(pf, m) ? FRAME_KERNEL : FRAME_USER;
		if (m) {
			mod = &mods[m - pf->maps];
			off = kind == FRAME_KERNEL ? l->addr : l->addr - m->start + m->offset;
		}
		/* Line[0] is the innermost of the inlined frames */
		for (size_t j = 0; j < l->nlines && !err; j++) {
			const struct pline *ln = &pf->lines[l->line0 + j];
			const struct pfunction *fn = FIND(pf->fns, pf->nfns, ln->fn);
			uint64_t name = fn ? fn->name : 0;

			if (name >= pf->nstrs)
				name = 0;
			err = add_frame(b, pf->strs[name], pf->lens[name], kind,
					l->addr, mod, off);
			if (!err)
				err = add_src(b, pf, fn ? fn->file : 0, ln->line, j + 1 < l->nlines);
		}
		if (!l->nlines && !err) {
			const char *file = m ? str_at(pf, m->file, buf, sizeof(buf)) : "";
			const char *base = strrchr(file, '/');
			char name[600];

			if (!m || kind == FRAME_KERNEL || !*file)
				snprintf(name, sizeof(name), "[unknown]");
			else
				snprintf(name, sizeof(name), "[%s+0x%" PRIx64 "]",
					 base ? base + 1 : file, off);
			err = add_frame(b, name, strlen(name), kind, l->addr, mod, off);
		}
	}
	if (err || !b->n)
		goto out;
	/* reverse into root first, names from offsets to pointers */
	for (size_t i = 0, j = b->n - 1; i < j; i++, j--) {
		struct frame t = b->frames[i];
		b->frames[i] = b->frames[j];
		b->frames[j] = t;
	}
	for (size_t i = 0; i < b->nsrcs; i++)
		if (b->srcs[i].file)
			b->srcs[i].file = b->names + (uintptr_t)b->srcs[i].file - 1;
	for (size_t i = 0; i < b->n; i++) {
		b->frames[i].name = b->names + (uintptr_t)b->frames[i].name;
		if (b->frames[i].src)
			b->frames[i].src = &b->srcs[(uintptr_t)b->frames[i].src - 1];
	}
	/* the process name as the root frame: the stacks stackscope writes */
	if (has_comm && !b->frames[0].module && comm < pf->nstrs &&
	    strlen(b->frames[0].name) == pf->lens[comm] &&
	    !memcmp(b->frames[0].name, pf->strs[comm], pf->lens[comm])) {
		b->frames[0].kind = FRAME_COMM;
		b->frames[0].addr = pid;
	}
	if (b->n > UINT32_MAX)
		err = -EINVAL;
	else
		err = stacks_add(s, b->frames, (unsigned int)b->n, vals[vi]);
out:
	free(ids);
	free(vals);
	return err;
}

static const char *show_unit(const char *unit)
{
	static const char *const map[][2] = {
		{ "count", "samples" }, { "nanoseconds", "ns" }, { "microseconds", "us" },
		{ "milliseconds", "ms" }, { "seconds", "s" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(unit, map[i][0]))
			return map[i][1];
	return unit;
}

/* The profile's bytes: inflated when gzip'ed (zlib header too). */
static int inflate_all(const unsigned char *data, size_t n, unsigned char **out, size_t *len)
{
	z_stream z = { 0 };
	size_t cap = n * 4 + 4096;
	unsigned char *p = malloc(cap);
	int zr, err = 0;

	if (!p)
		return -ENOMEM;
	if (inflateInit2(&z, 15 + 32) != Z_OK) {
		free(p);
		return -ENOMEM;
	}
	z.next_in = (unsigned char *)data;
	z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			unsigned char *np = realloc(p, cap * 2);
			if (!np) {
				err = -ENOMEM;
				break;
			}
			p = np;
			cap *= 2;
		}
		z.next_out = p + *len;
		z.avail_out = cap - *len > UINT32_MAX ? UINT32_MAX : (uInt)(cap - *len);
		zr = inflate(&z, Z_NO_FLUSH);
		*len = (size_t)(z.next_out - p);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			err = -EINVAL;
			break;
		}
		if (zr == Z_BUF_ERROR && z.avail_out) {
			err = -EINVAL;	/* truncated */
			break;
		}
	}
	inflateEnd(&z);
	if (err)
		free(p);
	else
		*out = p;
	return err;
}

bool report_pprof_detect(const void *data, size_t n)
{
	const unsigned char *p = data;

	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return true;
	/* sample_type (field 1, LEN), then its type (field 1, VARINT) */
	return n >= 3 && p[0] == 0x0a && p[1] < 0x80 && p[2] == 0x08;
}

int report_pprof_read(const void *data, size_t n, struct stacks *s, const char *type,
		      struct pprof_read_info *info)
{
	const unsigned char *bytes = data;
	unsigned char *raw = NULL;
	struct prof pf = { 0 };
	struct build b = { 0 };
	struct frame_module *mods = NULL;
	char names[2][256];
	size_t len = n, vi;
	int err;

	memset(info, 0, sizeof(*info));
	if (n >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
		err = inflate_all(bytes, n, &raw, &len);
		if (err)
			return err;
		bytes = raw;
	}
	err = decode_profile(&pf, &(struct pr){ bytes, bytes + len, 0 });
	if (err)
		goto out;
	err = -EINVAL;
	if (!pf.ntypes || !pf.nstrs)
		goto out;
	qsort(pf.maps, pf.nmaps, sizeof(*pf.maps), cmp_map);
	qsort(pf.locs, pf.nlocs, sizeof(*pf.locs), cmp_loc);
	qsort(pf.fns, pf.nfns, sizeof(*pf.fns), cmp_fn);
	/* the value read: the one asked for, the default, or the last */
	vi = pf.ntypes / 2 - 1;
	for (size_t i = 0; i < pf.ntypes / 2; i++) {
		if (type ? str_is(&pf, pf.types[2 * i], type)
			 : pf.default_type && pf.types[2 * i] == pf.default_type) {
			vi = i;
			break;
		}
		if (type && i + 1 == pf.ntypes / 2) {
			snprintf(info->type, sizeof(info->type), "%s", type);
			goto out;
		}
	}
	str_at(&pf, pf.types[2 * vi], names[0], sizeof(names[0]));
	str_at(&pf, pf.types[2 * vi + 1], names[1], sizeof(names[1]));
	snprintf(info->type, sizeof(info->type), "%s", names[0]);
	snprintf(info->unit, sizeof(info->unit), "%s", show_unit(names[1]));

	err = -ENOMEM;
	mods = calloc(pf.nmaps ? pf.nmaps : 1, sizeof(*mods));
	if (!mods)
		goto out;
	for (size_t i = 0; i < pf.nmaps; i++) {
		uint64_t b_id = pf.maps[i].build_id;
		char *path = malloc(256);

		if (!path)
			goto out;
		mods[i].path = str_at(&pf, pf.maps[i].file, path, 256);
		if (b_id < pf.nstrs)
			hex_to_build_id(pf.strs[b_id], pf.lens[b_id], &mods[i]);
	}
	err = 0;
	for (size_t i = 0; i < pf.nsamples && !err; i++) {
		err = add_sample(&pf, &pf.samples[i], vi, s, &b, mods);
		info->samples++;
	}
out:
	for (size_t i = 0; mods && i < pf.nmaps; i++)
		free((char *)mods[i].path);
	free(mods);
	free(b.frames);
	free(b.names);
	free(b.srcs);
	free(pf.strs);
	free(pf.lens);
	free(pf.maps);
	free(pf.locs);
	free(pf.lines);
	free(pf.fns);
	free(pf.samples);
	free(pf.types);
	free(raw);
	return err;
}
