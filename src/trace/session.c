#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "bpf/procs.h"
#include "report/output.h"
#include "trace/launch.h"
#include "trace/loop.h"
#include "trace/session.h"

#define DEFAULT_TICK 0.1

/* A link or a perf event fd the session releases. */
struct owned {
	struct bpf_link *link;	/* NULL: fd */
	int fd;
};

struct drain_step {
	int (*fn)(void *ctx);
	void *ctx;
};

/* One item of the closing line. */
struct count {
	char *label;
	uint64_t n;
	unsigned flags;
};

struct session {
	struct session_opts o;	/* a copy; pids and cmd stay the caller's */
	struct loop *loop;
	struct launch child;
	struct owned *owned;
	size_t nowned, owned_cap;
	struct drain_step *steps;
	size_t nsteps;
	struct ring_buffer **rbs;
	size_t nrbs;
	struct output out;
	bool out_open, write_failed;
	struct count *counts;
	size_t ncounts;
	double elapsed;
	struct drain_step window;	/* fn NULL: no windows */
	double window_len;
	uint64_t procs_said[PROCS_STAT_NR];	/* procs_stats as said last */
	double procs_said_at;		/* now_sec() then; 0: never */
};

int session_parse_opt(struct session_opts *o, int c, const char *arg)
{
	int n;

	switch (c) {
	case 'p':
		if (o->pids) {
			msg("-p given twice; list the pids as -p PID,PID");
			return -2;
		}
		n = parse_pid_list(arg, &o->pids);
		if (n < 0)
			return n == -ESRCH ? -1 : -2;
		o->npids = n;
		return 1;
	case 'd':
		if (parse_seconds(arg, &o->duration)) {
			msg("-d %s: expected a duration in seconds", arg);
			return -2;
		}
		return 1;
	case 'o':
		o->output = arg;
		return 1;
	case 'v':
		verbose++;
		return 1;
	}
	return 0;
}

int session_check_opts(const struct session_opts *o)
{
	if (o->cmd && o->npids) {
		msg("-p and a command exclude each other");
		return 2;
	}
	return 0;
}

void session_opts_free(struct session_opts *o)
{
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
}

struct session *session_new(const struct session_opts *o)
{
	struct session *s;
	char why[PATH_MAX + 64];

	/* an output refused at the end would waste the whole capture */
	if (output_check(o->output, why, sizeof(why))) {
		msg("%s: %s", o->output, why);
		errno = EPERM;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto fail;
	s->o = *o;
	if (!s->o.tick)
		s->o.tick = DEFAULT_TICK;
	s->child.gate_fd = s->child.err_fd = -1;
	libbpf_setup_print();
	s->loop = loop_new();
	if (!s->loop)
		goto fail;
	return s;
fail:
	msg("cannot set up the run: %s", strerror(errno));
	session_free(s);
	errno = ENOMEM;
	return NULL;
}

const struct session_opts *session_opts(const struct session *s)
{
	return &s->o;
}

/* Many uprobes or CPUs take many fds; the command keeps the limit it had. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int session_launch(struct session *s)
{
	int err = 0;

	if (s->o.cmd) {
		err = launch_start(&s->child, s->o.cmd);
		if (err)
			msg("cannot run '%s': %s", s->o.cmd[0], strerror(-err));
	}
	raise_fd_limit();
	return err;
}

pid_t session_child(const struct session *s)
{
	return s->child.pid;
}

bool session_filtered(const struct session *s)
{
	return s->o.npids > 0 || s->o.cmd;
}

#define PROCS_MAPS_ENV "STACKSCOPE_PROCS_MAPS"
#define PROCS_MAPS_MAX (1 << 20)	/* entries the variable may ask for */

/* STACKSCOPE_PROCS_MAPS="targets=N,gens=N" (either or both): the tests
 * size the process maps small, to fill them with a few processes.  The
 * sizes asked, 0 where not; text it cannot read is said and ignored. */
static void procs_maps_env(uint32_t *targets, uint32_t *gens)
{
	const char *env = getenv(PROCS_MAPS_ENV);
	char *copy, *tok, *save = NULL;

	*targets = *gens = 0;
	if (!env || !(copy = strdup(env)))
		return;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint32_t *to = NULL;
		long n;

		if (eq) {
			*eq++ = 0;
			to = !strcmp(tok, "targets") ? targets : !strcmp(tok, "gens") ? gens : NULL;
		}
		if (!to) {
			msg("%s: \"%s\": expected targets=N,gens=N; ignored", PROCS_MAPS_ENV, env);
		} else if (parse_long(eq, 1, PROCS_MAPS_MAX, &n)) {
			msg("%s: \"%s\": %s is not a size from 1 to %d; ignored", PROCS_MAPS_ENV,
			    env, eq, PROCS_MAPS_MAX);
			to = NULL;
		}
		if (!to) {
			*targets = *gens = 0;
			break;
		}
		*to = (uint32_t)n;
	}
	free(copy);
}

