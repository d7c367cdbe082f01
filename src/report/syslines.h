/* Writing syscall records as lines: strace-like text or one JSON object
 * per line, the inline loss notes, process exits, and the -c table.
 *   12:00:01.234567 (+0.000012s) cat[1234/1234] cpu1 openat(...) = 3
 * The time is the call's entry (the line is written when it returns);
 * (+...) is the time spent in it.
 *
 * Or (REPORT_TRACE) Chrome / Perfetto trace events, one "X" slice per call
 * on its thread's track, named by the syscall, args "call" (the whole
 * strace-style line), "return", "errno" (on an error), "cpu", and "stack"
 * (-k); a call without its two ends (entered before tracing, unfinished,
 * not returning) is a slice of no duration at the end it has, saying so
 * in "resumed", "unfinished" or "no_return".  Lost records are counted in
 * otherData; process exits are not written. */
#ifndef STACKSCOPE_REPORT_SYSLINES_H
#define STACKSCOPE_REPORT_SYSLINES_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/syscalls.h"
#include "report/format.h"
#include "report/trace_events.h"
#include "syscall/decode.h"

struct syslines {
	FILE *f;
	enum report_format format;	/* REPORT_TEXT, REPORT_JSON or REPORT_TRACE */
	struct sc_fmt_opts fmt;
	int64_t wall_offset;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	/* the local "HH:MM:SS" of the second last written: a line's time
	 * costs localtime_r() once a second, not once a line */
	int64_t hms_secs;
	char hms[16];
	/* REPORT_TRACE */
	struct trace_events te;
	FILE *call;		/* a call's line is rendered here, into call_buf */
	char *call_buf;
	size_t call_len;
	uint64_t lost;
};

/* The user stack of a call (-k): names innermost first; n < 0 = lost. */
struct sysline_stack {
	const char *const *names;
	int n;
	bool truncated;
};

/* Sets wall_offset from the clocks now; for REPORT_TRACE, writes the head
 * of the document.  0 or -errno. */
int syslines_init(struct syslines *w, FILE *f, enum report_format format, int strsize);
/* After the last record: the tail of a trace document; frees what init
 * took (any format; accepts a syslines never initialised, zeroed). */
void syslines_end(struct syslines *w);
/* stack NULL: none asked for. */
void syslines_call(struct syslines *w, const struct sc_info *si, const struct sc_record *rec,
		   size_t size, const struct sysline_stack *stack);
/* A process ended (SC_REC_EXIT): "+++ exited with 0 +++". */
void syslines_exit(struct syslines *w, const struct sc_record *rec);
/* "... 12 records lost ..." */
void syslines_lost(struct syslines *w, uint64_t n);

struct syslines_row {
	const char *name;
	struct sc_count c;
};

/* -c: strace -c's table plus the longest call, sorted by total time
 * (rows are sorted in place). */
void syslines_summary(struct syslines *w, struct syslines_row *rows, int n);

#endif
