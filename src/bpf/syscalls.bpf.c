// SPDX-License-Identifier: GPL-2.0
/* One record per syscall: opened at sys_enter in the thread's task
 * storage (arguments, input memory), completed at sys_exit (return value,
 * output memory), then queued through the `records` ring buffer as one
 * unit of exactly the bytes used.  A record that cannot be queued is
 * counted, per syscall and in a running total every later record carries,
 * so user space can say where records went missing. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/syscalls.h"
#include "bpf/helpers.bpf.h"
#include "bpf/procs.bpf.h"
#include "bpf/snapshot.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 self_tgid = 0;	/* stackscope itself: never traced */
const volatile __u32 strsize = 32;	/* -s, <= SC_STR_MAX */
const volatile bool failed_only = false;	/* --failed */
const volatile __u64 min_ns = 0;	/* --min-duration */
const volatile bool count_only = false;	/* -c: totals, no records */
const volatile bool with_stacks = false;	/* -k */
const volatile __u64 wakeup_bytes = 1 << 20;	/* queued bytes that wake the reader */
const volatile __s32 nr_execve = -1, nr_execveat = -1;
const volatile __u64 start_ns = 0;	/* tasks started later are new, not resumed */

/* The in-flight record of a thread.  The data area has room beyond
 * SC_DATA_MAX so that a chunk started below the limit is always within
 * bounds for the verifier; the code never fills past SC_DATA_MAX. */
struct inflight {
	struct sc_record rec;
	__u8 data[SC_DATA_MAX + SC_STR_MAX + 64];
	/* not queued: */
	__u32 refetch;		/* arguments whose input faulted at entry: read at exit */
	__u32 pad;
	__u64 sp;		/* the user stack pointer at entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* What to capture, by syscall number: written by user space in the
 * skeleton's .bss before load (no update per entry), and corrected there
 * during the run where the kernel's format of a syscall says otherwise. */
struct sc_spec specs[SC_NR_MAX];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 * 1024 * 1024);	/* --buffer-size */
} records SEC(".maps");

/* per syscall: records lost (ring buffer full, no storage) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SC_NR_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* the running total of lost records, carried by every queued record */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost_total SEC(".maps");

/* -c: totals per syscall */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SC_NR_MAX);
	__type(key, __u32);
	__type(value, struct sc_count);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCSTAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} sc_stats SEC(".maps");

struct stack_buf {
	struct sc_stack hdr;
	__u8 data[SNAPSHOT_BUF];
};

/* -k: one per CPU, indexed by CPU number; sized at load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_buf);
} stack_scratch SEC(".maps");

/* nr: the syscall, or SC_NR_MAX for a process-exit record */
static __always_inline void count_lost(__u32 nr)
{
	__u32 zero = 0;
	__u64 *v;

	if (nr < SC_NR_MAX)
		stat_inc(&lost, nr);
	else
		stat_inc(&sc_stats, SCSTAT_EXIT_LOST);
	v = bpf_map_lookup_elem(&lost_total, &zero);
	if (v)
		__sync_fetch_and_add(v, 1);
	stat_inc(&sc_stats, SCSTAT_LOST);
}

/* The running total every queued record carries. */
static __always_inline __u64 lost_so_far(void)
{
	__u32 zero = 0;
	__u64 *total = bpf_map_lookup_elem(&lost_total, &zero);

	return total ? *total : 0;
}

static __always_inline bool is_error(long ret)
{
	return ret < 0 && ret >= -4095;
}

static __always_inline __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

#define TAG(arg, cap, idx, flags) ((arg) | (cap) << 8 | (idx) << 16 | (flags) << 24)
#define TAG_STR 0x80	/* in the flags byte: a string, stops at its NUL, cut at -s */
#define TAG_PATH 0x40	/* ... a string, stops at its NUL, never cut at -s */

