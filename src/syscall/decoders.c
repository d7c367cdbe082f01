/* The syscalls with a decoder: the kind of each argument (decode_args.c)
 * and of the return value, by strace's name for the call; and strace's
 * classes for -e trace=%file and the like. */
#include <string.h>
#include "common.h"
#include "syscall/decode_int.h"

/* clone(2) as strace shows it on x86_64: named arguments, the stack
 * first, then only the ones the flags make the kernel use. */
static int clone_layout(const struct dctx *c, struct ditem *it)
{
	__u64 fl = c->r->args[0];
	int n = 0;

	it[n++] = (struct ditem){ 1, "child_stack" };
	it[n++] = (struct ditem){ 0, "flags" };
	if (fl & (0x100000 | 0x1000))		/* CLONE_PARENT_SETTID, CLONE_PIDFD */
		it[n++] = (struct ditem){ 2, "parent_tid" };
	if (fl & 0x80000)			/* CLONE_SETTLS */
		it[n++] = (struct ditem){ 4, "tls" };
	if (fl & (0x1000000 | 0x200000))	/* CLONE_CHILD_SETTID, _CLEARTID */
		it[n++] = (struct ditem){ 3, "child_tidptr" };
	return n;
}

#define D(n, r, ...) { .name = n, .ret = r, .args = { __VA_ARGS__ } }
#define D0(n) { .name = n, .args = { A_NONE } }
#define DNORET(n, ...) { .name = n, .flags = D_NORET, .args = { __VA_ARGS__ } }

