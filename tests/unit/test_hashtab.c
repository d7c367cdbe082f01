/* Unit tests of the hash table and the string hash: look-up through
 * growth, colliding hashes, backward-shift removal against a reference,
 * iteration. */
#include <stdint.h>
#include <stdlib.h>
#include "test.h"
#include "common.h"
#include "hashtab.h"

/* Entries and keys are ints; eq_calls counts comparisons. */
static unsigned long eq_calls;

static bool int_eq(const void *entry, const void *key)
{
	eq_calls++;
	return *(const int *)entry == *(const int *)key;
}

static uint64_t int_hash(int k)
{
	return mix64((uint64_t)k);
}

/* A small PRNG, so a failure is reproducible. */
static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

TEST(htab_insert_find_grow)
{
	enum { N = 20000 };
	struct htab *h = htab_new(0);
	int *v = malloc(N * sizeof(*v));
	int missing = 0, found = 0, absent;

	CHECK(h && v);
	if (!h || !v)
		goto out;
	for (int i = 0; i < N; i++) {
		v[i] = i * 3;
		CHECK_INT(htab_insert(h, int_hash(v[i]), &v[i]), 0);
	}
	CHECK_INT(htab_count(h), N);
	for (int i = 0; i < N; i++) {
		int k = i * 3;

		if (htab_find(h, int_hash(k), &k, int_eq) == &v[i])
			found++;
		k = i * 3 + 1;
		if (htab_find(h, int_hash(k), &k, int_eq))
			missing++;
	}
	CHECK_INT(found, N);
	CHECK_INT(missing, 0);
	/* an empty table finds nothing */
	htab_free(h);
	h = htab_new(100);
	absent = 7;
	CHECK(h && !htab_find(h, int_hash(absent), &absent, int_eq));
	CHECK_INT(htab_count(h), 0);
out:
	htab_free(h);
	htab_free(NULL);
	free(v);
}

TEST(htab_cached_hash_spares_comparisons)
{
	enum { N = 64 };
	struct htab *h = htab_new(0);
	int v[N];

	CHECK(h);
	if (!h)
		return;
	/* every entry in one home slot, each with its own 64-bit hash: the
	 * run of slots is long, yet only the entry searched for is compared */
	for (int i = 0; i < N; i++) {
		v[i] = i;
		CHECK_INT(htab_insert(h, (uint64_t)(i + 1) << 40, &v[i]), 0);
	}
	eq_calls = 0;
	for (int i = 0; i < N; i++)
		CHECK(htab_find(h, (uint64_t)(i + 1) << 40, &v[i], int_eq) == &v[i]);
	CHECK_INT(eq_calls, N);
	htab_free(h);
}

TEST(htab_equal_hashes_collide)
{
	enum { N = 300 };
	struct htab *h = htab_new(0);
	int v[N], k;

	CHECK(h);
	if (!h)
		return;
	/* every hash equal: only the comparison tells entries apart */
	for (int i = 0; i < N; i++) {
		v[i] = i;
		CHECK_INT(htab_insert(h, 42, &v[i]), 0);
	}
	for (int i = 0; i < N; i++)
		CHECK(htab_find(h, 42, &v[i], int_eq) == &v[i]);
	k = N;
	CHECK(!htab_find(h, 42, &k, int_eq));
	/* removing from the middle of the one long run keeps the rest */
	for (int i = 0; i < N; i += 2)
		CHECK(htab_remove(h, 42, &v[i], int_eq) == &v[i]);
	CHECK_INT(htab_count(h), N / 2);
	for (int i = 0; i < N; i++) {
		const void *e = htab_find(h, 42, &v[i], int_eq);

		if (i % 2)
			CHECK(e == &v[i]);
		else
			CHECK(!e);
	}
	htab_free(h);
}

TEST(htab_remove_run_wrapping_the_end)
{
	/* 16 slots (up to 8 entries).  Homes 15, 15, 0, 15, 1 fill slots
	 * 15, 0, 1, 2, 3: a run across the end of the array with entries
	 * both at and away from their home slot. */
	uint64_t home[] = { 15, 15, 0, 15, 1 };
	int v[5] = { 10, 11, 12, 13, 14 };

	for (int first = 0; first < 5; first++) {
		struct htab *h = htab_new(0);

		CHECK(h);
		if (!h)
			return;
		for (int i = 0; i < 5; i++)
			htab_insert(h, home[i] | (uint64_t)i << 32, &v[i]);
		CHECK(htab_remove(h, home[first] | (uint64_t)first << 32, &v[first], int_eq) ==
		      &v[first]);
		/* removing an absent key changes nothing */
		CHECK(!htab_remove(h, home[first] | (uint64_t)first << 32, &v[first], int_eq));
		CHECK_INT(htab_count(h), 4);
		for (int i = 0; i < 5; i++) {
			const void *e = htab_find(h, home[i] | (uint64_t)i << 32, &v[i], int_eq);

			if (i == first)
				CHECK(!e);
			else if (e != &v[i])
				test_fail(__FILE__, __LINE__, "removed %d: %d lost", first, i);
		}
		htab_free(h);
	}
}

