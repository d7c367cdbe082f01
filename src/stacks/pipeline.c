#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include "common.h"
#include "report/flamegraph.h"
#include "report/folded.h"
#include "report/pprof.h"
#include "stacks/pipeline.h"
#include "sym/ksyms.h"
#include "sym/proctab.h"
#include "sym/symbolize.h"
#include "sym/symcache.h"
#include "trace/session.h"
#include "trace/sideband.h"
#include "bpf/kunwind.h"
#include "unwind/kload.h"

struct stackpipe {
	struct stackpipe_opts o;
	struct session *s;
	struct sideband *sb;	/* NULL: no user frames wanted */
	struct proctab *pt;
	struct symcache *sc;	/* one open per binary, for unwinder and symbolizer */
	struct unwinder *uw;
	struct symbolizer *sym;	/* made on first use */
	struct stacks *stacks;
	uint64_t stacks_done;	/* named stacks of the windows written before */
	/* aggregated snapshots, per window slot */
	struct stackagg *unwound[2];
	uint64_t read[2];	/* snapshots decoded per slot */
	stackpipe_decode_fn decode;
	void *decode_ctx;
	int snap_err;		/* first error while unwinding */
	/* kallsyms is read when the first kernel frame needs a name: a run
	 * whose stacks have none (a short command, user stacks only) never
	 * reads it.  The symbolizer made before then, without kernel names,
	 * is kept (names it gave stay valid) and its counts carried over. */
	bool ks_read;
	struct ksyms *ks;
	struct symbolizer *user_sym;
	struct sym_stats user_stats;	/* of the symbolizers freed before */
	/* in-kernel unwinding: its loader and its counters' map */
	struct kload *kl;
	int kstats_fd;
	struct srcmap *src;	/* source lines, kept across symbolizers */
	/* bounded long runs: caches trimmed at safe points (stackpipe_trim) */
	bool streaming;
	int early_fd;		/* stackpipe_resolve_early(): kstacks; -1 none */
	stackpipe_name_fn name_exited;	/* stackpipe_name_exited() */
	void *name_ctx;
	uint64_t early;		/* aggregated snapshots named early */
	double last_trim;	/* CLOCK_MONOTONIC s */
	uint64_t trims, released, sym_resets;
	uint64_t sym_trim;	/* trims when the symbolizer was made */
	/* what the last window cost (stackpipe_reset_stacks()'s debug line) */
	uint64_t win_cpu_ns, win_tables, win_build_ns, win_dwarf_ns;
};

/* Seconds between two trims from the drain step (windows trim at each). */
#define TRIM_EVERY 10.0
/* Trims a module's DWARF stays open unused (then closed, its lines freed) */
#define SRCMAP_IDLE_TRIMS 6
/* The symbolizer is kept across trims (a long-lived process's addresses
 * are named once, not at every window) for this many, or until it has
 * named this many addresses: then made anew (the addresses of exited
 * processes go, perf maps and unnamed addresses are read again). */
#define SYM_KEEP_TRIMS 6
#define SYM_KEEP_ADDRS (1u << 16)

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void trim(struct stackpipe *sp, bool resolved);

/* An empty stacks model, by name when the report is. */
static struct stacks *new_stacks(const struct stackpipe *sp)
{
	struct stacks *st = stacks_new();

	if (st && sp->o.by_name)
		stacks_keep_names_only(st);
	return st;
}

/* Side-band first: mappings are current before any snapshot is unwound
 * (the session runs its drain steps in the order added). */
static int sync_sideband(void *ctx)
{
	struct stackpipe *sp = ctx;

	proctab_collect(sp->pt, false);
	sideband_sync(sp->sb, sp->pt);
	if (mono_now() - sp->last_trim >= TRIM_EVERY)
		trim(sp, false);
	return 0;
}

struct stackpipe *stackpipe_new(struct session *s, const struct stackpipe_opts *o)
{
	struct stackpipe *sp = calloc(1, sizeof(*sp));
	int err = ENOMEM;

