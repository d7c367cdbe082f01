/* report/graphtree: nesting, collapsing, missing returns, filters and the
 * value renderer, on calls made up here. */
#include <stdlib.h>
#include "test.h"
#include "report/graph_value.h"
#include "report/graphtree.h"

static struct dwparam int_param = { .name = "v", .type = { .kind = DWT_SINT, .size = 4, .name = "int" },
				    .loc = DWLOC_REG, .index = 0 };
static struct dwfunc sig_int = { .name = "f", .params = &int_param, .nparams = 1,
				 .ret = { .kind = DWT_SINT, .size = 4, .name = "int" },
				 .ret_loc = DWLOC_REG };
static const struct graph_fn fns[] = { { "outer", &sig_int }, { "inner", &sig_int }, { "raw", NULL } };

static struct graphtree *tree(FILE *f, int depth, uint64_t min_ns, enum report_format fmt)
{
	struct graphtree_opts o = { .format = fmt, .max_depth = depth, .min_ns = min_ns };

	return graphtree_new(f, fns, 3, &o);
}

static void call(struct graphtree *g, uint32_t tid, uint32_t fid, uint64_t ts, uint64_t sp,
		 uint64_t arg)
{
	struct graph_call c = { .pid = 1, .tid = tid, .cpu = 0, .fid = fid, .ts = ts, .sp = sp,
				.regs = { arg } };

	CHECK_INT(graphtree_entry(g, &c), 0);
}

static void ret(struct graphtree *g, uint32_t tid, uint32_t fid, uint64_t ts, uint64_t sp,
		uint64_t rax)
{
	CHECK_INT(graphtree_return(g, 1, tid, 0, fid, ts, sp + 8, rax), 0);
}

/* The function-call column of every line, in order, joined by '|'. */
static char *calls_of(char *buf)
{
	static char out[4096];
	char *line, *save = NULL;

	out[0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bar = strstr(line, "|  ");

		if (line[0] == '#' || !bar)
			continue;
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? "|" : "",
			 bar + 3);
	}
	return out;
}

TEST(graphtree_nests_collapses_and_unwinds)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct graphtree *g = tree(f, 0, 0, REPORT_TEXT);

	call(g, 10, 0, 1000, 0x100, 1);		/* outer(v=1) */
	call(g, 10, 1, 1100, 0x0f0, 2);		/*   inner(v=2) = 20 */
	ret(g, 10, 1, 1200, 0x0f0, 20);
	call(g, 10, 1, 1300, 0x0f0, 3);		/*   inner(v=3) { */
	call(g, 10, 1, 1400, 0x0e0, 4);		/*     inner(v=4): longjmp'd over */
	ret(g, 10, 1, 1500, 0x0f0, 30);		/*   } = 30 */
	ret(g, 10, 2, 1550, 0x0f0, 0);		/* a return with no call */
	ret(g, 10, 0, 2000, 0x100, 10);
	fflush(f);
	CHECK_STR(calls_of(buf), "outer(v=1) {|  inner(v=2) = 20;|  inner(v=3) {|"
		  "    inner(v=4); /* no return: longjmp, exception or lost event */|"
		  "  } = 30; /* inner */|} = 10; /* outer */");
	CHECK_INT(graphtree_stats(g)->calls, 4);
	CHECK_INT(graphtree_stats(g)->returns, 3);
	CHECK_INT(graphtree_stats(g)->no_return, 1);
	CHECK_INT(graphtree_stats(g)->orphans, 1);
	graphtree_finish(g, 0);
	graphtree_free(g);
	fclose(f);
	free(buf);
}

TEST(graphtree_recursion_matches_by_stack_pointer)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct graphtree *g = tree(f, 0, 0, REPORT_TEXT);

	call(g, 7, 1, 100, 0x300, 3);
	call(g, 7, 1, 110, 0x2f0, 2);
	call(g, 7, 1, 120, 0x2e0, 1);
	ret(g, 7, 1, 130, 0x2e0, 1);
	ret(g, 7, 1, 140, 0x2f0, 2);
	ret(g, 7, 1, 150, 0x300, 6);
	graphtree_finish(g, 0);
	fflush(f);
	CHECK_STR(calls_of(buf), "inner(v=3) {|  inner(v=2) {|    inner(v=1) = 1;|"
		  "  } = 2; /* inner */|} = 6; /* inner */");
	graphtree_free(g);
	fclose(f);
	free(buf);
}

