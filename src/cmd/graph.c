/* stackscope graph: a function-graph tracer for unmodified binaries.
 *
 * options -> gate the command (or take -p PID) -> select the functions
 * -> read their signatures from DWARF -> load, attach an entry uprobe, a
 * return uprobe (and a late uprobe for arguments spilled after the
 * prologue) per function -> release -> drain the ring buffer into the
 * tree writer until the process exits or a signal -> detach -> summary. */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "cmd/cmds.h"
#include "graph.skel.h"
#include "bpf/graph.h"
#include "report/graphtree.h"
#include "report/output.h"
#include "sym/dwfunc.h"
#include "sym/funcsel.h"
#include "trace/attach.h"
#include "trace/features.h"
#include "trace/launch.h"
#include "trace/session.h"

_Static_assert(GRAPH_STR_MAX == GRAPH_STR_LIMIT, "string sizes of bpf/graph.h and the writer");

static const char usage_text[] =
"usage: stackscope graph --func PATTERN [--func PATTERN]... [--notrace PATTERN]...\n"
"                        [-p PID | -- CMD ARGS...] [--depth N] [--min-duration US]\n"
"                        [--no-args] [--unsafe] [-s STRSIZE] [--format text|json] [-o FILE] [-d SECONDS]\n"
"\n"
"Every call of the selected functions, nested under its caller per thread, with\n"
"its arguments and return value (names and types from DWARF) and its duration.\n"
"  --func PATTERN     glob over the function symbols of the executable ('*': all);\n"
"                     LIB:GLOB for a shared library (libc.so.6:malloc, libc:str*);\n"
"                     kernel:NAME for a kernel function (needs fentry)\n"
"  --notrace PATTERN  leave out the matching functions (same syntax)\n"
"  -p PID             trace a running process (all its threads)\n"
"  -- CMD ARGS...     run CMD, gated until the probes are live\n"
"  --depth N          show calls nested at most N deep\n"
"  --min-duration US  hide calls shorter than US microseconds (and their callees)\n"
"  --no-args          no arguments or return values\n"
"  --unsafe           also probe functions whose start no FDE or DWARF confirms\n"
"                     as an instruction boundary (a wrong one crashes the program)\n"
"  -s STRSIZE         bytes of each string argument shown (default 64, at most 255)\n"
"  --format FMT       text (default) or json (Chrome / Perfetto trace events)\n"
"  -o FILE            write there instead of stdout\n"
"  -d SECONDS         stop after this long\n"
"  -v                 say more (signatures, unreadable arguments, attach time, the\n"
"                     BPF programs' and graph's own CPU time per call)\n";

struct graph_run {
	struct session_opts o;
	char **funcs, **notrace;
	int nfuncs, nnotrace;
	pid_t pid;		/* -p, or the launched command */
	long depth, min_us, str_size;
	bool no_args, unsafe;
	enum report_format format;

	struct funcsel fs;
	struct graph_fn *fns;
	struct dwfunc **sigs;
	size_t with_dwarf, lates;
	size_t nop5;		/* functions probed on their entry's 5-byte nop */
	struct graph_bpf *skel;
	size_t nprobes;
	struct graphtree *tree;
	int event_err;
	int stats_fd;		/* -v: BPF run-time statistics on while held */
	double cpu0;		/* -v: own CPU seconds when the probes went live */
};

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* -v: where the time of a traced call goes, besides the probes' own
 * traps or trampolines: each BPF program's run time (the kernel's
 * statistics, on for this run) and graph's CPU in user space (the ring
 * buffer read, the tree, the writer), per call. */
static void say_costs(struct graph_run *r, uint64_t calls)
{
	struct bpf_program *progs[] = { r->skel->progs.on_entry, r->skel->progs.on_entry_str,
					r->skel->progs.on_exit, r->skel->progs.on_late };
	double cpu = cpu_seconds() - r->cpu0;

	for (size_t i = 0; r->stats_fd >= 0 && i < ARRAY_SIZE(progs); i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len) || !info.run_cnt)
			continue;
		debug("BPF program %s: %llu runs, %.0f ns each", bpf_program__name(progs[i]),
		      (unsigned long long)info.run_cnt, (double)info.run_time_ns / info.run_cnt);
	}
	if (calls)
		debug("graph in user space: %.3f s CPU while tracing, %.0f ns per call", cpu,
		      cpu * 1e9 / calls);
}

