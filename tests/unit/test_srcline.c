/* Unit tests of src/sym/srcline (source lines and inlined functions from
 * DWARF) and of symbolize_user_src(), against binutils' truth written at
 * build time (tests/fixtures.mk): NAME.a2l holds, for each instruction of
 * outer() in NAME, "@ OFFSET" then `addr2line -f -i`'s "FUNC FILE:LINE"
 * lines, innermost first.  inline-chain is clang's (no .debug_aranges),
 * inline-chain.gcc gcc's. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "sym/srcline.h"
#include "sym/symbolize.h"
#include "sym/symcache.h"
#include "test.h"

#define FIXED_BUILD_ID "\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67"

struct a2l_level {
	char func[64], file[300];
	unsigned int line;
};

struct a2l {
	uint64_t off;
	int n;
	struct a2l_level lv[8];
};

/* The truth of NAME.a2l; returns the number of addresses. */
static int read_a2l(const char *path, struct a2l *out, int max)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char func[64], where[300], *colon;
		struct a2l_level *l;

		if (line[0] == '@') {
			if (++n >= max)
				break;
			out[n] = (struct a2l){ .off = strtoull(line + 2, NULL, 16) };
			continue;
		}
		if (n < 0 || out[n].n >= 8 || sscanf(line, "%63s %299s", func, where) != 2 ||
		    !(colon = strrchr(where, ':')))
			continue;
		l = &out[n].lv[out[n].n++];
		*colon = '\0';
		snprintf(l->func, sizeof(l->func), "%s", func);
		snprintf(l->file, sizeof(l->file), "%s", where);
		l->line = colon[1] == '?' ? 0 : (unsigned int)strtoul(colon + 1, NULL, 10);
	}
	fclose(f);
	return n + 1 < max ? n + 1 : max;
}

static void check_against_a2l(const char *bin, const char *truth, const struct frame_module *mod)
{
	static struct a2l want[256];
	struct srcmap *m = srcmap_new();
	int n = read_a2l(truth, want, 256), inlined = 0;

	CHECK(m);
	CHECK(n > 8);
	for (int i = 0; m && i < n; i++) {
		const struct srcline_chain *c = srcmap_lookup(m, mod, NULL, want[i].off);
		bool ok = c && (int)c->n == want[i].n;

		for (int j = 0; ok && j < want[i].n; j++) {
			const struct srcline_level *l = &c->lv[j];

			/* no function DIE (padding after a ret): the symbolizer
			 * names the outermost by symbol, as addr2line does */
			ok = (l->func ? !strcmp(l->func, want[i].lv[j].func) : j + 1 == (int)c->n) &&
			     l->src.file &&
			     !strcmp(l->src.file, want[i].lv[j].file) &&
			     l->src.line == want[i].lv[j].line && l->src.inlined == (j + 1 < (int)c->n);
		}
		if (!ok)
			test_fail(__FILE__, __LINE__, "%s+0x%" PRIx64 ": %u levels (%s:%u), addr2line %d (%s %s:%u)",
				  bin, want[i].off, c ? c->n : 0, c && c->lv[0].func ? c->lv[0].func : "-",
				  c ? c->lv[0].src.line : 0, want[i].n, want[i].lv[0].func,
				  want[i].lv[0].file, want[i].lv[0].line);
		inlined += want[i].n == 3;
		/* cached: the same chain again */
		CHECK(srcmap_lookup(m, mod, NULL, want[i].off) == c);
	}
	CHECK(inlined > 0);	/* the fixture has inner in middle in outer */
	if (m) {
		CHECK_INT(srcmap_stats(m)->binaries, 1);
		CHECK_INT(srcmap_stats(m)->lookups, n);
	}
	srcmap_free(m);
}

/* Module paths are absolute, as the kernel maps them. */
static const char *fixture_path(const char *name)
{
	static char bufs[2][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 2];

	return realpath(test_fixture(name), b) ? b : test_fixture(name);
}

TEST(srcline_matches_addr2line_clang)
{
	struct frame_module mod = { .path = fixture_path("inline-chain"), .build_id_len = 20 };

	memcpy(mod.build_id, FIXED_BUILD_ID, 20);
	check_against_a2l("inline-chain", test_fixture("inline-chain.a2l"), &mod);
}

TEST(srcline_matches_addr2line_gcc)
{
	struct frame_module mod = { .path = fixture_path("inline-chain.gcc") };

	check_against_a2l("inline-chain.gcc", test_fixture("inline-chain.gcc.a2l"), &mod);
}

TEST(srcline_only_the_right_binary)
{
	struct frame_module wrong = { .path = fixture_path("inline-chain"), .build_id_len = 20 };
	struct frame_module nodwarf = { .path = fixture_path("symbols-nosyms") };
	struct frame_module vdso = { .path = "[vdso]" };
	struct srcmap *m = srcmap_new();
	struct a2l want[4];

	CHECK(m);
	CHECK_INT(read_a2l(test_fixture("inline-chain.a2l"), want, 4), 4);
	if (!m)
		return;
	memset(wrong.build_id, 0x5a, 20);	/* another build of the same path */
	CHECK(srcmap_lookup(m, &wrong, NULL, want[3].off) == NULL);
	CHECK(srcmap_lookup(m, &nodwarf, NULL, 0x1100) == NULL);
	CHECK(srcmap_lookup(m, &vdso, NULL, 0x100) == NULL);
	CHECK(srcmap_lookup(m, NULL, NULL, 0x100) == NULL);
	CHECK_INT(srcmap_stats(m)->binaries, 0);
	CHECK_INT(srcmap_stats(m)->no_dwarf, 3);
	srcmap_free(m);
	srcmap_free(NULL);
}

