#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hashtab.h"
#include "strpool.h"
#include "sym/demangle.h"
#include "sym/elfsyms.h"
#include "sym/srcline.h"
#include "sym/perfmap.h"
#include "sym/symbolize.h"
#include "sym/vdso.h"

/* A user address as named in one address space (sym/proctab.h). */
struct ukey {
	uint64_t addr;
	uint64_t gen;
	uint32_t pid;
	uint32_t ret;		/* 1: a return address */
};

/* A user address already resolved, an entry of the symbolizer's ucache. */
struct uname {
	struct ukey key;
	const char *name;
	int unsym;
	const struct frame_module *mod;	/* NULL: no mapping */
	uint64_t offset;
	uint64_t map_start, map_end;	/* the mapping (for /proc/PID/map_files) */
};

/* Every kernel frame's module. */
static const struct frame_module kernel_module = { .path = "[kernel.kallsyms]" };

struct symbolizer {
	struct proctab *pt;
	const struct ksyms *ks;
	unsigned int flags;
	struct symcache *sc;
	struct strpool *names;
	struct htab *ucache;	/* of struct uname, owned, by hash_bytes() of the key */
	struct htab *modules;	/* of struct frame_module, owned, by path and build id */
	struct elfsyms *vdso;
	int vdso_tried;
	struct srcmap *src;	/* made on first use by symbolize_user_src() */
	bool src_borrowed;	/* symbolizer_use_srcmap()'s */
	struct perfmaps *jit;	/* perf maps, for code no file maps */
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
	s->ucache = htab_new(2048);
	s->modules = htab_new(64);
	s->jit = perfmaps_new();
	if (!s->names || !s->ucache || !s->modules || !s->jit) {
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
	if (!s->src_borrowed)
		srcmap_free(s->src);
	perfmaps_free(s->jit);
	htab_free_all(s->ucache);
	htab_free_all(s->modules);
	free(s);
}

static uint64_t module_hash(const struct frame_module *m)
{
	return hash_bytes(m->path, strlen(m->path), 0) ^ hash_bytes(m->build_id, m->build_id_len, 1);
}

static bool module_eq(const void *entry, const void *key)
{
	const struct frame_module *a = entry, *b = key;

	return a->build_id_len == b->build_id_len && !strcmp(a->path, b->path) &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* The module of a mapping: its path and the build id of the file read
 * for it (es; NULL: none). */
static const struct frame_module *module_of(struct symbolizer *s, const struct mapping *m,
					    const struct elfsyms *es)
{
	struct frame_module key = { .path = m->path };
	size_t len = 0;
	const unsigned char *bid = es ? elfsyms_build_id(es, &len) : NULL;
	struct frame_module *own;
	uint64_t h;

	if (bid && len <= sizeof(key.build_id)) {
		memcpy(key.build_id, bid, len);
		key.build_id_len = len;
	}
	h = module_hash(&key);
	own = htab_find(s->modules, h, &key, module_eq);
	if (own)
		return own;
	own = malloc(sizeof(*own));
	if (!own)
		return NULL;
	*own = key;
	own->path = strpool_intern(s->names, m->path);
	if (!own->path || htab_insert(s->modules, h, own)) {
		free(own);
		return NULL;
	}
	return own;
}

const struct sym_stats *symbolizer_stats(const struct symbolizer *s)
{
	return &s->stats;
}

size_t symbolizer_addresses(const struct symbolizer *s)
{
	return htab_count(s->ucache);
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

int symbolize_kernel(struct symbolizer *s, const uint64_t *ips, int n, struct frame *out)
{
	const char *names[n > 0 ? n : 1];
	int first = 0, m = 0;

	ksyms_want(s->ks, ips, n > 0 ? (size_t)n : 0);
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
		out[m++] = (struct frame){ .name = names[i], .kind = FRAME_KERNEL, .addr = ips[i],
					   .module = &kernel_module, .offset = ips[i] };
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
static const char *user_name(struct symbolizer *s, uint32_t pid, uint64_t gen,
			     uint64_t addr, int ret_addr, int *unsym,
			     const struct frame_module **mod, uint64_t *offset, uint64_t *map)
{
	uint64_t look = addr - (ret_addr ? 1 : 0), off, sym_off;
	const struct mapping *m = proctab_find(s->pt, pid, gen, look);
	const struct elfsyms *es;
	const char *name;
	char alt[96];

	*unsym = 1;
	if (!m) {
		/* no file: JIT code, named by the process's perf map */
		name = perfmaps_lookup(s->jit, s->pt, pid, gen, look, offset);
		*unsym = !name;
		s->stats.jit += !!name;
		return name ? strpool_intern(s->names, name) : "[unknown]";
	}
	off = look - m->start + m->pgoff;
	*offset = off;
	map[0] = m->start;
	map[1] = m->end;
	if (!strcmp(m->path, "[vdso]")) {
		es = vdso_syms(s);
	} else {
		snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx", pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		es = symcache_get(s->sc, m->path, alt, &m->id);
	}
	*mod = module_of(s, m, es);
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
			return name;
		}
	}
	/* a copy of the symbolizer's own: it outlives the binary's symbols
	 * (symcache may evict them while the symbolizer is kept) */
	return strpool_intern(s->names, name);
}

static bool uname_eq(const void *entry, const void *key)
{
	const struct ukey *a = &((const struct uname *)entry)->key, *b = key;

	return a->addr == b->addr && a->pid == b->pid && a->gen == b->gen && a->ret == b->ret;
}

/* The name of ips[i] (i > 0: a return address), cached. */
static struct uname user_frame(struct symbolizer *s, uint32_t pid, uint64_t gen,
			       const uint64_t *ips, int i)
{
	/* the same address as a return address names the caller */
	struct uname u = {
		.key = { .addr = ips[i], .gen = gen, .pid = pid, .ret = i > 0 },
	};
	uint64_t h = hash_bytes(&u.key, sizeof(u.key), 0);
	struct uname *c = htab_find(s->ucache, h, &u.key, uname_eq);

	if (c)
		return *c;
	/* ips[0] is where the thread was; the rest are returns */
	u.name = user_name(s, pid, gen, ips[i] & ~SYM_IP_SIGNAL, i > 0, &u.unsym, &u.mod,
			   &u.offset, &u.map_start);
	/* a signal trampoline without a symbol (libc has no local
	 * symbols) is still a known frame */
	if ((ips[i] & SYM_IP_SIGNAL) && u.unsym) {
		u.name = "[signal]";
		u.unsym = 0;
	}
	if (!u.name)
		u.name = "[unknown]";
	c = malloc(sizeof(*c));
	if (c) {
		*c = u;
		if (htab_insert(s->ucache, h, c))
			free(c);
	}
	return u;
}

int symbolize_user(struct symbolizer *s, uint32_t pid, uint64_t gen,
		   const uint64_t *ips, int n, struct frame *out)
{
	for (int i = 0; i < n; i++) {
		struct uname u = user_frame(s, pid, gen, ips, i);

		s->stats.frames++;
		s->stats.unsymbolized += u.unsym;
		out[n - 1 - i] = (struct frame){
			.name = u.name, .kind = FRAME_USER,
			.addr = (ips[i] & ~SYM_IP_SIGNAL) - (i > 0), .module = u.mod,
			.offset = u.offset,
		};
	}
	return n;
}

/* The inline chain of a named user frame: DWARF is asked of frames a
 * symbol named (an unsymbolized one keeps only its address, for a later
 * symbolizer), once per (module, offset). */
static const struct srcline_chain *chain_of(struct symbolizer *s, uint32_t pid,
					    const struct uname *u)
{
	char alt[96];

	if (u->unsym || !u->mod || u->mod->path[0] != '/')
		return NULL;
	if (!s->src) {
		s->src = srcmap_new();
		if (!s->src)
			return NULL;
	}
	snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)u->map_start, (unsigned long long)u->map_end);
	return srcmap_lookup(s->src, u->mod, alt, u->offset);
}

