/* Unwinding a user stack inside the kernel with the binaries' unwind
 * tables (unwind/table.h rows, loaded by unwind/kload.c; the layouts are
 * bpf/kunwind.h): the same rules as the user-space unwinder
 * (unwind/unwind.c) applied to the live stack, read word by word, so
 * only the resulting pcs are stored (the `stacks` map), never a copy of
 * the stack.
 *
 * The walk is one bpf_loop() over the frames (verified once, whatever
 * the depth); each frame finds its mapping by a binary search over the
 * process's sorted mappings (KUNWIND_MAP_STEPS) and its row by one over
 * the binary's rows (KUNWIND_ROW_STEPS).  Where no table covers a pc
 * (JIT code, a binary without call-frame information, a gap) the frame
 * is stepped by frame pointer.  Where the process is not loaded, or a pc
 * lies outside its loaded mappings, or a binary's table did not fit, the
 * caller falls back to a snapshot (snapshot.bpf.h); the first two also
 * tell user space through `kunwind_miss` which process to load.  So does
 * a stack deeper than the stack store holds (STACK_MAX_DEPTH).
 * Included once per BPF object, after stacks.bpf.h: defines the maps. */
#ifndef STACKSCOPE_BPF_KUNWIND_BPF_H
#define STACKSCOPE_BPF_KUNWIND_BPF_H
#include "bpf/kunwind.h"
#include "bpf/stacks.h"
#include "bpf/helpers.bpf.h"

/* unwind/table.h's struct unwind_row and rules (kload.c checks that they
 * agree) */
struct kunwind_row {
	__u64 pc;
	__s32 cfa_off;
	__s16 bp_off;
	__u8 cfa_rule;
	__u8 bp_rule;
};
#define KU_CFA_SP 0
#define KU_CFA_BP 1
#define KU_CFA_PLT 2
#define KU_CFA_SIGNAL 3
#define KU_CFA_UNDEF 4
#define KU_CFA_NONE 6
#define KU_REG_AT_CFA 1
#define KU_REG_UNDEF 2

/* sym/symbolize.h's SYM_IP_SIGNAL: a signal trampoline's pc */
#define KU_IP_SIGNAL (1ULL << 63)
/* x86-64 ucontext offsets of the saved rbp, rsp, rip (unwind/unwind.c) */
#define KU_UC_RBP (40 + 10 * 8)
#define KU_UC_RSP (40 + 15 * 8)
#define KU_UC_RIP (40 + 16 * 8)

/* sized by user space at load (--unwind-rows, --unwind-procs) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KUNWIND_DEFAULT_ROWS);
	__type(key, __u32);
	__type(value, struct kunwind_row);
} unwind_rows SEC(".maps");

/* Written by user space only (kload.c, which deletes the entries of
 * processes gone when it is full), so allocated as entries come: an LRU
 * map's preallocated 5 MiB took 35-70 ms of every start to create. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KUNWIND_DEFAULT_PROCS);
	__type(key, __u32);
	__type(value, struct kunwind_proc);
} unwind_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} kunwind_miss SEC(".maps");

/* pid -> when it was last told (ns): one miss per process every
 * KUNWIND_RETELL_NS, not one per sample until the load is done */
#define KUNWIND_RETELL_NS (50 * 1000 * 1000ULL)
struct kunwind_told {
	__u64 gen, ns;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct kunwind_told);
} kunwind_told SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSTAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} kunwind_stats SEC(".maps");

enum { KW_RUN, KW_OK, KW_END, KW_TRUNC, KW_UNMAPPED, KW_CAPACITY, KW_DEEP };

/* A walk's registers and progress.  In map memory, which the verifier
 * does not follow (kunwind_walk_at): on the stack it would tell each
 * frame's state from the last and verify the frame step again for each
 * (with the searches' bounds there too, 6,418 instructions processed for
 * profile's sample program, 8 ms of its start). */
struct kunwind_walk {
	__u64 ip, sp, bp;
	__u64 n;
	__u64 exact;
	__u64 result;
	__u64 fp_frames;
	__u64 unmapped_ra;	/* the frame before: a return address in no
				 * mapping, stepped by frame pointer */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kunwind_walk);
} kunwind_walk_at SEC(".maps");

