/* libFuzzer entry: arbitrary bytes through the language's lexer, parser,
 * checker and dump (make fuzz; 5 s in make test).
 * Inputs past LANG_MAX_SOURCE are refused by lang_prog_new(); nesting is
 * bounded by LANG_MAX_DEPTH, so no input can exhaust the stack. */
#include <stdint.h>
#include <stdio.h>
#include "lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *params[] = { "1", "x" };
	struct lang_check_opts opts = { .unsafe = size & 1, .nparams = 2, .params = params };
	struct lang_prog *prog = lang_prog_new("fuzz", (const char *)data, size);
	FILE *devnull;

	if (!prog)
		return 0;
	if (!lang_parse(prog) && !lang_check(prog, &opts)) {
		devnull = fopen("/dev/null", "w");
		if (devnull) {
			lang_dump_ast(devnull, prog);
			fclose(devnull);
		}
	} else {
		devnull = fopen("/dev/null", "w");
		if (devnull) {
			lang_print_errors(devnull, prog);
			fclose(devnull);
		}
	}
	lang_prog_free(prog);
	return 0;
}
