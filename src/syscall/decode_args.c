/* The kinds of syscall arguments held in the registers themselves:
 * numbers, and the names of their values (kernel values for x86_64, in
 * the order strace lists them).  The kinds that point at user memory are
 * decode_mem.c. */
#include <string.h>
#include "common.h"
#include "syscall/decode_int.h"

/* ---- names ------------------------------------------------------------ */

#define XEND { 0, NULL }

/* Kernel values spelled out: glibc's differ for some (O_LARGEFILE is 0
 * on x86_64 userspace, the kernel's is 0100000). */
const struct xlat xl_open_access[] = {
	{ 0, "O_RDONLY" }, { 1, "O_WRONLY" }, { 2, "O_RDWR" }, { 3, "O_ACCMODE" }, XEND
};
const struct xlat xl_open_flags[] = {
	{ 0100, "O_CREAT" }, { 0200, "O_EXCL" }, { 0400, "O_NOCTTY" }, { 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" }, { 04000, "O_NONBLOCK" },
	/* O_SYNC holds O_DSYNC's bit, O_TMPFILE O_DIRECTORY's */
	{ 04010000, "O_SYNC" }, { 04000000, "__O_SYNC" }, { 010000, "O_DSYNC" },
	{ 040000, "O_DIRECT" }, { 0100000, "O_LARGEFILE" }, { 0400000, "O_NOFOLLOW" },
	{ 01000000, "O_NOATIME" }, { 02000000, "O_CLOEXEC" }, { 010000000, "O_PATH" },
	{ 020200000, "O_TMPFILE" }, { 020000000, "__O_TMPFILE" }, { 0200000, "O_DIRECTORY" },
	{ 020000, "FASYNC" }, XEND
};

static const struct xlat xl_at_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_REMOVEDIR" }, { 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" }, { 0x1000, "AT_EMPTY_PATH" }, { 0x8000, "AT_RECURSIVE" },
	XEND
};
static const struct xlat xl_faccess_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_EACCESS" }, { 0x1000, "AT_EMPTY_PATH" },
	XEND
};
static const struct xlat xl_access_mode[] = {
	{ 0, "F_OK" }, { 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" }, XEND
};
static const struct xlat xl_seek[] = {
	{ 0, "SEEK_SET" }, { 1, "SEEK_CUR" }, { 2, "SEEK_END" }, { 3, "SEEK_DATA" },
	{ 4, "SEEK_HOLE" }, XEND
};
static const struct xlat xl_rename_flags[] = {
	{ 1, "RENAME_NOREPLACE" }, { 2, "RENAME_EXCHANGE" }, { 4, "RENAME_WHITEOUT" }, XEND
};
const struct xlat xl_statx_mask[] = {
	{ 0xfff, "STATX_ALL" }, { 0x7ff, "STATX_BASIC_STATS" },
	{ 0x1, "STATX_TYPE" }, { 0x2, "STATX_MODE" }, { 0x4, "STATX_NLINK" }, { 0x8, "STATX_UID" },
	{ 0x10, "STATX_GID" }, { 0x20, "STATX_ATIME" }, { 0x40, "STATX_MTIME" },
	{ 0x80, "STATX_CTIME" }, { 0x100, "STATX_INO" }, { 0x200, "STATX_SIZE" },
	{ 0x400, "STATX_BLOCKS" }, { 0x800, "STATX_BTIME" }, { 0x1000, "STATX_MNT_ID" },
	{ 0x2000, "STATX_DIOALIGN" }, { 0x4000, "STATX_MNT_ID_UNIQUE" }, { 0x8000, "STATX_SUBVOL" },
	{ 0x10000, "STATX_WRITE_ATOMIC" }, { 0x20000, "STATX_DIO_READ_ALIGN" }, XEND
};
static const struct xlat xl_statx_sync[] = {
	{ 0, "AT_STATX_SYNC_AS_STAT" }, { 0x2000, "AT_STATX_FORCE_SYNC" },
	{ 0x4000, "AT_STATX_DONT_SYNC" }, XEND
};

enum {
	K_F_DUPFD = 0, K_F_GETFD, K_F_SETFD, K_F_GETFL, K_F_SETFL, K_F_GETLK, K_F_SETLK,
	K_F_SETLKW, K_F_SETOWN, K_F_GETOWN, K_F_SETSIG, K_F_GETSIG,
	K_F_SETLEASE = 1024, K_F_GETLEASE, K_F_NOTIFY, K_F_DUPFD_QUERY, K_F_CREATED_QUERY,
	K_F_CANCELLK, K_F_DUPFD_CLOEXEC, K_F_SETPIPE_SZ, K_F_GETPIPE_SZ, K_F_ADD_SEALS,
	K_F_GET_SEALS,
};
static const struct xlat xl_fcntl_cmd[] = {
	{ 0, "F_DUPFD" }, { 1, "F_GETFD" }, { 2, "F_SETFD" }, { 3, "F_GETFL" }, { 4, "F_SETFL" },
	{ 5, "F_GETLK" }, { 6, "F_SETLK" }, { 7, "F_SETLKW" }, { 8, "F_SETOWN" }, { 9, "F_GETOWN" },
	{ 10, "F_SETSIG" }, { 11, "F_GETSIG" }, { 15, "F_SETOWN_EX" }, { 16, "F_GETOWN_EX" },
	{ 17, "F_GETOWNER_UIDS" }, { 36, "F_OFD_GETLK" }, { 37, "F_OFD_SETLK" },
	{ 38, "F_OFD_SETLKW" }, { 1024, "F_SETLEASE" }, { 1025, "F_GETLEASE" },
	{ 1026, "F_NOTIFY" }, { 1027, "F_DUPFD_QUERY" }, { 1028, "F_CREATED_QUERY" },
	{ 1029, "F_CANCELLK" }, { 1030, "F_DUPFD_CLOEXEC" }, { 1031, "F_SETPIPE_SZ" },
	{ 1032, "F_GETPIPE_SZ" }, { 1033, "F_ADD_SEALS" }, { 1034, "F_GET_SEALS" },
	{ 1035, "F_GET_RW_HINT" }, { 1036, "F_SET_RW_HINT" }, { 1037, "F_GET_FILE_RW_HINT" },
	{ 1038, "F_SET_FILE_RW_HINT" }, XEND
};
const struct xlat xl_fd_flags[] = { { 1, "FD_CLOEXEC" }, XEND };
static const struct xlat xl_seals[] = {
	{ 1, "F_SEAL_SEAL" }, { 2, "F_SEAL_SHRINK" }, { 4, "F_SEAL_GROW" }, { 8, "F_SEAL_WRITE" },
	{ 0x10, "F_SEAL_FUTURE_WRITE" }, { 0x20, "F_SEAL_EXEC" }, XEND
};
static const struct xlat xl_lease[] = {
	{ 0, "F_RDLCK" }, { 1, "F_WRLCK" }, { 2, "F_UNLCK" }, XEND
};
static const struct xlat xl_dnotify[] = {
	{ 1, "DN_ACCESS" }, { 2, "DN_MODIFY" }, { 4, "DN_CREATE" }, { 8, "DN_DELETE" },
	{ 0x10, "DN_RENAME" }, { 0x20, "DN_ATTRIB" }, { 0x80000000, "DN_MULTISHOT" }, XEND
};
/* The requests met most often; the others are shown in hex. */
static const struct xlat xl_ioctl[] = {
	/* strace names the OSS sequencer requests sharing these numbers too */
	{ 0x5401, "TCGETS" }, { 0x5402, "SNDCTL_TMR_START or TCSETS" },
	{ 0x5403, "SNDCTL_TMR_STOP or TCSETSW" }, { 0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF" },
	{ 0x5409, "TCSBRK" }, { 0x540a, "TCXONC" }, { 0x540b, "TCFLSH" }, { 0x540c, "TIOCEXCL" },
	{ 0x540d, "TIOCNXCL" }, { 0x540e, "TIOCSCTTY" }, { 0x540f, "TIOCGPGRP" },
	{ 0x5410, "TIOCSPGRP" }, { 0x5411, "TIOCOUTQ" }, { 0x5412, "TIOCSTI" },
	{ 0x5413, "TIOCGWINSZ" }, { 0x5414, "TIOCSWINSZ" }, { 0x5415, "TIOCMGET" },
	{ 0x541b, "FIONREAD" }, { 0x5421, "FIONBIO" }, { 0x5422, "TIOCNOTTY" },
	{ 0x5429, "TIOCGSID" }, { 0x5450, "FIONCLEX" }, { 0x5451, "FIOCLEX" },
	{ 0x5452, "FIOASYNC" }, { 0x80045430, "TIOCGPTN" }, { 0x40045431, "TIOCSPTLCK" },
	{ 0x8910, "SIOCGIFNAME" }, { 0x8912, "SIOCGIFCONF" }, { 0x8913, "SIOCGIFFLAGS" },
	{ 0x8927, "SIOCGIFHWADDR" }, { 0x8933, "SIOCGIFINDEX" }, { 0x80086601, "FS_IOC_GETFLAGS" },
	{ 0x40086602, "FS_IOC_SETFLAGS" }, { 0x40049409, "BTRFS_IOC_CLONE or FICLONE" },
	{ 0x80081272, "BLKGETSIZE64" }, { 0x2400, "PERF_EVENT_IOC_ENABLE" },
	{ 0x2401, "PERF_EVENT_IOC_DISABLE" }, { 0x2403, "PERF_EVENT_IOC_RESET" }, XEND
};
static const struct xlat xl_lock[] = {
	{ 1, "LOCK_SH" }, { 2, "LOCK_EX" }, { 4, "LOCK_NB" }, { 8, "LOCK_UN" }, { 32, "LOCK_MAND" },
	{ 64, "LOCK_READ" }, { 128, "LOCK_WRITE" }, XEND
};
static const struct xlat xl_mfd[] = {
	{ 1, "MFD_CLOEXEC" }, { 2, "MFD_ALLOW_SEALING" }, { 4, "MFD_HUGETLB" },
	{ 8, "MFD_NOEXEC_SEAL" }, { 0x10, "MFD_EXEC" }, XEND
};
static const struct xlat xl_efd[] = {
	{ 1, "EFD_SEMAPHORE" }, { 02000000, "EFD_CLOEXEC" }, { 04000, "EFD_NONBLOCK" }, XEND
};
static const struct xlat xl_epoll_flags[] = { { 02000000, "EPOLL_CLOEXEC" }, XEND };
static const struct xlat xl_epoll_ctl[] = {
	{ 1, "EPOLL_CTL_ADD" }, { 2, "EPOLL_CTL_DEL" }, { 3, "EPOLL_CTL_MOD" }, XEND
};
const struct xlat xl_pollev[] = {
	{ 0x1, "POLLIN" }, { 0x2, "POLLPRI" }, { 0x4, "POLLOUT" }, { 0x8, "POLLERR" },
	{ 0x10, "POLLHUP" }, { 0x20, "POLLNVAL" }, { 0x40, "POLLRDNORM" }, { 0x80, "POLLRDBAND" },
	{ 0x100, "POLLWRNORM" }, { 0x200, "POLLWRBAND" }, { 0x400, "POLLMSG" },
	{ 0x1000, "POLLREMOVE" }, { 0x2000, "POLLRDHUP" }, XEND
};
static const struct xlat xl_in_flags[] = {
	{ 04000, "IN_NONBLOCK" }, { 02000000, "IN_CLOEXEC" }, XEND
};
static const struct xlat xl_in_mask[] = {
	{ 0x1, "IN_ACCESS" }, { 0x2, "IN_MODIFY" }, { 0x4, "IN_ATTRIB" }, { 0x8, "IN_CLOSE_WRITE" },
	{ 0x10, "IN_CLOSE_NOWRITE" }, { 0x20, "IN_OPEN" }, { 0x40, "IN_MOVED_FROM" },
	{ 0x80, "IN_MOVED_TO" }, { 0x100, "IN_CREATE" }, { 0x200, "IN_DELETE" },
	{ 0x400, "IN_DELETE_SELF" }, { 0x800, "IN_MOVE_SELF" }, { 0x2000, "IN_UNMOUNT" },
	{ 0x4000, "IN_Q_OVERFLOW" }, { 0x8000, "IN_IGNORED" }, { 0x1000000, "IN_ONLYDIR" },
	{ 0x2000000, "IN_DONT_FOLLOW" }, { 0x4000000, "IN_EXCL_UNLINK" },
	{ 0x10000000, "IN_MASK_CREATE" }, { 0x20000000, "IN_MASK_ADD" }, { 0x40000000, "IN_ISDIR" },
	{ 0x80000000, "IN_ONESHOT" }, XEND
};
static const struct xlat xl_splice[] = {
	{ 1, "SPLICE_F_MOVE" }, { 2, "SPLICE_F_NONBLOCK" }, { 4, "SPLICE_F_MORE" },
	{ 8, "SPLICE_F_GIFT" }, XEND
};
static const struct xlat xl_fadv[] = {
	{ 0, "POSIX_FADV_NORMAL" }, { 1, "POSIX_FADV_RANDOM" }, { 2, "POSIX_FADV_SEQUENTIAL" },
	{ 3, "POSIX_FADV_WILLNEED" }, { 4, "POSIX_FADV_DONTNEED" }, { 5, "POSIX_FADV_NOREUSE" },
	XEND
};
static const struct xlat xl_falloc[] = {
	{ 0x1, "FALLOC_FL_KEEP_SIZE" }, { 0x2, "FALLOC_FL_PUNCH_HOLE" },
	{ 0x4, "FALLOC_FL_NO_HIDE_STALE" }, { 0x8, "FALLOC_FL_COLLAPSE_RANGE" },
	{ 0x10, "FALLOC_FL_ZERO_RANGE" }, { 0x20, "FALLOC_FL_INSERT_RANGE" },
	{ 0x40, "FALLOC_FL_UNSHARE_RANGE" }, XEND
};
static const struct xlat xl_close_range[] = {
	{ 2, "CLOSE_RANGE_UNSHARE" }, { 4, "CLOSE_RANGE_CLOEXEC" }, XEND
};
static const struct xlat xl_xattr[] = { { 1, "XATTR_CREATE" }, { 2, "XATTR_REPLACE" }, XEND };
static const struct xlat xl_rwf[] = {
	{ 0x1, "RWF_HIPRI" }, { 0x2, "RWF_DSYNC" }, { 0x4, "RWF_SYNC" }, { 0x8, "RWF_NOWAIT" },
	{ 0x10, "RWF_APPEND" }, { 0x20, "RWF_NOAPPEND" }, { 0x40, "RWF_ATOMIC" },
	{ 0x80, "RWF_DONTCACHE" }, XEND
};

static const struct xlat xl_prot[] = {
	{ 0, "PROT_NONE" }, { 0x1, "PROT_READ" }, { 0x2, "PROT_WRITE" }, { 0x4, "PROT_EXEC" },
	{ 0x8, "PROT_SEM" }, { 0x01000000, "PROT_GROWSDOWN" }, { 0x02000000, "PROT_GROWSUP" }, XEND
};
static const struct xlat xl_map_type[] = {
	{ 1, "MAP_SHARED" }, { 2, "MAP_PRIVATE" }, { 3, "MAP_SHARED_VALIDATE" }, XEND
};
static const struct xlat xl_map_flags[] = {
	{ 0x8, "MAP_DROPPABLE" }, { 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" },
	{ 0x40, "MAP_32BIT" }, { 0x80, "MAP_ABOVE4G" }, { 0x4000, "MAP_NORESERVE" },
	{ 0x8000, "MAP_POPULATE" }, { 0x10000, "MAP_NONBLOCK" }, { 0x100, "MAP_GROWSDOWN" },
	{ 0x800, "MAP_DENYWRITE" }, { 0x1000, "MAP_EXECUTABLE" }, { 0x2000, "MAP_LOCKED" },
	{ 0x20000, "MAP_STACK" }, { 0x40000, "MAP_HUGETLB" }, { 0x80000, "MAP_SYNC" },
	{ 0x100000, "MAP_FIXED_NOREPLACE" }, XEND
};
#define MAP_HUGE_BITS (0x3fULL << 26)
static const struct xlat xl_madv[] = {
	{ 0, "MADV_NORMAL" }, { 1, "MADV_RANDOM" }, { 2, "MADV_SEQUENTIAL" },
	{ 3, "MADV_WILLNEED" }, { 4, "MADV_DONTNEED" }, { 8, "MADV_FREE" }, { 9, "MADV_REMOVE" },
	{ 10, "MADV_DONTFORK" }, { 11, "MADV_DOFORK" }, { 12, "MADV_MERGEABLE" },
	{ 13, "MADV_UNMERGEABLE" }, { 14, "MADV_HUGEPAGE" }, { 15, "MADV_NOHUGEPAGE" },
	{ 16, "MADV_DONTDUMP" }, { 17, "MADV_DODUMP" }, { 18, "MADV_WIPEONFORK" },
	{ 19, "MADV_KEEPONFORK" }, { 20, "MADV_COLD" }, { 21, "MADV_PAGEOUT" },
	{ 22, "MADV_POPULATE_READ" }, { 23, "MADV_POPULATE_WRITE" },
	{ 24, "MADV_DONTNEED_LOCKED" }, { 25, "MADV_COLLAPSE" }, { 100, "MADV_HWPOISON" },
	{ 101, "MADV_SOFT_OFFLINE" }, { 102, "MADV_GUARD_INSTALL" }, { 103, "MADV_GUARD_REMOVE" },
	XEND
};
static const struct xlat xl_mremap[] = {
	{ 1, "MREMAP_MAYMOVE" }, { 2, "MREMAP_FIXED" }, { 4, "MREMAP_DONTUNMAP" }, XEND
};
static const struct xlat xl_msync[] = {
	{ 1, "MS_ASYNC" }, { 2, "MS_INVALIDATE" }, { 4, "MS_SYNC" }, XEND
};
static const struct xlat xl_mlock[] = { { 1, "MLOCK_ONFAULT" }, XEND };
static const struct xlat xl_mcl[] = {
	{ 1, "MCL_CURRENT" }, { 2, "MCL_FUTURE" }, { 4, "MCL_ONFAULT" }, XEND
};
static const struct xlat xl_shm[] = {
	{ 010000, "SHM_RDONLY" }, { 020000, "SHM_RND" }, { 040000, "SHM_REMAP" },
	{ 0100000, "SHM_EXEC" }, XEND
};

const struct xlat xl_clone_flags[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" },
	{ 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
	{ 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
	{ 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
	{ 0x800000, "CLONE_UNTRACED" }, { 0x1000000, "CLONE_CHILD_SETTID" },
	{ 0x2000000, "CLONE_NEWCGROUP" }, { 0x4000000, "CLONE_NEWUTS" },
	{ 0x8000000, "CLONE_NEWIPC" }, { 0x10000000, "CLONE_NEWUSER" },
	{ 0x20000000, "CLONE_NEWPID" }, { 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" },
	{ 0x100000000ULL, "CLONE_CLEAR_SIGHAND" }, { 0x200000000ULL, "CLONE_INTO_CGROUP" },
	XEND
};
/* unshare(2), setns(2): CLONE_NEWTIME shares its bit with CSIGNAL */
static const struct xlat xl_ns_flags[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x10000, "CLONE_THREAD" }, { 0x20000, "CLONE_NEWNS" },
	{ 0x40000, "CLONE_SYSVSEM" }, { 0x2000000, "CLONE_NEWCGROUP" },
	{ 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" }, { 0x80, "CLONE_NEWTIME" }, XEND
};
static const struct xlat xl_wait_opts[] = {
	{ 1, "WNOHANG" }, { 2, "WUNTRACED" }, { 4, "WEXITED" }, { 8, "WCONTINUED" },
	{ 0x1000000, "WNOWAIT" }, { 0x20000000, "__WNOTHREAD" }, { 0x40000000, "__WALL" },
	{ 0x80000000, "__WCLONE" }, XEND
};
static const struct xlat xl_idtype[] = {
	{ 0, "P_ALL" }, { 1, "P_PID" }, { 2, "P_PGID" }, { 3, "P_PIDFD" }, XEND
};

enum {
	K_PR_SET_PDEATHSIG = 1, K_PR_GET_PDEATHSIG, K_PR_GET_DUMPABLE, K_PR_SET_DUMPABLE,
	K_PR_GET_KEEPCAPS = 7, K_PR_SET_KEEPCAPS, K_PR_GET_TIMING = 13, K_PR_SET_NAME = 15,
	K_PR_GET_NAME, K_PR_GET_SECCOMP = 21, K_PR_CAPBSET_READ = 23, K_PR_CAPBSET_DROP,
	K_PR_GET_SECUREBITS = 27, K_PR_SET_TIMERSLACK = 29, K_PR_GET_TIMERSLACK,
	K_PR_TASK_PERF_EVENTS_DISABLE, K_PR_TASK_PERF_EVENTS_ENABLE, K_PR_MCE_KILL_GET = 34,
	K_PR_SET_CHILD_SUBREAPER = 36, K_PR_GET_CHILD_SUBREAPER, K_PR_SET_NO_NEW_PRIVS,
	K_PR_GET_NO_NEW_PRIVS, K_PR_GET_TID_ADDRESS, K_PR_SET_THP_DISABLE, K_PR_GET_THP_DISABLE,
	K_PR_GET_FP_MODE = 46, K_PR_GET_TAGGED_ADDR_CTRL = 56, K_PR_GET_IO_FLUSHER = 58,
	K_PR_MCE_KILL = 33, K_PR_SET_MM = 35, K_PR_CAP_AMBIENT = 47, K_PR_SET_VMA = 0x53564d41,
	K_PR_SET_PTRACER = 0x59616d61,
};
static const struct xlat xl_dumpable[] = {
	{ 0, "SUID_DUMP_DISABLE" }, { 1, "SUID_DUMP_USER" }, { 2, "SUID_DUMP_ROOT" }, XEND
};
static const struct xlat xl_mce_kill[] = {
	{ 0, "PR_MCE_KILL_CLEAR" }, { 1, "PR_MCE_KILL_SET" }, XEND
};
static const struct xlat xl_mce_kill_policy[] = {
	{ 0, "PR_MCE_KILL_LATE" }, { 1, "PR_MCE_KILL_EARLY" }, { 2, "PR_MCE_KILL_DEFAULT" }, XEND
};
static const struct xlat xl_cap_ambient[] = {
	{ 1, "PR_CAP_AMBIENT_IS_SET" }, { 2, "PR_CAP_AMBIENT_RAISE" },
	{ 3, "PR_CAP_AMBIENT_LOWER" }, { 4, "PR_CAP_AMBIENT_CLEAR_ALL" }, XEND
};
static const struct xlat xl_set_mm[] = {
	{ 1, "PR_SET_MM_START_CODE" }, { 2, "PR_SET_MM_END_CODE" }, { 3, "PR_SET_MM_START_DATA" },
	{ 4, "PR_SET_MM_END_DATA" }, { 5, "PR_SET_MM_START_STACK" }, { 6, "PR_SET_MM_START_BRK" },
	{ 7, "PR_SET_MM_BRK" }, { 8, "PR_SET_MM_ARG_START" }, { 9, "PR_SET_MM_ARG_END" },
	{ 10, "PR_SET_MM_ENV_START" }, { 11, "PR_SET_MM_ENV_END" }, { 12, "PR_SET_MM_AUXV" },
	{ 13, "PR_SET_MM_EXE_FILE" }, { 14, "PR_SET_MM_MAP" }, { 15, "PR_SET_MM_MAP_SIZE" }, XEND
};
static const char *const cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
	"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
	"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
	"CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};
static const struct xlat xl_prctl[] = {
	{ 1, "PR_SET_PDEATHSIG" }, { 2, "PR_GET_PDEATHSIG" }, { 3, "PR_GET_DUMPABLE" },
	{ 4, "PR_SET_DUMPABLE" }, { 5, "PR_GET_UNALIGN" }, { 6, "PR_SET_UNALIGN" },
	{ 7, "PR_GET_KEEPCAPS" }, { 8, "PR_SET_KEEPCAPS" }, { 9, "PR_GET_FPEMU" },
	{ 10, "PR_SET_FPEMU" }, { 11, "PR_GET_FPEXC" }, { 12, "PR_SET_FPEXC" },
	{ 13, "PR_GET_TIMING" }, { 14, "PR_SET_TIMING" }, { 15, "PR_SET_NAME" },
	{ 16, "PR_GET_NAME" }, { 19, "PR_GET_ENDIAN" }, { 20, "PR_SET_ENDIAN" },
	{ 21, "PR_GET_SECCOMP" }, { 22, "PR_SET_SECCOMP" }, { 23, "PR_CAPBSET_READ" },
	{ 24, "PR_CAPBSET_DROP" }, { 25, "PR_GET_TSC" }, { 26, "PR_SET_TSC" },
	{ 27, "PR_GET_SECUREBITS" }, { 28, "PR_SET_SECUREBITS" }, { 29, "PR_SET_TIMERSLACK" },
	{ 30, "PR_GET_TIMERSLACK" }, { 31, "PR_TASK_PERF_EVENTS_DISABLE" },
	{ 32, "PR_TASK_PERF_EVENTS_ENABLE" }, { 33, "PR_MCE_KILL" }, { 34, "PR_MCE_KILL_GET" },
	{ 35, "PR_SET_MM" }, { 36, "PR_SET_CHILD_SUBREAPER" }, { 37, "PR_GET_CHILD_SUBREAPER" },
	{ 38, "PR_SET_NO_NEW_PRIVS" }, { 39, "PR_GET_NO_NEW_PRIVS" }, { 40, "PR_GET_TID_ADDRESS" },
	{ 41, "PR_SET_THP_DISABLE" }, { 42, "PR_GET_THP_DISABLE" }, { 45, "PR_SET_FP_MODE" },
	{ 46, "PR_GET_FP_MODE" }, { 47, "PR_CAP_AMBIENT" }, { 52, "PR_GET_SPECULATION_CTRL" },
	{ 53, "PR_SET_SPECULATION_CTRL" }, { 55, "PR_SET_TAGGED_ADDR_CTRL" },
	{ 56, "PR_GET_TAGGED_ADDR_CTRL" }, { 57, "PR_SET_IO_FLUSHER" }, { 58, "PR_GET_IO_FLUSHER" },
	{ 59, "PR_SET_SYSCALL_USER_DISPATCH" }, { 62, "PR_SCHED_CORE" },
	{ 0x53564d41, "PR_SET_VMA" }, { 0x59616d61, "PR_SET_PTRACER" }, XEND
};
#define K_ARCH_GET_FS 0x1003
#define K_ARCH_GET_GS 0x1004
static const struct xlat xl_arch_prctl[] = {
	{ 0x1001, "ARCH_SET_GS" }, { 0x1002, "ARCH_SET_FS" }, { 0x1003, "ARCH_GET_FS" },
	{ 0x1004, "ARCH_GET_GS" }, { 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" },
	{ 0x1021, "ARCH_GET_XCOMP_SUPP" }, { 0x1022, "ARCH_GET_XCOMP_PERM" },
	{ 0x1023, "ARCH_REQ_XCOMP_PERM" }, { 0x1024, "ARCH_GET_XCOMP_GUEST_PERM" },
	{ 0x1025, "ARCH_REQ_XCOMP_GUEST_PERM" }, { 0x2001, "ARCH_MAP_VDSO_X32" },
	{ 0x2002, "ARCH_MAP_VDSO_32" }, { 0x2003, "ARCH_MAP_VDSO_64" },
	{ 0x4001, "ARCH_GET_UNTAG_MASK" }, { 0x4002, "ARCH_ENABLE_TAGGED_ADDR" },
	{ 0x4003, "ARCH_GET_MAX_TAG_BITS" }, { 0x4004, "ARCH_FORCE_TAGGED_SVA" },
	{ 0x5001, "ARCH_SHSTK_ENABLE" }, { 0x5002, "ARCH_SHSTK_DISABLE" },
	{ 0x5003, "ARCH_SHSTK_LOCK" }, { 0x5004, "ARCH_SHSTK_UNLOCK" },
	{ 0x5005, "ARCH_SHSTK_STATUS" }, XEND
};
static const struct xlat xl_rlimit[] = {
	{ 0, "RLIMIT_CPU" }, { 1, "RLIMIT_FSIZE" }, { 2, "RLIMIT_DATA" }, { 3, "RLIMIT_STACK" },
	{ 4, "RLIMIT_CORE" }, { 5, "RLIMIT_RSS" }, { 6, "RLIMIT_NPROC" }, { 7, "RLIMIT_NOFILE" },
	{ 8, "RLIMIT_MEMLOCK" }, { 9, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" },
	{ 11, "RLIMIT_SIGPENDING" }, { 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" },
	{ 14, "RLIMIT_RTPRIO" }, { 15, "RLIMIT_RTTIME" }, XEND
};
static const struct xlat xl_rusage_who[] = {
	{ 0, "RUSAGE_SELF" }, { (__u64)-1LL, "RUSAGE_CHILDREN" }, { 1, "RUSAGE_THREAD" }, XEND
};
static const struct xlat xl_grnd[] = {
	{ 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" }, XEND
};
static const struct xlat xl_rseq[] = { { 1, "RSEQ_FLAG_UNREGISTER" }, XEND };

static const char *const futex_cmds[] = {
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
	"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
	"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
	"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
};
/* futex arguments 2..5 (val, timeout, uaddr2, val3) by command: 'v' a
 * count, 't' the timeout, 'n' val2 (a count in the timeout's place), 'p'
 * uaddr2, 'b' a bitset, 'o' FUTEX_WAKE_OP's operation, 'x' hex, '-' not
 * shown. */
static const char *const futex_shapes[] = {
	"vt--", "v---", "v---", "vnp-", "vnpv", "vnpo", "-t--", "----", "----", "vt-b", "v--b",
	"vtp-", "vnpv", "-t--",
};
#define FUTEX_PRIVATE 128
#define FUTEX_CLOCK_RT 256

static const struct xlat xl_clockid[] = {
	{ 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" }, { 2, "CLOCK_PROCESS_CPUTIME_ID" },
	{ 3, "CLOCK_THREAD_CPUTIME_ID" }, { 4, "CLOCK_MONOTONIC_RAW" },
	{ 5, "CLOCK_REALTIME_COARSE" }, { 6, "CLOCK_MONOTONIC_COARSE" }, { 7, "CLOCK_BOOTTIME" },
	{ 8, "CLOCK_REALTIME_ALARM" }, { 9, "CLOCK_BOOTTIME_ALARM" }, { 11, "CLOCK_TAI" }, XEND
};
static const struct xlat xl_timer_flags[] = { { 1, "TIMER_ABSTIME" }, XEND };
static const struct xlat xl_tfd[] = {
	{ 02000000, "TFD_CLOEXEC" }, { 04000, "TFD_NONBLOCK" }, XEND
};
static const struct xlat xl_tfd_timer[] = {
	{ 1, "TFD_TIMER_ABSTIME" }, { 2, "TFD_TIMER_CANCEL_ON_SET" }, XEND
};
static const struct xlat xl_itimer[] = {
	{ 0, "ITIMER_REAL" }, { 1, "ITIMER_VIRTUAL" }, { 2, "ITIMER_PROF" }, XEND
};

static const struct xlat xl_sighow[] = {
	{ 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" }, XEND
};
static const struct xlat xl_sfd[] = {
	{ 04000, "SFD_NONBLOCK" }, { 02000000, "SFD_CLOEXEC" }, XEND
};
static const char *const signames[] = {
	NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN",
	"TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};

const struct xlat xl_family[] = {
	{ 0, "AF_UNSPEC" }, { 1, "AF_UNIX" }, { 2, "AF_INET" }, { 3, "AF_AX25" }, { 4, "AF_IPX" },
	{ 5, "AF_APPLETALK" }, { 6, "AF_NETROM" }, { 7, "AF_BRIDGE" }, { 8, "AF_ATMPVC" },
	{ 9, "AF_X25" }, { 10, "AF_INET6" }, { 11, "AF_ROSE" }, { 12, "AF_DECnet" },
	{ 13, "AF_NETBEUI" }, { 14, "AF_SECURITY" }, { 15, "AF_KEY" }, { 16, "AF_NETLINK" },
	{ 17, "AF_PACKET" }, { 18, "AF_ASH" }, { 19, "AF_ECONET" }, { 20, "AF_ATMSVC" },
	{ 21, "AF_RDS" }, { 22, "AF_SNA" }, { 23, "AF_IRDA" }, { 24, "AF_PPPOX" },
	{ 25, "AF_WANPIPE" }, { 26, "AF_LLC" }, { 27, "AF_IB" }, { 28, "AF_MPLS" },
	{ 29, "AF_CAN" }, { 30, "AF_TIPC" }, { 31, "AF_BLUETOOTH" }, { 32, "AF_IUCV" },
	{ 33, "AF_RXRPC" }, { 34, "AF_ISDN" }, { 35, "AF_PHONET" }, { 36, "AF_IEEE802154" },
	{ 37, "AF_CAIF" }, { 38, "AF_ALG" }, { 39, "AF_NFC" }, { 40, "AF_VSOCK" },
	{ 41, "AF_KCM" }, { 42, "AF_QIPCRTR" }, { 43, "AF_SMC" }, { 44, "AF_XDP" },
	{ 45, "AF_MCTP" }, XEND
};
static const struct xlat xl_sock_type[] = {
	{ 1, "SOCK_STREAM" }, { 2, "SOCK_DGRAM" }, { 3, "SOCK_RAW" }, { 4, "SOCK_RDM" },
	{ 5, "SOCK_SEQPACKET" }, { 6, "SOCK_DCCP" }, { 10, "SOCK_PACKET" }, XEND
};
static const struct xlat xl_sock_flags[] = {
	{ 02000000, "SOCK_CLOEXEC" }, { 04000, "SOCK_NONBLOCK" }, XEND
};
static const struct xlat xl_ipproto[] = {
	{ 0, "IPPROTO_IP" }, { 1, "IPPROTO_ICMP" }, { 2, "IPPROTO_IGMP" }, { 4, "IPPROTO_IPIP" },
	{ 6, "IPPROTO_TCP" }, { 8, "IPPROTO_EGP" }, { 12, "IPPROTO_PUP" }, { 17, "IPPROTO_UDP" },
	{ 22, "IPPROTO_IDP" }, { 29, "IPPROTO_TP" }, { 33, "IPPROTO_DCCP" },
	{ 41, "IPPROTO_IPV6" }, { 46, "IPPROTO_RSVP" }, { 47, "IPPROTO_GRE" },
	{ 50, "IPPROTO_ESP" }, { 51, "IPPROTO_AH" }, { 58, "IPPROTO_ICMPV6" },
	{ 92, "IPPROTO_MTP" }, { 94, "IPPROTO_BEETPH" }, { 98, "IPPROTO_ENCAP" },
	{ 103, "IPPROTO_PIM" }, { 108, "IPPROTO_COMP" }, { 115, "IPPROTO_L2TP" },
	{ 132, "IPPROTO_SCTP" }, { 136, "IPPROTO_UDPLITE" }, { 137, "IPPROTO_MPLS" },
	{ 143, "IPPROTO_ETHERNET" }, { 255, "IPPROTO_RAW" }, { 262, "IPPROTO_MPTCP" }, XEND
};
static const struct xlat xl_netlink_proto[] = {
	{ 0, "NETLINK_ROUTE" }, { 1, "NETLINK_UNUSED" }, { 2, "NETLINK_USERSOCK" },
	{ 3, "NETLINK_FIREWALL" }, { 4, "NETLINK_SOCK_DIAG" }, { 5, "NETLINK_NFLOG" },
	{ 6, "NETLINK_XFRM" }, { 7, "NETLINK_SELINUX" }, { 8, "NETLINK_ISCSI" },
	{ 9, "NETLINK_AUDIT" }, { 10, "NETLINK_FIB_LOOKUP" }, { 11, "NETLINK_CONNECTOR" },
	{ 12, "NETLINK_NETFILTER" }, { 13, "NETLINK_IP6_FW" }, { 14, "NETLINK_DNRTMSG" },
	{ 15, "NETLINK_KOBJECT_UEVENT" }, { 16, "NETLINK_GENERIC" },
	{ 18, "NETLINK_SCSITRANSPORT" }, { 19, "NETLINK_ECRYPTFS" }, { 20, "NETLINK_RDMA" },
	{ 21, "NETLINK_CRYPTO" }, { 22, "NETLINK_SMC" }, XEND
};
const struct xlat xl_msg_flags[] = {
	{ 0x1, "MSG_OOB" }, { 0x2, "MSG_PEEK" }, { 0x4, "MSG_DONTROUTE" }, { 0x8, "MSG_CTRUNC" },
	{ 0x10, "MSG_PROBE" }, { 0x20, "MSG_TRUNC" }, { 0x40, "MSG_DONTWAIT" },
	{ 0x80, "MSG_EOR" }, { 0x100, "MSG_WAITALL" }, { 0x200, "MSG_FIN" }, { 0x400, "MSG_SYN" },
	{ 0x800, "MSG_CONFIRM" }, { 0x1000, "MSG_RST" }, { 0x2000, "MSG_ERRQUEUE" },
	{ 0x4000, "MSG_NOSIGNAL" }, { 0x8000, "MSG_MORE" }, { 0x10000, "MSG_WAITFORONE" },
	{ 0x40000, "MSG_BATCH" }, { 0x2000000, "MSG_SOCK_DEVMEM" }, { 0x4000000, "MSG_ZEROCOPY" },
	{ 0x20000000, "MSG_FASTOPEN" }, { 0x40000000, "MSG_CMSG_CLOEXEC" }, XEND
};
static const struct xlat xl_shut[] = {
	{ 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" }, XEND
};
enum { K_SOL_IP = 0, K_SOL_SOCKET = 1, K_SOL_TCP = 6, K_SOL_IPV6 = 41 };
const struct xlat xl_sol[] = {
	{ 0, "SOL_IP" }, { 1, "SOL_SOCKET" }, { 6, "SOL_TCP" }, { 17, "SOL_UDP" },
	{ 41, "SOL_IPV6" }, { 58, "SOL_ICMPV6" }, { 132, "SOL_SCTP" }, { 136, "SOL_UDPLITE" },
	{ 255, "SOL_RAW" }, { 263, "SOL_PACKET" }, { 270, "SOL_NETLINK" }, { 279, "SOL_ALG" },
	{ 282, "SOL_TLS" }, { 283, "SOL_XDP" }, { 284, "SOL_MPTCP" }, XEND
};
static const struct xlat xl_so[] = {
	{ 1, "SO_DEBUG" }, { 2, "SO_REUSEADDR" }, { 3, "SO_TYPE" }, { 4, "SO_ERROR" },
	{ 5, "SO_DONTROUTE" }, { 6, "SO_BROADCAST" }, { 7, "SO_SNDBUF" }, { 8, "SO_RCVBUF" },
	{ 9, "SO_KEEPALIVE" }, { 10, "SO_OOBINLINE" }, { 11, "SO_NO_CHECK" },
	{ 12, "SO_PRIORITY" }, { 13, "SO_LINGER" }, { 14, "SO_BSDCOMPAT" }, { 15, "SO_REUSEPORT" },
	{ 16, "SO_PASSCRED" }, { 17, "SO_PEERCRED" }, { 18, "SO_RCVLOWAT" }, { 19, "SO_SNDLOWAT" },
	{ 20, "SO_RCVTIMEO_OLD" }, { 21, "SO_SNDTIMEO_OLD" }, { 25, "SO_BINDTODEVICE" },
	{ 26, "SO_ATTACH_FILTER" }, { 27, "SO_DETACH_FILTER" }, { 28, "SO_PEERNAME" },
	{ 29, "SO_TIMESTAMP_OLD" }, { 30, "SO_ACCEPTCONN" }, { 31, "SO_PEERSEC" },
	{ 32, "SO_SNDBUFFORCE" }, { 33, "SO_RCVBUFFORCE" }, { 34, "SO_PASSSEC" },
	{ 36, "SO_MARK" }, { 38, "SO_PROTOCOL" }, { 39, "SO_DOMAIN" }, { 40, "SO_RXQ_OVFL" },
	{ 46, "SO_BUSY_POLL" }, { 49, "SO_INCOMING_CPU" }, { 50, "SO_ATTACH_BPF" },
	{ 60, "SO_ZEROCOPY" }, { 66, "SO_RCVTIMEO_NEW" }, { 67, "SO_SNDTIMEO_NEW" }, XEND
};
static const struct xlat xl_tcpopt[] = {
	{ 1, "TCP_NODELAY" }, { 2, "TCP_MAXSEG" }, { 3, "TCP_CORK" }, { 4, "TCP_KEEPIDLE" },
	{ 5, "TCP_KEEPINTVL" }, { 6, "TCP_KEEPCNT" }, { 7, "TCP_SYNCNT" }, { 8, "TCP_LINGER2" },
	{ 9, "TCP_DEFER_ACCEPT" }, { 10, "TCP_WINDOW_CLAMP" }, { 11, "TCP_INFO" },
	{ 12, "TCP_QUICKACK" }, { 13, "TCP_CONGESTION" }, { 18, "TCP_USER_TIMEOUT" },
	{ 23, "TCP_FASTOPEN" }, { 25, "TCP_NOTSENT_LOWAT" }, XEND
};
static const struct xlat xl_ipopt[] = {
	{ 1, "IP_TOS" }, { 2, "IP_TTL" }, { 3, "IP_HDRINCL" }, { 4, "IP_OPTIONS" },
	{ 8, "IP_PKTINFO" }, { 10, "IP_MTU_DISCOVER" }, { 11, "IP_RECVERR" },
	{ 15, "IP_FREEBIND" }, { 19, "IP_TRANSPARENT" }, { 24, "IP_BIND_ADDRESS_NO_PORT" },
	{ 32, "IP_MULTICAST_IF" }, { 33, "IP_MULTICAST_TTL" }, { 34, "IP_MULTICAST_LOOP" },
	{ 35, "IP_ADD_MEMBERSHIP" }, { 36, "IP_DROP_MEMBERSHIP" }, XEND
};
static const struct xlat xl_ipv6opt[] = {
	{ 16, "IPV6_UNICAST_HOPS" }, { 17, "IPV6_MULTICAST_IF" }, { 18, "IPV6_MULTICAST_HOPS" },
	{ 19, "IPV6_MULTICAST_LOOP" }, { 23, "IPV6_MTU_DISCOVER" }, { 25, "IPV6_RECVERR" },
	{ 26, "IPV6_V6ONLY" }, { 49, "IPV6_RECVPKTINFO" }, { 67, "IPV6_TCLASS" }, XEND
};

/* ---- numbers ---------------------------------------------------------- */

static bool show_raw(struct dctx *c, int arg, const struct argkind *k)
{
	dbuf_printf(c->b, "%#llx", (unsigned long long)dctx_arg(c, arg));
	return true;
}

/* struct termios's flags, in strace's order */
static const struct xlat xl_tc_iflag[] = {
	{ 01, "IGNBRK" }, { 02, "BRKINT" }, { 04, "IGNPAR" }, { 010, "PARMRK" }, { 020, "INPCK" },
	{ 040, "ISTRIP" }, { 0100, "INLCR" }, { 0200, "IGNCR" }, { 0400, "ICRNL" },
	{ 01000, "IUCLC" }, { 02000, "IXON" }, { 04000, "IXANY" }, { 010000, "IXOFF" },
	{ 020000, "IMAXBEL" }, { 040000, "IUTF8" }, XEND
};
static const struct xlat xl_tc_oflag[] = {
	{ 01, "OPOST" }, { 02, "OLCUC" }, { 04, "ONLCR" }, { 010, "OCRNL" }, { 020, "ONOCR" },
	{ 040, "ONLRET" }, { 0100, "OFILL" }, { 0200, "OFDEL" }, XEND
};
static const struct xlat xl_tc_cflag[] = {
	{ 0100, "CSTOPB" }, { 0200, "CREAD" }, { 0400, "PARENB" }, { 01000, "PARODD" },
	{ 02000, "HUPCL" }, { 04000, "CLOCAL" }, { 010000000000, "CMSPAR" },
	{ 020000000000, "CRTSCTS" }, XEND
};
static const struct xlat xl_tc_lflag[] = {
	{ 01, "ISIG" }, { 02, "ICANON" }, { 04, "XCASE" }, { 010, "ECHO" }, { 020, "ECHOE" },
	{ 040, "ECHOK" }, { 0100, "ECHONL" }, { 0200, "NOFLSH" }, { 0100000, "IEXTEN" },
	{ 01000, "ECHOCTL" }, { 02000, "ECHOPRT" }, { 04000, "ECHOKE" }, { 010000, "FLUSHO" },
	{ 040000, "PENDIN" }, { 0400, "TOSTOP" }, { 0200000, "EXTPROC" }, XEND
};
static const char *const tc_bauds[] = {
	"B0", "B50", "B75", "B110", "B134", "B150", "B200", "B300", "B600", "B1200", "B1800",
	"B2400", "B4800", "B9600", "B19200", "B38400", NULL, "B57600", "B115200", "B230400",
	"B460800", "B500000", "B576000", "B921600", "B1000000", "B1152000", "B1500000",
	"B2000000", "B2500000", "B3000000", "B3500000", "B4000000",
};
#define TC_CBAUD 010017
#define TC_CIBAUD (TC_CBAUD << 16)

/* Named bits joined by '|', leftovers in hex; nothing at all for 0 (as
 * strace writes termios flags). */
static void put_tc_flags(struct dbuf *b, const struct xlat *t, __u32 v)
{
	bool any = false;

	for (; t->name; t++) {
		if ((v & t->val) != t->val)
			continue;
		dbuf_printf(b, "%s%s", any ? "|" : "", t->name);
		any = true;
		v &= ~t->val;
	}
	if (v)
		dbuf_printf(b, "%s%#x", any ? "|" : "", v);
}

static void put_tc_baud(struct dbuf *b, __u32 baud)
{
	/* CBAUDEX (010000) selects the upper half of the table */
	__u32 i = (baud & 017) | (baud & 010000 ? 020 : 0);

	if (tc_bauds[i])
		dbuf_puts(b, tc_bauds[i]);
	else
		dbuf_printf(b, "%#x", baud);
}

/* struct termios (TCGETS, TCSETS...): its four flag words, the rest
 * elided as strace does without -v.  strace leaves an empty word empty
 * and a '|' after the fields when no flag follows. */
static void put_termios(struct dbuf *b, const unsigned char *p)
{
	static const char *const nl[] = { "NL0", "NL1" }, *const cr[] = { "CR0", "CR1", "CR2", "CR3" },
		*const tab[] = { "TAB0", "TAB1", "TAB2", "XTABS" }, *const bs[] = { "BS0", "BS1" },
		*const vt[] = { "VT0", "VT1" }, *const ff[] = { "FF0", "FF1" };
	__u32 iflag, oflag, cflag, lflag;

	memcpy(&iflag, p, 4);
	memcpy(&oflag, p + 4, 4);
	memcpy(&cflag, p + 8, 4);
	memcpy(&lflag, p + 12, 4);
	dbuf_puts(b, "{c_iflag=");
	put_tc_flags(b, xl_tc_iflag, iflag);
	dbuf_printf(b, ", c_oflag=%s|%s|%s|%s|%s|%s|", nl[(oflag >> 8) & 1], cr[(oflag >> 9) & 3],
		    tab[(oflag >> 11) & 3], bs[(oflag >> 13) & 1], vt[(oflag >> 14) & 1],
		    ff[(oflag >> 15) & 1]);
	put_tc_flags(b, xl_tc_oflag, oflag & ~0xff00u);
	dbuf_puts(b, ", c_cflag=");
	put_tc_baud(b, cflag & TC_CBAUD);
	dbuf_putc(b, '|');
	if (cflag & TC_CIBAUD) {
		put_tc_baud(b, (cflag & TC_CIBAUD) >> 16);
		dbuf_puts(b, "<<IBSHIFT|");
	}
	dbuf_printf(b, "CS%u|", 5 + ((cflag >> 4) & 3));
	put_tc_flags(b, xl_tc_cflag, cflag & ~(TC_CBAUD | TC_CIBAUD | 060));
	dbuf_puts(b, ", c_lflag=");
	put_tc_flags(b, xl_tc_lflag, lflag);
	dbuf_puts(b, ", ...}");
}

/* ioctl's argument: an fd for FICLONE; an int passed (FIONBIO) or
 * filled (FIONREAD); a terminal's struct termios or winsize, passed
 * (TCSETS*, TIOCSWINSZ: as read at entry) or filled (TCGETS,
 * TIOCGWINSZ); none for FIOCLEX; else a number or an address */
static bool show_ioctl_arg(struct dctx *c, int arg, const struct argkind *k)
{
	__u32 req = dctx_arg(c, arg - 1);
	__u64 v = dctx_arg(c, arg);
	const unsigned char *p;
	size_t min = req == 0x5413 || req == 0x5414 ? 8 : 16;

	if (req == 0x40049409) {
		dbuf_printf(c->b, "%d", (int)v);
		return true;
	}
	switch (req) {
	case 0x5450: case 0x5451:	/* FIONCLEX, FIOCLEX: no argument */
		return false;
	case 0x5421: case 0x5410: case 0x5452:	/* FIONBIO, TIOCSPGRP, FIOASYNC: an int passed */
		p = v ? dctx_data(c, arg, SC_CAP_STRUCT_IN, 0, 4, NULL, NULL) : NULL;
		break;
	case 0x541b: case 0x540f: case 0x5411: case 0x5429:	/* FIONREAD, TIOCGPGRP, TIOCOUTQ,
								 * TIOCGSID: an int filled */
		p = v && c->done && !c->failed ?
			dctx_data(c, arg, SC_CAP_STRUCT_OUT, 0, 4, NULL, NULL) : NULL;
		break;
	default:
		p = NULL;
		req = 0;
		break;
	}
	if (req) {
		if (p)
			dbuf_printf(c->b, "[%d]", *(const int *)p);
		else
			dbuf_ptr(c->b, v);
		return true;
	}
	req = dctx_arg(c, arg - 1);
	if ((req >= 0x5401 && req <= 0x5404) || req == 0x5413 || req == 0x5414) {
		if (req == 0x5401 || req == 0x5413)
			p = c->done && !c->failed ?
				dctx_data(c, arg, SC_CAP_STRUCT_OUT, 0, min, NULL, NULL) : NULL;
		else
			p = dctx_data(c, arg, SC_CAP_STRUCT_IN, 0, min, NULL, NULL);
		if (!p)
			dbuf_ptr(c->b, v);
		else if (req <= 0x5404)
			put_termios(c->b, p);
		else
			dbuf_printf(c->b, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}",
				    ((const __u16 *)p)[0], ((const __u16 *)p)[1],
				    ((const __u16 *)p)[2], ((const __u16 *)p)[3]);
		return true;
	}
	return show_raw(c, arg, k);
}

static bool show_hide(struct dctx *c, int arg, const struct argkind *k)
{
	return false;
}

static bool show_int(struct dctx *c, int arg, const struct argkind *k)
{
	dbuf_printf(c->b, "%d", (int)dctx_arg(c, arg));
	return true;
}

static bool show_uint(struct dctx *c, int arg, const struct argkind *k)
{
	dbuf_printf(c->b, "%u", (unsigned int)dctx_arg(c, arg));
	return true;
}

static bool show_long(struct dctx *c, int arg, const struct argkind *k)
{
	dbuf_printf(c->b, "%lld", (long long)dctx_arg(c, arg));
	return true;
}

static bool show_ulong(struct dctx *c, int arg, const struct argkind *k)
{
	dbuf_printf(c->b, "%llu", (unsigned long long)dctx_arg(c, arg));
	return true;
}

static bool show_ptr(struct dctx *c, int arg, const struct argkind *k)
{
	dbuf_ptr(c->b, dctx_arg(c, arg));
	return true;
}

/* A mode as a number: 0644, 000 */
void put_oct(struct dbuf *b, unsigned int mode)
{
	dbuf_printf(b, "%#03o", mode);
}

static bool show_oct(struct dctx *c, int arg, const struct argkind *k)
{
	put_oct(c->b, dctx_arg(c, arg));
	return true;
}

/* uid_t, gid_t: -1 is "unchanged" */
static bool show_uid(struct dctx *c, int arg, const struct argkind *k)
{
	unsigned int id = dctx_arg(c, arg);

	if (id == (unsigned int)-1)
		dbuf_puts(c->b, "-1");
	else
		dbuf_printf(c->b, "%u", id);
	return true;
}

static bool show_dirfd(struct dctx *c, int arg, const struct argkind *k)
{
	int fd = dctx_arg(c, arg);

	if (fd == -100)
		dbuf_puts(c->b, "AT_FDCWD");
	else
		dbuf_printf(c->b, "%d", fd);
	return true;
}

void put_signame(struct dbuf *b, __u64 sig, const char *prefix)
{
	if (sig && sig < K_SIGRTMIN)
		dbuf_printf(b, "%s%s", prefix, signames[sig]);
	else if (sig == K_SIGRTMIN)
		dbuf_printf(b, "%sRTMIN", prefix);
	else if (sig > K_SIGRTMIN && sig <= K_NSIG)
		dbuf_printf(b, "%sRT_%u", prefix, (unsigned int)(sig - K_SIGRTMIN));
	else
		dbuf_printf(b, "%d", (int)sig);
}

void show_signal(struct dbuf *b, __u64 sig)
{
	put_signame(b, sig, "SIG");
}

static bool show_sig(struct dctx *c, int arg, const struct argkind *k)
{
	show_signal(c->b, (unsigned int)dctx_arg(c, arg));
	return true;
}

/* ---- names ------------------------------------------------------------ */

static bool show_flags(struct dctx *c, int arg, const struct argkind *k)
{
	xlat_flags(c->b, k->tbl, (unsigned int)dctx_arg(c, arg));
	return true;
}

/* An int naming something: its name or the number */
static bool show_enum(struct dctx *c, int arg, const struct argkind *k)
{
	xlat_enum(c->b, k->tbl, (__u64)(__s64)(int)dctx_arg(c, arg), true);
	return true;
}

static bool show_uenum(struct dctx *c, int arg, const struct argkind *k)
{
	xlat_enum(c->b, k->tbl, (unsigned int)dctx_arg(c, arg), false);
	return true;
}

static bool show_hex_enum(struct dctx *c, int arg, const struct argkind *k)
{
	const char *name = xlat_name(k->tbl, (unsigned int)dctx_arg(c, arg));

	if (name)
		dbuf_puts(c->b, name);
	else
		dbuf_printf(c->b, "%#x", (unsigned int)dctx_arg(c, arg));
	return true;
}

/* ioctl's request: its name, else its fields as strace writes them */
static bool show_ioctl_req(struct dctx *c, int arg, const struct argkind *k)
{
	static const char *const dirs[] = {
		"_IOC_NONE", "_IOC_WRITE", "_IOC_READ", "_IOC_READ|_IOC_WRITE",
	};
	unsigned int req = dctx_arg(c, arg), size = (req >> 16) & 0x3fff;
	const char *name = xlat_name(k->tbl, req);

	if (name) {
		dbuf_puts(c->b, name);
		return true;
	}
	dbuf_printf(c->b, "_IOC(%s, %#x, %#x, %#x)", dirs[req >> 30], (req >> 8) & 0xff,
		    req & 0xff, size);
	return true;
}

static bool show_open_flags(struct dctx *c, int arg, const struct argkind *k)
{
	xlat_field_flags(c->b, xl_open_access, 3, xl_open_flags, (unsigned int)dctx_arg(c, arg));
	return true;
}

/* open, openat: the mode only matters when a file may be created */
static bool show_open_mode(struct dctx *c, int arg, const struct argkind *k)
{
	if (!(dctx_arg(c, arg - 1) & (K_O_CREAT | K_O_TMPFILE)))
		return false;
	put_oct(c->b, dctx_arg(c, arg));
	return true;
}

static bool show_statx_flags(struct dctx *c, int arg, const struct argkind *k)
{
	xlat_field_flags(c->b, xl_statx_sync, 0x6000, xl_at_flags, (unsigned int)dctx_arg(c, arg));
	return true;
}

static bool show_fcntl_arg(struct dctx *c, int arg, const struct argkind *k)
{
	__u64 v = dctx_arg(c, arg);

	switch ((int)dctx_arg(c, 1)) {
	case K_F_GETFD: case K_F_GETFL: case K_F_GETOWN: case K_F_GETSIG: case K_F_GETLEASE:
	case K_F_GETPIPE_SZ: case K_F_GET_SEALS: case K_F_CANCELLK: case K_F_CREATED_QUERY:
		return false;
	case K_F_SETFD:
		xlat_flags(c->b, xl_fd_flags, (unsigned int)v);
		break;
	case K_F_SETFL:
		xlat_field_flags(c->b, xl_open_access, 3, xl_open_flags, (unsigned int)v);
		break;
	case K_F_SETSIG:
		show_signal(c->b, (unsigned int)v);
		break;
	case K_F_ADD_SEALS:
		xlat_flags(c->b, xl_seals, (unsigned int)v);
		break;
	case K_F_SETLEASE:
		xlat_enum(c->b, xl_lease, (unsigned int)v, false);
		break;
	case K_F_NOTIFY:
		xlat_flags(c->b, xl_dnotify, (unsigned int)v);
		break;
	case K_F_DUPFD: case K_F_DUPFD_CLOEXEC: case K_F_SETOWN: case K_F_SETPIPE_SZ:
	case K_F_DUPFD_QUERY:
		dbuf_printf(c->b, "%d", (int)v);
		break;
	default:
		/* struct flock, f_owner_ex, ...: the address */
		dbuf_ptr(c->b, v);
		break;
	}
	return true;
}

/* mknod: the type and permissions of the node, S_IFCHR|0666 */
void put_mode(struct dbuf *b, unsigned int mode)
{
	static const struct xlat types[] = {
		{ 0140000, "S_IFSOCK" }, { 0120000, "S_IFLNK" }, { 0100000, "S_IFREG" },
		{ 0060000, "S_IFBLK" }, { 0040000, "S_IFDIR" }, { 0020000, "S_IFCHR" },
		{ 0010000, "S_IFIFO" }, XEND
	};
	const char *type = xlat_name(types, mode & 0170000);

	if (type)
		dbuf_printf(b, "%s|", type);
	else if (mode & 0170000)
		dbuf_printf(b, "%#o|", mode & 0170000);
	if (mode & 04000)
		dbuf_puts(b, "S_ISUID|");
	if (mode & 02000)
		dbuf_puts(b, "S_ISGID|");
	if (mode & 01000)
		dbuf_puts(b, "S_ISVTX|");
	put_oct(b, mode & 0777);
}

static bool show_mknod_mode(struct dctx *c, int arg, const struct argkind *k)
{
	put_mode(c->b, dctx_arg(c, arg));
	return true;
}

/* A device number in the kernel's encoding: 12 bits of major, 20 of minor */
void put_dev(struct dbuf *b, __u64 dev)
{
	dbuf_printf(b, "makedev(%#llx, %#llx)", (unsigned long long)((dev >> 8) & 0xfff),
		    (unsigned long long)((dev & 0xff) | ((dev >> 12) & 0xfff00)));
}

static bool show_mknod_dev(struct dctx *c, int arg, const struct argkind *k)
{
	unsigned int type = dctx_arg(c, arg - 1) & 0170000;

	if (type != 0020000 && type != 0060000)
		return false;
	put_dev(c->b, dctx_arg(c, arg));
	return true;
}

static bool show_map_flags(struct dctx *c, int arg, const struct argkind *k)
{
	__u64 v = (unsigned int)dctx_arg(c, arg);
	size_t start = c->b->len;

	xlat_field_flags(c->b, xl_map_type, 3, xl_map_flags, v & ~MAP_HUGE_BITS);
	if (v & MAP_HUGE_BITS) {
		if (c->b->len == start + 1 && c->b->s[start] == '0')
			c->b->len = start;
		else
			dbuf_putc(c->b, '|');
		dbuf_printf(c->b, "%u<<MAP_HUGE_SHIFT", (unsigned int)(v >> 26));
	}
	return true;
}

/* mremap: the new address only counts with MREMAP_FIXED */
static bool show_mremap_addr(struct dctx *c, int arg, const struct argkind *k)
{
	if (!(dctx_arg(c, arg - 1) & 2))
		return false;
	dbuf_ptr(c->b, dctx_arg(c, arg));
	return true;
}

/* clone: the flags, then the signal sent to the parent at exit */
static bool show_clone_flags(struct dctx *c, int arg, const struct argkind *k)
{
	__u64 v = dctx_arg(c, arg), flags = v & ~0xffULL;
	unsigned int sig = v & 0xff;

	if (flags) {
		xlat_flags(c->b, xl_clone_flags, flags);
		if (sig)
			dbuf_putc(c->b, '|');
	}
	if (sig)
		show_signal(c->b, sig);
	else if (!flags)
		dbuf_putc(c->b, '0');
	return true;
}

/* prctl's return value for the options that return a named value */
bool prctl_ret_name(struct dbuf *b, __u64 opt, long long ret)
{
	const char *name = NULL;

	if (opt == K_PR_GET_DUMPABLE)
		name = xlat_name(xl_dumpable, ret);
	else if (opt == K_PR_MCE_KILL_GET)
		name = xlat_name(xl_mce_kill_policy, ret);
	if (!name)
		return false;
	dbuf_printf(b, "%lld (%s)", ret, name);
	return true;
}

static void put_cap(struct dbuf *b, __u64 v)
{
	if (v < ARRAY_SIZE(cap_names))
		dbuf_puts(b, cap_names[v]);
	else
		dbuf_printf(b, "%#llx /* CAP_??? */", (unsigned long long)v);
}

/* An xlat name, else the number in hex */
static void put_name_hex(struct dbuf *b, const struct xlat *t, __u64 v)
{
	const char *name = xlat_name(t, v);

	if (name)
		dbuf_puts(b, name);
	else
		dbuf_printf(b, "%#llx", (unsigned long long)v);
}

/* prctl's option: unknown ones in hex, as strace */
static bool show_prctl_opt(struct dctx *c, int arg, const struct argkind *k)
{
	__u64 v = (unsigned int)dctx_arg(c, arg);
	const char *name = xlat_name(xl_prctl, v);

	if (name)
		dbuf_puts(c->b, name);
	else
		dbuf_printf(c->b, "%#llx /* PR_??? */", (unsigned long long)v);
	return true;
}

/* prctl's arguments 2..5 (n = 0..3), by option, as strace 6.1: the
 * memory of arg2 is captured at entry and at exit (16 bytes: a name, an
 * int or an address the call writes) */
static bool show_prctl_arg(struct dctx *c, int arg, const struct argkind *k)
{
	int opt = dctx_arg(c, 0), n = arg - 1;
	__u64 v = dctx_arg(c, arg);
	const unsigned char *p = NULL;
	size_t len;
	__u8 fl;

	switch (opt) {
	case K_PR_GET_DUMPABLE: case K_PR_GET_KEEPCAPS: case K_PR_GET_TIMING:
	case K_PR_GET_SECCOMP: case K_PR_GET_SECUREBITS: case K_PR_GET_TIMERSLACK:
	case K_PR_TASK_PERF_EVENTS_DISABLE: case K_PR_TASK_PERF_EVENTS_ENABLE:
	case K_PR_GET_FP_MODE: case K_PR_GET_TAGGED_ADDR_CTRL: case K_PR_GET_IO_FLUSHER:
		return false;
	case K_PR_SET_NAME:
		if (n)
			return false;
		p = v ? dctx_data(c, arg, SC_CAP_STRUCT_IN, 0, 1, &len, NULL) : NULL;
		if (!p) {
			dbuf_ptr(c->b, v);
			return true;
		}
		/* strace reads TASK_COMM_LEN bytes: 15 and "..." without a NUL */
		len = strnlen((const char *)p, len < 16 ? len : 16);
		if (len == 16)
			dbuf_quote(c->b, p, (size_t)c->strsize < 15 ? (size_t)c->strsize : 15, true, 0);
		else
			dbuf_quote(c->b, p, len < (size_t)c->strsize ? len : (size_t)c->strsize,
				   len > (size_t)c->strsize, 0);
		return true;
	case K_PR_GET_NAME: case K_PR_GET_PDEATHSIG: case K_PR_GET_CHILD_SUBREAPER:
	case K_PR_GET_TID_ADDRESS:
		if (n)
			return false;
		if (v && c->done && !c->failed)
			p = dctx_data(c, arg, SC_CAP_STRUCT_OUT, 0, 8, &len, NULL);
		if (!p)
			dbuf_ptr(c->b, v);
		else if (opt == K_PR_GET_NAME)
			dbuf_quote(c->b, p, (size_t)c->strsize < len ? (size_t)c->strsize : len,
				   (size_t)c->strsize < strnlen((const char *)p, len), Q_NUL);
		else if (opt == K_PR_GET_TID_ADDRESS)
			dbuf_printf(c->b, "[%#llx]", (unsigned long long)*(const __u64 *)p);
		else
			dbuf_printf(c->b, "[%d]", *(const int *)p);
		return true;
	case K_PR_SET_PDEATHSIG:
		if (n)
			return false;
		show_signal(c->b, (unsigned int)v);
		return true;
	case K_PR_SET_DUMPABLE:
		if (n)
			return false;
		xlat_enum(c->b, xl_dumpable, v, false);
		return true;
	case K_PR_CAPBSET_READ: case K_PR_CAPBSET_DROP:
		if (n)
			return false;
		put_cap(c->b, v);
		return true;
	case K_PR_SET_KEEPCAPS: case K_PR_SET_TIMERSLACK: case K_PR_SET_CHILD_SUBREAPER:
		if (n)
			return false;
		dbuf_printf(c->b, "%llu", (unsigned long long)v);
		return true;
	case K_PR_SET_PTRACER:
		if (n)
			return false;
		if (v == (__u64)-1)
			dbuf_puts(c->b, "PR_SET_PTRACER_ANY");
		else
			dbuf_printf(c->b, "%lld", (long long)v);
		return true;
	case K_PR_SET_NO_NEW_PRIVS: case K_PR_SET_THP_DISABLE:
		dbuf_printf(c->b, n ? "%#llx" : "%llu", (unsigned long long)v);
		return true;
	case K_PR_MCE_KILL:
		if (n == 0)
			put_name_hex(c->b, xl_mce_kill, v);
		else if (n == 1 && dctx_arg(c, 1) == 1)
			put_name_hex(c->b, xl_mce_kill_policy, v);
		else
			dbuf_printf(c->b, "%#llx", (unsigned long long)v);
		return true;
	case K_PR_CAP_AMBIENT:
		if (n == 0)
			put_name_hex(c->b, xl_cap_ambient, v);
		else if (n == 1 && dctx_arg(c, 1) >= 1 && dctx_arg(c, 1) <= 3)
			put_cap(c->b, v);
		else
			dbuf_printf(c->b, "%#llx", (unsigned long long)v);
		return true;
	case K_PR_SET_MM:
		if (n == 0)
			put_name_hex(c->b, xl_set_mm, v);
		else
			dbuf_printf(c->b, "%#llx", (unsigned long long)v);
		return true;
	case K_PR_SET_VMA:
		if (n == 0 && v == 0)
			dbuf_puts(c->b, "PR_SET_VMA_ANON_NAME");
		else if (n == 2)
			dbuf_printf(c->b, "%llu", (unsigned long long)v);
		else if (n == 3 && dctx_arg(c, 1) == 0 && v &&
			 (p = dctx_data(c, arg, SC_CAP_STR, 0, 0, &len, &fl)))
			dbuf_quote(c->b, p, len, (fl & SC_CHUNK_TRUNC) != 0, 0);
		else
			dbuf_printf(c->b, "%#llx", (unsigned long long)v);
		return true;
	}
	dbuf_printf(c->b, "%#llx", (unsigned long long)v);
	return true;
}

/* arch_prctl: ARCH_GET_FS writes the address, ARCH_SET_FS passes it */
static bool show_arch_prctl_addr(struct dctx *c, int arg, const struct argkind *k)
{
	int code = dctx_arg(c, 0);
	__u64 v = dctx_arg(c, arg), out;
	const unsigned char *p;

	if (code != K_ARCH_GET_FS && code != K_ARCH_GET_GS) {
		dbuf_printf(c->b, "%#llx", (unsigned long long)v);
		return true;
	}
	p = c->done && !c->failed && v ?
		dctx_data(c, arg, SC_CAP_STRUCT_OUT, 0, 8, NULL, NULL) : NULL;
	if (!p) {
		dbuf_ptr(c->b, v);
		return true;
	}
	memcpy(&out, p, 8);
	dbuf_printf(c->b, "[%#llx]", (unsigned long long)out);
	return true;
}

static bool show_futex_op(struct dctx *c, int arg, const struct argkind *k)
{
	unsigned int op = dctx_arg(c, arg), cmd = op & ~(FUTEX_PRIVATE | FUTEX_CLOCK_RT);

	if (cmd >= ARRAY_SIZE(futex_cmds)) {
		dbuf_printf(c->b, "%#x /* FUTEX_??? */", op);
		return true;
	}
	dbuf_puts(c->b, futex_cmds[cmd]);
	if (op & FUTEX_PRIVATE)
		dbuf_puts(c->b, "_PRIVATE");
	if (op & FUTEX_CLOCK_RT)
		dbuf_puts(c->b, "|FUTEX_CLOCK_REALTIME");
	return true;
}

static const char *const futex_wake_ops[] = {
	"FUTEX_OP_SET", "FUTEX_OP_ADD", "FUTEX_OP_OR", "FUTEX_OP_ANDN", "FUTEX_OP_XOR",
};
static const char *const futex_wake_cmps[] = {
	"FUTEX_OP_CMP_EQ", "FUTEX_OP_CMP_NE", "FUTEX_OP_CMP_LT", "FUTEX_OP_CMP_LE",
	"FUTEX_OP_CMP_GT", "FUTEX_OP_CMP_GE",
};

/* FUTEX_WAKE_OP's val3: op<<28 | cmp<<24 | oparg<<12 | cmparg */
static void put_futex_wake_op(struct dbuf *b, unsigned int v)
{
	unsigned int op = (v >> 28) & 7, cmp = (v >> 24) & 0xf;

	if (v & (8u << 28))
		dbuf_puts(b, "FUTEX_OP_OPARG_SHIFT<<28|");
	if (op < ARRAY_SIZE(futex_wake_ops))
		dbuf_printf(b, "%s<<28", futex_wake_ops[op]);
	else
		dbuf_printf(b, "%#x /* FUTEX_OP_??? */<<28", op);
	dbuf_printf(b, "|%#x<<12|", (v >> 12) & 0xfff);
	if (cmp < ARRAY_SIZE(futex_wake_cmps))
		dbuf_printf(b, "%s<<24", futex_wake_cmps[cmp]);
	else
		dbuf_printf(b, "%#x /* FUTEX_OP_CMP_??? */<<24", cmp);
	dbuf_printf(b, "|%#x", v & 0xfff);
}

static bool show_futex_arg(struct dctx *c, int arg, const struct argkind *k)
{
	unsigned int cmd = (unsigned int)dctx_arg(c, 1) & ~(FUTEX_PRIVATE | FUTEX_CLOCK_RT);
	char shape = cmd < ARRAY_SIZE(futex_shapes) ? futex_shapes[cmd][arg - 2] :
		     arg == 2 ? 'v' : 'x';
	__u64 v = dctx_arg(c, arg);
	const unsigned char *p;

	switch (shape) {
	case '-':
		return false;
	case 'v':
	case 'n':
		dbuf_printf(c->b, "%u", (unsigned int)v);
		break;
	case 't':
		p = v ? dctx_data(c, arg, SC_CAP_STRUCT_IN, 0, 16, NULL, NULL) : NULL;
		if (p)
			put_timespec(c->b, p);
		else
			dbuf_ptr(c->b, v);
		break;
	case 'p':
		dbuf_ptr(c->b, v);
		break;
	case 'o':
		put_futex_wake_op(c->b, v);
		break;
	case 'b':
		if ((unsigned int)v == 0xffffffff)
			dbuf_puts(c->b, "FUTEX_BITSET_MATCH_ANY");
		else
			dbuf_printf(c->b, "%#x", (unsigned int)v);
		break;
	default:
		dbuf_printf(c->b, "%#llx", (unsigned long long)v);
		break;
	}
	return true;
}

/* socket(2)'s type: the type, then SOCK_CLOEXEC, SOCK_NONBLOCK */
static bool show_sock_type(struct dctx *c, int arg, const struct argkind *k)
{
	xlat_field_flags(c->b, xl_sock_type, 0xf, xl_sock_flags, (unsigned int)dctx_arg(c, arg));
	return true;
}

static bool show_sock_proto(struct dctx *c, int arg, const struct argkind *k)
{
	int family = dctx_arg(c, 0), proto = dctx_arg(c, arg);

	if (family == K_AF_INET || family == K_AF_INET6)
		xlat_enum(c->b, xl_ipproto, proto, true);
	else if (family == K_AF_NETLINK)
		xlat_enum(c->b, xl_netlink_proto, proto, true);
	else
		dbuf_printf(c->b, "%d", proto);
	return true;
}

/* setsockopt/getsockopt: the option's name depends on the level */
static bool show_sockopt(struct dctx *c, int arg, const struct argkind *k)
{
	const struct xlat *t = NULL;

	switch ((int)dctx_arg(c, 1)) {
	case K_SOL_SOCKET: t = xl_so; break;
	case K_SOL_TCP: t = xl_tcpopt; break;
	case K_SOL_IP: t = xl_ipopt; break;
	case K_SOL_IPV6: t = xl_ipv6opt; break;
	}
	xlat_enum(c->b, t, (__u64)(__s64)(int)dctx_arg(c, arg), true);
	return true;
}

/* ---- by type ---------------------------------------------------------- */

enum akind akind_of_string(const struct sc_argdesc *a)
{
	static const char *const paths[] = {
		"filename", "pathname", "path", "oldname", "newname", "specialfile", "special",
		"library", "dev_name", "dir_name", "new_root", "put_old", "to_pathname",
		"from_pathname",
	};
	static const char *const strs[] = {
		"name", "uname", "u_name", "type", "_type", "_description", "_fs_name",
	};

	if (strcmp(a->type, "const char *") && strcmp(a->type, "char *"))
		return A_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (!strcmp(a->name, paths[i]))
			return A_PATH;
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		if (!strcmp(a->name, strs[i]))
			return A_STR;
	return A_NONE;
}

static bool type_in(const char *t, size_t len, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(t, *list, len))
			return true;
	return false;
}

enum akind akind_of_type(const struct sc_argdesc *a)
{
	static const char *const ints[] = {
		"int", "pid_t", "timer_t", "mqd_t", "__s32", "s32", "key_serial_t", "rwf_t",
		"key_t", NULL
	};
	static const char *const longs[] = { "long", "off_t", "loff_t", "__s64", "s64", NULL };
	static const char *const uints[] = {
		"unsigned int", "unsigned", "u32", "__u32", "u16", "__u16", NULL
	};
	static const char *const ulongs[] = {
		"unsigned long", "size_t", "u64", "__u64", "aio_context_t", NULL
	};
	static const char *const ids[] = { "uid_t", "gid_t", "qid_t", NULL };
	static const char *const ptrs[] = { "cap_user_header_t", "cap_user_data_t", NULL };
	const char *t = a->type;
	size_t len;

	if (strchr(t, '*'))
		return A_PTR;
	if (!strncmp(t, "const ", 6))
		t += 6;
	len = strlen(t);
	while (len && t[len - 1] == ' ')
		len--;
	if (!len)
		return A_RAW;
	if (len == 7 && !strncmp(t, "umode_t", 7))
		return A_OCT;
	if (len == 9 && !strncmp(t, "clockid_t", 9))
		return A_CLOCKID;
	if (!strncmp(t, "enum ", 5) || type_in(t, len, ints))
		return A_INT;
	if (type_in(t, len, longs))
		return A_LONG;
	if (type_in(t, len, uints))
		return A_UINT;
	if (type_in(t, len, ulongs))
		return A_ULONG;
	if (type_in(t, len, ids))
		return A_UID;
	if (type_in(t, len, ptrs))
		return A_PTR;
	return A_RAW;
}

/* ---- the kinds ---------------------------------------------------------- */

#define NUM(fn) { .show = fn }
#define NAMES(fn, t) { .show = fn, .tbl = t }
#define CAP(fn, c, sz) { .show = fn, .cap = c, .size = sz }

const struct argkind value_kinds[A_STR] = {
	[A_NONE] = NUM(show_raw),
	[A_AUTO] = NUM(show_raw),
	[A_HIDE] = NUM(show_hide),
	[A_RAW] = NUM(show_raw),
	[A_INT] = NUM(show_int),
	[A_UINT] = NUM(show_uint),
	[A_LONG] = NUM(show_long),
	[A_ULONG] = NUM(show_ulong),
	[A_HEX] = NUM(show_raw),
	[A_PTR] = NUM(show_ptr),
	[A_OCT] = NUM(show_oct),
	[A_UID] = NUM(show_uid),
	[A_FD] = NUM(show_int),
	[A_DIRFD] = NUM(show_dirfd),
	[A_SIG] = NUM(show_sig),

	[A_OPEN_FLAGS] = NUM(show_open_flags),
	[A_OPEN_MODE] = NUM(show_open_mode),
	[A_AT_FLAGS] = NAMES(show_flags, xl_at_flags),
	[A_FACCESS_FLAGS] = NAMES(show_flags, xl_faccess_flags),
	[A_ACCESS_MODE] = NAMES(show_flags, xl_access_mode),
	[A_SEEK] = NAMES(show_enum, xl_seek),
	[A_FD_FLAGS] = NAMES(show_flags, xl_open_flags),
	[A_RENAME_FLAGS] = NAMES(show_flags, xl_rename_flags),
	[A_STATX_FLAGS] = NUM(show_statx_flags),
	[A_STATX_MASK] = NAMES(show_flags, xl_statx_mask),
	[A_FCNTL_CMD] = NAMES(show_enum, xl_fcntl_cmd),
	[A_FCNTL_ARG] = NUM(show_fcntl_arg),
	[A_IOCTL_REQ] = NAMES(show_ioctl_req, xl_ioctl),
	/* struct termios's flags, struct winsize */
	[A_IOCTL_ARG] = CAP(show_ioctl_arg, SC_CAP_STRUCT_INOUT, 16),
	[A_LOCK] = NAMES(show_flags, xl_lock),
	[A_MFD_FLAGS] = NAMES(show_flags, xl_mfd),
	[A_EFD_FLAGS] = NAMES(show_flags, xl_efd),
	[A_EPOLL_FLAGS] = NAMES(show_flags, xl_epoll_flags),
	[A_EPOLL_CTL] = NAMES(show_enum, xl_epoll_ctl),
	[A_IN_FLAGS] = NAMES(show_flags, xl_in_flags),
	[A_IN_MASK] = NAMES(show_flags, xl_in_mask),
	[A_SPLICE_FLAGS] = NAMES(show_flags, xl_splice),
	[A_FADV] = NAMES(show_enum, xl_fadv),
	[A_FALLOC] = NAMES(show_flags, xl_falloc),
	[A_CLOSE_RANGE] = NAMES(show_flags, xl_close_range),
	[A_MKNOD_MODE] = NUM(show_mknod_mode),
	[A_MKNOD_DEV] = NUM(show_mknod_dev),
	[A_XATTR_FLAGS] = NAMES(show_flags, xl_xattr),
	[A_RWF] = NAMES(show_flags, xl_rwf),

	[A_PROT] = NAMES(show_flags, xl_prot),
	[A_MAP_FLAGS] = NUM(show_map_flags),
	[A_MADV] = NAMES(show_enum, xl_madv),
	[A_MREMAP_FLAGS] = NAMES(show_flags, xl_mremap),
	[A_MREMAP_ADDR] = NUM(show_mremap_addr),
	[A_MSYNC] = NAMES(show_flags, xl_msync),
	[A_MLOCK_FLAGS] = NAMES(show_flags, xl_mlock),
	[A_MCL] = NAMES(show_flags, xl_mcl),
	[A_SHM_FLAGS] = NAMES(show_flags, xl_shm),

	[A_CLONE_FLAGS] = NUM(show_clone_flags),
	[A_NS_FLAGS] = NAMES(show_flags, xl_ns_flags),
	[A_WAIT_OPTS] = NAMES(show_flags, xl_wait_opts),
	[A_IDTYPE] = NAMES(show_enum, xl_idtype),
	[A_PRCTL_OPT] = NUM(show_prctl_opt),
	/* arg2 may be PR_SET_NAME's string, what PR_GET_* writes */
	[A_PRCTL_ARG2] = CAP(show_prctl_arg, SC_CAP_STRUCT_INOUT, 16),
	[A_PRCTL_ARG] = NUM(show_prctl_arg),
	/* arg5 may be PR_SET_VMA's name */
	[A_PRCTL_ARG5] = CAP(show_prctl_arg, SC_CAP_STR, 0),
	[A_ARCH_PRCTL] = NAMES(show_hex_enum, xl_arch_prctl),
	[A_ARCH_PRCTL_ADDR] = CAP(show_arch_prctl_addr, SC_CAP_STRUCT_OUT, 8),
	[A_RLIMIT_RES] = NAMES(show_uenum, xl_rlimit),
	[A_RUSAGE_WHO] = NAMES(show_enum, xl_rusage_who),
	[A_GRND] = NAMES(show_flags, xl_grnd),
	[A_FUTEX_OP] = NUM(show_futex_op),
	[A_FUTEX_ARG] = NUM(show_futex_arg),
	[A_FUTEX_TIMEOUT] = CAP(show_futex_arg, SC_CAP_STRUCT_IN, 16),
	[A_RSEQ_FLAGS] = NAMES(show_flags, xl_rseq),

	[A_CLOCKID] = NAMES(show_enum, xl_clockid),
	[A_TIMER_FLAGS] = NAMES(show_flags, xl_timer_flags),
	[A_TFD_FLAGS] = NAMES(show_flags, xl_tfd),
	[A_TFD_TIMER_FLAGS] = NAMES(show_flags, xl_tfd_timer),
	[A_ITIMER_WHICH] = NAMES(show_enum, xl_itimer),
	[A_SIGHOW] = NAMES(show_enum, xl_sighow),
	[A_SFD_FLAGS] = NAMES(show_flags, xl_sfd),

	[A_FAMILY] = NAMES(show_enum, xl_family),
	[A_SOCK_TYPE] = NUM(show_sock_type),
	[A_SOCK_PROTO] = NUM(show_sock_proto),
	[A_SOCK_FLAGS] = NAMES(show_flags, xl_sock_flags),
	[A_MSG_FLAGS] = NAMES(show_flags, xl_msg_flags),
	[A_SHUT] = NAMES(show_enum, xl_shut),
	[A_SOL] = NAMES(show_enum, xl_sol),
	[A_SOCKOPT] = NUM(show_sockopt),
};
