/* Call structure: main -> parent -> child -> leaf; leaf spins on the CPU.
 * Almost every sample lands in leaf, a few in child/parent loop overhead.
 * Usage: fp_chain [SECONDS=2]  (ends by itself) */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void leaf(void)
{
	for (int i = 0; i < 200000; i++)
		sink += i * 7;
}

__attribute__((noinline)) void child(void)
{
	leaf();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void parent(double end)
{
	while (now() < end)
		child();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;

	parent(now() + secs);
	return 0;
}
