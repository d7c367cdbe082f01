/* The writers of the call graph: one per output format over the same
 * settled lines (uftrace's dump ops).  The model (graphtree.c) pairs
 * entries with returns, hides what the filters hide, renders every value
 * to text and hands each line, once it can no longer change, to its
 * writer: call_open for a call whose callees follow, call_leaf for a call
 * shown whole on one line, call_close for the end of an open call.  Lines
 * of one thread come in order; threads interleave as their lines settle. */
#ifndef STACKSCOPE_REPORT_GRAPH_WRITER_H
#define STACKSCOPE_REPORT_GRAPH_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct graph_arg {
	const char *name;	/* "v", "rdi", "..." */
	const char *value;	/* rendered: "3", "0x7ffd1b20", "\"text\"" */
};

/* One line; every pointer is valid during the call only. */
struct graph_line {
	const char *name;	/* the function */
	uint32_t pid, tid, cpu;	/* cpu: of the entry (open, leaf), of the return (close) */
	int depth;		/* 0 for the outermost call shown */
	uint64_t ts;		/* ns: the entry (open, leaf), the return (close) */
	uint64_t dur;		/* ns, leaf and close: the call's time; without a
				 * return: until the model closed it */
	const struct graph_arg *args;	/* open and leaf */
	int nargs;
	const char *ret;	/* leaf and close: the return value, "" none shown */
	const char *why;	/* leaf and close: NULL, or why the call has no return */
};

/* A writer's state is ops->size bytes the model allocates zeroed and
 * passes as w; begin comes once before the first line, end once last. */
struct graph_writer_ops {
	size_t size;
	void (*begin)(void *w, FILE *out);
	void (*call_open)(void *w, const struct graph_line *l);
	void (*call_leaf)(void *w, const struct graph_line *l);
	void (*call_close)(void *w, const struct graph_line *l);
	void (*end)(void *w, uint64_t lost_events);
};

/* The aligned text tree (graph_text.c) and trace events (graph_trace.c). */
extern const struct graph_writer_ops graph_text_writer;
extern const struct graph_writer_ops graph_trace_writer;

#endif
