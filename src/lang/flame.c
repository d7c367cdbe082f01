/* Flame graphs from a language program's stack-keyed map (lang/flame.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "lang/flame.h"
#include "report/flamegraph.h"
#include "report/folded.h"
#include "report/output.h"
#include "report/pprof.h"

/* What a key element of the map becomes. */
enum key_role { ROLE_OTHER, ROLE_STACK, ROLE_COMM, ROLE_PID, ROLE_TID };

#define MAX_KEYS 16

struct lang_flame {
	char *path;
	enum report_format fmt;
	const char *map;		/* the program's (its arena) */
	enum lang_kind value;		/* count, sum ... */
	bool time_ns;			/* the values are nanoseconds */
	size_t nkeys;
	enum key_role roles[MAX_KEYS];
	bool roles_found;		/* by the map's first use with keys */
	char title[160];
	struct stacks *stacks;
	uint64_t dropped;		/* elements with a negative value */
	uint64_t elements;		/* elements added */
};

bool lang_flame_path(const char *path, enum report_format *fmt)
{
	size_t n = path ? strlen(path) : 0;

	if (n > 7 && !strcmp(path + n - 7, ".folded")) {
		*fmt = REPORT_FOLDED;
		return true;
	}
	*fmt = report_format_for_path(path, REPORT_MASK(REPORT_SVG) | REPORT_MASK(REPORT_PPROF),
				      REPORT_TEXT);
	return *fmt != REPORT_TEXT;
}

/* ---- the program: which map, what its keys are ------------------------ */

static bool stack_keyed(const struct lang_map *m)
{
	for (long i = 0; i < m->nkeys; i++)
		if (m->keys[i].kind == LANG_K_STACK)
			return true;
	return false;
}

static bool numeric(enum lang_kind k)
{
	switch (k) {
	case LANG_K_INT:
	case LANG_K_COUNT:
	case LANG_K_SUM:
	case LANG_K_MIN:
	case LANG_K_MAX:
	case LANG_K_AVG:
	case LANG_K_STATS:
	case LANG_K_HIST:
	case LANG_K_LHIST:
		return true;
	default:
		return false;
	}
}

/* Calls fn on every node under n (n first); depth bounded as the parser's. */
static void walk(const struct lang_node *n, unsigned depth,
		 void (*fn)(const struct lang_node *, void *), void *ctx)
{
	if (!n || depth > LANG_MAX_DEPTH * 2)
		return;
	fn(n, ctx);
	walk(n->a, depth + 1, fn, ctx);
	walk(n->b, depth + 1, fn, ctx);
	walk(n->c, depth + 1, fn, ctx);
	for (size_t i = 0; i < n->n; i++)
		walk(n->list[i], depth + 1, fn, ctx);
}

static void walk_prog(const struct lang_prog *prog, void (*fn)(const struct lang_node *, void *),
		      void *ctx)
{
	for (const struct lang_probe *p = prog->probes; p; p = p->next) {
		walk(p->pred, 0, fn, ctx);
		walk(p->body, 0, fn, ctx);
	}
}

static bool is_builtin(const struct lang_node *n, const char *name)
{
	return (n->kind == LANG_N_BUILTIN || (n->kind == LANG_N_CALL && !n->n)) &&
	       n->name && !strcmp(n->name, name);
}

/* The first use of the map with its keys: comm, pid, tid by name. */
static void find_roles(const struct lang_node *n, void *ctx)
{
	struct lang_flame *fl = ctx;

	if (fl->roles_found || n->kind != LANG_N_MAP || strcmp(n->name, fl->map) ||
	    n->n != fl->nkeys)
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct lang_node *k = n->list[i];

		if (fl->roles[i] == ROLE_STACK)
			continue;
		fl->roles[i] = is_builtin(k, "comm") ? ROLE_COMM : is_builtin(k, "pid") ? ROLE_PID
			     : is_builtin(k, "tid") ? ROLE_TID : ROLE_OTHER;
	}
	fl->roles_found = true;
}

static void reads_time(const struct lang_node *n, void *ctx)
{
	if (is_builtin(n, "nsecs") || is_builtin(n, "elapsed"))
		*(bool *)ctx = true;
}

