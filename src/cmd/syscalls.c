/* stackscope syscalls: one decoded record per syscall, as strace writes
 * them, from eBPF instead of ptrace.
 *
 * options -> the kernel's syscall descriptions -> load and configure the
 * BPF side (what to capture per syscall, filters) -> gate the command ->
 * attach sys_enter/sys_exit -> release -> stream records as they complete
 * -> detach -> queue the calls still open -> drain -> totals and losses. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "cmd/cmds.h"
#include "bpf/procs.h"
#include "bpf/syscalls.h"
#include "syscalls.skel.h"	/* after the header of its .bss's struct sc_spec */
#include "report/output.h"
#include "report/syslines.h"
#include "syscall/decode.h"
#include "syscall/table.h"
#include "stacks/pipeline.h"
#include "trace/attach.h"
#include "trace/features.h"
#include "trace/kbtf.h"
#include "trace/session.h"

static const char usage_text[] =
"usage: stackscope syscalls [-p PID[,PID...]] [-f] [-e SYSCALL[,SYSCALL...]] [--failed]\n"
"                           [--min-duration US] [-s STRSIZE] [-k] [-c] [-d SECONDS]\n"
"                           [--format text|json|trace] [--buffer-size BYTES] [-o FILE]\n"
"                           [-- CMD ARGS...]\n"
"\n"
"One line per syscall, written when it returns: entry time, (+time spent in it),\n"
"comm[pid/tid], cpu, the call with decoded arguments, and its result.\n"
"  -p PID[,PID...]    only these processes (all their threads); default: all\n"
"  -f                 also the children they (or CMD) create from now on\n"
"  -e LIST            only these syscalls: names and %%classes (%%file %%desc %%memory\n"
"                     %%process %%signal %%network %%ipc %%clock); !LIST: all but\n"
"  --failed           only calls that returned an error\n"
"  --min-duration US  only calls that took at least US microseconds\n"
"  -s STRSIZE         bytes shown of strings and buffers (default 32, max 4096)\n"
"  -k                 the user stack of each call, symbolized, after its line\n"
"  -c                 no lines: a table of calls, errors and time per syscall\n"
"  -d SECONDS         stop after this long (else at Ctrl-C, or when CMD exits)\n"
"  --format FMT       text (default), json (one object per line) or trace\n"
"                     (Chrome / Perfetto trace events: a slice per call on its\n"
"                     thread's track; opens in ui.perfetto.dev)\n"
"  --buffer-size N    ring buffer bytes (default 8M per CPU, 16M to 128M; K/M\n"
"                     suffixes)\n"
"  -o FILE            write there instead of stdout\n"
"  -v                 say more\n"
"  -- CMD ARGS...     run CMD, gated until tracing is live; ends with it\n";

#define STACK_SLOTS 256		/* -k: unwound stacks waiting for their record */

struct pending_stack {
	uint32_t tid;
	int n;
	bool truncated;
	uint64_t ips[UNWIND_MAX_DEPTH];
};

struct sc_run {
	/* options */
	struct session_opts o;
	bool follow, failed, stacks, summary;
	enum report_format format;
	const char *filter;	/* -e */
	long min_us, strsize;
	long buffer_size;
	/* state */
	struct sc_table *table;
	bool seen[SC_NR_MAX];	/* a record of it was printed: its format read, checked */
	struct syscalls_bpf *skel;
	struct kbtf_custom kbtf;	/* until loaded */
	bool one_prog;	/* on_sys_event for entry and exit (cookies) */
	struct stackpipe *sp;	/* -k */
	struct pending_stack *pend;
	struct frame frames[UNWIND_MAX_DEPTH];	/* the stack being printed (-k) */
	struct syslines w;
	uint64_t lost_seen;	/* the running loss total last reported */
	int without_format;	/* syscalls decoded without reading their format */
	uint64_t records;
};

