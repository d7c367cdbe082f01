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

#endif
