/* Running a program (see runtime.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "hashtab.h"
#include "lang/codegen.h"
#include "lang/kstack.h"
#include "lang/rec.h"
#include "lang/runtime.h"
#include "lang/ustack.h"
#include "stacks/pipeline.h"
#include "sym/ksyms.h"
#include "sym/proctab.h"
#include "sym/symbolize.h"
#include "sym/elfsyms.h"
#include "sym/symcache.h"
#include "syscall/table.h"
#include "trace/features.h"

#define VERIFIER_LOG_SIZE (16u << 20)
#define VERIFIER_TAIL_LINES 6

/* A point and the program it runs. */
struct rt_point {
	struct lang_point *pt;		/* NULL: BEGIN or END */
	const struct lang_attach *at;
	const struct lang_probe *probe;
	int prog;			/* index in cg->progs */
};

/* rt.cur_snap of a record printed at once (its stack not interned) */
#define CUR_SNAP_TMP (-2)

/* Memory for decoded values, freed per record. */
struct arena_blk {
	struct arena_blk *next;
	char data[];
};

struct rt {
	struct lang_prog *prog;
	struct lang_probes *pr;
	const struct lang_run_opts *o;
	struct lang_cg *cg;
	struct session *s;
	struct lang_out *out;
	struct rt_point *pts;
	size_t npts;
	int *prog_fds;
	int ncpus;
	bool exited, in_end;
	int exit_code;
	bool has_exit_code;
	struct arena_blk *arena;
	struct ksyms *ksyms;
	struct proctab *proctab;
	struct symcache *symcache;
	struct symbolizer *sym;
	struct sc_table *systab;
	bool ksyms_tried;
	struct timespec boot;
	int err;
	/* user stacks (lang/ustack.h): the pipeline that unwinds and names
	 * them (side-band, process table), the interned stacks, the maps
	 * aggregated here (by map index; NULL for the kernel's) and what
	 * they could not take */
	struct stackpipe *sp;
	struct lang_ustacks *us;
	struct lang_uagg **uagg;
	uint64_t *uagg_full;
	int64_t cur_snap;		/* the record's unwound stack: a placeholder's
					 * (CUR_SNAP_TMP: in tmp_stack, not interned) */
	struct lang_ustack tmp_stack;	/* a printed stack's (ips: the ips buffer) */
	uint64_t *ips;			/* UNWIND_MAX_DEPTH: a snapshot's pcs */
	uint64_t bad_snaps;		/* records whose snapshot did not parse */
	uint64_t lost_stacks;		/* stacks printed as lost: bucket taken */
	struct htab *canon;		/* symbolized user stacks -> the first key's */
};

static void *ar_alloc(struct rt *rt, size_t n)
{
	struct arena_blk *b = calloc(1, sizeof(*b) + n);

	if (!b)
		return NULL;
	b->next = rt->arena;
	rt->arena = b;
	return b->data;
}

static void ar_reset(struct rt *rt)
{
	while (rt->arena) {
		struct arena_blk *b = rt->arena;

		rt->arena = b->next;
		free(b);
	}
}

/* ---- decoding values -------------------------------------------------- */

static const struct ksyms *get_ksyms(struct rt *rt)
{
	if (!rt->ksyms_tried) {
		rt->ksyms_tried = true;
		rt->ksyms = ksyms_kernel();
	}
	return rt->ksyms;
}

static const char *ksym_text(struct rt *rt, uint64_t addr, uint64_t *off)
{
	const struct ksyms *ks = get_ksyms(rt);
	const struct ksym *k = ks ? ksyms_find(ks, (unsigned long)addr) : NULL;

	if (off)
		*off = k ? addr - k->addr : 0;
	return k ? k->name : NULL;
}

static void decode(struct rt *rt, const struct lang_type *t, const uint8_t *p,
		   struct lang_val *v, const struct lang_cg_arg *arg);

/* The user-space symbolizer, made on first use. */
static struct symbolizer *get_symbolizer(struct rt *rt)
{
	if (!rt->sym && !rt->proctab) {
		rt->proctab = proctab_new();
		if (!rt->symcache)
			rt->symcache = symcache_new();
		if (rt->proctab && rt->symcache)
			rt->sym = symbolizer_new(rt->proctab, rt->symcache, get_ksyms(rt), 0);
	}
	return rt->sym;
}

/* Names user pcs (innermost first) into out (outermost first): through
 * the pipeline's process table when the run has one (side-band: exited
 * processes too), else what /proc shows now. */
static int user_frames(struct rt *rt, uint32_t pid, uint64_t gen, const uint64_t *ips, int n,
		       struct frame *out)
{
	if (rt->sp)
		return stackpipe_symbolize_user(rt->sp, pid, gen, ips, n, out);
	return get_symbolizer(rt) ? symbolize_user(rt->sym, pid, gen, ips, n, out) : 0;
}

/* A user frame's distance from its symbol's start, as bpftrace prints
 * it: a return address (ret) is named by the byte before it, the offset
 * is the return address's own. */
static uint64_t user_sym_off(struct rt *rt, const struct frame *f, bool ret)
{
	const struct elfsyms *es;
	uint64_t off = 0;

	if (!f->module || !f->module->path || f->module->path[0] != '/')
		return 0;
	if (!rt->symcache && !(rt->symcache = symcache_new()))
		return 0;
	es = symcache_get(rt->symcache, f->module->path, NULL, NULL);
	if (!es || !elfsyms_lookup(es, f->offset, &off))
		return 0;
	return off + (ret ? 1 : 0);
}

/* A stack unwound here (ustack without fp), by id (-1: the record's). */
static void decode_ustack_snap(struct rt *rt, const struct lang_rec_stack *st, struct lang_val *v)
{
	int64_t id = st->id == -1 ? rt->cur_snap : st->id;
	const struct lang_ustack *us = id == CUR_SNAP_TMP ? &rt->tmp_stack :
				       lang_ustacks_get(rt->us, id);
	struct lang_frame *fr;
	struct frame *out;
	size_t n;
	int got;

	if (!us)
		return;
	n = (size_t)us->n;
	if (st->depth && st->depth < n)
		n = st->depth;
	fr = ar_alloc(rt, (n + 2) * sizeof(*fr));
	out = ar_alloc(rt, (n + 1) * sizeof(*out));
	if (!fr || !out)
		return;
	got = n ? user_frames(rt, us->pid, us->gen, us->ips, (int)n, out) : 0;
	for (size_t i = 0; i < n; i++) {
		fr[i].addr = us->ips[i] & ~SYM_IP_SIGNAL;
		if (got == (int)n) {
			const struct frame *f = &out[got - 1 - i];

			if (f->name && f->name[0] != '[') {
				fr[i].name = f->name;
				fr[i].offset = user_sym_off(rt, f, i > 0);
			}
			fr[i].module = f->module ? f->module->path : NULL;
		}
	}
	/* never a silently short chain */
	if (us->truncated && (!st->depth || (size_t)us->n <= st->depth))
		fr[n++] = (struct lang_frame){ .addr = LANG_FRAME_TRUNCATED, .name = "[truncated]" };
	v->frames = fr;
	v->nframes = n;
}

/* A kernel stack: named from kallsyms, the tracer's own innermost frames
 * left out (lang/kstack.h), then cut to depth (0: all). */
static void decode_kstack(struct rt *rt, const uint64_t *ips, size_t n, size_t depth,
			  struct lang_val *v)
{
	struct lang_frame *fr = ar_alloc(rt, (n + 1) * sizeof(*fr));
	size_t skip;

	if (!fr)
		return;
	for (size_t i = 0; i < n; i++) {
		fr[i].addr = ips[i];
		fr[i].name = ksym_text(rt, ips[i], &fr[i].offset);
	}
	skip = lang_kstack_tracer_prefix(fr, n);
	n -= skip;
	if (depth && depth < n)
		n = depth;
	v->frames = fr + skip;
	v->nframes = n;
}