/* Appends a chunk header (arg, cap, idx and flags packed in tag) + `len`
 * bytes copied from user memory at src.  Strings are read with room for
 * one byte more than -s, so a longer one is known to be cut.  Returns
 * the chunk's flags (SC_CHUNK_FAULT: it could not be read), or -1 when
 * the record is full.  A global function, like those below: the verifier
 * checks it once, not once per call site. */
__noinline int put_chunk(struct inflight *f, __u32 tag, __u64 src, __u64 len)
{
	__u32 off, flags = (tag >> 24) & ~(TAG_STR | TAG_PATH);
	bool str = tag & (TAG_STR << 24), path = tag & (TAG_PATH << 24);
	struct sc_chunk *c;
	long n = 0;

	if (!f)
		return -1;
	off = f->rec.data_len;
	if (off > SC_DATA_MAX - sizeof(*c) - 8) {
		f->rec.flags |= SC_F_DATA_FULL;
		return -1;
	}
	if (len > SC_DATA_MAX - sizeof(*c) - off) {
		len = SC_DATA_MAX - sizeof(*c) - off;
		flags |= SC_CHUNK_TRUNC;
		f->rec.flags |= SC_F_DATA_FULL;
	}
	off &= SC_DATA_MAX - 1;
	c = (struct sc_chunk *)&f->data[off];
	c->arg = tag & 0xff;
	c->cap = (tag >> 8) & 0xff;
	c->idx = (tag >> 16) & 0xff;
	c->pad = 0;
	if (len > SC_STR_MAX + 2)
		len = SC_STR_MAX + 2;
	if (len) {
		if (str || path) {
			/* n counts the NUL */
			n = bpf_probe_read_user_str(&f->data[off + sizeof(*c)], len, (void *)src);
			if (n > 0 && str && --n > strsize) {
				n = strsize;
				flags |= SC_CHUNK_TRUNC;
			} else if (n > 0 && path) {
				/* filled to the end: the path may go on (longer ones
				 * fail with ENAMETOOLONG) */
				if (n-- == len)
					flags |= SC_CHUNK_TRUNC;
			}
		} else {
			n = bpf_probe_read_user(&f->data[off + sizeof(*c)], len, (void *)src) ? -1
											     : len;
		}
		if (n < 0) {
			n = 0;
			flags |= SC_CHUNK_FAULT;
		}
	}
	c->len = n;
	c->flags = flags;
	f->rec.data_len = off + SC_CHUNK_SIZE(n);
	return flags;
}

/* An input chunk: at entry one that could not be read is left out and
 * read again at exit (refetch), when the call will have faulted its page
 * in if it used it. */
__noinline int put_input(struct inflight *f, __u32 tag, __u64 src, __u64 len)
{
	__u32 off, arg = tag & 7;
	int fl;

	if (!f)
		return 0;
	off = f->rec.data_len;
	fl = put_chunk(f, tag, src, len);
	if (fl < 0 || !(fl & SC_CHUNK_FAULT) || f->rec.exit_ns)
		return 0;
	f->rec.data_len = off;
	f->refetch |= 1 << arg;
	return 0;
}

/* A chunk of one __u32 computed here (a count). */
static __always_inline void put_u32(struct inflight *f, __u32 tag, __u32 v)
{
	__u32 off = f->rec.data_len;
	struct sc_chunk *c;

	if (off > SC_DATA_MAX - sizeof(*c) - 8) {
		f->rec.flags |= SC_F_DATA_FULL;
		return;
	}
	off &= SC_DATA_MAX - 1;
	c = (struct sc_chunk *)&f->data[off];
	c->arg = tag & 0xff;
	c->cap = (tag >> 8) & 0xff;
	c->idx = (tag >> 16) & 0xff;
	c->flags = (tag >> 24) & 0xff;
	c->len = 4;
	c->pad = 0;
	*(__u32 *)&f->data[off + sizeof(*c)] = v;
	f->rec.data_len = off + SC_CHUNK_SIZE(4);
}

struct count_ctx {
	__u64 base;
	__u64 end;		/* getdents: bytes filled; envp: 0 */
	__u64 off;
	__u32 n;
	bool ended;
};

