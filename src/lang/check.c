/* The checker: what the language means without a kernel.
 *
 * - $x lives in the block that first assigns it (and the blocks inside);
 *   its type is set by that assignment and kept.
 * - @m has one key arity, key types and value kind over the whole
 *   program: every probe is walked again until no map learns anything
 *   (a probe may read a map that a later probe assigns), then once more
 *   to report.
 * - Builtins are checked against the table in builtins.c: arity, argument
 *   kinds, aggregations only as a map's value, unsafe ones only with
 *   opts->unsafe, retval/args/argN only on probes that have them.
 * - args.FIELD and other kernel types stay LANG_K_EXTERN unless
 *   opts->resolve_field says otherwise. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/btftype.h"
#include "lang/lexer.h"

#define MAX_PASSES 32

struct var {
	const char *name;
	struct lang_type type;
	int depth;		/* of the block that declared it */
	struct var *next;
};

struct checker {
	struct lang_prog *prog;
	const struct lang_check_opts *opts;
	bool report;		/* this pass records errors */
	bool changed;		/* a map learned something this pass */
	struct var *vars;	/* innermost first */
	int depth, loops;
	const struct lang_probe *probe;
	size_t errors;
};

/* What a call's value may be used for. */
enum ctx {
	CTX_VALUE,		/* an operand */
	CTX_STMT,		/* an expression statement: no value needed */
	CTX_MAPVAL,		/* @m = here: aggregations allowed */
};

static void err(struct checker *c, struct lang_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void err(struct checker *c, struct lang_pos pos, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!c->report)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	lang_errorf(c->prog, pos, "%s", buf);
	c->errors++;
}

/* ---- types ---------------------------------------------------------- */

static void type_str(const struct lang_type *t, char *buf, size_t size)
{
	size_t len;

	if (t->kind != LANG_K_TUPLE) {
		snprintf(buf, size, "%s", lang_kind_name(t->kind));
		return;
	}
	snprintf(buf, size, "(");
	for (size_t i = 0; i < t->nelems; i++) {
		len = strlen(buf);
		if (i && len + 2 < size)
			strcat(buf, ", ");
		len = strlen(buf);
		type_str(&t->elems[i], buf + len, size - len);
	}
	len = strlen(buf);
	if (len + 1 < size)
		strcat(buf, ")");
}

static bool int_like(enum lang_kind k)
{
	return k == LANG_K_INT || k == LANG_K_COUNT || k == LANG_K_SUM || k == LANG_K_MIN ||
	       k == LANG_K_MAX || k == LANG_K_AVG;
}

static bool unknown(enum lang_kind k)
{
	return k == LANG_K_NONE || k == LANG_K_EXTERN;
}

static bool str_like(enum lang_kind k)
{
	return k == LANG_K_STR;
}

static bool aggregation(enum lang_kind k)
{
	return k >= LANG_K_COUNT;
}

/* Merges `have` (a map's or variable's) with a newly assigned `t`:
 * unknowns take the known side.  false when they conflict. */
static bool unify(struct checker *c, struct lang_type *have, const struct lang_type *t)
{
	if (t->kind == LANG_K_NONE || (t->kind == LANG_K_EXTERN && have->kind != LANG_K_NONE))
		return true;
	if (unknown(have->kind)) {
		if (have->kind != t->kind)
			c->changed = true;
		*have = *t;
		return true;
	}
	if (have->kind != t->kind)
		return false;
	if (t->kind != LANG_K_TUPLE)
		return true;
	if (have->nelems != t->nelems)
		return false;
	for (size_t i = 0; i < t->nelems; i++)
		if (!unify(c, &have->elems[i], &t->elems[i]))
			return false;
	return true;
}

static struct lang_type simple(enum lang_kind k)
{
	return (struct lang_type){ .kind = k };
}

/* ---- scopes and maps ------------------------------------------------ */