static void decode_stack(struct rt *rt, const uint8_t *p, struct lang_val *v)
{
	struct lang_rec_stack st;
	uint64_t ips[127];
	struct lang_frame *fr;
	size_t n = 0;

	memcpy(&st, p, sizeof(st));
	v->user = st.user;
	v->stack_mode = st.mode & LANG_STACK_MODE_MASK;
	if (st.user && (st.mode & LANG_STACK_SNAP)) {
		decode_ustack_snap(rt, &st, v);
		return;
	}
	if (st.id == -EEXIST) {
		/* bpf_get_stackid(): the stack's bucket held another stack */
		fr = ar_alloc(rt, sizeof(*fr));
		if (fr) {
			fr[0] = (struct lang_frame){ .addr = LANG_FRAME_TRUNCATED, .name = "[lost stack]" };
			v->frames = fr;
			v->nframes = 1;
		}
		rt->lost_stacks++;
		return;
	}
	if (st.id < 0 || rt->cg->stacks < 0)
		return;
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(rt->cg->maps[rt->cg->stacks].fd, &(uint32_t){ (uint32_t)st.id }, ips))
		return;
	while (n < 127 && ips[n])
		n++;
	if (!st.user) {
		decode_kstack(rt, ips, n, st.depth, v);
		return;
	}
	if (st.depth && st.depth < n)
		n = st.depth;
	fr = ar_alloc(rt, (n + 1) * sizeof(*fr));
	if (!fr)
		return;
	for (size_t i = 0; i < n; i++)
		fr[i].addr = ips[i];
	if (n) {
		struct frame *out = ar_alloc(rt, n * sizeof(*out));
		/* the pid's newest address space (no gen: the kernel walked it) */
		int got = out ? user_frames(rt, st.pid, UINT64_MAX, ips, (int)n, out) : 0;

		/* out is outermost first, one frame per address */
		for (int i = 0; got == (int)n && i < got; i++) {
			const struct frame *f = &out[got - 1 - i];

			if (f->name && f->name[0] != '[') {
				fr[i].name = f->name;
				fr[i].offset = user_sym_off(rt, f, i > 0);
			}
			fr[i].module = f->module ? f->module->path : NULL;
		}
	}
	v->frames = fr;
	v->nframes = n;
}

/* `call`: a struct lang_rec_call made into the syscalls capture's record
 * (header + chunks, the lengths recomputed from the arguments and ret as
 * the generated code bounded them) and printed by the decoders. */
/* Appends a chunk of argument arg to the record (room for it was made). */
static void add_chunk(struct sc_record *r, int arg, uint8_t cap, uint8_t flags,
		      const void *data, uint64_t n)
{
	struct sc_chunk *ch = (struct sc_chunk *)((uint8_t *)r + sizeof(*r) + r->data_len);

	ch->arg = (uint8_t)arg;
	ch->cap = cap;
	ch->flags = flags;
	ch->idx = 0;
	ch->len = (uint16_t)n;
	memcpy(ch + 1, data, n);
	r->data_len += (uint32_t)SC_CHUNK_SIZE(n);
}

static const char *render_call(struct rt *rt, const uint8_t *p)
{
	const struct sc_info *si;
	const struct lang_rec_call *c = (const struct lang_rec_call *)p;
	struct sc_spec spec;
	struct sc_record *r;
	struct sc_fmt_opts fo = { .strsize = LANG_SYS_STRSIZE };
	size_t size = sizeof(*r) + 2 * LANG_REC_CALL_ARGS * SC_CHUNK_SIZE(LANG_REC_CALL_CAP);
	uint8_t *buf;
	char *line = NULL, *out;
	size_t len = 0;
	FILE *f;

	if (!rt->systab)
		rt->systab = sc_table_load();
	if (!rt->systab || c->nr >= SC_NR_MAX)
		return "?";
	si = sc_table_get(rt->systab, (int)c->nr);
	sc_spec_for(si, &spec);
	buf = calloc(1, size);
	if (!buf)
		return "?";
	r = (struct sc_record *)buf;
	r->kind = SC_REC_CALL;
	r->enter_ns = c->enter_ns;
	r->exit_ns = c->exit_ns;
	memcpy(r->args, c->args, sizeof(r->args));
	r->ret = c->ret;
	r->pid = c->pid;
	r->tid = c->tid;
	r->nr = c->nr;
	memcpy(r->comm, c->comm, sizeof(r->comm));
	for (int i = 0; i < SC_ARGS; i++) {
		const struct sc_arg_spec *as = &spec.args[i];
		uint32_t cap = as->size && as->size < LANG_REC_CALL_CAP ? as->size :
			       LANG_SYS_STRSIZE < LANG_REC_CALL_CAP ? LANG_SYS_STRSIZE : LANG_REC_CALL_CAP;
		bool fixed = as->len_arg >= SC_ARGS;
		uint64_t want = 0, n = 0;
		uint8_t flags = 0;
		int64_t rc = c->rc[i];
		int slot = lang_cg_call_slot(&spec, i);

		if (slot < 0)
			continue;
		switch (as->cap) {
		case SC_CAP_PATH:
		case SC_CAP_STR:
			if (rc <= 0) {
				flags = SC_CHUNK_FAULT;
				break;
			}
			n = (uint64_t)rc - 1;
			if (as->cap == SC_CAP_STR && n > LANG_SYS_STRSIZE) {
				n = LANG_SYS_STRSIZE;
				flags = SC_CHUNK_TRUNC;
			} else if (as->cap == SC_CAP_PATH && rc == LANG_REC_CALL_CAP) {
				flags = SC_CHUNK_TRUNC;
			}
			break;
		case SC_CAP_BUF_IN:
			if (fixed)
				continue;
			want = c->args[as->len_arg];
			goto buf;
		case SC_CAP_BUF_OUT:
			if (c->ret <= 0)
				continue;
			want = (uint64_t)c->ret;
			if (!fixed && c->args[as->len_arg] < want)
				want = c->args[as->len_arg];
buf:
			n = want < cap ? want : cap;
			if (n < want)
				flags = SC_CHUNK_TRUNC;
			if (rc < 0) {
				n = 0;
				flags = SC_CHUNK_FAULT;
			}
			break;
		case SC_CAP_ARRAY_IN:
		case SC_CAP_ARRAY_INOUT:
		case SC_CAP_ARRAY_OUT: {
			uint64_t count = c->args[as->len_arg < SC_ARGS ? as->len_arg : 0] & 0xffffffffu;
			uint64_t max = lang_cg_call_array_max(as);

			if (as->cap == SC_CAP_ARRAY_OUT) {
				if (c->ret <= 0)
					continue;
				if (fixed || (uint64_t)c->ret < count)
					count = (uint64_t)c->ret;
			}
			n = (count < max ? count : max) * as->size;
			if (count > max)
				flags = SC_CHUNK_TRUNC;
			if (rc < 0) {
				n = 0;
				flags = SC_CHUNK_FAULT;
			}
			if (as->cap != SC_CAP_ARRAY_INOUT)
				break;
			/* read once at return: the input chunk, then (ret > 0) the
			 * output one, as the syscalls capture gives both */
			add_chunk(r, i, SC_CAP_ARRAY_IN, flags, c->data[slot], n);
			if (c->ret > 0)
				add_chunk(r, i, SC_CAP_ARRAY_OUT, flags, c->data[slot], n);
			continue;
		}
		case SC_CAP_STRUCT_IN:
		case SC_CAP_STRUCT_OUT:
			if (!as->size || as->size > LANG_REC_CALL_CAP ||
			    (as->cap == SC_CAP_STRUCT_OUT && c->ret < 0))
				continue;
			n = as->size;
			if (rc < 0) {
				n = 0;
				flags = SC_CHUNK_FAULT;
			}
			break;
		default:
			continue;
		}
		if (n > LANG_REC_CALL_CAP)
			n = LANG_REC_CALL_CAP;
		add_chunk(r, i, as->cap, flags, c->data[slot], n);
	}
	f = open_memstream(&line, &len);
	if (!f) {
		free(buf);
		return "?";
	}
	sc_print_call(f, si, r, sizeof(*r) + r->data_len, &fo);
	fclose(f);
	free(buf);
	out = line ? ar_alloc(rt, len + 1) : NULL;
	if (out)
		memcpy(out, line, len + 1);
	free(line);
	return out ? out : "?";
}