TEST(graphtree_threads_depth_min_duration_and_end)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct graphtree *g = tree(f, 1, 500, REPORT_TEXT);

	call(g, 1, 0, 0, 0x100, 1);		/* shown as a leaf: depth 1 */
	call(g, 2, 2, 10, 0x100, 5);		/* thread 2: raw, runs to the end */
	call(g, 1, 1, 20, 0x0f0, 2);		/* too deep */
	ret(g, 1, 1, 30, 0x0f0, 0);
	ret(g, 1, 0, 1000, 0x100, 7);
	call(g, 1, 0, 2000, 0x100, 1);		/* too short: hidden */
	ret(g, 1, 0, 2100, 0x100, 7);
	graphtree_finish(g, 0);
	fflush(f);
	CHECK_STR(calls_of(buf), "outer(v=1) = 7;|raw(rdi=0x5, rsi=0x0, rdx=0x0, rcx=0x0, r8=0x0, "
		  "r9=0x0); /* no return: still running when tracing ended */");
	CHECK_INT(graphtree_stats(g)->open_at_end, 1);
	graphtree_free(g);
	fclose(f);
	free(buf);
}

TEST(graphtree_json_events)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct graphtree *g = tree(f, 0, 0, REPORT_JSON);

	call(g, 3, 0, 1000, 0x100, 1);
	call(g, 3, 1, 2000, 0x0f0, 2);
	ret(g, 3, 1, 3500, 0x0f0, 4);
	CHECK_INT(graphtree_thread_exit(g, 3, 1, 5000), 0);
	graphtree_finish(g, 2);
	fflush(f);
	/* the track named first: pid 1 from /proc, no thread 3 there */
	CHECK(strstr(buf, "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,"
			  "\"tid\":1,\"args\":{\"name\":\"") == buf);
	CHECK(strstr(buf, "}},\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":3,"
			  "\"args\":{\"name\":\"tid 3\"}},\n"
			  "{\"ph\":\"B\",\"name\":\"outer\",\"ts\":1.000,\"pid\":1,"
			  "\"tid\":3,\"args\":{\"cpu\":0,\"v\":\"1\"}},\n"));
	CHECK(strstr(buf, "{\"ph\":\"X\",\"name\":\"inner\",\"ts\":2.000,\"pid\":1,\"tid\":3,"
			  "\"dur\":1.500,\"args\":{\"cpu\":0,\"v\":\"2\",\"return\":\"4\"}}"));
	CHECK(strstr(buf, "{\"ph\":\"E\",\"name\":\"outer\",\"ts\":5.000,\"pid\":1,\"tid\":3,"
			  "\"args\":{\"cpu\":1,\"no_return\":\"thread exited\"}}"));
	CHECK(strstr(buf, "\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\",\"lost_events\":2}}\n"));
	CHECK_TRACE(buf, true);
	graphtree_free(g);
	fclose(f);
	free(buf);
}