static struct var *var_find(struct checker *c, const char *name)
{
	for (struct var *v = c->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static struct var *var_add(struct checker *c, const char *name, struct lang_type t)
{
	struct var *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->name = name;
	v->type = t;
	v->depth = c->depth;
	v->next = c->vars;
	c->vars = v;
	return v;
}

static void scope_enter(struct checker *c)
{
	c->depth++;
}

static void scope_leave(struct checker *c)
{
	c->depth--;
	while (c->vars && c->vars->depth > c->depth) {
		struct var *v = c->vars;

		c->vars = v->next;
		free(v);
	}
}

static struct lang_map *map_get(struct checker *c, const char *name, struct lang_pos pos)
{
	struct lang_map **m = &c->prog->maps;

	for (; *m; m = &(*m)->next)
		if (!strcmp((*m)->name, name))
			return *m;
	*m = lang_alloc(&c->prog->arena, sizeof(**m));
	if (!*m)
		return NULL;
	(*m)->name = name;
	(*m)->pos = pos;
	(*m)->nkeys = -1;
	return *m;
}

static void check_expr(struct checker *c, struct lang_node *n, enum ctx ctx);

/* @m[keys]: the map, its keys checked against every other use. */
static struct lang_map *check_map_ref(struct checker *c, struct lang_node *n)
{
	struct lang_map *m = map_get(c, n->name, n->pos);
	char a[64], b[64];

	for (size_t i = 0; i < n->n; i++) {
		check_expr(c, n->list[i], CTX_VALUE);
		if (n->list[i]->type.kind == LANG_K_VOID || aggregation(n->list[i]->type.kind))
			err(c, n->list[i]->pos, "a %s cannot be a map key",
			    lang_kind_name(n->list[i]->type.kind));
	}
	if (!m)
		return NULL;
	if (m->nkeys < 0) {
		m->keys = lang_alloc(&c->prog->arena, (n->n + 1) * sizeof(*m->keys));
		if (!m->keys)
			return m;
		m->nkeys = (long)n->n;
		for (size_t i = 0; i < n->n; i++)
			m->keys[i] = n->list[i]->type;
		c->changed = true;
		return m;
	}
	if ((size_t)m->nkeys != n->n) {
		err(c, n->pos, "%s is used with %zu key%s here and %ld elsewhere", n->name, n->n,
		    n->n == 1 ? "" : "s", m->nkeys);
		return m;
	}
	for (size_t i = 0; i < n->n; i++)
		if (!unify(c, &m->keys[i], &n->list[i]->type)) {
			type_str(&n->list[i]->type, a, sizeof(a));
			type_str(&m->keys[i], b, sizeof(b));
			err(c, n->list[i]->pos, "%s: key %zu is %s here and %s elsewhere", n->name,
			    i + 1, a, b);
		}
	return m;
}

/* A map's value read (or named) here; undefined after the last pass. */
static void map_value_use(struct checker *c, struct lang_node *n, struct lang_map *m)
{
	if (!m)
		return;
	n->type = m->value;
	if (m->value.kind == LANG_K_NONE)
		err(c, n->pos, "undefined map %s: it is never assigned", n->name);
}

/* count, sum, min, max, avg: one integer from per-CPU values */
static bool is_percpu_scalar(enum lang_kind k)
{
	return k == LANG_K_COUNT || k == LANG_K_SUM || k == LANG_K_MIN || k == LANG_K_MAX ||
	       k == LANG_K_AVG;
}

/* for ($kv : @m) over a map it cannot iterate (bpftrace's refusals):
 * true after saying why. */
static bool for_map_refused(struct checker *c, const struct lang_node *n, const struct lang_map *m)
{
	enum lang_kind k = m->value.kind;

	if (k == LANG_K_HIST || k == LANG_K_LHIST || k == LANG_K_STATS) {
		err(c, n->pos, "a for loop cannot iterate over %s: its values are %s() "
		    "aggregations, which only print", n->name,
		    k == LANG_K_HIST ? "hist" : k == LANG_K_LHIST ? "lhist" : "stats");
		return true;
	}
	if (m->nkeys == 0) {
		err(c, n->pos, "a for loop iterates over a map's keys: %s has none", n->name);
		return true;
	}
	return false;
}

/* ---- builtins ------------------------------------------------------- */

static bool probe_has(const struct lang_probe *p, unsigned flag)
{
	for (size_t i = 0; i < p->nattach; i++) {
		enum lang_provider pv = p->attach[i].provider;
		bool ok;

		switch (flag) {
		case LANG_BF_RET:
			ok = pv == LANG_P_KRETPROBE || pv == LANG_P_URETPROBE || pv == LANG_P_FEXIT ||
			     (pv == LANG_P_SYSCALL && !strcmp(p->attach[i].mode, "return"));
			break;
		case LANG_BF_SYSRET:
			ok = pv == LANG_P_SYSCALL && !strcmp(p->attach[i].mode, "return");
			break;
		case LANG_BF_ARGS:
			ok = pv == LANG_P_TRACEPOINT || pv == LANG_P_RAWTRACEPOINT ||
			     pv == LANG_P_FENTRY || pv == LANG_P_FEXIT || pv == LANG_P_UPROBE ||
			     pv == LANG_P_URETPROBE || pv == LANG_P_SYSCALL;
			break;
		case LANG_BF_ARGN:
			ok = pv == LANG_P_KPROBE || pv == LANG_P_UPROBE || pv == LANG_P_USDT ||
			     pv == LANG_P_RAWTRACEPOINT;
			break;
		default:
			ok = true;
		}
		if (!ok)
			return false;
	}
	return true;
}

static void check_builtin_var(struct checker *c, struct lang_node *n)
{
	const struct lang_builtin *bi = n->bi;
	static const struct {
		unsigned flag;
		const char *where;
	} needs[] = {
		{ LANG_BF_RET, "kretprobe, uretprobe, fexit and syscall:NAME:return probes" },
		{ LANG_BF_SYSRET, "syscall:NAME:return probes" },
		{ LANG_BF_ARGS, "tracepoint, rawtracepoint, fentry, fexit, uprobe and syscall probes" },
		{ LANG_BF_ARGN, "kprobe, uprobe, usdt and rawtracepoint probes" },
	};

	n->type = simple(bi->result);
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if ((bi->flags & needs[i].flag) && c->probe && !probe_has(c->probe, needs[i].flag))
			err(c, n->pos, "%s exists only in %s", n->name, needs[i].where);
}

/* Conversions in a printf format: the number, and whether conversion i
 * (bit i) wants an integer. */
static int format_convs(const char *s, size_t len, uint64_t *int_mask)
{
	int n = 0;

	*int_mask = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '%')
			continue;
		if (++i < len && s[i] == '%')
			continue;
		while (i < len && strchr("-+ #0123456789.hlzjt", s[i]))
			i++;
		if (i < len && strchr("diuxXoc", s[i]) && n < 64)
			*int_mask |= 1ULL << n;
		n++;
	}
	return n;
}

