#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/mount.h>
#include "common.h"
#include "trace/tracefs.h"

struct tracefs {
	char root[64];		/* the mount point */
	char events[80];
	bool ours;		/* mounted by tracefs_open() */
};

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

struct tracefs *tracefs_open(void)
{
	static const char *const mounted[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct tracefs *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(mounted); i++) {
		snprintf(t->events, sizeof(t->events), "%s/events", mounted[i]);
		if (is_dir(t->events)) {
			snprintf(t->root, sizeof(t->root), "%s", mounted[i]);
			return t;
		}
	}
	snprintf(t->root, sizeof(t->root), "/run/stackscope-tracefs.XXXXXX");
	if (!mkdtemp(t->root)) {
		err = errno;
		msg("tracefs is not mounted and %s cannot be created: %s", t->root, strerror(err));
		goto fail;
	}
	if (mount("tracefs", t->root, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		err = errno;
		msg("tracefs: cannot mount on %s: %s", t->root, strerror(err));
		rmdir(t->root);
		goto fail;
	}
	t->ours = true;
	snprintf(t->events, sizeof(t->events), "%s/events", t->root);
	return t;
fail:
	free(t);
	errno = err;
	return NULL;
}

void tracefs_close(struct tracefs *t)
{
	if (!t)
		return;
	if (t->ours) {
		if (umount2(t->root, MNT_DETACH))
			msg("tracefs: cannot unmount %s: %s", t->root, strerror(errno));
		rmdir(t->root);
	}
	free(t);
}

const char *tracefs_events(const struct tracefs *t)
{
	return t->events;
}

static bool name_ok(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int tracefs_event_id(const struct tracefs *t, const char *sub, const char *event)
{
	char path[512], buf[32];
	int fd, id;
	ssize_t n;

	if (!name_ok(sub) || !name_ok(event))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s/%s/id", t->events, sub, event);
	fd = open_regular(path, NULL);
	if (fd < 0)
		return fd == -EINVAL ? -ENOENT : fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	id = atoi(buf);
	return id > 0 ? id : -EIO;
}

/* A tracefs instance of our own, attached nowhere: its root, or -errno. */
static int tracefs_detached(void)
{
#if defined(SYS_fsopen) && defined(SYS_fsconfig) && defined(SYS_fsmount)
	int fs = syscall(SYS_fsopen, "tracefs", FSOPEN_CLOEXEC), mnt, err;

	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		err = -errno;
		close(fs);
		return err;
	}
	mnt = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
		      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	err = -errno;
	close(fs);
	return mnt >= 0 ? mnt : err;
#else
	return -ENOSYS;
#endif
}

int tracefs_events_dir(const char *sub)
{
	static const char *const mounted[] = { "/sys/kernel/tracing/events",
					       "/sys/kernel/debug/tracing/events" };
	struct tracefs *t;
	char path[128];
	int root, fd;

	if (!name_ok(sub))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(mounted); i++) {
		if (!is_dir(mounted[i]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", mounted[i], sub);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd >= 0 ? fd : -errno;
	}
	root = tracefs_detached();
	if (root >= 0) {
		snprintf(path, sizeof(path), "events/%s", sub);
		fd = openat(root, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			fd = -errno;
		close(root);
		return fd;
	}
	debug("tracefs of our own (fsopen): %s; mounting it under /run", strerror(-root));
	t = tracefs_open();
	if (!t)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", t->events, sub);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		fd = -errno;
	tracefs_close(t);
	return fd;
}