static long clamp_long(long v, long lo, long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int parse_size(const char *arg, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || v <= 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v > (1L << 30))
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_args(struct sc_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "failed", no_argument, NULL, 'F' },
		{ "min-duration", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'j' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	r->o.name = "syscalls";
	r->strsize = 32;
	r->format = REPORT_TEXT;
	r->buffer_size = 0;	/* by the CPU count, in setup() */
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:fe:s:kcd:o:vh", longopts, NULL)) != -1) {
		int ret = session_parse_opt(&r->o, c, optarg);

		if (ret == 1)
			continue;
		if (ret < 0)
			return -ret;
		switch (c) {
		case 'f':
			r->follow = true;
			break;
		case 'e':
			r->filter = optarg;
			break;
		case 'F':
			r->failed = true;
			break;
		case 'm':
			if (parse_long(optarg, 0, 1L << 40, &r->min_us)) {
				msg("--min-duration %s: expected microseconds", optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_long(optarg, 0, SC_STR_MAX, &r->strsize)) {
				msg("-s %s: expected a size from 0 to %d", optarg, SC_STR_MAX);
				return 2;
			}
			break;
		case 'k':
			r->stacks = true;
			break;
		case 'c':
			r->summary = true;
			break;
		case 'j':
			if (report_format_parse(optarg,
						REPORT_MASK(REPORT_TEXT) | REPORT_MASK(REPORT_JSON) |
							REPORT_MASK(REPORT_TRACE),
						&r->format))
				return 2;
			break;
		case 'b':
			if (parse_size(optarg, &r->buffer_size)) {
				msg("--buffer-size %s: expected bytes up to 1G (K, M suffixes)", optarg);
				return 2;
			}
			break;
		case 'h':
			printf(usage_text);
			return -1;
		default:
			fprintf(stderr, usage_text);
			return 2;
		}
	}
	if (optind < argc)
		r->o.cmd = argv + optind;
	if (session_check_opts(&r->o))
		return 2;
	if (r->summary && r->stacks) {
		msg("-c and -k exclude each other (-c writes no lines to put stacks under)");
		return 2;
	}
	if (r->summary && r->format == REPORT_TRACE) {
		msg("-c and --format trace exclude each other (-c writes a table, no calls)");
		return 2;
	}
	return 0;
}

/* What to capture per syscall, into the BPF side's .bss before load:
 * from the decoders and the built-in string arguments, no format read. */
static int fill_specs(struct sc_run *r)
{
	bool wanted[SC_NR_MAX] = {};
	int err = sc_table_select(r->table, r->filter, wanted);

	if (err)
		return err;
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		struct sc_spec *spec = &r->skel->bss->specs[nr];

		sc_table_spec(r->table, nr, spec);
		if (wanted[nr])
			spec->flags |= SC_SPEC_TRACE;
		if (r->summary) {
			/* -c needs no memory */
			spec->flags &= SC_SPEC_TRACE;
			memset(spec->args, 0, sizeof(spec->args));
		}
	}
	return 0;
}

/* A syscall's first record: its format is read now (to decode it), and
 * where it makes the spec differ from the one given before the run (a
 * kernel whose syscall takes a string the built-in list does not know),
 * the BPF side captures as the format says from the next call on. */
static const struct sc_info *first_record(struct sc_run *r, int nr)
{
	const struct sc_info *si = sc_table_get(r->table, nr);
	struct sc_spec *cur = &r->skel->bss->specs[nr], want;

	sc_spec_for(si, &want);
	if (memcmp(cur->args, want.args, sizeof(want.args))) {
		msg("syscall %s: this kernel's format has other string arguments than the "
		    "built-in list; captured as the format says from its next call on", si->name);
		memcpy(cur->args, want.args, sizeof(want.args));
	}
	r->seen[nr] = true;
	return si;
}

/* What decodes syscall nr's records: a text line whose decoder says how
 * to show every argument needs no format (nor a check of the spec, which
 * its decoder made too); else the format, read at its first record. */
