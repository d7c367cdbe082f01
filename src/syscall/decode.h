/* Rendering syscall records the way strace writes them, and deciding what
 * user memory each argument needs captured for that.
 *
 * Every syscall of the running kernel is described by the tracefs format
 * of its sys_enter event (argument names and C types, see syscall/table.h);
 * the common families (file, descriptors, memory, process, time, signal,
 * socket) have a decoder by name that says how each argument and the
 * return value are shown.  Without a decoder an argument is shown by its
 * C type: strings for `const char *` paths and names, hex for other
 * pointers, decimal for integers, octal for `umode_t`. */
#ifndef STACKSCOPE_SYSCALL_DECODE_H
#define STACKSCOPE_SYSCALL_DECODE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/syscalls.h"

struct sc_decoder;

struct sc_argdesc {
	char name[32];		/* "filename"; "" when unknown */
	char type[64];		/* "const char *"; "" when unknown */
};

/* What is known of one syscall of this kernel.  The argument
 * descriptions take memory only once a format was read: a table holds
 * every number the kernel may have, and a run decodes a few. */
struct sc_info {
	int nr;
	const char *name;	/* "openat" (strace's name: "stat" not "newstat") */
	int nargs;		/* from tracefs; -1 when the kernel gave no format */
	const struct sc_argdesc *args;	/* nargs of them (at most SC_ARGS); NULL: none */
	const struct sc_decoder *dec;	/* sc_decoder_find(name), may be NULL */
};

/* The decoder of a syscall by name, or NULL. */
const struct sc_decoder *sc_decoder_find(const char *name);
/* Whether a text line of the syscall needs nothing from its format: its
 * decoder (d, may be NULL) lists the arguments it shows in order and
 * says how to show each.  JSON and trace events still name arguments
 * from the format. */
bool sc_decoder_self_sufficient(const struct sc_decoder *d);

/* The capture spec BPF follows for this syscall (flags except
 * SC_SPEC_TRACE, which the caller sets from -e). */
void sc_spec_for(const struct sc_info *si, struct sc_spec *spec);

/* strace's classes for -e: "file", "desc", "memory", "process", "signal",
 * "network", "ipc", "clock" (without the '%').  False for an unknown
 * class or a syscall not in it. */
bool sc_class_known(const char *cls);
bool sc_in_class(const char *name, const char *cls);

struct sc_fmt_opts {
	int strsize;		/* -s: the cut for strings and buffers */
};

/* The chunk of argument `arg`, element `idx`, holding `cap`, in the data
 * after a record's header (data_len bytes); NULL when not captured. */
const struct sc_chunk *sc_chunk_find(const struct sc_record *r, size_t size, int arg, int cap,
				     int idx);

/* "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY|O_CLOEXEC) = 3", no
 * newline.  size: the bytes of r (header + data_len).  Unfinished calls
 * end "= ?", calls that do not return "= ?" too. */
void sc_print_call(FILE *f, const struct sc_info *si, const struct sc_record *r, size_t size,
		   const struct sc_fmt_opts *o);

/* The JSON members for the same record, without the enclosing braces:
 * "args":[{"name":"dfd","raw":4294967196,"value":"AT_FDCWD"},...],
 * "ret":3,"retval":"3"  and for errors "errno":"ENOENT","error":"No such
 * file or directory".  "value"/"retval" hold the same text as
 * sc_print_call; "raw" is the unsigned 64-bit register value. */
void sc_print_json(FILE *f, const struct sc_info *si, const struct sc_record *r, size_t size,
		   const struct sc_fmt_opts *o);

/* "ENOENT" / "No such file or directory" for 2; NULL / "Unknown error" */
const char *sc_errno_name(int err);
const char *sc_errno_text(int err);

#endif
