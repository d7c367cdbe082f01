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
#include "graph_kfunc.skel.h"
#include "bpf/graph.h"
#include "report/graphtree.h"
#include "report/output.h"
#include "sym/dwfunc.h"
#include "sym/funcsel.h"
#include "trace/launch.h"
#include "trace/loop.h"

#define DRAIN_TICK 0.1		/* seconds between ring-buffer drains */

_Static_assert(GRAPH_STR_MAX == GRAPH_STR_LIMIT, "string sizes of bpf/graph.h and the writer");

static const char usage_text[] =
"usage: stackscope graph --func PATTERN [--func PATTERN]... [--notrace PATTERN]...\n"
"                        [-p PID | -- CMD ARGS...] [--depth N] [--min-duration US]\n"
"                        [--no-args] [-s STRSIZE] [--format text|json] [-o FILE] [-d SECONDS]\n"
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
"  -s STRSIZE         bytes of each string argument shown (default 64, at most 255)\n"
"  --format FMT       text (default) or json (Chrome / Perfetto trace events)\n"
"  -o FILE            write there instead of stdout\n"
"  -d SECONDS         stop after this long\n"
"  -v                 say more (signatures, unreadable arguments, attach time)\n";

struct graph_run {
	char **funcs, **notrace;
	int nfuncs, nnotrace;
	pid_t pid;
	char **cmd;
	long depth, min_us, str_size;
	bool no_args;
	enum report_format format;
	const char *output;
	double duration;

	struct funcsel fs;
	struct graph_fn *fns;
	struct dwfunc **sigs;
	size_t with_dwarf, lates;
	struct graph_bpf *skel;
	struct bpf_link **links;
	size_t nlinks;
	struct ring_buffer *rb;
	struct graphtree *tree;
	int event_err;
};

static int parse_args(struct graph_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "func", required_argument, NULL, 'F' },
		{ "notrace", required_argument, NULL, 'N' },
		{ "depth", required_argument, NULL, 'D' },
		{ "min-duration", required_argument, NULL, 'm' },
		{ "no-args", no_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	char ***list;
	int *n, c;
	long v;

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
			r->output = optarg;
			break;
		case 'd':
			if (parse_seconds(optarg, &r->duration)) {
				msg("-d %s: expected a duration in seconds", optarg);
				return 2;
			}
			break;
		case 'v':
			verbose++;
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
		r->cmd = argv + optind;
	if (!r->nfuncs) {
		msg("graph: give the functions to trace with --func PATTERN");
		return 2;
	}
	if (!r->cmd == !r->pid) {
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
		struct graph_kfunc_bpf *k;
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
		k = graph_kfunc_bpf__open();
		err = k ? bpf_program__set_attach_target(k->progs.on_kentry, 0, target) : -errno;
		if (!err)
			err = graph_kfunc_bpf__load(k);
		if (!err)
			err = graph_kfunc_bpf__attach(k);
		graph_kfunc_bpf__destroy(k);
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

static int attach_one(struct graph_run *r, struct bpf_program *prog, size_t fid, uint64_t off,
		      bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = fid);
	const struct funcsel_func *fn = &r->fs.funcs[fid];
	struct bpf_link *l;

	l = bpf_program__attach_uprobe_opts(prog, r->pid, r->fs.mods[fn->module].path, off, &uo);
	if (!l) {
		int err = -errno;

		msg("%s %s:%s: attach failed: %s", ret ? "uretprobe" : "uprobe",
		    r->fs.mods[fn->module].path, fn->name, strerror(-err));
		return err;
	}
	r->links[r->nlinks++] = l;
	return 0;
}

static int load_and_attach(struct graph_run *r)
{
	size_t n = r->fs.nfuncs;
	double t0 = now_sec();
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
	err = graph_bpf__load(r->skel);
	if (err) {
		msg("cannot load the graph BPF programs: %s (-v shows the verifier log)",
		    strerror(-err));
		return err;
	}
	r->links = calloc(3 * n + 1, sizeof(*r->links));
	if (!r->links)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++) {
		const struct dwfunc *s = r->sigs[i];
		struct graph_func gf = {};
		struct graph_late_spec ls = {};
		uint64_t late_off;

		for (size_t p = 0; s && !r->no_args && p < s->nparams; p++)
			if (s->params[p].loc == DWLOC_REG && s->params[p].type.kind == DWT_STR)
				gf.str_mask |= 1u << s->params[p].index;
		if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.funcs), &i, &gf, BPF_ANY))
			return -errno;
		err = attach_one(r, r->skel->progs.on_exit, i, r->fs.funcs[i].off, true);
		if (!err)
			err = attach_one(r, gf.str_mask ? r->skel->progs.on_entry_str
							: r->skel->progs.on_entry,
					 i, r->fs.funcs[i].off, false);
		if (err)
			return err;
		if (!s || !s->nlate || r->no_args ||
		    elfsyms_vaddr_to_off(r->fs.mods[r->fs.funcs[i].module].es, s->late_addr, &late_off))
			continue;
		ls.n = s->nlate;
		for (int k = 0; k < s->nlate; k++)
			ls.r[k] = (struct graph_read){ s->late[k].reg, s->late[k].size, s->late[k].off };
		if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.late_specs), &i, &ls, BPF_ANY))
			return -errno;
		err = attach_one(r, r->skel->progs.on_late, i, late_off, false);
		if (err)
			return err;
		r->lates++;
	}
	r->skel->links.on_thread_exit = bpf_program__attach(r->skel->progs.on_thread_exit);
	if (!r->skel->links.on_thread_exit)
		msg("tp_btf/sched_process_exit: attach failed: %s; calls left open by an exiting "
		    "thread stay open", strerror(errno));
	r->skel->bss->active = true;
	debug("%zu uprobes attached in %.3f s", r->nlinks, now_sec() - t0);
	return 0;
}

