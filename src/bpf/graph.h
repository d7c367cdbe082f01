/* Layouts shared by graph.bpf.c and cmd/graph.c.
 *
 * Every probed user function has an id (its index in user space's table,
 * passed to the programs as the attach cookie).  Its entry uprobe queues
 * a graph_entry (the six integer argument registers, the stack pointer
 * and, for the arguments user space marked as strings in `funcs`, the
 * strings they point to); its uretprobe queues a graph_exit (rax); an
 * optional "late" uprobe a little after the entry (past the prologue)
 * queues a graph_late with argument bytes read from the stack, for the
 * arguments no register at entry holds (doubles spilled at -O0).  A
 * thread of the target that exits queues a graph_thread_exit.  All go
 * through one ring buffer, in the order they happened for each thread. */
#ifndef STACKSCOPE_BPF_GRAPH_H
#define STACKSCOPE_BPF_GRAPH_H

#define GRAPH_NREGS 6		/* rdi rsi rdx rcx r8 r9 */
#define GRAPH_STR_MAX 256	/* bytes per string argument, -s at most */
#define GRAPH_LATE_MAX 4	/* late reads per function */

enum graph_kind {
	GRAPH_ENTRY = 1,
	GRAPH_EXIT,
	GRAPH_LATE,
	GRAPH_THREAD_EXIT,
};

/* Common head of every record. */
struct graph_head {
	__u32 kind;		/* enum graph_kind */
	__u32 fid;		/* function id (0 for a thread exit) */
	__u32 pid, tid;
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u32 cpu;
	__u32 nstr;		/* graph_entry: string slots that follow */
};

struct graph_entry {
	struct graph_head h;
	__u64 regs[GRAPH_NREGS];
	__u64 sp;		/* at entry: points at the return address */
	__s32 slen[GRAPH_NREGS];	/* per register: bytes copied with the NUL, <0 fault */
	/* with h.nstr: the strings, as in graph_entry_strs */
};

/* A graph_entry with h.nstr set: followed by a string slot per register. */
struct graph_entry_strs {
	struct graph_entry e;
	char str[GRAPH_NREGS][GRAPH_STR_MAX];
};

struct graph_exit {
	struct graph_head h;
	__u64 rax;
	__u64 sp;		/* after the return: entry sp + 8 */
};

struct graph_late {
	struct graph_head h;
	__u64 vals[GRAPH_LATE_MAX];
	__u32 ok;		/* bit i: vals[i] was read */
	__u32 pad;
};

/* What the entry program copies for function fid. */
struct graph_func {
	__u32 str_mask;		/* bit r: register r points to a string */
	__u32 pad;
};

/* One read of the late probe: size bytes at (DWARF register reg) + off. */
struct graph_read {
	__s32 reg;		/* DWARF number: 6 rbp, 7 rsp, ... */
	__u32 size;		/* 1..8 */
	__s64 off;
};

struct graph_late_spec {
	__u32 n;
	__u32 pad;
	struct graph_read r[GRAPH_LATE_MAX];
};

enum graph_stat {
	GSTAT_LOST,		/* records the ring buffer had no room for */
	GSTAT_MAX,
};

#endif
