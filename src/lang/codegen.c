/* The code generator (see codegen.h).
 *
 * Stack frame of every program:
 *   fp-8    ctx
 *   fp-16   the scratch map's value: $variables that are not integers
 *   fp-24   the same + the variables' bytes: temporaries of a statement
 *   fp-32 .. fp-280    integer $variables (31 slots; more go to scratch)
 *   fp-288 .. fp-504   expression temporaries spilled past r6..r9
 *
 * Expressions are evaluated onto a stack of values: depth 0..3 in r6..r9
 * (which helpers preserve), deeper in spill slots.  An integer's value is
 * the entry; any other value (string, tuple, buf, stack) is a pointer to
 * its bytes, in scratch. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>
#include "lang/codegen.h"
#include "lang/lexer.h"
#include "lang/rec.h"
#include "bpf/syscalls.h"

#define FP_CTX (-8)
#define FP_VARS (-16)
#define FP_TMP (-24)
#define FP_VAR0 (-32)
#define NSTACK_VARS 31
#define FP_SPILL0 (-288)
#define NSPILL 28
#define NREGS 4			/* r6..r9 */
#define MAX_LOOPS 64
#define MAX_FOR_MAPS 64		/* callback functions of one program */

struct cg_var {
	const char *name;
	int depth;
	struct lang_type type;
	bool is_signed;
	bool on_stack;		/* an integer at fp+off; else at vars+off */
	int32_t off;
	struct cg_var *next;
};

struct gen {
	struct lang_cg *cg;
	struct lang_cg_prog *p;
	int pidx;
	struct insn_buf *b;
	const struct lang_cg_point *pt;
	const struct lang_probe *probe;
	int depth;		/* values on the expression stack */
	int nstack_vars;
	uint32_t var_size;	/* scratch bytes of variables */
	uint32_t tmp_cur, tmp_max;
	struct cg_var *vars;
	int scope;
	int out;		/* label: return 0 */
	int brk[MAX_LOOPS], cont[MAX_LOOPS];
	int nloops;
	size_t tmpbase_at;	/* the instruction adding var_size */
	/* for ($kv : @map) bodies: callback functions, each generated into a
	 * buffer of its own and appended after the program (a BPF function
	 * is a contiguous range); refs are their address loads to patch */
	struct insn_buf **cbs;
	size_t ncbs;
	int cur;		/* the buffer being written: -1 the program, else cbs[] */
	struct cb_ref { int from; uint32_t at; int cb; } *refs;
	bool cb_loop[MAX_FOR_MAPS];	/* cbs[i] is called by bpf_loop() */
	size_t nrefs;
	bool dead;		/* after exit(), return, break, continue: no code (the
				 * verifier refuses unreachable instructions) */
	bool failed;
};

static void gerr(struct gen *g, struct lang_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void gerr(struct gen *g, struct lang_pos pos, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!g->failed || g->cg->prog->nerrors < 8)
		lang_errorf(g->cg->prog, pos, "%s", buf);
	g->failed = true;
}

#define E(i) insn_emit(g->b, i)

/* ---- sizes ---------------------------------------------------------- */

static uint32_t hist_buckets(unsigned k)
{
	return ((64 - k) << k) + 1;
}

uint32_t lang_cg_hist_buckets(unsigned k)
{
	return hist_buckets(k);
}

uint32_t lang_cg_size(const struct lang_cg *cg, const struct lang_type *t)
{
	uint32_t n = 0;

	switch (t->kind) {
	case LANG_K_STR:
		return cg->strlen;
	case LANG_K_BUF:
		return 8 + cg->strlen;
	case LANG_K_STACK:
		return sizeof(struct lang_rec_stack);
	case LANG_K_USYM:
	case LANG_K_TIMESTAMP:
	case LANG_K_MIN:
	case LANG_K_MAX:
	case LANG_K_AVG:
	case LANG_K_STATS:
		return 16;
	case LANG_K_TUPLE:
		for (size_t i = 0; i < t->nelems; i++)
			n += lang_cg_size(cg, &t->elems[i]);
		return n;
	default:
		return 8;
	}
}

static bool is_int(enum lang_kind k)
{
	return k == LANG_K_INT || k == LANG_K_COUNT || k == LANG_K_SUM || k == LANG_K_MIN ||
	       k == LANG_K_MAX || k == LANG_K_AVG || k == LANG_K_KSYM;
}

/* ---- the expression stack ------------------------------------------- */

static int16_t spill_off(int d)
{
	return (int16_t)(FP_SPILL0 - 8 * (d - NREGS));
}

static int vpush(struct gen *g, struct lang_pos pos)
{
	int d = g->depth++;

	if (d >= NREGS + NSPILL)
		gerr(g, pos, "expression too deep for the BPF stack");
	return d;
}

static void vpop(struct gen *g)
{
	g->depth--;
}

/* A register holding entry d (loaded into scratch when spilled). */
static int vreg(struct gen *g, int d, int scratch)
{
	if (d < NREGS)
		return BPF_REG_6 + d;
	E(I_LDX(BPF_DW, scratch, BPF_REG_10, spill_off(d)));
	return scratch;
}

/* Entry d = reg. */
static void vset(struct gen *g, int d, int reg)
{
	if (d < NREGS) {
		if (reg != BPF_REG_6 + d)
			E(I_MOV64_REG(BPF_REG_6 + d, reg));
		return;
	}
	E(I_STX(BPF_DW, BPF_REG_10, reg, spill_off(d)));
}

static int vtop(struct gen *g)
{
	return g->depth - 1;
}

/* ---- scratch -------------------------------------------------------- */

static uint32_t tmp_alloc(struct gen *g, uint32_t size, struct lang_pos pos)
{
	uint32_t off = g->tmp_cur;

	size = (size + 7) & ~7u;
	g->tmp_cur += size;
	if (g->tmp_cur > g->tmp_max)
		g->tmp_max = g->tmp_cur;
	if (g->tmp_cur + g->var_size > LANG_CG_SCRATCH_MAX)
		gerr(g, pos, "this statement needs more than %u bytes of scratch memory",
		     LANG_CG_SCRATCH_MAX);
	return off;
}

/* reg = the temporary area + off */
static void tmp_ptr(struct gen *g, int reg, uint32_t off)
{
	E(I_LDX(BPF_DW, reg, BPF_REG_10, FP_TMP));
	if (off)
		E(I_ALU64_IMM(BPF_ADD, reg, (int32_t)off));
}

/* *(reg + off .. + size) = 0 */
static void emit_zero(struct gen *g, int reg, int32_t off, uint32_t size)
{
	if (size > 256) {
		/* bpf_probe_read_kernel() zeroes its destination when the
		 * read fails, and reading address 0 always fails */
		if (reg != BPF_REG_1)
			E(I_MOV64_REG(BPF_REG_1, reg));
		if (off)
			E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, off));
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)size));
		E(I_MOV64_IMM(BPF_REG_3, 0));
		E(I_CALL(BPF_FUNC_probe_read_kernel));
		return;
	}
	for (uint32_t i = 0; i < size; i += 8)
		E(I_ST(BPF_DW, reg, (int16_t)(off + (int32_t)i), 0));
}

/* *(dst + doff) = *(src + soff), size bytes (a multiple of 8); r0 is used */
static void emit_copy(struct gen *g, int dst, int32_t doff, int src, int32_t soff, uint32_t size)
{
	if (size > 256) {
		E(I_MOV64_REG(BPF_REG_0, src));
		if (dst != BPF_REG_1)
			E(I_MOV64_REG(BPF_REG_1, dst));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, doff));
		E(I_MOV64_REG(BPF_REG_3, BPF_REG_0));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, soff));
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)size));
		E(I_CALL(BPF_FUNC_probe_read_kernel));
		return;
	}
	for (uint32_t i = 0; i < size; i += 8) {
		E(I_LDX(BPF_DW, BPF_REG_0, src, (int16_t)(soff + (int32_t)i)));
		E(I_STX(BPF_DW, dst, BPF_REG_0, (int16_t)(doff + (int32_t)i)));
	}
}

/* Zeroes the temporary at off, r1 pointing to it before and after (past
 * 256 bytes the zeroing is a helper call, which takes r1-r5). */
static void emit_zero_keep(struct gen *g, uint32_t off, uint32_t size)
{
	emit_zero(g, BPF_REG_1, 0, size);
	if (size > 256)
		tmp_ptr(g, BPF_REG_1, off);
}

/* A new temporary of size bytes, zeroed, pushed as a pointer. */
static uint32_t push_tmp(struct gen *g, uint32_t size, struct lang_pos pos, bool zero)
{
	uint32_t off = tmp_alloc(g, size, pos);
	int d = vpush(g, pos);

	tmp_ptr(g, BPF_REG_1, off);
	vset(g, d, BPF_REG_1);
	if (zero)
		emit_zero_keep(g, off, size);
	return off;
}

/* ---- maps ------------------------------------------------------------ */

static int add_map(struct lang_cg *cg, const struct lang_cg_map *m)
{
	struct lang_cg_map *n = realloc(cg->maps, (cg->nmaps + 1) * sizeof(*n));

	if (!n)
		return -1;
	cg->maps = n;
	cg->maps[cg->nmaps] = *m;
	cg->maps[cg->nmaps].fd = -1;
	return (int)cg->nmaps++;
}

const struct lang_cg_map *lang_cg_map_find(const struct lang_cg *cg, const char *name)
{
	for (size_t i = 0; i < cg->nmaps; i++)
		if (cg->maps[i].role == LANG_CGM_USER && !strcmp(cg->maps[i].m->name, name))
			return &cg->maps[i];
	return NULL;
}

static int map_index(struct gen *g, const char *name)
{
	const struct lang_cg_map *m = lang_cg_map_find(g->cg, name);

	return m ? (int)(m - g->cg->maps) : -1;
}

static int add_site(struct lang_cg *cg, const struct lang_cg_site *s)
{
	struct lang_cg_site *n = realloc(cg->sites, (cg->nsites + 1) * sizeof(*n));

	if (!n)
		return -1;
	cg->sites = n;
	cg->sites[cg->nsites] = *s;
	return (int)cg->nsites++;
}

/* The hist/lhist parameters of @m's aggregation, found at its first
 * assignment anywhere in the program. */
static const struct lang_node *find_agg(const struct lang_node *n, const char *map)
{
	const struct lang_node *r;

	if (!n)
		return NULL;
	if (n->kind == LANG_N_ASSIGN && n->a && n->a->kind == LANG_N_MAP &&
	    !strcmp(n->a->name, map) && n->b && n->b->kind == LANG_N_CALL)
		return n->b;
	if ((r = find_agg(n->a, map)) || (r = find_agg(n->b, map)) || (r = find_agg(n->c, map)))
		return r;
	for (size_t i = 0; i < n->n; i++)
		if ((r = find_agg(n->list[i], map)))
			return r;
	return NULL;
}

static int64_t param_int(const struct lang_cg *cg, uint64_t i)
{
	if (i < 1 || i > (uint64_t)cg->o.nparams)
		return 0;
	return strtoll(cg->o.params[i - 1], NULL, 0);
}

static int64_t lit_int(const struct lang_cg *cg, const struct lang_node *n)
{
	if (n->kind == LANG_N_PARAM)
		return param_int(cg, n->num);
	return (int64_t)n->num;
}

static const struct lang_config *config_find(const struct lang_prog *p, const char *key)
{
	for (const struct lang_config *c = p->config; c; c = c->next)
		if (!strcmp(c->key, key))
			return c;
	return NULL;
}

/* ---- table-unwound user stacks ---------------------------------------
 * `ustack` without the fp mode is not taken by the kernel: a record
 * carries the user registers and a copy of the stack top, and the
 * runtime unwinds it with the binary's tables.  A map keyed by one is
 * aggregated by the runtime (LANG_CGS_UAGG records); which maps those are
 * is settled over the whole program here, following $variables that hold
 * such a stack. */

#define SNAP_MAX_VARS 64
#define SNAP_REC_MAX 4096	/* the record before the snapshot, at most */
/* x86-64 struct pt_regs: where bp, ip and sp are, and its size */
#define PTREGS_BP 32
#define PTREGS_IP 128
#define PTREGS_SP 152
#define PTREGS_SIZE 168

struct snap_scan {
	const char *vars[SNAP_MAX_VARS];
	size_t nvars;
	bool changed;
	bool report;		/* the last pass: errors said */
};

static bool is_snap_ustack(const struct lang_node *n)
{
	if ((n->kind != LANG_N_BUILTIN && n->kind != LANG_N_CALL) || strcmp(n->name, "ustack"))
		return false;
	for (size_t i = 0; i < n->n; i++)
		if (n->list[i]->kind == LANG_N_IDENT && !strcmp(n->list[i]->name, "fp"))
			return false;
	return true;
}

static bool snap_expr(const struct snap_scan *sc, const struct lang_node *n)
{
	if (!n)
		return false;
	if (is_snap_ustack(n))
		return true;
	if (n->kind == LANG_N_VAR) {
		for (size_t i = 0; i < sc->nvars; i++)
			if (!strcmp(sc->vars[i], n->name))
				return true;
		return false;
	}
	if (n->kind == LANG_N_TUPLE) {
		for (size_t i = 0; i < n->n; i++)
			if (snap_expr(sc, n->list[i]))
				return true;
	}
	return false;
}

/* Marks the maps keyed by a table-unwound ustack; an error where such a
 * stack would be stored as a map's value. */
static void snap_walk(struct lang_cg *cg, struct snap_scan *sc, const struct lang_node *n)
{
	if (!n)
		return;
	if (is_snap_ustack(n))
		cg->snap_used = true;
	if (n->kind == LANG_N_ASSIGN && n->a && n->a->kind == LANG_N_VAR && snap_expr(sc, n->b) &&
	    !snap_expr(sc, n->a) && sc->nvars < SNAP_MAX_VARS) {
		sc->vars[sc->nvars++] = n->a->name;
		sc->changed = true;
	}
	if (sc->report && n->kind == LANG_N_ASSIGN && n->a && n->a->kind == LANG_N_MAP &&
	    snap_expr(sc, n->b))
		lang_errorf(cg->prog, n->b->pos, "a ustack unwound in user space cannot be a map's "
			    "value (only a key); use ustack(fp)");
	if (n->kind == LANG_N_MAP) {
		for (size_t i = 0; i < n->n; i++)
			if (snap_expr(sc, n->list[i]))
				for (size_t k = 0; k < cg->nmaps; k++)
					if (cg->maps[k].role == LANG_CGM_USER &&
					    !strcmp(cg->maps[k].m->name, n->name) && !cg->maps[k].uagg) {
						cg->maps[k].uagg = true;
						sc->changed = true;
					}
	}
	snap_walk(cg, sc, n->a);
	snap_walk(cg, sc, n->b);
	snap_walk(cg, sc, n->c);
	for (size_t i = 0; i < n->n; i++)
		snap_walk(cg, sc, n->list[i]);
}

static void snap_scan(struct lang_cg *cg)
{
	struct snap_scan sc = { .nvars = 0 };

	for (int pass = 0; pass < 2 * SNAP_MAX_VARS; pass++) {
		sc.changed = false;
		for (const struct lang_probe *p = cg->prog->probes; p; p = p->next) {
			snap_walk(cg, &sc, p->pred);
			snap_walk(cg, &sc, p->body);
		}
		if (!sc.changed)
			break;
	}
	sc.report = true;
	for (const struct lang_probe *p = cg->prog->probes; p; p = p->next)
		snap_walk(cg, &sc, p->body);
	/* the BPF map of a runtime-aggregated map is never written */
	for (size_t k = 0; k < cg->nmaps; k++)
		if (cg->maps[k].uagg)
			cg->maps[k].max_entries = 1;
}

struct lang_cg *lang_cg_new(struct lang_prog *prog, const struct lang_cg_opts *o)
{
	struct lang_cg *cg = calloc(1, sizeof(*cg));
	const struct lang_config *c;
	size_t errs = prog->nerrors;
	unsigned maxkeys;

	if (!cg)
		return NULL;
	cg->prog = prog;
	cg->o = *o;
	cg->ringbuf = cg->state = cg->lost = cg->full = cg->stacks = cg->sysentry = -1;
	cg->print_maps_on_exit = true;
	if (!cg->o.max_strlen)
		cg->o.max_strlen = 64;
	if (!cg->o.max_map_keys)
		cg->o.max_map_keys = 4096;
	if (!cg->o.ringbuf_size)
		cg->o.ringbuf_size = LANG_CG_RINGBUF_SIZE;
	if ((c = config_find(prog, "max_strlen")) && c->value->kind == LANG_N_INT)
		cg->o.max_strlen = (unsigned)c->value->num;
	if ((c = config_find(prog, "perf_rb_pages")) && c->value->kind == LANG_N_INT) {
		/* the ring buffer's size: a power of two of pages */
		uint64_t pages = c->value->num;

		if (pages < 1 || pages > 65536 || (pages & (pages - 1))) {
			lang_errorf(prog, c->pos, "perf_rb_pages must be a power of two from 1 to 65536");
			pages = 1;
		}
		cg->o.ringbuf_size = (uint32_t)(pages * 4096);
	}
	if ((c = config_find(prog, "max_map_keys")) && c->value->kind == LANG_N_INT)
		cg->o.max_map_keys = (unsigned)c->value->num;
	if ((c = config_find(prog, "print_maps_on_exit")))
		cg->print_maps_on_exit = c->value->kind == LANG_N_INT ? c->value->num != 0 :
			c->value->kind == LANG_N_IDENT && !strcmp(c->value->name, "true");
	if (cg->o.max_strlen < 1 || cg->o.max_strlen > LANG_CG_MAX_STRLEN) {
		c = config_find(prog, "max_strlen");
		lang_errorf(prog, c ? c->pos : (struct lang_pos){ 1, 1 },
			    "max_strlen must be from 1 to %u", LANG_CG_MAX_STRLEN);
		free(cg);
		return NULL;
	}
	cg->strlen = (cg->o.max_strlen + 7) & ~7u;
	maxkeys = cg->o.max_map_keys ? cg->o.max_map_keys : 1;

	cg->ringbuf = add_map(cg, &(struct lang_cg_map){ .role = LANG_CGM_RINGBUF,
		.type = BPF_MAP_TYPE_RINGBUF, .max_entries = cg->o.ringbuf_size, .name = "ringbuf" });
	cg->state = add_map(cg, &(struct lang_cg_map){ .role = LANG_CGM_STATE,
		.type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1,
		.name = "state" });
	/* LOST and FULL get their sizes once every program is known: the
	 * runtime reads max_entries from progs/maps */
	cg->lost = add_map(cg, &(struct lang_cg_map){ .role = LANG_CGM_LOST,
		.type = BPF_MAP_TYPE_PERCPU_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1,
		.name = "lost" });
	cg->full = add_map(cg, &(struct lang_cg_map){ .role = LANG_CGM_FULL,
		.type = BPF_MAP_TYPE_PERCPU_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1,
		.name = "full" });
	for (struct lang_map *m = prog->maps; m; m = m->next) {
		struct lang_cg_map cm = { .role = LANG_CGM_USER, .m = m, .max_entries = maxkeys };
		const struct lang_node *agg = NULL;

		for (const struct lang_probe *p = prog->probes; p && !agg; p = p->next)
			agg = find_agg(p->body, m->name);
		snprintf(cm.name, sizeof(cm.name), "%s", m->name[1] ? m->name + 1 : "_");
		cm.key = (struct lang_type){ LANG_K_TUPLE, m->nkeys > 0 ? (size_t)m->nkeys : 0, m->keys };
		cm.key_size = m->nkeys > 0 ? lang_cg_size(cg, &cm.key) : 8;
		cm.value_size = lang_cg_size(cg, &m->value);
		switch (m->value.kind) {
		case LANG_K_COUNT: case LANG_K_SUM: case LANG_K_MIN: case LANG_K_MAX:
		case LANG_K_AVG: case LANG_K_STATS:
			cm.type = BPF_MAP_TYPE_PERCPU_HASH;
			break;
		case LANG_K_HIST:
			cm.type = BPF_MAP_TYPE_PERCPU_HASH;
			if (agg && agg->n > 1)
				cm.hist_k = (uint32_t)lit_int(cg, agg->list[1]);
			if (cm.hist_k > LANG_CG_MAX_HIST_K) {
				lang_errorf(prog, agg->list[1]->pos, "hist()'s second argument must be from 0 to %d",
					    LANG_CG_MAX_HIST_K);
				cm.hist_k = 0;
			}
			cm.nbuckets = hist_buckets(cm.hist_k);
			cm.value_size = cm.nbuckets * 8;
			break;
		case LANG_K_LHIST:
			cm.type = BPF_MAP_TYPE_PERCPU_HASH;
			if (agg && agg->n == 4) {
				cm.lmin = lit_int(cg, agg->list[1]);
				cm.lmax = lit_int(cg, agg->list[2]);
				cm.lstep = lit_int(cg, agg->list[3]);
			}
			if (cm.lstep <= 0 || cm.lmax <= cm.lmin || (cm.lmax - cm.lmin) / cm.lstep > 1000) {
				lang_errorf(prog, agg ? agg->pos : m->pos,
					    "lhist(): min < max and 0 < step, with at most 1000 buckets");
				cm.lstep = 1, cm.lmin = 0, cm.lmax = 1;
			}
			cm.nbuckets = (uint32_t)((cm.lmax - cm.lmin) / cm.lstep + 2);
			cm.value_size = cm.nbuckets * 8;
			break;
		default:
			cm.type = BPF_MAP_TYPE_HASH;
		}
		cm.key_size = cm.key_size ? cm.key_size : 8;
		if (add_map(cg, &cm) < 0) {
			lang_cg_free(cg);
			return NULL;
		}
	}
	{
		size_t nuser = 0;

		for (size_t i = 0; i < cg->nmaps; i++)
			nuser += cg->maps[i].role == LANG_CGM_USER;
		cg->maps[cg->full].max_entries = nuser ? (uint32_t)cg->nmaps : 1;
	}
	snap_scan(cg);
	if (cg->snap_used && !o->ringbuf_size && !config_find(prog, "perf_rb_pages"))
		cg->o.ringbuf_size = LANG_CG_SNAP_RINGBUF_SIZE;
	if (prog->nerrors > errs) {
		lang_cg_free(cg);
		return NULL;
	}
	return cg;
}

