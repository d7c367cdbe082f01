/* Unit tests of syscall/decode: synthetic records (header + chunks laid
 * out as BPF queues them) rendered as strace text and as JSON, the
 * capture specs, and the -e classes.  The expected lines are strace 6.1's
 * for the same calls. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "test.h"
#include "report/json.h"
#include "syscall/decode.h"

/* ---- building records --------------------------------------------------- */

static union {
	struct sc_record r;
	unsigned char bytes[sizeof(struct sc_record) + SC_DATA_MAX];
} rec;
static int strsize = 32;

/* A finished call with these registers and return value, no chunks. */
static void call(long long ret, __u64 a0, __u64 a1, __u64 a2, __u64 a3, __u64 a4, __u64 a5)
{
	memset(&rec, 0, sizeof(rec));
	rec.r.kind = SC_REC_CALL;
	rec.r.args[0] = a0;
	rec.r.args[1] = a1;
	rec.r.args[2] = a2;
	rec.r.args[3] = a3;
	rec.r.args[4] = a4;
	rec.r.args[5] = a5;
	rec.r.ret = ret;
	rec.r.exit_ns = 1;
}

#define CALL(ret, ...) call_v(ret, (__u64[SC_ARGS]){ __VA_ARGS__ })

static void call_v(long long ret, const __u64 *a)
{
	call(ret, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* Appends a chunk, 8-byte aligned as BPF lays them out. */
static void chunk(int arg, int cap, int idx, int flags, const void *data, size_t len)
{
	struct sc_chunk *ch = (void *)(rec.bytes + sizeof(rec.r) + rec.r.data_len);

	ch->arg = arg;
	ch->cap = cap;
	ch->idx = idx;
	ch->flags = flags;
	ch->len = len;
	if (len)
		memcpy(ch + 1, data, len);
	rec.r.data_len += SC_CHUNK_SIZE(len);
}

static void path_chunk(int arg, const char *s)
{
	chunk(arg, SC_CAP_PATH, 0, 0, s, strlen(s));
}

static void str_chunk(int arg, const char *s)
{
	chunk(arg, SC_CAP_STR, 0, 0, s, strlen(s));
}

static size_t rec_size(void)
{
	return sizeof(rec.r) + rec.r.data_len;
}

/* The info of a syscall with a decoder, its arguments unnamed. */
static struct sc_info info_of(const char *name, int nargs)
{
	static const struct sc_argdesc unnamed[SC_ARGS];
	struct sc_info si;

	memset(&si, 0, sizeof(si));
	si.name = name;
	si.nargs = nargs;
	si.args = nargs > 0 ? unnamed : NULL;
	si.dec = sc_decoder_find(name);
	return si;
}

static char outbuf[8192];

static const char *render_si(const struct sc_info *si, bool json)
{
	struct sc_fmt_opts o = { .strsize = strsize };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return "(open_memstream failed)";
	if (json)
		sc_print_json(f, si, &rec.r, rec_size(), &o);
	else
		sc_print_call(f, si, &rec.r, rec_size(), &o);
	fclose(f);
	snprintf(outbuf, sizeof(outbuf), "%s", buf);
	free(buf);
	return outbuf;
}

static const char *text(const char *name)
{
	struct sc_info si = info_of(name, 6);

	return render_si(&si, false);
}

/* ---- a small JSON checker ------------------------------------------------ */

static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* A string: escapes valid, no raw control characters, valid UTF-8. */
static const char *json_string(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;

	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		if (*s < 0x20)
			return NULL;
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
						return NULL;
				s += 5;
			} else if (*s && strchr("\"\\/bfnrt", *s)) {
				s++;
			} else {
				return NULL;
			}
		} else if (*s < 0x80) {
			s++;
		} else {
			int n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc2 ? 2 : 0;

			if (!n || *s > 0xf4)
				return NULL;
			for (int i = 1; i < n; i++)
				if ((s[i] & 0xc0) != 0x80)
					return NULL;
			s += n;
		}
	}
	return (const char *)s + 1;
}

static const char *json_number(const char *p)
{
	const char *start;

	if (*p == '-')
		p++;
	start = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == start || (*start == '0' && p - start > 1))
		return NULL;
	return p;
}

static const char *json_list(const char *p, char close, bool members)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (members) {
			p = json_string(json_ws(p));
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	p = json_ws(p);
	switch (*p) {
	case '{': return json_list(p, '}', true);
	case '[': return json_list(p, ']', false);
	case '"': return json_string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	default: return json_number(p);
	}
}

static bool json_valid(const char *doc)
{
	const char *end = json_value(doc);

	return end && !*json_ws(end);
}

/* The JSON members of the current record inside braces. */
static const char *json_of(const struct sc_info *si)
{
	static char doc[sizeof(outbuf) + 2];

	snprintf(doc, sizeof(doc), "{%s}", render_si(si, true));
	return doc;
}

/* ---- files ------------------------------------------------------------------ */

TEST(sysdecode_openat)
{
	CALL(3, -100, 0x1000, 02000000, 0);
	path_chunk(1, "/etc/hostname");
	CHECK_STR(text("openat"), "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY|O_CLOEXEC) = 3");

	CALL(-2, -100, 0x1000, 0, 0);
	path_chunk(1, "/nope");
	CHECK_STR(text("openat"),
		  "openat(AT_FDCWD, \"/nope\", O_RDONLY) = -1 ENOENT (No such file or directory)");

	/* the mode only with O_CREAT or O_TMPFILE */
	CALL(3, -100, 0x1000, 01101, 0644);
	path_chunk(1, "/tmp/x");
	CHECK_STR(text("openat"), "openat(AT_FDCWD, \"/tmp/x\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3");
	CALL(4, -100, 0x1000, 020200002, 0600);
	path_chunk(1, "/tmp");
	CHECK_STR(text("openat"), "openat(AT_FDCWD, \"/tmp\", O_RDWR|O_TMPFILE, 0600) = 4");
	CALL(3, 5, 0x1000, 0x8000 | 04010000 | 0100000, 0);
	path_chunk(1, "x");
	CHECK_STR(text("openat"), "openat(5, \"x\", O_RDONLY|O_SYNC|O_LARGEFILE) = 3");
}

TEST(sysdecode_unknown_flag_bits)
{
	CALL(3, -100, 0x1000, 0x40000000, 0);
	path_chunk(1, "/etc/hostname");
	CHECK_STR(text("openat"), "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY|0x40000000) = 3");
	CALL(-22, 0x7f0000000000, 4096, 0x2 | 0x80000000);
	CHECK_STR(text("mprotect"),
		  "mprotect(0x7f0000000000, 4096, PROT_WRITE|0x80000000) = -1 EINVAL (Invalid argument)");
	/* an enum without a name: the number */
	CALL(-22, 3, 0, 7);
	CHECK_STR(text("lseek"), "lseek(3, 0, 7) = -1 EINVAL (Invalid argument)");
	CALL(-22, 12345, 0x7ffd0000);
	CHECK_STR(text("clock_gettime"),
		  "clock_gettime(12345, 0x7ffd0000) = -1 EINVAL (Invalid argument)");
}

TEST(sysdecode_read_write)
{
	CALL(7, 3, 0x7ffd0000, 4096);
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "myhost\n", 7);
	CHECK_STR(text("read"), "read(3, \"myhost\\n\", 4096) = 7");

	/* read 0 bytes: nothing was copied */
	CALL(0, 3, 0x7ffd0000, 4096);
	CHECK_STR(text("read"), "read(3, \"\", 4096) = 0");

	/* failed: the buffer's address */
	CALL(-11, 3, 0x7ffd0000, 4096);
	CHECK_STR(text("read"),
		  "read(3, 0x7ffd0000, 4096) = -1 EAGAIN (Resource temporarily unavailable)");

	CALL(3, 3, 0x7ffd0000, 3, 1);
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "m\n", 2);
	/* 2 copied of 3 returned: cut */
	CHECK_STR(text("pread64"), "pread64(3, \"m\\n\"..., 3, 1) = 3");

	/* nothing to copy for an empty write */
	CALL(0, 1, 0x5000, 0);
	CHECK_STR(text("write"), "write(1, \"\", 0) = 0");

	CALL(1, 3, 0x5000, 1, 100);
	chunk(1, SC_CAP_BUF_IN, 0, 0, "x", 1);
	CHECK_STR(text("pwrite64"), "pwrite64(3, \"x\", 1, 100) = 1");
}

TEST(sysdecode_strsize_cut)
{
	const char *s = "hello world, this is a long string of fifty bytes\n";

	/* BPF copied strsize bytes and said the memory went on */
	strsize = 31;
	CALL(50, 1, 0x5000, 50);
	chunk(1, SC_CAP_BUF_IN, 0, SC_CHUNK_TRUNC, s, 31);
	CHECK_STR(text("write"), "write(1, \"hello world, this is a long str\"..., 50) = 50");
	/* more was copied than -s asks: cut here too */
	CALL(50, 1, 0x5000, 50);
	chunk(1, SC_CAP_BUF_IN, 0, 0, s, 50);
	CHECK_STR(text("write"), "write(1, \"hello world, this is a long str\"..., 50) = 50");
	/* a string cut the same way */
	strsize = 4;
	CALL(15, 0x1000, 3);
	chunk(0, SC_CAP_STR, 0, SC_CHUNK_TRUNC, "myme", 4);
	CHECK_STR(text("memfd_create"), "memfd_create(\"myme\"..., MFD_CLOEXEC|MFD_ALLOW_SEALING) = 15");
	/* never a path (strace applies -s to data only) */
	CALL(-2, -100, 0x1000, 0, 0);
	path_chunk(1, "/etc/hostname");
	CHECK_STR(text("openat"), "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = -1 ENOENT (No "
		  "such file or directory)");
	strsize = 0;
	CALL(5, 1, 0x5000, 5);
	chunk(1, SC_CAP_BUF_IN, 0, 0, "hello", 5);
	CHECK_STR(text("write"), "write(1, \"\"..., 5) = 5");
	strsize = 32;
}

TEST(sysdecode_escapes)
{
	/* strace's quoting: short octal unless a digit 0-7 follows */
	static const char bytes[] = "\0\1\2\0039\377\t\n\r\\\"\177\200 a\v\f\0001";

	CALL(19, 3, 0x5000, 19);
	chunk(1, SC_CAP_BUF_IN, 0, 0, bytes, 19);
	CHECK_STR(text("write"),
		  "write(3, \"\\0\\1\\2\\39\\377\\t\\n\\r\\\\\\\"\\177\\200 a\\v\\f\\0001\", 19) = 19");
	/* getrandom: every byte in hex, like strace */
	CALL(4, 0x5000, 4, 1);
	chunk(0, SC_CAP_BUF_OUT, 0, 0, "\xd3\x70\x00\x41", 4);
	CHECK_STR(text("getrandom"), "getrandom(\"\\xd3\\x70\\x00\\x41\", 4, GRND_NONBLOCK) = 4");
}

