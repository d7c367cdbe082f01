/* Runs every registered unit test; prints "ok NAME", "FAIL NAME" or
 * "skip NAME: why" lines and a closing "unit: N passed, N failed, N
 * skipped".  An argument runs only the tests whose name contains it. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"

#define MAX_TESTS 512

static struct {
	const char *name, *file;
	void (*fn)(void);
} tests[MAX_TESTS];
static int ntests, cur_failed;
static char cur_skip[256];	/* why the current test skipped; "" = it did not */

void test_register(const char *name, void (*fn)(void), const char *file)
{
	if (ntests < MAX_TESTS)
		tests[ntests++] = (typeof(tests[0])){ name, file, fn };
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed = 1;
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	if (cur_skip[0])
		return;
	va_start(ap, fmt);
	vsnprintf(cur_skip, sizeof(cur_skip), fmt, ap);
	va_end(ap);
	if (!cur_skip[0])
		snprintf(cur_skip, sizeof(cur_skip), "(no reason given)");
}

const char *test_fixtures(void)
{
	const char *d = getenv("FIXTURES");
	return d ? d : "build/fixtures";
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;

	for (int i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		cur_failed = 0;
		cur_skip[0] = '\0';
		tests[i].fn();
		fflush(stderr);
		if (cur_failed) {
			printf("FAIL unit/%s\n", tests[i].name);
			failed++;
		} else if (cur_skip[0]) {
			printf("skip unit/%s: %s\n", tests[i].name, cur_skip);
			skipped++;
		} else {
			printf("ok unit/%s\n", tests[i].name);
			passed++;
		}
		fflush(stdout);
	}
	if (ntests >= MAX_TESTS)
		printf("FAIL unit: more than %d tests registered\n", MAX_TESTS), failed++;
	printf("unit: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

const char *test_fixture(const char *name)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", test_fixtures(), name);
	return b;
}

void test_trace_check(const char *file, int line, const char *doc, bool require_names)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", path[64], cmd[256], out[512];
	size_t n = 0;
	FILE *f, *p;
	int st;

	if (!doc) {
		test_fail(file, line, "no trace document");
		return;
	}
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		test_skip("no python3 for tests/trace_check.py");
		return;
	}
	if (!mkdtemp(dir)) {
		test_fail(file, line, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	f = fopen(path, "wx");
	if (!f || fputs(doc, f) == EOF || fclose(f)) {
		test_fail(file, line, "%s: %s", path, strerror(errno));
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "python3 tests/trace_check.py %s%s 2>&1", path,
		 require_names ? " --require-names" : "");
	p = popen(cmd, "r");
	if (!p) {
		test_fail(file, line, "popen: %s", strerror(errno));
		goto out;
	}
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	if (st != 0 || strncmp(out, "ok: ", 4))
		test_fail(file, line, "trace_check: %s", out);
out:
	unlink(path);
	rmdir(dir);
}