void lang_cg_free(struct lang_cg *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->nprogs; i++) {
		insn_free(&cg->progs[i].code);
		free(cg->progs[i].funcs);
		free(cg->progs[i].func_types);
	}
	for (size_t i = 0; i < cg->nsites; i++)
		free(cg->sites[i].args);
	free(cg->progs);
	free(cg->sites);
	free(cg->maps);
	free(cg);
}

/* reg = the map (its index until lang_cg_patch_fds()) */
static void ld_map(struct gen *g, int reg, int map)
{
	insn_ld_map(g->b, reg, map);
}

/* ---- variables ------------------------------------------------------ */

static struct cg_var *var_find(struct gen *g, const char *name)
{
	for (struct cg_var *v = g->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static struct cg_var *var_new(struct gen *g, const struct lang_node *n, const struct lang_type *t,
			      bool is_signed)
{
	struct cg_var *v = calloc(1, sizeof(*v));

	if (!v) {
		gerr(g, n->pos, "out of memory");
		return NULL;
	}
	v->name = n->name;
	v->depth = g->scope;
	v->type = *t;
	v->is_signed = is_signed;
	if (is_int(t->kind) && g->nstack_vars < NSTACK_VARS) {
		v->on_stack = true;
		v->off = FP_VAR0 - 8 * g->nstack_vars++;
	} else {
		uint32_t size = lang_cg_size(g->cg, t);

		v->off = (int32_t)g->var_size;
		g->var_size += (size + 7) & ~7u;
		if (g->var_size + g->tmp_max > LANG_CG_SCRATCH_MAX)
			gerr(g, n->pos, "the variables need more than %u bytes of scratch memory",
			     LANG_CG_SCRATCH_MAX);
	}
	v->next = g->vars;
	g->vars = v;
	return v;
}

static void scope_enter(struct gen *g)
{
	g->scope++;
}

static void scope_leave(struct gen *g)
{
	g->scope--;
	while (g->vars && g->vars->depth > g->scope) {
		struct cg_var *v = g->vars;

		g->vars = v->next;
		free(v);
	}
}

/* reg = the variable's address (non-integers, or integers in scratch) */
static void var_addr(struct gen *g, const struct cg_var *v, int reg)
{
	E(I_LDX(BPF_DW, reg, BPF_REG_10, FP_VARS));
	if (v->off)
		E(I_ALU64_IMM(BPF_ADD, reg, v->off));
}

/* ---- signedness ------------------------------------------------------ */

static bool is_signed_expr(struct gen *g, const struct lang_node *n);

static bool cast_signed(const char *name)
{
	return strncmp(name, "uint", 4) != 0;
}

static bool is_signed_expr(struct gen *g, const struct lang_node *n)
{
	switch (n->kind) {
	case LANG_N_INT:
		return n->num <= INT64_MAX;
	case LANG_N_VAR: {
		struct cg_var *v = var_find(g, n->name);
		return v ? v->is_signed : true;
	}
	case LANG_N_MAP:
		return n->type.kind != LANG_K_COUNT;
	case LANG_N_BUILTIN: {
		struct lang_field_access acc;

		/* usdt: argN signed as its note says */
		if (g->pt && g->pt->field && g->pt->at && g->pt->at->provider == LANG_P_USDT &&
		    !strncmp(n->name, "arg", 3) && isdigit((unsigned char)n->name[3]) &&
		    !g->pt->field(g->pt->ctx, NULL, (unsigned)atoi(n->name + 3), &acc))
			return acc.is_signed;
		if (strcmp(n->name, "retval"))
			return false;
		if (g->pt && g->pt->field && !g->pt->field(g->pt->ctx, "retval", 0, &acc))
			return acc.kind != LANG_ACC_INT || acc.is_signed;
		return true;
	}
	case LANG_N_FIELD: {
		struct lang_field_access acc;

		if (n->deref.size)
			return n->deref.is_signed;
		if (g->pt && g->pt->field && !g->pt->field(g->pt->ctx, n->name, 0, &acc))
			return acc.is_signed;
		return false;
	}
	case LANG_N_CAST:
		return !strchr(n->name, '*') && cast_signed(n->name);
	case LANG_N_UNARY:
		if (n->op == LANG_TOK_STAR)
			return n->deref.is_signed;
		return n->op == LANG_TOK_MINUS || n->op == LANG_TOK_NOT ? true :
		       is_signed_expr(g, n->a);
	case LANG_N_BINARY:
		switch (n->op) {
		case LANG_TOK_EQ: case LANG_TOK_NE: case LANG_TOK_LT: case LANG_TOK_LE:
		case LANG_TOK_GT: case LANG_TOK_GE: case LANG_TOK_LAND: case LANG_TOK_LOR:
			return true;
		case LANG_TOK_SHL: case LANG_TOK_SHR:
			return is_signed_expr(g, n->a);
		default:
			return is_signed_expr(g, n->a) && is_signed_expr(g, n->b);
		}
	case LANG_N_TERNARY:
		return is_signed_expr(g, n->b) && is_signed_expr(g, n->c);
	case LANG_N_CALL:
		return false;
	default:
		return true;
	}
}

/* ---- expressions ---------------------------------------------------- */

static void gen_expr(struct gen *g, const struct lang_node *n);
static void gen_stmt(struct gen *g, const struct lang_node *n);

static void push_const(struct gen *g, struct lang_pos pos, uint64_t v)
{
	int d = vpush(g, pos);

	if (d < NREGS) {
		insn_mov64(g->b, BPF_REG_6 + d, v);
		return;
	}
	insn_mov64(g->b, BPF_REG_0, v);
	vset(g, d, BPF_REG_0);
}

/* A string literal into a new temporary (truncated to max_strlen). */
static void push_str(struct gen *g, struct lang_pos pos, const char *s, size_t len)
{
	uint32_t size = g->cg->strlen;

	if (len > g->cg->o.max_strlen - 1)
		len = g->cg->o.max_strlen - 1;
	push_tmp(g, size, pos, true);
	/* r1 is the buffer */
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = 0;

		memcpy(&w, s + i, len - i < 8 ? len - i : 8);
		if (!w)
			continue;
		insn_mov64(g->b, BPF_REG_2, w);
		E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_2, (int16_t)i));
	}
}

/* Calls a helper with no arguments and pushes r0. */
static void push_call0(struct gen *g, struct lang_pos pos, int helper)
{
	int d;

	E(I_CALL(helper));
	d = vpush(g, pos);
	vset(g, d, BPF_REG_0);
}

/* Pushes a USDT argument (LANG_ACC_USDT, sym/usdt.h): a constant, a
 * register of the pt_regs at ctx, or user memory at register + index *
 * scale + displacement; truncated to its size, extended by its sign. */
static void gen_usdt_arg(struct gen *g, const struct usdt_arg *a, struct lang_pos pos)
{
	unsigned size = a->size;
	int d;

	if (a->kind == USDT_ARG_CONST) {
		uint64_t v = (uint64_t)a->value;
		unsigned sh = 64 - 8 * size;

		if (size < 8)
			v = a->is_signed ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
		push_const(g, pos, v);
		return;
	}
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_CTX));
	if (a->kind == USDT_ARG_REG) {
		E(I_LDX(BPF_DW, BPF_REG_0, BPF_REG_1, a->reg));
		if (a->reg_shift)
			E(I_ALU64_IMM(BPF_RSH, BPF_REG_0, a->reg_shift));
		if (a->reg_size < size)
			size = a->reg_size;
	} else {
		uint32_t off = tmp_alloc(g, 8, pos);

		if (a->reg != USDT_REG_NONE)
			E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, a->reg));
		else
			E(I_MOV64_IMM(BPF_REG_3, 0));
		if (a->index != USDT_REG_NONE) {
			E(I_LDX(BPF_DW, BPF_REG_4, BPF_REG_1, a->index));
			if (a->scale > 1)
				E(I_ALU64_IMM(BPF_LSH, BPF_REG_4, a->scale == 2 ? 1 : a->scale == 4 ? 2 : 3));
			E(I_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_4));
		}
		if (a->value >= INT32_MIN && a->value <= INT32_MAX) {
			if (a->value)
				E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)a->value));
		} else {
			insn_mov64(g->b, BPF_REG_4, (uint64_t)a->value);
			E(I_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_4));
		}
		/* a failed read leaves zeroes */
		tmp_ptr(g, BPF_REG_1, off);
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)size));
		E(I_CALL(BPF_FUNC_probe_read_user));
		tmp_ptr(g, BPF_REG_1, off);
		E(I_LDX(size == 8 ? BPF_DW : size == 4 ? BPF_W : size == 2 ? BPF_H : BPF_B,
			BPF_REG_0, BPF_REG_1, 0));
	}
	if (size < 8) {
		if (a->is_signed)
			E(I_MOVSX64(BPF_REG_0, BPF_REG_0, (int16_t)(size * 8)));
		else if (size == 4)
			E(I_MOV32_REG(BPF_REG_0, BPF_REG_0));
		else
			E(I_ALU64_IMM(BPF_AND, BPF_REG_0, size == 1 ? 0xff : 0xffff));
	}
	d = vpush(g, pos);
	vset(g, d, BPF_REG_0);
}

/* reg's low size bytes, zero-extended to 64 bits. */
static void emit_zext(struct gen *g, int reg, uint32_t size)
{
	if (size == 4)
		E(I_MOV32_REG(reg, reg));
	else if (size < 4)
		E(I_ALU64_IMM(BPF_AND, reg, size == 1 ? 0xff : 0xffff));
}

/* Pushes the value an access describes (lang/provider.h). */
static void gen_access(struct gen *g, const struct lang_field_access *acc, struct lang_pos pos,
		       const char *what)
{
	int sz, d;

	switch (acc->kind) {
	case LANG_ACC_INT:
	case LANG_ACC_PTR:
	case LANG_ACC_STR_PTR:
		sz = acc->base == LANG_BASE_REGS || acc->size == 8 ? BPF_DW : acc->size == 4 ? BPF_W :
		     acc->size == 2 ? BPF_H : BPF_B;
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, acc->base == LANG_BASE_SAVED ? FP_VARS : FP_CTX));
		E(I_LDX(sz, BPF_REG_0, BPF_REG_1, (int16_t)acc->offset));
		if (acc->kind == LANG_ACC_INT && acc->is_signed && acc->size < 8)
			E(I_MOVSX64(BPF_REG_0, BPF_REG_0, (int16_t)(acc->size * 8)));
		else if (acc->kind == LANG_ACC_INT && sz == BPF_DW && acc->size < 8)
			/* a register's low bytes: the rest is undefined (x86-64 ABI) */
			emit_zext(g, BPF_REG_0, acc->size);
		d = vpush(g, pos);
		vset(g, d, BPF_REG_0);
		return;
	case LANG_ACC_STR_ARRAY: {
		uint32_t len = acc->size < g->cg->o.max_strlen - 1 ? acc->size : g->cg->o.max_strlen - 1;

		push_tmp(g, g->cg->strlen, pos, true);
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)len));
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, FP_CTX));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)acc->offset));
		E(I_CALL(BPF_FUNC_probe_read_kernel));
		return;
	}
	case LANG_ACC_STR_DATALOC: {
		int ok1 = insn_label(g->b), ok2 = insn_label(g->b);

		push_tmp(g, g->cg->strlen, pos, true);
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, FP_CTX));
		E(I_LDX(BPF_W, BPF_REG_2, BPF_REG_3, (int16_t)acc->offset));
		E(I_MOV64_REG(BPF_REG_4, BPF_REG_2));
		E(I_ALU64_IMM(BPF_AND, BPF_REG_4, 0xffff));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_4));
		E(I_ALU64_IMM(BPF_RSH, BPF_REG_2, 16));
		insn_jmp_imm(g->b, BPF_JGE, BPF_REG_2, 1, ok1);
		E(I_MOV64_IMM(BPF_REG_2, 1));
		insn_bind(g->b, ok1);
		insn_jmp_imm(g->b, BPF_JLE, BPF_REG_2, (int32_t)g->cg->o.max_strlen, ok2);
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)g->cg->o.max_strlen));
		insn_bind(g->b, ok2);
		E(I_CALL(BPF_FUNC_probe_read_kernel_str));
		return;
	}
	case LANG_ACC_USDT:
		gen_usdt_arg(g, &acc->usdt, pos);
		return;
	case LANG_ACC_USTR:
		/* a user string pointer: read as a string */
		push_tmp(g, g->cg->strlen, pos, true);
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, acc->base == LANG_BASE_SAVED ? FP_VARS : FP_CTX));
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_3, (int16_t)acc->offset));
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)g->cg->o.max_strlen));
		E(I_CALL(BPF_FUNC_probe_read_user_str));
		return;
	default:
		gerr(g, pos, "%s is not a value (an array or a struct): index it or name a field", what);
		push_const(g, pos, 0);
	}
}

/* ---- syscall probes (lang/provider.h: struct lang_sys_point) -------- */

/* The return probe's prologue, after the scratch lookup: the program runs
 * at sys_enter_EVENT and sys_exit_EVENT both.  At entry it saves the time
 * and the arguments (struct lang_sys_saved, built at the start of the
 * variables) keyed by (pid_tgid, this program) and ends; at exit it takes
 * them back into the variables' first bytes (LANG_BASE_SAVED) and deletes
 * them, or ends when there are none (the call entered before the probe was
 * attached, or its entry could not be saved: counted as lost). */
static void sys_prologue(struct gen *g)
{
	int at_exit = insn_label(g->b), ok = insn_label(g->b);
	const int32_t key = (int32_t)offsetof(struct lang_sys_saved, key_tid);

	if (g->cg->sysentry < 0) {
		g->cg->sysentry = add_map(g->cg, &(struct lang_cg_map){ .role = LANG_CGM_SYSENTRY,
			.type = BPF_MAP_TYPE_HASH, .key_size = 16,
			.value_size = LANG_SYS_SAVED_VALUE, .max_entries = 16384,
			.name = "sysentry" });
		if (g->cg->sysentry < 0) {
			gerr(g, g->probe->pos, "out of memory");
			return;
		}
	}
	/* the key, both ways */
	E(I_CALL(BPF_FUNC_get_current_pid_tgid));
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_VARS));
	E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_0, key));
	E(I_ST(BPF_DW, BPF_REG_1, key + 8, g->pidx));
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_CTX));
	E(I_CALL(BPF_FUNC_get_attach_cookie));
	insn_jmp_imm(g->b, BPF_JNE, BPF_REG_0, LANG_SYS_COOKIE_ENTRY, at_exit);
	/* entry: save and end */
	E(I_CALL(BPF_FUNC_ktime_get_ns));
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_VARS));
	E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)offsetof(struct lang_sys_saved, args)));
	E(I_MOV64_IMM(BPF_REG_2, 48));
	E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, FP_CTX));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)LANG_SYS_ARG_OFF(0)));
	E(I_CALL(BPF_FUNC_probe_read_kernel));
	ld_map(g, BPF_REG_1, g->cg->sysentry);
	E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, FP_VARS));
	E(I_MOV64_REG(BPF_REG_2, BPF_REG_3));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, key));
	E(I_MOV64_IMM(BPF_REG_4, BPF_ANY));
	E(I_CALL(BPF_FUNC_map_update_elem));
	insn_jmp_imm(g->b, BPF_JSGE, BPF_REG_0, 0, g->out);
	/* lost[prog]++ (the key's u32 at key + 8 is the program's index) */
	ld_map(g, BPF_REG_1, g->cg->lost);
	E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, key + 8));
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, g->out);
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
	insn_ja(g->b, g->out);
	/* exit: take the entry back */
	insn_bind(g->b, at_exit);
	ld_map(g, BPF_REG_1, g->cg->sysentry);
	E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, key));
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JNE, BPF_REG_0, 0, ok);
	insn_ja(g->b, g->out);
	insn_bind(g->b, ok);
	E(I_MOV64_REG(BPF_REG_3, BPF_REG_0));
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_VARS));
	emit_copy(g, BPF_REG_1, 0, BPF_REG_3, 0, LANG_SYS_SAVED_VALUE);
	ld_map(g, BPF_REG_1, g->cg->sysentry);
	E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, key));
	E(I_CALL(BPF_FUNC_map_delete_elem));
	/* ret */
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_VARS));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)offsetof(struct lang_sys_saved, ret)));
	E(I_MOV64_IMM(BPF_REG_2, 8));
	E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, FP_CTX));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, LANG_SYS_RET_OFF));
	E(I_CALL(BPF_FUNC_probe_read_kernel));
}

static bool call_captured(const struct sc_arg_spec *as)
{
	switch (as->cap) {
	case SC_CAP_PATH: case SC_CAP_STR: case SC_CAP_BUF_OUT:
		return true;
	case SC_CAP_BUF_IN:
		return as->len_arg < SC_ARGS;
	case SC_CAP_STRUCT_IN: case SC_CAP_STRUCT_OUT:
		return as->size && as->size <= LANG_REC_CALL_CAP;
	case SC_CAP_ARRAY_IN: case SC_CAP_ARRAY_INOUT:
		return as->len_arg < SC_ARGS && as->size && as->size <= LANG_REC_CALL_CAP;
	case SC_CAP_ARRAY_OUT:
		return as->size && as->size <= LANG_REC_CALL_CAP;
	default:
		return false;
	}
}

uint32_t lang_cg_call_array_max(const struct sc_arg_spec *as)
{
	uint32_t n = as->size ? LANG_REC_CALL_CAP / as->size : 0;

	return n < SC_ARRAY_MAX ? n : SC_ARRAY_MAX;
}

int lang_cg_call_slot(const struct sc_spec *spec, int arg)
{
	int slot = 0;

	if (arg < 0 || arg >= SC_ARGS || !call_captured(&spec->args[arg]))
		return -1;
	for (int i = 0; i < arg; i++)
		slot += call_captured(&spec->args[i]);
	return slot;
}

uint32_t lang_cg_call_size(const struct sc_spec *spec)
{
	uint32_t n = 0;

	for (int i = 0; i < SC_ARGS; i++)
		n += call_captured(&spec->args[i]);
	return (uint32_t)sizeof(struct lang_rec_call) + n * LANG_REC_CALL_CAP;
}