/* What each frame step is given (the pointers stay on the stack). */
struct kunwind_ctx {
	struct kunwind_walk *w;
	struct stack_trace *st;
	struct kunwind_proc *proc;
};

static __always_inline void kunwind_stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&kunwind_stats, &idx);

	if (v)
		*v += n;
}

/* A binary search, one step per bpf_loop() iteration (loops unrolled
 * here would multiply the verifier's states): lo ends as the number of
 * entries whose key is <= key.  The bounds are in map memory, as the
 * walk's state is (struct kunwind_walk). */
struct kunwind_bounds {
	__u64 key;
	__u32 lo, hi;
	__u32 failed;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kunwind_bounds);
} kunwind_search_at SEC(".maps");

struct kunwind_search {
	struct kunwind_proc *proc;	/* mappings; NULL: rows */
	struct kunwind_bounds *b;
};

static long kunwind_search_step(__u64 index, void *arg)
{
	struct kunwind_search *s = arg;
	struct kunwind_bounds *b = s->b;
	__u32 mid;
	__u64 at;

	if (b->lo >= b->hi || b->failed)	/* (failed: see kunwind_frame()) */
		return 1;
	mid = b->lo + (b->hi - b->lo) / 2;
	if (s->proc) {
		at = s->proc->maps[mid & (KUNWIND_MAX_MAPS - 1)].start;
	} else {
		struct kunwind_row *r = bpf_map_lookup_elem(&unwind_rows, &mid);

		if (!r) {
			b->failed = 1;
			return 1;
		}
		at = r->pc;
	}
	if (at <= b->key)
		b->lo = mid + 1;
	else
		b->hi = mid;
	return 0;
}

/* lo after a search of [lo, hi) for key (proc: its mappings, else rows);
 * 0 where it failed (lo is past the first entry on success). */
static __always_inline __u32 kunwind_search(struct kunwind_proc *proc, __u64 key, __u32 lo,
					     __u32 hi, __u32 steps)
{
	__u32 zero = 0;
	struct kunwind_search s = { .proc = proc,
				    .b = bpf_map_lookup_elem(&kunwind_search_at, &zero) };

	if (!s.b)
		return 0;
	s.b->key = key;
	s.b->lo = lo;
	s.b->hi = hi;
	s.b->failed = 0;
	bpf_loop(steps, kunwind_search_step, &s, 0);
	if (s.b->failed || s.b->lo == lo || s.b->lo < s.b->hi)
		return 0;
	return s.b->lo;
}

/* The mapping covering pc, or NULL. */
static __always_inline struct kunwind_map *kunwind_find_map(struct kunwind_proc *p, __u64 pc)
{
	__u32 hi = p->n, lo;
	struct kunwind_map *m;

	if (hi > KUNWIND_MAX_MAPS)
		hi = KUNWIND_MAX_MAPS;
	lo = kunwind_search(p, pc, 0, hi, KUNWIND_MAP_STEPS);
	if (!lo)
		return NULL;
	m = &p->maps[(lo - 1) & (KUNWIND_MAX_MAPS - 1)];
	return pc < m->end ? m : NULL;
}

/* The row with the greatest pc <= vaddr in the mapping's binary, or NULL. */
static __always_inline struct kunwind_row *kunwind_find_row(const struct kunwind_map *m,
							     __u64 vaddr)
{
	__u32 idx = kunwind_search(NULL, vaddr, m->first, m->first + m->nrows, KUNWIND_ROW_STEPS);

	if (!idx)
		return NULL;
	idx--;
	return bpf_map_lookup_elem(&unwind_rows, &idx);
}

static __always_inline int kunwind_read(__u64 addr, __u64 *out)
{
	return bpf_probe_read_user(out, sizeof(*out), (const void *)addr) ? -1 : 0;
}

/* One frame by the frame-pointer chain. */
static __always_inline __u32 kunwind_step_fp(struct kunwind_walk *w)
{
	__u64 saved[2];

	if (w->bp == 0)
		return KW_END;
	if (w->bp < w->sp || bpf_probe_read_user(saved, sizeof(saved), (const void *)w->bp))
		return KW_TRUNC;
	w->fp_frames++;
	w->sp = w->bp + 16;
	w->bp = saved[0];
	w->ip = saved[1];
	return saved[1] ? KW_OK : KW_END;
}

