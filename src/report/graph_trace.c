/* The call graph as Chrome / Perfetto trace events: a call whose callees
 * follow is a "B" event and its close an "E" event, a call shown whole an
 * "X" event; the arguments, the return value and the CPU are the event's
 * args.  A call without a return is a "B"/"E" pair, the "E" saying why.
 * Each thread's track is named by "M" events before its first call. */
#include "report/graph_writer.h"
#include "report/trace_events.h"

static void trace_begin(void *w, FILE *out)
{
	trace_events_begin(w, out);
}

static void args(struct trace_events *te, const struct graph_line *l)
{
	for (int i = 0; i < l->nargs; i++)
		trace_event_arg_str(te, l->args[i].name, l->args[i].value);
}

static void trace_call_open(void *w, const struct graph_line *l)
{
	trace_event_thread(w, l->pid, l->tid, NULL);
	trace_event_start(w, TRACE_BEGIN, l->name, l->pid, l->tid, l->ts, 0);
	trace_event_arg_u64(w, "cpu", l->cpu);
	args(w, l);
	trace_event_finish(w);
}

static void trace_call_leaf(void *w, const struct graph_line *l)
{
	trace_event_thread(w, l->pid, l->tid, NULL);
	if (l->why) {
		trace_call_open(w, l);
		trace_event_start(w, TRACE_END, l->name, l->pid, l->tid, l->ts + l->dur, 0);
		trace_event_arg_u64(w, "cpu", l->cpu);
		trace_event_arg_str(w, "no_return", l->why);
		trace_event_finish(w);
		return;
	}
	trace_event_start(w, TRACE_COMPLETE, l->name, l->pid, l->tid, l->ts, l->dur);
	trace_event_arg_u64(w, "cpu", l->cpu);
	args(w, l);
	if (l->ret[0])
		trace_event_arg_str(w, "return", l->ret);
	trace_event_finish(w);
}

static void trace_call_close(void *w, const struct graph_line *l)
{
	trace_event_thread(w, l->pid, l->tid, NULL);
	trace_event_start(w, TRACE_END, l->name, l->pid, l->tid, l->ts, 0);
	trace_event_arg_u64(w, "cpu", l->cpu);
	if (l->why)
		trace_event_arg_str(w, "no_return", l->why);
	else if (l->ret[0])
		trace_event_arg_str(w, "return", l->ret);
	trace_event_finish(w);
}

static void trace_end(void *w, uint64_t lost_events)
{
	trace_events_end(w, lost_events);
}

const struct graph_writer_ops graph_trace_writer = {
	.size = sizeof(struct trace_events),
	.begin = trace_begin,
	.call_open = trace_call_open,
	.call_leaf = trace_call_leaf,
	.call_close = trace_call_close,
	.end = trace_end,
};
