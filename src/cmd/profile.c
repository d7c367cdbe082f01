/* stackscope profile: on-CPU sampling of kernel + user stacks.
 *
 * options -> load and configure the BPF side -> gate the command -> attach
 * a cpu-clock event per CPU -> release the command -> wait -> stop
 * sampling -> read the aggregated counts -> symbolize -> write. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include "common.h"
#include "cmd/cmds.h"
#include "cmd/stackcmd.h"
#include "profile.skel.h"
#include "bpf/profile.h"
#include "trace/attach.h"
#include "trace/perf.h"

#define DEFAULT_HZ 99
#define MAX_HZ 100000

static const char usage_text[] =
"usage: stackscope profile [-F HZ] [-p PID[,PID...]] [-d SECONDS] [-U | -K]\n"
"                          [-o FILE] [--format svg|folded|pprof] [--offsets]\n"
"                          [--unwind auto|fp|tables] [--stack-size BYTES]\n"
"                          [--per-pid | --per-thread] [-- CMD ARGS...]\n"
"\n"
"Samples kernel + user stacks on every CPU with a cpu-clock event.\n"
"  -F HZ            samples per second per CPU (default 99)\n"
"  -p PID[,PID...]  only these processes (all their threads)\n"
"  -d SECONDS       stop after this long (else at Ctrl-C, or when CMD exits)\n"
"  -U, -K           user stacks only / kernel stacks only\n"
"  -o FILE          write there: SVG flame graph if FILE ends in .svg, pprof if\n"
"                   in .pb.gz or .pprof, else folded\n"
"  --format FMT     svg, folded or pprof, whatever the file name\n"
"  --offsets        kernel frames as func+0xOFF\n"
"  --unwind MODE    user stacks: auto (default: the binary's unwind tables where\n"
"                   it has them, frame pointers elsewhere), fp (frame pointers,\n"
"                   walked in the kernel), tables (unwind tables only)\n"
"  --stack-size N   bytes of user stack copied per sample for unwinding\n"
"                   (default 16384, at most 32768)\n"
"  --per-pid        a frame per process under its name: comm;[pid 1234];...\n"
"  --per-thread     a frame per thread under its name: comm;[tid 1235];...\n"
"                   (comm is the thread's name; pprof: labels tid, thread_name)\n"
"  -v               say more (libbpf messages, timings)\n"
"  -- CMD ARGS...   run CMD (and its children), gated until sampling is live\n";

struct profile_run {
	struct stackcmd_opts o;
	long hz;
	struct profile_bpf *skel;
};

static int parse_args(struct profile_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		STACKCMD_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	stackcmd_init(&r->o, "profile");
	r->hz = DEFAULT_HZ;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:p:d:UKo:vh", longopts, NULL)) != -1) {
		int ret = stackcmd_parse_opt(&r->o, c, optarg);

		if (ret == 1)
			continue;
		if (ret < 0)
			return -ret;
		switch (c) {
		case 'F':
			if (parse_long(optarg, 1, MAX_HZ, &r->hz)) {
				msg("-F %s: expected a rate in Hz, 1 to %d", optarg, MAX_HZ);
				return 2;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	return stackcmd_finish(&r->o, argc - optind, argv + optind);
}

/* One snapshot record: registers, kernel stack handle, stack bytes. */
static bool decode_snapshot(const void *data, size_t size, struct stack_snapshot *out, void *ctx)
{
	const struct profile_snapshot *h = data;

	if (size < sizeof(*h) || h->size > size - sizeof(*h))
		return false;
	*out = (struct stack_snapshot){
		.pid = h->pid, .gen = h->gen, .tid = h->tid, .comm = h->comm, .kstack = h->kstack,
		.regs = { h->ip, h->sp, h->bp }, .stack = h + 1, .size = h->size, .value = 1,
	};
	return true;
}

static bool snapshots_on(const struct profile_run *r)
{
	return r->o.unwind != UNWIND_FP && !r->o.kernel_only;
}

/* Load, fill the filter, then fork/exec tracking before sampling, so no
 * generation is missed. */
