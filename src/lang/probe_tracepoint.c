/* tracepoint:SUB:EVENT (globs over tracefs's events): a
 * BPF_PROG_TYPE_TRACEPOINT program on the event's perf event; args.FIELD
 * typed from events/SUB/EVENT/format, read from the raw record ctx
 * points at. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "common.h"
#include "lang/probe_int.h"
#include "trace/attach.h"

/* At most this many events in one glob (a kernel has a few thousand). */
#define TP_MAX_MATCHES 20000

static bool name_ok(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/');
}

/* events/SUB/EVENT/format, parsed; NULL with errno. */
static struct tp_format *read_format(const char *events, const char *sub, const char *event)
{
	char path[1024], *buf;
	struct tp_format *fmt;
	ssize_t n, got = 0;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s/%s/format", events, sub, event) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open_regular(path, NULL);
	if (fd < 0) {
		errno = fd == -EINVAL ? ENOENT : -fd;
		return NULL;
	}
	buf = malloc(TP_MAX_FORMAT);
	if (!buf) {
		close(fd);
		return NULL;
	}
	while (got < TP_MAX_FORMAT && (n = read(fd, buf + got, TP_MAX_FORMAT - got)) > 0)
		got += n;
	close(fd);
	fmt = tp_format_parse(buf, got, !strcmp(sub, "syscalls"));
	free(buf);
	return fmt;
}

static int dir_names(const char *path, char ***out)
{
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);

	if (n < 0)
		return -errno;
	*out = malloc((n ? n : 1) * sizeof(char *));
	if (!*out) {
		for (int i = 0; i < n; i++)
			free(ents[i]);
		free(ents);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		(*out)[i] = (char *)ents[i];	/* the name is at d_name: see names_at() */
	}
	free(ents);
	return n;
}

static const char *names_at(char **v, int i)
{
	return ((struct dirent *)v[i])->d_name;
}

static void names_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Calls fn for every events/SUB/EVENT that the globs match (in order);
 * stops at fn's nonzero return.  The count matched, or -errno. */
static int each_event(const char *events, const char *subglob, const char *evglob,
		      int (*fn)(void *ctx, const char *sub, const char *event), void *ctx)
{
	char **subs, **evs, path[1024];
	int nsub, nev, count = 0, err = 0;

	nsub = dir_names(events, &subs);
	if (nsub < 0)
		return nsub;
	for (int i = 0; i < nsub && !err; i++) {
		const char *sub = names_at(subs, i);

		if (!name_ok(sub) || !probes_glob(subglob, sub))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", events, sub) >= (int)sizeof(path))
			continue;
		nev = dir_names(path, &evs);
		if (nev < 0)
			continue;	/* a file: "enable", "header_page" */
		for (int j = 0; j < nev && !err; j++) {
			const char *ev = names_at(evs, j);
			char fpath[1200];

			if (!name_ok(ev) || !probes_glob(evglob, ev))
				continue;
			if (snprintf(fpath, sizeof(fpath), "%s/%s/format", path, ev) >=
			    (int)sizeof(fpath) || access(fpath, R_OK))
				continue;
			if (++count > TP_MAX_MATCHES)
				err = -E2BIG;
			else
				err = fn(ctx, sub, ev);
		}
		names_free(evs, nev);
	}
	names_free(subs, nsub);
	return err < 0 ? err : err > 0 ? 1 : count;
}

struct expand_ctx {
	struct lang_probes *pr;
	const struct lang_attach *at;
	struct lang_points *out;
	const char *events;
};

static int add_event(void *p, const char *sub, const char *event)
{
	struct expand_ctx *c = p;
	char name[512];
	struct lang_point *pt;

	snprintf(name, sizeof(name), "tracepoint:%s:%s", sub, event);
	pt = lang_points_add(c->out, c->at, name);
	if (!pt)
		return -ENOMEM;
	pt->target = strdup(sub);
	pt->func = strdup(event);
	if (!pt->target || !pt->func)
		return -ENOMEM;
	pt->prog_type = BPF_PROG_TYPE_TRACEPOINT;
	return 0;
}