/* An assignment to the map whose value reads nsecs or elapsed. */
static void find_time(const struct lang_node *n, void *ctx)
{
	struct lang_flame *fl = ctx;

	if (n->kind == LANG_N_ASSIGN && n->a && n->a->kind == LANG_N_MAP &&
	    !strcmp(n->a->name, fl->map))
		walk(n->b, 0, reads_time, &fl->time_ns);
}

static void why_set(char *why, size_t whysz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void why_set(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
}

/* The map to draw: the one named, else the only stack-keyed one. */
static const struct lang_map *pick_map(const struct lang_prog *prog, const char *path,
				       const char *name, char *why, size_t whysz)
{
	const struct lang_map *found = NULL;
	char names[96] = "";
	size_t nfound = 0, len = 0;

	if (name) {
		for (const struct lang_map *m = prog->maps; m; m = m->next)
			if (!strcmp(m->name, name) || (m->name[0] == '@' && !strcmp(m->name + 1, name)))
				found = m;
		if (!found)
			why_set(why, whysz, "%s: the program has no map %s%s", path,
				name[0] == '@' ? "" : "@", name);
		else if (!stack_keyed(found))
			why_set(why, whysz, "%s: %s is not keyed by a stack (kstack or ustack)", path,
				found->name);
		return found && stack_keyed(found) ? found : NULL;
	}
	for (const struct lang_map *m = prog->maps; m; m = m->next) {
		if (!stack_keyed(m))
			continue;
		if (nfound++)
			len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0,
						", ");
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s", m->name);
		found = m;
	}
	if (!nfound)
		why_set(why, whysz, "%s: no map of the program is keyed by a stack "
			"(a flame graph draws one: @[kstack] = count())", path);
	else if (nfound > 1)
		why_set(why, whysz, "%s: %zu maps are keyed by stacks (%s): name one with --map",
			path, nfound, names);
	return nfound == 1 ? found : NULL;
}

struct lang_flame *lang_flame_new(const struct lang_prog *prog, const char *path,
				  enum report_format fmt, const char *map, char *why, size_t whysz)
{
	const struct lang_map *m = pick_map(prog, path, map, why, whysz);
	struct lang_flame *fl;

