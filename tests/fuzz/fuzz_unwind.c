/* The CFI and SFrame table builder (unwind/table, unwind/sframe): a whole
 * ELF file, and the input as a raw .sframe section. */
#include "fuzz.h"
#include "common.h"
#include "unwind/sframe.h"
#include "unwind/table.h"

static int emit(void *ctx, const struct unwind_row *row, uint64_t end)
{
	return ++*(size_t *)ctx > 100000 ? -E2BIG : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct unwind_table *t;
	const struct unwind_row *rows;
	size_t n = 0, rows_seen = 0;
	uint64_t *starts;

	if (fd < 0)
		return 0;
	t = unwind_table_build_fd(fd, path, 0);
	if (t) {
		n = unwind_table_rows(t, &rows);
		for (size_t i = 0; i < n; i++)
			unwind_table_find(t, rows[i].pc);
		unwind_table_free(t);
	}
	if (!unwind_fde_starts(path, &starts, &n))
		free(starts);
	sframe_parse(data, size, 0x1000, emit, &rows_seen);
	close(fd);
	return 0;
}
