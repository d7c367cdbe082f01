/* Inline chains from DWARF through libdw: the compile unit of an address
 * by its aranges (dwfl_module_addrdie), the scopes that contain it
 * (dwarf_getscopes: the CU's top-level DIEs are tested, only the one
 * holding the address is descended), the address's own line from the
 * line table (dwfl_module_getsrc), and each inlined subroutine's call
 * site (DW_AT_call_file/line) as the line of the level outside it. */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gelf.h>
#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "sym/demangle.h"
#include "sym/dwopen.h"
#include "sym/srcline.h"

/* A PT_LOAD: file bytes [off, off + filesz) at link-time vaddr. */
struct load {
	uint64_t off, filesz, vaddr;
};

/* A compile unit's address range (DWARF addresses). */
struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off cu;		/* the CU DIE's offset */
};

/* One module's DWARF, or the failure to find it (dw.dw NULL).  cus:
 * the CUs by address, built when .debug_aranges does not find one
 * (clang writes none by default). */
struct binary {
	struct frame_module mod;	/* path owned */
	uint64_t hash;
	uint64_t used;		/* the srcmap_trim() epoch it was last asked in */
	bool dying;		/* srcmap_trim() frees it */
	struct dwopen dw;
	struct load *loads;
	size_t nloads;
	struct cu_range *cus;
	size_t ncus;
	bool cus_built;
};

/* A cached chain; chain NULL: DWARF says nothing there. */
struct addr_entry {
	const struct binary *b;
	uint64_t off;
	const struct srcline_chain *chain;
};

struct srcmap {
	struct htab *binaries;	/* of struct binary, by path and build id */
	struct htab *addrs;	/* of struct addr_entry, by (binary, offset) */
	uint64_t epoch;		/* srcmap_trim() calls */
	struct strpool *strs;	/* names and files */
	struct srcline_stats stats;
};

struct srcmap *srcmap_new(void)
{
	struct srcmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->binaries = htab_new(64);
	m->addrs = htab_new(4096);
	m->strs = strpool_new();
	if (!m->binaries || !m->addrs || !m->strs) {
		srcmap_free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

static void binary_free(struct binary *b)
{
	dwopen_close(&b->dw);
	free(b->loads);
	free(b->cus);
	free((char *)b->mod.path);
	free(b);
}

void srcmap_free(struct srcmap *m)
{
	size_t pos = 0;
	void *e;

	if (!m)
		return;
	while (m->binaries && (e = htab_next(m->binaries, &pos))) {
		binary_free(e);
	}
	pos = 0;
	while (m->addrs && (e = htab_next(m->addrs, &pos))) {
		struct addr_entry *a = e;

		free((void *)a->chain);
		free(a);
	}
	htab_free(m->binaries);
	htab_free(m->addrs);
	strpool_free(m->strs);
	free(m);
}

const struct srcline_stats *srcmap_stats(const struct srcmap *m)
{
	return &m->stats;
}

static bool binary_eq(const void *entry, const void *key)
{
	const struct frame_module *a = &((const struct binary *)entry)->mod, *b = key;

	return a->build_id_len == b->build_id_len && !strcmp(a->path, b->path) &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

static uint64_t module_hash(const struct frame_module *m)
{
	return hash_bytes(m->path, strlen(m->path), 0) ^ hash_bytes(m->build_id, m->build_id_len, 1);
}

static int read_loads(struct binary *b)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(b->dw.mod, &bias);
	size_t phnum;
	GElf_Phdr ph;

	if (!elf || elf_getphdrnum(elf, &phnum))
		return -EINVAL;
	b->loads = calloc(phnum ? phnum : 1, sizeof(*b->loads));
	if (!b->loads)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz)
			b->loads[b->nloads++] = (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	return b->nloads ? 0 : -EINVAL;
}

/* Opens path as mod's file: its DWARF, its build id equal to mod's. */
static int open_as(struct binary *b, const char *path)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int n, err, fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	err = dwopen(&b->dw, path, fd);
	if (err)
		return err;
	n = dwfl_module_build_id(b->dw.mod, &id, &vaddr);
	if (b->mod.build_id_len &&
	    (n != (int)b->mod.build_id_len || memcmp(id, b->mod.build_id, (size_t)n)))
		err = -ESTALE;
	else if (!b->dw.dw)
		err = -ENODATA;
	else
		err = read_loads(b);
	if (err) {
		dwopen_close(&b->dw);
		free(b->loads);
		b->loads = NULL;
		b->nloads = 0;
	}
	return err;
}

static struct binary *binary_find(struct srcmap *m, const struct frame_module *mod)
{
	struct binary *b = htab_find(m->binaries, module_hash(mod), mod, binary_eq);

