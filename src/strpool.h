/* String interning: one copy of each distinct string, freed together. */
#ifndef STACKSCOPE_STRPOOL_H
#define STACKSCOPE_STRPOOL_H
#include <stddef.h>

struct strpool;
struct strpool *strpool_new(void);
void strpool_free(struct strpool *sp);
/* The pooled copy of s (len bytes, no NUL needed), NUL-terminated; NULL
 * with errno ENOMEM. */
const char *strpool_intern_len(struct strpool *sp, const char *s, size_t len);
const char *strpool_intern(struct strpool *sp, const char *s);
/* out[i] = strpool_intern_len(sp, strs[i], lens[i]) for i < n, faster
 * than one by one when the pool is large (the look-ups' cache misses
 * overlap).  0, or -ENOMEM (out[] partly filled). */
int strpool_intern_n(struct strpool *sp, size_t n, const char *const *strs, const size_t *lens,
		     const char **out);
size_t strpool_count(const struct strpool *sp);
/* Heap bytes the pool takes: its blocks, index and table of ids. */
size_t strpool_bytes(const struct strpool *sp);
/* The number of a pooled string s (from strpool_intern*() of any pool):
 * 0 for its pool's first string, then 1, 2... in the order of interning;
 * O(1), so a caller can keep per-string data in an array. */
size_t strpool_id(const char *s);
/* The string numbered id (< strpool_count()). */
const char *strpool_get(const struct strpool *sp, size_t id);

#endif
