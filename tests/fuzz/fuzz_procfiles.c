/* /proc/PID/maps (sym/proctab), /proc/kallsyms (sym/ksyms) and perf-map
 * (sym/perfmap) text: the first byte picks the reader. */
#include "fuzz.h"
#include "common.h"
#include "sym/ksyms.h"
#include "sym/perfmap.h"
#include "sym/proctab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (!size)
		return 0;
	if ((data[0] & 3) == 2) {
		size_t bad, over;
		struct perfmap *pm = perfmap_parse((const char *)data + 1, size - 1, &bad, &over);
		uint64_t off;

		for (uint64_t a = 0; pm && a < 64; a++)
			perfmap_lookup(pm, a * 0x1003, &off);
		perfmap_free(pm);
		return 0;
	}
	fd = fuzz_file(data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (data[0] & 1) {
		struct ksyms *ks = ksyms_load(path);

		for (unsigned long a = 0; ks && a < 64; a++)
			ksyms_find(ks, 0xffffffff81000000UL + a * 0x1003);
		ksyms_free(ks);
	} else {
		struct proctab *pt = proctab_new();
		FILE *f = fdopen(dup(fd), "r");

		if (pt && f) {
			proctab_load_maps(pt, 42, f);
			for (uint64_t a = 0; a < 64; a++)
				proctab_find(pt, 42, 0, 0x400000 + a * 0x10001);
		}
		if (f)
			fclose(f);
		proctab_free(pt);
	}
	close(fd);
	return 0;
}
