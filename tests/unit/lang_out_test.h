/* Helpers of the lang/output unit tests: values built by hand (what the
 * runtime would read back from the kernel), a printer into memory, and
 * the golden files of tests/lang/golden (made by bpftrace 0.17). */
#ifndef LANG_OUT_TEST_H
#define LANG_OUT_TEST_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "lang/output.h"

/* Every allocation of a test, freed by lo_reset(). */
static void *lo_allocs[4096];
static size_t lo_nallocs;

static inline void *lo_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	if (lo_nallocs < sizeof(lo_allocs) / sizeof(lo_allocs[0]))
		lo_allocs[lo_nallocs++] = p;
	return p;
}

static inline void lo_reset(void)
{
	while (lo_nallocs)
		free(lo_allocs[--lo_nallocs]);
}

/* ---- values ---- */

static inline struct lang_val vi(int64_t i)
{
	return (struct lang_val){ .kind = LANG_K_INT, .is_signed = true, .i = i };
}

static inline struct lang_val vu(uint64_t u)
{
	return (struct lang_val){ .kind = LANG_K_INT, .i = (int64_t)u };
}

static inline struct lang_val vagg(enum lang_kind k, int64_t i)
{
	return (struct lang_val){ .kind = k, .is_signed = k != LANG_K_COUNT, .i = i };
}

#define C(n) vagg(LANG_K_COUNT, n)
#define SUM(n) vagg(LANG_K_SUM, n)

static inline struct lang_val vstrn(const char *s, size_t n)
{
	return (struct lang_val){ .kind = LANG_K_STR, .s = s, .len = n };
}

static inline struct lang_val vs(const char *s)
{
	return vstrn(s, strlen(s));
}

static inline struct lang_val vbuf(const char *s, size_t n)
{
	return (struct lang_val){ .kind = LANG_K_BUF, .s = s, .len = n };
}

static inline struct lang_val vavg(uint64_t count, int64_t sum)
{
	return (struct lang_val){ .kind = LANG_K_AVG, .count = count, .sum = sum };
}

static inline struct lang_val vstats(uint64_t count, int64_t sum)
{
	return (struct lang_val){ .kind = LANG_K_STATS, .count = count, .sum = sum };
}

/* A tuple of n values. */
static inline struct lang_val vtup(size_t n, ...)
{
	struct lang_val *e = lo_alloc(n * sizeof(*e));
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		e[i] = va_arg(ap, struct lang_val);
	va_end(ap);
	return (struct lang_val){ .kind = LANG_K_TUPLE, .elems = e, .nelems = n };
}

/* A hist of k with the values vals[0..n) recorded once each. */
static inline struct lang_val vhist_k(unsigned k, const int64_t *vals, size_t n)
{
	size_t nb = LANG_HIST_NBUCKETS(k);
	uint64_t *b = lo_alloc(nb * sizeof(*b));

	for (size_t i = 0; i < n; i++) {
		unsigned idx = lang_hist_index(vals[i], k);

		if (idx < nb)
			b[idx]++;
	}
	return (struct lang_val){ .kind = LANG_K_HIST, .buckets = b, .nbuckets = nb, .k = k };
}

