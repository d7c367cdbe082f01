/* JIT symbols from perf maps: /tmp/perf-PID.map, written by a JIT
 * (Java's perf-map-agent, node --perf-basic-prof, LuaJIT, ...), one line
 * per piece of generated code: "START SIZE name", START and SIZE in hex.
 *
 * The file sits in a world-writable directory and is read as root, so it
 * is read only when it is a regular file with one link, not a symlink
 * (O_NOFOLLOW), owned by the process's uid or root, at most
 * PERFMAP_MAX_BYTES, opened without blocking; every line is parsed with
 * bounds, malformed ones counted and skipped.  Where entries overlap
 * (code freed and replaced), the later line wins, as with perf. */
#ifndef STACKSCOPE_SYM_PERFMAP_H
#define STACKSCOPE_SYM_PERFMAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERFMAP_MAX_BYTES (64u << 20)	/* a file larger is refused */
#define PERFMAP_MAX_ENTRIES 1000000	/* lines past it are not read */
#define PERFMAP_MAX_NAME 512		/* longer names are cut there */

struct perfmap;

/* Parses perf-map text (len bytes, not NUL-terminated); *bad: lines
 * skipped as malformed, *over: lines past PERFMAP_MAX_ENTRIES.  NULL only
 * without memory. */
struct perfmap *perfmap_parse(const char *text, size_t len, size_t *bad, size_t *over);
/* Reads path with the checks above for a process owned by uid (owner_known
 * false: only a root-owned file).  NULL with errno ENOENT when there is
 * none; else NULL and a one-line reason in why (the run says it). */
struct perfmap *perfmap_read(const char *path, bool owner_known, uint32_t uid, char *why,
			     size_t why_size);
/* The name covering addr and addr's distance from its start, or NULL. */
const char *perfmap_lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off);
size_t perfmap_count(const struct perfmap *pm);
void perfmap_free(struct perfmap *pm);

/* The perf maps of a run's processes, each read once, on first use, from
 * /tmp/perf-PID.map (its owner checked against the process's, as
 * proctab_owner() knows it); a refusal or malformed lines said once. */
struct perfmaps;
struct proctab;
struct perfmaps *perfmaps_new(void);
/* The JIT name of addr in pid's address space gen, with *off its distance
 * from the start; NULL when no perf map names it. */
const char *perfmaps_lookup(struct perfmaps *pms, struct proctab *pt, uint32_t pid, uint64_t gen,
			    uint64_t addr, uint64_t *off);
/* Perf maps read (refused ones not counted). */
size_t perfmaps_count(const struct perfmaps *pms);
void perfmaps_free(struct perfmaps *pms);

#endif
