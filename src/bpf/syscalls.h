/* Layouts shared by syscalls.bpf.c and the user side (cmd/syscalls.c,
 * syscall/).
 *
 * A record is opened when a syscall enters (in the thread's task storage:
 * no copy of a large value per call), completed when it returns, then
 * queued through the `records` ring buffer as one unit of header + the
 * bytes actually captured.  What user memory is captured for an argument,
 * and when, comes from the per-syscall `specs` array user space fills
 * from its decoders (syscall/decode.c). */
#ifndef STACKSCOPE_BPF_SYSCALLS_H
#define STACKSCOPE_BPF_SYSCALLS_H

#define SC_ARGS 6
#define SC_NR_MAX 1024		/* syscall numbers below this are traced */
#define SC_STR_MAX 4096		/* ceiling of -s: bytes of one captured argument */
#define SC_PATH_MAX 4096	/* a path, its NUL included (PATH_MAX) */
#define SC_COUNT_MAX 65536	/* elements counted (envp, directory entries) */
#define SC_DATA_MAX 8192	/* captured bytes of one record, chunk headers included */
#define SC_STRV_MAX 16		/* argv/envp elements copied (execve) */
#define SC_IOV_MAX 8		/* iovec elements whose bytes are copied */
#define SC_ARRAY_MAX 64		/* elements of a counted array copied (poll, epoll) */
#define SC_CONTROL_MAX 256	/* bytes of a msghdr's control messages copied */
#define SC_COMM_LEN 16

/* How one argument's user memory is captured.  Lengths are capped by -s
 * (strsize) unless the kind says otherwise. */
enum sc_cap {
	SC_CAP_NONE = 0,
	/* At entry, a NUL-terminated string, up to strsize + 1 bytes so a
	 * longer one shows as cut.  chunk.len excludes the NUL; SC_CHUNK_TRUNC
	 * when no NUL was found within strsize. */
	SC_CAP_STR,
	/* At entry, bytes: length = args[len_arg], capped at `size` when that
	 * is not 0 (a sockaddr: its own bound), else at strsize.  TRUNC when
	 * the length was capped. */
	SC_CAP_BUF_IN,
	/* At exit when ret > 0: length = ret, capped at args[len_arg] (unless
	 * len_arg is SC_LEN_FIXED) and at `size` when not 0, else strsize. */
	SC_CAP_BUF_OUT,
	/* At entry, `size` bytes (a struct or an array), not capped by -s. */
	SC_CAP_STRUCT_IN,
	/* At exit when ret >= 0, `size` bytes, not capped by -s. */
	SC_CAP_STRUCT_OUT,
	/* At entry, a NULL-terminated array of string pointers (execve argv,
	 * envp): one SC_CAP_STRV chunk with the first SC_STRV_MAX pointers
	 * (len = 8 * count read, SC_CHUNK_TRUNC when no NULL among them), then
	 * one SC_CAP_STR chunk per non-NULL pointer with idx = element index,
	 * while the record has room. */
	SC_CAP_STRV,
	/* At entry (writev) / at exit when ret > 0 (readv): the iovec array,
	 * count = args[len_arg] capped at SC_IOV_MAX, as one chunk of kind
	 * SC_CAP_IOV_IN/OUT (struct sc_iovec[count], TRUNC when count was
	 * capped), then one SC_CAP_BUF_IN/OUT chunk per element with idx =
	 * element index holding its first bytes; the bytes of all elements
	 * together stop at strsize (and at ret for readv). */
	SC_CAP_IOV_IN,
	SC_CAP_IOV_OUT,
	/* At entry, a NUL-terminated path, whole: up to SC_PATH_MAX bytes
	 * whatever -s says (strace never cuts a path).  TRUNC when no NUL
	 * was found within them. */
	SC_CAP_PATH,
	/* At entry, the number of pointers before the NULL of a pointer array
	 * (execve's envp): one chunk of a __u32, TRUNC when SC_COUNT_MAX were
	 * counted without meeting the NULL. */
	SC_CAP_STRV_COUNT,
	/* At exit when ret >= 0, the number of directory entries in the ret
	 * bytes filled (getdents, getdents64): one chunk of a __u32. */
	SC_CAP_DIRENTS,
	/* At entry, the 8 bytes at the user stack pointer + `size`: the
	 * signal mask rt_sigreturn restores, in the frame it is called on.
	 * The argument's register is not used. */
	SC_CAP_SIGMASK_SP,
	/* At entry, an array of args[len_arg] (a u32) elements of `size`
	 * bytes, at most SC_ARRAY_MAX of them (TRUNC when more), not cut by
	 * -s (the renderer abbreviates as strace does). */
	SC_CAP_ARRAY_IN,
	/* At exit when ret > 0, the ret elements the call filled (epoll_wait),
	 * capped at args[len_arg] and SC_ARRAY_MAX (TRUNC when capped). */
	SC_CAP_ARRAY_OUT,
	/* Both: the args[len_arg] elements at entry as an SC_CAP_ARRAY_IN
	 * chunk, and again at exit when ret > 0 as an SC_CAP_ARRAY_OUT chunk
	 * (poll: the revents the call wrote). */
	SC_CAP_ARRAY_INOUT,
	/* `size` bytes at entry as an SC_CAP_STRUCT_IN chunk, and at exit when
	 * ret >= 0 as an SC_CAP_STRUCT_OUT chunk (ioctl: TCSETS passes a
	 * struct termios, TCGETS fills one). */
	SC_CAP_STRUCT_INOUT,
	/* A struct msghdr: at entry (sendmsg) / at exit when ret >= 0
	 * (recvmsg) the msghdr as an SC_CAP_STRUCT_IN/OUT chunk of idx 0, its
	 * msg_name (msg_namelen bytes, at most 128) as one of idx 1, then its
	 * msg_control (msg_controllen bytes, at most SC_CONTROL_MAX) as one of
	 * idx 2, then its msg_iov as SC_CAP_IOV_IN/OUT does (the bytes stop at
	 * strsize, and at ret for recvmsg).  recvmsg's msghdr is also read at
	 * entry (idx 0). */
	SC_CAP_MSGHDR_IN,
	SC_CAP_MSGHDR_OUT,
	SC_CAP_NR,
};

