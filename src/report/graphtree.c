#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/graphtree.h"
#include "report/json.h"

/* The kernel keeps at most this many pending return probes per thread
 * (MAX_URETPROBE_DEPTH); a deeper call's return is not reported. */
#define URETPROBE_DEPTH_MAX 64
#define THREAD_BUCKETS 1024
#define HOLD_MAX 512		/* held lines per thread before writing what is settled */
#define VAL_MAX 1100		/* one rendered value (a string of GRAPH_STR_MAX escaped) */

static const char *const reg_names[6] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };

enum item_kind {
	ITEM_OPEN,	/* "f(args) {" */
	ITEM_LEAF,	/* "f(args) = ret;" */
	ITEM_CLOSE,	/* "} = ret; / * f * /" */
	ITEM_NORET_LEAF,	/* "f(args); / * no return: why * /" */
	ITEM_NORET_CLOSE,	/* "} / * f: no return: why * /" */
};

/* One line of the tree, held until settled.  args: "name\0value\0..."
 * (nargs pairs), owned; NULL while the late values are awaited. */
struct item {
	enum item_kind kind;
	int depth;
	uint32_t fid, cpu;
	uint64_t ts;		/* entry (OPEN/LEAF), else the closing time */
	uint64_t end;		/* LEAF: the return time */
	uint64_t ret;
	const char *why;	/* NORET_*: static */
	char *args;
	int nargs;
};

/* An open call.  item: absolute index of its line in the thread's list,
 * -1 when not shown (too deep).  entry: a copy of the captured entry kept
 * while the late values are awaited. */
struct frame {
	uint32_t fid;
	uint64_t ts, sp;
	long item;
	bool beyond_kernel_depth;
	struct graph_call *entry;
	uint64_t late[DWFUNC_LATE_MAX];
	uint32_t late_ok;
};

struct thread {
	struct thread *next;	/* hash chain */
	uint32_t tid, pid;
	struct frame *stack;
	int depth, cap;
	struct item *items;	/* items[0] is absolute index base */
	long nitems, icap;
	long base;
};

struct graphtree {
	FILE *out;
	const struct graph_fn *fns;
	size_t nfns;
	struct graphtree_opts o;
	struct thread *buckets[THREAD_BUCKETS];
	struct graphtree_stats st;
	bool json_first;
	bool header_done;
	uint64_t last_ts;	/* newest record seen */
	int err;
};

/* ---- values ---------------------------------------------------------------- */

static void put_escaped(char *buf, size_t size, const char *s, size_t n, bool truncated)
{
	size_t o = 0;

	if (size < 8)
		return;
	buf[o++] = '"';
	for (size_t i = 0; i < n && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': o += snprintf(buf + o, size - o, "\\\""); break;
		case '\\': o += snprintf(buf + o, size - o, "\\\\"); break;
		case '\n': o += snprintf(buf + o, size - o, "\\n"); break;
		case '\t': o += snprintf(buf + o, size - o, "\\t"); break;
		case '\r': o += snprintf(buf + o, size - o, "\\r"); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				o += snprintf(buf + o, size - o, "\\x%02x", c);
			else
				buf[o++] = (char)c;
		}
	}
	snprintf(buf + o, size - o, truncated ? "\"..." : "\"");
}

static void put_char(char *buf, size_t size, unsigned char c)
{
	char s[8];

	switch (c) {
	case '\'': snprintf(s, sizeof(s), "\\'"); break;
	case '\\': snprintf(s, sizeof(s), "\\\\"); break;
	case '\n': snprintf(s, sizeof(s), "\\n"); break;
	case '\t': snprintf(s, sizeof(s), "\\t"); break;
	case '\r': snprintf(s, sizeof(s), "\\r"); break;
	case 0: snprintf(s, sizeof(s), "\\0"); break;
	default:
		if (c < 0x20 || c >= 0x7f)
			snprintf(s, sizeof(s), "\\x%02x", c);
		else
			snprintf(s, sizeof(s), "%c", c);
	}
	snprintf(buf, size, "'%s'", s);
}

/* The shortest %g that reads back as the same value. */
static void put_double(char *buf, size_t size, double v, int maxprec)
{
	if (isnan(v) || isinf(v)) {
		snprintf(buf, size, "%g", v);
		return;
	}
	for (int p = 1; p <= maxprec; p++) {
		snprintf(buf, size, "%.*g", p, v);
		if (maxprec <= 9 ? (float)strtod(buf, NULL) == (float)v : strtod(buf, NULL) == v)
			return;
	}
}

