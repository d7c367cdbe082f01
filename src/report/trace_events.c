#include <inttypes.h>
#include <string.h>
#include "common.h"
#include "hashtab.h"
#include "report/json.h"
#include "report/trace_events.h"

void trace_events_begin(struct trace_events *te, FILE *f)
{
	te->f = f;
	te->first = true;
	te->in_args = false;
	te->named = NULL;
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
	if (ph != TRACE_METADATA)
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

void trace_event_arg_i64(struct trace_events *te, const char *key, int64_t val)
{
	arg_key(te, key);
	fprintf(te->f, "%" PRId64, val);
}

void trace_event_finish(struct trace_events *te)
{
	fputs(te->in_args ? "}}" : "}", te->f);
	te->in_args = false;
}

/* The table of names written holds no allocations: an entry is its own
 * key, a tagged integer (never 0, so never the table's NULL). */
#define KEY_THREAD (1ULL << 62)
#define KEY_PROCESS (2ULL << 62)

static bool same_key(const void *entry, const void *key)
{
	return entry == key;
}

/* true the first time key is seen */
static bool first_sight(struct trace_events *te, uint64_t key)
{
	uint64_t h = mix64(key);
	void *k = (void *)(uintptr_t)key;

	if (!te->named)
		te->named = htab_new(0);
	/* out of memory: names repeat rather than go missing */
	if (!te->named || htab_find(te->named, h, k, same_key))
		return !te->named;
	return !htab_insert(te->named, h, k);
}

/* The first line of path, without its newline, into buf; false if none. */
static bool read_name(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok && buf[0];
}

static void name_event(struct trace_events *te, const char *what, uint32_t pid, uint32_t tid,
		       const char *name)
{
	trace_event_start(te, TRACE_METADATA, what, pid, tid, 0, 0);
	trace_event_arg_str(te, "name", name);
	trace_event_finish(te);
}

void trace_event_thread(struct trace_events *te, uint32_t pid, uint32_t tid, const char *comm)
{
	char path[64], proc[64], thread[64];

	if (!first_sight(te, KEY_THREAD | (uint64_t)pid << 32 | tid))
		return;
	if (comm) {
		snprintf(thread, sizeof(thread), "%s", comm);
	} else {
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		if (!read_name(path, thread, sizeof(thread)))
			snprintf(thread, sizeof(thread), "tid %u", tid);
	}
	if (first_sight(te, KEY_PROCESS | pid)) {
		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		if (!read_name(path, proc, sizeof(proc))) {
			if (comm)
				snprintf(proc, sizeof(proc), "%s", comm);
			else
				snprintf(proc, sizeof(proc), "pid %u", pid);
		}
		name_event(te, "process_name", pid, pid, proc);
	}
	name_event(te, "thread_name", pid, tid, thread);
}

void trace_events_end(struct trace_events *te, uint64_t lost_events)
{
	fprintf(te->f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\","
		"\"lost_events\":%" PRIu64 "}}\n", lost_events);
	htab_free(te->named);
	te->named = NULL;
}
