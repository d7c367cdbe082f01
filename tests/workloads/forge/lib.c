/* A library built twice (ROLE true and evil) under one build id: the
 * genuine one and a forged copy with other names at the same places, as
 * any user can make.  lib_entry -> ROLE_work spins for MS milliseconds of
 * the process's CPU time. */
#include <time.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void CAT(ROLE, _work)(double ms)
{
	while (cpu_ms() < ms)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

__attribute__((noinline)) void lib_entry(double ms)
{
	CAT(ROLE, _work)(ms);
	sink++;
}
