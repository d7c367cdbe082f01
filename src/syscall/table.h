/* The syscalls of the running kernel: numbers and names (the x86_64
 * numbering), and the argument names and C types of each from the
 * kernel's own tracefs descriptions (events/syscalls/sys_enter_NAME/format),
 * each read when first needed, through the formats' directory kept open
 * (trace/tracefs.h's tracefs_events_dir(): where tracefs is not mounted,
 * an instance of the process's own, attached nowhere). */
#ifndef STACKSCOPE_SYSCALL_TABLE_H
#define STACKSCOPE_SYSCALL_TABLE_H
#include "syscall/decode.h"

struct sc_table;

/* NULL with errno set on failure (message printed).  A kernel without
 * syscall tracepoint descriptions still gives a table: every syscall with
 * nargs = -1 (raw arguments).  Nothing is read up front but the directory
 * of the formats: each syscall's format is read the first time
 * sc_table_get() is asked for it. */
struct sc_table *sc_table_load(void);
/* The same over a directory laid out like tracefs/events/syscalls
 * (tests, the language's own tracefs); NULL: no formats. */
struct sc_table *sc_table_load_dir(const char *dir);
void sc_table_free(struct sc_table *t);

/* Never NULL for 0 <= nr < SC_NR_MAX: a number without a name is
 * "syscall_NNN".  Reads the syscall's format (its arguments) the first
 * time. */
const struct sc_info *sc_table_get(struct sc_table *t, int nr);
/* The same without reading the format: its arguments only if it was
 * read before (nargs -1 otherwise). */
const struct sc_info *sc_table_peek(const struct sc_table *t, int nr);
/* The name alone, nothing read; NULL out of range. */
const char *sc_table_name(const struct sc_table *t, int nr);
/* The capture spec of syscall nr (sc_spec_for()) without reading its
 * format when nothing in it can change the spec: syscalls with a decoder,
 * and those without one through the built-in list of their string
 * arguments (sc_strargs_find()); from the format once it was read. */
void sc_table_spec(struct sc_table *t, int nr, struct sc_spec *spec);
/* The tracefs event name (after sys_enter_) of a syscall named as strace
 * names it: "newstat" for "stat"; else name itself. */
const char *sc_event_name(const char *name);
/* The number of a syscall by name (strace's or the kernel's), or -1. */
int sc_table_lookup(const struct sc_table *t, const char *name);
/* -e LIST: names and %classes, comma-separated, "trace=" and a leading
 * '!' (all but those) allowed; NULL = all.  Sets wanted[nr]; -EINVAL
 * after a message naming what is unknown. */
int sc_table_select(const struct sc_table *t, const char *list, bool *wanted);
/* The kernel describes its syscalls: their formats' directory is open. */
bool sc_table_has_formats(const struct sc_table *t);
/* Formats read so far. */
int sc_table_formats_read(const struct sc_table *t);

#endif
