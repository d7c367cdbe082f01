#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include "common.h"
#include "trace/loop.h"

struct loop_fd {
	int fd;
	int (*cb)(void *ctx);	/* NULL: a pidfd */
	void *ctx;
	int done;		/* pidfd whose process exited */
};

struct loop {
	sigset_t old_mask;
	int sfd;
	struct loop_fd *fds;	/* grown as fds are added */
	struct pollfd *pfd;	/* the signalfd, then one per fds[] */
	int nfds, cap, npids;
	double duration;	/* 0 = none */
	double tick;
	int (*tick_cb)(void *ctx);
	void *tick_ctx;
	double window;
	int (*window_cb)(void *ctx);
	void *window_ctx;
	int signo;
	int stop;		/* loop_stop() */
};

struct loop *loop_new(void)
{
	struct loop *lp = calloc(1, sizeof(*lp));
	sigset_t mask;

	if (!lp)
		return NULL;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, &lp->old_mask)) {
		free(lp);
		return NULL;
	}
	lp->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (lp->sfd < 0) {
		int e = errno;
		sigprocmask(SIG_SETMASK, &lp->old_mask, NULL);
		free(lp);
		errno = e;
		return NULL;
	}
	return lp;
}

void loop_free(struct loop *lp)
{
	if (!lp)
		return;
	for (int i = 0; i < lp->nfds; i++)
		if (!lp->fds[i].cb)
			close(lp->fds[i].fd);
	close(lp->sfd);
	sigprocmask(SIG_SETMASK, &lp->old_mask, NULL);
	free(lp->fds);
	free(lp->pfd);
	free(lp);
}

static int reserve(struct loop *lp)
{
	struct loop_fd *f;
	struct pollfd *p;
	int cap;

	if (lp->nfds < lp->cap)
		return 0;
	cap = lp->cap ? lp->cap * 2 : 16;
	f = realloc(lp->fds, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	lp->fds = f;
	p = realloc(lp->pfd, (cap + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	lp->pfd = p;
	lp->cap = cap;
	return 0;
}

int loop_add_fd(struct loop *lp, int fd, int (*cb)(void *ctx), void *ctx)
{
	int err = reserve(lp);

	if (err)
		return err;
	lp->fds[lp->nfds++] = (struct loop_fd){ .fd = fd, .cb = cb, .ctx = ctx };
	return 0;
}

int loop_watch_pid(struct loop *lp, pid_t pid)
{
	int fd, err = reserve(lp);

	if (err)
		return err;
	fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -errno;
	lp->fds[lp->nfds++] = (struct loop_fd){ .fd = fd };
	lp->npids++;
	return 0;
}

void loop_set_duration(struct loop *lp, double seconds)
{
	lp->duration = seconds;
}

void loop_set_tick(struct loop *lp, double seconds, int (*cb)(void *ctx), void *ctx)
{
	lp->tick = seconds;
	lp->tick_cb = cb;
	lp->tick_ctx = ctx;
}

void loop_set_window(struct loop *lp, double seconds, int (*cb)(void *ctx), void *ctx)
{
	lp->window = seconds;
	lp->window_cb = cb;
	lp->window_ctx = ctx;
}

int loop_signal(const struct loop *lp)
{
	return lp->signo;
}

int loop_take_signal(struct loop *lp)
{
	struct signalfd_siginfo si;

	if (read(lp->sfd, &si, sizeof(si)) == sizeof(si))
		return si.ssi_signo;
	return 0;
}

void loop_stop(struct loop *lp)
{
	lp->stop = 1;
}

int loop_run(struct loop *lp)
{
	double start = now_sec(), next_tick = start + lp->tick, next_window = start + lp->window;
	struct pollfd *pfd;

	if (reserve(lp))
		return -ENOMEM;
	pfd = lp->pfd;

	for (;;) {
		double t = now_sec(), wait = 3600;
		int n, err;

		if (lp->stop)
			return LOOP_STOPPED;

		if (lp->duration > 0) {
			if (t >= start + lp->duration)
				return LOOP_TIMEOUT;
			wait = start + lp->duration - t;
		}
		if (lp->tick_cb) {
			if (t >= next_tick) {
				err = lp->tick_cb(lp->tick_ctx);
				if (err < 0)
					return err;
				if (lp->stop)
					return LOOP_STOPPED;
				next_tick = t + lp->tick;
			}
			if (next_tick - t < wait)
				wait = next_tick - t;
		}
		if (lp->window_cb) {
			if (t >= next_window) {
				err = lp->window_cb(lp->window_ctx);
				if (err < 0)
					return err;
				/* on the grid from the start, unless a window
				 * took longer than its period to close */
				next_window += lp->window;
				t = now_sec();
				if (next_window <= t)
					next_window = t + lp->window;
			}
			if (next_window - t < wait)
				wait = next_window - t;
		}
		pfd[0] = (struct pollfd){ .fd = lp->sfd, .events = POLLIN };
		for (int i = 0; i < lp->nfds; i++)
			pfd[i + 1] = (struct pollfd){
				.fd = lp->fds[i].done ? -1 : lp->fds[i].fd,
				.events = POLLIN,
			};
		n = poll(pfd, lp->nfds + 1, (int)(wait * 1000) + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(lp->sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP && lp->window_cb) {
					err = lp->window_cb(lp->window_ctx);
					if (err < 0)
						return err;
					next_window = now_sec() + lp->window;
					continue;
				}
				lp->signo = si.ssi_signo;
				return LOOP_SIGNAL;
			}
		}
		for (int i = 0; i < lp->nfds; i++) {
			struct loop_fd *f = &lp->fds[i];

			if (!pfd[i + 1].revents)
				continue;
			if (f->cb) {
				err = f->cb(f->ctx);
				if (err < 0)
					return err;
				if (lp->stop)
					return LOOP_STOPPED;
			} else if (!f->done) {
				f->done = 1;
				if (--lp->npids == 0)
					return LOOP_EXITED;
			}
		}
	}
}
