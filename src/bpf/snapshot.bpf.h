/* Copying the top of the current task's user stack for unwinding in user
 * space.  The copy goes page by page and stops at the first page that
 * cannot be read: the end of the stack mapping, found without looking it
 * up (one read across it would fail as a whole). */
#ifndef STACKSCOPE_BPF_SNAPSHOT_BPF_H
#define STACKSCOPE_BPF_SNAPSHOT_BPF_H
#include "bpf/stacks.h"

#define SNAP_PAGE 4096
/* the buffer a copy goes to: the verifier sees copied + chunk */
#define SNAPSHOT_BUF (SNAPSHOT_MAX + SNAP_PAGE)

const volatile __u32 snapshot_bytes = SNAPSHOT_DEFAULT;	/* <= SNAPSHOT_MAX */
/* a quarter of the `snapshots` ring, as sized */
const volatile __u64 snapshots_wakeup = SNAPSHOTS_SIZE / 4;

/* Copies [sp, sp + snapshot_bytes) or up to the mapping's end into dst;
 * returns the bytes copied. */
static __always_inline __u32 copy_user_stack(__u8 *dst, __u64 sp)
{
	__u64 copied = 0, chunk = SNAP_PAGE - (sp & (SNAP_PAGE - 1)), n;

	for (int i = 0; i < SNAPSHOT_MAX / SNAP_PAGE + 1; i++) {
		if (copied >= snapshot_bytes)
			break;
		if (chunk > snapshot_bytes - copied)
			chunk = snapshot_bytes - copied;
		/* bounds in a form the verifier follows */
		n = chunk & (2 * SNAP_PAGE - 1);
		copied &= 2 * SNAPSHOT_MAX - 1;
		if (copied >= SNAPSHOT_MAX || n == 0 || n > SNAP_PAGE)
			break;
		if (bpf_probe_read_user(dst + copied, n, (void *)(sp + copied)))
			break;
		copied += n;
		chunk = SNAP_PAGE;
	}
	return copied;
}

#endif