	if (b)
		b->used = m->epoch;
	return b;
}

static struct binary *binary_of(struct srcmap *m, const struct frame_module *mod,
				const char *alt_path)
{
	struct binary *b = binary_find(m, mod);

	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->mod = *mod;
	b->mod.path = strdup(mod->path);
	b->hash = module_hash(mod);
	b->used = m->epoch;
	if (!b->mod.path) {
		free(b);
		return NULL;
	}
	/* only files: not "[vdso]", "[anon:...]", "//anon" */
	if (mod->path[0] != '/' || (open_as(b, mod->path) && (!alt_path || open_as(b, alt_path))))
		m->stats.no_dwarf++;
	else
		m->stats.binaries++;
	if (htab_insert(m->binaries, b->hash, b)) {
		binary_free(b);
		return NULL;
	}
	return b;
}

static bool off_to_vaddr(const struct binary *b, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < b->nloads; i++) {
		const struct load *l = &b->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

/* A function's name: its linkage name demangled, else DW_AT_name;
 * through DW_AT_abstract_origin and DW_AT_specification. */
static const char *func_name(struct srcmap *m, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	char *d;

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (n && (d = demangle(n))) {
		n = strpool_intern(m->strs, d);
		free(d);
		return n;
	}
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return n ? strpool_intern(m->strs, n) : NULL;
}

/* A source file name as addr2line shows it: a relative one (gcc's line
 * tables) under the CU's compilation directory. */
static const char *file_name(struct srcmap *m, Dwarf_Die *cu, const char *f)
{
	Dwarf_Attribute a;
	const char *dir;
	char buf[PATH_MAX];

	if (f[0] != '/' && (dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))) &&
	    snprintf(buf, sizeof(buf), "%s/%s", dir, f) < (int)sizeof(buf))
		f = buf;
	return strpool_intern(m->strs, f);
}

/* The call site of an inlined subroutine: file (from the CU's file
 * table) and line. */
static void call_site(struct srcmap *m, Dwarf_Die *cu, Dwarf_Die *inl, const char **file,
		      unsigned int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nfiles;
	const char *f;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &w) == 0 && w <= 0x7fffffff)
		*line = (unsigned int)w;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles &&
	    (f = dwarf_filesrc(files, w, NULL, NULL)))
		*file = file_name(m, cu, f);
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every CU's ranges, sorted, once; bounded by the DWARF itself (each
 * range is read once). */
static void build_cus(struct binary *b)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	b->cus_built = true;
	while (dwarf_nextcu(b->dw.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		Dwarf_Die cu;
		ptrdiff_t r = 0;

		if (dwarf_offdie(b->dw.dw, off + hsize, &cu)) {
			while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (b->ncus == cap) {
					size_t ncap = cap ? 2 * cap : 64;
					struct cu_range *p = realloc(b->cus, ncap * sizeof(*p));

					if (!p)
						goto sort;
					b->cus = p;
					cap = ncap;
				}
				b->cus[b->ncus++] = (struct cu_range){ lo, hi, off + hsize };
			}
		}
		off = next;
	}
sort:
	qsort(b->cus, b->ncus, sizeof(*b->cus), cu_range_cmp);
}

/* The CU holding DWARF address pc, by .debug_aranges, else by the
 * CUs' own ranges. */
