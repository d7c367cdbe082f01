/* A call chain through libc: main -> sort_many -> qsort (libc, no frame
 * pointers) -> ... -> cmp_slow, which spins a little on every compare, so
 * most samples are in cmp_slow with libc frames between it and
 * sort_many.  Usage: qsort_cb [SECONDS=2] */
#include <stdlib.h>
#include <time.h>

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

__attribute__((noinline)) void sort_many(double end)
{
	unsigned seed = 1;

	while (now() < end) {
		for (int i = 0; i < N; i++)
			v[i] = (int)((seed = seed * 1103515245 + 12345) >> 8);
		qsort(v, N, sizeof(v[0]), cmp_slow);
	}
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	sort_many(now() + (argc > 1 ? atof(argv[1]) : 2.0));
	return 0;
}