TEST(symbolize_user_src_inlined_frames)
{
	struct proctab *pt = proctab_new();
	struct symcache *sc = symcache_new();
	struct symbolizer *s = symbolizer_new(pt, sc, NULL, 0);
	struct mapping m = { .start = 0x555555555000, .end = 0x555555556000, .pgoff = 0x1000,
			     .path = fixture_path("inline-chain"),
			     .id = { .build_id = FIXED_BUILD_ID, .build_id_len = 20 } };
	static struct a2l want[256];
	int n = read_a2l(test_fixture("inline-chain.a2l"), want, 256), k = -1;
	uint32_t pid = 0x7ffffff7;
	struct frame out[8];
	uint64_t ip;

	CHECK(pt && sc && s);
	if (!pt || !sc || !s)
		goto out;
	for (int i = 0; i < n && k < 0; i++)
		if (want[i].n == 3 && want[i].off >= 0x1000 && want[i].off < 0x2000)
			k = i;
	CHECK(k >= 0);
	if (k < 0)
		goto out;
	ip = m.start + want[k].off - m.pgoff;
	proctab_exec(pt, pid, 0);
	proctab_mmap(pt, pid, &m, 0);
	/* room for all: the function, then what was inlined, outermost first */
	CHECK_INT(symbolize_user_src(s, pid, 1, &ip, 1, out, 8), 3);
	CHECK_STR(out[0].name, "outer");
	CHECK_STR(out[1].name, "middle");
	CHECK_STR(out[2].name, "inner");
	for (int i = 0; i < 3; i++) {
		CHECK(out[i].addr == ip && out[i].offset == want[k].off && out[i].module == out[0].module);
		CHECK(out[i].src && out[i].src->line == want[k].lv[2 - i].line &&
		      out[i].src->inlined == (i > 0));
		CHECK(out[i].src && out[i].src->file && strstr(out[i].src->file, "inline_chain.c"));
	}
	CHECK_INT(symbolizer_stats(s)->inlined, 2);
	/* room for one more frame only: inner's code counts on middle's call */
	CHECK_INT(symbolize_user_src(s, pid, 1, &ip, 1, out, 2), 2);
	CHECK_STR(out[1].name, "middle");
	CHECK(out[1].src && out[1].src->line == want[k].lv[1].line);
	/* none: the plain symbolizer, with the line of the address */
	CHECK_INT(symbolize_user_src(s, pid, 1, &ip, 1, out, 1), 1);
	CHECK_STR(out[0].name, "outer");
	CHECK_INT(symbolize_user(s, pid, 1, &ip, 1, out), 1);
	CHECK(out[0].src == NULL);
out:
	symbolizer_free(s);
	symcache_free(sc);
	proctab_free(pt);
}

/* Modules are known by content (path and build id), not by the caller's
 * pointer, so the map outlives the symbolizers that ask it; a module not
 * asked for in `idle` trims is closed with its cached addresses, and
 * found again when asked. */
TEST(srcline_trim_closes_idle_modules)
{
	struct frame_module mod = { .path = fixture_path("inline-chain"), .build_id_len = 20 };
	struct frame_module copy, other = { .path = fixture_path("inline-chain.gcc") };
	struct srcmap *m = srcmap_new();
	const struct srcline_chain *c, *o;
	struct a2l want[4], wantg[4];

	CHECK(m);
	if (!m)
		return;
	CHECK_INT(read_a2l(test_fixture("inline-chain.a2l"), want, 4), 4);
	CHECK_INT(read_a2l(test_fixture("inline-chain.gcc.a2l"), wantg, 4), 4);
	memcpy(mod.build_id, FIXED_BUILD_ID, 20);
	copy = mod;
	c = srcmap_lookup(m, &mod, NULL, want[3].off);
	CHECK(c != NULL);
	/* another pointer, the same module: the same chain, no second open */
	CHECK(srcmap_lookup(m, &copy, NULL, want[3].off) == c);
	o = srcmap_lookup(m, &other, NULL, wantg[3].off);
	CHECK(o != NULL);
	CHECK_INT(srcmap_stats(m)->binaries, 2);
	CHECK_INT(srcmap_trim(m, 2), 0);
	/* mod asked for after each trim, other not: idle for two */
	CHECK(srcmap_lookup(m, &mod, NULL, want[3].off) == c);
	CHECK_INT(srcmap_trim(m, 2), 0);
	CHECK(srcmap_lookup(m, &mod, NULL, want[3].off) == c);
	CHECK_INT(srcmap_trim(m, 2), 1);
	CHECK_INT(srcmap_stats(m)->evicted, 1);
	/* asked again: opened again, the same answer */
	o = srcmap_lookup(m, &other, NULL, wantg[3].off);
	CHECK(o != NULL);
	CHECK_INT(srcmap_stats(m)->binaries, 3);
	CHECK(srcmap_lookup(m, &mod, NULL, want[3].off) == c);
	srcmap_free(m);
}