static void decode(struct rt *rt, const struct lang_type *t, const uint8_t *p,
		   struct lang_val *v, const struct lang_cg_arg *arg)
{
	const struct lang_cg *cg = rt->cg;
	int64_t i64;

	memset(v, 0, sizeof(*v));
	v->kind = t->kind;
	memcpy(&i64, p, sizeof(i64));
	if (arg && arg->render) {
		const char *s = NULL;

		if (arg->render == LANG_CG_RENDER_CALL) {
			s = render_call(rt, p);
		} else if (arg->render == LANG_CG_RENDER_STRERROR) {
			s = strerror((int)i64);
		} else {
			if (!rt->systab)
				rt->systab = sc_table_load();
			if (rt->systab && i64 >= 0 && i64 < SC_NR_MAX)
				s = sc_table_get(rt->systab, (int)i64)->name;
		}
		if (!s) {
			char *b = ar_alloc(rt, 24);

			if (b)
				snprintf(b, 24, "%" PRId64, i64);
			s = b;
		}
		v->kind = LANG_K_STR;
		v->s = s;
		v->len = s ? strlen(s) : 0;
		return;
	}
	switch (t->kind) {
	case LANG_K_INT:
	case LANG_K_SUM:
	case LANG_K_COUNT:
		v->i = i64;
		v->is_signed = t->kind != LANG_K_COUNT;
		return;
	case LANG_K_MIN:
	case LANG_K_MAX:
		v->i = i64;
		v->is_signed = true;
		return;
	case LANG_K_AVG:
	case LANG_K_STATS: {
		struct lang_rec_avg a;

		memcpy(&a, p, sizeof(a));
		v->count = a.count;
		v->sum = a.sum;
		v->is_signed = true;
		return;
	}
	case LANG_K_STR:
		v->s = (const char *)p;
		v->len = strnlen((const char *)p, cg->strlen);
		if (p[0] == 1 && (p[1] == 'E' || p[1] == 'S') && cg->strlen >= 16) {
			/* strerror(n), syscall_name(n) (codegen.c) */
			struct lang_cg_arg a = { .render = p[1] == 'E' ? LANG_CG_RENDER_STRERROR :
						 LANG_CG_RENDER_SYSCALL };

			decode(rt, &(struct lang_type){ .kind = LANG_K_INT }, p + 8, v, &a);
			return;
		}
		if (v->len >= 2 && v->len <= 6 && p[0] == 1 && p[1] == 'P') {
			/* a probe name too long for a string (codegen.c) */
			uint32_t prog;

			memcpy(&prog, p + 2, 4);
			for (size_t i = 0; i < rt->npts; i++)
				if (rt->pts[i].prog == (int)prog && rt->pts[i].pt) {
					v->s = rt->pts[i].pt->name;
					v->len = strlen(v->s);
					break;
				}
		}
		return;
	case LANG_K_BUF:
		v->len = (size_t)i64 > cg->strlen ? cg->strlen : (size_t)i64;
		v->s = (const char *)p + 8;
		return;
	case LANG_K_KSYM: {
		const char *name = ksym_text(rt, (uint64_t)i64, NULL);
		char *s = ar_alloc(rt, 24);

		if (name) {
			v->s = name;
		} else if (s) {
			snprintf(s, 24, "0x%" PRIx64, (uint64_t)i64);
			v->s = s;
		}
		v->len = v->s ? strlen(v->s) : 0;
		return;
	}
	case LANG_K_USYM: {
		char *s = ar_alloc(rt, 24);
		uint64_t pid;
		struct frame f;

		memcpy(&pid, p + 8, 8);
		if (user_frames(rt, (uint32_t)pid, UINT64_MAX, &(uint64_t){ (uint64_t)i64 }, 1,
				&f) == 1 && f.name && f.name[0] != '[') {
			v->s = f.name;
		} else if (s) {
			snprintf(s, 24, "0x%" PRIx64, (uint64_t)i64);
			v->s = s;
		}
		v->len = v->s ? strlen(v->s) : 0;
		return;
	}
	case LANG_K_TIMESTAMP: {
		uint64_t site, ns;

		memcpy(&site, p, 8);
		memcpy(&ns, p + 8, 8);
		v->i = (int64_t)ns;
		if (site < cg->nsites) {
			char *f = ar_alloc(rt, cg->sites[site].fmtlen + 1);

			if (f)
				memcpy(f, cg->sites[site].fmt, cg->sites[site].fmtlen);
			v->s = f;
			v->len = cg->sites[site].fmtlen;
		}
		return;
	}
	case LANG_K_STACK:
		decode_stack(rt, p, v);
		return;
	case LANG_K_HIST:
	case LANG_K_LHIST:
		return;		/* the buckets: read_map() */
	case LANG_K_TUPLE: {
		struct lang_val *e = ar_alloc(rt, (t->nelems + 1) * sizeof(*e));
		uint32_t at = 0;

		if (!e)
			return;
		for (size_t i = 0; i < t->nelems; i++) {
			decode(rt, &t->elems[i], p + at, &e[i], NULL);
			at += lang_cg_size(cg, &t->elems[i]);
		}
		v->elems = e;
		v->nelems = t->nelems;
		return;
	}
	default:
		v->kind = LANG_K_INT;
		v->i = i64;
		v->is_signed = true;
	}
}

/* ---- maps ------------------------------------------------------------ */

