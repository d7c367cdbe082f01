/* The kernel half of the stack store (bpf/stacks.h): stacks stored once
 * under a 64-bit hash of their pcs, shared by every program that
 * aggregates by stack (profile, offcpu).  Included once per BPF object:
 * it defines the `stacks`, `stack_scratch` and `stack_errors` maps. */
#ifndef STACKSCOPE_BPF_STACKS_BPF_H
#define STACKSCOPE_BPF_STACKS_BPF_H
#include "bpf/stacks.h"
#include "bpf/helpers.bpf.h"

#ifndef EFAULT
#define EFAULT 14
#endif
#ifndef EEXIST
#define EEXIST 17
#endif

/* Not preallocated: creating 16384 x ~1 KiB elements up front wrote 17 MiB
 * of kernel memory at every start (about 65 ms in a VM, half of a short
 * run).  Elements come from the kernel's BPF allocator instead, whose
 * per-CPU reserve of elements this size starts at one and is refilled
 * behind the program (irq_work): a program storing two stacks at once
 * (kernel and user) could lose the second on a CPU's first run, so user
 * space fills each CPU's reserve once after loading
 * (stackcmd_warm_store()); an allocation that still fails is counted
 * (STACKERR_FULL), like a full store. */
struct stack_store {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct stack_trace);
};
struct stack_store stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_trace);
} stack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STACKERR_NR);
	__type(key, __u32);
	__type(value, __u64);
} stack_errors SEC(".maps");

/* hash_ips() steps through bpf_loop() where the kernel has it
 * (stacks_bpf_loop, helpers.bpf.h): the verifier checks one step, not
 * STACK_MAX_DEPTH unrolled ones (about 1,000 of profile's sample
 * program's 8,000 instructions processed). */

/* One word into an FNV-1a hash. */
static __always_inline __u64 fnv_word(__u64 h, __u64 w)
{
	return (h ^ w) * 0x100000001b3ULL;
}

struct hash_state {
	const struct stack_trace *st;
	__u64 h;
};

static long hash_step(__u64 i, void *arg)
{
	struct hash_state *x = arg;

	if (i >= STACK_MAX_DEPTH || i >= x->st->nr)
		return 1;
	x->h = fnv_word(x->h, x->st->ips[i]);
	return 0;
}

/* 64-bit FNV-1a over the words, then a final avalanche (murmur3 fmix64).
 * A global function: the verifier walks its loop of STACK_MAX_DEPTH once
 * for the whole object, not once per caller (a quarter of profile's
 * sample program's verification when it was inlined twice). */
__noinline __u64 hash_ips(const struct stack_trace *st, __u64 seed)
{
	__u64 h = 0xcbf29ce484222325ULL ^ seed;

	if (!st)
		return STACK_HASH_BIT;
	if (stacks_bpf_loop) {
		struct hash_state x = { .st = st, .h = h };

		bpf_loop(STACK_MAX_DEPTH, hash_step, &x, 0);
		h = x.h;
	} else {
		for (int i = 0; i < STACK_MAX_DEPTH; i++) {
			if (i >= (int)st->nr)
				break;
			h = fnv_word(h, st->ips[i]);
		}
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h | STACK_HASH_BIT;
}

/* The current task's kernel stack (flags 0) or user stack
 * (BPF_F_USER_STACK), stored in `store` (the `stacks` map, or one shaped
 * like it); returns its handle, STACK_NONE, or STACK_LOST with the reason
 * counted in `stack_errors`. */
static __always_inline __u64 record_stack_in(void *store, void *ctx, __u64 flags)
{
	__u32 zero = 0;
	struct stack_trace *st = bpf_map_lookup_elem(&stack_scratch, &zero);
	long n;
	__u64 h;

	if (!st)
		return STACK_LOST;
	n = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);
	if (n < 0) {
		/* a kernel thread has no user stack: that is not a loss */
		if ((flags & BPF_F_USER_STACK) && n == -EFAULT)
			return STACK_NONE;
		stat_inc(&stack_errors, flags & BPF_F_USER_STACK ? STACKERR_USER : STACKERR_KERNEL);
		return STACK_LOST;
	}
	st->nr = n / sizeof(__u64);
	st->flags = 0;
	if (st->nr == 0)
		return STACK_NONE;
	h = hash_ips(st, flags);
	n = bpf_map_update_elem(store, &h, st, BPF_NOEXIST);
	if (n && n != -EEXIST) {
		stat_inc(&stack_errors, STACKERR_FULL);
		return STACK_LOST;
	}
	return h;
}

/* Stores the stack in *st (a kunwind walk's) in `store`: its handle, or
 * STACK_LOST with the reason counted. */
static __always_inline __u64 store_stack_in(void *store, struct stack_trace *st)
{
	long err;
	__u64 h;

	if (st->nr == 0)
		return STACK_NONE;
	/* a truncated chain is another stack than the same pcs completed */
	h = hash_ips(st, BPF_F_USER_STACK | ((__u64)st->flags << 32));
	err = bpf_map_update_elem(store, &h, st, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		stat_inc(&stack_errors, STACKERR_FULL);
		return STACK_LOST;
	}
	return h;
}

static __always_inline __u64 record_stack(void *ctx, __u64 flags)
{
	return record_stack_in(&stacks, ctx, flags);
}

#endif
