/* stackscope run / stackscope -e: a program in the one-liner language
 * (bpftrace's dialect): parsed, checked against the kernel's probe types
 * (lang/provider.h), then run (lang/runtime.h). */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "cmd/cmds.h"
#include "lang/flame.h"
#include "lang/lang.h"
#include "lang/provider.h"
#include "lang/runtime.h"
#include "report/format.h"
#include "report/output.h"
#include "trace/session.h"

static const char usage_text[] =
"usage: stackscope run [OPTIONS] FILE [ARG...] [-- CMD [ARG...]]\n"
"       stackscope -e PROGRAM [OPTIONS] [ARG...] [-- CMD [ARG...]]\n"
"\n"
"Runs a program in bpftrace's language: probes with a predicate and\n"
"actions, maps, aggregations.  FILE may be - for standard input.  ARGs are\n"
"the positional parameters $1, $2, ... ($# their count).\n"
"\n"
"  -e PROGRAM     the program text\n"
"  -p PID[,PID]   processes uprobes bind to (and predicates may test)\n"
"  -c 'CMD'       run CMD (split at spaces), gated until every probe is attached;\n"
"                 cpid is its pid and the run ends with it (as -- CMD ARG...)\n"
"  -d SECONDS     end after SECONDS\n"
"  -o FILE        output to FILE; FILE.svg, FILE.folded, FILE.pb.gz: a flame graph\n"
"                 (SVG, folded stacks, pprof) of the map keyed by kstack/ustack,\n"
"                 written after END instead of printing that map\n"
"  --map @NAME    the map -o draws, when several are keyed by stacks\n"
"  -f text|json   output format (json: one object a line)\n"
"  -q             no \"Attached N probes\" line\n"
"  -v             the whole verifier log when a program is refused\n"

"  --dry-run      generate and load through the verifier, attach nothing\n"
"  --dump ast|bpf print the checked syntax tree or the BPF instructions and stop\n"
"  --unsafe       allow system(), cat(), signal() and override()\n";

/* The whole of f into a new NUL-terminated buffer; -errno. */
static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *nb;

	if (!buf)
		return -ENOMEM;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n > LANG_MAX_SOURCE) {
			free(buf);
			return -EFBIG;
		}
		if (cap - n - 1 == 0) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* A script as root must be one nobody else could have changed. */
