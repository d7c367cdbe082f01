#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common.h"
#include "hashtab.h"
#include "sym/elfsyms.h"
#include "sym/symbolize.h"
#include "sym/vdso.h"
#include "unwind/table.h"
#include "unwind/unwind.h"

/* x86-64 signal frame: when the pc is in the sigreturn trampoline, sp
 * points at the ucontext; these are offsets of its saved registers
 * (uc_mcontext at 40, gregs REG_RBP = 10, REG_RSP = 15, REG_RIP = 16). */
#define UC_RBP (40 + 10 * 8)
#define UC_RSP (40 + 15 * 8)
#define UC_RIP (40 + 16 * 8)

#define CACHE_SLOTS 4096	/* snapshot results kept, direct-mapped */
#define MAX_READS (2 * UNWIND_MAX_DEPTH + 8)	/* stack words one unwind reads */

/* One unwound snapshot.  The result depends only on the registers and
 * the stack words the walk read (and the tables, which do not change),
 * so a snapshot with the same registers and the same values at those
 * offsets has the same chain: checking them is exact, and far cheaper
 * than hashing the whole copy. */
struct cache_slot {
	bool used;
	uint32_t pid;
	uint64_t gen;
	struct unwind_regs regs;
	int n;
	int nreads;
	uint64_t *ips;		/* owned: n pcs, then nreads offsets, then nreads values */
};

/* The words a walk read: offsets into the snapshot, and their values. */
struct reads {
	int n;
	bool overflow;
	uint64_t off[MAX_READS], val[MAX_READS];
};

struct unwinder {
	struct proctab *pt;
	struct symcache *sc;
	enum unwind_mode mode;
	struct cache_slot *cache;
	struct reads reads;
	struct unwind_table *vdso;	/* from our own vDSO image */
	bool vdso_tried;
	uint64_t ips[UNWIND_MAX_DEPTH];
	struct unwind_stats stats;
};

int unwind_mode_parse(const char *s, enum unwind_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = UNWIND_AUTO;
	else if (!strcmp(s, "fp"))
		*mode = UNWIND_FP;
	else if (!strcmp(s, "tables"))
		*mode = UNWIND_TABLES;
	else if (!strcmp(s, "kernel"))
		*mode = UNWIND_KERNEL;
	else
		return -EINVAL;
	return 0;
}

struct unwinder *unwinder_new(struct proctab *pt, struct symcache *sc, enum unwind_mode mode)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pt = pt;
	u->sc = sc;
	u->mode = mode;
	u->cache = calloc(CACHE_SLOTS, sizeof(*u->cache));
	if (!u->cache) {
		unwinder_free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; u->cache && i < CACHE_SLOTS; i++)
		free(u->cache[i].ips);
	free(u->cache);
	unwind_table_free(u->vdso);
	free(u);
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}

static void table_free(void *t)
{
	unwind_table_free(t);
}

/* The call-frame table of a binary, built on first use and kept by the
 * symbol cache with the binary (evicted with it, sym/symcache.h). */
static const struct unwind_table *table_of(struct unwinder *u, const struct elfsyms *es)
{
	const struct unwind_row *rows;
	struct unwind_table *t = NULL;
	struct stat st;
	bool found;
	int fd;

	t = symcache_aux(u->sc, es, &found);
	if (found)
		return t;
	/* from the file the symbols were read from, not whatever its name
	 * leads to now (the symbol cache knows files by inode) */
	fd = open_regular(elfsyms_name(es), &st);
	if (fd >= 0 && elfsyms_same_file(es, &st))
		t = unwind_table_build_fd(fd, elfsyms_name(es), 0);
	if (fd >= 0)
		close(fd);
	if (t)
		u->stats.tables++;
	else
		u->stats.no_table++;
	if (symcache_set_aux(u->sc, es, t, table_free,
			     t ? unwind_table_rows(t, &rows) * sizeof(*rows) : 0)) {
		unwind_table_free(t);
		return NULL;
	}
	return t;
}

/* Where pc is: the binary's table row for it (NULL: no table covers it;
 * *no_file: no file is mapped there either, e.g. JIT code). */