TEST(sysdecode_simple_calls)
{
	int fds[2] = { 3, 4 };

	CALL(0, 3);
	CHECK_STR(text("close"), "close(3) = 0");
	CALL(0, 0x7ffd0000, 0);
	chunk(0, SC_CAP_STRUCT_OUT, 0, 0, fds, 8);
	CHECK_STR(text("pipe2"), "pipe2([3, 4], 0) = 0");
	CALL(0, 0x7ffd0000, 02004000);
	chunk(0, SC_CAP_STRUCT_OUT, 0, 0, fds, 8);
	CHECK_STR(text("pipe2"), "pipe2([3, 4], O_NONBLOCK|O_CLOEXEC) = 0");
	CALL(12345);
	CHECK_STR(text("getpid"), "getpid() = 12345");
	CALL(0, 1234, 15);
	CHECK_STR(text("kill"), "kill(1234, SIGTERM) = 0");
	CALL(0, 1234, 0);
	CHECK_STR(text("kill"), "kill(1234, 0) = 0");
	CALL(0, 1, 2, 40);
	CHECK_STR(text("tgkill"), "tgkill(1, 2, SIGRT_8) = 0");
	CALL(022, 077);
	CHECK_STR(text("umask"), "umask(077) = 022");
	CALL(0, 0x1000, 04);
	path_chunk(0, "/etc");
	CHECK_STR(text("access"), "access(\"/etc\", R_OK) = 0");
	CALL(0, 0x1000, 0);
	path_chunk(0, "/etc");
	CHECK_STR(text("access"), "access(\"/etc\", F_OK) = 0");
	CALL(0, -100, 0x1000, 0x200);
	path_chunk(1, "/tmp/d");
	CHECK_STR(text("unlinkat"), "unlinkat(AT_FDCWD, \"/tmp/d\", AT_REMOVEDIR) = 0");
	CALL(0, 3, 6);
	CHECK_STR(text("flock"), "flock(3, LOCK_EX|LOCK_NB) = 0");
	CALL(0, 3, 0, 0);
	CHECK_STR(text("lseek"), "lseek(3, 0, SEEK_SET) = 0");
	CALL(15, 0x1000, 3);
	str_chunk(0, "mymem");
	CHECK_STR(text("memfd_create"), "memfd_create(\"mymem\", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 15");
	CALL(0, 0x1000, 020666, 0x103);
	path_chunk(0, "/dev/x");
	CHECK_STR(text("mknod"), "mknod(\"/dev/x\", S_IFCHR|0666, makedev(0x1, 0x3)) = 0");
	CALL(0, 0x1000, 010644, 0);
	path_chunk(0, "/tmp/f");
	CHECK_STR(text("mknod"), "mknod(\"/tmp/f\", S_IFIFO|0644) = 0");
}

TEST(sysdecode_fcntl)
{
	CALL(0x8002, 3, 3);
	CHECK_STR(text("fcntl"), "fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)");
	CALL(1, 3, 1);
	CHECK_STR(text("fcntl"), "fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)");
	CALL(0, 3, 1);
	CHECK_STR(text("fcntl"), "fcntl(3, F_GETFD) = 0");
	CALL(0, 3, 2, 1);
	CHECK_STR(text("fcntl"), "fcntl(3, F_SETFD, FD_CLOEXEC) = 0");
	CALL(0, 3, 4, 06000);
	CHECK_STR(text("fcntl"), "fcntl(3, F_SETFL, O_RDONLY|O_APPEND|O_NONBLOCK) = 0");
	CALL(11, 3, 1030, 10);
	CHECK_STR(text("fcntl"), "fcntl(3, F_DUPFD_CLOEXEC, 10) = 11");
	CALL(-25, 3, 0x5401, 0x7ffd0000);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, TCGETS, 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for device)");
	CALL(0, 3, 0xc0de1234, 0);
	CHECK_STR(text("ioctl"), "ioctl(3, _IOC(_IOC_READ|_IOC_WRITE, 0x12, 0x34, 0xde), 0) = 0");
}

TEST(sysdecode_stat)
{
	unsigned char st[144] = { 0 };
	unsigned int mode = 040755;
	long long size = 4096, rdev = 0x103;

	memcpy(st + 24, &mode, 4);
	memcpy(st + 48, &size, 8);
	CALL(0, -100, 0x1000, 0x7ffd0000, 0);
	path_chunk(1, "/etc");
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, st, sizeof(st));
	CHECK_STR(text("newfstatat"),
		  "newfstatat(AT_FDCWD, \"/etc\", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0");

	mode = 0100644;
	size = 7;
	memcpy(st + 24, &mode, 4);
	memcpy(st + 48, &size, 8);
	CALL(0, 3, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, st, sizeof(st));
	CHECK_STR(text("fstat"), "fstat(3, {st_mode=S_IFREG|0644, st_size=7, ...}) = 0");

	mode = 041777;
	memcpy(st + 24, &mode, 4);
	CALL(0, 0x1000, 0x7ffd0000);
	path_chunk(0, "/tmp");
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, st, sizeof(st));
	CHECK_STR(text("stat"), "stat(\"/tmp\", {st_mode=S_IFDIR|S_ISVTX|0777, st_size=7, ...}) = 0");

	mode = 020666;
	memcpy(st + 24, &mode, 4);
	memcpy(st + 40, &rdev, 8);
	CALL(0, -100, 0x1000, 0x7ffd0000, 0x100);
	path_chunk(1, "/dev/null");
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, st, sizeof(st));
	CHECK_STR(text("newfstatat"),
		  "newfstatat(AT_FDCWD, \"/dev/null\", {st_mode=S_IFCHR|0666, "
		  "st_rdev=makedev(0x1, 0x3), ...}, AT_SYMLINK_NOFOLLOW) = 0");

	/* failed: nothing was written, the address */
	CALL(-2, -100, 0x1000, 0x7ffd0000, 0x100);
	path_chunk(1, "/nope");
	CHECK_STR(text("newfstatat"),
		  "newfstatat(AT_FDCWD, \"/nope\", 0x7ffd0000, AT_SYMLINK_NOFOLLOW) = "
		  "-1 ENOENT (No such file or directory)");
}

TEST(sysdecode_statx_openat2)
{
	unsigned char stx[48] = { 0 };
	unsigned int mask = 0x1fff;
	unsigned short mode = 0100755;
	unsigned long long size = 3;
	unsigned long long how[3] = { 02000000, 0, 0xc };

	memcpy(stx, &mask, 4);
	memcpy(stx + 28, &mode, 2);
	memcpy(stx + 40, &size, 8);
	CALL(0, -100, 0x1000, 0x4100, 0xfff, 0x7ffd0000);
	path_chunk(1, "/etc/hostname");
	chunk(4, SC_CAP_STRUCT_OUT, 0, 0, stx, sizeof(stx));
	CHECK_STR(text("statx"),
		  "statx(AT_FDCWD, \"/etc/hostname\", AT_STATX_DONT_SYNC|AT_SYMLINK_NOFOLLOW, "
		  "STATX_ALL, {stx_mask=STATX_ALL|STATX_MNT_ID, stx_attributes=0, "
		  "stx_mode=S_IFREG|0755, stx_size=3, ...}) = 0");

	CALL(-18, -100, 0x1000, 0x7ffd0000, 24);
	path_chunk(1, "/etc/hostname");
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, how, sizeof(how));
	CHECK_STR(text("openat2"),
		  "openat2(AT_FDCWD, \"/etc/hostname\", {flags=O_RDONLY|O_CLOEXEC, "
		  "resolve=RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH}, 24) = -1 EXDEV (Invalid cross-device link)");
}

TEST(sysdecode_iovec)
{
	unsigned long long iov[4] = { 0x5000, 3, 0x6000, 6 };
	unsigned long long iov2[4] = { 0x5000, 2, 0x6000, 100 };

	CALL(9, 3, 0x7ffd0000, 2);
	chunk(1, SC_CAP_IOV_IN, 0, 0, iov, sizeof(iov));
	chunk(1, SC_CAP_BUF_IN, 0, 0, "abc", 3);
	chunk(1, SC_CAP_BUF_IN, 1, 0, "defgh\n", 6);
	CHECK_STR(text("writev"),
		  "writev(3, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"defgh\\n\", iov_len=6}], 2) = 9");

	/* readv: 10 bytes came back over both */
	CALL(10, 3, 0x7ffd0000, 2);
	chunk(1, SC_CAP_IOV_OUT, 0, 0, iov2, sizeof(iov2));
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "he", 2);
	/* BPF marks it cut: fewer bytes than the element holds */
	chunk(1, SC_CAP_BUF_OUT, 1, SC_CHUNK_TRUNC, "llo worl", 8);
	CHECK_STR(text("readv"),
		  "readv(3, [{iov_base=\"he\", iov_len=2}, {iov_base=\"llo worl\", iov_len=100}], 2) = 10");

	CALL(3, 3, 0x7ffd0000, 1, 0, 0, 8);
	chunk(1, SC_CAP_IOV_OUT, 0, 0, iov, 16);
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "xyz", 3);
	CHECK_STR(text("preadv2"),
		  "preadv2(3, [{iov_base=\"xyz\", iov_len=3}], 1, 0, RWF_NOWAIT) = 3");

	/* 9 elements given, 8 copied */
	CALL(3, 3, 0x7ffd0000, 9);
	chunk(1, SC_CAP_IOV_IN, 0, SC_CHUNK_TRUNC, iov, 16);
	chunk(1, SC_CAP_BUF_IN, 0, 0, "abc", 3);
	CHECK_STR(text("writev"), "writev(3, [{iov_base=\"abc\", iov_len=3}, ...], 9) = 3");
	CALL(0, 3, 0x7ffd0000, 0);
	CHECK_STR(text("writev"), "writev(3, [], 0) = 0");
	/* the array could not be read */
	CALL(-14, 3, 0x7ffd0000, 2);
	chunk(1, SC_CAP_IOV_IN, 0, SC_CHUNK_FAULT, NULL, 0);
	CHECK_STR(text("writev"), "writev(3, 0x7ffd0000, 2) = -1 EFAULT (Bad address)");
	/* strsize was spent on the first element */
	strsize = 2;
	CALL(9, 3, 0x7ffd0000, 2);
	chunk(1, SC_CAP_IOV_IN, 0, 0, iov, sizeof(iov));
	chunk(1, SC_CAP_BUF_IN, 0, SC_CHUNK_TRUNC, "ab", 2);
	CHECK_STR(text("writev"),
		  "writev(3, [{iov_base=\"ab\"..., iov_len=3}, {iov_base=\"\"..., iov_len=6}], 2) = 9");
	strsize = 32;
}