#define VHIST(...)                                                                   \
	vhist_k(0, (const int64_t[]){ __VA_ARGS__ },                                 \
		sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

static inline struct lang_val vlhist(int64_t min, int64_t max, int64_t step, const int64_t *vals,
				     size_t n)
{
	size_t nb = LANG_LHIST_NBUCKETS(min, max, step);
	uint64_t *b = lo_alloc(nb * sizeof(*b));

	for (size_t i = 0; i < n; i++) {
		unsigned idx = lang_lhist_index(vals[i], min, max, step);

		if (idx < nb)
			b[idx]++;
	}
	return (struct lang_val){ .kind = LANG_K_LHIST, .buckets = b, .nbuckets = nb,
				  .lmin = min, .lmax = max, .lstep = step };
}

#define VLHIST(min, max, step, ...)                                                  \
	vlhist(min, max, step, (const int64_t[]){ __VA_ARGS__ },                     \
	       sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

/* Records v times more in a hist/lhist value (unroll(N) { @h = hist(v) }). */
static inline void vhist_add(struct lang_val *h, int64_t v, uint64_t times)
{
	unsigned idx = h->kind == LANG_K_HIST ? lang_hist_index(v, h->k)
					      : lang_lhist_index(v, h->lmin, h->lmax, h->lstep);

	if (idx < h->nbuckets)
		((uint64_t *)h->buckets)[idx] += times;
}

/* A key: one value, kept alive until lo_reset(). */
static inline const struct lang_val *k1(struct lang_val v)
{
	struct lang_val *p = lo_alloc(sizeof(*p));

	*p = v;
	return p;
}

/* ---- maps ---- */

#define LO_MAXENTS 64
struct tmap {
	const char *name;
	size_t n;
	struct lang_map_entry e[LO_MAXENTS];
};

static inline struct tmap *tm(const char *name)
{
	struct tmap *m = lo_alloc(sizeof(*m));

	m->name = name;
	return m;
}

static inline struct tmap *tm_put(struct tmap *m, const struct lang_val *key, struct lang_val v)
{
	if (m->n < LO_MAXENTS)
		m->e[m->n++] = (struct lang_map_entry){ .key = key, .value = v };
	return m;
}

/* print(@m, top, div) */
static inline void tm_print(struct lang_out *o, struct tmap *m, uint32_t top, uint32_t div)
{
	CHECK_INT(lang_out_map(o, m->name, m->e, m->n, top, div), 0);
}

/* The maps at exit. */
static inline void tm_exit(struct lang_out *o, size_t n, ...)
{
	struct lang_out_mapdata *md = lo_alloc((n ? n : 1) * sizeof(*md));
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		struct tmap *m = va_arg(ap, struct tmap *);

		md[i] = (struct lang_out_mapdata){ m->name, m->e, m->n };
	}
	va_end(ap);
	CHECK_INT(lang_out_maps(o, md, n), 0);
}

/* printf with a C-string format. */
static inline void tprintf(struct lang_out *o, const char *fmt, size_t n, ...)
{
	struct lang_val *a = lo_alloc((n ? n : 1) * sizeof(*a));
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		a[i] = va_arg(ap, struct lang_val);
	va_end(ap);
	CHECK_INT(lang_out_printf(o, fmt, strlen(fmt), a, n), 0);
}

static inline void tprint(struct lang_out *o, struct lang_val v)
{
	CHECK_INT(lang_out_value(o, &v), 0);
}

/* ---- running a printer into memory ---- */

struct lo_run {
	char *text;
	size_t len;
};

/* Output of fn(o) in fmt; err (lost events etc.) into *err if given. */
static inline struct lo_run lo_capture(void (*fn)(struct lang_out *), enum lang_out_format fmt,
				       struct lo_run *err)
{
	struct lo_run r = { 0 }, e = { 0 };
	FILE *f = open_memstream(&r.text, &r.len);
	FILE *fe = open_memstream(&e.text, &e.len);
	struct lang_out *o;

	if (!f || !fe)
		abort();
	o = lang_out_new(f, fmt);
	if (!o)
		abort();
	lang_out_set_err(o, fe);
	fn(o);
	lang_out_free(o);
	fclose(f);
	fclose(fe);
	if (err)
		*err = e;
	else
		free(e.text);
	return r;
}

static inline char *lo_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Compares got with the file; reports the first difference. */
static inline void lo_check_bytes(const char *file, int line, const char *what, const char *got,
				  size_t glen, const char *want, size_t wlen)
{
	size_t i = 0;

	while (i < glen && i < wlen && got[i] == want[i])
		i++;
	if (i == glen && i == wlen)
		return;
	{
		size_t from = i > 40 ? i - 40 : 0;

		test_fail(file, line,
			  "%s differs at byte %zu (got %zu bytes, want %zu)\n    got:  \"%.*s\"\n    want: \"%.*s\"",
			  what, i, glen, wlen, (int)((glen - from) < 120 ? glen - from : 120),
			  got + from, (int)((wlen - from) < 120 ? wlen - from : 120), want + from);
	}
}

/* fn's text output against tests/lang/golden/NAME.out, its JSON against
 * NAME.json. */
static inline void lo_golden(const char *file, int line, const char *name,
			     void (*fn)(struct lang_out *))
{
	static const char *const ext[2] = { "out", "json" };

	for (int j = 0; j < 2; j++) {
		char path[256];
		size_t wlen;
		char *want;
		struct lo_run r;

		snprintf(path, sizeof(path), "tests/lang/golden/%s.%s", name, ext[j]);
		want = lo_read(path, &wlen);
		if (!want) {
			test_fail(file, line, "cannot read %s (run from the source tree)", path);
			continue;
		}
		r = lo_capture(fn, j ? LANG_OUT_JSON : LANG_OUT_TEXT, NULL);
		lo_check_bytes(file, line, path, r.text, r.len, want, wlen);
		free(r.text);
		free(want);
		lo_reset();
	}
}

#define GOLDEN(name)                                                                 \
	static void golden_##name(struct lang_out *o);                               \
	TEST(lang_out_golden_##name)                                                 \
	{                                                                            \
		lo_golden(__FILE__, __LINE__, #name, golden_##name);                 \
	}                                                                            \
	static void golden_##name(struct lang_out *o)

/* The text of fn(o) as a C string (the last 8 stay valid). */
static inline const char *lo_text(void (*fn)(struct lang_out *), enum lang_out_format fmt)
{
	static char *ring[8];
	static int next;
	struct lo_run r = lo_capture(fn, fmt, NULL);

	free(ring[next % 8]);
	ring[next % 8] = r.text;
	return ring[next++ % 8];
}

#endif
