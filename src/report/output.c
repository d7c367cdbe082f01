#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "report/output.h"

/* Names of our own descriptors (/dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), the only symlinks ever followed: the descriptor
 * number, else -1. */
static int own_fd(const char *path)
{
	const char *num = NULL;
	char *end;
	long fd;

	if (!strcmp(path, "/dev/stderr"))
		return 2;
	if (!strncmp(path, "/dev/fd/", 8))
		num = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		num = path + 14;
	if (!num || !*num)
		return -1;
	fd = strtol(num, &end, 10);
	return *end || fd < 0 || fd > 1 << 20 ? -1 : (int)fd;
}

/* A SIGINT or SIGTERM waits for us (blocked while the event loop reads
 * them from its signalfd). */
static bool stop_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1);
}

/* Writes to a pipe, FIFO, terminal or device never block with SIGINT and
 * SIGTERM held (the event loop reads them from its signalfd): each write
 * waits in poll() for room, PIPE_BUF bytes at a time (which a pipe with
 * room takes whole), and a pending SIGINT/SIGTERM ends the wait with a
 * write error (EINTR) instead of blocking the run forever on a reader
 * that stopped reading.  FIFOs and devices we open are O_NONBLOCK too. */
static ssize_t special_write(void *cookie, const char *buf, size_t size)
{
	struct pollfd pfd = { .fd = (int)(intptr_t)cookie, .events = POLLOUT };
	size_t done = 0;

	while (done < size) {
		size_t len = size - done < PIPE_BUF ? size - done : PIPE_BUF;
		ssize_t n = -1;

		if (poll(&pfd, 1, stop_pending() ? 0 : 100) > 0) {
			n = write(pfd.fd, buf + done, len);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return done ? (ssize_t)done : -1;
		}
		if (n > 0) {
			done += (size_t)n;
		} else if (stop_pending()) {
			errno = EINTR;
			return done ? (ssize_t)done : -1;
		}
	}
	return (ssize_t)done;
}

static int special_close(void *cookie)
{
	return close((int)(intptr_t)cookie);
}

/* Root or the caller owns a FIFO or device output; else why not. */
static bool owner_ok(const struct stat *st, char *why, size_t size)
{
	if (st->st_uid == 0 || st->st_uid == getuid())
		return true;
	snprintf(why, size, "%s owned by uid %u, not root or the caller: refused",
		 S_ISFIFO(st->st_mode) ? "a FIFO" : "a device", (unsigned)st->st_uid);
	return false;
}

int output_check(const char *path, char *why, size_t size)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;

	if (!path || !strcmp(path, "-") || own_fd(path) >= 0)
		return 0;
	if (lstat(path, &st)) {
		int err = errno;

		if (err != ENOENT && err != ENOTDIR) {
			snprintf(why, size, "cannot create: %s", strerror(err));
			return -err;
		}
		/* to be made: in a directory that is there (its name as of
		 * now) */
		slash = strrchr(path, '/');
		if (!slash)
			return 0;
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		if (stat(dir, &st)) {
			err = errno;
			snprintf(why, size, "directory %s: %s", dir, strerror(err));
			return -err;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, size, "%s: not a directory", dir);
			return -ENOTDIR;
		}
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, size, "is a directory");
		return -EISDIR;
	}
	if ((S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) && !owner_ok(&st, why, size))
		return -EPERM;
	return 0;
}

/* A destination that is a character device or FIFO (/dev/null, a named
 * pipe) is written in place: renaming over it would replace the node
 * itself.  Only one owned by root or by us: another user's FIFO would
 * hold the run at its will.  It is opened O_NONBLOCK (a FIFO with no
 * reader is refused, not waited for).  A symlink is never followed (it
 * is replaced), except to our own descriptors (/dev/stderr).  Block
 * devices and sockets are refused.  Returns the open fd, 0 when the path
 * is to be created or replaced by rename, or -errno (o->why says more). */
static int open_special(struct output *o, const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		return -ENOTSUP;
	if (!owner_ok(&st, o->why, sizeof(o->why)))
		return -EPERM;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENXIO && S_ISFIFO(st.st_mode))
			snprintf(o->why, sizeof(o->why), "a FIFO with no reader");
		return -errno;
	}
	/* it may have been swapped since the stat */
	if (fstat(fd, &st) || (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) ||
	    (st.st_uid != 0 && st.st_uid != getuid())) {
		close(fd);
		return -EAGAIN;
	}
	return fd;
}

const char *output_error(const struct output *o, int err)
{
	static char buf[128];

	if (o->why[0])
		return o->why;
	snprintf(buf, sizeof(buf), "cannot create: %s", strerror(-err));
	return buf;
}

/* o writes through fd (ours from here): stdio for a regular file, else
 * special_write(). */
static int open_fd(struct output *o, int fd)
{
	struct stat st;
	int err;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		o->f = fdopen(fd, "w");
	else
		o->f = fopencookie((void *)(intptr_t)fd, "w",
				   (cookie_io_functions_t){ .write = special_write,
							    .close = special_close });
	if (!o->f) {
		err = -errno;
		close(fd);
		return err;
	}
	o->special = true;
	return 0;
}

int output_open(struct output *o, const char *path)
{
	const char *slash;
	struct stat st;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		/* a pipe or terminal: through special_write() on a copy */
		if (fstat(STDOUT_FILENO, &st) || S_ISREG(st.st_mode) ||
		    (fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0) {
			o->f = stdout;
			return 0;
		}
		fflush(stdout);
		return open_fd(o, fd);
	}
	/* our own descriptor: written where it points, whatever it is (a
	 * file stderr was redirected to must not be renamed over) */
	fd = own_fd(path);
	if (fd >= 0) {
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		return open_fd(o, fd);
	}
	fd = open_special(o, path);
	if (fd < 0)
		return fd;
	if (fd > 0)
		return open_fd(o, fd);
	o->path = strdup(path);
	slash = strrchr(path, '/');
	if (!o->path || asprintf(&o->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0,
				 path, slash ? slash + 1 : path) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
		goto fail;
	}
	/* Nameless until committed, so a killed run leaves nothing behind;
	 * a named temporary where the filesystem has no O_TMPFILE. */
	{
		char *dir = slash ? strndup(path, slash - path + 1) : strdup(".");

		fd = dir ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644) : -1;
		free(dir);
	}
	o->anon = fd >= 0;
	if (fd < 0)
		fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	fchmod(fd, 0644);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		close(fd);
		if (!o->anon)
			unlink(o->tmp);
		goto fail;
	}
	return 0;
fail:
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return err;
}

/* Gives the nameless temporary the name o->tmp (its XXXXXX filled with
 * random letters until the name is new), for the rename into place. */
static int link_anon(struct output *o)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(o->tmp);
	char fdpath[64];
	unsigned char r[6];

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fileno(o->f));
	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			return -EIO;
		for (int i = 0; i < 6; i++)
			o->tmp[len - 6 + i] = letters[r[i] % (sizeof(letters) - 1)];
		if (!linkat(AT_FDCWD, fdpath, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int output_close(struct output *o, bool commit)
{
	int err = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		err = -(errno ? errno : EIO);
	if (o->special) {
		if (fclose(o->f) && !err)
			err = -errno;
		o->f = NULL;
		return err;
	}
	if (!o->path) {
		o->f = NULL;
		return err;
	}
	if (o->anon && commit && !err)
		err = link_anon(o);
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (commit && !err && rename(o->tmp, o->path))
		err = -errno;
	if ((!commit || err) && (!o->anon || commit))
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return err;
}
