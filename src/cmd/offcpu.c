/* stackscope offcpu: where threads wait, by kernel + user stack, and
 * optionally who woke them.
 *
 * options -> load and configure the BPF side -> gate the command -> attach
 * sched_switch (and sched_waking) -> release -> wait -> detach -> read the
 * blocked time per stack -> symbolize -> write (microseconds). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "cmd/cmds.h"
#include "cmd/stackcmd.h"
#include "offcpu.skel.h"
#include "bpf/offcpu.h"
#include "trace/attach.h"
#include "trace/features.h"

static const char usage_text[] =
"usage: stackscope offcpu [-p PID[,PID...]] [-t TID] [-d SECONDS] [-m MIN_US] [-M MAX_US]\n"
"                         [-u | -k] [-U | -K] [--state any|sleep|disk] [--wakers]\n"
"                         [-o FILE] [--format svg|folded|pprof] [--offsets]\n"
"                         [--unwind kernel|tables|fp|auto] [--unwind-rows N]\n"
"                         [--stack-size BYTES]\n"
"                         [--per-pid | --per-thread] [-- CMD ARGS...]\n"
"\n"
"Time threads spend off the CPU (blocked, sleeping, preempted), by the kernel +\n"
"user stack at which they left it.  Folded values are microseconds.\n"
"  -p PID[,PID...]  only these processes (all their threads)\n"
"  -t TID           only this thread\n"
"  -d SECONDS       stop after this long (else at Ctrl-C, or when CMD exits)\n"
"  -m MIN_US        count only blocked intervals at least this long\n"
"  -M MAX_US        count only blocked intervals at most this long\n"
"  -u, -k           user threads only / kernel threads only\n"
"  -U, -K           user stacks only / kernel stacks only\n"
"  --state STATE    task state when leaving: any (default), sleep (interruptible),\n"
"                   disk (uninterruptible)\n"
"  --wakers         join each blocked stack with the stack of the thread that\n"
"                   woke it: waker;...;--;blocked;...\n"
"  -o FILE          SVG flame graph if FILE ends in .svg, pprof if in .pb.gz or\n"
"                   .pprof, else folded\n"
"  --format FMT     svg, folded or pprof (values in ns)\n"
"  --offsets        kernel frames as func+0xOFF\n"
"  --unwind MODE    user stacks: auto (default) is kernel: the binaries' unwind\n"
"                   tables loaded into the kernel and walked there when the\n"
"                   thread blocks, frame pointers where no table covers a pc\n"
"                   (a process's waits are copied and unwound here until its\n"
"                   tables are loaded); tables (unwind tables only, here, from\n"
"                   a copy of the stack taken when the thread returns from its\n"
"                   syscall), fp (frame pointers, walked in the kernel when the\n"
"                   thread blocks)\n"
"  --unwind-rows N  --unwind kernel's table capacity in rows of 16 bytes\n"
"                   (default 262144); a binary that does not fit is unwound\n"
"                   from copies of the stack\n"
"  --stack-size N   bytes of user stack copied per wait (default 16384)\n"
"  --per-pid        a frame per process under its name: comm;[pid 1234];...\n"
"  --per-thread     a frame per thread under its name: comm;[tid 1235];...\n"
"                   (comm is the thread's name; pprof: labels tid, thread_name)\n"
"  -v               say more\n"
"  -- CMD ARGS...   run CMD (and its children), gated until tracing is live\n";

/* The waker half of a key, kept with a wait unwound in user space. */
struct waker_extra {
	__u32 pid, pad;
	__u64 gen;
	__u64 kstack, ustack;
	char comm[TASK_COMM_LEN_];
};

struct offcpu_run {
	struct stackcmd_opts o;
	long tid;
	long min_us, max_us;
	int threads;		/* OFFCPU_THREADS_* */
	int state;		/* OFFCPU_STATE_* */
	bool wakers;
	struct offcpu_bpf *skel;
	uint64_t tiny;		/* stacks under half a microsecond in all */
	uint64_t tiny_waits;	/* ... and the waits they sum */
	struct waker_extra w;	/* the waker half of the snapshot being decoded */
	struct stack_sample smp;	/* the wait being added (too big for the stack) */
	uint64_t early_pending;		/* pending waits of exited threads named early */
};

