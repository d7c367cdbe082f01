/* A call chain through libc: main -> sort_many -> qsort (libc, no frame
 * pointers) -> ... -> cmp_slow, which spins a little on every compare, so
 * most samples are in cmp_slow with libc frames between it and
 * sort_many.
 *   qsort_cb [SECONDS=2]   sorts until SECONDS have passed
 *   qsort_cb -n ROUNDS     sorts ROUNDS times (a fixed amount of work),
 *                          then prints on stderr its wall and CPU time:
 *                          "qsort_cb: ROUNDS rounds, WALL s wall, CPU s cpu"
 *                          (the process's own user+sys, whole run) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#define N 4096
static volatile unsigned long sink;
static int v[N];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) int cmp_slow(const void *a, const void *b)
{
	for (int i = 0; i < 200; i++)
		sink += i;
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Sorts until end (CLOCK_MONOTONIC s), or rounds times when rounds > 0. */
__attribute__((noinline)) void sort_many(double end, long rounds)
{
	unsigned seed = 1;

	for (long r = 0; rounds > 0 ? r < rounds : now() < end; r++) {
		for (int i = 0; i < N; i++)
			v[i] = (int)((seed = seed * 1103515245 + 12345) >> 8);
		qsort(v, N, sizeof(v[0]), cmp_slow);
	}
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "-n")) {
		long rounds = atol(argv[2]);
		double t0 = now();
		struct rusage ru;

		sort_many(0, rounds > 0 ? rounds : 1);
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "qsort_cb: %ld rounds, %.3f s wall, %.3f s cpu\n", rounds, now() - t0,
			ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
				ru.ru_stime.tv_usec / 1e6);
		return 0;
	}
	sort_many(now() + (argc > 1 ? atof(argv[1]) : 2.0), 0);
	return 0;
}
