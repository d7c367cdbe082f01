/* usdt:PATH[:PROVIDER]:NAME (short form U:): the <sys/sdt.h> probes of a
 * binary or library, read from its .note.stapsdt notes (sym/usdt).
 * PATH is a path, or a library or program name found as uprobe finds it
 * (the -p process's maps first); PROVIDER and NAME are globs, PROVIDER
 * left out matches every provider.  Each note is one point (a probe
 * inlined in several places has several notes of one name): a uprobe
 * (BPF_PROG_TYPE_KPROBE on a uprobe perf event) on the note's nop, with
 * the note's semaphore, if any, given to the kernel as the uprobe's
 * reference counter, so the kernel adds 1 to it in every process the
 * probe is placed in and takes it back when the probe goes, even when
 * stackscope is killed.  arg0..argN are the note's operands
 * (LANG_ACC_USDT): codegen reads them from the pt_regs and user memory. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "lang/probe_int.h"
#include "sym/funcsel.h"
#include "sym/usdt.h"
#include "trace/attach.h"

/* The file at names: the launched command by its name, else as uprobe
 * finds it.  0 or -errno (said). */
static int usdt_path(struct lang_probes *pr, const struct lang_attach *at, const char *target,
		     char *path, size_t size)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	pid_t pid = o->npids ? o->pids[0] : 0;
	int err;

	if (o->cmd_path && !strchr(target, '/') && funcsel_lib_matches(o->cmd_path, target) &&
	    snprintf(path, size, "%s", o->cmd_path) < (int)size)
		return 0;
	err = uprobe_find_lib(target, pid, path, size);
	if (!err)
		return 0;
	if (!at) {
		msg("-l: %s: %s", target, strchr(target, '/') ? strerror(-err) :
		    "no such library or program");
		return -ENOENT;
	}
	return probes_error(pr, at, -ENOENT, "%s: %s: %s", at->text, target,
			    strchr(target, '/') ? strerror(-err) :
			    pid ? "no such library in the process's mappings" :
			    "no such library or program");
}

static void usdt_free(void *p)
{
	struct usdt_probe *u = p;

	if (u) {
		free(u->provider);
		free(u->name);
		free(u->args);
	}
	free(u);
}

/* A copy of p (strings too): NULL on ENOMEM. */
static struct usdt_probe *probe_dup(const struct usdt_probe *p)
{
	struct usdt_probe *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *p;
	c->provider = strdup(p->provider);
	c->name = strdup(p->name);
	c->args = strdup(p->args);
	if (!c->provider || !c->name || !c->args) {
		usdt_free(c);
		return NULL;
	}
	return c;
}

/* The points of path's notes matching at's provider and name, added to
 * out; *matched counts them.  0 or -ENOMEM. */
static int expand_file(const struct lang_attach *at, const char *path,
		       const struct usdt_notes *notes, struct lang_points *out, size_t *matched)
{
	const char *prov = at->ns ? at->ns : "*";
	char name[PATH_MAX + 2 * USDT_MAX_STR + 16];

	for (size_t i = 0; i < notes->n; i++) {
		const struct usdt_probe *p = &notes->v[i];
		struct lang_point *pt;

		if (!probes_glob(prov, p->provider) || !probes_glob(at->func, p->name))
			continue;
		(*matched)++;
		snprintf(name, sizeof(name), "usdt:%s:%s:%s", path, p->provider, p->name);
		pt = lang_points_add(out, at, name);
		if (!pt)
			return -ENOMEM;
		pt->target = strdup(path);
		pt->func = strdup(p->name);
		pt->priv = probe_dup(p);
		if (!pt->target || !pt->func || !pt->priv)
			return -ENOMEM;
		pt->prog_type = BPF_PROG_TYPE_KPROBE;
		pt->addr = p->pc;
		pt->offset = p->off;
	}
	return 0;
}

/* At most this many distinct files of a process's maps are read. */
#define MAX_MAPPED_FILES 4096

/* Calls fn for each distinct file mapped by pid whose path matches glob
 * (files that are no ELF, or have no notes, are passed over silently)
 * until fn returns nonzero: that value, 0, or -errno reading the maps. */
