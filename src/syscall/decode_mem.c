/* The kinds of syscall arguments that point at user memory: strings,
 * buffers, iovecs and structs, shown from the chunks BPF captured, and
 * what each needs captured.  Without a usable chunk (not captured, could
 * not be read, or the call failed before filling it) an argument is its
 * address. */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include "common.h"
#include "syscall/decode_int.h"

#define XEND { 0, NULL }

static const struct xlat xl_statx_attrs[] = {
	{ 0x4, "STATX_ATTR_COMPRESSED" }, { 0x10, "STATX_ATTR_IMMUTABLE" },
	{ 0x20, "STATX_ATTR_APPEND" }, { 0x40, "STATX_ATTR_NODUMP" },
	{ 0x800, "STATX_ATTR_ENCRYPTED" }, { 0x1000, "STATX_ATTR_AUTOMOUNT" },
	{ 0x2000, "STATX_ATTR_MOUNT_ROOT" }, { 0x100000, "STATX_ATTR_VERITY" },
	{ 0x200000, "STATX_ATTR_DAX" }, { 0x400000, "STATX_ATTR_WRITE_ATOMIC" }, XEND
};
static const struct xlat xl_resolve[] = {
	{ 0x1, "RESOLVE_NO_XDEV" }, { 0x2, "RESOLVE_NO_MAGICLINKS" },
	{ 0x4, "RESOLVE_NO_SYMLINKS" }, { 0x8, "RESOLVE_BENEATH" }, { 0x10, "RESOLVE_IN_ROOT" },
	{ 0x20, "RESOLVE_CACHED" }, XEND
};
static const struct xlat xl_epoll_ev[] = {
	{ 0x1, "EPOLLIN" }, { 0x2, "EPOLLPRI" }, { 0x4, "EPOLLOUT" }, { 0x8, "EPOLLERR" },
	{ 0x10, "EPOLLHUP" }, { 0x20, "EPOLLNVAL" }, { 0x40, "EPOLLRDNORM" },
	{ 0x80, "EPOLLRDBAND" }, { 0x100, "EPOLLWRNORM" }, { 0x200, "EPOLLWRBAND" },
	{ 0x400, "EPOLLMSG" }, { 0x2000, "EPOLLRDHUP" }, { 0x10000000, "EPOLLEXCLUSIVE" },
	{ 0x20000000, "EPOLLWAKEUP" }, { 0x40000000, "EPOLLONESHOT" }, { 0x80000000, "EPOLLET" },
	XEND
};

static const struct xlat xl_sa_flags[] = {
	{ 0x04000000, "SA_RESTORER" }, { 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
	{ 0x20000000, "SA_INTERRUPT" }, { 0x40000000, "SA_NODEFER" },
	{ 0x80000000, "SA_RESETHAND" }, { 4, "SA_SIGINFO" }, { 1, "SA_NOCLDSTOP" },
	{ 2, "SA_NOCLDWAIT" }, XEND
};
static const struct xlat xl_ss_flags[] = {
	{ 1, "SS_ONSTACK" }, { 2, "SS_DISABLE" }, { 0x80000000, "SS_AUTODISARM" }, XEND
};
#define K_SA_RESTORER 0x04000000

/* ---- strings and buffers ------------------------------------------------- */

static bool show_addr(struct dctx *c, int arg)
{
	dbuf_ptr(c->b, dctx_arg(c, arg));
	return true;
}

/* n bytes of p quoted, cut at strsize; `more`: the memory went on */
static void put_bytes(struct dctx *c, const unsigned char *p, size_t n, bool more,
		      unsigned int style)
{
	if (n > (size_t)c->strsize) {
		n = c->strsize;
		more = true;
	}
	dbuf_quote(c->b, p, n, more, style);
}

static bool show_str(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_STR, 0, 0, &len, &fl);

	if (!p)
		return show_addr(c, arg);
	put_bytes(c, p, len, (fl & SC_CHUNK_TRUNC) != 0, 0);
	return true;
}

/* A path: whole, whatever -s says, as strace shows it */
static bool show_path(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, k->cap, 0, 0, &len, &fl);

	if (!p)
		return show_addr(c, arg);
	dbuf_quote(c->b, p, len, (fl & SC_CHUNK_TRUNC) != 0, k->style);
	return true;
}

/* envp: its address and how many strings it holds */
static bool show_envp(struct dctx *c, int arg, const struct argkind *k)
{
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, k->cap, 0, 4, NULL, &fl);
	__u32 n;

	show_addr(c, arg);
	if (p) {
		memcpy(&n, p, 4);
		dbuf_printf(c->b, " /* %u%s vars */", n, fl & SC_CHUNK_TRUNC ? "+" : "");
	}
	return true;
}

/* getdents: the buffer's address and how many entries came back */
static bool show_dirents(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p = dctx_data(c, arg, k->cap, 0, 4, NULL, NULL);
	__u32 n;

	show_addr(c, arg);
	if (p) {
		memcpy(&n, p, 4);
		dbuf_printf(c->b, " /* %u entries */", n);
	}
	return true;
}

/* argv: ["true", "--x"], elements not copied as their address */
static bool show_strv(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len, slen;
	__u8 fl, sfl;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_STRV, 0, 8, &len, &fl), *s;
	bool ended = false;

	/* not one pointer could be read */
	if (!p)
		return show_addr(c, arg);
	dbuf_putc(c->b, '[');
	for (size_t i = 0; i * 8 + 8 <= len; i++) {
		__u64 ptr;

		memcpy(&ptr, p + i * 8, 8);
		if (!ptr) {
			ended = true;
			break;
		}
		if (i)
			dbuf_puts(c->b, ", ");
		s = dctx_data(c, arg, SC_CAP_STR, i, 0, &slen, &sfl);
		if (s)
			put_bytes(c, s, slen, (sfl & SC_CHUNK_TRUNC) != 0, 0);
		else
			dbuf_ptr(c->b, ptr);
	}
	if (!ended)
		dbuf_puts(c->b, ", ...");
	dbuf_putc(c->b, ']');
	return true;
}

/* write(2), sendto(2): args[next] bytes were to be copied */
static bool show_buf_in(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_BUF_IN, 0, 0, &len, &fl);
	__u64 want = dctx_arg(c, arg + k->len_rel);

	if (!p && !want) {
		dbuf_puts(c->b, "\"\"");
		return true;
	}
	if (!p)
		return show_addr(c, arg);
	put_bytes(c, p, len, (fl & SC_CHUNK_TRUNC) || want > len, 0);
	return true;
}

