/* lang/output against bpftrace 0.17: each test builds by hand the values
 * the runtime would read back for the program tests/lang/golden/NAME.bt
 * (maps in an order other than the printed one, to see them sorted) and
 * compares the text and JSON output byte for byte with NAME.out and
 * NAME.json, made by bpftrace (tests/lang/golden/make.sh). */
#include "lang_out_test.h"

GOLDEN(count_keyless)
{
	tm_exit(o, 1, tm_put(tm("@c"), NULL, C(3)));
}

GOLDEN(count_keyed)
{
	struct tmap *m = tm("@");

	tm_put(m, k1(vi(-4)), C(4));
	tm_put(m, k1(vi(3)), C(3));
	tm_put(m, k1(vi(1)), C(1));
	tm_put(m, k1(vi(2)), C(2));
	tm_exit(o, 1, m);
}

GOLDEN(count_strkey)
{
	struct tmap *m = tm("@calls");

	tm_put(m, k1(vs("open")), C(3));
	tm_put(m, k1(vs("write")), C(2));
	tm_put(m, k1(vs("read")), C(1));
	tm_exit(o, 1, m);
}

GOLDEN(count_unroll)
{
	tm_exit(o, 2, tm_put(tm("@d"), k1(vs("x")), C(20)), tm_put(tm("@c"), NULL, C(100)));
}

GOLDEN(sum_neg)
{
	struct tmap *k = tm("@k");

	tm_put(k, k1(vi(1)), SUM(10));
	tm_put(k, k1(vi(4)), SUM(-2));
	tm_put(k, k1(vi(3)), SUM(0));
	tm_put(k, k1(vi(2)), SUM(-10));
	tm_exit(o, 2, tm_put(tm("@s"), NULL, SUM(-7)), k);
}

GOLDEN(sum_big)
{
	tm_exit(o, 3, tm_put(tm("@u"), NULL, SUM(-1)), tm_put(tm("@t"), NULL, SUM(INT64_MIN)),
		tm_put(tm("@s"), NULL, SUM(INT64_MAX)));
}

GOLDEN(int_values)
{
	tm_exit(o, 6, tm_put(tm("@x"), NULL, vi(5)), tm_put(tm("@y"), NULL, vi(-1)),
		tm_put(tm("@big"), NULL, vi(INT64_MAX)), tm_put(tm("@small"), NULL, vi(INT64_MIN)),
		tm_put(tm("@u"), NULL, vi(-1)), tm_put(tm("@zero"), NULL, vi(0)));
}

GOLDEN(int_keyed)
{
	struct tmap *m = tm("@v");

	tm_put(m, k1(vi(1)), vi(100));
	tm_put(m, k1(vi(-5)), vi(50));
	tm_put(m, k1(vi(INT64_MAX)), vi(7));
	tm_put(m, k1(vi(3)), vi(0));
	tm_put(m, k1(vi(2)), vi(-100));
	tm_exit(o, 1, m);
}

GOLDEN(min_max)
{
	struct tmap *mnk = tm("@mnk"), *mxk = tm("@mxk");

	tm_put(mnk, k1(vs("a")), vagg(LANG_K_MIN, 5));
	tm_put(mnk, k1(vs("b")), vagg(LANG_K_MIN, -5));
	tm_put(mxk, k1(vs("a")), vagg(LANG_K_MAX, 50));
	tm_put(mxk, k1(vs("b")), vagg(LANG_K_MAX, 20));
	tm_exit(o, 4, mxk, mnk, tm_put(tm("@mx"), NULL, vagg(LANG_K_MAX, 9)),
		tm_put(tm("@mn"), NULL, vagg(LANG_K_MIN, 3)));
}

GOLDEN(avg)
{
	struct tmap *k = tm("@k");

	tm_put(k, k1(vs("x")), vavg(1, 100));
	tm_put(k, k1(vs("y")), vavg(1, 1));
	tm_put(k, k1(vs("z")), vavg(1, -50));
	tm_exit(o, 3, tm_put(tm("@n"), NULL, vavg(2, -5)), k, tm_put(tm("@a"), NULL, vavg(3, 61)));
}

GOLDEN(stats)
{
	struct tmap *k = tm("@k");

	tm_put(k, k1(vi(1)), vstats(1, 100));
	tm_put(k, k1(vi(3)), vstats(1, 0));
	tm_put(k, k1(vi(2)), vstats(1, -3));
	tm_exit(o, 3, tm_put(tm("@s"), NULL, vstats(3, 61)), tm_put(tm("@n"), NULL, vstats(2, -5)),
		k);
}

