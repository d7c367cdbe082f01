/* report/trace_events: the document, the three phases, args in order,
 * an event without args, names that need escaping, the "M" events naming
 * each process and thread once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "report/trace_events.h"

TEST(trace_events_document)
{
	struct trace_events te;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		CHECK(f != NULL);
		return;
	}
	trace_events_begin(&te, f);
	trace_event_start(&te, TRACE_COMPLETE, "read", 1, 2, 12345, 1500);
	trace_event_arg_u64(&te, "fd", 3);
	trace_event_arg_str(&te, "buf", "\"a\"\n");
	trace_event_arg_i64(&te, "ret", -2);
	trace_event_finish(&te);
	trace_event_start(&te, TRACE_BEGIN, "a\\b\x01", 1, 2, 999, 77);
	trace_event_finish(&te);
	trace_event_start(&te, TRACE_END, "a\\b\x01", 1, 2, 1000000, 0);
	trace_event_arg_str(&te, "why", "\xff");
	trace_event_finish(&te);
	trace_events_end(&te, 5);
	fclose(f);
	CHECK_STR(buf, "{\"traceEvents\":[\n"
		  "{\"ph\":\"X\",\"name\":\"read\",\"ts\":12.345,\"pid\":1,\"tid\":2,\"dur\":1.500,"
		  "\"args\":{\"fd\":3,\"buf\":\"\\\"a\\\"\\n\",\"ret\":-2}},\n"
		  "{\"ph\":\"B\",\"name\":\"a\\\\b\\u0001\",\"ts\":0.999,\"pid\":1,\"tid\":2},\n"
		  "{\"ph\":\"E\",\"name\":\"a\\\\b\\u0001\",\"ts\":1000.000,\"pid\":1,\"tid\":2,"
		  "\"args\":{\"why\":\"\\u00ff\"}}\n"
		  "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\","
		  "\"lost_events\":5}}\n");
	CHECK_TRACE(buf, false);
	free(buf);

	/* no event at all */
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	trace_events_begin(&te, f);
	trace_events_end(&te, 0);
	fclose(f);
	CHECK_STR(buf, "{\"traceEvents\":[\n\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
		  "{\"clock\":\"CLOCK_MONOTONIC\",\"lost_events\":0}}\n");
	CHECK_TRACE(buf, false);
	free(buf);
}

TEST(trace_events_names)
{
	struct trace_events te;
	char *buf = NULL, comm[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		CHECK(f != NULL);
		return;
	}
	trace_events_begin(&te, f);
	/* a process gone: named by the thread's comm */
	trace_event_thread(&te, 999999999, 999999999, "w\"1");
	trace_event_thread(&te, 999999999, 999999999, "w\"1");
	trace_event_thread(&te, 999999999, 1000000000, "w2");
	/* no comm, nothing in /proc: numbers */
	trace_event_thread(&te, 999999998, 999999997, NULL);
	trace_events_end(&te, 0);
	fclose(f);
	CHECK(strstr(buf, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":999999999,"
			  "\"tid\":999999999,\"args\":{\"name\":\"w\\\"1\"}},\n"
			  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":999999999,"
			  "\"tid\":999999999,\"args\":{\"name\":\"w\\\"1\"}},\n"
			  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":999999999,"
			  "\"tid\":1000000000,\"args\":{\"name\":\"w2\"}},\n"
			  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":999999998,"
			  "\"tid\":999999998,\"args\":{\"name\":\"pid 999999998\"}},\n"
			  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":999999998,"
			  "\"tid\":999999997,\"args\":{\"name\":\"tid 999999997\"}}") != NULL);
	CHECK_TRACE(buf, false);
	free(buf);

	/* a live thread: this one, named from /proc */
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	trace_events_begin(&te, f);
	trace_event_thread(&te, getpid(), gettid(), NULL);
	trace_events_end(&te, 0);
	fclose(f);
	snprintf(comm, sizeof(comm), "\"args\":{\"name\":\"%.15s\"}", program_invocation_short_name);
	CHECK(strstr(buf, "\"name\":\"thread_name\"") != NULL);
	CHECK(strstr(buf, comm) != NULL);
	CHECK_TRACE(buf, false);
	free(buf);
}
