#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "syscall/decode_int.h"
#include "syscall/table.h"
#include "trace/tracefs.h"
#include "syscall/names_x86_64.h"

/* About 57 KB: every number's name and decoder; the argument
 * descriptions (192 bytes a syscall with a format, owned here) are
 * allocated by read_format(). */
struct sc_table {
	struct sc_info info[SC_NR_MAX];
	char unnamed[SC_NR_MAX][16];	/* "syscall_NNN" */
	bool tried[SC_NR_MAX];		/* its format was read, or found missing */
	int dirfd;			/* events/syscalls, or -1: no formats */
	int formats_read;
};

/* The kernel's event names that differ from the syscall's (strace's) name. */
static const struct {
	const char *event, *name;
} renamed[] = {
	{ "newstat", "stat" },	   { "newlstat", "lstat" },	{ "newfstat", "fstat" },
	{ "newuname", "uname" },   { "sendfile64", "sendfile" }, { "umount", "umount2" },
};

static const char *canonical(const char *event)
{
	for (size_t i = 0; i < ARRAY_SIZE(renamed); i++)
		if (!strcmp(event, renamed[i].event))
			return renamed[i].name;
	return event;
}

const char *sc_event_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(renamed); i++)
		if (!strcmp(name, renamed[i].name))
			return renamed[i].event;
	return name;
}

int sc_table_lookup(const struct sc_table *t, const char *name)
{
	name = canonical(name);
	for (int nr = 0; nr < SC_NR_MAX; nr++)
		if (t->info[nr].name && !strcmp(t->info[nr].name, name))
			return nr;
	return -1;
}

/* "\tfield:const char * filename;\toffset:24;..." -> type, name */
static bool parse_field(const char *line, struct sc_argdesc *a)
{
	const char *p = strstr(line, "field:"), *end, *name;
	size_t tlen;

	if (!p)
		return false;
	p += 6;
	end = strchr(p, ';');
	if (!end)
		return false;
	name = end;
	while (name > p && name[-1] != ' ' && name[-1] != '*')
		name--;
	if (name == p || (size_t)(end - name) >= sizeof(a->name))
		return false;
	tlen = name - p;
	while (tlen && p[tlen - 1] == ' ')
		tlen--;
	if (tlen >= sizeof(a->type))
		return false;
	memcpy(a->name, name, end - name);
	a->name[end - name] = 0;
	memcpy(a->type, p, tlen);
	a->type[tlen] = 0;
	return true;
}

/* Reads sys_enter_EVENT/format into si: its arguments, after the common
 * fields and __syscall_nr.  A format is well under a page; one longer
 * than FORMAT_MAX is read up to there. */
#define FORMAT_MAX 8192
static void read_format(struct sc_table *t, struct sc_info *si)
{
	char path[300], buf[FORMAT_MAX];
	struct sc_argdesc a, args[SC_ARGS];
	struct sc_argdesc *copy;
	size_t len = 0;
	ssize_t got;
	int fd, n = 0;

	snprintf(path, sizeof(path), "sys_enter_%s/format", sc_event_name(si->name));
	fd = openat(t->dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	while (len < sizeof(buf) - 1 && (got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += got;
	close(fd);
	buf[len] = 0;
	t->formats_read++;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!parse_field(line, &a) || !strncmp(a.name, "common_", 7) ||
		    !strcmp(a.name, "__syscall_nr"))
			continue;
		if (n < SC_ARGS)
			args[n++] = a;
	}
	copy = n ? malloc(n * sizeof(*copy)) : NULL;
	if (n && !copy) {
		/* shown raw, as without a format */
		debug("syscall %s: out of memory for its arguments", si->name);
		return;
	}
	if (n)
		memcpy(copy, args, n * sizeof(*copy));
	si->args = copy;
	si->nargs = n;
}

static struct sc_table *table_new(void)
{
	struct sc_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->dirfd = -1;
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		struct sc_info *si = &t->info[nr];

		si->nr = nr;
		si->nargs = -1;
		if (nr < (int)ARRAY_SIZE(sc_names_x86_64) && sc_names_x86_64[nr]) {
			si->name = sc_names_x86_64[nr];
			si->dec = sc_decoder_find(si->name);
		} else {
			snprintf(t->unnamed[nr], sizeof(t->unnamed[nr]), "syscall_%d", nr);
			si->name = t->unnamed[nr];
			/* a number without a name has no format to read */
			t->tried[nr] = true;
		}
	}
	return t;
}