/* envp: one pointer per step until the NULL */
static long count_ptr(__u64 i, struct count_ctx *x)
{
	__u64 p;

	if (bpf_probe_read_user(&p, 8, (void *)(x->base + 8 * i)) || !p) {
		x->ended = true;
		return 1;
	}
	x->n++;
	return 0;
}

/* getdents: one entry per step, by its d_reclen (at 16 in both layouts) */
static long count_dirent(__u64 i, struct count_ctx *x)
{
	__u16 reclen;

	if (x->off >= x->end) {
		x->ended = true;
		return 1;
	}
	if (bpf_probe_read_user(&reclen, 2, (void *)(x->base + x->off + 16)) || !reclen) {
		x->ended = true;
		return 1;
	}
	x->off += reclen;
	x->n++;
	return 0;
}

__noinline int put_count(struct inflight *f, __u32 argcap, __u64 base, __u64 end)
{
	struct count_ctx x = { .base = base, .end = end };
	__u32 cap = argcap >> 8;

	if (!f)
		return 0;
	if (cap == SC_CAP_DIRENTS)
		bpf_loop(SC_COUNT_MAX, count_dirent, &x, 0);
	else
		bpf_loop(SC_COUNT_MAX, count_ptr, &x, 0);
	put_u32(f, TAG(argcap & 0xff, cap, 0, x.ended ? 0 : SC_CHUNK_TRUNC), x.n);
	return 0;
}

struct strv_ctx {
	__u64 ptrs[SC_STRV_MAX];
	struct inflight *f;
	__u64 uptr;
	__u32 arg;
	__u32 n;		/* pointers read, up to and with the first NULL */
	__u32 flags;		/* SC_CHUNK_TRUNC until the NULL is found */
	bool bulk;		/* all SC_STRV_MAX read at once */
};

/* One pointer per step until the NULL, or one that cannot be read. */
static long strv_scan(__u64 i, struct strv_ctx *x)
{
	__u32 j = i & (SC_STRV_MAX - 1);

	if (!x->bulk && bpf_probe_read_user(&x->ptrs[j], 8, (void *)(x->uptr + 8 * j)))
		return 1;
	x->n = j + 1;
	if (!x->ptrs[j]) {
		x->flags = 0;
		return 1;
	}
	return 0;
}

/* One string per step, while the record has room. */
static long strv_str(__u64 i, struct strv_ctx *x)
{
	__u32 j = i & (SC_STRV_MAX - 1);

	if (j >= x->n || !x->ptrs[j])
		return 1;
	return put_chunk(x->f, TAG(x->arg, SC_CAP_STR, j, TAG_STR), x->ptrs[j], strsize + 2) < 0;
}

/* argv-like: the pointer array, then each string while there is room.
 * Loops through bpf_loop: the verifier checks each step once, not every
 * count of pointers an unrolled loop could end at. */
__noinline int put_strv(struct inflight *f, __u32 arg, __u64 uptr)
{
	struct strv_ctx x = { .f = f, .uptr = uptr, .arg = arg, .flags = SC_CHUNK_TRUNC };

	if (!f)
		return 0;
	/* near the end of a mapping the one read fails: element by element */
	x.bulk = !bpf_probe_read_user(x.ptrs, sizeof(x.ptrs), (void *)uptr);
	bpf_loop(SC_STRV_MAX, strv_scan, &x, 0);
	if (put_chunk(f, TAG(arg, SC_CAP_STRV, 0, x.flags), uptr, 8 * x.n) < 0)
		return 0;
	bpf_loop(SC_STRV_MAX, strv_str, &x, 0);
	return 0;
}

struct iov_ctx {
	struct sc_iovec iov[SC_IOV_MAX];
	struct inflight *f;
	__u64 total;		/* bytes still to copy */
	__u32 arg;
	__u32 data_cap;
	__u32 n;
};

