/* A window's BPF maps read whole and emptied in batches (stacks/kmaps.c),
 * on real hash maps of the running kernel (root; skipped otherwise). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "test.h"
#include "bpf/stacks.h"
#include "stacks/kmaps.h"

#define NKEYS 3000	/* three batches and a part */

struct key {
	__u32 pid, tid;
	__u64 gen;
};

struct seen {
	unsigned char hits[NKEYS];
	unsigned long long sum;
	int bad;
	int stop_after;		/* > 0: fail the entry after this many */
	int calls;
};

static int on_entry(void *ctx, const void *k, const void *v)
{
	struct seen *s = ctx;
	const struct key *key = k;
	__u64 value;

	memcpy(&value, v, sizeof(value));
	if (s->stop_after && ++s->calls > s->stop_after)
		return -ECANCELED;
	if (key->pid >= NKEYS || key->gen != key->pid * 3ULL || value != key->pid + 1ULL)
		s->bad++;
	else
		s->hits[key->pid]++;
	s->sum += value;
	return 0;
}

/* A hash map like profile's `counts`, filled with NKEYS entries; -1 when
 * this process may not create one. */
static int counts_map(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "t_counts", sizeof(struct key), sizeof(__u64),
				2 * NKEYS, &o);

	for (__u32 i = 0; fd >= 0 && i < NKEYS; i++) {
		struct key k = { .pid = i, .tid = i % 7, .gen = i * 3ULL };
		__u64 v = i + 1;

		if (bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST)) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static bool map_empty(int fd, size_t key_size)
{
	char key[64];

	return key_size <= sizeof(key) && bpf_map_get_next_key(fd, NULL, key) && errno == ENOENT;
}

TEST(kmaps_drain_reads_every_entry_once_and_empties)
{
	struct seen *s = calloc(1, sizeof(*s));
	int fd = counts_map(), missing = 0;
	int64_t n;

	if (fd < 0) {
		free(s);
		SKIP("cannot create a BPF hash map here (%s): needs root", strerror(errno));
	}
	n = kmap_drain(fd, sizeof(struct key), sizeof(__u64), on_entry, s);
	if (n == -EOPNOTSUPP) {
		close(fd);
		free(s);
		SKIP("this kernel has no batch operation on hash maps");
	}
	CHECK_INT(n, NKEYS);
	CHECK_INT(s->bad, 0);
	for (int i = 0; i < NKEYS; i++)
		missing += s->hits[i] != 1;
	CHECK_INT(missing, 0);
	CHECK_INT(s->sum, (unsigned long long)NKEYS * (NKEYS + 1) / 2);
	CHECK(map_empty(fd, sizeof(struct key)));
	/* an empty map: nothing, no error */
	CHECK_INT(kmap_drain(fd, sizeof(struct key), sizeof(__u64), on_entry, s), 0);
	close(fd);
	free(s);
}

TEST(kmaps_drain_stops_at_the_callbacks_error)
{
	struct seen *s = calloc(1, sizeof(*s));
	int fd = counts_map();
	int64_t n;

	if (fd < 0) {
		free(s);
		SKIP("cannot create a BPF hash map here (%s): needs root", strerror(errno));
	}
	s->stop_after = 10;
	n = kmap_drain(fd, sizeof(struct key), sizeof(__u64), on_entry, s);
	if (n != -EOPNOTSUPP) {
		CHECK_INT(n, -ECANCELED);
		CHECK_INT(s->calls, 11);
	}
	close(fd);
	free(s);
}

TEST(kmaps_stacks_by_handle)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "t_stacks", sizeof(__u64),
				sizeof(struct stack_trace), 4096, NULL);
	struct stack_trace *st = calloc(1, sizeof(*st));
	uint64_t ips[STACK_MAX_DEPTH];
	struct kstacks *k;
	bool trunc = true;

	if (fd < 0) {
		free(st);
		SKIP("cannot create a BPF hash map here (%s): needs root", strerror(errno));
	}
	/* 2000 stacks of 1 to 9 frames (more than a batch), and one of the
	 * kernel's full depth */
	for (__u64 i = 0; i < 2000; i++) {
		__u64 h = STACK_HASH_BIT | (i * 7919);

		memset(st, 0, sizeof(*st));
		st->nr = 1 + i % 9;
		st->flags = i == 5 ? STACK_F_TRUNCATED : 0;
		for (__u32 j = 0; j < st->nr; j++)
			st->ips[j] = 0x400000 + i * 16 + j;
		CHECK_INT(bpf_map_update_elem(fd, &h, st, BPF_NOEXIST), 0);
	}
	__u64 deep = STACK_HASH_BIT | 1;
	st->nr = STACK_MAX_DEPTH;
	st->flags = 0;
	CHECK_INT(bpf_map_update_elem(fd, &deep, st, BPF_NOEXIST), 0);
	k = kstacks_take(fd);
	if (!k && errno == EOPNOTSUPP) {
		close(fd);
		free(st);
		SKIP("this kernel has no batch operation on hash maps");
	}
	CHECK(k != NULL);
	if (!k)
		goto out;
	CHECK_INT(kstacks_count(k), 2001);
	CHECK(map_empty(fd, sizeof(__u64)));
	CHECK_INT(kstacks_read(k, STACK_HASH_BIT | (1234 * 7919), ips), 1 + 1234 % 9);
	CHECK_INT(ips[0], 0x400000 + 1234 * 16);
	CHECK_INT(ips[1234 % 9], 0x400000 + 1234 * 16 + 1234 % 9);
	CHECK_INT(kstacks_read_user(k, STACK_HASH_BIT | (5 * 7919), ips, &trunc), 6);
	CHECK(trunc);
	CHECK_INT(kstacks_read_user(k, STACK_HASH_BIT | (6 * 7919), ips, &trunc), 7);
	CHECK(!trunc);
	/* at the kernel's depth limit: maybe deeper, so truncated */
	CHECK_INT(kstacks_read_user(k, deep, ips, &trunc), STACK_MAX_DEPTH);
	CHECK(trunc);
	CHECK_INT(kstacks_read(k, STACK_NONE, ips), 0);
	CHECK_INT(kstacks_read(k, STACK_LOST, ips), -1);
	CHECK_INT(kstacks_read(k, STACK_HASH_BIT | 3, ips), -1);	/* not stored */
	kstacks_free(k);
out:
	close(fd);
	free(st);
}
