/* Minimal unit-test harness.  A test is a function declared with TEST();
 * it registers itself at load time, so adding a test file needs no edits
 * elsewhere.  CHECK* record a failure (file:line and values) and let the
 * test go on; SKIP ends a test that cannot run here.  The runner prints
 * one line per test ("ok", "FAIL" or "skip NAME: why") and a closing
 * count. */
#ifndef TEST_H
#define TEST_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void test_register(const char *name, void (*fn)(void), const char *file);
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Marks the current test skipped, with the reason (the first one given
 * is kept), and lets it go on: for a part that cannot run on this machine
 * (a tool, a kernel file, an assembler feature missing), never for a
 * fixture the build should have made.  A failure still wins: the test's
 * line is "FAIL" if any check failed, else "skip NAME: why". */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Passes a trace-event document to tests/trace_check.py (the checker of
 * every trace the end-to-end tests write: fields, B/E balance, strict
 * nesting per thread), in a private temporary directory; a failure names
 * the caller's line.  Needs python3 (else the test is marked skipped) and
 * the source tree as the current directory (tests/run.sh does so). */
void test_trace_check(const char *file, int line, const char *doc, bool require_names);
#define CHECK_TRACE(doc, require_names) test_trace_check(__FILE__, __LINE__, (doc), (require_names))
/* Directory with the fixtures the build made (build/fixtures). */
const char *test_fixtures(void);
/* test_fixtures()/name; the last four results stay valid. */
const char *test_fixture(const char *name);

#define TEST(name)                                                          \
	static void name(void);                                             \
	__attribute__((constructor)) static void register_##name(void)      \
	{                                                                   \
		test_register(#name, name, __FILE__);                       \
	}                                                                   \
	static void name(void)

/* Ends the current test as skipped: SKIP("no %s", path); */
#define SKIP(...)                                                           \
	do {                                                                \
		test_skip(__VA_ARGS__);                                     \
		return;                                                     \
	} while (0)

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond))                                                \
			test_fail(__FILE__, __LINE__, "%s", #cond);         \
	} while (0)

#define CHECK_INT(a, b)                                                     \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		if (a_ != b_)                                               \
			test_fail(__FILE__, __LINE__, "%s == %lld, want %lld",\
				  #a, a_, b_);                              \
	} while (0)

#define CHECK_STR(a, b)                                                     \
	do {                                                                \
		const char *a_ = (a), *b_ = (b);                            \
		if (!a_ || !b_ || strcmp(a_, b_))                           \
			test_fail(__FILE__, __LINE__, "%s == \"%s\", want \"%s\"", \
				  #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif
