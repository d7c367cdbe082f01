#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include "report/json.h"
#include "report/syslines.h"
#include "report/text.h"

int syslines_init(struct syslines *w, FILE *f, enum report_format format, int strsize)
{
	struct timespec rt, mono;

	w->f = f;
	w->format = format;
	w->fmt.strsize = strsize;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	w->wall_offset = (rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
	if (format != REPORT_TRACE)
		return 0;
	w->call = open_memstream(&w->call_buf, &w->call_len);
	if (!w->call)
		return -errno;
	trace_events_begin(&w->te, f);
	return 0;
}

void syslines_end(struct syslines *w)
{
	if (!w->call)
		return;
	trace_events_end(&w->te, w->lost);
	fclose(w->call);
	free(w->call_buf);
	w->call = NULL;
	w->call_buf = NULL;
}

/* The whole stack in one string, innermost first, a line a frame. */
static void trace_stack(struct syslines *w, const struct sysline_stack *st)
{
	FILE *f = w->call;

	rewind(f);
	if (st->n < 0)
		fputs("[lost user stack]", f);
	for (int i = 0; i < st->n; i++)
		fprintf(f, "%s%s", i ? "\n" : "", st->names[i]);
	if (st->truncated)
		fputs("\n[truncated]", f);
	fputc(0, f);
	fflush(f);
	trace_event_arg_str(&w->te, "stack", w->call_buf);
}

static void trace_call(struct syslines *w, const struct sc_info *si, const struct sc_record *rec,
		       size_t size, const struct sysline_stack *stack)
{
	bool resumed = rec->flags & SC_F_RESUMED;
	bool done = rec->exit_ns && !resumed && !(rec->flags & SC_F_UNFINISHED);
	struct trace_events *te = &w->te;

	/* the line first: a memstream's buffer moves as it grows */
	rewind(w->call);
	sc_print_call(w->call, si, rec, size, &w->fmt);
	fputc(0, w->call);
	fflush(w->call);
	trace_event_thread(te, rec->pid, rec->tid, strndupa(rec->comm, SC_COMM_LEN));
	/* one end only: a slice of no duration there, so it nests */
	trace_event_start(te, TRACE_COMPLETE, si->name, rec->pid, rec->tid,
			  resumed ? rec->exit_ns : rec->enter_ns,
			  done ? rec->exit_ns - rec->enter_ns : 0);
	trace_event_arg_str(te, "call", w->call_buf);
	if (done || resumed) {
		trace_event_arg_i64(te, "return", rec->ret);
		if (rec->ret < 0 && rec->ret >= -4095) {
			const char *e = sc_errno_name((int)-rec->ret);

			if (e)
				trace_event_arg_str(te, "errno", e);
		}
	}
	trace_event_arg_u64(te, "cpu", rec->cpu);
	if (rec->flags & SC_F_NORET)
		trace_event_arg_str(te, "no_return", "the call does not return");
	else if (rec->flags & SC_F_UNFINISHED)
		trace_event_arg_str(te, "unfinished", "the thread ended or tracing stopped in it");
	else if (resumed)
		trace_event_arg_str(te, "resumed", "entered before tracing began");
	if (stack)
		trace_stack(w, stack);
	trace_event_finish(te);
}

static bool is_json(const struct syslines *w)
{
	return w->format == REPORT_JSON;
}

/* Digits of v, at least `width` of them (zeros before), at p; returns
 * the end.  The line prefix is formatted by hand: at a storm of calls,
 * printf's parsing of the format was most of the reader's time. */
static char *put_num(char *p, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "12:00:01.234567" at p; returns the end */
static char *put_time(struct syslines *w, char *p, uint64_t mono_ns)
{
	int64_t ns = (int64_t)mono_ns + w->wall_offset;
	int64_t secs = ns / 1000000000;
	size_t n;

	if (secs != w->hms_secs || !w->hms[0]) {
		time_t t = secs;
		struct tm tm;

		localtime_r(&t, &tm);
		snprintf(w->hms, sizeof(w->hms), "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
		w->hms_secs = secs;
	}
	n = strlen(w->hms);
	memcpy(p, w->hms, n);
	p += n;
	*p++ = '.';
	return put_num(p, (ns % 1000000000) / 1000, 6);
}

static void print_time(struct syslines *w, uint64_t mono_ns)
{
	char buf[32];

	fwrite(buf, 1, put_time(w, buf, mono_ns) - buf, w->f);
}

/* "time":"12:00:01.234567","ts_ns":N, */
static void json_time(struct syslines *w, uint64_t mono_ns)
{
	fputs("\"time\":\"", w->f);
	print_time(w, mono_ns);
	fprintf(w->f, "\",\"ts_ns\":%lld,", (long long)(mono_ns + w->wall_offset));
}

static void print_comm(struct syslines *w, const char *comm)
{
	size_t n = strnlen(comm, SC_COMM_LEN);

	if (is_json(w))
		json_write_string(w->f, comm, n);
	else
		text_put_n(w->f, comm, n);
}

/* A name with no byte a terminal would act on (the common case, copied
 * as it is on the hot path). */
static bool plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

static void print_stack(struct syslines *w, const struct sysline_stack *st)
{
	FILE *f = w->f;

	if (st->n < 0) {
		fputs(is_json(w) ? ",\"stack\":null" : " > [lost user stack]\n", f);
		return;
	}
	if (is_json(w))
		fputs(",\"stack\":[", f);
	for (int i = 0; i < st->n; i++) {
		if (is_json(w)) {
			json_write_string(f, st->names[i], strlen(st->names[i]));
			if (i + 1 < st->n || st->truncated)
				fputc(',', f);
		} else {
			fputs(" > ", f);
			text_put(f, st->names[i]);
			fputc('\n', f);
		}
	}
	if (st->truncated)
		fputs(is_json(w) ? "\"[truncated]\"" : " > [truncated]\n", f);
	if (is_json(w))
		fputc(']', f);
}

void syslines_call(struct syslines *w, const struct sc_info *si, const struct sc_record *rec,
		   size_t size, const struct sysline_stack *stack)
{
	bool resumed = rec->flags & SC_F_RESUMED;
	bool done = rec->exit_ns && !resumed && !(rec->flags & SC_F_UNFINISHED);
	uint64_t when = resumed ? rec->exit_ns : rec->enter_ns;
	FILE *f = w->f;

	if (w->format == REPORT_TRACE) {
		trace_call(w, si, rec, size, stack);
		return;
	}
	if (is_json(w)) {
		fputs("{\"type\":\"syscall\",", f);
		json_time(w, when);
		if (done)
			fprintf(f, "\"duration_ns\":%llu,",
				(unsigned long long)(rec->exit_ns - rec->enter_ns));
		else
			fputs("\"duration_ns\":null,", f);
		fprintf(f, "\"pid\":%u,\"tid\":%u,\"comm\":", rec->pid, rec->tid);
		print_comm(w, rec->comm);
		fprintf(f, ",\"cpu\":%u,\"nr\":%u,\"syscall\":", rec->cpu, rec->nr);
		json_write_string(f, si->name, strlen(si->name));
		fputc(',', f);
		sc_print_json(f, si, rec, size, &w->fmt);
		if (rec->flags & SC_F_UNFINISHED)
			fputs(",\"unfinished\":true", f);
		if (rec->flags & SC_F_NORET)
			fputs(",\"noreturn\":true", f);
		if (resumed)
			fputs(",\"resumed\":true", f);
		if (stack)
			print_stack(w, stack);
		fputs("}\n", f);
		return;
	}
	{
		char buf[128], *p = put_time(w, buf, when);
		size_t n = strnlen(rec->comm, SC_COMM_LEN);

		if (done) {
			/* " (+%.6fs) ", rounded to the microsecond */
			uint64_t us = (rec->exit_ns - rec->enter_ns + 500) / 1000;

			memcpy(p, " (+", 3);
			p = put_num(p + 3, us / 1000000, 1);
			*p++ = '.';
			p = put_num(p, us % 1000000, 6);
			memcpy(p, "s) ", 3);
			p += 3;
		} else {
			memcpy(p, " (+?) ", 6);
			p += 6;
		}
		if (plain(rec->comm, n)) {
			memcpy(p, rec->comm, n);
			p += n;
		} else {
			fwrite(buf, 1, p - buf, f);
			text_put_n(f, rec->comm, n);
			p = buf;
		}
		*p++ = '[';
		p = put_num(p, rec->pid, 1);
		*p++ = '/';
		p = put_num(p, rec->tid, 1);
		memcpy(p, "] cpu", 5);
		p = put_num(p + 5, rec->cpu, 1);
		*p++ = ' ';
		fwrite(buf, 1, p - buf, f);
	}
	sc_print_call(f, si, rec, size, &w->fmt);
	if (rec->flags & SC_F_UNFINISHED)
		fputs(" <unfinished ...>", f);
	else if (resumed)
		fputs(" <entered before tracing began>", f);
	fputc('\n', f);
	if (stack)
		print_stack(w, stack);
}

void syslines_exit(struct syslines *w, const struct sc_record *rec)
{
	int status = (int)rec->ret;
	const char *sig = WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : NULL;
	FILE *f = w->f;

	if (w->format == REPORT_TRACE)
		return;
	if (is_json(w)) {
		fputs("{\"type\":\"exit\",", f);
		json_time(w, rec->enter_ns);
		fprintf(f, "\"pid\":%u,\"comm\":", rec->pid);
		print_comm(w, rec->comm);
		if (WIFSIGNALED(status))
			fprintf(f, ",\"signal\":\"SIG%s\"}\n", sig ? sig : "?");
		else
			fprintf(f, ",\"exit_code\":%d}\n", WEXITSTATUS(status));
		return;
	}
	print_time(w, rec->enter_ns);
	fputc(' ', f);
	print_comm(w, rec->comm);
	fprintf(f, "[%u] ", rec->pid);
	if (WIFSIGNALED(status))
		fprintf(f, "+++ killed by SIG%s%s +++\n", sig ? sig : "?",
			WCOREDUMP(status) ? " (core dumped)" : "");
	else
		fprintf(f, "+++ exited with %d +++\n", WEXITSTATUS(status));
}

void syslines_lost(struct syslines *w, uint64_t n)
{
	if (w->format == REPORT_TRACE)
		w->lost += n;
	else if (is_json(w))
		fprintf(w->f, "{\"type\":\"lost\",\"records\":%llu}\n", (unsigned long long)n);
	else
		fprintf(w->f, "... %llu records lost ...\n", (unsigned long long)n);
}

static int by_time(const void *a, const void *b)
{
	const struct syslines_row *x = a, *y = b;

	if (x->c.total_ns != y->c.total_ns)
		return x->c.total_ns < y->c.total_ns ? 1 : -1;
	if (x->c.calls != y->c.calls)
		return x->c.calls < y->c.calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

void syslines_summary(struct syslines *w, struct syslines_row *rows, int n)
{
	static const char dash[] = "------ ----------- ----------- ----------- --------- --------- "
				   "----------------\n";
	struct sc_count tot = {};
	FILE *f = w->f;

	qsort(rows, n, sizeof(*rows), by_time);
	for (int i = 0; i < n; i++) {
		tot.calls += rows[i].c.calls;
		tot.errors += rows[i].c.errors;
		tot.total_ns += rows[i].c.total_ns;
		if (rows[i].c.max_ns > tot.max_ns)
			tot.max_ns = rows[i].c.max_ns;
	}
	if (is_json(w)) {
		for (int i = 0; i < n; i++) {
			const struct sc_count *c = &rows[i].c;

			fputs("{\"type\":\"summary\",\"syscall\":", f);
			json_write_string(f, rows[i].name, strlen(rows[i].name));
			fprintf(f, ",\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"max_ns\":%llu}\n",
				(unsigned long long)c->calls, (unsigned long long)c->errors,
				(unsigned long long)c->total_ns, (unsigned long long)c->max_ns);
		}
		return;
	}
	fprintf(f, "%% time     seconds  usecs/call   max usecs     calls    errors syscall\n%s",
		dash);
	for (int i = 0; i < n; i++) {
		const struct sc_count *c = &rows[i].c;
		char errors[24] = "";

		if (c->errors)
			snprintf(errors, sizeof(errors), "%llu", (unsigned long long)c->errors);
		fprintf(f, "%6.2f %11.6f %11llu %11llu %9llu %9s %s\n",
			tot.total_ns ? 100.0 * c->total_ns / tot.total_ns : 0.0, c->total_ns / 1e9,
			(unsigned long long)(c->total_ns / c->calls / 1000),
			(unsigned long long)(c->max_ns / 1000), (unsigned long long)c->calls, errors,
			rows[i].name);
	}
	fprintf(f, "%s%6.2f %11.6f %11llu %11llu %9llu %9llu total\n", dash, 100.0,
		tot.total_ns / 1e9,
		tot.calls ? (unsigned long long)(tot.total_ns / tot.calls / 1000) : 0ULL,
		(unsigned long long)(tot.max_ns / 1000), (unsigned long long)tot.calls,
		(unsigned long long)tot.errors);
}
