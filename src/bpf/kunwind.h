/* In-kernel unwinding of user stacks (kunwind.bpf.h) and the user side
 * that loads its tables (unwind/kload.c): the maps' layouts.
 *
 * `unwind_rows` (array of struct unwind_row, unwind/table.h): the rows of
 * every binary loaded so far, each binary a sorted run of rows placed
 * once (user space keys binaries by device and inode).  `unwind_procs`
 * (tgid -> struct kunwind_proc): the executable mappings of a process's
 * address space named by gen (bpf/procs.h), sorted by start, each with
 * its load bias and its binary's run of rows.  A sample whose process is
 * not there (or is there with another gen), or whose pc lies in none of
 * its mappings, is not unwound in the kernel: its stack is copied as a
 * snapshot (unwound in user space) and a `kunwind_miss` record tells user
 * space to load that process. */
#ifndef STACKSCOPE_BPF_KUNWIND_H
#define STACKSCOPE_BPF_KUNWIND_H

#define KUNWIND_MAX_MAPS 128		/* executable mappings per process */
#define KUNWIND_MAP_STEPS 8		/* log2(KUNWIND_MAX_MAPS) + 1 */
#define KUNWIND_ROW_STEPS 25		/* binary-search steps: rows < 2^24 */
#define KUNWIND_MAX_ROWS (1U << 24)	/* --unwind-rows at most */
#define KUNWIND_DEFAULT_ROWS (256 * 1024)	/* 4 MiB of rows */
#define KUNWIND_DEFAULT_PROCS 1024

/* struct kunwind_map.kind */
enum kunwind_kind {
	KUNWIND_TABLE = 0,	/* rows [first, first + nrows) */
	KUNWIND_FP = 1,		/* no table: code no file holds (JIT) or a binary
				 * without call-frame information: frame pointers */
	KUNWIND_SNAPSHOT = 2,	/* its table did not fit in `unwind_rows`: a
				 * stack through it is copied and unwound in
				 * user space */
};

struct kunwind_map {
	__u64 start, end;	/* [start, end) */
	__u64 bias;		/* pc - bias = the file's virtual address */
	__u32 first, nrows;	/* its binary's rows in `unwind_rows` */
	__u32 kind;		/* enum kunwind_kind */
	__u32 pad;
};

/* struct kunwind_proc.flags */
#define KUNWIND_UNMAPPED_FP 1	/* loaded again after a pc outside its
				 * mappings: such pcs are stepped by frame
				 * pointer from now on (no file holds them) */

struct kunwind_proc {
	__u64 gen;		/* the address space these mappings are of */
	__u32 n;		/* valid entries in maps */
	__u32 flags;
	struct kunwind_map maps[KUNWIND_MAX_MAPS];
};

/* A process to load (or load again), from the `kunwind_miss` ring. */
struct kunwind_miss {
	__u32 pid;
	__u32 reason;		/* enum kunwind_stat: KSTAT_NO_PROC or _UNMAPPED */
	__u64 gen;
	__u64 pc;		/* KSTAT_UNMAPPED: the pc outside the mappings */
};

/* Indexes of the per-CPU `kunwind_stats` array. */
enum kunwind_stat {
	KSTAT_STACKS,		/* user stacks unwound in the kernel */
	KSTAT_FRAMES,		/* ... their frames */
	KSTAT_FP_FRAMES,	/* frames stepped by frame pointer: no table covers the pc */
	KSTAT_TRUNCATED,	/* chains not completed */
	KSTAT_NO_PROC,		/* to a snapshot: the process's tables not loaded (yet) */
	KSTAT_UNMAPPED,		/* to a snapshot: a pc in none of its loaded mappings */
	KSTAT_CAPACITY,		/* to a snapshot: a binary whose rows did not fit */
	KSTAT_DEEP,		/* to a snapshot: deeper than STACK_MAX_DEPTH frames
				 * (user space unwinds up to UNWIND_MAX_DEPTH) */
	KSTAT_MISS_LOST,	/* a miss not told: `kunwind_miss` full */
	KSTAT_NR,
};

#endif