/* reg = the saved argument i (return probes) */
static void sys_saved_arg(struct gen *g, int reg, int i)
{
	E(I_LDX(BPF_DW, reg, BPF_REG_10, FP_VARS));
	E(I_LDX(BPF_DW, reg, reg, (int16_t)offsetof(struct lang_sys_saved, args[i])));
}

/* r2 = min(r2, limit), unsigned */
static void clamp_r2(struct gen *g, uint32_t limit)
{
	int ok = insn_label(g->b);

	insn_jmp_imm(g->b, BPF_JLE, BPF_REG_2, (int32_t)limit, ok);
	E(I_MOV64_IMM(BPF_REG_2, (int32_t)limit));
	insn_bind(g->b, ok);
}

/* `call` as a struct lang_rec_call at temporary off: the call's header,
 * then each argument the decoders capture (path, string, buffer, struct
 * kinds; others are shown as their value), read at exit. */
static void gen_call_rec(struct gen *g, uint32_t off)
{
	const struct lang_sys_point *sp = g->pt->sys;
	const uint32_t strsize = sp->strsize;

	tmp_ptr(g, BPF_REG_1, off);
	E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
	emit_copy(g, BPF_REG_1, (int32_t)offsetof(struct lang_rec_call, enter_ns), BPF_REG_2, 0, 8);
	emit_copy(g, BPF_REG_1, (int32_t)offsetof(struct lang_rec_call, args), BPF_REG_2,
		  (int32_t)offsetof(struct lang_sys_saved, args), 48);
	E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
	E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_2, (int16_t)offsetof(struct lang_sys_saved, ret)));
	E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_2, (int16_t)offsetof(struct lang_rec_call, ret)));
	E(I_ST(BPF_W, BPF_REG_1, (int16_t)offsetof(struct lang_rec_call, nr), sp->nr));
	E(I_CALL(BPF_FUNC_ktime_get_ns));
	tmp_ptr(g, BPF_REG_1, off);
	E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_0, (int16_t)offsetof(struct lang_rec_call, exit_ns)));
	E(I_CALL(BPF_FUNC_get_current_pid_tgid));
	tmp_ptr(g, BPF_REG_1, off);
	E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_0, (int16_t)offsetof(struct lang_rec_call, tid)));
	tmp_ptr(g, BPF_REG_1, off + (uint32_t)offsetof(struct lang_rec_call, comm));
	E(I_MOV64_IMM(BPF_REG_2, 16));
	E(I_CALL(BPF_FUNC_get_current_comm));
	for (int i = 0; i < LANG_REC_CALL_ARGS; i++) {
		const struct sc_arg_spec *as = &sp->spec->args[i];
		int slot = lang_cg_call_slot(sp->spec, i);
		uint32_t data = off + (uint32_t)sizeof(struct lang_rec_call) +
				(uint32_t)(slot < 0 ? 0 : slot) * LANG_REC_CALL_CAP;
		int skip = insn_label(g->b);
		int helper = BPF_FUNC_probe_read_user;
		bool fixed = as->len_arg >= SC_ARGS;

		if (slot < 0)
			continue;
		switch (as->cap) {
		case SC_CAP_PATH:
		case SC_CAP_STR:
			helper = BPF_FUNC_probe_read_user_str;
			E(I_MOV64_IMM(BPF_REG_2, as->cap == SC_CAP_PATH || strsize + 2 > LANG_REC_CALL_CAP ?
				      LANG_REC_CALL_CAP : (int32_t)strsize + 2));
			break;
		case SC_CAP_BUF_IN:
			if (fixed)
				continue;
			sys_saved_arg(g, BPF_REG_2, as->len_arg);
			clamp_r2(g, as->size && as->size < LANG_REC_CALL_CAP ? as->size :
				 strsize < LANG_REC_CALL_CAP ? strsize : LANG_REC_CALL_CAP);
			break;
		case SC_CAP_BUF_OUT:
			/* ret > 0 bytes, at most args[len_arg] */
			E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
			E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_2, (int16_t)offsetof(struct lang_sys_saved, ret)));
			insn_jmp_imm(g->b, BPF_JSLE, BPF_REG_2, 0, skip);
			if (!fixed) {
				int le = insn_label(g->b);

				sys_saved_arg(g, BPF_REG_3, as->len_arg);
				insn_jmp_reg(g->b, BPF_JLE, BPF_REG_2, BPF_REG_3, le);
				E(I_MOV64_REG(BPF_REG_2, BPF_REG_3));
				insn_bind(g->b, le);
			}
			clamp_r2(g, as->size && as->size < LANG_REC_CALL_CAP ? as->size :
				 strsize < LANG_REC_CALL_CAP ? strsize : LANG_REC_CALL_CAP);
			break;
		case SC_CAP_ARRAY_IN:
		case SC_CAP_ARRAY_INOUT:
		case SC_CAP_ARRAY_OUT:
			/* count elements (a u32 argument; ret for an output array),
			 * at most lang_cg_call_array_max(), of size bytes; an
			 * in-out array read once, at return */
			if (as->cap == SC_CAP_ARRAY_OUT) {
				E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
				E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_2,
					(int16_t)offsetof(struct lang_sys_saved, ret)));
				insn_jmp_imm(g->b, BPF_JSLE, BPF_REG_2, 0, skip);
				if (!fixed) {
					int le = insn_label(g->b);

					sys_saved_arg(g, BPF_REG_3, as->len_arg);
					E(I_MOV32_REG(BPF_REG_3, BPF_REG_3));
					insn_jmp_reg(g->b, BPF_JLE, BPF_REG_2, BPF_REG_3, le);
					E(I_MOV64_REG(BPF_REG_2, BPF_REG_3));
					insn_bind(g->b, le);
				}
			} else {
				sys_saved_arg(g, BPF_REG_2, as->len_arg);
				E(I_MOV32_REG(BPF_REG_2, BPF_REG_2));
			}
			clamp_r2(g, lang_cg_call_array_max(as));
			E(I_ALU64_IMM(BPF_MUL, BPF_REG_2, as->size));
			break;
		case SC_CAP_STRUCT_IN:
		case SC_CAP_STRUCT_OUT:
			if (!as->size || as->size > LANG_REC_CALL_CAP)
				continue;
			if (as->cap == SC_CAP_STRUCT_OUT) {
				E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, FP_VARS));
				E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_2, (int16_t)offsetof(struct lang_sys_saved, ret)));
				insn_jmp_imm(g->b, BPF_JSLT, BPF_REG_2, 0, skip);
			}
			E(I_MOV64_IMM(BPF_REG_2, as->size));
			break;
		default:
			continue;
		}
		tmp_ptr(g, BPF_REG_1, data);
		sys_saved_arg(g, BPF_REG_3, i);
		E(I_CALL(helper));
		tmp_ptr(g, BPF_REG_1, off);
		E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_0, (int16_t)offsetof(struct lang_rec_call, rc[i])));
		insn_bind(g->b, skip);
	}
}

static void gen_builtin(struct gen *g, const struct lang_node *n)
{
	const char *name = n->name;
	int d;

	if (!strcmp(name, "pid") || !strcmp(name, "tid")) {
		E(I_CALL(BPF_FUNC_get_current_pid_tgid));
		if (name[0] == 'p')
			E(I_ALU64_IMM(BPF_RSH, BPF_REG_0, 32));
		else
			E(I_MOV32_REG(BPF_REG_0, BPF_REG_0));
		d = vpush(g, n->pos);
		vset(g, d, BPF_REG_0);
	} else if (!strcmp(name, "uid") || !strcmp(name, "gid")) {
		E(I_CALL(BPF_FUNC_get_current_uid_gid));
		if (name[0] == 'g')
			E(I_ALU64_IMM(BPF_RSH, BPF_REG_0, 32));
		else
			E(I_MOV32_REG(BPF_REG_0, BPF_REG_0));
		d = vpush(g, n->pos);
		vset(g, d, BPF_REG_0);
	} else if (!strcmp(name, "nsecs")) {
		push_call0(g, n->pos, BPF_FUNC_ktime_get_ns);
	} else if (!strcmp(name, "elapsed")) {
		E(I_CALL(BPF_FUNC_ktime_get_ns));
		insn_mov64(g->b, BPF_REG_1, g->cg->o.start_ns);
		E(I_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_1));
		d = vpush(g, n->pos);
		vset(g, d, BPF_REG_0);
	} else if (!strcmp(name, "cpu")) {
		push_call0(g, n->pos, BPF_FUNC_get_smp_processor_id);
	} else if (!strcmp(name, "numaid")) {
		push_call0(g, n->pos, BPF_FUNC_get_numa_node_id);
	} else if (!strcmp(name, "rand")) {
		push_call0(g, n->pos, BPF_FUNC_get_prandom_u32);
	} else if (!strcmp(name, "jiffies")) {
		push_call0(g, n->pos, BPF_FUNC_jiffies64);
	} else if (!strcmp(name, "cgroup")) {
		push_call0(g, n->pos, BPF_FUNC_get_current_cgroup_id);
	} else if (!strcmp(name, "curtask")) {
		push_call0(g, n->pos, BPF_FUNC_get_current_task);
	} else if (!strcmp(name, "ncpus")) {
		push_const(g, n->pos, g->cg->o.ncpus);
	} else if (!strcmp(name, "cpid")) {
		push_const(g, n->pos, g->cg->o.cpid);
	} else if (!strcmp(name, "comm")) {
		push_tmp(g, g->cg->strlen, n->pos, true);
		/* r1 = the buffer */
		E(I_MOV64_IMM(BPF_REG_2, 16));
		E(I_CALL(BPF_FUNC_get_current_comm));
	} else if (!strcmp(name, "probe")) {
		const char *s = g->pt && g->pt->name ? g->pt->name : "";

		if (strlen(s) < g->cg->o.max_strlen) {
			push_str(g, n->pos, s, strlen(s));
		} else {
			/* longer than a string: "\1P" and the program's index,
			 * which the runtime names in full (one program per point) */
			char tag[8] = { 1, 'P' };

			memcpy(tag + 2, &g->pidx, 4);
			push_str(g, n->pos, tag, 6);
		}
	} else if (!strcmp(name, "func")) {
		const char *s = g->pt ? (g->pt->func ? g->pt->func : g->pt->name) : "";
		push_str(g, n->pos, s ? s : "", s ? strlen(s) : 0);
	} else if (!strcmp(name, "kstack") || !strcmp(name, "ustack")) {
		goto stack;
	} else if (!strcmp(name, "duration") && g->pt && g->pt->sys && g->pt->sys->ret) {
		/* ns since the entry */
		E(I_CALL(BPF_FUNC_ktime_get_ns));
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_VARS));
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, (int16_t)offsetof(struct lang_sys_saved, enter_ns)));
		E(I_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_1));
		d = vpush(g, n->pos);
		vset(g, d, BPF_REG_0);
	} else if (!strcmp(name, "call")) {
		gerr(g, n->pos, "call is a line to print: use it as an argument of printf() or print()");
		push_const(g, n->pos, 0);
	} else if (!strcmp(name, "retval") || !strncmp(name, "arg", 3)) {
		struct lang_field_access acc;
		unsigned idx = name[0] == 'a' ? (unsigned)atoi(name + 3) : 0;
		int e = -ENOENT;

		if (g->pt && g->pt->field)
			e = g->pt->field(g->pt->ctx, name[0] == 'r' ? "retval" : NULL, idx, &acc);
		if (e) {
			gerr(g, n->pos, e == -ENOENT ? "%s: this probe has no %s" :
			     "%s: %s cannot be read (its operand is not understood)",
			     g->pt && g->pt->name ? g->pt->name : "?", name);
			push_const(g, n->pos, 0);
			return;
		}
		gen_access(g, &acc, n->pos, name);
	} else {
		gerr(g, n->pos, "%s is not supported by the code generator yet", name);
		push_const(g, n->pos, 0);
	}
	return;
stack: {
		/* struct lang_rec_stack */
		bool user = name[0] == 'u';
		int mode = 0, depth = 0;

		for (size_t i = 0; i < n->n; i++) {
			const struct lang_node *a = n->list[i];

			if (a->kind == LANG_N_IDENT)
				mode = !strcmp(a->name, "perf") ? 1 : !strcmp(a->name, "raw") ? 2 : 0;
			/* ustack(fp): the kernel's frame-pointer walk, printed as bpftrace */
			else
				depth = (int)lit_int(g->cg, a);
		}
		if (user && is_snap_ustack(n)) {
			/* unwound by the runtime from the record's snapshot:
			 * a placeholder (id -1) the runtime fills */
			push_tmp(g, sizeof(struct lang_rec_stack), n->pos, false);
			d = vreg(g, vtop(g), BPF_REG_1);
			E(I_ST(BPF_DW, d, 0, -1));
			E(I_ST(BPF_W, d, 8, 0));
			E(I_ST(BPF_B, d, 12, 1));
			E(I_ST(BPF_B, d, 13, mode | LANG_STACK_SNAP));
			E(I_ST(BPF_H, d, 14, depth));
			return;
		}
		if (g->cg->stacks < 0) {
			g->cg->stacks = add_map(g->cg, &(struct lang_cg_map){ .role = LANG_CGM_STACKS,
				.type = BPF_MAP_TYPE_STACK_TRACE, .key_size = 4,
				.value_size = 127 * 8, .max_entries = 4096, .name = "stacks" });
			if (g->cg->stacks < 0) {
				gerr(g, n->pos, "out of memory");
				return;
			}
		}
		push_tmp(g, sizeof(struct lang_rec_stack), n->pos, false);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_CTX));
		ld_map(g, BPF_REG_2, g->cg->stacks);
		E(I_MOV64_IMM(BPF_REG_3, user ? BPF_F_USER_STACK : 0));
		E(I_CALL(BPF_FUNC_get_stackid));
		E(I_MOVSX64(BPF_REG_0, BPF_REG_0, 32));
		d = vreg(g, vtop(g), BPF_REG_1);
		E(I_STX(BPF_DW, d, BPF_REG_0, 0));
		E(I_CALL(BPF_FUNC_get_current_pid_tgid));
		E(I_ALU64_IMM(BPF_RSH, BPF_REG_0, 32));
		d = vreg(g, vtop(g), BPF_REG_1);
		E(I_STX(BPF_W, d, BPF_REG_0, 8));
		E(I_ST(BPF_B, d, 12, user));
		E(I_ST(BPF_B, d, 13, mode));
		E(I_ST(BPF_H, d, 14, depth));
	}
}

/* r2 = pointer to the key of map reference n (built in a temporary) */
static void gen_key(struct gen *g, const struct lang_node *n, const struct lang_cg_map *m)
{
	uint32_t off = tmp_alloc(g, m->key_size, n->pos), at = 0;

	tmp_ptr(g, BPF_REG_1, off);
	emit_zero(g, BPF_REG_1, 0, m->key_size);
	for (size_t i = 0; i < n->n; i++) {
		const struct lang_node *k = n->list[i];
		uint32_t size = lang_cg_size(g->cg, &k->type);
		int r;

		if (k->kind == LANG_N_BUILTIN && !strcmp(k->name, "comm")) {
			/* straight into the zeroed key */
			tmp_ptr(g, BPF_REG_1, off + at);
			E(I_MOV64_IMM(BPF_REG_2, 16));
			E(I_CALL(BPF_FUNC_get_current_comm));
			at += size;
			continue;
		}
		gen_expr(g, k);
		tmp_ptr(g, BPF_REG_1, off);
		r = vreg(g, vtop(g), BPF_REG_2);
		if (is_int(k->type.kind))
			E(I_STX(BPF_DW, BPF_REG_1, r, (int16_t)at));
		else
			emit_copy(g, BPF_REG_1, (int32_t)at, r, 0, size);
		vpop(g);
		at += size;
	}
	tmp_ptr(g, BPF_REG_2, off);
}

/* A map keyed by a table-unwound ustack lives in the runtime. */
static void uagg_refuse(struct gen *g, const struct lang_node *n)
{
	gerr(g, n->pos, "%s is keyed by a ustack unwound in user space and aggregated there: "
	     "a probe can print, count and aggregate it but not read it back; "
	     "key it by ustack(fp) to read its values", n->name);
}

/* A map lookup of n's key: r0 = the value or NULL.  Returns the map. */
static const struct lang_cg_map *gen_lookup(struct gen *g, const struct lang_node *n)
{
	int mi = map_index(g, n->name);

	if (mi < 0) {
		gerr(g, n->pos, "%s: no such map", n->name);
		return NULL;
	}
	gen_key(g, n, &g->cg->maps[mi]);
	ld_map(g, BPF_REG_1, mi);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	return &g->cg->maps[mi];
}

/* @m[k] as a value: an integer, or a copy of its bytes. */
static void gen_map_read(struct gen *g, const struct lang_node *n)
{
	const struct lang_cg_map *m;
	int d, none = insn_label(g->b), done = insn_label(g->b);
	int mi = map_index(g, n->name);

	if (mi >= 0 && g->cg->maps[mi].uagg) {
		uagg_refuse(g, n);
		push_const(g, n->pos, 0);
		return;
	}

	if (is_int(n->type.kind)) {
		m = gen_lookup(g, n);
		if (!m)
			return;
		d = vpush(g, n->pos);
		E(I_MOV64_IMM(BPF_REG_1, 0));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, none);
		if (n->type.kind == LANG_K_AVG) {
			int zero = insn_label(g->b);

			E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_0, 0));
			insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_2, 0, zero);
			E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 8));
			E(I_SDIV_REG(BPF_DIV, BPF_REG_1, BPF_REG_2));
			insn_bind(g->b, zero);
		} else {
			E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		}
		insn_bind(g->b, none);
		vset(g, d, BPF_REG_1);
		insn_bind(g->b, done);
		return;
	}
	{
		uint32_t size = lang_cg_size(g->cg, &n->type);
		uint32_t off = tmp_alloc(g, size, n->pos);

		m = gen_lookup(g, n);
		if (!m)
			return;
		E(I_MOV64_REG(BPF_REG_3, BPF_REG_0));
		tmp_ptr(g, BPF_REG_1, off);
		d = vpush(g, n->pos);
		vset(g, d, BPF_REG_1);
		emit_zero(g, BPF_REG_1, 0, size > 256 ? 0 : size);
		if (size > 256) {
			/* probe_read zeroes on failure: copy from the value or 0 */
			E(I_MOV64_IMM(BPF_REG_2, (int32_t)size));
			E(I_CALL(BPF_FUNC_probe_read_kernel));
		} else {
			insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_3, 0, none);
			emit_copy(g, BPF_REG_1, 0, BPF_REG_3, 0, size);
			insn_bind(g->b, none);
		}
		insn_bind(g->b, done);
	}
}

/* Compares two strings (pointers at the top two entries): pushes 1 when
 * they are equal (or differ, for !=). */
static void gen_str_eq(struct gen *g, const struct lang_node *n)
{
	int ne = insn_label(g->b), done = insn_label(g->b);
	int a, b, d;
	bool want_eq = n->op == LANG_TOK_EQ;

	b = vreg(g, vtop(g), BPF_REG_2);
	if (b != BPF_REG_2)
		E(I_MOV64_REG(BPF_REG_2, b));
	vpop(g);
	a = vreg(g, vtop(g), BPF_REG_1);
	if (a != BPF_REG_1)
		E(I_MOV64_REG(BPF_REG_1, a));
	for (uint32_t i = 0; i < g->cg->strlen; i += 8) {
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, (int16_t)i));
		E(I_LDX(BPF_DW, BPF_REG_4, BPF_REG_2, (int16_t)i));
		insn_jmp_reg(g->b, BPF_JNE, BPF_REG_3, BPF_REG_4, ne);
	}
	E(I_MOV64_IMM(BPF_REG_0, want_eq));
	insn_ja(g->b, done);
	insn_bind(g->b, ne);
	E(I_MOV64_IMM(BPF_REG_0, !want_eq));
	insn_bind(g->b, done);
	d = vtop(g);
	vset(g, d, BPF_REG_0);
}

