/* Aggregation in user space of samples whose user stack was unwound
 * here: count per (process, generation, thread (0 unless asked), thread
 * name, kernel stack handle, user stack, truncated).  The in-kernel `counts` map does the same for
 * stacks the kernel took whole. */
#ifndef STACKSCOPE_STACKS_STACKAGG_H
#define STACKSCOPE_STACKS_STACKAGG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stackagg_entry {
	uint32_t pid, tid;
	uint64_t gen;
	char comm[17];
	bool truncated;		/* the user chain did not reach its end */
	uint64_t kstack;	/* handle into the BPF `stacks` map */
	uint64_t value;
	uint64_t events;	/* the events value sums, when counted apart (offcpu: waits) */
	int n;
	uint64_t *ips;		/* user pcs, innermost first; owned */
	void *extra;		/* more key bytes (e.g. a waker), owned */
	size_t extra_len;
};

/* What a sample is counted under, besides its user stack. */
struct stackagg_key {
	uint32_t pid, tid;
	uint64_t gen;
	const char *comm;
	uint64_t kstack;
	const void *extra;	/* compared bytewise; may be NULL */
	size_t extra_len;
};

struct stackagg;
struct stackagg *stackagg_new(void);
void stackagg_free(struct stackagg *a);
/* Adds value (and events, the events it sums, 0 when not counted) to
 * the entry of (k, ips, truncated). */
int stackagg_add(struct stackagg *a, const struct stackagg_key *k, const uint64_t *ips, int n,
		 bool truncated, uint64_t value, uint64_t events);
size_t stackagg_count(const struct stackagg *a);
const struct stackagg_entry *stackagg_get(const struct stackagg *a, size_t i);

#endif
