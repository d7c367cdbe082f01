/* Shared by the libFuzzer targets: the input as a file (a memfd, named
 * /proc/self/fd/N) for the readers that open paths or descriptors. */
#ifndef FUZZ_H
#define FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memfd holding data (fd >= 0) and its path in path. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t psize)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	snprintf(path, psize, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
