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
#include "common.h"
#include "cmd/cmds.h"
#include "cmd/stackrun.h"
#include "profile.skel.h"
#include "bpf/profile.h"
#include "trace/launch.h"
#include "trace/loop.h"
#include "trace/perf.h"
#include "trace/stackagg.h"
#include "unwind/unwind.h"

#define DEFAULT_HZ 99
#define MAX_HZ 100000

static const char usage_text[] =
"usage: stackscope profile [-F HZ] [-p PID[,PID...]] [-d SECONDS] [-U | -K]\n"
"                          [-o FILE] [--format svg|folded] [--offsets]\n"
"                          [--unwind auto|fp|tables] [--stack-size BYTES] [-- CMD ARGS...]\n"
"\n"
"Samples kernel + user stacks on every CPU with a cpu-clock event.\n"
"  -F HZ            samples per second per CPU (default 99)\n"
"  -p PID[,PID...]  only these processes (all their threads)\n"
"  -d SECONDS       stop after this long (else at Ctrl-C, or when CMD exits)\n"
"  -U, -K           user stacks only / kernel stacks only\n"
"  -o FILE          write there: SVG flame graph if FILE ends in .svg, else folded\n"
"  --format FMT     svg or folded, whatever the file name\n"
"  --offsets        kernel frames as func+0xOFF\n"
"  --unwind MODE    user stacks: auto (default: the binary's unwind tables where\n"
"                   it has them, frame pointers elsewhere), fp (frame pointers,\n"
"                   walked in the kernel), tables (unwind tables only)\n"
"  --stack-size N   bytes of user stack copied per sample for unwinding\n"
"                   (default 16384, at most 32768)\n"
"  -v               say more (libbpf messages, timings)\n"
"  -- CMD ARGS...   run CMD (and its children), gated until sampling is live\n";

struct profile_run {
	struct stackrun_opts o;
	long hz;
	struct profile_bpf *skel;
	int *cpus, ncpus;
	int *pfds;			/* per CPU perf event fds */
	struct bpf_link **links;	/* per CPU */
};

static int parse_args(struct profile_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "offsets", no_argument, NULL, 'O' },
		{ "unwind", required_argument, NULL, 'W' },
		{ "stack-size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	r->hz = DEFAULT_HZ;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:p:d:UKo:vh", longopts, NULL)) != -1) {
		int err = stackrun_parse_opt(&r->o, c, optarg);

		if (err > 0)
			continue;
		if (err < 0)
			return 2;
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
	return stackrun_finish_opts(&r->o, argc - optind, argv + optind);
}

/* One cpu-clock event per online CPU, each running on_sample. */
static int attach_sampling(struct profile_run *r)
{
	long max = perf_max_sample_rate();
	int err;

	if (max > 0 && r->hz > max) {
		msg("-F %ld: above the kernel's limit of %ld Hz (sysctl kernel.perf_event_max_sample_rate)",
		    r->hz, max);
		return -EINVAL;
	}
	r->ncpus = cpus_online(&r->cpus);
	if (r->ncpus < 0) {
		msg("cannot list online CPUs: %s", strerror(-r->ncpus));
		return r->ncpus;
	}
	r->pfds = calloc(r->ncpus, sizeof(*r->pfds));
	r->links = calloc(r->ncpus, sizeof(*r->links));
	if (!r->pfds || !r->links)
		return -ENOMEM;
	for (int i = 0; i < r->ncpus; i++) {
		r->pfds[i] = perf_cpu_clock_open(r->cpus[i], r->hz);
		if (r->pfds[i] < 0) {
			err = r->pfds[i];
			msg("cpu-clock event on CPU %d: %s", r->cpus[i], strerror(-err));
			return err;
		}
		r->links[i] = bpf_program__attach_perf_event(r->skel->progs.on_sample, r->pfds[i]);
		if (!r->links[i]) {
			err = -errno;
			msg("perf_event program on CPU %d: attach failed: %s", r->cpus[i],
			    strerror(-err));
			return err;
		}
	}
	return 0;
}

static void detach_sampling(struct profile_run *r)
{
	for (int i = 0; r->links && i < r->ncpus; i++) {
		bpf_link__destroy(r->links[i]);
		r->links[i] = NULL;
	}
	for (int i = 0; r->pfds && i < r->ncpus; i++) {
		if (r->pfds[i] > 0)
			close(r->pfds[i]);
		r->pfds[i] = -1;
	}
}

/* One snapshot record: registers, kernel stack handle, stack bytes. */
static bool decode_snapshot(const void *data, size_t size, struct stackrun_snapshot *out,
			    void *ctx)
{
	const struct profile_snapshot *h = data;

	if (size < sizeof(*h) || h->size > size - sizeof(*h))
		return false;
	*out = (struct stackrun_snapshot){
		.pid = h->pid, .gen = h->gen, .comm = h->comm, .kstack = h->kstack,
		.regs = { h->ip, h->sp, h->bp }, .stack = h + 1, .size = h->size, .value = 1,
	};
	return true;
}

