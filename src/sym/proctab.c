#include <ctype.h>
#include <signal.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "sym/proctab.h"

/* One address space: mappings in the order they were made. */
struct aspace {
	uint64_t begin;		/* time of the fork or exec record; 0 = before the run */
	struct mapping *maps;
	size_t n, cap;
	bool proc_loaded;	/* /proc/PID/maps read into it, or never to be */
	bool uid_known;
	uint32_t uid;		/* the process's owner (its /proc/PID's) */
	bool used;		/* a lookup found it (proctab_forget_unsampled) */
};

/* Every address space a pid had while the run lasted, oldest first. */
struct proc {
	uint32_t pid;		/* never 0: pid 0 has no user space */
	struct aspace *as;	/* as[0] begins at 0: what the pid was before */
	uint32_t nas;
	uint8_t exit_seen;	/* collections since its exit record (0: none) */
	bool listed;		/* its pid is in the table's `exiting` */
};

struct proctab {
	struct htab *procs;	/* of struct proc, owned, by mix64(pid) */
	struct strpool *paths;
	uint64_t traced_since;	/* proctab_set_traced_since() */
	bool forget_unsampled;
	bool forget_exited;	/* proctab_forget_exited() */
	size_t exited, dropped;	/* exited processes kept; dropped */
	/* the pids of the exited processes a collection still has work for
	 * (it walks these, not the whole table); walk_all: the list was lost
	 * (out of memory) or the modes changed, the next one walks all */
	uint32_t *exiting;
	size_t nexiting, exiting_cap;
	bool walk_all;
	size_t paths_kept;	/* paths after the last compaction */
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

static void proc_free(struct proc *p)
{
	for (uint32_t i = 0; i < p->nas; i++)
		free(p->as[i].maps);
	free(p->as);
	free(p);
}

void proctab_free(struct proctab *pt)
{
	if (!pt)
		return;
	if (pt->procs) {
		size_t pos = 0;
		struct proc *p;

		while ((p = htab_next(pt->procs, &pos)))
			proc_free(p);
	}
	htab_free(pt->procs);
	strpool_free(pt->paths);
	free(pt->exiting);
	free(pt);
}

size_t proctab_count(const struct proctab *pt)
{
	return htab_count(pt->procs);
}

void proctab_set_traced_since(struct proctab *pt, uint64_t time)
{
	pt->traced_since = time;
}

static bool proc_eq(const void *entry, const void *key)
{
	return ((const struct proc *)entry)->pid == *(const uint32_t *)key;
}

static struct proc *lookup(struct proctab *pt, uint32_t pid)
{
	return htab_find(pt->procs, mix64(pid), &pid, proc_eq);
}

bool proctab_known(struct proctab *pt, uint32_t pid)
{
	return lookup(pt, pid) != NULL;
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
	p->as = calloc(1, sizeof(*p->as));
	if (!p->as || htab_insert(pt->procs, mix64(pid), p)) {
		free(p->as);
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->nas = 1;
	return p;
}

/* The address space in effect just before time t: the newest begun
 * before it (as[0] begins at 0, so for t > 0 there is one).  t == 0: the
 * newest. */
static struct aspace *before(struct proc *p, uint64_t t)
{
	uint32_t i = p->nas - 1;

	if (!t)
		return &p->as[i];
	while (i > 0 && p->as[i].begin >= t)
		i--;
	return &p->as[i];
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
	copy.path = strpool_intern(pt->paths, m->path ? m->path : "");
	if (!copy.path)
		return -ENOMEM;
	copy.time = time;
	/* the same time as a fork or exec: made by it, so in it (an exec's
	 * mmaps come after its record, a fork copies its parent's first) */
	return aspace_add(before(p, time + 1), &copy);
}

/* A new address space for p beginning at time, in time order; the
 * mappings its predecessor got from records later than time (read before
 * this one) move to it.  Returns it, or NULL (ENOMEM). */
static struct aspace *begin_aspace(struct proc *p, uint64_t time)
{
	struct aspace *v = realloc(p->as, (p->nas + 1) * sizeof(*v)), *prev, *as;
	uint32_t at = p->nas;
	size_t keep = 0;

	if (!v)
		return NULL;
	p->as = v;
	while (time && at > 1 && p->as[at - 1].begin > time)
		at--;
	memmove(&p->as[at + 1], &p->as[at], (p->nas - at) * sizeof(*v));
	p->nas++;
	as = &p->as[at];
	/* never read from /proc: the pid may be another process by now */
	*as = (struct aspace){ .begin = time, .proc_loaded = true };
	prev = &p->as[at - 1];
	for (size_t i = 0; i < prev->n; i++) {
		if (time && prev->maps[i].time >= time) {
			if (aspace_add(as, &prev->maps[i]))
				return NULL;
		} else {
			prev->maps[keep++] = prev->maps[i];
		}
	}
	prev->n = keep;
	return as;
}

/* as's owner from /proc/PID, when as is the newest (/proc shows no other) */
static void note_owner(struct proc *p, struct aspace *as)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u", p->pid);
	if (as == &p->as[p->nas - 1] && stat(path, &st) == 0) {
		as->uid = st.st_uid;
		as->uid_known = true;
	}
}

int proctab_exec(struct proctab *pt, uint32_t pid, uint64_t time)
{
	struct proc *p = get(pt, pid);
	struct aspace *as;

	if (!p || !(as = begin_aspace(p, time)))
		return -ENOMEM;
	/* a set-user-ID program changes it */
	note_owner(p, as);
	return 0;
}

int proctab_fork(struct proctab *pt, uint32_t ppid, uint32_t pid, uint64_t time)
{
	struct proc *parent, *child = get(pt, pid);
	struct aspace *from, *to;
	size_t own;

	if (!child)
		return -ENOMEM;
	if (child->exit_seen) {
		child->exit_seen = 0;	/* a new process under the pid */
		pt->exited--;
	}
	/* what the pid was before this fork is not for /proc to say */
	child->as[0].proc_loaded = true;
	to = begin_aspace(child, time);
	if (!to)
		return -ENOMEM;
	parent = lookup(pt, ppid);
	if (!parent) {
		/* a parent from before the run, not read: the child's /proc
		 * shows the same mappings while it has no exec */
		to->proc_loaded = false;
		note_owner(child, to);
		return 0;
	}
	from = before(parent, time + 1);
	/* the parent's mappings, older than the child's own */
	own = to->n;
	for (size_t i = 0; i < from->n; i++)
		if (!time || from->maps[i].time <= time)
			if (aspace_add(to, &from->maps[i]))
				return -ENOMEM;
	if (own && to->n > own) {
		struct mapping *v = malloc(to->n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memcpy(v, to->maps + own, (to->n - own) * sizeof(*v));
		memcpy(v + to->n - own, to->maps, own * sizeof(*v));
		free(to->maps);
		to->maps = v;
		to->cap = to->n;
	}
	/* The child's mappings are the parent's: if the parent's came from
	 * /proc (or an exec we saw), /proc must not be read for the child;
	 * if not, the child's /proc is its own only while it has no exec. */
	to->proc_loaded = from->proc_loaded || parent->nas > 1;
	to->uid = from->uid;
	to->uid_known = from->uid_known;
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
		if (!m.path || aspace_add(&p->as[p->nas - 1], &m)) {
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
	struct stat st;
	struct proc *p;
	int err;
	FILE *f;

	p = get(pt, pid);
	if (!p)
		return -ENOMEM;
	/* only into the newest, while nothing says /proc shows another */
	if (p->as[p->nas - 1].proc_loaded)
		return 0;
	p->as[p->nas - 1].proc_loaded = true;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	/* the owner of /proc/PID/maps is the process's, as of /proc/PID */
	if (fstat(fileno(f), &st) == 0) {
		p->as[p->nas - 1].uid = st.st_uid;
		p->as[p->nas - 1].uid_known = true;
	}
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

const struct mapping *proctab_find(struct proctab *pt, uint32_t pid, uint64_t gen, uint64_t addr)
{
	const struct mapping *m;
	struct proc *p = lookup(pt, pid);
	struct aspace *as;

	if (!p) {
		/* records lost, or not read yet: what /proc shows now */
		if (proctab_load_proc(pt, pid))
			return NULL;
		p = lookup(pt, pid);
		if (!p)
			return NULL;
	}
	as = before(p, gen ? gen : pt->traced_since);
	as->used = true;
	m = aspace_find(as, addr);
	if (!m && !as->proc_loaded && as == &p->as[p->nas - 1] &&
	    proctab_load_proc(pt, pid) == 0)
		m = aspace_find(&p->as[p->nas - 1], addr);
	if (m)
		((struct mapping *)m)->used = true;	/* ours: in an aspace */
	return m;
}

uint64_t proctab_space_begin(struct proctab *pt, uint32_t pid, uint64_t gen)
{
	struct proc *p = lookup(pt, pid);

	if (!p && proctab_load_proc(pt, pid) == 0)
		p = lookup(pt, pid);
	return p ? before(p, gen ? gen : pt->traced_since)->begin : 0;
}

int proctab_owner(struct proctab *pt, uint32_t pid, uint64_t gen, uint32_t *uid)
{
	struct proc *p = lookup(pt, pid);
	struct aspace *as;

	if (!p)
		return -ENOENT;
	as = before(p, gen ? gen : pt->traced_since);
	if (!as->uid_known)
		note_owner(p, as);
	if (!as->uid_known)
		return -ENOENT;
	*uid = as->uid;
	return 0;
}

/* An exited process's mappings that no lookup found go. */
static void compact(struct proc *p)
{
	for (uint32_t i = 0; i < p->nas; i++) {
		struct aspace *as = &p->as[i];
		size_t keep = 0;

		for (size_t j = 0; j < as->n; j++)
			if (as->maps[j].used)
				as->maps[keep++] = as->maps[j];
		as->n = keep;
		if (!keep) {
			free(as->maps);
			as->maps = NULL;
			as->cap = 0;
		} else if (keep < as->cap) {
			struct mapping *v = realloc(as->maps, keep * sizeof(*v));

			if (v) {
				as->maps = v;
				as->cap = keep;
			}
		}
	}
}

void proctab_forget_unsampled(struct proctab *pt)
{
	pt->forget_unsampled = true;
	pt->walk_all = true;	/* processes done with may have work again */
}

/* p's pid into `exiting`, unless there already. */
static void list_exiting(struct proctab *pt, struct proc *p)
{
	if (p->listed || pt->walk_all)
		return;
	if (pt->nexiting == pt->exiting_cap) {
		uint32_t *v = array_grow(pt->exiting, &pt->exiting_cap, sizeof(*v));

		pt->exiting = v;
		if (!v) {
			pt->nexiting = pt->exiting_cap = 0;
			pt->walk_all = true;
			return;
		}
	}
	pt->exiting[pt->nexiting++] = p->pid;
	p->listed = true;
}

/* A process's exit record was read (or its exit found otherwise). */
static void mark_exited(struct proctab *pt, struct proc *p)
{
	p->exit_seen = 1;
	pt->exited++;
	list_exiting(pt, p);
}

int proctab_exit(struct proctab *pt, uint32_t pid, uint64_t time)
{
	struct proc *p = lookup(pt, pid);

	/* unknown, or the exit of an older process under the pid */
	if (!p || p->exit_seen || (time && p->as[p->nas - 1].begin > time))
		return 0;
	mark_exited(pt, p);
	return 0;
}

/* Exited processes gathered while walking the table, then dropped. */
struct gone {
	struct proc **v;
	size_t n, cap;
};

static int gone_add(struct gone *g, struct proc *p)
{
	if (g->n == g->cap) {
		size_t c = g->cap ? g->cap * 2 : 64;
		struct proc **v = realloc(g->v, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->v = v;
		g->cap = c;
	}
	g->v[g->n++] = p;
	return 0;
}

/* pid out of `exiting` (a process dropped while listed). */
static void unlist(struct proctab *pt, struct proc *p)
{
	for (size_t i = 0; p->listed && i < pt->nexiting; i++) {
		if (pt->exiting[i] == p->pid) {
			pt->exiting[i] = pt->exiting[--pt->nexiting];
			break;
		}
	}
	p->listed = false;
}

static size_t gone_drop(struct proctab *pt, struct gone *g)
{
	for (size_t i = 0; i < g->n; i++) {
		unlist(pt, g->v[i]);
		htab_remove(pt->procs, mix64(g->v[i]->pid), &g->v[i]->pid, proc_eq);
		proc_free(g->v[i]);
	}
	free(g->v);
	pt->exited -= g->n;
	pt->dropped += g->n;
	return g->n;
}

/* What a collection does to one exited process: false when it has no
 * more work for it (dropped, compacted, or kept until released), true
 * to look again at the next. */
static bool collect_one(struct proctab *pt, struct proc *p, bool final, struct gone *g)
{
	bool used = false;

	/* its last samples may still be in a ring buffer until a whole
	 * drain has passed since its exit record was read (counted in
	 * every mode: proctab_done(), proctab_release()) */
	if (p->exit_seen < 3 && !final) {
		p->exit_seen++;
		return true;
	}
	if (p->exit_seen > 3 || (!pt->forget_unsampled && !pt->forget_exited))
		return false;	/* kept, compacted; or kept until released */
	for (uint32_t i = 0; i < p->nas && !pt->forget_exited; i++)
		used |= p->as[i].used;
	if (used) {
		compact(p);
		p->exit_seen = 4;
		return false;
	}
	return gone_add(g, p) != 0;	/* out of memory: next time */
}

/* The walk of every process, where the list cannot be trusted: it lists
 * again those with work left. */
static void collect_all(struct proctab *pt, bool final, struct gone *g)
{
	size_t pos = 0;
	struct proc *p;

	pt->nexiting = 0;
	pt->walk_all = false;
	while ((p = htab_next(pt->procs, &pos))) {
		p->listed = false;
		if (p->exit_seen && collect_one(pt, p, final, g))
			list_exiting(pt, p);
	}
}

size_t proctab_collect(struct proctab *pt, bool final)
{
	struct gone g = { 0 };
	size_t keep = 0;

	if (pt->walk_all) {
		collect_all(pt, final, &g);
		return gone_drop(pt, &g);
	}
	for (size_t i = 0; i < pt->nexiting; i++) {
		struct proc *p = lookup(pt, pt->exiting[i]);

		if (!p || !p->listed)
			continue;
		/* exit_seen 0: a new process under the pid since */
		if (p->exit_seen && collect_one(pt, p, final, &g))
			pt->exiting[keep++] = p->pid;
		else
			p->listed = false;
	}
	pt->nexiting = keep;
	return gone_drop(pt, &g);
}

size_t proctab_reap(struct proctab *pt)
{
	size_t pos = 0, n = 0;
	struct proc *p;

	while ((p = htab_next(pt->procs, &pos))) {
		if (p->exit_seen || kill((pid_t)p->pid, 0) == 0 || errno != ESRCH)
			continue;
		mark_exited(pt, p);
		n++;
	}
	return n;
}

bool proctab_done(struct proctab *pt, uint32_t pid)
{
	struct proc *p = lookup(pt, pid);

	return p && p->exit_seen >= 3;
}

void proctab_forget_exited(struct proctab *pt)
{
	pt->forget_exited = true;
	pt->walk_all = true;	/* processes done with may have work again */
}

size_t proctab_release(struct proctab *pt)
{
	struct gone g = { 0 };
	size_t pos = 0;
	struct proc *p;

	while ((p = htab_next(pt->procs, &pos))) {
		/* 3: two whole collections since its exit record, 4: compacted */
		if (p->exit_seen < 3)
			continue;
		if (gone_add(&g, p))
			break;
	}
	return gone_drop(pt, &g);
}

void proctab_each_mapping(const struct proctab *pt,
			  void (*fn)(void *ctx, const struct mapping *m), void *ctx)
{
	size_t pos = 0;
	struct proc *p;

	while ((p = htab_next(pt->procs, &pos)))
		for (uint32_t i = 0; i < p->nas; i++)
			for (size_t j = 0; j < p->as[i].n; j++)
				fn(ctx, &p->as[i].maps[j]);
}

size_t proctab_compact_paths(struct proctab *pt)
{
	struct strpool *np;
	size_t pos = 0, before = strpool_count(pt->paths);
	struct proc *p;

	if (before <= 2 * pt->paths_kept + 64)
		return 0;
	np = strpool_new();
	if (!np)
		return 0;
	while ((p = htab_next(pt->procs, &pos)))
		for (uint32_t i = 0; i < p->nas; i++)
			for (size_t j = 0; j < p->as[i].n; j++) {
				const char *s = strpool_intern(np, p->as[i].maps[j].path);

				if (!s) {
					/* the old pool stays whole: paths already moved
					 * point into np, which must stay too: give up
					 * by pointing them back */
					goto undo;
				}
				p->as[i].maps[j].path = s;
			}
	strpool_free(pt->paths);
	pt->paths = np;
	pt->paths_kept = strpool_count(np);
	return before - pt->paths_kept;
undo:
	pos = 0;
	while ((p = htab_next(pt->procs, &pos)))
		for (uint32_t i = 0; i < p->nas; i++)
			for (size_t j = 0; j < p->as[i].n; j++)
				p->as[i].maps[j].path = strpool_intern(pt->paths, p->as[i].maps[j].path);
	strpool_free(np);
	return 0;
}

void proctab_stats(const struct proctab *pt, size_t *procs, size_t *exited, size_t *dropped)
{
	*procs = htab_count(pt->procs);
	*exited = pt->exited;
	*dropped = pt->dropped;
}
