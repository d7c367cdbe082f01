/* Known syscalls with known arguments, made directly (no libc wrapper
 * picks another syscall), for `stackscope syscalls` tests:
 *   sysc_wl DIR N [fork]
 * creates, writes, reads, stats and removes DIR/data, fails to open
 * DIR/nope, sleeps 20 ms, makes a pipe, polls it (poll, epoll), reads
 * its name (prctl), asks the pipe for terminal settings (ioctl, ENOTTY),
 * calls getppid N times; with
 * "fork", a child opens DIR/child and exits 3, and the parent waits. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static const char text[] = "hello, stackscope\n";

int main(int argc, char **argv)
{
	char data[4096], nope[4096], child[4096], buf[64];
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct stat st;
	struct pollfd pfd[2];
	struct epoll_event ev = { .events = EPOLLOUT }, evs[8];
	struct termios tio;
	char name[16];
	long n, fd, ep;
	int fds[2];

	if (argc < 3)
		return 2;
	snprintf(data, sizeof(data), "%s/data", argv[1]);
	snprintf(nope, sizeof(nope), "%s/nope", argv[1]);
	snprintf(child, sizeof(child), "%s/child", argv[1]);
	n = atol(argv[2]);

	fd = syscall(SYS_openat, AT_FDCWD, data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	syscall(SYS_write, fd, text, strlen(text));
	syscall(SYS_close, fd);
	fd = syscall(SYS_openat, AT_FDCWD, data, O_RDONLY);
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_fstat, fd, &st);
	syscall(SYS_close, fd);
	syscall(SYS_openat, AT_FDCWD, nope, O_RDONLY);
	syscall(SYS_nanosleep, &ts, NULL);
	syscall(SYS_pipe2, fds, O_CLOEXEC);
	pfd[0] = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = fds[1], .events = POLLOUT };
	syscall(SYS_poll, pfd, 2, 0);
	ep = syscall(SYS_epoll_create1, EPOLL_CLOEXEC);
	ev.data.u64 = fds[1];
	syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, fds[1], &ev);
	syscall(SYS_epoll_wait, ep, evs, 8, 0);
	syscall(SYS_prctl, PR_GET_NAME, name);
	syscall(SYS_ioctl, fds[0], TCGETS, &tio);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	syscall(SYS_unlinkat, AT_FDCWD, data, 0);
	if (argc > 3 && !strcmp(argv[3], "fork")) {
		long pid = syscall(SYS_fork);

		if (pid == 0) {
			syscall(SYS_openat, AT_FDCWD, child, O_RDONLY);
			syscall(SYS_exit_group, 3);
		}
		syscall(SYS_wait4, pid, NULL, 0, NULL);
	}
	syscall(SYS_exit_group, 0);
	return 0;
}
