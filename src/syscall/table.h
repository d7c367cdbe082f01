/* The syscalls of the running kernel: numbers and names (the x86_64
 * numbering), and the argument names and C types of each from the
 * kernel's own tracefs descriptions (events/syscalls/sys_enter_NAME/format).
 * tracefs is mounted privately for the read when it is not mounted. */
#ifndef STACKSCOPE_SYSCALL_TABLE_H
#define STACKSCOPE_SYSCALL_TABLE_H
#include "syscall/decode.h"

struct sc_table;

/* NULL with errno set on failure (message printed).  A kernel without
 * syscall tracepoint descriptions still gives a table: every syscall with
 * nargs = -1 (raw arguments). */
struct sc_table *sc_table_load(void);
/* Reads the descriptions from a directory laid out like
 * tracefs/events/syscalls (tests). */
struct sc_table *sc_table_load_dir(const char *dir);
void sc_table_free(struct sc_table *t);

/* Never NULL for 0 <= nr < SC_NR_MAX: a number without a name is
 * "syscall_NNN". */
const struct sc_info *sc_table_get(const struct sc_table *t, int nr);
/* The tracefs event name (after sys_enter_) of a syscall named as strace
 * names it: "newstat" for "stat"; else name itself. */
const char *sc_event_name(const char *name);
/* The number of a syscall by name (strace's or the kernel's), or -1. */
int sc_table_lookup(const struct sc_table *t, const char *name);
/* -e LIST: names and %classes, comma-separated, "trace=" and a leading
 * '!' (all but those) allowed; NULL = all.  Sets wanted[nr]; -EINVAL
 * after a message naming what is unknown. */
int sc_table_select(const struct sc_table *t, const char *list, bool *wanted);
/* Syscalls the kernel described (had a format for). */
int sc_table_described(const struct sc_table *t);

#endif