/* The integer operation op on the top two entries, into the lower one. */
static void gen_arith(struct gen *g, int op, bool sgn, struct lang_pos pos)
{
	int rb, ra, d;
	int code;

	rb = vreg(g, vtop(g), BPF_REG_2);
	if (rb != BPF_REG_2)
		E(I_MOV64_REG(BPF_REG_2, rb));
	vpop(g);
	d = vtop(g);
	ra = vreg(g, d, BPF_REG_1);
	switch (op) {
	case LANG_TOK_PLUS: case LANG_TOK_ADD_ASSIGN: code = BPF_ADD; break;
	case LANG_TOK_MINUS: case LANG_TOK_SUB_ASSIGN: case LANG_TOK_DEC: code = BPF_SUB; break;
	case LANG_TOK_STAR: case LANG_TOK_MUL_ASSIGN: code = BPF_MUL; break;
	case LANG_TOK_SLASH: case LANG_TOK_DIV_ASSIGN: code = BPF_DIV; break;
	case LANG_TOK_PERCENT: case LANG_TOK_MOD_ASSIGN: code = BPF_MOD; break;
	case LANG_TOK_AMP: case LANG_TOK_AND_ASSIGN: code = BPF_AND; break;
	case LANG_TOK_PIPE: case LANG_TOK_OR_ASSIGN: code = BPF_OR; break;
	case LANG_TOK_CARET: case LANG_TOK_XOR_ASSIGN: code = BPF_XOR; break;
	case LANG_TOK_SHL: case LANG_TOK_SHL_ASSIGN: code = BPF_LSH; break;
	case LANG_TOK_SHR: case LANG_TOK_SHR_ASSIGN: code = sgn ? BPF_ARSH : BPF_RSH; break;
	case LANG_TOK_INC: code = BPF_ADD; break;
	default:
		gerr(g, pos, "operator '%s' is not supported", lang_tok_name(op));
		return;
	}
	if (code == BPF_DIV || code == BPF_MOD) {
		/* x / 0 and x % 0 are 0, as in bpftrace */
		int nz = insn_label(g->b), done = insn_label(g->b);

		insn_jmp_imm(g->b, BPF_JNE, BPF_REG_2, 0, nz);
		E(I_MOV64_IMM(ra, 0));
		insn_ja(g->b, done);
		insn_bind(g->b, nz);
		if (sgn)
			E(I_SDIV_REG(code, ra, BPF_REG_2));
		else
			E(I_ALU64_REG(code, ra, BPF_REG_2));
		insn_bind(g->b, done);
	} else {
		E(I_ALU64_REG(code, ra, BPF_REG_2));
	}
	if (ra != BPF_REG_6 + d)
		vset(g, d, ra);
}

static int jcc(int op, bool sgn)
{
	switch (op) {
	case LANG_TOK_EQ: return BPF_JEQ;
	case LANG_TOK_NE: return BPF_JNE;
	case LANG_TOK_LT: return sgn ? BPF_JSLT : BPF_JLT;
	case LANG_TOK_LE: return sgn ? BPF_JSLE : BPF_JLE;
	case LANG_TOK_GT: return sgn ? BPF_JSGT : BPF_JGT;
	default: return sgn ? BPF_JSGE : BPF_JGE;
	}
}

static void gen_binary(struct gen *g, const struct lang_node *n)
{
	int op = n->op, d;

	if (op == LANG_TOK_LAND || op == LANG_TOK_LOR) {
		int shortcut = insn_label(g->b), done = insn_label(g->b);
		int r;

		gen_expr(g, n->a);
		d = vtop(g);
		r = vreg(g, d, BPF_REG_1);
		insn_jmp_imm(g->b, op == LANG_TOK_LAND ? BPF_JEQ : BPF_JNE, r, 0, shortcut);
		vpop(g);
		gen_expr(g, n->b);
		r = vreg(g, d, BPF_REG_1);
		insn_jmp_imm(g->b, op == LANG_TOK_LAND ? BPF_JEQ : BPF_JNE, r, 0, shortcut);
		E(I_MOV64_IMM(BPF_REG_0, op == LANG_TOK_LAND));
		insn_ja(g->b, done);
		insn_bind(g->b, shortcut);
		E(I_MOV64_IMM(BPF_REG_0, op != LANG_TOK_LAND));
		insn_bind(g->b, done);
		vset(g, d, BPF_REG_0);
		return;
	}
	gen_expr(g, n->a);
	gen_expr(g, n->b);
	if ((op == LANG_TOK_EQ || op == LANG_TOK_NE) && n->a->type.kind == LANG_K_STR) {
		gen_str_eq(g, n);
		return;
	}
	switch (op) {
	case LANG_TOK_EQ: case LANG_TOK_NE: case LANG_TOK_LT: case LANG_TOK_LE:
	case LANG_TOK_GT: case LANG_TOK_GE: {
		bool sgn = is_signed_expr(g, n->a) && is_signed_expr(g, n->b);
		int yes = insn_label(g->b), ra, rb;

		rb = vreg(g, vtop(g), BPF_REG_2);
		vpop(g);
		d = vtop(g);
		ra = vreg(g, d, BPF_REG_1);
		E(I_MOV64_IMM(BPF_REG_0, 1));
		insn_jmp_reg(g->b, jcc(op, sgn), ra, rb, yes);
		E(I_MOV64_IMM(BPF_REG_0, 0));
		insn_bind(g->b, yes);
		vset(g, d, BPF_REG_0);
		return;
	}
	default:
		gen_arith(g, op, is_signed_expr(g, n), n->pos);
	}
}

/* Memory of this probe's kind: user memory in uprobes and usdt, else the
 * kernel's. */
static bool probe_reads_user(const struct gen *g)
{
	enum lang_provider p = g->pt && g->pt->at ? g->pt->at->provider : LANG_P_BEGIN;

	return p == LANG_P_UPROBE || p == LANG_P_URETPROBE || p == LANG_P_USDT;
}

/* The entry on top of the stack is an address: it becomes what d says
 * is there (an integer of d->size bytes, extended by its sign, or a
 * string of a char array), read with bpf_probe_read_{user,kernel} so a
 * bad or NULL address gives 0 (the helper zeroes its destination when
 * the read fails). */
static void emit_deref(struct gen *g, const struct lang_deref *d, bool user, struct lang_pos pos)
{
	int helper = user ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel;
	int top = vtop(g), r = vreg(g, top, BPF_REG_3);
	uint32_t off;

	if (r != BPF_REG_3)
		E(I_MOV64_REG(BPF_REG_3, r));
	if (d->off)
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)d->off));
	if (d->str) {
		uint32_t len = d->size < g->cg->o.max_strlen - 1 ? d->size : g->cg->o.max_strlen - 1;

		off = tmp_alloc(g, g->cg->strlen, pos);
		tmp_ptr(g, BPF_REG_1, off);
		emit_zero_keep(g, off, g->cg->strlen);
		if (g->cg->strlen > 256) {
			/* the source pointer again: the zeroing's call took r3 */
			r = vreg(g, top, BPF_REG_3);
			if (r != BPF_REG_3)
				E(I_MOV64_REG(BPF_REG_3, r));
			if (d->off)
				E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)d->off));
		}
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)len));
		E(I_CALL(helper));
		tmp_ptr(g, BPF_REG_1, off);
		/* a full array has no NUL of its own */
		E(I_ST(BPF_B, BPF_REG_1, (int16_t)len, 0));
		vset(g, top, BPF_REG_1);
		return;
	}
	off = tmp_alloc(g, 8, pos);
	tmp_ptr(g, BPF_REG_1, off);
	E(I_MOV64_IMM(BPF_REG_2, (int32_t)d->size));
	E(I_CALL(helper));
	tmp_ptr(g, BPF_REG_1, off);
	E(I_LDX(d->size == 8 ? BPF_DW : d->size == 4 ? BPF_W : d->size == 2 ? BPF_H : BPF_B,
		BPF_REG_0, BPF_REG_1, 0));
	if (d->is_signed && d->size < 8)
		E(I_MOVSX64(BPF_REG_0, BPF_REG_0, (int16_t)(d->size * 8)));
	vset(g, top, BPF_REG_0);
}

/* Pushes the address a record-typed member chain (p->rec, r.rec) names. */
static void gen_member_base(struct gen *g, const struct lang_node *n)
{
	const struct lang_node *a = n;

	/* record.f.g: the first non-record node holds the pointer */
	while (a->kind == LANG_N_FIELD && a->op == LANG_TOK_DOT && a->a->kind == LANG_N_FIELD &&
	       a->a->deref.record)
		a = a->a;
	gen_expr(g, a->kind == LANG_N_FIELD ? a->a : a);
}

static void gen_unary(struct gen *g, const struct lang_node *n)
{
	int d, r;

	if (n->op == LANG_TOK_STAR && n->deref.size) {
		gen_expr(g, n->a);
		emit_deref(g, &n->deref, probe_reads_user(g), n->pos);
		return;
	}
	if (n->op == LANG_TOK_STAR || n->op == LANG_TOK_AMP) {
		gerr(g, n->pos, "pointers ('%s') are not supported by the code generator yet",
		     lang_tok_name(n->op));
		push_const(g, n->pos, 0);
		return;
	}
	gen_expr(g, n->a);
	d = vtop(g);
	r = vreg(g, d, BPF_REG_1);
	switch (n->op) {
	case LANG_TOK_MINUS:
		E(I_NEG64(r));
		break;
	case LANG_TOK_TILDE:
		E(I_ALU64_IMM(BPF_XOR, r, -1));
		break;
	case LANG_TOK_NOT: {
		int z = insn_label(g->b);

		E(I_MOV64_IMM(BPF_REG_0, 1));
		insn_jmp_imm(g->b, BPF_JEQ, r, 0, z);
		E(I_MOV64_IMM(BPF_REG_0, 0));
		insn_bind(g->b, z);
		r = BPF_REG_0;
		break;
	}
	default:
		break;
	}
	vset(g, d, r);
}

static void gen_cast(struct gen *g, const struct lang_node *n)
{
	int d, r;
	const char *t = n->name;

	gen_expr(g, n->a);
	d = vtop(g);
	r = vreg(g, d, BPF_REG_1);
	if (!strcmp(t, "uint8") || !strcmp(t, "u8"))
		E(I_ALU64_IMM(BPF_AND, r, 0xff));
	else if (!strcmp(t, "uint16") || !strcmp(t, "u16"))
		E(I_ALU64_IMM(BPF_AND, r, 0xffff));
	else if (!strcmp(t, "uint32") || !strcmp(t, "u32"))
		E(I_MOV32_REG(r, r));
	else if (!strcmp(t, "int8") || !strcmp(t, "s8"))
		E(I_MOVSX64(r, r, 8));
	else if (!strcmp(t, "int16") || !strcmp(t, "s16"))
		E(I_MOVSX64(r, r, 16));
	else if (!strcmp(t, "int32") || !strcmp(t, "s32"))
		E(I_MOVSX64(r, r, 32));
	else if (strcmp(t, "int64") && strcmp(t, "uint64") && strcmp(t, "s64") && strcmp(t, "u64") &&
		 !strchr(t, '*'))	/* a pointer: the same 64 bits */
		gerr(g, n->pos, "cast to '%s' is not supported by the code generator yet", t);
	vset(g, d, r);
}

/* args.FIELD, p->member, record.member, tuple.N */
static void gen_field(struct gen *g, const struct lang_node *n)
{
	struct lang_field_access acc;
	int d, e = -ENOENT;

	if (n->deref.size) {
		if (n->deref.record) {
			gerr(g, n->pos, "%s is a struct: read one of its members", n->name);
			push_const(g, n->pos, 0);
			return;
		}
		/* a kernel struct's member (BTF): n->deref.off from the pointer */
		gen_member_base(g, n);
		emit_deref(g, &n->deref, false, n->pos);
		return;
	}

	if (n->a->kind == LANG_N_BUILTIN && !strcmp(n->a->name, "args")) {
		if (g->pt && g->pt->field)
			e = g->pt->field(g->pt->ctx, n->name, 0, &acc);
		if (e) {
			gerr(g, n->pos, "%s has no argument '%s'",
			     g->pt && g->pt->name ? g->pt->name : "this probe", n->name);
			push_const(g, n->pos, 0);
			return;
		}
		gen_access(g, &acc, n->pos, n->name);
		return;
	}
	if (n->a->type.kind == LANG_K_TUPLE && n->op == LANG_TOK_DOT) {
		/* tuple.N: the element's bytes (or value) */
		uint32_t at = 0;
		const struct lang_type *t = &n->a->type;
		int r;

		gen_expr(g, n->a);
		for (uint64_t i = 0; i < n->num && i < t->nelems; i++)
			at += lang_cg_size(g->cg, &t->elems[i]);
		d = vtop(g);
		r = vreg(g, d, BPF_REG_1);
		if (is_int(n->type.kind))
			E(I_LDX(BPF_DW, r, r, (int16_t)at));
		else if (at)
			E(I_ALU64_IMM(BPF_ADD, r, (int32_t)at));
		vset(g, d, r);
		return;
	}
	gerr(g, n->pos, "field '%s' is not supported by the code generator yet", n->name);
	push_const(g, n->pos, 0);
}

/* A record (header + args) built in a temporary: returns its offset;
 * the caller writes args at site->args[i].off. */
static int new_site(struct gen *g, const struct lang_cg_site *s)
{
	int i = add_site(g->cg, s);

	if (i < 0)
		gerr(g, s->pos, "out of memory");
	return i;
}

static uint32_t rec_begin(struct gen *g, int site, uint32_t size, struct lang_pos pos)
{
	uint32_t off = tmp_alloc(g, size, pos);

	tmp_ptr(g, BPF_REG_1, off);
	E(I_ST(BPF_W, BPF_REG_1, 0, site));
	E(I_ST(BPF_W, BPF_REG_1, 4, g->pidx));
	return off;
}

/* Sends the record at temporary off; a refusal is counted in `lost`. */
static void rec_send(struct gen *g, uint32_t off, uint32_t size)
{
	int ok = insn_label(g->b);

	ld_map(g, BPF_REG_1, g->cg->ringbuf);
	tmp_ptr(g, BPF_REG_2, off);
	E(I_MOV64_IMM(BPF_REG_3, (int32_t)size));
	E(I_MOV64_IMM(BPF_REG_4, 0));
	E(I_CALL(BPF_FUNC_ringbuf_output));
	insn_jmp_imm(g->b, BPF_JSGE, BPF_REG_0, 0, ok);
	/* lost[prog]++ : the key in the record's header (its prog field) */
	ld_map(g, BPF_REG_1, g->cg->lost);
	tmp_ptr(g, BPF_REG_2, off + 4);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, ok);
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
	insn_bind(g->b, ok);
}

/* Sends the record at temporary off (size bytes) followed by a snapshot
 * of the interrupted user context (rec.h: struct lang_rec_snap, then the
 * stack bytes from the user sp up, page by page until LANG_SNAP_BYTES or
 * the first page that cannot be read), built in the program's snapshot
 * buffer.  The user registers are those saved at the kernel's entry
 * (task_pt_regs), the same in every probe type: a uprobe's trap, a
 * profile tick's interrupt from user mode, a tracepoint's system call.
 * A refusal of the ring buffer is counted in `lost`. */
static void snap_send(struct gen *g, uint32_t off, uint32_t size, struct lang_pos pos)
{
	const uint32_t H = (size + 7) & ~7u, D = H + sizeof(struct lang_rec_snap);
	const int32_t want = LANG_SNAP_BYTES, page = LANG_SNAP_PAGE;
	int lost = insn_label(g->b), copied = insn_label(g->b), end = insn_label(g->b);
	uint32_t koff;
	int db, dc, dn, r;

	if (g->p->snap < 0 || H > SNAP_REC_MAX) {
		gerr(g, pos, "this record is too large to carry a user stack (%u bytes, at most %u)",
		     size, SNAP_REC_MAX);
		return;
	}
	koff = tmp_alloc(g, 8, pos);
	db = vpush(g, pos);	/* the buffer */
	dc = vpush(g, pos);	/* bytes copied */
	dn = vpush(g, pos);	/* this page's bytes */
	tmp_ptr(g, BPF_REG_2, koff);
	E(I_ST(BPF_DW, BPF_REG_2, 0, 0));
	ld_map(g, BPF_REG_1, g->p->snap);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, lost);
	vset(g, db, BPF_REG_0);
	/* the record */
	E(I_MOV64_REG(BPF_REG_1, BPF_REG_0));
	tmp_ptr(g, BPF_REG_2, off);
	emit_copy(g, BPF_REG_1, 0, BPF_REG_2, 0, H);
	/* the user registers: pt_regs read into the data area, then picked */
	E(I_CALL(BPF_FUNC_get_current_task_btf));
	E(I_MOV64_REG(BPF_REG_1, BPF_REG_0));
	E(I_CALL(BPF_FUNC_task_pt_regs));
	E(I_MOV64_REG(BPF_REG_3, BPF_REG_0));
	r = vreg(g, db, BPF_REG_1);
	E(I_MOV64_REG(BPF_REG_1, r));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)D));
	E(I_MOV64_IMM(BPF_REG_2, PTREGS_SIZE));
	E(I_CALL(BPF_FUNC_probe_read_kernel));
	r = vreg(g, db, BPF_REG_1);
	E(I_LDX(BPF_DW, BPF_REG_2, r, (int16_t)(D + PTREGS_IP)));
	E(I_STX(BPF_DW, r, BPF_REG_2, (int16_t)(H + offsetof(struct lang_rec_snap, ip))));
	E(I_LDX(BPF_DW, BPF_REG_2, r, (int16_t)(D + PTREGS_SP)));
	E(I_STX(BPF_DW, r, BPF_REG_2, (int16_t)(H + offsetof(struct lang_rec_snap, sp))));
	E(I_LDX(BPF_DW, BPF_REG_2, r, (int16_t)(D + PTREGS_BP)));
	E(I_STX(BPF_DW, r, BPF_REG_2, (int16_t)(H + offsetof(struct lang_rec_snap, bp))));
	E(I_CALL(BPF_FUNC_ktime_get_ns));
	r = vreg(g, db, BPF_REG_1);
	E(I_STX(BPF_DW, r, BPF_REG_0, (int16_t)(H + offsetof(struct lang_rec_snap, time))));
	E(I_CALL(BPF_FUNC_get_current_pid_tgid));
	r = vreg(g, db, BPF_REG_1);
	E(I_STX(BPF_W, r, BPF_REG_0, (int16_t)(H + offsetof(struct lang_rec_snap, tid))));
	E(I_ALU64_IMM(BPF_RSH, BPF_REG_0, 32));
	E(I_STX(BPF_W, r, BPF_REG_0, (int16_t)(H + offsetof(struct lang_rec_snap, pid))));
	E(I_ST(BPF_DW, r, (int16_t)(H + offsetof(struct lang_rec_snap, size)), 0));
	E(I_MOV64_IMM(BPF_REG_0, 0));
	vset(g, dc, BPF_REG_0);
	/* the stack, a page at a time (the first to the sp's page end): a
	 * read across the stack mapping's end would fail as a whole */
	for (int i = 0; i <= want / page; i++) {
		int le = insn_label(g->b);

		r = vreg(g, db, BPF_REG_1);
		E(I_LDX(BPF_DW, BPF_REG_3, r, (int16_t)(H + offsetof(struct lang_rec_snap, sp))));
		if (i == 0) {
			E(I_MOV64_REG(BPF_REG_2, BPF_REG_3));
			E(I_ALU64_IMM(BPF_AND, BPF_REG_2, page - 1));
			E(I_MOV64_IMM(BPF_REG_4, page));
			E(I_ALU64_REG(BPF_SUB, BPF_REG_4, BPF_REG_2));
		} else {
			E(I_MOV64_IMM(BPF_REG_4, page));
		}
		r = vreg(g, dc, BPF_REG_5);
		E(I_MOV64_IMM(BPF_REG_2, want));
		E(I_ALU64_REG(BPF_SUB, BPF_REG_2, r));
		insn_jmp_reg(g->b, BPF_JLE, BPF_REG_2, BPF_REG_4, le);
		E(I_MOV64_REG(BPF_REG_2, BPF_REG_4));
		insn_bind(g->b, le);
		insn_jmp_imm(g->b, BPF_JGT, BPF_REG_2, page, copied);
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_2, 0, copied);
		vset(g, dn, BPF_REG_2);
		r = vreg(g, dc, BPF_REG_5);
		E(I_ALU64_REG(BPF_ADD, BPF_REG_3, r));
		E(I_MOV64_REG(BPF_REG_0, r));
		r = vreg(g, db, BPF_REG_1);
		E(I_MOV64_REG(BPF_REG_1, r));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)D));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_0));
		E(I_CALL(BPF_FUNC_probe_read_user));
		insn_jmp_imm(g->b, BPF_JNE, BPF_REG_0, 0, copied);
		r = vreg(g, dn, BPF_REG_2);
		E(I_MOV64_REG(BPF_REG_2, r));
		E(I_ALU64_IMM(BPF_AND, BPF_REG_2, 2 * page - 1));
		r = vreg(g, dc, BPF_REG_5);
		E(I_MOV64_REG(BPF_REG_0, r));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2));
		vset(g, dc, BPF_REG_0);
		insn_jmp_imm(g->b, BPF_JGE, BPF_REG_0, want, copied);
	}
	insn_bind(g->b, copied);
	r = vreg(g, dc, BPF_REG_2);
	E(I_MOV64_REG(BPF_REG_2, r));
	{
		int le = insn_label(g->b);

		insn_jmp_imm(g->b, BPF_JLE, BPF_REG_2, want, le);
		E(I_MOV64_IMM(BPF_REG_2, want));
		insn_bind(g->b, le);
	}
	r = vreg(g, db, BPF_REG_1);
	E(I_STX(BPF_W, r, BPF_REG_2, (int16_t)(H + offsetof(struct lang_rec_snap, size))));
	E(I_MOV64_REG(BPF_REG_3, BPF_REG_2));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, (int32_t)D));
	r = vreg(g, db, BPF_REG_2);
	E(I_MOV64_REG(BPF_REG_2, r));
	ld_map(g, BPF_REG_1, g->cg->ringbuf);
	E(I_MOV64_IMM(BPF_REG_4, 0));
	E(I_CALL(BPF_FUNC_ringbuf_output));
	insn_jmp_imm(g->b, BPF_JSGE, BPF_REG_0, 0, end);
	insn_bind(g->b, lost);
	/* lost[prog]++ : the key in the record's header (its prog field) */
	ld_map(g, BPF_REG_1, g->cg->lost);
	tmp_ptr(g, BPF_REG_2, off + 4);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, end);
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
	insn_bind(g->b, end);
	vpop(g);
	vpop(g);
	vpop(g);
}