static int64_t sign_extend(uint64_t raw, unsigned size)
{
	unsigned shift = size >= 8 ? 0 : 64 - 8 * size;

	return (int64_t)(raw << shift) >> shift;
}

static uint64_t zero_extend(uint64_t raw, unsigned size)
{
	return size >= 8 ? raw : raw & ((1ULL << (8 * size)) - 1);
}

void graph_format_value(char *buf, size_t size, const struct dwtype *t, uint64_t raw,
			const char *str, int32_t slen, unsigned str_size)
{
	int64_t sv;
	uint64_t uv;

	switch (t->kind) {
	case DWT_SINT:
		snprintf(buf, size, "%" PRId64, sign_extend(raw, t->size));
		return;
	case DWT_UINT:
		snprintf(buf, size, "%" PRIu64, zero_extend(raw, t->size));
		return;
	case DWT_BOOL:
		uv = zero_extend(raw, t->size);
		if (uv <= 1)
			snprintf(buf, size, "%s", uv ? "true" : "false");
		else
			snprintf(buf, size, "%" PRIu64, uv);
		return;
	case DWT_CHAR:
		put_char(buf, size, (unsigned char)raw);
		return;
	case DWT_ENUM:
		sv = t->is_signed ? sign_extend(raw, t->size) : (int64_t)zero_extend(raw, t->size);
		for (size_t i = 0; i < t->nenums; i++) {
			if (t->enums[i].value == sv) {
				snprintf(buf, size, "%s", t->enums[i].name);
				return;
			}
		}
		if (t->is_signed)
			snprintf(buf, size, "%" PRId64, sv);
		else
			snprintf(buf, size, "%" PRIu64, (uint64_t)sv);
		return;
	case DWT_STR:
		if (!raw) {
			snprintf(buf, size, "NULL");
		} else if (slen > 0 && str) {
			bool trunc = str_size && (unsigned)slen >= str_size;

			put_escaped(buf, size, str, strnlen(str, (size_t)slen), trunc);
		} else {
			snprintf(buf, size, "0x%" PRIx64 " <unreadable>", raw);
		}
		return;
	case DWT_PTR:
		if (!raw)
			snprintf(buf, size, "NULL");
		else
			snprintf(buf, size, "0x%" PRIx64, raw);
		return;
	case DWT_FLOAT:
		if (t->size == 4) {
			float f;
			uint32_t w = (uint32_t)raw;

			memcpy(&f, &w, sizeof(f));
			put_double(buf, size, f, 9);
		} else {
			double d;

			memcpy(&d, &raw, sizeof(d));
			put_double(buf, size, d, 17);
		}
		return;
	default:
		snprintf(buf, size, "?(%s)", t->name ? t->name : "?");
	}
}

static void unknown(char *buf, size_t size, const struct dwtype *t)
{
	snprintf(buf, size, "?(%s)", t->name ? t->name : "?");
}

/* ---- threads and held lines --------------------------------------------- */

static struct thread *thread_get(struct graphtree *g, uint32_t tid, uint32_t pid, bool create)
{
	struct thread **b = &g->buckets[tid % THREAD_BUCKETS], *t;

