/* Folded stacks ("a;b;c 42" per line), the interchange format of
 * flamegraph.pl's stackcollapse tools and inferno. */
#ifndef REPORT_FOLDED_H
#define REPORT_FOLDED_H
#include <stdio.h>
#include "report/stacks.h"

/* One line per entry, in the entries' order (stacks_sort() first for
 * deterministic output; entries next to each other whose names are equal,
 * differing only by address, are one line): "a;b;c VALUE\n".  FRAME_KERNEL frames get the
 * suffix "_[k]"; other kinds are written as is.  In names, ';' becomes ':'
 * and '\n' / '\r' become ' ' so every line stays parseable.  Returns 0 or
 * -errno on a write error. */
int report_folded_write(FILE *f, const struct stacks *s);

/* Adds every line of folded text to s: frames split on ';', the value is
 * the last space-separated field (an unsigned integer); a frame ending in
 * "_[k]" is FRAME_KERNEL (suffix removed), every other frame FRAME_USER.
 * Blank lines are skipped, a trailing '\r' is ignored.  Returns 0; -EINVAL
 * on a malformed line, whose 1-based number is stored in *bad_line when
 * bad_line is not NULL; -ENOMEM; or -errno on a read error. */
int report_folded_read(FILE *f, struct stacks *s, size_t *bad_line);

#endif