static const struct unwind_row *row_for(struct unwinder *u, uint32_t pid, uint64_t gen,
					uint64_t pc, uint64_t *vaddr, bool *no_file)
{
	const struct mapping *m = proctab_find(u->pt, pid, gen, pc);
	const struct unwind_table *t;
	const struct unwind_row *row;
	const struct elfsyms *es;
	char alt[96];

	*no_file = !m;
	if (!m)
		return NULL;
	if (!strcmp(m->path, "[vdso]")) {
		/* the image starts at its mapping, at virtual address 0 */
		if (!u->vdso_tried) {
			int fd = vdso_image_fd();

			u->vdso_tried = true;
			u->vdso = fd >= 0 ? unwind_table_build_fd(fd, "[vdso]", 0) : NULL;
		}
		*vaddr = pc - m->start;
		row = u->vdso ? unwind_table_find(u->vdso, *vaddr) : NULL;
		return row && row->cfa_rule != UNWIND_CFA_NONE ? row : NULL;
	}
	snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	es = symcache_get(u->sc, m->path, alt, &m->id);
	if (!es || elfsyms_off_to_vaddr(es, pc - m->start + m->pgoff, vaddr))
		return NULL;
	t = table_of(u, es);
	if (!t)
		return NULL;
	row = unwind_table_find(t, *vaddr);
	if (!row || row->cfa_rule == UNWIND_CFA_NONE)
		return NULL;
	return row;
}

/* The snapshot: size bytes that were at [base, base + size); every word
 * read is noted in *reads for the cache. */
struct snap {
	uint64_t base;
	const uint8_t *data;
	size_t size;
	struct reads *reads;
};

static bool read_word(const struct snap *s, uint64_t addr, uint64_t *out)
{
	struct reads *r = s->reads;

	if (addr < s->base || addr - s->base > s->size || s->size - (addr - s->base) < 8)
		return false;
	memcpy(out, s->data + (addr - s->base), 8);
	if (r->n < MAX_READS) {
		r->off[r->n] = addr - s->base;
		r->val[r->n++] = *out;
	} else {
		r->overflow = true;
	}
	return true;
}

enum step { STEP_OK, STEP_END, STEP_TRUNCATED };

/* One frame by the frame-pointer chain: bp points at the saved bp, the
 * return address above it. */
static enum step step_fp(struct unwinder *u, const struct snap *s, struct unwind_regs *r)
{
	uint64_t saved_bp, ra;

	if (r->bp == 0)
		return STEP_END;
	if (r->bp < r->sp || !read_word(s, r->bp, &saved_bp) || !read_word(s, r->bp + 8, &ra))
		return STEP_TRUNCATED;
	u->stats.fp_frames++;
	r->sp = r->bp + 16;
	r->bp = saved_bp;
	r->ip = ra;
	return ra ? STEP_OK : STEP_END;
}

static enum step step_row(const struct unwind_row *row, uint64_t vaddr, const struct snap *s,
			  struct unwind_regs *r, bool *exact_next)
{
	uint64_t cfa, ra, bp;

	switch (row->cfa_rule) {
	case UNWIND_CFA_SP:
		cfa = r->sp + row->cfa_off;
		break;
	case UNWIND_CFA_BP:
		cfa = r->bp + row->cfa_off;
		break;
	case UNWIND_CFA_PLT:
		cfa = r->sp + row->cfa_off + ((vaddr & 15) >= (uint64_t)row->bp_off ? 8 : 0);
		break;
	case UNWIND_CFA_SIGNAL:
		if (!read_word(s, r->sp + UC_RIP, &ra) || !read_word(s, r->sp + UC_RBP, &bp) ||
		    !read_word(s, r->sp + UC_RSP, &cfa))
			return STEP_TRUNCATED;
		r->ip = ra;
		r->bp = bp;
		r->sp = cfa;
		/* the interrupted instruction itself, not a return address */
		*exact_next = true;
		return ra ? STEP_OK : STEP_END;
	case UNWIND_CFA_UNDEF:
		return STEP_END;
	default:
		return STEP_TRUNCATED;
	}
	if (cfa <= r->sp && row->cfa_rule != UNWIND_CFA_BP)
		return STEP_TRUNCATED;
	if (!read_word(s, cfa - 8, &ra))
		return STEP_TRUNCATED;
	if (row->bp_rule == UNWIND_REG_AT_CFA) {
		uint64_t slot = cfa + row->bp_off;

		/* In an epilogue after `pop %rbp` the CFI may still name the
		 * save slot, now below sp: rbp already holds the caller's. */
		if (slot >= r->sp) {
			if (!read_word(s, slot, &bp))
				return STEP_TRUNCATED;
			r->bp = bp;
		}
	} else if (row->bp_rule == UNWIND_REG_UNDEF) {
		r->bp = 0;
	}
	r->sp = cfa;
	r->ip = ra;
	return ra ? STEP_OK : STEP_END;
}

