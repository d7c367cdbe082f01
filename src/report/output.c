#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "report/output.h"

int output_open(struct output *o, const char *path)
{
	const char *slash;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
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