struct sc_table *sc_table_load_dir(const char *dir)
{
	struct sc_table *t = table_new();

	if (t && dir)
		t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return t;
}

struct sc_table *sc_table_load(void)
{
	struct sc_table *t = table_new();
	int fd;

	if (!t)
		return NULL;
	/* the directory stays open: a tracefs of our own (or a privately
	 * mounted one, detached at once) lives on through it */
	fd = tracefs_events_dir("syscalls");
	if (fd == -ENOENT)
		msg("tracefs has no syscall events (CONFIG_FTRACE_SYSCALLS off?); syscall "
		    "arguments shown raw");
	else if (fd < 0)
		msg("syscall arguments shown raw");
	t->dirfd = fd >= 0 ? fd : -1;
	return t;
}

void sc_table_free(struct sc_table *t)
{
	if (!t)
		return;
	if (t->dirfd >= 0)
		close(t->dirfd);
	for (int nr = 0; nr < SC_NR_MAX; nr++)
		free((void *)t->info[nr].args);
	free(t);
}

const struct sc_info *sc_table_get(struct sc_table *t, int nr)
{
	if (nr < 0 || nr >= SC_NR_MAX)
		return NULL;
	if (!t->tried[nr]) {
		t->tried[nr] = true;
		if (t->dirfd >= 0)
			read_format(t, &t->info[nr]);
	}
	return &t->info[nr];
}

const struct sc_info *sc_table_peek(const struct sc_table *t, int nr)
{
	return nr >= 0 && nr < SC_NR_MAX ? &t->info[nr] : NULL;
}

const char *sc_table_name(const struct sc_table *t, int nr)
{
	return nr >= 0 && nr < SC_NR_MAX ? t->info[nr].name : NULL;
}

bool sc_table_has_formats(const struct sc_table *t)
{
	return t->dirfd >= 0;
}

int sc_table_formats_read(const struct sc_table *t)
{
	return t->formats_read;
}

void sc_table_spec(struct sc_table *t, int nr, struct sc_spec *spec)
{
	const struct sc_info *si;
	struct sc_info builtin;

	memset(spec, 0, sizeof(*spec));
	if (nr < 0 || nr >= SC_NR_MAX)
		return;
	si = &t->info[nr];
	/* a decoder says what each argument is; a format read says it too */
	if (si->dec || t->tried[nr] || t->dirfd < 0) {
		sc_spec_for(si, spec);
		return;
	}
	/* the string arguments this kernel's format would give it */
	builtin = *si;
	builtin.dec = sc_strargs_find(si->name);
	sc_spec_for(&builtin, spec);
}

int sc_table_select(const struct sc_table *t, const char *list, bool *wanted)
{
	bool negate = false;
	char *copy, *tok, *save;
	int err = 0;

	if (!list) {
		for (int nr = 0; nr < SC_NR_MAX; nr++)
			wanted[nr] = true;
		return 0;
	}
	if (!strncmp(list, "trace=", 6))
		list += 6;
	if (*list == '!') {
		negate = true;
		list++;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int nr;

		if (*tok == '%') {
			if (!sc_class_known(tok + 1)) {
				msg("-e %s: no such class (%%file %%desc %%memory %%process "
				    "%%signal %%network %%ipc %%clock)", tok);
				err = -EINVAL;
				break;
			}
			for (nr = 0; nr < SC_NR_MAX; nr++)
				if (sc_in_class(t->info[nr].name, tok + 1))
					wanted[nr] = true;
			continue;
		}
		nr = sc_table_lookup(t, tok);
		if (nr < 0) {
			msg("-e %s: no such syscall on this system", tok);
			err = -EINVAL;
			break;
		}
		wanted[nr] = true;
	}
	free(copy);
	if (negate)
		for (int nr = 0; nr < SC_NR_MAX; nr++)
			wanted[nr] = !wanted[nr];
	return err;
}