GOLDEN(hist)
{
	tm_exit(o, 1,
		tm_put(tm("@h"), NULL,
		       VHIST(-1, -100, 0, 0, 1, 2, 3, 1024, 3145728, 1073741824, 2147483647)));
}

GOLDEN(hist_zero)
{
	tm_exit(o, 3, tm_put(tm("@z"), NULL, VHIST(0)), tm_put(tm("@o"), NULL, VHIST(1, 1, 0)),
		tm_put(tm("@n"), NULL, VHIST(-5, -6)));
}

GOLDEN(hist_keyed)
{
	struct tmap *m = tm("@h");

	tm_put(m, k1(vs("c")), VHIST(1, 2, 100000));
	tm_put(m, k1(vs("b")), VHIST(5, 600));
	tm_put(m, k1(vs("a")), VHIST(5));
	tm_exit(o, 1, m);
}

GOLDEN(hist_bars)
{
	struct lang_val h = VHIST(2000);

	vhist_add(&h, 10, 100);
	vhist_add(&h, 40, 3);
	vhist_add(&h, 300, 51);
	tm_exit(o, 1, tm_put(tm("@h"), NULL, h));
}

GOLDEN(lhist)
{
	tm_exit(o, 1, tm_put(tm("@l"), NULL, VLHIST(0, 100, 10, -5, 100, 1000, 99, 0, 45)));
}

GOLDEN(lhist_inside)
{
	tm_exit(o, 1, tm_put(tm("@l"), NULL, VLHIST(0, 100, 10, 15, 35, 36)));
}

GOLDEN(lhist_suffix)
{
	tm_exit(o, 3, tm_put(tm("@o"), NULL, VLHIST(5, 20, 3, 7, 1, 19, 20)),
		tm_put(tm("@m"), NULL, VLHIST(0, 4194304, 1048576, 3, 3145728, 9999999)),
		tm_put(tm("@k"), NULL, VLHIST(1024, 4096, 1024, 2048, 5000)));
}

GOLDEN(lhist_keyed)
{
	struct tmap *m = tm("@l");

	tm_put(m, k1(vi(2)), VLHIST(0, 10, 1, 5, 50));
	tm_put(m, k1(vi(1)), VLHIST(0, 10, 1, 5));
	tm_exit(o, 1, m);
}

GOLDEN(strings)
{
	struct tmap *sv = tm("@sv"), *ks = tm("@ks");

	tm_put(sv, k1(vi(-2)), vs("b"));
	tm_put(sv, k1(vi(3)), vs("zz"));
	tm_put(sv, k1(vi(1)), vs("hello"));
	tm_put(ks, k1(vs("ab")), vi(5));
	tm_put(ks, k1(vs("abc")), vi(3));
	tm_put(ks, k1(vs("x")), vi(1));
	tm_exit(o, 4, sv, ks, tm_put(tm("@s"), NULL, vs("abc")), tm_put(tm("@e"), NULL, vs("")));
}

GOLDEN(str_keysort)
{
	struct tmap *m = tm("@m");

	tm_put(m, k1(vs("b")), vs("x"));
	tm_put(m, k1(vs("ab")), vs("z"));
	tm_put(m, k1(vs("B")), vs("w"));
	tm_put(m, k1(vs("a")), vs("y"));
	tm_put(m, k1(vs("")), vs("e"));
	tm_exit(o, 1, m);
}

GOLDEN(multikey)
{
	struct tmap *mk = tm("@mk"), *c = tm("@c"), *s = tm("@s");

	tm_put(mk, k1(vtup(2, vi(-1), vs("y"))), vi(3));
	tm_put(mk, k1(vtup(2, vi(1), vs("z"))), vi(2));
	tm_put(mk, k1(vtup(2, vi(7), vs("a"))), vi(1));
	tm_put(c, k1(vtup(2, vi(2), vi(1))), C(2));
	tm_put(c, k1(vtup(2, vi(1), vi(2))), C(1));
	tm_put(s, k1(vtup(3, vs("a"), vs("b"), vi(3))), vs("v"));
	tm_put(s, k1(vtup(3, vs("a"), vs("a"), vi(4))), vs("w"));
	tm_exit(o, 3, s, mk, c);
}