static const struct sc_decoder decoders[] = {
	/* files and descriptors */
	D("open", R_DEC, A_PATH, A_OPEN_FLAGS, A_OPEN_MODE),
	D("openat", R_DEC, A_DIRFD, A_PATH, A_OPEN_FLAGS, A_OPEN_MODE),
	D("openat2", R_DEC, A_DIRFD, A_PATH, A_OPEN_HOW, A_ULONG),
	D("creat", R_DEC, A_PATH, A_OCT),
	D("close", R_DEC, A_FD),
	D("close_range", R_DEC, A_UINT, A_UINT, A_CLOSE_RANGE),
	D("read", R_DEC, A_FD, A_BUF_OUT, A_ULONG),
	D("write", R_DEC, A_FD, A_BUF_IN, A_ULONG),
	D("pread64", R_DEC, A_FD, A_BUF_OUT, A_ULONG, A_LONG),
	D("pwrite64", R_DEC, A_FD, A_BUF_IN, A_ULONG, A_LONG),
	D("readv", R_DEC, A_FD, A_IOV_OUT, A_INT),
	D("writev", R_DEC, A_FD, A_IOV_IN, A_INT),
	D("preadv", R_DEC, A_FD, A_IOV_OUT, A_INT, A_LONG),
	D("pwritev", R_DEC, A_FD, A_IOV_IN, A_INT, A_LONG),
	/* pos_h: 0 on 64-bit, strace leaves it out */
	D("preadv2", R_DEC, A_FD, A_IOV_OUT, A_INT, A_LONG, A_HIDE, A_RWF),
	D("pwritev2", R_DEC, A_FD, A_IOV_IN, A_INT, A_LONG, A_HIDE, A_RWF),
	D("lseek", R_DEC, A_FD, A_LONG, A_SEEK),
	D("stat", R_DEC, A_PATH, A_STAT_OUT),
	D("lstat", R_DEC, A_PATH, A_STAT_OUT),
	D("fstat", R_DEC, A_FD, A_STAT_OUT),
	D("newfstatat", R_DEC, A_DIRFD, A_PATH, A_STAT_OUT, A_AT_FLAGS),
	D("statx", R_DEC, A_DIRFD, A_PATH, A_STATX_FLAGS, A_STATX_MASK, A_STATX_OUT),
	D("access", R_DEC, A_PATH, A_ACCESS_MODE),
	D("faccessat", R_DEC, A_DIRFD, A_PATH, A_ACCESS_MODE),
	D("faccessat2", R_DEC, A_DIRFD, A_PATH, A_ACCESS_MODE, A_FACCESS_FLAGS),
	D("mkdir", R_DEC, A_PATH, A_OCT),
	D("mkdirat", R_DEC, A_DIRFD, A_PATH, A_OCT),
	D("mknod", R_DEC, A_PATH, A_MKNOD_MODE, A_MKNOD_DEV),
	D("mknodat", R_DEC, A_DIRFD, A_PATH, A_MKNOD_MODE, A_MKNOD_DEV),
	D("rmdir", R_DEC, A_PATH),
	D("unlink", R_DEC, A_PATH),
	D("unlinkat", R_DEC, A_DIRFD, A_PATH, A_AT_FLAGS),
	D("rename", R_DEC, A_PATH, A_PATH),
	D("renameat", R_DEC, A_DIRFD, A_PATH, A_DIRFD, A_PATH),
	D("renameat2", R_DEC, A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_RENAME_FLAGS),
	D("link", R_DEC, A_PATH, A_PATH),
	D("linkat", R_DEC, A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_AT_FLAGS),
	D("symlink", R_DEC, A_PATH, A_PATH),
	D("symlinkat", R_DEC, A_PATH, A_DIRFD, A_PATH),
	D("readlink", R_DEC, A_PATH, A_BUF_OUT, A_ULONG),
	D("readlinkat", R_DEC, A_DIRFD, A_PATH, A_BUF_OUT, A_ULONG),
	D("chdir", R_DEC, A_PATH),
	D("fchdir", R_DEC, A_FD),
	D("chroot", R_DEC, A_PATH),
	D("getcwd", R_DEC, A_PATH_OUT, A_ULONG),
	D("dup", R_DEC, A_FD),
	D("dup2", R_DEC, A_FD, A_FD),
	D("dup3", R_DEC, A_FD, A_FD, A_FD_FLAGS),
	D("fcntl", R_FCNTL, A_FD, A_FCNTL_CMD, A_FCNTL_ARG),
	D("ioctl", R_DEC, A_FD, A_IOCTL_REQ, A_IOCTL_ARG),
	D("getdents", R_DEC, A_FD, A_DIRENTS, A_UINT),
	D("getdents64", R_DEC, A_FD, A_DIRENTS, A_UINT),
	D("chmod", R_DEC, A_PATH, A_OCT),
	D("fchmod", R_DEC, A_FD, A_OCT),
	D("fchmodat", R_DEC, A_DIRFD, A_PATH, A_OCT),
	D("fchmodat2", R_DEC, A_DIRFD, A_PATH, A_OCT, A_AT_FLAGS),
	D("chown", R_DEC, A_PATH, A_UID, A_UID),
	D("lchown", R_DEC, A_PATH, A_UID, A_UID),
	D("fchown", R_DEC, A_FD, A_UID, A_UID),
	D("fchownat", R_DEC, A_DIRFD, A_PATH, A_UID, A_UID, A_AT_FLAGS),
	D("truncate", R_DEC, A_PATH, A_LONG),
	D("ftruncate", R_DEC, A_FD, A_LONG),
	D("fsync", R_DEC, A_FD),
	D("fdatasync", R_DEC, A_FD),
	D("syncfs", R_DEC, A_FD),
	D("fallocate", R_DEC, A_FD, A_FALLOC, A_LONG, A_LONG),
	D("fadvise64", R_DEC, A_FD, A_LONG, A_LONG, A_FADV),
	D("utimensat", R_DEC, A_DIRFD, A_PATH, A_UTIMES, A_AT_FLAGS),
	D("setxattr", R_DEC, A_PATH, A_STR, A_BUF_IN, A_ULONG, A_XATTR_FLAGS),
	D("lsetxattr", R_DEC, A_PATH, A_STR, A_BUF_IN, A_ULONG, A_XATTR_FLAGS),
	D("fsetxattr", R_DEC, A_FD, A_STR, A_BUF_IN, A_ULONG, A_XATTR_FLAGS),
	D("getxattr", R_DEC, A_PATH, A_STR, A_BUF_OUT, A_ULONG),
	D("lgetxattr", R_DEC, A_PATH, A_STR, A_BUF_OUT, A_ULONG),
	D("fgetxattr", R_DEC, A_FD, A_STR, A_BUF_OUT, A_ULONG),
	/* the names, each ended by its NUL */
	D("listxattr", R_DEC, A_PATH, A_BUF_OUT, A_ULONG),
	D("llistxattr", R_DEC, A_PATH, A_BUF_OUT, A_ULONG),
	D("flistxattr", R_DEC, A_FD, A_BUF_OUT, A_ULONG),
	D("removexattr", R_DEC, A_PATH, A_STR),
	D("lremovexattr", R_DEC, A_PATH, A_STR),
	D("fremovexattr", R_DEC, A_FD, A_STR),
	D("pipe", R_DEC, A_FDS_OUT),
	D("pipe2", R_DEC, A_FDS_OUT, A_FD_FLAGS),
	D("eventfd", R_DEC, A_UINT),
	D("eventfd2", R_DEC, A_UINT, A_EFD_FLAGS),
	D("epoll_create", R_DEC, A_INT),
	D("epoll_create1", R_DEC, A_EPOLL_FLAGS),
	D("epoll_ctl", R_DEC, A_FD, A_EPOLL_CTL, A_FD, A_EPOLL_EVENT),
	D("epoll_wait", R_DEC, A_FD, A_EPOLL_EVENTS, A_INT, A_INT),
	D("epoll_pwait", R_DEC, A_FD, A_EPOLL_EVENTS, A_INT, A_INT, A_SIGSET_IN, A_ULONG),
	D("epoll_pwait2", R_DEC, A_FD, A_EPOLL_EVENTS, A_INT, A_TIMESPEC_IN, A_SIGSET_IN,
	  A_ULONG),
	D("poll", R_POLL, A_POLLFDS, A_UINT, A_INT),
	D("ppoll", R_POLL, A_POLLFDS, A_UINT, A_TIMESPEC_INOUT, A_SIGSET_IN, A_ULONG),
	D("select", R_SELECT, A_INT, A_FDSET_R, A_FDSET_W, A_FDSET_X, A_TIMEVAL_INOUT),
	D("pselect6", R_PSELECT, A_INT, A_FDSET_R, A_FDSET_W, A_FDSET_X, A_TIMESPEC_INOUT, A_PTR),
	D("sendfile", R_DEC, A_FD, A_FD, A_PTR, A_ULONG),
	D("copy_file_range", R_DEC, A_FD, A_PTR, A_FD, A_PTR, A_ULONG, A_UINT),
	D("splice", R_DEC, A_FD, A_PTR, A_FD, A_PTR, A_ULONG, A_SPLICE_FLAGS),
	D("tee", R_DEC, A_FD, A_FD, A_ULONG, A_SPLICE_FLAGS),
	D("vmsplice", R_DEC, A_FD, A_IOV_IN, A_ULONG, A_SPLICE_FLAGS),
	D0("inotify_init"),
	D("inotify_init1", R_DEC, A_IN_FLAGS),
	D("inotify_add_watch", R_DEC, A_FD, A_PATH, A_IN_MASK),
	D("inotify_rm_watch", R_DEC, A_FD, A_INT),
	D("memfd_create", R_DEC, A_STR, A_MFD_FLAGS),
	D("flock", R_DEC, A_FD, A_LOCK),
	D("umask", R_OCT, A_OCT),
	D0("sync"),

	/* memory */
	D("mmap", R_HEX, A_PTR, A_ULONG, A_PROT, A_MAP_FLAGS, A_FD, A_HEX),
	D("munmap", R_DEC, A_PTR, A_ULONG),
	D("mprotect", R_DEC, A_PTR, A_ULONG, A_PROT),
	D("pkey_mprotect", R_DEC, A_PTR, A_ULONG, A_PROT, A_INT),
	D("madvise", R_DEC, A_PTR, A_ULONG, A_MADV),
	D("brk", R_HEX, A_PTR),
	D("mremap", R_HEX, A_PTR, A_ULONG, A_ULONG, A_MREMAP_FLAGS, A_MREMAP_ADDR),
	D("msync", R_DEC, A_PTR, A_ULONG, A_MSYNC),
	D("mincore", R_DEC, A_PTR, A_ULONG, A_PTR),
	D("mlock", R_DEC, A_PTR, A_ULONG),
	D("munlock", R_DEC, A_PTR, A_ULONG),
	D("mlock2", R_DEC, A_PTR, A_ULONG, A_MLOCK_FLAGS),
	D("mlockall", R_DEC, A_MCL),
	D0("munlockall"),
	D("shmat", R_HEX, A_INT, A_PTR, A_SHM_FLAGS),
	D("shmdt", R_DEC, A_PTR),

	/* processes */
	{ .name = "clone", .ret = R_DEC, .layout = clone_layout,
	  .args = { A_CLONE_FLAGS, A_PTR, A_INT_OUT, A_PTR, A_HEX } },
	D("clone3", R_DEC, A_CLONE_ARGS, A_ULONG),
	D0("fork"),
	D0("vfork"),
	/* envp: its strings are not worth their copy, their count is */
	D("execve", R_DEC, A_PATH, A_STRV, A_ENVP),
	D("execveat", R_DEC, A_DIRFD, A_PATH, A_STRV, A_ENVP, A_AT_FLAGS),
	DNORET("exit", A_INT),
	DNORET("exit_group", A_INT),
	D("wait4", R_DEC, A_INT, A_WSTATUS, A_WAIT_OPTS, A_RUSAGE_OUT),
	D("waitid", R_DEC, A_IDTYPE, A_INT, A_PTR, A_WAIT_OPTS, A_PTR),
	D0("getpid"),
	D0("getppid"),
	D0("gettid"),
	D0("getuid"),
	D0("geteuid"),
	D0("getgid"),
	D0("getegid"),
	D0("getpgrp"),
	D0("setsid"),
	D("getpgid", R_DEC, A_INT),
	D("getsid", R_DEC, A_INT),
	D("setpgid", R_DEC, A_INT, A_INT),
	D("setuid", R_DEC, A_UID),
	D("setgid", R_DEC, A_UID),
	D("setreuid", R_DEC, A_UID, A_UID),
	D("setregid", R_DEC, A_UID, A_UID),
	D("setresuid", R_DEC, A_UID, A_UID, A_UID),
	D("setresgid", R_DEC, A_UID, A_UID, A_UID),
	D("set_tid_address", R_DEC, A_PTR),
	D("set_robust_list", R_DEC, A_PTR, A_ULONG),
	D("get_robust_list", R_DEC, A_INT, A_PTR, A_PTR),
	D("prctl", R_PRCTL, A_PRCTL_OPT, A_PRCTL_ARG2, A_PRCTL_ARG, A_PRCTL_ARG, A_PRCTL_ARG5),
	D("arch_prctl", R_DEC, A_ARCH_PRCTL, A_ARCH_PRCTL_ADDR),
	D("prlimit64", R_DEC, A_INT, A_RLIMIT_RES, A_RLIMIT_IN, A_RLIMIT_OUT),
	D("getrlimit", R_DEC, A_RLIMIT_RES, A_RLIMIT_OUT),
	D("setrlimit", R_DEC, A_RLIMIT_RES, A_RLIMIT_IN),
	D("getrusage", R_DEC, A_RUSAGE_WHO, A_RUSAGE_OUT),
	D0("sched_yield"),
	D("sched_getaffinity", R_DEC, A_INT, A_UINT, A_CPUSET_OUT),
	D("sched_setaffinity", R_DEC, A_INT, A_UINT, A_CPUSET_IN),
	D("getrandom", R_DEC, A_BUF_OUT_HEX, A_ULONG, A_GRND),
	D("uname", R_DEC, A_UTSNAME),
	D("sysinfo", R_DEC, A_SYSINFO),
	D("getgroups", R_DEC, A_INT, A_GROUPS_OUT),
	D("statfs", R_DEC, A_PATH, A_STATFS),
	D("fstatfs", R_DEC, A_FD, A_STATFS),
	D("rseq", R_DEC, A_PTR, A_HEX, A_RSEQ_FLAGS, A_HEX),
	D("futex", R_DEC, A_PTR, A_FUTEX_OP, A_FUTEX_ARG, A_FUTEX_TIMEOUT, A_FUTEX_ARG,
	  A_FUTEX_ARG),
	D("unshare", R_DEC, A_NS_FLAGS),
	D("setns", R_DEC, A_FD, A_NS_FLAGS),
	D("personality", R_HEX, A_HEX),

	/* time */
	D("nanosleep", R_DEC, A_TIMESPEC_IN, A_PTR),
	D("clock_nanosleep", R_DEC, A_CLOCKID, A_TIMER_FLAGS, A_TIMESPEC_IN, A_PTR),
	D("clock_gettime", R_DEC, A_CLOCKID, A_TIMESPEC_OUT),
	D("clock_getres", R_DEC, A_CLOCKID, A_TIMESPEC_OUT),
	D("clock_settime", R_DEC, A_CLOCKID, A_TIMESPEC_IN),
	D("gettimeofday", R_DEC, A_TIMEVAL_OUT, A_PTR),
	D("settimeofday", R_DEC, A_TIMEVAL_IN, A_PTR),
	D("time", R_TIME, A_TIME_OUT),
	D("timerfd_create", R_DEC, A_CLOCKID, A_TFD_FLAGS),
	D("timerfd_settime", R_DEC, A_FD, A_TFD_TIMER_FLAGS, A_ITIMERSPEC_IN, A_ITIMERSPEC_OUT),
	D("timerfd_gettime", R_DEC, A_FD, A_ITIMERSPEC_OUT),
	D("timer_create", R_DEC, A_CLOCKID, A_PTR, A_PTR),
	D("timer_settime", R_DEC, A_INT, A_TIMER_FLAGS, A_ITIMERSPEC_IN, A_ITIMERSPEC_OUT),
	D("timer_gettime", R_DEC, A_INT, A_ITIMERSPEC_OUT),
	D("timer_delete", R_DEC, A_INT),
	D("alarm", R_DEC, A_UINT),
	D("setitimer", R_DEC, A_ITIMER_WHICH, A_ITIMERVAL_IN, A_ITIMERVAL_OUT),
	D("getitimer", R_DEC, A_ITIMER_WHICH, A_ITIMERVAL_OUT),

	/* signals */
	D("kill", R_DEC, A_INT, A_SIG),
	D("tkill", R_DEC, A_INT, A_SIG),
	D("tgkill", R_DEC, A_INT, A_INT, A_SIG),
	D("rt_sigaction", R_DEC, A_SIG, A_SIGACTION_IN, A_SIGACTION_OUT, A_ULONG),
	D("rt_sigprocmask", R_DEC, A_SIGHOW, A_SIGSET_IN, A_SIGSET_OUT, A_ULONG),
	D("rt_sigpending", R_DEC, A_SIGSET_OUT, A_ULONG),
	D("rt_sigsuspend", R_DEC, A_SIGSET_IN, A_ULONG),
	D("rt_sigtimedwait", R_SIG, A_SIGSET_IN, A_PTR, A_TIMESPEC_IN, A_ULONG),
	D("rt_sigqueueinfo", R_DEC, A_INT, A_SIG, A_PTR),
	D("rt_tgsigqueueinfo", R_DEC, A_INT, A_INT, A_SIG, A_PTR),
	D("rt_sigreturn", R_DEC, A_SIGFRAME),
	D("sigaltstack", R_DEC, A_STACK_IN, A_STACK_OUT),
	D("signalfd", R_DEC, A_FD, A_SIGSET_IN, A_ULONG),
	D("signalfd4", R_DEC, A_FD, A_SIGSET_IN, A_ULONG, A_SFD_FLAGS),
	D0("pause"),
	D("pidfd_send_signal", R_DEC, A_FD, A_SIG, A_PTR, A_UINT),

	/* sockets */
	D("socket", R_DEC, A_FAMILY, A_SOCK_TYPE, A_SOCK_PROTO),
	D("socketpair", R_DEC, A_FAMILY, A_SOCK_TYPE, A_SOCK_PROTO, A_FDS_OUT),
	D("connect", R_DEC, A_FD, A_SOCKADDR_IN, A_INT),
	D("bind", R_DEC, A_FD, A_SOCKADDR_IN, A_INT),
	D("listen", R_DEC, A_FD, A_INT),
	D("accept", R_DEC, A_FD, A_SOCKADDR_OUT, A_SOCKLEN_OUT),
	D("accept4", R_DEC, A_FD, A_SOCKADDR_OUT, A_SOCKLEN_OUT, A_SOCK_FLAGS),
	D("getsockname", R_DEC, A_FD, A_SOCKADDR_OUT, A_SOCKLEN_OUT),
	D("getpeername", R_DEC, A_FD, A_SOCKADDR_OUT, A_SOCKLEN_OUT),
	D("sendto", R_DEC, A_FD, A_BUF_IN, A_ULONG, A_MSG_FLAGS, A_SOCKADDR_IN, A_INT),
	D("recvfrom", R_DEC, A_FD, A_BUF_OUT, A_ULONG, A_MSG_FLAGS, A_SOCKADDR_OUT,
	  A_SOCKLEN_OUT),
	D("sendmsg", R_DEC, A_FD, A_MSGHDR_IN, A_MSG_FLAGS),
	D("recvmsg", R_DEC, A_FD, A_MSGHDR_OUT, A_MSG_FLAGS),
	D("sendmmsg", R_DEC, A_FD, A_PTR, A_UINT, A_MSG_FLAGS),
	D("recvmmsg", R_DEC, A_FD, A_PTR, A_UINT, A_MSG_FLAGS, A_TIMESPEC_IN),
	D("shutdown", R_DEC, A_FD, A_SHUT),
	D("setsockopt", R_DEC, A_FD, A_SOL, A_SOCKOPT, A_SOCKOPT_IN, A_INT),
	D("getsockopt", R_DEC, A_FD, A_SOL, A_SOCKOPT, A_SOCKOPT_OUT, A_SOCKLEN_OUT),
};