static int setup(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct profile_run *r = ctx;
	struct profile_bpf *skel;
	long max = perf_max_sample_rate();
	int err;

	if (max > 0 && r->hz > max) {
		msg("-F %ld: above the kernel's limit of %ld Hz (sysctl kernel.perf_event_max_sample_rate)",
		    r->hz, max);
		return -EINVAL;
	}
	skel = r->skel = profile_bpf__open();
	if (!skel) {
		err = -errno;
		msg("cannot open the profile BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->filter_pids = session_filtered(s);
	skel->rodata->follow_forks = session_child(s) != 0;
	skel->rodata->want_kernel = !r->o.user_only;
	skel->rodata->want_user = !r->o.kernel_only;
	skel->rodata->per_thread = r->o.per_thread;
	skel->rodata->ustack_mode = snapshots_on(r) ? USTACK_SNAPSHOT : USTACK_FP;
	skel->rodata->snapshot_bytes = r->o.stack_size;
	if (snapshots_on(r))
		bpf_map__set_max_entries(skel->maps.snapshot_scratch, libbpf_num_possible_cpus());
	else
		bpf_map__set_max_entries(skel->maps.snapshots, 4096);
	err = profile_bpf__load(skel);
	if (err) {
		msg("cannot load the profile BPF programs: %s (%s)", strerror(-err), bpf_hint(err));
		return err;
	}
	err = session_fill_targets(s, bpf_map__fd(skel->maps.targets));
	if (!err && snapshots_on(r)) {
		err = stackpipe_add_snapshots(sp, bpf_map__fd(skel->maps.snapshots),
					      decode_snapshot, r);
		stackpipe_forget_unsampled(sp);
	}
	if (!err)
		err = attach_program(s, skel->progs.on_fork);
	if (!err)
		err = attach_program(s, skel->progs.on_exec);
	if (!err) {
		int n = attach_perf_cpus(s, bpf_program__fd(skel->progs.on_sample),
					 PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, r->hz);

		err = n < 0 ? n : 0;
	}
	return err;
}

static uint64_t stat_sum(struct profile_run *r, enum profile_stat idx)
{
	return percpu_sum(bpf_map__fd(r->skel->maps.stats), idx);
}

/* Samples the perf_event program never ran for (it was busy on that CPU). */
static uint64_t recursion_misses(struct profile_run *r)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(r->skel->progs.on_sample), &info, &len))
		return 0;
	return info.recursion_misses;
}

/* Counts are final: sampling was detached before this runs. */
static int collect(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct profile_run *r = ctx;
	int counts_fd = bpf_map__fd(r->skel->maps.counts);
	int stacks_fd = bpf_map__fd(r->skel->maps.stacks);
	const struct stackagg *unwound = stackpipe_unwound(sp);
	struct profile_key key, next, *prev = NULL;
	struct stack_sample smp;
	__u64 count;
	int err;

	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &count))
			continue;
		smp = (struct stack_sample){
			.pid = key.pid,
			.gen = key.gen,
			.tid = key.tid,
			.value = count,
		};
		memcpy(smp.comm, key.comm, sizeof(key.comm));
		smp.comm[sizeof(key.comm)] = 0;
		smp.nk = stackpipe_read_stack(stacks_fd, key.kstack, smp.kips);
		smp.nu = stackpipe_read_stack(stacks_fd, key.ustack, smp.uips);
		/* the kernel's walk stops at its depth limit */
		smp.utrunc = smp.nu == STACK_MAX_DEPTH;
		err = stackpipe_add(sp, &smp);
		if (err)
			return err;
	}
	for (size_t i = 0; unwound && i < stackagg_count(unwound); i++) {
		const struct stackagg_entry *e = stackagg_get(unwound, i);

		smp = (struct stack_sample){
			.pid = e->pid, .gen = e->gen, .tid = e->tid, .value = e->value,
			.nu = e->n, .utrunc = e->truncated,
		};
		memcpy(smp.comm, e->comm, sizeof(smp.comm));
		memcpy(smp.uips, e->ips, e->n * sizeof(*e->ips));
		smp.nk = stackpipe_read_stack(stacks_fd, e->kstack, smp.kips);
		err = stackpipe_add(sp, &smp);
		if (err)
			return err;
	}
	debug("samples %llu (%llu snapshots, %llu not queued: ring full, %llu not copied), "
	      "dropped %llu, recursion misses %llu",
	      (unsigned long long)stat_sum(r, PSTAT_SAMPLES),
	      (unsigned long long)stat_sum(r, PSTAT_SNAPSHOTS),
	      (unsigned long long)stat_sum(r, PSTAT_RING_FULL),
	      (unsigned long long)stat_sum(r, PSTAT_SNAPSHOT_FAILED),
	      (unsigned long long)stat_sum(r, PSTAT_DROPPED),
	      (unsigned long long)recursion_misses(r));
	stackpipe_count(sp, s, "samples", stat_sum(r, PSTAT_SAMPLES),
			stat_sum(r, PSTAT_DROPPED) + recursion_misses(r),
			stackpipe_stack_errors(bpf_map__fd(r->skel->maps.stack_errors)) +
				stat_sum(r, PSTAT_SNAPSHOT_FAILED) + stat_sum(r, PSTAT_RING_FULL));
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_run r = {};
	char sub[128];
	int ret;

	ret = parse_args(&r, argc, argv);
	if (!ret) {
		snprintf(sub, sizeof(sub), "cpu-clock at %ld Hz", r.hz);
		/* pprof's CPU profile: a count and the CPU time it stands for */
		int64_t period = 1000000000 / r.hz;

		ret = stackcmd_run(&r.o, &(struct stackcmd_capture){
			.setup = setup, .collect = collect, .title = "CPU profile",
			.subtitle = sub, .unit = "samples",
			.pprof = { .types = { { "samples", "count", 1 },
					      { "cpu", "nanoseconds", (uint64_t)period } },
				   .ntypes = 2, .period_type = "cpu", .period_unit = "nanoseconds",
				   .period = period } }, &r);
	}
	profile_bpf__destroy(r.skel);
	session_opts_free(&r.o.s);
	return ret < 0 ? 0 : ret;
}