/* read(2) and the like: ret bytes came back */
static bool show_buf_out(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_BUF_OUT, 0, 0, &len, &fl);
	__u64 want = c->r->ret, max = dctx_arg(c, arg + k->len_rel);

	if (want > max)
		want = max;
	if (!p) {
		/* nothing read, or nothing copied when it read 0 bytes */
		if (!c->r->ret)
			dbuf_puts(c->b, "\"\"");
		else
			show_addr(c, arg);
		return true;
	}
	put_bytes(c, p, len, (fl & SC_CHUNK_TRUNC) || want > len, k->style);
	return true;
}

/* readv/writev, sendmsg/recvmsg: [{iov_base="...", iov_len=3}, ...],
 * count elements */
static bool put_iovs(struct dctx *c, int arg, bool out, __u64 count)
{
	int bufcap = out ? SC_CAP_BUF_OUT : SC_CAP_BUF_IN;
	size_t len, blen, shown = 0;
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, out ? SC_CAP_IOV_OUT : SC_CAP_IOV_IN, 0, 0,
					   &len, &fl);
	__u64 left = out ? (__u64)c->r->ret : ~0ULL;

	if (!p && !count) {
		/* nothing to copy */
		dbuf_puts(c->b, "[]");
		return true;
	}
	if (!p)
		return show_addr(c, arg);
	dbuf_putc(c->b, '[');
	for (size_t i = 0; (i + 1) * sizeof(struct sc_iovec) <= len; i++) {
		struct sc_iovec iov;
		__u64 base, ilen, avail;
		const unsigned char *s;

		memcpy(&iov, p + i * sizeof(iov), sizeof(iov));
		base = iov.base;
		ilen = iov.len;
		avail = ilen < left ? ilen : left;
		left -= avail;
		dbuf_puts(c->b, i ? ", {iov_base=" : "{iov_base=");
		s = dctx_data(c, arg, bufcap, i, 0, &blen, NULL);
		if (s) {
			/* not the chunk's TRUNC: for readv it also means that
			 * less came back than the element holds */
			put_bytes(c, s, blen, avail > blen, 0);
			shown += blen;
		} else if (!avail) {
			dbuf_puts(c->b, "\"\"");
		} else if (shown >= (size_t)c->strsize) {
			/* the copy stopped at strsize before this one */
			dbuf_puts(c->b, "\"\"...");
		} else {
			dbuf_ptr(c->b, base);
		}
		dbuf_printf(c->b, ", iov_len=%llu}", (unsigned long long)ilen);
	}
	if ((fl & SC_CHUNK_TRUNC) || count > len / sizeof(struct sc_iovec))
		dbuf_puts(c->b, len >= sizeof(struct sc_iovec) ? ", ..." : "...");
	dbuf_putc(c->b, ']');
	return true;
}

static bool show_iov(struct dctx *c, int arg, const struct argkind *k)
{
	return put_iovs(c, arg, k->cap == SC_CAP_IOV_OUT, dctx_arg(c, arg + 1));
}

/* ---- structs ------------------------------------------------------------- */

static __s64 get_s64(const unsigned char *p)
{
	__s64 v;

	memcpy(&v, p, 8);
	return v;
}

static __u64 get_u64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return v;
}

static __u32 get_u32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return v;
}

static __u16 get_u16(const unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	return v;
}

/* The struct of `arg` as the kind captures it, or NULL (then the
 * caller shows the address). */
static const unsigned char *struct_of(struct dctx *c, int arg, const struct argkind *k)
{
	/* read both ways: the argument is what was passed */
	int cap = k->cap == SC_CAP_STRUCT_INOUT ? SC_CAP_STRUCT_IN : k->cap;

	return dctx_data(c, arg, cap, 0, k->size, NULL, NULL);
}

#define STRUCT_OR_ADDR(p, c, arg, k)                                    \
	do {                                                            \
		(p) = struct_of(c, arg, k);                             \
		if (!(p))                                               \
			return show_addr(c, arg);                     \
	} while (0)

static bool show_fds_out(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_printf(c->b, "[%d, %d]", (int)get_u32(p), (int)get_u32(p + 4));
	return true;
}

static bool show_int_out(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_printf(c->b, "[%d]", (int)get_u32(p));
	return true;
}

/* strace's abbreviated struct stat (x86_64 kernel layout, 144 bytes) */
static bool show_stat(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;
	unsigned int mode;

	STRUCT_OR_ADDR(p, c, arg, k);
	mode = get_u32(p + 24);
	dbuf_puts(c->b, "{st_mode=");
	put_mode(c->b, mode);
	if (S_ISCHR(mode) || S_ISBLK(mode)) {
		dbuf_puts(c->b, ", st_rdev=");
		put_dev(c->b, get_u64(p + 40));
	} else {
		dbuf_printf(c->b, ", st_size=%lld", (long long)get_s64(p + 48));
	}
	dbuf_puts(c->b, ", ...}");
	return true;
}

/* struct statx, its first 48 bytes: mask, attributes, mode, size */
static bool show_statx(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_puts(c->b, "{stx_mask=");
	xlat_flags(c->b, xl_statx_mask, get_u32(p));
	dbuf_puts(c->b, ", stx_attributes=");
	xlat_flags(c->b, xl_statx_attrs, get_u64(p + 8));
	dbuf_puts(c->b, ", stx_mode=");
	put_mode(c->b, get_u16(p + 28));
	dbuf_printf(c->b, ", stx_size=%llu, ...}", (unsigned long long)get_u64(p + 40));
	return true;
}

/* struct open_how: flags, mode (when it counts), resolve */
static bool show_open_how(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;
	__u64 flags, mode;

	STRUCT_OR_ADDR(p, c, arg, k);
	flags = get_u64(p);
	mode = get_u64(p + 8);
	dbuf_puts(c->b, "{flags=");
	xlat_field_flags(c->b, xl_open_access, 3, xl_open_flags, flags);
	if (mode || (flags & (K_O_CREAT | K_O_TMPFILE))) {
		dbuf_puts(c->b, ", mode=");
		put_oct(c->b, mode);
	}
	dbuf_puts(c->b, ", resolve=");
	xlat_flags(c->b, xl_resolve, get_u64(p + 16));
	dbuf_putc(c->b, '}');
	return true;
}