static int each_mapped_file(pid_t pid, const char *glob,
			    int (*fn)(void *ctx, const char *path, const struct usdt_notes *n),
			    void *ctx)
{
	char maps[64], line[PATH_MAX + 256];
	char **seen = NULL;
	size_t nseen = 0;
	int ret = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	seen = calloc(MAX_MAPPED_FILES, sizeof(*seen));
	if (!seen) {
		fclose(f);
		return -ENOMEM;
	}
	while (!ret && nseen < MAX_MAPPED_FILES && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		struct usdt_notes notes;
		bool dup = false;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		for (size_t i = 0; i < nseen && !dup; i++)
			dup = !strcmp(seen[i], path);
		if (dup || !probes_glob(glob, path))
			continue;
		seen[nseen] = strdup(path);
		if (!seen[nseen]) {
			ret = -ENOMEM;
			break;
		}
		nseen++;
		if (usdt_read(path, &notes))
			continue;
		if (notes.n)
			ret = fn(ctx, path, &notes);
		usdt_notes_free(&notes);
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	fclose(f);
	return ret;
}

struct expand_ctx {
	const struct lang_attach *at;
	struct lang_points *out;
	size_t matched;
};

static int expand_mapped(void *ctx, const char *path, const struct usdt_notes *n)
{
	struct expand_ctx *x = ctx;

	return expand_file(x->at, path, n, x->out, &x->matched);
}

static int usdt_expand(struct lang_probes *pr, const struct lang_attach *at,
		       struct lang_points *out)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	const char *prov = at->ns ? at->ns : "*";
	char path[PATH_MAX];
	struct usdt_notes notes;
	size_t matched = 0;
	int err;

	/* a glob over files: those the -p process maps */
	if (strpbrk(at->target, "*?[")) {
		struct expand_ctx x = { at, out, 0 };

		if (!o->npids)
			return probes_error(pr, at, -EINVAL, "%s: a glob over files (%s) needs -p "
					    "PID: the files that process maps", at->text, at->target);
		err = each_mapped_file(o->pids[0], at->target, expand_mapped, &x);
		if (err)
			return probes_error(pr, at, err, "%s: %s", at->text, err == -ENOMEM ?
					    "out of memory" : strerror(-err));
		if (!x.matched)
			return probes_error(pr, at, -ENOENT, "%s: no probe %s:%s in the files "
					    "process %d maps", at->text, prov, at->func,
					    (int)o->pids[0]);
		return 0;
	}
	err = usdt_path(pr, at, at->target, path, sizeof(path));
	if (err)
		return err;
	err = usdt_read(path, &notes);
	if (err)
		return probes_error(pr, at, err, "%s: %s: cannot read its notes: %s", at->text, path,
				    err == -ENOEXEC ? "not an ELF file" : strerror(-err));
	err = expand_file(at, path, &notes, out, &matched);
	if (!err && !matched)
		err = probes_error(pr, at, -ENOENT, notes.n ? "%s: no probe %s:%s in %s (%zu "
				   "probes there: -l 'usdt:%s:*' lists them)" :
				   "%s: no probe %s:%s in %s (the file has no USDT probes)",
				   at->text, prov, at->func, path, notes.n, at->target);
	else if (err == -ENOMEM)
		probes_error(pr, at, err, "%s: out of memory", at->text);
	usdt_notes_free(&notes);
	return err;
}

static const char *int_type(uint8_t size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? "int8_t" : "uint8_t";
	case 2: return is_signed ? "int16_t" : "uint16_t";
	case 4: return is_signed ? "int32_t" : "uint32_t";
	default: return is_signed ? "int64_t" : "uint64_t";
	}
}

static int usdt_argn(const struct lang_point *pt, unsigned n, struct lang_field_access *acc)
{
	const struct usdt_probe *p = pt->priv;

	/* -lv says why (p->why) */
	if (p && p->why && n < USDT_MAX_ARGS)
		return -EOPNOTSUPP;
	if (!p || n >= p->nargs)
		return -ENOENT;
	memset(acc, 0, sizeof(*acc));
	acc->kind = LANG_ACC_USDT;
	acc->base = LANG_BASE_REGS;
	acc->size = p->arg[n].size;
	acc->is_signed = p->arg[n].is_signed;
	acc->user = true;
	acc->usdt = p->arg[n];
	snprintf(acc->ctype, sizeof(acc->ctype), "%s", int_type(acc->size, acc->is_signed));
	return 0;
}