	if (!m) {
		errno = EINVAL;
		return NULL;
	}
	if (!numeric(m->value.kind)) {
		why_set(why, whysz, "%s: %s holds %s values: a flame graph needs numbers "
			"(count(), sum() ...)", path, m->name, lang_kind_name(m->value.kind));
		errno = EINVAL;
		return NULL;
	}
	if (m->nkeys > MAX_KEYS) {
		why_set(why, whysz, "%s: %s has more than %d keys", path, m->name, MAX_KEYS);
		errno = EINVAL;
		return NULL;
	}
	fl = calloc(1, sizeof(*fl));
	if (!fl || !(fl->path = strdup(path)) || !(fl->stacks = stacks_new())) {
		lang_flame_free(fl);
		why_set(why, whysz, "%s: %s", path, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	fl->fmt = fmt;
	fl->map = m->name;
	fl->value = m->value.kind;
	fl->nkeys = (size_t)m->nkeys;
	for (size_t i = 0; i < fl->nkeys; i++)
		fl->roles[i] = m->keys[i].kind == LANG_K_STACK ? ROLE_STACK : ROLE_OTHER;
	walk_prog(prog, find_roles, fl);
	walk_prog(prog, find_time, fl);
	snprintf(fl->title, sizeof(fl->title), "%s %s%s", prog->name && strcmp(prog->name, "-e")
		 ? prog->name : "stackscope", m->name, fl->time_ns ? " (time)" : "");
	return fl;
}

void lang_flame_free(struct lang_flame *fl)
{
	if (!fl)
		return;
	stacks_free(fl->stacks);
	free(fl->path);
	free(fl);
}

const char *lang_flame_map(const struct lang_flame *fl)
{
	return fl->map;
}

const struct stacks *lang_flame_stacks(const struct lang_flame *fl)
{
	return fl->stacks;
}

uint64_t lang_flame_dropped(const struct lang_flame *fl)
{
	return fl->dropped;
}

/* ---- elements -> stacks ------------------------------------------------ */

/* The value to draw; false when it cannot be drawn (negative). */
static bool value_of(const struct lang_val *v, uint64_t *out)
{
	int64_t i = v->i;

	switch (v->kind) {
	case LANG_K_COUNT:
		*out = (uint64_t)v->i;
		return true;
	case LANG_K_AVG:
		i = v->count ? v->sum / (int64_t)v->count : 0;
		break;
	case LANG_K_STATS:
		i = v->sum;
		break;
	case LANG_K_HIST:
	case LANG_K_LHIST:
		*out = 0;
		for (size_t b = 0; b < v->nbuckets; b++)
			*out = *out + v->buckets[b] < *out ? UINT64_MAX : *out + v->buckets[b];
		return true;
	case LANG_K_SUM:
	case LANG_K_INT:
	case LANG_K_MIN:
	case LANG_K_MAX:
		if (!v->is_signed) {
			*out = (uint64_t)i;
			return true;
		}
		break;
	default:
		return false;
	}
	if (i < 0)
		return false;
	*out = (uint64_t)i;
	return true;
}

/* Room for one element's frames: names of frames without one ("0x...",
 * "[pid N]") and other keys' text live in names until stacks_add()
 * copies them. */
struct elem_frames {
	struct frame *fr;
	size_t n, cap;
	char (*names)[24];
	size_t nnames;
	char *texts[MAX_KEYS];
	size_t ntexts;
};

static const char *own_name(struct elem_frames *e, const char *fmt, uint64_t v)
{
	char *s = e->names[e->nnames++];

	snprintf(s, sizeof(e->names[0]), fmt, (unsigned long long)v);
	return s;
}

static void add_stack(struct elem_frames *e, const struct lang_val *st)
{
	/* innermost first in the value, outermost first in a stack */
	for (size_t i = st->nframes; i-- > 0;) {
		const struct lang_frame *f = &st->frames[i];
		struct frame *o = &e->fr[e->n++];

		*o = (struct frame){ .kind = st->user ? FRAME_USER : FRAME_KERNEL, .addr = f->addr,
				     .offset = st->user ? 0 : f->addr };
		o->name = f->name ? f->name : own_name(e, "0x%llx", f->addr);
	}
}

/* The frames of one element, root first (lang/flame.h says the order). */
static int elem_frames(struct lang_flame *fl, const struct lang_val *key, struct elem_frames *e)
{
	const struct lang_val *keys = key;
	size_t nk = fl->nkeys, need = 1;
	const struct lang_val *comm = NULL, *pid = NULL, *tid = NULL;

	if (nk > 1) {
		if (!key || key->kind != LANG_K_TUPLE || key->nelems != nk)
			return -EINVAL;
		keys = key->elems;
	} else if (!key) {
		return -EINVAL;
	}
	for (size_t i = 0; i < nk; i++)
		need += 1 + (keys[i].kind == LANG_K_STACK ? keys[i].nframes : 0);
	e->fr = calloc(need, sizeof(*e->fr));
	e->names = calloc(need, sizeof(*e->names));
	if (!e->fr || !e->names)
		return -ENOMEM;
	e->cap = need;
	for (size_t i = 0; i < nk; i++) {
		if (fl->roles[i] == ROLE_COMM && keys[i].kind == LANG_K_STR && !comm)
			comm = &keys[i];
		else if (fl->roles[i] == ROLE_PID && keys[i].kind == LANG_K_INT && !pid)
			pid = &keys[i];
		else if (fl->roles[i] == ROLE_TID && keys[i].kind == LANG_K_INT && !tid)
			tid = &keys[i];
	}
	if (comm) {
		char *s = strndup(comm->s ? comm->s : "", comm->s ? comm->len : 0);

		if (!s)
			return -ENOMEM;
		e->texts[e->ntexts++] = s;
		e->fr[e->n++] = (struct frame){ s[0] ? s : "[unknown]", FRAME_COMM,
						.addr = pid ? (uint64_t)pid->i : 0 };
	}
	if (pid)
		e->fr[e->n++] = (struct frame){ own_name(e, "[pid %llu]", (uint64_t)pid->i), FRAME_TASK,
						.addr = (uint64_t)pid->i };
	if (tid)
		e->fr[e->n++] = (struct frame){ own_name(e, "[tid %llu]", (uint64_t)tid->i), FRAME_TASK,
						.addr = (uint64_t)tid->i };
	for (size_t i = 0; i < nk; i++) {
		const struct lang_val *k = &keys[i];
		char *s;

		if (k->kind == LANG_K_STACK || k == comm || k == pid || k == tid)
			continue;
		s = lang_val_text(k);
		if (!s)
			return -ENOMEM;
		e->texts[e->ntexts++] = s;
		e->fr[e->n++] = (struct frame){ s[0] ? s : "\"\"", FRAME_MARK };
	}
	for (int user = 1; user >= 0; user--)
		for (size_t i = 0; i < nk; i++)
			if (keys[i].kind == LANG_K_STACK && keys[i].user == user)
				add_stack(e, &keys[i]);
	if (!e->n)
		e->fr[e->n++] = (struct frame){ "[no frames]", FRAME_MARK };
	return 0;
}

static void elem_free(struct elem_frames *e)
{
	for (size_t i = 0; i < e->ntexts; i++)
		free(e->texts[i]);
	free(e->fr);
	free(e->names);
}

int lang_flame_add(struct lang_flame *fl, const struct lang_map_entry *ents, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct elem_frames e = { 0 };
		uint64_t v;

		if (!value_of(&ents[i].value, &v)) {
			fl->dropped++;
			continue;
		}
		fl->elements++;
		if (!v)
			continue;
		err = elem_frames(fl, ents[i].key, &e);
		if (!err)
			err = stacks_add(fl->stacks, e.fr, (unsigned int)e.n, v);
		else if (err == -EINVAL) {
			fl->dropped++;
			err = 0;
		}
		elem_free(&e);
	}
	return err;
}

/* ---- writing ----------------------------------------------------------- */

static const char *agg_name(enum lang_kind k)
{
	switch (k) {
	case LANG_K_COUNT: return "count";
	case LANG_K_SUM: return "sum";
	case LANG_K_MIN: return "min";
	case LANG_K_MAX: return "max";
	case LANG_K_AVG: return "avg";
	case LANG_K_STATS: return "stats";
	case LANG_K_HIST: return "hist";
	case LANG_K_LHIST: return "lhist";
	default: return "value";
	}
}

int lang_flame_write(struct lang_flame *fl, FILE *f)
{
	stacks_sort(fl->stacks);
	if (fl->fmt == REPORT_FOLDED)
		return report_folded_write(f, fl->stacks);
	if (fl->fmt == REPORT_PPROF) {
		struct pprof_opts po = { .ntypes = 1, .comments = { fl->title } };

		po.types[0] = (struct pprof_sample_type){
			agg_name(fl->value),
			fl->time_ns ? "nanoseconds" : "count", 1 };
		return report_pprof_write(f, fl->stacks, &po);
	}
	struct flame_opts fo = {
		.title = fl->title,
		/* counts of events, a time, or numbers of no known unit */
		.unit = fl->time_ns ? "ns" : fl->value == LANG_K_COUNT ? "samples" : "",
	};
	return report_flamegraph_write(f, fl->stacks, &fo);
}

int lang_flame_save(struct lang_flame *fl)
{
	struct output out;
	int err = output_open(&out, fl->path), cerr;

	if (err) {
		msg("%s: %s", fl->path, output_error(&out, err));
		return err;
	}
	err = lang_flame_write(fl, out.f);
	cerr = output_close(&out, !err);
	if (!err)
		err = cerr;
	if (err) {
		msg("%s: write failed: %s", fl->path, strerror(-err));
		return err;
	}
	if (fl->dropped)
		msg("%s: %llu elements of %s left out: negative values cannot be drawn", fl->path,
		    (unsigned long long)fl->dropped, fl->map);
	if (!fl->elements)
		msg("%s: %s is empty: the flame graph has no stacks", fl->path, fl->map);
	fprintf(stderr, "stackscope run: wrote %s (%s: %zu stacks)\n", fl->path, fl->map,
		stacks_count(fl->stacks));
	return 0;
}
