/* The output formats every command chooses from, by one name each:
 * --format NAME, or the -o file's extension.  Each command accepts a set
 * of them (a mask of REPORT_MASK bits) and has a default. */
#ifndef STACKSCOPE_REPORT_FORMAT_H
#define STACKSCOPE_REPORT_FORMAT_H

enum report_format {
	REPORT_FOLDED,	/* "folded": one stack per line, Brendan Gregg's format */
	REPORT_SVG,	/* "svg": a flame graph */
	REPORT_TEXT,	/* "text": lines for people to read */
	REPORT_JSON,	/* "json": the same as JSON */
	REPORT_PPROF,	/* "pprof": gzip-compressed profile.proto (report/pprof.h) */
	REPORT_TRACE,	/* "trace": Chrome / Perfetto trace events; not accepted yet */
};

#define REPORT_MASK(f) (1u << (f))

/* "folded", "svg", ...; "?" for a value out of range. */
const char *report_format_name(enum report_format f);

/* Sets *out to the format called name when accepted holds it; else prints
 * the one-line usage error ("--format x: expected svg or folded") and
 * returns -EINVAL. */
int report_format_parse(const char *name, unsigned accepted, enum report_format *out);

/* The format an output path asks for when --format was not given: a
 * name ending in ".svg" (and longer than that) gives svg, one ending in
 * ".pb.gz" or ".pprof" pprof, if accepted; anything else (or no path)
 * gives dflt. */
enum report_format report_format_for_path(const char *path, unsigned accepted,
					  enum report_format dflt);

#endif
