/* lang/flame: maps as the runtime decodes them -> the stacks model ->
 * folded text; which map a program's -o FILE.svg draws. */
#include <stdlib.h>
#include "test.h"
#include "lang/flame.h"
#include "lang/lang.h"
#include "report/folded.h"

#define NFR(a) (sizeof(a) / sizeof((a)[0]))

static struct lang_prog *flame_prog(const char *src)
{
	struct lang_prog *p = lang_prog_new("t.bt", src, strlen(src));
	struct lang_check_opts o = { 0 };

	if (p && (lang_parse(p) || lang_check(p, &o))) {
		test_fail(__FILE__, __LINE__, "%s: %s", src, lang_error(p, 0));
		lang_prog_free(p);
		return NULL;
	}
	return p;
}

/* The folded text of fl's stacks. */
static char *flame_folded(struct lang_flame *fl)
{
	char *mem = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&mem, &n);

	if (f) {
		CHECK_INT(lang_flame_write(fl, f), 0);
		fclose(f);
	}
	return mem;
}

static const struct lang_frame kfr[] = { { 0xffffffff81001000ull, "read_zero", 12, NULL },
					 { 0xffffffff81002000ull, "vfs_read", 40, NULL },
					 { 0xffffffff81003000ull, "do_syscall_64", 9, NULL } };
static const struct lang_frame ufr[] = { { 0x401010, "leaf", 3, "/bin/w" },
					 { 0x401020, NULL, 0, NULL },
					 { 0x401030, "main", 7, "/bin/w" } };

TEST(lang_flame_comm_pid_ustack_kstack)
{
	struct lang_prog *p = flame_prog("profile:hz:99 { @[kstack, comm, ustack, pid] = count(); "
					 "@other[comm] = count(); }");
	char why[200] = "";
	struct lang_flame *fl = p ? lang_flame_new(p, "x.folded", REPORT_FOLDED, NULL, why,
						     sizeof(why)) : NULL;
	struct lang_val k1[4] = {
		{ .kind = LANG_K_STACK, .frames = kfr, .nframes = 3 },
		{ .kind = LANG_K_STR, .s = "w", .len = 16 },
		{ .kind = LANG_K_STACK, .frames = ufr, .nframes = 3, .user = true },
		{ .kind = LANG_K_INT, .i = 42 },
	};
	struct lang_val k2[4] = {	/* in user space: no kernel frames */
		{ .kind = LANG_K_STACK },
		{ .kind = LANG_K_STR, .s = "w", .len = 16 },
		{ .kind = LANG_K_STACK, .frames = ufr + 2, .nframes = 1, .user = true },
		{ .kind = LANG_K_INT, .i = 42 },
	};
	struct lang_val key1 = { .kind = LANG_K_TUPLE, .elems = k1, .nelems = 4 };
	struct lang_val key2 = { .kind = LANG_K_TUPLE, .elems = k2, .nelems = 4 };
	struct lang_map_entry ents[] = {
		{ &key1, { .kind = LANG_K_COUNT, .i = 5 } },
		{ &key2, { .kind = LANG_K_COUNT, .i = 2 } },
		{ &key1, { .kind = LANG_K_COUNT, .i = 1 } },	/* the same stack: merged */
	};
	char *out;

	if (!fl) {
		test_fail(__FILE__, __LINE__, "lang_flame_new: %s", why);
		lang_prog_free(p);
		return;
	}
	CHECK_STR(lang_flame_map(fl), "@");
	CHECK_INT(lang_flame_add(fl, ents, 3), 0);
	out = flame_folded(fl);
	CHECK_STR(out, "w;[pid 42];main 2\n"
		       "w;[pid 42];main;0x401020;leaf;do_syscall_64_[k];vfs_read_[k];read_zero_[k] 6\n");
	CHECK_INT(lang_flame_dropped(fl), 0);
	free(out);
	lang_flame_free(fl);
	lang_prog_free(p);
}