TEST(htab_remove_random_against_reference)
{
	/* few distinct home slots, so runs are long and overlap; a key in
	 * the table is exactly a key marked present in the reference */
	enum { KEYS = 400, OPS = 40000 };
	struct htab *h = htab_new(0);
	int v[KEYS];
	bool present[KEYS] = { false };
	size_t n = 0, bad = 0;
	uint64_t rng = 1;

	CHECK(h);
	if (!h)
		return;
	for (int i = 0; i < KEYS; i++)
		v[i] = i;
	for (int op = 0; op < OPS; op++) {
		int k = (int)(rng_next(&rng) % KEYS);
		uint64_t hash = int_hash(k % 97) ^ (uint64_t)k << 48;

		if (present[k]) {
			if (htab_remove(h, hash, &k, int_eq) != &v[k])
				bad++;
			present[k] = false;
			n--;
		} else {
			if (htab_find(h, hash, &k, int_eq) || htab_insert(h, hash, &v[k]))
				bad++;
			present[k] = true;
			n++;
		}
		if (op % 97 && op != OPS - 1)
			continue;
		for (int i = 0; i < KEYS; i++) {
			uint64_t hi = int_hash(i % 97) ^ (uint64_t)i << 48;

			if ((htab_find(h, hi, &i, int_eq) == &v[i]) != present[i])
				bad++;
		}
		if (htab_count(h) != n)
			bad++;
	}
	CHECK_INT(bad, 0);
	htab_free(h);
}

TEST(htab_iterates_each_entry_once)
{
	enum { N = 1000 };
	struct htab *h = htab_new(0);
	int v[N], seen[N] = { 0 }, count = 0, twice = 0;
	size_t pos = 0;
	int *e;

	CHECK(h);
	if (!h)
		return;
	CHECK(!htab_next(h, &pos));
	for (int i = 0; i < N; i++) {
		v[i] = i;
		htab_insert(h, int_hash(i), &v[i]);
	}
	for (int i = 0; i < N; i += 3)
		htab_remove(h, int_hash(i), &v[i], int_eq);
	pos = 0;
	while ((e = htab_next(h, &pos))) {
		count++;
		twice += seen[*e]++ > 0;
		CHECK(*e % 3);
	}
	CHECK_INT(count, htab_count(h));
	CHECK_INT(count, N - (N + 2) / 3);
	CHECK_INT(twice, 0);
	/* the end stays the end */
	CHECK(!htab_next(h, &pos));
	htab_free(h);
}

/* Entries freed with the table (a leak or a double free shows under
 * SANITIZE=1); NULL accepted. */
TEST(htab_free_all_takes_the_entries)
{
	struct htab *h = htab_new(0);
	size_t pos = 0, n = 0;

	htab_free_all(NULL);
	CHECK(h != NULL);
	if (!h)
		return;
	for (int i = 0; i < 100; i++) {
		int *v = malloc(sizeof(*v));

		CHECK(v != NULL);
		if (!v)
			break;
		*v = i;
		CHECK_INT(htab_insert(h, int_hash(i), v), 0);
	}
	while (htab_next(h, &pos))
		n++;
	CHECK_INT(n, 100);
	htab_free_all(h);
}

TEST(hash_bytes_is_folded_fnv1a)
{
	/* FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c; frame colours and every
	 * string table depend on this function staying the same */
	uint64_t fnv = 0xaf63dc4c8601ec8cULL;

	CHECK(hash_bytes("a", 1, 0) == (fnv ^ fnv >> 32));
	CHECK(hash_bytes("", 0, 0) == (0xcbf29ce484222325ULL ^ 0xcbf29ce484222325ULL >> 32));
	CHECK(hash_bytes("ab", 2, 0) != hash_bytes("ba", 2, 0));
	CHECK(hash_bytes("ab", 2, 1) != hash_bytes("ab", 2, 0));
}
