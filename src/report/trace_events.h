/* Chrome / Perfetto trace-event JSON, the format ui.perfetto.dev and
 * chrome://tracing open:
 *   {"traceEvents":[
 *   {"ph":"X","name":"read","ts":12.000,"pid":1,"tid":2,"dur":1.500,"args":{"fd":"3"}},
 *   ...
 *   {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"cat"}},
 *   ...
 *   ],"displayTimeUnit":"ns","otherData":{"clock":"CLOCK_MONOTONIC","lost_events":0}}
 * Times are CLOCK_MONOTONIC ns (bpf_ktime_get_ns()), every command's, and
 * written in us with three decimals.  An event is written piece by piece:
 * start, its args in order, finish.  Every (pid, tid) is named once, by
 * "M" events at its first event (trace_event_thread). */
#ifndef STACKSCOPE_REPORT_TRACE_EVENTS_H
#define STACKSCOPE_REPORT_TRACE_EVENTS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum trace_phase {
	TRACE_BEGIN = 'B',	/* a slice opens on its thread */
	TRACE_END = 'E',	/* the innermost open slice of its thread closes */
	TRACE_COMPLETE = 'X',	/* a slice with its duration */
	TRACE_METADATA = 'M',	/* names a track: no "ts" */
};

struct htab;

struct trace_events {
	FILE *f;
	bool first;		/* no event written yet */
	bool in_args;		/* the current event's "args" object is open */
	struct htab *named;	/* the pids and tids named (NULL: none yet) */
};

/* Writes the head of the document. */
void trace_events_begin(struct trace_events *te, FILE *f);
/* dur: TRACE_COMPLETE only. */
void trace_event_start(struct trace_events *te, enum trace_phase ph, const char *name,
		       uint32_t pid, uint32_t tid, uint64_t ts, uint64_t dur);
void trace_event_arg_str(struct trace_events *te, const char *key, const char *val);
void trace_event_arg_u64(struct trace_events *te, const char *key, uint64_t val);
void trace_event_arg_i64(struct trace_events *te, const char *key, int64_t val);
void trace_event_finish(struct trace_events *te);
/* Called before a thread's events (never inside one): the first time
 * (pid, tid) is seen, writes its thread_name "M" event, and the first
 * time pid is, its process_name.  comm: the thread's name, NULL to read
 * it from /proc; the process is named by /proc/PID/comm, else by comm. */
void trace_event_thread(struct trace_events *te, uint32_t pid, uint32_t tid, const char *comm);
/* Writes the tail of the document, with the count of events the trace
 * lost on the way, and frees what begin and trace_event_thread took. */
void trace_events_end(struct trace_events *te, uint64_t lost_events);

#endif