/* One element's first bytes per step. */
static long iov_elem(__u64 i, struct iov_ctx *x)
{
	__u32 j = i & (SC_IOV_MAX - 1);
	__u64 len, want;

	if (j >= x->n || !x->total)
		return 1;
	want = x->iov[j].len;
	len = min_u64(want, x->total);
	x->total -= len;
	return put_chunk(x->f, TAG(x->arg, x->data_cap, j, len < want ? SC_CHUNK_TRUNC : 0),
			 x->iov[j].base, len) < 0;
}

/* iovecs: the array, then the first bytes of each, `total` in all */
__noinline int put_iov(struct inflight *f, __u32 argcap, __u64 uptr, __u64 count, __u64 total)
{
	__u32 arg = argcap & 0xff, cap = argcap >> 8;
	struct iov_ctx x = {
		.f = f, .total = total, .arg = arg,
		.data_cap = cap == SC_CAP_IOV_IN ? SC_CAP_BUF_IN : SC_CAP_BUF_OUT,
		.n = count > SC_IOV_MAX ? SC_IOV_MAX : count,
	};
	__u32 sz;

	if (!f || !x.n)
		return 0;
	sz = x.n * sizeof(x.iov[0]);
	if (sz > sizeof(x.iov))
		sz = sizeof(x.iov);
	if (bpf_probe_read_user(x.iov, sz, (void *)uptr)) {
		put_chunk(f, TAG(arg, cap, 0, SC_CHUNK_FAULT), uptr, 0);
		return 0;
	}
	if (put_chunk(f, TAG(arg, cap, 0, count > x.n ? SC_CHUNK_TRUNC : 0), uptr, sz) < 0)
		return 0;
	bpf_loop(SC_IOV_MAX, iov_elem, &x, 0);
	return 0;
}

/* A msghdr, its name, its control messages and its iovecs, `total`
 * bytes of these in all */
__noinline int put_msghdr(struct inflight *f, __u32 argcap, __u64 uptr, __u64 total)
{
	__u32 arg = argcap & 0xff, cap = argcap >> 8;
	__u32 scap = cap == SC_CAP_MSGHDR_OUT ? SC_CAP_STRUCT_OUT : SC_CAP_STRUCT_IN;
	__u32 icap = cap == SC_CAP_MSGHDR_OUT ? SC_CAP_IOV_OUT : SC_CAP_IOV_IN;
	struct sc_msghdr m;

	if (!f)
		return 0;
	if (bpf_probe_read_user(&m, sizeof(m), (void *)uptr)) {
		put_chunk(f, TAG(arg, scap, 0, SC_CHUNK_FAULT), uptr, 0);
		return 0;
	}
	if (put_chunk(f, TAG(arg, scap, 0, 0), uptr, sizeof(m)) < 0)
		return 0;
	if (m.name && m.namelen)
		put_chunk(f, TAG(arg, scap, 1, 0), m.name, min_u64(m.namelen, 128));
	if (m.control && m.controllen)
		put_chunk(f, TAG(arg, scap, 2, m.controllen > SC_CONTROL_MAX ? SC_CHUNK_TRUNC : 0),
			  m.control, min_u64(m.controllen, SC_CONTROL_MAX));
	if (m.iov)
		put_iov(f, arg | icap << 8, m.iov, m.iovlen, total);
	return 0;
}

/* A counted array: `count` elements of `size` bytes, at most
 * SC_ARRAY_MAX; an input one is read again at exit when it faulted. */
static __always_inline void put_array(struct inflight *f, __u32 arg, __u32 cap, __u64 uptr,
				      __u64 count, __u32 size)
{
	__u64 n = min_u64(count, SC_ARRAY_MAX);
	__u32 tag = TAG(arg, cap, 0, count > n ? SC_CHUNK_TRUNC : 0);

	if (cap == SC_CAP_ARRAY_IN)
		put_input(f, tag, uptr, n * size);
	else
		put_chunk(f, tag, uptr, n * size);
}