static void check_arg(struct checker *c, const struct lang_node *call, struct lang_node *a,
		      enum lang_arg kind, size_t i)
{
	enum lang_kind k;

	switch (kind) {
	case LANG_A_MAP:
	case LANG_A_MAPELEM:
		/* delete(@m, key): the map by name, its key the next argument */
		if (kind == LANG_A_MAPELEM && a->kind == LANG_N_MAP && !a->n && call->n == 2 &&
		    !strcmp(call->name, "delete")) {
			map_value_use(c, a, map_get(c, a->name, a->pos));
			return;
		}
		if (a->kind != LANG_N_MAP || (kind == LANG_A_MAP && a->n)) {
			err(c, a->pos, "%s() takes a map%s as argument %zu", call->name,
			    kind == LANG_A_MAP ? " (@name, without keys)" : "", i + 1);
			check_expr(c, a, CTX_VALUE);
			return;
		}
		if (kind == LANG_A_MAP) {
			struct lang_map *m = map_get(c, a->name, a->pos);
			map_value_use(c, a, m);
		} else {
			map_value_use(c, a, check_map_ref(c, a));
		}
		return;
	case LANG_A_STRLIT:
		if (a->kind != LANG_N_STR)
			err(c, a->pos, "%s() takes a string literal as argument %zu", call->name, i + 1);
		check_expr(c, a, CTX_VALUE);
		return;
	case LANG_A_INTLIT:
		if (a->kind != LANG_N_INT && a->kind != LANG_N_PARAM)
			err(c, a->pos, "%s() takes an integer literal as argument %zu", call->name,
			    i + 1);
		check_expr(c, a, CTX_VALUE);
		return;
	case LANG_A_STACKMODE:
		if (a->kind == LANG_N_IDENT) {
			bool fp = !strcmp(call->name, "ustack") && !strcmp(a->name, "fp");

			if (strcmp(a->name, "bpftrace") && strcmp(a->name, "perf") &&
			    strcmp(a->name, "raw") && !fp)
				err(c, a->pos, "unknown stack mode '%s' (bpftrace, perf or raw%s)", a->name,
				    !strcmp(call->name, "ustack") ? "; fp: frame pointers" : "");
			return;
		}
		check_arg(c, call, a, LANG_A_INTLIT, i);
		return;
	default:
		break;
	}
	/* print(@m) names the whole map, whatever its keys (as clear(@m)) */
	if (!strcmp(call->name, "print") && i == 0 && a->kind == LANG_N_MAP && !a->n) {
		check_arg(c, call, a, LANG_A_MAP, i);
		return;
	}
	/* print(@hist) is what a hist is for */
	check_expr(c, a, !strcmp(call->name, "print") && i == 0 ? CTX_STMT : CTX_VALUE);
	k = a->type.kind;
	if (unknown(k) || kind == LANG_A_ANY) {
		if (k == LANG_K_VOID)
			err(c, a->pos, "%s() cannot take a value of nothing (void)", call->name);
		return;
	}
	if ((kind == LANG_A_INT && !int_like(k)) || (kind == LANG_A_STR && !str_like(k)) ||
	    (kind == LANG_A_STRORINT && !int_like(k) && !str_like(k)))
		err(c, a->pos, "%s() takes %s as argument %zu, not %s", call->name,
		    kind == LANG_A_INT ? "an integer" : kind == LANG_A_STR ? "a string" :
		    "a string or an integer", i + 1, lang_kind_name(k));
}

