/* Off-CPU through libc, no frame pointers: main -> nap_in_libc ->
 * usleep (libc) -> clock_nanosleep: 3 x 300 ms asleep (900 ms).  At the
 * end main prints how long each usleep took by its own clock, an upper
 * bound for a tracer's figure:
 *   sleeps_us A B C
 * Ends by itself after about 0.9 s. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long sleeps_us[3];

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

__attribute__((noinline)) void nap_in_libc(void)
{
	for (int i = 0; i < 3; i++) {
		long t0 = now_us();

		usleep(300000);
		sleeps_us[i] = now_us() - t0;
	}
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	nap_in_libc();
	printf("sleeps_us %ld %ld %ld\n", sleeps_us[0], sleeps_us[1], sleeps_us[2]);
	return 0;
}