void session_size_gens(const struct session *s, struct bpf_map *targets, struct bpf_map *gens)
{
	uint32_t t, g;

	procs_maps_env(&t, &g);
	if (t)
		bpf_map__set_max_entries(targets, t);
	if (g)
		bpf_map__set_max_entries(gens, g);
	else if (session_filtered(s))
		bpf_map__set_max_entries(gens, 2 * bpf_map__max_entries(targets));
}

#define PROCS_SAY_EVERY 60.0	/* seconds between two messages of a long run */

/* The losses of procs_stats (bpf/procs.h) as of now, into n. */
static void procs_losses(const struct bpf_object *obj, uint64_t n[PROCS_STAT_NR])
{
	int fd = bpf_object__find_map_fd_by_name(obj, "procs_stats");

	for (int i = 0; i < PROCS_STAT_NR; i++)
		n[i] = fd < 0 ? 0 : percpu_sum(fd, i);
}

static uint32_t map_size(const struct bpf_object *obj, const char *name)
{
	const struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__max_entries(m) : 0;
}

/* Says the losses that grew since said last; whether it said any. */
static bool say_procs(struct session *s, const struct bpf_object *obj)
{
	uint64_t n[PROCS_STAT_NR];
	bool said = false;

	procs_losses(obj, n);
	if (n[PROCS_NOT_FOLLOWED] > s->procs_said[PROCS_NOT_FOLLOWED]) {
		msg("%llu child processes not followed: the targets map (%u processes) was full "
		    "or out of memory; nothing of them was traced",
		    (unsigned long long)n[PROCS_NOT_FOLLOWED], map_size(obj, "targets"));
		said = true;
	}
	if (n[PROCS_UNTIMED] > s->procs_said[PROCS_UNTIMED]) {
		msg("%llu address spaces (forks, execs) not timed: the gens map (%u processes) "
		    "was full or out of memory; their processes' user stacks may be named from "
		    "an older address space", (unsigned long long)n[PROCS_UNTIMED],
		    map_size(obj, "gens"));
		said = true;
	}
	memcpy(s->procs_said, n, sizeof(n));
	return said;
}

void session_say_procs(struct session *s, const struct bpf_object *obj)
{
	double t = now_sec();

	if (s->procs_said_at && t - s->procs_said_at < PROCS_SAY_EVERY)
		return;
	if (say_procs(s, obj))
		s->procs_said_at = t;
}

void session_count_procs(struct session *s, const struct bpf_object *obj)
{
	say_proc_maps(bpf_object__find_map_fd_by_name(obj, "gens"),
		      bpf_object__find_map_fd_by_name(obj, "targets"));
	say_procs(s, obj);
	session_count(s, "child processes not followed", s->procs_said[PROCS_NOT_FOLLOWED],
		      SESSION_LOSS | SESSION_IF_ANY);
	session_count(s, "address spaces not timed", s->procs_said[PROCS_UNTIMED],
		      SESSION_LOSS | SESSION_IF_ANY);
}

int session_fill_targets(struct session *s, int map_fd)
{
	__u8 on = TARGET_ON, gated = TARGET_PRE_EXEC;
	int err = 0;

	for (int i = 0; i < s->o.npids && !err; i++) {
		__u32 pid = s->o.pids[i];

		if (bpf_map_update_elem(map_fd, &pid, &on, BPF_ANY))
			err = -errno;
	}
	if (!err && s->child.pid) {
		__u32 pid = s->child.pid;

		if (bpf_map_update_elem(map_fd, &pid, &gated, BPF_ANY))
			err = -errno;
	}
	if (err)
		msg("filling the process filter: %s", strerror(-err));
	return err;
}

static int own(struct session *s, struct bpf_link *link, int fd)
{
	if (s->nowned == s->owned_cap) {
		size_t cap = s->owned_cap ? s->owned_cap * 2 : 16;
		struct owned *n = realloc(s->owned, cap * sizeof(*n));

		if (!n) {
			if (link)
				bpf_link__destroy(link);
			else
				close(fd);
			return -ENOMEM;
		}
		s->owned = n;
		s->owned_cap = cap;
	}
	s->owned[s->nowned++] = (struct owned){ link, fd };
	return 0;
}