static void check_call(struct checker *c, struct lang_node *n, enum ctx ctx)
{
	const struct lang_builtin *bi = n->bi;
	unsigned max;

	if (!bi) {
		err(c, n->pos, "unknown function '%s'", n->name);
		for (size_t i = 0; i < n->n; i++)
			check_expr(c, n->list[i], CTX_VALUE);
		return;
	}
	max = bi->max_args == 255 ? UINT32_MAX : bi->max_args;
	if (n->n < bi->min_args || n->n > max) {
		if (bi->min_args == bi->max_args)
			err(c, n->pos, "%s() takes %u argument%s, got %zu", n->name, bi->min_args,
			    bi->min_args == 1 ? "" : "s", n->n);
		else if (max == UINT32_MAX)
			err(c, n->pos, "%s() takes at least %u argument%s, got %zu", n->name,
			    bi->min_args, bi->min_args == 1 ? "" : "s", n->n);
		else
			err(c, n->pos, "%s() takes %u to %u arguments, got %zu", n->name,
			    bi->min_args, bi->max_args, n->n);
	}
	if ((bi->flags & LANG_BF_UNSAFE) && !(c->opts && c->opts->unsafe))
		err(c, n->pos, "%s() needs --unsafe", n->name);
	if ((bi->flags & LANG_BF_AGG) && ctx != CTX_MAPVAL)
		err(c, n->pos, "%s() must be assigned directly to a map: @name = %s(...)", n->name,
		    n->name);
	if ((bi->flags & LANG_BF_NOVALUE) && ctx == CTX_VALUE)
		err(c, n->pos, "%s() has no value to use", n->name);
	/* past the declared kinds (printf's rest) an argument is LANG_A_ANY */
	for (size_t i = 0; i < n->n; i++)
		check_arg(c, n, n->list[i], i < LANG_BI_MAXARGS ? bi->args[i] : LANG_A_ANY, i);
	if ((bi->flags & LANG_BF_FORMAT) && n->n && n->list[0]->kind == LANG_N_STR) {
		uint64_t ints;
		int convs = format_convs(n->list[0]->str, n->list[0]->len, &ints);

		if ((size_t)convs != n->n - 1)
			err(c, n->list[0]->pos, "%s(): the format has %d conversion%s for %zu argument%s",
			    n->name, convs, convs == 1 ? "" : "s", n->n - 1, n->n == 2 ? "" : "s");
		else
			for (size_t i = 1; i < n->n && i <= 64; i++) {
				enum lang_kind k = n->list[i]->type.kind;

				if ((ints >> (i - 1) & 1) && !unknown(k) && !int_like(k))
					err(c, n->list[i]->pos,
					    "%s(): conversion %zu wants an integer, not %s", n->name, i,
					    lang_kind_name(k));
			}
	}
	n->type = simple(bi->result);
}

/* ---- expressions ---------------------------------------------------- */

static void need_int(struct checker *c, struct lang_node *n, const char *what)
{
	enum lang_kind k = n->type.kind;

	if (!unknown(k) && !int_like(k))
		err(c, n->pos, "%s needs an integer, not %s", what, lang_kind_name(k));
}

static bool is_comparison(int op)
{
	return op == LANG_TOK_EQ || op == LANG_TOK_NE || op == LANG_TOK_LT ||
	       op == LANG_TOK_LE || op == LANG_TOK_GT || op == LANG_TOK_GE;
}

static void check_binary(struct checker *c, struct lang_node *n)
{
	enum lang_kind l, r;
	char what[32];

	check_expr(c, n->a, CTX_VALUE);
	check_expr(c, n->b, CTX_VALUE);
	l = n->a->type.kind;
	r = n->b->type.kind;
	n->type = simple(LANG_K_INT);
	if ((n->op == LANG_TOK_EQ || n->op == LANG_TOK_NE) && (str_like(l) || str_like(r))) {
		/* strings compare with strings */
		if (!unknown(l) && !unknown(r) && str_like(l) != str_like(r))
			err(c, n->pos, "cannot compare %s with %s", lang_kind_name(l),
			    lang_kind_name(r));
		return;
	}
	snprintf(what, sizeof(what), "'%s'", lang_tok_name(n->op));
	if (is_comparison(n->op) && !unknown(l) && !unknown(r) && !int_like(l) && l == r &&
	    n->op != LANG_TOK_EQ && n->op != LANG_TOK_NE) {
		err(c, n->pos, "%s cannot order %s values", what, lang_kind_name(l));
		return;
	}
	need_int(c, n->a, what);
	need_int(c, n->b, what);
}

/* vmlinux BTF, when the caller gives it */
static const struct btf *kernel_btf(struct checker *c)
{
	return c->opts && c->opts->kernel_btf ? c->opts->kernel_btf(c->opts->ctx) : NULL;
}

/* p->name on a pointer to a kernel struct (t->btf_id), or record.name on
 * one by value: the member read through BTF (n->deref). */
static void check_member(struct checker *c, struct lang_node *n, const struct lang_type *t)
{
	const struct btf *btf = kernel_btf(c);
	const char *why = NULL;
	int e;

	n->type = simple(LANG_K_EXTERN);
	e = lang_btf_member(btf, t->btf_id, n->name, &n->deref, &n->type, &why);
	if (e == -ENOENT)
		err(c, n->pos, "struct %s has no member '%s'", lang_btf_record_name(btf, t->btf_id),
		    n->name);
	else if (e)
		err(c, n->pos, "%s.%s cannot be read: %s", lang_btf_record_name(btf, t->btf_id),
		    n->name, why);
	n->deref.kernel = true;
	if (n->op == LANG_TOK_DOT && n->a->kind == LANG_N_FIELD)
		n->deref.off += n->a->deref.off;	/* record.f: from the record's base */
}

