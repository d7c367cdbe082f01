#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hashtab.h"
#include "strpool.h"
#include "sym/demangle.h"
#include "sym/elfsyms.h"
#include "sym/symbolize.h"
#include "sym/vdso.h"
#include "unwind/unwind.h"

/* Names of user addresses already resolved: (pid, gen, addr) -> name. */
struct ucache_slot {
	uint64_t addr;
	uint32_t pid, gen;
	const char *name;	/* NULL = free slot */
	int unsym;
};

struct symbolizer {
	struct proctab *pt;
	const struct ksyms *ks;
	unsigned int flags;
	struct symcache *sc;
	struct strpool *names;
	struct ucache_slot *uc;
	size_t uc_slots, uc_count;
	struct elfsyms *vdso;
	int vdso_tried;
	struct sym_stats stats;
};

struct symbolizer *symbolizer_new(struct proctab *pt, struct symcache *sc,
				  const struct ksyms *ks, unsigned int flags)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pt = pt;
	s->ks = ks;
	s->flags = flags;
	s->sc = sc;
	s->names = strpool_new();
	s->uc_slots = 4096;
	s->uc = calloc(s->uc_slots, sizeof(*s->uc));
	if (!s->names || !s->uc) {
		symbolizer_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	strpool_free(s->names);
	elfsyms_free(s->vdso);
	free(s->uc);
	free(s);
}

const struct sym_stats *symbolizer_stats(const struct symbolizer *s)
{
	return &s->stats;
}

size_t symbolizer_binaries(const struct symbolizer *s)
{
	return symcache_count(s->sc) + (s->vdso != NULL);
}

static const char *intern_fmt(struct symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *intern_fmt(struct symbolizer *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return strpool_intern(s->names, buf);
}

int symbolize_kernel(struct symbolizer *s, const uint64_t *ips, int n, const char **out)
{
	const char *names[n > 0 ? n : 1];
	int first = 0, m = 0;

	for (int i = 0; i < n; i++) {
		const struct ksym *k = s->ks ? ksyms_find(s->ks, ips[i]) : NULL;

		if (!k) {
			names[i] = NULL;
			continue;
		}
		/* The tracer's frames, and whatever they called (a sample
		 * can land in rcu_read_lock() called by bpf_trace_run2()):
		 * everything up to the outermost one is the tracer's work,
		 * and the stack starts at the site it instrumented. */
		if (ksym_is_tracer(k->name))
			first = i + 1;
		if (s->flags & SYM_KERNEL_OFFSETS)
			names[i] = intern_fmt(s, "%s+0x%llx", k->name,
					      (unsigned long long)(ips[i] - k->addr));
		else
			names[i] = k->name;
	}
	s->stats.tracer_dropped += first;
	for (int i = n - 1; i >= first; i--) {
		s->stats.frames++;
		if (!names[i]) {
			s->stats.unsymbolized++;
			names[i] = "[unknown]";
		}
		out[m++] = names[i];
	}
	return m;
}

static const struct elfsyms *vdso_syms(struct symbolizer *s)
{
	int fd;

	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = 1;
	fd = vdso_image_fd();
	if (fd >= 0)
		s->vdso = elfsyms_open_fd(fd, "[vdso]");
	return s->vdso;
}

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* One user address; ret_addr: a return address, whose call instruction
 * (the frame's real location) is the byte before. */
static const char *user_name(struct symbolizer *s, uint32_t pid, uint32_t gen,
			     uint64_t addr, int ret_addr, int *unsym)
{
	uint64_t look = addr - (ret_addr ? 1 : 0), off, sym_off;
	const struct mapping *m = proctab_find(s->pt, pid, gen, look);
	const struct elfsyms *es;
	const char *name;
	char alt[96];

	*unsym = 1;
	if (!m)
		return "[unknown]";
	off = look - m->start + m->pgoff;
	if (!strcmp(m->path, "[vdso]")) {
		es = vdso_syms(s);
	} else {
		snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx", pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		es = symcache_get(s->sc, m->path, alt, &m->id);
	}
	name = es ? elfsyms_lookup(es, off, &sym_off) : NULL;
	if (!name)
		return intern_fmt(s, "[%s+0x%llx]", basename_of(m->path),
				  (unsigned long long)off);
	*unsym = 0;
	if (name[0] == '_' && name[1] == 'Z') {
		char *d = demangle(name);

		if (d) {
			name = strpool_intern(s->names, d);
			free(d);
		}
	}
	return name;
}

static int ucache_grow(struct symbolizer *s)
{
	size_t n = s->uc_slots * 2;
	struct ucache_slot *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->uc_slots; i++) {
		struct ucache_slot *o = &s->uc[i];
		size_t j;

		if (!o->name)
			continue;
		j = hash_bytes(o, 16, 0) & (n - 1);
		while (v[j].name)
			j = (j + 1) & (n - 1);
		v[j] = *o;
	}
	free(s->uc);
	s->uc = v;
	s->uc_slots = n;
	return 0;
}

int symbolize_user(struct symbolizer *s, uint32_t pid, uint32_t gen,
		   const uint64_t *ips, int n, const char **out)
{
	for (int i = 0; i < n; i++) {
		/* the same address as a return address names the caller */
		struct ucache_slot key = {
			.addr = ips[i], .pid = pid, .gen = gen | (i > 0 ? 1u << 31 : 0),
		};
		struct ucache_slot *slot;
		size_t j;

		if (s->uc_count * 2 >= s->uc_slots)
			ucache_grow(s);
		j = hash_bytes(&key, 16, 0) & (s->uc_slots - 1);
		for (slot = &s->uc[j]; slot->name; slot = &s->uc[j]) {
			if (slot->addr == key.addr && slot->pid == pid && slot->gen == key.gen)
				break;
			j = (j + 1) & (s->uc_slots - 1);
		}
		if (!slot->name) {
			uint64_t ip = ips[i] & ~UNWIND_IP_SIGNAL;

			/* ips[0] is where the thread was; the rest are returns */
			key.name = user_name(s, pid, gen, ip, i > 0, &key.unsym);
			/* a signal trampoline without a symbol (libc has no local
			 * symbols) is still a known frame */
			if ((ips[i] & UNWIND_IP_SIGNAL) && key.unsym) {
				key.name = "[signal]";
				key.unsym = 0;
			}
			if (!key.name)
				key.name = "[unknown]";
			*slot = key;
			s->uc_count++;
		}
		s->stats.frames++;
		s->stats.unsymbolized += slot->unsym;
		out[n - 1 - i] = slot->name;
	}
	return n;
}