	for (t = *b; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (!create)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->next = *b;
	*b = t;
	return t;
}

static struct item *item_at(struct thread *t, long abs)
{
	return abs >= t->base && abs < t->base + t->nitems ? &t->items[abs - t->base] : NULL;
}

static struct item *item_add(struct graphtree *g, struct thread *t, long *abs)
{
	if (t->nitems == t->icap) {
		long cap = t->icap ? t->icap * 2 : 64;
		struct item *p = realloc(t->items, cap * sizeof(*p));

		if (!p) {
			g->err = -ENOMEM;
			return NULL;
		}
		t->items = p;
		t->icap = cap;
	}
	if (abs)
		*abs = t->base + t->nitems;
	memset(&t->items[t->nitems], 0, sizeof(struct item));
	return &t->items[t->nitems++];
}

/* Appends "name\0value\0" to a growing buffer. */
static int args_add(char **buf, size_t *len, size_t *cap, const char *name, const char *val)
{
	size_t n = strlen(name) + 1, m = strlen(val) + 1;

	if (*len + n + m > *cap) {
		size_t c = *cap ? *cap * 2 : 128;
		char *p;

		while (c < *len + n + m)
			c *= 2;
		p = realloc(*buf, c);
		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = c;
	}
	memcpy(*buf + *len, name, n);
	memcpy(*buf + *len + n, val, m);
	*len += n + m;
	return 0;
}

/* Renders the arguments of frame f into its line. */
static void render_args(struct graphtree *g, struct thread *t, struct frame *f,
			const struct graph_call *c)
{
	const struct graph_fn *fn = &g->fns[f->fid];
	struct item *it = item_at(t, f->item);
	char val[VAL_MAX], name[16];
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int n = 0, err = 0;

	if (!it)
		return;
	if (g->o.no_args) {
		/* nothing */
	} else if (!fn->sig) {
		for (int r = 0; r < 6 && !err; r++, n++) {
			snprintf(name, sizeof(name), "%s", reg_names[r]);
			snprintf(val, sizeof(val), "0x%" PRIx64, c->regs[r]);
			err = args_add(&buf, &len, &cap, name, val);
		}
	} else {
		const struct dwfunc *s = fn->sig;

		for (size_t i = 0; i < s->nparams && !err; i++, n++) {
			const struct dwparam *p = &s->params[i];

			if (p->loc == DWLOC_REG)
				graph_format_value(val, sizeof(val), &p->type, c->regs[p->index],
						   c->str[p->index], c->slen[p->index], g->o.str_size);
			else if (p->loc == DWLOC_LATE && (f->late_ok & (1u << p->index)))
				graph_format_value(val, sizeof(val), &p->type, f->late[p->index],
						   NULL, 0, 0);
			else
				unknown(val, sizeof(val), &p->type);
			err = args_add(&buf, &len, &cap, p->name[0] ? p->name : "?", val);
		}
		if (s->varargs && !err) {
			err = args_add(&buf, &len, &cap, "...", "?");
			n++;
		}
	}
	if (err) {
		free(buf);
		g->err = -ENOMEM;
		buf = NULL;
		n = 0;
	}
	it->args = buf;
	it->nargs = n;
}

/* The top frame's line waits for its late values: render it now. */
static void settle_top(struct graphtree *g, struct thread *t)
{
	struct frame *f;

	if (!t->depth)
		return;
	f = &t->stack[t->depth - 1];
	if (!f->entry)
		return;
	render_args(g, t, f, f->entry);
	free(f->entry);
	f->entry = NULL;
}

static void ret_text(struct graphtree *g, const struct item *it, char *buf, size_t size)
{
	const struct graph_fn *fn = &g->fns[it->fid];
	char val[VAL_MAX];

	buf[0] = 0;
	if (g->o.no_args)
		return;
	if (!fn->sig) {
		snprintf(buf, size, "rax=0x%" PRIx64, it->ret);
		return;
	}
	if (fn->sig->ret.kind == DWT_VOID)
		return;
	if (fn->sig->ret_loc == DWLOC_REG)
		graph_format_value(val, sizeof(val), &fn->sig->ret, it->ret, NULL, 0, 0);
	else
		unknown(val, sizeof(val), &fn->sig->ret);
	snprintf(buf, size, "%s", val);
}

/* ---- writers -------------------------------------------------------------- */

static void text_args(FILE *out, const struct item *it)
{
	const char *p = it->args;

	fputc('(', out);
	for (int i = 0; p && i < it->nargs; i++) {
		const char *v = p + strlen(p) + 1;

		fprintf(out, "%s%s=%s", i ? ", " : "", p, v);
		p = v + strlen(v) + 1;
	}
	fputc(')', out);
}

static void write_text(struct graphtree *g, struct thread *t, const struct item *it)
{
	const char *name = g->fns[it->fid].name;
	FILE *out = g->out;
	char ret[VAL_MAX];

	fprintf(out, "%7u %3u) ", t->tid, it->cpu);
	if (it->kind == ITEM_LEAF)
		fprintf(out, "%10.3f us ", (it->end - it->ts) / 1e3);
	else if (it->kind == ITEM_CLOSE)
		fprintf(out, "%10.3f us ", it->end / 1e3);
	else
		fprintf(out, "%14s", "");
	fprintf(out, "|  %*s", 2 * it->depth, "");
	switch (it->kind) {
	case ITEM_OPEN:
		fputs(name, out);
		text_args(out, it);
		fputs(" {\n", out);
		break;
	case ITEM_LEAF:
		fputs(name, out);
		text_args(out, it);
		ret_text(g, it, ret, sizeof(ret));
		fprintf(out, "%s%s;\n", ret[0] ? " = " : "", ret);
		break;
	case ITEM_CLOSE:
		ret_text(g, it, ret, sizeof(ret));
		if (ret[0])
			fprintf(out, "} = %s; /* %s */\n", ret, name);
		else
			fprintf(out, "} /* %s */\n", name);
		break;
	case ITEM_NORET_LEAF:
		fputs(name, out);
		text_args(out, it);
		fprintf(out, "; /* no return: %s */\n", it->why);
		break;
	case ITEM_NORET_CLOSE:
		fprintf(out, "} /* %s: no return: %s */\n", name, it->why);
		break;
	}
}

static void json_event(struct graphtree *g, struct thread *t, const struct item *it, char ph,
		       uint64_t ts, bool with_args, const char *key, const char *val)
{
	FILE *out = g->out;
	const char *p = it->args;

	fprintf(out, "%s{\"ph\":\"%c\",\"name\":", g->json_first ? "" : ",\n", ph);
	g->json_first = false;
	json_write_cstring(out, g->fns[it->fid].name);
	fprintf(out, ",\"ts\":%" PRIu64 ".%03u,\"pid\":%u,\"tid\":%u", ts / 1000,
		(unsigned)(ts % 1000), t->pid, t->tid);
	if (ph == 'X')
		fprintf(out, ",\"dur\":%" PRIu64 ".%03u", (it->end - it->ts) / 1000,
			(unsigned)((it->end - it->ts) % 1000));
	fprintf(out, ",\"args\":{\"cpu\":%u", it->cpu);
	for (int i = 0; with_args && p && i < it->nargs; i++) {
		const char *v = p + strlen(p) + 1;

		fputc(',', out);
		json_write_cstring(out, p);
		fputc(':', out);
		json_write_cstring(out, v);
		p = v + strlen(v) + 1;
	}
	if (key) {
		fputc(',', out);
		json_write_cstring(out, key);
		fputc(':', out);
		json_write_cstring(out, val);
	}
	fputs("}}", out);
}

static void write_json(struct graphtree *g, struct thread *t, const struct item *it)
{
	char ret[VAL_MAX];

	switch (it->kind) {
	case ITEM_OPEN:
		json_event(g, t, it, 'B', it->ts, true, NULL, NULL);
		break;
	case ITEM_LEAF:
		ret_text(g, it, ret, sizeof(ret));
		json_event(g, t, it, 'X', it->ts, true, ret[0] ? "return" : NULL, ret);
		break;
	case ITEM_CLOSE:
		ret_text(g, it, ret, sizeof(ret));
		json_event(g, t, it, 'E', it->ts, false, ret[0] ? "return" : NULL, ret);
		break;
	case ITEM_NORET_LEAF:
		json_event(g, t, it, 'B', it->ts, true, NULL, NULL);
		json_event(g, t, it, 'E', it->end, false, "no_return", it->why);
		break;
	case ITEM_NORET_CLOSE:
		json_event(g, t, it, 'E', it->ts, false, "no_return", it->why);
		break;
	}
}

static void write_header(struct graphtree *g)
{
	if (g->header_done)
		return;
	g->header_done = true;
	if (g->o.format == REPORT_JSON)
		fputs("{\"traceEvents\":[\n", g->out);
	else
		fprintf(g->out, "# %5s %3s) %13s |  %s\n", "TID", "CPU", "DURATION", "FUNCTION CALLS");
}

/* Writes the held lines of t up to (not including) absolute index upto. */
static void write_upto(struct graphtree *g, struct thread *t, long upto)
{
	long n = upto - t->base;

	write_header(g);
	for (long i = 0; i < n; i++) {
		struct item *it = &t->items[i];

		if (g->o.format == REPORT_JSON)
			write_json(g, t, it);
		else
			write_text(g, t, it);
		free(it->args);
	}
	memmove(t->items, t->items + n, (t->nitems - n) * sizeof(*t->items));
	t->nitems -= n;
	t->base = upto;
}

/* Writes the lines of t that can no longer change: all but the line of
 * an open call that may still collapse (the last, with no callee shown
 * yet) and, with --min-duration, everything from the first open call
 * that is not yet known to be long enough. */
static void write_settled(struct graphtree *g, struct thread *t, uint64_t now)
{
	long upto = t->base + t->nitems;

	for (int i = 0; i < t->depth; i++) {
		struct frame *f = &t->stack[i];

		if (f->item < t->base)
			continue;
		if (g->o.min_ns && now - f->ts < g->o.min_ns) {
			upto = f->item;
			break;
		}
	}
	if (t->depth) {
		struct frame *top = &t->stack[t->depth - 1];

		if (top->item >= t->base && top->item == t->base + t->nitems - 1 && top->item < upto)
			upto = top->item;
	}
	if (upto > t->base)
		write_upto(g, t, upto);
}

/* ---- calls ---------------------------------------------------------------- */

struct graphtree *graphtree_new(FILE *out, const struct graph_fn *fns, size_t nfns,
				const struct graphtree_opts *o)
{
	struct graphtree *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->out = out;
	g->fns = fns;
	g->nfns = nfns;
	g->o = *o;
	g->json_first = true;
	return g;
}

static bool shown(const struct graphtree *g, int depth)
{
	return !g->o.max_depth || depth < g->o.max_depth;
}

int graphtree_entry(struct graphtree *g, const struct graph_call *c)
{
	struct thread *t;
	struct frame *f;
	struct item *it;

	if (c->fid >= g->nfns)
		return 0;
	t = thread_get(g, c->tid, c->pid, true);
	if (!t)
		return -ENOMEM;
	if (c->ts > g->last_ts)
		g->last_ts = c->ts;
	settle_top(g, t);
	if (t->depth == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		struct frame *p = realloc(t->stack, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->stack = p;
		t->cap = cap;
	}
	g->st.calls++;
	f = &t->stack[t->depth];
	memset(f, 0, sizeof(*f));
	f->fid = c->fid;
	f->ts = c->ts;
	f->sp = c->sp;
	f->item = -1;
	f->beyond_kernel_depth = t->depth >= URETPROBE_DEPTH_MAX;
	if (shown(g, t->depth)) {
		it = item_add(g, t, &f->item);
		if (!it)
			return g->err;
		it->kind = ITEM_OPEN;
		it->depth = t->depth;
		it->fid = c->fid;
		it->cpu = c->cpu;
		it->ts = c->ts;
	}
	t->depth++;
	if (f->item < 0)
		return 0;
	if (!g->o.no_args && g->fns[c->fid].sig && g->fns[c->fid].sig->nlate) {
		/* keep the entry until the late values come */
		struct graph_call *copy = malloc(sizeof(*copy) + 6 * (size_t)GRAPH_STR_LIMIT);

		if (!copy)
			return -ENOMEM;
		*copy = *c;
		for (int r = 0; r < 6; r++) {
			char *dst = (char *)(copy + 1) + r * GRAPH_STR_LIMIT;

			if (c->str[r] && c->slen[r] > 0) {
				size_t n = (size_t)c->slen[r] < GRAPH_STR_LIMIT ? (size_t)c->slen[r]
										 : GRAPH_STR_LIMIT;
				memcpy(dst, c->str[r], n);
				copy->str[r] = dst;
			}
		}
		f->entry = copy;
	} else {
		render_args(g, t, f, c);
	}
	if (t->nitems > HOLD_MAX)
		write_settled(g, t, c->ts);
	return g->err;
}

int graphtree_late(struct graphtree *g, uint32_t tid, uint32_t fid, const uint64_t *vals,
		   uint32_t ok_mask)
{
	struct thread *t = thread_get(g, tid, 0, false);
	struct frame *f;

	if (!t || !t->depth)
		return 0;
	f = &t->stack[t->depth - 1];
	if (f->fid != fid || !f->entry)
		return 0;
	memcpy(f->late, vals, sizeof(f->late));
	f->late_ok = ok_mask;
	settle_top(g, t);
	return g->err;
}

/* Closes the top frame of t: returned (why NULL) or not. */
static void close_top(struct graphtree *g, struct thread *t, uint64_t ts, uint32_t cpu,
		      uint64_t ret, const char *why)
{
	struct frame *f = &t->stack[t->depth - 1];
	struct item *open = item_at(t, f->item), *it;
	uint64_t dur = ts - f->ts;

	settle_top(g, t);
	t->depth--;
	if (f->item < 0)
		return;
	if (g->o.min_ns && dur < g->o.min_ns && open) {
		/* too short: the call goes, and its callees with it */
		for (long i = f->item - t->base; i < t->nitems; i++)
			free(t->items[i].args);
		t->nitems = f->item - t->base;
		return;
	}
	if (open && f->item == t->base + t->nitems - 1) {
		open->kind = why ? ITEM_NORET_LEAF : ITEM_LEAF;
		open->end = ts;
		open->ret = ret;
		open->why = why;
		return;
	}
	it = item_add(g, t, NULL);
	if (!it)
		return;
	it->kind = why ? ITEM_NORET_CLOSE : ITEM_CLOSE;
	it->depth = t->depth;
	it->fid = f->fid;
	it->cpu = cpu;
	it->ts = ts;
	it->end = dur;		/* for a closing line: the call's duration */
	it->ret = ret;
	it->why = why;
}

static const char *lost_return(const struct frame *f)
{
	return f->beyond_kernel_depth ? "over the kernel's 64 pending return probes"
				      : "longjmp, exception or lost event";
}

int graphtree_return(struct graphtree *g, uint32_t pid, uint32_t tid, uint32_t cpu, uint32_t fid,
		     uint64_t ts, uint64_t sp, uint64_t rax)
{
	struct thread *t = thread_get(g, tid, pid, false);
	int k = -1;

	if (ts > g->last_ts)
		g->last_ts = ts;
	if (t) {
		settle_top(g, t);
		/* the call this return belongs to: same function, and the
		 * stack pointer just above its return address; else the
		 * innermost open call of the function */
		for (int i = t->depth - 1; i >= 0 && k < 0; i--)
			if (t->stack[i].fid == fid && t->stack[i].sp + 8 == sp)
				k = i;
		for (int i = t->depth - 1; i >= 0 && k < 0; i--)
			if (t->stack[i].fid == fid)
				k = i;
	}
	if (k < 0) {
		g->st.orphans++;
		return 0;
	}
	while (t->depth - 1 > k) {
		g->st.no_return++;
		close_top(g, t, ts, cpu, 0, lost_return(&t->stack[t->depth - 1]));
	}
	g->st.returns++;
	close_top(g, t, ts, cpu, rax, NULL);
	if (!t->depth)
		write_upto(g, t, t->base + t->nitems);
	else if (t->nitems > HOLD_MAX)
		write_settled(g, t, ts);
	return g->err;
}

int graphtree_thread_exit(struct graphtree *g, uint32_t tid, uint32_t cpu, uint64_t ts)
{
	struct thread *t = thread_get(g, tid, 0, false);

	if (!t)
		return 0;
	while (t->depth) {
		g->st.no_return++;
		close_top(g, t, ts, cpu, 0, "thread exited");
	}
	write_upto(g, t, t->base + t->nitems);
	return g->err;
}

int graphtree_flush(struct graphtree *g, uint64_t now)
{
	for (int b = 0; b < THREAD_BUCKETS; b++)
		for (struct thread *t = g->buckets[b]; t; t = t->next)
			if (t->nitems)
				write_settled(g, t, now);
	fflush(g->out);
	return g->err;
}

int graphtree_finish(struct graphtree *g, uint64_t lost_events)
{
	write_header(g);
	for (int b = 0; b < THREAD_BUCKETS; b++) {
		for (struct thread *t = g->buckets[b]; t; t = t->next) {
			uint64_t ts = g->last_ts;

			g->st.open_at_end += t->depth;
			while (t->depth)
				close_top(g, t, ts, 0, 0, "still running when tracing ended");
			write_upto(g, t, t->base + t->nitems);
		}
	}
	if (g->o.format == REPORT_JSON)
		fprintf(g->out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"lost_events\":%" PRIu64
				"}}\n", lost_events);
	fflush(g->out);
	return g->err;
}

const struct graphtree_stats *graphtree_stats(const struct graphtree *g)
{
	return &g->st;
}

void graphtree_free(struct graphtree *g)
{
	if (!g)
		return;
	for (int b = 0; b < THREAD_BUCKETS; b++) {
		struct thread *t = g->buckets[b], *next;

		for (; t; t = next) {
			next = t->next;
			for (int i = 0; i < t->depth; i++)
				free(t->stack[i].entry);
			for (long i = 0; i < t->nitems; i++)
				free(t->items[i].args);
			free(t->stack);
			free(t->items);
			free(t);
		}
	}
	free(g);
}
