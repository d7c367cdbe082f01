/* Unit tests of report/: the stacks model, folded writer and reader, and
 * the SVG flame graph writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "report/stacks.h"
#include "report/folded.h"
#include "report/flamegraph.h"

#define XMLLINT "/usr/bin/xmllint"

/* Adds "a;b;c" where a frame may be prefixed with its kind: "k:" kernel,
 * "c:" comm, "m:" mark (user otherwise). */
static int add_path(struct stacks *s, const char *path, uint64_t value)
{
	struct frame fr[64];
	char buf[1024], *save = NULL;
	unsigned int n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *tok = strtok_r(buf, ";", &save); tok && n < 64; tok = strtok_r(NULL, ";", &save)) {
		enum frame_kind kind = FRAME_USER;
		if (tok[0] && tok[1] == ':') {
			kind = tok[0] == 'k' ? FRAME_KERNEL : tok[0] == 'c' ? FRAME_COMM : FRAME_MARK;
			tok += 2;
		}
		fr[n++] = (struct frame){ tok, kind };
	}
	return stacks_add(s, fr, n, value);
}

/* s as folded text (malloc'ed), NULL on error. */
static char *folded_str(const struct stacks *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	int err = report_folded_write(f, s);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct stacks *folded_parse(const char *text, int *err, size_t *bad_line)
{
	struct stacks *s = stacks_new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	*err = s && f ? report_folded_read(f, s, bad_line) : -ENOMEM;
	if (f)
		fclose(f);
	return s;
}

static char *svg_str(const struct stacks *s, const struct flame_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	int err = report_flamegraph_write(f, s, o);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* 1 well-formed, 0 not, -1 when xmllint is not installed. */
static int xml_ok(const char *text)
{
	char dir[] = "/tmp/stackscope-test.XXXXXX", path[64], cmd[128];
	int ok;

	if (access(XMLLINT, X_OK))
		return -1;
	if (!mkdtemp(dir))
		return 0;
	snprintf(path, sizeof(path), "%s/fg.svg", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		rmdir(dir);
		return 0;
	}
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), XMLLINT " --noout %s", path);
	ok = system(cmd) == 0;
	unlink(path);
	rmdir(dir);
	return ok;
}

static void check_xml(const char *text)
{
	int ok = xml_ok(text);

	if (ok < 0)
		test_skip("SVG not checked as XML: %s not installed", XMLLINT);
	else
		CHECK(ok == 1);
}

/* ---- stacks ------------------------------------------------------------------ */

TEST(stacks_merges_duplicates)
{
	struct stacks *s = stacks_new();

	CHECK(s != NULL);
	CHECK_INT(add_path(s, "c:app;main;work", 3), 0);
	CHECK_INT(add_path(s, "c:app;main;k:work", 4), 0);	/* other kind: distinct */
	CHECK_INT(add_path(s, "c:app;main", 1), 0);		/* prefix: distinct */
	CHECK_INT(add_path(s, "c:app;main;work", 5), 0);
	CHECK_INT(add_path(s, "app;main;work", 2), 0);		/* comm vs user */
	CHECK_INT(stacks_count(s), 4);
	CHECK_INT(stacks_total(s), 15);

	const struct stack_entry *e = stacks_get(s, 0);
	CHECK_INT(e->depth, 3);
	CHECK_INT(e->value, 8);
	CHECK_STR(e->frames[0]->name, "app");
	CHECK_INT(e->frames[0]->kind, FRAME_COMM);
	CHECK_STR(e->frames[2]->name, "work");
	CHECK_INT(e->frames[2]->kind, FRAME_USER);
	CHECK_INT(stacks_get(s, 1)->value, 4);
	CHECK_INT(stacks_get(s, 1)->frames[2]->kind, FRAME_KERNEL);
	/* Names are interned. */
	CHECK(stacks_get(s, 1)->frames[1]->name == e->frames[1]->name);
	CHECK(stacks_get(s, 4) == NULL);
	stacks_free(s);
}

TEST(stacks_add_copies_names)
{
	struct stacks *s = stacks_new();
	char name[16] = "leaf";
	struct frame fr = { name, FRAME_USER };

	CHECK_INT(stacks_add(s, &fr, 1, 1), 0);
	strcpy(name, "changed");
	CHECK_STR(stacks_get(s, 0)->frames[0]->name, "leaf");
	CHECK((const void *)stacks_get(s, 0)->frames[0] != (const void *)&fr);
	stacks_free(s);
}

TEST(stacks_add_rejects_invalid)
{
	struct stacks *s = stacks_new();
	struct frame fr[2] = { { "a", FRAME_USER }, { NULL, FRAME_USER } };

	CHECK_INT(stacks_add(s, fr, 0, 1), -EINVAL);
	CHECK_INT(stacks_add(s, fr, 2, 1), -EINVAL);
	CHECK_INT(stacks_add(s, NULL, 1, 1), -EINVAL);
	CHECK_INT(stacks_add(NULL, fr, 1, 1), -EINVAL);
	CHECK_INT(stacks_count(s), 0);
	CHECK_INT(stacks_total(s), 0);
	stacks_free(s);
	stacks_free(NULL);
}

