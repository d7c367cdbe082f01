/* Context-switch-heavy workload with a fixed amount of work: two threads
 * pass one byte back and forth over two pipes, ROUNDS round trips.
 * Call structure:
 *   main -> pthread_create: thread ping, thread pong; main -> pthread_join;
 *   ping, ROUNDS times: raw_write one byte to pong's pipe,
 *                       raw_read one byte from its own pipe (blocks);
 *   pong, ROUNDS times: raw_read one byte from its own pipe (blocks),
 *                       raw_write one byte to ping's pipe.
 * Each round trip switches each thread out about once: blocked on its empty
 * pipe in raw_read, or, when both share a CPU, preempted in raw_write by the
 * thread it just woke; about 2 x ROUNDS switch-outs in all.
 * raw_read / raw_write issue the syscall themselves (glibc's read() and
 * write() have no frame pointer and would hide ping / pong from a
 * frame-pointer walk).  Ends by itself when both threads are done.
 *
 * Both threads are pinned to one CPU (CPU, default the one main starts on;
 * "any" leaves them free): every hand-off is then a direct switch on that
 * CPU.  Left free on an otherwise idle VM, the threads spread over two vCPUs
 * and each hand-off wakes a halted vCPU, which made a run 20x slower and
 * its time depend on the load elsewhere on the machine.
 * Usage: pingpong [ROUNDS=200000 [CPU|any]] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <string.h>
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
	long cpu = sched_getcpu();
	cpu_set_t set;
	char *end;

	if (argc > 1) {
		rounds = strtol(argv[1], &end, 10);
		if (!*argv[1] || *end || rounds < 0)
			goto usage;
	}
	if (argc > 2) {
		if (!strcmp(argv[2], "any")) {
			cpu = -1;
		} else {
			cpu = strtol(argv[2], &end, 10);
			if (!*argv[2] || *end || cpu < 0 || cpu >= CPU_SETSIZE)
				goto usage;
		}
	}
	if (argc > 3)
		goto usage;
	if (cpu >= 0) {	/* the threads inherit it */
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("pingpong: sched_setaffinity");
			return 1;
		}
	}
	if (pipe(to_ping) || pipe(to_pong))
		return 1;
	if (pthread_create(&a, NULL, ping, NULL) || pthread_create(&b, NULL, pong, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [ROUNDS [CPU|any]]\n");
	return 2;
}
