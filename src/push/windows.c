#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "common.h"
#include "push/windows.h"
#include "report/output.h"
#include "trace/session.h"

#define REPORT_EVERY 60.0	/* seconds between two messages on stderr */

struct windows {
	struct windows_opts o;
	struct ingest *push;	/* NULL: no push */
	char last[4200];	/* the previous window's file name, before any suffix */
	unsigned int same;	/* windows that had that name before this one */
	uint64_t emitted, written, unwritten;
	double last_report;
};

/* strftime of the pattern at t; 0 or -ENAMETOOLONG. */
static int expand(const char *pattern, time_t t, char *buf, size_t size)
{
	struct tm tm;

	localtime_r(&t, &tm);
	return strftime(buf, size, pattern, &tm) ? 0 : -ENAMETOOLONG;
}

int windows_check_pattern(const char *pattern)
{
	char path[4096], why[PATH_MAX + 64];
	bool conv = false;

	for (const char *p = pattern; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p && *p != '%')
			conv = true;
		if (!*p)
			break;
	}
	if (!conv) {
		msg("-o %s: with --every, give a name pattern with a time conversion "
		    "(cpu-%%Y%%m%%dT%%H%%M%%S.pb.gz) so that each window has its own file", pattern);
		return 2;
	}
	if (expand(pattern, time(NULL), path, sizeof(path))) {
		msg("-o %s: the name it gives is too long", pattern);
		return 2;
	}
	/* windows are created in an existing directory (its name as of now,
	 * when the pattern names directories by time too) */
	if (output_check(path, why, sizeof(why))) {
		msg("-o %s: %s", pattern, why);
		return 2;
	}
	return 0;
}

struct windows *windows_new(const struct windows_opts *o)
{
	struct windows *w = calloc(1, sizeof(*w));

	if (!w) {
		msg("windows: %s", strerror(errno));
		return NULL;
	}
	w->o = *o;
	if (o->push.url) {
		w->push = ingest_new(&o->push);
		if (!w->push) {
			int err = errno;

			free(w);
			errno = err;
			return NULL;
		}
	}
	return w;
}

/* "a/cpu-X.pb.gz" as the n-th window of that name: "a/cpu-X-n.pb.gz"
 * (before the first '.' of the file's name, else at the end). */
static void suffixed(const char *path, unsigned int n, char *buf, size_t size)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strchr(base, '.');
	if (!dot || dot == base)
		dot = path + strlen(path);
	snprintf(buf, size, "%.*s-%u%s", (int)(dot - path), path, n, dot);
}

static int write_file(const char *path, const void *data, size_t len, const char **why)
{
	struct output out = {};
	int err = output_open(&out, path);

	if (err) {
		*why = output_error(&out, err);
		return err;
	}
	if (fwrite(data, 1, len, out.f) != len)
		err = -errno ? -errno : -EIO;
	err = output_close(&out, !err) ?: err;
	if (err)
		*why = strerror(-err);
	return err;
}

static void write_window(struct windows *w, const void *data, size_t len, int64_t start_ns)
{
	char path[4200], name[4200];
	const char *why = NULL;
	double t;

	if (expand(w->o.pattern, (time_t)(start_ns / 1000000000), path, sizeof(path))) {
		why = "the name is too long";
		goto fail;
	}
	if (!strcmp(path, w->last)) {
		/* a window closed early (SIGHUP) in the same second */
		suffixed(path, ++w->same + 1, name, sizeof(name));
	} else {
		snprintf(w->last, sizeof(w->last), "%s", path);
		w->same = 0;
		snprintf(name, sizeof(name), "%s", path);
	}
	if (!write_file(name, data, len, &why)) {
		w->written++;
		debug("wrote %s", name);
		return;
	}
	snprintf(path, sizeof(path), "%s", name);
fail:
	w->unwritten++;
	t = now_sec();
	if (!w->last_report || t - w->last_report >= REPORT_EVERY) {
		msg("%s: window not written: %s (%llu so far)", path, why,
		    (unsigned long long)w->unwritten);
		w->last_report = t;
	}
}

void windows_emit(struct windows *w, void *data, size_t len, int64_t start_ns, int64_t end_ns)
{
	w->emitted++;
	if (w->o.pattern)
		write_window(w, data, len, start_ns);
	if (w->push)
		ingest_push(w->push, data, len, start_ns, end_ns);
	else
		free(data);
}

void windows_finish(struct windows *w, double seconds)
{
	if (w && w->push)
		ingest_finish(w->push, seconds);
}

void windows_count(struct windows *w, struct session *s)
{
	struct ingest_stats st = {};

	session_count(s, "windows", w->emitted, 0);
	if (w->o.pattern) {
		session_count(s, "written", w->written, 0);
		session_count(s, "windows not written", w->unwritten, SESSION_LOSS | SESSION_IF_ANY);
	}
	if (!w->push)
		return;
	ingest_stats(w->push, &st);
	session_count(s, "pushed", st.pushed, 0);
	session_count(s, "push failures", st.failures, 0);
	session_count(s, "push time-outs", st.timeouts, SESSION_IF_ANY);
	session_count(s, "windows refused", st.refused, SESSION_LOSS);
	session_count(s, "windows dropped", st.dropped, SESSION_LOSS);
}

void windows_free(struct windows *w)
{
	if (!w)
		return;
	ingest_free(w->push);
	free(w);
}