TEST(stacks_sort_lexical_root_first)
{
	struct stacks *s = stacks_new();

	add_path(s, "b;a", 1);
	add_path(s, "a;b;c", 2);
	add_path(s, "a;k:b", 3);
	add_path(s, "a", 4);
	add_path(s, "a;b", 5);
	add_path(s, "B", 6);
	stacks_sort(s);
	char *txt = folded_str(s);
	/* The user frame b and its callees sort before the kernel frame b. */
	CHECK_STR(txt, "B 6\na 4\na;b 5\na;b;c 2\na;b_[k] 3\nb;a 1\n");
	free(txt);
	/* Still merges after sorting (the index is rebuilt). */
	CHECK_INT(add_path(s, "a;b;c", 10), 0);
	CHECK_INT(stacks_count(s), 6);
	CHECK_INT(stacks_get(s, 3)->value, 12);
	CHECK_INT(stacks_total(s), 31);
	stacks_free(s);
}

TEST(stacks_many)
{
	struct stacks *s = stacks_new();
	char path[64];
	int err = 0;

	/* Enough to grow the index and the string table several times. */
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 20000; i++) {
			snprintf(path, sizeof(path), "main;f%d;g%d;k:h%d", i % 97, i, i % 13);
			err |= add_path(s, path, (uint64_t)i + 1);
		}
	CHECK_INT(err, 0);
	CHECK_INT(stacks_count(s), 20000);
	CHECK_INT(stacks_total(s), 2ULL * 20000 * 20001 / 2);
	CHECK_INT(stacks_get(s, 1234)->value, 2 * 1235);
	stacks_sort(s);
	for (size_t i = 1; i < stacks_count(s); i++)
		if (stacks_entry_cmp(stacks_get(s, i - 1), stacks_get(s, i)) >= 0) {
			CHECK(!"sorted");
			break;
		}
	stacks_free(s);
}

/* The packed-key sort gives stacks_entry_cmp()'s order, ties by address
 * included, and the model remembers it is sorted until a new entry. */
TEST(stacks_sort_order_and_flag)
{
	struct stacks *s = stacks_new();
	unsigned int seed = 7;
	int err = 0;

	CHECK(!stacks_is_sorted(s));
	for (int i = 0; i < 3000; i++) {
		struct frame fr[12];
		char names[12][16];
		unsigned int depth = 1 + (seed = seed * 1103515245 + 12345) % 12;

		for (unsigned int d = 0; d < depth; d++) {
			seed = seed * 1103515245 + 12345;
			/* few names, so that many stacks share prefixes and names;
			 * names that are prefixes of others ("a" < "a_") */
			snprintf(names[d], sizeof(names[d]), "%s%u", (seed >> 8) % 2 ? "a" : "a_",
				 (seed >> 12) % 5);
			fr[d] = (struct frame){ names[d], (enum frame_kind)((seed >> 20) % 5) };
			fr[d].addr = (seed >> 24) % 3;	/* equal by name, apart by address */
		}
		err |= stacks_add(s, fr, depth, 1);
	}
	CHECK_INT(err, 0);
	stacks_sort(s);
	CHECK(stacks_is_sorted(s));
	for (size_t i = 1; i < stacks_count(s); i++)
		if (stacks_entry_cmp(stacks_get(s, i - 1), stacks_get(s, i)) >= 0) {
			CHECK(!"sorted as stacks_entry_cmp() orders");
			break;
		}
	/* adding to an entry keeps the order; a new entry does not */
	const struct stack_entry *e = stacks_get(s, 0);
	struct frame again[8];
	CHECK(e->depth <= 8);
	for (unsigned int d = 0; d < e->depth && d < 8; d++)
		again[d] = *e->frames[d];
	CHECK_INT(stacks_add(s, again, e->depth, 5), 0);
	CHECK(stacks_is_sorted(s));
	CHECK_INT(add_path(s, "zz;new", 1), 0);
	CHECK(!stacks_is_sorted(s));
	stacks_sort(s);
	CHECK(stacks_is_sorted(s));
	CHECK_STR(stacks_get(s, stacks_count(s) - 1)->frames[0]->name, "zz");
	stacks_free(s);
}

/* ---- folded ------------------------------------------------------------------ */

/* folded_parse() of len bytes (which may hold NULs). */
static struct stacks *folded_parse_n(const char *text, size_t len, int *err, size_t *bad_line)
{
	struct stacks *s = stacks_new();
	FILE *f = fmemopen((void *)text, len, "r");

	*err = s && f ? report_folded_read(f, s, bad_line) : -ENOMEM;
	if (f)
		fclose(f);
	return s;
}

/* Names others chose reach a terminal with no control byte of theirs:
 * C0, DEL, C1 (U+009B: CSI) and stray bytes escaped, UTF-8 kept. */
TEST(folded_write_escapes_controls)
{
	struct stacks *s = stacks_new();
	struct frame f[] = { { "evil\x1b[2J\x07", FRAME_COMM }, { "a\xc2\x9b" "1m\x7f\xff", FRAME_USER },
			     { "caf\xc3\xa9\\x", FRAME_USER } };

	stacks_add(s, f, 3, 1);
	char *txt = folded_str(s);
	CHECK_STR(txt, "evil\\x1b[2J\\x07;a\\xc2\\x9b1m\\x7f\\xff;caf\xc3\xa9\\x 1\n");
	free(txt);
	stacks_free(s);
}