TEST(lang_flame_sum_of_time_and_negative_values)
{
	struct lang_prog *p = flame_prog("tracepoint:a:b { @s[tid] = nsecs; } "
					 "tracepoint:a:c { @t[kstack(2), probe] = sum(nsecs - @s[tid]); }");
	char why[200] = "";
	struct lang_flame *fl = p ? lang_flame_new(p, "x.folded", REPORT_FOLDED, NULL, why,
						     sizeof(why)) : NULL;
	struct lang_val k[2] = { { .kind = LANG_K_STACK, .frames = kfr, .nframes = 2 },
				 { .kind = LANG_K_STR, .s = "tracepoint:a:c", .len = 64 } };
	struct lang_val key = { .kind = LANG_K_TUPLE, .elems = k, .nelems = 2 };
	struct lang_map_entry ents[] = {
		{ &key, { .kind = LANG_K_SUM, .is_signed = true, .i = 3000 } },
		{ &key, { .kind = LANG_K_SUM, .is_signed = true, .i = -5 } },
	};
	char *out;

	if (!fl) {
		test_fail(__FILE__, __LINE__, "lang_flame_new: %s", why);
		lang_prog_free(p);
		return;
	}
	CHECK_STR(lang_flame_map(fl), "@t");
	CHECK_INT(lang_flame_add(fl, ents, 2), 0);
	out = flame_folded(fl);
	/* other keys are root frames with their text */
	CHECK_STR(out, "tracepoint:a:c;vfs_read_[k];read_zero_[k] 3000\n");
	CHECK_INT(lang_flame_dropped(fl), 1);
	free(out);
	lang_flame_free(fl);
	lang_prog_free(p);
}

TEST(lang_flame_which_map)
{
	static const struct { const char *src, *map, *why; } c[] = {
		{ "BEGIN { @x = 1; }", NULL,
		  "x.svg: no map of the program is keyed by a stack (a flame graph draws one: "
		  "@[kstack] = count())" },
		{ "profile:hz:9 { @a[kstack] = count(); @b[ustack] = count(); }", NULL,
		  "x.svg: 2 maps are keyed by stacks (@a, @b): name one with --map" },
		{ "profile:hz:9 { @a[kstack] = count(); @b[ustack] = count(); }", "@b", NULL },
		{ "profile:hz:9 { @a[kstack] = count(); @b[ustack] = count(); }", "a", NULL },
		{ "profile:hz:9 { @a[kstack] = count(); }", "@c", "x.svg: the program has no map @c" },
		{ "profile:hz:9 { @a[kstack] = count(); @n[cpu] = count(); }", "@n",
		  "x.svg: @n is not keyed by a stack (kstack or ustack)" },
		{ "profile:hz:9 { @a[kstack] = comm; }", NULL,
		  "x.svg: @a holds string values: a flame graph needs numbers (count(), sum() ...)" },
	};

	for (size_t i = 0; i < NFR(c); i++) {
		struct lang_prog *p = flame_prog(c[i].src);
		char why[200] = "";
		struct lang_flame *fl = p ? lang_flame_new(p, "x.svg", REPORT_SVG, c[i].map, why,
							     sizeof(why)) : NULL;

		if (c[i].why) {
			CHECK(!fl);
			CHECK_STR(why, c[i].why);
		} else if (!fl) {
			test_fail(__FILE__, __LINE__, "%s: %s", c[i].src, why);
		}
		lang_flame_free(fl);
		lang_prog_free(p);
	}
}

TEST(lang_flame_paths)
{
	enum report_format f;

	CHECK(lang_flame_path("cpu.svg", &f) && f == REPORT_SVG);
	CHECK(lang_flame_path("a/cpu.folded", &f) && f == REPORT_FOLDED);
	CHECK(lang_flame_path("cpu.pb.gz", &f) && f == REPORT_PPROF);
	CHECK(!lang_flame_path("out.txt", &f));
	CHECK(!lang_flame_path(".folded", &f));
	CHECK(!lang_flame_path(NULL, &f));
}