static const struct sc_info *info_for(struct sc_run *r, int nr)
{
	const struct sc_info *si = sc_table_peek(r->table, nr);

	if (r->format == REPORT_TEXT && sc_decoder_self_sufficient(si->dec)) {
		if (!r->seen[nr])
			r->without_format++;
		r->seen[nr] = true;
		return si;
	}
	return r->seen[nr] ? sc_table_get(r->table, nr) : first_record(r, nr);
}

/* Records lost since the last one reported, inline where they went. */
static void report_lost(struct sc_run *r, uint64_t total)
{
	if (total <= r->lost_seen)
		return;
	syslines_lost(&r->w, total - r->lost_seen);
	r->lost_seen = total;
}

static struct pending_stack *stack_slot(struct sc_run *r, uint32_t tid)
{
	return &r->pend[mix64(tid) % STACK_SLOTS];
}

static void print_call(struct sc_run *r, const struct sc_record *rec, size_t size)
{
	const struct sc_info *si;
	const char *inner[UNWIND_MAX_DEPTH];
	struct frame *frames = r->frames;
	struct sysline_stack st = { .names = inner, .n = -1 };
	struct pending_stack *ps;

	if (rec->nr >= SC_NR_MAX)
		return;
	si = info_for(r, rec->nr);
	if (!(rec->flags & SC_F_STACK)) {
		syslines_call(&r->w, si, rec, size, r->stacks ? &(struct sysline_stack){ .n = -1 } : NULL);
		return;
	}
	ps = stack_slot(r, rec->tid);
	if (ps->tid == rec->tid && ps->n > 0) {
		int n = stackpipe_symbolize_user(r->sp, rec->pid, rec->gen, ps->ips, ps->n, frames);

		/* innermost first, as strace -k */
		for (int i = 0; i < n; i++)
			inner[i] = frames[n - 1 - i].name;
		st.n = n;
		st.truncated = ps->truncated;
	}
	ps->tid = 0;
	syslines_call(&r->w, si, rec, size, &st);
}

static int on_record(void *arg, void *data, size_t size)
{
	struct sc_run *r = arg;
	const struct sc_record *rec = data;
	const struct sc_stack *st = data;

	if (size < sizeof(__u32))
		return 0;
	switch (rec->kind) {
	case SC_REC_STACK:
		if (size >= sizeof(*st) && st->size <= size - sizeof(*st)) {
			struct pending_stack *ps = stack_slot(r, st->tid);
			struct unwind_regs regs = { .ip = st->ip, .sp = st->sp, .bp = st->bp };

			ps->tid = st->tid;
			ps->n = stackpipe_unwind(r->sp, st->pid, st->gen, &regs, st + 1, st->size,
						 ps->ips, UNWIND_MAX_DEPTH, &ps->truncated);
		}
		return 0;
	case SC_REC_CALL:
		if (size < sizeof(*rec) || rec->data_len > size - sizeof(*rec))
			return 0;
		report_lost(r, rec->lost_total);
		r->records++;
		print_call(r, rec, size);
		return 0;
	case SC_REC_EXIT:
		if (size < sizeof(*rec))
			return 0;
		report_lost(r, rec->lost_total);
		syslines_exit(&r->w, rec);
		return 0;
	}
	return 0;
}

/* Whether process pid has a thread left: not gone, not a zombie. */
static bool process_lives(pid_t pid)
{
	char path[32], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && errno != ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno != ESRCH;
	buf[n] = 0;
	/* "pid (comm) S ...": the comm may hold anything, ')' too */
	paren = strrchr(buf, ')');
	return !paren || !paren[1] || (paren[2] != 'Z' && paren[2] != 'X');
}

/* Whether a call can still be open: some process in scope lives.  The
 * threads of one that ended queued theirs (on_exit), so a run whose
 * processes are all gone (the command's is a zombie until the end) has
 * none.  Past 64 processes, or system-wide, assumed so. */
static bool calls_may_be_open(struct sc_run *r, struct session *s)
{
	int fd = bpf_map__fd(r->skel->maps.targets), n = 0;
	__u32 key, next;
	void *prev = NULL;

	if (!session_filtered(s))
		return true;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (++n > 64 || process_lives((pid_t)next))
			return true;
		key = next;
		prev = &key;
	}
	return false;
}