/* Captures what argument i's spec says for this moment: entry or exit.
 * At exit, also an input that could not be read at entry.  A global
 * function, like those above: the verifier checks it once for every
 * argument, not once per argument of an unrolled loop over the six. */
__noinline int capture_arg(struct inflight *f, const struct sc_spec *spec, __u32 i, bool at_exit,
			   long ret)
{
	const struct sc_arg_spec *as;
	__u64 ptr, len, cap_len;
	bool in_now;
	__u32 la;

	if (!f || !spec || i >= SC_ARGS)
		return 0;
	as = &spec->args[i];
	la = as->len_arg;
	ptr = f->rec.args[i];
	/* an input: read at entry, or at exit when it faulted then */
	in_now = at_exit ? f->refetch & (1 << i) : true;
	if (as->cap == SC_CAP_SIGMASK_SP) {
		if (!at_exit)
			put_chunk(f, TAG(i, SC_CAP_SIGMASK_SP, 0, 0), f->sp + as->size, 8);
		return 0;
	}
	if (as->cap == SC_CAP_NONE || !ptr)
		return 0;
	{
		cap_len = as->size ? as->size : strsize;
		switch (as->cap) {
		case SC_CAP_STR:
			if (in_now)
				put_input(f, TAG(i, SC_CAP_STR, 0, TAG_STR), ptr, strsize + 2);
			break;
		case SC_CAP_PATH:
			if (in_now)
				put_input(f, TAG(i, SC_CAP_PATH, 0, TAG_PATH), ptr, SC_PATH_MAX);
			break;
		case SC_CAP_BUF_IN:
			if (!in_now || la >= SC_ARGS)
				break;
			len = f->rec.args[la & 7];
			put_input(f, TAG(i, SC_CAP_BUF_IN, 0, len > cap_len ? SC_CHUNK_TRUNC : 0),
				  ptr, min_u64(len, cap_len));
			break;
		case SC_CAP_BUF_OUT:
			if (!at_exit || ret <= 0)
				break;
			len = ret;
			if (la < SC_ARGS)
				len = min_u64(len, f->rec.args[la & 7]);
			put_chunk(f, TAG(i, SC_CAP_BUF_OUT, 0, len > cap_len ? SC_CHUNK_TRUNC : 0),
				  ptr, min_u64(len, cap_len));
			break;
		case SC_CAP_STRUCT_IN:
			if (in_now)
				put_input(f, TAG(i, SC_CAP_STRUCT_IN, 0, 0), ptr, as->size);
			break;
		case SC_CAP_STRUCT_INOUT:
			if (in_now)
				put_input(f, TAG(i, SC_CAP_STRUCT_IN, 0, 0), ptr, as->size);
			/* fall through */
		case SC_CAP_STRUCT_OUT:
			if (at_exit && ret >= 0)
				put_chunk(f, TAG(i, SC_CAP_STRUCT_OUT, 0, 0), ptr, as->size);
			break;
		case SC_CAP_STRV:
			if (!at_exit)
				put_strv(f, i, ptr);
			break;
		case SC_CAP_STRV_COUNT:
			if (!at_exit)
				put_count(f, i | SC_CAP_STRV_COUNT << 8, ptr, 0);
			break;
		case SC_CAP_DIRENTS:
			if (at_exit && ret >= 0)
				put_count(f, i | SC_CAP_DIRENTS << 8, ptr, ret);
			break;
		case SC_CAP_ARRAY_IN:
		case SC_CAP_ARRAY_INOUT:
			if (la >= SC_ARGS)
				break;
			len = (__u32)f->rec.args[la & 7];
			if (in_now)
				put_array(f, i, SC_CAP_ARRAY_IN, ptr, len, as->size);
			if (as->cap == SC_CAP_ARRAY_INOUT && at_exit && ret > 0)
				put_array(f, i, SC_CAP_ARRAY_OUT, ptr, len, as->size);
			break;
		case SC_CAP_ARRAY_OUT:
			if (!at_exit || ret <= 0)
				break;
			len = ret;
			if (la < SC_ARGS)
				len = min_u64(len, (__u32)f->rec.args[la & 7]);
			put_array(f, i, SC_CAP_ARRAY_OUT, ptr, len, as->size);
			break;
		case SC_CAP_MSGHDR_IN:
			if (!at_exit)
				put_msghdr(f, i | SC_CAP_MSGHDR_IN << 8, ptr, strsize);
			break;
		case SC_CAP_MSGHDR_OUT:
			if (in_now)
				put_input(f, TAG(i, SC_CAP_STRUCT_IN, 0, 0), ptr, sizeof(struct sc_msghdr));
			if (at_exit && ret >= 0)
				put_msghdr(f, i | SC_CAP_MSGHDR_OUT << 8, ptr, min_u64(ret, strsize));
			break;
		case SC_CAP_IOV_IN:
			if (!at_exit && la < SC_ARGS)
				put_iov(f, i | SC_CAP_IOV_IN << 8, ptr, f->rec.args[la & 7], strsize);
			break;
		case SC_CAP_IOV_OUT:
			if (at_exit && ret > 0 && la < SC_ARGS)
				put_iov(f, i | SC_CAP_IOV_OUT << 8, ptr, f->rec.args[la & 7],
					min_u64(ret, strsize));
			break;
		}
	}
	return 0;
}