/* Does a value of type t hold a stack (a record with one carries a
 * snapshot when the program has table-unwound user stacks)? */
static bool type_has_stack(const struct lang_type *t)
{
	if (t->kind == LANG_K_STACK)
		return true;
	for (size_t i = 0; t->kind == LANG_K_TUPLE && i < t->nelems; i++)
		if (type_has_stack(&t->elems[i]))
			return true;
	return false;
}

/* Evaluates args[first..] into a record for a new site of kind. */
static void gen_record(struct gen *g, const struct lang_node *call, enum lang_cg_site_kind kind,
		       size_t first, const char *fmt, size_t fmtlen, int map, uint32_t top,
		       uint32_t div)
{
	struct lang_cg_site s = { .kind = kind, .pos = call->pos, .fmt = fmt, .fmtlen = fmtlen,
				  .map = map, .top = top, .div = div };
	size_t nargs = call->n > first ? call->n - first : 0;
	uint32_t size = sizeof(struct lang_rec_hdr), off;
	int site;

	s.args = calloc(nargs + 1, sizeof(*s.args));
	if (!s.args) {
		gerr(g, call->pos, "out of memory");
		return;
	}
	s.nargs = nargs;
	for (size_t i = 0; i < nargs; i++) {
		const struct lang_node *a = call->list[first + i];

		s.args[i].type = a->type;
		s.args[i].off = size;
		s.args[i].site = -1;
		if (a->kind == LANG_N_BUILTIN && !strcmp(a->name, "call") && g->pt && g->pt->sys) {
			/* the decoders' line, made in user space */
			s.args[i].render = LANG_CG_RENDER_CALL;
			size += lang_cg_call_size(g->pt->sys->spec);
			continue;
		}
		size += lang_cg_size(g->cg, &s.args[i].type);
	}
	s.size = size;
	site = new_site(g, &s);
	if (site < 0) {
		free(s.args);
		return;
	}
	off = rec_begin(g, site, size, call->pos);
	for (size_t i = 0; i < nargs; i++) {
		const struct lang_node *a = call->list[first + i];
		const struct lang_cg_arg *ar = &g->cg->sites[site].args[i];
		int r;

		if (a->type.kind == LANG_K_TIMESTAMP && a->kind == LANG_N_CALL)
			g->cg->sites[site].args[i].site = (int)g->cg->nsites;	/* the next site */
		if (ar->render == LANG_CG_RENDER_CALL) {
			gen_call_rec(g, off + ar->off);
			continue;
		}
		if (a->kind == LANG_N_CALL &&
		    (!strcmp(a->name, "strerror") || !strcmp(a->name, "syscall_name"))) {
			/* the number, named by the runtime */
			g->cg->sites[site].args[i].render = a->name[1] == 't' ?
				LANG_CG_RENDER_STRERROR : LANG_CG_RENDER_SYSCALL;
			gen_expr(g, a->list[0]);
			tmp_ptr(g, BPF_REG_1, off);
			r = vreg(g, vtop(g), BPF_REG_2);
			E(I_STX(BPF_DW, BPF_REG_1, r, (int16_t)ar->off));
			vpop(g);
			continue;
		}
		gen_expr(g, a);
		tmp_ptr(g, BPF_REG_1, off);
		r = vreg(g, vtop(g), BPF_REG_2);
		if (is_int(a->type.kind))
			E(I_STX(BPF_DW, BPF_REG_1, r, (int16_t)ar->off));
		else
			emit_copy(g, BPF_REG_1, (int32_t)ar->off, r, 0,
				  lang_cg_size(g->cg, &a->type));
		vpop(g);
	}
	if (g->cg->snap_used) {
		bool stack = false;

		for (size_t i = 0; i < nargs; i++)
			stack = stack || type_has_stack(&call->list[first + i]->type);
		if (stack) {
			g->cg->sites[site].snap = true;
			snap_send(g, off, size, call->pos);
			return;
		}
	}
	rec_send(g, off, size);
}

/* str(p[, n]) */
static void gen_str(struct gen *g, const struct lang_node *n)
{
	const struct lang_node *a = n->list[0];
	int d, ok = insn_label(g->b), r;
	uint32_t off;
	bool user = true;

	if (a->type.kind == LANG_K_STR) {
		/* a string already: str(s, n) keeps its first n - 1 bytes */
		int64_t keep;

		gen_expr(g, a);
		if (n->n < 2)
			return;
		if (n->list[1]->kind != LANG_N_INT && n->list[1]->kind != LANG_N_PARAM) {
			gerr(g, n->list[1]->pos, "str() of a string takes a literal length");
			return;
		}
		keep = lit_int(g->cg, n->list[1]);
		if (keep < 0)
			keep = 0;
		if ((uint64_t)keep >= g->cg->o.max_strlen)
			return;
		off = tmp_alloc(g, g->cg->strlen, n->pos);
		tmp_ptr(g, BPF_REG_1, off);
		r = vreg(g, vtop(g), BPF_REG_2);
		emit_copy(g, BPF_REG_1, 0, r, 0, g->cg->strlen);
		for (uint32_t i = (uint32_t)keep; i < g->cg->strlen; i++)
			E(I_ST(BPF_B, BPF_REG_1, (int16_t)i, 0));
		vset(g, vtop(g), BPF_REG_1);
		return;
	}
	if (a->kind == LANG_N_FIELD && g->pt && g->pt->field) {
		struct lang_field_access acc;

		if (!g->pt->field(g->pt->ctx, a->name, 0, &acc))
			user = acc.user;
	}
	gen_expr(g, a);			/* the pointer */
	if (n->n > 1)
		gen_expr(g, n->list[1]);
	else
		push_const(g, n->pos, g->cg->o.max_strlen);
	off = tmp_alloc(g, g->cg->strlen, n->pos);
	/* the size with the NUL (str(p, n): n characters), clamped to 1..max_strlen */
	r = vreg(g, vtop(g), BPF_REG_2);
	if (r != BPF_REG_2)
		E(I_MOV64_REG(BPF_REG_2, r));
	if (n->n > 1)
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, 1));
	{
		int small = insn_label(g->b), pos = insn_label(g->b);

		insn_jmp_imm(g->b, BPF_JSGT, BPF_REG_2, 0, pos);
		E(I_MOV64_IMM(BPF_REG_2, 1));
		insn_bind(g->b, pos);
		insn_jmp_imm(g->b, BPF_JLE, BPF_REG_2, (int32_t)g->cg->o.max_strlen, small);
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)g->cg->o.max_strlen));
		insn_bind(g->b, small);
	}
	vset(g, vtop(g), BPF_REG_2);
	tmp_ptr(g, BPF_REG_1, off);
	emit_zero_keep(g, off, g->cg->strlen);
	r = vreg(g, vtop(g), BPF_REG_2);
	if (r != BPF_REG_2)
		E(I_MOV64_REG(BPF_REG_2, r));
	r = vreg(g, vtop(g) - 1, BPF_REG_3);
	if (r != BPF_REG_3)
		E(I_MOV64_REG(BPF_REG_3, r));
	E(I_CALL(user ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_kernel_str));
	if (user) {
		/* not a user address: the kernel's */
		insn_jmp_imm(g->b, BPF_JSGE, BPF_REG_0, 0, ok);
		tmp_ptr(g, BPF_REG_1, off);
		r = vreg(g, vtop(g), BPF_REG_2);
		if (r != BPF_REG_2)
			E(I_MOV64_REG(BPF_REG_2, r));
		r = vreg(g, vtop(g) - 1, BPF_REG_3);
		if (r != BPF_REG_3)
			E(I_MOV64_REG(BPF_REG_3, r));
		E(I_CALL(BPF_FUNC_probe_read_kernel_str));
	}
	insn_bind(g->b, ok);
	vpop(g);
	d = vtop(g);
	tmp_ptr(g, BPF_REG_1, off);
	vset(g, d, BPF_REG_1);
}

/* x86-64 struct pt_regs, as bpftrace names its registers for reg() */
static const char *const pt_regs_names[] = {
	"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx",
	"si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss",
};

/* reg("NAME"): the register saved in ctx, a struct pt_regs in uprobes and
 * kprobes, and at the start of perf_event's struct bpf_perf_event_data
 * (profile, interval, software). */
static void gen_reg(struct gen *g, const struct lang_node *n)
{
	const struct lang_node *a = n->n ? n->list[0] : NULL;
	int d;

	for (size_t i = 0; a && a->kind == LANG_N_STR && i < sizeof(pt_regs_names) / sizeof(pt_regs_names[0]); i++) {
		if (strcmp(a->str, pt_regs_names[i]))
			continue;
		if (!g->pt || (g->pt->type != BPF_PROG_TYPE_KPROBE &&
			       g->pt->type != BPF_PROG_TYPE_PERF_EVENT))
			break;
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, FP_CTX));
		E(I_LDX(BPF_DW, BPF_REG_0, BPF_REG_1, (int16_t)(i * 8)));
		d = vpush(g, n->pos);
		vset(g, d, BPF_REG_0);
		return;
	}
	if (a && a->kind == LANG_N_STR && (!g->pt || (g->pt->type != BPF_PROG_TYPE_KPROBE &&
						      g->pt->type != BPF_PROG_TYPE_PERF_EVENT)))
		gerr(g, n->pos, "reg() reads the registers of uprobe, uretprobe, kprobe, profile, "
		     "interval and software probes, not of %s",
		     g->pt && g->pt->name ? g->pt->name : "this probe");
	else
		gerr(g, n->pos, "reg(\"%s\"): no such register (x86-64: ip, sp, bp, ax, bx, cx, dx, "
		     "si, di, r8..r15, flags, orig_ax, cs, ss)", a && a->str ? a->str : "?");
	push_const(g, n->pos, 0);
}

static unsigned log2_index_emit(struct gen *g, int r, unsigned k);

static void gen_call_value(struct gen *g, const struct lang_node *n)
{
	const char *name = n->name;
	int d, r;

	if (!strcmp(name, "reg")) {
		gen_reg(g, n);
		return;
	}
	if (!strcmp(name, "kstack") || !strcmp(name, "ustack")) {
		gen_builtin(g, n);
	} else if (!strcmp(name, "str")) {
		gen_str(g, n);
	} else if (!strcmp(name, "ksym")) {
		gen_expr(g, n->list[0]);
	} else if (!strcmp(name, "usym")) {
		gen_expr(g, n->list[0]);
		push_tmp(g, 16, n->pos, false);
		r = vreg(g, vtop(g) - 1, BPF_REG_2);
		E(I_STX(BPF_DW, BPF_REG_1, r, 0));
		E(I_CALL(BPF_FUNC_get_current_pid_tgid));
		E(I_ALU64_IMM(BPF_RSH, BPF_REG_0, 32));
		r = vreg(g, vtop(g), BPF_REG_1);
		E(I_STX(BPF_DW, r, BPF_REG_0, 8));
		E(I_MOV64_REG(BPF_REG_0, r));
		vpop(g);
		vset(g, vtop(g), BPF_REG_0);
	} else if (!strcmp(name, "strftime")) {
		const struct lang_node *f = n->list[0];
		int site = new_site(g, &(struct lang_cg_site){ .kind = LANG_CGS_STRFTIME, .pos = n->pos,
			.fmt = f->str, .fmtlen = f->len, .map = -1 });

		gen_expr(g, n->list[1]);
		push_tmp(g, 16, n->pos, false);
		E(I_ST(BPF_DW, BPF_REG_1, 0, site));
		r = vreg(g, vtop(g) - 1, BPF_REG_2);
		E(I_STX(BPF_DW, BPF_REG_1, r, 8));
		vpop(g);
		vset(g, vtop(g), BPF_REG_1);
	} else if (!strcmp(name, "strerror") || !strcmp(name, "syscall_name")) {
		/* a string the runtime writes: "\1E" or "\1S", the number at 8 */
		if (g->cg->strlen < 16) {
			gerr(g, n->pos, "%s() needs max_strlen of at least 9", name);
			push_const(g, n->pos, 0);
			return;
		}
		gen_expr(g, n->list[0]);
		push_tmp(g, g->cg->strlen, n->pos, true);
		E(I_ST(BPF_B, BPF_REG_1, 0, 1));
		E(I_ST(BPF_B, BPF_REG_1, 1, name[1] == 't' ? 'E' : 'S'));
		r = vreg(g, vtop(g) - 1, BPF_REG_2);
		E(I_STX(BPF_DW, BPF_REG_1, r, 8));
		E(I_MOV64_REG(BPF_REG_0, BPF_REG_1));
		vpop(g);
		vset(g, vtop(g), BPF_REG_0);
	} else if (!strcmp(name, "has_key")) {
		const struct lang_node *m = n->list[0];
		struct lang_node ref = *m;
		int mi = map_index(g, m->name), no = insn_label(g->b);

		ref.list = n->list + 1;
		ref.n = n->n - 1;
		if (mi < 0) {
			gerr(g, n->pos, "%s: no such map", m->name);
			return;
		}
		if ((long)ref.n != g->cg->maps[mi].m->nkeys) {
			gerr(g, n->pos, "has_key(): %s has %ld keys", m->name, g->cg->maps[mi].m->nkeys);
			push_const(g, n->pos, 0);
			return;
		}
		gen_key(g, &ref, &g->cg->maps[mi]);
		ld_map(g, BPF_REG_1, mi);
		E(I_CALL(BPF_FUNC_map_lookup_elem));
		d = vpush(g, n->pos);
		E(I_MOV64_IMM(BPF_REG_1, 0));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, no);
		E(I_MOV64_IMM(BPF_REG_1, 1));
		insn_bind(g->b, no);
		vset(g, d, BPF_REG_1);
	} else if (!strcmp(name, "buf")) {
		uint32_t size = 8 + g->cg->strlen;
		int cap = (int)g->cg->o.max_strlen;

		gen_expr(g, n->list[0]);
		if (n->n > 1)
			gen_expr(g, n->list[1]);
		else
			push_const(g, n->pos, (uint64_t)cap);
		r = vreg(g, vtop(g), BPF_REG_2);
		if (r != BPF_REG_2)
			E(I_MOV64_REG(BPF_REG_2, r));
		{
			int ok1 = insn_label(g->b), ok2 = insn_label(g->b);

			insn_jmp_imm(g->b, BPF_JSGT, BPF_REG_2, 0, ok1);
			E(I_MOV64_IMM(BPF_REG_2, 0));
			insn_bind(g->b, ok1);
			insn_jmp_imm(g->b, BPF_JLE, BPF_REG_2, cap, ok2);
			E(I_MOV64_IMM(BPF_REG_2, cap));
			insn_bind(g->b, ok2);
		}
		vset(g, vtop(g), BPF_REG_2);
		push_tmp(g, size, n->pos, true);
		r = vreg(g, vtop(g) - 1, BPF_REG_2);
		E(I_STX(BPF_DW, BPF_REG_1, r, 0));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 8));
		if (r != BPF_REG_2)
			E(I_MOV64_REG(BPF_REG_2, r));
		r = vreg(g, vtop(g) - 2, BPF_REG_3);
		if (r != BPF_REG_3)
			E(I_MOV64_REG(BPF_REG_3, r));
		E(I_CALL(BPF_FUNC_probe_read_kernel));
		r = vreg(g, vtop(g), BPF_REG_1);
		E(I_MOV64_REG(BPF_REG_0, r));
		vpop(g);
		vpop(g);
		vset(g, vtop(g), BPF_REG_0);
	} else {
		gerr(g, n->pos, "%s() is not supported by the code generator yet", name);
		push_const(g, n->pos, 0);
	}
}