	if (!sp)
		goto fail;
	sp->o = *o;
	sp->s = s;
	sp->last_trim = mono_now();
	sp->early_fd = -1;
	sp->pt = proctab_new();
	sp->sc = symcache_new();
	sp->stacks = new_stacks(sp);
	if (!sp->pt || !sp->sc || !sp->stacks)
		goto fail;
	sp->uw = unwinder_new(sp->pt, sp->sc, o->unwind);
	if (!sp->uw || (o->defer_tables && unwinder_defer_tables(sp->uw)))
		goto fail;
	if (o->user) {
		sp->sb = sideband_open();
		if (!sp->sb) {
			const char *hint = fd_limit_hint(errno);

			err = errno;
			msg("perf side-band events (mmap/fork/exec records): %s%s%s%s", strerror(err),
			    hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
			goto fail_said;
		}
		err = -session_add_drain(s, sync_sideband, sp);
		if (!err)
			err = -session_add_fd(s, sideband_fd(sp->sb));
		if (err)
			goto fail;
	}
	return sp;
fail:
	msg("stack pipeline: %s", strerror(err));
fail_said:
	stackpipe_free(sp);
	errno = err;
	return NULL;
}

void stackpipe_free(struct stackpipe *sp)
{
	if (!sp)
		return;
	stackagg_free(sp->unwound[0]);
	stackagg_free(sp->unwound[1]);
	unwinder_free(sp->uw);
	kload_free(sp->kl);
	sideband_free(sp->sb);
	symbolizer_free(sp->sym);
	symbolizer_free(sp->user_sym);
	srcmap_free(sp->src);
	symcache_free(sp->sc);
	ksyms_free(sp->ks);
	stacks_free(sp->stacks);
	proctab_free(sp->pt);
	free(sp);
}

static int on_snapshot(void *arg, void *data, size_t size)
{
	struct stackpipe *sp = arg;
	uint64_t ips[UNWIND_MAX_DEPTH];
	struct stack_snapshot s;
	char comm[17];
	uint64_t unmapped;
	bool trunc;
	int n, err;

	if (!sp->decode(data, size, &s, sp->decode_ctx))
		return 0;
	s.slot &= 1;
	sp->read[s.slot]++;
	/* a process forked since the side-band was last read: its records
	 * are waiting there (written before its first sample) */
	if (sp->sb && s.pid && !proctab_known(sp->pt, s.pid))
		sideband_sync(sp->sb, sp->pt);
	unmapped = unwinder_stats(sp->uw)->jit_frames;
	n = unwind_stack(sp->uw, s.pid, s.gen, &s.regs, s.stack, s.size, ips, UNWIND_MAX_DEPTH,
			 &trunc);
	/* cut at a pc no known mapping holds: maybe a library mapped after
	 * the side-band was read this round (a process starting up), whose
	 * records are there now */
	if (trunc && sp->sb && s.pid && unwinder_stats(sp->uw)->jit_frames != unmapped &&
	    !sideband_sync(sp->sb, sp->pt))
		n = unwind_stack(sp->uw, s.pid, s.gen, &s.regs, s.stack, s.size, ips,
				 UNWIND_MAX_DEPTH, &trunc);
	memcpy(comm, s.comm, 16);
	comm[16] = 0;
	err = stackagg_add(sp->unwound[s.slot],
			   &(struct stackagg_key){ .pid = s.pid, .gen = s.gen, .comm = comm,
						   .tid = sp->o.per_thread ? s.tid : 0,
						   .kstack = s.kstack, .extra = s.extra,
						   .extra_len = s.extra_len },
			   ips, n, trunc, s.value, s.events);
	if (err && !sp->snap_err)
		sp->snap_err = err;
	return 0;
}

void stackpipe_forget_unsampled(struct stackpipe *sp)
{
	proctab_forget_unsampled(sp->pt);
}

void stackpipe_streaming(struct stackpipe *sp)
{
	sp->streaming = true;
	proctab_forget_exited(sp->pt);
}

static void add_sym_stats(struct sym_stats *to, const struct sym_stats *st)
{
	to->frames += st->frames;
	to->unsymbolized += st->unsymbolized;
	to->tracer_dropped += st->tracer_dropped;
	to->inlined += st->inlined;
	to->jit += st->jit;
}

/* A symbolizer's counts kept, then the symbolizer freed. */
static void retire_symbolizer(struct stackpipe *sp, struct symbolizer **symp)
{
	if (!*symp)
		return;
	add_sym_stats(&sp->user_stats, symbolizer_stats(*symp));
	symbolizer_free(*symp);
	*symp = NULL;
}

void stackpipe_resolve_early(struct stackpipe *sp, int kstacks_fd)
{
	sp->early_fd = kstacks_fd;
}

/* An aggregated entry added to another aggregation as it is. */
static int agg_copy(struct stackagg *to, const struct stackagg_entry *e)
{
	return stackagg_add(to, &(struct stackagg_key){ .pid = e->pid, .gen = e->gen,
				.tid = e->tid, .comm = e->comm, .kstack = e->kstack,
				.extra = e->extra, .extra_len = e->extra_len },
			    e->ips, e->n, e->truncated, e->value, e->events);
}

void stackpipe_name_exited(struct stackpipe *sp, stackpipe_name_fn fn, void *ctx)
{
	sp->name_exited = fn;
	sp->name_ctx = ctx;
}

bool stackpipe_exited(struct stackpipe *sp, uint32_t pid)
{
	return proctab_done(sp->pt, pid);
}

struct stackagg *stackpipe_take_exited(struct stackpipe *sp)
{
	const struct stackagg *a = sp->unwound[0];
	struct stackagg *taken = stackagg_new(), *rest = stackagg_new();
	int err = taken && rest ? 0 : -ENOMEM;

