/* Flame graphs from a language program: `-o FILE.svg|.folded|.pb.gz`
 * turns the elements of one map keyed by stacks into the project's
 * stacks model (report/stacks.h) and writes it with the writers every
 * command uses (report/flamegraph.h, folded.h, pprof.h).
 *
 *   fl = lang_flame_new(prog, "out.svg", NULL, why, sizeof(why));
 *                                      after lang_check(): picks the map
 *   ... the run; after END the runtime reads the map and calls
 *   lang_flame_add(fl, ents, n);       frames copied: ents may go
 *   lang_flame_save(fl);               out.svg written safely, said
 *   lang_flame_free(fl);
 *
 * The map: the one named (--map @name), else the program's only map
 * with a kstack or ustack among its keys.  Its elements become stacks,
 * root first, as `stackscope profile` builds them:
 *
 *   comm           the root frame (FRAME_COMM; its addr the pid when pid
 *                  is a key too)
 *   pid, tid       "[pid N]", "[tid N]" (FRAME_TASK) under the comm
 *   other keys     a frame with the key's printed text ("[...]" marks:
 *                  FRAME_MARK), in key order
 *   ustack         user frames, outermost first
 *   kstack         kernel frames, outermost first (the leaf: innermost)
 *
 * and their values are the map's: count(), sum(), min(), max(), an
 * integer, avg()'s average, stats()' total, hist()/lhist()'s number of
 * values.  The pprof sample type is named after the aggregation
 * ("count", "sum", ...), in nanoseconds when the aggregated expression
 * reads nsecs or elapsed (`sum(nsecs - @start[tid])`: a time-weighted
 * graph, which the SVG shows in time units).  Elements whose value is
 * negative cannot be drawn: they are counted and said. */
#ifndef STACKSCOPE_LANG_FLAME_H
#define STACKSCOPE_LANG_FLAME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lang/ast.h"
#include "lang/output.h"
#include "report/format.h"
#include "report/stacks.h"

/* Whether path names a flame graph output by its ending: ".svg" (svg),
 * ".folded" (folded), ".pb.gz" or ".pprof" (pprof); *fmt set then.
 * Any other path is the program's text output. */
bool lang_flame_path(const char *path, enum report_format *fmt);

struct lang_flame;

/* For the checked prog: the map named map ("@name" or "name"; NULL: the
 * only stack-keyed one) to write to path in fmt.  NULL with errno set and
 * a one-line reason in why (EINVAL: no such map, no stack-keyed map,
 * several, values that are not numbers; ENOMEM). */
struct lang_flame *lang_flame_new(const struct lang_prog *prog, const char *path,
				  enum report_format fmt, const char *map, char *why, size_t whysz);
void lang_flame_free(struct lang_flame *fl);

/* The map's name, "@" or "@name". */
const char *lang_flame_map(const struct lang_flame *fl);

/* Adds the map's elements (as the runtime decoded them to print).
 * 0 or -ENOMEM. */
int lang_flame_add(struct lang_flame *fl, const struct lang_map_entry *ents, size_t n);

/* The stacks so far, and the elements left out (negative values). */
const struct stacks *lang_flame_stacks(const struct lang_flame *fl);
uint64_t lang_flame_dropped(const struct lang_flame *fl);

/* Writes the stacks to f in the format asked. 0 or -errno. */
int lang_flame_write(struct lang_flame *fl, FILE *f);

/* Writes the file (report/output.h: a temporary renamed into place, no
 * symlink followed) and says on stderr what it holds: "wrote out.svg
 * (@: 12 stacks)", the elements dropped, an empty map.  0 or -errno (said). */
int lang_flame_save(struct lang_flame *fl);

#endif
