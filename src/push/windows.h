/* Where the windows of a continuous profile go (profile --every): each
 * closed window, one gzip'ed pprof, is written to a file named by the -o
 * pattern (strftime of the window's start, local time; created like
 * every output: report/output.h) and/or queued for Pyroscope
 * (push/ingest.h).  Nothing here grows with the number of windows. */
#ifndef STACKSCOPE_PUSH_WINDOWS_H
#define STACKSCOPE_PUSH_WINDOWS_H
#include <stddef.h>
#include <stdint.h>
#include "push/ingest.h"

struct session;

struct windows_opts {
	const char *pattern;		/* -o: 'DIR/cpu-%Y%m%dT%H%M%S.pb.gz'; NULL: none */
	struct ingest_opts push;	/* push.url NULL: no push */
};

/* 0, or 2 (said) when the pattern has no time conversion (windows would
 * overwrite each other) or names something output_check() refuses. */
int windows_check_pattern(const char *pattern);
/* NULL with errno (said). */
struct windows *windows_new(const struct windows_opts *o);
/* One closed window [start_ns, end_ns) of CLOCK_REALTIME: data (malloc'ed,
 * taken over) written to its file and queued for the push.  A file that
 * cannot be written is said (at most once a minute) and counted. */
void windows_emit(struct windows *w, void *data, size_t len, int64_t start_ns, int64_t end_ns);
/* The last push, for at most `seconds`. */
void windows_finish(struct windows *w, double seconds);
/* The closing line's items: windows, written, pushed, push failures,
 * and the losses (not written, refused, dropped). */
void windows_count(struct windows *w, struct session *s);
void windows_free(struct windows *w);

#endif
