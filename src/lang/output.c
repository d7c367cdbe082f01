/* What a language program prints (see output.h): bpftrace 0.17's text
 * and JSON forms, rebuilt from its output.cpp, bpftrace.cpp (sorting,
 * map printing) and format_string.cpp (printf).
 *
 * Every printer renders into a growable buffer first, then writes it
 * with one fwrite, so that a record is never half written on ENOMEM. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lang/output.h"
#include "report/json.h"

struct lang_out {
	FILE *out, *err;
	enum lang_out_format fmt;
	struct timespec boottime;
};

/* ---- a growable string ------------------------------------------------ */

struct sb {
	char *p;
	size_t len, cap;
	bool failed;
};

static void sb_grow(struct sb *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->failed || b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return;
		}
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void sb_add(struct sb *b, const char *s, size_t n)
{
	sb_grow(b, n);
	if (b->failed)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_chr(struct sb *b, char c, size_t n)
{
	sb_grow(b, n);
	if (b->failed)
		return;
	memset(b->p + b->len, c, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void __attribute__((format(printf, 2, 3))) sb_fmt(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	sb_grow(b, 64);
	if (b->failed)
		return;
	/* most pieces fit what is left: format once */
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n < b->cap - b->len) {
		b->len += (size_t)n;
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* The JSON literal of s[0..n). */
static void sb_json(struct sb *b, const char *s, size_t n)
{
	size_t need = json_format_string(NULL, 0, s, n);

	sb_grow(b, need);
	if (b->failed)
		return;
	json_format_string(b->p + b->len, need + 1, s, n);
	b->len += need;
}

/* Writes b to f and frees it: 0, -ENOMEM or -EIO. */
static int sb_flush(struct sb *b, FILE *f)
{
	int ret = 0;

	if (b->failed)
		ret = -ENOMEM;
	else if (b->len && fwrite(b->p, 1, b->len, f) != b->len)
		ret = -EIO;
	free(b->p);
	*b = (struct sb){ 0 };
	return ret;
}

/* ---- the object ------------------------------------------------------- */

struct lang_out *lang_out_new(FILE *out, enum lang_out_format fmt)
{
	struct lang_out *o = calloc(1, sizeof(*o));
	struct timespec rt, bt;

	if (!o)
		return NULL;
	o->out = out;
	o->err = stderr;
	o->fmt = fmt;
	if (!clock_gettime(CLOCK_REALTIME, &rt) && !clock_gettime(CLOCK_BOOTTIME, &bt)) {
		o->boottime.tv_sec = rt.tv_sec - bt.tv_sec;
		o->boottime.tv_nsec = rt.tv_nsec - bt.tv_nsec;
		if (o->boottime.tv_nsec < 0) {
			o->boottime.tv_sec--;
			o->boottime.tv_nsec += 1000000000L;
		}
	}
	return o;
}

void lang_out_free(struct lang_out *o)
{
	free(o);
}

void lang_out_set_err(struct lang_out *o, FILE *err)
{
	o->err = err;
}

void lang_out_set_boottime(struct lang_out *o, struct timespec boottime)
{
	o->boottime = boottime;
}

/* ---- buckets ---------------------------------------------------------- */

unsigned lang_hist_index(int64_t v, unsigned k)
{
	uint64_t n, mask;
	unsigned l = 0;

	if (k > LANG_HIST_MAXK)
		k = LANG_HIST_MAXK;
	if (v < 0)
		return 0;
	mask = (1ULL << k) - 1;
	if ((uint64_t)v <= mask)
		return (unsigned)v + 1;
	/* l = floor(log2(v)), as bpftrace's six shift steps compute it */
	n = (uint64_t)v;
	for (int i = 5; i >= 0; i--) {
		unsigned shift = (n >= (1ULL << (1u << i))) << i;

		n >>= shift;
		l += shift;
	}
	l -= k;
	return ((l + 1) << k) + (unsigned)(((uint64_t)v >> l) & mask) + 1;
}

unsigned lang_lhist_index(int64_t v, int64_t min, int64_t max, int64_t step)
{
	if (step <= 0)
		return 0;
	if (v < min)
		return 0;
	if (v > max)
		return (unsigned)((uint64_t)(max - min) / (uint64_t)step + 1);
	return (unsigned)((uint64_t)(v - min) / (uint64_t)step + 1);
}

/* The lower bound of hist bucket i (i >= 1), k as above: bpftrace's
 * hist_index_label(i - 1, k) before the suffix. */
static uint64_t hist_low(size_t i, unsigned k, unsigned *power, uint64_t *mult)
{
	uint64_t n = 1ULL << k, idx = i - 1;

	*power = (unsigned)((idx >> k) - 1);
	*mult = n + (idx & (n - 1));
	return (*power < 64 ? 1ULL << *power : 0) * *mult;
}

/* bpftrace's hist label: the power of two split into a K/M/G/T/P/E
 * decade ("[4, 8)", "[1K, 2K)"). */
static void hist_label(struct sb *b, size_t i, unsigned k)
{
	unsigned power, decade;
	uint64_t mult;

	hist_low(i, k, &power, &mult);
	decade = power / 10;
	if (decade > 6)
		decade = 6;
	power -= 10 * decade;
	sb_fmt(b, "%llu", (unsigned long long)((1ULL << power) * mult));
	if (decade)
		sb_chr(b, "\0KMGTPE"[decade], 1);
}

/* bpftrace 0.17's lhist label: 2^20 multiples as NM, 2^10 as NK. */
static void lhist_label(struct sb *b, int64_t n)
{
	if (n == 0)
		sb_str(b, "0");
	else if (n % 1048576 == 0)
		sb_fmt(b, "%lldM", (long long)(n / 1048576));
	else if (n % 1024 == 0)
		sb_fmt(b, "%lldK", (long long)(n / 1024));
	else
		sb_fmt(b, "%lld", (long long)n);
}

/* One bar line: "%-16s%8llu |%-52s|\n"; the bar is scaled in float as
 * bpftrace does (count / (float)max * 52), the count shown divided. */
static void bar_line(struct sb *b, const char *label, uint64_t count, uint64_t shown,
		     uint64_t max)
{
	int width = max ? (int)((float)count / (float)max * 52) : 0;

	if (width < 0 || width > 52)
		width = width < 0 ? 0 : 52;
	sb_fmt(b, "%-16s%8llu |", label, (unsigned long long)shown);
	sb_chr(b, '@', (size_t)width);
	sb_chr(b, ' ', (size_t)(52 - width));
	sb_str(b, "|\n");
}

/* First and last bucket with a count, the largest count; false if none. */
static bool hist_range(const struct lang_val *v, size_t *lo, size_t *hi, uint64_t *max)
{
	bool any = false;

	*max = 0;
	for (size_t i = 0; i < v->nbuckets; i++) {
		if (v->buckets[i]) {
			if (!any)
				*lo = i;
			*hi = i;
			any = true;
		}
		if (v->buckets[i] > *max)
			*max = v->buckets[i];
	}
	return any;
}

static size_t lhist_count(const struct lang_val *v)
{
	if (v->lstep <= 0 || v->lmax < v->lmin)
		return 0;
	return (size_t)((uint64_t)(v->lmax - v->lmin) / (uint64_t)v->lstep);
}

static void hist_text(struct sb *b, const struct lang_val *v, uint32_t div)
{
	size_t lo, hi;
	uint64_t max;
	struct sb label = { 0 };
	unsigned k = v->k > LANG_HIST_MAXK ? LANG_HIST_MAXK : v->k;

	if (!hist_range(v, &lo, &hi, &max))
		return;
	for (size_t i = lo; i <= hi; i++) {
		label.len = 0;
		if (i == 0) {
			sb_str(&label, "(..., 0)");
		} else if (i <= (2u << k)) {
			sb_fmt(&label, "[%zu]", i - 1);
		} else {
			sb_str(&label, "[");
			hist_label(&label, i, k);
			sb_str(&label, ", ");
			hist_label(&label, i + 1, k);
			sb_str(&label, ")");
		}
		if (label.failed)
			b->failed = true;
		else
			bar_line(b, label.p, v->buckets[i], v->buckets[i] / div, max);
	}
	free(label.p);
}

static void lhist_text(struct sb *b, const struct lang_val *v)
{
	size_t lo, hi, nb = lhist_count(v);
	uint64_t max;
	struct sb label = { 0 };

	if (!hist_range(v, &lo, &hi, &max))
		return;
	for (size_t i = lo; i <= hi; i++) {
		label.len = 0;
		if (i == 0) {
			sb_str(&label, "(..., ");
			lhist_label(&label, v->lmin);
			sb_str(&label, ")");
		} else if (i == nb + 1) {
			sb_str(&label, "[");
			lhist_label(&label, v->lmax);
			sb_str(&label, ", ...)");
		} else {
			sb_str(&label, "[");
			lhist_label(&label, (int64_t)(i - 1) * v->lstep + v->lmin);
			sb_str(&label, ", ");
			lhist_label(&label, (int64_t)i * v->lstep + v->lmin);
			sb_str(&label, ")");
		}
		if (label.failed)
			b->failed = true;
		else
			bar_line(b, label.p, v->buckets[i], v->buckets[i], max);
	}
	free(label.p);
}

static void hist_json(struct sb *b, const struct lang_val *v, uint32_t div)
{
	size_t lo, hi;
	uint64_t max;
	unsigned k = v->k > LANG_HIST_MAXK ? LANG_HIST_MAXK : v->k;

	if (!hist_range(v, &lo, &hi, &max)) {
		sb_str(b, "[]");
		return;
	}
	sb_str(b, "[");
	for (size_t i = lo; i <= hi; i++) {
		unsigned p;
		uint64_t m, low, high;

		if (i > lo)
			sb_str(b, ", ");
		if (i == 0) {
			sb_str(b, "{\"max\": -1, ");
		} else if (i <= (2u << k)) {
			sb_fmt(b, "{\"min\": %zu, \"max\": %zu, ", i - 1, i - 1);
		} else {
			low = hist_low(i, k, &p, &m);
			high = hist_low(i + 1, k, &p, &m) - 1;
			sb_fmt(b, "{\"min\": %llu, \"max\": %llu, ", (unsigned long long)low,
			       (unsigned long long)high);
		}
		sb_fmt(b, "\"count\": %llu}", (unsigned long long)(v->buckets[i] / div));
	}
	sb_str(b, "]");
}

static void lhist_json(struct sb *b, const struct lang_val *v)
{
	size_t lo, hi, nb = lhist_count(v);
	uint64_t max;

	if (!hist_range(v, &lo, &hi, &max)) {
		sb_str(b, "[]");
		return;
	}
	sb_str(b, "[");
	for (size_t i = lo; i <= hi; i++) {
		if (i > lo)
			sb_str(b, ", ");
		if (i == 0)
			sb_fmt(b, "{\"max\": %lld, ", (long long)(v->lmin - 1));
		else if (i == nb + 1)
			sb_fmt(b, "{\"min\": %lld, ", (long long)v->lmax);
		else
			sb_fmt(b, "{\"min\": %lld, \"max\": %lld, ",
			       (long long)((int64_t)(i - 1) * v->lstep + v->lmin),
			       (long long)((int64_t)i * v->lstep + v->lmin - 1));
		sb_fmt(b, "\"count\": %llu}", (unsigned long long)v->buckets[i]);
	}
	sb_str(b, "]");
}

/* ---- values as text --------------------------------------------------- */

/* bpftrace's hex_format_buffer(): printable bytes as they are (keep),
 * others "\xNN" (escape) or "NN" separated by spaces. */
static void buf_text(struct sb *b, const char *s, size_t n, bool keep, bool escape)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (keep && c >= 32 && c <= 126)
			sb_chr(b, (char)c, 1);
		else if (escape)
			sb_fmt(b, "\\x%02x", c);
		else
			sb_fmt(b, i == n - 1 ? "%02x" : "%02x ", c);
	}
}

/* bpftrace's get_stack(): a newline, then a line a frame. */
static void stack_text(struct sb *b, const struct lang_val *v, int indent)
{
	sb_str(b, "\n");
	for (size_t i = 0; i < v->nframes; i++) {
		const struct lang_frame *f = &v->frames[i];
		bool perf = v->stack_mode == LANG_STACK_PERF;

		if (!f->addr)
			break;
		if (f->addr == LANG_FRAME_TRUNCATED) {
			if (v->stack_mode != LANG_STACK_PERF)
				sb_chr(b, ' ', v->stack_mode == LANG_STACK_RAW ? 0 : (size_t)indent);
			if (perf)
				sb_chr(b, '\t', 1);
			sb_str(b, f->name ? f->name : "[truncated]");
			sb_chr(b, '\n', 1);
			continue;
		}
		if (v->stack_mode == LANG_STACK_RAW) {
			sb_fmt(b, "%llx\n", (unsigned long long)f->addr);
			continue;
		}
		if (perf)
			sb_fmt(b, "\t%llx ", (unsigned long long)f->addr);
		else
			sb_chr(b, ' ', (size_t)indent);
		if (f->name)
			sb_fmt(b, "%s+%llu", f->name, (unsigned long long)f->offset);
		else
			sb_fmt(b, "0x%llx", (unsigned long long)f->addr);
		if (v->user && perf)
			sb_fmt(b, " (%s)", f->module ? f->module : "[unknown]");
		sb_str(b, "\n");
	}
}

static void timestamp_text(struct sb *b, const struct lang_val *v, struct timespec boot);

/* Integers as bpftrace prints a value: signed or not, divided. */
static void int_text(struct sb *b, const struct lang_val *v, uint32_t div)
{
	if (!div)
		div = 1;
	if (v->is_signed)
		sb_fmt(b, "%lld", (long long)(v->i / (int64_t)div));
	else
		sb_fmt(b, "%llu", (unsigned long long)((uint64_t)v->i / div));
}

static int64_t avg_of(const struct lang_val *v)
{
	if (!v->count)
		return 0;
	if ((int64_t)v->count == -1 && v->sum == INT64_MIN)
		return INT64_MIN;	/* the one overflowing division */
	return v->sum / (int64_t)v->count;
}

/* The value as bpftrace's Output::value_to_str() (text) or
 * JsonOutput::value_to_str() (JSON: strings and stacks quoted, tuples as
 * arrays); indent is a stack's (8 for values). */
static void val_str(struct sb *b, const struct lang_val *v, bool json, uint32_t div, int indent,
		    struct timespec boot)
{
	struct sb t = { 0 };

	if (!div)
		div = 1;
	switch (v->kind) {
	case LANG_K_INT:
	case LANG_K_SUM:
	case LANG_K_MIN:
	case LANG_K_MAX:
		int_text(b, v, div);
		return;
	case LANG_K_COUNT:
		sb_fmt(b, "%llu", (unsigned long long)((uint64_t)v->i / div));
		return;
	case LANG_K_AVG:
		sb_fmt(b, "%lld", (long long)(avg_of(v) / (int64_t)div));
		return;
	case LANG_K_STATS:
		if (json)
			sb_fmt(b, "{\"count\": %lld, \"average\": %lld, \"total\": %lld}",
			       (long long)v->count, (long long)avg_of(v), (long long)v->sum);
		else
			sb_fmt(b, "count %lld, average %lld, total %lld", (long long)v->count,
			       (long long)avg_of(v), (long long)v->sum);
		return;
	case LANG_K_HIST:
		if (json)
			hist_json(b, v, div);
		else
			hist_text(b, v, div);
		return;
	case LANG_K_LHIST:
		if (json)
			lhist_json(b, v);
		else
			lhist_text(b, v);
		return;
	case LANG_K_TUPLE:
		sb_str(b, json ? "[" : "(");
		for (size_t i = 0; i < v->nelems; i++) {
			if (i)
				sb_str(b, json ? "," : ", ");
			val_str(b, &v->elems[i], json, 1, indent, boot);
		}
		sb_str(b, json ? "]" : ")");
		return;
	default:
		break;
	}
	/* the string-like kinds: rendered, then quoted in JSON */
	switch (v->kind) {
	case LANG_K_STR:
		sb_add(&t, v->s ? v->s : "", v->s ? strnlen(v->s, v->len) : 0);
		break;
	case LANG_K_BUF:
		buf_text(&t, v->s, v->len, true, true);
		break;
	case LANG_K_KSYM:
	case LANG_K_USYM:
		sb_add(&t, v->s ? v->s : "", v->s ? v->len : 0);
		break;
	case LANG_K_TIMESTAMP:
		timestamp_text(&t, v, boot);
		break;
	case LANG_K_STACK:
		stack_text(&t, v, indent);
		break;
	default:
		sb_fmt(&t, "%lld", (long long)v->i);
		break;
	}
	if (t.failed)
		b->failed = true;
	else if (json)
		sb_json(b, t.p ? t.p : "", t.len);
	else if (t.len)
		sb_add(b, t.p, t.len);
	free(t.p);
}

/* A map key element: text as bpftrace's MapKey::argument_value()
 * (integers always signed, stacks indented by 4). */
static void key_elem(struct sb *b, const struct lang_val *v, struct timespec boot)
{
	if (v->kind == LANG_K_INT || v->kind == LANG_K_COUNT || v->kind == LANG_K_SUM ||
	    v->kind == LANG_K_MIN || v->kind == LANG_K_MAX)
		sb_fmt(b, "%lld", (long long)v->i);
	else
		val_str(b, v, false, 1, 4, boot);
}

/* The key's elements: a TUPLE key is the map's list of keys. */
static void key_elems(const struct lang_val *key, const struct lang_val **elems, size_t *n)
{
	if (key->kind == LANG_K_TUPLE) {
		*n = key->nelems;
		*elems = key->elems;
	} else {
		*n = 1;
		*elems = key;
	}
}

/* Text "[a, b]" or JSON "\"a,b\"" of a key. */
static void key_str(struct sb *b, const struct lang_val *key, bool json, struct timespec boot)
{
	const struct lang_val *e;
	size_t n;
	struct sb t = { 0 };

	key_elems(key, &e, &n);
	if (!json) {
		sb_str(b, "[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				sb_str(b, ", ");
			key_elem(b, &e[i], boot);
		}
		sb_str(b, "]");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_str(&t, ",");
		key_elem(&t, &e[i], boot);
	}
	if (t.failed) {
		b->failed = true;
	} else if (json) {
		sb_json(b, t.p ? t.p : "", t.len);
	} else {
		sb_str(b, "[");
		sb_add(b, t.p ? t.p : "", t.len);
		sb_str(b, "]");
	}
	free(t.p);
}

static void timestamp_text(struct sb *b, const struct lang_val *v, struct timespec boot)
{
	uint64_t ns = (uint64_t)boot.tv_nsec + (uint64_t)v->i;
	time_t t = boot.tv_sec + (time_t)((double)ns / 1e9);
	char us[16], out[64];
	struct sb fmt = { 0 };
	struct tm tm;
	const char *f = v->s ? v->s : "";
	size_t flen = v->s ? strnlen(v->s, v->len) : 0;

	snprintf(us, sizeof(us), "%06llu", (unsigned long long)(ns % 1000000000 / 1000));
	for (size_t i = 0; i < flen; i++) {
		if (f[i] == '%' && i + 1 < flen && f[i + 1] == 'f') {
			sb_str(&fmt, us);
			i++;
		} else {
			sb_chr(&fmt, f[i], 1);
		}
	}
	if (fmt.failed) {
		b->failed = true;
	} else if (!localtime_r(&t, &tm) || !fmt.p ||
		   !strftime(out, sizeof(out), fmt.p, &tm)) {
		sb_str(b, "(?)");
	} else {
		sb_str(b, out);
	}
	free(fmt.p);
}

char *lang_val_text(const struct lang_val *v)
{
	struct sb b = { 0 };
	struct timespec boot = { 0 };

	val_str(&b, v, false, 1, 8, boot);
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	return b.p ? b.p : strdup("");
}

/* ---- sorting ---------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* bpftrace's sort_by_key(): integers as unsigned 64-bit, strings as
 * strncmp, other kinds equal; the first key first. */
static int key_cmp(const struct lang_val *a, const struct lang_val *b)
{
	const struct lang_val *ea, *eb;
	size_t na, nb;

	if (!a || !b)
		return 0;
	key_elems(a, &ea, &na);
	key_elems(b, &eb, &nb);
	for (size_t i = 0; i < na && i < nb; i++) {
		int c = 0;

		if (ea[i].kind == LANG_K_STR && eb[i].kind == LANG_K_STR) {
			size_t la = ea[i].s ? strnlen(ea[i].s, ea[i].len) : 0;
			size_t lb = eb[i].s ? strnlen(eb[i].s, eb[i].len) : 0;

			c = memcmp(ea[i].s ? ea[i].s : "", eb[i].s ? eb[i].s : "",
				   la < lb ? la : lb);
			if (!c)
				c = cmp_u64(la, lb);
		} else if (ea[i].kind != LANG_K_STR && eb[i].kind != LANG_K_STR &&
			   ea[i].kind != LANG_K_TUPLE && ea[i].kind != LANG_K_STACK) {
			c = cmp_u64((uint64_t)ea[i].i, (uint64_t)eb[i].i);
		}
		if (c)
			return c;
	}
	return 0;
}

/* The key order of bpftrace's hist/stats maps (a std::map over the key
 * bytes): integers byte by byte from the lowest (little-endian memory),
 * strings as above. */
static int key_bytes_cmp(const struct lang_val *a, const struct lang_val *b)
{
	const struct lang_val *ea, *eb;
	size_t na, nb;

	if (!a || !b)
		return 0;
	key_elems(a, &ea, &na);
	key_elems(b, &eb, &nb);
	for (size_t i = 0; i < na && i < nb; i++) {
		if (ea[i].kind == LANG_K_STR || ea[i].kind == LANG_K_TUPLE ||
		    ea[i].kind == LANG_K_STACK || eb[i].kind == LANG_K_STR) {
			const struct lang_val *pa = &ea[i], *pb = &eb[i];
			int c = key_cmp(pa, pb);

			if (c)
				return c;
			continue;
		}
		for (int byte = 0; byte < 8; byte++) {
			int c = cmp_u64((uint64_t)ea[i].i >> (8 * byte) & 0xff,
					(uint64_t)eb[i].i >> (8 * byte) & 0xff);

			if (c)
				return c;
		}
	}
	return 0;
}

static uint64_t hist_total(const struct lang_val *v)
{
	uint64_t t = 0;

	for (size_t i = 0; i < v->nbuckets; i++)
		t += v->buckets[i];
	return t;
}

/* Orders elements as bpftrace prints them (see lang_out_map()). */
static int ent_cmp(const struct lang_map_entry *a, const struct lang_map_entry *b)
{
	const struct lang_val *va = &a->value, *vb = &b->value;
	int c;

	switch (va->kind) {
	case LANG_K_INT:
	case LANG_K_SUM:
	case LANG_K_MIN:
	case LANG_K_MAX:
		c = va->is_signed ? cmp_i64(va->i, vb->i) : cmp_u64((uint64_t)va->i, (uint64_t)vb->i);
		return c ? c : key_cmp(a->key, b->key);
	case LANG_K_COUNT:
		c = cmp_u64((uint64_t)va->i, (uint64_t)vb->i);
		return c ? c : key_cmp(a->key, b->key);
	case LANG_K_HIST:
	case LANG_K_LHIST:
		c = cmp_u64(hist_total(va), hist_total(vb));
		return c ? c : key_bytes_cmp(a->key, b->key);
	case LANG_K_AVG:
	case LANG_K_STATS:
		c = cmp_i64(avg_of(va), avg_of(vb));
		return c ? c : key_bytes_cmp(a->key, b->key);
	default:
		return key_cmp(a->key, b->key);
	}
}

/* A stable merge sort of idx[0..n) by ent_cmp (equal elements keep the
 * caller's order). */
static void sort_idx(const struct lang_map_entry *ents, size_t *idx, size_t *tmp, size_t n)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_idx(ents, idx, tmp, mid);
	sort_idx(ents, idx + mid, tmp, n - mid);
	for (i = 0, j = mid, k = 0; i < mid || j < n;) {
		if (j >= n || (i < mid && ent_cmp(&ents[idx[i]], &ents[idx[j]]) <= 0))
			tmp[k++] = idx[i++];
		else
			tmp[k++] = idx[j++];
	}
	memcpy(idx, tmp, n * sizeof(*idx));
}

/* ---- maps ------------------------------------------------------------- */

static bool stack_like(enum lang_kind k)
{
	return k == LANG_K_STACK || k == LANG_K_KSYM || k == LANG_K_USYM;
}

/* Renders one map into b (text or JSON), as bpftrace's print_map(). */
static void map_str(struct lang_out *o, struct sb *b, const char *name,
		    const struct lang_map_entry *ents, size_t n, uint32_t top, uint32_t div)
{
	bool json = o->fmt == LANG_OUT_JSON;
	size_t *idx, *tmp, first = 0;
	enum lang_kind kind = n ? ents[0].value.kind : LANG_K_NONE;
	bool keyed = n && ents[0].key;
	bool hist = kind == LANG_K_HIST || kind == LANG_K_LHIST;
	bool stats = kind == LANG_K_AVG || kind == LANG_K_STATS;
	const char *type;

	if (!div)
		div = 1;
	if (json && !n)
		return;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		b->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_idx(ents, idx, tmp, n);
	/* top: the last top elements (stats() maps ignore it, as bpftrace) */
	if (top && n > top && kind != LANG_K_STATS)
		first = n - top;
	/* stats() maps print the raw numbers whatever div says */
	if (kind == LANG_K_STATS)
		div = 1;

	if (json) {
		type = hist ? "hist" : stats ? "stats" : "map";
		sb_fmt(b, "{\"type\": \"%s\", \"data\": {", type);
		sb_json(b, name, strlen(name));
		sb_str(b, ": ");
		if (keyed)
			sb_str(b, "{");
	}
	for (size_t j = first; j < n; j++) {
		const struct lang_map_entry *e = &ents[idx[j]];

		if (j > first) {
			if (json)
				sb_str(b, ", ");
			else if (!stack_like(kind))
				sb_str(b, "\n");
		}
		if (json) {
			if (e->key) {
				key_str(b, e->key, true, o->boottime);
				sb_str(b, ": ");
			}
		} else {
			sb_str(b, name);
			if (e->key)
				key_str(b, e->key, false, o->boottime);
			sb_str(b, hist ? ": \n" : ": ");
		}
		val_str(b, &e->value, json, div, 8, o->boottime);
	}
	if (json) {
		if (keyed)
			sb_str(b, "}");
		sb_str(b, "}}\n");
	} else {
		sb_str(b, stats ? "\n\n" : "\n");
	}
	free(idx);
	free(tmp);
}

int lang_out_map(struct lang_out *o, const char *name, const struct lang_map_entry *ents,
		 size_t n, uint32_t top, uint32_t div)
{
	struct sb b = { 0 };

	if (!o || !name || (n && !ents))
		return -EINVAL;
	map_str(o, &b, name, ents, n, top, div);
	return sb_flush(&b, o->out);
}

static int mapdata_cmp(const void *a, const void *b)
{
	const struct lang_out_mapdata *const *ma = a, *const *mb = b;

	return strcmp((*ma)->name, (*mb)->name);
}

int lang_out_maps(struct lang_out *o, const struct lang_out_mapdata *maps, size_t n)
{
	const struct lang_out_mapdata **order;
	struct sb b = { 0 };
	int ret = 0;

	if (!o || (n && !maps))
		return -EINVAL;
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = &maps[i];
	qsort(order, n, sizeof(*order), mapdata_cmp);
	if (o->fmt == LANG_OUT_TEXT)
		sb_str(&b, "\n\n");
	ret = sb_flush(&b, o->out);
	for (size_t i = 0; i < n && !ret; i++) {
		map_str(o, &b, order[i]->name, order[i]->ents, order[i]->n, 0, 0);
		ret = sb_flush(&b, o->out);
	}
	free(order);
	return ret;
}

/* ---- print(value) ---------------------------------------------------- */

int lang_out_value(struct lang_out *o, const struct lang_val *v)
{
	struct sb b = { 0 };

	if (!o || !v)
		return -EINVAL;
	if (o->fmt == LANG_OUT_JSON) {
		sb_str(&b, "{\"type\": \"value\", \"data\": ");
		val_str(&b, v, true, 1, 8, o->boottime);
		sb_str(&b, "}\n");
	} else {
		val_str(&b, v, false, 1, 8, o->boottime);
		sb_str(&b, "\n");
	}
	return sb_flush(&b, o->out);
}

/* ---- printf ----------------------------------------------------------- */

/* One conversion of a format: fmt[start..end) is "%[flags][width][.prec]
 * [len]conv"; conv 0 for one this printer does not know (printed as it
 * is). */
struct conv {
	size_t start, end;
	char flags[8];
	int width, prec;	/* -1: absent */
	int len;		/* 0 none, 1 h, 2 hh, 3 64-bit (l ll j z t) */
	char conv;		/* d i u x X o c p s r, or 'R' (%rx) 'H' (%rh) */
};

/* The next conversion at or after *pos, scanned as the checker counts
 * them ("%%" is no conversion): false when none is left. */
static bool next_conv(const char *f, size_t n, size_t *pos, struct conv *c)
{
	for (size_t i = *pos; i < n; i++) {
		size_t nf = 0;

		if (f[i] != '%')
			continue;
		if (i + 1 < n && f[i + 1] == '%') {
			i++;
			continue;
		}
		*c = (struct conv){ .start = i, .width = -1, .prec = -1 };
		i++;
		while (i < n && strchr("-+ #0", f[i]) && f[i]) {
			if (nf < sizeof(c->flags) - 1)
				c->flags[nf++] = f[i];
			i++;
		}
		while (i < n && f[i] >= '0' && f[i] <= '9') {
			c->width = (c->width < 0 ? 0 : c->width) * 10 + (f[i] - '0');
			if (c->width > 4096)
				c->width = 4096;
			i++;
		}
		if (i < n && f[i] == '.') {
			c->prec = 0;
			i++;
			while (i < n && f[i] >= '0' && f[i] <= '9') {
				c->prec = c->prec * 10 + (f[i] - '0');
				if (c->prec > 4096)
					c->prec = 4096;
				i++;
			}
		}
		/* the checker also lets digits and dots run on: skip the rest */
		while (i < n && f[i] && strchr("-+ #0123456789.", f[i]))
			i++;
		if (i + 1 < n && f[i] == 'h' && f[i + 1] == 'h') {
			c->len = 2;
			i += 2;
		} else if (i < n && f[i] == 'h') {
			c->len = 1;
			i++;
		} else {
			while (i < n && f[i] && strchr("lzjt", f[i])) {
				c->len = 3;
				i++;
			}
		}
		while (i < n && f[i] && strchr("hlzjt", f[i]))
			i++;
		if (i < n && f[i] && strchr("diuxXocps", f[i])) {
			c->conv = f[i];
			i++;
		} else if (i < n && f[i] == 'r') {
			c->conv = 'r';
			i++;
			if (i < n && f[i] == 'x') {
				c->conv = 'R';
				i++;
			} else if (i < n && f[i] == 'h') {
				c->conv = 'H';
				i++;
			}
		} else if (i < n) {
			i++;	/* a conversion the checker counted, unknown here */
		}
		c->end = i;
		*pos = i;
		return true;
	}
	return false;
}

/* "%" flags width .prec, for snprintf. */
static void conv_head(char *out, size_t size, const struct conv *c)
{
	int n = snprintf(out, size, "%%%s", c->flags);

	if (c->width >= 0 && n >= 0 && (size_t)n < size)
		n += snprintf(out + n, size - n, "%d", c->width);
	if (c->prec >= 0 && n >= 0 && (size_t)n < size)
		snprintf(out + n, size - n, ".%d", c->prec);
}

/* Text of one argument for %s. */
static void arg_text(struct sb *b, const struct lang_val *v, const struct conv *c,
		     struct timespec boot)
{
	if (v->kind == LANG_K_BUF)
		buf_text(b, v->s, v->len, c->conv != 'R' && c->conv != 'H', c->conv != 'H');
	else
		val_str(b, v, false, 1, 8, boot);
}

/* Appends the conversion of v: as snprintf(fmt, v) in bpftrace, where
 * the integer travels as 64 bits and "%d" reads its low 32. */
static void conv_print(struct sb *b, const struct conv *c, const struct lang_val *v,
		       struct timespec boot)
{
	char head[48], fmt[64];
	struct sb t = { 0 };
	bool intlike = v->kind != LANG_K_STR && v->kind != LANG_K_BUF && v->kind != LANG_K_KSYM &&
		       v->kind != LANG_K_USYM && v->kind != LANG_K_STACK &&
		       v->kind != LANG_K_TIMESTAMP && v->kind != LANG_K_TUPLE;
	uint64_t u = (uint64_t)v->i;
	char conv = c->conv;

	conv_head(head, sizeof(head), c);
	if (!intlike && conv != 's' && conv != 'r' && conv != 'R' && conv != 'H')
		conv = 's';
	switch (conv) {
	case 'd':
	case 'i':
		if (c->len == 3)
			snprintf(fmt, sizeof(fmt), "%sll%c", head, conv);
		else
			snprintf(fmt, sizeof(fmt), "%s%s%c", head,
				 c->len == 2 ? "hh" : c->len == 1 ? "h" : "", conv);
		if (c->len == 3)
			sb_fmt(b, fmt, (long long)u);
		else
			sb_fmt(b, fmt, (int)(uint32_t)u);
		return;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		if (c->len == 3)
			snprintf(fmt, sizeof(fmt), "%sll%c", head, conv);
		else
			snprintf(fmt, sizeof(fmt), "%s%s%c", head,
				 c->len == 2 ? "hh" : c->len == 1 ? "h" : "", conv);
		if (c->len == 3)
			sb_fmt(b, fmt, (unsigned long long)u);
		else
			sb_fmt(b, fmt, (unsigned)u);
		return;
	case 'c': {
		/* a NUL ends the piece, as bpftrace writes the buffer as a C string */
		char one[4096 + 8];

		snprintf(fmt, sizeof(fmt), "%sc", head);
		snprintf(one, sizeof(one), fmt, (int)(uint32_t)u);
		sb_str(b, one);
		return;
	}
	case 'p':
		snprintf(fmt, sizeof(fmt), "%sp", head);
		sb_fmt(b, fmt, (void *)(uintptr_t)u);
		return;
	case 's':
	case 'r':
	case 'R':
	case 'H':
		arg_text(&t, v, c, boot);
		snprintf(fmt, sizeof(fmt), "%s%c", head, 's');
		if (t.failed)
			b->failed = true;
		else
			sb_fmt(b, fmt, t.p ? t.p : "");
		free(t.p);
		return;
	default:
		return;
	}
}

/* Formats like bpftrace's FormatString::format() into b. */
static void printf_str(struct sb *b, const char *fmt, size_t fmtlen, const struct lang_val *args,
		       size_t nargs, struct timespec boot)
{
	size_t pos = 0, last = 0, used = 0;
	struct conv c;

	while (used < nargs && next_conv(fmt, fmtlen, &pos, &c)) {
		struct sb piece = { 0 };

		/* the text before: through snprintf, so "%%" is "%" */
		for (size_t i = last; i < c.start; i++) {
			if (fmt[i] == '%' && i + 1 < c.start && fmt[i + 1] == '%')
				i++;
			sb_chr(&piece, fmt[i], 1);
		}
		if (c.conv)
			conv_print(&piece, &c, &args[used], boot);
		else
			sb_add(&piece, fmt + c.start, c.end - c.start);
		used++;
		last = c.end;
		/* bpftrace writes each piece as a C string: a NUL ends it */
		if (piece.failed)
			b->failed = true;
		else if (piece.p)
			sb_add(b, piece.p, strnlen(piece.p, piece.len));
		free(piece.p);
	}
	/* the rest as it is */
	sb_add(b, fmt + last, fmtlen - last);
}

int lang_out_printf(struct lang_out *o, const char *fmt, size_t fmtlen, const struct lang_val *args,
		    size_t nargs)
{
	struct sb b = { 0 }, t = { 0 };

	if (!o || !fmt || (nargs && !args))
		return -EINVAL;
	if (o->fmt == LANG_OUT_JSON) {
		printf_str(&t, fmt, fmtlen, args, nargs, o->boottime);
		if (t.failed)
			b.failed = true;
		sb_str(&b, "{\"type\": \"printf\", \"data\": ");
		sb_json(&b, t.p ? t.p : "", t.len);
		sb_str(&b, "}\n");
		free(t.p);
	} else {
		printf_str(&b, fmt, fmtlen, args, nargs, o->boottime);
	}
	return sb_flush(&b, o->out);
}

/* ---- messages --------------------------------------------------------- */

/* Text as it is (nl: and a newline), or {"type": TYPE, "data": "..."}. */
static int message(struct lang_out *o, const char *type, const char *s, size_t n, bool nl)
{
	struct sb b = { 0 };

	if (o->fmt == LANG_OUT_JSON) {
		sb_fmt(&b, "{\"type\": \"%s\", \"data\": ", type);
		sb_json(&b, s, n);
		sb_str(&b, "}\n");
	} else {
		sb_add(&b, s, n);
		if (nl)
			sb_str(&b, "\n");
	}
	return sb_flush(&b, o->out);
}

int lang_out_time(struct lang_out *o, const char *fmt, time_t now)
{
	char out[64];
	struct tm tm;

	if (!o)
		return -EINVAL;
	if (!fmt)
		fmt = "%H:%M:%S\n";
	if (!localtime_r(&now, &tm))
		return lang_out_error(o, "localtime_r failed");
	if (!strftime(out, sizeof(out), fmt, &tm))
		return lang_out_error(o, "strftime returned 0");
	return message(o, "time", out, strlen(out), false);
}

int lang_out_join(struct lang_out *o, const char *const *args, size_t nargs, const char *delim)
{
	struct sb b = { 0 };
	int ret;

	if (!o || (nargs && !args))
		return -EINVAL;
	if (!delim)
		delim = " ";
	for (size_t i = 0; i < nargs && args[i] && args[i][0]; i++) {
		if (i)
			sb_str(&b, delim);
		sb_str(&b, args[i]);
	}
	if (b.failed) {
		free(b.p);
		return -ENOMEM;
	}
	ret = message(o, "join", b.p ? b.p : "", b.len, true);
	free(b.p);
	return ret;
}

int lang_out_cat(struct lang_out *o, const char *text, size_t len)
{
	return o ? message(o, "cat", text ? text : "", text ? len : 0, false) : -EINVAL;
}

int lang_out_system(struct lang_out *o, const char *text, size_t len)
{
	return o ? message(o, "syscall", text ? text : "", text ? len : 0, false) : -EINVAL;
}

/* {"type": TYPE, "data": {"FIELD": n}} on out, or the text line on err. */
static int counted(struct lang_out *o, const char *type, const char *field, uint64_t n,
		   const char *text)
{
	struct sb b = { 0 };

	if (o->fmt == LANG_OUT_JSON) {
		sb_fmt(&b, "{\"type\": \"%s\", \"data\": {\"%s\": %llu}}\n", type, field,
		       (unsigned long long)n);
		return sb_flush(&b, o->out);
	}
	sb_str(&b, text);
	return sb_flush(&b, o->err);
}

int lang_out_lost(struct lang_out *o, uint64_t n)
{
	char text[64];

	if (!o)
		return -EINVAL;
	snprintf(text, sizeof(text), "%llu events lost\n", (unsigned long long)n);
	return counted(o, "lost_events", "events", n, text);
}

int lang_out_attached(struct lang_out *o, unsigned nprobes)
{
	char text[64];

	if (!o)
		return -EINVAL;
	snprintf(text, sizeof(text), "Attached %u probe%s\n", nprobes, nprobes == 1 ? "" : "s");
	return counted(o, "attached_probes", "probes", nprobes, text);
}

int lang_out_error(struct lang_out *o, const char *msg)
{
	struct sb b = { 0 };

	if (!o || !msg)
		return -EINVAL;
	if (o->fmt == LANG_OUT_JSON) {
		sb_str(&b, "{\"type\": \"error\", \"msg\": ");
		sb_json(&b, msg, strlen(msg));
		sb_str(&b, "}\n");
		return sb_flush(&b, o->out);
	}
	sb_str(&b, msg);
	sb_str(&b, "\n");
	return sb_flush(&b, o->err);
}

int lang_out_helper_error(struct lang_out *o, const char *where, const char *helper, int retcode,
			  unsigned line, unsigned col)
{
	struct sb b = { 0 };

	if (!o || !helper)
		return -EINVAL;
	if (o->fmt == LANG_OUT_JSON) {
		sb_str(&b, "{\"type\": \"helper_error\", \"helper\": ");
		sb_json(&b, helper, strlen(helper));
		sb_fmt(&b, ", \"retcode\": %d, \"line\": %u, \"col\": %u}\n", retcode, line, col);
		return sb_flush(&b, o->out);
	}
	if (where)
		sb_fmt(&b, "%s: ", where);
	sb_fmt(&b, "WARNING: Failed to %s: ", helper);
	if (retcode < 0)
		sb_fmt(&b, "%s (%d)\n", strerror(-retcode), retcode);
	else
		sb_fmt(&b, "%d\n", retcode);
	return sb_flush(&b, o->err);
}
