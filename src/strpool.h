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

#endif
