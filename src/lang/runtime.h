/* Running a checked program: probes expanded through the providers
 * (lang/provider.h), code generated (lang/codegen.h), maps created and
 * programs loaded with libbpf's low-level API, BEGIN run with
 * BPF_PROG_TEST_RUN, the other probes attached on the run engine
 * (trace/session.h), the ring buffer's records printed as they come
 * (lang/output.h), then END and the maps, summed over CPUs.
 *
 * The life of a run:
 *   session_new, session_launch (-c / --: cpid known)
 *   expand every probe, generate one program per point (one per written
 *       attach point when its code does not depend on the point)
 *   --dump bpf: print and stop (no kernel needed but for expansion)
 *   create maps, load programs (a verifier refusal names the source
 *       construct of the refused instruction and quotes the log's end)
 *   --dry-run: stop
 *   BEGIN; attach the rest; "Attached N probes"; session_run until -d, a
 *       signal, the command's end or exit(); detach; drain
 *   END; maps printed; losses printed and counted; session_end */
#ifndef STACKSCOPE_LANG_RUNTIME_H
#define STACKSCOPE_LANG_RUNTIME_H
#include <stdbool.h>
#include "lang/ast.h"
#include "lang/flame.h"
#include "lang/output.h"
#include "lang/provider.h"
#include "trace/session.h"

struct lang_run_opts {
	const struct session_opts *so;	/* -p -c -d -o */
	enum lang_out_format fmt;
	bool quiet;			/* no "Attached N probes" */
	bool verbose;			/* the whole verifier log */
	bool dry_run;			/* load, do not attach */
	bool dump_bpf;			/* print the instructions, do not load */
	int nparams;
	char *const *params;
	uint32_t ringbuf_size;		/* 0: the default */
	/* -o FILE.svg|.folded|.pb.gz: the map it draws is read after END
	 * (whether printed or not) and the file written (lang/flame.h) */
	struct lang_flame *flame;
};

/* Runs prog (parsed and checked with pr's field resolver).  Returns the
 * exit status: 0, 1 on error (said), exit(code)'s code, or the command's. */
int lang_run(struct lang_prog *prog, struct lang_probes *pr, const struct lang_run_opts *o);

#endif