int session_own_link(struct session *s, struct bpf_link *link)
{
	return own(s, link, -1);
}

int session_own_fd(struct session *s, int fd)
{
	return own(s, NULL, fd);
}

void session_detach(struct session *s)
{
	while (s->nowned > 0) {
		struct owned *o = &s->owned[--s->nowned];

		if (o->link)
			bpf_link__destroy(o->link);
		else
			close(o->fd);
	}
}

static int drain_cb(void *ctx)
{
	return session_drain(ctx);
}

int session_add_drain(struct session *s, int (*fn)(void *ctx), void *ctx)
{
	struct drain_step *n = realloc(s->steps, (s->nsteps + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->steps = n;
	s->steps[s->nsteps++] = (struct drain_step){ fn, ctx };
	return 0;
}

int session_add_fd(struct session *s, int fd)
{
	return loop_add_fd(s->loop, fd, drain_cb, s);
}

static int consume(void *ctx)
{
	int n = ring_buffer__consume(ctx);

	return n < 0 ? n : 0;
}

int session_add_ringbuf(struct session *s, int map_fd,
			int (*cb)(void *ctx, void *data, size_t size), void *ctx)
{
	struct ring_buffer **n, *rb;
	int err;

	n = realloc(s->rbs, (s->nrbs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->rbs = n;
	rb = ring_buffer__new(map_fd, cb, ctx, NULL);
	if (!rb) {
		err = -errno;
		msg("%s: ring buffer: %s", s->o.name, strerror(-err));
		return err;
	}
	s->rbs[s->nrbs++] = rb;
	err = session_add_drain(s, consume, rb);
	if (!err)
		err = loop_add_fd(s->loop, ring_buffer__epoll_fd(rb), drain_cb, s);
	return err;
}

int session_drain(struct session *s)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		struct drain_step *st = &s->steps[i];
		int err = st->fn(st->ctx);

		if (err < 0)
			return err;
	}
	if (s->out_open && fflush(s->out.f) && !s->write_failed) {
		int err = -errno;

		s->write_failed = true;
		msg("%s: write failed: %s", s->o.output ? s->o.output : "stdout", strerror(-err));
		return err;
	}
	return 0;
}

static int window_cb(void *ctx)
{
	struct session *s = ctx;
	int err = session_drain(s);

	return err ? err : s->window.fn(s->window.ctx);
}

int session_set_window(struct session *s, double seconds, int (*fn)(void *ctx), void *ctx)
{
	if (seconds <= 0 || !fn)
		return -EINVAL;
	s->window = (struct drain_step){ fn, ctx };
	s->window_len = seconds;
	return 0;
}

FILE *session_output(struct session *s)
{
	int err;

	if (s->out_open)
		return s->out.f;
	err = output_open(&s->out, s->o.output);
	if (err) {
		msg("%s: %s", s->o.output, output_error(&s->out, err));
		errno = -err;
		return NULL;
	}
	s->out_open = true;
	return s->out.f;
}

int session_run(struct session *s)
{
	double t0;
	int err, end;

	for (int i = 0; i < s->o.npids; i++) {
		err = loop_watch_pid(s->loop, s->o.pids[i]);
		if (err && err != -ESRCH) {
			msg("pid %d: cannot watch: %s", s->o.pids[i], strerror(-err));
			return err;
		}
	}
	if (s->nsteps)
		loop_set_tick(s->loop, s->o.tick, drain_cb, s);
	if (s->o.duration > 0)
		loop_set_duration(s->loop, s->o.duration);
	if (s->window.fn)
		loop_set_window(s->loop, s->window_len, window_cb, s);
	if (s->child.pid) {
		err = loop_watch_pid(s->loop, s->child.pid);
		if (!err)
			err = launch_release(&s->child);
		if (err == -ENOEXEC) {
			msg("%s: not an executable the kernel accepts (%s); run it through its "
			    "interpreter: sh %s", s->o.cmd[0], strerror(-err), s->o.cmd[0]);
			return err;
		}
		if (err) {
			msg("cannot run '%s': %s", s->o.cmd[0], strerror(-err));
			return err;
		}
	}
	t0 = now_sec();
	end = loop_run(s->loop);
	s->elapsed = now_sec() - t0;
	if (end < 0) {
		msg("waiting: %s", strerror(-end));
		return end;
	}
	/* make sure the command ends when we were told to stop */
	if (end == LOOP_SIGNAL && s->child.pid && !s->child.reaped)
		kill(s->child.pid, loop_signal(s->loop));
	/* stopped by the traced program: the command ends with the run */
	if (end == LOOP_STOPPED && s->child.pid && !s->child.reaped)
		kill(s->child.pid, SIGTERM);
	return 0;
}

void session_stop(struct session *s)
{
	loop_stop(s->loop);
}

double session_elapsed(const struct session *s)
{
	return s->elapsed;
}

int session_signal(const struct session *s)
{
	return loop_signal(s->loop);
}

void session_count(struct session *s, const char *label, uint64_t n, unsigned flags)
{
	struct count *c;

	for (size_t i = 0; i < s->ncounts; i++) {
		if (!strcmp(s->counts[i].label, label)) {
			c = &s->counts[i];
			c->n = c->n + n < c->n ? UINT64_MAX : c->n + n;
			c->flags |= flags;
			return;
		}
	}
	c = realloc(s->counts, (s->ncounts + 1) * sizeof(*c));
	if (!c)
		return;
	s->counts = c;
	c = &s->counts[s->ncounts];
	c->label = strdup(label);
	if (!c->label)
		return;
	c->n = n;
	c->flags = flags;
	s->ncounts++;
}

uint64_t session_lost(const struct session *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->ncounts; i++)
		if (s->counts[i].flags & SESSION_LOSS)
			n += s->counts[i].n;
	return n;
}

static void closing_line(const struct session *s, bool wrote)
{
	const char *sep = " ";

	fprintf(stderr, "stackscope %s:", s->o.name);
	for (size_t i = 0; i < s->ncounts; i++) {
		const struct count *c = &s->counts[i];

		if ((c->flags & SESSION_IF_ANY) && !c->n)
			continue;
		fprintf(stderr, "%s%llu %s", sep, (unsigned long long)c->n, c->label);
		sep = ", ";
	}
	if (wrote)
		fprintf(stderr, "%swrote %s", sep, s->o.output);
	fputc('\n', stderr);
}

#define GRACE_TERM 1.0	/* seconds after the forwarded signal: SIGTERM */
#define GRACE_KILL 2.0	/* then SIGKILL */

/* After a signal ended the run, the command had it too.  One that
 * survives it (it ignores SIGINT, or was started in the background of a
 * script) gets SIGTERM after a grace period, then SIGKILL, so stackscope
 * ends within about two seconds; a second signal kills it at once. */
static void reap_after_signal(struct session *s)
{
	double t0 = now_sec();
	bool termed = false;

	while (!launch_poll(&s->child)) {
		double t = now_sec() - t0;

		if (loop_take_signal(s->loop) || t >= GRACE_KILL) {
			msg("'%s' still running %.1f s after the signal: killed", s->o.cmd[0], t);
			kill(s->child.pid, SIGKILL);
			break;
		}
		if (!termed && t >= GRACE_TERM) {
			kill(s->child.pid, SIGTERM);
			termed = true;
		}
		usleep(20000);
	}
}

int session_end(struct session *s, int err)
{
	int status;

	if (s->out_open) {
		int cerr = output_close(&s->out, !err && !s->write_failed);

		s->out_open = false;
		if (cerr && !err) {
			msg("%s: write failed: %s", s->o.output ? s->o.output : "stdout",
			    strerror(-cerr));
			err = cerr;
		}
	}
	if (s->write_failed && !err)
		err = -EIO;
	if (s->ncounts)		/* else the run never started */
		closing_line(s, !err && s->o.output);
	status = err ? 1 : 0;
	if (s->child.gate_fd >= 0) {
		launch_abort(&s->child);	/* never released: setup failed */
	} else if (s->child.pid) {
		int st;

		if (loop_signal(s->loop))
			reap_after_signal(s);
		st = launch_wait(&s->child);

		if (!err)
			status = st;
	}
	return status;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	session_detach(s);
	if (s->out_open)
		output_close(&s->out, false);
	launch_abort(&s->child);
	for (size_t i = 0; i < s->nrbs; i++)
		ring_buffer__free(s->rbs[i]);
	for (size_t i = 0; i < s->ncounts; i++)
		free(s->counts[i].label);
	free(s->counts);
	free(s->rbs);
	free(s->steps);
	free(s->owned);
	loop_free(s->loop);
	free(s);
}
