/* The call graph as an aligned text tree:
 *     TID CPU)   DURATION   |  FUNCTION CALLS
 *    4242   1)              |  manhattan(p=0x7ffd3c0a1b20) {
 *    4242   1)    0.604 us  |    absval(v=-3) = 3;
 *    4242   1)    1.204 us  |  } = 7; /+ manhattan +/            */
#include <stdbool.h>
#include "report/graph_writer.h"
#include "report/text.h"

struct text_writer {
	FILE *out;
};

static void text_begin(void *w, FILE *out)
{
	struct text_writer *tw = w;

	tw->out = out;
	fprintf(out, "# %5s %3s) %13s |  %s\n", "TID", "CPU", "DURATION", "FUNCTION CALLS");
}

/* The columns before the call: thread, CPU, duration (calls that
 * returned), the indentation. */
static void prefix(FILE *out, const struct graph_line *l, bool dur)
{
	fprintf(out, "%7u %3u) ", l->tid, l->cpu);
	if (dur)
		fprintf(out, "%10.3f us ", l->dur / 1e3);
	else
		fprintf(out, "%14s", "");
	fprintf(out, "|  %*s", 2 * l->depth, "");
}

static void call(FILE *out, const struct graph_line *l)
{
	text_put(out, l->name);
	fputc('(', out);
	for (int i = 0; i < l->nargs; i++) {
		fputs(i ? ", " : "", out);
		text_put(out, l->args[i].name);
		fputc('=', out);
		text_put(out, l->args[i].value);
	}
	fputc(')', out);
}

static void text_call_open(void *w, const struct graph_line *l)
{
	FILE *out = ((struct text_writer *)w)->out;

	prefix(out, l, false);
	call(out, l);
	fputs(" {\n", out);
}

static void text_call_leaf(void *w, const struct graph_line *l)
{
	FILE *out = ((struct text_writer *)w)->out;

	prefix(out, l, !l->why);
	call(out, l);
	if (l->why) {
		fputs("; /* no return: ", out);
		text_put(out, l->why);
		fputs(" */\n", out);
	} else {
		fputs(l->ret[0] ? " = " : "", out);
		text_put(out, l->ret);
		fputs(";\n", out);
	}
}

static void text_call_close(void *w, const struct graph_line *l)
{
	FILE *out = ((struct text_writer *)w)->out;

	prefix(out, l, !l->why);
	fputc('}', out);
	if (!l->why && l->ret[0]) {
		fputs(" = ", out);
		text_put(out, l->ret);
		fputc(';', out);
	}
	fputs(" /* ", out);
	text_put(out, l->name);
	if (l->why) {
		fputs(": no return: ", out);
		text_put(out, l->why);
	}
	fputs(" */\n", out);
}

static void text_end(void *w, uint64_t lost_events)
{
}

const struct graph_writer_ops graph_text_writer = {
	.size = sizeof(struct text_writer),
	.begin = text_begin,
	.call_open = text_call_open,
	.call_leaf = text_call_leaf,
	.call_close = text_call_close,
	.end = text_end,
};
