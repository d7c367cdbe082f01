// SPDX-License-Identifier: GPL-2.0
/* Function graph of user functions: one program for every entry uprobe,
 * one for every uretprobe, one for the late reads, told apart by the
 * attach cookie (the function id).  Records go to one ring buffer
 * without a wakeup each (user space drains it on a timer), unless it is
 * filling up. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/graph.h"
#include "bpf/helpers.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 str_size = 64;	/* -s, <= GRAPH_STR_MAX */
const volatile __u32 target_tgid = 0;	/* thread exits of this process */
const volatile __u64 wakeup_bytes = 1 << 20;	/* queued bytes that wake the reader */

/* Set by user space once every probe is attached and cleared before they
 * are detached, so a call is never seen half (an entry whose return
 * probe was not there yet, a return whose entry probe is gone). */
bool active = false;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set to the number of functions */
	__type(key, __u32);
	__type(value, struct graph_func);
} funcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct graph_late_spec);
} late_specs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GSTAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void fill_head(struct graph_head *h, __u32 kind, __u32 fid)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->kind = kind;
	h->fid = fid;
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->ts = bpf_ktime_get_ns();
	h->cpu = bpf_get_smp_processor_id();
	h->nstr = 0;
}

/* Copies a string in sleepable context, where a page the program has not
 * touched yet is faulted in (kernel 6.12+); elsewhere an untouched page
 * reads as a fault. */
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __ksym __weak;

static __always_inline int entry(struct pt_regs *ctx, bool sleepable)
{
	__u32 fid = (__u32)bpf_get_attach_cookie(ctx);
	struct graph_func *f;
	__u32 mask = 0;
	struct graph_entry *e;

	if (!active)
		return 0;
	/* only functions with string arguments run the sleepable program */
	if (sleepable) {
		f = bpf_map_lookup_elem(&funcs, &fid);
		mask = f ? f->str_mask : 0;
	}
	if (mask)
		e = bpf_ringbuf_reserve(&events, sizeof(struct graph_entry_strs), 0);
	else
		e = bpf_ringbuf_reserve(&events, sizeof(struct graph_entry), 0);
	if (!e) {
		stat_inc(&stats, GSTAT_LOST);
		return 0;
	}
	fill_head(&e->h, GRAPH_ENTRY, fid);
	/* the SysV x86-64 integer argument registers */
	e->regs[0] = ctx->di;
	e->regs[1] = ctx->si;
	e->regs[2] = ctx->dx;
	e->regs[3] = ctx->cx;
	e->regs[4] = ctx->r8;
	e->regs[5] = ctx->r9;
	e->sp = ctx->sp;
	for (int i = 0; i < GRAPH_NREGS; i++)
		e->slen[i] = 0;
	if (mask) {
		struct graph_entry_strs *es = (void *)e;
		__u32 sz = str_size;

		if (sz > GRAPH_STR_MAX)
			sz = GRAPH_STR_MAX;
		if (sz < 1)
			sz = 1;
		e->h.nstr = GRAPH_NREGS;
		for (int i = 0; i < GRAPH_NREGS; i++) {
			if (!(mask & (1u << i)))
				continue;
			if (sleepable && bpf_copy_from_user_str)
				e->slen[i] = bpf_copy_from_user_str(es->str[i], sz, (void *)e->regs[i], 0);
			else
				e->slen[i] = bpf_probe_read_user_str(es->str[i], sz, (void *)e->regs[i]);
		}
	}
	bpf_ringbuf_submit(e, ringbuf_wakeup_flags(&events, wakeup_bytes));
	return 0;
}

SEC("uprobe")
int on_entry(struct pt_regs *ctx)
{
	return entry(ctx, false);
}

/* For the functions with string arguments. */
SEC("uprobe.s")
int on_entry_str(struct pt_regs *ctx)
{
	return entry(ctx, true);
}

SEC("uretprobe")
int on_exit(struct pt_regs *ctx)
{
	__u32 fid = (__u32)bpf_get_attach_cookie(ctx);
	struct graph_exit *e;

	if (!active)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(&stats, GSTAT_LOST);
		return 0;
	}
	fill_head(&e->h, GRAPH_EXIT, fid);
	e->rax = ctx->ax;
	e->sp = ctx->sp;
	bpf_ringbuf_submit(e, ringbuf_wakeup_flags(&events, wakeup_bytes));
	return 0;
}

/* The x86-64 registers by DWARF number (0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15), each loaded with a constant
 * offset as the verifier requires of context accesses. */
static __always_inline void dwarf_regs(struct pt_regs *ctx, __u64 *r)
{
	r[0] = ctx->ax; r[1] = ctx->dx; r[2] = ctx->cx; r[3] = ctx->bx;
	r[4] = ctx->si; r[5] = ctx->di; r[6] = ctx->bp; r[7] = ctx->sp;
	r[8] = ctx->r8; r[9] = ctx->r9; r[10] = ctx->r10; r[11] = ctx->r11;
	r[12] = ctx->r12; r[13] = ctx->r13; r[14] = ctx->r14; r[15] = ctx->r15;
}

SEC("uprobe")
int on_late(struct pt_regs *ctx)
{
	__u32 fid = (__u32)bpf_get_attach_cookie(ctx);
	struct graph_late_spec *s = bpf_map_lookup_elem(&late_specs, &fid);
	struct graph_late *e;
	__u64 regs[16];

	if (!s || !active)
		return 0;
	dwarf_regs(ctx, regs);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(&stats, GSTAT_LOST);
		return 0;
	}
	fill_head(&e->h, GRAPH_LATE, fid);
	e->ok = 0;
	e->pad = 0;
	for (int i = 0; i < GRAPH_LATE_MAX; i++) {
		__u64 addr;
		__u32 size;

		e->vals[i] = 0;
		if (i >= s->n)
			continue;
		size = s->r[i].size;
		if (size < 1 || size > 8)
			continue;
		addr = regs[s->r[i].reg & 15] + s->r[i].off;
		if (!bpf_probe_read_user(&e->vals[i], size, (void *)addr))
			e->ok |= 1u << i;
	}
	bpf_ringbuf_submit(e, ringbuf_wakeup_flags(&events, wakeup_bytes));
	return 0;
}

/* A thread of the target leaves: user space closes its open calls. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p)
{
	struct graph_head *h;

	if (!active || (__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	h = bpf_ringbuf_reserve(&events, sizeof(*h), 0);
	if (!h) {
		stat_inc(&stats, GSTAT_LOST);
		return 0;
	}
	fill_head(h, GRAPH_THREAD_EXIT, 0);
	bpf_ringbuf_submit(h, ringbuf_wakeup_flags(&events, wakeup_bytes));
	return 0;
}