static int parse_args(struct offcpu_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		STACKCMD_LONGOPTS,
		{ "state", required_argument, NULL, 's' },
		{ "wakers", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	stackcmd_init(&r->o, "offcpu");
	r->max_us = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:t:d:m:M:ukUKo:vh", longopts, NULL)) != -1) {
		int ret = stackcmd_parse_opt(&r->o, c, optarg);

		if (ret == 1)
			continue;
		if (ret < 0)
			return -ret;
		switch (c) {
		case 't':
			if (parse_long(optarg, 1, 0x3fffffff, &r->tid)) {
				msg("-t %s: expected a thread id", optarg);
				return 2;
			}
			if (kill((pid_t)r->tid, 0) && errno == ESRCH) {
				msg("thread %ld: no such thread", r->tid);
				return 1;
			}
			break;
		case 'm':
		case 'M':
			if (parse_long(optarg, 0, 1L << 40, c == 'm' ? &r->min_us : &r->max_us)) {
				msg("-%c %s: expected microseconds", c, optarg);
				return 2;
			}
			break;
		case 'u':
		case 'k':
			if (r->threads) {
				msg("-u and -k exclude each other (user threads, kernel threads)");
				return 2;
			}
			r->threads = c == 'u' ? OFFCPU_THREADS_USER : OFFCPU_THREADS_KERNEL;
			break;
		case 's':
			if (!strcmp(optarg, "any")) {
				r->state = OFFCPU_STATE_ANY;
			} else if (!strcmp(optarg, "sleep")) {
				r->state = OFFCPU_STATE_SLEEP;
			} else if (!strcmp(optarg, "disk")) {
				r->state = OFFCPU_STATE_DISK;
			} else {
				msg("--state %s: expected any, sleep or disk", optarg);
				return 2;
			}
			break;
		case 'w':
			r->wakers = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (r->threads == OFFCPU_THREADS_KERNEL && r->o.user_only) {
		msg("-k -U: kernel threads have no user stacks");
		return 2;
	}
	if (r->max_us >= 0 && r->max_us < r->min_us) {
		msg("-M %ld is below -m %ld", r->max_us, r->min_us);
		return 2;
	}
	/* the in-kernel walk measured cheapest for waits (bench/offcpu.sh);
	 * it needs the kernel's bpf_loop() */
	if (r->o.unwind == UNWIND_AUTO) {
		if (!r->o.kernel_only && r->threads != OFFCPU_THREADS_KERNEL &&
		    feature_probe(FEATURE_BPF_LOOP) == -EOPNOTSUPP)
			debug("--unwind auto: no bpf_loop() in this kernel: stacks copied and unwound here");
		else
			r->o.unwind = UNWIND_KERNEL;
	}
	return stackcmd_finish(&r->o, argc - optind, argv + optind);
}

static bool snapshots_on(const struct offcpu_run *r)
{
	return r->o.unwind != UNWIND_FP && !r->o.kernel_only && r->threads != OFFCPU_THREADS_KERNEL;
}

/* A wait with its user stack copied at syscall exit; the waker half of
 * its key rides along as extra key bytes. */
static bool decode_snapshot(const void *data, size_t size, struct stack_snapshot *out, void *ctx)
{
	struct offcpu_run *r = ctx;
	const struct offcpu_snapshot *h = data;
	const struct offcpu_key *k = &h->key;

	if (size < sizeof(*h) || h->size > size - sizeof(*h))
		return false;
	r->w = (struct waker_extra){ .pid = k->waker_pid, .gen = k->waker_gen,
				      .kstack = k->waker_kstack, .ustack = k->waker_ustack };
	memcpy(r->w.comm, k->waker_comm, sizeof(r->w.comm));
	*out = (struct stack_snapshot){
		.pid = k->pid, .gen = k->gen, .tid = k->tid, .comm = k->comm, .kstack = k->kstack,
		.regs = { h->ip, h->sp, h->bp }, .stack = h + 1, .size = h->size,
		.value = h->ns, .events = h->waits, .extra = &r->w, .extra_len = r->wakers ? sizeof(r->w) : 0,
	};
	return true;
}

static int name_exited(void *ctx, struct stackpipe *sp);

static int setup(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct offcpu_run *r = ctx;
	struct offcpu_bpf *skel;
	int err;

	skel = r->skel = offcpu_bpf__open();
	if (!skel) {
		err = -errno;
		msg("cannot open the offcpu BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->filter_pids = session_filtered(s);
	session_size_gens(s, skel->maps.targets, skel->maps.gens);
	skel->rodata->follow_forks = session_child(s) != 0;
	skel->rodata->want_kernel = !r->o.user_only;
	skel->rodata->want_user = !r->o.kernel_only;
	skel->rodata->wakers = r->wakers;
	skel->rodata->self_tgid = getpid();
	skel->rodata->only_tid = r->tid;
	skel->rodata->state_filter = r->state;
	skel->rodata->threads = r->threads;
	skel->rodata->min_ns = (uint64_t)r->min_us * 1000;
	skel->rodata->max_ns = r->max_us < 0 ? ~0ULL : (uint64_t)r->max_us * 1000;
	if (!r->wakers)
		bpf_program__set_autoload(skel->progs.on_waking, false);
	/* the in-kernel unwinder was chosen where bpf_loop() is */
	skel->rodata->stacks_bpf_loop = stackcmd_kunwind(&r->o) ||
					feature_probe(FEATURE_BPF_LOOP) == 0;
	if (stackcmd_kunwind(&r->o) && r->threads != OFFCPU_THREADS_KERNEL) {
		bpf_map__set_max_entries(skel->maps.unwind_rows, r->o.unwind_rows);
	} else {
		bpf_map__set_max_entries(skel->maps.unwind_rows, 1);
		bpf_map__set_max_entries(skel->maps.unwind_procs, 1);
		bpf_map__set_max_entries(skel->maps.kunwind_miss, 4096);
		bpf_map__set_max_entries(skel->maps.kunwind_told, 1);
	}
	if (snapshots_on(r)) {
		skel->rodata->ustack_mode = stackcmd_kunwind(&r->o) ? USTACK_KERNEL : USTACK_SNAPSHOT;
		skel->rodata->snapshot_bytes = r->o.stack_size;
		bpf_map__set_max_entries(skel->maps.snapshot_scratch, libbpf_num_possible_cpus());
	} else {
		bpf_program__set_autoload(skel->progs.on_sys_exit, false);
		bpf_map__set_max_entries(skel->maps.snapshots, 4096);
	}
	err = offcpu_bpf__load(skel);
	if (err) {
		msg("cannot load the offcpu BPF programs: %s (%s)", strerror(-err), bpf_hint(err));
		return err;
	}
	stackcmd_warm_store(bpf_map__fd(skel->maps.stacks));
	err = session_fill_targets(s, bpf_map__fd(skel->maps.targets));
	if (!err && snapshots_on(r))
		err = stackpipe_add_snapshots(sp, bpf_map__fd(skel->maps.snapshots),
					      decode_snapshot, r);
	/* named when their processes exit, so that those can go */
	if (!err)
		stackpipe_name_exited(sp, name_exited, r);
	if (!err && snapshots_on(r) && stackcmd_kunwind(&r->o))
		err = stackcmd_add_kunwind(&r->o, sp, skel->obj);
	if (err)
		return err;
	/* fork/exec tracking first, so no generation is missed */
	struct bpf_program *progs[] = {
		skel->progs.on_fork, skel->progs.on_exec, skel->progs.on_free, skel->progs.on_switch,
		r->wakers ? skel->progs.on_waking : NULL,
		snapshots_on(r) ? skel->progs.on_sys_exit : NULL,
	};
	for (size_t i = 0; i < ARRAY_SIZE(progs) && !err; i++)
		if (progs[i])
			err = attach_program(s, progs[i]);
	return err;
}


static uint64_t stat_sum(struct offcpu_run *r, enum offcpu_stat idx)
{
	return percpu_sum(bpf_map__fd(r->skel->maps.stats), idx);
}

/* Runs of a program the kernel skipped (it was already running on that
 * CPU): for on_switch, a switch-out or switch-in not seen, so a blocked
 * interval lost. */
static uint64_t recursion_misses(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!prog || bpf_program__fd(prog) < 0 ||
	    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

/* One wait (or sum of waits) as stackrun wants it; uips/nu from the
 * caller when the user stack was unwound here, else read by handle. */
static int add_wait(struct stackpipe *sp, struct offcpu_run *r, const struct offcpu_key *key,
		    __u64 ns, __u64 waits, const uint64_t *uips, int nu, bool utrunc)
{
	int stacks_fd = bpf_map__fd(r->skel->maps.stacks);
	struct stack_sample *smp = &r->smp;

	memset(smp, 0, sizeof(*smp));
	smp->pid = key->pid;
	smp->gen = key->gen;
	smp->tid = key->tid;	/* the kernel counts per thread already */
	smp->value = (ns + 500) / 1000;	/* microseconds */
	smp->events = waits;
	if (!smp->value) {
		r->tiny++;
		r->tiny_waits += waits;
		return 0;
	}
	memcpy(smp->comm, key->comm, sizeof(key->comm));
	smp->nk = stackpipe_read_stack(stacks_fd, key->kstack, smp->kips);
	if (uips) {
		smp->nu = nu;
		smp->utrunc = utrunc;
		memcpy(smp->uips, uips, nu * sizeof(*uips));
	} else {
		smp->nu = stackpipe_read_ustack(stacks_fd, key->ustack, smp->uips, &smp->utrunc);
	}
	if (r->wakers) {
		smp->has_waker = true;
		smp->waker_pid = key->waker_pid;
		smp->waker_gen = key->waker_gen;
		if (key->waker_pid || key->waker_comm[0]) {
			memcpy(smp->waker_comm, key->waker_comm, sizeof(key->waker_comm));
			smp->wnk = stackpipe_read_stack(stacks_fd, key->waker_kstack, smp->wkips);
			smp->wnu = stackpipe_read_stack(stacks_fd, key->waker_ustack, smp->wuips);
		} else {
			strcpy(smp->waker_comm, "[no waker]");
		}
	}
	return stackpipe_add(sp, smp);
}

/* A wait whose user stack was copied at syscall exit and unwound here. */
static int add_unwound(struct stackpipe *sp, struct offcpu_run *r, const struct stackagg_entry *e)
{
	struct offcpu_key k = { .pid = e->pid, .tid = e->tid, .gen = e->gen, .kstack = e->kstack };

	memcpy(k.comm, e->comm, sizeof(k.comm));
	if (e->extra_len == sizeof(struct waker_extra)) {
		const struct waker_extra *w = e->extra;

		k.waker_pid = w->pid;
		k.waker_gen = w->gen;
		k.waker_kstack = w->kstack;
		k.waker_ustack = w->ustack;
		memcpy(k.waker_comm, w->comm, sizeof(k.waker_comm));
	}
	return add_wait(sp, r, &k, e->value, e->events, e->ips, e->n, e->truncated);
}

/* A key whose user frames need a process that exited: the blocked one, or
 * with --wakers the waker. */
static bool of_exited(struct stackpipe *sp, struct offcpu_run *r, const struct offcpu_key *k)
{
	return stackpipe_exited(sp, k->pid) ||
	       (r->wakers && k->waker_pid && stackpipe_exited(sp, k->waker_pid));
}

/* The waits of processes that exited, named at a trim so that their
 * processes can go (a long run keeps the live ones): those counted in
 * `counts` and left in `pending` (threads that never came back to user
 * space) taken out of the maps, those unwound here out of the pipeline's
 * aggregation.  Keys are gathered before any is taken out (a deleted key
 * would restart the map's walk).  A key taken out while its blocked
 * thread lives (its waker exited) starts again from zero in the kernel,
 * atomically: lookup-and-delete.  Returns the waits named or -errno. */
static int name_exited(void *ctx, struct stackpipe *sp)
{
	struct offcpu_run *r = ctx;
	int counts_fd = bpf_map__fd(r->skel->maps.counts);
	int pending_fd = bpf_map__fd(r->skel->maps.pending);
	struct offcpu_key key, cur, *keys = NULL;
	size_t nkeys = 0, ntids = 0, cap = 0, tcap = 0;
	__u32 tid, ctid, *tids = NULL;
	struct stackagg *taken;
	int named = 0, err = 0;

	for (void *prev = NULL; bpf_map_get_next_key(counts_fd, prev, &key) == 0; prev = &cur) {
		cur = key;
		if (!of_exited(sp, r, &key))
			continue;
		if (nkeys == cap && !(keys = array_grow(keys, &cap, sizeof(*keys)))) {
			err = -ENOMEM;
			break;
		}
		keys[nkeys++] = key;
	}
	for (void *prev = NULL; !err && snapshots_on(r) &&
	     bpf_map_get_next_key(pending_fd, prev, &tid) == 0; prev = &ctid) {
		struct offcpu_pending p;

		ctid = tid;
		if (bpf_map_lookup_elem(pending_fd, &tid, &p) || !stackpipe_exited(sp, p.key.pid))
			continue;
		if (ntids == tcap && !(tids = array_grow(tids, &tcap, sizeof(*tids)))) {
			err = -ENOMEM;
			break;
		}
		tids[ntids++] = tid;
	}
	for (size_t i = 0; i < nkeys && !err; i++) {
		struct offcpu_value v;

		if (bpf_map_lookup_and_delete_elem(counts_fd, &keys[i], &v))
			continue;
		err = add_wait(sp, r, &keys[i], v.ns, v.waits, NULL, 0, false);
		named++;
	}
	/* their threads are gone: nothing writes these entries any more */
	for (size_t i = 0; i < ntids && !err; i++) {
		struct offcpu_pending p;

		if (bpf_map_lookup_and_delete_elem(pending_fd, &tids[i], &p))
			continue;
		err = add_wait(sp, r, &p.key, p.ns, p.waits, NULL, 0, false);
		r->early_pending++;
		named++;
	}
	free(keys);
	free(tids);
	if (err || !snapshots_on(r))
		return err ? err : named;
	taken = stackpipe_take_exited(sp);
	if (!taken)
		return -errno;
	for (size_t i = 0; i < stackagg_count(taken) && !err; i++, named++)
		err = add_unwound(sp, r, stackagg_get(taken, i));
	stackagg_free(taken);
	return err ? err : named;
}

static int collect(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct offcpu_run *r = ctx;
	int counts_fd = bpf_map__fd(r->skel->maps.counts);
	int pending_fd = bpf_map__fd(r->skel->maps.pending);
	const struct stackagg *unwound = stackpipe_unwound(sp);
	struct offcpu_key key, next, *prev = NULL;
	struct offcpu_value v;
	__u32 tid, ntid, *ptid = NULL;
	uint64_t leftover = 0, lost_ustacks = 0, missed, exit_missed;
	int err;

	/* waits counted in the kernel, with frame-pointer user stacks */
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &v))
			continue;
		err = add_wait(sp, r, &key, v.ns, v.waits, NULL, 0, false);
		if (err)
			return err;
	}
	/* waits whose user stack was copied at syscall exit */
	for (size_t i = 0; unwound && i < stackagg_count(unwound); i++) {
		err = add_unwound(sp, r, stackagg_get(unwound, i));
		if (err)
			return err;
	}
	/* waits still pending (the thread never went back to user space
	 * where it blocked before the end): their frame-pointer stacks, or
	 * none (a voluntary wait takes no frame-pointer walk) */
	while (snapshots_on(r) && bpf_map_get_next_key(pending_fd, ptid, &ntid) == 0) {
		struct offcpu_pending p;

		tid = ntid;
		ptid = &tid;
		if (bpf_map_lookup_elem(pending_fd, &tid, &p))
			continue;
		leftover++;
		if (p.key.ustack == STACK_LOST)
			lost_ustacks++;
		err = add_wait(sp, r, &p.key, p.ns, p.waits, NULL, 0, false);
		if (err)
			return err;
	}
	missed = recursion_misses(r->skel->progs.on_switch);
	exit_missed = snapshots_on(r) ? recursion_misses(r->skel->progs.on_sys_exit) : 0;
	debug("%llu switch-outs, %llu intervals counted (%llu with a deferred user stack, "
	      "%llu with the frame-pointer one, %llu pending at the end, %llu of exited threads before), %llu stacks under 0.5 us "
	      "in all left out (%llu waits); starts full %llu, pending full %llu, counts full %llu, "
	      "ring full %llu, switch-ins not seen %llu, threads freed while blocked %llu, "
	      "sched_switch runs missed %llu, sys_exit runs missed %llu",
	      (unsigned long long)stat_sum(r, OSTAT_SWITCHES),
	      (unsigned long long)stat_sum(r, OSTAT_INTERVALS),
	      (unsigned long long)stat_sum(r, OSTAT_SNAPSHOTS),
	      (unsigned long long)stat_sum(r, OSTAT_FALLBACK), (unsigned long long)leftover,
	      (unsigned long long)r->early_pending,
	      (unsigned long long)r->tiny, (unsigned long long)r->tiny_waits,
	      (unsigned long long)stat_sum(r, OSTAT_STARTS_FULL),
	      (unsigned long long)stat_sum(r, OSTAT_PENDING_FULL),
	      (unsigned long long)stat_sum(r, OSTAT_DROPPED),
	      (unsigned long long)stat_sum(r, OSTAT_RING_FULL),
	      (unsigned long long)stat_sum(r, OSTAT_UNSEEN),
	      (unsigned long long)stat_sum(r, OSTAT_DIED), (unsigned long long)missed,
	      (unsigned long long)exit_missed);
	/* a missed sys_exit run leaves its wait pending: counted, with the
	 * frame-pointer stack (OSTAT_FALLBACK); a switch-in with no run of
	 * on_switch at all (no recursion: the kernel called no probe) is
	 * found at the thread's next switch-out and its interval ended
	 * there (OSTAT_UNSEEN), counted; one whose thread died before
	 * blocking again is lost (OSTAT_DIED) */
	stackpipe_count(sp, s, "blocked intervals", stat_sum(r, OSTAT_INTERVALS),
			stat_sum(r, OSTAT_DROPPED) + stat_sum(r, OSTAT_STARTS_FULL) + missed +
				stat_sum(r, OSTAT_DIED),
			stackpipe_stack_errors(bpf_map__fd(r->skel->maps.stack_errors)) +
				stat_sum(r, OSTAT_USTACK_LOST) + lost_ustacks);
	session_count(s, "intervals ended at the next switch-out (switch-in not seen)",
		      stat_sum(r, OSTAT_UNSEEN), SESSION_IF_ANY);
	if (stat_sum(r, OSTAT_WAKER_LOST))
		msg("%llu wakers not kept: the waking map (%u threads) was full or out of memory; "
		    "their waits are counted under [no waker]",
		    (unsigned long long)stat_sum(r, OSTAT_WAKER_LOST),
		    bpf_map__max_entries(r->skel->maps.waking));
	session_count(s, "wakers lost", stat_sum(r, OSTAT_WAKER_LOST), SESSION_LOSS | SESSION_IF_ANY);
	session_count_procs(s, r->skel->obj);
	return 0;
}

int cmd_offcpu(int argc, char **argv)
{
	struct offcpu_run *r = calloc(1, sizeof(*r));
	char sub[160];
	int ret;

	if (!r) {
		msg("out of memory");
		return 1;
	}
	ret = parse_args(r, argc, argv);
	if (!ret) {
		snprintf(sub, sizeof(sub), "blocked time in microseconds, state %s%s",
			 r->state == OFFCPU_STATE_SLEEP ? "sleep"
			 : r->state == OFFCPU_STATE_DISK ? "disk" : "any",
			 r->wakers ? ", with wakers" : "");
		/* the model counts microseconds; pprof's time unit is the ns */
		ret = stackcmd_run(&r->o, &(struct stackcmd_capture){
			.setup = setup, .collect = collect, .title = "Off-CPU time",
			.subtitle = sub, .unit = "us", .cool = true,
			.pprof = { .types = { { "offcpu", "nanoseconds", 1000 },
						{ "events", "count", 1, .events = true } },
				   .ntypes = 2, .default_type = "offcpu",
				   .period_type = "offcpu", .period_unit = "nanoseconds",
				   .period = 1000 } }, r);
	}
	offcpu_bpf__destroy(r->skel);
	session_opts_free(&r->o.s);
	free(r);
	return ret < 0 ? 0 : ret;
}
