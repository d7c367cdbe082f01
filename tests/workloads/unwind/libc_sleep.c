/* Off-CPU through libc, no frame pointers: main -> nap_in_libc ->
 * usleep (libc) -> clock_nanosleep: 3 x 300 ms asleep (900 ms).
 * Ends by itself after about 0.9 s. */
#include <unistd.h>

__attribute__((noinline)) void nap_in_libc(void)
{
	for (int i = 0; i < 3; i++)
		usleep(300000);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	nap_in_libc();
	return 0;
}