/* The task iterator, in a second instance of the object that shares the
 * first's maps (its .rodata too, so the same constants hold): a tracing
 * program, it makes libbpf read the whole kernel BTF, so it is loaded
 * only here, at the end. */
static struct syscalls_bpf *load_iterator(struct sc_run *r)
{
	struct syscalls_bpf *it = syscalls_bpf__open();
	struct bpf_program *prog;
	struct bpf_map *m, *mine;
	int err = 0;

	if (!it)
		return NULL;
	mine = bpf_object__next_map(r->skel->obj, NULL);
	bpf_object__for_each_map(m, it->obj) {
		if (!mine || strcmp(bpf_map__name(m), bpf_map__name(mine))) {
			err = -EINVAL;
			break;
		}
		err = bpf_map__reuse_fd(m, bpf_map__fd(mine));
		if (err)
			break;
		mine = bpf_object__next_map(r->skel->obj, mine);
	}
	bpf_object__for_each_program(prog, it->obj)
		bpf_program__set_autoload(prog, prog == it->progs.flush_inflight);
	if (!err)
		err = syscalls_bpf__load(it);
	if (err) {
		syscalls_bpf__destroy(it);
		errno = -err;
		return NULL;
	}
	return it;
}

/* The calls still open when tracing stops, queued unfinished. */
static void flush_open_calls(struct sc_run *r, struct session *s)
{
	struct syscalls_bpf *it;
	struct bpf_link *l;
	char buf[64];
	int fd;

	if (!calls_may_be_open(r, s))
		return;
	it = load_iterator(r);
	l = it ? bpf_program__attach_iter(it->progs.flush_inflight, NULL) : NULL;
	if (!l) {
		msg("task iterator (calls still open at the end): %s; those are not shown",
		    strerror(errno));
		syscalls_bpf__destroy(it);
		return;
	}
	fd = bpf_iter_create(bpf_link__fd(l));
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	} else {
		msg("task iterator: %s; calls still open at the end are not shown",
		    strerror(errno));
	}
	bpf_link__destroy(l);
	syscalls_bpf__destroy(it);
}