TEST(graphtree_values)
{
	struct dwenum colors[] = { { 0, "RED" }, { 1, "GREEN" } };
	struct dwtype t = { .name = "x" };
	char buf[512];
	double d = -2.5;
	float fl = 0.1f;
	uint64_t raw = 0;
	uint32_t w;

	t.kind = DWT_SINT, t.size = 1;
	graph_format_value(buf, sizeof(buf), &t, 0x1ff, NULL, 0, 0);
	CHECK_STR(buf, "-1");
	t.size = 4;
	graph_format_value(buf, sizeof(buf), &t, 0xdeadbeef00000005ULL, NULL, 0, 0);
	CHECK_STR(buf, "5");
	t.kind = DWT_UINT, t.size = 2;
	graph_format_value(buf, sizeof(buf), &t, 0x1ffff, NULL, 0, 0);
	CHECK_STR(buf, "65535");
	t.kind = DWT_BOOL, t.size = 1;
	graph_format_value(buf, sizeof(buf), &t, 0x101, NULL, 0, 0);
	CHECK_STR(buf, "true");
	t.kind = DWT_CHAR;
	graph_format_value(buf, sizeof(buf), &t, '\n', NULL, 0, 0);
	CHECK_STR(buf, "'\\n'");
	t.kind = DWT_ENUM, t.size = 4, t.enums = colors, t.nenums = 2;
	graph_format_value(buf, sizeof(buf), &t, 1, NULL, 0, 0);
	CHECK_STR(buf, "GREEN");
	graph_format_value(buf, sizeof(buf), &t, 9, NULL, 0, 0);
	CHECK_STR(buf, "9");
	t.kind = DWT_PTR, t.size = 8;
	graph_format_value(buf, sizeof(buf), &t, 0, NULL, 0, 0);
	CHECK_STR(buf, "NULL");
	graph_format_value(buf, sizeof(buf), &t, 0x7ffd1234, NULL, 0, 0);
	CHECK_STR(buf, "0x7ffd1234");
	t.kind = DWT_STR;
	graph_format_value(buf, sizeof(buf), &t, 0x1000, "a\"b\\\x01", 6, 64);
	CHECK_STR(buf, "\"a\\\"b\\\\\\x01\"");
	graph_format_value(buf, sizeof(buf), &t, 0x1000, "abc", 4, 4);
	CHECK_STR(buf, "\"abc\"...");
	graph_format_value(buf, sizeof(buf), &t, 0x1000, NULL, -14, 64);
	CHECK_STR(buf, "0x1000 <unreadable>");
	t.kind = DWT_FLOAT;
	memcpy(&raw, &d, sizeof(d));
	graph_format_value(buf, sizeof(buf), &t, raw, NULL, 0, 0);
	CHECK_STR(buf, "-2.5");
	t.size = 4;
	memcpy(&w, &fl, sizeof(w));
	graph_format_value(buf, sizeof(buf), &t, w, NULL, 0, 0);
	CHECK_STR(buf, "0.1");
	t.kind = DWT_AGG, t.name = "struct rect";
	graph_format_value(buf, sizeof(buf), &t, 0, NULL, 0, 0);
	CHECK_STR(buf, "?(struct rect)");
}

TEST(graphtree_json_no_return_leaf)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct graphtree *g = tree(f, 0, 0, REPORT_JSON);

	call(g, 4, 0, 1000, 0x100, 1);
	call(g, 4, 1, 2000, 0x0f0, 2);		/* longjmp'd over */
	ret(g, 4, 0, 4000, 0x100, 9);
	graphtree_finish(g, 0);
	fflush(f);
	CHECK(strstr(buf, "{\"ph\":\"B\",\"name\":\"inner\",\"ts\":2.000,\"pid\":1,\"tid\":4,"
			  "\"args\":{\"cpu\":0,\"v\":\"2\"}},\n{\"ph\":\"E\",\"name\":\"inner\","
			  "\"ts\":4.000,\"pid\":1,\"tid\":4,\"args\":{\"cpu\":0,\"no_return\":"
			  "\"longjmp, exception or lost event\"}},\n{\"ph\":\"E\",\"name\":\"outer\","
			  "\"ts\":4.000,\"pid\":1,\"tid\":4,\"args\":{\"cpu\":0,\"return\":\"9\"}}"));
	CHECK(graphtree_new(f, fns, 3, &(struct graphtree_opts){ .format = REPORT_SVG }) == NULL);
	graphtree_free(g);
	fclose(f);
	free(buf);
}

/* A symbol name with terminal escapes is written escaped. */
TEST(graphtree_text_escapes_names)
{
	static const struct graph_fn evil[] = { { "evil\x1b[2J\x9b", &sig_int } };
	struct graphtree_opts o = { .format = REPORT_TEXT };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct graphtree *g = graphtree_new(f, evil, 1, &o);

	call(g, 10, 0, 1000, 0x100, 1);
	call(g, 10, 0, 1100, 0x0f0, 2);
	ret(g, 10, 0, 1200, 0x0f0, 20);
	ret(g, 10, 0, 2000, 0x100, 10);
	graphtree_finish(g, 0);
	fflush(f);
	CHECK(!strchr(buf, '\x1b') && !strchr(buf, '\x9b'));
	CHECK_STR(calls_of(buf), "evil\\x1b[2J\\x9b(v=1) {|  evil\\x1b[2J\\x9b(v=2) = 20;|"
		  "} = 10; /* evil\\x1b[2J\\x9b */");
	graphtree_free(g);
	fclose(f);
	free(buf);
}