static bool cu_of(struct binary *b, Dwarf_Addr addr, Dwarf_Die *out, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(b->dw.mod, addr, bias);
	Dwarf_Addr pc = addr - b->dw.bias;
	size_t lo = 0, hi;

	if (cu) {
		*out = *cu;
		return true;
	}
	if (!b->cus_built)
		build_cus(b);
	*bias = b->dw.bias;
	hi = b->ncus;
	while (lo < hi) {	/* lo: the first range starting after pc */
		size_t mid = lo + (hi - lo) / 2;

		if (b->cus[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of CUs may nest (a CU's whole span around another's
	 * pieces): the nearest few before pc are tried */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (pc < b->cus[i - 1].hi)
			return dwarf_offdie(b->dw.dw, b->cus[i - 1].cu, out) != NULL;
	return false;
}

/* The chain at vaddr of b, malloc'ed; NULL when DWARF has nothing. */
static struct srcline_chain *build_chain(struct srcmap *m, struct binary *b, uint64_t vaddr)
{
	struct srcline_level lv[4 * SRCLINE_MAX_LEVELS];
	Dwarf_Addr addr = vaddr + b->dw.bias, cubias;
	Dwarf_Die cudie, *cu = &cudie, *scopes = NULL, innermost;
	Dwarf_Line *dl;
	const char *file = NULL;
	struct srcline_chain *c;
	unsigned int n = 0, keep, line = 0;
	int lineno = 0, ns;

	if (!cu_of(b, addr, &cudie, &cubias))
		return NULL;
	dl = dwarf_getsrc_die(cu, addr - cubias);
	if (dl && (file = dwarf_linesrc(dl, NULL, NULL)))
		file = file_name(m, cu, file);
	if (dl && dwarf_lineno(dl, &lineno))
		lineno = 0;
	line = lineno > 0 ? (unsigned int)lineno : 0;
	/* the innermost scope, then every scope holding it: past an
	 * inlined subroutine dwarf_getscopes() goes on with its abstract
	 * definition's scopes, dwarf_getscopes_die() with the concrete ones
	 * (as eu-addr2line -i does) */
	ns = dwarf_getscopes(cu, addr - cubias, &scopes);
	if (ns > 0) {
		bool ok = dwarf_offdie(b->dw.dw, dwarf_dieoffset(&scopes[0]), &innermost) != NULL;

		free(scopes);
		scopes = NULL;
		ns = ok ? dwarf_getscopes_die(&innermost, &scopes) : -1;
	}
	for (int i = 0; i < ns && n < ARRAY_SIZE(lv); i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		lv[n++] = (struct srcline_level){ func_name(m, &scopes[i]), { file, line, true } };
		if (tag == DW_TAG_subprogram)
			break;
		call_site(m, cu, &scopes[i], &file, &line);
	}
	free(scopes);
	if (!n && (file || line))	/* a line, no function DIE */
		lv[n++] = (struct srcline_level){ NULL, { file, line, false } };
	if (!n)
		return NULL;
	lv[n - 1].src.inlined = false;
	/* too deep: the outer levels are kept, the innermost cut */
	keep = n > SRCLINE_MAX_LEVELS ? SRCLINE_MAX_LEVELS : n;
	c = malloc(sizeof(*c) + keep * sizeof(c->lv[0]));
	if (!c)
		return NULL;
	c->n = keep;
	memcpy(c->lv, lv + (n - keep), keep * sizeof(c->lv[0]));
	return c;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

struct addr_key {
	const struct binary *b;
	uint64_t off;
};

static bool addr_eq(const void *entry, const void *key)
{
	const struct addr_entry *a = entry;
	const struct addr_key *k = key;

	return a->b == k->b && a->off == k->off;
}

static uint64_t addr_hash(const struct binary *b, uint64_t off)
{
	return mix64((uintptr_t)b ^ mix64(off));
}

const struct srcline_chain *srcmap_lookup(struct srcmap *m, const struct frame_module *mod,
					  const char *alt_path, uint64_t off)
{
	struct addr_key k = { NULL, off };
	uint64_t h, vaddr, t0;
	struct addr_entry *a;
	struct binary *b;

	if (!mod)
		return NULL;
	b = binary_find(m, mod);
	if (b) {
		k.b = b;
		a = htab_find(m->addrs, addr_hash(b, off), &k, addr_eq);
		if (a)
			return a->chain;
	}
	if (htab_count(m->addrs) >= SRCLINE_MAX_ADDRS || m->stats.ns >= SRCLINE_BUDGET_NS) {
		m->stats.over_limit++;
		return NULL;
	}
	t0 = now_ns();
	if (!b)
		b = binary_of(m, mod, alt_path);
	if (!b) {
		m->stats.ns += now_ns() - t0;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->b = b;
	a->off = off;
	if (b->dw.dw && off_to_vaddr(b, off, &vaddr))
		a->chain = build_chain(m, b, vaddr);
	m->stats.ns += now_ns() - t0;
	h = addr_hash(b, off);
	if (htab_insert(m->addrs, h, a)) {
		free((void *)a->chain);
		free(a);
		return NULL;
	}
	m->stats.lookups++;
	m->stats.found += a->chain != NULL;
	return a->chain;
}

size_t srcmap_trim(struct srcmap *m, uint64_t idle)
{
	struct binary **gone = NULL;
	size_t n = 0, cap = 0, pos = 0;
	struct binary *b;
	void *e;

	while ((b = htab_next(m->binaries, &pos))) {
		if (m->epoch - b->used < idle)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct binary **v = realloc(gone, c * sizeof(*v));

			if (!v)
				break;
			gone = v;
			cap = c;
		}
		gone[n++] = b;
	}
	m->epoch++;
	if (!n)
		return 0;
	/* their addresses first (keyed by the binary's pointer), gathered,
	 * then removed: a removal moves entries under the walk */
	for (size_t i = 0; i < n; i++)
		gone[i]->dying = true;
	{
		struct addr_entry **drop = NULL;
		size_t nd = 0, capd = 0;

		for (pos = 0; (e = htab_next(m->addrs, &pos));) {
			struct addr_entry *a = e;

			if (!a->b->dying)
				continue;
			if (nd == capd) {
				size_t c = capd ? capd * 2 : 256;
				struct addr_entry **v = realloc(drop, c * sizeof(*v));

				if (!v) {
					/* keep them all: no binary goes */
					for (size_t i = 0; i < n; i++)
						gone[i]->dying = false;
					free(drop);
					free(gone);
					return 0;
				}
				drop = v;
				capd = c;
			}
			drop[nd++] = a;
		}
		for (size_t i = 0; i < nd; i++) {
			htab_remove(m->addrs, addr_hash(drop[i]->b, drop[i]->off),
				    &(struct addr_key){ drop[i]->b, drop[i]->off }, addr_eq);
			free((void *)drop[i]->chain);
			free(drop[i]);
		}
		free(drop);
	}
	for (size_t i = 0; i < n; i++) {
		htab_remove(m->binaries, gone[i]->hash, &gone[i]->mod, binary_eq);
		binary_free(gone[i]);
	}
	free(gone);
	m->stats.evicted += n;
	return n;
}
