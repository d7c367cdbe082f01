/* The probe providers' table, a run's shared state (tracefs, vmlinux BTF),
 * the checker's field resolver and `stackscope -l`.  The providers
 * themselves are in probe_*.c, one per probe type. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "common.h"
#include "lang/probe_int.h"
#include "lang/provider.h"
#include "syscall/table.h"
#include "trace/tracefs.h"

struct lang_probes {
	struct lang_probes_opts o;
	struct tracefs *tracefs;
	char *events_dir;
	struct btf *btf;
	int btf_err;			/* the first load's error: not retried */
	bool tracefs_failed;
	/* every expansion made, by attach point, freed at the end: asked
	 * again (the checker's passes, each field), the same answer */
	struct expansion *all;
	size_t nall;
	struct field_memo *memo;
	struct sc_table *syscalls;	/* probes_syscalls() */
};

struct expansion {
	const struct lang_attach *at;
	struct lang_points ps;
	int err;
};

/* resolve_field's answers, so that an error is said once */
struct field_memo {
	const struct lang_attach *at;
	char *field;
	int err;
	struct lang_type type;
	struct field_memo *next;
};

/* ---- BEGIN and END -------------------------------------------------- */

/* Run once with BPF_PROG_TEST_RUN by the runtime, never attached: a
 * raw_tracepoint program (test_run gives it an empty args array). */
static int special_expand(struct lang_probes *pr, const struct lang_attach *at,
			  struct lang_points *out)
{
	struct lang_point *pt = lang_points_add(out, at, lang_provider_name(at->provider));

	if (!pt)
		return -ENOMEM;
	pt->prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	return 0;
}

static int special_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
			  int prog_fd)
{
	return 0;
}

static const struct lang_provider_ops begin_ops = {
	.provider = LANG_P_BEGIN, .expand = special_expand, .attach = special_attach,
};
static const struct lang_provider_ops end_ops = {
	.provider = LANG_P_END, .expand = special_expand, .attach = special_attach,
};

/* ---- the table ------------------------------------------------------ */

const struct lang_provider_ops *lang_provider_get(enum lang_provider p)
{
	switch (p) {
	case LANG_P_BEGIN: return &begin_ops;
	case LANG_P_END: return &end_ops;
	case LANG_P_TRACEPOINT: return &lang_tracepoint_ops;
	case LANG_P_RAWTRACEPOINT: return &lang_rawtracepoint_ops;
	case LANG_P_UPROBE: return &lang_uprobe_ops;
	case LANG_P_URETPROBE: return &lang_uretprobe_ops;
	case LANG_P_PROFILE: return &lang_profile_ops;
	case LANG_P_INTERVAL: return &lang_interval_ops;
	case LANG_P_SOFTWARE: return &lang_software_ops;
	case LANG_P_HARDWARE: return &lang_hardware_ops;
	case LANG_P_KPROBE: return &lang_kprobe_ops;
	case LANG_P_KRETPROBE: return &lang_kretprobe_ops;
	case LANG_P_FENTRY: return &lang_fentry_ops;
	case LANG_P_FEXIT: return &lang_fexit_ops;
	case LANG_P_WATCHPOINT: return &lang_watchpoint_ops;
	case LANG_P_USDT: return &lang_usdt_ops;
	case LANG_P_SYSCALL: return &lang_syscall_ops;
	}
	return &begin_ops;
}

/* ---- shared state --------------------------------------------------- */

struct lang_probes *lang_probes_new(const struct lang_probes_opts *o)
{
	struct lang_probes *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return NULL;
	if (o)
		pr->o = *o;
	return pr;
}

static void points_free(struct lang_points *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct lang_point *pt = ps->v[i];
		const struct lang_provider_ops *ops = lang_provider_get(pt->provider);

		if (pt->priv && ops->free_priv)
			ops->free_priv(pt->priv);
		free(pt->name);
		free(pt->target);
		free(pt->func);
		free(pt);
	}
	free(ps->v);
	ps->v = NULL;
	ps->n = ps->cap = 0;
}