static int setup(struct sc_run *r, struct session *s)
{
	struct syscalls_bpf *skel;
	long ncpu = libbpf_num_possible_cpus();
	FILE *out;
	int err;

	r->table = sc_table_load();
	if (!r->table)
		return -errno;
	skel = r->skel = KBTF_OPEN(syscalls, &r->kbtf);
	if (!skel) {
		err = -errno;
		msg("opening the BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->self_tgid = getpid();
	skel->rodata->strsize = r->strsize;
	skel->rodata->failed_only = r->failed;
	skel->rodata->min_ns = r->min_us * 1000ULL;
	skel->rodata->count_only = r->summary;
	skel->rodata->with_stacks = r->stacks;
	skel->rodata->filter_pids = session_filtered(s);
	session_size_gens(s, skel->maps.targets, skel->maps.gens);
	skel->rodata->follow_forks = r->follow;
	skel->rodata->nr_execve = sc_table_lookup(r->table, "execve");
	skel->rodata->nr_execveat = sc_table_lookup(r->table, "execveat");
	{
		struct timespec now;

		/* task start times are CLOCK_MONOTONIC */
		clock_gettime(CLOCK_MONOTONIC, &now);
		skel->rodata->start_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	}
	/* By default 8 MiB per CPU: every CPU can fill the ring at once, and
	 * a burst must fit while the one reader decodes (it keeps up with a
	 * thread or two, not with all CPUs storming).  A power of two of
	 * pages; wake the reader at a quarter full. */
	if (!r->buffer_size)
		r->buffer_size = clamp_long((ncpu > 0 ? ncpu : 1) * (8L << 20), 16L << 20, 128L << 20);
	{
		long sz = 4096;

		while (sz < r->buffer_size)
			sz <<= 1;
		r->buffer_size = sz;
		skel->rodata->wakeup_bytes = sz / 4;
		bpf_map__set_max_entries(skel->maps.records, sz);
		/* its pages zeroed (16 MiB: ~3.5 ms) while the small BTF is made */
		map_premake(skel->maps.records);
	}
	bpf_map__set_max_entries(skel->maps.stack_scratch, r->stacks && ncpu > 0 ? ncpu : 1);
	/* loaded at the end only, when needed (flush_open_calls) */
	bpf_program__set_autoload(skel->progs.flush_inflight, false);
	/* one program for entry and exit where raw tracepoints take cookies */
	r->one_prog = feature_probe(FEATURE_RAW_TP_COOKIE) == 0;
	bpf_program__set_autoload(skel->progs.on_sys_event, r->one_prog);
	bpf_program__set_autoload(skel->progs.on_sys_enter, !r->one_prog);
	bpf_program__set_autoload(skel->progs.on_sys_exit, !r->one_prog);
	err = fill_specs(r);
	if (err)
		return err;
	err = KBTF_LOAD(syscalls, skel, &r->kbtf);
	kbtf_close(&r->kbtf);
	if (err) {
		msg("cannot load the syscalls BPF programs: %s (%s)", strerror(-err), bpf_hint(err));
		return err;
	}
	err = session_fill_targets(s, bpf_map__fd(skel->maps.targets));
	if (err)
		return err;
	if (r->stacks) {
		/* before the records, so mappings are current when a stack is unwound */
		r->pend = calloc(STACK_SLOTS, sizeof(*r->pend));
		r->sp = stackpipe_new(s, &(struct stackpipe_opts){ .user = true,
								   .unwind = UNWIND_AUTO });
		if (!r->pend || !r->sp)
			return -ENOMEM;
		stackpipe_streaming(r->sp);
	}
	if (!r->summary) {
		err = session_add_ringbuf(s, bpf_map__fd(skel->maps.records), on_record, r);
		if (err)
			return err;
	}
	out = session_output(s);
	if (!out)
		return -errno;
	err = syslines_init(&r->w, out, r->format, r->strsize);
	if (err)
		return err;
	if (r->one_prog) {
		int fd = bpf_program__fd(skel->progs.on_sys_event);

		err = attach_raw_tracepoint_cookie(s, fd, "sys_enter", 0);
		if (!err)
			err = attach_raw_tracepoint_cookie(s, fd, "sys_exit", 1);
	} else {
		err = attach_program(s, skel->progs.on_sys_enter);
		if (!err)
			err = attach_program(s, skel->progs.on_sys_exit);
	}
	struct bpf_program *progs[] = {
		skel->progs.on_exit, skel->progs.on_fork, skel->progs.on_exec, skel->progs.on_free,
	};
	for (size_t i = 0; i < ARRAY_SIZE(progs) && !err; i++)
		err = attach_program(s, progs[i]);
	if (!err && r->sp)
		stackpipe_start(r->sp);
	return err;
}

/* Returns the calls counted. */
static uint64_t print_summary_table(struct sc_run *r)
{
	int fd = bpf_map__fd(r->skel->maps.counts), ncpu = libbpf_num_possible_cpus(), n = 0;
	struct sc_count *v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	struct syslines_row *rows = calloc(SC_NR_MAX, sizeof(*rows));
	uint64_t calls = 0;

	if (!v || !rows) {
		msg("out of memory");
		goto out;
	}
	for (__u32 nr = 0; nr < SC_NR_MAX; nr++) {
		struct sc_count c = {};

		if (bpf_map_lookup_elem(fd, &nr, v))
			continue;
		for (int i = 0; i < ncpu; i++) {
			c.calls += v[i].calls;
			c.errors += v[i].errors;
			c.total_ns += v[i].total_ns;
			if (v[i].max_ns > c.max_ns)
				c.max_ns = v[i].max_ns;
		}
		if (c.calls)
			rows[n++] = (struct syslines_row){ sc_table_name(r->table, nr), c };
		calls += c.calls;
	}
	syslines_summary(&r->w, rows, n);
out:
	free(v);
	free(rows);
	return calls;
}

/* Losses by syscall, the largest first, on stderr. */
static void print_losses(struct sc_run *r, uint64_t lost)
{
	int fd = bpf_map__fd(r->skel->maps.lost), n = 0;
	uint64_t exits;
	char line[512];

	if (!lost)
		return;
	n = snprintf(line, sizeof(line), "stackscope syscalls: records lost by syscall:");
	exits = percpu_sum(bpf_map__fd(r->skel->maps.sc_stats), SCSTAT_EXIT_LOST);
	if (exits)
		n += snprintf(line + n, sizeof(line) - n, " (process exits) %llu",
			      (unsigned long long)exits);
	for (int nr = 0; nr < SC_NR_MAX && n < (int)sizeof(line) - 40; nr++) {
		uint64_t c = percpu_sum(fd, nr);

		if (c)
			n += snprintf(line + n, sizeof(line) - n, " %s %llu",
				      sc_table_name(r->table, nr), (unsigned long long)c);
	}
	fprintf(stderr, "%s\n", line);
}

/* After the capture stopped: the calls still open, what is queued, the
 * table (-c) and the counts of the closing line. */
static int finish(struct sc_run *r, struct session *s)
{
	int stats = bpf_map__fd(r->skel->maps.sc_stats);
	__u32 zero = 0;
	__u64 total = 0;
	int err = 0;

	if (!r->summary) {
		flush_open_calls(r, s);
		err = session_drain(s);
		bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.lost_total), &zero, &total);
		report_lost(r, total);
		{
			struct rusage ru;

			/* what the reader costs per record, for -v */
			getrusage(RUSAGE_SELF, &ru);
			debug("reader: %.3f s CPU (user %.3f) for %llu records",
			      ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
			      ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			      (unsigned long long)r->records);
		}
		if (r->sp)
			stackpipe_say_bounds(r->sp);
		session_count(s, "records", r->records, 0);
		session_count(s, "lost records", percpu_sum(stats, SCSTAT_LOST), SESSION_LOSS);
	} else {
		session_count(s, "calls counted in the kernel", print_summary_table(r), 0);
	}
	/* the formats of the syscalls decoded, no others */
	debug("%d syscall formats read, %d syscalls decoded without theirs",
	      sc_table_formats_read(r->table), r->without_format);
	session_count(s, "filtered out", percpu_sum(stats, SCSTAT_FILTERED), SESSION_IF_ANY);
	session_count(s, "records lost for want of memory", percpu_sum(stats, SCSTAT_NO_STORAGE),
		      SESSION_LOSS | SESSION_IF_ANY);
	if (r->stacks)
		session_count(s, "lost stacks", percpu_sum(stats, SCSTAT_STACK_LOST), SESSION_LOSS);
	session_count_procs(s, r->skel->obj);
	return err;
}

int cmd_syscalls(int argc, char **argv)
{
	struct sc_run r = { .kbtf = KBTF_INIT };
	struct session *s = NULL;
	int ret, err;

	ret = parse_args(&r, argc, argv);
	if (ret)
		goto out;
	ret = 1;
	KBTF_START(syscalls, &r.kbtf);
	s = session_new(&r.o);
	if (!s || session_launch(s))
		goto out;
	err = setup(&r, s);
	if (!err)
		err = session_run(s);
	session_detach(s);
	if (!err)
		err = finish(&r, s);
	syslines_end(&r.w);
	ret = session_end(s, err);
	if (!err)
		print_losses(&r, percpu_sum(bpf_map__fd(r.skel->maps.sc_stats), SCSTAT_LOST));
out:
	stackpipe_free(r.sp);
	session_free(s);
	syscalls_bpf__destroy(r.skel);
	kbtf_close(&r.kbtf);
	free(r.pend);
	sc_table_free(r.table);
	session_opts_free(&r.o);
	return ret < 0 ? 0 : ret;
}