TEST(sysdecode_faults_and_null)
{
	/* the path could not be read: its address */
	CALL(-14, -100, 0x1234, 0, 0);
	chunk(1, SC_CAP_STR, 0, SC_CHUNK_FAULT, NULL, 0);
	CHECK_STR(text("openat"), "openat(AT_FDCWD, 0x1234, O_RDONLY) = -1 EFAULT (Bad address)");
	/* not captured at all (the record was full): the address too */
	CALL(-14, -100, 0x1234, 0, 0);
	CHECK_STR(text("openat"), "openat(AT_FDCWD, 0x1234, O_RDONLY) = -1 EFAULT (Bad address)");
	CALL(-14, 0, 0);
	CHECK_STR(text("access"), "access(NULL, F_OK) = -1 EFAULT (Bad address)");
	CALL(0, 3, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, SC_CHUNK_FAULT, NULL, 0);
	CHECK_STR(text("fstat"), "fstat(3, 0x7ffd0000) = 0");
	/* a struct shorter than its size is not used */
	CALL(0, 1, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, "12345678", 8);
	CHECK_STR(text("clock_gettime"), "clock_gettime(CLOCK_MONOTONIC, 0x7ffd0000) = 0");
}

TEST(sysdecode_memory)
{
	CALL(0x7f1234560000, 0, 8192, 3, 0x22, -1, 0);
	CHECK_STR(text("mmap"),
		  "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f1234560000");
	CALL(0x10000000, 0x10000000, 4096, 5, 0x1 | 0x10 | 0x20 | 0x20000 | 0x4000 | 0x8000 | 0x8000000,
	     -1, 0x26000);
	CHECK_STR(text("mmap"),
		  "mmap(0x10000000, 4096, PROT_READ|PROT_EXEC, MAP_SHARED|MAP_FIXED|MAP_ANONYMOUS|"
		  "MAP_NORESERVE|MAP_POPULATE|MAP_STACK|2<<MAP_HUGE_SHIFT, -1, 0x26000) = 0x10000000");
	CALL(-12, 0, 4096, 0, 0x802, 3, 0);
	CHECK_STR(text("mmap"),
		  "mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE|MAP_DENYWRITE, 3, 0) = "
		  "-1 ENOMEM (Cannot allocate memory)");
	CALL(0x558ab1227000, 0);
	CHECK_STR(text("brk"), "brk(NULL) = 0x558ab1227000");
	CALL(0, 0x7f0000000000, 8192, 4);
	CHECK_STR(text("madvise"), "madvise(0x7f0000000000, 8192, MADV_DONTNEED) = 0");
	CALL(0x7f0000100000, 0x7f0000000000, 8192, 16384, 1, 0);
	CHECK_STR(text("mremap"),
		  "mremap(0x7f0000000000, 8192, 16384, MREMAP_MAYMOVE) = 0x7f0000100000");
	CALL(0x7f0000200000, 0x7f0000000000, 8192, 16384, 3, 0x7f0000200000);
	CHECK_STR(text("mremap"),
		  "mremap(0x7f0000000000, 8192, 16384, MREMAP_MAYMOVE|MREMAP_FIXED, 0x7f0000200000) = "
		  "0x7f0000200000");
	CALL(0, 0x7f0000000000, 4096, 3);
	CHECK_STR(text("msync"), "msync(0x7f0000000000, 4096, MS_ASYNC|MS_INVALIDATE) = 0");
}

TEST(sysdecode_noret_unfinished)
{
	CALL(0, 0);
	rec.r.flags = SC_F_NORET;
	rec.r.exit_ns = 0;
	CHECK_STR(text("exit_group"), "exit_group(0) = ?");
	/* still blocked when tracing stopped: nothing came back yet */
	CALL(0, 0, 0x7ffd0000, 4096);
	rec.r.flags = SC_F_UNFINISHED;
	CHECK_STR(text("read"), "read(0, 0x7ffd0000, 4096) = ?");
}

TEST(sysdecode_errors)
{
	CALL(-512, 3, 0x7ffd0000, 4096);
	CHECK_STR(text("read"),
		  "read(3, 0x7ffd0000, 4096) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	CALL(-516, 0x7ffd0000, 0);
	CHECK_STR(text("nanosleep"),
		  "nanosleep(0x7ffd0000, NULL) = ? ERESTART_RESTARTBLOCK (Interrupted by signal)");
	CALL(-515, 3, 0x1234, 0);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0) = -1 ENOIOCTLCMD (No ioctl command)");
	CALL(-600, 3);
	CHECK_STR(text("close"), "close(3) = -1 600 (Unknown error 600)");
	CALL(-4095, 3);
	CHECK_STR(text("close"), "close(3) = -1 4095 (Unknown error 4095)");
	/* below -4095 it is a value */
	CALL(-4096, 3, 0, 1);
	CHECK_STR(text("lseek"), "lseek(3, 0, SEEK_CUR) = -4096");
	CHECK_STR(sc_errno_name(2), "ENOENT");
	CHECK_STR(sc_errno_text(2), "No such file or directory");
	CHECK_STR(sc_errno_name(512), "ERESTARTSYS");
	CHECK(sc_errno_name(600) == NULL);
	CHECK_STR(sc_errno_text(600), "Unknown error");
}

TEST(sysdecode_execve)
{
	unsigned long long argv[3] = { 0x7ffd1000, 0x7ffd1010, 0 };

	CALL(0, 0x1000, 0x7ffd0000, 0x7ffd12345678);
	path_chunk(0, "/bin/true");
	chunk(1, SC_CAP_STRV, 0, 0, argv, sizeof(argv));
	chunk(1, SC_CAP_STR, 0, 0, "true", 4);
	chunk(1, SC_CAP_STR, 1, 0, "--x", 3);
	CHECK_STR(text("execve"), "execve(\"/bin/true\", [\"true\", \"--x\"], 0x7ffd12345678) = 0");
	/* no NULL among the pointers read, an element not copied */
	CALL(0, 0x1000, 0x7ffd0000, 0x7ffd12345678);
	path_chunk(0, "/bin/true");
	chunk(1, SC_CAP_STRV, 0, SC_CHUNK_TRUNC, argv, 16);
	chunk(1, SC_CAP_STR, 0, 0, "true", 4);
	CHECK_STR(text("execve"),
		  "execve(\"/bin/true\", [\"true\", 0x7ffd1010, ...], 0x7ffd12345678) = 0");
	/* not one pointer read */
	CALL(-14, 0x1000, 0x7ffd0000, 0);
	path_chunk(0, "/bin/true");
	chunk(1, SC_CAP_STRV, 0, SC_CHUNK_TRUNC, NULL, 0);
	CHECK_STR(text("execve"), "execve(\"/bin/true\", 0x7ffd0000, NULL) = -1 EFAULT (Bad address)");
}

TEST(sysdecode_counts_and_frames)
{
	unsigned long long argv[2] = { 0x7ffd1000, 0 }, si[14] = { 3397, 69952, 82720, 121344,
		25276026880ULL, 24662409216ULL, 9166848, 3375104, 0, 0, 92, 0, 0, 1 };
	unsigned int n = 41;
	unsigned long long mask = 1ULL << (2 - 1);
	char longpath[300];

	/* envp: its address and how many strings it holds */
	CALL(0, 0x1000, 0x7ffd0000, 0x7ffd12345678);
	path_chunk(0, "/bin/true");
	chunk(1, SC_CAP_STRV, 0, 0, argv, sizeof(argv));
	chunk(1, SC_CAP_STR, 0, 0, "true", 4);
	chunk(2, SC_CAP_STRV_COUNT, 0, 0, &n, 4);
	CHECK_STR(text("execve"),
		  "execve(\"/bin/true\", [\"true\"], 0x7ffd12345678 /* 41 vars */) = 0");
	/* getdents64: the entries that came back */
	n = 7;
	CALL(224, 3, 0x55f6bb180790, 32768);
	chunk(1, SC_CAP_DIRENTS, 0, 0, &n, 4);
	CHECK_STR(text("getdents64"), "getdents64(3, 0x55f6bb180790 /* 7 entries */, 32768) = 224");
	CALL(-9, 3, 0x55f6bb180790, 32768);
	CHECK_STR(text("getdents64"),
		  "getdents64(3, 0x55f6bb180790, 32768) = -1 EBADF (Bad file descriptor)");
	/* rt_sigreturn: the mask its frame restores; ret is the interrupted call's */
	CALL(61);
	chunk(0, SC_CAP_SIGMASK_SP, 0, 0, &mask, 8);
	CHECK_STR(text("rt_sigreturn"), "rt_sigreturn({mask=[INT]}) = 61");
	CALL(0, 0x7ffd0000);
	chunk(0, SC_CAP_STRUCT_OUT, 0, 0, si, sizeof(si));
	CHECK_STR(text("sysinfo"),
		  "sysinfo({uptime=3397, loads=[69952, 82720, 121344], totalram=25276026880, "
		  "freeram=24662409216, sharedram=9166848, bufferram=3375104, totalswap=0, "
		  "freeswap=0, procs=92, totalhigh=0, freehigh=0, mem_unit=1}) = 0");
	/* getgroups(0, ...) only counts; ioctl FICLONE's argument is an fd */
	CALL(0, 0, 0x7ffd0000);
	CHECK_STR(text("getgroups"), "getgroups(0, []) = 0");
	CALL(0, 0, 0);
	CHECK_STR(text("getgroups"), "getgroups(0, NULL) = 0");
	CALL(-95, 4, 0x40049409, 3);
	CHECK_STR(text("ioctl"), "ioctl(4, BTRFS_IOC_CLONE or FICLONE, 3) = -1 EOPNOTSUPP "
		  "(Operation not supported)");
	{
		unsigned long long sf[15] = { 0xef53, 4096, 66053021, 61840178, 20871454, 16777216,
			16363410, 0x0000123400005678ULL, 255, 4096, 0x1020 };

		CALL(0, 4, 0x7ffd0000);
		chunk(1, SC_CAP_STRUCT_OUT, 0, 0, sf, 120);
		CHECK_STR(text("fstatfs"),
			  "fstatfs(4, {f_type=EXT2_SUPER_MAGIC, f_bsize=4096, f_blocks=66053021, "
			  "f_bfree=61840178, f_bavail=20871454, f_files=16777216, f_ffree=16363410, "
			  "f_fsid={val=[0x5678, 0x1234]}, f_namelen=255, f_frsize=4096, "
			  "f_flags=ST_VALID|ST_RELATIME}) = 0");
	}
	/* a path is whole whatever -s says */
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = 0;
	strsize = 8;
	CALL(0, -100, 0x1000, 0x200);
	path_chunk(1, longpath);
	CHECK(strstr(text("unlinkat"), longpath) != NULL);
	strsize = 32;
}

TEST(sysdecode_time)
{
	long long ts[2] = { 0, 100000000 }, ts2[2] = { 123, 456 };
	long long itv[4] = { 0, 0, 1, 500 };

	CALL(0, 0x7ffd0000, 0);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, ts, sizeof(ts));
	CHECK_STR(text("nanosleep"), "nanosleep({tv_sec=0, tv_nsec=100000000}, NULL) = 0");
	CALL(0, 1, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, ts2, sizeof(ts2));
	CHECK_STR(text("clock_gettime"), "clock_gettime(CLOCK_MONOTONIC, {tv_sec=123, tv_nsec=456}) = 0");
	CALL(0, 0, 1, 0x7ffd0000, 0);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, ts2, sizeof(ts2));
	CHECK_STR(text("clock_nanosleep"),
		  "clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, {tv_sec=123, tv_nsec=456}, NULL) = 0");
	CALL(0, 0, 0x7ffd0000, 0);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, itv, sizeof(itv));
	CHECK_STR(text("setitimer"),
		  "setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, "
		  "it_value={tv_sec=1, tv_usec=500}}, NULL) = 0");
	CALL(19, 1, 02000000);
	CHECK_STR(text("timerfd_create"), "timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) = 19");

	setenv("TZ", "UTC", 1);
	tzset();
	CALL(1795248928, 0);
	CHECK_STR(text("time"), "time(NULL) = 1795248928 (2026-11-21T08:15:28+0000)");
}

