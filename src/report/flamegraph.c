/* SVG flame graph writer.
 *
 * Stacks are sorted and merged into a tree (struct fg_tree) whose nodes
 * carry their value and their offset from the left edge, both in value
 * space.  Every frame is written as
 *
 *   <g data-x="OFFSET" data-v="VALUE" data-d="DEPTH"><title>NAME (VALUE, P%)</title>
 *     <rect .../><text ...>LABEL</text></g>
 *
 * so the embedded script (FG_SCRIPT) can zoom by recomputing geometry from
 * data-x / data-v alone: a zoomed frame's range [x, x + v) holds exactly
 * its descendants, and the frames below it whose range holds it are its
 * ancestors.  Pixel geometry and labels in the file are what a viewer
 * without scripting shows; the script redoes them with the measured font. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "hashtab.h"
#include "report/flamegraph.h"

#define DEF_WIDTH 1200
#define MIN_WIDTH 300
#define PAD 10		/* left and right margin, px */
#define FRAME_H 16	/* row height; rects are FRAME_H - 1 high */
#define TOP 80		/* header height: title, subtitle, totals row */
#define BOTTOM 30	/* details line */
#define FONT_W 7.0	/* average width of a 12 px Verdana character */
#define MIN_PX 0.1	/* narrower frames are left out */
/* At most this many frames are written (the widest ones), so a profile of
 * many distinct deep stacks still gives a file a browser opens quickly
 * (~160 bytes a frame). */
#define MAX_FRAMES 30000
#define HILITE "#e600e6" /* search matches; also in FG_SCRIPT */

/* One frame of the merged tree.  Nodes are in pre-order (parents before
 * children, siblings in name order), which building from sorted stacks
 * yields directly; node 0 is the "all" root.  name is interned in the
 * struct stacks (NULL for the root). */
struct fg_node {
	const char *name;
	enum frame_kind kind;
	unsigned int depth;
	size_t parent;
	size_t last_child;	/* 0: none yet */
	uint64_t value;		/* sum over the stacks through this frame */
	uint64_t x;		/* left edge, in value units */
	uint64_t next_x;	/* left edge of this node's next child */
};

struct fg_tree {
	struct fg_node *nodes;
	size_t n, cap;
};

/* A differential graph: per node of the drawn tree, its inclusive share
 * (of the total) minus the same frame's in the "before" tree, in percent
 * points; before[i] the before share, negative for a frame new since. */
struct fg_diff {
	double *delta;
	double *before;
	double maxabs;		/* the largest |delta| drawn: full saturation */
};

