/* Runs every registered unit test; prints "ok NAME", "FAIL NAME" or
 * "skip NAME: why" lines and a closing "unit: N passed, N failed, N
 * skipped".  An argument runs only the tests whose name contains it. */
#include <stdarg.h>
#include <stdlib.h>
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
