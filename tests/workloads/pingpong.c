/* Context-switch-heavy workload with a fixed amount of work: two threads
 * pass one byte back and forth over two pipes, ROUNDS round trips.
 * Call structure:
 *   main -> pthread_create: thread ping, thread pong; main -> pthread_join;
 *   ping, ROUNDS times: raw_write one byte to pong's pipe,
 *                       raw_read one byte from its own pipe (blocks);
 *   pong, ROUNDS times: raw_read one byte from its own pipe (blocks),
 *                       raw_write one byte to ping's pipe.
 * Each round trip blocks each thread once, on an empty pipe in raw_read, so
 * the run is about 2 x ROUNDS context switches out of the workload.
 * raw_read / raw_write issue the syscall themselves (glibc's read() and
 * write() have no frame pointer and would hide ping / pong from a
 * frame-pointer walk).  Ends by itself when both threads are done.
 * Usage: pingpong [ROUNDS=200000] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int to_ping[2], to_pong[2];	/* pipes: [0] read end, [1] write end */
static long rounds = 200000;

__attribute__((noinline)) long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void raw_read(int fd)
{
	char c;

	if (raw_syscall3(0 /* __NR_read */, fd, (long)&c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) void raw_write(int fd)
{
	if (raw_syscall3(1 /* __NR_write */, fd, (long)"x", 1) != 1)
		exit(1);
}

__attribute__((noinline)) void *ping(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		raw_write(to_pong[1]);
		raw_read(to_ping[0]);
	}
	return arg;
}

__attribute__((noinline)) void *pong(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		raw_read(to_pong[0]);
		raw_write(to_ping[1]);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	char *end;

	if (argc > 1) {
		rounds = strtol(argv[1], &end, 10);
		if (*end || rounds < 0) {
			fprintf(stderr, "usage: pingpong [ROUNDS]\n");
			return 2;
		}
	}
	if (pipe(to_ping) || pipe(to_pong))
		return 1;
	if (pthread_create(&a, NULL, ping, NULL) || pthread_create(&b, NULL, pong, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
