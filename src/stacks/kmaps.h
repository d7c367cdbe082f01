/* A window's BPF maps read whole and emptied in a few system calls
 * (BPF_MAP_LOOKUP_AND_DELETE_BATCH), not a get-next-key, a look-up and a
 * delete per entry: profile --every reads its idle slot this way at every
 * window.  Only for maps nothing writes meanwhile (a switched-off slot,
 * or sampling detached): an entry added during the walk may be missed.
 *
 * A kernel without the batch operation on hash maps (before 5.6), or
 * that refuses it, gives -EOPNOTSUPP before anything was read or
 * deleted: the caller reads the map key by key instead. */
#ifndef STACKSCOPE_STACKS_KMAPS_H
#define STACKSCOPE_STACKS_KMAPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

/* Called for every entry taken out of the map; a negative return stops
 * the drain (returned by it; the entries of that batch after this one are
 * lost from the map all the same). */
typedef int kmap_entry_fn(void *ctx, const void *key, const void *value);

/* Every entry of the hash map fd (keys of key_size, values of
 * value_size bytes) passed to fn and deleted.  Returns the number of
 * entries, -EOPNOTSUPP (nothing read: see above), or -errno. */
int64_t kmap_drain(int fd, size_t key_size, size_t value_size, kmap_entry_fn *fn, void *ctx);

/* A stack store (bpf/stacks.h: `stacks`, handle -> struct stack_trace)
 * taken out of the kernel whole, its stacks looked up here by handle. */
struct kstacks;

/* NULL with errno (EOPNOTSUPP: as kmap_drain()). */
struct kstacks *kstacks_take(int stacks_fd);
void kstacks_free(struct kstacks *k);
/* As stackpipe_read_stack() / stackpipe_read_ustack() (stacks/pipeline.h)
 * on the map it was taken from: the depth, 0 for STACK_NONE, -1 lost
 * (STACK_LOST, or not in the store). */
int kstacks_read(const struct kstacks *k, __u64 handle, uint64_t *ips);
int kstacks_read_user(const struct kstacks *k, __u64 handle, uint64_t *ips, bool *truncated);
/* Stacks held. */
size_t kstacks_count(const struct kstacks *k);

#endif