static void gen_expr(struct gen *g, const struct lang_node *n)
{
	g->b->cur_pos = n->pos.line << 16 | (n->pos.col & 0xffff);
	if (n->type.kind == LANG_K_EXTERN || n->type.kind == LANG_K_NONE) {
		if (!(n->kind == LANG_N_FIELD && ((g->pt && g->pt->field) || n->deref.size)) &&
		    n->kind != LANG_N_BUILTIN) {
			gerr(g, n->pos, "the type of this expression is not known here");
			push_const(g, n->pos, 0);
			return;
		}
	}
	switch (n->kind) {
	case LANG_N_INT:
		push_const(g, n->pos, n->num);
		return;
	case LANG_N_STR:
		push_str(g, n->pos, n->str, n->len);
		return;
	case LANG_N_PARAM:
		if (n->type.kind == LANG_K_STR) {
			const char *s = n->num <= (uint64_t)g->cg->o.nparams ? g->cg->o.params[n->num - 1] : "";
			push_str(g, n->pos, s, strlen(s));
		} else {
			push_const(g, n->pos, (uint64_t)param_int(g->cg, n->num));
		}
		return;
	case LANG_N_PARAMCOUNT:
		push_const(g, n->pos, (uint64_t)g->cg->o.nparams);
		return;
	case LANG_N_VAR: {
		struct cg_var *v = var_find(g, n->name);
		int d;

		if (!v) {
			gerr(g, n->pos, "undefined variable %s", n->name);
			push_const(g, n->pos, 0);
			return;
		}
		d = vpush(g, n->pos);
		if (v->on_stack) {
			E(I_LDX(BPF_DW, BPF_REG_0, BPF_REG_10, (int16_t)v->off));
		} else {
			var_addr(g, v, BPF_REG_0);
			if (is_int(v->type.kind))
				E(I_LDX(BPF_DW, BPF_REG_0, BPF_REG_0, 0));
		}
		vset(g, d, BPF_REG_0);
		return;
	}
	case LANG_N_MAP:
		gen_map_read(g, n);
		return;
	case LANG_N_BUILTIN:
		gen_builtin(g, n);
		return;
	case LANG_N_CALL:
		gen_call_value(g, n);
		return;
	case LANG_N_FIELD:
		gen_field(g, n);
		return;
	case LANG_N_UNARY:
		gen_unary(g, n);
		return;
	case LANG_N_BINARY:
		gen_binary(g, n);
		return;
	case LANG_N_CAST:
		gen_cast(g, n);
		return;
	case LANG_N_TERNARY: {
		int no = insn_label(g->b), done = insn_label(g->b), d, r;

		gen_expr(g, n->a);
		d = vtop(g);
		r = vreg(g, d, BPF_REG_1);
		vpop(g);
		insn_jmp_imm(g->b, BPF_JEQ, r, 0, no);
		gen_expr(g, n->b);
		vpop(g);
		insn_ja(g->b, done);
		insn_bind(g->b, no);
		gen_expr(g, n->c);
		insn_bind(g->b, done);
		return;
	}
	case LANG_N_TUPLE: {
		uint32_t size = lang_cg_size(g->cg, &n->type), at = 0;
		uint32_t off = push_tmp(g, size, n->pos, false);

		for (size_t i = 0; i < n->n; i++) {
			const struct lang_node *e = n->list[i];
			uint32_t es = lang_cg_size(g->cg, &e->type);
			int r;

			gen_expr(g, e);
			tmp_ptr(g, BPF_REG_1, off);
			r = vreg(g, vtop(g), BPF_REG_2);
			if (is_int(e->type.kind))
				E(I_STX(BPF_DW, BPF_REG_1, r, (int16_t)at));
			else
				emit_copy(g, BPF_REG_1, (int32_t)at, r, 0, es);
			vpop(g);
			at += es;
		}
		return;
	}
	case LANG_N_INCDEC: {
		/* as a statement with its value: lower to an assignment */
		struct lang_node one = { .kind = LANG_N_INT, .pos = n->pos, .num = 1,
					 .type = { .kind = LANG_K_INT } };
		struct lang_node as = { .kind = LANG_N_ASSIGN, .pos = n->pos, .a = n->a, .b = &one,
					.op = n->op == LANG_TOK_INC ? LANG_TOK_ADD_ASSIGN :
					      LANG_TOK_SUB_ASSIGN };

		if (n->num) {	/* postfix: the old value */
			gen_expr(g, n->a);
			gen_stmt(g, &as);
		} else {
			gen_stmt(g, &as);
			gen_expr(g, n->a);
		}
		return;
	}
	default:
		gerr(g, n->pos, "this expression is not supported by the code generator yet");
		push_const(g, n->pos, 0);
	}
}

/* ---- statements ----------------------------------------------------- */

/* Counts a refused map update in full[map]. r0 holds the update's result. */
static void count_full(struct gen *g, int mi, struct lang_pos pos)
{
	int ok = insn_label(g->b);
	uint32_t off;

	insn_jmp_imm(g->b, BPF_JSGE, BPF_REG_0, 0, ok);
	off = tmp_alloc(g, 8, pos);
	tmp_ptr(g, BPF_REG_2, off);
	E(I_ST(BPF_W, BPF_REG_2, 0, mi));
	ld_map(g, BPF_REG_1, g->cg->full);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, ok);
	E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
	insn_bind(g->b, ok);
}

/* map_update(m, key at koff, value at voff (temp offsets)), counted when full */
static void map_update_tmp(struct gen *g, int mi, uint32_t koff, uint32_t voff, int flags,
			   struct lang_pos pos)
{
	ld_map(g, BPF_REG_1, mi);
	tmp_ptr(g, BPF_REG_2, koff);
	tmp_ptr(g, BPF_REG_3, voff);
	E(I_MOV64_IMM(BPF_REG_4, flags));
	E(I_CALL(BPF_FUNC_map_update_elem));
	count_full(g, mi, pos);
}

/* The key of map reference n in a temporary; returns its offset. */
static uint32_t key_tmp(struct gen *g, const struct lang_node *n, const struct lang_cg_map *m)
{
	uint32_t before = g->tmp_cur;

	gen_key(g, n, m);
	/* gen_key allocated the key first */
	return before;
}

/* hist index of r (in place; k the hist's) into r; bpftrace's:
 *   n < 0: 0;  n <= mask: n + 1;  else l = floor(log2 n) - k,
 *   ((l + 1) << k) + ((n >> l) & mask) + 1   with mask = (1 << k) - 1 */
static unsigned log2_index_emit(struct gen *g, int r, unsigned k)
{
	int neg = insn_label(g->b), small = insn_label(g->b), done = insn_label(g->b);
	uint64_t mask = (1ull << k) - 1;

	insn_jmp_imm(g->b, BPF_JSLT, r, 0, neg);
	insn_jmp_imm(g->b, BPF_JLE, r, (int32_t)mask, small);
	/* r3 = floor(log2 r), r4 = r */
	E(I_MOV64_REG(BPF_REG_4, r));
	E(I_MOV64_IMM(BPF_REG_3, 0));
	for (int i = 5; i >= 0; i--) {
		int skip = insn_label(g->b);

		E(I_MOV64_REG(BPF_REG_5, r));
		E(I_ALU64_IMM(BPF_RSH, BPF_REG_5, 1 << i));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_5, 0, skip);
		E(I_MOV64_REG(r, BPF_REG_5));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, 1 << i));
		insn_bind(g->b, skip);
	}
	if (k)
		E(I_ALU64_IMM(BPF_SUB, BPF_REG_3, (int32_t)k));
	/* r = ((l + 1) << k) + ((n0 >> l) & mask) + 1 */
	E(I_MOV64_REG(r, BPF_REG_4));
	E(I_ALU64_REG(BPF_RSH, r, BPF_REG_3));
	E(I_ALU64_IMM(BPF_AND, r, (int32_t)mask));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, 1));
	if (k)
		E(I_ALU64_IMM(BPF_LSH, BPF_REG_3, (int32_t)k));
	E(I_ALU64_REG(BPF_ADD, r, BPF_REG_3));
	E(I_ALU64_IMM(BPF_ADD, r, 1));
	insn_ja(g->b, done);
	insn_bind(g->b, neg);
	E(I_MOV64_IMM(r, 0));
	insn_ja(g->b, done);
	insn_bind(g->b, small);
	E(I_ALU64_IMM(BPF_ADD, r, 1));
	insn_bind(g->b, done);
	return 0;
}

unsigned lang_cg_hist_index(int64_t v, unsigned k)
{
	uint64_t n = (uint64_t)v, mask = (1ull << k) - 1, n0 = n;
	unsigned l = 0;

	if (v < 0)
		return 0;
	if (n <= mask)
		return (unsigned)n + 1;
	for (int i = 5; i >= 0; i--)
		if (n >> (1 << i)) {
			n >>= 1 << i;
			l += 1u << i;
		}
	l -= k;
	return (unsigned)(((uint64_t)(l + 1) << k) + ((n0 >> l) & mask) + 1);
}

unsigned lang_cg_lhist_index(int64_t v, int64_t min, int64_t max, int64_t step)
{
	if (v < min)
		return 0;
	if (v >= max)
		return (unsigned)((max - min) / step + 1);
	return (unsigned)((v - min) / step + 1);
}

/* @m[k...] op= the value on the stack top (popped), for a map the
 * runtime aggregates: a LANG_CGS_UAGG record {key, operand} + snapshot. */
static void uagg_send(struct gen *g, const struct lang_node *lhs, const struct lang_cg_map *m,
		      int mi, struct lang_pos pos)
{
	struct lang_cg_site s = { .kind = LANG_CGS_UAGG, .pos = pos, .map = mi, .snap = true };
	uint32_t ks = m->key_size, size = sizeof(struct lang_rec_hdr) + ks + 8, off, koff;
	int site, r;

	s.args = calloc(2, sizeof(*s.args));
	if (!s.args) {
		gerr(g, pos, "out of memory");
		vpop(g);
		return;
	}
	s.nargs = 2;
	s.args[0] = (struct lang_cg_arg){ .type = m->key, .off = sizeof(struct lang_rec_hdr),
					  .site = -1 };
	s.args[1] = (struct lang_cg_arg){ .type = { .kind = LANG_K_INT },
					  .off = sizeof(struct lang_rec_hdr) + ks, .site = -1 };
	s.size = size;
	site = new_site(g, &s);
	if (site < 0) {
		free(s.args);
		vpop(g);
		return;
	}
	koff = key_tmp(g, lhs, m);
	off = rec_begin(g, site, size, pos);
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, (int32_t)sizeof(struct lang_rec_hdr)));
	tmp_ptr(g, BPF_REG_2, koff);
	emit_copy(g, BPF_REG_1, 0, BPF_REG_2, 0, ks);
	tmp_ptr(g, BPF_REG_1, off);
	r = vreg(g, vtop(g), BPF_REG_2);
	E(I_STX(BPF_DW, BPF_REG_1, r, (int16_t)(sizeof(struct lang_rec_hdr) + ks)));
	vpop(g);
	snap_send(g, off, size, pos);
}

/* @m[k] = aggregation(...) */
static void gen_agg(struct gen *g, const struct lang_node *lhs, const struct lang_node *call)
{
	int mi = map_index(g, lhs->name);
	const struct lang_cg_map *m;
	enum lang_kind k = call->type.kind;
	int found = insn_label(g->b), done = insn_label(g->b);
	uint32_t koff, voff;
	int d, r;

	if (mi < 0) {
		gerr(g, lhs->pos, "%s: no such map", lhs->name);
		return;
	}
	m = &g->cg->maps[mi];
	/* the operand first (it may call helpers), on the expression stack */
	if (k == LANG_K_COUNT)
		push_const(g, call->pos, 1);
	else
		gen_expr(g, call->list[0]);
	if (m->uagg && k != LANG_K_HIST && k != LANG_K_LHIST) {
		uagg_send(g, lhs, m, mi, call->pos);
		return;
	}
	if (k == LANG_K_HIST || k == LANG_K_LHIST) {
		d = vtop(g);
		r = vreg(g, d, BPF_REG_1);
		if (k == LANG_K_HIST) {
			log2_index_emit(g, r, m->hist_k);
		} else {
			int lo = insn_label(g->b), hi = insn_label(g->b), end = insn_label(g->b);

			insn_mov64(g->b, BPF_REG_2, (uint64_t)m->lmin);
			insn_jmp_reg(g->b, BPF_JSLT, r, BPF_REG_2, lo);
			insn_mov64(g->b, BPF_REG_2, (uint64_t)m->lmax);
			insn_jmp_reg(g->b, BPF_JSGE, r, BPF_REG_2, hi);
			insn_mov64(g->b, BPF_REG_2, (uint64_t)m->lmin);
			E(I_ALU64_REG(BPF_SUB, r, BPF_REG_2));
			insn_mov64(g->b, BPF_REG_2, (uint64_t)m->lstep);
			E(I_ALU64_REG(BPF_DIV, r, BPF_REG_2));
			E(I_ALU64_IMM(BPF_ADD, r, 1));
			insn_ja(g->b, end);
			insn_bind(g->b, lo);
			E(I_MOV64_IMM(r, 0));
			insn_ja(g->b, end);
			insn_bind(g->b, hi);
			E(I_MOV64_IMM(r, (int32_t)(m->nbuckets - 1)));
			insn_bind(g->b, end);
		}
		vset(g, d, r);
		if (m->uagg) {
			uagg_send(g, lhs, m, mi, call->pos);
			return;
		}
	}
	koff = key_tmp(g, lhs, m);
	ld_map(g, BPF_REG_1, mi);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JNE, BPF_REG_0, 0, found);
	voff = tmp_alloc(g, m->value_size, call->pos);
	tmp_ptr(g, BPF_REG_1, voff);
	if (k != LANG_K_HIST && k != LANG_K_LHIST) {
		/* a new element: inserted with its first value */
		r = vreg(g, vtop(g), BPF_REG_2);
		switch (k) {
		case LANG_K_MIN: case LANG_K_MAX:
			E(I_STX(BPF_DW, BPF_REG_1, r, 0));
			E(I_ST(BPF_DW, BPF_REG_1, 8, 1));
			break;
		case LANG_K_AVG: case LANG_K_STATS:
			E(I_ST(BPF_DW, BPF_REG_1, 0, 1));
			E(I_STX(BPF_DW, BPF_REG_1, r, 8));
			break;
		default:
			E(I_STX(BPF_DW, BPF_REG_1, r, 0));
		}
		map_update_tmp(g, mi, koff, voff, BPF_NOEXIST, call->pos);
		insn_ja(g->b, done);
		insn_bind(g->b, found);
	} else {
		/* a new histogram: zeroed, inserted, then counted like an old one */
		emit_zero(g, BPF_REG_1, 0, m->value_size);
		map_update_tmp(g, mi, koff, voff, BPF_NOEXIST, call->pos);
		ld_map(g, BPF_REG_1, mi);
		tmp_ptr(g, BPF_REG_2, koff);
		E(I_CALL(BPF_FUNC_map_lookup_elem));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, done);
		insn_bind(g->b, found);
	}
	d = vtop(g);
	r = vreg(g, d, BPF_REG_2);
	switch (k) {
	case LANG_K_COUNT:
	case LANG_K_SUM:
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_1, r));
		E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
		break;
	case LANG_K_MIN:
	case LANG_K_MAX: {
		int set = insn_label(g->b);

		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 8));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_1, 0, set);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		insn_jmp_reg(g->b, k == LANG_K_MIN ? BPF_JSLE : BPF_JSGE, BPF_REG_1, r, done);
		insn_bind(g->b, set);
		E(I_STX(BPF_DW, BPF_REG_0, r, 0));
		E(I_ST(BPF_DW, BPF_REG_0, 8, 1));
		break;
	}
	case LANG_K_AVG:
	case LANG_K_STATS:
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
		E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 8));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_1, r));
		E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 8));
		break;
	case LANG_K_HIST:
	case LANG_K_LHIST: {
		int inr = insn_label(g->b);

		E(I_MOV64_REG(BPF_REG_1, r));
		insn_jmp_imm(g->b, BPF_JLT, BPF_REG_1, (int32_t)m->nbuckets, inr);
		E(I_MOV64_IMM(BPF_REG_1, (int32_t)(m->nbuckets - 1)));
		insn_bind(g->b, inr);
		E(I_ALU64_IMM(BPF_LSH, BPF_REG_1, 3));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1));
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
		E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
		break;
	}
	default:
		gerr(g, call->pos, "%s() is not supported by the code generator yet", call->name);
	}
	insn_bind(g->b, done);
	vpop(g);
}

/* @m[k] op= value on the top of the expression stack (popped). */
static void map_store_top(struct gen *g, const struct lang_node *lhs, int op, bool sgn)
{
	int mi = map_index(g, lhs->name);
	const struct lang_cg_map *m;
	uint32_t koff, voff, size;
	int r;

	if (mi < 0) {
		gerr(g, lhs->pos, "%s: no such map", lhs->name);
		vpop(g);
		return;
	}
	m = &g->cg->maps[mi];
	size = m->value_size;
	if (m->uagg) {
		if (op != LANG_TOK_ASSIGN || !is_int(m->m->value.kind)) {
			uagg_refuse(g, lhs);
			vpop(g);
			return;
		}
		uagg_send(g, lhs, m, mi, lhs->pos);
		return;
	}
	if (op != LANG_TOK_ASSIGN) {
		/* read, combine, write back */
		gen_map_read(g, lhs);
		/* the stack: value, old -> old op value */
		{
			int a = vtop(g), b = a - 1;
			int ra = vreg(g, a, BPF_REG_1), rb = vreg(g, b, BPF_REG_2);

			/* swap so the old value is the left operand */
			E(I_MOV64_REG(BPF_REG_3, ra));
			E(I_MOV64_REG(BPF_REG_4, rb));
			vset(g, b, BPF_REG_3);
			vset(g, a, BPF_REG_4);
		}
		gen_arith(g, op, sgn, lhs->pos);
	}
	koff = key_tmp(g, lhs, m);
	voff = tmp_alloc(g, size, lhs->pos);
	tmp_ptr(g, BPF_REG_1, voff);
	r = vreg(g, vtop(g), BPF_REG_2);
	if (is_int(m->m->value.kind))
		E(I_STX(BPF_DW, BPF_REG_1, r, 0));
	else
		emit_copy(g, BPF_REG_1, 0, r, 0, size);
	vpop(g);
	map_update_tmp(g, mi, koff, voff, BPF_ANY, lhs->pos);
}

static void var_store_top(struct gen *g, const struct lang_node *lhs, int op, bool sgn,
			  const struct lang_type *t)
{
	struct cg_var *v = var_find(g, lhs->name);
	int r;

	if (!v) {
		v = var_new(g, lhs, t, sgn);
		if (!v) {
			vpop(g);
			return;
		}
	}
	if (op != LANG_TOK_ASSIGN) {
		int a = vtop(g), d;

		d = vpush(g, lhs->pos);
		if (v->on_stack) {
			E(I_LDX(BPF_DW, BPF_REG_0, BPF_REG_10, (int16_t)v->off));
		} else {
			var_addr(g, v, BPF_REG_0);
			E(I_LDX(BPF_DW, BPF_REG_0, BPF_REG_0, 0));
		}
		/* old value at d, new at a: swap */
		r = vreg(g, a, BPF_REG_1);
		E(I_MOV64_REG(BPF_REG_3, r));
		vset(g, a, BPF_REG_0);
		vset(g, d, BPF_REG_3);
		gen_arith(g, op, v->is_signed && sgn, lhs->pos);
	}
	r = vreg(g, vtop(g), BPF_REG_2);
	if (v->on_stack) {
		E(I_STX(BPF_DW, BPF_REG_10, r, (int16_t)v->off));
	} else {
		var_addr(g, v, BPF_REG_1);
		if (is_int(v->type.kind))
			E(I_STX(BPF_DW, BPF_REG_1, r, 0));
		else
			emit_copy(g, BPF_REG_1, 0, r, 0, lang_cg_size(g->cg, &v->type));
	}
	vpop(g);
}

/* exit(): the flag set, a record, the probe ends. */
static void gen_exit(struct gen *g, const struct lang_node *n)
{
	uint32_t off;
	int skip = insn_label(g->b), r;

	/* state[0] = code << 1 | 1: every probe stops, and the runtime has
	 * the code even when the record below is lost */
	if (n->n)
		gen_expr(g, n->list[0]);
	else
		push_const(g, n->pos, 0);
	off = tmp_alloc(g, 8, n->pos);
	tmp_ptr(g, BPF_REG_2, off);
	E(I_ST(BPF_W, BPF_REG_2, 0, 0));
	ld_map(g, BPF_REG_1, g->cg->state);
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, skip);
	r = vreg(g, vtop(g), BPF_REG_1);
	E(I_MOV64_REG(BPF_REG_1, r));
	E(I_ALU64_IMM(BPF_LSH, BPF_REG_1, 1));
	E(I_ALU64_IMM(BPF_OR, BPF_REG_1, 1));
	E(I_STX(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
	insn_bind(g->b, skip);
	vpop(g);
	gen_record(g, n, LANG_CGS_EXIT, 0, NULL, 0, -1, 0, 0);
	insn_ja(g->b, g->out);
	g->dead = true;
}

/* join(argv[, delim]): up to LANG_CG_JOIN_MAX strings of a user char *[]
 * (NULL-terminated) in one record; the runtime joins them. */
static void gen_join(struct gen *g, const struct lang_node *n)
{
	struct lang_cg_site s = { .kind = LANG_CGS_JOIN, .pos = n->pos, .map = -1 };
	uint32_t size = sizeof(struct lang_rec_hdr) + LANG_CG_JOIN_MAX * g->cg->strlen, off, ptr;
	int site, send = insn_label(g->b), r;

	if (n->n > 1 && n->list[1]->kind == LANG_N_STR) {
		s.fmt = n->list[1]->str;
		s.fmtlen = n->list[1]->len;
	}
	s.size = size;
	site = new_site(g, &s);
	if (site < 0)
		return;
	gen_expr(g, n->list[0]);	/* the array's address */
	ptr = tmp_alloc(g, 8, n->pos);
	off = rec_begin(g, site, size, n->pos);
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, sizeof(struct lang_rec_hdr)));
	emit_zero(g, BPF_REG_1, 0, size - sizeof(struct lang_rec_hdr));
	for (int i = 0; i < LANG_CG_JOIN_MAX; i++) {
		/* p = argv[i]; stop at NULL or a fault */
		tmp_ptr(g, BPF_REG_1, ptr);
		E(I_MOV64_IMM(BPF_REG_2, 8));
		r = vreg(g, vtop(g), BPF_REG_3);
		E(I_MOV64_REG(BPF_REG_3, r));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, 8 * i));
		E(I_CALL(BPF_FUNC_probe_read_user));
		insn_jmp_imm(g->b, BPF_JNE, BPF_REG_0, 0, send);
		tmp_ptr(g, BPF_REG_1, ptr);
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, 0));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_3, 0, send);
		tmp_ptr(g, BPF_REG_1, off + sizeof(struct lang_rec_hdr) + (uint32_t)i * g->cg->strlen);
		E(I_MOV64_IMM(BPF_REG_2, (int32_t)g->cg->o.max_strlen));
		E(I_CALL(BPF_FUNC_probe_read_user_str));
	}
	insn_bind(g->b, send);
	vpop(g);
	rec_send(g, off, size);
}

