/* The in-memory model every report writer consumes: a multiset of call
 * stacks, each with a value (samples, or microseconds off-CPU).  Capture
 * code fills it with stacks_add(); folded, flame graph and other writers
 * only read it.  Stacks are kept apart by location (names, kinds,
 * addresses and modules), so a writer by address has them all; writers
 * by name (folded, SVG) merge stacks whose names are equal, which
 * stacks_sort() puts next to each other.  What a stack has beside its
 * frames rides in them: the process id in its FRAME_COMM frame's addr
 * (stacks/frame.h), which the pprof writer turns into a "pid" label. */
#ifndef REPORT_STACKS_H
#define REPORT_STACKS_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "stacks/frame.h"

/* One distinct stack: frames[0] is the outermost (root) frame,
 * frames[depth - 1] the innermost (leaf).  Frames are owned by the struct
 * stacks and interned: equal frames (name, kind, address, module, source
 * line) are one pointer, shared by every stack that has them, so a deep
 * profile of many stacks costs a pointer per frame; value is the sum of every stacks_add() of this stack; events
 * the sum of the events those values count where a capture counts them
 * apart from the value (offcpu: the waits its blocked time sums), else 0.
 * Writers by name (folded, SVG) show value only. */
struct stack_entry {
	const struct frame *const *frames;
	unsigned int depth;
	uint64_t value;
	uint64_t events;
};

struct stacks;

struct stacks *stacks_new(void);
void stacks_free(struct stacks *s);
/* A model only writers by name read (folded, SVG): from now on frames
 * keep their name and kind alone (no address, module or source line;
 * a FRAME_COMM's pid neither), so stacks equal by name are one entry as
 * they are added.  It then grows with the distinct stacks by name, not
 * with the processes or the address-space layouts that ran them.  Call
 * before the first stacks_add(). */
void stacks_keep_names_only(struct stacks *s);
/* Heap bytes the model takes (entries, frames, names, indexes). */
size_t stacks_bytes(const struct stacks *s);

/* Copies frames, interning their names, modules and source lines.  A
 * stack whose frames (names, kinds, addresses, modules, source lines)
 * equal an existing entry's is merged
 * into it: values add up
 * (saturating at UINT64_MAX).  O(depth) amortised.  Returns 0, -EINVAL
 * (depth 0, a NULL name) or -ENOMEM.  Pointers from stacks_get() are
 * invalidated by stacks_add() and stacks_sort(). */
int stacks_add(struct stacks *s, const struct frame *frames, unsigned int depth,
	       uint64_t value);
/* The same, with the events value sums (added up likewise). */
int stacks_add_events(struct stacks *s, const struct frame *frames, unsigned int depth,
		      uint64_t value, uint64_t events);

/* The model's own copies of n names, interned (the same pointer for the
 * same bytes): out[i] for names[i], lens[i] bytes (no NUL needed).  All
 * at once, so the look-ups' cache misses overlap.  0 or -ENOMEM. */
int stacks_intern_n(struct stacks *s, size_t n, const char *const *names, const size_t *lens,
		    const char **out);
/* stacks_add() for frames that need nothing copied: every name was
 * returned by stacks_intern_n() on this s, and no frame has a module (a
 * reader of text, which has neither addresses nor modules). */
int stacks_add_interned(struct stacks *s, const struct frame *frames, unsigned int depth,
			uint64_t value);

size_t stacks_count(const struct stacks *s);
/* Stacks distinct by name (what folded and SVG show); entries must be
 * sorted (stacks_sort()). */
size_t stacks_count_named(const struct stacks *s);
/* Whether two entries have the same names and kinds throughout. */
bool stacks_same_names(const struct stack_entry *a, const struct stack_entry *b);
/* Entry i (0 <= i < stacks_count()), NULL when out of range. */
const struct stack_entry *stacks_get(const struct stacks *s, size_t i);
/* Sum of all values (saturating). */
uint64_t stacks_total(const struct stacks *s);

/* Orders entries by stacks_entry_cmp(), so writers produce the same output
 * for the same data whatever order it was captured in. */
void stacks_sort(struct stacks *s);
/* Whether the entries are in that order (stacks_sort() since the last
 * new entry). */
bool stacks_is_sorted(const struct stacks *s);

/* Lexical order of two stacks, root frame first: frame names by strcmp(),
 * then kind (user < kernel < comm < mark < task), and a stack before
 * every longer stack it is a prefix of; stacks equal so far by address,
 * then module path and build id, then source line.  0 only for equal
 * stacks. */
int stacks_entry_cmp(const struct stack_entry *a, const struct stack_entry *b);

#endif
