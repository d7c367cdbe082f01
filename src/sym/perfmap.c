#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "hashtab.h"
#include "sym/perfmap.h"
#include "sym/proctab.h"

struct pm_entry {
	uint64_t start, size;
	uint32_t line;		/* the later line wins an overlap */
	uint32_t name;		/* offset into names */
};

struct perfmap {
	struct pm_entry *e;
	size_t n;
	char *names;
	size_t names_len;
};

/* A hex number without or with 0x; false when there are no digits or it
 * overflows 64 bits. */
static bool hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*p = s;
	*out = v;
	return digits > 0;
}

/* "START SIZE name": false when malformed */
static bool parse_line(const char *s, const char *end, uint64_t *start, uint64_t *size,
		       const char **name, size_t *name_len)
{
	if (!hex(&s, end, start) || s == end || *s != ' ')
		return false;
	s++;
	if (!hex(&s, end, size) || s == end || *s != ' ' || !*size || *start + *size < *start)
		return false;
	s++;
	while (end > s && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (s == end || memchr(s, 0, end - s))
		return false;
	*name = s;
	*name_len = end - s > PERFMAP_MAX_NAME ? PERFMAP_MAX_NAME : (size_t)(end - s);
	return true;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct perfmap *perfmap_parse(const char *text, size_t len, size_t *bad, size_t *over)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));
	const char *p = text, *end = text + len;
	size_t cap = 0, ncap = 0;
	uint32_t line = 0;

	*bad = *over = 0;
	if (!pm)
		return NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *eol = nl ? nl : end, *name;
		uint64_t start, size;
		size_t name_len;

		line++;
		if (eol == p) {
			p = eol + 1;
			continue;
		}
		if (!parse_line(p, eol, &start, &size, &name, &name_len)) {
			++*bad;
		} else if (pm->n == PERFMAP_MAX_ENTRIES) {
			++*over;
		} else {
			if (pm->n == cap) {
				size_t c = cap ? cap * 2 : 64;
				struct pm_entry *v = realloc(pm->e, c * sizeof(*v));

				if (!v)
					goto nomem;
				pm->e = v;
				cap = c;
			}
			if (pm->names_len + name_len + 1 > ncap) {
				size_t c = ncap ? ncap * 2 : 4096;
				char *v;

				while (c < pm->names_len + name_len + 1)
					c *= 2;
				v = realloc(pm->names, c);
				if (!v)
					goto nomem;
				pm->names = v;
				ncap = c;
			}
			pm->e[pm->n++] = (struct pm_entry){ start, size, line, (uint32_t)pm->names_len };
			memcpy(pm->names + pm->names_len, name, name_len);
			pm->names[pm->names_len + name_len] = 0;
			pm->names_len += name_len + 1;
		}
		p = nl ? nl + 1 : end;
	}
	if (pm->n > 1)
		qsort(pm->e, pm->n, sizeof(*pm->e), cmp_entry);
	return pm;
nomem:
	perfmap_free(pm);
	errno = ENOMEM;
	return NULL;
}