void lang_probes_free(struct lang_probes *pr)
{
	if (!pr)
		return;
	for (size_t i = 0; i < pr->nall; i++)
		points_free(&pr->all[i].ps);
	free(pr->all);
	while (pr->memo) {
		struct field_memo *m = pr->memo;

		pr->memo = m->next;
		free(m->field);
		free(m);
	}
	btf__free(pr->btf);
	sc_table_free(pr->syscalls);
	free(pr->events_dir);
	tracefs_close(pr->tracefs);
	free(pr);
}

const struct lang_probes_opts *probes_opts(const struct lang_probes *pr)
{
	return &pr->o;
}

const char *probes_events_dir(struct lang_probes *pr)
{
	if (pr->o.events_dir)
		return pr->o.events_dir;
	if (pr->events_dir)
		return pr->events_dir;
	if (pr->tracefs_failed) {
		errno = ENOENT;
		return NULL;
	}
	pr->tracefs = tracefs_open();
	if (!pr->tracefs) {
		pr->tracefs_failed = true;
		return NULL;
	}
	pr->events_dir = strdup(tracefs_events(pr->tracefs));
	if (!pr->events_dir)
		errno = ENOMEM;
	return pr->events_dir;
}

struct btf *probes_btf(struct lang_probes *pr)
{
	if (pr->btf || pr->btf_err) {
		errno = pr->btf_err;
		return pr->btf;
	}
	pr->btf = pr->o.btf_path ? btf__parse(pr->o.btf_path, NULL) : btf__load_vmlinux_btf();
	if (!pr->btf)
		pr->btf_err = errno ? errno : ENOENT;
	errno = pr->btf_err;
	return pr->btf;
}

struct sc_table *probes_syscalls(struct lang_probes *pr)
{
	const char *events;
	char dir[1024];

	if (pr->syscalls)
		return pr->syscalls;
	events = probes_events_dir(pr);
	if (!events)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/syscalls", events);
	pr->syscalls = sc_table_load_dir(dir);
	if (pr->syscalls && !sc_table_has_formats(pr->syscalls)) {
		msg("syscall probes: tracefs has no syscall events (CONFIG_FTRACE_SYSCALLS off?)");
		sc_table_free(pr->syscalls);
		pr->syscalls = NULL;
		errno = ENOENT;
	}
	return pr->syscalls;
}

bool probes_glob(const char *glob, const char *name)
{
	return fnmatch(glob, name, 0) == 0;
}

int probes_error(struct lang_probes *pr, const struct lang_attach *at, int err,
		 const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (pr->o.prog && at && at->pos.line)
		lang_errorf(pr->o.prog, at->pos, "%s", buf);
	else
		msg("%s", buf);
	return err;
}

struct lang_point *lang_points_add(struct lang_points *out, const struct lang_attach *at,
				   const char *name)
{
	struct lang_point *pt;

	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		struct lang_point **v = realloc(out->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		out->v = v;
		out->cap = cap;
	}
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	pt->name = strdup(name);
	if (!pt->name) {
		free(pt);
		return NULL;
	}
	pt->at = at;
	pt->provider = at ? at->provider : LANG_P_BEGIN;
	pt->index = out->n;
	out->v[out->n++] = pt;
	return pt;
}

/* ---- the API -------------------------------------------------------- */

int lang_probes_expand(struct lang_probes *pr, const struct lang_attach *at,
		       struct lang_point ***pts, size_t *n)
{
	const struct lang_provider_ops *ops = lang_provider_get(at->provider);
	struct lang_points ps = { 0 };
	struct expansion *all;
	int err;

	*pts = NULL;
	*n = 0;
	for (size_t i = 0; i < pr->nall; i++)
		if (pr->all[i].at == at) {
			*pts = pr->all[i].ps.v;
			*n = pr->all[i].ps.n;
			return pr->all[i].err;
		}
	if (!ops->expand)
		err = probes_error(pr, at, -EOPNOTSUPP, "%s: %s probes are not supported",
				   at->text, lang_provider_name(at->provider));
	else
		err = ops->expand(pr, at, &ps);
	if (!err && !ps.n)
		err = probes_error(pr, at, -ENOENT, "%s: matches no probe", at->text);
	if (err) {
		points_free(&ps);
		if (err == -ENOMEM)
			probes_error(pr, at, err, "%s: out of memory", at->text);
	}
	all = realloc(pr->all, (pr->nall + 1) * sizeof(*all));
	if (!all) {
		points_free(&ps);
		return -ENOMEM;
	}
	pr->all = all;
	pr->all[pr->nall++] = (struct expansion){ at, ps, err };
	if (err)
		return err;
	*pts = ps.v;
	*n = ps.n;
	return 0;
}

