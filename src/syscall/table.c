#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "syscall/table.h"
#include "trace/tracefs.h"
#include "syscall/names_x86_64.h"

struct sc_table {
	struct sc_info info[SC_NR_MAX];
	char unnamed[SC_NR_MAX][16];	/* "syscall_NNN" */
	int described;
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

/* Reads one sys_enter_NAME/format into the info of its syscall. */
static void read_format(struct sc_table *t, int dirfd, const char *event)
{
	char path[300], line[512];
	struct sc_argdesc a;
	struct sc_info *si;
	int fd, nr, n = 0;
	FILE *f;

	nr = sc_table_lookup(t, event + strlen("sys_enter_"));
	if (nr < 0) {
		debug("syscall %s: no number known for it on this architecture",
		      event + strlen("sys_enter_"));
		return;
	}
	snprintf(path, sizeof(path), "%s/format", event);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	si = &t->info[nr];
	while (fgets(line, sizeof(line), f)) {
		if (!parse_field(line, &a) || !strncmp(a.name, "common_", 7) ||
		    !strcmp(a.name, "__syscall_nr"))
			continue;
		if (n < SC_ARGS)
			si->args[n++] = a;
	}
	fclose(f);
	si->nargs = n;
	t->described++;
}

static struct sc_table *table_new(void)
{
	struct sc_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		struct sc_info *si = &t->info[nr];

		si->nr = nr;
		si->nargs = -1;
		if (nr < (int)ARRAY_SIZE(sc_names_x86_64) && sc_names_x86_64[nr]) {
			si->name = sc_names_x86_64[nr];
		} else {
			snprintf(t->unnamed[nr], sizeof(t->unnamed[nr]), "syscall_%d", nr);
			si->name = t->unnamed[nr];
		}
	}
	return t;
}

static void bind_decoders(struct sc_table *t)
{
	for (int nr = 0; nr < SC_NR_MAX; nr++)
		t->info[nr].dec = sc_decoder_find(t->info[nr].name);
}

struct sc_table *sc_table_load_dir(const char *dir)
{
	struct sc_table *t = table_new();
	struct dirent *de;
	DIR *d;

	if (!t)
		return NULL;
	d = dir ? opendir(dir) : NULL;
	if (d) {
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "sys_enter_", 10))
				read_format(t, dirfd(d), de->d_name);
		closedir(d);
	}
	bind_decoders(t);
	return t;
}

struct sc_table *sc_table_load(void)
{
	struct tracefs *tfs = tracefs_open();
	char events[128];
	struct sc_table *t;

	if (!tfs) {
		msg("syscall arguments shown raw");
		return sc_table_load_dir(NULL);
	}
	snprintf(events, sizeof(events), "%s/syscalls", tracefs_events(tfs));
	t = sc_table_load_dir(events);
	tracefs_close(tfs);
	if (t && !t->described)
		msg("tracefs has no syscall events (CONFIG_FTRACE_SYSCALLS off?); syscall "
		    "arguments shown raw");
	return t;
}

void sc_table_free(struct sc_table *t)
{
	free(t);
}

const struct sc_info *sc_table_get(const struct sc_table *t, int nr)
{
	return nr >= 0 && nr < SC_NR_MAX ? &t->info[nr] : NULL;
}

int sc_table_described(const struct sc_table *t)
{
	return t->described;
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
