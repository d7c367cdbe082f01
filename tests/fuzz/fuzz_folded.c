/* The folded-stack reader (report/folded), and writing back what it read. */
#include "fuzz.h"
#include "report/folded.h"
#include "report/stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in = fmemopen((void *)data, size, "r"), *out;
	struct stacks *s = stacks_new();
	size_t bad = 0;

	if (in && s && !report_folded_read(in, s, &bad)) {
		out = fopen("/dev/null", "w");
		if (out) {
			stacks_sort(s);
			report_folded_write(out, s);
			fclose(out);
		}
	}
	if (in)
		fclose(in);
	stacks_free(s);
	return 0;
}
