/* libFuzzer entry: arbitrary bytes as a tracepoint format file
 * (lang/tpformat.c), every field looked up again by name; the first byte
 * says whether pointers are user memory.  Inputs are bounded by the parser
 * (TP_MAX_FORMAT, TP_MAX_FIELDS). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lang/probe_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_format *f = tp_format_parse((const char *)data, size, size && (data[0] & 1));

	if (!f)
		return 0;
	if (f->nfields > TP_MAX_FIELDS)
		abort();
	for (size_t i = 0; i < f->nfields; i++) {
		const struct tp_field *x = &f->fields[i];

		if (tp_format_field(f, x->name) != x || !x->acc.size ||
		    x->acc.offset + (uint64_t)x->acc.size > TP_MAX_RECORD ||
		    strlen(x->acc.ctype) >= sizeof(x->acc.ctype))
			abort();
	}
	free(f);
	return 0;
}