int lang_probes_field(struct lang_probes *pr, const struct lang_point *pt, const char *field,
		      struct lang_field_access *acc)
{
	const struct lang_provider_ops *ops = lang_provider_get(pt->provider);

	memset(acc, 0, sizeof(*acc));
	return ops->field ? ops->field(pr, pt, field, acc) : -ENOENT;
}

int lang_probes_argn(struct lang_probes *pr, const struct lang_point *pt, unsigned n,
		     struct lang_field_access *acc)
{
	const struct lang_provider_ops *ops = lang_provider_get(pt->provider);

	memset(acc, 0, sizeof(*acc));
	return ops->argn ? ops->argn(pt, n, acc) : -ENOENT;
}

int lang_probes_retval(struct lang_probes *pr, const struct lang_point *pt,
		       struct lang_field_access *acc)
{
	const struct lang_provider_ops *ops = lang_provider_get(pt->provider);

	memset(acc, 0, sizeof(*acc));
	return ops->retval ? ops->retval(pt, acc) : -ENOENT;
}

int lang_probes_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		       int prog_fd)
{
	const struct lang_provider_ops *ops = lang_provider_get(pt->provider);

	if (!ops->attach) {
		msg("%s: %s probes cannot be attached", pt->name, lang_provider_name(pt->provider));
		return -EOPNOTSUPP;
	}
	return ops->attach(s, pr, pt, prog_fd);
}

struct lang_type lang_access_type(const struct lang_field_access *acc)
{
	struct lang_type t = { .kind = LANG_K_EXTERN };

	switch (acc->kind) {
	case LANG_ACC_INT: case LANG_ACC_PTR: case LANG_ACC_STR_PTR: case LANG_ACC_USDT:
		t.kind = LANG_K_INT;
		if (acc->kind == LANG_ACC_PTR && !acc->user)
			t.btf_id = acc->btf_id;	/* a kernel pointer: p->field */
		break;
	case LANG_ACC_STR_ARRAY: case LANG_ACC_STR_DATALOC: case LANG_ACC_USTR:
		t.kind = LANG_K_STR;
		break;
	case LANG_ACC_ARRAY: case LANG_ACC_RECORD:
		break;
	}
	return t;
}

static int resolve(struct lang_probes *pr, const struct lang_attach *at, const char *field,
		   struct lang_type *out)
{
	struct lang_field_access acc;
	struct lang_point **pts;
	size_t n;
	int err;

	err = lang_probes_expand(pr, at, &pts, &n);
	if (err)
		return err == -ENOENT ? -EINVAL : err;	/* said: not "no argument" */
	for (size_t i = 0; i < n; i++) {
		struct lang_type t;

		err = lang_probes_field(pr, pts[i], field, &acc);
		if (err == -ENOENT && n > 1 && at->wildcard) {
			/* the first point without it names itself */
			probes_error(pr, at, -ENOENT, "%s has no argument '%s' (%s matches it)",
				     pts[i]->name, field, at->text);
			return -EINVAL;
		}
		if (err)
			return err;
		t = lang_access_type(&acc);
		if (!i)
			*out = t;
		else if (t.kind != out->kind)
			*out = (struct lang_type){ .kind = LANG_K_EXTERN };
	}
	return 0;
}

void *lang_probes_kernel_btf(void *ctx)
{
	return probes_btf(ctx);
}

int lang_probes_resolve_field(void *ctx, const struct lang_attach *at, const char *field,
			      struct lang_type *out)
{
	struct lang_probes *pr = ctx;
	struct field_memo *m;

	for (m = pr->memo; m; m = m->next)
		if (m->at == at && !strcmp(m->field, field)) {
			*out = m->type;
			/* -ENOENT is the checker's to say, on every pass it reports */
			return m->err;
		}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->field = strdup(field))) {
		free(m);
		return -ENOMEM;
	}
	m->at = at;
	m->err = resolve(pr, at, field, &m->type);
	m->next = pr->memo;
	pr->memo = m;
	*out = m->type;
	return m->err;
}

