/* DWARF signatures (sym/dwfunc): index the functions, describe each. */
#include "fuzz.h"
#include "common.h"
#include "sym/dwfunc.h"
#include "sym/elfsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct elfsyms *es;
	struct dwfuncs *d;
	struct elfsym_info si;

	if (fd < 0)
		return 0;
	d = dwfuncs_open(path);
	es = d ? elfsyms_open(path) : NULL;
	for (size_t i = 0; es && i < elfsyms_count(es) && i < 200; i++) {
		struct dwfunc *f;

		if (elfsyms_symbol(es, i, &si))
			continue;
		f = dwfuncs_describe(d, si.addr);
		dwfunc_free(f);
	}
	elfsyms_free(es);
	dwfuncs_free(d);
	close(fd);
	return 0;
}
