/* Interactive flame graph: one self-contained SVG file (inline style and
 * script) with hover details, click to zoom and regex search. */
#ifndef REPORT_FLAMEGRAPH_H
#define REPORT_FLAMEGRAPH_H
#include <stdbool.h>
#include <stdio.h>
#include "report/stacks.h"

/* HOT: CPU profiles (user frames red/orange/yellow, kernel teal).
 * COOL: off-CPU time (user frames blue/purple, kernel green). */
enum flame_palette { FLAME_HOT, FLAME_COOL };

/* How to draw.  A NULL struct flame_opts means all defaults. */
struct flame_opts {
	const char *title;	/* e.g. "CPU profile: ./workload"; NULL = "Flame Graph" */
	const char *subtitle;	/* optional, e.g. "99 Hz, 5.0 s, 2 CPUs" */
	/* Unit of the values: "samples" (the default when NULL), or a time
	 * unit "ns", "us", "ms", "s" which is shown scaled ("1.23 ms");
	 * anything else is printed after the number. */
	const char *unit;
	enum flame_palette palette;
	int width;		/* pixels, 0 = 1200; at least 300 */
	/* An icicle graph: every stack leaf first, so frames merge by leaf
	 * and their callers hang below them. */
	bool inverted;
	/* A differential flame graph: the stacks drawn are the "after";
	 * each frame is coloured by how its inclusive share of the total
	 * changed since these (red grew, blue shrank, white-ish the same,
	 * saturated at the largest change), and its tooltip says by how much.
	 * Frames only in before are not drawn (their parents' shares say it). */
	const struct stacks *before;
};

/* Writes s as an SVG flame graph.  Stacks are merged into a tree whose
 * siblings are sorted by name, so the output depends only on the contents
 * of s, not its order.  Frames narrower than 0.1 px are left out (totals
 * still count them).  Returns 0, -EINVAL (bad width), -ENOMEM, or -errno
 * on a write error. */
int report_flamegraph_write(FILE *f, const struct stacks *s, const struct flame_opts *o);

#endif
