/* stackscope profile: on-CPU sampling of kernel + user stacks.
 *
 * options -> load and configure the BPF side -> gate the command -> attach
 * a cpu-clock event per CPU -> release the command -> wait -> stop
 * sampling -> read the aggregated counts -> symbolize -> write. */
#include <ctype.h>
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
#include "stacks/kmaps.h"
#include "profile.skel.h"
#include "bpf/profile.h"
#include "trace/attach.h"
#include "trace/features.h"
#include "trace/kbtf.h"
#include "trace/perf.h"

#define DEFAULT_HZ 99
#define MAX_HZ 100000
#define MAX_LABELS 32
#define DEFAULT_QUEUE 16
#define PUSH_TIMEOUT_MIN 5.0	/* seconds per request: the window, within [5, 10] */
#define PUSH_TIMEOUT_MAX 10.0
#define QUEUED_WAIT 1.0		/* seconds a closing window waits for its snapshots */

/* Long options of the continuous mode. */
enum { OPT_EVERY = 0x300, OPT_PUSH, OPT_LABEL, OPT_SERVICE, OPT_TENANT, OPT_QUEUE };

static const char usage_text[] =
"usage: stackscope profile [-F HZ] [-p PID[,PID...]] [-d SECONDS] [-U | -K]\n"
"                          [-o FILE] [--format svg|folded|pprof] [--offsets]\n"
"                          [--unwind kernel|tables|fp|auto] [--unwind-rows N]\n"
"                          [--stack-size BYTES]\n"
"                          [--per-pid | --per-thread] [-- CMD ARGS...]\n"
"       stackscope profile --every INTERVAL [-o PATTERN] [--push URL]\n"
"                          [--label KEY=VALUE]... [--service NAME] [--tenant ID]\n"
"                          [--push-queue N] [-F HZ] [-p PID[,PID...]] [-d SECONDS]\n"
"                          [-U | -K] [--unwind kernel|tables|fp|auto] [--unwind-rows N]\n"
"                          [--per-pid | --per-thread]\n"
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
"  --unwind MODE    user stacks: auto (default) is kernel for CMD or -p: the\n"
"                   binaries' unwind tables loaded into the kernel and walked\n"
"                   there, frame pointers where no table covers a pc (a copy\n"
"                   of the stack unwound here until a process's tables are\n"
"                   loaded); system-wide, or where the kernel has no bpf_loop,\n"
"                   copies: the unwind tables, here, from a copy of the stack,\n"
"                   frame pointers where a binary has none; tables (unwind\n"
"                   tables only, here), fp (frame pointers, walked in the\n"
"                   kernel)\n"
"  --unwind-rows N  --unwind kernel's table capacity in rows of 16 bytes\n"
"                   (default 262144); a binary that does not fit is unwound\n"
"                   from copies of the stack\n"
"  --stack-size N   bytes of user stack copied per sample for unwinding\n"
"                   (default 16384, at most 32768)\n"
"  --per-pid        a frame per process under its name: comm;[pid 1234];...\n"
"  --per-thread     a frame per thread under its name: comm;[tid 1235];...\n"
"                   (comm is the thread's name; pprof: labels tid, thread_name)\n"
"  -v               say more (libbpf messages, timings)\n"
"  -- CMD ARGS...   run CMD (and its children), gated until sampling is live\n"
"\n"
"Continuous (an agent): until stopped or -d, a window closes every INTERVAL\n"
"and at SIGHUP; each is one pprof profile, none lost or counted twice.\n"
"  --every INTERVAL   the window: 10s, 1m, 500ms, or seconds (at least 0.1 s)\n"
"  -o PATTERN         a file per window, strftime of its start (local time):\n"
"                     'DIR/cpu-%Y%m%dT%H%M%S.pb.gz'\n"
"  --push URL         to Grafana Pyroscope's ingest API (URL/ingest), name\n"
"                     SERVICE.cpu{hostname=...,KEY=VALUE...}; never blocks\n"
"                     sampling: retried with back-off, the oldest dropped when\n"
"                     the queue is full, a 4xx not retried (all counted)\n"
"  --label KEY=VALUE  a label of the pushed profiles (repeatable; hostname is one)\n"
"  --service NAME     the pushed name's SERVICE (default stackscope)\n"
"  --tenant ID        the X-Scope-OrgID header (multi-tenant Pyroscope)\n"
"  --push-queue N     windows waiting to be pushed at most (default 16)\n";

struct profile_run {
	struct stackcmd_opts o;
	long hz;
	struct profile_bpf *skel;
	struct kbtf_custom kbtf;	/* until loaded */
	struct bpf_map *premade[32];	/* made before the load */
	int tmpl[2];		/* small_template()'s, until loaded */
	bool maps_late;		/* some made by the load: tables after it */
	/* continuous: --label's and the hostname, "k=v,k=v" */
	const char *labels[MAX_LABELS];
	int nlabels;
	char label_buf[MAX_LABELS * 260 + 300];
	long queue;
	/* the slot the BPF side counts into now (profile.bpf.c) */
	unsigned int slot;
	uint64_t window_samples;	/* samples read from the windows so far */
	uint64_t snap_bytes;	/* read from the `snapshots` ring, its headers included */
	/* named at trims, of exited processes: counts (those with a user
	 * stack from the kernel's store), aggregated copies */
	uint64_t early_counts, early_kstacks, early_copies;
	uint64_t freed_ustacks;	/* their user stacks taken out of the store */
	uint64_t ustacks_back;	/* ... and put back (a live process's too) */
};

