/* Short-lived children: main forks N (default 20) children one after the
 * other; each runs main -> child_spin for MS milliseconds (default 60) on
 * the CPU and exits before the next is forked.  The parent exits with
 * status 0 after the last, so every process has exited before a profiler
 * writes its report.
 * Usage: forker [N=20] [MS=60] */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void child_spin(double ms)
{
	double end = now() + ms / 1000;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	double ms = argc > 2 ? atof(argv[2]) : 60;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			child_spin(ms);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	return 0;
}