struct perfmap *perfmap_read(const char *path, bool owner_known, uint32_t uid, char *why,
			     size_t why_size)
{
	struct perfmap *pm = NULL;
	size_t bad, over, got = 0;
	struct stat st;
	char *buf;
	int fd;

	why[0] = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		snprintf(why, why_size, errno == ELOOP ? "a symlink: refused" : "%s", strerror(errno));
		errno = EPERM;
		return NULL;
	}
	if (fstat(fd, &st)) {
		snprintf(why, why_size, "%s", strerror(errno));
		goto close_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_size, "not a regular file: refused");
		goto close_fd;
	}
	if (st.st_uid != 0 && (!owner_known || st.st_uid != uid)) {
		if (owner_known)
			snprintf(why, why_size, "owned by uid %u, not the process's (uid %u) or root: refused",
				 (unsigned)st.st_uid, (unsigned)uid);
		else
			snprintf(why, why_size, "owned by uid %u, and the process's owner is unknown (it exited): refused",
				 (unsigned)st.st_uid);
		goto close_fd;
	}
	if (st.st_nlink != 1) {
		snprintf(why, why_size, "%lu hard links: refused", (unsigned long)st.st_nlink);
		goto close_fd;
	}
	if ((uint64_t)st.st_size > PERFMAP_MAX_BYTES) {
		snprintf(why, why_size, "%llu bytes, more than the %u MiB a perf map may have: refused",
			 (unsigned long long)st.st_size, PERFMAP_MAX_BYTES >> 20);
		goto close_fd;
	}
	/* what it holds now; a JIT appending meanwhile adds nothing read */
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		goto close_fd;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	pm = perfmap_parse(buf, got, &bad, &over);
	free(buf);
	if (!pm)
		snprintf(why, why_size, "%s", strerror(ENOMEM));
	else if (bad || over)
		snprintf(why, why_size, "%zu malformed lines skipped, %zu past the %u entries read",
			 bad, over, PERFMAP_MAX_ENTRIES);
close_fd:
	close(fd);
	if (!pm)
		errno = EPERM;
	return pm;
}

const char *perfmap_lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = pm->n;
	const struct pm_entry *best = NULL;

	/* the last entry starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the latest line covering it among the few before (overlaps are
	 * replaced code: near each other) */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++) {
		const struct pm_entry *e = &pm->e[i];

		if (addr - e->start < e->size && (!best || e->line > best->line))
			best = e;
	}
	if (!best)
		return NULL;
	if (off)
		*off = addr - best->start;
	return pm->names + best->name;
}

size_t perfmap_count(const struct perfmap *pm)
{
	return pm ? pm->n : 0;
}

void perfmap_free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->e);
	free(pm->names);
	free(pm);
}

struct pid_map {
	uint32_t pid;
	struct perfmap *pm;	/* NULL: none, or refused */
};

struct perfmaps {
	struct htab *by_pid;	/* of struct pid_map, owned */
	size_t read;
};

struct perfmaps *perfmaps_new(void)
{
	struct perfmaps *pms = calloc(1, sizeof(*pms));

	if (!pms)
		return NULL;
	pms->by_pid = htab_new(16);
	if (!pms->by_pid) {
		free(pms);
		errno = ENOMEM;
		return NULL;
	}
	return pms;
}

static bool pid_eq(const void *entry, const void *key)
{
	return ((const struct pid_map *)entry)->pid == *(const uint32_t *)key;
}

const char *perfmaps_lookup(struct perfmaps *pms, struct proctab *pt, uint32_t pid, uint64_t gen,
			    uint64_t addr, uint64_t *off)
{
	struct pid_map *m = htab_find(pms->by_pid, mix64(pid), &pid, pid_eq);

	if (!m) {
		char path[64], why[160];
		uint32_t uid = 0;
		bool known = proctab_owner(pt, pid, gen, &uid) == 0;

		m = calloc(1, sizeof(*m));
		if (!m)
			return NULL;
		m->pid = pid;
		if (htab_insert(pms->by_pid, mix64(pid), m)) {
			free(m);
			return NULL;
		}
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
		m->pm = perfmap_read(path, known, uid, why, sizeof(why));
		if (why[0])
			msg("%s: %s", path, why);
		pms->read += m->pm != NULL;
	}
	return m->pm ? perfmap_lookup(m->pm, addr, off) : NULL;
}

size_t perfmaps_count(const struct perfmaps *pms)
{
	return pms ? pms->read : 0;
}

void perfmaps_free(struct perfmaps *pms)
{
	size_t pos = 0;
	struct pid_map *m;

	if (!pms)
		return;
	while ((m = htab_next(pms->by_pid, &pos))) {
		perfmap_free(m->pm);
		free(m);
	}
	htab_free(pms->by_pid);
	free(pms);
}