/* "10s", "1m", "500ms", "2h", or seconds; 0 or -EINVAL. */
static int parse_interval(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !(v > 0))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (v < 0.1 || v > 86400)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The pushed labels: hostname (unless --label gives it), then --label's
 * in order; a host name is made a valid value (bytes Pyroscope refuses
 * become '_'). */
static int make_labels(struct profile_run *r)
{
	char host[256] = "", *p = r->label_buf;
	size_t room = sizeof(r->label_buf);
	bool has_host = false;
	int n;

	for (int i = 0; i < r->nlabels; i++)
		has_host |= !strncmp(r->labels[i], "hostname=", 9);
	if (!has_host) {
		if (gethostname(host, sizeof(host) - 1) || !host[0])
			strcpy(host, "unknown");
		for (char *h = host; *h; h++)
			if ((unsigned char)*h < 0x20 || *h == 0x7f || strchr(",{}=\"", *h))
				*h = '_';
		n = snprintf(p, room, "hostname=%s", host);
		p += n;
		room -= n;
	}
	for (int i = 0; i < r->nlabels; i++) {
		n = snprintf(p, room, "%s%s", p == r->label_buf ? "" : ",", r->labels[i]);
		if (n < 0 || (size_t)n >= room)
			return -ENAMETOOLONG;
		p += n;
		room -= n;
	}
	r->o.windows.push.labels = r->label_buf;
	return 0;
}

static bool service_ok(const char *s)
{
	if (!*s || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-/", *s))
			return false;
	return true;
}

/* The continuous mode's options: 1 taken, 0 not one, else minus an exit
 * status (said). */
static int parse_window_opt(struct profile_run *r, int c, const char *arg)
{
	struct ingest_opts *p = &r->o.windows.push;
	char why[96];

	switch (c) {
	case OPT_EVERY:
		if (parse_interval(arg, &r->o.every)) {
			msg("--every %s: expected an interval of 0.1 s to 1 day: 10s, 1m, 500ms, "
			    "or seconds", arg);
			return -2;
		}
		return 1;
	case OPT_PUSH:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8)) {
			msg("--push %s: expected an http:// or https:// URL", arg);
			return -2;
		}
		p->url = arg;
		return 1;
	case OPT_LABEL:
		if (ingest_label_ok(arg, why, sizeof(why))) {
			msg("--label %s: %s", arg, why);
			return -2;
		}
		if (r->nlabels == MAX_LABELS) {
			msg("--label %s: at most %d labels", arg, MAX_LABELS);
			return -2;
		}
		r->labels[r->nlabels++] = arg;
		return 1;
	case OPT_SERVICE:
		if (!service_ok(arg)) {
			msg("--service %s: expected letters, digits and _.-/ (at most 128)", arg);
			return -2;
		}
		p->service = arg;
		return 1;
	case OPT_TENANT:
		for (const char *t = arg; *t; t++) {
			if ((unsigned char)*t < 0x21 || *t == 0x7f) {
				msg("--tenant: an id without spaces or control bytes");
				return -2;
			}
		}
		if (!*arg || strlen(arg) > 150) {
			msg("--tenant %s: expected an id of 1 to 150 bytes", arg);
			return -2;
		}
		p->tenant = arg;
		return 1;
	case OPT_QUEUE:
		if (parse_long(arg, 1, 1024, &r->queue)) {
			msg("--push-queue %s: expected windows, 1 to 1024", arg);
			return -2;
		}
		return 1;
	}
	return 0;
}

/* The continuous options asked for without --every, and the push's
 * settings from the others. */
static int finish_window_opts(struct profile_run *r)
{
	struct ingest_opts *p = &r->o.windows.push;

	if (r->o.every <= 0) {
		if (p->url || r->nlabels || p->service || p->tenant || r->queue) {
			msg("--push, --label, --service, --tenant and --push-queue need --every");
			return 2;
		}
		return 0;
	}
	if (!p->url && (r->nlabels || p->service || p->tenant || r->queue)) {
		msg("--label, --service, --tenant and --push-queue are for --push");
		return 2;
	}
	if (!p->service)
		p->service = "stackscope";
	p->sample_rate = r->hz;
	p->queue = r->queue ? r->queue : DEFAULT_QUEUE;
	p->timeout = r->o.every < PUSH_TIMEOUT_MIN   ? PUSH_TIMEOUT_MIN
		     : r->o.every > PUSH_TIMEOUT_MAX ? PUSH_TIMEOUT_MAX
						     : r->o.every;
	if (make_labels(r)) {
		msg("--label: the labels are too long together");
		return 2;
	}
	return 0;
}

