#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* A destination that is a character device, FIFO or socket (/dev/null, a
 * named pipe) is written in place: renaming over it would replace the
 * node itself.  A symlink is never followed (it is replaced), except to
 * our own descriptors (/dev/stderr).  Block devices are refused.
 * Returns the open fd, 0 when the path is to be created or replaced by
 * rename, or -errno. */
static int open_special(const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISBLK(st.st_mode))
		return -ENOTSUP;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* it may have been swapped since the stat */
	if (fstat(fd, &st) || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
		close(fd);
		return -EAGAIN;
	}
	return fd;
}

int output_open(struct output *o, const char *path)
{
	const char *slash;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		o->f = stdout;
		return 0;
	}
	/* our own descriptor: written where it points, whatever it is (a
	 * file stderr was redirected to must not be renamed over) */
	fd = own_fd(path);
	if (fd >= 0) {
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
	} else {
		fd = open_special(path);
		if (fd < 0)
			return fd;
	}
	if (fd > 0) {
		o->f = fdopen(fd, "w");
		if (!o->f) {
			err = -errno;
			close(fd);
			return err;
		}
		o->special = true;
		return 0;
	}
	o->path = strdup(path);
	slash = strrchr(path, '/');
	if (!o->path || asprintf(&o->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0,
				 path, slash ? slash + 1 : path) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
		goto fail;
	}
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
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (commit && !err && rename(o->tmp, o->path))
		err = -errno;
	if (!commit || err)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return err;
}
