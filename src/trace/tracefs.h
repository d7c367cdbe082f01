/* The kernel's tracefs, where tracepoint ids and formats are read.  Not
 * mounted at boot on some machines: then it is mounted privately in a
 * fresh directory under /run for as long as it is open, and taken away
 * again at tracefs_close(), rather than changing the machine's mounts. */
#ifndef STACKSCOPE_TRACE_TRACEFS_H
#define STACKSCOPE_TRACE_TRACEFS_H

struct tracefs;

/* NULL with errno (said, naming why). */
struct tracefs *tracefs_open(void);
void tracefs_close(struct tracefs *t);
/* The events directory: ".../events". */
const char *tracefs_events(const struct tracefs *t);
/* The id of events/SUB/EVENT (perf_event_attr.config of a tracepoint
 * event), or -errno (-ENOENT: no such tracepoint; -EINVAL: a name with
 * '/' or "..", which would leave the events directory). */
int tracefs_event_id(const struct tracefs *t, const char *sub, const char *event);

/* A directory descriptor (O_CLOEXEC) of events/SUB, for reading files
 * under it: from the mounted tracefs, else from an instance the kernel
 * makes for this process alone (fsopen/fsmount, attached nowhere, gone
 * with the last descriptor: no directory under /run, no mount to take
 * away, which cost 1-8 ms here for the unmount's wait), else (a kernel
 * without fsopen) from tracefs_open()'s private mount, detached at once.
 * -ENOENT: tracefs has no events/SUB; other -errno: no tracefs (said). */
int tracefs_events_dir(const char *sub);

#endif
