#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>
#include "common.h"
#include "push/ingest.h"

#define BACKOFF_MIN 0.5		/* seconds before the first retry */
#define BACKOFF_MAX 30.0
#define REPORT_EVERY 60.0	/* seconds between two messages on stderr */
#define ANSWER_MAX 256		/* bytes of a server's answer kept for messages */
#define LABEL_MAX 128

/* libcurl, opened by the first ingest_new(): linked, its thirty-odd
 * libraries would be loaded and relocated by every run of every command
 * (about 20 ms of start-up), pushing or not. */
static struct {
	void *dl;
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	char *(*easy_escape)(CURL *curl, const char *s, int len);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	void (*easy_cleanup)(CURL *curl);
} cu;

#define LIBCURL "libcurl.so.4"

/* Opens libcurl once; 0, or -1 with the reason said. */
static int curl_open(void)
{
	static const char *const names[] = {
		"curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_perform",
		"curl_easy_getinfo", "curl_easy_strerror", "curl_easy_escape", "curl_free",
		"curl_slist_append", "curl_slist_free_all", "curl_easy_cleanup",
	};
	void **slots[] = {
		(void **)&cu.global_init, (void **)&cu.easy_init, (void **)&cu.easy_setopt,
		(void **)&cu.easy_perform, (void **)&cu.easy_getinfo, (void **)&cu.easy_strerror,
		(void **)&cu.easy_escape, (void **)&cu.free, (void **)&cu.slist_append,
		(void **)&cu.slist_free_all, (void **)&cu.easy_cleanup,
	};
	void *dl;

	if (cu.dl)
		return 0;
	dl = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		msg("--push: cannot load %s (Debian package libcurl4): %s", LIBCURL, dlerror());
		return -1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slots[i] = dlsym(dl, names[i]);
		if (!*slots[i]) {
			msg("--push: %s has no %s", LIBCURL, names[i]);
			dlclose(dl);
			return -1;
		}
	}
	cu.dl = dl;
	return 0;
}

/* A window waiting to be sent. */
struct window {
	void *data;
	size_t len;
	int64_t from_ns, until_ns;
};

struct ingest {
	struct ingest_opts o;
	char *base;		/* URL up to and with /ingest */
	char *name;		/* SERVICE.cpu{labels}, escaped for the query */
	CURL *curl;
	struct curl_slist *headers;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* a window queued, or stopping */
	pthread_cond_t idle;	/* the queue emptied and nothing in flight */
	struct window *q;	/* ring of o.queue */
	unsigned int head, n;
	bool busy;		/* a window is out of the queue, being sent */
	bool stopping;
	double deadline;	/* when stopping: now_sec() after which all is abandoned */
	volatile int abort;	/* read by curl's progress callback */
	struct ingest_stats st;
	/* stderr at most once every REPORT_EVERY */
	double last_report;
	uint64_t unreported;
	char last_error[512];	/* the latest, said or not */
	char answer[ANSWER_MAX];
	size_t answer_len;
};

int ingest_label_ok(const char *kv, char *why, size_t size)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;

	if (!eq || klen == 0) {
		snprintf(why, size, "expected KEY=VALUE");
		return -EINVAL;
	}
	if (klen > LABEL_MAX || strlen(eq + 1) > LABEL_MAX) {
		snprintf(why, size, "longer than %d bytes", LABEL_MAX);
		return -EINVAL;
	}
	if (isdigit((unsigned char)kv[0])) {
		snprintf(why, size, "a key cannot start with a digit");
		return -EINVAL;
	}
	for (size_t i = 0; i < klen; i++) {
		if (!isalnum((unsigned char)kv[i]) && kv[i] != '_' && kv[i] != '.') {
			snprintf(why, size, "a key is made of letters, digits, '_' and '.'");
			return -EINVAL;
		}
	}
	if (!eq[1]) {
		snprintf(why, size, "empty value");
		return -EINVAL;
	}
	for (const char *p = eq + 1; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || strchr(",{}=\"", *p)) {
			snprintf(why, size, "a value cannot hold control bytes or any of ,{}=\"");
			return -EINVAL;
		}
	}
	return 0;
}

