/* tracepoint:SUB:EVENT (globs over tracefs's events): a
 * BPF_PROG_TYPE_TRACEPOINT program on the event's perf event; args.FIELD
 * typed from events/SUB/EVENT/format, read from the raw record ctx
 * points at. */
#include <ctype.h>
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

static bool c_signed(const char *type)
{
	static const char *const s[] = {
		"int", "long", "short", "char", "signed", "s8", "s16", "s32", "s64", "__s8",
		"__s16", "__s32", "__s64", "pid_t", "ssize_t", "loff_t", "off_t", "long long",
		"int8_t", "int16_t", "int32_t", "int64_t", "time64_t", "ktime_t", "clockid_t",
		"timer_t", "key_serial_t", "mqd_t", "qid_t",
	};
	const char *t = type;

	if (!strncmp(t, "const ", 6))
		t += 6;
	if (!strncmp(t, "volatile ", 9))
		t += 9;
	if (!strncmp(t, "unsigned", 8) || strchr(t, '*'))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		if (!strcmp(t, s[i]))
			return true;
	return !strncmp(t, "signed ", 7) || !strncmp(t, "long ", 5) || !strncmp(t, "short ", 6);
}

/* The width of the common C integer types that syscall tracepoints put
 * in wider slots; 0 for others (the slot's size stands). */