TEST(sysdecode_signals)
{
	unsigned long long set = (1ULL << 1) | (1ULL << 14), all = ~((1ULL << 31) | (1ULL << 32));
	unsigned long long act[4] = { 0x401234, 0x14000000, 0x7f0000001000, 1ULL << 9 };
	unsigned long long old[4] = { 0, 0, 0, 0 };
	unsigned long long ss[3] = { 0x7ffd0000, 0, 4096 };

	CALL(0, 0, 0x7ffd0000, 0, 8);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, &set, 8);
	CHECK_STR(text("rt_sigprocmask"), "rt_sigprocmask(SIG_BLOCK, [INT TERM], NULL, 8) = 0");
	CALL(0, 2, 0x7ffd0000, 0x7ffd0100, 8);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, &all, 8);
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, &old[0], 8);
	CHECK_STR(text("rt_sigprocmask"),
		  "rt_sigprocmask(SIG_SETMASK, ~[RTMIN RT_1], [], 8) = 0");

	CALL(0, 12, 0x7ffd0000, 0x7ffd0100, 8);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, act, sizeof(act));
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, old, sizeof(old));
	CHECK_STR(text("rt_sigaction"),
		  "rt_sigaction(SIGUSR2, {sa_handler=0x401234, sa_mask=[USR1], "
		  "sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7f0000001000}, "
		  "{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0");
	act[0] = 1;
	act[1] = 0x04000000;
	act[3] = 0;
	CALL(0, 13, 0x7ffd0000, 0, 8);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, act, sizeof(act));
	CHECK_STR(text("rt_sigaction"),
		  "rt_sigaction(SIGPIPE, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, "
		  "sa_restorer=0x7f0000001000}, NULL, 8) = 0");

	CALL(0, 0x7ffd0000, 0);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, ss, sizeof(ss));
	CHECK_STR(text("sigaltstack"), "sigaltstack({ss_sp=0x7ffd0000, ss_flags=0, ss_size=4096}, NULL) = 0");
	CALL(10, 0x7ffd0000, 0, 0, 8);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, &set, 8);
	CHECK_STR(text("rt_sigtimedwait"), "rt_sigtimedwait([INT TERM], NULL, NULL, 8) = 10 (SIGUSR1)");
}

TEST(sysdecode_process)
{
	unsigned int st_exit = 0, st_sig = 15, st_core = 11 | 0x80, st_stop = 0x137f;
	int ptid = 1235;

	CALL(19002, 0x1200011, 0, 0, 0x7f3c85587a10, 0);
	CHECK_STR(text("clone"),
		  "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
		  "child_tidptr=0x7f3c85587a10) = 19002");
	CALL(1235, 0x3d0f00, 0x7f0000ff0000, 0x7f0000fff990, 0x7f0000fff990, 0x7f0000fff6c0);
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, &ptid, 4);
	CHECK_STR(text("clone"),
		  "clone(child_stack=0x7f0000ff0000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
		  "CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, "
		  "parent_tid=[1235], tls=0x7f0000fff6c0, child_tidptr=0x7f0000fff990) = 1235");

	CALL(19002, 19002, 0x7ffd0000, 0, 0);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &st_exit, 4);
	CHECK_STR(text("wait4"),
		  "wait4(19002, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 19002");
	CALL(19004, -1, 0x7ffd0000, 0x40000000, 0);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &st_sig, 4);
	CHECK_STR(text("wait4"),
		  "wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM}], __WALL, NULL) = 19004");
	CALL(19005, -1, 0x7ffd0000, 0, 0);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &st_core, 4);
	CHECK_STR(text("wait4"),
		  "wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}], 0, NULL) = 19005");
	CALL(19006, -1, 0x7ffd0000, 2, 0);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &st_stop, 4);
	CHECK_STR(text("wait4"),
		  "wait4(-1, [{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}], WUNTRACED, NULL) = 19006");
	/* WNOHANG and no child changed: the status was not written */
	CALL(0, -1, 0x7ffd0000, 1, 0);
	CHECK_STR(text("wait4"), "wait4(-1, 0x7ffd0000, WNOHANG, NULL) = 0");

	CALL(1, 0x7ffd0000, 0x189, 0, 0, 0, 0xffffffff);
	CHECK_STR(text("futex"),
		  "futex(0x7ffd0000, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, NULL, "
		  "FUTEX_BITSET_MATCH_ANY) = 1");
	CALL(0, 0x7fff65e9ff0c, 0x81, 1, 0, 0, 0);
	CHECK_STR(text("futex"), "futex(0x7fff65e9ff0c, FUTEX_WAKE_PRIVATE, 1) = 0");
	CALL(0, 0x7ffd0000, 0x85, 1, 1, 0x7ffd0004, 0x4000001);
	CHECK_STR(text("futex"),
		  "futex(0x7ffd0000, FUTEX_WAKE_OP_PRIVATE, 1, 1, 0x7ffd0004, "
		  "FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1) = 0");
	CALL(0, 0x7ffd0000, 5, 1, 1, 0x7ffd0004, 0x90003000);
	CHECK_STR(text("futex"),
		  "futex(0x7ffd0000, FUTEX_WAKE_OP, 1, 1, 0x7ffd0004, "
		  "FUTEX_OP_OPARG_SHIFT<<28|FUTEX_OP_ADD<<28|0x3<<12|FUTEX_OP_CMP_EQ<<24|0) = 0");
	CALL(-38, 0x7ffd0000, 77, 1, 2, 3, 4);
	CHECK_STR(text("futex"),
		  "futex(0x7ffd0000, 0x4d /* FUTEX_??? */, 1, 0x2, 0x3, 0x4) = -1 ENOSYS "
		  "(Function not implemented)");

}

/* strace 6.1's lines for the same calls (tests one option each) */
TEST(sysdecode_prctl)
{
	char name[16] = "worker-1", longname[16] = "0123456789abcdef";
	int sig = 9;
	__u64 tidaddr = 0x7f85edf99a10;

	CALL(0, 15, 0x7ffd0000, 0, 0, 0);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, name, 16);
	CHECK_STR(text("prctl"), "prctl(PR_SET_NAME, \"worker-1\") = 0");
	/* no NUL in TASK_COMM_LEN bytes: 15 of them, cut */
	CALL(0, 15, 0x7ffd0000, 0, 0, 0);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, longname, 16);
	CHECK_STR(text("prctl"), "prctl(PR_SET_NAME, \"0123456789abcde\"...) = 0");
	CALL(0, 16, 0x7ffd0000, 0, 0, 0);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, longname, 16);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, name, 16);
	CHECK_STR(text("prctl"), "prctl(PR_GET_NAME, \"worker-1\") = 0");
	CALL(-14, 16, 0, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_GET_NAME, NULL) = -1 EFAULT (Bad address)");
	CALL(0, 2, 0x7ffd0000, 0, 0, 0);
	memcpy(name, &sig, 4);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, name, 16);
	CHECK_STR(text("prctl"), "prctl(PR_GET_PDEATHSIG, [9]) = 0");
	CALL(0, 40, 0x7ffd0000, 0, 0, 0);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &tidaddr, 8);
	CHECK_STR(text("prctl"), "prctl(PR_GET_TID_ADDRESS, [0x7f85edf99a10]) = 0");
	CALL(0, 1, 9, 0x55, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_SET_PDEATHSIG, SIGKILL) = 0");
	CALL(1, 3, 0x7f00, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)");
	CALL(0, 4, 0, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_SET_DUMPABLE, SUID_DUMP_DISABLE) = 0");
	CALL(0, 38, 1, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) = 0");
	CALL(0, 39, 0, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) = 0");
	CALL(1, 23, 21, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN) = 1");
	CALL(-22, 24, 99, 0, 0, 0);
	CHECK_STR(text("prctl"),
		  "prctl(PR_CAPBSET_DROP, 0x63 /* CAP_??? */) = -1 EINVAL (Invalid argument)");
	CALL(0, 47, 1, 21, 0, 0);
	CHECK_STR(text("prctl"),
		  "prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_ADMIN, 0, 0) = 0");
	CALL(0, 33, 1, 1, 0, 0);
	CHECK_STR(text("prctl"),
		  "prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0) = 0");
	CALL(1, 34, 0, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_MCE_KILL_GET, 0, 0, 0, 0) = 1 (PR_MCE_KILL_EARLY)");
	CALL(-1, 35, 1, 0, 0, 0);
	CHECK_STR(text("prctl"),
		  "prctl(PR_SET_MM, PR_SET_MM_START_CODE, 0, 0, 0) = -1 EPERM (Operation not permitted)");
	CALL(-22, 0x59616d61, -1, 0, 0, 0);
	CHECK_STR(text("prctl"),
		  "prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) = -1 EINVAL (Invalid argument)");
	CALL(-22, 12345, 1, 2, 3, 4);
	CHECK_STR(text("prctl"),
		  "prctl(0x3039 /* PR_??? */, 0x1, 0x2, 0x3, 0x4) = -1 EINVAL (Invalid argument)");
	CALL(50000, 30, 0, 0, 0, 0);
	CHECK_STR(text("prctl"), "prctl(PR_GET_TIMERSLACK) = 50000");
	CALL(-22, 0x53564d41, 0, 0x1000, 4096, 0x5000);
	chunk(4, SC_CAP_STR, 0, 0, "x", 1);
	CHECK_STR(text("prctl"),
		  "prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x1000, 4096, \"x\") = -1 EINVAL "
		  "(Invalid argument)");
}

