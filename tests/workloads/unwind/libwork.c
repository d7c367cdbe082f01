/* The shared library of the `uselib` workload: lib_entry -> lib_work,
 * which spins.  Built without frame pointers. */
static volatile unsigned long sink;

__attribute__((noinline)) void lib_work(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i * 3;
}

__attribute__((noinline)) void lib_entry(void)
{
	lib_work();
	__asm__ volatile("" ::: "memory");
}
