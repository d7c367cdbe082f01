/* Output files created safely for a process running as root: the data is
 * written to a new temporary file in the same directory, nameless
 * (O_TMPFILE) until the end so that a killed run leaves nothing behind
 * (a named O_EXCL one where the filesystem has no O_TMPFILE), and renamed
 * over the destination at the end, so an existing symlink or hard link at
 * the destination is replaced, never written through, and a failed run
 * leaves the old file untouched.  A destination that is a character
 * device or FIFO (/dev/null, a named pipe) owned by root or the caller is
 * written in place, never waited for (no reader: refused); our own
 * descriptors (/dev/stderr, /dev/fd/N, /proc/self/fd/N) are written
 * through, whatever they point to, and no other symlink is followed;
 * block devices are refused. */
#ifndef STACKSCOPE_REPORT_OUTPUT_H
#define STACKSCOPE_REPORT_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct output {
	FILE *f;
	char *path;	/* destination; NULL for stdout */
	char *tmp;	/* the temporary's name */
	bool anon;	/* the temporary has no name until committed (O_TMPFILE) */
	bool special;	/* a device or FIFO written in place */
	char why[96];	/* why output_open() refused, when it says more */
};

/* path NULL or "-" = stdout.  Returns 0 or -errno. */
int output_open(struct output *o, const char *path);
/* Before a run: 0, or -errno with the reason in why when output_open()
 * would refuse path at the end: a FIFO or device of another owner
 * (nothing opened: a reader of the FIFO sees nothing), a directory, a
 * new file in a directory that is not there. */
int output_check(const char *path, char *why, size_t size);
/* The message for output_open()'s error err: "a FIFO with no reader",
 * "cannot create: REASON"... */
const char *output_error(const struct output *o, int err);
/* Flushes and, when commit, renames into place; otherwise removes the
 * temporary.  Returns 0 or -errno (a write error is reported here). */
int output_close(struct output *o, bool commit);

#endif
