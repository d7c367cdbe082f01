/* ELF symbol reading (sym/elfsyms): open, then every lookup path. */
#include "fuzz.h"
#include "common.h"
#include "sym/elfsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct elfsyms *es;
	struct elfsym_info si;
	uint64_t v, so;

	if (fd < 0)
		return 0;
	elfsyms_set_debug_root("/nonexistent");
	es = elfsyms_open_fd(fd, path);
	for (size_t i = 0; es && i < elfsyms_count(es); i++) {
		if (elfsyms_symbol(es, i, &si))
			continue;
		if (!elfsyms_vaddr_to_off(es, si.addr, &v))
			elfsyms_lookup(es, v, &so);
		elfsyms_off_to_vaddr(es, si.addr, &v);
	}
	for (uint64_t off = 0; es && off < 0x3000; off += 0x101)
		elfsyms_lookup(es, off, &so);
	elfsyms_free(es);
	close(fd);
	return 0;
}