/* Captures what the spec says for this moment, argument by argument. */
static __always_inline void capture(struct inflight *f, const struct sc_spec *spec, bool at_exit,
				    long ret)
{
	for (int i = 0; i < SC_ARGS; i++)
		capture_arg(f, spec, i, at_exit, ret);
}

/* -k: the user stack at the call, queued just before its record. */
static __always_inline bool queue_stack(struct inflight *f, struct pt_regs *regs)
{
	__u32 cpu = bpf_get_smp_processor_id(), size;
	struct stack_buf *b = bpf_map_lookup_elem(&stack_scratch, &cpu);

	if (!b)
		return false;
	size = copy_user_stack(b->data, BPF_CORE_READ(regs, sp));
	if (size > SNAPSHOT_MAX)
		return false;
	b->hdr.kind = SC_REC_STACK;
	b->hdr.tid = f->rec.tid;
	b->hdr.pid = f->rec.pid;
	b->hdr.gen = f->rec.gen;
	b->hdr.ip = BPF_CORE_READ(regs, ip);
	b->hdr.sp = BPF_CORE_READ(regs, sp);
	b->hdr.bp = BPF_CORE_READ(regs, bp);
	b->hdr.size = size;
	__builtin_memcpy(b->hdr.comm, f->rec.comm, sizeof(b->hdr.comm));
	/* no wake-up: the call's record follows at once and decides it */
	if (bpf_ringbuf_output(&records, b, sizeof(b->hdr) + size, BPF_RB_NO_WAKEUP)) {
		stat_inc(&sc_stats, SCSTAT_STACK_LOST);
		return false;
	}
	return true;
}

/* Queues a completed (or abandoned) record and closes it. */
static __always_inline void queue(struct inflight *f, struct pt_regs *regs)
{
	__u32 len = f->rec.data_len;

	f->rec.kind = SC_REC_CALL;
	if (with_stacks && regs && queue_stack(f, regs))
		f->rec.flags |= SC_F_STACK;
	f->rec.lost_total = lost_so_far();
	if (len > SC_DATA_MAX)
		len = SC_DATA_MAX;
	if (bpf_ringbuf_output(&records, f, sizeof(f->rec) + len,
			       ringbuf_wakeup_flags(&records, wakeup_bytes)))
		count_lost(f->rec.nr);
	else
		stat_inc(&sc_stats, SCSTAT_RECORDS);
	f->rec.kind = 0;
}

