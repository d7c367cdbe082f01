/* Unit tests of the pprof writer and reader: what the writer produced is
 * decoded here by a protobuf walker of the test's own (not the reader's),
 * field by field; then read back by report_pprof_read(). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "test.h"
#include "report/folded.h"
#include "report/pprof.h"
#include "report/stacks.h"

/* A protobuf message: bytes [p, end). */
struct m {
	const unsigned char *p, *end;
};

static uint64_t varint(struct m *m)
{
	uint64_t v = 0;

	for (int s = 0; m->p < m->end && s < 64; s += 7) {
		unsigned char c = *m->p++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* Next field: 0 at the end. */
static int field(struct m *m, unsigned *num, uint64_t *v, struct m *sub)
{
	uint64_t key, len;

	if (m->p >= m->end)
		return 0;
	key = varint(m);
	*num = (unsigned)(key >> 3);
	if ((key & 7) == 0) {
		*v = varint(m);
		sub->p = sub->end = NULL;
		return 1;
	}
	if ((key & 7) != 2)
		return -1;
	len = varint(m);
	if (len > (uint64_t)(m->end - m->p))
		return -1;
	*sub = (struct m){ m->p, m->p + len };
	m->p += len;
	return 1;
}

/* The n-th (0-based) occurrence of field num in m, as a message. */
static struct m nth(struct m m, unsigned num, int n)
{
	struct m sub;
	unsigned f;
	uint64_t v;

	while (field(&m, &f, &v, &sub) > 0)
		if (f == num && sub.p && n-- == 0)
			return sub;
	return (struct m){ NULL, NULL };
}

static int occurrences(struct m m, unsigned num)
{
	struct m sub;
	unsigned f;
	uint64_t v;
	int n = 0;

	while (field(&m, &f, &v, &sub) > 0)
		n += f == num;
	return n;
}

/* A varint field's value (last occurrence), or dflt. */
static uint64_t uint_field(struct m m, unsigned num, uint64_t dflt)
{
	struct m sub;
	unsigned f;
	uint64_t v;

	while (field(&m, &f, &v, &sub) > 0)
		if (f == num && !sub.p)
			dflt = v;
	return dflt;
}

/* Packed repeated varints of field num into out; their count. */
static int packed(struct m m, unsigned num, uint64_t *out, int max)
{
	struct m sub = nth(m, num, 0);
	int n = 0;

	while (sub.p && sub.p < sub.end && n < max)
		out[n++] = varint(&sub);
	return n;
}

/* string_table[i] as a C string (static buffer, two at a time). */
static const char *str(struct m prof, uint64_t i)
{
	static char buf[2][256];
	static int k;
	struct m s = nth(prof, 6, (int)i);
	size_t n = s.p ? (size_t)(s.end - s.p) : 0;

	k ^= 1;
	if (n >= sizeof(buf[k]))
		n = sizeof(buf[k]) - 1;
	memcpy(buf[k], s.p ? (const char *)s.p : "", n);
	buf[k][n] = '\0';
	return s.p ? buf[k] : "(none)";
}

/* The message of field num whose id (field 1) is id. */
static struct m by_id(struct m prof, unsigned num, uint64_t id)
{
	for (int i = 0;; i++) {
		struct m e = nth(prof, num, i);
		if (!e.p || uint_field(e, 1, 0) == id)
			return e;
	}
}

static const struct frame_module app = {
	.path = "/usr/bin/app", .build_id = { 0xab, 0xcd, 0x01 }, .build_id_len = 3,
};
static const struct frame_module kmod = { .path = "[kernel.kallsyms]" };
#define KADDR 0xffffffff81000010ULL

/* Two stacks of process "app" (pid 42) equal by name, apart by the
 * address of their leaf; the root process frame, an unsymbolized frame
 * and a kernel one; and one of another process. */
static struct stacks *sample_stacks(void)
{
	struct stacks *s = stacks_new();
	struct frame a[] = {
		{ "app", FRAME_COMM, 42 },
		{ "main", FRAME_USER, 0x401100, &app, 0x1100 },
		{ "[app+0x1300]", FRAME_USER, 0x401300, &app, 0x1300 },
		{ "sys_read", FRAME_KERNEL, KADDR, &kmod, KADDR },
	};
	struct frame b[] = {
		{ "app", FRAME_COMM, 42 },
		{ "main", FRAME_USER, 0x401100, &app, 0x1100 },
		{ "[app+0x1300]", FRAME_USER, 0x401300, &app, 0x1300 },
		{ "sys_read", FRAME_KERNEL, KADDR + 4, &kmod, KADDR + 4 },
	};
	struct frame c[] = {
		{ "other", FRAME_COMM, 0 },
		{ "[truncated]", FRAME_MARK },
		{ "main", FRAME_USER, 0x401100, &app, 0x1100 },
	};

	if (!s || stacks_add(s, a, 4, 5) || stacks_add(s, b, 4, 2) || stacks_add(s, c, 3, 1)) {
		stacks_free(s);
		return NULL;
	}
	stacks_sort(s);
	return s;
}

/* The pprof of s (gzip), malloc'ed. */
static unsigned char *pprof_bytes(const struct stacks *s, const struct pprof_opts *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = report_pprof_write(f, s, o);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return (unsigned char *)buf;
}

static unsigned char *gunzip(const unsigned char *gz, size_t n, size_t *len)
{
	size_t cap = 1 << 20;
	unsigned char *out = malloc(cap);
	z_stream z = { 0 };

	if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
		free(out);
		out = NULL;
	}
	*len = z.total_out;
	inflateEnd(&z);
	return out;
}

static const struct pprof_opts cpu_opts = {
	.types = { { "samples", "count", 1 }, { "cpu", "nanoseconds", 1000 } }, .ntypes = 2,
	.period_type = "cpu", .period_unit = "nanoseconds", .period = 1000,
	.time_nanos = 1700000000000000000LL, .duration_nanos = 2500000000LL,
	.comments = { "CPU profile: app" },
};

TEST(pprof_write_fields)
{
	struct stacks *s = sample_stacks();
	size_t gzlen = 0, len = 0;
	unsigned char *gz = s ? pprof_bytes(s, &cpu_opts, &gzlen) : NULL;
	unsigned char *raw = gz ? gunzip(gz, gzlen, &len) : NULL;
	struct m prof = { raw, raw + len }, vt, smp, loc, mp, fn, lab;
	uint64_t ids[16], vals[4];
	int n;

	CHECK(raw != NULL);
	if (!raw)
		goto out;
	CHECK(gz[0] == 0x1f && gz[1] == 0x8b);
	CHECK(report_pprof_detect(gz, gzlen));
	CHECK(report_pprof_detect(raw, len));
	CHECK_STR(str(prof, 0), "");
	/* sample types, period, times, comment */
	CHECK_INT(occurrences(prof, 1), 2);
	vt = nth(prof, 1, 1);
	CHECK_STR(str(prof, uint_field(vt, 1, 0)), "cpu");
	CHECK_STR(str(prof, uint_field(vt, 2, 0)), "nanoseconds");
	vt = nth(prof, 11, 0);
	CHECK_STR(str(prof, uint_field(vt, 1, 0)), "cpu");
	CHECK_INT(uint_field(prof, 12, 0), 1000);
	CHECK_INT(uint_field(prof, 9, 0), 1700000000000000000LL);
	CHECK_INT(uint_field(prof, 10, 0), 2500000000LL);
	CHECK_STR(str(prof, uint_field(prof, 13, 0)), "CPU profile: app");

	/* one sample per entry, in order: app's two, then other's */
	CHECK_INT(occurrences(prof, 2), 3);
	smp = nth(prof, 2, 0);
	n = packed(smp, 1, ids, 16);
	CHECK_INT(n, 4);
	CHECK_INT(packed(smp, 2, vals, 4), 2);
	/* sorted: the leaf at KADDR (value 5) first */
	CHECK_INT(vals[0], 5);
	CHECK_INT(vals[1], 5000);
	/* leaf first: the kernel frame, in the kernel's mapping */
	loc = by_id(prof, 4, ids[0]);
	CHECK_INT(uint_field(loc, 3, 0), KADDR);
	mp = by_id(prof, 3, uint_field(loc, 2, 0));
	CHECK_STR(str(prof, uint_field(mp, 5, 0)), "[kernel.kallsyms]");
	CHECK(uint_field(mp, 2, 0) <= KADDR && KADDR < uint_field(mp, 3, 0));
	fn = by_id(prof, 5, uint_field(nth(loc, 4, 0), 1, 0));
	CHECK_STR(str(prof, uint_field(fn, 2, 0)), "sys_read");
	CHECK_STR(str(prof, uint_field(fn, 3, 0)), "sys_read");
	/* the unsymbolized frame: an address in app's mapping, no Line */
	loc = by_id(prof, 4, ids[1]);
	CHECK_INT(uint_field(loc, 3, 0), 0x401300);
	CHECK_INT(occurrences(loc, 4), 0);
	mp = by_id(prof, 3, uint_field(loc, 2, 0));
	CHECK_STR(str(prof, uint_field(mp, 5, 0)), "/usr/bin/app");
	CHECK_STR(str(prof, uint_field(mp, 6, 0)), "abcd01");
	CHECK_INT(uint_field(mp, 2, 0), 0x401000);	/* page-aligned */
	CHECK_INT(uint_field(mp, 3, 0), 0x402000);
	CHECK_INT(uint_field(mp, 4, 0), 0x1000);	/* start maps to file offset 0x1000 */
	CHECK_INT(uint_field(mp, 7, 0), 0);		/* has_functions: one lacks a name */
	/* main, same mapping; the process frame: a Function, no mapping */
	loc = by_id(prof, 4, ids[2]);
	CHECK_INT(uint_field(loc, 2, 0), uint_field(by_id(prof, 4, ids[1]), 2, 1));
	loc = by_id(prof, 4, ids[3]);
	CHECK_INT(uint_field(loc, 2, 0), 0);
	CHECK_INT(uint_field(loc, 3, 0), 0);
	fn = by_id(prof, 5, uint_field(nth(loc, 4, 0), 1, 0));
	CHECK_STR(str(prof, uint_field(fn, 2, 0)), "app");
	/* labels comm and pid */
	CHECK_INT(occurrences(smp, 3), 2);
	lab = nth(smp, 3, 0);
	CHECK_STR(str(prof, uint_field(lab, 1, 0)), "comm");
	CHECK_STR(str(prof, uint_field(lab, 2, 0)), "app");
	lab = nth(smp, 3, 1);
	CHECK_STR(str(prof, uint_field(lab, 1, 0)), "pid");
	CHECK_INT(uint_field(lab, 3, 0), 42);
	/* the second sample shares all but its leaf's location */
	uint64_t ids2[16];
	n = packed(nth(prof, 2, 1), 1, ids2, 16);
	CHECK_INT(n, 4);
	CHECK(ids2[0] != ids[0]);
	CHECK(ids2[1] == ids[1] && ids2[2] == ids[2] && ids2[3] == ids[3]);
	/* one Location per (mapping, address) or synthetic name: 7 */
	CHECK_INT(occurrences(prof, 4), 7);
	/* the third: pid 0 is written */
	lab = nth(nth(prof, 2, 2), 3, 1);
	CHECK_STR(str(prof, uint_field(lab, 1, 0)), "pid");
	CHECK_INT(uint_field(lab, 3, 99), 0);
out:
	free(raw);
	free(gz);
	stacks_free(s);
}

static char *folded_of(const struct stacks *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	report_folded_write(f, s);
	fclose(f);
	return buf;
}

TEST(pprof_read_back)
{
	struct stacks *s = sample_stacks(), *back = stacks_new();
	size_t gzlen = 0;
	unsigned char *gz = s ? pprof_bytes(s, &cpu_opts, &gzlen) : NULL;
	struct pprof_read_info info;
	char *want = NULL, *got = NULL;

	CHECK(gz && back);
	if (!gz || !back)
		goto out;
	CHECK_INT(report_pprof_read(gz, gzlen, back, "samples", &info), 0);
	CHECK_STR(info.unit, "samples");
	CHECK_INT(info.samples, 3);
	stacks_sort(back);
	want = folded_of(s);
	got = folded_of(back);
	/* the same stacks by name and values; the unsymbolized frame named
	 * again from its mapping and address */
	CHECK_STR(got, want);
	CHECK_STR(want, "app;main;[app+0x1300];sys_read_[k] 7\nother;[truncated];main 1\n");
	/* by location too: the process frame with its pid, the kernel's */
	CHECK_INT(stacks_count(back), 3);
	const struct stack_entry *e = stacks_get(back, 0);
	CHECK(e && e->frames[0]->kind == FRAME_COMM && e->frames[0]->addr == 42);
	CHECK(e && e->frames[3]->kind == FRAME_KERNEL && e->frames[3]->addr == KADDR);
	CHECK(e && e->frames[1]->module && !strcmp(e->frames[1]->module->path, "/usr/bin/app") &&
	      e->frames[1]->module->build_id_len == 3 && e->frames[1]->offset == 0x1100);
	/* the default type is the last; an absent one is refused */
	stacks_free(back);
	back = stacks_new();
	CHECK_INT(report_pprof_read(gz, gzlen, back, NULL, &info), 0);
	CHECK_STR(info.unit, "ns");
	CHECK_INT(stacks_total(back), 8000);
	CHECK_INT(report_pprof_read(gz, gzlen, back, "alloc", &info), -EINVAL);
	/* garbage is refused, not crashed on */
	CHECK_INT(report_pprof_read(gz, gzlen / 2, back, NULL, &info), -EINVAL);
	CHECK(!report_pprof_detect("main;a 1\n", 9));
out:
	free(want);
	free(got);
	free(gz);
	stacks_free(s);
	stacks_free(back);
}

/* offcpu's two values: the time (value, in us, written in ns) and the
 * waits it sums (events), with the time as the default type. */
TEST(pprof_events_type)
{
	static const struct pprof_opts off_opts = {
		.types = { { "offcpu", "nanoseconds", 1000 }, { "events", "count", 1, .events = true } },
		.ntypes = 2, .default_type = "offcpu",
	};
	struct frame a[] = { { "app", FRAME_COMM, 42 }, { "main", FRAME_USER, 0x401100, &app, 0x1100 } };
	struct frame b[] = { { "app", FRAME_COMM, 42 }, { "wait", FRAME_USER, 0x401200, &app, 0x1200 } };
	struct stacks *s = stacks_new(), *back = stacks_new();
	size_t gzlen = 0, len = 0;
	unsigned char *gz = NULL, *raw = NULL;
	struct pprof_read_info info;
	struct m prof;
	uint64_t vals[4];

	CHECK(s && back);
	if (!s || !back)
		goto out;
	CHECK_INT(stacks_add_events(s, a, 2, 300, 3), 0);
	CHECK_INT(stacks_add_events(s, a, 2, 100, 1), 0);	/* merged: 400 us in 4 waits */
	CHECK_INT(stacks_add_events(s, b, 2, 7, 2), 0);
	CHECK_INT(stacks_add(s, b, 2, 1), 0);			/* no events given: none added */
	stacks_sort(s);
	CHECK(stacks_get(s, 0)->events == 4 && stacks_get(s, 1)->events == 2);
	gz = pprof_bytes(s, &off_opts, &gzlen);
	raw = gz ? gunzip(gz, gzlen, &len) : NULL;
	CHECK(raw != NULL);
	if (!raw)
		goto out;
	prof = (struct m){ raw, raw + len };
	CHECK_STR(str(prof, uint_field(nth(prof, 1, 1), 1, 0)), "events");
	CHECK_STR(str(prof, uint_field(prof, 14, 0)), "offcpu");
	CHECK_INT(packed(nth(prof, 2, 0), 2, vals, 4), 2);
	CHECK(vals[0] == 400000 && vals[1] == 4);
	CHECK_INT(packed(nth(prof, 2, 1), 2, vals, 4), 2);
	CHECK(vals[0] == 8000 && vals[1] == 2);
	/* read back: the default type is the time, not the last */
	CHECK_INT(report_pprof_read(gz, gzlen, back, NULL, &info), 0);
	CHECK_STR(info.type, "offcpu");
	CHECK_INT(stacks_total(back), 408000);
out:
	free(raw);
	free(gz);
	stacks_free(s);
	stacks_free(back);
}

/* A function with two inlined into it at one address: one Location, its
 * Lines innermost first, Functions with their file, line numbers, and
 * the mapping's flags. */
TEST(pprof_inlined_lines)
{
	static const struct frame_src s_outer = { "/src/a.c", 29, false },
				      s_mid = { "/src/a.c", 24, true },
				      s_in = { "/src/inc.h", 16, true };
	struct frame a[] = {
		{ "app", FRAME_COMM, 42 },
		{ "main", FRAME_USER, 0x401100, &app, 0x1100 },
		{ "outer", FRAME_USER, 0x401200, &app, 0x1200, &s_outer },
		{ "middle", FRAME_USER, 0x401200, &app, 0x1200, &s_mid },
		{ "inner", FRAME_USER, 0x401200, &app, 0x1200, &s_in },
	};
	struct stacks *s = stacks_new(), *back = stacks_new();
	size_t gzlen = 0, len = 0;
	unsigned char *gz = NULL, *raw = NULL;
	struct pprof_read_info info;
	struct m prof, loc, ln, fn, mp;
	uint64_t ids[8];
	char *want = NULL, *got = NULL;

	CHECK(s && back);
	if (!s || !back || stacks_add(s, a, 5, 3))
		goto out;
	gz = pprof_bytes(s, &cpu_opts, &gzlen);
	raw = gz ? gunzip(gz, gzlen, &len) : NULL;
	CHECK(raw != NULL);
	if (!raw)
		goto out;
	prof = (struct m){ raw, raw + len };
	CHECK_INT(packed(nth(prof, 2, 0), 1, ids, 8), 3);	/* leaf, main, app */
	loc = by_id(prof, 4, ids[0]);
	CHECK_INT(uint_field(loc, 3, 0), 0x401200);
	CHECK_INT(occurrences(loc, 4), 3);
	static const char *const names[] = { "inner", "middle", "outer" };
	static const char *const files[] = { "/src/inc.h", "/src/a.c", "/src/a.c" };
	static const unsigned int lines[] = { 16, 24, 29 };
	for (int i = 0; i < 3; i++) {
		ln = nth(loc, 4, i);
		fn = by_id(prof, 5, uint_field(ln, 1, 0));
		CHECK_STR(str(prof, uint_field(fn, 2, 0)), names[i]);
		CHECK_STR(str(prof, uint_field(fn, 4, 0)), files[i]);
		CHECK_INT(uint_field(ln, 2, 0), lines[i]);
	}
	/* main: no source known, one Line, line 0, no file */
	loc = by_id(prof, 4, ids[1]);
	CHECK_INT(occurrences(loc, 4), 1);
	CHECK_INT(uint_field(nth(loc, 4, 0), 2, 0), 0);
	CHECK_INT(uint_field(by_id(prof, 5, uint_field(nth(loc, 4, 0), 1, 0)), 4, 0), 0);
	mp = by_id(prof, 3, uint_field(loc, 2, 0));
	CHECK(uint_field(mp, 7, 0) && uint_field(mp, 8, 0) && uint_field(mp, 9, 0) &&
	      uint_field(mp, 10, 0));
	/* read back: the same frames by name */
	CHECK_INT(report_pprof_read(gz, gzlen, back, "samples", &info), 0);
	stacks_sort(back);
	want = folded_of(s);
	got = folded_of(back);
	CHECK_STR(got, want);
	CHECK_STR(want, "app;main;outer;middle;inner 3\n");
	/* with their source lines, so a pprof written again keeps them */
	const struct stack_entry *e = stacks_get(back, 0);
	CHECK(e && e->depth == 5);
	if (e && e->depth == 5) {
		CHECK(e->frames[1]->src == NULL);
		CHECK(e->frames[2]->src && !e->frames[2]->src->inlined && e->frames[2]->src->line == 29 &&
		      !strcmp(e->frames[2]->src->file, "/src/a.c"));
		CHECK(e->frames[3]->src && e->frames[3]->src->inlined && e->frames[3]->src->line == 24);
		CHECK(e->frames[4]->src && e->frames[4]->src->inlined && e->frames[4]->src->line == 16 &&
		      !strcmp(e->frames[4]->src->file, "/src/inc.h"));
	}
out:
	free(want);
	free(got);
	free(raw);
	free(gz);
	stacks_free(s);
	stacks_free(back);
}
