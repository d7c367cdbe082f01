/* The kernel's tracefs, where tracepoint ids and formats are read.  Not
 * mounted at boot on some machines: then it is mounted privately in a
 * fresh directory under /run for as long as it is open, and taken away
 * again at tracefs_close(), rather than changing the machine's mounts. */
#ifndef STACKSCOPE_TRACE_TRACEFS_H
#define STACKSCOPE_TRACE_TRACEFS_H

struct tracefs;

/* The mounted tracefs; else an instance the kernel makes for this
 * process alone (fsopen/fsmount, attached nowhere, reached as
 * /proc/self/fd/FD, gone with tracefs_close(): nothing left behind by a
 * killed run); else (a kernel without fsopen) a private mount under
 * /run, detached at tracefs_close().  NULL with errno (said, naming why). */
struct tracefs *tracefs_open(void);
void tracefs_close(struct tracefs *t);
/* The events directory: ".../events". */
const char *tracefs_events(const struct tracefs *t);
/* The id of events/SUB/EVENT (perf_event_attr.config of a tracepoint
 * event), or -errno (-ENOENT: no such tracepoint; -EINVAL: a name with
 * '/' or "..", which would leave the events directory). */
int tracefs_event_id(const struct tracefs *t, const char *sub, const char *event);

/* A directory descriptor (O_CLOEXEC) of events/SUB of tracefs_open()'s
 * tracefs, for reading files under it after that is closed (a private
 * instance lives on with the descriptor; no unmount waited for, which
 * cost 1-8 ms here).
 * -ENOENT: tracefs has no events/SUB; other -errno: no tracefs (said). */
int tracefs_events_dir(const char *sub);

#endif