/* Whether this thread's call nr is traced: its spec, or NULL. */
static __always_inline const struct sc_spec *wanted(__u32 tgid, long id)
{
	const struct sc_spec *spec;
	__u32 nr = id;

	if (id < 0 || id >= SC_NR_MAX || tgid == self_tgid)
		return NULL;
	if (filter_pids) {
		__u8 *target = bpf_map_lookup_elem(&targets, &tgid);

		/* a launched command is seen from its execve, not in its gate */
		if (!target || (*target == TARGET_PRE_EXEC && id != nr_execve && id != nr_execveat))
			return NULL;
	}
	spec = &specs[nr];
	if (!(spec->flags & SC_SPEC_TRACE))
		return NULL;
	return spec;
}

/* Opens the thread's record: at entry, or at an exit whose entry came
 * before tracing began (flags SC_F_RESUMED: no entry time, no input
 * memory).  On x86_64 the argument registers are still intact at exit. */
static __always_inline struct inflight *open_record(struct pt_regs *regs, __u32 nr, __u32 flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct inflight *f;

	f = bpf_task_storage_get(&inflight, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!f) {
		stat_inc(&sc_stats, SCSTAT_NO_STORAGE);
		count_lost(nr);
		return NULL;
	}
	f->rec.kind = SC_REC_CALL;
	f->rec.flags = flags;
	f->rec.enter_ns = flags & SC_F_RESUMED ? 0 : bpf_ktime_get_ns();
	f->rec.exit_ns = 0;
	f->rec.ret = 0;
	f->rec.nr = nr;
	f->rec.pid = tgid;
	f->rec.tid = (__u32)pid_tgid;
	f->rec.cpu = bpf_get_smp_processor_id();
	f->rec.data_len = 0;
	f->refetch = 0;
	if (count_only)
		return f;
	f->sp = BPF_CORE_READ(regs, sp);
	/* x86_64: the fourth argument travels in r10, not rcx */
	f->rec.args[0] = BPF_CORE_READ(regs, di);
	f->rec.args[1] = BPF_CORE_READ(regs, si);
	f->rec.args[2] = BPF_CORE_READ(regs, dx);
	f->rec.args[3] = BPF_CORE_READ(regs, r10);
	f->rec.args[4] = BPF_CORE_READ(regs, r8);
	f->rec.args[5] = BPF_CORE_READ(regs, r9);
	f->rec.gen = gen_of(tgid);
	bpf_get_current_comm(f->rec.comm, sizeof(f->rec.comm));
	return f;
}

static __always_inline int enter_call(struct pt_regs *regs, long id)
{
	const struct sc_spec *spec = wanted(bpf_get_current_pid_tgid() >> 32, id);
	struct inflight *f;

	if (!spec)
		return 0;
	f = open_record(regs, id, 0);
	if (!f || count_only)
		return 0;
	capture(f, spec, false, 0);
	if (spec->flags & SC_SPEC_NORET) {
		/* neither fails nor lasts: passes only when nothing is filtered */
		f->rec.flags |= SC_F_NORET;
		if (!failed_only && !min_ns)
			queue(f, regs);
		else
			stat_inc(&sc_stats, SCSTAT_FILTERED);
		f->rec.kind = 0;
	}
	return 0;
}

static __always_inline void count(struct inflight *f, long ret, __u64 ns)
{
	__u32 nr = f->rec.nr;
	struct sc_count *c = bpf_map_lookup_elem(&counts, &nr);

	if (!c)
		return;
	c->calls++;
	if (is_error(ret))
		c->errors++;
	c->total_ns += ns;
	if (ns > c->max_ns)
		c->max_ns = ns;
}