TEST(folded_write_exact)
{
	struct stacks *s = stacks_new();
	struct frame odd[] = { { "app", FRAME_COMM }, { "we;ird\nna\rme", FRAME_USER },
			       { "x;y", FRAME_KERNEL } };

	add_path(s, "c:app;main;k:do_syscall_64;k:ksys_read", 5);
	stacks_add(s, odd, 3, 2);
	add_path(s, "m:[truncated]", 1);
	add_path(s, "c:app;main;k:do_syscall_64;k:ksys_read", 7);
	char *txt = folded_str(s);
	CHECK_STR(txt, "app;main;do_syscall_64_[k];ksys_read_[k] 12\n"
		       "app;we:ird\\x0ana\\x0dme;x:y_[k] 2\n"
		       "[truncated] 1\n");
	free(txt);
	stacks_free(s);
}

TEST(folded_write_error)
{
	struct stacks *s = stacks_new();
	FILE *f = fopen("/dev/full", "w");

	add_path(s, "a;b", 1);
	if (!f) {
		test_skip("no /dev/full");
	} else {
		CHECK(report_folded_write(f, s) < 0);
		fclose(f);
	}
	stacks_free(s);
}

TEST(folded_read_basic)
{
	const char *text =
		"main;foo;bar 3\n"
		"\n"
		"main;foo;sys_write_[k];vfs_write_[k] 4\n"
		"   \n"
		"main;foo;bar 2\r\n"
		"swapper/0;cpu_idle_[k]\t10\n"
		"with space;op<< (int)  7\n"
		"_[k];x_[j] 1";			/* no final newline */
	size_t bad = 0;
	int err;
	struct stacks *s = folded_parse(text, &err, &bad);

	CHECK_INT(err, 0);
	CHECK_INT(bad, 0);
	CHECK_INT(stacks_count(s), 5);
	CHECK_INT(stacks_total(s), 27);

	const struct stack_entry *e = stacks_get(s, 0);
	CHECK_INT(e->depth, 3);
	CHECK_INT(e->value, 5);
	CHECK_STR(e->frames[2]->name, "bar");
	CHECK_INT(e->frames[2]->kind, FRAME_USER);

	e = stacks_get(s, 1);
	CHECK_INT(e->depth, 4);
	CHECK_STR(e->frames[2]->name, "sys_write");
	CHECK_INT(e->frames[2]->kind, FRAME_KERNEL);
	CHECK_STR(e->frames[3]->name, "vfs_write");
	CHECK_INT(e->frames[3]->kind, FRAME_KERNEL);
	CHECK_INT(e->frames[1]->kind, FRAME_USER);

	e = stacks_get(s, 2);
	CHECK_STR(e->frames[0]->name, "swapper/0");
	CHECK_STR(e->frames[1]->name, "cpu_idle");
	CHECK_INT(e->value, 10);

	e = stacks_get(s, 3);
	CHECK_INT(e->depth, 2);
	CHECK_STR(e->frames[0]->name, "with space");
	CHECK_STR(e->frames[1]->name, "op<< (int)");
	CHECK_INT(e->value, 7);

	/* Only the "_[k]" suffix means kernel, and a bare "_[k]" is a name. */
	e = stacks_get(s, 4);
	CHECK_STR(e->frames[0]->name, "_[k]");
	CHECK_INT(e->frames[0]->kind, FRAME_USER);
	CHECK_STR(e->frames[1]->name, "x_[j]");
	CHECK_INT(e->frames[1]->kind, FRAME_USER);
	stacks_free(s);
}

TEST(folded_read_malformed)
{
	static const struct {
		const char *text;
		size_t line;
	} cases[] = {
		{ "a;b 1\nc;d\ne 3\n", 2 },		/* no value */
		{ "a;b 1\n\n\na;b x1\n", 4 },		/* not a number */
		{ "a 1\nb -3\n", 2 },			/* negative */
		{ "a 99999999999999999999\n", 1 },	/* overflow */
		{ "a 1.5\n", 1 },			/* not an integer */
		{ "a 1\n   5\n", 2 },			/* no stack */
		{ "12\n", 1 },				/* no stack, no blank */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t bad = 0;
		int err;
		struct stacks *s = folded_parse(cases[i].text, &err, &bad);

		CHECK_INT(err, -EINVAL);
		CHECK_INT(bad, cases[i].line);
		stacks_free(s);
	}
	/* bad_line is optional. */
	int err;
	struct stacks *s = folded_parse("x\n", &err, NULL);
	CHECK_INT(err, -EINVAL);
	stacks_free(s);
}

TEST(folded_round_trip)
{
	const char *text =
		"[lost stack] 4\n"
		"bash;main;reader_loop;read 2\n"
		"workload;_start;main;compute;std::vector<int>::push_back(int const&) 38\n"
		"workload;_start;main;io;write;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_write_[k] 88\n"
		"workload;_start;main;io;write;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_write_[k];vfs_write_[k] 9\n"
		"workload;_start;main;sort 61\n";
	/* Same lines, shuffled, one split in two. */
	const char *shuffled =
		"workload;_start;main;sort 61\n"
		"workload;_start;main;io;write;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_write_[k];vfs_write_[k] 9\n"
		"bash;main;reader_loop;read 2\n"
		"workload;_start;main;io;write;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_write_[k] 80\n"
		"[lost stack] 4\n"
		"workload;_start;main;compute;std::vector<int>::push_back(int const&) 38\n"
		"workload;_start;main;io;write;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_write_[k] 8\n";
	int err;
	struct stacks *s = folded_parse(shuffled, &err, NULL);

	CHECK_INT(err, 0);
	stacks_sort(s);
	char *out = folded_str(s);
	CHECK_STR(out, text);

	/* And the written text reads back to the same. */
	struct stacks *s2 = folded_parse(out, &err, NULL);
	CHECK_INT(err, 0);
	stacks_sort(s2);
	char *out2 = folded_str(s2);
	CHECK_STR(out2, text);
	free(out);
	free(out2);
	stacks_free(s);
	stacks_free(s2);
}

