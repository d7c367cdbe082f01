#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

struct stackpipe {
	struct stackpipe_opts o;
	struct session *s;
	struct sideband *sb;	/* NULL: no user frames wanted */
	struct proctab *pt;
	struct symcache *sc;	/* one open per binary, for unwinder and symbolizer */
	struct unwinder *uw;
	struct symbolizer *sym;	/* made on first use, once kallsyms is in */
	struct stacks *stacks;
	/* aggregated snapshots */
	struct stackagg *unwound;
	stackpipe_decode_fn decode;
	void *decode_ctx;
	int snap_err;		/* first error while unwinding */
	/* kallsyms is read while the capture runs, off the critical path */
	pthread_t ks_thread;
	bool ks_started;
	struct ksyms *ks;
	int ks_err;
};

/* Side-band first: mappings are current before any snapshot is unwound
 * (the session runs its drain steps in the order added). */
static int sync_sideband(void *ctx)
{
	struct stackpipe *sp = ctx;

	proctab_collect(sp->pt, false);
	sideband_sync(sp->sb, sp->pt);
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
	sp->pt = proctab_new();
	sp->sc = symcache_new();
	sp->stacks = stacks_new();
	if (!sp->pt || !sp->sc || !sp->stacks)
		goto fail;
	sp->uw = unwinder_new(sp->pt, sp->sc, o->unwind);
	if (!sp->uw)
		goto fail;
	if (o->user) {
		sp->sb = sideband_open();
		if (!sp->sb) {
			err = errno;
			msg("perf side-band events (mmap/fork/exec records): %s", strerror(err));
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
	if (sp->ks_started)
		pthread_join(sp->ks_thread, NULL);
	stackagg_free(sp->unwound);
	unwinder_free(sp->uw);
	sideband_free(sp->sb);
	symbolizer_free(sp->sym);
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
	bool trunc;
	int n, err;

	if (!sp->decode(data, size, &s, sp->decode_ctx))
		return 0;
	/* a process forked since the side-band was last read: its records
	 * are waiting there (written before its first sample) */
	if (sp->sb && s.pid && !proctab_known(sp->pt, s.pid))
		sideband_sync(sp->sb, sp->pt);
	n = unwind_stack(sp->uw, s.pid, s.gen, &s.regs, s.stack, s.size, ips, UNWIND_MAX_DEPTH,
			 &trunc);
	memcpy(comm, s.comm, 16);
	comm[16] = 0;
	err = stackagg_add(sp->unwound,
			   &(struct stackagg_key){ .pid = s.pid, .gen = s.gen, .comm = comm,
						   .tid = sp->o.per_thread ? s.tid : 0,
						   .kstack = s.kstack, .extra = s.extra,
						   .extra_len = s.extra_len },
			   ips, n, trunc, s.value);
	if (err && !sp->snap_err)
		sp->snap_err = err;
	return 0;
}

void stackpipe_forget_unsampled(struct stackpipe *sp)
{
	proctab_forget_unsampled(sp->pt);
}

int stackpipe_add_snapshots(struct stackpipe *sp, int ringbuf_fd, stackpipe_decode_fn decode,
			    void *ctx)
{
	sp->decode = decode;
	sp->decode_ctx = ctx;
	sp->unwound = stackagg_new();
	if (!sp->unwound)
		return -ENOMEM;
	return session_add_ringbuf(sp->s, ringbuf_fd, on_snapshot, sp);
}

const struct stackagg *stackpipe_unwound(const struct stackpipe *sp)
{
	return sp->unwound;
}

static void *load_ksyms(void *arg)
{
	struct stackpipe *sp = arg;

	sp->ks = ksyms_load(NULL);
	sp->ks_err = sp->ks ? 0 : errno;
	return NULL;
}

void stackpipe_start(struct stackpipe *sp)
{
	const struct session_opts *o = session_opts(sp->s);
	struct timespec now;

	/* the capture is attached: from now on its gens name every fork and
	 * exec (a sample with gen 0 is of an address space begun before) */
	clock_gettime(CLOCK_MONOTONIC, &now);
	proctab_set_traced_since(sp->pt, (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	if (sp->o.kernel && pthread_create(&sp->ks_thread, NULL, load_ksyms, sp) == 0)
		sp->ks_started = true;
	/* after the side-band is live, so nothing falls between the two */
	if (!sp->o.user)
		return;
	for (int i = 0; i < o->npids; i++)
		proctab_load_proc(sp->pt, o->pids[i]);
	if (!o->npids && !o->cmd)
		proctab_load_all(sp->pt);
}

static struct symbolizer *symbolizer(struct stackpipe *sp)
{
	if (sp->sym)
		return sp->sym;
	if (sp->ks_started) {
		pthread_join(sp->ks_thread, NULL);
		sp->ks_started = false;
		if (!sp->ks)
			msg("/proc/kallsyms: %s; kernel frames stay unsymbolized",
			    sp->ks_err == EPERM ? "addresses hidden (kptr_restrict)"
						: strerror(sp->ks_err));
	}
	sp->sym = symbolizer_new(sp->pt, sp->sc, sp->ks, sp->o.offsets ? SYM_KERNEL_OFFSETS : 0);
	return sp->sym;
}

int stackpipe_unwind(struct stackpipe *sp, uint32_t pid, uint64_t gen,
		     const struct unwind_regs *regs, const void *stack, size_t size, uint64_t *ips,
		     int max, bool *truncated)
{
	return unwind_stack(sp->uw, pid, gen, regs, stack, size, ips, max, truncated);
}

int stackpipe_symbolize_user(struct stackpipe *sp, uint32_t pid, uint64_t gen,
			     const uint64_t *ips, int n, struct frame *frames)
{
	struct symbolizer *sym = symbolizer(sp);

	return sym ? symbolize_user(sym, pid, gen, ips, n, frames) : 0;
}

int stackpipe_read_stack(int stacks_fd, __u64 handle, uint64_t *ips)
{
	struct stack_trace st;

	if (handle == STACK_NONE)
		return 0;
	if (handle == STACK_LOST || bpf_map_lookup_elem(stacks_fd, &handle, &st))
		return -1;
	if (st.nr > STACK_MAX_DEPTH)
		st.nr = STACK_MAX_DEPTH;
	memcpy(ips, st.ips, st.nr * sizeof(*ips));
	return st.nr;
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

/* One thread's part of a stack: comm, its pid or tid if asked, user
 * frames, kernel frames.  task: room for the FRAME_TASK frame's name
 * (stacks_add() copies names). */
static int thread_frames(const struct stackpipe *sp, struct symbolizer *sym, struct frame *fr,
			 char *task, size_t task_size, const char *comm, uint32_t pid,
			 uint32_t tid, uint64_t gen, bool utrunc, int nu, const uint64_t *uips,
			 int nk, const uint64_t *kips)
{
	int n = 0;

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
	else if (nu > 0)
		n += symbolize_user(sym, pid, gen, uips, nu, fr + n);
	if (nk < 0)
		fr[n++] = (struct frame){ "[lost kernel stack]", FRAME_MARK };
	else if (nk > 0)
		n += symbolize_kernel(sym, kips, nk, fr + n);
	return n;
}

int stackpipe_add(struct stackpipe *sp, const struct stack_sample *smp)
{
	struct frame fr[2 * (4 + STACK_MAX_DEPTH) + 1 + UNWIND_MAX_DEPTH];
	struct symbolizer *sym = symbolizer(sp);
	char task[2][40];
	int n = 0;

	if (!sym)
		return -errno;
	if (smp->has_waker) {
		n = thread_frames(sp, sym, fr, task[0], sizeof(task[0]), smp->waker_comm,
				  smp->waker_pid, 0, smp->waker_gen, false, smp->wnu, smp->wuips,
				  smp->wnk, smp->wkips);
		fr[n++] = (struct frame){ "--", FRAME_MARK };
	}
	n += thread_frames(sp, sym, fr + n, task[1], sizeof(task[1]), smp->comm, smp->pid,
			   smp->tid, smp->gen, smp->utrunc, smp->nu, smp->uips, smp->nk, smp->kips);
	return stacks_add(sp->stacks, fr, n, smp->value);
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

void stackpipe_count(struct stackpipe *sp, struct session *s, const char *events,
		     uint64_t taken, uint64_t lost, uint64_t lost_stacks)
{
	const struct sym_stats *st = sp->sym ? symbolizer_stats(sp->sym) : NULL;
	const struct unwind_stats *us = unwinder_stats(sp->uw);
	char label[64];

	if (sp->snap_err)
		msg("unwinding user stacks: %s", strerror(-sp->snap_err));
	if (sp->unwound)
		debug("unwound %llu snapshots (%llu more from the cache), %llu frames, "
		      "%llu by frame pointer (%llu where no file is mapped: JIT code), %llu "
		      "truncated; %llu tables built, %llu binaries without",
		      (unsigned long long)us->stacks, (unsigned long long)us->cache_hits,
		      (unsigned long long)us->frames, (unsigned long long)us->fp_frames,
		      (unsigned long long)us->jit_frames, (unsigned long long)us->truncated,
		      (unsigned long long)us->tables, (unsigned long long)us->no_table);
	stacks_sort(sp->stacks);
	session_count(s, events, taken, 0);
	session_count(s, "stacks", stacks_count_named(sp->stacks), 0);
	snprintf(label, sizeof(label), "lost %s", events);
	session_count(s, label, lost, SESSION_LOSS);
	session_count(s, "lost stacks", lost_stacks, SESSION_LOSS);
	snprintf(label, sizeof(label), "of %llu frames unsymbolized",
		 (unsigned long long)(st ? st->frames : 0));
	session_count(s, label, st ? st->unsymbolized : 0, 0);
	if (sp->sb)
		session_count(s, "mmap/exec records lost", sideband_lost(sp->sb),
			      SESSION_LOSS | SESSION_IF_ANY);
	if (sp->sb) {
		size_t procs, exited, dropped;

		proctab_collect(sp->pt, true);
		proctab_stats(sp->pt, &procs, &exited, &dropped);
		debug("processes: %zu kept, %zu of them exited (sampled), %zu dropped after "
		      "exiting unsampled; %zu binaries loaded", procs, exited, dropped,
		      symcache_count(sp->sc));
	}
	if (sp->sym)
		debug("%zu binaries symbolized, %llu addresses named by perf maps",
		      symbolizer_binaries(sp->sym), (unsigned long long)st->jit);
}
