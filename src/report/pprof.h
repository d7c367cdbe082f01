/* pprof: the gzip-compressed profile.proto of github.com/google/pprof,
 * which `go tool pprof`, pprof.me, Speedscope, Pyroscope, Grafana and
 * most profilers read.  Written and read here by hand: it is one message
 * type with a few nested ones, so no protobuf library is needed.
 *
 * What a struct stacks becomes:
 *   - one Sample per entry (entries differ by location, so two samples
 *     may show the same names), its location ids leaf first, its values
 *     the entry's value times each sample type's scale;
 *   - one Location per distinct (mapping, address) with a Line to its
 *     Function (the frame's name, and its source file when DWARF gave
 *     one: stacks/frame.h's src), with the line number; frames of
 *     functions inlined there (src->inlined) are more Lines of the same
 *     Location, the innermost first; a user frame the symbolizer could not
 *     name ("[module+0xOFF]", "[unknown]" inside a mapping) has no Line,
 *     so a later symbolizer (pprof's own) can name it by address;
 *     frames without an address (synthetic ones, or read from folded
 *     text) get one Location per name and kind;
 *   - one Mapping per module and load address (a library mapped at
 *     different addresses in two processes is two mappings), with its
 *     file name and build id (hex); every kernel frame lies in the
 *     "[kernel.kallsyms]" mapping;
 *   - FRAME_COMM and FRAME_MARK frames (the process's name, "[truncated]",
 *     "[lost user stack]", "--") stay frames, Functions without a
 *     mapping, so the pprof shows the same stacks by name as folded
 *     output; the innermost FRAME_COMM frame also gives the labels
 *     "comm" (its name) and "pid" (its addr, stacks/frame.h), an outer one
 *     (offcpu --wakers) "waker_comm" and "waker_pid"; a FRAME_TASK frame
 *     of a thread under the innermost ("[tid 1235]", --per-thread) the
 *     labels "tid" (its addr) and "thread_name" (the comm: a thread's
 *     name at the sample). */
#ifndef STACKSCOPE_REPORT_PPROF_H
#define STACKSCOPE_REPORT_PPROF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/stacks.h"

#define PPROF_MAX_TYPES 4

/* A value of every sample: ("samples", "count"), ("cpu", "nanoseconds"). */
struct pprof_sample_type {
	const char *type;
	const char *unit;
	uint64_t scale;		/* an entry's value times this; 0 counts as 1 */
	bool events;		/* the entry's events instead (times scale) */
};

struct pprof_opts {
	struct pprof_sample_type types[PPROF_MAX_TYPES];
	unsigned int ntypes;		/* 0: one ("samples", "count") */
	const char *default_type;	/* the type viewers show first; NULL: the last */
	const char *period_type;	/* NULL: none */
	const char *period_unit;
	int64_t period;			/* period_unit per sample (1e9 / Hz) */
	int64_t time_nanos;		/* when the capture started, since the epoch; 0 unknown */
	int64_t duration_nanos;		/* how long it ran; 0 unknown */
	const char *comments[2];	/* shown by pprof -comments, NULL ends */
};

/* Writes s (in its entries' order: stacks_sort() first for identical
 * output from identical data) to f as a gzip-compressed profile.  Returns
 * 0, -EINVAL (more than PPROF_MAX_TYPES types), -ENOMEM, or -errno on a
 * write error. */
int report_pprof_write(FILE *f, const struct stacks *s, const struct pprof_opts *o);

/* What report_pprof_read() found. */
struct pprof_read_info {
	char type[64];		/* the sample type read: "cpu" */
	char unit[32];		/* its unit as the flame graph shows it: "samples" for
				 * "count", "ns" .. "s" for time units, else as written */
	uint64_t samples;	/* Samples read */
};

/* True when the first n bytes of data look like a pprof profile: gzip
 * (0x1f 0x8b) or an uncompressed Profile starting with its sample type. */
bool report_pprof_detect(const void *data, size_t n);

/* Adds the Samples of the profile in data (gzip-compressed or not) to s,
 * with their values of sample type `type` (NULL: the profile's default
 * type, else its last).  Frames are the Locations' Lines, inlined ones
 * included, root first; a Location without Lines is named
 * "[module+0xOFF]" ("[unknown]" without a mapping or in the kernel's);
 * Locations in a mapping named "[kernel.kallsyms]" (or "[kernel...]")
 * are FRAME_KERNEL; the root frame is FRAME_COMM when it has no mapping
 * and equals the sample's "comm" label, its addr the "pid" label.
 * Returns 0, -EINVAL (not a profile, or no sample type `type`: said in
 * info->type), -ENOMEM. */
int report_pprof_read(const void *data, size_t n, struct stacks *s, const char *type,
		      struct pprof_read_info *info);

#endif
