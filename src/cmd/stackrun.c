#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "cmd/stackrun.h"
#include "report/flamegraph.h"
#include "report/folded.h"
#include "report/output.h"
#include "report/stacks.h"
#include "sym/ksyms.h"
#include "sym/proctab.h"
#include "sym/symbolize.h"
#include "sym/symcache.h"
#include "trace/launch.h"
#include "trace/loop.h"
#include "trace/sideband.h"

#define SIDEBAND_TICK 0.25	/* seconds between side-band drains */
#define STACKRUN_FORMATS (REPORT_MASK(REPORT_SVG) | REPORT_MASK(REPORT_FOLDED))

struct stackrun {
	const struct stackrun_ops *ops;
	struct stackrun_opts *o;
	struct launch child;
	struct loop *loop;
	struct sideband *sb;
	struct proctab *pt;
	struct symcache *sc;
	struct symbolizer *sym;
	void *ctx;		/* the command's */
	/* user-stack snapshots (stackrun_snapshots) */
	struct ring_buffer *rb;
	struct unwinder *uw;
	struct stackagg *unwound;
	stackrun_decode_fn decode;
	void *decode_ctx;
	int snap_err;		/* first error while unwinding */
	struct stacks *stacks;
	/* kallsyms is read while the capture runs, off the critical path */
	pthread_t ks_thread;
	bool ks_started;
	struct ksyms *ks;
	int ks_err;
	uint64_t samples, lost, lost_stacks;
};

int stackrun_parse_opt(struct stackrun_opts *o, int c, const char *arg)
{
	int n;

	switch (c) {
	case 'p':
		if (o->pids) {
			msg("-p given twice; list the pids as -p PID,PID");
			return -1;
		}
		n = parse_pid_list(arg, &o->pids);
		if (n < 0)
			return -1;
		o->npids = n;
		return 1;
	case 'd':
		if (parse_seconds(arg, &o->duration)) {
			msg("-d %s: expected a duration in seconds", arg);
			return -1;
		}
		return 1;
	case 'U':
		o->user_only = true;
		return 1;
	case 'K':
		o->kernel_only = true;
		return 1;
	case 'o':
		o->output = arg;
		return 1;
	case 'v':
		verbose++;
		return 1;
	case 'O':
		o->offsets = true;
		return 1;
	case 'W':
		if (unwind_mode_parse(arg, &o->unwind)) {
			msg("--unwind %s: expected auto, fp or tables", arg);
			return -1;
		}
		return 1;
	case 'S':
		if (parse_long(arg, 512, SNAPSHOT_MAX, &o->stack_size)) {
			msg("--stack-size %s: expected bytes, 512 to %d", arg, SNAPSHOT_MAX);
			return -1;
		}
		return 1;
	case 'f':
		if (report_format_parse(arg, STACKRUN_FORMATS, &o->format))
			return -1;
		o->format_given = true;
		return 1;
	}
	return 0;
}

int stackrun_read_stack(int stacks_fd, __u64 handle, uint64_t *ips)
{
	struct profile_stack st;

	if (handle == STACK_NONE)
		return 0;
	if (handle == STACK_LOST || bpf_map_lookup_elem(stacks_fd, &handle, &st))
		return -1;
	if (st.nr > PROFILE_MAX_DEPTH)
		st.nr = PROFILE_MAX_DEPTH;
	memcpy(ips, st.ips, st.nr * sizeof(*ips));
	return st.nr;
}

uint64_t stackrun_stack_errors(int map_fd)
{
	uint64_t k = percpu_sum(map_fd, STACKERR_KERNEL),
		 u = percpu_sum(map_fd, STACKERR_USER),
		 full = percpu_sum(map_fd, STACKERR_FULL);

	debug("stacks not recorded: %llu kernel, %llu user (bpf_get_stack errors), "
	      "%llu with the stack map full", (unsigned long long)k, (unsigned long long)u,
	      (unsigned long long)full);
	return k + u + full;
}

int stackrun_finish_opts(struct stackrun_opts *o, int argc, char **argv)
{
	if (!o->stack_size)
		o->stack_size = 16384;
	if (o->user_only && o->kernel_only) {
		msg("-U and -K exclude each other (user-only, kernel-only stacks)");
		return 2;
	}
	if (argc > 0)
		o->cmd = argv;
	if (o->cmd && o->pids) {
		msg("-p and a command exclude each other");
		return 2;
	}
	if (!o->format_given)
		o->format = report_format_for_path(o->output, STACKRUN_FORMATS, REPORT_FOLDED);
	if (o->format == REPORT_SVG && !o->output && isatty(STDOUT_FILENO)) {
		msg("--format svg: give -o FILE.svg (not writing SVG to a terminal)");
		return 2;
	}
	return 0;
}

