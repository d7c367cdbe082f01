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
	char root[64];		/* the mount point, or /proc/self/fd/FD */
	char events[80];
	int fd;			/* a tracefs of our own attached nowhere, or -1 */
	bool ours;		/* mounted by tracefs_open() */
};

static int tracefs_detached(void);

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where the system has tracefs mounted (its events directory there), or
 * NULL. */
static const char *mounted_tracefs(void)
{
	static const char *const mounted[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char events[80];

	for (size_t i = 0; i < ARRAY_SIZE(mounted); i++) {
		snprintf(events, sizeof(events), "%s/events", mounted[i]);
		if (is_dir(events))
			return mounted[i];
	}
	return NULL;
}

struct tracefs *tracefs_open(void)
{
	struct tracefs *t = calloc(1, sizeof(*t));
	const char *mounted = mounted_tracefs();
	int err;

	if (!t)
		return NULL;
	t->fd = -1;
	if (mounted) {
		snprintf(t->root, sizeof(t->root), "%s", mounted);
		snprintf(t->events, sizeof(t->events), "%s/events", mounted);
		return t;
	}
	/* an instance of our own, attached nowhere: no directory, no mount
	 * to take away, nothing left behind by a killed run; reached through
	 * its descriptor, gone with it */
	t->fd = tracefs_detached();
	if (t->fd >= 0) {
		snprintf(t->root, sizeof(t->root), "/proc/self/fd/%d", t->fd);
		snprintf(t->events, sizeof(t->events), "%s/events", t->root);
		return t;
	}
	debug("tracefs of our own (fsopen): %s; mounting it under /run", strerror(-t->fd));
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
	if (t->fd >= 0)
		close(t->fd);
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
	struct tracefs *t;
	char path[128];
	int fd;

	if (!name_ok(sub))
		return -EINVAL;
	t = tracefs_open();
	if (!t)
		return -errno;
	/* the descriptor keeps a private instance alive once t is closed */
	snprintf(path, sizeof(path), "%s/%s", t->events, sub);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		fd = -errno;
	tracefs_close(t);
	return fd;
}