void put_timespec(struct dbuf *b, const unsigned char *p)
{
	dbuf_printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)get_s64(p),
		    (long long)get_s64(p + 8));
}

static void put_timeval(struct dbuf *b, const unsigned char *p)
{
	dbuf_printf(b, "{tv_sec=%lld, tv_usec=%lld}", (long long)get_s64(p),
		    (long long)get_s64(p + 8));
}

static bool show_timespec(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	put_timespec(c->b, p);
	return true;
}

static bool show_timeval(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	put_timeval(c->b, p);
	return true;
}

/* struct rusage: its two times, the rest elided as strace does */
static bool show_rusage(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_puts(c->b, "{ru_utime=");
	put_timeval(c->b, p);
	dbuf_puts(c->b, ", ru_stime=");
	put_timeval(c->b, p + 16);
	dbuf_puts(c->b, ", ...}");
	return true;
}

/* itimerspec and itimerval: interval, then value */
static void put_itimer(struct dbuf *b, const unsigned char *p,
		       void (*put)(struct dbuf *, const unsigned char *))
{
	dbuf_puts(b, "{it_interval=");
	put(b, p);
	dbuf_puts(b, ", it_value=");
	put(b, p + 16);
	dbuf_putc(b, '}');
}

static bool show_itimerspec(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	put_itimer(c->b, p, put_timespec);
	return true;
}

static bool show_itimerval(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	put_itimer(c->b, p, put_timeval);
	return true;
}

/* utimensat: two timespecs, or UTIME_NOW / UTIME_OMIT */
static bool show_utimes(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_putc(c->b, '[');
	for (int i = 0; i < 2; i++) {
		__s64 nsec = get_s64(p + i * 16 + 8);

		if (i)
			dbuf_puts(c->b, ", ");
		if (nsec == (1 << 30) - 1)
			dbuf_puts(c->b, "UTIME_NOW");
		else if (nsec == (1 << 30) - 2)
			dbuf_puts(c->b, "UTIME_OMIT");
		else
			put_timespec(c->b, p + i * 16);
	}
	dbuf_putc(c->b, ']');
	return true;
}

static bool show_time_out(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_printf(c->b, "[%lld]", (long long)get_s64(p));
	return true;
}

/* A signal set: [INT TERM], or ~[...] the ones missing when most are set */
static void put_sigset(struct dbuf *b, __u64 set)
{
	bool first = true, inv = __builtin_popcountll(set) > K_NSIG / 2;

	if (inv) {
		dbuf_putc(b, '~');
		set = ~set;
	}
	dbuf_putc(b, '[');
	for (int sig = 1; sig <= K_NSIG; sig++) {
		if (!(set & (1ULL << (sig - 1))))
			continue;
		if (!first)
			dbuf_putc(b, ' ');
		first = false;
		put_signame(b, sig, "");
	}
	dbuf_putc(b, ']');
}

static bool show_sigset(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	put_sigset(c->b, get_u64(p));
	return true;
}

/* The kernel's struct sigaction: handler, flags, restorer, mask */
static bool show_sigaction(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;
	__u64 handler, flags;

	STRUCT_OR_ADDR(p, c, arg, k);
	handler = get_u64(p);
	flags = get_u64(p + 8);
	dbuf_puts(c->b, "{sa_handler=");
	if (handler == 0)
		dbuf_puts(c->b, "SIG_DFL");
	else if (handler == 1)
		dbuf_puts(c->b, "SIG_IGN");
	else
		dbuf_printf(c->b, "%#llx", (unsigned long long)handler);
	dbuf_puts(c->b, ", sa_mask=");
	put_sigset(c->b, get_u64(p + 24));
	dbuf_puts(c->b, ", sa_flags=");
	xlat_flags(c->b, xl_sa_flags, flags);
	if (flags & K_SA_RESTORER)
		dbuf_printf(c->b, ", sa_restorer=%#llx", (unsigned long long)get_u64(p + 16));
	dbuf_putc(c->b, '}');
	return true;
}

/* stack_t: ss_sp, ss_flags, ss_size */
static bool show_stack(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_puts(c->b, "{ss_sp=");
	dbuf_ptr(c->b, get_u64(p));
	dbuf_puts(c->b, ", ss_flags=");
	xlat_flags(c->b, xl_ss_flags, get_u32(p + 8));
	dbuf_printf(c->b, ", ss_size=%llu}", (unsigned long long)get_u64(p + 16));
	return true;
}

/* wait4's status, as strace spells the W* macros */
static bool show_wstatus(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;
	unsigned int s;

	/* written only when a child was reaped */
	if (c->r->ret <= 0)
		return show_addr(c, arg);
	STRUCT_OR_ADDR(p, c, arg, k);
	s = get_u32(p);
	if ((s & 0x7f) == 0) {
		dbuf_printf(c->b, "[{WIFEXITED(s) && WEXITSTATUS(s) == %u}]", (s >> 8) & 0xff);
	} else if ((s & 0xff) == 0x7f) {
		dbuf_puts(c->b, "[{WIFSTOPPED(s) && WSTOPSIG(s) == ");
		show_signal(c->b, (s >> 8) & 0xff);
		if (s >> 16)
			dbuf_printf(c->b, "} | %#x]", s & ~0xffffU);
		else
			dbuf_puts(c->b, "}]");
	} else if (s == 0xffff) {
		dbuf_puts(c->b, "[{WIFCONTINUED(s)}]");
	} else {
		dbuf_puts(c->b, "[{WIFSIGNALED(s) && WTERMSIG(s) == ");
		show_signal(c->b, s & 0x7f);
		dbuf_puts(c->b, s & 0x80 ? " && WCOREDUMP(s)}]" : "}]");
	}
	return true;
}

static void put_rlim(struct dbuf *b, __u64 v)
{
	if (v == ~0ULL)
		dbuf_puts(b, "RLIM64_INFINITY");
	else if (v && !(v % 1024))
		dbuf_printf(b, "%llu*1024", (unsigned long long)(v / 1024));
	else
		dbuf_printf(b, "%llu", (unsigned long long)v);
}

static bool show_rlimit(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_puts(c->b, "{rlim_cur=");
	put_rlim(c->b, get_u64(p));
	dbuf_puts(c->b, ", rlim_max=");
	put_rlim(c->b, get_u64(p + 8));
	dbuf_putc(c->b, '}');
	return true;
}