static void check_field(struct checker *c, struct lang_node *n)
{
	const struct lang_type *t;

	check_expr(c, n->a, CTX_VALUE);
	t = &n->a->type;
	if (t->btf_id && ((n->op == LANG_TOK_ARROW && t->kind == LANG_K_INT) ||
			  (n->op == LANG_TOK_DOT && t->kind == LANG_K_EXTERN &&
			   n->a->kind == LANG_N_FIELD && n->a->deref.record))) {
		check_member(c, n, t);
		return;
	}
	if (n->op == LANG_TOK_ARROW && t->kind == LANG_K_INT) {
		if (n->a->kind == LANG_N_CAST && (!strncmp(n->a->name, "struct ", 7) ||
						  !strncmp(n->a->name, "union ", 6)) &&
		    strchr(n->a->name, '*') == strrchr(n->a->name, '*'))
			return;	/* the cast said its type is unknown */
		err(c, n->pos, "'->%s' needs a pointer of known type: cast it, as in "
		    "((struct task_struct *)p)->%s (kernel types from BTF)", n->name, n->name);
		return;
	}
	if (t->kind == LANG_K_TUPLE && n->op == LANG_TOK_DOT) {
		if (n->name[0] < '0' || n->name[0] > '9' || n->num >= t->nelems) {
			err(c, n->pos, "a tuple of %zu has no element '%s'", t->nelems, n->name);
			return;
		}
		n->type = t->elems[n->num];
		return;
	}
	if (t->kind == LANG_K_EXTERN) {
		n->type = simple(LANG_K_EXTERN);
		/* args.FIELD: the kernel's type, when a resolver is given */
		if (n->a->kind == LANG_N_BUILTIN && !strcmp(n->a->name, "args") && c->opts &&
		    c->opts->resolve_field && c->probe && c->probe->nattach) {
			struct lang_type out = { 0 };
			int e = c->opts->resolve_field(c->opts->ctx, &c->probe->attach[0], n->name, &out);

			if (e == -ENOENT)
				err(c, n->pos, "%s has no argument '%s'", c->probe->attach[0].text ?
				    c->probe->attach[0].text : "this probe", n->name);
			else if (!e)
				n->type = out;
		}
		return;
	}
	if (!unknown(t->kind))
		err(c, n->pos, "a %s has no field '%s'", lang_kind_name(t->kind), n->name);
}

static void check_assignable(struct checker *c, struct lang_node *lhs, const struct lang_type *t,
			     int op);

/* The size of what a cast pointer points to ("uint16 *": 2, signed or
 * not), or 0 when the cast does not say. */
static uint32_t cast_pointee(const char *name, bool *is_signed)
{
	static const struct {
		const char *name;
		uint32_t size;
		bool is_signed;
	} ints[] = {
		{ "int8", 1, true }, { "uint8", 1, false }, { "int16", 2, true },
		{ "uint16", 2, false }, { "int32", 4, true }, { "uint32", 4, false },
		{ "int64", 8, true }, { "uint64", 8, false }, { "s8", 1, true }, { "u8", 1, false },
		{ "s16", 2, true }, { "u16", 2, false }, { "s32", 4, true }, { "u32", 4, false },
		{ "s64", 8, true }, { "u64", 8, false }, { "char", 1, true },
		{ "unsigned char", 1, false }, { "short", 2, true }, { "unsigned short", 2, false },
		{ "int", 4, true }, { "unsigned int", 4, false }, { "long", 8, true },
		{ "unsigned long", 8, false },
	};
	size_t len = strcspn(name, "*");

	while (len && name[len - 1] == ' ')
		len--;
	if (strchr(name, '*') != strrchr(name, '*'))
		return 8;	/* a pointer to a pointer */
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (strlen(ints[i].name) == len && !strncmp(ints[i].name, name, len)) {
			*is_signed = ints[i].is_signed;
			return ints[i].size;
		}
	return 0;
}

