#include <inttypes.h>
#include "report/json.h"
#include "report/trace_events.h"

void trace_events_begin(struct trace_events *te, FILE *f)
{
	te->f = f;
	te->first = true;
	te->in_args = false;
	fputs("{\"traceEvents\":[\n", f);
}

/* ns as us with three decimals */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

void trace_event_start(struct trace_events *te, enum trace_phase ph, const char *name,
		       uint32_t pid, uint32_t tid, uint64_t ts, uint64_t dur)
{
	FILE *f = te->f;

	fprintf(f, "%s{\"ph\":\"%c\",\"name\":", te->first ? "" : ",\n", (char)ph);
	te->first = false;
	te->in_args = false;
	json_write_cstring(f, name);
	put_us(f, "ts", ts);
	fprintf(f, ",\"pid\":%u,\"tid\":%u", pid, tid);
	if (ph == TRACE_COMPLETE)
		put_us(f, "dur", dur);
}

static void arg_key(struct trace_events *te, const char *key)
{
	fputs(te->in_args ? "," : ",\"args\":{", te->f);
	te->in_args = true;
	json_write_cstring(te->f, key);
	fputc(':', te->f);
}

void trace_event_arg_str(struct trace_events *te, const char *key, const char *val)
{
	arg_key(te, key);
	json_write_cstring(te->f, val);
}

void trace_event_arg_u64(struct trace_events *te, const char *key, uint64_t val)
{
	arg_key(te, key);
	fprintf(te->f, "%" PRIu64, val);
}

void trace_event_finish(struct trace_events *te)
{
	fputs(te->in_args ? "}}" : "}", te->f);
	te->in_args = false;
}

void trace_events_end(struct trace_events *te, uint64_t lost_events)
{
	fprintf(te->f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"lost_events\":%" PRIu64 "}}\n",
		lost_events);
}
