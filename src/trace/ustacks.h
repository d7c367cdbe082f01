/* User stacks of a streaming run, named while it runs: the side-band that
 * keeps address spaces current (and exited processes known), the unwinder
 * and the symbolizer over one shared per-binary cache.  For commands that
 * print stacks as records arrive (syscalls -k) rather than aggregate
 * them at the end. */
#ifndef STACKSCOPE_TRACE_USTACKS_H
#define STACKSCOPE_TRACE_USTACKS_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "unwind/unwind.h"

struct ustacks;

/* Open before the capture is attached and the command released, so no
 * mapping falls between the side-band and the read of /proc: pids (the
 * -p list) or, when !launched and no pids, every process are read now. */
struct ustacks *ustacks_new(const pid_t *pids, int npids, bool launched);
void ustacks_free(struct ustacks *us);
/* The side-band's fd, to drain it when it fills. */
int ustacks_fd(const struct ustacks *us);
/* Applies the side-band records queued so far; call before unwinding. */
void ustacks_service(struct ustacks *us);
/* Unwinds a copied stack (unwind tables, else frame pointers); returns
 * the depth written to ips, innermost first. */
int ustacks_unwind(struct ustacks *us, uint32_t pid, uint32_t gen, const struct unwind_regs *regs,
		   const void *stack, size_t size, uint64_t *ips, int max, bool *truncated);
/* Names for ips (innermost first), written outermost first; returns n. */
int ustacks_symbolize(struct ustacks *us, uint32_t pid, uint32_t gen, const uint64_t *ips, int n,
		      const char **names);

#endif