static void check_expr(struct checker *c, struct lang_node *n, enum ctx ctx)
{
	n->type = simple(LANG_K_NONE);
	switch (n->kind) {
	case LANG_N_INT:
		n->type = simple(LANG_K_INT);
		return;
	case LANG_N_STR:
		n->type = simple(LANG_K_STR);
		return;
	case LANG_N_VAR: {
		struct var *v = var_find(c, n->name);

		if (!v)
			err(c, n->pos, "undefined variable %s", n->name);
		else
			n->type = v->type;
		return;
	}
	case LANG_N_MAP:
		map_value_use(c, n, check_map_ref(c, n));
		if (ctx == CTX_VALUE && (n->type.kind == LANG_K_STATS || n->type.kind == LANG_K_HIST ||
					 n->type.kind == LANG_K_LHIST))
			err(c, n->pos, "the %s in %s can only be printed", lang_kind_name(n->type.kind),
			    n->name);
		return;
	case LANG_N_PARAM: {
		const char *s = "";

		if (c->opts && n->num <= (uint64_t)c->opts->nparams)
			s = c->opts->params[n->num - 1];
		n->type = simple(LANG_K_INT);
		if (*s) {
			char *end;

			strtoll(s, &end, 0);
			if (*end)
				n->type = simple(LANG_K_STR);
		}
		return;
	}
	case LANG_N_PARAMCOUNT:
		n->type = simple(LANG_K_INT);
		return;
	case LANG_N_BUILTIN:
		check_builtin_var(c, n);
		if (!strcmp(n->name, "curtask")) {
			/* a struct task_struct pointer: curtask->pid */
			n->type.btf_id = lang_btf_record(kernel_btf(c), "task_struct");
			if (n->type.btf_id)
				n->type.kind = LANG_K_INT;
		}
		return;
	case LANG_N_IDENT:
		err(c, n->pos, "unknown identifier '%s'", n->name);
		return;
	case LANG_N_CALL:
		check_call(c, n, ctx);
		return;
	case LANG_N_FIELD:
		check_field(c, n);
		return;
	case LANG_N_INDEX:
		check_expr(c, n->a, CTX_VALUE);
		check_expr(c, n->b, CTX_VALUE);
		need_int(c, n->b, "an index");
		if (!unknown(n->a->type.kind))
			err(c, n->pos, "a %s cannot be indexed", lang_kind_name(n->a->type.kind));
		n->type = simple(LANG_K_EXTERN);
		return;
	case LANG_N_UNARY:
		check_expr(c, n->a, CTX_VALUE);
		if (n->op == LANG_TOK_STAR && n->a->type.btf_id) {
			err(c, n->pos, "*p of a struct %s pointer is a record: read a member "
			    "(p->field)", lang_btf_record_name(kernel_btf(c), n->a->type.btf_id));
		} else if (n->op == LANG_TOK_STAR) {
			/* the pointee's size when a cast says it, else 8 bytes */
			n->deref.size = n->a->kind == LANG_N_CAST ? cast_pointee(n->a->name,
										 &n->deref.is_signed) : 8;
			if (!n->deref.size)
				n->deref.size = 8;
		}
		if (n->op != LANG_TOK_AMP) {
			char what[16];

			snprintf(what, sizeof(what), "unary '%s'", lang_tok_name(n->op));
			need_int(c, n->a, what);
		}
		n->type = simple(LANG_K_INT);
		return;
	case LANG_N_INCDEC:
		if (n->a->kind != LANG_N_VAR && n->a->kind != LANG_N_MAP) {
			err(c, n->pos, "'%s' needs a variable ($x) or a map (@m)", lang_tok_name(n->op));
			check_expr(c, n->a, CTX_VALUE);
		} else {
			struct lang_type t = simple(LANG_K_INT);
			check_assignable(c, n->a, &t, n->op);
		}
		n->type = simple(LANG_K_INT);
		return;
	case LANG_N_BINARY:
		check_binary(c, n);
		return;
	case LANG_N_TERNARY: {
		char a[64], b[64];

		check_expr(c, n->a, CTX_VALUE);
		need_int(c, n->a, "a ?: condition");
		check_expr(c, n->b, CTX_VALUE);
		check_expr(c, n->c, CTX_VALUE);
		n->type = n->b->type;
		if (!unify(c, &n->type, &n->c->type)) {
			type_str(&n->b->type, a, sizeof(a));
			type_str(&n->c->type, b, sizeof(b));
			err(c, n->pos, "the branches of ?: are %s and %s", a, b);
		}
		return;
	}
	case LANG_N_CAST:
		check_expr(c, n->a, CTX_VALUE);
		need_int(c, n->a, "a cast");
		n->type = simple(strchr(n->name, '*') || strchr(n->name, '[') ||
				 !strncmp(n->name, "struct", 6) || !strncmp(n->name, "union", 5) ?
				 LANG_K_EXTERN : LANG_K_INT);
		if (strchr(n->name, '*') && !strchr(n->name, '[')) {
			/* a pointer: an integer; to a kernel struct, typed from BTF */
			n->type = simple(LANG_K_INT);
			if ((!strncmp(n->name, "struct ", 7) || !strncmp(n->name, "union ", 6)) &&
			    strchr(n->name, '*') == strrchr(n->name, '*')) {
				char rec[128];
				size_t len = strcspn(n->name, "*");

				while (len && n->name[len - 1] == ' ')
					len--;
				snprintf(rec, sizeof(rec), "%.*s", (int)len, n->name);
				n->type.btf_id = lang_btf_record(kernel_btf(c), rec);
				if (!kernel_btf(c))
					n->type = simple(LANG_K_EXTERN);	/* the kernel's to say */
				else if (!n->type.btf_id)
					err(c, n->pos, "%s: no such type in the kernel's BTF", rec);
			}
		}
		return;
	case LANG_N_TUPLE:
		n->type.kind = LANG_K_TUPLE;
		n->type.nelems = n->n;
		n->type.elems = lang_alloc(&c->prog->arena, (n->n + 1) * sizeof(*n->type.elems));
		for (size_t i = 0; i < n->n; i++) {
			check_expr(c, n->list[i], CTX_VALUE);
			if (n->type.elems)
				n->type.elems[i] = n->list[i]->type;
			if (n->list[i]->type.kind == LANG_K_VOID ||
			    aggregation(n->list[i]->type.kind))
				err(c, n->list[i]->pos, "a %s cannot be in a tuple",
				    lang_kind_name(n->list[i]->type.kind));
		}
		if (!n->type.elems)
			n->type.nelems = 0;
		return;
	case LANG_N_RANGE:
		check_expr(c, n->a, CTX_VALUE);
		check_expr(c, n->b, CTX_VALUE);
		need_int(c, n->a, "a range");
		need_int(c, n->b, "a range");
		return;
	default:
		err(c, n->pos, "a statement where a value is expected");
		return;
	}
}