bool stackrun_filtered(const struct stackrun *sr)
{
	return sr->o->npids > 0 || sr->o->cmd;
}

bool stackrun_follows(const struct stackrun *sr)
{
	return sr->o->cmd != NULL;
}

int stackrun_fill_targets(struct stackrun *sr, int map_fd)
{
	__u8 one = 1;

	if (sr->child.pid) {
		__u32 pid = sr->child.pid;

		if (bpf_map_update_elem(map_fd, &pid, &one, BPF_ANY))
			return -errno;
	}
	for (int i = 0; i < sr->o->npids; i++) {
		__u32 pid = sr->o->pids[i];

		if (bpf_map_update_elem(map_fd, &pid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

void stackrun_set_counts(struct stackrun *sr, uint64_t samples, uint64_t lost,
			 uint64_t lost_stacks)
{
	sr->samples = samples;
	sr->lost = lost;
	sr->lost_stacks = lost_stacks;
}

static void *load_ksyms(void *arg)
{
	struct stackrun *sr = arg;

	sr->ks = ksyms_load(NULL);
	sr->ks_err = sr->ks ? 0 : errno;
	return NULL;
}

/* One thread's part of a folded stack: comm, user frames, kernel frames. */
static int thread_frames(struct stackrun *sr, struct frame *fr, const char *comm, uint32_t pid,
			 uint32_t gen, bool utrunc, int nu, const uint64_t *uips, int nk,
			 const uint64_t *kips)
{
	const char *names[UNWIND_MAX_DEPTH];
	int n = 0, k;

	fr[n++] = (struct frame){ comm[0] ? comm : "[unknown]", FRAME_COMM };
	if (utrunc)
		fr[n++] = (struct frame){ "[truncated]", FRAME_MARK };
	if (nu < 0) {
		fr[n++] = (struct frame){ "[lost user stack]", FRAME_MARK };
	} else if (nu > 0) {
		k = symbolize_user(sr->sym, pid, gen, uips, nu, names);
		for (int i = 0; i < k; i++)
			fr[n++] = (struct frame){ names[i], FRAME_USER };
	}
	if (nk < 0) {
		fr[n++] = (struct frame){ "[lost kernel stack]", FRAME_MARK };
	} else if (nk > 0) {
		k = symbolize_kernel(sr->sym, kips, nk, names);
		for (int i = 0; i < k; i++)
			fr[n++] = (struct frame){ names[i], FRAME_KERNEL };
	}
	return n;
}

int stackrun_add(struct stackrun *sr, const struct stackrun_sample *smp)
{
	struct frame fr[2 * (3 + PROFILE_MAX_DEPTH) + 1 + UNWIND_MAX_DEPTH];
	int n = 0;

	if (smp->has_waker) {
		n = thread_frames(sr, fr, smp->waker_comm, smp->waker_pid, smp->waker_gen, false,
				  smp->wnu, smp->wuips, smp->wnk, smp->wkips);
		fr[n++] = (struct frame){ "--", FRAME_MARK };
	}
	n += thread_frames(sr, fr + n, smp->comm, smp->pid, smp->gen, smp->utrunc, smp->nu,
			   smp->uips, smp->nk, smp->kips);
	return stacks_add(sr->stacks, fr, n, smp->value);
}

static int on_snapshot(void *arg, void *data, size_t size)
{
	struct stackrun *sr = arg;
	uint64_t ips[UNWIND_MAX_DEPTH];
	struct stackrun_snapshot s;
	char comm[17];
	bool trunc;
	int n, err;

	if (!sr->decode(data, size, &s, sr->decode_ctx))
		return 0;
	n = unwind_stack(sr->uw, s.pid, s.gen, &s.regs, s.stack, s.size, ips, UNWIND_MAX_DEPTH,
			 &trunc);
	memcpy(comm, s.comm, 16);
	comm[16] = 0;
	err = stackagg_add(sr->unwound,
			   &(struct stackagg_key){ .pid = s.pid, .gen = s.gen, .comm = comm,
						   .kstack = s.kstack, .extra = s.extra,
						   .extra_len = s.extra_len },
			   ips, n, trunc, s.value);
	if (err && !sr->snap_err)
		sr->snap_err = err;
	return 0;
}

/* Side-band first, so mappings are current, then the snapshots. */
static int service(void *arg)
{
	struct stackrun *sr = arg;
	int err;

	sideband_sync(sr->sb, sr->pt);
	if (sr->rb) {
		err = ring_buffer__consume(sr->rb);
		if (err < 0 && !sr->snap_err)
			sr->snap_err = err;
	}
	return 0;
}

int stackrun_snapshots(struct stackrun *sr, int ringbuf_fd, stackrun_decode_fn decode, void *ctx)
{
	int err;

	sr->decode = decode;
	sr->decode_ctx = ctx;
	sr->uw = unwinder_new(sr->pt, sr->sc, sr->o->unwind);
	sr->unwound = stackagg_new();
	if (!sr->uw || !sr->unwound)
		return -ENOMEM;
	sr->rb = ring_buffer__new(ringbuf_fd, on_snapshot, sr, NULL);
	if (!sr->rb) {
		err = -errno;
		msg("user-stack snapshot ring buffer: %s", strerror(-err));
		return err;
	}
	return loop_add_fd(sr->loop, ring_buffer__epoll_fd(sr->rb), service, sr);
}

const struct stackagg *stackrun_unwound(const struct stackrun *sr)
{
	return sr->unwound;
}

static void unwind_summary(const struct stackrun *sr)
{
	const struct unwind_stats *us;

	if (sr->snap_err)
		msg("unwinding user stacks: %s", strerror(-sr->snap_err));
	if (!sr->uw)
		return;
	us = unwinder_stats(sr->uw);
	debug("unwound %llu snapshots (%llu more from the cache), %llu frames, "
	      "%llu by frame pointer, %llu truncated; %llu tables built, %llu binaries without",
	      (unsigned long long)us->stacks, (unsigned long long)us->cache_hits,
	      (unsigned long long)us->frames, (unsigned long long)us->fp_frames,
	      (unsigned long long)us->truncated, (unsigned long long)us->tables,
	      (unsigned long long)us->no_table);
}

/* Everything up to the release of the command. */
static int start(struct stackrun *sr, void *ctx)
{
	struct stackrun_opts *o = sr->o;
	int err;

	sr->loop = loop_new();
	if (!sr->loop)
		return -errno;
	if (o->cmd) {
		err = launch_start(&sr->child, o->cmd);
		if (err) {
			msg("cannot run '%s': %s", o->cmd[0], strerror(-err));
			return err;
		}
	}
	sr->sb = sideband_open();
	if (!sr->sb) {
		err = -errno;
		msg("perf side-band events (mmap/fork/exec records): %s", strerror(-err));
		return err;
	}
	err = sr->ops->setup(sr, ctx);
	if (err)
		return err;
	if (!o->user_only) {
		if (pthread_create(&sr->ks_thread, NULL, load_ksyms, sr) == 0)
			sr->ks_started = true;
	}
	/* Address spaces of processes that exist now, read after the
	 * side-band is live so nothing falls between the two. */
	if (!o->kernel_only) {
		if (o->npids)
			for (int i = 0; i < o->npids; i++)
				proctab_load_proc(sr->pt, o->pids[i]);
		else if (!o->cmd)
			proctab_load_all(sr->pt);
	}
	err = loop_add_fd(sr->loop, sideband_fd(sr->sb), service, sr);
	if (err)
		return err;
	loop_set_tick(sr->loop, SIDEBAND_TICK, service, sr);
	if (o->duration > 0)
		loop_set_duration(sr->loop, o->duration);
	for (int i = 0; i < o->npids; i++) {
		err = loop_watch_pid(sr->loop, o->pids[i]);
		if (err && err != -ESRCH) {
			msg("pid %d: cannot watch: %s", o->pids[i], strerror(-err));
			return err;
		}
	}
	if (o->cmd) {
		err = loop_watch_pid(sr->loop, sr->child.pid);
		if (err)
			return err;
		err = launch_release(&sr->child);
		if (err) {
			msg("cannot run '%s': %s", o->cmd[0], strerror(-err));
			return err;
		}
	}
	return 0;
}

static void make_title(const struct stackrun *sr, char *buf, size_t size)
{
	const struct stackrun_opts *o = sr->o;
	int n = snprintf(buf, size, "%s: ", sr->ops->title);

	if (o->cmd) {
		for (char **a = o->cmd; *a && n < (int)size; a++)
			n += snprintf(buf + n, size - n, "%s%s", a == o->cmd ? "" : " ", *a);
	} else if (o->npids) {
		n += snprintf(buf + n, size - n, "pid");
		for (int i = 0; i < o->npids && n < (int)size; i++)
			n += snprintf(buf + n, size - n, "%s%d", i ? "," : " ", o->pids[i]);
	} else {
		snprintf(buf + n, size - n, "all processes");
	}
}

static int write_output(struct stackrun *sr, double secs)
{
	struct stackrun_opts *o = sr->o;
	char title[256], sub[256];
	struct output out;
	int err;

	stacks_sort(sr->stacks);
	err = output_open(&out, o->output);
	if (err) {
		msg("%s: cannot create: %s", o->output, strerror(-err));
		return err;
	}
	if (o->format == REPORT_SVG) {
		struct flame_opts fo = {
			.title = title,
			.subtitle = sub,
			.unit = sr->ops->unit,
			.palette = sr->ops->cool ? FLAME_COOL : FLAME_HOT,
		};
		time_t t = time(NULL);
		char when[32];

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
		make_title(sr, title, sizeof(title));
		snprintf(sub, sizeof(sub), "%s, %.2f s, %s", sr->ops->subtitle, secs, when);
		err = report_flamegraph_write(out.f, sr->stacks, &fo);
	} else {
		err = report_folded_write(out.f, sr->stacks);
	}
	if (err) {
		output_close(&out, false);
	} else {
		err = output_close(&out, true);
	}
	if (err)
		msg("%s: write failed: %s", o->output ? o->output : "stdout", strerror(-err));
	return err;
}

static void summary(struct stackrun *sr)
{
	const struct sym_stats *st = symbolizer_stats(sr->sym);
	uint64_t sb_lost = sideband_lost(sr->sb);
	const char *events = sr->ops->events ? sr->ops->events : "samples";
	char extra[128] = "";

	if (sb_lost)
		snprintf(extra, sizeof(extra), ", %llu mmap/exec records lost",
			 (unsigned long long)sb_lost);
	fprintf(stderr,
		"stackscope %s: %llu %s, %zu stacks, %llu lost %s, %llu lost stacks, "
		"%llu of %llu frames unsymbolized%s%s%s\n",
		sr->ops->name, (unsigned long long)sr->samples, events, stacks_count(sr->stacks),
		(unsigned long long)sr->lost, events, (unsigned long long)sr->lost_stacks,
		(unsigned long long)st->unsymbolized, (unsigned long long)st->frames, extra,
		sr->o->output ? ", wrote " : "", sr->o->output ? sr->o->output : "");
}

/* After the capture stopped: everything to the written output. */
static int finish(struct stackrun *sr, void *ctx, double secs)
{
	double t0 = now_sec();
	int err;

	service(sr);
	if (sr->ks_started) {
		pthread_join(sr->ks_thread, NULL);
		sr->ks_started = false;
		if (!sr->ks)
			msg("/proc/kallsyms: %s; kernel frames stay unsymbolized",
			    sr->ks_err == EPERM ? "addresses hidden (kptr_restrict)"
						: strerror(sr->ks_err));
	}
	sr->sym = symbolizer_new(sr->pt, sr->sc, sr->ks, sr->o->offsets ? SYM_KERNEL_OFFSETS : 0);
	if (!sr->sym)
		return -errno;
	err = sr->ops->collect(sr, ctx);
	if (err) {
		msg("reading the %s results: %s", sr->ops->name, strerror(-err));
		return err;
	}
	unwind_summary(sr);
	err = write_output(sr, secs);
	debug("report written %.3f s after the end of capture (%zu binaries)",
	      now_sec() - t0, symbolizer_binaries(sr->sym));
	summary(sr);
	return err;
}

int stackrun_main(const struct stackrun_ops *ops, struct stackrun_opts *o, void *ctx)
{
	struct stackrun sr = { .ops = ops, .o = o, .ctx = ctx };
	int ret = 1, err, end;
	double t_start, secs;

	libbpf_setup_print();
	sr.pt = proctab_new();
	sr.stacks = stacks_new();
	sr.sc = symcache_new();
	if (!sr.pt || !sr.stacks || !sr.sc) {
		msg("out of memory");
		goto cleanup;
	}
	err = start(&sr, ctx);
	if (err)
		goto cleanup;
	t_start = now_sec();
	end = loop_run(sr.loop);
	ops->stop(&sr, ctx);
	secs = now_sec() - t_start;
	if (end < 0)
		msg("waiting: %s", strerror(-end));
	/* Make sure the command ends if we were told to stop. */
	if (end == LOOP_SIGNAL && sr.child.pid && !sr.child.reaped)
		kill(sr.child.pid, loop_signal(sr.loop));
	err = finish(&sr, ctx, secs);
	ret = err ? 1 : 0;
	if (sr.child.pid) {
		int status = launch_wait(&sr.child);

		if (!err)
			ret = status;
	}
cleanup:
	if (sr.ks_started)
		pthread_join(sr.ks_thread, NULL);
	launch_abort(&sr.child);
	ring_buffer__free(sr.rb);
	unwinder_free(sr.uw);
	stackagg_free(sr.unwound);
	loop_free(sr.loop);
	sideband_free(sr.sb);
	symbolizer_free(sr.sym);
	symcache_free(sr.sc);
	ksyms_free(sr.ks);
	stacks_free(sr.stacks);
	proctab_free(sr.pt);
	free(o->pids);
	return ret;
}