GOLDEN(tuples)
{
	struct tmap *tv = tm("@tv");

	tm_put(tv, k1(vi(2)), vtup(2, vi(1), vs("y")));
	tm_put(tv, k1(vi(1)), vtup(2, vi(2), vs("x")));
	tm_exit(o, 3, tm_put(tm("@t"), NULL, vtup(3, vi(1), vs("a"), vi(-2))), tv,
		tm_put(tm("@n"), NULL, vtup(3, vi(1), vtup(2, vi(2), vs("in")), vs("out"))));
}

GOLDEN(print_top_div)
{
	struct tmap *c = tm("@c"), *s = tm("@s");

	tm_put(c, k1(vi(3)), C(3));
	tm_put(c, k1(vi(1)), C(1));
	tm_put(c, k1(vi(2)), C(2));
	tm_print(o, c, 2, 0);
	tm_print(o, c, 0, 2);
	tm_print(o, c, 5, 0);
	tm_print(o, c, 0, 0);
	tm_put(s, k1(vi(2)), SUM(-100));
	tm_put(s, k1(vi(1)), SUM(100));
	tm_print(o, s, 1, 10);
	tm_exit(o, 2, s, c);
}

GOLDEN(print_top_hist)
{
	struct tmap *hk = tm("@hk"), *l = tm("@l");

	tm_put(hk, k1(vs("b")), VHIST(5, 6));
	tm_put(hk, k1(vs("c")), VHIST(1));
	tm_put(hk, k1(vs("a")), VHIST(5));
	tm_print(o, hk, 2, 0);
	tm_print(o, hk, 0, 2);
	tm_put(l, k1(vi(2)), VLHIST(0, 10, 1, 6, 6));
	tm_put(l, k1(vi(1)), VLHIST(0, 10, 1, 5));
	tm_print(o, l, 1, 2);
	tm_exit(o, 2, l, hk);
}

GOLDEN(print_top_stats)
{
	struct tmap *s = tm("@s"), *a = tm("@a");

	tm_put(s, k1(vi(2)), vstats(1, 20));
	tm_put(s, k1(vi(1)), vstats(1, 10));
	tm_print(o, s, 1, 2);
	tm_put(a, k1(vi(3)), vavg(1, -30));
	tm_put(a, k1(vi(2)), vavg(1, 20));
	tm_put(a, k1(vi(1)), vavg(1, 10));
	tm_print(o, a, 1, 2);
	tm_print(o, a, 0, 3);
	tm_exit(o, 2, s, a);
}

GOLDEN(print_values)
{
	tprint(o, vi(5));
	tprint(o, vi(-5));
	tprint(o, vi(-1));
	tprint(o, vs("abc"));
	tprint(o, vs(""));
	tprint(o, vtup(2, vi(1), vs("a")));
	tprint(o, vtup(3, vi(1), vs("a"), vtup(2, vi(2), vs("b"))));
	tprint(o, vtup(2, vs("x"), vi(-3)));
	tm_exit(o, 0);
}

GOLDEN(print_map_keyless)
{
	struct tmap *x = tm_put(tm("@x"), NULL, vi(1)), *c = tm_put(tm("@c"), NULL, C(1));
	struct tmap *h = tm_put(tm("@h"), NULL, VHIST(3)), *s = tm_put(tm("@s"), NULL, vstats(1, 4));
	struct tmap *a = tm_put(tm("@a"), NULL, vavg(1, 4));
	struct tmap *t = tm_put(tm("@t"), NULL, vtup(2, vi(1), vs("q")));

	tm_print(o, x, 0, 0);
	tm_print(o, c, 0, 0);
	tm_print(o, h, 0, 0);
	tm_print(o, s, 0, 0);
	tm_print(o, a, 0, 0);
	tm_print(o, t, 0, 0);
	tm_exit(o, 6, x, c, h, s, a, t);
}

GOLDEN(printf_ints)
{
	tprintf(o, "%d|%u|%x|%ld|%lx|%hd|%hhd|%c|%p|%p\n", 10, vi(1LL << 40 | 7), vi(-1), vi(-1),
		vi(-1), vi(-1), vi(70000), vi(300), vi(65), vi(0), vi(4096));
	tprintf(o, "%o %X %lu %llu %zd %lld %ld\n", 7, vi(8), vi(255), vi(-1), vi(-1), vi(-2),
		vi(INT64_MIN), vi(1LL << 35));
	tprintf(o, "%hu %hhu %hx %hhx %llX %lo\n", 6, vi(-1), vi(-1), vi(-1), vi(-1), vi(3054),
		vi(8));
	tm_exit(o, 0);
}