static int parse_args(struct graph_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "func", required_argument, NULL, 'F' },
		{ "notrace", required_argument, NULL, 'N' },
		{ "depth", required_argument, NULL, 'D' },
		{ "min-duration", required_argument, NULL, 'm' },
		{ "no-args", no_argument, NULL, 'A' },
		{ "unsafe", no_argument, NULL, 'U' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	char ***list;
	int *n, c;
	long v;

	r->o.name = "graph";
	r->str_size = 64;
	r->format = REPORT_TEXT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:s:o:d:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
		case 'N':
			list = c == 'F' ? &r->funcs : &r->notrace;
			n = c == 'F' ? &r->nfuncs : &r->nnotrace;
			*list = realloc(*list, (*n + 1) * sizeof(**list));
			if (!*list)
				return 1;
			(*list)[(*n)++] = optarg;
			break;
		case 'p':
			if (parse_long(optarg, 1, 0x3fffffff, &v)) {
				msg("-p %s: expected one process id", optarg);
				return 2;
			}
			if (kill((pid_t)v, 0) && errno == ESRCH) {
				msg("pid %ld: no such process", v);
				return 1;
			}
			r->pid = (pid_t)v;
			r->o.pids = malloc(sizeof(*r->o.pids));
			if (!r->o.pids)
				return 1;
			r->o.pids[0] = r->pid;
			r->o.npids = 1;
			break;
		case 'D':
			if (parse_long(optarg, 1, 1000, &r->depth)) {
				msg("--depth %s: expected 1 to 1000", optarg);
				return 2;
			}
			break;
		case 'm':
			if (parse_long(optarg, 0, 1L << 40, &r->min_us)) {
				msg("--min-duration %s: expected microseconds", optarg);
				return 2;
			}
			break;
		case 'U':
			r->unsafe = true;
			break;
		case 'A':
			r->no_args = true;
			break;
		case 's':
			if (parse_long(optarg, 1, GRAPH_STR_MAX - 1, &r->str_size)) {
				msg("-s %s: expected 1 to %d", optarg, GRAPH_STR_MAX - 1);
				return 2;
			}
			break;
		case 'f':
			if (report_format_parse(optarg,
						REPORT_MASK(REPORT_TEXT) | REPORT_MASK(REPORT_JSON),
						&r->format))
				return 2;
			break;
		case 'o':
		case 'd':
		case 'v':
			if ((v = session_parse_opt(&r->o, c, optarg)) < 0)
				return -v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind < argc)
		r->o.cmd = argv + optind;
	if (!r->nfuncs) {
		msg("graph: give the functions to trace with --func PATTERN");
		return 2;
	}
	if (!r->o.cmd == !r->pid) {
		msg("graph: give either -p PID or -- CMD ARGS");
		return 2;
	}
	return 0;
}

/* Whether fentry works for the kernel functions asked for; says so in one
 * line per pattern.  None is traced either way: rendering kernel calls
 * from BTF through fentry/fexit is not written yet. */
static void check_kernel_funcs(struct graph_run *r)
{
	struct btf *btf = r->fs.nkernel ? btf__load_vmlinux_btf() : NULL;

	for (size_t i = 0; i < r->fs.nkernel; i++) {
		const char *pat = strchr(r->fs.kernel[i], ':') + 1, *target = NULL;
		int err;

		for (__u32 id = 1; btf && id < btf__type_cnt(btf) && !target; id++) {
			const struct btf_type *t = btf__type_by_id(btf, id);
			const char *name = t && btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;

			if (name && !fnmatch(pat, name, 0))
				target = name;
		}
		if (!target) {
			msg("kernel function %s: %s", pat,
			    btf ? "not in the kernel's BTF" : "no kernel BTF to find it in");
			continue;
		}
		err = feature_fentry_on(target);
		if (err == -EPERM || err == -EACCES)
			msg("kernel function %s: fentry refused by this kernel (%s); kernel functions "
			    "cannot be traced here", target, err == -EPERM ? "EPERM" : "EACCES");
		else if (err)
			msg("kernel function %s: fentry failed: %s; kernel functions cannot be traced "
			    "here", target, strerror(-err));
		else
			msg("kernel function %s: fentry works here, but graph traces only user "
			    "functions so far", target);
	}
	btf__free(btf);
}

