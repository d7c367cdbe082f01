/* The in-kernel unwinder's mapping table builder (unwind/kload.c): the
 * executable mappings of /proc/PID/maps text and their load biases. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "test.h"
#include "unwind/kload.h"

TEST(kload_parse_maps_executable_only)
{
	static const char text[] =
		"5581a000-5581b000 r--p 00000000 fd:01 1234                       /usr/bin/x y\n"
		"5581b000-5581c000 r-xp 00001000 fd:01 1234                       /usr/bin/x y\n"
		"7f00000000-7f00001000 rwxp 00000000 00:00 0 \n"
		"7f10028000-7f101bd000 r-xp 00028000 08:02 99                     /lib/libc.so.6 (deleted)\n"
		"garbage line\n"
		"7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]\n"
		"7ffd4000-7ffd3000 r-xp 00000000 00:00 0                          [backwards]\n";
	struct kload_vma v[8];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	int n;

	CHECK(f != NULL);
	n = kload_parse_maps(f, v, 8);
	fclose(f);
	CHECK_INT(n, 4);
	CHECK_INT(v[0].start, 0x5581b000);
	CHECK_INT(v[0].end, 0x5581c000);
	CHECK_INT(v[0].pgoff, 0x1000);
	CHECK_INT(v[0].dev, makedev(0xfd, 1));
	CHECK_INT(v[0].ino, 1234);
	CHECK_STR(v[0].path, "/usr/bin/x y");
	CHECK_STR(v[1].path, "");	/* anonymous: frame pointers */
	CHECK_INT(v[1].start, 0x7f00000000);
	CHECK_STR(v[2].path, "/lib/libc.so.6 (deleted)");
	CHECK_INT(v[2].dev, makedev(8, 2));
	CHECK_STR(v[3].path, "[vdso]");

	/* at most max */
	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	CHECK_INT(kload_parse_maps(f, v, 2), 2);
	fclose(f);
}

TEST(kload_bias_from_segments)
{
	/* a PIE: text at file offset 0x1000, vaddr 0x1000; a segment whose
	 * offset is not page-aligned (mapped from its page) */
	const struct kload_seg segs[] = {
		{ 0, 0, 0x800 }, { 0x1000, 0x1000, 0x2345 }, { 0x3e10, 0x4e10, 0x250 },
	};
	uint64_t bias = 0;

	CHECK_INT(kload_bias(segs, 3, 0x555555555000, 0x1000, &bias), 0);
	CHECK_INT(bias, 0x555555554000);
	/* the mapping of the unaligned segment starts at its page 0x3000 */
	CHECK_INT(kload_bias(segs, 3, 0x555555558000, 0x3000, &bias), 0);
	CHECK_INT(0x555555558000 - bias, 0x4000);
	/* a non-PIE executable: vaddr = bias 0 */
	const struct kload_seg exe[] = { { 0, 0x400000, 0x5000 } };
	CHECK_INT(kload_bias(exe, 1, 0x401000, 0x1000, &bias), 0);
	CHECK_INT(bias, 0);
	CHECK_INT(kload_bias(segs, 3, 0x1000, 0x9000, &bias), -ERANGE);
}
