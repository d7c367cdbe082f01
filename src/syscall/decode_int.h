/* Inside the syscall decoder: shared by decode.c (the engine: text,
 * quoting, records, return values, JSON), decode_args.c and decode_mem.c
 * (how each kind of argument is shown and captured: values in registers,
 * user memory) and decoders.c (which kinds each syscall's arguments are,
 * and the -e classes). */
#ifndef STACKSCOPE_SYSCALL_DECODE_INT_H
#define STACKSCOPE_SYSCALL_DECODE_INT_H
#include "syscall/decode.h"

/* A growing text; `oom` once an allocation failed (the text is then cut
 * short, never invalid). */
struct dbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void dbuf_putc(struct dbuf *b, char ch);
void dbuf_puts(struct dbuf *b, const char *s);
void dbuf_printf(struct dbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* dbuf_quote() styles */
#define Q_HEX 0x1	/* every byte as \xNN (random bytes: getrandom) */
#define Q_NUL 0x2	/* the text ends at the first NUL (a C string in a buffer) */

/* Bytes as strace quotes them: "..." with \n \t \r \v \f \\ \" and
 * octal escapes, then "..." after the closing quote when `more`. */
void dbuf_quote(struct dbuf *b, const void *p, size_t len, bool more, unsigned int style);
/* NULL for 0, else 0x... */
void dbuf_ptr(struct dbuf *b, __u64 v);

/* A table of names: values with their names, ended by a NULL name. */
struct xlat {
	__u64 val;
	const char *name;
};

const char *xlat_name(const struct xlat *t, __u64 v);
/* Flags: names joined by '|' in table order (an entry matches when all
 * its bits are set), leftover bits as one hex number; 0 as the table's
 * entry for 0, else "0". */
void xlat_flags(struct dbuf *b, const struct xlat *t, __u64 v);
/* A value: its name, else the number in decimal (signed when `sign`). */
void xlat_enum(struct dbuf *b, const struct xlat *t, __u64 v, bool sign);
/* A field held in some bits (`mask`, named by `field`) followed by flags
 * in the others: "O_RDONLY|O_CLOEXEC", "MAP_PRIVATE|MAP_ANONYMOUS". */
void xlat_field_flags(struct dbuf *b, const struct xlat *field, __u64 mask,
		      const struct xlat *flags, __u64 v);

/* One record being rendered. */
struct dctx {
	const struct sc_info *si;
	const struct sc_decoder *dec;
	const struct sc_record *r;
	size_t size;		/* bytes of r */
	int strsize;
	bool done;		/* it returned: neither NORET nor UNFINISHED */
	bool failed;		/* done, and ret is an error */
	struct dbuf *b;		/* where the argument being shown goes */
};

static inline __u64 dctx_arg(const struct dctx *c, int arg)
{
	return arg >= 0 && arg < SC_ARGS ? c->r->args[arg] : 0;
}

/* The bytes of the chunk of arg/cap/idx when it was read (not FAULT)
 * and holds at least `min` bytes, else NULL; *len and *flags (when not
 * NULL) get the chunk's. */
const unsigned char *dctx_data(const struct dctx *c, int arg, int cap, int idx, size_t min,
			       size_t *len, __u8 *flags);

/* How an argument is shown (and what user memory it needs). */
enum akind {
	A_NONE,			/* no more arguments */
	A_AUTO,			/* by its tracefs type */
	A_HIDE,			/* never shown */
	A_RAW,			/* hex: nothing known of it */
	/* numbers */
	A_INT, A_UINT, A_LONG, A_ULONG, A_HEX, A_PTR, A_OCT, A_UID, A_FD, A_DIRFD, A_SIG,
	/* named values and flags */
	A_OPEN_FLAGS, A_OPEN_MODE, A_AT_FLAGS, A_FACCESS_FLAGS, A_ACCESS_MODE, A_SEEK,
	A_FD_FLAGS, A_RENAME_FLAGS, A_STATX_FLAGS, A_STATX_MASK, A_FCNTL_CMD, A_FCNTL_ARG,
	A_IOCTL_REQ, A_IOCTL_ARG, A_LOCK, A_MFD_FLAGS, A_EFD_FLAGS, A_EPOLL_FLAGS, A_EPOLL_CTL,
	A_IN_FLAGS, A_IN_MASK, A_SPLICE_FLAGS, A_FADV, A_FALLOC, A_CLOSE_RANGE, A_MKNOD_MODE,
	A_MKNOD_DEV, A_XATTR_FLAGS, A_RWF,
	A_PROT, A_MAP_FLAGS, A_MADV, A_MREMAP_FLAGS, A_MREMAP_ADDR, A_MSYNC, A_MLOCK_FLAGS,
	A_MCL, A_SHM_FLAGS,
	A_CLONE_FLAGS, A_NS_FLAGS, A_WAIT_OPTS, A_IDTYPE, A_PRCTL_OPT, A_PRCTL_ARG,
	A_PRCTL_ARG2, A_PRCTL_ARG5, A_ARCH_PRCTL, A_ARCH_PRCTL_ADDR, A_RLIMIT_RES, A_RUSAGE_WHO, A_GRND,
	A_FUTEX_OP, A_FUTEX_ARG, A_FUTEX_TIMEOUT, A_RSEQ_FLAGS,
	A_CLOCKID, A_TIMER_FLAGS, A_TFD_FLAGS, A_TFD_TIMER_FLAGS, A_ITIMER_WHICH,
	A_SIGHOW, A_SFD_FLAGS,
	A_FAMILY, A_SOCK_TYPE, A_SOCK_PROTO, A_SOCK_FLAGS, A_MSG_FLAGS, A_SHUT, A_SOL,
	A_SOCKOPT,
	/* user memory */
	A_STR, A_PATH, A_PATH_OUT, A_STRV, A_ENVP, A_BUF_IN, A_BUF_OUT, A_BUF_OUT_HEX, A_BUF_OUT_STR, A_IOV_IN, A_IOV_OUT,
	A_FDS_OUT, A_INT_OUT, A_STAT_OUT, A_STATX_OUT, A_OPEN_HOW, A_UTIMES,
	A_TIMESPEC_IN, A_TIMESPEC_INOUT, A_TIMESPEC_OUT, A_TIMEVAL_IN, A_TIMEVAL_INOUT,
	A_TIMEVAL_OUT, A_FDSET_R, A_FDSET_W, A_FDSET_X, A_ITIMERSPEC_IN,
	A_ITIMERSPEC_OUT, A_ITIMERVAL_IN, A_ITIMERVAL_OUT, A_TIME_OUT, A_RUSAGE_OUT,
	A_SIGSET_IN, A_SIGSET_OUT, A_SIGACTION_IN, A_SIGACTION_OUT, A_STACK_IN, A_STACK_OUT,
	A_WSTATUS, A_RLIMIT_IN, A_RLIMIT_OUT, A_UTSNAME, A_CPUSET_IN, A_CPUSET_OUT,
	A_CLONE_ARGS, A_EPOLL_EVENT, A_EPOLL_EVENTS, A_POLLFDS, A_DIRENTS, A_SIGFRAME, A_SYSINFO, A_STATFS,
	A_GROUPS_OUT,
	A_SOCKADDR_IN, A_SOCKADDR_OUT, A_SOCKLEN_OUT, A_MSGHDR_IN, A_MSGHDR_OUT, A_SOCKOPT_IN, A_SOCKOPT_OUT,
	A_NR
};

/* akind.flags */
#define K_PTR 0x1	/* a pointer: 0 is shown as NULL */
#define K_OUT 0x2	/* memory the call fills: its address when it failed */

/* One kind of argument.  show() writes c->b and returns false when the
 * argument is not shown at all for this call (openat's mode without
 * O_CREAT). */
struct argkind {
	bool (*show)(struct dctx *c, int arg, const struct argkind *k);
	const struct xlat *tbl;	/* names, for the kinds that have them */
	__u8 cap;		/* enum sc_cap: what to capture, SC_CAP_NONE */
	__s8 len_rel;		/* BUF, IOV: the length argument, relative to this one */
	__u16 size;		/* STRUCT: bytes; BUF: a cap instead of strsize */
	__u8 flags;		/* K_* */
	__u8 style;		/* Q_*: how bytes are quoted */
};

/* value_kinds: A_NONE .. A_SOCKOPT (decode_args.c); mem_kinds: A_STR
 * on (decode_mem.c). */
extern const struct argkind value_kinds[A_STR];
extern const struct argkind mem_kinds[A_NR - A_STR];

static inline const struct argkind *argkind_get(enum akind k)
{
	return k < A_STR ? &value_kinds[k] : &mem_kinds[k - A_STR];
}

/* The string arguments of syscalls without a decoder, `const char *`
 * and `char *` with a name that says so: A_PATH for paths (filename,
 * pathname, ...), A_STR for other strings (a type, a name), else A_NONE. */
enum akind akind_of_string(const struct sc_argdesc *a);
/* The other kinds for a tracefs type: A_PTR, A_OCT, A_INT, ... */
enum akind akind_of_type(const struct sc_argdesc *a);

/* Return values (sc_decoder.ret). */
enum rkind {
	R_DEC,			/* signed decimal */
	R_HEX,			/* an address: mmap, brk */
	R_OCT,			/* umask */
	R_FCNTL,		/* F_GETFL, F_GETFD decoded */
	R_POLL,			/* the revents of poll/ppoll */
	R_TIME,			/* time(): the date too */
	R_SIG,			/* a signal number */
	R_PRCTL,		/* prctl: PR_GET_DUMPABLE's and PR_MCE_KILL_GET's names */
	R_SELECT,		/* select: the ready sets and the time left (timeval) */
	R_PSELECT,		/* pselect6: ... (timespec) */
};

/* A shown argument: which one, under which name (NULL: tracefs's). */
struct ditem {
	__u8 arg;
	const char *label;
};

/* sc_decoder.flags */
#define D_NORET 0x1		/* does not return when it succeeds */

/* How a syscall is shown: the kind of each argument (A_NONE ends them),
 * of the return value, and optionally an order of its own (clone). */
struct sc_decoder {
	const char *name;
	__u8 args[SC_ARGS];
	__u8 ret;		/* enum rkind */
	__u8 flags;		/* D_* */
	/* fills items, returns how many; NULL: the arguments in order */
	int (*layout)(const struct dctx *c, struct ditem *items);
};

/* The syscalls without a decoder that have string arguments, as a
 * decoder whose other arguments are A_AUTO: what their formats make
 * sc_spec_for() capture, known before the format is read (table.c);
 * NULL for the other names. */
const struct sc_decoder *sc_strargs_find(const char *name);

/* Shown by several kinds and by return values. */
void show_signal(struct dbuf *b, __u64 sig);			/* SIGTERM */
void put_signame(struct dbuf *b, __u64 sig, const char *prefix);
void put_oct(struct dbuf *b, unsigned int mode);		/* 0644 */
void put_mode(struct dbuf *b, unsigned int mode);		/* S_IFREG|0644 */
void put_dev(struct dbuf *b, __u64 dev);			/* makedev(0x1, 0x3) */
void put_timespec(struct dbuf *b, const unsigned char *p);	/* {tv_sec=.., tv_nsec=..} */
/* "1 (in [3], left {tv_sec=0, tv_usec=99})", "0 (Timeout)" */
void put_select_ret(const struct dctx *c, struct dbuf *b, bool timespec);
bool prctl_ret_name(struct dbuf *b, __u64 opt, long long ret);	/* 1 (SUID_DUMP_USER) */
extern const struct xlat xl_open_access[], xl_open_flags[], xl_fd_flags[], xl_pollev[];
extern const struct xlat xl_family[], xl_statx_mask[], xl_clone_flags[], xl_msg_flags[],
	xl_sol[];
#define K_SIGRTMIN 32
#define K_NSIG 64
enum { K_AF_UNIX = 1, K_AF_INET = 2, K_AF_INET6 = 10, K_AF_NETLINK = 16 };
#define K_O_CREAT 0100
#define K_O_TMPFILE 020000000

#endif