/* $x or @m[k] takes a value of type t through op (=, +=, ++). */
static void check_assignable(struct checker *c, struct lang_node *lhs, const struct lang_type *t,
			     int op)
{
	char a[64], b[64];
	bool plain = op == LANG_TOK_ASSIGN;

	if (lhs->kind == LANG_N_VAR) {
		struct var *v = var_find(c, lhs->name);

		if (!v && !plain) {
			err(c, lhs->pos, "undefined variable %s", lhs->name);
			return;
		}
		if (!v) {
			v = var_add(c, lhs->name, *t);
			if (!v)
				err(c, lhs->pos, "out of memory");
			lhs->type = *t;
			return;
		}
		lhs->type = v->type;
		if (!plain && !unknown(v->type.kind) && v->type.kind != LANG_K_INT) {
			err(c, lhs->pos, "'%s' needs an integer, %s holds %s", lang_tok_name(op),
			    lhs->name, lang_kind_name(v->type.kind));
			return;
		}
		if (!unify(c, &v->type, t)) {
			type_str(t, a, sizeof(a));
			type_str(&v->type, b, sizeof(b));
			err(c, lhs->pos, "type mismatch for %s: assigning %s, the variable holds %s",
			    lhs->name, a, b);
		}
		lhs->type = v->type;
		return;
	}
	{
		struct lang_map *m = check_map_ref(c, lhs);

		if (!m)
			return;
		if (!plain && !unknown(m->value.kind) && m->value.kind != LANG_K_INT) {
			err(c, lhs->pos, "'%s' needs an integer, %s holds %s", lang_tok_name(op),
			    lhs->name, lang_kind_name(m->value.kind));
			lhs->type = m->value;
			return;
		}
		if (!unify(c, &m->value, t)) {
			type_str(t, a, sizeof(a));
			type_str(&m->value, b, sizeof(b));
			err(c, lhs->pos, "type mismatch for %s: assigning %s, the map holds %s",
			    lhs->name, a, b);
		}
		lhs->type = m->value;
	}
}

/* ---- statements ----------------------------------------------------- */

static void check_stmt(struct checker *c, struct lang_node *n);

static void check_block(struct checker *c, struct lang_node *blk)
{
	if (!blk)
		return;
	scope_enter(c);
	for (size_t i = 0; i < blk->n; i++)
		check_stmt(c, blk->list[i]);
	scope_leave(c);
}

static void check_cond(struct checker *c, struct lang_node *e, const char *what)
{
	check_expr(c, e, CTX_VALUE);
	need_int(c, e, what);
}