/* struct new_utsname: sysname and nodename, 65 bytes each */
static bool show_utsname(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_puts(c->b, "{sysname=");
	dbuf_quote(c->b, p, 65, false, Q_NUL);
	dbuf_puts(c->b, ", nodename=");
	dbuf_quote(c->b, p + 65, 65, false, Q_NUL);
	dbuf_puts(c->b, ", ...}");
	return true;
}

/* A CPU mask: the numbers of the CPUs in it, [0 1 5] */
static bool show_cpuset(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	const unsigned char *p = dctx_data(c, arg, k->cap, 0, 0, &len, NULL);
	bool first = true;

	if (!p)
		return show_addr(c, arg);
	dbuf_putc(c->b, '[');
	for (size_t i = 0; i < len * 8; i++) {
		if (!(p[i / 8] & (1 << (i % 8))))
			continue;
		dbuf_printf(c->b, first ? "%zu" : " %zu", i);
		first = false;
	}
	dbuf_putc(c->b, ']');
	return true;
}

/* select's fd_set as captured (nfds bytes, at least nfds bits): the
 * descriptors below nfds it holds */
static void put_fdset(struct dbuf *b, const unsigned char *p, size_t len, unsigned int nfds)
{
	bool first = true;

	dbuf_putc(b, '[');
	for (size_t i = 0; i < nfds && i < len * 8; i++) {
		if (!(p[i / 8] & (1 << (i % 8))))
			continue;
		dbuf_printf(b, first ? "%zu" : " %zu", i);
		first = false;
	}
	dbuf_putc(b, ']');
}

/* select, pselect6: a set as passed */
static bool show_fdset(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_ARRAY_IN, 0, 0, &len, NULL);

	if (!p)
		return show_addr(c, arg);
	put_fdset(c->b, p, len, (__u32)dctx_arg(c, 0));
	return true;
}

void put_select_ret(const struct dctx *c, struct dbuf *b, bool timespec)
{
	static const char *const names[] = { "in", "out", "except" };
	const unsigned char *p;
	bool any = false;
	size_t len;

	if (!c->r->ret) {
		dbuf_puts(b, "0 (Timeout)");
		return;
	}
	dbuf_printf(b, "%lld (", (long long)c->r->ret);
	for (int i = 1; i <= 3; i++) {
		struct dbuf set = { 0 };

		p = c->r->args[i] ? dctx_data(c, i, SC_CAP_ARRAY_OUT, 0, 0, &len, NULL) : NULL;
		if (!p)
			continue;
		put_fdset(&set, p, len, (__u32)c->r->args[0]);
		if (set.s && strcmp(set.s, "[]")) {
			dbuf_printf(b, "%s%s %s", any ? ", " : "", names[i - 1], set.s);
			any = true;
		}
		free(set.s);
	}
	p = c->r->args[4] ? dctx_data(c, 4, SC_CAP_STRUCT_OUT, 0, 16, NULL, NULL) : NULL;
	if (p) {
		dbuf_puts(b, any ? ", left " : "left ");
		if (timespec)
			put_timespec(b, p);
		else
			put_timeval(b, p);
	}
	dbuf_putc(b, ')');
}

/* clone3's struct clone_args, the fields strace shows for its flags;
 * the parent's tid written by CLONE_PARENT_SETTID is the child's, ret
 * (the pidfd written by CLONE_PIDFD is not known here) */
static bool show_clone_args(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len, size = dctx_arg(c, arg + 1);
	const unsigned char *p = dctx_data(c, arg, k->cap, 0, 64, &len, NULL);
	__u64 fl, cgroup;

	if (!p)
		return show_addr(c, arg);
	fl = get_u64(p);
	dbuf_puts(c->b, "{flags=");
	xlat_flags(c->b, xl_clone_flags, fl);
	if (fl & 0x1000)			/* CLONE_PIDFD */
		dbuf_printf(c->b, ", pidfd=%#llx", (unsigned long long)get_u64(p + 8));
	if (fl & (0x1000000 | 0x200000)) {	/* CLONE_CHILD_SETTID, _CLEARTID */
		dbuf_puts(c->b, ", child_tid=");
		dbuf_ptr(c->b, get_u64(p + 16));
	}
	if (fl & 0x100000) {			/* CLONE_PARENT_SETTID */
		dbuf_puts(c->b, ", parent_tid=");
		dbuf_ptr(c->b, get_u64(p + 24));
	}
	dbuf_puts(c->b, ", exit_signal=");
	if (get_u64(p + 32))
		show_signal(c->b, get_u64(p + 32));
	else
		dbuf_putc(c->b, '0');
	dbuf_puts(c->b, ", stack=");
	dbuf_ptr(c->b, get_u64(p + 40));
	dbuf_printf(c->b, get_u64(p + 48) ? ", stack_size=%#llx" : ", stack_size=%llu",
		    (unsigned long long)get_u64(p + 48));
	if (fl & 0x80000)			/* CLONE_SETTLS */
		dbuf_printf(c->b, ", tls=%#llx", (unsigned long long)get_u64(p + 56));
	if (len >= 80 && size >= 80 && (get_u64(p + 64) || get_u64(p + 72))) {
		dbuf_puts(c->b, ", set_tid=");
		dbuf_ptr(c->b, get_u64(p + 64));
		dbuf_printf(c->b, ", set_tid_size=%llu", (unsigned long long)get_u64(p + 72));
	}
	cgroup = len >= 88 && size >= 88 ? get_u64(p + 80) : 0;
	if (cgroup || (size >= 88 && (fl & 0x200000000ULL)))	/* CLONE_INTO_CGROUP */
		dbuf_printf(c->b, ", cgroup=%llu", (unsigned long long)cgroup);
	dbuf_putc(c->b, '}');
	if (c->done && !c->failed && c->r->ret > 0 && (fl & 0x100000))
		dbuf_printf(c->b, " => {parent_tid=[%lld]}", (long long)c->r->ret);
	return true;
}

/* struct epoll_event, packed on x86_64: events, then 8 bytes of data */
static void put_epoll_event(struct dbuf *b, const unsigned char *p)
{
	__u64 data = get_u64(p + 4);

	dbuf_puts(b, "{events=");
	xlat_flags(b, xl_epoll_ev, get_u32(p));
	dbuf_printf(b, ", data={u32=%u, u64=%llu}}", (unsigned int)data,
		    (unsigned long long)data);
}

static bool show_epoll_event(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	put_epoll_event(c->b, p);
	return true;
}

/* epoll_wait's events: ret of them were filled; strace shows at most
 * -s of them */