/* Says what went wrong, unless something was said less than REPORT_EVERY
 * ago: then it is counted into the next message.  Called with the lock. */
static void report(struct ingest *in, const char *fmt, ...)
{
	double t = now_sec();
	char *line = in->last_error;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(in->last_error), fmt, ap);
	va_end(ap);
	if (in->last_report && t - in->last_report < REPORT_EVERY) {
		in->unreported++;
		return;
	}
	if (in->unreported)
		msg("push: %s (and %llu more push errors in the last minute; totals at exit)",
		    line, (unsigned long long)in->unreported);
	else
		msg("push: %s", line);
	in->unreported = 0;
	in->last_report = t;
}

static size_t keep_answer(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct ingest *in = ctx;
	size_t n = size * nmemb, room = sizeof(in->answer) - 1 - in->answer_len;

	memcpy(in->answer + in->answer_len, ptr, n < room ? n : room);
	in->answer_len += n < room ? n : room;
	return n;
}

static int progress(void *ctx, curl_off_t dlt, curl_off_t dln, curl_off_t ult, curl_off_t uln)
{
	struct ingest *in = ctx;

	return in->abort;
}

/* The server's answer as one line: trailing white space dropped, other
 * control bytes as spaces (msg() escapes what is left). */
static const char *answer_line(struct ingest *in)
{
	char *a = in->answer;

	a[in->answer_len] = 0;
	for (char *p = a; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	for (size_t n = strlen(a); n && a[n - 1] == ' '; n--)
		a[n - 1] = 0;
	return a[0] ? a : "(no message)";
}

enum outcome { SENT, REFUSED, FAILED };

/* One POST of w, without the lock. */
static enum outcome post(struct ingest *in, const struct window *w, double timeout)
{
	char url[4096], when[64];
	long code = 0;
	CURLcode rc;
	time_t from = w->from_ns / 1000000000, until = (w->until_ns + 999999999) / 1000000000;

	snprintf(url, sizeof(url),
		 "%s?name=%s&from=%lld&until=%lld&format=pprof&sampleRate=%ld&spyName=stackscope",
		 in->base, in->name, (long long)from, (long long)until, in->o.sample_rate);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&from));
	in->answer_len = 0;
	cu.easy_setopt(in->curl, CURLOPT_URL, url);
	cu.easy_setopt(in->curl, CURLOPT_POSTFIELDS, w->data);
	cu.easy_setopt(in->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)w->len);
	cu.easy_setopt(in->curl, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
	cu.easy_setopt(in->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout * 1000));
	rc = cu.easy_perform(in->curl);
	if (rc == CURLE_OK)
		cu.easy_getinfo(in->curl, CURLINFO_RESPONSE_CODE, &code);
	pthread_mutex_lock(&in->lock);
	if (rc == CURLE_OK && code >= 200 && code < 300) {
		in->st.pushed++;
		pthread_mutex_unlock(&in->lock);
		return SENT;
	}
	if (rc == CURLE_OK && code >= 400 && code < 500) {
		in->st.refused++;
		report(in, "the window from %s refused (not retried): HTTP %ld: %s", when, code,
		       answer_line(in));
		pthread_mutex_unlock(&in->lock);
		return REFUSED;
	}
	in->st.failures++;
	if (rc == CURLE_OPERATION_TIMEDOUT)
		in->st.timeouts++;
	if (rc != CURLE_OK)
		report(in, "the window from %s: %s (will retry)", when,
		       rc == CURLE_ABORTED_BY_CALLBACK ? "abandoned at exit" : cu.easy_strerror(rc));
	else
		report(in, "the window from %s: HTTP %ld: %s (will retry)", when, code,
		       answer_line(in));
	pthread_mutex_unlock(&in->lock);
	return FAILED;
}

static void drop(struct window *w)
{
	free(w->data);
	w->data = NULL;
}

static void abs_time(double from_now, struct timespec *ts)
{
	double t;

	clock_gettime(CLOCK_MONOTONIC, ts);
	t = ts->tv_sec + ts->tv_nsec / 1e9 + from_now;
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - ts->tv_sec) * 1e9);
}

