#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "sym/proctab.h"

/* One address space: mappings in the order they were made. */
struct aspace {
	struct mapping *maps;
	size_t n, cap;
	bool proc_loaded;	/* /proc/PID/maps already read into it */
};

struct proc {
	uint32_t pid;		/* never 0: pid 0 has no user space */
	struct aspace *gens;	/* gens[0] = before the first exec seen */
	uint32_t ngens;
	uint64_t last_time;	/* of the newest record applied */
};

struct proctab {
	struct htab *procs;	/* of struct proc, owned, by mix64(pid) */
	struct strpool *paths;
};

struct proctab *proctab_new(void)
{
	struct proctab *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->procs = htab_new(128);
	pt->paths = strpool_new();
	if (!pt->procs || !pt->paths) {
		proctab_free(pt);
		errno = ENOMEM;
		return NULL;
	}
	return pt;
}

static void proc_clear(struct proc *p)
{
	for (uint32_t i = 0; i < p->ngens; i++)
		free(p->gens[i].maps);
	free(p->gens);
	p->gens = NULL;
	p->ngens = 0;
}

void proctab_free(struct proctab *pt)
{
	if (!pt)
		return;
	if (pt->procs) {
		size_t pos = 0;
		struct proc *p;

		while ((p = htab_next(pt->procs, &pos))) {
			proc_clear(p);
			free(p);
		}
	}
	htab_free(pt->procs);
	strpool_free(pt->paths);
	free(pt);
}

size_t proctab_count(const struct proctab *pt)
{
	return htab_count(pt->procs);
}

static bool proc_eq(const void *entry, const void *key)
{
	return ((const struct proc *)entry)->pid == *(const uint32_t *)key;
}

static struct proc *lookup(struct proctab *pt, uint32_t pid)
{
	return htab_find(pt->procs, mix64(pid), &pid, proc_eq);
}

/* The process entry, created with one empty address space if new. */
static struct proc *get(struct proctab *pt, uint32_t pid)
{
	struct proc *p = lookup(pt, pid);