static unsigned c_width(const char *type)
{
	static const struct {
		const char *name;
		unsigned width;
	} w[] = {
		{ "int", 4 }, { "signed int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "pid_t", 4 }, { "uid_t", 4 }, { "gid_t", 4 }, { "u32", 4 }, { "s32", 4 },
		{ "__u32", 4 }, { "__s32", 4 }, { "key_t", 4 }, { "mqd_t", 4 },
		{ "clockid_t", 4 }, { "timer_t", 4 }, { "qid_t", 4 }, { "key_serial_t", 4 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "umode_t", 2 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(w); i++)
		if (!strcmp(type, w[i].name))
			return w[i].width;
	return 0;
}

static bool is_char(const char *type)
{
	const char *t = type;

	if (!strncmp(t, "const ", 6))
		t += 6;
	return !strcmp(t, "char") || !strcmp(t, "signed char");
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

/* "field:const char * filename;	offset:24;	size:8;	signed:0;" */
static bool parse_field(const char *line, size_t len, bool user, struct tp_field *f)
{
	char decl[256], *end, *name;
	const char *p, *semi;
	unsigned long off, size, sgn;
	size_t dlen, nlen;

	memset(f, 0, sizeof(*f));
	if (memchr(line, '\0', len))
		return false;	/* not text */
	p = memmem(line, len, "field:", 6);
	if (!p)
		return false;
	p += 6;
	semi = memchr(p, ';', line + len - p);
	if (!semi || (size_t)(semi - p) >= sizeof(decl))
		return false;
	memcpy(decl, p, semi - p);
	decl[semi - p] = 0;
	{
		/* the numbers, each "key:N;" */
		char rest[256];
		size_t rl = (size_t)(line + len - semi);

		if (rl >= sizeof(rest))
			rl = sizeof(rest) - 1;
		memcpy(rest, semi, rl);
		rest[rl] = 0;
		p = strstr(rest, "offset:");
		if (!p)
			return false;
		errno = 0;
		off = strtoul(p + 7, &end, 10);
		if (errno || end == p + 7 || *end != ';')
			return false;
		p = strstr(rest, "size:");
		if (!p)
			return false;
		size = strtoul(p + 5, &end, 10);
		if (errno || end == p + 5 || *end != ';')
			return false;
		p = strstr(rest, "signed:");
		sgn = p ? strtoul(p + 7, NULL, 10) : 0;
	}
	if (!size || !range_ok(off, size, TP_MAX_RECORD))
		return false;
	trim(decl);
	/* dimensions after the name: "comm[16]" */
	dlen = strlen(decl);
	if (dlen && decl[dlen - 1] == ']') {
		char *open = strrchr(decl, '[');

		if (!open || strlen(open) >= sizeof(f->dims))
			return false;
		snprintf(f->dims, sizeof(f->dims), "%s", open);
		*open = 0;
		trim(decl);
		dlen = strlen(decl);
	}
	/* the name: the last identifier */
	nlen = 0;
	while (nlen < dlen && (isalnum((unsigned char)decl[dlen - 1 - nlen]) ||
			       decl[dlen - 1 - nlen] == '_'))
		nlen++;
	if (!nlen || nlen >= sizeof(f->name) || nlen == dlen)
		return false;
	name = decl + dlen - nlen;
	if (isdigit((unsigned char)name[0]))
		return false;
	snprintf(f->name, sizeof(f->name), "%s", name);
	*name = 0;
	trim(decl);
	if (!*decl || strlen(decl) >= sizeof(f->type))
		return false;
	snprintf(f->type, sizeof(f->type), "%s", decl);

	f->acc.base = LANG_BASE_CTX;
	f->acc.offset = off;
	f->acc.size = size;
	f->acc.is_signed = sgn || c_signed(f->type);
	if (snprintf(f->acc.ctype, sizeof(f->acc.ctype), "%s%s", f->type, f->dims) >=
	    (int)sizeof(f->acc.ctype))
		f->acc.ctype[sizeof(f->acc.ctype) - 2] = '~';	/* cut short: shown as such */
	if (!strncmp(f->type, "__data_loc", 10)) {
		/* a u32: offset (low 16) and length (high 16) of the data */
		f->acc.is_signed = false;
		f->acc.kind = strstr(f->type, "char") && size == 4 ? LANG_ACC_STR_DATALOC :
			      LANG_ACC_RECORD;
	} else if (f->dims[0]) {
		unsigned long n = strtoul(f->dims + 1, &end, 10);
		const char *base = f->type;

		if (is_char(base)) {
			f->acc.kind = LANG_ACC_STR_ARRAY;
		} else {
			/* the element size: the known integer types, else size / n */
			unsigned long esz = 0;

			if (*end == ']' && n && size % n == 0)
				esz = size / n;
			if (esz == 1 || esz == 2 || esz == 4 || esz == 8) {
				f->acc.kind = LANG_ACC_ARRAY;
				f->acc.elem_size = esz;
				f->acc.array_len = n;
			} else {
				f->acc.kind = LANG_ACC_RECORD;
			}
		}
	} else if (strchr(f->type, '*')) {
		char base[64];
		char *star;

		snprintf(base, sizeof(base), "%s", f->type);
		star = strchr(base, '*');
		*star = 0;
		trim(base);
		f->acc.kind = is_char(base) && !strchr(star + 1, '*') ? LANG_ACC_STR_PTR : LANG_ACC_PTR;
		f->acc.is_signed = false;
		f->acc.user = user;
		if (size != 8)
			f->acc.kind = LANG_ACC_RECORD;
	} else if (size == 1 || size == 2 || size == 4 || size == 8) {
		unsigned w = c_width(f->type);

		f->acc.kind = LANG_ACC_INT;
		/* "int dfd" in an 8-byte slot (syscall arguments): the value is
		 * the declared type's, in the slot's low bytes (little-endian),
		 * so AT_FDCWD reads as -100, not 4294967196 */
		if (w && w < size)
			f->acc.size = w;
		/* a bool is unsigned whatever "signed:" says */
		if (!strcmp(f->type, "bool") || !strcmp(f->type, "_Bool"))
			f->acc.is_signed = false;
	} else {
		f->acc.kind = LANG_ACC_RECORD;
	}
	return true;
}

struct tp_format *tp_format_parse(const char *text, size_t len, bool user)
{
	struct tp_format *fmt;
	const char *p = text, *end;

	if (len > TP_MAX_FORMAT)
		len = TP_MAX_FORMAT;
	end = text + len;
	fmt = calloc(1, sizeof(*fmt) + TP_MAX_FIELDS * sizeof(fmt->fields[0]));
	if (!fmt)
		return NULL;
	while (p < end && fmt->nfields < TP_MAX_FIELDS) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct tp_field *f = &fmt->fields[fmt->nfields];

		if (!strncmp(p, "print fmt:", 10 < l ? 10 : l) && l >= 10)
			break;
		if (parse_field(p, l, user, f) && !tp_format_field(fmt, f->name))
			fmt->nfields++;
		p += l + 1;
	}
	if (!fmt->nfields) {
		free(fmt);
		errno = EINVAL;
		return NULL;
	}
	return fmt;
}

const struct tp_field *tp_format_field(const struct tp_format *fmt, const char *name)
{
	for (size_t i = 0; i < fmt->nfields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

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
