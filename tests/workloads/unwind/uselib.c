/* Through a shared library and its PLT: main -> call_into_lib ->
 * lib_entry (libwork.so) -> lib_work.  Usage: uselib [SECONDS=2] */
#include <stdlib.h>
#include <time.h>

void lib_entry(void);

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void call_into_lib(double end)
{
	while (now() < end)
		lib_entry();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	call_into_lib(now() + (argc > 1 ? atof(argv[1]) : 2.0));
	return 0;
}