#define SC_LEN_FIXED 0xff	/* len_arg value: no length argument */

struct sc_arg_spec {
	__u8 cap;		/* enum sc_cap */
	__u8 len_arg;		/* argument holding the length/count, or SC_LEN_FIXED */
	__u16 size;		/* STRUCT_*: bytes; BUF_*: cap instead of strsize, 0 = strsize */
};

/* specs[nr].flags */
#define SC_SPEC_TRACE 0x1	/* wanted (-e); cleared = not traced at all */
#define SC_SPEC_NORET 0x2	/* never returns when it succeeds (exit, exit_group):
				 * the record is queued at entry */

struct sc_spec {
	__u32 flags;
	__u32 pad;
	struct sc_arg_spec args[SC_ARGS];
};

/* Chunks follow the record header, each 8-byte aligned.  An input read
 * at entry from memory not yet faulted in is read again at exit (the call
 * has faulted it in by then when it used it), so its chunk may come after
 * output chunks. */
#define SC_CHUNK_TRUNC 0x1	/* the memory went on beyond what was copied */
#define SC_CHUNK_FAULT 0x2	/* it could not be read: len == 0 */

struct sc_chunk {
	__u8 arg;		/* 0..5 */
	__u8 cap;		/* enum sc_cap of what this chunk holds */
	__u8 flags;		/* SC_CHUNK_* */
	__u8 idx;		/* element of an argv / iovec, else 0 */
	__u16 len;		/* bytes that follow */
	__u16 pad;
};

#define SC_CHUNK_SIZE(len) ((sizeof(struct sc_chunk) + (len) + 7) & ~7UL)

/* An element of an SC_CAP_IOV_* chunk: the traced process's struct iovec. */
struct sc_iovec {
	__u64 base;
	__u64 len;
};

/* The traced process's struct msghdr (SC_CAP_MSGHDR_*). */
struct sc_msghdr {
	__u64 name;
	__u32 namelen;
	__u32 pad;
	__u64 iov;
	__u64 iovlen;
	__u64 control;
	__u64 controllen;
	__u32 flags;
	__u32 pad2;
};

/* Record kinds (sc_record.kind). */
enum sc_kind {
	SC_REC_CALL = 1,	/* a syscall: header + chunks */
	SC_REC_STACK,		/* the user stack of the next CALL of the same tid (-k) */
	SC_REC_EXIT,		/* a process ended: ret = its exit status (wait status) */
};

/* sc_record.flags */
#define SC_F_NORET 0x1		/* queued at entry: the call does not return (exit_group) */
#define SC_F_UNFINISHED 0x2	/* the thread ended (or tracing stopped) inside the call */
#define SC_F_STACK 0x4		/* an SC_REC_STACK record for it precedes it */
#define SC_F_DATA_FULL 0x8	/* some captured memory did not fit SC_DATA_MAX */
#define SC_F_RESUMED 0x10	/* entered before tracing began: enter_ns 0, no
				 * input memory; the arguments are read at exit */

struct sc_record {
	__u32 kind;		/* enum sc_kind */
	__u32 flags;		/* SC_F_* */
	__u64 enter_ns;		/* bpf_ktime_get_ns() at entry (CLOCK_MONOTONIC) */
	__u64 exit_ns;		/* ... at exit; 0 when it did not return */
	__u64 args[SC_ARGS];
	__s64 ret;
	__u64 lost_total;	/* records lost anywhere before this one was queued */
	__u64 gen;		/* address space of pid (for -k symbols; bpf/procs.h) */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 nr;		/* syscall number */
	__u32 cpu;		/* at entry */
	__u32 data_len;		/* bytes of chunks after the header */
	__u32 pad;
	char comm[SC_COMM_LEN];
	/* followed by data_len bytes of struct sc_chunk + data */
};

/* SC_REC_STACK: kind, tid, pid, gen and comm as in sc_record, then the
 * user registers at the call and `size` bytes of the stack from sp. */
struct sc_stack {
	__u32 kind;
	__u32 tid;
	__u32 pid;
	__u32 pad0;
	__u64 gen;
	__u64 ip, sp, bp;
	__u32 size;
	__u32 pad;
	char comm[SC_COMM_LEN];
	/* followed by the stack bytes */
};

/* Indexes of the per-CPU `sc_stats` array. */
enum sc_stat {
	SCSTAT_RECORDS,		/* queued */
	SCSTAT_LOST,		/* not queued: ring buffer full (also per nr in `lost`) */
	SCSTAT_NO_STORAGE,	/* no task storage for the in-flight record */
	SCSTAT_STACK_LOST,	/* -k: a stack not queued */
	SCSTAT_FILTERED,	/* completed but filtered (--failed, --min-duration) */
	SCSTAT_EXIT_LOST,	/* process-exit records not queued (also in the total) */
	SCSTAT_NR,
};

/* -c: per-syscall totals kept in the kernel (per-CPU array by nr). */
struct sc_count {
	__u64 calls;
	__u64 errors;
	__u64 total_ns;
	__u64 max_ns;
};

#endif