	for (size_t i = 0; a && i < stackagg_count(a) && !err; i++) {
		const struct stackagg_entry *e = stackagg_get(a, i);

		err = agg_copy(proctab_done(sp->pt, e->pid) ? taken : rest, e);
	}
	if (err) {
		stackagg_free(taken);
		stackagg_free(rest);
		errno = -err;
		return NULL;
	}
	if (a) {
		stackagg_free(sp->unwound[0]);
		sp->unwound[0] = rest;
	} else {
		stackagg_free(rest);
	}
	return taken;
}

/* The command's naming of the stacks of exited processes (offcpu's: its
 * kernel maps and the snapshots taken out).  0 when all are named. */
static int name_exited(struct stackpipe *sp)
{
	int n = sp->name_exited(sp->name_ctx, sp);

	if (n < 0) {
		msg("naming the stacks of exited processes early: %s; named at the end",
		    strerror(-n));
		sp->name_exited = NULL;
		return n;
	}
	sp->early += n;
	return 0;
}

/* The aggregated snapshots of exited processes named into the stacks
 * model, the others kept for later.  0 or -errno (all kept). */
static int resolve_exited(struct stackpipe *sp)
{
	const struct stackagg *a = sp->unwound[0];
	struct stackagg *rest;
	struct stack_sample *smp;
	size_t n = a ? stackagg_count(a) : 0, done = 0;
	int err = 0;

	for (size_t i = 0; i < n && !done; i++)
		done = proctab_done(sp->pt, stackagg_get(a, i)->pid);
	if (!done)
		return 0;
	rest = stackagg_new();
	smp = malloc(sizeof(*smp));
	if (!rest || !smp)
		err = -ENOMEM;
	/* the others first: nothing is in the model before they are safe */
	for (size_t i = 0; i < n && !err; i++) {
		const struct stackagg_entry *e = stackagg_get(a, i);

		if (!proctab_done(sp->pt, e->pid))
			err = agg_copy(rest, e);
	}
	if (err) {
		stackagg_free(rest);
		free(smp);
		return err;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const struct stackagg_entry *e = stackagg_get(a, i);

		if (!proctab_done(sp->pt, e->pid))
			continue;
		*smp = (struct stack_sample){
			.pid = e->pid, .gen = e->gen, .tid = e->tid, .value = e->value,
			.events = e->events, .nu = e->n, .utrunc = e->truncated,
		};
		memcpy(smp->comm, e->comm, sizeof(smp->comm));
		memcpy(smp->uips, e->ips, e->n * sizeof(*e->ips));
		smp->nk = stackpipe_read_stack(sp->early_fd, e->kstack, smp->kips);
		err = stackpipe_add(sp, smp);
		if (err) {
			/* this one and the rest are named at the end (and their
			 * processes kept: the caller releases none) */
			for (size_t j = i; j < n; j++) {
				e = stackagg_get(a, j);
				if (proctab_done(sp->pt, e->pid) && agg_copy(rest, e) && !sp->snap_err)
					sp->snap_err = -ENOMEM;
			}
			sp->early_fd = -1;
			msg("naming the stacks of exited processes early: %s; named at the end",
			    strerror(-err));
			break;
		}
		sp->early++;
	}
	free(smp);
	stackagg_free(sp->unwound[0]);
	sp->unwound[0] = rest;
	return err;
}

static void mark_mapped(void *ctx, const struct mapping *m)
{
	symcache_mark(ctx, m->id.dev, m->id.ino);
}

/* The symbolizers, when old or big enough (SYM_KEEP_TRIMS): their names
 * are their own, so they may outlive the binaries symcache evicts. */
static void retire_symbolizers(struct stackpipe *sp)
{
	size_t addrs = (sp->sym ? symbolizer_addresses(sp->sym) : 0) +
		       (sp->user_sym ? symbolizer_addresses(sp->user_sym) : 0);

	if (!sp->sym && !sp->user_sym)
		return;
	if (sp->trims - sp->sym_trim < SYM_KEEP_TRIMS && addrs < SYM_KEEP_ADDRS)
		return;
	sp->sym_resets++;
	retire_symbolizer(sp, &sp->sym);
	retire_symbolizer(sp, &sp->user_sym);
}

/* A safe point: no name, module or mapping a symbolizer or proctab_find()
 * gave is held (the stacks model and the writers copy what they keep).
 * The symbolizer goes when old or big (its names, addresses, perf maps:
 * they follow the processes of the time before); with resolved
 * (every sample read so far is in the stacks model) the exited processes
 * go; then the binaries no kept process maps, past their budget. */
static void trim(struct stackpipe *sp, bool resolved)
{
	struct symcache_stats cs;
	size_t evicted;

	sp->last_trim = mono_now();
	sp->trims++;
	/* the processes whose exit records were lost: gone all the same */
	if (sp->sb && sideband_lost(sp->sb))
		proctab_reap(sp->pt);
	/* named now, so their processes can go */
	if (sp->early_fd >= 0 && !resolve_exited(sp))
		resolved = true;
	if (sp->name_exited && !name_exited(sp))
		resolved = true;
	retire_symbolizers(sp);
	if (resolved)
		sp->released += proctab_release(sp->pt);
	proctab_compact_paths(sp->pt);
	if (sp->src)
		srcmap_trim(sp->src, SRCMAP_IDLE_TRIMS);
	proctab_each_mapping(sp->pt, mark_mapped, sp->sc);
	evicted = symcache_sweep(sp->sc, SYMCACHE_BUDGET);
	if (evicted)
		unwinder_forget_rows(sp->uw);
	symcache_stats(sp->sc, &cs);
	if (verbose > 1 || resolved) {
		size_t procs, exited, dropped;
		struct mallinfo2 mi = mallinfo2();

		proctab_stats(sp->pt, &procs, &exited, &dropped);
		debug("bounds: %zu processes kept (%zu exited), %zu dropped; %zu binaries cached "
		      "(%.1f MiB), %zu evicted now, %llu in all; stacks model %zu stacks (%.1f "
		      "MiB); heap %.1f MiB in use, %.1f MiB free", procs, exited, dropped,
		      cs.entries, cs.bytes / 1048576.0, evicted, (unsigned long long)cs.evicted,
		      stacks_count(sp->stacks), stacks_bytes(sp->stacks) / 1048576.0,
		      (mi.uordblks + mi.hblkhd) / 1048576.0, mi.fordblks / 1048576.0);
	}
}

void stackpipe_trim(struct stackpipe *sp)
{
	trim(sp, true);
}

int stackpipe_add_snapshots(struct stackpipe *sp, int ringbuf_fd, stackpipe_decode_fn decode,
			    void *ctx)
{
	sp->decode = decode;
	sp->decode_ctx = ctx;
	sp->unwound[0] = stackagg_new();
	sp->unwound[1] = stackagg_new();
	if (!sp->unwound[0] || !sp->unwound[1])
		return -ENOMEM;
	return session_add_ringbuf(sp->s, ringbuf_fd, on_snapshot, sp);
}

int stackpipe_add_kunwind(struct stackpipe *sp, const struct stackpipe_kunwind *k)
{
	sp->kl = kload_new(&(struct kload_opts){ .uw = sp->uw, .rows_fd = k->rows_fd, .rows = k->rows,
						 .procs_fd = k->procs_fd, .gens_fd = k->gens_fd });
	if (!sp->kl)
		return -errno;
	sp->kstats_fd = k->stats_fd;
	return session_add_ringbuf(sp->s, k->miss_fd, kload_on_miss, sp->kl);
}

uint64_t stackpipe_kunwind_bytes(const struct stackpipe *sp)
{
	return sp->kl ? kload_stats(sp->kl)->request_bytes : 0;
}

const struct stackagg *stackpipe_unwound(const struct stackpipe *sp)
{
	return sp->unwound[0];
}

const struct stackagg *stackpipe_unwound_slot(const struct stackpipe *sp, unsigned int slot)
{
	return sp->unwound[slot & 1];
}

uint64_t stackpipe_snapshots_read(const struct stackpipe *sp, unsigned int slot)
{
	return sp->read[slot & 1];
}

int stackpipe_clear_slot(struct stackpipe *sp, unsigned int slot)
{
	struct stackagg *a;

	if (!sp->unwound[slot & 1])
		return 0;
	a = stackagg_new();
	if (!a)
		return -ENOMEM;
	stackagg_free(sp->unwound[slot & 1]);
	sp->unwound[slot & 1] = a;
	return 0;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* The process's CPU since the last window, and the parts of it building
 * unwind tables and reading DWARF. */
static void window_costs(struct stackpipe *sp)
{
	const struct unwind_stats *us = unwinder_stats(sp->uw);
	uint64_t cpu = cpu_ns(), dwarf = sp->src ? srcmap_stats(sp->src)->ns : 0;

	debug("window: %.1f ms of CPU, %.1f ms of it building %llu unwind tables; %.1f ms "
	      "reading DWARF", (cpu - sp->win_cpu_ns) / 1e6, (us->build_ns - sp->win_build_ns) / 1e6,
	      (unsigned long long)(us->tables + us->no_table - sp->win_tables),
	      (dwarf - sp->win_dwarf_ns) / 1e6);
	sp->win_cpu_ns = cpu;
	sp->win_build_ns = us->build_ns;
	sp->win_tables = us->tables + us->no_table;
	sp->win_dwarf_ns = dwarf;
}

int stackpipe_reset_stacks(struct stackpipe *sp)
{
	struct stacks *st = new_stacks(sp);

	if (!st)
		return -ENOMEM;
	if (verbose)
		window_costs(sp);
	stacks_sort(sp->stacks);
	sp->stacks_done += stacks_count_named(sp->stacks);
	stacks_free(sp->stacks);
	sp->stacks = st;
	/* the window is built: its processes' samples are all named */
	trim(sp, true);
	return 0;
}

void stackpipe_start(struct stackpipe *sp)
{
	const struct session_opts *o = session_opts(sp->s);
	struct timespec now;

	/* the capture is attached: from now on its gens name every fork and
	 * exec (a sample with gen 0 is of an address space begun before) */
	clock_gettime(CLOCK_MONOTONIC, &now);
	proctab_set_traced_since(sp->pt, (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	/* after the side-band is live, so nothing falls between the two */
	if (!sp->o.user)
		return;
	for (int i = 0; i < o->npids; i++)
		proctab_load_proc(sp->pt, o->pids[i]);
	if (!o->npids && !o->cmd)
		proctab_load_all(sp->pt);
}

/* The symbolizer; with kernel names when kernel (frames to name) and
 * kernel frames are wanted. */
static struct symbolizer *symbolizer(struct stackpipe *sp, bool kernel)
{
	if (kernel && sp->o.kernel && !sp->ks_read) {
		sp->ks_read = true;
		sp->ks = ksyms_kernel();
		if (!sp->ks)
			msg("/proc/kallsyms: %s; kernel frames stay unsymbolized",
			    errno == EPERM ? "addresses hidden (kptr_restrict)" : strerror(errno));
		if (sp->ks && sp->sym) {
			sp->user_sym = sp->sym;
			sp->sym = NULL;
		}
	}
	if (!sp->sym) {
		sp->sym_trim = sp->trims;
		sp->sym = symbolizer_new(sp->pt, sp->sc, sp->ks,
					 sp->o.offsets ? SYM_KERNEL_OFFSETS : 0);
		if (!sp->src)
			sp->src = srcmap_new();
		if (sp->sym && sp->src)
			symbolizer_use_srcmap(sp->sym, sp->src);
	}
	return sp->sym;
}

int stackpipe_unwind(struct stackpipe *sp, uint32_t pid, uint64_t gen,
		     const struct unwind_regs *regs, const void *stack, size_t size, uint64_t *ips,
		     int max, bool *truncated)
{
	return unwind_stack(sp->uw, pid, gen, regs, stack, size, ips, max, truncated);
}

void stackpipe_sync_for(struct stackpipe *sp, uint32_t pid, bool always)
{
	if (sp->sb && pid && (always || !proctab_known(sp->pt, pid)))
		sideband_sync(sp->sb, sp->pt);
}

uint64_t stackpipe_space_begin(struct stackpipe *sp, uint32_t pid, uint64_t gen)
{
	return proctab_space_begin(sp->pt, pid, gen);
}

int stackpipe_symbolize_user(struct stackpipe *sp, uint32_t pid, uint64_t gen,
			     const uint64_t *ips, int n, struct frame *frames)
{
	struct symbolizer *sym = symbolizer(sp, false);

	return sym ? symbolize_user(sym, pid, gen, ips, n, frames) : 0;
}

/* A stack by handle: its depth (0 none, -1 lost) and flags. */
static int read_stack(int stacks_fd, __u64 handle, uint64_t *ips, __u32 *flags)
{
	struct stack_trace st;

	*flags = 0;
	if (handle == STACK_NONE)
		return 0;
	if (handle == STACK_LOST || bpf_map_lookup_elem(stacks_fd, &handle, &st))
		return -1;
	if (st.nr > STACK_MAX_DEPTH)
		st.nr = STACK_MAX_DEPTH;
	memcpy(ips, st.ips, st.nr * sizeof(*ips));
	*flags = st.flags;
	return (int)st.nr;
}

int stackpipe_read_stack(int stacks_fd, __u64 handle, uint64_t *ips)
{
	__u32 flags;

	return read_stack(stacks_fd, handle, ips, &flags);
}

int stackpipe_read_ustack(int stacks_fd, __u64 handle, uint64_t *ips, bool *truncated)
{
	__u32 flags;
	int n = read_stack(stacks_fd, handle, ips, &flags);

	*truncated = n >= 0 && ((flags & STACK_F_TRUNCATED) || n == STACK_MAX_DEPTH);
	return n;
}

/* The in-kernel unwinder's counts: how many stacks it unwound, and every
 * fallback (a snapshot for the whole stack, a frame by frame pointer). */
static void count_kunwind(struct stackpipe *sp, struct session *s)
{
	const struct kload_stats *ks = kload_stats(sp->kl);
	uint64_t v[KSTAT_NR];

	for (int i = 0; i < KSTAT_NR; i++)
		v[i] = percpu_sum(sp->kstats_fd, i);
	debug("in-kernel unwinding: %llu stacks, %llu frames (%llu by frame pointer), %llu "
	      "truncated; to snapshots: %llu process not loaded, %llu pc outside its mappings, "
	      "%llu table over capacity, %llu too deep; %llu misses not told; %llu loads, %llu stale, %llu "
	      "failed, %llu evicted; %llu binaries, %llu rows, %llu without a table, %llu over capacity, %llu "
	      "processes over %d mappings",
	      (unsigned long long)v[KSTAT_STACKS], (unsigned long long)v[KSTAT_FRAMES],
	      (unsigned long long)v[KSTAT_FP_FRAMES], (unsigned long long)v[KSTAT_TRUNCATED],
	      (unsigned long long)v[KSTAT_NO_PROC], (unsigned long long)v[KSTAT_UNMAPPED],
	      (unsigned long long)v[KSTAT_CAPACITY], (unsigned long long)v[KSTAT_DEEP],
	      (unsigned long long)v[KSTAT_MISS_LOST],
	      (unsigned long long)ks->loads, (unsigned long long)ks->stale,
	      (unsigned long long)ks->failed, (unsigned long long)ks->evicted,
	      (unsigned long long)ks->binaries,
	      (unsigned long long)ks->rows, (unsigned long long)ks->no_table,
	      (unsigned long long)ks->over_capacity, (unsigned long long)ks->over_maps,
	      KUNWIND_MAX_MAPS);
	if (ks->over_capacity)
		msg("in-kernel unwinding: %llu binaries' tables did not fit in the %u rows of "
		    "--unwind-rows: stacks through them unwound from snapshots",
		    (unsigned long long)ks->over_capacity, (unsigned)kload_rows(sp->kl));
	session_count(s, "stacks unwound in the kernel", v[KSTAT_STACKS], 0);
	session_count(s, "from snapshots",
		      v[KSTAT_NO_PROC] + v[KSTAT_UNMAPPED] + v[KSTAT_CAPACITY] + v[KSTAT_DEEP], 0);
	session_count(s, "frames by frame pointer", v[KSTAT_FP_FRAMES], 0);
	session_count(s, "misses not told", v[KSTAT_MISS_LOST], SESSION_IF_ANY);
}

uint64_t stackpipe_stack_errors(int map_fd)
{
	uint64_t k = percpu_sum(map_fd, STACKERR_KERNEL),
		 u = percpu_sum(map_fd, STACKERR_USER),
		 full = percpu_sum(map_fd, STACKERR_FULL);

	debug("stacks not recorded: %llu kernel, %llu user (bpf_get_stack errors), "
	      "%llu with the stack map full", (unsigned long long)k, (unsigned long long)u,
	      (unsigned long long)full);
	return k + u + full;
}

/* Frames a stack may have: two threads' (a waker's and the blocked
 * one's) of comm, task, marks, kernel and user frames, a "--" between,
 * and the functions DWARF says were inlined, up to PIPE_INLINED_MAX. */
#define PIPE_INLINED_MAX 256
#define PIPE_MAX_FRAMES (2 * (4 + STACK_MAX_DEPTH) + 1 + UNWIND_MAX_DEPTH + PIPE_INLINED_MAX)

/* One thread's part of a stack: comm, its pid or tid if asked, user
 * frames (with their inlined functions while *inl_room lasts), kernel
 * frames.  task: room for the FRAME_TASK frame's name (stacks_add()
 * copies names). */
static int thread_frames(const struct stackpipe *sp, struct symbolizer *sym, struct frame *fr,
			 char *task, size_t task_size, const char *comm, uint32_t pid,
			 uint32_t tid, uint64_t gen, bool utrunc, int nu, const uint64_t *uips,
			 int nk, const uint64_t *kips, int *inl_room)
{
	int n = 0, m;

	fr[n++] = (struct frame){ comm[0] ? comm : "[unknown]", FRAME_COMM, .addr = pid };
	if (sp->o.per_thread && tid) {
		snprintf(task, task_size, "[tid %u]", tid);
		fr[n++] = (struct frame){ task, FRAME_TASK, .addr = tid };
	} else if (sp->o.per_pid || sp->o.per_thread) {
		snprintf(task, task_size, "[pid %u]", pid);
		fr[n++] = (struct frame){ task, FRAME_TASK, .addr = pid };
	}
	if (utrunc)
		fr[n++] = (struct frame){ "[truncated]", FRAME_MARK };
	if (nu < 0)
		fr[n++] = (struct frame){ "[lost user stack]", FRAME_MARK };
	else if (nu > 0) {
		m = symbolize_user_src(sym, pid, gen, uips, nu, fr + n, nu + *inl_room);
		*inl_room -= m - nu;
		n += m;
	}
	if (nk < 0)
		fr[n++] = (struct frame){ "[lost kernel stack]", FRAME_MARK };
	else if (nk > 0)
		n += symbolize_kernel(sym, kips, nk, fr + n);
	return n;
}

int stackpipe_add(struct stackpipe *sp, const struct stack_sample *smp)
{
	struct frame fr[PIPE_MAX_FRAMES];
	struct symbolizer *sym = symbolizer(sp, smp->nk > 0 || (smp->has_waker && smp->wnk > 0));
	char task[2][40];
	int n = 0, inl_room = PIPE_INLINED_MAX;

	if (!sym)
		return -errno;
	if (smp->has_waker) {
		n = thread_frames(sp, sym, fr, task[0], sizeof(task[0]), smp->waker_comm,
				  smp->waker_pid, 0, smp->waker_gen, false, smp->wnu, smp->wuips,
				  smp->wnk, smp->wkips, &inl_room);
		fr[n++] = (struct frame){ "--", FRAME_MARK };
	}
	n += thread_frames(sp, sym, fr + n, task[1], sizeof(task[1]), smp->comm, smp->pid,
			   smp->tid, smp->gen, smp->utrunc, smp->nu, smp->uips, smp->nk, smp->kips,
			   &inl_room);
	return stacks_add_events(sp->stacks, fr, n, smp->value, smp->events);
}

struct stacks *stackpipe_stacks(struct stackpipe *sp)
{
	return sp->stacks;
}

int stackpipe_write(struct stackpipe *sp, FILE *f, const struct stackpipe_report *r)
{
	stacks_sort(sp->stacks);
	if (r->format == REPORT_SVG) {
		struct flame_opts fo = {
			.title = r->title,
			.subtitle = r->subtitle,
			.unit = r->unit,
			.palette = r->cool ? FLAME_COOL : FLAME_HOT,
		};

		return report_flamegraph_write(f, sp->stacks, &fo);
	}
	if (r->format == REPORT_PPROF)
		return report_pprof_write(f, sp->stacks, r->pprof);
	return report_folded_write(f, sp->stacks);
}

void stackpipe_say_bounds(struct stackpipe *sp)
{
	size_t procs, exited, dropped;
	struct symcache_stats cs;

	if (!sp->sb)
		return;
	proctab_collect(sp->pt, true);
	proctab_stats(sp->pt, &procs, &exited, &dropped);
	symcache_stats(sp->sc, &cs);
	debug("processes: %zu kept, %zu of them exited (sampled), %zu dropped after "
	      "exiting (%llu once their samples were named, %llu stacks named early); "
	      "%zu binaries loaded",
	      procs, exited, dropped, (unsigned long long)sp->released,
	      (unsigned long long)sp->early,
	      symcache_count(sp->sc));
	debug("caches: %llu trims (%llu symbolizers freed); binaries: %zu held, %.1f MiB "
	      "(peak %.1f MiB), %llu evicted (%.1f MiB)", (unsigned long long)sp->trims,
	      (unsigned long long)sp->sym_resets, cs.entries, cs.bytes / 1048576.0,
	      cs.peak_bytes / 1048576.0, (unsigned long long)cs.evicted,
	      cs.evicted_bytes / 1048576.0);
}

void stackpipe_count(struct stackpipe *sp, struct session *s, const char *events,
		     uint64_t taken, uint64_t lost, uint64_t lost_stacks)
{
	struct sym_stats st = sp->user_stats;
	const struct srcline_stats *ss = sp->src ? srcmap_stats(sp->src) : NULL;
	const struct unwind_stats *us = unwinder_stats(sp->uw);
	char label[64];

	if (sp->snap_err)
		msg("unwinding user stacks: %s", strerror(-sp->snap_err));
	if (sp->unwound[0])
		debug("unwound %llu snapshots (%llu more from the cache), %llu frames (%llu rows "
		      "found again), "
		      "%llu by frame pointer (%llu where no file is mapped: JIT code), %llu "
		      "truncated; %llu tables built in %.3f s of CPU, %llu binaries without; "
		      "%llu frames of %llu stacks stepped while their binary's table waited",
		      (unsigned long long)us->stacks, (unsigned long long)us->cache_hits,
		      (unsigned long long)us->frames, (unsigned long long)us->row_hits, (unsigned long long)us->fp_frames,
		      (unsigned long long)us->jit_frames, (unsigned long long)us->truncated,
		      (unsigned long long)us->tables, us->build_ns / 1e9,
		      (unsigned long long)us->no_table, (unsigned long long)us->deferred_frames,
		      (unsigned long long)us->deferred_stacks);
	stacks_sort(sp->stacks);
	session_count(s, events, taken, 0);
	session_count(s, "stacks", sp->stacks_done + stacks_count_named(sp->stacks), 0);
	if (sp->kl)
		count_kunwind(sp, s);
	snprintf(label, sizeof(label), "lost %s", events);
	session_count(s, label, lost, SESSION_LOSS);
	session_count(s, "lost stacks", lost_stacks, SESSION_LOSS);
	if (sp->user_sym)
		add_sym_stats(&st, symbolizer_stats(sp->user_sym));
	if (sp->sym)
		add_sym_stats(&st, symbolizer_stats(sp->sym));
	snprintf(label, sizeof(label), "of %llu frames unsymbolized", (unsigned long long)st.frames);
	session_count(s, label, st.unsymbolized, 0);
	if (sp->sb)
		session_count(s, "mmap/exec records lost", sideband_lost(sp->sb),
			      SESSION_LOSS | SESSION_IF_ANY);
	stackpipe_say_bounds(sp);
	debug("stacks model: %zu stacks kept%s, %zu distinct by name, %.1f MiB",
	      stacks_count(sp->stacks), sp->o.by_name ? " by name" : " by location",
	      stacks_count_named(sp->stacks), stacks_bytes(sp->stacks) / 1048576.0);
	if (sp->sym)
		debug("%zu binaries symbolized, %llu addresses named by perf maps",
		      symbolizer_binaries(sp->sym), (unsigned long long)st.jit);
	if (ss && (ss->lookups || ss->over_limit)) {
		debug("source lines: %llu addresses looked up in DWARF in %.3f s, %llu found, %llu "
		      "inlined frames added; %llu binaries with DWARF, %llu without, %llu closed "
		      "unused", (unsigned long long)ss->lookups, ss->ns / 1e9,
		      (unsigned long long)ss->found, (unsigned long long)st.inlined,
		      (unsigned long long)ss->binaries, (unsigned long long)ss->no_dwarf,
		      (unsigned long long)ss->evicted);
		if (ss->over_limit)
			msg("source lines: %llu frames left without (DWARF's time budget of %.1f s or "
			    "its %u addresses spent)", (unsigned long long)ss->over_limit,
			    SRCLINE_BUDGET_NS / 1e9, SRCLINE_MAX_ADDRS);
	}
}