/* A growable byte buffer for sanitised names. */
struct strbuf {
	char *p;
	size_t len, cap;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The SVG goes out through a buffer of its own: a frame is a dozen small
 * pieces, and stdio's per-call locking and printf's format parsing were
 * most of the time a large graph took to write.  Write errors show in
 * the FILE's error flag, which the caller checks at the end. */
#define OBUF_SIZE (64 * 1024)

struct obuf {
	FILE *f;
	size_t n;
	char b[OBUF_SIZE];
};

static void ob_flush(struct obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

static void ob_put(struct obuf *o, const void *p, size_t n)
{
	if (n > OBUF_SIZE - o->n) {
		ob_flush(o);
		if (n > OBUF_SIZE) {
			fwrite(p, 1, n, o->f);
			return;
		}
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void ob_str(struct obuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

/* A string literal, its length known at compile time. */
#define OB_LIT(o, s) ob_put((o), (s), sizeof(s) - 1)

static void ob_char(struct obuf *o, char c)
{
	if (o->n == OBUF_SIZE)
		ob_flush(o);
	o->b[o->n++] = c;
}

/* Decimal digits of v, written backwards ending at end; returns the first. */
static char *u64_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static void ob_u64(struct obuf *o, uint64_t v)
{
	char buf[24], *p = u64_digits(buf + sizeof(buf), v);

	ob_put(o, p, (size_t)(buf + sizeof(buf) - p));
}

static void ob_int(struct obuf *o, long long v)
{
	if (v < 0) {
		ob_char(o, '-');
		ob_u64(o, 0 - (unsigned long long)v);
	} else {
		ob_u64(o, (uint64_t)v);
	}
}

/* Header lines, written once: printf's convenience costs nothing there. */
__attribute__((format(printf, 2, 3)))
static void ob_printf(struct obuf *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		ob_put(o, small, (size_t)n);
		return;
	}
	ob_flush(o);
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

static int sb_put(struct strbuf *b, const void *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (b->len + n + 1 > cap)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

/* ---- text ---------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (1-4) and its code point, or 0
 * for an invalid one (bad lead or continuation byte, overlong, surrogate,
 * beyond U+10FFFF).  p is NUL-terminated, which stops a truncated one. */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
	uint32_t v, min;
	size_t n;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, v = p[0] & 0x1f, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, v = p[0] & 0x0f, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, v = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* A name made safe for XML 1.0 (sanitize()): p is the name itself when it
 * needed no change, else the strbuf's copy. */
struct safe_text {
	const char *p;
	size_t len;
	long ncp;		/* code points */
};

/* name made safe for XML 1.0: invalid UTF-8 becomes U+FFFD, control
 * characters and U+FFFE/U+FFFF a space (symbol names come from arbitrary
 * binaries and folded files).  Printable ASCII, nearly every name, is
 * taken as it is; anything else is copied into b, replacing its contents.
 * 0 or -ENOMEM. */
static int sanitize(struct strbuf *b, const char *name, struct safe_text *t)
{
	const unsigned char *p = (const unsigned char *)name;
	long ncp = 0;

	while (*p >= 0x20 && *p < 0x7f)
		p++;
	if (!*p) {
		t->p = name;
		t->len = t->ncp = (long)(p - (const unsigned char *)name);
		return 0;
	}
	p = (const unsigned char *)name;
	b->len = 0;
	if (sb_put(b, "", 0))
		return -ENOMEM;
	while (*p) {
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);
		int err;

		if (!n) {
			err = sb_put(b, "\xef\xbf\xbd", 3);
			n = 1;
		} else if (cp < 0x20 || cp == 0xfffe || cp == 0xffff) {
			err = sb_put(b, " ", 1);
		} else {
			err = sb_put(b, p, n);
		}
		if (err)
			return err;
		p += n;
		ncp++;
	}
	*t = (struct safe_text){ b->p, b->len, ncp };
	return 0;
}

/* Bytes taken by the first ncp code points of valid UTF-8 s. */
static size_t utf8_prefix(const char *s, long ncp)
{
	const char *p = s;

	for (; *p && ncp > 0; ncp--)
		for (p++; ((unsigned char)*p & 0xc0) == 0x80; p++)
			;
	return (size_t)(p - s);
}

/* The characters XML needs escaped in text and attribute values. */
static const unsigned char xml_special[256] = {
	['&'] = 1, ['<'] = 1, ['>'] = 1, ['"'] = 1, ['\''] = 1,
};

/* Writes n bytes of s (valid UTF-8) with the XML special characters escaped. */
static void put_esc(struct obuf *o, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		const char *p = s;
		while (p < end && !xml_special[(unsigned char)*p])
			p++;
		ob_put(o, s, (size_t)(p - s));
		if (p == end)
			break;
		switch (*p) {
		case '&': OB_LIT(o, "&amp;"); break;
		case '<': OB_LIT(o, "&lt;"); break;
		case '>': OB_LIT(o, "&gt;"); break;
		case '"': OB_LIT(o, "&quot;"); break;
		default: OB_LIT(o, "&apos;"); break;
		}
		s = p + 1;
	}
}

/* Sanitises and escapes an arbitrary string. */
static int put_text(struct obuf *o, struct strbuf *b, const char *s)
{
	struct safe_text t;
	int err = sanitize(b, s, &t);

	if (err)
		return err;
	put_esc(o, t.p, t.len);
	return 0;
}

/* Characters that fit in a frame w pixels wide, with 3 px padding each
 * side, at the estimated FONT_W. */
static long label_room(double w)
{
	return (long)((w - 6) / FONT_W);
}

/* How much of the sanitised name t to show in room characters: all of
 * it, or a prefix of at least two characters to be followed by ".." (*cut
 * set), or nothing (returns 0).  Mirrors fit() in FG_SCRIPT, which redoes
 * it with the font's real widths.  Returns bytes. */
static size_t label_len(const struct safe_text *t, long room, int *cut)
{
	*cut = 0;
	if (t->ncp <= room)
		return t->len;
	if (room < 4)
		return 0;
	*cut = 1;
	return t->ncp == (long)t->len ? (size_t)(room - 2) : utf8_prefix(t->p, room - 2);
}

/* ---- numbers, locale independent ------------------------------------------- */

/* buf = a b c, cut to n - 1 bytes as snprintf() would cut it. */
static char *fmt_cat(char *buf, size_t n, const char *a, const char *b, const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t o = 0;

	for (int i = 0; i < 3; i++)
		for (const char *p = parts[i]; *p && o + 1 < n; p++)
			buf[o++] = *p;
	buf[o] = '\0';
	return buf;
}

/* v >= 0 with the given number of decimals (0-3). */
static char *fmt_fixed(char *buf, size_t n, double v, int decimals)
{
	static const uint64_t scales[] = { 1, 10, 100, 1000 };
	uint64_t scale = scales[decimals];
	uint64_t x = (uint64_t)(v * (double)scale + 0.5);
	char tmp[32], *p = tmp + sizeof(tmp) - 1;

	*p = '\0';
	if (decimals) {
		uint64_t frac = x % scale;

		for (int i = 0; i < decimals; i++, frac /= 10)
			*--p = (char)('0' + frac % 10);
		*--p = '.';
		x /= scale;
	}
	return fmt_cat(buf, n, u64_digits(p, x), "", "");
}

/* 1234567 -> "1,234,567". */
static char *fmt_int(char *buf, size_t n, uint64_t v)
{
	char tmp[24], *digits = u64_digits(tmp + sizeof(tmp), v);
	int nd = (int)(tmp + sizeof(tmp) - digits);
	size_t o = 0;

	for (int i = 0; i < nd && o + 2 < n; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* A value with its unit: "1,234 samples", "900 us", "1.23 ms", "4.50 s".
 * Time units are scaled up while the number reaches 1000.  Mirrors
 * fmtValue() in FG_SCRIPT. */
static char *fmt_value(char *buf, size_t n, uint64_t v, const char *unit)
{
	static const char *const ladder[] = { "ns", "us", "ms", "s" };
	char num[48];
	int i, j;

	for (i = 0; i < 4 && strcmp(unit, ladder[i]); i++)
		;
	if (i == 4) {
		if (v == 1 && !strcmp(unit, "samples"))
			return fmt_cat(buf, n, "1 sample", "", "");
		return fmt_cat(buf, n, fmt_int(num, sizeof(num), v), *unit ? " " : "", unit);
	}
	if (v < 1000 || i == 3)
		return fmt_cat(buf, n, fmt_int(num, sizeof(num), v), " ", unit);
	double d = (double)v / 1000;
	for (j = i + 1; j < 3 && d >= 999.995; j++)
		d /= 1000;
	return fmt_cat(buf, n, fmt_fixed(num, sizeof(num), d, 2), " ", ladder[j]);
}

/* "12.34%" */
static char *fmt_pct(char *buf, size_t n, uint64_t v, uint64_t total)
{
	char num[48];

	return fmt_cat(buf, n, fmt_fixed(num, sizeof(num),
					 total ? (double)v * 100 / (double)total : 0, 2), "%", "");
}

static void ob_fixed(struct obuf *o, double v, int decimals)
{
	char buf[48];

	ob_str(o, fmt_fixed(buf, sizeof(buf), v, decimals));
}

/* ---- colours --------------------------------------------------------------- */

/* "#rrggbb"; every component the callers make is within 0..255. */
static void rgb_hex(char out[8], unsigned int r, unsigned int g, unsigned int b)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int c[3] = { r & 0xff, g & 0xff, b & 0xff };

	out[0] = '#';
	for (int i = 0; i < 3; i++) {
		out[1 + 2 * i] = hex[c[i] >> 4];
		out[2 + 2 * i] = hex[c[i] & 15];
	}
	out[7] = '\0';
}

static void hsl_hex(char out[8], double h, double s, double l)
{
	double c = (1 - (2 * l - 1 < 0 ? 1 - 2 * l : 2 * l - 1)) * s;
	double hp = h / 60, x, r = 0, g = 0, b = 0;
	double m2 = hp - 2 * (int)(hp / 2); /* hp mod 2 */

	x = c * (1 - (m2 - 1 < 0 ? 1 - m2 : m2 - 1));
	switch ((int)hp % 6) {
	case 0: r = c, g = x; break;
	case 1: r = x, g = c; break;
	case 2: g = c, b = x; break;
	case 3: g = x, b = c; break;
	case 4: r = x, b = c; break;
	default: r = c, b = x; break;
	}
	double m = l - c / 2;
	rgb_hex(out, (unsigned int)((r + m) * 255 + 0.5), (unsigned int)((g + m) * 255 + 0.5),
		(unsigned int)((b + m) * 255 + 0.5));
}

/* The colour of a frame: the family comes from the kind and palette, the
 * shade within it from a hash of the name, so a function has the same
 * colour everywhere in the graph and across graphs.  A NULL name gives the
 * middle shade of the family (the legend). */
static void frame_color(char out[8], enum flame_palette pal, enum frame_kind kind,
			const char *name, int is_root)
{
	uint64_t h = name ? hash_bytes(name, strlen(name), 0) : hash_bytes("", 0, 0);
	double v1, v2, v3;

	/* Undo hash_bytes()'s fold of the high half into the low: the
	 * shades have always come from plain FNV-1a, and stay the same. */
	h ^= h >> 32;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	/* v1..v3 in [0, 1) */
	v1 = name ? (double)(h & 0xffff) / 65536 : 0.5;
	v2 = name ? (double)((h >> 16) & 0xffff) / 65536 : 0.5;
	v3 = name ? (double)((h >> 32) & 0xffff) / 65536 : 0.5;

	if (is_root) {
		rgb_hex(out, 0xc8, 0xc8, 0xc8);
		return;
	}
	switch (kind) {
	case FRAME_USER:
		if (pal == FLAME_HOT) /* red .. orange .. yellow */
			rgb_hex(out, 205 + (unsigned int)(50 * v3), (unsigned int)(230 * v1),
				(unsigned int)(55 * v2));
		else /* blue .. purple */
			hsl_hex(out, 212 + 60 * v1, 0.55 + 0.2 * v2, 0.66 + 0.1 * v3);
		break;
	case FRAME_KERNEL:
		if (pal == FLAME_HOT) /* teal .. cyan */
			hsl_hex(out, 168 + 24 * v1, 0.45 + 0.2 * v2, 0.52 + 0.12 * v3);
		else /* yellow-green .. green */
			hsl_hex(out, 80 + 55 * v1, 0.4 + 0.2 * v2, 0.52 + 0.12 * v3);
		break;
	case FRAME_COMM:
	case FRAME_TASK:
		if (pal == FLAME_HOT) /* slate */
			hsl_hex(out, 215, 0.2 + 0.1 * v2, 0.64 + 0.08 * v3);
		else /* sand */
			hsl_hex(out, 38, 0.3 + 0.1 * v2, 0.66 + 0.08 * v3);
		break;
	default:
		hsl_hex(out, 0, 0, 0.74 + 0.06 * v3);
		break;
	}
}

/* Red for a share that grew, blue for one that shrank, deeper the larger
 * the change against the largest one; a light grey for no change. */
static void diff_color(char out[8], double delta, double maxabs)
{
	double i = maxabs > 0 ? (delta < 0 ? -delta : delta) / maxabs : 0;
	unsigned int c = (unsigned int)(235 - 195 * (i > 1 ? 1 : i) + 0.5);

	if (delta > 0)
		rgb_hex(out, 0xff, c, c);
	else if (delta < 0)
		rgb_hex(out, c, c, 0xff);
	else
		rgb_hex(out, 0xdc, 0xdc, 0xdc);
}

/* ---- tree ------------------------------------------------------------------ */

static int cmp_entry_ptr(const void *a, const void *b)
{
	return stacks_entry_cmp(*(const struct stack_entry *const *)a,
				*(const struct stack_entry *const *)b);
}

/* Appends a node under parent; returns its index, 0 when out of memory. */
static size_t tree_push(struct fg_tree *t, size_t parent, const struct frame *fr)
{
	if (t->n == t->cap) {
		size_t cap = t->cap * 2;
		struct fg_node *nodes = realloc(t->nodes, cap * sizeof(*nodes));
		if (!nodes)
			return 0;
		t->nodes = nodes;
		t->cap = cap;
	}
	t->nodes[t->n] = (struct fg_node){
		.name = fr->name,
		.kind = fr->kind,
		.depth = t->nodes[parent].depth + 1,
		.parent = parent,
	};
	t->nodes[parent].last_child = t->n;
	return t->n++;
}

/* The smallest value drawn at scale px per unit (MIN_PX wide). */
static uint64_t min_drawn(double scale)
{
	uint64_t v;

	if (scale <= 0)
		return UINT64_MAX;
	v = (uint64_t)(MIN_PX / scale);
	if ((double)v * scale < MIN_PX)
		v++;
	return v;
}

/* Merges the stacks of s into t.  Visiting them in sorted order means a
 * frame can only merge with the last child created under its parent, and
 * creation order is pre-order with siblings sorted: when a frame gets a
 * new sibling, its own subtree is complete, and is the end of the array.
 * A complete frame worth less than keep (a value never drawn) keeps none
 * of its descendants, which are narrower still: a profile of many deep
 * distinct stacks has millions of frames, and only the wide ones show. */
static int tree_build(struct fg_tree *t, const struct stacks *s, uint64_t keep)
{
	size_t n = stacks_count(s);
	const struct stack_entry **order = malloc((n ? n : 1) * sizeof(*order));
	int err = -ENOMEM;

	t->cap = 1024;
	t->n = 1;
	t->nodes = calloc(t->cap, sizeof(*t->nodes));
	if (!order || !t->nodes)
		goto free_order;
	for (size_t i = 0; i < n; i++)
		order[i] = stacks_get(s, i);
	if (!stacks_is_sorted(s))
		qsort(order, n, sizeof(*order), cmp_entry_ptr);

	for (size_t i = 0; i < n; i++) {
		const struct stack_entry *e = order[i];
		size_t cur = 0;

		if (!e->value)
			continue;
		t->nodes[0].value = add_sat(t->nodes[0].value, e->value);
		for (unsigned int d = 0; d < e->depth; d++) {
			const struct frame *fr = e->frames[d];
			size_t c = t->nodes[cur].last_child;

			if (!c || t->nodes[c].name != fr->name || t->nodes[c].kind != fr->kind) {
				if (c && t->nodes[c].value < keep) {
					t->n = c + 1;
					t->nodes[c].last_child = 0;
				}
				c = tree_push(t, cur, fr);
				if (!c)
					goto free_order;
			}
			t->nodes[c].value = add_sat(t->nodes[c].value, e->value);
			cur = c;
		}
	}
	/* Children are laid out left to right from their parent's left edge;
	 * a parent's self value is the gap on the right. */
	for (size_t i = 1; i < t->n; i++) {
		struct fg_node *nd = &t->nodes[i], *p = &t->nodes[nd->parent];
		nd->x = nd->next_x = p->next_x;
		p->next_x += nd->value;
	}
	err = 0;
free_order:
	free(order);
	return err;
}

/* A copy of s with every stack reversed: leaf first, for an icicle graph. */
static struct stacks *stacks_reversed(const struct stacks *s)
{
	struct stacks *r = stacks_new();
	struct frame *fr = NULL;
	unsigned int cap = 0;

	for (size_t i = 0; r && i < stacks_count(s); i++) {
		const struct stack_entry *e = stacks_get(s, i);

		if (e->depth > cap) {
			struct frame *nf = realloc(fr, e->depth * sizeof(*nf));
			if (!nf)
				goto fail;
			fr = nf;
			cap = e->depth;
		}
		for (unsigned int d = 0; d < e->depth; d++)
			fr[d] = *e->frames[e->depth - 1 - d];
		if (stacks_add(r, fr, e->depth, e->value))
			goto fail;
	}
	free(fr);
	return r;
fail:
	free(fr);
	stacks_free(r);
	return NULL;
}

/* Nodes of the before tree by (parent, name, kernel or not): names of two
 * stacks models are different pointers, so they hash and compare by
 * content; kinds compare as folded text tells them (a process frame read
 * from folded text is a user frame, from pprof a process frame). */
struct node_key {
	const struct fg_tree *t;
	size_t parent;
	const char *name;
	enum frame_kind kind;
};

static uint64_t node_hash(size_t parent, const char *name, enum frame_kind kind)
{
	return hash_bytes(name, strlen(name), mix64(parent * 2 + (kind == FRAME_KERNEL) + 1));
}

static bool node_eq(const void *entry, const void *key)
{
	const struct node_key *k = key;
	const struct fg_node *nd = &k->t->nodes[(uintptr_t)entry - 1];

	return nd->parent == k->parent && (nd->kind == FRAME_KERNEL) == (k->kind == FRAME_KERNEL) &&
	       !strcmp(nd->name, k->name);
}

/* Each drawn frame's change of inclusive share since before: the frame
 * reached by the same path of names there.  Inclusive, so a caller is
 * coloured by everything under it, not by its self time alone. */
static int diff_build(struct fg_diff *df, const struct fg_tree *t, const struct fg_tree *b)
{
	size_t *match = malloc(t->n * sizeof(*match));
	struct htab *index = htab_new(b->n);
	double ta = (double)t->nodes[0].value, tb = (double)b->nodes[0].value;
	int err = -ENOMEM;

	df->delta = calloc(t->n, sizeof(*df->delta));
	df->before = calloc(t->n, sizeof(*df->before));
	df->maxabs = 0;
	if (!match || !index || !df->delta || !df->before)
		goto out;
	for (size_t i = 1; i < b->n; i++)
		if (htab_insert(index, node_hash(b->nodes[i].parent, b->nodes[i].name,
						 b->nodes[i].kind), (void *)(uintptr_t)(i + 1)))
			goto out;
	match[0] = 0;
	df->before[0] = tb > 0 ? 100 : -1;
	for (size_t i = 1; i < t->n; i++) {
		const struct fg_node *nd = &t->nodes[i];
		size_t bp = match[nd->parent];
		void *e = NULL;
		double after = ta > 0 ? 100 * (double)nd->value / ta : 0;

		if (bp != SIZE_MAX) {
			struct node_key k = { b, bp, nd->name, nd->kind };

			e = htab_find(index, node_hash(bp, nd->name, nd->kind), &k, node_eq);
		}
		match[i] = e ? (uintptr_t)e - 1 : SIZE_MAX;
		df->before[i] = e && tb > 0 ? 100 * (double)b->nodes[match[i]].value / tb : -1;
		df->delta[i] = after - (df->before[i] < 0 ? 0 : df->before[i]);
		if (df->delta[i] > df->maxabs || -df->delta[i] > df->maxabs)
			df->maxabs = df->delta[i] < 0 ? -df->delta[i] : df->delta[i];
	}
	err = 0;
out:
	free(match);
	htab_free(index);
	return err;
}

/* ---- output ---------------------------------------------------------------- */

static const char FG_STYLE[] =
	"text{font-family:Verdana,\"DejaVu Sans\",\"Bitstream Vera Sans\",Arial,sans-serif;fill:#000}\n"
	"#title{font-size:17px;font-weight:bold;text-anchor:middle}\n"
	"#subtitle{font-size:12px;fill:#555;text-anchor:middle}\n"
	".hdr,#details,#matched{font-size:12px}\n"
	"#legend rect{stroke:#888;stroke-width:.5}\n"
	"#frames text{font-size:12px;pointer-events:none}\n"
	"#frames g{cursor:pointer}\n"
	"#frames rect{rx:2px;ry:2px}\n"
	"#frames g:hover rect{stroke:#000;stroke-width:1}\n"
	"#frames .par rect{fill-opacity:.4}\n"
	"#frames .par text{fill:#444}\n"
	".btn{cursor:pointer}\n"
	".btn rect{fill:#fff;fill-opacity:.7;stroke:#888;rx:4px;ry:4px}\n"
	".btn:hover rect{fill:#ddd}\n"
	".btn text{font-size:12px;text-anchor:middle}\n"
	".hide{display:none}\n";

/* The viewer (plain ES5).  Kept as text here so the SVG stays one file;
 * it reads data-* attributes only, so it does not parse numbers out of
 * labels. */
static const char FG_SCRIPT[] =
/* FG_SCRIPT BEGIN */
	"(function () {\n"
	"  \"use strict\";\n"
	"\n"
	"  var NS = \"http://www.w3.org/2000/svg\";\n"
	"  var HILITE = \"#e600e6\";\n"
	"  var HINT = \"Hover a frame for details; click to zoom; Ctrl-F or / to search; Esc to reset\";\n"
	"  var svg = document.documentElement;\n"
	"  var total = +svg.getAttribute(\"data-total\");\n"
	"  var unit = svg.getAttribute(\"data-unit\") || \"\";\n"
	"  var pad = +svg.getAttribute(\"data-pad\");\n"
	"  var plotw = +svg.getAttribute(\"data-plotw\");\n"
	"  var details = document.getElementById(\"details\");\n"
	"  var unzoomBtn = document.getElementById(\"unzoom\");\n"
	"  var searchBtn = document.getElementById(\"search\");\n"
	"  var searchLbl = searchBtn.getElementsByTagName(\"text\")[0];\n"
	"  var matched = document.getElementById(\"matched\");\n"
	"  var frames = [], root = null, zoomed = null, query = null, charw = 7, ctx = null;\n"
	"\n"
	"  function fmtInt(v) {\n"
	"    return String(Math.round(v)).replace(/\\B(?=(\\d{3})+(?!\\d))/g, \",\");\n"
	"  }\n"
	"\n"
	"  /* Mirrors fmt_value() in flamegraph.c. */\n"
	"  function fmtValue(v) {\n"
	"    var ladder = [\"ns\", \"us\", \"ms\", \"s\"], i = ladder.indexOf(unit), j = i;\n"
	"    if (i < 0) {\n"
	"      if (unit === \"samples\" && v === 1)\n"
	"        return \"1 sample\";\n"
	"      return fmtInt(v) + (unit ? \" \" + unit : \"\");\n"
	"    }\n"
	"    while (j < 3 && v >= (j === i ? 1000 : 999.995)) {\n"
	"      v /= 1000;\n"
	"      j++;\n"
	"    }\n"
	"    return (j === i ? fmtInt(v) : v.toFixed(2)) + \" \" + ladder[j];\n"
	"  }\n"
	"\n"
	"  function frameOf(e) {\n"
	"    for (var n = e.target; n && n !== svg; n = n.parentNode)\n"
	"      if (n.fgIndex !== undefined)\n"
	"        return frames[n.fgIndex];\n"
	"    return null;\n"
	"  }\n"
	"\n"
	"  /* Text width in px: measured with a canvas in the labels' font, so\n"
	"   * cutting is exact; estimated when no canvas is available. */\n"
	"  function textw(s) {\n"
	"    return ctx ? ctx.measureText(s).width : s.length * charw;\n"
	"  }\n"
	"\n"
	"  /* The longest label that fits avail px: the name, or a prefix of at\n"
	"   * least two characters followed by \"..\", or nothing.  Mirrors\n"
	"   * put_label() in flamegraph.c. */\n"
	"  function fit(f, avail) {\n"
	"    var s = f.name, lo = 2, hi = s.length;\n"
	"    if (f.tw === undefined)\n"
	"      f.tw = textw(s);\n"
	"    if (f.tw <= avail)\n"
	"      return s;\n"
	"    if (hi <= lo || textw(s.slice(0, lo) + \"..\") > avail)\n"
	"      return \"\";\n"
	"    while (hi - lo > 1) {\n"
	"      var mid = (lo + hi) >> 1;\n"
	"      if (textw(s.slice(0, mid) + \"..\") <= avail)\n"
	"        lo = mid;\n"
	"      else\n"
	"        hi = mid;\n"
	"    }\n"
	"    return s.slice(0, lo) + \"..\";\n"
	"  }\n"
	"\n"
	"  function label(f, x, w) {\n"
	"    var s = fit(f, w - 6);\n"
	"    if (!f.text) {\n"
	"      if (!s)\n"
	"        return;\n"
	"      f.text = document.createElementNS(NS, \"text\");\n"
	"      f.text.setAttribute(\"y\", +f.rect.getAttribute(\"y\") + 11.5);\n"
	"      f.g.appendChild(f.text);\n"
	"    }\n"
	"    f.text.setAttribute(\"x\", (x + 3).toFixed(1));\n"
	"    if (f.text.textContent !== s)\n"
	"      f.text.textContent = s;\n"
	"  }\n"
	"\n"
	"  /* Positions every frame for the zoomed frame (or the whole graph), in\n"
	"   * value space: a frame is shown when it lies inside the zoomed frame's\n"
	"   * range, an ancestor when its range holds it. */\n"
	"  function layout() {\n"
	"    var z = zoomed, zx = z ? z.x : 0, zv = z ? z.v : total, zd = z ? z.d : 0;\n"
	"    var scale = plotw / zv;\n"
	"    for (var i = 0; i < frames.length; i++) {\n"
	"      var f = frames[i], x = 0, w = plotw, cls = null;\n"
	"      if (f.d < zd) {\n"
	"        if (f.x <= zx && f.x + f.v >= zx + zv)\n"
	"          cls = \"par\";\n"
	"        else\n"
	"          cls = \"hide\";\n"
	"      } else if (f.x >= zx && f.x + f.v <= zx + zv) {\n"
	"        x = (f.x - zx) * scale;\n"
	"        w = f.v * scale;\n"
	"      } else {\n"
	"        cls = \"hide\";\n"
	"      }\n"
	"      if (cls)\n"
	"        f.g.setAttribute(\"class\", cls);\n"
	"      else\n"
	"        f.g.removeAttribute(\"class\");\n"
	"      if (cls === \"hide\")\n"
	"        continue;\n"
	"      f.rect.setAttribute(\"x\", (pad + x).toFixed(1));\n"
	"      f.rect.setAttribute(\"width\", w.toFixed(1));\n"
	"      label(f, pad + x, w);\n"
	"    }\n"
	"    unzoomBtn.setAttribute(\"class\", z ? \"btn\" : \"btn hide\");\n"
	"  }\n"
	"\n"
	"  function zoom(f) {\n"
	"    zoomed = f === root ? null : f;\n"
	"    layout();\n"
	"  }\n"
	"\n"
	"  /* Highlights frames whose name matches; the matched share counts a\n"
	"   * match nested in another match once (ranges in value space nest). */\n"
	"  function search(s) {\n"
	"    var re = null, hits = [], sum = 0, end = -1, i;\n"
	"    if (s !== null) {\n"
	"      try {\n"
	"        re = new RegExp(s);\n"
	"      } catch (err) {\n"
	"        details.textContent = \"Invalid regular expression: \" + s;\n"
	"        return;\n"
	"      }\n"
	"    }\n"
	"    query = s;\n"
	"    for (i = 0; i < frames.length; i++) {\n"
	"      var f = frames[i], m = re !== null && f !== root && re.test(f.name);\n"
	"      f.rect.setAttribute(\"fill\", m ? HILITE : f.fill);\n"
	"      if (m)\n"
	"        hits.push(f);\n"
	"    }\n"
	"    hits.sort(function (a, b) { return a.x - b.x || b.v - a.v || a.d - b.d; });\n"
	"    for (i = 0; i < hits.length; i++) {\n"
	"      if (hits[i].x >= end) {\n"
	"        sum += hits[i].v;\n"
	"        end = hits[i].x + hits[i].v;\n"
	"      }\n"
	"    }\n"
	"    if (re) {\n"
	"      matched.textContent = \"Matched: \" + (total ? 100 * sum / total : 0).toFixed(1) +\n"
	"        \"% (\" + fmtValue(sum) + \")\";\n"
	"      matched.removeAttribute(\"class\");\n"
	"      searchLbl.textContent = \"Clear search\";\n"
	"    } else {\n"
	"      matched.textContent = \"\";\n"
	"      matched.setAttribute(\"class\", \"hide\");\n"
	"      searchLbl.textContent = \"Search\";\n"
	"    }\n"
	"  }\n"
	"\n"
	"  function ask() {\n"
	"    var s = window.prompt(\"Search frames (regular expression, empty to clear):\", query || \"\");\n"
	"    if (s !== null)\n"
	"      search(s === \"\" ? null : s);\n"
	"  }\n"
	"\n"
	"  function init() {\n"
	"    var gs = document.getElementById(\"frames\").getElementsByTagName(\"g\");\n"
	"    var i, f;\n"
	"    for (i = 0; i < gs.length; i++) {\n"
	"      var g = gs[i], t = g.getElementsByTagName(\"title\")[0].textContent;\n"
	"      var k = t.lastIndexOf(\" (\");\n"
	"      f = {\n"
	"        g: g,\n"
	"        rect: g.getElementsByTagName(\"rect\")[0],\n"
	"        text: g.getElementsByTagName(\"text\")[0] || null,\n"
	"        name: k >= 0 ? t.slice(0, k) : t,\n"
	"        info: t,\n"
	"        x: +g.getAttribute(\"data-x\"),\n"
	"        v: +g.getAttribute(\"data-v\"),\n"
	"        d: +g.getAttribute(\"data-d\")\n"
	"      };\n"
	"      f.fill = f.rect.getAttribute(\"fill\");\n"
	"      g.fgIndex = frames.length;\n"
	"      frames.push(f);\n"
	"      if (f.d === 0)\n"
	"        root = f;\n"
	"    }\n"
	"    if (root && root.text) {\n"
	"      try {\n"
	"        var cs = window.getComputedStyle(root.text);\n"
	"        ctx = document.createElementNS(\"http://www.w3.org/1999/xhtml\",\n"
	"                     \"canvas\").getContext(\"2d\");\n"
	"        ctx.font = cs.fontSize + \" \" + cs.fontFamily;\n"
	"      } catch (err) {\n"
	"        ctx = null;\n"
	"      }\n"
	"    }\n"
	"    if (frames.length)\n"
	"      layout();\n"
	"\n"
	"    var fg = document.getElementById(\"frames\");\n"
	"    fg.addEventListener(\"mouseover\", function (e) {\n"
	"      var f = frameOf(e);\n"
	"      if (f)\n"
	"        details.textContent = f.info;\n"
	"    });\n"
	"    fg.addEventListener(\"mouseout\", function () {\n"
	"      details.textContent = HINT;\n"
	"    });\n"
	"    fg.addEventListener(\"click\", function (e) {\n"
	"      var f = frameOf(e);\n"
	"      if (f)\n"
	"        zoom(f);\n"
	"    });\n"
	"    unzoomBtn.addEventListener(\"click\", function () { zoom(null); });\n"
	"    searchBtn.addEventListener(\"click\", function () {\n"
	"      if (query !== null)\n"
	"        search(null);\n"
	"      else\n"
	"        ask();\n"
	"    });\n"
	"    document.addEventListener(\"keydown\", function (e) {\n"
	"      if (((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.key === \"F\")) ||\n"
	"          (e.key === \"/\" && !e.ctrlKey && !e.metaKey && !e.altKey)) {\n"
	"        e.preventDefault();\n"
	"        ask();\n"
	"      } else if (e.key === \"Escape\") {\n"
	"        if (zoomed)\n"
	"          zoom(null);\n"
	"        else if (query !== null)\n"
	"          search(null);\n"
	"      }\n"
	"    });\n"
	"    details.textContent = HINT;\n"
	"\n"
	"    var m = /[?&]s=([^&]*)/.exec(window.location.search || \"\");\n"
	"    if (m) {\n"
	"      var q = m[1].replace(/\\+/g, \" \");\n"
	"      try {\n"
	"        q = decodeURIComponent(q);\n"
	"      } catch (err) {\n"
	"        /* keep it undecoded */\n"
	"      }\n"
	"      if (q)\n"
	"        search(q);\n"
	"    }\n"
	"  }\n"
	"\n"
	"  init();\n"
	"})();\n"
/* FG_SCRIPT END */
	;

/* Centred in the totals row, or right of the total (left_end px) when
 * the graph is too narrow for that. */
static void write_legend(struct obuf *f, const struct flame_opts *o, int width, double left_end,
			 int has_marks)
{
	if (o->before) {
		/* a differential graph's colours say the change, not the kind */
		static const char *const labels[] = { "grew", "shrank", "same" };
		static const double deltas[] = { 1, -1, 0 };
		double x = width / 2 - 100;
		char color[8], buf[32];

		if (x < left_end + 20)
			x = left_end + 20;
		OB_LIT(f, "<g id=\"legend\">");
		for (int i = 0; i < 3; i++) {
			diff_color(color, deltas[i], 1);
			ob_printf(f, "<rect x=\"%s\" y=\"59\" width=\"12\" height=\"12\" fill=\"%s\"/>",
				  fmt_fixed(buf, sizeof(buf), x, 1), color);
			ob_printf(f, "<text class=\"hdr\" x=\"%s\" y=\"69\">%s</text>",
				  fmt_fixed(buf, sizeof(buf), x + 17, 1), labels[i]);
			x += 12 + 5 + FONT_W * (double)strlen(labels[i]) + 16;
		}
		OB_LIT(f, "</g>\n");
		return;
	}

	static const struct { const char *label; enum frame_kind kind; } items[] = {
		{ "user", FRAME_USER }, { "kernel", FRAME_KERNEL },
		{ "process", FRAME_COMM }, { "other", FRAME_MARK },
	};
	int n = has_marks ? 4 : 3;
	double w = 0, x;
	char color[8], buf[32];

	for (int i = 0; i < n; i++)
		w += (i ? 16 : 0) + 12 + 5 + FONT_W * (double)strlen(items[i].label);
	x = (width - w) / 2;
	if (x < left_end + 20)
		x = left_end + 20;
	OB_LIT(f, "<g id=\"legend\">");
	for (int i = 0; i < n; i++) {
		frame_color(color, o->palette, items[i].kind, NULL, 0);
		ob_printf(f, "<rect x=\"%s\" y=\"59\" width=\"12\" height=\"12\" fill=\"%s\"/>",
			  fmt_fixed(buf, sizeof(buf), x, 1), color);
		ob_printf(f, "<text class=\"hdr\" x=\"%s\" y=\"69\">%s</text>",
			  fmt_fixed(buf, sizeof(buf), x + 17, 1), items[i].label);
		x += 12 + 5 + FONT_W * (double)strlen(items[i].label) + 16;
	}
	OB_LIT(f, "</g>\n");
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The smallest value a frame needs to be written: MIN_PX wide, and among
 * the MAX_FRAMES widest.  A child is never wider than its parent, so the
 * frames kept always form a tree.  Returns 0 on success or -ENOMEM. */
static int min_value(const struct fg_tree *t, double scale, uint64_t *minv)
{
	uint64_t *vals;
	size_t n = 0;

	if (scale <= 0) {
		*minv = UINT64_MAX;
		return 0;
	}
	*minv = min_drawn(scale);
	for (size_t i = 0; i < t->n; i++)
		n += t->nodes[i].value >= *minv;
	if (n <= MAX_FRAMES)
		return 0;

	vals = malloc(n * sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].value >= *minv)
			vals[n++] = t->nodes[i].value;
	qsort(vals, n, sizeof(*vals), cmp_u64_desc);
	/* Strictly wider than the first one left out: ties are all in or all
	 * out, so the count stays within MAX_FRAMES. */
	*minv = vals[MAX_FRAMES] + 1;
	free(vals);
	return 0;
}

static int write_svg(FILE *out, const struct fg_tree *t, const struct flame_opts *o, int width,
		     const struct fg_diff *df)
{
	struct strbuf sb = { 0 };
	struct safe_text st;
	uint64_t total = t->nodes[0].value;
	double plotw = width - 2 * PAD;
	double scale = total ? plotw / (double)total : 0;
	unsigned int maxd = 0;
	int has_marks = 0, height, cut, err;
	char a[64], color[8];
	uint64_t minv;
	struct obuf *f;

	err = min_value(t, scale, &minv);
	if (err)
		return err;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->f = out;
	f->n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct fg_node *nd = &t->nodes[i];
		if (nd->value < minv)
			continue;
		if (nd->depth > maxd)
			maxd = nd->depth;
		if (i && nd->kind == FRAME_MARK)
			has_marks = 1;
	}
	height = TOP + (int)(maxd + 1) * FRAME_H + BOTTOM;

	OB_LIT(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	OB_LIT(f, "<!-- Flame graph written by stackscope.  Click a frame to zoom, Ctrl-F or / to "
	       "search (regex), Esc to reset; open with ?s=REGEX to search on load. -->\n");
	ob_printf(f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		  "height=\"%d\" viewBox=\"0 0 %d %d\" data-total=\"%" PRIu64 "\" data-pad=\"%d\" "
		  "data-plotw=\"%d\" data-unit=\"", width, height, width, height, total, PAD,
		  width - 2 * PAD);
	err = put_text(f, &sb, o->unit);
	if (err)
		goto free_sb;
	OB_LIT(f, "\">\n<title>");
	err = put_text(f, &sb, o->title);
	if (err)
		goto free_sb;
	OB_LIT(f, "</title>\n<style>\n");
	OB_LIT(f, FG_STYLE);
	OB_LIT(f, "</style>\n");
	ob_printf(f, "<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		  "<stop offset=\"5%%\" stop-color=\"#eeeeee\"/><stop offset=\"95%%\" stop-color=\"%s\"/>"
		  "</linearGradient></defs>\n",
		  df ? "#f4f4f4" : o->palette == FLAME_HOT ? "#eeeeb0" : "#dfe6f3");
	OB_LIT(f, "<rect width=\"100%\" height=\"100%\" fill=\"url(#bg)\"/>\n");

	/* Title, cut between the buttons. */
	err = sanitize(&sb, o->title, &st);
	if (err)
		goto free_sb;
	/* 17 px bold is about 10 px a character. */
	size_t len = label_len(&st, (width - 2 * (PAD + 110)) / 10, &cut);
	ob_printf(f, "<text id=\"title\" x=\"%d\" y=\"27\">", width / 2);
	put_esc(f, st.p, len);
	ob_printf(f, "%s</text>\n", cut ? ".." : "");
	if (o->subtitle && *o->subtitle) {
		ob_printf(f, "<text id=\"subtitle\" x=\"%d\" y=\"47\">", width / 2);
		err = put_text(f, &sb, o->subtitle);
		if (err)
			goto free_sb;
		OB_LIT(f, "</text>\n");
	}
	ob_printf(f, "<g id=\"unzoom\" class=\"btn hide\"><rect x=\"%d\" y=\"11\" width=\"90\" "
		  "height=\"22\"/><text x=\"%d\" y=\"26\">Reset zoom</text></g>\n", PAD, PAD + 45);
	ob_printf(f, "<g id=\"search\" class=\"btn\"><rect x=\"%d\" y=\"11\" width=\"100\" "
		  "height=\"22\"/><text x=\"%d\" y=\"26\">Search</text></g>\n",
		  width - PAD - 100, width - PAD - 50);
	ob_printf(f, "<text class=\"hdr\" x=\"%d\" y=\"69\">Total: ", PAD);
	err = sanitize(&sb, fmt_value(a, sizeof(a), total, o->unit), &st);
	if (err)
		goto free_sb;
	put_esc(f, st.p, st.len);
	OB_LIT(f, "</text>\n");
	write_legend(f, o, width, PAD + FONT_W * (double)(st.ncp + 7), has_marks);
	ob_printf(f, "<text id=\"matched\" class=\"hide\" x=\"%d\" y=\"69\" text-anchor=\"end\">"
		  "</text>\n", width - PAD);

	OB_LIT(f, "<g id=\"frames\">\n");
	if (!total)
		ob_printf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">No samples</text>\n",
			  width / 2, TOP + 12);
	for (size_t i = 0; total && i < t->n; i++) {
		const struct fg_node *nd = &t->nodes[i];
		double x = PAD + (double)nd->x * scale, w = (double)nd->value * scale;
		/* an icicle hangs from the top */
		int y = TOP + (int)(o->inverted ? nd->depth : maxd - nd->depth) * FRAME_H;

		if (nd->value < minv)
			continue;
		err = sanitize(&sb, i ? nd->name : "all", &st);
		if (err)
			goto free_sb;
		OB_LIT(f, "<g data-x=\"");
		ob_u64(f, nd->x);
		OB_LIT(f, "\" data-v=\"");
		ob_u64(f, nd->value);
		OB_LIT(f, "\" data-d=\"");
		ob_u64(f, nd->depth);
		OB_LIT(f, "\"><title>");
		put_esc(f, st.p, st.len);
		fmt_value(a, sizeof(a), nd->value, o->unit);
		OB_LIT(f, " (");
		put_esc(f, a, strlen(a));
		OB_LIT(f, ", ");
		ob_str(f, fmt_pct(a, sizeof(a), nd->value, total));
		if (df && i && df->before[i] < 0) {
			OB_LIT(f, ", +");
			ob_fixed(f, df->delta[i], 2);
			OB_LIT(f, " points: new");
		} else if (df && i) {
			OB_LIT(f, ", ");
			ob_char(f, df->delta[i] < 0 ? '-' : '+');
			ob_fixed(f, df->delta[i] < 0 ? -df->delta[i] : df->delta[i], 2);
			OB_LIT(f, " points: was ");
			ob_fixed(f, df->before[i], 2);
			ob_char(f, '%');
		}
		OB_LIT(f, ")</title>");
		if (df && i)
			diff_color(color, df->delta[i], df->maxabs);
		else
			frame_color(color, o->palette, nd->kind, i ? nd->name : "", i == 0);
		OB_LIT(f, "<rect x=\"");
		ob_fixed(f, x, 1);
		OB_LIT(f, "\" y=\"");
		ob_int(f, y);
		OB_LIT(f, "\" width=\"");
		ob_fixed(f, w, 1);
		OB_LIT(f, "\" height=\"");
		ob_int(f, FRAME_H - 1);
		OB_LIT(f, "\" fill=\"");
		ob_put(f, color, 7);
		OB_LIT(f, "\"/>");
		len = label_len(&st, label_room(w), &cut);
		if (len) {
			OB_LIT(f, "<text x=\"");
			ob_fixed(f, x + 3, 1);
			OB_LIT(f, "\" y=\"");
			ob_int(f, y + 11);
			OB_LIT(f, ".5\">");
			put_esc(f, st.p, len);
			if (cut)
				OB_LIT(f, "..");
			OB_LIT(f, "</text>");
		}
		OB_LIT(f, "</g>\n");
	}
	OB_LIT(f, "</g>\n");
	ob_printf(f, "<text id=\"details\" x=\"%d\" y=\"%d\">Hover a frame for details; click to "
		  "zoom; Ctrl-F or / to search; Esc to reset</text>\n", PAD, height - 11);
	OB_LIT(f, "<script><![CDATA[\n");
	OB_LIT(f, FG_SCRIPT);
	OB_LIT(f, "]]></script>\n</svg>\n");
	err = 0;
free_sb:
	ob_flush(f);
	free(f);
	free(sb.p);
	return err;
}

int report_flamegraph_write(FILE *f, const struct stacks *s, const struct flame_opts *o)
{
	struct flame_opts opts = { 0 };
	struct fg_tree t = { 0 }, bt = { 0 };
	struct fg_diff df = { 0 };
	struct stacks *rev = NULL, *brev = NULL;
	int err;

	if (!f || !s)
		return -EINVAL;
	if (o)
		opts = *o;
	if (!opts.title)
		opts.title = "Flame Graph";
	if (!opts.unit)
		opts.unit = "samples";
	if (!opts.width)
		opts.width = DEF_WIDTH;
	if (opts.width < MIN_WIDTH || opts.width > 1000000)
		return -EINVAL;

	err = -ENOMEM;
	if (opts.inverted) {
		rev = stacks_reversed(s);
		if (!rev || (opts.before && !(brev = stacks_reversed(opts.before))))
			goto free_tree;
		s = rev;
		opts.before = brev;
	}
	/* A differential graph's colours depend on every frame's change,
	 * drawn or not: its trees are whole. */
	uint64_t total = stacks_total(s), keep = 0;
	if (!opts.before && total)
		keep = min_drawn((double)(opts.width - 2 * PAD) / (double)total);
	err = tree_build(&t, s, keep);
	if (!err && opts.before) {
		err = tree_build(&bt, opts.before, 0);
		if (!err)
			err = diff_build(&df, &t, &bt);
	}
	if (err)
		goto free_tree;
	err = write_svg(f, &t, &opts, opts.width, opts.before ? &df : NULL);
	if (err)
		goto free_tree;
	if (fflush(f))
		err = -errno;
	else if (ferror(f))
		err = -EIO;
free_tree:
	free(t.nodes);
	free(bt.nodes);
	free(df.delta);
	free(df.before);
	stacks_free(rev);
	stacks_free(brev);
	return err;
}