TEST(folded_read_long_line)
{
	size_t n = 5000, len = 0;
	char *text = malloc(n * 16 + 32);
	int err;

	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%sframe_%zu%s", i ? ";" : "", i,
				       i >= n - 10 ? "_[k]" : "");
	sprintf(text + len, " 42\n");
	struct stacks *s = folded_parse(text, &err, NULL);
	CHECK_INT(err, 0);
	CHECK_INT(stacks_count(s), 1);
	const struct stack_entry *e = stacks_get(s, 0);
	CHECK_INT(e ? e->depth : 0, n);
	CHECK_INT(e ? e->value : 0, 42);
	CHECK_STR(e ? e->frames[n - 11]->name : NULL, "frame_4989");
	CHECK_INT(e ? (int)e->frames[n - 11]->kind : -1, FRAME_USER);
	CHECK_STR(e ? e->frames[n - 1]->name : NULL, "frame_4999");
	CHECK_INT(e ? (int)e->frames[n - 1]->kind : -1, FRAME_KERNEL);
	free(text);
	stacks_free(s);
}

/* A line sharing a prefix with the one before takes that line's frames
 * up to the prefix: cut at every kind of boundary, the frames read are
 * those of each line alone. */
TEST(folded_read_shared_prefixes)
{
	const char *text =
		"a;bc;d 1\n"
		"a;b 2\n"		/* "a;b" is a prefix of "a;bc": b is new */
		"a;b;c 3\n"		/* all of "a;b" shared, ';' included */
		"a;b 4\n"		/* the same as two lines up */
		"a;b 5\n"		/* the same as the line before */
		"a;b_[k] 6\n"		/* shared up to the suffix */
		"a;b_[k];x 7\n"
		"a;b_[k]x 8\n"		/* a suffix that is not one */
		"ab;c 9\n"
		"a;;c 10\n"		/* an empty frame */
		"a; 11\n";
	int err;
	size_t bad = 0;
	struct stacks *s = folded_parse(text, &err, &bad);

	CHECK_INT(err, 0);
	CHECK_INT(stacks_total(s), 66);
	stacks_sort(s);
	char *out = folded_str(s);
	CHECK_STR(out,
		  "a; 11\n"
		  "a;;c 10\n"
		  "a;b 11\n"
		  "a;b;c 3\n"
		  "a;b_[k] 6\n"
		  "a;b_[k];x 7\n"
		  "a;b_[k]x 8\n"
		  "a;bc;d 1\n"
		  "ab;c 9\n");
	free(out);
	stacks_free(s);
}

TEST(folded_read_huge_counts_and_nul)
{
	int err;
	size_t bad = 0;
	struct stacks *s = folded_parse("a;b 18446744073709551615\na;b 7\nc 1\n", &err, &bad);

	/* the largest count reads; sums saturate */
	CHECK_INT(err, 0);
	CHECK_INT(stacks_count(s), 2);
	CHECK(stacks_get(s, 0)->value == UINT64_MAX);
	CHECK(stacks_total(s) == UINT64_MAX);
	stacks_free(s);

	s = folded_parse("a 1\na 18446744073709551616\n", &err, &bad);
	CHECK_INT(err, -EINVAL);
	CHECK_INT(bad, 2);
	stacks_free(s);

	/* a NUL byte anywhere in a line makes it malformed */
	static const char nul[] = "a;b 1\nc\0d 2\ne 3\n";
	s = folded_parse_n(nul, sizeof(nul) - 1, &err, &bad);
	CHECK_INT(err, -EINVAL);
	CHECK_INT(bad, 2);
	stacks_free(s);
	static const char nul2[] = "a;b 1\nc 2\0\n";
	s = folded_parse_n(nul2, sizeof(nul2) - 1, &err, &bad);
	CHECK_INT(err, -EINVAL);
	CHECK_INT(bad, 2);
	stacks_free(s);
}

/* Input is read in blocks: lines that straddle them, a stack of 200000
 * frames on a line longer than a block, and a last line without a newline
 * all read whole. */
