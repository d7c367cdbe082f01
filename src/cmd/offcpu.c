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

static const char usage_text[] =
"usage: stackscope offcpu [-p PID[,PID...]] [-t TID] [-d SECONDS] [-m MIN_US] [-M MAX_US]\n"
"                         [-u | -k] [-U | -K] [--state any|sleep|disk] [--wakers]\n"
"                         [-o FILE] [--format svg|folded] [--offsets] [-- CMD ARGS...]\n"
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

static int parse_args(struct offcpu_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "offsets", no_argument, NULL, 'O' },
		{ "state", required_argument, NULL, 's' },
		{ "wakers", no_argument, NULL, 'w' },
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
	err = offcpu_bpf__load(skel);
	if (err) {
		msg("cannot load the offcpu BPF programs: %s (-v shows the verifier log)",
		    strerror(-err));
		return err;
	}
	err = stackrun_fill_targets(sr, bpf_map__fd(skel->maps.targets));
	if (err)
		return err;
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
	int ncpu = libbpf_num_possible_cpus();
	__u64 vals[ncpu > 0 ? ncpu : 1], sum = 0;
	__u32 key = idx;

	if (ncpu <= 0 || bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.stats), &key, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

/* Reads a stack by handle into ips; returns the depth, 0 none, -1 lost. */
static int read_stack(int fd, __u64 handle, uint64_t *ips)
{
	struct profile_stack st;

	if (handle == STACK_NONE)
		return 0;
	if (handle == STACK_LOST || bpf_map_lookup_elem(fd, &handle, &st))
		return -1;
	if (st.nr > PROFILE_MAX_DEPTH)
		st.nr = PROFILE_MAX_DEPTH;
	memcpy(ips, st.ips, st.nr * sizeof(*ips));
	return st.nr;
}

static int collect(struct stackrun *sr, void *ctx)
{
	struct offcpu_run *r = ctx;
	int counts_fd = bpf_map__fd(r->skel->maps.counts);
	int stacks_fd = bpf_map__fd(r->skel->maps.stacks);
	struct offcpu_key key, next, *prev = NULL;
	static struct stackrun_sample smp;
	__u64 ns;
	int err;

	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &ns))
			continue;
		memset(&smp, 0, sizeof(smp));
		smp.pid = key.pid;
		smp.gen = key.gen;
		smp.value = (ns + 500) / 1000;	/* microseconds */
		if (!smp.value) {
			r->tiny++;
			continue;
		}
		memcpy(smp.comm, key.comm, sizeof(key.comm));
		smp.nk = read_stack(stacks_fd, key.kstack, smp.kips);
		smp.nu = read_stack(stacks_fd, key.ustack, smp.uips);
		smp.utrunc = smp.nu == PROFILE_MAX_DEPTH;
		if (r->wakers) {
			smp.has_waker = true;
			smp.waker_pid = key.waker_pid;
			smp.waker_gen = key.waker_gen;
			if (key.waker_pid || key.waker_comm[0]) {
				memcpy(smp.waker_comm, key.waker_comm, sizeof(key.waker_comm));
				smp.wnk = read_stack(stacks_fd, key.waker_kstack, smp.wkips);
				smp.wnu = read_stack(stacks_fd, key.waker_ustack, smp.wuips);
			} else {
				strcpy(smp.waker_comm, "[no waker]");
			}
		}
		err = stackrun_add(sr, &smp);
		if (err)
			return err;
	}
	debug("%llu switch-outs, %llu intervals counted, %llu stacks under 0.5 us in all left out; "
	      "starts map full %llu, counts full %llu, stack errors %llu, stacks full %llu",
	      (unsigned long long)stat_sum(r, OSTAT_SWITCHES),
	      (unsigned long long)stat_sum(r, OSTAT_INTERVALS), (unsigned long long)r->tiny,
	      (unsigned long long)stat_sum(r, OSTAT_STARTS_FULL),
	      (unsigned long long)stat_sum(r, OSTAT_DROPPED),
	      (unsigned long long)stat_sum(r, OSTAT_STACK_FAILED),
	      (unsigned long long)stat_sum(r, OSTAT_STACKS_FULL));
	stackrun_set_counts(sr, stat_sum(r, OSTAT_INTERVALS),
			    stat_sum(r, OSTAT_DROPPED) + stat_sum(r, OSTAT_STARTS_FULL),
			    stat_sum(r, OSTAT_STACK_FAILED) + stat_sum(r, OSTAT_STACKS_FULL));
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