static void *sender(void *arg)
{
	struct ingest *in = arg;
	double backoff = BACKOFF_MIN;

	pthread_mutex_lock(&in->lock);
	for (;;) {
		struct window w;
		double timeout = in->o.timeout;
		enum outcome out;

		while (!in->n && !in->stopping)
			pthread_cond_wait(&in->cond, &in->lock);
		if (!in->n || (in->stopping && now_sec() >= in->deadline))
			break;
		w = in->q[in->head];
		in->head = (in->head + 1) % in->o.queue;
		in->n--;
		in->busy = true;
		if (in->stopping && in->deadline - now_sec() < timeout)
			timeout = in->deadline - now_sec();
		pthread_mutex_unlock(&in->lock);

		out = post(in, &w, timeout > 0.001 ? timeout : 0.001);

		pthread_mutex_lock(&in->lock);
		in->busy = false;
		if (out != FAILED) {
			drop(&w);
			backoff = BACKOFF_MIN;
			if (!in->n)
				pthread_cond_broadcast(&in->idle);
			continue;
		}
		/* back to the front, unless newer windows filled the queue:
		 * then it is the oldest, and goes */
		if (in->n == in->o.queue) {
			in->st.dropped++;
			report(in, "queue full (%u windows): the oldest dropped", in->o.queue);
			drop(&w);
		} else {
			in->head = (in->head + in->o.queue - 1) % in->o.queue;
			in->q[in->head] = w;
			in->n++;
		}
		/* the back-off, cut short by the end of the run's deadline */
		{
			struct timespec ts;
			double wait = backoff;
			bool was_stopping = in->stopping;

			if (in->stopping && in->deadline - now_sec() < wait)
				wait = in->deadline - now_sec();
			/* a stop asked meanwhile retries at once: the last chance */
			if (wait > 0) {
				abs_time(wait, &ts);
				while (!in->abort && in->stopping == was_stopping &&
				       pthread_cond_timedwait(&in->cond, &in->lock, &ts) != ETIMEDOUT)
					;
			}
			backoff = backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : backoff * 2;
		}
	}
	/* what is left is abandoned */
	while (in->n) {
		in->st.dropped++;
		drop(&in->q[in->head]);
		in->head = (in->head + 1) % in->o.queue;
		in->n--;
	}
	pthread_cond_broadcast(&in->idle);
	pthread_mutex_unlock(&in->lock);
	return NULL;
}

/* URL + "/ingest" unless it ends so; http and https only. */
static char *base_url(const char *url)
{
	size_t n = strlen(url);
	char *b;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return NULL;
	while (n && url[n - 1] == '/')
		n--;
	if (n >= 7 && !strncmp(url + n - 7, "/ingest", 7))
		return strndup(url, n);
	b = malloc(n + 8);
	if (b) {
		memcpy(b, url, n);
		memcpy(b + n, "/ingest", 8);
	}
	return b;
}

static bool curl_ready;

struct ingest *ingest_new(const struct ingest_opts *o)
{
	struct ingest *in = calloc(1, sizeof(*in));
	char *name = NULL, hdr[300];
	int err = ENOMEM;