const struct sc_decoder *sc_decoder_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(decoders); i++)
		if (!strcmp(decoders[i].name, name))
			return &decoders[i];
	return NULL;
}

/* The string arguments of the syscalls without a decoder, named as
 * Linux 6.18's formats name them (akind_of_string()); the arguments
 * between are A_AUTO.  Their specs capture these before the format is
 * read; once it is, the format decides (cmd/syscalls.c says where the
 * running kernel's differs, and the unit test systable_builtin_specs
 * checks this list against the running kernel). */
#define S(n, ...) { .name = n, .args = { __VA_ARGS__ } }
static const struct sc_decoder strargs[] = {
	S("utime", A_PATH),
	S("pivot_root", A_PATH, A_PATH),
	S("acct", A_STR),
	S("mount", A_PATH, A_PATH, A_STR),
	S("umount2", A_STR),
	S("swapon", A_PATH),
	S("swapoff", A_PATH),
	S("sethostname", A_STR),
	S("setdomainname", A_STR),
	S("quotactl", A_AUTO, A_PATH),
	S("utimes", A_PATH),
	S("mq_open", A_STR),
	S("mq_unlink", A_STR),
	S("add_key", A_STR, A_STR),
	S("request_key", A_STR, A_STR),
	S("futimesat", A_AUTO, A_PATH),
	S("fanotify_mark", A_AUTO, A_AUTO, A_AUTO, A_AUTO, A_PATH),
	S("name_to_handle_at", A_AUTO, A_STR),
	S("open_tree", A_AUTO, A_PATH),
	S("move_mount", A_AUTO, A_PATH, A_AUTO, A_PATH),
	S("fsopen", A_STR),
	S("fspick", A_AUTO, A_PATH),
	S("mount_setattr", A_AUTO, A_PATH),
	S("setxattrat", A_AUTO, A_PATH, A_AUTO, A_STR),
	S("getxattrat", A_AUTO, A_PATH, A_AUTO, A_STR),
	S("listxattrat", A_AUTO, A_PATH),
	S("removexattrat", A_AUTO, A_PATH, A_AUTO, A_STR),
	S("open_tree_attr", A_AUTO, A_PATH),
	S("file_getattr", A_AUTO, A_PATH),
	S("file_setattr", A_AUTO, A_PATH),
};

