/* Delivery of profiles to Grafana Pyroscope's ingest API, off the
 * sampling path:
 *
 *   POST URL/ingest?name=SERVICE.cpu{LABELS}&from=S&until=S&format=pprof
 *        &sampleRate=HZ&spyName=stackscope
 *   X-Scope-OrgID: TENANT            (when given)
 *   Content-Type: application/octet-stream
 *   <the window's gzip'ed pprof>
 *
 * ingest_push() never blocks: it queues the window and returns.  One
 * thread sends the queue oldest first.  A failed request (no connection,
 * a time-out, a 5xx or any answer but 2xx and 4xx) is retried after a
 * back-off doubling from 0.5 s to 30 s; a 4xx is the server refusing
 * this profile: reported with its message, not retried.  A full queue
 * drops its oldest window.  Every failure, refusal and drop is counted;
 * each is said on stderr, at most once a minute (the others counted in
 * the next message).  HTTP is libcurl's. */
#ifndef STACKSCOPE_PUSH_INGEST_H
#define STACKSCOPE_PUSH_INGEST_H
#include <stddef.h>
#include <stdint.h>

struct ingest_opts {
	const char *url;	/* http(s)://host[:port][/prefix]; "/ingest" appended
				 * unless it ends so */
	const char *service;	/* the name's SERVICE ("SERVICE.cpu") */
	const char *labels;	/* "k=v,k=v" (checked: label_ok()), may be "" */
	const char *tenant;	/* X-Scope-OrgID; NULL: none */
	long sample_rate;	/* Hz */
	double timeout;		/* seconds per request, connecting included */
	unsigned int queue;	/* windows waiting at most (besides the one in flight) */
};

/* What happened to the windows so far. */
struct ingest_stats {
	uint64_t pushed;	/* accepted (2xx) */
	uint64_t failures;	/* requests that failed (each retry counted) */
	uint64_t timeouts;	/* ... of them by the time-out */
	uint64_t refused;	/* answered 4xx: not retried, lost */
	uint64_t dropped;	/* the oldest of a full queue, or left at exit: lost */
};

struct ingest;

/* Checks the options and starts the thread; NULL with errno (said). */
struct ingest *ingest_new(const struct ingest_opts *o);
/* Queues a window: data (malloc'ed, taken over) covering [from_ns,
 * until_ns) of CLOCK_REALTIME.  Never blocks on the network. */
void ingest_push(struct ingest *in, void *data, size_t len, int64_t from_ns, int64_t until_ns);
/* Sends what is queued for at most `seconds` more, then abandons the rest
 * (an interrupted request included; counted as dropped) and stops the
 * thread. */
void ingest_finish(struct ingest *in, double seconds);
void ingest_stats(struct ingest *in, struct ingest_stats *st);
void ingest_free(struct ingest *in);

/* Whether KEY=VALUE is a label Pyroscope takes: KEY of [A-Za-z0-9_.],
 * not starting with a digit, VALUE non-empty without ",{}=\"" or control
 * bytes, both at most 128 bytes; else why in `why`. */
int ingest_label_ok(const char *kv, char *why, size_t size);

#endif
