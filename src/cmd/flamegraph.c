/* stackscope flamegraph: folded stacks or a pprof profile (from any tool)
 * -> SVG flame graph (plain, inverted, or the difference of two), folded
 * or pprof, no capture. */
#include <errno.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "cmd/cmds.h"
#include "report/flamegraph.h"
#include "report/folded.h"
#include "report/format.h"
#include "report/output.h"
#include "report/pprof.h"
#include "report/stacks.h"

#define FLAMEGRAPH_FORMATS \
	(REPORT_MASK(REPORT_SVG) | REPORT_MASK(REPORT_FOLDED) | REPORT_MASK(REPORT_PPROF))

static const char usage_text[] =
"usage: stackscope flamegraph [-o FILE] [--format svg|folded|pprof] [--title TEXT]\n"
"                             [--unit UNIT] [--sample-type TYPE] [--cool] [--inverted]\n"
"                             [INPUT | --diff BEFORE AFTER]\n"
"\n"
"Renders stacks as an interactive SVG flame graph.  INPUT is folded stacks\n"
"(\"a;b;c 42\" lines, from stackscope, perf script + stackcollapse,\n"
"bpftrace...) or a pprof profile (gzip'ed profile.proto), told apart by\n"
"content; standard input when not given.  Writes FILE or standard output.\n"
"  --format FMT       svg (default), folded or pprof; -o FILE.pb.gz or .pprof\n"
"                     gives pprof\n"
"  --unit UNIT        what folded values count: samples (default), ns, us, ms, s\n"
"  --sample-type TYPE the pprof value shown (default: the profile's default)\n"
"  --inverted         an icicle graph: leaves on top, their callers below\n"
"  --diff BEFORE AFTER  a differential flame graph: AFTER's shape, each frame\n"
"                     red where its share of the total grew since BEFORE,\n"
"                     blue where it shrank, deeper for a bigger change\n";

/* The whole of in, malloc'ed, first byte c already read; NULL (errno). */
static char *slurp(FILE *in, int c, size_t *len)
{
	size_t cap = 1 << 20, n;
	char *data = malloc(cap), *p;

	if (!data)
		return NULL;
	data[0] = (char)c;
	*len = 1;
	for (;;) {
		if (*len == cap) {
			p = realloc(data, cap * 2);
			if (!p)
				goto fail;
			data = p;
			cap *= 2;
		}
		n = fread(data + *len, 1, cap - *len, in);
		*len += n;
		if (!n)
			break;
	}
	if (!ferror(in))
		return data;
	errno = errno ? errno : EIO;
fail:
	free(data);
	return NULL;
}

/* Reads path ("-" or NULL: stdin), folded or pprof by content, into s;
 * a pprof's unit goes to unit unless one was given.  0 or 1 (said). */
static int load(const char *path, struct stacks *s, const char *type, char *unit,
		size_t unit_size)
{
	const char *name = path && strcmp(path, "-") ? path : "stdin";
	FILE *in = stdin, *mem = NULL;
	char *data = NULL;
	size_t len = 0, bad = 0;
	int c, err;

	if (path && strcmp(path, "-")) {
		in = fopen(path, "re");
		if (!in) {
			msg("%s: %s", path, strerror(errno));
			return 1;
		}
	}
	{
		struct stat st;

		/* the model of a folded file takes about its size again, and a
		 * few MiB however small it is; on large files faults are a small
		 * part of the time, and memory populated in advance would only
		 * add to the peak */
		if (!fstat(fileno(in), &st) && S_ISREG(st.st_mode))
			heap_prefault((size_t)st.st_size < (16 << 20) ? (size_t)st.st_size + (16 << 20)
								      : (32 << 20));
	}
	/* gzip's first byte never starts a folded line; a raw profile's is
	 * '\n', so that input is read whole and looked at */
	c = getc(in);
	if (c == 0x1f || c == 0x0a) {
		data = slurp(in, c, &len);
		if (!data) {
			err = -errno;
			goto said;
		}
		if (report_pprof_detect(data, len)) {
			struct pprof_read_info info;

			err = report_pprof_read(data, len, s, type, &info);
			if (err == -EINVAL && type && info.type[0])
				msg("%s: no sample type %s in this profile", name, type);
			else if (err == -EINVAL)
				msg("%s: not a pprof profile (malformed protobuf)", name);
			else if (!err && !unit[0])
				snprintf(unit, unit_size, "%s", info.unit);
			if (err != -EINVAL)
				goto said;
			goto out;
		}
		mem = fmemopen(data, len, "r");
		if (!mem) {
			err = -errno;
			goto said;
		}
	} else if (c != EOF) {
		ungetc(c, in);
	}
	err = report_folded_read(mem ? mem : in, s, &bad);
	if (err == -EINVAL) {
		msg("%s:%zu: not a folded stack line (\"frame;frame;... COUNT\") nor a pprof "
		    "profile", name, bad);
		goto out;
	}
said:
	if (err)
		msg("%s: %s", name, strerror(-err));
out:
	if (mem)
		fclose(mem);
	free(data);
	if (in != stdin)
		fclose(in);
	return !!err;
}

