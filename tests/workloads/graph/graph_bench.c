/* Benchmark workload for `stackscope graph`: main calls small() N times
 * (argv[1], default 1000000) and nothing else; the per-call overhead of
 * a tracer is its extra time over N.  Ends by itself. */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline, noipa)) long small(long x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;

	for (long i = 0; i < n; i++)
		sink += small(i);
	return 0;
}