static bool percpu(const struct lang_cg_map *m)
{
	return m->type == BPF_MAP_TYPE_PERCPU_HASH || m->type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* Sums one element's per-CPU values into out (value_size bytes). */
static void reduce(struct rt *rt, const struct lang_cg_map *m, const uint8_t *all, uint8_t *out)
{
	size_t stride = (m->value_size + 7) & ~7u;
	enum lang_kind k = m->m ? m->m->value.kind : LANG_K_COUNT;

	memset(out, 0, m->value_size);
	for (int c = 0; c < rt->ncpus; c++) {
		const uint8_t *v = all + stride * (size_t)c;

		if (k == LANG_K_MIN || k == LANG_K_MAX) {
			struct lang_rec_minmax a, b;

			memcpy(&a, out, sizeof(a));
			memcpy(&b, v, sizeof(b));
			if (b.set && (!a.set || (k == LANG_K_MIN ? b.v < a.v : b.v > a.v)))
				memcpy(out, &b, sizeof(b));
			continue;
		}
		for (size_t i = 0; i + 8 <= m->value_size; i += 8) {
			uint64_t a, b;

			memcpy(&a, out + i, 8);
			memcpy(&b, v + i, 8);
			a += b;
			memcpy(out + i, &a, 8);
		}
	}
}

/* ---- user stacks in keys ---------------------------------------------- */

/* Does a value of type t hold a user stack? (whether it does is only
 * known from the bytes: any stack, then) */
static bool type_has_stack(const struct lang_type *t)
{
	if (t->kind == LANG_K_STACK)
		return true;
	for (size_t i = 0; t->kind == LANG_K_TUPLE && i < t->nelems; i++)
		if (type_has_stack(&t->elems[i]))
			return true;
	return false;
}

/* Calls fn on every stack in the bytes p of a value of type t. */
static void each_stack(struct rt *rt, const struct lang_type *t, uint8_t *p,
		       void (*fn)(struct rt *rt, uint8_t *p, void *arg), void *arg)
{
	uint32_t at = 0;

	if (t->kind == LANG_K_STACK) {
		fn(rt, p, arg);
		return;
	}
	for (size_t i = 0; t->kind == LANG_K_TUPLE && i < t->nelems; i++) {
		each_stack(rt, &t->elems[i], p + at, fn, arg);
		at += lang_cg_size(rt->cg, &t->elems[i]);
	}
}

/* A record's placeholders get the id of its unwound stack. */
static void fill_snap(struct rt *rt, uint8_t *p, void *arg)
{
	struct lang_rec_stack st;

	(void)arg;
	memcpy(&st, p, sizeof(st));
	if (st.user && (st.mode & LANG_STACK_SNAP) && st.id == -1) {
		st.id = rt->cur_snap;
		memcpy(p, &st, sizeof(st));
	}
}

/* A symbolized user stack and the key stack that first printed so. */
struct canon_ent {
	char *text;
	size_t len;
	int64_t id;
	uint32_t pid;
};

struct canon_key {
	const char *text;
	size_t len;
};

static bool canon_eq(const void *entry, const void *key)
{
	const struct canon_ent *e = entry;
	const struct canon_key *k = key;

	return e->len == k->len && !memcmp(e->text, k->text, k->len);
}

/* Identical symbolized user stacks of different processes print as one:
 * a key's user stack becomes the first one that printed the same (pid
 * and id of that one), so that equal keys merge. */
static void canon_stack(struct rt *rt, uint8_t *p, void *arg)
{
	struct lang_rec_stack st;
	struct lang_val v;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	struct canon_ent *e;
	uint64_t h;

	(void)arg;
	memcpy(&st, p, sizeof(st));
	if (!st.user || (!(st.mode & LANG_STACK_SNAP) && st.id < 0))
		return;
	memset(&v, 0, sizeof(v));
	decode_stack(rt, p, &v);
	f = open_memstream(&text, &len);
	if (!f)
		return;
	for (size_t i = 0; i < v.nframes; i++)
		fprintf(f, "%s %" PRIx64 " %s\n", v.frames[i].name ? v.frames[i].name : "",
			v.frames[i].name ? 0 : v.frames[i].addr,
			v.frames[i].module ? v.frames[i].module : "");
	if (fclose(f) || !text) {
		free(text);
		return;
	}
	if (!rt->canon && !(rt->canon = htab_new(0))) {
		free(text);
		return;
	}
	h = hash_bytes(text, len, st.mode);
	e = htab_find(rt->canon, h, &(struct canon_key){ text, len }, canon_eq);
	if (!e) {
		e = malloc(sizeof(*e));
		if (!e || htab_insert(rt->canon, h, e)) {
			free(e);
			free(text);
			return;
		}
		*e = (struct canon_ent){ text, len, st.id, st.pid };
		text = NULL;
	}
	free(text);
	st.id = e->id;
	st.pid = e->pid;
	memcpy(p, &st, sizeof(st));
}

static void canon_free(struct rt *rt)
{
	size_t pos = 0;
	struct canon_ent *e;

	if (!rt->canon)
		return;
	while ((e = htab_next(rt->canon, &pos))) {
		free(e->text);
		free(e);
	}
	htab_free(rt->canon);
	rt->canon = NULL;
}

/* ---- reading maps ------------------------------------------------------ */

/* A map's elements as bytes: key_size + value_size each (arena). */
struct raw_ents {
	uint8_t **kv;
	size_t n, cap;
};

static int raw_push(struct rt *rt, struct raw_ents *r, const struct lang_cg_map *m,
		    const void *key, const void *val)
{
	uint8_t *kv = ar_alloc(rt, (size_t)m->key_size + m->value_size);

	if (!kv)
		return -ENOMEM;
	if (r->n == r->cap) {
		size_t c = r->cap ? r->cap * 2 : 64;
		uint8_t **v = realloc(r->kv, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->kv = v;
		r->cap = c;
	}
	memcpy(kv, key, m->key_size);
	memcpy(kv + m->key_size, val, m->value_size);
	r->kv[r->n++] = kv;
	return 0;
}

struct merge_key {
	const uint8_t *key;
	uint32_t size;
};

static bool merge_eq(const void *entry, const void *key)
{
	const struct merge_key *k = key;

	return !memcmp(entry, k->key, k->size);
}

/* Keys holding user stacks: equal once symbolized, one element. */
static void merge_user_stacks(struct rt *rt, const struct lang_cg_map *m, struct raw_ents *r)
{
	struct htab *h = htab_new(r->n);
	size_t out = 0;

	if (!h)
		return;
	for (size_t i = 0; i < r->n; i++) {
		uint8_t *kv = r->kv[i], *prev;
		uint64_t hash;

		each_stack(rt, &m->key, kv, canon_stack, NULL);
		hash = hash_bytes(kv, m->key_size, 0);
		prev = htab_find(h, hash, &(struct merge_key){ kv, m->key_size }, merge_eq);
		if (prev) {
			lang_uagg_combine(m->m->value.kind, prev + m->key_size, kv + m->key_size,
					  m->value_size);
			continue;
		}
		if (htab_insert(h, hash, kv)) {
			/* out of memory: the rest stay apart */
			while (i < r->n)
				r->kv[out++] = r->kv[i++];
			break;
		}
		r->kv[out++] = kv;
	}
	r->n = out;
	htab_free(h);
}

/* Every element of a user map, decoded into ents (arena): the count or -errno. */
static ssize_t read_map(struct rt *rt, const struct lang_cg_map *m, struct lang_map_entry **ents)
{
	size_t stride = (m->value_size + 7) & ~7u, n = 0;
	size_t vbytes = percpu(m) ? stride * (size_t)rt->ncpus : m->value_size;
	uint8_t *key = ar_alloc(rt, m->key_size), *next = ar_alloc(rt, m->key_size);
	uint8_t *raw = ar_alloc(rt, vbytes), *val = ar_alloc(rt, m->value_size);
	struct raw_ents r = { 0 };
	struct lang_map_entry *e = NULL;
	void *prev = NULL;
	unsigned guard = 0;
	const struct lang_uagg *ua = rt->uagg ? rt->uagg[m - rt->cg->maps] : NULL;

	if (!key || !next || !raw || !val)
		return -ENOMEM;
	if (ua) {
		for (size_t i = 0; i < lang_uagg_count(ua); i++) {
			const void *k, *v;

			lang_uagg_get(ua, i, &k, &v);
			if (raw_push(rt, &r, m, k, v))
				break;
		}
	} else {
		while (!bpf_map_get_next_key(m->fd, prev, next) && guard++ < m->max_entries + 16) {
			memcpy(key, next, m->key_size);
			prev = key;
			if (bpf_map_lookup_elem(m->fd, key, raw))
				continue;
			if (percpu(m))
				reduce(rt, m, raw, val);
			else
				memcpy(val, raw, m->value_size);
			if (raw_push(rt, &r, m, key, val))
				break;
		}
	}
	if (m->m->nkeys > 0 && type_has_stack(&m->key))
		merge_user_stacks(rt, m, &r);
	e = malloc((r.n + 1) * sizeof(*e));
	if (!e) {
		free(r.kv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r.n; i++) {
		uint8_t *kc = r.kv[i], *vc = r.kv[i] + m->key_size;
		struct lang_val *kv = NULL;

		if (m->m->nkeys > 0) {
			kv = ar_alloc(rt, sizeof(*kv));
			if (!kv)
				break;
			if (m->m->nkeys == 1)
				decode(rt, &m->m->keys[0], kc, kv, NULL);
			else
				decode(rt, &m->key, kc, kv, NULL);
		}
		e[n].key = kv;
		decode(rt, &m->m->value, vc, &e[n].value, NULL);
		if (m->m->value.kind == LANG_K_HIST || m->m->value.kind == LANG_K_LHIST) {
			e[n].value.buckets = (const uint64_t *)vc;
			e[n].value.nbuckets = m->nbuckets;
			e[n].value.k = m->hist_k;
			e[n].value.lmin = m->lmin;
			e[n].value.lmax = m->lmax;
			e[n].value.lstep = m->lstep;
		}
		n++;
	}
	free(r.kv);
	n = lang_stack_keys_merge(e, n);
	*ents = e;
	return (ssize_t)n;
}

static int print_map(struct rt *rt, const struct lang_cg_map *m, uint32_t top, uint32_t div)
{
	struct lang_map_entry *ents = NULL;
	ssize_t n = read_map(rt, m, &ents);
	int err;

	if (n < 0)
		return (int)n;
	err = lang_out_map(rt->out, m->m->name, ents, (size_t)n, top, div);
	free(ents);
	return err;
}

static int print_all_maps(struct rt *rt)
{
	struct lang_out_mapdata *md = calloc(rt->cg->nmaps + 1, sizeof(*md));
	size_t n = 0;
	int err;

	if (!md)
		return -ENOMEM;
	for (size_t i = 0; i < rt->cg->nmaps; i++) {
		const struct lang_cg_map *m = &rt->cg->maps[i];
		struct lang_map_entry *ents = NULL;
		ssize_t k;

		if (m->role != LANG_CGM_USER || m->fd < 0)
			continue;
		/* -o FILE.svg: the map drawn goes to the file, not the text */
		if (rt->o->flame && !strcmp(m->m->name, lang_flame_map(rt->o->flame)))
			continue;
		k = read_map(rt, m, &ents);
		if (k < 0)
			continue;
		md[n].name = m->m->name;
		md[n].ents = ents;
		md[n].n = (size_t)k;
		n++;
	}
	err = lang_out_maps(rt->out, md, n);
	for (size_t i = 0; i < n; i++)
		free((void *)md[i].ents);
	free(md);
	ar_reset(rt);
	return err;
}

/* -o FILE.svg: the map as it is after END, drawn and written. */
static int save_flame(struct rt *rt)
{
	struct lang_flame *fl = rt->o->flame;
	const char *name = lang_flame_map(fl);
	int err = 0;

	for (size_t i = 0; i < rt->cg->nmaps && !err; i++) {
		const struct lang_cg_map *m = &rt->cg->maps[i];
		struct lang_map_entry *ents = NULL;
		ssize_t n;

		if (m->role != LANG_CGM_USER || m->fd < 0 || strcmp(m->m->name, name))
			continue;
		n = read_map(rt, m, &ents);
		err = n < 0 ? (int)n : lang_flame_add(fl, ents, (size_t)n);
		free(ents);
		ar_reset(rt);
	}
	if (err) {
		msg("%s: %s", name, strerror(-err));
		return err;
	}
	return lang_flame_save(fl);
}

/* clear(@m) deletes every element; zero(@m) zeroes every value. */
static void clear_map(struct rt *rt, const struct lang_cg_map *m, bool zero)
{
	size_t stride = (m->value_size + 7) & ~7u;
	size_t vbytes = percpu(m) ? stride * (size_t)rt->ncpus : m->value_size;
	uint8_t *key = calloc(1, m->key_size), *next = calloc(1, m->key_size);
	uint8_t *zeros = calloc(1, vbytes);
	unsigned guard = 0;

	if (!key || !next || !zeros)
		goto out;
	if (zero) {
		void *prev = NULL;

		while (!bpf_map_get_next_key(m->fd, prev, next) && guard++ < m->max_entries + 16) {
			memcpy(key, next, m->key_size);
			prev = key;
			bpf_map_update_elem(m->fd, key, zeros, BPF_EXIST);
		}
	} else {
		while (!bpf_map_get_next_key(m->fd, NULL, next) && guard++ < m->max_entries + 16)
			bpf_map_delete_elem(m->fd, next);
	}
out:
	free(key);
	free(next);
	free(zeros);
}

/* ---- records ---------------------------------------------------------- */

/* Unwinds the snapshot after the site's bytes (rec.h) into rt->cur_snap
 * and fills the record's placeholders; -EINVAL: a malformed record
 * (counted). */
static int take_snapshot(struct rt *rt, const struct lang_cg_site *s, const void *data,
			 size_t size, uint8_t *copy)
{
	size_t at = (s->size + 7) & ~(size_t)7;
	struct lang_rec_snap sn;
	uint64_t *ips = rt->ips;
	bool trunc = false;
	uint64_t begin;
	int n = 0;

	rt->cur_snap = -1;
	if (!rt->sp || !rt->us || !rt->ips || size < at + sizeof(sn)) {
		rt->bad_snaps++;
		return -EINVAL;
	}
	memcpy(&sn, (const uint8_t *)data + at, sizeof(sn));
	if (sn.size > size - at - sizeof(sn)) {
		rt->bad_snaps++;
		return -EINVAL;
	}
	/* a kernel thread (no user context): an empty stack */
	begin = 0;
	if (sn.ip) {
		struct unwind_regs regs = { sn.ip, sn.sp, sn.bp };
		const uint8_t *stack = (const uint8_t *)data + at + sizeof(sn);

		/* unwound under the address space's own name (begin + 1), so
		 * that the unwinder's cache serves every sample of it */
		stackpipe_sync_for(rt->sp, sn.pid, false);
		begin = stackpipe_space_begin(rt->sp, sn.pid, sn.time);
		n = stackpipe_unwind(rt->sp, sn.pid, begin + 1, &regs, stack, sn.size, ips,
				     UNWIND_MAX_DEPTH, &trunc);
		if (trunc) {
			/* a mapping made since the side-band was read (a library
			 * just loaded, an exec): read it, unwind again (begin + 2
			 * names the same address space, past the cached walk) */
			stackpipe_sync_for(rt->sp, sn.pid, true);
			begin = stackpipe_space_begin(rt->sp, sn.pid, sn.time);
			n = stackpipe_unwind(rt->sp, sn.pid, begin + 2, &regs, stack, sn.size, ips,
					     UNWIND_MAX_DEPTH, &trunc);
		}
		if (n < 0)
			n = 0;
		if (!n)
			trunc = true;
	}
	if (s->kind == LANG_CGS_UAGG) {
		/* a key: kept for the print */
		rt->cur_snap = lang_ustacks_add(rt->us, sn.pid, begin + 1, ips, n, trunc);
		if (rt->cur_snap < 0)
			return (int)rt->cur_snap;
	} else {
		/* printed now: not kept */
		rt->tmp_stack = (struct lang_ustack){ .pid = sn.pid, .gen = begin + 1,
			.truncated = trunc, .n = n, .ips = ips, .id = CUR_SNAP_TMP };
		rt->cur_snap = CUR_SNAP_TMP;
	}
	for (size_t i = 0; i < s->nargs; i++)
		each_stack(rt, &s->args[i].type, copy + s->args[i].off, fill_snap, NULL);
	return 0;
}

/* @m[key] op= operand for a map aggregated here. */
static void uagg_record(struct rt *rt, const struct lang_cg_site *s, const void *data)
{
	struct lang_uagg *ua = s->map >= 0 && rt->uagg ? rt->uagg[s->map] : NULL;
	int64_t operand;

	if (!ua || s->nargs != 2)
		return;
	memcpy(&operand, (const uint8_t *)data + s->args[1].off, sizeof(operand));
	if (lang_uagg_add(ua, (const uint8_t *)data + s->args[0].off, operand))
		rt->uagg_full[s->map]++;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	struct lang_rec_hdr h;
	const struct lang_cg_site *s;
	struct lang_val *vals;
	int err = 0;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (h.site >= rt->cg->nsites)
		return 0;
	/* after exit() only END speaks */
	if (rt->exited && !rt->in_end)
		return 0;
	s = &rt->cg->sites[h.site];
	if (size < s->size)
		return 0;
	if (s->snap) {
		/* the ring buffer is read-only here: the placeholders are
		 * filled in a copy (of the site's bytes; the stack is read
		 * where it is) */
		void *copy = ar_alloc(rt, s->size);

		if (!copy)
			return 0;
		memcpy(copy, data, s->size);
		if (take_snapshot(rt, s, data, size, copy)) {
			ar_reset(rt);
			return 0;
		}
		data = copy;
	}
	if (s->kind == LANG_CGS_UAGG) {
		uagg_record(rt, s, data);
		ar_reset(rt);
		return 0;
	}
	vals = ar_alloc(rt, (s->nargs + 1) * sizeof(*vals));
	if (!vals)
		return 0;
	for (size_t i = 0; i < s->nargs; i++)
		decode(rt, &s->args[i].type, (const uint8_t *)data + s->args[i].off, &vals[i],
		       &s->args[i]);
	switch (s->kind) {
	case LANG_CGS_PRINTF:
	case LANG_CGS_ERRORF:
		err = lang_out_printf(rt->out, s->fmt, s->fmtlen, vals, s->nargs);
		break;
	case LANG_CGS_PRINT_VAL:
		if (s->nargs)
			err = lang_out_value(rt->out, &vals[0]);
		break;
	case LANG_CGS_PRINT_MAP:
		if (s->map >= 0)
			err = print_map(rt, &rt->cg->maps[s->map], s->top, s->div);
		break;
	case LANG_CGS_TIME: {
		char fmt[256];
		size_t n = s->fmt ? (s->fmtlen < sizeof(fmt) - 1 ? s->fmtlen : sizeof(fmt) - 1) : 0;

		if (s->fmt)
			memcpy(fmt, s->fmt, n);
		else
			n = (size_t)snprintf(fmt, sizeof(fmt), "%%H:%%M:%%S\n");
		fmt[n] = 0;
		err = lang_out_time(rt->out, fmt, time(NULL));
		break;
	}
	case LANG_CGS_EXIT:
		if (!rt->in_end) {
			rt->exited = true;
			if (s->nargs) {
				rt->exit_code = (int)vals[0].i;
				rt->has_exit_code = true;
			}
			if (rt->s)
				session_stop(rt->s);
		}
		break;
	case LANG_CGS_JOIN: {
		const char *parts[LANG_CG_JOIN_MAX];
		char delim[64];
		size_t n = 0, dl = s->fmt ? (s->fmtlen < sizeof(delim) - 1 ? s->fmtlen : sizeof(delim) - 1) : 1;

		memcpy(delim, s->fmt ? s->fmt : " ", dl);
		delim[dl] = 0;
		for (; n < LANG_CG_JOIN_MAX; n++) {
			const char *p = (const char *)data + sizeof(h) + n * rt->cg->strlen;

			/* a NUL at the end of every slot: the kernel wrote at most max_strlen */
			if (!*p || memchr(p, 0, rt->cg->strlen) == NULL)
				break;
			parts[n] = p;
		}
		err = lang_out_join(rt->out, parts, n, delim);
		break;
	}
	case LANG_CGS_CLEAR:
	case LANG_CGS_ZERO:
		if (s->map >= 0 && rt->uagg && rt->uagg[s->map]) {
			if (s->kind == LANG_CGS_ZERO)
				lang_uagg_zero(rt->uagg[s->map]);
			else
				lang_uagg_clear(rt->uagg[s->map]);
		} else if (s->map >= 0) {
			clear_map(rt, &rt->cg->maps[s->map], s->kind == LANG_CGS_ZERO);
		}
		break;
	default:
		break;
	}
	ar_reset(rt);
	if (err && err != -EINVAL && !rt->err) {
		rt->err = err;
		return err;
	}
	return 0;
}

/* ---- generating ------------------------------------------------------ */

struct field_ctx {
	struct lang_probes *pr;
	const struct lang_point *pt;
};

static int field_cb(void *ctx, const char *name, unsigned n, struct lang_field_access *acc)
{
	struct field_ctx *f = ctx;

	if (!name)
		return lang_probes_argn(f->pr, f->pt, n, acc);
	if (!strcmp(name, "retval"))
		return lang_probes_retval(f->pr, f->pt, acc);
	return lang_probes_field(f->pr, f->pt, name, acc);
}

/* Whether a probe's code depends on its point (probe, func, args...). */
static bool per_point(const struct lang_node *n)
{
	if (!n)
		return false;
	if (n->kind == LANG_N_BUILTIN &&
	    (!strcmp(n->name, "probe") || !strcmp(n->name, "func") || !strcmp(n->name, "args") ||
	     !strcmp(n->name, "retval") || !strncmp(n->name, "arg", 3) ||
	     !strcmp(n->name, "call")))
		return true;
	if (per_point(n->a) || per_point(n->b) || per_point(n->c))
		return true;
	for (size_t i = 0; i < n->n; i++)
		if (per_point(n->list[i]))
			return true;
	return false;
}

static int add_point(struct rt *rt, const struct lang_probe *p, const struct lang_attach *at,
		     struct lang_point *pt, int prog)
{
	struct rt_point *np = realloc(rt->pts, (rt->npts + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	rt->pts = np;
	rt->pts[rt->npts++] = (struct rt_point){ pt, at, p, prog };
	return 0;
}

static int generate(struct rt *rt)
{
	int bad = 0;

	for (const struct lang_probe *p = rt->prog->probes; p; p = p->next) {
		bool each = per_point(p->pred) || per_point(p->body);

		for (size_t a = 0; a < p->nattach; a++) {
			const struct lang_attach *at = &p->attach[a];
			struct lang_point **pts = NULL;
			size_t n = 0;
			int shared = -1;

			if (at->provider == LANG_P_BEGIN || at->provider == LANG_P_END) {
				struct lang_cg_point cp = { .at = at, .name = at->provider == LANG_P_BEGIN ?
					"BEGIN" : "END", .type = BPF_PROG_TYPE_RAW_TRACEPOINT };
				int idx = lang_cg_gen(rt->cg, p, &cp);

				if (idx < 0 || add_point(rt, p, at, NULL, idx))
					bad = 1;
				continue;
			}
			if (lang_probes_expand(rt->pr, at, &pts, &n)) {
				bad = 1;
				continue;
			}
			for (size_t i = 0; i < n; i++) {
				struct field_ctx fc = { rt->pr, pts[i] };
				struct lang_cg_point cp = { .at = at, .name = pts[i]->name,
					.func = pts[i]->func, .type = pts[i]->prog_type,
					.field = field_cb, .ctx = &fc };
				int idx = shared;

				if (pts[i]->provider == LANG_P_SYSCALL)
					cp.sys = pts[i]->priv;
				if (idx < 0) {
					idx = lang_cg_gen(rt->cg, p, &cp);
					if (idx < 0) {
						bad = 1;
						break;
					}
					if (!each)
						shared = idx;
				}
				if (add_point(rt, p, at, pts[i], idx)) {
					bad = 1;
					break;
				}
			}
		}
	}
	return bad ? -EINVAL : 0;
}

/* ---- loading ------------------------------------------------------- */

static int create_maps(struct rt *rt)
{
	for (size_t i = 0; i < rt->cg->nmaps; i++) {
		struct lang_cg_map *m = &rt->cg->maps[i];
		bool rb = m->type == BPF_MAP_TYPE_RINGBUF;
		int fd = bpf_map_create(m->type, m->name, rb ? 0 : m->key_size, rb ? 0 : m->value_size,
					m->max_entries, NULL);

		if (fd < 0) {
			int err = -errno;

			msg("map %s: cannot create (%s, key %u bytes, value %u, %u entries): %s",
			    m->role == LANG_CGM_USER ? m->m->name : m->name,
			    libbpf_bpf_map_type_str(m->type), m->key_size, m->value_size,
			    m->max_entries, strerror(-err));
			return err;
		}
		m->fd = fd;
	}
	return 0;
}

/* The last instruction index a verifier log names ("123: (bf) ..."). */
static long last_insn(const char *log, size_t n)
{
	long last = -1;

	for (const char *l = log; l && *l;) {
		const char *eol = strchr(l, '\n'), *in;
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		char *end;
		long v = strtol(l, &end, 10);

		if (end != l && *end == ':' && end[1] == ' ' && v >= 0 && (size_t)v < n)
			last = v;
		/* "unreachable insn 12", "jump out of range from insn 3 to 9" */
		for (in = memmem(l, len, " insn ", 6); in; in = memmem(in + 1, len - (size_t)(in + 1 - l), " insn ", 6)) {
			v = strtol(in + 6, &end, 10);
			if (end != in + 6 && v >= 0 && (size_t)v < n)
				last = v;
		}
		l = eol ? eol + 1 : NULL;
	}
	return last;
}

static void say_verifier(struct rt *rt, const struct lang_cg_prog *p, const struct rt_point *pt,
			 const char *log, int err)
{
	const char *what = pt && pt->pt ? pt->pt->name : p->probe->attach[0].text;
	long at = last_insn(log, p->code.n);
	struct lang_pos pos = at >= 0 ? lang_cg_insn_pos(p, (size_t)at) : (struct lang_pos){ 0, 0 };
	size_t len = strlen(log);
	const char *tail = log + len;
	int lines = 0;

	while (tail > log && lines <= VERIFIER_TAIL_LINES) {
		tail--;
		if (*tail == '\n' && tail + 1 < log + len)
			lines++;
	}
	if (tail > log)
		tail++;
	if (!pos.line)
		pos = p->probe->pos;
	lang_errorf(rt->prog, pos, "%s: the kernel's verifier refused the program (%s)%s",
		    what ? what : "?", strerror(-err),
		    at >= 0 ? ", at the instruction made for this" : "");
	lang_print_errors(stderr, rt->prog);
	if (rt->o->verbose)
		fputs(log, stderr);
	else if (*tail)
		fprintf(stderr, "the verifier's last lines (-v for the whole log):\n%s%s", tail,
			tail[strlen(tail) - 1] == '\n' ? "" : "\n");
}

/* The BTF of programs with functions (for loops' bodies), loaded
 * once: its fd, or -errno with the reason said. */
static int load_func_btf(void)
{
	uint32_t size;
	void *blob = lang_cg_btf(&size);
	int fd;

	if (!blob)
		return -ENOMEM;
	fd = bpf_btf_load(blob, size, NULL);
	if (fd < 0) {
		fd = -errno;
		msg("for loops: the kernel refused the BTF of their callback functions: %s",
		    strerror(-fd));
	}
	free(blob);
	return fd;
}

static int load_progs(struct rt *rt)
{
	int btf_fd = -1, err = 0;

	rt->prog_fds = malloc((rt->cg->nprogs + 1) * sizeof(int));
	if (!rt->prog_fds)
		return -ENOMEM;
	for (size_t i = 0; i < rt->cg->nprogs; i++)
		rt->prog_fds[i] = -1;
	for (size_t i = 0; i < rt->cg->nprogs; i++) {
		struct lang_cg_prog *p = &rt->cg->progs[i];
		const struct rt_point *pt = NULL;
		LIBBPF_OPTS(bpf_prog_load_opts, lo);
		struct bpf_func_info *fi = NULL;
		int fd;

		if (p->nfuncs) {
			/* callbacks must be BTF functions (static ones) */
			if (btf_fd < 0 && (btf_fd = load_func_btf()) < 0) {
				err = btf_fd;
				break;
			}
			fi = calloc(p->nfuncs + 1, sizeof(*fi));
			if (!fi) {
				err = -ENOMEM;
				break;
			}
			fi[0] = (struct bpf_func_info){ 0, LANG_CG_BTF_PROG };
			for (size_t k = 0; k < p->nfuncs; k++)
				fi[k + 1] = (struct bpf_func_info){ p->funcs[k], p->func_types[k] };
			lo.prog_btf_fd = btf_fd;
			lo.func_info = fi;
			lo.func_info_rec_size = sizeof(*fi);
			lo.func_info_cnt = (uint32_t)p->nfuncs + 1;
		}

		for (size_t k = 0; k < rt->npts; k++)
			if (rt->pts[k].prog == (int)i) {
				pt = &rt->pts[k];
				break;
			}
		if (pt && pt->pt) {
			lo.expected_attach_type = pt->pt->attach_type;
			lo.attach_btf_id = pt->pt->attach_btf_id;
		}
		lang_cg_patch_fds(rt->cg, p);
		fd = bpf_prog_load(p->type, p->name, "GPL", p->code.insn, p->code.n, &lo);
		if (fd < 0) {
			char *log;

			err = -errno;
			log = malloc(VERIFIER_LOG_SIZE);
			if (log) {
				log[0] = 0;
				lo.log_buf = log;
				lo.log_size = VERIFIER_LOG_SIZE;
				lo.log_level = 1;
				fd = bpf_prog_load(p->type, p->name, "GPL", p->code.insn, p->code.n, &lo);
				if (fd < 0) {
					/* ENOSPC: only the log was cut; the first load's error is the reason */
					if (errno != ENOSPC)
						err = -errno;
					say_verifier(rt, p, pt, log, err);
				}
				free(log);
			} else {
				msg("%s: cannot load: %s", p->name, strerror(-err));
			}
		}
		free(fi);
		if (fd < 0)
			break;
		rt->prog_fds[i] = fd;
	}
	if (btf_fd >= 0)
		close(btf_fd);
	return err;
}

static int test_run(struct rt *rt, int fd)
{
	uint64_t ctx[1] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, to, .ctx_in = ctx, .ctx_size_in = sizeof(ctx));

	if (bpf_prog_test_run_opts(fd, &to)) {
		int err = -errno;

		msg("BEGIN/END: cannot run: %s", strerror(-err));
		return err;
	}
	return 0;
}

static int run_special(struct rt *rt, enum lang_provider which)
{
	for (size_t i = 0; i < rt->npts; i++)
		if (!rt->pts[i].pt && rt->pts[i].at->provider == which) {
			int err = test_run(rt, rt->prog_fds[rt->pts[i].prog]);

			if (err)
				return err;
			session_drain(rt->s);
			if (rt->err)
				return rt->err;
		}
	return 0;
}

/* exit() sets state[0] (code << 1 | 1) before its record, which the ring
 * buffer may refuse: the flag is the truth. */
static int check_state(void *ctx)
{
	struct rt *rt = ctx;
	uint64_t v = 0;

	if (rt->exited || rt->in_end)
		return 0;
	if (bpf_map_lookup_elem(rt->cg->maps[rt->cg->state].fd, &(uint32_t){ 0 }, &v) || !v)
		return 0;
	rt->exited = true;
	rt->exit_code = (int)((int64_t)v >> 1);
	rt->has_exit_code = true;
	session_stop(rt->s);
	return 0;
}

static uint64_t sum_percpu(struct rt *rt, int fd, uint32_t key)
{
	uint64_t *v = calloc((size_t)rt->ncpus, 8), n = 0;

	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(fd, &key, v))
		for (int c = 0; c < rt->ncpus; c++)
			n += v[c];
	free(v);
	return n;
}

static void report_losses(struct rt *rt)
{
	uint64_t lost = 0;

	if (rt->cg->lost >= 0 && rt->cg->maps[rt->cg->lost].fd >= 0)
		for (size_t i = 0; i < rt->cg->nprogs; i++)
			lost += sum_percpu(rt, rt->cg->maps[rt->cg->lost].fd, (uint32_t)i);
	if (lost) {
		lang_out_lost(rt->out, lost);
		session_count(rt->s, "events lost", lost, SESSION_LOSS);
	}
	if (rt->lost_stacks) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%" PRIu64 " stacks printed as [lost stack]: their "
			 "bucket of the stack map held another stack", rt->lost_stacks);
		lang_out_error(rt->out, buf);
		session_count(rt->s, "stacks lost", rt->lost_stacks, SESSION_LOSS);
	}
	if (rt->bad_snaps) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%" PRIu64 " records with a user stack were malformed "
			 "or could not be unwound", rt->bad_snaps);
		lang_out_error(rt->out, buf);
		session_count(rt->s, "user stacks lost", rt->bad_snaps, SESSION_LOSS);
	}
	/* firings the kernel skipped: the program would have run while
	 * another kprobe-type BPF program was running on that CPU (a uprobe
	 * handler preempted there, for one) */
	lost = 0;
	for (size_t i = 0; i < rt->cg->nprogs; i++) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);

		if (rt->prog_fds && rt->prog_fds[i] >= 0 &&
		    !bpf_obj_get_info_by_fd(rt->prog_fds[i], &info, &len))
			lost += info.recursion_misses;
	}
	if (lost) {
		char buf[160];

		snprintf(buf, sizeof(buf), "%" PRIu64 " probe firings missed: the kernel skipped "
			 "the program while another BPF program ran on that CPU", lost);
		lang_out_error(rt->out, buf);
		session_count(rt->s, "probe firings missed", lost, SESSION_LOSS);
	}
	for (size_t i = 0; i < rt->cg->nmaps; i++) {
		const struct lang_cg_map *m = &rt->cg->maps[i];
		uint64_t n;
		char buf[256];

		if (m->role != LANG_CGM_USER || rt->cg->maps[rt->cg->full].fd < 0)
			continue;
		n = sum_percpu(rt, rt->cg->maps[rt->cg->full].fd, (uint32_t)i);
		if (rt->uagg_full)
			n += rt->uagg_full[i];
		if (!n)
			continue;
		snprintf(buf, sizeof(buf), "%s: %" PRIu64 " updates lost: the map was full "
			 "(max_map_keys=%u)", m->m->name, n, m->max_entries);
		lang_out_error(rt->out, buf);
		session_count(rt->s, "map updates lost", n, SESSION_LOSS);
	}
}

