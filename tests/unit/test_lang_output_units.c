/* lang/output piece by piece: bucket indexes (what codegen emits in BPF),
 * labels, printf conversions, stacks, timestamps, messages, sorting
 * edges, and every JSON line parsed. */
#include <errno.h>
#include <time.h>
#include "lang_out_test.h"

/* ---- a JSON checker: one value, then only the line's end -------------- */

static const char *js_value(const char *p, int depth);

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *js_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p > s ? p : NULL;
}

static const char *js_value(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = js_ws(p);
	if (*p == '"')
		return js_string(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = js_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = js_string(js_ws(p));
				if (!p)
					return NULL;
				p = js_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = js_value(p, depth + 1);
			if (!p)
				return NULL;
			p = js_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return js_number(p);
}

/* Every line of text is one JSON object (no blank lines). */
static bool json_lines_ok(const char *text, char *why, size_t size)
{
	const char *line = text;
	int n = 1;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strndup(line, len);
		const char *end = copy[0] == '{' ? js_value(copy, 0) : NULL;

		if (!end || *js_ws(end)) {
			snprintf(why, size, "line %d is not one JSON object: %s", n, copy);
			free(copy);
			return false;
		}
		free(copy);
		if (!nl) {
			snprintf(why, size, "line %d has no newline", n);
			return false;
		}
		line = nl + 1;
		n++;
	}
	return true;
}

TEST(lang_out_json_checker_rejects)
{
	char why[256];

	CHECK(json_lines_ok("{\"a\": [1, -2, \"x\\n\"]}\n", why, sizeof(why)));
	CHECK(!json_lines_ok("{\"a\": \"tab\there\"}\n", why, sizeof(why)));
	CHECK(!json_lines_ok("{\"a\": 1}\n\n", why, sizeof(why)));
	CHECK(!json_lines_ok("{\"a\": \n", why, sizeof(why)));
	CHECK(!json_lines_ok("{\"a\": 1}", why, sizeof(why)));
	CHECK(!json_lines_ok("{\"a\": \"\\x01\"}\n", why, sizeof(why)));
}

/* ---- hist buckets ------------------------------------------------------ */

/* bpftrace 0.17's hist (k = 0) for v < 2^32, written the plain way. */
static unsigned ref_log2(int64_t v)
{
	unsigned l = 0;

	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	while (v >>= 1)
		l++;
	return l + 2;
}

TEST(lang_out_hist_index_k0_table)
{
	static const struct {
		int64_t v;
		unsigned idx;
	} t[] = {
		{ INT64_MIN, 0 }, { -100, 0 }, { -1, 0 }, { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 3 },
		{ 4, 4 }, { 7, 4 }, { 8, 5 }, { 1023, 11 }, { 1024, 12 }, { 1048575, 21 },
		{ 1048576, 22 }, { 2147483647, 32 }, { 2147483648LL, 33 }, { 4294967295LL, 33 },
		{ 4294967296LL, 34 }, { 1LL << 40, 42 }, { 1LL << 62, 64 }, { INT64_MAX, 64 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (lang_hist_index(t[i].v, 0) != t[i].idx)
			test_fail(__FILE__, __LINE__, "hist(%lld) is bucket %u, want %u",
				  (long long)t[i].v, lang_hist_index(t[i].v, 0), t[i].idx);
}

TEST(lang_out_hist_index_k0_matches_log2)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 100000; i++) {
		int64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = (int64_t)(x >> (x & 63));
		if (lang_hist_index(v, 0) != ref_log2(v)) {
			test_fail(__FILE__, __LINE__, "hist(%lld): %u, want %u", (long long)v,
				  lang_hist_index(v, 0), ref_log2(v));
			return;
		}
	}
}

