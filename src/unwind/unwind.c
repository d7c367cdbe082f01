#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
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
#define ROW_SLOTS 4096		/* rows found, direct-mapped (struct row_slot) */
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

/* The row a binary's table gave for a file offset, and the offset's
 * virtual address (copies: tables go with their binaries at the symbol
 * cache's sweeps; a file's rows never change).  Hot code's pcs recur
 * from sample to sample, and finding a row costs a symbol-cache look-up
 * and a binary search over megabytes of rows in a big binary, a cache
 * miss a step.  Only rows with a rule are kept. */
struct row_slot {
	uint64_t dev, ino, off;		/* ino 0: empty */
	uint64_t vaddr;
	struct unwind_row row;
};

/* The words a walk read: offsets into the snapshot, and their values. */
struct reads {
	int n;
	bool overflow;
	uint64_t off[MAX_READS], val[MAX_READS];
};

/* Deferred tables (unwinder_defer_tables()): a binary mapped for
 * DEFER_FREE_BYTES or more gets its table once stacks have gone through
 * it DEFER_STACKS_PER_MIB times per whole MiB of its mapping: what it
 * costs to build grows with that size (15 to 35 ms of CPU per MiB: cc1's
 * 19.8 MiB, 0.3 to 0.7 s).  Counts are kept by device and inode for at most
 * DEFER_MAX binaries (then forgotten, all at once: counting restarts). */
#define DEFER_FREE_BYTES (4u << 20)
#define DEFER_STACKS_PER_MIB 1
#define DEFER_MAX 4096

struct pending {
	uint64_t dev, ino;
	uint64_t stacks;	/* distinct walks that went through it */
	uint64_t last;		/* the walk that counted last */
	bool building;		/* handed to the builder thread */
};

/* The tables deferred ones become are built on a thread of their own,
 * so that the loop thread, which drains the snapshot ring and closes
 * windows, is never held for the seconds a big table takes: the file
 * is opened and checked here, built there, and the table given to the
 * symbol cache here at the next walk (its frames stepped as deferred
 * meanwhile).  At most BUILD_QUEUE files are queued or being built. */
#define BUILD_QUEUE 8

struct build_job {
	struct build_job *next;
	uint64_t dev, ino;
	int fd;
	char *name;
	struct unwind_table *t;	/* the result (NULL: none) */
	uint64_t ns;		/* the builder's CPU time for it */
};

struct builder {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct build_job *todo, *done;	/* done: newest first */
	int queued;			/* todo + the one being built */
	bool stop;
};

struct unwinder {
	struct proctab *pt;
	struct symcache *sc;
	enum unwind_mode mode;
	/* made by the first unwind_stack() (about 450 KB: a run whose user
	 * stacks are all walked in the kernel never needs them) */
	struct cache_slot *cache;
	struct row_slot *rows;
	struct reads reads;
	struct unwind_table *vdso;	/* from our own vDSO image */
	bool vdso_tried;
	struct htab *pending;	/* of struct pending; NULL: tables built at once */
	struct builder *builder;	/* NULL: deferred tables built here */
	uint64_t walks;		/* walks begun (names the current one) */
	bool walk_deferred;	/* the current walk stepped past a deferred table */
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
	return u;
}

/* The caches of unwind_stack(), made at its first walk; false: out of
 * memory. */
