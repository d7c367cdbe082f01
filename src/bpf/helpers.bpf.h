/* What every program does the same way: counting in its per-CPU stats,
 * adding to a sum by key, and deciding when a ring buffer's reader is
 * woken. */
#ifndef STACKSCOPE_BPF_HELPERS_BPF_H
#define STACKSCOPE_BPF_HELPERS_BPF_H

/* The kernel has bpf_loop() (5.17): set by user space where it knows it
 * (the in-kernel unwinder needs it), so that a loop can be a step
 * verified once rather than unrolled (stacks.bpf.h, snapshot.bpf.h). */
const volatile bool stacks_bpf_loop = false;

/* One more in slot idx of a per-CPU array of __u64 counters. */
static __always_inline void stat_inc(void *map, __u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	if (v)
		(*v)++;
}

/* Adds delta to the __u64 of key in a hash map, inserting it when it is
 * not there.  Returns 0, or -errno when the map is full. */
static __always_inline long map_add(void *map, const void *key, __u64 delta)
{
	__u64 *v = bpf_map_lookup_elem(map, key);
	long err;

	if (!v) {
		err = bpf_map_update_elem(map, key, &delta, BPF_NOEXIST);
		if (!err)
			return 0;
		/* another CPU inserted the same key first, or the map is full */
		v = bpf_map_lookup_elem(map, key);
		if (!v)
			return err;
	}
	__sync_fetch_and_add(v, delta);
	return 0;
}

/* Adds (a, b) to the pair of __u64 of key in a hash map (a sum and the
 * events it sums), inserting it when it is not there.  Returns 0, or
 * -errno when the map is full. */
static __always_inline long map_add2(void *map, const void *key, __u64 a, __u64 b)
{
	__u64 *v = bpf_map_lookup_elem(map, key), init[2] = { a, b };
	long err;

	if (!v) {
		err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
		if (!err)
			return 0;
		v = bpf_map_lookup_elem(map, key);
		if (!v)
			return err;
	}
	__sync_fetch_and_add(&v[0], a);
	__sync_fetch_and_add(&v[1], b);
	return 0;
}

/* The flags of a ring-buffer record: no wake-up per record (every reader
 * also drains on a timer) until `threshold` bytes wait unread, then a
 * forced one, so that a burst is drained before the ring fills.  The
 * threshold is each ring's own: the 8 MiB `snapshots` of profile and
 * offcpu wake at a quarter; syscalls' ring is sized by --buffer-size at
 * run time, so user space passes a quarter of it in `wakeup_bytes`; and
 * graph, whose records come at the rate the traced program calls
 * functions, wakes its reader early, at 1 MiB of its 16. */
static __always_inline __u64 ringbuf_wakeup_flags(void *ringbuf, __u64 threshold)
{
	return bpf_ringbuf_query(ringbuf, BPF_RB_AVAIL_DATA) >= threshold ? BPF_RB_FORCE_WAKEUP
									  : BPF_RB_NO_WAKEUP;
}

#endif
