/* rawtracepoint:EVENT (globs over the kernel's btf_trace_* typedefs):
 * loaded as tp_btf (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, the
 * typedef's BTF id) when the kernel allows it, else as a plain
 * raw_tracepoint.  No tracefs is needed.  Either way ctx is the event's
 * arguments as an array of u64 (argument i at 8*i, zero-extended from its
 * size), named and typed from BTF:
 *
 *   btf_trace_sched_switch  -> PTR -> FUNC_PROTO (void *, bool, ...)  types, no names
 *   __bpf_trace_sched_switch   FUNC_PROTO (void *__data, bool preempt, ...)  names
 *
 * The names come from the event's __bpf_trace_ function or, for events
 * defined from a class (DEFINE_EVENT), from the class's one whose
 * parameter types are the same (the longest common prefix with the
 * event's name decides between equals); without one, arg0, arg1, ... */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "common.h"
#include "lang/probe_int.h"
#include "trace/attach.h"
#include "trace/features.h"

#define RT_PREFIX "btf_trace_"
#define RT_FUNC_PREFIX "__bpf_trace_"
/* At most this many events in one glob. */
#define RT_MAX_MATCHES 20000

static uint32_t skip_mods(const struct btf *btf, uint32_t id)
{
	for (int i = 0; i < 32; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

/* The FUNC_PROTO a btf_trace_ typedef points at, or NULL. */
static const struct btf_type *typedef_proto(const struct btf *btf, uint32_t tid)
{
	const struct btf_type *t = btf__type_by_id(btf, tid);

	if (!t || !btf_is_typedef(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

static bool same_params(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_param *pa = btf_params(a), *pb = btf_params(b);

	if (btf_vlen(a) != btf_vlen(b))
		return false;
	for (unsigned i = 0; i < btf_vlen(a); i++)
		if (pa[i].type != pb[i].type)
			return false;
	return true;
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

/* The __bpf_trace_ function whose parameters name proto's: the event's
 * own, else the best of the classes with the same types; NULL. */
static const struct btf_type *names_for(const struct btf *btf, const char *event,
					const struct btf_type *proto)
{
	char fname[256];
	const struct btf_type *best = NULL;
	size_t best_len = 0;
	uint32_t n = btf__type_cnt(btf);
	int id;

	snprintf(fname, sizeof(fname), RT_FUNC_PREFIX "%s", event);
	id = btf__find_by_name_kind(btf, fname, BTF_KIND_FUNC);
	if (id > 0) {
		const struct btf_type *f = btf__type_by_id(btf, id);
		const struct btf_type *p = f ? btf__type_by_id(btf, f->type) : NULL;

		if (p && btf_is_func_proto(p) && same_params(p, proto))
			return p;
	}
	for (uint32_t i = 1; i < n; i++) {
		const struct btf_type *f = btf__type_by_id(btf, i), *p;
		const char *name;
		size_t len;

		if (!btf_is_func(f))
			continue;
		name = btf__name_by_offset(btf, f->name_off);
		if (!name || strncmp(name, RT_FUNC_PREFIX, sizeof(RT_FUNC_PREFIX) - 1))
			continue;
		p = btf__type_by_id(btf, f->type);
		if (!p || !btf_is_func_proto(p) || !same_params(p, proto))
			continue;
		len = common_prefix(name + sizeof(RT_FUNC_PREFIX) - 1, event);
		if (!best || len > best_len) {
			best = p;
			best_len = len;
		}
	}
	return best;
}

struct sbuf {
	char *s;
	size_t size, len;
};

static void sbuf_printf(void *ctx, const char *fmt, va_list ap)
{
	struct sbuf *b = ctx;
	int n;

	if (b->len >= b->size - 1)
		return;
	n = vsnprintf(b->s + b->len, b->size - b->len, fmt, ap);
	if (n > 0)
		b->len += (size_t)n < b->size - b->len ? (size_t)n : b->size - b->len - 1;
}

/* How argument i of BTF type id is read from the u64 array ctx. */
static void arg_access(const struct btf *btf, uint32_t id, unsigned i,
		       struct lang_field_access *acc)
{
	uint32_t rid = skip_mods(btf, id);
	const struct btf_type *t = rid ? btf__type_by_id(btf, rid) : NULL;

	acc->base = LANG_BASE_CTX;
	acc->offset = 8 * i;
	acc->size = 8;
	acc->kind = LANG_ACC_RECORD;
	if (!t)
		return;
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);

		acc->kind = LANG_ACC_INT;
		acc->size = t->size <= 8 ? t->size : 8;
		acc->is_signed = (enc & BTF_INT_SIGNED) && !(enc & BTF_INT_BOOL);
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		acc->kind = LANG_ACC_INT;
		acc->size = t->size <= 8 ? t->size : 8;
		acc->is_signed = btf_kflag(t);
	} else if (btf_is_ptr(t)) {
		uint32_t pid = skip_mods(btf, t->type);
		const struct btf_type *pt = pid ? btf__type_by_id(btf, pid) : NULL;

		acc->kind = pt && btf_is_int(pt) && pt->size == 1 ? LANG_ACC_STR_PTR : LANG_ACC_PTR;
		acc->btf_id = pid;
	}
	if (acc->size != 1 && acc->size != 2 && acc->size != 4 && acc->size != 8)
		acc->kind = LANG_ACC_RECORD;
}

int rt_event_args(const struct btf *btf, const char *event, struct rt_event *ev)
{
	char tname[256];
	const struct btf_type *proto, *names;
	const struct btf_param *pp, *np = NULL;
	struct btf_dump *d;
	int id;

	memset(ev, 0, sizeof(*ev));
	if (snprintf(tname, sizeof(tname), RT_PREFIX "%s", event) >= (int)sizeof(tname))
		return -ENOENT;
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -ENOENT;
	proto = typedef_proto(btf, id);
	if (!proto || btf_vlen(proto) < 1)
		return -ENOENT;
	if (btf_vlen(proto) - 1 > RT_MAX_ARGS)
		return -E2BIG;
	ev->typedef_id = id;
	ev->nargs = btf_vlen(proto) - 1;
	pp = btf_params(proto);
	names = names_for(btf, event, proto);
	if (names)
		np = btf_params(names);
	for (unsigned i = 0; i < ev->nargs; i++) {
		struct rt_arg *a = &ev->args[i];
		const char *name = np ? btf__name_by_offset(btf, np[i + 1].name_off) : NULL;
		struct sbuf b = { a->ctype, sizeof(a->ctype), 0 };
		LIBBPF_OPTS(btf_dump_emit_type_decl_opts, eo, .field_name = "");

		if (name && *name)
			snprintf(a->name, sizeof(a->name), "%s", name);
		else
			snprintf(a->name, sizeof(a->name), "arg%u", i);
		/* names twice (a class's names clash): the later ones by position */
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(ev->args[j].name, a->name))
				snprintf(a->name, sizeof(a->name), "arg%u", i);
		a->ctype[0] = 0;
		/* a dumper per argument: its output goes to this argument's buffer */
		d = btf_dump__new(btf, sbuf_printf, &b, NULL);
		if (d) {
			btf_dump__emit_type_decl(d, pp[i + 1].type, &eo);
			btf_dump__free(d);
		}
		if (!a->ctype[0])
			snprintf(a->ctype, sizeof(a->ctype), "?");
		arg_access(btf, pp[i + 1].type, i, &a->acc);
		memcpy(a->acc.ctype, a->ctype, sizeof(a->acc.ctype));
	}
	return 0;
}

struct rt_priv {
	struct rt_event ev;
};

static void rt_free(void *p)
{
	free(p);
}

static int add_event(struct lang_probes *pr, const struct lang_attach *at,
		     struct lang_points *out, const struct btf *btf, const char *event)
{
	struct rt_priv *priv = calloc(1, sizeof(*priv));
	char name[512];
	struct lang_point *pt;
	int err;

	if (!priv)
		return -ENOMEM;
	err = rt_event_args(btf, event, &priv->ev);
	if (err) {
		free(priv);
		return probes_error(pr, at, err, "rawtracepoint:%s: %s", event,
				    err == -E2BIG ? "too many arguments" : "no such event in BTF");
	}
	snprintf(name, sizeof(name), "rawtracepoint:%s", event);
	pt = lang_points_add(out, at, name);
	if (!pt) {
		free(priv);
		return -ENOMEM;
	}
	pt->priv = priv;
	pt->func = strdup(event);
	if (!pt->func)
		return -ENOMEM;
	pt->nargs = priv->ev.nargs;
	if (!feature_probe(FEATURE_TP_BTF)) {
		pt->prog_type = BPF_PROG_TYPE_TRACING;
		pt->attach_type = BPF_TRACE_RAW_TP;
		pt->attach_btf_id = priv->ev.typedef_id;
		pt->btf_args = true;
	} else {
		pt->prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	}
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Calls fn for each btf_trace_ typedef whose event glob matches, in name
 * order (as tracefs lists tracepoints); the count or fn's error. */
static int each_event(const struct btf *btf, const char *glob,
		      int (*fn)(void *ctx, const char *event), void *ctx)
{
	uint32_t n = btf__type_cnt(btf);
	const char **names = NULL;
	size_t count = 0, cap = 0;
	int err = 0;

	for (uint32_t i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name;

		if (!btf_is_typedef(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || strncmp(name, RT_PREFIX, sizeof(RT_PREFIX) - 1) ||
		    !probes_glob(glob, name + sizeof(RT_PREFIX) - 1))
			continue;
		if (count == RT_MAX_MATCHES) {
			free(names);
			return -E2BIG;
		}
		if (count == cap) {
			const char **nn = realloc(names, (cap ? cap * 2 : 256) * sizeof(*nn));

			if (!nn) {
				free(names);
				return -ENOMEM;
			}
			names = nn;
			cap = cap ? cap * 2 : 256;
		}
		names[count++] = name + sizeof(RT_PREFIX) - 1;
	}
	if (count > 1)
		qsort(names, count, sizeof(*names), str_cmp);
	for (size_t i = 0; i < count && !err; i++)
		err = fn(ctx, names[i]);
	free(names);
	return err ? err : (int)count;
}

struct expand_ctx {
	struct lang_probes *pr;
	const struct lang_attach *at;
	struct lang_points *out;
	const struct btf *btf;
};

static int expand_one(void *p, const char *event)
{
	struct expand_ctx *c = p;

	return add_event(c->pr, c->at, c->out, c->btf, event);
}

static int rt_expand(struct lang_probes *pr, const struct lang_attach *at, struct lang_points *out)
{
	struct btf *btf;
	struct expand_ctx c = { pr, at, out, NULL };
	int n;

	if (at->target && strcmp(at->target, "vmlinux"))
		return probes_error(pr, at, -EOPNOTSUPP, "%s: events of module %s are not supported "
				    "(only the kernel's own: rawtracepoint:EVENT)", at->text, at->target);
	btf = probes_btf(pr);
	if (!btf) {
		int err = errno ? errno : ENOENT;

		return probes_error(pr, at, -err, "%s: the kernel's BTF cannot be read (%s): "
				    "rawtracepoint needs it to name the arguments; try tracepoint:...",
				    at->text, strerror(err));
	}
	c.btf = btf;
	if (!at->wildcard)
		return add_event(pr, at, out, btf, at->func);
	n = each_event(btf, at->func, expand_one, &c);
	if (n == -E2BIG)
		return probes_error(pr, at, n, "%s: more than %d events match", at->text,
				    RT_MAX_MATCHES);
	if (n == 0)
		return probes_error(pr, at, -ENOENT, "%s: matches no event of this kernel", at->text);
	return n < 0 ? n : 0;
}

static int rt_field(struct lang_probes *pr, const struct lang_point *pt, const char *field,
		    struct lang_field_access *acc)
{
	const struct rt_priv *priv = pt->priv;

	for (unsigned i = 0; priv && i < priv->ev.nargs; i++)
		if (!strcmp(priv->ev.args[i].name, field)) {
			*acc = priv->ev.args[i].acc;
			return 0;
		}
	return -ENOENT;
}

static int rt_argn(const struct lang_point *pt, unsigned n, struct lang_field_access *acc)
{
	if (n >= pt->nargs)
		return -ENOENT;
	acc->kind = LANG_ACC_INT;
	acc->base = LANG_BASE_CTX;
	acc->offset = 8 * n;
	acc->size = 8;
	snprintf(acc->ctype, sizeof(acc->ctype), "u64");
	return 0;
}

static int rt_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		     int prog_fd)
{
	if (pt->prog_type == BPF_PROG_TYPE_TRACING)
		return attach_tp_btf(s, prog_fd, pt->name);
	return attach_raw_tracepoint(s, prog_fd, pt->func);
}

struct list_ctx {
	const struct btf *btf;
	FILE *f;
	const char *pattern;
	bool verbose;
	int count;
};

static int list_one(void *p, const char *event)
{
	struct list_ctx *c = p;
	char name[512];
	struct rt_event ev;

	snprintf(name, sizeof(name), "rawtracepoint:%s", event);
	if (!probes_glob(c->pattern, name))
		return 0;
	fprintf(c->f, "%s\n", name);
	c->count++;
	if (c->verbose && !rt_event_args(c->btf, event, &ev))
		for (unsigned i = 0; i < ev.nargs; i++)
			fprintf(c->f, "    %s %s\n", ev.args[i].ctype, ev.args[i].name);
	return 0;
}

static int rt_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	struct btf *btf = probes_btf(pr);
	struct list_ctx c = { btf, f, pattern, verbose, 0 };
	int n;

	if (!btf)
		return -errno;
	n = each_event(btf, "*", list_one, &c);
	return n < 0 ? n : c.count;
}

const struct lang_provider_ops lang_rawtracepoint_ops = {
	.provider = LANG_P_RAWTRACEPOINT,
	.expand = rt_expand,
	.field = rt_field,
	.argn = rt_argn,
	.attach = rt_attach,
	.list = rt_list,
	.free_priv = rt_free,
};