static int parse_args(struct profile_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		STACKCMD_LONGOPTS,
		{ "every", required_argument, NULL, OPT_EVERY },
		{ "push", required_argument, NULL, OPT_PUSH },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "service", required_argument, NULL, OPT_SERVICE },
		{ "tenant", required_argument, NULL, OPT_TENANT },
		{ "push-queue", required_argument, NULL, OPT_QUEUE },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	stackcmd_init(&r->o, "profile");
	r->hz = DEFAULT_HZ;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:p:d:UKo:vh", longopts, NULL)) != -1) {
		int ret = stackcmd_parse_opt(&r->o, c, optarg);

		if (!ret)
			ret = parse_window_opt(r, c, optarg);
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
	c = finish_window_opts(r);
	if (!c)
		c = stackcmd_finish(&r->o, argc - optind, argv + optind);
	if (c || r->o.unwind != UNWIND_AUTO || r->o.kernel_only)
		return c;
	/* The in-kernel walk measured cheaper for a command or chosen
	 * processes (bench/profile_modes.sh: the workload's time, bytes per
	 * sample, the tool's CPU at par); system-wide it loads every process
	 * and table and the rows run out on a machine of big binaries, its
	 * stacks copied all the same (bench/agent.sh: 1.36x the tool's CPU),
	 * so copies there.  It needs the kernel's bpf_loop(). */
	if (!r->o.s.cmd && !r->o.s.npids)
		debug("--unwind auto: system-wide, stacks copied and unwound here");
	else if (feature_probe(FEATURE_BPF_LOOP) == -EOPNOTSUPP)
		debug("--unwind auto: no bpf_loop() in this kernel: stacks copied and unwound here");
	else
		r->o.unwind = UNWIND_KERNEL;
	return 0;
}

/* What a record of size bytes takes in a BPF ring buffer: its 8-byte
 * header, and the record rounded up to 8 bytes. */
static uint64_t ringbuf_record_bytes(size_t size)
{
	return 8 + ((size + 7) & ~(size_t)7);
}

/* The copies' ring: half a second of every CPU's samples each copied
 * (--unwind tables copies every one; in the kernel, the fallbacks of the
 * processes not loaded yet), a power of two from 1 to 8 MiB.  Its pages
 * are made, zeroed and mapped at every start and unmapped at the end:
 * 1.5-3 ms of a start for 8 MiB here, and the unmapping 1.5 ms more. */
#define SNAPSHOTS_MIN (1u << 20)
static uint32_t snapshots_ring(long hz, long stack_size)
{
	uint64_t want = (uint64_t)libbpf_num_possible_cpus() * (uint64_t)hz *
			ringbuf_record_bytes(sizeof(struct profile_snapshot) + (size_t)stack_size) / 2;
	uint32_t size = SNAPSHOTS_MIN;

	while (size < want && size < SNAPSHOTS_SIZE)
		size <<= 1;
	return size;
}

/* The bytes user space read from the ring buffers, per sample: stack
 * copies (the snapshot way, or the in-kernel unwinder's fallbacks) and
 * the in-kernel unwinder's load requests; the rest of a sample stays in
 * the kernel's maps. */
static void ring_bytes_line(uint64_t samples, uint64_t snap, uint64_t requests)
{
	debug("ring buffers: %llu bytes read, %.1f per sample (%llu of stack copies, %llu of "
	      "load requests)",
	      (unsigned long long)(snap + requests),
	      samples ? (double)(snap + requests) / (double)samples : 0.0,
	      (unsigned long long)snap, (unsigned long long)requests);
}

/* One snapshot record: registers, kernel stack handle, stack bytes. */
static bool decode_snapshot(const void *data, size_t size, struct stack_snapshot *out, void *ctx)
{
	const struct profile_snapshot *h = data;
	struct profile_run *r = ctx;

	r->snap_bytes += ringbuf_record_bytes(size);
	if (size < sizeof(*h) || h->size > size - sizeof(*h))
		return false;
	*out = (struct stack_snapshot){
		.pid = h->pid, .gen = h->gen, .tid = h->tid, .comm = h->comm, .kstack = h->kstack,
		.regs = { h->ip, h->sp, h->bp }, .stack = h + 1, .size = h->size, .value = 1,
		.slot = h->slot,
	};
	return true;
}

/* Snapshots are queued: unwound in user space, or the in-kernel
 * unwinder's fallback. */
static bool snapshots_on(const struct profile_run *r)
{
	return r->o.unwind != UNWIND_FP && !r->o.kernel_only;
}

/* The inner map of a map-in-map as libbpf would make it: a map of the
 * slots' own type and size, created only to describe them to the kernel
 * and closed after the load.  A hash map's size is not part of that
 * description (the two slots differ in size already), so one entry, not
 * the 17 MiB of preallocated stacks a copy of the first slot would take
 * to create.  A failure leaves libbpf's own template. */
static void small_template(struct bpf_map *outer, const struct bpf_map *like, int *fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = bpf_map__map_flags(like));

	*fd = bpf_map_create(bpf_map__type(like), NULL, bpf_map__key_size(like),
			     bpf_map__value_size(like), 1, &o);
	if (*fd >= 0 && bpf_map__set_inner_map_fd(outer, *fd)) {
		close(*fd);
		*fd = -1;
	}
}

static int name_exited(void *ctx, struct stackpipe *sp);

