/* perf side-band records: every exec, fork and executable mmap on the
 * system while a run lasts, read from a dummy software event per CPU.
 * This is what lets a process that has already exited be symbolized.
 *
 * Records are kept as they arrive and applied to a proctab in time order
 * at the end (the per-CPU buffers are not ordered among themselves: a
 * child's first mmap can be read before the fork that created it). */
#ifndef STACKSCOPE_TRACE_SIDEBAND_H
#define STACKSCOPE_TRACE_SIDEBAND_H
#include <stdint.h>
#include "sym/proctab.h"

struct sideband;
/* Opens and enables the events on every online CPU; NULL with errno. */
struct sideband *sideband_open(void);
/* An fd that becomes readable when records are waiting. */
int sideband_fd(const struct sideband *sb);
/* Reads what is waiting and applies every record read so far to pt, in
 * time order; a failure is said once here.  0 or -errno. */
int sideband_sync(struct sideband *sb, struct proctab *pt);
/* Records the kernel dropped because a buffer was full. */
uint64_t sideband_lost(const struct sideband *sb);
void sideband_free(struct sideband *sb);

#endif