static int read_script(const char *path, char **text, size_t *len)
{
	struct stat st;
	FILE *f;
	int fd, err;

	if (!strcmp(path, "-"))
		return read_all(stdin, text, len);
	fd = open_regular(path, &st);
	if (fd < 0) {
		msg("%s: %s", path, fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return fd;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		msg("%s: refused: writable by others than its owner (chmod go-w %s)", path, path);
		close(fd);
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		msg("%s: %s", path, strerror(-err));
		return err;
	}
	err = read_all(f, text, len);
	fclose(f);
	if (err)
		msg("%s: %s", path, err == -EFBIG ? "too large for a program" : strerror(-err));
	return err;
}

/* -c 'CMD': the words of CMD (no shell). */
static char **split_cmd(const char *s)
{
	size_t n = 0, cap = 8;
	char **v = calloc(cap, sizeof(*v)), *copy = strdup(s), *save = NULL, *w;

	if (!v || !copy) {
		free(v);
		free(copy);
		return NULL;
	}
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n + 2 > cap) {
			char **nv = realloc(v, cap * 2 * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		v[n++] = w;
	}
	v[n] = NULL;
	if (!n) {
		free(copy);
		free(v);
		return NULL;
	}
	return v;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", required_argument, NULL, 'D' },
		{ "unsafe", no_argument, NULL, 'U' },
		{ "dry-run", no_argument, NULL, 'N' },
		{ "map", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct lang_check_opts opts = { 0 };
	struct lang_probes_opts po = { 0 };
	struct lang_run_opts ro = { .fmt = LANG_OUT_TEXT };
	struct session_opts so = { .name = "run" };
	struct lang_probes *pr = NULL;
	const char *prog_text = NULL, *name;
	struct lang_prog *prog = NULL;
	const char *flame_path = NULL, *flame_map = NULL;
	enum report_format flame_fmt = REPORT_TEXT;
	char *text = NULL, **cmd_words = NULL;
	size_t len;
	bool dump_ast = false;
	int c, ret = 1, r;

	/* -- CMD ARGS: the command, not positional parameters */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (i + 1 < argc)
				so.cmd = argv + i + 1;
			argc = i;
			break;
		}
	optind = 1;
	while ((c = getopt_long(argc, argv, "e:hp:c:d:o:f:qv", longopts, NULL)) != -1) {
		r = session_parse_opt(&so, c, optarg);
		if (r < 0) {
			ret = -r;
			goto free_text;
		}
		if (r > 0) {
			if (c == 'v')
				ro.verbose = true;
			continue;
		}
		switch (c) {
		case 'e': prog_text = optarg; break;
		case 'D':
			if (!strcmp(optarg, "ast")) {
				dump_ast = true;
			} else if (!strcmp(optarg, "bpf")) {
				ro.dump_bpf = true;
			} else {
				msg("--dump: unknown '%s' (ast or bpf)", optarg);
				ret = 2;
				goto free_text;
			}
			break;
		case 'U': opts.unsafe = true; break;
		case 'N': ro.dry_run = true; break;
		case 'M': flame_map = optarg; break;
		case 'q': ro.quiet = true; break;
		case 'c':
			free(cmd_words);
			cmd_words = split_cmd(optarg);
			if (!cmd_words) {
				msg("-c: an empty command");
				ret = 2;
				goto free_text;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "json")) {
				ro.fmt = LANG_OUT_JSON;
			} else if (strcmp(optarg, "text")) {
				msg("-f: unknown format '%s' (text or json)", optarg);
				ret = 2;
				goto free_text;
			}
			break;
		case 'h': fputs(usage_text, stdout); ret = 0; goto free_text;
		default: fputs(usage_text, stderr); ret = 2; goto free_text;
		}
	}
	if (cmd_words) {
		if (so.cmd) {
			msg("-c and -- both name a command: give one");
			ret = 2;
			goto free_text;
		}
		so.cmd = cmd_words;
	}
	/* -o FILE.svg: the file is the flame graph's, the text goes to stdout */
	if (so.output && lang_flame_path(so.output, &flame_fmt)) {
		char why[PATH_MAX + 64];

		flame_path = so.output;
		so.output = NULL;
		if (output_check(flame_path, why, sizeof(why))) {
			msg("%s: %s", flame_path, why);
			ret = 2;
			goto free_text;
		}
	} else if (flame_map) {
		msg("--map: draws a map into -o FILE.svg, .folded or .pb.gz: give one");
		ret = 2;
		goto free_text;
	}
	if (session_check_opts(&so)) {
		ret = 2;
		goto free_text;
	}
	po.pids = so.pids;
	po.npids = so.npids;
	po.cmd_path = so.cmd ? so.cmd[0] : NULL;
	po.unsafe = opts.unsafe;
	if (prog_text) {
		name = "-e";
		len = strlen(prog_text);
	} else {
		if (optind >= argc) {
			fputs(usage_text, stderr);
			ret = 2;
			goto free_text;
		}
		name = argv[optind++];
		if (read_script(name, &text, &len))
			goto free_text;
		prog_text = text;
		if (!strcmp(name, "-"))
			name = "stdin";
	}
	opts.nparams = argc - optind;
	opts.params = argv + optind;
	prog = lang_prog_new(name, prog_text, len);
	if (!prog) {
		msg("%s: %s", name, errno == EFBIG ? "too large for a program" : strerror(errno));
		goto free_text;
	}
	if (lang_parse(prog)) {
		lang_print_errors(stderr, prog);
		goto free_prog;
	}
	po.prog = prog;
	if (!dump_ast) {
		pr = lang_probes_new(&po);
		if (!pr) {
			msg("%s: %s", name, strerror(errno));
			goto free_prog;
		}
		opts.resolve_field = lang_probes_resolve_field;
		opts.kernel_btf = lang_probes_kernel_btf;
		opts.ctx = pr;
	}
	if (lang_check(prog, &opts)) {
		lang_print_errors(stderr, prog);
		goto free_prog;
	}
	if (flame_path && !dump_ast) {
		char why[256];

		ro.flame = lang_flame_new(prog, flame_path, flame_fmt, flame_map, why, sizeof(why));
		if (!ro.flame) {
			msg("%s", why);
			goto free_prog;
		}
	}
	if (dump_ast) {
		lang_dump_ast(stdout, prog);
		ret = fflush(stdout) ? 1 : 0;
		goto free_prog;
	}
	ro.so = &so;
	ro.nparams = opts.nparams;
	ro.params = opts.params;
	ret = lang_run(prog, pr, &ro);
free_prog:
	lang_flame_free(ro.flame);
	lang_probes_free(pr);
	lang_prog_free(prog);
free_text:
	free(text);
	if (cmd_words) {
		free(cmd_words[0]);
		free(cmd_words);
		if (so.cmd == cmd_words)
			so.cmd = NULL;
	}
	so.cmd = NULL;
	session_opts_free(&so);
	return ret;
}