static int setup(struct stackrun *sr, void *ctx)
{
	struct profile_run *r = ctx;
	struct profile_bpf *skel;
	int err;

	skel = r->skel = profile_bpf__open();
	if (!skel) {
		err = -errno;
		msg("cannot open the profile BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->filter_pids = stackrun_filtered(sr);
	skel->rodata->follow_forks = stackrun_follows(sr);
	skel->rodata->want_kernel = !r->o.user_only;
	skel->rodata->want_user = !r->o.kernel_only;
	skel->rodata->ustack_mode = r->o.unwind == UNWIND_FP ? USTACK_FP : USTACK_SNAPSHOT;
	skel->rodata->snapshot_bytes = r->o.stack_size;
	if (r->o.unwind == UNWIND_FP || r->o.kernel_only)
		bpf_map__set_max_entries(skel->maps.snapshots, 4096);
	else
		bpf_map__set_max_entries(skel->maps.snapshot_scratch,
					 libbpf_num_possible_cpus());
	err = profile_bpf__load(skel);
	if (err) {
		msg("cannot load the profile BPF programs: %s (run as root; -v shows the verifier log)",
		    strerror(-err));
		return err;
	}
	err = stackrun_fill_targets(sr, bpf_map__fd(skel->maps.targets));
	if (err)
		return err;
	if (r->o.unwind != UNWIND_FP && !r->o.kernel_only) {
		err = stackrun_snapshots(sr, bpf_map__fd(skel->maps.snapshots), decode_snapshot, r);
		if (err)
			return err;
	}
	/* fork/exec tracking before sampling, so no generation is missed */
	err = profile_bpf__attach(skel);
	if (err) {
		msg("tp_btf sched_process_fork/exec: attach failed: %s", strerror(-err));
		return err;
	}
	return attach_sampling(r);
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

static int collect(struct stackrun *sr, void *ctx)
{
	struct profile_run *r = ctx;
	int counts_fd = bpf_map__fd(r->skel->maps.counts);
	int stacks_fd = bpf_map__fd(r->skel->maps.stacks);
	const struct stackagg *unwound = stackrun_unwound(sr);
	struct profile_key key, next, *prev = NULL;
	struct stackrun_sample smp;
	__u64 count;
	int err;

	/* Counts are final: sampling was detached before this runs. */
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &count))
			continue;
		smp = (struct stackrun_sample){
			.pid = key.pid,
			.gen = key.gen,
			.value = count,
		};
		memcpy(smp.comm, key.comm, sizeof(key.comm));
		smp.comm[sizeof(key.comm)] = 0;
		smp.nk = stackrun_read_stack(stacks_fd, key.kstack, smp.kips);
		smp.nu = stackrun_read_stack(stacks_fd, key.ustack, smp.uips);
		/* the kernel's walk stops at its depth limit */
		smp.utrunc = smp.nu == STACK_MAX_DEPTH;
		err = stackrun_add(sr, &smp);
		if (err)
			return err;
	}
	for (size_t i = 0; unwound && i < stackagg_count(unwound); i++) {
		const struct stackagg_entry *e = stackagg_get(unwound, i);

		smp = (struct stackrun_sample){
			.pid = e->pid, .gen = e->gen, .value = e->value,
			.nu = e->n, .utrunc = e->truncated,
		};
		memcpy(smp.comm, e->comm, sizeof(smp.comm));
		memcpy(smp.uips, e->ips, e->n * sizeof(*e->ips));
		smp.nk = stackrun_read_stack(stacks_fd, e->kstack, smp.kips);
		err = stackrun_add(sr, &smp);
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
	stackrun_set_counts(sr, stat_sum(r, PSTAT_SAMPLES),
			    stat_sum(r, PSTAT_DROPPED) + recursion_misses(r),
			    stackrun_stack_errors(bpf_map__fd(r->skel->maps.stack_errors)) +
				    stat_sum(r, PSTAT_SNAPSHOT_FAILED) + stat_sum(r, PSTAT_RING_FULL));
	return 0;
}

static void stop(struct stackrun *sr, void *ctx)
{
	detach_sampling(ctx);
}

int cmd_profile(int argc, char **argv)
{
	struct profile_run r = {};
	struct stackrun_ops ops = {
		.name = "profile",
		.title = "CPU profile",
		.setup = setup,
		.stop = stop,
		.collect = collect,
		.unit = "samples",
	};
	char sub[128];
	int ret;

	ret = parse_args(&r, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	snprintf(sub, sizeof(sub), "cpu-clock at %ld Hz", r.hz);
	ops.subtitle = sub;
	ret = stackrun_main(&ops, &r.o, &r);
	detach_sampling(&r);
	profile_bpf__destroy(r.skel);
	free(r.cpus);
	free(r.pfds);
	free(r.links);
	return ret;
}