static bool show_epoll_events(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len, n = c->r->ret, shown = 0;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_ARRAY_OUT, 0, 0, &len, NULL);

	if (!p)
		return show_addr(c, arg);
	dbuf_putc(c->b, '[');
	for (; shown < n && shown < (size_t)c->strsize && (shown + 1) * 12 <= len; shown++) {
		if (shown)
			dbuf_puts(c->b, ", ");
		put_epoll_event(c->b, p + shown * 12);
	}
	if (n > shown)
		dbuf_puts(c->b, shown ? ", ..." : "...");
	dbuf_putc(c->b, ']');
	return true;
}

/* poll's array as it was at entry (else as read at exit): fd and events,
 * at most -s of them (revents go with ret) */
static bool show_pollfds(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len, n = (__u32)dctx_arg(c, arg + 1), shown = 0;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_ARRAY_IN, 0, 0, &len, NULL);

	if (!p && c->done && !c->failed)
		p = dctx_data(c, arg, SC_CAP_ARRAY_OUT, 0, 0, &len, NULL);
	if (!p)
		return show_addr(c, arg);
	dbuf_putc(c->b, '[');
	for (; shown < n && shown < (size_t)c->strsize && (shown + 1) * 8 <= len; shown++) {
		dbuf_printf(c->b, "%s{fd=%d, events=", shown ? ", " : "",
			    (int)get_u32(p + shown * 8));
		xlat_flags(c->b, xl_pollev, get_u16(p + shown * 8 + 4));
		dbuf_putc(c->b, '}');
	}
	if (n > shown)
		dbuf_puts(c->b, shown ? ", ..." : "...");
	dbuf_putc(c->b, ']');
	return true;
}

/* A socket address of len bytes, decoded by its family */
static void put_sockaddr(struct dbuf *b, const unsigned char *p, size_t len)
{
	unsigned int family = get_u16(p);
	char addr[INET6_ADDRSTRLEN];

	dbuf_puts(b, "{sa_family=");
	xlat_enum(b, xl_family, family, false);
	if (family == K_AF_INET && len >= 8) {
		inet_ntop(AF_INET, p + 4, addr, sizeof(addr));
		dbuf_printf(b, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")",
			    ntohs(get_u16(p + 2)), addr);
	} else if (family == K_AF_INET6 && len >= 24) {
		inet_ntop(AF_INET6, p + 8, addr, sizeof(addr));
		dbuf_printf(b, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
			    "inet_pton(AF_INET6, \"%s\", &sin6_addr)", ntohs(get_u16(p + 2)),
			    ntohl(get_u32(p + 4)), addr);
		if (len >= 28)
			dbuf_printf(b, ", sin6_scope_id=%u", get_u32(p + 24));
	} else if (family == K_AF_UNIX && len > 2) {
		const unsigned char *path = p + 2;
		size_t plen = len - 2;

		dbuf_puts(b, ", sun_path=");
		/* abstract: a name of plen bytes after a NUL, not a string */
		if (!path[0]) {
			dbuf_putc(b, '@');
			dbuf_quote(b, path + 1, plen - 1, false, 0);
		} else {
			dbuf_quote(b, path, plen, false, Q_NUL);
		}
	} else if (family == K_AF_NETLINK && len >= 12) {
		dbuf_printf(b, ", nl_pid=%u, nl_groups=%08x", get_u32(p + 4), get_u32(p + 8));
	}
	dbuf_putc(b, '}');
}

/* connect, bind, sendto: args[next] bytes given */
static bool show_sockaddr_in(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_BUF_IN, 0, 2, &len, NULL);
	__u64 addrlen = dctx_arg(c, arg + 1);

	if (!p)
		return show_addr(c, arg);
	put_sockaddr(c->b, p, addrlen < len ? addrlen : len);
	return true;
}

/* Control messages: SCM_RIGHTS's descriptors, SCM_CREDENTIALS's
 * {pid, uid, gid}; others without their data */
static void put_cmsgs(struct dbuf *b, const unsigned char *p, size_t len, bool more)
{
	size_t off = 0;

	dbuf_putc(b, '[');
	while (off + 16 <= len) {
		__u64 clen = get_u64(p + off);
		int level = get_u32(p + off + 8), type = get_u32(p + off + 12);
		size_t dlen = clen > 16 ? clen - 16 : 0;
		const unsigned char *d = p + off + 16;

		if (clen < 16)
			break;
		if (dlen > len - off - 16)
			dlen = len - off - 16;
		dbuf_printf(b, "%s{cmsg_len=%llu, cmsg_level=", off ? ", " : "",
			    (unsigned long long)clen);
		xlat_enum(b, xl_sol, level, true);
		if (level == 1 && type == 1) {		/* SOL_SOCKET, SCM_RIGHTS */
			dbuf_puts(b, ", cmsg_type=SCM_RIGHTS, cmsg_data=[");
			for (size_t i = 0; (i + 1) * 4 <= dlen; i++)
				dbuf_printf(b, i ? ", %d" : "%d", (int)get_u32(d + i * 4));
			dbuf_puts(b, "]}");
		} else if (level == 1 && type == 2 && dlen >= 12) {	/* SCM_CREDENTIALS */
			dbuf_printf(b, ", cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=%d, uid=%u, gid=%u}}",
				    (int)get_u32(d), get_u32(d + 4), get_u32(d + 8));
		} else {
			dbuf_printf(b, ", cmsg_type=%#x}", type);
		}
		off += (clen + 7) & ~7ULL;
	}
	if (more || off < len)
		dbuf_puts(b, off ? ", ..." : "...");
	dbuf_putc(b, ']');
}

/* sendmsg (as passed), recvmsg (as filled: before that, or when it
 * failed, only the name's room) */