/* Signatures from DWARF, one dwfuncs per module while reading. */
static int read_signatures(struct graph_run *r)
{
	struct funcsel *fs = &r->fs;

	r->fns = calloc(fs->nfuncs, sizeof(*r->fns));
	r->sigs = calloc(fs->nfuncs, sizeof(*r->sigs));
	if (!r->fns || !r->sigs)
		return -ENOMEM;
	for (size_t m = 0; m < fs->nmods; m++) {
		struct dwfuncs *d = dwfuncs_open(fs->mods[m].path);
		size_t here = 0, raw = 0;

		for (size_t i = 0; i < fs->nfuncs; i++) {
			const struct funcsel_func *fn = &fs->funcs[i];

			if (fn->module != m)
				continue;
			here++;
			r->fns[i].name = fn->name;
			/* a compiler clone (f.isra.0, f.constprop.0, f.part.0) may
			 * take its arguments differently from what DWARF says */
			if (d && !strchr(fn->name, '.'))
				r->sigs[i] = dwfuncs_describe(d, fn->addr);
			r->fns[i].sig = r->sigs[i];
			if (!r->sigs[i]) {
				raw++;
				continue;
			}
			r->with_dwarf++;
			for (size_t p = 0; p < r->sigs[i]->nparams; p++)
				if (r->sigs[i]->params[p].loc == DWLOC_NONE)
					debug("%s: argument %s (%s) not shown: %s", fn->name,
					      r->sigs[i]->params[p].name, r->sigs[i]->params[p].type.name,
					      r->sigs[i]->params[p].why);
		}
		if (here && raw)
			msg("%s: %zu of %zu functions without a DWARF signature%s: raw registers shown",
			    fs->mods[m].path, raw, here, d ? "" : " (no debug information)");
		dwfuncs_free(d);
	}
	return 0;
}

/* One uprobe to place: which program, where, for which function. */
enum probe_kind { PROBE_EXIT, PROBE_ENTRY, PROBE_ENTRY_STR, PROBE_LATE, PROBE_KINDS };

struct probe {
	enum probe_kind kind;
	size_t module;
	uint64_t off;
	uint64_t fid;		/* the BPF cookie */
};

static struct bpf_program *probe_prog(const struct graph_run *r, enum probe_kind k)
{
	struct bpf_program *progs[PROBE_KINDS] = {
		[PROBE_EXIT] = r->skel->progs.on_exit,
		[PROBE_ENTRY] = r->skel->progs.on_entry,
		[PROBE_ENTRY_STR] = r->skel->progs.on_entry_str,
		[PROBE_LATE] = r->skel->progs.on_late,
	};

	return progs[k];
}