TEST(sysdecode_misc_structs)
{
	unsigned long long fs = 0x7f3c85587740;
	unsigned long long rl[2] = { 8192 * 1024, ~0ULL }, rl2[2] = { 20000, 20000 };
	unsigned char uts[130] = { 0 }, cpus[8] = { 0x3, 0, 0, 0, 0, 0, 0, 0 };

	CALL(0, 0x1003, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &fs, 8);
	CHECK_STR(text("arch_prctl"), "arch_prctl(ARCH_GET_FS, [0x7f3c85587740]) = 0");
	CALL(0, 0x1002, 0x7f39ba9fc740);
	CHECK_STR(text("arch_prctl"), "arch_prctl(ARCH_SET_FS, 0x7f39ba9fc740) = 0");
	CALL(0, 0, 3, 0, 0x7ffd0000);
	chunk(3, SC_CAP_STRUCT_OUT, 0, 0, rl, sizeof(rl));
	CHECK_STR(text("prlimit64"),
		  "prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0");
	CALL(0, 7, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, rl2, sizeof(rl2));
	CHECK_STR(text("getrlimit"), "getrlimit(RLIMIT_NOFILE, {rlim_cur=20000, rlim_max=20000}) = 0");
	memcpy(uts, "Linux", 5);
	memcpy(uts + 65, "vm", 2);
	CALL(0, 0x7ffd0000);
	chunk(0, SC_CAP_STRUCT_OUT, 0, 0, uts, sizeof(uts));
	CHECK_STR(text("uname"), "uname({sysname=\"Linux\", nodename=\"vm\", ...}) = 0");
	CALL(8, 0, 128, 0x7ffd0000);
	chunk(2, SC_CAP_BUF_OUT, 0, 0, cpus, 8);
	CHECK_STR(text("sched_getaffinity"), "sched_getaffinity(0, 128, [0 1]) = 8");
	CALL(11, 0x7ffd0000, 4096);
	chunk(0, SC_CAP_BUF_OUT, 0, 0, "/tmp/scref\0", 11);
	CHECK_STR(text("getcwd"), "getcwd(\"/tmp/scref\", 4096) = 11");
	CALL(13, 0x1000, 0x7ffd0000, 4096);
	path_chunk(0, "/tmp/l");
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "/etc/hostname", 13);
	CHECK_STR(text("readlink"), "readlink(\"/tmp/l\", \"/etc/hostname\", 4096) = 13");
}

TEST(sysdecode_epoll)
{
	unsigned char ev[12], evs[24];
	unsigned int e = 0x80000001;
	unsigned long long data = 12;

	memcpy(ev, &e, 4);
	memcpy(ev + 4, &data, 8);
	CALL(0, 17, 1, 12, 0x7ffd0000);
	chunk(3, SC_CAP_STRUCT_IN, 0, 0, ev, 12);
	CHECK_STR(text("epoll_ctl"),
		  "epoll_ctl(17, EPOLL_CTL_ADD, 12, {events=EPOLLIN|EPOLLET, data={u32=12, u64=12}}) = 0");
	CALL(0, 7, 2, 6, 0);
	CHECK_STR(text("epoll_ctl"), "epoll_ctl(7, EPOLL_CTL_DEL, 6, NULL) = 0");
	e = 1;
	memcpy(evs, &e, 4);
	memcpy(evs + 4, &data, 8);
	e = 4;
	data = 6;
	memcpy(evs + 12, &e, 4);
	memcpy(evs + 16, &data, 8);
	CALL(2, 7, 0x7ffd0000, 8, -1);
	chunk(1, SC_CAP_ARRAY_OUT, 0, 0, evs, sizeof(evs));
	CHECK_STR(text("epoll_wait"),
		  "epoll_wait(7, [{events=EPOLLIN, data={u32=12, u64=12}}, "
		  "{events=EPOLLOUT, data={u32=6, u64=6}}], 8, -1) = 2");
	CALL(2, 7, 0x7ffd0000, 8, 0, 0, 8);
	chunk(1, SC_CAP_ARRAY_OUT, 0, 0, evs, sizeof(evs));
	CHECK_STR(text("epoll_pwait"),
		  "epoll_pwait(7, [{events=EPOLLIN, data={u32=12, u64=12}}, "
		  "{events=EPOLLOUT, data={u32=6, u64=6}}], 8, 0, NULL, 8) = 2");
	/* failed: the events' address */
	CALL(-4, 7, 0x7ffd0000, 8, -1);
	CHECK_STR(text("epoll_wait"),
		  "epoll_wait(7, 0x7ffd0000, 8, -1) = -1 EINTR (Interrupted system call)");
}

TEST(sysdecode_poll)
{
	struct { int fd; short events, revents; } pfd[3] = {
		{ 3, 1, 0 }, { 6, 4, 0 }, { 5, 3, 0 }
	}, big[40];
	char want[4096];
	size_t n;

	/* the array at entry, then with revents at exit */
	CALL(2, 0x7ffd0000, 3, 1000);
	chunk(0, SC_CAP_ARRAY_IN, 0, 0, pfd, sizeof(pfd));
	pfd[0].revents = 1;
	pfd[1].revents = 4;
	chunk(0, SC_CAP_ARRAY_OUT, 0, 0, pfd, sizeof(pfd));
	CHECK_STR(text("poll"),
		  "poll([{fd=3, events=POLLIN}, {fd=6, events=POLLOUT}, {fd=5, events=POLLIN|POLLPRI}], "
		  "3, 1000) = 2 ([{fd=3, revents=POLLIN}, {fd=6, revents=POLLOUT}])");
	CALL(0, 0x7ffd0000, 0, 1);
	chunk(0, SC_CAP_ARRAY_IN, 0, 0, pfd, 0);
	CHECK_STR(text("poll"), "poll([], 0, 1) = 0 (Timeout)");
	/* interrupted: the array all the same */
	CALL(-514, 0x7ffd0000, 1, -1);
	chunk(0, SC_CAP_ARRAY_IN, 0, 0, pfd, 8);
	CHECK_STR(text("poll"), "poll([{fd=3, events=POLLIN}], 1, -1) = ? ERESTARTNOHAND "
		  "(To be restarted if no handler)");

	/* 40 fds: strace shows 32 (-s) of each, then "..." */
	for (int i = 0; i < 40; i++)
		big[i] = (typeof(big[0])){ 3, 1, 1 };
	CALL(40, 0x7ffd0000, 40, 0);
	chunk(0, SC_CAP_ARRAY_IN, 0, 0, big, sizeof(big));
	chunk(0, SC_CAP_ARRAY_OUT, 0, 0, big, sizeof(big));
	n = snprintf(want, sizeof(want), "poll([");
	for (int i = 0; i < 32; i++)
		n += snprintf(want + n, sizeof(want) - n, "{fd=3, events=POLLIN}, ");
	n += snprintf(want + n, sizeof(want) - n, "...], 40, 0) = 40 ([");
	for (int i = 0; i < 32; i++)
		n += snprintf(want + n, sizeof(want) - n, "{fd=3, revents=POLLIN}, ");
	snprintf(want + n, sizeof(want) - n, "...])");
	CHECK_STR(text("poll"), want);

	/* ppoll: the time left */
	{
		long long ts[2] = { 0, 1000 }, left[2] = { 0, 99 };

		pfd[2].revents = 0;
		CALL(2, 0x7ffd0000, 2, 0x7ffd1000, 0, 8);
		chunk(0, SC_CAP_ARRAY_IN, 0, 0, pfd, 16);
		chunk(2, SC_CAP_STRUCT_IN, 0, 0, ts, 16);
		chunk(0, SC_CAP_ARRAY_OUT, 0, 0, pfd, 16);
		chunk(2, SC_CAP_STRUCT_OUT, 0, 0, left, 16);
		CHECK_STR(text("ppoll"),
			  "ppoll([{fd=3, events=POLLIN}, {fd=6, events=POLLOUT}], 2, {tv_sec=0, "
			  "tv_nsec=1000}, NULL, 8) = 2 ([{fd=3, revents=POLLIN}, {fd=6, revents=POLLOUT}], "
			  "left {tv_sec=0, tv_nsec=99})");
		CALL(0, 0x7ffd0000, 1, 0x7ffd1000, 0, 8);
		chunk(0, SC_CAP_ARRAY_IN, 0, 0, pfd, 8);
		chunk(2, SC_CAP_STRUCT_IN, 0, 0, ts, 16);
		chunk(2, SC_CAP_STRUCT_OUT, 0, 0, left, 16);
		CHECK_STR(text("ppoll"),
			  "ppoll([{fd=3, events=POLLIN}], 1, {tv_sec=0, tv_nsec=1000}, NULL, 8) = 0 (Timeout)");
	}

	/* more than SC_ARRAY_MAX: what was captured, then "..." */
	strsize = 100;
	CALL(0, 0x7ffd0000, 100, 0);
	chunk(0, SC_CAP_ARRAY_IN, 0, SC_CHUNK_TRUNC, big, 8);
	CHECK_STR(text("poll"), "poll([{fd=3, events=POLLIN}, ...], 100, 0) = 0 (Timeout)");
	strsize = 32;
}

TEST(sysdecode_select)
{
	unsigned char r[5] = { 0x09 }, w[5] = { 0x10 }, rout[5] = { 0 }, none[5] = { 0 };
	long long tv[2] = { 0, 5000 }, left[2] = { 0, 4997 }, ts[2] = { 1, 0 }, tsl[2] = { 0, 999992366 };

	CALL(1, 5, 0x7ffd0000, 0x7ffd0100, 0, 0x7ffd0200);
	chunk(1, SC_CAP_ARRAY_IN, 0, 0, r, 5);
	chunk(2, SC_CAP_ARRAY_IN, 0, 0, w, 5);
	chunk(4, SC_CAP_STRUCT_IN, 0, 0, tv, 16);
	chunk(1, SC_CAP_ARRAY_OUT, 0, 0, rout, 5);
	chunk(2, SC_CAP_ARRAY_OUT, 0, 0, w, 5);
	chunk(4, SC_CAP_STRUCT_OUT, 0, 0, left, 16);
	CHECK_STR(text("select"),
		  "select(5, [0 3], [4], NULL, {tv_sec=0, tv_usec=5000}) = 1 "
		  "(out [4], left {tv_sec=0, tv_usec=4997})");
	CALL(0, 4, 0x7ffd0000, 0, 0, 0x7ffd0200);
	chunk(1, SC_CAP_ARRAY_IN, 0, 0, r, 4);
	chunk(4, SC_CAP_STRUCT_IN, 0, 0, left, 16);
	CHECK_STR(text("select"), "select(4, [0 3], NULL, NULL, {tv_sec=0, tv_usec=4997}) = 0 (Timeout)");
	CALL(-514, 4, 0x7ffd0000, 0, 0, 0);
	chunk(1, SC_CAP_ARRAY_IN, 0, 0, none, 4);
	CHECK_STR(text("select"),
		  "select(4, [], NULL, NULL, NULL) = ? ERESTARTNOHAND (To be restarted if no handler)");

	CALL(3, 5, 0x7ffd0000, 0x7ffd0100, 0, 0x7ffd0200, 0);
	chunk(1, SC_CAP_ARRAY_IN, 0, 0, r, 5);
	chunk(2, SC_CAP_ARRAY_IN, 0, 0, w, 5);
	chunk(4, SC_CAP_STRUCT_IN, 0, 0, ts, 16);
	chunk(1, SC_CAP_ARRAY_OUT, 0, 0, r, 5);
	chunk(2, SC_CAP_ARRAY_OUT, 0, 0, w, 5);
	chunk(4, SC_CAP_STRUCT_OUT, 0, 0, tsl, 16);
	CHECK_STR(text("pselect6"),
		  "pselect6(5, [0 3], [4], NULL, {tv_sec=1, tv_nsec=0}, NULL) = 3 "
		  "(in [0 3], out [4], left {tv_sec=0, tv_nsec=999992366})");
	memset(ts, 0, sizeof(ts));
	CALL(0, 0, 0, 0, 0, 0x7ffd0200, 0);
	chunk(4, SC_CAP_STRUCT_IN, 0, 0, ts, 16);
	chunk(4, SC_CAP_STRUCT_OUT, 0, 0, ts, 16);
	CHECK_STR(text("pselect6"),
		  "pselect6(0, NULL, NULL, NULL, {tv_sec=0, tv_nsec=0}, NULL) = 0 (Timeout)");
}