/* ---- listing -------------------------------------------------------- */

static const struct {
	const char *name, *alias;
	enum lang_provider p;
} list_order[] = {
	{ "tracepoint", "t", LANG_P_TRACEPOINT },
	{ "rawtracepoint", "rt", LANG_P_RAWTRACEPOINT },
	{ "software", "s", LANG_P_SOFTWARE },
	{ "hardware", "h", LANG_P_HARDWARE },
	{ "kprobe", "k", LANG_P_KPROBE },
	{ "kretprobe", "kr", LANG_P_KRETPROBE },
	{ "fentry", "f", LANG_P_FENTRY },
	{ "kfunc", NULL, LANG_P_FENTRY },
	{ "fexit", "fr", LANG_P_FEXIT },
	{ "kretfunc", NULL, LANG_P_FEXIT },
	{ "uprobe", "u", LANG_P_UPROBE },
	{ "uretprobe", "ur", LANG_P_URETPROBE },
	{ "usdt", "U", LANG_P_USDT },
	{ "profile", "p", LANG_P_PROFILE },
	{ "interval", "i", LANG_P_INTERVAL },
	{ "watchpoint", "w", LANG_P_WATCHPOINT },
	{ "syscall", NULL, LANG_P_SYSCALL },
};

/* The pattern a provider's lister matches full names against: an alias
 * spelled out ("t:sched:*" -> "tracepoint:sched:*"), "sched_sw*" ->
 * "*:sched_sw*" (any provider).  -ENOENT when it names no provider (said). */
int probes_list_pattern(const char *pattern, char *out, size_t size, int *provider)
{
	const char *colon = pattern ? strchr(pattern, ':') : NULL;

	*provider = -1;
	if (!pattern || !*pattern) {
		snprintf(out, size, "*");
		return 0;
	}
	if (!colon) {
		if (snprintf(out, size, "*:%s", pattern) >= (int)size)
			return -ENAMETOOLONG;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(list_order); i++) {
		size_t len = (size_t)(colon - pattern);

		if ((strlen(list_order[i].name) == len && !strncmp(pattern, list_order[i].name, len)) ||
		    (list_order[i].alias && strlen(list_order[i].alias) == len &&
		     !strncmp(pattern, list_order[i].alias, len))) {
			*provider = list_order[i].p;
			if (snprintf(out, size, "%s%s", lang_provider_name(list_order[i].p), colon) >=
			    (int)size)
				return -ENAMETOOLONG;
			return 0;
		}
	}
	/* a glob over provider names: tracepoint and rawtracepoint by "*point:..." */
	if (strpbrk(pattern, "*?[") && (size_t)(colon - pattern) < 64) {
		snprintf(out, size, "%s", pattern);
		return 0;
	}
	msg("-l %s: unknown probe type '%.*s'", pattern, (int)(colon - pattern), pattern);
	return -ENOENT;
}

int lang_list_probes(FILE *f, const char *pattern, bool verbose, const struct lang_probes_opts *o)
{
	struct lang_probes *pr = lang_probes_new(o);
	char pat[1024];
	int provider, err, total = 0;

	if (!pr)
		return -ENOMEM;
	err = probes_list_pattern(pattern, pat, sizeof(pat), &provider);
	if (err) {
		if (err == -ENAMETOOLONG)
			msg("-l: the pattern is too long");
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(list_order); i++) {
		const struct lang_provider_ops *ops = lang_provider_get(list_order[i].p);
		char prefix[32];
		int n;

		if (!ops->list || (i && list_order[i - 1].p == list_order[i].p))
			continue;
		if (provider >= 0 && (int)list_order[i].p != provider)
			continue;
		/* a pattern for another provider skips this one at once */
		snprintf(prefix, sizeof(prefix), "%s:", lang_provider_name(list_order[i].p));
		if (provider < 0 && !strchr("*?[", pat[0]) && strncmp(pat, prefix, strlen(prefix)))
			continue;
		n = ops->list(pr, f, pat, verbose);
		if (n < 0 && provider >= 0) {
			err = n;
			goto out;
		}
		if (n > 0)
			total += n;
	}
	err = total;
out:
	lang_probes_free(pr);
	return err;
}