static void gen_call_stmt(struct gen *g, const struct lang_node *n)
{
	const char *name = n->name;

	if (!strcmp(name, "printf") || !strcmp(name, "errorf")) {
		gen_record(g, n, name[0] == 'p' ? LANG_CGS_PRINTF : LANG_CGS_ERRORF, 1, n->list[0]->str,
			   n->list[0]->len, -1, 0, 0);
	} else if (!strcmp(name, "exit")) {
		gen_exit(g, n);
	} else if (!strcmp(name, "join")) {
		gen_join(g, n);
	} else if (!strcmp(name, "time")) {
		gen_record(g, n, LANG_CGS_TIME, 1, n->n ? n->list[0]->str : NULL,
			   n->n ? n->list[0]->len : 0, -1, 0, 0);
	} else if (!strcmp(name, "print") && n->list[0]->kind == LANG_N_MAP && !n->list[0]->n) {
		int mi = map_index(g, n->list[0]->name);
		uint32_t top = n->n > 1 ? (uint32_t)lit_int(g->cg, n->list[1]) : 0;
		uint32_t div = n->n > 2 ? (uint32_t)lit_int(g->cg, n->list[2]) : 0;
		struct lang_node none = *n;

		none.n = 0;
		gen_record(g, &none, LANG_CGS_PRINT_MAP, 0, NULL, 0, mi, top, div);
	} else if (!strcmp(name, "print")) {
		struct lang_node one = *n;

		one.n = 1;
		gen_record(g, &one, LANG_CGS_PRINT_VAL, 0, NULL, 0, -1, 0, 0);
	} else if (!strcmp(name, "clear") || !strcmp(name, "zero")) {
		int mi = map_index(g, n->list[0]->name);
		struct lang_node none = *n;

		none.n = 0;
		gen_record(g, &none, name[0] == 'c' ? LANG_CGS_CLEAR : LANG_CGS_ZERO, 0, NULL, 0, mi,
			   0, 0);
	} else if (!strcmp(name, "delete")) {
		const struct lang_node *m = n->list[0];
		struct lang_node ref = *m;
		int mi = map_index(g, m->name);

		if (n->n == 2) {	/* delete(@m, key) */
			ref.list = n->list + 1;
			ref.n = 1;
		}
		if (mi < 0) {
			gerr(g, n->pos, "%s: no such map", m->name);
			return;
		}
		if (g->cg->maps[mi].uagg) {
			uagg_refuse(g, m);
			return;
		}
		gen_key(g, &ref, &g->cg->maps[mi]);
		ld_map(g, BPF_REG_1, mi);
		E(I_CALL(BPF_FUNC_map_delete_elem));
	} else {
		/* a value computed for its effects */
		gen_expr(g, n);
		vpop(g);
	}
}

static void gen_block(struct gen *g, const struct lang_node *blk)
{
	if (!blk)
		return;
	scope_enter(g);
	for (size_t i = 0; i < blk->n; i++)
		gen_stmt(g, blk->list[i]);
	scope_leave(g);
}

/* Jumps to label when the condition on the stack top is 0 (popped). */
static void gen_cond_false(struct gen *g, const struct lang_node *e, int label)
{
	int r;

	gen_expr(g, e);
	r = vreg(g, vtop(g), BPF_REG_1);
	vpop(g);
	insn_jmp_imm(g->b, BPF_JEQ, r, 0, label);
}

/* ---- for ($kv : @map) ------------------------------------------------- */

/* Whether $name appears in n. */
static bool uses_var(const struct lang_node *n, const char *name)
{
	if (!n)
		return false;
	if (n->kind == LANG_N_VAR && !strcmp(n->name, name))
		return true;
	if (uses_var(n->a, name) || uses_var(n->b, name) || uses_var(n->c, name))
		return true;
	for (size_t i = 0; i < n->n; i++)
		if (uses_var(n->list[i], name))
			return true;
	return false;
}

/* reg = an integer variable (on the stack or in scratch) */
static void var_load(struct gen *g, const struct cg_var *v, int reg)
{
	if (v->on_stack) {
		E(I_LDX(BPF_DW, reg, BPF_REG_10, (int16_t)v->off));
		return;
	}
	var_addr(g, v, reg);
	E(I_LDX(BPF_DW, reg, reg, 0));
}

/* $kv.1 of a count/sum/min/max/avg map: its CPUs' values combined into
 * one integer as the map prints it (bpf_map_lookup_percpu_elem, CPU by
 * CPU), at $kv + off; the key is at $kv's start. */
static void emit_percpu_value(struct gen *g, int mi, enum lang_kind k, const struct cg_var *kv,
			      uint32_t off)
{
	int top = insn_label(g->b), next = insn_label(g->b), take = insn_label(g->b);
	uint32_t ncpus = g->cg->o.ncpus_possible ? g->cg->o.ncpus_possible : g->cg->o.ncpus;

	if (!ncpus)
		ncpus = 1;
	/* r6 the CPU, r8 the value (sum, min or max), r9 the count (avg) or
	 * whether r8 holds one (min, max) */
	E(I_MOV64_IMM(BPF_REG_6, 0));
	E(I_MOV64_IMM(BPF_REG_8, 0));
	E(I_MOV64_IMM(BPF_REG_9, 0));
	insn_bind(g->b, top);
	ld_map(g, BPF_REG_1, mi);
	var_addr(g, kv, BPF_REG_2);
	E(I_MOV64_REG(BPF_REG_3, BPF_REG_6));
	E(I_CALL(BPF_FUNC_map_lookup_percpu_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, next);
	switch (k) {
	case LANG_K_AVG:
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_9, BPF_REG_1));
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 8));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_1));
		break;
	case LANG_K_MIN:
	case LANG_K_MAX:
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 8));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_1, 0, next);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_9, 0, take);
		insn_jmp_reg(g->b, k == LANG_K_MIN ? BPF_JSGE : BPF_JSLE, BPF_REG_1, BPF_REG_8, next);
		insn_bind(g->b, take);
		E(I_MOV64_REG(BPF_REG_8, BPF_REG_1));
		E(I_MOV64_IMM(BPF_REG_9, 1));
		break;
	default:
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_1));
	}
	insn_bind(g->b, next);
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_6, 1));
	insn_jmp_imm(g->b, BPF_JLT, BPF_REG_6, (int32_t)ncpus, top);
	if (k == LANG_K_AVG) {
		int zero = insn_label(g->b);

		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_9, 0, zero);
		E(I_SDIV_REG(BPF_DIV, BPF_REG_8, BPF_REG_9));
		insn_bind(g->b, zero);
	}
	var_addr(g, kv, BPF_REG_1);
	E(I_STX(BPF_DW, BPF_REG_1, BPF_REG_8, (int16_t)off));
}

/* The callback's body: a BPF function of its own (for a map: r1 the
 * map, r2 the key, r3 the value, r4 the caller's frame at its ctx slot;
 * for a range, mi < 0: r1 the index, r2 the caller's frame), its frame
 * laid out as the program's: ctx, the scratch pointers and the caller's
 * integer variables the body names copied in at the same offsets, and
 * copied back on the way out.  A range's $i is the caller's start (its
 * slot) plus the index.  Returns 0 (next element) or 1 (stop). */
static void gen_for_body(struct gen *g, const struct lang_node *n, int mi,
			 const struct cg_var *start, struct cg_var *const *shared, size_t nshared,
			 const struct cg_var *ret, bool *ret_used)
{
	struct lang_node ctxname = *n->a;
	struct lang_type it = { .kind = LANG_K_INT };
	const struct lang_type *vt = &n->a->type;
	struct cg_var *cbctx, *kv;
	uint32_t ksize, vsize;
	int brk, cont, out, epi, base = mi < 0 ? BPF_REG_2 : BPF_REG_4;
	bool brk_used;

	brk = insn_label(g->b);
	cont = insn_label(g->b);
	out = insn_label(g->b);
	epi = insn_label(g->b);
	ctxname.name = " cbctx";
	cbctx = var_new(g, &ctxname, &it, false);
	if (!cbctx || !cbctx->on_stack) {
		gerr(g, n->pos, "too many variables for the BPF stack");
		return;
	}
	E(I_STX(BPF_DW, BPF_REG_10, base, (int16_t)cbctx->off));
	if (mi < 0) {
		E(I_MOV64_REG(BPF_REG_6, BPF_REG_1));
	} else {
		E(I_MOV64_REG(BPF_REG_6, BPF_REG_2));
		E(I_MOV64_REG(BPF_REG_7, BPF_REG_3));
	}
	for (int32_t off = FP_CTX; off >= FP_TMP; off -= 8) {
		E(I_LDX(BPF_DW, BPF_REG_0, base, (int16_t)(off - FP_CTX)));
		E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_0, (int16_t)off));
	}
	for (size_t i = 0; i < nshared; i++) {
		E(I_LDX(BPF_DW, BPF_REG_0, base, (int16_t)(shared[i]->off - FP_CTX)));
		E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_0, (int16_t)shared[i]->off));
	}

	if (mi < 0) {
		/* $i = start + index */
		struct cg_var *v = var_new(g, n->a, &it, start->is_signed), *b;

		if (!v || !v->on_stack) {
			gerr(g, n->pos, "too many variables for the BPF stack");
			return;
		}
		E(I_LDX(BPF_DW, BPF_REG_1, base, (int16_t)(start->off - FP_CTX)));
		E(I_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_6));
		E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, (int16_t)v->off));
		/* one body of the budget, or stop */
		b = var_find(g, " budget");
		if (!b || b->on_stack) {
			gerr(g, n->pos, "internal error: a range loop without its budget");
			return;
		}
		var_addr(g, b, BPF_REG_2);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_2, 0));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_1, 0, brk);
		E(I_ALU64_IMM(BPF_SUB, BPF_REG_1, 1));
		E(I_STX(BPF_DW, BPF_REG_2, BPF_REG_1, 0));
	} else {
		/* $kv = (key, value) */
		const struct lang_cg_map *m = &g->cg->maps[mi];
		enum lang_kind vk = m->m->value.kind;
		bool percpu = vk == LANG_K_COUNT || vk == LANG_K_SUM || vk == LANG_K_MIN ||
			      vk == LANG_K_MAX || vk == LANG_K_AVG;

		if (vt->kind != LANG_K_TUPLE || vt->nelems != 2) {
			gerr(g, n->pos, "internal error: %s has no (key, value) type", n->a->name);
			return;
		}
		ksize = lang_cg_size(g->cg, &vt->elems[0]);
		vsize = lang_cg_size(g->cg, &vt->elems[1]);
		kv = var_new(g, n->a, vt, false);
		if (!kv)
			return;
		var_addr(g, kv, BPF_REG_1);
		emit_copy(g, BPF_REG_1, 0, BPF_REG_6, 0, ksize < m->key_size ? ksize : m->key_size);
		if (percpu) {
			emit_percpu_value(g, mi, vk, kv, ksize);
		} else {
			var_addr(g, kv, BPF_REG_1);
			emit_copy(g, BPF_REG_1, (int32_t)ksize, BPF_REG_7, 0,
				  vsize < m->value_size ? vsize : m->value_size);
		}
	}

	g->out = out;
	g->brk[g->nloops] = brk;
	g->cont[g->nloops++] = cont;
	gen_block(g, n->c);
	g->nloops--;

	/* the ways out: next element, stop, and return (stop, and the caller
	 * returns too); only those some jump takes (no unreachable code) */
	brk_used = insn_label_used(g->b, brk);
	*ret_used = insn_label_used(g->b, out);
	insn_bind(g->b, cont);
	if (!g->dead || insn_label_used(g->b, cont)) {
		E(I_MOV64_IMM(BPF_REG_0, 0));
		if (brk_used || *ret_used)
			insn_ja(g->b, epi);
	}
	insn_bind(g->b, brk);
	if (brk_used) {
		E(I_MOV64_IMM(BPF_REG_0, 1));
		if (*ret_used)
			insn_ja(g->b, epi);
	}
	insn_bind(g->b, out);
	if (*ret_used) {
		if (ret->on_stack) {
			E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, (int16_t)cbctx->off));
			E(I_ST(BPF_DW, BPF_REG_1, (int16_t)(ret->off - FP_CTX), 1));
		} else {
			var_addr(g, ret, BPF_REG_1);
			E(I_ST(BPF_DW, BPF_REG_1, 0, 1));
		}
		E(I_MOV64_IMM(BPF_REG_0, 1));
	}
	insn_bind(g->b, epi);
	if (nshared)
		E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, (int16_t)cbctx->off));
	for (size_t i = 0; i < nshared; i++) {
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, (int16_t)shared[i]->off));
		E(I_STX(BPF_DW, BPF_REG_2, BPF_REG_1, (int16_t)(shared[i]->off - FP_CTX)));
	}
	E(I_EXIT());
}

/* for ($kv : @map) { body }: bpf_for_each_map_elem() with the body as its
 * callback.  The body sees this CPU's element of a per-CPU map, and the
 * value of a count/sum/min/max/avg combined over every CPU.
 * for ($i : A..B) { body } (n->b a range): bpf_loop() with the body as its
 * callback, B - A times (none when B <= A, at most LANG_CG_RANGE_MAX),
 * $i = A + the index: the verifier walks the body once, whatever the
 * bounds.  The outermost range loop and those inside it share a budget
 * of LANG_CG_RANGE_MAX bodies (each body takes one, or stops its loop). */
static void gen_for_map(struct gen *g, const struct lang_node *n)
{
	bool range = n->b->kind == LANG_N_RANGE;
	int mi = range ? -1 : map_index(g, n->b->name), cb, saved_cur = g->cur;
	struct insn_buf *saved_b = g->b, **ncbs, *buf;
	struct cg_var *shared[NSTACK_VARS], *ret, *start = NULL, *end = NULL;
	struct lang_node retname = *n->a;
	struct lang_type it = { .kind = LANG_K_INT };
	size_t nshared = 0;
	int saved_out = g->out, saved_nloops = g->nloops, saved_depth = g->depth, nsv0, nsv1;
	int skip = -1;
	bool ret_used = false;
	struct cb_ref *nrefs;

	if (!range && mi < 0) {
		gerr(g, n->b->pos, "%s: no such map", n->b->name);
		return;
	}
	if (!range && g->cg->maps[mi].uagg) {
		gerr(g, n->b->pos, "%s is keyed by a ustack unwound in user space and aggregated there: "
		     "a probe cannot iterate over it; key it by ustack(fp) to iterate", n->b->name);
		return;
	}
	if (g->nloops >= MAX_LOOPS) {
		gerr(g, n->pos, "loops nested too deep");
		return;
	}
	if (g->ncbs >= MAX_FOR_MAPS) {
		gerr(g, n->pos, "more than %d for loops over maps%s in one probe (unroll() repeats "
		     "them)", MAX_FOR_MAPS, range ? " or through bpf_loop" : "");
		return;
	}
	/* the caller's integer variables on its stack the body names */
	for (struct cg_var *v = g->vars; v; v = v->next)
		if (v->on_stack && v->name[0] == '$' && var_find(g, v->name) == v &&
		    uses_var(n->c, v->name) && nshared < NSTACK_VARS)
			shared[nshared++] = v;
	scope_enter(g);
	if (range) {
		/* the bounds, evaluated once in the caller's frame */
		struct lang_node sname = *n->a, ename = *n->a;
		const struct lang_node *a = n->b->a, *b = n->b->b;

		if ((a->kind == LANG_N_INT || a->kind == LANG_N_PARAM) &&
		    (b->kind == LANG_N_INT || b->kind == LANG_N_PARAM) &&
		    lit_int(g->cg, b) - lit_int(g->cg, a) > LANG_CG_RANGE_MAX) {
			gerr(g, n->b->pos, "for ($i : A..B): %lld iterations, more than the %d a loop "
			     "may run", (long long)(lit_int(g->cg, b) - lit_int(g->cg, a)),
			     LANG_CG_RANGE_MAX);
			scope_leave(g);
			return;
		}

		sname.name = " start";
		ename.name = " end";
		gen_expr(g, n->b->a);
		start = var_new(g, &sname, &it, is_signed_expr(g, n->b->a));
		gen_expr(g, n->b->b);
		end = var_new(g, &ename, &it, start && start->is_signed);
		if (!start || !end || !start->on_stack || !end->on_stack) {
			gerr(g, n->pos, "too many variables for the BPF stack");
			g->depth = saved_depth;
			scope_leave(g);
			return;
		}
		E(I_STX(BPF_DW, BPF_REG_10, vreg(g, vtop(g), BPF_REG_1), (int16_t)end->off));
		vpop(g);
		E(I_STX(BPF_DW, BPF_REG_10, vreg(g, vtop(g), BPF_REG_1), (int16_t)start->off));
		vpop(g);
		if (!var_find(g, " budget")) {
			/* the outermost: it and the range loops inside it run
			 * at most LANG_CG_RANGE_MAX bodies in all.  In scratch
			 * (every frame sees it), where the verifier does not
			 * know its value: a constant counted down would be a
			 * new state at every body it walks. */
			struct cg_var *budget = calloc(1, sizeof(*budget));

			if (!budget) {
				gerr(g, n->pos, "out of memory");
				scope_leave(g);
				return;
			}
			budget->name = " budget";
			budget->depth = g->scope;
			budget->type = it;
			budget->off = (int32_t)g->var_size;
			g->var_size += 8;
			budget->next = g->vars;
			g->vars = budget;
			if (g->var_size + g->tmp_max > LANG_CG_SCRATCH_MAX)
				gerr(g, n->pos, "the variables need more than %u bytes of scratch memory",
				     LANG_CG_SCRATCH_MAX);
			var_addr(g, budget, BPF_REG_1);
			E(I_ST(BPF_DW, BPF_REG_1, 0, LANG_CG_RANGE_MAX));
		}
	}
	retname.name = " return";
	nsv0 = g->nstack_vars;
	ret = var_new(g, &retname, &it, false);
	nsv1 = g->nstack_vars;
	if (!ret) {
		scope_leave(g);
		return;
	}

	buf = calloc(1, sizeof(*buf));
	ncbs = realloc(g->cbs, (g->ncbs + 1) * sizeof(*ncbs));
	if (!buf || !ncbs) {
		free(buf);
		if (ncbs)
			g->cbs = ncbs;
		gerr(g, n->pos, "out of memory");
		scope_leave(g);
		return;
	}
	g->cbs = ncbs;
	cb = (int)g->ncbs++;
	g->cbs[cb] = buf;
	g->cb_loop[cb] = range;
	buf->cur_pos = g->b->cur_pos;

	g->b = buf;
	g->cur = cb;
	g->depth = 0;
	scope_enter(g);
	gen_for_body(g, n, mi, start, shared, nshared, ret, &ret_used);
	scope_leave(g);
	if (insn_finish(buf)) {
		gerr(g, n->pos, "cannot generate this loop's code: %s", buf->why);
		buf->err = 0;
	}
	/* the callback's frame is gone: its slots are free again, and so is
	 * the caller's flag when nothing sets it */
	g->nstack_vars = ret_used ? nsv1 : nsv0;
	g->b = saved_b;
	g->cur = saved_cur;
	g->out = saved_out;
	g->nloops = saved_nloops;
	g->depth = saved_depth;
	g->dead = false;

	if (ret_used) {
		if (ret->on_stack) {
			E(I_ST(BPF_DW, BPF_REG_10, (int16_t)ret->off, 0));
		} else {
			var_addr(g, ret, BPF_REG_1);
			E(I_ST(BPF_DW, BPF_REG_1, 0, 0));
		}
	}
	if (range) {
		/* r1 = B - A, at most LANG_CG_RANGE_MAX; no call when B <= A
		 * (the verifier does not walk a callback bpf_loop() is given
		 * 0 for, and then refuses the program) */
		int go = insn_label(g->b);

		skip = insn_label(g->b);
		E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, (int16_t)end->off));
		E(I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, (int16_t)start->off));
		insn_jmp_reg(g->b, start->is_signed ? BPF_JSLE : BPF_JLE, BPF_REG_2, BPF_REG_3, skip);
		E(I_MOV64_REG(BPF_REG_1, BPF_REG_2));
		E(I_ALU64_REG(BPF_SUB, BPF_REG_1, BPF_REG_3));
		insn_jmp_imm(g->b, BPF_JLE, BPF_REG_1, LANG_CG_RANGE_MAX, go);
		E(I_MOV64_IMM(BPF_REG_1, LANG_CG_RANGE_MAX));
		insn_bind(g->b, go);
	} else {
		ld_map(g, BPF_REG_1, mi);
	}
	nrefs = realloc(g->refs, (g->nrefs + 1) * sizeof(*nrefs));
	if (!nrefs) {
		gerr(g, n->pos, "out of memory");
		scope_leave(g);
		return;
	}
	g->refs = nrefs;
	g->refs[g->nrefs++] = (struct cb_ref){ g->cur, (uint32_t)g->b->n, cb };
	insn_ld_func(g->b, BPF_REG_2);
	E(I_MOV64_REG(BPF_REG_3, BPF_REG_10));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_3, FP_CTX));
	E(I_MOV64_IMM(BPF_REG_4, 0));
	E(I_CALL(range ? BPF_FUNC_loop : BPF_FUNC_for_each_map_elem));
	if (ret_used) {
		/* return or exit() in the body: this function returns too */
		var_load(g, ret, BPF_REG_1);
		insn_jmp_imm(g->b, BPF_JNE, BPF_REG_1, 0, g->out);
	}
	if (range)
		insn_bind(g->b, skip);
	scope_leave(g);
}

