/* The records generated programs send through the one ring buffer, read
 * by the runtime: a header, then the site's arguments at the offsets
 * its struct lang_cg_site gives (lang/codegen.h).  Values inside records,
 * keys and map values have these layouts (every size a multiple of 8):
 *
 *   int        8 bytes (two's complement)
 *   string     max_strlen rounded up to 8, NUL-padded
 *   buf        u64 length, then max_strlen rounded up to 8 bytes
 *   tuple      its elements in order
 *   kstack/ustack  struct lang_rec_stack
 *   a record with a table-unwound ustack (ustack without fp): its site's
 *              bytes, then struct lang_rec_snap (8-aligned), then the
 *              stack bytes copied from the user sp
 *   ksym       u64 address;  usym: u64 address, u64 pid
 *   strftime   u64 site of the format, u64 nanoseconds (CLOCK_REALTIME
 *              derived: boot-time ns, see the runtime)
 *   count sum  u64;  min max: i64 value, u64 set;  avg stats: u64 count, i64 sum
 *   hist lhist u64 per bucket */
#ifndef STACKSCOPE_LANG_REC_H
#define STACKSCOPE_LANG_REC_H
#include <stdint.h>

struct lang_rec_hdr {
	uint32_t site;		/* index in cg->sites */
	uint32_t prog;		/* index in cg->progs */
};

struct lang_rec_stack {
	int64_t id;		/* bpf_get_stackid(): negative when it failed */
	uint32_t pid;		/* user stacks: whose */
	uint8_t user;
	uint8_t mode;		/* 0 bpftrace, 1 perf, 2 raw */
	uint16_t depth;		/* frames to print; 0 all */
};

/* lang_rec_stack.mode: a user stack unwound in user space from the
 * record's snapshot (ustack without fp); its id is the runtime's, -1 in
 * what the kernel sends. */
#define LANG_STACK_SNAP 0x80
#define LANG_STACK_MODE_MASK 0x0f

/* The snapshot of the interrupted user context a record carries. */
struct lang_rec_snap {
	uint64_t ip, sp, bp;	/* user registers (task_pt_regs) */
	uint64_t time;		/* bpf_ktime_get_ns(): names the address space */
	uint32_t pid, tid;
	uint32_t size;		/* stack bytes that follow */
	uint32_t pad;
};

/* Bytes of user stack a record copies (at most), and the copy's page. */
#define LANG_SNAP_BYTES (16 * 1024)
#define LANG_SNAP_PAGE 4096

/* `call` in a record (syscall:NAME:return): the call as the syscalls
 * capture would give it, then per argument the capture kind's result:
 * rc[i] what bpf_probe_read_user{,_str}() returned for argument i, whose
 * bytes are in the record's data slot lang_cg_call_slot() (the runtime
 * recomputes each length from the arguments and ret as the code did,
 * lang/runtime.c).  Only the slots used are in the record:
 * lang_cg_call_size() bytes in all. */
#define LANG_REC_CALL_ARGS 6
#define LANG_REC_CALL_CAP 256	/* = LANG_SYS_CAP */
struct lang_rec_call {
	uint64_t enter_ns, exit_ns;
	uint64_t args[LANG_REC_CALL_ARGS];
	int64_t ret;
	uint32_t tid, pid;	/* bpf_get_current_pid_tgid() as stored */
	uint32_t nr, pad;
	char comm[16];
	int64_t rc[LANG_REC_CALL_ARGS];
	uint8_t data[][LANG_REC_CALL_CAP];
};

struct lang_rec_minmax {
	int64_t v;
	uint64_t set;
};

struct lang_rec_avg {
	uint64_t count;
	int64_t sum;
};

#endif
