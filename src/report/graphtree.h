/* The function-graph model: entry, return and thread-exit records of
 * traced calls in, per thread, nested calls out, rendered by the writer
 * of the chosen format (graph_writer.h): an aligned text tree
 *
 *     TID CPU)   DURATION   |  FUNCTION CALLS
 *    4242   1)              |  manhattan(p=0x7ffd3c0a1b20) {
 *    4242   1)    0.604 us  |    absval(v=-3) = 3;
 *    4242   1)    1.204 us  |  } = 7; /+ manhattan +/
 *
 * or Chrome / Perfetto trace events ("B"/"E"/"X").
 *
 * Calls are nested per thread with a stack of open calls.  A call whose
 * return never comes (longjmp, exit, pthread_exit) is closed, marked, when
 * a return for a call below it arrives or its thread exits; a return with
 * no open call (its entry was lost, or came before tracing) is counted
 * and dropped.  Lines are held per thread until they cannot change any
 * more (a call collapses to one line when it had no shown callee, and
 * --min-duration hides a whole call), then written. */
#ifndef STACKSCOPE_REPORT_GRAPHTREE_H
#define STACKSCOPE_REPORT_GRAPHTREE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "report/format.h"
#include "sym/dwfunc.h"

/* Longest string argument kept (bytes with the NUL). */
#define GRAPH_STR_LIMIT 256

/* One traced function as the model needs it. */
struct graph_fn {
	const char *name;
	const struct dwfunc *sig;	/* NULL: arguments as raw registers */
};

struct graphtree_opts {
	enum report_format format;	/* REPORT_TEXT; REPORT_JSON or REPORT_TRACE: trace events */
	int max_depth;		/* calls nested deeper are not shown; 0 = all */
	uint64_t min_ns;	/* calls shorter are not shown (with their callees) */
	bool no_args;
	unsigned str_size;	/* the -s the strings were copied with */
};

/* A call's entry as captured.  str[r]/slen[r]: the string register r
 * points to (slen: bytes with the NUL, < 0 unreadable, 0 not copied). */
struct graph_call {
	uint32_t pid, tid, cpu, fid;
	uint64_t ts, sp;
	uint64_t regs[6];
	const char *str[6];
	int32_t slen[6];
};

struct graphtree_stats {
	uint64_t calls;		/* entries */
	uint64_t returns;	/* returns matched to their call */
	uint64_t no_return;	/* calls closed without their return */
	uint64_t orphans;	/* returns without an open call */
	uint64_t open_at_end;	/* calls still open when the trace ended */
};

struct graphtree;

/* fns[fid] describes function fid; both must outlive g.  NULL with errno
 * set (EINVAL: a format without a graph writer). */
struct graphtree *graphtree_new(FILE *out, const struct graph_fn *fns, size_t nfns,
				const struct graphtree_opts *o);
int graphtree_entry(struct graphtree *g, const struct graph_call *c);
int graphtree_return(struct graphtree *g, uint32_t pid, uint32_t tid, uint32_t cpu, uint32_t fid,
		     uint64_t ts, uint64_t sp, uint64_t rax);
/* Values the late probe read for the innermost open call of tid. */
int graphtree_late(struct graphtree *g, uint32_t tid, uint32_t fid, const uint64_t *vals,
		   uint32_t ok_mask);
int graphtree_thread_exit(struct graphtree *g, uint32_t tid, uint32_t cpu, uint64_t ts);
/* Writes what can no longer change; now = the current time (ns, the
 * records' clock). */
int graphtree_flush(struct graphtree *g, uint64_t now);
/* Closes every open call as still running and writes everything. */
int graphtree_finish(struct graphtree *g, uint64_t lost_events);
const struct graphtree_stats *graphtree_stats(const struct graphtree *g);
void graphtree_free(struct graphtree *g);

#endif