GOLDEN(printf_width)
{
	tprintf(o, "[%5d][%-5d][%05d][%.3d][%10.4s][%-6s][%.2s]\n", 7, vi(42), vi(42), vi(42),
		vi(7), vs("abcdefg"), vs("ab"), vs("xyz"));
	tprintf(o, "[%8x][%-8X][%08lx][%3c][%-3c][%12p]\n", 6, vi(255), vi(255), vi(255), vi(66),
		vi(67), vi(4096));
	tprintf(o, "[%20ld][%-20lu]\n", 2, vi(-INT64_MAX), vu(UINT64_MAX));
	tm_exit(o, 0);
}

GOLDEN(printf_percent)
{
	tprintf(o, "100%%\n", 0);
	tprintf(o, "a%%b %d %%\n", 1, vi(5));
	tprintf(o, "%d%%%d\n", 2, vi(1), vi(2));
	tprintf(o, "no args\n", 0);
	tprintf(o, "%s=%d\n", 2, vs("k"), vi(3));
	tprintf(o, "tab\there \"q\" back\\slash\n", 0);
	tm_exit(o, 0);
}

GOLDEN(printf_str)
{
	tprintf(o, "%s|%s|%s\n", 3, vs("abc"), vs(""), vs("x y"));
	tprintf(o, "%s %d %s\n", 3, vs("a"), vi(1), vs("b"));
	tprintf(o, "[%s]\n", 1, vs("hello"));
	tprintf(o, "%s\n", 1, vs("No such file or directory"));
	tprintf(o, "%s\n", 1, vs("Permission denied"));
	tm_exit(o, 0);
}

GOLDEN(printf_nonl)
{
	tprintf(o, "a", 0);
	tprintf(o, "b", 0);
	tprintf(o, "%d", 1, vi(3));
	tprintf(o, "\n", 0);
	tm_exit(o, 0);
}

GOLDEN(buf)
{
	tprintf(o, "[%r]\n", 1, vbuf("ab\x01" "c", 4));
	tprintf(o, "[%rx]\n", 1, vbuf("ab", 2));
	tprintf(o, "[%rh]\n", 1, vbuf("ab\x01", 3));
	tprint(o, vbuf("xy", 2));
	tm_exit(o, 2, tm_put(tm("@bk"), k1(vbuf("k", 1)), vi(1)),
		tm_put(tm("@b"), NULL, vbuf("q\x02", 2)));
}

GOLDEN(empty_maps)
{
	tm_exit(o, 5, tm("@a"), tm("@h"), tm("@l"), tm("@x"), tm_put(tm("@z"), NULL, vi(1)));
}

GOLDEN(clear_zero)
{
	struct lang_val zh = VHIST(4), zhk = VHIST(4);

	/* zero() keeps the elements with zero values */
	memset((void *)zh.buckets, 0, zh.nbuckets * sizeof(uint64_t));
	memset((void *)zhk.buckets, 0, zhk.nbuckets * sizeof(uint64_t));
	tm_exit(o, 5, tm_put(tm("@c"), k1(vi(1)), C(0)), tm("@d"), tm_put(tm("@s"), NULL, SUM(0)),
		tm_put(tm("@h"), NULL, zh), tm_put(tm("@hk"), k1(vi(1)), zhk));
}

GOLDEN(map_order)
{
	tm_exit(o, 7, tm_put(tm("@zz"), NULL, vi(1)), tm_put(tm("@"), NULL, vi(2)),
		tm_put(tm("@a"), NULL, vi(3)), tm_put(tm("@B"), NULL, vi(4)),
		tm_put(tm("@_x"), NULL, vi(5)), tm_put(tm("@a1"), NULL, vi(6)),
		tm_put(tm("@A"), NULL, vi(7)));
}

GOLDEN(json_escape)
{
	tprintf(o, "esc \"%s\" \\ \t\n", 1, vs("in\"ner"));
	tprint(o, vs("back\\slash"));
	tm_exit(o, 2, tm_put(tm("@t"), NULL, vtup(2, vs("tab\t"), vs("nl\n"))),
		tm_put(tm("@m"), k1(vs("q\"k")), vs("v\"al")));
}

GOLDEN(signed_keys)
{
	struct tmap *h = tm("@h"), *s = tm("@s");

	tm_put(h, k1(vi(-1)), VHIST(1));
	tm_put(h, k1(vi(2)), VHIST(1));
	tm_put(h, k1(vi(1)), VHIST(1));
	tm_put(h, k1(vi(256)), VHIST(1));
	tm_put(s, k1(vi(-1)), vs("n"));
	tm_put(s, k1(vi(256)), vs("q"));
	tm_put(s, k1(vi(1)), vs("p"));
	tm_exit(o, 2, s, h);
}

