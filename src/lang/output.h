/* What a language program prints: text byte for byte as bpftrace 0.17
 * prints it, or JSON lines (-f json) with bpftrace's "type" records.
 *
 * The runtime reads values back from the kernel (maps summed over CPUs,
 * ring-buffer records decoded), describes them as struct lang_val and
 * calls one function per thing printed.  Nothing here touches BPF: the
 * unit tests build values by hand and compare the bytes with golden
 * files made by bpftrace 0.17.
 *
 *   o = lang_out_new(stdout, LANG_OUT_TEXT);
 *   lang_out_printf(o, fmt, fmtlen, args, nargs);   per printf record
 *   ...
 *   lang_out_maps(o, maps, nmaps);                  at exit, after END
 *   lang_out_free(o);
 *
 * Every call returns 0, or -errno (ENOMEM, EINVAL for a value the call
 * cannot print, the stream's error).  Output is written with stdio on the
 * FILE given; the caller flushes when it wants lines out (a pipe). */
#ifndef STACKSCOPE_LANG_OUTPUT_H
#define STACKSCOPE_LANG_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "lang/ast.h"

enum lang_out_format { LANG_OUT_TEXT, LANG_OUT_JSON };

struct lang_out;

/* Writes to out (program output); messages bpftrace prints on stderr
 * (lost events, attached probes in text) go to stderr until
 * lang_out_set_err().  NULL with errno set (ENOMEM). */
struct lang_out *lang_out_new(FILE *out, enum lang_out_format fmt);
void lang_out_free(struct lang_out *o);
void lang_out_set_err(struct lang_out *o, FILE *err);
/* The wall-clock time of boot (CLOCK_REALTIME - CLOCK_BOOTTIME), which
 * strftime() values are relative to; lang_out_new() reads it once, tests
 * set it. */
void lang_out_set_boottime(struct lang_out *o, struct timespec boottime);

/* ---- values ------------------------------------------------------------ */

/* ---- hist: the bucket layout (bpftrace's log2 with k, 0.20 and later;
 * with k = 0 it is 0.17's hist()).
 *
 *   index 0                      v < 0                    "(..., 0)"
 *   index 1 .. 2^(k+1)           v == index - 1           "[0]" "[1]" ... one value each
 *   index i > 2^(k+1)            [lo(i), lo(i+1))         "[4, 8)" "[1K, 2K)"
 *   where lo(i) = 2^p * (2^k + (i - 1) % 2^k), p = (i - 1) / 2^k - 1
 *
 * that is: v >= 2^k falls at ((l - k + 1) << k) + ((v >> (l - k)) & (2^k - 1)) + 1
 * with l = floor(log2(v)).  k is 0..5; a hist of that k has
 * LANG_HIST_NBUCKETS(k) buckets (65 for k = 0, as bpftrace's).  bpftrace 0.17 (k = 0
 * only) stops its log2 at 2^32: it files every v >= 2^32 under
 * [2G, 4G); here v gets its true bucket (as bpftrace 0.20 does).
 *
 * lhist(v, min, max, step): (max - min) / step buckets inside the range
 * plus one below and one above, LANG_LHIST_NBUCKETS(min, max, step):
 *
 *   index 0                      v < min                  "(..., min)"
 *   index 1 + (v - min) / step   min <= v <= max          "[lo, lo+step)"
 *   index 1 + (max - min) / step v > max (and v == max)   "[max, ...)"
 *
 * (the division is unsigned, v and the bounds signed; min >= 0 and
 * step >= 1 are the checker's: bpftrace's rules).  Labels divisible by
 * 2^20 print as NM, by 2^10 as NK. */
#define LANG_HIST_MAXK 5
#define LANG_HIST_NBUCKETS(k) ((size_t)((64 - (k)) << (k)) + 1)
#define LANG_LHIST_NBUCKETS(min, max, step) ((size_t)(((max) - (min)) / (step)) + 2)

/* The bucket v falls in: what the code generator emits in BPF (a unit
 * test checks both agree). */
unsigned lang_hist_index(int64_t v, unsigned k);
unsigned lang_lhist_index(int64_t v, int64_t min, int64_t max, int64_t step);

/* Stack printing modes: kstack(perf), ustack(raw) (raw: one hex address
 * a line, bpftrace 0.19's). */
enum lang_stack_mode { LANG_STACK_BPFTRACE, LANG_STACK_PERF, LANG_STACK_RAW };

/* The address of a marker frame, printed as its name (NULL: "[truncated]")
 * in every mode: the last frame of a user stack whose unwinding did not
 * reach the outermost frame, or the one frame of a stack the kernel could
 * not store ("[lost stack]"). */
#define LANG_FRAME_TRUNCATED UINT64_MAX

/* One frame, already symbolized: name NULL when unknown (printed as its
 * address, "0x7f12..."); module (user stacks in perf mode) NULL when
 * unknown ("[unknown]"). */
struct lang_frame {
	uint64_t addr;
	const char *name;
	uint64_t offset;
	const char *module;
};