int symbolize_user_src(struct symbolizer *s, uint32_t pid, uint64_t gen,
		       const uint64_t *ips, int n, struct frame *out, int max)
{
	int extra = max - n, m = 0;

	if (extra < 0) {	/* the innermost frames do not fit */
		ips += -extra;
		n = max;
		extra = 0;
	}
	for (int i = n - 1; i >= 0; i--) {
		struct uname u = user_frame(s, pid, gen, ips, i);
		const struct srcline_chain *c = chain_of(s, pid, &u);
		struct frame fr = {
			.name = u.name, .kind = FRAME_USER,
			.addr = (ips[i] & ~SYM_IP_SIGNAL) - (i > 0), .module = u.mod,
			.offset = u.offset,
		};

		s->stats.frames++;
		s->stats.unsymbolized += u.unsym;
		fr.src = c ? &c->lv[c->n - 1].src : NULL;
		out[m++] = fr;
		/* then the functions inlined there, outermost first, as far
		 * as DWARF names them and room lasts */
		for (int j = c ? (int)c->n - 2 : -1; j >= 0 && extra > 0 && c->lv[j].func; j--) {
			fr.name = c->lv[j].func;
			fr.src = &c->lv[j].src;
			out[m++] = fr;
			extra--;
			s->stats.inlined++;
		}
	}
	return m;
}

void symbolizer_use_srcmap(struct symbolizer *s, struct srcmap *m)
{
	if (!s->src_borrowed)
		srcmap_free(s->src);
	s->src = m;
	s->src_borrowed = m != NULL;
}

const struct srcline_stats *symbolizer_src_stats(const struct symbolizer *s)
{
	return s->src ? srcmap_stats(s->src) : NULL;
}