/* Does the program name user addresses (ustack, usym)? */
static bool names_user(const struct lang_node *n)
{
	if (!n)
		return false;
	if ((n->kind == LANG_N_BUILTIN || n->kind == LANG_N_CALL) &&
	    (!strcmp(n->name, "ustack") || !strcmp(n->name, "usym")))
		return true;
	if (names_user(n->a) || names_user(n->b) || names_user(n->c))
		return true;
	for (size_t i = 0; i < n->n; i++)
		if (names_user(n->list[i]))
			return true;
	return false;
}

/* User stacks and symbols: the pipeline (side-band first, so that the
 * mappings of a process that exits or execs stay known), the tables. */
static int ustack_setup(struct rt *rt)
{
	bool user = false;

	for (const struct lang_probe *p = rt->prog->probes; p && !user; p = p->next)
		user = names_user(p->pred) || names_user(p->body);
	if (!user)
		return 0;
	rt->sp = stackpipe_new(rt->s, &(struct stackpipe_opts){ .user = true,
							       .unwind = UNWIND_AUTO });
	if (!rt->sp)
		return -errno;
	rt->us = lang_ustacks_new();
	rt->ips = calloc(UNWIND_MAX_DEPTH, sizeof(*rt->ips));
	rt->uagg = calloc(rt->cg->nmaps + 1, sizeof(*rt->uagg));
	rt->uagg_full = calloc(rt->cg->nmaps + 1, sizeof(*rt->uagg_full));
	if (!rt->us || !rt->ips || !rt->uagg || !rt->uagg_full)
		return -ENOMEM;
	for (size_t i = 0; i < rt->cg->nmaps; i++) {
		const struct lang_cg_map *m = &rt->cg->maps[i];

		if (!m->uagg)
			continue;
		rt->uagg[i] = lang_uagg_new(m->key_size, m->value_size, m->m->value.kind,
					    m->nbuckets, rt->cg->o.max_map_keys);
		if (!rt->uagg[i])
			return -ENOMEM;
	}
	return 0;
}