static int probe_cmp(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* With multi-links, one link per program and file, so that stopping
 * detaches every probe at once (one by one, each waits for the kernel:
 * ~77 ms, over a minute at the 1000-function limit); else one perf-event
 * uprobe each. */
static int attach_probes(struct graph_run *r, struct session *s, struct probe *pr, size_t n,
			 bool multi)
{
	uint64_t *offs = NULL, *cookies = NULL;
	char what[512];
	int err = 0;

	qsort(pr, n, sizeof(*pr), probe_cmp);
	if (multi) {
		offs = calloc(n ? n : 1, sizeof(*offs));
		cookies = calloc(n ? n : 1, sizeof(*cookies));
		if (!offs || !cookies) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0, j; i < n && !err; i = j) {
		const char *path = r->fs.mods[pr[i].module].path;
		int fd = bpf_program__fd(probe_prog(r, pr[i].kind));
		bool ret = pr[i].kind == PROBE_EXIT;

		for (j = i; j < n && pr[j].kind == pr[i].kind && pr[j].module == pr[i].module; j++)
			;
		if (multi) {
			for (size_t k = i; k < j; k++) {
				offs[k - i] = pr[k].off;
				cookies[k - i] = pr[k].fid;
			}
			err = attach_uprobe_multi(s, fd, path, offs, cookies, j - i, r->pid, ret, path);
			continue;
		}
		for (size_t k = i; k < j && !err; k++) {
			snprintf(what, sizeof(what), "%s:%s", path, r->fs.funcs[pr[k].fid].name);
			err = attach_uprobe(s, fd, path, pr[k].off, r->pid, pr[k].fid, ret, what);
		}
	}
out:
	free(offs);
	free(cookies);
	return err;
}

static int load_and_attach(struct graph_run *r, struct session *s)
{
	size_t n = r->fs.nfuncs, np = 0;
	bool multi = feature_probe(FEATURE_UPROBE_MULTI) == 0;
	double t0 = now_sec();
	struct probe *pr;
	int err;

	r->skel = graph_bpf__open();
	if (!r->skel) {
		err = -errno;
		msg("cannot open the graph BPF object: %s", strerror(-err));
		return err;
	}
	r->skel->rodata->str_size = (__u32)r->str_size + 1;
	r->skel->rodata->target_tgid = r->pid;
	bpf_map__set_max_entries(r->skel->maps.funcs, n);
	bpf_map__set_max_entries(r->skel->maps.late_specs, n);
	for (int k = 0; multi && k < PROBE_KINDS; k++)
		bpf_program__set_expected_attach_type(probe_prog(r, k), ATTACH_UPROBE_MULTI);
	err = graph_bpf__load(r->skel);
	if (err) {
		msg("cannot load the graph BPF programs: %s (%s)", strerror(-err), bpf_hint(err));
		return err;
	}
	pr = calloc(3 * n + 1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++) {
		const struct dwfunc *sig = r->sigs[i];
		size_t mod = r->fs.funcs[i].module;
		struct graph_func gf = {};
		struct graph_late_spec ls = {};
		uint64_t late_off;

		for (size_t p = 0; sig && !r->no_args && p < sig->nparams; p++)
			if (sig->params[p].loc == DWLOC_REG && sig->params[p].type.kind == DWT_STR)
				gf.str_mask |= 1u << sig->params[p].index;
		if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.funcs), &i, &gf, BPF_ANY)) {
			err = -errno;
			goto out;
		}
		/* both on the same instruction: one breakpoint (or, on a
		 * 5-byte nop, one call into the kernel's trampoline) serves
		 * the entry and hooks the return */
		pr[np++] = (struct probe){ PROBE_EXIT, mod, r->fs.funcs[i].probe_off, i };
		pr[np++] = (struct probe){ gf.str_mask ? PROBE_ENTRY_STR : PROBE_ENTRY, mod,
					   r->fs.funcs[i].probe_off, i };
		r->nop5 += r->fs.funcs[i].nop5;
		if (!sig || !sig->nlate || r->no_args ||
		    elfsyms_vaddr_to_off(r->fs.mods[mod].es, sig->late_addr, &late_off))
			continue;
		ls.n = sig->nlate;
		for (int k = 0; k < sig->nlate; k++)
			ls.r[k] = (struct graph_read){ sig->late[k].reg, sig->late[k].size,
						       sig->late[k].off };
		if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.late_specs), &i, &ls, BPF_ANY)) {
			err = -errno;
			goto out;
		}
		pr[np++] = (struct probe){ PROBE_LATE, mod, late_off, i };
		r->lates++;
	}
	r->nprobes = np;
	err = attach_probes(r, s, pr, np, multi);
	if (err)
		goto out;
	if (attach_program(s, r->skel->progs.on_thread_exit))
		msg("calls left open by an exiting thread stay open");
	if (verbose) {
		r->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (r->stats_fd < 0)
			debug("no BPF run-time statistics: %s", strerror(errno));
		r->cpu0 = cpu_seconds();
	}
	r->skel->bss->active = true;
	debug("%zu uprobes attached in %.3f s (%s); %zu of %zu functions on a 5-byte nop",
	      r->nprobes, now_sec() - t0, multi ? "multi-links" : "one perf event each", r->nop5, n);
out:
	free(pr);
	return err;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct graph_run *r = ctx;
	const struct graph_head *h = data;
	int err = 0;

	if (size < sizeof(*h))
		return 0;
	switch (h->kind) {
	case GRAPH_ENTRY: {
		const struct graph_entry *e = data;
		const struct graph_entry_strs *es = data;
		struct graph_call c = { .pid = h->pid, .tid = h->tid, .cpu = h->cpu, .fid = h->fid,
					.ts = h->ts, .sp = e->sp };

		if (size < sizeof(*e) ||
		    (e->h.nstr && size < sizeof(*es)))
			return 0;
		memcpy(c.regs, e->regs, sizeof(c.regs));
		for (int i = 0; i < GRAPH_NREGS && e->h.nstr; i++) {
			c.slen[i] = e->slen[i];
			c.str[i] = es->str[i];
		}
		err = graphtree_entry(r->tree, &c);
		break;
	}
	case GRAPH_EXIT: {
		const struct graph_exit *e = data;

		if (size >= sizeof(*e))
			err = graphtree_return(r->tree, h->pid, h->tid, h->cpu, h->fid, h->ts, e->sp,
					       e->rax);
		break;
	}
	case GRAPH_LATE: {
		const struct graph_late *e = data;

		if (size >= sizeof(*e))
			err = graphtree_late(r->tree, h->tid, h->fid, (const uint64_t *)e->vals, e->ok);
		break;
	}
	case GRAPH_THREAD_EXIT:
		err = graphtree_thread_exit(r->tree, h->tid, h->cpu, h->ts);
		break;
	}
	if (err && !r->event_err)
		r->event_err = err;
	return 0;
}