static bool show_msghdr(struct dctx *c, int arg, const struct argkind *k)
{
	bool out = k->cap == SC_CAP_MSGHDR_OUT;
	int scap = out ? SC_CAP_STRUCT_OUT : SC_CAP_STRUCT_IN;
	const unsigned char *p, *name;
	struct sc_msghdr m;
	size_t len;

	if (out && (!c->done || c->failed)) {
		p = dctx_data(c, arg, SC_CAP_STRUCT_IN, 0, sizeof(m), NULL, NULL);
		if (!p)
			return show_addr(c, arg);
		memcpy(&m, p, sizeof(m));
		dbuf_printf(c->b, "{msg_namelen=%u}", m.namelen);
		return true;
	}
	p = dctx_data(c, arg, scap, 0, sizeof(m), NULL, NULL);
	if (!p)
		return show_addr(c, arg);
	memcpy(&m, p, sizeof(m));
	dbuf_puts(c->b, "{msg_name=");
	name = m.name ? dctx_data(c, arg, scap, 1, 2, &len, NULL) : NULL;
	if (name)
		put_sockaddr(c->b, name, m.namelen < len ? m.namelen : len);
	else
		dbuf_ptr(c->b, m.name);
	dbuf_printf(c->b, ", msg_namelen=%u, msg_iov=", m.namelen);
	if (!m.iov || !put_iovs(c, arg, out, m.iovlen))
		dbuf_ptr(c->b, m.iov);
	dbuf_printf(c->b, ", msg_iovlen=%llu", (unsigned long long)m.iovlen);
	if (m.controllen) {
		__u8 fl;
		const unsigned char *cm = m.control ?
			dctx_data(c, arg, scap, 2, 0, &len, &fl) : NULL;

		dbuf_puts(c->b, ", msg_control=");
		if (cm)
			put_cmsgs(c->b, cm, len, fl & SC_CHUNK_TRUNC);
		else
			dbuf_ptr(c->b, m.control);
	}
	dbuf_printf(c->b, ", msg_controllen=%llu, msg_flags=", (unsigned long long)m.controllen);
	xlat_flags(c->b, xl_msg_flags, m.flags);
	dbuf_putc(c->b, '}');
	return true;
}

/* accept, getsockname, recvfrom: the length came back in args[next] */
static bool show_sockaddr_out(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_STRUCT_OUT, 0, 2, &len, NULL);
	const unsigned char *lp = dctx_data(c, arg + 1, SC_CAP_STRUCT_OUT, 0, 4, NULL, NULL);

	if (!p)
		return show_addr(c, arg);
	if (lp && get_u32(lp) < len)
		len = get_u32(lp);
	if (len < 2)
		return show_addr(c, arg);
	put_sockaddr(c->b, p, len);
	return true;
}

static bool show_socklen_out(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_printf(c->b, "[%u]", get_u32(p));
	return true;
}

/* setsockopt's value: an int as [1], else the bytes */
static bool show_sockopt_in(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len;
	__u8 fl;
	const unsigned char *p = dctx_data(c, arg, SC_CAP_BUF_IN, 0, 0, &len, &fl);
	__u64 optlen = dctx_arg(c, arg + 1);

	if (!p)
		return show_addr(c, arg);
	if (optlen == 4 && len == 4)
		dbuf_printf(c->b, "[%d]", (int)get_u32(p));
	else
		put_bytes(c, p, len, (fl & SC_CHUNK_TRUNC) || optlen > len, 0);
	return true;
}

/* getsockopt's value: an int when 4 bytes came back */
static bool show_sockopt_out(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p = struct_of(c, arg, k);
	const unsigned char *lp = dctx_data(c, arg + 1, SC_CAP_STRUCT_OUT, 0, 4, NULL, NULL);

	if (!p || !lp || get_u32(lp) != 4)
		return show_addr(c, arg);
	dbuf_printf(c->b, "[%d]", (int)get_u32(p));
	return true;
}

/* rt_sigreturn: the signal mask its frame restores */
static bool show_sigframe(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p = dctx_data(c, arg, k->cap, 0, 8, NULL, NULL);

	if (!p)
		return false;
	dbuf_puts(c->b, "{mask=");
	put_sigset(c->b, get_u64(p));
	dbuf_putc(c->b, '}');
	return true;
}

static bool show_sysinfo(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;

	STRUCT_OR_ADDR(p, c, arg, k);
	dbuf_printf(c->b, "{uptime=%lld, loads=[%llu, %llu, %llu], totalram=%llu, freeram=%llu, "
		    "sharedram=%llu, bufferram=%llu, totalswap=%llu, freeswap=%llu, procs=%u, "
		    "totalhigh=%llu, freehigh=%llu, mem_unit=%u}",
		    (long long)get_s64(p), (unsigned long long)get_u64(p + 8),
		    (unsigned long long)get_u64(p + 16), (unsigned long long)get_u64(p + 24),
		    (unsigned long long)get_u64(p + 32), (unsigned long long)get_u64(p + 40),
		    (unsigned long long)get_u64(p + 48), (unsigned long long)get_u64(p + 56),
		    (unsigned long long)get_u64(p + 64), (unsigned long long)get_u64(p + 72),
		    get_u16(p + 80), (unsigned long long)get_u64(p + 88),
		    (unsigned long long)get_u64(p + 96), get_u32(p + 104));
	return true;
}

static const struct xlat xl_fs_magic[] = {
	{ 0xef53, "EXT2_SUPER_MAGIC" }, { 0x01021994, "TMPFS_MAGIC" }, { 0x9fa0, "PROC_SUPER_MAGIC" },
	{ 0x62656572, "SYSFS_MAGIC" }, { 0x794c7630, "OVERLAYFS_SUPER_MAGIC" },
	{ 0x9123683e, "BTRFS_SUPER_MAGIC" }, { 0x58465342, "XFS_SUPER_MAGIC" },
	{ 0x63677270, "CGROUP2_SUPER_MAGIC" }, { 0x27e0eb, "CGROUP_SUPER_MAGIC" },
	{ 0x1373, "DEVFS_SUPER_MAGIC" }, { 0x6969, "NFS_SUPER_MAGIC" },
	{ 0x65735546, "FUSE_SUPER_MAGIC" }, { 0xf97cff8c, "SELINUX_MAGIC" },
	{ 0x73636673, "SECURITYFS_MAGIC" }, { 0x64626720, "DEBUGFS_MAGIC" },
	{ 0x74726163, "TRACEFS_MAGIC" }, { 0xcafe4a11, "BPF_FS_MAGIC" },
	{ 0x858458f6, "RAMFS_MAGIC" }, { 0x1cd1, "DEVPTS_SUPER_MAGIC" },
	{ 0x4d44, "MSDOS_SUPER_MAGIC" }, { 0x2011bab0, "EXFAT_SUPER_MAGIC" },
	{ 0x9660, "ISOFS_SUPER_MAGIC" }, { 0x73717368, "SQUASHFS_MAGIC" },
	{ 0x01021997, "V9FS_MAGIC" }, { 0xff534d42, "CIFS_SUPER_MAGIC" }, XEND
};
static const struct xlat xl_st_flags[] = {
	{ 0x20, "ST_VALID" }, { 0x1, "ST_RDONLY" }, { 0x2, "ST_NOSUID" }, { 0x4, "ST_NODEV" },
	{ 0x8, "ST_NOEXEC" }, { 0x10, "ST_SYNCHRONOUS" }, { 0x40, "ST_MANDLOCK" },
	{ 0x80, "ST_WRITE" }, { 0x100, "ST_APPEND" }, { 0x200, "ST_IMMUTABLE" },
	{ 0x400, "ST_NOATIME" }, { 0x800, "ST_NODIRATIME" }, { 0x1000, "ST_RELATIME" },
	{ 0x2000000, "ST_NOSYMFOLLOW" }, XEND
};