GOLDEN(print_every_kind)
{
	struct tmap *i = tm_put(tm("@i"), NULL, vi(5)), *c = tm_put(tm("@c"), NULL, C(1));
	struct tmap *s = tm_put(tm("@s"), NULL, SUM(-2));
	struct tmap *mn = tm_put(tm("@mn"), NULL, vagg(LANG_K_MIN, 4));
	struct tmap *mx = tm_put(tm("@mx"), NULL, vagg(LANG_K_MAX, 6));
	struct tmap *a = tm_put(tm("@a"), NULL, vavg(1, 9));
	struct tmap *st = tm_put(tm("@st"), NULL, vstats(1, 9));
	struct tmap *h = tm_put(tm("@h"), NULL, VHIST(9));
	struct tmap *l = tm_put(tm("@l"), NULL, VLHIST(0, 20, 5, 9));
	struct tmap *str = tm_put(tm("@str"), NULL, vs("v"));
	struct tmap *t = tm_put(tm("@t"), NULL, vtup(2, vi(9), vs("nine")));
	struct tmap *all[] = { i, c, s, mn, mx, a, st, h, l, str, t };

	for (size_t j = 0; j < sizeof(all) / sizeof(all[0]); j++)
		tm_print(o, all[j], 0, 0);
	tm_exit(o, 11, t, str, l, h, st, a, mx, mn, s, c, i);
}

GOLDEN(hist_many_keys)
{
	struct tmap *h = tm("@h");

	tm_put(h, k1(vi(1)), VHIST(9, 9, 9, 9, 9));
	tm_put(h, k1(vi(2)), VHIST(7));
	tm_put(h, k1(vi(3)), VHIST(-1, 0, 1, 2));
	tm_put(h, k1(vi(4)), VHIST(100, 200));
	tm_put(h, k1(vi(5)), VHIST(1, 2, 3));
	tm_print(o, h, 3, 0);
	tm_exit(o, 1, h);
}

GOLDEN(lhist_uneven)
{
	tm_exit(o, 1, tm_put(tm("@l"), NULL, VLHIST(0, 10, 4, 9, 3, 10, 4)));
}

GOLDEN(count_many_keys)
{
	static const int order[] = { 3, 8, 1, 6, 2, 7, 5, 4 };
	struct tmap *m = tm("@");

	for (size_t j = 0; j < 8; j++)
		tm_put(m, k1(vi(order[j])), C(order[j]));
	tm_print(o, m, 3, 0);
	tm_print(o, m, 0, 3);
	tm_exit(o, 1, m);
}

GOLDEN(multikey_hist)
{
	struct tmap *h = tm("@"), *l = tm("@l"), *x = tm("@x");

	tm_put(h, k1(vtup(2, vi(1), vs("b"))), VHIST(4, 40));
	tm_put(h, k1(vtup(2, vi(1), vs("a"))), VHIST(4));
	tm_put(l, k1(vtup(2, vi(2), vs("a"))), VLHIST(0, 10, 5, 5));
	tm_put(x, k1(vtup(2, vi(2), vs("b"))), vstats(1, 8));
	tm_put(x, k1(vtup(2, vi(1), vs("a"))), vstats(1, 4));
	tm_exit(o, 3, x, l, h);
}

GOLDEN(avg_keyed_div)
{
	struct tmap *a = tm("@a");

	tm_put(a, k1(vs("z")), vavg(1, 55));
	tm_put(a, k1(vs("y")), vavg(1, -900));
	tm_put(a, k1(vs("x")), vavg(2, 300));
	tm_print(o, a, 0, 10);
	tm_print(o, a, 2, 0);
	tm_exit(o, 1, a);
}

GOLDEN(printf_mixed)
{
	tprintf(o, "%s:%d:%x:%s:%c|%-4s|%4d|\n", 7, vs("a"), vi(-1), vi(255), vs("b"), vi(67),
		vs("x"), vi(42));
	tprintf(o, "%5s%-5d%05x\n", 3, vs("ab"), vi(3), vi(4));
	tprintf(o, "%lu %ld %lx\n", 3, vi(-1), vi(-2), vi(-2));
	tprintf(o, "%s %% %d\n", 2, vs("z"), vi(9));
	tm_exit(o, 0);
}
