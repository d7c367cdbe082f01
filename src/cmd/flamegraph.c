/* stackscope flamegraph: folded stacks (from any tool) -> SVG flame graph. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "common.h"
#include "cmd/cmds.h"
#include "report/flamegraph.h"
#include "report/folded.h"
#include "report/output.h"
#include "report/stacks.h"

static const char usage_text[] =
"usage: stackscope flamegraph [-o FILE.svg] [--title TEXT] [--unit UNIT] [--cool] [FOLDED]\n"
"\n"
"Renders folded stacks (\"a;b;c 42\" lines, from stackscope, perf script +\n"
"stackcollapse, bpftrace...) as an interactive SVG flame graph.  Reads FOLDED\n"
"or standard input; writes FILE or standard output.\n";

int cmd_flamegraph(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "cool", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct flame_opts fo = { .title = "Flame graph", .unit = "samples" };
	const char *out_path = NULL, *in_path = NULL;
	struct stacks *s = NULL;
	struct output out;
	size_t bad = 0;
	FILE *in = stdin;
	int c, err, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 't': fo.title = optarg; break;
		case 'u': fo.unit = optarg; break;
		case 'c': fo.palette = FLAME_COOL; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind < argc)
		in_path = argv[optind];
	if (in_path && strcmp(in_path, "-")) {
		in = fopen(in_path, "re");
		if (!in) {
			msg("%s: %s", in_path, strerror(errno));
			return 1;
		}
	}
	s = stacks_new();
	if (!s) {
		msg("out of memory");
		goto close_in;
	}
	err = report_folded_read(in, s, &bad);
	if (err == -EINVAL) {
		msg("%s:%zu: not a folded stack line (\"frame;frame;... COUNT\")",
		    in_path ? in_path : "stdin", bad);
		goto free_stacks;
	} else if (err) {
		msg("%s: %s", in_path ? in_path : "stdin", strerror(-err));
		goto free_stacks;
	}
	stacks_sort(s);
	err = output_open(&out, out_path);
	if (err) {
		msg("%s: %s", out_path, output_error(&out, err));
		goto free_stacks;
	}
	err = report_flamegraph_write(out.f, s, &fo);
	err = output_close(&out, !err) ?: err;
	if (err)
		msg("%s: write failed: %s", out_path ? out_path : "stdout", strerror(-err));
	else
		ret = 0;
free_stacks:
	stacks_free(s);
close_in:
	if (in != stdin)
		fclose(in);
	return ret;
}
