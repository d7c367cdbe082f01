/* report/syslines as trace events: a finished call, a failed one, one
 * entered before tracing, one that does not return, the names of the
 * tracks, the loss count in otherData. */
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "report/syslines.h"

static struct sc_record record(uint32_t tid, uint64_t enter, uint64_t exit, int64_t ret,
			       uint32_t flags)
{
	struct sc_record r = {
		.kind = SC_REC_CALL, .flags = flags, .enter_ns = enter, .exit_ns = exit,
		.ret = ret, .pid = 999999990, .tid = tid, .cpu = 1,
	};

	r.args[0] = 3;
	snprintf(r.comm, sizeof(r.comm), "wl%u", tid % 10);
	return r;
}

TEST(syslines_trace)
{
	/* no decoder: the arguments in hex, whatever the decoders become */
	struct sc_info si = { .name = "close", .nargs = 1 };
	struct syslines w = {};
	struct sc_record r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		CHECK(f != NULL);
		return;
	}
	CHECK_INT(syslines_init(&w, f, REPORT_TRACE, 32), 0);
	r = record(999999990, 1000, 3500, 0, 0);
	syslines_call(&w, &si, &r, sizeof(r), NULL);
	syslines_lost(&w, 4);
	r = record(999999991, 5000, 6000, -9, 0);
	syslines_call(&w, &si, &r, sizeof(r), &(struct sysline_stack){
		.names = (const char *const[]){ "a", "b" }, .n = 2 });
	r = record(999999990, 0, 7000, 0, SC_F_RESUMED);
	syslines_call(&w, &si, &r, sizeof(r), NULL);
	si.name = "exit_group";
	r = record(999999990, 8000, 0, 0, SC_F_NORET);
	syslines_call(&w, &si, &r, sizeof(r), NULL);
	syslines_exit(&w, &r);	/* not written */
	syslines_end(&w);
	syslines_end(&w);	/* once only */
	fclose(f);
	CHECK_STR(buf,
		  "{\"traceEvents\":[\n"
		  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":999999990,\"tid\":999999990,"
		  "\"args\":{\"name\":\"wl0\"}},\n"
		  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":999999990,\"tid\":999999990,"
		  "\"args\":{\"name\":\"wl0\"}},\n"
		  "{\"ph\":\"X\",\"name\":\"close\",\"ts\":1.000,\"pid\":999999990,\"tid\":999999990,"
		  "\"dur\":2.500,\"args\":{\"call\":\"close(0x3) = 0\",\"return\":0,\"cpu\":1}},\n"
		  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":999999990,\"tid\":999999991,"
		  "\"args\":{\"name\":\"wl1\"}},\n"
		  "{\"ph\":\"X\",\"name\":\"close\",\"ts\":5.000,\"pid\":999999990,\"tid\":999999991,"
		  "\"dur\":1.000,\"args\":{\"call\":\"close(0x3) = -1 EBADF (Bad file descriptor)\","
		  "\"return\":-9,\"errno\":\"EBADF\",\"cpu\":1,\"stack\":\"a\\nb\"}},\n"
		  "{\"ph\":\"X\",\"name\":\"close\",\"ts\":7.000,\"pid\":999999990,\"tid\":999999990,"
		  "\"dur\":0.000,\"args\":{\"call\":\"close(0x3) = 0\",\"return\":0,\"cpu\":1,"
		  "\"resumed\":\"entered before tracing began\"}},\n"
		  "{\"ph\":\"X\",\"name\":\"exit_group\",\"ts\":8.000,\"pid\":999999990,"
		  "\"tid\":999999990,\"dur\":0.000,\"args\":{\"call\":\"exit_group(0x3) = ?\",\"cpu\":1,"
		  "\"no_return\":\"the call does not return\"}}\n"
		  "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\","
		  "\"lost_events\":4}}\n");
	CHECK_TRACE(buf, true);
	free(buf);
}