TEST(folded_read_blocks_and_deep_stack)
{
	size_t cap = 8 << 20, len = 0, lines = 0;
	char *text = malloc(cap);
	uint64_t want = 0;
	int err;

	CHECK(text);
	if (!text)
		return;
	for (int i = 0; len < (3 << 20); i++, lines++) {
		len += (size_t)sprintf(text + len, "proc;main;worker_%d;leaf_%d_[k] %d\n", i % 500, i, i + 1);
		want += (uint64_t)i + 1;
	}
	for (int d = 0; d < 200000; d++)
		len += (size_t)sprintf(text + len, "%sdeep_%d", d ? ";" : "", d);
	len += (size_t)sprintf(text + len, " 5\nlast;line 9");
	want += 5 + 9;
	struct stacks *s = folded_parse_n(text, len, &err, NULL);
	CHECK_INT(err, 0);
	CHECK_INT(stacks_count(s), lines + 2);
	CHECK(stacks_total(s) == want);
	const struct stack_entry *e = stacks_get(s, lines);
	CHECK_INT(e ? e->depth : 0, 200000);
	CHECK_STR(e ? e->frames[199999]->name : NULL, "deep_199999");
	CHECK_INT(e ? (int)e->value : 0, 5);
	e = stacks_get(s, lines - 1);
	CHECK_INT(e ? (int)e->frames[3]->kind : -1, FRAME_KERNEL);
	CHECK_INT(e ? (int)e->value : 0, (int)lines);
	e = stacks_get(s, lines + 1);
	CHECK_STR(e ? e->frames[1]->name : NULL, "line");
	free(text);
	stacks_free(s);
}

/* ---- flame graph ------------------------------------------------------------- */

/* all(13) app(13) main(13) a(6) b(4) std::vector<int>(2) sys_read(2, user)
 * sys_read(4, kernel) op(1): 9 frames. */
static struct stacks *small_stacks(void)
{
	struct stacks *s = stacks_new();

	add_path(s, "c:app;main;k:sys_read", 4);
	add_path(s, "c:app;main;a;b", 3);
	add_path(s, "c:app;main;a;std::vector<int>", 2);
	add_path(s, "c:app;main;a;b", 1);
	add_path(s, "c:app;main;sys_read", 2);
	add_path(s, "c:app;main;a;operator&&(\"x\", 'y')", 1);
	return s;
}