TEST(sysdecode_rusage)
{
	long long ru[4] = { 0, 14331, 0, 0 };
	int st = 0;

	CALL(0, 0, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, ru, 32);
	CHECK_STR(text("getrusage"),
		  "getrusage(RUSAGE_SELF, {ru_utime={tv_sec=0, tv_usec=14331}, "
		  "ru_stime={tv_sec=0, tv_usec=0}, ...}) = 0");
	CALL(21405, -1, 0x7ffd0100, 0, 0x7ffd0000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &st, 4);
	chunk(3, SC_CAP_STRUCT_OUT, 0, 0, ru, 32);
	CHECK_STR(text("wait4"),
		  "wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, {ru_utime={tv_sec=0, "
		  "tv_usec=14331}, ru_stime={tv_sec=0, tv_usec=0}, ...}) = 21405");
	CALL(-10, -1, 0, 0, 0x7ffd0000);
	CHECK_STR(text("wait4"), "wait4(-1, NULL, 0, 0x7ffd0000) = -1 ECHILD (No child processes)");
}

TEST(sysdecode_msghdr)
{
	unsigned char in4[16] = { 2, 0, 0, 9, 127, 0, 0, 1 };
	struct sc_iovec iov[2] = { { 0x1000, 5 }, { 0x2000, 6 } }, riov = { 0x3000, 64 };
	struct sc_msghdr m = { .name = 0x4000, .namelen = 16, .iov = 0x5000, .iovlen = 2 };

	CALL(11, 5, 0x7ffd0000, 0);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, &m, sizeof(m));
	chunk(1, SC_CAP_STRUCT_IN, 1, 0, in4, 16);
	chunk(1, SC_CAP_IOV_IN, 0, 0, iov, sizeof(iov));
	chunk(1, SC_CAP_BUF_IN, 0, 0, "hello", 5);
	chunk(1, SC_CAP_BUF_IN, 1, 0, " world", 6);
	CHECK_STR(text("sendmsg"),
		  "sendmsg(5, {msg_name={sa_family=AF_INET, sin_port=htons(9), "
		  "sin_addr=inet_addr(\"127.0.0.1\")}, msg_namelen=16, msg_iov=[{iov_base=\"hello\", "
		  "iov_len=5}, {iov_base=\" world\", iov_len=6}], msg_iovlen=2, msg_controllen=0, "
		  "msg_flags=0}, 0) = 11");
	m = (struct sc_msghdr){ .iov = 0x5000, .iovlen = 1, .control = 0x6000, .controllen = 64 };
	CALL(11, 4, 0x7ffd0000, 0);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, &m, sizeof(m));
	m.controllen = 0;
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &m, sizeof(m));
	chunk(1, SC_CAP_IOV_OUT, 0, 0, &riov, sizeof(riov));
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "hello world", 11);
	CHECK_STR(text("recvmsg"),
		  "recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hello world\", "
		  "iov_len=64}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 11");
	CALL(-11, 4, 0x7ffd0000, 0x40);
	chunk(1, SC_CAP_STRUCT_IN, 0, 0, &m, sizeof(m));
	CHECK_STR(text("recvmsg"),
		  "recvmsg(4, {msg_namelen=0}, MSG_DONTWAIT) = -1 EAGAIN (Resource temporarily unavailable)");

	/* control messages: credentials, then descriptors */
	{
		unsigned char cm[56] = { 0 };
		__u64 l1 = 28, l2 = 24;
		int sol = 1, creds = 2, rights = 1, cred[3] = { 2016, 0, 0 }, fds[2] = { 5, 6 };
		struct sc_iovec x = { 0x3000, 16 };

		memcpy(cm, &l1, 8);
		memcpy(cm + 8, &sol, 4);
		memcpy(cm + 12, &creds, 4);
		memcpy(cm + 16, cred, 12);
		memcpy(cm + 32, &l2, 8);
		memcpy(cm + 40, &sol, 4);
		memcpy(cm + 44, &rights, 4);
		memcpy(cm + 48, fds, 8);
		m = (struct sc_msghdr){ .iov = 0x5000, .iovlen = 1, .control = 0x6000,
					.controllen = 56, .flags = 0x40000000 };
		CALL(1, 4, 0x7ffd0000, 0x40000000);
		chunk(1, SC_CAP_STRUCT_OUT, 0, 0, &m, sizeof(m));
		chunk(1, SC_CAP_STRUCT_OUT, 2, 0, cm, sizeof(cm));
		chunk(1, SC_CAP_IOV_OUT, 0, 0, &x, sizeof(x));
		chunk(1, SC_CAP_BUF_OUT, 0, 0, "x", 1);
		CHECK_STR(text("recvmsg"),
			  "recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"x\", iov_len=16}], "
			  "msg_iovlen=1, msg_control=[{cmsg_len=28, cmsg_level=SOL_SOCKET, "
			  "cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=2016, uid=0, gid=0}}, {cmsg_len=24, "
			  "cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5, 6]}], "
			  "msg_controllen=56, msg_flags=MSG_CMSG_CLOEXEC}, MSG_CMSG_CLOEXEC) = 1");
	}
}

TEST(sysdecode_ioctl_tty)
{
	/* a pty's defaults; the rest of struct termios is not captured */
	__u32 tio[4] = { 02400, 05, 0277, 0105073 }, all[4] = { ~0u, ~0u, ~0u, ~0u };
	__u32 none[4] = { 0 }, odd[4] = { 0, 0101 | 01000 | 04000 | 0160000, 010002 | 040 | (017 << 16), 1 };
	__u16 ws[4] = { 24, 80, 0, 0 };

	CALL(0, 1, 0x5401, 0x7ffd0000);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, none, 16);
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, tio, 16);
	CHECK_STR(text("ioctl"),
		  "ioctl(1, TCGETS, {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, "
		  "c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|"
		  "ECHOKE, ...}) = 0");
	CALL(-25, 3, 0x5401, 0x7ffd0000);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, none, 16);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, TCGETS, 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for device)");
	CALL(-25, 3, 0x5401, 0);
	CHECK_STR(text("ioctl"), "ioctl(3, TCGETS, NULL) = -1 ENOTTY (Inappropriate ioctl for device)");
	/* a setter shows what it passed, failed or not */
	CALL(-25, 3, 0x5402, 0x7ffd0000);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, all, 16);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, SNDCTL_TMR_START or TCSETS, {c_iflag=IGNBRK|BRKINT|IGNPAR|PARMRK|INPCK|"
		  "ISTRIP|INLCR|IGNCR|ICRNL|IUCLC|IXON|IXANY|IXOFF|IMAXBEL|IUTF8|0xffff8000, "
		  "c_oflag=NL1|CR3|XTABS|BS1|VT1|FF1|OPOST|OLCUC|ONLCR|OCRNL|ONOCR|ONLRET|OFILL|OFDEL|"
		  "0xffff0000, c_cflag=B4000000|B4000000<<IBSHIFT|CS8|CSTOPB|CREAD|PARENB|PARODD|HUPCL|"
		  "CLOCAL|CMSPAR|CRTSCTS|0x2ff0e000, c_lflag=ISIG|ICANON|XCASE|ECHO|ECHOE|ECHOK|ECHONL|"
		  "NOFLSH|IEXTEN|ECHOCTL|ECHOPRT|ECHOKE|FLUSHO|PENDIN|TOSTOP|EXTPROC|0xfffe2000, ...}) = "
		  "-1 ENOTTY (Inappropriate ioctl for device)");
	/* strace's quirks: empty words, a '|' after the fields */
	CALL(-25, 3, 0x5402, 0x7ffd0000);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, none, 16);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, "
		  "c_cflag=B0|CS5|, c_lflag=, ...}) = -1 ENOTTY (Inappropriate ioctl for device)");
	CALL(0, 3, 0x5404, 0x7ffd0000);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, odd, 16);
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, odd, 16);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, SNDCTL_TMR_CONTINUE or TCSETSF, {c_iflag=, c_oflag=NL0|CR1|TAB1|BS1|VT1|FF1|"
		  "OPOST|OFILL, c_cflag=B115200|B38400<<IBSHIFT|CS7|, c_lflag=ISIG, ...}) = 0");

	CALL(0, 0, 0x5413, 0x7ffd0000);
	chunk(2, SC_CAP_STRUCT_IN, 0, 0, none, 16);
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, ws, 8);
	CHECK_STR(text("ioctl"),
		  "ioctl(0, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0");
	CALL(-25, 3, 0x5413, 0x7ffd0000);
	CHECK_STR(text("ioctl"),
		  "ioctl(3, TIOCGWINSZ, 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for device)");
	/* ints passed and filled */
	{
		int in[4] = { 1 }, out[4] = { 3 };

		CALL(0, 3, 0x541b, 0x7ffd0000);
		chunk(2, SC_CAP_STRUCT_IN, 0, 0, in, 16);
		chunk(2, SC_CAP_STRUCT_OUT, 0, 0, out, 16);
		CHECK_STR(text("ioctl"), "ioctl(3, FIONREAD, [3]) = 0");
		CALL(0, 3, 0x5421, 0x7ffd0000);
		chunk(2, SC_CAP_STRUCT_IN, 0, 0, in, 16);
		chunk(2, SC_CAP_STRUCT_OUT, 0, 0, out, 16);
		CHECK_STR(text("ioctl"), "ioctl(3, FIONBIO, [1]) = 0");
		CALL(-25, 4, 0x5411, 0x7ffd0000);
		chunk(2, SC_CAP_STRUCT_IN, 0, 0, in, 16);
		CHECK_STR(text("ioctl"),
			  "ioctl(4, TIOCOUTQ, 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for device)");
		CALL(0, 0, 0x540f, 0x7ffd0000);
		chunk(2, SC_CAP_STRUCT_OUT, 0, 0, out, 16);
		CHECK_STR(text("ioctl"), "ioctl(0, TIOCGPGRP, [3]) = 0");
	}
	CALL(0, 3, 0x5451, 0x7ffd0000);
	CHECK_STR(text("ioctl"), "ioctl(3, FIOCLEX) = 0");
	/* a request without a name: its fields */
	CALL(-25, 0, 0xc0107a99, 0);
	CHECK_STR(text("ioctl"), "ioctl(0, _IOC(_IOC_READ|_IOC_WRITE, 0x7a, 0x99, 0x10), 0) = -1 "
		  "ENOTTY (Inappropriate ioctl for device)");
	CALL(-25, 0, 0x1234, 0);
	CHECK_STR(text("ioctl"), "ioctl(0, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0) = -1 "
		  "ENOTTY (Inappropriate ioctl for device)");
}