TEST(lang_out_hist_index_k_table)
{
	static const struct {
		int64_t v;
		unsigned k, idx;
	} t[] = {
		{ -1, 1, 0 }, { 0, 1, 1 }, { 1, 1, 2 }, { 2, 1, 3 }, { 3, 1, 4 }, { 4, 1, 5 },
		{ 5, 1, 5 }, { 6, 1, 6 }, { 7, 1, 6 }, { 8, 1, 7 }, { 12, 1, 8 }, { 0, 2, 1 },
		{ 3, 2, 4 }, { 4, 2, 5 }, { 7, 2, 8 }, { 8, 2, 9 }, { 9, 2, 9 }, { 10, 2, 10 },
		{ 14, 2, 12 }, { 16, 2, 13 }, { 31, 5, 32 }, { 32, 5, 33 }, { 64, 5, 65 },
		{ 66, 5, 66 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (lang_hist_index(t[i].v, t[i].k) != t[i].idx)
			test_fail(__FILE__, __LINE__, "hist(%lld, %u) is bucket %u, want %u",
				  (long long)t[i].v, t[i].k, lang_hist_index(t[i].v, t[i].k),
				  t[i].idx);
}

/* Every k: buckets never go back, move by at most one, powers of two
 * start a new group of 2^k, and the last fits the bucket count. */
TEST(lang_out_hist_index_k_properties)
{
	for (unsigned k = 0; k <= LANG_HIST_MAXK; k++) {
		unsigned prev = lang_hist_index(0, k);

		for (int64_t v = 1; v < 5000; v++) {
			unsigned idx = lang_hist_index(v, k);

			if (idx < prev || idx > prev + 1) {
				test_fail(__FILE__, __LINE__, "k=%u: hist(%lld)=%u after %u", k,
					  (long long)v, idx, prev);
				break;
			}
			prev = idx;
		}
		for (unsigned j = k; j < 63; j++)
			CHECK_INT(lang_hist_index((int64_t)1 << j, k), ((j - k + 1) << k) + 1);
		CHECK(lang_hist_index(INT64_MAX, k) < LANG_HIST_NBUCKETS(k));
		CHECK_INT(lang_hist_index(INT64_MAX, k) + 1, LANG_HIST_NBUCKETS(k));
		CHECK_INT(lang_hist_index(-1, k), 0);
	}
	CHECK_INT(LANG_HIST_NBUCKETS(0), 65);
	CHECK_INT(lang_hist_index(5, 9), lang_hist_index(5, LANG_HIST_MAXK));
}

TEST(lang_out_lhist_index_table)
{
	static const struct {
		int64_t v, min, max, step;
		unsigned idx;
	} t[] = {
		{ -5, 0, 100, 10, 0 },  { 0, 0, 100, 10, 1 },	 { 9, 0, 100, 10, 1 },
		{ 10, 0, 100, 10, 2 },	{ 99, 0, 100, 10, 10 },	 { 100, 0, 100, 10, 11 },
		{ 1000, 0, 100, 10, 11 }, { INT64_MAX, 0, 100, 10, 11 }, { INT64_MIN, 0, 100, 10, 0 },
		{ 4, 5, 20, 3, 0 },	{ 5, 5, 20, 3, 1 },	 { 7, 5, 20, 3, 1 },
		{ 8, 5, 20, 3, 2 },	{ 19, 5, 20, 3, 5 },	 { 20, 5, 20, 3, 6 },
		{ 21, 5, 20, 3, 6 },	{ 5, 0, 10, 1, 6 },	 { 10, 0, 10, 1, 11 },
		{ 3, 0, 4194304, 1048576, 1 }, { 4194304, 0, 4194304, 1048576, 5 },
		/* (max - min) not a multiple of step: the top bucket is short */
		{ 9, 0, 10, 4, 3 },	{ 10, 0, 10, 4, 3 },	 { 11, 0, 10, 4, 3 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (lang_lhist_index(t[i].v, t[i].min, t[i].max, t[i].step) != t[i].idx)
			test_fail(__FILE__, __LINE__, "lhist(%lld, %lld, %lld, %lld) is %u, want %u",
				  (long long)t[i].v, (long long)t[i].min, (long long)t[i].max,
				  (long long)t[i].step,
				  lang_lhist_index(t[i].v, t[i].min, t[i].max, t[i].step), t[i].idx);
	CHECK_INT(lang_lhist_index(5, 0, 10, 0), 0);
	CHECK_INT(LANG_LHIST_NBUCKETS(0, 100, 10), 12);
}

/* ---- labels (through the text of a one-value hist) ----------------------- */

static struct lang_val g_val;
static uint32_t g_div;

static void print_gval(struct lang_out *o)
{
	struct lang_map_entry e = { .value = g_val };

	lang_out_map(o, "@h", &e, 1, 0, g_div);
}

/* The label of the last line of @h = hist(v, k). */
static const char *hist_label_of(int64_t v, unsigned k)
{
	static char label[32];
	const char *t, *end;

	g_val = vhist_k(k, &v, 1);
	g_div = 0;
	t = lo_text(print_gval, LANG_OUT_TEXT);
	end = strrchr(t, '|');	/* the last bar's end */
	while (end > t && end[-1] != '\n')
		end--;
	snprintf(label, sizeof(label), "%.*s", (int)strcspn(end, " "), end);
	if (!strncmp(end, "(..., 0)", 8))
		snprintf(label, sizeof(label), "(..., 0)");
	else if (end[0] == '[')
		snprintf(label, sizeof(label), "%.*s", (int)(strchr(end, ')') ? strchr(end, ')') - end + 1 :
							   (long)strcspn(end, " ")),
			 end);
	lo_reset();
	return label;
}

TEST(lang_out_hist_labels)
{
	static const struct {
		int64_t v;
		unsigned k;
		const char *label;
	} t[] = {
		{ -3, 0, "(..., 0)" },	{ 0, 0, "[0]" },	     { 1, 0, "[1]" },
		{ 2, 0, "[2, 4)" },	{ 5, 0, "[4, 8)" },	     { 700, 0, "[512, 1K)" },
		{ 1500, 0, "[1K, 2K)" }, { 1 << 20, 0, "[1M, 2M)" }, { 1LL << 30, 0, "[1G, 2G)" },
		{ 1LL << 31, 0, "[2G, 4G)" }, { 1LL << 40, 0, "[1T, 2T)" },
		{ 1LL << 52, 0, "[4P, 8P)" }, { INT64_MAX, 0, "[4E, 8E)" },
		{ 2, 1, "[2]" },	{ 3, 1, "[3]" },	     { 4, 1, "[4, 6)" },
		{ 7, 1, "[6, 8)" },	{ 8, 1, "[8, 12)" },	     { 13, 2, "[12, 14)" },
		{ 1030, 1, "[1024, 1536)" }, { 1600, 1, "[1536, 2K)" }, { 5, 2, "[5]" }, { 8, 2, "[8, 10)" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = hist_label_of(t[i].v, t[i].k);

		if (strcmp(got, t[i].label))
			test_fail(__FILE__, __LINE__, "hist(%lld, %u): label \"%s\", want \"%s\"",
				  (long long)t[i].v, t[i].k, got, t[i].label);
	}
}

TEST(lang_out_hist_json_bounds_k)
{
	int64_t v = 13;

	g_val = vhist_k(2, &v, 1);
	g_div = 0;
	CHECK_STR(lo_text(print_gval, LANG_OUT_JSON),
		  "{\"type\": \"hist\", \"data\": {\"@h\": [{\"min\": 12, \"max\": 13, \"count\": 1}]}}\n");
	v = 3;
	g_val = vhist_k(2, &v, 1);
	CHECK_STR(lo_text(print_gval, LANG_OUT_JSON),
		  "{\"type\": \"hist\", \"data\": {\"@h\": [{\"min\": 3, \"max\": 3, \"count\": 1}]}}\n");
	lo_reset();
}

TEST(lang_out_lhist_labels)
{
	g_val = VLHIST(0, 3145728, 1048576, 1048576);
	g_div = 0;
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	g_val = VLHIST(1000, 1100, 24, 1050);
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n[1048, 1072)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	g_val = VLHIST(0, 2048, 512, 1536);
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n[1536, 2K)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	g_val = VLHIST(10, 20, 5, 3);
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n(..., 10)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	CHECK_STR(lo_text(print_gval, LANG_OUT_JSON),
		  "{\"type\": \"hist\", \"data\": {\"@h\": [{\"max\": 9, \"count\": 1}]}}\n");
	lo_reset();
}

TEST(lang_out_hist_bar_widths)
{
	/* bars scale in float and truncate: 1 of 3 is 17 '@', 2 of 3 is 34 */
	g_val = VHIST(1, 2, 2, 4, 4, 4);
	g_div = 0;
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n"
		  "[1]                    1 |@@@@@@@@@@@@@@@@@                                   |\n"
		  "[2, 4)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n"
		  "[4, 8)                 3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	/* div divides the counts shown, not the bars */
	g_div = 2;
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n"
		  "[1]                    0 |@@@@@@@@@@@@@@@@@                                   |\n"
		  "[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n"
		  "[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	lo_reset();
}

TEST(lang_out_hist_huge_counts)
{
	uint64_t b[LANG_HIST_NBUCKETS(0)] = { 0 };

	b[2] = UINT64_MAX;
	b[3] = 1;
	g_val = (struct lang_val){ .kind = LANG_K_HIST, .buckets = b, .nbuckets = LANG_HIST_NBUCKETS(0) };
	g_div = 0;
	CHECK_STR(lo_text(print_gval, LANG_OUT_TEXT),
		  "@h: \n"
		  "[1]             18446744073709551615 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		  "[2, 4)                 1 |                                                    |\n\n");
}

/* ---- printf ------------------------------------------------------------ */

struct pf_case {
	const char *fmt;
	struct lang_val args[4];
	size_t nargs;
	const char *want;
};

static const char *printf_of(const struct pf_case *c, enum lang_out_format f)
{
	static char out[4][1024];
	static int next;
	char *mem = NULL, *res = out[next++ % 4];
	size_t len = 0;
	FILE *fp = open_memstream(&mem, &len);
	struct lang_out *o = lang_out_new(fp, f);

	lang_out_printf(o, c->fmt, strlen(c->fmt), c->args, c->nargs);
	lang_out_free(o);
	fclose(fp);
	snprintf(res, 1024, "%s", mem ? mem : "");
	free(mem);
	return res;
}

#define PF1(f, a, w) { f, { a }, 1, w }
#define PF2(f, a, b, w) { f, { a, b }, 2, w }

static void printf_table(const char *file, int line, const struct pf_case *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = printf_of(&t[i], LANG_OUT_TEXT);

		if (strcmp(got, t[i].want))
			test_fail(file, line, "printf(\"%s\"): \"%s\", want \"%s\"", t[i].fmt, got,
				  t[i].want);
	}
}

TEST(lang_out_printf_int_conversions)
{
	const struct pf_case t[] = {
		PF1("%d", vi(-5), "-5"),
		PF1("%i", vi(-5), "-5"),
		PF1("%d", vi(1LL << 32), "0"),
		PF1("%d", vi(0x80000000LL), "-2147483648"),
		PF1("%u", vi(-2), "4294967294"),
		PF1("%ld", vi(INT64_MIN), "-9223372036854775808"),
		PF1("%lld", vi(INT64_MAX), "9223372036854775807"),
		PF1("%lu", vu(UINT64_MAX), "18446744073709551615"),
		PF1("%zu", vi(-1), "18446744073709551615"),
		PF1("%jd", vi(-7), "-7"),
		PF1("%td", vi(-8), "-8"),
		PF1("%x", vi(0xdeadbeefcafeLL), "beefcafe"),
		PF1("%lx", vi(0xdeadbeefcafeLL), "deadbeefcafe"),
		PF1("%X", vi(0xabc), "ABC"),
		PF1("%o", vi(64), "100"),
		PF1("%hd", vi(32768), "-32768"),
		PF1("%hu", vi(65537), "1"),
		PF1("%hhd", vi(255), "-1"),
		PF1("%hhu", vi(257), "1"),
		PF1("%hhx", vi(0x1ff), "ff"),
		PF1("%c", vi('z'), "z"),
		PF1("%c", vi(0x141), "A"),
		PF1("%p", vi(0), "(nil)"),
		PF1("%p", vi(0xffffffff81000000LL), "0xffffffff81000000"),
		PF1("%d", vu(UINT64_MAX), "-1"),
	};

	printf_table(__FILE__, __LINE__, t, sizeof(t) / sizeof(t[0]));
}

TEST(lang_out_printf_flags_width_precision)
{
	const struct pf_case t[] = {
		PF1("[%5d]", vi(-42), "[  -42]"),
		PF1("[%-5d]", vi(-42), "[-42  ]"),
		PF1("[%05d]", vi(-42), "[-0042]"),
		PF1("[%+d]", vi(42), "[+42]"),
		PF1("[% d]", vi(42), "[ 42]"),
		PF1("[%#x]", vi(255), "[0xff]"),
		PF1("[%#o]", vi(8), "[010]"),
		PF1("[%.0d]", vi(0), "[]"),
		PF1("[%8.3d]", vi(5), "[     005]"),
		PF1("[%-+6ld]", vi(7), "[+7    ]"),
		PF1("[%020lu]", vu(UINT64_MAX), "[18446744073709551615]"),
		PF1("[%021lu]", vu(UINT64_MAX), "[018446744073709551615]"),
		PF1("[%3c]", vi('x'), "[  x]"),
		PF1("[%-3c]", vi('x'), "[x  ]"),
		PF1("[%20p]", vi(4096), "[              0x1000]"),
	};

	printf_table(__FILE__, __LINE__, t, sizeof(t) / sizeof(t[0]));
}

TEST(lang_out_printf_strings)
{
	const struct pf_case t[] = {
		PF1("%s", vs("abc"), "abc"),
		PF1("[%6s]", vs("abc"), "[   abc]"),
		PF1("[%-6s]", vs("abc"), "[abc   ]"),
		PF1("[%.2s]", vs("abc"), "[ab]"),
		PF1("[%6.2s]", vs("abc"), "[    ab]"),
		PF1("[%.0s]", vs("abc"), "[]"),
		PF1("[%s]", vstrn("ab\0cd", 5), "[ab]"),
		PF1("[%s]", vstrn("abcdef", 3), "[abc]"),
		PF1("[%s]", vs(""), "[]"),
		PF1("%s", vi(-12), "-12"),
		PF1("%s", vu(UINT64_MAX), "18446744073709551615"),
		PF1("%s|", vtup(2, vi(1), vs("a")), "(1, a)|"),
		PF1("%d", vs("str"), "str"),
		PF1("%s", ((struct lang_val){ .kind = LANG_K_KSYM, .s = "vfs_read", .len = 8 }),
		    "vfs_read"),
		PF1("%s", ((struct lang_val){ .kind = LANG_K_USYM, .s = "main+4", .len = 6 }), "main+4"),
	};

	printf_table(__FILE__, __LINE__, t, sizeof(t) / sizeof(t[0]));
}

TEST(lang_out_printf_buffers)
{
	const struct pf_case t[] = {
		PF1("%r", vbuf("a\tb", 3), "a\\x09b"),
		PF1("%s", vbuf("a\tb", 3), "a\\x09b"),
		PF1("%rx", vbuf("a\tb", 3), "\\x61\\x09\\x62"),
		PF1("%rh", vbuf("a\tb", 3), "61 09 62"),
		PF1("%rh", vbuf("", 0), ""),
		PF1("[%r]", vbuf("\0\xff", 2), "[\\x00\\xff]"),
		PF1("%r!", vbuf("~ ", 2), "~ !"),
	};

	printf_table(__FILE__, __LINE__, t, sizeof(t) / sizeof(t[0]));
}

TEST(lang_out_printf_percent_and_pieces)
{
	const struct pf_case t[] = {
		{ "100%%", { { 0 } }, 0, "100%%" },
		{ "plain\n", { { 0 } }, 0, "plain\n" },
		{ "", { { 0 } }, 0, "" },
		PF1("%%%d", vi(1), "%1"),
		PF1("%d%%", vi(1), "1%%"),
		PF2("%d%%%d", vi(1), vi(2), "1%2"),
		PF1("50%% of %d", vi(8), "50% of 8"),
		/* a NUL from %c ends its piece, as bpftrace writes it as a C string */
		PF2("a%cb%d", vi(0), vi(5), "ab5"),
		PF2("x%cy%dz", vi(0), vi(5), "xy5z"),
		/* a conversion this printer does not know is copied, its argument used */
		PF2("%k|%d", vi(1), vi(2), "%k|2"),
		/* more conversions than arguments: the rest is copied */
		PF1("%d %d", vi(1), "1 %d"),
		PF1("trailing %", vi(1), "trailing %"),
	};

	printf_table(__FILE__, __LINE__, t, sizeof(t) / sizeof(t[0]));
}

TEST(lang_out_printf_json)
{
	const struct pf_case t[] = {
		PF1("%s\n", vs("q\"\\"), "{\"type\": \"printf\", \"data\": \"q\\\"\\\\\\n\"}\n"),
		PF1("%d", vi(3), "{\"type\": \"printf\", \"data\": \"3\"}\n"),
		PF1("%s", vs("\x1b[0m"), "{\"type\": \"printf\", \"data\": \"\\u001b[0m\"}\n"),
		PF1("%s", vs("\xff"), "{\"type\": \"printf\", \"data\": \"\\u00ff\"}\n"),
		PF1("%s", vs("caf\xc3\xa9"), "{\"type\": \"printf\", \"data\": \"caf\xc3\xa9\"}\n"),
		{ "", { { 0 } }, 0, "{\"type\": \"printf\", \"data\": \"\"}\n" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_STR(printf_of(&t[i], LANG_OUT_JSON), t[i].want);
}

TEST(lang_out_printf_long_string)
{
	char big[5000];
	struct pf_case c = { "<%s>", { { 0 } }, 1, NULL };
	const char *got;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	c.args[0] = vs(big);
	got = printf_of(&c, LANG_OUT_TEXT);
	/* printf_of keeps 1023 bytes: the start is what matters */
	CHECK(!strncmp(got, "<xxxx", 5));
	CHECK_INT(strlen(got), 1023);
}

/* ---- stacks ------------------------------------------------------------ */

static const struct lang_frame kframes[] = {
	{ 0xffffffff81001000ULL, "vfs_read", 16, NULL },
	{ 0xffffffff81002000ULL, "ksys_read", 5, NULL },
	{ 0xffffffff81003000ULL, NULL, 0, NULL },
	{ 0, "never", 0, NULL },
};
static const struct lang_frame uframes[] = {
	{ 0x401000, "main", 4, "/usr/bin/app" },
	{ 0x7f0000001000ULL, "__libc_start_main", 128, "/usr/lib/libc.so.6" },
	{ 0x7ffe00000000ULL, NULL, 0, NULL },
};

static struct lang_val kstack(enum lang_stack_mode m)
{
	return (struct lang_val){ .kind = LANG_K_STACK, .frames = kframes, .nframes = 4,
				  .stack_mode = m };
}

static struct lang_val ustack(enum lang_stack_mode m)
{
	return (struct lang_val){ .kind = LANG_K_STACK, .frames = uframes, .nframes = 3,
				  .stack_mode = m, .user = true };
}

static void stack_key_map(struct lang_out *o)
{
	struct tmap *m = tm("@");

	tm_put(m, k1(kstack(LANG_STACK_BPFTRACE)), C(3));
	tm_put(m, k1(ustack(LANG_STACK_BPFTRACE)), C(5));
	tm_print(o, m, 0, 0);
}

TEST(lang_out_stack_keys)
{
	CHECK_STR(lo_text(stack_key_map, LANG_OUT_TEXT),
		  "@[\n    vfs_read+16\n    ksys_read+5\n    0xffffffff81003000\n]: 3\n"
		  "@[\n    main+4\n    __libc_start_main+128\n    0x7ffe00000000\n]: 5\n");
	CHECK_STR(lo_text(stack_key_map, LANG_OUT_JSON),
		  "{\"type\": \"map\", \"data\": {\"@\": {"
		  "\"\\n    vfs_read+16\\n    ksys_read+5\\n    0xffffffff81003000\\n\": 3, "
		  "\"\\n    main+4\\n    __libc_start_main+128\\n    0x7ffe00000000\\n\": 5}}}\n");
	lo_reset();
}

static void stack_values(struct lang_out *o)
{
	struct tmap *m = tm("@s");

	tm_put(m, k1(vi(2)), kstack(LANG_STACK_BPFTRACE));
	tm_put(m, k1(vi(1)), kstack(LANG_STACK_BPFTRACE));
	tm_print(o, m, 0, 0);
	tprint(o, kstack(LANG_STACK_BPFTRACE));
}

TEST(lang_out_stack_values)
{
	/* stack values: no newline between elements, indented by 8 */
	CHECK_STR(lo_text(stack_values, LANG_OUT_TEXT),
		  "@s[1]: \n        vfs_read+16\n        ksys_read+5\n        0xffffffff81003000\n"
		  "@s[2]: \n        vfs_read+16\n        ksys_read+5\n        0xffffffff81003000\n\n"
		  "\n        vfs_read+16\n        ksys_read+5\n        0xffffffff81003000\n\n");
	lo_reset();
}

static void stack_modes(struct lang_out *o)
{
	tprint(o, kstack(LANG_STACK_PERF));
	tprint(o, ustack(LANG_STACK_PERF));
	tprint(o, ustack(LANG_STACK_RAW));
	tprintf(o, "%s|\n", 1, ustack(LANG_STACK_BPFTRACE));
	tprint(o, (struct lang_val){ .kind = LANG_K_STACK });
}

TEST(lang_out_stack_modes)
{
	CHECK_STR(lo_text(stack_modes, LANG_OUT_TEXT),
		  "\n\tffffffff81001000 vfs_read+16\n\tffffffff81002000 ksys_read+5\n"
		  "\tffffffff81003000 0xffffffff81003000\n\n"
		  "\n\t401000 main+4 (/usr/bin/app)\n\t7f0000001000 __libc_start_main+128 (/usr/lib/libc.so.6)\n"
		  "\t7ffe00000000 0x7ffe00000000 ([unknown])\n\n"
		  "\n401000\n7f0000001000\n7ffe00000000\n\n"
		  "\n        main+4\n        __libc_start_main+128\n        0x7ffe00000000\n|\n"
		  "\n\n");
	lo_reset();
}

/* ---- timestamps, time(), join, messages --------------------------------- */

static void set_utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}

static void timestamps(struct lang_out *o)
{
	struct lang_val t = { .kind = LANG_K_TIMESTAMP, .s = "%Y-%m-%d %H:%M:%S.%f", .len = 20 };

	/* booted at 2021-01-01 00:00:00.5 UTC; 1.25 s later */
	lang_out_set_boottime(o, (struct timespec){ 1609459200, 500000000 });
	t.i = 1250000000;
	tprint(o, t);
	t.i = 0;
	tprintf(o, "[%s]\n", 1, t);
	t.s = "%H:%f";
	t.len = 5;
	t.i = 499999999;
	tprint(o, t);
	tm_exit(o, 1, tm_put(tm("@t"), k1(t), C(1)));
	/* "%f" is replaced before strftime() sees the format, even after "%"
	 * (as bpftrace's regex does): "%%f" becomes "%999999", which
	 * strftime() cannot fit, and the value prints "(?)" */
	t.s = "%%f";
	t.len = 3;
	tprint(o, t);
}

TEST(lang_out_strftime_values)
{
	set_utc();
	CHECK_STR(lo_text(timestamps, LANG_OUT_TEXT),
		  "2021-01-01 00:00:01.750000\n[2021-01-01 00:00:00.500000]\n00:999999\n"
		  "\n\n@t[00:999999]: 1\n(?)\n");
	CHECK_STR(lo_text(timestamps, LANG_OUT_JSON),
		  "{\"type\": \"value\", \"data\": \"2021-01-01 00:00:01.750000\"}\n"
		  "{\"type\": \"printf\", \"data\": \"[2021-01-01 00:00:00.500000]\\n\"}\n"
		  "{\"type\": \"value\", \"data\": \"00:999999\"}\n"
		  "{\"type\": \"map\", \"data\": {\"@t\": {\"00:999999\": 1}}}\n"
		  "{\"type\": \"value\", \"data\": \"(?)\"}\n");
	lo_reset();
}

static void times(struct lang_out *o)
{
	CHECK_INT(lang_out_time(o, "%H:%M:%S\n", 1609459200 + 3723), 0);
	CHECK_INT(lang_out_time(o, NULL, 1609459200), 0);
	CHECK_INT(lang_out_time(o, "%Y", 1609459200), 0);
}

TEST(lang_out_time_calls)
{
	set_utc();
	CHECK_STR(lo_text(times, LANG_OUT_TEXT), "01:02:03\n00:00:00\n2021");
	CHECK_STR(lo_text(times, LANG_OUT_JSON),
		  "{\"type\": \"time\", \"data\": \"01:02:03\\n\"}\n"
		  "{\"type\": \"time\", \"data\": \"00:00:00\\n\"}\n"
		  "{\"type\": \"time\", \"data\": \"2021\"}\n");
}

static void joins(struct lang_out *o)
{
	const char *const args[] = { "ls", "-l", "/tmp", "", "hidden" };

	CHECK_INT(lang_out_join(o, args, 5, NULL), 0);
	CHECK_INT(lang_out_join(o, args, 3, ","), 0);
	CHECK_INT(lang_out_join(o, args, 0, ","), 0);
}

TEST(lang_out_join_calls)
{
	CHECK_STR(lo_text(joins, LANG_OUT_TEXT), "ls -l /tmp\nls,-l,/tmp\n\n");
	CHECK_STR(lo_text(joins, LANG_OUT_JSON),
		  "{\"type\": \"join\", \"data\": \"ls -l /tmp\"}\n"
		  "{\"type\": \"join\", \"data\": \"ls,-l,/tmp\"}\n"
		  "{\"type\": \"join\", \"data\": \"\"}\n");
}

static void notes(struct lang_out *o)
{
	CHECK_INT(lang_out_helper_error(o, "-e:1:9", "map_update_elem", -7, 1, 9), 0);
	CHECK_INT(lang_out_attached(o, 1), 0);
	CHECK_INT(lang_out_attached(o, 3), 0);
	CHECK_INT(lang_out_lost(o, 12), 0);
	CHECK_INT(lang_out_error(o, "map @m is full: \"x\""), 0);
	CHECK_INT(lang_out_cat(o, "line\n", 5), 0);
	CHECK_INT(lang_out_system(o, "out", 3), 0);
}

TEST(lang_out_messages_text)
{
	struct lo_run err, out = lo_capture(notes, LANG_OUT_TEXT, &err);

	CHECK_STR(out.text, "line\nout");
	CHECK_STR(err.text, "-e:1:9: WARNING: Failed to map_update_elem: Argument list too long (-7)\n"
			    "Attached 1 probe\nAttached 3 probes\n12 events lost\nmap @m is full: \"x\"\n");
	free(out.text);
	free(err.text);
}

TEST(lang_out_messages_json)
{
	struct lo_run err, out = lo_capture(notes, LANG_OUT_JSON, &err);

	CHECK_STR(out.text, "{\"type\": \"helper_error\", \"helper\": \"map_update_elem\", \"retcode\": -7, \"line\": 1, \"col\": 9}\n"
			    "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n"
			    "{\"type\": \"attached_probes\", \"data\": {\"probes\": 3}}\n"
			    "{\"type\": \"lost_events\", \"data\": {\"events\": 12}}\n"
			    "{\"type\": \"error\", \"msg\": \"map @m is full: \\\"x\\\"\"}\n"
			    "{\"type\": \"cat\", \"data\": \"line\\n\"}\n"
			    "{\"type\": \"syscall\", \"data\": \"out\"}\n");
	CHECK_STR(err.text, "");
	free(out.text);
	free(err.text);
}

/* ---- maps: sorting and edges --------------------------------------------- */

static void count_ties(struct lang_out *o)
{
	struct tmap *m = tm("@");

	/* equal counts: by key, integers unsigned (so -1 last), strings bytewise */
	tm_put(m, k1(vi(-1)), C(1));
	tm_put(m, k1(vi(10)), C(1));
	tm_put(m, k1(vi(2)), C(1));
	tm_put(m, k1(vi(5)), C(0));
	tm_print(o, m, 0, 0);
	m = tm("@s");
	tm_put(m, k1(vs("b")), C(2));
	tm_put(m, k1(vs("ab")), C(2));
	tm_put(m, k1(vs("a")), C(2));
	tm_print(o, m, 0, 0);
}

TEST(lang_out_sort_ties_by_key)
{
	CHECK_STR(lo_text(count_ties, LANG_OUT_TEXT),
		  "@[5]: 0\n@[2]: 1\n@[10]: 1\n@[-1]: 1\n@s[a]: 2\n@s[ab]: 2\n@s[b]: 2\n");
	lo_reset();
}

static void signed_sort(struct lang_out *o)
{
	struct tmap *m = tm("@i"), *u = tm("@u");

	tm_put(m, k1(vi(1)), vi(-1));
	tm_put(m, k1(vi(2)), vi(INT64_MIN));
	tm_put(m, k1(vi(3)), vi(INT64_MAX));
	tm_print(o, m, 0, 0);
	/* unsigned values sort and print unsigned */
	tm_put(u, k1(vi(1)), vu(UINT64_MAX));
	tm_put(u, k1(vi(2)), vu(1));
	tm_print(o, u, 0, 0);
	tm_print(o, tm_put(tm("@c"), NULL, C(-1)), 0, 0);
}

TEST(lang_out_sort_signed_unsigned)
{
	CHECK_STR(lo_text(signed_sort, LANG_OUT_TEXT),
		  "@i[2]: -9223372036854775808\n@i[1]: -1\n@i[3]: 9223372036854775807\n"
		  "@u[2]: 1\n@u[1]: 18446744073709551615\n@c: 18446744073709551615\n");
	lo_reset();
}

static void top_div_edges(struct lang_out *o)
{
	struct tmap *m = tm("@");

	tm_put(m, k1(vi(1)), SUM(-7));
	tm_put(m, k1(vi(2)), SUM(9));
	tm_print(o, m, 2, 0);	/* top == n: all */
	tm_print(o, m, 1, 0);
	tm_print(o, m, 0, 2);	/* signed division truncates toward zero */
	tm_print(o, m, 0, 1);
}

TEST(lang_out_top_div_edges)
{
	CHECK_STR(lo_text(top_div_edges, LANG_OUT_TEXT),
		  "@[1]: -7\n@[2]: 9\n@[2]: 9\n@[1]: -3\n@[2]: 4\n@[1]: -7\n@[2]: 9\n");
	CHECK_STR(lo_text(top_div_edges, LANG_OUT_JSON),
		  "{\"type\": \"map\", \"data\": {\"@\": {\"1\": -7, \"2\": 9}}}\n"
		  "{\"type\": \"map\", \"data\": {\"@\": {\"2\": 9}}}\n"
		  "{\"type\": \"map\", \"data\": {\"@\": {\"1\": -3, \"2\": 4}}}\n"
		  "{\"type\": \"map\", \"data\": {\"@\": {\"1\": -7, \"2\": 9}}}\n");
	lo_reset();
}

static void avg_edges(struct lang_out *o)
{
	tm_print(o, tm_put(tm("@zero"), NULL, vavg(0, 0)), 0, 0);
	tm_print(o, tm_put(tm("@s0"), NULL, vstats(0, 0)), 0, 0);
	tm_print(o, tm_put(tm("@min"), NULL, vavg(1, INT64_MIN)), 0, 0);
	tm_print(o, tm_put(tm("@neg"), NULL, vstats(3, -10)), 0, 0);
}

TEST(lang_out_avg_stats_edges)
{
	CHECK_STR(lo_text(avg_edges, LANG_OUT_TEXT),
		  "@zero: 0\n\n@s0: count 0, average 0, total 0\n\n@min: -9223372036854775808\n\n"
		  "@neg: count 3, average -3, total -10\n\n");
	lo_reset();
}

static void empty_prints(struct lang_out *o)
{
	struct tmap *c = tm("@c"), *h = tm("@h"), *s = tm("@s");

	tm_print(o, c, 0, 0);
	tm_print(o, h, 0, 0);
	tm_print(o, s, 0, 0);
}

TEST(lang_out_empty_map_print)
{
	/* an empty map prints one empty line; JSON leaves it out */
	CHECK_STR(lo_text(empty_prints, LANG_OUT_TEXT), "\n\n\n");
	CHECK_STR(lo_text(empty_prints, LANG_OUT_JSON), "");
	lo_reset();
}

static void hist_ties(struct lang_out *o)
{
	struct tmap *m = tm("@h");

	/* equal totals: bpftrace's key-byte order (little-endian integers) */
	tm_put(m, k1(vi(1)), VHIST(3));
	tm_put(m, k1(vi(0x100)), VHIST(3));
	tm_put(m, k1(vi(0x200)), VHIST(3));
	tm_put(m, k1(vi(2)), VHIST(3));
	tm_print(o, m, 0, 0);
}

TEST(lang_out_hist_ties_key_bytes)
{
	const char *t = lo_text(hist_ties, LANG_OUT_TEXT);
	const char *a = strstr(t, "@h[256]"), *b = strstr(t, "@h[512]"), *c = strstr(t, "@h[1]"),
		   *d = strstr(t, "@h[2]:");

	CHECK(a && b && c && d);
	CHECK(a && b && c && d && a < b && b < c && c < d);
	lo_reset();
}

static void tuple_keys(struct lang_out *o)
{
	struct tmap *m = tm("@");

	/* @[(1, "a")]: a tuple as the one key */
	tm_put(m, k1(vtup(1, vtup(2, vi(1), vs("a")))), C(1));
	tm_print(o, m, 0, 0);
	m = tm("@k");
	tm_put(m, k1(vtup(2, vs("x,y"), vi(-1))), C(2));
	tm_print(o, m, 0, 0);
}

TEST(lang_out_tuple_keys)
{
	CHECK_STR(lo_text(tuple_keys, LANG_OUT_TEXT), "@[(1, a)]: 1\n@k[x,y, -1]: 2\n");
	CHECK_STR(lo_text(tuple_keys, LANG_OUT_JSON),
		  "{\"type\": \"map\", \"data\": {\"@\": {\"(1, a)\": 1}}}\n"
		  "{\"type\": \"map\", \"data\": {\"@k\": {\"x,y,-1\": 2}}}\n");
	lo_reset();
}

static void sym_values(struct lang_out *o)
{
	struct tmap *m = tm("@");

	tm_put(m, k1(vi(1)), (struct lang_val){ .kind = LANG_K_KSYM, .s = "do_sys_open", .len = 11 });
	tm_put(m, k1(vi(2)), (struct lang_val){ .kind = LANG_K_USYM, .s = "main", .len = 4 });
	tm_print(o, m, 0, 0);
	tm_print(o, tm_put(tm("@k"), k1((struct lang_val){ .kind = LANG_K_KSYM, .s = "vfs_read",
							   .len = 8 }),
			   C(4)),
		 0, 0);
}

TEST(lang_out_symbol_values)
{
	/* maps of ksym/usym values: no newline between elements, as bpftrace */
	CHECK_STR(lo_text(sym_values, LANG_OUT_TEXT), "@[1]: do_sys_open@[2]: main\n@k[vfs_read]: 4\n");
	CHECK_STR(lo_text(sym_values, LANG_OUT_JSON),
		  "{\"type\": \"map\", \"data\": {\"@\": {\"1\": \"do_sys_open\", \"2\": \"main\"}}}\n"
		  "{\"type\": \"map\", \"data\": {\"@k\": {\"vfs_read\": 4}}}\n");
	lo_reset();
}

static void weird_strings(struct lang_out *o)
{
	tprint(o, vstrn("nul\0after", 9));
	tprint(o, vs("\x01\x7f\xfe"));
	tm_print(o, tm_put(tm("@"), k1(vs("k\x01")), vs("\xc3\xa9")), 0, 0);
}

TEST(lang_out_strings_with_odd_bytes)
{
	CHECK_STR(lo_text(weird_strings, LANG_OUT_TEXT), "nul\n\x01\x7f\xfe\n@[k\x01]: \xc3\xa9\n");
	CHECK_STR(lo_text(weird_strings, LANG_OUT_JSON),
		  "{\"type\": \"value\", \"data\": \"nul\"}\n"
		  "{\"type\": \"value\", \"data\": \"\\u0001\\u007f\\u00fe\"}\n"
		  "{\"type\": \"map\", \"data\": {\"@\": {\"k\\u0001\": \"\xc3\xa9\"}}}\n");
}

TEST(lang_out_val_text)
{
	struct lang_val t = vtup(3, vi(-1), vs("s"), vbuf("\x01", 1));
	char *s = lang_val_text(&t);

	CHECK_STR(s, "(-1, s, \\x01)");
	free(s);
	t = vagg(LANG_K_COUNT, 7);
	s = lang_val_text(&t);
	CHECK_STR(s, "7");
	free(s);
	t = vs("");
	s = lang_val_text(&t);
	CHECK_STR(s, "");
	free(s);
	lo_reset();
}

TEST(lang_out_bad_arguments)
{
	FILE *f = fopen("/dev/null", "w");
	struct lang_out *o = lang_out_new(f, LANG_OUT_TEXT);

	CHECK(o);
	CHECK_INT(lang_out_map(o, NULL, NULL, 0, 0, 0), -EINVAL);
	CHECK_INT(lang_out_map(o, "@", NULL, 2, 0, 0), -EINVAL);
	CHECK_INT(lang_out_value(o, NULL), -EINVAL);
	CHECK_INT(lang_out_printf(o, NULL, 0, NULL, 0), -EINVAL);
	CHECK_INT(lang_out_printf(o, "%d", 2, NULL, 1), -EINVAL);
	CHECK_INT(lang_out_maps(o, NULL, 1), -EINVAL);
	CHECK_INT(lang_out_error(o, NULL), -EINVAL);
	CHECK_INT(lang_out_lost(NULL, 1), -EINVAL);
	lang_out_free(o);
	fclose(f);
}

TEST(lang_out_write_error)
{
	FILE *f = fopen("/dev/full", "w");
	struct lang_val v = vi(1);
	struct lang_out *o;
	int ret = 0;

	if (!f)
		SKIP("no /dev/full");
	setvbuf(f, NULL, _IONBF, 0);
	o = lang_out_new(f, LANG_OUT_TEXT);
	ret = lang_out_value(o, &v);
	CHECK_INT(ret, -EIO);
	lang_out_free(o);
	fclose(f);
}

/* ---- every golden program's JSON and a sample of others parse ----------- */

TEST(lang_out_golden_json_lines_parse)
{
	static const char *const names[] = {
		"avg", "buf", "clear_zero", "count_keyed", "hist", "hist_keyed", "json_escape",
		"lhist_suffix", "multikey", "print_top_stats", "print_values", "printf_percent",
		"strings", "tuples",
	};
	char why[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[128];
		size_t len;
		char *text;

		snprintf(path, sizeof(path), "tests/lang/golden/%s.json", names[i]);
		text = lo_read(path, &len);
		if (!text) {
			test_fail(__FILE__, __LINE__, "cannot read %s", path);
			continue;
		}
		if (!json_lines_ok(text, why, sizeof(why)))
			test_fail(__FILE__, __LINE__, "%s: %s", path, why);
		free(text);
	}
}

static void everything(struct lang_out *o)
{
	stack_key_map(o);
	stack_values(o);
	stack_modes(o);
	timestamps(o);
	weird_strings(o);
	tuple_keys(o);
	sym_values(o);
	avg_edges(o);
	notes(o);
	joins(o);
}

TEST(lang_out_json_lines_all_kinds_parse)
{
	char why[512];
	const char *t;

	set_utc();
	t = lo_text(everything, LANG_OUT_JSON);
	if (!json_lines_ok(t, why, sizeof(why)))
		test_fail(__FILE__, __LINE__, "%s", why);
	lo_reset();
}

/* ---- the checker: print() of a whole keyed map ------------------------- */

#include "lang_test.h"

TEST(lang_check_print_whole_keyed_map)
{
	const struct lt_case t[] = {
		{ "BEGIN { @c[1] = count(); print(@c); }", "ok" },
		{ "BEGIN { print(@); @[1, \"a\"] = 1; }", "ok" },
		{ "BEGIN { @h[1] = hist(1); print(@h, 2, 10); }", "ok" },
		{ "BEGIN { @x = 1; print(@x); }", "ok" },
		{ "BEGIN { @c[1] = 1; print(@c[1]); }", "ok" },
		{ "BEGIN { print(@nope); }", "error: t:1:15: undefined map @nope: it is never assigned" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *r = lt_run(t[i].in, true, NULL);

		LT_CHECK(strncmp(r, "error: ", 7) ? "ok" : r, &t[i]);
	}
}
