/* stackscope -l [PATTERN] / -lv PROBE: the probes this kernel (and the
 * binaries named in uprobe patterns) offer to the language, as bpftrace -l
 * lists them; -v adds each probe's arguments with their types. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "cmd/cmds.h"
#include "lang/provider.h"

static const char usage_text[] =
"usage: stackscope -l [-v] [-p PID] [PATTERN]\n"
"\n"
"Lists the probes a program can use here, one a line, PATTERN a glob over\n"
"their names (tracepoint:sched:*, rawtracepoint:sched_*, software:*,\n"
"uprobe:libc:mall*, syscall:open*:return); one without ':' matches any\n"
"probe type's names.\n"
"\n"
"  -v             with each probe's arguments and their types (-lv)\n"
"  -p PID         libraries of uprobe patterns from this process's mappings\n";

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct lang_probes_opts o = { 0 };
	bool verbose = false;
	pid_t *pids = NULL;
	int c, n, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "lvp:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': break;
		case 'v': verbose = true; break;
		case 'p':
			free(pids);
			n = parse_pid_list(optarg, &pids);
			if (n < 0)
				return 1;
			o.pids = pids;
			o.npids = n;
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs(usage_text, stderr);
		free(pids);
		return 2;
	}
	n = lang_list_probes(stdout, optind < argc ? argv[optind] : NULL, verbose, &o);
	ret = n < 0 ? 1 : 0;
	if (fflush(stdout))
		ret = 1;
	free(pids);
	return ret;
}