TEST(sysdecode_clone3)
{
	/* glibc's pthread_create */
	__u64 th[11] = { 0x3d0f00, 0, 0x7ff23223e990, 0x7ff23223e990, 0, 0x7ff231a3e000, 0x7fff80,
			 0x7ff23223e6c0 };
	__u64 fork[11] = { 0, 0, 0, 0, 17 };

	CALL(9591, 0x7ffd0000, 88);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, th, 88);
	CHECK_STR(text("clone3"),
		  "clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
		  "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7ff23223e990, "
		  "parent_tid=0x7ff23223e990, exit_signal=0, stack=0x7ff231a3e000, stack_size=0x7fff80, "
		  "tls=0x7ff23223e6c0} => {parent_tid=[9591]}, 88) = 9591");
	CALL(9472, 0x7ffd0000, 88);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, fork, 88);
	CHECK_STR(text("clone3"),
		  "clone3({flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0}, 88) = 9472");
	CALL(9473, 0x7ffd0000, 64);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, fork, 88);
	CHECK_STR(text("clone3"),
		  "clone3({flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0}, 64) = 9473");
	/* failed: no tid written */
	CALL(-11, 0x7ffd0000, 88);
	chunk(0, SC_CAP_STRUCT_IN, 0, 0, th, 88);
	CHECK_STR(text("clone3"),
		  "clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
		  "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7ff23223e990, "
		  "parent_tid=0x7ff23223e990, exit_signal=0, stack=0x7ff231a3e000, stack_size=0x7fff80, "
		  "tls=0x7ff23223e6c0}, 88) = -1 EAGAIN (Resource temporarily unavailable)");
}

TEST(sysdecode_xattr)
{
	CALL(29, 0x1000, 0x7ffd0000, 256);
	path_chunk(0, "/tmp/dm/xa.f");
	chunk(1, SC_CAP_BUF_OUT, 0, 0, "user.a\0user.longer_name_here\0", 29);
	CHECK_STR(text("listxattr"),
		  "listxattr(\"/tmp/dm/xa.f\", \"user.a\\0user.longer_name_here\\0\", 256) = 29");
	CALL(7, 3, 0, 0);
	CHECK_STR(text("flistxattr"), "flistxattr(3, NULL, 0) = 7");
	CALL(-34, 0x1000, 0x7ffd0000, 3);
	path_chunk(0, "/tmp/x");
	CHECK_STR(text("llistxattr"),
		  "llistxattr(\"/tmp/x\", 0x7ffd0000, 3) = -1 ERANGE (Numerical result out of range)");
	CALL(4, 0x1000, 0x2000, 0x7ffd0000, 256);
	path_chunk(0, "/tmp/x");
	str_chunk(1, "user.b1");
	chunk(2, SC_CAP_BUF_OUT, 0, 0, "\1\2zz", 4);
	CHECK_STR(text("getxattr"), "getxattr(\"/tmp/x\", \"user.b1\", \"\\1\\2zz\", 256) = 4");
	CALL(-61, 0x1000, 0x2000, 0x7ffd0000, 256);
	path_chunk(0, "/tmp/x");
	str_chunk(1, "user.nope");
	CHECK_STR(text("getxattr"),
		  "getxattr(\"/tmp/x\", \"user.nope\", 0x7ffd0000, 256) = -1 ENODATA (No data available)");
	CALL(-61, 3, 0x2000);
	str_chunk(1, "user.a");
	CHECK_STR(text("fremovexattr"),
		  "fremovexattr(3, \"user.a\") = -1 ENODATA (No data available)");
	CALL(0, 0x1000, 0x2000);
	path_chunk(0, "/tmp/x");
	str_chunk(1, "user.b1");
	CHECK_STR(text("lremovexattr"), "lremovexattr(\"/tmp/x\", \"user.b1\") = 0");
}

TEST(sysdecode_sockets)
{
	unsigned char in4[16] = { 2, 0, 0, 80, 127, 0, 0, 1 };
	unsigned char in6[28] = { 10, 0, 0x1f, 0x90 };
	unsigned char un[110] = { 1, 0 }, abs_[11] = { 1, 0, 0 }, nl[12] = { 16, 0 };
	unsigned int len16 = 16, one = 1, four = 4, rcvbuf = 212992;

	in6[23] = 1;
	memcpy(un + 2, "/run/x.sock", 11);
	memcpy(abs_ + 3, "abstract", 8);

	CALL(24, 2, 04002, 17);
	CHECK_STR(text("socket"), "socket(AF_INET, SOCK_DGRAM|SOCK_NONBLOCK, IPPROTO_UDP) = 24");
	CALL(25, 10, 1, 0);
	CHECK_STR(text("socket"), "socket(AF_INET6, SOCK_STREAM, IPPROTO_IP) = 25");
	CALL(26, 1, 02000001, 0);
	CHECK_STR(text("socket"), "socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 26");
	CALL(27, 16, 3, 0);
	CHECK_STR(text("socket"), "socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE) = 27");

	CALL(0, 24, 0x7ffd0000, 16);
	chunk(1, SC_CAP_BUF_IN, 0, 0, in4, 16);
	CHECK_STR(text("connect"),
		  "connect(24, {sa_family=AF_INET, sin_port=htons(80), "
		  "sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0");
	CALL(-111, 25, 0x7ffd0000, 28);
	chunk(1, SC_CAP_BUF_IN, 0, 0, in6, 28);
	CHECK_STR(text("connect"),
		  "connect(25, {sa_family=AF_INET6, sin6_port=htons(8080), sin6_flowinfo=htonl(0), "
		  "inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=0}, 28) = "
		  "-1 ECONNREFUSED (Connection refused)");
	CALL(-2, 26, 0x7ffd0000, 110);
	chunk(1, SC_CAP_BUF_IN, 0, 0, un, 110);
	CHECK_STR(text("connect"),
		  "connect(26, {sa_family=AF_UNIX, sun_path=\"/run/x.sock\"}, 110) = "
		  "-1 ENOENT (No such file or directory)");
	CALL(0, 26, 0x7ffd0000, 11);
	chunk(1, SC_CAP_BUF_IN, 0, 0, abs_, 11);
	CHECK_STR(text("bind"), "bind(26, {sa_family=AF_UNIX, sun_path=@\"abstract\"}, 11) = 0");
	CALL(0, 27, 0x7ffd0000, 12);
	chunk(1, SC_CAP_BUF_IN, 0, 0, nl, 12);
	CHECK_STR(text("bind"), "bind(27, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 0");

	/* out: the length that came back decides */
	CALL(4, 3, 0x7ffd0000, 0x7ffd0100, 02000000);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, in4, 16);
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, &len16, 4);
	CHECK_STR(text("accept4"),
		  "accept4(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}, "
		  "[16], SOCK_CLOEXEC) = 4");
	CALL(-95, 24, 0, 0, 02000000);
	CHECK_STR(text("accept4"),
		  "accept4(24, NULL, NULL, SOCK_CLOEXEC) = -1 EOPNOTSUPP (Operation not supported)");
	CALL(5, 3, 0x7ffd0000, 0x7ffd0100);
	chunk(1, SC_CAP_STRUCT_OUT, 0, 0, un, 110);
	len16 = 2;
	chunk(2, SC_CAP_STRUCT_OUT, 0, 0, &len16, 4);
	CHECK_STR(text("accept"), "accept(3, {sa_family=AF_UNIX}, [2]) = 5");

	CALL(4, 24, 0x5000, 4, 0x40, 0x7ffd0000, 16);
	chunk(1, SC_CAP_BUF_IN, 0, 0, "ping", 4);
	chunk(4, SC_CAP_BUF_IN, 0, 0, in4, 16);
	CHECK_STR(text("sendto"),
		  "sendto(24, \"ping\", 4, MSG_DONTWAIT, {sa_family=AF_INET, sin_port=htons(80), "
		  "sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 4");
	CALL(0, 24, 1, 2, 0x7ffd0000, 4);
	chunk(3, SC_CAP_BUF_IN, 0, 0, &one, 4);
	CHECK_STR(text("setsockopt"), "setsockopt(24, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0");
	CALL(0, 24, 1, 8, 0x7ffd0000, 0x7ffd0100);
	chunk(3, SC_CAP_STRUCT_OUT, 0, 0, &rcvbuf, 4);
	chunk(4, SC_CAP_STRUCT_OUT, 0, 0, &four, 4);
	CHECK_STR(text("getsockopt"), "getsockopt(24, SOL_SOCKET, SO_RCVBUF, [212992], [4]) = 0");
	CALL(0, 22, 1);
	CHECK_STR(text("shutdown"), "shutdown(22, SHUT_WR) = 0");
}

/* ---- without a decoder ------------------------------------------------------ */

static struct sc_info generic_info(void)
{
	static const struct sc_argdesc args[] = {
		{ "fd", "int" }, { "mode", "umode_t" }, { "pid", "pid_t" },
		{ "count", "size_t" }, { "pathname", "const char *" }, { "buf", "void *" },
	};
	struct sc_info si;

	memset(&si, 0, sizeof(si));
	si.name = "frobnicate";
	si.nargs = 6;
	si.args = args;
	return si;
}

TEST(sysdecode_generic_by_type)
{
	struct sc_info si = generic_info();

	CALL(0, -1, 0644, -5, 123456789012ULL, 0x1000, 0);
	path_chunk(4, "/some/path");
	CHECK_STR(render_si(&si, false),
		  "frobnicate(-1, 0644, -5, 123456789012, \"/some/path\", NULL) = 0");
	/* the path not captured: its address */
	CALL(0, 3, 0, 1, 0, 0x1000, 0x7ffd0000);
	CHECK_STR(render_si(&si, false), "frobnicate(3, 000, 1, 0, 0x1000, 0x7ffd0000) = 0");

	/* a tracefs string argument with the names strace gives */
	{
		struct sc_info m;
		static const struct sc_argdesc margs[] = {
			{ "dev_name", "char *" }, { "dir_name", "char *" }, { "type", "char *" },
			{ "flags", "unsigned long" }, { "data", "void *" },
		};

		memset(&m, 0, sizeof(m));
		m.name = "mount";
		m.nargs = 5;
		m.args = margs;
		CALL(0, 0x1000, 0x2000, 0x3000, 0, 0);
		path_chunk(0, "/dev/sda1");
		path_chunk(1, "/mnt");
		str_chunk(2, "ext4");
		CHECK_STR(render_si(&m, false), "mount(\"/dev/sda1\", \"/mnt\", \"ext4\", 0, NULL) = 0");
	}
}

TEST(sysdecode_no_format)
{
	struct sc_info si;

	memset(&si, 0, sizeof(si));
	si.name = "mystery";
	si.nargs = -1;
	CALL(0, 1, 2, 0, -1, 5, 6);
	CHECK_STR(render_si(&si, false), "mystery(0x1, 0x2, 0, 0xffffffffffffffff, 0x5, 0x6) = 0");
	/* a decoder does not need the format */
	si = info_of("close", -1);
	CALL(0, 3);
	CHECK_STR(render_si(&si, false), "close(3) = 0");
	/* nor a name: the number */
	memset(&si, 0, sizeof(si));
	si.nargs = 0;
	CALL(0);
	rec.r.nr = 999;
	CHECK_STR(render_si(&si, false), "syscall_999() = 0");
}

