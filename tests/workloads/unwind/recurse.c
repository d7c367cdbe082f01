/* Deep recursion: main -> descend(DEPTH) -> descend(DEPTH-1) -> ... ->
 * descend(1) -> bottom_spin; DEPTH defaults to 200, so a full chain has
 * 200 descend frames.  Usage: recurse [SECONDS=2] [DEPTH=200] */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void bottom_spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) int descend(int n)
{
	if (n <= 1)
		bottom_spin();
	else
		descend(n - 1);
	__asm__ volatile("" ::: "memory");	/* no tail call */
	return n;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);
	int depth = argc > 2 ? atoi(argv[2]) : 200;

	while (now() < end)
		descend(depth);
	return 0;
}
