/* What the probe providers' files share with each other and with their
 * unit tests (not part of the language's API: that is lang/provider.h). */
#ifndef STACKSCOPE_LANG_PROBE_INT_H
#define STACKSCOPE_LANG_PROBE_INT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lang/provider.h"

extern const struct lang_provider_ops lang_tracepoint_ops, lang_rawtracepoint_ops,
	lang_uprobe_ops, lang_uretprobe_ops, lang_profile_ops, lang_interval_ops,
	lang_software_ops, lang_hardware_ops, lang_kprobe_ops, lang_kretprobe_ops,
	lang_fentry_ops, lang_fexit_ops, lang_watchpoint_ops, lang_usdt_ops, lang_syscall_ops;

/* -l's pattern spelled out (see provider.c); *provider the one it names
 * or -1.  0, -ENOENT (said), -ENAMETOOLONG. */
int probes_list_pattern(const char *pattern, char *out, size_t size, int *provider);

/* ---- tracepoint formats (probe_tracepoint.c) ----------------------- */

/* At most this many fields per event, this many bytes per format file;
 * a field's offset + size must lie within TP_MAX_RECORD. */
#define TP_MAX_FIELDS 128
#define TP_MAX_FORMAT (64 * 1024)
#define TP_MAX_RECORD 65536

struct tp_field {
	char type[64];		/* "const char *", "__data_loc char[]", "char" */
	char name[64];
	char dims[16];		/* "[16]", "" */
	struct lang_field_access acc;
};

struct tp_format {
	size_t nfields;
	struct tp_field fields[];
};

/* Parses the text of an events/SUB/EVENT/format file; user: pointers
 * are into user memory (the syscalls subsystem).  Malformed field lines
 * are skipped; NULL with errno (ENOMEM, EINVAL: no field at all). */
struct tp_format *tp_format_parse(const char *text, size_t len, bool user);
const struct tp_field *tp_format_field(const struct tp_format *fmt, const char *name);

/* The category of a tracepoint named event (a glob; sub a glob or
 * NULL) into out: 0, -ENOENT, or tracefs's error. */
int tp_find_event(struct lang_probes *pr, const char *sub, const char *event, char *out,
		  size_t size);

/* ---- rawtracepoint arguments (probe_rawtp.c) ----------------------- */

#define RT_MAX_ARGS 12

struct rt_arg {
	char name[64];		/* from the event's __bpf_trace_ function, else "argN" */
	char ctype[64];
	struct lang_field_access acc;
};

struct rt_event {
	uint32_t typedef_id;	/* btf_trace_EVENT */
	unsigned nargs;
	struct rt_arg args[RT_MAX_ARGS];
};

/* The arguments of event in btf: 0, -ENOENT (no such event), -E2BIG. */
struct btf;
int rt_event_args(const struct btf *btf, const char *event, struct rt_event *ev);

/* ---- perf events (probe_perf.c) ------------------------------------ */

struct perf_event_name {
	const char *name, *alias;	/* bpftrace's spelling and its short one */
	uint32_t type;			/* PERF_TYPE_SOFTWARE / PERF_TYPE_HARDWARE */
	uint64_t config;
	uint64_t period;		/* bpftrace's default count */
};

/* The software or hardware event named name or alias; NULL. */
const struct perf_event_name *perf_event_find(bool hardware, const char *name);

/* ---- refusals (probe_kernel.c) ------------------------------------ */

/* The nearest probe that works here for kernel function func (entry, or
 * return when ret), "tracepoint:syscalls:sys_enter_read or
 * rawtracepoint:sys_enter", into out (always a usable sentence). */
void kernel_alternative(struct lang_probes *pr, const char *func, bool ret, char *out,
			size_t size);

/* ---- syscall probes (probe_syscall.c) ----------------------------- */

struct sc_table;
/* Up to 4 syscall names of t nearest to name, ", "-separated ("" when
 * none is near). */
void sys_nearest(struct sc_table *t, const char *name, char *out, size_t size);
/* The width (4 or 8) and sign of an integer argument's C type. */
void sys_arg_int(const char *type, uint32_t *size, bool *is_signed);
/* args.NAME at a syscall point: 0 or -ENOENT. */
int sys_arg_access(const struct lang_sys_point *sp, const char *field,
		   struct lang_field_access *acc);

/* ---- uprobes (probe_uprobe.c) -------------------------------------- */

/* The file a uprobe target names: a path as is; a library name ("libc",
 * "libc.so.6") from the maps of pid when pid > 0, else from the standard
 * library directories.  0 or -ENOENT. */
int uprobe_find_lib(const char *name, pid_t pid, char *out, size_t size);

#endif
