/* Inlined functions with a known chain, for source lines and inlined
 * frames from DWARF.  Built -O2 -g:
 *   main -> outer (noinline) -> middle -> inner (both always_inline),
 * so the loop's code lies in outer and DWARF says it is inner's, inlined
 * into middle, inlined into outer.  The marked lines are the ones a test
 * expects: the call of inner in middle, of middle in outer, and the
 * first and last lines of inner's body.  Spins for ARGV[1] seconds (default 1), then ends. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long inner(unsigned long x)
{	/* LINE_INNER_FIRST */
	for (int i = 0; i < 4000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		x ^= x >> 29;
	}
	return x;
}	/* LINE_INNER_LAST */

static inline __attribute__((always_inline)) unsigned long middle(unsigned long x)
{
	return inner(x ^ 0x5bd1e995UL) + 1;	/* LINE_MIDDLE_CALL */
}

__attribute__((noinline)) unsigned long outer(unsigned long x)
{
	return middle(x) * 3;	/* LINE_OUTER_CALL */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1, end = now() + secs;
	unsigned long x = 1;

	while (now() < end)
		x = outer(x);
	sink = x;
	return 0;
}