TEST(flamegraph_small)
{
	struct stacks *s = small_stacks();
	struct flame_opts o = { .title = "CPU profile: ./a <b> & \"c\"", .subtitle = "99 Hz",
				.unit = "samples", .palette = FLAME_HOT };
	char *svg = svg_str(s, &o);

	CHECK(svg != NULL);
	if (!svg)
		goto out;
	check_xml(svg);
	CHECK(strstr(svg, "<svg ") != NULL);
	CHECK(strstr(svg, "<script>") != NULL);
	CHECK(strstr(svg, "http://") == strstr(svg, "http://www.w3.org/2000/svg")); /* no other URL */
	CHECK(strstr(svg, "CPU profile: ./a &lt;b&gt; &amp; &quot;c&quot;") != NULL);
	CHECK(strstr(svg, "99 Hz") != NULL);
	CHECK(strstr(svg, "Total: 13 samples") != NULL);

	const char *frames = strstr(svg, "<g id=\"frames\">");
	CHECK(frames != NULL);
	if (!frames)
		goto out;
	CHECK_INT(count(frames, "<rect "), 9);
	CHECK_INT(count(frames, "<title>"), 9);
	CHECK(strstr(frames, "<title>all (13 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(frames, "<title>app (13 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(frames, "<title>a (7 samples, 53.85%)</title>") != NULL);
	CHECK(strstr(frames, "<title>b (4 samples, 30.77%)</title>") != NULL);
	CHECK(strstr(frames, "<title>std::vector&lt;int&gt; (2 samples, 15.38%)</title>") != NULL);
	CHECK(strstr(frames, "<title>sys_read (2 samples, 15.38%)</title>") != NULL);
	CHECK(strstr(frames, "<title>sys_read (4 samples, 30.77%)</title>") != NULL);
	CHECK(strstr(frames, "<title>operator&amp;&amp;(&quot;x&quot;, &apos;y&apos;) "
			     "(1 sample, 7.69%)</title>") != NULL);
	CHECK(strstr(svg, "std::vector<int>") == NULL);

	/* Siblings by name (user before kernel for equal names), laid out in
	 * value space from the parent's left edge. */
	const char *a = strstr(frames, "data-x=\"0\" data-v=\"7\" data-d=\"3\"><title>a ");
	const char *su = strstr(frames, "data-x=\"7\" data-v=\"2\" data-d=\"3\"><title>sys_read ");
	const char *sk = strstr(frames, "data-x=\"9\" data-v=\"4\" data-d=\"3\"><title>sys_read ");
	CHECK(a && su && sk && a < su && su < sk);
	const char *b = strstr(frames, "data-x=\"0\" data-v=\"4\" data-d=\"4\"><title>b ");
	const char *op = strstr(frames, "data-x=\"4\" data-v=\"1\" data-d=\"4\"><title>operator");
	const char *vec = strstr(frames, "data-x=\"5\" data-v=\"2\" data-d=\"4\"><title>std::");
	CHECK(b && op && vec && a < b && b < op && op < vec);

	/* The root spans the plot, 1180 px of the default 1200. */
	CHECK(strstr(frames, "width=\"1180.0\"") != NULL);
	/* Kernel and user frames of the same name have different colours. */
	if (su && sk) {
		const char *fu = strstr(su, "fill=\""), *fk = strstr(sk, "fill=\"");
		CHECK(fu && fk && strncmp(fu, fk, 13));
	}
out:
	free(svg);
	stacks_free(s);
}

TEST(flamegraph_deterministic)
{
	static const char *const paths[] = {
		"c:w;main;x;y", "c:w;main;k:z", "c:w;q", "c:w;main;x", "m:[lost stack]", "c:w;main;x;y",
	};
	struct stacks *s1 = stacks_new(), *s2 = stacks_new();
	size_t n = sizeof(paths) / sizeof(paths[0]);

	for (size_t i = 0; i < n; i++) {
		add_path(s1, paths[i], i + 1);
		add_path(s2, paths[n - 1 - i], n - i);
	}
	char *a = svg_str(s1, NULL), *b = svg_str(s2, NULL);
	CHECK(a && b);
	CHECK(a && b && !strcmp(a, b));
	/* The "other" legend entry appears because there is a mark frame. */
	CHECK(a && strstr(a, ">other</text>"));
	free(a);
	free(b);
	stacks_free(s1);
	stacks_free(s2);
}

TEST(flamegraph_time_units)
{
	struct stacks *s = stacks_new();
	struct flame_opts o = { .title = "Off-CPU", .unit = "us", .palette = FLAME_COOL };

	add_path(s, "x", 900);
	add_path(s, "y", 1234);
	add_path(s, "z", 2500000);
	char *svg = svg_str(s, &o);
	CHECK(svg != NULL);
	if (svg) {
		CHECK(strstr(svg, "<title>x (900 us, 0.04%)</title>") != NULL);
		CHECK(strstr(svg, "<title>y (1.23 ms, 0.05%)</title>") != NULL);
		CHECK(strstr(svg, "<title>z (2.50 s, 99.91%)</title>") != NULL);
		CHECK(strstr(svg, "Total: 2.50 s") != NULL);
		CHECK(strstr(svg, "data-unit=\"us\"") != NULL);
		check_xml(svg);
	}
	free(svg);
	stacks_free(s);
}

TEST(flamegraph_omits_tiny_frames)
{
	struct stacks *s = stacks_new();

	add_path(s, "main;big", 1000000);
	add_path(s, "main;tiny;deeper", 1);	/* 0.001 px */
	char *svg = svg_str(s, NULL);
	CHECK(svg != NULL);
	if (svg) {
		const char *frames = strstr(svg, "<g id=\"frames\">");
		CHECK(frames && count(frames, "<rect ") == 3);
		CHECK(strstr(svg, "tiny") == NULL);
		CHECK(strstr(svg, "<title>all (1,000,001 samples, 100.00%)</title>") != NULL);
		CHECK(strstr(svg, "<title>main (1,000,001 samples, 100.00%)</title>") != NULL);
		/* Kept frames are labelled, truncated to fit, or left blank. */
		CHECK(strstr(svg, ">main</text>") != NULL);
	}
	free(svg);
	stacks_free(s);
}

TEST(flamegraph_caps_frames)
{
	struct stacks *s = stacks_new();
	char path[64];

	/* 8000 stacks of 5 frames of their own, each about 0.15 px wide. */
	for (int i = 0; i < 8000; i++) {
		snprintf(path, sizeof(path), "main;f%d;g%d;h%d;i%d;j%d", i, i, i, i, i);
		add_path(s, path, (uint64_t)(i % 50) + 100);
	}
	char *svg = svg_str(s, NULL);
	CHECK(svg != NULL);
	if (svg) {
		int n = count(svg, "<g data-x=");
		CHECK(n > 25000 && n <= 30000);
		CHECK(strstr(svg, "<title>main (") != NULL);
		check_xml(svg);
	}
	free(svg);
	stacks_free(s);
}

TEST(flamegraph_empty_and_bad_names)
{
	struct stacks *s = stacks_new();
	char *svg = svg_str(s, NULL);

	CHECK(svg && strstr(svg, "No samples"));
	if (svg)
		check_xml(svg);
	free(svg);

	/* Invalid UTF-8 and control characters still give well-formed XML. */
	struct frame fr[] = { { "bad\xff\xc3(name", FRAME_USER }, { "ctl\x01\x1f\ttab", FRAME_USER },
			      { "caf\xc3\xa9", FRAME_USER }, { "\xed\xa0\x80surrogate", FRAME_USER } };
	CHECK_INT(stacks_add(s, fr, 4, 5), 0);
	svg = svg_str(s, NULL);
	CHECK(svg != NULL);
	if (svg) {
		check_xml(svg);
		CHECK(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbd(name") != NULL);
		CHECK(strstr(svg, "ctl   tab") != NULL);
		CHECK(strstr(svg, "caf\xc3\xa9") != NULL);
	}
	free(svg);

	struct flame_opts o = { .width = 50 };
	FILE *f = fopen("/dev/null", "w");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(report_flamegraph_write(f, s, &o), -EINVAL);
		fclose(f);
	}
	stacks_free(s);
}

TEST(flamegraph_labels_fit)
{
	struct stacks *s = stacks_new();
	struct flame_opts o = { .title = "t", .width = 300 };

	/* 280 px of plot: 133.3, 133.3 and 13.3 px. */
	add_path(s, "a_very_long_function_name_that_cannot_fit", 10);
	add_path(s, "short", 10);
	add_path(s, "narrow", 1);
	char *svg = svg_str(s, &o);
	CHECK(svg != NULL);
	if (svg) {
		CHECK(strstr(svg, ">a_very_long_func..</text>") != NULL);
		CHECK(strstr(svg, ">short</text>") != NULL);
		CHECK(strstr(svg, "<title>narrow (1 sample, 4.76%)</title>") != NULL);
		CHECK(strstr(svg, ">narrow</text>") == NULL);
		CHECK(strstr(svg, ">na..</text>") == NULL);
	}
	free(svg);
	stacks_free(s);
}

/* Frames keep their address and module: stacks that differ only there
 * stay apart in the model (a writer by address has them), sort next to
 * each other, count once by name, and are one folded line. */
TEST(stacks_keep_locations_and_fold_by_name)
{
	struct stacks *s = stacks_new();
	char *text;
	struct frame_module lib = { .path = "/usr/lib/libx.so", .build_id = { 0xab, 0xcd },
				    .build_id_len = 2 };
	struct frame_module lib2 = lib;	/* equal contents, another object */
	struct frame a[] = {
		{ "prog", FRAME_COMM },
		{ "main", FRAME_USER, 0x1000, &lib, 0x1000 },
		{ "leaf", FRAME_USER, 0x2000, &lib, 0x2000 },
	};
	struct frame b[3], c[] = { { "prog", FRAME_COMM }, { "main", FRAME_USER, 0x1000, &lib, 0x1000 } };
	const struct stack_entry *e0, *e1;

	CHECK(s != NULL);
	if (!s)
		return;
	memcpy(b, a, sizeof(a));
	b[2].addr = b[2].offset = 0x2008;	/* the same function, another pc */
	b[1].module = &lib2;
	CHECK_INT(stacks_add(s, a, 3, 5), 0);
	CHECK_INT(stacks_add(s, b, 3, 2), 0);
	CHECK_INT(stacks_add(s, c, 2, 1), 0);
	CHECK_INT(stacks_add(s, a, 3, 1), 0);	/* merges with the first */
	CHECK_INT(stacks_count(s), 3);
	stacks_sort(s);
	CHECK_INT(stacks_count_named(s), 2);
	e0 = stacks_get(s, 1);
	e1 = stacks_get(s, 2);
	CHECK(e0 && e1 && stacks_same_names(e0, e1));
	if (e0 && e1) {
		CHECK(e0->frames[2]->addr == 0x2000 && e1->frames[2]->addr == 0x2008);
		CHECK_INT(e0->value, 6);
		/* modules are the model's own, one per path and build id */
		CHECK(e0->frames[1]->module != &lib && e0->frames[1]->module == e1->frames[1]->module);
		CHECK_STR(e0->frames[1]->module->path, "/usr/lib/libx.so");
		CHECK_INT(e0->frames[1]->module->build_id_len, 2);
		CHECK(e0->frames[1]->module->build_id[1] == 0xcd);
	}
	text = folded_str(s);
	CHECK_STR(text, "prog;main 1\nprog;main;leaf 8\n");
	free(text);
	stacks_free(s);
}

/* A model by name (a one-shot folded or SVG report): the stacks of two
 * processes of one program, at other addresses (ASLR), other pids and
 * source lines, are one entry as they are added; the folded text is the
 * same as the model by location gives. */
TEST(stacks_names_only_merge_as_added)
{
	struct stacks *s = stacks_new(), *loc = stacks_new();
	struct frame_module lib = { .path = "/usr/lib/libx.so" }, lib2 = { .path = "/tmp/y.so" };
	struct frame_src src = { "x.c", 12, false };
	struct frame a[] = {
		{ "prog", FRAME_COMM, 100 },
		{ "main", FRAME_USER, 0x55001000, &lib, 0x1000, &src },
		{ "leaf", FRAME_KERNEL, 0xffffffff81000000 },
	};
	struct frame b[3];
	size_t small;
	char *text, *text_loc;

	CHECK(s && loc);
	if (!s || !loc)
		return;
	stacks_keep_names_only(s);
	memcpy(b, a, sizeof(a));
	b[0].addr = 200;				/* another pid */
	b[1].addr = 0x7f001000;				/* another load address */
	b[1].module = &lib2;
	b[1].src = NULL;
	CHECK_INT(stacks_add(s, a, 3, 5), 0);
	CHECK_INT(stacks_add(loc, a, 3, 5), 0);
	small = stacks_bytes(s);
	CHECK(small > 0);
	for (unsigned int pid = 200; pid < 1200; pid++) {
		b[0].addr = pid;
		b[1].addr += 0x1000;
		CHECK_INT(stacks_add(s, b, 3, 1), 0);
		CHECK_INT(stacks_add(loc, b, 3, 1), 0);
	}
	CHECK_INT(stacks_count(s), 1);
	CHECK_INT(stacks_count(loc), 1001);
	CHECK_INT(stacks_total(s), 1005);
	/* a thousand processes later the model by name is no larger */
	CHECK_INT(stacks_bytes(s), small);
	CHECK(stacks_bytes(loc) > stacks_bytes(s));
	if (stacks_count(s) == 1) {
		const struct stack_entry *e = stacks_get(s, 0);

		CHECK_INT(e->value, 1005);
		CHECK(!e->frames[0]->addr && !e->frames[1]->addr && !e->frames[1]->module &&
		      !e->frames[1]->src);
		CHECK_INT(e->frames[2]->kind, FRAME_KERNEL);
	}
	stacks_sort(loc);
	text = folded_str(s);
	text_loc = folded_str(loc);
	CHECK_STR(text, "prog;main;leaf_[k] 1005\n");
	CHECK_STR(text, text_loc);
	free(text);
	free(text_loc);
	stacks_free(s);
	stacks_free(loc);
}

/* BEFORE: main;a;x 30, main;a 20, main;b 50; AFTER: x grew (30 -> 70 %),
 * a with it (50 -> 80 %, though its own samples fell), b shrank (50 -> 10 %),
 * c appeared (10 %), main the same. */
TEST(flamegraph_diff_inclusive)
{
	struct stacks *before = stacks_new(), *after = stacks_new();
	struct flame_opts o = { .title = "diff", .before = before };
	char *svg = NULL;

	CHECK(before && after);
	if (!before || !after)
		goto out;
	add_path(before, "main;a;x", 30);
	add_path(before, "main;a", 20);
	add_path(before, "main;b", 50);
	add_path(after, "main;a;x", 70);
	add_path(after, "main;a", 10);
	add_path(after, "main;b", 10);
	add_path(after, "main;c", 10);
	svg = svg_str(after, &o);
	CHECK(svg != NULL);
	if (!svg)
		goto out;
	check_xml(svg);
	/* the largest change (40 points) is fully saturated, each way */
	CHECK(strstr(svg, "<title>x (70 samples, 70.00%, +40.00 points: was 30.00%)</title>"
			  "<rect x=\"10.0\" y=\"80\" width=\"826.0\" height=\"15\" fill=\"#ff2828\"/>"));
	CHECK(strstr(svg, "<title>b (10 samples, 10.00%, -40.00 points: was 50.00%)</title>"
			  "<rect x=\"954.0\" y=\"96\" width=\"118.0\" height=\"15\" fill=\"#2828ff\"/>"));
	/* a caller by its inclusive share: grew 30 points, though its self
	 * share fell (20 -> 10 %), which colouring by leaves would show blue */
	CHECK(strstr(svg, "<title>a (80 samples, 80.00%, +30.00 points: was 50.00%)</title>"
			  "<rect x=\"10.0\" y=\"96\" width=\"944.0\" height=\"15\" fill=\"#ff5959\"/>"));
	CHECK(strstr(svg, "<title>c (10 samples, 10.00%, +10.00 points: new)</title>"
			  "<rect x=\"1072.0\" y=\"96\" width=\"118.0\" height=\"15\" fill=\"#ffbaba\"/>"));
	CHECK(strstr(svg, "<title>main (100 samples, 100.00%, +0.00 points: was 100.00%)</title>"
			  "<rect x=\"10.0\" y=\"112\" width=\"1180.0\" height=\"15\" fill=\"#dcdcdc\"/>"));
	CHECK(strstr(svg, ">grew</text>") && strstr(svg, ">shrank</text>"));
	CHECK(!strstr(svg, ">kernel</text>"));
out:
	free(svg);
	stacks_free(before);
	stacks_free(after);
}

/* An icicle graph merges by leaf: "sys_read" under two callers is one
 * frame at the top, its callers below it, the root row first. */
TEST(flamegraph_inverted)
{
	struct stacks *s = stacks_new();
	struct flame_opts o = { .title = "icicle", .inverted = true };
	char *svg = NULL;

	CHECK(s != NULL);
	if (!s)
		goto out;
	add_path(s, "app;main;a;k:sys_read", 3);
	add_path(s, "app;main;b;k:sys_read", 1);
	add_path(s, "app;main;b", 2);
	svg = svg_str(s, &o);
	CHECK(svg != NULL);
	if (!svg)
		goto out;
	check_xml(svg);
	CHECK(strstr(svg, "data-x=\"0\" data-v=\"6\" data-d=\"0\"><title>all (6 samples, 100.00%)"
			  "</title><rect x=\"10.0\" y=\"80\" "));
	CHECK(strstr(svg, "data-x=\"0\" data-v=\"2\" data-d=\"1\"><title>b (2 samples"));
	CHECK(strstr(svg, "data-x=\"2\" data-v=\"4\" data-d=\"1\"><title>sys_read (4 samples, "
			  "66.67%)</title><rect x=\"403.3\" y=\"96\" "));
	CHECK(strstr(svg, "data-x=\"2\" data-v=\"3\" data-d=\"2\"><title>a (3 samples"));
	CHECK(strstr(svg, "data-x=\"5\" data-v=\"1\" data-d=\"2\"><title>b (1 sample"));
	CHECK(strstr(svg, "data-x=\"2\" data-v=\"3\" data-d=\"4\"><title>app (3 samples, 50.00%)"
			  "</title><rect x=\"403.3\" y=\"144\" "));
	CHECK_INT(count(svg, "<title>sys_read "), 1);
out:
	free(svg);
	stacks_free(s);
}

/* A process frame read from folded text (a user frame) and from pprof (a
 * process frame) is the same frame to a diff; a kernel frame is not a
 * user one. */
TEST(flamegraph_diff_kinds)
{
	struct stacks *before = stacks_new(), *after = stacks_new();
	struct flame_opts o = { .before = before };
	char *svg = NULL;

	CHECK(before && after);
	if (!before || !after)
		goto out;
	add_path(before, "app;f;read", 1);
	add_path(after, "c:app;f;k:read", 1);
	svg = svg_str(after, &o);
	CHECK(svg && strstr(svg, "<title>app (1 sample, 100.00%, +0.00 points: was 100.00%)"));
	CHECK(svg && strstr(svg, "<title>f (1 sample, 100.00%, +0.00 points: was 100.00%)"));
	CHECK(svg && strstr(svg, "<title>read (1 sample, 100.00%, +100.00 points: new)"));
out:
	free(svg);
	stacks_free(before);
	stacks_free(after);
}