/* One frame by its row (unwind.c's step_row()). */
static __always_inline __u32 kunwind_step_row(struct kunwind_walk *w, const struct kunwind_row *row,
					      __u64 vaddr)
{
	__u64 cfa, ra, bp;

	switch (row->cfa_rule) {
	case KU_CFA_SP:
		cfa = w->sp + row->cfa_off;
		break;
	case KU_CFA_BP:
		cfa = w->bp + row->cfa_off;
		break;
	case KU_CFA_PLT:
		cfa = w->sp + row->cfa_off + ((vaddr & 15) >= (__u64)row->bp_off ? 8 : 0);
		break;
	case KU_CFA_SIGNAL:
		if (kunwind_read(w->sp + KU_UC_RIP, &ra) || kunwind_read(w->sp + KU_UC_RBP, &bp) ||
		    kunwind_read(w->sp + KU_UC_RSP, &cfa))
			return KW_TRUNC;
		w->ip = ra;
		w->bp = bp;
		w->sp = cfa;
		w->exact = 1;
		return ra ? KW_OK : KW_END;
	case KU_CFA_UNDEF:
		return KW_END;
	default:
		return KW_TRUNC;
	}
	if (cfa <= w->sp && row->cfa_rule != KU_CFA_BP)
		return KW_TRUNC;
	if (kunwind_read(cfa - 8, &ra))
		return KW_TRUNC;
	if (row->bp_rule == KU_REG_AT_CFA) {
		__u64 slot = cfa + row->bp_off;

		/* an epilogue after `pop %rbp`: the slot is below sp */
		if (slot >= w->sp) {
			if (kunwind_read(slot, &bp))
				return KW_TRUNC;
			w->bp = bp;
		}
	} else if (row->bp_rule == KU_REG_UNDEF) {
		w->bp = 0;
	}
	w->sp = cfa;
	w->ip = ra;
	return ra ? KW_OK : KW_END;
}

static long kunwind_frame(__u64 index, void *arg)
{
	struct kunwind_ctx *c = arg;
	struct kunwind_walk *w = c->w;
	struct stack_trace *st = c->st;
	struct kunwind_proc *p = c->proc;
	struct kunwind_row *row = NULL;
	struct kunwind_map *m;
	__u64 pc, prev_sp = w->sp;
	__u32 n, r, exact = w->exact;

	/* bpf_loop() calls no more after a 1, but the verifier goes on into
	 * the next call with every state a 1 left (each result, each flag):
	 * ending those at once cuts what it checks by two thirds (20k
	 * instructions to 6k, ~60 ms less of every start) */
	if (w->result != KW_RUN)
		return 1;
	/* frame n is the loop's step n (a step that stores none ends the
	 * walk): the step's index, a number the verifier knows only by its
	 * bounds, not w->n, which it would follow exactly from step to step
	 * (295,006 instructions processed instead of 6,408) */
	if (index >= STACK_MAX_DEPTH) {
		w->result = KW_DEEP;
		return 1;
	}
	n = index;
	st->ips[n] = w->ip;
	w->n = n + 1;
	/* a return address is after the call: look up the call */
	pc = exact ? w->ip : w->ip - 1;
	w->exact = 0;
	m = kunwind_find_map(p, pc);
	if (!m && w->unmapped_ra) {
		/* the step from a return address in no mapping did not
		 * reach one either: no return address (a stale word, a new
		 * thread's first frame); both dropped (unwind/unwind.c: the
		 * same rule) */
		w->n = n > 0 ? n - 1 : 0;
		w->result = KW_TRUNC;
		return 1;
	}
	w->unmapped_ra = 0;
	if (!m) {
		if (!(p->flags & KUNWIND_UNMAPPED_FP)) {
			w->result = KW_UNMAPPED;
			return 1;
		}
		r = kunwind_step_fp(w);
		/* a return address there is kept only if that step
		 * reaches a mapped pc */
		if (!exact && r != KW_OK) {
			w->n = n;
			w->result = KW_TRUNC;
			return 1;
		}
		w->unmapped_ra = !exact;
	} else if (m->kind == KUNWIND_SNAPSHOT) {
		w->result = KW_CAPACITY;
		return 1;
	} else {
		if (m->kind == KUNWIND_TABLE)
			row = kunwind_find_row(m, pc - m->bias);
		if (row && row->cfa_rule == KU_CFA_NONE)
			row = NULL;
		if (row) {
			if (row->cfa_rule == KU_CFA_SIGNAL)
				st->ips[n] |= KU_IP_SIGNAL;
			r = kunwind_step_row(w, row, pc - m->bias);
		} else {
			r = kunwind_step_fp(w);
		}
	}
	if (r == KW_END) {
		w->result = KW_END;
		return 1;
	}
	/* the stack grows down: a caller's frame is above */
	if (r == KW_TRUNC || (w->sp <= prev_sp && !w->exact)) {
		w->result = KW_TRUNC;
		return 1;
	}
	return 0;
}

static __always_inline void kunwind_tell(__u32 pid, __u64 gen, __u32 reason, __u64 pc)
{
	struct kunwind_miss rec = { .pid = pid, .reason = reason, .gen = gen, .pc = pc };
	struct kunwind_told *told = bpf_map_lookup_elem(&kunwind_told, &pid), now = {
		.gen = gen, .ns = bpf_ktime_get_ns() };

	if (told && told->gen == gen && now.ns - told->ns < KUNWIND_RETELL_NS)
		return;
	bpf_map_update_elem(&kunwind_told, &pid, &now, BPF_ANY);

	/* the first of a burst wakes the reader: loading soon is what
	 * ends the burst */
	if (bpf_ringbuf_output(&kunwind_miss, &rec, sizeof(rec),
			       bpf_ringbuf_query(&kunwind_miss, BPF_RB_AVAIL_DATA) ? BPF_RB_NO_WAKEUP
										   : BPF_RB_FORCE_WAKEUP))
		kunwind_stat_add(KSTAT_MISS_LOST, 1);
}

/* Unwinds the user stack of process pid (address space gen) from the
 * user registers ip, sp, bp and stores it in `store` (a stack store);
 * 0 with its handle in *handle, or 1 when it must go the snapshot way
 * instead (the reason counted, user space told what to load). */
static __always_inline int kunwind_record(void *store, __u32 pid, __u64 gen, __u64 ip, __u64 sp,
					  __u64 bp, __u64 *handle)
{
	struct kunwind_proc *p = bpf_map_lookup_elem(&unwind_procs, &pid);
	struct kunwind_ctx c = { .proc = p };
	struct kunwind_walk *w;
	__u64 result;
	__u32 zero = 0;

	if (!p || p->gen != gen) {
		kunwind_stat_add(KSTAT_NO_PROC, 1);
		kunwind_tell(pid, gen, KSTAT_NO_PROC, ip);
		return 1;
	}
	c.w = w = bpf_map_lookup_elem(&kunwind_walk_at, &zero);
	c.st = bpf_map_lookup_elem(&stack_scratch, &zero);
	if (!w || !c.st)
		return 1;
	*w = (struct kunwind_walk){ .ip = ip, .sp = sp, .bp = bp, .exact = 1 };
	bpf_loop(STACK_MAX_DEPTH + 1, kunwind_frame, &c, 0);
	result = w->result;
	if (result == KW_UNMAPPED) {
		kunwind_stat_add(KSTAT_UNMAPPED, 1);
		kunwind_tell(pid, gen, KSTAT_UNMAPPED, w->ip);
		return 1;
	}
	if (result == KW_CAPACITY || result == KW_DEEP || result == KW_RUN) {
		kunwind_stat_add(result == KW_CAPACITY ? KSTAT_CAPACITY : KSTAT_DEEP, 1);
		return 1;
	}
	c.st->nr = w->n;
	c.st->flags = result == KW_END ? 0 : STACK_F_TRUNCATED;
	kunwind_stat_add(KSTAT_STACKS, 1);
	kunwind_stat_add(KSTAT_FRAMES, w->n);
	kunwind_stat_add(KSTAT_FP_FRAMES, w->fp_frames);
	if (result != KW_END)
		kunwind_stat_add(KSTAT_TRUNCATED, 1);
	*handle = store_stack_in(store, c.st);
	return 0;
}

#endif