/* Keys `counts` holds in a run filtered to a command or -p: distinct
 * (process, thread name, stacks) of those processes alive or not yet
 * named (one-shot runs take exited processes' keys out at each trim).
 * A run over every process keeps profile.bpf.c's 65,536.  Creating the
 * map writes a bucket per key rounded up to a power of two: 16,384 took
 * 0.5-0.7 ms here, 65,536 (and 40,960, the size before) 5-6.5 ms.  A
 * sample whose key finds the map full is counted as lost. */
#define COUNTS_FILTERED 16384
/* Processes kunwind_told (an LRU hash, every entry preallocated at
 * creation: 4,096 took 1-1.5 ms here, 1,024 0.2-0.3 ms) remembers in such
 * a run: one for each process whose tables are awaited; one evicted is
 * only told again sooner (one more miss record). */
#define TOLD_FILTERED 1024

static int load(void *skel)
{
	return profile_bpf__load(skel);
}

/* Before the launch: the object opened and sized for the run, its maps
 * made, its load begun on the thread of the small BTF (setup() waits for
 * it). */
static int prepare(void *ctx, struct session *s)
{
	struct profile_run *r = ctx;
	struct profile_bpf *skel;
	long max = perf_max_sample_rate();
	size_t nmaps;
	int err;

	if (max > 0 && r->hz > max) {
		msg("-F %ld: above the kernel's limit of %ld Hz (sysctl kernel.perf_event_max_sample_rate)",
		    r->hz, max);
		return -EINVAL;
	}
	skel = r->skel = KBTF_OPEN(profile, &r->kbtf);
	if (!skel) {
		err = -errno;
		kbtf_close(&r->kbtf);
		msg("cannot open the profile BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->filter_pids = session_filtered(s);
	session_size_gens(s, skel->maps.targets, skel->maps.gens);
	skel->rodata->follow_forks = r->o.s.cmd != NULL;
	skel->rodata->want_kernel = !r->o.user_only;
	skel->rodata->want_user = !r->o.kernel_only;
	skel->rodata->per_thread = r->o.per_thread;
	skel->rodata->ustack_mode = stackcmd_kunwind(&r->o) ? USTACK_KERNEL
				    : snapshots_on(r)       ? USTACK_SNAPSHOT
							    : USTACK_FP;
	skel->rodata->snapshot_bytes = r->o.stack_size;
	/* the in-kernel unwinder was chosen where bpf_loop() is */
	skel->rodata->stacks_bpf_loop = stackcmd_kunwind(&r->o) ||
					feature_probe(FEATURE_BPF_LOOP) == 0;
	if (snapshots_on(r)) {
		uint32_t ring = snapshots_ring(r->hz, r->o.stack_size);

		bpf_map__set_max_entries(skel->maps.snapshot_scratch, libbpf_num_possible_cpus());
		bpf_map__set_max_entries(skel->maps.snapshots, ring);
		skel->rodata->snapshots_wakeup = ring / 4;
		debug("stack copies' ring: %u KiB", ring >> 10);
	} else
		bpf_map__set_max_entries(skel->maps.snapshots, 4096);
	if (stackcmd_kunwind(&r->o)) {
		bpf_map__set_max_entries(skel->maps.unwind_rows, r->o.unwind_rows);
		if (session_filtered(s))
			bpf_map__set_max_entries(skel->maps.kunwind_told, TOLD_FILTERED);
	} else {
		bpf_map__set_max_entries(skel->maps.unwind_rows, 1);
		bpf_map__set_max_entries(skel->maps.unwind_procs, 1);
		bpf_map__set_max_entries(skel->maps.kunwind_miss, 4096);
		bpf_map__set_max_entries(skel->maps.kunwind_told, 1);
	}
	if (session_filtered(s)) {
		bpf_map__set_max_entries(skel->maps.counts, COUNTS_FILTERED);
		bpf_map__set_max_entries(skel->maps.counts_b, COUNTS_FILTERED);
	}
	if (r->o.every <= 0) {
		/* one window: slot 1 is never written */
		bpf_map__set_max_entries(skel->maps.counts_b, 1);
		bpf_map__set_max_entries(skel->maps.stacks_b, 1);
	}
	small_template(skel->maps.count_slots, skel->maps.counts, &r->tmpl[0]);
	small_template(skel->maps.stack_slots, skel->maps.stacks, &r->tmpl[1]);
	/* the maps (8 MiB of ring zeroed: ~2 ms; a hash's buckets ~1 ms)
	 * made here and on the small BTF's thread, which then loads the
	 * programs (their verification: most of the load) while the
	 * command is launched and the tables below are filled */
	nmaps = map_premake_list(skel->obj, r->premade, ARRAY_SIZE(r->premade));
	r->maps_late = nmaps > ARRAY_SIZE(r->premade);
	if (r->maps_late)
		nmaps = ARRAY_SIZE(r->premade);
	if (kbtf_load_start(&r->kbtf, &(struct kbtf_load){ .maps = r->premade, .nmaps = nmaps,
							    .load = load, .arg = skel }))
		r->maps_late = true;
	return 0;
}

/* The load's result, once over (the object is the caller's again). */
static int loaded(struct profile_run *r)
{
	int err = kbtf_load_wait(&r->kbtf);

	kbtf_close(&r->kbtf);
	for (int i = 0; i < 2; i++) {
		if (r->tmpl[i] >= 0)
			close(r->tmpl[i]);
		r->tmpl[i] = -1;
	}
	return err;
}

/* Fill the filter and the tables while the programs load, then fork/exec
 * tracking before sampling, so no generation is missed. */
static int setup(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct profile_run *r = ctx;
	struct profile_bpf *skel = r->skel;
	int err = 0, load_err = 0;

	if (r->maps_late)
		err = load_err = loaded(r);
	if (!err)
		err = session_fill_targets(s, bpf_map__fd(skel->maps.targets));
	/* load requests drained before the copies: a process is loaded
	 * (its tables built) first, so its copies stop sooner, and those
	 * queued meanwhile are unwound with the tables already built */
	if (!err && stackcmd_kunwind(&r->o))
		err = stackcmd_add_kunwind(&r->o, sp, skel->obj);
	if (!err && snapshots_on(r)) {
		err = stackpipe_add_snapshots(sp, bpf_map__fd(skel->maps.snapshots),
					      decode_snapshot, r);
		/* copies only: every user stack is unwound as it arrives */
		if (!stackcmd_kunwind(&r->o)) {
			stackpipe_forget_unsampled(sp);
			if (r->o.every <= 0)
				stackpipe_resolve_early(sp, bpf_map__fd(skel->maps.stacks));
		}
	}
	/* in-kernel user stacks are named after the run (or the window): at
	 * each trim those of exited processes, so that these can go (windows
	 * drop them once their window is written) */
	if (!err && !r->o.kernel_only && r->o.every <= 0 &&
	    (stackcmd_kunwind(&r->o) || !snapshots_on(r)))
		stackpipe_name_exited(sp, name_exited, r);
	/* on every path: the thread is done with the object after */
	if (!r->maps_late)
		load_err = loaded(r);
	/* each CPU's reserve of free stack elements: after the load, as it
	 * moves to each CPU in turn (the thread verifying on one of them) */
	if (!load_err && !err) {
		stackcmd_warm_store(bpf_map__fd(skel->maps.stacks));
		if (r->o.every > 0)
			stackcmd_warm_store(bpf_map__fd(skel->maps.stacks_b));
	}
	if (load_err) {
		msg("cannot load the profile BPF programs: %s (%s)", strerror(-load_err),
		    bpf_hint(load_err));
		return load_err;
	}
	if (!err)
		err = attach_program(s, skel->progs.on_fork);
	if (!err)
		err = attach_program(s, skel->progs.on_exec);
	if (!err)
		err = attach_program(s, skel->progs.on_free);
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

/* The maps of a slot (bpf/profile.bpf.c). */
static int counts_fd(struct profile_run *r, unsigned int slot)
{
	return bpf_map__fd(slot ? r->skel->maps.counts_b : r->skel->maps.counts);
}

static int stacks_fd(struct profile_run *r, unsigned int slot)
{
	return bpf_map__fd(slot ? r->skel->maps.stacks_b : r->skel->maps.stacks);
}

/* A slot being read: its stacks taken whole (ks: the slot is emptied as
 * it is read), or looked up in its map one by one (sfd). */
struct slot_read {
	struct stackpipe *sp;
	struct kstacks *ks;
	int sfd;
	int64_t total;
};

static int read_stack(const struct slot_read *rd, __u64 handle, uint64_t *ips)
{
	return rd->ks ? kstacks_read(rd->ks, handle, ips) : stackpipe_read_stack(rd->sfd, handle, ips);
}

/* One key of a slot's counts into the pipeline, its stacks from rd. */
static int add_count(struct slot_read *rd, const struct profile_key *key, __u64 count)
{
	struct stack_sample smp = {
		.pid = key->pid, .gen = key->gen, .tid = key->tid, .value = count,
	};

	rd->total += count;
	memcpy(smp.comm, key->comm, sizeof(key->comm));
	smp.comm[sizeof(key->comm)] = 0;
	smp.nk = read_stack(rd, key->kstack, smp.kips);
	/* the kernel's walk stops at its depth limit; the in-kernel
	 * unwinder also says where it could not go on */
	smp.nu = rd->ks ? kstacks_read_user(rd->ks, key->ustack, smp.uips, &smp.utrunc)
			: stackpipe_read_ustack(rd->sfd, key->ustack, smp.uips, &smp.utrunc);
	return stackpipe_add(rd->sp, &smp);
}

/* kmap_drain()'s callback: one entry of `counts`. */
static int read_count(void *ctx, const void *k, const void *v)
{
	return add_count(ctx, k, *(const __u64 *)v);
}

/* One aggregated snapshot unwound here, its kernel stack from rd. */
static int add_unwound(struct slot_read *rd, const struct stackagg_entry *e)
{
	struct stack_sample smp = {
		.pid = e->pid, .gen = e->gen, .tid = e->tid, .value = e->value,
		.nu = e->n, .utrunc = e->truncated,
	};

	rd->total += e->value;
	memcpy(smp.comm, e->comm, sizeof(smp.comm));
	memcpy(smp.uips, e->ips, e->n * sizeof(*e->ips));
	smp.nk = read_stack(rd, e->kstack, smp.kips);
	return stackpipe_add(rd->sp, &smp);
}

/* Reads what slot holds into the pipeline: the kernel's counts and the
 * snapshots unwound here, their stacks from the slot's store.  Nothing
 * writes the slot meanwhile (sampling detached, or the slot switched).
 * Its maps are emptied as they are read, in batches (stacks/kmaps.h),
 * *emptied set; else (a kernel without the batch operation) read key by
 * key and left as they are.  Returns the samples read, or -errno. */
static int64_t read_slot(struct profile_run *r, struct stackpipe *sp, unsigned int slot,
			 bool *emptied)
{
	int cfd = counts_fd(r, slot);
	const struct stackagg *unwound = stackpipe_unwound_slot(sp, slot);
	struct slot_read rd = { .sp = sp, .sfd = stacks_fd(r, slot) };
	struct profile_key key, next, *prev = NULL;
	int64_t n = 0;
	__u64 count;
	int err;

	rd.ks = kstacks_take(rd.sfd);
	if (rd.ks)
		n = kmap_drain(cfd, sizeof(key), sizeof(count), read_count, &rd);
	else if (errno != EOPNOTSUPP)
		return -errno;
	*emptied = rd.ks && n != -EOPNOTSUPP;
	if (n < 0 && n != -EOPNOTSUPP) {
		kstacks_free(rd.ks);
		return n;
	}
	while (!*emptied && bpf_map_get_next_key(cfd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(cfd, &key, &count))
			continue;
		err = add_count(&rd, &key, count);
		if (err) {
			kstacks_free(rd.ks);
			return err;
		}
	}
	for (size_t i = 0; unwound && i < stackagg_count(unwound); i++) {
		const struct stackagg_entry *e = stackagg_get(unwound, i);

		err = add_unwound(&rd, e);
		if (err) {
			kstacks_free(rd.ks);
			return err;
		}
	}
	kstacks_free(rd.ks);
	return rd.total;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* A count taken out of the map and not named, put back for the end;
 * where the kernel made the key again meanwhile (adding to it here would
 * race the kernel's own adds), said lost. */
static void put_back(int cfd, const struct profile_key *key, __u64 count)
{
	if (bpf_map_update_elem(cfd, key, &count, BPF_NOEXIST))
		msg("a count of %llu samples of pid %u not named and not put back (%s): lost",
		    (unsigned long long)count, key->pid, strerror(errno));
}

/* Stacks freed at a trim at most at once (their copies held meanwhile:
 * 1 KiB each). */
#define FREE_BATCH 4096

/* The user stacks of exited processes' counts, taken out of the store
 * (one-shot runs: it fills with every process's stacks otherwise, each
 * process's own under address-space randomization): those of h (sorted,
 * unique) that no count left references.  A live process may share one
 * (forked without exec: the same addresses) and take its handle while it
 * goes (the store said EEXIST, its count not made yet): after the
 * deletions an update of count_slots (its unused slot 1, unchanged)
 * returns once every program running then has finished (the kernel waits
 * for an RCU grace period), and a count made since that names a freed
 * stack gets it back, from the copy read before the deletion. */
static void free_ustacks(struct profile_run *r, __u64 *h, size_t n)
{
	int cfd = counts_fd(r, 0), sfd = stacks_fd(r, 0), slots = bpf_map__fd(r->skel->maps.count_slots);
	int bfd = counts_fd(r, 1);
	struct profile_key key, cur;
	struct stack_trace *copy;
	size_t m = 0, back = 0;
	bool *kept = calloc(n, sizeof(*kept));
	__u32 one = 1;

	if (!kept)
		return;
	/* those a count still references stay */
	for (void *prev = NULL; bpf_map_get_next_key(cfd, prev, &key) == 0; prev = &cur) {
		__u64 *hit = bsearch(&key.ustack, h, n, sizeof(*h), cmp_u64);

		cur = key;
		if (hit)
			kept[hit - h] = true;
	}
	for (size_t i = 0; i < n; i++)
		if (!kept[i])
			h[m++] = h[i];
	free(kept);
	n = m < FREE_BATCH ? m : FREE_BATCH;	/* the rest stays in the store */
	m = 0;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return;
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_and_delete_elem(sfd, &h[i], &copy[m]))
			continue;
		h[m++] = h[i];
	}
	if (!m || bpf_map_update_elem(slots, &one, &bfd, BPF_ANY)) {
		/* no grace period to wait for: every stack put back */
		for (size_t i = 0; i < m; i++)
			bpf_map_update_elem(sfd, &h[i], &copy[i], BPF_NOEXIST);
		free(copy);
		return;
	}
	for (void *prev = NULL; bpf_map_get_next_key(cfd, prev, &key) == 0; prev = &cur) {
		__u64 *hit = bsearch(&key.ustack, h, m, sizeof(*h), cmp_u64);

		cur = key;
		if (hit && !bpf_map_update_elem(sfd, hit, &copy[hit - h], BPF_NOEXIST))
			back++;
	}
	r->freed_ustacks += m - back;
	r->ustacks_back += back;
	free(copy);
}

/* One report, user stacks unwound in the kernel (or walked there by frame
 * pointers): the samples of the processes that exited, named at a trim so
 * that their processes can go and the run keeps the live ones.  Their
 * counts are taken out of `counts` (keys gathered first: a deleted key
 * would restart the walk), each by lookup-and-delete, so a sample counts
 * once whatever comes after: one still counted under the key later (the
 * process's last thread on its way out of do_exit, past its exit record:
 * no user stack, PF_EXITING) makes a new entry, named at the end, by
 * comm and kernel frames.  A process is exited once its exit record was
 * read and two whole drains passed (stackpipe_exited()): its samples were
 * all counted by then, and its copies (the in-kernel unwinder's
 * fallbacks) all read and aggregated here; those are taken out too.
 * Their user stacks then leave the store (free_ustacks()); their kernel
 * stacks, shared by every process, stay.  Returns the counts and copies
 * named, or -errno. */
static int name_exited(void *ctx, struct stackpipe *sp)
{
	struct profile_run *r = ctx;
	int cfd = counts_fd(r, 0), named = 0, err = 0;
	struct slot_read rd = { .sp = sp, .sfd = stacks_fd(r, 0) };
	struct profile_key key, cur, *keys = NULL;
	size_t n = 0, cap = 0, nh = 0;
	struct stackagg *taken;
	__u64 *handles;

	for (void *prev = NULL; bpf_map_get_next_key(cfd, prev, &key) == 0; prev = &cur) {
		cur = key;
		if (!stackpipe_exited(sp, key.pid))
			continue;
		if (n == cap && !(keys = array_grow(keys, &cap, sizeof(*keys)))) {
			err = -ENOMEM;
			break;
		}
		keys[n++] = key;
	}
	/* the keys' user stacks, once each, taken out of the store after */
	handles = n ? malloc(n * sizeof(*handles)) : NULL;
	for (size_t i = 0; i < n && !err; i++) {
		__u64 count, ustack = keys[i].ustack;

		if (bpf_map_lookup_and_delete_elem(cfd, &keys[i], &count))
			continue;
		err = add_count(&rd, &keys[i], count);
		if (err) {
			/* not named: back into the map, for the end */
			put_back(cfd, &keys[i], count);
			break;
		}
		r->early_counts += count;
		if (ustack & STACK_HASH_BIT) {
			r->early_kstacks += count;
			if (handles)
				handles[nh++] = ustack;
		}
		named++;
	}
	if (!err && nh) {
		qsort(handles, nh, sizeof(*handles), cmp_u64);
		n = 0;
		for (size_t i = 0; i < nh; i++)
			if (!i || handles[i] != handles[i - 1])
				handles[n++] = handles[i];
		free_ustacks(r, handles, n);
	}
	free(handles);
	free(keys);
	if (err || !snapshots_on(r))
		return err ? err : named;
	taken = stackpipe_take_exited(sp);
	if (!taken)
		return -errno;
	for (size_t i = 0; i < stackagg_count(taken) && !err; i++, named++) {
		err = add_unwound(&rd, stackagg_get(taken, i));
		r->early_copies += stackagg_get(taken, i)->value;
	}
	stackagg_free(taken);
	return err ? err : named;
}

/* Every key of a hash map deleted: the slot is ready for the window
 * after next.  Keys are gathered first (deleting while walking would
 * restart the walk), at most max_entries of them. */
static int clear_map(int fd, size_t key_size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), n = 0;
	char *keys, *prev = NULL;
	int err = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	keys = malloc((size_t)(info.max_entries + 1) * key_size);
	if (!keys)
		return -ENOMEM;
	while (n < info.max_entries &&
	       bpf_map_get_next_key(fd, prev, keys + (size_t)n * key_size) == 0) {
		prev = keys + (size_t)n * key_size;
		n++;
	}
	if (n) {
		__u32 count = n;

		if (bpf_map_delete_batch(fd, keys, &count, NULL))
			err = -errno;
	}
	free(keys);
	return err;
}

static int count(void *ctx, struct session *s, struct stackpipe *sp);

/* Counts are final: sampling was detached before this runs. */
static int collect(void *ctx, struct session *s, struct stackpipe *sp)
{
	bool emptied;
	int64_t n = read_slot(ctx, sp, 0, &emptied);

	return n < 0 ? (int)n : count(ctx, s, sp);
}

/* Closes the window of slot r->slot (profile.bpf.c): the BPF side is
 * switched to the other slot, and the update of count_slots waits for
 * every program still running on the old one; the snapshots queued in the
 * old slot (the kernel counted them) are all read from the ring; then the
 * old slot is read and emptied. */
static int close_window(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct profile_run *r = ctx;
	unsigned int old = r->slot, next = !old;
	int fd = counts_fd(r, next), err = 0;
	double t0 = now_sec();
	bool emptied;
	int64_t n;

	r->skel->bss->slot = next;
	if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.count_slots), &next, &fd, BPF_ANY)) {
		err = -errno;
		msg("switching windows: %s", strerror(-err));
		return err;
	}
	r->slot = next;
	if (snapshots_on(r)) {
		uint64_t queued = stat_sum(r, old ? PSTAT_QUEUED_1 : PSTAT_QUEUED_0);

		/* a snapshot committed after one of the new slot still being
		 * written is read once that one is done: microseconds */
		while (stackpipe_snapshots_read(sp, old) < queued && now_sec() - t0 < QUEUED_WAIT) {
			err = session_drain(s);
			if (err)
				return err;
			if (stackpipe_snapshots_read(sp, old) < queued)
				usleep(200);
		}
		if (stackpipe_snapshots_read(sp, old) < queued)
			debug("window: %llu snapshots still unread (counted in a later window)",
			      (unsigned long long)(queued - stackpipe_snapshots_read(sp, old)));
	}
	n = read_slot(r, sp, old, &emptied);
	if (n < 0)
		return (int)n;
	r->window_samples += n;
	if (!emptied)
		err = clear_map(counts_fd(r, old), sizeof(struct profile_key));
	if (!err && !emptied)
		err = clear_map(stacks_fd(r, old), sizeof(__u64));
	if (!err)
		err = stackpipe_clear_slot(sp, old);
	if (err)
		msg("window: emptying the old slot: %s", strerror(-err));
	debug("window: %lld samples, closed in %.1f ms", (long long)n, (now_sec() - t0) * 1e3);
	/* an agent's run may never end: its processes' losses said as they come */
	session_say_procs(s, r->skel->obj);
	return err;
}