/* The callbacks after the program, their address loads patched, and
 * where each starts (the runtime's BTF function info). */
static void append_callbacks(struct gen *g)
{
	uint32_t *start;

	if (!g->ncbs)
		return;
	start = calloc(g->ncbs, sizeof(*start));
	g->p->funcs = calloc(g->ncbs, sizeof(*g->p->funcs));
	g->p->func_types = calloc(g->ncbs, sizeof(*g->p->func_types));
	if (!start || !g->p->funcs || !g->p->func_types) {
		free(start);
		gerr(g, g->probe->pos, "out of memory");
		return;
	}
	for (size_t i = 0; i < g->ncbs; i++) {
		start[i] = (uint32_t)g->b->n;
		insn_append(g->b, g->cbs[i]);
		g->p->funcs[i] = start[i];
		g->p->func_types[i] = g->cb_loop[i] ? LANG_CG_BTF_LOOP_CB : LANG_CG_BTF_CB;
	}
	g->p->nfuncs = g->ncbs;
	for (size_t i = 0; i < g->nrefs && !g->b->err; i++) {
		const struct cb_ref *r = &g->refs[i];
		uint32_t at = (r->from < 0 ? 0 : start[r->from]) + r->at;

		g->b->insn[at].imm = (int32_t)start[r->cb] - (int32_t)at - 1;
	}
	free(start);
}

static void gen_stmt(struct gen *g, const struct lang_node *n)
{
	uint32_t mark = g->tmp_cur;
	int depth = g->depth;

	if ((g->failed && g->cg->prog->nerrors > 8) || g->dead)
		return;
	g->b->cur_pos = n->pos.line << 16 | (n->pos.col & 0xffff);
	switch (n->kind) {
	case LANG_N_ASSIGN: {
		const struct lang_node *lhs = n->a, *rhs = n->b;

		if (lhs->kind == LANG_N_MAP && n->op == LANG_TOK_ASSIGN && rhs->kind == LANG_N_CALL &&
		    rhs->bi && (rhs->bi->flags & LANG_BF_AGG)) {
			gen_agg(g, lhs, rhs);
			break;
		}
		gen_expr(g, rhs);
		if (lhs->kind == LANG_N_MAP)
			map_store_top(g, lhs, n->op, is_signed_expr(g, rhs));
		else
			var_store_top(g, lhs, n->op, is_signed_expr(g, rhs), &rhs->type);
		break;
	}
	case LANG_N_EXPR:
		if (n->a->kind == LANG_N_CALL)
			gen_call_stmt(g, n->a);
		else if (n->a->kind == LANG_N_INCDEC) {
			struct lang_node one = { .kind = LANG_N_INT, .pos = n->pos, .num = 1,
						 .type = { .kind = LANG_K_INT } };
			struct lang_node as = { .kind = LANG_N_ASSIGN, .pos = n->pos, .a = n->a->a,
						.b = &one, .op = n->a->op == LANG_TOK_INC ?
						LANG_TOK_ADD_ASSIGN : LANG_TOK_SUB_ASSIGN };
			gen_stmt(g, &as);
		} else {
			gen_expr(g, n->a);
			vpop(g);
		}
		break;
	case LANG_N_BLOCK:
		gen_block(g, n);
		break;
	case LANG_N_IF: {
		int no = insn_label(g->b), done = insn_label(g->b);

		bool then_dead;

		gen_cond_false(g, n->a, no);
		g->tmp_cur = mark;
		gen_block(g, n->b);
		then_dead = g->dead;
		if (!then_dead)
			insn_ja(g->b, done);
		insn_bind(g->b, no);
		g->dead = false;
		if (n->c && n->c->kind == LANG_N_IF)
			gen_stmt(g, n->c);
		else
			gen_block(g, n->c);
		g->dead = then_dead && n->c && g->dead;
		insn_bind(g->b, done);
		break;
	}
	case LANG_N_WHILE: {
		int top = insn_label(g->b), done = insn_label(g->b);

		if (g->nloops >= MAX_LOOPS) {
			gerr(g, n->pos, "loops nested too deep");
			break;
		}
		insn_bind(g->b, top);
		gen_cond_false(g, n->a, done);
		g->tmp_cur = mark;
		g->brk[g->nloops] = done;
		g->cont[g->nloops++] = top;
		gen_block(g, n->b);
		g->nloops--;
		if (!g->dead)
			insn_ja(g->b, top);
		g->dead = false;
		insn_bind(g->b, done);
		break;
	}
	case LANG_N_FOR: {
		int top = insn_label(g->b), done = insn_label(g->b), next = insn_label(g->b);
		struct cg_var *idx, *end, *v;
		struct lang_node idxname = *n->a, endname = *n->a;
		struct lang_type it = { .kind = LANG_K_INT };

		if (n->b->kind != LANG_N_RANGE || !g->cg->o.no_bpf_loop) {
			gen_for_map(g, n);
			break;
		}
		if (g->nloops >= MAX_LOOPS) {
			gerr(g, n->pos, "loops nested too deep");
			break;
		}
		/* open-coded where the kernel has no bpf_loop: a hidden counter
		 * from A to B, $i its copy (as with bpf_loop, the body changing
		 * $i does not move the loop) */
		scope_enter(g);
		idxname.name = " idx";
		endname.name = " end";
		gen_expr(g, n->b->a);
		idx = var_new(g, &idxname, &it, is_signed_expr(g, n->b->a));
		gen_expr(g, n->b->b);
		end = var_new(g, &endname, &it, true);
		v = var_new(g, n->a, &it, idx && idx->is_signed);
		if (!idx || !end || !v || !idx->on_stack || !end->on_stack || !v->on_stack) {
			gerr(g, n->pos, "too many variables for the BPF stack");
			g->depth = depth;
			scope_leave(g);
			break;
		}
		E(I_STX(BPF_DW, BPF_REG_10, vreg(g, vtop(g), BPF_REG_1), (int16_t)end->off));
		vpop(g);
		E(I_STX(BPF_DW, BPF_REG_10, vreg(g, vtop(g), BPF_REG_1), (int16_t)idx->off));
		vpop(g);
		insn_bind(g->b, top);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, (int16_t)idx->off));
		E(I_LDX(BPF_DW, BPF_REG_2, BPF_REG_10, (int16_t)end->off));
		insn_jmp_reg(g->b, idx->is_signed ? BPF_JSGE : BPF_JGE, BPF_REG_1, BPF_REG_2, done);
		E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, (int16_t)v->off));
		g->brk[g->nloops] = done;
		g->cont[g->nloops++] = next;
		gen_block(g, n->c);
		g->nloops--;
		g->dead = false;	/* continue comes here */
		insn_bind(g->b, next);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, (int16_t)idx->off));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
		E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, (int16_t)idx->off));
		insn_ja(g->b, top);
		insn_bind(g->b, done);
		scope_leave(g);
		break;
	}
	case LANG_N_UNROLL: {
		int64_t times = lit_int(g->cg, n->a);

		if (times < 1 || times > 100) {
			gerr(g, n->a->pos, "unroll's count must be from 1 to 100");
			break;
		}
		for (int64_t i = 0; i < times && !g->failed; i++) {
			g->tmp_cur = mark;
			gen_block(g, n->b);
		}
		break;
	}
	case LANG_N_RETURN:
		insn_ja(g->b, g->out);
		g->dead = true;
		break;
	case LANG_N_BREAK:
	case LANG_N_CONTINUE:
		if (!g->nloops) {
			gerr(g, n->pos, "%s outside a loop", n->kind == LANG_N_BREAK ? "break" : "continue");
			break;
		}
		insn_ja(g->b, n->kind == LANG_N_BREAK ? g->brk[g->nloops - 1] : g->cont[g->nloops - 1]);
		g->dead = true;
		break;
	default:
		gen_expr(g, n);
		vpop(g);
	}
	if (g->depth != depth && !g->failed)
		gerr(g, n->pos, "internal error: expression stack %d after a statement, want %d",
		     g->depth, depth);
	g->depth = depth;
	g->tmp_cur = mark;
}

/* ---- programs -------------------------------------------------------- */

int lang_cg_gen(struct lang_cg *cg, const struct lang_probe *p, const struct lang_cg_point *pt)
{
	struct lang_cg_prog *np;
	struct gen gs = { .cg = cg, .pt = pt, .probe = p, .cur = -1 }, *g = &gs;
	int sc, pidx;
	bool is_end = pt->at && pt->at->provider == LANG_P_END;
	size_t errs = cg->prog->nerrors;

	np = realloc(cg->progs, (cg->nprogs + 1) * sizeof(*np));
	if (!np)
		return -1;
	cg->progs = np;
	pidx = (int)cg->nprogs;
	sc = add_map(cg, &(struct lang_cg_map){ .role = LANG_CGM_SCRATCH,
		.type = BPF_MAP_TYPE_PERCPU_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1 });
	if (sc < 0)
		return -1;
	snprintf(cg->maps[sc].name, sizeof(cg->maps[sc].name), "scratch%d", pidx);
	np = &cg->progs[cg->nprogs++];
	memset(np, 0, sizeof(*np));
	np->probe = p;
	np->point = pt;
	np->type = pt->type;
	np->scratch = sc;
	np->snap = -1;
	if (cg->snap_used) {
		int sm = add_map(cg, &(struct lang_cg_map){ .role = LANG_CGM_SNAP,
			.type = BPF_MAP_TYPE_PERCPU_ARRAY, .key_size = 4, .max_entries = 1,
			.value_size = SNAP_REC_MAX + sizeof(struct lang_rec_snap) + LANG_SNAP_BYTES +
				      LANG_SNAP_PAGE });

		if (sm < 0)
			return -1;
		snprintf(cg->maps[sm].name, sizeof(cg->maps[sm].name), "snap%d", pidx);
		np->snap = sm;
	}
	snprintf(np->name, sizeof(np->name), "p%d", pidx);
	g->p = np;
	g->pidx = pidx;
	g->b = &np->code;
	g->out = insn_label(g->b);
	g->b->cur_pos = p->pos.line << 16 | (p->pos.col & 0xffff);

	E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, FP_CTX));
	E(I_ST(BPF_W, BPF_REG_10, FP_VARS, 0));
	if (!is_end) {
		/* exit() stops every probe: the flag, first */
		ld_map(g, BPF_REG_1, cg->state);
		E(I_MOV64_REG(BPF_REG_2, BPF_REG_10));
		E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, FP_VARS));
		E(I_CALL(BPF_FUNC_map_lookup_elem));
		insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, g->out);
		E(I_LDX(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		insn_jmp_imm(g->b, BPF_JNE, BPF_REG_1, 0, g->out);
	}
	ld_map(g, BPF_REG_1, sc);
	E(I_MOV64_REG(BPF_REG_2, BPF_REG_10));
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_2, FP_VARS));
	E(I_CALL(BPF_FUNC_map_lookup_elem));
	insn_jmp_imm(g->b, BPF_JEQ, BPF_REG_0, 0, g->out);
	E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_0, FP_VARS));
	g->tmpbase_at = g->b->n;
	E(I_ALU64_IMM(BPF_ADD, BPF_REG_0, 0));	/* + the variables' bytes, below */
	E(I_STX(BPF_DW, BPF_REG_10, BPF_REG_0, FP_TMP));
	if (pt->sys && pt->sys->ret) {
		/* the saved entry at the variables' start */
		g->var_size = sizeof(struct lang_sys_saved);
		sys_prologue(g);
	}

	scope_enter(g);
	if (p->pred)
		gen_cond_false(g, p->pred, g->out);
	gen_block(g, p->body);
	scope_leave(g);
	scope_leave(g);

	insn_bind(g->b, g->out);
	E(I_MOV64_IMM(BPF_REG_0, 0));
	E(I_EXIT());
	if (!g->b->err && g->b->n > g->tmpbase_at) {
		uint32_t size = g->var_size + g->tmp_max;

		g->b->insn[g->tmpbase_at].imm = (int32_t)g->var_size;
		cg->maps[sc].value_size = size < 8 ? 8 : size;
	}
	if (insn_finish(g->b)) {
		lang_errorf(cg->prog, p->pos, "cannot generate this probe's code: %s", g->b->why);
		g->failed = true;
	}
	if (!g->b->err)
		append_callbacks(g);
	for (size_t i = 0; i < g->ncbs; i++) {
		insn_free(g->cbs[i]);
		free(g->cbs[i]);
	}
	free(g->cbs);
	free(g->refs);
	if (g->b->err && !g->failed) {
		lang_errorf(cg->prog, p->pos, "cannot generate this probe's code: %s", g->b->why);
		g->failed = true;
	}
	np->point = NULL;
	if (g->failed || cg->prog->nerrors > errs)
		return -1;
	cg->maps[cg->lost].max_entries = (uint32_t)cg->nprogs;
	return pidx;
}

void lang_cg_patch_fds(struct lang_cg *cg, struct lang_cg_prog *p)
{
	for (size_t i = 0; i + 1 < p->code.n; i++) {
		struct bpf_insn *in = &p->code.insn[i];

		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			if (in->src_reg == BPF_PSEUDO_MAP_FD && in->imm >= 0 && (size_t)in->imm < cg->nmaps)
				in->imm = cg->maps[in->imm].fd;
			i++;
		}
	}
}

/* The BTF the kernel wants with a program that has BPF functions: its
 * types 1 int, 2 void *, 3 int (void *ctx), 4 FUNC the program, 5 int
 * (void *map, void *key, void *value, void *ctx), 6 FUNC a for_each
 * callback (static: the kernel takes no other as a callback), 7 u64,
 * 8 int (u64 index, void *ctx), 9 FUNC a bpf_loop callback. */
void *lang_cg_btf(uint32_t *size)
{
	static const char strs[] =
		"\0int\0ctx\0prog\0map\0key\0value\0for_each_cb\0u64\0index\0loop_cb";
	enum { S_INT = 1, S_CTX = 5, S_PROG = 9, S_MAP = 14, S_KEY = 18, S_VALUE = 22, S_CB = 28,
	       S_U64 = 40, S_INDEX = 44, S_LOOP_CB = 50 };
	const uint32_t types[] = {
		/* [1] int: name, INT << 24, size 4; signed, 32 bits */
		S_INT, BTF_KIND_INT << 24, 4, BTF_INT_SIGNED << 24 | 32,
		/* [2] void * */
		0, BTF_KIND_PTR << 24, 0,
		/* [3] int (void *ctx) */
		0, BTF_KIND_FUNC_PROTO << 24 | 1, 1, S_CTX, 2,
		/* [4] the program (global) */
		S_PROG, BTF_KIND_FUNC << 24 | BTF_FUNC_GLOBAL, 3,
		/* [5] int (void *map, void *key, void *value, void *ctx) */
		0, BTF_KIND_FUNC_PROTO << 24 | 4, 1, S_MAP, 2, S_KEY, 2, S_VALUE, 2, S_CTX, 2,
		/* [6] a callback (static) */
		S_CB, BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC, 5,
		/* [7] u64: unsigned, 64 bits */
		S_U64, BTF_KIND_INT << 24, 8, 64,
		/* [8] int (u64 index, void *ctx) */
		0, BTF_KIND_FUNC_PROTO << 24 | 2, 1, S_INDEX, 7, S_CTX, 2,
		/* [9] a bpf_loop callback (static) */
		S_LOOP_CB, BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC, 8,
	};
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h),
		.type_off = 0, .type_len = sizeof(types),
		.str_off = sizeof(types), .str_len = sizeof(strs),
	};
	char *blob = malloc(sizeof(h) + sizeof(types) + sizeof(strs));

	if (!blob)
		return NULL;
	memcpy(blob, &h, sizeof(h));
	memcpy(blob + sizeof(h), types, sizeof(types));
	memcpy(blob + sizeof(h) + sizeof(types), strs, sizeof(strs));
	*size = (uint32_t)(sizeof(h) + sizeof(types) + sizeof(strs));
	return blob;
}

struct lang_pos lang_cg_insn_pos(const struct lang_cg_prog *p, size_t i)
{
	if (i >= p->code.n || !p->code.pos)
		return (struct lang_pos){ 0, 0 };
	return (struct lang_pos){ p->code.pos[i] >> 16, p->code.pos[i] & 0xffff };
}

static const char *prog_type_name(enum bpf_prog_type t)
{
	switch (t) {
	case BPF_PROG_TYPE_RAW_TRACEPOINT: return "raw_tracepoint";
	case BPF_PROG_TYPE_TRACEPOINT: return "tracepoint";
	case BPF_PROG_TYPE_PERF_EVENT: return "perf_event";
	case BPF_PROG_TYPE_KPROBE: return "kprobe";
	case BPF_PROG_TYPE_TRACING: return "tracing";
	default: return "other";
	}
}

void lang_cg_dump(FILE *f, const struct lang_cg *cg)
{
	for (size_t i = 0; i < cg->nmaps; i++) {
		const struct lang_cg_map *m = &cg->maps[i];

		if (m->role == LANG_CGM_SCRATCH)
			continue;
		fprintf(f, "map[%zu] %s: type %d, key %u, value %u, entries %u\n", i,
			m->role == LANG_CGM_USER ? m->m->name : m->name, m->type, m->key_size,
			m->value_size, m->max_entries);
	}
	for (size_t i = 0; i < cg->nprogs; i++) {
		const struct lang_cg_prog *p = &cg->progs[i];

		fprintf(f, "program %s (%s, scratch map[%d] %u bytes):\n", p->name,
			prog_type_name(p->type), p->scratch, cg->maps[p->scratch].value_size);
		insn_dump_range(f, p->code.insn, p->code.n, 0, p->nfuncs ? p->funcs[0] : p->code.n);
		for (size_t k = 0; k < p->nfuncs; k++) {
			fprintf(f, "function %s_%zu (callback):\n", p->name, k + 1);
			insn_dump_range(f, p->code.insn, p->code.n, p->funcs[k],
					k + 1 < p->nfuncs ? p->funcs[k + 1] : p->code.n);
		}
	}
}
