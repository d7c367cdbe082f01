/* Call structure: main -> do_reads -> raw_read -> read(2) on /dev/zero,
 * 64 KiB at a time, so most samples are in the kernel under raw_read.
 * raw_read issues the syscall itself (glibc's read() has no frame pointer
 * and would hide do_reads from a frame-pointer walk).
 * Usage: syscall_heavy [SECONDS=2] */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) long raw_read(int fd, void *p, unsigned long n)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(0L /* __NR_read */), "D"((long)fd), "S"(p), "d"(n)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void do_reads(int fd, double end)
{
	while (now() < end)
		for (int i = 0; i < 64; i++)
			if (raw_read(fd, buf, sizeof(buf)) < 0)
				exit(1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	do_reads(fd, now() + (argc > 1 ? atof(argv[1]) : 2.0));
	return 0;
}
