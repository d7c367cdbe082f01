/* Off-CPU workload with known blocked times (syscalls issued directly, so
 * the frame-pointer chain is complete):
 *   main -> sleeper -> raw_nanosleep: 3 x 300 ms asleep (900 ms);
 *   thread pipe_reader -> raw_read: blocked on an empty pipe until
 *   thread pipe_writer -> raw_write writes, 400 ms after it saw the reader
 *   blocked in read(2) (pipe_writer sleeps in raw_nanosleep meanwhile).
 * A sleep lasts at least what was asked; how much longer depends on the
 * machine, so at the end main prints what its own clock measured around
 * each call, bounds for a tracer's figures:
 *   sleeps_us A B C
 *   read_us R
 * Ends by itself after about 0.9 s. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static volatile long reader_tid;
static long sleeps_us[3], read_us;

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

__attribute__((noinline)) long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void raw_nanosleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	raw_syscall3(35 /* __NR_nanosleep */, (long)&ts, 0, 0);
}

__attribute__((noinline)) long raw_read(int fd, void *p, long n)
{
	return raw_syscall3(0 /* __NR_read */, fd, (long)p, n);
}

__attribute__((noinline)) long raw_write(int fd, const void *p, long n)
{
	return raw_syscall3(1 /* __NR_write */, fd, (long)p, n);
}

/* Whether thread tid is blocked in read(2): its syscall file starts with
 * the number, 0. */
static int blocked_in_read(long tid)
{
	char path[64], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] == '0' && buf[1] == ' ';
}

__attribute__((noinline)) void *pipe_reader(void *arg)
{
	long t0;
	char c;

	reader_tid = raw_syscall3(186 /* __NR_gettid */, 0, 0, 0);
	t0 = now_us();
	raw_read(fds[0], &c, 1);
	read_us = now_us() - t0;
	return arg;
}

__attribute__((noinline)) void *pipe_writer(void *arg)
{
	/* so that the reader waits for the whole 400 ms */
	while (!reader_tid || !blocked_in_read(reader_tid))
		raw_nanosleep(1);
	raw_nanosleep(400);
	raw_write(fds[1], "x", 1);
	return arg;
}

__attribute__((noinline)) void sleeper(void)
{
	for (int i = 0; i < 3; i++) {
		long t0 = now_us();

		raw_nanosleep(300);
		sleeps_us[i] = now_us() - t0;
	}
}

int main(void)
{
	pthread_t r, w;

	if (pipe(fds))
		return 1;
	pthread_create(&r, NULL, pipe_reader, NULL);
	pthread_create(&w, NULL, pipe_writer, NULL);
	sleeper();
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	printf("sleeps_us %ld %ld %ld\nread_us %ld\n", sleeps_us[0], sleeps_us[1], sleeps_us[2],
	       read_us);
	return 0;
}