/* The pprof sample type of folded values in unit: a count, a time in
 * nanoseconds (pprof's time unit), or whatever unit was given. */
static void pprof_type(const char *unit, bool cool, struct pprof_opts *po)
{
	static const struct { const char *unit; uint64_t ns; } times[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};

	po->ntypes = 1;
	if (!strcmp(unit, "samples")) {
		po->types[0] = (struct pprof_sample_type){ "samples", "count", 1 };
		return;
	}
	po->types[0] = (struct pprof_sample_type){ "value", unit, 1 };
	for (size_t i = 0; i < ARRAY_SIZE(times); i++)
		if (!strcmp(unit, times[i].unit))
			po->types[0] = (struct pprof_sample_type){ cool ? "offcpu" : "time",
								   "nanoseconds", times[i].ns };
}

int cmd_flamegraph(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "cool", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "sample-type", required_argument, NULL, 'T' },
		{ "inverted", no_argument, NULL, 'i' },
		{ "diff", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct flame_opts fo = { .title = NULL };
	const char *out_path = NULL, *type = NULL;
	struct stacks *s = NULL, *before = NULL;
	enum report_format format = REPORT_SVG;
	bool format_given = false, diff = false;
	char unit[32] = "";
	struct output out;
	int c, err, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 't': fo.title = optarg; break;
		case 'u': snprintf(unit, sizeof(unit), "%s", optarg); break;
		case 'c': fo.palette = FLAME_COOL; break;
		case 'T': type = optarg; break;
		case 'i': fo.inverted = true; break;
		case 'D': diff = true; break;
		case 'f':
			if (report_format_parse(optarg, FLAMEGRAPH_FORMATS, &format))
				return 2;
			format_given = true;
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (!format_given)
		format = report_format_for_path(out_path, REPORT_MASK(REPORT_PPROF), REPORT_SVG);
	if (diff && argc - optind != 2) {
		msg("--diff: give BEFORE and AFTER (folded or pprof)");
		return 2;
	}
	if (!diff && argc - optind > 1) {
		msg("one input only (or --diff BEFORE AFTER)");
		return 2;
	}
	if (diff && format != REPORT_SVG) {
		msg("--diff draws an SVG only");
		return 2;
	}
	if (format == REPORT_PPROF && !out_path && isatty(STDOUT_FILENO)) {
		msg("--format pprof: give -o FILE.pb.gz (not writing gzip to a terminal)");
		return 2;
	}
	s = stacks_new();
	if (diff)
		before = stacks_new();
	if (!s || (diff && !before)) {
		msg("out of memory");
		goto free_stacks;
	}
	if (diff && load(argv[optind++], before, type, unit, sizeof(unit)))
		goto free_stacks;
	if (load(optind < argc ? argv[optind] : NULL, s, type, unit, sizeof(unit)))
		goto free_stacks;
	if (!unit[0])
		snprintf(unit, sizeof(unit), "samples");
	stacks_sort(s);
	stacks_sort(before);
	fo.unit = unit;
	fo.before = before;
	if (!fo.title)
		fo.title = diff ? "Differential flame graph" : fo.inverted ? "Icicle graph"
								     : "Flame graph";
	err = output_open(&out, out_path);
	if (err) {
		msg("%s: %s", out_path, output_error(&out, err));
		goto free_stacks;
	}
	if (format == REPORT_FOLDED) {
		err = report_folded_write(out.f, s);
	} else if (format == REPORT_PPROF) {
		struct pprof_opts po = { .comments = { fo.title } };

		pprof_type(unit, fo.palette == FLAME_COOL, &po);
		err = report_pprof_write(out.f, s, &po);
	} else {
		err = report_flamegraph_write(out.f, s, &fo);
	}
	err = output_close(&out, !err) ?: err;
	if (err)
		msg("%s: write failed: %s", out_path ? out_path : "stdout", strerror(-err));
	else
		ret = 0;
free_stacks:
	stacks_free(before);
	stacks_free(s);
	return ret;
}