/* ---- JSON ---------------------------------------------------------------------- */

static struct sc_info openat_info(void)
{
	static const struct sc_argdesc args[] = {
		{ "dfd", "" }, { "filename", "" }, { "flags", "" }, { "mode", "" },
	};
	struct sc_info si = info_of("openat", 4);

	si.args = args;
	return si;
}

TEST(sysdecode_json_members)
{
	struct sc_info si = openat_info();

	CALL(-2, -100, 0x1000, 0, 0);
	path_chunk(1, "/nope");
	CHECK_STR(render_si(&si, true),
		  "\"args\":[{\"name\":\"dfd\",\"raw\":18446744073709551516,\"value\":\"AT_FDCWD\"},"
		  "{\"name\":\"filename\",\"raw\":4096,\"value\":\"\\\"/nope\\\"\"},"
		  "{\"name\":\"flags\",\"raw\":0,\"value\":\"O_RDONLY\"}],"
		  "\"ret\":-2,\"retval\":\"-1 ENOENT (No such file or directory)\","
		  "\"errno\":\"ENOENT\",\"error\":\"No such file or directory\"");
	CALL(3, 3, 3);
	si = info_of("fcntl", 3);
	CHECK_STR(render_si(&si, true),
		  "\"args\":[{\"name\":\"arg0\",\"raw\":3,\"value\":\"3\"},"
		  "{\"name\":\"arg1\",\"raw\":3,\"value\":\"F_GETFL\"}],"
		  "\"ret\":3,\"retval\":\"0x3 (flags O_ACCMODE)\"");
	CALL(0, 0);
	rec.r.flags = SC_F_NORET;
	static const struct sc_argdesc error_code[] = { { "error_code", "" } };

	si = info_of("exit_group", 1);
	si.args = error_code;
	CHECK_STR(render_si(&si, true),
		  "\"args\":[{\"name\":\"error_code\",\"raw\":0,\"value\":\"0\"}],"
		  "\"ret\":null,\"retval\":\"?\"");
	CALL(0, 0x1200011, 0, 0, 0x7f3c85587a10, 0);
	si = info_of("clone", 5);
	CHECK(strstr(render_si(&si, true), "{\"name\":\"child_stack\",\"raw\":0,\"value\":\"NULL\"}"));
}

TEST(sysdecode_json_valid)
{
	static const char nasty[] = "\"q\\b\x01\x1f\x7f\xc3\xa9\xff\xfe\xe2\x82\n\t\r/\xf0\x9f\x98\x80";
	struct sc_info si = openat_info();
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CALL(-2, -100, 0x1000, 0x40000000, 0);
	chunk(1, SC_CAP_STR, 0, SC_CHUNK_TRUNC, nasty, sizeof(nasty) - 1);
	CHECK(json_valid(json_of(&si)));

	/* raw bytes straight to json_write_string: controls and bad UTF-8 as \u00XX */
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	json_write_string(f, nasty, sizeof(nasty) - 1);
	fclose(f);
	CHECK(json_valid(buf));
	CHECK_STR(buf, "\"\\\"q\\\\b\\u0001\\u001f\\u007f\xc3\xa9\\u00ff\\u00fe\\u00e2\\u0082"
		       "\\n\\t\\r/\xf0\x9f\x98\x80\"");
	free(buf);
	buf = NULL;
	/* overlong and surrogate encodings are not UTF-8 */
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	json_write_string(f, "\xc0\xaf\xed\xa0\x80", 5);
	fclose(f);
	CHECK_STR(buf, "\"\\u00c0\\u00af\\u00ed\\u00a0\\u0080\"");
	free(buf);

	/* every record of the other tests' shapes stays valid */
	CALL(9, 3, 0x7ffd0000, 2);
	{
		unsigned long long iov[4] = { 0x5000, 3, 0x6000, 6 };
		struct sc_info w = info_of("writev", 3);

		chunk(1, SC_CAP_IOV_IN, 0, 0, iov, sizeof(iov));
		chunk(1, SC_CAP_BUF_IN, 0, 0, "a\"\\\0\n", 5);
		CHECK(json_valid(json_of(&w)));
	}
	si.nargs = -1;
	si.dec = NULL;
	CALL(-600, 1, 2, 3, 4, 5, 6);
	CHECK(json_valid(json_of(&si)));
	CHECK(strstr(json_of(&si), "\"errno\":null,\"error\":\"Unknown error\""));
	CHECK(!json_valid("{\"a\":\"\x01\"}"));
	CHECK(!json_valid("{\"a\":\"\xff\"}"));
	CHECK(!json_valid("{\"a\":1,}"));
}

/* ---- capture specs, chunks, classes ---------------------------------------- */

TEST(sysdecode_specs)
{
	struct sc_info si;
	struct sc_spec sp;

	si = info_of("openat", 4);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.flags, 0);
	CHECK_INT(sp.args[0].cap, SC_CAP_NONE);
	CHECK_INT(sp.args[1].cap, SC_CAP_PATH);
	CHECK_INT(sp.args[3].cap, SC_CAP_NONE);

	si = info_of("read", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_BUF_OUT);
	CHECK_INT(sp.args[1].len_arg, 2);
	CHECK_INT(sp.args[1].size, 0);

	si = info_of("write", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_BUF_IN);
	CHECK_INT(sp.args[1].len_arg, 2);

	si = info_of("newfstatat", 4);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_PATH);
	CHECK_INT(sp.args[2].cap, SC_CAP_STRUCT_OUT);
	CHECK_INT(sp.args[2].size, 144);
	CHECK_INT(sp.args[2].len_arg, SC_LEN_FIXED);

	si = info_of("sendto", 6);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_BUF_IN);
	CHECK_INT(sp.args[1].len_arg, 2);
	CHECK_INT(sp.args[4].cap, SC_CAP_BUF_IN);
	CHECK_INT(sp.args[4].len_arg, 5);
	CHECK_INT(sp.args[4].size, 128);

	si = info_of("recvfrom", 6);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[4].cap, SC_CAP_STRUCT_OUT);
	CHECK_INT(sp.args[4].size, 128);
	CHECK_INT(sp.args[5].cap, SC_CAP_STRUCT_OUT);
	CHECK_INT(sp.args[5].size, 4);

	si = info_of("readv", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_IOV_OUT);
	CHECK_INT(sp.args[1].len_arg, 2);

	si = info_of("execve", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[0].cap, SC_CAP_PATH);
	CHECK_INT(sp.args[1].cap, SC_CAP_STRV);
	CHECK_INT(sp.args[2].cap, SC_CAP_STRV_COUNT);

	si = info_of("poll", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[0].cap, SC_CAP_ARRAY_INOUT);
	CHECK_INT(sp.args[0].len_arg, 1);
	CHECK_INT(sp.args[0].size, 8);

	si = info_of("epoll_wait", 4);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_ARRAY_OUT);
	CHECK_INT(sp.args[1].len_arg, 2);
	CHECK_INT(sp.args[1].size, 12);

	si = info_of("ioctl", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[2].cap, SC_CAP_STRUCT_INOUT);
	CHECK_INT(sp.args[2].size, 16);

	si = info_of("getdents64", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[1].cap, SC_CAP_DIRENTS);

	si = info_of("rt_sigreturn", 0);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[0].cap, SC_CAP_SIGMASK_SP);
	CHECK_INT(sp.args[0].size, 296);

	si = info_of("sched_getaffinity", 3);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[2].cap, SC_CAP_BUF_OUT);
	CHECK_INT(sp.args[2].len_arg, 1);

	si = info_of("clone", 5);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[2].cap, SC_CAP_STRUCT_OUT);
	CHECK_INT(sp.args[2].size, 4);

	si = info_of("exit_group", 1);
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.flags, SC_SPEC_NORET);

	si = generic_info();
	sc_spec_for(&si, &sp);
	for (int i = 0; i < SC_ARGS; i++)
		CHECK_INT(sp.args[i].cap, i == 4 ? SC_CAP_PATH : SC_CAP_NONE);
	si.nargs = -1;
	sc_spec_for(&si, &sp);
	CHECK_INT(sp.args[4].cap, SC_CAP_NONE);
}

TEST(sysdecode_chunks_bounded)
{
	const struct sc_chunk *ch;

	CALL(0, 3, 0x5000, 3);
	chunk(1, SC_CAP_BUF_IN, 0, 0, "abc", 3);
	chunk(2, SC_CAP_STR, 0, 0, "x", 1);
	CHECK(sc_chunk_find(&rec.r, rec_size(), 2, SC_CAP_STR, 0) != NULL);
	CHECK(sc_chunk_find(&rec.r, rec_size(), 2, SC_CAP_STR, 1) == NULL);
	/* the bytes given end before the second chunk */
	CHECK(sc_chunk_find(&rec.r, sizeof(rec.r) + 16, 2, SC_CAP_STR, 0) == NULL);
	CHECK(sc_chunk_find(&rec.r, sizeof(rec.r) - 1, 1, SC_CAP_BUF_IN, 0) == NULL);
	/* a length running past the data stops the walk */
	ch = sc_chunk_find(&rec.r, rec_size(), 1, SC_CAP_BUF_IN, 0);
	CHECK(ch != NULL);
	if (ch)
		((struct sc_chunk *)ch)->len = 60000;
	CHECK(sc_chunk_find(&rec.r, rec_size(), 1, SC_CAP_BUF_IN, 0) == NULL);
	CHECK(sc_chunk_find(&rec.r, rec_size(), 2, SC_CAP_STR, 0) == NULL);
	CHECK_STR(text("write"), "write(3, 0x5000, 3) = 0");
}

TEST(sysdecode_classes)
{
	CHECK(sc_class_known("file"));
	CHECK(sc_class_known("clock"));
	CHECK(!sc_class_known("%file"));
	CHECK(!sc_class_known("nope"));
	CHECK(sc_in_class("openat", "file"));
	CHECK(sc_in_class("openat", "desc"));
	CHECK(!sc_in_class("read", "file"));
	CHECK(sc_in_class("read", "desc"));
	CHECK(sc_in_class("mmap", "memory"));
	CHECK(sc_in_class("mmap", "desc"));
	CHECK(sc_in_class("kill", "signal"));
	CHECK(sc_in_class("kill", "process"));
	CHECK(sc_in_class("connect", "network"));
	CHECK(!sc_in_class("connect", "desc"));
	CHECK(sc_in_class("shmget", "ipc"));
	CHECK(sc_in_class("clock_gettime", "clock"));
	CHECK(!sc_in_class("nanosleep", "clock"));
	CHECK(!sc_in_class("openat", "nope"));
	CHECK(sc_decoder_find("openat") != NULL);
	CHECK(sc_decoder_find("newstat") == NULL);
	CHECK(sc_decoder_find(NULL) == NULL);
}