static bool caches_made(struct unwinder *u)
{
	if (!u->cache)
		u->cache = calloc(CACHE_SLOTS, sizeof(*u->cache));
	if (!u->rows)
		u->rows = calloc(ROW_SLOTS, sizeof(*u->rows));
	return u->cache && u->rows;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void job_free(struct build_job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	unwind_table_free(j->t);
	free(j->name);
	free(j);
}

static void *builder_main(void *arg)
{
	struct builder *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		struct build_job *j;
		uint64_t t0;

		while (!b->todo && !b->stop)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->stop)
			break;
		j = b->todo;
		b->todo = j->next;
		pthread_mutex_unlock(&b->mu);
		t0 = thread_cpu_ns();
		j->t = unwind_table_build_fd(j->fd, j->name, 0);
		j->ns = thread_cpu_ns() - t0;
		close(j->fd);
		j->fd = -1;
		pthread_mutex_lock(&b->mu);
		j->next = b->done;
		b->done = j;
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

static void builder_free(struct builder *b)
{
	struct build_job *j, *next;

	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->stop = true;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	/* a table being built is finished first (not interruptible) */
	pthread_join(b->thread, NULL);
	for (j = b->todo; j; j = next) {
		next = j->next;
		job_free(j);
	}
	for (j = b->done; j; j = next) {
		next = j->next;
		job_free(j);
	}
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	free(b);
}

static struct builder *builder_new(void)
{
	struct builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	if (pthread_create(&b->thread, NULL, builder_main, b)) {
		pthread_mutex_destroy(&b->mu);
		pthread_cond_destroy(&b->cv);
		free(b);
		return NULL;
	}
	return b;
}

int unwinder_defer_tables(struct unwinder *u)
{
	if (!u->pending)
		u->pending = htab_new(64);
	if (!u->pending)
		return -ENOMEM;
	/* without a thread, deferred tables are built here once due */
	if (!u->builder)
		u->builder = builder_new();
	return 0;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	builder_free(u->builder);
	htab_free_all(u->pending);
	for (size_t i = 0; u->cache && i < CACHE_SLOTS; i++)
		free(u->cache[i].ips);
	free(u->cache);
	free(u->rows);
	unwind_table_free(u->vdso);
	free(u);
}

void unwinder_forget_rows(struct unwinder *u)
{
	if (u->rows)
		memset(u->rows, 0, ROW_SLOTS * sizeof(*u->rows));
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}

static void table_free(void *t)
{
	unwind_table_free(t);
}

/* A table built for es (NULL: none could be), in ns of CPU, given to
 * the symbol cache to keep with the binary; NULL when it cannot be. */
static const struct unwind_table *keep_table(struct unwinder *u, const struct elfsyms *es,
					     struct unwind_table *t, uint64_t ns)
{
	const struct unwind_row *rows;

	u->stats.build_ns += ns;
	if (t)
		u->stats.tables++;
	else
		u->stats.no_table++;
	if (verbose > 1)
		debug("unwind table of %s: %zu rows in %.1f ms", elfsyms_name(es),
		      t ? unwind_table_rows(t, &rows) : 0, ns / 1e6);
	if (symcache_set_aux(u->sc, es, t, table_free,
			     t ? unwind_table_rows(t, &rows) * sizeof(*rows) : 0)) {
		unwind_table_free(t);
		return NULL;
	}
	return t;
}

/* The file es was read from, opened again (not whatever its name leads
 * to now: the symbol cache knows files by inode); -errno. */
static int open_binary(const struct elfsyms *es)
{
	struct stat st;
	int fd = open_regular(elfsyms_name(es), &st);

	if (fd >= 0 && !elfsyms_same_file(es, &st)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* The call-frame table of a binary, built on first use and kept by the
 * symbol cache with the binary (evicted with it, sym/symcache.h). */
static const struct unwind_table *table_of(struct unwinder *u, const struct elfsyms *es)
{
	struct unwind_table *t = NULL;
	uint64_t t0;
	bool found;
	int fd;

	t = symcache_aux(u->sc, es, &found);
	if (found)
		return t;
	t0 = thread_cpu_ns();
	fd = open_binary(es);
	if (fd >= 0) {
		t = unwind_table_build_fd(fd, elfsyms_name(es), 0);
		close(fd);
	}
	return keep_table(u, es, t, thread_cpu_ns() - t0);
}

/* es's table handed to the builder thread; -errno (-EAGAIN: its queue
 * is full). */
static int queue_build(struct unwinder *u, const struct elfsyms *es, uint64_t dev, uint64_t ino)
{
	struct builder *b = u->builder;
	struct build_job *j;
	int queued, fd;

	pthread_mutex_lock(&b->mu);
	queued = b->queued;
	pthread_mutex_unlock(&b->mu);
	if (queued >= BUILD_QUEUE)
		return -EAGAIN;
	fd = open_binary(es);
	if (fd < 0)
		return fd;
	j = calloc(1, sizeof(*j));
	if (!j || !(j->name = strdup(elfsyms_name(es)))) {
		free(j);
		close(fd);
		return -ENOMEM;
	}
	j->fd = fd;
	j->dev = dev;
	j->ino = ino;
	pthread_mutex_lock(&b->mu);
	j->next = b->todo;
	b->todo = j;
	b->queued++;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	return 0;
}

static void pending_drop(struct unwinder *u, uint64_t dev, uint64_t ino);

/* The tables the builder thread finished, given to the symbol cache
 * (the binary looked up by its device and inode: read again if it was
 * evicted meanwhile). */
static void take_built(struct unwinder *u)
{
	struct builder *b = u->builder;
	struct build_job *j, *next;

	if (!b || !__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&b->mu);
	j = b->done;
	b->done = NULL;
	for (next = j; next; next = next->next)
		b->queued--;
	pthread_mutex_unlock(&b->mu);
	for (; j; j = next) {
		const struct elfsyms *es;
		bool found = true;

		next = j->next;
		pending_drop(u, j->dev, j->ino);
		es = symcache_get(u->sc, j->name, NULL,
				  &(struct binary_id){ .dev = j->dev, .ino = j->ino });
		if (es)
			symcache_aux(u->sc, es, &found);
		if (!found) {
			keep_table(u, es, j->t, j->ns);
			j->t = NULL;
		}
		job_free(j);
	}
}

static bool pending_eq(const void *entry, const void *key)
{
	const struct pending *a = entry, *b = key;

	return a->dev == b->dev && a->ino == b->ino;
}

static void pending_drop(struct unwinder *u, uint64_t dev, uint64_t ino)
{
	struct pending k = { .dev = dev, .ino = ino };

	free(htab_remove(u->pending, hash_bytes(&k, 2 * sizeof(uint64_t), 0), &k, pending_eq));
}

/* With deferred tables: is the table of the binary mapped at m still to
 * wait (not built, and too few walks through it yet)?  Counts this walk
 * for it; forgets it once its table is to be built. */
static bool table_waits(struct unwinder *u, const struct mapping *m, const struct elfsyms *es)
{
	struct pending k = { .dev = m->id.dev, .ino = m->id.ino }, *p;
	uint64_t need, h = hash_bytes(&k, 2 * sizeof(uint64_t), 0);
	bool found;

	/* a file not known by its inode is not counted (nor built elsewhere) */
	if (!u->pending || !m->id.ino || m->end - m->start < DEFER_FREE_BYTES)
		return false;
	symcache_aux(u->sc, es, &found);
	if (found)
		return false;
	p = htab_find(u->pending, h, &k, pending_eq);
	if (!p) {
		if (htab_count(u->pending) >= DEFER_MAX) {
			struct htab *fresh = htab_new(64);

			if (!fresh)
				return false;
			htab_free_all(u->pending);
			u->pending = fresh;
		}
		p = calloc(1, sizeof(*p));
		if (!p || htab_insert(u->pending, h, p)) {
			/* no room to count: built at once */
			free(p);
			return false;
		}
		*p = k;
	}
	if (p->last != u->walks) {
		p->last = u->walks;
		p->stacks++;
	}
	need = (m->end - m->start) / (1u << 20) * DEFER_STACKS_PER_MIB;
	if (p->stacks >= need && !p->building) {
		int err = u->builder ? queue_build(u, es, k.dev, k.ino) : -ENOSYS;

		if (!err) {
			p->building = true;
		} else if (err != -EAGAIN) {
			/* built here (or found missing here) */
			htab_remove(u->pending, h, &k, pending_eq);
			free(p);
			return false;
		}
	}
	u->stats.deferred_frames++;
	u->walk_deferred = true;
	return true;
}

/* The binary mapped at [start, end) in pid, from the symbol cache (read
 * through the mapping itself when its path names another file now). */
static const struct elfsyms *binary_of(struct unwinder *u, uint32_t pid, const char *path,
				       uint64_t start, uint64_t end, const struct binary_id *id)
{
	char alt[96];

	snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	return symcache_get(u->sc, path, alt, id);
}

const struct unwind_table *unwinder_vdso_table(struct unwinder *u)
{
	if (!u->vdso_tried) {
		int fd = vdso_image_fd();

		u->vdso_tried = true;
		u->vdso = fd >= 0 ? unwind_table_build_fd(fd, "[vdso]", 0) : NULL;
	}
	return u->vdso;
}

const struct unwind_table *unwinder_table(struct unwinder *u, uint32_t pid, const char *path,
					  uint64_t start, uint64_t end,
					  const struct binary_id *id, const struct elfsyms **es)
{
	const struct elfsyms *e = binary_of(u, pid, path, start, end, id);

	if (es)
		*es = e;
	return e ? table_of(u, e) : NULL;
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
	struct row_slot *rs;
	uint64_t off;

	*no_file = !m;
	if (!m)
		return NULL;
	if (!strcmp(m->path, "[vdso]")) {
		/* the image starts at its mapping, at virtual address 0 */
		const struct unwind_table *vt = unwinder_vdso_table(u);

		*vaddr = pc - m->start;
		row = vt ? unwind_table_find(vt, *vaddr) : NULL;
		return row && row->cfa_rule != UNWIND_CFA_NONE ? row : NULL;
	}
	off = pc - m->start + m->pgoff;
	rs = &u->rows[hash_bytes((uint64_t[3]){ m->id.dev, m->id.ino, off }, 24, 0) &
		      (ROW_SLOTS - 1)];
	if (m->id.ino && rs->ino == m->id.ino && rs->dev == m->id.dev && rs->off == off) {
		u->stats.row_hits++;
		*vaddr = rs->vaddr;
		return &rs->row;
	}
	es = binary_of(u, pid, m->path, m->start, m->end, &m->id);
	if (!es || elfsyms_off_to_vaddr(es, off, vaddr))
		return NULL;
	if (table_waits(u, m, es))
		return NULL;
	t = table_of(u, es);
	if (!t)
		return NULL;
	row = unwind_table_find(t, *vaddr);
	if (!row || row->cfa_rule == UNWIND_CFA_NONE)
		return NULL;
	if (m->id.ino)
		*rs = (struct row_slot){ .dev = m->id.dev, .ino = m->id.ino, .off = off,
					 .vaddr = *vaddr, .row = *row };
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
	struct cache_slot *c;
	uint64_t *mem;
	int n;

	if (!caches_made(u)) {
		/* counted as a stack cut at its first frame */
		u->stats.stacks++;
		u->stats.truncated++;
		*truncated = true;
		return 0;
	}
	c = &u->cache[cache_index(pid, gen, regs)];
	if (max > UNWIND_MAX_DEPTH)
		max = UNWIND_MAX_DEPTH;
	if (cache_matches(c, pid, gen, regs, stack, size) && c->n <= max) {
		u->stats.cache_hits++;
		memcpy(ips, c->ips, c->n * sizeof(*ips));
		*truncated = false;
		return c->n;
	}
	take_built(u);
	u->reads.n = 0;
	u->reads.overflow = false;
	u->walks++;
	u->walk_deferred = false;
	n = walk(u, pid, gen, regs, &s, ips, max, truncated);
	u->stats.stacks++;
	u->stats.frames += n;
	u->stats.truncated += *truncated;
	u->stats.deferred_stacks += u->walk_deferred;
	/* an incomplete chain may be completed later (a mapping not yet
	 * known, a table not built yet): never replay it */
	if (*truncated || u->reads.overflow || u->walk_deferred)
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
