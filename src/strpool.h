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
size_t strpool_count(const struct strpool *sp);

/* 64-bit FNV-1a, the hash every table here uses for strings. */
unsigned long long hash_bytes(const void *p, size_t len, unsigned long long seed);
/* A fast 64-bit hash for large buffers (stack snapshots): 8 bytes a
 * step on four independent lanes; not for adversarial input. */
unsigned long long hash_block(const void *p, size_t len, unsigned long long seed);

#endif