/* struct statfs (x86_64, 120 bytes) as strace shows it */
static bool show_statfs(struct dctx *c, int arg, const struct argkind *k)
{
	const unsigned char *p;
	__u64 type;

	STRUCT_OR_ADDR(p, c, arg, k);
	type = get_u64(p);
	dbuf_puts(c->b, "{f_type=");
	if (xlat_name(xl_fs_magic, type))
		dbuf_puts(c->b, xlat_name(xl_fs_magic, type));
	else
		dbuf_printf(c->b, "%#llx", (unsigned long long)type);
	dbuf_printf(c->b, ", f_bsize=%llu, f_blocks=%llu, f_bfree=%llu, f_bavail=%llu, "
		    "f_files=%llu, f_ffree=%llu, f_fsid={val=[%#x, %#x]}, f_namelen=%llu, "
		    "f_frsize=%llu, f_flags=",
		    (unsigned long long)get_u64(p + 8), (unsigned long long)get_u64(p + 16),
		    (unsigned long long)get_u64(p + 24), (unsigned long long)get_u64(p + 32),
		    (unsigned long long)get_u64(p + 40), (unsigned long long)get_u64(p + 48),
		    get_u32(p + 56), get_u32(p + 60), (unsigned long long)get_u64(p + 64),
		    (unsigned long long)get_u64(p + 72));
	xlat_flags(c->b, xl_st_flags, get_u64(p + 80));
	dbuf_putc(c->b, '}');
	return true;
}

/* getgroups: ret group ids came back; a size of 0 asks only how many */
static bool show_groups(struct dctx *c, int arg, const struct argkind *k)
{
	size_t len, n = c->r->ret;
	const unsigned char *p;

	if (!dctx_arg(c, arg))
		return show_addr(c, arg);
	if (!dctx_arg(c, arg - 1)) {
		dbuf_puts(c->b, "[]");
		return true;
	}
	p = dctx_data(c, arg, k->cap, 0, 0, &len, NULL);
	if (!p)
		return show_addr(c, arg);
	dbuf_putc(c->b, '[');
	for (size_t i = 0; i < n && (i + 1) * 4 <= len; i++)
		dbuf_printf(c->b, i ? ", %u" : "%u", get_u32(p + 4 * i));
	if (n > len / 4)
		dbuf_puts(c->b, ", ...");
	dbuf_putc(c->b, ']');
	return true;
}

/* ---- the kinds ------------------------------------------------------------ */

#define MEM(fn, c, rel, sz, fl) { .show = fn, .cap = c, .len_rel = rel, .size = sz, .flags = fl }
#define M(k) [(k) - A_STR]

