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

/* A copy's progress: the next chunk of [sp, sp + snapshot_bytes) into
 * dst at copied; 0 once it is over. */
static __always_inline int copy_chunk(__u8 *dst, __u64 sp, __u64 *copied, __u64 *chunk)
{
	__u64 n, at = *copied;

	if (at >= snapshot_bytes)
		return 0;
	if (*chunk > snapshot_bytes - at)
		*chunk = snapshot_bytes - at;
	/* bounds in a form the verifier follows */
	n = *chunk & (2 * SNAP_PAGE - 1);
	at &= 2 * SNAPSHOT_MAX - 1;
	if (at >= SNAPSHOT_MAX || n == 0 || n > SNAP_PAGE)
		return 0;
	if (bpf_probe_read_user(dst + at, n, (void *)(sp + at)))
		return 0;
	*copied = at + n;
	*chunk = SNAP_PAGE;
	return 1;
}

/* Where bpf_loop() is (stacks_bpf_loop), a chunk per step, the copy's
 * progress in map memory the verifier does not follow (as the in-kernel
 * walk's, kunwind.bpf.h): one step verified, not the unrolled loop's
 * nine (about 1,000 instructions of profile's sample program). */
struct snap_copy {
	__u64 sp, copied, chunk;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct snap_copy);
} snapshot_copy_at SEC(".maps");

struct snap_copy_ctx {
	__u8 *dst;
	struct snap_copy *c;
};

static long copy_step(__u64 index, void *arg)
{
	struct snap_copy_ctx *x = arg;
	struct snap_copy *c = x->c;

	return copy_chunk(x->dst, c->sp, &c->copied, &c->chunk) ? 0 : 1;
}

/* Copies [sp, sp + snapshot_bytes) or up to the mapping's end into dst;
 * returns the bytes copied (at most SNAPSHOT_MAX). */
static __always_inline __u32 copy_user_stack(__u8 *dst, __u64 sp)
{
	__u64 copied = 0, chunk = SNAP_PAGE - (sp & (SNAP_PAGE - 1));

	if (stacks_bpf_loop) {
		__u32 zero = 0;
		struct snap_copy_ctx x = { .dst = dst,
					   .c = bpf_map_lookup_elem(&snapshot_copy_at, &zero) };

		if (!x.c)
			return 0;
		*x.c = (struct snap_copy){ .sp = sp, .chunk = chunk };
		bpf_loop(SNAPSHOT_MAX / SNAP_PAGE + 1, copy_step, &x, 0);
		copied = x.c->copied;
		return copied > SNAPSHOT_MAX ? 0 : copied;
	}
	for (int i = 0; i < SNAPSHOT_MAX / SNAP_PAGE + 1; i++)
		if (!copy_chunk(dst, sp, &copied, &chunk))
			break;
	return copied;
}

#endif