static int walk(struct unwinder *u, uint32_t pid, uint64_t gen, const struct unwind_regs *regs,
		const struct snap *s, uint64_t *ips, int max, bool *truncated)
{
	struct unwind_regs r = *regs;
	bool exact = true, unmapped_ra = false;
	int n = 0;

	*truncated = false;
	while (n < max) {
		const struct unwind_row *row = NULL;
		uint64_t pc, vaddr = 0, prev_sp = r.sp;
		bool no_file = false, was_exact = exact;
		enum step st;

		ips[n++] = r.ip;
		/* a return address is after the call: look up the call */
		pc = exact ? r.ip : r.ip - 1;
		exact = false;
		if (u->mode != UNWIND_FP)
			row = row_for(u, pid, gen, pc, &vaddr, &no_file);
		if (unmapped_ra && no_file) {
			/* the step from a return address in no mapping did
			 * not reach one either: no return address (a stale
			 * word, a new thread's first frame); both dropped */
			*truncated = true;
			return n - 2;
		}
		unmapped_ra = false;
		if (row && row->cfa_rule == UNWIND_CFA_SIGNAL)
			ips[n - 1] |= SYM_IP_SIGNAL;
		if (row) {
			st = step_row(row, vaddr, s, &r, &exact);
		} else if (no_file && u->mode != UNWIND_FP) {
			/* code no file holds (a JIT's) has no table to have:
			 * one frame-pointer step, whatever the mode; a return
			 * address there is kept only if that step reaches a
			 * mapped pc (bpf/kunwind.bpf.h: the same rule) */
			u->stats.jit_frames++;
			st = step_fp(u, s, &r);
			if (!was_exact && st != STEP_OK) {
				*truncated = true;
				return n - 1;
			}
			unmapped_ra = !was_exact;
		} else if (u->mode == UNWIND_TABLES) {
			st = STEP_TRUNCATED;
		} else {
			st = step_fp(u, s, &r);
		}
		if (st == STEP_END)
			return n;
		/* the stack grows down: a caller's frame is above */
		if (st == STEP_TRUNCATED || (r.sp <= prev_sp && !exact)) {
			*truncated = true;
			return n;
		}
	}
	*truncated = true;
	return n;
}

static size_t cache_index(uint32_t pid, uint64_t gen, const struct unwind_regs *r)
{
	uint64_t k[5] = { pid, gen, r->ip, r->sp, r->bp };

	return hash_bytes(k, sizeof(k), 0) & (CACHE_SLOTS - 1);
}

/* Does the snapshot hold, at every offset the cached walk read, the same
 * value? */
static bool cache_matches(const struct cache_slot *c, uint32_t pid, uint64_t gen,
			  const struct unwind_regs *r, const uint8_t *data, size_t size)
{
	const uint64_t *off = c->ips + c->n, *val = off + c->nreads;

	if (!c->used || c->pid != pid || c->gen != gen || memcmp(&c->regs, r, sizeof(*r)))
		return false;
	for (int i = 0; i < c->nreads; i++) {
		uint64_t w;

		if (off[i] > size || size - off[i] < 8)
			return false;
		memcpy(&w, data + off[i], 8);
		if (w != val[i])
			return false;
	}
	return true;
}

int unwind_stack(struct unwinder *u, uint32_t pid, uint64_t gen,
		 const struct unwind_regs *regs, const void *stack, size_t size,
		 uint64_t *ips, int max, bool *truncated)
{
	struct snap s = { .base = regs->sp, .data = stack, .size = size, .reads = &u->reads };
	struct cache_slot *c = &u->cache[cache_index(pid, gen, regs)];
	uint64_t *mem;
	int n;

	if (max > UNWIND_MAX_DEPTH)
		max = UNWIND_MAX_DEPTH;
	if (cache_matches(c, pid, gen, regs, stack, size) && c->n <= max) {
		u->stats.cache_hits++;
		memcpy(ips, c->ips, c->n * sizeof(*ips));
		*truncated = false;
		return c->n;
	}
	u->reads.n = 0;
	u->reads.overflow = false;
	n = walk(u, pid, gen, regs, &s, ips, max, truncated);
	u->stats.stacks++;
	u->stats.frames += n;
	u->stats.truncated += *truncated;
	/* an incomplete chain may be completed later (a mapping not yet
	 * known): never replay it */
	if (*truncated || u->reads.overflow)
		return n;
	mem = malloc((n + 2 * u->reads.n) * sizeof(*mem));
	if (!mem)
		return n;
	memcpy(mem, ips, n * sizeof(*ips));
	memcpy(mem + n, u->reads.off, u->reads.n * sizeof(*mem));
	memcpy(mem + n + u->reads.n, u->reads.val, u->reads.n * sizeof(*mem));
	free(c->ips);
	*c = (struct cache_slot){ .used = true, .pid = pid, .gen = gen, .regs = *regs, .n = n,
				  .nreads = u->reads.n, .ips = mem };
	return n;
}