static void check_stmt(struct checker *c, struct lang_node *n)
{
	switch (n->kind) {
	case LANG_N_ASSIGN: {
		bool map = n->a->kind == LANG_N_MAP;
		enum lang_kind k;

		check_expr(c, n->b, map && n->op == LANG_TOK_ASSIGN ? CTX_MAPVAL : CTX_VALUE);
		k = n->b->type.kind;
		if (k == LANG_K_VOID) {
			err(c, n->b->pos, "nothing (void) to assign");
			return;
		}
		if (!map && aggregation(k) && n->b->kind == LANG_N_CALL) {
			err(c, n->b->pos, "%s() must be assigned directly to a map: @name = %s(...)",
			    n->b->name, n->b->name);
			return;
		}
		if (n->op != LANG_TOK_ASSIGN)
			need_int(c, n->b, lang_tok_name(n->op));
		check_assignable(c, n->a, &n->b->type, n->op);
		return;
	}
	case LANG_N_EXPR:
		check_expr(c, n->a, CTX_STMT);
		return;
	case LANG_N_BLOCK:
		check_block(c, n);
		return;
	case LANG_N_IF:
		check_cond(c, n->a, "an if condition");
		check_block(c, n->b);
		if (n->c && n->c->kind == LANG_N_IF)
			check_stmt(c, n->c);
		else
			check_block(c, n->c);
		return;
	case LANG_N_WHILE:
		check_cond(c, n->a, "a while condition");
		c->loops++;
		check_block(c, n->b);
		c->loops--;
		return;
	case LANG_N_FOR: {
		struct lang_type t = simple(LANG_K_INT);

		if (n->b->kind == LANG_N_RANGE) {
			check_expr(c, n->b, CTX_VALUE);
		} else {
			struct lang_map *m = map_get(c, n->b->name, n->b->pos);

			map_value_use(c, n->b, m);
			if (m && for_map_refused(c, n->b, m)) {
				t = simple(LANG_K_NONE);
			} else if (m && m->nkeys >= 0) {
				/* $kv.0 the key (a tuple of keys if several), $kv.1 the value:
				 * count, sum, min, max and avg as the integer they print as
				 * (codegen combines the CPUs' values) */
				struct lang_type *e = lang_alloc(&c->prog->arena, 2 * sizeof(*e));

				t = simple(LANG_K_TUPLE);
				if (e) {
					t.elems = e;
					t.nelems = 2;
					if (m->nkeys == 1)
						e[0] = m->keys[0];
					else
						e[0] = (struct lang_type){ LANG_K_TUPLE, (size_t)m->nkeys,
									   m->keys };
					e[1] = m->value;
					if (is_percpu_scalar(m->value.kind))
						e[1] = simple(LANG_K_INT);
				}
			} else {
				t = simple(LANG_K_NONE);
			}
		}
		if (var_find(c, n->a->name))
			err(c, n->a->pos, "the loop variable %s already exists", n->a->name);
		scope_enter(c);
		var_add(c, n->a->name, t);
		n->a->type = t;
		c->loops++;
		check_block(c, n->c);
		c->loops--;
		scope_leave(c);
		return;
	}
	case LANG_N_UNROLL:
		check_expr(c, n->a, CTX_VALUE);
		if (n->a->kind == LANG_N_INT) {
			if (n->a->num < 1 || n->a->num > 100)
				err(c, n->a->pos, "unroll's count must be from 1 to 100");
		} else if (n->a->kind != LANG_N_PARAM) {
			err(c, n->a->pos, "unroll's count must be an integer literal");
		}
		check_block(c, n->b);
		return;
	case LANG_N_RETURN:
		if (n->a)
			check_expr(c, n->a, CTX_VALUE);
		return;
	case LANG_N_BREAK:
	case LANG_N_CONTINUE:
		if (!c->loops)
			err(c, n->pos, "%s outside a loop", n->kind == LANG_N_BREAK ? "break" : "continue");
		return;
	default:
		check_expr(c, n, CTX_STMT);
	}
}

static void check_pass(struct checker *c)
{
	for (const struct lang_probe *p = c->prog->probes; p; p = p->next) {
		c->probe = p;
		c->depth = 0;
		c->loops = 0;
		if (p->pred) {
			check_expr(c, p->pred, CTX_VALUE);
			need_int(c, p->pred, "a predicate");
		}
		check_block(c, p->body);
		scope_leave(c);		/* frees anything left, at depth -1 */
		c->depth = 0;
	}
	c->probe = NULL;
}

static void check_config(struct checker *c)
{
	static const char *const keys[] = {
		"max_map_keys", "max_strlen", "max_bpf_progs", "max_probes", "max_type_res_iterations",
		"perf_rb_pages", "log_size", "stack_mode", "str_trunc_trailer", "print_maps_on_exit",
		"on_stack_limit", "missing_probes", "cache_user_symbols", "cpp_demangle",
		"lazy_symbolication", "license", "unstable_map_decl", "symbol_source",
		"show_debug_info", "max_cat_bytes", "max_ast_nodes",
	};

	for (const struct lang_config *cf = c->prog->config; cf; cf = cf->next) {
		bool known = false;

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			known |= !strcmp(cf->key, keys[i]);
		if (!known)
			err(c, cf->pos, "unknown config key '%s'", cf->key);
	}
}

int lang_check(struct lang_prog *prog, const struct lang_check_opts *opts)
{
	struct checker c = { .prog = prog, .opts = opts };

	if (!prog->parsed || prog->nerrors)
		return -EINVAL;
	prog->maps = NULL;
	for (int pass = 0; pass < MAX_PASSES; pass++) {
		c.changed = false;
		check_pass(&c);
		if (!c.changed)
			break;
	}
	c.report = true;
	check_config(&c);
	check_pass(&c);
	/* errors the resolve_field hook recorded (a probe that does not exist) count too */
	return c.errors || prog->nerrors || prog->arena.failed ? -EINVAL : 0;
}
