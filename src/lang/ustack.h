/* User stacks the language unwinds in user space (`ustack` without fp):
 * the stacks themselves, interned, and the maps keyed by them, which the
 * runtime aggregates from the records the programs send (codegen's
 * LANG_CGS_UAGG, rec.h's struct lang_rec_snap).
 *
 * An interned stack is (pid, address space, pcs, truncated): the same
 * chain in two address spaces is two stacks, so that each is named with
 * the mappings it ran under, even after the process exited or exec'd.
 * Its id is what the runtime writes into the lang_rec_stack of a key.
 *
 * A table (struct lang_uagg) holds one map: key bytes (the map's key
 * layout, stacks by id) -> value bytes in the layouts a BPF map of the
 * same aggregation holds (rec.h), so that printing reads both alike. */
#ifndef STACKSCOPE_LANG_USTACK_H
#define STACKSCOPE_LANG_USTACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lang/ast.h"

struct lang_ustack {
	uint32_t pid;
	uint64_t gen;		/* the address space: proctab's begin + 1 */
	bool truncated;		/* the chain did not reach its outermost frame */
	int n;
	uint64_t *ips;		/* innermost first; owned */
	int64_t id;
};

struct lang_ustacks;
struct lang_ustacks *lang_ustacks_new(void);
void lang_ustacks_free(struct lang_ustacks *u);
/* The id of (pid, gen, ips, truncated), added when new; -ENOMEM. */
int64_t lang_ustacks_add(struct lang_ustacks *u, uint32_t pid, uint64_t gen, const uint64_t *ips,
			 int n, bool truncated);
/* The stack of id, or NULL. */
const struct lang_ustack *lang_ustacks_get(const struct lang_ustacks *u, int64_t id);
size_t lang_ustacks_count(const struct lang_ustacks *u);

struct lang_uagg;
/* A table of values of kind (COUNT SUM MIN MAX AVG STATS HIST LHIST, or
 * INT: the last value stored), at most max_entries keys. */
struct lang_uagg *lang_uagg_new(uint32_t key_size, uint32_t value_size, enum lang_kind kind,
				uint32_t nbuckets, uint32_t max_entries);
void lang_uagg_free(struct lang_uagg *a);
/* Adds operand to key's value as the map's aggregation does (hist,
 * lhist: operand is the bucket).  0, -ENOSPC (full: not added), -ENOMEM. */
int lang_uagg_add(struct lang_uagg *a, const void *key, int64_t operand);
/* clear(): every key gone; zero(): every value zeroed. */
void lang_uagg_clear(struct lang_uagg *a);
void lang_uagg_zero(struct lang_uagg *a);
size_t lang_uagg_count(const struct lang_uagg *a);
/* The i-th element (0 <= i < count, in no useful order). */
void lang_uagg_get(const struct lang_uagg *a, size_t i, const void **key, const void **value);

/* dst = dst combined with src, two values of kind (value_size bytes):
 * counts, sums, averages and buckets added, min/max kept, INT: dst. */
void lang_uagg_combine(enum lang_kind kind, void *dst, const void *src, uint32_t value_size);

#endif
