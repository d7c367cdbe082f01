/* Off-CPU workload with known blocked times (syscalls issued directly, so
 * the frame-pointer chain is complete):
 *   main -> sleeper -> raw_nanosleep: 3 x 300 ms asleep (900 ms);
 *   thread pipe_reader -> raw_read: blocked on an empty pipe until
 *   thread pipe_writer -> raw_write writes, 400 ms after it starts
 *   (pipe_writer sleeps in raw_nanosleep meanwhile).
 * Ends by itself after about 0.9 s. */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

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

__attribute__((noinline)) void *pipe_reader(void *arg)
{
	char c;

	raw_read(fds[0], &c, 1);
	return arg;
}

__attribute__((noinline)) void *pipe_writer(void *arg)
{
	raw_nanosleep(400);
	raw_write(fds[1], "x", 1);
	return arg;
}

__attribute__((noinline)) void sleeper(void)
{
	for (int i = 0; i < 3; i++)
		raw_nanosleep(300);
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
	return 0;
}