	if (p)
		return p;
	if (!pid)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->gens = calloc(1, sizeof(*p->gens));
	if (!p->gens || htab_insert(pt->procs, mix64(pid), p)) {
		free(p->gens);
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->ngens = 1;
	return p;
}

static int aspace_add(struct aspace *as, const struct mapping *m)
{
	if (as->n == as->cap) {
		size_t cap = as->cap ? as->cap * 2 : 16;
		struct mapping *v = realloc(as->maps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		as->maps = v;
		as->cap = cap;
	}
	as->maps[as->n++] = *m;
	return 0;
}

int proctab_mmap(struct proctab *pt, uint32_t pid, const struct mapping *m, uint64_t time)
{
	struct proc *p = get(pt, pid);
	struct mapping copy = *m;

	if (!p)
		return -ENOMEM;
	if (time > p->last_time)
		p->last_time = time;
	copy.path = strpool_intern(pt->paths, m->path ? m->path : "");
	if (!copy.path)
		return -ENOMEM;
	return aspace_add(&p->gens[p->ngens - 1], &copy);
}

int proctab_exec(struct proctab *pt, uint32_t pid, uint64_t time)
{
	struct proc *p = get(pt, pid);
	struct aspace *g;

	if (!p)
		return -ENOMEM;
	if (time > p->last_time)
		p->last_time = time;
	g = realloc(p->gens, (p->ngens + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	p->gens = g;
	/* Never read from /proc: the process may have exec'd again since. */
	p->gens[p->ngens++] = (struct aspace){ .proc_loaded = true };
	return 0;
}

int proctab_fork(struct proctab *pt, uint32_t ppid, uint32_t pid, uint64_t time)
{
	struct proc *parent, *child;
	struct aspace *from, *to;

	child = lookup(pt, pid);
	if (child && time && child->last_time > time)
		return 0;	/* the child's later records came first */
	child = get(pt, pid);
	if (!child)
		return -ENOMEM;
	child->last_time = time;
	/* A reused pid: forget the old process. */
	proc_clear(child);
	child->gens = calloc(1, sizeof(*child->gens));
	if (!child->gens)
		return -ENOMEM;
	child->ngens = 1;
	parent = lookup(pt, ppid);
	if (!parent)
		return 0;
	from = &parent->gens[parent->ngens - 1];
	to = &child->gens[0];
	if (from->n) {
		to->maps = malloc(from->n * sizeof(*to->maps));
		if (!to->maps)
			return -ENOMEM;
		memcpy(to->maps, from->maps, from->n * sizeof(*to->maps));
		to->n = to->cap = from->n;
	}
	/* The child's mappings are the parent's: if the parent's came from
	 * /proc (or an exec we saw), /proc must not be read for the child. */
	to->proc_loaded = from->proc_loaded || parent->ngens > 1;
	return 0;
}

/* One line of /proc/PID/maps:
 * "55d0c8a00000-55d0c8a02000 r-xp 00002000 fd:01 1234   /usr/bin/cat" */
static int parse_maps_line(char *line, struct mapping *m)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
		   &off, &maj, &min, &ino, &pos) < 7)
		return -EINVAL;
	if (perms[2] != 'x')
		return -ENOENT;
	while (line[pos] && isspace((unsigned char)line[pos]))
		pos++;
	line[strcspn(line, "\n")] = 0;
	if (line[pos] != '/' && strcmp(line + pos, "[vdso]"))
		return -ENOENT;
	*m = (struct mapping){
		.start = start, .end = end, .pgoff = off,
		.id = { .dev = makedev(maj, min), .ino = ino },
		.path = line + pos,
	};
	return 0;
}

int proctab_load_maps(struct proctab *pt, uint32_t pid, FILE *f)
{
	char *line = NULL;
	struct proc *p;
	size_t cap = 0;
	int err = 0;

	p = get(pt, pid);
	if (!p)
		return -ENOMEM;
	while (getline(&line, &cap, f) > 0) {
		struct mapping m;

		if (parse_maps_line(line, &m))
			continue;
		/* a " (deleted)" file can only be found through map_files */
		m.path = strpool_intern(pt->paths, m.path);
		if (!m.path || aspace_add(&p->gens[p->ngens - 1], &m)) {
			err = -ENOMEM;
			break;
		}
	}
	free(line);
	return err;
}

int proctab_load_proc(struct proctab *pt, uint32_t pid)
{
	char path[64];
	struct proc *p;
	int err;
	FILE *f;

	p = get(pt, pid);
	if (!p)
		return -ENOMEM;
	if (p->ngens > 1 || p->gens[0].proc_loaded)
		return 0;
	p->gens[0].proc_loaded = true;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = proctab_load_maps(pt, pid, f);
	fclose(f);
	return err;
}

int proctab_load_all(struct proctab *pt)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid)
			continue;
		if (proctab_load_proc(pt, pid) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static const struct mapping *aspace_find(const struct aspace *as, uint64_t addr)
{
	for (size_t i = as->n; i-- > 0;)
		if (addr >= as->maps[i].start && addr < as->maps[i].end)
			return &as->maps[i];
	return NULL;
}

const struct mapping *proctab_find(struct proctab *pt, uint32_t pid, uint32_t gen, uint64_t addr)
{
	const struct mapping *m;
	struct proc *p = lookup(pt, pid);
	struct aspace *as;

	if (!p) {
		if (proctab_load_proc(pt, pid))
			return NULL;
		p = lookup(pt, pid);
		if (!p)
			return NULL;
	}
	/* Records lost or an exec before the run: use the nearest known. */
	as = &p->gens[gen < p->ngens ? gen : p->ngens - 1];
	m = aspace_find(as, addr);
	if (!m && !as->proc_loaded && as == &p->gens[0] && p->ngens == 1 &&
	    proctab_load_proc(pt, pid) == 0)
		m = aspace_find(&p->gens[0], addr);
	return m;
}
