/* A process whose frames are known by name: main -> ROLE_outer ->
 * ROLE_spin, built as two programs (ROLE victim and decoy) from this one
 * file, so that without PIE both have the same functions at the same
 * addresses under other names.  It spins for MS milliseconds of its own
 * CPU time, then, with "pause", waits for a signal.
 * Usage: victim|decoy MS [pause] */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define OUTER CAT(ROLE, _outer)
#define SPIN CAT(ROLE, _spin)

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void SPIN(double ms)
{
	while (cpu_ms() < ms)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

__attribute__((noinline)) void OUTER(double ms)
{
	SPIN(ms);
	sink++;
}

int main(int argc, char **argv)
{
	OUTER(argc > 1 ? atof(argv[1]) : 300);
	if (argc > 2 && !strcmp(argv[2], "pause"))
		pause();
	return 0;
}