static int usdt_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		       int prog_fd)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	const struct usdt_probe *p = pt->priv;
	uint64_t ref = p ? p->sem_off : 0;
	int err = 0;

	if (!o->npids)
		return attach_uprobe_ref(s, prog_fd, pt->target, pt->offset, ref, -1, pt->index,
					 false, pt->name);
	for (int i = 0; i < o->npids && !err; i++)
		err = attach_uprobe_ref(s, prog_fd, pt->target, pt->offset, ref, o->pids[i],
					pt->index, false, pt->name);
	return err;
}

/* path's probes matching pattern (as "usdt:TARGET:PROVIDER:NAME", target
 * as written), each PROVIDER:NAME once; verbose adds "    TYPE argN" per
 * argument.  The count listed. */
static int list_file(FILE *f, const char *pattern, const char *target, const char *path,
		     const struct usdt_notes *notes, bool verbose)
{
	char name[PATH_MAX + 2 * USDT_MAX_STR + 16];
	int count = 0;

	for (size_t i = 0; i < notes->n; i++) {
		const struct usdt_probe *p = &notes->v[i];
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(notes->v[j].provider, p->provider) &&
			       !strcmp(notes->v[j].name, p->name);
		snprintf(name, sizeof(name), "usdt:%s:%s:%s", target, p->provider, p->name);
		if (seen || !probes_glob(pattern, name))
			continue;
		fprintf(f, "usdt:%s:%s:%s\n", path, p->provider, p->name);
		count++;
		if (!verbose)
			continue;
		if (p->why)
			fprintf(f, "    arguments not read (%s): %s\n", p->why, p->args);
		for (unsigned a = 0; a < p->nargs; a++)
			fprintf(f, "    %s arg%u\n", int_type(p->arg[a].size, p->arg[a].is_signed), a);
	}
	return count;
}

struct list_ctx {
	FILE *f;
	const char *pattern;
	bool verbose;
	int count;
};

static int list_mapped(void *ctx, const char *path, const struct usdt_notes *n)
{
	struct list_ctx *l = ctx;

	l->count += list_file(l->f, l->pattern, path, path, n, l->verbose);
	return 0;
}

/* "usdt:TARGET:GLOB": the probes of TARGET; with -p, "usdt:*..." those of
 * every file the process maps. */
static int usdt_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	static const char prefix[] = "usdt:";
	const struct lang_probes_opts *o = probes_opts(pr);
	char target[PATH_MAX], path[PATH_MAX];
	struct usdt_notes notes;
	const char *colon;
	int count, err;

	if (strncmp(pattern, prefix, strlen(prefix)))
		return 0;	/* no file named: nothing to list */
	colon = strchr(pattern + strlen(prefix), ':');
	if ((colon ? (size_t)(colon - pattern) : strlen(pattern)) - strlen(prefix) >= sizeof(target))
		return 0;
	snprintf(target, sizeof(target), "%.*s",
		 (int)((colon ? (size_t)(colon - pattern) : strlen(pattern)) - strlen(prefix)),
		 pattern + strlen(prefix));
	if (strpbrk(target, "*?[")) {
		struct list_ctx l = { f, pattern, verbose, 0 };

		if (!o->npids)
			return 0;
		err = each_mapped_file(o->pids[0], colon ? target : "*", list_mapped, &l);
		if (err) {
			msg("-l: process %d: %s", (int)o->pids[0], strerror(-err));
			return err;
		}
		return l.count;
	}
	if (!colon || !*target)
		return 0;
	err = usdt_path(pr, NULL, target, path, sizeof(path));
	if (err)
		return err;
	err = usdt_read(path, &notes);
	if (err) {
		msg("-l: %s: cannot read its notes: %s", path,
		    err == -ENOEXEC ? "not an ELF file" : strerror(-err));
		return err;
	}
	count = list_file(f, pattern, target, path, &notes, verbose);
	usdt_notes_free(&notes);
	return count;
}

const struct lang_provider_ops lang_usdt_ops = {
	.provider = LANG_P_USDT, .expand = usdt_expand, .argn = usdt_argn,
	.attach = usdt_attach, .list = usdt_list, .free_priv = usdt_free,
};
