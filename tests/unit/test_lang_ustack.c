/* Unit tests of the language's user-stack tables (lang/ustack.h): stacks
 * interned by (pid, address space, pcs, truncated), and the maps the
 * runtime aggregates, in the value layouts of the BPF maps (lang/rec.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "test.h"
#include "lang/rec.h"
#include "lang/ustack.h"

TEST(lang_ustacks_intern)
{
	struct lang_ustacks *u = lang_ustacks_new();
	uint64_t a[] = { 0x401000, 0x401100, 0x7f0000 }, b[] = { 0x401000, 0x401100 };
	int64_t i1, i2, i3, i4, i5;
	const struct lang_ustack *s;

	CHECK(u);
	i1 = lang_ustacks_add(u, 10, 5, a, 3, false);
	i2 = lang_ustacks_add(u, 10, 5, a, 3, false);
	i3 = lang_ustacks_add(u, 11, 5, a, 3, false);	/* another process */
	i4 = lang_ustacks_add(u, 10, 9, a, 3, false);	/* another address space */
	i5 = lang_ustacks_add(u, 10, 5, b, 2, true);	/* shorter, truncated */
	CHECK_INT(i1, 0);
	CHECK_INT(i2, i1);
	CHECK(i3 != i1 && i4 != i1 && i5 != i1 && i3 != i4);
	CHECK_INT(lang_ustacks_count(u), 4);
	s = lang_ustacks_get(u, i5);
	CHECK(s && s->n == 2 && s->truncated && s->pid == 10 && s->gen == 5);
	CHECK(s->ips[1] == 0x401100);
	CHECK(!lang_ustacks_get(u, 4));
	CHECK(!lang_ustacks_get(u, -1));
	/* an empty stack (a kernel thread) is a stack too */
	CHECK_INT(lang_ustacks_add(u, 0, 0, NULL, 0, false), 4);
	lang_ustacks_free(u);
}

static uint64_t u64_at(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + off, 8);
	return v;
}

/* The value of key k (16 bytes) or NULL. */
static const void *value_of(const struct lang_uagg *a, uint64_t k)
{
	for (size_t i = 0; i < lang_uagg_count(a); i++) {
		const void *key, *val;

		lang_uagg_get(a, i, &key, &val);
		if (u64_at(key, 0) == k)
			return val;
	}
	return NULL;
}

TEST(lang_uagg_count_sum_full)
{
	struct lang_uagg *a = lang_uagg_new(16, 8, LANG_K_SUM, 0, 2);
	uint64_t k1[2] = { 1, 0 }, k2[2] = { 2, 0 }, k3[2] = { 3, 0 };

	CHECK(a);
	CHECK_INT(lang_uagg_add(a, k1, 5), 0);
	CHECK_INT(lang_uagg_add(a, k1, -2), 0);
	CHECK_INT(lang_uagg_add(a, k2, 7), 0);
	CHECK_INT(lang_uagg_add(a, k3, 1), -ENOSPC);	/* max_entries 2 */
	CHECK_INT(lang_uagg_add(a, k2, 1), 0);		/* an old key still counts */
	CHECK_INT(lang_uagg_count(a), 2);
	CHECK_INT((int64_t)u64_at(value_of(a, 1), 0), 3);
	CHECK_INT((int64_t)u64_at(value_of(a, 2), 0), 8);
	lang_uagg_zero(a);
	CHECK_INT(lang_uagg_count(a), 2);
	CHECK_INT((int64_t)u64_at(value_of(a, 2), 0), 0);
	lang_uagg_clear(a);
	CHECK_INT(lang_uagg_count(a), 0);
	CHECK_INT(lang_uagg_add(a, k3, 4), 0);
	CHECK_INT((int64_t)u64_at(value_of(a, 3), 0), 4);
	lang_uagg_free(a);
}

TEST(lang_uagg_min_max_avg_hist)
{
	struct lang_uagg *mn = lang_uagg_new(8, 16, LANG_K_MIN, 0, 16);
	struct lang_uagg *mx = lang_uagg_new(8, 16, LANG_K_MAX, 0, 16);
	struct lang_uagg *av = lang_uagg_new(8, 16, LANG_K_AVG, 0, 16);
	struct lang_uagg *h = lang_uagg_new(8, 4 * 8, LANG_K_HIST, 4, 16);
	uint64_t k = 9;
	int64_t xs[] = { 5, -3, 12 };
	struct lang_rec_minmax m;
	struct lang_rec_avg v;

	CHECK(mn && mx && av && h);
	for (size_t i = 0; i < 3; i++) {
		lang_uagg_add(mn, &k, xs[i]);
		lang_uagg_add(mx, &k, xs[i]);
		lang_uagg_add(av, &k, xs[i]);
	}
	memcpy(&m, value_of(mn, 9), sizeof(m));
	CHECK(m.set && m.v == -3);
	memcpy(&m, value_of(mx, 9), sizeof(m));
	CHECK(m.set && m.v == 12);
	memcpy(&v, value_of(av, 9), sizeof(v));
	CHECK(v.count == 3 && v.sum == 14);
	/* buckets: the operand is the bucket; past the last, the last */
	lang_uagg_add(h, &k, 0);
	lang_uagg_add(h, &k, 2);
	lang_uagg_add(h, &k, 2);
	lang_uagg_add(h, &k, 99);
	CHECK_INT(u64_at(value_of(h, 9), 0), 1);
	CHECK_INT(u64_at(value_of(h, 9), 16), 2);
	CHECK_INT(u64_at(value_of(h, 9), 24), 1);
	lang_uagg_free(mn);
	lang_uagg_free(mx);
	lang_uagg_free(av);
	lang_uagg_free(h);
}

TEST(lang_uagg_combine_values)
{
	struct lang_rec_minmax a = { 4, 1 }, b = { 2, 1 }, unset = { -100, 0 };
	struct lang_rec_avg x = { 2, 10 }, y = { 3, -4 };
	uint64_t h1[3] = { 1, 2, 3 }, h2[3] = { 10, 0, 1 }, i1 = 7, i2 = 8;

	lang_uagg_combine(LANG_K_MIN, &a, &b, sizeof(a));
	CHECK(a.v == 2 && a.set);
	lang_uagg_combine(LANG_K_MIN, &a, &unset, sizeof(a));	/* unset: no value */
	CHECK(a.v == 2);
	b.v = 9;
	lang_uagg_combine(LANG_K_MAX, &a, &b, sizeof(a));
	CHECK(a.v == 9);
	lang_uagg_combine(LANG_K_AVG, &x, &y, sizeof(x));
	CHECK(x.count == 5 && x.sum == 6);
	lang_uagg_combine(LANG_K_HIST, h1, h2, sizeof(h1));
	CHECK(h1[0] == 11 && h1[1] == 2 && h1[2] == 4);
	lang_uagg_combine(LANG_K_INT, &i1, &i2, 8);		/* a plain value: the first */
	CHECK_INT(i1, 7);
}