/* After the ring buffer: what can no longer change is written. */
static int flush(void *ctx)
{
	struct graph_run *r = ctx;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	graphtree_flush(r->tree, (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	return r->event_err;
}

static uint64_t stat_sum(struct graph_run *r, __u32 idx)
{
	return percpu_sum(bpf_map__fd(r->skel->maps.stats), idx);
}

/* Everything up to the attached probes, once the command (or -p) is known. */
static int setup(struct graph_run *r, struct session *s)
{
	struct graphtree_opts go;
	char exe[4096];
	FILE *out;
	int err;

	if (r->o.cmd) {
		err = launch_resolve(r->o.cmd[0], exe, sizeof(exe));
		if (err) {
			msg("cannot run '%s': %s", r->o.cmd[0], strerror(-err));
			return err;
		}
		err = session_launch(s);
		if (err)
			return err;
		r->pid = session_child(s);
	} else {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)r->pid);
		session_launch(s);
	}
	err = funcsel_resolve(&r->fs, exe, r->o.cmd ? 0 : r->pid, r->funcs, r->nfuncs, r->notrace,
			      r->nnotrace, r->unsafe);
	if (err)
		return err;
	check_kernel_funcs(r);
	if (!r->fs.nfuncs) {
		if (!r->fs.nkernel)
			msg("graph: no function to trace");
		return -ENOENT;
	}
	err = read_signatures(r);
	if (err)
		return err;
	out = session_output(s);
	if (!out)
		return -errno;
	go = (struct graphtree_opts){ .format = r->format, .max_depth = (int)r->depth,
				      .min_ns = (uint64_t)r->min_us * 1000, .no_args = r->no_args,
				      .str_size = (unsigned)r->str_size + 1 };
	r->tree = graphtree_new(out, r->fns, r->fs.nfuncs, &go);
	if (!r->tree)
		return -errno;
	err = load_and_attach(r, s);
	if (!err)
		err = session_add_ringbuf(s, bpf_map__fd(r->skel->maps.events), on_event, r);
	if (!err)
		err = session_add_drain(s, flush, r);
	return err;
}

int cmd_graph(int argc, char **argv)
{
	struct graph_run r = { .stats_fd = -1 };
	struct session *s = NULL;
	int ret, err;

	ret = parse_args(&r, argc, argv);
	if (ret)
		goto out;
	ret = 1;
	s = session_new(&r.o);
	if (!s)
		goto out;
	err = setup(&r, s);
	if (!err)
		err = session_run(s);
	/* probes off at once: the bodies stop emitting before the slow detach */
	if (r.skel && r.skel->bss)
		r.skel->bss->active = false;
	session_detach(s);
	if (!err) {
		const struct graphtree_stats *st;
		uint64_t lost;

		err = session_drain(s);
		lost = stat_sum(&r, GSTAT_LOST);
		if (!err)
			err = graphtree_finish(r.tree, lost);
		if (err)
			msg("graph: %s", strerror(-err));
		st = graphtree_stats(r.tree);
		session_count(s, "calls traced", st->calls, 0);
		session_count(s, "functions probed", r.fs.nfuncs, 0);
		session_count(s, "with DWARF signatures", r.with_dwarf, 0);
		session_count(s, "lost events", lost, SESSION_LOSS);
		session_count(s, "calls without a return", st->no_return + st->open_at_end, 0);
		session_count(s, "returns without a call", st->orphans, 0);
		session_count(s, "functions on 5-byte nops (fast path)", r.nop5, 0);
		if (verbose)
			say_costs(&r, st->calls);
	}
	ret = session_end(s, err);
out:
	session_free(s);
	graphtree_free(r.tree);
	graph_bpf__destroy(r.skel);
	if (r.stats_fd >= 0)
		close(r.stats_fd);
	for (size_t i = 0; r.sigs && i < r.fs.nfuncs; i++)
		dwfunc_free(r.sigs[i]);
	free(r.sigs);
	free(r.fns);
	funcsel_free(&r.fs);
	free(r.funcs);
	free(r.notrace);
	session_opts_free(&r.o);
	return ret < 0 ? 0 : ret;
}