static void ustack_free(struct rt *rt)
{
	if (rt->uagg)
		for (size_t i = 0; rt->cg && i < rt->cg->nmaps; i++)
			lang_uagg_free(rt->uagg[i]);
	free(rt->uagg);
	free(rt->uagg_full);
	free(rt->ips);
	lang_ustacks_free(rt->us);
	canon_free(rt);
	stackpipe_free(rt->sp);
}

static struct timespec boottime(void)
{
	struct timespec rt, bt, r;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	r.tv_sec = rt.tv_sec - bt.tv_sec;
	r.tv_nsec = rt.tv_nsec - bt.tv_nsec;
	if (r.tv_nsec < 0) {
		r.tv_nsec += 1000000000L;
		r.tv_sec--;
	}
	return r;
}

int lang_run(struct lang_prog *prog, struct lang_probes *pr, const struct lang_run_opts *o)
{
	struct rt rt = { .prog = prog, .pr = pr, .o = o };
	struct lang_cg_opts co = { .nparams = o->nparams, .params = o->params,
				   .ringbuf_size = o->ringbuf_size,
				   /* only a kernel known to lack it (not one that
				    * refused the probe, which --dump bpf may run for) */
				   .no_bpf_loop = feature_probe(FEATURE_BPF_LOOP) == -EOPNOTSUPP };
	struct timespec mono;
	unsigned attached = 0;
	int err = 0, status;
	FILE *f;

	rt.ncpus = libbpf_num_possible_cpus();
	if (rt.ncpus <= 0)
		rt.ncpus = 1;
	rt.s = session_new(o->so);
	if (!rt.s)
		return 1;
	if (!o->dump_bpf && (err = session_launch(rt.s)))
		goto end;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	co.start_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	co.ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	co.ncpus_possible = (uint32_t)rt.ncpus;
	co.cpid = (uint64_t)session_child(rt.s);
	rt.cg = lang_cg_new(prog, &co);
	if (!rt.cg || generate(&rt)) {
		lang_print_errors(stderr, prog);
		err = -EINVAL;
		goto end;
	}
	if (o->dump_bpf) {
		lang_cg_dump(stdout, rt.cg);
		err = fflush(stdout) ? -EIO : 0;
		goto end;
	}
	if ((err = create_maps(&rt)) || (err = load_progs(&rt)))
		goto end;
	if (o->dry_run)
		goto end;
	f = session_output(rt.s);
	if (!f) {
		err = -errno;
		goto end;
	}
	rt.out = lang_out_new(f, o->fmt);
	if (!rt.out) {
		err = -ENOMEM;
		goto end;
	}
	rt.boot = boottime();
	lang_out_set_boottime(rt.out, rt.boot);
	/* before the ring buffer: its drain step reads the side-band first */
	if ((err = ustack_setup(&rt)))
		goto end;
	err = session_add_ringbuf(rt.s, rt.cg->maps[rt.cg->ringbuf].fd, on_record, &rt);
	if (!err)
		err = session_add_drain(rt.s, check_state, &rt);
	if (err)
		goto end;
	/* BEGIN first, as bpftrace: its output precedes any other probe's */
	for (size_t i = 0; i < rt.npts; i++)
		attached += !rt.pts[i].pt && rt.pts[i].at->provider == LANG_P_BEGIN;
	if ((err = run_special(&rt, LANG_P_BEGIN)))
		goto end;
	if (rt.exited) {
		/* BEGIN ended the run: BEGIN (and END) are what ran */
		for (size_t i = 0; i < rt.npts; i++)
			attached += !rt.pts[i].pt && rt.pts[i].at->provider == LANG_P_END;
		if (!o->quiet)
			lang_out_attached(rt.out, attached);
	}
	if (!rt.exited) {
		for (size_t i = 0; i < rt.npts; i++) {
			if (!rt.pts[i].pt)
				continue;
			err = lang_probes_attach(rt.s, pr, rt.pts[i].pt, rt.prog_fds[rt.pts[i].prog]);
			if (err)
				goto end;
			attached++;
		}
		for (size_t i = 0; i < rt.npts; i++)
			attached += !rt.pts[i].pt && rt.pts[i].at->provider == LANG_P_END;
		if (rt.sp)
			stackpipe_start(rt.sp);
		if (!o->quiet)
			lang_out_attached(rt.out, attached);
		fflush(f);
		err = session_run(rt.s);
	}
	session_detach(rt.s);
	if (!err)
		err = session_drain(rt.s);
	rt.in_end = true;
	if (!err)
		err = run_special(&rt, LANG_P_END);
	if (!err && rt.cg->print_maps_on_exit)
		err = print_all_maps(&rt);
	if (!err && o->flame)
		err = save_flame(&rt);
	report_losses(&rt);
	if (rt.err && !err)
		err = rt.err;
end:
	lang_out_free(rt.out);
	status = session_end(rt.s, err);
	/* exit() ends the run, and a command with it: its status is exit()'s */
	if (!err && rt.exited)
		status = rt.has_exit_code ? rt.exit_code : 0;
	ustack_free(&rt);
	session_free(rt.s);
	if (rt.prog_fds)
		for (size_t i = 0; i < rt.cg->nprogs; i++)
			if (rt.prog_fds[i] >= 0)
				close(rt.prog_fds[i]);
	free(rt.prog_fds);
	if (rt.cg)
		for (size_t i = 0; i < rt.cg->nmaps; i++)
			if (rt.cg->maps[i].fd >= 0)
				close(rt.cg->maps[i].fd);
	lang_cg_free(rt.cg);
	free(rt.pts);
	ar_reset(&rt);
	symbolizer_free(rt.sym);
	symcache_free(rt.symcache);
	proctab_free(rt.proctab);
	ksyms_free(rt.ksyms);
	sc_table_free(rt.systab);
	return err ? 1 : status;
}