	if (!in)
		goto fail;
	in->o = *o;
	if (!in->o.queue)
		in->o.queue = 1;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_mutex_init(&in->lock, NULL);
		pthread_cond_init(&in->cond, &ca);
		pthread_cond_init(&in->idle, &ca);
		pthread_condattr_destroy(&ca);
	}
	in->base = base_url(o->url);
	if (!in->base) {
		msg("--push %s: expected an http:// or https:// URL", o->url);
		errno = EINVAL;
		ingest_free(in);
		return NULL;
	}
	if (curl_open()) {
		errno = ENOENT;
		ingest_free(in);
		return NULL;
	}
	/* before any thread: curl_global_init is not thread-safe */
	if (!curl_ready && cu.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
		curl_ready = true;
	in->curl = cu.easy_init();
	in->q = calloc(in->o.queue, sizeof(*in->q));
	if (!in->curl || !in->q || asprintf(&name, "%s.cpu{%s}", o->service, o->labels) < 0)
		goto fail;
	{
		char *esc = cu.easy_escape(in->curl, name, 0);

		free(name);
		if (!esc)
			goto fail;
		in->name = strdup(esc);
		cu.free(esc);
		if (!in->name)
			goto fail;
	}
	in->headers = cu.slist_append(NULL, "Content-Type: application/octet-stream");
	/* no "Expect: 100-continue" round trip */
	in->headers = cu.slist_append(in->headers, "Expect:");
	if (o->tenant) {
		snprintf(hdr, sizeof(hdr), "X-Scope-OrgID: %s", o->tenant);
		in->headers = cu.slist_append(in->headers, hdr);
	}
	if (!in->headers)
		goto fail;
	cu.easy_setopt(in->curl, CURLOPT_HTTPHEADER, in->headers);
	cu.easy_setopt(in->curl, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(in->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	cu.easy_setopt(in->curl, CURLOPT_USERAGENT, "stackscope");
	cu.easy_setopt(in->curl, CURLOPT_WRITEFUNCTION, keep_answer);
	cu.easy_setopt(in->curl, CURLOPT_WRITEDATA, in);
	cu.easy_setopt(in->curl, CURLOPT_NOPROGRESS, 0L);
	cu.easy_setopt(in->curl, CURLOPT_XFERINFOFUNCTION, progress);
	cu.easy_setopt(in->curl, CURLOPT_XFERINFODATA, in);
	err = pthread_create(&in->thread, NULL, sender, in);
	if (err)
		goto fail;
	in->started = true;
	return in;
fail:
	msg("--push: cannot set up: %s", strerror(err));
	ingest_free(in);
	errno = err;
	return NULL;
}

void ingest_push(struct ingest *in, void *data, size_t len, int64_t from_ns, int64_t until_ns)
{
	pthread_mutex_lock(&in->lock);
	if (in->n == in->o.queue) {
		in->st.dropped++;
		report(in, "queue full (%u windows): the oldest dropped", in->o.queue);
		drop(&in->q[in->head]);
		in->head = (in->head + 1) % in->o.queue;
		in->n--;
	}
	in->q[(in->head + in->n) % in->o.queue] = (struct window){ data, len, from_ns, until_ns };
	in->n++;
	pthread_cond_signal(&in->cond);
	pthread_mutex_unlock(&in->lock);
}

void ingest_finish(struct ingest *in, double seconds)
{
	struct timespec ts;

	if (!in || !in->started)
		return;
	pthread_mutex_lock(&in->lock);
	in->stopping = true;
	in->deadline = now_sec() + seconds;
	pthread_cond_broadcast(&in->cond);
	abs_time(seconds, &ts);
	while ((in->n || in->busy) &&
	       pthread_cond_timedwait(&in->idle, &in->lock, &ts) != ETIMEDOUT)
		;
	in->abort = 1;
	pthread_cond_broadcast(&in->cond);
	pthread_mutex_unlock(&in->lock);
	pthread_join(in->thread, NULL);
	in->started = false;
	if (in->unreported)
		msg("push: %llu more push errors since the last message, the last: %s",
		    (unsigned long long)in->unreported, in->last_error);
	in->unreported = 0;
}

void ingest_stats(struct ingest *in, struct ingest_stats *st)
{
	pthread_mutex_lock(&in->lock);
	*st = in->st;
	pthread_mutex_unlock(&in->lock);
}

void ingest_free(struct ingest *in)
{
	if (!in)
		return;
	ingest_finish(in, 0);
	for (unsigned int i = 0; in->q && i < in->n; i++)
		drop(&in->q[(in->head + i) % in->o.queue]);
	free(in->q);
	if (in->headers)
		cu.slist_free_all(in->headers);
	if (in->curl)
		cu.easy_cleanup(in->curl);
	pthread_cond_destroy(&in->cond);
	pthread_cond_destroy(&in->idle);
	pthread_mutex_destroy(&in->lock);
	free(in->base);
	free(in->name);
	free(in);
}