/* A value, by kind (enum lang_kind of lang/ast.h):
 *
 *   INT            i, is_signed (64-bit; printed signed or unsigned)
 *   COUNT SUM      i (COUNT unsigned; SUM signed when is_signed)
 *   MIN MAX        i, is_signed: the value after reducing over CPUs
 *   AVG STATS      count, sum (average = sum / count, 0 when count is 0)
 *   STR            s, len: bytes up to the first NUL or len
 *   BUF            s, len: raw bytes (printed "ab\x00\x01")
 *   KSYM USYM      s, len: the symbol already rendered ("vfs_read", "0x1234")
 *   TIMESTAMP      i: nanoseconds since boot, s: the strftime() format
 *                  ("%f" is the microseconds, as bpftrace's)
 *   STACK          frames[nframes] innermost first, stack_mode, user
 *   TUPLE          elems[nelems]
 *   HIST           buckets[nbuckets] (counts by index above), k
 *   LHIST          buckets[nbuckets], lmin, lmax, lstep
 *
 * strerror(n) and other runtime-rendered strings are STR values. */
struct lang_val {
	enum lang_kind kind;
	bool is_signed;
	int64_t i;
	const char *s;
	size_t len;
	uint64_t count;
	int64_t sum;
	const uint64_t *buckets;
	size_t nbuckets;
	unsigned k;
	int64_t lmin, lmax, lstep;
	const struct lang_frame *frames;
	size_t nframes;
	enum lang_stack_mode stack_mode;
	bool user;
	const struct lang_val *elems;
	size_t nelems;
};

/* One element of a map.  key NULL: the map has no key; a map with N keys
 * (@m[a, b]) has a TUPLE key of N elements; a map with one key has that
 * value as key (an explicit tuple key @m[(a, b)] is a TUPLE inside a
 * TUPLE of 1). */
struct lang_map_entry {
	const struct lang_val *key;
	struct lang_val value;
};

/* print(@m[, top[, div]]) and a map at exit: name ("@m", "@"), the
 * elements in any order (sorted here the way bpftrace sorts: by value
 * ascending; hist/lhist by their total count, avg/stats by the average;
 * maps of other values (strings, tuples, stacks) by key).  Ties are
 * ordered by key, first key first (bpftrace leaves them in the kernel
 * hash's order, which differs from run to run).  top: only the last top
 * elements (0: all); div: counts/values divided by it (0 or 1: not). */
int lang_out_map(struct lang_out *o, const char *name, const struct lang_map_entry *ents,
		 size_t n, uint32_t top, uint32_t div);

/* The maps at exit, as bpftrace prints them after END: text writes two
 * newlines first (even with no maps: call it always, unless the program
 * says print_maps_on_exit = false), then every map in the order of their
 * names (strcmp),
 * an empty map as an empty line (JSON leaves empty maps out and writes
 * no blank lines). */
struct lang_out_mapdata {
	const char *name;
	const struct lang_map_entry *ents;
	size_t n;
};
int lang_out_maps(struct lang_out *o, const struct lang_out_mapdata *maps, size_t n);

/* print(value): one value and a newline (JSON: a "value" record). */
int lang_out_value(struct lang_out *o, const struct lang_val *v);

/* printf(fmt, args...): conversions %d %i %u %x %X %o %c %p %s %r %rx %rh,
 * flags - + space # 0, width, .precision, length hh h l ll j z t.  As in
 * bpftrace 0.17: without a length an integer converts as a 32-bit int
 * (printf("%d", 1 << 40) prints 0), "%%" before a conversion prints
 * "%" and after the last conversion is copied as it is ("%%").  A string,
 * symbol, stack, timestamp, tuple or int prints through %s; a buffer
 * through %s and %r (printable bytes kept, others \xNN), %rx (all \xNN),
 * %rh ("01 02"). */
int lang_out_printf(struct lang_out *o, const char *fmt, size_t fmtlen, const struct lang_val *args,
		    size_t nargs);

/* time(fmt): now (the local time, strftime(fmt)); no newline added. */
int lang_out_time(struct lang_out *o, const char *fmt, time_t now);
/* join(arr, delim): args up to the first empty one, delim between, a
 * newline (JSON: a "join" record). */
int lang_out_join(struct lang_out *o, const char *const *args, size_t nargs, const char *delim);
/* cat()/system() output as it is (JSON: "cat"/"syscall" records). */
int lang_out_cat(struct lang_out *o, const char *text, size_t len);
int lang_out_system(struct lang_out *o, const char *text, size_t len);

/* n records the ring buffer could not take: "N events lost" on the
 * error stream (JSON: {"type": "lost_events", "data": {"events": N}}). */
int lang_out_lost(struct lang_out *o, uint64_t n);
/* Once every probe is attached: "Attached N probes" on the error stream
 * (JSON: {"type": "attached_probes", "data": {"probes": N}} on out). */
int lang_out_attached(struct lang_out *o, unsigned nprobes);
/* A run-time error (a helper failed, a map full): text "msg" on the
 * error stream; JSON {"type": "error", "msg": "..."} on out. */
int lang_out_error(struct lang_out *o, const char *msg);

/* A BPF helper that failed (-k): text, on the error stream, as bpftrace
 * words it: "WHERE: WARNING: Failed to HELPER: strerror(-ret) (ret)"
 * (where: "FILE:LINE:COL" of the call); JSON on out, bpftrace's record:
 * {"type": "helper_error", "helper": "...", "retcode": N, "line": L, "col": C}. */
int lang_out_helper_error(struct lang_out *o, const char *where, const char *helper, int retcode,
			  unsigned line, unsigned col);

/* The text of v as print(v) shows it (no newline), into a malloc'd
 * string: for callers that need a value as text (map keys elsewhere,
 * --dump).  NULL on ENOMEM. */
char *lang_val_text(const struct lang_val *v);

#endif
