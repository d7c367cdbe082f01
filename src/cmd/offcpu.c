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
#include "cmd/stackrun.h"
#include "offcpu.skel.h"
#include "bpf/offcpu.h"
#include "trace/stackagg.h"
#include "unwind/unwind.h"

static const char usage_text[] =
"usage: stackscope offcpu [-p PID[,PID...]] [-t TID] [-d SECONDS] [-m MIN_US] [-M MAX_US]\n"
"                         [-u | -k] [-U | -K] [--state any|sleep|disk] [--wakers]\n"
"                         [-o FILE] [--format svg|folded] [--offsets]\n"
"                         [--unwind auto|fp|tables] [--stack-size BYTES] [-- CMD ARGS...]\n"
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
"  -o FILE          SVG flame graph if FILE ends in .svg, else folded\n"
"  --format FMT     svg or folded\n"
"  --offsets        kernel frames as func+0xOFF\n"
"  --unwind MODE    user stacks: auto (default: unwind tables where the binary has\n"
"                   them, frame pointers elsewhere; the stack is copied when the\n"
"                   thread returns from its syscall), fp (frame pointers, walked\n"
"                   in the kernel when the thread blocks), tables\n"
"  --stack-size N   bytes of user stack copied per wait (default 16384)\n"
"  -v               say more\n"
"  -- CMD ARGS...   run CMD (and its children), gated until tracing is live\n";

struct offcpu_run {
	struct stackrun_opts o;
	long tid;
	long min_us, max_us;
	int threads;		/* OFFCPU_THREADS_* */
	int state;		/* OFFCPU_STATE_* */
	bool wakers;
	struct offcpu_bpf *skel;
	uint64_t tiny;		/* stacks under half a microsecond in all */
};

/* The waker half of a key, kept with a wait unwound in user space. */
struct waker_extra {
	__u32 pid, gen;
	__u64 kstack, ustack;
	char comm[TASK_COMM_LEN_];
};

static int parse_args(struct offcpu_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "offsets", no_argument, NULL, 'O' },
		{ "state", required_argument, NULL, 's' },
		{ "wakers", no_argument, NULL, 'w' },
		{ "unwind", required_argument, NULL, 'W' },
		{ "stack-size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	r->max_us = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:t:d:m:M:ukUKo:vh", longopts, NULL)) != -1) {
		int err = stackrun_parse_opt(&r->o, c, optarg);

		if (err > 0)
			continue;
		if (err < 0)
			return 2;
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
	return stackrun_finish_opts(&r->o, argc - optind, argv + optind);
}

static bool snapshots_on(const struct offcpu_run *r)
{
	return r->o.unwind != UNWIND_FP && !r->o.kernel_only && r->threads != OFFCPU_THREADS_KERNEL;
}

/* A wait with its user stack copied at syscall exit; the waker half of
 * its key rides along as extra key bytes. */
static bool decode_snapshot(const void *data, size_t size, struct stackrun_snapshot *out,
			    void *ctx)
{
	struct offcpu_run *r = ctx;
	const struct offcpu_snapshot *h = data;
	const struct offcpu_key *k = &h->key;
	static struct waker_extra w;

	if (size < sizeof(*h) || h->size > size - sizeof(*h))
		return false;
	w = (struct waker_extra){ .pid = k->waker_pid, .gen = k->waker_gen,
				  .kstack = k->waker_kstack, .ustack = k->waker_ustack };
	memcpy(w.comm, k->waker_comm, sizeof(w.comm));
	*out = (struct stackrun_snapshot){
		.pid = k->pid, .gen = k->gen, .comm = k->comm, .kstack = k->kstack,
		.regs = { h->ip, h->sp, h->bp }, .stack = h + 1, .size = h->size,
		.value = h->ns, .extra = &w, .extra_len = r->wakers ? sizeof(w) : 0,
	};
	return true;
}

static int setup(struct stackrun *sr, void *ctx)
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
	skel->rodata->filter_pids = stackrun_filtered(sr);
	skel->rodata->follow_forks = stackrun_follows(sr);
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
	if (snapshots_on(r)) {
		skel->rodata->ustack_mode = USTACK_SNAPSHOT;
		skel->rodata->snapshot_bytes = r->o.stack_size;
		bpf_map__set_max_entries(skel->maps.snapshot_scratch, libbpf_num_possible_cpus());
	} else {
		bpf_program__set_autoload(skel->progs.on_sys_exit, false);
		bpf_map__set_max_entries(skel->maps.snapshots, 4096);
	}
	err = offcpu_bpf__load(skel);
	if (err) {
		msg("cannot load the offcpu BPF programs: %s (-v shows the verifier log)",
		    strerror(-err));
		return err;
	}
	err = stackrun_fill_targets(sr, bpf_map__fd(skel->maps.targets));
	if (err)
		return err;
	if (snapshots_on(r)) {
		err = stackrun_snapshots(sr, bpf_map__fd(skel->maps.snapshots), decode_snapshot, r);
		if (err)
			return err;
	}
	err = offcpu_bpf__attach(skel);
	if (err) {
		msg("tp_btf sched_switch: attach failed: %s", strerror(-err));
		return err;
	}
	return 0;
}

static void stop(struct stackrun *sr, void *ctx)
{
	struct offcpu_run *r = ctx;

	offcpu_bpf__detach(r->skel);
}


static uint64_t stat_sum(struct offcpu_run *r, enum offcpu_stat idx)
{
	return percpu_sum(bpf_map__fd(r->skel->maps.stats), idx);
}

/* One wait (or sum of waits) as stackrun wants it; uips/nu from the
 * caller when the user stack was unwound here, else read by handle. */