static void detach(struct graph_run *r)
{
	if (r->skel && r->skel->bss)
		r->skel->bss->active = false;
	for (size_t i = 0; i < r->nlinks; i++)
		bpf_link__destroy(r->links[i]);
	r->nlinks = 0;
	if (r->skel)
		graph_bpf__detach(r->skel);
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
		const char *strs = (const char *)(e + 1);
		struct graph_call c = { .pid = h->pid, .tid = h->tid, .cpu = h->cpu, .fid = h->fid,
					.ts = h->ts, .sp = e->sp };

		if (size < sizeof(*e) ||
		    (e->h.nstr && size < sizeof(*e) + GRAPH_NREGS * GRAPH_STR_MAX))
			return 0;
		memcpy(c.regs, e->regs, sizeof(c.regs));
		for (int i = 0; i < GRAPH_NREGS && e->h.nstr; i++) {
			c.slen[i] = e->slen[i];
			c.str[i] = strs + i * GRAPH_STR_MAX;
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

static int drain(void *ctx)
{
	struct graph_run *r = ctx;
	struct timespec ts;
	int n = ring_buffer__consume(r->rb);

	if (n < 0)
		return n;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	graphtree_flush(r->tree, (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	return r->event_err;
}

static uint64_t stat_sum(struct graph_run *r, __u32 idx)
{
	return percpu_sum(bpf_map__fd(r->skel->maps.stats), idx);
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int cmd_graph(int argc, char **argv)
{
	struct graph_run r = {};
	struct graphtree_opts go;
	struct launch child = {};
	struct output out = { 0 };
	struct loop *loop = NULL;
	char exe[4096];
	bool out_open = false;
	int ret, err, end = 0;
	uint64_t lost = 0;

	ret = parse_args(&r, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = 1;
	libbpf_setup_print();
	raise_fd_limit();
	loop = loop_new();
	if (!loop) {
		msg("cannot set up the wait: %s", strerror(errno));
		goto cleanup;
	}
	if (r.cmd) {
		err = launch_resolve(r.cmd[0], exe, sizeof(exe));
		if (!err)
			err = launch_start(&child, r.cmd);
		if (err) {
			msg("cannot run '%s': %s", r.cmd[0], strerror(-err));
			goto cleanup;
		}
		r.pid = child.pid;
	} else {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)r.pid);
	}
	if (funcsel_resolve(&r.fs, exe, r.cmd ? 0 : r.pid, r.funcs, r.nfuncs, r.notrace,
			    r.nnotrace))
		goto cleanup;
	check_kernel_funcs(&r);
	if (!r.fs.nfuncs) {
		if (!r.fs.nkernel)
			msg("graph: no function to trace");
		goto cleanup;
	}
	if (read_signatures(&r))
		goto cleanup;
	err = output_open(&out, r.output);
	if (err) {
		msg("%s: cannot create: %s", r.output, strerror(-err));
		goto cleanup;
	}
	out_open = true;
	go = (struct graphtree_opts){ .format = r.format, .max_depth = (int)r.depth,
				      .min_ns = (uint64_t)r.min_us * 1000, .no_args = r.no_args,
				      .str_size = (unsigned)r.str_size + 1 };
	r.tree = graphtree_new(out.f, r.fns, r.fs.nfuncs, &go);
	if (!r.tree || load_and_attach(&r))
		goto cleanup;
	r.rb = ring_buffer__new(bpf_map__fd(r.skel->maps.events), on_event, &r, NULL);
	if (!r.rb) {
		msg("graph ring buffer: %s", strerror(errno));
		goto cleanup;
	}
	if (loop_add_fd(loop, ring_buffer__epoll_fd(r.rb), drain, &r) ||
	    loop_watch_pid(loop, r.pid))
		goto cleanup;
	loop_set_tick(loop, DRAIN_TICK, drain, &r);
	if (r.duration > 0)
		loop_set_duration(loop, r.duration);
	if (r.cmd) {
		err = launch_release(&child);
		if (err) {
			msg("cannot run '%s': %s", r.cmd[0], strerror(-err));
			goto cleanup;
		}
	}
	end = loop_run(loop);
	detach(&r);
	if (end < 0)
		msg("waiting: %s", strerror(-end));
	if (end == LOOP_SIGNAL && child.pid && !child.reaped)
		kill(child.pid, loop_signal(loop));
	while (ring_buffer__consume(r.rb) > 0)
		;
	lost = stat_sum(&r, GSTAT_LOST);
	err = graphtree_finish(r.tree, lost);
	if (!err)
		err = r.event_err;
	if (err)
		msg("graph: %s", strerror(-err));
	out_open = false;
	if (output_close(&out, !err) && !err) {
		msg("%s: write failed", r.output ? r.output : "stdout");
		err = -EIO;
	}
	{
		const struct graphtree_stats *st = graphtree_stats(r.tree);

		fprintf(stderr,
			"stackscope graph: %llu calls traced, %zu functions probed (%zu with DWARF "
			"signatures), %llu lost events, %llu calls without a return, %llu returns "
			"without a call%s%s\n",
			(unsigned long long)st->calls, r.fs.nfuncs, r.with_dwarf,
			(unsigned long long)lost, (unsigned long long)(st->no_return + st->open_at_end),
			(unsigned long long)st->orphans, r.output ? ", wrote " : "",
			r.output ? r.output : "");
	}
	ret = err ? 1 : 0;
	if (child.pid) {
		int status = launch_wait(&child);

		if (!err)
			ret = status;
	}
cleanup:
	detach(&r);
	if (out_open)
		output_close(&out, false);
	launch_abort(&child);
	ring_buffer__free(r.rb);
	graphtree_free(r.tree);
	graph_bpf__destroy(r.skel);
	for (size_t i = 0; r.sigs && i < r.fs.nfuncs; i++)
		dwfunc_free(r.sigs[i]);
	free(r.sigs);
	free(r.fns);
	free(r.links);
	funcsel_free(&r.fs);
	loop_free(loop);
	free(r.funcs);
	free(r.notrace);
	return ret;
}
