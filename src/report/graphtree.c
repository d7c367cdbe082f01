/* The call-graph model: per thread, a stack of open calls and the lines
 * held until settled, handed then to the writer of the output format. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/graph_value.h"
#include "report/graph_writer.h"
#include "report/graphtree.h"

/* The kernel keeps at most this many pending return probes per thread
 * (MAX_URETPROBE_DEPTH); a deeper call's return is not reported. */
#define URETPROBE_DEPTH_MAX 64
#define THREAD_BUCKETS 1024
#define HOLD_MAX 512		/* held lines per thread before writing what is settled */

static const char *const reg_names[6] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };

/* The writer call a line becomes (see graph_writer.h). */
enum item_kind {
	ITEM_OPEN,	/* "f(args) {" */
	ITEM_LEAF,	/* "f(args) = ret;" */
	ITEM_CLOSE,	/* "} = ret; / * f * /" */
};

/* One line of the tree, held until settled.  args: nargs pairs in one
 * allocation with their strings, owned; NULL while the late values are
 * awaited. */
struct item {
	enum item_kind kind;
	int depth;
	uint32_t fid, cpu;
	uint64_t ts;		/* entry (OPEN/LEAF), else the closing time */
	uint64_t dur;		/* LEAF, CLOSE: the call's time */
	uint64_t ret;
	const char *why;	/* LEAF, CLOSE: NULL, or why no return (static) */
	struct graph_arg *args;
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
	const struct graph_writer_ops *w;
	void *wstate;		/* the writer's, w->size bytes */
	bool begun;		/* w->begin called */
	struct thread *buckets[THREAD_BUCKETS];
	struct graphtree_stats st;
	char *scratch;		/* render_args: "name\0value\0..." */
	size_t scratch_cap;
	uint64_t last_ts;	/* newest record seen */
	int err;
};

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

/* Appends "name\0value\0" to g->scratch, *len bytes long. */
static int args_add(struct graphtree *g, size_t *len, const char *name, const char *val)
{
	size_t n = strlen(name) + 1, m = strlen(val) + 1;

	if (*len + n + m > g->scratch_cap) {
		size_t c = g->scratch_cap ? g->scratch_cap * 2 : 1024;
		char *p;

		while (c < *len + n + m)
			c *= 2;
		p = realloc(g->scratch, c);
		if (!p)
			return -ENOMEM;
		g->scratch = p;
		g->scratch_cap = c;
	}
	memcpy(g->scratch + *len, name, n);
	memcpy(g->scratch + *len + n, val, m);
	*len += n + m;
	return 0;
}

/* The nargs pairs in g->scratch (len bytes) as one allocation: the
 * array, then the strings it points to. */
static struct graph_arg *args_pack(struct graphtree *g, size_t len, int nargs)
{
	struct graph_arg *a = malloc(nargs * sizeof(*a) + len);
	char *p;

	if (!a)
		return NULL;
	p = memcpy(a + nargs, g->scratch, len);
	for (int i = 0; i < nargs; i++) {
		a[i].name = p;
		p += strlen(p) + 1;
		a[i].value = p;
		p += strlen(p) + 1;
	}
	return a;
}

/* Renders the arguments of frame f into its line. */
static void render_args(struct graphtree *g, struct thread *t, struct frame *f,
			const struct graph_call *c)
{
	const struct graph_fn *fn = &g->fns[f->fid];
	struct item *it = item_at(t, f->item);
	char val[GRAPH_VALUE_MAX];
	size_t len = 0;
	int n = 0, err = 0;

	if (!it)
		return;
	if (g->o.no_args) {
		/* nothing */
	} else if (!fn->sig) {
		for (int r = 0; r < 6 && !err; r++, n++) {
			snprintf(val, sizeof(val), "0x%" PRIx64, c->regs[r]);
			err = args_add(g, &len, reg_names[r], val);
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
				graph_format_unknown(val, sizeof(val), &p->type);
			err = args_add(g, &len, p->name[0] ? p->name : "?", val);
		}
		if (s->varargs && !err) {
			err = args_add(g, &len, "...", "?");
			n++;
		}
	}
	if (!err && n)
		it->args = args_pack(g, len, n);
	if (err || (n && !it->args)) {
		g->err = -ENOMEM;
		n = 0;
	}
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
	char val[GRAPH_VALUE_MAX];

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
		graph_format_unknown(val, sizeof(val), &fn->sig->ret);
	snprintf(buf, size, "%s", val);
}

/* ---- writing ------------------------------------------------------------ */

/* Hands the line to the writer. */
static void write_item(struct graphtree *g, struct thread *t, const struct item *it)
{
	char ret[GRAPH_VALUE_MAX];
	struct graph_line l = {
		.name = g->fns[it->fid].name,
		.pid = t->pid,
		.tid = t->tid,
		.cpu = it->cpu,
		.depth = it->depth,
		.ts = it->ts,
		.dur = it->dur,
		.args = it->args,
		.nargs = it->nargs,
		.ret = ret,
		.why = it->why,
	};

	ret[0] = 0;
	if (it->kind != ITEM_OPEN && !it->why)
		ret_text(g, it, ret, sizeof(ret));
	switch (it->kind) {
	case ITEM_OPEN:
		g->w->call_open(g->wstate, &l);
		break;
	case ITEM_LEAF:
		g->w->call_leaf(g->wstate, &l);
		break;
	case ITEM_CLOSE:
		g->w->call_close(g->wstate, &l);
		break;
	}
}

static void begin(struct graphtree *g)
{
	if (g->begun)
		return;
	g->begun = true;
	g->w->begin(g->wstate, g->out);
}

/* Writes the held lines of t up to (not including) absolute index upto. */
static void write_upto(struct graphtree *g, struct thread *t, long upto)
{
	long n = upto - t->base;

	begin(g);
	for (long i = 0; i < n; i++) {
		write_item(g, t, &t->items[i]);
		free(t->items[i].args);
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
	const struct graph_writer_ops *w;
	struct graphtree *g;

	switch (o->format) {
	case REPORT_TEXT:
		w = &graph_text_writer;
		break;
	case REPORT_JSON:
	case REPORT_TRACE:
		w = &graph_trace_writer;
		break;
	default:
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->wstate = calloc(1, w->size);
	if (!g->wstate) {
		free(g);
		return NULL;
	}
	g->out = out;
	g->fns = fns;
	g->nfns = nfns;
	g->o = *o;
	g->w = w;
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
		open->kind = ITEM_LEAF;
		open->dur = dur;
		open->ret = ret;
		open->why = why;
		return;
	}
	it = item_add(g, t, NULL);
	if (!it)
		return;
	it->kind = ITEM_CLOSE;
	it->depth = t->depth;
	it->fid = f->fid;
	it->cpu = cpu;
	it->ts = ts;
	it->dur = dur;
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
	begin(g);
	for (int b = 0; b < THREAD_BUCKETS; b++) {
		for (struct thread *t = g->buckets[b]; t; t = t->next) {
			uint64_t ts = g->last_ts;

			g->st.open_at_end += t->depth;
			while (t->depth)
				close_top(g, t, ts, 0, 0, "still running when tracing ended");
			write_upto(g, t, t->base + t->nitems);
		}
	}
	g->w->end(g->wstate, lost_events);
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
	free(g->scratch);
	free(g->wstate);
	free(g);
}