static __always_inline int exit_call(struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct inflight *f;
	__u32 nr;
	__u64 ns;

	f = bpf_task_storage_get(&inflight, task, NULL, 0);
	if (!f || f->rec.kind != SC_REC_CALL) {
		/* the call began before tracing did: its result still counts */
		long id = BPF_CORE_READ(regs, orig_ax);

		/* a new task's first return, from fork/clone in the child, is
		 * not a call of its own */
		if (count_only || task->start_time > start_ns ||
		    !wanted(bpf_get_current_pid_tgid() >> 32, id))
			return 0;
		f = open_record(regs, id, SC_F_RESUMED);
		if (!f)
			return 0;
	}
	f->rec.exit_ns = bpf_ktime_get_ns();
	f->rec.ret = ret;
	ns = f->rec.enter_ns ? f->rec.exit_ns - f->rec.enter_ns : 0;
	if ((f->rec.flags & SC_F_RESUMED) && min_ns) {
		/* its duration is unknown */
		stat_inc(&sc_stats, SCSTAT_FILTERED);
		f->rec.kind = 0;
		return 0;
	}
	if (count_only) {
		count(f, ret, ns);
		f->rec.kind = 0;
		return 0;
	}
	if ((failed_only && !is_error(ret)) || ns < min_ns) {
		stat_inc(&sc_stats, SCSTAT_FILTERED);
		f->rec.kind = 0;
		return 0;
	}
	nr = f->rec.nr;
	/* after an exec the old image's memory is gone */
	if ((nr == nr_execve || nr == nr_execveat) && ret == 0)
		f->refetch = 0;
	if (nr < SC_NR_MAX)
		capture(f, &specs[nr], true, ret);
	/* a successful execve runs under the new program's name */
	if ((nr == nr_execve || nr == nr_execveat) && ret == 0)
		bpf_get_current_comm(f->rec.comm, sizeof(f->rec.comm));
	queue(f, regs);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	return enter_call(regs, id);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	return exit_call(regs, ret);
}

/* Both, in one program attached to the two tracepoints and told apart by
 * the attachment's cookie (non-zero at exit), where the kernel gives raw
 * tracepoints cookies (6.10): the verifier checks the global functions
 * both share once, not once per program, and one program is loaded
 * instead of two (cmd/syscalls.c picks). */
SEC("raw_tp")
int BPF_PROG(on_sys_event, struct pt_regs *regs, long arg)
{
	if (bpf_get_attach_cookie(ctx))
		return exit_call(regs, arg);
	return enter_call(regs, arg);
}

/* A thread ends: a call it was inside (another thread's exit_group, a
 * fatal signal) is queued unfinished; the process's end is recorded. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	/* p is the thread exiting, so current: a trusted pointer to it */
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	struct inflight *f;

	if (tgid == self_tgid || !in_scope(tgid))
		return 0;
	f = bpf_task_storage_get(&inflight, task, NULL, 0);
	if (f && f->rec.kind == SC_REC_CALL) {
		f->rec.flags |= SC_F_UNFINISHED;
		if (count_only)
			f->rec.kind = 0;
		else if (!failed_only && !min_ns)
			queue(f, NULL);
	}
	if (count_only || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	/* the last thread: the process's exit status */
	struct sc_record r = {
		.kind = SC_REC_EXIT,
		.enter_ns = bpf_ktime_get_ns(),
		.ret = task->exit_code,
		.pid = tgid,
		.tid = task->pid,
		.cpu = bpf_get_smp_processor_id(),
		.lost_total = lost_so_far(),
	};

	bpf_get_current_comm(&r.comm, sizeof(r.comm));
	if (bpf_ringbuf_output(&records, &r, sizeof(r),
			       ringbuf_wakeup_flags(&records, wakeup_bytes)))
		count_lost(SC_NR_MAX);
	return 0;
}

/* At the end of a run: the calls still open (blocked in read, poll...)
 * are queued unfinished, so no call is silently missing.  A tracing
 * program, which makes libbpf read the kernel's BTF: not loaded with the
 * others, but in a second instance of this object sharing their maps,
 * at the end, when a process in scope still lives (cmd/syscalls.c). */
SEC("iter/task")
int flush_inflight(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct inflight *f;

	if (!task)
		return 0;
	f = bpf_task_storage_get(&inflight, task, NULL, 0);
	if (f && f->rec.kind == SC_REC_CALL && !count_only) {
		f->rec.flags |= SC_F_UNFINISHED;
		queue(f, NULL);
	}
	return 0;
}