const struct sc_decoder *sc_strargs_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(strargs); i++)
		if (!strcmp(strargs[i].name, name))
			return &strargs[i];
	return NULL;
}

/* ---- classes ------------------------------------------------------------ */

/* strace's classes (its syscallent tables for x86_64), by name. */
static const char *const cls_file[] = {
	"open", "stat", "lstat", "access", "execve", "truncate", "getcwd", "chdir", "rename",
	"mkdir", "rmdir", "creat", "link", "unlink", "symlink", "readlink", "chmod", "chown",
	"lchown", "utime", "mknod", "uselib", "statfs", "pivot_root", "chroot", "acct",
	"mount", "umount2", "swapon", "swapoff", "quotactl", "setxattr", "lsetxattr",
	"getxattr", "lgetxattr", "listxattr", "llistxattr", "removexattr", "lremovexattr",
	"utimes", "inotify_add_watch", "openat", "mkdirat", "mknodat", "fchownat", "futimesat",
	"newfstatat", "unlinkat", "renameat", "linkat", "symlinkat", "readlinkat", "fchmodat",
	"faccessat", "utimensat", "fanotify_mark", "name_to_handle_at", "renameat2",
	"execveat", "statx", "open_tree", "move_mount", "fsconfig", "fspick", "openat2",
	"faccessat2", "mount_setattr", "fchmodat2", "setxattrat", "getxattrat", "listxattrat",
	"removexattrat", NULL
};
static const char *const cls_desc[] = {
	"read", "write", "open", "close", "fstat", "poll", "lseek", "mmap", "ioctl", "pread64",
	"pwrite64", "readv", "writev", "pipe", "select", "dup", "dup2", "sendfile", "fcntl",
	"flock", "fsync", "fdatasync", "ftruncate", "getdents", "fchdir", "creat", "fchmod",
	"fchown", "fstatfs", "readahead", "fsetxattr", "fgetxattr", "flistxattr",
	"fremovexattr", "epoll_create", "getdents64", "fadvise64", "epoll_wait", "epoll_ctl",
	"mq_open", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
	"inotify_init", "inotify_add_watch", "inotify_rm_watch", "openat", "mkdirat",
	"mknodat", "fchownat", "futimesat", "newfstatat", "unlinkat", "renameat", "linkat",
	"symlinkat", "readlinkat", "fchmodat", "faccessat", "pselect6", "ppoll", "splice",
	"tee", "sync_file_range", "vmsplice", "utimensat", "epoll_pwait", "signalfd",
	"timerfd_create", "eventfd", "fallocate", "timerfd_settime", "timerfd_gettime",
	"signalfd4", "eventfd2", "epoll_create1", "dup3", "pipe2", "inotify_init1", "preadv",
	"pwritev", "perf_event_open", "fanotify_init", "fanotify_mark", "name_to_handle_at",
	"open_by_handle_at", "syncfs", "setns", "finit_module", "renameat2", "memfd_create",
	"kexec_file_load", "bpf", "execveat", "userfaultfd", "copy_file_range", "preadv2",
	"pwritev2", "statx", "pidfd_send_signal", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
	"fspick", "pidfd_open", "openat2", "pidfd_getfd", "faccessat2", "process_madvise",
	"epoll_pwait2", "mount_setattr", "quotactl_fd", "landlock_create_ruleset",
	"landlock_add_rule", "landlock_restrict_self", "memfd_secret", "process_mrelease",
	"cachestat", "fchmodat2", "setxattrat", "getxattrat", NULL
};
static const char *const cls_memory[] = {
	"mmap", "mprotect", "munmap", "brk", "mremap", "msync", "mincore", "madvise", "shmat",
	"shmdt", "mlock", "munlock", "mlockall", "munlockall", "io_setup", "io_destroy",
	"remap_file_pages", "mbind", "set_mempolicy", "get_mempolicy", "migrate_pages",
	"move_pages", "mlock2", "pkey_mprotect", "io_uring_register",
	"set_mempolicy_home_node", "map_shadow_stack", "mseal", NULL
};
static const char *const cls_process[] = {
	"clone", "fork", "vfork", "execve", "exit", "wait4", "kill", "rt_sigqueueinfo", "tkill",
	"exit_group", "waitid", "tgkill", "rt_tgsigqueueinfo", "execveat",
	"pidfd_send_signal", "clone3", NULL
};
static const char *const cls_signal[] = {
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "pause", "kill", "rt_sigpending",
	"rt_sigtimedwait", "rt_sigqueueinfo", "rt_sigsuspend", "sigaltstack", "tkill",
	"tgkill", "signalfd", "signalfd4", "rt_tgsigqueueinfo", "pidfd_send_signal",
	"io_uring_enter", NULL
};
static const char *const cls_network[] = {
	"sendfile", "socket", "connect", "accept", "sendto", "recvfrom", "sendmsg", "recvmsg",
	"shutdown", "bind", "listen", "getsockname", "getpeername", "socketpair", "setsockopt",
	"getsockopt", "getpmsg", "putpmsg", "accept4", "recvmmsg", "sendmmsg", NULL
};
static const char *const cls_ipc[] = {
	"shmget", "shmat", "shmctl", "semget", "semop", "semctl", "shmdt", "msgget", "msgsnd",
	"msgrcv", "msgctl", "semtimedop", NULL
};
static const char *const cls_clock[] = {
	"gettimeofday", "adjtimex", "settimeofday", "time", "clock_settime", "clock_gettime",
	"clock_getres", "clock_adjtime", NULL
};

static const struct {
	const char *name;
	const char *const *members;
} classes[] = {
	{ "file", cls_file }, { "desc", cls_desc }, { "memory", cls_memory },
	{ "process", cls_process }, { "signal", cls_signal }, { "network", cls_network },
	{ "ipc", cls_ipc }, { "clock", cls_clock },
};

static const char *const *class_members(const char *cls)
{
	for (size_t i = 0; cls && i < ARRAY_SIZE(classes); i++)
		if (!strcmp(classes[i].name, cls))
			return classes[i].members;
	return NULL;
}

bool sc_class_known(const char *cls)
{
	return class_members(cls) != NULL;
}

bool sc_in_class(const char *name, const char *cls)
{
	const char *const *m = class_members(cls);

	for (; m && name && *m; m++)
		if (!strcmp(*m, name))
			return true;
	return false;
}
