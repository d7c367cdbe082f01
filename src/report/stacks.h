/* The in-memory model every report writer consumes: a multiset of call
 * stacks, each with a value (samples, or microseconds off-CPU).  Capture
 * code fills it with stacks_add(); folded, flame graph and other writers
 * only read it. */
#ifndef REPORT_STACKS_H
#define REPORT_STACKS_H
#include <stdint.h>
#include <stddef.h>

/* FRAME_MARK: synthetic frames such as "[truncated]", "[lost stack]" or a
 * "--" separator between a kernel and a user stack. */
enum frame_kind { FRAME_USER, FRAME_KERNEL, FRAME_COMM, FRAME_MARK };

/* One frame.  In a struct stacks, name is interned and owned by it (equal
 * names share one pointer); as an argument to stacks_add() it is the
 * caller's. */
struct frame {
	const char *name;
	enum frame_kind kind;
};

/* One distinct stack: frames[0] is the outermost (root) frame,
 * frames[depth - 1] the innermost (leaf).  frames is owned by the struct
 * stacks; value is the sum of every stacks_add() of this stack. */
struct stack_entry {
	struct frame *frames;
	unsigned int depth;
	uint64_t value;
};

struct stacks;

struct stacks *stacks_new(void);
void stacks_free(struct stacks *s);

/* Copies frames, interning their names.  A stack whose frames (names and
 * kinds) equal an existing entry's is merged into it: values add up
 * (saturating at UINT64_MAX).  O(depth) amortised.  Returns 0, -EINVAL
 * (depth 0, a NULL name) or -ENOMEM.  Pointers from stacks_get() are
 * invalidated by stacks_add() and stacks_sort(). */
int stacks_add(struct stacks *s, const struct frame *frames, unsigned int depth,
	       uint64_t value);

size_t stacks_count(const struct stacks *s);
/* Entry i (0 <= i < stacks_count()), NULL when out of range. */
const struct stack_entry *stacks_get(const struct stacks *s, size_t i);
/* Sum of all values (saturating). */
uint64_t stacks_total(const struct stacks *s);

/* Orders entries by stacks_entry_cmp(), so writers produce the same output
 * for the same data whatever order it was captured in. */
void stacks_sort(struct stacks *s);

/* Lexical order of two stacks, root frame first: frame names by strcmp(),
 * then kind (user < kernel < comm < mark), and a stack before every longer
 * stack it is a prefix of.  0 only for equal stacks. */
int stacks_entry_cmp(const struct stack_entry *a, const struct stack_entry *b);

#endif