static int tp_expand(struct lang_probes *pr, const struct lang_attach *at, struct lang_points *out)
{
	const char *events = probes_events_dir(pr);
	struct expand_ctx c = { pr, at, out, events };
	int n;

	if (!events)
		return probes_error(pr, at, -errno, "%s: tracefs cannot be opened: %s", at->text,
				    strerror(errno));
	if (!at->wildcard) {
		char path[1024];

		if (!name_ok(at->target) || !name_ok(at->func))
			return probes_error(pr, at, -EINVAL, "%s: not a tracepoint name", at->text);
		snprintf(path, sizeof(path), "%s/%s/%s/format", events, at->target, at->func);
		if (access(path, R_OK))
			return probes_error(pr, at, -ENOENT, "%s: no such tracepoint in this kernel "
					    "(stackscope -l 'tracepoint:%s:*' lists its category)",
					    at->text, at->target);
		return add_event(&c, at->target, at->func);
	}
	n = each_event(events, at->target, at->func, add_event, &c);
	if (n == -E2BIG)
		return probes_error(pr, at, n, "%s: more than %d tracepoints match", at->text,
				    TP_MAX_MATCHES);
	if (n < 0 && n != -ENOMEM)
		return probes_error(pr, at, n, "%s: %s", at->text, strerror(-n));
	if (n == 0)
		return probes_error(pr, at, -ENOENT, "%s: matches no tracepoint of this kernel",
				    at->text);
	return n < 0 ? n : 0;
}

static void fmt_free(void *p)
{
	free(p);
}

static int tp_field(struct lang_probes *pr, const struct lang_point *cpt, const char *field,
		    struct lang_field_access *acc)
{
	struct lang_point *pt = (struct lang_point *)cpt;
	const struct tp_field *f;

	if (!pt->priv) {
		const char *events = probes_events_dir(pr);

		pt->priv = events ? read_format(events, pt->target, pt->func) : NULL;
		if (!pt->priv)
			return probes_error(pr, pt->at, errno ? -errno : -EIO,
					    "%s: its format cannot be read: %s", pt->name,
					    strerror(errno ? errno : EIO));
	}
	f = tp_format_field(pt->priv, field);
	if (!f)
		return -ENOENT;
	*acc = f->acc;
	return 0;
}

static int tp_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		     int prog_fd)
{
	const char *events = probes_events_dir(pr);
	char path[1024], buf[32];
	ssize_t n;
	int fd, id;

	if (!events)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s/%s/id", events, pt->target, pt->func);
	fd = open_regular(path, NULL);
	if (fd < 0) {
		msg("%s: no id in tracefs: %s", pt->name, strerror(-fd));
		return fd;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	id = atoi(buf);
	if (id <= 0) {
		msg("%s: no id in tracefs", pt->name);
		return -EIO;
	}
	return attach_tracepoint_id(s, prog_fd, id, pt->name);
}

struct list_ctx {
	FILE *f;
	const char *pattern;
	const char *events;
	bool verbose;
	int count;
};

static int list_event(void *p, const char *sub, const char *event)
{
	struct list_ctx *c = p;
	char name[512];
	struct tp_format *fmt;

	snprintf(name, sizeof(name), "tracepoint:%s:%s", sub, event);
	if (!probes_glob(c->pattern, name))
		return 0;
	fprintf(c->f, "%s\n", name);
	c->count++;
	if (!c->verbose)
		return 0;
	fmt = read_format(c->events, sub, event);
	for (size_t i = 0; fmt && i < fmt->nfields; i++) {
		const struct tp_field *fd = &fmt->fields[i];

		/* as bpftrace: the common_* header is not listed */
		if (!strncmp(fd->name, "common_", 7))
			continue;
		fprintf(c->f, "    %s %s%s\n", fd->type, fd->name, fd->dims);
	}
	free(fmt);
	return 0;
}

static int tp_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	struct list_ctx c = { f, pattern, NULL, verbose, 0 };
	int n;

	c.events = probes_events_dir(pr);
	if (!c.events)
		return -errno;
	/* "tracepoint:SUB:EVENT": split the pattern when it is one */
	if (!strncmp(pattern, "tracepoint:", 11)) {
		char sub[256], *colon;

		snprintf(sub, sizeof(sub), "%s", pattern + 11);
		colon = strchr(sub, ':');
		if (colon) {
			*colon = 0;
			n = each_event(c.events, sub, colon + 1, list_event, &c);
			return n < 0 ? n : c.count;
		}
	}
	n = each_event(c.events, "*", "*", list_event, &c);
	return n < 0 ? n : c.count;
}

const struct lang_provider_ops lang_tracepoint_ops = {
	.provider = LANG_P_TRACEPOINT,
	.expand = tp_expand,
	.field = tp_field,
	.attach = tp_attach,
	.list = tp_list,
	.free_priv = fmt_free,
};

struct find_ctx {
	char *sub;
	size_t size;
};

static int found_event(void *p, const char *sub, const char *event)
{
	struct find_ctx *c = p;

	snprintf(c->sub, c->size, "%s", sub);
	return 1;	/* the first one */
}

int tp_find_event(struct lang_probes *pr, const char *sub, const char *event, char *out,
		  size_t size)
{
	const char *events = probes_events_dir(pr);
	struct find_ctx c = { out, size };
	int n;

	if (!events)
		return -errno;
	n = each_event(events, sub ? sub : "*", event, found_event, &c);
	return n < 0 ? n : n == 0 ? -ENOENT : 0;
}