/* Entries of a hash map (its keys walked), and its capacity. */
static uint32_t map_entries(int fd, uint32_t *max)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), n = 0;
	__u64 key, next, *prev = NULL;

	*max = bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
	while (n <= *max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		n++;
	}
	return n;
}

/* The closing line of the run. */
static int count(void *ctx, struct session *s, struct stackpipe *sp)
{
	struct profile_run *r = ctx;

	debug("samples %llu (%llu snapshots, %llu not queued: ring full, %llu not copied), "
	      "dropped %llu, recursion misses %llu",
	      (unsigned long long)stat_sum(r, PSTAT_SAMPLES),
	      (unsigned long long)stat_sum(r, PSTAT_SNAPSHOTS),
	      (unsigned long long)stat_sum(r, PSTAT_RING_FULL),
	      (unsigned long long)stat_sum(r, PSTAT_SNAPSHOT_FAILED),
	      (unsigned long long)stat_sum(r, PSTAT_DROPPED),
	      (unsigned long long)recursion_misses(r));
	ring_bytes_line(stat_sum(r, PSTAT_SAMPLES), r->snap_bytes, stackpipe_kunwind_bytes(sp));
	if (verbose && r->o.every <= 0) {
		uint32_t max, held = map_entries(stacks_fd(r, 0), &max);

		debug("stack store: %u stacks held at the end (of %u), %llu user stacks of exited "
		      "processes freed (%llu more put back: a live process took them meanwhile)",
		      held, max, (unsigned long long)r->freed_ustacks,
		      (unsigned long long)r->ustacks_back);
	}
	if (r->o.every <= 0 && !r->o.kernel_only)
		debug("samples of exited processes named at trims: %llu counted in the kernel "
		      "(%llu with a user stack from its store), %llu unwound from copies",
		      (unsigned long long)r->early_counts, (unsigned long long)r->early_kstacks,
		      (unsigned long long)r->early_copies);
	/* a failed insert into `counts` (the only other drop, a slot
	 * without its map, cannot happen) */
	if (stat_sum(r, PSTAT_DROPPED))
		msg("%llu samples lost: the kernel's counts map (%u keys) was full or out of memory",
		    (unsigned long long)stat_sum(r, PSTAT_DROPPED),
		    bpf_map__max_entries(r->skel->maps.counts));
	stackpipe_count(sp, s, "samples", stat_sum(r, PSTAT_SAMPLES),
			stat_sum(r, PSTAT_DROPPED) + recursion_misses(r),
			stackpipe_stack_errors(bpf_map__fd(r->skel->maps.stack_errors)) +
				stat_sum(r, PSTAT_SNAPSHOT_FAILED) + stat_sum(r, PSTAT_RING_FULL));
	session_count_procs(s, r->skel->obj);
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_run r = { .kbtf = KBTF_INIT, .tmpl = { -1, -1 } };
	char sub[128];
	int ret;

	/* the small BTF begun first: its thread starts while the options
	 * are read (a run that ends there waits for it, ~8 ms) */
	KBTF_START(profile, &r.kbtf);
	ret = parse_args(&r, argc, argv);
	if (!ret) {
		snprintf(sub, sizeof(sub), "cpu-clock at %ld Hz", r.hz);
		/* pprof's CPU profile: a count and the CPU time it stands for */
		int64_t period = 1000000000 / r.hz;

		ret = stackcmd_run(&r.o, &(struct stackcmd_capture){
			.prepare = prepare, .setup = setup, .collect = collect, .window = close_window, .count = count,
			.title = "CPU profile",
			.subtitle = sub, .unit = "samples",
			.pprof = { .types = { { "samples", "count", 1 },
					      { "cpu", "nanoseconds", (uint64_t)period } },
				   .ntypes = 2, .period_type = "cpu", .period_unit = "nanoseconds",
				   .period = period } }, &r);
	}
	kbtf_close(&r.kbtf);	/* the thread done with the object first */
	for (int i = 0; i < 2; i++)
		if (r.tmpl[i] >= 0)
			close(r.tmpl[i]);
	profile_bpf__destroy(r.skel);
	session_opts_free(&r.o.s);
	return ret < 0 ? 0 : ret;
}
