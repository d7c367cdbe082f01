#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "bpf/stacks.h"
#include "stacks/kmaps.h"

#define KMAP_BATCH 1024		/* entries per system call */
#define KMAP_BATCH_MAX (1u << 16)	/* ... when a hash bucket holds more */
#define KMAP_TOKEN 8		/* a hash map's batch token is its bucket's u32 index */
#ifndef ENOTSUPP
#define ENOTSUPP 524		/* the kernel's own, seen by user space as is */
#endif

int64_t kmap_drain(int fd, size_t key_size, size_t value_size, kmap_entry_fn *fn, void *ctx)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 batch = KMAP_BATCH, count;
	char in[KMAP_TOKEN], out[KMAP_TOKEN];
	char *keys = malloc(batch * key_size), *values = malloc(batch * value_size);
	bool first = true;
	int64_t total = 0;
	int err = 0;

	if (!keys || !values) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		count = batch;
		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : in, out, keys, values,
						      &count, &opts) < 0 ? -errno : 0;
		if (err == -ENOSPC && !count && batch < KMAP_BATCH_MAX) {
			/* a bucket holds more entries than a batch: larger */
			char *k = realloc(keys, 2 * batch * key_size);
			char *v = k ? realloc(values, 2 * batch * value_size) : NULL;

			if (k)
				keys = k;
			if (!v) {
				err = -ENOMEM;
				goto out;
			}
			values = v;
			batch *= 2;
			continue;
		}
		if (err && err != -ENOENT) {
			if (first && (err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP))
				err = -EOPNOTSUPP;
			goto out;
		}
		for (__u32 i = 0; i < count; i++) {
			int ret = fn(ctx, keys + i * key_size, values + i * value_size);

			if (ret < 0) {
				err = ret;
				goto out;
			}
			total++;
		}
		if (err == -ENOENT) {	/* the last batch */
			err = 0;
			break;
		}
		memcpy(in, out, sizeof(in));
		first = false;
	}
out:
	free(keys);
	free(values);
	return err ? err : total;
}

struct kstack {
	__u64 handle;
	__u32 nr, flags;
	size_t at;		/* its ips in kstacks.ips */
};

struct kstacks {
	struct kstack *v;
	size_t n, cap;
	uint64_t *ips;
	size_t nips, ips_cap;
};

static int take_one(void *ctx, const void *key, const void *value)
{
	struct kstacks *k = ctx;
	const struct stack_trace *st = value;
	__u32 nr = st->nr > STACK_MAX_DEPTH ? STACK_MAX_DEPTH : st->nr;

	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 1024;
		struct kstack *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	if (k->nips + nr > k->ips_cap) {
		size_t cap = k->ips_cap ? 2 * k->ips_cap : 16384;
		uint64_t *ips;

		while (cap < k->nips + nr)
			cap *= 2;
		ips = realloc(k->ips, cap * sizeof(*ips));
		if (!ips)
			return -ENOMEM;
		k->ips = ips;
		k->ips_cap = cap;
	}
	memcpy(&k->v[k->n].handle, key, sizeof(__u64));
	k->v[k->n].nr = nr;
	k->v[k->n].flags = st->flags;
	k->v[k->n].at = k->nips;
	memcpy(k->ips + k->nips, st->ips, nr * sizeof(*k->ips));
	k->nips += nr;
	k->n++;
	return 0;
}

static int kstack_cmp(const void *a, const void *b)
{
	const struct kstack *x = a, *y = b;

	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

struct kstacks *kstacks_take(int stacks_fd)
{
	struct kstacks *k = calloc(1, sizeof(*k));
	int64_t n;

	if (!k)
		return NULL;
	n = kmap_drain(stacks_fd, sizeof(__u64), sizeof(struct stack_trace), take_one, k);
	if (n < 0) {
		kstacks_free(k);
		errno = (int)-n;
		return NULL;
	}
	/* none taken: k->v is NULL, which qsort() may not be given */
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), kstack_cmp);
	return k;
}

void kstacks_free(struct kstacks *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->ips);
	free(k);
}

size_t kstacks_count(const struct kstacks *k)
{
	return k->n;
}

static const struct kstack *find(const struct kstacks *k, __u64 handle)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].handle == handle)
			return &k->v[mid];
		if (k->v[mid].handle < handle)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int read_flags(const struct kstacks *k, __u64 handle, uint64_t *ips, __u32 *flags)
{
	const struct kstack *s;

	*flags = 0;
	if (handle == STACK_NONE)
		return 0;
	if (handle == STACK_LOST || !(s = find(k, handle)))
		return -1;
	memcpy(ips, k->ips + s->at, s->nr * sizeof(*ips));
	*flags = s->flags;
	return (int)s->nr;
}

int kstacks_read(const struct kstacks *k, __u64 handle, uint64_t *ips)
{
	__u32 flags;

	return read_flags(k, handle, ips, &flags);
}

int kstacks_read_user(const struct kstacks *k, __u64 handle, uint64_t *ips, bool *truncated)
{
	__u32 flags;
	int n = read_flags(k, handle, ips, &flags);

	*truncated = n >= 0 && ((flags & STACK_F_TRUNCATED) || n == STACK_MAX_DEPTH);
	return n;
}