static int add_wait(struct stackrun *sr, struct offcpu_run *r, const struct offcpu_key *key,
		    __u64 ns, const uint64_t *uips, int nu, bool utrunc)
{
	int stacks_fd = bpf_map__fd(r->skel->maps.stacks);
	static struct stackrun_sample smp;

	memset(&smp, 0, sizeof(smp));
	smp.pid = key->pid;
	smp.gen = key->gen;
	smp.value = (ns + 500) / 1000;	/* microseconds */
	if (!smp.value) {
		r->tiny++;
		return 0;
	}
	memcpy(smp.comm, key->comm, sizeof(key->comm));
	smp.nk = stackrun_read_stack(stacks_fd, key->kstack, smp.kips);
	if (uips) {
		smp.nu = nu;
		smp.utrunc = utrunc;
		memcpy(smp.uips, uips, nu * sizeof(*uips));
	} else {
		smp.nu = stackrun_read_stack(stacks_fd, key->ustack, smp.uips);
		smp.utrunc = smp.nu == STACK_MAX_DEPTH;
	}
	if (r->wakers) {
		smp.has_waker = true;
		smp.waker_pid = key->waker_pid;
		smp.waker_gen = key->waker_gen;
		if (key->waker_pid || key->waker_comm[0]) {
			memcpy(smp.waker_comm, key->waker_comm, sizeof(key->waker_comm));
			smp.wnk = stackrun_read_stack(stacks_fd, key->waker_kstack, smp.wkips);
			smp.wnu = stackrun_read_stack(stacks_fd, key->waker_ustack, smp.wuips);
		} else {
			strcpy(smp.waker_comm, "[no waker]");
		}
	}
	return stackrun_add(sr, &smp);
}

static int collect(struct stackrun *sr, void *ctx)
{
	struct offcpu_run *r = ctx;
	int counts_fd = bpf_map__fd(r->skel->maps.counts);
	int pending_fd = bpf_map__fd(r->skel->maps.pending);
	const struct stackagg *unwound = stackrun_unwound(sr);
	struct offcpu_key key, next, *prev = NULL;
	__u32 tid, ntid, *ptid = NULL;
	uint64_t leftover = 0, lost_ustacks = 0;
	__u64 ns;
	int err;

	/* waits counted in the kernel, with frame-pointer user stacks */
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &ns))
			continue;
		err = add_wait(sr, r, &key, ns, NULL, 0, false);
		if (err)
			return err;
	}
	/* waits whose user stack was copied at syscall exit */
	for (size_t i = 0; unwound && i < stackagg_count(unwound); i++) {
		const struct stackagg_entry *e = stackagg_get(unwound, i);
		struct offcpu_key k = { .pid = e->pid, .gen = e->gen, .kstack = e->kstack };

		memcpy(k.comm, e->comm, sizeof(k.comm));
		if (e->extra_len == sizeof(struct waker_extra)) {
			const struct waker_extra *w = e->extra;

			k.waker_pid = w->pid;
			k.waker_gen = w->gen;
			k.waker_kstack = w->kstack;
			k.waker_ustack = w->ustack;
			memcpy(k.waker_comm, w->comm, sizeof(k.waker_comm));
		}
		err = add_wait(sr, r, &k, e->value, e->ips, e->n, e->truncated);
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
		err = add_wait(sr, r, &p.key, p.ns, NULL, 0, false);
		if (err)
			return err;
	}
	debug("%llu switch-outs, %llu intervals counted (%llu with a deferred user stack, "
	      "%llu with the frame-pointer one, %llu pending at the end), %llu stacks under 0.5 us "
	      "in all left out; starts full %llu, pending full %llu, counts full %llu, ring full %llu",
	      (unsigned long long)stat_sum(r, OSTAT_SWITCHES),
	      (unsigned long long)stat_sum(r, OSTAT_INTERVALS),
	      (unsigned long long)stat_sum(r, OSTAT_SNAPSHOTS),
	      (unsigned long long)stat_sum(r, OSTAT_FALLBACK), (unsigned long long)leftover,
	      (unsigned long long)r->tiny, (unsigned long long)stat_sum(r, OSTAT_STARTS_FULL),
	      (unsigned long long)stat_sum(r, OSTAT_PENDING_FULL),
	      (unsigned long long)stat_sum(r, OSTAT_DROPPED),
	      (unsigned long long)stat_sum(r, OSTAT_RING_FULL));
	stackrun_set_counts(sr, stat_sum(r, OSTAT_INTERVALS),
			    stat_sum(r, OSTAT_DROPPED) + stat_sum(r, OSTAT_STARTS_FULL),
			    stackrun_stack_errors(bpf_map__fd(r->skel->maps.stack_errors)) +
				    stat_sum(r, OSTAT_USTACK_LOST) + lost_ustacks);
	return 0;
}

int cmd_offcpu(int argc, char **argv)
{
	struct offcpu_run r = {};
	struct stackrun_ops ops = {
		.name = "offcpu",
		.title = "Off-CPU time",
		.unit = "us",
		.events = "blocked intervals",
		.cool = 1,
		.setup = setup,
		.stop = stop,
		.collect = collect,
	};
	char sub[160];
	int ret;

	ret = parse_args(&r, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	snprintf(sub, sizeof(sub), "blocked time in microseconds, state %s%s",
		 r.state == OFFCPU_STATE_SLEEP ? "sleep" : r.state == OFFCPU_STATE_DISK ? "disk" : "any",
		 r.wakers ? ", with wakers" : "");
	ops.subtitle = sub;
	ret = stackrun_main(&ops, &r.o, &r);
	offcpu_bpf__destroy(r.skel);
	return ret;
}
