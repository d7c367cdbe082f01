/* report/format: names, --format parsing with each command's error line,
 * and the choice by the output file's name. */
#include <errno.h>
#include <unistd.h>
#include "test.h"
#include "report/format.h"

#define STACKS (REPORT_MASK(REPORT_SVG) | REPORT_MASK(REPORT_FOLDED))
#define LINES (REPORT_MASK(REPORT_TEXT) | REPORT_MASK(REPORT_JSON))

/* report_format_parse with what it printed on stderr in msg. */
static int parse(const char *name, unsigned accepted, enum report_format *out, char *msg,
		 size_t size)
{
	FILE *tmp = tmpfile();
	int saved, err;
	size_t n = 0;

	msg[0] = 0;
	if (!tmp)
		return -errno;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	err = report_format_parse(name, accepted, out);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(msg, 1, size - 1, tmp);
	msg[n] = 0;
	fclose(tmp);
	return err;
}

TEST(format_names)
{
	CHECK_STR(report_format_name(REPORT_FOLDED), "folded");
	CHECK_STR(report_format_name(REPORT_SVG), "svg");
	CHECK_STR(report_format_name(REPORT_TEXT), "text");
	CHECK_STR(report_format_name(REPORT_JSON), "json");
	CHECK_STR(report_format_name(REPORT_PPROF), "pprof");
	CHECK_STR(report_format_name(REPORT_TRACE), "trace");
	CHECK_STR(report_format_name((enum report_format)42), "?");
}

TEST(format_parse)
{
	enum report_format f = REPORT_PPROF;
	char err[256];

	CHECK_INT(parse("svg", STACKS, &f, err, sizeof(err)), 0);
	CHECK_INT(f, REPORT_SVG);
	CHECK_STR(err, "");
	CHECK_INT(parse("folded", STACKS, &f, err, sizeof(err)), 0);
	CHECK_INT(f, REPORT_FOLDED);
	CHECK_INT(parse("json", LINES, &f, err, sizeof(err)), 0);
	CHECK_INT(f, REPORT_JSON);
	CHECK_INT(parse("text", LINES, &f, err, sizeof(err)), 0);
	CHECK_INT(f, REPORT_TEXT);

	/* a known name the command does not take, an unknown one, a prefix:
	 * each command's own line, f untouched */
	CHECK_INT(parse("json", STACKS, &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "stackscope: --format json: expected svg or folded\n");
	CHECK_INT(parse("svgz", STACKS, &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "stackscope: --format svgz: expected svg or folded\n");
	CHECK_INT(parse("svg", LINES, &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "stackscope: --format svg: expected text or json\n");
	CHECK_INT(parse("", LINES, &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "stackscope: --format : expected text or json\n");
	CHECK_INT(parse("tex", LINES, &f, err, sizeof(err)), -EINVAL);
	CHECK_INT(f, REPORT_TEXT);

	/* not accepted by any command yet, but named */
	CHECK_INT(parse("trace", LINES | REPORT_MASK(REPORT_TRACE), &f, err, sizeof(err)), 0);
	CHECK_INT(f, REPORT_TRACE);
	CHECK_INT(parse("x", LINES | REPORT_MASK(REPORT_TRACE), &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "stackscope: --format x: expected text, json or trace\n");
	CHECK_INT(parse("x", REPORT_MASK(REPORT_PPROF), &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "stackscope: --format x: expected pprof\n");
}

TEST(format_for_path)
{
	CHECK_INT(report_format_for_path("flame.svg", STACKS, REPORT_FOLDED), REPORT_SVG);
	CHECK_INT(report_format_for_path("/tmp/a.b.svg", STACKS, REPORT_FOLDED), REPORT_SVG);
	CHECK_INT(report_format_for_path("x.svg", STACKS, REPORT_FOLDED), REPORT_SVG);
	/* the name must be longer than the extension, which is case-sensitive */
	CHECK_INT(report_format_for_path(".svg", STACKS, REPORT_FOLDED), REPORT_FOLDED);
	CHECK_INT(report_format_for_path("flame.SVG", STACKS, REPORT_FOLDED), REPORT_FOLDED);
	CHECK_INT(report_format_for_path("flame.svg.txt", STACKS, REPORT_FOLDED), REPORT_FOLDED);
	CHECK_INT(report_format_for_path("out.folded", STACKS, REPORT_FOLDED), REPORT_FOLDED);
	CHECK_INT(report_format_for_path(NULL, STACKS, REPORT_FOLDED), REPORT_FOLDED);
	CHECK_INT(report_format_for_path("", STACKS, REPORT_FOLDED), REPORT_FOLDED);
	/* a command without svg keeps its default whatever the name */
	CHECK_INT(report_format_for_path("calls.svg", LINES, REPORT_TEXT), REPORT_TEXT);
	/* pprof by name, when accepted */
	CHECK_INT(report_format_for_path("cpu.pb.gz", STACKS | REPORT_MASK(REPORT_PPROF),
					 REPORT_FOLDED), REPORT_PPROF);
	CHECK_INT(report_format_for_path("cpu.pprof", STACKS | REPORT_MASK(REPORT_PPROF),
					 REPORT_FOLDED), REPORT_PPROF);
	CHECK_INT(report_format_for_path(".pb.gz", STACKS | REPORT_MASK(REPORT_PPROF),
					 REPORT_FOLDED), REPORT_FOLDED);
	CHECK_INT(report_format_for_path("cpu.pb.gz", STACKS, REPORT_FOLDED), REPORT_FOLDED);
}
