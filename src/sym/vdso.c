#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include "common.h"
#include "sym/vdso.h"

int vdso_image_fd(void)
{
	static int fd = -ENOENT, tried;
	unsigned long base = getauxval(AT_SYSINFO_EHDR), lo, hi;
	char line[256];
	FILE *f;

	if (tried)
		return fd;
	tried = 1;
	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return fd;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2 || lo != base)
			continue;
		fd = memfd_with("vdso", (const void *)lo, hi - lo);
		break;
	}
	fclose(f);
	return fd;
}