const struct argkind mem_kinds[A_NR - A_STR] = {
	M(A_STR) = MEM(show_str, SC_CAP_STR, 0, 0, K_PTR),
	M(A_PATH) = MEM(show_path, SC_CAP_PATH, 0, 0, K_PTR),
	/* getcwd: a path too, cut at ret - 1 (its NUL) */
	M(A_PATH_OUT) = { .show = show_path, .cap = SC_CAP_BUF_OUT, .len_rel = 1,
			  .size = SC_PATH_MAX, .flags = K_PTR | K_OUT, .style = Q_NUL },
	M(A_STRV) = MEM(show_strv, SC_CAP_STRV, 0, 0, K_PTR),
	M(A_ENVP) = MEM(show_envp, SC_CAP_STRV_COUNT, 0, 0, K_PTR),
	M(A_BUF_IN) = MEM(show_buf_in, SC_CAP_BUF_IN, 1, 0, K_PTR),
	M(A_BUF_OUT) = MEM(show_buf_out, SC_CAP_BUF_OUT, 1, 0, K_PTR | K_OUT),
	M(A_BUF_OUT_HEX) = { .show = show_buf_out, .cap = SC_CAP_BUF_OUT, .len_rel = 1,
			    .flags = K_PTR | K_OUT, .style = Q_HEX },
	M(A_BUF_OUT_STR) = { .show = show_buf_out, .cap = SC_CAP_BUF_OUT, .len_rel = 1,
			    .flags = K_PTR | K_OUT, .style = Q_NUL },
	M(A_IOV_IN) = MEM(show_iov, SC_CAP_IOV_IN, 1, 0, K_PTR),
	M(A_IOV_OUT) = MEM(show_iov, SC_CAP_IOV_OUT, 1, 0, K_PTR | K_OUT),
	M(A_FDS_OUT) = MEM(show_fds_out, SC_CAP_STRUCT_OUT, 0, 8, K_PTR | K_OUT),
	M(A_INT_OUT) = MEM(show_int_out, SC_CAP_STRUCT_OUT, 0, 4, K_PTR | K_OUT),
	M(A_STAT_OUT) = MEM(show_stat, SC_CAP_STRUCT_OUT, 0, 144, K_PTR | K_OUT),
	M(A_STATX_OUT) = MEM(show_statx, SC_CAP_STRUCT_OUT, 0, 48, K_PTR | K_OUT),
	M(A_OPEN_HOW) = MEM(show_open_how, SC_CAP_STRUCT_IN, 0, 24, K_PTR),
	M(A_UTIMES) = MEM(show_utimes, SC_CAP_STRUCT_IN, 0, 32, K_PTR),
	M(A_TIMESPEC_IN) = MEM(show_timespec, SC_CAP_STRUCT_IN, 0, 16, K_PTR),
	/* select, pselect6: nfds (the first argument) counts the bits */
	M(A_FDSET_R) = MEM(show_fdset, SC_CAP_ARRAY_INOUT, -1, 1, K_PTR),
	M(A_FDSET_W) = MEM(show_fdset, SC_CAP_ARRAY_INOUT, -2, 1, K_PTR),
	M(A_FDSET_X) = MEM(show_fdset, SC_CAP_ARRAY_INOUT, -3, 1, K_PTR),
	M(A_TIMEVAL_INOUT) = MEM(show_timeval, SC_CAP_STRUCT_INOUT, 0, 16, K_PTR),
	/* ppoll, pselect6: the time left is written back */
	M(A_TIMESPEC_INOUT) = MEM(show_timespec, SC_CAP_STRUCT_INOUT, 0, 16, K_PTR),
	M(A_TIMESPEC_OUT) = MEM(show_timespec, SC_CAP_STRUCT_OUT, 0, 16, K_PTR | K_OUT),
	M(A_TIMEVAL_IN) = MEM(show_timeval, SC_CAP_STRUCT_IN, 0, 16, K_PTR),
	M(A_TIMEVAL_OUT) = MEM(show_timeval, SC_CAP_STRUCT_OUT, 0, 16, K_PTR | K_OUT),
	M(A_ITIMERSPEC_IN) = MEM(show_itimerspec, SC_CAP_STRUCT_IN, 0, 32, K_PTR),
	M(A_ITIMERSPEC_OUT) = MEM(show_itimerspec, SC_CAP_STRUCT_OUT, 0, 32, K_PTR | K_OUT),
	M(A_ITIMERVAL_IN) = MEM(show_itimerval, SC_CAP_STRUCT_IN, 0, 32, K_PTR),
	M(A_ITIMERVAL_OUT) = MEM(show_itimerval, SC_CAP_STRUCT_OUT, 0, 32, K_PTR | K_OUT),
	M(A_RUSAGE_OUT) = MEM(show_rusage, SC_CAP_STRUCT_OUT, 0, 32, K_PTR | K_OUT),
	M(A_TIME_OUT) = MEM(show_time_out, SC_CAP_STRUCT_OUT, 0, 8, K_PTR | K_OUT),
	M(A_SIGSET_IN) = MEM(show_sigset, SC_CAP_STRUCT_IN, 0, 8, K_PTR),
	M(A_SIGSET_OUT) = MEM(show_sigset, SC_CAP_STRUCT_OUT, 0, 8, K_PTR | K_OUT),
	M(A_SIGACTION_IN) = MEM(show_sigaction, SC_CAP_STRUCT_IN, 0, 32, K_PTR),
	M(A_SIGACTION_OUT) = MEM(show_sigaction, SC_CAP_STRUCT_OUT, 0, 32, K_PTR | K_OUT),
	M(A_STACK_IN) = MEM(show_stack, SC_CAP_STRUCT_IN, 0, 24, K_PTR),
	M(A_STACK_OUT) = MEM(show_stack, SC_CAP_STRUCT_OUT, 0, 24, K_PTR | K_OUT),
	M(A_WSTATUS) = MEM(show_wstatus, SC_CAP_STRUCT_OUT, 0, 4, K_PTR | K_OUT),
	M(A_RLIMIT_IN) = MEM(show_rlimit, SC_CAP_STRUCT_IN, 0, 16, K_PTR),
	M(A_RLIMIT_OUT) = MEM(show_rlimit, SC_CAP_STRUCT_OUT, 0, 16, K_PTR | K_OUT),
	M(A_UTSNAME) = MEM(show_utsname, SC_CAP_STRUCT_OUT, 0, 130, K_PTR | K_OUT),
	/* the mask's size is the argument before it */
	M(A_CPUSET_IN) = MEM(show_cpuset, SC_CAP_BUF_IN, -1, 128, K_PTR),
	M(A_CPUSET_OUT) = MEM(show_cpuset, SC_CAP_BUF_OUT, -1, 128, K_PTR | K_OUT),
	M(A_CLONE_ARGS) = MEM(show_clone_args, SC_CAP_STRUCT_IN, 0, 88, K_PTR),
	M(A_EPOLL_EVENT) = MEM(show_epoll_event, SC_CAP_STRUCT_IN, 0, 12, K_PTR),
	/* arrays of elements counted by an argument: `size` is an element's */
	M(A_EPOLL_EVENTS) = MEM(show_epoll_events, SC_CAP_ARRAY_OUT, 1, 12, K_PTR | K_OUT),
	M(A_POLLFDS) = MEM(show_pollfds, SC_CAP_ARRAY_INOUT, 1, 8, K_PTR),
	M(A_DIRENTS) = MEM(show_dirents, SC_CAP_DIRENTS, 0, 0, K_PTR | K_OUT),
	/* the mask in the frame: after pretcode, uc_flags, uc_link, uc_stack
	 * and uc_mcontext (x86_64), the return address popped */
	M(A_SIGFRAME) = MEM(show_sigframe, SC_CAP_SIGMASK_SP, 0, 8 + 8 + 24 + 256, 0),
	M(A_SYSINFO) = MEM(show_sysinfo, SC_CAP_STRUCT_OUT, 0, 112, K_PTR | K_OUT),
	M(A_STATFS) = MEM(show_statfs, SC_CAP_STRUCT_OUT, 0, 120, K_PTR | K_OUT),
	/* ret (a count) of 4-byte ids: the bytes are ret * 4, read as the
	 * size given, up to 64 groups */
	M(A_GROUPS_OUT) = MEM(show_groups, SC_CAP_STRUCT_OUT, 0, 256, K_OUT),
	M(A_SOCKADDR_IN) = MEM(show_sockaddr_in, SC_CAP_BUF_IN, 1, 128, K_PTR),
	M(A_SOCKADDR_OUT) = MEM(show_sockaddr_out, SC_CAP_STRUCT_OUT, 0, 128, K_PTR | K_OUT),
	M(A_SOCKLEN_OUT) = MEM(show_socklen_out, SC_CAP_STRUCT_OUT, 0, 4, K_PTR | K_OUT),
	M(A_MSGHDR_IN) = MEM(show_msghdr, SC_CAP_MSGHDR_IN, 0, 0, K_PTR),
	M(A_MSGHDR_OUT) = MEM(show_msghdr, SC_CAP_MSGHDR_OUT, 0, 0, K_PTR),
	M(A_SOCKOPT_IN) = MEM(show_sockopt_in, SC_CAP_BUF_IN, 1, 0, K_PTR),
	M(A_SOCKOPT_OUT) = MEM(show_sockopt_out, SC_CAP_STRUCT_OUT, 0, 4, K_PTR | K_OUT),
};
